package io.tide.script.lib;

import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/** LuaBitOp ({@code bit.*}), the bit library Redis bundles: 32-bit operations on Lua numbers. Thread-safe (stateless). */
public final class LuaBit {

    private LuaBit() {}


    private interface Op {
        int apply(int a, int b);
    }

    private static LuaValue fold(String name, Op op) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                int r = norm(a.arg(1));
                for (int i = 2; i <= a.narg(); i++) r = op.apply(r, norm(a.arg(i)));
                return LuaValue.valueOf(r);
            }
        };
    }

    private static LuaValue shift(Op op) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return LuaValue.valueOf(op.apply(norm(a.arg(1)), norm(a.arg(2)) & 31));
            }
        };
    }

    /** LuaBitOp's normalisation: the number modulo 2^32, as a signed 32-bit integer. */
    static int norm(LuaValue v) {
        double d = v.checkdouble();
        double m = d - Math.floor(d / 4294967296.0) * 4294967296.0;
        return (int) (long) Math.rint(m);
    }

    public static LuaTable create() {
        LuaTable t = new LuaTable();
        t.rawset("tobit", fold("tobit", (a, b) -> a));
        t.rawset("bnot", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return LuaValue.valueOf(~norm(a.arg(1)));
            }
        });
        t.rawset("band", fold("band", (a, b) -> a & b));
        t.rawset("bor", fold("bor", (a, b) -> a | b));
        t.rawset("bxor", fold("bxor", (a, b) -> a ^ b));
        t.rawset("lshift", shift((a, n) -> a << n));
        t.rawset("rshift", shift((a, n) -> a >>> n));
        t.rawset("arshift", shift((a, n) -> a >> n));
        t.rawset("rol", shift(Integer::rotateLeft));
        t.rawset("ror", shift(Integer::rotateRight));
        t.rawset("bswap", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return LuaValue.valueOf(Integer.reverseBytes(norm(a.arg(1))));
            }
        });
        t.rawset("tohex", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                int x = norm(a.arg(1));
                int n = a.isnoneornil(2) ? 8 : norm(a.arg(2));
                boolean upper = n < 0;
                if (upper) n = -n;
                if (n > 8) n = 8;
                StringBuilder sb = new StringBuilder();
                for (int i = n - 1; i >= 0; i--) {
                    int digit = (x >>> (i * 4)) & 0xf;
                    sb.append((upper ? "0123456789ABCDEF" : "0123456789abcdef").charAt(digit));
                }
                return LuaValue.valueOf(sb.toString());
            }
        });
        return t;
    }
}
