package io.tide.store;

/**
 * Confined to the shard thread that owns the value. A collection whose elements can expire one by one
 * (hash fields with HEXPIRE); the shard's cron calls {@link Database#activeExpireFields} to reclaim
 * expired elements that nobody reads, as Redis 7.4's active field expiry does.
 */
public interface FieldExpiring extends CollectionValue {

    /** Whether any element still carries an expiry time. */
    boolean hasFieldTtls();

    /** Deletes up to {@code max} elements expired at {@code nowMs}; returns how many it deleted. */
    int expireFields(long nowMs, int max);

    /** Whether no element is left (the key must then be deleted). */
    boolean isEmpty();
}
