#!/usr/bin/env python3
"""echo.py: write each stdin line straight back to stdout, flushing at once.

Used to measure pipe round trips to a child process. Exits 0 at end of input.
Standard library only; Python 3.9+.
"""
import sys


def main():
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:  # readline() returns as soon as a whole line is there
        out.write(line)
        out.flush()


if __name__ == "__main__":
    main()
