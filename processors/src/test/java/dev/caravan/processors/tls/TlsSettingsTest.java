package dev.caravan.processors.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The TLS flags' rules, checked at start-up; the handshakes themselves are TlsIT's (certificates made in the test). */
class TlsSettingsTest {

    @TempDir
    Path dir;

    private String file(String name) throws IOException {
        return Files.writeString(dir.resolve(name), "-----BEGIN CERTIFICATE-----\n").toString();
    }

    @Test
    void noFlagsMeanPlainHttpAndTheJvmsTrust() {
        TlsSettings none = TlsSettings.of("", "", "", "", List.of());
        assertThat(none.serverTls()).isFalse();
        assertThat(none.server(new HttpServerOptions()).isSsl()).isFalse();
        HttpClientOptions client = none.client(new HttpClientOptions());
        assertThat(client.getKeyCertOptions()).isNull();
        assertThat(client.getTrustOptions()).isNull();
        assertThat(client.isVerifyHost()).isTrue();
    }

    @Test
    void appliesTheListenersAndTheClientsMaterial() throws IOException {
        TlsSettings tls = TlsSettings.of(file("s.pem"), file("s-key.pem"), file("c.pem"), file("c-key.pem"),
                List.of(file("ca1.pem"), file("ca2.pem")));
        HttpServerOptions server = tls.server(new HttpServerOptions());
        assertThat(server.isSsl()).isTrue();
        assertThat(((PemKeyCertOptions) server.getKeyCertOptions()).getCertPaths()).containsExactly(
                dir.resolve("s.pem").toString());
        HttpClientOptions client = tls.client(new HttpClientOptions());
        assertThat(((PemKeyCertOptions) client.getKeyCertOptions()).getKeyPaths())
                .containsExactly(dir.resolve("c-key.pem").toString());
        assertThat(((PemTrustOptions) client.getTrustOptions()).getCertPaths()).hasSize(2);
    }

    @Test
    void aCertificateNeedsItsKeyAndTheOtherWayRound() throws IOException {
        String cert = file("s.pem");
        assertThatThrownBy(() -> TlsSettings.of(cert, "", "", "", List.of()))
                .hasMessage("--tls-cert-path needs --tls-key-path");
        assertThatThrownBy(() -> TlsSettings.of("", "", "", cert, List.of()))
                .hasMessage("--client-key-path needs --client-cert-path");
    }

    @Test
    void anUnreadableFileNamesItsFlagAndPath() throws IOException {
        String cert = file("s.pem");
        Path missing = dir.resolve("nope.pem");
        assertThatThrownBy(() -> TlsSettings.of(cert, missing.toString(), "", "", List.of()))
                .hasMessage("--tls-key-path: cannot read " + missing.toAbsolutePath());
        assertThatThrownBy(() -> TlsSettings.of("", "", "", "", List.of(dir.toString())))
                .hasMessage("--ca-cert-paths: cannot read " + dir.toAbsolutePath());
    }
}
