package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.store.Database;
import io.tide.store.EncodingLimits;
import io.tide.store.HashValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Thread-safe (stateless): handlers run on the thread that owns their key. Hash commands (Redis's
 * {@code t_hash.c}), with Redis 7.4's per-field expiry (HEXPIRE, HTTL, HPERSIST and their variants) and Redis
 * 8.0's HGETDEL, HGETEX and HSETEX, over {@link HashValue}s.
 *
 * <p>Every handler first removes the hash's expired fields ({@link HashValue#expireFields}, O(1) when none
 * has expired), deleting the key when none is left, so no command ever sees an expired field. Where Redis
 * 7.4 would still count a not-yet-reclaimed expired field (HLEN, HSET's "added", HDEL's count), Tide answers
 * as Redis does once its active expiry has reclaimed it.
 */
public final class HashCommands {

    /** Redis's HFE_MAX_ABS_TIME_MSEC: the latest field expiry accepted, (2^48 - 1) >> 2 unix ms. */
    static final long MAX_FIELD_EXPIRE_MS = ((1L << 48) - 1) >> 2;
    /**
     * Most elements one HRANDFIELD reply may carry when fields may repeat (a negative count). Redis streams
     * such a reply until the client's output buffer limit closes the connection; Tide builds replies whole,
     * so it refuses larger counts with Redis's "value is out of range" rather than exhaust the heap.
     */
    static final long MAX_RANDOM_REPLY = 1L << 24;

    private static final Reply EMPTY_MAP = Reply.map();
    private static final Reply NO_FIELD = Reply.integer(HashValue.EXPIRE_NO_FIELD);
    private static final Reply NO_TTL = Reply.integer(-1);

    private HashCommands() {}

    public static void register(CommandTable t) {
        t.group("hash");
        t.add("hset", -4, "write denyoom fast", 1, 1, 1, "@hash", "2.0.0",
                "Creates or modifies the value of a field in a hash.", Handler.HSET);
        t.add("hmset", -4, "write denyoom fast", 1, 1, 1, "@hash", "2.0.0",
                "Sets the values of multiple fields.", Handler.HMSET);
        t.add("hsetnx", 4, "write denyoom fast", 1, 1, 1, "@hash", "2.0.0",
                "Sets the value of a field in a hash only when the field doesn't exist.", Handler.HSETNX);
        t.add("hget", 3, "readonly fast", 1, 1, 1, "@hash", "2.0.0",
                "Returns the value of a field in a hash.", Handler.HGET);
        t.add("hmget", -3, "readonly fast", 1, 1, 1, "@hash", "2.0.0",
                "Returns the values of all fields in a hash.", Handler.HMGET);
        t.add("hdel", -3, "write fast", 1, 1, 1, "@hash", "2.0.0",
                "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.",
                Handler.HDEL);
        t.add("hlen", 2, "readonly fast", 1, 1, 1, "@hash", "2.0.0",
                "Returns the number of fields in a hash.", Handler.HLEN);
        t.add("hstrlen", 3, "readonly fast", 1, 1, 1, "@hash", "3.2.0",
                "Returns the length of the value of a field.", Handler.HSTRLEN);
        t.add("hexists", 3, "readonly fast", 1, 1, 1, "@hash", "2.0.0",
                "Determines whether a field exists in a hash.", Handler.HEXISTS);
        t.add("hkeys", 2, "readonly", 1, 1, 1, "@hash", "2.0.0",
                "Returns all fields in a hash.", Handler.HKEYS);
        t.add("hvals", 2, "readonly", 1, 1, 1, "@hash", "2.0.0",
                "Returns all values in a hash.", Handler.HVALS);
        t.add("hgetall", 2, "readonly", 1, 1, 1, "@hash", "2.0.0",
                "Returns all fields and values in a hash.", Handler.HGETALL);
        t.add("hincrby", 4, "write denyoom fast", 1, 1, 1, "@hash", "2.0.0",
                "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the "
                        + "field doesn't exist.", Handler.HINCRBY);
        t.add("hincrbyfloat", 4, "write denyoom fast", 1, 1, 1, "@hash", "2.6.0",
                "Increments the floating point value of a field by a number. Uses 0 as initial value if the "
                        + "field doesn't exist.", Handler.HINCRBYFLOAT);
        t.add("hrandfield", -2, "readonly", 1, 1, 1, "@hash", "6.2.0",
                "Returns one or more random fields from a hash.", Handler.HRANDFIELD);
        t.add("hscan", -3, "readonly", 1, 1, 1, "@hash", "2.8.0",
                "Iterates over fields and values of a hash.", Handler.HSCAN);
        t.add("hexpire", -6, "write denyoom fast", 1, 1, 1, "@hash", "7.4.0",
                "Set expiry for hash field using relative time to expire (seconds)",
                Handler.HEXPIRE);
        t.add("hpexpire", -6, "write denyoom fast", 1, 1, 1, "@hash", "7.4.0",
                "Set expiry for hash field using relative time to expire (milliseconds)",
                Handler.HPEXPIRE);
        t.add("hexpireat", -6, "write denyoom fast", 1, 1, 1, "@hash", "7.4.0",
                "Set expiry for hash field using an absolute Unix timestamp (seconds)",
                Handler.HEXPIREAT);
        t.add("hpexpireat", -6, "write denyoom fast", 1, 1, 1, "@hash", "7.4.0",
                "Set expiry for hash field using an absolute Unix timestamp (milliseconds)",
                Handler.HPEXPIREAT);
        t.add("httl", -5, "readonly fast", 1, 1, 1, "@hash", "7.4.0",
                "Returns the TTL in seconds of a hash field.", Handler.HTTL);
        t.add("hpttl", -5, "readonly fast", 1, 1, 1, "@hash", "7.4.0",
                "Returns the TTL in milliseconds of a hash field.", Handler.HPTTL);
        t.add("hexpiretime", -5, "readonly fast", 1, 1, 1, "@hash", "7.4.0",
                "Returns the expiration time of a hash field as a Unix timestamp, in seconds.",
                Handler.HEXPIRETIME);
        t.add("hpexpiretime", -5, "readonly fast", 1, 1, 1, "@hash", "7.4.0",
                "Returns the expiration time of a hash field as a Unix timestamp, in msec.",
                Handler.HPEXPIRETIME);
        t.add("hpersist", -5, "write fast", 1, 1, 1, "@hash", "7.4.0",
                "Removes the expiration time for each specified field", Handler.HPERSIST);
        t.add("hgetdel", -5, "write fast", 1, 1, 1, "@hash", "8.0.0",
                "Returns the value of a field and deletes it from the hash.", Handler.HGETDEL);
        t.add("hgetex", -5, "write fast", 1, 1, 1, "@hash", "8.0.0",
                "Get the value of one or more fields of a given hash key, and optionally set their expiration.",
                Handler.HGETEX);
        t.add("hsetex", -6, "write denyoom fast", 1, 1, 1, "@hash", "8.0.0",
                "Set the value of one or more fields of a given hash key, and optionally set their expiration.",
                Handler.HSETEX);
    }

    // ------------------------------------------------------------------ reaching the hash

    private static HashValue asHash(Object v) {
        if (v == null || v instanceof HashValue) return (HashValue) v;
        throw Errors.wrongType();
    }

    /** The hash at {@code key} for a read command (counts a hit or miss), expired fields removed; or null. */
    private static HashValue forRead(CommandContext ctx, byte[] key) {
        return live(ctx, key, asHash(ctx.read(key)), false);
    }

    /** The hash at {@code key} for a write command, expired fields removed; or null. */
    private static HashValue forWrite(CommandContext ctx, byte[] key) {
        return live(ctx, key, asHash(ctx.readForWrite(key)), true);
    }

    /**
     * Removes the expired fields of a stored hash; null when none was left (the key is then deleted). For a read
     * ({@code forWrite} false) only the memory is booked: the fields' expiry is already in the journal (HPEXPIREAT),
     * so replaying it expires them again.
     */
    private static HashValue live(CommandContext ctx, byte[] key, HashValue h, boolean forWrite) {
        if (h == null) return null;
        long next = h.nextExpireAt();
        if (next == 0 || next >= ctx.now()) return h;
        long before = h.memoryBytes();
        h.expireFields(ctx.now(), Integer.MAX_VALUE);
        ctx.notify(KeyspaceEvents.HASH, "hexpired", key);
        if (!forWrite && !h.isEmpty()) {
            ctx.db(key).adjustUsedBytes(h.memoryBytes() - before);
            return h;
        }
        if (!forWrite) ctx.propagateAs(new byte[][] {Args.bytes("DEL"), key}); // a read's only write: the key went
        return settle(ctx, key, h, true) ? h : null;
    }

    /**
     * After a stored hash (obtained with readForWrite) was changed in place ({@code changed}): tells the write
     * seam, or deletes the key if the hash is empty; false when it was deleted.
     */
    private static boolean settle(CommandContext ctx, byte[] key, HashValue h, boolean changed) {
        Database db = ctx.db(key);
        if (!changed) return true;
        if (h.isEmpty()) {
            db.remove(key);
            ctx.notify(KeyspaceEvents.GENERIC, "del", key);
            return false;
        }
        ctx.modified(key);
        return true;
    }

    /** Whether some per-field reply is at least {@code atLeast} (a field was changed, 2: deleted). */
    private static boolean changed(Reply[] out, long atLeast) {
        for (Reply r : out) if (r instanceof Reply.Int i && i.value() >= atLeast) return true;
        return false;
    }

    /** Stores a hash just created ({@code created}) or settles a stored one that changed. */
    private static void store(CommandContext ctx, byte[] key, HashValue h, boolean created) {
        if (!created) {
            settle(ctx, key, h, true);
        } else if (!h.isEmpty()) {
            ctx.db(key).put(key, h, 0, ctx.now());
        }
    }

    /** Sets one field (keeping its TTL, as the counters do), creating the hash if needed. */
    private static void writeKeepingTtl(CommandContext ctx, byte[] key, HashValue h, byte[] field, byte[] value) {
        boolean created = h == null;
        if (created) h = new HashValue();
        h.put(field, value, true, ctx.server().limits());
        store(ctx, key, h, created);
    }

    // ------------------------------------------------------------------ HSET, HSETNX, HGET, HMGET, HDEL

    /** HSET and HMSET: the same but for the reply. */
    static Reply hset(CommandContext ctx, byte[][] argv, boolean hmset) {
        if (argv.length % 2 == 1) throw Errors.error(Errors.wrongArity(hmset ? "hmset" : "hset"));
        byte[] key = argv[1];
        HashValue h = forWrite(ctx, key);
        boolean created = h == null;
        if (created) h = new HashValue();
        EncodingLimits limits = ctx.server().limits();
        h.prepareWrite(argv, 2, argv.length - 1, limits);
        int added = 0;
        for (int i = 2; i < argv.length; i += 2) {
            if (h.put(argv[i], argv[i + 1], false, limits)) added++;
        }
        // Both encodings copy fields and values; field TTLs keep the key (decision 0028).
        if (!h.hasFieldTtls()) ctx.keepsNoArguments();
        store(ctx, key, h, created);
        ctx.notify(KeyspaceEvents.HASH, "hset", key);
        return hmset ? Reply.OK : Reply.integer(added);
    }

    static Reply hsetnx(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        HashValue h = forWrite(ctx, key);
        if (h != null && h.contains(argv[2])) return Reply.ZERO;
        boolean created = h == null;
        if (created) h = new HashValue();
        EncodingLimits limits = ctx.server().limits();
        h.prepareWrite(argv, 2, 3, limits);
        h.put(argv[2], argv[3], false, limits);
        store(ctx, key, h, created);
        ctx.notify(KeyspaceEvents.HASH, "hset", key);
        return Reply.ONE;
    }

    static Reply hget(CommandContext ctx, byte[][] argv) {
        ctx.keepsNoArguments(); // a read: the key and the field are only compared (decision 0028)
        HashValue h = forRead(ctx, argv[1]);
        if (h == null) return Reply.NULL;
        boolean inPlace = ctx.repliesInPlace();
        if (inPlace) { // written from the packed hash, no copy
            long span = h.valueSpan(argv[2]);
            if (span == HashValue.ABSENT) return Reply.NULL;
            if (span != HashValue.NOT_PACKED) return ctx.bulkView(h.packed(), (int) (span >>> 32), (int) span);
        }
        return valueReply(ctx, h, argv[2], inPlace);
    }

    /**
     * The value of {@code field}: out of a hashtable's stored entry without a copy (the context's view when it is
     * written at once, {@code inPlace}, else a slice that may be kept, decision 0033); copied out of a listpack.
     */
    private static Reply valueReply(CommandContext ctx, HashValue h, byte[] field, boolean inPlace) {
        if (h.packed() != null) return Reply.bulk(h.get(field));
        byte[] e = h.tableEntry(field);
        if (e == null) return Reply.NULL;
        int at = HashValue.entryValueOffset(e);
        return inPlace ? ctx.bulkView(e, at, e.length - at) : Reply.bulk(e, at, e.length - at);
    }

    static Reply hmget(CommandContext ctx, byte[][] argv) {
        HashValue h = forRead(ctx, argv[1]);
        Reply[] out = new Reply[argv.length - 2];
        for (int i = 2; i < argv.length; i++) {
            out[i - 2] = h == null ? Reply.NULL : valueReply(ctx, h, argv[i], false);
        }
        return Reply.array(out);
    }

    static Reply hdel(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        HashValue h = forWrite(ctx, key);
        if (h == null) return Reply.ZERO;
        int deleted = 0;
        for (int i = 2; i < argv.length && !h.isEmpty(); i++) {
            if (h.remove(argv[i])) deleted++;
        }
        if (deleted > 0) ctx.notify(KeyspaceEvents.HASH, "hdel", key);
        settle(ctx, key, h, deleted > 0);
        return Reply.integer(deleted);
    }

    // ------------------------------------------------------------------ HLEN, HSTRLEN, HEXISTS, whole-hash reads

    static Reply hlen(CommandContext ctx, byte[][] argv) {
        HashValue h = forRead(ctx, argv[1]);
        return h == null ? Reply.ZERO : Reply.integer(h.size());
    }

    static Reply hstrlen(CommandContext ctx, byte[][] argv) {
        HashValue h = forRead(ctx, argv[1]);
        return h == null ? Reply.ZERO : Reply.integer(Math.max(0, h.valueLength(argv[2])));
    }

    static Reply hexists(CommandContext ctx, byte[][] argv) {
        HashValue h = forRead(ctx, argv[1]);
        return h != null && h.contains(argv[2]) ? Reply.ONE : Reply.ZERO;
    }

    /** HKEYS, HVALS and HGETALL (a map reply, flattened in RESP2). */
    static Reply hgetall(CommandContext ctx, byte[][] argv, boolean fields, boolean values) {
        HashValue h = forRead(ctx, argv[1]);
        boolean both = fields && values;
        if (h == null) return both ? EMPTY_MAP : Reply.EMPTY_ARRAY;
        List<Reply> out = new ArrayList<>(both ? 2 * h.size() : h.size());
        h.forEachSlice((f, fo, fl, v, vo, vl) -> {
            if (fields) out.add(Reply.bulk(f, fo, fl));
            if (values) out.add(Reply.bulk(v, vo, vl));
        });
        return both ? Reply.map(out) : Reply.array(out);
    }

    // ------------------------------------------------------------------ counters

    static Reply hincrby(CommandContext ctx, byte[][] argv) {
        long incr = Args.parseLong(argv[3]);
        byte[] key = argv[1];
        HashValue h = forWrite(ctx, key);
        byte[] cur = h == null ? null : h.get(argv[2]);
        long value = 0;
        if (cur != null) {
            Long v = Args.parseLongOrNull(cur);
            if (v == null) throw Errors.error(Errors.HASH_VALUE_NOT_INTEGER);
            value = v;
        }
        if ((incr < 0 && value < 0 && incr < Long.MIN_VALUE - value)
                || (incr > 0 && value > 0 && incr > Long.MAX_VALUE - value)) {
            throw Errors.error(Errors.OVERFLOW);
        }
        value += incr;
        writeKeepingTtl(ctx, key, h, argv[2], Args.bytes(value));
        ctx.notify(KeyspaceEvents.HASH, "hincrby", key);
        return Reply.integer(value);
    }

    /** Redis's long double arithmetic and formatting, as INCRBYFLOAT ({@link LongDouble}). */
    static Reply hincrbyfloat(CommandContext ctx, byte[][] argv) {
        LongDouble incr = LongDouble.parse(argv[3]);
        if (incr == null) throw Errors.notFloat();
        if (incr.isInfinite()) throw Errors.error(Errors.HASH_INCR_NAN_OR_INF);
        byte[] key = argv[1];
        HashValue h = forWrite(ctx, key);
        byte[] cur = h == null ? null : h.get(argv[2]);
        LongDouble value = LongDouble.ZERO;
        if (cur != null) {
            value = LongDouble.parse(cur);
            if (value == null) throw Errors.error(Errors.HASH_VALUE_NOT_FLOAT);
        }
        LongDouble sum = value.add(incr);
        if (sum == null || sum.isInfinite()) throw Errors.error(Errors.INCR_NAN_OR_INF);
        byte[] text = sum.toHumanString().getBytes(StandardCharsets.US_ASCII);
        writeKeepingTtl(ctx, key, h, argv[2], text);
        ctx.propagateAs(new byte[][] {Args.bytes("HSET"), key, argv[2], text}); // as Redis: float formatting is exact
        ctx.notify(KeyspaceEvents.HASH, "hincrbyfloat", key);
        return Reply.bulk(text);
    }

    // ------------------------------------------------------------------ HRANDFIELD

    /** HRANDFIELD key [count [WITHVALUES]]: the count and option are checked before the key, as in Redis. */
    static Reply hrandfield(CommandContext ctx, byte[][] argv) {
        if (argv.length >= 3) return randomFields(ctx, argv[1], randomCount(argv, "withvalues"), argv.length == 4);
        HashValue h = forRead(ctx, argv[1]);
        if (h == null) return Reply.NULL;
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        if (h.isCompact()) {
            byte[][] flat = h.toFlatArray();
            return Reply.bulk(flat[2 * rnd.nextInt(h.size())]);
        }
        return Reply.bulk(h.fieldAtSlot(h.randomSlot(rnd)));
    }

    /**
     * The count of {@code HRANDFIELD key count [WITHVALUES]} and {@code ZRANDMEMBER key count [WITHSCORES]},
     * checked before the key as in Redis: an integer in [-LONG_MAX, LONG_MAX], nothing after it but
     * {@code option}, and with the option a count whose doubled length still fits in a long.
     */
    static long randomCount(byte[][] argv, String option) {
        long count = Args.parseSymmetricLong(argv[2]);
        if (argv.length > 4 || (argv.length == 4 && !Args.is(argv[3], option))) throw Errors.syntax();
        if (argv.length == 4 && (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2)) {
            throw Errors.error(Errors.HASH_VALUE_OUT_OF_RANGE);
        }
        return count;
    }

    /** Redis's hrandfieldWithCountCommand and its cases, with RESP3's field-value pairs for WITHVALUES. */
    private static Reply randomFields(CommandContext ctx, byte[] key, long l, boolean withValues) {
        HashValue h = forRead(ctx, key);
        if (h == null || l == 0) return Reply.EMPTY_ARRAY;
        boolean unique = l > 0;
        long count = Math.abs(l);
        boolean pairs = withValues && ctx.replyProtocol() >= 3;
        int size = h.size();
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        Picks out = new Picks(withValues, pairs);

        if (!unique || count == 1) {
            // Case 1: count picks, repeats allowed, in random order.
            if (count * (withValues && !pairs ? 2 : 1) > MAX_RANDOM_REPLY) {
                throw Errors.error(Errors.HASH_VALUE_OUT_OF_RANGE);
            }
            int n = (int) count;
            if (h.isCompact()) {
                byte[][] flat = h.toFlatArray();
                Reply[] cache = new Reply[size * 2];
                for (int i = 0; i < n; i++) out.addCached(cache, rnd.nextInt(size), flat);
            } else {
                for (int i = 0; i < n; i++) {
                    int slot = h.randomSlot(rnd);
                    out.add(h.fieldAtSlot(slot), h.valueAtSlot(slot));
                }
            }
            return out.reply();
        }
        if (count >= size) {
            // Case 2: the whole hash.
            h.forEach(out::add);
            return out.reply();
        }
        int n = (int) count;
        if (h.isCompact()) {
            // Case 2.5: distinct entries by selection sampling, in their order in the hash.
            byte[][] flat = h.toFlatArray();
            int remaining = n;
            for (int i = 0; i < size && remaining > 0; i++) {
                if (rnd.nextInt(size - i) < remaining) {
                    out.add(flat[2 * i], flat[2 * i + 1]);
                    remaining--;
                }
            }
        } else if (count * 3 > size) {
            // Case 3: take all, drop random ones down to count.
            int[] slots = new int[size];
            int m = 0;
            for (int s = 0; s < h.slots(); s++) {
                if (h.fieldAtSlot(s) != null) slots[m++] = s;
            }
            while (m > n) {
                int drop = rnd.nextInt(m);
                slots[drop] = slots[--m];
            }
            for (int i = 0; i < n; i++) out.add(h.fieldAtSlot(slots[i]), h.valueAtSlot(slots[i]));
        } else {
            // Case 4: random picks until count distinct ones.
            Set<Integer> seen = new HashSet<>();
            while (seen.size() < n) {
                int slot = h.randomSlot(rnd);
                if (seen.add(slot)) out.add(h.fieldAtSlot(slot), h.valueAtSlot(slot));
            }
        }
        return out.reply();
    }

    /** Confined to the handler that builds it. HRANDFIELD's reply: fields, field-value runs or (RESP3) pairs. */
    private static final class Picks {
        private final boolean withValues;
        private final boolean pairs;
        private final List<Reply> items = new ArrayList<>();

        Picks(boolean withValues, boolean pairs) {
            this.withValues = withValues;
            this.pairs = pairs;
        }

        void add(byte[] field, byte[] value) {
            if (pairs) {
                items.add(Reply.array(Reply.bulk(field), Reply.bulk(value)));
            } else {
                items.add(Reply.bulk(field));
                if (withValues) items.add(Reply.bulk(value));
            }
        }

        /** Adds entry {@code i} of a compact hash's flat array, sharing reply objects between repeats. */
        void addCached(Reply[] cache, int i, byte[][] flat) {
            if (cache[2 * i] == null) {
                cache[2 * i] = pairs ? Reply.array(Reply.bulk(flat[2 * i]), Reply.bulk(flat[2 * i + 1]))
                        : Reply.bulk(flat[2 * i]);
                cache[2 * i + 1] = Reply.bulk(flat[2 * i + 1]);
            }
            items.add(cache[2 * i]);
            if (withValues && !pairs) items.add(cache[2 * i + 1]);
        }

        Reply reply() {
            return Reply.array(items);
        }
    }

    // ------------------------------------------------------------------ HSCAN

    /** HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES]: the cursor is checked first, the options after
     * the key. */
    static Reply hscan(CommandContext ctx, byte[][] argv) {
        long cursor = KeyCommands.parseCursor(argv[2]);
        HashValue h = forRead(ctx, argv[1]);
        if (h == null) return ScanOptions.EMPTY;
        ScanOptions o = ScanOptions.parse(argv, 3, null, false);
        List<Reply> out = new ArrayList<>();
        long next = h.scan(cursor, o.limit(), (f, v) -> {
            if (!o.matches(f)) return;
            out.add(Reply.bulk(f));
            if (!o.noValues()) out.add(Reply.bulk(v));
        });
        return ScanOptions.reply(next, out);
    }

    // ------------------------------------------------------------------ field expiry (Redis 7.4)

    /**
     * Checks {@code FIELDS numfields field...} with {@code numfields} at {@code numFieldsAt}, with Redis's
     * errors; returns the index of the first field.
     */
    private static int fieldsAt(byte[][] argv, int numFieldsAt, String notPositive) {
        if (!Args.is(argv[numFieldsAt - 1], "fields")) throw Errors.error(Errors.HASH_FIELDS_MISSING);
        Long n = Args.parseLongOrNull(argv[numFieldsAt]);
        if (n == null || n < 1) throw Errors.error(notPositive);
        if (n != argv.length - numFieldsAt - 1) throw Errors.error(Errors.HASH_NUMFIELDS_MISMATCH);
        return numFieldsAt + 1;
    }

    private static Reply allNoField(int n) {
        Reply[] out = new Reply[n];
        java.util.Arrays.fill(out, NO_FIELD);
        return Reply.array(out);
    }

    /**
     * HEXPIRE, HPEXPIRE, HEXPIREAT and HPEXPIREAT: {@code key time [NX|XX|GT|LT] FIELDS numfields field...}, one
     * code per field (-2 no such field, 0 condition not met, 1 set, 2 deleted as the time is not in the future).
     * Touching an existing listpack hash gives it the listpackex encoding, as in Redis.
     */
    static Reply hexpire(CommandContext ctx, byte[][] argv, String name, boolean relative, boolean seconds) {
        byte[] key = argv[1];
        HashValue h = forWrite(ctx, key);
        long now = ctx.now();
        long when = Args.parseLong(argv[2]);
        if (when < 0) throw Errors.error(Errors.HASH_EXPIRE_NEGATIVE);
        if (seconds) {
            if (when > MAX_FIELD_EXPIRE_MS / 1000) throw Errors.invalidExpire(name);
            when *= 1000;
        }
        long base = relative ? now : 0;
        if (when > MAX_FIELD_EXPIRE_MS - base) throw Errors.invalidExpire(name);
        when += base;
        int condition = 0;
        byte[] opt = argv[3];
        if (Args.is(opt, "nx")) condition = HashValue.NX;
        else if (Args.is(opt, "xx")) condition = HashValue.XX;
        else if (Args.is(opt, "gt")) condition = HashValue.GT;
        else if (Args.is(opt, "lt")) condition = HashValue.LT;
        int first = fieldsAt(argv, condition == 0 ? 4 : 5, Errors.HASH_NUMFIELDS_NOT_POSITIVE);
        if (h == null) return allNoField(argv.length - first);
        h.enableFieldTtl();
        Reply[] out = new Reply[argv.length - first];
        for (int i = first; i < argv.length; i++) {
            out[i - first] = Reply.integer(h.setExpire(argv[i], when, condition, now));
        }
        if (h.hasFieldTtls()) ctx.db(key).trackFieldExpiry(key); // the shard cron expires fields nobody reads
        if (changed(out, 1)) propagateFieldExpiry(ctx, argv, key, when, condition == 0 ? -1 : 3, first, out);
        if (changed(out, 1)) ctx.notify(KeyspaceEvents.HASH, changed(out, 2) ? "hdel" : "hexpire", key);
        settle(ctx, key, h, changed(out, 1));
        return Reply.array(out);
    }

    /**
     * The journalled form of a field-expiry command, as Redis 7.4 propagates it: HDEL for the fields it deleted (a
     * time not in the future), then HPEXPIREAT with the absolute time, its condition ({@code conditionAt} in argv,
     * -1 for none) and only the fields it set.
     */
    private static void propagateFieldExpiry(CommandContext ctx, byte[][] argv, byte[] key, long when, int conditionAt,
                                             int first, Reply[] out) {
        List<byte[]> deleted = new ArrayList<>();
        List<byte[]> set = new ArrayList<>();
        for (int i = 0; i < out.length; i++) {
            long code = ((Reply.Int) out[i]).value();
            if (code == 2) deleted.add(argv[first + i]);
            else if (code == 1) set.add(argv[first + i]);
        }
        List<byte[][]> cmds = new ArrayList<>(2);
        if (!deleted.isEmpty()) {
            byte[][] hdel = new byte[deleted.size() + 2][];
            hdel[0] = Args.bytes("HDEL");
            hdel[1] = key;
            for (int i = 0; i < deleted.size(); i++) hdel[i + 2] = deleted.get(i);
            cmds.add(hdel);
        }
        if (!set.isEmpty()) {
            List<byte[]> c = new ArrayList<>();
            c.add(Args.bytes("HPEXPIREAT"));
            c.add(key);
            c.add(Args.bytes(when));
            if (conditionAt > 0) c.add(argv[conditionAt]);
            c.add(Args.bytes("FIELDS"));
            c.add(Args.bytes(set.size()));
            c.addAll(set);
            cmds.add(c.toArray(new byte[0][]));
        }
        ctx.propagateAs(cmds.toArray(new byte[0][][]));
    }

    /**
     * HTTL, HPTTL (remaining time, {@code relative}), HEXPIRETIME and HPEXPIRETIME: -2 no such field, -1 no TTL,
     * else the time, seconds rounded up. As in Redis, a listpackex hash answers -2 for a field expiring this
     * very millisecond.
     */
    static Reply httl(CommandContext ctx, byte[][] argv, boolean relative, boolean seconds) {
        HashValue h = forRead(ctx, argv[1]);
        int first = fieldsAt(argv, 3, Errors.HASH_NUMBER_OF_FIELDS);
        if (h == null) return allNoField(argv.length - first);
        long now = ctx.now();
        long base = relative ? now : 0;
        Reply[] out = new Reply[argv.length - first];
        for (int i = first; i < argv.length; i++) {
            long at = h.fieldExpireAt(argv[i]);
            Reply r;
            if (at == HashValue.NO_FIELD) {
                r = NO_FIELD;
            } else if (at == 0) {
                r = NO_TTL;
            } else if (h.isCompact() ? at <= now : at < now) {
                r = NO_FIELD;
            } else {
                r = Reply.integer(seconds ? (at + 999 - base) / 1000 : at - base);
            }
            out[i - first] = r;
        }
        return Reply.array(out);
    }

    /** HPERSIST key FIELDS numfields field...: -2 no such field, -1 no TTL, 1 TTL removed. */
    static Reply hpersist(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        HashValue h = forWrite(ctx, key);
        int first = fieldsAt(argv, 3, Errors.HASH_NUMBER_OF_FIELDS);
        if (h == null) return allNoField(argv.length - first);
        Reply[] out = new Reply[argv.length - first];
        for (int i = first; i < argv.length; i++) out[i - first] = Reply.integer(h.persist(argv[i]));
        if (changed(out, 1)) ctx.notify(KeyspaceEvents.HASH, "hpersist", key);
        settle(ctx, key, h, changed(out, 1));
        return Reply.array(out);
    }

    // ------------------------------------------------------------------ HGETDEL, HGETEX, HSETEX (Redis 8.0)

    /** The expiry options of HGETEX and HSETEX. */
    private static final int EX = 1, PX = 2, EXAT = 4, PXAT = 8, PERSIST = 16, KEEPTTL = 32, FXX = 64, FNX = 128;
    private static final int TIMES = EX | PX | EXAT | PXAT;

    /** The option {@code arg} names among EX, PX, EXAT, PXAT, PERSIST, KEEPTTL, FXX and FNX; 0 for none. */
    private static int option(byte[] arg) {
        if (Args.is(arg, "ex")) return EX;
        if (Args.is(arg, "px")) return PX;
        if (Args.is(arg, "exat")) return EXAT;
        if (Args.is(arg, "pxat")) return PXAT;
        if (Args.is(arg, "persist")) return PERSIST;
        if (Args.is(arg, "keepttl")) return KEEPTTL;
        if (Args.is(arg, "fxx")) return FXX;
        if (Args.is(arg, "fnx")) return FNX;
        return 0;
    }

    /** The absolute unix ms a time option ({@code EX}, ...) with argument {@code arg} names, checked as Redis does. */
    private static long expireAt(CommandContext ctx, int option, byte[] arg, String name) {
        long when = Args.parseLong(arg);
        if (when < 0) throw Errors.error(Errors.HASH_EXPIRE_NEGATIVE);
        if ((option & (EX | EXAT)) != 0) {
            if (when > MAX_FIELD_EXPIRE_MS / 1000) throw Errors.invalidExpire(name);
            when *= 1000;
        }
        long base = (option & (EX | PX)) != 0 ? ctx.now() : 0;
        if (when > MAX_FIELD_EXPIRE_MS - base) throw Errors.invalidExpire(name);
        return when + base;
    }

    /**
     * Reaches the hash for HGETEX or HSETEX, expired fields removed, and sets {@code undo} to the journal entries that
     * make a replay (its clock at 0, so nothing has expired) drop what this removal dropped among the named fields
     * ({@code argv[first]}, every {@code step}th): DEL when the whole key went, else HDEL of those fields.
     */
    private static HashValue liveNoting(CommandContext ctx, byte[] key, byte[][] argv, int first, int step,
                                        List<byte[][]> undo) {
        HashValue h = asHash(ctx.readForWrite(key));
        if (h == null) return null;
        List<byte[]> present = new ArrayList<>();
        for (int i = first; i < argv.length; i += step) if (h.contains(argv[i])) present.add(argv[i]);
        HashValue after = live(ctx, key, h, true);
        if (after == null) {
            undo.add(new byte[][] {Args.bytes("DEL"), key});
            return null;
        }
        List<byte[]> expired = new ArrayList<>();
        for (byte[] f : present) if (!after.contains(f)) expired.add(f);
        if (!expired.isEmpty()) undo.add(hdelOf(key, expired));
        return after;
    }

    /** {@code KEY fields...}: HDEL of the given argv fields, journalled when the hash changed. */
    private static byte[][] hdelOf(byte[] key, List<byte[]> fields) {
        byte[][] c = new byte[fields.size() + 2][];
        c[0] = Args.bytes("HDEL");
        c[1] = key;
        for (int i = 0; i < fields.size(); i++) c[i + 2] = fields.get(i);
        return c;
    }

    /** {@code NAME key [time] FIELDS n fields...}: the journalled form of HGETEX's TTL changes. */
    private static byte[][] fieldsCommand(String name, byte[] key, Long when, List<byte[]> fields) {
        List<byte[]> c = new ArrayList<>(fields.size() + 5);
        c.add(Args.bytes(name));
        c.add(key);
        if (when != null) c.add(Args.bytes(when));
        c.add(Args.bytes("FIELDS"));
        c.add(Args.bytes(fields.size()));
        c.addAll(fields);
        return c.toArray(new byte[0][]);
    }

    /**
     * HGETDEL key FIELDS numfields field...: the fields' values (null where missing), then deletes them, and the key
     * once it is empty. Journalled as HDEL of every field named, as Redis does.
     */
    static Reply hgetdel(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        HashValue h = asHash(ctx.readForWrite(key));
        int first = fieldsAt(argv, 3, Errors.HASH_NUMBER_OF_FIELDS);
        h = live(ctx, key, h, true);
        Reply[] out = new Reply[argv.length - first];
        List<byte[]> deleted = new ArrayList<>();
        for (int i = first; i < argv.length; i++) {
            byte[] v = h == null ? null : h.get(argv[i]);
            out[i - first] = Reply.bulk(v);
            if (v != null) {
                h.remove(argv[i]);
                deleted.add(argv[i]);
            }
        }
        // Every requested field is gone now, expired ones included (which a replay, its clock at 0, still holds).
        ctx.propagateAs(hdelOf(key, java.util.Arrays.asList(argv).subList(first, argv.length)));
        if (deleted.isEmpty()) return Reply.array(out);
        ctx.notify(KeyspaceEvents.HASH, "hdel", key);
        settle(ctx, key, h, true);
        return Reply.array(out);
    }

    /**
     * HGETEX key [EX s | PX ms | EXAT unix-s | PXAT unix-ms | PERSIST] FIELDS numfields field...: the fields' values
     * (as HMGET), then sets or removes the TTL of those that exist; a time not in the future deletes them (and the key
     * once empty). Journalled as HDEL of the fields it deleted, HPEXPIREAT with the absolute time or HPERSIST, after
     * the removal of named fields that had just expired ({@link #liveNoting}).
     */
    static Reply hgetex(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        HashValue h = asHash(ctx.readForWrite(key));
        int opt = option(argv[2]);
        if ((opt & (TIMES | PERSIST)) == 0) opt = 0;
        long when = 0;
        int numFieldsAt = 3;
        if ((opt & TIMES) != 0) {
            when = expireAt(ctx, opt, argv[3], "hgetex");
            numFieldsAt = 5;
        } else if (opt == PERSIST) {
            numFieldsAt = 4;
        }
        if (numFieldsAt >= argv.length) throw Errors.error(Errors.wrongArity("hgetex"));
        int first = fieldsAt(argv, numFieldsAt, Errors.HASH_NUMBER_OF_FIELDS);
        List<byte[][]> journal = new ArrayList<>(3);
        h = liveNoting(ctx, key, argv, first, 1, journal);
        Reply[] out = new Reply[argv.length - first];
        if (h == null) {
            if (!journal.isEmpty()) ctx.propagateAs(journal.toArray(new byte[0][][]));
            java.util.Arrays.fill(out, Reply.NULL);
            return Reply.array(out);
        }
        long now = ctx.now();
        if ((opt & TIMES) != 0) h.enableFieldTtl();
        List<byte[]> updated = new ArrayList<>();
        List<byte[]> deleted = new ArrayList<>();
        for (int i = first; i < argv.length; i++) {
            byte[] field = argv[i];
            byte[] v = h.get(field);
            out[i - first] = Reply.bulk(v);
            if (v == null || opt == 0) continue;
            if (opt == PERSIST) {
                if (h.persist(field) == HashValue.PERSIST_DONE) updated.add(field);
            } else {
                int code = h.setExpire(field, when, 0, now);
                if (code == HashValue.EXPIRE_SET) updated.add(field);
                else if (code == HashValue.EXPIRE_DELETED) deleted.add(field);
            }
        }
        if (!deleted.isEmpty()) journal.add(hdelOf(key, deleted));
        if (!updated.isEmpty()) {
            journal.add(opt == PERSIST ? fieldsCommand("HPERSIST", key, null, updated)
                    : fieldsCommand("HPEXPIREAT", key, when, updated));
        }
        if (!journal.isEmpty()) ctx.propagateAs(journal.toArray(new byte[0][][]));
        if (updated.isEmpty() && deleted.isEmpty()) return Reply.array(out);
        if (!updated.isEmpty()) {
            ctx.notify(KeyspaceEvents.HASH, opt == PERSIST ? "hpersist" : "hexpire", key);
        } else {
            ctx.notify(KeyspaceEvents.HASH, "hdel", key);
        }
        if (h.hasFieldTtls()) ctx.db(key).trackFieldExpiry(key);
        settle(ctx, key, h, true);
        return Reply.array(out);
    }

    /**
     * HSETEX key [FNX | FXX] [EX s | PX ms | EXAT unix-s | PXAT unix-ms | KEEPTTL] FIELDS numfields field value...:
     * 1 when it set every field, 0 when FNX (none may exist) or FXX (all must exist) refused. Without a time or
     * KEEPTTL the fields lose their TTL, as with HSET; a time not in the future deletes them. Journalled as HSETEX with
     * the absolute PXAT time and without the condition, or as HDEL when the time deleted the fields, after the removal
     * of named fields that had just expired ({@link #liveNoting}).
     */
    static Reply hsetex(CommandContext ctx, byte[][] argv) {
        int flags = 0;
        long when = 0;
        int first = -1;
        for (int i = 2; i < argv.length && first < 0; i++) {
            if (Args.is(argv[i], "fields")) {
                if (i >= argv.length - 3) throw Errors.error(Errors.wrongArity("hsetex"));
                Long n = Args.parseLongOrNull(argv[i + 1]);
                if (n == null || n < 1 || n > Integer.MAX_VALUE) {
                    throw Errors.error(Errors.HASH_INVALID_NUMBER_OF_FIELDS);
                }
                int remaining = argv.length - i - 2;
                if (remaining % 2 != 0 || n != remaining / 2) throw Errors.error(Errors.wrongArity("hsetex"));
                first = i + 2;
                continue;
            }
            int opt = option(argv[i]);
            if ((opt & (TIMES | KEEPTTL)) != 0) {
                if ((flags & (TIMES | KEEPTTL)) != 0) throw Errors.error(Errors.HASH_ONE_EXPIRATION);
                flags |= opt;
                if (opt == KEEPTTL) continue;
                if (i >= argv.length - 1) throw Errors.error(Errors.HASH_MISSING_EXPIRE);
                ++i;
                when = expireAt(ctx, opt, argv[i], "hsetex");
            } else if ((opt & (FXX | FNX)) != 0) {
                if ((flags & (FXX | FNX)) != 0) throw Errors.error(Errors.HASH_ONE_FXX_FNX);
                flags |= opt;
            } else {
                throw Errors.error(Errors.UNKNOWN_ARGUMENT_PREFIX + Args.text(argv[i]));
            }
        }
        if (first < 0) throw Errors.syntax();
        byte[] key = argv[1];
        List<byte[][]> journal = new ArrayList<>(3);
        HashValue h = liveNoting(ctx, key, argv, first, 2, journal);
        if (h == null && (flags & FXX) != 0) {
            if (!journal.isEmpty()) ctx.propagateAs(journal.toArray(new byte[0][][]));
            return Reply.ZERO;
        }
        if ((flags & (FXX | FNX)) != 0 && h != null) {
            List<byte[]> missing = new ArrayList<>();
            for (int i = first; i < argv.length; i += 2) if (!h.contains(argv[i])) missing.add(argv[i]);
            int count = (argv.length - first) / 2;
            if ((flags & FNX) != 0 ? missing.size() < count : !missing.isEmpty()) {
                if (!journal.isEmpty()) ctx.propagateAs(journal.toArray(new byte[0][][]));
                return Reply.ZERO;
            }
        }
        boolean created = h == null;
        if (created) h = new HashValue();
        EncodingLimits limits = ctx.server().limits();
        h.prepareWrite(argv, first, argv.length - 1, limits);
        boolean keepTtl = (flags & (TIMES | KEEPTTL)) != 0;
        for (int i = first; i < argv.length; i += 2) h.put(argv[i], argv[i + 1], keepTtl, limits);
        int updated = 0;
        List<byte[]> deleted = new ArrayList<>();
        if ((flags & TIMES) != 0) {
            h.enableFieldTtl();
            long now = ctx.now();
            for (int i = first; i < argv.length; i += 2) {
                int code = h.setExpire(argv[i], when, 0, now);
                if (code == HashValue.EXPIRE_SET) updated++;
                else if (code == HashValue.EXPIRE_DELETED) deleted.add(argv[i]);
            }
        }
        if (!deleted.isEmpty()) {
            journal.add(hdelOf(key, deleted)); // the time deleted every field it set
        } else {
            // HSETEX key [PXAT unix-ms | KEEPTTL] FIELDS ...: the time absolute, the condition (met) left out.
            List<byte[]> c = new ArrayList<>(argv.length + 1);
            c.add(Args.bytes("HSETEX"));
            c.add(key);
            if ((flags & TIMES) != 0) {
                c.add(Args.bytes("PXAT"));
                c.add(Args.bytes(when));
            } else if ((flags & KEEPTTL) != 0) {
                c.add(Args.bytes("KEEPTTL"));
            }
            for (int i = first - 2; i < argv.length; i++) c.add(argv[i]);
            journal.add(c.toArray(new byte[0][]));
        }
        ctx.propagateAs(journal.toArray(new byte[0][][]));
        ctx.notify(KeyspaceEvents.HASH, "hset", key);
        if (!deleted.isEmpty()) ctx.notify(KeyspaceEvents.HASH, "hdel", key);
        else if (updated > 0) ctx.notify(KeyspaceEvents.HASH, "hexpire", key);
        boolean stored;
        if (!created) {
            stored = settle(ctx, key, h, true);
        } else if (h.isEmpty()) {
            ctx.notify(KeyspaceEvents.GENERIC, "del", key); // Redis created the key, then deleted it
            stored = false;
        } else {
            ctx.db(key).put(key, h, 0, ctx.now());
            stored = true;
        }
        if (stored && h.hasFieldTtls()) ctx.db(key).trackFieldExpiry(key);
        return Reply.ONE;
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        HSET,
        HMSET,
        HSETNX,
        HGET,
        HMGET,
        HDEL,
        HLEN,
        HSTRLEN,
        HEXISTS,
        HKEYS,
        HVALS,
        HGETALL,
        HINCRBY,
        HINCRBYFLOAT,
        HRANDFIELD,
        HSCAN,
        HEXPIRE,
        HPEXPIRE,
        HEXPIREAT,
        HPEXPIREAT,
        HTTL,
        HPTTL,
        HEXPIRETIME,
        HPEXPIRETIME,
        HPERSIST,
        HGETDEL,
        HGETEX,
        HSETEX;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case HSET -> hset(ctx, argv, false);
                case HMSET -> hset(ctx, argv, true);
                case HSETNX -> hsetnx(ctx, argv);
                case HGET -> hget(ctx, argv);
                case HMGET -> hmget(ctx, argv);
                case HDEL -> hdel(ctx, argv);
                case HLEN -> hlen(ctx, argv);
                case HSTRLEN -> hstrlen(ctx, argv);
                case HEXISTS -> hexists(ctx, argv);
                case HKEYS -> hgetall(ctx, argv, true, false);
                case HVALS -> hgetall(ctx, argv, false, true);
                case HGETALL -> hgetall(ctx, argv, true, true);
                case HINCRBY -> hincrby(ctx, argv);
                case HINCRBYFLOAT -> hincrbyfloat(ctx, argv);
                case HRANDFIELD -> hrandfield(ctx, argv);
                case HSCAN -> hscan(ctx, argv);
                case HEXPIRE -> hexpire(ctx, argv, "hexpire", true, true);
                case HPEXPIRE -> hexpire(ctx, argv, "hpexpire", true, false);
                case HEXPIREAT -> hexpire(ctx, argv, "hexpireat", false, true);
                case HPEXPIREAT -> hexpire(ctx, argv, "hpexpireat", false, false);
                case HTTL -> httl(ctx, argv, true, true);
                case HPTTL -> httl(ctx, argv, true, false);
                case HEXPIRETIME -> httl(ctx, argv, false, true);
                case HPEXPIRETIME -> httl(ctx, argv, false, false);
                case HPERSIST -> hpersist(ctx, argv);
                case HGETDEL -> hgetdel(ctx, argv);
                case HGETEX -> hgetex(ctx, argv);
                case HSETEX -> hsetex(ctx, argv);
            };
        }
    }
}
