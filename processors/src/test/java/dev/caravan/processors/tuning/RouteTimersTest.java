package dev.caravan.processors.tuning;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.camel.support.PatternHelper;
import org.junit.jupiter.api.Test;

class RouteTimersTest {

    private static final Path INGRESS = Path.of("../routes/ingress.camel.yaml");
    private static final Pattern ROUTE = Pattern.compile("^- route:\\n((?:[ #].*\\n|\\n)*)", Pattern.MULTILINE);
    private static final Pattern ID = Pattern.compile("^    id: (\\S+)", Pattern.MULTILINE);

    private static boolean untimed(String routeId) {
        return PatternHelper.matchPatterns(routeId, RouteTimers.UNTIMED_ROUTES.split(","));
    }

    /** Every ingress route that hands over to direct:inference, by id; and the ids of those that do not. */
    private static List<List<String>> ingressRoutes() throws IOException {
        String yaml = Files.readString(INGRESS) + "\n";
        List<String> handOver = new ArrayList<>();
        List<String> others = new ArrayList<>();
        Matcher route = ROUTE.matcher(yaml);
        while (route.find()) {
            Matcher id = ID.matcher(route.group(1));
            assertThat(id.find()).as("a route without an id in %s", INGRESS).isTrue();
            (route.group(1).contains("- to: direct:inference") ? handOver : others).add(id.group(1));
        }
        return List.of(handOver, others);
    }

    @Test
    void everyEndpointRouteHandingOverToInferenceIsUntimedAndInferenceIsTimed() throws IOException {
        List<List<String>> routes = ingressRoutes();
        assertThat(routes.get(0)).hasSize(10).allMatch(RouteTimersTest::untimed);
        assertThat(routes.get(1)).contains("inference", "stored-response", "shadow-policies")
                .noneMatch(RouteTimersTest::untimed);
    }

    @Test
    void theAttemptLoopAndTheForwardBodyRunInsideInference() throws IOException {
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
