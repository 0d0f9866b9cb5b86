package dev.caravan.policies.tree;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link Node}'s pass count and branched flag, which share one int. */
class NodeTest {

    private final Node node = new Node("preamble", null);

    @Test
    void aSecondChildMarksTheNodeBranchedAndLosingItDoesNotUnmarkIt() {
        node.putChild('a', new Node("a", node));
        assertThat(node.branched()).isFalse();
        node.putChild('b', new Node("b", node));
        assertThat(node.branched()).isTrue();
        node.removeChild('a');
        node.removeChild('b');
        assertThat(node.branched()).isTrue();
    }

    @Test
    void replacingTheOnlyChildIsNoBranch() {
        node.putChild('a', new Node("a", node));
        node.putChild('a', new Node("ab", node));
        assertThat(node.branched()).isFalse();
    }

    @Test
    void theCountNeverTouchesTheFlag() {
        node.putChild('a', new Node("a", node));
        node.putChild('b', new Node("b", node));
        node.setPasses(ApproximateRadixTree.PASSES_HALVING_AT - 1);
        node.addPass();
        assertThat(node.passes()).isEqualTo(ApproximateRadixTree.PASSES_HALVING_AT);
        node.halvePasses();
        assertThat(node.passes()).isEqualTo(ApproximateRadixTree.PASSES_HALVING_AT / 2);
        assertThat(node.branched()).isTrue();
        node.setPasses(3);
        assertThat(node.passes()).isEqualTo(3);
        assertThat(node.branched()).isTrue();
    }

    @Test
    void anUnbranchedNodeHalvesItsCountAndStaysUnbranched() {
        node.setPasses(7);
        node.halvePasses();
        assertThat(node.passes()).isEqualTo(3);
        assertThat(node.branched()).isFalse();
    }
}
