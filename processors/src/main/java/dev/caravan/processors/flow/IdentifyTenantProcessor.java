package dev.caravan.processors.flow;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.processors.admission.FlowKey;

/**
 * Route step {@code identifyTenant} (inference routes, after {@code checkApiKey}): names the request's tenant from the
 * tenants in force ({@link TenantsConfig#resolve}: the {@value TenantsConfig#TENANT_HEADER} header only when the file
 * trusts it, else the API key, else {@code other}). Never fails a request.
 *
 * <p>Writes {@code Tenant.PROPERTY} and {@code FlowKey.PROPERTY} (the tenant's place in the admission queue).
 */
public final class IdentifyTenantProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(IdentifyTenantProcessor.class);

    private final TenantDirectory directory;

    public IdentifyTenantProcessor(TenantDirectory directory) {
        this.directory = directory;
    }

    @Override
    public void process(Exchange exchange) {
        var in = exchange.getIn();
        Tenant tenant = directory.current().resolve(in.getHeader("Authorization", String.class),
                in.getHeader(TenantsConfig.TENANT_HEADER, String.class));
        Tenant.PROPERTY.set(exchange, tenant);
        FlowKey.PROPERTY.set(exchange, tenant.flowKey());
        LOG.debug("Tenant {} (class {})", tenant.name(), tenant.tenantClass().name());
    }
}
