package io.tide.command.family;

import io.tide.command.CommandTable;

/** The list of command families; each registers its commands in the table. Thread-safe (stateless). */
public final class Families {

    private Families() {}

    public static void registerAll(CommandTable table) {
        ConnectionCommands.register(table);
        ClientCommands.register(table);
        ServerCommands.register(table);
        AclCommands.register(table);
        ObservabilityCommands.register(table);
        MemoryCommands.register(table);
        KeyCommands.register(table);
        DumpCommands.register(table);
        StringCommands.register(table);
        SetCommands.register(table);
        BitCommands.register(table);
        HyperLogLogCommands.register(table);
        HashCommands.register(table);
        ListCommands.register(table);
        StreamCommands.register(table);
        ZSetCommands.register(table);
        GeoCommands.register(table);
        SortCommands.register(table);
        TransactionCommands.register(table);
        ScriptCommands.register(table);
        FunctionCommands.register(table);
        PubSubCommands.register(table);
        TrackingCommands.register(table);
        ReplicationCommands.register(table);
    }
}
