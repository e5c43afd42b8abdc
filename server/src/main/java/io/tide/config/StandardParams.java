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
 * <p>Known limitations: {@code daemonize yes} is refused at startup. {@code save} defaults to no save points in
 * an embedded server; the {@code standalone} profile of {@code tide-server} sets Redis's default. {@code bind} defaults to 127.0.0.1, not Redis's {@code * -::*}.
 */
final class StandardParams {

    private static final long INT_MAX = Integer.MAX_VALUE;
    private static final long MB = 1024L * 1024;

    private StandardParams() {}

    static List<ConfigParam> all() {
        return List.of(
                integer("port", 0, 65535, "6379").immutable()
                        .description("TCP port to listen on (0 = any free port).").build(),
                integer("admin-port", 0, 65535, "0").immutable()
                        .description("HTTP admin port on the bind addresses: /healthz, /readyz, /metrics "
                                + "(Prometheus), /backup (an RDB); 0 = off. With requirepass set, all but /healthz need HTTP basic "
                                + "credentials with that password.").build(),
                ConfigParam.builder("bind", Type.STRING).defaultValue("127.0.0.1").immutable().multiArg()
                        .description("Addresses to listen on, space-separated.").build(),
                ConfigParam.builder("requirepass", Type.STRING).defaultValue("")
                        .description("Password for the default user (empty = no password).").build(),
                ConfigParam.builder("protected-mode", Type.BOOL).defaultValue("yes")
                        .description("While the default user has no password, refuse connections from other addresses"
                                + " than loopback (127.0.0.0/8, ::1) and Unix sockets with -DENIED.").build(),
                ConfigParam.builder("acllog-max-len", Type.LONG).range(0, Long.MAX_VALUE).defaultValue("128")
                        .description("Entries the ACL LOG keeps (refused commands, keys, channels and AUTH).").build(),
                ConfigParam.builder("aclfile", Type.STRING).defaultValue("").immutable()
                        .description("File of ACL users (one 'user ...' line each), loaded at startup and by ACL LOAD,"
                                + " written by ACL SAVE; empty = users come from 'user' lines of the config file.")
                        .build(),
                ConfigParam.builder("acl-pubsub-default", Type.ENUM).values("allchannels", "resetchannels")
                        .defaultValue("resetchannels")
                        .description("The channels a new ACL user (and 'reset') starts with.").build(),
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
                integer("hz", 0, Integer.MAX_VALUE, "10").check((v, current) -> clamp(v, 1, 500)) // as updateHZ
                        .description("Background task frequency per second; values under 1 or over 500 are "
                                + "brought within, as in Redis.").build(),
                ConfigParam.builder("busy-reply-threshold", Type.LONG).range(0, Long.MAX_VALUE).defaultValue("5000")
                        .aliases("lua-time-limit")
                        .description("Milliseconds a script may run before other clients get -BUSY and SCRIPT KILL"
                                + " / FUNCTION KILL may stop it.").build(),
                ConfigParam.builder("commandlog-execution-slower-than", Type.LONG).range(-1, Long.MAX_VALUE)
                        .defaultValue("10000").aliases("slowlog-log-slower-than")
                        .description("Microseconds of execution from which a command enters the slow log (SLOWLOG, "
                                + "COMMANDLOG ... slow); -1 = off, 0 = every command.").build(),
                ConfigParam.builder("commandlog-slow-execution-max-len", Type.LONG).range(0, Long.MAX_VALUE)
                        .defaultValue("128").aliases("slowlog-max-len")
                        .description("Entries the slow log keeps (the oldest leave first).").build(),
                ConfigParam.builder("commandlog-request-larger-than", Type.LONG).range(-1, Long.MAX_VALUE)
                        .defaultValue("1048576")
                        .description("Request bytes (as RESP sends the arguments) from which a command enters the "
                                + "large-request command log; -1 = off.").build(),
                ConfigParam.builder("commandlog-large-request-max-len", Type.LONG).range(0, Long.MAX_VALUE)
                        .defaultValue("128").description("Entries the large-request command log keeps.").build(),
                ConfigParam.builder("commandlog-reply-larger-than", Type.LONG).range(-1, Long.MAX_VALUE)
                        .defaultValue("1048576")
                        .description("Reply bytes written from which a command enters the large-reply command log; "
                                + "-1 = off.").build(),
                ConfigParam.builder("commandlog-large-reply-max-len", Type.LONG).range(0, Long.MAX_VALUE)
                        .defaultValue("128").description("Entries the large-reply command log keeps.").build(),
                ConfigParam.builder("latency-monitor-threshold", Type.LONG).range(0, Long.MAX_VALUE).defaultValue("0")
                        .description("Milliseconds from which an event (command, fast-command, expire-cycle, "
                                + "eviction-cycle, aof-write, aof-fsync-always) is sampled for LATENCY (0 = off).")
                        .build(),
                ConfigParam.builder("latency-tracking", Type.BOOL).defaultValue("yes")
                        .description("Per-command latency histograms (LATENCY HISTOGRAM, INFO latencystats).").build(),
                ConfigParam.builder("latency-tracking-info-percentiles", Type.STRING).defaultValue("50 99 99.9")
                        .multiArg().check(StandardParams::percentiles)
                        .description("Percentiles INFO latencystats prints, space-separated, each in [0, 100].")
                        .build(),
                ConfigParam.builder("daemonize", Type.BOOL).defaultValue("no").immutable()
                        .description("Unsupported: only 'no'; use your service manager.").build(),
                ConfigParam.builder("pidfile", Type.STRING).defaultValue("").immutable()
                        .description("File to write the process id to (empty = none).").build(),
                ConfigParam.builder("save", Type.STRING).defaultValue("").multiArg().check(StandardParams::save)
                        .description("Save points: <seconds> <changes> pairs; a BGSAVE starts when at least <changes> "
                                + "writes happened and <seconds> passed since the last save (\"\" = none).").build(),
                ConfigParam.builder("dbfilename", Type.STRING).defaultValue("dump.rdb").check(StandardParams::fileName)
                        .description("Name of the RDB file in dir.").build(),
                ConfigParam.builder("rdbcompression", Type.BOOL).defaultValue("yes")
                        .description("LZF-compress strings in RDB files.").build(),
                ConfigParam.builder("rdbchecksum", Type.BOOL).defaultValue("yes").immutable()
                        .description("End RDB files with a CRC64 checksum (and verify it on load).").build(),
                ConfigParam.builder("stop-writes-on-bgsave-error", Type.BOOL).defaultValue("yes")
                        .description("Refuse writes (-MISCONF) while save points are set and the last background save "
                                + "failed.").build(),
                ConfigParam.builder("rdb-version", Type.ENUM).values("auto", "10", "11", "12").defaultValue("auto")
                        .description("Tide: RDB version to write; auto = the oldest that holds the data (10 as Redis "
                                + "7.0, 12 when a hash has field TTLs).").build(),
                integer("shutdown-timeout", 0, INT_MAX, "10")
                        .description("Seconds SHUTDOWN and SIGTERM may take to save and flush before giving up.").build(),
                ConfigParam.builder("appendonly", Type.BOOL).defaultValue("no")
                        .description("Append-only file: one stream per shard in appenddirname; turning it on at run "
                                + "time writes a base of the current dataset first.").build(),
                ConfigParam.builder("appendfsync", Type.ENUM).values("everysec", "always", "no")
                        .defaultValue("everysec").description("When the append-only file is fsynced: after every "
                                + "event-loop batch before replying (always), once a second off the event loop "
                                + "(everysec), or when the OS decides (no).").build(),
                ConfigParam.builder("appenddirname", Type.STRING).defaultValue("appendonlydir").immutable()
                        .check(StandardParams::appenddirname)
                        .description("Directory, inside dir, holding the AOF files and their manifest.").build(),
                ConfigParam.builder("appendfilename", Type.STRING).defaultValue("appendonly.aof").immutable()
                        .check(StandardParams::appendfilename)
                        .description("Base name of the AOF files (<name>.manifest, <name>.<seq>.base.rdb, "
                                + "<name>.<seq>.incr.aof, ...).").build(),
                ConfigParam.builder("aof-use-rdb-preamble", Type.BOOL).defaultValue("yes")
                        .description("Write the AOF base as RDB (yes) or as commands (no: SET, RESTORE ... ABSTTL, "
                                + "FUNCTION LOAD).").build(),
                ConfigParam.builder("aof-load-truncated", Type.BOOL).defaultValue("yes")
                        .description("At startup, cut a torn AOF tail back to its last complete command and log it "
                                + "(yes), or refuse to start (no).").build(),
                ConfigParam.builder("aof-timestamp-enabled", Type.BOOL).defaultValue("no")
                        .description("Write #TS:<unix seconds> annotations into the AOF.").build(),
                integer("auto-aof-rewrite-percentage", 0, INT_MAX, "100")
                        .description("Rewrite the AOF when it has grown by this percentage since the last rewrite "
                                + "(0 = never automatically).").build(),
                memory("auto-aof-rewrite-min-size", 0, Long.MAX_VALUE, "64mb")
                        .description("Smallest AOF size at which an automatic rewrite is considered.").build(),
                ConfigParam.builder("aof-rewrite-incremental-fsync", Type.BOOL).defaultValue("yes")
                        .description("Fsync every 4 MB while writing an AOF base, so the final fsync is short.").build(),
                integer("aof-fsync-timeout-ms", 1, INT_MAX, "2000")
                        .description("Tide: an AOF fsync not done within this many milliseconds fails the writes "
                                + "waiting on it and puts the AOF in its error state until a later fsync succeeds.")
                        .build(),
                integer("shards", 0, 64, "1").immutable()
                        .description("Keyspace shards, one thread each (0 = one per available processor).").build(),
                ConfigParam.builder("io-driver", Type.ENUM).values("auto", "epoll", "io_uring", "nio")
                        .defaultValue("auto").immutable()
                        .description("Network I/O transport; auto: io_uring where the kernel has it, else epoll, "
                                + "else NIO.").build(),
                ConfigParam.builder("io-uring-buffer-ring", Type.BOOL).defaultValue("yes").immutable()
                        .description("Tide, io_uring only: client reads take their buffers from a ring provided to "
                                + "the kernel, with one multishot receive per connection (fewer submissions and "
                                + "system calls per read).").build(),
                ConfigParam.builder("profile", Type.ENUM).values(Profile.names().toArray(String[]::new))
                        .defaultValue("standalone").immutable()
                        .description("Named set of option defaults applied before the config file.").build(),
                ConfigParam.builder("lazyfree-lazy-user-flush", Type.BOOL).defaultValue("no")
                        .description("FLUSHALL/FLUSHDB without SYNC or ASYNC act as ASYNC: the "
                                + "dropped keys go to the lazy freer and count in lazyfreed_objects.").build(),
                ConfigParam.builder("lazyfree-lazy-user-del", Type.BOOL).defaultValue("no")
                        .description("DEL acts as UNLINK: a value of more than 64 elements (quicklist nodes for a "
                                + "list) is freed by the lazy freer thread.").build(),
                ConfigParam.builder("lazyfree-lazy-expire", Type.BOOL).defaultValue("no")
                        .description("Expired keys' large values are freed by the lazy freer thread.").build(),
                ConfigParam.builder("lazyfree-lazy-server-del", Type.BOOL).defaultValue("no")
                        .description("A large value replaced by a write (SET over a big set, RENAME onto a key, "
                                + "...) is freed by the lazy freer thread.").build(),
                ConfigParam.builder("lazyfree-lazy-eviction", Type.BOOL).defaultValue("no")
                        .description("Evicted keys' large values are freed by the lazy freer thread.").build(),
                ConfigParam.builder("initial-keyspace-hint", Type.LONG).range(0, 1L << 31).defaultValue("0")
                        .immutable()
                        .description("Tide: keys expected in database 0; its tables are sized for them at startup "
                                + "(split across the shards), so a bulk load of that many keys never resizes. The "
                                + "tables count in used_memory from the start.").build(),
                memory("maxmemory", 0, Long.MAX_VALUE, "0")
                        .description("Memory limit of the whole instance (all shards together), as used_memory "
                                + "counts it; 0 = no explicit limit (a limit derived from the JVM's heap still "
                                + "applies, see docs/decisions/0009).").build(),
                ConfigParam.builder("maxmemory-policy", Type.ENUM)
                        .values("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru",
                                "allkeys-lfu", "allkeys-random", "noeviction")
                        .defaultValue("noeviction")
                        .description("What goes when used memory is over maxmemory: keys by approximated LRU, LFU, "
                                + "at random or nearest expiry first, among all keys or only keys with a TTL; "
                                + "noeviction refuses commands that may grow memory with -OOM.").build(),
                integer("maxmemory-samples", 1, INT_MAX, "5")
                        .description("Keys sampled per eviction round to approximate LRU/LFU/TTL order.").build(),
                integer("maxmemory-eviction-tenacity", 0, 100, "10")
                        .description("How long one eviction pass may run before the command proceeds (0-100; 10 "
                                + "= 500 us, growing 15% a step; 100 = until under the limit).").build(),
                integer("lfu-log-factor", 0, INT_MAX, "10")
                        .description("LFU counter growth: the higher, the more accesses a key needs to reach a "
                                + "high frequency (the counter saturates at 255).").build(),
                integer("lfu-decay-time", 0, INT_MAX, "1")
                        .description("An LFU counter loses one for every this many minutes the key was not "
                                + "accessed; 0 = never decay.").build(),
                ConfigParam.builder("maxmemory-clients", Type.STRING).defaultValue("0")
                        .check(StandardParams::memoryOrPercent)
                        .description("Memory all client connections together may use (bytes, or N% of maxmemory), as "
                                + "CLIENT LIST's tot-mem counts it; above it the connections using the most are "
                                + "closed (Redis's client eviction; CLIENT NO-EVICT on exempts one). 0 = off.").build(),
                ConfigParam.builder("maxmemory-protect-prefix", Type.STRING).defaultValue("").multiArg()
                        .description("Tide: space-separated key prefixes never chosen for eviction (locks, "
                                + "sessions, rate-limit counters); once only protected keys remain, writes get "
                                + "-OOM as under noeviction.").build(),
                // Two words, as redis-server takes them: --replicaof 127.0.0.1 6379 (or one quoted argument).
                ConfigParam.builder("replicaof", Type.STRING).defaultValue("").immutable().aliases("slaveof")
                        .multiArg().check(StandardParams::replicaof)
                        .description("<host> <port>: start as a replica of that primary (REPLICAOF at run time).")
                        .build(),
                ConfigParam.builder("replica-read-only", Type.BOOL).defaultValue("yes").aliases("slave-read-only")
                        .description("A replica refuses client writes with -READONLY.").build(),
                ConfigParam.builder("replica-serve-stale-data", Type.BOOL).defaultValue("yes")
                        .aliases("slave-serve-stale-data")
                        .description("A replica whose link to its primary is down still answers (yes), or answers "
                                + "-MASTERDOWN to every command not flagged stale (no).").build(),
                ConfigParam.builder("replica-announce-ip", Type.STRING).defaultValue("").aliases("slave-announce-ip")
                        .description("Address a replica announces to its primary (REPLCONF ip-address); empty = "
                                + "the one the primary sees.").build(),
                integer("replica-announce-port", 0, 65535, "0").aliases("slave-announce-port")
                        .description("Port a replica announces to its primary (REPLCONF listening-port); 0 = the "
                                + "port it listens on.").build(),
                ConfigParam.builder("masterauth", Type.STRING).defaultValue("")
                        .description("Password a replica sends its primary (AUTH) before the handshake.").build(),
                ConfigParam.builder("masteruser", Type.STRING).defaultValue("")
                        .description("User name a replica sends with masterauth (AUTH user password).").build(),
                integer("replica-priority", 0, INT_MAX, "100").aliases("slave-priority")
                        .description("Shown in INFO replication (slave_priority) for Sentinel's choice of a "
                                + "replica to promote; Tide itself does nothing with it.").build(),
                memory("repl-backlog-size", 1, Long.MAX_VALUE, "1mb").check((v, current) -> clamp(v, 16 * 1024,
                        Long.MAX_VALUE)) // at least 16 KB, as updateReplBacklogSize keeps it
                        .description("Bytes of the replication stream kept for replicas that reconnect (partial "
                                + "resync with PSYNC CONTINUE while the gap is still held); at least 16 KB, as in Redis.")
                        .build(),
                ConfigParam.builder("repl-backlog-ttl", Type.LONG).range(0, Long.MAX_VALUE).defaultValue("3600")
                        .description("Seconds without any replica after which the backlog is freed (and the "
                                + "replication ID changes); 0 = never.").build(),
                ConfigParam.builder("repl-diskless-sync", Type.BOOL).defaultValue("yes")
                        .description("Full sync streams the RDB straight to the replicas' sockets (EOF-marked); "
                                + "no = a BGSAVE into dbfilename, then the file as $<size>.").build(),
                ConfigParam.builder("repl-diskless-load", Type.ENUM).values("disabled", "on-empty-db", "swapdb")
                        .defaultValue("disabled")
                        .description("How a replica loads a full sync's RDB: disabled = into a file in dir first, "
                                + "then loaded; on-empty-db = straight from the socket when the dataset is empty; "
                                + "swapdb = straight from the socket into new databases while the old dataset keeps "
                                + "serving, swapped in once complete (kept if the sync fails).").build(),
                integer("repl-diskless-sync-delay", 0, INT_MAX, "5")
                        .description("Seconds a disk-less full sync waits for more replicas to share it.").build(),
                integer("repl-diskless-sync-max-replicas", 0, INT_MAX, "0")
                        .description("A disk-less full sync starts at once when this many replicas wait (0 = "
                                + "only the delay counts).").build(),
                integer("repl-ping-replica-period", 1, INT_MAX, "10").aliases("repl-ping-slave-period")
                        .description("Seconds between the PINGs the primary sends down the replication stream.")
                        .build(),
                integer("repl-timeout", 1, INT_MAX, "60")
                        .description("Seconds without an acknowledgement after which a replica is disconnected.")
                        .build(),
                integer("min-replicas-to-write", 0, INT_MAX, "0").aliases("min-slaves-to-write")
                        .description("Writes are refused (-NOREPLICAS) unless this many replicas acknowledged "
                                + "within min-replicas-max-lag seconds; 0 = off.").build(),
                integer("min-replicas-max-lag", 0, INT_MAX, "10").aliases("min-slaves-max-lag")
                        .description("Most seconds since a replica's last acknowledgement for it to count for "
                                + "min-replicas-to-write.").build(),
                ConfigParam.builder("replica-lazy-flush", Type.BOOL).defaultValue("no").aliases("slave-lazy-flush")
                        .description("A replica empties its old dataset before loading a full sync's image on the "
                                + "lazy-free thread (as FLUSHALL ASYNC) instead of inline.").build(),
                ConfigParam.builder("replica-ignore-maxmemory", Type.BOOL).defaultValue("yes")
                        .aliases("slave-ignore-maxmemory")
                        .description("A replica does not evict keys for maxmemory (its primary's DELs keep the "
                                + "datasets equal) and refuses nothing with -OOM; no: it applies maxmemory itself.")
                        .build(),
                integer("tcp-backlog", 0, INT_MAX, "511").immutable()
                        .description("Listen backlog of the TCP listeners.").build(),
                integer("tls-port", 0, 65535, "0")
                        .description("TLS port on the bind addresses, beside or instead of port (0 = off); CONFIG SET "
                                + "opens, moves or closes the listener.").build(),
                tlsFile("tls-cert-file", "Server certificate (PEM, chain allowed); also the client certificate of "
                        + "replication when tls-client-cert-file is empty. CONFIG SET reloads it."),
                tlsFile("tls-key-file", "Private key of tls-cert-file (PEM: PKCS#8, plain or encrypted, PKCS#1 RSA, "
                        + "SEC1 EC)."),
                tlsFile("tls-key-file-pass", "Passphrase of an encrypted tls-key-file."),
                tlsFile("tls-client-cert-file", "Client certificate for replication (empty = tls-cert-file)."),
                tlsFile("tls-client-key-file", "Private key of tls-client-cert-file."),
                tlsFile("tls-client-key-file-pass", "Passphrase of an encrypted tls-client-key-file."),
                tlsFile("tls-dh-params-file", "DH parameters (PEM); checked for readability only: the JDK provider "
                        + "negotiates its own FFDHE groups."),
                tlsFile("tls-ca-cert-file", "CA certificates (PEM) that client and primary certificates must chain to."),
                tlsFile("tls-ca-cert-dir", "Directory of CA certificates (PEM files), as tls-ca-cert-file."),
                ConfigParam.builder("tls-auth-clients", Type.ENUM).values("no", "yes", "optional").defaultValue("yes")
                        .description("Client certificates on the TLS port: yes = required and verified, optional = "
                                + "verified when sent, no = not asked for. Applies to new connections.").build(),
                ConfigParam.builder("tls-auth-clients-user", Type.ENUM).values("off", "CN").defaultValue("off")
                        .description("CN = a client whose verified certificate's common name is an ACL user that is "
                                + "on starts authenticated as that user (Redis 8's); off = certificates sign no one in.")
                        .build(),
                tlsFile("tls-protocols", "Space-separated TLS versions (TLSv1 TLSv1.1 TLSv1.2 TLSv1.3); empty = "
                        + "TLSv1.2 TLSv1.3."),
                tlsFile("tls-ciphers", "TLSv1.2-and-older cipher list, OpenSSL syntax: OpenSSL or IANA names separated "
                        + "by ':', '!name' to exclude, DEFAULT/HIGH for the JDK's defaults; unknown names are skipped, "
                        + "none left is an error."),
                tlsFile("tls-ciphersuites", "TLSv1.3 cipher suites separated by ':' (e.g. TLS_AES_256_GCM_SHA384)."),
                ConfigParam.builder("tls-prefer-server-ciphers", Type.BOOL).defaultValue("no")
                        .description("Choose the cipher by the server's order rather than the client's.").build(),
                ConfigParam.builder("tls-session-caching", Type.BOOL).defaultValue("yes")
                        .description("Cache TLS sessions for resumption (no: every connection does a full handshake)."
                                ).build(),
                integer("tls-session-cache-size", 0, INT_MAX, "20480")
                        .description("Most cached TLS sessions (0 = no limit).").build(),
                integer("tls-session-cache-timeout", 0, INT_MAX, "300")
                        .description("Seconds a cached TLS session may be resumed.").build(),
                ConfigParam.builder("tls-replication", Type.BOOL).defaultValue("no")
                        .description("A replica connects to its primary over TLS (with tls-client-cert-file or "
                                + "tls-cert-file, verified against the CA) and announces tls-port.").build(),
                ConfigParam.builder("tls-provider", Type.ENUM).values("jdk", "openssl").defaultValue("jdk").immutable()
                        .description("Tide's own: the TLS implementation, the JDK's (jdk) or BoringSSL through Netty's "
                                + "tcnative (openssl, bundled for linux-x86_64).").build(),
                ConfigParam.builder("tls-cluster", Type.BOOL).defaultValue("no")
                        .description("Accepted for Redis compatibility; no effect until cluster mode exists.").build(),
                ConfigParam.builder("notify-keyspace-events", Type.STRING).defaultValue("")
                        .check(StandardParams::notifyKeyspaceEvents)
                        .description("Keyspace notification classes (K E g $ l s h z x e t m d n A), published on "
                                + "__keyspace@<db>__ and __keyevent@<db>__ channels; empty = off.").build(),
                ConfigParam.builder("client-output-buffer-limit", Type.STRING)
                        .defaultValue("normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60")
                        .multiArg().check(StandardParams::outputBufferLimit)
                        .description("Per client class: <class> <hard> <soft> <soft-seconds>; a client over the hard "
                                + "limit, or over the soft one for that long, is disconnected (0 = no limit). Enforced "
                                + "for normal and pubsub clients (a MONITOR client is normal unless it subscribes, as in "
                                + "Redis) and for replicas (class replica/slave: the stream queued for a replica, during a full "
                                + "sync too; the RDB itself does not count).").build(),
                ConfigParam.builder("enable-debug-command", Type.ENUM).values("no", "yes", "local")
                        .defaultValue("no").immutable()
                        .description("Allow DEBUG: no, yes, or local (from loopback connections only).").build(),
                integer("active-expire-effort", 1, 10, "1")
                        .description("Effort of the active expiry cycle.").build(),
                integer("list-max-listpack-size", Integer.MIN_VALUE, INT_MAX, "-2").aliases("list-max-ziplist-size")
                        .description("Largest listpack-encoded list, and node of a quicklist: a positive count of "
                                + "entries, or -1..-5 for 4, 8, 16, 32 or 64 KB.").build(),
                integer("list-compress-depth", 0, INT_MAX, "0")
                        .description("Quicklist nodes kept uncompressed at each end of a list; the nodes between "
                                + "are LZF-compressed (0 = none). A list takes the depth set when it becomes a "
                                + "quicklist, as in Redis.").build(),
                ConfigParam.builder("hash-max-listpack-entries", Type.LONG).range(0, Long.MAX_VALUE).defaultValue("512")
                        .aliases("hash-max-ziplist-entries")
                        .description("Most fields a hash keeps in the listpack encoding.").build(),
                memory("hash-max-listpack-value", 0, Long.MAX_VALUE, "64")
                        .aliases("hash-max-ziplist-value")
                        .description("Longest field or value a hash keeps in the listpack encoding.").build(),
                ConfigParam.builder("set-max-intset-entries", Type.LONG).range(0, Long.MAX_VALUE).defaultValue("512")
                        .description("Most members a set of integers keeps in the intset encoding.").build(),
                ConfigParam.builder("set-max-listpack-entries", Type.LONG).range(0, Long.MAX_VALUE).defaultValue("128")
                        .description("Most members a set keeps in the listpack encoding.").build(),
                memory("set-max-listpack-value", 0, Long.MAX_VALUE, "64")
                        .description("Longest member a set keeps in the listpack encoding.").build(),
                ConfigParam.builder("zset-max-listpack-entries", Type.LONG).range(0, Long.MAX_VALUE).defaultValue("128")
                        .aliases("zset-max-ziplist-entries")
                        .description("Most members a sorted set keeps in the listpack encoding.").build(),
                memory("zset-max-listpack-value", 0, Long.MAX_VALUE, "64")
                        .aliases("zset-max-ziplist-value")
                        .description("Longest member a sorted set keeps in the listpack encoding.").build(),
                memory("stream-node-max-bytes", 0, Long.MAX_VALUE, "4096")
                        .description("Largest node of a stream's radix tree, in bytes (0 = no limit).").build(),
                ConfigParam.builder("stream-node-max-entries", Type.LONG).range(0, Long.MAX_VALUE).defaultValue("100")
                        .description("Most entries in a node of a stream's radix tree (0 = no limit).").build(),
                memory("hll-sparse-max-bytes", 0, Long.MAX_VALUE, "3000")
                        .description("Largest HyperLogLog kept in the sparse representation.").build());
    }

    /** Redis's latency-tracking-info-percentiles: numbers in [0, 100], printed as Redis prints doubles. */
    private static String percentiles(String value, String current) {
        String v = value.trim();
        if (v.isEmpty()) return "";
        StringBuilder sb = new StringBuilder();
        for (String w : v.split("\\s+")) {
            double d;
            try {
                d = Double.parseDouble(w);
            } catch (NumberFormatException e) {
                throw ConfigException.invalid("Invalid latency-tracking-info-percentiles parameters");
            }
            if (Double.isNaN(d) || Double.isInfinite(d) || w.endsWith("d") || w.endsWith("f") || w.endsWith("D")
                    || w.endsWith("F")) {
                throw ConfigException.invalid("Invalid latency-tracking-info-percentiles parameters");
            }
            if (d < 0 || d > 100) {
                throw ConfigException.invalid("latency-tracking-info-percentiles parameters should sit between "
                        + "[0.0,100.0]");
            }
            if (sb.length() > 0) sb.append(' ');
            sb.append(io.tide.metrics.LatencyHistograms.formatPercentile(d));
        }
        return sb.toString();
    }

    /** {@code replicaof}: empty, or a host and a port. */
    private static String replicaof(String value, String current) {
        String v = value.trim();
        if (v.isEmpty()) return "";
        String[] w = v.split("\\s+");
        if (w.length != 2) throw ConfigException.invalid("wrong number of arguments");
        try {
            int p = Integer.parseInt(w[1]);
            if (p < 0 || p > 65535) throw new NumberFormatException();
        } catch (NumberFormatException e) {
            throw ConfigException.invalid("Invalid master port");
        }
        return w[0] + " " + w[1];
    }

    private static ConfigParam.Builder integer(String name, long min, long max, String def) {
        return ConfigParam.builder(name, Type.INT).range(min, max).defaultValue(def);
    }

    /** A TLS string parameter (a file, a list or a passphrase): free text, empty by default, settable at run time. */
    private static ConfigParam tlsFile(String name, String description) {
        return ConfigParam.builder(name, Type.STRING).defaultValue("").description(description).build();
    }

    private static ConfigParam.Builder memory(String name, long min, long max, String def) {
        return ConfigParam.builder(name, Type.MEMORY).range(min, max).defaultValue(def);
    }

    /** A number brought within [lo, hi], for a parameter Redis accepts more widely and then caps. */
    private static String clamp(String value, long lo, long hi) {
        return Long.toString(Math.max(lo, Math.min(hi, Long.parseLong(value))));
    }

    private static String currentDirectory() {
        return Path.of("").toAbsolutePath().normalize().toString();
    }

    /** Resolves against the current dir (as Redis's chdir would) and requires an existing directory. */
    /** Redis's MEMORY_CONFIG | PERCENT_CONFIG: bytes with a unit, or {@code N%} (0-100), printed as bytes or N%. */
    private static String memoryOrPercent(String value, String current) {
        if (value.endsWith("%")) {
            String n = value.substring(0, value.length() - 1);
            if (n.isEmpty() || n.length() > 18 || !n.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw ConfigException.invalid("argument must be a memory or percent value");
            }
            long pct = Long.parseLong(n);
            if (pct > 100) throw ConfigException.invalid("percentage argument must be less or equal to 100");
            return pct == 0 ? "0" : pct + "%";
        }
        try {
            return Long.toString(ConfigParam.parseMemory(value));
        } catch (ConfigException e) {
            throw ConfigException.invalid("argument must be a memory or percent value");
        }
    }

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

    /**
     * Redis's client-output-buffer-limit: groups of {@code class hard soft seconds} (memory units allowed)
     * merged into the current setting; canonical form lists all three classes in bytes, as CONFIG GET shows.
     */
    private static String outputBufferLimit(String value, String current) {
        String[] words = value.trim().split("\\s+");
        if (value.isBlank() || words.length % 4 != 0) {
            throw ConfigException.invalid("Wrong number of arguments in buffer limit configuration.");
        }
        String[] cur = current == null || current.isBlank()
                ? "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60".split(" ")
                : current.trim().split("\\s+");
        java.util.Map<String, long[]> limits = new java.util.LinkedHashMap<>();
        for (int i = 0; i + 3 < cur.length; i += 4) {
            limits.put(cur[i], new long[] {Long.parseLong(cur[i + 1]), Long.parseLong(cur[i + 2]),
                    Long.parseLong(cur[i + 3])});
        }
        for (int i = 0; i < words.length; i += 4) {
            String cls = words[i].toLowerCase(java.util.Locale.ROOT);
            if (cls.equals("replica")) cls = "slave";
            if (!limits.containsKey(cls)) {
                throw ConfigException.invalid("Invalid client class specified in buffer limit configuration.");
            }
            long hard;
            long soft;
            long secs;
            try {
                hard = ConfigParam.parseMemory(words[i + 1]);
                soft = ConfigParam.parseMemory(words[i + 2]);
                secs = Long.parseLong(words[i + 3]);
            } catch (ConfigException | NumberFormatException e) {
                throw ConfigException.invalid(
                        "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
            }
            if (secs < 0) {
                throw ConfigException.invalid(
                        "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
            }
            limits.put(cls, new long[] {hard, soft, secs});
        }
        StringBuilder sb = new StringBuilder();
        limits.forEach((cls, l) -> sb.append(sb.isEmpty() ? "" : " ").append(cls).append(' ').append(l[0])
                .append(' ').append(l[1]).append(' ').append(l[2]));
        return sb.toString();
    }

    /** Redis's save parsing: pairs of non-negative integers, or "" for none; shown normalised. */
    private static String save(String value, String current) {
        String v = value.trim();
        if (v.isEmpty()) return "";
        String[] w = v.split("\\s+");
        if (w.length % 2 != 0) throw ConfigException.invalid("Invalid save parameters");
        StringBuilder sb = new StringBuilder();
        for (String x : w) {
            long n;
            try {
                n = Long.parseLong(x);
            } catch (NumberFormatException e) {
                throw ConfigException.invalid("Invalid save parameters");
            }
            if (n < 0) throw ConfigException.invalid("Invalid save parameters");
            sb.append(sb.isEmpty() ? "" : " ").append(n);
        }
        return sb.toString();
    }

    /** dbfilename: a plain file name, as Redis requires ("dbfilename can't be a path, just a filename"). */
    private static String fileName(String value, String current) {
        if (value.contains("/") || value.contains("\\")) {
            throw ConfigException.invalid("dbfilename can't be a path, just a filename");
        }
        return value;
    }

    /** Redis's parsing of the event classes; CONFIG GET shows them in Redis's normal form. */
    private static String notifyKeyspaceEvents(String value, String current) {
        String v = io.tide.pubsub.KeyspaceEvents.normalise(value);
        if (v == null) throw ConfigException.invalid("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
        return v;
    }

    /** Redis's isValidAOFdirname: not empty, not a path. */
    private static String appenddirname(String value, String current) {
        if (value.isEmpty()) throw ConfigException.invalid("appenddirname can't be empty");
        if (value.contains("/")) throw ConfigException.invalid("appenddirname can't be a path, just a dirname");
        return value;
    }

    /** Redis's isValidAOFfilename: not empty, not a path. */
    private static String appendfilename(String value, String current) {
        if (value.isEmpty()) throw ConfigException.invalid("appendfilename can't be empty");
        if (value.contains("/")) throw ConfigException.invalid("appendfilename can't be a path, just a filename");
        return value;
    }
}
