//! The `powderhorn` binary: parses the command line and turns every outcome into an exit code,
//! in this one place. No arguments open the window; subcommands run headless (`src/cli`).

use clap::Parser;
use powderhorn::cli::{self, Cli};
use std::process::ExitCode;

fn main() -> ExitCode {
    let parsed = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match &parsed.command {
        None => match powderhorn::app::run_gui(&parsed.db) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("powderhorn: {e:#}");
                ExitCode::from(2)
            }
        },
        Some(command) => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            match cli::run(&parsed, command, &mut out) {
                Ok(code) => ExitCode::from(code),
                Err(f) => {
                    eprintln!("powderhorn: {}", f.message);
                    ExitCode::from(f.code)
                }
            }
        }
    }
}
