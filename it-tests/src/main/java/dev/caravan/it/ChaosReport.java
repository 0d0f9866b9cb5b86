package dev.caravan.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The figures a chaos or fuzz test measured, one line per scenario: printed, and appended to
 * {@code it-tests/target/chaos-report.txt} so a run of the suite leaves the table docs/reliability.md records.
 */
public final class ChaosReport {

    /** Where the lines go (relative to the it-tests module, failsafe's working directory). */
    public static final Path FILE = Path.of("target", "chaos-report.txt");

    private ChaosReport() {
    }

    /** Records one scenario's figures, in the map's order. */
    public static void record(String scenario, Map<String, ?> figures) {
        String line = "CHAOS " + scenario + ": " + figures.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
        System.out.println(line);
        try {
            Files.createDirectories(FILE.getParent());
            Files.writeString(FILE, line + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
