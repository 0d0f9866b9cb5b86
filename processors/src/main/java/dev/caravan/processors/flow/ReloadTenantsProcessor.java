package dev.caravan.processors.flow;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code reloadTenants} (the {@code tenants-reload} timer route, with {@code --tenants-file}): reads the
 * tenants file again when it changed ({@link TenantDirectory#reloadIfChanged()}); a bad file leaves the tenants in
 * force and is logged and counted.
 */
public final class ReloadTenantsProcessor implements Processor {

    private final TenantDirectory directory;

    public ReloadTenantsProcessor(TenantDirectory directory) {
        this.directory = directory;
    }

    @Override
    public void process(Exchange exchange) {
        directory.reloadIfChanged();
    }
}
