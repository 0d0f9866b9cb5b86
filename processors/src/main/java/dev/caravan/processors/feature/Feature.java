package dev.caravan.processors.feature;

import java.util.List;

import org.apache.camel.CamelContext;

import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.FlagSource;

/**
 * One part of the gateway: its settings and the beans its route steps run as. A feature class keeps everything about
 * its part in one place: its rows of the flag table ({@link #flags()}, public constants such as
 * {@code FlowFeature.TENANTS_FILE}), the registry names of its beans (public constants the YAML routes use in
 * {@code process: {ref: ...}}), and {@link #wire}, which builds those beans from the configuration.
 *
 * <p>Lifecycle, for each gateway built: a new instance (the gateway's list of features creates them); {@link #policyEnvironment}, before
 * any policy exists; {@link #wire}, in the order of that list, so a feature may look up the beans of those before
 * it; {@link #start} once the Camel context has started; {@link #close} after it stopped, in reverse order. Instances
 * hold what they built for one gateway; their constructors do nothing, since the flag table also creates one to read
 * the rows.
 */
public interface Feature extends FlagSource {

    /** The feature's rows of the flag table, in the order the docs list them. */
    @Override
    List<CaravanFlag> flags();

    /**
     * The environment the gateway's policies are built with, given the one so far; called once, before {@link #wire}
     * and before any policy exists.
     *
     * @throws IllegalArgumentException naming the setting, for an invalid configuration
     */
    default PolicyEnvironment policyEnvironment(Wiring w, PolicyEnvironment env) {
        return env;
    }

    /**
     * Builds the feature's beans from {@link Wiring#config()} and binds them under its names.
     *
     * @throws IllegalArgumentException naming the setting, for an invalid configuration
     */
    default void wire(Wiring w) {
    }

    /** The Camel context has started (routes may be created from templates from now on). */
    default void start(CamelContext context) {
    }

    /** Releases what {@link #wire} built; called once after the Camel context has stopped. */
    default void close() {
    }
}
