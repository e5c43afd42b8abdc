package io.tide.bench;

import io.tide.acl.Acl;
import io.tide.acl.AclUser;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.family.Families;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Confined to one JMH thread: the cost of the ACL check the dispatcher makes per command for a restricted user (a
 * command bit, then the key patterns), for GET on an allowed key and MSET of 4 keys; the unrestricted case is a
 * volatile read that skips the check.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "-XX:+UseCompactObjectHeaders"})
public class AclCheckBench {

    private Acl acl;
    private AclUser user;
    private CommandSpec get;
    private CommandSpec mset;
    private byte[][] getArgv;
    private byte[][] msetArgv;

    private static byte[][] argv(String... words) {
        byte[][] out = new byte[words.length][];
        for (int i = 0; i < words.length; i++) out[i] = words[i].getBytes(StandardCharsets.UTF_8);
        return out;
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        CommandTable table = new CommandTable();
        Families.registerAll(table);
        table.seal(1);
        acl = new Acl(table);
        acl.setUser("app", List.of("on", ">pw", "~session:*", "%R~config:*", "~app:*", "+@read", "+@write", "-@dangerous"));
        user = acl.user("app");
        get = table.lookup("get");
        mset = table.lookup("mset");
        getArgv = argv("GET", "app:user:1000");
        msetArgv = argv("MSET", "app:a", "1", "app:b", "2", "app:c", "3", "app:d", "4");
    }

    @Benchmark
    public Acl.Denial getAllowed() {
        return acl.check(user, get, getArgv, CommandSpec::keyRefs).denial();
    }

    @Benchmark
    public Acl.Denial msetOfFourAllowed() {
        return acl.check(user, mset, msetArgv, CommandSpec::keyRefs).denial();
    }

    @Benchmark
    public boolean unrestrictedSkip() {
        return acl.unrestricted();
    }
}
