package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandException;
import io.tide.command.CommandHandler;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.store.EncodingLimits;
import io.tide.store.StreamGroup;
import io.tide.store.StreamId;
import io.tide.store.StreamValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Thread-safe (stateless): the stream commands of Redis's {@code t_stream.c} as Redis 7.0 has them (XADD, XLEN,
 * XRANGE, XREVRANGE, XDEL, XTRIM, XREAD, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, XSETID, XGROUP, XINFO),
 * plus XREAD's {@code +} ID from 7.4. Handlers parse and check arguments in Redis's order, leave the stream
 * logic to {@link StreamValue}, and build the replies. XREAD and XREADGROUP find their keys after STREAMS
 * ({@link #readKeys}) and block through {@link CommandContext#block}: the retry argv carries {@code $} resolved
 * to IDs and its BLOCK option marked (by identity) as a retry, so a retry can answer what Redis answers a
 * client whose stream or group went away while it waited.
 */
public final class StreamCommands {

    /** The BLOCK option of a retry argv; its argument is then the absolute deadline (unix ms, 0 = none). */
    private static final byte[] RETRY_BLOCK = "BLOCK".getBytes(StandardCharsets.US_ASCII);
    /** Redis's XAUTOCLAIM COUNT ceiling: LONG_MAX / max(sizeof(streamID), attempts factor). */
    private static final long AUTOCLAIM_MAX_COUNT = Long.MAX_VALUE / 16;

    // Journalled forms (Redis's shared.xclaim, shared.time, ...).
    private static final byte[] XCLAIM = Args.bytes("XCLAIM");
    private static final byte[] TIME = Args.bytes("TIME");
    private static final byte[] RETRYCOUNT = Args.bytes("RETRYCOUNT");
    private static final byte[] FORCE = Args.bytes("FORCE");
    private static final byte[] JUSTID = Args.bytes("JUSTID");
    private static final byte[] LASTID = Args.bytes("LASTID");
    private static final byte[] XGROUP = Args.bytes("XGROUP");
    private static final byte[] SETID = Args.bytes("SETID");
    private static final byte[] ENTRIESREAD = Args.bytes("ENTRIESREAD");
    private static final byte[] CREATECONSUMER = Args.bytes("CREATECONSUMER");

    private StreamCommands() {}

    public static void register(CommandTable t) {
        t.group("stream");
        t.add("xadd", -5, "write denyoom fast", 1, 1, 1, "@stream", "5.0.0",
                "Appends a new entry to a stream", Handler.XADD);
        t.add("xlen", 2, "readonly fast", 1, 1, 1, "@stream", "5.0.0",
                "Return the number of entries in a stream", Handler.XLEN);
        t.add("xrange", -4, "readonly", 1, 1, 1, "@stream", "5.0.0",
                "Return a range of elements in a stream, with IDs matching the specified IDs interval",
                Handler.XRANGE);
        t.add("xrevrange", -4, "readonly", 1, 1, 1, "@stream", "5.0.0",
                "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse "
                        + "order (from greater to smaller IDs) compared to XRANGE",
                Handler.XREVRANGE);
        t.add("xdel", -3, "write fast", 1, 1, 1, "@stream", "5.0.0",
                "Removes the specified entries from the stream. Returns the number of items actually deleted, that "
                        + "may be different from the number of IDs passed in case certain IDs do not exist.",
                Handler.XDEL);
        t.add("xtrim", -4, "write", 1, 1, 1, "@stream", "5.0.0",
                "Trims the stream to (approximately if '~' is passed) a certain size", Handler.XTRIM);
        t.add("xread", -4, "readonly blocking", 0, 0, 0, "@stream", "5.0.0",
                "Return never seen elements in multiple streams, with IDs greater than the ones reported by the "
                        + "caller for each stream. Can block.",
                Handler.XREAD).keysBy(StreamCommands::readKeys);
        t.add("xreadgroup", -7, "write blocking", 0, 0, 0, "@stream", "5.0.0",
                "Return new entries from a stream using a consumer group, or access the history of the pending "
                        + "entries for a given consumer. Can block.",
                Handler.XREADGROUP).keysBy(StreamCommands::readKeys);
        t.add("xack", -4, "write fast", 1, 1, 1, "@stream", "5.0.0",
                "Marks a pending message as correctly processed, effectively removing it from the pending entries "
                        + "list of the consumer group. Return value of the command is the number of messages "
                        + "successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.",
                Handler.XACK);
        t.add("xpending", -3, "readonly", 1, 1, 1, "@stream", "5.0.0",
                "Return information and entries from a stream consumer group pending entries list, that are "
                        + "messages fetched but never acknowledged.",
                Handler.XPENDING);
        t.add("xclaim", -6, "write fast", 1, 1, 1, "@stream", "5.0.0",
                "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered "
                        + "to the specified consumer.",
                Handler.XCLAIM);
        t.add("xautoclaim", -6, "write fast", 1, 1, 1, "@stream", "6.2.0",
                "Changes (or acquires) ownership of messages in a consumer group, as if the messages were "
                        + "delivered to the specified consumer.",
                Handler.XAUTOCLAIM);
        t.add("xsetid", -3, "write denyoom fast", 1, 1, 1, "@stream", "5.0.0",
                "An internal command for replicating stream values", Handler.XSETID);

        var xgroup = t.container("xgroup", -2, "", "", "5.0.0", "A container for consumer groups commands");
        xgroup.sub("create", -5, "write denyoom", 2, 2, 1, "@stream", "5.0.0",
                "Create a consumer group.", Handler.XGROUP);
        xgroup.sub("setid", -5, "write", 2, 2, 1, "@stream", "5.0.0",
                "Set a consumer group to an arbitrary last delivered ID value.", Handler.XGROUP);
        xgroup.sub("destroy", 4, "write", 2, 2, 1, "@stream", "5.0.0",
                "Destroy a consumer group.", Handler.XGROUP);
        xgroup.sub("createconsumer", 5, "write denyoom", 2, 2, 1, "@stream", "6.2.0",
                "Create a consumer in a consumer group.", Handler.XGROUP);
        xgroup.sub("delconsumer", 5, "write", 2, 2, 1, "@stream", "5.0.0",
                "Delete a consumer from a consumer group.", Handler.XGROUP);
        xgroup.sub("help", 2, "loading stale", 0, 0, 0, "@stream", "5.0.0",
                "Show helpful text about the different subcommands", Handler.XGROUP_HELP);

        var xinfo = t.container("xinfo", -2, "", "", "5.0.0", "A container for stream introspection commands");
        xinfo.sub("stream", -3, "readonly", 2, 2, 1, "@stream", "5.0.0",
                "Get information about a stream", Handler.XINFO);
        xinfo.sub("groups", 3, "readonly", 2, 2, 1, "@stream", "5.0.0",
                "List the consumer groups of a stream", Handler.XINFO);
        xinfo.sub("consumers", 4, "readonly", 2, 2, 1, "@stream", "5.0.0",
                "List the consumers in a consumer group", Handler.XINFO);
        xinfo.sub("help", 2, "loading stale", 0, 0, 0, "@stream", "5.0.0",
                "Show helpful text about the different subcommands", Handler.XINFO_HELP);
    }

    // ------------------------------------------------------------------ argument helpers

    /** The stream at a key, or null; WRONGTYPE for another type. */
    private static StreamValue stream(Object v) {
        if (v == null) return null;
        if (v instanceof StreamValue s) return s;
        throw Errors.wrongType();
    }

    /** The argument as a C string: up to its first NUL byte, as Redis's string functions see it. */
    private static byte[] cstr(byte[] arg) {
        for (int i = 0; i < arg.length; i++) {
            if (arg[i] == 0) return Arrays.copyOf(arg, i);
        }
        return arg;
    }

    /** Redis's {@code strcasecmp(arg, word) == 0} ({@code word} in lower case). */
    private static boolean opt(byte[] arg, String word) {
        return Args.is(cstr(arg), word);
    }

    /** Redis's {@code strcmp(arg, symbol) == 0}. */
    private static boolean symbol(byte[] arg, char c) {
        byte[] s = cstr(arg);
        return s.length == 1 && s[0] == c;
    }

    /** A key or name for an error line, as Redis's {@code %s} prints it. */
    private static String text(byte[] arg) {
        return Errors.printable(cstr(arg));
    }

    /** A 64-bit integer with a custom error line for any failure. */
    private static long parseLong(byte[] arg, String errorLine) {
        Long v = Args.parseLongOrNull(arg);
        if (v == null) throw Errors.error(errorLine);
        return v;
    }

    /** A parsed ID and whether its sequence was given (false for {@code <ms>-*}). */
    private record ParsedId(StreamId id, boolean seqGiven) {}

    /**
     * Redis's streamGenericParseIDOrReply: {@code <ms>-<seq>}, {@code <ms>} (sequence {@code missingSeq}),
     * {@code -} and {@code +} unless {@code strict}, and {@code <ms>-*} when {@code seqWildcard}.
     */
    private static ParsedId parseIdFull(byte[] arg, long missingSeq, boolean strict, boolean seqWildcard) {
        if (arg.length > 127) throw Errors.error(Errors.STREAM_INVALID_ID);
        byte[] s = cstr(arg);
        if (s.length == 1 && (s[0] == '-' || s[0] == '+')) {
            if (strict) throw Errors.error(Errors.STREAM_INVALID_ID);
            return new ParsedId(s[0] == '-' ? StreamId.ZERO : StreamId.MAX, true);
        }
        int dash = -1;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == '-') {
                dash = i;
                break;
            }
        }
        long[] out = new long[1];
        if (!string2ull(s, 0, dash < 0 ? s.length : dash, out)) throw Errors.error(Errors.STREAM_INVALID_ID);
        long ms = out[0];
        if (dash < 0) return new ParsedId(new StreamId(ms, missingSeq), true);
        if (seqWildcard && s.length - dash - 1 == 1 && s[dash + 1] == '*') {
            return new ParsedId(new StreamId(ms, 0), false);
        }
        if (!string2ull(s, dash + 1, s.length, out)) throw Errors.error(Errors.STREAM_INVALID_ID);
        return new ParsedId(new StreamId(ms, out[0]), true);
    }

    private static StreamId parseId(byte[] arg, long missingSeq, boolean strict) {
        return parseIdFull(arg, missingSeq, strict, false).id();
    }

    /** An interval bound of XRANGE/XPENDING/XAUTOCLAIM: an ID, or {@code (ID} for an exclusive one (strict). */
    private static StreamId parseBound(byte[] arg, long missingSeq, boolean start) {
        if (arg.length > 1 && arg[0] == '(') {
            StreamId id = parseId(Arrays.copyOfRange(arg, 1, arg.length), missingSeq, true);
            StreamId moved = start ? id.next() : id.prev();
            if (moved == null) throw Errors.error(start ? Errors.STREAM_INVALID_START : Errors.STREAM_INVALID_END);
            return moved;
        }
        return parseId(arg, missingSeq, false);
    }

    /**
     * Redis's string2ull on {@code s[from, to)}: a canonical non-negative 64-bit integer, or what strtoull accepts
     * in base 10 (leading blanks, a sign, digits; a minus negates modulo 2^64), up to 2^64-1.
     */
    private static boolean string2ull(byte[] s, int from, int to, long[] out) {
        byte[] part = Arrays.copyOfRange(s, from, to);
        Long ll = Args.parseLongOrNull(part);
        if (ll != null) {
            if (ll < 0) return false;
            out[0] = ll;
            return true;
        }
        int i = 0;
        int n = part.length;
        if (n == 0) return false;
        while (i < n && (part[i] == ' ' || (part[i] >= '\t' && part[i] <= '\r'))) i++;
        boolean neg = false;
        if (i < n && (part[i] == '+' || part[i] == '-')) {
            neg = part[i] == '-';
            i++;
        }
        int digits = i;
        long v = 0;
        for (; i < n && part[i] >= '0' && part[i] <= '9'; i++) {
            int d = part[i] - '0';
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0) return false; // ERANGE
            v = v * 10 + d;
        }
        if (i == digits || i != n) return false;
        out[0] = neg ? -v : v;
        return true;
    }

    private static Reply id(StreamId id) {
        return Reply.bulk(id.toBytes());
    }

    /** An entry as Redis replies it: {@code [id, [field, value, ...]]}, or {@code [id, nil]} for a deleted one. */
    private static Reply entry(StreamValue.Entry e) {
        byte[][] fv = e.fieldsAndValues();
        if (fv == null) return Reply.array(id(e.id()), Reply.NULL_ARRAY);
        Reply[] items = new Reply[fv.length];
        for (int i = 0; i < fv.length; i++) items[i] = Reply.bulk(fv[i]);
        return Reply.array(id(e.id()), Reply.array(items));
    }

    private static Reply entries(List<StreamValue.Entry> list) {
        Reply[] out = new Reply[list.size()];
        for (int i = 0; i < out.length; i++) out[i] = entry(list.get(i));
        return Reply.array(out);
    }

    private static Reply ids(List<StreamValue.Entry> list) {
        Reply[] out = new Reply[list.size()];
        for (int i = 0; i < out.length; i++) out[i] = id(list.get(i).id());
        return Reply.array(out);
    }


    // ------------------------------------------------------------------ XADD / XTRIM

    /** XADD's and XTRIM's options (Redis's streamAddTrimArgs). */
    private static final class AddTrim {
        int strategy;
        boolean approx;
        long maxlen;
        StreamId minId;
        long limit;
        boolean noMkStream;
        ParsedId id;
        /** Index of XADD's ID argument. */
        int idPos;
        /** Indexes of the {@code ~}, of the threshold and of the LIMIT word (-1 when absent). */
        int approxPos = -1;
        int thresholdPos = -1;
        int limitPos = -1;
    }

    /**
     * The journalled argv of an XADD or XTRIM that trimmed approximately (Redis's streamRewriteApproxSpecifier and
     * streamRewriteTrimArgument): {@code ~} becomes {@code =} and the threshold the exact result (MAXLEN the
     * length left, MINID the first id left, or MAXLEN 0 when none is left), so a replay trims exactly the same
     * entries. LIMIT goes too (Redis keeps it and ignores it from a master or the AOF, but an ordinary client may
     * not send LIMIT with {@code =}). Returns {@code argv} itself when there was no approximate trim.
     */
    private static byte[][] exactTrim(byte[][] argv, AddTrim a, StreamValue s) {
        if (!a.approx) return argv;
        List<byte[]> out = new ArrayList<>(argv.length);
        for (int i = 0; i < argv.length; i++) {
            if (i == a.limitPos) {
                i++;
                continue;
            }
            if (i == a.approxPos) {
                out.add(Args.bytes("="));
            } else if (i == a.thresholdPos) {
                if (a.strategy == StreamValue.TRIM_MINID && s.length() == 0) {
                    out.set(a.approxPos - 1, Args.bytes("MAXLEN"));
                    out.add(Args.bytes(0));
                } else {
                    out.add(a.strategy == StreamValue.TRIM_MAXLEN ? Args.bytes(s.length()) : s.firstId().toBytes());
                }
            } else {
                out.add(argv[i]);
            }
        }
        return out.toArray(new byte[0][]);
    }

    /**
     * The head of MAXLEN or MINID at {@code argv[i]}, {@code moreargs} arguments after it: refuses a second
     * strategy, takes an optional {@code ~} (approximate) or {@code =}; returns the index of the threshold.
     */
    private static int trimThreshold(AddTrim a, byte[][] argv, int i, int moreargs) {
        if (a.strategy != 0) throw Errors.error(Errors.STREAM_MAXLEN_AND_MINID);
        a.approx = moreargs >= 2 && symbol(argv[i + 1], '~');
        if (a.approx) a.approxPos = i + 1;
        a.thresholdPos = a.approx || (moreargs >= 2 && symbol(argv[i + 1], '=')) ? i + 2 : i + 1;
        return a.thresholdPos;
    }

    /** Redis's streamParseAddOrTrimArgsOrReply. */
    private static AddTrim parseAddTrim(CommandContext ctx, byte[][] argv, boolean xadd) {
        AddTrim a = new AddTrim();
        boolean limitGiven = false;
        int i = 2;
        for (; i < argv.length; i++) {
            int moreargs = argv.length - 1 - i;
            byte[] o = argv[i];
            if (xadd && symbol(o, '*')) {
                break;
            } else if (opt(o, "maxlen") && moreargs > 0) {
                i = trimThreshold(a, argv, i, moreargs);
                a.maxlen = Args.parseLong(argv[i]);
                if (a.maxlen < 0) throw Errors.error(Errors.STREAM_MAXLEN_NEGATIVE);
                a.strategy = StreamValue.TRIM_MAXLEN;
            } else if (opt(o, "minid") && moreargs > 0) {
                i = trimThreshold(a, argv, i, moreargs);
                a.minId = parseId(argv[i], 0, true);
                a.strategy = StreamValue.TRIM_MINID;
            } else if (opt(o, "limit") && moreargs > 0) {
                a.limit = Args.parseLong(argv[i + 1]);
                if (a.limit < 0) throw Errors.error(Errors.STREAM_LIMIT_NEGATIVE);
                limitGiven = true;
                a.limitPos = i;
                i++;
            } else if (xadd && opt(o, "nomkstream")) {
                a.noMkStream = true;
            } else if (xadd) {
                a.id = parseIdFull(o, 0, true, true);
                break;
            } else {
                throw Errors.syntax();
            }
        }
        if (a.limit != 0 && a.strategy == 0) throw Errors.error(Errors.STREAM_LIMIT_WITHOUT_STRATEGY);
        if (!xadd && a.strategy == 0) throw Errors.error(Errors.STREAM_XTRIM_WITHOUT_STRATEGY);
        if (limitGiven) {
            if (!a.approx) throw Errors.error(Errors.STREAM_LIMIT_WITHOUT_APPROX);
        } else if (a.approx) {
            // At most 100 nodes of work, kept between 10000 and 1000000 entries as Redis does.
            long perNode = ctx.server().limits().streamNodeMaxEntries;
            long limit = perNode > Long.MAX_VALUE / 100 ? Long.MAX_VALUE : 100 * perNode;
            if (limit <= 0) limit = 10000;
            if (limit > 1000000) limit = 1000000;
            a.limit = limit;
        }
        a.idPos = i;
        return a;
    }

    static Reply xadd(CommandContext ctx, byte[][] argv) {
        AddTrim a = parseAddTrim(ctx, argv, true);
        int fieldPos = a.idPos + 1;
        int fieldArgs = argv.length - fieldPos;
        if (fieldArgs < 2 || fieldArgs % 2 == 1) throw Errors.error(Errors.wrongArity("xadd"));
        if (a.id != null && a.id.seqGiven() && a.id.id().isZero()) throw Errors.error(Errors.STREAM_ID_ZERO);
        byte[] key = argv[1];
        StreamValue s = stream(ctx.readForWrite(key));
        boolean created = s == null;
        if (created) {
            if (a.noMkStream) return Reply.NULL;
            s = new StreamValue();
        }
        if (s.lastId().equals(StreamId.MAX)) throw Errors.error(Errors.STREAM_EXHAUSTED);
        if (a.id != null && !a.id.seqGiven() && a.id.id().ms() == s.lastId().ms() && s.lastId().seq() == -1L) {
            // Redis 7.0 fails here without setting errno, so XADD reports the element-size error.
            throw Errors.error(Errors.STREAM_ELEMENTS_TOO_LARGE);
        }
        long total = 0;
        for (int i = fieldPos; i < argv.length; i++) total += argv[i].length;
        if (total > (1L << 30)) throw Errors.error(Errors.STREAM_ELEMENTS_TOO_LARGE);
        EncodingLimits limits = ctx.server().limits();
        StreamId added = s.add(a.id == null ? null : a.id.id(), a.id == null || a.id.seqGiven(), ctx.now(), argv,
                fieldPos, fieldArgs / 2, limits.streamNodeMaxBytes, limits.streamNodeMaxEntries);
        if (added == null) throw Errors.error(Errors.STREAM_ID_NOT_GREATER);
        long trimmed = a.strategy != 0 ? s.trim(a.strategy, a.maxlen, a.minId, a.approx, a.limit) : 0;
        if (created) {
            ctx.db(key).put(key, s, 0, ctx.now());
        } else {
            ctx.modified(key);
        }
        ctx.notify(KeyspaceEvents.STREAM, "xadd", key);
        if (trimmed > 0) ctx.notify(KeyspaceEvents.STREAM, "xtrim", key);
        if (ctx.journalling()) { // as Redis: the id the server chose is journalled, not "*", and trims exact
            byte[][] journalled = argv.clone();
            journalled[fieldPos - 1] = added.toBytes();
            ctx.propagateAs(exactTrim(journalled, a, s));
        }
        return id(added);
    }

    static Reply xtrim(CommandContext ctx, byte[][] argv) {
        AddTrim a = parseAddTrim(ctx, argv, false);
        byte[] key = argv[1];
        StreamValue s = stream(ctx.readForWrite(key));
        if (s == null) return Reply.ZERO;
        long deleted = s.trim(a.strategy, a.maxlen, a.minId, a.approx, a.limit);
        if (deleted > 0) ctx.notify(KeyspaceEvents.STREAM, "xtrim", key);
        if (deleted > 0) ctx.modified(key);
        if (deleted > 0 && ctx.journalling()) ctx.propagateAs(exactTrim(argv, a, s));
        return Reply.integer(deleted);
    }

    // ------------------------------------------------------------------ XLEN, XRANGE, XDEL

    static Reply xlen(CommandContext ctx, byte[][] argv) {
        StreamValue s = stream(ctx.read(argv[1]));
        return s == null ? Reply.ZERO : Reply.integer(s.length());
    }

    static Reply xrangeGeneric(CommandContext ctx, byte[][] argv, boolean rev) {
        StreamId start = parseBound(rev ? argv[3] : argv[2], 0, true);
        StreamId end = parseBound(rev ? argv[2] : argv[3], -1L, false);
        long count = -1;
        for (int j = 4; j < argv.length; j++) {
            if (opt(argv[j], "count") && argv.length - j - 1 >= 1) {
                count = Args.parseLong(argv[j + 1]);
                if (count < 0) count = 0;
                j++;
            } else {
                throw Errors.syntax();
            }
        }
        StreamValue s = stream(ctx.read(argv[1]));
        if (s == null) return Reply.EMPTY_ARRAY;
        if (count == 0) return Reply.NULL_ARRAY;
        return entries(s.range(start, end, count == -1 ? 0 : count, rev));
    }

    static Reply xdel(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        StreamValue s = stream(ctx.readForWrite(key));
        if (s == null) return Reply.ZERO;
        StreamId[] ids = new StreamId[argv.length - 2];
        for (int j = 2; j < argv.length; j++) ids[j - 2] = parseId(argv[j], 0, true);
        long deleted = s.delete(ids);
        if (deleted > 0) ctx.notify(KeyspaceEvents.STREAM, "xdel", key);
        if (deleted > 0) ctx.modified(key);
        return Reply.integer(deleted);
    }

    // ------------------------------------------------------------------ XREAD / XREADGROUP

    /**
     * Redis's xreadGetKeys: the keys after the first STREAMS option, half the arguments that follow it; none
     * when the arguments are malformed.
     */
    static byte[][] readKeys(byte[][] argv) {
        int streamsPos = -1;
        for (int i = 1; i < argv.length; i++) {
            byte[] a = argv[i];
            if (opt(a, "block") || opt(a, "count")) {
                i++;
            } else if (opt(a, "group")) {
                i += 2;
            } else if (opt(a, "noack")) {
                continue;
            } else if (opt(a, "streams")) {
                streamsPos = i;
                break;
            } else {
                break;
            }
        }
        int num = argv.length - streamsPos - 1;
        if (streamsPos == -1 || num == 0 || num % 2 != 0) return new byte[0][];
        return Arrays.copyOfRange(argv, streamsPos + 1, streamsPos + 1 + num / 2);
    }

    /** XREAD and XREADGROUP (Redis's xreadCommand). */
    static Reply readGeneric(CommandContext ctx, byte[][] argv, boolean xreadgroup) {
        boolean block = false;
        boolean retry = false;
        int blockPos = -1;
        long deadline = 0;
        long count = 0;
        int streamsArg = 0;
        int streams = 0;
        boolean noack = false;
        byte[] groupName = null;
        byte[] consumerName = null;
        for (int i = 1; i < argv.length; i++) {
            int moreargs = argv.length - i - 1;
            byte[] o = argv[i];
            if (o == RETRY_BLOCK) {
                retry = true;
                block = true;
                blockPos = i++;
                deadline = Long.parseLong(new String(argv[i], StandardCharsets.US_ASCII));
            } else if (opt(o, "block") && moreargs > 0) {
                blockPos = i++;
                deadline = Args.timeoutMillis(argv[i], ctx.now());
                block = true;
            } else if (opt(o, "count") && moreargs > 0) {
                count = Args.parseLong(argv[++i]);
                if (count < 0) count = 0;
            } else if (opt(o, "streams") && moreargs > 0) {
                streamsArg = i + 1;
                streams = argv.length - streamsArg;
                if (streams % 2 != 0) throw Errors.error(Errors.STREAM_UNBALANCED);
                streams /= 2;
                break;
            } else if (opt(o, "group") && moreargs >= 2) {
                if (!xreadgroup) throw Errors.error(Errors.STREAM_GROUP_IN_XREAD);
                groupName = argv[i + 1];
                consumerName = argv[i + 2];
                i += 2;
            } else if (opt(o, "noack")) {
                if (!xreadgroup) throw Errors.error(Errors.STREAM_NOACK_IN_XREAD);
                noack = true;
            } else {
                throw Errors.syntax();
            }
        }
        if (streamsArg == 0) throw Errors.syntax();
        if (xreadgroup && groupName == null) throw Errors.error(Errors.STREAM_MISSING_GROUP);

        StreamId[] ids = new StreamId[streams];
        StreamGroup[] groups = xreadgroup ? new StreamGroup[streams] : null;
        boolean[] dollar = new boolean[streams];
        for (int k = 0; k < streams; k++) {
            byte[] key = argv[streamsArg + k];
            byte[] idArg = argv[streamsArg + streams + k];
            Object v = ctx.read(key);
            StreamValue s;
            if (retry && !(v instanceof StreamValue)) {
                // Redis answers a waiting XREADGROUP when its stream is gone; XREAD keeps waiting.
                if (xreadgroup) throw Errors.error(Errors.STREAM_KEY_GONE_WHILE_BLOCKED);
                s = null;
            } else {
                s = stream(v);
            }
            if (xreadgroup) {
                StreamGroup g = s == null ? null : s.group(groupName);
                if (g == null) {
                    throw Errors.error(retry ? Errors.STREAM_GROUP_GONE_WHILE_BLOCKED
                            : Errors.streamNoGroupForRead(text(key), text(groupName)));
                }
                groups[k] = g;
            }
            if (symbol(idArg, '$')) {
                if (xreadgroup) throw Errors.error(Errors.STREAM_DOLLAR_IN_GROUP);
                ids[k] = s != null ? s.lastId() : StreamId.ZERO;
                dollar[k] = true;
            } else if (symbol(idArg, '+')) {
                if (xreadgroup) throw Errors.error(Errors.STREAM_PLUS_IN_GROUP);
                ids[k] = s != null && s.length() > 0 ? s.lastValidId().prev() : StreamId.ZERO;
            } else if (symbol(idArg, '>')) {
                if (!xreadgroup) throw Errors.error(Errors.STREAM_GT_OUTSIDE_GROUP);
                ids[k] = StreamId.MAX;
            } else {
                ids[k] = parseId(idArg, 0, true);
            }
        }

        boolean resp3 = ctx.replyProtocol() == 3;
        List<Reply> served = new ArrayList<>();
        List<byte[][]> journalled = xreadgroup && ctx.journalling() ? new ArrayList<>() : null;
        for (int k = 0; k < streams; k++) {
            byte[] key = argv[streamsArg + k];
            if (!((xreadgroup ? ctx.readForWrite(key) : ctx.read(key)) instanceof StreamValue s)) continue;
            StreamId gt = ids[k];
            boolean serve = false;
            boolean history = false;
            if (xreadgroup) {
                if (!gt.equals(StreamId.MAX)) {
                    serve = true;
                    history = true;
                } else if (s.length() > 0 && s.lastValidId().compareTo(groups[k].lastId()) > 0) {
                    serve = true;
                    gt = groups[k].lastId();
                }
            } else if (s.length() > 0 && s.lastValidId().compareTo(gt) > 0) {
                serve = true;
            }
            if (!serve) continue;
            StreamId start = gt.next();
            Reply list;
            if (xreadgroup) {
                StreamGroup g = groups[k];
                boolean existed = g.consumer(consumerName) != null;
                StreamId lastBefore = g.lastId();
                long readBefore = g.entriesRead();
                StreamGroup.Consumer consumer = s.consumerSeen(g, consumerName.clone(), ctx.now());
                List<StreamValue.Entry> got = history
                        ? s.readHistory(consumer, start, count, ctx.now())
                        : s.readGroup(g, consumer, gt, count, noack, ctx.now());
                list = entries(got);
                ctx.modified(key);
                if (journalled != null) {
                    // As Redis's streamPropagateConsumerCreation, streamPropagateXCLAIM and streamPropagateGroupID.
                    // History reads count as deliveries too: unlike Redis, journalled, so replicas agree.
                    if (!existed) journalled.add(new byte[][] {XGROUP, CREATECONSUMER, key, g.name(), consumerName});
                    if (!noack || history) {
                        for (StreamValue.Entry e : got) {
                            if (e.fieldsAndValues() != null) {
                                journalled.add(xclaimOf(key, g, consumerName, e.id(), g.pending().get(e.id())));
                            }
                        }
                    }
                    if (!g.lastId().equals(lastBefore) || g.entriesRead() != readBefore) journalled.add(setIdOf(key, g));
                }
            } else {
                list = entries(s.range(start, StreamId.MAX, count, false));
            }
            if (resp3) {
                served.add(Reply.bulk(key));
                served.add(list);
            } else {
                served.add(Reply.array(Reply.bulk(key), list));
            }
        }
        if (journalled != null && !served.isEmpty()) ctx.propagateAs(journalled.toArray(new byte[0][][]));
        if (!served.isEmpty()) return resp3 ? Reply.map(served) : Reply.array(served);

        if (!block) return Reply.NULL_ARRAY;
        byte[][] keys = Arrays.copyOfRange(argv, streamsArg, streamsArg + streams);
        byte[][] again = argv;
        if (!retry) {
            again = argv.clone();
            again[blockPos] = RETRY_BLOCK;
            again[blockPos + 1] = Long.toString(deadline).getBytes(StandardCharsets.US_ASCII);
            for (int k = 0; k < streams; k++) {
                if (dollar[k]) again[streamsArg + streams + k] = ids[k].toBytes();
            }
        }
        return ctx.block(keys, deadline, Reply.NULL_ARRAY, again);
    }

    // ------------------------------------------------------------------ XGROUP / XSETID

    static Reply xgroup(CommandContext ctx, byte[][] argv) {
        String sub = Args.lower(argv[1]);
        boolean create = sub.equals("create");
        boolean setid = sub.equals("setid");
        boolean mkstream = false;
        long entriesRead = StreamGroup.INVALID_ENTRIES_READ;
        int i = 5;
        while (i < argv.length) {
            if (create && opt(argv[i], "mkstream")) {
                mkstream = true;
                i++;
            } else if ((create || setid) && opt(argv[i], "entriesread") && i + 1 < argv.length) {
                entriesRead = Args.parseLong(argv[i + 1]);
                if (entriesRead < 0 && entriesRead != StreamGroup.INVALID_ENTRIES_READ) {
                    throw Errors.error(Errors.STREAM_ENTRIESREAD_INVALID);
                }
                i += 2;
            } else {
                throw Errors.error(Errors.subcommandSyntax(Args.text(argv[1]), "xgroup"));
            }
        }
        byte[] key = argv[2];
        byte[] groupName = argv[3];
        StreamValue s = stream(ctx.readForWrite(key));
        StreamGroup g = null;
        if (!mkstream) {
            if (s == null) throw Errors.error(Errors.STREAM_XGROUP_NEEDS_KEY);
            g = s.group(groupName);
            if (g == null && !create && !sub.equals("destroy")) {
                throw Errors.error(Errors.streamNoGroupForKey(text(groupName), text(key)));
            }
        }
        int argc = argv.length;
        switch (sub) {
            case "create" -> {
                if (argc < 5 || argc > 8) break;
                StreamId id;
                if (symbol(argv[4], '$')) id = s != null ? s.lastId() : StreamId.ZERO;
                else id = parseId(argv[4], 0, true);
                boolean created = s == null;
                if (created) s = new StreamValue();
                if (s.createGroup(groupName.clone(), id, entriesRead) == null) {
                    throw Errors.error(Errors.STREAM_BUSYGROUP);
                }
                if (created) ctx.db(key).put(key, s, 0, ctx.now());
                else ctx.modified(key);
                ctx.notify(KeyspaceEvents.STREAM, "xgroup-create", key);
                return Reply.OK;
            }
            case "setid" -> {
                if (argc != 5 && argc != 7) break;
                StreamId id = symbol(argv[4], '$') ? s.lastId() : parseId(argv[4], 0, false);
                s.setGroupId(g, id, entriesRead);
                ctx.modified(key);
                ctx.notify(KeyspaceEvents.STREAM, "xgroup-setid", key);
                return Reply.OK;
            }
            case "destroy" -> {
                if (argc != 4) break;
                if (g == null) return Reply.ZERO;
                s.destroyGroup(groupName);
                ctx.notify(KeyspaceEvents.STREAM, "xgroup-destroy", key);
                ctx.modified(key); // waiting XREADGROUP clients of this group get NOGROUP
                return Reply.ONE;
            }
            case "createconsumer" -> {
                if (argc != 5) break;
                boolean made = s.createConsumer(g, argv[4].clone(), ctx.now()) != null;
                if (made) ctx.notify(KeyspaceEvents.STREAM, "xgroup-createconsumer", key);
                if (made) ctx.modified(key);
                return made ? Reply.ONE : Reply.ZERO;
            }
            case "delconsumer" -> {
                if (argc != 5) break;
                long pending = s.deleteConsumer(g, argv[4]);
                if (pending >= 0) ctx.notify(KeyspaceEvents.STREAM, "xgroup-delconsumer", key);
                if (pending >= 0) ctx.modified(key);
                return Reply.integer(Math.max(0, pending));
            }
            default -> { }
        }
        throw Errors.error(Errors.subcommandSyntax(Args.text(argv[1]), "xgroup"));
    }

    static Reply xgroupHelp(CommandContext ctx, byte[][] argv) {
        return Help.reply("XGROUP",
                "CREATE <key> <groupname> <id|$> [option]",
                "    Create a new consumer group. Options are:",
                "    * MKSTREAM",
                "      Create the empty stream if it does not exist.",
                "    * ENTRIESREAD entries_read",
                "      Set the group's entries_read counter (internal use).",
                "CREATECONSUMER <key> <groupname> <consumer>",
                "    Create a new consumer in the specified group.",
                "DELCONSUMER <key> <groupname> <consumer>",
                "    Remove the specified consumer.",
                "DESTROY <key> <groupname>",
                "    Remove the specified group.",
                "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
                "    Set the current group ID and entries_read counter.");
    }

    static Reply xsetid(CommandContext ctx, byte[][] argv) {
        StreamId id = parseId(argv[2], 0, true);
        long entriesAdded = -1;
        StreamId maxDeleted = StreamId.ZERO;
        for (int i = 3; i < argv.length; ) {
            int moreargs = argv.length - 1 - i;
            if (opt(argv[i], "entriesadded") && moreargs > 0) {
                entriesAdded = Args.parseLong(argv[i + 1]);
                if (entriesAdded < 0) throw Errors.error(Errors.STREAM_ENTRIES_ADDED_NEGATIVE);
                i += 2;
            } else if (opt(argv[i], "maxdeletedid") && moreargs > 0) {
                maxDeleted = parseId(argv[i + 1], 0, true);
                if (id.compareTo(maxDeleted) < 0) throw Errors.error(Errors.STREAM_XSETID_BELOW_MAX_DELETED);
                i += 2;
            } else {
                throw Errors.syntax();
            }
        }
        byte[] key = argv[1];
        Object v = ctx.readForWrite(key);
        if (v == null) throw Errors.error(Errors.NO_SUCH_KEY);
        StreamValue s = stream(v);
        if (s.length() > 0) {
            if (id.compareTo(s.lastValidId()) < 0) throw Errors.error(Errors.STREAM_XSETID_BELOW_TOP);
            if (entriesAdded != -1 && s.length() > entriesAdded) {
                throw Errors.error(Errors.STREAM_XSETID_ENTRIES_ADDED_BELOW_LENGTH);
            }
        }
        s.setId(id, entriesAdded, maxDeleted);
        ctx.modified(key);
        ctx.notify(KeyspaceEvents.STREAM, "xsetid", key);
        return Reply.OK;
    }

    // ------------------------------------------------------------------ XACK / XPENDING

    static Reply xack(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        StreamValue s = stream(ctx.readForWrite(key));
        StreamGroup g = s == null ? null : s.group(argv[2]);
        if (g == null) return Reply.ZERO;
        StreamId[] ids = new StreamId[argv.length - 3];
        for (int j = 3; j < argv.length; j++) ids[j - 3] = parseId(argv[j], 0, true);
        long acked = 0;
        for (StreamId id : ids) {
            if (s.ack(g, id)) acked++;
        }
        if (acked > 0) ctx.modified(key);
        return Reply.integer(acked);
    }

    static Reply xpending(CommandContext ctx, byte[][] argv) {
        int argc = argv.length;
        boolean summary = argc == 3;
        if (argc != 3 && (argc < 6 || argc > 9)) throw Errors.syntax();
        StreamId start = null;
        StreamId end = null;
        long count = 0;
        long minIdle = 0;
        byte[] consumerName = null;
        if (argc >= 6) {
            int startIdx = 3;
            if (opt(argv[3], "idle")) {
                minIdle = Args.parseLong(argv[4]);
                if (argc < 8) throw Errors.syntax();
                startIdx += 2;
            }
            count = Args.parseLong(argv[startIdx + 2]);
            if (count < 0) count = 0;
            start = parseBound(argv[startIdx], 0, true);
            end = parseBound(argv[startIdx + 1], -1L, false);
            if (startIdx + 3 < argc) consumerName = argv[startIdx + 3];
        }
        StreamValue s = stream(ctx.read(argv[1]));
        StreamGroup g = s == null ? null : s.group(argv[2]);
        if (g == null) throw Errors.error(Errors.streamNoGroup(text(argv[1]), text(argv[2])));

        if (summary) {
            if (g.pendingCount() == 0) {
                return Reply.array(Reply.ZERO, Reply.NULL, Reply.NULL, Reply.NULL_ARRAY);
            }
            List<Reply> owners = new ArrayList<>();
            for (StreamGroup.Consumer c : g.consumers()) {
                if (c.pendingCount() == 0) continue;
                owners.add(Reply.array(Reply.bulk(c.name()), Reply.bulk(Args.bytes(c.pendingCount()))));
            }
            return Reply.array(Reply.integer(g.pendingCount()), id(g.pending().firstKey()),
                    id(g.pending().lastKey()), Reply.array(owners));
        }
        var pel = g.pending();
        if (consumerName != null) {
            StreamGroup.Consumer c = g.consumer(consumerName);
            if (c == null) return Reply.EMPTY_ARRAY;
            pel = c.pending();
        }
        long now = ctx.now();
        List<Reply> out = new ArrayList<>();
        if (start.compareTo(end) <= 0) {
            for (Map.Entry<StreamId, StreamGroup.Pending> e : pel.tailMap(start, true).entrySet()) {
                if (count == 0 || e.getKey().compareTo(end) > 0) break;
                StreamGroup.Pending p = e.getValue();
                if (minIdle != 0 && now - p.deliveryTime() < minIdle) continue;
                count--;
                out.add(Reply.array(id(e.getKey()), Reply.bulk(p.consumer().name()),
                        Reply.integer(Math.max(0, now - p.deliveryTime())), Reply.integer(p.deliveryCount())));
            }
        }
        return Reply.array(out);
    }

    // ------------------------------------------------------------------ XCLAIM / XAUTOCLAIM

    static Reply xclaim(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        StreamValue s = stream(ctx.readForWrite(key));
        StreamGroup g = s == null ? null : s.group(argv[2]);
        if (g == null) throw Errors.error(Errors.streamNoGroup(text(key), text(argv[2])));
        long minIdle = parseLong(argv[4], Errors.STREAM_XCLAIM_MIN_IDLE);
        if (minIdle < 0) minIdle = 0;
        List<StreamId> ids = new ArrayList<>();
        int j = 5;
        for (; j < argv.length; j++) {
            StreamId id;
            try {
                id = parseId(argv[j], 0, true);
            } catch (CommandException notAnId) {
                break;
            }
            ids.add(id);
        }
        long now = ctx.now();
        long deliveryTime = -1;
        long retryCount = -1;
        boolean force = false;
        boolean justId = false;
        StreamId lastId = null;
        for (; j < argv.length; j++) {
            int moreargs = argv.length - 1 - j;
            byte[] o = argv[j];
            if (opt(o, "force")) {
                force = true;
            } else if (opt(o, "justid")) {
                justId = true;
            } else if (opt(o, "idle") && moreargs > 0) {
                deliveryTime = now - parseLong(argv[++j], Errors.STREAM_XCLAIM_IDLE);
            } else if (opt(o, "time") && moreargs > 0) {
                deliveryTime = parseLong(argv[++j], Errors.STREAM_XCLAIM_TIME);
            } else if (opt(o, "retrycount") && moreargs > 0) {
                retryCount = parseLong(argv[++j], Errors.STREAM_XCLAIM_RETRYCOUNT);
            } else if (opt(o, "lastid") && moreargs > 0) {
                lastId = parseId(argv[++j], 0, true);
            } else {
                throw Errors.error(Errors.streamXclaimOption(text(o)));
            }
        }
        // The pending IDs whose entries are gone: XCLAIM drops them.
        List<StreamId> dropped = new ArrayList<>();
        for (StreamId id : ids) {
            if (g.pending().containsKey(id) && !s.contains(id) && !dropped.contains(id)) dropped.add(id);
        }
        StreamId lastBefore = g.lastId();
        List<StreamValue.Entry> claimed = s.claim(g, argv[3].clone(), ids.toArray(new StreamId[0]),
                new StreamValue.ClaimOptions(minIdle, deliveryTime, retryCount, force, justId, lastId), now);
        boolean lastMoved = !g.lastId().equals(lastBefore);
        if (!claimed.isEmpty() || !dropped.isEmpty() || lastMoved) {
            ctx.modified(key);
            if (ctx.journalling()) propagateClaims(ctx, key, g, argv[3], claimed, dropped, lastMoved);
        }
        return justId ? ids(claimed) : entries(claimed);
    }

    /**
     * The journalled form of XCLAIM and XAUTOCLAIM, as Redis propagates them: one idempotent XCLAIM per claimed ID
     * with its delivery time and count, one per dropped ID (its entry is gone, so the replay drops it too), and the
     * group's last ID when LASTID moved it.
     */
    private static void propagateClaims(CommandContext ctx, byte[] key, StreamGroup g, byte[] consumer,
                                        List<StreamValue.Entry> claimed, List<StreamId> dropped, boolean lastMoved) {
        List<byte[][]> out = new ArrayList<>();
        for (StreamValue.Entry e : claimed) out.add(xclaimOf(key, g, consumer, e.id(), g.pending().get(e.id())));
        for (StreamId id : dropped) out.add(xclaimOf(key, g, consumer, id, null));
        if (lastMoved) out.add(setIdOf(key, g));
        ctx.propagateAs(out.toArray(new byte[0][][]));
    }

    /**
     * Redis's streamPropagateXCLAIM: {@code XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n FORCE JUSTID LASTID
     * last}, which makes {@code id} pending for {@code consumer} with {@code p}'s delivery time and count (or, when
     * the entry is gone, drops it); {@code p} null for a dropped ID.
     */
    private static byte[][] xclaimOf(byte[] key, StreamGroup g, byte[] consumer, StreamId id, StreamGroup.Pending p) {
        long time = p == null ? 0 : p.deliveryTime();
        long count = p == null ? 0 : p.deliveryCount();
        return new byte[][] {XCLAIM, key, g.name(), consumer, Args.bytes(0), id.toBytes(), TIME, Args.bytes(time),
                RETRYCOUNT, Args.bytes(count), FORCE, JUSTID, LASTID, g.lastId().toBytes()};
    }

    /** Redis's streamPropagateGroupID: {@code XGROUP SETID key group last-id ENTRIESREAD n}. */
    private static byte[][] setIdOf(byte[] key, StreamGroup g) {
        return new byte[][] {XGROUP, SETID, key, g.name(), g.lastId().toBytes(), ENTRIESREAD,
                Args.bytes(g.entriesRead())};
    }

    static Reply xautoclaim(CommandContext ctx, byte[][] argv) {
        long minIdle = parseLong(argv[4], Errors.STREAM_XAUTOCLAIM_MIN_IDLE);
        if (minIdle < 0) minIdle = 0;
        StreamId start = parseBound(argv[5], 0, true);
        long count = 100;
        boolean justId = false;
        for (int j = 6; j < argv.length; j++) {
            int moreargs = argv.length - 1 - j;
            if (opt(argv[j], "count") && moreargs > 0) {
                Long c = Args.parseLongOrNull(argv[j + 1]);
                if (c == null || c < 1 || c > AUTOCLAIM_MAX_COUNT) throw Errors.error(Errors.COUNT_NOT_ABOVE_ZERO);
                count = c;
                j++;
            } else if (opt(argv[j], "justid")) {
                justId = true;
            } else {
                throw Errors.syntax();
            }
        }
        byte[] key = argv[1];
        StreamValue s = stream(ctx.readForWrite(key));
        StreamGroup g = s == null ? null : s.group(argv[2]);
        if (g == null) throw Errors.error(Errors.streamNoGroup(text(key), text(argv[2])));
        StreamValue.AutoClaim r = s.autoClaim(g, argv[3].clone(), minIdle, start, count, justId, ctx.now());
        if (!r.claimed().isEmpty() || !r.deleted().isEmpty()) {
            ctx.modified(key);
            if (ctx.journalling()) propagateClaims(ctx, key, g, argv[3], r.claimed(), r.deleted(), false);
        }
        Reply[] deleted = new Reply[r.deleted().size()];
        for (int i = 0; i < deleted.length; i++) deleted[i] = id(r.deleted().get(i));
        return Reply.array(id(r.next()), justId ? ids(r.claimed()) : entries(r.claimed()), Reply.array(deleted));
    }

    // ------------------------------------------------------------------ XINFO

    static Reply xinfo(CommandContext ctx, byte[][] argv) {
        String sub = Args.lower(argv[1]);
        byte[] key = argv[2];
        Object v = ctx.read(key);
        if (v == null) throw Errors.error(Errors.NO_SUCH_KEY);
        StreamValue s = stream(v);
        if (sub.equals("consumers") && argv.length == 4) {
            StreamGroup g = s.group(argv[3]);
            if (g == null) throw Errors.error(Errors.streamNoGroupForKey(text(argv[3]), text(key)));
            long now = ctx.now();
            List<Reply> out = new ArrayList<>();
            for (StreamGroup.Consumer c : g.consumers()) {
                out.add(Reply.map(
                        Reply.bulk("name"), Reply.bulk(c.name()),
                        Reply.bulk("pending"), Reply.integer(c.pendingCount()),
                        Reply.bulk("idle"), Reply.integer(Math.max(0, now - c.seenTime()))));
            }
            return Reply.array(out);
        }
        if (sub.equals("groups") && argv.length == 3) {
            List<Reply> out = new ArrayList<>();
            for (StreamGroup g : s.groups()) {
                out.add(Reply.map(
                        Reply.bulk("name"), Reply.bulk(g.name()),
                        Reply.bulk("consumers"), Reply.integer(g.consumerCount()),
                        Reply.bulk("pending"), Reply.integer(g.pendingCount()),
                        Reply.bulk("last-delivered-id"), id(g.lastId()),
                        Reply.bulk("entries-read"), entriesRead(g),
                        Reply.bulk("lag"), lag(s, g)));
            }
            return Reply.array(out);
        }
        if (sub.equals("stream")) return xinfoStream(s, argv);
        throw Errors.error(Errors.subcommandSyntax(Args.text(argv[1]), "xinfo"));
    }

    private static Reply entriesRead(StreamGroup g) {
        return g.entriesRead() == StreamGroup.INVALID_ENTRIES_READ ? Reply.NULL : Reply.integer(g.entriesRead());
    }

    private static Reply lag(StreamValue s, StreamGroup g) {
        Long lag = s.lag(g);
        return lag == null ? Reply.NULL : Reply.integer(lag);
    }

    private static Reply xinfoStream(StreamValue s, byte[][] argv) {
        int optc = argv.length - 3;
        boolean full = optc > 0;
        long count = 10;
        if (full) {
            if ((optc != 1 && optc != 3) || !opt(argv[3], "full")) {
                throw Errors.error(Errors.subcommandSyntax(Args.text(argv[1]), "xinfo"));
            }
            if (optc == 3) {
                if (!opt(argv[4], "count")) throw Errors.error(Errors.subcommandSyntax(Args.text(argv[1]), "xinfo"));
                count = Args.parseLong(argv[5]);
                if (count < 0) count = 10;
            }
        }
        List<Reply> m = new ArrayList<>();
        m.add(Reply.bulk("length"));
        m.add(Reply.integer(s.length()));
        m.add(Reply.bulk("radix-tree-keys"));
        m.add(Reply.integer(s.nodeCount()));
        m.add(Reply.bulk("radix-tree-nodes"));
        m.add(Reply.integer(s.radixTreeNodes()));
        m.add(Reply.bulk("last-generated-id"));
        m.add(id(s.lastId()));
        m.add(Reply.bulk("max-deleted-entry-id"));
        m.add(id(s.maxDeletedId()));
        m.add(Reply.bulk("entries-added"));
        m.add(Reply.integer(s.entriesAdded()));
        m.add(Reply.bulk("recorded-first-entry-id"));
        m.add(id(s.firstId()));
        if (!full) {
            m.add(Reply.bulk("groups"));
            m.add(Reply.integer(s.groupCount()));
            List<StreamValue.Entry> first = s.range(StreamId.ZERO, StreamId.MAX, 1, false);
            List<StreamValue.Entry> last = s.range(StreamId.ZERO, StreamId.MAX, 1, true);
            m.add(Reply.bulk("first-entry"));
            m.add(first.isEmpty() ? Reply.NULL : entry(first.get(0)));
            m.add(Reply.bulk("last-entry"));
            m.add(last.isEmpty() ? Reply.NULL : entry(last.get(0)));
            return Reply.map(m);
        }
        m.add(Reply.bulk("entries"));
        m.add(entries(s.range(StreamId.ZERO, StreamId.MAX, count, false)));
        List<Reply> groups = new ArrayList<>();
        for (StreamGroup g : s.groups()) {
            List<Reply> pel = new ArrayList<>();
            for (Map.Entry<StreamId, StreamGroup.Pending> e : g.pending().entrySet()) {
                if (count != 0 && pel.size() >= count) break;
                StreamGroup.Pending p = e.getValue();
                pel.add(Reply.array(id(e.getKey()), Reply.bulk(p.consumer().name()),
                        Reply.integer(p.deliveryTime()), Reply.integer(p.deliveryCount())));
            }
            List<Reply> consumers = new ArrayList<>();
            for (StreamGroup.Consumer c : g.consumers()) {
                List<Reply> cpel = new ArrayList<>();
                for (Map.Entry<StreamId, StreamGroup.Pending> e : c.pending().entrySet()) {
                    if (count != 0 && cpel.size() >= count) break;
                    cpel.add(Reply.array(id(e.getKey()), Reply.integer(e.getValue().deliveryTime()),
                            Reply.integer(e.getValue().deliveryCount())));
                }
                consumers.add(Reply.map(
                        Reply.bulk("name"), Reply.bulk(c.name()),
                        Reply.bulk("seen-time"), Reply.integer(c.seenTime()),
                        Reply.bulk("pel-count"), Reply.integer(c.pendingCount()),
                        Reply.bulk("pending"), Reply.array(cpel)));
            }
            groups.add(Reply.map(
                    Reply.bulk("name"), Reply.bulk(g.name()),
                    Reply.bulk("last-delivered-id"), id(g.lastId()),
                    Reply.bulk("entries-read"), entriesRead(g),
                    Reply.bulk("lag"), lag(s, g),
                    Reply.bulk("pel-count"), Reply.integer(g.pendingCount()),
                    Reply.bulk("pending"), Reply.array(pel),
                    Reply.bulk("consumers"), Reply.array(consumers)));
        }
        m.add(Reply.bulk("groups"));
        m.add(Reply.array(groups));
        return Reply.map(m);
    }

    static Reply xinfoHelp(CommandContext ctx, byte[][] argv) {
        return Help.reply("XINFO",
                "CONSUMERS <key> <groupname>",
                "    Show consumers of <groupname>.",
                "GROUPS <key>",
                "    Show the stream consumer groups.",
                "STREAM <key> [FULL [COUNT <count>]",
                "    Show information about the stream.");
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        XADD,
        XLEN,
        XRANGE,
        XREVRANGE,
        XDEL,
        XTRIM,
        XREAD,
        XREADGROUP,
        XACK,
        XPENDING,
        XCLAIM,
        XAUTOCLAIM,
        XSETID,
        XGROUP,
        XGROUP_HELP,
        XINFO,
        XINFO_HELP;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case XADD -> xadd(ctx, argv);
                case XLEN -> xlen(ctx, argv);
                case XRANGE -> xrangeGeneric(ctx, argv, false);
                case XREVRANGE -> xrangeGeneric(ctx, argv, true);
                case XDEL -> xdel(ctx, argv);
                case XTRIM -> xtrim(ctx, argv);
                case XREAD -> readGeneric(ctx, argv, false);
                case XREADGROUP -> readGeneric(ctx, argv, true);
                case XACK -> xack(ctx, argv);
                case XPENDING -> xpending(ctx, argv);
                case XCLAIM -> xclaim(ctx, argv);
                case XAUTOCLAIM -> xautoclaim(ctx, argv);
                case XSETID -> xsetid(ctx, argv);
                case XGROUP -> xgroup(ctx, argv);
                case XGROUP_HELP -> xgroupHelp(ctx, argv);
                case XINFO -> xinfo(ctx, argv);
                case XINFO_HELP -> xinfoHelp(ctx, argv);
            };
        }
    }
}
