package io.tide.config;

import io.tide.config.ConfigParam.Type;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;

/**
 * The definitions of every parameter Tide accepts, with Redis 7's names, bounds and defaults unless noted.
 * Thread-safe (stateless).
 *
 * <p>Known limitations, kept so tools that read these parameters work: {@code save} accepts only {@code ""}
 * (snapshots are not implemented yet; redis-benchmark reads it), {@code appendonly} only {@code no}, and
 * {@code daemonize yes} is refused at startup. {@code bind} defaults to 127.0.0.1, not Redis's {@code * -::*}.
 */
final class StandardParams {

    private static final long INT_MAX = Integer.MAX_VALUE;
    private static final long MB = 1024L * 1024;

    private StandardParams() {}

    static List<ConfigParam> all() {
        return List.of(
                integer("port", 0, 65535, "6379").immutable()
                        .description("TCP port to listen on (0 = any free port).").build(),
                ConfigParam.builder("bind", Type.STRING).defaultValue("127.0.0.1").immutable().multiArg()
                        .description("Addresses to listen on, space-separated.").build(),
                ConfigParam.builder("requirepass", Type.STRING).defaultValue("")
                        .description("Password for the default user (empty = no password).").build(),
                integer("databases", 1, INT_MAX, "16").immutable()
                        .description("Number of databases.").build(),
                ConfigParam.builder("maxclients", Type.LONG).range(1, 4294967295L).defaultValue("10000")
                        .description("Maximum number of connected clients.").build(),
                integer("timeout", 0, INT_MAX, "0")
                        .description("Close a client idle for this many seconds (0 = never).").build(),
                integer("tcp-keepalive", 0, INT_MAX, "300")
                        .description("TCP keepalive interval in seconds (0 = off).").build(),
                ConfigParam.builder("dir", Type.STRING).defaultValue(currentDirectory()).check(StandardParams::dir)
                        .description("Working directory for data files; must exist.").build(),
                ConfigParam.builder("loglevel", Type.ENUM).values("debug", "verbose", "notice", "warning", "nothing")
                        .defaultValue("notice").description("Log verbosity.").build(),
                ConfigParam.builder("logfile", Type.STRING).defaultValue("").immutable()
                        .description("Log file (empty = standard output).").build(),
                memory("proto-max-bulk-len", MB, Long.MAX_VALUE, "512mb")
                        .description("Largest bulk string a request may carry.").build(),
                memory("client-query-buffer-limit", MB, Long.MAX_VALUE, "1gb")
                        .description("Largest query buffer of one client.").build(),
                integer("hz", 0, Integer.MAX_VALUE, "10")
                        .description("Background task frequency per second.").build(),
                ConfigParam.builder("daemonize", Type.BOOL).defaultValue("no").immutable()
                        .description("Unsupported: only 'no'; use your service manager.").build(),
                ConfigParam.builder("pidfile", Type.STRING).defaultValue("").immutable()
                        .description("File to write the process id to (empty = none).").build(),
                ConfigParam.builder("save", Type.STRING).defaultValue("").multiArg().check(StandardParams::save)
                        .description("Snapshot schedule; only \"\" until snapshots are implemented.").build(),
                ConfigParam.builder("appendonly", Type.BOOL).defaultValue("no").check(StandardParams::appendonly)
                        .description("Append-only file; only 'no' until the AOF is implemented.").build(),
                ConfigParam.builder("appendfsync", Type.ENUM).values("always", "everysec", "no")
                        .defaultValue("everysec").description("When the append-only file is fsynced.").build(),
                integer("shards", 0, 64, "1").immutable()
                        .description("Keyspace shards, one thread each (0 = one per available processor).").build(),
                ConfigParam.builder("io-driver", Type.ENUM).values("auto", "epoll", "io_uring", "nio")
                        .defaultValue("auto").immutable().description("Network I/O transport.").build(),
                ConfigParam.builder("profile", Type.ENUM).values(Profile.names().toArray(String[]::new))
                        .defaultValue("standalone").immutable()
                        .description("Named set of option defaults applied before the config file.").build(),
                ConfigParam.builder("lazyfree-lazy-user-flush", Type.BOOL).defaultValue("no")
                        .description("Kept for redis.conf compatibility: FLUSHALL/FLUSHDB drop their tables in O(1) and the JVM frees them in the background either way.").build(),
                ConfigParam.builder("enable-debug-command", Type.ENUM).values("no", "yes", "local")
                        .defaultValue("no").immutable()
                        .description("Allow DEBUG: no, yes, or local (from loopback connections only).").build(),
                integer("active-expire-effort", 1, 10, "1")
                        .description("Effort of the active expiry cycle.").build());
    }

    private static ConfigParam.Builder integer(String name, long min, long max, String def) {
        return ConfigParam.builder(name, Type.INT).range(min, max).defaultValue(def);
    }

    private static ConfigParam.Builder memory(String name, long min, long max, String def) {
        return ConfigParam.builder(name, Type.MEMORY).range(min, max).defaultValue(def);
    }

    private static String currentDirectory() {
        return Path.of("").toAbsolutePath().normalize().toString();
    }

    /** Resolves against the current dir (as Redis's chdir would) and requires an existing directory. */
    private static String dir(String value, String current) {
        Path p;
        try {
            p = Path.of(current).resolve(value).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw ConfigException.invalid("Invalid argument");
        }
        if (value.isEmpty() || !Files.exists(p)) {
            throw ConfigException.invalid("No such file or directory");
        }
        if (!Files.isDirectory(p)) {
            throw ConfigException.invalid("Not a directory");
        }
        return p.toString();
    }

    private static String save(String value, String current) {
        if (!value.isEmpty()) {
            throw ConfigException.invalid("snapshots are not implemented yet");
        }
        return value;
    }

    private static String appendonly(String value, String current) {
        if (value.equals("yes")) {
            throw ConfigException.invalid("append only file is not implemented yet");
        }
        return value;
    }
}
