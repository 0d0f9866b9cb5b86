package dev.caravan.components.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

class RequestCompletionTest {

    private final CamelContext camel = new DefaultCamelContext();

    @Test
    void theTasksOfOneExchangeShareOneHookAndRunLastAddedFirst() {
        Exchange e = new DefaultExchange(camel);
        List<String> ran = new ArrayList<>();
        RequestCompletion.onDone(e, x -> ran.add("settle"));
        RequestCompletion.onDone(e, x -> ran.add("release"));
        RequestCompletion.onDone(e, x -> ran.add("third"));

        var hooks = e.getExchangeExtension().handoverCompletions();
        assertThat(hooks).hasSize(1);
        hooks.get(0).onFailure(e);
        assertThat(ran).containsExactly("third", "release", "settle");
    }

    @Test
    void aTaskThatThrowsDoesNotKeepTheOthersFromRunning() {
        Exchange e = new DefaultExchange(camel);
        List<String> ran = new ArrayList<>();
        RequestCompletion.onDone(e, x -> ran.add("settle"));
        RequestCompletion.onDone(e, x -> {
            throw new IllegalStateException("boom");
        });

        e.getExchangeExtension().handoverCompletions().forEach(s -> s.onComplete(e));
        assertThat(ran).containsExactly("settle");
    }

    @Test
    void eachExchangeHasItsOwnHook() {
        Exchange a = new DefaultExchange(camel);
        Exchange b = new DefaultExchange(camel);
        List<String> ran = new ArrayList<>();
        RequestCompletion.onDone(a, x -> ran.add("a"));
        RequestCompletion.onDone(b, x -> ran.add("b"));

        b.getExchangeExtension().handoverCompletions().forEach(s -> s.onComplete(b));
        assertThat(ran).containsExactly("b");
    }

    @Test
    void aCopyOfTheExchangeGetsAHookOfItsOwn() {
        Exchange e = new DefaultExchange(camel);
        List<String> ran = new ArrayList<>();
        RequestCompletion.onDone(e, x -> ran.add("original"));
        Exchange copy = e.copy();
        RequestCompletion.onDone(copy, x -> ran.add("copy"));

        copy.getExchangeExtension().handoverCompletions().forEach(s -> s.onComplete(copy));
        assertThat(ran).containsExactly("copy");
        e.getExchangeExtension().handoverCompletions().forEach(s -> s.onComplete(e));
        assertThat(ran).containsExactly("copy", "original");
    }

    @Test
    void completingNowRunsTheTasksOnceAndTheExchangesEndOnlyThoseAddedAfter() {
        Exchange e = new DefaultExchange(camel);
        List<String> ran = new ArrayList<>();
        RequestCompletion.onDone(e, x -> ran.add("report"));
        RequestCompletion.onDone(e, x -> ran.add("release"));

        RequestCompletion.completeNow(e);
        assertThat(ran).containsExactly("release", "report");
        RequestCompletion.onDone(e, x -> ran.add("late"));
        e.getExchangeExtension().handoverCompletions().forEach(s -> s.onComplete(e));
        assertThat(ran).containsExactly("release", "report", "late");
    }

    @Test
    void completingACopyNowLeavesTheOriginalsTasksAlone() {
        Exchange e = new DefaultExchange(camel);
        List<String> ran = new ArrayList<>();
        RequestCompletion.onDone(e, x -> ran.add("original"));

        RequestCompletion.completeNow(e.copy());
        assertThat(ran).isEmpty();
        RequestCompletion.completeNow(e);
        assertThat(ran).containsExactly("original");
    }
}
