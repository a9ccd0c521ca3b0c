//! The order-of-battle editor's FAO checkbox (ART-10), driven headless with `egui_kittest`.

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::model::{CommandLevel, Commander, Hq, HqId, ListId, Quality, Scenario, ScenarioId};
use powderhorn::store::Store;

const TEST_ID: &str = "fao-editor";
const TEST_NAME: &str = "FAO Editor";

fn hq(id: u32, name: &str, parent: Option<u32>, level: CommandLevel) -> Hq {
    Hq {
        id: HqId(id),
        name: name.into(),
        parent: parent.map(HqId),
        commander: Commander {
            id: powderhorn::model::CommanderId(id),
            name: format!("General {id}"),
            note: String::new(),
            level,
            quality: Quality::Average,
            command_value: 7,
            replaced_once: false,
        },
        mounted: true,
        position: None,
        fao: false,
        nation: None,
        ally: false,
    }
}

fn scenario() -> Scenario {
    let lists = [ListId::new("nap-french"), ListId::new("nap-austrian")];
    let all = powderhorn::model::army::shipped_lists().unwrap();
    let mut s = powderhorn::app::edit::template(ScenarioId::new(TEST_ID), TEST_NAME, &lists, &all);
    s.sides[0].hqs = vec![
        hq(1, "II Corps", None, CommandLevel::Corps),
        hq(2, "Grand Battery", Some(1), CommandLevel::Brigade),
    ];
    s.sides[1].hqs = vec![hq(3, "VI Korps", None, CommandLevel::Corps)];
    s
}

#[test]
fn art_10_the_oob_editor_marks_an_hq_as_fao_saves_it_and_undo_clears_it() {
    let mut store = Store::open_in_memory().unwrap();
    store.save_scenario(&scenario()).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, app: &mut App| app.ui(ui), App::new(store));
    h.get_by_label("Orders of battle").click();
    h.run();
    h.get_by_label(TEST_NAME).click();
    h.run();
    h.get_by_label("Grand Battery").click();
    h.run();
    h.get_by_label("FAO").click();
    h.run();
    let fao_of = |h: &Harness<'static, App>| h.state().open_scenario().unwrap().sides[0].hqs[1].fao;
    assert!(fao_of(&h), "the HQ is now an FAO");
    let stored = h
        .state()
        .store()
        .unwrap()
        .load_scenario(&ScenarioId::new(TEST_ID))
        .unwrap();
    assert!(stored.sides[0].hqs[1].fao, "saved at once");
    h.get_by_label("Undo").click();
    h.run();
    assert!(!fao_of(&h), "undo clears it");
}
