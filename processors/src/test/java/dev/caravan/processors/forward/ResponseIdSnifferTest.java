package dev.caravan.processors.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

class ResponseIdSnifferTest {

    private final List<String> ids = new ArrayList<>();

    @Test
    void findsTheIdOfAStreamedResponseInItsCreatedEventAcrossChunks() {
        ResponseIdSniffer s = ResponseIdSniffer.forContentType("text/event-stream; charset=utf-8", ids::add);
        s.accept(Buffer.buffer("event: response.created\ndata: {\"type\":\"response.created\",\"resp"));
        assertThat(ids).isEmpty();
        s.accept(Buffer.buffer("onse\":{\"id\":\"resp_42\",\"status\":\"in_progress\"}}\n\n"));
        s.accept(Buffer.buffer("event: response.completed\ndata: {\"response\":{\"id\":\"resp_42\"}}\n\n"));
        assertThat(ids).containsExactly("resp_42");
    }

    @Test
    void findsTheLeadingIdOfAJsonResponseBeforeTheBodyEnds() {
        ResponseIdSniffer s = ResponseIdSniffer.forContentType("application/json", ids::add);
        s.accept(Buffer.buffer("{ \"id\" : \"resp_"));
        assertThat(ids).isEmpty();
        s.accept(Buffer.buffer("7\", \"object\":\"response\", \"output\":["));
        assertThat(ids).containsExactly("resp_7");
        s.finish();
        assertThat(ids).containsExactly("resp_7");
    }

    @Test
    void readsAnIdThatComesLateFromTheWholeBody() {
        ResponseIdSniffer s = ResponseIdSniffer.forContentType("application/json", ids::add);
        s.accept(Buffer.buffer("{\"object\":\"response\",\"id\":\"resp_late\"}"));
        assertThat(ids).isEmpty();
        s.finish();
        assertThat(ids).containsExactly("resp_late");
    }

    @Test
    void ignoresBodiesThatCarryNoResponseObject() {
        assertThat(ResponseIdSniffer.forContentType("text/plain", ids::add)).isNull();
        ResponseIdSniffer s = ResponseIdSniffer.forContentType("application/json", ids::add);
        s.accept(Buffer.buffer("[1,2,3]"));
        s.finish();
        assertThat(ids).isEmpty();
    }
}
