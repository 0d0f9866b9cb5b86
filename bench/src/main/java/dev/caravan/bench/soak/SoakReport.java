package dev.caravan.bench.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A soak's figures as text (stdout) and as rows of the results page's two soak sections. */
final class SoakReport {

    private SoakReport() {
    }

    /** Whether the run met its criteria: nothing lost, every failure attributed, agreement after every fault. */
    static boolean passed(SoakResult r, long agreeLimitSeconds) {
        return r.lost() == 0 && r.unattributed().isEmpty() && r.injections().stream()
                .allMatch(i -> i.agreeSeconds() >= 0 && i.agreeSeconds() <= agreeLimitSeconds);
    }

    static String text(SoakResult r, String run) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "soak %s: %.0f s of load%n", run, r.wallSeconds()));
        sb.append(String.format(Locale.ROOT, "requests: %d sent, %d answered, %d limited (tenant 429), %d failed, "
                + "%d lost%n", r.sent(), r.answered(), r.limited(), r.failed(), r.lost()));
        sb.append("failed by cause: ").append(r.failedByCause()).append('\n');
        sb.append("attributed by fault: ").append(r.attributed()).append('\n');
        sb.append("unattributed: ").append(r.unattributed().size()).append('\n');
        r.unattributed().stream().limit(20).forEach(u -> sb.append("  ").append(u).append('\n'));
        sb.append(String.format(Locale.ROOT, "p99: %.0f ms inside fault windows, %.0f ms outside%n",
                r.p99InsideMs(), r.p99OutsideMs()));
        for (SoakResult.InjectionFigure i : r.injections()) {
            sb.append(String.format(Locale.ROOT, "  %6.1f s  %-55s target %2d  held %5.1f s  agree after %5.1f s%n",
                    i.startSeconds(), i.fault(), i.target(), i.heldSeconds(), i.agreeSeconds()));
        }
        for (SoakResult.Sample s : r.samples()) {
            sb.append(String.format(Locale.ROOT, "  %6.1f s  replica %d  heap after GC %6.1f MiB  threads %4.0f  %s%n",
                    s.seconds(), s.replica(), s.heapAfterGcMb(), s.threads(), s.phase()));
        }
        sb.append("tenants-file reloads failed (replica 0): ").append((long) r.tenantReloadsFailed()).append('\n');
        return sb.toString();
    }

    static Map<String, Object> summaryRow(SoakResult r, String run) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("run", run);
        row.put("sent", r.sent());
        row.put("answered", r.answered());
        row.put("limited", r.limited());
        row.put("failed", r.failed());
        row.put("attributed", r.attributed().values().stream().mapToLong(Long::longValue).sum());
        row.put("unattributed", r.unattributed().size());
        row.put("lost", r.lost());
        number(row, "p99_inside_ms", r.p99InsideMs());
        number(row, "p99_outside_ms", r.p99OutsideMs());
        SoakResult.Sample warm = r.sample(0, "warm");
        SoakResult.Sample end = r.sample(0, "end");
        if (warm != null && end != null) {
            number(row, "heap_warm_mb", warm.heapAfterGcMb());
            number(row, "heap_end_mb", end.heapAfterGcMb());
            row.put("threads_warm", warm.threads());
            row.put("threads_end", end.threads());
        }
        number(row, "agree_max_s", slowestAgreement(r.injections()));
        return row;
    }

    static List<Map<String, Object>> faultRows(SoakResult r, String run) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (FaultKind k : FaultKind.values()) {
            List<SoakResult.InjectionFigure> of = r.injections().stream().filter(i -> i.fault().equals(k.label()))
                    .toList();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("run", run);
            row.put("fault", k.label());
            row.put("client_effect", k.clientEffect());
            row.put("injections", of.size());
            row.put("failures", r.attributed().getOrDefault(k.label(), 0L));
            number(row, "agree_max_s", slowestAgreement(of));
            rows.add(row);
        }
        return rows;
    }

    /** The longest time to agree again, -1 when once they did not agree in time, NaN without injections. */
    static double slowestAgreement(List<SoakResult.InjectionFigure> injections) {
        if (injections.stream().anyMatch(i -> i.agreeSeconds() < 0)) {
            return -1;
        }
        return injections.stream().mapToDouble(SoakResult.InjectionFigure::agreeSeconds).max().orElse(Double.NaN);
    }

    /** Puts {@code v} rounded to a tenth, or nothing when it is NaN (the page shows a dash). */
    private static void number(Map<String, Object> row, String key, double v) {
        if (!Double.isNaN(v)) {
            row.put(key, Math.round(v * 10) / 10.0);
        }
    }
}
