#!/usr/bin/env python3
"""What a league costs, measured against a floor in the same run (docs/league.md):

1. games/s of `arbiter league serve` with W local workers against `arbiter tournament` of the
   same bots with --concurrency W (the floor), over about the same number of games;
2. the server's memory (VmRSS) after those games and after loading a league of many games;
3. the time to serve /api/standings at B bots (a generated games.csv of G games among them).

Usage: benches/league.py [--arbiter target/release/arbiter] [--games 400] [--workers 2]
                         [--bots 1000] [--field-games 100000]
Prints figures and ratios; bounded in games and time; talks to 127.0.0.1 only.
"""
import argparse, json, os, random, shutil, subprocess, sys, tempfile, time, urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("--arbiter", default="target/release/arbiter")
ap.add_argument("--games", type=int, default=400)
ap.add_argument("--workers", type=int, default=2)
ap.add_argument("--bots", type=int, default=1000)
ap.add_argument("--field-games", type=int, default=100000)
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


# 1. The floor: a tournament of the same bots, about the same number of games.
per_pair = a.games
t0 = time.monotonic()
subprocess.run([arb, "tournament", *bots, "--games", str(per_pair), "--concurrency",
                str(a.workers), "--seed", "5", "--out", f"{tmp}/t"],
               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
floor = per_pair / (time.monotonic() - t0)

p, url = serve(f"{tmp}/l", ["--local-workers", str(a.workers)] + bots)
start_games, t0 = None, None
deadline = time.monotonic() + 600
while time.monotonic() < deadline:
    n = json.loads(get(url + "/api/standings"))["games"]
    if start_games is None and n >= 10:  # bots built and checked: time from here
        start_games, t0 = n, time.monotonic()
    if start_games is not None and n - start_games >= a.games:
        break
    time.sleep(0.05)
league_rate = (n - start_games) / (time.monotonic() - t0)
rss_after = rss_kib(p.pid)
p.kill(); p.wait()
print(f"games/s  tournament --concurrency {a.workers}: {floor:.1f}   league --local-workers "
      f"{a.workers}: {league_rate:.1f}   league/tournament = {league_rate / floor:.3f}")
print(f"server memory after {n} games: {rss_after / 1024:.1f} MiB")

# 2-3. A league of many bots and games, from a generated games.csv: /api/standings.
folder = f"{tmp}/big"
shutil.copytree(f"{tmp}/l", folder, ignore=shutil.ignore_patterns("games.csv", "records.jsonl",
                                                                  "schedule.jsonl", "bots.toml",
                                                                  "server.json", ".lock"))
rng = random.Random(1)
strength = [rng.gauss(0, 1) for _ in range(a.bots)]
with open(f"{folder}/games.csv", "w") as f:
    f.write("game_id,pair_id,seed,opening,bot0,bot1,winner,rank0,rank1,reason,turns\n")
    for g in range(a.field_games):
        x = rng.randrange(a.bots)
        y = (x + 1 + min(int(abs(rng.gauss(0, 20))), a.bots - 2)) % a.bots
        win = 0 if rng.random() < 1 / (1 + 10 ** ((strength[y] - strength[x]) * 0.5)) else 1
        f.write(f"{g},{g // 2},1,,b{x},b{y},{win},{win},{1 - win},win,10\n")
p, url = serve(folder, ["--local-workers", "0"])
deadline = time.monotonic() + 600
while json.loads(get(url + "/api/standings"))["games"] < a.field_games:
    assert time.monotonic() < deadline, "the fit did not come"
    time.sleep(0.2)
times = []
for _ in range(21):
    t0 = time.monotonic()
    body = get(url + "/api/standings")
    times.append(time.monotonic() - t0)
times.sort()
print(f"/api/standings at {a.bots} bots, {a.field_games} games: median "
      f"{times[len(times) // 2] * 1000:.2f} ms ({len(body) / 1024:.0f} KiB); "
      f"server memory {rss_kib(p.pid) / 1024:.1f} MiB")
p.kill(); p.wait()
shutil.rmtree(tmp)
