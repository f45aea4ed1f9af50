//! The league server's start: the folder opened (its settings, bots, schedule, records read
//! back, bad rows set aside), the scheduler restored from them, and the threads started.

use super::*;
use crate::engine::session::{GameSetup, Session};
use crate::results::lock::FolderLock;

/// Opens the league in `dir` (claimed by this process: `lock`) as every run opens its folder
/// and game (the engine's [`Session`]), and starts its threads: `workers` local workers, the
/// recorder and the ratings. The bots are checked on their own threads (a slow build delays
/// no game).
pub fn start(
    lock: FolderLock,
    dir: PathBuf,
    settings: LeagueSettings,
    workers: usize,
) -> Result<Arc<Shared>, LeagueStartError> {
    let session = Session::open_claimed(dir, lock, &play::request(&settings), play::keep_turns)?;
    let dir = session.dir.clone();
    // An SDK game's replay pages draw it with its own viewer, served from the folder.
    if let Some(game) = session.game.choice.sdk_game() {
        crate::report::run_start::sdk_view(&dir, game);
    }
    let seats = session.game.choice.seats();
    if folder::keep_private(&dir)? {
        eprintln!(
            "arbiter: the league's folder {} was open to every user of this machine; it is now \
             its owner's and its group's only (it holds the uploaded bots, the records and the \
             tokens)",
            dir.display()
        );
    }
    // One row no reader takes (a hand edit, a forged result of an older arbiter) does not
    // refuse the league: it is set aside, said, and its game played again.
    let aside = dir.join(folder::SET_ASIDE);
    let games_path = dir.join("games.csv");
    let set_aside = crate::results::games_csv::set_aside(&games_path, &aside, UtcTime::now())
        .map_err(|source| LeagueStartError::SetAside {
            path: games_path.clone(),
            source,
        })?;
    for a in &set_aside {
        eprintln!(
            "arbiter: warning: games.csv row {} is no game ({}): set aside in {} (its game, \
             never recorded, is played again)",
            a.row,
            a.why,
            aside.display()
        );
    }
    let (csv, done) = session.open_games()?;
    let (_, GameSetup { choice, cfg, book }, lock) = session.into_parts();
    let table = PlaySetup::of(choice, cfg, book, &settings);
    let (log, scheduled) = ScheduleLog::open(&dir)?;
    let (cancel_log, cancelled) = folder::CancelLog::open(&dir)?;
    let token_hash = folder::admin_token_hash(&dir)?;
    let bots = folder::load_bots(&dir)?;
    let versions = crate::league::versions::Versions::read(&dir)?;

    let mut sched = Scheduler::new(seats, settings.matchmaking.clone(), settings.seed);
    sched.set_capacity(workers.max(1));
    for b in &bots {
        sched.add_bot(&b.name);
        // Not played until checked; a suspended bot not until it is added again.
        sched.set_idle(&b.name, Idle::Checking);
    }
    for g in scheduled {
        if cancelled.contains(&g.game_id) && !done.contains(g.game_id) {
            sched.restore_cancelled(&g);
            continue;
        }
        let recorded = done.contains(g.game_id);
        sched.restore(g, recorded);
    }
    let mut counted = ratings::Tally::default();
    for b in &bots {
        counted.know(&b.name);
    }
    let (mut sprt_log, sprt_lines) = folder::JsonLines::open(&dir, folder::SPRT, "log of SPRTs")?;
    let mut sprt = crate::league::sprt::Tests::from_lines(&sprt_lines);
    if sprt_lines.is_empty() {
        // A folder from before sprt.jsonl: its (one) candidate's test counts every game.
        if let Some(b) = bots
            .iter()
            .rev()
            .find(|b| b.candidate_of.is_some() && !b.removed)
        {
            let old = b.candidate_of.as_deref().unwrap_or_default();
            let lines = sprt.start(&b.name, old, b.sprt.unwrap_or_default(), 0, UtcTime::now());
            sprt_log.append(&lines)?;
        }
    }
    // Decisions counted again from games.csv are not new: a test that ended is read back
    // with its verdict, and one that decides here was decided before the restart, unlogged.
    let mut decided_again = Vec::new();
    let games_csv = [dir.join("games.csv")];
    crate::results::games_csv::try_for_each_result(&games_csv, |row| {
        if let Some(id) = row.game_id {
            decided_again.extend(sprt.add(
                id,
                &row.bots,
                &row.ranks,
                row.pair_id.unwrap_or(0),
                UtcTime::now(),
            ));
        }
        counted.add(&Counted {
            bots: row.bots,
            ranks: row.ranks,
            pair_id: row.pair_id.unwrap_or(0),
        });
        Ok::<(), crate::results::games_csv::ReadError>(())
    })?;
    let index_path = dir.join(crate::league::record_index::FILE);
    let mut live = Live {
        offsets: crate::league::record_index::RecordIndex::with_file(&index_path).map_err(
            |source| FolderError::Io {
                path: index_path.clone(),
                source,
            },
        )?,
        ..Live::default()
    };
    read_records(&dir, &mut live)?;

    let (done_tx, done_rx) = mpsc::channel();
    let (fit_tx, fit_rx) = mpsc::channel();
    let (events, _) = tokio::sync::broadcast::channel(1024);
    let shared = Arc::new(Shared {
        dir: dir.clone(),
        settings,
        table,
        state: Mutex::new(State {
            sched,
            specs: HashMap::new(),
            live,
            counted,
            sprt,
            versions,
            recording: None,
            out_of_ratings: HashSet::new(),
        }),
        standings: RwLock::new(Arc::new(ratings::Table::default())),
        logs: Mutex::new(Logs {
            schedule: log,
            cancelled: cancel_log,
            sprt: sprt_log,
        }),
        records: Mutex::new(()),
        bots_file: Mutex::new(()),
        events,
        event_streams: Default::default(),
        backoff: Default::default(),
        token_hash,
        authors: crate::league::tokens::Tokens::of(&dir, crate::league::tokens::TokenKind::Author),
        local_workers: workers,
        wake: Condvar::new(),
        stop: AtomicBool::new(false),
        done_tx,
        fit_tx,
        _lock: lock,
    });
    {
        let s = shared.clone();
        std::thread::Builder::new()
            .name("league-ratings".into())
            .spawn(move || ratings_thread(&s, fit_rx))
            .expect("a thread starts");
    }
    shared.refit();
    {
        // The engine's runner (the local workers) and its recording loop (every game).
        let s = shared.clone();
        let queue = (s.done_tx.clone(), done_rx);
        std::thread::Builder::new()
            .name("league-games".into())
            .spawn(move || games_thread(&s, csv, queue))
            .expect("a thread starts");
    }
    if workers > 0 {
        let s = shared.clone();
        std::thread::Builder::new()
            .name("league-renew".into())
            .spawn(move || renew_thread(&s, workers))
            .expect("a thread starts");
    }
    shared.log_sprt(&mut shared.logs.locked(), decided_again);
    let cancelled = {
        let mut state = shared.state();
        let running = state.sprt.running();
        state.sched.set_priority(running);
        for b in bots.iter().filter(|b| !b.removed) {
            if let Some(forfeits) = b.suspended {
                state.sched.set_idle(&b.name, Idle::Suspended { forfeits });
            }
        }
        take_cancelled(&mut state)
    };
    shared.log_cancelled(cancelled);
    for b in bots
        .into_iter()
        .filter(|b| !b.removed && b.suspended.is_none())
    {
        let s = shared.clone();
        std::thread::spawn(move || {
            let _ = s.admit(b, crate::league::versions::Admission::Again);
        });
    }
    let removed: Vec<BotEntry> = folder::load_bots(&dir)?
        .into_iter()
        .filter(|b| b.removed)
        .collect();
    let cancelled = {
        let mut state = shared.state();
        for b in &removed {
            state.sched.set_idle(&b.name, Idle::Removed);
        }
        // Their games scheduled before and not recorded will not be played.
        take_cancelled(&mut state)
    };
    shared.log_cancelled(cancelled);
    Ok(shared)
}
