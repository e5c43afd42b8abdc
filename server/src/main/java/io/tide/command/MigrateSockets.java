package io.tide.command;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Confined to one thread: each shard thread and the coordinator have their own ({@link ServerContext#migrateSockets}),
 * and only {@link #closeAll} runs elsewhere, once the server's threads have stopped. MIGRATE's cache of connections
 * to target instances, as Redis's migrate_cached_sockets: by {@code host:port}, at most 64 (a full cache drops its
 * least recently used one), closed after 10 s unused (by the shard's cron, and before each lookup). Each connection
 * remembers the database it last selected, so MIGRATE sends SELECT only when the target database changes.
 *
 * <p>I/O is synchronous with a timeout, as Redis's syncio: a non-blocking channel waited on by a selector of its own,
 * so that neither a connect, a write nor a read can block the thread for longer than the command's timeout. A
 * connection refused (or a port no socket can have) is not reported at connect: like Redis, whose non-blocking
 * connect learns of it only when it writes, the connection fails on its first write.
 */
public final class MigrateSockets {

    /** Redis's MIGRATE_SOCKET_CACHE_ITEMS. */
    static final int MAX_ITEMS = 64;
    /** Redis's MIGRATE_SOCKET_CACHE_TTL, in ms. */
    static final long IDLE_MS = 10_000;

    private final LinkedHashMap<String, Target> byName = new LinkedHashMap<>(16, 0.75f, true);

    /** Connecting failed or timed out: MIGRATE answers "IOERR error or timeout connecting to the client". */
    public static final class ConnectFailed extends Exception {
        ConnectFailed(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The cached connection to {@code host:port}, or a new one (connected within {@code timeoutMs}). Closes the
     * connections idle for more than 10 s first.
     */
    public Target get(String host, int port, long timeoutMs, long nowMs) throws ConnectFailed {
        closeIdle(nowMs);
        String name = host + ":" + port;
        Target t = byName.get(name);
        if (t != null) {
            t.lastUse = nowMs;
            return t;
        }
        if (byName.size() >= MAX_ITEMS) {
            Iterator<Target> oldest = byName.values().iterator();
            oldest.next().closeQuietly();
            oldest.remove();
        }
        t = Target.connect(name, host, port, timeoutMs);
        t.lastUse = nowMs;
        byName.put(name, t);
        return t;
    }

    /** Drops {@code t} from the cache and closes it (after an error on it); idempotent. */
    public void close(Target t) {
        byName.remove(t.name, t);
        t.closeQuietly();
    }

    /** Closes the connections unused for more than 10 s (Redis's migrateCloseTimedoutSockets). */
    public void closeIdle(long nowMs) {
        if (byName.isEmpty()) return;
        for (Iterator<Map.Entry<String, Target>> it = byName.entrySet().iterator(); it.hasNext(); ) {
            Target t = it.next().getValue();
            if (nowMs - t.lastUse > IDLE_MS) {
                t.closeQuietly();
                it.remove();
            }
        }
    }

    /** Closes every connection (server stop). */
    public void closeAll() {
        for (Target t : byName.values()) t.closeQuietly();
        byName.clear();
    }

    /** How many connections are cached. */
    public int size() {
        return byName.size();
    }

    /** One connection to a target instance. Confined to the thread of the cache that holds it. */
    public static final class Target {
        private final String name;
        private final SocketChannel channel;
        private final Selector selector;
        /** Why the connection failed while it was being made, reported by the first write (see the class comment). */
        private IOException failed;
        private final ByteBuffer in = ByteBuffer.allocate(4096).flip();
        /** The database last selected on the target; -1 when unknown (a new connection, or after an error). */
        private long lastDb = -1;
        private long lastUse;

        private Target(String name, SocketChannel channel, Selector selector, IOException failed) {
            this.name = name;
            this.channel = channel;
            this.selector = selector;
            this.failed = failed;
        }

        static Target connect(String name, String host, int port, long timeoutMs) throws ConnectFailed {
            InetSocketAddress addr = new InetSocketAddress(host, port < 0 || port > 65535 ? 0 : port);
            if (addr.isUnresolved()) throw new ConnectFailed("cannot resolve " + host);
            SocketChannel ch = null;
            Selector sel = null;
            try {
                ch = SocketChannel.open();
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                sel = Selector.open();
                SelectionKey key = ch.register(sel, SelectionKey.OP_CONNECT);
                IOException refused = null;
                try {
                    if (port < 0 || port > 65535) throw new java.net.ConnectException("invalid port " + port);
                    boolean done = ch.connect(addr);
                    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
                    while (!done) {
                        long left = (deadline - System.nanoTime()) / 1_000_000;
                        if (left <= 0) throw new ConnectFailed("timeout connecting to " + name);
                        if (sel.select(left) > 0) {
                            sel.selectedKeys().clear();
                            done = ch.finishConnect();
                        }
                    }
                } catch (java.net.ConnectException e) {
                    // Redis's non-blocking connect learns of a refusal only at its first write: so does this.
                    refused = e;
                }
                if (key.isValid()) key.interestOps(0); // a failed connect cancels its key
                return new Target(name, ch, sel, refused);
            } catch (ConnectFailed e) {
                closeBoth(ch, sel);
                throw e;
            } catch (IOException e) {
                closeBoth(ch, sel);
                throw new ConnectFailed(e.getMessage());
            }
        }

        /** The database last selected on the target, -1 when unknown. */
        public long lastDb() { return lastDb; }

        public void lastDb(long db) { lastDb = db; }

        /** Writes all of {@code bytes}, waiting at most {@code timeoutMs} for each chunk of progress. */
        public void write(byte[] bytes, long timeoutMs) throws IOException {
            if (failed != null) throw failed;
            ByteBuffer b = ByteBuffer.wrap(bytes);
            SelectionKey key = channel.keyFor(selector);
            try {
                while (b.hasRemaining()) {
                    if (channel.write(b) > 0) continue;
                    key.interestOps(SelectionKey.OP_WRITE);
                    int ready = selector.select(timeoutMs);
                    selector.selectedKeys().clear();
                    if (ready == 0) throw new SocketTimeoutException("timeout writing to " + name);
                }
            } finally {
                if (key.isValid()) key.interestOps(0);
            }
        }

        /**
         * Reads one reply line (Redis's syncReadLine: a simple string or an error, without its CRLF), waiting at most
         * {@code timeoutMs} for it.
         */
        public String readLine(long timeoutMs) throws IOException {
            if (failed != null) throw failed;
            long deadline = System.nanoTime() + timeoutMs * 1_000_000;
            StringBuilder line = new StringBuilder();
            SelectionKey key = channel.keyFor(selector);
            try {
                while (true) {
                    while (in.hasRemaining()) {
                        byte c = in.get();
                        if (c == '\n') {
                            int n = line.length();
                            if (n > 0 && line.charAt(n - 1) == '\r') line.setLength(n - 1);
                            return line.toString();
                        }
                        line.append((char) (c & 0xff));
                    }
                    in.clear();
                    int n = channel.read(in);
                    in.flip();
                    if (n < 0) throw new EOFException("connection closed by " + name);
                    if (n > 0) continue;
                    long left = (deadline - System.nanoTime()) / 1_000_000;
                    if (left <= 0) throw new SocketTimeoutException("timeout reading from " + name);
                    key.interestOps(SelectionKey.OP_READ);
                    selector.select(left);
                    selector.selectedKeys().clear();
                }
            } finally {
                if (key.isValid()) key.interestOps(0);
            }
        }

        void closeQuietly() {
            closeBoth(channel, selector);
        }

        private static void closeBoth(SocketChannel ch, Selector sel) {
            try {
                if (sel != null) sel.close();
            } catch (IOException ignored) {
                // closing: nothing to do
            }
            try {
                if (ch != null) ch.close();
            } catch (IOException ignored) {
                // closing: nothing to do
            }
        }
    }
}
