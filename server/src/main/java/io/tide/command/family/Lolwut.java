package io.tide.command.family;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Thread-safe (stateless). LOLWUT's art, as Redis 7.0 draws it. Version 5: Georg Nees's "Schotter" (1968), a grid of
 * squares that are rotated and shifted more the lower their row, plotted on a pixel canvas and printed with Braille
 * characters (2x4 pixels each); the first two rows are never disturbed, so output with at most two rows of squares is
 * the same as Redis's byte for byte. Version 6: a city skyline in the four greys of a colour terminal (after the 8 bit
 * game Plaguemon), background towers in two light greys and black foreground towers with windows. Everything random
 * uses this JVM's random numbers, so it matches Redis's in shape, not in pixels.
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

    /** Terminal colour escapes (foreground and background) of black, grey 1, grey 2 and white. */
    private static final String[] GREYS = {"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"};

    /** Version 6's skyline, {@code cols} by {@code rows} terminal cells (each clamped to 1..1000 as Redis does). */
    static String skyline(long cols, long rows, String version) {
        int width = (int) Math.clamp(cols, 1, 1000);
        int height = (int) Math.clamp(rows, 1, 1000);
        int[] canvas = new int[width * height];
        java.util.Arrays.fill(canvas, 3);
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        // Background towers without windows, the lighter grey first so that it stays behind.
        for (int color = 2; color >= 1; color--) {
            for (int offset = -10; offset < width; ) {
                offset += rnd.nextInt(8);
                int w = 10 + rnd.nextInt(9);
                int h = height / 2 + (color == 2 ? rnd.nextInt(height) / 2 : rnd.nextInt(height) / 3);
                tower(canvas, width, height, offset, w, h, color, false, rnd);
                offset += color == 2 ? w / 2 : w + 1;
            }
        }
        for (int offset = -10; offset < width; ) {
            offset += rnd.nextInt(8);
            int w = 5 + rnd.nextInt(14);
            if (w % 4 != 0) w += w % 3;
            int h = height / 3 + rnd.nextInt(height) / 2;
            tower(canvas, width, height, offset, w, h, 0, true, rnd);
            offset += w + 5;
        }
        StringBuilder sb = new StringBuilder(width * height * 16 + 160);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) sb.append("\033[").append(GREYS[canvas[y * width + x]]).append(" \033[0m");
            if (y != height - 1) sb.append('\n');
        }
        sb.append("\nDedicated to the 8 bit game developers of past and present.\n")
                .append("Original 8 bit image from Plaguemon by hikikomori. Redis ver. ").append(version).append('\n');
        return sb.toString();
    }

    /**
     * One tower standing on the bottom row from column {@code xoff}: its roof row is two cells narrower on each side;
     * with {@code windows}, two-cell-wide windows in one of the greys on every other row and pair of columns inside.
     */
    private static void tower(int[] canvas, int width, int height, int xoff, int w, int h, int color, boolean windows,
                              ThreadLocalRandom rnd) {
        int bottom = height - 1;
        int top = bottom - h + 1;
        for (int y = bottom; y >= top; y--) {
            for (int x = xoff; x < xoff + w; x++) {
                if (y == top && (x <= xoff + 1 || x >= xoff + w - 2)) continue;
                int c = color;
                if (windows && x > xoff + 1 && x < xoff + w - 2 && y > top + 1 && y < bottom - 1) {
                    int relx = x - (xoff + 1);
                    int rely = y - (top + 1);
                    if ((relx / 2) % 2 != 0 && rely % 2 != 0) {
                        do {
                            c = 1 + rnd.nextInt(2);
                        } while (c == color);
                        if (relx % 2 != 0) c = cell(canvas, width, height, x - 1, y); // one window, one grey
                    }
                }
                if (x >= 0 && y >= 0 && x < width && y < height) canvas[y * width + x] = c;
            }
        }
    }

    private static int cell(int[] canvas, int width, int height, int x, int y) {
        return x >= 0 && y >= 0 && x < width && y < height ? canvas[y * width + x] : 0;
    }
}
