package io.tide.persistence.aof;

import java.io.IOException;

/**
 * An AOF directory, manifest or file that cannot be used as it is: the message names the file and the line or byte
 * offset. Thread-safe (immutable).
 */
public final class AofException extends IOException {

    public AofException(String message) {
        super(message);
    }

    public AofException(String message, Throwable cause) {
        super(message, cause);
    }
}
