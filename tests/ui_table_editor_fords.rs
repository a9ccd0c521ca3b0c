//! The table editor's fords (issue #18 item 2, TERR-07) driven headless with `egui_kittest`:
//! a river's Crossings panel adds a ford where the pointer last was over the river; the ford is
//! saved to the store, listed among the crossings with its kind beside the sample's bridge, and
//! one undo takes it away again (what the engine makes of a ford: tests/engine_fords.rs).
//!
//! The table is the Ebelsberg sample's (240 × 180 cm): the Traun (feature 1, deep water) runs
//! across y 54.2..72.2 at x 10, away from the roads; the sample's bridge is feature 2.

#[path = "support/ui.rs"]
mod ui_support;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::geom::{ring_contains, Point};
use powderhorn::model::{FeatureId, Geometry, Scenario, TerrainKind};
use ui_support::{app_with, click_cm, harness_sized, open_scenario_tab, tool};

fn sample() -> Scenario {
    ui_support::ebelsberg_sample()
}

fn stored(h: &Harness<'static, App>) -> Scenario {
    ui_support::stored_scenario(h, &sample().id)
}

#[test]
fn terr_07_a_ford_added_by_the_river_panel_is_saved_listed_and_undone() {
    let scenario = sample();
    let mut h = harness_sized(app_with(&scenario), egui::vec2(1500.0, 950.0));
    open_scenario_tab(&mut h, &scenario.name, "Table");
    tool(&mut h, "Select");
    click_cm(&mut h, Point::new(10.0, 64.0));
    assert_eq!(
        h.state().ui_state.table_editor.selected_feature,
        Some(FeatureId(1)),
        "the Traun is selected"
    );
    // The sample's bridge is listed, with its kind.
    let bridge = scenario
        .terrain
        .iter()
        .find(|f| f.id == FeatureId(2))
        .expect("the sample's bridge");
    h.get_by_label(&bridge.name);
    h.get_by_label("Bridge");
    assert!(h.query_by_label("Ford").is_none(), "no ford yet");
    let before = stored(&h).terrain.len();

    h.get_by_label("Add a ford").click();
    h.run();
    h.run();
    let s = stored(&h);
    assert_eq!(s.terrain.len(), before + 1, "the ford is saved");
    let ford = s.terrain.last().expect("the ford");
    assert_eq!(ford.kind, TerrainKind::ShallowWet);
    let Geometry::Polyline { points, width_cm } = &ford.geometry else {
        panic!(
            "a ford is shallow water drawn as a line: {:?}",
            ford.geometry
        )
    };
    assert_eq!(*width_cm, 12.0, "room for a battalion in line");
    // Across the river where the pointer was (x 10), from dry ground to dry ground.
    let river = s
        .terrain
        .iter()
        .find(|f| f.id == FeatureId(1))
        .expect("the Traun")
        .geometry
        .points()
        .to_vec();
    assert_eq!(points.len(), 2);
    assert!(
        points.iter().all(|p| !ring_contains(&river, *p)),
        "{points:?}"
    );
    assert!(
        points.iter().all(|p| (p.x - 10.0).abs() < 3.0),
        "{points:?}"
    );
    let (ya, yb) = (points[0].y.min(points[1].y), points[0].y.max(points[1].y));
    assert!(ya < 54.2 && yb > 72.2, "it spans the river: {points:?}");
    // Listed among the crossings, with its kind.
    h.get_by_label(&ford.name);
    h.get_by_label("Ford");
    h.get_by_label(&bridge.name);

    // One undo takes it away, from the store and the list.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    h.run();
    let s = stored(&h);
    assert_eq!(s.terrain.len(), before, "undone");
    assert!(s.terrain.iter().all(|f| f.kind != TerrainKind::ShallowWet));
    assert!(h.query_by_label(&ford.name).is_none(), "no longer listed");
}
