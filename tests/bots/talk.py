#!/usr/bin/env python3
"""talk.py: an honest Impasse bot that tries every channel to another bot, for integration tests.

Usage: python3 tests/bots/talk.py RDV [leave MB FILE_MB]

Two copies of it (of one game, or of two games at once) share only the word RDV. Each answers
the first offered move every turn. On its first turn it learns its colour c ("w" or "b") and
posts, on every channel it knows, a message under RDV and c; on every turn it then looks for
the other colour's message on each channel, and writes "GOT <channel>" to stderr (once per
channel) when one gets through. "POSTED <channel>" or "POST-FAILED <channel> <error>" say how
each post went. Channels: files in /tmp, /var/tmp, /dev/shm and /run/lock; an abstract and a
path unix socket; TCP and UDP on 127.0.0.1; a System V message queue and shared memory
segment; a POSIX message queue; a file in /tmp readable by its own user id only (any copy's
but its own, so that a later game's bot with the same user id reads it); flock and fcntl record locks and inotify watches and fcntl
F_NOTIFY on files every bot shares (the Python interpreter, its standard library, this
script).

With "leave MB FILE_MB", on its first turn it also leaves behind what a bot must not be able to
leave after its game: an MB MiB System V shared memory segment (key from RDV and c, touched,
never removed), a POSIX message queue "/RDV-c-left", MB MiB written to /dev/shm/RDV-c-left, then
FILE_MB MiB to /tmp/RDV-c-left, writing "LEFT <what> <MiB written>" or
"LEAVE-FAILED <what> <MiB written> <error>".
"UID <uid>" is written on its first turn.
"""
import ctypes
import ctypes.util
import errno
import fcntl
import os
import signal
import socket
import struct
import sys
import zlib

libc = ctypes.CDLL(None, use_errno=True)
rt_name = ctypes.util.find_library("rt")
rt = ctypes.CDLL(rt_name, use_errno=True) if rt_name else libc


def note(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def check(result):
    if result == -1:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return result


def read_line():
    line = sys.stdin.buffer.readline()
    if not line:
        sys.exit(0)
    return line.rstrip(b"\r\n").decode("utf-8", "replace")


def read_turn(first):
    colour = read_line() if first else None
    for _ in range(9):  # 8 board rows and the last move
        read_line()
    moves = [read_line() for _ in range(int(read_line()))]
    return colour, moves


RDV = sys.argv[1]
LEAVE = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 and sys.argv[2] == "leave" else None
SEED = zlib.crc32(RDV.encode())
STDLIB = os.path.dirname(os.__file__)
# Files every bot shares, one per colour and channel (the same inodes for every bot, in the
# sandbox too: the interpreter's installation and this script are bound read-only).
SHARED = {
    "flock": {"w": os.path.realpath(sys.executable), "b": os.path.realpath(__file__)},
    "inotify": {"w": os.path.join(STDLIB, "this.py"), "b": os.path.join(STDLIB, "antigravity.py")},
    "dnotify": {"w": os.path.join(STDLIB, "json"), "b": os.path.join(STDLIB, "xmlrpc")},
}
_kept = []
got = set()
notified = []


def key(c, what):
    return (SEED % 100000) * 100 + what * 2 + (c == "b") + 1


def port(c, what):
    return 20000 + SEED % 20000 + what * 2 + (c == "b")


def name(c):
    return "%s-%s" % (RDV, c)


def post(c):
    def files():
        for d in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock"):
            path = os.path.join(d, name(c))
            try:
                with open(path, "w") as f:
                    f.write("hello from %s\n" % c)
                os.chmod(path, 0o644)
                note("POSTED file:%s" % d)
            except OSError as e:
                note("POST-FAILED file:%s %s" % (d, e))

    def abstract():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind("\0" + name(c))
        s.listen(4)
        _kept.append(s)

    def unix_path():
        path = "/tmp/%s.sock" % name(c)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        os.chmod(path, 0o777)
        s.listen(4)
        _kept.append(s)

    def tcp():
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port(c, 0)))
        s.listen(4)
        _kept.append(s)

    def udp():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", port(c, 1)))
        s.setblocking(False)
        udp_socket.append(s)

    def sysv_msg():
        q = check(libc.msgget(key(c, 0), 0o1666))  # IPC_CREAT | 0666
        buf = struct.pack("l", 1) + b"hello"
        check(libc.msgsnd(q, buf, 5, 0o4000))  # IPC_NOWAIT

    def sysv_shm():
        check(libc.shmget(key(c, 1), 4096, 0o1666))

    def posix_mq():
        rt.mq_open.restype = ctypes.c_int
        check(rt.mq_open(("/" + name(c)).encode(), os.O_CREAT | os.O_RDWR, 0o666, None))

    def flock():
        fd = os.open(SHARED["flock"][c], os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        _kept.append(fd)

    def record_lock():
        fd = os.open(SHARED["flock"][c], os.O_RDONLY)
        fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 7, 1, 0))
        _kept.append(fd)

    def inotify():
        fd = check(libc.inotify_init1(os.O_NONBLOCK))
        check(libc.inotify_add_watch(fd, SHARED["inotify"][c].encode(), 0x20 | 0x1))  # OPEN|ACCESS
        inotify_fd.append(fd)

    def dnotify():
        signal.signal(signal.SIGIO, lambda *_: notified.append(1))
        fd = os.open(SHARED["dnotify"][c], os.O_RDONLY)
        fcntl.fcntl(fd, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)
        _kept.append(fd)

    files()
    try:
        # Readable by its own user only: another bot reads it only with the same user id.
        path = "/tmp/%s-private-%d" % (RDV, os.getpid())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, b"hello, private\n")
        os.close(fd)
        private.append(os.path.basename(path))
        note("POSTED private")
    except OSError as e:
        note("POST-FAILED private %s" % e)
    for channel, action in [
        ("abstract-unix", abstract),
        ("path-unix", unix_path),
        ("tcp", tcp),
        ("udp", udp),
        ("sysv-msg", sysv_msg),
        ("sysv-shm", sysv_shm),
        ("posix-mq", posix_mq),
        ("flock", flock),
        ("record-lock", record_lock),
        ("inotify", inotify),
        ("dnotify", dnotify),
    ]:
        try:
            action()
            note("POSTED %s" % channel)
        except OSError as e:
            note("POST-FAILED %s %s" % (channel, e))


udp_socket = []
inotify_fd = []
private = []


def look(peer):
    """Each channel's probe: True when the peer's message got through."""

    def file_in(d):
        def probe():
            with open(os.path.join(d, name(peer))) as f:
                return f.read().startswith("hello")

        return probe

    def connect(family, address):
        def probe():
            s = socket.socket(family, socket.SOCK_STREAM)
            s.settimeout(0.5)
            try:
                s.connect(address)
                return True
            finally:
                s.close()

        return probe

    def udp():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"hello", ("127.0.0.1", port(peer, 1)))
        s.close()
        for own in udp_socket:
            try:
                return own.recv(64) == b"hello"
            except BlockingIOError:
                return False
        return False

    def sysv(what):
        def probe():
            if what == 0:
                return libc.msgget(key(peer, 0), 0) >= 0
            return libc.shmget(key(peer, 1), 0, 0) >= 0

        return probe

    def posix_mq():
        rt.mq_open.restype = ctypes.c_int
        fd = rt.mq_open(("/" + name(peer)).encode(), os.O_RDONLY)
        return fd >= 0

    def flock():
        fd = os.open(SHARED["flock"][peer], os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            return True
        finally:
            os.close(fd)

    def record_lock():
        fd = os.open(SHARED["flock"][peer], os.O_RDONLY)
        try:
            ask = struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 7, 1, 0)
            answer = fcntl.fcntl(fd, fcntl.F_GETLK, ask)
            return struct.unpack("hhqqi4x", answer)[0] != fcntl.F_UNLCK
        finally:
            os.close(fd)

    def inotify():
        # Touch the peer's watched file; any event on our own watch is the peer's touch.
        with open(SHARED["inotify"][peer], "rb") as f:
            f.read(1)
        for fd in inotify_fd:
            try:
                return len(os.read(fd, 4096)) > 0
            except BlockingIOError:
                return False
        return False

    def dnotify():
        for entry in sorted(os.listdir(SHARED["dnotify"][peer]))[:1]:
            with open(os.path.join(SHARED["dnotify"][peer], entry), "rb") as f:
                f.read(1)
        return bool(notified)

    def private_file():
        for entry in os.listdir("/tmp"):
            if entry.startswith(RDV + "-private-") and entry not in private:
                try:
                    with open(os.path.join("/tmp", entry)) as f:
                        if f.read().startswith("hello"):
                            return True
                except OSError:
                    pass
        return False

    probes = [("private", private_file)]
    probes += [("file:%s" % d, file_in(d)) for d in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")]
    probes += [
        ("abstract-unix", connect(socket.AF_UNIX, "\0" + name(peer))),
        ("path-unix", connect(socket.AF_UNIX, "/tmp/%s.sock" % name(peer))),
        ("tcp", connect(socket.AF_INET, ("127.0.0.1", port(peer, 0)))),
        ("udp", udp),
        ("sysv-msg", sysv(0)),
        ("sysv-shm", sysv(1)),
        ("posix-mq", posix_mq),
        ("flock", flock),
        ("record-lock", record_lock),
        ("inotify", inotify),
        ("dnotify", dnotify),
    ]
    for channel, probe in probes:
        if channel in got:
            continue
        try:
            if probe():
                got.add(channel)
                note("GOT %s" % channel)
        except OSError:
            pass


def leave(c, mb, file_mb):
    size = mb * 1024 * 1024
    try:
        libc.shmat.restype = ctypes.c_void_p
        shm = check(libc.shmget(key(c, 2), size, 0o1666))
        addr = libc.shmat(shm, None, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "shmat failed")
        ctypes.memset(addr, 1, size)
        note("LEFT sysv-shm %d" % mb)
    except OSError as e:
        note("LEAVE-FAILED sysv-shm %s" % e)
    try:
        rt.mq_open.restype = ctypes.c_int
        check(rt.mq_open(("/%s-left" % name(c)).encode(), os.O_CREAT | os.O_RDWR, 0o666, None))
        note("LEFT posix-mq 0")
    except OSError as e:
        note("LEAVE-FAILED posix-mq %s" % e)
    for d, mb in (("/dev/shm", mb), ("/tmp", file_mb)):
        written = 0
        try:
            with open(os.path.join(d, "%s-left" % name(c)), "wb") as f:
                chunk = b"x" * (1024 * 1024)
                for _ in range(mb):
                    f.write(chunk)
                    f.flush()
                    written += 1
            note("LEFT file:%s %d" % (d, written))
        except OSError as e:
            note("LEAVE-FAILED file:%s %d %s" % (d, written, e))


def main():
    first = True
    peer = None
    while True:
        colour, moves = read_turn(first)
        if first:
            peer = "b" if colour == "w" else "w"
            note("UID %d" % os.getuid())
            post(colour)
            if LEAVE:
                leave(colour, *LEAVE)
            first = False
        look(peer)
        sys.stdout.write(moves[0] + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
