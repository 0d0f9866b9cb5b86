/**
 * The gateway's Camel tuning, fenced: every place where the request path runs Camel (or Vert.x) otherwise than its
 * defaults lives here or is installed from here by {@link dev.caravan.processors.tuning.CamelTuning}, and
 * {@code --camel-tuning=false} turns all of it off at once, leaving stock Camel.
 *
 * <p>The rule of this package: public APIs and SPIs only. No reflection into Camel's non-public classes or fields, no
 * subclass of a Camel class that is not meant to be extended, nothing that needs a Camel version check. An item that
 * cannot be done through a public door is not done. Each item states what it gains and which upstream change would
 * make it unnecessary (docs/design/camel-tuning.md). Other packages may use this one; it depends on none of the
 * features, only on the timer abstraction ({@code time}) and the message hook of the {@code caravan-http:} component.
 */
package dev.caravan.processors.tuning;
