package dev.caravan.processors.flow;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tenants in force: the tenants file ({@code --tenants-file}) as last read successfully, or
 * {@link TenantsConfig#NONE} without one. The file is read at start-up, where a bad file stops the gateway (fail fast),
 * and again by {@link #reloadIfChanged()} (the {@code tenants-reload} timer route) whenever its modification time or size
 * changed: a file that no longer parses is logged and counted, and the tenants read before stay in force.
 *
 * <p>Thread-safe: the config is one volatile reference, swapped whole; reloads come from one timer.
 */
public final class TenantDirectory {

    /** Told about each reload attempt (metrics). */
    public interface ReloadObserver {
        void onReload(boolean ok, TenantsConfig current);

        ReloadObserver NONE = (ok, current) -> { };
    }

    /** How often the file is checked for changes ({@code --tenants-reload-interval-secs}). */
    public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(TenantDirectory.class);

    private final Path file;
    private final ReloadObserver observer;
    private volatile TenantsConfig current;
    private FileTime seenTime;
    private long seenSize;

    private TenantDirectory(Path file, TenantsConfig initial, ReloadObserver observer) {
        this.file = file;
        this.current = initial;
        this.observer = observer;
    }

    /** No tenants file: everyone is {@code other}. */
    public static TenantDirectory none() {
        return new TenantDirectory(null, TenantsConfig.NONE, ReloadObserver.NONE);
    }

    /**
     * Reads the file now.
     *
     * @throws IllegalArgumentException naming the file and the problem
     */
    public static TenantDirectory load(Path file, ReloadObserver observer) {
        TenantDirectory d = new TenantDirectory(Objects.requireNonNull(file), TenantsConfig.NONE, observer);
        d.stamp();
        d.current = TenantsFile.read(file);
        LOG.info("Tenants from {}: {}", file, d.current);
        return d;
    }

    public TenantsConfig current() {
        return current;
    }

    /** The file watched, or null. */
    public Path file() {
        return file;
    }

    /**
     * Reads the file again when its modification time or size changed.
     *
     * @return true when a new config is in force
     */
    public synchronized boolean reloadIfChanged() {
        if (file == null || !stamp()) {
            return false;
        }
        try {
            TenantsConfig next = TenantsFile.read(file);
            current = next;
            LOG.info("Tenants reloaded from {}: {}", file, next);
            observer.onReload(true, next);
            return true;
        } catch (IllegalArgumentException e) {
            LOG.warn("Tenants file not reloaded, the tenants read before stay in force: {}", e.getMessage());
            observer.onReload(false, current);
            return false;
        }
    }

    /** Records the file's time and size; true when they differ from those seen before. */
    private boolean stamp() {
        FileTime time;
        long size;
        try {
            time = Files.getLastModifiedTime(file);
            size = Files.size(file);
        } catch (IOException e) {
            time = null; // gone or unreadable: reading it will say so
            size = -1;
        }
        boolean changed = !Objects.equals(time, seenTime) || size != seenSize;
        seenTime = time;
        seenSize = size;
        return changed;
    }
}
