package dev.caravan.processors.health;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/**
 * Liveness check {@value #ID}: UP while every event loop of the gateway's Vert.x instance ran its heartbeat within
 * {@code --event-loop-stall-secs} ({@link EventLoopHeartbeat}); DOWN, naming the stalled loops, when one did not. Every
 * connection, stream and timer of the gateway lives on those loops, so a loop that stopped running tasks means the
 * process serves part of its clients nothing — what a liveness probe exists to catch (a restart frees them). A drain on
 * shutdown does not touch them, so this check stays UP while in-flight streams finish.
 */
public final class EventLoopsHealthCheck extends AbstractHealthCheck {

    public static final String ID = "caravan-event-loops";
    /** Far above the heartbeat period and Vert.x's 2 s blocked-loop warning, below a probe's usual 30 s budget. */
    public static final Duration DEFAULT_STALL_LIMIT = Duration.ofSeconds(10);

    private final EventLoopHeartbeat heartbeat;
    private final Duration limit;

    /**
     * @param heartbeat the heartbeats of the gateway's event loops
     * @param limit     the longest a loop may go without a heartbeat ({@code --event-loop-stall-secs})
     */
    public EventLoopsHealthCheck(EventLoopHeartbeat heartbeat, Duration limit) {
        super(GatewayHealthChecks.GROUP, ID);
        if (limit.compareTo(EventLoopHeartbeat.DEFAULT_PERIOD.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("event-loop stall limit must be at least "
                    + EventLoopHeartbeat.DEFAULT_PERIOD.multipliedBy(2).toSeconds() + " s, was " + limit);
        }
        this.heartbeat = heartbeat;
        this.limit = limit;
    }

    @Override
    public boolean isReadiness() {
        return false;
    }

    @Override
    public boolean isLiveness() {
        return true;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        List<Integer> stalled = heartbeat.stalled(limit);
        builder.detail("event_loops", heartbeat.loops());
        builder.detail("stall_limit_ms", limit.toMillis());
        if (stalled.isEmpty()) {
            builder.up();
            return;
        }
        StringBuilder which = new StringBuilder();
        for (int loop : stalled) {
            which.append(which.isEmpty() ? "" : ", ").append("loop ").append(loop).append(" (")
                    .append(heartbeat.sinceLastBeat(loop).toMillis()).append(" ms)");
        }
        builder.detail("stalled_event_loops", stalled.size());
        builder.message("event loops without a heartbeat for over " + limit.toSeconds() + " s: " + which);
        builder.down();
    }
}
