package dev.caravan.processors.config;

import java.util.List;

/**
 * Rows for the flag table from above this package: the gateway's list of features ({@code dev.caravan.gateway.Features})
 * is one, registered in {@code META-INF/services/dev.caravan.processors.config.FlagSource}. {@link CaravanFlags} finds
 * the sources with {@link java.util.ServiceLoader} when it loads, so the table holds every feature's rows whichever
 * class is touched first, while this package depends on no feature.
 */
public interface FlagSource {

    /** The rows, in the order the table lists them. */
    List<CaravanFlag> flags();
}
