#!/usr/bin/env bash
# Runs `arbiter bench --quick --json` of two builds side by side, alternating (A B A B ...), and
# prints the median of each figure for each, with the ratio new/old. Both runs share the load of
# the moment, so a loaded machine moves both alike.
#
#   benches/compare-bench.sh OLD_DIR NEW_DIR [ROUNDS]
# Each DIR holds a release build's `arbiter` and `arbiter-bot-first` (and, from builds that
# had it beside them, `arbiter-init`), e.g. copies of target/release. ROUNDS defaults to 5.
set -euo pipefail
old=${1:?usage: compare-bench.sh OLD_DIR NEW_DIR [ROUNDS]}
new=${2:?usage: compare-bench.sh OLD_DIR NEW_DIR [ROUNDS]}
rounds=${3:-5}
out=$(mktemp -d)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$rounds"); do
    for side in old new; do
        dir=$old; [ "$side" = new ] && dir=$new
        (cd "$out" && "$dir/arbiter" bench --quick --json > "$out/$side.$i.json" 2>/dev/null)
    done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
runs = {s: [json.load(open(f"{out}/{s}.{i}.json")) for i in range(1, rounds + 1)] for s in ("old", "new")}
keys = ["floor_same_cpu_us", "game_setup_us", "game_setup_cpu_us", "turn_us", "turn_loop_us",
        "turn_us_wall_clock", "turn_us_parallel", "games_per_s", "games_per_s_parallel",
        "referee_cpu_us_per_turn", "referee_cpu_us_per_turn_wall_clock",
        "fair_clock_cpu_us_per_turn", "bots_cpu_us_per_turn", "other_cpus"]
print(f"{'figure (median of %d)' % rounds:40} {'old':>10} {'new':>10} {'new/old':>8}")
for k in keys:
    o = statistics.median(r[k] for r in runs["old"])
    n = statistics.median(r[k] for r in runs["new"])
    print(f"{k:40} {o:10.1f} {n:10.1f} {n / o if o else float('nan'):8.2f}")
# bench pins its games whenever they fit the CPUs; say so, since figures of pinned and unpinned
# rounds cannot be compared.
pinned = {s: sum(1 for r in runs[s] if r.get("pinned")) for s in ("old", "new")}
print(f"{'rounds pinned (of %d)' % rounds:40} {pinned['old']:10d} {pinned['new']:10d}")
PY
