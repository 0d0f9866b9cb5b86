package dev.caravan.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.caravan.bench.workload.TextSource;
import dev.caravan.sim.text.ModelText;

/**
 * The model whose files the bench's simulated engines load ({@code --engine-tokenizer}), and how its tokens compare
 * with the workloads' nominal ones.
 *
 * <p>Workloads size their text in nominal tokens of 4 characters ({@link TextSource}: English words from a small
 * lexicon). A real tokenizer cuts that text into fewer, word-sized tokens, so a workload that sizes the engines' KV
 * pool to hold M prompts ({@code b2b}) would hold more of them. {@link #tokensPerNominalToken} measures the ratio on the
 * workloads' own text once per run; {@link BenchCli} scales the pool and the context limit by it.
 *
 * @param path  the model directory or {@code tokenizer.json}, absolute; null for the simulator's synthetic tokenizer
 * @param label how reports name it: the model directory's name, or {@code synthetic}
 */
public record EngineModel(Path path, String label) {

    /** The default: Qwen3's files, committed at the repository's {@code models/qwen3}. */
    public static final String DEFAULT = "models/qwen3";
    /** The simulator's toy tokenizer (4 characters a token), which kv_aware's default pseudo tokenizer matches. */
    public static final String SYNTHETIC = "synthetic";
    /** Characters of workload text measured for {@link #tokensPerNominalToken}. */
    static final int SAMPLE_CHARS = 64_000;

    /**
     * {@code spec} as the engines get it: {@code synthetic}, or a path; a relative path is looked up in {@code from}
     * and then in each directory above it, so the default works from any directory of the repository.
     *
     * @throws IllegalArgumentException when no such file or directory exists
     */
    public static EngineModel resolve(String spec, Path from) {
        if (SYNTHETIC.equals(spec)) {
            return new EngineModel(null, SYNTHETIC);
        }
        Path given = Path.of(spec);
        Path found = null;
        if (given.isAbsolute()) {
            found = Files.exists(given) ? given : null;
        } else {
            for (Path dir = from.toAbsolutePath().normalize(); dir != null && found == null; dir = dir.getParent()) {
                Path candidate = dir.resolve(given);
                found = Files.exists(candidate) ? candidate : null;
            }
        }
        if (found == null) {
            throw new IllegalArgumentException("--engine-tokenizer " + spec + " not found in " + from.toAbsolutePath()
                    + " or a directory above it (give a model directory, a tokenizer.json, or synthetic)");
        }
        Path path = found.toAbsolutePath().normalize();
        return new EngineModel(path, labelOf(path));
    }

    /** How reports name the engines' tokens: the model directory's name, or {@code synthetic} for null. */
    public static String labelOf(Path tokenizer) {
        if (tokenizer == null) {
            return SYNTHETIC;
        }
        Path dir = Files.isDirectory(tokenizer) ? tokenizer : tokenizer.toAbsolutePath().getParent();
        return dir.getFileName().toString();
    }

    /**
     * Engine tokens per nominal token of the workloads' text: 1 for the synthetic tokenizer; for a real one, the tokens
     * of {@value #SAMPLE_CHARS} characters of {@link TextSource} text divided by {@code SAMPLE_CHARS / 4}.
     *
     * @throws IOException when the model's files cannot be loaded
     */
    public double tokensPerNominalToken() throws IOException {
        if (path == null) {
            return 1.0;
        }
        try (ModelText model = ModelText.load(path, null)) {
            return model.tokenizer().encode(TextSource.text(1, SAMPLE_CHARS), false).length / (SAMPLE_CHARS / 4.0);
        }
    }
}
