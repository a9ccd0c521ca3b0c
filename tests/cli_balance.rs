//! The balance report (issue #20 items 3 and 4): the runner gives the same report whatever the
//! thread count, with both sides standard or one on the hold baseline, a stop keeps the games
//! finished, and `powderhorn battle balance` prints the report as text and JSON, with its
//! progress on stderr, and takes `--policy` as `battle autoplay` does.
//!
//! Most games are the small battle of the result tests (four French battalions against five
//! Austrian, `tests/support/builder.rs`), so a dozen games take seconds; the determinism across
//! thread counts is also checked on the shipped Ebelsberg sample with its turn limit lowered.

#[path = "support/builder.rs"]
mod builder;

use builder::{ebelsberg, four_against_five, lists};
use powderhorn::ai::balance::{game_seed, BalanceReport};
use powderhorn::ai::{autoplay_with, Limits, Policy};
use powderhorn::model::scenario::Scenario;
use powderhorn::rules::{Battle, DiceSource};
use powderhorn::session::balance::{run_balance, BalanceOptions};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const HOLD_AUSTRIANS: [Policy; 2] = [Policy::Standard, Policy::Hold];

fn report(runs: usize, threads: usize, seed: u64, policies: [Policy; 2]) -> BalanceReport {
    report_of(
        &four_against_five().turn_limit(4).scenario(),
        runs,
        threads,
        seed,
        policies,
    )
}

/// The report of the real runner, the code `battle balance` runs.
fn report_of(
    scenario: &Scenario,
    runs: usize,
    threads: usize,
    seed: u64,
    policies: [Policy; 2],
) -> BalanceReport {
    let opts = BalanceOptions {
        runs,
        threads,
        seed,
        policies,
        ..BalanceOptions::default()
    };
    let stop = AtomicBool::new(false);
    let calls = AtomicUsize::new(0);
    let run = run_balance(scenario, &lists(), &opts, &stop, &|_| {
        calls.fetch_add(1, Ordering::Relaxed);
    })
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

/// The small battle in 4 game turns: quick, but the armies barely meet (in these 9 games no
/// stand is lost, with either policy), so the games differ little; the thread counts are
/// checked on fought games by `ebelsberg_gives_the_same_report_on_one_two_and_three_threads`.
#[test]
fn the_report_is_the_same_on_one_thread_and_on_three() {
    for policies in [[Policy::Standard; 2], HOLD_AUSTRIANS] {
        let one = report(9, 1, 40, policies);
        let three = report(9, 3, 40, policies);
        assert_eq!(one.games, 9);
        assert_eq!(one.policies, policies);
        assert_eq!(one, three, "{policies:?}");
        // Each game is the game autoplay plays with seed + k and the same policies: the wins
        // and the VPs add up the same.
        let sc = four_against_five().turn_limit(4).scenario();
        let mut wins = [0usize; 2];
        let mut vps = [0i64; 2];
        for k in 0..9 {
            let mut b = Battle::new(sc.clone(), lists(), DiceSource::Seed(game_seed(40, k)), 0)
                .expect("sets up");
            let run = autoplay_with(&mut b, &Limits::default(), policies);
            if let Some(w) = run.winner() {
                wins[w] += 1;
            }
            vps[0] += run.vps()[0];
            vps[1] += run.vps()[1];
        }
        assert_eq!(wins, [one.wins[0].count, one.wins[1].count], "{policies:?}");
        let mean = |s: usize| vps[s] as f64 / 9.0;
        assert!((one.vps[0].mean - mean(0)).abs() < 1e-9, "{policies:?}");
        assert!((one.vps[1].mean - mean(1)).abs() < 1e-9, "{policies:?}");
    }
}

/// Issue #20 item 4: the real runner (`run_balance`, the code `battle balance` and the window
/// run) on the shipped sample gives the same report on one, two and three threads, with both
/// sides standard and with the defenders on the hold baseline.
#[test]
fn ebelsberg_gives_the_same_report_on_one_two_and_three_threads() {
    let sc = ebelsberg();
    let mut reports = Vec::new();
    for policies in [[Policy::Standard; 2], HOLD_AUSTRIANS] {
        let one = report_of(&sc, 6, 1, 11, policies);
        assert_eq!(one.games, 6);
        assert_eq!(one.policies, policies);
        for threads in [2, 3] {
            let many = report_of(&sc, 6, threads, 11, policies);
            assert_eq!(one, many, "{threads} threads, {policies:?}");
        }
        reports.push(one);
    }
    // The games were fought (dice rolled and stands lost), so the sameness means something.
    let standard = &reports[0];
    assert!(
        standard.stands_lost[0].max + standard.stands_lost[1].max > 0.0,
        "no stand lost in 6 games: {}",
        standard.verdict
    );
    // The hold baseline reached the games: they went otherwise.
    let hold = &reports[1];
    assert_ne!(
        (&standard.stands_lost, &standard.units, &standard.ends),
        (&hold.stands_lost, &hold.units, &hold.ends)
    );
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
    assert_eq!(r, report_of_file(6, 5, [Policy::Standard; 2]));
    // Both sides standard: the text has no line of policies, the JSON says so.
    assert!(!text.contains("played by"), "{text}");
    assert_eq!(
        v["report"]["policies"],
        serde_json::json!(["standard", "standard"])
    );
}

fn report_of_file(runs: usize, seed: u64, policies: [Policy; 2]) -> BalanceReport {
    let named = four_against_five()
        .turn_limit(4)
        .side_names("French: the attack", "Austrian: the line")
        .scenario();
    let opts = BalanceOptions {
        runs,
        threads: 1,
        seed,
        policies,
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

/// `--policy` is read as `battle autoplay --policy` reads it: the games are played so, and the
/// report says which side played what, in its text header, its verdict and its JSON.
#[test]
fn battle_balance_takes_a_policy_per_side() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = scenario_file(dir.path());
    let out = cli(&[
        "battle",
        "balance",
        &file,
        "--runs",
        "4",
        "--threads",
        "2",
        "--seed",
        "5",
        "--policy",
        "0=standard,1=hold",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}\n{err}");
    assert!(
        text.contains("  played by: French standard opponent; Austrian hold baseline"),
        "{text}"
    );
    assert!(
        text.contains("Austrian side played by the hold baseline"),
        "{text}"
    );
    let out = cli(&[
        "battle",
        "balance",
        &file,
        "--runs",
        "4",
        "--threads",
        "1",
        "--seed",
        "5",
        "--policy",
        "1=hold",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(
        v["report"]["policies"],
        serde_json::json!(["standard", "hold"])
    );
    let r: BalanceReport =
        serde_json::from_value(v["report"].clone()).expect("the report reads back");
    assert_eq!(r, report_of_file(4, 5, HOLD_AUSTRIANS));
}

#[test]
fn battle_balance_refuses_a_bad_policy() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = scenario_file(dir.path());
    for (policy, message) in [
        (
            "1=attack",
            "--policy: 'attack' is not a policy; use standard or hold",
        ),
        (
            "2=hold",
            "--policy: side '2' must be 0 or 1 (the scenario's first or second side)",
        ),
        (
            "hold",
            "--policy: 'hold' is not SIDE=POLICY; write for example 0=standard,1=hold",
        ),
    ] {
        let out = cli(&[
            "battle", "balance", &file, "--runs", "2", "--policy", policy,
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{policy}: {err}");
        assert!(err.contains(message), "{policy}: {err}");
        assert!(out.stdout.is_empty(), "{policy}: no games are played");
    }
}
