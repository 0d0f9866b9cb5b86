package dev.caravan.policies;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class WorkerRegistryTest {

    @Test
    void listsWorkersInRegistrationOrderAcrossAddsAndRemovals() {
        WorkerRegistry registry = new WorkerRegistry();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            registry.add(Worker.builder("http://10.0.0." + i + ":8000").build());
            expected.add("http://10.0.0." + i + ":8000");
        }
        registry.removeByUrl("http://10.0.0.5:8000");
        expected.remove("http://10.0.0.5:8000");
        registry.add(Worker.builder("http://10.0.0.99:8000").role(WorkerRole.PREFILL).build());
        expected.add("http://10.0.0.99:8000");

        assertThat(registry.all().stream().map(Worker::url)).containsExactlyElementsOf(expected);
        assertThat(registry.list(null, WorkerRole.REGULAR).stream().map(Worker::url))
                .containsExactlyElementsOf(expected.subList(0, expected.size() - 1));
    }
}
