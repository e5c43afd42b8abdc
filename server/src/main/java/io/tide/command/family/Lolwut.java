package io.tide.command.family;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Thread-safe (stateless). LOLWUT VERSION 5's art, as Redis 7.0 draws it: Georg Nees's "Schotter" (1968), a grid of
 * squares that are rotated and shifted more the lower their row, plotted on a pixel canvas and printed with Braille
 * characters (2x4 pixels each). The first two rows are never disturbed, so output with at most two rows of squares is
 * the same as Redis's byte for byte; lower rows use this JVM's random numbers.
 */
final class Lolwut {

    private Lolwut() {}

    /** The art for {@code cols} terminal columns and the given squares per row and column (clamped as Redis does). */
    static String schotter(long cols, long perRow, long perCol, String version) {
        int columns = (int) Math.clamp(cols, 1, 1000);
        int squaresPerRow = (int) Math.clamp(perRow, 1, 200);
        int squaresPerCol = (int) Math.clamp(perCol, 1, 200);
        int width = columns * 2;
        int padding = width > 4 ? 2 : 0;
        float side = (float) (width - padding * 2) / squaresPerRow;
        int height = (int) (side * squaresPerCol + padding * 2);
        boolean[] canvas = new boolean[width * height];
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        for (int y = 0; y < squaresPerCol; y++) {
            for (int x = 0; x < squaresPerRow; x++) {
                int sx = (int) (x * side + side / 2 + padding);
                int sy = (int) (y * side + side / 2 + padding);
                float angle = 0;
                if (y > 1) {
                    float r1 = rnd.nextFloat() / squaresPerCol * y;
                    float r2 = rnd.nextFloat() / squaresPerCol * y;
                    float r3 = rnd.nextFloat() / squaresPerCol * y;
                    if (rnd.nextBoolean()) r1 = -r1;
                    if (rnd.nextBoolean()) r2 = -r2;
                    if (rnd.nextBoolean()) r3 = -r3;
                    angle = r1;
                    sx = (int) (sx + r2 * side / 3);
                    sy = (int) (sy + r3 * side / 3);
                }
                square(canvas, width, height, sx, sy, side, angle);
            }
        }
        StringBuilder sb = new StringBuilder((width / 2 + 1) * (height / 4 + 1) + 80);
        render(canvas, width, height, sb);
        sb.append("\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. ").append(version).append('\n');
        return sb.toString();
    }

    /** A square centred on (x, y) whose side is {@code size}, rotated by {@code angle} radians. */
    private static void square(boolean[] canvas, int width, int height, int x, int y, float size, float angle) {
        float half = Math.round(size / 1.4142135623f); // centre to corner
        int[] px = new int[4];
        int[] py = new int[4];
        float k = (float) (Math.PI / 4) + angle;
        for (int j = 0; j < 4; j++) {
            px[j] = (int) Math.rint(Math.sin(k) * half + x);
            py[j] = (int) Math.rint(Math.cos(k) * half + y);
            k += (float) (Math.PI / 2);
        }
        for (int j = 0; j < 4; j++) {
            line(canvas, width, height, px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4]);
        }
    }

    /** Bresenham's line from (x1, y1) to (x2, y2); pixels off the canvas are dropped. */
    private static void line(boolean[] canvas, int width, int height, int x1, int y1, int x2, int y2) {
        int dx = Math.abs(x2 - x1);
        int dy = Math.abs(y2 - y1);
        int sx = x1 < x2 ? 1 : -1;
        int sy = y1 < y2 ? 1 : -1;
        int err = dx - dy;
        while (true) {
            if (x1 >= 0 && y1 >= 0 && x1 < width && y1 < height) canvas[y1 * width + x1] = true;
            if (x1 == x2 && y1 == y2) break;
            int e2 = err * 2;
            if (e2 > -dy) {
                err -= dy;
                x1 += sx;
            }
            if (e2 < dx) {
                err += dx;
                y1 += sy;
            }
        }
    }

    private static boolean pixel(boolean[] canvas, int width, int height, int x, int y) {
        return x < width && y < height && canvas[y * width + x];
    }

    /** One Braille character per 2x4 pixels (dots 1-8 in Unicode's order), each row of characters ending a line. */
    private static void render(boolean[] canvas, int width, int height, StringBuilder sb) {
        for (int y = 0; y < height; y += 4) {
            for (int x = 0; x < width; x += 2) {
                int dots = 0;
                if (pixel(canvas, width, height, x, y)) dots |= 1;
                if (pixel(canvas, width, height, x, y + 1)) dots |= 1 << 1;
                if (pixel(canvas, width, height, x, y + 2)) dots |= 1 << 2;
                if (pixel(canvas, width, height, x + 1, y)) dots |= 1 << 3;
                if (pixel(canvas, width, height, x + 1, y + 1)) dots |= 1 << 4;
                if (pixel(canvas, width, height, x + 1, y + 2)) dots |= 1 << 5;
                if (pixel(canvas, width, height, x, y + 3)) dots |= 1 << 6;
                if (pixel(canvas, width, height, x + 1, y + 3)) dots |= 1 << 7;
                sb.append((char) (0x2800 + dots));
            }
            sb.append('\n');
        }
    }
}
