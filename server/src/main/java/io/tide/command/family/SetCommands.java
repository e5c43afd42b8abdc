package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.BulkArrayEncoder;
import io.tide.protocol.Reply;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.store.ByteMap;
import io.tide.store.Database;
import io.tide.store.EncodingLimits;
import io.tide.store.SetValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Thread-safe (stateless): the set commands (Redis's {@code t_set.c}), SADD, SREM, SCARD, SISMEMBER,
 * SMISMEMBER, SMEMBERS, SPOP, SRANDMEMBER, SMOVE, SINTER, SINTERCARD, SINTERSTORE, SUNION, SUNIONSTORE, SDIFF,
 * SDIFFSTORE and SSCAN. Values are {@link SetValue}s; the algorithms (which encoding a result starts in, SPOP's
 * and SRANDMEMBER's strategies, SDIFF's choice of algorithm) follow Redis 7.4 so that OBJECT ENCODING and the
 * reply order of intsets and listpacks match. Every key is reached through {@code ctx.db(key)}, so the
 * multi-key commands run atomically when their keys lie on several shards.
 */
public final class SetCommands {

    /** Redis's SPOP_MOVE_STRATEGY_MUL and SRANDMEMBER_SUB_STRATEGY_MUL. */
    private static final long SPOP_MOVE_STRATEGY_MUL = 5;
    private static final long SRANDMEMBER_SUB_STRATEGY_MUL = 3;
    /** The longest reply array the JVM can build: bounds SRANDMEMBER's repeated (negative) count. */
    static final long MAX_REPLY_ELEMENTS = Integer.MAX_VALUE - 8;

    private static final Reply EMPTY_SET = new Reply.SetReply(new Reply[0]);
    private static final byte[][] NO_KEYS = new byte[0][];

    private SetCommands() {}

    public static void register(CommandTable t) {
        t.group("set");
        t.add("sadd", -3, "write denyoom fast", 1, 1, 1, "@set", "1.0.0",
                "Add one or more members to a set", Handler.SADD);
        t.add("srem", -3, "write fast", 1, 1, 1, "@set", "1.0.0",
                "Remove one or more members from a set", Handler.SREM);
        t.add("scard", 2, "readonly fast", 1, 1, 1, "@set", "1.0.0",
                "Get the number of members in a set", Handler.SCARD);
        t.add("sismember", 3, "readonly fast", 1, 1, 1, "@set", "1.0.0",
                "Determine if a given value is a member of a set", Handler.SISMEMBER);
        t.add("smismember", -3, "readonly fast", 1, 1, 1, "@set", "6.2.0",
                "Returns the membership associated with the given elements for a set", Handler.SMISMEMBER);
        t.add("smembers", 2, "readonly", 1, 1, 1, "@set", "1.0.0",
                "Get all the members in a set", Handler.SMEMBERS);
        t.add("spop", -2, "write fast", 1, 1, 1, "@set", "1.0.0",
                "Remove and return one or multiple random members from a set", Handler.SPOP);
        t.add("srandmember", -2, "readonly", 1, 1, 1, "@set", "1.0.0",
                "Get one or multiple random members from a set", Handler.SRANDMEMBER);
        t.add("smove", 4, "write fast", 1, 2, 1, "@set", "1.0.0",
                "Move a member from one set to another", Handler.SMOVE);
        t.add("sinter", -2, "readonly", 1, -1, 1, "@set", "1.0.0",
                "Intersect multiple sets", Handler.SINTER);
        t.add("sintercard", -3, "readonly", 0, 0, 0, "@set", "7.0.0",
                "Intersect multiple sets and return the cardinality of the result", Handler.SINTERCARD)
                .keysBy(SetCommands::sintercardKeys);
        t.add("sinterstore", -3, "write denyoom", 1, -1, 1, "@set", "1.0.0",
                "Intersect multiple sets and store the resulting set in a key", Handler.SINTERSTORE);
        t.add("sunion", -2, "readonly", 1, -1, 1, "@set", "1.0.0",
                "Add multiple sets", Handler.SUNION);
        t.add("sunionstore", -3, "write denyoom", 1, -1, 1, "@set", "1.0.0",
                "Add multiple sets and store the resulting set in a key", Handler.SUNIONSTORE);
        t.add("sdiff", -2, "readonly", 1, -1, 1, "@set", "1.0.0",
                "Subtract multiple sets", Handler.SDIFF);
        t.add("sdiffstore", -3, "write denyoom", 1, -1, 1, "@set", "1.0.0",
                "Subtract multiple sets and store the resulting set in a key", Handler.SDIFFSTORE);
        t.add("sscan", -3, "readonly", 1, 1, 1, "@set", "2.8.0",
                "Incrementally iterate Set elements", Handler.SSCAN);
    }

    // ---------------------------------------------------------------- lookups

    /** The set in {@code value}, null for a missing key; WRONGTYPE for any other type. */
    private static SetValue asSet(Object value) {
        if (value == null) return null;
        if (value instanceof SetValue s) return s;
        throw Errors.wrongType();
    }

    private static EncodingLimits limits(CommandContext ctx) {
        return ctx.server().limits();
    }

    private static Reply setReply(SetValue set) {
        Reply[] out = new Reply[set.size()];
        int[] i = {0};
        set.forEach(m -> out[i[0]++] = Reply.bulk(m));
        return new Reply.SetReply(out);
    }

    private static Reply bulks(byte[][] members) {
        return BulkArrayEncoder.of(members);
    }

    // ---------------------------------------------------------------- SADD, SREM, SMOVE

    static Reply sadd(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        EncodingLimits lim = limits(ctx);
        SetValue set = asSet(ctx.readForWrite(key));
        long hint = argv.length - 2;
        int added = 0;
        if (set == null) {
            set = SetValue.create(argv[2], hint, lim);
            for (int i = 2; i < argv.length; i++) if (set.add(argv[i], lim)) added++;
            ctx.db(key).put(key, set, 0, ctx.now());
        } else {
            set.convertForHint(hint, lim);
            for (int i = 2; i < argv.length; i++) if (set.add(argv[i], lim)) added++;
            if (added > 0) ctx.modified(key);
        }
        if (added > 0) ctx.notify(KeyspaceEvents.SET, "sadd", key);
        return Reply.integer(added);
    }

    static Reply srem(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        SetValue set = asSet(ctx.readForWrite(key));
        if (set == null) return Reply.ZERO;
        int deleted = 0;
        for (int i = 2; i < argv.length; i++) {
            if (set.remove(argv[i])) {
                deleted++;
                if (set.size() == 0) break;
            }
        }
        if (deleted > 0) ctx.notify(KeyspaceEvents.SET, "srem", key);
        settle(ctx, key, set, deleted > 0);
        return Reply.integer(deleted);
    }

    static Reply smove(CommandContext ctx, byte[][] argv) {
        byte[] src = argv[1];
        byte[] dst = argv[2];
        byte[] member = argv[3];
        Object srcValue = ctx.readForWrite(src);
        Object dstValue = ctx.readForWrite(dst);
        if (srcValue == null) return Reply.ZERO;
        SetValue from = asSet(srcValue);
        SetValue to = asSet(dstValue);
        if (from == to) return from.contains(member) ? Reply.ONE : Reply.ZERO;
        EncodingLimits lim = limits(ctx);
        if (!from.remove(member)) return Reply.ZERO;
        ctx.notify(KeyspaceEvents.SET, "srem", src);
        settle(ctx, src, from, true);
        if (to == null) {
            to = SetValue.create(member, 1, lim);
            to.add(member, lim);
            ctx.db(dst).put(dst, to, 0, ctx.now());
            ctx.notify(KeyspaceEvents.SET, "sadd", dst);
        } else if (to.add(member, lim)) {
            ctx.modified(dst);
            ctx.notify(KeyspaceEvents.SET, "sadd", dst);
        }
        return Reply.ONE;
    }

    // ---------------------------------------------------------------- SCARD, SISMEMBER, SMISMEMBER, SMEMBERS

    static Reply scard(CommandContext ctx, byte[][] argv) {
        SetValue set = asSet(ctx.read(argv[1]));
        return set == null ? Reply.ZERO : Reply.integer(set.size());
    }

    static Reply sismember(CommandContext ctx, byte[][] argv) {
        SetValue set = asSet(ctx.read(argv[1]));
        return set != null && set.contains(argv[2]) ? Reply.ONE : Reply.ZERO;
    }

    static Reply smismember(CommandContext ctx, byte[][] argv) {
        SetValue set = asSet(ctx.read(argv[1]));
        Reply[] out = new Reply[argv.length - 2];
        for (int i = 2; i < argv.length; i++) {
            out[i - 2] = set != null && set.contains(argv[i]) ? Reply.ONE : Reply.ZERO;
        }
        return Reply.array(out);
    }

    static Reply smembers(CommandContext ctx, byte[][] argv) {
        SetValue set = asSet(ctx.read(argv[1]));
        return set == null ? EMPTY_SET : setReply(set);
    }

    // ---------------------------------------------------------------- SPOP

    static Reply spop(CommandContext ctx, byte[][] argv) {
        if (argv.length == 3) return spopWithCount(ctx, argv);
        if (argv.length > 3) throw Errors.syntax();
        byte[] key = argv[1];
        SetValue set = asSet(ctx.readForWrite(key));
        if (set == null) return Reply.NULL;
        byte[] member = set.popRandom(ThreadLocalRandom.current());
        ctx.notify(KeyspaceEvents.SET, "spop", key);
        settle(ctx, key, set, true);
        ctx.propagateAs(new byte[][] {SREM, key, member}); // as Redis: the random choice is not replayed
        return Reply.bulk(member);
    }

    /** Redis's spopWithCountCommand and its three strategies (whole set, pop one by one, keep the rest). */
    private static Reply spopWithCount(CommandContext ctx, byte[][] argv) {
        long count = positive(argv[2], Errors.MUST_BE_POSITIVE);
        byte[] key = argv[1];
        SetValue set = asSet(ctx.readForWrite(key));
        if (set == null || count == 0) return EMPTY_SET;
        Database db = ctx.db(key);
        long size = set.size();
        if (count >= size) {
            Reply all = setReply(union(ctx, new SetValue[] {set}));
            ctx.notify(KeyspaceEvents.SET, "spop", key);
            db.remove(key);
            ctx.notify(KeyspaceEvents.GENERIC, "del", key);
            ctx.propagateAs(new byte[][] {Args.bytes("DEL"), key});
            return all;
        }
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        long remaining = size - count;
        int n = (int) count;
        Reply[] out = new Reply[n];
        if (remaining * SPOP_MOVE_STRATEGY_MUL > count) {
            if (set.isListpack()) {
                byte[][] popped = set.sampleListpack(n, true, rnd);
                for (int i = 0; i < n; i++) out[i] = Reply.bulk(popped[i]);
            } else {
                for (int i = 0; i < n; i++) out[i] = Reply.bulk(set.popRandom(rnd));
            }
            ctx.modified(key);
            ctx.notify(KeyspaceEvents.SET, "spop", key);
            propagateAsSrem(ctx, key, out);
            return new Reply.SetReply(out);
        }
        // Most of the set goes: move the few members that stay to a new set and return the old one.
        EncodingLimits lim = limits(ctx);
        SetValue kept;
        if (set.isListpack()) {
            kept = SetValue.newListpack();
            for (byte[] m : set.sampleListpack((int) remaining, true, rnd)) kept.add(m, lim);
        } else {
            kept = set.isIntset() ? SetValue.newIntset() : SetValue.newListpack();
            for (long i = 0; i < remaining; i++) kept.add(set.popRandom(rnd), lim);
        }
        int[] i = {0};
        set.forEach(m -> out[i[0]++] = Reply.bulk(m));
        db.put(key, kept, Database.KEEP_TTL, ctx.now());
        ctx.notify(KeyspaceEvents.SET, "spop", key);
        propagateAsSrem(ctx, key, out);
        return new Reply.SetReply(out);
    }

    private static final byte[] SREM = Args.bytes("SREM");

    /** SPOP with a count is journalled as Redis propagates it: SREMs of the popped members, 1024 a command. */
    private static void propagateAsSrem(CommandContext ctx, byte[] key, Reply[] popped) {
        if (!ctx.journalling()) return;
        int batches = (popped.length + 1023) / 1024;
        byte[][][] cmds = new byte[batches][][];
        for (int b = 0; b < batches; b++) {
            int from = b * 1024;
            int n = Math.min(1024, popped.length - from);
            byte[][] c = new byte[n + 2][];
            c[0] = SREM;
            c[1] = key;
            for (int i = 0; i < n; i++) c[i + 2] = ((Reply.Bulk) popped[from + i]).bytes();
            cmds[b] = c;
        }
        ctx.propagateAs(cmds);
    }

    /** After a set obtained with readForWrite changed in place: deletes it when empty, else tells the seam. */
    private static void settle(CommandContext ctx, byte[] key, SetValue set, boolean changed) {
        if (!changed) return;
        if (set.size() == 0) {
            ctx.db(key).remove(key);
            ctx.notify(KeyspaceEvents.GENERIC, "del", key);
        } else {
            ctx.modified(key);
        }
    }

    // ---------------------------------------------------------------- SRANDMEMBER

    static Reply srandmember(CommandContext ctx, byte[][] argv) {
        if (argv.length == 3) return srandmemberWithCount(ctx, argv);
        if (argv.length > 3) throw Errors.syntax();
        SetValue set = asSet(ctx.read(argv[1]));
        return set == null ? Reply.NULL : Reply.bulk(set.random(ThreadLocalRandom.current()));
    }

    /** Redis's srandmemberWithCountCommand: repeated picks for a negative count, distinct members otherwise. */
    private static Reply srandmemberWithCount(CommandContext ctx, byte[][] argv) {
        long l = Args.parseSymmetricLong(argv[2]);
        boolean unique = l >= 0;
        long count = Math.abs(l);
        SetValue set = asSet(ctx.read(argv[1]));
        if (set == null || count == 0) return Reply.EMPTY_ARRAY;
        if (!unique && count > MAX_REPLY_ELEMENTS) throw Errors.error(Errors.SRANDMEMBER_COUNT_TOO_LARGE);
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int size = set.size();
        if (!unique || count == 1) {
            Reply[] out = new Reply[(int) count];
            if (size <= 1024 && count > size) {
                // Share one reply per member instead of one per pick.
                byte[][] members = set.toArray();
                Reply[] each = new Reply[size];
                for (int i = 0; i < size; i++) each[i] = Reply.bulk(members[i]);
                for (int i = 0; i < out.length; i++) out[i] = each[rnd.nextInt(size)];
            } else {
                for (int i = 0; i < out.length; i++) out[i] = Reply.bulk(set.random(rnd));
            }
            return Reply.array(out);
        }
        if (count >= size) return bulks(set.toArray());
        int n = (int) count;
        if (set.isListpack()) return bulks(set.sampleListpack(n, false, rnd));
        if (count * SRANDMEMBER_SUB_STRATEGY_MUL > size) {
            // Most of the set: choose which members to return by a partial shuffle of all of them.
            byte[][] all = set.toArray();
            for (int i = 0; i < n; i++) {
                int j = i + rnd.nextInt(size - i);
                byte[] swap = all[i];
                all[i] = all[j];
                all[j] = swap;
            }
            return bulks(Arrays.copyOf(all, n));
        }
        // A small part of a big set: random picks until enough distinct members.
        ByteMap picked = new ByteMap(n);
        List<byte[]> out = new ArrayList<>(n);
        while (out.size() < n) {
            byte[] m = set.random(rnd);
            if (picked.put(m, null)) out.add(m);
        }
        return bulks(out.toArray(new byte[0][]));
    }

    // ---------------------------------------------------------------- SINTER, SINTERCARD, SINTERSTORE

    static Reply sinter(CommandContext ctx, byte[][] argv) {
        return intersect(ctx, Arrays.copyOfRange(argv, 1, argv.length), null, false, 0);
    }

    static Reply sinterstore(CommandContext ctx, byte[][] argv) {
        return intersect(ctx, Arrays.copyOfRange(argv, 2, argv.length), argv[1], false, 0);
    }

    static Reply sintercard(CommandContext ctx, byte[][] argv) {
        Long numkeys = Args.parseLongOrNull(argv[1]);
        if (numkeys == null || numkeys < 1) throw Errors.error(Errors.NUMKEYS_NOT_POSITIVE);
        if (numkeys > argv.length - 2) throw Errors.error(Errors.NUMKEYS_EXCEEDS_ARGS);
        int n = numkeys.intValue();
        long limit = 0;
        for (int j = 2 + n; j < argv.length; j++) {
            if (Args.is(argv[j], "limit") && j < argv.length - 1) {
                limit = positive(argv[++j], Errors.LIMIT_NEGATIVE);
            } else {
                throw Errors.syntax();
            }
        }
        return intersect(ctx, Arrays.copyOfRange(argv, 2, 2 + n), null, true, limit);
    }

    /** SINTERCARD's keys: {@code numkeys} of them after it; none when numkeys is malformed. */
    static byte[][] sintercardKeys(byte[][] argv) {
        Long n = argv.length > 1 ? Args.parseLongOrNull(argv[1]) : null;
        if (n == null || n < 1 || n > argv.length - 2) return NO_KEYS;
        return Arrays.copyOfRange(argv, 2, 2 + n.intValue());
    }

    /** Redis's sinterGenericCommand: walks the smallest set and keeps the members every other set holds. */
    private static Reply intersect(CommandContext ctx, byte[][] keys, byte[] dst, boolean cardOnly, long limit) {
        SetValue[] sets = new SetValue[keys.length];
        boolean empty = false;
        for (int j = 0; j < keys.length; j++) {
            sets[j] = asSet(ctx.read(keys[j]));
            if (sets[j] == null) empty = true;
        }
        if (empty) {
            if (dst != null) {
                Database d = ctx.db(dst);
                if (d.exists(dst, ctx.now())) {
                    d.remove(dst);
                    ctx.notify(KeyspaceEvents.GENERIC, "del", dst);
                }
                return Reply.ZERO;
            }
            return cardOnly ? Reply.ZERO : EMPTY_SET;
        }
        Arrays.sort(sets, Comparator.comparingInt(SetValue::size)); // stable, as glibc's merge-sort qsort
        SetValue first = sets[0];
        byte[][] members = first.toArray();
        long cardinality = 0;
        List<Reply> out = dst == null && !cardOnly ? new ArrayList<>() : null;
        EncodingLimits lim = limits(ctx);
        SetValue result = dst == null ? null : first.isIntset() ? SetValue.newIntset() : SetValue.newListpack();
        for (byte[] m : members) {
            boolean inAll = true;
            for (int j = 1; j < sets.length && inAll; j++) {
                if (sets[j] != first && !sets[j].contains(m)) inAll = false;
            }
            if (!inAll) continue;
            cardinality++;
            if (cardOnly) {
                if (limit != 0 && cardinality >= limit) break;
            } else if (out != null) {
                out.add(Reply.bulk(m));
            } else {
                result.add(m, lim);
            }
        }
        if (cardOnly) return Reply.integer(cardinality);
        if (out != null) return new Reply.SetReply(out.toArray(new Reply[0]));
        result.convertToIntsetIfIntegers(lim);
        return store(ctx, dst, result, "sinterstore");
    }

    /** Stores a STORE command's result (without expiry), or deletes the destination when it is empty. */
    private static Reply store(CommandContext ctx, byte[] dst, SetValue result, String event) {
        Database d = ctx.db(dst);
        if (result.size() == 0) {
            if (d.exists(dst, ctx.now())) {
                d.remove(dst);
                ctx.notify(KeyspaceEvents.GENERIC, "del", dst);
            }
            return Reply.ZERO;
        }
        d.put(dst, result, 0, ctx.now());
        ctx.notify(KeyspaceEvents.SET, event, dst);
        return Reply.integer(result.size());
    }

    // ---------------------------------------------------------------- SUNION, SDIFF and their STORE forms

    static Reply sunion(CommandContext ctx, byte[][] argv) {
        return setReply(union(ctx, sources(ctx, argv, 1)));
    }

    static Reply sunionstore(CommandContext ctx, byte[][] argv) {
        SetValue[] sets = sources(ctx, argv, 2);
        return store(ctx, argv[1], union(ctx, sets), "sunionstore");
    }

    static Reply sdiff(CommandContext ctx, byte[][] argv) {
        return setReply(difference(ctx, sources(ctx, argv, 1)));
    }

    static Reply sdiffstore(CommandContext ctx, byte[][] argv) {
        SetValue[] sets = sources(ctx, argv, 2);
        return store(ctx, argv[1], difference(ctx, sets), "sdiffstore");
    }

    /** The sets named from {@code argv[from]} on, null for missing keys; WRONGTYPE if any holds another type. */
    private static SetValue[] sources(CommandContext ctx, byte[][] argv, int from) {
        SetValue[] sets = new SetValue[argv.length - from];
        for (int j = 0; j < sets.length; j++) sets[j] = asSet(ctx.read(argv[from + j]));
        return sets;
    }

    /** Every member of every set, gathered into a new set that starts as an intset, as Redis 7.4 does. */
    private static SetValue union(CommandContext ctx, SetValue[] sets) {
        EncodingLimits lim = limits(ctx);
        SetValue result = SetValue.newIntset();
        for (SetValue s : sets) {
            if (s != null) s.forEach(m -> result.add(m, lim));
        }
        return result;
    }

    /**
     * The members of the first set that no other set holds, with Redis's choice between walking the first set
     * (algorithm 1) and adding it all then removing the others (algorithm 2).
     */
    private static SetValue difference(CommandContext ctx, SetValue[] sets) {
        EncodingLimits lim = limits(ctx);
        SetValue result = SetValue.newIntset();
        SetValue first = sets[0];
        if (first == null) return result;
        for (int j = 1; j < sets.length; j++) {
            if (sets[j] == first) return result;        // the same key again: nothing is left
        }
        long algoOne = 0;
        long algoTwo = 0;
        for (SetValue s : sets) {
            if (s == null) continue;
            algoOne += first.size();
            algoTwo += s.size();
        }
        algoOne /= 2;
        if (algoOne <= algoTwo) {
            SetValue[] others = Arrays.copyOfRange(sets, 1, sets.length);
            Arrays.sort(others, Comparator.comparingInt((SetValue s) -> s == null ? 0 : s.size()).reversed());
            first.forEach(m -> {
                for (SetValue s : others) {
                    if (s != null && s.contains(m)) return;
                }
                result.add(m, lim);
            });
        } else {
            first.forEach(m -> result.add(m, lim));
            for (int j = 1; j < sets.length && result.size() > 0; j++) {
                if (sets[j] != null) sets[j].forEach(result::remove);
            }
        }
        return result;
    }

    // ---------------------------------------------------------------- SSCAN

    static Reply sscan(CommandContext ctx, byte[][] argv) {
        long cursor = KeyCommands.parseCursor(argv[2]);
        SetValue set = asSet(ctx.read(argv[1]));
        if (set == null) return ScanOptions.EMPTY;
        ScanOptions o = ScanOptions.parse(argv, 3, Errors.NOVALUES_ONLY_HSCAN, false);
        List<Reply> out = new ArrayList<>();
        long next = set.scan(cursor, o.limit(), m -> {
            if (o.matches(m)) out.add(Reply.bulk(m));
        });
        return ScanOptions.reply(next, out);
    }

    // ---------------------------------------------------------------- arguments

    /** Redis's getPositiveLongFromObjectOrReply: a 64-bit integer >= 0, else {@code errorLine}. */
    private static long positive(byte[] arg, String errorLine) {
        Long v = Args.parseLongOrNull(arg);
        if (v == null || v < 0) throw Errors.error(errorLine);
        return v;
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        SADD,
        SREM,
        SCARD,
        SISMEMBER,
        SMISMEMBER,
        SMEMBERS,
        SPOP,
        SRANDMEMBER,
        SMOVE,
        SINTER,
        SINTERCARD,
        SINTERSTORE,
        SUNION,
        SUNIONSTORE,
        SDIFF,
        SDIFFSTORE,
        SSCAN;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case SADD -> sadd(ctx, argv);
                case SREM -> srem(ctx, argv);
                case SCARD -> scard(ctx, argv);
                case SISMEMBER -> sismember(ctx, argv);
                case SMISMEMBER -> smismember(ctx, argv);
                case SMEMBERS -> smembers(ctx, argv);
                case SPOP -> spop(ctx, argv);
                case SRANDMEMBER -> srandmember(ctx, argv);
                case SMOVE -> smove(ctx, argv);
                case SINTER -> sinter(ctx, argv);
                case SINTERCARD -> sintercard(ctx, argv);
                case SINTERSTORE -> sinterstore(ctx, argv);
                case SUNION -> sunion(ctx, argv);
                case SUNIONSTORE -> sunionstore(ctx, argv);
                case SDIFF -> sdiff(ctx, argv);
                case SDIFFSTORE -> sdiffstore(ctx, argv);
                case SSCAN -> sscan(ctx, argv);
            };
        }
    }
}
