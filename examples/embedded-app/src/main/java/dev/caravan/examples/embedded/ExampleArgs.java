package dev.caravan.examples.embedded;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.GatewayConfig;

/**
 * The examples' command line: {@code --app-host}/{@code --app-port} place the application's own server (default
 * 0.0.0.0:8080); every other argument is a gateway flag, resolved as {@code ./caravan run} resolves it (flags, then
 * {@code CARAVAN_*} environment variables, {@code --config FILE}, {@code config/application.properties}, defaults).
 */
record ExampleArgs(String appHost, int appPort, GatewayConfig gateway) {

    static ExampleArgs parse(String[] args) {
        String appHost = "0.0.0.0";
        int appPort = 8080;
        List<String> gatewayArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--app-host") && i + 1 < args.length) {
                appHost = args[++i];
            } else if (args[i].equals("--app-port") && i + 1 < args.length) {
                appPort = Integer.parseInt(args[++i]);
            } else {
                gatewayArgs.add(args[i]);
            }
        }
        GatewayConfig gateway = ConfigResolver.resolve(gatewayArgs.toArray(String[]::new), System.getenv(),
                Path.of("").toAbsolutePath()).config();
        return new ExampleArgs(appHost, appPort, gateway);
    }
}
