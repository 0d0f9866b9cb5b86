package dev.caravan.policies.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.tree.OwnerRule;

class FleetPrefixIndexTest {

    @Test
    void firstRuleKeepsTheEarliestStampWhateverTheArrivalOrder() {
        FleetPrefixIndex a = new FleetPrefixIndex(OwnerRule.FIRST);
        FleetPrefixIndex b = new FleetPrefixIndex(OwnerRule.FIRST);
        assertThat(a.merge(7, "http://w1", 100)).isTrue();
        assertThat(a.merge(7, "http://w2", 200)).isFalse();
        assertThat(b.merge(7, "http://w2", 200)).isTrue();
        assertThat(b.merge(7, "http://w1", 100)).isTrue();
        assertThat(a.ownerOf(7)).isEqualTo("http://w1");
        assertThat(b.ownerOf(7)).isEqualTo("http://w1");
    }

    @Test
    void latestRuleKeepsTheLatestStamp() {
        FleetPrefixIndex index = new FleetPrefixIndex(OwnerRule.LATEST);
        index.merge(7, "http://w2", 200);
        assertThat(index.merge(7, "http://w1", 100)).isFalse();
        assertThat(index.merge(7, "http://w3", 300)).isTrue();
        assertThat(index.ownerOf(7)).isEqualTo("http://w3");
    }

    @Test
    void equalStampsAreOrderedByOwner() {
        FleetPrefixIndex index = new FleetPrefixIndex(OwnerRule.FIRST);
        index.merge(7, "http://w2", 100);
        assertThat(index.merge(7, "http://w1", 100)).isTrue();
        assertThat(index.merge(7, "http://w2", 100)).isFalse();
        assertThat(index.ownerOf(7)).isEqualTo("http://w1");
    }

    @Test
    void longestSkipsBoundariesWhoseOwnerIsNotUsable() {
        FleetPrefixIndex index = new FleetPrefixIndex(OwnerRule.FIRST);
        RoutedPrefix p = new RoutedPrefix(new long[] {1, 2, 3}, new int[] {64, 128, 150}, 150);
        index.merge(1, "http://w1", 1);
        index.merge(2, "http://w2", 1);
        assertThat(index.longest(p, url -> true)).isEqualTo(new FleetPrefixIndex.Match(1, "http://w2"));
        assertThat(index.longest(p, url -> !url.equals("http://w2")))
                .isEqualTo(new FleetPrefixIndex.Match(0, "http://w1"));
        assertThat(index.longest(p, url -> false)).isNull();
    }

    @Test
    void evictionTrimsEachOwnerLeastRecentlyUsedFirst() {
        FleetPrefixIndex index = new FleetPrefixIndex(OwnerRule.FIRST);
        for (long h = 1; h <= 5; h++) {
            index.merge(h, "http://w1", h);
        }
        index.merge(100, "http://w2", 1);
        index.longest(new RoutedPrefix(new long[] {1}, new int[] {64}, 64), url -> true); // 1 is now the most recent
        assertThat(index.evict(owner -> 2)).isEqualTo(3);
        assertThat(index.ownerOf(1)).isEqualTo("http://w1");
        assertThat(index.ownerOf(5)).isEqualTo("http://w1");
        assertThat(index.ownerOf(2)).isNull();
        assertThat(index.ownerOf(100)).isEqualTo("http://w2");
        assertThat(index.countsByOwner()).isEqualTo(Map.of("http://w1", 2L, "http://w2", 1L));
    }

    @Test
    void removingAnOwnerDropsItsEntriesOnly() {
        FleetPrefixIndex index = new FleetPrefixIndex(OwnerRule.FIRST);
        index.merge(1, "http://w1", 1);
        index.merge(2, "http://w2", 1);
        assertThat(index.removeOwner("http://w1")).isEqualTo(1);
        assertThat(index.export()).containsExactly(new FleetPrefixIndex.Entry(2, "http://w2", 1));
    }

    @Test
    void routedDecisionsPublishOnlyWhatWasNew() {
        FleetPrefixIndex index = new FleetPrefixIndex(OwnerRule.FIRST);
        List<PrefixDecision> published = new java.util.ArrayList<>();
        long[] clock = {10};
        FleetPrefixes fleet = new FleetPrefixes(new PrefixHasher(new byte[] {1}), index, () -> clock[0]++,
                published::add);
        RoutedPrefix first = fleet.digest("m", "p".repeat(200) + "one");
        RoutedPrefix second = fleet.digest("m", "p".repeat(200) + "two");
        fleet.routed(first, "http://w1");
        fleet.routed(second, "http://w1");
        fleet.routed(second, "http://w1");
        assertThat(published).hasSize(2);
        assertThat(published.get(0).hashes()).hasSize(4);        // 64, 128, 192, 203
        assertThat(published.get(1).hashes()).containsExactly(second.hashes()[3]); // only its own end was new
    }
}
