package io.tide.network;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.function.Consumer;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Waits behind the {@link SslHandler} of a TLS connection until its handshake is done, then puts the connection's
 * usual handlers in its own place, with the client certificate's common name when one was presented, and lets them
 * see the connection become active. A connection whose handshake fails (a plain-text client, a certificate the CA did
 * not sign, none where one is required) is closed by the SslHandler without ever becoming a client: nothing counted,
 * nothing logged above debug. Confined to the channel's event loop.
 */
final class TlsAccept extends ChannelInboundHandlerAdapter {

    private final Consumer<SocketChannel> addClientHandlers;
    private final boolean sessionCaching;

    /**
     * @param addClientHandlers adds the connection handler to the channel's pipeline (it reads the peer's CN with
     *                          {@link #commonName} once active)
     * @param sessionCaching    tls-session-caching; when off the session is invalidated so it cannot be resumed
     */
    TlsAccept(Consumer<SocketChannel> addClientHandlers, boolean sessionCaching) {
        this.addClientHandlers = addClientHandlers;
        this.sessionCaching = sessionCaching;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        // Not yet: the client handlers see the connection become active once the handshake is done.
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (!(evt instanceof SslHandshakeCompletionEvent done)) {
            super.userEventTriggered(ctx, evt);
            return;
        }
        if (!done.isSuccess()) {
            ctx.close(); // the SslHandler closes too; the cause went to exceptionCaught
            return;
        }
        SSLSession session = ctx.pipeline().get(SslHandler.class).engine().getSession();
        addClientHandlers.accept((SocketChannel) ctx.channel()); // after this one, the pipeline's last
        ctx.fireChannelActive(); // the connection handler reads the client's certificate here
        if (!sessionCaching) session.invalidate();
        ctx.pipeline().remove(this);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A failed handshake: not SSL at all, or a refused certificate. The client learns it from the alert or close.
        ctx.close();
    }

    /** The CN of the verified client certificate's subject, or null when the client presented none. */
    static String commonName(SSLSession session) {
        Certificate[] certs;
        try {
            certs = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException none) {
            return null;
        }
        if (certs.length == 0 || !(certs[0] instanceof X509Certificate leaf)) return null;
        try {
            LdapName name = new LdapName(leaf.getSubjectX500Principal().getName());
            for (int i = name.size() - 1; i >= 0; i--) { // most specific first, as OpenSSL's last CN entry
                Rdn rdn = name.getRdns().get(i);
                if (rdn.getType().equalsIgnoreCase("CN")) return rdn.getValue().toString();
            }
        } catch (InvalidNameException ignored) {
            // no CN
        }
        return null;
    }
}
