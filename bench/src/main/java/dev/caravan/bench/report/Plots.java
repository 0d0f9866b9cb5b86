package dev.caravan.bench.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * PNG charts of a {@link BenchReport} (XChart, headless): hit rates by policy, time to first token by policy, and the
 * share of requests each engine served under each policy. Files are {@code <prefix>-hit.png}, {@code <prefix>-ttft.png}
 * and {@code <prefix>-share.png} in the output folder.
 */
public final class Plots {

    private static final int WIDTH = 1000;
    private static final int HEIGHT = 600;

    private Plots() {
    }

    /** Writes the three charts and returns their paths. */
    public static List<Path> write(BenchReport r, Path dir, String prefix) {
        System.setProperty("java.awt.headless", "true");
        try {
            Files.createDirectories(dir);
            List<Path> out = new ArrayList<>();
            out.add(save(hit(r), dir.resolve(prefix + "-hit.png")));
            out.add(save(ttft(r), dir.resolve(prefix + "-ttft.png")));
            out.add(save(share(r), dir.resolve(prefix + "-share.png")));
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write plots to " + dir + ": " + e.getMessage(), e);
        }
    }

    private static CategoryChart chart(String title, String x, String y) {
        CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(x)
                .yAxisTitle(y).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS); // below the bars, never over them
        c.getStyler().setXAxisLabelRotation(20);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        return c;
    }

    private static CategoryChart hit(BenchReport r) {
        String title = r.workload() + ": prefix-cache hit rate by policy";
        if (r.analytic() != null) {
            title += String.format(Locale.ROOT, " (analytic: round robin %.3f, perfect affinity %.3f)",
                    r.analytic().roundRobinHit(), r.analytic().affinityHit());
        }
        CategoryChart c = chart(title, "policy", "hit rate (engine-reported)");
        List<String> labels = labels(r);
        c.addSeries("tokens cached / prompt tokens", labels, values(r, PolicyResult::tokenHit));
        if (r.results().stream().anyMatch(p -> p.prefixHit() != null)) {
            c.addSeries("prefix hit", labels, values(r, PolicyResult::prefixHit));
        }
        if (r.results().stream().anyMatch(p -> p.reuseHit() != null)) {
            c.addSeries("reuse hit (of an infinite shared cache)", labels, values(r, PolicyResult::reuseHit));
        }
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setYAxisMax(1.0);
        return c;
    }

    private static CategoryChart ttft(BenchReport r) {
        CategoryChart c = chart(r.workload() + ": time to first token by policy (simulated ms)", "policy", "ms");
        c.addSeries("p50", labels(r), values(r, PolicyResult::ttftP50Ms));
        c.addSeries("p99", labels(r), values(r, PolicyResult::ttftP99Ms));
        return c;
    }

    private static CategoryChart share(BenchReport r) {
        CategoryChart c = chart(r.workload() + ": share of requests per engine", "engine", "share of requests");
        int n = r.results().stream().mapToInt(p -> p.engineShares().size()).max().orElse(0);
        List<String> engines = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            engines.add(String.valueOf(i));
        }
        for (PolicyResult p : r.results()) {
            List<Number> y = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                y.add(i < p.engineShares().size() ? p.engineShares().get(i) : 0.0);
            }
            c.addSeries(p.label(), engines, y);
        }
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        return c;
    }

    private static List<String> labels(BenchReport r) {
        return r.results().stream().map(PolicyResult::label).toList();
    }

    private static List<Number> values(BenchReport r, Function<PolicyResult, Double> f) {
        return r.results().stream().map(p -> (Number) (f.apply(p) == null ? 0.0 : f.apply(p))).toList();
    }

    private static Path save(CategoryChart c, Path file) throws IOException {
        BitmapEncoder.saveBitmap(c, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }
}
