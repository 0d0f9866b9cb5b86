package dev.caravan.tokens;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where one model's tokenizer and chat template come from, as the engines' flags name them: a Hugging Face model
 * directory ({@code --model-path}), optionally a separate tokenizer ({@code --tokenizer-path}, a directory or the
 * {@code tokenizer.json} itself) and a chat template override file ({@code --chat-template}, as vLLM's and SGLang's).
 *
 * <p>Resolution: {@code tokenizer.json} is the tokenizer path's (the file, or inside the directory), else the model
 * directory's; {@code tokenizer_config.json} (special tokens, {@code chat_template}) and {@code chat_template.jinja}
 * sit beside that {@code tokenizer.json}. The template is the override file, else {@code chat_template.jinja}, else
 * {@code tokenizer_config.json}'s {@code chat_template} (transformers' precedence).
 *
 * @param model        the model id requests name
 * @param modelPath    the model directory, or null
 * @param tokenizer    the tokenizer directory or {@code tokenizer.json}, or null for the model directory's
 * @param chatTemplate a Jinja file overriding the model's template, or null
 */
public record ModelFiles(String model, Path modelPath, Path tokenizer, Path chatTemplate) {

    public ModelFiles {
        Objects.requireNonNull(model, "model");
        if (modelPath == null && tokenizer == null) {
            throw new IllegalArgumentException("model " + model + ": a --model-path or --tokenizer-path is needed");
        }
    }

    /** The {@code tokenizer.json} to load. */
    public Path tokenizerJson() {
        Path base = tokenizer != null ? tokenizer : modelPath;
        return Files.isDirectory(base) ? base.resolve("tokenizer.json") : base;
    }

    /** The directory holding {@code tokenizer.json}, where {@code tokenizer_config.json} is looked for. */
    public Path tokenizerDir() {
        Path parent = tokenizerJson().toAbsolutePath().getParent();
        return parent != null ? parent : Path.of(".");
    }
}
