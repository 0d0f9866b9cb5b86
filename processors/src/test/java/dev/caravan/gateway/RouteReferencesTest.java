package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.camel.util.AntPathMatcher;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.admin.AdminFeature;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.control.ControlFeature;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.forward.ForwardFeature;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.request.RequestFeature;
import dev.caravan.processors.routing.RoutingFeature;

/**
 * Every {@code ref:} and {@code #bean} of the built-in routes names a bean the gateway binds, in every configuration
 * that changes which beans exist or which route files load — without starting a Camel context, so a renamed bean or a
 * mistyped ref fails here in a second instead of when the first integration test starts a context.
 */
class RouteReferencesTest {

    static final Path GATEWAY_ROUTES = Path.of("..", "routes");

    /**
     * The references of the route files {@code config} loads (not excluded by {@link GatewayBeans#excludedRoutes()})
     * that the beans built from {@code config} cannot satisfy.
     */
    static List<String> unresolvedFor(GatewayConfig config, List<Path> routeDirs) {
        try (GatewayBeans beans = new GatewayBeans(config, null, null)) {
            List<String> excluded = List.of(beans.excludedRoutes().split(","));
            List<RouteReferences.Reference> references = new ArrayList<>();
            for (Path dir : routeDirs) {
                for (Path file : RouteReferences.routeFiles(dir)) {
                    boolean loaded = excluded.stream().filter(p -> !p.isBlank())
                            .noneMatch(p -> AntPathMatcher.INSTANCE.match(p, file.toString()));
                    if (loaded) {
                        references.addAll(RouteReferences.in(file));
                    }
                }
            }
            assertThat(references).as("references found in %s", routeDirs).hasSizeGreaterThan(40);
            return RouteReferences.unresolved(references, beans.beans());
        }
    }

    @Test
    void everyReferenceOfTheBuiltInRoutesResolvesWithTheDefaults() {
        assertThat(unresolvedFor(GatewayConfig.defaults(), List.of(GATEWAY_ROUTES))).isEmpty();
    }

    @Test
    void everyReferenceResolvesWithPrefillDecodeInEitherMode() {
        for (String mode : List.of("sglang", "vllm")) {
            GatewayConfig pd = GatewayConfig.defaults().with(PdFeature.PD_DISAGGREGATION, "true")
                    .with(PdFeature.PD_MODE, mode);
            assertThat(unresolvedFor(pd, List.of(GATEWAY_ROUTES))).as(mode).isEmpty();
        }
    }

    @Test
    void theRoutesReferenceTheStepsOfTheRequestPathByTheirConstants() {
        List<String> refs = RouteReferences.routeFiles(GATEWAY_ROUTES).stream().flatMap(f -> RouteReferences.in(f)
                .stream()).map(RouteReferences.Reference::bean).toList();

        assertThat(refs).contains(RequestFeature.PARSE_REQUEST, ReliabilityFeature.BEGIN_ATTEMPTS,
                RoutingFeature.SELECT_WORKER, ForwardFeature.FORWARD_STREAM, ReliabilityFeature.DECIDE_RETRY,
                ReliabilityFeature.AWAIT_BACKOFF, RequestFeature.MAP_ERROR, PdFeature.PD_AGGREGATION,
                ControlFeature.COLLECT_CONTROL_RESULTS, PdFeature.RELAY_DECODE);
    }

    /**
     * A feature names the beans it binds on its class and binds them in its own {@code wire}, so every bean the loaded
     * route files reference is a constant of the built-in feature whose {@code wire} bound it.
     */
    @Test
    void everyBeanTheRoutesReferenceIsNamedOnTheClassOfTheFeatureThatBindsIt() throws Exception {
        Map<String, String> owners = new HashMap<>();
        for (Feature feature : Features.builtIn()) {
            owners.putAll(stringConstants(feature.getClass()));
        }
        List<String> misplaced = new ArrayList<>();
        try (GatewayBeans beans = new GatewayBeans(GatewayConfig.defaults(), null, null)) {
            List<String> excluded = List.of(beans.excludedRoutes().split(","));
            for (Path file : RouteReferences.routeFiles(GATEWAY_ROUTES)) {
                String name = file.toString();
                if (excluded.stream().anyMatch(p -> !p.isBlank() && AntPathMatcher.INSTANCE.match(p, name))) {
                    continue;
                }
                for (RouteReferences.Reference reference : RouteReferences.in(file)) {
                    String bean = reference.bean();
                    String owner = owners.get(bean);
                    Class<?> binder = beans.binder(bean);
                    String boundBy = binder == null ? "the assembler" : binder.getSimpleName();
                    if (owner == null || !owner.equals(boundBy)) {
                        misplaced.add(file.getFileName() + ": " + bean + " named on " + owner + ", bound by "
                                + boundBy);
                    }
                }
            }
            assertThat(beans.binder(ReliabilityFeature.DECIDE_RETRY)).isEqualTo(ReliabilityFeature.class);
            assertThat(beans.binder(KvFeature.APPLY_KV_EVENTS)).isEqualTo(KvFeature.class);
        }

        assertThat(misplaced).isEmpty();
        assertThat(owners).containsEntry(FlowFeature.ADMIT_REQUEST, "FlowFeature")
                .containsEntry(ControlFeature.RUN_MAINTENANCE, "ControlFeature")
                .containsEntry(AdminFeature.CHECK_ADMIN_KEY, "AdminFeature");
    }

    /** The values of a class's public static String constants, each mapped to the class's simple name. */
    private static Map<String, String> stringConstants(Class<?> type) throws IllegalAccessException {
        Map<String, String> constants = new HashMap<>();
        for (Field field : type.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                constants.put((String) field.get(null), type.getSimpleName());
            }
        }
        return constants;
    }

    @Test
    void theKvEventRoutesReferenceTheKvFeaturesSteps() {
        List<String> refs = RouteReferences.in(GATEWAY_ROUTES.resolve("kv-events.camel.yaml")).stream()
                .map(RouteReferences.Reference::bean).toList();

        assertThat(refs).contains(KvFeature.DECODE_KV_BATCH, KvFeature.APPLY_KV_EVENTS, KvFeature.CHECK_KV_PUBLISHERS,
                KvFeature.PLAN_KV_CAPACITY_POLL, KvFeature.APPLY_KV_CAPACITY);
    }

    @Test
    void aMistypedRefIsReportedWithItsFileAndPlace() {
        String yaml = """
                - route:
                    id: inference
                    from:
                      uri: direct:inference
                      steps:
                        - process:
                            ref: parseRequets
                        - multicast:
                            aggregationStrategy: "#parseRequest"
                            steps:
                              - setBody:
                                  simple: "${bean:nowhere?method=go}"
                """;
        List<RouteReferences.Reference> refs = RouteReferences.in("edited.camel.yaml", yaml);
        Map<String, Object> beans = Map.of(RequestFeature.PARSE_REQUEST, (org.apache.camel.Processor) e -> { });

        assertThat(RouteReferences.unresolved(refs, beans)).containsExactly(
                "edited.camel.yaml: /route(inference)/from/steps/process/ref -> parseRequets: no such bean",
                "edited.camel.yaml: /route(inference)/from/steps/multicast/aggregationStrategy -> parseRequest: a "
                        + beans.get(RequestFeature.PARSE_REQUEST).getClass().getSimpleName()
                        + ", not a AggregationStrategy",
                "edited.camel.yaml: /route(inference)/from/steps/multicast/steps/setBody/simple -> nowhere: "
                        + "no such bean");
    }

    @Test
    void placeholdersAndClassReferencesAreNotBeans() {
        String yaml = """
                - route:
                    from:
                      uri: "timer:t?period={{caravan.derived.period}}"
                      parameters:
                        watchListener: "#class:org.example.Listener"
                      steps:
                        - setBody:
                            simple: "${exchangeProperty.caravanDecision.label}"
                """;
        assertThat(RouteReferences.in("x.camel.yaml", yaml)).isEmpty();
    }
}
