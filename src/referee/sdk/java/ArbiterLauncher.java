// arbiter's referee launcher (see src/referee/sdk/launcher.rs): one JVM that plays the games of
// one CodinGame SDK game one after another (a warm JVM), or one game (a fresh JVM per game).
// Each game gets a class loader of its own (the engine's and the game's classes loaded afresh:
// no static state of one game is seen by the next) and so a Guice injector of its own; only the
// engine's libraries (Guice, Guava, Gson, Commons Logging) are shared, loaded once by the JVM's
// class path. The game is started as RefereeMain.start starts it (an injector, its GameManager,
// GameManager.start on the launcher's streams).
//
// What a game leaves behind is undone or refused before the next one: the system properties,
// default locale and time zone and standard streams are put back as they were; every process
// the game started is killed; the files it left in the folders private to this JVM (arbiter
// names them) are removed; threads it left running make the launcher retire (arbiter then ends
// the JVM instead of giving it another game).
//
// Protocol on stdin and stdout (arbiter's side is launcher.rs):
//   arbiter:  [[ARBITER_GAME]] [--own-pids] [--scratch=DIR:DIR...] key=value ...
//             the game's system properties (league.level, ...); --own-pids: the JVM has a
//             process-id namespace of its own (every process in it but the JVM and its
//             ancestors is the game's); --scratch: folders private to this JVM to empty
//   then the referee's own protocol, exactly as with `java ... RefereeMain`, with one message
//   added before each frame's [[VIEW]]:
//             [[ARBITER_STATE] 2] limits=FIRST TURN SOFT TIMEBANK, active=1 0 1
//             the game's own time limits in ms (first turn, later turns, the engine's soft
//             margin added to each limit it sends, 1 for a time bank) and which players are
//             still active in the game
//   launcher: [[ARBITER_GAME_END]] ok | failed | retired WHY
// Lines before a header are what the last game left unread, and are skipped. End of stdin ends
// the launcher. The game's class path is given as the arguments. The output is written at once
// whenever the game waits for input (not line by line).

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.util.Types;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

public final class ArbiterLauncher {
    private static final String GAME = "[[ARBITER_GAME]]";
    private static final String END = "[[ARBITER_GAME_END]]";
    private static final String STATE = "[[ARBITER_STATE] 2]";
    private static final String CORE = "com.codingame.gameengine.core.";
    private static final String MAIN = CORE + "RefereeMain";
    private static final String MANAGER = CORE + "GameManager";

    public static void main(String[] args) throws Exception {
        URL[] urls = new URL[args.length];
        for (int i = 0; i < args.length; i++) {
            urls[i] = Paths.get(args[i]).toUri().toURL();
        }
        InputStream in = new BufferedInputStream(new java.io.FileInputStream(FileDescriptor.in), 1 << 16);
        BufferedOutputStream bytes = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        PrintStream out = new PrintStream(bytes, false, StandardCharsets.UTF_8);
        // What the JVM was before any game, put back after each.
        Properties properties = copy(System.getProperties());
        Locale locale = Locale.getDefault();
        TimeZone zone = TimeZone.getDefault();
        PrintStream err = System.err;
        ClassLoader parent = ArbiterLauncher.class.getClassLoader();
        // The next game's loader is made (and the engine's entry class loaded) while waiting.
        URLClassLoader next = loader(urls, parent);
        while (true) {
            standardStreams(err);
            out.flush();
            String header = readLine(in);
            if (header == null) {
                return;
            }
            if (!header.startsWith(GAME)) {
                // What the last game left unread: CodinGame's runner (and arbiter) asks for the
                // next turn before it knows the game is over, and the engine never reads that.
                continue;
            }
            boolean ownPids = false;
            List<Path> scratch = new ArrayList<>();
            System.setProperties(copy(properties));
            for (String word : header.substring(GAME.length()).trim().split(" +")) {
                if (word.equals("--own-pids")) {
                    ownPids = true;
                } else if (word.startsWith("--scratch=")) {
                    for (String dir : word.substring("--scratch=".length()).split(":")) {
                        if (!dir.isEmpty()) {
                            scratch.add(Paths.get(dir));
                        }
                    }
                } else {
                    int eq = word.indexOf('=');
                    if (eq > 0) {
                        System.setProperty(word.substring(0, eq), word.substring(eq + 1));
                    }
                }
            }
            URLClassLoader games = next;
            Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
            boolean ok = play(games, new Flushing(in, out), out);
            out.flush();
            List<String> left = new ArrayList<>();
            endProcesses(ownPids, left);
            endThreads(before, left);
            for (Path dir : scratch) {
                empty(dir, left);
            }
            System.setProperties(copy(properties));
            Locale.setDefault(locale);
            TimeZone.setDefault(zone);
            standardStreams(err);
            if (!left.isEmpty()) {
                err.println("arbiter's referee launcher ends after this game: " + String.join("; ", left));
            }
            String how = !left.isEmpty() ? " retired " + String.join("; ", left) : ok ? " ok" : " failed";
            out.println(END + how.replace('\n', ' '));
            out.flush();
            games.close();
            if (!left.isEmpty()) {
                return;
            }
            next = loader(urls, parent);
        }
    }

    /// As RefereeMain.main sets them: what a game prints itself goes nowhere, and it reads
    /// nothing; its stderr is the launcher's.
    private static void standardStreams(PrintStream err) {
        System.setOut(new PrintStream(OutputStream.nullOutputStream()));
        System.setErr(err);
        System.setIn(new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("Impossible to read from the referee");
            }
        });
    }

    private static Properties copy(Properties from) {
        Properties to = new Properties();
        for (String key : from.stringPropertyNames()) {
            to.setProperty(key, from.getProperty(key));
        }
        return to;
    }

    private static URLClassLoader loader(URL[] urls, ClassLoader parent) throws Exception {
        URLClassLoader loader = new URLClassLoader(urls, parent);
        Class.forName(MAIN, true, loader);
        return loader;
    }

    /// One game on `in` and `out`, in `loader`, marked as in production as RefereeMain.main
    /// marks it: its GameManager started as RefereeMain.start starts it (so that the launcher
    /// can tell the game's limits and players), or RefereeMain.start itself where the engine
    /// is not shaped so.
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
            Object manager = null;
            Method start = null;
            try {
                Class<?> managerClass = Class.forName(MANAGER, true, loader);
                Class<?> module = Class.forName(CORE + "GameEngineModule", true, loader);
                java.lang.reflect.Constructor<?> make = module.getDeclaredConstructor();
                make.setAccessible(true);
                Injector injector = Guice.createInjector((com.google.inject.Module) make.newInstance());
                Type type = Types.newParameterizedType(managerClass, Class.forName(CORE + "AbstractPlayer", true, loader));
                manager = injector.getInstance(Key.get(type));
                start = managerClass.getDeclaredMethod("start", InputStream.class, PrintStream.class);
                start.setAccessible(true);
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                manager = null;
            }
            if (manager != null) {
                start.invoke(manager, in, new Reporting(out, manager, loader));
            } else {
                main.getMethod("start", InputStream.class, PrintStream.class).invoke(null, in, out);
            }
            return true;
        } catch (Throwable e) {
            // The engine has written its [[FAIL]] already; the trace is for the stderr tail,
            // which is quoted from its end: it ends where a fresh JVM's would, at the engine's
            // entry, not in this launcher's reflection.
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            StackTraceElement[] trace = cause.getStackTrace();
            for (int i = 0; i < trace.length; i++) {
                String name = trace[i].getClassName();
                if (name.equals(MAIN) || (name.equals(MANAGER) && trace[i].getMethodName().equals("start"))) {
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

    /// Ends every process the game started: with a process-id namespace of the JVM's own, every
    /// process in it but the JVM and its ancestors (orphans included); else the JVM's
    /// descendants. One that will not end is named in `left`.
    private static void endProcesses(boolean ownPids, List<String> left) {
        ProcessHandle self = ProcessHandle.current();
        List<ProcessHandle> theirs;
        if (ownPids) {
            Set<Long> keep = new HashSet<>();
            for (ProcessHandle p = self; p != null; p = p.parent().orElse(null)) {
                keep.add(p.pid());
            }
            keep.add(1L);
            try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
                theirs = all.filter(p -> !keep.contains(p.pid())).collect(Collectors.toList());
            }
        } else {
            try (Stream<ProcessHandle> all = self.descendants()) {
                theirs = all.collect(Collectors.toList());
            }
        }
        for (ProcessHandle p : theirs) {
            p.destroyForcibly();
        }
        for (ProcessHandle p : theirs) {
            try {
                p.onExit().get(2, TimeUnit.SECONDS);
            } catch (Exception e) {
                left.add("process " + p.pid() + " of the game would not end");
            }
        }
    }

    /// Threads the game started that still run after it (new threads of the launcher's own
    /// thread group, where a game's threads go; the JDK's own, such as the one that reaps
    /// processes, are in the system's group): given a moment to end once interrupted, else named
    /// in `left`.
    private static void endThreads(Set<Thread> before, List<String> left) {
        ThreadGroup mine = Thread.currentThread().getThreadGroup();
        List<Thread> theirs = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            ThreadGroup group = t.getThreadGroup();
            boolean ours = false;
            for (ThreadGroup g = group; g != null; g = g.getParent()) {
                ours |= g == mine;
            }
            if (!before.contains(t) && t.isAlive() && ours) {
                theirs.add(t);
            }
        }
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        for (Thread t : theirs) {
            t.interrupt();
        }
        for (Thread t : theirs) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                left.add("the game left its thread \"" + t.getName() + "\" running");
            }
        }
    }

    /// Removes what this JVM's user owns in `dir` (a folder private to this JVM), never going
    /// into a folder of another owner (one bound in from outside) nor onto another file system.
    private static void empty(Path dir, List<String> left) {
        Object me;
        Object device;
        try {
            me = Files.getAttribute(Paths.get("/proc/self"), "unix:uid");
            device = Files.getAttribute(dir, "unix:dev", LinkOption.NOFOLLOW_LINKS);
        } catch (Exception e) {
            return;
        }
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                remove(p, me, device, left);
            }
        } catch (IOException e) {
            // Not there, or not readable: nothing of the game's can be in it.
        }
    }

    private static void remove(Path p, Object me, Object device, List<String> left) {
        try {
            if (!me.equals(Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                    || !device.equals(Files.getAttribute(p, "unix:dev", LinkOption.NOFOLLOW_LINKS))) {
                return;
            }
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                try (Stream<Path> entries = Files.list(p)) {
                    for (Path q : (Iterable<Path>) entries::iterator) {
                        remove(q, me, device, left);
                    }
                }
            }
            Files.deleteIfExists(p);
        } catch (IOException e) {
            left.add("cannot remove " + p + " the game left");
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

    /// The launcher's stdin as one game sees it: what the game wrote goes out before it waits
    /// for input, and the engine's closing its Scanner at the end of a game does not close the
    /// stream the next game reads.
    private static final class Flushing extends InputStream {
        private final InputStream in;
        private final PrintStream out;

        Flushing(InputStream in, PrintStream out) {
            this.in = in;
            this.out = out;
        }

        @Override
        public int read() throws IOException {
            if (in.available() == 0) {
                out.flush();
            }
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (in.available() == 0) {
                out.flush();
            }
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

    /// The game's output: before each frame's [[VIEW]], the game's limits and active players
    /// ([[ARBITER_STATE]]), read from its GameManager.
    private static final class Reporting extends PrintStream {
        private final Object manager;
        private Field first;
        private Field turn;
        private Field timebank;
        private Field players;
        private Method active;
        private int soft;

        Reporting(PrintStream out, Object manager, ClassLoader loader) {
            super(out, false, StandardCharsets.UTF_8);
            this.manager = manager;
            try {
                Class<?> managerClass = Class.forName(MANAGER, false, loader);
                first = field(managerClass, "firstTurnMaxTime");
                turn = field(managerClass, "turnMaxTime");
                timebank = field(managerClass, "useTimebank");
                players = field(managerClass, "players");
                Field extra = field(managerClass, "SOFT_TIMELIMIT_EXTRA");
                soft = extra == null ? 0 : extra.getInt(null);
                active = Class.forName(CORE + "AbstractMultiplayerPlayer", false, loader).getMethod("isActive");
            } catch (ReflectiveOperationException | RuntimeException e) {
                players = null;
            }
        }

        private static Field field(Class<?> of, String name) {
            try {
                Field f = of.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException e) {
                return null;
            }
        }

        @Override
        public void println(Object x) {
            before(String.valueOf(x));
            super.println(x);
        }

        @Override
        public void println(String x) {
            before(x);
            super.println(x);
        }

        private void before(String message) {
            if (message == null || !message.startsWith("[[VIEW]") || players == null || first == null || turn == null) {
                return;
            }
            try {
                boolean bank = timebank != null && timebank.getBoolean(manager);
                StringBuilder b = new StringBuilder(STATE).append("\nlimits=")
                        .append(first.getInt(manager)).append(' ')
                        .append(turn.getInt(manager)).append(' ')
                        .append(bank ? 0 : soft).append(' ')
                        .append(bank ? 1 : 0).append("\nactive=");
                List<?> all = (List<?>) players.get(manager);
                for (int i = 0; all != null && i < all.size(); i++) {
                    Object p = all.get(i);
                    boolean on = !active.getDeclaringClass().isInstance(p) || (Boolean) active.invoke(p);
                    b.append(i == 0 ? "" : " ").append(on ? '1' : '0');
                }
                super.println(b.toString());
            } catch (ReflectiveOperationException | RuntimeException e) {
                players = null;
            }
        }
    }
}
