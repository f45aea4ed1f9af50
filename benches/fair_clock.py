#!/usr/bin/env python3
"""Does the default (fair) clock give the same verdicts on an idle and on a busy machine?

Plays the same seeded round robin twice with the default clock, once as the machine is and once
with busy loops on every core (four per core), between a bot that computes for 70% of the turn
limit, a bot that computes for 160% of it, and two instant bots. Prints each run's forfeits, the
waiting for a CPU the fair clock excused per turn (median, p99, max), whether the two runs'
results are the same game for game, and the fair clock's cost per turn (from `arbiter bench`).

Expected: the 70% bot loses no game on time in either run, the 160% bot loses every game it
plays on time in both, and every game has the same result in both runs.

Usage: benches/fair_clock.py [--arbiter PATH] [--limit-ms 100] [--games 2] [--max-turns 20]
       [--no-bench] [--clock wall|cpu|fair]
Other programs running at the same time load the machine too: the "idle" run is as idle as
the machine is (the script prints the load average before each run).
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def percentile(values, p):
    if not values:
        return 0.0
    s = sorted(values)
    k = max(1, min(len(s), int(-(-p * len(s) // 1))))
    return s[k - 1]


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def busy_loops(per_core):
    n = os.cpu_count() * per_core
    return [
        subprocess.Popen(["sh", "-c", "while :; do :; done"], stdin=subprocess.DEVNULL)
        for _ in range(n)
    ]


def tournament(arbiter, out, args):
    hostile = os.path.join(ROOT, "tests", "bots", "hostile.py")
    py = sys.executable
    bin_dir = os.path.dirname(arbiter)
    burn = lambda pct: "%s %s cpu-burn 1 %d" % (py, hostile, args.limit_ms * pct // 100)
    bots = [
        "think70=" + burn(70),
        "think160=" + burn(160),
        "first=" + os.path.join(bin_dir, "arbiter-bot-first"),
        "greedy=" + os.path.join(bin_dir, "arbiter-bot-greedy"),
    ]
    cmd = [
        arbiter, "tournament", "--out", out, "--seed", "7",
        "--games", str(args.games), "--turn-ms", str(args.limit_ms),
        "--max-turns", str(args.max_turns),
    ] + (["--clock", args.clock] if args.clock else []) + bots
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit("arbiter tournament failed:\n" + run.stderr)
    return run.stderr


def summary(out):
    with open(os.path.join(out, "games.csv")) as f:
        rows = list(csv.DictReader(f))
    results = {}
    forfeits = {}
    for r in rows:
        results[r["game_id"]] = (r["rank0"], r["rank1"], r["reason"], r["moves_hash"])
        for item in filter(None, r["forfeits"].split(";")):
            seat, reason = item.split(":")
            bot = r["bot" + seat]
            forfeits[(bot, reason)] = forfeits.get((bot, reason), 0) + 1
    waited = []
    with open(os.path.join(out, "records.jsonl")) as f:
        for line in f:
            waited.extend(json.loads(line).get("waited_us", []))
    return results, forfeits, waited


def report(name, load, forfeits, waited, note):
    ms = [w / 1000.0 for w in waited]
    print("%s (load average %.1f before): forfeits %s" % (
        name, load,
        ", ".join("%s %s x%d" % (b, r, n) for (b, r), n in sorted(forfeits.items())) or "none"))
    print("  excused waiting per turn: median %.2f ms, p99 %.2f ms, max %.2f ms (%d turns)" % (
        percentile(ms, 0.5), percentile(ms, 0.99), max(ms or [0.0]), len(ms)))
    for line in note.splitlines():
        if "note:" in line:
            print("  arbiter said: " + line.split("note: ", 1)[1][:160] + "...")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arbiter", default=os.path.join(ROOT, "target", "release", "arbiter"))
    p.add_argument("--limit-ms", type=int, default=100)
    p.add_argument("--games", type=int, default=2)
    p.add_argument("--max-turns", type=int, default=20)
    p.add_argument("--busy-per-core", type=int, default=4)
    p.add_argument("--no-bench", action="store_true")
    p.add_argument("--clock", default=None,
                   help="pass --clock to arbiter (default: arbiter's default, the fair clock)")
    args = p.parse_args()
    if not os.path.exists(args.arbiter):
        sys.exit("%s not found: build it (cargo build --release) or pass --arbiter" % args.arbiter)
    with tempfile.TemporaryDirectory() as tmp:
        load = load_average()
        idle_out = os.path.join(tmp, "idle")
        note = tournament(args.arbiter, idle_out, args)
        idle = summary(idle_out)
        report("idle run", load, idle[1], idle[2], note)

        loops = busy_loops(args.busy_per_core)
        try:
            load = load_average()
            busy_out = os.path.join(tmp, "busy")
            note = tournament(args.arbiter, busy_out, args)
        finally:
            for l in loops:
                l.kill()
                l.wait()
        busy = summary(busy_out)
        report("busy run, %d busy loops" % len(loops), load, busy[1], busy[2], note)

        same = idle[0] == busy[0]
        differ = sorted(k for k in idle[0] if idle[0].get(k) != busy[0].get(k))
        print("same results game for game: %s%s" % (
            "yes" if same else "no", "" if same else " (games %s)" % ", ".join(differ)))
        ok = same
        for name, (_, forfeits, _) in (("idle", idle), ("busy", busy)):
            t70 = sum(n for (b, r), n in forfeits.items() if b == "think70" and r == "timeout")
            t160 = sum(n for (b, r), n in forfeits.items() if b == "think160" and r == "timeout")
            expected160 = 3 * args.games
            print("%s: think70 timeouts %d (want 0), think160 timeouts %d (want %d)" % (
                name, t70, t160, expected160))
            ok = ok and t70 == 0 and t160 == expected160
    if not args.no_bench:
        bench = subprocess.run([args.arbiter, "bench", "--quick", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if bench.returncode == 0:
            b = json.loads(bench.stdout)
            print("fair clock's reading: %.1f us of referee CPU a turn (bench --quick; referee CPU "
                  "a turn %.1f us on the fair clock, %.1f us on --clock wall; other programs kept "
                  "%.1f of %d CPUs busy)" % (
                      b["fair_clock_cpu_us_per_turn"], b["referee_cpu_us_per_turn"],
                      b["referee_cpu_us_per_turn_wall_clock"], b["other_cpus"], b["cores"]))
    print("verdict: %s" % ("as expected" if ok else "NOT as expected"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
