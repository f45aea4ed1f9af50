#!/usr/bin/env python3
"""The tail of a run: how long a tournament goes on after its last game is recorded, and how
many bytes of report (report.html and replays/) it leaves per game.

Plays an Impasse tournament of instant bots (`first` against `random`, the bundled bots) with
`arbiter tournament`, --repeats times, each into a fresh folder. For each run:
  - wall: from the start of the process to its end;
  - last record: the later of games.csv's and records.jsonl's modification times (each game
    appends one line to each; nothing rewrites them at the end);
  - tail: (end - last record) / wall, in %: the time the run spent after its last game was
    recorded (the goal is at most 5% at any concurrency);
  - bytes of report per game: report.html plus everything under replays/, divided by the games;
  - report CPU per game: the CPU time (user + system) of `arbiter report DIR` rewriting the
    whole report of the run, every game's replay included, divided by the games: what the
    replays cost, a figure a busy machine changes less than wall times.
Prints each run and the medians.

Usage: benches/tail.py [--games N] [--concurrency C] [--repeats R] [--game G] [--arbiter PATH]
  --games N        games per run (default 2000)
  --concurrency C  games at once (default 2)
  --repeats R      runs (default 3; the medians are printed)
  --game G         the game (default impasse)
  --arbiter PATH   the arbiter binary (default target/release/arbiter; the bots are taken from
                   the same folder: build them with cargo build --release --bins)
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def folder_bytes(path):
    total = 0
    for base, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(base, f))
    return total


def one_run(arbiter, args, work, k):
    out = os.path.join(work, "run-%d" % k)
    bins = os.path.dirname(arbiter)
    cmd = [arbiter, "tournament", "--game", args.game, "--games", str(args.games),
           "--concurrency", str(args.concurrency), "--seed", str(7 + k), "--out", out,
           "first=" + os.path.join(bins, "arbiter-bot-first"),
           "random=" + os.path.join(bins, "arbiter-bot-random")]
    start = time.time()
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    end = time.time()
    if done.returncode != 0:
        sys.exit("benches/tail.py: the tournament failed (%s):\n%s" % (
            done.returncode, done.stderr.decode(errors="replace")))
    last = max(os.stat(os.path.join(out, f)).st_mtime for f in ("games.csv", "records.jsonl"))
    with open(os.path.join(out, "games.csv")) as f:
        games = sum(1 for _ in f) - 1
    report = os.path.getsize(os.path.join(out, "report.html"))
    replays = folder_bytes(os.path.join(out, "replays"))
    records = os.path.getsize(os.path.join(out, "records.jsonl"))
    before = os.times()
    subprocess.run([arbiter, "report", out], stdout=subprocess.DEVNULL, check=True)
    after = os.times()
    report_cpu = (after.children_user + after.children_system
                  - before.children_user - before.children_system)
    shutil.rmtree(out)
    wall = end - start
    return {
        "wall": wall,
        "played": last - start,
        "tail": 100.0 * (end - last) / wall,
        "per_game": (report + replays) / games,
        "records_per_game": records / games,
        "report_cpu_ms": 1000.0 * report_cpu / games,
        "games": games,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--game", default="impasse")
    p.add_argument("--arbiter", default=os.path.join(ROOT, "target", "release", "arbiter"))
    args = p.parse_args()
    arbiter = os.path.abspath(args.arbiter)
    for b in ("arbiter", "arbiter-bot-first", "arbiter-bot-random"):
        path = os.path.join(os.path.dirname(arbiter), b)
        if not os.access(path, os.X_OK):
            sys.exit("benches/tail.py: %s is missing: cargo build --release --bins" % path)
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    print("%s, %d games of %s at concurrency %d, %d runs (%s; load average %s)" % (
        arbiter, args.games, args.game, args.concurrency, args.repeats, os.uname().nodename, load))
    print("%4s %9s %13s %8s %15s %15s %15s" % ("run", "wall s", "last record s", "tail %",
                                               "report B/game", "records B/game",
                                               "report CPU ms/game"))
    runs = []
    work = tempfile.mkdtemp(prefix="arbiter-tail-")
    try:
        for k in range(args.repeats):
            r = one_run(arbiter, args, work, k)
            runs.append(r)
            print("%4d %9.2f %13.2f %8.1f %15.0f %15.0f %15.3f" % (
                k + 1, r["wall"], r["played"], r["tail"], r["per_game"], r["records_per_game"],
                r["report_cpu_ms"]))
            sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print("%4s %9.2f %13.2f %8.1f %15.0f %15.0f %15.3f" % (
        "med", med["wall"], med["played"], med["tail"], med["per_game"],
        med["records_per_game"], med["report_cpu_ms"]))
    print("median tail %.1f%% of the wall time (goal: at most 5%%); median report %.0f bytes a "
          "game (goal for Impasse: at most 5,120); load average after: %s" % (
              med["tail"], med["per_game"], " ".join(open("/proc/loadavg").read().split()[:3])))


if __name__ == "__main__":
    main()
