#!/usr/bin/env bash
# Times arbiter beside fastchess (a chess tournament manager) on one machine, in one run, so that
# the two per-ply figures can be compared honestly.
#
# Both tools play games between two copies of an instant program, one game at a time:
#   - fastchess runs benches/instant-uci (a UCI engine answering every `go` with the first legal
#     move), with and without its `-use-affinity` option;
#   - arbiter runs bots/first (an Impasse bot answering the first offered move) in a tournament,
#     with its default placement (each game pinned to a CPU) and with `--pin-cpus=never`.
# Each of the four runs is repeated (3 times by default, interleaved) and the medians are
# printed: games, plies, wall seconds of the whole run, microseconds per ply (wall time / plies),
# and the ratio fastchess / arbiter, with the machine, the date and the exact commands.
#
# Usage: benches/fastchess.sh [--fastchess-src DIR] [--games N] [--repeats N] [--restart] [--rebuild]
#   --games N     games per run, even (default 1000)
#   --repeats N   runs of each of the four configurations (default 3)
#   --restart     also run fastchess with `restart=on` (new engine processes for every game, as
#                 arbiter starts new bots), placed by the kernel. Slow: fastchess checks every
#                 100 ms whether an engine it told to quit has exited, so a game takes over 0.1 s
#   --rebuild     build fastchess again from a fresh copy of its source
#
# fastchess's source is not shipped with arbiter. Get it once and name it on the first run:
#   git clone https://github.com/Disservin/fastchess /some/dir
#   benches/fastchess.sh --fastchess-src /some/dir
# --fastchess-src takes a source tree or a git directory (a bare clone or mirror works: its HEAD is
# exported). The source is copied to target/bench-cache/fastchess-src/ and built there once
# (`make -j2`); later runs without --fastchess-src reuse that copy and its binary. Without either,
# the script tries `git clone --depth 1` itself and stops with these instructions if that fails.
#
# Needs: bash, git, make, a C++17 compiler, cargo (crates.io reachable for the first build of
# benches/instant-uci), awk. Takes a few minutes: fastchess's first build, then 4 x N x repeats
# games.
set -euo pipefail

GAMES=1000
REPEATS=3
FC_SRC_ARG=""
REBUILD=0
RESTART=0
FASTCHESS_URL="https://github.com/Disservin/fastchess"

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

die() {
    echo "fastchess.sh: $*" >&2
    exit 1
}

while [ $# -gt 0 ]; do
    case "$1" in
        --fastchess-src) FC_SRC_ARG="${2:?--fastchess-src needs a directory}"; shift 2 ;;
        --fastchess-src=*) FC_SRC_ARG="${1#*=}"; shift ;;
        --games) GAMES="${2:?--games needs a number}"; shift 2 ;;
        --games=*) GAMES="${1#*=}"; shift ;;
        --repeats) REPEATS="${2:?--repeats needs a number}"; shift 2 ;;
        --repeats=*) REPEATS="${1#*=}"; shift ;;
        --rebuild) REBUILD=1; shift ;;
        --restart) RESTART=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
case "$GAMES" in '' | *[!0-9]*) die "--games must be a positive even number" ;; esac
case "$REPEATS" in '' | *[!0-9]*) die "--repeats must be a positive number" ;; esac
if [ "$GAMES" -lt 2 ] || [ $((GAMES % 2)) -ne 0 ]; then
    die "--games must be a positive even number (games are played in pairs)"
fi
[ "$REPEATS" -ge 1 ] || die "--repeats must be at least 1"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/target/bench-cache"
FC_DIR="$CACHE/fastchess-src"
FC_BIN="$FC_DIR/fastchess"
mkdir -p "$CACHE"
if [ -n "$FC_SRC_ARG" ]; then
    FC_SRC_ARG="$(cd "$FC_SRC_ARG" && pwd)" || die "no such directory: $FC_SRC_ARG"
fi

log() {
    echo "== $*" >&2
}

# --- 1. fastchess's source and binary ------------------------------------------------------------

# Replaces the cached source with the tree or git directory $1; records where it came from.
import_source() {
    local src="$1" origin commit=""
    rm -rf "$FC_DIR"
    mkdir -p "$FC_DIR"
    if [ -f "$src/Makefile" ] && [ -d "$src/app" ]; then
        (cd "$src" && tar -c --exclude=.git --exclude=./fastchess --exclude=app/tmp .) | tar -x -C "$FC_DIR"
        commit="$(git -C "$src" rev-parse HEAD 2>/dev/null || true)"
        origin="tree $src"
    elif git --git-dir="$src" rev-parse --verify -q HEAD >/dev/null; then
        git --git-dir="$src" archive HEAD | tar -x -C "$FC_DIR"
        commit="$(git --git-dir="$src" rev-parse HEAD)"
        origin="git $src"
    else
        die "$src is neither a fastchess source tree (Makefile, app/) nor a git directory"
    fi
    if [ ! -f "$FC_DIR/Makefile" ] || [ ! -d "$FC_DIR/app" ]; then
        die "$src does not look like fastchess's source"
    fi
    printf '%s\n%s\n' "$origin" "${commit:-unknown}" >"$FC_DIR/.origin"
}

cached_origin="$(sed -n 1p "$FC_DIR/.origin" 2>/dev/null || true)"
if [ -n "$FC_SRC_ARG" ]; then
    if [ "$REBUILD" = 1 ] || { [ "$cached_origin" != "tree $FC_SRC_ARG" ] && [ "$cached_origin" != "git $FC_SRC_ARG" ]; }; then
        log "copying fastchess's source from $FC_SRC_ARG"
        import_source "$FC_SRC_ARG"
    fi
elif [ ! -f "$FC_DIR/.origin" ]; then
    log "no fastchess source in $FC_DIR: trying git clone $FASTCHESS_URL"
    tmp_clone="$CACHE/fastchess-clone"
    rm -rf "$tmp_clone"
    if GIT_TERMINAL_PROMPT=0 git clone -q --depth 1 "$FASTCHESS_URL" "$tmp_clone" 2>/dev/null; then
        import_source "$tmp_clone"
        rm -rf "$tmp_clone"
    else
        rm -rf "$tmp_clone"
        die "cannot get fastchess's source. Clone $FASTCHESS_URL somewhere and pass --fastchess-src DIR."
    fi
fi
FC_COMMIT="$(sed -n 2p "$FC_DIR/.origin")"

if [ ! -x "$FC_BIN" ] || [ "$REBUILD" = 1 ] || [ "$FC_DIR/.origin" -nt "$FC_BIN" ]; then
    log "building fastchess ($FC_COMMIT) in $FC_DIR (log: $CACHE/fastchess-build.log)"
    if [ "$REBUILD" = 1 ]; then
        make -C "$FC_DIR" clean >/dev/null 2>&1 || true
    fi
    # GIT_SHA/GIT_DATE given here, else its Makefile would read them from arbiter's repository.
    make -C "$FC_DIR" -j2 GIT_SHA="${FC_COMMIT:0:8}" GIT_DATE="" >"$CACHE/fastchess-build.log" 2>&1 ||
        die "fastchess's build failed; see $CACHE/fastchess-build.log"
    [ -x "$FC_BIN" ] || die "fastchess's build made no $FC_BIN"
fi

# --- 2. the instant programs and arbiter ---------------------------------------------------------

log "building benches/instant-uci and arbiter (release)"
cargo build --quiet --release --locked --manifest-path "$ROOT/benches/instant-uci/Cargo.toml" \
    --target-dir "$CACHE/instant-uci"
ENGINE="$CACHE/instant-uci/release/instant-uci"
(cd "$ROOT" && cargo build --quiet --release --bins)
ARBITER="$ROOT/target/release/arbiter"
BOT="$ROOT/target/release/arbiter-bot-first"
for program in "$ENGINE" "$ARBITER" "$BOT"; do
    [ -x "$program" ] || die "the build did not produce $program"
done

# --- 3. the runs ---------------------------------------------------------------------------------

WORK="$(mktemp -d "${TMPDIR:-/tmp}/arbiter-fastchess.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# Wall-clock time in seconds with microseconds (bash 5 reads it without starting a process).
now() {
    if [ -n "${EPOCHREALTIME:-}" ]; then echo "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi
}

# The command of each measured configuration, as an array named CMD; run in directory $1.
set_command() {
    local config="$1" dir="$2"
    case "$config" in
        fastchess-*)
            CMD=("$FC_BIN" -engine "cmd=$ENGINE" name=instant-a -engine "cmd=$ENGINE" name=instant-b
                -each tc=10+0.1 proto=uci)
            if [ "$config" = fastchess-restart ]; then CMD+=(restart=on); fi
            CMD+=(-rounds $((GAMES / 2)) -games 2 -concurrency 1 -pgnout "file=$dir/games.pgn")
            if [ "$config" = fastchess-affinity ]; then CMD+=(-use-affinity); fi
            ;;
        arbiter-pinned | arbiter-kernel)
            CMD=("$ARBITER" tournament "first-a=$BOT" "first-b=$BOT" --games "$GAMES" --concurrency 1
                --seed 1 --out "$dir/results")
            if [ "$config" = arbiter-kernel ]; then CMD+=(--pin-cpus=never); fi
            ;;
    esac
}

# The file each tool appends (and flushes) when a game ends: its last change is the last game's end.
record_file() {
    case "$1" in
        fastchess-*) echo "$2/games.pgn" ;;
        arbiter-*) echo "$2/results/games.csv" ;;
    esac
}

# Plies and games of a finished run in $2 of configuration $1, as "plies games problems".
count_plies() {
    local config="$1" dir="$2"
    case "$config" in
        fastchess-*)
            awk '
                /^\[PlyCount "/ { gsub(/[^0-9]/, ""); plies += $0 }
                /^\[Result "/ { games++ }
                /^\[Termination "/ && !/"normal"/ && !/"adjudication"/ { bad++ }
                END { printf "%d %d %d\n", plies, games, bad }
            ' "$dir/games.pgn"
            ;;
        arbiter-*)
            # games.csv: find the "turns" and "forfeits" columns by name; fields may be quoted.
            awk '
                function split_csv(line,    i, c, f, quoted, n) {
                    n = 0; f = ""; quoted = 0
                    for (i = 1; i <= length(line); i++) {
                        c = substr(line, i, 1)
                        if (quoted) {
                            if (c == "\"") {
                                if (substr(line, i + 1, 1) == "\"") { f = f c; i++ } else quoted = 0
                            } else f = f c
                        } else if (c == "\"") quoted = 1
                        else if (c == ",") { field[++n] = f; f = "" }
                        else f = f c
                    }
                    field[++n] = f
                    return n
                }
                NR == 1 {
                    n = split_csv($0)
                    for (i = 1; i <= n; i++) { if (field[i] == "turns") t = i; if (field[i] == "forfeits") fo = i }
                    next
                }
                {
                    split_csv($0); plies += field[t]; games++
                    if (field[fo] != "") bad++
                }
                END { if (!t) exit 1; printf "%d %d %d\n", plies, games, bad }
            ' "$dir/results/games.csv"
            ;;
    esac
}

CONFIGS=(fastchess-affinity fastchess-kernel arbiter-pinned arbiter-kernel)
if [ "$RESTART" = 1 ]; then CONFIGS+=(fastchess-restart); fi
# Per configuration and repeat: whole-run seconds, seconds to the last game's end, plies.
declare -A RUN_S GAMES_S CPU_S PLIES NGAMES COMMAND_TEXT
TIMEFORMAT='%3U %3S'

# seconds / plies in microseconds, two decimals.
per_ply() {
    awk -v s="$1" -v p="$2" 'BEGIN { printf "%.2f", s * 1e6 / p }'
}

LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
for rep in $(seq 1 "$REPEATS"); do
    for config in "${CONFIGS[@]}"; do
        dir="$WORK/$config-$rep"
        mkdir -p "$dir"
        set_command "$config" "$dir"
        COMMAND_TEXT[$config]="$(printf '%q ' "${CMD[@]}")"
        log "run $rep/$REPEATS: $config, $GAMES games"
        start=$(now)
        # fastchess writes its autosave file into the working directory: give it the run's own.
        # bash's `time` adds the CPU time of the tool and of every bot process it waited for.
        if ! { time (cd "$dir" && "${CMD[@]}" </dev/null >"$dir/out.log" 2>&1); } 2>"$dir/time.txt"; then
            tail -n 20 "$dir/out.log" >&2
            die "$config failed (command: ${COMMAND_TEXT[$config]})"
        fi
        end=$(now)
        last_game=$(stat -c %.9Y "$(record_file "$config" "$dir")")
        read -r plies games bad < <(count_plies "$config" "$dir") || die "$config: cannot count plies"
        [ "$games" = "$GAMES" ] || die "$config played $games games, not $GAMES"
        [ "$plies" -gt 0 ] || die "$config: no plies recorded"
        [ "$bad" = 0 ] || log "warning: $config had $bad games ending abnormally (forfeit, time, crash)"
        CPU_S[$config,$rep]=$(awk '{ printf "%.3f", $1 + $2 }' "$dir/time.txt")
        RUN_S[$config,$rep]=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
        GAMES_S[$config,$rep]=$(awk -v a="$start" -v b="$last_game" 'BEGIN { printf "%.3f", b - a }')
        PLIES[$config,$rep]=$plies
        NGAMES[$config]=$games
        log "  $plies plies; whole run ${RUN_S[$config,$rep]} s ($(per_ply "${RUN_S[$config,$rep]}" "$plies") µs/ply); to the last game's end ${GAMES_S[$config,$rep]} s ($(per_ply "${GAMES_S[$config,$rep]}" "$plies") µs/ply); CPU ${CPU_S[$config,$rep]} s"
    done
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"

# Median of the numbers given as arguments.
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
        if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# --- 4. the report -------------------------------------------------------------------------------

declare -A MED_RUN MED_GAMES MED_CPU MED_PLIES US_RUN US_GAMES US_CPU EACH_RUN
for config in "${CONFIGS[@]}"; do
    r=() g=() c=() p=() u=()
    for rep in $(seq 1 "$REPEATS"); do
        r+=("${RUN_S[$config,$rep]}") g+=("${GAMES_S[$config,$rep]}") c+=("${CPU_S[$config,$rep]}")
        p+=("${PLIES[$config,$rep]}")
        u+=("$(per_ply "${RUN_S[$config,$rep]}" "${PLIES[$config,$rep]}")")
    done
    MED_RUN[$config]=$(median "${r[@]}")
    MED_GAMES[$config]=$(median "${g[@]}")
    MED_CPU[$config]=$(median "${c[@]}")
    # Both programs are deterministic, so every repeat plays the same plies and the median time
    # over them is the median per-ply figure.
    MED_PLIES[$config]=${p[0]}
    for plies in "${p[@]}"; do
        [ "$plies" = "${p[0]}" ] || log "warning: $config played ${p[*]} plies in its repeats; per-ply figures use ${p[0]}"
    done
    US_RUN[$config]=$(per_ply "${MED_RUN[$config]}" "${MED_PLIES[$config]}")
    US_GAMES[$config]=$(per_ply "${MED_GAMES[$config]}" "${MED_PLIES[$config]}")
    US_CPU[$config]=$(per_ply "${MED_CPU[$config]}" "${MED_PLIES[$config]}")
    EACH_RUN[$config]="${u[*]}"
done

placement() {
    case "$1" in
        fastchess-affinity) echo "-use-affinity" ;;
        fastchess-kernel) echo "kernel (default)" ;;
        fastchess-restart) echo "kernel, restart=on" ;;
        arbiter-pinned) echo "pinned (default)" ;;
        arbiter-kernel) echo "kernel (--pin-cpus=never)" ;;
    esac
}

# Ratio of the per-ply figures in array $1 for configurations $2 / $3.
ratio() {
    local -n figures="$1"
    awk -v a="${figures[$2]}" -v b="${figures[$3]}" 'BEGIN { printf "%.1f", a / b }'
}

cpu_model="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)"
echo
echo "arbiter beside fastchess: one game at a time between two copies of an instant program,"
echo "medians of $REPEATS runs of $GAMES games each"
echo "date:      $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine:   $(uname -srm), ${cpu_model:-unknown CPU}, $(nproc) CPUs"
echo "load:      $LOAD_BEFORE before, $LOAD_AFTER after (1, 5, 15 min averages)"
echo "versions:  fastchess commit $FC_COMMIT; arbiter commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
row() {
    printf '%-9s %-25s %5s %7s %8s %8s %8s %8s %8s\n' "$@"
}
row tool placement games plies "run s" "µs/ply" "to end s" "µs/ply" "CPU/ply"
for config in "${CONFIGS[@]}"; do
    row "${config%%-*}" "$(placement "$config")" "${NGAMES[$config]}" "${MED_PLIES[$config]}" \
        "${MED_RUN[$config]}" "${US_RUN[$config]}" "${MED_GAMES[$config]}" "${US_GAMES[$config]}" \
        "${US_CPU[$config]}"
done
echo
echo "µs/ply of each whole run, in order:"
for config in "${CONFIGS[@]}"; do
    printf '  %-36s %s\n' "${config%%-*} $(placement "$config")" "${EACH_RUN[$config]// /, }"
done
echo
ratios() {
    printf '%-8s %-8s %-8s' "$(ratio US_RUN "$1" "$2")x" "$(ratio US_GAMES "$1" "$2")x" "$(ratio US_CPU "$1" "$2")x"
}
echo "fastchess / arbiter, per ply:            run      to end   CPU"
echo "  both pinned (-use-affinity / default): $(ratios fastchess-affinity arbiter-pinned)"
echo "  both placed by the kernel:             $(ratios fastchess-kernel arbiter-kernel)"
echo "  each tool's default (kernel / pinned): $(ratios fastchess-kernel arbiter-pinned)"
if [ "$RESTART" = 1 ]; then
    echo "  kernel, new processes every game:      $(ratios fastchess-restart arbiter-kernel)"
fi
echo
echo "\"run s\" is the command's wall time; \"to end s\" stops at the last game's end (the last change of the"
echo "file each tool appends after every game: games.pgn, games.csv), leaving out what follows the"
echo "games (fastchess polls for the end once a second and waits for its engines to exit; arbiter"
echo "rates the field and writes its reports). Both include each tool's start-up and the start and"
echo "end of every game, spread over its plies: the chess games here last"
echo "$((MED_PLIES[fastchess-kernel] / GAMES)) plies, the Impasse games $((MED_PLIES[arbiter-pinned] / GAMES)). fastchess keeps its two engines running from"
echo "game to game (its default); arbiter starts two fresh bot processes for every game. \"CPU\" is"
echo "the user and system time of the tool and its bots (bash's time): it does not count waiting,"
echo "so it moves less than wall time when other work shares the machine."
echo
echo "commands (each run in a directory of its own; DIR stands for it):"
for config in "${CONFIGS[@]}"; do
    echo "  ${COMMAND_TEXT[$config]//$WORK\/$config-$REPEATS/DIR}"
done
