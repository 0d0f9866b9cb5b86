package dev.caravan.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Apache Camel versions the gateway runs on, checked when it is installed, before it touches any Camel API that
 * differs between versions — so a host on another Camel gets one clear message instead of a {@code NoSuchMethodError}
 * from deep inside a route's start (Camel 4.14, for one, lacks methods of platform-http-vertx that 4.18 has).
 *
 * <p>Supported: Camel 4 from {@value #MINIMUM} ({@value #TESTED} is what the gateway is built and tested with). Older
 * versions and another major version fail {@link #check}; a newer 4.x minor starts with a warning, since Camel keeps
 * its APIs within a major version but the gateway has not been tested on it. The versions compared are the context's
 * own ({@link CamelContext#getVersion()}) and those of the Camel artifacts the gateway links against, read from their
 * {@code META-INF/maven/org.apache.camel/<artifact>/pom.properties} (a host's dependency management can pin them apart
 * from camel-core).
 */
public final class CamelCompatibility {

    private static final Logger LOG = LoggerFactory.getLogger(CamelCompatibility.class);

    /** The oldest supported Camel version. */
    public static final String MINIMUM = "4.18.0";
    /** The Camel version the gateway is built and tested with. */
    public static final String TESTED = "4.18.0";
    /** The supported range in Maven's notation, for messages and docs. */
    public static final String RANGE = "[" + MINIMUM + ",5)";

    /** The Camel artifacts the gateway's classes and routes use, besides camel-core. */
    static final List<String> ARTIFACTS = List.of("camel-api", "camel-support", "camel-platform-http",
            "camel-platform-http-vertx", "camel-yaml-dsl", "camel-micrometer", "camel-jackson", "camel-resilience4j",
            "camel-health");

    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.(\\d+))?.*");

    private CamelCompatibility() {
    }

    /**
     * @throws IllegalStateException naming the versions found and the range required, when one is outside it
     */
    public static void check(CamelContext context) {
        Map<String, String> found = new LinkedHashMap<>();
        found.put("camel-core", context.getVersion());
        found.putAll(artifactVersions(CamelCompatibility.class.getClassLoader()));
        check(found);
    }

    /** {@link #check(CamelContext)} on versions already collected (component name to version). */
    static void check(Map<String, String> found) {
        List<String> unsupported = new ArrayList<>();
        List<String> untested = new ArrayList<>();
        for (Map.Entry<String, String> e : found.entrySet()) {
            int cmp = compare(e.getValue());
            if (cmp < 0) {
                unsupported.add(e.getKey() + " " + e.getValue());
            } else if (cmp > 0) {
                untested.add(e.getKey() + " " + e.getValue());
            }
        }
        if (!unsupported.isEmpty()) {
            throw new IllegalStateException("Caravan gateway needs Apache Camel " + RANGE + " (4.x from " + MINIMUM
                    + "; built and tested with " + TESTED + "), found " + describe(found)
                    + ". Align the application's Camel version, e.g. import org.apache.camel:camel-bom:" + TESTED);
        }
        if (!untested.isEmpty()) {
            LOG.warn("Caravan gateway is tested with Apache Camel {}; running on {} (supported range {})", TESTED,
                    String.join(", ", untested), RANGE);
        }
    }

    /**
     * -1 for a version below {@link #MINIMUM}, another major version or one that does not parse; 1 for a later 4.x
     * minor than {@link #TESTED}; 0 otherwise.
     */
    static int compare(String version) {
        Matcher m = version == null ? null : VERSION.matcher(version.trim());
        if (m == null || !m.matches()) {
            return -1;
        }
        int[] v = {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                m.group(3) == null ? 0 : Integer.parseInt(m.group(3))};
        int[] min = parse(MINIMUM);
        int[] tested = parse(TESTED);
        if (v[0] != min[0] || v[1] < min[1] || (v[1] == min[1] && v[2] < min[2])) {
            return -1;
        }
        return v[1] > tested[1] ? 1 : 0;
    }

    private static int[] parse(String version) {
        Matcher m = VERSION.matcher(version);
        if (!m.matches()) {
            throw new IllegalArgumentException(version);
        }
        return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))};
    }

    /** Versions of {@link #ARTIFACTS} visible to {@code loader}; artifacts without {@code pom.properties} are left out. */
    static Map<String, String> artifactVersions(ClassLoader loader) {
        Map<String, String> versions = new LinkedHashMap<>();
        for (String artifact : ARTIFACTS) {
            URL url = loader.getResource("META-INF/maven/org.apache.camel/" + artifact + "/pom.properties");
            if (url == null) {
                continue;
            }
            try (InputStream in = url.openStream()) {
                Properties p = new Properties();
                p.load(in);
                String version = p.getProperty("version");
                if (version != null) {
                    versions.put(artifact, version);
                }
            } catch (IOException e) {
                LOG.debug("Cannot read {}: {}", url, e.toString());
            }
        }
        return versions;
    }

    /** {@code 4.14.0 (camel-core, camel-api, ...)}, one group per version, in the order first found. */
    private static String describe(Map<String, String> found) {
        Map<String, List<String>> byVersion = new LinkedHashMap<>();
        found.forEach((name, version) -> byVersion.computeIfAbsent(version, v -> new ArrayList<>()).add(name));
        List<String> parts = new ArrayList<>();
        byVersion.forEach((version, names) -> parts.add(version + " (" + String.join(", ", names) + ")"));
        return String.join(" and ", parts);
    }
}
