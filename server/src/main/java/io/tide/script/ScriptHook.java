package io.tide.script;

import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.DebugLib;

/**
 * LuaJ's per-instruction hook, used without the debug library's call-stack bookkeeping: it remembers the
 * line of the last instruction run (Redis names it in error lines, even after a tail call) and every few
 * thousand instructions gives {@link #periodic} a chance to stop the script. Confined to the thread running
 * scripts, apart from the volatile fields it reads.
 */
final class ScriptHook extends DebugLib {

    private LuaClosure[] frames = new LuaClosure[32];
    private int depth;
    private LuaClosure last;
    private int lastPc;
    private int countdown = 4096;
    private Runnable periodic = () -> { };

    void reset(Runnable check) {
        depth = 0;
        last = null;
        lastPc = 0;
        countdown = 4096;
        periodic = check;
    }

    @Override
    public void onCall(LuaClosure c, Varargs varargs, LuaValue[] stack) {
        if (depth == frames.length) frames = java.util.Arrays.copyOf(frames, depth * 2);
        frames[depth++] = c;
    }

    @Override
    public void onCall(LuaFunction f) {
        // Java functions are not tracked.
    }

    @Override
    public void onReturn() {
        if (depth > 0) frames[--depth] = null;
    }

    @Override
    public void onInstruction(int pc, Varargs v, int top) {
        if (depth > 0) last = frames[depth - 1];
        lastPc = pc;
        if (--countdown <= 0) {
            countdown = 4096;
            periodic.run();
        }
    }

    @Override
    public String traceback(int level) {
        return null; // error lines are built from the error itself, as Redis does
    }

    /** The line of the last instruction run, or -1. */
    int lastLine() {
        if (last == null) return -1;
        int[] lines = last.p.lineinfo;
        return lines != null && lastPc >= 0 && lastPc < lines.length ? lines[lastPc] : -1;
    }
}
