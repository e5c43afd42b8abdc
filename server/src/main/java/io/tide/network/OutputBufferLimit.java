package io.tide.network;

import io.tide.config.ConfigRegistry;

/**
 * The {@code normal} and {@code pubsub} classes of {@code client-output-buffer-limit}, kept current with CONFIG SET.
 * Thread-safe: one immutable snapshot behind a volatile reference.
 */
final class OutputBufferLimit {

    record Limits(long hard, long soft, long softSeconds) {
        boolean none() {
            return hard == 0 && soft == 0;
        }
    }

    private volatile Limits normal;
    private volatile Limits pubsub;

    OutputBufferLimit(ConfigRegistry config) {
        normal = parse(config.get("client-output-buffer-limit"), "normal");
        pubsub = parse(config.get("client-output-buffer-limit"), "pubsub");
        config.onChange("client-output-buffer-limit", v -> {
            normal = parse(config.get("client-output-buffer-limit"), "normal");
            pubsub = parse(config.get("client-output-buffer-limit"), "pubsub");
        });
    }

    Limits normal() {
        return normal;
    }

    /** The limits of clients with an active subscription. */
    Limits pubsub() {
        return pubsub;
    }

    /** Picks one class out of the canonical {@code class hard soft seconds ...} text. */
    static Limits parse(String canonical, String clientClass) {
        String[] w = canonical.trim().split("\\s+");
        for (int i = 0; i + 3 < w.length; i += 4) {
            if (w[i].equals(clientClass)) {
                return new Limits(Long.parseLong(w[i + 1]), Long.parseLong(w[i + 2]), Long.parseLong(w[i + 3]));
            }
        }
        return new Limits(0, 0, 0);
    }
}
