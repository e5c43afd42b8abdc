package io.tide.script;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
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

    ReadOnlyGlobals(Supplier<LuaError> positioned) {
        this.positioned = positioned;
    }

    void seal() {
        sealed = true;
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
