package io.tide.persistence.rdb;

/** Immutable, so thread-safe. RDB data that Tide cannot read: corrupt, truncated, or of a version or type it does not know. */
public final class RdbFormatException extends RuntimeException {

    public RdbFormatException(String message) {
        super(message);
    }

    public RdbFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
