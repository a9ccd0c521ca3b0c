//! The table editor (issue #18) driven headless with `egui_kittest`, by label and by table
//! position: the tests point at table centimetres through the projector the table view used for
//! its last frame, exactly as a hand on the mouse would.
//!
//! The table is the Ebelsberg sample's (240 × 180 cm): the French deploy in y 0..50, the
//! Austrians beyond the river (y 54..76); the ground at x 10..40, y 85..115 is open cloth.

#[path = "support/ui.rs"]
mod ui_support;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::geom::Point;
use powderhorn::model::{Geometry, Scenario, TerrainKind};
use ui_support::{
    app_with, click_cm, drag_cm, harness_sized, messages, near_cm as near, open_now as open,
    open_scenario_tab, screen, tool,
};

fn sample() -> Scenario {
    ui_support::ebelsberg_sample()
}

fn stored(h: &Harness<'static, App>) -> Scenario {
    ui_support::stored_scenario(h, &sample().id)
}

/// The app on an in-memory store holding the sample, open on its Table view.
fn editor() -> Harness<'static, App> {
    editor_of(&sample())
}

/// The app on an in-memory store holding `scenario`, open on its Table view.
fn editor_of(scenario: &Scenario) -> Harness<'static, App> {
    let mut h = harness_sized(app_with(scenario), egui::vec2(1500.0, 950.0));
    open_scenario_tab(&mut h, &scenario.name, "Table");
    h
}

fn wood_corners() -> Vec<Point> {
    vec![
        Point::new(10.0, 90.0),
        Point::new(40.0, 92.0),
        Point::new(38.0, 115.0),
        Point::new(12.0, 112.0),
    ]
}

/// Draws the wood corner by corner with the Draw area tool (high area is the default kind) and
/// closes it with Enter.
fn draw_wood(h: &mut Harness<'static, App>) {
    tool(h, "Draw area");
    h.get_by_label("High area").click();
    h.run();
    for p in wood_corners() {
        click_cm(h, p);
    }
    h.key_press(Key::Enter);
    h.run();
    h.run();
}

#[test]
fn a_wood_drawn_corner_by_corner_is_stored_with_those_corners_in_cm() {
    let mut h = editor();
    let before = open(&h).terrain.len();
    draw_wood(&mut h);
    let s = stored(&h);
    assert_eq!(s.terrain.len(), before + 1, "one feature added and saved");
    let f = s.terrain.last().expect("the new wood");
    assert_eq!(f.kind, TerrainKind::HighArea);
    let Geometry::Polygon(ring) = &f.geometry else {
        panic!("an area is a polygon: {:?}", f.geometry)
    };
    assert_eq!(ring.len(), 4);
    for (got, want) in ring.iter().zip(wood_corners()) {
        assert!(near(*got, want), "corner {got:?}, clicked at {want:?}");
    }
    // The whole stroke is one undo step.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(stored(&h).terrain.len(), before);
}

#[test]
fn dragging_a_corner_moves_it_and_undo_puts_it_back() {
    let mut h = editor();
    draw_wood(&mut h);
    let id = open(&h).terrain.last().expect("drawn").id;
    tool(&mut h, "Select");
    // The new wood is selected: its corners have handles. Drag the third, (38, 115), to (45, 120).
    drag_cm(&mut h, Point::new(38.0, 115.0), Point::new(45.0, 120.0));
    let moved = stored(&h);
    let f = moved
        .terrain
        .iter()
        .find(|f| f.id == id)
        .expect("still there");
    let pts = f.geometry.points();
    assert!(near(pts[2], Point::new(45.0, 120.0)), "{pts:?}");
    for i in [0, 1, 3] {
        assert!(
            near(pts[i], wood_corners()[i]),
            "corner {i} unmoved: {pts:?}"
        );
    }
    // One drag, one undo step: the corner is back where it was drawn.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    let back = stored(&h);
    let f = back
        .terrain
        .iter()
        .find(|f| f.id == id)
        .expect("still there");
    assert!(near(f.geometry.points()[2], Point::new(38.0, 115.0)));
    // Redo brings the drag back.
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run();
    let again = stored(&h);
    let f = again
        .terrain
        .iter()
        .find(|f| f.id == id)
        .expect("still there");
    assert!(near(f.geometry.points()[2], Point::new(45.0, 120.0)));
}

#[test]
fn data_07_a_self_crossing_outline_is_refused_with_a_message_and_nothing_saved() {
    let mut h = editor();
    let before = stored(&h);
    tool(&mut h, "Draw area");
    // (10,90) → (30,110) → (30,90) → (10,110): the first and last sides cross at (20, 100).
    for p in [
        Point::new(10.0, 90.0),
        Point::new(30.0, 110.0),
        Point::new(30.0, 90.0),
        Point::new(10.0, 110.0),
    ] {
        click_cm(&mut h, p);
    }
    h.key_press(Key::Enter);
    h.run();
    h.run();
    assert_eq!(stored(&h), before, "nothing saved");
    assert_eq!(open(&h), before, "nothing changed");
    let msgs = messages(&h);
    assert!(
        msgs.iter()
            .any(|m| m.contains("DATA-07") && m.contains("crosses itself")),
        "{msgs:?}"
    );
    // The editor says why the drawing is still there, and keeps it to be mended.
    assert!(h
        .query_all_by_label_contains("Not saved: the outline was refused")
        .next()
        .is_some());
    assert_eq!(h.state().ui_state.table_editor.draft.len(), 4);
    // Backspace takes back the crossing corner; (30, 90) → (10, 90) closes a good triangle.
    h.key_press(Key::Backspace);
    h.run();
    h.key_press(Key::Enter);
    h.run();
    h.run();
    assert_eq!(stored(&h).terrain.len(), before.terrain.len() + 1);
}

#[test]
fn seq_01_a_unit_placed_outside_its_zone_shows_the_violation_live_and_after() {
    let mut h = editor();
    tool(&mut h, "Place units");
    h.get_by_label("● Tirailleurs du Pô").click();
    h.run();
    // The French zone is y 0..50; (30, 100) is open ground across the river.
    let at = Point::new(30.0, 100.0);
    let pos = screen(&h, at);
    h.hover_at(pos);
    h.run();
    h.run();
    // Live, while the footprint follows the pointer.
    assert!(
        h.query_all_by_label_contains("SEQ-01: unit 'Tirailleurs du Pô' (id 101")
            .any(|_| true),
        "the live check names the rule"
    );
    click_cm(&mut h, at);
    let s = stored(&h);
    let u = s.sides[0]
        .units
        .iter()
        .find(|u| u.name == "Tirailleurs du Pô")
        .expect("the unit");
    let p = u.position.expect("placed");
    assert!(near(p.at, at), "{p:?}");
    assert_eq!(p.facing_deg, 0.0, "it keeps its facing");
    // Placed: it is listed among the placement problems with the rule.
    let problems = h.state().ui_state.table_editor.placement_problems();
    assert!(
        problems
            .iter()
            .any(|v| v.rule == "SEQ-01" && v.message.contains("Tirailleurs du Pô")),
        "{problems:?}"
    );
}

#[test]
fn a_sides_minor_objective_is_drawn_on_the_table_and_the_terms_are_stated() {
    let mut h = editor();
    tool(&mut h, "Zones & objectives");
    let french = sample().sides[0].name.clone();
    h.get_by_label(&format!("Draw the minor objective of {french}"))
        .click();
    h.run();
    let corners = vec![
        Point::new(10.0, 10.0),
        Point::new(40.0, 12.0),
        Point::new(25.0, 30.0),
    ];
    for p in &corners {
        click_cm(&mut h, *p);
    }
    h.key_press(Key::Enter);
    h.run();
    h.run();
    let s = stored(&h);
    let area = &s.sides[0].objectives.minor.area;
    assert_eq!(area.len(), 3, "{area:?}");
    for (got, want) in area.iter().zip(&corners) {
        assert!(near(*got, *want), "{got:?} vs {want:?}");
    }
    // The panel states the turn limit and how the battle is decided.
    h.get_by_label("How the battle is decided");
    assert!(h
        .query_all_by_label_contains(&format!("at most {} game turns", s.turn_limit))
        .next()
        .is_some());
}

#[test]
fn a_ready_made_hill_drops_two_contours_where_clicked_and_one_undo_takes_both() {
    let mut h = editor();
    let before = stored(&h).terrain.len();
    tool(&mut h, "Ready-made");
    h.get_by_label("Hill, two contours").click();
    h.run();
    let at = Point::new(30.0, 100.0);
    click_cm(&mut h, at);
    let s = stored(&h);
    assert_eq!(s.terrain.len(), before + 2, "the hill and its crest");
    let levels: Vec<TerrainKind> = s.terrain[before..].iter().map(|f| f.kind).collect();
    assert_eq!(
        levels,
        vec![
            TerrainKind::Hill { level: 1 },
            TerrainKind::Hill { level: 2 }
        ]
    );
    // Centred where clicked: the lower contour spans 20 cm either side of it.
    let xs: Vec<f64> = s.terrain[before]
        .geometry
        .points()
        .iter()
        .map(|p| p.x)
        .collect();
    let (lo, hi) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(*x), b.max(*x)));
    assert!((lo - (at.x - 20.0)).abs() < 0.05 && (hi - (at.x + 20.0)).abs() < 0.05);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(stored(&h).terrain.len(), before, "one piece, one undo step");
}

#[test]
fn deploy_this_side_puts_every_french_unit_inside_the_french_zone() {
    let mut scenario = sample();
    for u in &mut scenario.sides[0].units {
        u.position = None;
    }
    let mut h = editor_of(&scenario);
    tool(&mut h, "Place units");
    h.get_all_by_label("Deploy this side")
        .next()
        .expect("the French side's button comes first")
        .click();
    h.run();
    h.run();
    let s = stored(&h);
    let zone = &s.sides[0].deployment_zone;
    let placed: Vec<_> = s.sides[0].units.iter().filter_map(|u| u.position).collect();
    assert_eq!(placed.len(), s.sides[0].units.len(), "every unit placed");
    assert!(placed
        .iter()
        .all(|p| powderhorn::geom::ring_contains(zone, p.at) && p.facing_deg == 0.0));
}
