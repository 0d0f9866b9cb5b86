package dev.caravan.kubernetes;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;

/** Pod objects as the API server would report them, for discovery tests. */
final class TestPods {

    private final String namespace;
    private final String name;
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final Map<String, String> annotations = new LinkedHashMap<>();
    private String uid = UUID.randomUUID().toString();
    private String phase = "Running";
    private String ready = "True";
    private String ip = "10.0.0.1";
    private String deletionTimestamp;

    private TestPods(String namespace, String name) {
        this.namespace = namespace;
        this.name = name;
    }

    static TestPods pod(String namespace, String name) {
        return new TestPods(namespace, name);
    }

    TestPods labels(Map<String, String> values) {
        labels.putAll(values);
        return this;
    }

    TestPods label(String key, String value) {
        labels.put(key, value);
        return this;
    }

    TestPods annotation(String key, String value) {
        annotations.put(key, value);
        return this;
    }

    TestPods uid(String value) {
        uid = value;
        return this;
    }

    TestPods phase(String value) {
        phase = value;
        return this;
    }

    /** Sets the Ready condition's status ("True", "False"), or removes the condition with null. */
    TestPods ready(String value) {
        ready = value;
        return this;
    }

    TestPods ip(String value) {
        ip = value;
        return this;
    }

    TestPods terminating() {
        deletionTimestamp = "2026-01-01T00:00:00Z";
        return this;
    }

    Pod build() {
        PodBuilder b = new PodBuilder()
                .withNewMetadata().withNamespace(namespace).withName(name).withUid(uid)
                .withLabels(Map.copyOf(labels)).withAnnotations(Map.copyOf(annotations))
                .withDeletionTimestamp(deletionTimestamp).endMetadata()
                .withNewSpec().addNewContainer().withName("engine").withImage("vllm/vllm-openai").endContainer()
                .endSpec()
                .withNewStatus().withPhase(phase).withPodIP(ip).endStatus();
        if (ready != null) {
            b.editStatus().addToConditions(new PodConditionBuilder().withType("Ready").withStatus(ready).build())
                    .endStatus();
        }
        return b.build();
    }
}
