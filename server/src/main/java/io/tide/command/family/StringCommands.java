package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.store.Database;
import io.tide.store.RawString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * String commands (Redis's {@code t_string.c}): GET, SET and its variants, the counters, ranges, MGET,
 * MSET and LCS. Thread-safe (stateless); handlers run on the thread that owns their keys and reach each
 * key's database through {@link CommandContext#db(byte[])}. Values are represented as {@link StringValues}
 * describes.
 */
public final class StringCommands {


    /** Longest byte array the JVM allocates reliably; longer strings get the proto-max-bulk-len error. */
    private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;
    private static final Reply EMPTY_BULK = Reply.bulk(new byte[0]);
    private static final Reply MATCHES = Reply.bulk("matches");
    private static final Reply LEN = Reply.bulk("len");

    // Options of SET and GETEX, with Redis's names.
    private static final int NX = 1;
    private static final int XX = 1 << 1;
    private static final int GET = 1 << 2;
    private static final int KEEPTTL = 1 << 3;
    private static final int PERSIST = 1 << 4;
    private static final int EX = 1 << 5;
    private static final int PX = 1 << 6;
    private static final int EXAT = 1 << 7;
    private static final int PXAT = 1 << 8;
    /** Valkey 8.1's IFEQ: set only over an existing string equal to the comparison value. */
    private static final int IFEQ = 1 << 9;

    // Journalled forms (Redis's shared.set, shared.pxat, ...).
    private static final byte[] SET = Args.bytes("SET");
    private static final byte[] PXAT_ARG = Args.bytes("PXAT");
    private static final byte[] KEEPTTL_ARG = Args.bytes("KEEPTTL");
    private static final byte[] DEL = Args.bytes("DEL");
    private static final byte[] PEXPIREAT = Args.bytes("PEXPIREAT");
    private static final byte[] PERSIST_CMD = Args.bytes("PERSIST");

    private StringCommands() {}

    public static void register(CommandTable t) {
        t.group("string");
        t.add("get", 2, "readonly fast", 1, 1, 1, "@string", "1.0.0",
                "Get the value of a key", Handler.GET);
        t.add("set", -3, "write denyoom", 1, 1, 1, "@string", "1.0.0",
                "Set the string value of a key", Handler.SET)
                // Redis's setGetKeys: the key is read only when GET asks for the old value.
                .getKeysBy(argv -> List.of(new CommandSpec.KeyRef(argv[1], Args.has(argv, 3, "get")
                        ? List.of("RW", "access", "update") : List.of("OW", "update"))));
        t.add("setnx", 3, "write denyoom fast", 1, 1, 1, "@string", "1.0.0",
                "Set the value of a key, only if the key does not exist", Handler.SETNX);
        t.add("setex", 4, "write denyoom", 1, 1, 1, "@string", "2.0.0",
                "Set the value and expiration of a key", Handler.SETEX);
        t.add("psetex", 4, "write denyoom", 1, 1, 1, "@string", "2.6.0",
                "Set the value and expiration in milliseconds of a key", Handler.PSETEX);
        t.add("getset", 3, "write denyoom fast", 1, 1, 1, "@string", "1.0.0",
                "Set the string value of a key and return its old value", Handler.GETSET);
        t.add("delifeq", 3, "write fast", 1, 1, 1, "@string", "9.0.0",
                "Delete key if value matches string.", Handler.DELIFEQ);
        t.add("getdel", 2, "write fast", 1, 1, 1, "@string", "6.2.0",
                "Get the value of a key and delete the key", Handler.GETDEL);
        t.add("getex", -2, "write fast", 1, 1, 1, "@string", "6.2.0",
                "Get the value of a key and optionally set its expiration", Handler.GETEX);
        t.add("mget", -2, "readonly fast", 1, -1, 1, "@string", "1.0.0",
                "Get the values of all the given keys", Handler.MGET);
        t.add("mset", -3, "write denyoom", 1, -1, 2, "@string", "1.0.1",
                "Set multiple keys to multiple values", Handler.MSET);
        t.add("msetnx", -3, "write denyoom", 1, -1, 2, "@string", "1.0.1",
                "Set multiple keys to multiple values, only if none of the keys exist", Handler.MSETNX);
        t.add("append", 3, "write denyoom fast", 1, 1, 1, "@string", "2.0.0",
                "Append a value to a key", Handler.APPEND);
        t.add("strlen", 2, "readonly fast", 1, 1, 1, "@string", "2.2.0",
                "Get the length of the value stored in a key", Handler.STRLEN);
        t.add("incr", 2, "write denyoom fast", 1, 1, 1, "@string", "1.0.0",
                "Increment the integer value of a key by one", Handler.INCR);
        t.add("decr", 2, "write denyoom fast", 1, 1, 1, "@string", "1.0.0",
                "Decrement the integer value of a key by one", Handler.DECR);
        t.add("incrby", 3, "write denyoom fast", 1, 1, 1, "@string", "1.0.0",
                "Increment the integer value of a key by the given amount", Handler.INCRBY);
        t.add("decrby", 3, "write denyoom fast", 1, 1, 1, "@string", "1.0.0",
                "Decrement the integer value of a key by the given number", Handler.DECRBY);
        t.add("incrbyfloat", 3, "write denyoom fast", 1, 1, 1, "@string", "2.6.0",
                "Increment the float value of a key by the given amount", Handler.INCRBYFLOAT);
        t.add("getrange", 4, "readonly", 1, 1, 1, "@string", "2.4.0",
                "Get a substring of the string stored at a key", Handler.GETRANGE);
        t.add("setrange", 4, "write denyoom", 1, 1, 1, "@string", "2.2.0",
                "Overwrite part of a string at key starting at the specified offset", Handler.SETRANGE);
        t.add("substr", 4, "readonly", 1, 1, 1, "@string", "1.0.0",
                "Get a substring of the string stored at a key", Handler.GETRANGE);
        t.add("lcs", -3, "readonly", 1, 2, 1, "@string", "7.0.0",
                "Find longest common substring", Handler.LCS);
    }

    // ------------------------------------------------------------------ GET / SET family

    static Reply get(CommandContext ctx, byte[][] argv) {
        ctx.keepsNoArguments(); // the lookup only reads the key (decision 0028)
        Object v = ctx.readInPlace(argv[1]);
        if (v instanceof Reply.BulkView stored) return stored; // written from the entry, no copy
        if (v instanceof RawString r && ctx.repliesInPlace()) return ctx.bulkView(r.array(), 0, r.length());
        return v == null ? Reply.NULL : Reply.bulk(StringValues.bytes(v));
    }

    static Reply set(CommandContext ctx, byte[][] argv) {
        if (argv.length == 3) {
            // The store copies the key, and a value it embeds (decision 0028); a longer one it keeps as it is.
            if (argv[2].length <= Database.INLINE_LIMIT) ctx.keepsNoArguments();
            return setGeneric(ctx, 0, argv[1], argv[2], null, null, "set", Reply.OK, Reply.NULL);
        }
        Options o = parseOptions(argv, 3, true);
        return setGeneric(ctx, o.flags, argv[1], argv[2], o.expire, o.ifeq, "set", Reply.OK, Reply.NULL);
    }

    static Reply setnx(CommandContext ctx, byte[][] argv) {
        return setGeneric(ctx, NX, argv[1], argv[2], null, null, "setnx", Reply.ONE, Reply.ZERO);
    }

    static Reply setex(CommandContext ctx, byte[][] argv) {
        return setGeneric(ctx, EX, argv[1], argv[3], argv[2], null, "setex", Reply.OK, Reply.NULL);
    }

    static Reply psetex(CommandContext ctx, byte[][] argv) {
        return setGeneric(ctx, PX, argv[1], argv[3], argv[2], null, "psetex", Reply.OK, Reply.NULL);
    }

    /**
     * Redis's setGenericCommand: expire check, optional GET, NX/XX condition (or Valkey's IFEQ: the key must hold a
     * string equal to {@code ifeq}, any other type is WRONGTYPE), then the write.
     */
    private static Reply setGeneric(CommandContext ctx, int flags, byte[] key, byte[] value, byte[] expire,
                                    byte[] ifeq, String command, Reply ok, Reply aborted) {
        long when = expire == null ? 0 : expireAt(ctx, expire, flags, command);
        Reply old = null;
        if ((flags & GET) != 0) {
            Object v = ctx.read(key);
            old = v == null ? Reply.NULL : Reply.bulk(StringValues.bytes(v));
        }
        if ((flags & (NX | XX)) != 0) {
            boolean found = ctx.readForWrite(key) != null;
            if (((flags & NX) != 0 && found) || ((flags & XX) != 0 && !found)) {
                return old != null ? old : aborted;
            }
        }
        if ((flags & IFEQ) != 0) {
            Object current = ctx.readForWrite(key);
            if (current != null && !StringValues.isString(current)) throw Errors.wrongType();
            if (current == null || !Arrays.equals(StringValues.bytes(current), ifeq)) return old != null ? old : aborted;
        }
        long expireAt = expire != null ? when : (flags & KEEPTTL) != 0 ? Database.KEEP_TTL : 0;
        StringValues.put(ctx.db(key), key, value, expireAt, ctx.now());
        // As Redis 7.0's setGenericCommand: a relative or seconds expiry is journalled as SET key value PXAT ms.
        if (expire != null && ((flags & PXAT) == 0 || (flags & IFEQ) != 0)) {
            ctx.propagateAs(new byte[][] {SET, key, value, PXAT_ARG, Args.bytes(when)});
        } else if ((flags & IFEQ) != 0) {
            // The condition held here: the journal carries the plain SET, which Redis can load too.
            ctx.propagateAs((flags & KEEPTTL) != 0 ? new byte[][] {SET, key, value, KEEPTTL_ARG} : new byte[][] {SET, key, value});
        }
        ctx.notify(KeyspaceEvents.STRING, "set", key);
        if (expire != null) ctx.notify(KeyspaceEvents.GENERIC, "expire", key);
        return old != null ? old : ok;
    }

    static Reply getset(CommandContext ctx, byte[][] argv) {
        Object v = ctx.read(argv[1]);
        Reply old = v == null ? Reply.NULL : Reply.bulk(StringValues.bytes(v));
        StringValues.put(ctx.db(argv[1]), argv[1], argv[2], 0, ctx.now());
        ctx.notify(KeyspaceEvents.STRING, "set", argv[1]);
        return old;
    }

    /** Valkey 9.0's DELIFEQ: deletes the key when it holds a string equal to the argument; journalled as DEL. */
    static Reply delifeq(CommandContext ctx, byte[][] argv) {
        Object v = ctx.readForWrite(argv[1]);
        if (v == null) return Reply.ZERO;
        if (!StringValues.isString(v)) throw Errors.wrongType();
        if (!Arrays.equals(StringValues.bytes(v), argv[2])) return Reply.ZERO;
        ctx.db(argv[1]).remove(argv[1]);
        ctx.propagateAs(new byte[][] {DEL, argv[1]});
        ctx.notify(KeyspaceEvents.GENERIC, "del", argv[1]);
        return Reply.ONE;
    }

    static Reply getdel(CommandContext ctx, byte[][] argv) {
        Object v = ctx.read(argv[1]);
        if (v == null) return Reply.NULL;
        Reply r = Reply.bulk(StringValues.bytes(v));
        ctx.db(argv[1]).remove(argv[1]);
        ctx.propagateAs(new byte[][] {DEL, argv[1]}); // as Redis's getdelCommand
        ctx.notify(KeyspaceEvents.GENERIC, "del", argv[1]);
        return r;
    }

    static Reply getex(CommandContext ctx, byte[][] argv) {
        Options o = parseOptions(argv, 2, false);
        byte[] key = argv[1];
        Object v = ctx.read(key);
        if (v == null) return Reply.NULL;
        Reply r = Reply.bulk(StringValues.bytes(v));
        long when = o.expire == null ? 0 : expireAt(ctx, o.expire, o.flags, "getex");
        Database db = ctx.db(key);
        if ((o.flags & (EXAT | PXAT)) != 0 && when <= ctx.now()) {
            db.remove(key);
            ctx.propagateAs(new byte[][] {DEL, key}); // as Redis's getexCommand
            ctx.notify(KeyspaceEvents.GENERIC, "del", key);
        } else if (o.expire != null) {
            db.setExpireAt(key, when);
            // As Redis: journalled as PEXPIREAT unless given as PXAT already (then its argv is deterministic).
            if ((o.flags & PXAT) == 0) ctx.propagateAs(new byte[][] {PEXPIREAT, key, Args.bytes(when)});
            ctx.notify(KeyspaceEvents.GENERIC, "expire", key);
        } else if ((o.flags & PERSIST) != 0) {
            if (db.persist(key)) {
                ctx.propagateAs(new byte[][] {PERSIST_CMD, key});
                ctx.notify(KeyspaceEvents.GENERIC, "persist", key);
            }
        }
        return r;
    }

    private record Options(int flags, byte[] expire, byte[] ifeq) {}

    /**
     * Redis's parseExtendedStringArgumentsOrReply for SET ({@code set} true) and GETEX, from {@code argv[from]}:
     * each option is accepted only when no conflicting one came before; anything else is a syntax error.
     */
    private static Options parseOptions(byte[][] argv, int from, boolean set) {
        int flags = 0;
        byte[] expire = null;
        byte[] ifeq = null;
        for (int j = from; j < argv.length; j++) {
            byte[] opt = argv[j];
            boolean next = j + 1 < argv.length;
            int expiryFlag = 0;
            if (Args.is(opt, "nx") && set && (flags & (XX | IFEQ)) == 0) {
                flags |= NX;
            } else if (Args.is(opt, "xx") && set && (flags & (NX | IFEQ)) == 0) {
                flags |= XX;
            } else if (Args.is(opt, "ifeq") && set && next && (flags & (NX | XX)) == 0) {
                flags |= IFEQ;
                ifeq = argv[++j];
            } else if (Args.is(opt, "get") && set) {
                flags |= GET;
            } else if (Args.is(opt, "keepttl") && set && (flags & (PERSIST | EX | PX | EXAT | PXAT)) == 0) {
                flags |= KEEPTTL;
            } else if (Args.is(opt, "persist") && !set && (flags & (EX | PX | EXAT | PXAT | KEEPTTL)) == 0) {
                flags |= PERSIST;
            } else if (Args.is(opt, "ex") && next && (flags & (KEEPTTL | PERSIST | PX | EXAT | PXAT)) == 0) {
                expiryFlag = EX;
            } else if (Args.is(opt, "px") && next && (flags & (KEEPTTL | PERSIST | EX | EXAT | PXAT)) == 0) {
                expiryFlag = PX;
            } else if (Args.is(opt, "exat") && next && (flags & (KEEPTTL | PERSIST | EX | PX | PXAT)) == 0) {
                expiryFlag = EXAT;
            } else if (Args.is(opt, "pxat") && next && (flags & (KEEPTTL | PERSIST | EX | PX | EXAT)) == 0) {
                expiryFlag = PXAT;
            } else {
                throw Errors.syntax();
            }
            if (expiryFlag != 0) {
                flags |= expiryFlag;
                expire = argv[++j];
            }
        }
        return new Options(flags, expire, ifeq);
    }

    /**
     * Redis's getExpireMillisecondsOrReply: the absolute expiry in unix ms for an EX/PX/EXAT/PXAT argument,
     * or {@code invalid expire time} for zero, negative or overflowing times.
     */
    private static long expireAt(CommandContext ctx, byte[] arg, int flags, String command) {
        long v = Args.parseLong(arg);
        boolean seconds = (flags & (EX | EXAT)) != 0;
        if (v <= 0 || (seconds && v > Long.MAX_VALUE / 1000)) throw Errors.invalidExpire(command);
        if (seconds) v *= 1000;
        if ((flags & (EX | PX)) != 0) v += ctx.now(); // wraps negative on overflow, as in Redis
        if (v <= 0) throw Errors.invalidExpire(command);
        return v;
    }

    // ------------------------------------------------------------------ multi-key

    static Reply mget(CommandContext ctx, byte[][] argv) {
        Reply[] out = new Reply[argv.length - 1];
        for (int i = 1; i < argv.length; i++) {
            Object v = ctx.read(argv[i]);
            out[i - 1] = StringValues.isString(v) ? Reply.bulk(StringValues.bytes(v)) : Reply.NULL;
        }
        return Reply.array(out);
    }

    static Reply mset(CommandContext ctx, byte[][] argv) {
        if (argv.length % 2 == 0) throw Errors.error(Errors.wrongArity("mset"));
        putAll(ctx, argv);
        return Reply.OK;
    }

    static Reply msetnx(CommandContext ctx, byte[][] argv) {
        if (argv.length % 2 == 0) throw Errors.error(Errors.wrongArity("msetnx"));
        for (int i = 1; i < argv.length; i += 2) {
            if (ctx.readForWrite(argv[i]) != null) return Reply.ZERO;
        }
        putAll(ctx, argv);
        return Reply.ONE;
    }

    private static void putAll(CommandContext ctx, byte[][] argv) {
        long now = ctx.now();
        for (int i = 1; i < argv.length; i += 2) {
            StringValues.put(ctx.db(argv[i]), argv[i], argv[i + 1], 0, now);
            ctx.notify(KeyspaceEvents.STRING, "set", argv[i]);
        }
    }

    // ------------------------------------------------------------------ APPEND, STRLEN, ranges

    static Reply append(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        byte[] add = argv[2];
        Object cur = ctx.readForWrite(key);
        if (cur == null) {
            StringValues.put(ctx.db(key), key, add, 0, ctx.now());
            ctx.notify(KeyspaceEvents.STRING, "append", key);
            return Reply.integer(add.length);
        }
        long oldLength = StringValues.length(cur);
        checkStringLength(ctx, oldLength, add.length);
        long length = oldLength + add.length;
        if (cur instanceof RawString r) {
            ctx.keepsNoArguments(); // copied into the string (decision 0028)
            r.append(add);
            ctx.modified(key);
        } else if (length > Database.INLINE_LIMIT) {
            // Long enough to be appended to again: a string that grows where it lies, with room (as Redis's sds).
            byte[] old = StringValues.bytes(cur);
            RawString r = RawString.copyOf(old);
            r.append(add);
            ctx.db(key).put(key, r, Database.KEEP_TTL, ctx.now());
        } else {
            byte[] old = StringValues.bytes(cur);
            byte[] out = Arrays.copyOf(old, (int) length);
            System.arraycopy(add, 0, out, old.length, add.length);
            ctx.db(key).putRaw(key, out, Database.KEEP_TTL, ctx.now()); // Redis leaves APPEND's result raw
        }
        ctx.notify(KeyspaceEvents.STRING, "append", key);
        return ctx.integerReply(length);
    }

    static Reply strlen(CommandContext ctx, byte[][] argv) {
        Object v = ctx.read(argv[1]);
        return v == null ? Reply.ZERO : Reply.integer(StringValues.length(v));
    }

    /** GETRANGE and SUBSTR. */
    static Reply getrange(CommandContext ctx, byte[][] argv) {
        long start = Args.parseLong(argv[2]);
        long end = Args.parseLong(argv[3]);
        Object v = ctx.read(argv[1]);
        if (v == null) return EMPTY_BULK;
        byte[] s = StringValues.array(v); // copied out below
        long len = StringValues.length(v);
        if (start < 0 && end < 0 && start > end) return EMPTY_BULK;
        if (start < 0) start += len;
        if (end < 0) end += len;
        if (start < 0) start = 0;
        if (end < 0) end = 0;
        if (end >= len) end = len - 1;
        if (start > end || len == 0) return EMPTY_BULK;
        return Reply.bulk(Arrays.copyOfRange(s, (int) start, (int) end + 1));
    }

    static Reply setrange(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        long offset = Args.parseLong(argv[2]);
        byte[] value = argv[3];
        if (offset < 0) throw Errors.error(Errors.OFFSET_OUT_OF_RANGE);
        Object cur = ctx.readForWrite(key);
        if (cur == null) {
            if (value.length == 0) return Reply.ZERO;
            checkStringLength(ctx, offset, value.length);
            byte[] out = new byte[(int) offset + value.length];
            System.arraycopy(value, 0, out, (int) offset, value.length);
            StringValues.putWritten(ctx.db(key), key, out, 0, ctx.now());
            ctx.notify(KeyspaceEvents.STRING, "setrange", key);
            return Reply.integer(out.length);
        }
        long oldLength = StringValues.length(cur);
        if (value.length == 0) return Reply.integer(oldLength);
        checkStringLength(ctx, offset, value.length);
        long length = Math.max(oldLength, offset + value.length);
        if (cur instanceof RawString r) {
            ctx.keepsNoArguments(); // copied into the string (decision 0028)
            r.write(offset, value);
            ctx.modified(key);
        } else {
            byte[] out = Arrays.copyOf(StringValues.bytes(cur), (int) length);
            System.arraycopy(value, 0, out, (int) offset, value.length);
            StringValues.putWritten(ctx.db(key), key, out, Database.KEEP_TTL, ctx.now());
        }
        ctx.notify(KeyspaceEvents.STRING, "setrange", key);
        return ctx.integerReply(length);
    }

    /** Redis's checkStringLength: a string of {@code size + append} bytes must fit proto-max-bulk-len. */
    private static void checkStringLength(CommandContext ctx, long size, long append) {
        long total = size + append;
        if (total > ctx.server().config().getLong("proto-max-bulk-len") || total < size || total > MAX_ARRAY) {
            throw Errors.error(Errors.STRING_TOO_LONG);
        }
    }

    // ------------------------------------------------------------------ counters

    static Reply incr(CommandContext ctx, byte[][] argv) {
        return incrDecr(ctx, argv[1], 1);
    }

    static Reply decr(CommandContext ctx, byte[][] argv) {
        return incrDecr(ctx, argv[1], -1);
    }

    static Reply incrby(CommandContext ctx, byte[][] argv) {
        return incrDecr(ctx, argv[1], Args.parseLong(argv[2]));
    }

    static Reply decrby(CommandContext ctx, byte[][] argv) {
        long by = Args.parseLong(argv[2]);
        if (by == Long.MIN_VALUE) throw Errors.error(Errors.DECREMENT_OVERFLOW);
        return incrDecr(ctx, argv[1], -by);
    }

    private static Reply incrDecr(CommandContext ctx, byte[] key, long incr) {
        ctx.keepsNoArguments(); // the store copies the key; the value is a number (decision 0028)
        Database db = ctx.db(key);
        Object cur = ctx.readIntegerForWrite(key);
        long value = 0;
        if (cur == Database.INTEGER) {
            value = db.integerRead(); // read from the entry's text, not boxed (decision 0029)
        } else if (cur != null) {
            Long l = StringValues.longOrNull(cur);
            if (l == null) throw Errors.notInteger();
            value = l;
        }
        if ((incr < 0 && value < 0 && incr < Long.MIN_VALUE - value)
                || (incr > 0 && value > 0 && incr > Long.MAX_VALUE - value)) {
            throw Errors.error(Errors.OVERFLOW);
        }
        value += incr;
        db.putInteger(key, value, Database.KEEP_TTL, ctx.now()); // rewritten in place when its text keeps its length
        ctx.notify(KeyspaceEvents.STRING, "incrby", key);
        return ctx.integerReply(value);
    }

    static Reply incrbyfloat(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        Object cur = ctx.readForWrite(key);
        LongDouble value = LongDouble.ZERO;
        if (cur instanceof Long l) {
            value = LongDouble.of(l);
        } else if (cur != null) {
            value = LongDouble.parse(StringValues.bytes(cur));
            if (value == null) throw Errors.notFloat();
        }
        LongDouble incr = LongDouble.parse(argv[2]);
        if (incr == null) throw Errors.notFloat();
        LongDouble sum = value.add(incr);
        if (sum == null || sum.isInfinite()) throw Errors.error(Errors.INCR_NAN_OR_INF);
        byte[] text = sum.toHumanString().getBytes(StandardCharsets.US_ASCII);
        ctx.db(key).put(key, text, Database.KEEP_TTL, ctx.now()); // a string, never int-encoded, as in Redis
        ctx.propagateAs(new byte[][] {SET, key, text, KEEPTTL_ARG}); // as Redis: float formatting is not replayed
        ctx.notify(KeyspaceEvents.STRING, "incrbyfloat", key);
        return Reply.bulk(text);
    }

    // ------------------------------------------------------------------ LCS

    static Reply lcs(CommandContext ctx, byte[][] argv) {
        Object va = ctx.read(argv[1]);
        Object vb = ctx.read(argv[2]);
        if ((va != null && !StringValues.isString(va)) || (vb != null && !StringValues.isString(vb))) {
            throw Errors.error(Errors.LCS_NOT_STRINGS);
        }
        byte[] a = va == null ? new byte[0] : StringValues.bytes(va);
        byte[] b = vb == null ? new byte[0] : StringValues.bytes(vb);
        boolean getLen = false;
        boolean getIdx = false;
        boolean withMatchLen = false;
        long minMatchLen = 0;
        for (int j = 3; j < argv.length; j++) {
            byte[] opt = argv[j];
            boolean more = j + 1 < argv.length;
            if (Args.is(opt, "idx")) {
                getIdx = true;
            } else if (Args.is(opt, "len")) {
                getLen = true;
            } else if (Args.is(opt, "withmatchlen")) {
                withMatchLen = true;
            } else if (Args.is(opt, "minmatchlen") && more) {
                minMatchLen = Math.max(0, Args.parseLong(argv[++j]));
            } else {
                throw Errors.syntax();
            }
        }
        if (getIdx && getLen) throw Errors.error(Errors.LCS_IDX_AND_LEN);

        int alen = a.length;
        int blen = b.length;
        int width = blen + 1;
        long cells = (long) (alen + 1) * width;
        if (cells * 4 > ctx.server().config().getLong("proto-max-bulk-len")) {
            throw Errors.error(Errors.LCS_EXCEEDS_BULK_LEN);
        }
        int[] lcs;
        try {
            if (cells > MAX_ARRAY) throw new OutOfMemoryError();
            lcs = new int[(int) cells];
        } catch (OutOfMemoryError e) {
            throw Errors.error(Errors.LCS_ALLOC_FAILED);
        }
        // lcs[i * width + j] = length of the LCS of a[0..i) and b[0..j); row and column 0 stay zero.
        for (int i = 1; i <= alen; i++) {
            int row = i * width;
            int prev = row - width;
            byte ai = a[i - 1];
            for (int j = 1; j <= blen; j++) {
                if (ai == b[j - 1]) {
                    lcs[row + j] = lcs[prev + j - 1] + 1;
                } else {
                    int up = lcs[prev + j];
                    int left = lcs[row + j - 1];
                    lcs[row + j] = Math.max(up, left);
                }
            }
        }
        int total = lcs[alen * width + blen];
        boolean compute = getIdx || !getLen;
        if (!compute) return Reply.integer(total);

        // Walk back from the end, as Redis does, collecting the string and the matching ranges.
        byte[] result = new byte[total];
        List<Reply> matches = new ArrayList<>();
        int idx = total;
        int aStart = alen; // alen means "no range open"
        int aEnd = 0;
        int bStart = 0;
        int bEnd = 0;
        int i = alen;
        int j = blen;
        while (i > 0 && j > 0) {
            boolean emit = false;
            if (a[i - 1] == b[j - 1]) {
                result[idx - 1] = a[i - 1];
                if (aStart == alen) {
                    aStart = i - 1;
                    aEnd = i - 1;
                    bStart = j - 1;
                    bEnd = j - 1;
                } else if (aStart == i && bStart == j) {
                    aStart--;
                    bStart--;
                } else {
                    emit = true;
                }
                if (aStart == 0 || bStart == 0) emit = true;
                idx--;
                i--;
                j--;
            } else {
                int up = lcs[(i - 1) * width + j];
                int left = lcs[i * width + j - 1];
                if (up > left) i--;
                else j--;
                if (aStart != alen) emit = true;
            }
            if (emit) {
                long matchLen = (long) aEnd - aStart + 1;
                if (getIdx && (minMatchLen == 0 || matchLen >= minMatchLen)) {
                    Reply ra = Reply.array(Reply.integer(aStart), Reply.integer(aEnd));
                    Reply rb = Reply.array(Reply.integer(bStart), Reply.integer(bEnd));
                    matches.add(withMatchLen ? Reply.array(ra, rb, Reply.integer(matchLen)) : Reply.array(ra, rb));
                }
                aStart = alen;
            }
        }
        if (getIdx) {
            return Reply.map(MATCHES, Reply.array(matches), LEN, Reply.integer(total));
        }
        return Reply.bulk(result);
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        GET,
        SET,
        SETNX,
        SETEX,
        PSETEX,
        GETSET,
        DELIFEQ,
        GETDEL,
        GETEX,
        MGET,
        MSET,
        MSETNX,
        APPEND,
        STRLEN,
        INCR,
        DECR,
        INCRBY,
        DECRBY,
        INCRBYFLOAT,
        GETRANGE,
        SETRANGE,
        LCS;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case GET -> get(ctx, argv);
                case SET -> set(ctx, argv);
                case SETNX -> setnx(ctx, argv);
                case SETEX -> setex(ctx, argv);
                case PSETEX -> psetex(ctx, argv);
                case GETSET -> getset(ctx, argv);
                case DELIFEQ -> delifeq(ctx, argv);
                case GETDEL -> getdel(ctx, argv);
                case GETEX -> getex(ctx, argv);
                case MGET -> mget(ctx, argv);
                case MSET -> mset(ctx, argv);
                case MSETNX -> msetnx(ctx, argv);
                case APPEND -> append(ctx, argv);
                case STRLEN -> strlen(ctx, argv);
                case INCR -> incr(ctx, argv);
                case DECR -> decr(ctx, argv);
                case INCRBY -> incrby(ctx, argv);
                case DECRBY -> decrby(ctx, argv);
                case INCRBYFLOAT -> incrbyfloat(ctx, argv);
                case GETRANGE -> getrange(ctx, argv);
                case SETRANGE -> setrange(ctx, argv);
                case LCS -> lcs(ctx, argv);
            };
        }
    }
}
