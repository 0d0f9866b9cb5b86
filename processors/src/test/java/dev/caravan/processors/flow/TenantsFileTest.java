package dev.caravan.processors.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

class TenantsFileTest {

    static final String YAML = """
            trustTenantHeader: true
            classes:
              interactive: { priority: 0, queueTimeoutSecs: 10 }
              batch: { priority: 1 }
            defaultTenant:
              class: batch
              requestsPerMinute: 60
            tenants:
              acme:
                class: interactive
                apiKeys: [ "sk-acme-1", "sk-acme-2" ]
                requestsPerMinute: 600
                inputTokensPerMinute: 200000
                outputTokensPerMinute: 50000
              globex:
                class: batch
                apiKeys: [ "sk-globex" ]
            """;

    @Test
    void readsClassesTenantsKeysAndLimits() {
        TenantsConfig c = TenantsFile.parse(YAML);

        Tenant acme = c.tenants().get("acme");
        assertThat(acme.tenantClass()).isEqualTo(new TenantClass("interactive", 0, Duration.ofSeconds(10)));
        assertThat(acme.limits()).isEqualTo(new TenantLimits(600, 200000, 50000));
        assertThat(c.tenants().get("globex").limits()).isEqualTo(TenantLimits.NONE);
        assertThat(c.fallback()).isEqualTo(new Tenant("other", new TenantClass("batch", 1, null),
                new TenantLimits(60, -1, -1)));
        assertThat(c.resolve("Bearer sk-acme-2", null)).isSameAs(acme);
        assertThat(c.resolve("Bearer sk-nobody", null)).isSameAs(c.fallback());
        assertThat(c.resolve(null, null)).isSameAs(c.fallback());
    }

    @Test
    void jsonIsReadToo() {
        TenantsConfig c = TenantsFile.parse("{\"tenants\":{\"acme\":{\"apiKeys\":[\"k\"],\"requestsPerMinute\":5}}}");
        assertThat(c.resolve("Bearer k", null).name()).isEqualTo("acme");
        assertThat(c.resolve("Bearer k", null).tenantClass()).isEqualTo(TenantClass.DEFAULT);
        assertThat(c.trustTenantHeader()).isFalse();
    }

    @Test
    void theTenantHeaderNamesTheTenantOnlyWhenTheFileTrustsIt() {
        TenantsConfig trusted = TenantsFile.parse(YAML);
        TenantsConfig untrusted = TenantsFile.parse(YAML.replace("trustTenantHeader: true", "trustTenantHeader: false"));

        assertThat(trusted.resolve(null, "acme").name()).isEqualTo("acme");
        assertThat(trusted.resolve("Bearer sk-globex", "acme").name()).as("the proxy's word wins").isEqualTo("acme");
        assertThat(trusted.resolve(null, "initech").name()).as("not a tenant of the file").isEqualTo("other");
        assertThat(untrusted.resolve(null, "acme").name()).isEqualTo("other");
        assertThat(untrusted.resolve("Bearer sk-globex", "acme").name()).isEqualTo("globex");
    }

    @Test
    void theKeysAreNotKept() {
        assertThat(TenantsFile.parse(YAML).toString()).doesNotContain("sk-acme");
        assertThat(TenantsFile.parse(YAML).byKeyDigest().keySet()).noneMatch(k -> k.contains("sk-"));
    }

    @Test
    void anUnknownFieldIsAnErrorNotASilentlyMissingLimit() {
        assertThatThrownBy(() -> TenantsFile.parse(YAML.replace("requestsPerMinute: 600", "requestPerMinute: 600")))
                .hasMessage("tenant acme: unknown field 'requestPerMinute' (known: "
                        + "[apiKeys, class, inputTokensPerMinute, outputTokensPerMinute, requestsPerMinute])");
    }

    @Test
    void anUndeclaredClassIsAnError() {
        assertThatThrownBy(() -> TenantsFile.parse("tenants: { acme: { class: gold } }"))
                .hasMessage("tenant acme: class gold is not declared under classes");
    }

    @Test
    void oneKeyForTwoTenantsIsAnError() {
        assertThatThrownBy(() -> TenantsFile.parse(YAML.replace("\"sk-globex\"", "\"sk-acme-1\"")))
                .hasMessage("tenant globex: an API key of tenant acme is given again");
    }

    @Test
    void otherIsReservedForUnknownCallers() {
        assertThatThrownBy(() -> TenantsFile.parse("tenants: { other: {} }"))
                .hasMessageContaining("'other' is reserved");
    }

    @Test
    void limitsAndTimeoutsAreChecked() {
        assertThatThrownBy(() -> TenantsFile.parse("tenants: { acme: { requestsPerMinute: 0 } }"))
                .hasMessage("tenant acme: requestsPerMinute must be -1 (unlimited) or >= 1, was 0");
        assertThatThrownBy(() -> TenantsFile.parse("classes: { slow: { queueTimeoutSecs: 0 } }"))
                .hasMessage("class slow: queueTimeoutSecs must be >= 1, was 0");
        assertThatThrownBy(() -> TenantsFile.parse("classes: { slow: { priority: -1 } }"))
                .hasMessage("class slow: priority must be >= 0, was -1");
        assertThatThrownBy(() -> TenantsFile.parse("tenants: { acme: { requestsPerMinute: many } }"))
                .hasMessage("tenant acme: requestsPerMinute must be a whole number, was \"many\"");
    }

    @Test
    void brokenYamlSaysSo() {
        assertThatThrownBy(() -> TenantsFile.parse("tenants: [ unclosed")).hasMessageStartingWith("not YAML or JSON: ");
        assertThatThrownBy(() -> TenantsFile.parse("")).hasMessage("empty");
    }

    @Test
    void theExampleFileParses() throws Exception {
        Path example = Path.of("..", "config", "examples", "tenants.yaml");
        TenantsConfig c = TenantsFile.read(example);
        assertThat(c.tenants()).isNotEmpty();
        assertThat(Files.readString(example)).contains("trustTenantHeader");
    }
}
