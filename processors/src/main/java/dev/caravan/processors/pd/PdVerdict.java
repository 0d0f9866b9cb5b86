package dev.caravan.processors.pd;

import dev.caravan.processors.ExchangeProperty;

/**
 * Which answer a P/D request gets, decided from the two legs' results and the order they arrived in (SGLang's latest
 * dispatch, docs/design/upstream.md, "SGLang: P/D dispatch"). Pure and total, so every combination is unit-tested.
 *
 * <table>
 *   <caption>Decision table</caption>
 *   <tr><th>situation</th><th>verdict</th><th>client gets</th></tr>
 *   <tr><td>the client left</td><td>{@link Kind#CLIENT_GONE}</td><td>nothing (both legs cancelled)</td></tr>
 *   <tr><td>decode answered first, not 2xx</td><td>{@link Kind#DECODE_RESPONSE} (early rejection)</td>
 *       <td>decode's response as is; prefill was cancelled</td></tr>
 *   <tr><td>decode failed first without a response</td><td>{@link Kind#DECODE_FAILED} (early rejection)</td>
 *       <td>502 {@code decode_server_error}; prefill was cancelled</td></tr>
 *   <tr><td>prefill answered 4xx</td><td>{@link Kind#PREFILL_REJECTED}</td>
 *       <td>prefill's response as is; decode was cancelled</td></tr>
 *   <tr><td>prefill answered 5xx, failed or timed out</td><td>{@link Kind#PREFILL_FAILED}</td>
 *       <td>502 {@code prefill_server_error}; decode was cancelled</td></tr>
 *   <tr><td>prefill 2xx, decode answered (any status)</td><td>{@link Kind#DECODE_RESPONSE}</td>
 *       <td>decode's response, streamed, logprobs spliced</td></tr>
 *   <tr><td>prefill 2xx, decode failed without a response</td><td>{@link Kind#DECODE_FAILED}</td>
 *       <td>502 {@code decode_server_error}</td></tr>
 * </table>
 *
 * @param kind          the decision
 * @param earlyRejection decode finished before prefill with an error (prefill was aborted)
 * @param prefill       the prefill leg's result
 * @param decode        the decode leg's result
 */
public record PdVerdict(Kind kind, boolean earlyRejection, LegResult prefill, LegResult decode) {

    /** Route-read ({@code pd-vllm} skips the decode leg when it is set). Which response the client gets. */
    public static final ExchangeProperty<PdVerdict> PROPERTY = ExchangeProperty.of("caravanPdVerdict", PdVerdict.class);

    /** What the client is answered with. */
    public enum Kind {
        /** Stream the decode response (status, headers, body) to the client. */
        DECODE_RESPONSE,
        /** The decode leg failed without a response: 502 {@code decode_server_error}. */
        DECODE_FAILED,
        /** The prefill answered 4xx: forward its response as is. */
        PREFILL_REJECTED,
        /** The prefill answered 5xx or failed: 502 {@code prefill_server_error}. */
        PREFILL_FAILED,
        /** The client left: nothing to answer. */
        CLIENT_GONE
    }

    /**
     * @param prefill    the prefill leg's result (null is treated as not arrived, which the multicast never produces)
     * @param decode     the decode leg's result
     * @param first      the leg that arrived first
     * @param clientGone the client closed its connection while the legs ran
     */
    public static PdVerdict decide(LegResult prefill, LegResult decode, Leg first, boolean clientGone) {
        if (prefill == null || decode == null) {
            throw new IllegalStateException("both legs must have ended before the verdict, prefill=" + prefill
                    + ", decode=" + decode);
        }
        if (clientGone) {
            return new PdVerdict(Kind.CLIENT_GONE, false, prefill, decode);
        }
        boolean decodeFirst = first == Leg.DECODE && !decode.cancelled();
        if (decodeFirst && !decode.ok()) {
            return new PdVerdict(decode.kind() == LegResult.Kind.RESPONSE ? Kind.DECODE_RESPONSE : Kind.DECODE_FAILED,
                    true, prefill, decode);
        }
        if (!prefill.ok()) {
            return new PdVerdict(prefill.clientError() ? Kind.PREFILL_REJECTED : Kind.PREFILL_FAILED, false, prefill,
                    decode);
        }
        if (decode.kind() == LegResult.Kind.RESPONSE) {
            return new PdVerdict(Kind.DECODE_RESPONSE, false, prefill, decode);
        }
        return new PdVerdict(Kind.DECODE_FAILED, false, prefill, decode);
    }
}
