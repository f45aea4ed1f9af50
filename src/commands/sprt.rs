//! `arbiter sprt NEW OLD`: plays pairs of games (same seed and opening, seats swapped) until the
//! sequential probability ratio test on the pentanomial pair scores accepts H0 or H1.
//! Flags -> settings ([`arbiter::engine::start`]) -> the run engine with the test as a follower
//! ([`arbiter::engine::sprt`]) and the terminal's consumers -> the result block.

use crate::cli::{RunFolder, SprtArgs};
use anyhow::Result;
use arbiter::engine::settings::{Recorded, SprtSettings as Settings};
use arbiter::engine::sprt::SprtFollower;
use arbiter::engine::start::{self, RESUME_MAY_CHANGE};
use arbiter::rating::{Decision, EloEstimate};
use arbiter::report::{self, run_display, run_start, sprt_block};
use arbiter::results::lock::FolderLock;
use arbiter::tournament::{Finished, Runner};
use std::io::Write;
use std::ops::ControlFlow;
use std::process::ExitCode;

pub fn run(args: SprtArgs, given: &crate::cli::Given) -> Result<ExitCode> {
    let changed = given.outside(RESUME_MAY_CHANGE);
    start::check_resume(args.resume.as_deref(), Settings::FILE, changed)?;
    let (settings, out, resuming) = args.open(|| Settings::fresh(args.request()))?;
    let params = settings.sprt.params()?;
    let _lock = FolderLock::acquire(&out)?;
    let choice = settings.game.choice_in(Some(&settings.workdir))?;
    let book = settings.openings.book(&choice, settings.seed)?;
    settings.check_seats(&choice)?;
    let mut cfg = settings
        .game
        .referee_config_in(choice.default_max_turns(), Some(&settings.workdir))?;
    cfg.record_turns = true;
    // A referee that cannot start or speak the protocol stops the run before any game.
    choice.check(&cfg)?;
    let origins = [settings.new.clone(), settings.old.clone()];
    let resolved = arbiter::engine::resolve_in(&origins, &settings.workdir);
    let mut field = run_display::check_bots(resolved, &cfg, true)?;
    run_start::lines(field.mark_wrong_game(choice.name()));
    field.check_all()?;
    let bots = field.specs;
    let (new_name, old_name) = (bots[0].name.clone(), bots[1].name.clone());
    arbiter::engine::settings::save(&out, &settings)?;

    arbiter::bot::cleanup::set_stop_hint(format!(
        "continue with: arbiter sprt --resume {}",
        out.display()
    ));
    let (mut csv, mut done) = start::open_games(&out, 2)?;
    let csv_path = csv.path().to_path_buf();
    let mut test = SprtFollower::new(params, &new_name);
    test.read(&csv_path)?;
    let mut todo = settings.games_to_play(&done)?;
    run_start::lines(settings.game.memory_note());
    let placement = args.run.placement(cfg.freeze_idle);
    run_start::placement(&placement);
    run_start::sprt(&run_start::SprtStart {
        dir: &out,
        resumed: resuming.then(|| test.pairs.penta.pairs()),
        new: &new_name,
        old: &old_name,
        params: &params,
        max_pairs: settings.max_pairs,
        placement: &placement,
        seed: settings.seed,
    });

    let mut report_path = None;
    // The test stops handing out games when it decides; the games then under way still finish,
    // are recorded and counted, and may take the LLR back between the bounds. The result is
    // the decision on every game recorded (the set games.csv, `arbiter stats` and a continued
    // test see), so where the late games undid the decision the test plays on.
    while !test.decided() && !todo.is_empty() {
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
        // The games to play are --max-pairs': the time left is at most what they take.
        let mut bounded = false;
        let mut decide = |finished: &Finished, progress: &mut run_display::ProgressNote<'_>| {
            if !std::mem::replace(&mut bounded, true) {
                progress.bounded();
            }
            done.insert(finished.spec.game_id);
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
        let played =
            run_display::play_and_record(&runner, &todo, &mut csv, &out, false, &mut decide, None)?;
        if let Some(e) = played.failure {
            return Err(e.into());
        }
        report_path = Some(played.report);
        todo.retain(|g| !done.contains(g.game_id));
    }

    let mut stdout = std::io::stdout().lock();
    let decision = test.decision;
    sprt_block::print_result(
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
