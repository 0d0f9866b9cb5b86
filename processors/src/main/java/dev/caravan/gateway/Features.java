package dev.caravan.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

import dev.caravan.processors.admin.AdminFeature;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.FlagSource;
import dev.caravan.processors.control.ControlFeature;
import dev.caravan.processors.engine.EngineApiFeature;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.OptionalFeature;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.forward.ForwardFeature;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.limits.OutputLimitFeature;
import dev.caravan.processors.metrics.MetricsFeature;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.quality.QualityFeature;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.request.RequestFeature;
import dev.caravan.processors.routing.RoutingFeature;
import dev.caravan.processors.tokens.TokensFeature;
import dev.caravan.processors.trace.TracingFeature;

/**
 * The one list of the gateway's features, in wiring order: a feature may look up the beans and shared objects of
 * those before it. Adding a feature package is one line here; its rows join the flag table and its beans the registry.
 * Also the flag table's source of the features' rows (a {@link FlagSource}, found by {@code CaravanFlags} through
 * {@code META-INF/services}, since the configuration package sits below every feature): the built-in features' rows
 * in list order, then the optional modules'.
 */
public final class Features implements FlagSource {

    @Override
    public List<CaravanFlag> flags() {
        List<CaravanFlag> rows = new ArrayList<>();
        builtIn().forEach(f -> rows.addAll(f.flags()));
        optional().forEach(f -> rows.addAll(f.flags()));
        return rows;
    }

    /** A new instance of every built-in feature, in wiring order. */
    public static List<Feature> builtIn() {
        return List.of(
                new RequestFeature(),
                new OutputLimitFeature(),
                new KvFeature(),          // the block index kv_aware routes on, before the selection step
                new RoutingFeature(),
                new QualityFeature(),
                new ReliabilityFeature(), // breakers, retries, admission: the steps after it build on them
                new FlowFeature(),
                new TokensFeature(),
                new ForwardFeature(),
                new AdminFeature(),
                new HealthFeature(),
                new MetricsFeature(),
                new EngineApiFeature(),
                new PdFeature(),
                new ControlFeature(),     // after every feature that adds a pool to maintain or flush
                new TracingFeature());    // last: wraps the steps the others bound in spans
    }

    /** The optional modules' features on the class path (whether the configuration enables them or not). */
    public static List<OptionalFeature> optional() {
        List<OptionalFeature> found = new ArrayList<>();
        ServiceLoader.load(OptionalFeature.class, Features.class.getClassLoader()).forEach(found::add);
        return found;
    }
}
