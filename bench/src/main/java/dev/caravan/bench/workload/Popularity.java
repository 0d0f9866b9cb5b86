package dev.caravan.bench.workload;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How requests are spread over tenants: {@code uniform}, {@code zipf:S} (tenant {@code i} has weight
 * {@code 1/(i+1)^S}) or {@code hot:SHARE} (tenant 0 carries {@code SHARE} of the traffic, the others share the rest
 * evenly; {@code hot:0.4} is one tenant with 40 % of the traffic). Immutable; sampling uses the caller's generator
 * so a seeded run is reproducible.
 */
public final class Popularity {

    private final String spec;
    private final double[] probabilities;
    private final double[] cumulative;

    private Popularity(String spec, double[] weights) {
        this.spec = spec;
        double sum = Arrays.stream(weights).sum();
        this.probabilities = new double[weights.length];
        this.cumulative = new double[weights.length];
        double acc = 0;
        for (int i = 0; i < weights.length; i++) {
            probabilities[i] = weights[i] / sum;
            acc += probabilities[i];
            cumulative[i] = acc;
        }
        cumulative[weights.length - 1] = 1.0;
    }

    /**
     * Parses {@code uniform}, {@code zipf:S} (S > 0) or {@code hot:SHARE} (0 < SHARE < 1) for {@code tenants} tenants.
     *
     * @throws IllegalArgumentException naming the bad spec
     */
    public static Popularity parse(String spec, int tenants) {
        if (tenants < 1) {
            throw new IllegalArgumentException("tenants must be >= 1, was " + tenants);
        }
        String s = spec.trim().toLowerCase(Locale.ROOT);
        double[] w = new double[tenants];
        try {
            if (s.equals("uniform")) {
                Arrays.fill(w, 1.0);
            } else if (s.startsWith("zipf:")) {
                double exponent = Double.parseDouble(s.substring(5));
                if (!(exponent > 0) || Double.isInfinite(exponent)) {
                    throw new IllegalArgumentException("zipf exponent must be > 0, was " + s.substring(5));
                }
                for (int i = 0; i < tenants; i++) {
                    w[i] = 1.0 / Math.pow(i + 1, exponent);
                }
            } else if (s.startsWith("hot:")) {
                double share = Double.parseDouble(s.substring(4));
                if (!(share > 0 && share < 1) || tenants < 2) {
                    throw new IllegalArgumentException("hot share must be in (0,1) with at least 2 tenants, was "
                            + s.substring(4) + " with " + tenants + " tenants");
                }
                Arrays.fill(w, (1 - share) / (tenants - 1));
                w[0] = share;
            } else {
                throw new IllegalArgumentException("popularity must be uniform, zipf:S or hot:SHARE, was '" + spec
                        + "'");
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("popularity '" + spec + "' has a bad number", e);
        }
        return new Popularity(s, w);
    }

    /** A tenant index drawn with these probabilities. */
    public int sample(SplittableRandom random) {
        int i = Arrays.binarySearch(cumulative, random.nextDouble());
        int idx = i >= 0 ? i + 1 : -i - 1;
        return Math.min(idx, cumulative.length - 1);
    }

    /** Probability of each tenant (sums to 1). */
    public double[] probabilities() {
        return probabilities.clone();
    }

    public int tenants() {
        return probabilities.length;
    }

    /** The normalised spec, e.g. {@code zipf:1.0}. */
    public String spec() {
        return spec;
    }
}
