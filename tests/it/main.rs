//! The one integration-test binary: every module is declared here.

#![allow(
    clippy::unwrap_used,
    clippy::needless_pass_by_value,
    reason = "test support code: a failed setup step should panic where it happens"
)]

mod support;
mod tampering;
mod undo;
mod undo_corpus;

mod abbreviations;
mod agent;
mod agent_settings;
mod ai;
mod any_tool;
mod bad_input;
mod cli;
mod config;
mod deletions;
mod docs;
mod eval;
mod fuzz;
mod gate;
mod hidden_commands;
mod history_views;
mod install;
mod interactive;
mod layout;
mod local;
mod log;
mod managers;
mod once;
mod one_decision;
mod overrides;
mod paths;
mod pre_commit;
mod pre_push;
mod refused_half_way;
mod scenarios;
mod server;
mod snapshots;
mod stats;
mod verifiers;

/// A test file that is never declared above would silently never run.
#[test]
fn no_forgotten_test_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let stem = path.file_stem().unwrap().to_str().unwrap();
            if stem != "main" {
                assert!(
                    main.contains(&format!("mod {stem};")),
                    "tests/it/{stem}.rs is not declared in main.rs"
                );
            }
        }
    }
}
