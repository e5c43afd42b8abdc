package io.tide.script;

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
            case Reply.NullBulk n -> {
                return resp == 2 ? LuaValue.FALSE : LuaValue.NIL;
            }
            case Reply.NullArray n -> {
                return resp == 2 ? LuaValue.FALSE : LuaValue.NIL;
            }
            case Reply.Array a -> {
                return array(a.items(), resp);
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
        }
    }

    private static LuaTable array(Reply[] items, int resp) {
        LuaTable t = new LuaTable(items.length, 0);
        for (int i = 0; i < items.length; i++) t.rawset(i + 1, toLua(items[i], resp));
        return t;
    }

    /** The script's return value as the reply Redis sends ({@code resp} is the script's setresp). */
    public static Reply toReply(LuaValue v, int resp) {
        return toReply(v, resp, 0);
    }

    private static Reply toReply(LuaValue v, int resp, int depth) {
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
                kv.add(toReply(k, resp, depth + 1));
                kv.add(toReply(n.arg(2), resp, depth + 1));
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
                items.add(toReply(k, resp, depth + 1));
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
            items.add(toReply(e, resp, depth + 1));
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
