package io.tide.replication;

import io.tide.config.ConfigRegistry;
import io.tide.persistence.AppendOnly;
import io.tide.persistence.Persistence;
import io.tide.shard.ShardSet;
import io.tide.store.EncodingLimits;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (see below for who owns what). The replica side of replication: REPLICAOF's link to a primary (a Redis or a Tide), its handshake, the full sync
 * (the primary's RDB, received into a file and loaded as at startup), partial resync with the cached replid and
 * offset, and the command stream, applied through the dispatcher. Thread-safe: one link thread ({@code tide-replica})
 * owns the socket; what INFO and ROLE read is volatile; {@link #replicaOf} and {@link #noOne} may be called from
 * any thread.
 *
 * <p>Applying the stream: the link thread gathers the commands it has read (never stopping inside a MULTI/EXEC) and
 * applies them as one coordinator operation with every shard parked, in order, in the database the stream selected;
 * so clients of this replica see a transaction or a cross-shard part of the stream whole. The offset (bytes of the
 * stream applied) moves after each applied batch and is what REPLCONF ACK reports, once a second and when the
 * primary asks with GETACK.
 */
public final class Replica implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Replica.class);
    private static final int BATCH = 1000;

    private final ConfigRegistry config;
    private final ShardSet shards;
    private final Persistence persistence;
    private final Primary primary;
    private volatile AppendOnly.Replayer replayer;
    private volatile Supplier<EncodingLimits> limits;
    private volatile Consumer<byte[]> function;
    private volatile Runnable flushFunctions;
    private volatile Runnable afterLoad = () -> { };
    private volatile java.util.function.IntSupplier boundPort = () -> 0;

    /** The link's generation: a new REPLICAOF or NO ONE ends the previous link thread. */
    private volatile long generation;
    private volatile String host;
    private volatile int port;
    private volatile Thread thread;
    private volatile Socket socket;
    /** The TLS material a tls-replication link connects with (the server's current one), or null before TLS is set. */
    private volatile Supplier<io.tide.tls.TlsMaterial> tls = () -> null;

    // For INFO and ROLE.
    private volatile String linkState = "connect";
    private volatile boolean linkUp;
    private volatile boolean syncing;
    private volatile long lastIoMs;
    /** When the link last went down (0: it never was up). */
    private volatile long linkDownSinceMs;
    private volatile long readOffset;
    /** The primary's replid and the offset applied (-1: nothing yet, a full sync is needed). */
    private volatile String masterReplid = "?";
    private volatile long offset = -1;
    private volatile long syncTotal = -1;
    /** The database the stream has selected; kept across a partial resync, reset by a full sync. */
    private final int[] streamDb = {0};
    private volatile long syncRead;
    /** INFO total_net_repl_input_bytes: the images' and the stream's bytes read from primaries (link thread). */
    private final java.util.concurrent.atomic.AtomicLong replInputBytes = new java.util.concurrent.atomic.AtomicLong();

    /** {@code n} more bytes of a full sync's image arrived. On the link thread. */
    private void imageRead(int n) {
        syncRead += n;
        replInputBytes.addAndGet(n);
        lastIoMs = System.currentTimeMillis();
    }

    /** INFO total_net_repl_input_bytes. */
    public long replInputBytes() { return replInputBytes.get(); }
    /** What REPLCONF ACK's FACK reports: the stream offset this replica's AOF has fsynced. */
    private final Fsynced fsynced = new Fsynced();

    /**
     * Thread-safe (the link thread adds, the link and ack threads read). Stream offsets paired with the AOF writers'
     * marks after the batch that reached them: the highest offset whose marks a completed fsync covers is the FACK
     * (Redis's fsynced_reploff on a replica). Bounded: past the limit the newest pair is replaced, which only makes
     * the FACK later, never earlier than the truth.
     */
    private final class Fsynced {
        private static final int LIMIT = 4096;
        private final java.util.ArrayDeque<Object[]> pending = new java.util.ArrayDeque<>(); // {Long offset, Marks}
        private long covered = -1;

        synchronized void reset() {
            pending.clear();
            covered = -1;
        }

        synchronized void add(long offset, AppendOnly.Marks marks) {
            if (pending.size() >= LIMIT) pending.pollLast();
            pending.addLast(new Object[] {offset, marks});
        }

        /** The FACK to send, or -1 for none (the AOF is off, or nothing is fsynced since the last full sync). */
        synchronized long offset() {
            AppendOnly aof = persistence.appendOnly();
            if (aof == null || !aof.enabled()) return -1;
            while (!pending.isEmpty() && aof.fsynced((AppendOnly.Marks) pending.peekFirst()[1])) {
                covered = Math.max(covered, (Long) pending.pollFirst()[0]);
            }
            return covered;
        }
    }

    public Replica(ConfigRegistry config, ShardSet shards, Persistence persistence, Primary primary) {
        this.config = config;
        this.shards = shards;
        this.persistence = persistence;
        this.primary = primary;
    }

    /**
     * Wires what applies the stream and loads the image: the dispatcher's replay, the encoding limits, how functions
     * of the image are restored and flushed, and what runs once an image is loaded (an AOF rewrite, so the AOF holds
     * the new dataset). Called once at startup, before any REPLICAOF.
     */
    /** Where a tls-replication link gets its certificates from: the server's current TLS material. */
    public void tls(Supplier<io.tide.tls.TlsMaterial> source) {
        this.tls = source;
    }

    public void bind(AppendOnly.Replayer replayer, Supplier<EncodingLimits> limits, Consumer<byte[]> function,
                     Runnable flushFunctions, Runnable afterLoad, java.util.function.IntSupplier boundPort) {
        this.afterLoad = afterLoad;
        this.boundPort = boundPort;
        this.replayer = replayer;
        this.limits = limits;
        this.function = function;
        this.flushFunctions = flushFunctions;
    }

    /** Whether this server replicates from a primary now. */
    public boolean active() {
        return host != null;
    }

    /**
     * Whether commands not flagged stale get -MASTERDOWN: a replica whose link is not up, with
     * replica-serve-stale-data no.
     */
    public boolean refusesStale() {
        return host != null && !linkUp && !config.getBool("replica-serve-stale-data");
    }

    /** Whether client writes get -READONLY: a replica with replica-read-only yes. */
    public boolean refusesWrites() {
        return host != null && config.getBool("replica-read-only");
    }

    public String host() { return host; }
    public int port() { return port; }
    public boolean linkUp() { return linkUp; }
    public boolean syncing() { return syncing; }
    public String linkState() { return linkState; }
    public long lastIoSecondsAgo() { return lastIoMs == 0 ? -1 : (System.currentTimeMillis() - lastIoMs) / 1000; }
    public long linkDownSinceSeconds() {
        return linkDownSinceMs == 0 ? -1 : (System.currentTimeMillis() - linkDownSinceMs) / 1000;
    }
    public long readOffset() { return Math.max(0, readOffset); }
    public long offset() { return Math.max(0, offset); }
    public String masterReplid() { return masterReplid; }
    public long syncTotalBytes() { return syncTotal; }
    public long syncReadBytes() { return syncRead; }

    /** Whether this replica has a history to continue (a completed sync): REPLICAOF NO ONE then keeps it. */
    public boolean hasHistory() {
        return host != null && offset >= 0;
    }

    /**
     * Before the first REPLICAOF of a server that was a primary: the link asks to continue this history (PSYNC with
     * our own replid and offset + 1), as Redis's replicationCacheMasterUsingMyself; {@code history} is what
     * {@link Primary#becomeReplica} returned.
     */
    public void adoptHistory(String[] history) {
        if (history == null || history[0] == null) return;
        masterReplid = history[0];
        offset = Long.parseLong(history[1]);
        readOffset = offset;
        streamDb[0] = 0;
    }

    /** REPLICAOF host port: returns false when already replicating from exactly that primary. */
    public synchronized boolean replicaOf(String h, int p) {
        if (h.equals(host) && p == port) return false;
        stopLink();
        host = h;
        port = p;
        linkState = "connect";
        long gen = ++generation;
        Thread t = Thread.ofPlatform().name("tide-replica").daemon(true).unstarted(() -> run(gen));
        thread = t;
        t.start();
        LOG.info("Connecting to MASTER {}:{}", h, p);
        return true;
    }

    /** REPLICAOF NO ONE: the link ends and this server is a primary, its history continuing the primary's. */
    public synchronized void noOne() {
        if (host == null) return;
        stopLink();
        LOG.info("MASTER MODE enabled (user request from replicaof no one)");
        host = null;
        port = 0;
        linkUp = false;
        if (offset >= 0) primary.continueHistory(masterReplid, offset);
    }

    private void stopLink() {
        generation++;
        Socket s = socket;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }
        // Not joined: REPLICAOF runs on a shard thread, and the link thread may be waiting for the coordinator to park
        // that very shard. The old thread sees its generation is over at its next step and applies nothing more.
        thread = null;
    }

    @Override
    public void close() {
        synchronized (this) {
            stopLink();
        }
    }

    // ------------------------------------------------------------------------------------------------ the link

    private void run(long gen) {
        while (gen == generation) {
            try {
                session(gen);
            } catch (IOException | RuntimeException e) {
                if (gen != generation) break;
                LOG.warn("Connection with master lost ({}:{}): {}", host, port, e.toString());
            } finally {
                if (linkUp) linkDownSinceMs = System.currentTimeMillis();
                linkUp = false;
                syncing = false;
                socket = null;
            }
            if (gen != generation) break;
            linkState = "connect";
            try {
                Thread.sleep(1000); // Redis's replicationCron reconnects once a second
            } catch (InterruptedException e) {
                break;
            }
        }
    }

    /** One connection: handshake, sync, then the stream until the link breaks. */
    private void session(long gen) throws IOException {
        linkState = "connecting";
        try (Socket plain = new Socket()) {
            socket = plain;
            plain.connect(new InetSocketAddress(host, port), 10_000);
            plain.setTcpNoDelay(true);
            plain.setSoTimeout((int) Math.min(Integer.MAX_VALUE, config.getLong("repl-timeout") * 1000));
            if (gen != generation) return;
            Socket s = plain;
            if (config.getBool("tls-replication")) {
                io.tide.tls.TlsMaterial m = tls.get();
                if (m == null) throw new IOException("TLS is not configured");
                s = m.clientHandshake(plain, host, port); // closing it closes the plain socket too
                socket = s;
            }
            InputStream in = new BufferedInputStream(s.getInputStream(), 64 * 1024);
            OutputStream out = s.getOutputStream();
            String auth = config.get("masterauth");
            send(out, "PING");
            expectOk(readLine(in), "PING", true);
            if (!auth.isEmpty()) {
                String user = config.get("masteruser");
                if (user.isEmpty()) send(out, "AUTH", auth);
                else send(out, "AUTH", user, auth);
                expectOk(readLine(in), "AUTH", false);
            }
            send(out, "REPLCONF", "listening-port", Integer.toString(listeningPort()));
            expectOk(readLine(in), "REPLCONF listening-port", false);
            String announceIp = config.get("replica-announce-ip");
            if (!announceIp.isEmpty()) {
                send(out, "REPLCONF", "ip-address", announceIp);
                expectOk(readLine(in), "REPLCONF ip-address", false);
            }
            send(out, "REPLCONF", "capa", "eof", "capa", "psync2");
            expectOk(readLine(in), "REPLCONF capa", false);
            String id = offset < 0 ? "?" : masterReplid;
            long from = offset < 0 ? -1 : offset + 1;
            send(out, "PSYNC", id, Long.toString(from));
            String reply;
            do {
                reply = readLine(in); // newlines keep the link alive while the primary prepares
            } while (reply.isEmpty());
            if (reply.startsWith("+FULLRESYNC")) {
                String[] w = reply.split(" ");
                String newId = w[1];
                long newOffset = Long.parseLong(w[2]);
                LOG.info("Full resync from master: {}:{}", newId, newOffset);
                fullSync(in, gen);
                fsynced.reset();
                fsynced.add(newOffset, null); // the image: fsynced once the AOF rewrite after the load is done
                masterReplid = newId;
                offset = newOffset;
                readOffset = newOffset;
                streamDb[0] = 0;
                primary.mirrorReset(newId, newOffset);
            } else if (reply.startsWith("+CONTINUE")) {
                String[] w = reply.split(" ");
                if (w.length > 1 && !w[1].equals(masterReplid)) masterReplid = w[1];
                readOffset = offset;
                LOG.info("Successful partial resynchronization with master.");
            } else {
                throw new IOException("unexpected reply to PSYNC: " + reply);
            }
            linkUp = true;
            linkState = "connected";
            lastIoMs = System.currentTimeMillis();
            LOG.info("MASTER <-> REPLICA sync: Finished with success");
            sendAck(out);
            stream(in, out, s, gen);
        } finally {
            socket = null;
        }
    }

    /** What REPLCONF listening-port announces: replica-announce-port, else the port actually bound. */
    private int listeningPort() {
        int announced = config.getInt("replica-announce-port");
        if (announced != 0) return announced;
        int tlsPort = config.getInt("tls-port");
        return config.getBool("tls-replication") && tlsPort != 0 ? tlsPort : boundPort.getAsInt(); // as Redis
    }

    /** The RDB: {@code $<size>} or {@code $EOF:<mark>}, into a file in {@code dir}, then loaded in place of the data. */
    private void fullSync(InputStream in, long gen) throws IOException {
        syncing = true;
        linkState = "sync";
        String head;
        do {
            head = readLine(in);
        } while (head.isEmpty());
        if (!head.startsWith("$")) throw new IOException("bad bulk header from master: " + head);
        String mode = config.get("repl-diskless-load");
        if (mode.equals("swapdb") || (mode.equals("on-empty-db") && datasetEmpty())) {
            fromSocket(in, head, gen, mode.equals("swapdb"));
            return;
        }
        Path dir = Path.of(config.get("dir"));
        Path temp = dir.resolve("temp-" + ProcessHandle.current().pid() + "-repl.rdb");
        syncRead = 0;
        try (OutputStream f = Files.newOutputStream(temp)) {
            if (head.startsWith("$EOF:")) {
                byte[] mark = head.substring(5).getBytes(StandardCharsets.US_ASCII);
                syncTotal = -1;
                readUntilMark(in, f, mark);
            } else {
                long size = Long.parseLong(head.substring(1));
                syncTotal = size;
                byte[] buf = new byte[64 * 1024];
                long left = size;
                while (left > 0) {
                    int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                    if (n < 0) throw new EOFException("the master closed the link during the RDB");
                    f.write(buf, 0, n);
                    left -= n;
                    imageRead(n);
                }
            }
        }
        if (gen != generation) throw new IOException("the link was replaced");
        LOG.info("MASTER <-> REPLICA sync: Flushing old data");
        load(temp);
        afterLoad.run();
        if (!config.get("save").isEmpty()) {
            Files.move(temp, persistence.rdbPath(), StandardCopyOption.REPLACE_EXISTING); // as Redis keeps it
        } else {
            Files.deleteIfExists(temp);
        }
        syncing = false;
    }

    /** Whether every database of every shard is empty (a racy read is fine: on-empty-db's choice, as Redis's). */
    private boolean datasetEmpty() {
        for (io.tide.shard.Shard s : shards.all()) {
            for (int i = 0; i < s.databases(); i++) if (s.db(i).size() > 0) return false;
        }
        return true;
    }

    /**
     * repl-diskless-load on-empty-db or swapdb: the image is parsed as it arrives from the socket. Into the emptied
     * databases (-LOADING meanwhile; emptied again if the sync fails), or with {@code swap} into new databases while
     * the old dataset keeps serving: once the image is complete and checked it is swapped in with every shard parked
     * (the old one goes, lazily under replica-lazy-flush); if the link fails first the old dataset stays.
     */
    private void fromSocket(InputStream in, String head, long gen, boolean swap) throws IOException {
        syncRead = 0;
        ImageStream image;
        if (head.startsWith("$EOF:")) {
            syncTotal = -1;
            image = new EofMarked(in, head.substring(5).getBytes(StandardCharsets.US_ASCII));
        } else {
            syncTotal = Long.parseLong(head.substring(1));
            image = new Bounded(in, syncTotal);
        }
        if (!swap) {
            LOG.info("MASTER <-> REPLICA sync: Flushing old data");
            emptyAll(config.getBool("replica-lazy-flush"));
            LOG.info("MASTER <-> REPLICA sync: Loading DB in memory (from the socket)");
            persistence.whileLoading(syncTotal, () -> {
                try {
                    persistence.loadReplicaImage(image, syncTotal, limits.get(), function, null);
                    image.checkEnd();
                    if (gen != generation) throw new IOException("the link was replaced");
                } catch (IOException | RuntimeException e) {
                    LOG.warn("Failed trying to load the MASTER synchronization DB from socket: {}", e.toString());
                    emptyAll(false); // as Redis: no half dataset (clients still get -LOADING until it is gone)
                    throw e;
                }
            });
            afterLoad.run();
            syncing = false;
            return;
        }
        io.tide.shard.Shard[] all = shards.all();
        io.tide.store.Database[][] fresh = new io.tide.store.Database[all.length][];
        for (io.tide.shard.Shard s : all) {
            fresh[s.id()] = new io.tide.store.Database[s.databases()];
            for (int i = 0; i < s.databases(); i++) {
                // Loaded keys get their access fields as the live policy keeps them (an LFU counter or an LRU clock).
                fresh[s.id()][i] = new io.tide.store.Database(i);
                fresh[s.id()][i].followAccessPolicy(s.db(i).accessPolicySource());
            }
        }
        List<byte[]> functions = new ArrayList<>();
        LOG.info("MASTER <-> REPLICA sync: Loading DB in memory (swapdb: the old dataset serves meanwhile)");
        persistence.loadReplicaImage(image, syncTotal, limits.get(), functions::add, fresh);
        image.checkEnd();
        if (gen != generation) throw new IOException("the link was replaced");
        boolean lazy = config.getBool("replica-lazy-flush");
        CompletableFuture<Void> swapped = new CompletableFuture<>();
        shards.coordinator().run(all, () -> {
            for (io.tide.shard.Shard s : all) {
                for (int i = 0; i < s.databases(); i++) {
                    io.tide.store.Database live = s.db(i);
                    live.clear(lazy); // the old contents, through the write seam (WATCH, blocked clients, ...)
                    live.swapContents(fresh[s.id()][i]);
                }
            }
            flushFunctions.run();
            for (byte[] f : functions) function.accept(f);
            swapped.complete(null);
        }, () -> swapped.completeExceptionally(new IOException("the server is stopping")));
        await(swapped);
        LOG.info("MASTER <-> REPLICA sync: Swapped the new dataset in");
        afterLoad.run();
        syncing = false;
    }

    /** Every database emptied and the functions flushed, with every shard parked. */
    private void emptyAll(boolean lazy) throws IOException {
        CompletableFuture<Void> flushed = new CompletableFuture<>();
        shards.coordinator().run(shards.all(), () -> {
            for (io.tide.shard.Shard s : shards.all()) {
                for (int i = 0; i < s.databases(); i++) s.db(i).clear(lazy);
            }
            flushFunctions.run();
            flushed.complete(null);
        }, () -> flushed.completeExceptionally(new IOException("the server is stopping")));
        await(flushed);
    }

    /** A full sync's image as the link delivers it, read where it is parsed; {@link #checkEnd} once it is. */
    private abstract static class ImageStream extends InputStream {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        /** The parser stopped at the RDB's end: the image must end exactly there. */
        abstract void checkEnd() throws IOException;
    }

    /** The first {@code size} bytes of the link: a {@code $<size>} image. */
    private final class Bounded extends ImageStream {
        private final InputStream in;
        private long left;

        Bounded(InputStream in, long size) {
            this.in = in;
            this.left = size;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left == 0) return -1;
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n < 0) throw new EOFException("the master closed the link during the RDB");
            left -= n;
            imageRead(n);
            return n;
        }

        @Override
        void checkEnd() throws IOException {
            if (left != 0) throw new IOException("the RDB ended " + left + " bytes before the size the master sent");
        }
    }

    /**
     * An {@code $EOF:<mark>} image, read where it is parsed: every byte but the last 40 read is handed on, so the
     * parser, which stops at the RDB's own end, never sees the mark, and the mark is checked after it. The primary
     * sends nothing after the mark until this replica's first ACK (as Tide and Redis 7 do), which
     * {@link #readUntilMark} relies on too.
     */
    private final class EofMarked extends ImageStream {
        private final InputStream in;
        private final byte[] mark;
        private byte[] buf = new byte[64 * 1024];
        private int start;
        private int end;

        EofMarked(InputStream in, byte[] mark) {
            this.in = in;
            this.mark = mark;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            while (end - start <= mark.length) {
                if (start > 0) {
                    System.arraycopy(buf, start, buf, 0, end - start);
                    end -= start;
                    start = 0;
                }
                if (end == buf.length) buf = Arrays.copyOf(buf, buf.length * 2);
                int n = in.read(buf, end, buf.length - end);
                if (n < 0) throw new EOFException("the master closed the link during the RDB");
                end += n;
                imageRead(n);
            }
            int n = Math.min(len, end - start - mark.length);
            System.arraycopy(buf, start, b, off, n);
            start += n;
            return n;
        }

        /** What is left after the parsed image must be exactly the mark. */
        @Override
        void checkEnd() throws IOException {
            while (end - start < mark.length) { // the parser stopped before the wrapper read the whole mark
                int n = in.read(buf, end, Math.min(buf.length - end, mark.length - (end - start)));
                if (n < 0) throw new EOFException("the master closed the link during the RDB");
                end += n;
            }
            if (end - start != mark.length || !Arrays.equals(buf, start, end, mark, 0, mark.length)) {
                throw new IOException("the RDB from the master does not end with its EOF mark");
            }
        }
    }

    private void readUntilMark(InputStream in, OutputStream f, byte[] mark) throws IOException {
        int m = mark.length;
        byte[] tail = new byte[m]; // the last m bytes read, not yet written
        int held = 0;
        byte[] buf = new byte[64 * 1024];
        while (true) {
            int n = in.read(buf);
            if (n < 0) throw new EOFException("the master closed the link during the RDB");
            imageRead(n);
            byte[] all = new byte[held + n];
            System.arraycopy(tail, 0, all, 0, held);
            System.arraycopy(buf, 0, all, held, n);
            if (all.length >= m && Arrays.equals(all, all.length - m, all.length, mark, 0, m)) {
                f.write(all, 0, all.length - m);
                return;
            }
            int keep = Math.min(m, all.length);
            f.write(all, 0, all.length - keep);
            System.arraycopy(all, all.length - keep, tail, 0, keep);
            held = keep;
        }
    }

    /** Replaces the dataset with the image: every database emptied and the functions flushed with every shard parked, then the load. */
    private void load(Path file) throws IOException {
        CompletableFuture<Void> flushed = new CompletableFuture<>();
        boolean lazy = config.getBool("replica-lazy-flush"); // the old dataset goes to the lazy-free thread
        shards.coordinator().run(shards.all(), () -> {
            for (io.tide.shard.Shard s : shards.all()) {
                for (int i = 0; i < s.databases(); i++) s.db(i).clear(lazy); // through the write seam (WATCH, ...)
            }
            flushFunctions.run();
            flushed.complete(null);
        }, () -> flushed.completeExceptionally(new IOException("the server is stopping")));
        await(flushed);
        LOG.info("MASTER <-> REPLICA sync: Loading DB in memory");
        persistence.loadReplicaImage(file, limits.get(), function);
    }

    // ------------------------------------------------------------------------------------------------ the stream

    /** One command read from the stream and the bytes it took. */
    private record Command(byte[][] argv, int bytes) {}

    private void stream(InputStream in, OutputStream out, Socket s, long gen) throws IOException {
        Thread acker = Thread.ofPlatform().name("tide-replica-ack").daemon(true).start(() -> {
            long lastMs = System.currentTimeMillis();
            long lastFack = fsynced.offset();
            while (gen == generation && !s.isClosed()) {
                try {
                    Thread.sleep(100);
                    long now = System.currentTimeMillis();
                    long fack = fsynced.offset();
                    // Once a second, as Redis; and as soon as the AOF fsynced more, so the primary's WAITAOF
                    // need not wait for the next second.
                    if (now - lastMs >= 1000 || fack > lastFack) {
                        lastMs = now;
                        lastFack = fack;
                        sendAck(out);
                    }
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        });
        int[] db = streamDb;
        List<Command> batch = new ArrayList<>();
        int multiDepth = 0;
        try {
            while (gen == generation) {
                Command c = readCommand(in);
                lastIoMs = System.currentTimeMillis();
                readOffset += c.bytes;
                if (c.argv.length == 0) { // a newline: in the offset and the mirrored backlog, nothing to apply
                    batch.add(c);
                    continue;
                }
                String name = new String(c.argv[0], StandardCharsets.US_ASCII).toLowerCase(java.util.Locale.ROOT);
                if (name.equals("replconf") && c.argv.length >= 2
                        && new String(c.argv[1], StandardCharsets.US_ASCII).equalsIgnoreCase("getack")) {
                    batch.add(c);
                    apply(batch, db, gen);
                    sendAck(out, offset - c.bytes); // the offset before GETACK, as Redis
                    continue;
                }
                if (name.equals("multi")) multiDepth = 1;
                batch.add(c);
                if (name.equals("exec") || name.equals("discard")) multiDepth = 0;
                if (multiDepth == 0 && (batch.size() >= BATCH || in.available() == 0)) apply(batch, db, gen);
            }
        } finally {
            acker.interrupt();
        }
    }

    /** Applies the gathered commands with every shard parked, in order; then the offset covers them. */
    private void apply(List<Command> batch, int[] db, long gen) throws IOException {
        if (batch.isEmpty()) return;
        if (gen != generation) throw new IOException("the link was replaced");
        List<Command> todo = List.copyOf(batch);
        batch.clear();
        CompletableFuture<AppendOnly.Marks> done = new CompletableFuture<>();
        shards.coordinator().run(shards.all(), () -> {
            if (gen != generation) {
                done.completeExceptionally(new IOException("the link was replaced"));
                return;
            }
            for (Command c : todo) {
                if (c.argv.length == 0) continue;
                String name = new String(c.argv[0], StandardCharsets.US_ASCII).toLowerCase(java.util.Locale.ROOT);
                switch (name) {
                    case "select" -> db[0] = Integer.parseInt(new String(c.argv[1], StandardCharsets.US_ASCII));
                    case "multi", "exec", "discard", "ping", "replconf" -> { } // the whole batch is atomic already
                    default -> {
                        String err = replayer.replay(null, db[0], c.argv);
                        if (err != null) LOG.warn("Error applying a command from the master ({}): {}", name, err);
                    }
                }
            }
            primary.mirror(encode(todo)); // in order with a REPLICAOF NO ONE, which also runs here
            AppendOnly aof = persistence.appendOnly();
            AppendOnly.Marks marks = null;
            if (aof != null && aof.enabled()) { // where the AOF stands after this batch, for FACK
                for (io.tide.shard.Shard sh : shards.all()) sh.writes().journal().flush();
                marks = aof.marks();
            }
            done.complete(marks);
        }, () -> done.completeExceptionally(new IOException("the server is stopping")));
        AppendOnly.Marks marks = awaitValue(done);
        long n = 0;
        for (Command c : todo) n += c.bytes;
        offset += n;
        replInputBytes.addAndGet(n);
        if (marks != null) fsynced.add(offset, marks);
    }

    private static <T> T awaitValue(CompletableFuture<T> f) throws IOException {
        try {
            return f.get(10, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException("timed out applying the stream", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** The commands as the primary sent them (RESP arrays of bulk strings, as Redis and Tide write the stream). */
    private static byte[] encode(List<Command> cmds) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Command c : cmds) {
            if (c.argv.length == 0) {
                out.write('\n');
                continue;
            }
            out.writeBytes(b("*" + c.argv.length + "\r\n"));
            for (byte[] a : c.argv) {
                out.writeBytes(b("$" + a.length + "\r\n"));
                out.writeBytes(a);
                out.writeBytes(b("\r\n"));
            }
        }
        return out.toByteArray();
    }

    private static void await(CompletableFuture<Void> f) throws IOException {
        awaitValue(f);
    }

    private void sendAck(OutputStream out) throws IOException {
        sendAck(out, Math.max(0, offset));
    }

    /**
     * REPLCONF ACK {@code acked}, with FACK and the offset this server's AOF fsynced when it has one (as a Redis 7.2
     * replica; never past {@code acked}).
     */
    private void sendAck(OutputStream out, long acked) throws IOException {
        long fack = fsynced.offset();
        if (fack < 0) send(out, "REPLCONF", "ACK", Long.toString(acked));
        else send(out, "REPLCONF", "ACK", Long.toString(acked), "FACK", Long.toString(Math.min(fack, acked)));
    }

    // ------------------------------------------------------------------------------------------------ RESP

    private static void send(OutputStream out, String... argv) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(b("*" + argv.length + "\r\n"));
        for (String a : argv) {
            byte[] x = a.getBytes(StandardCharsets.UTF_8);
            b.writeBytes(b("$" + x.length + "\r\n"));
            b.writeBytes(x);
            b.writeBytes(b("\r\n"));
        }
        synchronized (out) {
            out.write(b.toByteArray());
            out.flush();
        }
    }

    private static void expectOk(String reply, String what, boolean anyNonError) throws IOException {
        if (reply.startsWith("-")) {
            // Redis accepts -NOAUTH to PING (AUTH follows) and errors to REPLCONF capa from old primaries.
            if (what.equals("PING") && reply.startsWith("-NOAUTH")) return;
            if (what.startsWith("REPLCONF")) return;
            throw new IOException("error from master to " + what + ": " + reply);
        }
        if (!anyNonError && !reply.startsWith("+")) throw new IOException("unexpected reply to " + what + ": " + reply);
    }

    /** A line without its CRLF (or LF). */
    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                byte[] x = b.toByteArray();
                int n = x.length > 0 && x[x.length - 1] == '\r' ? x.length - 1 : x.length;
                return new String(x, 0, n, StandardCharsets.UTF_8);
            }
            b.write(c);
        }
        throw new EOFException("the master closed the link");
    }

    /** The next command of the stream (a RESP array of bulk strings), or an empty argv for a bare newline. */
    private static Command readCommand(InputStream in) throws IOException {
        int first = in.read();
        if (first < 0) throw new EOFException("the master closed the link");
        if (first == '\n') return new Command(new byte[0][], 1);
        if (first != '*') throw new IOException("protocol error from master: " + (char) first);
        int[] used = {1};
        int n = (int) readNumber(in, used);
        byte[][] argv = new byte[n][];
        for (int i = 0; i < n; i++) {
            int t = in.read();
            used[0]++;
            if (t != '$') throw new IOException("protocol error from master: expected a bulk string");
            int len = (int) readNumber(in, used);
            byte[] a = in.readNBytes(len);
            if (a.length < len) throw new EOFException("the master closed the link");
            if (in.read() != '\r' || in.read() != '\n') throw new IOException("protocol error from master");
            used[0] += len + 2;
            argv[i] = a;
        }
        return new Command(argv, used[0]);
    }

    private static long readNumber(InputStream in, int[] used) throws IOException {
        long v = 0;
        boolean neg = false;
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) throw new EOFException("the master closed the link");
            used[0]++;
            if (c == '-') neg = true;
            else v = v * 10 + (c - '0');
        }
        if (in.read() != '\n') throw new IOException("protocol error from master");
        used[0] += 2;
        return neg ? -v : v;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
