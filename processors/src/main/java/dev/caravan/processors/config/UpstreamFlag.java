package dev.caravan.processors.config;

import java.util.ArrayList;
import java.util.List;

/**
 * One flag of SGLang's router as its own source declares it: a line of the pinned flag lists that
 * {@code app/src/test/resources/sglang/derive_flags.py} derives from the Python launcher (by running its
 * argparse code) and from the Rust binary (its clap struct).
 *
 * @param flag         the flag as typed, e.g. {@code --eviction-interval-secs} or {@code --router-policy}
 * @param arity        {@code switch}, {@code 1}, {@code *}, {@code +}, {@code append 1}, {@code append +} ...
 * @param defaultValue the upstream default, or "" for none
 * @param choices      the accepted values joined by {@code |}, or ""
 * @param source       where it comes from: {@code launch_router}, {@code launch_server} (the {@code --router-}
 *                     forms), {@code main.rs}, {@code main.rs alias of --x}
 */
public record UpstreamFlag(String flag, String arity, String defaultValue, String choices, String source) {

    /** True for a flag that takes no value. */
    public boolean isSwitch() {
        return arity.equals("switch");
    }

    /** True for a flag that may be given without any value ({@code nargs="*"}). */
    public boolean mayBeEmpty() {
        return arity.endsWith("*");
    }

    /** The accepted values, or an empty list. */
    public List<String> choiceList() {
        return choices.isEmpty() ? List.of() : List.of(choices.split("\\|"));
    }

    /**
     * Parses a flag list: {@code #} comment lines, one header line ({@code flag\tarity\t...}), then one flag per line,
     * tab-separated.
     *
     * @throws IllegalArgumentException naming the line that has not five columns
     */
    public static List<UpstreamFlag> parseTsv(String text) {
        List<UpstreamFlag> out = new ArrayList<>();
        boolean header = true;
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            if (header) {
                header = false;
                continue;
            }
            String[] cols = line.split("\t", -1);
            if (cols.length != 5) {
                throw new IllegalArgumentException("flag list line has " + cols.length + " columns, expected 5: "
                        + line);
            }
            out.add(new UpstreamFlag(cols[0], cols[1], cols[2], cols[3], cols[4]));
        }
        return out;
    }
}
