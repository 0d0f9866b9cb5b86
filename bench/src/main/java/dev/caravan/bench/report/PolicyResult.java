package dev.caravan.bench.report;

import java.util.List;
import java.util.Map;

/**
 * The figures of one policy run, over the measured requests (warm-up excluded). Latencies, rates and G_waste are in
 * <b>simulated</b> time (wall-clock × time scale in the HTTP mode, so they include the load balancer's own wall-clock
 * overhead multiplied by the time scale); {@code sendLagP99Ms} and {@code wallSeconds} are wall-clock.
 * A null figure was not measurable (no prefix in the workload, no in-flight probes).
 *
 * @param label              row name
 * @param kind               caravan, nginx, external or whatif
 * @param policy             policy name or nginx mode
 * @param options            options of the entry
 * @param settings           what the load balancer was configured with
 * @param sent               requests sent, warm-up included
 * @param measured           requests after the warm-up
 * @param completed          measured requests answered 200 with usage
 * @param failed             measured requests that failed or timed out
 * @param tokenHit           Σ cached / Σ prompt tokens, engine-reported
 * @param prefixHit          Σ min(cached, prefix) / Σ prefix over the workload's designated prefixes (b2b, rag)
 * @param reuseHit           Σ min(cached, reusable) / Σ reusable: share of the tokens an infinite shared cache would
 *                           serve that the engines did serve
 * @param ttftP50Ms          time to first token, median (simulated ms)
 * @param ttftP99Ms          time to first token, 99th percentile
 * @param e2eP50Ms           end-to-end latency, median
 * @param e2eP99Ms           end-to-end latency, 99th percentile
 * @param offeredRps         measured arrivals per simulated second
 * @param throughputRps      completed requests per simulated second (first measured send to last measured answer)
 * @param engineShares       share of completed requests per engine (sums to 1)
 * @param shareMaxOverMean   largest share / mean share
 * @param inflightMean       time-averaged requests in each engine (running + waiting)
 * @param inflightMaxOverMean largest engine mean / mean of engine means
 * @param inflightPeak       largest instantaneous in-flight count of any engine
 * @param gWaste             wasted prefill GPU-seconds per simulated second: Σ (reusable − min(cached, reusable)) /
 *                           prefill rate, over the simulated span of the measured arrivals
 * @param promptTokens       Σ prompt tokens of completed measured requests
 * @param cachedTokens       Σ cached tokens
 * @param reusableTokens     Σ reusable tokens
 * @param prefixTokens       Σ designated prefix tokens
 * @param branches           the gateway's decision branches (policy:branch → count) of measured requests
 * @param sendLagP99Ms       how late requests left against their schedule, 99th percentile, wall ms
 * @param wallSeconds        wall-clock duration of the run
 * @param gateways           gateway replicas behind the front (1 for a single load balancer)
 * @param front              what alternated requests over the replicas ({@code client}, {@code nginx}), or null
 * @param stickiness         share of the measured requests served by their routing key's first engine (the engine
 *                           that served the key's first request, warm-up included); null without routing keys
 * @param syncMetrics        per replica, the {@code caravan_sync_*} samples read from its {@code /metrics} at the end
 *                           of the run (empty maps without sync)
 * @param sameKeyGapP05Ms    time between consecutive arrivals of the same routing key, 5th percentile (simulated
 *                           ms): how soon a replica may need what another replica just decided for that key
 * @param sameKeyGapP50Ms    the same, median
 * @param requestsPerReplica requests sent (warm-up included) to each replica's URL, in replica order
 * @param pooledLruHit       Σ tokens one LRU cache with the fleet's pooled KV capacity would serve / Σ prompt tokens,
 *                           over the same requests as {@code tokenHit}
 * @param beladyHit          the same with optimal (Belady) eviction: the ceiling of any router at that capacity
 * @param hitOfBelady        {@code tokenHit / beladyHit}: the share of the ceiling this policy reached
 * @param keysByFirstEngine  per engine (in {@code engineShares} order), the routing keys (sessions, tenants) whose first
 *                           completed request, warm-up included, it served: which engines new conversations went to;
 *                           empty without routing keys
 * @param qualityMetrics     the gateway's decision-quality and shadow-policy counters ({@code caravan_decision_*_total},
 *                           {@code caravan_shadow_*_total}), summed over the replicas at the end of the run (warm-up
 *                           included); empty unless the run's gateway had {@code --decision-quality} or
 *                           {@code --shadow-policies}
 */
public record PolicyResult(String label, String kind, String policy, Map<String, String> options,
                           Map<String, String> settings, long sent, long measured, long completed, long failed,
                           Double tokenHit, Double prefixHit, Double reuseHit, Double ttftP50Ms, Double ttftP99Ms,
                           Double e2eP50Ms, Double e2eP99Ms, Double offeredRps, Double throughputRps,
                           List<Double> engineShares, Double shareMaxOverMean, List<Double> inflightMean,
                           Double inflightMaxOverMean, Double inflightPeak, Double gWaste, long promptTokens,
                           long cachedTokens, long reusableTokens, long prefixTokens, Map<String, Long> branches,
                           Double sendLagP99Ms, double wallSeconds, int gateways, String front, Double stickiness,
                           List<Map<String, Double>> syncMetrics, Double sameKeyGapP05Ms, Double sameKeyGapP50Ms,
                           List<Long> requestsPerReplica, Double pooledLruHit, Double beladyHit,
                           Double hitOfBelady, List<Long> keysByFirstEngine, Map<String, Double> qualityMetrics) {

    public PolicyResult {
        gateways = Math.max(1, gateways); // reports written before --gateways existed say 0
        syncMetrics = syncMetrics == null ? List.of() : List.copyOf(syncMetrics);
        requestsPerReplica = requestsPerReplica == null ? List.of() : List.copyOf(requestsPerReplica);
        keysByFirstEngine = keysByFirstEngine == null ? List.of() : List.copyOf(keysByFirstEngine);
        qualityMetrics = qualityMetrics == null ? Map.of() : Map.copyOf(qualityMetrics);
    }
}
