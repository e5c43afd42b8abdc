package io.tide.script;

import io.tide.command.Args;
import io.tide.command.CommandException;
import io.tide.command.CommandSpec;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.luaj.vm2.LuaFunction;

/**
 * The server's scripting state: the Lua engine (created on first use) and the script cache keyed by SHA1.
 * Thread-safe: the cache is concurrent and the engine serialises its own use.
 */
public final class Scripting {

    /** Shebang flags, as Redis names them. */
    public static final int NO_WRITES = 1;
    public static final int ALLOW_OOM = 1 << 1;
    public static final int ALLOW_STALE = 1 << 2;
    public static final int NO_CLUSTER = 1 << 3;
    public static final int ALLOW_CROSS_SLOT = 1 << 4;
    /** The script had a shebang at all (Redis's non-compat mode). */
    public static final int SHEBANG = 1 << 30;

    /** A cached script: its body, compiled function, shebang flags and the size of the compiled state. */
    public record Script(String sha, byte[] body, LuaFunction function, int flags, long compiledBytes) {}

    private final String version;
    private final Map<String, Script> cache = new ConcurrentHashMap<>();
    private volatile LuaEngine engine;
    private final ScriptWatchdog watchdog = new ScriptWatchdog();
    private final FunctionLibraries functions = new FunctionLibraries(this);

    public Scripting(String version) {
        this.version = version;
    }

    /** The engine, created on first use. */
    public LuaEngine engine() {
        LuaEngine e = engine;
        if (e == null) {
            synchronized (this) {
                if (engine == null) {
                    LuaEngine created = new LuaEngine(version);
                    created.watchdog = watchdog;
                    engine = created;
                }
                e = engine;
            }
        }
        return e;
    }

    /** The running script's busy state: what the dispatcher's -BUSY gate and SCRIPT/FUNCTION KILL consult. */
    public ScriptWatchdog watchdog() {
        return watchdog;
    }

    /**
     * SCRIPT KILL ({@code function} false) and FUNCTION KILL ({@code function} true): +OK when the busy script
     * will stop; throws NOTBUSY, UNKILLABLE or -BUSY (a script of the other kind) as Redis does.
     */
    public io.tide.protocol.Reply kill(boolean function) {
        watchdog.kill(function);
        return io.tide.protocol.Reply.OK;
    }

    /** The libraries FUNCTION LOAD registered. */
    public FunctionLibraries functions() {
        return functions;
    }

    public Script lookup(String sha) {
        return cache.get(sha);
    }

    /** EVALSHA's script: {@code sha} as the client sent it (any case), or null (not cached, not 40 characters). */
    public Script lookup(byte[] sha) {
        if (sha.length != 40) return null;
        return cache.get(new String(sha, java.nio.charset.StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT));
    }

    /**
     * Whether EVALSHA's script or FCALL's function ({@code nameOrSha}; the command's name in {@code command}), about to
     * start inline on a shard of a multi-shard server, reached another shard's key when it last ran inline there: it
     * then starts on the coordinator (decision 0022). EVAL is not looked up here (its SHA1 is computed as it runs:
     * {@link LuaEngine#ON_THE_COORDINATOR} answers for it). False for an unknown one: its command answers the error.
     */
    public boolean crossedBefore(String command, byte[] nameOrSha) {
        LuaEngine e = engine;
        if (e == null || !e.anyCrossed()) return false;
        if (command.startsWith("evalsha")) {
            Script s = lookup(nameOrSha);
            return s != null && e.crossed(s.function());
        }
        if (command.startsWith("fcall")) {
            LibraryFunction fn =
                    functions.function(new String(nameOrSha, java.nio.charset.StandardCharsets.UTF_8));
            return fn != null && e.crossed(fn.callback());
        }
        return false;
    }

    public boolean exists(String sha) {
        return cache.containsKey(sha);
    }

    public void flush() {
        cache.clear();
    }

    public int size() {
        return cache.size();
    }

    /** The compiled state of every cached script, in bytes (INFO's used_memory_vm_eval, {@link ScriptMemory}). */
    public long cachedCompiledBytes() {
        long n = 0;
        for (Script s : cache.values()) n += s.compiledBytes();
        return n;
    }

    /**
     * What the script cache holds besides compiled code (INFO's used_memory_scripts_eval): per script its body,
     * SHA1 string, record and ConcurrentHashMap node (the table's slots not counted), as {@link ScriptMemory} counts.
     */
    public long cachedOverheadBytes() {
        long n = 0;
        for (Script s : cache.values()) {
            n += ScriptMemory.byteArray(s.body().length) + ScriptMemory.string(s.sha().length())
                    + ScriptMemory.object(3, 4 + 8) + ScriptMemory.object(3, 4);
        }
        return n;
    }

    /** The cached script for {@code body}, compiling and caching it first if needed (EVAL, SCRIPT LOAD). */
    public Script load(byte[] body) {
        String sha = LuaEngine.sha1hex(body);
        Script s = cache.get(sha);
        if (s != null) return s;
        int flags = 0;
        byte[] code = body;
        if (body.length >= 2 && body[0] == '#' && body[1] == '!') {
            flags = shebangFlags(body);
            code = body.clone();
            code[0] = '-';
            code[1] = '-'; // keeps the line numbers while Lua skips the shebang
        }
        LuaFunction f = engine().compile(code, "@user_script");
        s = new Script(sha, body, f, flags, ScriptMemory.compiled(f));
        Script prev = cache.putIfAbsent(sha, s);
        return prev != null ? prev : s;
    }

    /**
     * The flags a script declares, for CLIENT PAUSE's gate (Redis's evalGetCommandFlags): EVAL's body or EVALSHA's
     * SHA ({@code bySha}). -1 when it declares none: no shebang, a malformed one (the command will fail when it
     * runs), a SHA not in the cache. Compiles nothing.
     */
    public int declaredFlags(byte[] bodyOrSha, boolean bySha) {
        int flags;
        if (bySha) {
            if (bodyOrSha.length != 40) return -1;
            Script s = cache.get(new String(bodyOrSha, StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT));
            if (s == null) return -1;
            flags = s.flags();
        } else {
            if (bodyOrSha.length < 2 || bodyOrSha[0] != '#' || bodyOrSha[1] != '!') return -1;
            try {
                flags = shebangFlags(bodyOrSha);
            } catch (CommandException e) {
                return -1;
            }
        }
        return (flags & SHEBANG) == 0 ? -1 : flags;
    }

    /** Redis's evalExtractShebangFlags, with its errors. */
    static int shebangFlags(byte[] body) {
        int nl = -1;
        for (int i = 0; i < body.length; i++) {
            if (body[i] == '\n') {
                nl = i;
                break;
            }
        }
        if (nl < 0) throw new CommandException("ERR Invalid script shebang");
        String line = new String(body, 0, nl, StandardCharsets.UTF_8);
        String[] parts = line.split(" ", -1);
        java.util.List<String> words = new java.util.ArrayList<>();
        for (String p : parts) if (!p.isEmpty()) words.add(p);
        if (words.isEmpty() || !words.get(0).equals("#!lua")) {
            throw new CommandException("ERR Unexpected engine in script shebang: " + (words.isEmpty() ? line : words.get(0)));
        }
        int flags = SHEBANG;
        for (int j = 1; j < words.size(); j++) {
            String w = words.get(j);
            if (!w.startsWith("flags=")) throw new CommandException("ERR Unknown lua shebang option: " + w);
            String list = w.substring(6);
            if (list.isEmpty()) continue;
            for (String flag : list.split(",", -1)) {
                switch (flag) {
                    case "no-writes" -> flags |= NO_WRITES;
                    case "allow-oom" -> flags |= ALLOW_OOM;
                    case "allow-stale" -> flags |= ALLOW_STALE;
                    case "no-cluster" -> flags |= NO_CLUSTER;
                    case "allow-cross-slot-keys" -> flags |= ALLOW_CROSS_SLOT;
                    default -> throw new CommandException("ERR Unexpected flag in script shebang: " + flag);
                }
            }
        }
        return flags;
    }

    /** Resolves a command (and subcommand) from the table of {@code run}'s server; null when unknown. */
    static CommandSpec resolve(ScriptRun run, byte[][] argv) {
        CommandSpec spec = run.ctx.server().table().lookup(argv[0]);
        if (spec == null) return null;
        if (spec.isContainer() && (argv.length >= 2 || spec.handler() == null)) {
            if (argv.length < 2) return spec;
            return spec.subcommands().get(Args.lower(argv[1]));
        }
        return spec;
    }
}
