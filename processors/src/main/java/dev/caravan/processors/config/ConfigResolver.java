package dev.caravan.processors.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Merges the configuration layers into one {@link GatewayConfig}. Precedence, highest first:
 * <ol>
 *   <li>command-line flags ({@code --port 8080});</li>
 *   <li>environment variables ({@code CARAVAN_PORT=8080}; the row's {@link CaravanFlag#envVar()});</li>
 *   <li>the file named by {@code --config FILE} (or {@code CARAVAN_CONFIG});</li>
 *   <li>{@code config/application.properties} under the working directory, when it exists;</li>
 *   <li>the defaults of {@link CaravanFlags}.</li>
 * </ol>
 * Property files may also hold {@code camel.*} (and other) keys; those are returned separately for camel-main, with the
 * same file precedence.
 */
public final class ConfigResolver {

    /** The default file, relative to the working directory. */
    public static final String DEFAULT_FILE = "config/application.properties";

    /**
     * The outcome.
     *
     * @param config     the resolved gateway configuration
     * @param others     non-{@code caravan.*} keys from the property files (for camel-main), in precedence order
     * @param sources    human-readable list of the layers that contributed, lowest first (logged at start)
     * @param help       true when {@code --help} was given
     */
    public record Resolved(GatewayConfig config, Map<String, String> others, List<String> sources, boolean help) {
    }

    private ConfigResolver() {
    }

    /**
     * @param args       the command line after the subcommand
     * @param env        the environment ({@code System.getenv()})
     * @param workingDir where {@link #DEFAULT_FILE} is looked up
     * @throws IllegalArgumentException for a bad flag, an unreadable {@code --config} file, or invalid values
     */
    public static Resolved resolve(String[] args, Map<String, String> env, Path workingDir) {
        ArgsParser.Parsed parsed = ArgsParser.parse(args);
        Map<String, String> merged = new LinkedHashMap<>();
        List<String> sources = new ArrayList<>();
        sources.add("defaults");

        Path defaultFile = workingDir.resolve(DEFAULT_FILE);
        if (Files.isRegularFile(defaultFile)) {
            merged.putAll(load(defaultFile));
            sources.add(defaultFile.toString());
        }
        String configFile = parsed.properties().get(CoreFlags.CONFIG.key());
        if (configFile == null) {
            configFile = env.get(CoreFlags.CONFIG.envVar());
        }
        if (configFile != null && !configFile.isBlank()) {
            Path p = workingDir.resolve(configFile.trim());
            if (!Files.isRegularFile(p)) {
                throw new IllegalArgumentException("--config file not found: " + p);
            }
            merged.putAll(load(p));
            sources.add(p.toString());
        }
        boolean fromEnv = false;
        for (CaravanFlag f : CaravanFlags.all()) {
            String v = env.get(f.envVar());
            if (v != null) {
                merged.put(f.key(), v);
                fromEnv = true;
            }
        }
        if (fromEnv) {
            sources.add("environment");
        }
        if (!parsed.properties().isEmpty()) {
            merged.putAll(parsed.properties());
            sources.add("command line");
        }
        Map<String, String> others = new LinkedHashMap<>();
        merged.forEach((k, v) -> {
            if (!k.startsWith("caravan.")) {
                others.put(k, v);
            }
        });
        return new Resolved(GatewayConfig.of(merged), others, sources, parsed.help());
    }

    static Map<String, String> load(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) {
            out.put(name, p.getProperty(name));
        }
        return out;
    }
}
