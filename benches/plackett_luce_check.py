#!/usr/bin/env python3
"""Independent check values for the Plackett-Luce unit test (src/rating/plackett_luce_tests.rs).

Written without the crate's formulas: the log-likelihood of a game enumerates every order of
each tied group with itertools and averages their log-probabilities (the crate instead sums
over subsets), and the maximum and the information come from numerical derivatives (central
differences) with plain Newton steps, bot 0 held at 0. Centred ratings and their covariance
follow by the linear map beta -> beta - mean(beta).

Prints ratings (Elo, centred on mean 0) and standard errors (Elo), and the same with bot 3
anchored. Run: python3 benches/plackett_luce_check.py
"""
import itertools
import math

# (bots by seat, place by seat); 0 = first, equal places tie.
GAMES = [
    ([0, 1, 2, 3], [0, 1, 2, 3]),
    ([1, 2, 3, 0], [0, 1, 2, 3]),
    ([2, 0, 3, 1], [0, 1, 1, 2]),
    ([3, 1, 0, 2], [0, 1, 2, 3]),
    ([0, 2, 1, 3], [0, 0, 1, 2]),
    ([0, 1, 2, 3], [1, 0, 3, 2]),
    ([3, 2, 1, 0], [0, 1, 2, 2]),
    ([0, 2, 3], [2, 0, 1]),
]
N = 4
ELO = 400.0 / math.log(10.0)


def order_logp(order, beta):
    total = 0.0
    for k in range(len(order)):
        rest = order[k:]
        total += beta[order[k]] - math.log(sum(math.exp(beta[j]) for j in rest))
    return total


def game_ll(bots, ranks, beta):
    places = sorted(set(ranks))
    groups = [[b for b, r in zip(bots, ranks) if r == p] for p in places]
    orders = [[]]
    for g in groups:
        orders = [o + list(p) for o in orders for p in itertools.permutations(g)]
    return sum(order_logp(o, beta) for o in orders) / len(orders)


def ll(free):
    beta = [0.0] + list(free)
    return sum(game_ll(b, r, beta) for b, r in GAMES)


def grad_hess(x, h=1e-4):
    m = len(x)
    g = [0.0] * m
    H = [[0.0] * m for _ in range(m)]
    f0 = ll(x)
    for i in range(m):
        e = [h if k == i else 0.0 for k in range(m)]
        fp = ll([a + b for a, b in zip(x, e)])
        fm = ll([a - b for a, b in zip(x, e)])
        g[i] = (fp - fm) / (2 * h)
        H[i][i] = (fp - 2 * f0 + fm) / (h * h)
        for j in range(i):
            vals = []
            for si, sj in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                y = list(x)
                y[i] += si * h
                y[j] += sj * h
                vals.append(si * sj * ll(y))
            H[i][j] = H[j][i] = sum(vals) / (4 * h * h)
    return g, H


def inverse(a):
    m = len(a)
    aug = [list(row) + [1.0 if i == j else 0.0 for j in range(m)] for i, row in enumerate(a)]
    for c in range(m):
        p = max(range(c, m), key=lambda r: abs(aug[r][c]))
        aug[c], aug[p] = aug[p], aug[c]
        piv = aug[c][c]
        aug[c] = [v / piv for v in aug[c]]
        for r in range(m):
            if r != c:
                f = aug[r][c]
                aug[r] = [v - f * w for v, w in zip(aug[r], aug[c])]
    return [row[m:] for row in aug]


x = [0.0] * (N - 1)
for _ in range(30):
    g, H = grad_hess(x)
    step = [sum(-inverse(H)[i][j] * g[j] for j in range(N - 1)) for i in range(N - 1)]
    x = [a + b for a, b in zip(x, step)]
    if max(abs(s) for s in step) < 1e-12:
        break
g, H = grad_hess(x)
cov_free = inverse([[-v for v in row] for row in H])  # covariance of beta_1..3 with beta_0 = 0
beta = [0.0] + x
mean = sum(beta) / N
# centred_i = beta_i - mean(beta) = sum_k T[i][k] free_k
T = [[(1.0 if i == k + 1 else 0.0) - 1.0 / N for k in range(N - 1)] for i in range(N)]
cov_c = [[sum(T[i][a] * cov_free[a][b] * T[j][b] for a in range(N - 1) for b in range(N - 1))
          for j in range(N)] for i in range(N)]
print("max |gradient| = %.2e" % max(abs(v) for v in g))
print("centred:")
for i in range(N):
    print("  bot %d: elo %.6f  se %.6f" % (i, ELO * (beta[i] - mean), ELO * math.sqrt(cov_c[i][i])))
print("anchored on bot 3 (errors relative to it):")
for i in range(N):
    var = cov_c[i][i] + cov_c[3][3] - 2 * cov_c[i][3]
    print("  bot %d: elo %.6f  se %.6f" % (i, ELO * (beta[i] - beta[3]), ELO * math.sqrt(max(var, 0.0))))
for i, j in ((0, 1), (1, 2)):
    var = cov_c[i][i] + cov_c[j][j] - 2 * cov_c[i][j]
    z = (beta[i] - beta[j]) / math.sqrt(var)
    print("  LOS(%d > %d) = %.6f" % (i, j, 0.5 * (1 + math.erf(z / math.sqrt(2)))))
