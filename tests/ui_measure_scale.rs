//! BAS-01 in the scenario editor: the "Figure scale" combo box of the scenario settings sets
//! the scenario's measure scale, which is saved at once.

#[path = "support/ui.rs"]
mod ui_support;

use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::model::{samples, MeasureScale, Scenario};
use ui_support::{app_with, harness_sized, open_scenario_tab};

/// The first sample's settings tab in the window, and the sample.
fn sample_settings() -> (Harness<'static, App>, Scenario) {
    let scenario = samples::scenarios()
        .expect("the samples parse")
        .into_iter()
        .next()
        .expect("a sample scenario");
    let mut h = harness_sized(app_with(&scenario), egui::vec2(1280.0, 800.0));
    open_scenario_tab(&mut h, &scenario.name, "Scenario settings");
    (h, scenario)
}

#[test]
fn bas_01_the_figure_scale_combo_sets_and_saves_the_measure_scale() {
    let (mut h, scenario) = sample_settings();
    assert_eq!(
        h.state().open_scenario().map(|s| s.measure_scale),
        Some(MeasureScale::Printed)
    );
    h.get_by_label("Figure scale").click();
    h.run();
    h.get_by_label("20–28 mm").click();
    h.run();
    assert_eq!(
        h.state().open_scenario().map(|s| s.measure_scale),
        Some(MeasureScale::Double)
    );
    let saved = h
        .state()
        .store()
        .and_then(|s| s.load_scenario(&scenario.id).ok())
        .map(|s| s.measure_scale);
    assert_eq!(saved, Some(MeasureScale::Double), "saved on the edit");
}

/// SEQ-01 in the scenario editor: the "First move" combo box names the side that moves first
/// or leaves it to a roll-off, and the choice is saved at once.
#[test]
fn seq_01_the_first_move_combo_names_a_side_or_a_roll_off_and_saves_it() {
    let (mut h, scenario) = sample_settings();
    let saved = |h: &Harness<'static, App>| {
        h.state()
            .store()
            .and_then(|s| s.load_scenario(&scenario.id).ok())
            .map(|s| s.first_player)
    };
    assert_eq!(saved(&h), Some(scenario.first_player));
    h.get_by_label("First move").click();
    h.run();
    h.get_by_label("Roll off").click();
    h.run();
    assert_eq!(saved(&h), Some(None), "a roll-off, saved on the edit");
    // The second side's entry in the list that opens (its name is in the tree too).
    let second = scenario.sides[1].name.clone();
    let before: Vec<_> = h
        .get_all_by_label(&second)
        .map(|n| n.accesskit_node().id())
        .collect();
    h.get_by_label("First move").click();
    h.run();
    h.get_all_by_label(&second)
        .find(|n| !before.contains(&n.accesskit_node().id()))
        .expect("the second side in the list")
        .click();
    h.run();
    assert_eq!(saved(&h), Some(Some(1)));
    // The start form takes the choice as saved: the second side moves first.
    h.get_by_label("Battles").click();
    h.run();
    h.get_by_label("Scenario").click();
    h.run();
    h.get_all_by_label(&scenario.name)
        .last()
        .expect("the scenario in the start form's list")
        .click();
    h.run();
    assert_eq!(h.state().ui_state.start.first_player, Some(1));
}
