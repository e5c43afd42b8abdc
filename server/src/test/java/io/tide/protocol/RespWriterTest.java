package io.tide.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RespWriterTest {

    private static String resp2(Reply r) {
        return new String(RespWriter.encode(r, 2), StandardCharsets.ISO_8859_1);
    }

    private static String resp3(Reply r) {
        return new String(RespWriter.encode(r, 3), StandardCharsets.ISO_8859_1);
    }

    private static void both(Reply r, String v2, String v3) {
        assertThat(resp2(r)).as("RESP2").isEqualTo(v2);
        assertThat(resp3(r)).as("RESP3").isEqualTo(v3);
    }

    private static void same(Reply r, String v) {
        both(r, v, v);
    }

    @Test
    void simple() {
        same(Reply.OK, "+OK\r\n");
        same(Reply.simple("PONG"), "+PONG\r\n");
        same(new Reply.Simple("OK"), "+OK\r\n");
    }

    @Test
    void error_sanitizesNewlines() {
        same(Reply.error("ERR bad"), "-ERR bad\r\n");
        same(Reply.error("ERR a\r\nb\nc"), "-ERR a  b c\r\n");
    }

    @Test
    void integers() {
        same(Reply.integer(0), ":0\r\n");
        same(Reply.integer(1023), ":1023\r\n");
        same(Reply.integer(1024), ":1024\r\n");
        same(Reply.integer(-1), ":-1\r\n");
        same(Reply.integer(-1234567), ":-1234567\r\n");
        same(Reply.integer(Long.MAX_VALUE), ":9223372036854775807\r\n");
        same(Reply.integer(Long.MIN_VALUE), ":-9223372036854775808\r\n");
    }

    @Test
    void writeDecimal_matchesLongToString() {
        long[] samples = {0, 9, 10, 99, 100, 1023, 1024, 999_999, 1_000_000, -9, -10, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1};
        for (long v : samples) {
            ByteBuf buf = Unpooled.buffer(1);
            RespWriter.writeDecimal(buf, v);
            assertThat(buf.toString(StandardCharsets.US_ASCII)).isEqualTo(Long.toString(v));
            buf.release();
        }
    }

    @Test
    void bulk() {
        same(Reply.bulk("hello"), "$5\r\nhello\r\n");
        same(Reply.bulk(new byte[0]), "$0\r\n\r\n");
        String big = "z".repeat(5000);
        same(Reply.bulk(big), "$5000\r\n" + big + "\r\n");
        same(Reply.bulk("a\r\nb"), "$4\r\na\r\nb\r\n");
    }

    @Test
    void nulls() {
        both(Reply.NULL, "$-1\r\n", "_\r\n");
        both(Reply.NULL_ARRAY, "*-1\r\n", "_\r\n");
        both(Reply.bulk((byte[]) null), "$-1\r\n", "_\r\n");
    }

    @Test
    void arrays_nested() {
        same(Reply.EMPTY_ARRAY, "*0\r\n");
        Reply r = Reply.array(Reply.bulk("a"), Reply.integer(7), Reply.array(Reply.bulk("b"), Reply.NULL));
        both(r, "*3\r\n$1\r\na\r\n:7\r\n*2\r\n$1\r\nb\r\n$-1\r\n", "*3\r\n$1\r\na\r\n:7\r\n*2\r\n$1\r\nb\r\n_\r\n");
    }

    @Test
    void map_flatInResp2() {
        Reply m = Reply.map(Reply.bulk("k1"), Reply.integer(1), Reply.bulk("k2"), Reply.array(Reply.bulk("x")));
        both(m, "*4\r\n$2\r\nk1\r\n:1\r\n$2\r\nk2\r\n*1\r\n$1\r\nx\r\n",
                "%2\r\n$2\r\nk1\r\n:1\r\n$2\r\nk2\r\n*1\r\n$1\r\nx\r\n");
    }

    @Test
    void nestedMapInArray() {
        Reply r = Reply.array(Reply.map(Reply.bulk("a"), new Reply.Double(1.5)));
        both(r, "*1\r\n*2\r\n$1\r\na\r\n$3\r\n1.5\r\n", "*1\r\n%1\r\n$1\r\na\r\n,1.5\r\n");
    }

    @Test
    void set() {
        Reply s = new Reply.SetReply(new Reply[] {Reply.bulk("a"), Reply.bulk("b")});
        both(s, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "~2\r\n$1\r\na\r\n$1\r\nb\r\n");
    }

    @Test
    void push() {
        Reply p = new Reply.Push(new Reply[] {Reply.bulk("message"), Reply.bulk("ch"), Reply.bulk("hi")});
        both(p, "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n", ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n");
    }

    @Test
    void doubles() {
        both(new Reply.Double(1.5), "$3\r\n1.5\r\n", ",1.5\r\n");
        both(new Reply.Double(3.0), "$1\r\n3\r\n", ",3\r\n");
        both(new Reply.Double(java.lang.Double.POSITIVE_INFINITY), "$3\r\ninf\r\n", ",inf\r\n");
        both(new Reply.Double(java.lang.Double.NEGATIVE_INFINITY), "$4\r\n-inf\r\n", ",-inf\r\n");
        both(new Reply.Double(java.lang.Double.NaN), "$3\r\nnan\r\n", ",nan\r\n");
    }

    @Test
    void formatDouble_cases() {
        assertThat(RespWriter.formatDouble(1.5)).isEqualTo("1.5");
        assertThat(RespWriter.formatDouble(3.0)).isEqualTo("3");
        assertThat(RespWriter.formatDouble(-3.0)).isEqualTo("-3");
        assertThat(RespWriter.formatDouble(0.0)).isEqualTo("0");
        assertThat(RespWriter.formatDouble(-0.0)).isEqualTo("-0");
        assertThat(RespWriter.formatDouble(1e20)).isEqualTo("1e+20");
        assertThat(RespWriter.formatDouble(-1e20)).isEqualTo("-1e+20");
        assertThat(RespWriter.formatDouble(1e18)).isEqualTo("1000000000000000000");
        assertThat(RespWriter.formatDouble(1.5e19)).isEqualTo("1.5e+19");
        assertThat(RespWriter.formatDouble(1e300)).isEqualTo("1e+300");
        assertThat(RespWriter.formatDouble(0.0001)).isEqualTo("0.0001");
        assertThat(RespWriter.formatDouble(0.00001)).isEqualTo("1e-05");
        assertThat(RespWriter.formatDouble(1.25e-7)).isEqualTo("1.25e-07");
        assertThat(RespWriter.formatDouble(0.1)).isEqualTo("0.1");
        assertThat(RespWriter.formatDouble(0.1 + 0.2)).isEqualTo("0.30000000000000004");
        assertThat(RespWriter.formatDouble(3.14159)).isEqualTo("3.14159");
        assertThat(RespWriter.formatDouble(-2.5)).isEqualTo("-2.5");
        assertThat(RespWriter.formatDouble(123456.789)).isEqualTo("123456.789");
        assertThat(RespWriter.formatDouble(1234567890123.5)).isEqualTo("1234567890123.5");
        assertThat(RespWriter.formatDouble(java.lang.Double.MIN_VALUE)).isEqualTo("5e-324");
        assertThat(RespWriter.formatDouble(java.lang.Double.MAX_VALUE)).isEqualTo("1.7976931348623157e+308");
    }

    @Test
    void formatDouble_roundTrips() {
        java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < 10_000; i++) {
            double d = java.lang.Double.longBitsToDouble(random.nextLong());
            if (java.lang.Double.isNaN(d) || java.lang.Double.isInfinite(d)) {
                continue;
            }
            assertThat(java.lang.Double.parseDouble(RespWriter.formatDouble(d))).isEqualTo(d);
        }
    }

    @Test
    void bool() {
        both(new Reply.Bool(true), ":1\r\n", "#t\r\n");
        both(new Reply.Bool(false), ":0\r\n", "#f\r\n");
    }

    @Test
    void verbatim() {
        Reply v = new Reply.Verbatim("txt", "Some string".getBytes(StandardCharsets.US_ASCII));
        both(v, "$11\r\nSome string\r\n", "=15\r\ntxt:Some string\r\n");
    }

    @Test
    void bigNumber() {
        Reply n = new Reply.BigNumber("3492890328409238509324850943850943825024385");
        both(n, "$43\r\n3492890328409238509324850943850943825024385\r\n",
                "(3492890328409238509324850943850943825024385\r\n");
    }

    @Test
    void raw() {
        same(new Reply.Raw("+QUEUED\r\n".getBytes(StandardCharsets.US_ASCII)), "+QUEUED\r\n");
    }

    @Test
    void write_appendsToExistingBuffer() {
        ByteBuf buf = Unpooled.buffer();
        RespWriter.write(buf, Reply.OK, 2);
        RespWriter.write(buf, Reply.integer(5), 3);
        assertThat(buf.toString(StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n:5\r\n");
        buf.release();
    }
}
