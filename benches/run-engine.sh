#!/usr/bin/env bash
# Times the run engine: (1) 40 games of a C bot that segfaults on its first turn against the
# same games of a C bot that exits with status 3 (a crash of the bot's own must cost no more
# than an exit: the engine reads the forfeit's exit kind and never waits to see whether a stop
# follows); (2) a tournament of 1,000 games of bots/first beside `arbiter bench --json`'s games
# per second at the same concurrency (the tournament's games/s as its progress line counts
# them, and the whole run's wall time, which adds the standings and report.html with its 1,000
# replay pages). Prints each run, the load average before it, and the medians.
#
# Usage: benches/run-engine.sh [ARBITER] [--repeats N]   (default: target/release/arbiter, 3)
# Build first: cargo build --release (the script uses target/release/arbiter-bot-first too).
set -euo pipefail
cd "$(dirname "$0")/.."
ARBITER=${1:-target/release/arbiter}
REPEATS=3
[[ ${2:-} == --repeats ]] && REPEATS=$3
FIRST=target/release/arbiter-bot-first
for f in "$ARBITER" "$FIRST"; do
    [[ -x $f ]] || { echo "missing $f: run cargo build --release" >&2; exit 1; }
done
command -v gcc >/dev/null || { echo "gcc is needed for the C bots" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/segv.c" <<'C'
#include <stdio.h>
int main(void) { char b[4096]; if (!fgets(b, sizeof b, stdin)) return 0; *(volatile int *)0 = 1; return 0; }
C
cat > "$work/exit3.c" <<'C'
#include <stdio.h>
int main(void) { char b[4096]; if (!fgets(b, sizeof b, stdin)) return 0; return 3; }
C
gcc -O0 -o "$work/segv" "$work/segv.c"
gcc -O0 -o "$work/exit3" "$work/exit3.c"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { # wall seconds of a command
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null 2>"$work/err"; t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}

echo "machine: $(nproc) CPUs, $(uname -r); $(date -u '+%F %T UTC'); arbiter: $ARBITER"
for kind in segv exit3; do
    : > "$work/$kind.times"
    for _ in $(seq "$REPEATS"); do
        rm -rf "$work/out"
        load=$(cut -d' ' -f1 /proc/loadavg)
        s=$(seconds "$ARBITER" tournament --games 40 --seed 1 --out "$work/out" \
            "a=$work/$kind" "b=$work/$kind")
        printf '40 games, %-5s: %6.2f s (load %s)\n' "$kind" "$s" "$load"
        echo "$s" >> "$work/$kind.times"
    done
done
printf 'median of 40 games: segfault %.2f s, exit 3 %.2f s\n' \
    "$(median < "$work/segv.times")" "$(median < "$work/exit3.times")"

: > "$work/bench"; : > "$work/tour"; : > "$work/wall"
for _ in $(seq "$REPEATS"); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    b=$("$ARBITER" bench --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["games_per_s_parallel"])')
    echo "$b" >> "$work/bench"
    rm -rf "$work/t"
    w=$(seconds "$ARBITER" tournament --pin-cpus --games 1000 --seed 3 --out "$work/t" \
        "a=$FIRST" "b=$FIRST")
    g=$(grep -o '[0-9.]* games/s' "$work/err" | tail -1 | cut -d' ' -f1)
    echo "$g" >> "$work/tour"; echo "$w" >> "$work/wall"
    printf 'bench %6.1f games/s | tournament %6.1f games/s, whole run %5.2f s (load %s)\n' \
        "$b" "$g" "$w" "$load"
done
printf 'median: bench %.1f games/s, tournament %.1f games/s, whole run %.2f s\n' \
    "$(median < "$work/bench")" "$(median < "$work/tour")" "$(median < "$work/wall")"
