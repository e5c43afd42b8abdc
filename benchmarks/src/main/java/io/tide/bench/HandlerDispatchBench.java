package io.tide.bench;

import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.protocol.Reply;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Confined to one JMH thread: the cost of calling a command's handler through {@link CommandHandler}, the dispatcher's
 * call, from a site that sees 32 handlers in a random order (megamorphic, as the dispatcher's is), when each handler is
 * a method reference (a hidden class each: what the families registered before decision 0014) or a constant of an
 * enum whose {@code execute} switches to the method (what they register now; here 4 enums of 8, so that the call
 * site sees several classes, as the dispatcher's sees 24 families). The handlers' own work is one array
 * read, so the difference is the dispatch.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow", "-XX:+UseCompactObjectHeaders"})
public class HandlerDispatchBench {

    private static final Reply[] R = new Reply[64];

    static {
        for (int i = 0; i < R.length; i++) R[i] = Reply.integer(i);
    }

    private static final int CALLS = 1024;

    private final CommandHandler[] lambdas = {
            HandlerDispatchBench::m0,
            HandlerDispatchBench::m1,
            HandlerDispatchBench::m2,
            HandlerDispatchBench::m3,
            HandlerDispatchBench::m4,
            HandlerDispatchBench::m5,
            HandlerDispatchBench::m6,
            HandlerDispatchBench::m7,
            HandlerDispatchBench::m8,
            HandlerDispatchBench::m9,
            HandlerDispatchBench::m10,
            HandlerDispatchBench::m11,
            HandlerDispatchBench::m12,
            HandlerDispatchBench::m13,
            HandlerDispatchBench::m14,
            HandlerDispatchBench::m15,
            HandlerDispatchBench::m16,
            HandlerDispatchBench::m17,
            HandlerDispatchBench::m18,
            HandlerDispatchBench::m19,
            HandlerDispatchBench::m20,
            HandlerDispatchBench::m21,
            HandlerDispatchBench::m22,
            HandlerDispatchBench::m23,
            HandlerDispatchBench::m24,
            HandlerDispatchBench::m25,
            HandlerDispatchBench::m26,
            HandlerDispatchBench::m27,
            HandlerDispatchBench::m28,
            HandlerDispatchBench::m29,
            HandlerDispatchBench::m30,
            HandlerDispatchBench::m31
    };
    private final CommandHandler[] enums = java.util.stream.Stream.of(Family0.values(), Family1.values(),
            Family2.values(), Family3.values()).flatMap(java.util.Arrays::stream).toArray(CommandHandler[]::new);
    private final int[] order = new int[CALLS];
    private final byte[][] argv = new byte[2][];

    public HandlerDispatchBench() {
        SplittableRandom rnd = new SplittableRandom(42);
        for (int i = 0; i < CALLS; i++) order[i] = rnd.nextInt(32);
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void methodReferences(Blackhole bh) {
        for (int i : order) bh.consume(lambdas[i].execute(null, argv));
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void enumSwitch(Blackhole bh) {
        for (int i : order) bh.consume(enums[i].execute(null, argv));
    }

    static Reply m0(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 0) & 63];
    }

    static Reply m1(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 1) & 63];
    }

    static Reply m2(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 2) & 63];
    }

    static Reply m3(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 3) & 63];
    }

    static Reply m4(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 4) & 63];
    }

    static Reply m5(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 5) & 63];
    }

    static Reply m6(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 6) & 63];
    }

    static Reply m7(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 7) & 63];
    }

    static Reply m8(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 8) & 63];
    }

    static Reply m9(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 9) & 63];
    }

    static Reply m10(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 10) & 63];
    }

    static Reply m11(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 11) & 63];
    }

    static Reply m12(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 12) & 63];
    }

    static Reply m13(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 13) & 63];
    }

    static Reply m14(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 14) & 63];
    }

    static Reply m15(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 15) & 63];
    }

    static Reply m16(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 16) & 63];
    }

    static Reply m17(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 17) & 63];
    }

    static Reply m18(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 18) & 63];
    }

    static Reply m19(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 19) & 63];
    }

    static Reply m20(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 20) & 63];
    }

    static Reply m21(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 21) & 63];
    }

    static Reply m22(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 22) & 63];
    }

    static Reply m23(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 23) & 63];
    }

    static Reply m24(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 24) & 63];
    }

    static Reply m25(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 25) & 63];
    }

    static Reply m26(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 26) & 63];
    }

    static Reply m27(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 27) & 63];
    }

    static Reply m28(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 28) & 63];
    }

    static Reply m29(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 29) & 63];
    }

    static Reply m30(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 30) & 63];
    }

    static Reply m31(CommandContext ctx, byte[][] argv) {
        return R[(argv.length + 31) & 63];
    }

    private enum Family0 implements CommandHandler {
        M0,
        M1,
        M2,
        M3,
        M4,
        M5,
        M6,
        M7;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case M0 -> m0(ctx, argv);
                case M1 -> m1(ctx, argv);
                case M2 -> m2(ctx, argv);
                case M3 -> m3(ctx, argv);
                case M4 -> m4(ctx, argv);
                case M5 -> m5(ctx, argv);
                case M6 -> m6(ctx, argv);
                case M7 -> m7(ctx, argv);
            };
        }
    }

    private enum Family1 implements CommandHandler {
        M8,
        M9,
        M10,
        M11,
        M12,
        M13,
        M14,
        M15;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case M8 -> m8(ctx, argv);
                case M9 -> m9(ctx, argv);
                case M10 -> m10(ctx, argv);
                case M11 -> m11(ctx, argv);
                case M12 -> m12(ctx, argv);
                case M13 -> m13(ctx, argv);
                case M14 -> m14(ctx, argv);
                case M15 -> m15(ctx, argv);
            };
        }
    }

    private enum Family2 implements CommandHandler {
        M16,
        M17,
        M18,
        M19,
        M20,
        M21,
        M22,
        M23;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case M16 -> m16(ctx, argv);
                case M17 -> m17(ctx, argv);
                case M18 -> m18(ctx, argv);
                case M19 -> m19(ctx, argv);
                case M20 -> m20(ctx, argv);
                case M21 -> m21(ctx, argv);
                case M22 -> m22(ctx, argv);
                case M23 -> m23(ctx, argv);
            };
        }
    }

    private enum Family3 implements CommandHandler {
        M24,
        M25,
        M26,
        M27,
        M28,
        M29,
        M30,
        M31;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case M24 -> m24(ctx, argv);
                case M25 -> m25(ctx, argv);
                case M26 -> m26(ctx, argv);
                case M27 -> m27(ctx, argv);
                case M28 -> m28(ctx, argv);
                case M29 -> m29(ctx, argv);
                case M30 -> m30(ctx, argv);
                case M31 -> m31(ctx, argv);
            };
        }
    }
}
