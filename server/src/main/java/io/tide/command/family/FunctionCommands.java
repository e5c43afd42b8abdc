package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandException;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.script.FunctionLibraries;
import io.tide.script.FunctionPayload;
import io.tide.script.Library;
import io.tide.script.LibraryFunction;
import io.tide.script.LuaEngine;
import io.tide.script.ScriptRun;
import io.tide.script.ScriptWatchdog;
import io.tide.script.Scripting;
import io.tide.util.Glob;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Redis functions ({@code functions.c}): FUNCTION LOAD|DELETE|LIST|FLUSH|DUMP|RESTORE|STATS|KILL|HELP, FCALL
 * and FCALL_RO. Thread-safe (stateless): the libraries live in {@link FunctionLibraries}. Like EVAL, FCALL's key
 * finder answers "all keys", so a function runs on the coordinator with the shards it uses parked (its declared
 * keys' first, more on demand) and is atomic across shards.
 */
public final class FunctionCommands {

    private FunctionCommands() {}

    public static void register(CommandTable t) {
        t.group("scripting");
        t.add("fcall", -3, "noscript skip_monitor may_replicate no_mandatory_keys stale", 0, 0, 0, "@scripting",
                "7.0.0", "Invokes a function", Handler.FCALL).keysBy(ScriptCommands.ANY_KEY)
                .keySpec(ScriptCommands.RW_NUMKEYS, ScriptCommands.NUMKEYS_GETKEYS);
        t.add("fcall_ro", -3, "readonly noscript skip_monitor no_mandatory_keys stale", 0, 0, 0, "@scripting",
                "7.0.0", "Invokes a read-only function", Handler.FCALL_RO).keysBy(ScriptCommands.ANY_KEY)
                .keySpec(ScriptCommands.RO_NUMKEYS, ScriptCommands.NUMKEYS_GETKEYS);
        CommandSpec f = t.container("function", -2, "", "", "7.0.0", "A container for function commands");
        f.sub("delete", 3, "noscript write allshards", 0, 0, 0, "@write @slow @scripting", "7.0.0",
                "Deletes a library and its functions", Handler.DELETE);
        f.sub("dump", 2, "noscript", 0, 0, 0, "@slow @scripting", "7.0.0",
                "Dumps all libraries into a serialized binary payload", Handler.DUMP);
        f.sub("flush", -2, "noscript write allshards", 0, 0, 0, "@write @slow @scripting", "7.0.0",
                "Deletes all libraries and functions", Handler.FLUSH);
        f.sub("help", 2, "loading stale", 0, 0, 0, "@slow @scripting", "7.0.0",
                "Returns helpful text about the different subcommands", Handler.HELP);
        f.sub("kill", 2, "noscript allow_busy", 0, 0, 0, "@slow @scripting", "7.0.0",
                "Terminates a function during execution", Handler.KILL);
        f.sub("list", -2, "noscript", 0, 0, 0, "@slow @scripting", "7.0.0",
                "Returns information about all libraries", Handler.LIST);
        f.sub("load", -3, "noscript write denyoom allshards", 0, 0, 0, "@write @slow @scripting", "7.0.0",
                "Creates a library", Handler.LOAD);
        f.sub("restore", -3, "noscript write denyoom allshards", 0, 0, 0, "@write @slow @scripting", "7.0.0",
                "Restores all libraries from a payload", Handler.RESTORE);
        f.sub("stats", 2, "noscript allow_busy", 0, 0, 0, "@slow @scripting", "7.0.0",
                "Returns information about a function during execution", Handler.STATS);
    }

    private static FunctionLibraries libraries(CommandContext ctx) {
        return ctx.server().scripting().functions();
    }

    private static Reply fcall(CommandContext ctx, byte[][] argv) {
        return fcallGeneric(ctx, argv, false);
    }

    private static Reply fcallRo(CommandContext ctx, byte[][] argv) {
        return fcallGeneric(ctx, argv, true);
    }

    private static Reply fcallGeneric(CommandContext ctx, byte[][] argv, boolean readOnlyCommand) {
        LibraryFunction fn = libraries(ctx).function(new String(argv[1], StandardCharsets.UTF_8));
        if (fn == null) throw Errors.error(Errors.FUNCTION_NOT_FOUND);
        long numkeys;
        try {
            numkeys = Args.parseLong(argv[2]);
        } catch (CommandException e) {
            throw Errors.error(Errors.FUNCTION_BAD_NUMKEYS);
        }
        if (numkeys > argv.length - 3) throw Errors.error(Errors.SCRIPT_NUMKEYS_TOO_MANY);
        if (numkeys < 0) throw Errors.error(Errors.SCRIPT_NUMKEYS_NEGATIVE);
        boolean noWrites = (fn.flags() & Scripting.NO_WRITES) != 0;
        if (readOnlyCommand && !noWrites) throw Errors.error(Errors.SCRIPT_RO_WITH_WRITE_FLAG);
        int n = (int) numkeys;
        byte[][] keys = Arrays.copyOfRange(argv, 3, 3 + n);
        byte[][] args = Arrays.copyOfRange(argv, 3 + n, argv.length);
        boolean oom = ctx.server().memory().oom() && (fn.flags() & Scripting.ALLOW_OOM) == 0;
        if (oom && !noWrites) throw Errors.error(Errors.OOM);
        if (!noWrites) ScriptCommands.refuseWritesUpFront(ctx);
        ctx.disallowBlocking();
        ScriptRun run = new ScriptRun(ctx, argv, keys, args, readOnlyCommand || noWrites, fn.name(), LuaEngine.FUNCTION_SOURCE);
        run.denyOom = oom;
        return ctx.server().scripting().engine().execute(fn.callback(), run, LuaEngine.args());
    }

    private static Reply load(CommandContext ctx, byte[][] argv) {
        boolean replace = false;
        int pos = 2;
        while (pos < argv.length - 1) {
            byte[] opt = argv[pos++];
            if (Args.is(opt, "replace")) {
                replace = true;
                continue;
            }
            throw Errors.error(Errors.FUNCTION_UNKNOWN_OPTION + Errors.printable(opt));
        }
        Reply r = Reply.bulk(libraries(ctx).load(argv[pos], replace));
        ctx.serverStateChanged();
        return r;
    }

    private static Reply delete(CommandContext ctx, byte[][] argv) {
        if (!libraries(ctx).delete(new String(argv[2], StandardCharsets.UTF_8))) {
            throw Errors.error(Errors.FUNCTION_LIBRARY_NOT_FOUND);
        }
        ctx.serverStateChanged();
        return Reply.OK;
    }

    private static Reply flush(CommandContext ctx, byte[][] argv) {
        if (argv.length > 3) throw subcommandSyntax(argv);
        if (argv.length == 3 && !Args.is(argv[2], "sync") && !Args.is(argv[2], "async")) {
            throw Errors.error(Errors.FUNCTION_FLUSH_OPTION);
        }
        libraries(ctx).flush();
        ctx.serverStateChanged();
        return Reply.OK;
    }

    private static CommandException subcommandSyntax(byte[][] argv) {
        return Errors.error("ERR unknown subcommand or wrong number of arguments for '" + Errors.printable(argv[1])
                + "'. Try FUNCTION HELP.");
    }

    private static Reply list(CommandContext ctx, byte[][] argv) {
        boolean withCode = false;
        byte[] pattern = null;
        for (int i = 2; i < argv.length; i++) {
            if (!withCode && Args.is(argv[i], "withcode")) {
                withCode = true;
                continue;
            }
            if (pattern == null && Args.is(argv[i], "libraryname")) {
                if (i >= argv.length - 1) throw Errors.error(Errors.FUNCTION_LIST_NO_NAME);
                pattern = argv[++i];
                continue;
            }
            throw Errors.error(Errors.FUNCTION_LIST_UNKNOWN_ARG + Errors.printable(argv[i]));
        }
        List<Reply> out = new ArrayList<>();
        for (Library lib : libraries(ctx).libraries()) {
            byte[] name = lib.name().getBytes(StandardCharsets.UTF_8);
            if (pattern != null && !Glob.matches(pattern, name, true)) continue;
            List<Reply> fns = new ArrayList<>();
            for (LibraryFunction fn : lib.functions()) {
                List<String> flagNames = fn.flagNames();
                Reply[] flags = new Reply[flagNames.size()];
                for (int i = 0; i < flags.length; i++) flags[i] = Reply.simple(flagNames.get(i));
                fns.add(Reply.map(Reply.bulk("name"), Reply.bulk(fn.name()),
                        Reply.bulk("description"), Reply.bulk(fn.description()),
                        Reply.bulk("flags"), new Reply.SetReply(flags)));
            }
            List<Reply> entry = new ArrayList<>(List.of(Reply.bulk("library_name"), Reply.bulk(name),
                    Reply.bulk("engine"), Reply.bulk(lib.engine()), Reply.bulk("functions"), Reply.array(fns)));
            if (withCode) {
                entry.add(Reply.bulk("library_code"));
                entry.add(Reply.bulk(lib.code()));
            }
            out.add(Reply.map(entry));
        }
        return Reply.array(out);
    }

    private static Reply dump(CommandContext ctx, byte[][] argv) {
        List<byte[]> codes = new ArrayList<>();
        for (Library lib : libraries(ctx).libraries()) codes.add(lib.code());
        return Reply.bulk(FunctionPayload.dump(codes));
    }

    private static Reply restore(CommandContext ctx, byte[][] argv) {
        if (argv.length > 4) throw subcommandSyntax(argv);
        FunctionLibraries.RestorePolicy policy = FunctionLibraries.RestorePolicy.APPEND;
        if (argv.length == 4) {
            if (Args.is(argv[3], "append")) policy = FunctionLibraries.RestorePolicy.APPEND;
            else if (Args.is(argv[3], "replace")) policy = FunctionLibraries.RestorePolicy.REPLACE;
            else if (Args.is(argv[3], "flush")) policy = FunctionLibraries.RestorePolicy.FLUSH;
            else throw Errors.error(Errors.FUNCTION_RESTORE_POLICY);
        }
        libraries(ctx).restore(FunctionPayload.parse(argv[2]), policy);
        ctx.serverStateChanged();
        return Reply.OK;
    }

    /**
     * Redis's functionStatsCommand: the busy function (its name, the FCALL that runs it and how long it has run) or
     * null, and per engine the libraries and functions loaded; while an EVAL script is busy, Redis's -BUSY for
     * scripts. Only a busy script can be running while another client's command runs (until then it keeps every
     * shard parked).
     */
    private static Reply stats(CommandContext ctx, byte[][] argv) {
        ScriptWatchdog.BusyScript busy = ctx.server().scripting().watchdog().busyScript();
        if (busy != null && !busy.function()) throw Errors.error(Errors.BUSY_EVAL);
        Reply running = Reply.NULL;
        if (busy != null) {
            running = Reply.map(Reply.bulk("name"), Reply.bulk(busy.name()),
                    Reply.bulk("command"), Reply.bulkArray(List.of(busy.argv())),
                    Reply.bulk("duration_ms"), Reply.integer(busy.durationMs()));
        }
        FunctionLibraries libs = libraries(ctx);
        Reply lua = Reply.map(Reply.bulk("libraries_count"), Reply.integer(libs.libraries().size()),
                Reply.bulk("functions_count"), Reply.integer(libs.functionCount()));
        return Reply.map(Reply.bulk("running_script"), running,
                Reply.bulk("engines"), Reply.map(Reply.bulk(FunctionLibraries.ENGINE), lua));
    }

    /** Runs while a busy function holds the data (see ScriptWatchdog); Redis's scriptKill rules. */
    private static Reply kill(CommandContext ctx, byte[][] argv) {
        return ctx.server().scripting().kill(true);
    }

    private static Reply help(CommandContext ctx, byte[][] argv) {
        return Help.reply("FUNCTION",
                "LOAD [REPLACE] <FUNCTION CODE>",
                "    Create a new library with the given library name and code.",
                "DELETE <LIBRARY NAME>",
                "    Delete the given library.",
                "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
                "    Return general information on all the libraries:",
                "    * Library name",
                "    * The engine used to run the Library",
                "    * Library description",
                "    * Functions list",
                "    * Library code (if WITHCODE is given)",
                "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
                "STATS",
                "    Return information about the current function running:",
                "    * Function name",
                "    * Command used to run the function",
                "    * Duration in MS that the function is running",
                "    If no function is running, return nil",
                "    In addition, returns a list of available engines.",
                "KILL",
                "    Kill the current running function.",
                "FLUSH [ASYNC|SYNC]",
                "    Delete all the libraries.",
                "    When called without the optional mode argument, the behavior is determined by the",
                "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
                "    * ASYNC: Asynchronously flush the libraries.",
                "    * SYNC: Synchronously flush the libraries.",
                "DUMP",
                "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
                "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
                "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
                "    control how to handle existing libraries (default APPEND):",
                "    * FLUSH: delete all existing libraries.",
                "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
                "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
                "      libraries with the new libraries (notice that even on this option there is a chance of failure",
                "      in case of functions name collision with another library).");
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        FCALL,
        FCALL_RO,
        DELETE,
        DUMP,
        FLUSH,
        HELP,
        KILL,
        LIST,
        LOAD,
        RESTORE,
        STATS;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case FCALL -> fcall(ctx, argv);
                case FCALL_RO -> fcallRo(ctx, argv);
                case DELETE -> delete(ctx, argv);
                case DUMP -> dump(ctx, argv);
                case FLUSH -> flush(ctx, argv);
                case HELP -> help(ctx, argv);
                case KILL -> kill(ctx, argv);
                case LIST -> list(ctx, argv);
                case LOAD -> load(ctx, argv);
                case RESTORE -> restore(ctx, argv);
                case STATS -> stats(ctx, argv);
            };
        }
    }
}
