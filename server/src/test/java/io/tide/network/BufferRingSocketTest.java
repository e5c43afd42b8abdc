package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.uring.IoUring;
import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * Client reads through io_uring's provided-buffer ring and multishot receives (decision 0026), against the same server
 * without the ring, through real sockets: the ring is in use by default; a request split into many reads, one spread
 * over many ring buffers, a client whose unread replies make the server stop reading it and then resume, and more
 * connections sending at once than the ring has buffers all get every reply, whole and in order.
 */
class BufferRingSocketTest {

    @BeforeAll
    static void ioUring() {
        Assumptions.assumeTrue(IoUring.isAvailable() && IoUring.isRegisterBufferRingSupported(),
                "io_uring with provided-buffer rings is not available on this kernel");
    }

    private static Server start(String ring) {
        return TestServers.start(1, "--io-driver", "io_uring", "--io-uring-buffer-ring", ring);
    }

    @ParameterizedTest(name = "io-uring-buffer-ring {0}")
    @ValueSource(strings = {"yes", "no"})
    void theRingIsUsedWhereConfigured(String ring) {
        try (Server s = start(ring)) {
            assertThat(s.ioBufferRing()).isEqualTo(ring.equals("yes"));
        }
    }

    @ParameterizedTest(name = "io-uring-buffer-ring {0}")
    @ValueSource(strings = {"yes", "no"})
    void aRequestSentAByteAtATime_isOneCommand(String ring) throws Exception {
        try (Server s = start(ring); RawClient c = new RawClient(s.port())) {
            byte[] request = RawClient.encode("SET", "dribbled", "a value sent one byte per write");
            for (byte b : request) {
                c.send(new byte[] {b});
                Thread.sleep(1);
            }
            assertThat(c.readReply()).isEqualTo("+OK\r\n");
            assertThat(c.call("GET", "dribbled")).isEqualTo("$31\r\na value sent one byte per write\r\n");
        }
    }

    @ParameterizedTest(name = "io-uring-buffer-ring {0}")
    @ValueSource(strings = {"yes", "no"})
    void largeValuesAndLongPipelines_spanManyBuffers(String ring) {
        try (Server s = start(ring); Jedis j = TestServers.jedis(s.port(), 2)) {
            byte[] big = new byte[3 * 1024 * 1024 + 17];
            for (int i = 0; i < big.length; i++) big[i] = (byte) (i * 31 + i / 4096);
            j.set("big".getBytes(StandardCharsets.US_ASCII), big);
            assertThat(j.get("big".getBytes(StandardCharsets.US_ASCII))).isEqualTo(big);

            var p = j.pipelined();
            var replies = new ArrayList<redis.clients.jedis.Response<Long>>();
            for (int i = 0; i < 20_000; i++) replies.add(p.incrBy("n" + (i % 7), i));
            p.sync();
            long[] sums = new long[7];
            for (int i = 0; i < 20_000; i++) {
                sums[i % 7] += i;
                assertThat(replies.get(i).get()).isEqualTo(sums[i % 7]);
            }
        }
    }

    /**
     * 300 GETs of a 64 KB value sent without reading: the replies pass the connection's high-water mark, so the server
     * stops reading it until they drain. Every reply then arrives, whole, and the connection still serves requests.
     */
    @ParameterizedTest(name = "io-uring-buffer-ring {0}")
    @ValueSource(strings = {"yes", "no"})
    void aClientThatStopsReading_isPausedAndResumed(String ring) throws Exception {
        int gets = 300;
        int size = 64 * 1024;
        try (Server s = start(ring); Socket socket = connect(s)) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] value = new byte[size];
            Arrays.fill(value, (byte) 'v');
            value[0] = 'F';
            value[size - 1] = 'L';
            set(out, in, new String(value, StandardCharsets.ISO_8859_1));
            byte[] all = gets(gets).toByteArray();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    out.write(all);
                    out.flush();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(300); // let the replies back up before reading any
            for (int i = 0; i < gets; i++) {
                assertThat(readLine(in)).as("reply %d", i).isEqualTo("$" + size);
                byte[] got = in.readNBytes(size + 2);
                assertThat(got[0]).isEqualTo((byte) 'F');
                assertThat(got[size - 1]).isEqualTo((byte) 'L');
                assertThat(new String(got, size, 2, StandardCharsets.US_ASCII)).isEqualTo("\r\n");
            }
            writer.join(10_000);
            out.write(RawClient.encode("PING"));
            out.flush();
            assertThat(readLine(in)).isEqualTo("+PONG");
        }
    }

    /** QUIT behind replies the client has not read yet: every reply, then +OK, then the end of the stream. */
    @ParameterizedTest(name = "io-uring-buffer-ring {0}")
    @ValueSource(strings = {"yes", "no"})
    void quitBehindUnreadReplies_sendsThemAllBeforeClosing(String ring) throws Exception {
        int gets = 40;
        int size = 64 * 1024;
        try (Server s = start(ring); Socket socket = connect(s)) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            set(out, in, "x".repeat(size));
            java.io.ByteArrayOutputStream all = gets(gets);
            all.writeBytes(RawClient.encode("QUIT"));
            out.write(all.toByteArray());
            out.flush();
            Thread.sleep(200);
            for (int i = 0; i < gets; i++) {
                assertThat(readLine(in)).as("reply %d", i).isEqualTo("$" + size);
                assertThat(in.readNBytes(size + 2)).hasSize(size + 2);
            }
            assertThat(readLine(in)).isEqualTo("+OK");
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    /** More connections than the ring has buffers (128) send at the same moment: each gets its own reply. */
    @ParameterizedTest(name = "io-uring-buffer-ring {0}")
    @ValueSource(strings = {"yes", "no"})
    void moreConnectionsThanRingBuffers_allAnswered(String ring) throws Exception {
        int n = 400;
        try (Server s = start(ring)) {
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < n; i++) sockets.add(connect(s));
                for (int round = 0; round < 3; round++) {
                    for (int i = 0; i < n; i++) {
                        sockets.get(i).getOutputStream().write(RawClient.encode("ECHO", "conn " + i + " round " + round));
                    }
                    for (int i = 0; i < n; i++) {
                        InputStream in = sockets.get(i).getInputStream();
                        String expected = "conn " + i + " round " + round;
                        assertThat(readLine(in)).isEqualTo("$" + expected.length());
                        assertThat(readLine(in)).isEqualTo(expected);
                    }
                }
            } finally {
                for (Socket socket : sockets) socket.close();
            }
        }
    }

    private static Socket connect(Server s) throws java.io.IOException {
        Socket socket = new Socket("127.0.0.1", s.port());
        socket.setSoTimeout(20_000);
        return socket;
    }

    /** SET v to {@code value} through a raw connection. */
    /** {@code n} pipelined {@code GET v} requests. */
    private static java.io.ByteArrayOutputStream gets(int n) {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        byte[] get = RawClient.encode("GET", "v");
        for (int i = 0; i < n; i++) all.writeBytes(get);
        return all;
    }

    private static void set(OutputStream out, InputStream in, String value) throws java.io.IOException {
        out.write(RawClient.encode("SET", "v", value));
        out.flush();
        assertThat(readLine(in)).isEqualTo("+OK");
    }

    private static String readLine(InputStream in) throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) throw new java.io.EOFException("closed after " + sb);
            sb.append((char) b);
        }
        assertThat(in.read()).isEqualTo('\n');
        return sb.toString();
    }
}
