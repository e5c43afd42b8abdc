package io.tide.store;

import java.util.Arrays;

/**
 * Confined to the shard thread that owns the sorted set. The scalable encoding of a sorted set, "btree" (Redis's is a
 * skip list, "skiplist"; decision 0021): a B+ tree ordered by (score, member) whose inner
 * nodes count the entries under each child, so that ranks are found in O(log n), plus a {@link ByteMap} from member
 * to the leaf holding it, for O(1) score lookups and ZSCAN.
 *
 * <p>A leaf holds up to {@value #LEAF_CAPACITY} entries in two parallel arrays (member references and scores), and
 * the leaves are linked both ways for walks. An inner node holds, per child, the number of entries under it and a
 * separator: a key at or below every key of that child and above every key of the child before it (the first key of
 * the child when it was split off; removals leave it valid). Equal scores order by member bytes, as in Redis.
 *
 * <p>Memory: an entry costs its member array (kept by reference, as the skip list kept it), 12 bytes of leaf
 * (reference and score) over the leaf's fill, and its slot in the member map; a skip list node cost about 52 bytes
 * instead of the 12. To keep leaves full, a split at the end of the last leaf (members added in ascending order, as a
 * load or a conversion adds them) or at the start of the first leaf leaves the full leaf full; other splits halve.
 * A leaf or inner node under half full is merged into a neighbour when the two fill at most three quarters of one.
 */
final class ZSetTree {

    static final int LEAF_CAPACITY = 128;
    static final int INNER_CAPACITY = 64;
    /** Object header plus fields of this object. */
    static final long SHALLOW = 48;
    /** Header plus fields of a leaf object. */
    private static final long LEAF_OBJECT = 32;
    /** Header plus fields of an inner node object. */
    private static final long INNER_OBJECT = 32;

    /** A leaf: the value of its members in the member map (counted by the tree, so it reports no bytes). */
    static final class Leaf implements Sized {
        final byte[][] members;
        final double[] scores;
        int n;
        Leaf prev;
        Leaf next;

        Leaf(int capacity) {
            members = new byte[capacity][];
            scores = new double[capacity];
        }

        /** Position of the stored member array {@code m} (compared by reference), or -1. */
        int indexOf(byte[] m) {
            byte[][] ms = members;
            for (int j = 0, k = n; j < k; j++) {
                if (ms[j] == m) return j;
            }
            return -1;
        }

        @Override
        public long memoryBytes() {
            return 0;
        }
    }

    private static final class Inner {
        final Object[] kids;
        final int[] counts;
        final double[] sepScores;
        final byte[][] sepMembers;
        int n;

        Inner(int capacity) {
            kids = new Object[capacity];
            counts = new int[capacity];
            sepScores = new double[capacity];
            sepMembers = new byte[capacity][];
        }
    }

    /** A test on keys that holds for a prefix of the order (true, then false from some key on). */
    @FunctionalInterface
    interface KeyTest {
        boolean test(double score, byte[] member);
    }

    private final int leafCapacity;
    private final int innerCapacity;
    private final ByteMap dict;
    private Object root;
    private Leaf head;
    private Leaf tail;
    private int size;
    private long nodeBytes;
    /** The position within the leaf last returned by {@link #leafAt}. */
    private int at;

    ZSetTree(int expected) {
        this(expected, LEAF_CAPACITY, INNER_CAPACITY);
    }

    /** A tree with the given node capacities (tests use small ones to build deep trees from few entries). */
    ZSetTree(int expected, int leafCapacity, int innerCapacity) {
        if (leafCapacity < 4 || innerCapacity < 4) throw new IllegalArgumentException("node capacity under 4");
        this.leafCapacity = leafCapacity;
        this.innerCapacity = innerCapacity;
        dict = new ByteMap(Math.max(expected, 0));
        Leaf l = newLeaf();
        root = head = tail = l;
    }

    int size() {
        return size;
    }

    long memoryBytes() {
        return SHALLOW + nodeBytes + dict.memoryBytes();
    }

    /** Levels from the root to the leaves (1 for a single leaf). */
    int height() {
        int h = 1;
        for (Object x = root; x instanceof Inner in; x = in.kids[0]) h++;
        return h;
    }

    private static int compare(double s1, byte[] m1, double s2, byte[] m2) {
        if (s1 < s2) return -1;
        if (s1 > s2) return 1;
        return Arrays.compareUnsigned(m1, m2);
    }

    // ---------------------------------------------------------------- lookups

    /** The member map's slot of {@code member}, or -1: valid for {@link #scoreIn} and
     * {@link #updateScore} until the set changes. */
    int slotOf(byte[] member) {
        return dict.indexOf(member);
    }

    /** The score of the member in map slot {@code slot} (from {@link #slotOf}). */
    double scoreIn(int slot) {
        Leaf l = (Leaf) dict.valueAt(slot);
        return l.scores[l.indexOf(dict.keyAt(slot))];
    }

    /** The score of {@code member}, or NaN when absent. */
    double score(byte[] member) {
        int slot = dict.indexOf(member);
        return slot < 0 ? Double.NaN : scoreIn(slot);
    }

    boolean contains(byte[] member) {
        return dict.containsKey(member);
    }

    /** 0-based rank of {@code member}, or -1 when absent. */
    int rank(byte[] member) {
        int slot = dict.indexOf(member);
        if (slot < 0) return -1;
        byte[] m = dict.keyAt(slot);
        double s = scoreIn(slot);
        int r = 0;
        Object x = root;
        while (x instanceof Inner in) {
            int i = route(in, s, m);
            for (int k = 0; k < i; k++) r += in.counts[k];
            x = in.kids[i];
        }
        return r + search((Leaf) x, s, m);
    }

    double scoreAt(int rank) {
        Leaf l = leafAt(rank);
        return l.scores[at];
    }

    byte[] memberAt(int rank) {
        Leaf l = leafAt(rank);
        return l.members[at];
    }

    /** The leaf holding 0-based {@code rank} (valid), its position there left in {@link #at}. */
    private Leaf leafAt(int rank) {
        Object x = root;
        while (x instanceof Inner in) {
            int i = 0;
            while (rank >= in.counts[i]) rank -= in.counts[i++];
            x = in.kids[i];
        }
        at = rank;
        return (Leaf) x;
    }

    /**
     * Number of entries from the first while {@code t} holds (it must hold for a prefix of the order): the 0-based
     * rank of the first entry for which it fails. Separators are keys of the order, so the descent tests them.
     */
    int countWhile(KeyTest t) {
        int r = 0;
        Object x = root;
        while (x instanceof Inner in) {
            int i = 0;
            int lo = 1;
            int hi = in.n - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (t.test(in.sepScores[mid], in.sepMembers[mid])) {
                    i = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            for (int k = 0; k < i; k++) r += in.counts[k];
            x = in.kids[i];
        }
        Leaf l = (Leaf) x;
        int lo = 0;
        int hi = l.n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (t.test(l.scores[mid], l.members[mid])) lo = mid + 1;
            else hi = mid;
        }
        return r + lo;
    }

    /**
     * Visits entries from 0-based {@code rank} towards higher ranks (or lower ones when {@code reverse}) until the
     * visitor returns false or the set ends. Members are the stored arrays (never modified); the visitor must not
     * change the set.
     */
    void walk(int rank, boolean reverse, ZSetValue.EntryVisitor v) {
        if (rank < 0 || rank >= size) return;
        Leaf l = leafAt(rank);
        int j = at;
        if (!reverse) {
            for (; l != null; l = l.next, j = 0) {
                for (; j < l.n; j++) {
                    if (!v.visit(l.members[j], l.scores[j])) return;
                }
            }
        } else {
            while (l != null) {
                for (; j >= 0; j--) {
                    if (!v.visit(l.members[j], l.scores[j])) return;
                }
                l = l.prev;
                if (l != null) j = l.n - 1;
            }
        }
    }

    /**
     * One ZSCAN step: entries of the member map's buckets from {@code cursor} on, with SCAN's guarantee across
     * resizes; returns the next cursor, 0 when complete.
     */
    long scan(long cursor, int count, ZSetValue.EntryVisitor out) {
        return dict.scan(cursor, count, (m, leaf) -> {
            Leaf l = (Leaf) leaf;
            out.visit(m, l.scores[l.indexOf(m)]);
        });
    }

    // ---------------------------------------------------------------- updates

    /** Inserts a member known to be absent; the array is kept by reference. */
    void insert(byte[] member, double score) {
        Object split = insert(root, member, score, true, true);
        if (split != null) {
            Inner r = newInner();
            Object old = root;
            r.n = 2;
            r.kids[0] = old;
            r.counts[0] = count(old);
            r.kids[1] = split;
            r.counts[1] = count(split);
            setSeparator(r, 1, split);
            root = r;
        }
        size++;
    }

    /** Inserts into the subtree of {@code x}; returns the new right sibling when {@code x} split, else null. */
    private Object insert(Object x, byte[] m, double s, boolean leftmost, boolean rightmost) {
        if (x instanceof Leaf l) return insertInLeaf(l, m, s, leftmost, rightmost);
        Inner in = (Inner) x;
        int i = route(in, s, m);
        Object split = insert(in.kids[i], m, s, leftmost && i == 0, rightmost && i == in.n - 1);
        in.counts[i]++;
        if (split == null) return null;
        int c = count(split);
        in.counts[i] -= c;
        return addChild(in, i + 1, split, c, leftmost, rightmost);
    }

    private Leaf insertInLeaf(Leaf l, byte[] m, double s, boolean leftmost, boolean rightmost) {
        int pos = -search(l, s, m) - 1;
        if (l.n < leafCapacity) {
            put(l, pos, m, s);
            dict.put(m, l);
            return null;
        }
        int n = l.n;
        int mid = rightmost && pos == n ? n : leftmost && pos == 0 ? 0 : n / 2;
        Leaf r = newLeaf();
        moveEntries(l, mid, r, 0, n - mid);
        l.n = mid;
        r.n = n - mid;
        r.prev = l;
        r.next = l.next;
        if (l.next != null) l.next.prev = r;
        else tail = r;
        l.next = r;
        Leaf target = pos < mid || (pos == mid && mid == 0) ? l : r;
        put(target, target == l ? pos : pos - mid, m, s);
        dict.put(m, target);
        return r;
    }

    /**
     * Puts {@code kid} at position {@code p} of {@code in}; when {@code in} is full, splits it and returns the new
     * right node (after the last child of the last node, the full node stays full; after the first child of the first
     * node, the full node's other children go right).
     */
    private Inner addChild(Inner in, int p, Object kid, int count, boolean leftmost, boolean rightmost) {
        if (in.n < innerCapacity) {
            openChild(in, p, kid, count);
            return null;
        }
        int n = in.n;
        int mid = rightmost && p == n ? n : leftmost && p == 1 ? 1 : n / 2;
        Inner r = newInner();
        copyChildren(in, mid, r, 0, n - mid);
        Arrays.fill(in.kids, mid, n, null);
        Arrays.fill(in.sepMembers, mid, n, null);
        r.n = n - mid;
        in.n = mid;
        if (p < mid) openChild(in, p, kid, count);
        else openChild(r, p - mid, kid, count);
        return r;
    }

    /** Copies {@code k} children (counts and separators too) from {@code from}@{@code p} to {@code to}@{@code q}. */
    private static void copyChildren(Inner from, int p, Inner to, int q, int k) {
        System.arraycopy(from.kids, p, to.kids, q, k);
        System.arraycopy(from.counts, p, to.counts, q, k);
        System.arraycopy(from.sepScores, p, to.sepScores, q, k);
        System.arraycopy(from.sepMembers, p, to.sepMembers, q, k);
    }

    private void openChild(Inner in, int p, Object kid, int count) {
        int tailLen = in.n - p;
        copyChildren(in, p, in, p + 1, tailLen);
        in.kids[p] = kid;
        in.counts[p] = count;
        setSeparator(in, p, kid);
        in.n++;
    }

    /** The separator of a new child: a leaf's first key, an inner node's own first separator. */
    private static void setSeparator(Inner in, int p, Object kid) {
        if (kid instanceof Leaf l) {
            in.sepScores[p] = l.scores[0];
            in.sepMembers[p] = l.members[0];
        } else {
            Inner k = (Inner) kid;
            in.sepScores[p] = k.sepScores[0];
            in.sepMembers[p] = k.sepMembers[0];
        }
    }

    /** Removes {@code member}; false when absent. */
    boolean remove(byte[] member) {
        int slot = dict.indexOf(member);
        if (slot < 0) return false;
        byte[] m = dict.keyAt(slot);
        double s = scoreIn(slot);
        dict.removeAt(slot);
        removeKey(s, m);
        dict.shrinkIfSparse();
        return true;
    }

    /**
     * Changes the score of the member in map slot {@code slot} (from {@link #slotOf}), moving it only when its place
     * changes (zslUpdateScore).
     */
    void updateScore(int slot, double newScore) {
        byte[] m = dict.keyAt(slot);
        Leaf l = (Leaf) dict.valueAt(slot);
        int j = l.indexOf(m);
        double old = l.scores[j];
        // In place when it stays between its neighbours in the leaf; at either end of the leaf only when it moves
        // inwards, so that the separators around the leaf stay valid.
        boolean lowOk = j > 0 ? compare(l.scores[j - 1], l.members[j - 1], newScore, m) < 0 : newScore >= old;
        boolean highOk = j < l.n - 1 ? compare(newScore, m, l.scores[j + 1], l.members[j + 1]) < 0 : newScore <= old;
        if (lowOk && highOk) {
            l.scores[j] = newScore;
            return;
        }
        removeKey(old, m);
        insert(m, newScore);
    }

    /** Removes the entries of 0-based ranks [start, end] (valid, inclusive); returns how many. */
    int removeRanks(int start, int end) {
        int total = end - start + 1;
        for (int left = total; left > 0; ) {
            int k = removeRun(root, start, left);
            left -= k;
            size -= k;
            collapseRoot();
        }
        dict.shrinkIfSparse();
        return total;
    }

    /** Removes from the entry of {@code rank} on, at most {@code max}, within one leaf; returns how many. */
    private int removeRun(Object x, int rank, int max) {
        if (x instanceof Leaf l) {
            int k = Math.min(max, l.n - rank);
            for (int j = rank; j < rank + k; j++) dict.removeAt(dict.indexOf(l.members[j]));
            cut(l, rank, k);
            return k;
        }
        Inner in = (Inner) x;
        int i = 0;
        while (rank >= in.counts[i]) rank -= in.counts[i++];
        int k = removeRun(in.kids[i], rank, max);
        in.counts[i] -= k;
        rebalance(in, i);
        return k;
    }

    /** Takes the key out of the tree; the member map is the caller's. */
    private void removeKey(double s, byte[] m) {
        removeFrom(root, s, m);
        size--;
        collapseRoot();
    }

    private void removeFrom(Object x, double s, byte[] m) {
        if (x instanceof Leaf l) {
            cut(l, search(l, s, m), 1);
            return;
        }
        Inner in = (Inner) x;
        int i = route(in, s, m);
        removeFrom(in.kids[i], s, m);
        in.counts[i]--;
        rebalance(in, i);
    }

    /**
     * Merges child {@code i} into a neighbour when it is under half full and the two fill at most three quarters of
     * one node (the margin keeps a merge and a split from following each other on every other change).
     */
    private void rebalance(Inner in, int i) {
        Object kid = in.kids[i];
        int n = width(kid);
        int cap = kid instanceof Leaf ? leafCapacity : innerCapacity;
        if (n >= cap / 2) return;
        if (n == 0) {
            drop(in, i);
            return;
        }
        if (i > 0 && n + width(in.kids[i - 1]) <= cap * 3 / 4) merge(in, i - 1);
        else if (i + 1 < in.n && n + width(in.kids[i + 1]) <= cap * 3 / 4) merge(in, i);
    }

    /** Takes the empty child {@code i} out of {@code in} (an inner node left without children goes the same way). */
    private void drop(Inner in, int i) {
        if (in.kids[i] instanceof Leaf l) {
            if (l.prev != null) l.prev.next = l.next;
            else head = l.next;
            if (l.next != null) l.next.prev = l.prev;
            else tail = l.prev;
            nodeBytes -= leafBytes();
        } else {
            nodeBytes -= innerBytes();
        }
        removeChild(in, i);
    }

    private static void removeChild(Inner in, int i) {
        int tailLen = in.n - i - 1;
        copyChildren(in, i + 1, in, i, tailLen);
        in.n--;
        in.kids[in.n] = null;
        in.sepMembers[in.n] = null;
    }

    private static int width(Object x) {
        return x instanceof Leaf l ? l.n : ((Inner) x).n;
    }

    /** Moves child {@code j + 1} of {@code in} into child {@code j} and drops it. */
    private void merge(Inner in, int j) {
        Object a = in.kids[j];
        Object b = in.kids[j + 1];
        if (a instanceof Leaf l) {
            Leaf r = (Leaf) b;
            moveEntries(r, 0, l, l.n, r.n);
            l.n += r.n;
            l.next = r.next;
            if (r.next != null) r.next.prev = l;
            else tail = l;
            nodeBytes -= leafBytes();
        } else {
            Inner l = (Inner) a;
            Inner r = (Inner) b;
            copyChildren(r, 0, l, l.n, r.n);
            // The parent's separator of the right node bounds its first child on both sides.
            l.sepScores[l.n] = in.sepScores[j + 1];
            l.sepMembers[l.n] = in.sepMembers[j + 1];
            l.n += r.n;
            nodeBytes -= innerBytes();
        }
        in.counts[j] += in.counts[j + 1];
        removeChild(in, j + 1);
    }

    /** A root with one child gives way to it; one with none (everything removed) to a new empty leaf. */
    private void collapseRoot() {
        while (root instanceof Inner in && in.n <= 1) {
            nodeBytes -= innerBytes();
            if (in.n == 1) {
                root = in.kids[0];
            } else {
                Leaf l = newLeaf();
                root = head = tail = l;
            }
        }
    }

    /** A deep copy: the same member arrays (never modified), fresh nodes and map, the same order. */
    ZSetTree copy() {
        ZSetTree c = new ZSetTree(size, leafCapacity, innerCapacity);
        for (Leaf l = head; l != null; l = l.next) {
            for (int j = 0; j < l.n; j++) c.insert(l.members[j], l.scores[j]);
        }
        return c;
    }

    /**
     * Checks the structure (for tests): counts match the entries under each child, every key of a child lies at or
     * above its separator and below the next one, the leaf chain holds every entry in order, and the member map
     * points at the leaf of each member.
     */
    void verify() {
        int[] seen = {0};
        check(root, Double.NEGATIVE_INFINITY, null, Double.POSITIVE_INFINITY, null, seen);
        if (seen[0] != size || dict.size() != size) {
            throw new IllegalStateException("size " + size + " counted " + seen[0]);
        }
        int chained = 0;
        Leaf prev = null;
        for (Leaf l = head; l != null; prev = l, l = l.next) {
            if (l.prev != prev) throw new IllegalStateException("broken back link");
            for (int j = 0; j < l.n; j++) {
                if (dict.get(l.members[j]) != l) throw new IllegalStateException("map points elsewhere");
            }
            chained += l.n;
        }
        if (prev != tail || chained != size) throw new IllegalStateException("leaf chain holds " + chained);
    }

    private static int check(Object x, double loS, byte[] loM, double hiS, byte[] hiM, int[] seen) {
        if (x instanceof Leaf l) {
            for (int j = 0; j < l.n; j++) {
                if (loM != null && compare(loS, loM, l.scores[j], l.members[j]) > 0
                        || hiM != null && compare(l.scores[j], l.members[j], hiS, hiM) >= 0
                        || j > 0 && compare(l.scores[j - 1], l.members[j - 1], l.scores[j], l.members[j]) >= 0) {
                    throw new IllegalStateException("key out of order at " + j);
                }
            }
            seen[0] += l.n;
            return l.n;
        }
        Inner in = (Inner) x;
        int total = 0;
        for (int i = 0; i < in.n; i++) {
            double cLoS = i == 0 ? loS : in.sepScores[i];
            byte[] cLoM = i == 0 ? loM : in.sepMembers[i];
            double cHiS = i + 1 < in.n ? in.sepScores[i + 1] : hiS;
            byte[] cHiM = i + 1 < in.n ? in.sepMembers[i + 1] : hiM;
            int c = check(in.kids[i], cLoS, cLoM, cHiS, cHiM, seen);
            if (c != in.counts[i]) throw new IllegalStateException("count " + in.counts[i] + " for " + c);
            total += c;
        }
        return total;
    }

    // ---------------------------------------------------------------- nodes

    /** Child of {@code in} whose range holds the key: the last whose separator is at or below it (else the first). */
    private static int route(Inner in, double s, byte[] m) {
        int r = 0;
        int lo = 1;
        int hi = in.n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (compare(in.sepScores[mid], in.sepMembers[mid], s, m) <= 0) {
                r = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return r;
    }

    /** Position of the key in the leaf, or -(insertion point) - 1. */
    private static int search(Leaf l, double s, byte[] m) {
        int lo = 0;
        int hi = l.n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = compare(l.scores[mid], l.members[mid], s, m);
            if (c < 0) lo = mid + 1;
            else if (c > 0) hi = mid - 1;
            else return mid;
        }
        return -lo - 1;
    }

    private static int count(Object x) {
        if (x instanceof Leaf l) return l.n;
        Inner in = (Inner) x;
        int c = 0;
        for (int i = 0; i < in.n; i++) c += in.counts[i];
        return c;
    }

    private static void put(Leaf l, int p, byte[] m, double s) {
        int tailLen = l.n - p;
        System.arraycopy(l.members, p, l.members, p + 1, tailLen);
        System.arraycopy(l.scores, p, l.scores, p + 1, tailLen);
        l.members[p] = m;
        l.scores[p] = s;
        l.n++;
    }

    /** Removes {@code k} entries from position {@code p} of the leaf. */
    private static void cut(Leaf l, int p, int k) {
        int tailLen = l.n - p - k;
        System.arraycopy(l.members, p + k, l.members, p, tailLen);
        System.arraycopy(l.scores, p + k, l.scores, p, tailLen);
        l.n -= k;
        Arrays.fill(l.members, l.n, l.n + k, null);
    }

    /** Copies {@code k} entries of {@code from} (from {@code p}) to {@code to} (at {@code q}), updating the map. */
    private void moveEntries(Leaf from, int p, Leaf to, int q, int k) {
        System.arraycopy(from.members, p, to.members, q, k);
        System.arraycopy(from.scores, p, to.scores, q, k);
        Arrays.fill(from.members, p, p + k, null);
        for (int j = q; j < q + k; j++) dict.setValueAt(dict.indexOf(to.members[j]), to);
    }

    private Leaf newLeaf() {
        nodeBytes += leafBytes();
        return new Leaf(leafCapacity);
    }

    private Inner newInner() {
        nodeBytes += innerBytes();
        return new Inner(innerCapacity);
    }

    private long leafBytes() {
        return LEAF_OBJECT + MemoryCost.references(leafCapacity) + MemoryCost.bytes(8 * leafCapacity);
    }

    private long innerBytes() {
        return INNER_OBJECT + 2 * MemoryCost.references(innerCapacity) + MemoryCost.bytes(4 * innerCapacity)
                + MemoryCost.bytes(8 * innerCapacity);
    }
}
