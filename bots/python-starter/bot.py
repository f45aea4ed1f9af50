#!/usr/bin/env python3
"""python-starter: a small, commented Impasse bot to copy from.

Each turn the referee sends, one item per line:
  1. (first turn only) our colour: "w" or "b"
  2. eight board rows, row 8 first, e.g. ".W.b.W.b"
  3. the opponent's last move, or "null"
  4. the number n of legal moves
  5. n legal moves, e.g. "c1a3", "f8g7c5", "b6"
We answer with one of those moves on one line (a space and a comment may follow).
"""
import os
import random
import sys


def read_line():
    """Read one line without its newline; None means the referee closed stdin."""
    line = sys.stdin.readline()
    return None if line == "" else line.rstrip("\r\n")


def squares(move):
    """Split a move text into (column, row) pairs: "c1a3" -> [(2, 1), (0, 3)]."""
    return [(ord(move[i]) - ord("a"), int(move[i + 1])) for i in range(0, len(move), 2)]


def score(move, board, colour):
    """Tiny heuristic: bigger is better.

    - A crown (three squares in the text) makes a new double: +20.
    - A double that lands on our nearest row is borne off, scoring a point: +10.
    - Otherwise, prefer long moves: singles head for the crown row and
      doubles head home, so every row travelled is progress: +1 per row.
    """
    sq = squares(move)
    if len(sq) < 2:  # an impasse: just a square to remove
        return 0
    (col0, row0), (col1, row1) = sq[0], sq[1]
    piece = board[8 - row0][col0]  # board[0] is row 8, board[7] is row 1
    nearest_row = 1 if colour == "w" else 8
    points = abs(row1 - row0)
    if piece.isupper() and row1 == nearest_row:
        points += 10
    if len(sq) == 3:
        points += 20
    return points


def seeded_random(colour):
    """Our source of random choices: seeded from the game's seed that arbiter gives every bot in
    ARBITER_SEED, mixed with our colour (the two games of a pair share a seed with seats
    swapped), so that `arbiter ... --seed N` replays the same games; seeded by the system when
    run without arbiter."""
    seed = os.environ.get("ARBITER_SEED", "")
    return random.Random(f"{seed} {colour}") if seed.isdigit() else random.Random()


def main():
    colour = None
    rng = None
    while True:
        # 1. The colour line comes only on our very first turn.
        if colour is None:
            colour = read_line()
            if colour is None:
                return
            rng = seeded_random(colour)
            if " " in colour:
                # Other games (and Impasse's other variants) start with "seat seats game variant".
                game = " ".join(colour.split()[2:]) or colour
                print(
                    f"python-starter: plays only Impasse as the CodinGame arena plays it "
                    f"(--game impasse, variant arena), but was given {game} "
                    f"(first input line {colour!r}); choose a bot that plays it, e.g. bots/mcts",
                    file=sys.stderr,
                )
                sys.exit(2)
        # 2. The board: a 2-D list of characters, board[0] is row 8.
        board = []
        for _ in range(8):
            row = read_line()
            if row is None:
                return
            board.append(list(row))
        # 3. The opponent's last move ("null" on the game's first turn).
        last_move = read_line()
        # 4-5. The legal moves.
        count = read_line()
        if last_move is None or count is None:
            return
        moves = [read_line() for _ in range(int(count))]
        if None in moves:
            return
        # Equally good moves are chosen between at random (seeded from the game's seed): two bots
        # that always pick the same move would replay one game over and over.
        scores = [score(m, board, colour) for m in moves]
        best = rng.choice([m for m, s in zip(moves, scores) if s == max(scores)])
        # Flush every answer: a pipe is block-buffered, and the referee waits.
        print(best, flush=True)


if __name__ == "__main__":
    main()
