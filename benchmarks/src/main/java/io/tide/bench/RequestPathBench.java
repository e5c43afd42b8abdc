package io.tide.bench;

import io.netty.buffer.ByteBuf;
import io.tide.Server;
import io.tide.Tide;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One request through a running server's real path, minus the socket: decode ({@code RespDecoder}), dispatch
 * ({@code Dispatcher}, {@code ClientSession}, the command's handler against the shard's {@code Database}) and reply
 * encoding ({@code RespWriter}) into a reused output buffer ({@link RequestDriver}). Sixteen requests per batch, as
 * {@code redis-benchmark -P 16} sends them; the figures are per request. Confined to the one benchmark thread, which
 * posts each batch to the home shard's loop and waits for the replies.
 *
 * <p>{@code inline}: one shard, every key on the home shard. {@code hop}: two shards, the connection's home is shard 0
 * and every key lives on shard 1, so each request crosses to shard 1's thread and its reply comes back (batched per
 * loop iteration both ways, as in the server).
 *
 * <p>Commands: GET and SET of 16 keys with 32-byte values (overwrites), INCR of 16 counters, HGET and HSET of a field
 * of 16 ten-field hashes, LPUSH and RPOP in turn on 16 lists (so they stay short), ZADD of a member of 16 ten-member
 * sorted sets with a score that changes every batch.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar RequestPathBench -prof gc} (gc.alloc.rate.norm is bytes
 * allocated per request in the whole JVM: the shard threads' included).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
        "-XX:+UseCompactObjectHeaders", "-Xms1g", "-Xmx1g"})
public class RequestPathBench {

    private static final int BATCH = 16;
    private static final String VALUE = "0123456789abcdef0123456789abcdef";

    @Param({"get", "set", "incr", "hget", "hset", "lpush", "zadd"})
    String command;

    @Param({"inline", "hop"})
    String route;

    private Server server;
    private Path dir;
    private RequestDriver driver;
    private ByteBuf batch;
    /** Where the ZADD batch's changing score digit is, or -1. */
    private int[] scoreDigits;
    private int round;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("tide-bench");
        boolean hop = route.equals("hop");
        server = Tide.start("--port", "0", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
                "--loglevel", "warning", "--shards", hop ? "2" : "1");
        driver = new RequestDriver(server, 0);
        int owner = hop ? 1 : 0;
        List<String> keys = keysOn(owner, "k:", BATCH);
        List<byte[]> load = new ArrayList<>();
        List<byte[]> requests = new ArrayList<>();
        for (int i = 0; i < BATCH; i++) {
            String k = keys.get(i);
            switch (command) {
                case "get" -> {
                    load.add(RequestDriver.request("SET", k, VALUE));
                    requests.add(RequestDriver.request("GET", k));
                }
                case "set" -> requests.add(RequestDriver.request("SET", k, VALUE));
                case "incr" -> requests.add(RequestDriver.request("INCR", k));
                case "hget", "hset" -> {
                    for (int f = 0; f < 10; f++) load.add(RequestDriver.request("HSET", k, "field:" + f, VALUE));
                    requests.add(command.equals("hget") ? RequestDriver.request("HGET", k, "field:" + (i % 10))
                            : RequestDriver.request("HSET", k, "field:" + (i % 10), VALUE));
                }
                case "lpush" -> requests.add(i % 2 == 0 ? RequestDriver.request("LPUSH", k, VALUE)
                        : RequestDriver.request("RPOP", keys.get(i - 1)));
                case "zadd" -> {
                    for (int m = 0; m < 10; m++) load.add(RequestDriver.request("ZADD", k, "1" + m, "member:" + m));
                    requests.add(RequestDriver.request("ZADD", k, "1000.5", "member:" + (i % 10)));
                }
                default -> throw new IllegalArgumentException(command);
            }
        }
        if (!load.isEmpty()) {
            ByteBuf b = RequestDriver.batch(load);
            driver.runOnce(b, load.size());
            b.release();
        }
        batch = RequestDriver.batch(requests);
        if (command.equals("zadd")) {
            // The score's last integer digit ("100X.5") changes every batch, so each ZADD moves its member.
            List<Integer> at = new ArrayList<>();
            for (int i = 0; i < batch.writerIndex() - 6; i++) {
                if (batch.getByte(i) == '1' && batch.getByte(i + 1) == '0' && batch.getByte(i + 2) == '0'
                        && batch.getByte(i + 3) == '0' && batch.getByte(i + 4) == '.') at.add(i + 3);
            }
            scoreDigits = at.stream().mapToInt(Integer::intValue).toArray();
        }
    }

    /** {@code n} distinct keys with {@code prefix} that live on shard {@code shard}. */
    private List<String> keysOn(int shard, String prefix, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; out.size() < n; i++) {
            String k = prefix + String.format("%012d", i);
            if (server.context().shards().shardOf(k.getBytes()).id() == shard) out.add(k);
        }
        return out;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        driver.release();
        batch.release();
        server.close();
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long request() {
        if (scoreDigits != null) {
            byte d = (byte) ('0' + (round++ % 10));
            for (int at : scoreDigits) batch.setByte(at, d);
        }
        return driver.run(batch, BATCH);
    }
}
