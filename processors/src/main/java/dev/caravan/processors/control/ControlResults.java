package dev.caravan.processors.control;

import java.util.ArrayList;
import java.util.List;

import org.apache.camel.Exchange;

/** Reads the {@code call-workers} route's answer: the {@link ControlResult}s in the body (none when nothing was called). */
public final class ControlResults {

    private ControlResults() {
    }

    public static List<ControlResult> of(Exchange exchange) {
        Object body = exchange.getMessage().getBody();
        List<ControlResult> out = new ArrayList<>();
        if (body instanceof List<?> list) {
            for (Object o : list) {
                if (o instanceof ControlResult r) {
                    out.add(r);
                }
            }
        }
        return out;
    }
}
