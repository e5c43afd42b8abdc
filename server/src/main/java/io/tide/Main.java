package io.tide;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import io.tide.config.ConfigRegistry;
import io.tide.config.LaunchOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code tide-server}: parses the command line, starts a server in the foreground, stops it on SIGTERM or SHUTDOWN; runs on the main thread. */
public final class Main {

    private Main() {}

    public static void main(String[] args) {
        LaunchOptions.Launch launch = LaunchOptions.parse(args, Version.get());
        switch (launch.action()) {
            case HELP, VERSION -> {
                System.out.println(launch.message());
                System.exit(0);
            }
            case CHECK_CONFIG -> {
                System.out.println(launch.message() == null || launch.message().isEmpty()
                        ? "tide: configuration OK" : launch.message());
                System.exit(0);
            }
            case ERROR -> {
                System.err.println(launch.message());
                System.exit(launch.exitCode());
            }
            case RUN -> run(launch);
            default -> throw new IllegalStateException();
        }
    }

    private static void run(LaunchOptions.Launch launch) {
        ConfigRegistry config = launch.config();
        configureLogging(config);
        Logger log = LoggerFactory.getLogger("tide");
        // An OutOfMemoryError that reaches a catch-all ends the process (docs/decisions/0009-memory-limits.md).
        io.tide.util.OutOfMemory.exitTheProcess();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
            if (!io.tide.util.OutOfMemory.handle(e, "thread " + thread.getName(), null)) {
                log.error("uncaught exception in thread {}", thread.getName(), e);
            }
        });
        Server server;
        try {
            server = Server.start(config);
        } catch (RuntimeException e) {
            log.error("could not start: {}", e.getMessage());
            System.exit(1);
            return;
        }
        log.info("Tide {} started: port={}{} bind={} shards={} io-driver={} pid={} profile={}{}", Version.get(),
                server.port(), server.tlsPort() == 0 ? "" : " tls-port=" + server.tlsPort(), config.get("bind"),
                server.shardCount(), server.ioDriver() + (server.ioBufferRing() ? " (buffer ring)" : ""),
                ProcessHandle.current().pid(),
                config.get("profile"),
                launch.profileSetOptions().isEmpty() ? " (sets no options)" : " (set " + launch.profileSetOptions() + ")");
        // SIGTERM and SIGINT shut down cleanly and exit 0, as redis-server does; the hook covers other exits. Both are in
        // place before the pidfile exists: a supervisor that signals the pid it reads there gets a clean shutdown.
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> {
                    log.info("Received SIG{}, shutting down", name);
                    new Thread(server::close, "tide-signal").start();
                });
            } catch (IllegalArgumentException e) {
                log.debug("cannot handle SIG{}: {}", name, e.getMessage());
            }
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "tide-exit"));
        java.nio.file.Path pidFile = writePidFile(config.get("pidfile"), log);
        try {
            server.awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (pidFile != null) {
            try {
                java.nio.file.Files.deleteIfExists(pidFile);
            } catch (java.io.IOException e) {
                log.warn("could not remove pidfile {}: {}", pidFile, e.getMessage());
            }
        }
        log.info("Tide stopped");
        System.exit(0);
    }

    private static java.nio.file.Path writePidFile(String name, Logger log) {
        if (name.isEmpty()) return null;
        java.nio.file.Path p = java.nio.file.Path.of(name);
        try {
            java.nio.file.Files.writeString(p, ProcessHandle.current().pid() + "\n");
            return p;
        } catch (java.io.IOException e) {
            log.warn("could not write pidfile {}: {}", p, e.getMessage());
            return null;
        }
    }

    /** The standalone server's log line, as redis-server's: date, level, thread, message. */
    static final String LOG_PATTERN = "%d{dd MMM yyyy HH:mm:ss.SSS} %-5level [%thread] %msg%n";

    /**
     * Configures logback in code: the jar ships no logback.xml (the library leaves logging to its host, decision
     * 0014), and parsing one cost a fifth of a second at startup. The console (or {@code logfile}) at
     * {@code loglevel}, Netty at WARN. With {@code -Dlogback.configurationFile} the file's appenders stay and only
     * the levels and {@code logfile} apply, as before.
     */
    private static void configureLogging(ConfigRegistry config) {
        LoggerContext lc = (LoggerContext) LoggerFactory.getILoggerFactory();
        ch.qos.logback.classic.Logger root = lc.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        boolean ownFile = System.getProperty("logback.configurationFile") != null;
        String file = config.get("logfile");
        if (!ownFile || !file.isEmpty()) {
            if (!ownFile) {
                lc.reset(); // logback's default (a DEBUG console appender) when it finds no configuration file
                lc.getLogger("io.netty").setLevel(Level.WARN);
            }
            PatternLayoutEncoder enc = new PatternLayoutEncoder();
            enc.setContext(lc);
            enc.setPattern(LOG_PATTERN);
            enc.start();
            OutputStreamAppender<ILoggingEvent> appender;
            if (file.isEmpty()) {
                appender = new ConsoleAppender<>();
                appender.setName("CONSOLE");
            } else {
                FileAppender<ILoggingEvent> fa = new FileAppender<>();
                fa.setFile(file);
                fa.setAppend(true);
                appender = fa;
                appender.setName("FILE");
            }
            appender.setContext(lc);
            appender.setEncoder(enc);
            appender.start();
            root.detachAndStopAllAppenders();
            root.addAppender(appender);
        }
        root.setLevel(switch (config.get("loglevel")) {
            case "debug" -> Level.DEBUG;
            case "verbose" -> Level.DEBUG;
            case "warning" -> Level.WARN;
            case "nothing" -> Level.OFF;
            default -> Level.INFO;
        });
    }
}
