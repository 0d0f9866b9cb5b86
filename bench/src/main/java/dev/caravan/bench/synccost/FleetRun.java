package dev.caravan.bench.synccost;

import java.util.Map;

/**
 * What one fleet of gateway processes spent in its measured window.
 *
 * @param replicas       gateway processes
 * @param sync           whether they ran {@code --sync hazelcast}
 * @param requests       requests answered 200 in the window
 * @param failed         requests answered otherwise, or not at all
 * @param seconds        the window's length
 * @param cpuTicks       the processes' user + system CPU over the window, in clock ticks
 * @param groupTicks     the part of it per thread group ({@link ProcCpu#group}), of the threads alive at both ends
 * @param idleSeconds    the length of the idle window before it (no requests)
 * @param idleCpuTicks   the processes' CPU over the idle window, in ticks
 * @param ticksPerSecond clock ticks per second ({@code getconf CLK_TCK})
 * @param samples        the sync figures of the window ({@link SyncSamples#NONE} without sync)
 * @param loadStart      the 1-minute load average when the fleet started
 * @param loadEnd        the same when its window ended
 */
record FleetRun(int replicas, boolean sync, long requests, long failed, double seconds, long cpuTicks,
                Map<String, Long> groupTicks, double idleSeconds, long idleCpuTicks, long ticksPerSecond, SyncSamples samples, double loadStart,
                double loadEnd) {

    FleetRun {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1, was " + replicas);
        }
        if (ticksPerSecond < 1) {
            throw new IllegalArgumentException("ticksPerSecond must be at least 1, was " + ticksPerSecond);
        }
        groupTicks = Map.copyOf(groupTicks);
    }

    /** CPU µs per request answered, the fleet's processes together; NaN without a request. */
    double cpuUsPerRequest() {
        return requests == 0 ? Double.NaN : cpuTicks * 1e6 / ticksPerSecond / requests;
    }

    /** CPU µs per request of one thread group; 0 for a group without ticks, NaN without a request. */
    double groupUsPerRequest(String group) {
        return requests == 0 ? Double.NaN : groupTicks.getOrDefault(group, 0L) * 1e6 / ticksPerSecond / requests;
    }

    /** CPU µs per request without the JIT compilers' threads: the cost once the code is compiled. */
    double cpuUsPerRequestWithoutJit() {
        return cpuUsPerRequest() - groupUsPerRequest(ProcCpu.JIT);
    }

    /** The idle fleet's CPU, ms per second of wall time; NaN without an idle window. */
    double idleCpuMsPerSecond() {
        return idleSeconds <= 0 ? Double.NaN : idleCpuTicks * 1e3 / ticksPerSecond / idleSeconds;
    }

    /**
     * CPU µs per request beyond what the fleet spends idle over as long a time: the cost that grows with requests
     * rather than with seconds. NaN without a request or an idle window.
     */
    double busyCpuUsPerRequest() {
        return requests == 0 || idleSeconds <= 0 ? Double.NaN
                : (cpuTicks * 1e6 / ticksPerSecond - idleCpuMsPerSecond() * 1e3 * seconds) / requests;
    }

    double requestsPerSecond() {
        return requests / seconds;
    }
}
