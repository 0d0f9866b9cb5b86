package dev.caravan.processors.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.caravan.processors.FuzzOracle;

/**
 * Fuzz target: the tenants file ({@code --tenants-file}) as the {@code tenants-reload} route reads it again
 * ({@code reloadTenants}: {@link TenantDirectory#reloadIfChanged()}, {@link TenantsFile}), from a real file.
 *
 * <p>Input: the file's bytes. Oracle: the step never throws (a bad file is logged and counted); either the new tenants
 * are in force or, when the file is rejected, exactly the ones before stay; the thread allocates within the
 * {@link FuzzOracle} bound; and afterwards a known file still loads with its tenants. Regression inputs:
 * {@code TenantsFileFuzzTestInputs/tenantsFile/}.
 */
class TenantsFileFuzzTest {

    static final String KNOWN = "classes:\n  interactive: { priority: 0, queueTimeoutSecs: 10 }\n"
            + "tenants:\n  acme: { class: interactive, apiKeys: [ sk-acme ], requestsPerMinute: 600 }\n";
    static final AtomicLong MTIME = new AtomicLong(1_000_000);
    static final AtomicInteger REJECTED = new AtomicInteger();

    static Path dir;
    static Path file;
    static TenantDirectory directory;
    static ReloadTenantsProcessor reload;

    @BeforeAll
    static void start() throws IOException {
        dir = Files.createTempDirectory("tenants-fuzz");
        file = dir.resolve("tenants.yaml");
        write(KNOWN.getBytes(StandardCharsets.UTF_8));
        directory = TenantDirectory.load(file, (ok, config) -> {
            if (!ok) {
                REJECTED.incrementAndGet();
            }
        });
        reload = new ReloadTenantsProcessor(directory);
        write("tenants: [".getBytes(StandardCharsets.UTF_8)); // warm-up of the rejecting path, outside any input
        reload.process(null);
    }

    @AfterAll
    static void stop() throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }

    @FuzzTest(maxDuration = "60s")
    void tenantsFile(byte[] input) throws Exception {
        TenantsConfig before = directory.current();
        int rejectedBefore = REJECTED.get();
        write(input);
        FuzzOracle.allocationOf(input.length, () -> reload.process(null));
        if (REJECTED.get() > rejectedBefore) {
            assertThat(directory.current()).isSameAs(before);
        } else {
            assertThat(directory.current()).isNotSameAs(before);
        }
        write(KNOWN.getBytes(StandardCharsets.UTF_8));
        reload.process(null);
        TenantsConfig known = directory.current();
        assertThat(known.tenants().keySet()).containsExactly("acme");
        assertThat(known.resolve("Bearer sk-acme", null).name()).isEqualTo("acme");
        assertThat(known.tenants().get("acme").limits().requestsPerMinute()).isEqualTo(600);
    }

    /** Writes the file with a modification time of its own, so every write is a change. */
    static void write(byte[] bytes) throws IOException {
        Files.write(file, bytes);
        Files.setLastModifiedTime(file, FileTime.fromMillis(MTIME.addAndGet(1_000)));
    }
}
