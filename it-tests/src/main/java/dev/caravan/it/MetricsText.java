package dev.caravan.it;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading samples out of the Prometheus text exposition ({@code GET /metrics}) that the gateway and engines serve. */
public final class MetricsText {

    private MetricsText() {
    }

    /**
     * Sums every sample of a Prometheus metric whose labels contain all the given {@code key="value"} pairs; NaN when
     * there is none (and when a matching sample is itself NaN, so a test cannot pass on a broken gauge).
     */
    public static double sample(String metrics, String name, String... labels) {
        double sum = 0;
        boolean found = false;
        Matcher m = Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*})? (\\S+)$", Pattern.MULTILINE)
                .matcher(metrics);
        while (m.find()) {
            String l = m.group(1) == null ? "" : m.group(1);
            boolean all = true;
            for (String label : labels) {
                all &= l.contains(label);
            }
            if (all) {
                sum += Double.parseDouble(m.group(2));
                found = true;
            }
        }
        return found ? sum : Double.NaN;
    }
}
