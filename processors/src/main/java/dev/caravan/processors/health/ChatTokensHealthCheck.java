package dev.caravan.processors.health;

import java.util.Map;
import java.util.TreeMap;

import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

import dev.caravan.processors.tokens.ChatTokensCheck;

/**
 * Readiness check {@value #ID}: always UP (requests are served either way), with the models whose chat requests will
 * not match KV blocks under kv_aware, and why, in {@code unmatched_chat_models} ({@code model: reason; ...}) and the
 * message ({@link ChatTokensCheck}; docs/tokens.md).
 */
public final class ChatTokensHealthCheck extends AbstractHealthCheck {

    public static final String ID = "caravan-chat-tokens";

    private final ChatTokensCheck chatTokens;

    public ChatTokensHealthCheck(ChatTokensCheck chatTokens) {
        super(GatewayHealthChecks.GROUP, ID);
        this.chatTokens = chatTokens;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        Map<String, String> unmatched = new TreeMap<>(chatTokens.unmatched());
        StringBuilder models = new StringBuilder();
        unmatched.forEach((model, why) -> models.append(models.length() == 0 ? "" : "; ").append(model).append(": ")
                .append(why));
        builder.detail("unmatched_chat_models", models.toString());
        if (!unmatched.isEmpty()) {
            builder.message("chat requests of " + unmatched.size() + " model(s) will not match KV blocks: "
                    + String.join(", ", unmatched.keySet()));
        }
        builder.up();
    }
}
