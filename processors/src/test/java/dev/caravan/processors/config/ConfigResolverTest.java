package dev.caravan.processors.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.caravan.processors.routing.RoutingFeature;

class ConfigResolverTest {

    @TempDir
    Path dir;

    private void write(String relative, String content) throws IOException {
        Path p = dir.resolve(relative);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    @Test
    void defaultsApplyWhenNothingIsSet() {
        ConfigResolver.Resolved r = ConfigResolver.resolve(new String[0], Map.of(), dir);
        assertThat(r.config().port()).isEqualTo(GatewayConfig.DEFAULT_PORT);
        assertThat(r.config().policyName()).isEqualTo("cache_aware");
        assertThat(r.sources()).containsExactly("defaults");
    }

    @Test
    void flagsBeatEnvironmentBeatConfigFileBeatDefaultFile() throws IOException {
        write("config/application.properties", "caravan.port=1001\ncaravan.host=10.0.0.1\n"
                + "caravan.log-level=warn\ncaravan.policy.name=random\ncamel.main.name=fromDefaultFile\n");
        write("my.properties", "caravan.port=1002\ncaravan.host=10.0.0.2\ncaravan.log-level=error\n"
                + "camel.main.name=fromConfigFile\n");
        Map<String, String> env = Map.of("CARAVAN_PORT", "1003", "CARAVAN_HOST", "10.0.0.3");

        ConfigResolver.Resolved r = ConfigResolver.resolve(new String[] {"--config", "my.properties", "--port", "1004"},
                env, dir);

        assertThat(r.config().port()).isEqualTo(1004);                      // flag
        assertThat(r.config().host()).isEqualTo("10.0.0.3");                // environment
        assertThat(r.config().get(CoreFlags.LOG_LEVEL)).isEqualTo("error"); // --config file
        assertThat(r.config().policyName()).isEqualTo("random");            // config/application.properties
        assertThat(r.others()).containsEntry("camel.main.name", "fromConfigFile");
        assertThat(r.sources()).hasSize(5).endsWith("environment", "command line");
    }

    @Test
    void configFileMayComeFromTheEnvironment() throws IOException {
        write("env.properties", "caravan.port=2002\n");
        ConfigResolver.Resolved r = ConfigResolver.resolve(new String[0], Map.of("CARAVAN_CONFIG", "env.properties"),
                dir);
        assertThat(r.config().port()).isEqualTo(2002);
    }

    @Test
    void missingConfigFileIsAnError() {
        assertThatThrownBy(() -> ConfigResolver.resolve(new String[] {"--config", "nope.properties"}, Map.of(), dir))
                .hasMessageContaining("--config file not found");
    }

    @Test
    void invalidEnvironmentValueIsNamed() {
        assertThatThrownBy(() -> ConfigResolver.resolve(new String[0], Map.of("CARAVAN_PORT", "http"), dir))
                .hasMessage("--port (caravan.port) must be an integer in [0, 65535], was 'http'");
    }

    @Test
    void environmentVariableNamesFollowTheKey() {
        assertThat(RoutingFeature.CACHE_THRESHOLD.envVar()).isEqualTo("CARAVAN_POLICY_CACHE_THRESHOLD");
        assertThat(CoreFlags.PORT.envVar()).isEqualTo("CARAVAN_PORT");
    }
}
