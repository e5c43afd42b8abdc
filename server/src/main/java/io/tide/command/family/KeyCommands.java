package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.shard.Shard;
import io.tide.store.CollectionValue;
import io.tide.store.Database;
import io.tide.store.RawString;
import io.tide.store.SharedIntegers;
import io.tide.util.Glob;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Thread-safe (stateless): the generic keyspace commands (Redis's "generic" group), DEL, EXISTS, TYPE, RENAME,
 * COPY, MOVE, KEYS, SCAN, RANDOMKEY, DBSIZE, FLUSHDB, FLUSHALL, SWAPDB, TOUCH, OBJECT, the EXPIRE and TTL
 * families and PERSIST. Keyed handlers reach each key's database through {@code ctx.db(key)}, so a
 * multi-key command whose keys lie on several shards runs coordinated and atomic; keyless commands over
 * the whole keyspace carry the {@code allshards} flag and read every shard's database while all are parked.
 */
public final class KeyCommands {

    /** The refcount Redis reports for its shared objects ({@code OBJ_SHARED_REFCOUNT}, INT_MAX). */
    static final long SHARED_REFCOUNT = Integer.MAX_VALUE;

    // Error lines not (yet) in Errors; see the family's notes.

    private static final Reply NONE = Reply.simple("none");
    private static final Reply[] OBJECT_HELP = help("OBJECT",
            "ENCODING <key>",
            "    Return the kind of internal representation used in order to store the value",
            "    associated with a <key>.",
            "FREQ <key>",
            "    Return the access frequency index of the <key>. The returned integer is",
            "    proportional to the logarithm of the recent access frequency of the key.",
            "IDLETIME <key>",
            "    Return the idle time of the <key>, that is the approximated number of",
            "    seconds elapsed since the last access to the key.",
            "REFCOUNT <key>",
            "    Return the number of references of the value associated with the specified",
            "    <key>.");

    private KeyCommands() {}

    public static void register(CommandTable t) {
        t.group("generic");
        t.add("del", -2, "write", 1, -1, 1, "@keyspace", "1.0.0",
                "Delete a key", Handler.DEL);
        t.add("unlink", -2, "write fast", 1, -1, 1, "@keyspace", "4.0.0",
                "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.",
                Handler.UNLINK);
        t.add("exists", -2, "readonly fast", 1, -1, 1, "@keyspace", "1.0.0",
                "Determine if a key exists", Handler.EXISTS);
        t.add("type", 2, "readonly fast", 1, 1, 1, "@keyspace", "1.0.0",
                "Determine the type stored at key", Handler.TYPE);
        t.add("rename", 3, "write", 1, 2, 1, "@keyspace", "1.0.0",
                "Rename a key", Handler.RENAME);
        t.add("renamenx", 3, "write fast", 1, 2, 1, "@keyspace", "1.0.0",
                "Rename a key, only if the new key does not exist", Handler.RENAMENX);
        t.add("copy", -3, "write denyoom", 1, 2, 1, "@keyspace", "6.2.0",
                "Copy a key", Handler.COPY);
        t.add("move", 3, "write fast", 1, 1, 1, "@keyspace", "1.0.0",
                "Move a key to another database", Handler.MOVE);
        t.add("keys", 2, "readonly allshards", 0, 0, 0, "@keyspace @dangerous", "1.0.0",
                "Find all keys matching the given pattern", Handler.KEYS).gatherBy(KEYS_GATHER);
        t.add("scan", -2, "readonly allshards", 0, 0, 0, "@keyspace", "2.8.0",
                "Incrementally iterate the keys space", Handler.SCAN).gatherBy(SCAN_GATHER);
        t.add("randomkey", 1, "readonly allshards", 0, 0, 0, "@keyspace", "1.0.0",
                "Return a random key from the keyspace", Handler.RANDOMKEY).gatherBy(RANDOMKEY_GATHER);
        t.add("dbsize", 1, "readonly fast allshards", 0, 0, 0, "@keyspace", "1.0.0",
                "Return the number of keys in the selected database", Handler.DBSIZE).gatherBy(DBSIZE_GATHER);
        t.add("flushdb", -1, "write allshards", 0, 0, 0, "@keyspace @dangerous", "1.0.0",
                "Remove all keys from the current database", Handler.FLUSHDB);
        t.add("flushall", -1, "write allshards", 0, 0, 0, "@keyspace @dangerous", "1.0.0",
                "Remove all keys from all databases", Handler.FLUSHALL);
        t.add("swapdb", 3, "write fast allshards", 0, 0, 0, "@keyspace @dangerous", "4.0.0",
                "Swaps two Redis databases", Handler.SWAPDB);
        t.add("touch", -2, "readonly fast", 1, -1, 1, "@keyspace", "3.2.1",
                "Alters the last access time of a key(s). Returns the number of existing keys specified.",
                Handler.TOUCH);

        var object = t.container("object", -2, "", "", "2.2.3", "A container for object introspection commands");
        object.sub("encoding", 3, "readonly", 2, 2, 1, "@keyspace", "2.2.3",
                "Inspect the internal encoding of a Redis object", Handler.OBJECT_ENCODING);
        object.sub("freq", 3, "readonly", 2, 2, 1, "@keyspace", "4.0.0",
                "Get the logarithmic access frequency counter of a Redis object", Handler.OBJECT_FREQ);
        object.sub("idletime", 3, "readonly", 2, 2, 1, "@keyspace", "2.2.3",
                "Get the time since a Redis object was last accessed", Handler.OBJECT_IDLETIME);
        object.sub("refcount", 3, "readonly", 2, 2, 1, "@keyspace", "2.2.3",
                "Get the number of references to the value of the key", Handler.OBJECT_REFCOUNT);
        object.sub("help", 2, "loading stale", 0, 0, 0, "@keyspace", "6.2.0",
                "Show helpful text about the different subcommands", Handler.OBJECT_HELP);

        t.add("expire", -3, "write fast", 1, 1, 1, "@keyspace", "1.0.0",
                "Set a key's time to live in seconds",
                Handler.EXPIRE);
        t.add("pexpire", -3, "write fast", 1, 1, 1, "@keyspace", "2.6.0",
                "Set a key's time to live in milliseconds",
                Handler.PEXPIRE);
        t.add("expireat", -3, "write fast", 1, 1, 1, "@keyspace", "1.2.0",
                "Set the expiration for a key as a UNIX timestamp",
                Handler.EXPIREAT);
        t.add("pexpireat", -3, "write fast", 1, 1, 1, "@keyspace", "2.6.0",
                "Set the expiration for a key as a UNIX timestamp specified in milliseconds",
                Handler.PEXPIREAT);
        t.add("ttl", 2, "readonly fast", 1, 1, 1, "@keyspace", "1.0.0",
                "Get the time to live for a key in seconds", Handler.TTL);
        t.add("pttl", 2, "readonly fast", 1, 1, 1, "@keyspace", "2.6.0",
                "Get the time to live for a key in milliseconds", Handler.PTTL);
        t.add("expiretime", 2, "readonly fast", 1, 1, 1, "@keyspace", "7.0.0",
                "Get the expiration Unix timestamp for a key", Handler.EXPIRETIME);
        t.add("pexpiretime", 2, "readonly fast", 1, 1, 1, "@keyspace", "7.0.0",
                "Get the expiration Unix timestamp for a key in milliseconds",
                Handler.PEXPIRETIME);
        t.add("persist", 2, "write fast", 1, 1, 1, "@keyspace", "2.2.0",
                "Remove the expiration from a key", Handler.PERSIST);
    }

    // ---------------------------------------------------------------- value kinds

    /** TYPE's answer for a value; extend with each new value kind. */
    static String typeName(Object value) {
        return switch (value) {
            case byte[] b -> "string";
            case Long l -> "string";
            case RawString r -> "string";
            case CollectionValue c -> c.typeName();
            default -> throw new IllegalStateException("no type name for " + value.getClass().getName());
        };
    }

    /**
     * OBJECT ENCODING's answer for a value; extend with each new value kind. Canonical integers are
     * stored as {@link Long} ("int"); other strings are "embstr" when the database embeds them with their
     * key ({@link Database#isEmbedded}: stored by SET and the like) and are at most {@link Database#EMBED_LIMIT}
     * bytes long, and "raw" otherwise (longer values, APPEND and SETRANGE results), as in Redis.
     */
    static String encodingName(Object value, boolean embedded) {
        return switch (value) {
            case Long l -> "int";
            case byte[] b -> embedded && b.length <= Database.EMBED_LIMIT ? "embstr" : "raw";
            case RawString r -> "raw";
            case CollectionValue c -> c.encodingName();
            default -> throw new IllegalStateException("no encoding name for " + value.getClass().getName());
        };
    }

    /** An independent copy of a value for COPY; extend with each new (mutable) value kind. */
    static Object copyOf(Object value) {
        return switch (value) {
            case byte[] b -> b.clone();   // a copy of its own, as Redis's COPY makes
            case RawString r -> r.copy(); // changed in place by APPEND, SETRANGE, SETBIT, BITFIELD
            case Long l -> l;             // immutable, and shared instances must stay shared
            case CollectionValue c -> c.copy();
            default -> throw new IllegalStateException("cannot copy " + value.getClass().getName());
        };
    }

    // ---------------------------------------------------------------- lookups

    /** Redis's lookupKeyReadWithFlags(LOOKUP_NOTOUCH): lazy expiry, hit/miss counted, access clock left alone. */
    private static Object peekCounted(CommandContext ctx, byte[] key) {
        Object v = ctx.db(key).peek(key, ctx.now());
        count(ctx, key, v != null);
        return v;
    }

    private static void count(CommandContext ctx, byte[] key, boolean hit) {
        Shard s = ctx.shardOf(key);
        if (hit) s.stats().keyspaceHits++;
        else s.stats().keyspaceMisses++;
    }

    // ---------------------------------------------------------------- DEL, EXISTS, TYPE, TOUCH

    /** DEL: as UNLINK under {@code lazyfree-lazy-user-del}. */
    static Reply del(CommandContext ctx, byte[][] argv) {
        return delete(ctx, argv, ctx.server().lazyFree().lazy(io.tide.store.Freer.USER_DEL));
    }

    /** UNLINK: a large value is freed by the lazy freer thread (and counted in lazyfreed_objects), as in Redis. */
    static Reply unlink(CommandContext ctx, byte[][] argv) {
        return delete(ctx, argv, true);
    }

    private static Reply delete(CommandContext ctx, byte[][] argv, boolean lazy) {
        long now = ctx.now();
        int deleted = 0;
        for (int i = 1; i < argv.length; i++) {
            Database d = ctx.db(argv[i]);
            if (d.exists(argv[i], now)) {
                if (lazy) d.unlink(argv[i]);
                else d.remove(argv[i]);
                ctx.notify(KeyspaceEvents.GENERIC, "del", argv[i]);
                deleted++;
            }
        }
        return Reply.integer(deleted);
    }

    static Reply exists(CommandContext ctx, byte[][] argv) {
        int n = 0;
        for (int i = 1; i < argv.length; i++) {
            if (peekCounted(ctx, argv[i]) != null) n++;
        }
        return Reply.integer(n);
    }

    static Reply type(CommandContext ctx, byte[][] argv) {
        Object v = peekCounted(ctx, argv[1]);
        return v == null ? NONE : Reply.simple(typeName(v));
    }

    /** TOUCH refreshes the access clock even for a NO-TOUCH client, as Redis does. */
    static Reply touch(CommandContext ctx, byte[][] argv) {
        long now = ctx.now();
        int n = 0;
        for (int i = 1; i < argv.length; i++) {
            Object v = ctx.db(argv[i]).get(argv[i], now);
            count(ctx, argv[i], v != null);
            if (v != null) n++;
        }
        return Reply.integer(n);
    }

    // ---------------------------------------------------------------- RENAME, COPY, MOVE

    static Reply rename(CommandContext ctx, byte[][] argv) {
        return renameGeneric(ctx, argv, false);
    }

    static Reply renamenx(CommandContext ctx, byte[][] argv) {
        return renameGeneric(ctx, argv, true);
    }

    private static Reply renameGeneric(CommandContext ctx, byte[][] argv, boolean nx) {
        byte[] src = argv[1];
        byte[] dst = argv[2];
        long now = ctx.now();
        Database from = ctx.db(src);
        Object v = from.peek(src, now);
        if (v == null) throw Errors.error(Errors.NO_SUCH_KEY);
        if (Arrays.equals(src, dst)) return nx ? Reply.ZERO : Reply.OK;
        long expireAt = from.expireAt(src);
        boolean embedded = from.isEmbedded(src);
        Database to = ctx.db(dst);
        if (to.exists(dst, now)) {
            if (nx) return Reply.ZERO;
            to.remove(dst);
        }
        from.remove(src);
        storeKeepingEncoding(to, dst, v, embedded, expireAt, now);
        ctx.notify(KeyspaceEvents.GENERIC, "rename_from", src);
        ctx.notify(KeyspaceEvents.GENERIC, "rename_to", dst);
        return nx ? Reply.ONE : Reply.OK;
    }

    static Reply copy(CommandContext ctx, byte[][] argv) {
        byte[] src = argv[1];
        byte[] dst = argv[2];
        int dstDb = ctx.dbIndex();
        boolean replace = false;
        for (int j = 3; j < argv.length; j++) {
            boolean more = j + 1 < argv.length;
            if (Args.is(argv[j], "replace")) {
                replace = true;
            } else if (Args.is(argv[j], "db") && more) {
                dstDb = dbIndex(ctx, argv[j + 1]);
                j++;
            } else {
                throw Errors.syntax();
            }
        }
        if (dstDb == ctx.dbIndex() && Arrays.equals(src, dst)) throw Errors.error(Errors.SAME_OBJECT);
        long now = ctx.now();
        Database from = ctx.db(src);
        Object v = ctx.read(src);
        if (v == null) return Reply.ZERO;
        Database to = ctx.db(dst, dstDb);
        if (to.exists(dst, now)) {
            if (!replace) return Reply.ZERO;
            to.remove(dst);
        }
        storeKeepingEncoding(to, dst, copyOf(v), from.isEmbedded(src), from.expireAt(src), now);
        ctx.notify(KeyspaceEvents.GENERIC, "copy_to", dst, dstDb);
        return Reply.ONE;
    }

    static Reply move(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        int dstDb = dbIndex(ctx, argv[2]);
        if (dstDb == ctx.dbIndex()) throw Errors.error(Errors.SAME_OBJECT);
        long now = ctx.now();
        Database from = ctx.db(key);
        Object v = from.get(key, now);
        if (v == null) return Reply.ZERO;
        Database to = ctx.db(key, dstDb);
        if (to.exists(key, now)) return Reply.ZERO;
        long expireAt = from.expireAt(key);
        boolean embedded = from.isEmbedded(key);
        from.remove(key);
        storeKeepingEncoding(to, key, v, embedded, expireAt, now);
        ctx.notify(KeyspaceEvents.GENERIC, "move_from", key);
        ctx.notify(KeyspaceEvents.GENERIC, "move_to", key, dstDb);
        return Reply.ONE;
    }

    /** RENAME, MOVE and COPY keep the value's encoding: a raw string stays raw even when it is short. */
    private static void storeKeepingEncoding(Database to, byte[] key, Object v, boolean embedded, long expireAt,
                                             long now) {
        if (v instanceof byte[] b && !embedded) {
            to.putRaw(key, b, expireAt, now);
        } else {
            to.put(key, v, expireAt, now);
        }
    }

    /** A DB index as MOVE and COPY parse it: an int (Redis's getIntFromObject errors), then in range. */
    private static int dbIndex(CommandContext ctx, byte[] arg) {
        int id = Args.parseInt(arg, null);
        if (id < 0 || id >= databases(ctx)) throw Errors.error(Errors.DB_INDEX_OUT_OF_RANGE);
        return id;
    }

    private static int databases(CommandContext ctx) {
        return ctx.shards().get(0).databases();
    }

    // ---------------------------------------------------------------- KEYS, SCAN, RANDOMKEY, DBSIZE

    static Reply keys(CommandContext ctx, byte[][] argv) {
        byte[] pattern = argv[1];
        long now = ctx.now();
        List<Reply> out = new ArrayList<>();
        if (Glob.isLiteral(pattern)) {
            // Only the key itself can match: one lookup on its shard instead of a walk.
            Database d = ctx.shards().shardOf(pattern).db(ctx.dbIndex());
            if (d.peek(pattern, now) != null) out.add(Reply.bulk(pattern));
            return Reply.array(out);
        }
        boolean all = pattern.length == 1 && pattern[0] == '*';
        for (Database d : ctx.allDbs(ctx.dbIndex())) {
            List<byte[]> found = new ArrayList<>();
            d.forEach((k, v) -> {
                if (all || Glob.matches(pattern, k, false)) found.add(k);
            });
            for (byte[] k : found) {
                long e = d.expireAt(k);
                if (e == 0 || now <= e) out.add(Reply.bulk(k)); // expired keys are skipped, not deleted, as Redis
            }
        }
        return Reply.array(out);
    }

    // The same three commands gathered shard by shard on the shards' own threads (CommandSpec.Gather): with several
    // shards the dispatcher uses these instead of parking every shard; the replies are the same as above.

    /** KEYS: each shard lists its matching keys (expired ones skipped); a literal pattern is looked up on its shard. */
    static final CommandSpec.Gather KEYS_GATHER = new CommandSpec.Gather() {
        private static final class Plan {
            byte[] pattern;
            final List<Reply> out = new ArrayList<>();
        }

        @Override
        public Object begin(CommandContext ctx, byte[][] argv) {
            Plan p = new Plan();
            p.pattern = argv[1];
            return p;
        }

        @Override
        public boolean part(CommandContext ctx, Object plan, int shard, int shards) {
            Plan p = (Plan) plan;
            byte[] pattern = p.pattern;
            long now = ctx.now();
            Database d = ctx.shards().get(shard).db(ctx.dbIndex());
            if (Glob.isLiteral(pattern)) {
                if (ctx.shards().shardOf(pattern).id() != shard) return true;
                if (d.peek(pattern, now) != null) p.out.add(Reply.bulk(pattern));
                return false;
            }
            boolean all = pattern.length == 1 && pattern[0] == '*';
            List<byte[]> found = new ArrayList<>();
            d.forEach((k, v) -> {
                if (all || Glob.matches(pattern, k, false)) found.add(k);
            });
            for (byte[] k : found) {
                long e = d.expireAt(k);
                if (e == 0 || now <= e) p.out.add(Reply.bulk(k)); // expired keys are skipped, not deleted, as Redis
            }
            return true;
        }

        @Override
        public Reply reply(Object plan) {
            return Reply.array(((Plan) plan).out);
        }
    };

    /**
     * RANDOMKEY, shard by shard: the walk starts on a random shard and the first shard with a live key answers with
     * one of them (keys spread evenly over the shards by hash slot, so each key is about as likely as with a draw
     * weighted by the shards' sizes); a shard whose draws keep meeting expired keys (deleted as they are met)
     * passes the walk on, and after every shard the answer is nil.
     */
    static final CommandSpec.Gather RANDOMKEY_GATHER = new CommandSpec.Gather() {
        private static final class Plan {
            int visited;
            byte[] key;
        }

        @Override
        public Object begin(CommandContext ctx, byte[][] argv) {
            return new Plan();
        }

        @Override
        public int first(Object plan, int shards) {
            return ThreadLocalRandom.current().nextInt(shards);
        }

        @Override
        public int next(Object plan, int shard, int shards) {
            return (shard + 1) % shards;
        }

        @Override
        public boolean part(CommandContext ctx, Object plan, int shard, int shards) {
            Plan p = (Plan) plan;
            Database d = ctx.shards().get(shard).db(ctx.dbIndex());
            for (int tries = 0; tries < 16 && d.size() > 0; tries++) {
                byte[] k = d.randomKey(ctx.now());
                if (k != null) {
                    p.key = k;
                    return false;
                }
            }
            return ++p.visited < shards;
        }

        @Override
        public Reply reply(Object plan) {
            byte[] k = ((Plan) plan).key;
            return k == null ? Reply.NULL : Reply.bulk(k);
        }
    };

    /** DBSIZE: the sum of every shard's count. */
    static final CommandSpec.Gather DBSIZE_GATHER = new CommandSpec.Gather() {
        @Override
        public Object begin(CommandContext ctx, byte[][] argv) {
            return new long[1];
        }

        @Override
        public boolean part(CommandContext ctx, Object plan, int shard, int shards) {
            ((long[]) plan)[0] += ctx.shards().get(shard).db(ctx.dbIndex()).size();
            return true;
        }

        @Override
        public Reply reply(Object plan) {
            return Reply.integer(((long[]) plan)[0]);
        }
    };

    /**
     * SCAN, shard by shard, with the cursor and the reply of {@link #scan}: the walk starts on the cursor's shard and
     * goes on to the next one while that one's table is done and fewer than COUNT keys were collected. Each shard
     * filters its own keys (pattern, expiry, TYPE) on its own thread.
     */
    static final CommandSpec.Gather SCAN_GATHER = new CommandSpec.Gather() {
        private static final class Plan {
            ScanOptions options;
            String type;
            long tableCursor;
            int start;
            int raw;
            long next;
            final List<Reply> out = new ArrayList<>();
        }

        @Override
        public Object begin(CommandContext ctx, byte[][] argv) {
            Plan p = new Plan();
            long cursor = parseCursor(argv[1]);
            p.options = ScanOptions.parse(argv, 2, Errors.SYNTAX, true);
            p.type = p.options.type() == null ? null : new String(p.options.type(), StandardCharsets.UTF_8);
            int shards = ctx.shards().size();
            p.start = (int) Long.remainderUnsigned(cursor, shards);
            p.tableCursor = Long.divideUnsigned(cursor, shards);
            return p;
        }

        @Override
        public int first(Object plan, int shards) {
            return ((Plan) plan).start;
        }

        @Override
        public boolean part(CommandContext ctx, Object plan, int shard, int shards) {
            Plan p = (Plan) plan;
            Database d = ctx.shards().get(shard).db(ctx.dbIndex());
            List<byte[]> keys = new ArrayList<>();
            p.tableCursor = d.scan(p.tableCursor, p.options.limit() - p.raw, keys::add);
            p.raw += keys.size();
            long now = ctx.now();
            for (byte[] k : keys) {
                if (!p.options.matches(k)) continue;
                Object v = d.peek(k, now); // deletes the key if it has expired, as Redis's SCAN does
                if (v == null) continue;
                if (p.type != null && !typeName(v).equalsIgnoreCase(p.type)) continue;
                p.out.add(Reply.bulk(k));
            }
            if (p.tableCursor != 0) {
                p.next = p.tableCursor * shards + shard;
                return false;
            }
            if (shard + 1 == shards) {
                p.next = 0;                          // every shard walked: the scan is complete
                return false;
            }
            if (p.raw >= p.options.limit()) {
                p.next = shard + 1;                  // the next shard, from the start of its table
                return false;
            }
            return true;                             // tableCursor is 0: the next shard starts at its beginning
        }

        @Override
        public Reply reply(Object plan) {
            Plan p = (Plan) plan;
            return ScanOptions.reply(p.next, p.out);
        }
    };

    /**
     * SCAN over all shards. The cursor is {@code tableCursor * shards + shardIndex}: the shard being walked
     * and where its table's own reverse-binary cursor stands (with one shard, just the table cursor), so
     * each shard's guarantee (every key present throughout is returned at least once) carries over.
     */
    static Reply scan(CommandContext ctx, byte[][] argv) {
        long cursor = parseCursor(argv[1]);
        ScanOptions o = ScanOptions.parse(argv, 2, Errors.SYNTAX, true);
        Database[] dbs = ctx.allDbs(ctx.dbIndex());
        int n = dbs.length;
        int shard = (int) Long.remainderUnsigned(cursor, n);
        long tableCursor = Long.divideUnsigned(cursor, n);
        int want = o.limit();
        List<byte[]> keys = new ArrayList<>();
        List<Database> owners = new ArrayList<>();
        long next = 0;
        while (true) {
            Database d = dbs[shard];
            int before = keys.size();
            tableCursor = d.scan(tableCursor, want - before, keys::add);
            for (int k = keys.size() - before; k > 0; k--) owners.add(d);
            if (tableCursor != 0) {
                next = tableCursor * n + shard;
                break;
            }
            if (++shard == n) break;                // every shard walked: the scan is complete
            if (keys.size() >= want) {
                next = shard;                       // the next shard, from the start of its table
                break;
            }
        }
        long now = ctx.now();
        String type = o.type() == null ? null : new String(o.type(), StandardCharsets.UTF_8);
        List<Reply> out = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            byte[] k = keys.get(i);
            if (!o.matches(k)) continue;
            Database d = owners.get(i);
            Object v = d.peek(k, now); // deletes the key if it has expired, as Redis's SCAN does
            if (v == null) continue;
            if (type != null && !typeName(v).equalsIgnoreCase(type)) continue;
            out.add(Reply.bulk(k));
        }
        return ScanOptions.reply(next, out);
    }

    /**
     * A SCAN cursor with strtoul's acceptance, as Redis parses it: an optional sign (a negative value wraps
     * around), decimal digits, nothing after them (an embedded NUL ends the string, as in C), no leading
     * space, no overflow; an empty string is cursor 0.
     */
    static long parseCursor(byte[] s) {
        int n = s.length;
        for (int i = 0; i < n; i++) {
            if (s[i] == 0) {
                n = i;
                break;
            }
        }
        if (n > 0 && isSpace(s[0])) throw Errors.error(Errors.INVALID_CURSOR);
        int i = 0;
        boolean neg = false;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            neg = s[i] == '-';
            i++;
        }
        int start = i;
        long acc = 0;
        boolean overflow = false;
        final long limit = Long.divideUnsigned(-1L, 10);   // 1844674407370955161
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            int d = s[i] - '0';
            if (Long.compareUnsigned(acc, limit) > 0 || (acc == limit && d > 5)) overflow = true;
            acc = acc * 10 + d;
        }
        if (i == start) {
            if (n == 0) return 0;                   // strtoul of "" is 0 and leaves nothing behind
            throw Errors.error(Errors.INVALID_CURSOR);
        }
        if (i != n || overflow) throw Errors.error(Errors.INVALID_CURSOR);
        return neg ? -acc : acc;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || (b >= '\t' && b <= '\r');
    }

    /** RANDOMKEY where this thread holds every shard's data: {@link #RANDOMKEY_GATHER}'s walk, here. */
    static Reply randomkey(CommandContext ctx, byte[][] argv) {
        return RANDOMKEY_GATHER.walkHere(ctx, argv);
    }

    static Reply dbsize(CommandContext ctx, byte[][] argv) {
        long n = 0;
        for (Database d : ctx.allDbs(ctx.dbIndex())) n += d.size();
        return Reply.integer(n);
    }

    // ---------------------------------------------------------------- FLUSHDB, FLUSHALL, SWAPDB

    /**
     * FLUSHDB/FLUSHALL's [ASYNC|SYNC], validated for Redis's errors: whether the dropped databases go to the lazy
     * freer (ASYNC; without an argument, {@code lazyfree-lazy-user-flush}).
     */
    private static boolean flushAsync(CommandContext ctx, byte[][] argv) {
        if (argv.length == 1) return ctx.server().config().getBool("lazyfree-lazy-user-flush");
        if (argv.length == 2 && Args.is(argv[1], "sync")) return false;
        if (argv.length == 2 && Args.is(argv[1], "async")) return true;
        throw Errors.syntax();
    }

    static Reply flushdb(CommandContext ctx, byte[][] argv) {
        boolean async = flushAsync(ctx, argv);
        for (Shard s : ctx.ownedShards()) s.db(ctx.dbIndex()).clear(async); // the write seam touches the WATCHes
        return Reply.OK;
    }

    static Reply flushall(CommandContext ctx, byte[][] argv) {
        boolean async = flushAsync(ctx, argv);
        for (Shard s : ctx.ownedShards()) {
            for (int i = 0; i < s.databases(); i++) s.db(i).clear(async); // the write seam touches the WATCHes
        }
        // As Redis: with save points set, FLUSHALL replaces the RDB file with the empty dataset at once (a running
        // BGSAVE is abandoned). Not while the dataset loads (a FLUSHALL replayed from the AOF).
        io.tide.persistence.Persistence p = ctx.server().persistence();
        if (!p.savePoints().isEmpty() && !p.loading() && ctx.ownedShards().length == ctx.shards().size()) {
            try {
                p.cancelBackgroundSave();
                p.saveNow();
            } catch (java.io.IOException | RuntimeException e) {
                // logged by saveNow; FLUSHALL itself succeeded, as in Redis
            }
        }
        return Reply.OK;
    }

    static Reply swapdb(CommandContext ctx, byte[][] argv) {
        int a = Args.parseInt(argv[1], Errors.INVALID_FIRST_DB);
        int b = Args.parseInt(argv[2], Errors.INVALID_SECOND_DB);
        int dbs = databases(ctx);
        if (a < 0 || a >= dbs || b < 0 || b >= dbs) throw Errors.error(Errors.DB_INDEX_OUT_OF_RANGE);
        if (a != b) {
            // The write seam touches the WATCHes and wakes the clients blocked on either database.
            for (Shard s : ctx.ownedShards()) s.db(a).swapContents(s.db(b));
        }
        return Reply.OK;
    }

    // ---------------------------------------------------------------- OBJECT

    static Reply objectEncoding(CommandContext ctx, byte[][] argv) {
        Object v = peekCounted(ctx, argv[2]);
        return v == null ? Reply.NULL : Reply.bulk(encodingName(v, ctx.db(argv[2]).isEmbedded(argv[2])));
    }

    /** The key's LFU counter after decay (Redis's LFUDecrAndReturn); an error unless the policy is an LFU one. */
    static Reply objectFreq(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[2];
        Object v = peekCounted(ctx, key);
        if (v == null) return Reply.NULL;
        if (!ctx.server().memory().lfu()) throw Errors.error(Errors.NO_LFU);
        return Reply.integer(ctx.db(key).frequency(key, ctx.now()));
    }

    /** Seconds since the key's last access; an error under an LFU policy, whose field holds a counter instead. */
    static Reply objectIdletime(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[2];
        Object v = peekCounted(ctx, key);
        if (v == null) return Reply.NULL;
        if (ctx.server().memory().lfu()) throw Errors.error(Errors.NO_LRU);
        return Reply.integer(ctx.db(key).idleMillis(key, ctx.now()) / 1000);
    }

    static Reply objectRefcount(CommandContext ctx, byte[][] argv) {
        Object v = peekCounted(ctx, argv[2]);
        if (v == null) return Reply.NULL;
        return Reply.integer(SharedIntegers.isShared(v) ? SHARED_REFCOUNT : 1);
    }

    /** Redis's addReplyHelp layout: a title line, the lines given, then HELP, all as status replies. */
    private static Reply[] help(String command, String... lines) {
        Reply[] out = new Reply[lines.length + 3];
        out[0] = Reply.simple(command + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
        for (int i = 0; i < lines.length; i++) out[i + 1] = Reply.simple(lines[i]);
        out[lines.length + 1] = Reply.simple("HELP");
        out[lines.length + 2] = Reply.simple("    Prints this help.");
        return out;
    }

    // ---------------------------------------------------------------- EXPIRE family, TTL family, PERSIST

    private static final int EXPIRE_NX = 1;
    private static final int EXPIRE_XX = 2;
    private static final int EXPIRE_GT = 4;
    private static final int EXPIRE_LT = 8;

    /**
     * EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT: options are checked first, then the time (with Redis's overflow
     * checks), then the key. A time not in the future deletes the key and still replies 1.
     */
    private static Reply expireGeneric(CommandContext ctx, byte[][] argv, long basetime, boolean seconds,
                                       String name) {
        int flags = 0;
        for (int j = 3; j < argv.length; j++) {
            byte[] o = argv[j];
            if (Args.is(o, "nx")) flags |= EXPIRE_NX;
            else if (Args.is(o, "xx")) flags |= EXPIRE_XX;
            else if (Args.is(o, "gt")) flags |= EXPIRE_GT;
            else if (Args.is(o, "lt")) flags |= EXPIRE_LT;
            else throw Errors.error("ERR Unsupported option " + Errors.printable(o));
        }
        if ((flags & EXPIRE_NX) != 0 && (flags & (EXPIRE_XX | EXPIRE_GT | EXPIRE_LT)) != 0) {
            throw Errors.error(Errors.NX_XX_GT_LT);
        }
        if ((flags & EXPIRE_GT) != 0 && (flags & EXPIRE_LT) != 0) throw Errors.error(Errors.GT_AND_LT);

        long when = Args.parseLong(argv[2]);
        if (seconds) {
            if (when > Long.MAX_VALUE / 1000 || when < Long.MIN_VALUE / 1000) throw Errors.invalidExpire(name);
            when *= 1000;
        }
        if (when > Long.MAX_VALUE - basetime) throw Errors.invalidExpire(name);
        when += basetime;

        byte[] key = argv[1];
        long now = ctx.now();
        Database d = ctx.db(key);
        if (d.get(key, now) == null) return Reply.ZERO;
        if (flags != 0) {
            long current = d.expireAt(key);   // 0: none, an infinite TTL for GT/LT
            if ((flags & EXPIRE_NX) != 0 && current != 0) return Reply.ZERO;
            if ((flags & EXPIRE_XX) != 0 && current == 0) return Reply.ZERO;
            if ((flags & EXPIRE_GT) != 0 && (current == 0 || when <= current)) return Reply.ZERO;
            if ((flags & EXPIRE_LT) != 0 && current != 0 && when >= current) return Reply.ZERO;
        }
        // Journalled as Redis's expireGenericCommand propagates: DEL for a time not in the future, else
        // PEXPIREAT with the absolute time (PEXPIREAT itself as it came, its options included).
        if (when <= now) {
            d.remove(key);
            ctx.propagateAs(new byte[][] {Args.bytes("DEL"), key});
            ctx.notify(KeyspaceEvents.GENERIC, "del", key);
        } else {
            d.setExpireAt(key, when);
            if (!name.equals("pexpireat") && ctx.journalling()) {
                ctx.propagateAs(new byte[][] {Args.bytes("PEXPIREAT"), key, Args.bytes(when)});
            }
            ctx.notify(KeyspaceEvents.GENERIC, "expire", key);
        }
        return Reply.ONE;
    }

    /** TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 for a missing key, -1 without expiry; seconds are rounded. */
    private static Reply ttlGeneric(CommandContext ctx, byte[][] argv, boolean millis, boolean absolute) {
        byte[] key = argv[1];
        if (peekCounted(ctx, key) == null) return Reply.integer(-2);
        long expireAt = ctx.db(key).expireAt(key);
        if (expireAt == 0) return Reply.integer(-1);
        long ttl = absolute ? expireAt : Math.max(0, expireAt - ctx.now());
        // ttl is never negative, so Redis's compiler divides (ttl+500)/1000 as unsigned: an expiry at Long.MAX_VALUE
        // ms comes out as 9223372036854776 seconds, where Java's signed sum would wrap
        return Reply.integer(millis ? ttl : Long.divideUnsigned(ttl + 500, 1000));
    }

    static Reply persist(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        Database d = ctx.db(key);
        if (d.get(key, ctx.now()) == null) return Reply.ZERO;
        if (!d.persist(key)) return Reply.ZERO;
        ctx.notify(KeyspaceEvents.GENERIC, "persist", key);
        return Reply.ONE;
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        DEL,
        UNLINK,
        EXISTS,
        TYPE,
        RENAME,
        RENAMENX,
        COPY,
        MOVE,
        KEYS,
        SCAN,
        RANDOMKEY,
        DBSIZE,
        FLUSHDB,
        FLUSHALL,
        SWAPDB,
        TOUCH,
        OBJECT_ENCODING,
        OBJECT_FREQ,
        OBJECT_IDLETIME,
        OBJECT_REFCOUNT,
        OBJECT_HELP,
        EXPIRE,
        PEXPIRE,
        EXPIREAT,
        PEXPIREAT,
        TTL,
        PTTL,
        EXPIRETIME,
        PEXPIRETIME,
        PERSIST;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case DEL -> del(ctx, argv);
                case UNLINK -> unlink(ctx, argv);
                case EXISTS -> exists(ctx, argv);
                case TYPE -> type(ctx, argv);
                case RENAME -> rename(ctx, argv);
                case RENAMENX -> renamenx(ctx, argv);
                case COPY -> copy(ctx, argv);
                case MOVE -> move(ctx, argv);
                case KEYS -> keys(ctx, argv);
                case SCAN -> scan(ctx, argv);
                case RANDOMKEY -> randomkey(ctx, argv);
                case DBSIZE -> dbsize(ctx, argv);
                case FLUSHDB -> flushdb(ctx, argv);
                case FLUSHALL -> flushall(ctx, argv);
                case SWAPDB -> swapdb(ctx, argv);
                case TOUCH -> touch(ctx, argv);
                case OBJECT_ENCODING -> objectEncoding(ctx, argv);
                case OBJECT_FREQ -> objectFreq(ctx, argv);
                case OBJECT_IDLETIME -> objectIdletime(ctx, argv);
                case OBJECT_REFCOUNT -> objectRefcount(ctx, argv);
                case OBJECT_HELP -> Reply.array(KeyCommands.OBJECT_HELP);
                case EXPIRE -> expireGeneric(ctx, argv, ctx.now(), true, "expire");
                case PEXPIRE -> expireGeneric(ctx, argv, ctx.now(), false, "pexpire");
                case EXPIREAT -> expireGeneric(ctx, argv, 0, true, "expireat");
                case PEXPIREAT -> expireGeneric(ctx, argv, 0, false, "pexpireat");
                case TTL -> ttlGeneric(ctx, argv, false, false);
                case PTTL -> ttlGeneric(ctx, argv, true, false);
                case EXPIRETIME -> ttlGeneric(ctx, argv, false, true);
                case PEXPIRETIME -> ttlGeneric(ctx, argv, true, true);
                case PERSIST -> persist(ctx, argv);
            };
        }
    }
}
