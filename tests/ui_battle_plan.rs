//! The battle page's "The computer's plan" (issue #20: a "why" line per HQ task): in a
//! solo battle it lists, when opened, each of the computer's command units with its task and
//! why — the plan the opponent plays by; with fog of war it says why it is hidden; in hot-seat
//! there is no computer and no fold.

#[path = "support/builder.rs"]
mod builder;
#[path = "support/ui.rs"]
mod ui_support;

use egui_kittest::kittest::{NodeT, Queryable};
use powderhorn::ui::battle_plan::HEADING;
use ui_support::{app_on, harness, start_with, EBELSBERG, FOG, HOTSEAT};

#[test]
fn a_solo_battle_shows_the_computers_task_and_why_for_each_command_unit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = harness(app_on(&dir.path().join("ui.sqlite")));
    start_with(&mut h, EBELSBERG, &[]);
    // Folded until opened.
    assert!(h.query_by_label_contains("Brigade Bianchi —").is_none());
    h.get_by_label(HEADING).click();
    h.run();
    // The computer plays the Austrians, the scenario's defender (DEF-01): a brigade holds the
    // objective, and with three formations of foot the one deployed farthest from it is the
    // reserve (docs/autoplay.md, The plan); each line says why.
    let line = h
        .query_by_label_contains("Brigade Bianchi — hold:")
        .expect("the Austrian brigade's task");
    let node = line.accesskit_node();
    let text = node.value().or_else(|| node.label()).unwrap_or_default();
    assert!(text.starts_with("Brigade Bianchi — hold: "), "{text:?}");
    assert!(text.len() > "Brigade Bianchi — hold: ".len(), "{text:?}");
    assert!(h
        .query_by_label_contains("Brigade Hohenfeld — reserve:")
        .is_some());
    // The French (the person's side) are not the computer's: no task of theirs is shown.
    assert!(h.query_by_label_contains("Brigade Coëhorn —").is_none());
}

#[test]
fn with_fog_of_war_the_plan_is_hidden_and_hot_seat_has_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = harness(app_on(&dir.path().join("ui.sqlite")));
    start_with(&mut h, EBELSBERG, &[FOG]);
    h.get_by_label(HEADING).click();
    h.run();
    assert!(h
        .query_by_label_contains("Hidden while fog of war is on")
        .is_some());
    assert!(h.query_by_label_contains("Brigade Bianchi —").is_none());

    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = harness(app_on(&dir.path().join("ui.sqlite")));
    start_with(&mut h, EBELSBERG, &[HOTSEAT]);
    assert!(h.query_by_label(HEADING).is_none());
}
