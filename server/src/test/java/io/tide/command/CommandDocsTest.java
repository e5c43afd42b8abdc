package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.command.family.Families;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/commands.md must be what {@link CommandDocs} generates from the table. */
class CommandDocsTest {

    private static final Path DOC = Path.of("..", "docs", "commands.md");

    @Test
    void commandsMd_matchesTheCommandTable() throws Exception {
        CommandTable t = new CommandTable();
        Families.registerAll(t);
        String generated = CommandDocs.markdown(t);
        if (Boolean.getBoolean("tide.regenerateDocs")) {
            Files.createDirectories(DOC.getParent());
            Files.writeString(DOC, generated, StandardCharsets.UTF_8);
        }
        String onDisk = Files.exists(DOC) ? Files.readString(DOC, StandardCharsets.UTF_8) : "";
        assertThat(onDisk)
                .as("docs/commands.md is stale; regenerate it with: "
                        + "mvn -q -pl server test -Dtest=CommandDocsTest -Dtide.regenerateDocs=true")
                .isEqualTo(generated);
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
