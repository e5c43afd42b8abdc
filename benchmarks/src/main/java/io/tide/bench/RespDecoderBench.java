package io.tide.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.tide.protocol.ProtocolLimits;
import io.tide.protocol.Reply;
import io.tide.protocol.RespDecoder;
import io.tide.protocol.RespWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Confined to one JMH thread: RESP decoding of pipelined SETs, a GET and an EXISTS of 100 keys, and reply encoding: a bulk reply, GET's reply
 * written from a stored entry in place ({@link Reply.BulkView}), {@code +OK} and an integer beyond the shared ones.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar RespDecoderBench -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "-XX:+UseCompactObjectHeaders"})
public class RespDecoderBench {

    private final ProtocolLimits limits = new ProtocolLimits();
    private final List<Object> out = new ArrayList<>(32);
    private ByteBuf pipelinedSets;
    private ByteBuf singleGet;
    private ByteBuf exists100;
    private ByteBuf replyBuffer;
    private RespDecoder decoder;
    private final Reply bulkReply = Reply.bulk("v".repeat(32));
    /** An entry as the store lays it out (header, key, then the value) and a view of its value. */
    private final byte[] entry = ("\u0010xxxkey:000000000123" + "v".repeat(32)).getBytes(StandardCharsets.US_ASCII);
    private final Reply.BulkView entryView = new Reply.BulkView();
    private final Reply bigInteger = Reply.integer(123_456_789L);

    @Setup(Level.Trial)
    public void setUp() {
        StringBuilder sb = new StringBuilder();
        String value = "0123456789abcdef0123456789abcdef";
        for (int i = 0; i < 16; i++) {
            String key = String.format("key:%012d", 123 + i);
            sb.append("*3\r\n$3\r\nSET\r\n$").append(key.length()).append("\r\n").append(key)
                    .append("\r\n$").append(value.length()).append("\r\n").append(value).append("\r\n");
        }
        ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
        pipelinedSets = direct(alloc, sb.toString());
        singleGet = direct(alloc, "*2\r\n$3\r\nGET\r\n$16\r\nkey:000000000123\r\n");
        StringBuilder ex = new StringBuilder("*101\r\n$6\r\nEXISTS\r\n");
        for (int i = 0; i < 100; i++) ex.append("$16\r\n").append(String.format("key:%012d", i)).append("\r\n");
        exists100 = direct(alloc, ex.toString());
        replyBuffer = alloc.directBuffer(256);
        decoder = new RespDecoder(limits, () -> true);
    }

    private static ByteBuf direct(ByteBufAllocator alloc, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return alloc.directBuffer(b.length).writeBytes(b);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pipelinedSets.release();
        singleGet.release();
        exists100.release();
        replyBuffer.release();
    }

    @Benchmark
    public void decode16PipelinedSets(Blackhole bh) {
        decodeAll(pipelinedSets, bh);
    }

    @Benchmark
    public void decodeSingleGet(Blackhole bh) {
        decodeAll(singleGet, bh);
    }

    /** One command of many short arguments (EXISTS of 100 16-byte keys): the decoder's cost per argument. */
    @Benchmark
    public void decodeExists100(Blackhole bh) {
        decodeAll(exists100, bh);
    }

    @Benchmark
    public int encodeBulkReply() {
        replyBuffer.clear();
        RespWriter.write(replyBuffer, bulkReply, 2);
        return replyBuffer.writerIndex();
    }

    @Benchmark
    public int encodeEntryView() {
        replyBuffer.clear();
        RespWriter.write(replyBuffer, entryView.of(entry, entry.length - 32, 32), 2);
        return replyBuffer.writerIndex();
    }

    @Benchmark
    public int encodeOk() {
        replyBuffer.clear();
        RespWriter.write(replyBuffer, Reply.OK, 2);
        return replyBuffer.writerIndex();
    }

    @Benchmark
    public int encodeInteger() {
        replyBuffer.clear();
        RespWriter.write(replyBuffer, bigInteger, 2);
        return replyBuffer.writerIndex();
    }

    private void decodeAll(ByteBuf frame, Blackhole bh) {
        frame.readerIndex(0);
        out.clear();
        decoder.parse(frame, out);
        for (int i = 0; i < out.size(); i++) {
            bh.consume(out.get(i));
        }
    }
}
