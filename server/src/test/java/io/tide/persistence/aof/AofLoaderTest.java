package io.tide.persistence.aof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.persistence.aof.LoadPlan.AofCommand;
import io.tide.persistence.aof.LoadPlan.BaseFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AofLoaderTest {

    @TempDir
    Path dir;

    private Path aofDir() throws Exception {
        return Files.createDirectories(dir.resolve("appendonlydir"));
    }

    private static String cmd(String... argv) {
        StringBuilder sb = new StringBuilder("*").append(argv.length).append("\r\n");
        for (String a : argv) sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n")
                .append(a).append("\r\n");
        return sb.toString();
    }

    private static String group(long seq, int parts, String... commands) {
        return "#TIDE-GROUP:" + seq + ":" + parts + "\r\n" + cmd("MULTI") + String.join("", commands) + cmd("EXEC");
    }

    /** Writes one incr file per shard (shard k gets the k-th content) and the manifest. */
    private AofManifest incrFiles(String... perShard) throws Exception {
        AofManifest m = AofManifest.empty("appendonly.aof");
        for (int s = 0; s < perShard.length; s++) {
            m = m.withNewIncr(s);
            Files.writeString(aofDir().resolve(m.lastIncr(s).name()), perShard[s], StandardCharsets.ISO_8859_1);
        }
        m.write(aofDir());
        return m;
    }

    private LoadPlan load(boolean truncated) throws Exception {
        return AofLoader.load(dir, "appendonlydir", "appendonly.aof", truncated).orElseThrow();
    }

    private static List<String> texts(List<AofCommand> commands) {
        return commands.stream().map(AofCommand::toString).toList();
    }

    private long size(AofManifest m, int shard) throws Exception {
        return Files.size(aofDir().resolve(m.lastIncr(shard).name()));
    }

    @Test
    void noDirectoryOrNoManifest_isNoAof() throws Exception {
        assertThat(AofLoader.load(dir, "appendonlydir", "appendonly.aof", true)).isEmpty();
        aofDir();
        assertThat(AofLoader.load(dir, "appendonlydir", "appendonly.aof", true)).isEmpty();
    }

    @Test
    void corruptManifest_failsNamingFileAndLine() throws Exception {
        Files.writeString(aofDir().resolve("appendonly.aof.manifest"), "file x seq 1 type i\nbogus\n");
        assertThatThrownBy(() -> load(true)).isInstanceOf(AofException.class)
                .hasMessageContaining("appendonly.aof.manifest:2: Invalid AOF manifest file format");
    }

    @Test
    void missingListedFile_fails() throws Exception {
        AofManifest.empty("appendonly.aof").withNewIncr(0).write(aofDir());
        assertThatThrownBy(() -> load(true)).hasMessageContaining("appendonly.aof.1.incr.aof")
                .hasMessageContaining("does not exist");
    }

    @Test
    void replay_tracksSelect_consumesMultiExec_andSkipsAnnotations() throws Exception {
        incrFiles("#TS:1700000000\r\n" + cmd("SET", "a", "1") + cmd("SELECT", "3") + "#TS:1700000001\r\n"
                + cmd("MULTI") + cmd("INCR", "n") + cmd("SELECT", "5") + cmd("DEL", "x") + cmd("EXEC")
                + cmd("set", "b", "2"));
        LoadPlan plan = load(true);
        assertThat(texts(plan.commandList(0))).containsExactly("0: SET a 1", "3: INCR n", "5: DEL x", "5: set b 2");
        assertThat(plan.commands(0)).isEqualTo(4);
        assertThat(plan.cuts()).isEmpty();
        assertThat(plan.baseFile()).isNull();
    }

    @Test
    void tornTail_isCutToTheLastCompleteCommand_andTheFileTruncated() throws Exception {
        String good = cmd("SET", "a", "1") + cmd("SET", "b", "2");
        AofManifest m = incrFiles(good + "*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$5\r\nab");
        LoadPlan plan = load(true);
        assertThat(texts(plan.commandList(0))).containsExactly("0: SET a 1", "0: SET b 2");
        assertThat(size(m, 0)).isEqualTo(good.length());
        assertThat(plan.cuts()).singleElement().satisfies(c -> {
            assertThat(c.offset()).isEqualTo(good.length());
            assertThat(c.file().getFileName().toString()).isEqualTo("appendonly.aof.1.incr.aof");
            assertThat(c.reason()).contains("incomplete command");
        });
    }

    @Test
    void tornTail_withLoadTruncatedNo_refusesAndLeavesTheFile() throws Exception {
        String content = cmd("SET", "a", "1") + "*2\r\n$3\r\nDEL";
        AofManifest m = incrFiles(content);
        assertThatThrownBy(() -> load(false)).isInstanceOf(AofException.class)
                .hasMessageContaining("appendonly.aof.1.incr.aof")
                .hasMessageContaining("aof-load-truncated");
        assertThat(size(m, 0)).isEqualTo(content.length());
    }

    @Test
    void corruptionInTheMiddle_failsNamingFileAndOffset() throws Exception {
        String first = cmd("SET", "a", "1");
        incrFiles(first + "garbage\r\n" + cmd("SET", "b", "2"));
        assertThatThrownBy(() -> load(true)).isInstanceOf(AofException.class)
                .hasMessageContaining("appendonly.aof.1.incr.aof at offset " + first.length());
    }

    @Test
    void badBulkTerminator_isCorruption() throws Exception {
        incrFiles("*1\r\n$4\r\nPINGxx" + cmd("SET", "b", "2"));
        assertThatThrownBy(() -> load(true)).hasMessageContaining("at offset 12");
    }

    @Test
    void multiWithoutExecAtTheTail_isDropped() throws Exception {
        String good = cmd("SET", "a", "1");
        AofManifest m = incrFiles(good + cmd("MULTI") + cmd("SET", "b", "2") + cmd("SET", "c", "3"));
        LoadPlan plan = load(true);
        assertThat(texts(plan.commandList(0))).containsExactly("0: SET a 1");
        assertThat(size(m, 0)).isEqualTo(good.length());
        assertThat(plan.cuts().getFirst().reason()).contains("MULTI/EXEC");
    }

    @Test
    void tornFileThatIsNotTheLast_isCorruption() throws Exception {
        AofManifest m = AofManifest.empty("appendonly.aof").withNewIncr(0).withNewIncr(0);
        Files.writeString(aofDir().resolve(m.incr().get(0).name()), cmd("SET", "a", "1") + "*1\r\n");
        Files.writeString(aofDir().resolve(m.incr().get(1).name()), cmd("SET", "b", "1"));
        m.write(aofDir());
        assertThatThrownBy(() -> load(true)).hasMessageContaining("the truncated file is not the last file")
                .hasMessageContaining("appendonly.aof.1.incr.aof");
    }

    @Test
    void severalFiles_replayInOrder_eachStartingInDb0() throws Exception {
        AofManifest m = AofManifest.empty("appendonly.aof").withNewIncr(0).withNewIncr(0);
        Files.writeString(aofDir().resolve(m.incr().get(0).name()), cmd("SELECT", "2") + cmd("SET", "a", "1"));
        Files.writeString(aofDir().resolve(m.incr().get(1).name()), cmd("SET", "b", "1"));
        m.write(aofDir());
        assertThat(texts(load(true).commandList(0))).containsExactly("2: SET a 1", "0: SET b 1");
    }

    @Test
    void aofBase_isReplayedAndRdbBaseIsReported() throws Exception {
        AofManifest m = AofManifest.empty("appendonly.aof").withNewBase(false).withNewIncr(0);
        Files.writeString(aofDir().resolve(m.base().name()), cmd("SET", "base", "1"));
        Files.writeString(aofDir().resolve(m.lastIncr(0).name()), cmd("SET", "incr", "1"));
        m.write(aofDir());
        LoadPlan plan = load(true);
        assertThat(plan.baseFormat()).isEqualTo(BaseFormat.AOF);
        assertThat(plan.baseCommands()).isEqualTo(1);
        try (LoadPlan.Replay r = plan.replayBase()) {
            assertThat(r.next()).isTrue();
            assertThat(new String(r.argv()[1], StandardCharsets.UTF_8)).isEqualTo("base");
            assertThat(r.next()).isFalse();
        }

        Files.delete(aofDir().resolve(m.base().name()));
        AofManifest rdb = m.withNewBase(true);
        Files.write(aofDir().resolve(rdb.base().name()), "REDIS0010\u00fa...".getBytes(StandardCharsets.ISO_8859_1));
        rdb.withoutHistory().write(aofDir());
        LoadPlan p2 = load(true);
        assertThat(p2.baseFormat()).isEqualTo(BaseFormat.RDB);
        assertThat(p2.baseFile()).isEqualTo(aofDir().resolve("appendonly.aof.2.base.rdb"));
        assertThat(texts(p2.commandList(0))).containsExactly("0: SET incr 1");
    }

    @Test
    void crossShardGroup_missingAPart_cutsTheShardsThatHaveOne() throws Exception {
        String s0 = cmd("SET", "a", "1") + group(1, 2, cmd("SET", "b", "1"));
        String s0tail = group(2, 2, cmd("DEL", "b")) + cmd("SET", "later", "1");
        String s1 = group(1, 2, cmd("SET", "c", "1")) + cmd("SET", "d", "1");
        AofManifest m = incrFiles(s0 + s0tail, s1);
        assertThatThrownBy(() -> load(false)).hasMessageContaining("aof-load-truncated")
                .hasMessageContaining("#TIDE-GROUP:2:2");
        assertThat(size(m, 0)).as("refusing changes nothing").isEqualTo((s0 + s0tail).length());
        LoadPlan plan = load(true);
        assertThat(texts(plan.commandList(0))).containsExactly("0: SET a 1", "0: SET b 1");
        assertThat(texts(plan.commandList(1))).containsExactly("0: SET c 1", "0: SET d 1");
        assertThat(plan.commands(0)).isEqualTo(2);
        assertThat(plan.commands(1)).isEqualTo(2);
        assertThat(size(m, 0)).isEqualTo(s0.length());
        assertThat(plan.cuts()).singleElement().satisfies(c -> {
            assertThat(c.shard()).isZero();
            assertThat(c.offset()).isEqualTo(s0.length());
            assertThat(c.reason()).contains("#TIDE-GROUP:2:2").contains("1 of 2");
        });
    }

    @Test
    void crossShardGroup_cutCascades_whenItDropsAPartOfAnotherGroup() throws Exception {
        // Group 7 (shards 1 and 2) lost shard 2's part: shard 1 is cut before it, which drops shard 1's part
        // of group 5 too, so shard 0 is cut before its part of group 5.
        String s0keep = cmd("SET", "x0", "1");
        String s0 = s0keep + group(5, 2, cmd("SET", "g5", "0")) + cmd("SET", "y0", "1");
        String s1 = group(7, 2, cmd("SET", "g7", "1")) + group(5, 2, cmd("SET", "g5", "1"));
        String s2 = cmd("SET", "z2", "1");
        AofManifest m = incrFiles(s0, s1, s2);
        LoadPlan plan = load(true);
        assertThat(texts(plan.commandList(0))).containsExactly("0: SET x0 1");
        assertThat(plan.commandList(1)).isEmpty();
        assertThat(texts(plan.commandList(2))).containsExactly("0: SET z2 1");
        assertThat(size(m, 0)).isEqualTo(s0keep.length());
        assertThat(size(m, 1)).isZero();
        assertThat(plan.cuts()).extracting(LoadPlan.Cut::shard).containsExactlyInAnyOrder(0, 1);
    }

    @Test
    void tornGroupPart_atTheTail_isCutWithItsMarker() throws Exception {
        String good = cmd("SET", "a", "1");
        incrFiles(good + "#TIDE-GROUP:3:2\r\n" + cmd("MULTI") + cmd("SET", "b", "1"), group(3, 2, cmd("SET", "c", "1")));
        LoadPlan plan = load(true);
        assertThat(texts(plan.commandList(0))).containsExactly("0: SET a 1");
        assertThat(plan.commandList(1)).as("the other part of group 3 goes too").isEmpty();
    }

    @Test
    void markerNotFollowedByMulti_isCorruption() throws Exception {
        incrFiles("#TIDE-GROUP:3:2\r\n" + cmd("SET", "b", "1") + cmd("SET", "c", "1"));
        assertThatThrownBy(() -> load(true)).hasMessageContaining("at offset 0")
                .hasMessageContaining("#TIDE-GROUP not followed by MULTI");
    }

    @Test
    void writerOutput_roundTripsThroughTheLoader_withTimestamps() throws Exception {
        AofManifest m = AofManifest.empty("appendonly.aof").withNewIncr(0).withNewIncr(1);
        m.write(aofDir());
        Executor inline = Runnable::run;
        try (AofFsync fsync = new AofFsync(2000)) {
            AofWriter w0 = new AofWriter(aofDir().resolve(m.lastIncr(0).name()), AofWriter.FsyncPolicy.NO, true,
                    fsync, inline);
            AofWriter w1 = new AofWriter(aofDir().resolve(m.lastIncr(1).name()), AofWriter.FsyncPolicy.NO, true,
                    fsync, inline);
            w0.appendCommand(0, argv("SET", "a", "1"));
            w0.appendGroup(1, 2, 4, List.<byte[][]>of(argv("DEL", "k1")));
            w1.appendGroup(1, 2, 4, List.<byte[][]>of(argv("SET", "k2", "v")));
            w1.appendCommand(4, argv("INCR", "n"));
            w0.appendGroup(2, 2, 0, List.<byte[][]>of(argv("DEL", "k3")));  // its other part never written
            w0.close();
            w1.close();
        }
        LoadPlan plan = load(true);
        assertThat(texts(plan.commandList(0))).containsExactly("0: SET a 1", "4: DEL k1");
        assertThat(texts(plan.commandList(1))).containsExactly("4: SET k2 v", "4: INCR n");
    }

    private static byte[][] argv(String... words) {
        byte[][] a = new byte[words.length][];
        for (int i = 0; i < words.length; i++) a[i] = words[i].getBytes(StandardCharsets.UTF_8);
        return a;
    }

    @Test
    void largeAof_streamsQuickly() throws Exception {
        AofManifest m = AofManifest.empty("appendonly.aof").withNewIncr(0);
        m.write(aofDir());
        int n = 1_000_000;
        try (AofFsync fsync = new AofFsync(2000)) {
            AofWriter w = new AofWriter(aofDir().resolve(m.lastIncr(0).name()), AofWriter.FsyncPolicy.NO, false,
                    fsync, Runnable::run);
            byte[][] a = argv("SET", "key:000000", "value-value-value");
            for (int i = 0; i < n; i++) {
                w.appendCommand(0, a);
                if ((i & 1023) == 0) w.flush();
            }
            w.close();
        }
        long t0 = System.nanoTime();
        LoadPlan plan = load(true);
        long[] count = {0};
        long[] bytes = {0};
        plan.replay(0, (db, argv) -> {
            count[0]++;
            bytes[0] += argv[2].length;
        });
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(count[0]).isEqualTo(n);
        assertThat(plan.commands(0)).isEqualTo(n);
        assertThat(bytes[0]).isEqualTo(17L * n);
        assertThat(ms).as("scan + replay of 1M commands took " + ms + " ms").isLessThan(15_000);
        System.out.println("AofLoaderTest: 1M commands scanned and replayed in " + ms + " ms");
    }

    @Test
    void optionalEmpty_forManifestWithNoFiles() throws Exception {
        Files.writeString(aofDir().resolve("appendonly.aof.manifest"), "# nothing\n");
        Optional<LoadPlan> p = AofLoader.load(dir, "appendonlydir", "appendonly.aof", true);
        assertThat(p).isEmpty();
    }
}
