package dev.caravan.policies;

/** Two random distinct healthy workers, the less loaded wins. The engine load it compares is polled by the gateway's load monitor (its interval is gateway configuration, not this policy's). */
public record PowerOfTwoConfig() implements PolicyConfig {

    public static PowerOfTwoConfig defaults() {
        return new PowerOfTwoConfig();
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.visit(this);
    }

    @Override
    public String policyName() {
        return PolicyName.POWER_OF_TWO.wireName();
    }
}
