package io.tide.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The decoder over heap buffers, which only its general path reads; {@link RespDecoderDirectTest} runs the same tests over
 * direct buffers, which its fast path ({@code RespDecoder.fastCommands}) reads from memory first.
 */
class RespDecoderTest {

    /** A read's buffer holding {@code b}. */
    ByteBuf wrap(byte[] b) {
        return Unpooled.wrappedBuffer(b);
    }

    /** An empty read buffer of {@code capacity} bytes. */
    ByteBuf room(int capacity) {
        return Unpooled.buffer(capacity);
    }

    private final ProtocolLimits limits = new ProtocolLimits();
    private final AtomicBoolean authenticated = new AtomicBoolean(true);
    private final RespDecoder decoder = new RespDecoder(limits, authenticated::get);
    /** What the decoder has decoded from the reads fed to it and {@link #drain} has not taken yet. */
    private final List<Object> inbound = new ArrayList<>();

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private void feed(byte[] b) {
        decoder.read(UnpooledByteBufAllocator.DEFAULT, wrap(b), inbound);
    }

    private void feed(String s) {
        feed(bytes(s));
    }

    private List<Object> drain() {
        List<Object> out = new ArrayList<>(inbound);
        inbound.clear();
        return out;
    }

    /** Each decoded command as a list of ISO-8859-1 strings; errors as their message. */
    private List<Object> decoded() {
        return strings(drain());
    }

    private static String multibulk(String... args) {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            sb.append('$').append(a.getBytes(StandardCharsets.ISO_8859_1).length).append("\r\n").append(a).append("\r\n");
        }
        return sb.toString();
    }

    private void assertError(String input, String message) {
        feed(input);
        assertThat(decoded()).containsExactly(new ProtocolError(message));
        assertThat(decoder.failed()).isTrue();
    }

    // ---- multibulk ----

    @Test
    void multibulk_decodesArgv() {
        feed(multibulk("SET", "key", "value"));
        assertThat(decoded()).containsExactly(List.of("SET", "key", "value"));
    }

    /** A repeated command name is one shared array (no allocation per request); a different name never is. */
    @Test
    void multibulk_repeatedCommandNames_shareOneArray_andDifferentOnesDoNot() {
        feed(multibulk("GET", "a") + multibulk("GET", "b") + multibulk("SET", "a", "1") + multibulk("GEX", "c")
                + multibulk("get", "d") + multibulk("SET", "b", "2") + multibulk("GET", "e"));
        List<Object> out = drain();
        byte[][][] argv = out.toArray(new byte[0][][]);
        assertThat(argv[1][0]).isSameAs(argv[0][0]);
        assertThat(argv[6][0]).isSameAs(argv[0][0]);
        assertThat(argv[5][0]).isSameAs(argv[2][0]);
        assertThat(new String(argv[3][0], StandardCharsets.ISO_8859_1)).isEqualTo("GEX");
        assertThat(new String(argv[4][0], StandardCharsets.ISO_8859_1)).isEqualTo("get");
        assertThat(argv[3][0]).isNotSameAs(argv[0][0]);
        assertThat(argv[4][0]).isNotSameAs(argv[0][0]);
        assertThat(argv[1][1]).isNotSameAs(argv[0][1]);
    }

    /**
     * Decoders that share one {@link RespDecoder.Shared} (a shard's connections) share a name's array too; names whose
     * slots collide both stay, two at a time; a third takes the first slot and the oldest goes.
     */
    @Test
    void sharedCommandNames_oneArrayAcrossConnections() {
        RespDecoder.Shared shared = new RespDecoder.Shared();
        RespDecoder a = new RespDecoder(limits, () -> true, shared);
        RespDecoder b = new RespDecoder(limits, () -> true, shared);
        byte[] fromA = decodeOne(a, multibulk("HGET", "h", "f"))[0];
        byte[] fromB = decodeOne(b, multibulk("HGET", "h", "g"))[0];
        assertThat(fromB).isSameAs(fromA);
        assertThat(decodeOne(b, inline("HGET h f"))[0]).as("an inline command's name is its own").isNotSameAs(fromA);

        // Three names of one set: length 4, first byte 'A', second 'B', last 'Z' hash alike, whatever the third byte.
        byte[] x = decodeOne(a, multibulk("ABXZ"))[0];
        byte[] y = decodeOne(b, multibulk("ABYZ"))[0];
        assertThat(decodeOne(a, multibulk("ABXZ"))[0]).isSameAs(x);
        assertThat(decodeOne(a, multibulk("ABYZ"))[0]).isSameAs(y);
        decodeOne(b, multibulk("ABWZ"));
        assertThat(decodeOne(a, multibulk("ABYZ"))[0]).as("the newer of the two stays").isSameAs(y);
        assertThat(decodeOne(a, multibulk("ABXZ"))[0]).as("the older went").isNotSameAs(x);
    }

    /**
     * Decoders of one thread share one scanner of header numbers: a header that arrives in parts is read whole
     * however many other connections' headers the thread decodes in between, and a line already too long to be a
     * number stays one however its tail reads.
     */
    @Test
    void sharedNumberScanner_aHeaderInPartsAroundAnotherConnectionsHeaders() {
        RespDecoder.Shared shared = new RespDecoder.Shared();
        RespDecoder a = new RespDecoder(limits, () -> true, shared);
        RespDecoder b = new RespDecoder(limits, () -> true, shared);
        List<Object> fromA = new ArrayList<>();
        List<Object> fromB = new ArrayList<>();
        read(a, "*3", fromA);
        read(b, multibulk("ECHO", "hello") + "*1\r\n$12", fromB);
        read(a, "\r\n$3\r\nSET\r\n$1\r\nk\r\n$1", fromA);
        read(b, "345\r\n" + "x".repeat(12345) + "\r\n", fromB);
        read(a, "1\r\n" + "v".repeat(11) + "\r\n", fromA);
        assertThat(strings(fromA)).containsExactly(List.of("SET", "k", "v".repeat(11)));
        assertThat(strings(fromB)).containsExactly(List.of("ECHO", "hello"), List.of("x".repeat(12345)));

        // 25 digits: the first read brings 21 of them, past what a number may have; the next brings 4 more.
        List<Object> out = new ArrayList<>();
        read(a, "*" + "9".repeat(21), out);
        read(b, multibulk("PING"), fromB);
        read(a, "9999\r\n", out);
        assertThat(out).containsExactly(new ProtocolError("ERR Protocol error: invalid multibulk length"));
        assertThat(strings(fromB)).endsWith(List.of("PING"));

        // 21 digits, then only the line's end.
        RespDecoder c = new RespDecoder(limits, () -> true, shared);
        out.clear();
        read(c, "*" + "1".repeat(21), out);
        read(c, "\r\n", out);
        assertThat(out).containsExactly(new ProtocolError("ERR Protocol error: invalid multibulk length"));
    }

    /**
     * Decoders of one thread split inline commands in one shared array: each connection's arguments are its own, a
     * partial line waits in its own connection's buffer while another's inline command is split, and a longer line
     * than any before grows the array.
     */
    @Test
    void sharedInlineScratch_eachConnectionsArgumentsStayItsOwn() {
        RespDecoder.Shared shared = new RespDecoder.Shared();
        RespDecoder a = new RespDecoder(limits, () -> true, shared);
        RespDecoder b = new RespDecoder(limits, () -> true, shared);
        List<Object> fromA = new ArrayList<>();
        List<Object> fromB = new ArrayList<>();
        read(a, "SET key " + "a".repeat(300) + "\r\nGET ke", fromA);
        read(b, "ECHO bbbb\r\n", fromB);
        read(b, "ECHO \"" + "c".repeat(1000) + "\"\r\n", fromB);
        read(a, "y\r\n", fromA);
        assertThat(strings(fromA)).containsExactly(List.of("SET", "key", "a".repeat(300)), List.of("GET", "key"));
        assertThat(strings(fromB)).containsExactly(List.of("ECHO", "bbbb"), List.of("ECHO", "c".repeat(1000)));
    }

    private static String inline(String line) {
        return line + "\r\n";
    }

    /** One read of {@code text} by {@code d}, in this class's kind of buffer; what it decodes goes to {@code out}. */
    private void read(RespDecoder d, String text, List<Object> out) {
        d.read(UnpooledByteBufAllocator.DEFAULT, wrap(bytes(text)), out);
    }

    private byte[][] decodeOne(RespDecoder d, String request) {
        List<Object> out = new ArrayList<>();
        read(d, request, out);
        assertThat(out).hasSize(1);
        return (byte[][]) out.get(0);
    }

    /** A read's buffer is kept only while it holds a partial request, and released once decoded or at the close. */
    @Test
    void read_keepsOnlyAPartialRequest_andReleasesItsBuffers() {
        // Room to spare: the next read's bytes are merged into this buffer, which the decoder then holds.
        ByteBuf first = room(256).writeBytes(bytes(multibulk("GET", "a") + "*2\r\n$3\r\nGE"));
        decoder.read(UnpooledByteBufAllocator.DEFAULT, first, inbound);
        assertThat(decoded()).containsExactly(List.of("GET", "a"));
        assertThat(decoder.queryBufferBytes()).isPositive();
        ByteBuf second = wrap(bytes("T\r\n$1\r\nb\r\n"));
        decoder.read(UnpooledByteBufAllocator.DEFAULT, second, inbound);
        assertThat(decoded()).containsExactly(List.of("GET", "b"));
        assertThat(decoder.queryBufferBytes()).isZero();
        assertThat(decoder.queryBufferFree()).isZero();
        assertThat(first.refCnt()).isZero();
        assertThat(second.refCnt()).isZero();
        ByteBuf third = wrap(bytes("*1\r\n$4\r\nPI"));
        decoder.read(UnpooledByteBufAllocator.DEFAULT, third, inbound);
        assertThat(third.refCnt()).isOne();
        decoder.release();
        assertThat(third.refCnt()).isZero();
        assertThat(decoder.queryBufferBytes()).isZero();
        assertThat(decoded()).isEmpty();
    }

    @Test
    void multibulk_binarySafeArguments() {
        feed(multibulk("SET", "k", "a\r\nb\0c", ""));
        assertThat(decoded()).containsExactly(List.of("SET", "k", "a\r\nb\0c", ""));
    }

    @Test
    void multibulk_argumentsOfEveryShortLength_keepEveryByte() {
        // Arguments of up to 64 bytes are copied 8 at a time, then byte by byte: every length and byte value.
        List<Object> expected = new ArrayList<>();
        StringBuilder in = new StringBuilder();
        for (int len = 0; len <= 80; len++) {
            StringBuilder arg = new StringBuilder();
            for (int i = 0; i < len; i++) arg.append((char) ((len * 31 + i * 7) & 0xFF));
            in.append(multibulk("ECHO", arg.toString()));
            expected.add(List.of("ECHO", arg.toString()));
        }
        feed(in.toString());
        assertThat(decoded()).isEqualTo(expected);
    }

    @Test
    void multibulk_emptyOrNegativeCountIsIgnored() {
        feed("*0\r\n*-1\r\n*-5\r\n" + multibulk("PING"));
        assertThat(decoded()).containsExactly(List.of("PING"));
    }

    @Test
    void multibulk_fedOneByteAtATime() {
        String frame = multibulk("SET", "key:1", "x".repeat(100)) + "PING\r\n" + multibulk("GET", "key:1");
        for (byte b : bytes(frame)) {
            feed(new byte[] {b});
        }
        assertThat(decoded()).containsExactly(
                List.of("SET", "key:1", "x".repeat(100)), List.of("PING"), List.of("GET", "key:1"));
    }

    @Test
    void multibulk_splitAtEveryBoundary() {
        byte[] frame = bytes(multibulk("MSET", "a", "1", "bb", "22") + "ECHO \"x y\"\n" + multibulk("GET", "a"));
        for (int split = 0; split <= frame.length; split++) {
            RespDecoder d = new RespDecoder(limits, () -> true);
            List<Object> decoded = new ArrayList<>();
            d.read(UnpooledByteBufAllocator.DEFAULT, wrap(Arrays.copyOfRange(frame, 0, split)), decoded);
            d.read(UnpooledByteBufAllocator.DEFAULT, wrap(Arrays.copyOfRange(frame, split, frame.length)),
                    decoded);
            List<String> cmds = new ArrayList<>();
            for (Object o : decoded) {
                byte[][] argv = (byte[][]) o;
                StringBuilder sb = new StringBuilder();
                for (byte[] a : argv) {
                    sb.append(new String(a, StandardCharsets.ISO_8859_1)).append('|');
                }
                cmds.add(sb.toString());
            }
            assertThat(cmds).as("split at %d", split).containsExactly("MSET|a|1|bb|22|", "ECHO|x y|", "GET|a|");
            assertThat(d.queryBufferBytes()).as("split at %d", split).isZero();
        }
    }

    /**
     * Pipelines of commands decode exactly as the same bytes fed one at a time in heap buffers (which only the general
     * path reads), in heap and direct buffers (whose plainly framed requests RespDecoder.fastCommands reads from memory)
     * and split at random: commands of 1 to 48 arguments and names of several lengths (one over the decoder's remembered
     * names' limit), arguments of every short length with CR, LF and '$' inside, ones over the unauthenticated bulk
     * limit, empty and negative counts, inline commands between them, and malformed headers in the middle of a command or
     * between commands (the same error, after the same earlier commands).
     */
    @Test
    void commands_decodeAsTheGeneralPathDoes_validOrNot() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(7);
        String[] bad = {"$05\r\n", "$-3\r\n", "$x\r\n", "#3\r\n", "$\r\n", "$123456\r\n", "$1a\r\n"};
        String[] badCounts = {"*05\r\n", "*x\r\n", "*1a\r\n", "*\r\n", "*99999999999\r\n"};
        String[] between = {"*0\r\n", "*-1\r\n", "PING x\r\n", "\r\n"};
        String[] names = {"EXISTS", "GET", "get", "S", "A_COMMAND_NAME_OF_25_BYTE"};
        int decodedRounds = 0;
        for (int round = 0; round < 300; round++) {
            boolean auth = round % 3 != 2; // unauthenticated: at most 10 arguments, bulks of at most 16 KB
            ByteArrayOutputStream frame = new ByteArrayOutputStream();
            int commands = 1 + rnd.nextInt(6);
            for (int c = 0; c < commands; c++) {
                if (rnd.nextInt(4) == 0) frame.writeBytes(bytes(between[rnd.nextInt(between.length)]));
                if (round % 7 == 6 && c == commands - 1) {
                    frame.writeBytes(bytes(badCounts[rnd.nextInt(badCounts.length)])); // the rest is ignored
                }
                int n = 1 + rnd.nextInt(auth ? 48 : 10);
                String name = names[rnd.nextInt(names.length)];
                frame.writeBytes(bytes("*" + n + "\r\n$" + name.length() + "\r\n" + name + "\r\n"));
                for (int i = 1; i < n; i++) {
                    if (round % 5 == 4 && c == commands - 1 && i == n / 2) {
                        frame.writeBytes(bytes(bad[rnd.nextInt(bad.length)])); // the rest is ignored after the error
                        continue;
                    }
                    int len = rnd.nextInt(auth ? 10 : 30) == 0 ? 16_383 + rnd.nextInt(2000) : rnd.nextInt(80);
                    byte[] a = new byte[len];
                    for (int k = 0; k < len; k++) a[k] = (byte) "ab\r\n$*0\u0000\u00ff".charAt(rnd.nextInt(9));
                    frame.writeBytes(bytes("$" + len + "\r\n"));
                    frame.writeBytes(a);
                    frame.writeBytes(bytes("\r\n"));
                }
            }
            byte[] all = frame.toByteArray();
            List<Object> expected = decodeOneByteAtATime(all, auth);
            if (!expected.isEmpty()) decodedRounds++; // empty: "$123456" waits for its bytes
            for (int mode = 0; mode < 4; mode++) { // heap, heap split, direct split, direct
                RespDecoder d = new RespDecoder(limits, () -> auth);
                List<Object> got = new ArrayList<>();
                int at = 0;
                while (at < all.length) {
                    int len = mode % 3 == 0 ? all.length : 1 + rnd.nextInt(Math.max(1, all.length / 3));
                    len = Math.min(len, all.length - at);
                    ByteBuf b = mode >= 2 ? Unpooled.directBuffer(len) : Unpooled.buffer(len);
                    b.writeBytes(all, at, len);
                    d.read(UnpooledByteBufAllocator.DEFAULT, b, got);
                    at += len;
                }
                d.release();
                assertThat(strings(got)).as("round %d, mode %d", round, mode).isEqualTo(expected);
            }
        }
        assertThat(decodedRounds).isGreaterThan(260);
    }

    /**
     * A command of short arguments with a leading-zero length among them, split at every byte: each read's fast path
     * stops where an argument is not whole (its trailer included) and at the malformed header, as the general path would.
     */
    @Test
    void manyArguments_splitAtEveryBoundary_andALeadingZeroInTheMiddle() {
        StringBuilder ok = new StringBuilder("*12\r\n$6\r\nEXISTS\r\n");
        for (int i = 1; i < 12; i++) ok.append('$').append(i % 4).append("\r\n").append("x\r$".substring(0, i % 4))
                .append("\r\n");
        String bad = "*12\r\n$6\r\nEXISTS\r\n$1\r\na\r\n$1\r\nb\r\n$01\r\nc\r\n" + "$1\r\nd\r\n".repeat(8);
        for (String text : new String[] {ok.toString(), ok + bad}) {
            byte[] frame = bytes(text);
            List<Object> expected = decodeOneByteAtATime(frame, true);
            for (int split = 0; split <= frame.length; split++) {
                RespDecoder d = new RespDecoder(limits, () -> true);
                List<Object> got = new ArrayList<>();
                d.read(UnpooledByteBufAllocator.DEFAULT, wrap(Arrays.copyOfRange(frame, 0, split)), got);
                d.read(UnpooledByteBufAllocator.DEFAULT,
                        wrap(Arrays.copyOfRange(frame, split, frame.length)), got);
                d.release();
                assertThat(strings(got)).as("split at %d", split).isEqualTo(expected);
            }
        }
    }

    private List<Object> decodeOneByteAtATime(byte[] all, boolean auth) {
        RespDecoder d = new RespDecoder(limits, () -> auth);
        List<Object> got = new ArrayList<>();
        for (byte b : all) d.read(UnpooledByteBufAllocator.DEFAULT, Unpooled.wrappedBuffer(new byte[] {b}), got);
        d.release();
        return strings(got);
    }

    /** {@code decoded}'s commands as lists of ISO-8859-1 strings; errors as they are. */
    private static List<Object> strings(List<Object> decoded) {
        List<Object> out = new ArrayList<>();
        for (Object o : decoded) {
            if (o instanceof byte[][] argv) {
                List<String> args = new ArrayList<>();
                for (byte[] a : argv) args.add(new String(a, StandardCharsets.ISO_8859_1));
                out.add(args);
            } else {
                out.add(o);
            }
        }
        return out;
    }

    @Test
    void pipeline_of1000CommandsInOneBuffer() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            sb.append(multibulk("SET", "key:" + i, "value:" + i));
        }
        feed(sb.toString());
        List<Object> out = decoded();
        assertThat(out).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            assertThat(out.get(i)).isEqualTo(List.of("SET", "key:" + i, "value:" + i));
        }
    }

    @Test
    void manyArguments_beyondInitialArgvCapacity() {
        String[] args = new String[5000];
        for (int i = 0; i < args.length; i++) {
            args[i] = Integer.toString(i);
        }
        feed(multibulk(args));
        assertThat(decoded()).containsExactly(List.of(args));
    }

    @Test
    void bigBulk_assembledAcrossManyReads() {
        byte[] value = new byte[1_000_003];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (i * 31);
        }
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame.writeBytes(bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + value.length + "\r\n"));
        frame.writeBytes(value);
        frame.writeBytes(bytes("\r\n" + multibulk("GET", "k")));
        byte[] all = frame.toByteArray();
        for (int i = 0; i < all.length; i += 4093) {
            feed(Arrays.copyOfRange(all, i, Math.min(all.length, i + 4093)));
        }
        List<Object> out = drain();
        assertThat(out).hasSize(2);
        byte[][] set = (byte[][]) out.get(0);
        assertThat(set).hasNumberOfRows(3);
        assertThat(set[2]).isEqualTo(value);
        assertThat(new String(((byte[][]) out.get(1))[0], StandardCharsets.US_ASCII)).isEqualTo("GET");
    }

    @Test
    void bigBulk_declaredLengthIsNotAllocatedBeforeItsBytesArrive() {
        feed("*2\r\n$3\r\nSET\r\n$400000000\r\n" + "x".repeat(10));
        assertThat(drain()).isEmpty();
        assertThat(decoder.streamingCapacity()).isEqualTo(1024 * 1024);
        feed(new byte[2_000_000]);
        assertThat(decoder.streamingCapacity()).isEqualTo(4 * 1024 * 1024);
    }

    @Test
    void bigBulk_upTo1MiB_isAllocatedOnceAtItsLength() {
        int length = 1024 * 1024;
        feed("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + length + "\r\n" + "x".repeat(10));
        assertThat(decoder.streamingCapacity()).isEqualTo(length);
        feed(new byte[length - 10 - 5000]);
        assertThat(decoder.streamingCapacity()).isEqualTo(length);
        feed(new byte[5000]);
        feed("\r\n");
        List<Object> out = drain();
        assertThat(out).hasSize(1);
        assertThat(((byte[][]) out.get(0))[2]).hasSize(length);
    }

    @Test
    void hugeDeclaredLength_isInvalidWithoutAllocation() {
        assertError("*2\r\n$3\r\nSET\r\n$1099511627776\r\n", "ERR Protocol error: invalid bulk length");
        assertThat(decoder.streamingCapacity()).isZero();
    }

    @Test
    void parse_worksWithoutAChannel() {
        RespDecoder d = new RespDecoder(limits, () -> true);
        List<Object> out = new ArrayList<>();
        ByteBuf buf = wrap(bytes(multibulk("PING") + multibulk("ECHO", "hi") + "*2\r\n$3"));
        d.parse(buf, out);
        assertThat(out).hasSize(2);
        assertThat(buf.readableBytes()).isEqualTo(2); // "$3" awaits its line end; "*2\r\n" was consumed
    }

    // ---- inline ----

    @Test
    void inline_splitsOnWhitespace() {
        feed("SET  key\tvalue \r\nPING\n");
        assertThat(decoded()).containsExactly(List.of("SET", "key", "value"), List.of("PING"));
    }

    @Test
    void inline_doubleQuotesWithEscapes() {
        feed("SET \"a b\" \"\\n\\r\\t\\b\\a\\\\\\\"\\x41\\x7a\\q\"\r\n");
        assertThat(decoded()).containsExactly(List.of("SET", "a b", "\n\r\t\b\u0007\\\"Azq"));
    }

    @Test
    void inline_singleQuotes() {
        feed("SET 'it\\'s' 'a\\nb' ''\r\n");
        assertThat(decoded()).containsExactly(List.of("SET", "it's", "a\\nb", ""));
    }

    @Test
    void inline_quoteInsideTokenJoinsIt() {
        feed("SET foo\"bar baz\" x\n");
        assertThat(decoded()).containsExactly(List.of("SET", "foobar baz", "x"));
    }

    @Test
    void inline_invalidHexEscapeIsLiteral() {
        feed("ECHO \"\\xZZ\"\n");
        assertThat(decoded()).containsExactly(List.of("ECHO", "xZZ"));
    }

    @Test
    void inline_emptyAndBlankLinesAreIgnored() {
        feed("\r\n\n   \r\n\t\n" + "ECHO x\n");
        assertThat(decoded()).containsExactly(List.of("ECHO", "x"));
    }

    @Test
    void inline_closingQuoteFollowedByNonSpace_isUnbalanced() {
        assertError("SET \"a\"b\r\n", "ERR Protocol error: unbalanced quotes in request");
    }

    @Test
    void inline_unterminatedQuote_isUnbalanced() {
        assertError("SET 'abc\r\n", "ERR Protocol error: unbalanced quotes in request");
    }

    @Test
    void inline_tooBig() {
        feed(new byte[] {'S'});
        feed("x".repeat(1024 * 1024));
        assertThat(decoded()).containsExactly(new ProtocolError("ERR Protocol error: too big inline request"));
    }

    @Test
    void inline_longLineWithinOneReadIsAccepted() {
        feed("ECHO " + "y".repeat(100_000) + "\n");
        assertThat(decoded()).containsExactly(List.of("ECHO", "y".repeat(100_000)));
    }

    // ---- errors ----

    @Test
    void invalidMultibulkLength() {
        assertError("*abc\r\n", "ERR Protocol error: invalid multibulk length");
    }

    @Test
    void invalidMultibulkLength_aboveIntMax() {
        assertError("*2147483648\r\n", "ERR Protocol error: invalid multibulk length");
    }

    @Test
    void invalidMultibulkLength_empty() {
        assertError("*\r\n", "ERR Protocol error: invalid multibulk length");
    }

    @Test
    void invalidMultibulkLength_leadingPlusOrZero() {
        assertError("*+1\r\n", "ERR Protocol error: invalid multibulk length");
        RespDecoder d = new RespDecoder(limits, () -> true);
        List<Object> out = new ArrayList<>();
        d.parse(wrap(bytes("*01\r\n")), out);
        assertThat(out).containsExactly(new ProtocolError("ERR Protocol error: invalid multibulk length"));
    }

    @Test
    void invalidBulkLength_notANumber() {
        assertError("*1\r\n$x\r\n", "ERR Protocol error: invalid bulk length");
    }

    @Test
    void shortBulkLengths_zeroIsAnEmptyArgument_aLeadingZeroIsInvalid() {
        feed("*2\r\n$4\r\nECHO\r\n$0\r\n\r\n*1\r\n$12345\r\n" + "x".repeat(12345) + "\r\n");
        assertThat(decoded()).containsExactly(List.of("ECHO", ""), List.of("x".repeat(12345)));
        assertError("*1\r\n$01\r\nx\r\n", "ERR Protocol error: invalid bulk length");
        RespDecoder d = new RespDecoder(limits, () -> true);
        List<Object> out = new ArrayList<>();
        d.parse(wrap(bytes("*1\r\n$00\r\n\r\n")), out);
        assertThat(out).containsExactly(new ProtocolError("ERR Protocol error: invalid bulk length"));
    }

    @Test
    void invalidBulkLength_negative() {
        assertError("*1\r\n$-1\r\n", "ERR Protocol error: invalid bulk length");
    }

    @Test
    void invalidBulkLength_aboveProtoMaxBulkLen_changedLive() {
        feed(multibulk("x".repeat(1001)));
        assertThat(drain()).hasSize(1);
        limits.setMaxBulkLength(1000);
        assertError("*1\r\n$1001\r\n", "ERR Protocol error: invalid bulk length");
    }

    @Test
    void expectedDollar() {
        assertError("*1\r\n:5\r\n", "ERR Protocol error: expected '$', got ':'");
    }

    @Test
    void tooBigMbulkCountString() {
        assertError("*" + "1".repeat(70_000), "ERR Protocol error: too big mbulk count string");
    }

    @Test
    void tooBigBulkCountString() {
        assertError("*1\r\n$" + "1".repeat(70_000), "ERR Protocol error: too big bulk count string");
    }

    @Test
    void unauthenticated_multibulkLength() {
        authenticated.set(false);
        feed(multibulk("1", "2", "3", "4", "5", "6", "7", "8", "9", "10"));
        assertThat(drain()).hasSize(1);
        assertError("*11\r\n", "ERR Protocol error: unauthenticated multibulk length");
    }

    @Test
    void unauthenticated_bulkLength() {
        authenticated.set(false);
        feed(multibulk("AUTH", "x".repeat(16384)));
        assertThat(drain()).hasSize(1);
        assertError("*2\r\n$4\r\nAUTH\r\n$16385\r\n", "ERR Protocol error: unauthenticated bulk length");
    }

    /** The limit holds when the oversized bulk's bytes are all there too (and each of the fast path's bounds with it). */
    @Test
    void unauthenticated_bulkLength_wholeInOneRead() {
        authenticated.set(false);
        assertError(multibulk("AUTH", "x".repeat(16385)), "ERR Protocol error: unauthenticated bulk length");
    }

    @Test
    void authenticatedConnection_hasNoSmallLimits() {
        feed(multibulk("SET", "k", "x".repeat(20000)) + "*11\r\n");
        assertThat(drain()).hasSize(1);
        assertThat(decoder.failed()).isFalse();
    }

    @Test
    void queryBufferLimit() {
        limits.setQueryBufferLimit(100_000);
        feed("*1\r\n$150000\r\n");
        feed(new byte[60_000]);
        assertThat(drain()).isEmpty();
        feed(new byte[60_000]);
        assertThat(decoded()).containsExactly(new ProtocolError(RespDecoder.QUERY_BUFFER_LIMIT));
    }

    @Test
    void commandsBeforeAnError_areEmittedFirst_andLaterBytesIgnored() {
        feed(multibulk("PING") + "*1\r\n$x\r\n" + multibulk("GET", "a"));
        assertThat(decoded()).containsExactly(
                List.of("PING"), new ProtocolError("ERR Protocol error: invalid bulk length"));
        feed(multibulk("GET", "b") + "PING\r\n");
        assertThat(drain()).isEmpty();
    }

    @Test
    void numberScanner_followsString2llRules() {
        assertThat(scan("0")).isEqualTo(0L);
        assertThat(scan("7")).isEqualTo(7L);
        assertThat(scan("-7")).isEqualTo(-7L);
        assertThat(scan("1234567890")).isEqualTo(1234567890L);
        assertThat(scan("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
        assertThat(scan("-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
        for (String bad : new String[] {"", "-", "-0", "01", "00", "+1", " 1", "1 ", "1a", "9223372036854775808",
                "-9223372036854775809", "99999999999999999999", "123456789012345678901"}) {
            assertThat(scan(bad)).as("'%s'", bad).isNull();
        }
    }

    private static Long scan(String s) {
        RespDecoder.NumberScanner scanner = new RespDecoder.NumberScanner();
        ByteBuf buf = Unpooled.wrappedBuffer(bytes(s + "\r"));
        assertThat(buf.forEachByte(scanner)).isEqualTo(s.length());
        return scanner.ok() ? scanner.value() : null;
    }

    @Test
    void multibulk_minLongCountIsIgnored_negativeZeroIsInvalid() {
        feed("*-9223372036854775808\r\n" + multibulk("PING"));
        assertThat(decoded()).containsExactly(List.of("PING"));
        assertError("*-0\r\n", "ERR Protocol error: invalid multibulk length");
    }

    @Test
    void header_splitRightAfterCarriageReturn() {
        feed("*1\r");
        feed("\n$4\r");
        feed("\nPING\r");
        assertThat(drain()).isEmpty();
        feed("\n");
        assertThat(decoded()).containsExactly(List.of("PING"));
    }

    @Test
    void expectedDollar_emptyHeaderLine() {
        assertError("*1\r\n\r\n", "ERR Protocol error: expected '$', got ' '");
    }
}
