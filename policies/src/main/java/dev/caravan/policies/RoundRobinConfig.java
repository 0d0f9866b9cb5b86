package dev.caravan.policies;

/** One counter shared by all requests, indexing the healthy workers; nothing to configure. */
public record RoundRobinConfig() implements PolicyConfig {

    public static RoundRobinConfig defaults() {
        return new RoundRobinConfig();
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.visit(this);
    }

    @Override
    public String policyName() {
        return PolicyName.ROUND_ROBIN.wireName();
    }
}
