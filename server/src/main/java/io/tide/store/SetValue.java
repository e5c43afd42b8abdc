package io.tide.store;

import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * Confined to the shard thread that owns the key holding it. A set value in one of Redis's three encodings,
 * with Redis 7.4's conversions ({@code t_set.c}):
 * <ul>
 *   <li>"intset" ({@link IntSet}): every member an integer, at most {@code set-max-intset-entries} of them;
 *       iterates in ascending numeric order;</li>
 *   <li>"listpack" ({@link SetListpack}): at most {@code set-max-listpack-entries} members of at most
 *       {@code set-max-listpack-value} bytes; iterates in insertion order;</li>
 *   <li>"hashtable" ({@link ByteMap} with null values): anything larger; iterates in table order.</li>
 * </ul>
 * A set converts up when an insert crosses a threshold (an intset that outgrows its entry limit goes straight
 * to a hashtable; one that receives a non-integer goes to a listpack when that fits, as Redis does) and never
 * converts down, except {@link #convertToIntsetIfIntegers} for results built from scratch. Thresholds are read
 * from the {@link EncodingLimits} passed to each write, so CONFIG SET applies to later writes.
 */
public final class SetValue implements CollectionValue {

    public static final String INTSET = "intset";
    public static final String LISTPACK = "listpack";
    public static final String HASHTABLE = "hashtable";

    /** Header plus three references. */
    private static final long SHALLOW = 32;
    /** An intset holds at most 2^30 members, whatever the configuration says (Redis's intsetMaxEntries). */
    private static final long INTSET_HARD_LIMIT = 1L << 30;
    /** Presizing a hashtable from a hint never reserves more than this many entries up front. */
    private static final long MAX_PRESIZE = 1 << 20;

    // Exactly one is non-null: the current encoding.
    private IntSet ints;
    private SetListpack pack;
    private ByteMap table;

    private SetValue() {}

    @Override
    public int touch() {
        return pack != null ? pack.touch() : 0;
    }

    /** An empty intset-encoded set (to be filled before it is stored: a key never holds an empty set). */
    public static SetValue newIntset() {
        SetValue s = new SetValue();
        s.ints = new IntSet();
        return s;
    }

    /** An empty listpack-encoded set. */
    public static SetValue newListpack() {
        SetValue s = new SetValue();
        s.pack = new SetListpack();
        return s;
    }

    /** An empty hashtable-encoded set sized for {@code expected} members. */
    public static SetValue newHashtable(long expected) {
        SetValue s = new SetValue();
        s.table = new ByteMap((int) Math.min(Math.max(expected, 0), MAX_PRESIZE));
        return s;
    }

    /**
     * Redis's setTypeCreate: an empty set able to hold {@code first}, in the encoding suited to about
     * {@code sizeHint} members: intset when {@code first} is an integer and the hint fits an intset, else
     * listpack when the hint fits one, else a hashtable presized for the hint.
     */
    public static SetValue create(byte[] first, long sizeHint, EncodingLimits limits) {
        if (IntSet.isInteger(first) && sizeHint <= limits.setMaxIntsetEntries) return newIntset();
        if (sizeHint <= limits.setMaxListpackEntries) return newListpack();
        return newHashtable(sizeHint);
    }

    // ---------------------------------------------------------------- CollectionValue

    @Override
    public String typeName() {
        return "set";
    }

    @Override
    public String encodingName() {
        return ints != null ? INTSET : pack != null ? LISTPACK : HASHTABLE;
    }

    @Override
    public SetValue copy() {
        SetValue c = new SetValue();
        if (ints != null) c.ints = ints.copy();
        else if (pack != null) c.pack = pack.copy();
        else c.table = table.copy(v -> v);
        return c;
    }

    @Override
    public long memoryBytes() {
        return SHALLOW + (ints != null ? ints.memoryBytes() : pack != null ? pack.memoryBytes() : table.memoryBytes());
    }

    public boolean isIntset() {
        return ints != null;
    }

    public boolean isListpack() {
        return pack != null;
    }

    public boolean isHashtable() {
        return table != null;
    }

    // ---------------------------------------------------------------- reads

    public int size() {
        return ints != null ? ints.size() : pack != null ? pack.size() : table.size();
    }

    public boolean contains(byte[] member) {
        if (ints != null) return IntSet.isInteger(member) && ints.contains(IntSet.parse(member));
        if (pack != null) return pack.contains(member);
        return table.containsKey(member);
    }

    /**
     * Every member, in the encoding's order (ascending for an intset, insertion order for a listpack, table
     * order for a hashtable). Hashtable members are handed out by reference and must not be modified;
     * {@code action} must not modify this set.
     */
    public void forEach(Consumer<byte[]> action) {
        if (ints != null) {
            for (int i = 0, n = ints.size(); i < n; i++) action.accept(IntSet.toBytes(ints.get(i)));
        } else if (pack != null) {
            pack.forEach(action);
        } else {
            table.forEach((k, v) -> action.accept(k));
        }
    }

    /** The members in {@link #forEach} order. */
    public byte[][] toArray() {
        if (pack != null) return pack.toArray();
        byte[][] out = new byte[size()][];
        int[] i = {0};
        forEach(m -> out[i[0]++] = m);
        return out;
    }

    /** A uniformly random member; the set must not be empty. */
    public byte[] random(RandomGenerator rnd) {
        if (ints != null) return IntSet.toBytes(ints.random(rnd));
        if (pack != null) return pack.get(rnd.nextInt(pack.size()));
        return table.keyAt(table.randomSlot(rnd));
    }

    /**
     * Listpack only: {@code count} distinct random members in list order (Redis's lpNextRandom walk), removed
     * from the set when {@code remove} is set.
     */
    public byte[][] sampleListpack(int count, boolean remove, RandomGenerator rnd) {
        return pack.sample(count, remove, rnd);
    }

    /**
     * One SSCAN step. A hashtable walks its buckets from {@code cursor} and returns the next cursor (0 when
     * done), keeping SCAN's guarantee across resizes; the compact encodings emit every member and return 0,
     * whatever the cursor, as Redis does.
     */
    public long scan(long cursor, int count, Consumer<byte[]> out) {
        if (table != null) return table.scan(cursor, count, (k, v) -> out.accept(k));
        forEach(out);
        return 0;
    }

    // ---------------------------------------------------------------- writes

    /**
     * Redis's setTypeMaybeConvert, run by SADD before adding {@code sizeHint} members to an existing set: a
     * listpack or intset that the hint alone would overflow becomes a hashtable at once.
     */
    public void convertForHint(long sizeHint, EncodingLimits limits) {
        if ((pack != null && sizeHint > limits.setMaxListpackEntries)
                || (ints != null && sizeHint > limits.setMaxIntsetEntries)) {
            toHashtable(sizeHint);
        }
    }

    /** Adds {@code member} (kept by reference in a hashtable: never modify it afterwards); false if present. */
    public boolean add(byte[] member, EncodingLimits limits) {
        if (table != null) return table.put(member, null);
        if (pack != null) {
            if (pack.contains(member)) return false;
            if (pack.size() < limits.setMaxListpackEntries && member.length <= limits.setMaxListpackValue) {
                pack.append(member);
            } else {
                toHashtable(pack.size() + 1L);
                table.put(member, null);
            }
            return true;
        }
        if (IntSet.isInteger(member)) return addToIntset(IntSet.parse(member), limits);
        // A non-integer: a listpack if the members (at their longest) and the new one fit one, else a hashtable.
        int n = ints.size();
        int longest = n == 0 ? 0 : Math.max(IntSet.digits(ints.min()), IntSet.digits(ints.max()));
        if (n < limits.setMaxListpackEntries && member.length <= limits.setMaxListpackValue
                && longest <= limits.setMaxListpackValue) {
            SetListpack p = new SetListpack();
            for (int i = 0; i < n; i++) p.append(IntSet.toBytes(ints.get(i)));
            p.append(member);
            ints = null;
            pack = p;
        } else {
            toHashtable(n + 1L);
            table.put(member, null);
        }
        return true;
    }

    /** Adds an integer member (an intset adds it without formatting); false if present. */
    public boolean addInteger(long v, EncodingLimits limits) {
        return ints != null ? addToIntset(v, limits) : add(IntSet.toBytes(v), limits);
    }

    private boolean addToIntset(long v, EncodingLimits limits) {
        if (!ints.add(v)) return false;
        if (ints.size() > intsetMaxEntries(limits)) toHashtable(ints.size());
        return true;
    }

    /** Removes {@code member}; false when absent. The encoding stays as it is. */
    public boolean remove(byte[] member) {
        if (ints != null) return IntSet.isInteger(member) && ints.remove(IntSet.parse(member));
        if (pack != null) return pack.remove(member);
        return table.remove(member);
    }

    /** Removes and returns a uniformly random member; the set must not be empty. */
    public byte[] popRandom(RandomGenerator rnd) {
        if (ints != null) {
            int i = rnd.nextInt(ints.size());
            long v = ints.get(i);
            ints.removeAt(i);
            return IntSet.toBytes(v);
        }
        if (pack != null) return pack.removeAt(rnd.nextInt(pack.size()));
        int slot = table.randomSlot(rnd);
        byte[] m = table.keyAt(slot);
        table.removeAt(slot);
        table.shrinkIfSparse();
        return m;
    }

    /**
     * Redis's maybeConvertToIntset for a result built from scratch (SINTERSTORE): becomes an intset when every
     * member is an integer and there are at most {@code set-max-intset-entries} of them.
     */
    public void convertToIntsetIfIntegers(EncodingLimits limits) {
        if (ints != null || size() > intsetMaxEntries(limits)) return;
        IntSet s = new IntSet();
        if (pack != null) {
            if (!pack.allIntegers()) return;
            pack.forEach(m -> s.add(IntSet.parse(m)));
        } else {
            for (int i = 0; i < table.capacity(); i++) {
                byte[] k = table.keyAt(i);
                if (k == null) continue;
                if (!IntSet.isInteger(k)) return;
                s.add(IntSet.parse(k));
            }
        }
        ints = s;
        pack = null;
        table = null;
    }

    private void toHashtable(long expected) {
        ByteMap t = new ByteMap((int) Math.min(Math.max(expected, size()), MAX_PRESIZE));
        forEach(m -> t.put(m, null));
        ints = null;
        pack = null;
        table = t;
    }

    private static long intsetMaxEntries(EncodingLimits limits) {
        return Math.min(limits.setMaxIntsetEntries, INTSET_HARD_LIMIT);
    }
}
