#!/usr/bin/env python3
"""player.py: a player for tests/referees/hostile.py (and the Stones example) that can misbehave.

Usage: python3 tests/referees/player.py MODE [T] [ARG]

It reads "ID PLAYERS..." once, then one line a turn (the stones left) and answers a number.
`t` counts its own turns from 1; a mode plays honestly before its turn T.

  one              take 1 stone every turn
  two              take 2 stones every turn (6 stones against "one": 2, 1, 2, 1, so seat 1 wins)
  lines N          answer N lines each turn ("1", then "extra" lines)
  sleep T MS       at turn T sleep MS ms, then answer
  exit T CODE      at turn T exit with CODE without answering
  long T           at turn T write 20000 bytes without a newline, then sleep
  garbage T        at turn T answer "zz99"
  empty T          at turn T answer an empty line
  flood T          at turn T write 64 MiB of "1" lines, then answer
  slow T MS        from turn T on sleep MS ms every turn, then answer
  check T          from turn T on, answer "zz99" unless its input line is the stones left, a
                   space and dots (as "big-input" sends them), whole
"""

import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "one"
t_at = int(sys.argv[2]) if len(sys.argv) > 2 else 1
arg = int(sys.argv[3]) if len(sys.argv) > 3 else 0

sys.stdin.readline()
t = 0
while True:
    line = sys.stdin.readline()
    if not line:
        break
    t += 1
    take = "2" if mode == "two" else "1"
    if mode == "lines":
        sys.stdout.write("1\n" + "extra\n" * (t_at - 1))
        sys.stdout.flush()
        continue
    if mode == "slow" and t >= t_at:
        time.sleep(arg / 1000)
    if mode == "check" and t >= t_at:
        words = line.rstrip("\n").split(" ")
        if not (len(words) == 2 and words[0].isdigit() and words[1] == "." * len(words[1])):
            take = "zz99"
    if t == t_at:
        if mode == "sleep":
            time.sleep(arg / 1000)
        elif mode == "exit":
            sys.exit(arg)
        elif mode == "long":
            sys.stdout.write("x" * 20000)
            sys.stdout.flush()
            time.sleep(1000)
        elif mode == "garbage":
            take = "zz99"
        elif mode == "empty":
            take = ""
        elif mode == "flood":
            chunk = "1\n" * (1 << 19)
            for _ in range(64):
                sys.stdout.write(chunk)
            sys.stdout.flush()
    print(take, flush=True)
