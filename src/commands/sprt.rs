//! `arbiter sprt NEW OLD`: plays pairs of games (same seed and opening, seats swapped) until the
//! sequential probability ratio test on the pentanomial pair scores accepts H0 or H1.

use super::tournament::{claim_folder, prepare_bots, settings_and_dir};
use crate::cli::{self, SprtArgs};
use anyhow::{bail, Context, Result};
use arbiter::engine::settings::{Recorded, SprtSettings as Settings};
use arbiter::engine::sprt::SprtFollower;
use arbiter::rating::{Decision, EloEstimate, PairCounter, SprtParams};
use arbiter::report::{self, sprt_block};
use arbiter::results::games_csv::GamesCsv;
use arbiter::tournament::{schedule, Finished, Format, Runner};
use std::io::Write;
use std::ops::ControlFlow;
use std::process::ExitCode;

pub fn run(args: SprtArgs, given: &crate::cli::Given) -> Result<ExitCode> {
    super::tournament::check_resume_options(given, args.resume.as_ref(), Settings::FILE)?;
    let (settings, out, resuming) = settings_and_dir(
        args.resume.as_ref(),
        args.out.as_ref(),
        "sprt",
        args.run.seed.is_some(),
        || {
            if args.max_pairs == 0 {
                bail!("--max-pairs must be at least 1");
            }
            args.game
                .check_run(args.run.opening_plies, args.run.openings.as_deref())?;
            Ok(Settings {
                new: args.new.clone().unwrap_or_default(),
                old: args.old.clone().unwrap_or_default(),
                workdir: std::env::current_dir()?,
                max_pairs: args.max_pairs,
                opening_plies: args.run.opening_plies,
                openings: super::tournament::openings_of(&args.run, &args.game)?,
                seed: args.run.seed.unwrap_or_else(cli::fresh_seed),
                sprt: (&args.sprt).into(),
                game: args.game.clone().into(),
            })
        },
    )?;
    let params = settings.sprt.params()?;
    let out = std::path::absolute(&out)?;
    let _lock = claim_folder(&out)?;
    let choice = settings.game.choice()?;
    let book = settings.openings.book(&choice, settings.seed)?;
    if choice.seats != 2 {
        bail!(
            "an SPRT compares two bots in two-seat games; {} is played by {} seats here \
             (use `arbiter tournament --format gauntlet` to compare bots in games of more seats)",
            choice.describe(),
            choice.seats
        );
    }
    let mut cfg = settings
        .game
        .referee_config(choice.info.default_max_turns)?;
    cfg.record_turns = true;
    let (bots, mut active) = prepare_bots(
        &[settings.new.clone(), settings.old.clone()],
        &settings.workdir,
        &cfg,
    )?;
    let wrong = arbiter::bot::spec::mark_wrong_game(&bots, &mut active, choice.name());
    wrong.iter().for_each(|e| eprintln!("arbiter: {e}"));
    if let Some(i) = active.iter().position(Option::is_some) {
        bail!("bot '{}' cannot play (see above)", bots[i].origin);
    }
    let (new_name, old_name) = (bots[0].name.clone(), bots[1].name.clone());
    arbiter::engine::settings::save(&out, &settings)?;

    arbiter::bot::cleanup::set_stop_hint(format!(
        "continue with: arbiter sprt --resume {}",
        out.display()
    ));
    let csv_path = out.join("games.csv");
    let (mut csv, done) =
        GamesCsv::open(&csv_path, 2).with_context(|| format!("opening {}", csv_path.display()))?;
    let mut test = SprtFollower::new(params, &new_name);
    test.read(&csv_path)?;
    let games_per_pair =
        u32::try_from(settings.max_pairs.saturating_mul(2)).context("--max-pairs is too large")?;
    let todo: Vec<_> = schedule(2, Format::RoundRobin, games_per_pair, settings.seed)
        .into_iter()
        .filter(|g| !done.contains(g.game_id))
        .collect();
    if let Some(note) = settings.game.memory_note() {
        eprintln!("arbiter: {note}");
    }
    let placement = super::tournament::placement(&args.run, cfg.freeze_idle);
    if resuming {
        eprintln!(
            "arbiter: resuming {}: {} pairs complete",
            out.display(),
            test.pairs.penta.pairs()
        );
    }
    eprintln!(
        "arbiter: SPRT {new_name} vs {old_name}, [{}, {}] {} model, alpha {}, beta {}, up to {} pairs, {}, seed {}, results in {}",
        params.elo0,
        params.elo1,
        params.model,
        params.alpha,
        params.beta,
        settings.max_pairs,
        placement.describe(),
        settings.seed,
        out.display()
    );

    let mut report_path = None;
    if !test.decided() && !todo.is_empty() {
        let (lower, upper) = params.bounds();
        let runner = Runner {
            bots: &bots,
            game: &choice,
            opening_plies: settings.opening_plies,
            book: book.as_ref(),
            referee: &cfg,
            concurrency: placement.concurrency,
            pin_cpus: placement.pin_cpus,
        };
        // The test follows the games as they are recorded; games still in flight when it
        // decides are recorded and counted too, so the last progress line shows the LLR the
        // summary prints.
        let mut decide =
            |finished: &Finished, progress: &mut super::run_common::ProgressNote<'_>| {
                if let Some(now) = test.add(finished) {
                    let elo = EloEstimate::from_pentanomial(&test.pairs.penta)
                        .map_or("n/a".into(), |e| e.elo_text());
                    progress.set_extra(format!("LLR {now:.2} ({lower:.2}, {upper:.2}), Elo {elo}"));
                }
                if test.decided() {
                    progress.decided();
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            };
        let (failure, path) = super::run_common::play_and_record(
            &runner,
            &todo,
            &mut csv,
            &out,
            false,
            &mut decide,
            None,
        )?;
        if let Some(e) = failure {
            return Err(e);
        }
        report_path = Some(path);
    }

    let mut stdout = std::io::stdout().lock();
    let decision = test.decision;
    print_result(
        &mut stdout,
        &new_name,
        &old_name,
        &test.pairs,
        &params,
        test.llr(),
        decision,
    )?;
    writeln!(stdout, "Results: {}", out.display())?;
    let report_path = report_path.unwrap_or_else(|| {
        report::html::LiveReport::new(&out, &[new_name.clone(), old_name.clone()])
            .write(report::html::Pages::Missing)
    });
    report::run_end::report_line(&mut stdout, &report_path)?;
    Ok(ExitCode::from(match decision {
        Decision::AcceptH1 => 0,
        Decision::AcceptH0 => 1,
        Decision::Continue => 2,
    }))
}

fn print_result(
    out: &mut impl Write,
    new: &str,
    old: &str,
    p: &PairCounter,
    params: &SprtParams,
    llr: f64,
    decision: Decision,
) -> std::io::Result<()> {
    let games = p.wdl.games();
    writeln!(
        out,
        "Results of {new} vs {old} ({games} games, {} pairs):",
        p.penta.pairs()
    )?;
    sprt_block::print_estimate(out, EloEstimate::from_pentanomial(&p.penta).as_ref())?;
    let c = p.penta.0;
    let pairs_ratio = sprt_block::pairs_ratio(&p.penta);
    writeln!(out, "PairsRatio: {pairs_ratio}")?;
    writeln!(
        out,
        "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1}",
        p.wdl.wins,
        p.wdl.losses,
        p.wdl.draws,
        p.wdl.points()
    )?;
    writeln!(
        out,
        "Ptnml(0-2): [{}, {}, {}, {}, {}]",
        c[0], c[1], c[2], c[3], c[4]
    )?;
    sprt_block::print_llr(out, params, llr)?;
    if decision == Decision::Continue {
        writeln!(out, "No decision within the pairs allowed (--max-pairs).")?;
    }
    Ok(())
}
