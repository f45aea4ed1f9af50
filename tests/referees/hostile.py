#!/usr/bin/env python3
"""hostile.py: an external referee that misbehaves on request, for integration tests.

Usage: python3 tests/referees/hostile.py MODE [ARG...]

The game underneath is a short race: 6 stones (or the seed's count, 5 to 9, when ###Seed is
sent), players in seat order each answer a number; a number 1-3 takes that many stones, and
whoever takes the last one wins (ranked first, the others tied second). Any other answer (a
player's garbage) loses at once. Each player's first turn also gets "ID PLAYERS". The seed, the
player count and every answer are logged on stderr. `t` counts the referee's own turns from 1.

  honest                 play the game as described
  hang T                 at turn T, sleep forever instead of asking
  crash T                at turn T, write "referee crashed on purpose" to stderr and exit 3
  crash-while PATH       at turn 2, crash as "crash" does while the file PATH exists
  crash-seed K           at turn 2, crash as "crash" does when ###Seed's seed is a multiple of K
  garbage T              at turn T, write "hello there" where a message belongs
  missing T              at turn T, ask "###Output 7 1" (no such player)
  bad-end                end the game with "###End 0 0"
  tie                    end the game after the first answer with every player in one group
  two-lines              ask "###Output k 2" every turn (the number is on the first line)
  stdout-error           write "###Error 0 note" and an empty line before each request
  ignore-count           play two players whatever ###Start says
  keep-running           after ###End, ignore SIGTERM and keep reading stdin
  crash-after-end        after ###End, read stdin to its end, then exit 1 with a message
  no-seed                read the first line as ###Start (a referee that does not know ###Seed)
  slow-start MS          sleep MS ms before the first message
  chatter                after the first input, write "###Error 0 note" lines forever
  flood-input            after "###Input 0", write input lines forever
  long-line              write 5 MiB without a newline (past the 4 MiB a line may have), then sleep
  big-input BYTES        each turn's input line is the stones left, a space and BYTES dots
  read-file PATH         at the start try to read PATH; log "READ-OK" or "READ-BLOCKED <error>"
"""

import os
import signal
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "honest"
arg = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 1


def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def after_end():
    if mode == "keep-running":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            if not sys.stdin.readline():
                time.sleep(1)
    if mode == "crash-after-end":
        sys.stdin.read()
        log("crash after the end on purpose")
        sys.exit(1)
    sys.exit(0)


def end(groups):
    send("###End " + " ".join("".join(map(str, g)) for g in groups if g))
    after_end()


def main():
    seed = None
    line = sys.stdin.readline()
    if mode != "no-seed" and line.startswith("###Seed"):
        seed = int(line.split()[1])
        line = sys.stdin.readline()
    if not line.startswith("###Start"):
        log(f"expected ###Start, got {line!r}")
        sys.exit(2)
    players = int(line.split()[1])
    if mode == "ignore-count":
        players = 2
    stones = 6 if seed is None else 5 + seed % 5
    log(f"SEED {seed} PLAYERS {players} STONES {stones}")
    if mode == "read-file":
        try:
            with open(sys.argv[2]) as f:
                log("READ-OK " + f.read(100))
        except OSError as e:
            log(f"READ-BLOCKED {e}")
    if mode == "slow-start":
        time.sleep(arg / 1000)
    if mode == "long-line":
        sys.stdout.write("x" * (5 << 20))
        sys.stdout.flush()
        time.sleep(1000)
    for p in range(players):
        send(f"###Input {p}")
        send(f"{p} {players}")
    if mode in ("chatter", "flood-input"):
        if mode == "flood-input":
            send("###Input 0")
        line = ("###Error 0 note\n" if mode == "chatter" else "1 2 3 4 5 6 7 8\n") * 4096
        while True:
            sys.stdout.write(line)
            sys.stdout.flush()
    t = 0
    while True:
        t += 1
        p = (t - 1) % players
        if mode == "garbage" and t == arg:
            send("hello there")
        send(f"###Input {p}")
        send(str(stones) + (" " + "." * arg if mode == "big-input" else ""))
        if mode == "hang" and t == arg:
            time.sleep(100000)
        crash_at_2 = (mode == "crash-while" and os.path.exists(sys.argv[2])) or (
            mode == "crash-seed" and seed is not None and seed % arg == 0
        )
        if (mode == "crash" and t == arg) or (crash_at_2 and t == 2):
            log("referee crashed on purpose")
            sys.exit(3)
        if mode == "missing" and t == arg:
            send("###Output 7 1")
        if mode == "stdout-error":
            send(f"###Error {p} note")
            send("")
        lines = 2 if mode == "two-lines" else 1
        send(f"###Output {p} {lines}")
        answers = [sys.stdin.readline() for _ in range(lines)]
        if not answers[-1]:
            log("the driver closed stdin")
            sys.exit(1)
        log(f"ANSWER {p} " + " | ".join(a.strip() for a in answers))
        words = answers[0].split()
        take = int(words[0]) if words and words[0].isdigit() else 0
        others = [q for q in range(players) if q != p]
        if mode == "bad-end":
            end([[0], [0]])
        if mode == "tie":
            end([list(range(players))])
        if not 1 <= take <= 3:
            end([others, [p]])
        stones -= min(take, stones)
        if stones == 0:
            end([[p], others])


if __name__ == "__main__":
    main()
