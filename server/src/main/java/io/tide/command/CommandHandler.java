package io.tide.command;

import io.tide.protocol.Reply;

/**
 * Executes one command. Called on the thread that owns the command's keys (see {@link CommandContext});
 * a handler throws {@link CommandException} to reply with an error.
 */
@FunctionalInterface
public interface CommandHandler {
    Reply execute(CommandContext ctx, byte[][] argv);
}
