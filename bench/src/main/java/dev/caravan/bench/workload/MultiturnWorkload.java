package dev.caravan.bench.workload;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import dev.caravan.policies.text.ChatTemplate;

/**
 * Chat sessions that grow turn by turn: each session has its own system prompt (after a preamble every session shares),
 * then {@code turns} user turns; turn k+1 carries the whole conversation including the engine's real answer to turn k,
 * and is sent an exponential think time after that answer arrived (closed loop within a session, open loop across
 * sessions: sessions start as a Poisson process at {@code rate / turns} per second, so the long-run request rate is
 * {@code rate}).
 *
 * <p>With {@code sequential}, one session at a time: session k+1 starts a think time after session k's last answer
 * (the rate is then ignored), the low-load case where no imbalance guard ever fires and only the choice of a new
 * session's worker decides how the fleet is used.
 *
 * <p>Every prompt is padded to a multiple of 4 characters, so the answer's tokens (4 characters each) start on a token
 * boundary and the engine's cached answer blocks are a prefix of the next turn's prompt, as with a real tokenizer.
 */
public final class MultiturnWorkload implements Workload {

    private final int sessions;
    private final int turns;
    private final int sharedTokens;
    private final int prefixTokens;
    private final int userTokens;
    private final int outputTokens;
    private final double rate;
    private final double thinkSeconds;
    private final int warmup;
    private final long seed;
    private final boolean sequential;

    /** One session's conversation so far (immutable snapshot carried by each request). */
    private record Session(int id, int turn, List<Map<String, Object>> messages) {
    }

    public MultiturnWorkload(int sessions, int turns, int sharedTokens, int prefixTokens, int userTokens,
                             int outputTokens, double rate, double thinkSeconds, int warmup, long seed) {
        this(sessions, turns, sharedTokens, prefixTokens, userTokens, outputTokens, rate, thinkSeconds, warmup, seed,
                false);
    }

    /** As the open-loop constructor; {@code sequential} starts each session after the previous one ended. */
    public MultiturnWorkload(int sessions, int turns, int sharedTokens, int prefixTokens, int userTokens,
                             int outputTokens, double rate, double thinkSeconds, int warmup, long seed,
                             boolean sequential) {
        if (sessions < 1 || turns < 1) {
            throw new IllegalArgumentException("sessions and turns must be >= 1, were " + sessions + ", " + turns);
        }
        if (!(rate > 0) || !(thinkSeconds >= 0)) {
            throw new IllegalArgumentException("rate must be > 0 and think time >= 0, were " + rate + ", "
                    + thinkSeconds);
        }
        if (warmup < 0 || warmup >= (long) sessions * turns) {
            throw new IllegalArgumentException("warmup must be in [0, sessions × turns), was " + warmup);
        }
        this.sessions = sessions;
        this.turns = turns;
        this.sharedTokens = sharedTokens;
        this.prefixTokens = prefixTokens;
        this.userTokens = userTokens;
        this.outputTokens = outputTokens;
        this.rate = rate;
        this.thinkSeconds = thinkSeconds;
        this.warmup = warmup;
        this.seed = seed;
        this.sequential = sequential;
    }

    @Override
    public String name() {
        return "multiturn";
    }

    @Override
    public String description() {
        return String.format(Locale.ROOT, "multiturn: %,d sessions × %d turns; %d-token preamble shared by all + "
                + "%,d-token system prompt per session, %d-token user turns, %d-token answers, mean think time %.1f s, "
                + "%s, %,d warm-up requests, seed %d", sessions, turns, sharedTokens, prefixTokens,
                userTokens, outputTokens, thinkSeconds, sequential ? "one session at a time"
                        : String.format(Locale.ROOT, "~%.1f req/s", rate), warmup, seed);
    }

    @Override
    public Map<String, Object> parameters() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sessions", sessions);
        m.put("turns", turns);
        m.put("shared_tokens", sharedTokens);
        m.put("prefix_tokens", prefixTokens);
        m.put("user_tokens", userTokens);
        m.put("output_tokens", outputTokens);
        m.put("rate", rate);
        m.put("think_seconds", thinkSeconds);
        m.put("warmup", warmup);
        m.put("seed", seed);
        m.put("sequential", sequential);
        return m;
    }

    @Override
    public Iterator<BenchRequest> arrivals() {
        PoissonArrivals starts = new PoissonArrivals(rate / turns, new SplittableRandom(seed));
        return Arrivals.indexed(sequential ? 1 : sessions, id -> firstTurn(id, starts.next()));
    }

    /** Session {@code id}'s first turn: the shared preamble, its own system prompt, the first user message. */
    private BenchRequest firstTurn(int id, long at) {
        StringBuilder system = new StringBuilder(TextSource.text(TextSource.seedOf(seed, "preamble", 0),
                4 * sharedTokens)).append("Session ").append(id).append(". ");
        TextSource.append(system, TextSource.seedOf(seed, "session", id), 4 * prefixTokens);
        List<Map<String, Object>> messages = new ArrayList<>();
        messages.add(BenchRequest.message("system", system.toString()));
        return turn(at, new Session(id, 0, messages));
    }

    @Override
    public BenchRequest followUp(BenchRequest done, String output, long doneAtNanos) {
        Session s = (Session) done.state();
        SplittableRandom think = new SplittableRandom(TextSource.seedOf(seed, "think",
                (long) s.id() * 4096 + s.turn()));
        long at = doneAtNanos + (long) (-Math.log(1.0 - think.nextDouble()) * thinkSeconds * 1e9);
        if (s.turn() + 1 >= turns) {
            return sequential && s.id() + 1 < sessions ? firstTurn(s.id() + 1, at) : null;
        }
        List<Map<String, Object>> messages = new ArrayList<>(done.messages());
        messages.add(BenchRequest.message("assistant", output));
        return turn(at, new Session(s.id(), s.turn() + 1, messages));
    }

    /** The request for turn {@code s.turn()}: the conversation plus a new user message, padded to 4 characters. */
    private BenchRequest turn(long at, Session s) {
        StringBuilder user = new StringBuilder("Turn ").append(s.turn()).append(" of session ").append(s.id())
                .append(": ");
        TextSource.append(user, TextSource.seedOf(seed, "user", (long) s.id() * 4096 + s.turn()),
                Math.max(0, 4 * userTokens - user.length()));
        List<Map<String, Object>> messages = new ArrayList<>(s.messages());
        messages.add(BenchRequest.message("user", user.toString()));
        int pad = (4 - ChatTemplate.render(messages, null).length() % 4) % 4;
        if (pad > 0) {
            messages.set(messages.size() - 1, BenchRequest.message("user", user + ".".repeat(pad)));
        }
        return BenchRequest.chat(at, messages, "session-" + s.id(), outputTokens, 0,
                new Session(s.id(), s.turn(), messages));
    }

    @Override
    public boolean needsOutputText() {
        return true;
    }

    @Override
    public long expectedRequests() {
        return (long) sessions * turns;
    }

    @Override
    public int defaultWarmup() {
        return warmup;
    }

    @Override
    public int maxModelLen() {
        return sharedTokens + prefixTokens + turns * (userTokens + outputTokens + 16) + 64;
    }
}
