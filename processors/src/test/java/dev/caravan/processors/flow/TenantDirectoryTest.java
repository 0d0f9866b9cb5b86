package dev.caravan.processors.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TenantDirectoryTest {

    @TempDir
    Path dir;

    private final List<String> reloads = new ArrayList<>();

    private Path write(String text, long mtimeSeconds) throws IOException {
        Path file = dir.resolve("tenants.yaml");
        Files.writeString(file, text);
        Files.setLastModifiedTime(file, FileTime.fromMillis(mtimeSeconds * 1000));
        return file;
    }

    private TenantDirectory load(Path file) {
        return TenantDirectory.load(file, (ok, current) -> reloads.add((ok ? "ok " : "failed ")
                + current.tenants().keySet()));
    }

    @Test
    void aChangedFileIsReadAgain() throws IOException {
        TenantDirectory d = load(write("tenants: { acme: { apiKeys: [k1] } }", 1000));
        assertThat(d.reloadIfChanged()).as("unchanged").isFalse();

        write("tenants: { acme: { apiKeys: [k1] }, globex: { apiKeys: [k2] } }", 2000);

        assertThat(d.reloadIfChanged()).isTrue();
        assertThat(d.current().resolve("Bearer k2", null).name()).isEqualTo("globex");
        assertThat(reloads).containsExactly("ok [acme, globex]");
        assertThat(d.reloadIfChanged()).isFalse();
    }

    @Test
    void aBadFileIsCountedAndTheTenantsBeforeStayInForce() throws IOException {
        TenantDirectory d = load(write("tenants: { acme: { apiKeys: [k1] } }", 1000));

        write("tenants: { acme: { apiKeys: [k1], requestsPerMinut: 5 } }", 2000);

        assertThat(d.reloadIfChanged()).isFalse();
        assertThat(d.current().resolve("Bearer k1", null).name()).isEqualTo("acme");
        assertThat(reloads).containsExactly("failed [acme]");
        assertThat(d.reloadIfChanged()).as("tried once per change").isFalse();
        assertThat(reloads).hasSize(1);

        write("tenants: { acme: { apiKeys: [k1], requestsPerMinute: 5 } }", 3000);
        assertThat(d.reloadIfChanged()).isTrue();
        assertThat(d.current().tenants().get("acme").limits().requestsPerMinute()).isEqualTo(5);
    }

    @Test
    void aMissingFileLeavesTheTenantsInForce() throws IOException {
        Path file = write("tenants: { acme: {} }", 1000);
        TenantDirectory d = load(file);
        Files.delete(file);

        assertThat(d.reloadIfChanged()).isFalse();
        assertThat(d.current().tenants()).containsOnlyKeys("acme");
        assertThat(reloads).containsExactly("failed [acme]");
    }

    @Test
    void aBadFileAtStartUpIsAnErrorNamingTheFile() throws IOException {
        Path file = write("tenants: { other: {} }", 1000);
        assertThatThrownBy(() -> load(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("tenants file " + file + ": tenant name 'other' is reserved");
    }

    @Test
    void withoutAFileEveryoneIsOther() {
        TenantDirectory d = TenantDirectory.none();
        assertThat(d.reloadIfChanged()).isFalse();
        assertThat(d.current().resolve("Bearer anything", "acme")).isEqualTo(Tenant.OTHER);
    }
}
