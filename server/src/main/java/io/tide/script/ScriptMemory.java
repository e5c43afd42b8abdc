package io.tide.script;

import java.util.IdentityHashMap;
import java.util.Map;
import org.luaj.vm2.LocVars;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaDouble;
import org.luaj.vm2.LuaInteger;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Upvaldesc;

/**
 * Estimates of the heap that cached scripts and function libraries hold, for INFO memory's scripting fields.
 * Thread-safe (stateless).
 *
 * <p>Method: the objects are counted one by one with HotSpot's layout under compressed pointers (12-byte object
 * headers, 16-byte array headers, 4-byte references, sizes rounded up to 8 bytes). A script's <em>compiled
 * state</em> (Redis's "Lua VM" share) is its closure and the whole tree of LuaJ prototypes under it: bytecode,
 * line info, constants (strings and numbers), local-variable and upvalue descriptors; each object is counted once,
 * even where prototypes share it. Its <em>overhead</em> (Redis's scripts dictionary) is the body, the SHA1 and the
 * cache entry. What is not counted: the Lua environment every script shares (globals, libraries), which Redis's
 * figure includes, and memory a running script allocates, which is garbage once it returns.
 */
public final class ScriptMemory {

    private static final int HEADER = 12;
    private static final int ARRAY_HEADER = 16;
    private static final int REF = 4;

    private ScriptMemory() {}

    static long align(long n) {
        return (n + 7) & ~7L;
    }

    /** A byte array of {@code length} bytes. */
    static long byteArray(int length) {
        return align(ARRAY_HEADER + (long) length);
    }

    /** A reference array (or an int array) of {@code length} slots of {@code slot} bytes. */
    private static long array(int length, int slot) {
        return align(ARRAY_HEADER + (long) length * slot);
    }

    /** A Latin-1 {@code String} of {@code length} characters: the object (hash, coder, value) and its bytes. */
    static long string(int length) {
        return align(HEADER + REF + 4 + 1 + 1) + byteArray(length);
    }

    /** An object with {@code refs} references and {@code primitiveBytes} of other fields. */
    static long object(int refs, int primitiveBytes) {
        return align(HEADER + (long) refs * REF + primitiveBytes);
    }

    /** The compiled state behind {@code function}: its closure and prototype tree (0 for a non-Lua function). */
    static long compiled(LuaValue function) {
        if (!(function instanceof LuaClosure c)) return 0;
        Map<Object, Boolean> seen = new IdentityHashMap<>();
        return closure(c, seen);
    }

    /** Several closures that may share prototypes (a library's functions), each shared object counted once. */
    static long compiled(Iterable<? extends LuaValue> functions) {
        Map<Object, Boolean> seen = new IdentityHashMap<>();
        long n = 0;
        for (LuaValue f : functions) if (f instanceof LuaClosure c) n += closure(c, seen);
        return n;
    }

    private static long closure(LuaClosure c, Map<Object, Boolean> seen) {
        if (seen.put(c, Boolean.TRUE) != null) return 0;
        long n = object(2, 0); // p, upValues
        if (c.upValues != null) {
            // Each UpValue holds an array reference and an index; what it points to (the environment) is shared.
            n += array(c.upValues.length, REF) + (long) c.upValues.length * object(1, 4);
        }
        return n + prototype(c.p, seen);
    }

    private static long prototype(Prototype p, Map<Object, Boolean> seen) {
        if (p == null || seen.put(p, Boolean.TRUE) != null) return 0;
        long n = object(7, 6 * 4); // k, code, p, lineinfo, locvars, upvalues, source; six ints
        if (p.code != null) n += array(p.code.length, 4);
        if (p.lineinfo != null) n += array(p.lineinfo.length, 4);
        if (p.k != null) {
            n += array(p.k.length, REF);
            for (LuaValue v : p.k) n += constant(v, seen);
        }
        if (p.locvars != null) {
            n += array(p.locvars.length, REF);
            for (LocVars l : p.locvars) {
                if (l != null && seen.put(l, Boolean.TRUE) == null) n += object(1, 8) + constant(l.varname, seen);
            }
        }
        if (p.upvalues != null) {
            n += array(p.upvalues.length, REF);
            for (Upvaldesc u : p.upvalues) {
                if (u != null && seen.put(u, Boolean.TRUE) == null) n += object(1, 3) + constant(u.name, seen);
            }
        }
        n += constant(p.source, seen);
        if (p.p != null) {
            n += array(p.p.length, REF);
            for (Prototype child : p.p) n += prototype(child, seen);
        }
        return n;
    }

    /** A constant: strings (object and bytes) and numbers; nil and booleans are shared singletons. */
    private static long constant(LuaValue v, Map<Object, Boolean> seen) {
        if (v == null || seen.put(v, Boolean.TRUE) != null) return 0;
        return switch (v) {
            case LuaString s -> object(1, 3 * 4) + byteArray(s.m_bytes.length);
            case LuaDouble d -> object(0, 8);
            case LuaInteger i -> object(0, 4);
            default -> 0;
        };
    }
}
