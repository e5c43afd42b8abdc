package io.tide.store;

import java.util.Arrays;

/**
 * Confined to the shard thread that owns the key. A sorted set value (TYPE "zset"): members (byte strings)
 * with double scores, ordered by score then member bytes. Two encodings, switched as Redis's t_zset.c
 * switches them: "listpack" ({@link ZSetListpack}) while it holds at most {@code zset-max-listpack-entries}
 * members of at most {@code zset-max-listpack-value} bytes, "btree" beyond ({@link ZSetTree}, decision 0021; Redis's is
 * a skip list, "skiplist"). A set
 * grows out of the listpack when an insert would break a limit; it never goes back, except where Redis
 * rebuilds a set for a *STORE command ({@link #fromSorted}).
 *
 * <p>Positions are 0-based ranks in ascending order. Score and lexicographic ranges are found the way
 * Redis finds them in each encoding (a linear scan of the listpack, a descent of the skip list), so
 * lexicographic ranges over members with different scores behave as in Redis.
 */
public final class ZSetValue implements CollectionValue {

    /** Object header plus two references. */
    private static final long SHALLOW = 24;
    /** Redis's LISTPACK_MAX_SAFETY_SIZE: a listpack never grows past 1 GB. */
    private static final long LISTPACK_MAX_SAFE = 1L << 30;

    // ZADD's input flags (ZADD_IN_*) and output flags (ZADD_OUT_*), as in Redis.
    public static final int IN_INCR = 1;
    public static final int IN_NX = 1 << 1;
    public static final int IN_XX = 1 << 2;
    public static final int IN_GT = 1 << 3;
    public static final int IN_LT = 1 << 4;
    public static final int OUT_NOP = 1;
    public static final int OUT_NAN = 1 << 1;
    public static final int OUT_ADDED = 1 << 2;
    public static final int OUT_UPDATED = 1 << 3;

    private ZSetListpack listpack;
    private ZSetTree tree;

    @Override
    public int touch() {
        return listpack != null ? listpack.touch() : 0;
    }

    private ZSetValue(ZSetListpack lp, ZSetTree sl) {
        this.listpack = lp;
        this.tree = sl;
    }

    /** Receives (member, score) pairs; returns false to stop the walk. Must not modify the set. */
    @FunctionalInterface
    public interface EntryVisitor {
        boolean visit(byte[] member, double score);
    }

    /** A score interval with optionally exclusive ends (zrangespec). */
    public record ScoreRange(double min, boolean minEx, double max, boolean maxEx) {
        public boolean gteMin(double v) {
            return minEx ? v > min : v >= min;
        }

        public boolean lteMax(double v) {
            return maxEx ? v < max : v <= max;
        }

        /** True for intervals that can hold nothing (min above max, or a point with an open end). */
        public boolean isEmpty() {
            return min > max || (min == max && (minEx || maxEx));
        }
    }

    /**
     * A lexicographic interval (zlexrangespec): {@link #MIN_STRING} and {@link #MAX_STRING} (compared by
     * identity) stand for "-" and "+".
     */
    public record LexRange(byte[] min, boolean minEx, byte[] max, boolean maxEx) {
        public static final byte[] MIN_STRING = new byte[0];
        public static final byte[] MAX_STRING = new byte[0];

        /** sdscmplex: the sentinels sort before and after every string. */
        static int compare(byte[] a, byte[] b) {
            if (a == b) return 0;
            if (a == MIN_STRING || b == MAX_STRING) return -1;
            if (a == MAX_STRING || b == MIN_STRING) return 1;
            return Arrays.compareUnsigned(a, b);
        }

        public boolean gteMin(byte[] v) {
            int c = compare(v, min);
            return minEx ? c > 0 : c >= 0;
        }

        public boolean lteMax(byte[] v) {
            int c = compare(v, max);
            return maxEx ? c < 0 : c <= 0;
        }

        public boolean isEmpty() {
            int c = compare(min, max);
            return c > 0 || (c == 0 && (minEx || maxEx));
        }
    }

    // ---------------------------------------------------------------- creation and encodings

    /**
     * A new empty set in the encoding Redis's zsetTypeCreate picks for about {@code sizeHint} members of
     * about {@code valueLengthHint} bytes.
     */
    public static ZSetValue create(long sizeHint, long valueLengthHint, EncodingLimits limits) {
        if (sizeHint <= limits.zsetMaxListpackEntries && valueLengthHint <= limits.zsetMaxListpackValue) {
            return new ZSetValue(new ZSetListpack(), null);
        }
        return new ZSetValue(null, new ZSetTree((int) Math.min(sizeHint, Integer.MAX_VALUE - 8)));
    }

    /**
     * A set built from members already in (score, member) order with no duplicates, encoded as Redis encodes
     * the result of a *STORE command (zsetConvertToListpackIfNeeded): listpack when it is small enough in
     * count, longest member and total member bytes, a tree otherwise.
     */
    public static ZSetValue fromSorted(byte[][] members, double[] scores, int n, EncodingLimits limits) {
        long maxLen = 0;
        long total = 0;
        for (int i = 0; i < n; i++) {
            maxLen = Math.max(maxLen, members[i].length);
            total += members[i].length;
        }
        if (n <= limits.zsetMaxListpackEntries && maxLen <= limits.zsetMaxListpackValue
                && total <= LISTPACK_MAX_SAFE) {
            ZSetListpack lp = new ZSetListpack();
            long bytes = 0;
            for (int i = 0; i < n; i++) bytes += ZSetListpack.entrySize(members[i].length, scores[i]);
            if (bytes <= LISTPACK_MAX_SAFE) lp.reserve((int) bytes);
            for (int i = 0; i < n; i++) lp.append(members[i], scores[i]);
            return new ZSetValue(lp, null);
        }
        ZSetTree sl = new ZSetTree(n);
        for (int i = 0; i < n; i++) sl.insert(members[i], scores[i]);
        return new ZSetValue(null, sl);
    }

    /** zsetTypeMaybeConvert: a listpack about to take {@code sizeHint} more members that could not hold them. */
    public void maybeConvert(long sizeHint, EncodingLimits limits) {
        if (listpack != null && sizeHint > limits.zsetMaxListpackEntries) {
            toTree((int) Math.min(sizeHint, Integer.MAX_VALUE - 8));
        }
    }

    /**
     * A listpack becomes the tree ("btree"), as Redis's SORT converts every sorted set it sorts to its skip list.
     */
    public void convertForSort() {
        if (listpack != null) toTree(listpack.size());
    }

    private void toTree(int expected) {
        ZSetListpack lp = listpack;
        ZSetTree t = new ZSetTree(Math.max(expected, lp.size()));
        for (int i = 0, off = lp.first(); i < lp.size(); i++, off = lp.next(off)) {
            t.insert(lp.member(off), lp.score(off));
        }
        listpack = null;
        tree = t;
    }

    public boolean isListpack() {
        return listpack != null;
    }

    @Override
    public String typeName() {
        return "zset";
    }

    @Override
    public String encodingName() {
        return listpack != null ? "listpack" : "btree";
    }

    @Override
    public ZSetValue copy() {
        return listpack != null ? new ZSetValue(listpack.copy(), null) : new ZSetValue(null, tree.copy());
    }

    @Override
    public long memoryBytes() {
        return SHALLOW + (listpack != null ? listpack.memoryBytes() : tree.memoryBytes());
    }

    /**
     * Drops a listpack's spare capacity, as after a command that added many members at once (a tree
     * has none).
     */
    public void trimToSize() {
        if (listpack != null) listpack.trimToSize();
    }

    /**
     * Room in a listpack for new members of the given lengths, as before a command adds many at once (one
     * allocation instead of one per growth step); {@link #trimToSize} returns what goes unused.
     */
    public void reserveFor(byte[][] argv, int firstMember, int step, int n) {
        if (listpack == null) return;
        long bytes = 0;
        for (int i = 0; i < n; i++) bytes += ZSetListpack.maxEntrySize(argv[firstMember + i * step].length);
        if (listpack.bytes() + bytes <= LISTPACK_MAX_SAFE) listpack.reserve((int) bytes);
    }

    public int size() {
        return listpack != null ? listpack.size() : tree.size();
    }

    // ---------------------------------------------------------------- members

    /** The score of {@code member}, or NaN when absent (a stored score is never NaN). */
    public double score(byte[] member) {
        if (listpack != null) {
            int off = listpack.find(member);
            return off < 0 ? Double.NaN : listpack.score(off);
        }
        return tree.score(member);
    }

    public boolean contains(byte[] member) {
        return listpack != null ? listpack.find(member) >= 0 : tree.contains(member);
    }

    /**
     * Redis's zsetAdd: adds {@code member} or updates its score under the {@code IN_*} flags; returns the
     * {@code OUT_*} flags. The resulting score (for INCR) is stored in {@code newScore[0]} unless nothing was
     * done. The member array is kept by reference. A listpack that would break a limit becomes a tree.
     */
    public int add(double score, byte[] member, int flags, EncodingLimits limits, double[] newScore) {
        boolean xx = (flags & IN_XX) != 0;
        if (Double.isNaN(score)) return OUT_NAN;
        if (listpack != null) {
            int off = listpack.findOrInsertionPoint(member, score);
            if (off >= 0) {
                int out = update(score, listpack.score(off), flags, newScore);
                if (out == OUT_UPDATED) {
                    listpack.deleteAt(off);
                    listpack.insert(member, newScore[0]);
                }
                return out;
            }
            if (xx) return OUT_NOP;
            if (listpack.size() + 1L > limits.zsetMaxListpackEntries
                    || member.length > limits.zsetMaxListpackValue
                    || listpack.bytes() + (long) member.length > LISTPACK_MAX_SAFE) {
                toTree(listpack.size() + 1);
            } else {
                listpack.insertAt(-off - 1, member, score);
                newScore[0] = score;
                return OUT_ADDED;
            }
        }
        int slot = tree.slotOf(member);
        if (slot >= 0) {
            int out = update(score, tree.scoreIn(slot), flags, newScore);
            if (out == OUT_UPDATED) tree.updateScore(slot, newScore[0]);
            return out;
        }
        if (xx) return OUT_NOP;
        tree.insert(member, score);
        newScore[0] = score;
        return OUT_ADDED;
    }

    /**
     * {@link #add}'s decision for a member already present with score {@code cur}: {@code OUT_NOP} or
     * {@code OUT_NAN}; else the new score goes to {@code newScore[0]} and the result is {@code OUT_UPDATED}
     * when it differs from {@code cur} (the caller then stores it), 0 when it does not.
     */
    private static int update(double score, double cur, int flags, double[] newScore) {
        if ((flags & IN_NX) != 0) return OUT_NOP;
        if ((flags & IN_INCR) != 0) {
            score += cur;
            if (Double.isNaN(score)) return OUT_NAN;
        }
        if (((flags & IN_LT) != 0 && score >= cur) || ((flags & IN_GT) != 0 && score <= cur)) return OUT_NOP;
        newScore[0] = score;
        return score != cur ? OUT_UPDATED : 0;
    }

    /** Removes {@code member}; false when absent. */
    public boolean remove(byte[] member) {
        if (listpack != null) {
            int off = listpack.find(member);
            if (off < 0) return false;
            listpack.deleteAt(off);
            return true;
        }
        return tree.remove(member);
    }

    /** 0-based rank of {@code member} counted from the lowest score (or the highest when reverse), or -1. */
    public long rank(byte[] member, boolean reverse) {
        int n = size();
        int r;
        if (listpack != null) {
            r = listpack.rankOf(member);
            if (r < 0) return -1;
        } else {
            r = tree.rank(member);
            if (r < 0) return -1;
        }
        return reverse ? n - 1 - r : r;
    }

    // ---------------------------------------------------------------- walking

    /**
     * Visits entries from 0-based {@code rank} towards higher ranks (or lower ones when {@code reverse}) until
     * the visitor returns false or the set ends. Listpack members are fresh copies; tree members are the
     * stored arrays (never modified).
     */
    public void walk(int rank, boolean reverse, EntryVisitor v) {
        int n = size();
        if (rank < 0 || rank >= n) return;
        if (listpack != null) {
            ZSetListpack lp = listpack;
            if (!reverse) {
                for (int off = lp.offsetOfRank(rank), i = rank; i < n; i++, off = lp.next(off)) {
                    if (!v.visit(lp.member(off), lp.score(off))) return;
                }
            } else {
                int[] offs = lp.offsets();
                for (int i = rank; i >= 0; i--) {
                    if (!v.visit(lp.member(offs[i]), lp.score(offs[i]))) return;
                }
            }
            return;
        }
        tree.walk(rank, reverse, v);
    }

    /** Every entry in ascending order (or descending when {@code reverse}). */
    public void forEach(boolean reverse, EntryVisitor v) {
        walk(reverse ? size() - 1 : 0, reverse, v);
    }

    /**
     * One ZSCAN step over a tree-encoded set (a listpack is returned whole by the caller): entries of
     * the member map's buckets from {@code cursor} on, with SCAN's guarantee across resizes; returns the next
     * cursor, 0 when complete.
     */
    public long scan(long cursor, int count, EntryVisitor out) {
        if (tree == null) throw new IllegalStateException("scan of a listpack");
        return tree.scan(cursor, count, out);
    }

    // ---------------------------------------------------------------- ranges

    /** Rank of the first entry within {@code r}, or -1 (zzlFirstInRange / zslFirstInRange). */
    public int firstInRange(ScoreRange r) {
        int n = size();
        if (r.isEmpty() || n == 0) return -1;
        int i = countScores(s -> !r.gteMin(s));
        if (i >= n || !r.lteMax(scoreAt(i))) return -1;
        return i;
    }

    /** Rank of the last entry within {@code r}, or -1 (zzlLastInRange / zslLastInRange). */
    public int lastInRange(ScoreRange r) {
        int n = size();
        if (r.isEmpty() || n == 0) return -1;
        int i = countScores(r::lteMax) - 1;
        if (i < 0 || !r.gteMin(scoreAt(i))) return -1;
        return i;
    }

    private interface ScoreTest {
        boolean test(double s);
    }

    /** Length of the prefix of the order whose scores pass {@code t} (t must hold for a prefix). */
    private int countScores(ScoreTest t) {
        if (listpack != null) {
            ZSetListpack lp = listpack;
            int i = 0;
            for (int off = lp.first(); i < lp.size() && t.test(lp.score(off)); off = lp.next(off)) i++;
            return i;
        }
        return tree.countWhile((s, m) -> t.test(s));
    }

    private double scoreAt(int rank) {
        if (listpack != null) return listpack.score(listpack.offsetOfRank(rank));
        return tree.scoreAt(rank);
    }

    private byte[] memberAt(int rank) {
        if (listpack != null) return listpack.member(listpack.offsetOfRank(rank));
        return tree.memberAt(rank);
    }

    /** Number of entries whose score lies in {@code r}. */
    public int countInRange(ScoreRange r) {
        int first = firstInRange(r);
        if (first < 0) return 0;
        return lastInRange(r) - first + 1;
    }

    /** Rank of the first entry within the lexicographic range, or -1 (zzlFirstInLexRange / zslNthInLexRange). */
    public int firstInLex(LexRange r) {
        if (!inLexRange(r)) return -1;
        int n = size();
        if (listpack != null) {
            ZSetListpack lp = listpack;
            int off = lp.first();
            for (int i = 0; i < n; i++, off = lp.next(off)) {
                byte[] m = lp.member(off);
                if (r.gteMin(m)) return r.lteMax(m) ? i : -1;
            }
            return -1;
        }
        int i = tree.countWhile((s, m) -> !r.gteMin(m));
        if (i >= n || !r.lteMax(memberAt(i))) return -1;
        return i;
    }

    /** Rank of the last entry within the lexicographic range, or -1. */
    public int lastInLex(LexRange r) {
        if (!inLexRange(r)) return -1;
        int n = size();
        if (listpack != null) {
            int[] offs = listpack.offsets();
            for (int i = n - 1; i >= 0; i--) {
                byte[] m = listpack.member(offs[i]);
                if (r.lteMax(m)) return r.gteMin(m) ? i : -1;
            }
            return -1;
        }
        int i = tree.countWhile((s, m) -> r.lteMax(m)) - 1;
        if (i < 0 || !r.gteMin(memberAt(i))) return -1;
        return i;
    }

    /** zzlIsInLexRange / zslIsInLexRange: the range is not empty and overlaps [first, last]. */
    private boolean inLexRange(LexRange r) {
        if (r.isEmpty() || size() == 0) return false;
        return r.gteMin(memberAt(size() - 1)) && r.lteMax(memberAt(0));
    }

    /**
     * ZLEXCOUNT: entries from the first in range while they stay within the maximum (listpack), or the rank
     * difference of the first and last in range (tree), as Redis counts.
     */
    public int countInLex(LexRange r) {
        int first = firstInLex(r);
        if (first < 0) return 0;
        if (listpack != null) {
            int[] c = {0};
            walk(first, false, (m, s) -> {
                if (!r.lteMax(m)) return false;
                c[0]++;
                return true;
            });
            return c[0];
        }
        int last = lastInLex(r);
        return last < 0 ? size() - first : last - first + 1;
    }

    // ---------------------------------------------------------------- removal of ranges

    /** Removes the entries of 0-based ranks [start, end] (valid, inclusive); returns how many. */
    public int removeRanks(int start, int end) {
        if (listpack != null) {
            listpack.deleteRanks(start, end);
            return end - start + 1;
        }
        return tree.removeRanks(start, end);
    }

    /** ZREMRANGEBYSCORE's removal; returns how many. */
    public int removeRange(ScoreRange r) {
        int start;
        int end;
        if (listpack != null) {
            start = firstInRange(r);
            if (start < 0) return 0;
        } else {
            start = countScores(s -> !r.gteMin(s));
        }
        end = countScores(r::lteMax);
        if (end <= start) return 0;
        return removeRanks(start, end - 1);
    }

    /** ZREMRANGEBYLEX's removal: from the first member at or above the minimum, while within the maximum. */
    public int removeLex(LexRange r) {
        int start;
        if (listpack != null) {
            start = firstInLex(r);
            if (start < 0) return 0;
        } else {
            start = tree.countWhile((s, m) -> !r.gteMin(m));
            if (start >= size()) return 0;
        }
        int[] k = {0};
        walk(start, false, (m, s) -> {
            if (!r.lteMax(m)) return false;
            k[0]++;
            return true;
        });
        if (k[0] == 0) return 0;
        return removeRanks(start, start + k[0] - 1);
    }
}
