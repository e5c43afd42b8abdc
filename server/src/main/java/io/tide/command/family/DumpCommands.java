package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandException;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.command.MigrateSockets;
import io.tide.persistence.rdb.Dump;
import io.tide.persistence.rdb.RdbFormatException;
import io.tide.protocol.Reply;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.store.Database;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Thread-safe (stateless). DUMP, RESTORE and MIGRATE (Redis's "generic" group): a key's value as Redis's serialized
 * payload ({@link Dump}), so values move between Tide and Redis in both directions.
 *
 * <p>MIGRATE talks to its target synchronously, as Redis does on its main thread: the shard thread running it (or the
 * coordinator, for keys on several shards) waits for the target, at most the command's timeout per step. Its
 * connections are cached per thread ({@link MigrateSockets}).
 *
 * <p>RESTORE's FREQ sets the key's LFU counter under an LFU policy, IDLETIME its access clock that far in the past
 * under any other (each is ignored under the other kind, as in Redis).
 */
public final class DumpCommands {

    private DumpCommands() {}

    public static void register(CommandTable t) {
        t.group("generic");
        t.add("dump", 2, "readonly", 1, 1, 1, "@keyspace @slow", "2.6.0",
                "Return a serialized version of the value stored at the specified key.", Handler.DUMP);
        t.add("restore", -4, "write denyoom", 1, 1, 1, "@keyspace @slow @dangerous", "2.6.0",
                "Create a key using the provided serialized value, previously obtained using DUMP.",
                Handler.RESTORE);
        t.add("migrate", -6, "write", 3, 3, 1, "@keyspace @slow @dangerous", "2.6.0",
                "Atomically transfer a key from a Redis instance to another one.", Handler.MIGRATE)
                .keysBy(DumpCommands::migrateKeys);
    }

    static Reply dump(CommandContext ctx, byte[][] argv) {
        Object v = ctx.read(argv[1]);
        if (v == null) return Reply.NULL;
        return Reply.bulk(Dump.serialize(v));
    }

    static Reply restore(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        boolean replace = false;
        boolean absTtl = false;
        long idle = -1;
        long freq = -1;
        for (int j = 4; j < argv.length; j++) {
            boolean more = j + 1 < argv.length;
            if (Args.is(argv[j], "replace")) {
                replace = true;
            } else if (Args.is(argv[j], "absttl")) {
                absTtl = true;
            } else if (Args.is(argv[j], "idletime") && more && freq == -1) {
                idle = Args.parseLong(argv[++j]);
                if (idle < 0) throw Errors.error(Errors.RESTORE_INVALID_IDLETIME);
            } else if (Args.is(argv[j], "freq") && more && idle == -1) {
                freq = Args.parseLong(argv[++j]);
                if (freq < 0 || freq > 255) throw Errors.error(Errors.RESTORE_INVALID_FREQ);
            } else {
                throw Errors.syntax();
            }
        }
        long now = ctx.now();
        Database db = ctx.db(key);
        if (!replace && db.exists(key, now)) throw Errors.error(Errors.BUSYKEY);
        long ttl = Args.parseLong(argv[2]);
        if (ttl < 0) throw Errors.error(Errors.RESTORE_INVALID_TTL);
        byte[] payload = argv[3];
        if (!Dump.verify(payload)) throw Errors.error(Errors.DUMP_PAYLOAD);
        Object value;
        try {
            value = Dump.deserialize(payload, ctx.server().limits());
        } catch (RdbFormatException e) {
            throw Errors.error(Errors.DUMP_BAD_DATA);
        }
        boolean deleted = replace && db.remove(key) != null;
        long expireAt = ttl == 0 ? 0 : absTtl ? ttl : now + ttl;
        if (ttl != 0 && expireAt <= now) {
            // Already expired: the key is gone, as in Redis (which reports the deletion if it replaced one).
            if (deleted) ctx.notify(KeyspaceEvents.GENERIC, "del", key);
            if (deleted) ctx.propagateAs(new byte[][] {Args.bytes("DEL"), key});
            return Reply.OK;
        }
        boolean lfu = ctx.server().memory().lfu();
        db.put(key, value, expireAt, idle > 0 && !lfu ? now - idle * 1000 : now);
        if (freq >= 0) db.setFrequency(key, (int) freq, now);
        ctx.notify(KeyspaceEvents.GENERIC, "restore", key);
        if (ttl != 0 && !absTtl && ctx.journalling()) {
            // As Redis: a relative TTL is journalled as the absolute time it gave.
            byte[][] journalled = java.util.Arrays.copyOf(argv, argv.length + 1);
            journalled[2] = Args.bytes(expireAt);
            journalled[argv.length] = Args.bytes("ABSTTL");
            ctx.propagateAs(journalled);
        }
        return Reply.OK;
    }

    // ------------------------------------------------------------------ MIGRATE

    /** MIGRATE's options: AUTH/AUTH2 credentials, COPY, REPLACE and where its keys are (argv[3], or after KEYS). */
    private record MigrateOptions(byte[] username, byte[] password, boolean copy, boolean replace, int firstKey,
                                  int numKeys) {

        /** Parses argv[6..] as Redis does: syntax errors first, KEYS takes every argument after it. */
        static MigrateOptions parse(byte[][] argv) {
            byte[] username = null;
            byte[] password = null;
            boolean copy = false;
            boolean replace = false;
            int first = 3;
            int num = 1;
            for (int j = 6; j < argv.length; j++) {
                int more = argv.length - 1 - j;
                if (Args.is(argv[j], "copy")) {
                    copy = true;
                } else if (Args.is(argv[j], "replace")) {
                    replace = true;
                } else if (Args.is(argv[j], "auth")) {
                    if (more < 1) throw Errors.syntax();
                    password = argv[++j];
                } else if (Args.is(argv[j], "auth2")) {
                    if (more < 2) throw Errors.syntax();
                    username = argv[++j];
                    password = argv[++j];
                } else if (Args.is(argv[j], "keys")) {
                    if (argv[3].length != 0) throw Errors.error(Errors.MIGRATE_KEYS_NEED_EMPTY_KEY);
                    first = j + 1;
                    num = argv.length - first;
                    break;
                } else {
                    throw Errors.syntax();
                }
            }
            return new MigrateOptions(username, password, copy, replace, first, num);
        }
    }

    /** MIGRATE's keys: argv[3], or those after KEYS; none when the options are malformed (the handler says why). */
    static byte[][] migrateKeys(byte[][] argv) {
        if (argv.length < 6) return new byte[0][];
        try {
            MigrateOptions o = MigrateOptions.parse(argv);
            return Arrays.copyOfRange(argv, o.firstKey(), o.firstKey() + o.numKeys());
        } catch (CommandException e) {
            return new byte[0][];
        }
    }

    /**
     * MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password] [AUTH2 username password]
     * [KEYS key ...], as Redis 7.0's migrateCommand: the keys that exist are sent as pipelined RESTOREs (after AUTH and
     * SELECT where needed); each key the target acknowledged is then deleted here unless COPY, and the command is
     * journalled as DEL of those keys. A connection from the cache that fails before any reply is retried once on a
     * new one; a timeout is not retried.
     */
    static Reply migrate(CommandContext ctx, byte[][] argv) {
        MigrateOptions o = MigrateOptions.parse(argv);
        long timeout = Args.parseLong(argv[5]);
        long dbid = Args.parseLong(argv[4]);
        if (timeout <= 0) timeout = 1000;

        // The keys that are here; with none, nothing to migrate (often a key that just expired): +NOKEY.
        List<byte[]> keys = new ArrayList<>(o.numKeys());
        List<Object> values = new ArrayList<>(o.numKeys());
        for (int j = 0; j < o.numKeys(); j++) {
            byte[] k = argv[o.firstKey() + j];
            Object v = ctx.read(k);
            if (v != null) {
                keys.add(k);
                values.add(v);
            }
        }
        if (keys.isEmpty()) return NOKEY;

        // The RESTOREs, built once (a retry sends the same): relative TTLs of at least 1 ms, as Redis sends them.
        long now = ctx.now();
        ByteArrayOutputStream restores = new ByteArrayOutputStream();
        List<byte[]> sent = new ArrayList<>(keys.size());
        for (int j = 0; j < keys.size(); j++) {
            byte[] k = keys.get(j);
            long expireAt = ctx.db(k).expireAt(k);
            long ttl = 0;
            if (expireAt != 0) {
                ttl = expireAt - now;
                if (ttl < 0) continue;
                if (ttl < 1) ttl = 1;
            }
            byte[] payload = Dump.serialize(values.get(j));
            byte[] ttlBytes = Long.toString(ttl).getBytes(StandardCharsets.US_ASCII);
            if (o.replace()) writeCommand(restores, RESTORE, k, ttlBytes, payload, REPLACE);
            else writeCommand(restores, RESTORE, k, ttlBytes, payload);
            sent.add(k);
        }

        String host = Args.text(argv[1]);
        int port = (int) Args.atoi(argv[2]);
        MigrateSockets cache = ctx.migrateSockets();
        boolean mayRetry = true;
        while (true) {
            MigrateSockets.Target cs;
            try {
                cs = cache.get(host, port, timeout, System.currentTimeMillis());
            } catch (MigrateSockets.ConnectFailed e) {
                throw Errors.error(Errors.MIGRATE_IOERR_CONNECTING);
            }
            ByteArrayOutputStream cmd = new ByteArrayOutputStream();
            if (o.password() != null) {
                if (o.username() != null) writeCommand(cmd, AUTH, o.username(), o.password());
                else writeCommand(cmd, AUTH, o.password());
            }
            // As Redis: SELECT when the connection's last database differs. (-1 also means "unknown" there, so
            // destination-db -1 sends no SELECT at all.)
            boolean select = cs.lastDb() != dbid;
            if (select) writeCommand(cmd, SELECT, Long.toString(dbid).getBytes(StandardCharsets.US_ASCII));
            cmd.writeBytes(restores.toByteArray());

            boolean writing = true;
            IOException failure;
            try {
                cs.write(cmd.toByteArray(), timeout);
                writing = false;
                String authReply = o.password() != null ? cs.readLine(timeout) : null;
                String selectReply = select ? cs.readLine(timeout) : null;

                String targetError = null;
                IOException readFailure = null;
                List<byte[]> deleted = new ArrayList<>(sent.size());
                int j = 0;
                for (; j < sent.size(); j++) {
                    String reply;
                    try {
                        reply = cs.readLine(timeout);
                    } catch (IOException e) {
                        readFailure = e;
                        break;
                    }
                    if (isError(authReply) || isError(selectReply) || isError(reply)) {
                        if (targetError == null) {
                            cs.lastDb(-1); // the target's selected database is no longer known
                            targetError = isError(authReply) ? authReply
                                    : isError(selectReply) ? selectReply : reply;
                        }
                    } else if (!o.copy()) {
                        byte[] k = sent.get(j);
                        ctx.db(k).remove(k);
                        ctx.notify(KeyspaceEvents.GENERIC, "del", k);
                        deleted.add(k);
                    }
                }
                if (targetError == null && readFailure != null && j == 0 && mayRetry
                        && !(readFailure instanceof SocketTimeoutException)) {
                    throw readFailure; // nothing was processed: a retry on a new connection follows
                }
                if (readFailure != null) cache.close(cs);
                if (!deleted.isEmpty()) {
                    byte[][] del = new byte[deleted.size() + 1][];
                    del[0] = DEL;
                    for (int i = 0; i < deleted.size(); i++) del[i + 1] = deleted.get(i);
                    ctx.propagateAs(del);
                }
                if (targetError == null && readFailure != null) throw Errors.error(Errors.MIGRATE_IOERR_READING);
                if (targetError != null) throw Errors.error(Errors.migrateTargetError(targetError.substring(1)));
                cs.lastDb(dbid);
                return Reply.OK;
            } catch (IOException e) {
                failure = e;
            }
            cache.close(cs);
            if (mayRetry && !(failure instanceof SocketTimeoutException)) {
                mayRetry = false;
                continue;
            }
            throw Errors.error(writing ? Errors.MIGRATE_IOERR_WRITING : Errors.MIGRATE_IOERR_READING);
        }
    }

    private static final Reply NOKEY = Reply.simple("NOKEY");
    private static final byte[] RESTORE = "RESTORE".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLACE = "REPLACE".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] AUTH = "AUTH".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SELECT = "SELECT".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);

    private static boolean isError(String line) {
        return line != null && !line.isEmpty() && line.charAt(0) == '-';
    }

    /** Appends one command as a RESP array of bulk strings. */
    private static void writeCommand(ByteArrayOutputStream out, byte[]... args) {
        out.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            out.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(a);
            out.write('\r');
            out.write('\n');
        }
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        DUMP,
        RESTORE,
        MIGRATE;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case DUMP -> dump(ctx, argv);
                case RESTORE -> restore(ctx, argv);
                case MIGRATE -> migrate(ctx, argv);
            };
        }
    }
}
