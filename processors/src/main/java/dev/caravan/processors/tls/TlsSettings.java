package dev.caravan.processors.tls;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;

/**
 * The gateway's TLS material, all PEM files as SGLang's router takes them: the HTTPS listener's certificate and key
 * ({@code --tls-cert-path}, {@code --tls-key-path}); the client certificate and key it presents to {@code https://}
 * workers for mutual TLS ({@code --client-cert-path}, {@code --client-key-path}); and the CAs workers' certificates
 * must chain to ({@code --ca-cert-paths}; none: the JVM's trusted CAs). Every client that calls workers — the data
 * plane, control calls, health probes — applies {@link #client}; the gateway's own listener applies {@link #server}.
 * Hosts are verified against the certificates (a worker's certificate must name the host of its URL).
 *
 * <p>Checked when built: a certificate needs its key and the other way round, and every file must be a readable file,
 * so a typo stops start-up with the flag and the path instead of failing the first request.
 *
 * @param serverCert the listener's certificate chain, or null for plain HTTP
 * @param serverKey  its private key (PKCS#8 or PKCS#1), or null
 * @param clientCert the certificate presented to workers, or null
 * @param clientKey  its private key, or null
 * @param caCerts    CA certificates trusted for workers; empty: the JVM's
 */
public record TlsSettings(Path serverCert, Path serverKey, Path clientCert, Path clientKey, List<Path> caCerts) {

    /** No TLS of the gateway's own: plain HTTP listener, JVM trust for https workers, no client certificate. */
    public static final TlsSettings NONE = new TlsSettings(null, null, null, null, List.of());

    public TlsSettings {
        caCerts = caCerts == null ? List.of() : List.copyOf(caCerts);
        pair(serverCert, "--tls-cert-path", serverKey, "--tls-key-path");
        pair(clientCert, "--client-cert-path", clientKey, "--client-key-path");
        readable(serverCert, "--tls-cert-path");
        readable(serverKey, "--tls-key-path");
        readable(clientCert, "--client-cert-path");
        readable(clientKey, "--client-key-path");
        for (Path ca : caCerts) {
            readable(ca, "--ca-cert-paths");
        }
    }

    /**
     * Settings from the flags' values (empty strings mean unset).
     *
     * @throws IllegalArgumentException naming the flag and the path of a missing half or an unreadable file
     */
    public static TlsSettings of(String serverCert, String serverKey, String clientCert, String clientKey,
                                 List<String> caCerts) {
        List<Path> cas = new ArrayList<>();
        caCerts.forEach(c -> cas.add(Path.of(c)));
        return new TlsSettings(path(serverCert), path(serverKey), path(clientCert), path(clientKey), cas);
    }

    /** True when the gateway's listener speaks HTTPS. */
    public boolean serverTls() {
        return serverCert != null;
    }

    /** The listener's options with HTTPS when configured. */
    public HttpServerOptions server(HttpServerOptions options) {
        if (serverCert != null) {
            options.setSsl(true).setKeyCertOptions(new PemKeyCertOptions().setCertPath(serverCert.toString())
                    .setKeyPath(serverKey.toString()));
        }
        return options;
    }

    /** A worker client's options: the client certificate and trusted CAs when configured. */
    public HttpClientOptions client(HttpClientOptions options) {
        if (clientCert != null) {
            options.setKeyCertOptions(new PemKeyCertOptions().setCertPath(clientCert.toString())
                    .setKeyPath(clientKey.toString()));
        }
        if (!caCerts.isEmpty()) {
            PemTrustOptions trust = new PemTrustOptions();
            caCerts.forEach(ca -> trust.addCertPath(ca.toString()));
            options.setTrustOptions(trust);
        }
        return options.setVerifyHost(true);
    }

    private static Path path(String value) {
        return value == null || value.isBlank() ? null : Path.of(value.trim());
    }

    private static void pair(Path a, String flagA, Path b, String flagB) {
        if ((a == null) != (b == null)) {
            throw new IllegalArgumentException(a == null ? flagB + " needs " + flagA : flagA + " needs " + flagB);
        }
    }

    private static void readable(Path p, String flag) {
        if (p != null && !(Files.isRegularFile(p) && Files.isReadable(p))) {
            throw new IllegalArgumentException(flag + ": cannot read " + p.toAbsolutePath());
        }
    }
}
