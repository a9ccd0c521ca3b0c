//! Scenario → Balance… driven headless with `egui_kittest` (issue #20 item 3): the window opens
//! from the Scenarios page, Start plays a few games of a small battle off the UI thread, the
//! report appears with its verdict, rates, histograms, objectives and units; Stop ends a long
//! run early and the report is of the games finished. A side can be played by the hold baseline
//! instead of the standard opponent (issue #20 item 4); the progress and the report say so.

#[path = "support/builder.rs"]
mod builder;
#[path = "support/ui.rs"]
mod ui_support;

use builder::four_against_five;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::ai::Policy;
use powderhorn::app::App;
use powderhorn::model::ScenarioId;
use std::time::{Duration, Instant};
use ui_support::{app_on_with, harness_sized};

fn app(dir: &tempfile::TempDir, size: egui::Vec2) -> Harness<'static, App> {
    let db = dir.path().join("balance.sqlite");
    let sc = four_against_five()
        .turn_limit(4)
        .side_names("French: the attack", "Austrian: the line")
        .set("id", serde_json::json!("balance-test"))
        .set("name", serde_json::json!("Balance test"));
    let mut h = harness_sized(app_on_with(&db, &sc.scenario()), size);
    h.run();
    h.get_by_label("Scenarios").click();
    h.run();
    h
}

/// Some label of the window contains `text`.
fn has(h: &Harness<'static, App>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

/// Clicks "Balance…" on the test scenario's row (one such button per stored scenario, in the
/// order the store lists them).
fn open_balance(h: &mut Harness<'static, App>) {
    let row = h
        .state()
        .store()
        .expect("store")
        .scenario_summaries()
        .expect("summaries")
        .iter()
        .position(|s| s.id.as_str() == "balance-test")
        .expect("the test scenario is listed");
    let buttons = h.query_all_by_label("Balance…").collect::<Vec<_>>();
    buttons
        .get(row)
        .expect("a Balance… button per row")
        .click_accesskit();
    h.run_steps(2);
}

/// Steps the window until the games are over (at most a minute).
fn wait_until_done(h: &mut Harness<'static, App>) {
    let start = Instant::now();
    while h.state().balance_running() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the balance games did not finish"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    h.run_steps(3);
}

#[test]
fn balance_plays_the_games_and_shows_the_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = app(&dir, egui::vec2(1400.0, 900.0));
    open_balance(&mut h);
    assert!(has(&h, "Balance of Balance test"));
    h.state_mut().ui_state.balance.runs = 6;
    h.state_mut().ui_state.balance.threads = 2;
    h.get_by_label("Start").click_accesskit();
    h.run_steps(2);
    wait_until_done(&mut h);
    let (id, report) = h.state().balance_report().expect("a report");
    assert_eq!(id, &ScenarioId::new("balance-test"));
    assert_eq!(report.games, 6);
    let verdict = report.verdict.clone();
    for label in [
        "Results, with 95% intervals",
        "French win",
        "Austrian win",
        "Draw",
        "Victory points (VP-01)",
        "Stands lost",
        "Game length",
        "Objectives reached (OBJ-01)",
        "Units: how often each came through, and the stands it lost on average",
        "6 games in",
    ] {
        assert!(has(&h, label), "no {label:?} in the balance window");
    }
    assert!(h.query_by_label(&verdict).is_some(), "the verdict is shown");
}

#[test]
fn stop_ends_a_long_run_with_the_games_finished() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = app(&dir, egui::vec2(1024.0, 640.0));
    open_balance(&mut h);
    h.state_mut().ui_state.balance.runs = 5_000;
    h.state_mut().ui_state.balance.threads = 1;
    h.get_by_label("Start").click_accesskit();
    h.run_steps(2);
    assert!(h.state().balance_running());
    // The progress shows, with Stop, and who plays each side.
    let start = Instant::now();
    while !has(&h, "games done of 5000") {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no progress shown"
        );
        h.step();
    }
    assert!(has(
        &h,
        "Played by — French: Standard opponent; Austrian: Standard opponent"
    ));
    // Wait for a game or two to finish, then Stop.
    let start = Instant::now();
    while !has(&h, "left") || has(&h, "time left: after the first game") {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no game finished"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    h.get_by_label("Stop").click_accesskit();
    h.run_steps(2);
    wait_until_done(&mut h);
    let (_, report) = h
        .state()
        .balance_report()
        .expect("a report of the games finished");
    assert!(
        report.games >= 1 && report.games < 5_000,
        "{}",
        report.games
    );
    assert!(has(&h, "Stopped after"));
    assert!(has(&h, "Results, with 95% intervals"));
}

/// Closing the window while the games run stops them: nothing keeps the cores busy out of sight.
#[test]
fn closing_the_window_stops_the_games() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = app(&dir, egui::vec2(1024.0, 640.0));
    open_balance(&mut h);
    h.state_mut().ui_state.balance.runs = 5_000;
    h.state_mut().ui_state.balance.threads = 1;
    h.get_by_label("Start").click_accesskit();
    h.run_steps(2);
    assert!(h.state().balance_running());
    h.get_by_label("Close window").click_accesskit();
    h.run_steps(2);
    wait_until_done(&mut h);
    assert!(!h.state().balance_running());
    if let Some((_, report)) = h.state().balance_report() {
        assert!(
            report.games < 5_000,
            "{} games: the run was not stopped",
            report.games
        );
    }
    assert!(h.query_by_label("Stop").is_none(), "the window is closed");
}

/// The Austrian side played by the hold baseline, chosen in the window: the games are played
/// so, and the report says so (in its header line and its verdict).
#[test]
fn a_side_can_be_played_by_the_hold_baseline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = app(&dir, egui::vec2(1024.0, 640.0));
    open_balance(&mut h);
    // Both sides are offered the choice, by their names; the standard opponent by default.
    assert!(has(&h, "French played by:") && has(&h, "Austrian played by:"));
    assert_eq!(h.state().ui_state.balance.policies, [Policy::Standard; 2]);
    h.get_by_label("Austrian played by").click();
    h.run();
    h.get_by_label("Hold (baseline: fires from where it stands)")
        .click();
    h.run();
    assert_eq!(
        h.state().ui_state.balance.policies,
        [Policy::Standard, Policy::Hold]
    );
    h.state_mut().ui_state.balance.runs = 4;
    h.state_mut().ui_state.balance.threads = 2;
    h.get_by_label("Start").click_accesskit();
    h.run_steps(2);
    wait_until_done(&mut h);
    let (_, report) = h.state().balance_report().expect("a report");
    assert_eq!(report.games, 4);
    assert_eq!(report.policies, [Policy::Standard, Policy::Hold]);
    assert!(
        report
            .verdict
            .starts_with("Austrian side played by the hold baseline"),
        "{}",
        report.verdict
    );
    assert!(has(
        &h,
        "Played by — French: Standard opponent; Austrian: Hold (baseline: fires from where it stands)"
    ));
    // The choice stays for the next run.
    assert_eq!(
        h.state().ui_state.balance.policies,
        [Policy::Standard, Policy::Hold]
    );
}
