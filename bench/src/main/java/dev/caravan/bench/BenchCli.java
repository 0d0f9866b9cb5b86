package dev.caravan.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import dev.caravan.bench.drive.Front;
import dev.caravan.bench.drive.NginxProcess;
import dev.caravan.bench.report.BenchReport;
import dev.caravan.bench.report.MarkdownReport;
import dev.caravan.bench.report.Plots;
import dev.caravan.bench.results.FleetResults;
import dev.caravan.bench.soak.SoakMain;
import dev.caravan.bench.workload.Workload;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.kv.KvPublisherKind;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./caravan bench}: the fleet benchmark. Starts simulated engines and a load balancer per policy (or uses
 * {@code --gateway}), drives a workload through real HTTP with open-loop arrivals, and prints a Markdown table per
 * policy; {@code --json} and {@code --out} write the same figures as JSON and PNG plots, {@code --results} merges them
 * into a section of the results page (docs/benchmarks.md).
 */
@Command(name = "caravan bench", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 118,
        description = {"The fleet benchmark: one workload, several policies side by side, each on a fresh fleet of "
                + "simulated engines (cold caches) behind a fresh load balancer, same requests and seed.",
            "Latencies, req/s and G_waste are in simulated time (wall time × --time-scale)."},
        footer = {"", "Examples:",
            "  ./caravan bench b2b --time-scale 4 --policies round_robin,consistent_hashing,cache_aware,nginx",
            "  ./caravan bench b2b --popularity hot:0.4 --policies 'cache_aware:balance-abs-threshold=8@tuned'",
            "  ./caravan bench trace ../shared/traces/conversation_trace.jsonl --speedup 4 --time-scale 4",
            "  ./caravan bench soak --minutes 30 --seed 42 --results docs/bench/results/soak.json",
            "  ./caravan bench b2b --mode whatif --policies round_robin,cache_aware   (no HTTP: seconds)",
            "  ./caravan bench b2b --gateways 3 --time-scale 2 --policies cache_aware,manual,kv_aware",
            "  ./caravan bench b2b --gateways 3 --sync hazelcast --policies cache_aware,manual,kv_aware",
            "  ./caravan bench noisy --engines 1 --policies 'round_robin:max-concurrent-requests=32@fifo,"
                + "round_robin:max-concurrent-requests=32:tenants-file=bench/noisy-tenants.yaml@flow_control'"})
public final class BenchCli implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "WORKLOAD", description = "b2b, multiturn, rag, noisy or trace; soak (the fault soak, its own options: soak --help); or render "
            + "(re-render the table and plots of a saved --json report).")
    String workload;
    @Parameters(index = "1", arity = "0..1", paramLabel = "FILE",
            description = "trace: a Mooncake .jsonl or an Azure .csv trace; render: a report .json.")
    Path file;

    @Option(names = "--policies", paramLabel = "LIST", description = "Comma-separated NAME[:KEY=VALUE]...[@LABEL] "
            + "entries: Caravan policies with gateway options (cache_aware:min-prefix-match-chars=4096), nginx, "
            + "nginx:least_conn, nginx:hash, external. Default: round_robin,cache_aware (external with --gateway).")
    String policies;
    @Option(names = "--mode", description = "http (real gateway and engines) or whatif (the policy code against "
            + "engine models in simulated time, no HTTP).", defaultValue = "http")
    String mode;
    @Option(names = "--gateway", paramLabel = "URL", split = ",", description = "Use this running load balancer "
            + "instead of starting one per policy (policy entry 'external'); several comma-separated URLs (gateway "
            + "replicas) are alternated over.")
    List<URI> gateway;
    @Option(names = "--gateways", paramLabel = "N", description = "Gateway replicas per Caravan policy: with N > 1 "
            + "each policy runs behind one gateway and then behind N replicas (same engines registered on each), "
            + "and the report sets them side by side.", defaultValue = "1")
    int gateways;
    @Option(names = "--front", description = "What alternates requests over N replicas: client (the load "
            + "generator itself, round robin) or nginx (a round-robin nginx upstream over the replicas).",
            defaultValue = "client")
    String front;
    @Option(names = "--sync", description = "Replica sync of the N-replica runs: none (each replica learns alone) or "
            + "hazelcast (the replicas form one cluster on loopback: static member list, ephemeral ports). The "
            + "one-gateway runs never sync.", defaultValue = "none")
    String sync;
    @Option(names = "--engines", description = "Simulated engines per run.", defaultValue = "8")
    int engines;
    @Option(names = "--time-scale", description = "Simulated seconds per wall second, for the engines' clocks and "
            + "the arrival schedule alike.", defaultValue = "1")
    double timeScale;
    @Option(names = "--kv-capacity-tokens", description = "KV pool per engine (default: the workload's sizing; b2b "
            + "derives it from --cache-prompts; others the simulator's 428,569).")
    Integer kvCapacityTokens;
    @Option(names = "--max-model-len", description = "Engines' context limit (default: what the workload needs, at "
            + "least 8,192).")
    Integer maxModelLen;
    @Option(names = "--prefill-tokens-per-sec", description = "Engines' prefill speed.",
            defaultValue = "" + SimConfig.DEFAULT_PREFILL_TOKENS_PER_SEC)
    double prefillTokensPerSec;
    @Option(names = "--decode-ms-per-token", description = "Engines' decode step.",
            defaultValue = "" + SimConfig.DEFAULT_DECODE_MS_PER_TOKEN)
    double decodeMsPerToken;
    @Option(names = "--model", description = "The model field sent.", defaultValue = SimConfig.DEFAULT_MODEL)
    String model;
    @Option(names = "--engine-tokenizer", paramLabel = "PATH", description = "The model whose files the engines "
            + "load: they tokenize with its tokenizer.json and render chat with its Jinja template; a relative path "
            + "is also looked up in the directories above this one. kv_aware runs get the same files (--model-path "
            + "and --kv-tokenizer). synthetic: the simulator's toy tokenizer (4 characters a token), which kv_aware's "
            + "default pseudo tokenizer matches; the what-if mode always uses it. Default: ${DEFAULT-VALUE}.",
            defaultValue = EngineModel.DEFAULT)
    String engineTokenizer;
    @Option(names = "--kv-publisher", description = "Engines' KV-event publisher: vllm or sglang.",
            defaultValue = "vllm")
    String kvPublisher;
    @Option(names = "--block-size", description = "Engines' KV block size (SGLang's page size with "
            + "--kv-publisher sglang).", defaultValue = "" + SimConfig.DEFAULT_BLOCK_SIZE)
    int blockSize;
    @Option(names = "--kv-groups", paramLabel = "LAYOUT", description = "Engines' KV-cache groups, as a hybrid "
            + "model's (the simulator's --kv-groups): full, full+swa:W, full+chunked:C, full+mamba:B[:R] "
            + "(docs/simulator.md). Default: ${DEFAULT-VALUE}.", defaultValue = SimConfig.DEFAULT_KV_GROUPS)
    String kvGroups;
    @Option(names = "--request-timeout-s", description = "Wall seconds without a byte before a request fails.",
            defaultValue = "600")
    long requestTimeoutS;
    @Option(names = "--max-wall-s", description = "Wall seconds after which one policy's run is cut short.",
            defaultValue = "21600")
    long maxWallS;
    @Option(names = "--jvm-warmup-s", description = "Wall seconds of the workload sent once, unmeasured, before the "
            + "first policy (JIT and class loading); 0 to skip.", defaultValue = "15")
    long jvmWarmupS;
    @Option(names = "--json", paramLabel = "FILE", description = "Write the report as JSON.")
    Path json;
    @Option(names = "--out", paramLabel = "DIR", description = "Write PNG plots (hit rate, TTFT, load share) and the "
            + "Markdown report here.")
    Path out;
    @Option(names = "--name", description = "File name prefix in --out (default: the workload name).")
    String name;
    @Option(names = "--results", paramLabel = "FILE", description = "Merge this run's figures, as rows of a section "
            + "of the results page, into this file (docs/bench/results/*.json, from which docs/benchmarks.md is "
            + "rendered); created when absent.")
    Path results;
    @Option(names = "--results-row", paramLabel = "LABEL", description = "This run's row label in --results "
            + "(default: --name, else the workload name); a row of the same label is replaced. The noisy workload "
            + "writes a row per run instead: 'quiet tenants alone', then 'everyone, LABEL' per policy entry.")
    String resultsRow;
    @Mixin
    WorkloadOptions workloadOptions = new WorkloadOptions();

    private String[] args = new String[0];
    private PrintStream stdout = System.out;
    private PrintStream stderr = System.err;

    @Override
    public Integer call() throws Exception {
        boolean whatIf = switch (mode) {
            case "http" -> false;
            case "whatif" -> true;
            default -> throw new CommandLine.ParameterException(new CommandLine(this),
                    "--mode must be http or whatif, was " + mode);
        };
        if (workload.equals("render")) {
            if (file == null || !Files.isRegularFile(file)) {
                throw new IllegalArgumentException("render needs a report FILE written by --json, got " + file);
            }
            BenchReport saved = BenchReport.readJson(file);
            write(saved, MarkdownReport.render(saved), saved.workload());
            return 0;
        }
        Front f = switch (front) {
            case "client" -> Front.CLIENT;
            case "nginx" -> new Front(Front.Kind.NGINX, NginxProcess.find().orElseThrow(() ->
                    new IllegalArgumentException("--front nginx needs an nginx executable on the PATH "
                            + "(apt-get install -y nginx)")));
            default -> throw new IllegalArgumentException("--front must be client or nginx, was " + front);
        };
        Workload w = workloadOptions.create(workload, file);
        String list = policies != null ? policies : gateway != null && !gateway.isEmpty() ? "external"
                : "round_robin,cache_aware";
        List<PolicySpec> specs = PolicySpec.parseList(list);
        EngineModel engineModel = EngineModel.resolve(whatIf ? EngineModel.SYNTHETIC : engineTokenizer, Path.of(""));
        double scale = engineModel.tokensPerNominalToken();
        int kv = kvCapacityTokens != null ? kvCapacityTokens : w.kvCapacityTokens(engines) > 0
                ? blocks(w.kvCapacityTokens(engines) * scale) : SimConfig.DEFAULT_KV_CAPACITY_TOKENS;
        int len = maxModelLen != null ? maxModelLen : Math.max(SimConfig.DEFAULT_MAX_MODEL_LEN,
                (int) Math.ceil(w.maxModelLen() * Math.max(1.0, scale)));
        if (engineModel.path() != null) {
            stderr.printf(java.util.Locale.ROOT, "caravan bench: engines load %s (%.3f tokens per nominal token of "
                    + "the workload's text%s)%n", engineModel.path(), scale, kvCapacityTokens == null
                    && w.kvCapacityTokens(engines) > 0 ? "; KV pool scaled to " + kv + " tokens" : "");
        }
        SimConfig engine = SimConfig.builder().timeScale(timeScale).kvCapacityTokens(kv).maxModelLen(len)
                .prefillTokensPerSec(prefillTokensPerSec).decodeMsPerToken(decodeMsPerToken).model(model)
                .tokenizer(engineModel.path()).kvPublisher(KvPublisherKind.parse(kvPublisher)).blockSize(blockSize)
                .kvGroups(kvGroups).build();
        BenchRunner.Config config = new BenchRunner.Config(w, specs, engines, engine, gateway, model,
                w.defaultWarmup(), requestTimeoutS * 1000, maxWallS, whatIf, jvmWarmupS,
                "./caravan bench " + String.join(" ", args), gateways, f, sync);
        stderr.println("caravan bench: " + w.description());
        BenchReport report = new BenchRunner(config, stderr, System.console() != null).run();
        if (json != null) {
            report.writeJson(json);
            stderr.println("caravan bench: wrote " + json);
        }
        if (results != null) {
            FleetResults.merge(results, report, resultsRow != null ? resultsRow : name != null ? name : w.name());
            stderr.println("caravan bench: merged into " + results);
        }
        write(report, MarkdownReport.render(report), w.name());
        return 0;
    }

    /** {@code tokens} rounded up to a whole KV block. */
    private int blocks(double tokens) {
        return (int) Math.ceil(tokens / blockSize) * blockSize;
    }

    /** Prints the table and, with {@code --out}, writes it and the plots there. */
    private void write(BenchReport report, String markdown, String defaultName) throws IOException {
        stdout.print(markdown);
        stdout.flush();
        if (out != null) {
            String prefix = name != null ? name : defaultName;
            Files.createDirectories(out);
            Files.writeString(out.resolve(prefix + ".md"), markdown, StandardCharsets.UTF_8);
            Plots.write(report, out, prefix).forEach(p -> stderr.println("caravan bench: wrote " + p));
        }
    }

    /** Runs the benchmark with these arguments, printing to the given streams; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        BenchCli cli = new BenchCli();
        cli.args = args.clone();
        cli.stdout = out;
        cli.stderr = err;
        CommandLine cmd = new CommandLine(cli).setOut(new java.io.PrintWriter(out, true))
                .setErr(new java.io.PrintWriter(err, true));
        cmd.setExecutionExceptionHandler((ex, line, parsed) -> {
            if (ex instanceof IllegalArgumentException || ex instanceof IOException
                    || ex instanceof java.io.UncheckedIOException) {
                err.println("caravan bench: " + ex.getMessage());
                return 2;
            }
            throw ex;
        });
        return cmd.execute(args);
    }

    public static void main(String[] args) {
        if (System.getProperty("log4j2.configurationFile") == null) {
            System.setProperty("log4j2.configurationFile", "caravan-bench-log4j2.properties");
        }
        System.setProperty("java.awt.headless", "true");
        if (args.length > 0 && args[0].equals("soak")) {
            SoakMain.main(java.util.Arrays.copyOfRange(args, 1, args.length));
        }
        System.exit(run(args, System.out, System.err));
    }
}
