//! What `arbiter games` and `arbiter perft` print: the list of games with their variants and
//! seat counts, one game's statement for bot writers, and perft tables.

use crate::game::{Game, GameInfo, GAMES};
use crate::options::Opt;
use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

/// One line per game and one per variant.
pub fn list(out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "Games (`arbiter games NAME` shows one game's statement for bot writers):"
    )?;
    for g in GAMES {
        writeln!(
            out,
            "  {:<12} {} (turn limit {})",
            g.name, g.about, g.default_max_turns
        )?;
        for (i, v) in g.variants.iter().enumerate() {
            let seats: Vec<String> = v.seats.iter().map(usize::to_string).collect();
            writeln!(
                out,
                "    {} {:<14} {} seats  {}{}",
                Opt::Variant,
                v.name,
                seats.join(" or "),
                v.about,
                if i == 0 { " (default)" } else { "" }
            )?;
        }
    }
    Ok(())
}

/// A CodinGame SDK game's players and leagues, as the files of its own `folder` (where it has
/// one: a source folder, or the folder above a class path's `target/classes`) list them.
pub fn sdk_game(out: &mut impl Write, referee: &str, folder: Option<&Path>) -> io::Result<()> {
    use crate::referee::sdk::leagues;
    writeln!(out, "CodinGame SDK game {referee}")?;
    let Some(folder) = folder else {
        return writeln!(
            out,
            "  no folder of the game's own (with its config/) beside it: its players and leagues \
             are unknown; {} N plays league N as its statement numbers them (default 1)",
            Opt::League
        );
    };
    match leagues::players(folder) {
        Some((min, max)) if min == max => writeln!(out, "  players: {min} (config/config.ini)")?,
        Some((min, max)) => writeln!(
            out,
            "  players: {min} to {max} (config/config.ini; {} N, default 2)",
            Opt::Seats
        )?,
        None => writeln!(out, "  players: not listed (no config/config.ini)")?,
    }
    let Some(l) = leagues::read(folder) else {
        return writeln!(
            out,
            "  leagues: not listed (no <!-- LEAGUES --> line in config/statement_*.html.tpl, no \
             config/levelN folders): {} N plays league N (default 1)",
            Opt::League
        );
    };
    writeln!(
        out,
        "  leagues: 1 to {} (as {} lists them; {} N, default {}: the game's full rules)",
        l.count(),
        l.from.display(),
        Opt::League,
        l.count()
    )?;
    for k in 1..=l.count() {
        let name = l.names[k as usize - 1].as_deref().unwrap_or("");
        let note = match k {
            1 if l.count() > 1 => "the first rules (on CodinGame, the lowest Wood league)",
            k if k == l.count() => "every rule (the default)",
            _ => "",
        };
        let parts: Vec<&str> = [name, note].into_iter().filter(|p| !p.is_empty()).collect();
        let line = format!("    {k:>2}  {}", parts.join("  "));
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// The statement of one game, with the start position's text form.
pub fn statement(out: &mut impl Write, info: &GameInfo) -> io::Result<()> {
    out.write_all(info.statement.as_bytes())?;
    if !info.statement.ends_with('\n') {
        writeln!(out)?;
    }
    Ok(())
}

/// One line of a perft table.
pub struct PerftLine {
    pub depth: u32,
    pub nodes: u64,
    pub took: Duration,
}

/// Prints the position and the perft count of each depth as it comes.
pub fn perft_header(out: &mut impl Write, game: &dyn Game) -> io::Result<()> {
    writeln!(out, "{}", game.position_text())?;
    writeln!(out, "{:>5}  {:>16}  {:>10}", "depth", "nodes", "seconds")
}

pub fn perft_line(out: &mut impl Write, l: &PerftLine) -> io::Result<()> {
    writeln!(
        out,
        "{:>5}  {:>16}  {:>10.3}",
        l.depth,
        l.nodes,
        l.took.as_secs_f64()
    )
}

/// `--divide`: the count below each first move.
pub fn perft_divide(out: &mut impl Write, rows: &[(String, u64)]) -> io::Result<()> {
    for (m, n) in rows {
        writeln!(out, "{m}: {n}")?;
    }
    writeln!(
        out,
        "moves: {}, total: {}",
        rows.len(),
        rows.iter().map(|r| r.1).sum::<u64>()
    )
}
