package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.bench.soak.SoakOptions;
import dev.caravan.bench.soak.SoakResult;
import dev.caravan.bench.soak.SoakRun;

/**
 * The fleet soak of {@code ./caravan bench soak} in its three-minute mode: two gateway replicas as child JVMs with
 * replica sync, eight simulated engines with KV events, mixed load, and one full cycle of the fault schedule (each
 * fault held 4 s). Nothing may be lost, every failure must be one its fault explains, and after every fault the
 * replicas agree again within 30 s. The run stops every process it started (the replicas are this JVM's only
 * children).
 */
class FleetSoakIT {

    private static final int FAULT_KINDS = 8;

    @TempDir
    Path work;

    @Test
    void aThreeMinuteSoakLosesNoRequestAndEveryFailureHasItsFault() throws Exception {
        SoakResult r = SoakRun.run(SoakOptions.forMinutes(3, 42, work));

        assertThat(r.lost()).as("requests lost").isZero();
        assertThat(r.unattributed()).as("failures no fault explains").isEmpty();
        Set<String> faults = r.injections().stream().map(SoakResult.InjectionFigure::fault)
                .collect(Collectors.toSet());
        assertThat(faults).hasSize(FAULT_KINDS);
        assertThat(r.injections()).allSatisfy(i -> assertThat(i.agreeSeconds()).as(i.fault())
                .isBetween(0.0, (double) SoakOptions.AGREE_LIMIT.toSeconds()));
        assertThat(r.answered()).isPositive();
        assertThat(r.limited()).as("the limited tenant's 429s").isPositive();
        assertThat(r.tenantReloadsFailed()).as("the bad tenants file, counted once").isEqualTo(1.0);
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).map(ProcessHandle::pid))
                .as("replica processes still running after the soak").isEmpty();
    }
}
