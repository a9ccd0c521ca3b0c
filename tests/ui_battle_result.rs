//! The result page driven headless with `egui_kittest` (issue #17 item 9): a small battle is
//! started and played to its end through `AppCommand`s (the referee removes units, a side
//! concedes), the page shows the headline, the VP lines and both charts; "Back to the table"
//! and back; "Export battle file…" writes a battle file that replays to the same result;
//! "Print result (PDF)…" writes a PDF with the winner's line.
//!
//! Worked by hand: French (Side A) and Austrian (Side B) line infantry cost 55 a stand, so a
//! unit of 5 is 275 VPs (VP-01). The Austrians lose units 1 and 2 (550 to Side A), the French
//! unit 1 (275 to Side B), then the Austrians concede (END-03 (4)): OBJ-01 counts none for
//! both, a draw; no cap (VP-02: Side B's 275 is not above 550); VP-03: 550 ≥ 2 × 275, so Side A
//! rises one step to a Minor Victory.

#[path = "support/builder.rs"]
mod builder;
#[path = "support/ui.rs"]
mod ui_support;

use builder::{four_against_five, u};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::export::Paper;
use powderhorn::model::ScenarioId;
use powderhorn::rules::action::Action;
use powderhorn::rules::event::KnockOutCause;
use powderhorn::rules::file::{parse_battle_file, replay, ScenarioRef};
use powderhorn::rules::report::ResultReport;
use powderhorn::ui::battle::StartRequest;
use powderhorn::ui::AppCommand;
use std::time::{Duration, Instant};
use ui_support::{app_on_with, apply_now, harness_sized, send};

/// A stored battle of the small scenario, played to its end by the referee's actions.
fn finished_battle(size: egui::Vec2) -> (tempfile::TempDir, Harness<'static, App>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("result.sqlite");
    let sc = four_against_five()
        .set("id", serde_json::json!("result-test"))
        .set("name", serde_json::json!("Result test"));
    let mut h = harness_sized(app_on_with(&db, &sc.scenario()), size);
    h.run();
    h.get_by_label("Battles").click();
    h.run();
    send(
        &mut h,
        AppCommand::StartBattle(StartRequest {
            scenario: ScenarioId::new("result-test"),
            computer: None,
            referee: true,
            physical: false,
            seed: Some(7),
            full_orders: false,
            first_player: Some(0),
            go_ahead: true,
            fog: false,
        }),
    );
    for a in [
        Action::EndPhase,
        Action::RemoveUnit {
            piece: u(1, 1),
            cause: KnockOutCause::Referee,
        },
        Action::RemoveUnit {
            piece: u(1, 2),
            cause: KnockOutCause::Referee,
        },
        Action::RemoveUnit {
            piece: u(0, 1),
            cause: KnockOutCause::Referee,
        },
        Action::Concede { side: 1 },
    ] {
        send(&mut h, AppCommand::BattleAction(a));
    }
    assert!(
        h.state()
            .messages()
            .iter()
            .all(|m| !m.text.contains("Refused")),
        "{:?}",
        h.state().messages()
    );
    (dir, h)
}

const HEADLINE: &str = "Side A wins: Minor Victory";

#[test]
fn vp_03_result_page_shows_headline_tally_and_charts_once_the_battle_ends() {
    let (_dir, mut h) = finished_battle(egui::vec2(1400.0, 900.0));
    h.get_by_label(HEADLINE);
    h.get_by_label(
        "Why: Side B conceded (END-03); raised a step: Side A earned at least twice the VPs \
         (VP-03).",
    );
    h.get_by_label("Side A: 550 VPs");
    h.get_by_label("Side B: 275 VPs");
    // Each knocked-out unit with its points, and the ×2 upgrade spelled out.
    // Three units of 275, and Side B's earned total (275).
    assert_eq!(h.query_all_by_label("275 VPs").count(), 4);
    assert_eq!(
        h.query_all_by_label("550 VPs").count(),
        1,
        "Side A's earned total"
    );
    h.get_by_label_contains("×2: 550 VPs is at least twice the opponent's 275");
    h.get_by_label("line-infantry-07-15 1");
    h.get_by_label("line-infantry-08-12 1");
    // Both charts are there.
    h.get_by_label("Strength over the game turns");
    h.get_by_label("Losses by unit");

    // Back to the table, and to the result again.
    h.get_by_label("Back to the table").click();
    h.run();
    // The table's side panel keeps the verdict in its "battle is over" box; the page is gone.
    assert!(h.query_by_label("Strength over the game turns").is_none());
    h.get_by_label(HEADLINE);
    h.get_by_label("Show the result").click();
    h.run();
    h.get_by_label("Strength over the game turns");
}

#[test]
fn the_battle_file_exported_from_the_result_replays_to_the_same_result() {
    let (dir, mut h) = finished_battle(egui::vec2(1400.0, 900.0));
    let path = dir.path().join("battle.json");
    send(&mut h, AppCommand::ExportBattleTo(path.clone()));
    let shown = format!("to {}.", path.display());
    h.get_by_label_contains(&shown);
    let text = std::fs::read_to_string(&path).expect("the battle file is written");
    let file = parse_battle_file("battle.json", &text).expect("the battle file parses");
    let ScenarioRef::Inline(scenario) = file.scenario.clone() else {
        panic!("the scenario is inline");
    };
    let replayed = match replay(&file, *scenario, builder::lists()) {
        Ok(b) => b,
        Err(_) => panic!("the battle file replays"),
    };
    let original = h.state().battle_run().expect("open").session.battle();
    let events: Vec<_> = original.events().cloned().collect();
    assert_eq!(replayed.events().cloned().collect::<Vec<_>>(), events);
    let report = ResultReport::of(&replayed);
    assert_eq!(report.headline, HEADLINE);
    assert_eq!(report, ResultReport::of(original));
}

#[test]
fn the_printed_result_has_the_winners_line() {
    let (dir, mut h) = finished_battle(egui::vec2(1400.0, 900.0));
    let path = dir.path().join("result.pdf");
    apply_now(
        &mut h,
        AppCommand::PrintResultTo {
            paper: Paper::A4,
            path: path.clone(),
        },
    );
    let start = Instant::now();
    while h.state().is_printing() {
        assert!(start.elapsed() < Duration::from_secs(60), "printing ended");
        h.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    h.run();
    let report = h.state().last_print().expect("the job reported").clone();
    assert_eq!(report.result, Ok(()));
    let doc = lopdf::Document::load_mem(&std::fs::read(&path).expect("written")).expect("a PDF");
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    let text = doc.extract_text(&pages).expect("text extracts");
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains(HEADLINE), "{text}");
    assert!(text.contains("Side A: 550 VPs"), "{text}");
    assert!(text.contains("Losses by unit"), "{text}");
    h.get_by_label_contains("Wrote ");
}

#[test]
fn the_result_page_fits_a_small_window() {
    let (_dir, h) = finished_battle(egui::vec2(1024.0, 640.0));
    h.get_by_label(HEADLINE);
    h.get_by_label("Print result (PDF)…");
    h.get_by_label("Side A: 550 VPs");
}
