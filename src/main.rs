//! The `vouch` binary: parse the command line, run, map the result to an
//! exit code. No logic lives here.

// Its `main` skips std's start-up where the C library allows it
// (`hooks/start.rs`, which the hook gate compiles too).
#![cfg_attr(all(not(test), any(target_env = "gnu", target_os = "macos")), no_main)]

use clap::Parser;
use vouch::commands::cli::{Cli, Command};
use vouch::doors::agent;
use vouch::doors::context::Ctx;
use vouch::doors::exit::ExitStatus;
use vouch::doors::reftx::Quick;
use vouch::install::agent::protocol;
use vouch::interact::ui;
use vouch::platform::env::ProcessEnv;

#[path = "../hooks/start.rs"]
#[macro_use]
mod start;

main_without_std_start!(main_body);

/// Where std's start-up is skipped, what else vouch needs of it: a closed
/// standard descriptor opened on `/dev/null`, and a panic (said by the panic
/// hook) ending in 101. Elsewhere std has done both already.
fn main_body() -> i32 {
    vouch::platform::open_standard_fds();
    std::panic::catch_unwind(entry).map_or(101, i32::from)
}

/// Runs vouch and returns its exit code.
fn entry() -> u8 {
    let code = run();
    // A debug build says how often it read and parsed what it reads once
    // (the tests count it: issue 39 item 3).
    if cfg!(debug_assertions)
        && vouch::platform::env::Env::var_os(
            &ProcessEnv,
            vouch::platform::env::vars::VOUCH_DEBUG_COUNTS,
        )
        .is_some()
    {
        ui::err_text(&format!(
            "vouch counts: {}\n",
            vouch::platform::counts::report()
        ));
    }
    code
}

#[expect(
    clippy::exit,
    reason = "the watchdog ends the process once it has given the agent its answer"
)]
fn run() -> u8 {
    let args: Vec<_> = std::env::args_os().collect();
    // git runs the reference-transaction hook for every ref update: most
    // calls end here, before the command line is even parsed.
    // So does the pre-push hook for a fast-forward.
    let quick = match vouch::doors::reftx::quick(&args) {
        Quick::Parse => vouch::doors::pre_push::quick(&args),
        decided => decided,
    };
    let (stdin, configs) = match quick {
        Quick::Pass => return 0,
        Quick::Judge(input, configs) => (Some(input), configs),
        Quick::Parse => (None, vouch::doors::context::Configs::default()),
    };
    // A hook started under its own name (the gate, a link) is read
    // without building the whole command-line parser.
    let cli = match vouch::commands::cli::hook_cli(&args) {
        Some(cli) => cli,
        None => Cli::parse_from(vouch::install::hook_argv(args)),
    };
    let mut ctx = Ctx {
        configs,
        ..Ctx::new(
            Box::new(ProcessEnv),
            std::env::current_dir().unwrap_or_else(|_| ".".into()),
            stdin,
        )
    };
    // A file-size limit (`ulimit -f`) makes a write fail with EFBIG, which
    // is reported, instead of killing vouch and the git command with it.
    vouch::audit::survive_file_size_limit();
    // The agent door fails closed in the agent's own words: a panic or an
    // error inside it is the agent's blocking answer, never a bare exit code.
    // It also answers within the agent's deadline: an agent runs the
    // command when its hook times out, so a watchdog denies it first. The
    // door starts it before any step that can wait (`Ctx::watch`): a
    // harmless command is answered without a second thread.
    if let Command::AgentHook(hook) = &cli.command {
        let agent = hook.agent;
        // The watchdog reads its deadline itself, beside the door's work,
        // from the configs the door reads.
        let watchdog =
            std::sync::Mutex::new(Some(ctx.sharing(Box::new(ProcessEnv), ctx.cwd.clone())));
        ctx.watchdog = Box::new(move || {
            let Some(ctx) = watchdog
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
            else {
                return;
            };
            std::thread::spawn(move || {
                let deadline = agent::deadline(&ctx);
                std::thread::sleep(agent::time_left(&ctx));
                agent::answer_in_time(&ctx, agent, deadline, |code| {
                    std::process::exit(i32::from(code))
                });
            });
        });
        return match protocol::fail_closed(agent, || vouch::run(&cli, &ctx)) {
            Ok(status) => status.code(),
            Err(reply) => {
                agent::answer_once(&reply, || {});
                reply.code
            }
        };
    }
    match vouch::run(&cli, &ctx) {
        Ok(status) => status.code(),
        Err(err) => {
            // A closed pipe (`git vouch log | head`) is not an error.
            if err
                .chain()
                .filter_map(|c| c.downcast_ref::<std::io::Error>())
                .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return 0;
            }
            ui::error(&err);
            ExitStatus::Error.code()
        }
    }
}
