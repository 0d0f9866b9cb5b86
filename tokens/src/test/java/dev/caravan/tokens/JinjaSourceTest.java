package dev.caravan.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The source rewrites that make Jinjava parse templates as Jinja2 does (the vectors prove the renderings). */
class JinjaSourceTest {

    @Test
    void parenthesisesKeywordArgumentsButNotComparisons() {
        assertThat(JinjaSource.wrapKeywordArguments("{%- set ns = namespace(a=true, last=messages|length - 1) %}"))
                .isEqualTo("{%- set ns = namespace(a=(true), last=(messages|length - 1)) %}");
        assertThat(JinjaSource.wrapKeywordArguments("{{ x | tojson(indent=4) }}{% if a == b or f(c) != d %}x{% endif %}"))
                .isEqualTo("{{ x | tojson(indent=(4)) }}{% if a == b or f(c) != d %}x{% endif %}");
    }

    @Test
    void leavesTextCommentsAndStringLiteralsAlone() {
        String t = "a=(b) {# f(x=1) #}{{ f('x=1', y=\"(z)\") }}";
        assertThat(JinjaSource.wrapKeywordArguments(t)).isEqualTo("a=(b) {# f(x=1) #}{{ f('x=1', y=(\"(z)\")) }}");
    }

    @Test
    void turnsStepSlicesIntoTheSliceFilter() {
        assertThat(JinjaSource.stepSlices("for m in messages[::-1]"))
                .isEqualTo("for m in (messages|py_slice(none, none, -1))");
        assertThat(JinjaSource.stepSlices("x.y[0][1:5:2]")).isEqualTo("(x.y[0]|py_slice(1, 5, 2))");
        assertThat(JinjaSource.stepSlices("messages[1:]")).isEqualTo("messages[1:]");
    }

    @Test
    void dropsOneTrailingNewlineAndLeadingBlockIndentation() {
        assertThat(JinjaSource.normalize("  {% if x %}\n  text {% endif %}\n\n")).isEqualTo("{% if x %}\n  text {% endif %}\n");
    }

    @Test
    void slicesAsPython() {
        assertThat(PySlice.indices(5, null, null, -1)).containsExactly(4, 3, 2, 1, 0);
        assertThat(PySlice.indices(5, -2, null, 1)).containsExactly(3, 4);
        assertThat(PySlice.indices(5, 1, 100, 2)).containsExactly(1, 3);
        assertThat(PySlice.indices(5, 3, 0, -1)).containsExactly(3, 2, 1);
    }

    @Test
    void writesFloatsAsPythonsRepr() {
        assertThat(PyJson.pyFloat(100.0)).isEqualTo("100.0");
        assertThat(PyJson.pyFloat(1e20)).isEqualTo("1e+20");
        assertThat(PyJson.pyFloat(1e-7)).isEqualTo("1e-07");
        assertThat(PyJson.pyFloat(1.5e16)).isEqualTo("1.5e+16");
        assertThat(PyJson.pyFloat(0.0001)).isEqualTo("0.0001");
        assertThat(PyJson.pyFloat(-2.5)).isEqualTo("-2.5");
    }
}
