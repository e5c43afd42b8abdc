package io.tide.command;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Thread-safe. Every client connection by its id (CLIENT LIST, KILL, UNBLOCK, tracking's REDIRECT, INFO): an
 * open-addressing table of sessions keyed by {@link ClientSession#id()}, without the boxed key and the node a
 * {@code ConcurrentHashMap<Long, ClientSession>} spends on each connection (about 40 bytes of an idle connection's
 * heap; the table costs 5-8 bytes a connection).
 *
 * <p>Adding and removing take this object's lock; lookups and iteration take none. A slot, once given a session,
 * keeps it until it is removed, when the slot gets a marker that lookups probe past (so a probe chain is never cut);
 * a full rebuild, under the lock, drops the markers into a new array, published whole. So a lookup finds every
 * session added before it began and not removed, and an iteration sees every session present throughout it; one
 * added or removed meanwhile may or may not be seen, as with {@code ConcurrentHashMap}.
 */
public final class ClientTable implements Iterable<ClientSession> {

    private static final int MIN_CAPACITY = 64;
    /** What a removed session's slot holds: lookups go on past it, adds may take it. */
    private static final Object GONE = new Object();
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    private volatile Object[] slots = new Object[MIN_CAPACITY];
    private volatile int size;
    /** Slots holding {@link #GONE}; under the lock. */
    private int gone;

    /** Number of sessions in the table. */
    public int size() {
        return size;
    }

    /** The session with this id, or null. */
    public ClientSession get(long id) {
        Object[] t = slots;
        int mask = t.length - 1;
        for (int i = firstSlot(id, mask); ; i = (i + 1) & mask) {
            Object o = SLOT.getAcquire(t, i);
            if (o == null) return null;
            if (o != GONE && ((ClientSession) o).id() == id) return (ClientSession) o;
        }
    }

    /** Adds a session (its id is not in the table). */
    public synchronized void add(ClientSession s) {
        if ((size + gone + 1) * 4L > slots.length * 3L) rebuild(size + 1);
        Object[] t = slots;
        int mask = t.length - 1;
        int i = firstSlot(s.id(), mask);
        while (t[i] != null && t[i] != GONE) i = (i + 1) & mask;
        if (t[i] == GONE) gone--;
        SLOT.setRelease(t, i, s);
        size++;
    }

    /** Removes this session, if it is in the table. */
    public synchronized void remove(ClientSession s) {
        Object[] t = slots;
        int mask = t.length - 1;
        for (int i = firstSlot(s.id(), mask); t[i] != null; i = (i + 1) & mask) {
            if (t[i] == s) {
                SLOT.setRelease(t, i, GONE);
                gone++;
                size--;
                if (t.length > MIN_CAPACITY && size * 8L < t.length) rebuild(size);
                return;
            }
        }
    }

    /** The sessions, in no particular order (see the class comment for what a concurrent change does). */
    @Override
    public Iterator<ClientSession> iterator() {
        Object[] t = slots;
        return new Iterator<>() {
            /** The session {@link #next()} returns, at slot {@link #at}; null once there is none. */
            private ClientSession current;
            private int at = advance(0);

            private int advance(int from) {
                for (int i = from; i < t.length; i++) {
                    Object o = SLOT.getAcquire(t, i);
                    if (o != null && o != GONE) {
                        current = (ClientSession) o;
                        return i;
                    }
                }
                current = null;
                return t.length;
            }

            @Override
            public boolean hasNext() {
                return current != null;
            }

            @Override
            public ClientSession next() {
                ClientSession s = current;
                if (s == null) throw new NoSuchElementException();
                at = advance(at + 1);
                return s;
            }
        };
    }

    /** The sessions as a stream, with the iterator's consistency. */
    public Stream<ClientSession> stream() {
        return StreamSupport.stream(spliterator(), false);
    }

    /** A new array at most half full with {@code live} sessions, the live ones moved in, published whole. */
    private void rebuild(int live) {
        int capacity = MIN_CAPACITY;
        while (capacity < live * 2L) capacity <<= 1;
        Object[] old = slots;
        Object[] t = new Object[capacity];
        int mask = capacity - 1;
        for (Object o : old) {
            if (o == null || o == GONE) continue;
            int i = firstSlot(((ClientSession) o).id(), mask);
            while (t[i] != null) i = (i + 1) & mask;
            t[i] = o;
        }
        slots = t; // the volatile write publishes the filled array
        gone = 0;
    }

    /** A session id's first slot: Fibonacci hashing, so that consecutive ids do not fill a run of slots. */
    private static int firstSlot(long id, int mask) {
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 32) & mask;
    }
}
