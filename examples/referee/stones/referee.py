#!/usr/bin/env python3
"""Stones: an example external referee for arbiter, and a template for writing your own.

It speaks the cg-brutaltester protocol, as community CodinGame referees do. Everything the
driver (arbiter) sends arrives on stdin; everything for the driver goes to stdout; stderr is the
referee's log (arbiter keeps its end in the game's record).

  driver -> referee   ###Seed N            (only when arbiter runs with --referee-seed, or
                                            referee.toml says seed = true)
                      ###Start P           the game starts with P players
                      the answer lines     after each ###Output request
  referee -> driver   ###Input k           the lines after it, up to the next ### line, go to
                                           player k
                      ###Output k n        read n answer lines from player k
                      ###End 0 12          the ranking, best first; digits in one group tie

The game: a pile of stones (15 to 40, drawn from the seed). Players take turns in seat order;
each takes 1 to 3 stones (never more than are left). Whoever takes the last stone wins; the
others share second place. An answer that is not a legal number loses at once (ranked last,
the others tied first).

What a player reads: on its first turn one line "ID PLAYERS MAX_TAKE"; then every turn one
line: the stones left. What it writes: one line, the number it takes (anything after the number
is a comment and ignored).

arbiter handles timeouts, crashes and overlong lines itself and ends the game without asking
the referee; a referee only judges answers it receives.
"""

import random
import sys

MAX_TAKE = 3


def send(line):
    """One line to the driver. Flush every line: the driver waits for it."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def end(ranking):
    """Ends the game with a ranking (a list of groups, best first) and stops."""
    send("###End " + " ".join("".join(str(p) for p in group) for group in ranking if group))
    sys.exit(0)


def main():
    seed = None
    line = sys.stdin.readline()
    if line.startswith("###Seed"):
        seed = int(line.split()[1])
        line = sys.stdin.readline()
    if not line.startswith("###Start"):
        log(f"expected ###Start, got {line!r}")
        sys.exit(1)
    players = int(line.split()[1])
    rng = random.Random(seed)  # no seed: a new pile every game
    stones = rng.randint(15, 40)
    log(f"seed {seed}: {stones} stones, {players} players")

    # The first turn's extra line, in its own block (the driver joins the blocks of a player).
    for p in range(players):
        send(f"###Input {p}")
        send(f"{p} {players} {MAX_TAKE}")

    turn = 0
    while True:
        p = turn % players
        send(f"###Input {p}")
        send(str(stones))
        send(f"###Output {p} 1")
        answer = sys.stdin.readline()
        if not answer:
            log("the driver closed stdin")
            sys.exit(1)
        words = answer.split()
        take = int(words[0]) if words and words[0].isdigit() else 0
        others = [q for q in range(players) if q != p]
        if not 1 <= take <= min(MAX_TAKE, stones):
            log(f"player {p}: invalid answer {answer.strip()!r} with {stones} stones left")
            end([others, [p]])
        stones -= take
        log(f"turn {turn + 1}: player {p} takes {take}, {stones} left")
        if stones == 0:
            end([[p], others])
        turn += 1


if __name__ == "__main__":
    main()
