package io.tide.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.GeneratedDocs;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class ConfigDocsTest {

    @Test
    void configurationDoc_matchesTheParameterDefinitions() throws IOException {
        String generated = ConfigDocs.markdown(ConfigRegistry.standard());
        GeneratedDocs.assertCurrent("configuration.md", generated, "ConfigDocsTest");
        assertThat(generated).contains("| `port` |").contains("| `shards` |").contains("| `requirepass` |");
    }
}
