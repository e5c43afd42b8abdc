package io.tide.script;

import io.tide.command.Errors;
import io.tide.protocol.BulkArrayEncoder;
import io.tide.protocol.Reply;
import io.tide.protocol.RespWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * Redis's conversion rules between replies and Lua values, both ways, in RESP2 and RESP3 modes
 * ({@code script_lua.c}: redisProtocolToLuaType and luaReplyToRedisReply). Thread-safe (stateless).
 */
public final class ScriptConversions {

    static final LuaString ERR = LuaString.valueOf("err");
    static final LuaString OK = LuaString.valueOf("ok");
    static final LuaString DOUBLE = LuaString.valueOf("double");
    static final LuaString BIG_NUMBER = LuaString.valueOf("big_number");
    static final LuaString MAP = LuaString.valueOf("map");
    static final LuaString SET = LuaString.valueOf("set");
    static final LuaString VERBATIM = LuaString.valueOf("verbatim_string");
    static final LuaString FORMAT = LuaString.valueOf("format");
    static final LuaString STRING = LuaString.valueOf("string");

    /**
     * How deep a script's result may nest before Redis 7.0 answers "reached lua stack limit" in its place: Redis
     * checks lua_checkstack(4) before converting each value, and each nested table holds one more of Lua's 8000
     * stack slots, so the value at depth 7995 (0 = the script's result) is replaced by that error.
     */
    static final int MAX_REPLY_DEPTH = 7995;

    private ScriptConversions() {}

    static LuaString str(byte[] b) {
        return LuaString.valueOf(b);
    }

    static byte[] bytes(LuaString s) {
        byte[] out = new byte[s.m_length];
        System.arraycopy(s.m_bytes, s.m_offset, out, 0, s.m_length);
        return out;
    }

    /** A Lua number as Redis turns it into an integer reply: C's cast, which gives LLONG_MIN out of range on x86. */
    static long truncate(double d) {
        if (Double.isNaN(d) || d >= 0x1p63 || d < -0x1p63) return Long.MIN_VALUE;
        return (long) d;
    }

    /** A command's reply as the script sees it; errors are handled by the caller. */
    static LuaValue toLua(Reply r, int resp) {
        switch (r) {
            case Reply.Simple s -> {
                LuaTable t = new LuaTable();
                t.rawset(OK, LuaValue.valueOf(s.text()));
                return t;
            }
            case Reply.Error e -> {
                LuaTable t = new LuaTable();
                t.rawset(ERR, LuaValue.valueOf(e.text()));
                return t;
            }
            case Reply.Int i -> {
                return LuaValue.valueOf((double) i.value());
            }
            case Reply.Bulk b -> {
                return str(b.bytes());
            }
            case Reply.Slice b -> {
                return LuaString.valueOf(b.array(), b.offset(), b.length()); // shares it: neither side changes it
            }
            case Reply.NullBulk n -> {
                return resp == 2 ? LuaValue.FALSE : LuaValue.NIL;
            }
            case Reply.NullArray n -> {
                return resp == 2 ? LuaValue.FALSE : LuaValue.NIL;
            }
            case Reply.Array a -> {
                return array(a.items(), resp);
            }
            case Reply.Encoded e -> {
                return array(BulkArrayEncoder.decode(e), resp);
            }
            case Reply.Push p -> {
                return array(p.items(), resp);
            }
            case Reply.MapReply m -> {
                if (resp == 2) return array(m.keysAndValues(), resp);
                LuaTable inner = new LuaTable();
                Reply[] kv = m.keysAndValues();
                for (int i = 0; i + 1 < kv.length; i += 2) {
                    LuaValue k = toLua(kv[i], resp);
                    if (!k.isnil()) inner.rawset(k, toLua(kv[i + 1], resp));
                }
                LuaTable t = new LuaTable();
                t.rawset(MAP, inner);
                return t;
            }
            case Reply.SetReply s -> {
                if (resp == 2) return array(s.items(), resp);
                LuaTable inner = new LuaTable();
                for (Reply item : s.items()) {
                    LuaValue k = toLua(item, resp);
                    if (!k.isnil()) inner.rawset(k, LuaValue.TRUE);
                }
                LuaTable t = new LuaTable();
                t.rawset(SET, inner);
                return t;
            }
            case Reply.Double d -> {
                if (resp == 2) return LuaValue.valueOf(RespWriter.formatDouble(d.value()));
                LuaTable t = new LuaTable();
                t.rawset(DOUBLE, LuaValue.valueOf(d.value()));
                return t;
            }
            case Reply.Bool b -> {
                if (resp == 2) return LuaValue.valueOf(b.value() ? 1 : 0);
                return LuaValue.valueOf(b.value());
            }
            case Reply.Verbatim v -> {
                if (resp == 2) return str(v.text());
                LuaTable inner = new LuaTable();
                inner.rawset(FORMAT, LuaValue.valueOf(v.format()));
                inner.rawset(STRING, str(v.text()));
                LuaTable t = new LuaTable();
                t.rawset(VERBATIM, inner);
                return t;
            }
            case Reply.BigNumber b -> {
                if (resp == 2) return LuaValue.valueOf(b.digits());
                LuaTable t = new LuaTable();
                t.rawset(BIG_NUMBER, LuaValue.valueOf(b.digits()));
                return t;
            }
            case Reply.Raw raw -> {
                return toLua(RawReplies.parse(raw.encoded()), resp);
            }
            case Reply.BulkView v -> {
                return toLua(v.copy(), resp); // never made for a script's calls; a copy if it were
            }
            case Reply.IntView i -> {
                return toLua(Reply.settled(i), resp);
            }
            case Reply.Later l -> throw new IllegalStateException("a deferred reply reached a script"); // noscript
        }
    }

    private static LuaTable array(Reply[] items, int resp) {
        LuaTable t = new LuaTable(items.length, 0);
        for (int i = 0; i < items.length; i++) t.rawset(i + 1, toLua(items[i], resp));
        return t;
    }

    /** The script's return value as the reply Redis sends ({@code resp} is the script's setresp). */
    public static Reply toReply(LuaValue v, int resp) {
        return toReply(v, resp, 2);
    }

    /**
     * As {@link #toReply(LuaValue, int)}, for a client speaking {@code clientProtocol}. A result nested deeper than
     * {@link #DEEP} (a table that contains itself) is encoded without recursion, straight to RESP bytes, so neither
     * this thread nor the encoder runs out of stack before Redis's own limit.
     */
    public static Reply toReply(LuaValue v, int resp, int clientProtocol) {
        try {
            return convert(v, resp, 0);
        } catch (TooDeep e) {
            byte[] encoded = encodeDeep(v, resp, clientProtocol);
            return encoded != null ? new Reply.Raw(encoded) : Reply.error(Errors.SCRIPT_REPLY_STACK_LIMIT);
        }
    }

    /** Nesting past which {@link #toReply(LuaValue, int, int)} switches to {@link #encodeDeep}. */
    static final int DEEP = 256;

    /** Thrown (stackless) when a result nests deeper than {@link #DEEP}. */
    private static final class TooDeep extends RuntimeException {
        TooDeep() {
            super(null, null, false, false);
        }
    }

    private static final TooDeep TOO_DEEP = new TooDeep();

    /**
     * The RESP bytes of a deeply nested result, by an explicit stack: arrays, strings, numbers, booleans, and
     * {@code err}/{@code ok} tables, with Redis's "reached lua stack limit" at {@link #MAX_REPLY_DEPTH}; null when
     * it holds something else (RESP3 types), which is then answered as too deep.
     */
    private static byte[] encodeDeep(LuaValue root, int resp, int clientProtocol) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.util.ArrayDeque<Object[]> stack = new java.util.ArrayDeque<>();
        LuaValue next = root;
        int depth = 0;
        while (true) {
            if (next != null) {
                if (depth >= MAX_REPLY_DEPTH) {
                    line(out, "-" + Errors.SCRIPT_REPLY_STACK_LIMIT);
                } else if (next.type() == LuaValue.TTABLE) {
                    LuaTable t = (LuaTable) next;
                    LuaValue err = t.rawget(ERR);
                    LuaValue ok = t.rawget(OK);
                    if (err.type() == LuaValue.TSTRING) line(out, "-" + errorText(err.tojstring()));
                    else if (ok.type() == LuaValue.TSTRING) line(out, "+" + ok.tojstring().replace('\r', ' ').replace('\n', ' '));
                    else if (!t.rawget(DOUBLE).isnil() || !t.rawget(BIG_NUMBER).isnil() || !t.rawget(MAP).isnil()
                            || !t.rawget(SET).isnil() || !t.rawget(VERBATIM).isnil()) {
                        return null;
                    } else {
                        int n = 0;
                        while (!t.rawget(n + 1).isnil()) n++;
                        line(out, "*" + n);
                        stack.push(new Object[] {t, new int[] {1, n, depth}});
                    }
                } else if (next.type() == LuaValue.TSTRING) {
                    LuaString str = next.checkstring();
                    line(out, "$" + str.m_length);
                    out.write(str.m_bytes, str.m_offset, str.m_length);
                    line(out, "");
                } else if (next.type() == LuaValue.TNUMBER) {
                    line(out, ":" + truncate(next.todouble()));
                } else if (next.type() == LuaValue.TBOOLEAN && resp == 2) {
                    if (next.toboolean()) line(out, ":1");
                    else line(out, clientProtocol == 3 ? "_" : "$-1");
                } else {
                    return null;
                }
                next = null;
            }
            Object[] top = stack.peek();
            if (top == null) return out.toByteArray();
            int[] pos = (int[]) top[1];
            if (pos[0] > pos[1]) {
                stack.pop();
                continue;
            }
            next = ((LuaTable) top[0]).rawget(pos[0]++);
            depth = pos[2] + 1;
        }
    }

    private static void line(java.io.ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.write(b, 0, b.length);
        out.write('\r');
        out.write('\n');
    }

    private static Reply convert(LuaValue v, int resp, int depth) {
        if (depth >= DEEP) throw TOO_DEEP;
        switch (v.type()) {
            case LuaValue.TSTRING:
                return Reply.bulk(bytes(v.checkstring()));
            case LuaValue.TBOOLEAN:
                if (resp == 2) return v.toboolean() ? Reply.ONE : Reply.NULL;
                return new Reply.Bool(v.toboolean());
            case LuaValue.TNUMBER:
                return Reply.integer(truncate(v.todouble()));
            case LuaValue.TTABLE:
                return tableToReply((LuaTable) v, resp, depth);
            default:
                return Reply.NULL;
        }
    }

    private static Reply tableToReply(LuaTable t, int resp, int depth) {
        LuaValue err = t.rawget(ERR);
        if (err.type() == LuaValue.TSTRING) return Reply.error(errorText(err.tojstring()));
        LuaValue ok = t.rawget(OK);
        if (ok.type() == LuaValue.TSTRING) {
            return Reply.simple(ok.tojstring().replace('\r', ' ').replace('\n', ' '));
        }
        LuaValue dbl = t.rawget(DOUBLE);
        if (dbl.type() == LuaValue.TNUMBER) return new Reply.Double(dbl.todouble());
        LuaValue big = t.rawget(BIG_NUMBER);
        if (big.type() == LuaValue.TSTRING) {
            return new Reply.BigNumber(big.tojstring().replace('\r', ' ').replace('\n', ' '));
        }
        LuaValue map = t.rawget(MAP);
        if (map.istable()) {
            List<Reply> kv = new ArrayList<>();
            LuaTable m = (LuaTable) map;
            LuaValue k = LuaValue.NIL;
            while (true) {
                Varargs n = m.next(k);
                if ((k = n.arg1()).isnil()) break;
                kv.add(convert(k, resp, depth + 1));
                kv.add(convert(n.arg(2), resp, depth + 1));
            }
            return Reply.map(kv);
        }
        LuaValue set = t.rawget(SET);
        if (set.istable()) {
            List<Reply> items = new ArrayList<>();
            LuaTable s = (LuaTable) set;
            LuaValue k = LuaValue.NIL;
            while (true) {
                Varargs n = s.next(k);
                if ((k = n.arg1()).isnil()) break;
                items.add(convert(k, resp, depth + 1));
            }
            return new Reply.SetReply(items.toArray(new Reply[0]));
        }
        LuaValue verb = t.rawget(VERBATIM);
        if (verb.istable()) {
            LuaValue fmt = verb.rawget(FORMAT);
            LuaValue text = verb.rawget(STRING);
            if (fmt.type() == LuaValue.TSTRING && text.type() == LuaValue.TSTRING && fmt.rawlen() == 3) {
                return new Reply.Verbatim(fmt.tojstring(), bytes(text.checkstring()));
            }
        }
        List<Reply> items = new ArrayList<>();
        for (int i = 1; ; i++) {
            LuaValue e = t.rawget(i);
            if (e.isnil()) break;
            items.add(convert(e, resp, depth + 1));
        }
        return Reply.array(items);
    }

    /** An {@code err} field as the reply line: a leading dash dropped, newlines made spaces. */
    static String errorText(String err) {
        String s = err.startsWith("-") ? err.substring(1) : err;
        return s.replace('\r', ' ').replace('\n', ' ');
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
