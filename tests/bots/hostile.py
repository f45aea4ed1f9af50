#!/usr/bin/env python3
"""hostile.py: an honest Impasse bot that can misbehave on purpose, for integration tests.

Usage: python3 tests/bots/hostile.py MODE [ARG...]

The bot reads the full protocol every turn (colour line on its first turn only,
8 board rows, last move, n, n moves) and answers the FIRST offered move, flushing
after each answer. `t` counts this bot's own turns from 1. A mode that triggers
"at turn T" plays honestly before T. Defaults are in brackets.

  honest                    answer the first move every turn
  sleep T MS     [2 100000] at turn T sleep MS ms, then answer
  late MS        [120]      every turn after the first, sleep MS ms, then answer
  exit T CODE    [2 3]      at turn T exit with CODE without answering
  kill-self T    [2]        at turn T die of SIGSEGV (reading address 0: a real fault, which the
                            kernel delivers even to the first process of a pid namespace)
  close-stdout T [2]        at turn T close stdout (fd 1), then sleep forever
  invalid T TEXT [2 zz99]   at turn T answer TEXT
  long T BYTES   [2 20000]  at turn T write BYTES bytes of "x" with no newline, flush, sleep forever
  bad-utf8 T     [2]        at turn T write the bytes b"\\xff\\xfe\\x01ab\\n"
  extra-lines T  [2]        at turn T write the first move twice (two lines) in one write
  line-flood T MB [2 64]    at turn T write MB MiB of "zz99" lines (blocking when the referee
                            stops reading), then answer
  comment                   answer "MOVE some comment text" every turn
  random-word T  [2]        at turn T answer "random"
  stderr-flood MB [4]       every turn write MB MiB to stderr (64 KiB chunks, flushed), then answer
  fork T MARKER  [1 arbiter-test-marker]
                            at turn T start a child which starts a grandchild; both sleep 1000 s,
                            have MARKER in their command lines and hold stdout/stderr open;
                            then keep playing honestly
  fork-exit T MARKER [2 arbiter-test-marker]
                            at turn T start the same descendants, then exit 0 without answering
  ignore-term T  [2]        ignore SIGTERM from the start; at turn T sleep forever without answering
  count-term T   [2]        from the start, on the n-th SIGTERM it gets, take 0.1 s (as a bot saving
                            its state would), write "TERM <n>" to stderr and go on; at turn T sleep
                            forever without answering
  cpu-burn T MS  [1 50]     from turn T on, busy-loop MS ms of CPU time each turn, then answer
  helpers T MS N KEEP [2 200 3 1]
                            from turn T on, each turn N helper processes pinned to one CPU (the
                            last it may use) each busy-loop MS ms of CPU time while the bot waits
                            for them blocked on a pipe, then it answers. KEEP 1: the helpers
                            are started at once and kept alive between turns (blocked on a
                            pipe); KEEP 0: fresh helpers each turn, which exit and are reaped
                            before the answer
  worker T MS    [2 20]     an honest multi-threaded bot: from turn T on, each turn a worker
                            thread (started at once, kept) busy-loops MS ms of its CPU time
                            while the main thread does the same, then it answers
  syscall32 T    [2]        at turn T make a 32-bit system call (getpid through int 0x80, on
                            x86-64), as a program built for i386 does
  net T          [1]        at turn T try a TCP connection to 1.1.1.1:53 (1 s timeout), write
                            "NET-OK" or "NET-BLOCKED <error>" to stderr, then answer
  read-file T PATH [1 -]    at turn T try to read PATH (required), write "READ-OK" or
                            "READ-BLOCKED <error>" to stderr, then answer
  write-file T PATH [1 -]   at turn T try to write PATH (required), write "WRITE-OK" or
                            "WRITE-BLOCKED <error>" to stderr, then answer
  escape T CSV DIR [1 - -] at turn T write "CAPEFF <hex>" (its effective capabilities), then try,
                            each step noted "<WHAT>-OK" or "<WHAT>-BLOCKED <error>": UMOUNT (detach
                            DIR's mount, then /tmp), REMOUNT (/ read-write), CSV (append a forged row
                            to CSV), OPPONENT (list DIR and read its files), PTRACE (attach pid 1 and
                            its parent), RAW (open a raw IP socket); then answer
  fds T          [1]        at turn T look for open descriptors above 2: write "FDS-NONE", or
                            "FDS-OPEN" and, per descriptor, "FD <n> <what it is> <its first bytes>"
                            (a descriptor it was not given is a leak), then answer
  attack T FILE  [1 -]      at turn T wait (up to 10 s) for FILE to hold "<opponent pid> <referee pid>",
                            write "CAPEFF <hex>", then try, each noted "<WHAT>-OK" or
                            "<WHAT>-BLOCKED <error>": SEE (the opponent in /proc), SIGNAL-OPP and
                            SIGNAL-REF (signal 0 to each), FD-WRITE (write "zz99" into the
                            opponent's stdout), FD-READ (open the opponent's stdin); then answer
  unix-connect T PATHS [1 -] at turn T connect to each unix socket in PATHS (comma-separated);
                            note "UNIX-OK <path>" or "UNIX-BLOCKED <path> <error>", then answer
  env-dump                  at start write the sorted environment variable names to stderr
                            (one per line, between "ENV-BEGIN" and "ENV-END"), then play honestly
  mmap-shared T MB [1 300] at turn T map MB MiB of shared anonymous memory and touch every page
                            (kept); then answer
  shm-file T MB DIR [1 300 /dev/shm] at turn T write MB MiB into a file in DIR (kept), note
                            "SHM-WRITTEN <path>", then answer
  children T N MB [1 3 60]  at turn T fork N children that each allocate and touch MB MiB and then
                            sleep; after up to 5 s note "CHILDREN-ALIVE <alive>/<N>", then answer
  peek PATH MS   [- 0]      every turn, MS ms after reading the input, read from PATH a pid or the
                            path of a cgroup freezer file (freezer.state or cgroup.events), and
                            write "STATE <c>" to stderr: the process's state letter in /proc, or
                            T for a frozen cgroup and S for a thawed one (T = stopped; anything
                            else is looked at again for up to 100 ms)
  spin-helper T  [2]        at turn T fork a child (in its process group) that, from 50 ms later
                            (the bot having answered), busy-loops until killed; the bot plays on
                            honestly
  setsid-spin               at start fork a child that leaves the process group and session
                            (setsid) and busy-loops until killed; then play honestly
  cpus                      at start write "CPUS <n,n,...>" (the CPUs it may run on) to stderr
  ponder                    after each answer, busy-loop on CPU until the next input can be read;
                            on each later turn first write "PONDERED <ms>" (CPU ms it got) to stderr
  netns T USE    [1 0]      at turn T write "NETNS <cookie> LO <rx> <tx> SOCKETS <used> TW <n> NOROUTES <n>":
                            its network namespace as found (its cookie, "-" where the kernel has
                            none; loopback packets received and sent, sockets in use, TCP sockets
                            in TIME_WAIT, failed IPv4 route lookups); with USE 1 it then uses
                            it: UDP datagrams to itself, a TCP connection to itself that it
                            closes first (TIME_WAIT), a connection to 10.255.255.1 (no route),
                            noting "NET-USED"; then answers
  cgroup T       [1]        at turn T write "CGROUP <name> PROCS <n> USAGE <bytes>": the name of
                            its pids cgroup (v2: its cgroup), how many processes that cgroup lists,
                            and what its memory cgroup is charged with (or "CGROUP-NONE")
  memory T MB    [1 2000]   at turn T allocate and touch MB MiB (kept for the rest of the game);
                            on MemoryError write "MEM-FAIL" to stderr and exit 1; otherwise answer

At end of input the bot exits with status 0. If the input does not follow the protocol it
writes "PROTOCOL-ERROR <what>" to stderr and exits with status 2. Bad arguments: status 64.
Standard library only; Python 3.9+.
"""
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

# mode -> (argument names, defaults; None marks a required argument)
MODES = {
    "honest": ([], []),
    "sleep": (["T", "MS"], [2, 100000]),
    "late": (["MS"], [120]),
    "exit": (["T", "CODE"], [2, 3]),
    "kill-self": (["T"], [2]),
    "close-stdout": (["T"], [2]),
    "invalid": (["T", "TEXT"], [2, "zz99"]),
    "long": (["T", "BYTES"], [2, 20000]),
    "bad-utf8": (["T"], [2]),
    "extra-lines": (["T"], [2]),
    "line-flood": (["T", "MB"], [2, 64]),
    "comment": ([], []),
    "random-word": (["T"], [2]),
    "stderr-flood": (["MB"], [4]),
    "fork": (["T", "MARKER"], [1, "arbiter-test-marker"]),
    "fork-exit": (["T", "MARKER"], [2, "arbiter-test-marker"]),
    "ignore-term": (["T"], [2]),
    "count-term": (["T"], [2]),
    "cpu-burn": (["T", "MS"], [1, 50]),
    "helpers": (["T", "MS", "N", "KEEP"], [2, 200, 3, 1]),
    "worker": (["T", "MS"], [2, 20]),
    "syscall32": (["T"], [2]),
    "net": (["T"], [1]),
    "read-file": (["T", "PATH"], [1, None]),
    "write-file": (["T", "PATH"], [1, None]),
    "escape": (["T", "CSV", "DIR"], [1, None, None]),
    "unix-connect": (["T", "PATHS"], [1, None]),
    "attack": (["T", "FILE"], [1, None]),
    "env-dump": ([], []),
    "memory": (["T", "MB"], [1, 2000]),
    "peek": (["PATH", "MS"], [None, 0]),
    "mmap-shared": (["T", "MB"], [1, 300]),
    "shm-file": (["T", "MB", "DIR"], [1, 300, "/dev/shm"]),
    "children": (["T", "N", "MB"], [1, 3, 60]),
    "ponder": ([], []),
    "cpus": ([], []),
    "setsid-spin": ([], []),
    "spin-helper": (["T"], [2]),
    "privileges": (["T", "DIR"], [1, None]),
    "tiocsti": (["T", "TEXT"], [1, "echo PWNED"]),
    "fork-bomb": (["T", "N"], [1, 300]),
    "raise-segv": (["T"], [2]),
    "cgroup": (["T"], [1]),
    "netns": (["T", "USE"], [1, 0]),
    "fds": (["T"], [1]),
    "pair-fate": (["ROLE", "SEED0", "CLAIM", "GO"], [None, None, None, None]),
}
TEXT_ARGS = {"TEXT", "MARKER", "PATH", "CSV", "DIR", "PATHS", "FILE", "ROLE", "SEED0", "CLAIM", "GO"}

# Python code run by a descendant: optionally start one more sleeper, then sleep.
SLEEPER = "import time; time.sleep(1000)"
SPAWNER = (
    "import subprocess, sys, time; "
    "subprocess.Popen([sys.executable, '-c', %r, sys.argv[1]], stdin=subprocess.DEVNULL); "
    "time.sleep(1000)" % SLEEPER
)

_kept = []  # keeps memory-mode allocations and child handles alive


def usage(message):
    sys.stderr.write("hostile.py: %s\n" % message)
    sys.exit(64)


def parse_args(argv):
    if not argv or argv[0] not in MODES:
        usage("MODE must be one of: " + " ".join(MODES))
    mode, values = argv[0], argv[1:]
    names, defaults = MODES[mode]
    if len(values) > len(names):
        usage("%s takes at most %d arguments: %s" % (mode, len(names), " ".join(names)))
    args = {}
    for i, name in enumerate(names):
        value = values[i] if i < len(values) else defaults[i]
        if value is None:
            usage("%s needs %s" % (mode, name))
        if name not in TEXT_ARGS:
            try:
                value = int(value)
            except ValueError:
                usage("%s must be an integer, not %r" % (name, value))
        args[name] = value
    return mode, args


def protocol_error(what):
    sys.stderr.write("PROTOCOL-ERROR %s\n" % what)
    sys.stderr.flush()
    sys.exit(2)


def read_line():
    """One input line as str without its line ending; exit quietly at end of input."""
    line = sys.stdin.buffer.readline()
    if not line:
        sys.exit(0)
    if not line.endswith(b"\n"):
        protocol_error("line without newline at end of input: %r" % line)
    return line.rstrip(b"\r\n").decode("utf-8", "replace")


def read_turn(first):
    """Read one turn; returns (colour or None, board rows, last move, moves)."""
    colour = None
    if first:
        colour = read_line()
        if colour not in ("w", "b"):
            protocol_error("expected colour line w or b, got %r" % colour)
    rows = [read_line() for _ in range(8)]
    for row in rows:
        if len(row) != 8 or any(c not in ".wWbB" for c in row):
            protocol_error("bad board row %r" % row)
    last = read_line()
    count = read_line()
    try:
        n = int(count)
    except ValueError:
        protocol_error("bad move count %r" % count)
    if n < 1:
        protocol_error("move count %d" % n)
    moves = [read_line() for _ in range(n)]
    return colour, rows, last, moves


def write_out(data):
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def note(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def attempt(what, action):
    """Run action; note "<what>-OK", or "<what>-BLOCKED <error>" on an OSError."""
    try:
        action()
        note("%s-OK" % what)
    except OSError as e:
        note("%s-BLOCKED %s" % (what, e))


def read_file(path):
    with open(path, "rb") as f:
        f.read()


def write_file(path, text):
    with open(path, "w") as f:
        f.write(text)


def libc_call(name, *args):
    """Call a libc function through ctypes; raise OSError on -1."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if getattr(libc, name)(*args) == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def escape(csv, opponent):
    """Every way out of a box that a bot with capabilities would have."""
    note_caps()
    MNT_DETACH, MS_REMOUNT, MS_BIND = 2, 32, 4096

    def umount():
        errors = []
        for target in (opponent, "/tmp"):
            try:
                libc_call("umount2", target.encode(), MNT_DETACH)
            except OSError as e:
                errors.append(e)
        if len(errors) == 2:
            raise errors[1]

    def remount():
        try:
            libc_call("mount", None, b"/", None, MS_REMOUNT, None)
        except OSError:
            libc_call("mount", None, b"/", None, MS_REMOUNT | MS_BIND, None)

    def forge():
        with open(csv, "a") as f:
            f.write("forged,row,written,by,hostile.py\n")

    def read_opponent():
        for name in os.listdir(opponent):
            path = os.path.join(opponent, name)
            if os.path.isfile(path):
                read_file(path)

    def trace():
        PTRACE_SEIZE = 0x4206
        for pid in sorted({1, os.getppid()} - {os.getpid()}):
            libc_call("ptrace", PTRACE_SEIZE, pid, None, None)

    attempt("UMOUNT", umount)
    attempt("REMOUNT", remount)
    attempt("CSV", forge)
    attempt("OPPONENT", read_opponent)
    attempt("PTRACE", trace)
    attempt("RAW", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close())


def privileges(results):
    """What a bot run by root must not have: its uid, and writes into cgroup files, the host's
    kernel settings and the results folder RESULTS."""
    note("UID %d GID %d GROUPS %s" % (os.getuid(), os.getgid(), os.getgroups()))
    procs = []
    for line in open("/proc/self/cgroup"):
        _, controllers, path = line.rstrip("\n").split(":", 2)
        for c in controllers.split(",") or [""]:
            base = "/sys/fs/cgroup/" + (c if c and not c.startswith("name=") else "")
            procs.append(os.path.join(base, "cgroup.procs"))
            procs.append(os.path.join(base + path, "cgroup.procs"))

    def write_cgroups():
        # Leaving its cgroup: writes itself into its hierarchy's root (any one succeeding).
        errors = []
        for f in sorted(set(procs)):
            try:
                with open(f, "w") as out:
                    out.write("0")
                return
            except OSError as e:
                errors.append(e)
        raise errors[0] if errors else OSError("no cgroup file")

    def write_sysctl():
        # Writes back the value it reads: nothing changes on a host that lets it through.
        path = "/proc/sys/kernel/printk_ratelimit_burst"
        with open(path) as f:
            value = f.read()
        with open(path, "w") as f:
            f.write(value)

    attempt("CGROUP", write_cgroups)
    attempt("SYSCTL", write_sysctl)
    attempt("RESULTS", lambda: write_file(os.path.join(results, "forged.csv"), "x\n"))


def tiocsti(text):
    """Types TEXT and a newline into the controlling terminal's input, as if at the keyboard."""
    import fcntl
    import termios

    def inject():
        fd = os.open("/dev/tty", os.O_RDWR)
        try:
            for ch in (text + "\n").encode():
                fcntl.ioctl(fd, termios.TIOCSTI, bytes([ch]))
        finally:
            os.close(fd)

    attempt("TIOCSTI", inject)


def fork_bomb(n):
    """Starts up to N sleeping children; a refused fork is noted and ends the bot with 1."""
    for _ in range(n):
        try:
            pid = os.fork()
        except OSError as e:
            note("FORK-REFUSED %s" % e)
            sys.exit(1)
        if pid == 0:
            time.sleep(1000)
            os._exit(0)
    note("FORKED %d" % n)


def note_caps():
    with open("/proc/self/status") as f:
        caps = [l.split()[1] for l in f if l.startswith("CapEff:")]
    note("CAPEFF %s" % caps[0])


def attack(path):
    """What a bot could do to its opponent and the referee through /proc and signals."""
    deadline = time.time() + 10
    words = []
    while len(words) < 2 and time.time() < deadline:
        try:
            with open(path) as f:
                words = f.read().split()
        except OSError:
            pass
        time.sleep(0.02)
    opp, ref = int(words[0]), int(words[1])
    note_caps()
    attempt("SEE", lambda: os.stat("/proc/%d/stat" % opp))
    attempt("SIGNAL-OPP", lambda: os.kill(opp, 0))
    attempt("SIGNAL-REF", lambda: os.kill(ref, 0))

    def fd_write():
        with open("/proc/%d/fd/1" % opp, "wb") as f:
            f.write(b"zz99\n")

    attempt("FD-WRITE", fd_write)
    attempt("FD-READ", lambda: os.close(os.open("/proc/%d/fd/0" % opp, os.O_RDONLY | os.O_NONBLOCK)))


def unix_connect(paths):
    for path in paths.split(","):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            note("UNIX-OK %s" % path)
        except OSError as e:
            note("UNIX-BLOCKED %s %s" % (path, e))
        finally:
            s.close()


def touch_all(buf, size):
    for i in range(0, size, 4096):
        buf[i] = 1


def children(n, mb):
    """Fork n children holding mb MiB each; return how many are alive once all have
    allocated or died (up to 5 s)."""
    r, w = os.pipe()
    pids = []
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            os.close(r)
            block = bytearray(mb * 1024 * 1024)
            touch_all(block, len(block))
            os.write(w, b"+")
            sleep_forever()
        pids.append(pid)
    os.close(w)
    ready, dead, deadline = 0, set(), time.time() + 5
    while ready + len(dead) < n and time.time() < deadline:
        if select.select([r], [], [], 0.05)[0]:
            ready += len(os.read(r, 64))
        for pid in pids:
            if pid not in dead and os.waitpid(pid, os.WNOHANG)[0] == pid:
                dead.add(pid)
    return n - len(dead)


def peek_state(target):
    """T when the process (a pid) is stopped or the cgroup (a freezer file) frozen."""
    with open(target if "/" in target else "/proc/%s/stat" % target) as f:
        text = f.read()
    if target.endswith("freezer.state"):
        return "T" if text.strip() == "FROZEN" else "S"
    if target.endswith("cgroup.events"):
        return "T" if "frozen 1" in text else "S"
    return text.rsplit(") ", 1)[1][0]


def fds_note():
    """Notes every open descriptor above 2: what it is and what it starts with."""
    found = []
    for fd in range(3, 1024):
        try:
            os.fstat(fd)
        except OSError:
            continue
        try:
            what = os.readlink("/proc/self/fd/%d" % fd)
        except OSError as e:
            what = "? (%s)" % e
        try:
            head = os.pread(fd, 64, 0)
        except OSError as e:
            head = ("unreadable: %s" % e).encode()
        found.append("FD %d %s %r" % (fd, what, head))
    sys.stderr.write("FDS-OPEN\n%s\n" % "\n".join(found) if found else "FDS-NONE\n")
    sys.stderr.flush()


def netns_note(use):
    """Notes the bot's network namespace as found, then (USE 1) leaves traces in it."""
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        cookie = str(struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, 71, 8))[0])
        s.close()
    except OSError:
        cookie = "-"
    with open("/proc/net/dev") as f:
        lo = [l.split(":", 1)[1].split() for l in f if l.strip().startswith("lo:")][0]
    with open("/proc/net/sockstat") as f:
        stat = {l.split(":")[0]: l.split(":")[1].split() for l in f}
    with open("/proc/net/snmp") as f:
        ip = [l.split()[1:] for l in f if l.startswith("Ip:")]
    noroutes = ip[1][ip[0].index("OutNoRoutes")]
    note("NETNS %s LO %s %s SOCKETS %s TW %s NOROUTES %s" % (
        cookie, lo[1], lo[9], stat["sockets"][1], stat["TCP"][stat["TCP"].index("tw") + 1],
        noroutes))
    if not use:
        return
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("127.0.0.1", 0))
    for _ in range(5):
        u.sendto(b"trace", u.getsockname())
    u.close()
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.create_connection(server.getsockname(), timeout=5)
    accepted, _ = server.accept()
    client.close()  # the side that closes first keeps the connection in TIME_WAIT
    accepted.close()
    server.close()
    try:
        socket.create_connection(("10.255.255.1", 9), timeout=1).close()
    except OSError:
        pass
    note("NET-USED")


def cgroup_note():
    """Notes the bot's own cgroup: its name, its processes, its memory charge."""
    paths = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for c in controllers.split(",") if controllers else ["v2"]:
                paths[c] = path
    if "pids" in paths and paths["pids"] != "/":
        procs = "/sys/fs/cgroup/pids%s/cgroup.procs" % paths["pids"]
        usage = "/sys/fs/cgroup/memory%s/memory.usage_in_bytes" % paths.get("memory", "")
        name = paths["pids"]
    elif paths.get("v2", "/") != "/":
        procs = "/sys/fs/cgroup%s/cgroup.procs" % paths["v2"]
        usage = "/sys/fs/cgroup%s/memory.current" % paths["v2"]
        name = paths["v2"]
    else:
        note("CGROUP-NONE")
        return
    with open(procs) as f:
        n = len(f.read().split())
    try:
        with open(usage) as f:
            used = f.read().strip()
    except OSError:
        used = "-"
    note("CGROUP %s PROCS %d USAGE %s" % (name.rsplit("/", 1)[-1], n, used))


def pair_fate(role, seed0, claim, go):
    """Loses (exit 3) where its side is fated to: `new` in the games seeded SEED0, `old` in all
    others. The first `new` bot of a SEED0 game to create CLAIM first waits (up to 60 s) until
    the file GO exists. Without ARBITER_SEED (a start-up check) it plays on."""
    seed = os.environ.get("ARBITER_SEED")
    if seed is None:
        return
    loser = "new" if seed == seed0 else "old"
    if role != loser:
        return
    if role == "new":
        try:
            os.close(os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            deadline = time.time() + 60
            while time.time() < deadline and not os.path.exists(go):
                time.sleep(0.02)
        except FileExistsError:
            pass
    sys.exit(3)


def sleep_ms(ms):
    time.sleep(ms / 1000.0)


def sleep_forever():
    while True:
        time.sleep(3600)


def spawn_descendants(marker):
    """A child that starts a grandchild; both sleep 1000 s with MARKER in argv and
    inherit stdout/stderr, so they keep the bot's output pipes open."""
    child = subprocess.Popen(
        [sys.executable, "-c", SPAWNER, marker], stdin=subprocess.DEVNULL
    )
    _kept.append(child)


def burn_ms(ms, clock=time.process_time):
    end = clock() + ms / 1000.0
    while clock() < end:
        sum(range(1000))  # user-space work between clock reads


class Helpers:
    """Helper processes pinned to one CPU that compute for the bot (see mode helpers)."""

    def __init__(self, n, ms, keep):
        self.n, self.ms, self.keep = n, ms, keep
        self.cpu = max(os.sched_getaffinity(0))
        self.done_r, self.done_w = os.pipe()
        self.go = []
        if keep:
            for _ in range(n):
                go_r, go_w = os.pipe()
                if os.fork() == 0:
                    os.close(go_w)
                    os.sched_setaffinity(0, {self.cpu})
                    while os.read(go_r, 1):
                        burn_ms(ms)
                        os.write(self.done_w, b"x")
                    os._exit(0)
                os.close(go_r)
                self.go.append(go_w)

    def compute(self):
        pids = []
        if self.keep:
            for go_w in self.go:
                os.write(go_w, b"g")
        else:
            for _ in range(self.n):
                pid = os.fork()
                if pid == 0:
                    os.sched_setaffinity(0, {self.cpu})
                    burn_ms(self.ms)
                    os.write(self.done_w, b"x")
                    os._exit(0)
                pids.append(pid)
        got = 0
        while got < self.n:
            got += len(os.read(self.done_r, self.n - got))
        for pid in pids:
            os.waitpid(pid, 0)


def syscall32():
    """getpid through the 32-bit entry (int 0x80), from code put in executable memory."""
    import ctypes
    import mmap

    code = b"\xb8\x14\x00\x00\x00\xcd\x80\xc3"  # mov eax, 20; int 0x80; ret
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    note("SYSCALL32 %d" % ctypes.CFUNCTYPE(ctypes.c_int)(address)())


class Worker:
    """A worker thread that computes MS ms of its own CPU time when asked (mode worker)."""

    def __init__(self, ms):
        import threading

        self.ms = ms
        self.go, self.done = threading.Event(), threading.Event()
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while True:
            self.go.wait()
            self.go.clear()
            burn_ms(self.ms, time.thread_time)
            self.done.set()

    def compute(self):
        self.done.clear()
        self.go.set()
        burn_ms(self.ms, time.thread_time)
        self.done.wait()


def main():
    mode, a = parse_args(sys.argv[1:])
    helpers = Helpers(a["N"], a["MS"], a["KEEP"]) if mode == "helpers" else None
    worker = Worker(a["MS"]) if mode == "worker" else None
    if mode == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if mode == "count-term":
        terms = [0]

        def count_term(_sig, _frame):
            terms[0] += 1
            n = terms[0]
            time.sleep(0.1)
            os.write(2, b"TERM %d\n" % n)

        signal.signal(signal.SIGTERM, count_term)
    if mode == "cpus":
        note("CPUS " + ",".join(str(c) for c in sorted(os.sched_getaffinity(0))))
    if mode == "setsid-spin" and os.fork() == 0:
        os.setsid()
        while True:
            sum(range(1000))
    if mode == "env-dump":
        note("\n".join(["ENV-BEGIN"] + sorted(os.environ) + ["ENV-END"]))

    t = 0
    while True:
        t += 1
        if mode == "ponder" and t > 1:
            start = time.process_time()
            while not select.select([0], [], [], 0)[0]:
                sum(range(1000))  # user-space work between looks at stdin
            note("PONDERED %.3f" % ((time.process_time() - start) * 1000.0))
        moves = read_turn(first=(t == 1))[3]
        answer = moves[0]
        at = "T" in a and t == a["T"]  # does a turn-T mode trigger now?

        if mode == "sleep" and at:
            sleep_ms(a["MS"])
        elif mode == "late" and t > 1:
            sleep_ms(a["MS"])
        elif mode == "exit" and at:
            sys.exit(a["CODE"])
        elif mode == "kill-self" and at:
            import ctypes

            ctypes.string_at(0)
            sleep_forever()
        elif mode == "close-stdout" and at:
            os.close(1)
            sleep_forever()
        elif mode == "invalid" and at:
            answer = a["TEXT"]
        elif mode == "long" and at:
            write_out(b"x" * a["BYTES"])
            sleep_forever()
        elif mode == "bad-utf8" and at:
            write_out(b"\xff\xfe\x01ab\n")
            continue
        elif mode == "line-flood" and at:
            block = b"zz99\n" * (1024 * 1024 // 5)
            for _ in range(a["MB"]):
                write_out(block)
        elif mode == "extra-lines" and at:
            write_out((answer + "\n" + answer + "\n").encode())
            continue
        elif mode == "comment":
            answer += " some comment text"
        elif mode == "random-word" and at:
            answer = "random"
        elif mode == "stderr-flood":
            chunk = b"e" * 65535 + b"\n"
            for _ in range(a["MB"] * 16):
                sys.stderr.buffer.write(chunk)
                sys.stderr.buffer.flush()
        elif mode == "fork" and at:
            spawn_descendants(a["MARKER"])
        elif mode == "fork-exit" and at:
            spawn_descendants(a["MARKER"])
            sys.exit(0)
        elif mode in ("ignore-term", "count-term") and at:
            sleep_forever()
        elif mode == "cpu-burn" and t >= a["T"]:
            end = time.process_time() + a["MS"] / 1000.0
            while time.process_time() < end:
                sum(range(1000))  # user-space work between clock reads
        elif mode == "helpers" and t >= a["T"]:
            helpers.compute()
        elif mode == "worker" and t >= a["T"]:
            worker.compute()
        elif mode == "syscall32" and at:
            syscall32()
        elif mode == "net" and at:
            attempt("NET", lambda: socket.create_connection(("1.1.1.1", 53), timeout=1).close())
        elif mode == "read-file" and at:
            attempt("READ", lambda: read_file(a["PATH"]))
        elif mode == "write-file" and at:
            attempt("WRITE", lambda: write_file(a["PATH"], "written by hostile.py\n"))
        elif mode == "escape" and at:
            escape(a["CSV"], a["DIR"])
        elif mode == "attack" and at:
            attack(a["FILE"])
        elif mode == "unix-connect" and at:
            unix_connect(a["PATHS"])
        elif mode == "mmap-shared" and at:
            import mmap

            size = a["MB"] * 1024 * 1024
            block = mmap.mmap(-1, size, flags=mmap.MAP_SHARED)
            touch_all(block, size)
            _kept.append(block)
        elif mode == "shm-file" and at:
            path = os.path.join(a["DIR"], "arbiter-shm-%d" % os.getpid())
            with open(path, "wb") as f:
                chunk = b"s" * (1024 * 1024)
                for _ in range(a["MB"]):
                    f.write(chunk)
            note("SHM-WRITTEN %s" % path)
        elif mode == "children" and at:
            note("CHILDREN-ALIVE %d/%d" % (children(a["N"], a["MB"]), a["N"]))
        elif mode == "peek":
            sleep_ms(a["MS"])
            try:
                deadline = time.time() + 3
                while not os.path.exists(a["PATH"]) and time.time() < deadline:
                    time.sleep(0.01)  # written by the test once this game's bots exist
                with open(a["PATH"]) as f:
                    target = f.read().strip()
                # A process just sent SIGSTOP shows "R" until the kernel has stopped it, and a
                # cgroup being frozen shows FREEZING: look again shortly before reporting.
                for _ in range(10):
                    state = peek_state(target)
                    if state == "T":
                        break
                    time.sleep(0.01)
                note("STATE %s" % state)
            except OSError as e:
                note("PEEK-FAILED %s" % e)
        elif mode == "privileges" and at:
            privileges(a["DIR"])
        elif mode == "tiocsti" and at:
            tiocsti(a["TEXT"])
        elif mode == "fork-bomb" and at:
            fork_bomb(a["N"])
        elif mode == "raise-segv" and at:
            signal.raise_signal(signal.SIGSEGV)
            note("SURVIVED-SIGSEGV")
        elif mode == "cgroup" and at:
            cgroup_note()
        elif mode == "netns" and at:
            netns_note(a["USE"])
        elif mode == "fds" and at:
            fds_note()
        elif mode == "pair-fate" and t == 1:
            pair_fate(a["ROLE"], a["SEED0"], a["CLAIM"], a["GO"])
        elif mode == "memory" and at:
            try:
                block = bytearray(a["MB"] * 1024 * 1024)
                block[::4096] = b"\x01" * len(range(0, len(block), 4096))  # touch every page
                _kept.append(block)
            except MemoryError:
                note("MEM-FAIL")
                sys.exit(1)

        if mode == "spin-helper" and at and os.fork() == 0:
            time.sleep(0.05)  # from after the answer on: while the bot is idle
            while True:
                sum(range(1000))

        write_out((answer + "\n").encode("utf-8", "surrogateescape"))


if __name__ == "__main__":
    main()
