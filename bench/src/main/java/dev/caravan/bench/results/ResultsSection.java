package dev.caravan.bench.results;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * One section of the results page as data: the table's columns and rows, the command that reproduces it, when and
 * where its figures were measured, and the plots drawn from its rows. A row is a map from keys to numbers or text; a
 * column names the keys it shows and how ({@link Column#format}), so the figures stay numbers in the file and the page
 * decides only their rendering.
 *
 * @param command  the one command that reproduces the table (shown on the page)
 * @param measured the invocations whose figures the rows hold: usually one; several when rows were measured apart
 * @param columns  the table's columns, left to right
 * @param rows     the table's rows, top to bottom
 * @param plots    charts drawn from the rows (none is fine)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ResultsSection(String command, List<Measured> measured, List<Column> columns,
                             List<Map<String, Object>> rows, List<Plot> plots) {

    public ResultsSection {
        if (command == null || command.isBlank()) {
            throw new IllegalArgumentException("a results section needs the command that reproduces it");
        }
        measured = measured == null ? List.of() : List.copyOf(measured);
        columns = columns == null ? List.of() : List.copyOf(columns);
        rows = rows == null ? List.of() : List.copyOf(rows);
        plots = plots == null ? List.of() : List.copyOf(plots);
    }

    /**
     * When and where some of the rows were measured.
     *
     * @param rows         the labels of the rows it measured, or null for all of them
     * @param command      the command as it ran (its output path and names included)
     * @param commit       the build measured: the commit the command ran on, or the one that recorded its figures
     * @param date         the day of the run, ISO-8601
     * @param machine      cores and JVM, as the run reported them
     * @param loadAverage  the range of the machine's 1-minute load average over the run, e.g. {@code 1.2 to 3.4}
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Measured(List<String> rows, String command, String commit, String date, String machine,
                           String loadAverage) {
    }

    /**
     * A table column.
     *
     * @param header the header cell
     * @param keys   the row keys it shows, in the order of {@code format}'s arguments
     * @param format a {@link java.util.Formatter} pattern over those values (numbers are passed as doubles); null shows
     *               the single value as it is. A cell whose values are all missing shows a dash.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Column(String header, List<String> keys, String format) {

        public Column {
            if (keys == null || keys.isEmpty()) {
                throw new IllegalArgumentException("column '" + header + "' names no row key");
            }
            keys = List.copyOf(keys);
        }

        /** A column showing one key as it is. */
        public static Column of(String header, String key) {
            return new Column(header, List.of(key), null);
        }

        /** A column formatting one or more keys. */
        public static Column of(String header, String format, String... keys) {
            return new Column(header, List.of(keys), format);
        }
    }

    /**
     * A chart of the rows, written next to the section's file.
     *
     * @param file    the PNG's file name, in the same folder as the section's JSON
     * @param kind    {@code bar} (a category per row, named by {@code x}) or {@code line} (numeric {@code x})
     * @param title   the chart's title, also the image's alt text on the page
     * @param x       the row key of the category (bar) or of the x value (line)
     * @param yLabel  the y axis title
     * @param yMin    the y axis' lower end, or null for automatic
     * @param yMax    the y axis' upper end, or null for automatic
     * @param series  one series per entry: a label and the row key of its values
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Plot(String file, String kind, String title, String x, String yLabel, Double yMin, Double yMax,
                       List<Series> series) {

        public Plot {
            if (!"bar".equals(kind) && !"line".equals(kind)) {
                throw new IllegalArgumentException("plot kind must be bar or line, was " + kind);
            }
            series = series == null ? List.of() : List.copyOf(series);
        }
    }

    /**
     * One series of a plot.
     *
     * @param label the legend's text
     * @param key   the row key of its values
     */
    public record Series(String label, String key) {
    }

    /** The mapper of the results files: snake_case keys, indented, rows in the order written. */
    public static ObjectMapper mapper() {
        return new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(SerializationFeature.INDENT_OUTPUT)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    public static ResultsSection read(Path file) {
        try {
            return mapper().readValue(file.toFile(), ResultsSection.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    public void write(Path file) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            Files.writeString(file, mapper().writeValueAsString(this) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** The index of the last of {@code rows} agreeing with {@code row} on every {@code rowKeys}, or -1. */
    private static int lastWithKey(List<Map<String, Object>> rows, Map<String, Object> row, List<String> rowKeys) {
        for (int i = rows.size() - 1; i >= 0; i--) {
            if (sameKey(rows.get(i), row, rowKeys)) {
                return i;
            }
        }
        return -1;
    }

    /** This section with {@code newRows} replacing the rows that agree on every {@code rowKeys}, appended otherwise. */
    public ResultsSection withRows(List<String> rowKeys, List<Map<String, Object>> newRows) {
        List<Map<String, Object>> merged = new ArrayList<>(rows);
        for (Map<String, Object> r : newRows) {
            int at = lastWithKey(merged, r, rowKeys);
            if (at >= 0) {
                merged.set(at, r);
            } else {
                merged.add(r);
            }
        }
        return new ResultsSection(command, measured, columns, merged, plots);
    }

    /**
     * The section with {@code newRows}' cells merged in: a row with the same values under {@code rowKeys} keeps its
     * place and its other cells and takes the new row's values; any other row is appended. Two commands that fill
     * different columns of the same rows (a curve's timings and its memory) keep each other's cells.
     */
    public ResultsSection withCells(List<String> rowKeys, List<Map<String, Object>> newRows) {
        List<Map<String, Object>> merged = new ArrayList<>(rows);
        for (Map<String, Object> r : newRows) {
            int at = lastWithKey(merged, r, rowKeys);
            if (at >= 0) {
                Map<String, Object> cells = new LinkedHashMap<>(merged.get(at));
                cells.putAll(r);
                merged.set(at, cells);
            } else {
                merged.add(r);
            }
        }
        return new ResultsSection(command, measured, columns, merged, plots);
    }

    private static boolean sameKey(Map<String, Object> a, Map<String, Object> b, List<String> keys) {
        for (String k : keys) {
            if (!String.valueOf(a.get(k)).equals(String.valueOf(b.get(k)))) {
                return false;
            }
        }
        return true;
    }
}
