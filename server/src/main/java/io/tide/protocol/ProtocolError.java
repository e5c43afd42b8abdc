package io.tide.protocol;

/**
 * Thread-safe (immutable): a protocol violation found by {@link RespDecoder}, after which the decoder
 * discards all further input; the connection writes {@code -message} and closes.
 *
 * @param message the whole error line without the leading dash, e.g.
 *                {@code "ERR Protocol error: invalid bulk length"}
 */
public record ProtocolError(String message) {}
