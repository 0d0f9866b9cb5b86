package dev.caravan.bench.drive;

import java.nio.file.Path;
import java.util.Locale;

/**
 * What stands in front of N gateway replicas ({@code ./caravan bench --gateways N --front ...}).
 *
 * @param kind  who alternates requests over the replicas
 * @param nginx the nginx executable when {@code kind} is {@link Kind#NGINX}, else null
 */
public record Front(Kind kind, Path nginx) {

    /** The front's kinds. */
    public enum Kind {
        /** The load driver itself alternates requests over the replicas' URLs: no extra process, no extra hop. */
        CLIENT,
        /** An nginx round-robin upstream over the replicas (one extra hop, as a real deployment has). */
        NGINX
    }

    /** The built-in round-robin client front. */
    public static final Front CLIENT = new Front(Kind.CLIENT, null);

    public Front {
        if (kind == Kind.NGINX && nginx == null) {
            throw new IllegalArgumentException("an nginx front needs the nginx executable");
        }
    }

    /** {@code client} or {@code nginx}, as reports name it. */
    public String label() {
        return kind.name().toLowerCase(Locale.ROOT);
    }
}
