//! BAS-01 in the scenario editor: the "Figure scale" combo box of the scenario settings sets
//! the scenario's measure scale, which is saved at once.

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::model::{samples, MeasureScale};
use powderhorn::store::Store;

#[test]
fn bas_01_the_figure_scale_combo_sets_and_saves_the_measure_scale() {
    let scenario = samples::scenarios()
        .expect("the samples parse")
        .into_iter()
        .next()
        .expect("a sample scenario");
    let mut store = Store::open_in_memory().expect("a store");
    store.save_scenario(&scenario).expect("saved");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, app: &mut App| app.ui(ui), App::new(store));
    h.get_by_label("Orders of battle").click();
    h.run();
    h.get_all_by_label(&scenario.name)
        .next()
        .expect("the scenario is listed")
        .click();
    h.run();
    h.get_by_label("Scenario settings").click();
    h.run();
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
