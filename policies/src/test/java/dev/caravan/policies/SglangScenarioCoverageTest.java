package dev.caravan.policies;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Keeps the SGLang scenario suite complete: every test of SGLang's policy modules at smg 0.3.2, as listed in
 * {@code src/test/resources/sglang/smg-0.3.2-policy-tests.txt} (extracted from the upstream source, names only), is either
 * named by a {@code // mirrors sglang <file> <test>} comment in one of the {@code Sglang*ScenariosTest} classes or
 * marked there as not mirrored with the reason; and no mirror names a test that SGLang does not have.
 */
class SglangScenarioCoverageTest {

    private static final Pattern MIRROR = Pattern.compile("// mirrors sglang (\\S+) (test_\\w+)");

    private record Listed(Set<String> all, Set<String> notMirrored) {
    }

    private static Listed listed() throws IOException {
        Set<String> all = new TreeSet<>();
        Set<String> notMirrored = new TreeSet<>();
        try (InputStream in = SglangScenarioCoverageTest.class.getResourceAsStream("/sglang/smg-0.3.2-policy-tests.txt")) {
            assertThat(in).as("the list of SGLang tests").isNotNull();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] parts = line.split("\\|", 2);
                String test = parts[0].trim();
                all.add(test);
                if (parts.length == 2) {
                    assertThat(parts[1]).as(test).contains("not mirrored: ");
                    notMirrored.add(test);
                }
            }
        }
        return new Listed(all, notMirrored);
    }

    private static Set<String> mirrored() throws IOException {
        List<Path> suites = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/test/java"))) {
            files.filter(p -> p.getFileName().toString().matches("Sglang\\w*ScenariosTest\\.java")).forEach(suites::add);
        }
        assertThat(suites).as("scenario suites").hasSizeGreaterThanOrEqualTo(7);
        Set<String> out = new TreeSet<>();
        for (Path p : suites) {
            Matcher m = MIRROR.matcher(Files.readString(p));
            while (m.find()) {
                out.add(m.group(1) + " " + m.group(2));
            }
        }
        return out;
    }

    @Test
    void everySglangPolicyTestIsMirroredOrExplainedAndNoMirrorIsInvented() throws IOException {
        Listed listed = listed();
        Set<String> mirrored = mirrored();
        assertThat(listed.all()).hasSize(111);
        Set<String> missing = new TreeSet<>(listed.all());
        missing.removeAll(listed.notMirrored());
        missing.removeAll(mirrored);
        assertThat(missing).as("SGLang tests without a mirror").isEmpty();
        Set<String> invented = new TreeSet<>(mirrored);
        invented.removeAll(listed.all());
        assertThat(invented).as("mirrors of tests SGLang does not have").isEmpty();
        Set<String> both = new TreeSet<>(mirrored);
        both.retainAll(listed.notMirrored());
        assertThat(both).as("tests both mirrored and marked not mirrored").isEmpty();
    }
}
