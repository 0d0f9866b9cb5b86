package dev.caravan.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** --log-dir: the log goes to DIR/caravan.log too, the directory created when missing. */
class LogFileTest {

    @TempDir
    Path dir;

    @AfterEach
    void remove() {
        LogFile.remove();
    }

    @Test
    void writesTheLogToCaravanLogInTheDirectory() throws IOException {
        Path logs = dir.resolve("logs");
        LogFile.add(logs.toString());
        LoggerFactory.getLogger("dev.caravan.test").warn("written to the log directory");
        LogFile.remove(); // flushes and closes the file
        assertThat(Files.readString(logs.resolve(LogFile.FILE))).contains("WARN")
                .contains("written to the log directory");
    }

    @Test
    void aDirectoryThatCannotBeCreatedNamesTheFlag() throws IOException {
        Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
        assertThatThrownBy(() -> LogFile.add(file.resolve("logs").toString()))
                .hasMessageStartingWith("--log-dir: cannot create ");
    }

    @Test
    void noDirectoryAddsNothing() {
        LogFile.add("");
        assertThat(((org.apache.logging.log4j.core.LoggerContext) org.apache.logging.log4j.LogManager.getContext(false))
                .getConfiguration().getAppenders()).doesNotContainKey(LogFile.APPENDER);
    }
}
