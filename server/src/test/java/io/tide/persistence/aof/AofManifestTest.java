package io.tide.persistence.aof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.persistence.aof.AofManifest.AofFile;
import io.tide.persistence.aof.AofManifest.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AofManifestTest {

    @TempDir
    Path dir;

    private static final String REDIS_MANIFEST = """
            file appendonly.aof.2.base.rdb seq 2 type b
            file appendonly.aof.1.incr.aof seq 1 type h
            file appendonly.aof.2.incr.aof seq 2 type h
            file appendonly.aof.3.incr.aof seq 3 type h
            file appendonly.aof.4.incr.aof seq 4 type i
            file appendonly.aof.5.incr.aof seq 5 type i
            """;

    @Test
    void parse_readsRedis7Manifest_asOneStreamOnShard0() throws Exception {
        AofManifest m = AofManifest.parse(REDIS_MANIFEST, "m", "appendonly.aof");
        assertThat(m.base()).isEqualTo(new AofFile("appendonly.aof.2.base.rdb", 2, Type.BASE, 0));
        assertThat(m.history()).extracting(AofFile::seq).containsExactly(1L, 2L, 3L);
        assertThat(m.incr()).extracting(AofFile::name)
                .containsExactly("appendonly.aof.4.incr.aof", "appendonly.aof.5.incr.aof");
        assertThat(m.shards()).isEqualTo(1);
        assertThat(m.lastIncr(0).seq()).isEqualTo(5);
        assertThat(m.nextIncrSeq()).isEqualTo(6);
        assertThat(m.nextBaseSeq()).isEqualTo(3);
        assertThat(m.text()).as("a Redis manifest is written back byte for byte").isEqualTo(REDIS_MANIFEST);
    }

    @Test
    void parse_ignoresUnknownKeysAndComments_caseInsensitiveKeys() throws Exception {
        AofManifest m = AofManifest.parse("# comment\nFILE a.1.incr.aof SEQ 1 TYPE i future x\n", "m", "a");
        assertThat(m.incr()).containsExactly(new AofFile("a.1.incr.aof", 1, Type.INCR, 0));
    }

    @Test
    void shards_roundTrip_andSeqsAreGlobal() throws Exception {
        AofManifest m = AofManifest.empty("appendonly.aof").withNewBase(true);
        for (int s = 0; s < 3; s++) m = m.withNewIncr(s);
        assertThat(m.incr()).extracting(AofFile::name).containsExactly(
                "appendonly.aof.1.incr.aof", "appendonly.aof.2.s1.incr.aof", "appendonly.aof.3.s2.incr.aof");
        assertThat(m.text()).isEqualTo("""
                file appendonly.aof.1.base.rdb seq 1 type b
                file appendonly.aof.1.incr.aof seq 1 type i
                file appendonly.aof.2.s1.incr.aof seq 2 type i shard 1
                file appendonly.aof.3.s2.incr.aof seq 3 type i shard 2
                """);
        AofManifest back = AofManifest.parse(m.text(), "m", "appendonly.aof");
        assertThat(back.incr()).isEqualTo(m.incr());
        assertThat(back.shards()).isEqualTo(3);
        assertThat(back.incr(1)).extracting(AofFile::seq).containsExactly(2L);
    }

    @Test
    void rewrite_movesOldBaseAndAllButEachShardsLastIncrToHistory() throws Exception {
        AofManifest m = AofManifest.empty("a").withNewBase(true).withNewIncr(0).withNewIncr(1)
                .withNewIncr(0).withNewIncr(1)      // the rewrite opened these
                .withNewBase(true).withRewrittenIncrAsHistory();
        assertThat(m.base().name()).isEqualTo("a.2.base.rdb");
        assertThat(m.incr()).extracting(AofFile::seq).containsExactly(3L, 4L);
        assertThat(m.history()).extracting(AofFile::name)
                .containsExactlyInAnyOrder("a.1.base.rdb", "a.1.incr.aof", "a.2.s1.incr.aof");
        AofManifest back = AofManifest.parse(m.text(), "m", "a");
        assertThat(back.history()).isEqualTo(m.history());
        assertThat(back.nextIncrSeq()).isEqualTo(5);
        assertThat(back.nextBaseSeq()).isEqualTo(3);
    }

    @Test
    void write_isAtomicAndDeleteHistoryRemovesFilesAfterwards() throws Exception {
        AofManifest m = AofManifest.empty("appendonly.aof").withNewIncr(0).withNewBase(false).withNewIncr(0)
                .withRewrittenIncrAsHistory();
        Files.writeString(dir.resolve("appendonly.aof.1.incr.aof"), "old");
        m.write(dir);
        assertThat(Files.readString(dir.resolve("appendonly.aof.manifest"))).isEqualTo(m.text());
        assertThat(dir.resolve("temp-appendonly.aof.manifest")).doesNotExist();
        assertThat(AofManifest.read(dir, "appendonly.aof").history()).hasSize(1);
        AofManifest clean = m.deleteHistory(dir);
        assertThat(dir.resolve("appendonly.aof.1.incr.aof")).doesNotExist();
        assertThat(AofManifest.read(dir, "appendonly.aof").history()).isEmpty();
        assertThat(clean.incr()).extracting(AofFile::seq).containsExactly(2L);
        assertThat(clean.base().name()).isEqualTo("appendonly.aof.1.base.aof");
    }

    @Test
    void names_needingQuotes_areWrittenAsRedisReprAndReadBack() throws Exception {
        AofManifest m = AofManifest.empty("my file\t\"x\".aof").withNewIncr(0);
        assertThat(m.text()).isEqualTo("file \"my file\\t\\\"x\\\".aof.1.incr.aof\" seq 1 type i\n");
        assertThat(AofManifest.parse(m.text(), "m", "x").incr().get(0).name()).isEqualTo("my file\t\"x\".aof.1.incr.aof");
    }

    @Test
    void errors_nameTheFileAndLine() {
        assertThatThrownBy(() -> AofManifest.parse("", "/d/m", "a")).hasMessage("/d/m: Found an empty AOF manifest");
        assertThatThrownBy(() -> AofManifest.parse("file a seq 1 type i\n\n", "/d/m", "a"))
                .hasMessage("/d/m:2: Invalid AOF manifest file format: ''");
        assertThatThrownBy(() -> AofManifest.parse("file a seq 1\n", "/d/m", "a"))
                .hasMessage("/d/m:1: Invalid AOF manifest file format: 'file a seq 1'");
        assertThatThrownBy(() -> AofManifest.parse("file a seq 0 type i\n", "m", "a"))
                .hasMessageContaining("m:1: Invalid AOF manifest file format");
        assertThatThrownBy(() -> AofManifest.parse("file a/b seq 1 type i\n", "m", "a"))
                .hasMessageContaining("m:1: File can't be a path, just a filename");
        assertThatThrownBy(() -> AofManifest.parse("file a seq 2 type i\nfile b seq 2 type i\n", "m", "a"))
                .hasMessage("m:2: Found a non-monotonic sequence number");
        assertThatThrownBy(() -> AofManifest.parse("file a seq 1 type b\nfile b seq 2 type b\n", "m", "a"))
                .hasMessage("m:2: Found duplicate base file information");
        assertThatThrownBy(() -> AofManifest.parse("file a seq 1 type x\n", "m", "a"))
                .hasMessage("m:1: Unknown AOF file type 'x'");
        assertThatThrownBy(() -> AofManifest.parse("file a seq 1 type i shard -1\n", "m", "a"))
                .hasMessage("m:1: Invalid shard number '-1'");
        assertThatThrownBy(() -> AofManifest.parse("file \"a seq 1 type i\n", "m", "a"))
                .hasMessageContaining("m:1: Invalid AOF manifest file format");
        assertThatThrownBy(() -> AofManifest.parse("file a seq 1 type i", "m", "a"))
                .hasMessageContaining("m:1: ");
        assertThatThrownBy(() -> AofManifest.parse("file " + "x".repeat(1100) + " seq 1 type i\n", "m", "a"))
                .hasMessage("m:1: The AOF manifest file contains too long line");
    }
}
