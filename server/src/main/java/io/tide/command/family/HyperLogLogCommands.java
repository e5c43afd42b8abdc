package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.store.Database;
import io.tide.store.HyperLogLog;
import io.tide.store.RawString;
import java.util.Arrays;

/**
 * Thread-safe (stateless). HyperLogLog commands (Redis's {@code hyperloglog.c}): PFADD, PFCOUNT, PFMERGE and
 * PFDEBUG. A HyperLogLog is a string value in Redis's byte layout ({@link HyperLogLog}); a write edits a copy and
 * stores it with {@link Database#putRaw}, keeping the key's TTL, because Redis leaves every HyperLogLog it touches as
 * a raw string. A dense value PFADD stored is a {@link RawString}, whose registers and cached cardinality PFADD and
 * PFCOUNT change where they lie (a dense value is 12 KB: copying it was most of a PFADD). PFCOUNT of one key writes
 * too: it stores the cardinality it computed in the value's header, as Redis does.
 */
public final class HyperLogLogCommands {

    private HyperLogLogCommands() {}

    public static void register(CommandTable t) {
        t.group("hyperloglog");
        t.add("pfadd", -2, "write denyoom fast", 1, 1, 1, "@hyperloglog", "2.8.9",
                "Adds elements to a HyperLogLog key. Creates the key if it doesn't exist.",
                Handler.PFADD);
        t.add("pfcount", -2, "readonly may_replicate", 1, -1, 1, "@hyperloglog", "2.8.9",
                "Returns the approximated cardinality of the set(s) observed by the HyperLogLog key(s).",
                Handler.PFCOUNT);
        t.add("pfmerge", -2, "write denyoom", 1, -1, 1, "@hyperloglog", "2.8.9",
                "Merges one or more HyperLogLog values into a single key.", Handler.PFMERGE);
        t.add("pfdebug", 3, "write denyoom admin", 2, 2, 1, "@hyperloglog", "2.8.9",
                "Internal commands for debugging HyperLogLog values.", Handler.PFDEBUG);
    }

    /** The bytes of a HyperLogLog value: WRONGTYPE for other types, Redis's HyperLogLog WRONGTYPE for other strings. */
    private static byte[] hll(Object v) {
        if (!StringValues.isString(v)) throw Errors.wrongType();
        byte[] b = v instanceof byte[] a ? a : v instanceof RawString r ? r.bytes() : null;
        if (b == null || !HyperLogLog.isValid(b)) throw Errors.error(Errors.HLL_WRONG_TYPE);
        return b;
    }

    private static long sparseMaxBytes(CommandContext ctx) {
        return ctx.server().limits().hllSparseMaxBytes;
    }

    // ------------------------------------------------------------------ PFADD

    static Reply pfadd(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        Object cur = ctx.readForWrite(key);
        if (cur instanceof RawString r && HyperLogLog.isDense(r.array(), r.length())) {
            // A dense value of its own (stored below): its registers change where they lie, as Redis's do.
            ctx.keepsNoArguments(); // the elements are only hashed (decision 0028)
            byte[] v = r.array();
            boolean grew = false;
            for (int j = 2; j < argv.length; j++) grew |= HyperLogLog.denseAdd(v, argv[j]);
            if (!grew) return Reply.ZERO;
            HyperLogLog.invalidateCache(v);
            ctx.modified(key);
            ctx.notify(KeyspaceEvents.STRING, "pfadd", key);
            return Reply.ONE;
        }
        HyperLogLog h;
        int updated = 0;
        if (cur == null) {
            h = HyperLogLog.empty();
            updated++;
        } else {
            h = HyperLogLog.of(hll(cur));
        }
        long max = sparseMaxBytes(ctx);
        Database db = ctx.db(key);
        for (int j = 2; j < argv.length; j++) {
            int r = h.add(argv[j], max);
            if (r == 1) {
                updated++;
            } else if (r < 0) {
                // Redis edits the value in place: what was added before the corruption was found stays.
                db.putRaw(key, h.toBytes(), Database.KEEP_TTL, ctx.now());
                throw Errors.error(Errors.HLL_CORRUPT);
            }
        }
        if (updated > 0) {
            h.invalidateCache();
            long expireAt = cur == null ? 0 : Database.KEEP_TTL;
            // A dense value is kept as a RawString, which the next PFADD changes in place instead of copying 12 KB.
            if (h.isSparse()) db.putRaw(key, h.toBytes(), expireAt, ctx.now());
            else db.put(key, RawString.adopt(h.toBytes()), expireAt, ctx.now());
            ctx.notify(KeyspaceEvents.STRING, "pfadd", key);
            return Reply.ONE;
        }
        if (db.isEmbedded(key)) db.putRaw(key, h.toBytes(), Database.KEEP_TTL, ctx.now());
        return Reply.ZERO;
    }

    // ------------------------------------------------------------------ PFCOUNT

    static Reply pfcount(CommandContext ctx, byte[][] argv) {
        if (argv.length > 2) {
            // The union of several: registers merged into a scratch array, no key is modified.
            byte[] max = new byte[HyperLogLog.REGISTERS];
            for (int j = 1; j < argv.length; j++) {
                Object v = ctx.read(argv[j]);
                if (v == null) continue;
                if (!HyperLogLog.mergeInto(max, hll(v))) throw Errors.error(Errors.HLL_CORRUPT);
            }
            return Reply.integer(HyperLogLog.countRegisters(max));
        }
        byte[] key = argv[1];
        Object v = ctx.read(key);
        if (v == null) return Reply.ZERO;
        if (v instanceof RawString r && HyperLogLog.isDense(r.array(), r.length())) {
            byte[] a = r.array();
            if (HyperLogLog.cacheValid(a)) return Reply.integer(HyperLogLog.cachedCardinality(a));
            long card = HyperLogLog.count(a);
            ctx.readForWrite(key); // a snapshot in progress keeps the value before the cache changes
            HyperLogLog.setCachedCardinality(a, card);
            ctx.modified(key);
            return Reply.integer(card);
        }
        byte[] b = hll(v);
        Database db = ctx.db(key);
        boolean embedded = db.isEmbedded(key);
        if (HyperLogLog.cacheValid(b)) {
            if (embedded) db.putRaw(key, b.clone(), Database.KEEP_TTL, ctx.now());
            return Reply.integer(HyperLogLog.cachedCardinality(b));
        }
        long card = HyperLogLog.count(b);
        if (card < 0) {
            if (embedded) db.putRaw(key, b.clone(), Database.KEEP_TTL, ctx.now());
            throw Errors.error(Errors.HLL_CORRUPT);
        }
        byte[] out = b.clone();
        HyperLogLog.setCachedCardinality(out, card);
        db.putRaw(key, out, Database.KEEP_TTL, ctx.now());
        return Reply.integer(card);
    }

    // ------------------------------------------------------------------ PFMERGE

    static Reply pfmerge(CommandContext ctx, byte[][] argv) {
        byte[] max = new byte[HyperLogLog.REGISTERS];
        boolean useDense = false;
        for (int j = 1; j < argv.length; j++) { // the destination is one of the sources
            Object v = ctx.read(argv[j]);
            if (v == null) continue;
            byte[] b = hll(v);
            if (HyperLogLog.encoding(b) == HyperLogLog.DENSE) useDense = true;
            if (!HyperLogLog.mergeInto(max, b)) throw Errors.error(Errors.HLL_CORRUPT);
        }
        byte[] dest = argv[1];
        Object cur = ctx.readForWrite(dest);
        HyperLogLog h = cur == null ? HyperLogLog.empty() : HyperLogLog.of(hll(cur));
        if (useDense && !h.toDense()) throw Errors.error(Errors.HLL_CORRUPT);
        long limit = sparseMaxBytes(ctx);
        for (int i = 0; i < HyperLogLog.REGISTERS; i++) {
            if (max[i] != 0) h.set(i, max[i], limit);
        }
        h.invalidateCache();
        ctx.db(dest).putRaw(dest, h.toBytes(), cur == null ? 0 : Database.KEEP_TTL, ctx.now());
        ctx.notify(KeyspaceEvents.STRING, "pfadd", dest);
        return Reply.OK;
    }

    // ------------------------------------------------------------------ PFDEBUG

    static Reply pfdebug(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[2];
        Object cur = ctx.readForWrite(key);
        if (cur == null) throw Errors.error(Errors.PFDEBUG_NO_KEY);
        byte[] b = hll(cur);
        Database db = ctx.db(key);
        if (db.isEmbedded(key)) db.putRaw(key, b.clone(), Database.KEEP_TTL, ctx.now());
        byte[] sub = argv[1];
        boolean sparse = HyperLogLog.encoding(b) == HyperLogLog.SPARSE;
        if (isWord(sub, "getreg")) {
            if (sparse) b = storeDense(ctx, key, b);
            int[] regs = HyperLogLog.registers(b);
            Reply[] out = new Reply[regs.length];
            for (int i = 0; i < regs.length; i++) out[i] = Reply.integer(regs[i]);
            return Reply.array(out);
        } else if (isWord(sub, "decode")) {
            if (!sparse) throw Errors.error(Errors.PFDEBUG_NOT_SPARSE);
            return Reply.bulk(HyperLogLog.decodeSparse(b));
        } else if (isWord(sub, "encoding")) {
            return Reply.simple(sparse ? "sparse" : "dense");
        } else if (isWord(sub, "todense")) {
            if (!sparse) return Reply.ZERO;
            storeDense(ctx, key, b);
            return Reply.ONE;
        }
        throw Errors.error(Errors.PFDEBUG_UNKNOWN_PREFIX + Errors.printable(cString(sub)) + "'");
    }

    private static byte[] storeDense(CommandContext ctx, byte[] key, byte[] sparse) {
        HyperLogLog h = HyperLogLog.of(sparse);
        if (!h.toDense()) throw Errors.error(Errors.HLL_CORRUPT);
        byte[] dense = h.toBytes();
        ctx.db(key).putRaw(key, dense, Database.KEEP_TTL, ctx.now());
        return dense;
    }

    /** strcasecmp of the argument as a C string (up to its first NUL). */
    private static boolean isWord(byte[] arg, String lower) {
        byte[] c = cString(arg);
        return c.length == lower.length() && Args.is(c, lower);
    }

    private static byte[] cString(byte[] arg) {
        for (int i = 0; i < arg.length; i++) {
            if (arg[i] == 0) return Arrays.copyOf(arg, i);
        }
        return arg;
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        PFADD,
        PFCOUNT,
        PFMERGE,
        PFDEBUG;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case PFADD -> pfadd(ctx, argv);
                case PFCOUNT -> pfcount(ctx, argv);
                case PFMERGE -> pfmerge(ctx, argv);
                case PFDEBUG -> pfdebug(ctx, argv);
            };
        }
    }
}
