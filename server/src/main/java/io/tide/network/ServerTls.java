package io.tide.network;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.tide.config.ConfigRegistry;
import io.tide.tls.TlsMaterial;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The TLS port's side of the network: the current server {@link SslContext}, built with Netty's JDK provider from a
 * {@link TlsMaterial} and swapped whole on reload (new connections use the new certificates, open ones keep theirs),
 * and the {@link SslHandler} each TLS connection starts with. Thread-safe: CONFIG SET replaces the context on its
 * thread while shard threads make handlers from whichever context is current.
 */
public final class ServerTls {

    /** tls-auth-clients, read per connection (Redis applies it to connections accepted after CONFIG SET). */
    private enum Auth { NO, YES, OPTIONAL }

    private final SslProvider provider;
    private volatile SslContext context;
    private volatile TlsMaterial material;
    private volatile Auth auth;

    public ServerTls(ConfigRegistry config) {
        this.provider = config.get("tls-provider").equals("openssl") ? SslProvider.OPENSSL : SslProvider.JDK;
        this.auth = auth(config.get("tls-auth-clients"));
        config.onChange("tls-auth-clients", v -> auth = auth(v));
    }

    private static Auth auth(String value) {
        return switch (value) {
            case "no" -> Auth.NO;
            case "optional" -> Auth.OPTIONAL;
            default -> Auth.YES;
        };
    }

    /** Builds a context from {@code m} and makes it the one new connections use; on failure the old one stays. */
    public void use(TlsMaterial m) throws SSLException {
        if (provider == SslProvider.OPENSSL && !io.netty.handler.ssl.OpenSsl.isAvailable()) {
            throw new SSLException("tls-provider openssl: " + io.netty.handler.ssl.OpenSsl.unavailabilityCause());
        }
        SslContextBuilder b = SslContextBuilder.forServer(m.key(), m.chain().toArray(new X509Certificate[0]))
                .sslProvider(provider)
                .protocols(m.protocols())
                .ciphers(m.cipherSuites(), SupportedCipherSuiteFilter.INSTANCE)
                // Each engine then asks for (or requires, or skips) a client certificate as tls-auth-clients says.
                .clientAuth(m.authorities().isEmpty() ? ClientAuth.NONE : ClientAuth.OPTIONAL)
                .sessionCacheSize(m.sessionCacheSize())
                .sessionTimeout(m.sessionCacheTimeout());
        if (!m.authorities().isEmpty()) {
            try {
                b.trustManager(m.trust());
            } catch (GeneralSecurityException e) {
                throw new SSLException("trust manager: " + e.getMessage(), e);
            }
        }
        SslContext built = b.build();
        material = m;
        context = built;
    }

    /** Whether a context has been built (the TLS port can be opened). */
    public boolean configured() {
        return context != null;
    }

    /** What the current context was built from, or null. */
    public TlsMaterial material() {
        return material;
    }

    /** A handler for a new TLS connection, as tls-auth-clients and tls-prefer-server-ciphers say now. */
    SslHandler newHandler(ByteBufAllocator alloc) {
        SslContext ctx = context;
        TlsMaterial m = material;
        SslHandler handler = ctx.newHandler(alloc);
        SSLEngine engine = handler.engine();
        SSLParameters p = engine.getSSLParameters();
        Auth a = m.authorities().isEmpty() ? Auth.NO : auth;
        switch (a) {
            case YES -> p.setNeedClientAuth(true);
            case OPTIONAL -> p.setWantClientAuth(true);
            case NO -> {
                p.setNeedClientAuth(false);
                p.setWantClientAuth(false);
            }
        }
        p.setUseCipherSuitesOrder(m.preferServerCiphers());
        engine.setSSLParameters(p);
        return handler;
    }
}
