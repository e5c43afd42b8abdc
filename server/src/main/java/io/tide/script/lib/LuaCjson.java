package io.tide.script.lib;

import io.tide.command.Errors;
import io.tide.script.LuaEngine;
import io.tide.script.NumberFormat;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * Redis's lua-cjson ({@code cjson.encode}, {@code cjson.decode}, {@code cjson.null}) with its defaults:
 * numbers with 14 significant digits, {@code /} escaped, empty tables as {@code {}}, excessively sparse arrays
 * refused, nesting limited to 1000. Thread-safe (stateless apart from the immutable null sentinel).
 */
public final class LuaCjson {

    /**
     * {@code cjson.null}: a light userdata, distinct from nil. Redis's is the NULL pointer, which {@code tostring}
     * writes "userdata: (nil)"; LuaJ's tostring of a userdata is its object's text.
     */
    public static final LuaUserdata NULL = new LuaUserdata(new Object() {
        @Override
        public String toString() {
            return "userdata: (nil)";
        }
    });
    private static final int MAX_DEPTH = 1000;

    private LuaCjson() {}

    public static LuaTable create() {
        LuaTable t = new LuaTable();
        int[] precision = {14}; // encode_number_precision's setting, kept across scripts as Redis keeps it
        t.rawset("null", NULL);
        t.rawset("encode", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() != 1) throw LuaEngine.libraryError("bad argument #1 to 'encode' (expected 1 argument)");
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                encode(a.arg1(), out, 0, precision[0]);
                return LuaString.valueOf(out.toByteArray());
            }
        });
        t.rawset("decode", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() != 1) throw LuaEngine.libraryError("bad argument #1 to 'decode' (expected 1 argument)");
                LuaString s = a.checkstring(1);
                byte[] b = new byte[s.m_length];
                System.arraycopy(s.m_bytes, s.m_offset, b, 0, b.length);
                return new Decoder(b).document();
            }
        });
        t.rawset("encode_number_precision", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() > 1) throw LuaEngine.libraryError("bad argument #2 to 'encode_number_precision' (found too many arguments)");
                if (a.narg() == 1) {
                    LuaValue v = a.arg1();
                    double d = v.type() == LuaValue.TNUMBER || v.isstring() ? v.todouble() : Double.NaN;
                    if (!(d >= 1 && d <= 14) || d != Math.floor(d)) {
                        throw LuaEngine.libraryError(Errors.CJSON_PRECISION_RANGE);
                    }
                    precision[0] = (int) d;
                }
                return LuaValue.valueOf(precision[0]);
            }
        });
        for (String opt : new String[] {"encode_keep_buffer", "encode_max_depth", "decode_max_depth",
            "encode_sparse_array", "encode_invalid_numbers", "decode_invalid_numbers"}) {
            t.rawset(opt, new VarArgFunction() {
                @Override
                public Varargs invoke(Varargs a) {
                    return a;
                }
            });
        }
        return t;
    }

    // ---------------------------------------------------------------- encoding

    private static void encode(LuaValue v, ByteArrayOutputStream out, int depth, int prec) {
        switch (v.type()) {
            case LuaValue.TSTRING -> string(v.checkstring(), out);
            case LuaValue.TNUMBER -> number(v.todouble(), out, prec);
            case LuaValue.TBOOLEAN -> ascii(v.toboolean() ? "true" : "false", out);
            case LuaValue.TNIL -> ascii("null", out);
            case LuaValue.TTABLE -> table((LuaTable) v, out, depth + 1, prec);
            default -> {
                if (v == NULL) ascii("null", out);
                else throw LuaEngine.libraryError("Cannot serialise " + v.typename() + ": type not supported");
            }
        }
    }

    private static void number(double d, ByteArrayOutputStream out, int prec) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw LuaEngine.libraryError("Cannot serialise number: must not be NaN or Inf");
        }
        ascii(NumberFormat.g(d, prec), out);
    }

    private static void table(LuaTable t, ByteArrayOutputStream out, int depth, int prec) {
        if (depth > MAX_DEPTH) throw LuaEngine.libraryError("Cannot serialise, excessive nesting (" + depth + ")");
        int items = 0;
        double max = 0;
        boolean array = true;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            items++;
            if (array && k.type() == LuaValue.TNUMBER) {
                double d = k.todouble();
                if (d >= 1 && d == Math.floor(d)) {
                    max = Math.max(max, d);
                    continue;
                }
            }
            array = false;
        }
        if (array && items > 0) {
            if (max > 10 && max > items * 2.0) throw LuaEngine.libraryError("Cannot serialise table: excessively sparse array");
            out.write('[');
            for (int i = 1; i <= (int) max; i++) {
                if (i > 1) out.write(',');
                encode(t.rawget(i), out, depth, prec);
            }
            out.write(']');
            return;
        }
        out.write('{');
        boolean first = true;
        k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            if (!first) out.write(',');
            first = false;
            if (k.type() == LuaValue.TSTRING) string(k.checkstring(), out);
            else if (k.type() == LuaValue.TNUMBER) {
                out.write('"');
                number(k.todouble(), out, prec);
                out.write('"');
            } else throw LuaEngine.libraryError("Cannot serialise table: table key must be a number or string");
            out.write(':');
            encode(n.arg(2), out, depth, prec);
        }
        out.write('}');
    }

    private static void string(LuaString s, ByteArrayOutputStream out) {
        out.write('"');
        for (int i = 0; i < s.m_length; i++) {
            int c = s.m_bytes[s.m_offset + i] & 0xff;
            switch (c) {
                case '"' -> ascii("\\\"", out);
                case '\\' -> ascii("\\\\", out);
                case '/' -> ascii("\\/", out);
                case '\b' -> ascii("\\b", out);
                case '\f' -> ascii("\\f", out);
                case '\n' -> ascii("\\n", out);
                case '\r' -> ascii("\\r", out);
                case '\t' -> ascii("\\t", out);
                default -> {
                    if (c < 0x20 || c == 0x7f) ascii(String.format("\\u%04x", c), out);
                    else out.write(c);
                }
            }
        }
        out.write('"');
    }

    private static void ascii(String s, ByteArrayOutputStream out) {
        out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    // ---------------------------------------------------------------- decoding

    /** A recursive-descent JSON reader producing Lua values, with lua-cjson's error texts. */
    private static final class Decoder {
        private final byte[] b;
        private int pos;
        private int depth;

        Decoder(byte[] b) {
            this.b = b;
        }

        LuaValue document() {
            LuaValue v = value();
            skipSpace();
            if (pos < b.length) throw error("the end", "invalid token");
            return v;
        }

        /** The name cjson gives the token that starts at {@code p}, where it is a well-formed one. */
        private String tokenAt(int p) {
            int c = b[p];
            switch (c) {
                case '{': return "T_OBJ_BEGIN";
                case '}': return "T_OBJ_END";
                case '[': return "T_ARR_BEGIN";
                case ']': return "T_ARR_END";
                case ',': return "T_COMMA";
                case ':': return "T_COLON";
                case '"': return "T_STRING";
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) return "T_NUMBER";
                    if (startsWith(p, "true") || startsWith(p, "false")) return "T_BOOLEAN";
                    if (startsWith(p, "null")) return "T_NULL";
                    return "invalid token";
            }
        }

        private boolean startsWith(int p, String word) {
            if (p + word.length() > b.length) return false;
            for (int i = 0; i < word.length(); i++) if (b[p + i] != word.charAt(i)) return false;
            return true;
        }

        private LuaError error(String expected, String found) {
            if (pos >= b.length) found = "T_END"; // the token cjson reports at the end of the text
            else if (found.equals("invalid token")) found = tokenAt(pos);
            return LuaEngine.libraryError("Expected " + expected + " but found " + found + " at character " + (pos + 1));
        }

        private void skipSpace() {
            while (pos < b.length && (b[pos] == ' ' || b[pos] == '\t' || b[pos] == '\n' || b[pos] == '\r')) pos++;
        }

        private LuaValue value() {
            skipSpace();
            if (pos >= b.length) throw error("value", "T_END");
            int c = b[pos];
            switch (c) {
                case '{': return object();
                case '[': return array();
                case '"': return LuaString.valueOf(string());
                case 't': return literal("true", LuaValue.TRUE);
                case 'f': return literal("false", LuaValue.FALSE);
                case 'n': return literal("null", NULL);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) return number();
                    throw error("value", "invalid token");
            }
        }

        private LuaValue literal(String word, LuaValue v) {
            for (int i = 0; i < word.length(); i++) {
                if (pos + i >= b.length || b[pos + i] != word.charAt(i)) throw error("value", "invalid token");
            }
            pos += word.length();
            return v;
        }

        private LuaValue number() {
            int start = pos;
            if (b[pos] == '-') pos++;
            while (pos < b.length && ((b[pos] >= '0' && b[pos] <= '9') || b[pos] == '.' || b[pos] == 'e'
                    || b[pos] == 'E' || b[pos] == '+' || b[pos] == '-')) pos++;
            try {
                return LuaValue.valueOf(Double.parseDouble(new String(b, start, pos - start, StandardCharsets.US_ASCII)));
            } catch (NumberFormatException e) {
                pos = start;
                throw error("value", "invalid number");
            }
        }

        private byte[] string() {
            pos++;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                if (pos >= b.length) throw error("value", "unexpected end of string");
                int c = b[pos++] & 0xff;
                if (c == '"') return out.toByteArray();
                if (c != '\\') {
                    out.write(c);
                    continue;
                }
                if (pos >= b.length) throw error("value", "invalid escape code");
                int e = b[pos++];
                switch (e) {
                    case '"', '\\', '/' -> out.write(e);
                    case 'b' -> out.write('\b');
                    case 'f' -> out.write('\f');
                    case 'n' -> out.write('\n');
                    case 'r' -> out.write('\r');
                    case 't' -> out.write('\t');
                    case 'u' -> {
                        int cp = hex4();
                        if (cp >= 0xD800 && cp <= 0xDBFF && pos + 6 <= b.length && b[pos] == '\\' && b[pos + 1] == 'u') {
                            pos += 2;
                            int low = hex4();
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        }
                        out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                    }
                    default -> throw error("value", "invalid escape code");
                }
            }
        }

        private int hex4() {
            if (pos + 4 > b.length) throw error("value", "invalid unicode escape code");
            try {
                int v = Integer.parseInt(new String(b, pos, 4, StandardCharsets.US_ASCII), 16);
                pos += 4;
                return v;
            } catch (NumberFormatException e) {
                throw error("value", "invalid unicode escape code");
            }
        }

        private LuaValue object() {
            if (++depth > MAX_DEPTH) throw LuaEngine.libraryError("Found too many nested data structures (" + depth + ") at character " + (pos + 1));
            pos++;
            LuaTable t = new LuaTable();
            skipSpace();
            if (pos < b.length && b[pos] == '}') {
                pos++;
                depth--;
                return t;
            }
            while (true) {
                skipSpace();
                if (pos >= b.length || b[pos] != '"') throw error("object key string", "invalid token");
                LuaString key = LuaString.valueOf(string());
                skipSpace();
                if (pos >= b.length || b[pos] != ':') throw error("colon", "invalid token");
                pos++;
                t.rawset(key, value());
                skipSpace();
                if (pos < b.length && b[pos] == ',') {
                    pos++;
                    continue;
                }
                if (pos < b.length && b[pos] == '}') {
                    pos++;
                    depth--;
                    return t;
                }
                throw error("comma or object end", "invalid token");
            }
        }

        private LuaValue array() {
            if (++depth > MAX_DEPTH) throw LuaEngine.libraryError("Found too many nested data structures (" + depth + ") at character " + (pos + 1));
            pos++;
            LuaTable t = new LuaTable();
            skipSpace();
            if (pos < b.length && b[pos] == ']') {
                pos++;
                depth--;
                return t;
            }
            for (int i = 1; ; i++) {
                t.rawset(i, value());
                skipSpace();
                if (pos < b.length && b[pos] == ',') {
                    pos++;
                    continue;
                }
                if (pos < b.length && b[pos] == ']') {
                    pos++;
                    depth--;
                    return t;
                }
                throw error("comma or array end", "invalid token");
            }
        }
    }
}
