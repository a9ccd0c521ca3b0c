//! BAS-01 in the scenario editor: the "Figure scale" combo box of the scenario settings sets
//! the scenario's measure scale, which is saved at once.

#[path = "support/ui.rs"]
mod ui_support;

use egui_kittest::kittest::Queryable;
use powderhorn::model::{samples, MeasureScale};
use ui_support::{app_with, harness_sized, open_scenario_tab};

#[test]
fn bas_01_the_figure_scale_combo_sets_and_saves_the_measure_scale() {
    let scenario = samples::scenarios()
        .expect("the samples parse")
        .into_iter()
        .next()
        .expect("a sample scenario");
    let mut h = harness_sized(app_with(&scenario), egui::vec2(1280.0, 800.0));
    open_scenario_tab(&mut h, &scenario.name, "Scenario settings");
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
