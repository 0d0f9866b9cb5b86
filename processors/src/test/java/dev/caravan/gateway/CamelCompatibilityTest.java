package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** Which Camel versions the gateway accepts, and what it says about the others. */
class CamelCompatibilityTest {

    private static Map<String, String> versions(String core, String vertx) {
        Map<String, String> found = new LinkedHashMap<>();
        found.put("camel-core", core);
        found.put("camel-platform-http-vertx", vertx);
        return found;
    }

    @Test
    void rejectsCamel414NamingTheVersionsFoundAndRequired() {
        assertThatThrownBy(() -> CamelCompatibility.check(versions("4.14.0", "4.14.0")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Caravan gateway needs Apache Camel [4.18.0,5) (4.x from 4.18.0; built and tested with "
                        + "4.18.0), found 4.14.0 (camel-core, camel-platform-http-vertx). Align the application's Camel "
                        + "version, e.g. import org.apache.camel:camel-bom:4.18.0");
    }

    @Test
    void rejectsAnArtifactPinnedBelowTheRangeEvenWhenCoreFits() {
        assertThatThrownBy(() -> CamelCompatibility.check(versions("4.18.0", "4.17.3")))
                .hasMessageContaining("found 4.18.0 (camel-core) and 4.17.3 (camel-platform-http-vertx)");
    }

    @Test
    void rejectsAnotherMajorVersionAndVersionsThatDoNotParse() {
        assertThat(CamelCompatibility.compare("5.0.0")).isEqualTo(-1);
        assertThat(CamelCompatibility.compare("3.22.4")).isEqualTo(-1);
        assertThat(CamelCompatibility.compare("unknown")).isEqualTo(-1);
        assertThat(CamelCompatibility.compare(null)).isEqualTo(-1);
    }

    @Test
    void accepts418PatchesAndVendorSuffixesAndFlagsLaterMinorsAsUntested() {
        assertThat(CamelCompatibility.compare("4.18.0")).isZero();
        assertThat(CamelCompatibility.compare("4.18.3")).isZero();
        assertThat(CamelCompatibility.compare("4.18.1.redhat-00001")).isZero();
        assertThat(CamelCompatibility.compare("4.18.1-SNAPSHOT")).isZero();
        assertThat(CamelCompatibility.compare("4.19.0")).isEqualTo(1);
        assertThatCode(() -> CamelCompatibility.check(versions("4.19.0", "4.19.0"))).doesNotThrowAnyException();
    }

    @Test
    void theTestedVersionIsTheCamelThisBuildRunsOn() {
        assertThat(new DefaultCamelContext().getVersion()).isEqualTo(CamelCompatibility.TESTED);
        assertThat(CamelCompatibility.artifactVersions(getClass().getClassLoader()))
                .containsEntry("camel-platform-http-vertx", CamelCompatibility.TESTED)
                .containsEntry("camel-yaml-dsl", CamelCompatibility.TESTED)
                .hasSize(CamelCompatibility.ARTIFACTS.size());
    }
}
