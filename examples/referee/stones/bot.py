#!/usr/bin/env python3
"""A Stones player (see referee.py): takes what leaves a multiple of four, else one stone.
Run with "simple" to always take one stone."""

import sys

simple = sys.argv[1:] == ["simple"]
me, players, max_take = map(int, input().split())
while True:
    stones = int(input())
    take = 1 if simple or stones % (max_take + 1) == 0 else stones % (max_take + 1)
    print(take, flush=True)
