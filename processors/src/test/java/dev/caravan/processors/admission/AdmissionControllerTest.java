package dev.caravan.processors.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.time.ManualScheduler;

class AdmissionControllerTest {

    private final ManualScheduler timers = new ManualScheduler();
    private final AtomicLong nanos = new AtomicLong();
    private final List<String> events = new ArrayList<>();

    private AdmissionController controller(int max, int queue, int timeoutSecs, int rate) {
        return new AdmissionController(new AdmissionConfig(max, queue, Duration.ofSeconds(timeoutSecs), rate), timers,
                nanos::get, new AdmissionObserver() {
                    @Override
                    public void onAdmitted(FlowKey key, boolean queued, long waitedNanos) {
                        events.add(queued ? "admitted-queued" : "admitted");
                    }

                    @Override
                    public void onRejected(FlowKey key, Rejection reason) {
                        events.add(reason.label());
                    }
                });
    }

    /** A queued request's recorded fate. */
    private static final class Probe implements AdmissionController.Waiter {
        final String name;
        final List<String> log;
        AdmissionTicket ticket;
        Rejection rejection;

        Probe(String name, List<String> log) {
            this.name = name;
            this.log = log;
        }

        @Override
        public void admitted(AdmissionTicket t) {
            ticket = t;
            log.add(name + " admitted");
        }

        @Override
        public void rejected(Rejection reason) {
            rejection = reason;
            log.add(name + " " + reason.label());
        }
    }

    private static AdmissionTicket ticket(AdmissionController.Decision d) {
        assertThat(d).isInstanceOf(AdmissionController.Admitted.class);
        return ((AdmissionController.Admitted) d).ticket();
    }

    @Test
    void aTenantsServedTokensAddUpAndANegativeCorrectionStopsAtZero() {
        AdmissionController c = controller(-1, 100, 60, -1);
        c.charge("acme", 300);
        c.charge("acme", -100);
        assertThat(c.served("acme")).isEqualTo(200);
        c.charge("acme", -500);
        assertThat(c.served("acme")).isZero();
        c.charge("new", -50);
        assertThat(c.served("new")).isZero();
        assertThat(c.served("never-served")).isZero();
    }

    @Test
    void unlimitedAdmissionOnlyCountsInFlightRequests() {
        AdmissionController c = controller(-1, 100, 60, -1);
        List<AdmissionTicket> tickets = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            tickets.add(ticket(c.admit(new Probe("r" + i, new ArrayList<>()))));
        }
        assertThat(c.inFlight()).isEqualTo(1000);
        assertThat(c.slotsInUse()).isZero();
        tickets.forEach(AdmissionTicket::release);
        assertThat(c.inFlight()).isZero();
    }

    @Test
    void queuedRequestsGetReleasedSlotsInArrivalOrder() {
        AdmissionController c = controller(2, 5, 60, -1);
        List<String> log = new ArrayList<>();
        AdmissionTicket t1 = ticket(c.admit(new Probe("1", log)));
        AdmissionTicket t2 = ticket(c.admit(new Probe("2", log)));
        Probe p3 = new Probe("3", log);
        Probe p4 = new Probe("4", log);
        Probe p5 = new Probe("5", log);
        assertThat(c.admit(p3)).isInstanceOf(AdmissionController.Queued.class);
        assertThat(c.admit(p4)).isInstanceOf(AdmissionController.Queued.class);
        assertThat(c.admit(p5)).isInstanceOf(AdmissionController.Queued.class);
        assertThat(c.queued()).isEqualTo(3);

        t2.release();
        t1.release();
        p3.ticket.release();

        assertThat(log).containsExactly("3 admitted", "4 admitted", "5 admitted");
        assertThat(c.slotsInUse()).isEqualTo(2);
        assertThat(c.inFlight()).isEqualTo(2);
        p4.ticket.release();
        p5.ticket.release();
        assertThat(c.slotsInUse()).isZero();
        assertThat(c.inFlight()).isZero();
        assertThat(timers.pending()).as("every queue timer cancelled").isZero();
    }

    @Test
    void aFullQueueIs429AtOnce() {
        AdmissionController c = controller(1, 2, 60, -1);
        ticket(c.admit(new Probe("1", events)));
        c.admit(new Probe("2", events));
        c.admit(new Probe("3", events));

        AdmissionController.Decision d = c.admit(new Probe("4", events));

        assertThat(d).isEqualTo(new AdmissionController.Rejected(Rejection.QUEUE_FULL));
        assertThat(Rejection.QUEUE_FULL.error().status()).isEqualTo(429);
        assertThat(c.queued()).isEqualTo(2);
    }

    @Test
    void withoutAQueueABusyLimitIs429() {
        AdmissionController c = controller(1, 0, 60, -1);
        ticket(c.admit(new Probe("1", events)));
        assertThat(c.admit(new Probe("2", events))).isEqualTo(new AdmissionController.Rejected(Rejection.QUEUE_FULL));
    }

    @Test
    void aRequestThatWaitsTooLongIs408AndLeavesTheQueue() {
        AdmissionController c = controller(1, 5, 10, -1);
        List<String> log = new ArrayList<>();
        AdmissionTicket busy = ticket(c.admit(new Probe("1", log)));
        Probe early = new Probe("early", log);
        c.admit(early);
        timers.advance(4_000);
        Probe late = new Probe("late", log);
        c.admit(late);

        timers.advance(6_000);
        assertThat(log).containsExactly("early queue_timeout");
        assertThat(Rejection.QUEUE_TIMEOUT.error().status()).isEqualTo(408);
        assertThat(c.queued()).isEqualTo(1);

        busy.release();
        assertThat(log).containsExactly("early queue_timeout", "late admitted");
        timers.advance(60_000);
        assertThat(log).as("an admitted request's timer is gone").hasSize(2);
    }

    @Test
    void releasingTwiceFreesOneSlot() {
        AdmissionController c = controller(1, 5, 60, -1);
        List<String> log = new ArrayList<>();
        AdmissionTicket t = ticket(c.admit(new Probe("1", log)));
        Probe a = new Probe("a", log);
        Probe b = new Probe("b", log);
        c.admit(a);
        c.admit(b);

        assertThat(t.release()).isTrue();
        assertThat(t.release()).isFalse();

        assertThat(log).containsExactly("a admitted");
        assertThat(c.inFlight()).isEqualTo(1);
    }

    @Test
    void aClientThatLeavesTheQueueFreesItsPlace() {
        AdmissionController c = controller(1, 1, 60, -1);
        List<String> log = new ArrayList<>();
        AdmissionTicket t = ticket(c.admit(new Probe("1", log)));
        AdmissionController.Queued q = (AdmissionController.Queued) c.admit(new Probe("gone", log));

        c.cancel(q.handle());
        c.cancel(q.handle());

        assertThat(log).containsExactly("gone client_gone");
        assertThat(c.admit(new Probe("next", log))).isInstanceOf(AdmissionController.Queued.class);
        t.release();
        assertThat(log).containsExactly("gone client_gone", "next admitted");
    }

    @Test
    void theRateLimitRefillsFromTheInjectedClock() {
        AdmissionController c = controller(-1, 0, 60, 10);
        int admitted = 0;
        for (int i = 0; i < 15; i++) {
            if (c.admit(new Probe("r", events)) instanceof AdmissionController.Admitted) {
                admitted++;
            }
        }
        assertThat(admitted).as("a burst of one second's worth").isEqualTo(10);
        assertThat(events).filteredOn("rate_limited"::equals).hasSize(5);

        nanos.addAndGet(300_000_000L); // 0.3 s: 3 tokens
        admitted = 0;
        for (int i = 0; i < 5; i++) {
            if (c.admit(new Probe("r", events)) instanceof AdmissionController.Admitted) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(3);
    }

    @Test
    void drainingRefusesNewAndQueuedRequestsAndWaitsForInFlightOnes() throws Exception {
        AdmissionController c = controller(1, 5, 60, -1);
        List<String> log = new ArrayList<>();
        AdmissionTicket running = ticket(c.admit(new Probe("running", log)));
        c.admit(new Probe("queued", log));

        c.startDraining();

        assertThat(log).containsExactly("queued shutting_down");
        assertThat(c.admit(new Probe("new", log))).isEqualTo(new AdmissionController.Rejected(Rejection.SHUTTING_DOWN));
        assertThat(c.awaitIdle(Duration.ZERO)).isFalse();
        running.release();
        assertThat(c.awaitIdle(Duration.ZERO)).isTrue();
    }

    @Test
    void rejectsInvalidSettingsNamingThem() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new AdmissionConfig(0, 1, Duration.ofSeconds(1), -1))
                .hasMessage("maxConcurrent must be -1 (unlimited) or >= 1, was 0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new AdmissionConfig(1, -1, Duration.ofSeconds(1), -1))
                .hasMessage("queueSize must be >= 0, was -1");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new AdmissionConfig(1, 1, Duration.ZERO, -1))
                .hasMessage("queueTimeout must be positive, was PT0S");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new AdmissionConfig(1, 1, Duration.ofSeconds(1), 0))
                .hasMessage("ratePerSecond must be -1 (off) or >= 1, was 0");
    }
}
