package dev.caravan.processors.admin;

import org.apache.camel.Exchange;

import dev.caravan.processors.error.GatewayError;

/** The {@code ?url=} query parameter of the legacy worker endpoints; 400 when missing. */
final class LegacyWorkerUrl {

    static final String URL_PARAM = "url";

    private LegacyWorkerUrl() {
    }

    static String of(Exchange exchange) {
        String url = exchange.getIn().getHeader(URL_PARAM, String.class);
        if (url == null || url.isBlank()) {
            throw GatewayError.INVALID_REQUEST.exception("query parameter url is required, e.g. ?url=http://host:port");
        }
        return url.trim();
    }
}
