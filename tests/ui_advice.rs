//! BAS-04 and BAS-06 in the scenario editor: the scenario settings show the book's advice on
//! table size, stands a side and terrain cover — as quiet notes, not as problems.

#[path = "support/ui.rs"]
mod ui_support;

use egui_kittest::kittest::Queryable;
use powderhorn::model::advice::scenario_advice;
use powderhorn::model::army::shipped_lists;
use powderhorn::model::samples;
use powderhorn::model::validate::validate_scenario;
use ui_support::{app_with, harness_sized, open_scenario_tab};

#[test]
fn bas_04_bas_06_the_scenario_settings_show_the_books_advice() {
    let mut scenario = samples::scenarios()
        .expect("the samples parse")
        .into_iter()
        .next()
        .expect("a sample scenario");
    // A kitchen-table game: smaller than the book's 180 × 240 cm.
    scenario.table.width_cm = 150.0;
    scenario.table.depth_cm = 100.0;
    let advice = scenario_advice(&scenario);
    let table = advice
        .iter()
        .find(|a| a.rule == "BAS-04" && a.message.starts_with("the table is 150 × 100 cm"))
        .expect("a table below the book's size is advised")
        .message
        .clone();
    let mut h = harness_sized(app_with(&scenario), egui::vec2(1280.0, 800.0));
    open_scenario_tab(&mut h, &scenario.name, "Scenario settings");
    h.get_by_label("TABLE AND GAME SIZE");
    h.get_by_label(&table);
    assert_eq!(
        h.query_all_by_label("BAS-04").count() + h.query_all_by_label("BAS-06").count(),
        advice.len(),
        "every piece of advice is shown: {advice:?}"
    );
    // Advice is not a problem: validation does not report it.
    let lists = shipped_lists().expect("the shipped lists");
    assert!(validate_scenario(&scenario, &lists)
        .iter()
        .all(|v| !v.rule.starts_with("BAS")));
}
