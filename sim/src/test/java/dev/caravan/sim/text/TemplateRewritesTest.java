package dev.caravan.sim.text;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The source rewrites that give Jinjava Jinja2's reading of constructs its parser lacks. */
class TemplateRewritesTest {

    @Test
    void keywordArgumentValuesAreParenthesisedInsideTagsOnly() {
        assertThat(KeywordArguments.rewrite("a=b {%- set ns = namespace(x=true, n=messages|length - 1) %}"
                + "{{ t | tojson(indent=4) }}{{ f('k=v', y = g(z=1) + 2) }}{{ a == b }}"))
                .isEqualTo("a=b {%- set ns = namespace(x=(true), n=(messages|length - 1)) %}"
                        + "{{ t | tojson(indent=(4)) }}{{ f('k=v', y =( g(z=(1)) + 2)) }}{{ a == b }}");
    }

    @Test
    void steppedSlicesBecomeFilterCallsOnTheirPrimary() {
        assertThat(SteppedSlices.rewrite("{% for m in messages[::-1] %}{{ m.content[1:-1:2] }}{{ x[1:2] }}"
                + "{{ 'abc'[::-1] }}{{ f(a)[0][::2] }}{{ [1, 2][::-1] }}"))
                .isEqualTo("{% for m in (messages|sim_slice(none, none, -1)) %}{{ (m.content|sim_slice(1, -1, 2)) }}"
                        + "{{ x[1:2] }}{{ ('abc'|sim_slice(none, none, -1)) }}{{ (f(a)[0]|sim_slice(none, none, 2)) }}"
                        + "{{ ([1, 2]|sim_slice(none, none, -1)) }}");
    }
}
