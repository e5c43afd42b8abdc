package io.tide.command;

import io.tide.command.family.Families;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Generates {@code docs/commands.md}, the support matrix, from the command table. Thread-safe (stateless).
 * {@code CommandDocsTest} fails when the file differs from what this produces; run it with
 * {@code -Dtide.regenerateDocs=true} to rewrite the file.
 */
public final class CommandDocs {

    private CommandDocs() {}

    /** The whole markdown page for {@code t}: one row per command and subcommand, sorted by name. */
    public static String markdown(CommandTable t) {
        List<CommandSpec> rows = t.allWithSubcommands();
        rows.sort(Comparator.comparing(CommandSpec::fullName));
        StringBuilder sb = new StringBuilder();
        sb.append("# Commands\n\n");
        sb.append("Generated from the command table by `io.tide.command.CommandDocs`; do not edit by hand.\n");
        sb.append("Regenerate with `bin/test -pl server -Dtest=CommandDocsTest -Dtide.regenerateDocs=true`.\n\n");
        sb.append(t.size()).append(" commands. Arity as Redis counts it: the command name included, negative ")
                .append("means at least that many.\n\n");
        sb.append("| Command | Group | Arity | Flags | Summary |\n");
        sb.append("|---|---|---|---|---|\n");
        for (CommandSpec s : rows) {
            List<String> flags = new ArrayList<>(s.flagNames());
            if (s.has(CommandSpec.ALL_SHARDS)) flags.add("allshards");
            sb.append("| `").append(s.fullName().replace('|', ' ').toUpperCase(Locale.ROOT)).append("` | ")
                    .append(s.group()).append(" | ")
                    .append(s.arity()).append(" | ")
                    .append(String.join(" ", flags)).append(" | ")
                    .append(escape(s.summary())).append(" |\n");
        }
        return sb.toString();
    }

    private static String escape(String s) {
        return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
    }

    /** Writes the support matrix of every registered family to {@code args[0]} (default docs/commands.md). */
    public static void main(String[] args) throws IOException {
        CommandTable t = new CommandTable();
        Families.registerAll(t);
        Path out = Path.of(args.length > 0 ? args[0] : "docs/commands.md");
        Files.writeString(out, markdown(t), StandardCharsets.UTF_8);
    }
}
