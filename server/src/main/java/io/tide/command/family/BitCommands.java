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
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Thread-safe (stateless). Bitmap commands (Redis's {@code bitops.c}): SETBIT, GETBIT, BITCOUNT, BITPOS,
 * BITOP, BITFIELD and BITFIELD_RO. A bitmap is a string value ({@link StringValues}): bit 0 is the most
 * significant bit of the first byte. A stored {@code byte[]} is never edited in place (replies and COPY may share
 * it), so a write to one builds a new array and stores it with {@link Database#putRaw}: the result of a bit write is
 * a raw string in Redis too, even when nothing changed. A result longer than {@link Database#INLINE_LIMIT} is stored
 * as a {@link RawString}, which later writes change where it lies (one copy, not one per write). Reads take the
 * string's array without a copy ({@link StringValues#array}) and use only its first {@link StringValues#length}
 * bytes.
 */
public final class BitCommands {

    /** Longest byte array the JVM allocates reliably. */
    private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private static final int AND = 0;
    private static final int OR = 1;
    private static final int XOR = 2;
    private static final int NOT = 3;

    private static final int GET = 0;
    private static final int SET = 1;
    private static final int INCRBY = 2;

    private static final int WRAP = 0;
    private static final int SAT = 1;
    private static final int FAIL = 2;

    private BitCommands() {}

    public static void register(CommandTable t) {
        t.group("bitmap");
        t.add("setbit", 4, "write denyoom", 1, 1, 1, "@bitmap", "2.2.0",
                "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.",
                Handler.SETBIT);
        t.add("getbit", 3, "readonly fast", 1, 1, 1, "@bitmap", "2.2.0",
                "Returns a bit value by offset.", Handler.GETBIT);
        t.add("bitcount", -2, "readonly", 1, 1, 1, "@bitmap", "2.6.0",
                "Counts the number of set bits (population counting) in a string.", Handler.BITCOUNT);
        t.add("bitpos", -3, "readonly", 1, 1, 1, "@bitmap", "2.8.7",
                "Finds the first set (1) or clear (0) bit in a string.", Handler.BITPOS);
        t.add("bitop", -4, "write denyoom", 2, -1, 1, "@bitmap", "2.6.0",
                "Performs bitwise operations on multiple strings, and stores the result.", Handler.BITOP);
        t.add("bitfield", -2, "write denyoom", 1, 1, 1, "@bitmap", "3.2.0",
                "Performs arbitrary bitfield integer operations on strings.", Handler.BITFIELD)
                // Redis's bitfieldGetKeys: written only when a SET or INCRBY is among the operations.
                .getKeysBy(argv -> List.of(new CommandSpec.KeyRef(argv[1],
                        Args.has(argv, 2, "set") || Args.has(argv, 2, "incrby")
                                ? List.of("RW", "access", "update") : List.of("RO", "access"))));
        t.add("bitfield_ro", -2, "readonly fast", 1, 1, 1, "@bitmap", "6.0.0",
                "Performs arbitrary read-only bitfield integer operations on strings.", Handler.BITFIELD_RO);
    }

    // ------------------------------------------------------------------ argument parsing

    /**
     * Redis's getBitOffsetFromArgument: a non-negative bit offset whose byte fits proto-max-bulk-len; with
     * {@code hash} and {@code bits > 0}, {@code #n} means {@code n * bits}.
     */
    private static long bitOffset(CommandContext ctx, byte[] arg, boolean hash, int bits) {
        boolean useHash = arg.length > 0 && arg[0] == '#' && hash && bits > 0;
        Long v = Args.parseLongOrNull(useHash ? Arrays.copyOfRange(arg, 1, arg.length) : arg);
        if (v == null) throw Errors.error(Errors.BIT_OFFSET_NOT_INTEGER);
        long offset = useHash ? v * bits : v;
        if (offset < 0 || (offset >> 3) >= ctx.server().config().getLong("proto-max-bulk-len")) {
            throw Errors.error(Errors.BIT_OFFSET_NOT_INTEGER);
        }
        return offset;
    }

    /** Bytes needed to address bit {@code maxBit}; the bit offset error when the JVM cannot hold them. */
    private static int bytesFor(long maxBit) {
        long bytes = (maxBit >>> 3) + 1;
        if (bytes > MAX_ARRAY) throw Errors.error(Errors.BIT_OFFSET_NOT_INTEGER);
        return (int) bytes;
    }

    /** strcasecmp of a C string: the argument ends at its first NUL byte, as Redis reads it. */
    private static boolean cIs(byte[] arg, String lower) {
        int n = cLength(arg);
        if (n != lower.length()) return false;
        for (int i = 0; i < n; i++) {
            int c = arg[i];
            if (c >= 'A' && c <= 'Z') c += 32;
            if (c != lower.charAt(i)) return false;
        }
        return true;
    }

    private static int cLength(byte[] arg) {
        for (int i = 0; i < arg.length; i++) {
            if (arg[i] == 0) return i;
        }
        return arg.length;
    }

    /** The bytes of a string value, null for a missing key, WRONGTYPE for other types. */
    private static byte[] stringOrNull(Object v) {
        return v == null ? null : StringValues.bytes(v);
    }

    /** The array of a string value for a read done before the command returns (no copy); null for a missing key. */
    private static byte[] arrayOrNull(Object v) {
        return v == null ? null : StringValues.array(v);
    }

    /** True when {@code key}'s value is already a raw string, so an unchanged bit write need not store it. */
    private static boolean isRaw(CommandContext ctx, byte[] key, Object v) {
        return v instanceof RawString || v instanceof byte[] && !ctx.db(key).isEmbedded(key);
    }

    // ------------------------------------------------------------------ SETBIT / GETBIT

    static Reply setbit(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        long offset = bitOffset(ctx, argv[2], false, 0);
        Long on = Args.parseLongOrNull(argv[3]);
        if (on == null || (on & ~1L) != 0) throw Errors.error(Errors.BIT_NOT_INTEGER);
        Object cur = ctx.readForWrite(key);
        byte[] old = arrayOrNull(cur);
        int oldLen = old == null ? 0 : (int) StringValues.length(cur);
        int at = (int) (offset >>> 3);
        int shift = 7 - (int) (offset & 7);
        int oldBit = at < oldLen ? (old[at] >> shift) & 1 : 0;
        boolean grows = at >= oldLen;
        if (!grows && oldBit == on) {
            // The bit is unchanged: as in Redis, no event and no touch (WATCH, tracking), though the value becomes raw
            // there (dbUnshareStringValue)
            if (!isRaw(ctx, key, cur)) ctx.db(key).reencode(key, Arrays.copyOf(old, oldLen), ctx.now());
            return oldBit == 1 ? Reply.ONE : Reply.ZERO;
        }
        if (cur instanceof RawString r) {
            ctx.keepsNoArguments(); // the key is only looked up (decision 0028)
            r.ensureLength(bytesFor(offset));
            byte[] b = r.array();
            b[at] = (byte) ((b[at] & ~(1 << shift)) | (on.intValue() << shift));
            ctx.modified(key);
        } else {
            byte[] out = Arrays.copyOf(old == null ? new byte[0] : old, grows ? bytesFor(offset) : oldLen);
            out[at] = (byte) ((out[at] & ~(1 << shift)) | (on.intValue() << shift));
            StringValues.putWritten(ctx.db(key), key, out, cur == null ? 0 : Database.KEEP_TTL, ctx.now());
        }
        ctx.notify(KeyspaceEvents.STRING, "setbit", key);
        return oldBit == 1 ? Reply.ONE : Reply.ZERO;
    }

    static Reply getbit(CommandContext ctx, byte[][] argv) {
        long offset = bitOffset(ctx, argv[2], false, 0);
        Object v = ctx.read(argv[1]);
        byte[] s = arrayOrNull(v);
        if (s == null) return Reply.ZERO;
        long at = offset >>> 3;
        if (at >= StringValues.length(v)) return Reply.ZERO;
        return ((s[(int) at] >> (7 - (int) (offset & 7))) & 1) == 1 ? Reply.ONE : Reply.ZERO;
    }

    // ------------------------------------------------------------------ BITCOUNT / BITPOS

    static Reply bitcount(CommandContext ctx, byte[][] argv) {
        Object v;
        byte[] s;
        ByteRange r;
        if (argv.length == 4 || argv.length == 5) {
            long start = Args.parseLong(argv[2]);
            long end = Args.parseLong(argv[3]);
            boolean isBit = argv.length == 5 && isBitUnit(argv[4]);
            v = ctx.read(argv[1]);
            s = arrayOrNull(v);
            if (s == null) return Reply.ZERO;
            if (start < 0 && end < 0 && start > end) return Reply.ZERO;
            r = ByteRange.of(start, end, StringValues.length(v), isBit);
        } else if (argv.length == 2) {
            v = ctx.read(argv[1]);
            s = arrayOrNull(v);
            if (s == null) return Reply.ZERO;
            r = ByteRange.whole(StringValues.length(v));
        } else {
            throw Errors.syntax();
        }
        if (r.start() > r.end()) return Reply.ZERO;
        long count = popcount(s, (int) r.start(), (int) r.end() + 1);
        // Bits of the edge bytes outside a BIT range were counted: take them off again.
        if (r.firstMask() != 0) count -= Integer.bitCount(s[(int) r.start()] & r.firstMask());
        if (r.lastMask() != 0) count -= Integer.bitCount(s[(int) r.end()] & r.lastMask());
        return Reply.integer(count);
    }

    /** BITCOUNT's and BITPOS's unit: true for BIT, false for BYTE, else a syntax error. */
    private static boolean isBitUnit(byte[] arg) {
        if (cIs(arg, "bit")) return true;
        if (!cIs(arg, "byte")) throw Errors.syntax();
        return false;
    }

    /**
     * Immutable. BITCOUNT's and BITPOS's range in bytes, {@code start} to {@code end} inclusive; for a BIT
     * range, masks of the bits of the first and last byte that lie outside it (0 for none).
     */
    private record ByteRange(long start, long end, int firstMask, int lastMask) {

        static ByteRange whole(long length) {
            return new ByteRange(0, length - 1, 0, 0);
        }

        /**
         * The range {@code start..end} in a string of {@code length} bytes, in bits where {@code isBit}:
         * negative ends count from the end, then both are clamped to the string.
         */
        static ByteRange of(long start, long end, long length, boolean isBit) {
            long total = isBit ? length << 3 : length;
            if (start < 0) start = total + start;
            if (end < 0) end = total + end;
            if (start < 0) start = 0;
            if (end < 0) end = 0;
            if (end >= total) end = total - 1;
            if (!isBit || start > end) return new ByteRange(start, end, 0, 0);
            return new ByteRange(start >> 3, end >> 3, ~((1 << (8 - (int) (start & 7))) - 1) & 0xff,
                    (1 << (7 - (int) (end & 7))) - 1);
        }
    }

    private static long popcount(byte[] s, int from, int to) {
        long n = 0;
        int i = from;
        for (; i + 8 <= to; i += 8) n += Long.bitCount((long) LONGS.get(s, i));
        for (; i < to; i++) n += Integer.bitCount(s[i] & 0xff);
        return n;
    }

    static Reply bitpos(CommandContext ctx, byte[][] argv) {
        Long bitArg = Args.parseLongOrNull(argv[2]);
        if (bitArg == null) throw Errors.notInteger();
        if (bitArg != 0 && bitArg != 1) throw Errors.error(Errors.BIT_ARGUMENT);
        int bit = bitArg.intValue();
        boolean endGiven = false;
        Object v;
        byte[] s;
        ByteRange r;
        if (argv.length >= 4 && argv.length <= 6) {
            long start = Args.parseLong(argv[3]);
            boolean isBit = argv.length == 6 && isBitUnit(argv[5]);
            long end = 0;
            if (argv.length >= 5) {
                end = Args.parseLong(argv[4]);
                endGiven = true;
            }
            v = ctx.read(argv[1]);
            s = arrayOrNull(v);
            if (s == null) return Reply.integer(bit == 1 ? -1 : 0);
            long total = StringValues.length(v);
            if (!endGiven) end = isBit ? (total << 3) + 7 : total - 1;
            r = ByteRange.of(start, end, total, isBit);
        } else if (argv.length == 3) {
            v = ctx.read(argv[1]);
            s = arrayOrNull(v);
            if (s == null) return Reply.integer(bit == 1 ? -1 : 0);
            r = ByteRange.whole(StringValues.length(v));
        } else {
            throw Errors.syntax();
        }
        long start = r.start();
        long end = r.end();
        int firstMask = r.firstMask();
        int lastMask = r.lastMask();
        if (start > end) return Reply.integer(-1);

        // Redis's three-part search: a masked first byte, the whole bytes, a masked last byte.
        long bytes = end - start + 1;
        long pos = -1;
        boolean done = false;
        if (firstMask != 0) {
            int b = s[(int) start] & 0xff;
            b = bit == 1 ? b & ~firstMask : b | firstMask;
            if (lastMask != 0 && bytes == 1) b = bit == 1 ? b & ~lastMask : b | lastMask;
            pos = firstBit(new byte[] {(byte) b}, 0, 1, bit);
            if (bytes == 1 || (pos != -1 && pos != 8)) {
                done = true;
            } else {
                start++;
                bytes--;
            }
        }
        if (!done) {
            long whole = bytes - (lastMask != 0 ? 1 : 0);
            if (whole > 0) {
                pos = firstBit(s, (int) start, (int) whole, bit);
                if (bytes == whole || (pos != -1 && pos != whole << 3)) {
                    done = true;
                } else {
                    start += whole;
                    bytes -= whole;
                }
            }
        }
        if (!done) {
            int b = s[(int) end] & 0xff;
            b = bit == 1 ? b & ~lastMask : b | lastMask;
            pos = firstBit(new byte[] {(byte) b}, 0, 1, bit);
        }
        // With an explicit end, running off the range looking for a 0 is "not found", not a padding bit.
        if (endGiven && bit == 0 && pos == bytes << 3) return Reply.integer(-1);
        if (pos != -1) pos += start << 3;
        return Reply.integer(pos);
    }

    /**
     * Redis's redisBitpos over {@code count} bytes from {@code from}: the first bit equal to {@code bit};
     * when none, -1 for a 1 and {@code count * 8} for a 0 (the string is taken as zero-padded on the right).
     */
    private static long firstBit(byte[] s, int from, int count, int bit) {
        int skip = bit == 1 ? 0 : 0xff;
        for (int i = 0; i < count; i++) {
            int b = s[from + i] & 0xff;
            if (b != skip) {
                int lead = bit == 1 ? Integer.numberOfLeadingZeros(b) - 24 : Integer.numberOfLeadingZeros(~b & 0xff) - 24;
                return (long) i * 8 + lead;
            }
        }
        return bit == 1 ? -1 : (long) count * 8;
    }

    // ------------------------------------------------------------------ BITOP

    static Reply bitop(CommandContext ctx, byte[][] argv) {
        byte[] name = argv[1];
        int op;
        if (cIs(name, "and")) op = AND;
        else if (cIs(name, "or")) op = OR;
        else if (cIs(name, "xor")) op = XOR;
        else if (cIs(name, "not")) op = NOT;
        else throw Errors.syntax();
        if (op == NOT && argv.length != 4) throw Errors.error(Errors.BITOP_NOT_ONE_KEY);

        int n = argv.length - 3;
        byte[][] src = new byte[n][];
        int maxLen = 0;
        for (int j = 0; j < n; j++) {
            byte[] s = stringOrNull(ctx.read(argv[j + 3]));
            src[j] = s == null ? new byte[0] : s;
            maxLen = Math.max(maxLen, src[j].length);
        }
        byte[] dest = argv[2];
        if (maxLen == 0) {
            if (ctx.db(dest).remove(dest) != null) ctx.notify(KeyspaceEvents.GENERIC, "del", dest);
            return Reply.ZERO;
        }
        byte[] res = new byte[maxLen];
        byte[] first = src[0];
        if (op == NOT) {
            for (int i = 0; i < maxLen; i++) res[i] = (byte) ~first[i];
        } else {
            System.arraycopy(first, 0, res, 0, first.length);
            for (int j = 1; j < n; j++) {
                byte[] s = src[j];
                int common = s.length;
                switch (op) {
                    case AND -> {
                        for (int i = 0; i < common; i++) res[i] &= s[i];
                        Arrays.fill(res, common, maxLen, (byte) 0);
                    }
                    case OR -> {
                        for (int i = 0; i < common; i++) res[i] |= s[i];
                    }
                    default -> {
                        for (int i = 0; i < common; i++) res[i] ^= s[i];
                    }
                }
            }
        }
        ctx.db(dest).putRaw(dest, res, 0, ctx.now());
        ctx.notify(KeyspaceEvents.STRING, "set", dest);
        return Reply.integer(maxLen);
    }

    // ------------------------------------------------------------------ BITFIELD

    static Reply bitfield(CommandContext ctx, byte[][] argv) {
        return bitfieldGeneric(ctx, argv, false);
    }

    static Reply bitfieldRo(CommandContext ctx, byte[][] argv) {
        return bitfieldGeneric(ctx, argv, true);
    }

    private record Op(int code, int bits, boolean signed, long offset, long value, int overflow) {}

    private static Reply bitfieldGeneric(CommandContext ctx, byte[][] argv, boolean readOnlyCommand) {
        byte[] key = argv[1];
        List<Op> ops = new ArrayList<>();
        int overflow = WRAP;
        boolean readonly = true;
        long highestWrite = 0;
        for (int j = 2; j < argv.length; j++) {
            int remaining = argv.length - j - 1;
            byte[] sub = argv[j];
            int code;
            if (cIs(sub, "get") && remaining >= 2) {
                code = GET;
            } else if (cIs(sub, "set") && remaining >= 3) {
                code = SET;
            } else if (cIs(sub, "incrby") && remaining >= 3) {
                code = INCRBY;
            } else if (cIs(sub, "overflow") && remaining >= 1) {
                byte[] type = argv[++j];
                if (cIs(type, "wrap")) overflow = WRAP;
                else if (cIs(type, "sat")) overflow = SAT;
                else if (cIs(type, "fail")) overflow = FAIL;
                else throw Errors.error(Errors.BITFIELD_OVERFLOW_TYPE);
                continue;
            } else {
                throw Errors.syntax();
            }
            byte[] type = argv[j + 1];
            boolean signed = parseSign(type);
            int bits = parseBits(type, signed);
            long offset = bitOffset(ctx, argv[j + 2], true, bits);
            long value = 0;
            if (code != GET) {
                readonly = false;
                if (Long.compareUnsigned(highestWrite, offset + bits - 1) < 0) highestWrite = offset + bits - 1;
                value = Args.parseLong(argv[j + 3]);
            }
            ops.add(new Op(code, bits, signed, offset, value, overflow));
            j += code == GET ? 2 : 3;
        }

        byte[] buf;
        Object cur;
        boolean grown = false;
        if (readonly) {
            cur = ctx.read(key);
            buf = arrayOrNull(cur); // bytes past its length are zero, as past the end of the string
        } else {
            if (readOnlyCommand) throw Errors.error(Errors.BITFIELD_RO_GET_ONLY);
            cur = ctx.readForWrite(key);
            byte[] old = arrayOrNull(cur);
            int oldLen = old == null ? 0 : (int) StringValues.length(cur);
            int need = bytesFor(highestWrite);
            grown = cur == null || need > oldLen;
            if (cur instanceof RawString r) {
                ctx.keepsNoArguments(); // the key is only looked up (decision 0028)
                r.ensureLength(need);
                buf = r.array(); // changed where it lies
            } else {
                buf = Arrays.copyOf(old == null ? new byte[0] : old, Math.max(oldLen, need));
            }
        }

        Reply[] out = new Reply[ops.size()];
        int changes = 0;
        long[] limit = new long[1];
        for (int i = 0; i < out.length; i++) {
            Op op = ops.get(i);
            if (op.code == GET) {
                long v = op.signed ? getSigned(buf, op.offset, op.bits) : getUnsigned(buf, op.offset, op.bits);
                out[i] = Reply.integer(v);
                continue;
            }
            long oldVal;
            long newVal;
            long ret;
            int ovf;
            if (op.signed) {
                oldVal = getSigned(buf, op.offset, op.bits);
                if (op.code == INCRBY) {
                    ovf = signedOverflow(oldVal, op.value, op.bits, op.overflow, limit);
                    newVal = ovf != 0 ? limit[0] : oldVal + op.value;
                    ret = newVal;
                } else {
                    newVal = op.value;
                    ovf = signedOverflow(newVal, 0, op.bits, op.overflow, limit);
                    if (ovf != 0) newVal = limit[0];
                    ret = oldVal;
                }
            } else {
                oldVal = getUnsigned(buf, op.offset, op.bits);
                if (op.code == INCRBY) {
                    newVal = oldVal + op.value;
                    ovf = unsignedOverflow(oldVal, op.value, op.bits, op.overflow, limit);
                    if (ovf != 0) newVal = limit[0];
                    ret = newVal;
                } else {
                    newVal = op.value;
                    ovf = unsignedOverflow(newVal, 0, op.bits, op.overflow, limit);
                    if (ovf != 0) newVal = limit[0];
                    ret = oldVal;
                }
            }
            if (ovf != 0 && op.overflow == FAIL) {
                out[i] = Reply.NULL;
            } else {
                out[i] = Reply.integer(ret);
                setBits(buf, op.offset, op.bits, newVal);
                if (grown || oldVal != newVal) changes++;
            }
        }
        if (!readonly && (changes > 0 || grown || !isRaw(ctx, key, cur))) {
            if (cur instanceof RawString) ctx.modified(key);
            else StringValues.putWritten(ctx.db(key), key, buf, cur == null ? 0 : Database.KEEP_TTL, ctx.now());
            if (changes > 0 || grown) ctx.notify(KeyspaceEvents.STRING, "setbit", key);
        }
        return Reply.array(out);
    }

    /** Redis's getBitfieldTypeFromArgument, sign part: {@code i} or {@code u} (lower case only). */
    private static boolean parseSign(byte[] type) {
        if (type.length > 0 && type[0] == 'i') return true;
        if (type.length > 0 && type[0] == 'u') return false;
        throw Errors.error(Errors.BITFIELD_TYPE);
    }

    /** The width after the sign letter, read up to the first NUL as Redis does: i1..i64, u1..u63. */
    private static int parseBits(byte[] type, boolean signed) {
        int n = cLength(type);
        Long bits = n <= 1 ? null : Args.parseLongOrNull(Arrays.copyOfRange(type, 1, n));
        if (bits == null || bits < 1 || (signed && bits > 64) || (!signed && bits > 63)) {
            throw Errors.error(Errors.BITFIELD_TYPE);
        }
        return bits.intValue();
    }

    private static long getUnsigned(byte[] p, long offset, int bits) {
        long value = 0;
        for (int j = 0; j < bits; j++, offset++) {
            long at = offset >>> 3;
            int bit = p != null && at < p.length ? (p[(int) at] >> (7 - (int) (offset & 7))) & 1 : 0;
            value = (value << 1) | bit;
        }
        return value;
    }

    private static long getSigned(byte[] p, long offset, int bits) {
        long value = getUnsigned(p, offset, bits);
        if (bits < 64 && (value & (1L << (bits - 1))) != 0) value |= -1L << bits;
        return value;
    }

    private static void setBits(byte[] p, long offset, int bits, long value) {
        for (int j = 0; j < bits; j++, offset++) {
            int bit = (int) ((value >>> (bits - 1 - j)) & 1);
            int at = (int) (offset >>> 3);
            int shift = 7 - (int) (offset & 7);
            p[at] = (byte) ((p[at] & ~(1 << shift)) | (bit << shift));
        }
    }

    /**
     * Redis's checkUnsignedBitfieldOverflow: {@code value} is unsigned; 1 on overflow, -1 on underflow, 0 when
     * {@code value + incr} fits. With WRAP or SAT, {@code limit[0]} gets the value to store (WRAP answers 1).
     */
    private static int unsignedOverflow(long value, long incr, int bits, int owtype, long[] limit) {
        long max = (1L << bits) - 1; // bits <= 63
        long maxIncr = max - value;
        long minIncr = -value;
        if (Long.compareUnsigned(value, max) > 0 || (incr > 0 && incr > maxIncr)) {
            if (owtype == WRAP) return unsignedWrap(value, incr, bits, limit);
            if (owtype == SAT) limit[0] = max;
            return 1;
        } else if (incr < 0 && incr < minIncr) {
            if (owtype == WRAP) return unsignedWrap(value, incr, bits, limit);
            if (owtype == SAT) limit[0] = 0;
            return -1;
        }
        return 0;
    }

    private static int unsignedWrap(long value, long incr, int bits, long[] limit) {
        limit[0] = (value + incr) & ~(-1L << bits);
        return 1;
    }

    /** Redis's checkSignedBitfieldOverflow, with the same contract as {@link #unsignedOverflow}. */
    private static int signedOverflow(long value, long incr, int bits, int owtype, long[] limit) {
        long max = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
        long min = -max - 1;
        long maxIncr = max - value; // may wrap; only used once value is known to be in range, as in Redis
        long minIncr = min - value;
        if (value > max || (bits != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr)) {
            if (owtype == WRAP) return signedWrap(value, incr, bits, limit);
            if (owtype == SAT) limit[0] = max;
            return 1;
        } else if (value < min || (bits != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr)) {
            if (owtype == WRAP) return signedWrap(value, incr, bits, limit);
            if (owtype == SAT) limit[0] = min;
            return -1;
        }
        return 0;
    }

    private static int signedWrap(long value, long incr, int bits, long[] limit) {
        long c = value + incr;
        if (bits < 64) {
            long mask = -1L << bits;
            c = (c & (1L << (bits - 1))) != 0 ? c | mask : c & ~mask;
        }
        limit[0] = c;
        return 1;
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        SETBIT,
        GETBIT,
        BITCOUNT,
        BITPOS,
        BITOP,
        BITFIELD,
        BITFIELD_RO;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case SETBIT -> setbit(ctx, argv);
                case GETBIT -> getbit(ctx, argv);
                case BITCOUNT -> bitcount(ctx, argv);
                case BITPOS -> bitpos(ctx, argv);
                case BITOP -> bitop(ctx, argv);
                case BITFIELD -> bitfield(ctx, argv);
                case BITFIELD_RO -> bitfieldRo(ctx, argv);
            };
        }
    }
}
