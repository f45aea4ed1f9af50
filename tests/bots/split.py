#!/usr/bin/env python3
"""Plays the first offered move; on its second turn the answer line is padded with a comment to
exactly BYTES bytes (line end not counted) and written in two writes cut at byte CUT of the whole
line, ENDING `lf` or `crlf`. Tests that one length rule holds however the writes are split."""
import sys, time

BYTES, CUT, ENDING = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
out = sys.stdout.buffer
turn = 0
first = True
while True:
    line = sys.stdin.readline()
    if not line:
        break
    # The arena's Impasse input: colour line (first turn), 8 rows, last move, n, moves.
    rows = 8 if first and len(line.strip()) == 1 else 7
    for _ in range(rows + 1):
        sys.stdin.readline()
    n = int(sys.stdin.readline())
    moves = [sys.stdin.readline().strip() for _ in range(n)]
    first = False
    turn += 1
    answer = moves[0].encode()
    if turn == 2:
        answer += b" " + b"c" * max(0, BYTES - len(answer) - 1)
    whole = answer + (b"\r\n" if ENDING == "crlf" else b"\n")
    cut = min(CUT, len(whole))
    out.write(whole[:cut])
    out.flush()
    if cut < len(whole):
        time.sleep(0.02)
        out.write(whole[cut:])
        out.flush()
