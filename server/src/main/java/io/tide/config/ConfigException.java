package io.tide.config;

/**
 * A rejected configuration value or file. Thread-safe (immutable). The message is the whole line to show: for
 * CONFIG SET it is Redis's error reply without the leading dash (e.g.
 * {@code ERR CONFIG SET failed (possibly related to argument 'port') - can't set immutable config}); for startup
 * problems it is a one-line {@code tide: ...} reason. {@link #param()} and {@link #reason()} carry the parts.
 */
public final class ConfigException extends RuntimeException {

    private final String param;
    private final String reason;

    public ConfigException(String message) {
        this(message, null, message);
    }

    public ConfigException(String message, String param, String reason) {
        super(message, null, false, false);
        this.param = param;
        this.reason = reason;
    }

    /** The parameter name as the user spelled it, or null when the error is not about one parameter. */
    public String param() {
        return param;
    }

    /** The bare reason, e.g. {@code argument couldn't be parsed into an integer}. */
    public String reason() {
        return reason;
    }

    /** Redis's CONFIG SET failure line for {@code param}. */
    static ConfigException setFailed(String param, String reason) {
        return new ConfigException("ERR CONFIG SET failed (possibly related to argument '" + param + "') - " + reason,
                param, reason);
    }

    /** A value rejected by a parameter's own validation; callers rewrap it for their context. */
    static ConfigException invalid(String reason) {
        return new ConfigException(reason, null, reason);
    }
}
