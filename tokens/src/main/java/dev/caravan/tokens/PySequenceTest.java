package dev.caravan.tokens;

import java.util.Collection;
import java.util.Map;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.exptest.ExpTest;

/**
 * Jinja2's {@code is sequence}: anything with a length and items — strings, lists and dicts included (Jinjava's own
 * test says false for a string).
 */
final class PySequenceTest implements ExpTest {

    @Override
    public String getName() {
        return "sequence";
    }

    @Override
    public boolean evaluate(Object var, JinjavaInterpreter interpreter, Object... args) {
        return var instanceof CharSequence || var instanceof Collection<?> || var instanceof Map<?, ?>
                || (var != null && var.getClass().isArray());
    }
}
