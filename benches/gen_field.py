#!/usr/bin/env python3
"""Writes one synthetic field of two-bot game results in two forms, for comparing rating
programs on identical input: games.csv (the columns `arbiter ratings` reads: bot0, bot1,
winner) and games.pgn (minimal PGN records for Ordo).

Bots get strengths drawn from a normal distribution (sd 150 Elo); a game between a and b is won
by a with probability E - 0.1, drawn with probability 0.2 and lost otherwise, E the logistic
expected score of the strength gap (clamped to [0, 1]). Either --games G games between random
pairs, or --round-robin K games for every pair.

usage: gen_field.py OUT_DIR --bots N (--games G | --round-robin K) [--seed S]
"""
import argparse
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--bots", type=int, required=True)
    ap.add_argument("--games", type=int)
    ap.add_argument("--round-robin", type=int)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    n = a.bots
    strength = [rng.gauss(0.0, 150.0) for _ in range(n)]
    names = ["bot%05d" % i for i in range(n)]

    def pairs():
        if a.round_robin:
            for x in range(n):
                for y in range(x + 1, n):
                    for k in range(a.round_robin):
                        yield (x, y) if k % 2 == 0 else (y, x)
        else:
            for _ in range(a.games):
                x = rng.randrange(n)
                y = rng.randrange(n - 1)
                if y >= x:
                    y += 1
                yield x, y

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "games.csv"), "w") as csv, open(
        os.path.join(a.out, "games.pgn"), "w"
    ) as pgn:
        csv.write("bot0,bot1,winner\n")
        for x, y in pairs():
            e = 1.0 / (1.0 + 10.0 ** ((strength[y] - strength[x]) / 400.0))
            u = rng.random()
            if u < e - 0.1:
                winner, result = "0", "1-0"
            elif u < e + 0.1:
                winner, result = "", "1/2-1/2"
            else:
                winner, result = "1", "0-1"
            csv.write("%s,%s,%s\n" % (names[x], names[y], winner))
            pgn.write('[White "%s"]\n[Black "%s"]\n[Result "%s"]\n\n%s\n\n' % (names[x], names[y], result, result))


if __name__ == "__main__":
    main()
