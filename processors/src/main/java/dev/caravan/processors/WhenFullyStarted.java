package dev.caravan.processors;

import java.util.function.Consumer;

import org.apache.camel.CamelContext;
import org.apache.camel.ExtendedStartupListener;

/**
 * Runs an action once a Camel context has fully started: at once when it already has, else from its startup listener.
 * Routes added before then might stay unstarted, so the per-worker route managers (control routes, KV-event routes)
 * hand their pending workers over through this.
 */
public final class WhenFullyStarted {

    private WhenFullyStarted() {
    }

    public static void run(CamelContext context, Consumer<CamelContext> action) {
        if (context.isStarted()) {
            action.accept(context);
            return;
        }
        try {
            context.addStartupListener(new ExtendedStartupListener() {
                @Override
                public void onCamelContextStarted(CamelContext c, boolean alreadyStarted) {
                    // not yet: routes added now might not start
                }

                @Override
                public void onCamelContextFullyStarted(CamelContext c, boolean alreadyStarted) {
                    action.accept(c);
                }
            });
        } catch (Exception e) {
            throw new IllegalStateException("cannot wait for the Camel context to start: " + e, e);
        }
    }
}
