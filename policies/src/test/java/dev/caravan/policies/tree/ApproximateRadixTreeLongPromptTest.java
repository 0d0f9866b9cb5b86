package dev.caravan.policies.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * Long edges, compared a block at a time ({@link ApproximateRadixTree#commonPrefix}), and the one-walk match with its
 * shared branch point ({@link ApproximateRadixTree#matchWithShared}).
 */
class ApproximateRadixTreeLongPromptTest {

    private static final int BLOCK = ApproximateRadixTree.BLOCK;

    private static String letters(int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('a' + (i * 7) % 26));
        }
        return sb.toString();
    }

    private static String differingAt(String s, int at) {
        return s.substring(0, at) + (s.charAt(at) == 'z' ? 'y' : 'z') + s.substring(at + 1);
    }

    @Test
    void aLongEdgeMatchesUpToItsFirstDifferenceWhicheverBlockHoldsIt() {
        String label = letters(4 * BLOCK + 37);
        for (int at : new int[] {0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 5, 4 * BLOCK, 4 * BLOCK + 36}) {
            assertThat(ApproximateRadixTree.commonPrefix(label, "xy" + differingAt(label, at), 2)).isEqualTo(at);
        }
        assertThat(ApproximateRadixTree.commonPrefix(label, "xy" + label + "tail", 2)).isEqualTo(label.length());
        assertThat(ApproximateRadixTree.commonPrefix(label, label.substring(0, 2 * BLOCK + 3), 0))
                .isEqualTo(2 * BLOCK + 3);
    }

    @Test
    void aDifferenceInTheLowHalfOfASurrogatePairOnABlockBoundaryBacksOffBeforeThePair() {
        String pair = "\uD83D\uDE00";
        String label = letters(BLOCK - 1) + pair + letters(BLOCK);
        String text = letters(BLOCK - 1) + "\uD83D\uDE01" + letters(BLOCK);
        assertThat(ApproximateRadixTree.commonPrefix(label, text, 0)).isEqualTo(BLOCK - 1);
    }

    @Test
    void aLongPromptMatchesAndSplitsWhereItDiffers() {
        ApproximateRadixTree tree = new ApproximateRadixTree();
        String system = letters(10 * BLOCK);
        tree.insert(system + " first", "w1");
        String other = differingAt(system, 7 * BLOCK + 3);
        tree.insert(other, "w2");
        assertThat(tree.prefixMatch(system + " second")).isEqualTo(new PrefixMatch("w1", system.length() + 1,
                system.length() + 7));
        assertThat(tree.prefixMatch(other)).isEqualTo(new PrefixMatch("w2", other.length(), other.length()));
        assertThat(tree.verify()).containsEntry("w1", (long) system.length() + 6)
                .containsEntry("w2", (long) other.length());
    }

    @Test
    void theOneWalkAnswersWhatTheMatchAndTheSharedBranchPointAnswerApart() {
        ApproximateRadixTree apart = new ApproximateRadixTree();
        ApproximateRadixTree together = new ApproximateRadixTree();
        String preamble = letters(3 * BLOCK);
        for (int i = 0; i < 12; i++) {
            String text = preamble + "tenant " + (i % 4) + ", turn " + i;
            String worker = "w" + (i % 3);
            apart.insert(text, worker);
            together.insert(text, worker);
        }
        for (String probe : new String[] {preamble + "tenant 2, turn 99", preamble + "new tenant", "unrelated",
                preamble.substring(0, BLOCK + 9)}) {
            for (int parts : new int[] {1, 3, 16}) {
                SharedMatch both = together.matchWithShared(probe, parts);
                assertThat(both.match()).isEqualTo(apart.prefixMatch(probe));
                assertThat(both.sharedChars()).isEqualTo(apart.sharedPrefixChars(probe, parts));
            }
        }
        // every conversation crosses the preamble; the new tenant would leave it inside the edge "preamble + tenant "
        assertThat(together.matchWithShared(preamble + "new tenant", 3).sharedChars()).isEqualTo(preamble.length());
    }

    @Test
    void theHoldersOfAPromptAreWhatTheWalkSawLaterInsertsAndTenantsAside() {
        ApproximateRadixTree tree = new ApproximateRadixTree();
        String system = letters(2 * BLOCK);
        tree.insert(system + " one", "w1");
        tree.insert(system + " two", "w2");
        Map<String, Long> held = tree.matchedCharsByTenant(system + " one more");
        tree.insert(system + " one more", "w3");

        assertThat(held).isEqualTo(Map.of("w1", (long) system.length() + 4, "w2", (long) system.length() + 1));
        assertThat(held.get("w3")).isNull();
        assertThat(held.getOrDefault("unknown", 0L)).isZero();
        assertThat(held.get(null)).isNull();
    }
}
