/**
 * JMH micro-benchmarks of the routing core and the tree memory measurement. Run from the shaded jar, never as part of the
 * test build: {@code ./caravan jmh <regex>} or {@code java -cp it-tests/target/caravan-bench.jar org.openjdk.jmh.Main
 * <regex>}. Commands and recorded numbers are in docs/performance.md.
 */
package dev.caravan.jmh;
