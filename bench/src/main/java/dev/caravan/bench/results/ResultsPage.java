package dev.caravan.bench.results;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/**
 * Renders the generated parts of the results pages, docs/benchmarks.md and docs/performance.md. A page is hand-written prose around blocks
 * that name their section's file:
 *
 * <pre>{@code
 * <!-- BEGIN RESULTS hit-rate.json -->
 * (generated: the table, its plots, the command, when and where it was measured)
 * <!-- END RESULTS hit-rate.json -->
 * }</pre>
 *
 * <p>{@link #replaceSections} re-renders every block from its {@link ResultsSection} in the results folder, so a
 * table on the page is always its file's rows; {@link #writePlots} draws the sections' charts (XChart, headless) into
 * the same folder. {@code ResultsPageTest} fails when the page differs from its files and rewrites it with
 * {@code -Dcaravan.docs.write=true}.
 */
public final class ResultsPage {

    /** Where the results folder is, seen from the page. */
    public static final String LINK_DIR = "bench/results/";

    private static final Pattern BLOCK = Pattern.compile(
            "<!-- BEGIN RESULTS ([\\w.-]+\\.json) -->\\n.*?<!-- END RESULTS \\1 -->", Pattern.DOTALL);
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 560;

    private ResultsPage() {
    }

    /** The page with every generated block rendered from its file in {@code dir}. */
    public static String replaceSections(String page, Path dir) {
        Matcher m = BLOCK.matcher(page);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            Path file = dir.resolve(name);
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("the page names " + name + ", which is not in " + dir);
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(block(name, ResultsSection.read(file))));
        }
        return m.appendTail(sb).toString();
    }

    /** The result files the page's blocks name, in page order. */
    public static Set<String> referenced(String page) {
        Set<String> names = new LinkedHashSet<>();
        Matcher m = BLOCK.matcher(page);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** One generated block, markers included. */
    public static String block(String name, ResultsSection s) {
        StringBuilder sb = new StringBuilder("<!-- BEGIN RESULTS ").append(name).append(" -->\n");
        sb.append(table(s));
        for (ResultsSection.Plot p : s.plots()) {
            sb.append("\n![").append(p.title()).append("](").append(LINK_DIR).append(p.file()).append(")\n");
        }
        sb.append("\n```sh\n").append(s.command()).append("\n```\n\n");
        String data = "[" + name + "](" + LINK_DIR + name + ")";
        if (s.measured().size() == 1) {
            sb.append("Measured ").append(measured(s.measured().get(0))).append(" Data: ").append(data).append(".\n");
        } else {
            sb.append("Measured (data: ").append(data).append("):\n\n");
            for (ResultsSection.Measured m : s.measured()) {
                sb.append("- ").append(m.rows() == null ? "all rows" : String.join("; ", m.rows())).append(": ").append(measured(m))
                        .append('\n');
            }
        }
        return sb.append("<!-- END RESULTS ").append(name).append(" -->").toString();
    }

    private static String measured(ResultsSection.Measured m) {
        List<String> parts = new ArrayList<>();
        if (m.commit() != null) {
            parts.add("on commit `" + m.commit() + "`");
        }
        if (m.date() != null) {
            parts.add(m.date());
        }
        if (m.machine() != null) {
            parts.add(m.machine());
        }
        if (m.loadAverage() != null) {
            parts.add("load average " + m.loadAverage());
        }
        return String.join(", ", parts) + ".";
    }

    /** The section's table in Markdown. */
    public static String table(ResultsSection s) {
        StringBuilder sb = new StringBuilder("|");
        StringBuilder rule = new StringBuilder("|");
        for (int i = 0; i < s.columns().size(); i++) {
            ResultsSection.Column c = s.columns().get(i);
            sb.append(' ').append(escape(c.header())).append(" |");
            rule.append(i == 0 || !numeric(s, c) ? "---|" : "---:|");
        }
        sb.append('\n').append(rule).append('\n');
        for (Map<String, Object> row : s.rows()) {
            sb.append('|');
            for (ResultsSection.Column c : s.columns()) {
                sb.append(' ').append(escape(cell(c, row))).append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** One cell: the column's values in this row through its format, a dash when none is there. */
    static String cell(ResultsSection.Column c, Map<String, Object> row) {
        Object[] args = new Object[c.keys().size()];
        boolean any = false;
        for (int i = 0; i < args.length; i++) {
            Object v = row.get(c.keys().get(i));
            args[i] = v instanceof Number n ? (Object) n.doubleValue() : v;
            any |= v != null;
        }
        if (!any) {
            return "–";
        }
        if (c.format() == null) {
            return args[0] instanceof Double d ? plain(d) : String.valueOf(args[0]);
        }
        for (int i = 0; i < args.length; i++) {
            if (args[i] == null) {
                return "–";
            }
        }
        return String.format(Locale.ROOT, c.format(), args);
    }

    private static String plain(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? String.format(Locale.ROOT, "%,d", (long) d)
                : String.valueOf(d);
    }

    private static boolean numeric(ResultsSection s, ResultsSection.Column c) {
        for (Map<String, Object> row : s.rows()) {
            Object v = row.get(c.keys().get(0));
            if (v != null) {
                return v instanceof Number;
            }
        }
        return false;
    }

    private static String escape(String text) {
        return text.replace("|", "\\|");
    }

    /** Draws every plot of the section into {@code dir}; returns the files written. */
    public static List<Path> writePlots(ResultsSection s, Path dir) {
        System.setProperty("java.awt.headless", "true");
        List<Path> out = new ArrayList<>();
        try {
            for (ResultsSection.Plot p : s.plots()) {
                Path file = dir.resolve(p.file());
                BitmapEncoder.saveBitmap(chart(s, p), file.toString(), BitmapEncoder.BitmapFormat.PNG);
                out.add(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write plots to " + dir + ": " + e.getMessage(), e);
        }
        return out;
    }

    private static Chart<?, ?> chart(ResultsSection s, ResultsSection.Plot p) {
        Styler styler;
        Chart<?, ?> chart;
        if (p.kind().equals("bar")) {
            CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(p.title())
                    .yAxisTitle(p.yLabel()).build();
            List<String> x = s.rows().stream().map(r -> String.valueOf(r.get(p.x()))).toList();
            for (ResultsSection.Series series : p.series()) {
                c.addSeries(series.label(), x, values(s, series.key()));
            }
            c.getStyler().setXAxisLabelRotation(45);
            styler = c.getStyler();
            chart = c;
        } else {
            XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(p.title()).xAxisTitle(p.x())
                    .yAxisTitle(p.yLabel()).build();
            List<Number> x = values(s, p.x());
            for (ResultsSection.Series series : p.series()) {
                c.addSeries(series.label(), x, values(s, series.key()));
            }
            styler = c.getStyler();
            chart = c;
        }
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setChartBackgroundColor(java.awt.Color.WHITE);
        if (styler instanceof org.knowm.xchart.style.AxesChartStyler a) {
            if (p.yMin() != null) {
                a.setYAxisMin(p.yMin());
            }
            if (p.yMax() != null) {
                a.setYAxisMax(p.yMax());
            }
        }
        return chart;
    }

    private static List<Number> values(ResultsSection s, String key) {
        return s.rows().stream().map(r -> r.get(key) instanceof Number n ? (Number) n.doubleValue() : 0.0).toList();
    }
}
