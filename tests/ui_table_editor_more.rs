//! More of the table editor (issue #18 items 2, 6, 7) driven headless with `egui_kittest`, by
//! label and by table position, as `tests/ui_table_editor.rs` does: snapping, turning a feature,
//! taking a corner out, a river's bridge, units dragged from the order-of-battle tree, "Deploy
//! this HQ", and the book's table advice as the designer draws.
//!
//! The table is the Ebelsberg sample's (240 × 180 cm): the French deploy in y 0..50, the river
//! Traun runs across y 54..76, the ground at x 0..58, y 77..128 is open cloth, and the fields
//! south of the town have a corner at (62, 98).

#[path = "support/ui.rs"]
mod ui_support;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::geom::{ring_contains, Point};
use powderhorn::model::{FeatureId, Geometry, Scenario, TerrainKind};
use ui_support::{
    app_with, click_cm, harness_sized, near_cm as near, open_scenario_tab, press_and_move, screen,
    tool,
};

fn sample() -> Scenario {
    ui_support::ebelsberg_sample()
}

fn stored(h: &Harness<'static, App>) -> Scenario {
    ui_support::stored_scenario(h, &sample().id)
}

fn editor_of(scenario: &Scenario) -> Harness<'static, App> {
    let mut h = harness_sized(app_with(scenario), egui::vec2(1500.0, 950.0));
    open_scenario_tab(&mut h, &scenario.name, "Table");
    h
}

fn editor() -> Harness<'static, App> {
    editor_of(&sample())
}

fn drop_at(h: &mut Harness<'static, App>, b: egui::Pos2) {
    h.drop_at(b);
    h.run();
    h.run();
}

fn feature(s: &Scenario, id: FeatureId) -> Vec<Point> {
    s.terrain
        .iter()
        .find(|f| f.id == id)
        .expect("the feature")
        .geometry
        .points()
        .to_vec()
}

/// Draws an area of high ground (a wood) through `corners` and closes it with Enter; returns
/// its id. The new wood is left selected.
fn draw_wood(h: &mut Harness<'static, App>, corners: &[Point]) -> FeatureId {
    tool(h, "Draw area");
    h.get_by_label("High area").click();
    h.run();
    for p in corners {
        click_cm(h, *p);
    }
    h.key_press(Key::Enter);
    h.run();
    h.run();
    let s = stored(h);
    let f = s.terrain.last().expect("the new wood");
    assert_eq!(
        f.geometry.points().len(),
        corners.len(),
        "the wood was saved"
    );
    f.id
}

/// A 20 cm square wood on open cloth, centred at (20, 100).
fn square() -> Vec<Point> {
    vec![
        Point::new(10.0, 90.0),
        Point::new(30.0, 90.0),
        Point::new(30.0, 110.0),
        Point::new(10.0, 110.0),
    ]
}

#[test]
fn snapping_with_s_puts_a_dragged_corner_on_another_features_corner() {
    let mut h = editor();
    let id = draw_wood(&mut h, &square());
    tool(&mut h, "Select");
    // S turns snapping on; the tool bar shows it.
    assert!(!h.state().ui_state.table_editor.snap);
    h.key_press(Key::S);
    h.run();
    assert!(h.state().ui_state.table_editor.snap, "S turned snapping on");
    h.get_by_label("Snap (S)");
    // Drag the corner (30, 90) to (61.4, 97.5): 0.78 cm short of the fields' corner (62, 98).
    let target = Point::new(62.0, 98.0);
    let (a, b) = (
        screen(&h, Point::new(30.0, 90.0)),
        screen(&h, Point::new(61.4, 97.5)),
    );
    press_and_move(&mut h, a, b);
    // While dragging, the marker sits on the corner it will snap to.
    let mark = h
        .state()
        .ui_state
        .table_editor
        .snap_mark()
        .expect("a snap target is shown");
    assert_eq!((mark.x, mark.y), (62.0, 98.0), "the fields' corner exactly");
    drop_at(&mut h, b);
    let pts = feature(&stored(&h), id);
    assert_eq!(
        pts[1], target,
        "the corner went onto the fields' corner: {pts:?}"
    );
    assert!(near(pts[0], square()[0]) && near(pts[2], square()[2]));

    // With snapping off (S again) the same drag keeps the exact drop point.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    h.key_press(Key::S);
    h.run();
    assert!(!h.state().ui_state.table_editor.snap);
    press_and_move(&mut h, a, b);
    assert!(h.state().ui_state.table_editor.snap_mark().is_none());
    drop_at(&mut h, b);
    let pts = feature(&stored(&h), id);
    assert!(near(pts[1], Point::new(61.4, 97.5)), "{pts:?}");
}

#[test]
fn snapping_puts_a_corner_near_the_table_edge_onto_the_edge() {
    let mut h = editor();
    h.key_press(Key::S);
    h.run();
    // Corners 0.6 cm in from the left edge go onto x = 0.
    let corners = [
        Point::new(0.6, 90.0),
        Point::new(20.0, 90.0),
        Point::new(20.0, 110.0),
        Point::new(0.6, 110.0),
    ];
    let id = draw_wood(&mut h, &corners);
    let pts = feature(&stored(&h), id);
    assert_eq!(pts[0].x, 0.0, "{pts:?}");
    assert_eq!(pts[3].x, 0.0, "{pts:?}");
    assert!(near(pts[1], corners[1]));
}

#[test]
fn r_turns_the_selected_wood_by_15_degrees_and_one_undo_turns_it_back() {
    let mut h = editor();
    let id = draw_wood(&mut h, &square());
    tool(&mut h, "Select");
    h.key_press(Key::R);
    h.run();
    h.run();
    // About its middle (20, 100): the corner (10, 90) is (-10, -10) from it; turned by 15°,
    // x = -10 cos 15° + 10 sin 15° = -9.6593 + 2.5882 = -7.0711,
    // y = -10 sin 15° - 10 cos 15° = -2.5882 - 9.6593 = -12.2474.
    let pts = feature(&stored(&h), id);
    assert!(near(pts[0], Point::new(12.9289, 87.7526)), "{pts:?}");
    // (30, 90) is (10, -10): x = 9.6593 + 2.5882 = 12.2474, y = 2.5882 - 9.6593 = -7.0711.
    assert!(near(pts[1], Point::new(32.2474, 92.9289)), "{pts:?}");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    let pts = feature(&stored(&h), id);
    for (got, want) in pts.iter().zip(square()) {
        assert!(near(*got, want), "{pts:?}");
    }
    // Shift+R turns it the other way: (10, 90) goes to (-10 cos 15° - 10 sin 15°, ...)
    // = (20 - 12.2474, 100 + 2.5882 - 9.6593) = (7.7526, 92.9289).
    h.key_press_modifiers(Modifiers::SHIFT, Key::R);
    h.run();
    h.run();
    let pts = feature(&stored(&h), id);
    assert!(near(pts[0], Point::new(7.7526, 92.9289)), "{pts:?}");
}

#[test]
fn data_05_a_picked_corner_is_deleted_and_the_last_three_stay() {
    let mut h = editor();
    let id = draw_wood(&mut h, &square());
    tool(&mut h, "Select");
    // Pick the corner (30, 110) and press Delete.
    click_cm(&mut h, Point::new(30.0, 110.0));
    assert_eq!(h.state().ui_state.table_editor.selected_corner, Some(2));
    h.key_press(Key::Delete);
    h.run();
    h.run();
    let pts = feature(&stored(&h), id);
    assert_eq!(pts.len(), 3, "{pts:?}");
    assert!(near(pts[2], Point::new(10.0, 110.0)), "{pts:?}");
    // A right-click on a corner of the three is refused: an area keeps three corners.
    let at = screen(&h, Point::new(10.0, 90.0));
    h.hover_at(at);
    h.run();
    h.event(egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Secondary,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    h.step();
    h.event(egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Secondary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    h.run();
    assert_eq!(feature(&stored(&h), id).len(), 3, "the corner stays");
    let note = h
        .state()
        .ui_state
        .table_editor
        .note
        .clone()
        .unwrap_or_default();
    assert!(
        note.contains("DATA-05") && note.contains("at least 3"),
        "{note}"
    );
    h.get_by_label(&note);
    // The feature itself is still there: one undo brings the fourth corner back.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(feature(&stored(&h), id).len(), 4);
}

#[test]
fn terr_07_a_bridge_added_to_the_river_is_a_road_across_it() {
    let mut scenario = sample();
    // The river without its bridge.
    scenario.terrain.retain(|f| f.id != FeatureId(2));
    let mut h = editor_of(&scenario);
    tool(&mut h, "Select");
    // The Traun, at x 10 (y 54.2..72.2): away from the roads.
    click_cm(&mut h, Point::new(10.0, 64.0));
    assert_eq!(
        h.state().ui_state.table_editor.selected_feature,
        Some(FeatureId(1))
    );
    h.get_by_label("No crossing yet.");
    h.get_by_label("Add a bridge").click();
    h.run();
    h.run();
    let s = stored(&h);
    let b = s.terrain.last().expect("the bridge");
    assert_eq!(b.kind, TerrainKind::Road);
    let Geometry::Polyline { points, width_cm } = &b.geometry else {
        panic!("a bridge is a road line: {:?}", b.geometry)
    };
    assert_eq!(*width_cm, 4.0);
    // Its two ends lie on dry ground either side of the river.
    let river = feature(&s, FeatureId(1));
    assert_eq!(points.len(), 2);
    assert!(
        points.iter().all(|p| !ring_contains(&river, *p)),
        "{points:?}"
    );
    let (ya, yb) = (points[0].y.min(points[1].y), points[0].y.max(points[1].y));
    assert!(ya < 56.0 && yb > 74.0, "it spans the river: {points:?}");
    h.get_by_label(&b.name);
}

/// The screen point of a row of the units tree.
fn row(h: &Harness<'static, App>, label: &str) -> egui::Pos2 {
    h.get_by_label(label).rect().center()
}

#[test]
fn seq_01_a_unit_dragged_from_the_tree_onto_the_table_inside_and_outside_its_zone() {
    let mut scenario = sample();
    for u in &mut scenario.sides[0].units {
        if u.name == "Tirailleurs du Pô" {
            u.position = None;
        }
    }
    let mut h = editor_of(&scenario);
    tool(&mut h, "Place units");
    // Into the French zone (y 0..50), on open ground at (40, 10).
    let inside = Point::new(40.0, 10.0);
    let (a, b) = (row(&h, "○ Tirailleurs du Pô"), screen(&h, inside));
    press_and_move(&mut h, a, b);
    drop_at(&mut h, b);
    let s = stored(&h);
    let u = s.sides[0]
        .units
        .iter()
        .find(|u| u.name == "Tirailleurs du Pô")
        .expect("the unit");
    let p = u.position.expect("placed by the drop");
    assert!(near(p.at, inside), "{p:?}");
    assert_eq!(p.facing_deg, 0.0, "the French face the enemy, +y");
    let problems = h
        .state()
        .ui_state
        .table_editor
        .placement_problems()
        .to_vec();
    assert!(
        !problems
            .iter()
            .any(|v| v.message.contains("Tirailleurs du Pô")),
        "{problems:?}"
    );
    // Then out of it, across the river at (30, 100): SEQ-01 names it.
    let outside = Point::new(30.0, 100.0);
    let (a, b) = (row(&h, "● Tirailleurs du Pô"), screen(&h, outside));
    press_and_move(&mut h, a, b);
    drop_at(&mut h, b);
    let s = stored(&h);
    let u = s.sides[0]
        .units
        .iter()
        .find(|u| u.name == "Tirailleurs du Pô")
        .expect("the unit");
    assert!(near(u.position.expect("placed").at, outside));
    let problems = h.state().ui_state.table_editor.placement_problems();
    assert!(
        problems
            .iter()
            .any(|v| v.rule == "SEQ-01" && v.message.contains("Tirailleurs du Pô")),
        "{problems:?}"
    );
    assert!(h
        .query_all_by_label_contains("SEQ-01: unit 'Tirailleurs du Pô' (id 101")
        .next()
        .is_some());
}

#[test]
fn deploy_this_hq_lays_the_brigade_out_in_the_zone_clear_of_the_rest() {
    let mut scenario = sample();
    // Brigade Coëhorn (HQ 3) and its units taken off the table; the rest stay.
    let side = &mut scenario.sides[0];
    for u in side.units.iter_mut().filter(|u| u.hq.0 == 3) {
        u.position = None;
    }
    for hq in side.hqs.iter_mut().filter(|x| x.id.0 == 3) {
        hq.position = None;
    }
    let brigade: Vec<_> = side
        .units
        .iter()
        .filter(|u| u.hq.0 == 3)
        .map(|u| u.id)
        .collect();
    assert!(brigade.len() >= 3, "the brigade has units");
    let others: Vec<_> = side
        .units
        .iter()
        .filter(|u| u.hq.0 != 3)
        .map(|u| (u.id, u.position))
        .collect();
    let mut h = editor_of(&scenario);
    tool(&mut h, "Place units");
    h.get_by_label("Deploy this HQ: Brigade Coëhorn").click();
    h.run();
    h.run();
    let s = stored(&h);
    let zone = &s.sides[0].deployment_zone;
    for u in s.sides[0].units.iter().filter(|u| brigade.contains(&u.id)) {
        let p = u.position.expect("every unit of the brigade placed");
        assert!(ring_contains(zone, p.at), "{}: {p:?}", u.name);
        assert_eq!(p.facing_deg, 0.0);
    }
    let hq = s.sides[0].hq(powderhorn::model::HqId(3)).expect("the HQ");
    assert!(hq.position.is_some_and(|p| ring_contains(zone, p.at)));
    // Nobody else moved, and none of the brigade overlaps another piece.
    for (id, at) in others {
        assert_eq!(s.sides[0].unit(id).expect("unit").position, at);
    }
    let problems = h.state().ui_state.table_editor.placement_problems();
    let clash = problems.iter().find(|v| {
        matches!(v.subject, powderhorn::model::validate::Subject::Unit(0, u) if brigade.contains(&u))
    });
    assert!(clash.is_none(), "{clash:?}");
}

#[test]
fn bas_06_the_cover_advice_changes_when_a_big_wood_is_drawn() {
    use powderhorn::model::advice::terrain_cover;
    let mut h = editor();
    let before = terrain_cover(&stored(&h));
    let pct = |x: f64| (x * 100.0).round();
    h.get_by_label_contains(&format!("Terrain covers {}% of the table", pct(before)));
    h.get_by_label_contains("Table 240 × 180 cm: big enough");
    // A 50 × 50 cm wood on the open cloth at x 4..54, y 77..127: 2500 cm² of 240 × 180 =
    // 43,200 cm², 5.79% more.
    draw_wood(
        &mut h,
        &[
            Point::new(4.0, 77.0),
            Point::new(54.0, 77.0),
            Point::new(54.0, 127.0),
            Point::new(4.0, 127.0),
        ],
    );
    let after = terrain_cover(&stored(&h));
    assert!(
        (after - before - 2500.0 / 43_200.0).abs() < 0.001,
        "{before} → {after}"
    );
    h.get_by_label_contains(&format!("Terrain covers {}% of the table", pct(after)));
    assert_ne!(pct(before), pct(after));
}
