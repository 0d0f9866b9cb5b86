package dev.caravan.bench.synccost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class ProcCpuTest {

    // a java process's line as Linux 5.x prints it (52 fields), utime 1234 and stime 567
    private static final String STAT = "4711 (java) S 1 4711 4711 0 -1 4194560 90392 0 7 0 1234 567 0 0 20 0 42 0 "
            + "1189 4020580352 61201 18446744073709551615 94220316758016 94220316758864 140725140539216 0 0 0 0 4096 "
            + "16796879 0 0 0 17 1 0 0 0 0 0 94220316769720 94220316770448 94220342747136 140725140545311 "
            + "140725140545450 140725140545450 140725140553698 0";

    @Test
    void addsUserAndSystemTicks() {
        assertThat(ProcCpu.ticks(STAT)).isEqualTo(1801);
    }

    @Test
    void countsFieldsFromTheLastParenthesisOfTheCommandName() {
        assertThat(ProcCpu.ticks(STAT.replace("(java)", "(a) b (c) 9 9)"))).isEqualTo(1801);
    }

    @Test
    void rejectsALineWithoutACommandName() {
        assertThatThrownBy(() -> ProcCpu.ticks("4711 java S 1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a /proc/<pid>/stat line");
    }

    @Test
    void rejectsATruncatedLine() {
        assertThatThrownBy(() -> ProcCpu.ticks("4711 (java) S 1 2 3")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("with 6 fields");
    }

    @Test
    void namesTheThreadOfATaskLine() {
        assertThat(ProcCpu.name(STAT.replace("(java)", "(C2 CompilerThre)"))).isEqualTo("C2 CompilerThre");
        assertThat(ProcCpu.name("7 (a) b) S 1")).isEqualTo("a) b");
    }

    @Test
    void sortsJvmThreadsIntoGroups() {
        assertThat(List.of("C2 CompilerThre", "C1 CompilerThre", "hz.caravan-sync", "vert.x-eventloo", "GC Thread#1",
                "G1 Conc#0", "VM Thread", "Camel (camel-1)", "java"))
                .extracting(ProcCpu::group).containsExactly(ProcCpu.JIT, ProcCpu.JIT, ProcCpu.HAZELCAST,
                        ProcCpu.EVENT_LOOP, ProcCpu.GC, ProcCpu.GC, ProcCpu.GC, ProcCpu.OTHER, ProcCpu.OTHER);
    }

    @Test
    void groupsThisProcessThreads() {
        assertThat(ProcCpu.ticksByGroup(List.of(ProcessHandle.current().pid()))).containsKey(ProcCpu.OTHER);
    }

    @Test
    void readsTheOneMinuteLoadAverage() {
        assertThat(ProcCpu.loadAverage("3.62 1.20 0.48 6/175 11219\n")).isEqualTo(3.62);
    }

    @Test
    void readsThisProcessOwnTicks() {
        assertThat(ProcCpu.ticks(ProcessHandle.current().pid())).isPositive();
    }
}
