package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.command.family.Families;
import io.tide.testing.GeneratedDocs;
import org.junit.jupiter.api.Test;

/** docs/commands.md must be what {@link CommandDocs} generates from the table. */
class CommandDocsTest {

    @Test
    void commandsMd_matchesTheCommandTable() throws Exception {
        CommandTable t = new CommandTable();
        Families.registerAll(t);
        GeneratedDocs.assertCurrent("commands.md", CommandDocs.markdown(t), "CommandDocsTest");
    }

    @Test
    void markdown_listsSubcommandsAndFlags() {
        CommandTable t = new CommandTable();
        Families.registerAll(t);
        String md = CommandDocs.markdown(t);
        assertThat(md).contains("| `CLIENT LIST` | connection | -2 | admin noscript loading stale allshards |",
                "| `TIME` | server | 1 | loading stale fast | Returns the server time. |");
    }
}
