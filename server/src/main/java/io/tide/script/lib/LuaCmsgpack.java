package io.tide.script.lib;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * Redis's lua-cmsgpack ({@code cmsgpack.pack}, {@code unpack}, {@code unpack_one}, {@code unpack_limit}):
 * integral numbers as the smallest MessagePack integer, others as float32 when exact else float64, tables
 * with keys 1..n as arrays, others as maps, nesting beyond 16 packed as nil. Thread-safe (stateless).
 */
public final class LuaCmsgpack {

    private static final int MAX_NESTING = 16;

    private LuaCmsgpack() {}

    public static LuaTable create() {
        LuaTable t = new LuaTable();
        t.rawset("pack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() == 0) throw new LuaError("MessagePack pack needs input.");
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                for (int i = 1; i <= a.narg(); i++) pack(a.arg(i), out, 0);
                return LuaString.valueOf(out.toByteArray());
            }
        });
        t.rawset("unpack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return unpack(a.checkstring(1), 0, 0, false);
            }
        });
        t.rawset("unpack_one", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return unpack(a.checkstring(1), a.optint(2, 0), 1, true);
            }
        });
        t.rawset("unpack_limit", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return unpack(a.checkstring(1), a.optint(3, 0), a.checkint(2), true);
            }
        });
        return t;
    }

    // ---------------------------------------------------------------- packing

    private static void pack(LuaValue v, ByteArrayOutputStream out, int level) {
        switch (v.type()) {
            case LuaValue.TSTRING -> {
                LuaString s = v.checkstring();
                int n = s.m_length;
                if (n < 32) out.write(0xa0 | n);
                else if (n <= 0xff) {
                    out.write(0xd9);
                    out.write(n);
                } else if (n <= 0xffff) {
                    out.write(0xda);
                    be(n, 2, out);
                } else {
                    out.write(0xdb);
                    be(n, 4, out);
                }
                out.write(s.m_bytes, s.m_offset, n);
            }
            case LuaValue.TBOOLEAN -> out.write(v.toboolean() ? 0xc3 : 0xc2);
            case LuaValue.TNUMBER -> number(v.todouble(), out);
            case LuaValue.TTABLE -> {
                if (level >= MAX_NESTING) {
                    out.write(0xc0);
                    return;
                }
                table((LuaTable) v, out, level + 1);
            }
            default -> out.write(0xc0);
        }
    }

    private static void number(double d, ByteArrayOutputStream out) {
        long l = (long) d;
        // C's (int64_t) cast: out of range (2^63 and up) it is no integer, where Java's cast would saturate.
        if (d == Math.floor(d) && d < 0x1p63 && d >= -0x1p63 && (double) l == d) {
            integer(l, out);
        } else if ((double) (float) d == d) {
            out.write(0xca);
            be(Float.floatToIntBits((float) d), 4, out);
        } else {
            out.write(0xcb);
            be(Double.doubleToLongBits(d), 8, out);
        }
    }

    private static void integer(long n, ByteArrayOutputStream out) {
        if (n >= 0) {
            if (n <= 127) out.write((int) n);
            else if (n <= 0xff) {
                out.write(0xcc);
                out.write((int) n);
            } else if (n <= 0xffff) {
                out.write(0xcd);
                be(n, 2, out);
            } else if (n <= 0xffffffffL) {
                out.write(0xce);
                be(n, 4, out);
            } else {
                out.write(0xcf);
                be(n, 8, out);
            }
        } else {
            if (n >= -32) out.write((int) (n & 0xff));
            else if (n >= -128) {
                out.write(0xd0);
                out.write((int) (n & 0xff));
            } else if (n >= -32768) {
                out.write(0xd1);
                be(n, 2, out);
            } else if (n >= Integer.MIN_VALUE) {
                out.write(0xd2);
                be(n, 4, out);
            } else {
                out.write(0xd3);
                be(n, 8, out);
            }
        }
    }

    private static void table(LuaTable t, ByteArrayOutputStream out, int level) {
        int count = 0;
        double max = 0;
        boolean array = true;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            count++;
            if (k.type() == LuaValue.TNUMBER && k.todouble() >= 1 && k.todouble() == Math.floor(k.todouble())) {
                max = Math.max(max, k.todouble());
            } else {
                array = false;
            }
        }
        if (array && max == count) {
            header(count, 0x90, 0xdc, 0xdd, out);
            for (int i = 1; i <= count; i++) pack(t.rawget(i), out, level);
            return;
        }
        header(count, 0x80, 0xde, 0xdf, out);
        k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            pack(k, out, level);
            pack(n.arg(2), out, level);
        }
    }

    private static void header(int n, int fix, int x16, int x32, ByteArrayOutputStream out) {
        if (n <= 15) out.write(fix | n);
        else if (n <= 0xffff) {
            out.write(x16);
            be(n, 2, out);
        } else {
            out.write(x32);
            be(n, 4, out);
        }
    }

    private static void be(long v, int bytes, ByteArrayOutputStream out) {
        for (int i = bytes - 1; i >= 0; i--) out.write((int) (v >>> (i * 8)) & 0xff);
    }

    // ---------------------------------------------------------------- unpacking

    private static Varargs unpack(LuaString s, int offset, int limit, boolean withOffset) {
        byte[] b = new byte[s.m_length];
        System.arraycopy(s.m_bytes, s.m_offset, b, 0, b.length);
        if (offset < 0 || limit < 0) throw new LuaError("Invalid request to unpack with offset of " + offset + " and limit of " + limit + ".");
        int[] pos = {offset};
        List<LuaValue> values = new ArrayList<>();
        if (withOffset) values.add(LuaValue.NIL);
        while (pos[0] < b.length && (limit == 0 || values.size() - (withOffset ? 1 : 0) < limit)) {
            values.add(read(b, pos));
        }
        if (withOffset) values.set(0, LuaValue.valueOf(pos[0] >= b.length ? -1 : pos[0]));
        return LuaValue.varargsOf(values.toArray(new LuaValue[0]));
    }

    private static void need(byte[] b, int[] pos, int n) {
        if (pos[0] + n > b.length) throw new LuaError("Missing bytes in input.");
    }

    private static long readBe(byte[] b, int[] pos, int n) {
        need(b, pos, n);
        long v = 0;
        for (int i = 0; i < n; i++) v = (v << 8) | (b[pos[0]++] & 0xff);
        return v;
    }

    private static LuaValue bytes(byte[] b, int[] pos, int n) {
        need(b, pos, n);
        byte[] out = new byte[n];
        System.arraycopy(b, pos[0], out, 0, n);
        pos[0] += n;
        return LuaString.valueOf(out);
    }

    private static LuaValue read(byte[] b, int[] pos) {
        need(b, pos, 1);
        int c = b[pos[0]++] & 0xff;
        if (c <= 0x7f) return LuaValue.valueOf(c);
        if (c >= 0xe0) return LuaValue.valueOf((byte) c);
        if ((c & 0xe0) == 0xa0) return bytes(b, pos, c & 0x1f);
        if ((c & 0xf0) == 0x90) return array(b, pos, c & 0x0f);
        if ((c & 0xf0) == 0x80) return map(b, pos, c & 0x0f);
        switch (c) {
            case 0xc0: return LuaValue.NIL;
            case 0xc2: return LuaValue.FALSE;
            case 0xc3: return LuaValue.TRUE;
            case 0xc4: case 0xd9: return bytes(b, pos, (int) readBe(b, pos, 1));
            case 0xc5: case 0xda: return bytes(b, pos, (int) readBe(b, pos, 2));
            case 0xc6: case 0xdb: return bytes(b, pos, (int) readBe(b, pos, 4));
            case 0xca: return LuaValue.valueOf(Float.intBitsToFloat((int) readBe(b, pos, 4)));
            case 0xcb: return LuaValue.valueOf(Double.longBitsToDouble(readBe(b, pos, 8)));
            case 0xcc: return LuaValue.valueOf((double) readBe(b, pos, 1));
            case 0xcd: return LuaValue.valueOf((double) readBe(b, pos, 2));
            case 0xce: return LuaValue.valueOf((double) readBe(b, pos, 4));
            case 0xcf: return LuaValue.valueOf((double) readBe(b, pos, 8));
            case 0xd0: return LuaValue.valueOf((byte) readBe(b, pos, 1));
            case 0xd1: return LuaValue.valueOf((short) readBe(b, pos, 2));
            case 0xd2: return LuaValue.valueOf((int) readBe(b, pos, 4));
            case 0xd3: return LuaValue.valueOf((double) readBe(b, pos, 8));
            case 0xdc: return array(b, pos, (int) readBe(b, pos, 2));
            case 0xdd: return array(b, pos, (int) readBe(b, pos, 4));
            case 0xde: return map(b, pos, (int) readBe(b, pos, 2));
            case 0xdf: return map(b, pos, (int) readBe(b, pos, 4));
            default: throw new LuaError("Bad data format in input.");
        }
    }

    private static LuaValue array(byte[] b, int[] pos, int n) {
        LuaTable t = new LuaTable();
        for (int i = 1; i <= n; i++) t.rawset(i, read(b, pos));
        return t;
    }

    private static LuaValue map(byte[] b, int[] pos, int n) {
        LuaTable t = new LuaTable();
        for (int i = 0; i < n; i++) {
            LuaValue k = read(b, pos);
            LuaValue v = read(b, pos);
            if (!k.isnil()) t.rawset(k, v);
        }
        return t;
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
