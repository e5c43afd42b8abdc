package io.tide.script;

import io.tide.command.CommandException;
import io.tide.command.Errors;
import io.tide.shard.Coordinator;
import java.util.concurrent.TimeUnit;
import org.luaj.vm2.LuaError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the script running now for {@code busy-reply-threshold} (alias {@code lua-time-limit}), SCRIPT KILL,
 * FUNCTION KILL and shutdown. Thread-safe: the running script's thread calls {@link #begin}, {@link #check} and
 * {@link #end}; any shard thread may call {@link #kill} and {@link #busyError}; they meet on volatile fields.
 *
 * <p>Once a script has run longer than the threshold it becomes <em>busy</em>: if it runs on the coordinator
 * thread with the shards parked (or inline on its shard in a continuation, and then moves there first, see
 * {@link LuaEngine#moveToCoordinator}), the coordinator
 * {@linkplain Coordinator#lend() lends} it the data and releases the shards, which then answer other clients
 * -BUSY without touching data. When the script ends, {@link #end} has the coordinator park the shards again
 * before the script's caller goes on ({@link Coordinator#reclaim()}), so the data only ever has one owner.
 * A script that runs elsewhere (inline without a continuation: none today) is never marked busy: nothing could
 * answer meanwhile.
 */
public final class ScriptWatchdog {

    private static final Logger LOG = LoggerFactory.getLogger("io.tide.script");

    /** The script running now, or null. */
    private volatile Running current;

    private static final class Running {
        final ScriptRun run;
        final boolean function;
        final long startNanos = System.nanoTime();
        volatile boolean busy;
        volatile boolean killed;

        Running(ScriptRun run) {
            this.run = run;
            this.function = "@user_function".equals(run.source);
        }
    }

    /** On the script's thread, before it starts. */
    void begin(ScriptRun run) {
        current = new Running(run);
    }

    /**
     * On the script's thread, every few thousand Lua instructions: raises Redis's kill error once SCRIPT KILL,
     * FUNCTION KILL or shutdown asked for it (and from then on at every instruction, so {@code pcall} cannot
     * swallow it), and turns the script busy once it has run past the threshold.
     */
    void check(ScriptHook hook) {
        Running cur = current;
        if (cur == null) return;
        Coordinator co = cur.run.ctx.server().shards().coordinator();
        if (co != null && co.closed()) cur.killed = true;
        if (cur.killed) {
            hook.checkEveryInstruction();
            throw new LuaError(LuaEngine.errorTable(Errors.SCRIPT_KILLED));
        }
        if (cur.busy || co == null) return;
        boolean onCoordinator = co.isCoordinatorThread();
        if (!onCoordinator && !cur.run.ctx.suspendable()) return;
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cur.startNanos);
        if (elapsedMs < cur.run.ctx.server().config().getLong("busy-reply-threshold")) return;
        // Inline on its shard: the rest of the script moves to the coordinator thread first (decision 0022).
        if (!onCoordinator && !LuaEngine.moveToCoordinator(cur.run.ctx.server().tracking())) return;
        LOG.warn("Slow script detected: still in execution after {} milliseconds. You can try killing the script"
                + " using the {} command. Script name is: {}.", elapsedMs,
                cur.function ? "FUNCTION KILL" : "SCRIPT KILL", cur.run.name);
        cur.busy = true;
        co.lend();
    }

    /** On the script's thread, after its last data access: takes the data back from a busy script. */
    void end() {
        Running cur = current;
        if (cur != null && cur.busy) {
            Coordinator co = cur.run.ctx.server().shards().coordinator();
            if (co != null) co.reclaim();
        }
        current = null;
    }

    /** Whether a script has run past the threshold and is running still. */
    public boolean busy() {
        Running cur = current;
        return cur != null && cur.busy;
    }

    /** A busy script as FUNCTION STATS reports it: the function's name, the command that runs it, its run time. */
    public record BusyScript(boolean function, String name, byte[][] argv, long durationMs) {}

    /** The script running past the threshold now, or null (a script not yet busy keeps every shard parked). */
    public BusyScript busyScript() {
        Running cur = current;
        if (cur == null || !cur.busy) return null;
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cur.startNanos);
        return new BusyScript(cur.function, cur.run.name, cur.run.argv, ms);
    }

    /** The -BUSY line for the script running now (it names SCRIPT KILL or FUNCTION KILL). */
    public String busyError() {
        Running cur = current;
        return cur != null && cur.function ? Errors.BUSY_FUNCTION : Errors.BUSY_EVAL;
    }

    /**
     * SCRIPT KILL ({@code function} false) or FUNCTION KILL ({@code function} true), with Redis's scriptKill
     * rules: returns normally when the script will stop (the caller answers +OK), throws NOTBUSY, UNKILLABLE
     * (it has written), or -BUSY when the running script is of the other kind.
     */
    public void kill(boolean function) {
        Running cur = current;
        if (cur == null || !cur.busy) throw new CommandException(Errors.NOTBUSY);
        if (cur.run.wrote()) throw new CommandException(Errors.UNKILLABLE);
        if (!function && cur.function) throw new CommandException(Errors.BUSY_FUNCTION);
        if (function && !cur.function) throw new CommandException(Errors.BUSY_EVAL);
        cur.killed = true;
    }
}
