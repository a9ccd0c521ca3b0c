//! The balance report (issue #20 items 3 and 4): the runner gives the same report whatever the
//! thread count, a stop keeps the games finished, and `powderhorn battle balance` prints the
//! report as text and JSON, with its progress on stderr.
//!
//! The games are the small battle of the result tests (four French battalions against five
//! Austrian, `tests/support/builder.rs`), so a dozen games take seconds.

#[path = "support/builder.rs"]
mod builder;

use builder::{four_against_five, lists};
use powderhorn::ai::balance::{game_seed, BalanceReport};
use powderhorn::ai::{autoplay, Limits};
use powderhorn::rules::{Battle, DiceSource};
use powderhorn::session::balance::{run_balance, BalanceOptions};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

fn report(runs: usize, threads: usize, seed: u64) -> BalanceReport {
    let opts = BalanceOptions {
        runs,
        threads,
        seed,
        ..BalanceOptions::default()
    };
    let stop = AtomicBool::new(false);
    let calls = AtomicUsize::new(0);
    let run = run_balance(
        &four_against_five().turn_limit(4).scenario(),
        &lists(),
        &opts,
        &stop,
        &|_| {
            calls.fetch_add(1, Ordering::Relaxed);
        },
    )
    .expect("the small battle sets up");
    assert!(!run.stopped);
    assert_eq!(run.threads, threads.min(runs));
    assert_eq!(
        calls.load(Ordering::Relaxed),
        runs,
        "one progress call per game"
    );
    run.report
}

#[test]
fn the_report_is_the_same_on_one_thread_and_on_three() {
    let one = report(9, 1, 40);
    let three = report(9, 3, 40);
    assert_eq!(one.games, 9);
    assert_eq!(one, three);
    // Each game is the game autoplay plays with seed + k: the wins add up the same.
    let sc = four_against_five().turn_limit(4).scenario();
    let mut wins = [0usize; 2];
    for k in 0..9 {
        let mut b = Battle::new(sc.clone(), lists(), DiceSource::Seed(game_seed(40, k)), 0)
            .expect("sets up");
        if let Some(w) = autoplay(&mut b, &Limits::default()).winner() {
            wins[w] += 1;
        }
    }
    assert_eq!(wins, [one.wins[0].count, one.wins[1].count]);
}

#[test]
fn a_stop_keeps_the_games_finished_as_a_valid_report() {
    let opts = BalanceOptions {
        runs: 50,
        threads: 2,
        seed: 3,
        ..BalanceOptions::default()
    };
    let stop = AtomicBool::new(false);
    let run = run_balance(
        &four_against_five().turn_limit(4).scenario(),
        &lists(),
        &opts,
        &stop,
        &|p| {
            if p.done >= 4 {
                stop.store(true, Ordering::Relaxed);
            }
        },
    )
    .expect("sets up");
    assert!(run.stopped);
    // Stopped after the 4th game; the other thread may finish the game it had begun.
    assert!((4..=5).contains(&run.report.games), "{}", run.report.games);
    assert_eq!(run.asked, 50);
    let r = &run.report;
    assert_eq!(r.wins[0].count + r.wins[1].count + r.draws.count, r.games);
    assert!(!r.verdict.is_empty());
}

fn cli(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db.sqlite");
    let out = Command::new(env!("CARGO_BIN_EXE_powderhorn"))
        .arg("--db")
        .arg(&db)
        .args(args)
        .output()
        .expect("run powderhorn");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    out
}

fn scenario_file(dir: &Path) -> String {
    let path = dir.join("small.json");
    let sc = four_against_five()
        .turn_limit(4)
        .side_names("French: the attack", "Austrian: the line");
    std::fs::write(&path, serde_json::to_string(&sc.v).expect("json")).expect("write");
    path.display().to_string()
}

#[test]
fn battle_balance_prints_the_report_and_its_progress() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = scenario_file(dir.path());
    let out = cli(&[
        "battle",
        "balance",
        &file,
        "--runs",
        "6",
        "--threads",
        "2",
        "--seed",
        "5",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}\n{err}");
    assert!(
        text.contains("Balance of Test: 6 games (seeds 5–10)"),
        "{text}"
    );
    for label in [
        "French win",
        "Austrian win",
        "draw",
        "How the games ended (END-03)",
        "French VPs",
        "game turns",
        "Objectives reached (OBJ-01)",
        "Units: how often each came through",
        "survives",
    ] {
        assert!(text.contains(label), "no {label:?} in:\n{text}");
    }
    assert!(err.contains("6/6 games"), "{err}");
    assert!(
        err.contains("6 games in") && err.contains("on 2 threads"),
        "{err}"
    );

    // The same games as JSON, on one thread: the same figures.
    let out = cli(&[
        "battle",
        "balance",
        &file,
        "--runs",
        "6",
        "--threads",
        "1",
        "--seed",
        "5",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(v["threads"], 1);
    assert_eq!(v["report"]["games"], 6);
    let r: BalanceReport =
        serde_json::from_value(v["report"].clone()).expect("the report reads back");
    assert_eq!(r, report_of_file(6, 5));
}

fn report_of_file(runs: usize, seed: u64) -> BalanceReport {
    let named = four_against_five()
        .turn_limit(4)
        .side_names("French: the attack", "Austrian: the line")
        .scenario();
    let opts = BalanceOptions {
        runs,
        threads: 1,
        seed,
        ..BalanceOptions::default()
    };
    run_balance(&named, &lists(), &opts, &AtomicBool::new(false), &|_| {})
        .expect("sets up")
        .report
}

#[test]
fn battle_balance_refuses_unusable_input() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = scenario_file(dir.path());
    let out = cli(&["battle", "balance", &file, "--runs", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--runs must be at least 1"));
    let out = cli(&["battle", "balance", "no-such-scenario", "--runs", "2"]);
    assert_eq!(out.status.code(), Some(2));
}
