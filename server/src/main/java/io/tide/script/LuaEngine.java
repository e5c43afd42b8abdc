package io.tide.script;

import io.tide.command.CommandException;
import io.tide.command.CommandSpec;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.script.lib.LuaBit;
import io.tide.script.lib.LuaCjson;
import io.tide.script.lib.LuaCmsgpack;
import io.tide.script.lib.LuaStruct;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaThread;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.CoroutineLib;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.ZeroArgFunction;
import org.luaj.vm2.lib.jse.JseMathLib;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Lua interpreter scripts and functions run in, set up as Redis's: the {@code redis} library, KEYS and
 * ARGV, cjson, cmsgpack, bit and struct, Lua 5.1 names LuaJ lacks, read-only globals, Redis's portable
 * {@code math.random}, and Redis's error texts. Thread-safe: every method holds the engine's lock, and only
 * one script runs at a time (scripts run with every shard parked, or on the only shard).
 */
public final class LuaEngine {

    private static final Logger LOG = LoggerFactory.getLogger("io.tide.script");
    private static final Pattern POSITION = Pattern.compile("^@?([^\\s:]+):(\\d+) ", Pattern.DOTALL);
    private static final Pattern COMPILE_TOKEN = Pattern.compile("(\\S+) (\\d{3}) \\(.*?\\)$");
    private static final String[] LUAJ_TOKENS = {"..", "...", "==", ">=", "<=", "~=", "::", "<eof>", "<number>",
        "<name>", "<string>"};

    /** The engine whose script runs on this thread, for errors raised by tables all engines share. */
    private static final ThreadLocal<LuaEngine> RUNNING = new ThreadLocal<>();
    /** The sealed string metatable every engine installs (guarded by LuaEngine.class). */
    private static ReadOnlyTable sharedStringMeta;

    /** Lua 5.1's LUAI_MAXCSTACK: the most values a C function may push, which bounds unpack. */
    private static final int LUA_MAX_C_STACK = 8000;

    private final Globals globals = new Globals();
    /** What scripts see as their globals: reads fall through to {@link #globals}, writes fail. */
    private final ReadOnlyGlobals env = new ReadOnlyGlobals(this::readOnlyError);
    private final ScriptHook hook = new ScriptHook();
    /**
     * What library code sees as its globals: during FUNCTION LOAD only {@link #loadApi}'s names, afterwards
     * (when its functions run) the script globals; writes fail either way.
     */
    private final ReadOnlyGlobals functionEnv = new ReadOnlyGlobals(this::readOnlyError);
    private LuaTable loadApi;
    private final Rand48 rand = new Rand48();
    private final String version;
    private ScriptRun run;
    /** Set by {@link Scripting}: busy-reply-threshold and SCRIPT KILL; null for a bare engine. */
    ScriptWatchdog watchdog;

    public LuaEngine(String version) {
        this.version = version;
        rand.seed(0);
        globals.load(new BaseLib());
        globals.load(new PackageLib());
        globals.load(new TableLib());
        globals.load(new StringLib());
        globals.load(new JseMathLib());
        globals.load(new CoroutineLib());
        LoadState.install(globals);
        LuaC.install(globals);
        lua51Compatibility();
        globals.set("redis", redisLib());
        globals.set("cjson", LuaCjson.create());
        globals.set("cmsgpack", LuaCmsgpack.create());
        globals.set("bit", LuaBit.create());
        globals.set("struct", LuaStruct.create());
        ReadOnlyTable meta = new ReadOnlyTable(this::readOnlyError);
        meta.rawset(LuaValue.INDEX, new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue k) {
                LuaValue v = globals.rawget(k);
                if (v.isnil()) {
                    throw positioned(Errors.SCRIPT_NONEXISTENT_GLOBAL + k.tojstring() + "'");
                }
                return v;
            }
        });
        meta.rawset(LuaValue.NEWINDEX, new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                throw readOnlyError();
            }
        });
        env.setmetatable(meta);
        env.readThrough(globals);
        ReadOnlyTable fmeta = new ReadOnlyTable(this::readOnlyError);
        fmeta.rawset(LuaValue.INDEX, new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue k) {
                LuaValue v = loadApi != null ? loadApi.rawget(k) : globals.rawget(k);
                if (v.isnil()) {
                    throw positioned(Errors.SCRIPT_NONEXISTENT_GLOBAL + k.tojstring() + "'");
                }
                return v;
            }
        });
        fmeta.rawset(LuaValue.NEWINDEX, meta.rawget(LuaValue.NEWINDEX));
        functionEnv.setmetatable(fmeta);
        functionEnv.debuglib = hook;
        env.debuglib = hook;
        // LuaJ appends a traceback to error messages when a debug hook is installed, unless the running
        // thread has an error function: this one leaves them as they are.
        env.running = new LuaThread(env);
        env.running.errorfunc = new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue msg) {
                return msg;
            }
        };
        globals.rawset("_G", env);
        functionEnv.running = env.running;
        sealLibraries();
        meta.seal();
        fmeta.seal();
        env.seal();
        functionEnv.seal();
    }

    private LuaError readOnlyError() {
        return positioned(Errors.SCRIPT_READONLY_TABLE);
    }

    /**
     * Redis's luaSetTableProtectionRecursively: every table reachable from the globals (redis, cjson, string, math,
     * ...) and the string metatable are replaced by sealed copies, so no script can change what later scripts see.
     */
    private void sealLibraries() {
        java.util.IdentityHashMap<LuaTable, ReadOnlyTable> copies = new java.util.IdentityHashMap<>();
        // The string metatable is one per JVM (LuaString.s_metatable): every engine shares one sealed copy of it
        // and of the string library it indexes (both immutable), whose errors name the engine running the script.
        synchronized (LuaEngine.class) {
            if (sharedStringMeta == null) {
                java.util.IdentityHashMap<LuaTable, ReadOnlyTable> shared = new java.util.IdentityHashMap<>();
                sharedStringMeta = sealed((LuaTable) LuaString.s_metatable, shared, LuaEngine::runningReadOnlyError);
            }
            LuaString.s_metatable = sharedStringMeta;
            copies.put((LuaTable) globals.rawget("string"), (ReadOnlyTable) sharedStringMeta.rawget(LuaValue.INDEX));
        }
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = globals.next(k);
            if ((k = n.arg1()).isnil()) break;
            LuaValue v = n.arg(2);
            if (v.istable() && v != env) globals.rawset(k, sealed((LuaTable) v, copies));
        }
    }

    private ReadOnlyTable sealed(LuaTable t, java.util.IdentityHashMap<LuaTable, ReadOnlyTable> copies) {
        return sealed(t, copies, this::readOnlyError);
    }

    /** The error an assignment to a shared sealed table raises: positioned by the engine running on this thread. */
    private static LuaError runningReadOnlyError() {
        LuaEngine e = RUNNING.get();
        return e != null ? e.readOnlyError() : ReadOnlyTable.unpositioned();
    }

    private ReadOnlyTable sealed(LuaTable t, java.util.IdentityHashMap<LuaTable, ReadOnlyTable> copies,
            java.util.function.Supplier<LuaError> positioned) {
        if (t instanceof ReadOnlyTable r) return r;
        ReadOnlyTable done = copies.get(t);
        if (done != null) return done;
        ReadOnlyTable copy = new ReadOnlyTable(positioned);
        copies.put(t, copy);
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            LuaValue v = n.arg(2);
            copy.rawset(k, v.istable() && v != env ? sealed((LuaTable) v, copies, positioned) : v);
        }
        LuaValue m = t.getmetatable();
        if (m != null && m.istable()) copy.setmetatable(sealed((LuaTable) m, copies, positioned));
        copy.seal();
        return copy;
    }

    /** An error raised by the runtime, with Lua's "source:line:" prefix (LuaJ's own prefix differs). */
    private LuaError positioned(String msg) {
        int line = hook.lastLine();
        String src = run == null ? "user_script" : run.source.substring(1);
        return new LuaError(LuaValue.valueOf(line < 0 ? msg : src + ":" + line + ": " + msg));
    }

    private void lua51Compatibility() {
        for (String name : new String[] {"dofile", "loadfile", "print", "rawlen", "package", "require", "module"}) globals.rawset(name, LuaValue.NIL);
        LuaTable table = (LuaTable) globals.rawget("table");
        LuaValue unpack = table.rawget("unpack");
        globals.rawset("unpack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) { // Lua 5.1 refuses more results than its C stack (8000 slots) holds
                LuaTable t = a.checktable(1);
                int i = a.optint(2, 1);
                int j = a.isnoneornil(3) ? t.length() : a.checkint(3);
                if (i <= j && (long) j - i + 1 + a.narg() > LUA_MAX_C_STACK) throw positioned(Errors.SCRIPT_UNPACK_TOO_MANY);
                return unpack.invoke(a);
            }
        });
        // Redis 7.0's pcall: an error table with an err string reaches the handler as that string.
        LuaValue basePcall = globals.rawget("pcall");
        globals.rawset("pcall", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                Varargs r = basePcall.invoke(a);
                if (r.arg1().toboolean()) return r;
                LuaValue e = r.arg(2);
                if (e.istable()) {
                    LuaValue err = e.rawget(ScriptConversions.ERR);
                    if (err.isstring()) return LuaValue.varargsOf(LuaValue.FALSE, err);
                }
                return r;
            }
        });
        table.rawset("getn", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue t) {
                return LuaValue.valueOf(t.checktable().length());
            }
        });
        table.rawset("maxn", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue t) {
                double max = 0;
                LuaValue k = LuaValue.NIL;
                LuaTable tt = t.checktable();
                while (true) {
                    Varargs n = tt.next(k);
                    if ((k = n.arg1()).isnil()) break;
                    if (k.type() == LuaValue.TNUMBER) max = Math.max(max, k.todouble());
                }
                return LuaValue.valueOf(max);
            }
        });
        table.rawset("foreach", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue f) {
                LuaValue k = LuaValue.NIL;
                while (true) {
                    Varargs n = t.checktable().next(k);
                    if ((k = n.arg1()).isnil()) return LuaValue.NIL;
                    LuaValue r = f.call(k, n.arg(2));
                    if (!r.isnil()) return r;
                }
            }
        });
        table.rawset("foreachi", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue f) {
                int n = t.checktable().length();
                for (int i = 1; i <= n; i++) {
                    LuaValue r = f.call(LuaValue.valueOf(i), t.get(i));
                    if (!r.isnil()) return r;
                }
                return LuaValue.NIL;
            }
        });
        table.rawset("setn", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                throw new LuaError("'setn' is obsolete");
            }
        });
        table.rawset("pack", LuaValue.NIL);
        table.rawset("unpack", LuaValue.NIL);
        LuaTable math = (LuaTable) globals.rawget("math");
        math.rawset("mod", math.rawget("fmod"));
        math.rawset("log10", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue x) {
                return LuaValue.valueOf(Math.log10(x.checkdouble()));
            }
        });
        math.rawset("random", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                double r = rand.nextDouble();
                switch (a.narg()) {
                    case 0:
                        return LuaValue.valueOf(r);
                    case 1: {
                        int u = a.checkint(1);
                        if (u < 1) throw new LuaError("bad argument #1 to 'random' (interval is empty)");
                        return LuaValue.valueOf(Math.floor(r * u) + 1);
                    }
                    case 2: {
                        int l = a.checkint(1);
                        int u = a.checkint(2);
                        if (l > u) throw new LuaError("bad argument #2 to 'random' (interval is empty)");
                        return LuaValue.valueOf(Math.floor(r * (u - l + 1)) + l);
                    }
                    default:
                        throw new LuaError("wrong number of arguments");
                }
            }
        });
        math.rawset("randomseed", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue s) {
                rand.seed(s.checkint());
                return LuaValue.NONE;
            }
        });
        LuaTable string = (LuaTable) globals.rawget("string");
        string.rawset("gfind", string.rawget("gmatch"));
        globals.rawset("tostring", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue v) {
                if (v.type() == LuaValue.TNUMBER) return LuaFormat.numberText(v);
                LuaValue h = v.metatag(LuaValue.TOSTRING);
                if (!h.isnil()) return h.call(v);
                return v.tostring().isstring() ? v.tostring() : LuaValue.valueOf(v.tojstring());
            }
        });
        globals.rawset("gcinfo", new ZeroArgFunction() {
            @Override
            public LuaValue call() {
                Runtime rt = Runtime.getRuntime();
                return LuaValue.valueOf((rt.totalMemory() - rt.freeMemory()) / 1024);
            }
        });
        LuaValue load = globals.rawget("load");
        LuaFunction loadstring = new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                LuaString code = a.checkstring(1);
                if (code.m_length > 0 && code.m_bytes[code.m_offset] == 27) {
                    return LuaValue.varargsOf(LuaValue.NIL, LuaValue.valueOf("bytecode loading is disabled"));
                }
                LuaValue chunk = a.isnoneornil(2) ? code : a.arg(2);
                return load.invoke(LuaValue.varargsOf(new LuaValue[] {code, chunk, LuaValue.valueOf("t"), env}));
            }
        };
        globals.rawset("loadstring", loadstring);
        globals.rawset("load", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) { // Lua 5.1's load(func [, chunkname]): pieces from a function
                if (!a.arg1().isfunction()) {
                    String got = a.narg() == 0 ? "no value" : a.arg1().typename();
                    throw positioned(Errors.SCRIPT_LOAD_NOT_FUNCTION + got + ")");
                }
                java.io.ByteArrayOutputStream code = new java.io.ByteArrayOutputStream();
                while (true) {
                    LuaValue piece = a.arg1().call();
                    if (piece.isnil()) break;
                    if (!piece.isstring()) throw positioned(Errors.SCRIPT_LOAD_READER_NOT_STRING);
                    LuaString p = piece.checkstring();
                    if (p.m_length == 0) break;
                    code.write(p.m_bytes, p.m_offset, p.m_length);
                }
                LuaValue name = a.isnoneornil(2) ? LuaValue.valueOf("=(load)") : a.arg(2);
                return loadstring.invoke(LuaValue.varargsOf(LuaString.valueOf(code.toByteArray()), name));
            }
        });
        globals.rawset("_VERSION", LuaValue.valueOf("Lua 5.1"));
        LuaValue tonumber = globals.rawget("tonumber");
        globals.rawset("tonumber", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                try {
                    return tonumber.invoke(a);
                } catch (IndexOutOfBoundsException e) { // LuaJ's parser runs off the end of "0x": Lua 5.1 says nil
                    return LuaValue.NIL;
                }
            }
        });
        // LuaJ's string.format ignores the widths and precisions of numbers and turns a fractional number into text
        // its own way ("3.0E-4"): Lua 5.1's is written here (script/LuaFormat). table.concat gets Lua 5.1's number
        // text below. (`..` cannot be reached from here.)
        string.rawset("format", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return LuaFormat.format(a, LuaEngine.this::positioned);
            }
        });
        LuaValue concat = table.rawget("concat");
        table.rawset("concat", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return concat.invoke(concatArgs(a));
            }
        });
    }

    /** A number is a LuaJ double (not a LuaInteger) exactly when its LuaJ text can differ from "%.14g". */
    private static boolean fractional(LuaValue v) {
        return v.type() == LuaValue.TNUMBER && !v.isinttype();
    }

    /** table.concat's arguments with a copy of the list where it holds fractional numbers; {@code a} otherwise. */
    private static Varargs concatArgs(Varargs a) {
        if (!a.arg1().istable()) return a;
        LuaTable t = (LuaTable) a.arg1();
        int n = t.length();
        int i = a.isnoneornil(3) ? 1 : a.arg(3).toint();
        int j = a.isnoneornil(4) ? n : a.arg(4).toint();
        boolean any = false;
        for (int k = i; k <= j && !any; k++) any = fractional(t.rawget(k));
        if (!any) return a;
        LuaTable copy = new LuaTable(Math.max(0, j - i + 1), 0);
        for (int k = i; k <= j; k++) {
            LuaValue v = t.rawget(k);
            copy.rawset(k - i + 1, fractional(v) ? LuaFormat.numberText(v) : v);
        }
        return LuaValue.varargsOf(new LuaValue[] {copy, a.isnoneornil(2) ? LuaValue.EMPTYSTRING : a.arg(2),
            LuaValue.valueOf(1), LuaValue.valueOf(j - i + 1)});
    }

    /**
     * An error a library raises (cjson, ...), positioned at the script's line as Lua 5.1's luaL_error positions it;
     * unpositioned when no script runs on this thread.
     */
    public static LuaError libraryError(String msg) {
        LuaEngine e = RUNNING.get();
        return e != null ? e.positioned(msg) : new LuaError(LuaValue.valueOf(msg));
    }

    // ---------------------------------------------------------------- the redis library

    private LuaTable redisLib() {
        LuaTable r = new LuaTable();
        r.rawset("call", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return redisCall(a, true);
            }
        });
        r.rawset("pcall", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return redisCall(a, false);
            }
        });
        r.rawset("error_reply", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() != 1 || a.type(1) != LuaValue.TSTRING) return errorTable("ERR wrong number or type of arguments");
                String msg = a.arg1().tojstring();
                return errorTable(errorBuffer(msg.startsWith("-") ? msg : "-" + msg)); // Redis adds the dash
            }
        });
        r.rawset("status_reply", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() != 1 || a.type(1) != LuaValue.TSTRING) return errorTable("ERR wrong number or type of arguments");
                LuaTable t = new LuaTable();
                t.rawset(ScriptConversions.OK, a.arg1());
                return t;
            }
        });
        r.rawset("sha1hex", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() != 1) throw raise("wrong number of arguments");
                return LuaValue.valueOf(sha1hex(ScriptConversions.bytes(a.checkstring(1))));
            }
        });
        r.rawset("log", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() < 2) throw raise("redis.log() requires two arguments or more.");
                if (a.type(1) != LuaValue.TNUMBER) throw raise("First argument must be a number (log level).");
                int level = a.toint(1);
                if (level < 0 || level > 3) throw raise("Invalid debug level.");
                StringBuilder sb = new StringBuilder();
                for (int i = 2; i <= a.narg(); i++) {
                    if (i > 2) sb.append(' ');
                    LuaValue v = a.arg(i);
                    sb.append(v.type() == LuaValue.TNUMBER ? LuaFormat.numberText(v).tojstring() : v.tojstring());
                }
                switch (level) {
                    case 0 -> LOG.debug("{}", sb);
                    case 1 -> LOG.debug("{}", sb);
                    case 2 -> LOG.info("{}", sb);
                    default -> LOG.warn("{}", sb);
                }
                return LuaValue.NONE;
            }
        });
        r.rawset("setresp", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() != 1) throw raise("redis.setresp() requires one argument.");
                int v = a.toint(1);
                if (v != 2 && v != 3) throw raise("RESP version must be 2 or 3.");
                run.resp = v;
                return LuaValue.NONE;
            }
        });
        r.rawset("set_repl", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() != 1) throw raise("redis.set_repl() requires two arguments.");
                int flags = a.toint(1);
                if ((flags & ~3) != 0) {
                    throw raise("Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
                }
                return LuaValue.NONE; // scripts are propagated by effects; there is no replication yet
            }
        });
        r.rawset("replicate_commands", new ZeroArgFunction() {
            @Override
            public LuaValue call() {
                return LuaValue.TRUE;
            }
        });
        r.rawset("breakpoint", new ZeroArgFunction() {
            @Override
            public LuaValue call() {
                return LuaValue.FALSE; // only the Lua debugger stops here; Tide has none
            }
        });
        r.rawset("debug", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return LuaValue.NONE;
            }
        });
        r.rawset("acl_check_cmd", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() < 1) throw raise("Please specify at least one argument for this redis lib call");
                byte[][] argv = argv(a);
                CommandSpec spec = Scripting.resolve(run, argv);
                if (spec == null) throw raise("Invalid command passed to redis.acl_check_cmd()");
                return LuaValue.TRUE; // no ACL users yet: the default user may run everything
            }
        });
        r.rawset("LOG_DEBUG", 0);
        r.rawset("LOG_VERBOSE", 1);
        r.rawset("LOG_NOTICE", 2);
        r.rawset("LOG_WARNING", 3);
        r.rawset("REPL_NONE", 0);
        r.rawset("REPL_AOF", 1);
        r.rawset("REPL_SLAVE", 2);
        r.rawset("REPL_REPLICA", 2);
        r.rawset("REPL_ALL", 3);
        r.rawset("REDIS_VERSION", version);
        r.rawset("REDIS_VERSION_NUM", versionNum(version));
        return r;
    }

    private static int versionNum(String v) {
        String[] p = v.split("[.-]");
        int n = 0;
        for (int i = 0; i < 3; i++) {
            int part = 0;
            try {
                part = i < p.length ? Integer.parseInt(p[i]) : 0;
            } catch (NumberFormatException e) {
                part = 0;
            }
            n = (n << 8) | (part & 0xff);
        }
        return n;
    }

    /** The error for a script's call that the calling client's ACL user may not make, or null. */
    private String aclRefusal(CommandSpec spec, byte[][] argv) {
        io.tide.acl.Acl.Denial d = run.ctx.server().aclCheck(run.ctx.client(), spec, argv,
                io.tide.acl.AclLog.Context.LUA);
        return d == io.tide.acl.Acl.Denial.NONE ? null : Errors.aclDenied(d, spec, true);
    }

    /** -READONLY on a read-only replica, -NOREPLICAS under min-replicas-to-write, else null. */
    private static String replicationRefusal(io.tide.command.ServerContext server) {
        if (server.replica().refusesWrites()) return Errors.READONLY;
        if (!server.replica().active() && server.replication().refusesWrites()) return Errors.NOREPLICAS;
        return null;
    }

    private Varargs redisCall(Varargs a, boolean raise) {
        String failure = null;
        int rule = RULE_NONE;
        CommandSpec spec = null;
        byte[][] argv = null;
        if (a.narg() == 0) {
            failure = "ERR Please specify at least one argument for this redis lib call";
        } else {
            argv = argv(a);
            if (argv == null) {
                failure = "ERR Lua redis lib command arguments must be strings or integers";
            } else {
                spec = Scripting.resolve(run, argv);
                if (spec == null) failure = "ERR Unknown Redis command called from script";
                else if (!spec.arityOk(argv.length)) failure = "ERR Wrong number of args calling Redis command from script";
                else if (spec.has(CommandSpec.NOSCRIPT)) {
                    failure = Errors.SCRIPT_COMMAND_NOT_ALLOWED;
                } else if (run.ctx.client() != null && (failure = aclRefusal(spec, argv)) != null) {
                    // Redis's scriptVerifyACL: the calling client's user must be allowed the command, keys, channels.
                } else if ((rule = scriptRule(spec.name())) == RULE_XREAD && blocks(argv)) {
                    failure = "ERR " + text(argv[0]) + Errors.SCRIPT_XREAD_BLOCK;
                }
                else if (spec.has(CommandSpec.DENYOOM) && run.denyOom) {
                    failure = Errors.OOM; // memory was over maxmemory when the script started (Redis's scriptCall)
                }
                else if (spec.has(CommandSpec.WRITE) && run.ctx.client() != null
                        && (failure = replicationRefusal(run.ctx.server())) != null) {
                    // Redis's scriptVerifyWriteCommandAllow: a read-only replica, or too few good replicas.
                }
                else if ((spec.has(CommandSpec.WRITE) || spec.has(CommandSpec.MAY_REPLICATE)) && run.readOnly) {
                    // As Redis: may-replicate commands (PUBLISH, PFCOUNT) too, so a read-only script never waits out
                    // or slips past a CLIENT PAUSE WRITE.
                    failure = "ERR Write commands are not allowed from read-only scripts.";
                }
            }
        }
        if (failure != null) return failed(failure, raise);
        // Inline on its shard of a multi-shard server, a call that reaches another shard's key moves the rest of the
        // script to the coordinator, which parks that shard too (decision 0022, amended 2026-12-07).
        if (run.ctx != null && run.ctx.reachesOtherShards(spec, argv)) {
            if (running != null) remember(running);
            if (!moveToCoordinator(run.ctx.server().tracking())) {
                return failed(Errors.SCRIPT_OTHER_SHARD_IN_COROUTINE, raise);
            }
        }
        if (spec.has(CommandSpec.WRITE)) run.wrote = true;
        Reply reply = rule == RULE_SELECT ? select(spec, argv) : run.ctx.callFromScript(spec, argv, run.resp);
        if (reply instanceof Reply.Error e) return failed(e.text(), raise);
        return ScriptConversions.toLua(reply, run.resp);
    }

    /** A call's error {@code text}: raised for redis.call ({@code raise}), returned as an error table for pcall. */
    private static LuaTable failed(String text, boolean raise) {
        LuaTable t = errorTable(text);
        if (raise) throw new LuaError(t);
        return t;
    }

    /**
     * What a script's call of {@code name} needs beyond the table's flags (the {@code noscript} flag refuses BLPOP,
     * BZPOPMIN and the other commands that always block; BLMPOP and BZMPOP are allowed and answer at once, as on
     * timeout): XREAD's BLOCK check, SELECT's own database.
     */
    private static int scriptRule(String name) {
        return switch (name) {
            case "xread", "xreadgroup" -> RULE_XREAD;
            case "select" -> RULE_SELECT;
            default -> RULE_NONE;
        };
    }

    private static final int RULE_NONE = 0;
    private static final int RULE_XREAD = 2;
    private static final int RULE_SELECT = 3;

    /** Whether an XREAD/XREADGROUP argv has a BLOCK option (followed by a value) before STREAMS, as Redis parses it. */
    private static boolean blocks(byte[][] argv) {
        for (int i = 1; i < argv.length; i++) {
            byte[] a = argv[i];
            if (is(a, "streams")) return false;
            if (is(a, "block") && i + 1 < argv.length) return true;
            if (is(a, "group")) i += 2;
            else if (is(a, "count")) i++;
        }
        return false;
    }

    private static boolean is(byte[] a, String lower) {
        if (a.length != lower.length()) return false;
        for (int i = 0; i < a.length; i++) {
            if (Character.toLowerCase((char) (a[i] & 0xff)) != lower.charAt(i)) return false;
        }
        return true;
    }

    /**
     * SELECT from a script: changes the database of the script's later calls, never the caller's connection
     * (Redis runs scripts on a fake client with a database of its own).
     */
    private Reply select(CommandSpec spec, byte[][] argv) {
        io.tide.command.ClientSession client = run.ctx.client();
        if (client == null) return run.ctx.callFromScript(spec, argv, run.resp);
        int callerDb = client.db();
        Reply reply = run.ctx.callFromScript(spec, argv, run.resp);
        int scriptDb = client.db();
        client.selectDb(callerDb);
        run.ctx.selectDb(scriptDb);
        return reply;
    }

    /** The arguments of a redis.call as argv, or null when one is neither a string nor a number. */
    private static byte[][] argv(Varargs a) {
        byte[][] argv = new byte[a.narg()][];
        for (int i = 0; i < argv.length; i++) {
            LuaValue v = a.arg(i + 1);
            if (v.type() == LuaValue.TSTRING) argv[i] = ScriptConversions.bytes(v.checkstring());
            else if (v.type() == LuaValue.TNUMBER) {
                argv[i] = NumberFormat.g(v.todouble(), 17).getBytes(StandardCharsets.US_ASCII); // "%.17g", as Redis 7.0
            } else return null;
        }
        return argv;
    }

    /** Redis's luaPushErrorBuff rule for "-CODE msg" texts. */
    private static String errorBuffer(String msg) {
        int sp = msg.indexOf(' ');
        if (sp < 0) return "ERR " + msg.substring(1); // error_reply('') is "ERR " with its space, as Redis sends it
        return (msg.substring(1, sp) + " " + msg.substring(sp + 1)).strip();
    }

    static LuaTable errorTable(String text) {
        LuaTable t = new LuaTable();
        t.rawset(ScriptConversions.ERR, LuaValue.valueOf(text));
        return t;
    }

    private static LuaError raise(String msg) {
        return new LuaError(errorTable("ERR " + msg));
    }

    // ---------------------------------------------------------------- compiling and running

    /** SHA1 of {@code body}, lower-case hex, as Redis names scripts. */
    public static String sha1hex(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Compiles a chunk against the script globals. Throws Redis's "Error compiling script" line on a syntax
     * error; {@code what} is Redis's word for the thing ("new function").
     */
    public synchronized LuaFunction compile(byte[] body, String chunkName) {
        try {
            return globals.load(new ByteArrayInputStream(body), chunkName, "t", env).checkfunction();
        } catch (LuaError e) {
            throw new CommandException("ERR Error compiling script (new function): " + compileMessage(e.getMessage()));
        }
    }

    static String compileMessage(String m) {
        if (m == null) return "";
        Matcher t = COMPILE_TOKEN.matcher(m);
        if (t.find()) {
            int tok = Integer.parseInt(t.group(2));
            String name = tok >= 279 && tok - 279 < LUAJ_TOKENS.length ? LUAJ_TOKENS[tok - 279] : t.group(2);
            return m.substring(0, t.start()) + t.group(1) + " near '" + name + "'";
        }
        return m;
    }

    /** Runs a compiled script or function body for {@code r}, giving the reply Redis would send. */
    public Reply execute(LuaValue fn, ScriptRun r, Varargs callArgs) {
        if (r.ctx != null && r.ctx.inlineOnOneOfShards() && crossed(fn)) {
            if (r.ctx.takeEnginePermit()) inUse.release();
            return ON_THE_COORDINATOR;
        }
        if (r.ctx == null || !r.ctx.takeEnginePermit()) acquire(); // else the dispatcher took it (tryHold)
        try {
            return executeAlone(fn, r, callArgs);
        } finally {
            inUse.release();
        }
    }

    /**
     * What {@link #execute} answers, without running anything, for a script or function about to run inline on a shard
     * of a multi-shard server that reached another shard's key when it last ran there: the dispatcher runs it on the
     * coordinator instead, from the start, as a script that declares keys of several shards (moving in the middle
     * costs more than that). Compared by identity; never sent.
     */
    public static final Reply ON_THE_COORDINATOR = Reply.error("ERR internal: runs on the coordinator");

    /**
     * The scripts and functions that moved to the coordinator because they reached another shard's key (see
     * {@link #ON_THE_COORDINATOR}); weak, so that a flushed or replaced one goes.
     */
    private final java.util.Map<LuaValue, Boolean> crossing =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** Whether {@code fn} reached another shard's key from inline (see {@link #ON_THE_COORDINATOR}). */
    boolean crossed(LuaValue fn) {
        return anyCrossed && crossing.containsKey(fn);
    }

    /**
     * Whether any script ever did ({@link #crossing} may since have let it go): until then a script's start looks
     * nothing up.
     */
    boolean anyCrossed() {
        return anyCrossed;
    }

    private volatile boolean anyCrossed;

    /** The script or function running now ({@link #executeAlone}). */
    private LuaValue running;

    /**
     * One script or library load at a time. A semaphore, not a monitor: a script that turns busy inline on its shard
     * ends on the coordinator thread ({@link #moveToCoordinator}), so the thread that releases is not always the one
     * that acquired. Fair, for {@link #tryHold}.
     */
    private final java.util.concurrent.Semaphore inUse = new java.util.concurrent.Semaphore(1, true);

    /** Waits for the engine; on the coordinator thread, running meanwhile what an inline script handed it. */
    private void acquire() {
        io.tide.shard.Coordinator co = io.tide.shard.Coordinator.onThisThread();
        if (co != null) co.acquire(inUse);
        else inUse.acquireUninterruptibly();
    }

    /**
     * For a script about to run inline on a shard of a multi-shard server: takes the engine if it is free, without
     * waiting (a shard thread that waited for it could be the one a coordinated script needs parked). The run that
     * gets it is marked ({@code CommandContext.holdEnginePermit}) and {@link #execute} uses it; false when taken.
     */
    public boolean tryHold() {
        try {
            // Fair: not while the coordinator waits for it, which would otherwise wait behind one inline script after
            // another with its own shards parked.
            return inUse.tryAcquire(0, java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Gives back a permit {@link #tryHold} took for a run that ended before the engine ran (a NOSCRIPT, say). */
    public void release() {
        inUse.release();
    }

    /**
     * From a script running inline on its shard, inside the dispatcher's continuation: yields it, so that its rest
     * runs on the coordinator thread (decision 0022), and carries this thread's per-thread script state over (the
     * running engine, the client-tracking batch of the command). False when it cannot yield here (it then goes on
     * on this thread).
     */
    static boolean moveToCoordinator(io.tide.pubsub.Tracking tracking) {
        LuaEngine e = RUNNING.get();
        Object batch = tracking.detachBatch();
        RUNNING.remove();
        boolean moved = io.tide.util.Continuations.yieldNow();
        RUNNING.set(e);
        tracking.attachBatch(batch);
        return moved;
    }

    /** Remembers that {@code fn} reached another shard's key from inline (see {@link #crossing}). */
    private void remember(LuaValue fn) {
        crossing.put(fn, Boolean.TRUE);
        anyCrossed = true;
    }

    private Reply executeAlone(LuaValue fn, ScriptRun r, Varargs callArgs) {
        run = r;
        running = fn;
        ScriptWatchdog dog = watchdog;
        hook.reset(dog == null ? () -> { } : () -> dog.check(hook));
        boolean function = FUNCTION_SOURCE.equals(r.source);
        if (function) {
            callArgs = LuaValue.varargsOf(stringArray(r.keys), stringArray(r.args)); // functions get (keys, args)
            clearKeysAndArgv(); // a function sees no KEYS or ARGV global, as in Redis
        } else {
            globals.rawset(KEYS_GLOBAL, stringArray(r.keys));
            globals.rawset(ARGV_GLOBAL, stringArray(r.args));
            keysAndArgvSet = true;
        }
        int callerDb = r.ctx != null ? r.ctx.dbIndex() : 0;
        if (dog != null) dog.begin(r);
        RUNNING.set(this);
        try {
            LuaValue result = fn.invoke(callArgs).arg1();
            return ScriptConversions.toReply(result, r.resp,
                    r.ctx != null && r.ctx.client() != null ? r.ctx.client().protocol() : 2);
        } catch (LuaError e) {
            return Reply.error(errorLine(e, r));
        } catch (StackOverflowError e) {
            return Reply.error("ERR Error running script: stack overflow script: " + r.name);
        } finally {
            if (dog != null) dog.end(); // after the script's last data access; before the caller's
            RUNNING.remove();
            if (r.ctx != null) r.ctx.selectDb(callerDb); // a SELECT in the script ends with it
            run = null;
            running = null;
            // Small tables stay until the next script replaces them: a global set to nil loses its hash slot, and
            // adding it back allocates one, on every call. Large ones go at once, not to hold their memory.
            if (r.keys.length + r.args.length > KEEP_ARGUMENTS) clearKeysAndArgv();
        }
    }

    /** At most this many keys and arguments of the last script stay referenced by KEYS and ARGV after it. */
    private static final int KEEP_ARGUMENTS = 64;
    /** Whether the KEYS and ARGV globals hold the tables of an earlier script. */
    private boolean keysAndArgvSet;

    private void clearKeysAndArgv() {
        if (!keysAndArgvSet) return;
        globals.rawset(KEYS_GLOBAL, LuaValue.NIL);
        globals.rawset(ARGV_GLOBAL, LuaValue.NIL);
        keysAndArgvSet = false;
    }

    /** The globals every script call sets, made once: naming them by a Java string converts and hashes it each call. */
    private static final LuaString KEYS_GLOBAL = LuaString.valueOf("KEYS");
    private static final LuaString ARGV_GLOBAL = LuaString.valueOf("ARGV");

    private static LuaTable stringArray(byte[][] items) {
        LuaTable t = new LuaTable(items.length, 0);
        for (int i = 0; i < items.length; i++) t.rawset(i + 1, ScriptConversions.str(items[i]));
        return t;
    }

    /** Redis's error line for a script that raised: the message, then "script: name, on @source:line.". */
    private String errorLine(LuaError e, ScriptRun r) {
        String full = e.getMessage();
        String line = null;
        if (full != null) {
            Matcher m = POSITION.matcher(full);
            if (m.find()) line = m.group(2);
        }
        if (line == null && hook.lastLine() >= 0) line = Integer.toString(hook.lastLine());
        String msg = errorMessage(e, line == null ? null : r.source.substring(1) + ":" + line + ": ");
        if (line == null) return msg;
        return msg + " script: " + r.name + ", on " + r.source + ":" + line + ".";
    }

    /**
     * The message of an error a script raised, as Redis words it ("ERR ..."), without the script suffix. LuaJ's own
     * runtime errors get Lua 5.1's words ({@link LuaMessages}), and {@code where} ("user_script:1: ") when LuaJ
     * gave them no position, as Lua 5.1 always does; null when unknown.
     */
    private static String errorMessage(LuaError e, String where) {
        LuaValue obj = e.getMessageObject();
        String msg;
        if (obj != null && obj.istable()) {
            LuaValue err = obj.rawget(ScriptConversions.ERR);
            msg = err.isstring() ? ScriptConversions.errorText(err.tojstring()) : "ERR unknown error";
        } else if (obj == null || obj.isnil() || "error in error handling".equals(obj.tojstring())) {
            // error(nil); LuaJ reports a nil message through its error-handler path with this text.
            msg = "ERR nil";
        } else {
            String text = obj.type() == LuaValue.TNUMBER ? LuaFormat.numberText(obj).tojstring() : obj.tojstring();
            Matcher m = POSITION.matcher(text);
            String at = null;
            if (m.find()) {
                at = m.group(1) + ":" + m.group(2) + ": ";
                text = text.substring(m.end());
            }
            String lua51 = LuaMessages.lua51(text);
            if (lua51 != null) {
                text = lua51;
                if (at == null) at = where;
            }
            msg = "ERR " + (at == null ? "" : at) + text.replace('\r', ' ').replace('\n', ' ');
        }
        return msg;
    }

    // ---------------------------------------------------------------- libraries (FUNCTION LOAD)

    /** The chunk name of library code, which error lines name. */
    public static final String FUNCTION_SOURCE = "@user_function";
    /** Redis's limit on running a library's code at load time. */
    private static final long LOAD_TIMEOUT_MS = 500;

    /**
     * Compiles library code (without its shebang line) and runs it in the load sandbox, where the only global
     * is a read-only {@code redis} table holding {@code registerFunction} as {@code register_function},
     * {@code log}, the log levels and the version. The functions it registers keep running in the script
     * globals afterwards. Throws Redis's "Error compiling function" / "Error registering functions" lines.
     */
    public void loadLibrary(byte[] code, LuaFunction registerFunction) {
        acquire();
        try {
            loadLibraryAlone(code, registerFunction);
        } finally {
            inUse.release();
        }
    }

    private void loadLibraryAlone(byte[] code, LuaFunction registerFunction) {
        LuaFunction chunk;
        try {
            chunk = globals.load(new ByteArrayInputStream(code), FUNCTION_SOURCE, "t", functionEnv).checkfunction();
        } catch (LuaError e) {
            throw new CommandException("ERR Error compiling function: " + compileMessage(e.getMessage()));
        }
        LuaTable redis = (LuaTable) globals.rawget("redis");
        LuaTable api = new LuaTable();
        api.rawset("register_function", registerFunction);
        for (String name : new String[] {"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING",
            "REDIS_VERSION", "REDIS_VERSION_NUM"}) {
            api.rawset(name, redis.rawget(name));
        }
        LuaTable apiMeta = new LuaTable();
        apiMeta.rawset(LuaValue.INDEX, new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue k) {
                LuaValue v = api.rawget(k);
                if (v.isnil()) {
                    throw positioned(Errors.SCRIPT_NONEXISTENT_GLOBAL + k.tojstring() + "'");
                }
                return v;
            }
        });
        apiMeta.rawset(LuaValue.NEWINDEX, ((LuaTable) env.getmetatable()).rawget(LuaValue.NEWINDEX));
        LuaTable readOnlyRedis = new LuaTable();
        readOnlyRedis.setmetatable(apiMeta);
        LuaTable top = new LuaTable();
        top.rawset("redis", readOnlyRedis);
        long start = System.nanoTime();
        run = new ScriptRun(null, new byte[0][], new byte[0][], new byte[0][], true, "", FUNCTION_SOURCE);
        loadApi = top;
        hook.reset(() -> {
            if ((System.nanoTime() - start) / 1_000_000 > LOAD_TIMEOUT_MS) {
                throw new LuaError(errorTable("ERR FUNCTION LOAD timeout"));
            }
        });
        RUNNING.set(this);
        try {
            chunk.call();
        } catch (LuaError e) {
            throw new CommandException("ERR Error registering functions: " + errorMessage(e, null));
        } catch (StackOverflowError e) {
            throw new CommandException("ERR Error registering functions: ERR stack overflow");
        } finally {
            RUNNING.remove();
            loadApi = null;
            run = null;
        }
    }

    /** An argument list for a function call. */
    public static Varargs args(LuaValue... values) {
        return LuaValue.varargsOf(values);
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
