package dev.caravan.processors.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.tls.TlsSettings;

class UpstreamClientTest {

    private static HttpClient clientOn(Context context, UpstreamClient upstream) throws Exception {
        CompletableFuture<HttpClient> client = new CompletableFuture<>();
        context.runOnContext(v -> client.complete(upstream.client()));
        return client.get(10, TimeUnit.SECONDS);
    }

    @Test
    void eachEventLoopGetsAClientOfItsOwnSoItsConnectionsNeverServeAnotherLoop() throws Exception {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
        try (UpstreamClient upstream = new UpstreamClient(vertx, Duration.ofSeconds(1), Duration.ofSeconds(5),
                Duration.ZERO, Duration.ZERO, 8, TlsSettings.NONE, 2)) {
            // new event-loop contexts take the loops in turn
            Context first = ((io.vertx.core.impl.VertxInternal) vertx).createEventLoopContext();
            Context second = ((io.vertx.core.impl.VertxInternal) vertx).createEventLoopContext();
            assertThat(((io.vertx.core.impl.ContextInternal) first).nettyEventLoop())
                    .isNotSameAs(((io.vertx.core.impl.ContextInternal) second).nettyEventLoop());
            HttpClient onFirst = clientOn(first, upstream);
            assertThat(clientOn(first, upstream)).isSameAs(onFirst);
            assertThat(clientOn(second, upstream)).isNotSameAs(onFirst);
            assertThat(upstream.client()).as("off the event loops").isNotSameAs(onFirst)
                    .isNotSameAs(clientOn(second, upstream)).isSameAs(upstream.client());
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void theConnectionLimitPerWorkerIsSplitOverTheEventLoopsAtLeastOneEach() {
        assertThat(UpstreamClient.perLoop(1024, 2)).isEqualTo(512);
        assertThat(UpstreamClient.perLoop(5, 2)).isEqualTo(2);
        assertThat(UpstreamClient.perLoop(1, 4)).isEqualTo(1);
        assertThat(UpstreamClient.perLoop(7, 1)).isEqualTo(7);
    }
}
