package io.tide.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A bare socket client that sends raw bytes and reads raw RESP replies, for byte-exact comparisons
 * between Tide and redis-server and for malformed-input tests. Not thread-safe.
 */
public final class RawClient implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawClient(int port) throws IOException {
        this(new Socket("127.0.0.1", port));
    }

    /** A client over a socket already connected (a TLS socket, say). */
    public RawClient(Socket connected) throws IOException {
        socket = connected;
        socket.setSoTimeout(10_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** A client over TLS to 127.0.0.1:{@code port}, handshaken with {@code ctx}. */
    public static RawClient tls(int port, javax.net.ssl.SSLContext ctx) throws IOException {
        javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        s.startHandshake();
        return new RawClient(s);
    }

    /** The underlying socket. */
    public Socket socket() {
        return socket;
    }

    /** How long a read waits for the server before it fails with a timeout (10 s at first). */
    public void timeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    public void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Sends a command as a RESP multibulk. */
    public void sendCommand(String... args) throws IOException {
        send(encode(args));
    }

    /** A command as a RESP multibulk of bulk strings. */
    public static byte[] encode(String... args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String a : args) {
            byte[] x = a.getBytes(StandardCharsets.UTF_8);
            b.writeBytes(("$" + x.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(x);
            b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return b.toByteArray();
    }

    /** Sends a command and returns its whole reply as raw RESP text. */
    public String call(String... args) throws IOException {
        sendCommand(args);
        return readReply();
    }

    /** Reads one complete RESP2/RESP3 reply and returns its raw text. */
    public String readReply() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        readValue(b);
        return b.toString(StandardCharsets.UTF_8);
    }

    private void readValue(ByteArrayOutputStream b) throws IOException {
        String line = readLine(b);
        char type = line.charAt(0);
        switch (type) {
            case '+', '-', ':', ',', '#', '_', '(' -> { }
            case '$', '=', '!' -> {
                int len = Integer.parseInt(line.substring(1));
                if (len >= 0) {
                    byte[] data = in.readNBytes(len + 2);
                    b.writeBytes(data);
                }
            }
            case '*', '~', '>' -> {
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < n; i++) readValue(b);
            }
            case '%', '|' -> {
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < 2 * n; i++) readValue(b);
            }
            default -> throw new IOException("bad reply type: " + line);
        }
    }

    private String readLine(ByteArrayOutputStream b) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            b.write(c);
            if (c == '\r') {
                int n = in.read();
                b.write(n);
                break;
            }
            sb.append((char) c);
        }
        if (c == -1) throw new IOException("connection closed");
        return sb.toString();
    }

    /** True if the server closed the connection (read returns EOF within the timeout). */
    public boolean isClosedByServer() throws IOException {
        try {
            return in.read() == -1;
        } catch (java.net.SocketException e) {
            return true;
        }
    }

    /** Makes {@link #close} abort the connection with a TCP reset (SO_LINGER 0), whatever is unread. */
    public void resetOnClose() throws IOException {
        socket.setSoLinger(true, 0);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
