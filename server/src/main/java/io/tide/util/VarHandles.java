package io.tide.util;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Thread-safe (a pure function). VarHandles for a class's own fields, made in its static initialiser. */
public final class VarHandles {

    private VarHandles() {}

    /**
     * The handle of the field {@code name} of type {@code type} of {@code lookup}'s class; pass
     * {@code MethodHandles.lookup()} from that class, so that a private field is reachable. A field that is not there
     * is a programming error.
     */
    public static VarHandle field(MethodHandles.Lookup lookup, String name, Class<?> type) {
        try {
            return lookup.findVarHandle(lookup.lookupClass(), name, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
