#!/usr/bin/env python3
"""A bot for Take, arbiter's test SDK game (tests/sdk/take): reads one number X a turn and
answers how much it takes (after a first line "P I": players, its index). MODE: `greedy` takes X,
`modest` takes X // 2; `slow N`, `crash N`, `invalid N` and `hostile N` play greedy but at their
Nth turn sleep 5 s, exit, answer `banana`, or answer markup (`<img src=x onerror=...>`, which a
page must show as text); `told` plays greedy after writing on stderr the limits arbiter told it
(`told ARBITER_FIRST_TURN_MS=... ARBITER_TURN_MS=...`); `twolines N` answers two lines a turn
(X, then `ok`; for the game parameter lines=2) but at its Nth turn only the first, then sleeps
5 s."""
import os
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "greedy"
at = int(sys.argv[2]) if len(sys.argv) > 2 else 0
if mode == "told":
    told = " ".join(
        f"{k}={os.environ.get(k)}" for k in ("ARBITER_FIRST_TURN_MS", "ARBITER_TURN_MS")
    )
    print(f"told {told}", file=sys.stderr, flush=True)
players, me = map(int, sys.stdin.readline().split())
turn = 0
for line in sys.stdin:
    turn += 1
    x = int(line)
    if turn == at and mode == "slow":
        time.sleep(5)
    if turn == at and mode == "crash":
        sys.exit(3)
    if turn == at and mode == "invalid":
        print("banana", flush=True)
        continue
    if turn == at and mode == "hostile":
        print("<img src=x onerror=document.title='pwned'>", flush=True)
        continue
    if mode == "twolines":
        print(x, flush=True)
        if turn == at:
            time.sleep(5)
        print("ok", flush=True)
        continue
    print(x // 2 if mode == "modest" else x, flush=True)
