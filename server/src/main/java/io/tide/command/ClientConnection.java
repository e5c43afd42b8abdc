package io.tide.command;

import io.tide.protocol.Reply;

/**
 * The transport side of a client as the command layer sees it; implemented by the network layer.
 * All methods except {@link #close()} and the address getters must be called on the client's home shard thread.
 */
public interface ClientConnection {

    /** Encodes a reply into the connection's output buffer (written out on {@link #flush()}). */
    long write(Reply reply, int protocolVersion);

    /** Sends what has been buffered. */
    void flush();

    /** Flushes what is buffered, then closes the connection. Thread-safe. */
    void close();

    /**
     * Flushes what is buffered and closes the connection once it has all been sent (QUIT: the peer gets every reply due
     * before the end of the stream). Thread-safe.
     */
    default void closeAfterReplies() {
        close();
    }

    /** Stops or resumes reading requests from the socket (back-pressure). */
    void pauseReading(boolean paused);

    /** {@code ip:port} of the peer. Thread-safe. */
    String remoteAddress();

    /** {@code ip:port} of our side. Thread-safe. */
    String localAddress();

    /** Bytes waiting in the output buffer and the transport's queue. */
    long outputBufferBytes();

    /** Bytes of replies encoded but not yet handed to the transport (CLIENT LIST {@code obl}). */
    long replyBufferBytes();

    /** Writes handed to the transport and not yet on the socket (CLIENT LIST {@code oll}). */
    long pendingWrites();

    /** Bytes received and not yet parsed into a command (CLIENT LIST {@code qbuf}). */
    long queryBufferBytes();

    /** Free space allocated for the query buffer (CLIENT LIST {@code qbuf-free}). */
    long queryBufferFree();

    /** Capacity of the reply buffer being filled now, 0 when none is held (CLIENT LIST {@code rbs}). */
    long replyBufferSize();

    /** Most bytes the reply buffer held at a flush in the last five seconds (CLIENT LIST {@code rbp}). */
    long replyBufferPeak();

    /** The socket's file descriptor, or -1 when the transport does not expose one (NIO). Thread-safe. */
    int fd();

    /** Whether requests are being read from the socket (false while paused for back-pressure). */
    boolean reading();

    /**
     * Replication: writes {@code bytes} to the socket as they are, after every reply buffered so far, and calls
     * {@code written} with true once they are on the socket (false if the connection failed). Thread-safe; bytes
     * written from one thread keep their order.
     */
    void writeRaw(byte[] bytes, java.util.function.Consumer<Boolean> written);

    /** Runs {@code r} once, on the home shard, when the connection is gone (at once if it already is). */
    void onClose(Runnable r);
}
