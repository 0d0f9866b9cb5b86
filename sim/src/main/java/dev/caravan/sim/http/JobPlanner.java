package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.caravan.sim.EngineRole;
import dev.caravan.sim.pd.Rendezvous;

/**
 * Turns the prompts of a request into {@link Job}s, applying the engine's P/D role.
 *
 * <ul>
 *   <li><b>SGLang style.</b> A prefill engine generates one token per sequence and fills the sequence's
 *       {@code bootstrap_room} (if given). A decode engine requires {@code bootstrap_host}, {@code bootstrap_port} and
 *       {@code bootstrap_room}, each a scalar or an array with one entry per sequence (prompts × n, in order); a
 *       regular engine ignores them.</li>
 *   <li><b>vLLM style.</b> {@code kv_transfer_params: {"do_remote_decode": true}} makes any engine act as the prefill
 *       step (one token; the response carries {@code kv_transfer_params} for the decode step);
 *       {@code kv_transfer_params: {"do_remote_prefill": true, "remote_host", "remote_port", "remote_request_id"}}
 *       makes a regular or decode engine wait for that prefill and decode warm. One sequence per request.</li>
 * </ul>
 */
final class JobPlanner {

    private JobPlanner() {
    }

    /** The jobs, and the {@code kv_transfer_params} the response must return (vLLM prefill step), or null. */
    record Plan(List<Job> jobs, Map<String, Object> kvTransferParams) {
    }

    static Plan plan(EngineContext ctx, Map<String, Object> body, List<int[]> prompts, int n, int maxTokens) {
        int k = prompts.size() * n;
        Map<?, ?> kvp = Fields.object(body, "kv_transfer_params");
        boolean remoteDecode = kvp != null && Boolean.TRUE.equals(kvp.get("do_remote_decode"));
        boolean remotePrefill = kvp != null && Boolean.TRUE.equals(kvp.get("do_remote_prefill"));
        boolean sglang = body.get("bootstrap_room") != null || body.get("bootstrap_host") != null
                || body.get("bootstrap_port") != null;
        List<Rendezvous> rendezvous = null;
        List<String> rooms = null;
        Map<String, Object> transfer = null;
        int tokens = maxTokens;
        EngineRole role = ctx.role();
        if (role == EngineRole.DECODE || (remotePrefill && role == EngineRole.REGULAR)) {
            if (role == EngineRole.DECODE && sglang) {
                rendezvous = sglangRendezvous(body, k);
            } else if (remotePrefill) {
                rendezvous = List.of(vllmRendezvous(kvp, k));
            } else {
                throw new BadRequest("a decode engine needs bootstrap_host, bootstrap_port and bootstrap_room "
                        + "(or kv_transfer_params with do_remote_prefill)");
            }
        } else if (remoteDecode) {
            if (k != 1) {
                throw new BadRequest("kv_transfer_params supports one sequence per request, got " + k);
            }
            String room = ctx.nextId("kvx-");
            rooms = List.of(room);
            tokens = 1;
            int blocks = (prompts.get(0).length + ctx.config.blockSize() - 1) / ctx.config.blockSize();
            List<Integer> blockIds = new ArrayList<>(blocks);
            for (int i = 0; i < blocks; i++) {
                blockIds.add(i);
            }
            transfer = Json.obj("do_remote_prefill", true, "do_remote_decode", false, "remote_block_ids", blockIds,
                    "remote_engine_id", ctx.engineId, "remote_request_id", room, "remote_host", ctx.advertisedHost(),
                    "remote_port", ctx.roomsPort(), "tp_size", 1);
        } else if (role == EngineRole.PREFILL) {
            tokens = Math.min(1, maxTokens);
            if (body.get("bootstrap_room") != null) {
                rooms = values(body, "bootstrap_room", k).stream().map(JobPlanner::roomId).toList();
            }
        }
        List<Job> jobs = new ArrayList<>(k);
        for (int p = 0; p < prompts.size(); p++) {
            for (int i = 0; i < n; i++) {
                int idx = p * n + i;
                jobs.add(new Job(idx, prompts.get(p), tokens, rendezvous == null ? null : rendezvous.get(idx),
                        rooms == null ? null : rooms.get(idx)));
            }
        }
        return new Plan(jobs, transfer);
    }

    private static List<Rendezvous> sglangRendezvous(Map<String, Object> body, int k) {
        for (String f : new String[] {"bootstrap_host", "bootstrap_port", "bootstrap_room"}) {
            if (body.get(f) == null) {
                throw new BadRequest("a decode engine needs bootstrap_host, bootstrap_port and bootstrap_room; "
                        + f + " is missing");
            }
        }
        List<Object> hosts = values(body, "bootstrap_host", k);
        List<Object> ports = values(body, "bootstrap_port", k);
        List<Object> rooms = values(body, "bootstrap_room", k);
        List<Rendezvous> out = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            out.add(rendezvous(hosts.get(i), ports.get(i), roomId(rooms.get(i)), "bootstrap"));
        }
        return out;
    }

    private static Rendezvous vllmRendezvous(Map<?, ?> kvp, int k) {
        if (k != 1) {
            throw new BadRequest("kv_transfer_params supports one sequence per request, got " + k);
        }
        Object room = kvp.get("remote_request_id");
        if (kvp.get("remote_host") == null || kvp.get("remote_port") == null || room == null) {
            throw new BadRequest("kv_transfer_params with do_remote_prefill needs remote_host, remote_port and "
                    + "remote_request_id");
        }
        return rendezvous(kvp.get("remote_host"), kvp.get("remote_port"), roomId(room), "kv_transfer_params.remote");
    }

    private static Rendezvous rendezvous(Object host, Object port, String room, String what) {
        if (!(host instanceof String h) || h.isBlank()) {
            throw new BadRequest(what + "_host must be a non-empty string, was " + Json.string(host));
        }
        if (!(port instanceof Number p) || p.intValue() < 1 || p.intValue() > 65535) {
            throw new BadRequest(what + "_port must be an integer port, was " + Json.string(port));
        }
        return new Rendezvous(h, p.intValue(), room);
    }

    /** A scalar (repeated for every sequence) or an array of exactly {@code k} values. */
    private static List<Object> values(Map<String, Object> body, String key, int k) {
        Object v = body.get(key);
        if (v instanceof List<?> list) {
            if (list.size() != k) {
                throw new BadRequest(key + " must have one entry per sequence (" + k + "), had " + list.size());
            }
            return new ArrayList<>(list);
        }
        if (k != 1 && key.equals("bootstrap_room")) {
            throw new BadRequest("bootstrap_room must be an array of " + k + " rooms for a batch of " + k);
        }
        List<Object> out = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            out.add(v);
        }
        return out;
    }

    private static String roomId(Object room) {
        if (room instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            return Long.toUnsignedString(n.longValue());
        }
        if (room instanceof String s && !s.isEmpty()) {
            return s;
        }
        throw new BadRequest("bootstrap room must be an integer or a string, was " + Json.string(room));
    }
}
