package dev.caravan.policies;

import java.util.Map;

/**
 * A policy that keeps approximate radix trees of what it sent where (cache_aware). The gateway exports
 * {@link #treeChars()} as {@code caravan_tree_chars{model,worker}}.
 */
public interface TreeBacked {

    /**
     * Characters each tenant holds, per tree: model id → worker URL → characters (Unicode code points). A fresh
     * snapshot; safe to call from any thread.
     */
    Map<String, Map<String, Long>> treeChars();
}
