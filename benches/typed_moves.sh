#!/usr/bin/env bash
# Typed moves against text moves, game by game: perft time and MCTS playouts per turn of two
# commits of arbiter, each built (release) in a git worktree of its own under /tmp with its own
# target folder.
#
#   benches/typed_moves.sh OLD_COMMIT [NEW_COMMIT]     (NEW_COMMIT defaults to HEAD)
#
# For every game `arbiter games` of the NEW build lists (default variant):
#  - perft: the depth is the first at which OLD's `arbiter perft` takes at least 0.3 s (at most
#    5 s; the depth before when the next one would pass that); each build counts it 3 times, and
#    the median time is printed with the ratio old/new (the node counts must agree);
#  - MCTS: the first turn of seat 0 (written by NEW's `arbiter play --replay` with two
#    `arbiter-bot-first` bots, one turn) is fed to each build's `arbiter-bot-mcts` (seed 1,
#    ARBITER_TURN_MS=ARBITER_FIRST_TURN_MS=100, so it searches 40 ms) 3 times; the median of the
#    `playouts=N` its answer reports is printed, with the ratio new/old.
# Both builds run one after the other in the same loop, so both see the same load (printed).
# Environment: TYPED_MOVES_KEEP=1 keeps the worktrees and target folders (reused next time).
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: benches/typed_moves.sh OLD_COMMIT [NEW_COMMIT]}
new=${2:-HEAD}
old_sha=$(git rev-parse --verify "$old^{commit}")
new_sha=$(git rev-parse --verify "$new^{commit}")
root=/tmp/arbiter-typed-moves
mkdir -p "$root"

build() { # sha -> prints the release folder
    local sha=$1 tree="$root/tree-${1:0:12}" target="$root/target-${1:0:12}"
    if [[ ! -d $tree ]]; then
        git worktree add --detach --force "$tree" "$sha" >&2
    fi
    (cd "$tree" && CARGO_TARGET_DIR="$target" cargo build --release --quiet \
        --bin arbiter --bin arbiter-bot-first --bin arbiter-bot-mcts >&2)
    echo "$target/release"
}
cleanup() {
    [[ ${TYPED_MOVES_KEEP:-} == 1 ]] && return
    for sha in "$old_sha" "$new_sha"; do
        git worktree remove --force "$root/tree-${sha:0:12}" 2>/dev/null || true
        rm -rf "$root/target-${sha:0:12}"
    done
}
trap cleanup EXIT

echo "building $old (${old_sha:0:12}) and $new (${new_sha:0:12}) under $root ..." >&2
OLD=$(build "$old_sha")
NEW=$(build "$new_sha")
work=$(mktemp -d)
trap 'rm -rf "$work"; cleanup' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# perft BIN GAME DEPTH -> "nodes seconds" of the last row
perft() {
    "$1/arbiter" perft "$3" --game "$2" 2>/dev/null | awk 'NF == 3 && $1 ~ /^[0-9]+$/ {n = $2; s = $3} END {print n, s}'
}
playouts() { # BIN INPUT
    ARBITER_TURN_MS=100 ARBITER_FIRST_TURN_MS=100 "$1/arbiter-bot-mcts" 1 < "$2" 2>/dev/null \
        | sed -n 's/.*playouts=\([0-9]*\).*/\1/p' | head -1
}

echo "machine: $(nproc) CPUs; $(date -u '+%F %T UTC'); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "old: $old (${old_sha:0:12})  new: $new (${new_sha:0:12})"
printf '%-12s %5s %14s %9s %9s %7s   %9s %9s %7s\n' game depth nodes "old s" "new s" old/new \
    "old play" "new play" new/old
games=$("$NEW/arbiter" games | awk '/^  [a-z]/ {print $1}')
for game in $games; do
    # The depth: OLD's first taking 0.3 s or more, unless it takes more than 5 s.
    depth=1 chosen=1
    while :; do
        read -r _ s < <(perft "$OLD" "$game" "$depth")
        [[ -z $s ]] && break
        if awk "BEGIN {exit !($s > 5)}"; then break; fi
        chosen=$depth
        awk "BEGIN {exit !($s >= 0.3)}" && break
        depth=$((depth + 1))
        [[ $depth -gt 12 ]] && break
    done
    : > "$work/old.t"; : > "$work/new.t"
    nodes_old="" nodes_new=""
    for _ in 1 2 3; do
        read -r nodes_old s < <(perft "$OLD" "$game" "$chosen"); echo "$s" >> "$work/old.t"
        read -r nodes_new s < <(perft "$NEW" "$game" "$chosen"); echo "$s" >> "$work/new.t"
    done
    to=$(median < "$work/old.t"); tn=$(median < "$work/new.t")
    [[ $nodes_old == "$nodes_new" ]] || echo "  $game: node counts differ at depth $chosen: old $nodes_old, new $nodes_new" >&2
    # The first turn's input, as NEW's referee writes it.
    rm -f "$work/replay.jsonl"
    (cd "$work" && "$NEW/arbiter" play --game "$game" --max-turns 1 --seed 1 \
        --replay "$work/replay.jsonl" "$NEW/arbiter-bot-first" "$NEW/arbiter-bot-first" >/dev/null 2>&1) || true
    python3 -c 'import json,sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d.get("type") == "turn":
        sys.stdout.write(d["input"]); break' "$work/replay.jsonl" > "$work/input"
    : > "$work/old.p"; : > "$work/new.p"
    for _ in 1 2 3; do
        playouts "$OLD" "$work/input" >> "$work/old.p"
        playouts "$NEW" "$work/input" >> "$work/new.p"
    done
    po=$(median < "$work/old.p"); pn=$(median < "$work/new.p")
    printf '%-12s %5s %14s %9s %9s %7s   %9s %9s %7s\n' "$game" "$chosen" "$nodes_new" "$to" "$tn" \
        "$(awk -v a="$to" -v b="$tn" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')" "${po:-?}" "${pn:-?}" \
        "$(awk -v a="${po:-0}" -v b="${pn:-0}" 'BEGIN {printf "%.2f", (a > 0 ? b / a : 0)}')"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
