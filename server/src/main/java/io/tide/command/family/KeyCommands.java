package io.tide.command.family;

import io.tide.command.CommandTable;

/** Placeholder until this family lands: registers nothing, so its commands answer unknown command. */
public final class KeyCommands {

    private KeyCommands() {}

    public static void register(CommandTable t) {
    }
}
