//! The `vouch` binary: parse the command line, run, map the result to an
//! exit code. No logic lives here.

use std::process::ExitCode;

use clap::Parser;
use vouch::cli::Cli;
use vouch::context::Ctx;
use vouch::env::ProcessEnv;
use vouch::{ExitStatus, ui};

fn main() -> ExitCode {
    // A hook linked to the binary (`vouch install --direct`) is started under the hook's name.
    let cli = Cli::parse_from(vouch::install::hook_argv(std::env::args_os().collect()));
    let ctx = Ctx {
        env: Box::new(ProcessEnv),
        cwd: std::env::current_dir().unwrap_or_else(|_| ".".into()),
    };
    match vouch::run(&cli, &ctx) {
        Ok(status) => ExitCode::from(status as u8),
        Err(err) => {
            // A closed pipe (`vouch log | head`) is not an error.
            if err
                .chain()
                .filter_map(|c| c.downcast_ref::<std::io::Error>())
                .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            ui::error(&err);
            ExitCode::from(ExitStatus::Error as u8)
        }
    }
}
