package io.tide.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol.Command;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * A server's dataset in a form two servers print alike, for the tests that compare one server's data with another's
 * (a primary and its replica, a server before and after a restart).
 */
public final class Datasets {
    private Datasets() {}

    /** Every key of the selected database: type, absolute expiry and content, in a form both servers print alike. */
    public static Map<String, String> dump(Jedis j) {
        Map<String, String> all = new TreeMap<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        TreeSet<String> keys = new TreeSet<>();
        do {
            ScanResult<String> page = j.scan(cursor, new ScanParams().count(100));
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        for (String k : keys) {
            String type = j.type(k);
            String content = switch (type) {
                case "string" -> {
                    String v = j.get(k);
                    // A HyperLogLog's bytes are each server's own encoding of the same set: compare the estimate.
                    yield v.startsWith("HYLL") ? "hll " + pfcount(j, k) : v;
                }
                case "list" -> j.lrange(k, 0, -1).toString();
                case "hash" -> new TreeMap<>(j.hgetAll(k)).toString();
                case "set" -> new TreeSet<>(j.smembers(k)).toString();
                case "zset" -> j.zrangeWithScores(k, 0, -1).stream().map(x -> x.getElement() + "=" + x.getScore())
                        .toList().toString();
                case "stream" -> stream(j, k);
                default -> "?";
            };
            all.put(k, type + " expires " + j.pexpireTime(k) + ": " + content);
        }
        return all;
    }

    /** PFCOUNT, or its error (a string that begins as an HLL's may be one no longer). */
    private static String pfcount(Jedis j, String k) {
        try {
            return Long.toString(j.pfcount(k));
        } catch (redis.clients.jedis.exceptions.JedisDataException e) {
            return e.getMessage() + " (" + j.strlen(k) + " bytes)";
        }
    }

    private static String stream(Jedis j, String k) {
        StringBuilder sb = new StringBuilder();
        for (Object e : (List<?>) j.sendCommand(Command.XRANGE, k, "-", "+")) {
            sb.append(text(e));
        }
        Map<String, Object> info = pairs((List<?>) j.sendCommand(Command.XINFO, "STREAM", k));
        sb.append(" length ").append(info.get("length")).append(" last ").append(text(info.get("last-generated-id")))
                .append(" max-deleted ").append(text(info.get("max-deleted-entry-id")))
                .append(" added ").append(info.get("entries-added"));
        for (Object g : (List<?>) j.sendCommand(Command.XINFO, "GROUPS", k)) {
            Map<String, Object> gi = pairs((List<?>) g);
            String name = text(gi.get("name"));
            sb.append(" group ").append(name).append(" pending ").append(gi.get("pending"))
                    .append(" delivered ").append(text(gi.get("last-delivered-id")))
                    .append(" read ").append(gi.get("entries-read"));
            List<String> consumers = new ArrayList<>();
            for (Object c : (List<?>) j.sendCommand(Command.XINFO, "CONSUMERS", k, name)) {
                Map<String, Object> ci = pairs((List<?>) c);
                consumers.add(text(ci.get("name")) + "/" + ci.get("pending"));
            }
            consumers.sort(null);
            sb.append(" consumers ").append(consumers);
            for (Object p : (List<?>) j.sendCommand(Command.XPENDING, k, name, "-", "+", "1000")) {
                List<?> entry = (List<?>) p; // id, consumer, idle time (each server's own clock), deliveries
                sb.append(" pel ").append(text(entry.get(0))).append('@').append(text(entry.get(1)))
                        .append('x').append(entry.get(3));
            }
        }
        return sb.toString();
    }

    private static Map<String, Object> pairs(List<?> flat) {
        Map<String, Object> m = new TreeMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) m.put(text(flat.get(i)), flat.get(i + 1));
        return m;
    }

    private static String text(Object o) {
        if (o instanceof byte[] b) return new String(b, java.nio.charset.StandardCharsets.UTF_8);
        if (o instanceof List<?> l) {
            List<String> parts = new ArrayList<>();
            for (Object x : l) parts.add(text(x));
            return parts.toString();
        }
        return String.valueOf(o);
    }
}
