package io.tide.script.lib;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * Roberto Ierusalimschy's {@code struct} library as Redis bundles it: {@code pack}, {@code unpack},
 * {@code size} with formats {@code < > ! x b B h H l L T i I s f d c}. Thread-safe (stateless).
 */
public final class LuaStruct {

    private LuaStruct() {}

    public static LuaTable create() {
        LuaTable t = new LuaTable();
        t.rawset("pack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return LuaString.valueOf(pack(a.checkjstring(1), a));
            }
        });
        t.rawset("unpack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return unpack(a.checkjstring(1), a.checkstring(2), a.optint(3, 1));
            }
        });
        t.rawset("size", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return LuaValue.valueOf(size(a.checkjstring(1)));
            }
        });
        return t;
    }

    /** Parsing state of a format string. */
    private static final class Format {
        final String f;
        int i;
        boolean little = true;
        int align = 1;

        Format(String f) {
            this.f = f;
        }

        int number(int dflt) {
            if (i >= f.length() || !Character.isDigit(f.charAt(i))) return dflt;
            int n = 0;
            while (i < f.length() && Character.isDigit(f.charAt(i))) n = n * 10 + (f.charAt(i++) - '0');
            return n;
        }

        /** Size of option {@code c}, or -1 for options without a fixed size. */
        int optSize(char c) {
            switch (c) {
                case 'B': case 'b': return 1;
                case 'H': case 'h': return 2;
                case 'L': case 'l': case 'T': return 8;
                case 'f': return 4;
                case 'd': return 8;
                case 'x': return 1;
                case 'c': return number(1);
                case 'i': case 'I': {
                    int n = number(4);
                    if (n > 8) throw new LuaError("integral size " + n + " is larger than limit of 8");
                    return n;
                }
                default: return 0;
            }
        }

        int gap(int size, int total) {
            int a = Math.min(size, align);
            if (a <= 1 || size == 0) return 0;
            return (a - (total & (a - 1))) & (a - 1);
        }

        /** Handles the control characters; returns false when {@code c} is a value option. */
        boolean control(char c) {
            switch (c) {
                case ' ': return true;
                case '>': little = false; return true;
                case '<': little = true; return true;
                case '!': align = number(8); return true;
                default: return false;
            }
        }
    }

    private static byte[] pack(String fmt, Varargs a) {
        Format f = new Format(fmt);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int arg = 2;
        while (f.i < fmt.length()) {
            char c = fmt.charAt(f.i++);
            if (f.control(c)) continue;
            int size = f.optSize(c);
            for (int g = f.gap(size, out.size()); g > 0; g--) out.write(0);
            switch (c) {
                case 'x' -> out.write(0);
                case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I' -> integer((long) a.checkdouble(arg++), size, f.little, out);
                case 'f' -> integer(Float.floatToIntBits((float) a.checkdouble(arg++)) & 0xffffffffL, 4, f.little, out);
                case 'd' -> integer(Double.doubleToLongBits(a.checkdouble(arg++)), 8, f.little, out);
                case 'c', 's' -> {
                    LuaString s = a.checkstring(arg++);
                    int len = s.m_length;
                    if (c == 'c') {
                        if (size == 0) size = len;
                        if (len < size) throw new LuaError("string too short");
                        out.write(s.m_bytes, s.m_offset, size);
                    } else {
                        out.write(s.m_bytes, s.m_offset, len);
                        out.write(0);
                    }
                }
                default -> throw new LuaError("invalid format option '" + c + "'");
            }
        }
        return out.toByteArray();
    }

    private static void integer(long v, int size, boolean little, ByteArrayOutputStream out) {
        for (int k = 0; k < size; k++) {
            int shift = little ? k : size - 1 - k;
            out.write(shift < 8 ? (int) (v >>> (shift * 8)) & 0xff : (v < 0 ? 0xff : 0));
        }
    }

    private static long readInt(LuaString s, int pos, int size, boolean little, boolean signed) {
        long v = 0;
        for (int k = 0; k < size; k++) {
            int idx = little ? size - 1 - k : k;
            v = (v << 8) | (s.m_bytes[s.m_offset + pos + idx] & 0xff);
        }
        if (signed && size < 8) {
            int shift = 64 - size * 8;
            v = (v << shift) >> shift;
        }
        return v;
    }

    private static Varargs unpack(String fmt, LuaString s, int start) {
        Format f = new Format(fmt);
        List<LuaValue> out = new ArrayList<>();
        int pos = start - 1;
        if (pos < 0) throw new LuaError("offset must be 1 or greater");
        int prevLen = -1;
        while (f.i < fmt.length()) {
            char c = fmt.charAt(f.i++);
            if (f.control(c)) continue;
            int size = f.optSize(c);
            pos += f.gap(size, pos);
            if (c != 's' && !(c == 'c' && size == 0) && pos + size > s.m_length) throw new LuaError("data string too short");
            switch (c) {
                case 'x' -> pos += 1;
                case 'b', 'h', 'l', 'i' -> {
                    long v = readInt(s, pos, size, f.little, true);
                    out.add(LuaValue.valueOf((double) v));
                    prevLen = (int) v;
                    pos += size;
                }
                case 'B', 'H', 'L', 'T', 'I' -> {
                    long v = readInt(s, pos, size, f.little, false);
                    out.add(LuaValue.valueOf((double) v));
                    prevLen = (int) v;
                    pos += size;
                }
                case 'f' -> {
                    out.add(LuaValue.valueOf(Float.intBitsToFloat((int) readInt(s, pos, 4, f.little, false))));
                    pos += 4;
                }
                case 'd' -> {
                    out.add(LuaValue.valueOf(Double.longBitsToDouble(readInt(s, pos, 8, f.little, false))));
                    pos += 8;
                }
                case 'c' -> {
                    if (size == 0) {
                        if (out.isEmpty() || prevLen < 0) throw new LuaError("format 'c0' needs a previous size");
                        size = prevLen;
                        out.remove(out.size() - 1);
                        if (pos + size > s.m_length) throw new LuaError("data string too short");
                    }
                    out.add(s.substring(pos, pos + size));
                    pos += size;
                }
                case 's' -> {
                    int end = pos;
                    while (end < s.m_length && s.m_bytes[s.m_offset + end] != 0) end++;
                    if (end >= s.m_length) throw new LuaError("unfinished string in data");
                    out.add(s.substring(pos, end));
                    pos = end + 1;
                }
                default -> throw new LuaError("invalid format option '" + c + "'");
            }
        }
        out.add(LuaValue.valueOf(pos + 1));
        return LuaValue.varargsOf(out.toArray(new LuaValue[0]));
    }

    private static int size(String fmt) {
        Format f = new Format(fmt);
        int total = 0;
        while (f.i < fmt.length()) {
            char c = fmt.charAt(f.i++);
            if (f.control(c)) continue;
            int size = f.optSize(c);
            if (c == 's' || (c == 'c' && size == 0)) throw new LuaError("options 'c0' - 's' have undefined sizes");
            total += f.gap(size, total) + size;
        }
        return total;
    }
}
