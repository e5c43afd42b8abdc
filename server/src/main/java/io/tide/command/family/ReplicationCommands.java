package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.ClientConnection;
import io.tide.command.ClientSession;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.replication.ReplicaLink;
import io.tide.shard.Shard;
import java.util.concurrent.CompletableFuture;

/**
 * Thread-safe (stateless). Replication's commands: PSYNC, SYNC, REPLCONF and WAIT on the primary side, REPLICAOF and
 * SLAVEOF; each runs on the client's home shard, WAIT, REPLICAOF and SLAVEOF on the coordinator with every shard
 * parked when there are several.
 */
public final class ReplicationCommands {

    private ReplicationCommands() {}

    public static void register(CommandTable t) {
        t.group("server");
        t.add("psync", -3, "admin noscript no_async_loading no_multi", 0, 0, 0, "@admin @slow @dangerous", "2.8.0",
                "An internal command used in replication.", Handler.PSYNC);
        t.add("sync", 1, "admin noscript no_async_loading no_multi", 0, 0, 0, "@admin @slow @dangerous", "1.0.0",
                "An internal command used in replication.", Handler.SYNC);
        t.add("replconf", -1, "admin noscript loading stale allow_busy", 0, 0, 0, "@admin @slow @dangerous", "3.0.0",
                "An internal command for configuring the replication stream.", Handler.REPLCONF);
        // allshards: the journal sinks change with the role at one instant, with every shard parked.
        t.add("replicaof", 3, "admin noscript stale no_async_loading allshards", 0, 0, 0, "@admin @slow @dangerous", "5.0.0",
                "Configures a server as replica of another, or promotes it to a master.", Handler.REPLICAOF);
        t.add("slaveof", 3, "admin noscript stale no_async_loading allshards", 0, 0, 0, "@admin @slow @dangerous", "1.0.0",
                "Sets a Redis server as a replica of another, or promotes it to being a master.",
                Handler.REPLICAOF);
        t.group("generic");
        // allshards: every shard's journal is flushed at one instant after the client's earlier commands ran, so
        // the offset WAIT waits for covers all of them (hops included).
        t.add("wait", 3, "noscript allshards", 0, 0, 0, "@slow @connection", "3.0.0",
                "Blocks until the asynchronous replication of all preceding write commands sent by the connection "
                        + "is completed.", Handler.WAIT_COMMAND);
        // allshards as WAIT: every shard's writer is flushed and its offset read at one instant.
        t.add("waitaof", 4, "noscript allshards", 0, 0, 0, "@slow @connection", "7.2.0",
                "Blocks until all of the preceding write commands sent by the connection are written to the "
                        + "append-only file of the primary and/or replicas.", Handler.WAITAOF);
    }

    /** The link a connection's handshake fills in, created by its first REPLCONF or PSYNC. */
    private static ReplicaLink link(ClientSession c) {
        ReplicaLink l = c.replicaLink();
        if (l == null) {
            String addr = c.connection().remoteAddress();
            int colon = addr.lastIndexOf(':');
            l = new ReplicaLink(c.id(), colon > 0 ? addr.substring(0, colon) : addr);
            c.replicaLink(l);
        }
        return l;
    }

    /** PSYNC replid offset: from now on the connection is a replica, answered by the replication thread. */
    static Reply psync(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        if (c.isReplica()) { // Redis ignores SYNC/PSYNC from a replica
            c.suppressCurrentReply();
            return Reply.OK;
        }
        long offset = Args.parseLong(argv[2]);
        start(ctx, c, Args.text(argv[1]), offset);
        return Reply.OK;
    }

    /** SYNC: the pre-PSYNC protocol, a full sync without the +FULLRESYNC line. */
    static Reply sync(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        if (c.isReplica()) {
            c.suppressCurrentReply();
            return Reply.OK;
        }
        start(ctx, c, null, -1);
        return Reply.OK;
    }

    /** REPLICAOF host port | NO ONE (and SLAVEOF). */
    static Reply replicaof(CommandContext ctx, byte[][] argv) {
        io.tide.replication.Replica replica = ctx.server().replica();
        io.tide.replication.Primary primary = ctx.server().replication();
        if (Args.is(argv[1], "no") && Args.is(argv[2], "one")) {
            if (replica.hasHistory()) primary.attachParked(); // before any write this server accepts as a primary
            replica.noOne();
            return Reply.OK;
        }
        if (ctx.client() != null && ctx.client().isReplica()) {
            throw Errors.error("ERR Command is not valid when client is a replica.");
        }
        Long port = Args.parseLongOrNull(argv[2]);
        if (port == null || port < 0 || port > 65535) throw Errors.error("ERR Invalid master port");
        String host = Args.text(argv[1]);
        if (host.equals(replica.host()) && port == replica.port()) {
            return new Reply.Simple("OK Already connected to specified master");
        }
        // A primary becoming a replica: its replicas are dropped, its sinks come off, and its own history is what it
        // asks the new primary to continue.
        if (!replica.active()) replica.adoptHistory(primary.becomeReplica());
        replica.replicaOf(host, port.intValue());
        return Reply.OK;
    }

    private static void start(CommandContext ctx, ClientSession c, String replid, long offset) {
        if (ctx.server().replica().active() && !ctx.server().replica().linkUp()) {
            throw Errors.error("NOMASTERLINK Can't SYNC while not connected with my master");
        }
        ReplicaLink l = link(c);
        c.suppressCurrentReply(); // the replication thread answers, on the socket itself
        c.markReplica();
        ClientConnection conn = c.connection();
        io.tide.replication.Primary primary = ctx.server().replication();
        primary.psync(l, new ReplicaLink.Channel() {
            @Override
            public void write(byte[] bytes, java.util.function.Consumer<Boolean> done) {
                conn.writeRaw(bytes, done);
            }

            @Override
            public void close() {
                conn.close();
            }
        }, replid, offset);
        conn.onClose(() -> primary.linkLost(l));
    }

    /** REPLCONF option value ...: Redis 7.0's options; ACK and GETACK get no reply. */
    static Reply replconf(CommandContext ctx, byte[][] argv) {
        if (argv.length % 2 == 0) throw Errors.syntax();
        ClientSession c = ctx.client();
        for (int i = 1; i < argv.length; i += 2) {
            String opt = Args.lower(argv[i]);
            byte[] value = argv[i + 1];
            switch (opt) {
                case "listening-port" -> link(c).listeningPort(Args.parseInt(value, null));
                case "ip-address" -> link(c).announcedIp(Args.text(value));
                case "capa" -> link(c).capa(Args.text(value));
                case "rdb-only" -> {
                    long v = Args.parseLong(value);
                    if (v != 0 && v != 1) throw Errors.syntax();
                    link(c).rdbOnly(v == 1);
                }
                case "ack" -> {
                    // From a replica only, and never answered (the stream is one way).
                    c.suppressCurrentReply();
                    Long off = Args.parseLongOrNull(value);
                    if (!c.isReplica() || off == null) return Reply.OK;
                    long fack = -1; // REPLCONF ACK <offset> FACK <aof offset>: what the replica's AOF fsynced (7.2)
                    if (argv.length > i + 3 && Args.is(argv[i + 2], "fack")) {
                        Long f = Args.parseLongOrNull(argv[i + 3]);
                        if (f == null) return Reply.OK;
                        fack = f;
                    }
                    ctx.server().replication().ack(link(c), off, fack);
                    return Reply.OK;
                }
                case "getack" -> {
                    // Asked of a replica by its primary; a primary has nothing to acknowledge.
                    c.suppressCurrentReply();
                    return Reply.OK;
                }
                default -> throw Errors.error("ERR Unrecognized REPLCONF option: " + Args.text(argv[i]));
            }
        }
        return Reply.OK;
    }

    /**
     * WAITAOF numlocal numreplicas timeout: [whether the local AOF fsynced every write made before it, how many
     * replicas acknowledged (REPLCONF ACK ... FACK) having fsynced the whole stream as of now], once {@code numlocal}
     * and {@code numreplicas} are reached or when the timeout (milliseconds, 0 = none) passes. Inside MULTI it answers
     * at once. The client waits; no shard does.
     */
    static Reply waitaof(CommandContext ctx, byte[][] argv) {
        long numlocal = Args.parseLong(argv[1]);
        if (numlocal < 0 || numlocal > 1) throw Errors.error(Errors.NUMLOCAL_RANGE);
        long numreplicas = Args.parseLong(argv[2]);
        if (numreplicas < 0) throw Errors.error(Errors.MUST_BE_POSITIVE);
        long deadline = Args.timeoutMillis(argv[3], ctx.now());
        if (ctx.server().replica().active()) {
            throw Errors.error(Errors.WAITAOF_REPLICA);
        }
        io.tide.persistence.AppendOnly aof = ctx.server().persistence().appendOnly();
        boolean aofOn = aof != null && aof.enabled();
        if (numlocal > 0 && !aofOn) {
            throw Errors.error(Errors.WAITAOF_AOF_OFF);
        }
        for (Shard s : ctx.coordinated() ? ctx.shards().all() : new Shard[] {ctx.client().home()}) {
            s.writes().journal().flush();
        }
        io.tide.persistence.AppendOnly.Marks marks = aofOn ? aof.marks() : null;
        io.tide.replication.Primary primary = ctx.server().replication();
        if (ctx.nested()) { // inside MULTI Redis does not block: the counts as of now
            io.tide.replication.Primary.Info info = primary.info();
            long local = aofOn && aof.fsynced(marks) ? 1 : 0;
            return Reply.array(Reply.integer(local),
                    Reply.integer(io.tide.replication.Primary.aofAcked(info, info.offset())));
        }
        CompletableFuture<Reply> answer = new CompletableFuture<>();
        int wanted = (int) Math.min(Integer.MAX_VALUE, numreplicas);
        primary.awaitAof((int) numlocal, wanted, deadline, marks, (local, replicas, refusal) -> answer.complete(
                switch (refusal) {
                    case AOF_OFF -> Reply.error(Errors.WAITAOF_AOF_OFF);
                    case DEMOTED -> Reply.error(Errors.UNBLOCKED_ROLE_CHANGE);
                    case NONE -> Reply.array(Reply.integer(local), Reply.integer(replicas));
                }));
        return new Reply.Later(answer);
    }

    /**
     * WAIT numreplicas timeout: the number of replicas that acknowledged every write made before it, once
     * {@code numreplicas} have or when the timeout (milliseconds, 0 = none) passes. The client waits; no shard does.
     */
    static Reply waitCommand(CommandContext ctx, byte[][] argv) {
        if (ctx.server().replica().active()) {
            throw Errors.error("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 "
                    + "if a replica is configured to be writable (which is not the default) writes to replicas are "
                    + "just local and are not propagated.");
        }
        long n = Args.parseLong(argv[1]);
        long deadline = Args.timeoutMillis(argv[2], ctx.now());
        for (Shard s : ctx.coordinated() ? ctx.shards().all() : new Shard[] {ctx.client().home()}) {
            s.writes().journal().flush();
        }
        if (ctx.nested()) { // inside MULTI Redis does not block: the count as of now
            io.tide.replication.Primary.Info info = ctx.server().replication().info();
            long count = 0;
            for (io.tide.replication.Primary.Replica r : info.replicas()) {
                if (r.state().equals("online") && r.offset() >= info.offset()) count++;
            }
            return Reply.integer(count);
        }
        CompletableFuture<Reply> answer = new CompletableFuture<>();
        int wanted = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n));
        ctx.server().replication().await(wanted, deadline, count -> answer.complete(Reply.integer(count)));
        return new Reply.Later(answer);
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        PSYNC,
        SYNC,
        REPLCONF,
        REPLICAOF,
        WAIT_COMMAND,
        WAITAOF;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case PSYNC -> psync(ctx, argv);
                case SYNC -> sync(ctx, argv);
                case REPLCONF -> replconf(ctx, argv);
                case REPLICAOF -> replicaof(ctx, argv);
                case WAIT_COMMAND -> waitCommand(ctx, argv);
                case WAITAOF -> waitaof(ctx, argv);
            };
        }
    }
}
