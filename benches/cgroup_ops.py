#!/usr/bin/env python3
"""What the cgroup v2 operations a game makes every turn cost when many games run at once.

Each of N processes (1, 4 and 16 by default) makes a cgroup of its own under
/sys/fs/cgroup/arbiter-bench-ops, moves a sleeping child into it, and repeats one operation on
its own cgroup's file (or its child's) as fast as it can; the median process's time per
operation is printed for each N. The floor is clock_gettime (no kernel lock). A game of arbiter's
reads its bots' CPU time (cpu.stat) after every answer and freezes an idle bot (cgroup.freeze):
an operation that slows down with N while the others do not takes a lock every game shares.

Needs root and cgroup v2 (the unified hierarchy at /sys/fs/cgroup). Usage:
  sudo python3 benches/cgroup_ops.py [--ops N] [--procs 1,4,16]
"""
import argparse
import multiprocessing as mp
import os
import sys
import time

ROOT = "/sys/fs/cgroup/arbiter-bench-ops"
OPS = ("clock", "schedstat", "pids.current", "memory.current", "cgroup.events", "cpu.stat",
       "cgroup.freeze")


def work(i, op, n):
    d = "%s/g%d" % (ROOT, i)
    os.makedirs(d, exist_ok=True)
    pid = os.fork()
    if pid == 0:
        time.sleep(120)
        os._exit(0)
    try:
        with open(d + "/cgroup.procs", "w") as f:
            f.write(str(pid))
        files = {}
        for name in OPS[2:]:
            mode = os.O_RDWR if name == "cgroup.freeze" else os.O_RDONLY
            files[name] = os.open("%s/%s" % (d, name), mode)
        files["schedstat"] = os.open("/proc/%d/schedstat" % pid, os.O_RDONLY)
        fd = files.get(op)
        start = time.perf_counter_ns()
        for k in range(n):
            if op == "clock":
                time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            elif op == "cgroup.freeze":
                os.pwrite(fd, b"1" if k % 2 == 0 else b"0", 0)
            else:
                os.pread(fd, 256, 0)
        took = (time.perf_counter_ns() - start) / n
        os.pwrite(files["cgroup.freeze"], b"0", 0)
        return took
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)


def worker(i, op, n, q):
    try:
        q.put(work(i, op, n))
    except Exception as e:  # told by the parent, which stops
        q.put("process %d: %r" % (i, e))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ops", type=int, default=20000, help="operations per process (default 20000)")
    ap.add_argument("--procs", default="1,4,16", help="process counts (default 1,4,16)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("benches/cgroup_ops.py: needs root (it makes cgroups)")
    if not os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        sys.exit("benches/cgroup_ops.py: needs cgroup v2 at /sys/fs/cgroup (this machine has v1)")
    for path in ("/sys/fs/cgroup", ROOT):
        os.makedirs(path, exist_ok=True)
        try:
            with open(path + "/cgroup.subtree_control", "w") as f:
                f.write("+memory +pids")
        except OSError as e:
            sys.exit("benches/cgroup_ops.py: cannot delegate memory and pids in %s: %s" % (path, e))
    counts = [int(c) for c in args.procs.split(",")]
    print("%-15s" % "us per op" + "".join("%12s" % ("%d at once" % c) for c in counts))
    try:
        for op in OPS:
            row = []
            for procs in counts:
                q = mp.Queue()
                ps = [mp.Process(target=worker, args=(i, op, args.ops, q)) for i in range(procs)]
                for p in ps:
                    p.start()
                res = [q.get(timeout=300) for _ in ps]
                for p in ps:
                    p.join()
                bad = [r for r in res if isinstance(r, str)]
                if bad:
                    sys.exit("benches/cgroup_ops.py: %s failed: %s" % (op, bad[0]))
                res.sort()
                row.append(res[len(res) // 2] / 1000)
            print("%-15s" % op + "".join("%12.2f" % r for r in row), flush=True)
    finally:
        for name in os.listdir(ROOT) if os.path.isdir(ROOT) else []:
            if name.startswith("g"):
                try:
                    os.rmdir(os.path.join(ROOT, name))
                except OSError:
                    pass
        try:
            os.rmdir(ROOT)
        except OSError:
            pass


if __name__ == "__main__":
    main()
