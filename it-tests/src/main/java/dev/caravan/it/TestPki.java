package dev.caravan.it;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority for TLS tests, generated in the test (no network, nothing checked in): a CA, and
 * leaf certificates it signs for {@code 127.0.0.1} and {@code localhost} (servers) or a named client (mTLS), each written
 * as PEM files — what {@code --tls-cert-path}, {@code --client-cert-path} and {@code --ca-cert-paths} take — in a
 * directory of the test's. EC P-256 keys, valid for a day.
 *
 * <pre>{@code
 * TestPki pki = TestPki.create(tempDir);
 * TestPki.Issued server = pki.issue("gateway", true);
 * SSLContext client = pki.clientContext(null);   // trusts the CA
 * }</pre>
 */
public final class TestPki {

    /** PEM files of one issued certificate. */
    public record Issued(Path cert, Path key, X509Certificate certificate, KeyPair keys) {
    }

    private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

    private final Path dir;
    private final KeyPair caKeys;
    private final X509Certificate ca;
    private final Path caPem;

    private TestPki(Path dir, KeyPair caKeys, X509Certificate ca, Path caPem) {
        this.dir = dir;
        this.caKeys = caKeys;
        this.ca = ca;
        this.caPem = caPem;
    }

    /** A new CA whose certificate is written to {@code dir/ca.pem}. */
    public static TestPki create(Path dir) {
        try {
            KeyPair keys = keyPair();
            X500Name name = new X500Name("CN=Caravan Test CA");
            JcaX509v3CertificateBuilder b = builder(name, name, keys);
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            X509Certificate cert = sign(b, keys);
            Path pem = dir.resolve("ca.pem");
            Files.writeString(pem, pem(cert), StandardCharsets.US_ASCII);
            return new TestPki(dir, keys, cert, pem);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot create the test CA", e);
        }
    }

    /** The CA certificate's PEM file. */
    public Path caPem() {
        return caPem;
    }

    /**
     * Issues a certificate for {@code 127.0.0.1} and {@code localhost}, written to {@code dir/<name>.pem} and
     * {@code dir/<name>-key.pem} (PKCS#8).
     */
    public Issued issue(String name) {
        try {
            KeyPair keys = keyPair();
            JcaX509v3CertificateBuilder b = builder(new X500Name("CN=Caravan Test CA"), new X500Name("CN=" + name), keys);
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")}));
            X509Certificate cert = sign(b, caKeys);
            Path certPem = dir.resolve(name + ".pem");
            Path keyPem = dir.resolve(name + "-key.pem");
            Files.writeString(certPem, pem(cert), StandardCharsets.US_ASCII);
            Files.writeString(keyPem, pem(new JcaPKCS8Generator(keys.getPrivate(), null)), StandardCharsets.US_ASCII);
            return new Issued(certPem, keyPem, cert, keys);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot issue " + name, e);
        }
    }

    /** An SSL context that trusts this CA and, when {@code client} is given, presents it (mTLS). */
    public SSLContext clientContext(Issued client) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = null;
            if (client != null) {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(null, null);
                ks.setKeyEntry("client", client.keys().getPrivate(), new char[0],
                        new X509Certificate[] {client.certificate(), ca});
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, new char[0]);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot build an SSL context", e);
        }
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static JcaX509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(Duration.ofDays(1))), subject,
                keys.getPublic());
    }

    private static X509Certificate sign(JcaX509v3CertificateBuilder b, KeyPair signer)
            throws OperatorCreationException, GeneralSecurityException {
        ContentSigner s = new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate());
        return new JcaX509CertificateConverter().getCertificate(b.build(s));
    }

    private static String pem(Object o) throws IOException {
        StringWriter w = new StringWriter();
        try (JcaPEMWriter pem = new JcaPEMWriter(w)) {
            pem.writeObject(o);
        }
        return w.toString();
    }
}
