package dev.caravan.processors.tuning;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.ToDefinition;
import org.apache.camel.support.PatternHelper;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.Test;

class RouteTimersTest {

    private static final Path INGRESS = Path.of("../routes/ingress.camel.yaml");

    private static boolean untimed(String routeId) {
        return PatternHelper.matchPatterns(routeId, RouteTimers.UNTIMED_ROUTES.split(","));
    }

    /**
     * The ids of the ingress routes that hand over to direct:inference, and of those that do not, as Camel's YAML DSL
     * loads them (the endpoint routes are instances of a routeTemplate), in a context that is never started.
     */
    private static List<List<String>> ingressRoutes() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            PluginHelper.getRoutesLoader(context).loadRoutes(ResourceHelper.fromString(INGRESS.getFileName().toString(),
                    Files.readString(INGRESS)));
            List<String> handOver = new ArrayList<>();
            List<String> others = new ArrayList<>();
            for (RouteDefinition route : context.getRouteDefinitions()) {
                assertThat(route.getRouteId()).as("a route without an id in %s", INGRESS).isNotNull();
                boolean toInference = route.getOutputs().stream().anyMatch(step -> step instanceof ToDefinition to
                        && "direct:inference".equals(to.getEndpointUri()));
                (toInference ? handOver : others).add(route.getRouteId());
            }
            return List.of(handOver, others);
        }
    }

    @Test
    void everyEndpointRouteHandingOverToInferenceIsUntimedAndInferenceIsTimed() throws Exception {
        List<List<String>> routes = ingressRoutes();
        assertThat(routes.get(0)).containsExactlyInAnyOrder("chat-completions", "completions", "generate",
                "embeddings", "rerank", "rerank-legacy", "classify", "tokenize", "detokenize", "responses")
                .allMatch(RouteTimersTest::untimed);
        assertThat(routes.get(1)).contains("inference", "stored-response", "shadow-policies")
                .noneMatch(RouteTimersTest::untimed);
    }

    @Test
    void theAttemptLoopAndTheForwardBodyRunInsideInference() throws Exception {
        List<String> others = ingressRoutes().get(1);

        assertThat(others).doesNotContain("attempts", "attempt-forward");
        assertThat(Files.readString(INGRESS)).doesNotContain("direct:attempts", "direct:attempt-forward");
    }

    @Test
    void everyPdAttemptBodyIsUntimed() {
        assertThat(List.of("attempt-pd-sglang", "attempt-pd-vllm"))
                .allMatch(RouteTimersTest::untimed);
        assertThat(List.of("inference", "pd-prefill-leg", "pd-decode-leg", "call-workers", "response-get"))
                .noneMatch(RouteTimersTest::untimed);
    }
}
