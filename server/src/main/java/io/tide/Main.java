package io.tide;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.core.FileAppender;
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
                server.shardCount(), server.ioDriver(), ProcessHandle.current().pid(),
                config.get("profile"),
                launch.profileSetOptions().isEmpty() ? " (sets no options)" : " (set " + launch.profileSetOptions() + ")");
        java.nio.file.Path pidFile = writePidFile(config.get("pidfile"), log);
        // SIGTERM and SIGINT shut down cleanly and exit 0, as redis-server does; the hook covers other exits.
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

    private static void configureLogging(ConfigRegistry config) {
        LoggerContext lc = (LoggerContext) LoggerFactory.getILoggerFactory();
        ch.qos.logback.classic.Logger root = lc.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(switch (config.get("loglevel")) {
            case "debug" -> Level.DEBUG;
            case "verbose" -> Level.DEBUG;
            case "warning" -> Level.WARN;
            case "nothing" -> Level.OFF;
            default -> Level.INFO;
        });
        String file = config.get("logfile");
        if (!file.isEmpty()) {
            PatternLayoutEncoder enc = new PatternLayoutEncoder();
            enc.setContext(lc);
            enc.setPattern("%d{dd MMM yyyy HH:mm:ss.SSS} %-5level [%thread] %msg%n");
            enc.start();
            FileAppender<ch.qos.logback.classic.spi.ILoggingEvent> fa = new FileAppender<>();
            fa.setContext(lc);
            fa.setFile(file);
            fa.setAppend(true);
            fa.setEncoder(enc);
            fa.start();
            root.detachAndStopAllAppenders();
            root.addAppender(fa);
        }
    }
}
