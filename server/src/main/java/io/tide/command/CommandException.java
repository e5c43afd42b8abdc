package io.tide.command;

/**
 * Thrown by a command handler to reply with an error; stackless, so throwing it is cheap.
 * Thread-safe (immutable). The message is the whole error line without the leading dash,
 * e.g. {@code "WRONGTYPE Operation against a key holding the wrong kind of value"}.
 */
public final class CommandException extends RuntimeException {

    public CommandException(String errorLine) {
        super(errorLine, null, false, false);
    }
}
