package io.tide.testing;

import io.tide.store.Database;

/**
 * A database's accounted bytes as they are once the shard's cron has run a second later: a table's array of values held
 * by reference, kept while the table holds none for {@link Database#VALUES_IDLE_MS} (a queue that empties refills
 * without making it again), has then gone. For tests that check the accounting returns to where it was once keys go.
 * Run it on the database's shard thread, as the cron does.
 */
public final class SettledMemory {

    private SettledMemory() {}

    public static long usedBytes(Database d) {
        long now = System.currentTimeMillis();
        d.releaseIdleValues(now);
        d.releaseIdleValues(now + Database.VALUES_IDLE_MS);
        return d.usedBytes();
    }
}
