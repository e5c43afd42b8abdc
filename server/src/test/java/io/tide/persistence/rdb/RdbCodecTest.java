package io.tide.persistence.rdb;

import static io.tide.persistence.rdb.RdbValues.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.store.CollectionValue;
import io.tide.util.Lzf;
import io.tide.store.HashValue;
import io.tide.store.ListValue;
import io.tide.store.SetValue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Round trips through the encoder and decoder, legacy payloads built by hand, and corrupt input. */
class RdbCodecTest {

    static Stream<Arguments> values() {
        return Stream.of(
                Arguments.of("short string", b("hello"), "embstr"),
                Arguments.of("int string", 12345L, "int"),
                Arguments.of("big int string", Long.MIN_VALUE, "int"),
                Arguments.of("long string", b("x".repeat(5000) + "tail"), "raw"),
                Arguments.of("small list", list(10, 3), "listpack"),
                Arguments.of("big list", list(3000, 20), "quicklist"),
                Arguments.of("huge element list", hugeElementList(), "quicklist"),
                Arguments.of("small hash", hash(10, 5), "listpack"),
                Arguments.of("big hash", hash(1000, 5), "hashtable"),
                Arguments.of("long value hash", hash(3, 100), "hashtable"),
                Arguments.of("small intset", set(10, true), "intset"),
                Arguments.of("big int set", set(1000, true), "hashtable"),
                Arguments.of("small string set", set(10, false), "listpack"),
                Arguments.of("big string set", set(1000, false), "hashtable"),
                Arguments.of("small zset", zset(10), "listpack"),
                Arguments.of("big zset", zset(500), "btree"),
                Arguments.of("stream", stream(300, true), "stream"),
                Arguments.of("stream without groups", stream(5, false), "stream"));
    }

    private static ListValue hugeElementList() {
        ListValue l = list(5, 1);
        byte[] big = b("H".repeat(10_000));
        l.beforeAdding(L.listMaxListpackSize, 0, big.length, 1);
        l.push(big, false);
        l.push(b("after"), false);
        return l;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("values")
    void dump_thenDeserialize_givesSameContentsAndEncoding(String name, Object value, String encoding) {
        if (value instanceof CollectionValue c) assertThat(c.encodingName()).isEqualTo(encoding);
        for (boolean compress : new boolean[] {true, false}) {
            byte[] payload = Dump.serialize(value, compress);
            assertThat(Dump.verify(payload)).isTrue();
            Object back = Dump.deserialize(payload, L);
            assertThat(describe(back)).isEqualTo(describe(value));
            if (back instanceof CollectionValue c) assertThat(c.encodingName()).isEqualTo(encoding);
        }
    }

    @Test
    void crc64_matchesRedisCheckValue() {
        byte[] s = b("123456789");
        assertThat(Crc64.of(s, 0, s.length)).isEqualTo(0xe9c6d914c4b8d9caL);
        long half = Crc64.update(0, s, 0, 4);
        assertThat(Crc64.update(half, s, 4, 5)).isEqualTo(0xe9c6d914c4b8d9caL);
    }

    @Test
    void crc64_eightBytesAtATime_matchesTheBitwiseDefinition_atAnyOffsetAndSplit() {
        Random rnd = new Random(5);
        for (int round = 0; round < 500; round++) {
            byte[] data = new byte[rnd.nextInt(300)];
            rnd.nextBytes(data);
            int off = data.length == 0 ? 0 : rnd.nextInt(data.length);
            int len = data.length - off;
            long expected = 0;
            for (int i = off; i < off + len; i++) { // reflected, one bit at a time, as Redis's crc64 defines it
                expected ^= data[i] & 0xff;
                for (int bit = 0; bit < 8; bit++) expected = (expected & 1) != 0 ? (expected >>> 1) ^ 0x95ac9329ac4bc9b5L : expected >>> 1;
            }
            assertThat(Crc64.of(data, off, len)).isEqualTo(expected);
            int split = rnd.nextInt(len + 1);
            assertThat(Crc64.update(Crc64.update(0, data, off, split), data, off + split, len - split)).isEqualTo(expected);
        }
    }

    @Test
    void lzf_roundTripsRepetitiveAndRandomData() {
        Random rnd = new Random(7);
        for (int n : new int[] {21, 100, 5000, 100_000}) {
            byte[] rep = new byte[n];
            for (int i = 0; i < n; i++) rep[i] = (byte) ("abcabcabd".charAt(i % 9) + (i % 1000 == 0 ? 1 : 0));
            byte[] out = new byte[n];
            int c = Lzf.compress(rep, 0, n, out, n - 4);
            assertThat(c).isPositive();
            if (n >= 100) assertThat(c).isLessThan(n / 2);
            assertThat(Lzf.decompress(out, 0, c, n)).isEqualTo(rep);
            byte[] random = new byte[n];
            rnd.nextBytes(random);
            byte[] big = new byte[n * 2];
            int rc = Lzf.compress(random, 0, n, big, big.length);
            assertThat(Lzf.decompress(big, 0, rc, n)).isEqualTo(random);
            assertThat(Lzf.compress(random, 0, n, out, n - 4)).isZero();
        }
    }

    @Test
    void lzfCompressor_reusedTable_givesExactlyTheFreshTablesOutput() {
        Random rnd = new Random(11);
        Lzf.Compressor reused = new Lzf.Compressor();
        for (int round = 0; round < 2000; round++) {
            int n = 21 + rnd.nextInt(round % 10 == 0 ? 5000 : 80);
            int off = rnd.nextInt(16);
            byte[] in = new byte[off + n + rnd.nextInt(16)];
            for (int i = 0; i < in.length; i++) in[i] = (byte) ('a' + rnd.nextInt(round % 3 == 0 ? 3 : 26));
            byte[] fresh = new byte[n];
            byte[] again = new byte[n];
            int c1 = Lzf.compress(in, off, n, fresh, n - 4);
            int c2 = reused.compress(in, off, n, again, n - 4);
            assertThat(c2).isEqualTo(c1);
            assertThat(java.util.Arrays.copyOf(again, c2)).isEqualTo(java.util.Arrays.copyOf(fresh, c1));
            if (c1 > 0) assertThat(Lzf.decompress(again, 0, c2, n)).isEqualTo(java.util.Arrays.copyOfRange(in, off, off + n));
        }
    }

    @Test
    void deferredCompression_thenAppendCompressed_givesTheBytesOfCompressingAsItGoes() {
        // A snapshot's shard writes strings plain and lists them; its writer thread compresses them. Random strings
        // of every length class (integers, short, compressible, incompressible, 8-19 KB: both sides of the 16 KB
        // where the length header grows to 5 bytes), with raw bytes between them, handed over in parts as the
        // snapshot's chunks are.
        Random rnd = new Random(23);
        RdbOutput inline = new RdbOutput(64, true);
        RdbOutput deferred = new RdbOutput(64, true, true);
        RdbOutput packed = new RdbOutput(64, true);
        int compressedSomewhere = 0;
        for (int part = 0; part < 200; part++) {
            for (int k = rnd.nextInt(30); k >= 0; k--) {
                byte[] raw = new byte[rnd.nextInt(4)];
                rnd.nextBytes(raw);
                inline.write(raw);
                deferred.write(raw);
                int kind = rnd.nextInt(5);
                int n = kind == 4 ? 8_000 + rnd.nextInt(11_000) : kind == 0 ? 1 + rnd.nextInt(11) : rnd.nextInt(120);
                byte[] str = new byte[n];
                for (int i = 0; i < n; i++) {
                    str[i] = (byte) (kind == 0 ? '0' + rnd.nextInt(10) : kind == 1 ? rnd.nextInt(256) : 'a' + rnd.nextInt(3));
                }
                inline.writeString(str);
                deferred.writeString(str);
            }
            int spanInts = deferred.spanInts();
            int[] spans = deferred.swapSpans(new int[0]);
            int length = deferred.size();
            byte[] bytes = deferred.swap(new byte[64]);
            packed.appendCompressed(bytes, length, spans, spanInts);
            compressedSomewhere += spanInts;
        }
        assertThat(compressedSomewhere).isPositive();
        assertThat(packed.toByteArray()).isEqualTo(inline.toByteArray());
        assertThatThrownBy(() -> deferred.appendCompressed(new byte[0], 0, new int[0], 0))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void strings_useIntegerAndLzfEncodings() {
        RdbOutput out = new RdbOutput(true);
        out.writeString(b("-123"));
        assertThat(out.toByteArray()).containsExactly(0xC0, 0x85);
        out.reset();
        out.writeString(b("-1234"));
        assertThat(out.toByteArray()).containsExactly(0xC1, 0x2E, 0xFB);
        out.reset();
        out.writeString(b("0123"));
        assertThat(out.toByteArray()[0]).isEqualTo((byte) 4);
        out.reset();
        out.writeString(b("a".repeat(100)));
        assertThat(out.toByteArray()[0]).isEqualTo((byte) 0xC3);
        assertThat(out.size()).isLessThan(20);
        out.reset();
        out.writeIntegerString(1L << 40);
        assertThat(new String(out.toByteArray(), 1, out.size() - 1, StandardCharsets.US_ASCII)).isEqualTo(Long.toString(1L << 40));
    }

    @Test
    void hashWithFieldTtls_needsVersion12_andRoundTripsInBothEncodings() {
        for (int n : new int[] {5, 600}) {
            HashValue h = hash(n, 3);
            h.setExpire(b("f1"), 4_000_000_000_000L, 0, 0);
            h.setExpire(b("f2"), 4_000_000_000_999L, 0, 0);
            assertThat(RdbEncoder.needsVersion12(h)).isTrue();
            byte[] p = Dump.serialize(h);
            assertThat(p[p.length - 10]).isEqualTo((byte) 12);
            assertThat(p[0]).isEqualTo((byte) (n == 5 ? RdbVersion.TYPE_HASH_LISTPACK_EX : RdbVersion.TYPE_HASH_METADATA));
            HashValue back = (HashValue) Dump.deserialize(p, L);
            assertThat(describe(back)).isEqualTo(describe(h));
            assertThat(back.encodingName()).isEqualTo(h.encodingName());
        }
        assertThat(Dump.serialize(hash(3, 3))[Dump.serialize(hash(3, 3)).length - 10]).isEqualTo((byte) 10);
    }

    @Test
    void setListpack_writtenOnlyFromVersion11() {
        SetValue s = set(5, false);
        assertThat(RdbEncoder.typeOf(s, 10)).isEqualTo(RdbVersion.TYPE_SET);
        assertThat(RdbEncoder.typeOf(s, 11)).isEqualTo(RdbVersion.TYPE_SET_LISTPACK);
        RdbOutput out = new RdbOutput(false);
        RdbEncoder.writeValue(out, s, 11);
        Object back = decode(out.toByteArray());
        assertThat(describe(back)).isEqualTo(describe(s));
    }

    private static Object decode(byte[] typed) {
        try {
            RdbInput in = RdbInput.of(typed);
            return RdbDecoder.readValue(in, in.readByte(), L);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    // ---------------------------------------------------------------- legacy payloads, built from the layouts

    /** A ziplist of the given elements (strings, or integers for Long). */
    static byte[] ziplist(Object... elements) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int prev = 0;
        int lastOffset = 10;
        for (Object o : elements) {
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            if (prev < 254) e.write(prev);
            else {
                e.write(254);
                le(e, prev, 4);
            }
            if (o instanceof Long v) {
                if (v >= 0 && v <= 12) e.write(0xF1 + v.intValue());
                else if (v == (byte) (long) v) { e.write(0xFE); le(e, v, 1); }
                else if (v == (short) (long) v) { e.write(0xC0); le(e, v, 2); }
                else if (v >= -(1 << 23) && v < (1 << 23)) { e.write(0xF0); le(e, v, 3); }
                else if (v == (int) (long) v) { e.write(0xD0); le(e, v, 4); }
                else { e.write(0xE0); le(e, v, 8); }
            } else {
                byte[] s = b((String) o);
                if (s.length < 64) e.write(s.length);
                else if (s.length < 16384) { e.write(0x40 | (s.length >> 8)); e.write(s.length & 0xFF); }
                else { e.write(0x80); e.write(s.length >>> 24); e.write(s.length >>> 16); e.write(s.length >>> 8); e.write(s.length); }
                e.writeBytes(s);
            }
            lastOffset = 10 + body.size();
            prev = e.size();
            body.writeBytes(e.toByteArray());
        }
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        le(z, 10 + body.size() + 1, 4);
        le(z, lastOffset, 4);
        le(z, elements.length, 2);
        z.writeBytes(body.toByteArray());
        z.write(0xFF);
        return z.toByteArray();
    }

    static void le(ByteArrayOutputStream o, long v, int n) {
        for (int i = 0; i < n; i++) o.write((int) (v >>> (8 * i)) & 0xFF);
    }

    private static byte[] typed(int type, byte[]... strings) {
        RdbOutput out = new RdbOutput(false);
        out.writeByte(type);
        for (byte[] s : strings) out.writePlainString(s);
        return out.toByteArray();
    }

    @Test
    void listZiplist_andQuicklist1_decode() {
        byte[] zl = ziplist("a", 7L, -3L, 200L, 40000L, 5_000_000L, 3_000_000_000L, "x".repeat(100), 12L, "-0");
        Object v = decode(typed(RdbVersion.TYPE_LIST_ZIPLIST, zl));
        assertThat(describe(v)).isEqualTo("list:[a, 7, -3, 200, 40000, 5000000, 3000000000, " + "x".repeat(100) + ", 12, -0]");
        RdbOutput out = new RdbOutput(false);
        out.writeByte(RdbVersion.TYPE_LIST_QUICKLIST);
        out.writeLength(2);
        out.writePlainString(ziplist("a", "b"));
        out.writePlainString(ziplist(1L, "c"));
        assertThat(describe(decode(out.toByteArray()))).isEqualTo("list:[a, b, 1, c]");
    }

    @Test
    void linkedList_set_zsetV1_andHash_decode() {
        RdbOutput out = new RdbOutput(false);
        out.writeByte(RdbVersion.TYPE_LIST);
        out.writeLength(3);
        out.writeString(b("one"));
        out.writeIntegerString(2);
        out.writeString(b("three"));
        assertThat(describe(decode(out.toByteArray()))).isEqualTo("list:[one, 2, three]");

        out.reset();
        out.writeByte(RdbVersion.TYPE_ZSET);
        out.writeLength(3);
        out.writeString(b("a"));
        out.writeByte(3);
        out.write(b("1.5"));
        out.writeString(b("b"));
        out.writeByte(254);
        out.writeString(b("c"));
        out.writeByte(255);
        assertThat(describe(decode(out.toByteArray()))).isEqualTo("zset:[c=-Infinity, a=1.5, b=Infinity]");

        out.reset();
        out.writeByte(RdbVersion.TYPE_HASH);
        out.writeLength(2);
        for (String s : List.of("f", "v", "g", "w")) out.writeString(b(s));
        assertThat(describe(decode(out.toByteArray()))).isEqualTo("hash:{f=v, g=w}");
    }

    @Test
    void zipmap_intset_ziplistHashAndZset_decode() {
        ByteArrayOutputStream zm = new ByteArrayOutputStream();
        zm.write(2);
        zm.write(3); zm.writeBytes(b("foo")); zm.write(3); zm.write(2); zm.writeBytes(b("bar")); zm.write(0); zm.write(0);
        zm.write(1); zm.writeBytes(b("k")); zm.write(5); zm.write(0); zm.writeBytes(b("hello"));
        zm.write(0xFF);
        assertThat(describe(decode(typed(RdbVersion.TYPE_HASH_ZIPMAP, zm.toByteArray())))).isEqualTo("hash:{foo=bar, k=hello}");

        ByteArrayOutputStream is = new ByteArrayOutputStream();
        le(is, 4, 4);
        le(is, 3, 4);
        for (long x : new long[] {-70000, 5, 100000}) le(is, x, 4);
        SetValue s = (SetValue) decode(typed(RdbVersion.TYPE_SET_INTSET, is.toByteArray()));
        assertThat(describe(s)).isEqualTo("set:[-70000, 100000, 5]");
        assertThat(s.encodingName()).isEqualTo("intset");

        assertThat(describe(decode(typed(RdbVersion.TYPE_HASH_ZIPLIST, ziplist("f", 1L, "g", "two")))))
                .isEqualTo("hash:{f=1, g=two}");
        assertThat(describe(decode(typed(RdbVersion.TYPE_ZSET_ZIPLIST, ziplist("a", 1L, "b", "2.5", "c", "inf")))))
                .isEqualTo("zset:[a=1.0, b=2.5, c=Infinity]");
    }

    // ---------------------------------------------------------------- corrupt input

    @Test
    void corruptOrTruncatedPayloads_areRefused() {
        for (Arguments a : values().toList()) {
            byte[] p = Dump.serialize(a.get()[1]);
            byte[] body = java.util.Arrays.copyOf(p, p.length - 10);
            for (int cut = 1; cut < body.length; cut += Math.max(1, body.length / 37)) {
                byte[] t = java.util.Arrays.copyOf(body, cut);
                assertThatThrownBy(() -> RdbDecoder.readValue(RdbInput.of(t, 1, t.length - 1), t[0] & 0xFF, L))
                        .isInstanceOfAny(RdbFormatException.class);
            }
            byte[] flipped = p.clone();
            flipped[p.length / 2] ^= 0x40;
            assertThat(Dump.verify(flipped)).isFalse();
        }
    }

    @Test
    void forgedLengths_failWithoutAllocating() {
        RdbOutput out = new RdbOutput(false);
        out.writeByte(RdbVersion.TYPE_STRING);
        out.writeLength(0x7FFF_FFF0L);
        out.write(b("abc"));
        assertThatThrownBy(() -> decode2(out.toByteArray())).isInstanceOf(RdbFormatException.class).hasMessageContaining("exceeds");
        out.reset();
        out.writeByte(RdbVersion.TYPE_LIST_QUICKLIST_2);
        out.writeLength(1L << 40);
        assertThatThrownBy(() -> decode2(out.toByteArray())).isInstanceOf(RdbFormatException.class);
        out.reset();
        out.writeByte(RdbVersion.TYPE_STRING);
        out.writeByte(0xC3);
        out.writeLength(3);
        out.writeLength(2_000_000_000L);
        out.write(b("abc"));
        assertThatThrownBy(() -> decode2(out.toByteArray())).isInstanceOf(RdbFormatException.class).hasMessageContaining("LZF");
        byte[] badListpack = {(byte) RdbVersion.TYPE_HASH_LISTPACK, 8, 8, 0, 0, 0, 2, 0, (byte) 0x85, (byte) 0xFF};
        assertThatThrownBy(() -> decode2(badListpack)).isInstanceOf(RdbFormatException.class);
    }

    private static Object decode2(byte[] typed) throws IOException {
        RdbInput in = RdbInput.of(typed);
        return RdbDecoder.readValue(in, in.readByte(), L);
    }

    @Test
    void dumpPayload_wrongVersionOrChecksum_isRecognised() {
        byte[] p = Dump.serialize(b("v"));
        byte[] v13 = p.clone();
        v13[v13.length - 10] = 13;
        assertThat(Dump.verify(v13)).isFalse();
        assertThatThrownBy(() -> Dump.deserialize(v13, L)).hasMessage("DUMP payload version or checksum are wrong");
        assertThat(Dump.verify(new byte[3])).isFalse();
    }

    @Test
    void headers_refuseUnknownVersionsAndValkey() {
        assertThat(RdbVersion.checkHeader(b("REDIS0012"))).isEqualTo(12);
        assertThatThrownBy(() -> RdbVersion.checkHeader(b("REDIS0013"))).hasMessage("unsupported RDB version 13 (this Tide reads 1..12)");
        assertThatThrownBy(() -> RdbVersion.checkHeader(b("VALKEY080"))).hasMessageContaining("Valkey");
        assertThatThrownBy(() -> RdbVersion.checkHeader(b("REDIX0010"))).hasMessageContaining("not an RDB file");
    }
}
