#!/usr/bin/env python3
"""Where a CodinGame SDK game's turn goes outside the bots: arbiter's run of the game against
its floor, the same game's referee alone.

A run: `arbiter tournament` of GAMES games of the SDK game (one at a time, warm referee JVMs) of
two bots answering at once (Take's `greedy`, or any BOT given), while this script samples the CPU
time of the run's referee JVMs (every `ArbiterLauncher` descended from the run's arbiter) and,
once arbiter has exited (before it is reaped), arbiter's own CPU time. Per answer it prints:
  wall        the run's wall time / answers
  bots        the bots' answer times (the records' wall time of each answer)
  outside     wall - bots: what the issue measured (11.6 ms on a loaded 2-core VM)
  referee     the referee JVMs' CPU time, less their start-ups
  jvm start   the JVMs' start-ups (each as the floor's: its CPU through its first game; a run
              starts one for its start-up check and one a game thread)
  arbiter     arbiter's own CPU time (every thread: the game's, the recorder's, the display's)
  rest        outside - referee - jvm start - arbiter: waiting (for a CPU, for the other end of
              a pipe), the bots' start-up, the run's start and end
The floor: the referee alone, the same launcher command (read from the run's records) driven
over its protocol by this script with answers computed inline, the same number of answers:
its wall time and its CPU time per answer. arbiter's side is outside - floor wall.

    python3 benches/sdk_turn.py --referee CLASSPATH_OR_FOLDER --arbiter target/release/arbiter \\
        [--arbiter OTHER/arbiter] [--games 4] [--rounds 3] [--game-param rounds=100]

With two binaries, rounds alternate between them, each round in another order; each run's floor
follows it in the round.
Prints each figure's median over the rounds, each round's values in brackets, the load.
Take (tests/sdk/take, built by the tests into target/sdk-tests/PID/take/target/classes with the
engine in target/sdk-tests/engine/classes) answers `greedy` inline: its input's last line; for
another game give its bots (`--bot` twice) and the floor's answer (`--answer WAIT`)."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sdk_warm  # noqa: E402 (the referee's protocol, as that benchmark drives it)

TICK = os.sysconf("SC_CLK_TCK")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_of(pid):
    """A process's own CPU time in seconds (utime + stime of /proc/PID/stat), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return None


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("PPid:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def descends(pid, ancestor):
    seen = 0
    while pid and pid > 1 and seen < 64:
        if pid == ancestor:
            return True
        pid = parent_of(pid)
        seen += 1
    return False


def launchers_of(arbiter_pid):
    """The pids of the referee launchers descended from arbiter's process."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"ArbiterLauncher" in cmd and descends(int(name), arbiter_pid):
            found.append(int(name))
    return found


def run_arbiter(arbiter, referee, games, params, league, bots):
    """One arbiter run; returns (answers, wall, bots' answer time, the referee JVMs' CPU, how
    many JVMs, arbiter's CPU, the referee's command line), times in seconds."""
    out = tempfile.mkdtemp(prefix="sdk-turn-", dir=os.path.join(ROOT, "target"))
    args = [arbiter, "tournament", "--games", str(games), "--concurrency", "1", "--seed", "3",
            "--referee-timeout-ms", "30000", "--referee", referee, "--league", str(league),
            "--out", out]
    for p in params:
        args += ["--game-param", p]
    args += bots
    jvm_cpu = {}
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    done = threading.Event()

    def sample():
        while not done.is_set():
            for pid in launchers_of(proc.pid):
                c = cpu_of(pid)
                if c is not None:
                    jvm_cpu[pid] = max(jvm_cpu.get(pid, 0.0), c)
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    # Wait for arbiter's exit without reaping it: its own CPU time is then final and readable.
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    wall = time.perf_counter() - start
    own = cpu_of(proc.pid)
    done.set()
    sampler.join()
    err = proc.stderr.read().decode(errors="replace")
    if proc.wait() != 0:
        raise RuntimeError(f"arbiter failed: {err}")
    answers = 0
    bots_wall = 0.0
    command = None
    with open(os.path.join(out, "records.jsonl")) as f:
        for line in f:
            rec = json.loads(line)
            answers += len(rec["moves"])
            bots_wall += sum(rec["wall_us"]) / 1e6
            command = rec["external"]["referee"]
    subprocess.run(["rm", "-rf", out])
    return answers, wall, bots_wall, sum(jvm_cpu.values()), len(jvm_cpu), own, command


def floor(command, folder, games, params, league, answer=None):
    """The referee alone: the launcher `command` (as arbiter ran it, in `folder`) playing
    `games` games with answers computed inline (the input's last line); returns (answers, wall,
    the JVM's CPU, its start-up's CPU: through a first game, left out of the others) in
    seconds."""
    words = command.split()
    proc = subprocess.Popen(words, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=folder, stderr=subprocess.DEVNULL)
    w = proc.stdin
    answers = 0
    header = f"[[ARBITER_GAME]] game.mode=multi league.level={league}\n"

    def game(seed):
        nonlocal answers
        w.write(header)
        _, n = sdk_warm.play(proc, 2, seed, lambda inputs: [answer or inputs[-1]] * 1000, params)
        answers += n
        while not proc.stdout.readline().startswith("[[ARBITER_GAME_END]]"):
            pass

    game(1)  # the JVM's start-up and first game, left out (and measured)
    answers = 0
    cpu0 = cpu_of(proc.pid)
    startup = cpu0
    start = time.perf_counter()
    for g in range(games):
        game(g + 2)
    wall = time.perf_counter() - start
    cpu = cpu_of(proc.pid) - cpu0
    w.close()
    proc.wait()
    return answers, wall, cpu, startup


def ms(seconds, answers):
    return 1000.0 * seconds / max(answers, 1)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--referee", required=True, help="the SDK game, as --referee takes it")
    p.add_argument("--arbiter", action="append", required=True, help="arbiter binary (repeatable)")
    p.add_argument("--games", type=int, default=4, help="games a round (default 4)")
    p.add_argument("--rounds", type=int, default=3, help="alternated rounds (default 3)")
    p.add_argument("--game-param", action="append", default=[], help="KEY=VALUE (repeatable)")
    p.add_argument("--league", type=int, default=1, help="the league played (default 1)")
    p.add_argument("--bot", action="append", default=[],
                   help="a bot (twice; default Take's greedy twice)")
    p.add_argument("--answer", help="the floor's answer to every turn [default: the input's "
                   "last line, Take's greedy answer]; WAIT for Spring Challenge 2021")
    a = p.parse_args()
    bots = a.bot or [f"{n}=python3 {ROOT}/tests/sdk/take_bot.py greedy" for n in ("a", "b")]
    rows = {}
    loads = []
    for r in range(a.rounds):
        # Alternated, starting with another binary each round, so that drifts of the load hit
        # every one.
        order = list(a.arbiter)
        if r % 2 == 1:
            order.reverse()
        runs = {}
        for way in order:
            loads.append(os.getloadavg()[0])
            runs[way] = run_arbiter(way, a.referee, a.games, a.game_param, a.league, bots)
            print(f"round {r + 1} {way}: {runs[way][0]} answers", file=sys.stderr)
        # Each run's floor: its referee, as it ran it (the launcher in its run folder, with its
        # JVM's options), alone.
        floors = {}
        for way, run in runs.items():
            command = run[-1]
            words = command.split()
            folder = os.path.dirname(words[words.index("-cp") + 1].split(":")[0])
            floors[way] = floor(command, folder, a.games, a.game_param, a.league, a.answer)
            n, wall, cpu, startup = floors[way]
            row = rows.setdefault(f"floor of {way} (its referee alone)",
                                  {"wall": [], "referee": [], "jvm start s": []})
            row["wall"].append(ms(wall, n))
            row["referee"].append(ms(cpu, n))
            row["jvm start s"].append(startup)
        for way, (n, wall, bots_wall, jvm, jvms, own, _) in runs.items():
            startup = floors[way][3]
            outside = wall - bots_wall
            row = rows.setdefault(way, {k: [] for k in (
                "wall", "bots", "outside", "referee", "jvm start", "arbiter", "rest")})
            row["wall"].append(ms(wall, n))
            row["bots"].append(ms(bots_wall, n))
            row["outside"].append(ms(outside, n))
            # The referee's CPU past its JVMs' start-ups (each as the floor's first game).
            row["referee"].append(ms(jvm - jvms * startup, n))
            row["jvm start"].append(ms(jvms * startup, n))
            row["arbiter"].append(ms(own, n))
            row["rest"].append(ms(outside - jvm - own, n))
    print(f"SDK game {a.referee}: {a.games} games a round, {a.rounds} rounds, one game at a time, "
          f"load {min(loads):.1f} to {max(loads):.1f}; ms per answer (a JVM's start-up: seconds of "
          f"CPU through its first game), median [rounds]")
    for way, row in rows.items():
        print(way)
        for k, v in row.items():
            runs = ", ".join(f"{x:.2f}" for x in v)
            print(f"  {k:<11} {statistics.median(v):8.2f}  [{runs}]")


if __name__ == "__main__":
    main()
