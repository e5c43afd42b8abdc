package io.tide.network;

import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;

/**
 * The list a connection's read is decoded into, one per event loop thread and reused read after read, so that neither
 * a connection (an idle one's memory) nor a read (garbage) pays for one. A read that starts while another is still
 * being handled on the same thread gets a list of its own.
 */
final class RequestLists {

    private static final FastThreadLocal<ArrayList<Object>> FREE = new FastThreadLocal<>();

    private RequestLists() {
    }

    /** This thread's list, empty; a new one while it is taken. */
    static ArrayList<Object> take() {
        ArrayList<Object> l = FREE.get();
        if (l == null) return new ArrayList<>();
        FREE.set(null);
        return l;
    }

    /** Empties {@code l} and keeps it for this thread's next read. */
    static void give(ArrayList<Object> l) {
        l.clear();
        FREE.set(l);
    }
}
