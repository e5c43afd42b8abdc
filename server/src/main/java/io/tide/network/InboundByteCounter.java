package io.tide.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.tide.shard.ShardStats;

/** Counts bytes read from a connection into its home shard's statistics. Confined to the channel's event loop. */
final class InboundByteCounter extends ChannelInboundHandlerAdapter {

    private final ShardStats stats;

    InboundByteCounter(ShardStats stats) {
        this.stats = stats;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf b) stats.netInputBytes += b.readableBytes();
        ctx.fireChannelRead(msg);
    }
}
