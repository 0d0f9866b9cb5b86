package dev.caravan.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodAntiAffinity;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.CheckMetricsAccessProcessor;
import dev.caravan.kubernetes.DiscoveredWorker;
import dev.caravan.kubernetes.DiscoveryFeature;
import dev.caravan.kubernetes.DiscoveryConfig;
import dev.caravan.kubernetes.PodClassifier;
import dev.caravan.kubernetes.PodVerdict;
import dev.caravan.processors.metrics.MetricsFeature;
import dev.caravan.sync.SyncConfig;
import dev.caravan.sync.SyncFeature;

/**
 * The manifests in {@code config/k8s} parse with fabric8's deserializer and agree with each other and with the gateway:
 * RBAC grants exactly get/list/watch on pods and get on the API keys' Secret, the keys are Secret references, the probes
 * hit routes the gateway serves, the drain budget fits the grace period, three gateway replicas spread across nodes
 * under a disruption budget that selects them, and the example engine pod — run through the real {@link PodClassifier}
 * with the ConfigMap's settings —
 * becomes the worker the comments promise. {@code gateway-configmap.yaml} is generated from
 * {@code config/k8s/application.properties} and the built-in routes; regenerate it with
 * {@code mvn -B -pl app -am test -Dtest=KubernetesManifestsTest -Dcaravan.k8s.write=true
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class KubernetesManifestsTest {

    private static final Path K8S = Path.of("..", "config", "k8s");
    /** The built-in routes (module caravan-routes): the gateway's, the Kubernetes and sync modules'. */
    private static final List<Path> ROUTES = List.of(Path.of("..", "routes"));
    private static final KubernetesSerialization YAML = new KubernetesSerialization();
    private static final String CONFIG_MOUNT = "/etc/caravan";

    private static List<HasMetadata> load(String file) throws IOException {
        try (InputStream in = Files.newInputStream(K8S.resolve(file))) {
            Object parsed = YAML.unmarshal(in);
            List<HasMetadata> out = new ArrayList<>();
            if (parsed instanceof List<?> list) {
                list.forEach(o -> out.add((HasMetadata) o));
            } else {
                out.add((HasMetadata) parsed);
            }
            return out;
        }
    }

    private static <T extends HasMetadata> T one(String file, Class<T> type) throws IOException {
        List<T> found = load(file).stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(found).as(type.getSimpleName() + " in " + file).hasSize(1);
        return found.get(0);
    }

    private static Container container(Deployment d) {
        assertThat(d.getSpec().getTemplate().getSpec().getContainers()).hasSize(1);
        return d.getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    private static int port(Container c, String name) {
        return c.getPorts().stream().filter(p -> name.equals(p.getName())).map(ContainerPort::getContainerPort)
                .findFirst().orElseThrow(() -> new AssertionError("no port named " + name));
    }

    private static String env(Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst()
                .orElseThrow(() -> new AssertionError("no env " + name));
    }

    private static String arg(List<String> args, String flag) {
        int i = args.indexOf(flag);
        assertThat(i).as("argument " + flag).isGreaterThanOrEqualTo(0);
        return args.get(i + 1);
    }

    private static Properties gatewayProperties() throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(Files.readString(K8S.resolve("application.properties"), StandardCharsets.UTF_8)));
        return p;
    }

    private static GatewayConfig gatewayConfig(String namespace) throws IOException {
        Map<String, String> props = new TreeMap<>();
        gatewayProperties().forEach((k, v) -> props.put((String) k, (String) v));
        // what CARAVAN_DISCOVERY_NAMESPACE (downward API) adds in the pod
        props.put(DiscoveryFeature.SERVICE_DISCOVERY_NAMESPACE.key(), namespace);
        return GatewayConfig.of(props);
    }

    private static ConfigMap expectedConfigMap() throws IOException {
        Map<String, String> data = new TreeMap<>();
        data.put("application.properties", Files.readString(K8S.resolve("application.properties"),
                StandardCharsets.UTF_8));
        for (Path dir : ROUTES) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".camel.yaml")).toList()) {
                    data.put(f.getFileName().toString(), Files.readString(f, StandardCharsets.UTF_8));
                }
            }
        }
        return new ConfigMapBuilder().withNewMetadata().withName("caravan-config").withNamespace("llm")
                .addToLabels("app.kubernetes.io/name", "caravan").endMetadata().withData(data).build();
    }

    @Test
    void configMapHoldsTheGatewayPropertiesAndEveryBuiltInRoute() throws IOException {
        ConfigMap expected = expectedConfigMap();
        Path file = K8S.resolve("gateway-configmap.yaml");
        if (Boolean.getBoolean("caravan.k8s.write")) {
            Files.writeString(file, "# GENERATED by KubernetesManifestsTest from config/k8s/application.properties and "
                    + "routes/*.camel.yaml.\n# Edit those, then regenerate: mvn -B -pl app -am "
                    + "test -Dtest=KubernetesManifestsTest -Dcaravan.k8s.write=true -Dsurefire.failIfNoSpecifiedTests=false\n"
                    + YAML.asYaml(expected), StandardCharsets.UTF_8);
        }
        ConfigMap actual = one("gateway-configmap.yaml", ConfigMap.class);
        assertThat(actual.getMetadata().getName()).isEqualTo("caravan-config");
        assertThat(actual.getData())
                .as("config/k8s/gateway-configmap.yaml is out of date: run mvn -B -pl app -am test "
                        + "-Dtest=KubernetesManifestsTest -Dcaravan.k8s.write=true -Dsurefire.failIfNoSpecifiedTests=false")
                .isEqualTo(expected.getData());
        assertThat(actual.getData()).containsKey(DiscoveryFeature.ROUTES_FILE);
    }

    @Test
    void everyManifestParsesAndKustomizationListsThem() throws IOException {
        List<String> manifests;
        try (Stream<Path> files = Files.list(K8S)) {
            manifests = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml"))
                    .filter(n -> !n.equals("kustomization.yaml")).sorted().toList();
        }
        assertThat(manifests).hasSizeGreaterThanOrEqualTo(7);
        for (String m : manifests) {
            for (HasMetadata r : load(m)) {
                assertThat(r.getMetadata().getName()).as(m).isNotBlank();
                assertThat(r.getApiVersion()).as(m).isNotBlank();
            }
        }
        JsonNode kustomization;
        try (InputStream in = Files.newInputStream(K8S.resolve("kustomization.yaml"))) {
            kustomization = YAML.unmarshal(in, JsonNode.class);
        }
        List<String> listed = new ArrayList<>();
        kustomization.get("resources").forEach(n -> listed.add(n.asText()));
        assertThat(listed).containsExactlyInAnyOrderElementsOf(manifests.stream()
                .filter(n -> !n.equals("gateway-rbac-cluster.yaml")).toList());
    }

    private static <T extends HasMetadata> T named(String file, Class<T> type, String name) throws IOException {
        return load(file).stream().filter(type::isInstance).map(type::cast)
                .filter(r -> name.equals(r.getMetadata().getName())).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name + " in " + file));
    }

    private static void boundToTheGateway(String roleName, ServiceAccount sa) throws IOException {
        List<RoleBinding> bindings = load("gateway-rbac.yaml").stream().filter(RoleBinding.class::isInstance)
                .map(RoleBinding.class::cast).filter(b -> roleName.equals(b.getRoleRef().getName())).toList();
        assertThat(bindings).as("RoleBinding of " + roleName).singleElement().satisfies(binding -> {
            assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
            assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
                assertThat(s.getKind()).isEqualTo("ServiceAccount");
                assertThat(s.getName()).isEqualTo(sa.getMetadata().getName());
                assertThat(s.getNamespace()).isEqualTo(sa.getMetadata().getNamespace());
            });
        });
    }

    @Test
    void rbacGrantsOnlyGetListWatchOnPods() throws IOException {
        ServiceAccount sa = one("gateway-rbac.yaml", ServiceAccount.class);
        Role role = named("gateway-rbac.yaml", Role.class, "caravan-pod-reader");
        ClusterRole clusterRole = one("gateway-rbac-cluster.yaml", ClusterRole.class);
        for (List<PolicyRule> rules : List.of(role.getRules(), clusterRole.getRules())) {
            assertThat(rules).hasSize(1);
            PolicyRule rule = rules.get(0);
            assertThat(rule.getApiGroups()).containsExactly("");
            assertThat(rule.getResources()).containsExactly("pods");
            assertThat(rule.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch");
            assertThat(rule.getResourceNames()).isEmpty();
        }
        boundToTheGateway(role.getMetadata().getName(), sa);
        ClusterRoleBinding clusterBinding = one("gateway-rbac-cluster.yaml", ClusterRoleBinding.class);
        assertThat(clusterBinding.getRoleRef().getName()).isEqualTo(clusterRole.getMetadata().getName());
        assertThat(clusterBinding.getSubjects()).singleElement()
                .satisfies(s -> assertThat(s.getName()).isEqualTo(sa.getMetadata().getName()));
        Deployment gateway = one("gateway-deployment.yaml", Deployment.class);
        assertThat(gateway.getSpec().getTemplate().getSpec().getServiceAccountName())
                .isEqualTo(sa.getMetadata().getName());
    }

    /**
     * The API keys are {{secret:NAME/KEY}} references in the ConfigMap's properties, the gateway may get exactly that
     * Secret, and no key is an argument or an environment value of the Deployment.
     */
    @Test
    void apiKeysComeFromTheOneSecretTheGatewayMayRead() throws IOException {
        Properties props = gatewayProperties();
        Pattern secretRef = Pattern.compile("\\{\\{secret:([a-z0-9.-]+)/([A-Za-z0-9._-]+)}}");
        Set<String> secrets = new TreeSet<>();
        for (CaravanFlag key : List.of(CoreFlags.API_KEY, CoreFlags.ADMIN_API_KEY, SyncFeature.SYNC_SECRET)) {
            Matcher m = secretRef.matcher(props.getProperty(key.key(), ""));
            assertThat(m.matches()).as(key.key() + " is a {{secret:name/key}} reference").isTrue();
            secrets.add(m.group(1));
        }
        assertThat(secrets).hasSize(1);
        String secret = secrets.iterator().next();

        Role reader = named("gateway-rbac.yaml", Role.class, "caravan-api-keys-reader");
        assertThat(reader.getRules()).singleElement().satisfies(rule -> {
            assertThat(rule.getApiGroups()).containsExactly("");
            assertThat(rule.getResources()).containsExactly("secrets");
            assertThat(rule.getResourceNames()).containsExactly(secret);
            assertThat(rule.getVerbs()).containsExactly("get");
        });
        boundToTheGateway(reader.getMetadata().getName(), one("gateway-rbac.yaml", ServiceAccount.class));

        Container c = container(one("gateway-deployment.yaml", Deployment.class));
        assertThat(c.getArgs()).doesNotContain(CoreFlags.API_KEY.flag(), CoreFlags.ADMIN_API_KEY.flag(),
                SyncFeature.SYNC_SECRET.flag());
        assertThat(c.getEnv()).noneSatisfy(e -> assertThat(e.getName())
                .isIn(CoreFlags.API_KEY.envVar(), CoreFlags.ADMIN_API_KEY.envVar(),
                        SyncFeature.SYNC_SECRET.envVar()));
    }

    @Test
    void gatewayProbesHitTheGatewaysOwnRoutesAndTheGracePeriodCoversTheDrain() throws IOException {
        Deployment gateway = one("gateway-deployment.yaml", Deployment.class);
        Container c = container(gateway);
        GatewayConfig config = gatewayConfig("llm");
        assertThat(port(c, "http")).isEqualTo(config.port());
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/liveness");
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readiness");
        assertThat(c.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
        assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
        String admin = Files.readString(ROUTES.get(0).resolve("admin.camel.yaml"), StandardCharsets.UTF_8);
        assertThat(admin).contains("uri: caravan-http:/liveness").contains("uri: caravan-http:/readiness");

        long shutdownTimeout = Long.parseLong(gatewayProperties().getProperty("camel.main.shutdownTimeout"));
        assertThat(shutdownTimeout).isEqualTo(180);
        List<String> preStop = c.getLifecycle().getPreStop().getExec().getCommand();
        long pause = Long.parseLong(preStop.get(preStop.size() - 1).replace("sleep", "").trim());
        assertThat(gateway.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
                .isGreaterThan(pause + shutdownTimeout);

        PodSpec pod = gateway.getSpec().getTemplate().getSpec();
        assertThat(c.getArgs()).containsExactly("run", "--config", CONFIG_MOUNT + "/application.properties",
                "--routes", CONFIG_MOUNT);
        assertThat(c.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo(CONFIG_MOUNT);
            assertThat(pod.getVolumes()).anySatisfy(v -> {
                assertThat(v.getName()).isEqualTo(m.getName());
                assertThat(v.getConfigMap().getName()).isEqualTo("caravan-config");
            });
        });
        assertThat(c.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo(DiscoveryFeature.SERVICE_DISCOVERY_NAMESPACE.envVar());
            assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.namespace");
        });

        Service service = one("gateway-service.yaml", Service.class);
        assertThat(gateway.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(service.getSpec().getSelector());
        assertThat(service.getSpec().getPorts()).singleElement()
                .satisfies(p -> assertThat(p.getTargetPort().getStrVal()).isEqualTo("http"));
    }

    /**
     * The replicas sync with Kubernetes discovery: the ConfigMap's sync settings pass the gateway's validation and the
     * sync module's own rules, name the headless service of gateway-sync.yaml, and listen on the port that service and
     * the NetworkPolicy open, declared on the container; no static member list, no multicast.
     */
    @Test
    void replicasSyncThroughKubernetesDiscoveryOfTheHeadlessService() throws IOException {
        GatewayConfig config = gatewayConfig("llm");
        assertThat(config.get(CoreFlags.SYNC_MODE)).isEqualTo(CoreFlags.SYNC_HAZELCAST);
        SyncConfig sync = SyncConfig.from(config);
        assertThat(sync.kubernetes()).isTrue();
        assertThat(sync.members()).isEmpty();
        assertThat(sync.keyedByClusterName()).as("a secret keys the shared hashes").isFalse();
        Service service = one("gateway-sync.yaml", Service.class);
        assertThat(sync.kubernetesService()).isEqualTo(service.getMetadata().getName());
        assertThat(service.getMetadata().getNamespace()).isEqualTo("llm");
        assertThat(service.getSpec().getPorts()).singleElement()
                .satisfies(p -> assertThat(p.getTargetPort().getIntVal()).isEqualTo(sync.port()));
        Container c = container(one("gateway-deployment.yaml", Deployment.class));
        assertThat(port(c, "sync")).isEqualTo(sync.port());
        assertThat(one("gateway-deployment.yaml", Deployment.class).getSpec().getReplicas()).isGreaterThan(1);
    }

    @Test
    void syncPortIsOpenOnlyToGatewayPodsAndDiscoveryMayOnlyRead() throws IOException {
        Service sync = one("gateway-sync.yaml", Service.class);
        assertThat(sync.getMetadata().getName()).isEqualTo(SyncFeature.DEFAULT_KUBERNETES_SERVICE);
        assertThat(sync.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(sync.getSpec().getPorts().get(0).getPort()).isEqualTo(SyncFeature.DEFAULT_PORT);
        Map<String, String> gatewayPods = Map.of("app.kubernetes.io/name", "caravan");
        assertThat(sync.getSpec().getSelector()).isEqualTo(gatewayPods);
        NetworkPolicy policy = networkPolicy();
        assertThat(policy.getSpec().getPodSelector().getMatchLabels()).isEqualTo(gatewayPods);
        NetworkPolicyPeer peer = onlyPeer(policy, SyncFeature.DEFAULT_PORT);
        assertThat(peer.getPodSelector().getMatchLabels()).isEqualTo(gatewayPods);
        assertThat(peer.getNamespaceSelector()).isNull();
        Role role = one("gateway-sync.yaml", Role.class);
        assertThat(role.getRules()).allSatisfy(r -> assertThat(r.getVerbs()).containsExactly("get", "list"));
    }

    private static NetworkPolicy networkPolicy() throws IOException {
        NetworkPolicy policy = one("gateway-network-policy.yaml", NetworkPolicy.class);
        assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
        return policy;
    }

    /** The rules that open {@code port}: exactly one, and the one peer it admits. */
    private static NetworkPolicyPeer onlyPeer(NetworkPolicy policy, int port) {
        List<NetworkPolicyIngressRule> rules = rulesFor(policy, port);
        assertThat(rules).as("rules opening " + port).hasSize(1);
        assertThat(rules.get(0).getFrom()).as("peers of " + port).hasSize(1);
        return rules.get(0).getFrom().get(0);
    }

    private static List<NetworkPolicyIngressRule> rulesFor(NetworkPolicy policy, int port) {
        return policy.getSpec().getIngress().stream()
                .filter(r -> r.getPorts().stream().anyMatch(p -> p.getPort().getIntVal() == port)).toList();
    }

    /**
     * Prometheus scrapes the metrics listener, not the gateway's port: the pod's scrape annotations name the port the
     * gateway's configuration gives the listener, declared on the container, and the NetworkPolicy admits only the
     * monitoring namespace to it; the client port is open to everyone, and its /metrics needs the keys the gateway
     * has.
     */
    @Test
    void prometheusScrapesTheMetricsListenerWhichOnlyTheMonitoringNamespaceReaches() throws IOException {
        GatewayConfig config = gatewayConfig("llm");
        int metricsPort = config.getInt(MetricsFeature.PROMETHEUS_PORT);
        assertThat(metricsPort).isEqualTo(29000).isNotEqualTo(config.port());
        Deployment gateway = one("gateway-deployment.yaml", Deployment.class);
        assertThat(gateway.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry("prometheus.io/scrape", "true")
                .containsEntry("prometheus.io/port", Integer.toString(metricsPort))
                .containsEntry("prometheus.io/path", "/metrics");
        assertThat(port(container(gateway), "metrics")).isEqualTo(metricsPort);

        NetworkPolicy policy = networkPolicy();
        NetworkPolicyPeer scraper = onlyPeer(policy, metricsPort);
        assertThat(scraper.getNamespaceSelector().getMatchLabels())
                .isEqualTo(Map.of("kubernetes.io/metadata.name", "monitoring"));
        assertThat(scraper.getPodSelector()).isNull();
        List<NetworkPolicyIngressRule> clients = rulesFor(policy, config.port());
        assertThat(clients).as("rules opening " + config.port()).singleElement()
                .satisfies(r -> assertThat(r.getFrom()).as("every client").isEmpty());
        assertThat(policy.getSpec().getIngress()).as("every rule names its ports")
                .allSatisfy(r -> assertThat(r.getPorts()).isNotEmpty());
        assertThat(policy.getSpec().getIngress().stream().flatMap(r -> r.getPorts().stream())
                .map(p -> p.getPort().getIntVal()))
                .containsExactlyInAnyOrder(config.port(), metricsPort, SyncFeature.DEFAULT_PORT);

        assertThat(config.get(MetricsFeature.PORT_METRICS)).isEqualTo(CheckMetricsAccessProcessor.GUARDED);
        assertThat(config.apiKey()).as("the http port's /metrics is behind a key").isNotNull();
    }

    @Test
    void threeGatewayReplicasSpreadAcrossNodesAndADisruptionBudgetKeepsTwo() throws IOException {
        Deployment gateway = one("gateway-deployment.yaml", Deployment.class);
        int replicas = gateway.getSpec().getReplicas();
        assertThat(replicas).isEqualTo(3);
        assertThat(gateway.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal()).isZero();
        assertThat(gateway.getSpec().getStrategy().getRollingUpdate().getMaxSurge().getIntVal()).isEqualTo(1);
        Map<String, String> podLabels = gateway.getSpec().getTemplate().getMetadata().getLabels();

        PodDisruptionBudget pdb = one("gateway-pdb.yaml", PodDisruptionBudget.class);
        assertThat(pdb.getMetadata().getNamespace()).isEqualTo(gateway.getMetadata().getNamespace());
        assertThat(pdb.getSpec().getSelector().getMatchExpressions()).isEmpty();
        assertThat(podLabels).containsAllEntriesOf(pdb.getSpec().getSelector().getMatchLabels());
        Deployment engine = one("vllm-engine.yaml", Deployment.class);
        assertThat(engine.getSpec().getTemplate().getMetadata().getLabels().entrySet()
                .containsAll(pdb.getSpec().getSelector().getMatchLabels().entrySet()))
                .as("the budget selects the engine pods").isFalse();
        // minAvailable 2 of 3: one replica may be evicted at a time, and never the last two
        assertThat(pdb.getSpec().getMaxUnavailable()).isNull();
        assertThat(pdb.getSpec().getMinAvailable().getIntVal()).isEqualTo(replicas - 1);

        PodAntiAffinity anti = gateway.getSpec().getTemplate().getSpec().getAffinity().getPodAntiAffinity();
        assertThat(anti.getRequiredDuringSchedulingIgnoredDuringExecution()).isEmpty();
        assertThat(anti.getPreferredDuringSchedulingIgnoredDuringExecution()).singleElement().satisfies(t -> {
            assertThat(t.getPodAffinityTerm().getTopologyKey()).isEqualTo("kubernetes.io/hostname");
            assertThat(podLabels).containsAllEntriesOf(t.getPodAffinityTerm().getLabelSelector().getMatchLabels());
        });
    }

    @Test
    void exampleEnginePodBecomesTheWorkerTheGatewayConfigDescribes() throws IOException {
        Deployment engine = one("vllm-engine.yaml", Deployment.class);
        Deployment gateway = one("gateway-deployment.yaml", Deployment.class);
        assertThat(engine.getMetadata().getNamespace()).isEqualTo(gateway.getMetadata().getNamespace());
        assertThat(engine.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(engine.getSpec().getSelector().getMatchLabels());

        GatewayConfig config = gatewayConfig(engine.getMetadata().getNamespace());
        assertThat(new DiscoveryFeature().enabled(config)).isTrue();
        DiscoveryConfig discovery = DiscoveryFeature.discoveryConfig(config);
        Container vllm = container(engine);
        assertThat(port(vllm, "http")).isEqualTo(discovery.port());
        assertThat(arg(vllm.getArgs(), "--port")).isEqualTo(Integer.toString(discovery.port()));
        assertThat(vllm.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/health");
        assertThat(vllm.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");

        Pod running = new PodBuilder()
                .withMetadata(engine.getSpec().getTemplate().getMetadata()).editMetadata()
                .withNamespace(engine.getMetadata().getNamespace()).withName("vllm-0").withUid("u-0").endMetadata()
                .withSpec(engine.getSpec().getTemplate().getSpec())
                .withNewStatus().withPhase("Running").withPodIP("10.0.3.7")
                .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build();
        PodVerdict verdict = new PodClassifier(discovery).classify(running);
        assertThat(verdict).isInstanceOf(PodVerdict.Eligible.class);
        DiscoveredWorker w = ((PodVerdict.Eligible) verdict).worker();
        assertThat(w.url()).isEqualTo("http://10.0.3.7:8000");
        assertThat(w.role()).isEqualTo(WorkerRole.REGULAR);
        assertThat(w.modelId()).isEqualTo(arg(vllm.getArgs(), "--served-model-name"));

        JsonNode kv = new ObjectMapper().readTree(arg(vllm.getArgs(), "--kv-events-config"));
        assertThat(kv.get("enable_kv_cache_events").asBoolean()).isTrue();
        assertThat(kv.get("publisher").asText()).isEqualTo("zmq");
        assertThat(kv.get("endpoint").asText()).isEqualTo("tcp://*:" + port(vllm, "kv-events"));
        assertThat(kv.get("replay_endpoint").asText()).isEqualTo("tcp://*:" + port(vllm, "kv-replay"));
        assertThat(w.kvEventsEndpoint()).isEqualTo("tcp://10.0.3.7:" + port(vllm, "kv-events"));
        assertThat(w.kvReplayEndpoint()).isEqualTo("tcp://10.0.3.7:" + port(vllm, "kv-replay"));
        // the gateway keys blocks by token ids: stock hashing, no seed; engines report cached tokens
        assertThat(vllm.getArgs()).doesNotContain("--prefix-caching-hash-algo").contains("--enable-prompt-tokens-details");

        Pod loading = new PodBuilder(running).editStatus().editFirstCondition().withStatus("False").endCondition()
                .endStatus().build();
        assertThat(new PodClassifier(discovery).classify(loading)).isInstanceOf(PodVerdict.Ineligible.class);
    }
}
