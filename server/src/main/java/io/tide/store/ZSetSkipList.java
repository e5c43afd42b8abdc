package io.tide.store;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Confined to the shard thread that owns the sorted set. The scalable encoding of a sorted set, Redis's
 * "skiplist": a skip list ordered by (score, member) whose links carry spans, so ranks are found in
 * O(log n), plus a {@link ByteMap} from member to node for O(1) score lookups and SCAN.
 *
 * <p>Pugh's skip list as Redis uses it: levels drawn with p = 1/4 up to 32, equal scores ordered by
 * member bytes, a backward link at level 0 for reverse walks. To save memory a node keeps its level-0
 * link and span in fields and only the links above in arrays (three nodes in four have none).
 */
final class ZSetSkipList {

    static final int MAX_LEVEL = 32;
    /** Object header plus fields of this object. */
    static final long SHALLOW = 40;

    /** A skip-list node; the value stored in the member map (its size is fixed, so the map can count it). */
    static final class Node implements Sized {
        /** Header, member, score, backward, next, span and the two level arrays. */
        private static final long NODE_BYTES = 48;

        final byte[] member;
        double score;
        Node backward;
        private Node next0;
        private int span0;
        private final Node[] nextUp;
        private final int[] spanUp;

        Node(byte[] member, double score, int level) {
            this.member = member;
            this.score = score;
            this.nextUp = level > 1 ? new Node[level - 1] : null;
            this.spanUp = level > 1 ? new int[level - 1] : null;
        }

        int level() {
            return nextUp == null ? 1 : nextUp.length + 1;
        }

        Node next(int i) {
            return i == 0 ? next0 : nextUp[i - 1];
        }

        void next(int i, Node n) {
            if (i == 0) next0 = n;
            else nextUp[i - 1] = n;
        }

        int span(int i) {
            return i == 0 ? span0 : spanUp[i - 1];
        }

        void span(int i, int s) {
            if (i == 0) span0 = s;
            else spanUp[i - 1] = s;
        }

        /** The node at level 0 after this one. */
        Node next() {
            return next0;
        }

        @Override
        public long memoryBytes() {
            if (nextUp == null) return NODE_BYTES;
            return NODE_BYTES + MemoryCost.bytes(nextUp.length * 4) + MemoryCost.bytes(spanUp.length * 4);
        }
    }

    private final Node header = new Node(null, 0, MAX_LEVEL);
    private Node tail;
    private int length;
    private int level = 1;
    private final ByteMap dict;

    ZSetSkipList(int expected) {
        dict = new ByteMap(Math.max(expected, 0));
    }

    int size() {
        return length;
    }

    long memoryBytes() {
        return SHALLOW + header.memoryBytes() + dict.memoryBytes();
    }

    ByteMap dict() {
        return dict;
    }

    Node first() {
        return header.next(0);
    }

    Node last() {
        return tail;
    }

    private static int compare(double s1, byte[] m1, double s2, byte[] m2) {
        if (s1 < s2) return -1;
        if (s1 > s2) return 1;
        return Arrays.compareUnsigned(m1, m2);
    }

    private static int randomLevel() {
        int lvl = 1;
        ThreadLocalRandom r = ThreadLocalRandom.current();
        while (lvl < MAX_LEVEL && (r.nextInt() & 0xFFFF) < 0x4000) lvl++;
        return lvl;
    }

    // ---------------------------------------------------------------- lookups

    /** The node of {@code member}, or null. */
    Node find(byte[] member) {
        return (Node) dict.get(member);
    }

    /** 1-based rank of the node with this score and member (0 if absent). */
    int rank(double score, byte[] member) {
        int rank = 0;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && compare(f.score, f.member, score, member) <= 0) {
                rank += x.span(i);
                x = f;
            }
            if (x.member != null && x.score == score && Arrays.equals(x.member, member)) return rank;
        }
        return 0;
    }

    /** The node at 1-based {@code rank}, or null. */
    Node byRank(int rank) {
        int traversed = 0;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && traversed + x.span(i) <= rank) {
                traversed += x.span(i);
                x = f;
            }
            if (traversed == rank) return x == header ? null : x;
        }
        return null;
    }

    /**
     * Number of nodes from the head while {@code before} holds (a predicate that is true for a prefix of the
     * order): the 0-based rank of the first node for which it fails, found by descending the levels.
     */
    int countWhile(NodePredicate before) {
        int rank = 0;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && before.test(f)) {
                rank += x.span(i);
                x = f;
            }
        }
        return rank;
    }

    @FunctionalInterface
    interface NodePredicate {
        boolean test(Node n);
    }

    // ---------------------------------------------------------------- updates

    /** Inserts a member known to be absent. */
    Node insert(byte[] member, double score) {
        Node node = new Node(member, score, randomLevel());
        link(node);
        dict.put(member, node);
        return node;
    }

    /** Links {@code x} (not in the list) at its place, keeping its level. */
    private void link(Node x) {
        int size = Math.max(level, x.level());
        Node[] update = new Node[size];
        int[] rank = new int[size];
        Node cur = header;
        for (int i = level - 1; i >= 0; i--) {
            rank[i] = i == level - 1 ? 0 : rank[i + 1];
            Node f;
            while ((f = cur.next(i)) != null && compare(f.score, f.member, x.score, x.member) < 0) {
                rank[i] += cur.span(i);
                cur = f;
            }
            update[i] = cur;
        }
        int lvl = x.level();
        if (lvl > level) {
            for (int i = level; i < lvl; i++) {
                rank[i] = 0;
                update[i] = header;
                header.span(i, length);
            }
            level = lvl;
        }
        for (int i = 0; i < lvl; i++) {
            x.next(i, update[i].next(i));
            update[i].next(i, x);
            x.span(i, update[i].span(i) - (rank[0] - rank[i]));
            update[i].span(i, (rank[0] - rank[i]) + 1);
        }
        for (int i = lvl; i < level; i++) update[i].span(i, update[i].span(i) + 1);
        x.backward = update[0] == header ? null : update[0];
        if (x.next(0) != null) x.next(0).backward = x;
        else tail = x;
        length++;
    }

    /** Unlinks {@code x} from the list (the member map is left alone). */
    private void unlink(Node x) {
        Node[] update = new Node[level];
        Node cur = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = cur.next(i)) != null && compare(f.score, f.member, x.score, x.member) < 0) cur = f;
            update[i] = cur;
        }
        unlink(x, update);
    }

    private void unlink(Node x, Node[] update) {
        for (int i = 0; i < level; i++) {
            if (update[i].next(i) == x) {
                update[i].span(i, update[i].span(i) + x.span(i) - 1);
                update[i].next(i, x.next(i));
            } else {
                update[i].span(i, update[i].span(i) - 1);
            }
        }
        if (x.next(0) != null) x.next(0).backward = x.backward;
        else tail = x.backward;
        while (level > 1 && header.next(level - 1) == null) level--;
        length--;
    }

    /** Removes {@code member}; false when absent. */
    boolean remove(byte[] member) {
        int slot = dict.indexOf(member);
        if (slot < 0) return false;
        Node x = (Node) dict.valueAt(slot);
        dict.removeAt(slot);
        dict.shrinkIfSparse();
        unlink(x);
        return true;
    }

    /** Changes a node's score, moving it only when its place changes (zslUpdateScore). */
    void updateScore(Node x, double newScore) {
        if ((x.backward == null || x.backward.score < newScore)
                && (x.next(0) == null || x.next(0).score > newScore)) {
            x.score = newScore;
            return;
        }
        unlink(x);
        x.score = newScore;
        link(x);
    }

    /** Removes the nodes of 1-based ranks [start, end]; returns how many. */
    int removeRanks(int start, int end) {
        Node[] update = new Node[level];
        int traversed = 0;
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && traversed + x.span(i) < start) {
                traversed += x.span(i);
                x = f;
            }
            update[i] = x;
        }
        traversed++;
        x = x.next(0);
        int removed = 0;
        while (x != null && traversed <= end) {
            Node next = x.next(0);
            unlink(x, update);
            dict.removeAt(dict.indexOf(x.member));
            removed++;
            traversed++;
            x = next;
        }
        dict.shrinkIfSparse();
        return removed;
    }

    /** A deep copy: same members (never modified), fresh nodes, same order. */
    ZSetSkipList copy() {
        ZSetSkipList c = new ZSetSkipList(length);
        for (Node n = tail; n != null; n = n.backward) c.insert(n.member, n.score);
        return c;
    }
}
