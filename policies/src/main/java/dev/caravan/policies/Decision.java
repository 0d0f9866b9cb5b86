package dev.caravan.policies;

import java.util.Objects;
import java.util.Optional;

/**
 * A policy's answer: the chosen worker (or none) and the branch of the policy that produced it, so metrics
 * ({@code caravan_policy_decisions_total{policy,branch}}) and the {@code X-Caravan-Decision} header can say why.
 *
 * @param worker the chosen worker, or null when the policy found none
 * @param policy the policy's name (e.g. {@code cache_aware})
 * @param branch the branch taken (e.g. {@code cache_hit}, {@code cache_miss_min_load}, {@code no_healthy_workers})
 */
public record Decision(Worker worker, String policy, String branch) {

    public Decision {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(branch, "branch");
    }

    public static Decision of(Worker worker, String policy, String branch) {
        return new Decision(Objects.requireNonNull(worker, "worker"), policy, branch);
    }

    public static Decision none(String policy, String branch) {
        return new Decision(null, policy, branch);
    }

    public Optional<Worker> selected() {
        return Optional.ofNullable(worker);
    }

    public boolean isEmpty() {
        return worker == null;
    }

    /** {@code policy:branch}, the value of the {@code X-Caravan-Decision} header. */
    public String label() {
        return policy + ":" + branch;
    }
}
