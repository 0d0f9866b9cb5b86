package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.camel.util.AntPathMatcher;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.forward.ForwardFeature;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.pd.PdFeature;
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

        assertThat(refs).contains(RequestFeature.PARSE_REQUEST, BeanNames.BEGIN_ATTEMPTS,
                RoutingFeature.SELECT_WORKER, ForwardFeature.FORWARD_STREAM, BeanNames.DECIDE_RETRY,
                BeanNames.AWAIT_BACKOFF, RequestFeature.MAP_ERROR, PdFeature.PD_AGGREGATION,
                BeanNames.COLLECT_CONTROL_RESULTS, PdFeature.RELAY_DECODE);
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
