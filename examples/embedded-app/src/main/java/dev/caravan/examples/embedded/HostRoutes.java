package dev.caravan.examples.embedded;

import java.time.Duration;

import org.apache.camel.builder.RouteBuilder;

/**
 * The application's own Java routes, as any Camel application has them: two HTTP endpoints on the application's
 * platform-http server — one of them slow and blocking, like a report that takes seconds — and an internal
 * {@code direct:} route. None of them knows about the gateway, and the slow one holds only a thread of the
 * application's own server: the gateway's endpoints keep answering at their usual speed.
 */
public final class HostRoutes extends RouteBuilder {

    /** Route id of the blocking endpoint ({@code GET /app/report}). */
    public static final String REPORT_ROUTE = "app-report";

    private final Duration reportTime;

    /** @param reportTime how long {@code GET /app/report} blocks its thread */
    public HostRoutes(Duration reportTime) {
        this.reportTime = reportTime;
    }

    @Override
    public void configure() {
        from("platform-http:/app/status?httpMethodRestrict=GET").routeId("app-status")
                .setBody(constant("app is fine"));

        from("platform-http:/app/report?httpMethodRestrict=GET").routeId(REPORT_ROUTE)
                .process(exchange -> Thread.sleep(reportTime.toMillis())) // blocking work, on the application's server
                .setBody(constant("report ready"));

        from("direct:greet").routeId("app-greet")
                .setBody(simple("hello ${body}"));
    }
}
