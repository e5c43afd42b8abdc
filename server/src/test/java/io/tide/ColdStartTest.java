package io.tide;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.family.Families;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Holds decision 0014's lines: the library jar carries no logging configuration of its own, command handlers are not
 * one generated (hidden) class each, which the JVM would spin at every cold start, and the classes {@link Startup}
 * loads ahead of a start still exist.
 */
class ColdStartTest {

    @Test
    void theLibraryShipsNoLoggingConfiguration() {
        // The test class path has src/test/resources' logback-test.xml (the tests' own); main resources must add none.
        ClassLoader loader = Server.class.getClassLoader();
        assertThat(loader.getResource("logback.xml")).as("logback.xml in the library's resources").isNull();
        assertThat(loader.getResource("logback.groovy")).isNull();
        assertThat(loader.getResource("log4j2.xml")).isNull();
    }

    @Test
    void commandHandlersAreNotAGeneratedClassEach() {
        CommandTable table = new CommandTable();
        Families.registerAll(table);
        List<String> generated = new ArrayList<>();
        int handlers = 0;
        for (CommandSpec spec : table.all()) {
            List<CommandSpec> specs = new ArrayList<>(List.of(spec));
            specs.addAll(spec.subcommands().values());
            for (CommandSpec s : specs) {
                if (s.handler() == null) continue;
                handlers++;
                if (s.handler().getClass().isHidden()) generated.add(s.fullName());
            }
        }
        assertThat(handlers).isGreaterThan(300);
        // The block lambdas that remain (decision 0014). A new command registers a constant of its family's Handler
        // enum rather than a method reference or lambda.
        assertThat(generated).as("handlers that are lambdas or method references").hasSizeLessThanOrEqualTo(19);
    }

    @Test
    void theClassesLoadedAheadOfAStartExist() throws java.io.IOException {
        List<String> names = new ArrayList<>();
        try (java.io.InputStream in = Startup.class.getResourceAsStream(Startup.CLASS_LIST)) {
            String text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
            for (String line : text.split("\n")) {
                if (!line.isEmpty() && !line.startsWith("#")) names.add(line);
            }
        }
        assertThat(names).as("classes listed in " + Startup.CLASS_LIST).hasSizeGreaterThan(300);
        List<String> missing = new ArrayList<>();
        for (String name : names) {
            try {
                Class.forName(name, false, Startup.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                missing.add(name);
            }
        }
        assertThat(missing).as("classes gone from the class path: rewrite the list with bin/gen-startup-classes")
                .isEmpty();
    }

    @Test
    void finishStopsTheClassLoadingAndEndsTheThread() throws Exception {
        // An endless list: only finish() ends the thread, and it must have ended when finish() returns (Server.close
        // calls it, so a stopped server leaves no tide-start thread behind).
        byte[] line = "java.lang.String\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.io.InputStream endless = new java.io.InputStream() {
            private int i;

            @Override
            public int read() {
                return line[i++ % line.length];
            }
        };
        Startup startup = Startup.begin(() -> endless);
        assertThat(startup.table().all()).isNotEmpty();
        assertThat(startup.thread().isAlive()).isTrue();
        startup.finish();
        assertThat(startup.thread().isAlive()).isFalse();
    }
}
