package io.tide;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Holds the layering lines of the design: store knows no protocol, command or network; command and
 * shard know no Netty channel code; shard and store code takes no locks.
 */
class LayeringTest {

    private static final Path MAIN = Path.of("src/main/java/io/tide");

    /** Lines of the package's sources that import one of {@code prefixes} or use one of {@code keywords}. */
    private static List<String> violations(String pkg, List<String> prefixes, List<String> keywords)
            throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN.resolve(pkg))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i).trim();
                    if (line.startsWith("*") || line.startsWith("//") || line.startsWith("/*")) continue;
                    for (String prefix : prefixes) {
                        if (line.startsWith("import " + prefix)) out.add(MAIN.relativize(f) + ":" + (i + 1) + ": " + line);
                    }
                    for (String word : keywords) {
                        if (line.matches(".*\\b" + word + "\\b.*")) out.add(MAIN.relativize(f) + ":" + (i + 1) + ": " + line);
                    }
                }
            }
        }
        return out;
    }

    @Test
    void store_importsNoCommandNetworkProtocolOrNetty() throws IOException {
        assertThat(violations("store", List.of("io.tide.command", "io.tide.network", "io.tide.protocol",
                "io.netty"), List.of())).isEmpty();
    }

    @Test
    void command_importsNoNetty() throws IOException {
        assertThat(violations("command", List.of("io.netty", "io.tide.network"), List.of())).isEmpty();
    }

    @Test
    void protocolAndShard_importNoNetworkOrCommandLayerAbove() throws IOException {
        assertThat(violations("protocol", List.of("io.tide.network", "io.tide.command.family"), List.of())).isEmpty();
        assertThat(violations("shard", List.of("io.tide.network", "io.tide.command"), List.of())).isEmpty();
    }

    @Test
    void rdbCodec_dependsOnlyOnStoreAndUtil() throws IOException {
        assertThat(violations("persistence/rdb", List.of("io.tide.command", "io.tide.network", "io.tide.protocol",
                "io.tide.shard", "io.tide.script", "io.tide.pubsub", "io.tide.config", "io.netty"), List.of())).isEmpty();
    }

    @Test
    void replication_importsNoNetworkCommandOrNetty() throws IOException {
        assertThat(violations("replication", List.of("io.tide.command", "io.tide.network", "io.netty"), List.of()))
                .isEmpty();
    }

    @Test
    void storeAndShardData_takeNoLocks() throws IOException {
        assertThat(violations("store", List.of("java.util.concurrent.locks"), List.of("synchronized", "volatile")))
                .isEmpty();
    }
}
