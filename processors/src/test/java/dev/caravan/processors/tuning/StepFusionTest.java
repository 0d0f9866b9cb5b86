package dev.caravan.processors.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.ChoiceDefinition;
import org.apache.camel.model.ModelCamelContext;
import org.apache.camel.model.ProcessDefinition;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.model.SetPropertyDefinition;
import org.apache.camel.model.TryDefinition;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.MetricsFeature;

class StepFusionTest {

    private final CamelContext camel = new DefaultCamelContext();
    private final Map<String, Object> beans = new LinkedHashMap<>();
    private final List<String> ran = new ArrayList<>();

    StepFusionTest() {
        for (String name : List.of("a", "b", "c", "d", "e")) {
            step(name, e -> { });
        }
        step("fail", e -> {
            throw new IllegalStateException("step failed");
        });
        step("stop", e -> e.setRouteStop(true));
        step("flaky", e -> {
            if (ran.stream().filter(r -> r.startsWith("flaky")).count() == 1) {
                throw new IllegalStateException("first try failed");
            }
        });
        beans.put("later", new Later());
        beans.put("notAStep", "a string");
    }

    /** A step that notes its name when it runs, with a {@code *} when it runs inside a fused run. */
    private void step(String name, Processor work) {
        beans.put(name, (Processor) e -> {
            ran.add(name + (insideFusedSteps() ? "*" : ""));
            work.process(e);
        });
    }

    private static boolean insideFusedSteps() {
        return StackWalker.getInstance().walk(frames -> frames.anyMatch(
                f -> f.getClassName().equals(FusedSteps.class.getName())));
    }

    /** Completes on another thread, after the route's thread has moved on. */
    private final class Later extends AsyncProcessorSupport {
        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            CompletableFuture.runAsync(() -> {
                ran.add("later");
                callback.done(false);
            });
            return false;
        }
    }

    private void start(String yaml) throws Exception {
        start(yaml, Map.of());
    }

    /** With {@code properties} for the routes' {@code {{...}}} placeholders. */
    private void start(String yaml, Map<String, String> properties) throws Exception {
        java.util.Properties initial = new java.util.Properties();
        initial.putAll(properties);
        camel.getPropertiesComponent().setInitialProperties(initial);
        beans.forEach(camel.getRegistry()::bind);
        camel.getRegistry().bind("hostStep", (Processor) e -> ran.add("hostStep"));
        StepFusion.install(camel, beans);
        PluginHelper.getRoutesLoader(camel).loadRoutes(ResourceHelper.fromString("test.camel.yaml", yaml));
        camel.start();
    }

    @AfterEach
    void stop() {
        camel.stop();
    }

    private static String route(String steps) {
        return """
                - route:
                    id: r
                    from:
                      uri: direct:r
                      steps:
                """ + steps.indent(8) + """
                        - setBody:
                            constant: end
                """;
    }

    private static String process(String... refs) {
        StringBuilder yaml = new StringBuilder();
        for (String ref : refs) {
            yaml.append("- process:\n    ref: ").append(ref).append('\n');
        }
        return yaml.toString();
    }

    /** A route configuration whose onException for IllegalStateException has {@code clause} (YAML at column 0). */
    private static String onIllegalState(String clause) {
        return """
                - routeConfiguration:
                    onException:
                      - onException:
                          exception:
                            - java.lang.IllegalStateException
                """ + clause.indent(10);
    }

    /** The route's steps, a fused run as the list of its steps' names (the route configuration's onException left out). */
    private List<Object> topSteps() {
        return ((ModelCamelContext) camel).getRouteDefinition("r").getOutputs().stream()
                .filter(p -> !p.getShortName().equals("onException"))
                .map(p -> p instanceof ProcessDefinition d && d.getProcessor() instanceof FusedSteps f
                        ? (Object) f.names() : p.getShortName())
                .toList();
    }

    /** Every fused run of the route, at any depth. */
    private List<List<String>> runs() {
        List<List<String>> runs = new ArrayList<>();
        collect(((ModelCamelContext) camel).getRouteDefinition("r").getOutputs(), runs);
        return runs;
    }

    private static void collect(List<ProcessorDefinition<?>> steps, List<List<String>> runs) {
        for (ProcessorDefinition<?> step : steps) {
            if (step instanceof ProcessDefinition d && d.getProcessor() instanceof FusedSteps f) {
                runs.add(f.names());
            } else if (step instanceof ChoiceDefinition choice) {
                choice.getWhenClauses().forEach(when -> collect(when.getOutputs(), runs));
            } else if (step instanceof TryDefinition doTry) {
                collect(doTry.getOutputs(), runs);
                doTry.getCatchClauses().forEach(c -> collect(c.getOutputs(), runs));
            } else if (step.getOutputs() != null) {
                collect(step.getOutputs(), runs);
            }
        }
    }

    private Object send() {
        return camel.createProducerTemplate().requestBody("direct:r", "in");
    }

    @Test
    void consecutiveGatewayStepsRunAsOneCamelStepInTheOrderTheYamlGives() throws Exception {
        start(route(process("a", "b", "c") + "- setProperty:\n    name: p\n    simple: ${body}\n" + process("d", "e")));

        assertThat(topSteps()).containsExactly(List.of("a", "b", "c"), "setProperty", List.of("d", "e"), "setBody");
        assertThat(send()).isEqualTo("end");
        assertThat(ran).containsExactly("a*", "b*", "c*", "d*", "e*");
    }

    @Test
    void aConstantSetPropertyBetweenGatewayStepsJoinsTheirRunAndSetsWhatCamelWouldSet() throws Exception {
        step("readsP", e -> ran.add("p=" + e.getProperty("p") + " " + e.getProperty("p").getClass().getSimpleName()));
        start(route(process("a") + "- setProperty:\n    name: p\n    constant: \" forward \"\n"
                + process("readsP") + "- setProperty:\n    name: q\n    constant: \"{{x}}\"\n"
                + process("b", "c")).replace("constant: end", "simple: ${exchangeProperty.p}-${exchangeProperty.q}"),
                Map.of("x", "placeholder"));

        assertThat(topSteps()).containsExactly(List.of("a", "setProperty[p]", "readsP"), "setProperty",
                List.of("b", "c"), "setBody");
        assertThat(send()).isEqualTo("forward-placeholder"); // trimmed, as Camel's constant language trims
        assertThat(ran).containsExactly("a*", "readsP*", "p=forward String", "b*", "c*");
    }

    @Test
    void aFailingStepEndsTheRunAndTheRoutesErrorHandlerAnswersAsForAnUnfusedStep() throws Exception {
        start(route(process("a", "fail", "b")) + onIllegalState("""
                handled:
                  constant: true
                steps:
                  - setBody:
                      simple: "mapped: ${exception.message}"
                """));

        assertThat(topSteps()).containsExactly(List.of("a", "fail", "b"), "setBody");
        assertThat(send()).isEqualTo("mapped: step failed");
        assertThat(ran).containsExactly("a*", "fail*");
    }

    @Test
    void aRedeliveryRunsTheFailedStepAgainNotTheRunFromItsStart() throws Exception {
        start(route(process("a", "flaky", "b")) + """
                - routeConfiguration:
                    errorHandler:
                      defaultErrorHandler:
                        redeliveryPolicy:
                          maximumRedeliveries: 2
                          redeliveryDelay: 0
                """);

        assertThat(send()).isEqualTo("end");
        assertThat(ran).containsExactly("a*", "flaky*", "flaky*", "b*");
    }

    @Test
    void aStepThatStopsTheRouteEndsTheRunAndTheRoute() throws Exception {
        start(route(process("a", "stop", "b")));

        assertThat(send()).isEqualTo("in");
        assertThat(ran).containsExactly("a*", "stop*");
    }

    @Test
    void anAsynchronousStepResumesTheRunWhenItCompletesOnAnotherThread() throws Exception {
        start(route(process("a", "later", "b")));

        CompletableFuture<Object> reply = camel.createProducerTemplate().asyncRequestBody("direct:r", "in");

        await().atMost(Duration.ofSeconds(10)).until(reply::isDone);
        assertThat(reply.get()).isEqualTo("end");
        assertThat(ran).containsExactly("a*", "later", "b*");
    }

    @Test
    void stepsInsideALoopADoTryAndAChoiceAreFusedAndAFailureReachesTheDoCatch() throws Exception {
        start(route("""
                - loop:
                    constant: 1
                    steps:
                      - doTry:
                          steps:
                            - choice:
                                when:
                                  - simple: "${body} == 'in'"
                                    steps:
                """ + process("a", "fail", "b").indent(22) + """
                          doCatch:
                            - exception:
                                - java.lang.Exception
                              steps:
                """ + process("c", "d").indent(16)));

        assertThat(send()).isEqualTo("end");
        assertThat(ran).containsExactly("a*", "fail*", "c*", "d*");
        assertThat(runs()).containsExactly(List.of("a", "fail", "b"), List.of("c", "d"));
    }

    @Test
    void aMulticastsBranchesStayBranchesEachOnItsOwnCopy() throws Exception {
        start(route("""
                - multicast:
                    steps:
                """ + process("a", "b").indent(6)));

        assertThat(runs()).isEmpty();
        assertThat(send()).isEqualTo("end");
        assertThat(ran).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void stepsWithAnIdOfTheirOwnOrNotTheGatewaysStayCamelSteps() throws Exception {
        start(route(process("a", "hostStep", "b") + "- process:\n    id: named\n    ref: c\n" + process("d")));

        assertThat(topSteps()).containsExactly("process", "process", "process", "process", "process", "setBody");
        assertThat(send()).isEqualTo("end");
        assertThat(ran).containsExactly("a", "hostStep", "b", "c", "d");
    }

    @Test
    void withCamelsTracerOnEveryStepStaysACamelStep() throws Exception {
        camel.setTracing(true);
        start(route(process("a", "b")));

        assertThat(topSteps()).containsExactly("process", "process", "setBody");
        assertThat(send()).isEqualTo("end");
        assertThat(ran).containsExactly("a", "b");
    }

    @Test
    void withAnInterceptEveryStepStaysACamelStepAndIsInterceptedOnItsOwn() throws Exception {
        start(route(process("a", "b")) + """
                - routeConfiguration:
                    intercept:
                      - intercept:
                          steps:
                            - process:
                                ref: hostStep
                """);

        assertThat(runs()).isEmpty();
        assertThat(send()).isEqualTo("end");
        assertThat(ran).containsSubsequence("hostStep", "a", "hostStep", "b");
    }

    @Test
    void withAnOnExceptionThatContinuesTheStepsAfterTheFailedOneStillRun() throws Exception {
        start(route(process("a", "fail", "b")) + onIllegalState("""
                continued:
                  constant: true
                """));

        assertThat(runs()).isEmpty();
        assertThat(send()).isEqualTo("end");
        assertThat(ran).containsExactly("a", "fail", "b");
    }

    /**
     * On the shipped routes, each stretch of two or more of the gateway's steps (with the literal {@code setProperty}
     * between them) that the inference route runs in a row is one Camel step: the runs are read off the same route
     * with the tuning off, so a feature adding a step to the YAML changes what is expected without this test.
     */
    @Test
    void theGatewaysInferenceRouteRunsEachStretchOfItsOwnStepsAsOneCamelStep() throws Exception {
        CaravanGateway.install(camel, gatewayConfig(true));
        camel.start();
        CamelContext stock = new DefaultCamelContext();
        try {
            CaravanGateway.install(stock, gatewayConfig(false));
            stock.start();
            List<List<String>> expected = new ArrayList<>();
            stretches(((ModelCamelContext) stock).getRouteDefinition("inference").getOutputs(), expected);

            List<List<String>> runs = new ArrayList<>();
            collect(((ModelCamelContext) camel).getRouteDefinition("inference").getOutputs(), runs);
            assertThat(runs).isEqualTo(expected);
            assertThat(runs.get(0)).startsWith("traceRequest", "checkApiKey", "identifyTenant", "parseRequest");
            assertThat(runs.stream().flatMap(List::stream)).contains("selectWorker", "forwardStream",
                    "setProperty[caravanAttempt]");
        } finally {
            stock.close();
        }
    }

    private static GatewayConfig gatewayConfig(boolean tuning) {
        return GatewayConfig.defaults().with(CoreFlags.HOST, "127.0.0.1").with(CoreFlags.PORT, "0")
                .with(CoreFlags.LOAD_CHECK_INTERVAL, "0").with(MetricsFeature.PROMETHEUS_PORT, "-1")
                .with(CoreFlags.CAMEL_TUNING, Boolean.toString(tuning));
    }

    /**
     * The fusion rule applied to unfused steps, list by list as {@link #collect} walks them: maximal stretches of
     * {@code process: {ref}} steps and literal {@code setProperty} steps, without leading or trailing
     * {@code setProperty}, holding at least two gateway steps.
     */
    private static void stretches(List<ProcessorDefinition<?>> steps, List<List<String>> out) {
        List<String> run = new ArrayList<>();
        for (ProcessorDefinition<?> step : steps) {
            if (step instanceof ProcessDefinition d && d.getRef() != null) {
                run.add(d.getRef());
                continue;
            }
            if (step instanceof SetPropertyDefinition p && !run.isEmpty()
                    && p.getExpression().getExpression() != null && "constant".equals(p.getExpression().getLanguage())
                    && !p.getExpression().getExpression().contains("{{")) {
                run.add("setProperty[" + p.getName() + "]");
                continue;
            }
            close(run, out);
            run = new ArrayList<>();
            if (step instanceof ChoiceDefinition choice) {
                choice.getWhenClauses().forEach(when -> stretches(when.getOutputs(), out));
                if (choice.getOtherwise() != null) {
                    stretches(choice.getOtherwise().getOutputs(), out);
                }
            } else if (step instanceof TryDefinition doTry) {
                stretches(doTry.getOutputs(), out);
                doTry.getCatchClauses().forEach(c -> stretches(c.getOutputs(), out));
            } else if (step.getOutputs() != null) {
                stretches(step.getOutputs(), out);
            }
        }
        close(run, out);
    }

    private static void close(List<String> run, List<List<String>> out) {
        while (!run.isEmpty() && run.get(run.size() - 1).startsWith("setProperty[")) {
            run.remove(run.size() - 1);
        }
        if (run.stream().filter(s -> !s.startsWith("setProperty[")).count() >= 2) {
            out.add(run);
        }
    }
}
