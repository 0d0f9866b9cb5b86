package dev.caravan.kubernetes;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.config.CaravanFlags;

/**
 * What Kubernetes service discovery looks for and how it turns a pod into a worker. Flags follow SGLang's
 * ({@code --selector}, {@code --prefill-selector}, {@code --decode-selector}, {@code --service-discovery-port},
 * {@code --service-discovery-namespace}, {@code --bootstrap-port-annotation}); the annotations for the model id and the
 * KV-event endpoints are Caravan's own.
 *
 * <p>Mode: when either P/D selector is set the fleet is prefill/decode and the role comes from the selector a pod matches
 * (prefill is tried first, as SGLang does); otherwise every pod matching {@link #selector} is a regular worker. Setting
 * both kinds is rejected rather than silently ignoring one.
 *
 * <p>Defaults are those of the flag table ({@code CaravanFlags.DISCOVERY_DEFAULT_*}).
 *
 * @param selector                  regular-mode selector; {@link LabelSelector#NONE} in P/D mode
 * @param prefillSelector           P/D mode: pods that become prefill workers
 * @param decodeSelector            P/D mode: pods that become decode workers
 * @param port                      the engine port on each pod; worker URL is {@code http://podIP:port}.
 * @param namespace                 the only namespace watched, or empty for all namespaces (needs a ClusterRole)
 * @param bootstrapPortAnnotation   annotation holding a prefill pod's KV bootstrap port.
 * @param modelAnnotation           annotation holding the served model id (absent: the model is unknown and the worker
 *                                  serves every request, as SGLang's).
 * @param kvEventsAnnotation        annotation holding the engine's KV-event PUB endpoint.
 * @param kvReplayAnnotation        annotation holding the engine's KV-event replay endpoint.
 * @param resyncInterval            how often the pod list is fetched again and the registry reconciled with it, besides
 *                                  the watch; {@link Duration#ZERO} disables it.
 */
public record DiscoveryConfig(LabelSelector selector, LabelSelector prefillSelector, LabelSelector decodeSelector,
                              int port, String namespace, String bootstrapPortAnnotation, String modelAnnotation,
                              String kvEventsAnnotation, String kvReplayAnnotation, Duration resyncInterval) {

    public DiscoveryConfig {
        selector = selector == null ? LabelSelector.NONE : selector;
        prefillSelector = prefillSelector == null ? LabelSelector.NONE : prefillSelector;
        decodeSelector = decodeSelector == null ? LabelSelector.NONE : decodeSelector;
        namespace = namespace == null ? "" : namespace.trim();
        boolean pd = !prefillSelector.isEmpty() || !decodeSelector.isEmpty();
        if (pd && !selector.isEmpty()) {
            throw new IllegalArgumentException("use either --selector (regular workers) or --prefill-selector/"
                    + "--decode-selector (P/D), not both; selector was '" + selector + "'");
        }
        if (!pd && selector.isEmpty()) {
            throw new IllegalArgumentException("service discovery needs --selector k=v ... or --prefill-selector/"
                    + "--decode-selector; an empty selector would match no pod");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("service discovery port must be in [1,65535], was " + port);
        }
        bootstrapPortAnnotation = annotation("bootstrap port annotation", bootstrapPortAnnotation);
        modelAnnotation = annotation("model annotation", modelAnnotation);
        kvEventsAnnotation = annotation("KV events annotation", kvEventsAnnotation);
        kvReplayAnnotation = annotation("KV replay annotation", kvReplayAnnotation);
        Objects.requireNonNull(resyncInterval, "resyncInterval");
        if (resyncInterval.isNegative()) {
            throw new IllegalArgumentException("resync interval must be >= 0, was " + resyncInterval);
        }
    }

    /** A regular-mode configuration with every other setting at its default. */
    public static DiscoveryConfig regular(Map<String, String> selector) {
        return withDefaults(new LabelSelector(selector), null, null);
    }

    /** A P/D-mode configuration with every other setting at its default. */
    public static DiscoveryConfig prefillDecode(Map<String, String> prefill, Map<String, String> decode) {
        return withDefaults(null, new LabelSelector(prefill), new LabelSelector(decode));
    }

    private static DiscoveryConfig withDefaults(LabelSelector regular, LabelSelector prefill, LabelSelector decode) {
        return new DiscoveryConfig(regular, prefill, decode, DiscoveryFeature.DEFAULT_PORT, "",
                DiscoveryFeature.DEFAULT_BOOTSTRAP_PORT_ANNOTATION, DiscoveryFeature.DEFAULT_MODEL_ANNOTATION,
                DiscoveryFeature.DEFAULT_KV_EVENTS_ANNOTATION, DiscoveryFeature.DEFAULT_KV_REPLAY_ANNOTATION,
                DiscoveryFeature.DEFAULT_RESYNC_INTERVAL);
    }

    public DiscoveryConfig withPort(int newPort) {
        return new DiscoveryConfig(selector, prefillSelector, decodeSelector, newPort, namespace,
                bootstrapPortAnnotation, modelAnnotation, kvEventsAnnotation, kvReplayAnnotation, resyncInterval);
    }

    public DiscoveryConfig withNamespace(String newNamespace) {
        return new DiscoveryConfig(selector, prefillSelector, decodeSelector, port, newNamespace,
                bootstrapPortAnnotation, modelAnnotation, kvEventsAnnotation, kvReplayAnnotation, resyncInterval);
    }

    /** True in prefill/decode mode. */
    public boolean prefillDecodeMode() {
        return !prefillSelector.isEmpty() || !decodeSelector.isEmpty();
    }

    /** True when every namespace is watched. */
    public boolean allNamespaces() {
        return namespace.isEmpty();
    }

    /** The role a pod with these labels plays, or empty when no selector matches it. */
    public Optional<WorkerRole> roleFor(Map<String, String> labels) {
        if (!prefillDecodeMode()) {
            return selector.matches(labels) ? Optional.of(WorkerRole.REGULAR) : Optional.empty();
        }
        if (prefillSelector.matches(labels)) {
            return Optional.of(WorkerRole.PREFILL);
        }
        return decodeSelector.matches(labels) ? Optional.of(WorkerRole.DECODE) : Optional.empty();
    }

    private static String annotation(String what, String value) {
        if (value == null || value.isBlank() || value.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException(what + " must be a Kubernetes annotation key without spaces, was '"
                    + value + "'");
        }
        return value;
    }
}
