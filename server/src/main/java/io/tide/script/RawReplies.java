package io.tide.script;

import io.tide.protocol.Reply;
import java.nio.charset.StandardCharsets;

/** Decodes the pre-encoded RESP of a {@link Reply.Raw} back into a reply, for scripts. Thread-safe (stateless). */
final class RawReplies {

    private RawReplies() {}

    static Reply parse(byte[] b) {
        int[] pos = {0};
        return read(b, pos);
    }

    private static Reply read(byte[] b, int[] pos) {
        char type = (char) b[pos[0]++];
        String line = line(b, pos);
        switch (type) {
            case '+': return Reply.simple(line);
            case '-': return Reply.error(line);
            case ':': return Reply.integer(Long.parseLong(line));
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) return Reply.NULL;
                byte[] out = new byte[n];
                System.arraycopy(b, pos[0], out, 0, n);
                pos[0] += n + 2;
                return Reply.bulk(out);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) return Reply.NULL_ARRAY;
                Reply[] items = new Reply[n];
                for (int i = 0; i < n; i++) items[i] = read(b, pos);
                return Reply.array(items);
            }
            case '_': return Reply.NULL;
            case ',': return new Reply.Double(switch (line) { // GEOPOS's coordinates in RESP3
                case "inf" -> java.lang.Double.POSITIVE_INFINITY;
                case "-inf" -> java.lang.Double.NEGATIVE_INFINITY;
                default -> java.lang.Double.parseDouble(line);
            });
            default: return Reply.bulk(line);
        }
    }

    private static String line(byte[] b, int[] pos) {
        int start = pos[0];
        while (b[pos[0]] != '\r') pos[0]++;
        String s = new String(b, start, pos[0] - start, StandardCharsets.UTF_8);
        pos[0] += 2;
        return s;
    }
}
