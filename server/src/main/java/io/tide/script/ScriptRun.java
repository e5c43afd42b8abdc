package io.tide.script;

import io.tide.command.CommandContext;

/**
 * One execution of a script or function: its context, arguments and the state {@code redis.*} calls change.
 * Confined to the thread running the script.
 */
public final class ScriptRun {

    final CommandContext ctx;
    /** The command that runs the script (EVAL ..., FCALL ...), as FUNCTION STATS shows it. */
    final byte[][] argv;
    final byte[][] keys;
    final byte[][] args;
    /** EVAL_RO, FCALL_RO, or a {@code no-writes} shebang / function flag: write commands are refused. */
    final boolean readOnly;
    /** What error lines name after {@code script:}: the SHA1 for EVAL, the function name for FCALL. */
    final String name;
    /** {@code @user_script} or {@code @user_function}. */
    final String source;
    /** {@code redis.setresp}: how command replies are converted for the script. */
    int resp = 2;
    /** Memory was over maxmemory with nothing to evict when the script started, and it lacks {@code allow-oom}. */
    public boolean denyOom;
    /** Set once the script has run a write command (SCRIPT KILL then refuses). */
    volatile boolean wrote;

    public ScriptRun(CommandContext ctx, byte[][] argv, byte[][] keys, byte[][] args, boolean readOnly, String name,
                     String source) {
        this.ctx = ctx;
        this.argv = argv;
        this.keys = keys;
        this.args = args;
        this.readOnly = readOnly;
        this.name = name;
        this.source = source;
    }

    public boolean wrote() { return wrote; }
}
