package io.tide.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BulkArrayEncoderTest {

    /** Elements of every size, some straddling chunk boundaries and one bigger than a chunk. */
    private static byte[][] elements(int n) {
        byte[][] items = new byte[n][];
        for (int i = 0; i < n; i++) {
            items[i] = i % 997 == 5 ? "y".repeat(3 * BulkArrayEncoder.CHUNK + i).getBytes(StandardCharsets.US_ASCII)
                    : ("element-" + i + "-" + "z".repeat(i % 300)).getBytes(StandardCharsets.US_ASCII);
        }
        items[n / 2] = new byte[0];
        return items;
    }

    private static Reply plain(byte[][] items) {
        Reply[] r = new Reply[items.length];
        for (int i = 0; i < r.length; i++) r[i] = new Reply.Bulk(items[i]);
        return new Reply.Array(r);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void encodedBytesAreThoseOfThePlainArray(int protocol) {
        byte[][] items = elements(5000);
        Reply encoded = BulkArrayEncoder.of(items);
        assertThat(encoded).isInstanceOf(Reply.Encoded.class);
        assertThat(((Reply.Encoded) encoded).chunks().length).isGreaterThan(10);
        assertThat(RespWriter.encode(encoded, protocol)).isEqualTo(RespWriter.encode(plain(items), protocol));
    }

    @Test
    void smallArraysStayPlain() {
        byte[][] items = elements(BulkArrayEncoder.THRESHOLD - 1);
        assertThat(BulkArrayEncoder.of(items)).isInstanceOf(Reply.Array.class);
        assertThat(RespWriter.encode(BulkArrayEncoder.of(new byte[0][]), 2)).asString().isEqualTo("*0\r\n");
    }

    @Test
    void decodeGivesTheElementsBack() {
        byte[][] items = elements(3000);
        Reply[] back = BulkArrayEncoder.decode((Reply.Encoded) BulkArrayEncoder.of(items));
        assertThat(back).hasSize(items.length);
        for (int i = 0; i < items.length; i++) {
            assertThat(((Reply.Bulk) back[i]).bytes()).as("element %d", i).isEqualTo(items[i]);
        }
    }

    @Test
    void countMustMatch() {
        BulkArrayEncoder e = new BulkArrayEncoder(2).add(new byte[1]);
        assertThatThrownBy(e::build).isInstanceOf(IllegalStateException.class);
        e.add(new byte[2]);
        assertThatThrownBy(() -> e.add(new byte[3])).isInstanceOf(IllegalStateException.class);
    }

    /** The chunked writer hands on full buffers and writes the same bytes as the one-buffer writer. */
    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void chunkedWriterWritesTheSameBytesInBoundedBuffers(int protocol) {
        byte[][] items = elements(4000);
        Reply nested = new Reply.Array(new Reply[] {
                BulkArrayEncoder.of(items), Reply.integer(7), plain(Arrays.copyOf(items, 2000)),
                new Reply.MapReply(new Reply[] {Reply.bulk("k"), BulkArrayEncoder.of(items)}),
                new Reply.Bulk(new byte[5 * BulkArrayEncoder.CHUNK])});
        List<ByteBuf> handedOn = new ArrayList<>();
        ByteBuf[] current = {null};
        RespWriter.Output out = new RespWriter.Output() {
            @Override
            public ByteBuf buffer() {
                if (current[0] == null) current[0] = Unpooled.buffer(256);
                return current[0];
            }

            @Override
            public void appended() {
                if (current[0].readableBytes() >= BulkArrayEncoder.CHUNK) {
                    handedOn.add(current[0]);
                    current[0] = null;
                }
            }
        };
        RespWriter.write(out, nested, protocol);
        if (current[0] != null) handedOn.add(current[0]);
        assertThat(handedOn.size()).isGreaterThan(20);
        ByteBuf all = Unpooled.wrappedBuffer(handedOn.toArray(new ByteBuf[0]));
        assertThat(ByteBufUtil.getBytes(all)).isEqualTo(RespWriter.encode(nested, protocol));
        // Only a single bulk bigger than a chunk makes a buffer bigger than a chunk plus one element.
        long oversized = handedOn.stream().filter(b -> b.capacity() > 2 * BulkArrayEncoder.CHUNK + 4096).count();
        assertThat(oversized).isLessThanOrEqualTo(1 + 2 * items.length / 997 + 2);
        all.release();
    }
}
