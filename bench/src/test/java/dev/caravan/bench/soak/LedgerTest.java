package dev.caravan.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class LedgerTest {

    private static final long S = 1_000_000_000L;
    private final AtomicLong now = new AtomicLong();
    private final Ledger ledger = new Ledger(now::get);

    private Ledger.Sent sendAt(long seconds, int replica) {
        now.set(seconds * S);
        return ledger.send(replica, true, false);
    }

    private void at(long seconds) {
        now.set(seconds * S);
    }

    @Test
    void attributesAFailureInsideTheWindowWithACauseTheFaultProduces() {
        Ledger.Sent s = sendAt(10, 0);
        at(12);
        ledger.failed(s, Cause.STREAM_TRUNCATED, "ended without [DONE]");
        Ledger.Tally t = ledger.tally(List.of(new Injection(FaultKind.ENGINE_KILLED, 3, 11 * S, 15 * S, 1.0)), 5 * S);

        assertThat(t.failed).isEqualTo(1);
        assertThat(t.attributedByFault).isEqualTo(Map.of(FaultKind.ENGINE_KILLED, 1L));
        assertThat(t.unattributed).isEmpty();
    }

    @Test
    void leavesUnattributedACauseTheFaultDoesNotProduce() {
        Ledger.Sent s = sendAt(10, 0);
        at(12);
        ledger.failed(s, Cause.OTHER_STATUS, "500 internal_error");
        Ledger.Tally t = ledger.tally(List.of(new Injection(FaultKind.ENGINE_KILLED, 3, 11 * S, 15 * S, 1.0)), 5 * S);

        assertThat(t.attributedByFault).isEmpty();
        assertThat(t.unattributed).containsExactly(s.id() + " OTHER_STATUS 500 internal_error on replica 0");
    }

    @Test
    void leavesUnattributedAFailureAfterTheGracePeriod() {
        Ledger.Sent s = sendAt(10, 0);
        at(21);
        ledger.failed(s, Cause.CONNECTION_RESET, "reset");
        Ledger.Tally t = ledger.tally(List.of(new Injection(FaultKind.ENGINE_KILLED, 3, 11 * S, 15 * S, 1.0)), 5 * S);

        assertThat(t.unattributed).hasSize(1);
    }

    @Test
    void attributesAReplicaFaultOnlyToRequestsSentToThatReplica() {
        Ledger.Sent onKilled = sendAt(10, 1);
        Ledger.Sent onOther = sendAt(10, 0);
        at(12);
        ledger.failed(onKilled, Cause.CONNECTION_REFUSED, "refused");
        ledger.failed(onOther, Cause.CONNECTION_REFUSED, "refused");
        Ledger.Tally t = ledger.tally(List.of(new Injection(FaultKind.REPLICA_KILLED, 1, 11 * S, 15 * S, 2.0)),
                5 * S);

        assertThat(t.attributedByFault).isEqualTo(Map.of(FaultKind.REPLICA_KILLED, 1L));
        assertThat(t.unattributed).containsExactly(onOther.id() + " CONNECTION_REFUSED refused on replica 0");
    }

    @Test
    void countsARequestWithoutAnEndAsLostAndTheFirstEndOnly() {
        sendAt(1, 0);
        Ledger.Sent answered = sendAt(2, 1);
        Ledger.Sent limited = sendAt(3, 0);
        at(4);
        ledger.answered(answered);
        ledger.failed(answered, Cause.CONNECTION_RESET, "late");
        ledger.limited(limited);
        Ledger.Tally t = ledger.tally(List.of(), 0);

        assertThat(ledger.outstanding()).isEqualTo(1);
        assertThat(t.sent).isEqualTo(3);
        assertThat(t.answered).isEqualTo(1);
        assertThat(t.limited).isEqualTo(1);
        assertThat(t.failed).isZero();
        assertThat(t.lost).isEqualTo(1);
    }

    @Test
    void splitsLatenciesByFaultWindowLeavingOutSlowClients() {
        Ledger.Sent before = sendAt(1, 0);
        at(3);
        ledger.answered(before);
        Ledger.Sent during = sendAt(12, 0);
        at(13);
        ledger.answered(during);
        now.set(1 * S);
        Ledger.Sent slow = ledger.send(0, true, true);
        at(9);
        ledger.answered(slow);
        Ledger.Tally t = ledger.tally(List.of(new Injection(FaultKind.PARTITION, -1, 11 * S, 15 * S, 1.0)), 0);

        assertThat(t.answered).isEqualTo(3);
        assertThat(t.latencyOutsideMs).containsExactly(2000.0);
        assertThat(t.latencyInsideMs).containsExactly(1000.0);
        assertThat(Ledger.Tally.p99(List.of(1.0, 2.0, 3.0))).isEqualTo(3.0);
    }
}
