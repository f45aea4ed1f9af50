#!/usr/bin/env bash
# Times the run engine:
#   (1) 40 games of a C bot that segfaults on its first turn against the same games of a C bot
#       that exits with status 3 (a crash of the bot's own must cost no more than an exit: the
#       engine reads the forfeit's exit kind and never waits to see whether a stop follows);
#   (2) a tournament of --games games of bots/first against itself (the bots `arbiter bench`
#       plays), reports and replay pages on, beside `arbiter bench --json`'s games per second at
#       the same concurrency (the CPU count) and with the same placement: a tournament with
#       --pin-cpus against bench's pinned figure, and one with --pin-cpus=never against bench's
#       "placed by the kernel" figure. A tournament's games/s are given twice: as its progress
#       line counts them (until the last game is played) and for the whole run (start to end:
#       the standings, report.html and the replay pages still missing at the end included). The
#       target (issue 26) is the whole run within 5% of bench. On a machine other work keeps
#       busy, games/s follow that work; the CPU time a game costs (arbiter and its bots, user +
#       system) follows it much less, so each pinned tournament is also run with its pages and
#       report made impossible (a file named `replays` where their folder goes, as
#       benches/pages.sh does), and the CPU per game of both printed: their difference is what
#       the pages and reports cost.
# Several builds (ARBITER paths, e.g. a copy of main's build and this one) are run alternately
# in each repeat, so that each figure is compared with the others under the same load; each
# build's tournaments are compared with that build's own bench. Prints every run, the load
# average before it, and the medians.
#
# Usage: benches/run-engine.sh [--repeats N] [--games N] [--no-crash] [--bot PATH] [ARBITER...]
#   ARBITER      arbiter builds to compare (default target/release/arbiter); each needs its
#                arbiter-bot-first beside it (and, from builds that had one, arbiter-init)
#   --repeats N  rounds of every measure (default 3; medians are printed)
#   --games N    games per tournament (default 1000)
#   --no-crash   skip (1)
#   --bot PATH   the instant bot all builds play (default target/release/arbiter-bot-first)
# Build first: cargo build --release --bins. Needs gcc (for (1)), python3, bc and GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
REPEATS=3
GAMES=1000
CRASH=1
FIRST=target/release/arbiter-bot-first
BUILDS=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --repeats) REPEATS=$2; shift 2 ;;
        --games) GAMES=$2; shift 2 ;;
        --no-crash) CRASH=0; shift ;;
        --bot) FIRST=$2; shift 2 ;;
        -h|--help) sed -n "2,31p" "$0"; exit 0 ;;
        -*) echo "benches/run-engine.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) BUILDS+=("$1"); shift ;;
    esac
done
[[ ${#BUILDS[@]} -gt 0 ]] || BUILDS=(target/release/arbiter)
for f in "${BUILDS[@]}" "$FIRST"; do
    [[ -x $f ]] || { echo "missing $f: run cargo build --release --bins" >&2; exit 1; }
done
for f in "${BUILDS[@]}"; do
    # bench's bot. A build from before the bots' init was built into arbiter should have its
    # arbiter-init beside it too (not checked: without it, arbiter's own program is the init).
    [[ -x $(dirname "$f")/arbiter-bot-first ]] ||
        { echo "missing $(dirname "$f")/arbiter-bot-first beside $f: copy it there" >&2; exit 1; }
done
command -v bc >/dev/null || { echo "bc is needed (apt-get install bc)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "GNU time is needed (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { # wall seconds of a command; its stderr in $work/err
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>"$work/err" || { echo "failed: $*" >&2; tail -5 "$work/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}

echo "machine: $(nproc) CPUs, $(uname -r); $(date -u '+%F %T UTC'); $(uptime | sed 's/^.*load/load/')"
for i in "${!BUILDS[@]}"; do echo "build $i: ${BUILDS[$i]}"; done

if [[ $CRASH == 1 ]]; then
    command -v gcc >/dev/null || { echo "gcc is needed for the C bots (or --no-crash)" >&2; exit 1; }
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
    ARBITER=${BUILDS[0]}
    for kind in segv exit3; do
        : > "$work/$kind.times"
        for i in $(seq "$REPEATS"); do
            load=$(cut -d' ' -f1 /proc/loadavg)
            s=$(seconds "$ARBITER" tournament --games 40 --seed 1 --out "$work/out.$kind.$i" \
                "a=$work/$kind" "b=$work/$kind")
            printf '40 games, %-5s: %6.2f s (load %s)\n' "$kind" "$s" "$load"
            echo "$s" >> "$work/$kind.times"
        done
    done
    printf 'median of 40 games (build 0): segfault %.2f s, exit 3 %.2f s\n' \
        "$(median < "$work/segv.times")" "$(median < "$work/exit3.times")"
fi

# tournament BUILD PLACEMENT [blocked]: one tournament (with its pages and report made
# impossible if `blocked`); appends to the build's figure files and prints a line. PLACEMENT
# is a --pin-cpus value.
# Each tournament writes into a folder of its own, all removed at the end: removing one just
# before the next made ext4 look past the inodes it had just freed for every file the next one
# created (`recently_deleted`, a third of the page writer's time in `perf`), which inflated what
# the pages seemed to cost.
RUN=0
tournament() {
    local b=$1 pin=$2 arb=${BUILDS[$1]} load w g placed cpu tag=$2
    RUN=$((RUN + 1))
    local t="$work/t.$RUN"
    if [[ ${3:-} == blocked ]]; then mkdir -p "$t"; touch "$t/replays"; tag=$pin.blocked; fi
    load=$(cut -d' ' -f1 /proc/loadavg)
    w=$(seconds /usr/bin/time -f '%U %S' -o "$work/cpu" "$arb" tournament --pin-cpus="$pin" \
        --games "$GAMES" --seed 3 --out "$t" "a=$FIRST" "b=$FIRST")
    g=$(tr '\r' '\n' < "$work/err" | grep -o '[0-9.]* games/s' | tail -1 | cut -d' ' -f1)
    # What the tournament says of its placement on its first line.
    if grep -q 'one CPU per game' "$work/err"; then placed=pinned; else placed=kernel; fi
    # CPU ms a game: arbiter's and its children's (the bots, reaped by it), user + system.
    cpu=$(awk -v n="$GAMES" '{print ($1 + $2) * 1000 / n}' "$work/cpu")
    echo "$g" >> "$work/$b.$tag.played"
    echo "$GAMES / $w" | bc -l >> "$work/$b.$tag.whole"
    echo "$cpu" >> "$work/$b.$tag.cpu"
    printf '  build %d, --pin-cpus=%-6s (%s)%s: %6.1f games/s played, %6.1f whole run (%5.2f s), %.2f ms CPU a game (load %s)\n' \
        "$b" "$pin" "$placed" "$([[ $tag == *blocked ]] && echo ', no pages or report')" \
        "$g" "$(echo "$GAMES / $w" | bc -l)" "$w" "$cpu" "$load"
}

for r in $(seq "$REPEATS"); do
    echo "round $r"
    for b in "${!BUILDS[@]}"; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        "${BUILDS[$b]}" bench --json 2>"$work/err" > "$work/bench.json" ||
            { cat "$work/err" >&2; exit 1; }
        read -r pinned free < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["games_per_s_parallel"] if j["pinned"] else "nan", j["games_per_s_parallel_free"])' "$work/bench.json")
        echo "$pinned" >> "$work/$b.bench.always"
        echo "$free" >> "$work/$b.bench.never"
        printf '  build %d, bench: %6.1f games/s pinned, %6.1f placed by the kernel (load %s)\n' \
            "$b" "$pinned" "$free" "$load"
        tournament "$b" always
        tournament "$b" always blocked
        tournament "$b" never
    done
done

echo "medians of $REPEATS (games/s; the tournament's whole run against bench, same placement):"
for b in "${!BUILDS[@]}"; do
    for pin in always never; do
        bm=$(median < "$work/$b.bench.$pin")
        pm=$(median < "$work/$b.$pin.played")
        wm=$(median < "$work/$b.$pin.whole")
        printf '  build %d, %-22s bench %6.1f | tournament %6.1f played, %6.1f whole run: %+.1f%% of bench\n' \
            "$b" "$([[ $pin == always ]] && echo 'pinned (--pin-cpus):' || echo 'kernel (=never):')" \
            "$bm" "$pm" "$wm" "$(echo "($wm / $bm - 1) * 100" | bc -l)"
    done
done
echo "CPU a game (medians; pinned tournaments), what pages and reports add:"
for b in "${!BUILDS[@]}"; do
    on=$(median < "$work/$b.always.cpu")
    off=$(median < "$work/$b.always.blocked.cpu")
    printf '  build %d: %.2f ms with pages and report, %.2f ms without: %+.2f ms (%+.1f%%)\n' \
        "$b" "$on" "$off" "$(echo "$on - $off" | bc -l)" "$(echo "($on / $off - 1) * 100" | bc -l)"
done
echo "end: $(date -u '+%T UTC'); $(uptime | sed 's/^.*load/load/')"
