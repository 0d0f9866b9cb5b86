package dev.caravan.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What {@code ./caravan run} says about API keys given on its command line. */
class GatewayMainTest {

    @Test
    void aLiteralKeyOnTheCommandLineIsWarnedAboutNamingTheBetterPlaces() {
        assertThat(GatewayMain.keysOnCommandLine(new String[] {"--api-key", "sk-1", "--port", "8080"}))
                .containsExactly("--api-key on the command line is visible in the process list and the pod spec: set "
                        + "CARAVAN_API_KEY instead, or in Kubernetes 'caravan.api-key = {{secret:NAME/KEY}}' "
                        + "(docs/kubernetes.md)");
        assertThat(GatewayMain.keysOnCommandLine(new String[] {"--admin-api-key", "sk-2"})).singleElement()
                .asString().startsWith("--admin-api-key on the command line");
    }

    @Test
    void aSecretReferenceOrNoKeyIsNotWarnedAbout() {
        assertThat(GatewayMain.keysOnCommandLine(new String[] {"--api-key", "{{secret:caravan-api-keys/api-key}}"}))
                .isEmpty();
        assertThat(GatewayMain.keysOnCommandLine(new String[] {"--port", "8080"})).isEmpty();
    }
}
