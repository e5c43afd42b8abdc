package io.tide.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ConfigDocsTest {

    private static final Path DOC = Path.of("../docs/configuration.md");

    @Test
    void configurationDoc_matchesTheParameterDefinitions() throws IOException {
        String generated = ConfigDocs.markdown(ConfigRegistry.standard());
        if (Boolean.getBoolean("tide.regenerateDocs")) Files.writeString(DOC, generated);
        assertThat(Files.exists(DOC)).as("docs/configuration.md exists").isTrue();
        assertThat(Files.readString(DOC))
                .as("docs/configuration.md is stale; regenerate: bin/test -pl server -Dtest=ConfigDocsTest "
                        + "-Dtide.regenerateDocs=true")
                .isEqualTo(generated);
        assertThat(generated).contains("| `port` |").contains("| `shards` |").contains("| `requirepass` |");
    }
}
