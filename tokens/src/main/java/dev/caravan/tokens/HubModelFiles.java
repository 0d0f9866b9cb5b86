package dev.caravan.tokens;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import ai.djl.util.Utils;

/**
 * A model's tokenizer files fetched from the Hugging Face Hub by the model's id (the engines' served model name, e.g.
 * {@code mistralai/Mistral-Nemo-Instruct-2407}) into a local directory, for a model the gateway has no files of:
 * {@code tokenizer.json} and {@code tokenizer_config.json} (required), {@code chat_template.jinja} (when the repository
 * has one), each from {@code {endpoint}/{model}/resolve/main/{file}} through DJL's URL opener
 * ({@link Utils#openUrl(URL, Map)}: HTTP(S) with redirects, or a local {@code file:} URL). A file already in the
 * directory is not fetched again; a file is written whole or not at all (a temporary file moved into place).
 *
 * <p>{@link #fromEnvironment}: the endpoint is {@code HF_ENDPOINT} or {@value #DEFAULT_ENDPOINT}, {@code HF_TOKEN}
 * (gated models) is sent as a bearer token, files go under DJL's cache directory. Blocking I/O: call it off the event
 * loops. Thread-safe for distinct models.
 */
public final class HubModelFiles {

    public static final String DEFAULT_ENDPOINT = "https://huggingface.co";
    static final List<String> REQUIRED = List.of("tokenizer.json", "tokenizer_config.json");
    static final String OPTIONAL = "chat_template.jinja";
    /** A Hub model id: {@code name} or {@code owner/name}, no path tricks. */
    private static final Pattern MODEL_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?");

    private final String endpoint;
    private final Path cache;
    private final String token;

    /**
     * @param endpoint the Hub's base URL, without a trailing slash
     * @param cache    where each model's files go (a directory per model)
     * @param token    a Hub access token, or null
     */
    public HubModelFiles(String endpoint, Path cache, String token) {
        this.endpoint = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        this.cache = cache;
        this.token = token == null || token.isBlank() ? null : token;
    }

    /** The Hub of {@code HF_ENDPOINT} (default {@value #DEFAULT_ENDPOINT}) with {@code HF_TOKEN}, DJL's cache. */
    public static HubModelFiles fromEnvironment(Map<String, String> env) {
        return new HubModelFiles(env.getOrDefault("HF_ENDPOINT", DEFAULT_ENDPOINT),
                Utils.getCacheDir().resolve("caravan-models"), env.get("HF_TOKEN"));
    }

    /** True when {@code model} can name a Hub repository. */
    public static boolean isModelId(String model) {
        return model != null && MODEL_ID.matcher(model).matches() && !model.contains("..");
    }

    /**
     * The model's files, fetched unless already here.
     *
     * @throws IllegalArgumentException when {@code model} is not a Hub model id
     * @throws IOException              naming the URL when a required file cannot be fetched
     */
    public ModelFiles fetch(String model) throws IOException {
        if (!isModelId(model)) {
            throw new IllegalArgumentException("'" + model + "' is not a Hugging Face model id");
        }
        Path dir = cache.resolve(model.replace("/", "--"));
        Files.createDirectories(dir);
        for (String file : REQUIRED) {
            get(model, file, dir, true);
        }
        get(model, OPTIONAL, dir, false);
        return new ModelFiles(model, dir, null, null);
    }

    private void get(String model, String file, Path dir, boolean required) throws IOException {
        Path target = dir.resolve(file);
        if (Files.exists(target)) {
            return;
        }
        String location = endpoint + "/" + model + "/resolve/main/" + file;
        URL url = URI.create(location).toURL();
        Map<String, String> headers = token == null ? Map.of() : Map.of("Authorization", "Bearer " + token);
        Path part = Files.createTempFile(dir, file, ".part");
        try (InputStream in = Utils.openUrl(url, headers)) {
            Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
            Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (FileNotFoundException | NoSuchFileException e) {
            Files.deleteIfExists(part);
            if (required) {
                throw new IOException(location + ": not found", e);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(part);
            throw new IOException(location + ": " + e.getMessage(), e);
        }
    }
}
