package dev.caravan.processors.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What Caravan does with each flag of SGLang's router: the pinned upstream flag lists ({@link UpstreamFlag}, the
 * Python launcher's and the Rust binary's) joined with the rows of {@link CaravanFlags}. Renders the SGLang section of
 * {@code docs/configuration.md}, so the list covers every upstream flag by construction; {@code SglangFlagsTest} runs
 * every one of them through the parser.
 */
public final class SglangFlagStatus {

    /** Marks the start of the generated section in docs/configuration.md. */
    public static final String BEGIN = "<!-- BEGIN GENERATED SGLANG FLAG STATUS (ConfigurationDocTest) -->";
    /** Marks its end. */
    public static final String END = "<!-- END GENERATED SGLANG FLAG STATUS -->";

    /**
     * One SGLang flag.
     *
     * @param flag          the flag
     * @param launcher      its declaration in the Python launcher, or null when only the Rust binary has it
     * @param binary        its declaration in the Rust binary, or null when only the launcher has it
     * @param row           the Caravan row answering to it, if any
     */
    public record Entry(String flag, UpstreamFlag launcher, UpstreamFlag binary, Optional<CaravanFlag> row) {

        /** The status words of the docs. */
        public String status() {
            if (row.isPresent()) {
                return row.get().support().status().label();
            }
            return "unknown";
        }
    }

    private SglangFlagStatus() {
    }

    /**
     * Every SGLang flag once, launcher flags first in their order, then the binary's own; the launcher's
     * {@code --router-*} forms (source {@code launch_server}) are folded into their flag.
     */
    public static List<Entry> entries(List<UpstreamFlag> launcher, List<UpstreamFlag> binary) {
        Map<String, UpstreamFlag[]> byFlag = new LinkedHashMap<>();
        for (UpstreamFlag f : launcher) {
            if (!f.source().equals("launch_server")) {
                byFlag.computeIfAbsent(f.flag(), k -> new UpstreamFlag[2])[0] = f;
            }
        }
        for (UpstreamFlag f : binary) {
            byFlag.computeIfAbsent(f.flag(), k -> new UpstreamFlag[2])[1] = f;
        }
        List<Entry> out = new ArrayList<>();
        byFlag.forEach((flag, decl) -> out.add(new Entry(flag, decl[0], decl[1], CaravanFlags.byFlag(flag))));
        return out;
    }

    /** The generated section, markers included. */
    public static String render(List<UpstreamFlag> launcher, List<UpstreamFlag> binary) {
        StringBuilder sb = new StringBuilder(BEGIN).append("\n\n");
        sb.append("| SGLang flag | launcher default | binary default | Caravan | status | notes |\n");
        sb.append("|---|---|---|---|---|---|\n");
        for (Entry e : entries(launcher, binary)) {
            sb.append("| `").append(e.flag()).append("` | ").append(upstreamDefault(e.launcher())).append(" | ")
                    .append(upstreamDefault(e.binary())).append(" | ").append(caravan(e)).append(" | ")
                    .append(e.status()).append(" | ").append(cell(notes(e))).append(" |\n");
        }
        return sb.append('\n').append(END).toString();
    }

    private static String upstreamDefault(UpstreamFlag f) {
        if (f == null) {
            return "—";
        }
        if (f.isSwitch()) {
            return "switch";
        }
        return f.defaultValue().isEmpty() ? "(none)" : "`" + f.defaultValue() + "`";
    }

    private static String caravan(Entry e) {
        if (e.row().isEmpty()) {
            return "—";
        }
        CaravanFlag r = e.row().get();
        String name = r.flag().equals(e.flag()) ? "" : "`" + r.flag() + "` ";
        if (r.type() == FlagType.SWITCH) {
            return name.isEmpty() ? "switch" : name.trim();
        }
        return name + (r.defaultValue().isEmpty() ? "(unset)" : "`" + r.defaultValue() + "`");
    }

    private static String notes(Entry e) {
        List<String> notes = new ArrayList<>();
        e.row().ifPresent(r -> {
            if (!r.support().note().isEmpty()) {
                notes.add(r.support().note());
            }
            if (!r.support().refusedValues().isEmpty()) {
                notes.add("refuses " + String.join(", ", r.support().refusedValues().stream().sorted().toList())
                        + ": " + r.support().refusedReason());
            }
        });
        e.row().ifPresent(r -> {
            UpstreamFlag decl = e.launcher() != null ? e.launcher() : e.binary();
            if (e.launcher() == null && !decl.defaultValue().isEmpty() && !sameValue(decl.defaultValue(), r)) {
                notes.add("the Python launcher's default (" + r.defaultValue() + ") is used");
            }
        });
        return String.join("; ", notes);
    }

    /** True when an upstream default equals the row's (numerically for numbers: {@code 60} and {@code 60.0}). */
    public static boolean sameValue(String upstream, CaravanFlag row) {
        return sameValue(upstream, row.defaultValue(), row.type());
    }

    /** True when an upstream value equals {@code mine}, a value of a row of {@code type}. */
    public static boolean sameValue(String upstream, String mine, FlagType type) {
        if (upstream.equals(mine)) {
            return true;
        }
        if (type.numeric() && type.accepts(upstream) && type.accepts(mine)) {
            return new java.math.BigDecimal(upstream.trim()).compareTo(new java.math.BigDecimal(mine)) == 0;
        }
        return FlagType.DOUBLE.accepts(upstream) && FlagType.DOUBLE.accepts(mine)
                && Double.parseDouble(upstream) == Double.parseDouble(mine);
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }

    /** Replaces the generated section of a document (which must contain both markers). */
    public static String replaceSection(String document, List<UpstreamFlag> launcher, List<UpstreamFlag> binary) {
        int b = document.indexOf(BEGIN);
        int e = document.indexOf(END);
        if (b < 0 || e < b) {
            throw new IllegalArgumentException("the document has no generated SGLang flag status markers");
        }
        return document.substring(0, b) + render(launcher, binary) + document.substring(e + END.length());
    }
}
