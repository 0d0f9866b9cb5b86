/**
 * How a feature joins the gateway. A feature package holds its processors and one {@link
 * dev.caravan.processors.feature.Feature} class with its flag rows, the names its beans are bound under (which the
 * YAML routes use) and the code that builds those beans from the settings ({@code wire}). {@link
 * dev.caravan.processors.feature.Features} is the one list that assembles the built-in features in wiring order;
 * optional modules on the class path bring theirs as {@link dev.caravan.processors.feature.OptionalFeature}s. The flag
 * table ({@code CaravanFlags}), {@code --help} and the generated docs are made of the features' rows.
 */
package dev.caravan.processors.feature;
