package io.tide.tls;

import io.netty.handler.ssl.CipherSuiteConverter;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;

/**
 * Turns Redis's {@code tls-ciphers} (an OpenSSL cipher list, for TLSv1.2 and older) and {@code tls-ciphersuites} (TLSv1.3
 * suites) into the JDK's cipher suite names. Thread-safe (immutable after class loading).
 *
 * <p>A list names ciphers by their OpenSSL name ({@code ECDHE-RSA-AES128-GCM-SHA256}) or IANA name
 * ({@code TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}), separated by ':', ',' or spaces; {@code !name} and {@code -name}
 * remove one; {@code DEFAULT}, {@code HIGH} and {@code ALL} stand for the JDK's default suites. As OpenSSL does,
 * names it does not know are skipped, and a list that leaves nothing is an error. OpenSSL's other keywords and
 * operators (cipher classes such as {@code aRSA}, {@code +}, {@code @STRENGTH}) select nothing here.
 */
final class Ciphers {

    private static final List<String> SUPPORTED;
    private static final List<String> DEFAULTS;

    static {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, null, null);
            SSLEngine engine = ctx.createSSLEngine();
            SUPPORTED = List.of(engine.getSupportedCipherSuites());
            DEFAULTS = List.of(engine.getEnabledCipherSuites());
        } catch (GeneralSecurityException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Ciphers() {}

    /** Whether a JDK suite name is a TLSv1.3 one (those name no key exchange: {@code TLS_AES_128_GCM_SHA256}). */
    static boolean isTls13(String javaName) {
        return !javaName.contains("_WITH_") && !javaName.endsWith("_SCSV");
    }

    /** The suites to enable: TLSv1.3 ones first (the JDK's order), then the older ones. */
    static List<String> select(String ciphers, String ciphersuites) throws TlsException {
        List<String> out = new ArrayList<>(tls13(ciphersuites));
        out.addAll(tls12(ciphers));
        return out;
    }

    static List<String> tls12(String spec) throws TlsException {
        if (spec.isBlank()) return DEFAULTS.stream().filter(c -> !isTls13(c)).toList();
        Set<String> chosen = new LinkedHashSet<>();
        Set<String> removed = new LinkedHashSet<>();
        for (String token : spec.trim().split("[:, ]+")) {
            if (token.isEmpty() || token.startsWith("+") || token.startsWith("@")) continue;
            boolean remove = token.startsWith("!") || token.startsWith("-");
            String name = remove ? token.substring(1) : token;
            List<String> names = switch (name.toUpperCase(Locale.ROOT)) {
                case "DEFAULT", "HIGH", "ALL" -> DEFAULTS.stream().filter(c -> !isTls13(c)).toList();
                default -> {
                    String java = toJava(name);
                    yield java == null || isTls13(java) ? List.of() : List.of(java);
                }
            };
            if (remove) {
                removed.addAll(names);
                chosen.removeAll(names);
            } else {
                for (String n : names) if (!removed.contains(n)) chosen.add(n);
            }
        }
        if (chosen.isEmpty()) throw new TlsException("Failed to configure ciphers: " + spec);
        return List.copyOf(chosen);
    }

    static List<String> tls13(String spec) throws TlsException {
        if (spec.isBlank()) return DEFAULTS.stream().filter(Ciphers::isTls13).toList();
        List<String> chosen = Arrays.stream(spec.trim().split(":")).map(String::trim)
                .filter(n -> isTls13(n) && SUPPORTED.contains(n)).distinct().toList();
        if (chosen.isEmpty()) throw new TlsException("Failed to configure ciphersuites: " + spec);
        return chosen;
    }

    /** The JDK's name for an OpenSSL or IANA cipher name the JDK supports, else null. */
    private static String toJava(String name) {
        if (SUPPORTED.contains(name)) return name;
        String java = CipherSuiteConverter.toJava(name, "TLS");
        return java != null && SUPPORTED.contains(java) ? java : null;
    }
}
