package io.tide.script;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import java.util.function.Supplier;

/**
 * Confined to the thread running scripts (the engine's lock): the globals table scripts see ({@code _G}), which
 * must be a {@link Globals} for LuaJ's hooks, and which, once sealed, refuses every change as
 * {@link ReadOnlyTable} does.
 */
final class ReadOnlyGlobals extends Globals {

    private final Supplier<LuaError> positioned;
    private boolean sealed;
    /**
     * The table a read of a name this one lacks finds it in (the script globals), looked up directly: the metatable's
     * {@code __index} function does the same lookup and raises Redis's error for a name neither has, and a script's
     * every use of {@code redis}, {@code KEYS} or {@code ARGV} went through it (a metatable lookup and a function call).
     */
    private LuaTable readThrough;

    ReadOnlyGlobals(Supplier<LuaError> positioned) {
        this.positioned = positioned;
    }

    void seal() {
        sealed = true;
    }

    /** Reads of names this table lacks look in {@code table} first, then go to the metatable as before. */
    void readThrough(LuaTable table) {
        readThrough = table;
    }

    @Override
    public LuaValue get(LuaValue key) {
        LuaValue v = rawget(key);
        if (v.isnil() && readThrough != null) v = readThrough.rawget(key);
        return v.isnil() ? super.get(key) : v;
    }

    @Override
    public void set(int key, LuaValue value) {
        if (sealed) throw positioned.get();
        super.set(key, value);
    }

    @Override
    public void set(LuaValue key, LuaValue value) {
        if (sealed) throw positioned.get();
        super.set(key, value);
    }

    @Override
    public void rawset(int key, LuaValue value) {
        if (sealed) throw ReadOnlyTable.unpositioned();
        super.rawset(key, value);
    }

    @Override
    public void rawset(LuaValue key, LuaValue value) {
        if (sealed) throw ReadOnlyTable.unpositioned();
        super.rawset(key, value);
    }

    @Override
    public void hashset(LuaValue key, LuaValue value) {
        if (sealed) throw ReadOnlyTable.unpositioned();
        super.hashset(key, value);
    }

    @Override
    public void insert(int pos, LuaValue value) {
        if (sealed) throw ReadOnlyTable.unpositioned();
        super.insert(pos, value);
    }

    @Override
    public LuaValue remove(int pos) {
        if (sealed) { // Lua 5.1's table.remove writes nothing outside 1..#t (so not on a table with no array part)
            int n = length();
            int p = pos == 0 ? n : pos;
            if (p < 1 || p > n) return NONE;
            throw ReadOnlyTable.unpositioned();
        }
        return super.remove(pos);
    }

    @Override
    public void sort(LuaValue comparator) {
        if (sealed && length() > 1) throw ReadOnlyTable.unpositioned(); // fewer than two elements: Lua 5.1 writes nothing
        super.sort(comparator);
    }

    @Override
    public LuaValue setmetatable(LuaValue metatable) {
        if (sealed) throw ReadOnlyTable.unpositioned();
        return super.setmetatable(metatable);
    }
}
