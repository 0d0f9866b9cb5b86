package dev.caravan.bench.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * Everything one {@code ./caravan bench} invocation measured: the workload, the engines, the analytic bounds, one
 * {@link PolicyResult} per policy, and the conditions of the machine. The Markdown table ({@link MarkdownReport}) is
 * rendered from this object and the JSON file is this object, so both always carry the same figures.
 *
 * @param command      the command line
 * @param mode         {@code http} (real gateway and engines) or {@code whatif} (policies against engine models)
 * @param workload     workload name
 * @param description  workload description
 * @param parameters   workload parameters
 * @param engines      engine setup
 * @param analytic     the analytic model's bounds ({@link AnalyticBounds}), or null
 * @param results      one per policy, in the order of {@code --policies}
 * @param notes        skipped entries and other remarks
 * @param machine      cores, load averages before and after, JVM
 * @param noisyNeighbour the noisy-neighbour workload's per-tenant figures, the quiet tenants' run alone first; empty
 *                       for other workloads
 */
public record BenchReport(String command, String mode, String workload, String description,
                          Map<String, Object> parameters, EngineSetup engines, AnalyticBounds analytic,
                          List<PolicyResult> results, List<String> notes, Map<String, String> machine,
                          List<NoisyNeighbourSummary> noisyNeighbour) {

    public BenchReport {
        noisyNeighbour = noisyNeighbour == null ? List.of() : List.copyOf(noisyNeighbour);
    }

    /**
     * The simulated engines of every run.
     *
     * @param count               N
     * @param kvCapacityTokens    KV pool per engine, tokens
     * @param blockSize           tokens per KV block
     * @param prefillTokensPerSec prefill speed
     * @param prefillOverheadMs   fixed cost per prefill
     * @param decodeMsPerToken    decode step
     * @param maxModelLen         longest prompt + output accepted
     * @param timeScale           simulated seconds per wall second
     * @param tokenizer           whose tokens the engines count: a model directory's name, or {@code synthetic}
     *                            (null in reports written before the engines loaded a real model)
     */
    public record EngineSetup(int count, int kvCapacityTokens, int blockSize, double prefillTokensPerSec,
                              double prefillOverheadMs, double decodeMsPerToken, int maxModelLen, double timeScale,
                              String tokenizer) {
    }

    /** The JSON mapper of the report: snake_case keys, indented. */
    public static ObjectMapper mapper() {
        return new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(SerializationFeature.INDENT_OUTPUT)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    public void writeJson(Path file) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            mapper().writeValue(file.toFile(), this);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    public static BenchReport readJson(Path file) {
        try {
            return mapper().readValue(file.toFile(), BenchReport.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
