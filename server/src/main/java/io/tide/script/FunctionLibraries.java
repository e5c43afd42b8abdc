package io.tide.script;

import io.tide.command.CommandException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The loaded function libraries (Redis's {@code functionsLibCtx}): libraries by name (case-sensitive) and their
 * functions by name (case-insensitive, unique across libraries), with FUNCTION LOAD's checks and errors.
 * Thread-safe: every method holds this object's lock; loading also holds the engine's (always in that order).
 */
public final class FunctionLibraries {

    /** The only engine. */
    public static final String ENGINE = "LUA";
    private static final String NAME_RULE =
            "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";

    private final Scripting scripting;
    private Map<String, Library> libraries = new LinkedHashMap<>();
    private Map<String, LibraryFunction> functions = new LinkedHashMap<>();

    FunctionLibraries(Scripting scripting) {
        this.scripting = scripting;
    }

    /** The function called {@code name} (any case), or null. */
    public synchronized LibraryFunction function(String name) {
        return functions.get(name.toLowerCase(Locale.ROOT));
    }

    /** The flags of the function called {@code name} (CLIENT PAUSE's gate: functions always declare theirs), or -1. */
    public int declaredFlags(byte[] name) {
        LibraryFunction f = function(new String(name, StandardCharsets.UTF_8));
        return f == null ? -1 : f.flags();
    }

    /** The libraries, in load order. */
    public synchronized List<Library> libraries() {
        return new ArrayList<>(libraries.values());
    }

    public synchronized int functionCount() {
        return functions.size();
    }

    /** The compiled state of every library's functions, in bytes (INFO's used_memory_vm_functions). */
    public synchronized long compiledBytes() {
        long n = 0;
        for (Library lib : libraries.values()) n += lib.compiledBytes();
        return n;
    }

    /**
     * What the libraries hold besides compiled code (INFO's used_memory_functions), estimated as
     * {@link ScriptMemory} does: per library its code, name, record and both map entries (LinkedHashMap entries,
     * the tables' slots not counted); per function its name (and the lower-case key), description and record.
     */
    public synchronized long overheadBytes() {
        long entry = ScriptMemory.object(5, 4); // LinkedHashMap.Entry: key, value, next, before, after; hash
        long n = 0;
        for (Library lib : libraries.values()) {
            n += ScriptMemory.byteArray(lib.code().length) + ScriptMemory.string(lib.name().length())
                    + ScriptMemory.object(4, 8) + ScriptMemory.object(1, 4) + entry;
            for (LibraryFunction f : lib.functions()) {
                n += 2 * ScriptMemory.string(f.name().length()) + ScriptMemory.object(3, 4) + entry
                        + (f.description() == null ? 0 : ScriptMemory.string(f.description().length()));
            }
        }
        return n;
    }

    public synchronized void flush() {
        libraries = new LinkedHashMap<>();
        functions = new LinkedHashMap<>();
    }

    /** FUNCTION DELETE: false when there is no such library. */
    public synchronized boolean delete(String name) {
        Library lib = libraries.remove(name);
        if (lib == null) return false;
        for (LibraryFunction f : lib.functions()) functions.remove(f.name().toLowerCase(Locale.ROOT));
        return true;
    }

    /**
     * Compiles {@code code} into a library without registering it: the metadata checks, the library name
     * rule, the engine, then the load sandbox run, in Redis's order (FUNCTION RESTORE's per-library step).
     */
    Library create(byte[] code) {
        Metadata md = metadata(code);
        if (!validName(md.name)) throw new CommandException("ERR " + NAME_RULE);
        if (!md.engine.equalsIgnoreCase(ENGINE)) throw new CommandException("ERR Engine '" + md.engine + "' not found");
        return compile(md, code);
    }

    private Library compile(Metadata md, byte[] code) {
        Registrar registrar = new Registrar();
        try {
            scripting.engine().loadLibrary(Arrays.copyOfRange(code, md.bodyStart, code.length), registrar);
        } finally {
            registrar.open = false;
        }
        if (registrar.registered.isEmpty()) throw new CommandException("ERR No functions registered");
        List<LibraryFunction> fns = new ArrayList<>(registrar.registered.values());
        List<LuaValue> callbacks = new ArrayList<>();
        for (LibraryFunction f : fns) callbacks.add(f.callback());
        return new Library(md.name, ENGINE, code, fns, ScriptMemory.compiled(callbacks));
    }

    /**
     * FUNCTION LOAD [REPLACE]: compiles and registers {@code code}, returning the library's name. As in Redis,
     * "already exists" is checked before the code runs and function name clashes after.
     */
    public synchronized String load(byte[] code, boolean replace) {
        Metadata md = metadata(code);
        if (!validName(md.name)) throw new CommandException("ERR " + NAME_RULE);
        if (!md.engine.equalsIgnoreCase(ENGINE)) throw new CommandException("ERR Engine '" + md.engine + "' not found");
        Library old = libraries.get(md.name);
        if (old != null && !replace) throw new CommandException("ERR Library '" + md.name + "' already exists");
        Library lib = compile(md, code);
        for (LibraryFunction f : lib.functions()) {
            LibraryFunction clash = functions.get(f.name().toLowerCase(Locale.ROOT));
            if (clash != null && (old == null || !old.functions().contains(clash))) {
                throw new CommandException("ERR Function " + f.name() + " already exists");
            }
        }
        if (old != null) delete(old.name());
        link(libraries, functions, lib);
        return lib.name();
    }

    /** How FUNCTION RESTORE treats libraries that exist already. */
    public enum RestorePolicy { FLUSH, APPEND, REPLACE }

    /**
     * FUNCTION RESTORE: compiles every library of the payload first (any error leaves the current libraries
     * as they were), then swaps (FLUSH) or joins them in.
     */
    public synchronized void restore(List<byte[]> codes, RestorePolicy policy) {
        Map<String, Library> newLibs = new LinkedHashMap<>();
        Map<String, LibraryFunction> newFns = new LinkedHashMap<>();
        for (byte[] code : codes) {
            Library lib = create(code);
            if (newLibs.containsKey(lib.name())) throw new CommandException("ERR Library '" + lib.name() + "' already exists");
            for (LibraryFunction f : lib.functions()) {
                if (newFns.containsKey(f.name().toLowerCase(Locale.ROOT))) {
                    throw new CommandException("ERR Function " + f.name() + " already exists");
                }
            }
            link(newLibs, newFns, lib);
        }
        if (policy == RestorePolicy.FLUSH) {
            libraries = newLibs;
            functions = newFns;
            return;
        }
        Map<String, Library> libs = new LinkedHashMap<>(libraries);
        Map<String, LibraryFunction> fns = new LinkedHashMap<>(functions);
        for (Library lib : newLibs.values()) {
            Library old = libs.get(lib.name());
            if (old == null) continue;
            if (policy != RestorePolicy.REPLACE) throw new CommandException("ERR Library " + lib.name() + " already exists");
            libs.remove(old.name());
            for (LibraryFunction f : old.functions()) fns.remove(f.name().toLowerCase(Locale.ROOT));
        }
        for (LibraryFunction f : newFns.values()) {
            if (fns.containsKey(f.name().toLowerCase(Locale.ROOT))) {
                throw new CommandException("ERR Function " + f.name() + " already exists");
            }
        }
        for (Library lib : newLibs.values()) link(libs, fns, lib);
        libraries = libs;
        functions = fns;
    }

    private static void link(Map<String, Library> libs, Map<String, LibraryFunction> fns, Library lib) {
        libs.put(lib.name(), lib);
        for (LibraryFunction f : lib.functions()) fns.putIfAbsent(f.name().toLowerCase(Locale.ROOT), f);
    }

    static boolean validName(String name) {
        if (name.isEmpty()) return false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
        }
        return true;
    }

    /** A library's shebang line: engine, name, and where the code after it starts (at its newline). */
    private record Metadata(String engine, String name, int bodyStart) {}

    /** Redis's functionExtractLibMetaData, with its errors. */
    private static Metadata metadata(byte[] code) {
        if (code.length < 2 || code[0] != '#' || code[1] != '!') throw new CommandException("ERR Missing library metadata");
        int nl = -1;
        for (int i = 0; i < code.length; i++) {
            if (code[i] == '\n') {
                nl = i;
                break;
            }
            if (code[i] == 0) break; // Redis reads the code as a C string
        }
        if (nl < 0) throw new CommandException("ERR Invalid library metadata");
        String line = new String(code, 0, nl, StandardCharsets.UTF_8);
        List<String> parts = new ArrayList<>();
        for (String p : line.split("[ \t\r\n\f\u000b]+")) if (!p.isEmpty()) parts.add(p);
        if (parts.isEmpty()) throw new CommandException("ERR Invalid library metadata");
        String engine = parts.get(0).substring(Math.min(2, parts.get(0).length()));
        String name = null;
        for (int i = 1; i < parts.size(); i++) {
            String part = parts.get(i);
            if (part.length() >= 5 && part.regionMatches(true, 0, "name=", 0, 5)) {
                if (name != null) {
                    throw new CommandException("ERR Invalid metadata value, name argument was given multiple times");
                }
                name = part.substring(5);
                continue;
            }
            throw new CommandException("ERR Invalid metadata value given: " + part);
        }
        if (name == null) throw new CommandException("ERR Library name was not given");
        return new Metadata(engine, name, nl);
    }

    /** {@code redis.register_function} for one FUNCTION LOAD: checks its arguments as Redis does. */
    private static final class Registrar extends VarArgFunction {

        final Map<String, LibraryFunction> registered = new LinkedHashMap<>();
        boolean open = true;

        @Override
        public Varargs invoke(Varargs a) {
            if (!open) throw fail("redis.register_function can only be called on FUNCTION LOAD command");
            int n = a.narg();
            if (n < 1 || n > 2) throw fail("wrong number of arguments to redis.register_function");
            String name;
            String desc = null;
            LuaValue callback = null;
            int flags = 0;
            if (n == 1) {
                if (!a.arg1().istable()) {
                    throw fail("calling redis.register_function with a single argument is only applicable to Lua table "
                            + "(representing named arguments).");
                }
                LuaTable t = (LuaTable) a.arg1();
                name = null;
                LuaValue k = LuaValue.NIL;
                while (true) {
                    Varargs next = t.next(k);
                    k = next.arg1();
                    if (k.isnil()) break;
                    LuaValue v = next.arg(2);
                    String key = text(k);
                    if (key == null) throw fail("named argument key given to redis.register_function is not a string");
                    switch (key.toLowerCase(Locale.ROOT)) {
                        case "function_name" -> {
                            name = text(v);
                            if (name == null) throw fail("function_name argument given to redis.register_function must be a string");
                        }
                        case "description" -> {
                            desc = text(v);
                            if (desc == null) throw fail("description argument given to redis.register_function must be a string");
                        }
                        case "callback" -> {
                            if (!v.isfunction()) throw fail("callback argument given to redis.register_function must be a function");
                            callback = v;
                        }
                        case "flags" -> {
                            if (!v.istable()) {
                                throw fail("flags argument to redis.register_function must be a table representing function flags");
                            }
                            flags = flags(v);
                        }
                        default -> throw fail("unknown argument given to redis.register_function");
                    }
                }
                if (name == null) throw fail("redis.register_function must get a function name argument");
                if (callback == null) throw fail("redis.register_function must get a callback argument");
            } else {
                name = text(a.arg(1));
                if (name == null) throw fail("first argument to redis.register_function must be a string");
                if (!a.arg(2).isfunction()) throw fail("second argument to redis.register_function must be a function");
                callback = a.arg(2);
            }
            if (!validName(name)) throw fail(NAME_RULE);
            if (registered.containsKey(name)) throw fail("Function already exists in the library");
            registered.put(name, new LibraryFunction(name, desc, flags, callback.checkfunction()));
            return LuaValue.NONE;
        }

        private static int flags(LuaValue table) {
            int flags = 0;
            for (int j = 1; ; j++) {
                LuaValue v = table.get(j);
                if (v.isnil()) return flags;
                String s = text(v);
                int bit = -1;
                for (int i = 0; s != null && i < LibraryFunction.FLAG_NAMES.length; i++) {
                    if (LibraryFunction.FLAG_NAMES[i].equalsIgnoreCase(s)) bit = LibraryFunction.FLAG_BITS[i];
                }
                if (bit < 0) throw fail("unknown flag given");
                flags |= bit;
            }
        }

        /** Lua's tostring for strings and numbers (lua_isstring), else null. */
        private static String text(LuaValue v) {
            if (v.type() == LuaValue.TSTRING) return new String(ScriptConversions.bytes(v.checkstring()), StandardCharsets.UTF_8);
            if (v.type() == LuaValue.TNUMBER) return NumberFormat.g14(v.todouble());
            return null;
        }

        private static LuaError fail(String msg) {
            return new LuaError(LuaEngine.errorTable("ERR " + msg));
        }
    }
}
