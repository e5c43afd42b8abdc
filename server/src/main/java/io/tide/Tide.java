package io.tide;

import io.tide.config.ConfigRegistry;
import io.tide.config.LaunchOptions;

/**
 * Embedding entry point: start a server inside any JVM process. Thread-safe.
 *
 * <pre>{@code
 * try (Server server = Tide.start("--port", "0", "--shards", "2")) {
 *     int port = server.port();
 *     ...
 * }
 * }</pre>
 */
public final class Tide {

    private Tide() {}

    /** Starts a server from a configuration. */
    public static Server start(ConfigRegistry config) {
        return Server.start(config);
    }

    /** Starts a server from the same arguments {@code tide-server} takes (an optional config file, then options). */
    public static Server start(String... args) {
        Startup startup = Startup.begin(); // the command table and class loading overlap the option parsing
        LaunchOptions.Launch launch = LaunchOptions.parse(args, Version.get());
        if (launch.action() != LaunchOptions.Action.RUN) {
            startup.finish();
            throw new IllegalArgumentException(launch.message());
        }
        return Server.start(launch.config(), startup);
    }
}
