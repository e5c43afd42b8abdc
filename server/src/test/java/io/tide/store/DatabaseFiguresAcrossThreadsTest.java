package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.Race;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * used_memory sums every shard's {@link Database#usedBytes} from whichever shard checks memory before a command (and
 * the heap governor's thread), while each owner shard writes, and so resizes its table: a reader must get a figure,
 * never an exception, also as a resize ends. The race runs in a child JVM with the interpreter only: compiled, the
 * reader may load a field once where the source reads it twice, which hides the fault this guards against (a server's
 * first seconds run the interpreter and C1, which read it twice).
 */
class DatabaseFiguresAcrossThreadsTest {

    @Test
    void usedBytesReadElsewhereWhileTheOwnerGrowsAndEmptiesItsTable() throws Exception {
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xint", "-cp", System.getProperty("java.class.path"), Interpreted.class.getName()))
                .redirectErrorStream(true).start();
        boolean ended = p.waitFor(60, TimeUnit.SECONDS);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!ended) p.destroyForcibly();
        assertThat(ended).as("the child JVM ended").isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("owner runs").contains("reader runs");
    }

    /** The race itself: exits 1 with the reader's or owner's throwable, 0 with the run counts. */
    public static final class Interpreted {
        public static void main(String[] args) throws Exception {
            Database db = new Database(0);
            byte[][] keys = new byte[100][]; // from 16 slots: three resizes, each ending while the reader reads
            for (int i = 0; i < keys.length; i++) keys[i] = ("key:" + i).getBytes(StandardCharsets.US_ASCII);
            byte[] value = "value".getBytes(StandardCharsets.US_ASCII);
            Race.Outcome o = Race.run(() -> {
                for (byte[] k : keys) db.put(k, value, 0, 0);
                db.clear();
            }, () -> {
                if (db.usedBytes() < 0 || db.tableBytes(false) < 0) throw new AssertionError("a negative figure");
            }, 2_000);
            if (o.failure() != null) {
                o.failure().printStackTrace(System.out);
                System.exit(1);
            }
            System.out.println("owner runs " + o.ownerRuns() + ", reader runs " + o.readerRuns());
        }
    }
}
