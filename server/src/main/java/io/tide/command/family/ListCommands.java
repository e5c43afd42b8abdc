package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.BulkArrayEncoder;
import io.tide.protocol.Reply;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.store.Database;
import io.tide.store.ListValue;
import java.util.Arrays;

/**
 * Thread-safe (stateless). List commands (Redis's {@code t_list.c}): pushes, pops, ranges, searches, moves
 * between lists and their blocking forms. Handlers run on the thread that owns their keys and reach each key's
 * database through {@link CommandContext#db(byte[])}. Values are {@link ListValue}s; every handler checks its
 * arguments and keys in Redis's order, so that the same error wins, and asks the list to convert its encoding
 * exactly where Redis does.
 */
public final class ListCommands {

    private ListCommands() {}

    public static void register(CommandTable t) {
        t.group("list");
        t.add("lpush", -3, "write denyoom fast", 1, 1, 1, "@list", "1.0.0",
                "Prepends one or more elements to a list. Creates the key if it doesn't exist.",
                Handler.LPUSH);
        t.add("rpush", -3, "write denyoom fast", 1, 1, 1, "@list", "1.0.0",
                "Appends one or more elements to a list. Creates the key if it doesn't exist.",
                Handler.RPUSH);
        t.add("lpushx", -3, "write denyoom fast", 1, 1, 1, "@list", "2.2.0",
                "Prepends one or more elements to a list only when the list exists.",
                Handler.LPUSHX);
        t.add("rpushx", -3, "write denyoom fast", 1, 1, 1, "@list", "2.2.0",
                "Appends an element to a list only when the list exists.",
                Handler.RPUSHX);
        t.add("lpop", -2, "write fast", 1, 1, 1, "@list", "1.0.0",
                "Returns the first elements in a list after removing it. Deletes the list if the last element "
                        + "was popped.", Handler.LPOP);
        t.add("rpop", -2, "write fast", 1, 1, 1, "@list", "1.0.0",
                "Returns and removes the last elements of the list. Deletes the list if the last element was "
                        + "popped.", Handler.RPOP);
        t.add("llen", 2, "readonly fast", 1, 1, 1, "@list", "1.0.0",
                "Returns the length of a list.", Handler.LLEN);
        t.add("lrange", 4, "readonly", 1, 1, 1, "@list", "1.0.0",
                "Returns a range of elements from a list.", Handler.LRANGE);
        t.add("lindex", 3, "readonly", 1, 1, 1, "@list", "1.0.0",
                "Returns an element from a list by its index.", Handler.LINDEX);
        t.add("lset", 4, "write denyoom", 1, 1, 1, "@list", "1.0.0",
                "Sets the value of an element in a list by its index.", Handler.LSET);
        t.add("linsert", 5, "write denyoom", 1, 1, 1, "@list", "2.2.0",
                "Inserts an element before or after another element in a list.", Handler.LINSERT);
        t.add("lrem", 4, "write", 1, 1, 1, "@list", "1.0.0",
                "Removes elements from a list. Deletes the list if the last element was removed.",
                Handler.LREM);
        t.add("ltrim", 4, "write", 1, 1, 1, "@list", "1.0.0",
                "Removes elements from both ends a list. Deletes the list if all elements were trimmed.",
                Handler.LTRIM);
        t.add("lpos", -3, "readonly", 1, 1, 1, "@list", "6.0.6",
                "Returns the index of matching elements in a list.", Handler.LPOS);
        t.add("lmove", 5, "write denyoom", 1, 2, 1, "@list", "6.2.0",
                "Returns an element after popping it from one list and pushing it to another. Deletes the list "
                        + "if the last element was moved.", Handler.LMOVE);
        t.add("rpoplpush", 3, "write denyoom", 1, 2, 1, "@list", "1.2.0",
                "Returns the last element of a list after removing and pushing it to another list. Deletes the "
                        + "list if the last element was popped.",
                Handler.RPOPLPUSH);
        t.add("lmpop", -4, "write", 0, 0, 0, "@list", "7.0.0",
                "Returns multiple elements from a list after removing them. Deletes the list if the last element "
                        + "was popped.", Handler.LMPOP)
                .keysBy(numkeysKeys(1));
        t.add("blpop", -3, "write noscript blocking", 1, -2, 1, "@list", "2.0.0",
                "Removes and returns the first element in a list. Blocks until an element is available otherwise. "
                        + "Deletes the list if the last element was popped.", Handler.BLPOP);
        t.add("brpop", -3, "write noscript blocking", 1, -2, 1, "@list", "2.0.0",
                "Removes and returns the last element in a list. Blocks until an element is available otherwise. "
                        + "Deletes the list if the last element was popped.", Handler.BRPOP);
        t.add("blmove", 6, "write denyoom noscript blocking", 1, 2, 1, "@list", "6.2.0",
                "Pops an element from a list, pushes it to another list and returns it. Blocks until an element "
                        + "is available otherwise. Deletes the list if the last element was moved.",
                Handler.BLMOVE);
        t.add("brpoplpush", 4, "write denyoom noscript blocking", 1, 2, 1, "@list", "2.2.0",
                "Pops an element from a list, pushes it to another list and returns it. Block until an element is "
                        + "available otherwise. Deletes the list if the last element was popped.",
                Handler.BRPOPLPUSH);
        t.add("blmpop", -5, "write blocking", 0, 0, 0, "@list", "7.0.0",
                "Pops the first element from one of multiple lists. Blocks until an element is available "
                        + "otherwise. Deletes the list if the last element was popped.", Handler.BLMPOP)
                .keysBy(numkeysKeys(2));
    }

    // ------------------------------------------------------------------ helpers

    /** The list at a key, null when absent, WRONGTYPE for another type. */
    private static ListValue list(Object v) {
        if (v == null || v instanceof ListValue) return (ListValue) v;
        throw Errors.wrongType();
    }

    /** list-max-listpack-size now. */
    private static int fill(CommandContext ctx) {
        return ctx.server().limits().listMaxListpackSize;
    }

    /** list-compress-depth now. */
    private static int depth(CommandContext ctx) {
        return ctx.server().limits().listCompressDepth;
    }

    /**
     * Redis's listElementsRemoved, after elements were removed in place: an emptied list's key goes, otherwise it
     * may convert back to a listpack; either way the write seam is told.
     */
    private static void removed(CommandContext ctx, byte[] key, ListValue l) {
        if (l.size() == 0) {
            ctx.db(key).remove(key);
            ctx.notify(KeyspaceEvents.GENERIC, "del", key);
        } else {
            l.afterRemoving(fill(ctx));
            ctx.modified(key);
        }
    }

    /** Redis's getPositiveLongFromObjectOrReply: {@code line} for anything but an integer &gt;= 0. */
    private static long nonNegative(byte[] arg, String line) {
        Long v = Args.parseLongOrNull(arg);
        if (v == null || v < 0) throw Errors.error(line);
        return v;
    }

    /** LEFT (true) or RIGHT (false), else a syntax error. */
    private static boolean leftOrRight(byte[] arg) {
        if (Args.is(arg, "left")) return true;
        if (Args.is(arg, "right")) return false;
        throw Errors.syntax();
    }

    private static Reply bulks(byte[][] items) {
        return BulkArrayEncoder.of(items);
    }

    /**
     * The keys of LMPOP ({@code countAt} 1) and BLMPOP (2): {@code numkeys} keys after the count, read as Redis's
     * getkeys function reads it (atoi), none when it is out of range.
     */
    private static CommandSpec.KeyFinder numkeysKeys(int countAt) {
        return argv -> {
            if (argv.length <= countAt) return new byte[0][];
            long n = Args.atoi(argv[countAt]);
            if (n < 1 || n > argv.length - countAt - 1) return new byte[0][];
            return Arrays.copyOfRange(argv, countAt + 1, countAt + 1 + (int) n);
        };
    }


    // ------------------------------------------------------------------ pushes

    /** LPUSH, RPUSH and, with {@code onlyExisting}, LPUSHX and RPUSHX. */
    private static Reply push(CommandContext ctx, byte[][] argv, boolean head, boolean onlyExisting) {
        byte[] key = argv[1];
        ListValue l = list(ctx.readForWrite(key));
        if (l == null) {
            if (onlyExisting) return Reply.ZERO;
            ListValue created = new ListValue();
            pushAll(ctx, created, argv, head);
            ctx.db(key).put(key, created, 0, ctx.now());
            ctx.notify(KeyspaceEvents.LIST, head ? "lpush" : "rpush", key);
            return Reply.integer(created.size());
        }
        pushAll(ctx, l, argv, head);
        ctx.modified(key);
        ctx.notify(KeyspaceEvents.LIST, head ? "lpush" : "rpush", key);
        return Reply.integer(l.size());
    }

    private static void pushAll(CommandContext ctx, ListValue l, byte[][] argv, boolean head) {
        long bytes = 0;
        int longest = 0;
        for (int i = 2; i < argv.length; i++) {
            bytes += argv[i].length;
            longest = Math.max(longest, argv[i].length);
        }
        // The list copies elements this short; the store copies the key (decision 0028).
        if (longest <= ListValue.COPIED_MAX) ctx.keepsNoArguments();
        l.beforeAdding(fill(ctx), depth(ctx), bytes, argv.length - 2);
        l.pushAll(argv, 2, head);
    }

    // ------------------------------------------------------------------ pops

    /** LPOP and RPOP, with an optional count. */
    private static Reply pop(CommandContext ctx, byte[][] argv, boolean head, String name) {
        if (argv.length > 3) throw Errors.error(Errors.wrongArity(name));
        boolean hasCount = argv.length == 3;
        long count = hasCount ? nonNegative(argv[2], Errors.MUST_BE_POSITIVE) : 0;
        byte[] key = argv[1];
        ctx.keepsNoArguments(); // the key is only looked up (decision 0028)
        ListValue l = list(ctx.readForWrite(key));
        if (l == null) return hasCount ? Reply.NULL_ARRAY : Reply.NULL;
        if (hasCount && count == 0) return Reply.EMPTY_ARRAY;
        Reply r = hasCount ? bulks(popRange(l, head, count)) : popOne(ctx, l, head);
        ctx.notify(KeyspaceEvents.LIST, head ? "lpop" : "rpop", key);
        removed(ctx, key, l);
        return r;
    }

    /** One element popped: written from the list's bytes when the reply is written at once, else a copy. */
    private static Reply popOne(CommandContext ctx, ListValue l, boolean head) {
        if (ctx.repliesInPlace()) {
            long[] span = ctx.oneSpan();
            byte[] array = l.popInPlace(head, span);
            if (array != null) return ctx.bulkView(array, (int) (span[0] >>> 32), (int) span[0]);
        }
        return Reply.bulk(l.pop(head));
    }

    /** Removes and returns up to {@code count} elements from one end, in the order they are popped. */
    private static byte[][] popRange(ListValue l, boolean head, long count) {
        long size = l.size();
        int n = (int) Math.min(count, size);
        byte[][] items = head ? l.range(0, n, false) : l.range(size - 1, n, true);
        l.removeRange(head ? 0 : size - n, n);
        return items;
    }

    /**
     * LMPOP and BLMPOP's pop: from the first key holding a non-empty list (WRONGTYPE stops the scan), up to
     * {@code count} elements as {@code [key, [elements]]}; null when every key is missing.
     */
    private static Reply mpop(CommandContext ctx, byte[][] keys, boolean head, long count) {
        for (byte[] key : keys) {
            ListValue l = waitedList(ctx, key); // LMPOP never retries: a plain type check
            if (l == null) continue;
            Reply items = bulks(popRange(l, head, count));
            ctx.notify(KeyspaceEvents.LIST, head ? "lpop" : "rpop", key);
            removed(ctx, key, l);
            // Journalled as Redis propagates LMPOP and a served BLMPOP: LPOP/RPOP key count.
            ctx.propagateAs(new byte[][] {Args.bytes(head ? "LPOP" : "RPOP"), key, Args.bytes(count)});
            return Reply.array(Reply.bulk(key), items);
        }
        return null;
    }

    /** Immutable. Parsed arguments of LMPOP / BLMPOP. */
    private record MpopArgs(byte[][] keys, boolean head, long count) {}

    /** Redis's lmpopGenericCommand argument parsing; {@code numkeysAt} is 1 for LMPOP, 2 for BLMPOP. */
    private static MpopArgs mpopArgs(byte[][] argv, int numkeysAt) {
        Long numkeys = Args.parseLongOrNull(argv[numkeysAt]);
        if (numkeys == null || numkeys < 1) throw Errors.error(Errors.NUMKEYS_NOT_POSITIVE);
        if (numkeys >= argv.length - numkeysAt - 1) throw Errors.syntax();
        int whereAt = numkeysAt + 1 + (int) (long) numkeys;
        boolean head = leftOrRight(argv[whereAt]);
        long count = -1;
        for (int j = whereAt + 1; j < argv.length; j++) {
            if (count == -1 && Args.is(argv[j], "count") && j + 1 < argv.length) {
                Long c = Args.parseLongOrNull(argv[++j]);
                if (c == null || c < 1) throw Errors.error(Errors.LIST_COUNT_NOT_POSITIVE);
                count = c;
            } else {
                throw Errors.syntax();
            }
        }
        byte[][] keys = Arrays.copyOfRange(argv, numkeysAt + 1, whereAt);
        return new MpopArgs(keys, head, count == -1 ? 1 : count);
    }

    static Reply lmpop(CommandContext ctx, byte[][] argv) {
        MpopArgs a = mpopArgs(argv, 1);
        Reply r = mpop(ctx, a.keys, a.head, a.count);
        return r != null ? r : Reply.NULL_ARRAY;
    }

    // ------------------------------------------------------------------ reads

    static Reply llen(CommandContext ctx, byte[][] argv) {
        ListValue l = list(ctx.read(argv[1]));
        return l == null ? Reply.ZERO : Reply.integer(l.size());
    }

    static Reply lrange(CommandContext ctx, byte[][] argv) {
        long start = Args.parseLong(argv[2]);
        long end = Args.parseLong(argv[3]);
        ListValue l = list(ctx.read(argv[1]));
        if (l == null) return Reply.EMPTY_ARRAY;
        long size = l.size();
        if (start < 0) start += size;
        if (end < 0) end += size;
        if (start < 0) start = 0;
        if (start > end || start >= size) return Reply.EMPTY_ARRAY;
        if (end >= size) end = size - 1;
        int n = Math.toIntExact(end - start + 1);
        if (n < BulkArrayEncoder.THRESHOLD) return bulks(l.range(start, n, false));
        // A long range is encoded a slice at a time: no object per element outlives its slice.
        BulkArrayEncoder reply = new BulkArrayEncoder(n);
        for (int done = 0; done < n; done += BulkArrayEncoder.THRESHOLD) {
            for (byte[] e : l.range(start + done, Math.min(BulkArrayEncoder.THRESHOLD, n - done), false)) reply.add(e);
        }
        return reply.build();
    }

    static Reply lindex(CommandContext ctx, byte[][] argv) {
        ListValue l = list(ctx.read(argv[1]));
        if (l == null) return Reply.NULL;
        long index = Args.parseLong(argv[2]);
        return Reply.bulk(l.get(index));
    }

    static Reply lpos(CommandContext ctx, byte[][] argv) {
        long rank = 1;
        long count = -1; // -1: no COUNT option
        long maxlen = 0;
        for (int j = 3; j < argv.length; j++) {
            byte[] opt = argv[j];
            boolean more = j + 1 < argv.length;
            if (Args.is(opt, "rank") && more) {
                rank = Args.parseSymmetricLong(argv[++j]);
                if (rank == 0) throw Errors.error(Errors.LIST_RANK_ZERO);
            } else if (Args.is(opt, "count") && more) {
                count = nonNegative(argv[++j], Errors.LIST_COUNT_NEGATIVE);
            } else if (Args.is(opt, "maxlen") && more) {
                maxlen = nonNegative(argv[++j], Errors.LIST_MAXLEN_NEGATIVE);
            } else {
                throw Errors.syntax();
            }
        }
        ListValue l = list(ctx.read(argv[1]));
        if (l == null) return count != -1 ? Reply.EMPTY_ARRAY : Reply.NULL;
        long[] found = l.positions(argv[2], rank, count == -1 ? 1 : count, maxlen);
        if (count == -1) return found.length == 0 ? Reply.NULL : Reply.integer(found[0]);
        Reply[] out = new Reply[found.length];
        for (int i = 0; i < found.length; i++) out[i] = Reply.integer(found[i]);
        return Reply.array(out);
    }

    // ------------------------------------------------------------------ edits

    static Reply lset(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        ListValue l = list(ctx.readForWrite(key));
        if (l == null) throw Errors.error(Errors.NO_SUCH_KEY);
        long index = Args.parseLong(argv[2]);
        l.beforeAdding(fill(ctx), depth(ctx), argv[3].length, 1);
        boolean replaced = l.set(index, argv[3]);
        if (!replaced) throw Errors.error(Errors.LIST_INDEX_OUT_OF_RANGE);
        l.afterRemoving(fill(ctx));
        ctx.modified(key);
        ctx.notify(KeyspaceEvents.LIST, "lset", key);
        return Reply.OK;
    }

    static Reply linsert(CommandContext ctx, byte[][] argv) {
        boolean after;
        if (Args.is(argv[2], "after")) after = true;
        else if (Args.is(argv[2], "before")) after = false;
        else throw Errors.syntax();
        byte[] key = argv[1];
        ListValue l = list(ctx.readForWrite(key));
        if (l == null) return Reply.ZERO;
        // As Redis: the conversion check assumes the insert happens, even when the pivot is then not found.
        l.beforeAdding(fill(ctx), depth(ctx), argv[4].length, 1);
        long size = l.insert(argv[3], argv[4], after);
        if (size < 0) return Reply.integer(-1);
        ctx.modified(key);
        ctx.notify(KeyspaceEvents.LIST, "linsert", key);
        return Reply.integer(size);
    }

    static Reply lrem(CommandContext ctx, byte[][] argv) {
        long count = Args.parseSymmetricLong(argv[2]);
        byte[] key = argv[1];
        ListValue l = list(ctx.readForWrite(key));
        if (l == null) return Reply.ZERO;
        long n = l.removeMatching(argv[3], count);
        if (n > 0) ctx.notify(KeyspaceEvents.LIST, "lrem", key);
        if (n > 0) removed(ctx, key, l);
        return Reply.integer(n);
    }

    static Reply ltrim(CommandContext ctx, byte[][] argv) {
        long start = Args.parseLong(argv[2]);
        long end = Args.parseLong(argv[3]);
        byte[] key = argv[1];
        ListValue l = list(ctx.readForWrite(key));
        if (l == null) return Reply.OK;
        long size = l.size();
        if (start < 0) start += size;
        if (end < 0) end += size;
        if (start < 0) start = 0;
        long ltrim;
        long rtrim;
        if (start > end || start >= size) {
            ltrim = size;
            rtrim = 0;
        } else {
            if (end >= size) end = size - 1;
            ltrim = start;
            rtrim = size - end - 1;
        }
        l.removeRange(0, ltrim);
        l.removeRange(l.size() - rtrim, rtrim);
        ctx.notify(KeyspaceEvents.LIST, "ltrim", key);
        if (ltrim > 0 || rtrim > 0) removed(ctx, key, l);
        else ctx.touched(key); // Redis signals the key modified even when nothing was trimmed
        return Reply.OK;
    }

    // ------------------------------------------------------------------ moves

    static Reply lmove(CommandContext ctx, byte[][] argv) {
        boolean fromHead = leftOrRight(argv[3]);
        boolean toHead = leftOrRight(argv[4]);
        return move(ctx, argv[1], argv[2], fromHead, toHead);
    }

    /** Redis's lmoveGenericCommand: null bulk when the source is missing. */
    private static Reply move(CommandContext ctx, byte[] src, byte[] dst, boolean fromHead, boolean toHead) {
        ListValue s = list(ctx.readForWrite(src));
        if (s == null) return Reply.NULL;
        ListValue d = list(ctx.readForWrite(dst));
        int fill = fill(ctx);
        int depth = depth(ctx);
        boolean fromQuicklist = s.encodingName().equals("quicklist");
        byte[] v = s.pop(fromHead);
        // Redis measures the element it pushes as a string unless the quicklist handed it back as an integer.
        long addBytes = fromQuicklist && Args.parseLongOrNull(v) != null ? 0 : v.length;
        if (d == s) {
            s.beforeAdding(fill, depth, addBytes, 1);
            s.push(v, toHead);
            s.afterRemoving(fill);
            ctx.modified(src);
            ctx.notify(KeyspaceEvents.LIST, toHead ? "lpush" : "rpush", dst);
            ctx.notify(KeyspaceEvents.LIST, fromHead ? "lpop" : "rpop", src);
            return Reply.bulk(v);
        }
        if (d == null) {
            d = new ListValue();
            d.beforeAdding(fill, depth, addBytes, 1);
            d.push(v, toHead);
            ctx.db(dst).put(dst, d, 0, ctx.now());
        } else {
            d.beforeAdding(fill, depth, addBytes, 1);
            d.push(v, toHead);
            ctx.modified(dst);
        }
        ctx.notify(KeyspaceEvents.LIST, toHead ? "lpush" : "rpush", dst);
        ctx.notify(KeyspaceEvents.LIST, fromHead ? "lpop" : "rpop", src);
        removed(ctx, src, s);
        return Reply.bulk(v);
    }

    // ------------------------------------------------------------------ blocking forms

    /*
     * Redis retries a client blocked on lists only when a key it waits on now holds a list; Tide's dispatcher
     * retries on any signal (a key created with another type, or deleted), so a retry that finds no list among
     * its keys waits on rather than answering WRONGTYPE.
     */

    /** On a retry, whether none of {@code keys} holds a list, so that the waiter keeps waiting. */
    /**
     * The list at {@code key}, or null. A retry (a key was signalled) passes over a key that is no longer a list,
     * as Redis 7.0 serves a ready key only when it holds a list: a key retyped in the MULTI that fed another of
     * the command's keys neither answers WRONGTYPE nor stops the others from serving.
     */
    private static ListValue waitedList(CommandContext ctx, byte[] key) {
        Object v = ctx.readForWrite(key);
        if (ctx.isRetry() && !(v instanceof ListValue)) return null;
        return list(v);
    }

    /** BLPOP and BRPOP: {@code [key, element]} from the first non-empty list, else wait. */
    private static Reply bpop(CommandContext ctx, byte[][] argv, boolean head) {
        long deadline = Args.timeoutSeconds(argv[argv.length - 1], ctx.now());
        byte[][] keys = Arrays.copyOfRange(argv, 1, argv.length - 1);
        for (byte[] key : keys) {
            ListValue l = waitedList(ctx, key);
            if (l == null) continue;
            byte[] v = l.pop(head);
            ctx.notify(KeyspaceEvents.LIST, head ? "lpop" : "rpop", key);
            removed(ctx, key, l);
            ctx.propagateAs(new byte[][] {Args.bytes(head ? "LPOP" : "RPOP"), key}); // as Redis: a served BLPOP
            return Reply.array(Reply.bulk(key), Reply.bulk(v));
        }
        return ctx.block(keys, deadline, Reply.NULL_ARRAY, argv);
    }

    static Reply blmove(CommandContext ctx, byte[][] argv) {
        boolean fromHead = leftOrRight(argv[3]);
        boolean toHead = leftOrRight(argv[4]);
        long deadline = Args.timeoutSeconds(argv[5], ctx.now());
        return blockingMove(ctx, argv, fromHead, toHead, deadline);
    }

    static Reply brpoplpush(CommandContext ctx, byte[][] argv) {
        long deadline = Args.timeoutSeconds(argv[3], ctx.now());
        return blockingMove(ctx, argv, false, true, deadline);
    }

    /**
     * Redis's blmoveGenericCommand: only the source's type is checked before waiting on it. A timeout answers
     * a null array, as every list wait does in Redis (replyToBlockedClientTimedOut); where the client may not
     * block (MULTI, scripts) the answer is LMOVE's null bulk, as Redis's.
     */
    private static Reply blockingMove(CommandContext ctx, byte[][] argv, boolean fromHead, boolean toHead,
                                      long deadline) {
        byte[][] keys = {argv[1]};
        if (waitedList(ctx, argv[1]) == null) {
            Reply r = ctx.block(keys, deadline, Reply.NULL_ARRAY, argv);
            return r == null ? null : Reply.NULL;
        }
        Reply r = move(ctx, argv[1], argv[2], fromHead, toHead);
        // As Redis propagates a served BLMOVE / BRPOPLPUSH: the non-blocking LMOVE.
        ctx.propagateAs(new byte[][] {Args.bytes("LMOVE"), argv[1], argv[2], Args.bytes(fromHead ? "LEFT" : "RIGHT"),
                Args.bytes(toHead ? "LEFT" : "RIGHT")});
        return r;
    }

    static Reply blmpop(CommandContext ctx, byte[][] argv) {
        MpopArgs a = mpopArgs(argv, 2);
        long deadline = Args.timeoutSeconds(argv[1], ctx.now());
        Reply r = mpop(ctx, a.keys, a.head, a.count);
        return r != null ? r : ctx.block(a.keys, deadline, Reply.NULL_ARRAY, argv);
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        LPUSH,
        RPUSH,
        LPUSHX,
        RPUSHX,
        LPOP,
        RPOP,
        LLEN,
        LRANGE,
        LINDEX,
        LSET,
        LINSERT,
        LREM,
        LTRIM,
        LPOS,
        LMOVE,
        RPOPLPUSH,
        LMPOP,
        BLPOP,
        BRPOP,
        BLMOVE,
        BRPOPLPUSH,
        BLMPOP;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case LPUSH -> push(ctx, argv, true, false);
                case RPUSH -> push(ctx, argv, false, false);
                case LPUSHX -> push(ctx, argv, true, true);
                case RPUSHX -> push(ctx, argv, false, true);
                case LPOP -> pop(ctx, argv, true, "lpop");
                case RPOP -> pop(ctx, argv, false, "rpop");
                case LLEN -> llen(ctx, argv);
                case LRANGE -> lrange(ctx, argv);
                case LINDEX -> lindex(ctx, argv);
                case LSET -> lset(ctx, argv);
                case LINSERT -> linsert(ctx, argv);
                case LREM -> lrem(ctx, argv);
                case LTRIM -> ltrim(ctx, argv);
                case LPOS -> lpos(ctx, argv);
                case LMOVE -> lmove(ctx, argv);
                case RPOPLPUSH -> move(ctx, argv[1], argv[2], false, true);
                case LMPOP -> lmpop(ctx, argv);
                case BLPOP -> bpop(ctx, argv, true);
                case BRPOP -> bpop(ctx, argv, false);
                case BLMOVE -> blmove(ctx, argv);
                case BRPOPLPUSH -> brpoplpush(ctx, argv);
                case BLMPOP -> blmpop(ctx, argv);
            };
        }
    }
}
