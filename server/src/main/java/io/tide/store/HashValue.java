package io.tide.store;

import java.util.Arrays;
import java.util.function.BiConsumer;
import java.util.random.RandomGenerator;

/**
 * Confined to the shard thread that owns the key. A hash value: field to value, each field optionally with
 * its own expiry (Redis 7.4's hash field expiration).
 *
 * <p>Encodings, as Redis names and switches them: "listpack" ({@link HashListpack}, one packed array) while
 * the hash holds at most {@code hash-max-listpack-entries} entries and every field and value written is at
 * most {@code hash-max-listpack-value} bytes; "listpackex", the same with a TTL column, once a field-expiry
 * command has touched the hash; "hashtable" ({@link HashDict}) beyond the thresholds. A hash never converts
 * back down.
 *
 * <p>Expiry: a field whose expiry is before the command's clock has expired. This class keeps expired fields
 * until {@link #expireFields} removes them; the hash commands call it (unbounded) before serving a hash, so
 * expired fields are never seen, and an active cycle can call it with a budget. The caller deletes the key
 * when the hash becomes empty and reports memory changes to the database.
 */
public final class HashValue implements FieldExpiring {

    /** {@link #fieldExpireAt}'s answer for a field that is not there. */
    public static final long NO_FIELD = -2;

    // Conditions of HEXPIRE and friends.
    public static final int NX = 1;
    public static final int XX = 1 << 1;
    public static final int GT = 1 << 2;
    public static final int LT = 1 << 3;

    // Per-field answers of setExpire and persist, as Redis replies them.
    public static final int EXPIRE_NO_FIELD = -2;
    public static final int EXPIRE_NOT_MET = 0;
    public static final int EXPIRE_SET = 1;
    public static final int EXPIRE_DELETED = 2;
    public static final int PERSIST_NO_TTL = -1;
    public static final int PERSIST_DONE = 1;

    /** Redis's LISTPACK_MAX_SAFETY_SIZE: a listpack that would grow past it converts. */
    private static final long LISTPACK_SAFETY_BYTES = 1L << 30;
    /** Header and fields of this object. */
    private static final long SHALLOW = 32;

    /**
     * Compact form ("listpack"/"listpackex"), or null in the hashtable form: the entries fill its first
     * {@link #lpLen} bytes, the rest is room to grow in place ({@link HashListpack#EMPTY} when empty).
     */
    private byte[] lp;
    /** Bytes of {@link #lp} in use. */
    private int lpLen;
    private int lpEntries;
    /** The compact form carries the TTL column ("listpackex"). */
    private boolean lpTtl;
    /** Hashtable form, or null. */
    private HashDict dict;

    /** An empty hash in the listpack encoding. */
    public HashValue() {
        lp = HashListpack.EMPTY;
    }

    private HashValue(byte[] lp, int len, int entries, boolean ttl, HashDict dict) {
        this.lp = lp;
        this.lpLen = len;
        this.lpEntries = entries;
        this.lpTtl = ttl;
        this.dict = dict;
    }

    @Override
    public String typeName() {
        return "hash";
    }

    @Override
    public int touch() {
        return CollectionValue.touchLines(lp);
    }

    @Override
    public String encodingName() {
        if (lp == null) return "hashtable";
        return lpTtl ? "listpackex" : "listpack";
    }

    /** True in the listpack and listpackex encodings. */
    public boolean isCompact() {
        return lp != null;
    }

    /** Number of fields, expired ones not yet removed included. */
    public int size() {
        return lp != null ? lpEntries : dict.size();
    }

    public boolean isEmpty() {
        return size() == 0;
    }

    // ---------------------------------------------------------------- reads

    /** {@link #valueSpan}'s answers besides a span: no such field; the value is not packed (read it with get). */
    public static final long ABSENT = -1;
    public static final long NOT_PACKED = -2;

    /**
     * Where the value of {@code field} lies in {@link #packed()} without copying it: its offset in the high 32 bits and
     * its length in the low ones; or {@link #ABSENT}, or {@link #NOT_PACKED} for the hashtable encoding. Valid until
     * the hash changes; for a reply written at once (HGET's).
     */
    public long valueSpan(byte[] field) {
        if (lp == null) return NOT_PACKED;
        int p = HashListpack.find(lp, lpLen, lpTtl, field);
        if (p < 0) return ABSENT;
        return ((long) HashListpack.valueBytesOffset(lp, p) << 32) | HashListpack.valueLength(lp, p);
    }

    /**
     * In the hashtable encoding, the stored array that holds {@code field}'s value from {@link #entryValueOffset} to
     * its end, or null when absent. Never modify it; it is never modified either, so a reply may keep a part of it.
     */
    public byte[] tableEntry(byte[] field) {
        return dict.entry(field);
    }

    /** Where the value starts in an array from {@link #tableEntry}. */
    public static int entryValueOffset(byte[] entry) {
        return ByteMap.tailOffset(entry);
    }

    /** The packed (listpack) array {@link #valueSpan} points into; null in the hashtable encoding. */
    public byte[] packed() {
        return lp;
    }

    /** The value of {@code field}, or null. */
    public byte[] get(byte[] field) {
        if (lp == null) return dict.get(field);
        int p = HashListpack.find(lp, lpLen, lpTtl, field);
        return p < 0 ? null : HashListpack.value(lp, p);
    }

    public boolean contains(byte[] field) {
        return lp != null ? HashListpack.find(lp, lpLen, lpTtl, field) >= 0 : dict.entry(field) != null;
    }

    /** The length of the value of {@code field}, or -1 when absent. */
    public int valueLength(byte[] field) {
        if (lp == null) {
            byte[] e = dict.entry(field);
            return e == null ? -1 : e.length - entryValueOffset(e);
        }
        int p = HashListpack.find(lp, lpLen, lpTtl, field);
        return p < 0 ? -1 : HashListpack.valueLength(lp, p);
    }

    /** {@link #NO_FIELD} when absent, 0 when the field has no TTL, else its expiry in unix ms. */
    public long fieldExpireAt(byte[] field) {
        if (lp == null) return dict.expireAt(field);
        int p = HashListpack.find(lp, lpLen, lpTtl, field);
        if (p < 0) return NO_FIELD;
        return lpTtl ? HashListpack.expireAt(lp, p) : 0;
    }

    /** Every field and value: in the compact forms in their order there, in table order otherwise. */
    public void forEach(BiConsumer<byte[], byte[]> action) {
        forEachSlice((f, fo, fl, v, vo, vl) -> action.accept(whole(f, fo, fl), whole(v, vo, vl)));
    }

    /** {@code a[off, off + len)} as an array of its own: {@code a} itself when that is all of it. */
    private static byte[] whole(byte[] a, int off, int len) {
        return off == 0 && len == a.length ? a : java.util.Arrays.copyOfRange(a, off, off + len);
    }

    /** Receives a field and its value as parts of arrays that nobody changes, so that they may be kept. */
    @FunctionalInterface
    public interface SliceVisitor {
        void visit(byte[] fields, int fieldOff, int fieldLen, byte[] values, int valueOff, int valueLen);
    }

    /**
     * Every field and value, as {@link #forEach} gives them, without copies in the hashtable form: there they are
     * parts of its stored entries, which are never changed (a new value is a new entry). The listpack form, which
     * changes its array in place, gives copies.
     */
    public void forEachSlice(SliceVisitor action) {
        if (lp == null) {
            dict.forEachSlice(action);
            return;
        }
        for (int p = 0; p < lpLen; p = HashListpack.next(lp, lpTtl, p)) {
            byte[] f = HashListpack.field(lp, p);
            byte[] v = HashListpack.value(lp, p);
            action.visit(f, 0, f.length, v, 0, v.length);
        }
    }

    /** Receives a field, its value and its expiry (unix ms, 0 for none). */
    @FunctionalInterface
    public interface FieldVisitor {
        void visit(byte[] field, byte[] value, long expireAt);
    }

    /** Every field with its value and expiry (serialization), in {@link #forEach}'s order; expired fields included. */
    public void forEachWithExpiry(FieldVisitor action) {
        if (lp == null) {
            dict.forEachWithExpiry(action);
            return;
        }
        for (int p = 0; p < lpLen; p = HashListpack.next(lp, lpTtl, p)) {
            action.visit(HashListpack.field(lp, p), HashListpack.value(lp, p), lpTtl ? HashListpack.expireAt(lp, p) : 0);
        }
    }

    /**
     * One HSCAN step. The compact forms emit everything and return 0, as Redis does for a listpack; the
     * hashtable form walks its table from {@code cursor} (see {@link ByteMap#scan}) and returns the next cursor.
     */
    public long scan(long cursor, int count, BiConsumer<byte[], byte[]> out) {
        if (lp == null) return dict.scan(cursor, count, out);
        forEach(out);
        return 0;
    }

    /** The compact forms' fields and values, alternating, in order ({@code 2 * size()} arrays). */
    public byte[][] toFlatArray() {
        byte[][] out = new byte[2 * size()][];
        int[] i = {0};
        forEach((f, v) -> {
            out[i[0]++] = f;
            out[i[0]++] = v;
        });
        return out;
    }

    // Slots of the hashtable form, for random sampling; only valid in that form.

    /** The number of slots of the hashtable form (the bound for {@link #fieldAtSlot}). */
    public int slots() {
        return dict.slots();
    }

    /** A random occupied slot of the hashtable form; the hash must not be empty. */
    public int randomSlot(RandomGenerator rnd) {
        return dict.randomSlot(rnd);
    }

    /** The field in a slot of the hashtable form, or null for an empty slot. */
    public byte[] fieldAtSlot(int slot) {
        return dict.fieldAt(slot);
    }

    public byte[] valueAtSlot(int slot) {
        return dict.valueAt(slot);
    }

    // ---------------------------------------------------------------- writes

    /**
     * Redis's hashTypeTryConversion before a write of the fields and values {@code args[from..to]}: converts to
     * the hashtable form when more fields than {@code hash-max-listpack-entries} are coming, when any of the
     * arguments is longer than {@code hash-max-listpack-value}, or when the packed array would grow past 1 GB.
     */
    public void prepareWrite(byte[][] args, int from, int to, EncodingLimits limits) {
        if (lp == null) return;
        long newFields = (to - from + 1) / 2;
        if (newFields > limits.hashMaxListpackEntries) {
            convertToDict((int) Math.min(newFields, Integer.MAX_VALUE / 2));
            return;
        }
        long sum = 0;
        long maxValue = limits.hashMaxListpackValue;
        for (int i = from; i <= to; i++) {
            int len = args[i].length;
            if (len > maxValue) {
                convertToDict(size());
                return;
            }
            sum += len;
        }
        if (lpLen + sum > LISTPACK_SAFETY_BYTES) {
            convertToDict(size());
        } else if (to - from >= 3) {
            // Several fields at once: room for all of them in one step, no more (as listpack sizes a batch).
            long room = sum;
            for (int i = from; i <= to; i++) room += Varints.uvarintLength(args[i].length);
            if (lpTtl) room += (to - from + 1) / 2;
            ensureRoom((int) Math.min(room, Integer.MAX_VALUE - 16 - lpLen));
        }
    }

    /**
     * Sets {@code field} to {@code value} (both copied); an existing field loses its TTL unless
     * {@code keepTtl} (HINCRBY keeps it, HSET does not). Converts to the hashtable form when the field or value
     * is too long for the compact form or the entries exceed its threshold. Returns true when the field is new.
     */
    public boolean put(byte[] field, byte[] value, boolean keepTtl, EncodingLimits limits) {
        if (lp != null && (field.length > limits.hashMaxListpackValue || value.length > limits.hashMaxListpackValue)) {
            convertToDict(size());
        }
        if (lp == null) return dict.put(field, value, keepTtl);
        int p = HashListpack.find(lp, lpLen, lpTtl, field);
        if (p >= 0) {
            if (lpTtl && !keepTtl && HashListpack.expireAt(lp, p) != 0) {
                // The field loses its TTL: it moves to the end, with the fields that have none.
                cut(p, HashListpack.next(lp, true, p));
                insertEntry(lpLen, field, value, 0);
            } else {
                replaceValue(p, value);
            }
            return false;
        }
        insertEntry(lpLen, field, value, 0);
        lpEntries++;
        if (lpEntries > limits.hashMaxListpackEntries) convertToDict(lpEntries);
        return true;
    }

    /** Removes {@code field}; true when it was there. */
    public boolean remove(byte[] field) {
        if (lp == null) return dict.remove(field);
        int p = HashListpack.find(lp, lpLen, lpTtl, field);
        if (p < 0) return false;
        cut(p, HashListpack.next(lp, lpTtl, p));
        lpEntries--;
        trimIfSparse();
        return true;
    }

    /** Gives the listpack form its TTL column ("listpackex"), as Redis does when a field-expiry command first
     * touches a hash; no-op in the other forms. */
    public void enableFieldTtl() {
        if (lp != null && !lpTtl) {
            lp = HashListpack.withTtlColumn(lp, lpLen, lpEntries);
            lpLen = lp.length;
            lpTtl = true;
        }
    }

    /**
     * HEXPIRE and friends for one field: {@link #EXPIRE_NO_FIELD}; {@link #EXPIRE_NOT_MET} when the condition
     * ({@link #NX}, {@link #XX}, {@link #GT}, {@link #LT} or 0) fails, a field without a TTL counting as an
     * infinite one; {@link #EXPIRE_DELETED} when {@code expireAt} is not after {@code nowMs} (the field is
     * removed); {@link #EXPIRE_SET} otherwise.
     */
    public int setExpire(byte[] field, long expireAt, int condition, long nowMs) {
        enableFieldTtl();
        long prev = fieldExpireAt(field);
        if (prev == NO_FIELD) return EXPIRE_NO_FIELD;
        if (prev == 0) {
            if ((condition & (XX | GT)) != 0) return EXPIRE_NOT_MET;
        } else if ((condition == GT && prev >= expireAt) || (condition == LT && prev <= expireAt) || condition == NX) {
            return EXPIRE_NOT_MET;
        }
        if (expireAt <= nowMs) {
            remove(field);
            return EXPIRE_DELETED;
        }
        if (lp == null) {
            dict.setExpireAt(field, expireAt);
        } else {
            int p = HashListpack.find(lp, lpLen, true, field);
            byte[] value = HashListpack.value(lp, p);
            cut(p, HashListpack.next(lp, true, p));
            insertEntry(HashListpack.placeFor(lp, lpLen, expireAt), field, value, expireAt);
        }
        return EXPIRE_SET;
    }

    /** HPERSIST for one field: {@link #EXPIRE_NO_FIELD}, {@link #PERSIST_NO_TTL} or {@link #PERSIST_DONE}. */
    public int persist(byte[] field) {
        long prev = fieldExpireAt(field);
        if (prev == NO_FIELD) return EXPIRE_NO_FIELD;
        if (prev == 0) return PERSIST_NO_TTL;
        if (lp == null) {
            dict.persist(field);
        } else {
            // Without a TTL the field moves to the end, as in Redis's listpackex.
            int p = HashListpack.find(lp, lpLen, true, field);
            byte[] value = HashListpack.value(lp, p);
            cut(p, HashListpack.next(lp, true, p));
            insertEntry(lpLen, field, value, 0);
        }
        return PERSIST_DONE;
    }

    // ---------------------------------------------------------------- field expiry

    @Override
    public boolean hasFieldTtls() {
        return nextExpireAt() != 0;
    }

    /** The earliest expiry among the fields (unix ms), 0 when no field has a TTL. */
    public long nextExpireAt() {
        if (lp == null) return dict.nextExpireAt();
        return lpTtl && lpLen > 0 ? HashListpack.expireAt(lp, 0) : 0;
    }

    /**
     * Removes up to {@code maxFields} fields whose expiry is before {@code nowMs}, earliest first, and returns
     * how many. O(1) when none has expired. The caller deletes the key if the hash is now empty and reports
     * the change of {@link #memoryBytes()} to the database.
     */
    @Override
    public int expireFields(long nowMs, int maxFields) {
        long next = nextExpireAt();
        if (next == 0 || next >= nowMs || maxFields <= 0) return 0;
        if (lp == null) return dict.expire(nowMs, maxFields);
        int[] n = new int[1];
        int end = HashListpack.expiredPrefix(lp, lpLen, nowMs, maxFields, n);
        cut(0, end);
        lpEntries -= n[0];
        trimIfSparse();
        return n[0];
    }

    // ---------------------------------------------------------------- the compact buffer

    /** Makes room for {@code extra} more bytes after the used ones ({@link CompactArrays#ensure}). */
    private void ensureRoom(int extra) {
        lp = CompactArrays.ensure(lp, lpLen + extra);
    }

    /** Inserts an entry at {@code p} (an entry boundary or the used length), in place. */
    private void insertEntry(int p, byte[] field, byte[] value, long expireAt) {
        int size = HashListpack.entrySize(field, value, lpTtl, expireAt);
        ensureRoom(size);
        System.arraycopy(lp, p, lp, p + size, lpLen - p);
        HashListpack.writeEntry(lp, p, lpTtl, field, value, expireAt);
        lpLen += size;
    }

    /** Replaces the value of the entry at {@code p} in place, its expiry and place kept. */
    private void replaceValue(int p, byte[] value) {
        int vo = HashListpack.valueStart(lp, p);
        int end = HashListpack.valueEnd(lp, p);
        int delta = HashListpack.valueSize(value) - (end - vo);
        if (delta > 0) ensureRoom(delta);
        if (delta != 0) System.arraycopy(lp, end, lp, end + delta, lpLen - end);
        HashListpack.writeValue(lp, vo, value);
        lpLen += delta;
    }

    /** Removes the bytes {@code [from, to)} (whole entries) in place. */
    private void cut(int from, int to) {
        System.arraycopy(lp, to, lp, from, lpLen - to);
        lpLen -= to - from;
    }

    /** After removals: drops the buffer when empty, trims it to size when more than half of it is unused. */
    private void trimIfSparse() {
        lp = lpLen == 0 ? HashListpack.EMPTY : CompactArrays.trim(lp, lpLen);
    }

    // ---------------------------------------------------------------- encoding, memory, copy

    private void convertToDict(int expected) {
        HashDict d = new HashDict(Math.max(expected, lpEntries));
        boolean ttl = lpTtl;
        for (int p = 0; p < lpLen; p = HashListpack.next(lp, ttl, p)) {
            d.add(HashListpack.field(lp, p), HashListpack.value(lp, p), ttl ? HashListpack.expireAt(lp, p) : 0);
        }
        dict = d;
        lp = null;
        lpLen = 0;
        lpEntries = 0;
        lpTtl = false;
    }

    @Override
    public long memoryBytes() {
        return SHALLOW + (lp != null ? MemoryCost.bytes(lp.length) : dict.memoryBytes());
    }

    @Override
    public CollectionValue copy() {
        // The packed buffer is edited in place: the copy gets its own, of the same size.
        if (lp == null) return new HashValue(null, 0, 0, false, dict.copy());
        return new HashValue(lp.length == 0 ? lp : lp.clone(), lpLen, lpEntries, lpTtl, null);
    }
}
