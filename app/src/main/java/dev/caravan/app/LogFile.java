package dev.caravan.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.RollingFileAppender;
import org.apache.logging.log4j.core.appender.rolling.TimeBasedTriggeringPolicy;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * {@code --log-dir DIR} of {@code ./caravan run}: the log also goes to {@code DIR/caravan.log}, rolled over daily to
 * {@code caravan.YYYY-MM-DD.log} (SGLang's router writes {@code smg} files there, also daily), besides the console.
 * Added to the root logger of the application's log4j2 configuration, so it logs what the console logs, at the levels
 * {@code --log-level} set.
 */
final class LogFile {

    /** The appender's name in the log4j2 configuration. */
    static final String APPENDER = "caravan-log-dir";
    static final String FILE = "caravan.log";

    private LogFile() {
    }

    /**
     * Adds the file appender for {@code dir} (created when missing); an empty value adds nothing.
     *
     * @throws IllegalArgumentException naming the flag and the directory when it cannot be created
     */
    static void add(String dir) {
        if (dir == null || dir.isBlank()) {
            return;
        }
        Path d = Path.of(dir.trim()).toAbsolutePath();
        try {
            Files.createDirectories(d);
        } catch (IOException e) {
            throw new IllegalArgumentException("--log-dir: cannot create " + d + ": " + e.getMessage(), e);
        }
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        PatternLayout layout = PatternLayout.newBuilder().withConfiguration(config)
                .withPattern("%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%t] %c{1} - %msg%n").build();
        RollingFileAppender appender = RollingFileAppender.newBuilder().setName(APPENDER).setConfiguration(config)
                .withFileName(d.resolve(FILE).toString())
                .withFilePattern(d.resolve("caravan.%d{yyyy-MM-dd}.log").toString())
                .withPolicy(TimeBasedTriggeringPolicy.newBuilder().build()).setLayout(layout).build();
        appender.start();
        config.addAppender(appender);
        config.getRootLogger().addAppender(appender, null, null);
        context.updateLoggers();
    }

    /** Removes the appender again (tests). */
    static void remove() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        config.getRootLogger().removeAppender(APPENDER);
        var appender = config.getAppenders().get(APPENDER);
        if (appender != null) {
            appender.stop();
        }
        context.updateLoggers();
    }
}
