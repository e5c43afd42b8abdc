package io.tide.script;

import org.luaj.vm2.LuaFunction;

/**
 * A function a library registered with {@code redis.register_function}: its name, description (null when none),
 * {@link Scripting} flags and Lua callback. Thread-safe (immutable).
 */
public record LibraryFunction(String name, String description, int flags, LuaFunction callback) {

    /** Redis's flag names, in the order FUNCTION LIST gives them. */
    static final String[] FLAG_NAMES = {"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"};
    static final int[] FLAG_BITS = {Scripting.NO_WRITES, Scripting.ALLOW_OOM, Scripting.ALLOW_STALE,
        Scripting.NO_CLUSTER, Scripting.ALLOW_CROSS_SLOT};

    /** The names of this function's flags, in Redis's order. */
    public java.util.List<String> flagNames() {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (int i = 0; i < FLAG_NAMES.length; i++) if ((flags & FLAG_BITS[i]) != 0) out.add(FLAG_NAMES[i]);
        return out;
    }
}
