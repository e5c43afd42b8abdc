package io.tide.pubsub;

import io.tide.protocol.Reply;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * MONITOR: the clients that see every command, and the line Redis sends them
 * ({@code +1339518083.107412 [0 127.0.0.1:60866] "keys" "*"}). Thread-safe: a copy-on-write set read by
 * every shard thread; lines reach each monitor through its {@link Subscriber}'s queue.
 */
public final class Monitor {

    private final CopyOnWriteArraySet<Subscriber> monitors = new CopyOnWriteArraySet<>();

    /** Whether anyone monitors: the one check on the command path otherwise. */
    public boolean active() {
        return !monitors.isEmpty();
    }

    public void add(Subscriber s) {
        s.monitor(this);
        monitors.add(s);
    }

    void remove(Subscriber s) {
        monitors.remove(s);
    }

    public int size() {
        return monitors.size();
    }

    /**
     * Sends one executed command to every monitor: {@code source} is the client's {@code ip:port} (or
     * {@code lua}), arguments quoted as Redis's sdscatrepr does; {@code redactFrom} hides arguments from
     * that index on (AUTH's password), -1 for none.
     */
    public void feed(long nowMicros, int db, String source, byte[][] argv, int redactFrom) {
        StringBuilder sb = new StringBuilder(64);
        sb.append(nowMicros / 1_000_000).append('.')
                .append(String.format(Locale.ROOT, "%06d", nowMicros % 1_000_000))
                .append(" [").append(db).append(' ').append(source).append(']');
        for (int i = 0; i < argv.length; i++) {
            sb.append(' ');
            if (redactFrom >= 0 && i >= redactFrom) sb.append("\"(redacted)\"");
            else repr(sb, argv[i]);
        }
        Reply line = Reply.simple(sb.toString());
        long size = sb.length() + 3;
        for (Subscriber s : monitors) s.offerMonitorLine(line, size);
    }

    /** Redis's sdscatrepr: a double-quoted string with C escapes and \xHH for unprintable bytes. */
    static void repr(StringBuilder sb, byte[] b) {
        sb.append('"');
        for (byte x : b) {
            int c = x & 0xff;
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '"' -> sb.append("\\\"");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case 7 -> sb.append("\\a");
                case 8 -> sb.append("\\b");
                default -> {
                    if (c >= 32 && c < 127) sb.append((char) c);
                    else sb.append(String.format(Locale.ROOT, "\\x%02x", c));
                }
            }
        }
        sb.append('"');
    }
}
