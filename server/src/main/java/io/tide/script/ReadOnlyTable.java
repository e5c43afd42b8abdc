package io.tide.script;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import java.util.function.Supplier;

/**
 * Confined to the thread running scripts (the engine's lock): a Lua table that, once {@link #seal sealed}, refuses
 * every change as Redis 7.0's read-only tables do (lua_enablereadonlytable): an assignment raises
 * {@link io.tide.command.Errors#SCRIPT_READONLY_TABLE} with the script's position, {@code rawset},
 * {@code setmetatable}, {@code table.insert}/{@code remove}/{@code sort} raise it without one (Redis raises them
 * from C). Reads are LuaTable's own, so the hot path pays nothing.
 */
final class ReadOnlyTable extends LuaTable {

    private final Supplier<LuaError> positioned;
    private boolean sealed;

    /** {@code positioned} makes the error an assignment raises ("user_script:LINE: Attempt to ..."). */
    ReadOnlyTable(Supplier<LuaError> positioned) {
        this.positioned = positioned;
    }

    void seal() {
        sealed = true;
    }

    static LuaError unpositioned() {
        return new LuaError(LuaValue.valueOf(io.tide.command.Errors.SCRIPT_READONLY_TABLE));
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
        if (sealed) throw unpositioned();
        super.rawset(key, value);
    }

    @Override
    public void rawset(LuaValue key, LuaValue value) {
        if (sealed) throw unpositioned();
        super.rawset(key, value);
    }

    @Override
    public void hashset(LuaValue key, LuaValue value) {
        if (sealed) throw unpositioned();
        super.hashset(key, value);
    }

    @Override
    public void insert(int pos, LuaValue value) {
        if (sealed) throw unpositioned();
        super.insert(pos, value);
    }

    @Override
    public LuaValue remove(int pos) {
        if (sealed) { // Lua 5.1's table.remove writes nothing outside 1..#t (so not on a table with no array part)
            int n = length();
            int p = pos == 0 ? n : pos;
            if (p < 1 || p > n) return NONE;
            throw unpositioned();
        }
        return super.remove(pos);
    }

    @Override
    public void sort(LuaValue comparator) {
        if (sealed && length() > 1) throw unpositioned(); // fewer than two elements: Lua 5.1 writes nothing
        super.sort(comparator);
    }

    @Override
    public LuaValue setmetatable(LuaValue metatable) {
        if (sealed) throw unpositioned();
        return super.setmetatable(metatable);
    }
}
