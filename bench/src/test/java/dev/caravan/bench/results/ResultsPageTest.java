package dev.caravan.bench.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The results pages (docs/benchmarks.md: routing and reliability; docs/performance.md: what the gateway costs) must
 * show exactly the figures of docs/bench/results: every generated block equal to {@link ResultsPage#block} of its
 * file, every file there named by one page (a JSON by a block, a PNG by a plot of a named JSON), and each page within
 * 300 lines. Run with {@code -Dcaravan.docs.write=true} to re-render the pages' blocks and redraw the plots after a
 * command has written new figures.
 */
class ResultsPageTest {

    private static final List<Path> PAGES = List.of(Path.of("..", "docs", "benchmarks.md"),
            Path.of("..", "docs", "performance.md"));
    private static final Path RESULTS = Path.of("..", "docs", "bench", "results");
    private static final Path BENCH_DOCS = Path.of("..", "docs", "bench");
    private static final String HOW = "run mvn -pl bench test -Dtest=ResultsPageTest -Dcaravan.docs.write=true";

    @Test
    void pageTablesMatchTheirResultFiles() throws IOException {
        for (Path file : PAGES) {
            String page = Files.readString(file, StandardCharsets.UTF_8);
            String expected = ResultsPage.replaceSections(page, RESULTS);
            if (Boolean.getBoolean("caravan.docs.write")) {
                if (!expected.equals(page)) {
                    Files.writeString(file, expected, StandardCharsets.UTF_8);
                    page = expected;
                }
                for (String name : ResultsPage.referenced(page)) {
                    ResultsPage.writePlots(ResultsSection.read(RESULTS.resolve(name)), RESULTS);
                }
            }
            assertThat(page).as(file + " differs from docs/bench/results: " + HOW).isEqualTo(expected);
        }
    }

    @Test
    void docsBenchHoldsOnlyTheFilesThePagesUseEachOnOnePage() throws IOException {
        Set<String> used = new HashSet<>();
        for (Path file : PAGES) {
            for (String name : ResultsPage.referenced(Files.readString(file, StandardCharsets.UTF_8))) {
                assertThat(used.add("results/" + name)).as(name + " shown on more than one page").isTrue();
                ResultsSection.read(RESULTS.resolve(name)).plots().forEach(p -> used.add("results/" + p.file()));
            }
        }
        try (Stream<Path> files = Files.walk(BENCH_DOCS)) {
            List<String> present = files.filter(Files::isRegularFile)
                    .map(f -> BENCH_DOCS.relativize(f).toString().replace('\\', '/')).sorted().toList();
            assertThat(present).as("files in docs/bench that no results page uses").isSubsetOf(used);
            assertThat(present).as("files the results pages use (" + HOW + " draws the plots)")
                    .containsAll(used);
        }
    }

    @Test
    void eachPageStaysAResultsPage() throws IOException {
        for (Path file : PAGES) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            assertThat(lines.size()).as(file + " lines").isLessThanOrEqualTo(300);
        }
    }

    @Test
    void rendersTheTableFromTheRows() {
        ResultsSection s = section(List.of(row("b2b", 0.7339, 1.056), row("rag", 0.228, null)));
        assertThat(ResultsPage.table(s)).isEqualTo("""
                | workload | hit · share | hit |
                |---|---:|---:|
                | b2b | 0.734 · 1.06 | 0.734 |
                | rag | – | 0.228 |
                """);
    }

    @Test
    void blockNamesItsCommandMeasurementAndData() {
        ResultsSection s = section(List.of(row("b2b", 0.5, 1.0)));
        assertThat(ResultsPage.block("x.json", s)).isEqualTo("""
                <!-- BEGIN RESULTS x.json -->
                | workload | hit · share | hit |
                |---|---:|---:|
                | b2b | 0.500 · 1.00 | 0.500 |

                ```sh
                ./caravan bench b2b
                ```

                Measured on commit `abc1234`, 2026-12-02, 2 cores (shared), load average 1.0 to 2.0. \
                Data: [x.json](bench/results/x.json).
                <!-- END RESULTS x.json -->""");
    }

    @Test
    void replaceSectionsRewritesOnlyTheBlocks(@TempDir Path dir) {
        section(List.of(row("b2b", 0.5, 1.0))).write(dir.resolve("x.json"));
        String page = "# Title\n\nprose\n\n<!-- BEGIN RESULTS x.json -->\nstale\n<!-- END RESULTS x.json -->\n\nmore\n";
        String out = ResultsPage.replaceSections(page, dir);
        assertThat(out).startsWith("# Title\n\nprose\n\n<!-- BEGIN RESULTS x.json -->\n| workload |")
                .contains("| b2b | 0.500 · 1.00 | 0.500 |").endsWith("<!-- END RESULTS x.json -->\n\nmore\n");
        assertThat(ResultsPage.referenced(out)).containsExactly("x.json");
    }

    @Test
    void rejectsABlockWithoutItsFile(@TempDir Path dir) {
        String page = "<!-- BEGIN RESULTS gone.json -->\n<!-- END RESULTS gone.json -->\n";
        assertThatThrownBy(() -> ResultsPage.replaceSections(page, dir)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gone.json");
    }

    @Test
    void drawsEachPlotAsAPng(@TempDir Path dir) throws IOException {
        ResultsSection s = new ResultsSection("cmd", List.of(), section(List.of()).columns(),
                List.of(row("b2b", 0.5, 1.0), row("rag", 0.2, 1.1)),
                List.of(new ResultsSection.Plot("hit.png", "bar", "hit", "workload", "hit rate", 0.0, 1.0,
                        List.of(new ResultsSection.Series("cache_aware", "hit")))));
        List<Path> written = ResultsPage.writePlots(s, dir);
        assertThat(written).containsExactly(dir.resolve("hit.png"));
        byte[] png = Files.readAllBytes(dir.resolve("hit.png"));
        assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
    }

    static ResultsSection section(List<Map<String, Object>> rows) {
        return new ResultsSection("./caravan bench b2b",
                List.of(new ResultsSection.Measured(null, "./caravan bench b2b --json x", "abc1234", "2026-12-02",
                        "2 cores (shared)", "1.0 to 2.0")),
                List.of(ResultsSection.Column.of("workload", "workload"),
                        ResultsSection.Column.of("hit · share", "%.3f · %.2f", "hit", "share"),
                        ResultsSection.Column.of("hit", "%.3f", "hit")),
                rows, List.of());
    }

    static Map<String, Object> row(String workload, Double hit, Double share) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("workload", workload);
        r.put("hit", hit);
        r.put("share", share);
        return r;
    }
}
