package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class HashRingTest {

    private static final List<String> URLS = List.of("http://w0:8000", "http://w1:8000", "http://w2:8000",
            "http://w3:8000");

    @Test
    void hashIsXxh3OfUtf8Bytes() {
        // XXH3_64bits("") with seed 0, the reference value
        assertThat(HashRing.hash("")).isEqualTo(0x2D06800538D394C2L);
    }

    @Test
    void sameKeySameWorkerAcrossRingInstances() {
        HashRing a = HashRing.of(URLS);
        HashRing b = HashRing.of(List.of(URLS.get(3), URLS.get(1), URLS.get(0), URLS.get(2)));
        for (int i = 0; i < 200; i++) {
            assertThat(a.find("user-" + i, u -> true)).isEqualTo(b.find("user-" + i, u -> true));
        }
    }

    @Test
    void keysSpreadRoughlyEvenlyWith150VirtualNodes() {
        HashRing ring = HashRing.of(URLS);
        Map<String, Integer> h = new HashMap<>();
        for (int i = 0; i < 8000; i++) {
            h.merge(ring.find("session-" + i, u -> true), 1, Integer::sum);
        }
        assertThat(h).hasSize(4);
        assertThat(h.values()).allSatisfy(c -> assertThat(c).isBetween(1400, 2600));
    }

    @Test
    void removingAWorkerMovesOnlyItsKeys() {
        HashRing full = HashRing.of(URLS);
        HashRing less = full.without(URLS.get(1));
        int moved = 0;
        int onRemoved = 0;
        for (int i = 0; i < 2000; i++) {
            String before = full.find("k" + i, u -> true);
            String after = less.find("k" + i, u -> true);
            if (before.equals(URLS.get(1))) {
                onRemoved++;
            } else if (!before.equals(after)) {
                moved++;
            }
        }
        assertThat(moved).isZero();
        assertThat(onRemoved).isBetween(300, 700);
    }

    @Test
    void lookupWalksClockwisePastUnusableWorkersToTheSameSuccessor() {
        HashRing ring = HashRing.of(URLS);
        for (int i = 0; i < 500; i++) {
            String home = ring.find("k" + i, u -> true);
            String skip = ring.find("k" + i, u -> !u.equals(home));
            assertThat(skip).isNotEqualTo(home);
            // identical to what a ring without the home worker answers
            assertThat(skip).isEqualTo(ring.without(home).find("k" + i, u -> true));
        }
    }

    @Test
    void noUsableWorkerYieldsNull() {
        assertThat(HashRing.of(URLS).find("k", u -> false)).isNull();
        assertThat(HashRing.of(List.of()).find("k", u -> true)).isNull();
    }

    @Test
    void withAddsOnlyNewUrls() {
        HashRing ring = HashRing.of(URLS.subList(0, 2));
        assertThat(ring.with(URLS.subList(0, 2))).isSameAs(ring);
        assertThat(ring.with(URLS).urls()).isEqualTo(Set.copyOf(URLS));
    }
}
