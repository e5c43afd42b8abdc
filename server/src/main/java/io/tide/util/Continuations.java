package io.tide.util;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The JDK's one-shot delimited continuations ({@code jdk.internal.vm.Continuation}, what virtual threads are made of),
 * reached through method handles. A script runs inside one on its shard's thread, and when it turns busy it
 * {@linkplain #yieldNow() yields}: the shard thread goes back to its loop and the coordinator resumes the rest of the
 * script on its own thread (decision 0022).
 *
 * <p>The package is internal: it is usable when {@code java.base} exports {@code jdk.internal.vm} to this code, which
 * the server jar's manifest ({@code Add-Exports}) does for {@code java -jar}, and {@code --add-exports
 * java.base/jdk.internal.vm=ALL-UNNAMED} does for any other launch. Without it {@link #available()} is false and
 * callers take their way without continuations.
 */
public final class Continuations {

    private static final MethodHandle NEW;
    private static final MethodHandle RUN;
    private static final MethodHandle IS_DONE;
    private static final MethodHandle YIELD;

    static {
        MethodHandle create = null, run = null, done = null, yield = null;
        Object scope = null;
        try {
            Class<?> k = Class.forName("jdk.internal.vm.Continuation");
            Class<?> s = Class.forName("jdk.internal.vm.ContinuationScope");
            if (Object.class.getModule().isExported("jdk.internal.vm", Continuations.class.getModule())) {
                MethodHandles.Lookup l = MethodHandles.lookup(); // publicLookup sees unconditional exports only
                scope = l.findConstructor(s, MethodType.methodType(void.class, String.class)).invoke("tide-script");
                create = l.findConstructor(k, MethodType.methodType(void.class, s, Runnable.class))
                        .bindTo(scope).asType(MethodType.methodType(Object.class, Runnable.class));
                run = l.findVirtual(k, "run", MethodType.methodType(void.class))
                        .asType(MethodType.methodType(void.class, Object.class));
                done = l.findVirtual(k, "isDone", MethodType.methodType(boolean.class))
                        .asType(MethodType.methodType(boolean.class, Object.class));
                yield = MethodHandles.insertArguments(
                        l.findStatic(k, "yield", MethodType.methodType(boolean.class, s)), 0, scope);
            }
        } catch (Throwable e) {
            create = run = done = yield = null;
        }
        NEW = create;
        RUN = run;
        IS_DONE = done;
        YIELD = yield;
    }

    private Continuations() {}

    /** Whether continuations can be used in this JVM (see the class comment). */
    public static boolean available() {
        return NEW != null;
    }

    /** A continuation that runs {@code body} from its start on the first {@link #run}. */
    public static Object create(Runnable body) {
        try {
            return (Object) NEW.invokeExact(body);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    /**
     * Runs {@code k} on the calling thread until it ends or {@linkplain #yieldNow() yields}; a yielded one goes on from
     * where it stopped, on whichever thread runs it next.
     */
    public static void run(Object k) {
        try {
            RUN.invokeExact(k);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    /** Whether {@code k} ran to its end. */
    public static boolean isDone(Object k) {
        try {
            return (boolean) IS_DONE.invokeExact(k);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    /**
     * From inside a continuation: stops it here and returns from the {@link #run} that ran it; returns true once it is
     * run again (possibly on another thread). False, without stopping, when it cannot yield here (a native frame on the
     * stack) or when called outside a continuation.
     */
    public static boolean yieldNow() {
        try {
            return (boolean) YIELD.invokeExact();
        } catch (IllegalStateException e) {
            return false; // pinned, or not inside a continuation of this scope
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    private static RuntimeException rethrow(Throwable e) {
        if (e instanceof RuntimeException r) return r;
        if (e instanceof Error err) throw err;
        return new IllegalStateException(e);
    }
}
