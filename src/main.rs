//! The `arbiter` command: parses arguments, runs the subcommand, and turns errors into exit codes.

mod cli;
mod commands;

use std::process::ExitCode;

fn main() -> ExitCode {
    // Usage errors exit with ERROR_EXIT, not clap's 2: `arbiter sprt` gives 0, 1 and 2 meanings.
    use clap::{CommandFactory, FromArgMatches};
    let parsed = cli::Cli::command()
        .try_get_matches()
        .and_then(|m| cli::Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let (cli, matches) = match parsed {
        Ok(both) => both,
        Err(e) => {
            let code = if e.use_stderr() {
                commands::ERROR_EXIT
            } else {
                0
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // The library's messages name options as this command line spells them.
    arbiter::options::set_spelling(cli::spelling);
    // An SDK game's first build (tens of seconds) is told on stderr, as bot builds are.
    arbiter::referee::sdk::build::set_announce(arbiter::report::progress::sdk_build_line);
    // Untrusted code gets only fds 0-2: nothing arbiter itself was started with.
    if let Err(e) = arbiter::bot::inherited::seal_inherited() {
        eprintln!(
            "arbiter: error: cannot keep the files it was started with from the programs it runs \
             (marking them close-on-exec failed: {e})"
        );
        return ExitCode::from(commands::ERROR_EXIT);
    }
    // A stop signal while a run plays is the engine's (it ends the run in order); at any other
    // moment, or a second time, the bots are killed and arbiter ends here.
    let unclaimed = |signal: i32| {
        commands::stopped(signal);
        std::process::exit(128 + signal);
    };
    if let Err(e) = arbiter::bot::cleanup::install_signal_cleanup(unclaimed) {
        eprintln!(
            "arbiter: warning: cannot watch for Ctrl-C ({e}); bots may outlive an interrupted run"
        );
    }
    // Many games at once hold many files open: the soft limit (often 1,024) is raised to the
    // hard one; bots and builds still get the limit arbiter was started with.
    arbiter::bot::open_files::raise();
    let given = cli::Given::from_matches(&matches);
    match commands::run(cli.command, &given) {
        Ok(code) => code,
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            let text = arbiter::errors::chain_text(e.as_ref());
            // Errors quote bots' names, students' files and compilers' output: nothing in
            // them may drive the terminal.
            eprintln!(
                "arbiter: error: {}",
                arbiter::protocol::printable_lines(&text)
            );
            ExitCode::from(commands::ERROR_EXIT)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(BrokenPipe))
    })
}
