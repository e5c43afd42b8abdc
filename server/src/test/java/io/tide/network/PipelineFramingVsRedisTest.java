package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Pipelines of requests sent to a real redis-server and to Tide in the same pieces (random TCP writes): the replies are
 * byte for byte the same, in RESP2 and RESP3 (every other round). Tide's decoder reads a plainly framed request straight from the read buffer's memory and the
 * rest field by field (RespDecoder.fastCommands and the general path); here both meet real reads, io_uring's ring slices
 * and partial requests kept across reads, with commands of 1 to 40 arguments, arguments with CR, LF, '$' and '*' inside,
 * values over 16 KB and over 32 KB (read as they arrive), inline commands, {@code *0} and {@code *-1} between requests,
 * blocking commands (BLPOP timing out, or served by an earlier LPUSH) and transactions among them, and, in some rounds, a malformed header at the end:
 * the same error, after the same replies, then the close.
 */
class PipelineFramingVsRedisTest extends VsRedis {

    PipelineFramingVsRedisTest() {
        super("frame:");
    }

    private static final String ALPHABET = "ab\r\n$*0-9";
    private static final String[] MALFORMED = {
        "*2\r\n$4\r\nECHO\r\n$05\r\nhello\r\n", "*2\r\n$4\r\nECHO\r\n$x\r\n", "*05\r\n", "*1a\r\n", "*2\r\n$4\r\nECHO\r\n#3\r\n",
        "*2\r\n$4\r\nECHO\r\n$-3\r\n", "*99999999999\r\n",
    };

    @Test
    void randomPipelines_inRandomPieces_getRedissRepliesByteForByte() throws IOException {
        SplittableRandom rnd = new SplittableRandom(11);
        for (int round = 0; round < 60; round++) {
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            int replies = 0;
            int commands = 1 + rnd.nextInt(30);
            for (int c = 0; c < commands; c++) {
                if (rnd.nextInt(6) == 0) stream.writeBytes(ascii(new String[] {"*0\r\n", "*-1\r\n", "\r\n"}[rnd.nextInt(3)]));
                replies++;
                switch (rnd.nextInt(8)) {
                    case 0 -> stream.writeBytes(ascii(rnd.nextBoolean() ? "PING\r\n" : "ECHO inline-" + c + "\r\n"));
                    case 1 -> stream.writeBytes(RawClient.encode("ECHO", value(rnd)));
                    case 2 -> stream.writeBytes(RawClient.encode("SET", k("s" + rnd.nextInt(8)), value(rnd)));
                    case 3 -> stream.writeBytes(RawClient.encode("GET", k("s" + rnd.nextInt(8))));
                    case 4 -> {
                        List<String> args = new ArrayList<>(List.of("MSET"));
                        for (int i = 1 + rnd.nextInt(19); i > 0; i--) {
                            args.add(k("m" + rnd.nextInt(30)));
                            args.add(value(rnd));
                        }
                        stream.writeBytes(RawClient.encode(args.toArray(String[]::new)));
                    }
                    case 5 -> { // now and then a blocking command the requests after it wait for (it times out: nil)
                        stream.writeBytes(rnd.nextInt(5) == 0
                                ? RawClient.encode("BLPOP", k("l" + rnd.nextInt(30)), "0.01")
                                : RawClient.encode("LPUSH", k("l" + rnd.nextInt(30)), value(rnd)));
                    }
                    case 6 -> { // a transaction: MULTI, two queued commands, EXEC
                        stream.writeBytes(RawClient.encode("MULTI"));
                        stream.writeBytes(RawClient.encode("SET", k("s" + rnd.nextInt(8)), value(rnd)));
                        stream.writeBytes(RawClient.encode("MGET", k("s" + rnd.nextInt(8)), k("m" + rnd.nextInt(30))));
                        stream.writeBytes(RawClient.encode("EXEC"));
                        replies += 3;
                    }
                    default -> {
                        List<String> args = new ArrayList<>(List.of("EXISTS"));
                        for (int i = 1 + rnd.nextInt(39); i > 0; i--) args.add(k((rnd.nextBoolean() ? "s" : "m") + rnd.nextInt(30)));
                        stream.writeBytes(RawClient.encode(args.toArray(String[]::new)));
                    }
                }
            }
            boolean malformed = round % 4 == 3;
            if (malformed) stream.writeBytes(ascii(MALFORMED[rnd.nextInt(MALFORMED.length)]));
            byte[] all = stream.toByteArray();
            List<int[]> pieces = new ArrayList<>();
            for (int at = 0; at < all.length; ) {
                int len = Math.min(all.length - at, 1 + rnd.nextInt(Math.max(1, all.length / 4)));
                pieces.add(new int[] {at, len});
                at += len;
            }
            if (round % 2 == 1) protocol(3); // both connections speak RESP3 (BLPOP's nil, EXEC's array differ)
            String fromRedis = exchange(r(), all, pieces, replies, malformed);
            String fromTide = exchange(t(), all, pieces, replies, malformed);
            assertThat(fromTide).as("round %d (RESP%d, %d commands%s)", round, 2 + round % 2, commands,
                            malformed ? ", malformed end" : "")
                    .isEqualTo(fromRedis);
            closeClients();
        }
    }

    /** Sends {@code all} in {@code pieces}, one write each, and returns the replies (and whether the server closed). */
    private static String exchange(RawClient c, byte[] all, List<int[]> pieces, int replies, boolean malformed)
            throws IOException {
        c.socket().setTcpNoDelay(true);
        for (int[] p : pieces) c.send(java.util.Arrays.copyOfRange(all, p[0], p[0] + p[1]));
        StringBuilder got = new StringBuilder();
        for (int i = 0; i < replies; i++) got.append(c.readReply());
        if (malformed) got.append(c.readReply()).append(c.isClosedByServer() ? "<closed>" : "<open>");
        return got.toString();
    }

    /** A value: mostly up to 80 bytes of CR, LF, '$', '*', digits and letters; now and then over 16 KB or over 32 KB. */
    private static String value(SplittableRandom rnd) {
        int n = switch (rnd.nextInt(40)) {
            case 0 -> 16_384 + rnd.nextInt(2_000);
            case 1 -> 40_000 + rnd.nextInt(10_000);
            default -> rnd.nextInt(81);
        };
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) sb.append(ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
        return sb.toString();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
