package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

class SharedPrefixesTest {

    /** Keys {@code from, from + 1, ...}: a chain's keys only need to be distinct here. */
    private static long[] chain(long from, int length) {
        return LongStream.range(from, from + length).toArray();
    }

    /** The three keys {@code 1, 2, 3} followed by two keys of its own. */
    private static long[] branch(long tail) {
        return new long[] {1, 2, 3, tail, tail + 1};
    }

    @Test
    void aPrefixRequestsGoOnFromInSeveralWaysIsSharedUpToItsBranchPoint() {
        SharedPrefixes s = new SharedPrefixes();
        s.record(branch(100));
        s.record(branch(200));

        assertThat(s.sharedBlocks(branch(300), 2)).isEqualTo(3);
        assertThat(s.sharedBlocks(branch(100), 2)).isEqualTo(3); // 100 and 200 already left key 3
        assertThat(s.sharedBlocks(new long[] {1, 2}, 2)).isZero(); // never two ways from key 1 or 2
    }

    @Test
    void theRequestsOwnNextKeyIsTheSecondWay() {
        SharedPrefixes s = new SharedPrefixes();
        s.record(branch(100));

        assertThat(s.sharedBlocks(branch(200), 1)).isEqualTo(3);
        assertThat(s.sharedBlocks(branch(100), 1)).isZero();     // the same request again goes on the same way
    }

    @Test
    void aConversationThatOnlyGrowsNeverBranches() {
        SharedPrefixes s = new SharedPrefixes();
        s.record(chain(1, 4));
        s.record(chain(1, 7));
        s.record(chain(1, 10));

        assertThat(s.sharedBlocks(chain(1, 13), 1)).isZero();
        assertThat(s.passes(1)).isEqualTo(3);
        assertThat(s.passes(10)).isEqualTo(1);
    }

    @Test
    void aPrefixBelowOneNthOfTheRoutedRequestsIsNotShared() {
        SharedPrefixes s = new SharedPrefixes();
        s.record(branch(100));
        s.record(branch(200));
        for (int i = 0; i < 20; i++) {
            s.record(chain(1_000 + 10L * i, 5));                 // 20 requests through other keys
        }

        assertThat(s.total()).isEqualTo(22);
        assertThat(s.sharedBlocks(branch(300), 8)).isZero();      // 2 x 8 < 22
        assertThat(s.sharedBlocks(branch(300), 11)).isEqualTo(3); // 2 x 11 >= 22
    }

    @Test
    void atItsBoundItHalvesEveryCountAndTheTotalAndDropsTheKeysLeftAtZero() {
        SharedPrefixes s = new SharedPrefixes(8);
        for (int i = 0; i < 3; i++) {
            s.record(chain(1, 4));
        }
        s.record(chain(100, 4));
        assertThat(s.size()).isEqualTo(8);

        s.record(chain(200, 4)); // key 200 would be the 9th: 4 -> 2 requests, 3 -> 1 and 1 -> 0 passes

        assertThat(s.size()).isEqualTo(8);
        assertThat(s.total()).isEqualTo(3);
        assertThat(s.passes(1)).isEqualTo(1);
        assertThat(s.passes(100)).isZero();
        assertThat(s.passes(200)).isEqualTo(1);
    }

    @Test
    void countsOnlyTheLeadingKeysOfALongChain() {
        SharedPrefixes s = new SharedPrefixes();
        s.record(chain(1, SharedPrefixes.MAX_DEPTH + 5));

        assertThat(s.size()).isEqualTo(SharedPrefixes.MAX_DEPTH);
        assertThat(s.passes(SharedPrefixes.MAX_DEPTH)).isEqualTo(1);
        assertThat(s.passes(SharedPrefixes.MAX_DEPTH + 1)).isZero();
    }

    @Test
    void anEmptyChainCountsInTheTotalOnly() {
        SharedPrefixes s = new SharedPrefixes();
        s.record(new long[0]);

        assertThat(s.total()).isEqualTo(1);
        assertThat(s.size()).isZero();
        assertThatThrownBy(() -> s.sharedBlocks(new long[0], 0)).hasMessage("parts must be >= 1, was 0");
    }
}
