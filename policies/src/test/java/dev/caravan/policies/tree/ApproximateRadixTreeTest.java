package dev.caravan.policies.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class ApproximateRadixTreeTest {

    private final ApproximateRadixTree tree = new ApproximateRadixTree();

    private static String randomText(SplittableRandom r, int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('a' + r.nextInt(26)));
        }
        return sb.toString();
    }

    @Test
    void coldStartMatchesNothingAndHasNoTenant() {
        PrefixMatch m = tree.prefixMatch("hello");
        assertThat(m.matchedChars()).isZero();
        assertThat(m.inputChars()).isEqualTo(5);
        assertThat(m.hasTenant()).isFalse();
        assertThat(m.matchedText("hello")).isEmpty();
        assertThat(m.matchRate()).isZero();
    }

    @Test
    void exactMatchesReturnTheFullTextAndItsTenant() {
        tree.insert("hello", "t1");
        tree.insert("apple", "t2");
        tree.insert("banana", "t3");
        for (String[] c : new String[][] {{"hello", "t1"}, {"apple", "t2"}, {"banana", "t3"}}) {
            PrefixMatch m = tree.prefixMatch(c[0]);
            assertThat(m.matchedText(c[0])).isEqualTo(c[0]);
            assertThat(m.tenant()).isEqualTo(c[1]);
            assertThat(m.matchRate()).isEqualTo(1.0);
        }
        assertThat(tree.tenantCharCounts()).containsExactlyInAnyOrderEntriesOf(
                Map.of("t1", 5L, "t2", 5L, "t3", 6L));
        tree.verify();
    }

    @Test
    void insertReturnsWhatTheTenantHoldsAfterIt() {
        assertThat(tree.insert("", "t1")).isZero();
        assertThat(tree.insert("hello", "t1")).isEqualTo(5);
        assertThat(tree.insert("help", "t1")).isEqualTo(6); // "hel" shared, "p" new
        assertThat(tree.insert("hello", "t1")).isEqualTo(6);
        assertThat(tree.insert("help", "t2")).isEqualTo(4);
        assertThat(tree.tenantChars("t1")).isEqualTo(6);
        tree.verify();
    }

    @Test
    void splitsByCharacterNotByteForUtf8Text() {
        tree.insert("你好嗎", "t1");
        tree.insert("你好喔", "t2");
        tree.insert("你心情好嗎", "t3");
        assertThat(tree.prefixMatch("你好嗎")).isEqualTo(new PrefixMatch("t1", 3, 3));
        assertThat(tree.prefixMatch("你好喔")).isEqualTo(new PrefixMatch("t2", 3, 3));
        assertThat(tree.prefixMatch("你心情好嗎")).isEqualTo(new PrefixMatch("t3", 5, 5));
        assertThat(tree.tenantCharCounts()).containsExactlyInAnyOrderEntriesOf(
                Map.of("t1", 3L, "t2", 3L, "t3", 5L));
        assertThat(tree.storedChars()).isEqualTo(1 + 1 + 1 + 1 + 4); // 你 | 好 | 嗎 | 喔 | 心情好嗎
        tree.verify();
    }

    @Test
    void neverSplitsASurrogatePairAndCountsCodePoints() {
        // U+1F600 and U+1F601 share their high surrogate; they are different characters.
        String a = "x\uD83D\uDE00y";
        String b = "x\uD83D\uDE01z";
        tree.insert(a, "t1");
        tree.insert(b, "t2");
        assertThat(tree.prefixMatch(a)).isEqualTo(new PrefixMatch("t1", 3, 3));
        assertThat(tree.prefixMatch(b)).isEqualTo(new PrefixMatch("t2", 3, 3));
        PrefixMatch partial = tree.prefixMatch("x\uD83D\uDE02");
        assertThat(partial.matchedChars()).isEqualTo(1);
        assertThat(partial.inputChars()).isEqualTo(2);
        assertThat(tree.tenantChars("t1")).isEqualTo(3);
        tree.verify();
    }

    @Test
    void partialEdgeMatchCountsSharedCharactersAndReportsThatEdgesTenant() {
        tree.insert("hello world", "t1");
        PrefixMatch m = tree.prefixMatch("hello there");
        assertThat(m).isEqualTo(new PrefixMatch("t1", 6, 11));
        assertThat(m.matchedText("hello there")).isEqualTo("hello ");
    }

    @Test
    void reportsTheFirstOwnerOfASharedNodeWhileItIsThere() {
        tree.insert("shared prefix", "t1");
        tree.insert("shared prefix", "t2");
        tree.insert("shared prefix and more", "t2");
        assertThat(tree.prefixMatch("shared prefix").tenant()).isEqualTo("t1");
        assertThat(tree.prefixMatch("shared prefix and more").tenant()).isEqualTo("t2");
        tree.insert("shared prefix", "t1");
        tree.insert("shared prefix", "t3");
        assertThat(tree.prefixMatch("shared prefix").tenant()).isEqualTo("t1");
        tree.removeTenant("t1");
        assertThat(tree.prefixMatch("shared prefix").tenant()).isEqualTo("t2"); // the earliest still there
    }

    @Test
    void latestOwnerRuleReportsTheLastInserterAmongTenantsSharingTheDeepestNode() {
        ApproximateRadixTree latest = new ApproximateRadixTree(OwnerRule.LATEST);
        latest.insert("shared prefix", "t1");
        latest.insert("shared prefix", "t2");
        assertThat(latest.prefixMatch("shared prefix").tenant()).isEqualTo("t2");
        latest.insert("shared prefix", "t1");
        assertThat(latest.prefixMatch("shared prefix").tenant()).isEqualTo("t1");
        latest.insert("shared", "t3");
        assertThat(latest.prefixMatch("shared").tenant()).isEqualTo("t3");
        assertThat(latest.prefixMatch("").tenant()).isEqualTo("t3");
        latest.removeTenant("t3");
        assertThat(latest.prefixMatch("shared").tenant()).isEqualTo("t1"); // owner gone: the earliest still there
        assertThat(latest.ownerRule()).isEqualTo(OwnerRule.LATEST);
        latest.verify();
    }

    @Test
    void ownerRuleParsesItsOptionValues() {
        assertThat(OwnerRule.fromWireName(" First ")).isEqualTo(OwnerRule.FIRST);
        assertThat(OwnerRule.fromWireName("latest")).isEqualTo(OwnerRule.LATEST);
        assertThat(tree.ownerRule()).isEqualTo(OwnerRule.FIRST);
        assertThatThrownBy(() -> OwnerRule.fromWireName("newest"))
                .hasMessage("must be first or latest, was 'newest'");
    }

    @Test
    void sharedTextIsStoredOnceButCountedPerTenant() {
        tree.insert("abcdef", "t1");
        tree.insert("abcxyz", "t2");
        assertThat(tree.storedChars()).isEqualTo(9); // abc + def + xyz
        assertThat(tree.nodeCount()).isEqualTo(4);
        assertThat(tree.tenantChars("t1")).isEqualTo(6);
        assertThat(tree.tenantChars("t2")).isEqualTo(6);
        tree.verify();
    }

    @Test
    void insertingTheEmptyStringRegistersTheTenantWithZeroChars() {
        tree.insert("", "t1");
        assertThat(tree.hasTenant("t1")).isTrue();
        assertThat(tree.tenantCharCounts()).containsExactly(Map.entry("t1", 0L));
        assertThat(tree.prefixMatch("abc")).isEqualTo(new PrefixMatch("t1", 0, 3));
    }

    @Test
    void reinsertingSameTextDoesNotGrowCounts() {
        tree.insert("hello", "t1");
        tree.insert("hello", "t1");
        tree.insert("hel", "t1");
        assertThat(tree.tenantChars("t1")).isEqualTo(5);
        assertThat(tree.storedChars()).isEqualTo(5);
        tree.verify();
    }

    @Test
    void simpleEvictionTrimsOnlyTheOverBudgetTenantOldestLeafFirst() {
        tree.insert("hello", "t1");
        tree.insert("hello", "t2");
        tree.insert("world", "t2");
        assertThat(tree.tenantCharCounts()).containsExactlyInAnyOrderEntriesOf(Map.of("t1", 5L, "t2", 10L));

        long evicted = tree.evictTenantBySize(5);

        assertThat(evicted).isEqualTo(5);
        assertThat(tree.tenantCharCounts()).containsExactlyInAnyOrderEntriesOf(Map.of("t1", 5L, "t2", 5L));
        assertThat(tree.prefixMatch("world")).isEqualTo(new PrefixMatch("t2", 5, 5));
        assertThat(tree.prefixMatch("hello")).isEqualTo(new PrefixMatch("t1", 5, 5));
        tree.verify();
    }

    @Test
    void advancedEvictionBringsEveryTenantWithinBudget() {
        SplittableRandom r = new SplittableRandom(5);
        String prefix = "0123456789";
        for (int t = 0; t < 4; t++) {
            for (int i = 0; i < 100; i++) {
                tree.insert(prefix + randomText(r, 10), "tenant" + t);
            }
        }
        tree.evictTenantBySize(100);
        assertThat(tree.tenantCharCounts()).hasSize(4);
        assertThat(tree.tenantCharCounts().values()).allSatisfy(c -> assertThat(c).isLessThanOrEqualTo(100));
        tree.verify();
    }

    @Test
    void evictionRemovesLeastRecentlyInsertedTextFirst() {
        tree.insert("aaaa", "t");
        tree.insert("bbbb", "t");
        tree.insert("cccc", "t");
        tree.insert("aaaa", "t"); // refreshes aaaa
        tree.evictTenantBySize(8);
        assertThat(tree.prefixMatch("bbbb").matchedChars()).isZero();
        assertThat(tree.prefixMatch("aaaa").matchedChars()).isEqualTo(4);
        assertThat(tree.prefixMatch("cccc").matchedChars()).isEqualTo(4);
    }

    @Test
    void aPrefixInUseOutlivesOlderTextWhenItsOwnSuffixesAreEvicted() {
        tree.insert("old unrelated text", "t");                        // 18 chars, used once long ago
        tree.insert("shared system prompt: question 1", "t");
        tree.insert("shared system prompt: question 2", "t");        // the prefix is now the most recently used
        long prefixChars = "shared system prompt: question ".length();

        tree.evictTenantChars("t", 1);                                 // the oldest leaf: the old text
        tree.evictTenantChars("t", 1);                                 // then question 1's suffix, not the prefix

        assertThat(tree.prefixMatch("old unrelated text").matchedChars()).isZero();
        assertThat(tree.prefixMatch("shared system prompt: question 3").matchedChars()).isEqualTo(prefixChars);
        assertThat(tree.tenantChars("t")).isEqualTo(prefixChars + 1);
        tree.verify();
    }

    @Test
    void evictionClimbsIntoInteriorNodesOnceTheirChildrenAreGone() {
        tree.insert("system prompt A", "t");
        tree.insert("system prompt B", "t");
        tree.evictTenantBySize(0);
        assertThat(tree.tenantChars("t")).isZero();
        assertThat(tree.nodeCount()).isEqualTo(1);
        assertThat(tree.storedChars()).isZero();
        assertThat(tree.hasTenant("t")).isTrue();
        tree.verify();
    }

    @Test
    void evictionLeavesOtherTenantsSharedNodesInPlace() {
        tree.insert("common-prefix-1", "t1");
        tree.insert("common-prefix-2", "t2");
        tree.evictTenantBySize(0);
        assertThat(tree.nodeCount()).isEqualTo(1);
        tree.insert("common-prefix-1", "t1");
        tree.insert("common-prefix-2", "t2");
        tree.evictTenantTo("t1", 0);
        assertThat(tree.prefixMatch("common-prefix-2")).isEqualTo(new PrefixMatch("t2", 15, 15));
        assertThat(tree.tenantChars("t1")).isZero();
        tree.verify();
    }

    @Test
    void perTenantBudgetsEvictEachTenantToItsOwnLimit() {
        for (int i = 0; i < 10; i++) {
            tree.insert("doc" + i + "-0123456789", "big");
            tree.insert("doc" + i + "-0123456789", "small");
        }
        tree.evictTenantsBySize(t -> t.equals("small") ? 30 : 1000);
        assertThat(tree.tenantChars("big")).isEqualTo(3 + 10 * 12); // "doc" shared, then "i-0123456789"
        assertThat(tree.tenantChars("small")).isLessThanOrEqualTo(30);
        tree.verify();
    }

    @Test
    void evictTenantCharsRemovesAboutThatManyOldestCharsOfOneTenant() {
        tree.insert("first-entry", "w");   // 11
        tree.insert("second-entry", "w");  // 12
        tree.insert("third-entry", "w");   // 11
        tree.insert("first-entry", "x");
        long removed = tree.evictTenantChars("w", 10);
        assertThat(removed).isEqualTo(11);
        assertThat(tree.tenantChars("w")).isEqualTo(23);
        assertThat(tree.tenantChars("x")).isEqualTo(11);
        assertThat(tree.prefixMatch("first-entry").tenant()).isEqualTo("x");
        assertThat(tree.prefixMatch("second-entry")).isEqualTo(new PrefixMatch("w", 12, 12));
        tree.verify();
    }

    @Test
    void removeTenantKeepsOtherTenantsMatchesAndDropsItsCount() {
        tree.insert("hello world", "t1");
        tree.insert("hello there", "t2");
        tree.insert("goodbye", "t1");
        long held = tree.removeTenant("t1");
        assertThat(held).isEqualTo(18);
        assertThat(tree.hasTenant("t1")).isFalse();
        assertThat(tree.tenantCharCounts()).containsExactly(Map.entry("t2", 11L));
        assertThat(tree.prefixMatch("hello there")).isEqualTo(new PrefixMatch("t2", 11, 11));
        assertThat(tree.prefixMatch("goodbye").matchedChars()).isZero();
        assertThat(tree.prefixMatch("hello world").matchedChars()).isEqualTo(6);
        assertThat(tree.storedChars()).isEqualTo(11);
        assertThat(tree.removeTenant("t1")).isZero();
        tree.verify();
    }

    @Test
    void removedTenantCanComeBack() {
        tree.insert("abc", "t1");
        tree.removeTenant("t1");
        tree.insert("abd", "t1");
        assertThat(tree.tenantChars("t1")).isEqualTo(3);
        assertThat(tree.prefixMatch("abc").matchedChars()).isEqualTo(2);
        tree.verify();
    }

    @Test
    void matchedCharsByTenantReportsEachTenantsDeepestPrefix() {
        tree.insert("system: be brief. user: hi", "a");
        tree.insert("system: be brief. user: bye", "b");
        tree.insert("system: other", "c");
        Map<String, Long> m = tree.matchedCharsByTenant("system: be brief. user: hi there");
        assertThat(m).containsExactlyInAnyOrderEntriesOf(Map.of("a", 26L, "b", 24L, "c", 8L));
    }

    @Test
    void everyEighthMatchRefreshesTheMatchedLeafSoItOutlivesNewerText() {
        tree.insert("old", "t");
        tree.insert("new", "t");
        for (int i = 0; i < 8; i++) {
            tree.prefixMatch("old");
        }
        tree.evictTenantBySize(3);
        assertThat(tree.prefixMatch("old").matchedChars()).isEqualTo(3);
        assertThat(tree.prefixMatch("new").matchedChars()).isZero();
    }
}
