#!/usr/bin/env python3
"""Games per second of a CodinGame SDK referee: one fresh JVM per game (what cg-brutaltester,
psyleague and cgarena pay) against arbiter's warm launcher (one JVM serving game after game, each
game in a fresh class loader; src/referee/sdk/launcher.rs), measured in alternated rounds.

The referee is driven here over RefereeMain's protocol by this script, with answers computed
inline (no bot processes, no sandbox): the figures are the referee's own cost per game, which is
what the launcher changes. Give the run folder of a game built by arbiter (in its build cache:
`sdk-game-*`, holding classes/, engine.jar and launcher/; or, for a jar or class path given
built, `sdk-built-*`, holding lib/ and launcher/) and how to answer its turns.

    python3 benches/sdk_warm.py --game ~/.cache/arbiter/build/sdk-game-HASH --answer tictactoe
    python3 benches/sdk_warm.py --game .../sdk-game-HASH2 --answer wait --games 6
    python3 benches/sdk_warm.py --game .../sdk-built-HASH3 --answer tictactoe

Prints the median games/s of each way, every round's figure, and the ratio warm / fresh."""

import argparse
import os
import statistics
import subprocess
import sys
import time

MAIN = "com.codingame.gameengine.core.RefereeMain"
JARS = ["guice-no-aop", "atinject-jsr330-api", "guava", "gson", "commons-logging"]
PROPS = [
    "-Dgame.mode=multi",
    "-Dleague.level=1",
    "-Dorg.apache.commons.logging.Log=org.apache.commons.logging.impl.SimpleLog",
    "-Dorg.apache.commons.logging.simplelog.defaultlog=warn",
]


def answer_tictactoe(lines):
    # Opponent's move, the number of valid actions, the actions: play the first.
    return [lines[2]]


def answer_wait(lines):
    return ["WAIT"]


ANSWERS = {"tictactoe": answer_tictactoe, "wait": answer_wait}


def read_block(out):
    header = out.readline()
    if not header:
        raise RuntimeError("the referee closed its output")
    header = header.rstrip("\n")
    name, count = header[2:].split("]", 1)
    n = int(count.strip(" ]"))
    return name, [out.readline().rstrip("\n") for _ in range(n)]


def play(proc, seats, seed, answer, params=()):
    """One game over proc's pipes, with the game parameters `params` (KEY=VALUE) besides the
    seed; returns the scores and how many answers were given."""
    w = proc.stdin
    w.write(f"[[INIT] {len(params) + 2}]\n{seats}\nseed={seed}\n" + "".join(p + "\n" for p in params))
    w.flush()
    answers = 0
    monitoring = False
    while True:
        w.write("[[GET_GAME_INFO] 0]\n")
        w.flush()
        inputs = []
        while True:
            name, lines = read_block(proc.stdout)
            if name == "MONITORING":
                # The referee asked for each answer's time (engines from 4.x): 0 ms.
                monitoring = True
            elif name == "NEXT_PLAYER_INPUT":
                inputs = lines
            elif name == "NEXT_PLAYER_INFO":
                expected = int(lines[1])
                out = answer(inputs)[:expected] if expected > 0 else []
                answers += expected > 0
                out = (["0"] if monitoring else []) + out
                w.write(f"[[SET_PLAYER_OUTPUT] {len(out)}]\n" + "".join(o + "\n" for o in out))
                w.flush()
                break
            elif name == "SCORES":
                return [int(x.split()[-1]) for x in lines], answers
            elif name == "FAIL":
                raise RuntimeError("the referee failed: " + "\n".join(lines))


def classpath(game):
    """The game's own class path in its run folder: a built source folder's classes and engine,
    or the copies of a jar or class path given built (lib/000.jar, lib/001, ... in order)."""
    if os.path.isdir(os.path.join(game, "classes")):
        return [os.path.join(game, "classes"), os.path.join(game, "engine.jar")]
    lib = os.path.join(game, "lib")
    return [os.path.join(lib, name) for name in sorted(os.listdir(lib))]


def system_jars():
    return [f"/usr/share/java/{j}.jar" for j in JARS]


def fresh(game, games, seats, answer):
    cp = ":".join(classpath(game) + system_jars())
    start = time.perf_counter()
    for g in range(games):
        proc = subprocess.Popen(["java", *PROPS, "-cp", cp, MAIN], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, cwd=game)
        play(proc, seats, g + 1, answer)
        proc.stdin.close()
        proc.wait()
    return games / (time.perf_counter() - start)


def warm(game, games, seats, answer):
    """One launcher started inside the timed span, then every game through it."""
    cp = ":".join([os.path.join(game, "launcher")] + system_jars())
    start = time.perf_counter()
    proc = subprocess.Popen(["java", *PROPS, "-cp", cp, "ArbiterLauncher", *classpath(game)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=game)
    for g in range(games):
        proc.stdin.write("[[ARBITER_GAME]] game.mode=multi league.level=1\n")
        play(proc, seats, g + 1, answer)
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError("the launcher ended")
            if line.startswith("[[ARBITER_GAME_END]]"):
                if "ok" not in line:
                    raise RuntimeError("the launcher's game failed")
                break
    rate = games / (time.perf_counter() - start)
    proc.stdin.close()
    proc.wait()
    return rate


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, help="the game's run folder in arbiter's build cache")
    p.add_argument("--answer", choices=sorted(ANSWERS), required=True)
    p.add_argument("--games", type=int, default=20, help="games per round and way (default 20)")
    p.add_argument("--rounds", type=int, default=3, help="alternated rounds (default 3)")
    p.add_argument("--seats", type=int, default=2)
    a = p.parse_args()
    answer = ANSWERS[a.answer]
    rates = {"fresh": [], "warm": []}
    for r in range(a.rounds):
        # Alternated, starting with the other way each round, so that load drifts hit both.
        order = ["fresh", "warm"] if r % 2 == 0 else ["warm", "fresh"]
        for way in order:
            f = fresh if way == "fresh" else warm
            rates[way].append(f(a.game, a.games, a.seats, answer))
            print(f"round {r + 1} {way}: {rates[way][-1]:.2f} games/s", file=sys.stderr)
    med = {k: statistics.median(v) for k, v in rates.items()}
    load = os.getloadavg()[0]
    print(f"game: {a.game} ({a.games} games a round, {a.rounds} rounds, load {load:.1f})")
    for way in ("fresh", "warm"):
        runs = ", ".join(f"{x:.2f}" for x in rates[way])
        print(f"{way:>5} JVM: {med[way]:.2f} games/s (median of [{runs}])")
    print(f"ratio warm/fresh: {med['warm'] / med['fresh']:.1f}x")


if __name__ == "__main__":
    main()
