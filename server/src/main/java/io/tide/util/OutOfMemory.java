package io.tide.util;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe. What Tide does when an {@link OutOfMemoryError} reaches one of its catch-alls (the default
 * uncaught-exception handler, a connection's exception handler): after an allocation failed somewhere, no thread's
 * state can be trusted to be whole, so a server must not live on half-dead. In the standalone process
 * ({@code tide-server}, which calls {@link #exitTheProcess()}) it logs one line and halts with exit code
 * {@value #EXIT_CODE}, the code {@code -XX:+ExitOnOutOfMemoryError} (the launcher's net for the catches Tide does
 * not own) exits with; embedded, it must not kill the host JVM, so it logs and closes that server instead.
 */
public final class OutOfMemory {

    /** The exit code of the standalone process after an OutOfMemoryError (the JVM's own for ExitOnOutOfMemoryError). */
    public static final int EXIT_CODE = 3;

    private static final Logger LOG = LoggerFactory.getLogger("tide");
    private static volatile boolean exitTheProcess;

    private OutOfMemory() {}

    /** For the standalone process only: from now on an OutOfMemoryError ends the process. */
    public static void exitTheProcess() {
        exitTheProcess = true;
    }

    /** The OutOfMemoryError in {@code t}'s cause chain, or null. */
    public static OutOfMemoryError find(Throwable t) {
        for (int depth = 0; t != null && depth < 16; t = t.getCause(), depth++) {
            if (t instanceof OutOfMemoryError e) return e;
        }
        return null;
    }

    /**
     * If {@code t} is or was caused by an OutOfMemoryError: halts the standalone process (never returns), or, embedded,
     * logs and runs {@code closeServer} (which must be idempotent) on a thread of its own, and returns true. False
     * otherwise.
     */
    public static boolean handle(Throwable t, String where, Runnable closeServer) {
        OutOfMemoryError e = find(t);
        if (e == null) return false;
        if (exitTheProcess) {
            try {
                LOG.error("Out of memory in {} ({}): exiting with code {}; give the JVM more heap (-Xmx) or set "
                        + "maxmemory lower", where, e.toString(), EXIT_CODE);
            } catch (Throwable ignored) {
                // Even logging failed: the exit code still tells.
            }
            Runtime.getRuntime().halt(EXIT_CODE);
        }
        try {
            LOG.error("Out of memory in {} ({}): closing the server", where, e.toString());
        } catch (Throwable ignored) {
            // Closing matters more than the line.
        }
        if (closeServer != null) {
            try {
                Thread c = new Thread(closeServer, "tide-oom-close");
                c.setDaemon(true);
                c.start();
            } catch (Throwable again) {
                closeServer.run();
            }
        }
        return true;
    }
}
