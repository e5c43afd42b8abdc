package io.tide.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * {@link RespDecoderTest}'s tests over direct buffers with a memory address, as the server's reads are: their plainly
 * framed requests are read by {@code RespDecoder.fastCommands} from memory, the rest by the general path.
 */
class RespDecoderDirectTest extends RespDecoderTest {

    @Override
    ByteBuf wrap(byte[] b) {
        return room(b.length).writeBytes(b);
    }

    @Override
    ByteBuf room(int capacity) {
        ByteBuf buf = Unpooled.directBuffer(capacity);
        assertThat(buf.hasMemoryAddress()).as("a direct buffer with a memory address (Netty with Unsafe)").isTrue();
        return buf;
    }
}
