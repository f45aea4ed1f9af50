// arbiter's warm referee launcher (see src/referee/sdk/launcher.rs): one JVM that plays the
// games of one CodinGame SDK game one after another, so that a game does not pay a JVM's
// start-up. Each game gets a class loader of its own (the engine's and the game's classes
// loaded afresh: no static state of one game is seen by the next) and so a Guice injector of its
// own; only the engine's libraries (Guice, Guava, Gson, Commons Logging) are shared, loaded
// once by the JVM's class path.
//
// Protocol on stdin and stdout (arbiter's side is launcher.rs):
//   arbiter:  [[ARBITER_GAME]] key=value ...     the game's system properties (league.level, ...)
//   then the referee's own protocol, exactly as with `java ... RefereeMain`, until its end;
//   launcher: [[ARBITER_GAME_END]] ok|failed      once the engine returned (or threw)
// Lines before a header are what the last game left unread, and are skipped. End of stdin ends
// the launcher. The game's class path is given as the arguments.

import java.io.BufferedInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;

public final class ArbiterLauncher {
    private static final String GAME = "[[ARBITER_GAME]]";
    private static final String END = "[[ARBITER_GAME_END]]";
    private static final String MAIN = "com.codingame.gameengine.core.RefereeMain";

    public static void main(String[] args) throws Exception {
        URL[] urls = new URL[args.length];
        for (int i = 0; i < args.length; i++) {
            urls[i] = Paths.get(args[i]).toUri().toURL();
        }
        InputStream in = new BufferedInputStream(new java.io.FileInputStream(FileDescriptor.in), 1 << 16);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        // As RefereeMain.main does: what a game prints itself goes nowhere, and it reads nothing.
        System.setOut(new PrintStream(OutputStream.nullOutputStream()));
        System.setIn(new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("Impossible to read from the referee");
            }
        });
        ClassLoader parent = ArbiterLauncher.class.getClassLoader();
        // The next game's loader is made (and the engine's entry class loaded) while waiting.
        URLClassLoader next = loader(urls, parent);
        while (true) {
            String header = readLine(in);
            if (header == null) {
                return;
            }
            if (!header.startsWith(GAME)) {
                // What the last game left unread: CodinGame's runner (and arbiter) asks for the
                // next turn before it knows the game is over, and the engine never reads that.
                continue;
            }
            for (String word : header.substring(GAME.length()).trim().split(" +")) {
                int eq = word.indexOf('=');
                if (eq > 0) {
                    System.setProperty(word.substring(0, eq), word.substring(eq + 1));
                }
            }
            URLClassLoader games = next;
            boolean ok = play(games, in, out);
            out.println(END + (ok ? " ok" : " failed"));
            out.flush();
            games.close();
            next = loader(urls, parent);
        }
    }

    private static URLClassLoader loader(URL[] urls, ClassLoader parent) throws Exception {
        URLClassLoader loader = new URLClassLoader(urls, parent);
        Class.forName(MAIN, true, loader);
        return loader;
    }

    /// One game on `in` and `out`, in `loader`: RefereeMain.start as CodinGame's runner calls
    /// main, marked as in production as main marks it.
    private static boolean play(URLClassLoader loader, InputStream in, PrintStream out) {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            Class<?> main = Class.forName(MAIN, true, loader);
            try {
                Field production = main.getDeclaredField("inProduction");
                production.setAccessible(true);
                production.setBoolean(null, true);
            } catch (NoSuchFieldException e) {
                // An engine without the flag: nothing to mark.
            }
            Method start = main.getMethod("start", InputStream.class, PrintStream.class);
            start.invoke(null, new Unclosed(in), out);
            return true;
        } catch (Throwable e) {
            // The engine has written its [[FAIL]] already; the trace is for the stderr tail,
            // which is quoted from its end: it ends where a fresh JVM's would, at the engine's
            // entry, not in this launcher's reflection.
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            StackTraceElement[] trace = cause.getStackTrace();
            for (int i = 0; i < trace.length; i++) {
                if (trace[i].getClassName().equals(MAIN)) {
                    cause.setStackTrace(java.util.Arrays.copyOf(trace, i + 1));
                    break;
                }
            }
            cause.printStackTrace();
            return false;
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    /// One line of `in` (bytes up to '\n', UTF-8), or null at its end.
    private static String readLine(InputStream in) throws IOException {
        java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
            }
            if (b == '\n') {
                return line.toString(StandardCharsets.UTF_8);
            }
            line.write(b);
        }
    }

    /// The launcher's stdin as one game sees it: the engine closes its Scanner at the end of a
    /// game, which must not close the stream the next game reads.
    private static final class Unclosed extends InputStream {
        private final InputStream in;

        Unclosed(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return in.read(b, off, len);
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        @Override
        public void close() {
        }
    }
}
