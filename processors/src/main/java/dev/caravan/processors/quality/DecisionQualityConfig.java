package dev.caravan.processors.quality;

import java.time.Duration;
import java.util.Objects;

/**
 * Decision-quality metrics ({@code --decision-quality}, docs/observability.md "Decision quality").
 *
 * @param enabled         measure each routed request's expected and reachable prefix and compare them with the
 *                        engine's {@code cached_tokens}; off: the request path does exactly what it did before
 * @param warnBelow       warn when captured ÷ reachable over the window drops below this (0 never warns)
 * @param window          engine-reported requests per policy the ratio is taken over (the warning needs a full window)
 * @param warnInterval    at most one warning per policy per this interval while the ratio stays low
 * @param charsPerToken   converts a tree's characters to tokens when neither the engine nor the gateway counted the
 *                        prompt's tokens
 */
public record DecisionQualityConfig(boolean enabled, double warnBelow, int window, Duration warnInterval,
                                    double charsPerToken) {

    public static final double DEFAULT_WARN_BELOW = 0.5;
    public static final int DEFAULT_WINDOW = 500;
    public static final Duration DEFAULT_WARN_INTERVAL = Duration.ofMinutes(1);
    public static final double DEFAULT_CHARS_PER_TOKEN = 4.0;

    public static final DecisionQualityConfig OFF = new DecisionQualityConfig(false, DEFAULT_WARN_BELOW,
            DEFAULT_WINDOW, DEFAULT_WARN_INTERVAL, DEFAULT_CHARS_PER_TOKEN);

    public DecisionQualityConfig {
        if (!(warnBelow >= 0 && warnBelow <= 1)) {
            throw new IllegalArgumentException("warnBelow must be in [0, 1], was " + warnBelow);
        }
        if (window < 1) {
            throw new IllegalArgumentException("window must be >= 1, was " + window);
        }
        Objects.requireNonNull(warnInterval, "warnInterval");
        if (warnInterval.isNegative()) {
            throw new IllegalArgumentException("warnInterval must be >= 0, was " + warnInterval);
        }
        if (!(charsPerToken > 0)) {
            throw new IllegalArgumentException("charsPerToken must be > 0, was " + charsPerToken);
        }
    }

    /** Enabled with the default window, interval and conversion. */
    public static DecisionQualityConfig enabled(double warnBelow, int window) {
        return new DecisionQualityConfig(true, warnBelow, window, DEFAULT_WARN_INTERVAL, DEFAULT_CHARS_PER_TOKEN);
    }
}
