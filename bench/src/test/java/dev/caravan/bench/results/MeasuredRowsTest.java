package dev.caravan.bench.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a measuring program's own rows merge into its section file. */
class MeasuredRowsTest {

    private static final ResultsSection.Measured OLD = new ResultsSection.Measured(List.of("radix tree"),
            "java TreeMemory", "519038c", "2026-11-30", "2 vCPUs", "6 to 8");

    private static ResultsSection section() {
        return new ResultsSection("java TreeMemory --results memory.json", List.of(OLD),
                List.of(ResultsSection.Column.of("shape", "shape"), ResultsSection.Column.of("heap MB", "%.1f",
                        "heap_mb")),
                List.of(Map.of("structure", "radix tree", "shape", "small", "heap_mb", 3.4),
                        Map.of("structure", "KV block index", "shape", "small", "heap_mb", 86.9)),
                List.of());
    }

    @Test
    void replacesTheRowOfTheSameKeysAndAppendsNewOnes() {
        ResultsSection.Measured now = new ResultsSection.Measured(List.of("radix tree"), "java TreeMemory --results x",
                "abc1234", "2026-12-05", "2 cores (shared), OpenJDK 64-Bit Server VM 17", "1.0 to 2.0");
        ResultsSection merged = MeasuredRows.merge(section(), List.of("structure", "shape"),
                List.of(Map.of("structure", "radix tree", "shape", "small", "heap_mb", 3.6),
                        Map.of("structure", "radix tree", "shape", "large", "heap_mb", 11.0)), now);

        assertThat(merged.rows()).containsExactly(
                Map.of("structure", "radix tree", "shape", "small", "heap_mb", 3.6),
                Map.of("structure", "KV block index", "shape", "small", "heap_mb", 86.9),
                Map.of("structure", "radix tree", "shape", "large", "heap_mb", 11.0));
        assertThat(merged.measured()).as("the rows measured again replace their old entry").containsExactly(now);
        assertThat(merged.command()).isEqualTo("java TreeMemory --results memory.json");
        assertThat(merged.columns()).isEqualTo(section().columns());
    }

    @Test
    void keepsTheEntriesOfRowsItDidNotMeasure() {
        ResultsSection.Measured now = new ResultsSection.Measured(List.of("KV block index"), "java KvIndexMemory",
                "abc1234", "2026-12-05", "2 cores", "1.0");
        ResultsSection merged = MeasuredRows.merge(section(), List.of("structure", "shape"),
                List.of(Map.of("structure", "KV block index", "shape", "small", "heap_mb", 80.0)), now);

        assertThat(merged.measured()).containsExactly(OLD, now);
        assertThat(merged.rows().get(1)).containsEntry("heap_mb", 80.0);
    }

    @Test
    void writesIntoTheFileItsOptionNamesAndPassesTheOtherArguments(@TempDir Path dir) {
        Path file = dir.resolve("memory.json");
        section().write(file);
        MeasuredRows run = MeasuredRows.start(MeasuredRowsTest.class, new String[] {"120", "--results",
                file.toString()});
        run.add(Map.of("structure", "radix tree", "shape", "small", "heap_mb", 3.5));

        assertThat(run.args()).containsExactly("120");
        run.write(List.of("structure", "shape"), List.of("radix tree"));
        ResultsSection written = ResultsSection.read(file);
        assertThat(written.rows().get(0)).containsEntry("heap_mb", 3.5);
        assertThat(written.measured()).hasSize(1);
        assertThat(written.measured().get(0).command()).endsWith(MeasuredRowsTest.class.getName() + " 120 --results "
                + file);
    }

    @Test
    void writesNothingWithoutItsOption(@TempDir Path dir) {
        MeasuredRows run = MeasuredRows.start(MeasuredRowsTest.class, new String[] {"120"});
        run.add(Map.of("structure", "radix tree"));

        assertThat(run.writes()).isFalse();
        assertThat(run.write(List.of("structure"), List.of("radix tree"))).isNull();
    }

    @Test
    void rejectsASectionFileThatIsNotThere(@TempDir Path dir) {
        String missing = dir.resolve("memory.json").toString();
        assertThatThrownBy(() -> MeasuredRows.start(MeasuredRowsTest.class, new String[] {"--results", missing}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--results " + missing + ": no such section file (copy the one in docs/bench/results to "
                        + "write elsewhere)");
        assertThatThrownBy(() -> MeasuredRows.start(MeasuredRowsTest.class, new String[] {"--results"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--results needs a section file, e.g. --results docs/bench/results/memory.json");
        assertThat(Files.exists(Path.of(missing))).isFalse();
    }
}
