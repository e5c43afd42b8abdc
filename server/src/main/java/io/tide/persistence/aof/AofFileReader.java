package io.tide.persistence.aof;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads one AOF file record by record (RESP commands and '#' annotation lines) from a large buffer, parsing with
 * index arithmetic on the byte array. Confined to one thread.
 *
 * <p>In scan mode it only classifies commands (MULTI, EXEC, SELECT, other) and skips their arguments without
 * allocating; otherwise it materialises {@link #argv}. Data that ends inside a record is reported as {@link #TORN};
 * bytes that are not a record are a corruption, an {@link AofException} naming the file and byte offset.
 */
final class AofFileReader implements AutoCloseable {

    static final int COMMAND = 1;
    static final int ANNOTATION = 2;
    static final int END = 3;
    static final int TORN = 4;

    static final int OTHER = 0;
    static final int MULTI = 1;
    static final int EXEC = 2;
    static final int SELECT = 3;

    private static final int MAX_LINE = 4096;
    private static final byte[] GROUP = "#TIDE-GROUP:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Thrown internally when the data ends inside a record. */
    private static final class Torn extends RuntimeException {
        Torn() {
            super(null, null, false, false);
        }
    }

    private static final Torn TORN_SIGNAL = new Torn();

    private final Path path;
    private final FileChannel channel;
    private final long end;
    private final boolean materialize;
    private final byte[] buf;
    private int pos;
    private int lim;
    private long bufStart;   // file offset of buf[0]
    private long readPos;    // file offset of the next byte to read from the channel

    // The last record.
    long start;
    long endOffset;
    int argc;
    int name;
    byte[][] argv;
    long groupSeq;
    int groupParts;
    boolean group;

    /**
     * @param limit read at most this many bytes of the file (the file's size when larger)
     */
    AofFileReader(Path path, long limit, boolean materialize, int bufferSize) throws IOException {
        this.path = path;
        this.channel = FileChannel.open(path, StandardOpenOption.READ);
        this.end = Math.min(limit, channel.size());
        this.materialize = materialize;
        this.buf = new byte[Math.max(bufferSize, MAX_LINE * 2)];
    }

    /** Bytes this reader covers. */
    long end() {
        return end;
    }

    Path path() {
        return path;
    }

    /** Reads the next record: {@link #COMMAND}, {@link #ANNOTATION}, {@link #END} or {@link #TORN}. */
    int next() throws IOException {
        start = bufStart + pos;
        try {
            if (!fill(1)) return END;
            if (buf[pos] == '#') {
                annotation();
                endOffset = bufStart + pos;
                return ANNOTATION;
            }
            if (buf[pos] != '*') throw corrupt(start, "expected '*' or '#'");
            command();
            endOffset = bufStart + pos;
            return COMMAND;
        } catch (Torn t) {
            return TORN;
        } catch (java.io.UncheckedIOException e) {
            throw new AofException("Unrecoverable error reading the append only file " + path + ": "
                    + e.getCause().getMessage(), e.getCause());
        }
    }

    private void annotation() throws AofException {
        int eol = lineEnd();
        group = false;
        int len = eol - pos;
        if (len >= GROUP.length && startsWith(GROUP)) {
            int i = pos + GROUP.length;
            int stop = eol > pos && buf[eol - 1] == '\r' ? eol - 1 : eol;
            long seq = 0;
            int digits = 0;
            for (; i < stop && buf[i] >= '0' && buf[i] <= '9' && digits < 19; i++, digits++) seq = seq * 10 + (buf[i] - '0');
            if (digits == 0 || i >= stop || buf[i] != ':') throw corrupt(start, "malformed #TIDE-GROUP annotation");
            i++;
            long parts = 0;
            digits = 0;
            for (; i < stop && buf[i] >= '0' && buf[i] <= '9' && digits < 6; i++, digits++) parts = parts * 10 + (buf[i] - '0');
            if (digits == 0 || i != stop || parts < 1) throw corrupt(start, "malformed #TIDE-GROUP annotation");
            group = true;
            groupSeq = seq;
            groupParts = (int) parts;
        }
        pos = eol + 1;
    }

    private boolean startsWith(byte[] prefix) {
        for (int i = 0; i < prefix.length; i++) {
            if (buf[pos + i] != prefix[i]) return false;
        }
        return true;
    }

    private void command() throws IOException {
        long n = numberLine('*');
        if (n < 1 || n > Integer.MAX_VALUE) throw corrupt(start, "invalid argument count " + n);
        argc = (int) n;
        name = OTHER;
        argv = materialize ? new byte[argc][] : null;
        for (int j = 0; j < argc; j++) {
            long argStart = bufStart + pos;
            if (!fill(1)) throw TORN_SIGNAL;
            if (buf[pos] != '$') throw corrupt(argStart, "expected '$'");
            long len = numberLine('$');
            if (len > Integer.MAX_VALUE - 16) throw corrupt(argStart, "bulk length " + len + " too large");
            int l = (int) len;
            if (j == 0 && l >= 4 && l <= 6 && fill(l)) name = classify(l);
            if (materialize) {
                argv[j] = bulk(l);
            } else {
                skip(l);
            }
            if (!fill(2)) throw TORN_SIGNAL;
            if (buf[pos] != '\r' || buf[pos + 1] != '\n') throw corrupt(bufStart + pos, "expected CRLF after a bulk");
            pos += 2;
        }
    }

    private int classify(int l) {
        if (l == 5 && eq("MULTI")) return MULTI;
        if (l == 4 && eq("EXEC")) return EXEC;
        if (l == 6 && eq("SELECT")) return SELECT;
        return OTHER;
    }

    private boolean eq(String upper) {
        for (int i = 0; i < upper.length(); i++) {
            if ((buf[pos + i] & 0xDF) != upper.charAt(i)) return false;
        }
        return true;
    }

    private byte[] bulk(int l) throws IOException {
        byte[] out = new byte[l];
        int have = Math.min(l, lim - pos);
        System.arraycopy(buf, pos, out, 0, have);
        pos += have;
        if (have < l) {
            // The buffer is consumed: read the rest straight into the argument.
            bufStart = readPos;
            pos = 0;
            lim = 0;
            ByteBuffer dst = ByteBuffer.wrap(out, have, l - have);
            while (dst.hasRemaining()) {
                if (readPos >= end) throw TORN_SIGNAL;
                dst.limit(dst.position() + (int) Math.min(dst.remaining(), end - readPos));
                int r = channel.read(dst, readPos);
                if (r <= 0) throw TORN_SIGNAL;
                readPos += r;
                dst.limit(l);
            }
            bufStart = readPos;
        }
        return out;
    }

    private void skip(int l) {
        int have = lim - pos;
        if (l <= have) {
            pos += l;
            return;
        }
        long target = readPos + (l - have);
        if (target > end) throw TORN_SIGNAL;
        readPos = target;
        bufStart = readPos;
        pos = 0;
        lim = 0;
    }

    /** Parses {@code <prefix><digits>\r\n} at pos. */
    private long numberLine(char prefix) throws AofException {
        long lineStart = bufStart + pos;
        int eol = lineEnd();
        int i = pos + 1;
        int stop = eol - 1;
        if (buf[pos] != prefix || stop < i || buf[stop] != '\r') throw corrupt(lineStart, "malformed '" + prefix + "' line");
        long n = 0;
        if (stop - i > 18) throw corrupt(lineStart, "number too long");
        for (; i < stop; i++) {
            byte c = buf[i];
            if (c < '0' || c > '9') throw corrupt(lineStart, "malformed '" + prefix + "' line");
            n = n * 10 + (c - '0');
        }
        pos = eol + 1;
        return n;
    }

    /** The index of the '\n' ending the line at pos, filling the buffer as needed. */
    private int lineEnd() throws AofException {
        int scanned = 0;
        while (true) {
            for (int i = pos + scanned; i < lim; i++) {
                if (buf[i] == '\n') return i;
            }
            scanned = lim - pos;
            if (scanned >= MAX_LINE) throw corrupt(bufStart + pos, "line longer than " + MAX_LINE + " bytes");
            if (!fill(scanned + 1)) throw TORN_SIGNAL;
        }
    }

    /** Makes at least {@code need} bytes available at pos; false when the data ends first. */
    private boolean fill(int need) {
        if (lim - pos >= need) return true;
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            bufStart += pos;
            lim -= pos;
            pos = 0;
        }
        while (lim < need) {
            if (readPos >= end) return false;
            ByteBuffer dst = ByteBuffer.wrap(buf, lim, (int) Math.min(buf.length - lim, end - readPos));
            int r;
            try {
                r = channel.read(dst, readPos);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            if (r <= 0) return false;
            lim += r;
            readPos += r;
        }
        return true;
    }

    AofException corrupt(long offset, String what) {
        return new AofException("Bad file format reading the append only file " + path + " at offset " + offset
                + ": " + what);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
