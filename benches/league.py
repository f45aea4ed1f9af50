#!/usr/bin/env python3
"""What a league costs, measured against a floor in the same run (docs/league.md):

1. games/s of `arbiter league serve` with W local workers (from its 10th game on) against
   `arbiter tournament` of the same bots with --concurrency W (the floor: the time of G games
   less that of a tournament of 10, so that neither counts its start), over G games, run after
   run alternating;
2. the server's memory (VmRSS) after those games and after loading a league of many games;
3. the time to serve /api/standings at B bots (a generated games.csv of G games among them);
4. a restart of a league that played N games (its records among them) against a first start:
   memory, peak and the time to the first standings (--restart-games 10000,100000).

Usage: benches/league.py [--arbiter target/release/arbiter] [--games 400] [--workers 2]
                         [--bots 1000] [--field-games 100000] [--runs 3]
Prints figures and ratios; bounded in games and time; talks to 127.0.0.1 only.
"""
import argparse, json, os, random, resource, shutil, subprocess, sys, tempfile, time, urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("--arbiter", default="target/release/arbiter")
ap.add_argument("--games", type=int, default=400)
ap.add_argument("--workers", type=int, default=2)
ap.add_argument("--bots", type=int, default=1000)
ap.add_argument("--field-games", type=int, default=100000)
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--restart-games", default="10000,100000",
                help="played games (with their records) of the folders a restart is measured on")
a = ap.parse_args()
arb = os.path.abspath(a.arbiter)
bindir = os.path.dirname(arb)
bots = [f"random={bindir}/arbiter-bot-random", f"first={bindir}/arbiter-bot-first"]
tmp = tempfile.mkdtemp(prefix="league-bench-")


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def get(url):
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read()


def serve(folder, extra):
    p = subprocess.Popen([arb, "league", "serve", folder, "--listen", "127.0.0.1:0",
                          "--game", "impasse", "--seed", "5"] + extra,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    url = next(w for w in line.split() if w.startswith("http://"))
    return p, url


# 1. The floor: a tournament of the same bots, about the same number of games; then the league.
# Run after run, alternating, so that load from elsewhere falls on both alike.
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    """CPU seconds of a process and of its children it has reaped (the bots)."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in f[11:15]) / TICK


def children_cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def tournament_time(run, games):
    t0, c0 = time.monotonic(), children_cpu_s()
    subprocess.run([arb, "tournament", *bots, "--game", "impasse", "--games", str(games),
                    "--concurrency", str(a.workers), "--seed", str(5 + run), "--out",
                    f"{tmp}/t{run}-{games}"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t0, children_cpu_s() - c0


def tournament_rate(run):
    # The league is timed from its 10th game on (its bots built and checked): the tournament's
    # start and end (checking the bots, the report) are taken off as the time of one of 10 games.
    # Also CPU seconds a game (arbiter's and the bots'), which load from elsewhere moves less.
    fixed, fixed_cpu = tournament_time(run, 10)
    wall, cpu = tournament_time(run, a.games)
    return (a.games - 10) / (wall - fixed), (cpu - fixed_cpu) / (a.games - 10)


def league_rate(run):
    p, url = serve(f"{tmp}/l{run}", ["--local-workers", str(a.workers)] + bots)
    start_games, t0 = None, None
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        n = json.loads(get(url + "/api/standings"))["games"]
        if start_games is None and n >= 10:  # bots built and checked: time from here
            start_games, t0, c0 = n, time.monotonic(), cpu_s(p.pid)
        if start_games is not None and n - start_games >= a.games:
            break
        time.sleep(0.05)
    rate = (n - start_games) / (time.monotonic() - t0)
    cpu = (cpu_s(p.pid) - c0) / (n - start_games)
    rss = rss_kib(p.pid)
    p.kill(); p.wait()
    return rate, cpu, rss, n


floors, rates, ratios, cpu_ratios = [], [], [], []
for run in range(a.runs):
    floor, floor_cpu = tournament_rate(run)
    rate, cpu, rss_after, n = league_rate(run)
    floors.append(floor); rates.append(rate); ratios.append(rate / floor)
    cpu_ratios.append(cpu / floor_cpu)
    print(f"run {run + 1}: games/s tournament --concurrency {a.workers}: {floor:.1f}   league "
          f"--local-workers {a.workers}: {rate:.1f}   league/tournament = {rate / floor:.3f}   "
          f"CPU ms a game {floor_cpu * 1000:.1f} / {cpu * 1000:.1f} = {cpu / floor_cpu:.3f}   "
          f"server memory after {n} games: {rss_after / 1024:.1f} MiB", flush=True)
med = lambda xs: sorted(xs)[len(xs) // 2]
print(f"median of {a.runs}: tournament {med(floors):.1f} games/s, league {med(rates):.1f} games/s, "
      f"league/tournament = {med(ratios):.3f}; CPU a game league/tournament = "
      f"{med(cpu_ratios):.3f}", flush=True)

# 2-3. A league of many bots and games, from a generated games.csv: /api/standings.
folder = f"{tmp}/big"
shutil.copytree(f"{tmp}/l0", folder, ignore=shutil.ignore_patterns("games.csv", "records.jsonl",
                                                                  "schedule.jsonl", "bots.toml",
                                                                  "server.json", ".lock"))
rng = random.Random(1)
strength = [rng.gauss(0, 1) for _ in range(a.bots)]
# The games go through the records (games.csv, the ratings) and the schedule log (the
# scheduler restores each as played), as a server that played them finds them at a restart.
with open(f"{folder}/games.csv", "w") as f, open(f"{folder}/schedule.jsonl", "w") as sched:
    f.write("game_id,pair_id,seed,opening,bot0,bot1,winner,rank0,rank1,reason,turns\n")
    for g in range(a.field_games):
        if g % 2 == 0:  # a table: two games on one seed, seats swapped
            x = rng.randrange(a.bots)
            y = (x + 1 + min(int(abs(rng.gauss(0, 20))), a.bots - 2)) % a.bots
        else:
            x, y = y, x
        win = 0 if rng.random() < 1 / (1 + 10 ** ((strength[y] - strength[x]) * 0.5)) else 1
        f.write(f"{g},{g // 2},{g // 2},,b{x},b{y},{win},{win},{1 - win},win,10\n")
        sched.write(json.dumps({"game_id": g, "pair_id": g // 2, "seed": g // 2,
                                "bots": [f"b{x}", f"b{y}"]}) + "\n")
t0 = time.monotonic()
p, url = serve(folder, ["--local-workers", "0"])
deadline = time.monotonic() + 600
while json.loads(get(url + "/api/standings"))["games"] < a.field_games:
    assert time.monotonic() < deadline, "the fit did not come"
    time.sleep(0.2)
fitted = time.monotonic() - t0
times = []
for _ in range(21):
    t0 = time.monotonic()
    body = get(url + "/api/standings")
    times.append(time.monotonic() - t0)
times.sort()
print(f"/api/standings at {a.bots} bots, {a.field_games} games: median "
      f"{times[len(times) // 2] * 1000:.2f} ms ({len(body) / 1024:.0f} KiB); "
      f"server memory {rss_kib(p.pid) / 1024:.1f} MiB; start to first standings {fitted:.1f} s")
p.kill(); p.wait()

# 4. A restart of a league that played N games (games.csv, schedule.jsonl and records.jsonl of
# N real games: the first run's, copied under new ids), against the floor of a first start of
# the same bots: the server's memory (now and at its peak) and the time to its first standings.
def vm(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def first_standings(p, url, games):
    t0 = time.monotonic()
    deadline = t0 + 900
    while json.loads(get(url + "/api/standings"))["games"] < games:
        assert time.monotonic() < deadline, "the standings did not come"
        time.sleep(0.1)
    return time.monotonic() - t0


l0 = f"{tmp}/l0"
rows = open(f"{l0}/games.csv").read().splitlines()
header, rows = rows[0], [r for r in rows[1:] if r]
records = [line for line in open(f"{l0}/records.jsonl").read().splitlines() if line]
sched = [line for line in open(f"{l0}/schedule.jsonl").read().splitlines() if line]
by_id = {json.loads(r)["game_id"]: r for r in records}
plays = [(r, by_id[int(r.split(",")[0])]) for r in rows if int(r.split(",")[0]) in by_id]
sched_of = {json.loads(x)["game_id"]: json.loads(x) for x in sched}
fresh = f"{tmp}/fresh"
t0 = time.monotonic()
p, url = serve(fresh, ["--local-workers", "0"] + bots)
first_standings(p, url, 0)
first_s = time.monotonic() - t0
floor_rss, floor_hwm = vm(p.pid, "VmRSS"), vm(p.pid, "VmHWM")
p.kill(); p.wait()
print(f"first start of a league of the same bots: memory {floor_rss / 1024:.1f} MiB "
      f"(peak {floor_hwm / 1024:.1f} MiB), start to first standings {first_s:.1f} s", flush=True)
for n in [int(x) for x in a.restart_games.split(",") if x]:
    folder = f"{tmp}/restart-{n}"
    shutil.copytree(l0, folder, ignore=shutil.ignore_patterns(
        "games.csv", "records.jsonl", "records.index", "schedule.jsonl", "server.json", ".lock",
        "cancelled.jsonl", "sprt.jsonl"))
    with open(f"{folder}/games.csv", "w") as g, open(f"{folder}/records.jsonl", "w") as r, \
            open(f"{folder}/schedule.jsonl", "w") as sc:
        g.write(header + "\n")
        for k in range(n):
            row, rec = plays[k % len(plays)]
            old_id = int(row.split(",")[0])
            old_pair = int(row.split(",")[1])
            pair = (k // 2)
            cells = row.split(",")
            cells[0], cells[1] = str(k), str(pair)
            g.write(",".join(cells) + "\n")
            rec = rec.replace(f'"game_id":{old_id},', f'"game_id":{k},', 1)
            rec = rec.replace(f'"pair_id":{old_pair},', f'"pair_id":{pair},', 1)
            r.write(rec + "\n")
            entry = dict(sched_of.get(old_id, {"bots": []}))
            entry["game_id"], entry["pair_id"] = k, pair
            sc.write(json.dumps(entry) + "\n")
    size = os.path.getsize(f"{folder}/records.jsonl")
    t0 = time.monotonic()
    p, url = serve(folder, ["--local-workers", "0"])
    first_standings(p, url, n)
    took = time.monotonic() - t0
    rss, hwm = vm(p.pid, "VmRSS"), vm(p.pid, "VmHWM")
    # A replay page of a game reads its record through the index.
    page = get(url + f"/replay/{n // 2}")
    p.kill(); p.wait()
    print(f"restart of a league of {n} played games (records.jsonl {size / 2**20:.0f} MiB): "
          f"memory {rss / 1024:.1f} MiB (peak {hwm / 1024:.1f} MiB) = first start + "
          f"{(rss - floor_rss) / 1024:.1f} MiB; start to first standings {took:.1f} s; "
          f"a replay page {len(page) / 1024:.0f} KiB", flush=True)
    shutil.rmtree(folder)
shutil.rmtree(tmp)
