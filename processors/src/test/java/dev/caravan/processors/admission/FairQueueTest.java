package dev.caravan.processors.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.time.ManualScheduler;

/** Priority and fair share in the admission queue, through the controller, on a hand-moved clock. */
class FairQueueTest {

    private final ManualScheduler timers = new ManualScheduler();
    private final AdmissionController controller = new AdmissionController(
            new AdmissionConfig(1, 100, Duration.ofSeconds(60), -1), timers, timers::nanoTime, AdmissionObserver.NONE);
    private final List<String> served = new ArrayList<>();

    private static FlowKey key(String tenant, int priority) {
        return new FlowKey(tenant, tenant, "p" + priority, priority, null);
    }

    /** A request that, once admitted, is recorded and keeps its ticket for the test to release. */
    private final class Request implements AdmissionController.Waiter {
        final String name;
        AdmissionTicket ticket;
        Rejection rejection;

        Request(String name) {
            this.name = name;
        }

        @Override
        public void admitted(AdmissionTicket t) {
            ticket = t;
            served.add(name);
        }

        @Override
        public void rejected(Rejection reason) {
            rejection = reason;
        }
    }

    private Request queue(String name, FlowKey key, long cost) {
        Request r = new Request(name);
        assertThat(controller.admit(r, key, cost)).isInstanceOf(AdmissionController.Queued.class);
        return r;
    }

    private AdmissionTicket holdTheSlot() {
        return ((AdmissionController.Admitted) controller.admit(new Request("holder"), FlowKey.DEFAULT, 0)).ticket();
    }

    /** Releases the slot and then each admitted request's in turn, until the queue is empty. */
    private void serveAll(AdmissionTicket first, List<Request> requests) {
        first.release();
        for (int i = 0; i < requests.size(); i++) {
            String last = served.get(served.size() - 1);
            requests.stream().filter(r -> r.name.equals(last)).findFirst().orElseThrow().ticket.release();
        }
    }

    @Test
    void aHigherPriorityClassAlwaysGoesFirst() {
        AdmissionTicket holder = holdTheSlot();
        List<Request> rs = List.of(queue("batch-1", key("b", 1), 10), queue("chat-1", key("c", 0), 10),
                queue("batch-2", key("b", 1), 10), queue("chat-2", key("c", 0), 10));

        serveAll(holder, rs);

        assertThat(served).containsExactly("chat-1", "chat-2", "batch-1", "batch-2");
    }

    @Test
    void withinAClassTenantsShareByTokensServedNotByRequests() {
        AdmissionTicket holder = holdTheSlot();
        // a's requests cost three times b's: b gets three requests for each of a's
        List<Request> rs = List.of(queue("a1", key("a", 0), 300), queue("a2", key("a", 0), 300),
                queue("a3", key("a", 0), 300), queue("b1", key("b", 0), 100), queue("b2", key("b", 0), 100),
                queue("b3", key("b", 0), 100), queue("b4", key("b", 0), 100));

        serveAll(holder, rs);

        assertThat(served).containsExactly("a1", "b1", "b2", "b3", "a2", "b4", "a3");
        assertThat(controller.served("a")).isEqualTo(900);
        assertThat(controller.served("b")).isEqualTo(400);
    }

    @Test
    void outputTokensChargedAfterTheResponseCountTowardsTheShare() {
        AdmissionTicket holder = holdTheSlot();
        List<Request> rs = List.of(queue("a1", key("a", 0), 10), queue("a2", key("a", 0), 10),
                queue("b1", key("b", 0), 10), queue("b2", key("b", 0), 10));
        holder.release(); // a1 in
        controller.charge("a", 1000); // a1 produced a long answer
        rs.get(0).ticket.release();
        rs.get(2).ticket.release(); // b1 done
        rs.get(3).ticket.release(); // b2 done

        assertThat(served).containsExactly("a1", "b1", "b2", "a2");
    }

    @Test
    void aTenantBackFromIdleDoesNotBankCredit() {
        controller.charge("a", 1000); // a was served while b was idle
        AdmissionTicket holder = holdTheSlot();
        List<Request> rs = List.of(queue("a1", key("a", 0), 100), queue("a2", key("a", 0), 100),
                queue("b1", key("b", 0), 100), queue("b2", key("b", 0), 100));

        serveAll(holder, rs);

        // lifted to a's counter on arrival, b alternates with a instead of taking every slot until it caught up
        assertThat(served).containsExactly("a1", "b1", "a2", "b2");
    }

    @Test
    void eachClassHasItsOwnQueueTimeout() {
        holdTheSlot();
        Request quick = queue("quick", new FlowKey("c", "c", "chat", 0, Duration.ofSeconds(2)), 0);
        Request patient = queue("patient", key("b", 1), 0);

        timers.advance(2_000);

        assertThat(quick.rejection).isEqualTo(Rejection.QUEUE_TIMEOUT);
        assertThat(patient.rejection).isNull();
        assertThat(controller.queued()).isEqualTo(1);
        timers.advance(58_000);
        assertThat(patient.rejection).isEqualTo(Rejection.QUEUE_TIMEOUT);
    }

    @Test
    void aRequestWhoseClientLeftLeavesItsTenantsQueue() {
        AdmissionTicket holder = holdTheSlot();
        Request gone = queue("gone", key("a", 0), 10);
        AdmissionController.Decision d = controller.admit(new Request("x"), key("a", 0), 10);
        Request stays = queue("stays", key("b", 0), 10);

        controller.cancel(((AdmissionController.Queued) d).handle());
        assertThat(controller.queued()).isEqualTo(2);
        holder.release();

        assertThat(served).containsExactly("gone");
        gone.ticket.release();
        assertThat(served).containsExactly("gone", "stays");
        assertThat(controller.queued()).isZero();
        stays.ticket.release();
        assertThat(controller.slotsInUse()).isZero();
    }
}
