package io.tide.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ByteProcessor;
import io.netty.util.internal.PlatformDependent;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Confined to its channel's event loop: turns a connection's bytes into commands, one flat argv
 * ({@code byte[][]}, one array per argument) per command, exactly as Redis 7 reads a query buffer.
 *
 * <p>Two request forms are read. A <em>multibulk</em> ({@code *<n>\r\n} then n times
 * {@code $<len>\r\n<bytes>\r\n}) is parsed incrementally: the decoder remembers how many arguments
 * are done and whether it is inside a bulk header or body, so a frame split at any byte boundary
 * resumes where it stopped and a huge frame is never re-parsed. Each argument is copied out of the
 * {@link ByteBuf} exactly once. A bulk shorter than {@value #BIG_ARG} bytes waits in Netty's
 * cumulation until complete; a bigger one is drained into its own array as bytes arrive. That array
 * is allocated at the declared length up to {@value #INITIAL_BIG} bytes (or what has already
 * arrived), and beyond that grows fourfold up to the declared length, so a declared length is never
 * allocated before a quarter of its bytes have come, the cumulation stays small, and a value of
 * up to 1 MiB is one allocation: the array the store keeps (no garbage copies, which the collector
 * would place as humongous objects). {@code *0} and negative counts are ignored.
 * Any other first byte starts an <em>inline</em> command: a line split like Redis's
 * {@code sdssplitargs}; a blank line is ignored.
 *
 * <p>On a protocol error (texts byte-for-byte as Redis's) the decoder emits one {@link ProtocolError}
 * after the commands decoded before it, then discards all further input.
 *
 * <p>Not a channel handler of its own: the connection's one handler gives it each read ({@link #read}), so that a
 * request goes from the bytes to the dispatcher without passing through the pipeline, and a connection has one handler
 * context, not two (decision 0025). The partial request waiting for more bytes is kept the way Netty's
 * {@link ByteToMessageDecoder} keeps it, with its merge cumulator.
 */
public final class RespDecoder {

    /** Longest inline line, or multibulk/bulk header, without a newline (Redis's PROTO_INLINE_MAX_SIZE). */
    static final int INLINE_MAX = 64 * 1024;
    /** Bulks at least this long are streamed into their own array (Redis's PROTO_MBULK_BIG_ARG). */
    static final int BIG_ARG = 32 * 1024;
    /** Argument count an unauthenticated connection may send. */
    static final int UNAUTHENTICATED_MAX_ARGS = 10;
    /** Bulk length an unauthenticated connection may send. */
    static final int UNAUTHENTICATED_MAX_BULK = 16384;
    /** Longest array the JVM reliably allocates: a hard ceiling over {@code proto-max-bulk-len}. */
    static final long MAX_ARRAY = Integer.MAX_VALUE - 16;

    static final String INVALID_MULTIBULK = "ERR Protocol error: invalid multibulk length";
    static final String INVALID_BULK = "ERR Protocol error: invalid bulk length";
    static final String TOO_BIG_MBULK = "ERR Protocol error: too big mbulk count string";
    static final String TOO_BIG_BULK = "ERR Protocol error: too big bulk count string";
    static final String TOO_BIG_INLINE = "ERR Protocol error: too big inline request";
    static final String UNBALANCED_QUOTES = "ERR Protocol error: unbalanced quotes in request";
    static final String UNAUTHENTICATED_MULTIBULK = "ERR Protocol error: unauthenticated multibulk length";
    static final String UNAUTHENTICATED_BULK = "ERR Protocol error: unauthenticated bulk length";
    /**
     * Not a Redis reply (Redis closes such a client silently, logging "reached max query buffer
     * length"); sent so the client learns why it is closed.
     */
    public static final String QUERY_BUFFER_LIMIT = "ERR Protocol error: client-query-buffer-limit exceeded";

    private static final byte CR = '\r';
    private static final byte LF = '\n';
    private static final int INITIAL_ARGV = 1024;
    private static final int INITIAL_BIG = 1024 * 1024;
    private static final byte[][] NO_ARGS = new byte[0][];

    private final ProtocolLimits limits;
    private final BooleanSupplier authenticated;

    /** The multibulk being read; null between commands. */
    private byte[][] argv;
    /** Its declared argument count. */
    private int argc;
    /** Arguments of {@link #argv} already read. */
    private int argIndex;
    /** Declared length of the bulk being read; -1 while its header is awaited. */
    private int bulkLength = -1;
    /** A big bulk being streamed in, or null. */
    private byte[] big;
    /** Bytes of {@link #big} filled. */
    private int bigFilled;
    /** Bytes of the CRLF after {@link #big} skipped. */
    private int bigTrailer;
    /** Bytes after the reader index already searched for a line end without finding one. */
    private int scanned;
    private boolean failed;
    /** Command names of 2 to this many bytes are shared between requests ({@link #commandName}). */
    private static final int NAME_MAX = 24;
    /** What this decoder shares with the other decoders of its thread: command names, the number scanner, scratch. */
    private final Shared shared;
    /** Bytes received since {@link #takeBytesReceived()} last ran. */
    private long bytesReceived;

    /**
     * @param limits        live limits, shared by all connections
     * @param authenticated whether this connection may send commands of unlimited size; read only
     *                      when a count exceeds 10 or a bulk exceeds 16384 bytes
     */
    public RespDecoder(ProtocolLimits limits, BooleanSupplier authenticated) {
        this(limits, authenticated, new Shared());
    }

    /** A decoder that shares {@code shared} with the other connections of its thread. */
    public RespDecoder(ProtocolLimits limits, BooleanSupplier authenticated, Shared shared) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.authenticated = Objects.requireNonNull(authenticated, "authenticated");
        this.shared = Objects.requireNonNull(shared, "shared");
    }

    /**
     * Confined to one thread; shared by the decoders of the connections that thread serves (a shard's), so that an
     * idle connection holds none of it: the command names ({@link CommandNames}), the scanner of header numbers,
     * whose state lives only within one {@link #findLineEnd} and the read of its number that follows, and the array
     * an inline command is split from, used only within one {@link #readInline}.
     */
    public static final class Shared {
        final CommandNames names = new CommandNames();
        final NumberScanner number = new NumberScanner();
        /** Allocated by the first inline command (most clients never send one); grows to the longest line's length. */
        byte[] scratch;
    }

    /** The bytes received and not yet decoded (a partial request), or null: an idle connection holds no buffer. */
    private ByteBuf cumulation;
    /** Reads since the cumulation was last emptied or compacted. */
    private int reads;
    /** After this many reads that left a partial request, the cumulation drops the bytes already decoded. */
    private static final int COMPACT_AFTER_READS = 16;

    /**
     * Takes one read's bytes ({@code in}, released here) and decodes every request they complete into {@code out},
     * in order. What is left of a partial request waits for the next read; once all is decoded the buffer is released.
     */
    public void read(ByteBufAllocator alloc, ByteBuf in, List<Object> out) {
        bytesReceived += in.readableBytes();
        ByteBuf c = cumulation;
        c = c == null ? in : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, c, in);
        cumulation = c;
        try {
            parse(c, out);
        } finally {
            if (!c.isReadable()) {
                reads = 0;
                cumulation = null;
                c.release();
            } else if (++reads >= COMPACT_AFTER_READS) {
                reads = 0;
                c.discardSomeReadBytes();
            }
        }
    }

    /** Releases a partial request's bytes (the connection closed). */
    public void release() {
        ByteBuf c = cumulation;
        if (c != null) {
            cumulation = null;
            c.release();
        }
    }

    /** Bytes read from the channel since the last call (INFO's {@code total_net_input_bytes}); on the channel's loop. */
    public long takeBytesReceived() {
        long n = bytesReceived;
        bytesReceived = 0;
        return n;
    }

    /**
     * Decodes every whole command readable in {@code in} into {@code out} ({@code byte[][]} argvs, and a
     * final {@link ProtocolError} if one is found), consuming what it decoded and keeping any partial
     * command's state for the next call with the same, grown, buffer. Usable without a channel, e.g.
     * to load an append-only file.
     */
    public void parse(ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        ArgvPool pool = ArgvPool.current(); // argument arrays to fill again (decision 0028)
        boolean memory = UNSAFE && in.hasMemoryAddress();
        while (in.isReadable()) {
            if (memory) {
                fastCommands(in, out, pool);
                if (!in.isReadable()) break;
            }
            boolean progressed;
            if (argv == null) {
                progressed = in.getByte(in.readerIndex()) == '*'
                        ? readMultibulkHeader(in, out, pool)
                        : readInline(in, out);
            } else {
                progressed = readArgument(in, out, pool);
            }
            if (!progressed) break;
        }
        if (!failed) {
            long pending = (long) in.readableBytes() + (big != null ? bigFilled : 0);
            if (pending > limits.queryBufferLimit()) {
                fail(in, out, QUERY_BUFFER_LIMIT);
            }
        }
    }

    /** Whether this decoder has met a protocol error and now discards its input. */
    public boolean failed() {
        return failed;
    }

    /**
     * Bytes received and not yet made into a command: the cumulation's unread bytes and a big bulk's bytes so far. Call
     * on the channel's event loop, between reads.
     */
    public long queryBufferBytes() {
        byte[] b = big;
        ByteBuf c = cumulation;
        return (c == null ? 0 : c.readableBytes()) + (b == null ? 0 : bigFilled);
    }

    /** Space allocated for input and not filled yet: the cumulation's and a big bulk's array's. */
    public long queryBufferFree() {
        ByteBuf c = cumulation;
        byte[] b = big;
        return (c == null ? 0 : c.capacity() - c.writerIndex()) + (b == null ? 0 : b.length - bigFilled);
    }

    /** Capacity of the array a big bulk is streaming into (0 if none); for tests. */
    int streamingCapacity() {
        return big == null ? 0 : big.length;
    }

    // ---- multibulk ----------------------------------------------------------------------------

    /** Reads {@code *<n>\r\n}; true if consumed (starting a command or ignoring an empty one). */
    private boolean readMultibulkHeader(ByteBuf in, List<Object> out, ArgvPool pool) {
        int r = in.readerIndex();
        int n0 = scanned == 0 ? shortHeader(in, r, UNAUTHENTICATED_MAX_ARGS) : -1;
        if (n0 >= 0) {
            if (n0 > 0) startCommand(n0, pool);
            return true;
        }
        int cr = findLineEnd(in, r);
        if (cr < 0) {
            if (cr == -1 && in.readableBytes() > INLINE_MAX) {
                fail(in, out, TOO_BIG_MBULK);
            }
            return false;
        }
        NumberScanner number = shared.number;
        long n = number.value();
        if (!number.ok() || n > Integer.MAX_VALUE) {
            fail(in, out, INVALID_MULTIBULK);
            return false;
        }
        if (n > UNAUTHENTICATED_MAX_ARGS && !authenticated.getAsBoolean()) {
            fail(in, out, UNAUTHENTICATED_MULTIBULK);
            return false;
        }
        consumeTo(in, cr + 2);
        if (n > 0) startCommand((int) n, pool);
        return true;
    }

    private static final VarHandle LONGS_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * The next {@code length} bytes in an array of their own (new, or one the pool took back), consumed. An argument of up to 64 bytes is copied 8 bytes at a
     * time: for such a short copy the buffer's bulk copy costs more in checks and its call than in the copy.
     */
    private static byte[] copyArgument(ByteBuf in, int length, ArgvPool pool) {
        byte[] a = pool.bytes(length);
        if (length > 64) {
            in.readBytes(a);
            return a;
        }
        int r = in.readerIndex();
        int i = 0;
        for (; i + 8 <= length; i += 8) LONGS_LE.set(a, i, in.getLongLE(r + i));
        for (; i < length; i++) a[i] = in.getByte(r + i);
        in.readerIndex(r + length);
        return a;
    }

    /**
     * Whether Netty reads memory through {@code Unsafe}, which {@link #fastCommands} uses: without the JVM's
     * {@code --sun-misc-unsafe-memory-access=allow} it does not, and a direct buffer may still have a memory address.
     */
    private static final boolean UNSAFE = PlatformDependent.hasUnsafe();
    private static final boolean UNALIGNED = PlatformDependent.isUnaligned();
    private static final VarHandle LONGS_NATIVE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    /**
     * Decodes the requests at {@code in}'s reader index straight from its memory ({@code in.hasMemoryAddress()}, read
     * with Netty's {@code Unsafe} accessors), as
     * long as each header and argument is plainly framed and whole: a header as {@link #shortHeader}'s fast path takes
     * it (1 to 5 digits, no leading zero, a command of at most {@value #UNAUTHENTICATED_MAX_ARGS} arguments, a bulk of
     * at most {@value #UNAUTHENTICATED_MAX_BULK} bytes), an argument with its two trailing bytes in the buffer. Starts
     * only between arguments, and may start in the middle of a command. Stops at the first thing that is not that,
     * leaving it to the general path, which reads it (a longer command's header, an argument not whole yet, an inline
     * command) or reports its error; the reader index moves once, at the end.
     *
     * <p>Why: the general path makes several {@code ByteBuf} calls per argument and a few per header byte, and here
     * they are virtual calls (a read comes as a slice of the io_uring ring's buffer, a partial request's rest as the
     * cumulation, so the decoder sees several classes and the JIT does not inline them). A profile of PUBLISH at
     * {@code -P 16} put about 30% of the shard thread's samples in them.
     */
    private void fastCommands(ByteBuf in, List<Object> out, ArgvPool pool) {
        if (bulkLength >= 0 || big != null || scanned != 0) return;
        long base = in.memoryAddress();
        int p = in.readerIndex();
        int w = in.writerIndex();
        long maxBulk = Math.min(UNAUTHENTICATED_MAX_BULK, limits.maxBulkLength());
        decoding:
        while (p < w) {
            if (argv == null) {
                if (PlatformDependent.getByte(base + p) != '*') break;
                long h = plainHeader(base, p, w, UNAUTHENTICATED_MAX_ARGS);
                if (h < 0) break;
                p = (int) h + 2;
                int n = (int) (h >>> 32);
                if (n == 0) continue; // *0 is ignored, as by the general path
                startCommand(n, pool);
            }
            while (argv != null) {
                if (p >= w || PlatformDependent.getByte(base + p) != '$') break decoding;
                long h = plainHeader(base, p, w, maxBulk);
                if (h < 0) break decoding;
                int data = (int) h + 2;
                int length = (int) (h >>> 32);
                if ((long) data + length + 2 > w) break decoding; // not whole yet
                byte[] arg = argIndex == 0 && length <= NAME_MAX && length >= 2
                        ? commandName(base + data, length, pool)
                        : copyArgument(base + data, length, pool);
                p = data + length + 2; // like Redis, the two bytes after a bulk are not checked
                addArgument(arg, out);
            }
        }
        in.readerIndex(p);
    }

    /**
     * The header line at {@code base + p} ({@code *} or {@code $}, already checked) read as {@link #shortHeader} reads
     * it, from memory: its number in the high 32 bits and the index of its CR in the low ones, or -1 where
     * {@code shortHeader} would return -1.
     */
    private static long plainHeader(long base, int p, int w, long max) {
        int q = p + 1;
        int end = Math.min(w, q + 5);
        int v = 0;
        while (q < end) {
            int d = PlatformDependent.getByte(base + q) - '0';
            if (d < 0 || d > 9) break;
            v = v * 10 + d;
            q++;
        }
        if (q == p + 1 || q + 1 >= w || PlatformDependent.getByte(base + q) != CR || v > max) return -1;
        if (v == 0 ? q != p + 2 : PlatformDependent.getByte(base + p + 1) == '0') return -1;
        return (long) v << 32 | q;
    }

    /** {@link #copyArgument(ByteBuf, int, ArgvPool)} from memory. */
    private static byte[] copyArgument(long address, int length, ArgvPool pool) {
        byte[] a = pool.bytes(length);
        if (length > 64 || !UNALIGNED) {
            PlatformDependent.copyMemory(address, a, 0, length);
            return a;
        }
        int i = 0;
        for (; i + 8 <= length; i += 8) LONGS_NATIVE.set(a, i, PlatformDependent.getLong(address + i));
        for (; i < length; i++) a[i] = PlatformDependent.getByte(address + i);
        return a;
    }

    /** Starts reading a command of {@code n} arguments. */
    private void startCommand(int n, ArgvPool pool) {
        argc = n;
        argIndex = 0;
        bulkLength = -1;
        argv = n <= ArgvPool.MAX_ARGC ? pool.argv(n) : new byte[Math.min(n, INITIAL_ARGV)][];
    }

    /**
     * Reads the current multibulk's next argument (its header, then its bytes, which may take several calls for a big
     * one); emits the command once its last argument is read. False if nothing could be read (incomplete or failed).
     */
    private boolean readArgument(ByteBuf in, List<Object> out, ArgvPool pool) {
        if (bulkLength < 0) {
            return readBulkHeader(in, out);
        }
        byte[] arg;
        if (big == null) {
            int readable = in.readableBytes();
            if (readable - 2 >= bulkLength) {
                if (argIndex == 0 && bulkLength <= NAME_MAX && bulkLength >= 2) {
                    arg = commandName(in, bulkLength);
                } else {
                    arg = copyArgument(in, bulkLength, pool);
                }
                in.skipBytes(2); // like Redis, the two bytes after a bulk are not checked
            } else if (bulkLength >= BIG_ARG) {
                big = new byte[Math.min(bulkLength, Math.max(INITIAL_BIG, readable))];
                bigFilled = 0;
                bigTrailer = 0;
                if ((arg = streamBig(in)) == null) {
                    return false;
                }
            } else {
                return false;
            }
        } else if ((arg = streamBig(in)) == null) {
            return false;
        }
        bulkLength = -1;
        addArgument(arg, out);
        return true;
    }

    /** Appends an argument to the current command, and emits the command if that was its last. */
    private void addArgument(byte[] arg, List<Object> out) {
        if (argIndex == argv.length) {
            argv = Arrays.copyOf(argv, (int) Math.min(argc, 2L * argv.length));
        }
        argv[argIndex++] = arg;
        if (argIndex == argc) {
            out.add(argv);
            argv = null;
        }
    }

    /**
     * The command name of {@code length} bytes at the reader index, consumed: the array {@link Shared#names}
     * remembers when it is the same (a pipeline of GETs shares one "GET" array), else a new one, remembered. Sharing is
     * safe because no one writes into an argument array, and {@link ArgvPool#give} never takes a name back.
     */
    private byte[] commandName(ByteBuf in, int length) {
        CommandNames names = shared.names;
        byte[] n = names.find(in, in.readerIndex(), length);
        if (n != null) {
            in.skipBytes(length);
            return n;
        }
        byte[] arg = new byte[length];
        in.readBytes(arg);
        return names.remember(arg);
    }

    /** {@link #commandName(ByteBuf, int)} from memory (a new name's array may come from the pool: names never go back). */
    private byte[] commandName(long address, int length, ArgvPool pool) {
        CommandNames names = shared.names;
        byte[] n = names.find(address, length);
        return n != null ? n : names.remember(copyArgument(address, length, pool));
    }

    /** Reads {@code $<len>\r\n} into {@link #bulkLength}; false if incomplete or failed. */
    private boolean readBulkHeader(ByteBuf in, List<Object> out) {
        int r = in.readerIndex();
        int w = in.writerIndex();
        if (r >= w) {
            return false;
        }
        if (scanned == 0 && in.getByte(r) == '$') {
            int length = shortHeader(in, r, Math.min(UNAUTHENTICATED_MAX_BULK, limits.maxBulkLength()));
            if (length >= 0) {
                bulkLength = length;
                return true;
            }
        }
        if (in.getByte(r) == CR) { // an empty header line: Redis reports the CR, which its reply turns into a space
            if (r + 1 < w) {
                fail(in, out, "ERR Protocol error: expected '$', got ' '");
            }
            return false;
        }
        int cr = findLineEnd(in, r);
        if (cr < 0) {
            if (cr == -1 && in.readableBytes() > INLINE_MAX) {
                fail(in, out, TOO_BIG_BULK);
            }
            return false;
        }
        byte first = in.getByte(r);
        if (first != '$') {
            fail(in, out, "ERR Protocol error: expected '$', got '" + (char) (first & 0xFF) + "'");
            return false;
        }
        NumberScanner number = shared.number;
        long length = number.value();
        if (!number.ok() || length < 0 || length > limits.maxBulkLength() || length > MAX_ARRAY) {
            fail(in, out, INVALID_BULK);
            return false;
        }
        if (length > UNAUTHENTICATED_MAX_BULK && !authenticated.getAsBoolean()) {
            fail(in, out, UNAUTHENTICATED_BULK);
            return false;
        }
        consumeTo(in, cr + 2);
        bulkLength = (int) length;
        return true;
    }

    /** Drains readable bytes into {@link #big}; returns it once it and its CRLF are complete. */
    private byte[] streamBig(ByteBuf in) {
        int readable = in.readableBytes();
        if (bigFilled < bulkLength) {
            int n = Math.min(readable, bulkLength - bigFilled);
            int needed = bigFilled + n;
            if (needed > big.length) {
                big = Arrays.copyOf(big, (int) Math.min(bulkLength, Math.max(needed, 4L * big.length)));
            }
            in.readBytes(big, bigFilled, n);
            bigFilled = needed;
            readable -= n;
        }
        if (bigFilled == bulkLength) {
            int skip = Math.min(readable, 2 - bigTrailer);
            in.skipBytes(skip);
            bigTrailer += skip;
            if (bigTrailer == 2) {
                byte[] done = big; // capacity never exceeds bulkLength, so this is exact
                big = null;
                return done;
            }
        }
        return null;
    }

    // ---- inline -------------------------------------------------------------------------------

    /** Reads one inline line; true if consumed. */
    private boolean readInline(ByteBuf in, List<Object> out) {
        int r = in.readerIndex();
        int w = in.writerIndex();
        int lf = in.indexOf(r + scanned, w, LF);
        if (lf < 0) {
            scanned = w - r;
            if (w - r > INLINE_MAX) {
                fail(in, out, TOO_BIG_INLINE);
            }
            return false;
        }
        int end = lf > r && in.getByte(lf - 1) == CR ? lf - 1 : lf;
        int length = end - r;
        byte[] scratch = shared.scratch;
        if (scratch == null || scratch.length < length) {
            shared.scratch = scratch = new byte[Math.max(length, scratch == null ? 256 : 2 * scratch.length)];
        }
        in.getBytes(r, scratch, 0, length);
        consumeTo(in, lf + 1);
        byte[][] args = splitArgs(scratch, length);
        if (args == null) {
            fail(in, out, UNBALANCED_QUOTES);
            return false;
        }
        if (args.length > 0) {
            out.add(args);
        }
        return true;
    }

    /**
     * Splits a line as Redis's {@code sdssplitargs} does (which stops at a NUL byte): blanks separate
     * arguments; "double quotes" take {@code \n \r \t \b \a \\ \"} and {@code \xHH} escapes; 'single
     * quotes' take {@code \'}; a closing quote must be followed by a blank or the end. Null if the
     * quotes are unbalanced.
     */
    static byte[][] splitArgs(byte[] line, int length) {
        int end = 0;
        while (end < length && line[end] != 0) {
            end++;
        }
        byte[][] args = NO_ARGS;
        int count = 0;
        byte[] current = new byte[end];
        int p = 0;
        while (true) {
            while (p < end && isSpace(line[p])) {
                p++;
            }
            if (p >= end) {
                return count == args.length ? args : Arrays.copyOf(args, count);
            }
            boolean inDouble = false;
            boolean inSingle = false;
            boolean done = false;
            int n = 0;
            while (!done) {
                byte c = p < end ? line[p] : 0;
                if (inDouble) {
                    if (c == '\\' && p + 3 < end && line[p + 1] == 'x'
                            && hexValue(line[p + 2]) >= 0 && hexValue(line[p + 3]) >= 0) {
                        current[n++] = (byte) (hexValue(line[p + 2]) * 16 + hexValue(line[p + 3]));
                        p += 3;
                    } else if (c == '\\' && p + 1 < end) {
                        p++;
                        current[n++] = switch (line[p]) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> 7;
                            default -> line[p];
                        };
                    } else if (c == '"') {
                        if (p + 1 < end && !isSpace(line[p + 1])) {
                            return null;
                        }
                        done = true;
                    } else if (p >= end) {
                        return null;
                    } else {
                        current[n++] = c;
                    }
                } else if (inSingle) {
                    if (c == '\\' && p + 1 < end && line[p + 1] == '\'') {
                        p++;
                        current[n++] = '\'';
                    } else if (c == '\'') {
                        if (p + 1 < end && !isSpace(line[p + 1])) {
                            return null;
                        }
                        done = true;
                    } else if (p >= end) {
                        return null;
                    } else {
                        current[n++] = c;
                    }
                } else {
                    switch (c) {
                        case ' ', '\n', '\r', '\t', 0 -> done = true;
                        case '"' -> inDouble = true;
                        case '\'' -> inSingle = true;
                        default -> current[n++] = c;
                    }
                }
                if (p < end) {
                    p++;
                }
            }
            if (count == args.length) {
                args = Arrays.copyOf(args, Math.max(4, 2 * count));
            }
            args[count++] = Arrays.copyOf(current, n);
        }
    }

    /** C's isspace in the "C" locale. */
    private static boolean isSpace(byte c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    private static int hexValue(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    // ---- shared -------------------------------------------------------------------------------

    /**
     * The fast path of a header line ({@code *<n>} or {@code $<n>} at {@code r}, its type byte already checked): a
     * number of 1 to 5 digits, without a leading zero, up to {@code max}, followed by CR and one more byte (not checked,
     * as Redis does not check it). Consumes the line and returns the number; otherwise returns -1 and consumes nothing,
     * and the general path ({@link #findLineEnd}, {@link NumberScanner}) reads the line, with its errors.
     */
    private static int shortHeader(ByteBuf in, int r, long max) {
        int w = in.writerIndex();
        int p = r + 1;
        int end = Math.min(w, p + 5);
        int v = 0;
        while (p < end) {
            int d = in.getByte(p) - '0';
            if (d < 0 || d > 9) break;
            v = v * 10 + d;
            p++;
        }
        if (p == r + 1 || p + 1 >= w || in.getByte(p) != CR || v > max) return -1;
        if (v == 0 ? p != r + 2 : in.getByte(r + 1) == '0') return -1; // "0" alone; no leading zero
        in.readerIndex(p + 2);
        return v;
    }

    /**
     * Index of the CR ending the header line at {@code r} ({@code *<n>} or {@code $<len>}), if the byte
     * after it has arrived too; -1 if there is no CR yet, -2 if the CR is the last readable byte. The
     * number after the type byte is parsed in the same pass into the thread's {@link Shared#number}, to be read
     * before the thread decodes anything else. A line that came in parts is scanned again from its start, at most
     * {@link NumberScanner#MAX_LENGTH} bytes of it: past that many it is no number, and only its end is sought.
     */
    private int findLineEnd(ByteBuf in, int r) {
        int w = in.writerIndex();
        NumberScanner number = shared.number;
        number.reset();
        int from = r + 1;
        if (scanned > NumberScanner.MAX_LENGTH) {
            number.tooLong();
            from += scanned;
        }
        int cr = from < w ? in.forEachByte(from, w - from, number) : -1;
        if (cr < 0) {
            scanned = Math.max(0, w - r - 1);
            return -1;
        }
        if (cr + 1 >= w) {
            scanned = cr - r - 1;
            return -2;
        }
        return cr;
    }

    private void consumeTo(ByteBuf in, int index) {
        in.readerIndex(index);
        scanned = 0;
    }

    private void fail(ByteBuf in, List<Object> out, String message) {
        out.add(new ProtocolError(message));
        failed = true;
        argv = null;
        big = null;
        in.skipBytes(in.readableBytes());
    }

    /**
     * Confined to one thread, shared by its decoders ({@link Shared}): parses a decimal long byte by byte up to a CR,
     * with Redis's {@code string2ll} rules: optional minus, no plus, no leading zeros, no blanks, at most 20
     * characters, no overflow.
     */
    static final class NumberScanner implements ByteProcessor {
        /** Longest number accepted, in characters: a long's 19 digits and a sign. */
        static final int MAX_LENGTH = 20;
        private long negated; // accumulated negatively so Long.MIN_VALUE fits
        private int length;
        private boolean negative;
        private boolean zero;
        private boolean bad;

        void reset() {
            negated = 0;
            length = 0;
            negative = false;
            zero = false;
            bad = false;
        }

        @Override
        public boolean process(byte b) {
            if (b == CR) {
                return false;
            }
            if (bad) {
                return true;
            }
            int pos = length++;
            if (pos >= MAX_LENGTH) {
                bad = true;
                return true;
            }
            if (b == '-' && pos == 0) {
                negative = true;
                return true;
            }
            int digit = b - '0';
            if (digit < 0 || digit > 9 || zero) {
                bad = true;
                return true;
            }
            if (digit == 0 && pos == (negative ? 1 : 0)) {
                zero = true;
                return true;
            }
            if (negated < Long.MIN_VALUE / 10) {
                bad = true;
                return true;
            }
            negated *= 10;
            if (negated < Long.MIN_VALUE + digit) {
                bad = true;
                return true;
            }
            negated -= digit;
            return true;
        }

        /** The line was found longer than {@link #MAX_LENGTH} before: it is no number. */
        void tooLong() {
            bad = true;
            length = MAX_LENGTH + 1;
        }

        /** Whether the bytes scanned so far form a valid number. */
        boolean ok() {
            if (bad || length == 0 || (negative && (length == 1 || zero))) {
                return false;
            }
            return negative || negated != Long.MIN_VALUE;
        }

        long value() {
            return negative ? negated : -negated;
        }
    }
}
