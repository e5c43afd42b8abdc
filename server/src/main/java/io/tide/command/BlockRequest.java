package io.tide.command;

import io.tide.protocol.Reply;

/**
 * Immutable. What a blocking command asked for when it found nothing to serve: see
 * {@link CommandContext#block}.
 */
public record BlockRequest(byte[][] keys, long deadlineMs, Reply timeoutReply, byte[][] retryArgv) {}
