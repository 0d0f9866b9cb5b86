package dev.caravan.components.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.BindException;

import org.junit.jupiter.api.Test;

class ListenExceptionTest {

    @Test
    void namesTheAddressAndJavaNiosReason() {
        ListenException e = new ListenException("127.0.0.1:8080", new BindException("Address already in use"));

        assertThat(e).hasMessage("Caravan gateway cannot listen on 127.0.0.1:8080: Address already in use");
        assertThat(e.address()).isEqualTo("127.0.0.1:8080");
    }

    @Test
    void theNativeTransportsSystemCallPrefixIsLeftOut() {
        IOException epoll = new IOException("bind(..) failed with error(-98): Address already in use");

        assertThat(new ListenException("0.0.0.0:30000", epoll))
                .hasMessage("Caravan gateway cannot listen on 0.0.0.0:30000: Address already in use");
        assertThat(new ListenException("0.0.0.0:1", new IOException("bind(..) failed: Permission denied")))
                .hasMessage("Caravan gateway cannot listen on 0.0.0.0:1: Permission denied");
    }

    @Test
    void aCauseWithoutAMessageIsNamedByItsType() {
        assertThat(new ListenException("h:1", new IOException()))
                .hasMessage("Caravan gateway cannot listen on h:1: IOException");
        assertThat(new ListenException("h:1", null)).hasMessage("Caravan gateway cannot listen on h:1: unknown cause");
    }

    @Test
    void findDigsTheListenExceptionOutOfWrappers() {
        ListenException inner = new ListenException("h:1", null);

        assertThat(ListenException.find(new RuntimeException(new IllegalStateException(inner)))).isSameAs(inner);
        assertThat(ListenException.find(new RuntimeException("other"))).isNull();
    }
}
