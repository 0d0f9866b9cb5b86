package dev.caravan.app;

import java.util.Arrays;

import dev.caravan.sim.SimMain;

/**
 * Entry point of {@code caravan.jar}: dispatches the launcher's subcommands to their own main classes, so each
 * subcommand parses its own flags ({@code ./caravan run --help}, {@code ./caravan sim --help}, ...).
 */
public final class CaravanCli {

    private CaravanCli() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h")) {
            System.out.println("""
                    Usage: ./caravan <command> [flags]
                      run    the gateway (SGLang launch_router flags; --help lists them)
                      sim    simulated vLLM/SGLang engines (--help lists flags)
                      demo   the gateway on :30000 in front of 4 simulated engines (--pd: 2 prefill + 2 decode)
                      bench  the fleet benchmark (runs from caravan-bench.jar)
                      jmh    the routing core's JMH benchmarks""");
            return;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        switch (args[0]) {
            case "run" -> GatewayMain.main(rest);
            case "sim" -> SimMain.main(rest);
            case "demo" -> DemoMain.main(rest);
            default -> {
                System.err.println("caravan: unknown command '" + args[0] + "' (try: run, sim, demo, bench, jmh)");
                System.exit(2);
            }
        }
    }
}
