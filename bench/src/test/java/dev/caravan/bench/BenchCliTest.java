package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** Argument errors end with exit code 2 and one line, before any engine or gateway starts. */
class BenchCliTest {

    private static String failure(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = BenchCli.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(2);
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void refusesReplicasInTheWhatIfMode() {
        assertThat(failure("b2b", "--mode", "whatif", "--gateways", "3"))
                .isEqualTo("caravan bench: --gateways needs --mode http (the what-if mode replays one policy "
                        + "instance)" + System.lineSeparator());
    }

    @Test
    void refusesFewerThanOneGateway() {
        assertThat(failure("b2b", "--gateways", "0")).contains("--gateways must be >= 1, was 0");
    }

    @Test
    void refusesAnUnknownFront() {
        assertThat(failure("b2b", "--gateways", "2", "--front", "haproxy"))
                .contains("--front must be client or nginx, was haproxy");
    }

    @Test
    void refusesAnEngineModelFoundNowhere() {
        assertThat(failure("b2b", "--engine-tokenizer", "models/none"))
                .startsWith("caravan bench: --engine-tokenizer models/none not found in ");
    }
}
