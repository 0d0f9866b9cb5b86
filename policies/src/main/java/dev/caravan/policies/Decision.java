package dev.caravan.policies;

import java.util.Objects;
import java.util.Optional;

/**
 * A policy's answer: the chosen worker (or none) and the branch of the policy that produced it, so metrics
 * ({@code caravan_policy_decisions_total{policy,branch}}) and the {@code X-Caravan-Decision} header can say why.
 *
 * @param worker           the chosen worker, or null when the policy found none
 * @param policy           the policy's name (e.g. {@code cache_aware})
 * @param branch           the branch taken (e.g. {@code cache_hit}, {@code cache_miss_min_load}, {@code no_healthy_workers})
 * @param dataParallelRank the engine's data-parallel rank the request should run on (the gateway sends it as vLLM's
 *                         {@code X-data-parallel-rank} header), or null to let the engine balance its ranks
 * @param onRelease        run once when the request's load lease on the worker is released (kv_aware drops the
 *                         request's active blocks), or null
 * @param onFirstToken     run once when the engine's first response bytes arrive (the first streamed event, i.e. its
 *                         prefill is done) or, failing that, when the lease is released (cache_aware drops the request
 *                         from the worker's prefill backlog), or null
 */
public record Decision(Worker worker, String policy, String branch, Integer dataParallelRank, Runnable onRelease,
                       Runnable onFirstToken) {

    public Decision {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(branch, "branch");
    }

    public Decision(Worker worker, String policy, String branch, Integer dataParallelRank, Runnable onRelease) {
        this(worker, policy, branch, dataParallelRank, onRelease, null);
    }

    public Decision(Worker worker, String policy, String branch) {
        this(worker, policy, branch, null, null, null);
    }

    public static Decision of(Worker worker, String policy, String branch) {
        return new Decision(Objects.requireNonNull(worker, "worker"), policy, branch);
    }

    public static Decision none(String policy, String branch) {
        return new Decision(null, policy, branch);
    }

    /** The same decision, pinned to an engine rank. */
    public Decision withDataParallelRank(Integer rank) {
        return new Decision(worker, policy, branch, rank, onRelease, onFirstToken);
    }

    /** The same decision, with something to run when its lease is released. */
    public Decision withOnRelease(Runnable action) {
        return new Decision(worker, policy, branch, dataParallelRank, action, onFirstToken);
    }

    /** The same decision, with something to run when the engine's first response bytes arrive (see the record). */
    public Decision withOnFirstToken(Runnable action) {
        return new Decision(worker, policy, branch, dataParallelRank, onRelease, action);
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

    /**
     * Takes the load lease this decision asks for: on its worker, running {@link #onRelease()} at release and
     * {@link #onFirstToken()} at {@link WorkerLease#firstToken()} (or at release, if that never came).
     */
    public WorkerLease acquire() {
        return worker.acquire(onRelease, onFirstToken);
    }
}
