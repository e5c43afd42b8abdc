package io.tide.command;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one declarative table of commands. Built once at startup by each family's {@code register}
 * block, then read-only, so thread-safe. Lookup is by argument bytes, case-insensitive, without
 * allocating.
 */
public final class CommandTable {

    private final Map<String, CommandSpec> byName = new LinkedHashMap<>();
    private CommandSpec[] slots = new CommandSpec[0];
    private int mask;
    private String group = "generic";

    /** Sets the Redis command group ("string", "generic", "connection", "server") for the lines that follow. */
    public CommandTable group(String g) {
        this.group = g;
        return this;
    }

    /**
     * Registers a command. {@code first/last/step} are Redis's legacy key positions (0 = no keys; a
     * negative {@code last} counts from the end); {@code categories} are added to those derived from flags.
     */
    public CommandSpec add(String name, int arity, String flags, int first, int last, int step, String categories,
                           String since, String summary, CommandHandler handler) {
        CommandSpec spec = new CommandSpec(null, name, arity, flags, first, last, step, categories, group, since,
                summary, handler);
        if (byName.putIfAbsent(spec.name(), spec) != null) {
            throw new IllegalStateException("command registered twice: " + name);
        }
        return spec;
    }

    /** Registers a container command (CLIENT, CONFIG, OBJECT, ...); add its subcommands with {@link CommandSpec#sub}. */
    public CommandSpec container(String name, int arity, String flags, String categories, String since, String summary) {
        return add(name, arity, flags, 0, 0, 0, categories, since, summary, null);
    }

    /** A container command that also runs on its own, without a subcommand (bare COMMAND). */
    public CommandSpec container(String name, int arity, String flags, String categories, String since, String summary,
                                 CommandHandler bare) {
        return add(name, arity, flags, 0, 0, 0, categories, since, summary, bare);
    }

    /** Freezes the table: builds the lookup index and per-shard statistics. */
    public void seal(int shards) {
        int cap = Integer.highestOneBit(Math.max(16, byName.size() * 4) - 1) << 1;
        slots = new CommandSpec[cap];
        mask = cap - 1;
        for (CommandSpec s : byName.values()) {
            byte[] n = s.name().getBytes(StandardCharsets.US_ASCII);
            int i = hash(n) & mask;
            while (slots[i] != null) i = (i + 1) & mask;
            slots[i] = s;
            s.allocateStats(shards);
        }
    }

    public CommandSpec lookup(byte[] name) {
        int i = hash(name) & mask;
        CommandSpec s;
        while ((s = slots[i]) != null) {
            if (equalsIgnoreCase(s.name(), name)) return s;
            i = (i + 1) & mask;
        }
        return null;
    }

    public CommandSpec lookup(String name) {
        return byName.get(name.toLowerCase(Locale.ROOT));
    }

    public Collection<CommandSpec> all() {
        return Collections.unmodifiableCollection(byName.values());
    }

    /** Every command, each container followed by its subcommands, in registration order (INFO commandstats' order). */
    public List<CommandSpec> allWithSubcommands() {
        List<CommandSpec> out = new ArrayList<>();
        for (CommandSpec spec : byName.values()) {
            out.add(spec);
            out.addAll(spec.subcommands().values());
        }
        return out;
    }

    public int size() {
        return byName.size();
    }

    private static int hash(byte[] name) {
        int h = 0;
        for (byte b : name) {
            int c = b;
            if (c >= 'A' && c <= 'Z') c += 32;
            h = h * 31 + c;
        }
        return h ^ (h >>> 16);
    }

    static boolean equalsIgnoreCase(String lower, byte[] b) {
        if (lower.length() != b.length) return false;
        for (int i = 0; i < b.length; i++) {
            int c = b[i];
            if (c >= 'A' && c <= 'Z') c += 32;
            if (c != lower.charAt(i)) return false;
        }
        return true;
    }
}
