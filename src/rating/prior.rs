//! Who is rated and whether the virtual-draw prior applies: the part of a field fit decided
//! before its likelihood is built, shared by the Bradley-Terry and Plackett-Luce fits (the rules
//! are described in [`crate::rating::field`]). It also turns a pairwise table into the
//! likelihood's pair terms, virtual draws included.

use crate::rating::cross_table::CrossTable;
use crate::rating::note::FitNote;
use crate::rating::options::FitOptions;

/// Who is fitted and whether the prior applies: the part of a fit decided before the
/// likelihood is built.
pub(crate) struct FitPlan {
    /// Fitted bots, ascending (field indices).
    pub(crate) main: Vec<usize>,
    /// Field index -> index in `main` (`usize::MAX` outside it).
    pub(crate) local: Vec<usize>,
    /// Virtual draws per bot, when applied.
    pub(crate) prior: Option<f64>,
    pub(crate) perfect_scores: FitNote,
    /// Largest game count of a fitted bot.
    pub(crate) most_games: f64,
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// Whether every fitted bot reaches every other along "scored against" edges (a -> b when a
/// took points from b) and back.
fn strongly_connected(table: &CrossTable, plan_local: &[usize], m: usize) -> bool {
    if m <= 1 {
        return true;
    }
    let mut forward: Vec<Vec<u32>> = vec![Vec::new(); m];
    let mut backward: Vec<Vec<u32>> = vec![Vec::new(); m];
    for (a, b, w) in table.pairs() {
        let (la, lb) = (plan_local[a], plan_local[b]);
        if la == usize::MAX || lb == usize::MAX {
            continue;
        }
        if w.points() > 0.0 {
            forward[la].push(lb as u32);
            backward[lb].push(la as u32);
        }
        if w.points() < w.games() as f64 {
            forward[lb].push(la as u32);
            backward[la].push(lb as u32);
        }
    }
    let reaches_all = |adj: &[Vec<u32>]| {
        let mut seen = vec![false; m];
        let mut stack = vec![0u32];
        seen[0] = true;
        let mut count = 1;
        while let Some(x) = stack.pop() {
            for &y in &adj[x as usize] {
                if !seen[y as usize] {
                    seen[y as usize] = true;
                    count += 1;
                    stack.push(y);
                }
            }
        }
        count == m
    };
    reaches_all(&forward) && reaches_all(&backward)
}

/// Chooses the fitted group and decides on the prior.
pub(crate) fn plan(table: &CrossTable, options: &FitOptions) -> FitPlan {
    let n = table.len();
    let mut parent: Vec<usize> = (0..n).collect();
    for (a, b, _) in table.pairs() {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let roots: Vec<usize> = (0..n).map(|i| find(&mut parent, i)).collect();
    let mut size = vec![0usize; n];
    for i in (0..n).filter(|&i| table.totals(i).games() > 0) {
        size[roots[i]] += 1;
    }
    let anchor_root = options.anchor.and_then(|(b, _)| roots.get(b).copied());
    // Roots are the lowest index of their group, so the last maximum in reverse index order is
    // the lowest-index group among equals.
    let best = (0..n)
        .filter(|&r| size[r] > 0)
        .max_by_key(|&r| (size[r], anchor_root == Some(r), std::cmp::Reverse(r)));
    let main: Vec<usize> = match best {
        Some(r) => (0..n)
            .filter(|&i| roots[i] == r && table.totals(i).games() > 0)
            .collect(),
        None => Vec::new(),
    };
    let mut local = vec![usize::MAX; n];
    for (k, &i) in main.iter().enumerate() {
        local[i] = k;
    }
    let most_games = main
        .iter()
        .map(|&i| table.totals(i).games() as f64)
        .fold(1.0, f64::max);
    let prior_draws = if options.prior_draws > 0.0 && options.prior_draws.is_finite() {
        options.prior_draws
    } else {
        FitOptions::default().prior_draws
    };
    let needed = !strongly_connected(table, &local, main.len());
    let prior = (needed || options.prior_always).then_some(prior_draws);
    let spread = format!(
        "{} virtual draws, spread over its opponents by games played, as BayesElo's weak prior does",
        fmt_count(prior_draws)
    );
    let perfect_scores = if needed {
        let mut perfect: Vec<FitNote> = Vec::new();
        for &i in &main {
            let t = table.totals(i);
            if t.losses == 0 && t.draws == 0 {
                perfect.push(FitNote::bot(i).then(" won every game"));
            } else if t.wins == 0 && t.draws == 0 {
                perfect.push(FitNote::bot(i).then(" lost every game"));
            }
        }
        let who = match perfect.len() {
            0 => FitNote::text("a group of bots won every game against the rest of the field"),
            k if k <= 3 => FitNote::join(&perfect, ", "),
            k => FitNote::join(&perfect[..3], ", ")
                .then(format!(" and {} more bots with perfect scores", k - 3)),
        };
        who.then(format!(": no finite plain fit, so each bot gets {spread}; fields without perfect scores get the plain fit"))
    } else if options.prior_always {
        FitNote::text(format!("none; each bot gets {spread}, as requested"))
    } else {
        FitNote::text(format!(
            "none: plain maximum-likelihood fit (with perfect scores, each bot would get {spread})"
        ))
    };
    FitPlan {
        main,
        local,
        prior,
        perfect_scores,
        most_games,
    }
}

fn fmt_count(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

/// One pair's data for a pairwise likelihood term: `games` between local bots i and j of which
/// i scored `points` (virtual draws included).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PairTerm {
    pub(crate) i: u32,
    pub(crate) j: u32,
    pub(crate) games: f64,
    pub(crate) points: f64,
}

/// The pairwise terms of the fitted group: the real results when `results` is set, plus the
/// virtual draws of the plan's prior.
pub(crate) fn pair_terms(table: &CrossTable, plan: &FitPlan, results: bool) -> Vec<PairTerm> {
    let mut terms = Vec::new();
    for (a, b, w) in table.pairs() {
        let (i, j) = (plan.local[a], plan.local[b]);
        if i == usize::MAX || j == usize::MAX {
            continue;
        }
        let g = w.games() as f64;
        let (mut games, mut points) = if results { (g, w.points()) } else { (0.0, 0.0) };
        if let Some(p) = plan.prior {
            let ga = table.totals(a).games() as f64;
            let gb = table.totals(b).games() as f64;
            let virtual_draws = p / 2.0 * g * (1.0 / ga + 1.0 / gb);
            games += virtual_draws;
            points += virtual_draws / 2.0;
        }
        if games > 0.0 {
            terms.push(PairTerm {
                i: i as u32,
                j: j as u32,
                games,
                points,
            });
        }
    }
    // In index order, so the sums repeat exactly and the information matrix is built from a
    // sorted list.
    terms.sort_unstable_by_key(|t| (t.i, t.j));
    terms
}
