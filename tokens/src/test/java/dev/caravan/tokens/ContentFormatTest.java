package dev.caravan.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** vLLM's {@code auto} content-format rule, on the shapes real templates use. */
class ContentFormatTest {

    @Test
    void aTemplateLoopingOverMessageContentWantsParts() {
        assertThat(ContentFormat.detect("{% for message in messages %}{% for part in message['content'] %}"
                + "{{ part.text }}{% endfor %}{% endfor %}")).isEqualTo(ContentFormat.OPENAI);
        assertThat(ContentFormat.detect("{%- for m in messages[1:] %}{%- for c in m.content | selectattr('type') -%}"
                + "{%- endfor %}{% endfor %}")).isEqualTo(ContentFormat.OPENAI);
    }

    @Test
    void followsAMessagesListSetUnderAnotherName() {
        assertThat(ContentFormat.detect("{% set loop_messages = messages %}{% for message in loop_messages %}"
                + "{% for c in message.content %}{% endfor %}{% endfor %}")).isEqualTo(ContentFormat.OPENAI);
    }

    @Test
    void aTemplatePrintingContentWantsAString() {
        assertThat(ContentFormat.detect("{% for message in messages %}{{ message['content'] | trim }}{% endfor %}"))
                .isEqualTo(ContentFormat.STRING);
        // a loop over something else's content is not a message's
        assertThat(ContentFormat.detect("{% for tool in tools %}{% for c in tool.content %}{% endfor %}{% endfor %}"))
                .isEqualTo(ContentFormat.STRING);
    }

    @Test
    void parsesTheFlag() {
        assertThat(ContentFormat.parse("auto")).isNull();
        assertThat(ContentFormat.parse("openai")).isEqualTo(ContentFormat.OPENAI);
        assertThat(ContentFormat.parse("string")).isEqualTo(ContentFormat.STRING);
    }
}
