package dev.caravan.processors.quality;

import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.ROUTING_TEXT;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.HeldPrefixes;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.forward.Usage;
import dev.caravan.processors.routing.PolicyRegistry;
import dev.caravan.processors.routing.SelectWorkerProcessor;

/** measurePrefixes, the completion hook and scoreShadowPolicies, on a live cache_aware policy and its tree. */
class DecisionQualityStepsTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private static final String TEXT = "You are a careful assistant. ".repeat(8) + "What is the capital of Sogdia?";

    private final WorkerRegistry workers = new WorkerRegistry();
    private final PolicyRegistry policies = new PolicyRegistry(workers, m -> PolicyFactory.create(
            PolicyConfig.fromOptions("cache_aware", Map.of()), PolicyEnvironment.seeded(7)));
    private final SelectWorkerProcessor select = new SelectWorkerProcessor(policies, d -> { });
    private final MeterRegistry meters = new SimpleMeterRegistry();
    private final DecisionQuality quality = new DecisionQuality(meters, DecisionQualityConfig.enabled(0.5, 1),
            System::nanoTime);

    private Exchange request() {
        Exchange e = CAMEL.exchange();
        ROUTING_TEXT.set(e, TEXT);
        return e;
    }

    private static void complete(Exchange e) {
        e.getExchangeExtension().handoverCompletions().forEach(s -> s.onComplete(e));
    }

    private double counter(String name, String... tags) {
        var c = meters.find(name).tags(tags).counter();
        return c == null ? Double.NaN : c.count();
    }

    @Test
    void withBothFeaturesOffTheStepChangesNothing() {
        workers.add(Worker.builder("http://a:1").build());
        MeasurePrefixesProcessor off = new MeasurePrefixesProcessor(policies, new PrefixOracle(ShadowPolicies.NONE),
                null, false);
        Exchange e = request();
        Map<String, Object> before = new HashMap<>(e.getProperties());

        off.process(e);

        assertThat(off.active()).isFalse();
        assertThat(e.getProperties()).isEqualTo(before);
        assertThat(e.getExchangeExtension().handoverCompletions()).isNullOrEmpty();
    }

    @Test
    void aCacheHitIsScoredByTheTreeAsItStoodBeforeTheDecisionAgainstTheEnginesCachedTokens() {
        Worker a = workers.add(Worker.builder("http://a:1").build());
        workers.add(Worker.builder("http://b:1").build());
        MeasurePrefixesProcessor measure = new MeasurePrefixesProcessor(policies,
                new PrefixOracle(ShadowPolicies.NONE), quality, false);
        Exchange first = request();
        measure.process(first);
        select.process(first);
        String holder = DECISION.get(first).worker().url();
        assertThat(MeasurePrefixesProcessor.HELD.get(first).byWorker()).isEmpty(); // the tree was empty before it
        Usage.PROPERTY.set(first, new Usage(100, 0, 5));
        complete(first);

        Exchange second = request();
        measure.process(second);
        select.process(second);
        HeldPrefixes held = MeasurePrefixesProcessor.HELD.get(second);
        assertThat(held.unit()).isEqualTo(HeldPrefixes.Unit.CHARS);
        assertThat(held.byWorker()).isEqualTo(Map.of(holder, (long) TEXT.length()));
        assertThat(DECISION.get(second).label()).isEqualTo("cache_aware:cache_hit");
        Usage.PROPERTY.set(second, new Usage(100, 80, 5)); // 100 prompt tokens for the whole text
        complete(second);

        assertThat(counter("caravan.decision.expected.tokens", "policy", "cache_aware")).isEqualTo(100);
        assertThat(counter("caravan.decision.reachable.tokens", "policy", "cache_aware")).isEqualTo(100);
        assertThat(counter("caravan.decision.captured.tokens", "policy", "cache_aware")).isEqualTo(80);
        assertThat(counter("caravan.decision.requests", "policy", "cache_aware", "reported", "true")).isEqualTo(2);
        assertThat(quality.captureRatio("cache_aware")).isEqualTo(0.8);
        assertThat(counter("caravan.decision.predictions", "policy", "cache_aware", "layout", "full", "rules", "groups",
                "outcome", "exact")).isEqualTo(1);
        assertThat(counter("caravan.decision.predictions", "policy", "cache_aware", "layout", "full", "rules", "groups",
                "outcome", "over")).isEqualTo(1);
        assertThat(meters.find("caravan.decision.predictions").tags("rules", "full_attention").counter()).isNull();
        assertThat(a.load() + workers.all().get(1).load()).isZero();
    }

    @Test
    void anExpectationBelowTheEnginesReportCountsAsUnderForItsLayoutAndRules() {
        quality.predicted("kv_aware", "full+mamba", "full_attention", 10, 20);

        assertThat(counter("caravan.decision.predictions", "policy", "kv_aware", "layout", "full+mamba", "rules",
                "full_attention", "outcome", "under")).isEqualTo(1);
    }

    @Test
    void anEngineThatReportsNoCachedTokensCountsAsUnreportedAndLeavesTheRatioAlone() {
        quality.record("kv_aware", 64, 128, -1);

        assertThat(counter("caravan.decision.expected.tokens", "policy", "kv_aware")).isEqualTo(64);
        assertThat(counter("caravan.decision.reachable.tokens", "policy", "kv_aware")).isEqualTo(128);
        assertThat(counter("caravan.decision.captured.tokens", "policy", "kv_aware")).isZero();
        assertThat(counter("caravan.decision.requests", "policy", "kv_aware", "reported", "false")).isEqualTo(1);
        assertThat(quality.captureRatio("kv_aware")).isNaN();
    }

    @Test
    void aShadowPolicyIsScoredByWhatItsPickHeldNextToTheLivePick() {
        workers.add(Worker.builder("http://a:1").build());
        workers.add(Worker.builder("http://b:1").build());
        PolicyRegistry roundRobin = new PolicyRegistry(workers, WorkerRole.REGULAR, m -> PolicyFactory.create(
                PolicyConfig.fromOptions("round_robin", Map.of()), PolicyEnvironment.seeded(7)), false);
        ShadowPolicies shadows = new ShadowPolicies(List.of(new ShadowPolicies.Shadow("round_robin", roundRobin)));
        MeasurePrefixesProcessor measure = new MeasurePrefixesProcessor(policies, new PrefixOracle(shadows), null,
                true);
        ScoreShadowPoliciesProcessor score = new ScoreShadowPoliciesProcessor(policies, shadows, meters, 4.0);
        Exchange warm = request();
        select.process(warm); // the live tree now holds TEXT on one worker
        complete(warm);

        for (int i = 0; i < 2; i++) {
            Exchange e = request();
            measure.process(e);
            select.process(e);
            assertThat(MeasurePrefixesProcessor.SHADOW_PENDING.get(e)).isTrue();
            score.process(e);
            complete(e);
        }

        // round robin picks each worker once; the live policy picked the holder twice
        long tokens = Math.round(TEXT.length() / 4.0);
        assertThat(counter("caravan.shadow.decisions", "shadow", "round_robin", "agrees", "true")).isEqualTo(1);
        assertThat(counter("caravan.shadow.decisions", "shadow", "round_robin", "agrees", "false")).isEqualTo(1);
        assertThat(counter("caravan.shadow.expected.tokens", "shadow", "round_robin")).isEqualTo(tokens);
        assertThat(counter("caravan.shadow.baseline.tokens", "shadow", "round_robin")).isEqualTo(2 * tokens);
        assertThat(counter("caravan.shadow.reachable.tokens", "shadow", "round_robin")).isEqualTo(2 * tokens);
    }

    @Test
    void treeCharactersBecomeTokensByTheEnginesCountThenTheGatewaysThenTheConfiguredRatio() {
        HeldPrefixes chars = new HeldPrefixes(HeldPrefixes.Unit.CHARS, 400, Map.of("http://a:1", 200L));
        assertThat(TokenScale.tokensPerUnit(chars, 100, null, 4.0)).isEqualTo(0.25);
        assertThat(TokenScale.tokensPerUnit(chars, -1,
                new dev.caravan.policies.text.PromptTokens(new int[50], null, null,
                        dev.caravan.policies.text.PromptTokens.Source.LOCAL), 4.0)).isEqualTo(0.125);
        assertThat(TokenScale.tokensPerUnit(chars, -1, null, 2.0)).isEqualTo(0.5);
        assertThat(TokenScale.tokensPerUnit(new HeldPrefixes(HeldPrefixes.Unit.TOKENS, 64, Map.of()), 100, null, 4.0))
                .isEqualTo(1.0);
    }
}
