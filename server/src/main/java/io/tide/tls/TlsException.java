package io.tide.tls;

/**
 * Why the TLS configuration could not be loaded, as one log line in Redis's words (e.g. {@code Failed to load
 * certificate: /etc/tide/server.crt: ...}). Thread-safe (immutable).
 */
public final class TlsException extends Exception {

    public TlsException(String message) {
        super(message);
    }

    public TlsException(String message, Throwable cause) {
        super(message, cause);
    }
}
