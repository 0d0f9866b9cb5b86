package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.bench.workload.AzureTrace;
import dev.caravan.bench.workload.B2bWorkload;
import dev.caravan.bench.workload.BenchRequest;
import dev.caravan.bench.workload.MooncakeTrace;
import dev.caravan.bench.workload.MultiturnWorkload;
import dev.caravan.bench.workload.RagWorkload;
import dev.caravan.bench.workload.Workload;
import dev.caravan.policies.text.PseudoTokenizer;

class WorkloadShapeTest {

    private static final PseudoTokenizer TOKENIZER = new PseudoTokenizer();

    private static List<BenchRequest> all(Workload w) {
        List<BenchRequest> out = new ArrayList<>();
        w.arrivals().forEachRemaining(out::add);
        return out;
    }

    private static int commonPrefix(String a, String b) {
        int n = 0;
        while (n < a.length() && n < b.length() && a.charAt(n) == b.charAt(n)) {
            n++;
        }
        return n;
    }

    @Test
    void b2bTenantPrefixIsExactlyThePrefixTokensAndTheTurnTheUserTokens() {
        B2bWorkload w = new B2bWorkload(2, 256, 20, 4, 60, 40, 0, "uniform", 3, 104);
        List<BenchRequest> reqs = all(w);
        assertThat(reqs).hasSize(40);
        BenchRequest a = reqs.get(0);
        BenchRequest b = reqs.stream().skip(1).filter(r -> r.routingKey().equals(a.routingKey())).findFirst()
                .orElseThrow();
        assertThat(commonPrefix(a.renderedText(), b.renderedText())).isBetween(4 * 256, 4 * 256 + 3);
        assertThat(TOKENIZER.count(a.renderedText())).isEqualTo(256 + 20);
        assertThat(a.prefixTokens()).isEqualTo(256);
        assertThat(a.isChat()).isTrue();
        for (int i = 1; i < reqs.size(); i++) {
            assertThat(reqs.get(i).atNanos()).isGreaterThanOrEqualTo(reqs.get(i - 1).atNanos());
        }
    }

    @Test
    void b2bSameSeedSameSequence() {
        B2bWorkload w = new B2bWorkload(50, 64, 16, 4, 60, 30, 0, "zipf:1.0", 9, 10);
        List<BenchRequest> x = all(w);
        List<BenchRequest> y = all(w);
        for (int i = 0; i < x.size(); i++) {
            assertThat(x.get(i).renderedText()).isEqualTo(y.get(i).renderedText());
            assertThat(x.get(i).atNanos()).isEqualTo(y.get(i).atNanos());
        }
    }

    @Test
    void b2bKvPoolHoldsMPrefixesPlusTheMeanLiveRequests() {
        B2bWorkload w = new B2bWorkload(1000, 2048, 32, 16, 60, 100, 10, "uniform", 1, 104);
        // 104 × 2048 = 212,992 cached; live = 60/8 req/s × (0.7 ms + 2080/24000 s + 15 × 8 ms) × 2096 tokens = 3,255
        assertThat(w.kvCapacityTokens(8)).isEqualTo(216_256);
    }

    @Test
    void ragSharesOnlyThePreamble() {
        RagWorkload w = new RagWorkload(1, 128, 200, 8, 4, 5, 3, 0, "uniform", 2);
        List<BenchRequest> reqs = all(w);
        int common = commonPrefix(reqs.get(0).renderedText(), reqs.get(1).renderedText());
        assertThat(common).isBetween(4 * 128, 4 * 128 + 12);
        assertThat(TOKENIZER.count(reqs.get(0).renderedText())).isBetween(128 + 100, 128 + 300 + 20);
    }

    @Test
    void multiturnNextTurnExtendsTheConversationWithTheAnswer() {
        MultiturnWorkload w = new MultiturnWorkload(2, 3, 16, 64, 16, 8, 10, 1, 0, 4);
        Iterator<BenchRequest> it = w.arrivals();
        BenchRequest first = it.next();
        assertThat(first.renderedText().length() % 4).isZero();
        String answer = " the sea map owl";
        BenchRequest second = w.followUp(first, answer, first.atNanos() + 1_000_000_000L);
        assertThat(second.renderedText()).startsWith(first.renderedText() + answer);
        assertThat(second.renderedText().length() % 4).isZero();
        assertThat(second.routingKey()).isEqualTo(first.routingKey());
        assertThat(second.atNanos()).isGreaterThanOrEqualTo(first.atNanos() + 1_000_000_000L);
        BenchRequest third = w.followUp(second, answer, second.atNanos());
        assertThat(w.followUp(third, answer, third.atNanos())).isNull();
        assertThat(w.expectedRequests()).isEqualTo(6);
    }

    @Test
    void sequentialMultiturnStartsTheNextSessionAfterTheLastAnswerOfThePrevious() {
        MultiturnWorkload w = new MultiturnWorkload(3, 2, 16, 64, 16, 8, 10, 0, 0, 4, true);
        Iterator<BenchRequest> it = w.arrivals();
        BenchRequest first = it.next();
        assertThat(it.hasNext()).isFalse();
        BenchRequest second = w.followUp(first, " answer one.", 5_000_000_000L);
        assertThat(second.routingKey()).isEqualTo(first.routingKey());
        BenchRequest nextSession = w.followUp(second, " answer two.", 9_000_000_000L);
        assertThat(nextSession.routingKey()).isEqualTo("session-1");
        assertThat(nextSession.atNanos()).isEqualTo(9_000_000_000L); // think time 0
        assertThat(nextSession.renderedText()).doesNotContain("answer");
        BenchRequest last = w.followUp(w.followUp(nextSession, " a.", 10_000_000_000L), " b.", 11_000_000_000L);
        assertThat(last.routingKey()).isEqualTo("session-2");
        assertThat(w.followUp(w.followUp(last, " c.", 12_000_000_000L), " d.", 13_000_000_000L)).isNull();
    }

    @Test
    void mooncakeEqualHashIdsAreEqualTextAndLengthsAreFaithful(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("t.jsonl");
        Files.writeString(f, "{\"timestamp\": 0, \"input_length\": 1000, \"output_length\": 5, \"hash_ids\": [7, 8]}\n"
                + "{\"timestamp\": 500, \"input_length\": 1300, \"output_length\": 0, \"hash_ids\": [7, 9, 10]}\n");
        MooncakeTrace t = new MooncakeTrace(f, 0, 2.0, 1, 0, 0, 1);
        List<BenchRequest> reqs = all(t);
        assertThat(reqs.get(0).renderedText()).hasSize(4000);
        assertThat(reqs.get(1).renderedText()).hasSize(5200);
        assertThat(commonPrefix(reqs.get(0).renderedText(), reqs.get(1).renderedText())).isBetween(2048, 2100);
        assertThat(reqs.get(1).atNanos()).isEqualTo(250_000_000L);
        assertThat(reqs.get(0).maxTokens()).isEqualTo(5);
        assertThat(reqs.get(1).maxTokens()).isEqualTo(1);
        assertThat(reqs.get(0).routingKey()).isEqualTo(reqs.get(1).routingKey()).isEqualTo("blocks-7");
        assertThat(t.maxModelLen()).isEqualTo(1301 + 16);
    }

    @Test
    void azureArrivalsAreRelativeAndTenantsShareTheirPrefix(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("t.csv");
        Files.writeString(f, "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                + "2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n"
                + "2023-11-16 18:15:51.0000000,10,3\n");
        AzureTrace t = new AzureTrace(f, 0, 1.0, 1, 128, "uniform", 0, 0, 5);
        List<BenchRequest> reqs = all(t);
        assertThat(reqs).extracting(BenchRequest::atNanos).containsExactly(0L, 4_314_579_000L, 4_319_410_000L);
        assertThat(reqs.get(0).renderedText()).hasSize(4 * 374);
        assertThat(commonPrefix(reqs.get(0).renderedText(), reqs.get(1).renderedText())).isBetween(512, 540);
        assertThat(reqs.get(2).prefixTokens()).isEqualTo(9);
        assertThat(reqs.get(1).maxTokens()).isEqualTo(109);
    }
}
