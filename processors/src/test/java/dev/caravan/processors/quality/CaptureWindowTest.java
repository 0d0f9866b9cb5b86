package dev.caravan.processors.quality;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class CaptureWindowTest {

    private final AtomicLong now = new AtomicLong();
    private final CaptureWindow window = new CaptureWindow(3, 0.5, Duration.ofMinutes(1).toNanos(), now::get);

    @Test
    void warnsOnceTheFullWindowCapturesLessThanTheThresholdThenAtMostOncePerInterval() {
        assertThat(window.add(10, 100)).isNaN();
        assertThat(window.add(10, 100)).isNaN(); // two of three: not yet a window
        assertThat(window.add(10, 100)).isEqualTo(0.1);
        assertThat(window.add(10, 100)).isNaN(); // still low, but warned a moment ago
        now.addAndGet(Duration.ofSeconds(59).toNanos());
        assertThat(window.add(10, 100)).isNaN();
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(window.add(10, 100)).isEqualTo(0.1);
    }

    @Test
    void theRatioIsOverTheLastRequestsOnlyAndAHealthyWindowNeverWarns() {
        window.add(0, 100);
        window.add(90, 100);
        window.add(90, 100);
        assertThat(window.add(90, 100)).isNaN(); // the miss left the window: 270 / 300
        assertThat(window.ratio()).isEqualTo(0.9);
    }

    @Test
    void nothingReachableIsNoRatioAndNoWarning() {
        for (int i = 0; i < 5; i++) {
            assertThat(window.add(0, 0)).isNaN();
        }
        assertThat(window.ratio()).isNaN();
    }
}
