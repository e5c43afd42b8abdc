package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.command.KeySpec;
import io.tide.protocol.Reply;
import io.tide.script.LuaEngine;
import io.tide.script.ScriptRun;
import io.tide.script.Scripting;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import org.luaj.vm2.LuaValue;

/**
 * Lua scripting (Redis's {@code eval.c}): EVAL, EVALSHA, their read-only variants and SCRIPT. Thread-safe
 * (stateless). A script may touch any key, declared or not, so its key finder answers "all keys": with
 * several shards it runs on the coordinator with its declared keys' shards parked, and the dispatcher's context parks
 * more before a call reaches another shard (every shard when it declares no key), which makes it atomic everywhere.
 */
public final class ScriptCommands {

    /** Scripts reach any key: they run on the coordinator, parking shards as they need them (decision 0016). */
    static final CommandSpec.KeyFinder ANY_KEY = argv -> CommandSpec.ALL_KEYS;

    /**
     * Redis's evalGetKeys/functionGetKeys (genericGetKeys): {@code numkeys} read with atoi, then that many keys,
     * none when it is below 1 or more than the arguments left. COMMAND GETKEYS uses it where the key spec does not
     * apply (a count such as "01").
     */
    static final CommandSpec.GetKeys NUMKEYS_GETKEYS = argv -> {
        long n = argv.length > 2 ? Args.atoi(argv[2]) : 0;
        java.util.List<CommandSpec.KeyRef> out = new java.util.ArrayList<>();
        if (n < 1 || n > argv.length - 3) return out;
        for (int i = 3; i < 3 + n; i++) out.add(new CommandSpec.KeyRef(argv[i], java.util.List.of()));
        return out;
    };

    /**
     * The key specs of EVAL and FCALL and of their read-only variants, as Redis 7.0 declares them (EVALSHA's and
     * EVALSHA_RO's carry no notes).
     */
    static final KeySpec RW_NUMKEYS = KeySpec.keynum(
            "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE", "RW access update",
            2, 0, 1, 1);
    static final KeySpec RO_NUMKEYS = KeySpec.keynum(
            "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS", "RO access", 2, 0, 1, 1);
    static final KeySpec RW_NUMKEYS_SHA = KeySpec.keynum(null, "RW access update", 2, 0, 1, 1);
    static final KeySpec RO_NUMKEYS_SHA = KeySpec.keynum(null, "RO access", 2, 0, 1, 1);

    private ScriptCommands() {}

    public static void register(CommandTable t) {
        t.group("scripting");
        t.add("eval", -3, "noscript skip_monitor may_replicate no_mandatory_keys stale", 0, 0, 0, "@scripting",
                "2.6.0", "Executes a server-side Lua script", Handler.EVAL).keysBy(ANY_KEY)
                .keySpec(RW_NUMKEYS, NUMKEYS_GETKEYS);
        t.add("evalsha", -3, "noscript skip_monitor may_replicate no_mandatory_keys stale", 0, 0, 0, "@scripting",
                "2.6.0", "Executes a server-side Lua script by SHA1 digest", Handler.EVALSHA).keysBy(ANY_KEY)
                .keySpec(RW_NUMKEYS_SHA, NUMKEYS_GETKEYS);
        t.add("eval_ro", -3, "readonly noscript skip_monitor no_mandatory_keys stale", 0, 0, 0, "@scripting",
                "7.0.0", "Executes a read-only server-side Lua script", Handler.EVAL_RO).keysBy(ANY_KEY)
                .keySpec(RO_NUMKEYS, NUMKEYS_GETKEYS);
        t.add("evalsha_ro", -3, "readonly noscript skip_monitor no_mandatory_keys stale", 0, 0, 0, "@scripting",
                "7.0.0", "Executes a read-only server-side Lua script by SHA1 digest", Handler.EVALSHA_RO)
                .keysBy(ANY_KEY).keySpec(RO_NUMKEYS_SHA, NUMKEYS_GETKEYS);
        CommandSpec script = t.container("script", -2, "", "", "2.6.0", "A container for Lua scripts management commands");
        script.sub("load", 3, "noscript stale", 0, 0, 0, "@scripting", "2.6.0",
                "Loads a server-side Lua script to the script cache", Handler.SCRIPT_LOAD);
        script.sub("exists", -3, "noscript", 0, 0, 0, "@scripting", "2.6.0",
                "Determines whether server-side Lua scripts exist in the script cache", Handler.SCRIPT_EXISTS);
        script.sub("flush", -2, "noscript may_replicate", 0, 0, 0, "@scripting", "2.6.0",
                "Removes all server-side Lua scripts from the script cache", Handler.SCRIPT_FLUSH);
        script.sub("kill", 2, "noscript allow_busy", 0, 0, 0, "@scripting", "2.6.0",
                "Terminates a server-side Lua script during execution", Handler.SCRIPT_KILL);
        script.sub("help", 2, "loading stale", 0, 0, 0, "@scripting", "5.0.0",
                "Returns helpful text about the different subcommands", Handler.SCRIPT_HELP);
    }

    static Scripting scripting(CommandContext ctx) {
        return ctx.server().scripting();
    }

    static Reply eval(CommandContext ctx, byte[][] argv) {
        return evalGeneric(ctx, argv, false, false);
    }

    private static Reply evalRo(CommandContext ctx, byte[][] argv) {
        return evalGeneric(ctx, argv, false, true);
    }

    private static Reply evalsha(CommandContext ctx, byte[][] argv) {
        return evalGeneric(ctx, argv, true, false);
    }

    private static Reply evalshaRo(CommandContext ctx, byte[][] argv) {
        return evalGeneric(ctx, argv, true, true);
    }

    private static Reply evalGeneric(CommandContext ctx, byte[][] argv, boolean bySha, boolean readOnlyCommand) {
        int numkeys = numkeys(argv, 2);
        Scripting scripting = scripting(ctx);
        Scripting.Script s;
        if (bySha) {
            s = scripting.lookup(argv[1]);
            if (s == null) throw Errors.error(Errors.NOSCRIPT);
        } else {
            s = scripting.load(argv[1]);
        }
        boolean noWrites = (s.flags() & Scripting.NO_WRITES) != 0;
        if (readOnlyCommand && (s.flags() & Scripting.SHEBANG) != 0 && !noWrites) {
            throw Errors.error(Errors.SCRIPT_RO_WITH_WRITE_FLAG);
        }
        byte[][] keys = Arrays.copyOfRange(argv, 3, 3 + numkeys);
        byte[][] args = Arrays.copyOfRange(argv, 3 + numkeys, argv.length);
        boolean oom = ctx.server().memory().oom() && (s.flags() & Scripting.ALLOW_OOM) == 0;
        if (oom && (s.flags() & Scripting.SHEBANG) != 0 && !noWrites) throw Errors.error(Errors.OOM);
        if ((s.flags() & Scripting.SHEBANG) != 0 && !noWrites) refuseWritesUpFront(ctx);
        ctx.disallowBlocking();
        ScriptRun run = new ScriptRun(ctx, argv, keys, args, readOnlyCommand || noWrites, s.sha(), "@user_script");
        run.denyOom = oom;
        return scripting.engine().execute(s.function(), run, LuaValue.NONE);
    }

    /** Redis's numkeys checks for EVAL and FCALL: {@code argv[index]} against the arguments that follow. */
    static int numkeys(byte[][] argv, int index) {
        long n = Args.parseLong(argv[index]);
        if (n > argv.length - index - 1) throw Errors.error(Errors.SCRIPT_NUMKEYS_TOO_MANY);
        if (n < 0) throw Errors.error(Errors.SCRIPT_NUMKEYS_NEGATIVE);
        return (int) n;
    }

    private static Reply scriptLoad(CommandContext ctx, byte[][] argv) {
        return Reply.bulk(scripting(ctx).load(argv[2]).sha());
    }

    private static Reply scriptExists(CommandContext ctx, byte[][] argv) {
        Reply[] out = new Reply[argv.length - 2];
        for (int i = 2; i < argv.length; i++) {
            String sha = new String(argv[i], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
            out[i - 2] = scripting(ctx).exists(sha) ? Reply.ONE : Reply.ZERO;
        }
        return Reply.array(out);
    }

    private static Reply scriptFlush(CommandContext ctx, byte[][] argv) {
        if (argv.length > 3 || (argv.length == 3 && !Args.is(argv[2], "sync") && !Args.is(argv[2], "async"))) {
            throw Errors.error(Errors.SCRIPT_FLUSH_OPTION);
        }
        scripting(ctx).flush();
        return Reply.OK;
    }

    /** Runs on the caller's home shard while the busy script holds the data; it only sets the kill flag. */
    private static Reply scriptKill(CommandContext ctx, byte[][] argv) {
        return scripting(ctx).kill(false);
    }

    private static Reply scriptHelp(CommandContext ctx, byte[][] argv) {
        return Help.reply("SCRIPT",
                "DEBUG (YES|SYNC|NO)",
                "    Set the debug mode for subsequent scripts executed.",
                "EXISTS <sha1> [<sha1> ...]",
                "    Return information about the existence of the scripts in the script cache.",
                "FLUSH [ASYNC|SYNC]",
                "    Flush the Lua scripts cache. Very dangerous on replicas.",
                "    When called without the optional mode argument, the behavior is determined by the",
                "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
                "    * ASYNC: Asynchronously flush the scripts cache.",
                "    * SYNC: Synchronously flush the scripts cache.",
                "KILL",
                "    Kill the currently executing Lua script.",
                "LOAD <script>",
                "    Load a script into the scripts cache without executing it.");
    }

    /**
     * Redis's scriptPrepareForRun for a script or function whose declared flags allow writes: refused before it runs,
     * with the command's own error (no "script:" suffix), on a read-only replica, while writes fail to persist, and
     * under min-replicas-to-write without enough good replicas. A script without a shebang is refused only by the
     * write it calls. Not for the primary's stream or the AOF (no client).
     */
    static void refuseWritesUpFront(CommandContext ctx) {
        if (ctx.client() == null) return;
        io.tide.command.ServerContext server = ctx.server();
        if (server.replica().refusesWrites()) throw Errors.error(Errors.READONLY);
        if (server.persistence().writesRefused()) throw Errors.error(Errors.MISCONF);
        String aof = server.appendOnly().refusal();
        if (aof != null) throw Errors.error(Errors.AOF_WRITE_ERROR_PREFIX + aof);
        if (!server.replica().active() && server.replication().refusesWrites()) throw Errors.error(Errors.NOREPLICAS);
    }

    static LuaEngine engine(CommandContext ctx) {
        return scripting(ctx).engine();
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        EVAL,
        EVALSHA,
        EVAL_RO,
        EVALSHA_RO,
        SCRIPT_LOAD,
        SCRIPT_EXISTS,
        SCRIPT_FLUSH,
        SCRIPT_KILL,
        SCRIPT_HELP;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case EVAL -> eval(ctx, argv);
                case EVALSHA -> evalsha(ctx, argv);
                case EVAL_RO -> evalRo(ctx, argv);
                case EVALSHA_RO -> evalshaRo(ctx, argv);
                case SCRIPT_LOAD -> scriptLoad(ctx, argv);
                case SCRIPT_EXISTS -> scriptExists(ctx, argv);
                case SCRIPT_FLUSH -> scriptFlush(ctx, argv);
                case SCRIPT_KILL -> scriptKill(ctx, argv);
                case SCRIPT_HELP -> scriptHelp(ctx, argv);
            };
        }
    }
}
