#!/usr/bin/env python3
"""A test bot for every game in arbiter's standard input shape (not Impasse's arena format).

Usage: standard.py [MODE [ARG]]
  random        a uniformly random legal move (seeded by ARG, default 1)
  first         the first legal move
  timeout-at T  plays the first legal move, then sleeps forever on its own turn T
  crash-at T    exits with status 3 on its own turn T, after printing a traceback-like line
  talk          a random legal move (seed 1), saying on stderr each turn "turn T: N moves, I play M"
It checks the shape as it reads: counted sections, the intro line on the first turn only.
"""
import random, sys, time

mode = sys.argv[1] if len(sys.argv) > 1 else "random"
arg = int(sys.argv[2]) if len(sys.argv) > 2 else 1
rng = random.Random(arg)


def line():
    text = sys.stdin.readline()
    if not text:
        sys.exit(0)
    return text.rstrip("\n")


def counted():
    n = int(line())
    return [line() for _ in range(n)]


turn = 0
first = True
while True:
    head = line()
    if first:
        seat, seats, game, variant = head.split()
        print(f"playing {game} {variant} as seat {seat} of {seats}", file=sys.stderr)
        head = line()
        first = False
    position = head
    board = counted()
    since = counted()
    moves = counted()
    turn += 1
    if mode == "timeout-at" and turn == arg:
        time.sleep(3600)
    if mode == "crash-at" and turn == arg:
        print("Traceback (most recent call last):\nValueError: test crash", file=sys.stderr)
        sys.exit(3)
    choice = rng.choice(moves) if mode in ("random", "talk") else moves[0]
    if mode == "talk":
        print(f"turn {turn}: {len(moves)} moves, I play {choice}", file=sys.stderr, flush=True)
    print(choice, flush=True)
