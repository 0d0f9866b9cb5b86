package dev.caravan.bench.synccost;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * CPU time a process has spent, user plus system, as Linux reports it in {@code /proc/<pid>/stat} (fields 14 and 15,
 * in clock ticks; every thread of the process is counted, its children are not). The command name (field 2) is in
 * parentheses and may itself hold spaces and parentheses, so fields are counted from the last closing one. Per thread
 * ({@code /proc/<pid>/task/<tid>/stat}) the name is the thread's, cut to 15 characters, which is enough to tell the
 * groups of {@link #group} apart.
 */
final class ProcCpu {

    /** USER_HZ on every mainstream Linux build; used when {@code getconf CLK_TCK} cannot be run. */
    static final long DEFAULT_TICKS_PER_SECOND = 100;

    private ProcCpu() {
    }

    /** utime + stime of one {@code /proc/<pid>/stat} line. */
    static long ticks(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + stat);
        }
        String[] f = stat.substring(close + 1).trim().split("\\s+");
        // f[0] is field 3 (state): utime is field 14, stime field 15
        if (f.length < 13) {
            throw new IllegalArgumentException("a /proc/<pid>/stat line with " + (f.length + 2) + " fields: " + stat);
        }
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** utime + stime of a live process, in ticks. */
    static long ticks(long pid) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        try {
            return ticks(Files.readString(stat, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + stat + " (did the process exit?)", e);
        }
    }

    /** The sum over processes, in ticks. */
    static long ticks(List<Long> pids) {
        long sum = 0;
        for (long pid : pids) {
            sum += ticks(pid);
        }
        return sum;
    }

    /** The thread groups {@link #group} sorts threads into. */
    static final String JIT = "jit";
    static final String HAZELCAST = "hazelcast";
    static final String EVENT_LOOP = "event-loop";
    static final String GC = "gc";
    static final String OTHER = "other";

    /** The command (thread) name of a {@code stat} line: between the first '(' and the last ')'. */
    static String name(String stat) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + stat);
        }
        return stat.substring(open + 1, close);
    }

    /**
     * The group of a JVM thread by its (cut) name: the JIT compilers, Hazelcast's threads ({@code hz.<instance>...}),
     * the HTTP event loops (Vert.x), the garbage collector and the VM thread (safepoints), and the rest.
     */
    static String group(String thread) {
        if (thread.startsWith("C1 CompilerThre") || thread.startsWith("C2 CompilerThre")) {
            return JIT;
        }
        if (thread.startsWith("hz.")) {
            return HAZELCAST;
        }
        if (thread.startsWith("vert.x-eventloo")) {
            return EVENT_LOOP;
        }
        if (thread.startsWith("GC Thread") || thread.startsWith("G1 ") || thread.equals("VM Thread")) {
            return GC;
        }
        return OTHER;
    }

    /**
     * utime + stime per thread group over the live threads of the processes. A thread that has exited is in the
     * process's total ({@link #ticks(long)}) but in no group here.
     */
    static Map<String, Long> ticksByGroup(List<Long> pids) {
        Map<String, Long> groups = new TreeMap<>();
        for (long pid : pids) {
            try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
                for (Path task : tasks.toList()) {
                    String stat;
                    try {
                        stat = Files.readString(task.resolve("stat"), StandardCharsets.UTF_8);
                    } catch (IOException e) {
                        continue; // the thread exited meanwhile
                    }
                    groups.merge(group(name(stat)), ticks(stat), Long::sum);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list the threads of " + pid + " (did it exit?)", e);
            }
        }
        return groups;
    }

    /** Clock ticks per second ({@code getconf CLK_TCK}), or {@link #DEFAULT_TICKS_PER_SECOND}. */
    static long ticksPerSecond() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && out.matches("\\d+")
                    ? Long.parseLong(out) : DEFAULT_TICKS_PER_SECOND;
        } catch (IOException e) {
            return DEFAULT_TICKS_PER_SECOND;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return DEFAULT_TICKS_PER_SECOND;
        }
    }

    /** The 1-minute load average of a {@code /proc/loadavg} line. */
    static double loadAverage(String loadavg) {
        return Double.parseDouble(loadavg.trim().split("\\s+")[0]);
    }

    /** This machine's 1-minute load average now. */
    static double loadAverage() {
        try {
            return loadAverage(Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/loadavg", e);
        }
    }
}
