/**
 * The results pages, docs/benchmarks.md and docs/performance.md: one JSON file per section in docs/bench/results ({@link ResultsSection}),
 * written by the benchmark commands ({@code ./caravan bench --results}, the scripts under it-tests/bench), and the
 * page's tables and plots rendered from them ({@link ResultsPage}); {@code ResultsPageTest} keeps page and files in
 * step.
 */
package dev.caravan.bench.results;
