package dev.caravan.processors.admin;

import java.util.List;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.feature.Feature;

/**
 * The admin API's worker management (admin.camel.yaml): register, list, get, update and remove workers, and SGLang's
 * legacy URL-based calls.
 */
public final class AdminFeature implements Feature {

    @Override
    public List<CaravanFlag> flags() {
        return List.of();
    }
}
