package dev.caravan.policies.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SGLang's radix-tree tests replayed against {@link ApproximateRadixTree}: every {@code #[test]} of
 * {@code src/policies/tree.rs} in {@code lightseekorg/smg} at {@code c7f9bf9f5} (smg 0.3.2, 2026-01-15, the last release
 * of SGLang's {@code sgl-model-gateway} made in the SGLang repository). Scenarios and expected outcomes are SGLang's;
 * the code is ours. Each test names the SGLang test it mirrors.
 *
 * <p>Where SGLang's test accepts several outcomes (a shared node "owned by either"), the mirror asserts the one our
 * default {@link OwnerRule#FIRST} gives, which is what SGLang's own rule gives too. Where SGLang's test sleeps (to order
 * timestamps, or to run for ten seconds), the mirror relies on the tree's monotonic epoch or bounds the work by counts.
 * SGLang's {@code get_used_size_per_tenant} (a recount of the structure) is {@link ApproximateRadixTree#verify()} here,
 * and its maintained {@code tenant_char_count} is {@link ApproximateRadixTree#tenantCharCounts()}.
 */
class SglangTreeScenariosTest {

    private final ApproximateRadixTree tree = new ApproximateRadixTree();
    private final ExecutorService pool = Executors.newFixedThreadPool(8);

    @AfterEach
    void stopThreads() {
        pool.shutdownNow();
    }

    /** Runs every task at once and rethrows the first failure. */
    private void runConcurrently(List<Callable<Void>> tasks) throws Exception {
        for (Future<Void> f : pool.invokeAll(tasks, 60, TimeUnit.SECONDS)) {
            f.get();
        }
    }

    private static Callable<Void> task(Runnable r) {
        return () -> {
            r.run();
            return null;
        };
    }

    private String matchedText(String text) {
        return tree.prefixMatch(text).matchedText(text);
    }

    private String tenantOf(String text) {
        return tree.prefixMatch(text).tenant();
    }

    /** SGLang's {@code prefix_match_tenant(text, tenant)}: the prefix of {@code text} that tenant holds. */
    private String heldBy(String text, String tenant) {
        long chars = tree.matchedCharsByTenant(text).getOrDefault(tenant, 0L);
        return text.substring(0, text.offsetByCodePoints(0, (int) chars));
    }

    private static String randomAlnum(SplittableRandom r, int n) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    private void assertCountsMatchRecount() {
        assertThat(tree.tenantCharCounts()).containsExactlyInAnyOrderEntriesOf(tree.verify());
    }

    @Test
    void maintainedCountsEqualARecountThroughInsertsAndEviction() {
        // mirrors sglang tree.rs test_tenant_char_count
        tree.insert("apple", "tenant1");
        tree.insert("apricot", "tenant1");
        tree.insert("banana", "tenant1");
        tree.insert("amplify", "tenant2");
        tree.insert("application", "tenant2");
        assertCountsMatchRecount();
        tree.insert("apartment", "tenant1");
        tree.insert("appetite", "tenant2");
        tree.insert("ball", "tenant1");
        tree.insert("box", "tenant2");
        assertCountsMatchRecount();
        tree.insert("zebra", "tenant1");
        tree.insert("zebra", "tenant2");
        tree.insert("zero", "tenant1");
        tree.insert("zero", "tenant2");
        assertCountsMatchRecount();
        tree.evictTenantBySize(10);
        assertCountsMatchRecount();
        assertThat(tree.tenantCharCounts().values()).allSatisfy(c -> assertThat(c).isLessThanOrEqualTo(10));
    }

    @Test
    void coldStartMatchesNothingAndReportsNoTenant() {
        // mirrors sglang tree.rs test_cold_start (SGLang's tenant "empty" is our null tenant)
        PrefixMatch m = tree.prefixMatch("hello");
        assertThat(m.matchedText("hello")).isEmpty();
        assertThat(m.hasTenant()).isFalse();
    }

    @Test
    void exactMatchesReturnTheTextAndItsTenant() {
        // mirrors sglang tree.rs test_exact_match_seq
        tree.insert("hello", "tenant1");
        tree.insert("apple", "tenant2");
        tree.insert("banana", "tenant3");
        assertThat(tree.prefixMatch("hello")).isEqualTo(new PrefixMatch("tenant1", 5, 5));
        assertThat(tree.prefixMatch("apple")).isEqualTo(new PrefixMatch("tenant2", 5, 5));
        assertThat(tree.prefixMatch("banana")).isEqualTo(new PrefixMatch("tenant3", 6, 6));
    }

    @Test
    void concurrentInsertsThenConcurrentMatchesFindEachTenant() throws Exception {
        // mirrors sglang tree.rs test_exact_match_concurrent
        String[] texts = {"hello", "apple", "banana"};
        String[] tenants = {"tenant1", "tenant2", "tenant3"};
        List<Callable<Void>> inserts = new ArrayList<>();
        List<Callable<Void>> matches = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String text = texts[i];
            String tenant = tenants[i];
            inserts.add(task(() -> tree.insert(text, tenant)));
            matches.add(task(() -> assertThat(tree.prefixMatch(text)).isEqualTo(
                    new PrefixMatch(tenant, text.length(), text.length()))));
        }
        runConcurrently(inserts);
        runConcurrently(matches);
    }

    @Test
    void concurrentInsertsOfOverlappingTextsByOneTenantMatchFully() throws Exception {
        // mirrors sglang tree.rs test_partial_match_concurrent
        String[] texts = {"apple", "apabc", "acbdeds"};
        List<Callable<Void>> inserts = new ArrayList<>();
        List<Callable<Void>> matches = new ArrayList<>();
        for (String text : texts) {
            inserts.add(task(() -> tree.insert(text, "tenant0")));
            matches.add(task(() -> assertThat(tree.prefixMatch(text)).isEqualTo(
                    new PrefixMatch("tenant0", text.length(), text.length()))));
        }
        runConcurrently(inserts);
        runConcurrently(matches);
        assertCountsMatchRecount();
    }

    private static final String[] LYRIC_PREFIXES = {
        "Clock strikes midnight, I'm still wide awake",
        "Got dreams bigger than these city lights",
        "Time waits for no one, gotta make my move",
        "Started from the bottom, that's no metaphor",
    };
    private static final String[] LYRIC_SUFFIXES = {
        "Got too much to prove, ain't got time to lose",
        "History in the making, yeah, you can't erase this",
    };

    private List<Callable<Void>> lyricInserts() {
        List<Callable<Void>> inserts = new ArrayList<>();
        for (int i = 0; i < LYRIC_PREFIXES.length; i++) {
            for (String suffix : LYRIC_SUFFIXES) {
                String text = LYRIC_PREFIXES[i] + " " + suffix;
                String tenant = "tenant" + i;
                inserts.add(task(() -> tree.insert(text, tenant)));
            }
        }
        return inserts;
    }

    @Test
    void concurrentGroupInsertsMatchEachGroupsPrefixToItsTenant() throws Exception {
        // mirrors sglang tree.rs test_group_prefix_insert_match_concurrent
        runConcurrently(lyricInserts());
        List<Callable<Void>> matches = new ArrayList<>();
        for (int i = 0; i < LYRIC_PREFIXES.length; i++) {
            String prefix = LYRIC_PREFIXES[i];
            String tenant = "tenant" + i;
            matches.add(task(() -> assertThat(tree.prefixMatch(prefix)).isEqualTo(
                    new PrefixMatch(tenant, prefix.length(), prefix.length()))));
        }
        runConcurrently(matches);
    }

    @Test
    void mixedConcurrentInsertsAndMatchesFinishAndKeepCountsExact() throws Exception {
        // mirrors sglang tree.rs test_mixed_concurrent_insert_match (SGLang checks only that it does not deadlock)
        List<Callable<Void>> tasks = lyricInserts();
        for (String prefix : LYRIC_PREFIXES) {
            tasks.add(task(() -> tree.prefixMatch(prefix)));
        }
        runConcurrently(tasks);
        assertCountsMatchRecount();
        assertThat(tree.tenantCharCounts()).hasSize(4);
    }

    private static final String[][] UTF8_PAIRS = {{"你好嗎", "tenant1"}, {"你好喔", "tenant2"}, {"你心情好嗎", "tenant3"}};

    @Test
    void utf8TextSplitsByCharacterNotByte() {
        // mirrors sglang tree.rs test_utf8_split_seq
        for (String[] p : UTF8_PAIRS) {
            tree.insert(p[0], p[1]);
        }
        for (String[] p : UTF8_PAIRS) {
            assertThat(tree.prefixMatch(p[0])).isEqualTo(new PrefixMatch(p[1], p[0].length(), p[0].length()));
        }
    }

    @Test
    void utf8TextInsertedConcurrentlySplitsByCharacter() throws Exception {
        // mirrors sglang tree.rs test_utf8_split_concurrent
        List<Callable<Void>> inserts = new ArrayList<>();
        List<Callable<Void>> matches = new ArrayList<>();
        for (String[] p : UTF8_PAIRS) {
            inserts.add(task(() -> tree.insert(p[0], p[1])));
            matches.add(task(() -> assertThat(tree.prefixMatch(p[0])).isEqualTo(
                    new PrefixMatch(p[1], p[0].length(), p[0].length()))));
        }
        runConcurrently(inserts);
        runConcurrently(matches);
    }

    @Test
    void evictionTrimsTheOverBudgetTenantsOldestLeafOnly() {
        // mirrors sglang tree.rs test_simple_eviction (SGLang sleeps 10 ms to order the inserts; our epoch orders them)
        tree.insert("hello", "tenant1");
        tree.insert("hello", "tenant2");
        tree.insert("world", "tenant2");
        assertThat(tree.verify()).containsEntry("tenant1", 5L).containsEntry("tenant2", 10L);
        tree.evictTenantBySize(5);
        assertThat(tree.verify()).containsEntry("tenant1", 5L).containsEntry("tenant2", 5L);
        assertThat(tree.prefixMatch("world")).isEqualTo(new PrefixMatch("tenant2", 5, 5));
        assertThat(tree.prefixMatch("hello").tenant()).isEqualTo("tenant1");
    }

    @Test
    void evictionBringsEveryTenantWithinBudgetWithSharedPrefixes() {
        // mirrors sglang tree.rs test_advanced_eviction (seeded suffixes instead of thread_rng)
        SplittableRandom r = new SplittableRandom(22);
        String[] prefixes = {"aqwefcisdf", "iajsdfkmade", "kjnzxcvewqe", "iejksduqasd"};
        for (int i = 0; i < 100; i++) {
            for (int j = 0; j < prefixes.length; j++) {
                tree.insert(prefixes[j] + randomAlnum(r, 10), "tenant" + (j + 1));
            }
        }
        tree.evictTenantBySize(100);
        assertThat(tree.verify().values()).hasSize(4).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(100));
    }

    @Test
    void concurrentInsertsAndMatchesWithARepeatedEvictorEndWithinBudget() throws Exception {
        // mirrors sglang tree.rs test_concurrent_operations_with_eviction (bounded by operations, not 10 s of sleeps)
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            tasks.add(task(() -> {
                SplittableRandom r = new SplittableRandom(id);
                String prefix = "prefix" + id;
                for (int i = 0; i < 3_000; i++) {
                    if (r.nextInt(10) < 7) {
                        tree.prefixMatch(prefix + randomAlnum(r, 3 + r.nextInt(7)));
                    } else {
                        tree.insert(prefix + randomAlnum(r, 5 + r.nextInt(10)), "tenant" + (id + 1));
                    }
                }
            }));
        }
        tasks.add(task(() -> {
            for (int i = 0; i < 20; i++) {
                tree.evictTenantBySize(100);
            }
        }));
        runConcurrently(tasks);
        tree.evictTenantBySize(100);
        assertThat(tree.verify().values()).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(100));
        assertCountsMatchRecount();
    }

    @Test
    void aNodeIsEvictableForATenantOnlyWhileNoChildCarriesIt() {
        // mirrors sglang tree.rs test_leaf_of through eviction, which is what leaf_of serves (we keep no leaf_of API)
        tree.insert("hello", "tenant1");
        tree.insert("hello", "tenant2");
        tree.insert("hi", "tenant1"); // "h" now has children carrying tenant1 ("i") and tenant2 ("ello")
        assertThat(tree.verify()).containsEntry("tenant1", 6L).containsEntry("tenant2", 5L);
        tree.evictTenantTo("tenant1", 1); // tenant1's leaves are "ello" (older) and "i"; "h" is not one of them
        assertThat(tree.verify()).containsEntry("tenant1", 1L).containsEntry("tenant2", 5L);
        assertThat(heldBy("hello", "tenant1")).isEqualTo("h");
        assertThat(heldBy("hello", "tenant2")).isEqualTo("hello");
    }

    @Test
    void usedSizePerTenantCountsSharedNodesForEachTenantAndCharactersNotBytes() {
        // mirrors sglang tree.rs test_get_used_size_per_tenant
        tree.insert("hello", "tenant1");
        tree.insert("world", "tenant1");
        assertThat(tree.verify()).containsEntry("tenant1", 10L);
        tree.insert("hello", "tenant2");
        tree.insert("help", "tenant2");
        assertThat(tree.verify()).containsEntry("tenant1", 10L).containsEntry("tenant2", 6L);
        tree.insert("你好", "tenant3");
        assertThat(tree.verify()).containsEntry("tenant3", 2L);
    }

    @Test
    void eachTenantHoldsOnlyThePathsItInserted() {
        // mirrors sglang tree.rs test_prefix_match_tenant (SGLang's prefix_match_tenant is our matchedCharsByTenant)
        tree.insert("hello", "tenant1");
        tree.insert("hello", "tenant2");
        tree.insert("hello world", "tenant2");
        tree.insert("help", "tenant1");
        tree.insert("helicopter", "tenant2");
        assertThat(heldBy("hello", "tenant1")).isEqualTo("hello");
        assertThat(heldBy("help", "tenant1")).isEqualTo("help");
        assertThat(heldBy("hel", "tenant1")).isEqualTo("hel");
        assertThat(heldBy("hello world", "tenant1")).isEqualTo("hello");
        assertThat(heldBy("helicopter", "tenant1")).isEqualTo("hel");
        assertThat(heldBy("hello", "tenant2")).isEqualTo("hello");
        assertThat(heldBy("hello world", "tenant2")).isEqualTo("hello world");
        assertThat(heldBy("helicopter", "tenant2")).isEqualTo("helicopter");
        assertThat(heldBy("hel", "tenant2")).isEqualTo("hel");
        assertThat(heldBy("help", "tenant2")).isEqualTo("hel");
        assertThat(heldBy("hello", "tenant3")).isEmpty();
        assertThat(heldBy("help", "tenant3")).isEmpty();
    }

    @Test
    void removingATenantLeavesTheOtherUntouched() {
        // mirrors sglang tree.rs test_simple_tenant_eviction
        tree.insert("hello", "tenant1");
        tree.insert("world", "tenant1");
        tree.insert("hello", "tenant2");
        tree.insert("help", "tenant2");
        assertThat(tree.verify()).containsEntry("tenant1", 10L).containsEntry("tenant2", 6L);
        tree.removeTenant("tenant1");
        assertThat(tree.verify()).containsOnlyKeys("tenant2").containsEntry("tenant2", 6L);
        assertThat(heldBy("hello", "tenant1")).isEmpty();
        assertThat(heldBy("world", "tenant1")).isEmpty();
        assertThat(heldBy("hello", "tenant2")).isEqualTo("hello");
        assertThat(heldBy("help", "tenant2")).isEqualTo("help");
    }

    @Test
    void removingATenantFromAComplexTreeKeepsTheOthersPathsAndCount() {
        // mirrors sglang tree.rs test_complex_tenant_eviction
        tree.insert("apple", "tenant1");
        tree.insert("application", "tenant1");
        tree.insert("apple", "tenant2");
        tree.insert("appetite", "tenant2");
        tree.insert("banana", "tenant1");
        tree.insert("banana", "tenant2");
        tree.insert("ball", "tenant2");
        tree.removeTenant("tenant1");
        Map<String, Long> sizes = tree.verify();
        assertThat(sizes).doesNotContainKey("tenant1");
        for (String text : new String[] {"apple", "application", "banana"}) {
            assertThat(heldBy(text, "tenant1")).isEmpty();
        }
        for (String text : new String[] {"apple", "appetite", "banana", "ball"}) {
            assertThat(heldBy(text, "tenant2")).isEqualTo(text);
        }
        assertThat(sizes).containsEntry("tenant2", (long) (5 + 5 + 6 + 2)); // apple + etite + banana + ll
    }

    @Test
    void emptyStringRegistersTheTenantAndMatchesItsFirstOwner() {
        // mirrors sglang tree.rs test_empty_string_input: the first owner is reported, not the latest inserter
        tree.insert("", "tenant1");
        assertThat(tree.prefixMatch("")).isEqualTo(new PrefixMatch("tenant1", 0, 0));
        tree.insert("hello", "tenant2");
        assertThat(tree.prefixMatch("")).isEqualTo(new PrefixMatch("tenant1", 0, 0));
    }

    @Test
    void singleCharacterTextsMatchAndStopAtTheFirstMismatch() {
        // mirrors sglang tree.rs test_single_character_operations
        tree.insert("a", "tenant1");
        tree.insert("b", "tenant2");
        tree.insert("c", "tenant1");
        assertThat(tree.prefixMatch("a")).isEqualTo(new PrefixMatch("tenant1", 1, 1));
        assertThat(tree.prefixMatch("b")).isEqualTo(new PrefixMatch("tenant2", 1, 1));
        assertThat(tree.prefixMatch("abc")).isEqualTo(new PrefixMatch("tenant1", 1, 3));
    }

    @Test
    void aPrefixOfAnExistingTextIsSharedAndKeepsItsFirstOwner() {
        // mirrors sglang tree.rs test_prefix_is_subset_of_existing (SGLang accepts either tenant for "app"; its rule
        // and ours give tenant1, whose node the split inherited)
        tree.insert("application", "tenant1");
        tree.insert("app", "tenant2");
        assertThat(tree.prefixMatch("app")).isEqualTo(new PrefixMatch("tenant1", 3, 3));
        assertThat(tree.prefixMatch("application")).isEqualTo(new PrefixMatch("tenant1", 11, 11));
        assertThat(matchedText("apple")).isEqualTo("appl");
    }

    @Test
    void anExistingTextThatIsAPrefixOfANewOneKeepsItsOwner() {
        // mirrors sglang tree.rs test_existing_is_prefix_of_new (SGLang accepts either tenant for "app"; tenant1
        // created that node)
        tree.insert("app", "tenant1");
        tree.insert("application", "tenant2");
        assertThat(tree.prefixMatch("app")).isEqualTo(new PrefixMatch("tenant1", 3, 3));
        assertThat(tree.prefixMatch("application")).isEqualTo(new PrefixMatch("tenant2", 11, 11));
        assertThat(matchedText("applesauce")).isEqualTo("appl");
    }

    @Test
    void matchCountsAreExactForFullPartialExtendedAndMissingMatches() {
        // mirrors sglang tree.rs test_prefix_match_with_counts_accuracy
        tree.insert("hello world", "tenant1");
        assertThat(tree.prefixMatch("hello world")).isEqualTo(new PrefixMatch("tenant1", 11, 11));
        assertThat(tree.prefixMatch("hello")).isEqualTo(new PrefixMatch("tenant1", 5, 5));
        assertThat(tree.prefixMatch("hello world and more")).isEqualTo(new PrefixMatch("tenant1", 11, 20));
        PrefixMatch none = tree.prefixMatch("goodbye");
        assertThat(none.matchedChars()).isZero();
        assertThat(none.inputChars()).isEqualTo(7);
    }

    @Test
    void matchCountsAreInCharactersForUtf8AndMixedText() {
        // mirrors sglang tree.rs test_prefix_match_with_counts_utf8
        tree.insert("你好世界呀", "tenant1");
        assertThat(tree.prefixMatch("你好世界呀")).isEqualTo(new PrefixMatch("tenant1", 5, 5));
        assertThat(tree.prefixMatch("你好")).isEqualTo(new PrefixMatch("tenant1", 2, 2));
        tree.insert("hello你好", "tenant2");
        assertThat(tree.prefixMatch("hello你好世界")).isEqualTo(new PrefixMatch("tenant2", 7, 9));
    }

    @Test
    void splittingAtTheFirstCharacterKeepsBothBranches() {
        // mirrors sglang tree.rs test_split_at_first_character
        tree.insert("abc", "tenant1");
        tree.insert("aXX", "tenant2");
        assertThat(tree.prefixMatch("abc")).isEqualTo(new PrefixMatch("tenant1", 3, 3));
        assertThat(tree.prefixMatch("aXX")).isEqualTo(new PrefixMatch("tenant2", 3, 3));
        assertThat(matchedText("a")).isEqualTo("a");
    }

    @Test
    void splittingAtTheLastSharedCharacterKeepsBothBranches() {
        // mirrors sglang tree.rs test_split_at_last_character
        tree.insert("abcd", "tenant1");
        tree.insert("abcX", "tenant2");
        assertThat(tree.prefixMatch("abcd")).isEqualTo(new PrefixMatch("tenant1", 4, 4));
        assertThat(tree.prefixMatch("abcX")).isEqualTo(new PrefixMatch("tenant2", 4, 4));
        assertThat(matchedText("abc")).isEqualTo("abc");
    }

    @Test
    void repeatedSplitsOnOnePathKeepEveryPrefixMatchable() {
        // mirrors sglang tree.rs test_multiple_splits_same_path
        tree.insert("abcdefgh", "tenant1");
        tree.insert("abcdef", "tenant2");
        tree.insert("abcd", "tenant3");
        tree.insert("ab", "tenant4");
        for (String text : new String[] {"abcdefgh", "abcdef", "abcd", "ab", "a"}) {
            assertThat(matchedText(text)).isEqualTo(text);
        }
        assertThat(tenantOf("ab")).isEqualTo("tenant1"); // every split inherited the first owner
        assertCountsMatchRecount();
    }

    @Test
    void sixteenThreadsInsertingAndMatchingOneSharedPrefixStayConsistent() throws Exception {
        // mirrors sglang tree.rs test_high_contention_same_prefix
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            String tenant = "tenant" + t;
            tasks.add(task(() -> {
                for (int i = 0; i < 100; i++) {
                    String text = "shared_prefix_" + i;
                    tree.insert(text, tenant);
                    assertThat(matchedText(text)).startsWith("shared_prefix_");
                }
            }));
        }
        runConcurrently(tasks);
        assertThat(tree.verify()).hasSize(16);
        assertCountsMatchRecount();
    }

    @Test
    void removedTenantsAreGoneAfterEachInsertRemoveCycle() {
        // mirrors sglang tree.rs test_rapid_insert_remove_cycles
        for (int cycle = 0; cycle < 50; cycle++) {
            String tenant = "tenant" + (cycle % 5);
            for (int i = 0; i < 10; i++) {
                tree.insert("cycle" + cycle + "entry" + i, tenant);
            }
            tree.removeTenant(tenant);
            assertThat(tree.verify()).doesNotContainKey(tenant);
            assertThat(tree.hasTenant(tenant)).isFalse();
        }
        assertThat(tree.nodeCount()).isEqualTo(1);
    }

    @Test
    void asciiUtf8AndMixedTextsAreAllRetrievableWithCharacterCounts() {
        // mirrors sglang tree.rs test_ascii_utf8_consistency
        tree.insert("hello", "tenant1");
        tree.insert("你好", "tenant2");
        tree.insert("hello你好", "tenant3");
        assertThat(tree.prefixMatch("hello")).isEqualTo(new PrefixMatch("tenant1", 5, 5));
        assertThat(tree.prefixMatch("你好")).isEqualTo(new PrefixMatch("tenant2", 2, 2));
        assertThat(tree.prefixMatch("hello你好")).isEqualTo(new PrefixMatch("tenant3", 7, 7));
    }

    @Test
    void emojiAreOneCharacterEachAndAPathKeepsItsFirstOwner() {
        // mirrors sglang tree.rs test_emoji_handling: "hello 👋" reports tenant1, which created the node, not tenant2,
        // the latest inserter through it
        tree.insert("hello 👋", "tenant1");
        tree.insert("hello 👋🌍", "tenant2");
        assertThat(tree.prefixMatch("hello 👋")).isEqualTo(new PrefixMatch("tenant1", 7, 7));
        assertThat(tree.prefixMatch("hello 👋🌍")).isEqualTo(new PrefixMatch("tenant2", 8, 8));
    }

    @Test
    void evictingAnEmptyTreeDoesNothing() {
        // mirrors sglang tree.rs test_eviction_empty_tree
        assertThat(tree.evictTenantBySize(100)).isZero();
        assertThat(tree.verify()).isEmpty();
    }

    @Test
    void evictingToZeroEmptiesEveryTenant() {
        // mirrors sglang tree.rs test_eviction_zero_max_size
        tree.insert("hello", "tenant1");
        tree.insert("world", "tenant1");
        assertThat(tree.evictTenantBySize(0)).isEqualTo(10);
        assertThat(tree.verify()).containsExactly(Map.entry("tenant1", 0L));
        assertThat(tree.nodeCount()).isEqualTo(1);
    }

    @Test
    void evictingOneTenantsManyEntriesStopsAtTheBudget() {
        // mirrors sglang tree.rs test_eviction_single_tenant_all_entries
        for (int i = 0; i < 100; i++) {
            tree.insert(String.format("entry%03d", i), "tenant1");
        }
        assertThat(tree.verify().get("tenant1")).isGreaterThan(50);
        tree.evictTenantBySize(50);
        assertThat(tree.verify().get("tenant1")).isLessThanOrEqualTo(50);
        assertThat(matchedText("entry099")).isEqualTo("entry099"); // the newest survive
        assertThat(matchedText("entry000")).isEqualTo("entry0"); // the oldest went first
    }

    @Test
    void aSecondInserterDoesNotTakeOverTheNodeAFirstOneCreated() {
        // mirrors sglang tree.rs test_last_tenant_cache_update (SGLang asserts only the match; the tenant is tenant1
        // by its rule, which we assert)
        tree.insert("hello", "tenant1");
        assertThat(tenantOf("hello")).isEqualTo("tenant1");
        tree.insert("hello", "tenant2");
        assertThat(tree.prefixMatch("hello")).isEqualTo(new PrefixMatch("tenant1", 5, 5));
    }

    @Test
    void aRemovedOwnerIsReplacedByATenantStillOnTheNode() {
        // mirrors sglang tree.rs test_stale_cache_after_tenant_removal
        tree.insert("hello", "tenant1");
        tree.insert("hello", "tenant2");
        tree.prefixMatch("hello");
        tree.removeTenant("tenant1");
        assertThat(tree.prefixMatch("hello")).isEqualTo(new PrefixMatch("tenant2", 5, 5));
    }

    @Test
    void countsMatchARecountAfterInsertsOverlapsEvictionAndRemoval() {
        // mirrors sglang tree.rs test_char_count_consistency_after_operations
        for (int i = 0; i < 50; i++) {
            tree.insert("prefix" + i, "tenant1");
            tree.insert("other" + i, "tenant2");
        }
        assertCountsMatchRecount();
        for (int i = 0; i < 25; i++) {
            tree.insert("prefix" + i, "tenant2");
        }
        assertCountsMatchRecount();
        tree.evictTenantBySize(100);
        assertCountsMatchRecount();
        tree.removeTenant("tenant1");
        assertCountsMatchRecount();
        assertThat(tree.tenantCharCounts()).containsOnlyKeys("tenant2");
    }

    @Test
    void structureStaysConsistentAfterRandomConcurrentInsertsAndMatches() throws Exception {
        // mirrors sglang tree.rs test_tree_structure_integrity_after_stress
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int id = t;
            tasks.add(task(() -> {
                SplittableRandom r = new SplittableRandom(100 + id);
                for (int i = 0; i < 200; i++) {
                    String key = "key" + r.nextInt(50);
                    if (r.nextInt(10) < 7) {
                        tree.insert(key, "tenant" + id);
                    } else {
                        tree.prefixMatch(key);
                    }
                }
            }));
        }
        runConcurrently(tasks);
        assertThat(tree.verify().values()).allSatisfy(size -> assertThat(size).isPositive());
        assertCountsMatchRecount();
    }

    @Test
    void aTenThousandCharacterTextMatchesWholeAndInPart() {
        // mirrors sglang tree.rs test_very_long_strings
        StringBuilder sb = new StringBuilder(10_000);
        for (int i = 0; i < 10_000; i++) {
            sb.append((char) ('a' + i % 26));
        }
        String longText = sb.toString();
        tree.insert(longText, "tenant1");
        assertThat(tree.prefixMatch(longText)).isEqualTo(new PrefixMatch("tenant1", 10_000, 10_000));
        String half = longText.substring(0, 5_000);
        assertThat(matchedText(half)).isEqualTo(half);
    }

    @Test
    void aHundredTenantsOnOnePathAreAllTrackedAndTheFirstIsReported() {
        // mirrors sglang tree.rs test_many_tenants_same_path (SGLang accepts any of them)
        for (int i = 0; i < 100; i++) {
            tree.insert("shared_path", "tenant" + i);
        }
        assertThat(tree.prefixMatch("shared_path")).isEqualTo(new PrefixMatch("tenant0", 11, 11));
        assertThat(tree.verify()).hasSize(100);
    }

    @Test
    void controlAndSpecialCharactersAreOrdinaryCharacters() {
        // mirrors sglang tree.rs test_special_characters
        String[][] cases = {
            {"hello\nworld", "tenant1"}, {"hello\tworld", "tenant2"}, {"hello\0world", "tenant3"},
            {"hello\u00A0world", "tenant4"}, {"path/to/file", "tenant5"}, {"query?param=value", "tenant6"},
        };
        for (String[] c : cases) {
            tree.insert(c[0], c[1]);
        }
        for (String[] c : cases) {
            assertThat(tree.prefixMatch(c[0])).isEqualTo(new PrefixMatch(c[1], c[0].length(), c[0].length()));
        }
    }
}
