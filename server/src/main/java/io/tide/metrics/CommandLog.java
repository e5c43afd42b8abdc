package io.tide.metrics;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * One command log (Redis's slow log; Valkey's COMMANDLOG types slow, large-request, large-reply): the latest
 * entries whose measure (microseconds, request bytes, reply bytes) reached the threshold, newest first. Thread-safe.
 *
 * <p>Commands run on several shard threads and the coordinator. The hot path only reads the volatile threshold
 * ({@link #wants}); the lock is taken only to add an entry (a command that reached the threshold) and by the log's
 * own commands, so ordinary commands never contend. Entry ids come from the same lock, so they grow in the order
 * entries enter the log, as in Redis.
 */
public final class CommandLog {

    /** Redis's SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING (Valkey's COMMANDLOG_ENTRY_*: the same). */
    static final int MAX_ARGC = 32;
    static final int MAX_STRING = 128;
    private static final byte[] REDACTED = "(redacted)".getBytes(StandardCharsets.US_ASCII);

    /** An entry: id, unix time in seconds, the measure, the trimmed argv, the client's "ip:port" and name. */
    public record Entry(long id, long unixTime, long value, byte[][] argv, String peer, String name) {}

    private volatile long threshold;
    private volatile long maxLen;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long nextId;

    public CommandLog(long threshold, long maxLen) {
        this.threshold = threshold;
        this.maxLen = maxLen;
    }

    public void threshold(long t) { threshold = t; }
    public void maxLen(long n) { maxLen = n; }

    /** True when a command measuring {@code value} is to be logged (a negative threshold disables the log). */
    public boolean wants(long value) {
        long t = threshold;
        return t >= 0 && value >= t;
    }

    /** True unless the log is disabled: cheap check before measuring something only this log needs. */
    public boolean enabled() {
        return threshold >= 0;
    }

    public long threshold() { return threshold; }

    /**
     * Adds an entry if {@code value} reaches the threshold, then trims the log to its maximum length (as Redis's
     * slowlogPushEntryIfNeeded: an id is used even when max-len 0 drops the entry at once). {@code command} is
     * the command's lower-case full name, which decides what is redacted.
     */
    public void add(String command, byte[][] argv, long value, String peer, String name) {
        if (!wants(value)) return;
        byte[][] kept = trim(command, argv);
        long now = System.currentTimeMillis() / 1000;
        synchronized (this) {
            entries.addFirst(new Entry(nextId++, now, value, kept, peer, name == null ? "" : name));
            long max = maxLen;
            while (entries.size() > max) entries.removeLast();
        }
    }

    /** The newest {@code count} entries (all for a negative count), newest first. */
    public synchronized List<Entry> latest(long count) {
        int n = count < 0 || count > entries.size() ? entries.size() : (int) count;
        List<Entry> out = new ArrayList<>(n);
        Iterator<Entry> it = entries.iterator();
        for (int i = 0; i < n; i++) out.add(it.next());
        return out;
    }

    public synchronized int size() {
        return entries.size();
    }

    public synchronized void reset() {
        entries.clear();
    }

    /**
     * The argv as an entry keeps it: at most 32 arguments, the last of them replaced by "... (N more arguments)";
     * each argument cut to 128 bytes followed by "... (N more bytes)"; credentials replaced by "(redacted)".
     */
    static byte[][] trim(String command, byte[][] argv) {
        boolean[] redact = redactions(command, argv);
        int argc = Math.min(argv.length, MAX_ARGC);
        byte[][] out = new byte[argc][];
        for (int j = 0; j < argc; j++) {
            if (argc != argv.length && j == argc - 1) {
                out[j] = ("... (" + (argv.length - argc + 1) + " more arguments)").getBytes(StandardCharsets.US_ASCII);
            } else if (redact != null && redact[j]) {
                out[j] = REDACTED;
            } else if (argv[j].length > MAX_STRING) {
                byte[] tail = ("... (" + (argv[j].length - MAX_STRING) + " more bytes)")
                        .getBytes(StandardCharsets.US_ASCII);
                byte[] s = new byte[MAX_STRING + tail.length];
                System.arraycopy(argv[j], 0, s, 0, MAX_STRING);
                System.arraycopy(tail, 0, s, MAX_STRING, tail.length);
                out[j] = s;
            } else {
                out[j] = argv[j].clone();
            }
        }
        return out;
    }

    /**
     * Redis 7's redactClientCommandArgument calls: AUTH's arguments, HELLO's AUTH user and password, MIGRATE's AUTH
     * password and AUTH2 user and password, and the value CONFIG SET gives requirepass or masterauth. Null: none.
     */
    static boolean[] redactions(String command, byte[][] argv) {
        boolean[] r = null;
        switch (command) {
            case "auth" -> {
                r = new boolean[argv.length];
                for (int j = 1; j < argv.length; j++) r[j] = true;
            }
            case "hello" -> {
                for (int j = 2; j < argv.length; j++) {
                    int more = argv.length - 1 - j;
                    if (is(argv[j], "auth") && more >= 2) {
                        if (r == null) r = new boolean[argv.length];
                        r[j + 1] = true;
                        r[j + 2] = true;
                        j += 2;
                    } else if (is(argv[j], "setname") && more >= 1) {
                        j++;
                    } else {
                        break;
                    }
                }
            }
            case "migrate" -> {
                for (int j = 6; j < argv.length; j++) {
                    int more = argv.length - 1 - j;
                    if (is(argv[j], "auth") && more >= 1) {
                        if (r == null) r = new boolean[argv.length];
                        r[j + 1] = true;
                        j++;
                    } else if (is(argv[j], "auth2") && more >= 2) {
                        if (r == null) r = new boolean[argv.length];
                        r[j + 1] = true;
                        r[j + 2] = true;
                        j += 2;
                    } else if (is(argv[j], "keys")) {
                        break;
                    }
                }
            }
            case "config|set" -> {
                for (int j = 2; j + 1 < argv.length; j += 2) {
                    if (is(argv[j], "requirepass") || is(argv[j], "masterauth")) {
                        if (r == null) r = new boolean[argv.length];
                        r[j + 1] = true;
                    }
                }
            }
            default -> { }
        }
        return r;
    }

    private static boolean is(byte[] arg, String lower) {
        if (arg.length != lower.length()) return false;
        for (int i = 0; i < arg.length; i++) {
            int c = arg[i];
            if (c >= 'A' && c <= 'Z') c += 32;
            if (c != lower.charAt(i)) return false;
        }
        return true;
    }
}
