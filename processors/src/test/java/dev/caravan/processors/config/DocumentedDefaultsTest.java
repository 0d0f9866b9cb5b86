package dev.caravan.processors.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.DocumentedDefaults.Drift;

/**
 * Every default the docs and the javadoc quote is the default the code has: a flag's default quoted in
 * {@code README.md}, {@code docs/*.md} or {@code docs/design/*.md} is its {@link CaravanFlag} row's, and a default
 * quoted in an {@code @param} block is the value of the {@code DEFAULT_*} constant of that name (in the policies,
 * components and processors sources). {@link DocumentedDefaults} says what counts as a quote. A failure lists each
 * drift as {@code file:line: subject quoted default 'X', actual default 'Y'}; fix the prose, not the default.
 *
 * <p>Not scanned: {@code docs/configuration.md} (generated from the rows, {@link ConfigurationDocTest}), the results
 * pages ({@code docs/benchmarks.md}, {@code docs/bench/}: the settings of measured runs) and the simulator's pages
 * ({@code docs/simulator.md}, {@code docs/design/simulator.md}: its own flags, not rows of this table).
 */
class DocumentedDefaultsTest {

    private static final Path ROOT = Path.of("..");
    private static final Set<String> NOT_SCANNED = Set.of("configuration.md", "benchmarks.md", "simulator.md");
    private static final List<Path> SOURCES = List.of(ROOT.resolve("policies/src/main/java"),
            ROOT.resolve("components/src/main/java"), Path.of("src/main/java"));

    private static DocumentedDefaults scanner() {
        Map<String, CaravanFlag> byName = new HashMap<>();
        for (CaravanFlag row : CaravanFlags.all()) {
            row.names().forEach(name -> byName.put(name, row));
        }
        return new DocumentedDefaults(byName);
    }

    @Test
    void everyFlagDefaultTheDocsQuoteIsTheRowsDefault() throws IOException {
        DocumentedDefaults scanner = scanner();
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        for (Path dir : List.of(ROOT.resolve("docs"), ROOT.resolve("docs/design"))) {
            try (Stream<Path> s = Files.list(dir)) {
                s.filter(p -> p.toString().endsWith(".md"))
                        .filter(p -> !NOT_SCANNED.contains(p.getFileName().toString())).sorted().forEach(files::add);
            }
        }
        List<Drift> drifts = new ArrayList<>();
        for (Path file : files) {
            drifts.addAll(scanner.scanMarkdown(ROOT.relativize(file).toString(),
                    Files.readString(file, StandardCharsets.UTF_8)));
        }
        assertThat(drifts).as("defaults quoted in the docs that differ from the flag rows:%n%s", lines(drifts))
                .isEmpty();
        assertThat(scanner.quotes()).as("quotes found: the scan still recognises the docs' phrasing")
                .isGreaterThanOrEqualTo(40);
    }

    @Test
    void everyDefaultTheJavadocQuotesIsTheRowsOrItsConstantsValue() throws IOException, ClassNotFoundException {
        DocumentedDefaults scanner = scanner();
        List<Drift> drifts = new ArrayList<>();
        for (Path root : SOURCES) {
            List<Path> sources;
            try (Stream<Path> s = Files.walk(root)) {
                sources = s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
            }
            for (Path file : sources) {
                String source = Files.readString(file, StandardCharsets.UTF_8);
                Matcher pkg = Pattern.compile("(?m)^package ([\\w.]+);").matcher(source);
                String simpleName = file.getFileName().toString().replace(".java", "");
                Class<?> type = !source.contains("DEFAULT_") || !pkg.find() ? null
                        : Class.forName(pkg.group(1) + "." + simpleName);
                drifts.addAll(scanner.scanJavadoc(ROOT.toAbsolutePath().normalize()
                        .relativize(file.toAbsolutePath().normalize()).toString(), source, type));
            }
        }
        assertThat(drifts).as("defaults quoted in javadoc that differ from the flag row or the DEFAULT_* constant:%n%s",
                lines(drifts)).isEmpty();
        assertThat(scanner.quotes()).as("quotes found: the scan still recognises the javadoc's phrasing")
                .isGreaterThanOrEqualTo(12);
    }

    @Test
    void reportsAProseQuoteThatDiffersFromTheRowWithFileLineFlagAndBothValues() {
        String doc = """
                # Title

                The threshold is `--cache-threshold` (default 0.5): above it a match is a hit.
                `--eviction-interval` defaults to 60 s, and `--balance-abs-threshold` is 64 by default.
                """;
        assertThat(scanner().scanMarkdown("docs/x.md", doc)).extracting(Drift::toString)
                .containsExactly("docs/x.md:3: --cache-threshold quoted default '0.5', actual default '0.3'");
    }

    @Test
    void readsOneDefaultPerFlagFromADefaultColumn() {
        String doc = """
                | flag | default | what |
                |---|---|---|
                | `--kv-chars-per-token`, `--kv-block-size` | 4, 32 | tokenization |
                | `--cache-threshold` | 0.3 | hit rate |
                """;
        assertThat(scanner().scanMarkdown("docs/x.md", doc)).extracting(Drift::toString)
                .containsExactly("docs/x.md:3: --kv-block-size quoted default '32', actual default '16'");
    }

    @Test
    void skipsDefaultsThatBelongToAnotherSystem() {
        String doc = "`--max-tree-size` counts characters; SGLang's `--max-tree-size` defaults to 10,000. "
                + "vLLM's `--kv-events-topic` is `kv` by default.\n";
        assertThat(scanner().scanMarkdown("docs/x.md", doc)).isEmpty();
    }

    @Test
    void reportsAParamJavadocQuoteThatDiffersFromItsConstant() {
        String source = """
                /**
                 * @param cacheThreshold hit above it; default 0.5
                 * @param minPrefixMatchChars a long match is a hit; 0 = off (default)
                 * @param evictionInterval how often; default 60 s
                 */
                """;
        assertThat(scanner().scanJavadoc("X.java", source, dev.caravan.policies.CacheAwareConfig.class))
                .extracting(Drift::toString).containsExactly(
                        "X.java:2: @param cacheThreshold (DEFAULT_CACHE_THRESHOLD) quoted default '0.5', "
                                + "actual default '0.3'",
                        "X.java:3: @param minPrefixMatchChars (DEFAULT_MIN_PREFIX_MATCH_CHARS) quoted default '0', "
                                + "actual default '4096'");
    }

    private static String lines(List<Drift> drifts) {
        return drifts.stream().map(Drift::toString).collect(Collectors.joining("\n"));
    }
}
