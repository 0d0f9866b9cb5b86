package dev.caravan.it.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.app.GatewayMain;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.processors.config.GatewayConfig;

/**
 * The API keys come from a Kubernetes Secret through Camel's {@code {{secret:name/key}}} property function, against
 * fabric8's mock API server: the way {@code config/k8s} runs the gateway (camel-main, the client configured by
 * {@code camel.kubernetes-config.client.*}) and the way an embedding application does (its own KubernetesClient bean).
 */
@EnableKubernetesMockClient(crud = true, https = false)
class SecretApiKeysIT {

    static KubernetesClient client;

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b.decodeMsPerToken(1).defaultMaxTokens(2));

    private static final String CLIENT_KEY = "sk-client-from-secret";
    private static final String ADMIN_KEY = "sk-admin-from-secret";

    @BeforeAll
    static void createTheSecret() {
        client.secrets().resource(new SecretBuilder().withNewMetadata().withName("caravan-api-keys").endMetadata()
                .addToData("api-key", base64(CLIENT_KEY))
                .addToData("admin-api-key", base64(ADMIN_KEY))
                .build()).create();
    }

    private static String base64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static GatewayConfig keysFromTheSecret() {
        return GatewayHarness.config(SIMS.urls())
                .with(CoreFlags.LOAD_CHECK_INTERVAL, "0")
                .with(CoreFlags.API_KEY, "{{secret:caravan-api-keys/api-key}}")
                .with(CoreFlags.ADMIN_API_KEY, "{{secret:caravan-api-keys/admin-api-key}}");
    }

    /** What config/k8s/application.properties would say outside a cluster: where the API server is. */
    private static Map<String, String> kubernetesClientProperties() {
        return Map.of("camel.kubernetes-config.client.masterUrl", client.getMasterUrl().toString(),
                "camel.kubernetes-config.client.namespace", client.getNamespace(),
                "camel.kubernetes-config.client.trustCerts", "true");
    }

    private static void onlyTheSecretsKeysOpenTheGateway(GatewayClient c) {
        String completion = "{\"prompt\":\"hi\",\"max_tokens\":2}";
        assertThat(c.postJson("/v1/completions", completion).statusCode()).isEqualTo(401);
        assertThat(c.postJson("/v1/completions", completion, "Authorization", "Bearer {{secret:caravan-api-keys/api-key}}")
                .statusCode()).isEqualTo(401);
        assertThat(c.postJson("/v1/completions", completion, "Authorization", "Bearer " + CLIENT_KEY).statusCode())
                .isEqualTo(200);
        assertThat(c.get("/workers", "Authorization", "Bearer " + CLIENT_KEY).statusCode()).isEqualTo(401);
        assertThat(c.get("/workers", "Authorization", "Bearer " + ADMIN_KEY).statusCode()).isEqualTo(200);
    }

    @Test
    void theStandaloneGatewayReadsItsKeysFromTheSecret() throws Exception {
        Main main = GatewayMain.create(keysFromTheSecret(), kubernetesClientProperties());
        main.start();
        try {
            CamelContext camel = main.getCamelContext();
            onlyTheSecretsKeysOpenTheGateway(new GatewayClient("http://127.0.0.1:" + CaravanGateway.port(camel)));
            assertThat(camel.getPropertiesComponent().resolveProperty(CoreFlags.API_KEY.key()))
                    .as("the resolved key is not a Camel property").isEmpty();
        } finally {
            main.stop();
        }
    }

    @Test
    void anEmbeddingApplicationsKubernetesClientServesTheSecret() throws Exception {
        CamelContext camel = new DefaultCamelContext();
        camel.getRegistry().bind("kubernetesClient", client);
        CaravanGateway gateway = CaravanGateway.install(camel, keysFromTheSecret());
        camel.start();
        try {
            onlyTheSecretsKeysOpenTheGateway(new GatewayClient("http://127.0.0.1:" + gateway.port()));
        } finally {
            camel.stop();
        }
    }

    @Test
    void aMissingSecretStopsTheStartNamingTheFlagNotAValue() {
        GatewayConfig missing = keysFromTheSecret().with(CoreFlags.API_KEY, "{{secret:no-such-secret/api-key}}");
        assertThatThrownBy(() -> GatewayMain.create(missing, kubernetesClientProperties()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--api-key: cannot resolve {{secret:no-such-secret/api-key}}")
                .hasMessageNotContaining(CLIENT_KEY).hasMessageNotContaining(ADMIN_KEY);
    }

    @Test
    void apiKeysFromAConfigMapAreRefused() {
        client.configMaps().resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder().withNewMetadata()
                .withName("caravan-config").endMetadata().addToData("api-key", "sk-in-plain-sight").build())
                .createOr(r -> r.update());
        GatewayConfig plain = keysFromTheSecret().with(CoreFlags.API_KEY, "{{configmap:caravan-config/api-key}}");
        assertThatThrownBy(() -> GatewayMain.create(plain, kubernetesClientProperties()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--api-key must come from a Secret ({{secret:name/key}}), not a ConfigMap: "
                        + "{{configmap:caravan-config/api-key}}");
    }
}
