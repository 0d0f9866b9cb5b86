package dev.caravan.processors.quality;

import static dev.caravan.processors.CaravanExchangeProperties.MODEL;

import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.components.http.RequestCompletion;
import dev.caravan.policies.HeldPrefixes;
import dev.caravan.policies.Worker;
import dev.caravan.processors.ExchangeProperty;
import dev.caravan.processors.error.GatewayException;
import dev.caravan.processors.routing.PolicyRegistry;
import dev.caravan.processors.routing.SelectWorkerProcessor;

/**
 * Route step {@code measurePrefixes}, just before {@code selectWorker}: what each available worker holds of the request
 * ({@link PrefixOracle}), measured before the live policy decides (cache_aware's decision inserts the request into its
 * tree). With {@code --decision-quality} it has the decision recorded against the engine's report when the exchange
 * completes ({@link DecisionQuality}); with {@code --shadow-policies} it marks the exchange for the shadow tap.
 * With neither it does nothing at all.
 *
 * <p>Reads {@code MODEL} and what {@code selectWorker} reads; writes {@link #HELD} (each attempt) and
 * {@link #SHADOW_PENDING}. A request whose pool has no available worker is left alone: {@code selectWorker} answers it.
 */
public final class MeasurePrefixesProcessor implements Processor {

    /** What each available worker held when the attempt's worker was chosen; absent when no source knows. */
    public static final ExchangeProperty<HeldPrefixes> HELD = ExchangeProperty.of("caravanHeldPrefixes",
            HeldPrefixes.class);
    /** True when the shadow policies should score this attempt (the route's tap filter reads it). */
    public static final ExchangeProperty<Boolean> SHADOW_PENDING = ExchangeProperty.of("caravanShadowPending",
            Boolean.class);
    private static final ExchangeProperty<Boolean> HOOKED = ExchangeProperty.of("caravanQualityHooked",
            Boolean.class);

    private final PolicyRegistry policies;
    private final PrefixOracle oracle;
    private final DecisionQuality quality;
    private final boolean shadows;

    /**
     * @param quality the decision-quality metrics, or null when {@code --decision-quality} is off
     * @param shadows whether shadow policies are configured
     */
    public MeasurePrefixesProcessor(PolicyRegistry policies, PrefixOracle oracle, DecisionQuality quality,
                                    boolean shadows) {
        this.policies = policies;
        this.oracle = oracle;
        this.quality = quality;
        this.shadows = shadows;
    }

    /** Whether the step does anything. */
    public boolean active() {
        return quality != null || shadows;
    }

    @Override
    public void process(Exchange exchange) {
        if (!active()) {
            return;
        }
        PolicyRegistry.Pool pool;
        try {
            pool = policies.poolFor(MODEL.get(exchange));
        } catch (GatewayException e) {
            return; // selectWorker answers it
        }
        List<Worker> available = SelectWorkerProcessor.available(pool);
        if (pool.policy() == null || available.isEmpty()) {
            return;
        }
        HeldPrefixes held = oracle.held(pool, available, SelectWorkerProcessor.context(exchange, pool.model()));
        if (held != null) {
            HELD.set(exchange, held);
        } else {
            HELD.remove(exchange);
        }
        if (quality != null && HOOKED.get(exchange) == null) {
            HOOKED.set(exchange, Boolean.TRUE);
            RequestCompletion.onDone(exchange, quality::record);
        }
        if (shadows) {
            SHADOW_PENDING.set(exchange, Boolean.TRUE);
        }
    }
}
