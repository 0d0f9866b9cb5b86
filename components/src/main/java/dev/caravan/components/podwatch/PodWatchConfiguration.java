package dev.caravan.components.podwatch;

import java.time.Duration;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.apache.camel.RuntimeCamelException;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriParams;
import org.apache.camel.spi.UriPath;

/**
 * Every option of a {@code pod-watch:} endpoint, declared once: the javadoc on each setter is its description in the
 * generated catalog (in plain words: Camel's sanitizer drops {@code *}, {@code @}, {@code <>} and {@code []}), and each
 * default is a {@code DEFAULT_*} constant used by both the annotation and the field ({@code PodWatchCatalogTest} checks
 * the catalog against a fresh instance). Mutable only while the endpoint is configured; the component hands every
 * endpoint its own {@link #copy()}.
 */
@UriParams
public class PodWatchConfiguration implements Cloneable {

    /** Default {@link #setNamespace namespace}: empty, i.e. every namespace. */
    public static final String DEFAULT_NAMESPACE = "";
    /** Default {@link #setResyncInterval resync interval}, ms: SGLang restarts its pod watcher every 120 s. */
    public static final long DEFAULT_RESYNC_INTERVAL_MS = 120_000;
    /** Default {@link #setBackoffInitial first back-off}, ms (SGLang's discovery starts at 1 s too). */
    public static final long DEFAULT_BACKOFF_INITIAL_MS = 1_000;
    /** Default {@link #setBackoffMax back-off cap}, ms: short enough to notice a recovered API server quickly. */
    public static final long DEFAULT_BACKOFF_MAX_MS = 30_000;

    @UriPath
    @Metadata(required = true)
    private String name;
    @UriParam(label = "consumer", defaultValue = DEFAULT_NAMESPACE)
    private String namespace = DEFAULT_NAMESPACE;
    @UriParam(label = "consumer", javaType = "java.time.Duration", defaultValue = "" + DEFAULT_RESYNC_INTERVAL_MS)
    private Duration resyncInterval = Duration.ofMillis(DEFAULT_RESYNC_INTERVAL_MS);
    @UriParam(label = "advanced", javaType = "java.time.Duration", defaultValue = "" + DEFAULT_BACKOFF_INITIAL_MS)
    private Duration backoffInitial = Duration.ofMillis(DEFAULT_BACKOFF_INITIAL_MS);
    @UriParam(label = "advanced", javaType = "java.time.Duration", defaultValue = "" + DEFAULT_BACKOFF_MAX_MS)
    private Duration backoffMax = Duration.ofMillis(DEFAULT_BACKOFF_MAX_MS);
    @UriParam(label = "advanced")
    private KubernetesClient kubernetesClient;
    @UriParam(label = "advanced")
    private PodWatchListener watchListener;

    public String getName() {
        return name;
    }

    /** A name for the watch, used in logs and thread names. */
    public void setName(String name) {
        this.name = name;
    }

    public String getNamespace() {
        return namespace;
    }

    /** The namespace whose pods are watched; empty (the default) watches every namespace, which needs a ClusterRole. */
    public void setNamespace(String namespace) {
        this.namespace = namespace == null ? "" : namespace.trim();
    }

    public Duration getResyncInterval() {
        return resyncInterval;
    }

    /**
     * How often the pods are listed again and the watch restarted, besides restarts on failure (milliseconds or a
     * duration); each list is emitted as a SNAPSHOT. Zero disables the periodic resync.
     */
    public void setResyncInterval(Duration resyncInterval) {
        this.resyncInterval = resyncInterval;
    }

    public Duration getBackoffInitial() {
        return backoffInitial;
    }

    /**
     * Delay before the first re-list after a watch failure (milliseconds or a duration); it doubles with every
     * consecutive failure.
     */
    public void setBackoffInitial(Duration backoffInitial) {
        this.backoffInitial = backoffInitial;
    }

    public Duration getBackoffMax() {
        return backoffMax;
    }

    /** Upper bound of the re-list back-off (milliseconds or a duration). */
    public void setBackoffMax(Duration backoffMax) {
        this.backoffMax = backoffMax;
    }

    public KubernetesClient getKubernetesClient() {
        return kubernetesClient;
    }

    /**
     * The fabric8 client to use, e.g. the bean reference #kubernetesClient. When unset, the only KubernetesClient in the
     * Camel registry is used, else the consumer builds one from the environment (in-cluster service account, else
     * kubeconfig) and closes it on stop.
     */
    public void setKubernetesClient(KubernetesClient kubernetesClient) {
        this.kubernetesClient = kubernetesClient;
    }

    public PodWatchListener getWatchListener() {
        return watchListener;
    }

    /** Told about watch restarts and re-establishment, e.g. the bean reference #discoveryMetrics. */
    public void setWatchListener(PodWatchListener watchListener) {
        this.watchListener = watchListener;
    }

    /** Checks the option values; the message names the bad option and value. */
    public void validate() {
        requireNonNegative("resyncInterval", resyncInterval);
        requirePositive("backoffInitial", backoffInitial);
        requirePositive("backoffMax", backoffMax);
        if (backoffMax.compareTo(backoffInitial) < 0) {
            throw new IllegalArgumentException("backoffMax must be >= backoffInitial, was " + backoffMax + " < "
                    + backoffInitial);
        }
    }

    private static void requireNonNegative(String option, Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(option + " must be >= 0, was " + d);
        }
    }

    private static void requirePositive(String option, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(option + " must be > 0, was " + d);
        }
    }

    public PodWatchConfiguration copy() {
        try {
            return (PodWatchConfiguration) clone();
        } catch (CloneNotSupportedException e) {
            throw new RuntimeCamelException(e);
        }
    }
}
