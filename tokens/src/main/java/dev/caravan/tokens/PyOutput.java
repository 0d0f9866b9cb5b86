package dev.caravan.tokens;

import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.expression.ExpressionStrategy;
import com.hubspot.jinjava.mode.ExecutionMode;
import com.hubspot.jinjava.tree.output.RenderedOutputNode;
import com.hubspot.jinjava.tree.parse.ExpressionToken;

/**
 * Prints {@code {{ expression }}} results as Jinja2 does where Jinjava differs: booleans as Python's {@code True} and
 * {@code False} (Jinjava writes {@code true}); everything else as Jinjava's string form. Installed through an
 * {@link ExecutionMode} whose context preparation sets the expression strategy.
 */
final class PyOutput implements ExpressionStrategy {

    private static final long serialVersionUID = 1L;

    /** The execution mode that installs this strategy in every render's context. */
    static final ExecutionMode MODE = new ExecutionMode() {
        @Override
        public void prepareContext(Context context) {
            context.setExpressionStrategy(new PyOutput());
        }
    };

    @Override
    public RenderedOutputNode interpretOutput(ExpressionToken token, JinjavaInterpreter interpreter) {
        Object value = interpreter.resolveELExpression(token.getExpr(), token.getLineNumber());
        if (value instanceof Boolean b) {
            return new RenderedOutputNode(b ? "True" : "False");
        }
        return new RenderedOutputNode(interpreter.getAsString(value));
    }
}
