package io.tide.command.family;

import io.tide.command.CommandContext;
import io.tide.store.HashValue;
import io.tide.store.ListValue;
import io.tide.store.SetValue;
import io.tide.store.ZSetValue;
import java.util.ArrayList;
import java.util.List;

/**
 * What SORT reads from and writes to each value kind. Thread-safe (stateless); runs on the thread that
 * owns the values.
 */
final class SortSources {

    private SortSources() {}

    /** Elements of a list, set or sorted set. */
    static long size(Object v) {
        return switch (v) {
            case ListValue l -> l.size();
            case SetValue s -> s.size();
            case ZSetValue z -> z.size();
            default -> 0;
        };
    }

    /** All elements, in the value's order (list order, set order, sorted-set order). */
    static List<byte[]> elements(Object v) {
        List<byte[]> out = new ArrayList<>();
        switch (v) {
            case ListValue l -> {
                long n = l.size();
                for (long from = 0; from < n; from += 1024) {
                    for (byte[] e : l.range(from, (int) Math.min(1024, n - from), false)) out.add(e);
                }
            }
            case SetValue s -> s.forEach(out::add);
            case ZSetValue z -> z.forEach(false, (member, score) -> out.add(member));
            default -> { }
        }
        return out;
    }

    /** Positions {@code start..end} of a list or sorted set, counted from the tail/top when {@code reverse}. */
    static List<byte[]> range(Object v, long start, long end, boolean reverse) {
        List<byte[]> out = new ArrayList<>();
        long size = size(v);
        if (start > end || start >= size) return out;
        long want = end - start + 1;
        long first = reverse ? size - 1 - start : start;
        if (v instanceof ListValue l) {
            for (long done = 0; done < want; done += 1024) {
                int n = (int) Math.min(1024, want - done);
                for (byte[] e : l.range(reverse ? first - done : first + done, n, reverse)) out.add(e);
            }
        } else {
            ((ZSetValue) v).walk((int) first, reverse, (member, score) -> {
                out.add(member);
                return out.size() < want;
            });
        }
        return out;
    }

    /** A hash field's value for {@code *->field} patterns; null when the value is not a hash or lacks it. */
    static byte[] hashField(Object v, byte[] field, long nowMs) {
        if (!(v instanceof HashValue h)) return null;
        long at = h.fieldExpireAt(field);
        if (at > 0 && at < nowMs) return null; // expired, not yet reclaimed
        return h.get(field);
    }

    /** SORT ... STORE's result: a new list, encoded as Redis would encode it for its size. */
    static ListValue newList(CommandContext ctx, List<byte[]> elements) {
        ListValue l = new ListValue();
        long bytes = 0;
        for (byte[] e : elements) bytes += e.length;
        l.beforeAdding(ctx.server().limits(), bytes, elements.size());
        l.pushAll(elements.toArray(new byte[0][]), 0, false);
        return l;
    }
}
