package io.tide;

import io.tide.command.CommandTable;
import io.tide.command.family.Families;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * The part of a server's start that needs no configuration, run on a short-lived thread of its own ({@code tide-start})
 * while the starting thread parses options and sets up Netty's transport: builds the command table, then loads (without
 * initialising) the classes the rest of the start and the first connection will need, listed in
 * {@code io/tide/startup-classes.txt}. A cold start is mostly class loading and first, interpreted, execution; this
 * overlaps the two threads' share of it (decision 0014). The list only saves time: a name that no longer resolves is
 * skipped (ColdStartTest keeps it current; {@code bin/gen-startup-classes} rewrites it).
 */
final class Startup {

    static final String CLASS_LIST = "startup-classes.txt";

    /** Done once the table is built, before the classes are loaded. */
    private final CompletableFuture<CommandTable> table = new CompletableFuture<>();
    private final Supplier<InputStream> classList;
    private volatile boolean finished;
    private Thread thread;

    private Startup(Supplier<InputStream> classList) {
        this.classList = classList;
    }

    /** Starts the thread; {@link #table()} waits for its table. */
    static Startup begin() {
        return begin(() -> Startup.class.getResourceAsStream(CLASS_LIST));
    }

    /** As {@link #begin()}, loading the classes named in {@code classList}, one per line. */
    static Startup begin(Supplier<InputStream> classList) {
        Startup s = new Startup(classList);
        s.thread = Thread.ofPlatform().name("tide-start").daemon().start(s::prepare);
        return s;
    }

    /** The thread, for tests. */
    Thread thread() {
        return thread;
    }

    /** Stops loading classes and waits for the thread to end (a server that stops leaves no thread behind). */
    void finish() {
        finished = true;
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The command table, once built (rethrows what building it threw). */
    CommandTable table() throws InterruptedException {
        try {
            return table.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        }
    }

    private void prepare() {
        try {
            CommandTable t = new CommandTable();
            Families.registerAll(t);
            table.complete(t);
        } catch (Throwable e) {
            table.completeExceptionally(e);
            return;
        }
        loadClasses();
    }

    /** Loads the listed classes that are not loaded yet, in the order a start first uses them. */
    private void loadClasses() {
        ClassLoader loader = Startup.class.getClassLoader();
        try (InputStream in = classList.get()) {
            if (in == null) return;
            BufferedReader names = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            for (String name = names.readLine(); name != null && !finished; name = names.readLine()) {
                if (name.isEmpty() || name.startsWith("#")) continue;
                try {
                    Class.forName(name, false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    // not on this class path (another Netty version, a JDK without the module): nothing to save
                }
            }
        } catch (IOException e) {
            // the list only saves time
        }
    }
}
