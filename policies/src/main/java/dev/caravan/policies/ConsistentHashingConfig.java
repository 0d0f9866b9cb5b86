package dev.caravan.policies;

/** A hash ring of 150 virtual nodes per worker keyed by routing headers; nothing to configure. */
public record ConsistentHashingConfig() implements PolicyConfig {

    public static ConsistentHashingConfig defaults() {
        return new ConsistentHashingConfig();
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.visit(this);
    }

    @Override
    public String policyName() {
        return PolicyName.CONSISTENT_HASHING.wireName();
    }
}
