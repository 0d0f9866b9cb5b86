package dev.caravan.policies.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link ApproximateRadixTree#sharedPrefixChars}: the preamble many requests branch from, weighed by traffic. */
class ApproximateRadixTreeSharedPrefixTest {

    private static final String PREAMBLE = "You are a helpful assistant. ";

    private final ApproximateRadixTree tree = new ApproximateRadixTree();

    @Test
    void anEmptyTreeSharesNothing() {
        assertThat(tree.sharedPrefixChars(PREAMBLE + "hi", 4)).isZero();
    }

    @Test
    void aNewConversationBranchingOffAPreambleAllTrafficCrossesSharesThePreamble() {
        tree.insert(PREAMBLE + "Session 1: what is a radix tree?", "w1");
        // the second conversation would branch off inside the first one's edge, right after the preamble
        assertThat(tree.sharedPrefixChars(PREAMBLE + "Session 2: and a trie?", 4))
                .isEqualTo((PREAMBLE + "Session ").length());
        tree.insert(PREAMBLE + "Session 2: and a trie?", "w1");
        // the third branches off at the node the first two now share: three continuations
        assertThat(tree.sharedPrefixChars(PREAMBLE + "Session 3: hello", 4)).isEqualTo((PREAMBLE + "Session ").length());
        tree.verify();
    }

    @Test
    void aConversationThatOnlyGrowsNeverSharesItsOwnHistoryHoweverMuchTrafficItCarries() {
        String[] turns = growingConversation();
        tree.insert(turns[0], "w1");
        tree.insert(turns[1], "w1");
        assertThat(tree.sharedPrefixChars(turns[2], 1)).isZero();
    }

    @Test
    void laterTurnsShareOnlyThePreambleNotTheirConversation() {
        String a1 = PREAMBLE + "A: first question.";
        String b1 = PREAMBLE + "B: other question.";
        tree.insert(a1, "w1");
        tree.insert(b1, "w2");
        tree.insert(a1 + " answer. second question.", "w1");
        assertThat(tree.sharedPrefixChars(a1 + " answer. second question. answer. third.", 4))
                .isEqualTo(PREAMBLE.length());
    }

    @Test
    void aBranchPointWithLessThanItsShareOfTrafficIsNotShared() {
        // 8 tenants' prompts, one request each: tenant 0's prompt carries 1/8 of the traffic
        for (int t = 0; t < 8; t++) {
            tree.insert("tenant " + t + " system prompt. question " + t, "w" + (t % 4));
        }
        String again = "tenant 0 system prompt. question again";
        // "tenant " is crossed by every insert and branches eight ways; tenant 0's prompt carries 1/8 < 1/4
        assertThat(tree.sharedPrefixChars(again, 4)).isEqualTo("tenant ".length());
        assertThat(tree.sharedPrefixChars(again, 8)).isEqualTo("tenant 0 system prompt. question ".length());
        assertThat(tree.sharedPrefixChars("tenant 9 new", 4)).isEqualTo("tenant ".length());
    }

    @Test
    void sharedBranchPointsListsEveryQualifyingPointShallowestFirstEndingWithTheDeepest() {
        for (int t = 0; t < 8; t++) {
            tree.insert("tenant " + t + " system prompt. question " + t, "w" + (t % 4));
        }
        String again = "tenant 0 system prompt. question again";
        assertThat(tree.sharedBranchPoints(again, 8))
                .containsExactly("tenant ".length(), "tenant 0 system prompt. question ".length());
        assertThat(tree.sharedBranchPoints(again, 4)).containsExactly("tenant ".length());
        assertThat(tree.sharedBranchPoints("other", 4)).isEmpty();
    }

    @Test
    void aTextEndingInsideAnEdgeDoesNotBranch() {
        tree.insert(PREAMBLE + "one", "w1");
        assertThat(tree.sharedPrefixChars(PREAMBLE.substring(0, 10), 1)).isZero();
    }

    @Test
    void aSplitNodeInheritsThePassesOfTheEdgeItWasCutFrom() {
        tree.insert(PREAMBLE + "x", "w1");
        tree.insert(PREAMBLE + "y", "w2");
        tree.verify(); // the split node inherited the first insert's pass, then counted the second
        assertThat(tree.sharedPrefixChars(PREAMBLE + "z", 1)).isEqualTo(PREAMBLE.length());
    }

    @Test
    void aPreambleStaysSharedAfterEvictionLeftItOneNewContinuation() {
        for (char c = 'A'; c <= 'H'; c++) {
            tree.insert(PREAMBLE + c + " asks question " + c + ".", "w1");
        }
        tree.evictTenantTo("w1", PREAMBLE.length()); // the eight continuations go, the preamble node stays
        tree.insert(PREAMBLE + "I asks question I.", "w1");
        // the preamble's only child is the new continuation, and this text follows it past the preamble; all nine
        // inserts crossed the preamble, eight of them into continuations since evicted
        assertThat(tree.sharedPrefixChars(PREAMBLE + "I asks question I, again?", 2)).isEqualTo(PREAMBLE.length());
        tree.verify();
    }

    @Test
    void aHotPromptStaysSharedWhenOnlyTheRecentRequestNumbersSubtreeIsLeft() {
        // the b2b hot tenant's shape: user turns "Q<i> ..." branch off its prompt by request number
        String hot = PREAMBLE + "User: Q";
        ApproximateRadixTree recent = new ApproximateRadixTree();
        for (int i = 1; i <= 39; i++) {
            String text = hot + i + " question text " + i;
            tree.insert(text, "w" + (i % 2));
            if (i >= 30) {
                recent.insert(text, "w" + (i % 2));
            }
        }
        // both workers forget requests 1 to 29 (a tenant's count is the size of its texts' trie, whatever the edges)
        tree.evictTenantTo("w0", recent.tenantChars("w0"));
        tree.evictTenantTo("w1", recent.tenantChars("w1"));
        assertThat(tree.prefixMatch(hot + "1").matchedChars()).isEqualTo(hot.length()); // only "3" is left under it
        assertThat(tree.sharedPrefixChars(hot + "35 question text 35, and more", 2)).isEqualTo(hot.length());
        tree.verify();
    }

    @Test
    void aConversationThatOnlyGrowsStaysUnsharedAfterItsTailWasEvicted() {
        String[] turns = growingConversation();
        tree.insert(turns[0], "w1");
        tree.insert(turns[1], "w1");
        tree.evictTenantTo("w1", turns[0].length()); // turn two's suffix goes: turn one's node has passes 2, no child
        tree.insert(turns[2], "w1");
        assertThat(tree.sharedPrefixChars(turns[2] + " Answer three. User turn four.", 1)).isZero();
        tree.verify();
    }

    @Test
    void seedingWorkersIsNoTraffic() {
        for (int w = 0; w < 4; w++) {
            tree.insert("", "w" + w);
        }
        tree.insert(PREAMBLE + "a", "w0");
        assertThat(tree.sharedPrefixChars(PREAMBLE + "b", 4)).isEqualTo(PREAMBLE.length());
    }

    @Test
    void refusesAShareDenominatorBelowOne() {
        assertThatThrownBy(() -> tree.sharedPrefixChars("x", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("parts must be >= 1, was 0");
    }

    /** Three turns of one conversation, each the previous one plus an answer and a new user turn. */
    private static String[] growingConversation() {
        String turn1 = PREAMBLE + "Session 1: user turn one.";
        String turn2 = turn1 + " Answer one. User turn two.";
        return new String[] {turn1, turn2, turn2 + " Answer two. User turn three."};
    }
}
