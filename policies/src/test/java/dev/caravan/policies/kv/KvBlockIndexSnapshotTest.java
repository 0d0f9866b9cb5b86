package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** A replica that joins takes a peer's block index ({@link KvBlockIndex#export}, {@link KvBlockIndex#restore}). */
class KvBlockIndexSnapshotTest {

    private static final int BS = 4;
    private final KvBlockIndex peer = new KvBlockIndex();
    private final KvBlockIndex joiner = new KvBlockIndex();
    private final FakeEngine engine = new FakeEngine(1, BS);
    /** 6 blocks of 4 tokens. */
    private final int[] prompt = FakeEngine.tokens(100, 24);
    private final long[] keys = BlockKeys.keys(prompt, BS, BlockKeys.PLAIN_ROOT);

    @Test
    void aRestoredIndexMatchesWhatThePeerHeard() {
        peer.apply("peer-id", 0, engine.stored(prompt, 0, 6));

        int added = joiner.restore("joiner-id", peer.export("peer-id"));

        assertThat(added).isEqualTo(6);
        assertThat(joiner.longestPrefixes(keys, 1, 1).matched("joiner-id")).isEqualTo(6);
        assertThat(joiner.residentBlocks("joiner-id")).isEqualTo(6);
        assertThat(joiner.blockSize("joiner-id")).isEqualTo(BS);
    }

    @Test
    void laterEventsResolveAgainstRestoredEntries() {
        peer.apply("p", 0, engine.stored(prompt, 0, 2));
        joiner.restore("j", peer.export("p"));

        joiner.apply("j", 0, engine.stored(prompt, 2, 6));        // its parent is a restored block
        KvBlockIndex.Applied removed = joiner.apply("j", 0, engine.removed(prompt, 0));

        assertThat(removed.removed()).containsExactly(keys[0]);
        assertThat(joiner.residentBlocks("j")).isEqualTo(5);
        assertThat(joiner.orphanBlocks()).isZero();
        assertThat(joiner.unknownRemovals()).isZero();
    }

    @Test
    void whatTheJoinerAlreadyHeardWinsAndOnlyUnknownEntriesAreAdded() {
        peer.apply("p", 0, engine.stored(prompt, 0, 6));
        joiner.apply("j", 0, engine.stored(prompt, 0, 2));
        joiner.apply("j", 0, engine.removed(prompt, 1));

        int added = joiner.restore("j", peer.export("p"));

        assertThat(added).isEqualTo(5);                              // blocks 1..5; block 0 was known
        assertThat(joiner.residentBlocks("j")).isEqualTo(6);
    }

    @Test
    void ranksAndAdapterNamesTravelWithTheSnapshot() {
        peer.apply("p", 1, engine.stored(prompt, 0, 3));
        peer.addLoraNames(List.of("sql-adapter"));

        joiner.restore("j", peer.export("p"));
        joiner.addLoraNames(peer.loraNames());

        assertThat(joiner.longestPrefixes(keys, 1, 1).match("j"))
                .isEqualTo(new PrefixMatches.Match(1, 3, 3, 3.0));
        assertThat(joiner.isLoraName("sql-adapter")).isTrue();
        assertThat(peer.export("unknown")).isEmpty();
        assertThat(Set.copyOf(joiner.export("j").stream().map(KvBlockIndex.RankState::rank).toList()))
                .containsExactly(1);
    }

    @Test
    void aRankStateNeedsOneIdKeyAndMaskPerEntry() {
        assertThatThrownBy(() -> new KvBlockIndex.RankState(0, BS, 0, new long[2], new long[2], new long[1]))
                .hasMessage("engineIds, keys and masks must have one entry each, were 2, 2, 1");
    }
}
