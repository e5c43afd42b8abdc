package io.tide.pubsub;

import java.nio.charset.StandardCharsets;

/**
 * Keyspace notifications ({@code notify-keyspace-events}): Redis's event classes, the parsing and
 * normalisation of the parameter, and publishing on {@code __keyspace@<db>__:<key>} and
 * {@code __keyevent@<db>__:<event>}. Thread-safe: the enabled classes are one volatile int, and
 * publishing goes through the thread-safe {@link PubSub}.
 */
public final class KeyspaceEvents {

    public static final int KEYSPACE = 1;
    public static final int KEYEVENT = 1 << 1;
    public static final int GENERIC = 1 << 2;
    public static final int STRING = 1 << 3;
    public static final int LIST = 1 << 4;
    public static final int SET = 1 << 5;
    public static final int HASH = 1 << 6;
    public static final int ZSET = 1 << 7;
    public static final int EXPIRED = 1 << 8;
    public static final int EVICTED = 1 << 9;
    public static final int STREAM = 1 << 10;
    public static final int KEY_MISS = 1 << 11;
    public static final int MODULE = 1 << 13;
    public static final int NEW = 1 << 14;
    /** The classes {@code A} stands for. */
    public static final int ALL = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

    private static final byte[] KEYSPACE_PREFIX = "__keyspace@".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEYEVENT_PREFIX = "__keyevent@".getBytes(StandardCharsets.US_ASCII);

    private final PubSub pubSub;
    private volatile int flags;
    private volatile Tracking tracking;

    public KeyspaceEvents(PubSub pubSub) {
        this.pubSub = pubSub;
    }

    /** Client tracking, told of keys the server itself changes (expiry). */
    public void tracking(Tracking t) {
        tracking = t;
    }

    /** A key the server changed on its own (expired, or emptied by field expiry): tracking invalidates it. */
    public void modified(byte[] key) {
        Tracking t = tracking;
        if (t != null) t.invalidate(key, 0);
    }

    /** A key a command changed: tracking invalidates it for everyone but {@code originId}'s NOLOOP. */
    public void invalidate(byte[] key, long originId) {
        Tracking t = tracking;
        if (t != null && t.active()) t.invalidate(key, originId);
    }

    /** The enabled classes (one int read: callers test their class bit before building anything). */
    public int flags() {
        return flags;
    }

    /** Applies a value already normalised by {@link #normalise}. */
    public void configure(String value) {
        flags = parse(value);
    }

    /** Redis's keyspaceEventsStringToFlags; -1 for a character that names no class. */
    public static int parse(String classes) {
        int f = 0;
        for (int i = 0; i < classes.length(); i++) {
            f |= switch (classes.charAt(i)) {
                case 'A' -> ALL;
                case 'g' -> GENERIC;
                case '$' -> STRING;
                case 'l' -> LIST;
                case 's' -> SET;
                case 'h' -> HASH;
                case 'z' -> ZSET;
                case 'x' -> EXPIRED;
                case 'e' -> EVICTED;
                case 'K' -> KEYSPACE;
                case 'E' -> KEYEVENT;
                case 't' -> STREAM;
                case 'm' -> KEY_MISS;
                case 'd' -> MODULE;
                case 'n' -> NEW;
                default -> {
                    yield Integer.MIN_VALUE;
                }
            };
            if (f < 0) return -1;
        }
        return f;
    }

    /** Redis's keyspaceEventsFlagsToString: the form CONFIG GET shows. */
    public static String format(int f) {
        StringBuilder sb = new StringBuilder();
        if ((f & ALL) == ALL) {
            sb.append('A');
            // Redis drops n here (its CONFIG GET shows "AKE" for "AnKE" while n stays on); the stored value
            // is this text, so it keeps n to stay what was set.
            if ((f & NEW) != 0) sb.append('n');
        } else {
            if ((f & GENERIC) != 0) sb.append('g');
            if ((f & STRING) != 0) sb.append('$');
            if ((f & LIST) != 0) sb.append('l');
            if ((f & SET) != 0) sb.append('s');
            if ((f & HASH) != 0) sb.append('h');
            if ((f & ZSET) != 0) sb.append('z');
            if ((f & EXPIRED) != 0) sb.append('x');
            if ((f & EVICTED) != 0) sb.append('e');
            if ((f & STREAM) != 0) sb.append('t');
            if ((f & MODULE) != 0) sb.append('d');
            if ((f & NEW) != 0) sb.append('n');
        }
        if ((f & KEYSPACE) != 0) sb.append('K');
        if ((f & KEYEVENT) != 0) sb.append('E');
        if ((f & KEY_MISS) != 0) sb.append('m');
        return sb.toString();
    }

    /** CONFIG SET's check: the normalised value, or null when a character is not a class. */
    public static String normalise(String value) {
        int f = parse(value);
        return f < 0 ? null : format(f);
    }

    /**
     * Redis's notifyKeyspaceEvent: when {@code type} is enabled, publishes the event on the key's
     * keyspace channel and the key on the event's keyevent channel, as K and E ask.
     */
    public void notify(int type, String event, byte[] key, int db) {
        int f = flags;
        if ((f & type) == 0 || (f & (KEYSPACE | KEYEVENT)) == 0) return;
        byte[] ev = event.getBytes(StandardCharsets.US_ASCII);
        byte[] dbPart = (db + "__:").getBytes(StandardCharsets.US_ASCII);
        if ((f & KEYSPACE) != 0) pubSub.publish(concat(KEYSPACE_PREFIX, dbPart, key), ev);
        // The message is a copy: the key may be a request's argument, which a later request fills again (decision 0028).
        if ((f & KEYEVENT) != 0) pubSub.publish(concat(KEYEVENT_PREFIX, dbPart, ev), key.clone());
    }

    private static byte[] concat(byte[] a, byte[] b, byte[] c) {
        byte[] out = new byte[a.length + b.length + c.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        System.arraycopy(c, 0, out, a.length + b.length, c.length);
        return out;
    }
}
