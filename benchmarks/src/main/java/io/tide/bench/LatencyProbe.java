package io.tide.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * An open-loop latency client for any RESP server: requests leave at a fixed rate whatever the replies do, and each
 * latency is measured from the moment the request was due to leave (not from when it left), so a stall of the server
 * counts for every request it held back (no coordinated omission). redis-benchmark is closed-loop: it sends the next
 * request when the last reply came, so a pause hides most of the requests it delayed.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.tide.bench.LatencyProbe --port 6379 --rate 50000 --seconds 30 \
 *      [--conns 8] [--keys 100000] [--op get|set] [--dsize 32] [--warmup 5]
 * </pre>
 *
 * Keys are {@code key:%012d} over {@code --keys} (the names {@code bin/bench-vs-redis} loads). Each connection has a
 * sender thread (requests due every conns/rate seconds, one at a time, pipelining when replies lag) and a reader
 * thread blocked in the socket's read (neither spins: the client shares the machine with the server); the reader
 * records into a histogram per connection, merged at the end. Prints one line: the requests, the
 * achieved rate, p50/p99/p99.9/p99.99/max in milliseconds and the client's own GC collections during the run (a
 * client pause would show as server latency; the client allocates nothing per request, so there should be none).
 */
public final class LatencyProbe {
    private static final long HIGHEST = 60_000_000_000L; // 60 s in ns

    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 6379, conns = 8, keys = 100_000, dsize = 32;
        double rate = 10_000, seconds = 30, warmup = 5;
        boolean set = false;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--host" -> host = v;
                case "--port" -> port = Integer.parseInt(v);
                case "--rate" -> rate = Double.parseDouble(v);
                case "--seconds" -> seconds = Double.parseDouble(v);
                case "--warmup" -> warmup = Double.parseDouble(v);
                case "--conns" -> conns = Integer.parseInt(v);
                case "--keys" -> keys = Integer.parseInt(v);
                case "--dsize" -> dsize = Integer.parseInt(v);
                case "--op" -> set = v.equalsIgnoreCase("set");
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (warmup > 0) run(host, port, conns, keys, dsize, rate, warmup, set);
        long gc0 = collections();
        Result r = run(host, port, conns, keys, dsize, rate, seconds, set);
        long gcs = collections() - gc0;
        Histogram h = r.histogram;
        System.out.printf("op=%s requests=%d rate=%.0f/s p50=%.3fms p99=%.3fms p99.9=%.3fms p99.99=%.3fms "
                        + "max=%.3fms client_gcs=%d%n", set ? "SET" : "GET", h.getTotalCount(),
                h.getTotalCount() / r.seconds, ms(h.getValueAtPercentile(50)), ms(h.getValueAtPercentile(99)),
                ms(h.getValueAtPercentile(99.9)), ms(h.getValueAtPercentile(99.99)), ms(h.getMaxValue()), gcs);
    }

    private static double ms(long ns) { return ns / 1e6; }

    private static long collections() {
        long n = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) n += Math.max(0, b.getCollectionCount());
        return n;
    }

    private record Result(Histogram histogram, double seconds) {}

    private static Result run(String host, int port, int conns, int keys, int dsize, double rate, double seconds,
                              boolean set) throws Exception {
        long interval = (long) (1e9 * conns / rate);
        long start = System.nanoTime() + 50_000_000L;
        long end = start + (long) (seconds * 1e9);
        List<Conn> list = new ArrayList<>();
        for (int i = 0; i < conns; i++) {
            // Connections start staggered across one interval, so that the rate is even, not in bursts of conns.
            list.add(new Conn(host, port, keys, dsize, set, start + interval * i / conns, interval, end, i));
        }
        for (Conn c : list) c.start();
        Histogram all = new Histogram(HIGHEST, 3);
        for (Conn c : list) {
            c.join();
            if (c.failure != null) throw c.failure;
            all.add(c.histogram);
        }
        return new Result(all, seconds);
    }

    /** One connection: a sender at a fixed schedule and a reader that records each reply's latency. */
    private static final class Conn {
        final Socket socket;
        final OutputStream out;
        final InputStream in;
        final Histogram histogram = new Histogram(HIGHEST, 3);
        final long[] due = new long[1 << 20]; // due times of requests in flight, a ring (sender writes, reader reads)
        volatile long received;
        final long first, interval, total;
        final int keys;
        final boolean set;
        final byte[] request;
        final int keyOffset;
        final SplittableRandom random;
        Thread sender, reader;
        volatile Exception failure;

        Conn(String host, int port, int keys, int dsize, boolean set, long first, long interval, long end, int seed)
                throws IOException {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port));
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
            this.first = first;
            this.interval = interval;
            this.total = Math.max(0, (end - first + interval - 1) / interval);
            this.keys = keys;
            this.set = set;
            this.random = new SplittableRandom(seed);
            String value = "x".repeat(dsize);
            String head = set ? "*3\r\n$3\r\nSET\r\n$16\r\n" : "*2\r\n$3\r\nGET\r\n$16\r\n";
            keyOffset = head.length() + 4; // "key:" then 12 digits
            String tail = set ? "\r\n$" + dsize + "\r\n" + value + "\r\n" : "\r\n";
            request = (head + "key:000000000000" + tail).getBytes(StandardCharsets.US_ASCII);
        }

        void start() {
            sender = Thread.ofPlatform().name("probe-send").start(this::send);
            reader = Thread.ofPlatform().name("probe-read").start(this::read);
        }

        void join() throws InterruptedException {
            sender.join();
            reader.join();
            try {
                socket.close();
            } catch (IOException ignored) {
            }
        }

        private void send() {
            try {
                for (long n = 0; n < total; n++) {
                    long t = first + n * interval;
                    long wait;
                    // parkNanos, not a spin: the client shares the machine with the servers it measures. The timer's
                    // slack (tens of microseconds) delays sends alike for every server, and counts in the latency.
                    while ((wait = t - System.nanoTime()) > 0) LockSupport.parkNanos(wait);
                    int k = random.nextInt(keys);
                    for (int i = keyOffset + 11; i >= keyOffset; i--) {
                        request[i] = (byte) ('0' + k % 10);
                        k /= 10;
                    }
                    while (n - received >= due.length) LockSupport.parkNanos(100_000);
                    due[(int) (n & (due.length - 1))] = t;
                    out.write(request);
                }
            } catch (IOException e) {
                failure = e;
            }
        }

        private void read() {
            try {
                // Blocks in the socket's read: each reply answers the request sent n-th, whose due time the sender
                // stored before writing it.
                for (long n = 0; n < total; n++) {
                    skipReply();
                    histogram.recordValue(Math.min(HIGHEST, System.nanoTime() - due[(int) (n & (due.length - 1))]));
                    received = n + 1;
                }
            } catch (IOException e) {
                failure = e;
            }
        }

        /** Reads one reply: +OK, -ERR ..., :n or a bulk ($-1 or $len + bytes). */
        private void skipReply() throws IOException {
            int type = in.read();
            if (type < 0) throw new IOException("connection closed");
            long len = 0;
            boolean negative = false;
            int b;
            while ((b = in.read()) != '\r') {
                if (b < 0) throw new IOException("connection closed");
                if (type == '$') {
                    if (b == '-') negative = true;
                    else len = len * 10 + (b - '0');
                }
            }
            in.read(); // \n
            if (type == '-') throw new IOException("server error reply");
            if (type == '$' && !negative) {
                for (long left = len + 2; left > 0; ) {
                    long skipped = in.skip(left);
                    if (skipped > 0) left -= skipped;
                    else if (in.read() < 0) throw new IOException("connection closed");
                    else left--;
                }
            }
        }
    }
}
