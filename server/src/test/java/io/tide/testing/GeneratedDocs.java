package io.tide.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks that a generated page under docs/ is current; with {@code -Dtide.regenerateDocs=true} it
 * rewrites the page first. Thread-safe (stateless).
 */
public final class GeneratedDocs {

    private GeneratedDocs() {}

    /** {@code page} is relative to docs/, {@code testClass} the test that regenerates it. */
    public static void assertCurrent(String page, String generated, String testClass) throws IOException {
        Path doc = Path.of("..", "docs", page);
        if (Boolean.getBoolean("tide.regenerateDocs")) {
            Files.createDirectories(doc.getParent());
            Files.writeString(doc, generated, StandardCharsets.UTF_8);
        }
        String onDisk = Files.exists(doc) ? Files.readString(doc, StandardCharsets.UTF_8) : "";
        assertThat(onDisk)
                .as("docs/" + page + " is stale; regenerate it with: bin/test -pl server -Dtest=" + testClass
                        + " -Dtide.regenerateDocs=true")
                .isEqualTo(generated);
    }
}
