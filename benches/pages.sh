#!/usr/bin/env bash
# What replay data costs (a file per game, replays/game-N.js, drawn by the folder's viewer
# replays/replay.html): its sizes per game, and games/s of a tournament of instant bots with its
# live report and replay data and without them, measured in the same run on the same machine.
#
#   1. An Impasse tournament of --games N games between two instant bots (bots/first and
#      bots/random), played twice at the same time: as is (the live report rewrites report.html
#      and writes every game's replay data on its own thread as the game is recorded), and
#      with the replay data made impossible (a file named `replays` where its folder would go,
#      so neither the data nor the report are written). Side by side, both runs see the same load
#      (on a machine shared with other work, runs one after the other measure how that load
#      changed), and every core is busy with games: data written then takes CPU from them.
#      Each prints games/s while the games play (until the last one is in games.csv) and in
#      all (until the process ends, the last games' data and report written at the end), and the
#      process's peak memory (max RSS).
#   2. Data sizes: of the Impasse run (median, largest, and the data of its longest game with its
#      turns), and of an Alva tournament of --alva-games games (the longest game's data), with
#      the viewer's script and style, written once per folder.
#   3. `arbiter report DIR` on the Impasse run: every game's data written again, games/s.
#
# Usage: benches/pages.sh [--games N] [--alva-games N] [--arbiter PATH]
#   --games N        Impasse games per run (default 2000)
#   --alva-games N   Alva games (default 20)
#   --arbiter PATH   the arbiter binary (default target/release/arbiter, built if missing; its
#                    bots are taken from the same folder)
# Needs bash, python3 and GNU time (/usr/bin/time) for the peak memory. Prints one table.
set -euo pipefail

games=2000
alva_games=20
arbiter=""
while [ $# -gt 0 ]; do
    case "$1" in
        --games) games="$2"; shift 2 ;;
        --alva-games) alva_games="$2"; shift 2 ;;
        --arbiter) arbiter="$2"; shift 2 ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "benches/pages.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -z "$arbiter" ]; then
    arbiter="$root/target/release/arbiter"
    [ -x "$arbiter" ] || (cd "$root" && cargo build --release --bins)
fi
bin="$(dirname "$arbiter")"
for b in arbiter-bot-first arbiter-bot-random; do
    [ -x "$bin/$b" ] || { echo "benches/pages.sh: $bin/$b is missing: build the bots (cargo build --release --bins)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "benches/pages.sh: needs GNU time (apt-get install time)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run NAME GAME GAMES [blocked]: plays a tournament into $work/NAME; prints "seconds max_rss_kb".
run() {
    local dir="$work/$1"
    mkdir -p "$dir"
    if [ "${4:-}" = blocked ]; then touch "$dir/replays"; fi
    local start end played pid
    start=$(date +%s.%N)
    /usr/bin/time -f "%M" -o "$work/$1.rss" "$arbiter" tournament --game "$2" --games "$3" --seed 7 \
        --out "$dir" "first=$bin/arbiter-bot-first" "random=$bin/arbiter-bot-random" \
        > "$work/$1.log" 2>&1 &
    pid=$!
    # The moment the last game is in games.csv (a header line, then one line a game).
    played=""
    while kill -0 "$pid" 2>/dev/null; do
        if [ -z "$played" ] && [ -f "$dir/games.csv" ] && [ "$(wc -l < "$dir/games.csv")" -gt "$3" ]; then
            played=$(date +%s.%N)
        fi
        sleep 0.05
    done
    wait "$pid" || { cat "$work/$1.log" >&2; exit 1; }
    end=$(date +%s.%N)
    [ -n "$played" ] || played=$end
    echo "$(python3 -c "print($played - $start, $end - $start)") $(cat "$work/$1.rss")"
}

run with impasse "$games" > "$work/with.out" &
with_pid=$!
run without impasse "$games" blocked > "$work/without.out" &
without_pid=$!
wait "$with_pid"
wait "$without_pid"
read -r with_play with_s with_rss < "$work/with.out"
read -r without_play without_s without_rss < "$work/without.out"
read -r _ _ _ < <(run alva alva "$alva_games")
start=$(date +%s.%N)
"$arbiter" report "$work/with" > /dev/null
end=$(date +%s.%N)

python3 - "$work" "$games" "$with_play" "$with_s" "$with_rss" "$without_play" "$without_s" "$without_rss" "$start" "$end" <<'EOF'
import json, os, statistics, sys
work, games = sys.argv[1], int(sys.argv[2])
with_play, with_s, with_rss, without_play, without_s, without_rss = map(float, sys.argv[3:9])
report_s = float(sys.argv[10]) - float(sys.argv[9])

def pages(name):
    d = os.path.join(work, name, "replays")
    sizes = {f: os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)
             if f.startswith("game-") and f.endswith(".js")}
    shared = sum(os.path.getsize(os.path.join(d, f)) for f in ("viewer.js", "viewer.css", "replay.html"))
    longest = max((json.loads(l) for l in open(os.path.join(work, name, "records.jsonl"))),
                  key=lambda r: len(r["moves"]))
    page = sizes["game-%d.js" % longest["game_id"]]
    return sizes, shared, longest, page

print("Replay data and games/s (same machine, the two Impasse runs side by side; %s, load average %s)"
      % (os.uname().nodename, " ".join(open("/proc/loadavg").read().split()[:3])))
print("%-44s %14s %14s %11s" % ("", "games/s play", "games/s total", "max RSS MB"))
print("%-44s %14.1f %14.1f %11.1f" % ("Impasse, %d games, live report + data" % games, games / with_play, games / with_s, with_rss / 1024))
print("%-44s %14.1f %14.1f %11.1f" % ("Impasse, %d games, no data (blocked)" % games, games / without_play, games / without_s, without_rss / 1024))
print("(play: until the last game is in games.csv; total: until the process ends, the last data written)")
print("ratio with/without data: play %.3f, total %.3f" % (without_play / with_play, without_s / with_s))
for name in ("with", "alva"):
    sizes, shared, longest, page = pages(name)
    v = sorted(sizes.values())
    print("%s: %d games' data, median %.1f KB, largest %.1f KB, %.1f MB in all; viewer page+script+style %.1f KB once per folder"
          % ("Impasse" if name == "with" else "Alva", len(v), statistics.median(v) / 1024, v[-1] / 1024,
             sum(v) / 1024 / 1024, shared / 1024))
    print("  longest game: %d moves, data %.1f KB (%.0f bytes a move)"
          % (len(longest["moves"]), page / 1024, page / max(1, len(longest["moves"]))))
print("arbiter report (every Impasse game's data again): %.1f games/s" % (games / report_s))
EOF
