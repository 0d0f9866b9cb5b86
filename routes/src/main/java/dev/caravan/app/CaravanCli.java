package dev.caravan.app;

/** Entry point of caravan.jar; dispatches the launcher's subcommands. */
public final class CaravanCli {

    private CaravanCli() {
    }

    public static void main(String[] args) {
        String cmd = args.length == 0 ? "help" : args[0];
        System.err.println("caravan " + cmd + ": not built yet. Available so far: the routing core (policies/).");
        System.exit(cmd.equals("help") ? 0 : 2);
    }
}
