package dev.caravan.bench.whatif;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

import dev.caravan.bench.BenchRunner;
import dev.caravan.bench.PolicySpec;
import dev.caravan.bench.drive.EngineTokens;
import dev.caravan.bench.drive.Progress;
import dev.caravan.bench.drive.RequestRecord;
import dev.caravan.bench.drive.ReuseTracker;
import dev.caravan.bench.report.PolicyResult;
import dev.caravan.bench.report.ResultCalculator;
import dev.caravan.bench.workload.BenchRequest;
import dev.caravan.bench.workload.Workload;
import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.Maintainable;
import dev.caravan.policies.ManualTicker;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TreeBacked;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;
import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.routing.RoutingFeature;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.engine.RequestListener;
import dev.caravan.sim.engine.SimRequest;
import dev.caravan.sim.text.ModelText;

/**
 * The what-if mode: replays a workload through Caravan's real policy code ({@link PolicyFactory}, the classes the
 * gateway runs) against models of the engines (the simulator's own {@code EngineCore} and prefix cache), as a
 * discrete-event simulation in simulated time: no HTTP, no wall clock, so a one-hour trace takes seconds to minutes and
 * the result is exactly reproducible. The policy's clock is the simulated clock; its maintenance (cache_aware's tree
 * eviction) runs at its configured simulated interval, {@code max-tree-size auto} sizes each worker's tree budget from
 * the simulated engine's KV capacity as the gateway does from the engine's report, and engine loads are published to
 * the workers every {@code load-check-interval} simulated seconds as the gateway's load monitor does.
 *
 * <p>What it leaves out: the gateway's own latency and concurrency (decisions are instantaneous and one at a time),
 * HTTP, and health/retry behaviour. Compare with the HTTP mode to see those.
 */
public final class WhatIfRunner {

    private static final long DEFAULT_LOAD_POLL_NANOS = 5_000_000_000L;

    private final BenchRunner.Config config;
    private final PrintStream err;
    private final boolean terminal;

    public WhatIfRunner(BenchRunner.Config config, PrintStream err, boolean terminal) {
        this.config = config;
        this.err = err;
        this.terminal = terminal;
    }

    private enum Kind { ARRIVAL, WAKE, MAINTAIN, POLL }

    private record Event(long at, long order, Kind kind, int engine, BenchRequest request, boolean openLoop) {
    }

    public PolicyResult run(PolicySpec spec) {
        long wallStart = System.nanoTime();
        SimConfig c = config.engine();
        Workload w = config.workload();
        ManualTicker ticker = new ManualTicker(0);
        LoadBalancingPolicy policy = PolicyFactory.create(spec.policy(), spec.options(),
                PolicyEnvironment.of(ticker, 42));
        PseudoTokenizer tokenizer = new PseudoTokenizer(c.charsPerToken());
        List<ModelEngine> engines = new ArrayList<>();
        List<Worker> workers = new ArrayList<>();
        for (int i = 0; i < config.engines(); i++) {
            ModelEngine e = new ModelEngine(i, c);
            engines.add(e);
            workers.add(e.worker);
            policy.onWorkerAdded(e.worker);
        }
        long budget = engineSizedTreeBudget(spec, c);
        if (budget > 0 && policy instanceof TreeBacked tree) {
            workers.forEach(wk -> tree.setTenantCharBudget(wk.url(), budget));
        }
        ReuseTracker reuse = new ReuseTracker(c.blockSize(), new EngineTokens(ModelText.synthetic(c.charsPerToken())));
        List<RequestRecord> records = new ArrayList<>();
        PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.at() != b.at() ? Long.compare(a.at(), b.at())
                : Long.compare(a.order(), b.order()));
        long[] order = {0};
        Iterator<BenchRequest> arrivals = w.arrivals();
        if (arrivals.hasNext()) {
            BenchRequest first = arrivals.next();
            queue.add(new Event(first.atNanos(), order[0]++, Kind.ARRIVAL, -1, first, true));
        }
        Duration maintenance = policy instanceof Maintainable m ? m.maintenanceInterval() : Duration.ZERO;
        if (!maintenance.isZero()) {
            queue.add(new Event(maintenance.toNanos(), order[0]++, Kind.MAINTAIN, -1, null, false));
        }
        long poll = spec.options().containsKey("load-check-interval")
                ? Long.parseLong(spec.options().get("load-check-interval")) * 1_000_000_000L : DEFAULT_LOAD_POLL_NANOS;
        if (poll > 0) {
            queue.add(new Event(0, order[0]++, Kind.POLL, -1, null, false));
        }
        int[] outstanding = {0};
        long windowStart = -1;
        long lastArrival = -1;
        long seq = 0;
        try (Progress progress = new Progress(spec.label() + " (what-if)", w.expectedRequests(), err, terminal)) {
            while (!queue.isEmpty()) {
                Event ev = queue.poll();
                if (ev.kind() != Kind.ARRIVAL && ev.kind() != Kind.WAKE && outstanding[0] == 0
                        && !arrivals.hasNext() && queue.stream().noneMatch(x -> x.kind() == Kind.ARRIVAL)) {
                    break;
                }
                long t = ev.at();
                ticker.set(t);
                for (ModelEngine e : engines) {
                    e.integrate(t);
                }
                switch (ev.kind()) {
                    case ARRIVAL -> {
                        if (ev.openLoop() && arrivals.hasNext()) {
                            BenchRequest n = arrivals.next();
                            queue.add(new Event(n.atNanos(), order[0]++, Kind.ARRIVAL, -1, n, true));
                        }
                        boolean warm = seq < config.warmup();
                        if (!warm && windowStart < 0) {
                            windowStart = t;
                            engines.forEach(e -> e.startWindow(t));
                        }
                        RequestRecord rec = new RequestRecord(seq++, warm, t, t,
                                reuse.admit(ev.request()), ev.request().prefixTokens(),
                                ev.request().routingKey(), 0);
                        rec.sentNanos = t;
                        records.add(rec);
                        progress.onSent(0);
                        outstanding[0]++;
                        admit(ev.request(), rec, policy, workers, engines, tokenizer, queue, order, reuse, progress,
                                outstanding, w);
                        lastArrival = t;
                        engines.forEach(ModelEngine::markArrival);
                    }
                    case WAKE -> {
                        ModelEngine e = engines.get(ev.engine());
                        if (e.nextWake == t) {
                            e.nextWake = e.core.advance(t);
                            schedule(e, queue, order);
                        }
                    }
                    case MAINTAIN -> {
                        ((Maintainable) policy).runMaintenance();
                        queue.add(new Event(t + maintenance.toNanos(), order[0]++, Kind.MAINTAIN, -1, null, false));
                    }
                    case POLL -> {
                        engines.forEach(e -> e.pollLoad(t));
                        queue.add(new Event(t + poll, order[0]++, Kind.POLL, -1, null, false));
                    }
                }
                engines.forEach(ModelEngine::observe);
            }
        }
        double[] inflight = null;
        if (windowStart >= 0) {
            inflight = new double[engines.size() + 1];
            for (ModelEngine e : engines) {
                inflight[e.index] = e.inflightMean(windowStart, lastArrival);
                inflight[engines.size()] = Math.max(inflight[engines.size()], e.peak());
            }
        }
        reuse.applyCeilings(records, config.pooledCapacityBlocks());
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("policy", spec.policy());
        settings.putAll(spec.options());
        List<String> names = engines.stream().map(e -> String.valueOf(e.index)).toList();
        return ResultCalculator.compute(spec, "whatif", settings, records, new ResultCalculator.RunWindow(1.0,
                c.prefillTokensPerSec(), names, inflight, (System.nanoTime() - wallStart) / 1e9));
    }

    /**
     * The tree budget {@code max-tree-size auto} gives each worker through the gateway, or 0 when the size is a number:
     * the engine's KV capacity in tokens ({@code max_total_num_tokens}, which the simulated engines report) times
     * {@code kv-chars-per-token}. The option's default is the gateway's ({@link CaravanFlags#MAX_TREE_SIZE}), so a
     * replay of the default policy measures what the gateway would run.
     */
    static long engineSizedTreeBudget(PolicySpec spec, SimConfig c) {
        String size = spec.options().getOrDefault(PolicyConfig.MAX_TREE_SIZE,
                RoutingFeature.MAX_TREE_SIZE.defaultValue());
        if (!RoutingFeature.AUTO.equals(size)) {
            return 0;
        }
        String perToken = spec.options().getOrDefault(PolicyConfig.KV_CHARS_PER_TOKEN,
                KvFeature.KV_CHARS_PER_TOKEN.defaultValue());
        return (long) c.kvCapacityTokens() * Long.parseLong(perToken);
    }

    private void admit(BenchRequest req, RequestRecord rec, LoadBalancingPolicy policy, List<Worker> workers,
                       List<ModelEngine> engines, PseudoTokenizer tokenizer, PriorityQueue<Event> queue, long[] order,
                       ReuseTracker reuse, Progress progress, int[] outstanding, Workload w) {
        int[] tokens = tokenizer.encode(req.renderedText());
        Decision d = policy.select(workers, new SelectionContext(config.model(), req.renderedText(), tokens,
                Map.of(SelectionContext.ROUTING_KEY_HEADER, req.routingKey())));
        rec.decision = d.label();
        ModelEngine e = d.isEmpty() ? null : engines.get(workers.indexOf(d.worker()));
        if (e == null || !e.core.fits(tokens.length, req.maxTokens())) {
            rec.status = e == null ? 503 : 400;
            rec.error = e == null ? "no worker selected" : "request does not fit the engine's KV pool";
            rec.doneNanos = rec.sentNanos;
            progress.onDone(false, 0, 0);
            outstanding[0]--;
            return;
        }
        WorkerLease lease = e.worker.acquire(null, d.onFirstToken()); // onRelease: as before, not run here
        rec.engine = String.valueOf(e.index);
        SimRequest r = e.core.newRequest(tokens, req.maxTokens(), false, 0, new RequestListener() {
            @Override
            public void onToken(SimRequest request, int index, int tokenId) {
                if (index == 0) {
                    lease.firstToken(); // as the gateway does on the first streamed event
                }
            }

            @Override
            public void onFinished(SimRequest request) {
                lease.release();
                policy.onRequestComplete(e.worker, true);
                rec.firstTokenNanos = request.firstTokenAt();
                rec.doneNanos = request.finishedAt();
                rec.promptTokens = request.promptTokens();
                rec.cachedTokens = request.cachedTokens();
                rec.completionTokens = request.generated();
                rec.status = 200;
                progress.onDone(true, rec.cachedTokens, rec.promptTokens);
                outstanding[0]--;
                if (w.needsOutputText()) {
                    StringBuilder out = new StringBuilder();
                    for (int id : request.outputTokens()) {
                        out.append(e.output.text(id));
                    }
                    reuse.remember(req, out.toString());
                    BenchRequest next = w.followUp(req, out.toString(), request.finishedAt());
                    if (next != null) {
                        queue.add(new Event(next.atNanos(), order[0]++, Kind.ARRIVAL, -1, next, false));
                    }
                }
            }
        });
        e.nextWake = e.core.submit(r, rec.sentNanos);
        schedule(e, queue, order);
    }

    private static void schedule(ModelEngine e, PriorityQueue<Event> queue, long[] order) {
        if (e.nextWake != Long.MAX_VALUE) {
            queue.add(new Event(e.nextWake, order[0]++, Kind.WAKE, e.index, null, false));
        }
    }
}
