package dev.caravan.policies;

/** Uniformly random choice among healthy workers; nothing to configure. */
public record RandomConfig() implements PolicyConfig {

    public static RandomConfig defaults() {
        return new RandomConfig();
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.visit(this);
    }

    @Override
    public String policyName() {
        return PolicyName.RANDOM.wireName();
    }
}
