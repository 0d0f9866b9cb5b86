package dev.caravan.bench.drive;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.caravan.sim.SimConfig;

/**
 * nginx in front of a fresh simulated fleet, the peer rows of the benchmark: one {@code upstream} with the engines,
 * round robin, {@code least_conn} or {@code hash $http_x_smg_routing_key consistent} ({@link NginxProcess}).
 */
public final class NginxTarget extends SimFleetTarget {

    private final NginxProcess nginx;
    private final Map<String, String> settings = new LinkedHashMap<>();

    public NginxTarget(Path executable, String mode, int engines, SimConfig engine) {
        super(engines, engine);
        try {
            String directive = switch (mode) {
                case "round_robin" -> "";
                case "least_conn" -> "least_conn;";
                case "hash" -> "hash $http_x_smg_routing_key consistent;";
                default -> throw new IllegalArgumentException("nginx mode must be round_robin, least_conn or hash, "
                        + "was " + mode);
            };
            settings.put("upstream", directive.isEmpty() ? "(round robin)" : directive);
            nginx = new NginxProcess(executable, directive, fleet.urls());
        } catch (IOException e) {
            fleet.close();
            throw new UncheckedIOException("nginx did not start: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            fleet.close();
            throw e;
        }
    }

    @Override
    public List<URI> baseUrls() {
        return List.of(nginx.baseUrl());
    }

    @Override
    public Map<String, String> settings() {
        return settings;
    }

    @Override
    protected void closeBalancer() {
        nginx.close();
    }
}
