#!/usr/bin/env bash
# Rates one synthetic field with `arbiter ratings --json` and with Ordo (michiguel/Ordo) and
# prints, for each: wall time and peak memory (from /usr/bin/time -v), then the largest rating
# difference between the two programs.
#
# usage: benches/ratings_vs_ordo.sh [ORDO_SOURCE] [BOTS] [GAMES | rr:K] [SEED]
#   ORDO_SOURCE  Ordo's source: a directory with its files, or a git directory (bare or not);
#                default /work/.mirror/michiguel+Ordo/repo, else a clone from GitHub is tried.
#   BOTS GAMES   default 3000 bots, 300000 games between random pairs; "rr:K" plays every pair
#                K times instead (300 rr:10 is 448,500 games).
#
# Wall times depend on what else the machine runs; CPU times (user + sys) less so.
# Both programs get the same games: games.csv for arbiter, games.pgn for Ordo (benches/gen_field.py).
# Ordo runs with -a 0 (mean 0, like arbiter's default centring) and -z 200.24 (the rating gap
# for a 76% expected score on the 400*log10 logistic scale arbiter uses; Ordo's default 202 is a
# slightly different scale), no white advantage, no simulations (so no error bars: arbiter's
# time includes its 95% intervals, Ordo's does not).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
src=${1:-/work/.mirror/michiguel+Ordo/repo}
bots=${2:-3000}
games=${3:-300000}
seed=${4:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/ratings_vs_ordo.XXXXXX")
echo "work directory: $work"

# --- Ordo ---------------------------------------------------------------------------------------
ordo=""
mkdir -p "$work/ordo"
if [ -d "$src" ] && git --git-dir="$src" rev-parse HEAD >/dev/null 2>&1; then
    git --git-dir="$src" archive HEAD | tar -x -C "$work/ordo"
elif [ -d "$src/.git" ]; then
    git --git-dir="$src/.git" archive HEAD | tar -x -C "$work/ordo"
elif [ -f "$src/main.c" ]; then
    cp -r "$src"/. "$work/ordo"
elif git clone -q --depth 1 https://github.com/michiguel/Ordo "$work/ordo" 2>/dev/null; then
    :
else
    echo "Ordo source not found at '$src' and no clone possible: arbiter only"
fi
if [ -f "$work/ordo/Makefile" ]; then
    (cd "$work/ordo" && make all >"$work/ordo-build.log" 2>&1) && ordo="$work/ordo/ordo" \
        || echo "Ordo did not build (see $work/ordo-build.log): arbiter only"
fi
[ -n "$ordo" ] && echo "Ordo: $(git --git-dir="$src" log -1 --format='%h %s' 2>/dev/null || echo built from $src)"

# --- arbiter ------------------------------------------------------------------------------------
(cd "$root" && cargo build --release --quiet --bin arbiter)
arbiter="$root/target/release/arbiter"

# --- the field ----------------------------------------------------------------------------------
case "$games" in
    rr:*) gen_args=(--round-robin "${games#rr:}") ;;
    *) gen_args=(--games "$games") ;;
esac
python3 "$here/gen_field.py" "$work" --bots "$bots" "${gen_args[@]}" --seed "$seed"
echo "field: $bots bots, $(($(wc -l <"$work/games.csv") - 1)) games (seed $seed)"

measure() { # name, command...: runs it under /usr/bin/time -v, prints wall time and peak RSS
    local name=$1
    shift
    /usr/bin/time -v "$@" 2>"$work/$name.time" >"$work/$name.out"
    local wall rss user sys
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/$name.time")
    user=$(sed -n 's/.*User time (seconds): //p' "$work/$name.time")
    sys=$(sed -n 's/.*System time (seconds): //p' "$work/$name.time")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/$name.time")
    printf '%-8s wall %s  CPU %.2f s (user %s + sys %s)  peak RSS %.1f MB\n' "$name" "$wall" \
        "$(echo "$user + $sys" | bc -l)" "$user" "$sys" "$(echo "$rss / 1024" | bc -l)"
}

measure arbiter "$arbiter" ratings --json "$work/games.csv"
if [ -n "$ordo" ]; then
    measure ordo "$ordo" -q -a 0 -z 200.2447 -N 4 -p "$work/games.pgn" -c "$work/ordo.csv"
    python3 - "$work/arbiter.out" "$work/ordo.csv" "$work/games.csv" <<'PY'
import csv, json, sys
from collections import defaultdict
ours = {r["bot"]: r for r in json.load(open(sys.argv[1]))["ratings"]}
theirs = {row["PLAYER"]: float(row["RATING"]) for row in csv.DictReader(open(sys.argv[2]))}
# Which set is the maximum-likelihood one: each bot's expected minus actual points.
pairs = defaultdict(lambda: [0, 0.0])
for row in csv.DictReader(open(sys.argv[3])):
    key = (row["bot0"], row["bot1"])
    pairs[key][0] += 1
    pairs[key][1] += {"0": 1.0, "1": 0.0, "": 0.5}[row["winner"]]
def residual(rating):
    r = defaultdict(float)
    for (a, b), (g, p) in pairs.items():
        e = g / (1.0 + 10.0 ** ((rating[b] - rating[a]) / 400.0))
        r[a] += e - p
        r[b] -= e - p
    return max(abs(v) for v in r.values())
print("max |expected - actual points| of a bot: arbiter %.2e (ratings rounded to 0.01 in --json), Ordo %.2e"
      % (residual({b: r["elo"] for b, r in ours.items()}), residual(theirs)))
both = [b for b in theirs if b in ours and ours[b]["elo"] is not None]
diff = [abs(ours[b]["elo"] - theirs[b]) for b in both]
worst = max(range(len(both)), key=lambda k: diff[k])
print("bots rated by both: %d of %d (arbiter) / %d (Ordo)" % (len(both), len(ours), len(theirs)))
print("max |arbiter - Ordo| = %.4f Elo (%s: %.2f vs %.4f), mean %.4f"
      % (diff[worst], both[worst], ours[both[worst]]["elo"], theirs[both[worst]], sum(diff) / len(diff)))
order_ours = sorted(both, key=lambda b: -ours[b]["elo"])
order_theirs = sorted(both, key=lambda b: -theirs[b])
print("same order: %s" % (order_ours == order_theirs))
PY
fi
