package io.tide.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * Thread-safe (stateless): writes {@link Reply} values as RESP2 or RESP3. This is the one place that
 * holds the RESP2 downgrade rules: nulls become {@code $-1}/{@code *-1}, maps flat arrays of 2n items,
 * sets and pushes arrays, doubles, verbatim strings and big numbers bulk strings, booleans
 * {@code :1}/{@code :0}. Numbers and lengths are written as digits straight into the buffer.
 */
public final class RespWriter {

    private static final short CRLF = ('\r' << 8) | '\n';
    private static final int CACHED_NUMBERS = 1024;
    /** ASCII digits of 0..1023. */
    private static final byte[][] DIGITS = new byte[CACHED_NUMBERS][];
    /** {@code $n\r\n} for n in 0..1023. */
    private static final byte[][] BULK_HEADERS = new byte[CACHED_NUMBERS][];
    private static final byte[] MIN_LONG = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_BULK_2 = ascii("$-1\r\n");
    private static final byte[] NULL_ARRAY_2 = ascii("*-1\r\n");
    private static final byte[] NULL_3 = ascii("_\r\n");
    private static final byte[] OK = ascii("+OK\r\n");
    private static final byte[] TRUE_3 = ascii("#t\r\n");
    private static final byte[] FALSE_3 = ascii("#f\r\n");
    private static final byte[] ONE_2 = ascii(":1\r\n");
    private static final byte[] ZERO_2 = ascii(":0\r\n");

    /** Doubles whose integer value is printed as an integer, as Redis's double2ll allows: |d| <= 2^62. */
    private static final double INTEGER_DOUBLE_LIMIT = (double) (Long.MAX_VALUE / 2);

    static {
        for (int i = 0; i < CACHED_NUMBERS; i++) {
            DIGITS[i] = ascii(Integer.toString(i));
            BULK_HEADERS[i] = ascii("$" + i + "\r\n");
        }
    }

    private RespWriter() {}

    /** Writes {@code reply} to {@code out} in RESP {@code protocolVersion} (2 or 3). */
    public static void write(ByteBuf out, Reply reply, int protocolVersion) {
        boolean resp3 = protocolVersion >= 3;
        switch (reply) {
            case null -> out.writeBytes(resp3 ? NULL_3 : NULL_BULK_2);
            case Reply.Bulk b -> writeBulk(out, b.bytes());
            case Reply.Int i -> writeHeader(out, ':', i.value());
            case Reply.Simple s -> {
                if (s == Reply.OK) {
                    out.writeBytes(OK);
                } else {
                    out.writeByte('+');
                    ByteBufUtil.writeUtf8(out, s.text());
                    out.writeShort(CRLF);
                }
            }
            case Reply.Raw r -> out.writeBytes(r.encoded());
            case Reply.BulkView v -> writeBulk(out, v.array(), v.offset(), v.length());
            case Reply.Slice s -> writeBulk(out, s.array(), s.offset(), s.length());
            case Reply.IntView i -> writeHeader(out, ':', i.value());
            case Reply.Encoded e -> {
                for (byte[] chunk : e.chunks()) out.writeBytes(chunk);
            }
            case Reply.Later l -> throw new IllegalStateException("a deferred reply reached the encoder");
            case Reply.Array a -> writeAggregate(out, '*', a.items(), a.items().length, protocolVersion);
            case Reply.NullBulk n -> out.writeBytes(resp3 ? NULL_3 : NULL_BULK_2);
            case Reply.NullArray n -> out.writeBytes(resp3 ? NULL_3 : NULL_ARRAY_2);
            case Reply.Error e -> {
                out.writeByte('-');
                ByteBufUtil.writeUtf8(out, sanitize(e.text()));
                out.writeShort(CRLF);
            }
            case Reply.MapReply m -> {
                Reply[] kv = m.keysAndValues();
                if (resp3) {
                    writeAggregate(out, '%', kv, kv.length / 2, protocolVersion);
                } else {
                    writeAggregate(out, '*', kv, kv.length, protocolVersion);
                }
            }
            case Reply.SetReply s -> writeAggregate(out, resp3 ? '~' : '*', s.items(), s.items().length, protocolVersion);
            case Reply.Push p -> writeAggregate(out, resp3 ? '>' : '*', p.items(), p.items().length, protocolVersion);
            case Reply.Double d -> {
                String text = formatDouble(d.value());
                if (resp3) {
                    out.writeByte(',');
                    out.writeCharSequence(text, StandardCharsets.US_ASCII);
                    out.writeShort(CRLF);
                } else {
                    writeHeader(out, '$', text.length());
                    out.writeCharSequence(text, StandardCharsets.US_ASCII);
                    out.writeShort(CRLF);
                }
            }
            case Reply.Bool b -> {
                if (resp3) {
                    out.writeBytes(b.value() ? TRUE_3 : FALSE_3);
                } else {
                    out.writeBytes(b.value() ? ONE_2 : ZERO_2);
                }
            }
            case Reply.Verbatim v -> {
                if (resp3) {
                    byte[] format = v.format().getBytes(StandardCharsets.US_ASCII);
                    writeHeader(out, '=', format.length + 1L + v.text().length);
                    out.writeBytes(format);
                    out.writeByte(':');
                    out.writeBytes(v.text());
                    out.writeShort(CRLF);
                } else {
                    writeBulk(out, v.text());
                }
            }
            case Reply.BigNumber n -> {
                if (resp3) {
                    out.writeByte('(');
                    out.writeCharSequence(n.digits(), StandardCharsets.US_ASCII);
                    out.writeShort(CRLF);
                } else {
                    writeHeader(out, '$', n.digits().length());
                    out.writeCharSequence(n.digits(), StandardCharsets.US_ASCII);
                    out.writeShort(CRLF);
                }
            }
        }
    }

    /**
     * A connection's output: the buffer replies are appended to now, which the connection hands to its socket (without
     * flushing it) once it holds at least {@link BulkArrayEncoder#CHUNK} bytes and starts a new one.
     */
    public interface Output {
        /** The buffer to append to. */
        ByteBuf buffer();

        /** Called after each piece is appended: hands the buffer on if it is full. */
        void appended();

        /** Appends encoded bytes that nothing will change (a chunk of {@link Reply.Encoded}); may keep the array. */
        default void appendOwned(byte[] chunk) {
            buffer().writeBytes(chunk);
            appended();
        }
    }

    /**
     * Writes {@code reply} to {@code out} as {@link #write(ByteBuf, Reply, int)} does, but aggregates and encoded arrays
     * piece by piece, letting {@code out} hand each full buffer on: a reply of any size is written in chunks, never
     * into one buffer grown (and copied) to its whole size.
     */
    public static void write(Output out, Reply reply, int protocolVersion) {
        boolean resp3 = protocolVersion >= 3;
        switch (reply) {
            case Reply.Encoded e -> {
                for (byte[] chunk : e.chunks()) out.appendOwned(chunk);
            }
            case Reply.Array a -> writeAggregate(out, '*', a.items(), a.items().length, protocolVersion);
            case Reply.SetReply s -> writeAggregate(out, resp3 ? '~' : '*', s.items(), s.items().length, protocolVersion);
            case Reply.Push p -> writeAggregate(out, resp3 ? '>' : '*', p.items(), p.items().length, protocolVersion);
            case Reply.MapReply m -> {
                Reply[] kv = m.keysAndValues();
                writeAggregate(out, resp3 ? '%' : '*', kv, resp3 ? kv.length / 2 : kv.length, protocolVersion);
            }
            case null, default -> {
                write(out.buffer(), reply, protocolVersion);
                out.appended();
            }
        }
    }

    private static void writeAggregate(Output out, char type, Reply[] items, int count, int protocolVersion) {
        writeHeader(out.buffer(), type, count);
        for (Reply item : items) {
            write(out, item, protocolVersion);
        }
    }

    /** The bytes of {@code reply} in RESP {@code protocolVersion}; a convenience for tests and tools. */
    public static byte[] encode(Reply reply, int protocolVersion) {
        ByteBuf buf = Unpooled.buffer(64);
        try {
            write(buf, reply, protocolVersion);
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    /** Writes {@code $len\r\nbytes\r\n}. */
    public static void writeBulk(ByteBuf out, byte[] bytes) {
        if (bytes.length < CACHED_NUMBERS) {
            out.writeBytes(BULK_HEADERS[bytes.length]);
        } else {
            writeHeader(out, '$', bytes.length);
        }
        out.writeBytes(bytes);
        out.writeShort(CRLF);
    }

    /** Writes {@code $len\r\n} and {@code length} bytes of {@code bytes} from {@code offset}, then {@code \r\n}. */
    public static void writeBulk(ByteBuf out, byte[] bytes, int offset, int length) {
        if (length < CACHED_NUMBERS) {
            out.writeBytes(BULK_HEADERS[length]);
        } else {
            writeHeader(out, '$', length);
        }
        out.writeBytes(bytes, offset, length);
        out.writeShort(CRLF);
    }

    /**
     * Redis 7.2's double text ({@code d2string}): {@code nan}, {@code inf}, {@code -inf}, {@code 0} or
     * {@code -0}; an integer for integral values up to 2^62 in magnitude; otherwise the shortest digits
     * that round-trip, laid out as C's {@code %.17g} lays them out: plain for decimal exponents -4 to
     * 16, else {@code d.ddde+XX} with at least two exponent digits.
     */
    public static String formatDouble(double d) {
        if (java.lang.Double.isNaN(d)) {
            return "nan";
        }
        if (java.lang.Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return (1.0 / d) < 0 ? "-0" : "0";
        }
        if (d >= -INTEGER_DOUBLE_LIMIT && d <= INTEGER_DOUBLE_LIMIT && d == (long) d) {
            return Long.toString((long) d);
        }
        // Double.toString (JDK 19+) yields the shortest round-tripping digits; re-lay them out.
        String s = java.lang.Double.toString(Math.abs(d));
        int e = s.indexOf('E');
        String mantissa = e < 0 ? s : s.substring(0, e);
        int exponent = e < 0 ? 0 : Integer.parseInt(s.substring(e + 1));
        int dot = mantissa.indexOf('.');
        StringBuilder digits = new StringBuilder(mantissa.length());
        digits.append(mantissa, 0, dot).append(mantissa, dot + 1, mantissa.length());
        int point = dot + exponent; // value = 0.<digits> * 10^point
        int lead = 0;
        while (lead < digits.length() - 1 && digits.charAt(lead) == '0') {
            lead++;
        }
        digits.delete(0, lead);
        point -= lead;
        int len = digits.length();
        while (len > 1 && digits.charAt(len - 1) == '0') {
            len--;
        }
        digits.setLength(len);
        if (len == 2) {
            // Double.toString keeps two digits where one would do (4.9E-324); Redis prints the shortest (5e-324).
            int first = digits.charAt(0) - '0';
            boolean up = digits.charAt(1) >= '5';
            for (int candidate : up ? new int[] {first + 1, first} : new int[] {first, first + 1}) {
                int p = candidate == 10 ? point + 1 : point;
                int c = candidate == 10 ? 1 : candidate;
                if (java.lang.Double.parseDouble(c + "e" + (p - 1)) == Math.abs(d)) {
                    digits.setLength(0);
                    digits.append(c);
                    point = p;
                    len = 1;
                    break;
                }
            }
        }
        int x = point - 1; // the exponent of %e notation
        StringBuilder sb = new StringBuilder(len + 8);
        if (d < 0) {
            sb.append('-');
        }
        if (x < -4 || x >= 17) {
            sb.append(digits.charAt(0));
            if (len > 1) {
                sb.append('.').append(digits, 1, len);
            }
            sb.append('e').append(x < 0 ? '-' : '+');
            int ax = Math.abs(x);
            if (ax < 10) {
                sb.append('0');
            }
            sb.append(ax);
        } else if (x >= 0) {
            if (len <= x + 1) {
                sb.append(digits);
                sb.repeat('0', x + 1 - len);
            } else {
                sb.append(digits, 0, x + 1).append('.').append(digits, x + 1, len);
            }
        } else {
            sb.append("0.");
            sb.repeat('0', -x - 1);
            sb.append(digits);
        }
        return sb.toString();
    }

    private static void writeAggregate(ByteBuf out, char type, Reply[] items, int count, int protocolVersion) {
        writeHeader(out, type, count);
        for (Reply item : items) {
            write(out, item, protocolVersion);
        }
    }

    /** Writes {@code <type><n>\r\n}. */
    private static void writeHeader(ByteBuf out, char type, long n) {
        out.writeByte(type);
        writeDecimal(out, n);
        out.writeShort(CRLF);
    }

    /** Writes the ASCII digits of {@code v} without allocating. */
    public static void writeDecimal(ByteBuf out, long v) {
        if (v >= 0 && v < CACHED_NUMBERS) {
            out.writeBytes(DIGITS[(int) v]);
            return;
        }
        if (v == Long.MIN_VALUE) {
            out.writeBytes(MIN_LONG);
            return;
        }
        boolean negative = v < 0;
        long u = negative ? -v : v;
        int size = negative ? 2 : 1;
        for (long t = u; t >= 10; t /= 10) {
            size++;
        }
        out.ensureWritable(size);
        int start = out.writerIndex();
        int pos = start + size;
        do {
            out.setByte(--pos, (int) ('0' + u % 10));
            u /= 10;
        } while (u != 0);
        if (negative) {
            out.setByte(--pos, '-');
        }
        out.writerIndex(start + size);
    }

    private static String sanitize(String text) {
        if (text.indexOf('\r') < 0 && text.indexOf('\n') < 0) {
            return text;
        }
        return text.replace('\r', ' ').replace('\n', ' ');
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
