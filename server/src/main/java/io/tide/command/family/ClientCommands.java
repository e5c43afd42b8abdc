package io.tide.command.family;

import io.tide.command.CommandTable;

/** Placeholder until this family lands: registers nothing, so its commands answer unknown command. */
public final class ClientCommands {

    private ClientCommands() {}

    public static void register(CommandTable t) {
    }
}
