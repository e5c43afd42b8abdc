package io.tide.acl;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;

/**
 * Thread-safe (synchronized: it is written only when a command or AUTH is refused, never on a served request's path).
 * Redis 7.0's ACL LOG: the latest refusals, newest first, at most {@code acllog-max-len}. A refusal like one of the
 * ten newest entries (same reason, context, object and user, within 60 seconds of it) counts there and moves it to the
 * front instead of adding an entry, as Redis groups them.
 */
public final class AclLog {

    /** Redis's ACL_LOG_GROUPING_MAX_TIME_DELTA. */
    private static final long GROUPING_MS = 60_000;
    /** How many of the newest entries a refusal is compared with. */
    private static final int GROUPING_SCAN = 10;

    /** Why: Redis's "reason" texts. */
    public enum Reason {
        COMMAND("command"), KEY("key"), CHANNEL("channel"), AUTH("auth");

        public final String text;

        Reason(String text) {
            this.text = text;
        }
    }

    /** Where: Redis's "context" texts. */
    public enum Context {
        TOPLEVEL("toplevel"), MULTI("multi"), LUA("lua");

        public final String text;

        Context(String text) {
            this.text = text;
        }
    }

    /** One entry as ACL LOG shows it; {@code updatedMs} is the time of its latest refusal. */
    public record Entry(long count, Reason reason, Context context, String object, String username, long updatedMs,
                        String clientInfo) {}

    private final LinkedList<Entry> entries = new LinkedList<>();
    private long[] denied = new long[Reason.values().length];

    /** Records a refusal; {@code maxLen} is acllog-max-len now. */
    public synchronized void add(Reason reason, Context context, String object, String username, String clientInfo,
                                 long nowMs, int maxLen) {
        denied[reason.ordinal()]++;
        long count = 1;
        int scanned = 0;
        for (Iterator<Entry> it = entries.iterator(); it.hasNext() && scanned < GROUPING_SCAN; scanned++) {
            Entry e = it.next();
            if (e.reason() == reason && e.context() == context && e.object().equals(object)
                    && e.username().equals(username) && nowMs - e.updatedMs() <= GROUPING_MS) {
                count = e.count() + 1;
                it.remove();
                break;
            }
        }
        entries.addFirst(new Entry(count, reason, context, object, username, nowMs, clientInfo));
        while (entries.size() > maxLen) entries.removeLast();
    }

    /** The {@code n} newest entries, newest first. */
    public synchronized List<Entry> latest(long n) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            if (out.size() >= n) break;
            out.add(e);
        }
        return out;
    }

    /** ACL LOG RESET. */
    public synchronized void reset() {
        entries.clear();
    }

    /** Refusals of this reason since the start or CONFIG RESETSTAT (INFO acl_access_denied_*). */
    public synchronized long denied(Reason reason) {
        return denied[reason.ordinal()];
    }

    /** CONFIG RESETSTAT: the counters, not the log. */
    public synchronized void resetStats() {
        denied = new long[Reason.values().length];
    }

    /** acllog-max-len lowered by CONFIG SET: the oldest entries leave at once. */
    public synchronized void trim(int maxLen) {
        while (entries.size() > maxLen) entries.removeLast();
    }
}
