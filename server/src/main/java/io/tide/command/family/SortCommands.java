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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * SORT and SORT_RO (Redis's {@code sort.c}). Thread-safe (stateless). A SORT with a BY or GET pattern may
 * read any key, so its key finder answers {@link CommandSpec#ALL_KEYS} and it runs with every shard
 * parked; without patterns it touches only the sorted key (and the STORE destination).
 */
public final class SortCommands {

    private SortCommands() {}

    public static void register(CommandTable t) {
        t.group("generic");
        t.add("sort", -2, "write denyoom", 1, 1, 1, "@set @sortedset @list @dangerous", "1.0.0",
                "Sort the elements in a list, set or sorted set, optionally storing the result",
                Handler.SORT).keysBy(argv -> keys(argv, false))
                .getKeysBy(argv -> getKeys(argv, false));
        t.add("sort_ro", -2, "readonly", 1, 1, 1, "@set @sortedset @list @dangerous", "7.0.0",
                "Sort the elements in a list, set or sorted set. Read-only variant of SORT.",
                Handler.SORT_RO).keysBy(argv -> keys(argv, true))
                .getKeysBy(argv -> getKeys(argv, true));
    }

    /** The sorted key and STORE's destination, or every key when a BY/GET pattern may name any. */
    static byte[][] keys(byte[][] argv, boolean readOnly) {
        List<byte[]> out = new ArrayList<>();
        out.add(argv[1]);
        for (int i = 2; i < argv.length; i++) {
            String a = Args.lower(argv[i]);
            if ((a.equals("by") || a.equals("get")) && i + 1 < argv.length) {
                byte[] pattern = argv[i + 1];
                boolean nosort = a.equals("by") && indexOf(pattern, (byte) '*') < 0;
                boolean self = a.equals("get") && Arrays.equals(pattern, HASH);
                if (!nosort && !self) return CommandSpec.ALL_KEYS;
                i++;
            } else if (a.equals("limit")) {
                i += 2;
            } else if (a.equals("store") && !readOnly && i + 1 < argv.length) {
                out.add(argv[++i]);
            }
        }
        return out.toArray(new byte[0][]);
    }

    private static final byte[] HASH = {'#'};
    private static final List<String> SORTED_KEY_FLAGS = List.of("RO", "access");
    private static final List<String> STORE_KEY_FLAGS = List.of("OW", "update");

    /**
     * Redis's sortGetKeys / sortROGetKeys for COMMAND GETKEYS: the sorted key and, for SORT, the last STORE's
     * destination. LIMIT skips two arguments and GET and BY one, whatever follows; the keys that BY and GET
     * patterns name are not listed (Redis's key spec for them is incomplete).
     */
    static List<CommandSpec.KeyRef> getKeys(byte[][] argv, boolean readOnly) {
        List<CommandSpec.KeyRef> out = new ArrayList<>();
        out.add(new CommandSpec.KeyRef(argv[1], SORTED_KEY_FLAGS));
        if (readOnly) return out;
        byte[] store = null;
        for (int i = 2; i < argv.length; i++) {
            if (Args.is(argv[i], "limit")) i += 2;
            else if (Args.is(argv[i], "get") || Args.is(argv[i], "by")) i += 1;
            else if (Args.is(argv[i], "store") && i + 1 < argv.length) store = argv[i + 1];
        }
        if (store != null) out.add(new CommandSpec.KeyRef(store, STORE_KEY_FLAGS));
        return out;
    }

    /** One element being sorted: the element, and its weight (a number, or the bytes for ALPHA). */
    private static final class Item {
        final byte[] element;
        double score;
        byte[] by;

        Item(byte[] element) {
            this.element = element;
        }
    }

    static Reply sort(CommandContext ctx, byte[][] argv, boolean readOnly) {
        byte[] key = argv[1];
        boolean desc = false;
        boolean alpha = false;
        boolean dontsort = false;
        long limitStart = 0;
        long limitCount = -1;
        byte[] byPattern = null;
        byte[] store = null;
        List<byte[]> gets = new ArrayList<>();
        for (int i = 2; i < argv.length; i++) {
            String a = Args.lower(argv[i]);
            int left = argv.length - i - 1;
            switch (a) {
                case "asc" -> desc = false;
                case "desc" -> desc = true;
                case "alpha" -> alpha = true;
                case "limit" -> {
                    if (left < 2) throw Errors.syntax();
                    limitStart = Args.parseLong(argv[i + 1]);
                    limitCount = Args.parseLong(argv[i + 2]);
                    i += 2;
                }
                case "store" -> {
                    if (readOnly || left < 1) throw Errors.syntax();
                    store = argv[++i];
                }
                case "by" -> {
                    if (left < 1) throw Errors.syntax();
                    byPattern = argv[++i];
                    // A BY pattern without '*' means "don't sort" (BY nosort is the idiom).
                    if (indexOf(byPattern, (byte) '*') < 0) dontsort = true;
                }
                case "get" -> {
                    if (left < 1) throw Errors.syntax();
                    gets.add(argv[++i]);
                }
                default -> throw Errors.syntax();
            }
        }

        Object v = ctx.readForWrite(key);
        List<byte[]> elements;
        String type = v == null ? "none" : KeyCommands.typeName(v);
        // Redis converts a sorted set it sorts to its skip list, whatever the options (OBJECT ENCODING shows it); the
        // value was opened with readForWrite, so the command's end books its new size, and nothing else is signalled
        if (v instanceof io.tide.store.ZSetValue z) z.convertForSort();
        switch (type) {
            case "none" -> elements = List.of();
            case "list", "set", "zset" -> elements = null;
            default -> throw Errors.wrongType();
        }
        // A set sorted without an order is sorted alphabetically anyway for STORE and inside scripts, as Redis
        // does, so that what replicas and scripts see does not depend on the set's internal order.
        if (dontsort && type.equals("set") && (store != null || ctx.calledFromScript())) {
            dontsort = false;
            alpha = true;
            byPattern = null;
        }
        long size = v == null ? 0 : SortSources.size(v);
        long start = limitStart < 0 ? 0 : limitStart;
        long end = limitCount < 0 ? size - 1 : start + limitCount - 1;
        if (start >= size) {
            start = size - 1;
            end = size - 2;
        }
        if (end >= size) end = size - 1;

        if (v != null) {
            if (dontsort && (type.equals("zset") || type.equals("list"))) {
                // Lists and sorted sets keep their own order: only the LIMIT range is read, from the end for DESC.
                elements = SortSources.range(v, start, end, desc);
                end -= start;
                start = 0;
            } else {
                elements = SortSources.elements(v);
            }
        }

        List<Item> items = new ArrayList<>(elements.size());
        for (byte[] e : elements) items.add(new Item(e));
        if (!dontsort) {
            for (Item it : items) {
                byte[] byValue = null;
                if (byPattern != null) {
                    byValue = lookupByPattern(ctx, byPattern, it.element);
                    if (byValue == null) continue; // missing weight: sorts as 0 / as a null string
                }
                if (alpha) {
                    it.by = byPattern != null ? byValue : it.element;
                } else {
                    byte[] text = byPattern != null ? byValue : it.element;
                    it.score = parseScore(text);
                }
            }
            boolean alphaF = alpha;
            boolean byF = byPattern != null;
            boolean descF = desc;
            items.sort((x, y) -> {
                int cmp;
                if (!alphaF) {
                    cmp = Double.compare(x.score, y.score);
                    if (x.score == y.score) cmp = Arrays.compareUnsigned(x.element, y.element);
                } else if (byF) {
                    if (x.by == null || y.by == null) cmp = x.by == y.by ? 0 : (x.by == null ? -1 : 1);
                    else cmp = Arrays.compareUnsigned(x.by, y.by);
                } else {
                    cmp = Arrays.compareUnsigned(x.by, y.by);
                }
                return descF ? -cmp : cmp;
            });
        }

        List<byte[]> out = new ArrayList<>();
        List<Reply> replies = new ArrayList<>();
        for (long j = start; j <= end && j < items.size(); j++) {
            Item it = items.get((int) j);
            if (gets.isEmpty()) {
                out.add(it.element);
                replies.add(Reply.bulk(it.element));
            } else {
                for (byte[] g : gets) {
                    byte[] val = lookupByPattern(ctx, g, it.element);
                    out.add(val == null ? new byte[0] : val);
                    replies.add(val == null ? Reply.NULL : Reply.bulk(val));
                }
            }
        }
        if (store == null) return Reply.array(replies);
        Database dst = ctx.db(store);
        if (out.isEmpty()) {
            if (dst.remove(store) != null) ctx.notify(KeyspaceEvents.GENERIC, "del", store);
        } else {
            dst.put(store, SortSources.newList(ctx, out), 0, ctx.now());
            ctx.notify(KeyspaceEvents.LIST, "sortstore", store);
        }
        return Reply.integer(out.size());
    }

    /** A weight as Redis's SORT reads it with strtod (an empty text is 0), else the conversion error. */
    private static double parseScore(byte[] text) {
        Double d = ZSetCommands.parseCStringDouble(text);
        if (d == null) throw Errors.error(Errors.SORT_NOT_DOUBLE);
        return d;
    }

    /**
     * Redis's lookupKeyByPattern: {@code #} is the element itself; otherwise the first {@code *} is replaced
     * by the element, and a {@code ->field} suffix reads that hash field. Null when there is no such value.
     */
    static byte[] lookupByPattern(CommandContext ctx, byte[] pattern, byte[] element) {
        if (Arrays.equals(pattern, HASH)) return element;
        int star = indexOf(pattern, (byte) '*');
        if (star < 0) return null;
        int arrow = -1;
        for (int i = star + 1; i + 1 < pattern.length; i++) {
            if (pattern[i] == '-' && pattern[i + 1] == '>') {
                arrow = i;
                break;
            }
        }
        // "->" followed by at least one byte names a hash field.
        boolean field = arrow >= 0 && arrow + 2 < pattern.length;
        int keyEnd = field ? arrow : pattern.length;
        byte[] k = new byte[star + element.length + (keyEnd - star - 1)];
        System.arraycopy(pattern, 0, k, 0, star);
        System.arraycopy(element, 0, k, star, element.length);
        System.arraycopy(pattern, star + 1, k, star + element.length, keyEnd - star - 1);
        Object v = ctx.db(k).get(k, ctx.now());
        if (v == null) return null;
        if (field) {
            byte[] f = Arrays.copyOfRange(pattern, arrow + 2, pattern.length);
            return SortSources.hashField(v, f, ctx.now());
        }
        return StringValues.isString(v) ? StringValues.bytes(v) : null;
    }

    private static int indexOf(byte[] a, byte b) {
        for (int i = 0; i < a.length; i++) if (a[i] == b) return i;
        return -1;
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        SORT,
        SORT_RO;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case SORT -> sort(ctx, argv, false);
                case SORT_RO -> sort(ctx, argv, true);
            };
        }
    }
}
