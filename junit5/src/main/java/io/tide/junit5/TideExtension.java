package io.tide.junit5;

import io.tide.Server;
import io.tide.Tide;
import io.tide.config.ConfigRegistry;
import io.tide.junit5.TideServer.Lifecycle;
import io.tide.network.Faults;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter extension that runs in-process Tide servers for tests. Thread-safe: the servers it starts live in
 * JUnit's extension store, one per test class or per test method, so parallel classes and methods each see their
 * own; the accessors of a {@code @RegisterExtension} instance read a volatile reference.
 *
 * <p>Two ways to use it: {@link TideServer @TideServer} on the test class, or
 * <pre>{@code
 * @RegisterExtension
 * static TideExtension tide = TideExtension.builder().shards(2).config("maxmemory 16mb").build();
 * }</pre>
 * (a non-static field gets a server per method, as JUnit then calls it only around each method). Every server it
 * starts is closed after its class or method, with its threads, port and temporary directory; after each method the
 * faults are cleared and, when asked, the data flushed. A server that cannot start fails the test with the server's
 * own message.
 */
public final class TideExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TideExtension.class);
    private static final String CLASS_SERVER = "class-server";
    private static final String METHOD_SERVER = "method-server";

    /** The settings of a builder-made extension; null for the one {@code @TideServer} registers. */
    private final Settings builderSettings;
    /** The per-class server this (builder-made) instance started, for its accessors. */
    private volatile Running current;

    /** The extension {@code @TideServer} registers: its settings come from the annotation. */
    public TideExtension() {
        this(null);
    }

    private TideExtension(Settings settings) {
        this.builderSettings = settings;
    }

    /** Settings for {@code @RegisterExtension}; the same as {@link TideServer}'s attributes. */
    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------------------------------ accessors

    /** The per-class server this extension runs (for {@code @RegisterExtension static} fields). */
    public Server server() {
        Running r = current;
        if (r == null) {
            throw new IllegalStateException("no per-class Tide server is running for this extension (per-method "
                    + "servers are reached by injection: @TidePort, @TideInject or a parameter)");
        }
        return r.server;
    }

    /** The port of {@link #server()}. */
    public int port() {
        return server().port();
    }

    /** {@code redis://127.0.0.1:PORT} of {@link #server()}. */
    public URI uri() {
        return uriOf(server());
    }

    /** The fault hooks of {@link #server()}. */
    public Faults faults() {
        return server().faults();
    }

    // ------------------------------------------------------------------------------------------ callbacks

    @Override
    public void beforeAll(ExtensionContext context) {
        Settings settings = settings(context);
        if (settings.lifecycle() != Lifecycle.PER_CLASS) return;
        if (context.getStore(NAMESPACE).get(CLASS_SERVER, Running.class) != null) return; // an enclosing class's
        Running r = start(settings, context);
        context.getStore(NAMESPACE).put(CLASS_SERVER, r);
        if (builderSettings != null) current = r;
        injectFields(context.getRequiredTestClass(), null, r.server, true);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Running r = context.getStore(NAMESPACE).get(CLASS_SERVER, Running.class);
        if (r == null || !r.owner.equals(context.getUniqueId())) return;
        context.getStore(NAMESPACE).remove(CLASS_SERVER);
        if (current == r) current = null;
        r.close();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        Settings settings = settings(context);
        Running r = context.getStore(NAMESPACE).get(CLASS_SERVER, Running.class);
        boolean perMethod = settings.lifecycle() == Lifecycle.PER_METHOD || r == null;
        if (perMethod) {
            r = start(settings, context);
            context.getStore(NAMESPACE).put(METHOD_SERVER, r);
        }
        for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
            injectFields(instance.getClass(), instance, r.server, perMethod);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        Running own = context.getStore(NAMESPACE).remove(METHOD_SERVER, Running.class);
        if (own != null) {
            own.close();
            return;
        }
        Running r = context.getStore(NAMESPACE).get(CLASS_SERVER, Running.class);
        if (r == null || r.server.isClosed()) return;
        r.server.faults().clear();
        if (settings(context).flushBetweenMethods()) flushAll(r.server);
    }

    // ------------------------------------------------------------------------------------------ parameters

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        if (type == int.class || type == Integer.class) return parameter.isAnnotated(TidePort.class);
        return type == Server.class || type == URI.class || type == Faults.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Running r = context.getStore(NAMESPACE).get(METHOD_SERVER, Running.class);
        if (r == null) r = context.getStore(NAMESPACE).get(CLASS_SERVER, Running.class);
        if (r == null) {
            throw new ParameterResolutionException("no Tide server is running for " + parameter.getDeclaringExecutable()
                    + " (a per-method server starts after the test instance is made: inject it into fields, test "
                    + "methods or @BeforeEach methods)");
        }
        return valueFor(parameter.getParameter().getType(), r.server);
    }

    // ------------------------------------------------------------------------------------------ internals

    private Settings settings(ExtensionContext context) {
        Class<?> testClass = context.getRequiredTestClass();
        TideServer annotation = findAnnotation(testClass);
        if (builderSettings != null) {
            if (annotation != null) {
                throw new ExtensionConfigurationException(testClass.getName() + " has both @TideServer and a "
                        + "registered TideExtension: use one of them");
            }
            return builderSettings;
        }
        return annotation == null ? new Builder().settings() : Settings.of(annotation);
    }

    /** {@code @TideServer} on the class, a superclass or an enclosing class ({@code @Nested}). */
    private static TideServer findAnnotation(Class<?> testClass) {
        for (Class<?> c = testClass; c != null; c = c.getEnclosingClass()) {
            TideServer a = c.getAnnotation(TideServer.class); // @Inherited covers superclasses
            if (a != null) return a;
        }
        return null;
    }

    private static Running start(Settings settings, ExtensionContext context) {
        Path dir;
        try {
            dir = Files.createTempDirectory("tide-junit5-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a directory for the Tide server", e);
        }
        try {
            Path conf = writeConfig(settings, dir, context.getRequiredTestClass());
            Server server = Tide.start(ConfigRegistry.fromConfigFile(conf));
            return new Running(server, dir, context.getUniqueId());
        } catch (IOException | RuntimeException e) {
            deleteTree(dir);
            throw new ExtensionConfigurationException("Tide did not start: " + e.getMessage(), e);
        }
    }

    /** The server's redis.conf: port 0 and the directory first, then the settings, the resource and the lines. */
    private static Path writeConfig(Settings s, Path dir, Class<?> testClass) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("# written by TideExtension for " + testClass.getName());
        lines.add("port 0");
        lines.add("dir " + quote(dir.toString()));
        lines.add("shards " + s.shards());
        lines.add("databases " + s.databases());
        if (!s.requirepass().isEmpty()) lines.add("requirepass " + quote(s.requirepass()));
        if (!s.configResource().isEmpty()) {
            String name = s.configResource().startsWith("/") ? s.configResource().substring(1) : s.configResource();
            ClassLoader loader = testClass.getClassLoader();
            try (InputStream in = loader == null ? null : loader.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalArgumentException("config resource '" + s.configResource() + "' is not on the "
                            + "class path");
                }
                Path copy = dir.resolve(Path.of(name).getFileName().toString());
                Files.copy(in, copy);
                lines.add("include " + quote(copy.toString()));
            }
        }
        lines.addAll(s.config());
        Path conf = dir.resolve("tide-junit5.conf");
        Files.write(conf, lines, StandardCharsets.UTF_8);
        return conf;
    }

    /** A redis.conf double-quoted argument. */
    private static String quote(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static void injectFields(Class<?> type, Object instance, Server server, boolean staticToo) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                boolean port = f.isAnnotationPresent(TidePort.class);
                if (!port && !f.isAnnotationPresent(TideInject.class)) continue;
                boolean isStatic = Modifier.isStatic(f.getModifiers());
                if (isStatic ? !staticToo : instance == null) continue;
                Class<?> t = f.getType();
                boolean fits = port ? t == int.class || t == Integer.class
                        : t == Server.class || t == URI.class || t == Faults.class;
                if (!fits) {
                    throw new ExtensionConfigurationException("field " + c.getName() + "." + f.getName() + " is "
                            + t.getSimpleName() + ": @TidePort takes int or Integer, @TideInject Server, URI or Faults");
                }
                try {
                    f.setAccessible(true);
                    f.set(isStatic ? null : instance, valueFor(t, server));
                } catch (IllegalAccessException | RuntimeException e) {
                    throw new ExtensionConfigurationException("could not set " + c.getName() + "." + f.getName(), e);
                }
            }
        }
    }

    private static Object valueFor(Class<?> type, Server server) {
        if (type == int.class || type == Integer.class) return server.port();
        if (type == URI.class) return uriOf(server);
        if (type == Faults.class) return server.faults();
        return server;
    }

    private static URI uriOf(Server server) {
        return URI.create("redis://127.0.0.1:" + server.port());
    }

    /** FLUSHALL SYNC as a client would send it (AUTH first when the default user has a password). */
    static void flushAll(Server server) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            String password = server.context().config().get("requirepass");
            if (!password.isEmpty()) command(out, in, "AUTH", password);
            command(out, in, "FLUSHALL", "SYNC");
        }
    }

    private static void command(OutputStream out, InputStream in, String... argv) throws IOException {
        StringBuilder b = new StringBuilder("*").append(argv.length).append("\r\n");
        for (String a : argv) {
            b.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        out.write(b.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        StringBuilder reply = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) throw new IOException("Tide closed the connection during " + argv[0]);
            reply.append((char) c);
        }
        if (!reply.toString().startsWith("+OK")) {
            throw new IOException(argv[0] + " between test methods failed: " + reply.toString().strip());
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory: what cannot be deleted stays behind in /tmp
        }
    }

    /** A server this extension started and the temporary directory it owns; closed once. */
    private static final class Running implements AutoCloseable {
        final Server server;
        final Path dir;
        /** The unique id of the context that started it: only that context stops it. */
        final String owner;

        Running(Server server, Path dir, String owner) {
            this.server = server;
            this.dir = dir;
            this.owner = owner;
        }

        @Override
        public void close() {
            try {
                server.close();
            } finally {
                deleteTree(dir);
            }
        }
    }

    /** The settings of one extension: {@link TideServer}'s attributes or the builder's. */
    record Settings(Lifecycle lifecycle, int shards, int databases, String requirepass, String configResource,
                    List<String> config, boolean flushBetweenMethods) {

        static Settings of(TideServer a) {
            return new Settings(a.lifecycle(), a.shards(), a.databases(), a.requirepass(), a.configResource(),
                    List.of(a.config()), a.flushBetweenMethods());
        }
    }

    /** Builds a {@link TideExtension} for {@code @RegisterExtension}. Not thread-safe (use it from one thread). */
    public static final class Builder {
        private Lifecycle lifecycle = Lifecycle.PER_CLASS;
        private int shards = 1;
        private int databases = 16;
        private String requirepass = "";
        private String configResource = "";
        private final List<String> config = new ArrayList<>();
        private boolean flushBetweenMethods;

        private Builder() {}

        /** A server for each test method instead of one for the class. */
        public Builder perMethod() {
            lifecycle = Lifecycle.PER_METHOD;
            return this;
        }

        /** {@link TideServer#shards()}. */
        public Builder shards(int n) {
            shards = n;
            return this;
        }

        /** {@link TideServer#databases()}. */
        public Builder databases(int n) {
            databases = n;
            return this;
        }

        /** {@link TideServer#requirepass()}. */
        public Builder requirepass(String password) {
            requirepass = password;
            return this;
        }

        /** {@link TideServer#configResource()}. */
        public Builder configResource(String resource) {
            configResource = resource;
            return this;
        }

        /** Adds config lines in redis.conf syntax ({@link TideServer#config()}). */
        public Builder config(String... lines) {
            config.addAll(List.of(lines));
            return this;
        }

        /** {@link TideServer#flushBetweenMethods()}. */
        public Builder flushBetweenMethods() {
            flushBetweenMethods = true;
            return this;
        }

        Settings settings() {
            return new Settings(lifecycle, shards, databases, requirepass, configResource, List.copyOf(config),
                    flushBetweenMethods);
        }

        public TideExtension build() {
            return new TideExtension(settings());
        }
    }
}
