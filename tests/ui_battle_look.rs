//! Look before you act (issue #17 items 3 and 4), driven headless with `egui_kittest` on a
//! small test table: the hover card of a unit, a dragged unit's ghost checked live (a legal
//! drop moves it to the centimetre, a refused one shows the rule and moves nothing), and the
//! ruler between two units naming the wood in the way. Canvas items have no accessibility
//! nodes, so the tests point at table centimetres through the view's own projector; the card,
//! the ghost's verdict and the ruler's answer are labels.

#[path = "support/builder.rs"]
mod builder;
#[path = "support/ui.rs"]
mod ui_support;

use builder::{ring, Sc, AUS_LINE, FR_LINE};
use egui::{Event, Modifiers};
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::geom::Point;
use powderhorn::model::UnitId;
use powderhorn::rules::api::Options;
use powderhorn::rules::{PieceId, Pose};
use std::path::Path;
use ui_support::{
    app_on_with, end_phase, entries, harness, start_with, FULL_ORDERS, GO_AHEAD, HOTSEAT,
};

fn unit(side: usize, id: u32) -> PieceId {
    PieceId::Unit {
        side,
        unit: UnitId(id),
    }
}

/// Two French battalions facing +y at (60, 30) and (150, 30); two Austrian ones facing them at
/// (60, 70) and (150, 90); a wood (x 135..165, y 50..65) between the second pair only; and a
/// third pair 6 cm apart, French (110, 30) facing +y and Austrian (110, 36) facing it.
fn look_table() -> Sc {
    Sc::nap()
        .set("name", serde_json::json!("Look table"))
        .unit(0, 1, FR_LINE, 4, 60.0, 30.0, 0.0)
        .unit(1, 2, AUS_LINE, 4, 60.0, 70.0, 180.0)
        .unit(0, 3, FR_LINE, 4, 150.0, 30.0, 0.0)
        .unit(1, 4, AUS_LINE, 4, 150.0, 90.0, 180.0)
        .unit(0, 5, FR_LINE, 4, 110.0, 30.0, 0.0)
        .unit(1, 6, AUS_LINE, 4, 110.0, 36.0, 180.0)
        .hq_at(0, 20.0, 10.0)
        .hq_at(1, 20.0, 170.0)
        .feature(
            "high_area",
            serde_json::json!({"polygon": ring(&[(135.0, 50.0), (165.0, 50.0), (165.0, 65.0),
                                                 (135.0, 65.0)])}),
        )
}

/// A hot-seat battle of the look table in free orders, ended phase by phase until unit 1 may
/// move.
fn start(db: &Path) -> Harness<'static, App> {
    let mut h = harness(app_on_with(db, &look_table().scenario()));
    start_with(&mut h, "Look table", &[HOTSEAT, FULL_ORDERS, GO_AHEAD]);
    for _ in 0..4 {
        if options(&h, unit(0, 1))
            .kinds
            .contains(&powderhorn::rules::command::UnitActionKind::Move)
        {
            return h;
        }
        end_phase(&mut h);
    }
    panic!("unit 1 may never move");
}

fn options(h: &Harness<'static, App>, piece: PieceId) -> Options {
    h.state()
        .battle_run()
        .expect("open")
        .session
        .battle()
        .options(piece)
        .expect("options")
}

fn pose(h: &Harness<'static, App>, piece: PieceId) -> Pose {
    h.state()
        .battle_run()
        .expect("open")
        .session
        .battle()
        .state()
        .piece(piece)
        .and_then(|p| p.pose)
        .expect("on the table")
}

fn screen(h: &Harness<'static, App>, p: Point) -> egui::Pos2 {
    h.state()
        .ui_state
        .battle_table
        .projector()
        .expect("the table was drawn")
        .to_screen(p)
}

/// The middle of a unit's second stand (a point on the unit, clear of its name).
fn on_unit(h: &Harness<'static, App>, piece: PieceId) -> Point {
    let run = h.state().battle_run().expect("open");
    let pc = run.panel.scene.piece(piece).expect("drawn");
    pc.stands.get(1).unwrap_or(&pc.stands[0]).centre
}

fn click_at(h: &mut Harness<'static, App>, p: Point) {
    let at = screen(h, p);
    h.hover_at(at);
    h.run();
    for pressed in [true, false] {
        h.event(Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
    }
    h.run();
}

/// Presses on `from`, drags to `to` in steps, and stops there with the button still down.
fn drag_to(h: &mut Harness<'static, App>, from: Point, to: Point) {
    h.hover_at(screen(h, from));
    h.run();
    h.drag_at(screen(h, from));
    h.step();
    for k in 1..=4 {
        let f = f64::from(k) / 4.0;
        let p = Point::new(from.x + (to.x - from.x) * f, from.y + (to.y - from.y) * f);
        h.hover_at(screen(h, p));
        h.step();
    }
    h.run_steps(2);
}

fn labels_starting(h: &Harness<'static, App>, prefix: &str) -> Vec<String> {
    h.query_all_by_label_contains(prefix)
        .filter_map(|n| {
            let n = n.accesskit_node();
            n.value().or_else(|| n.label())
        })
        .filter(|l| l.starts_with(prefix))
        .collect()
}

#[test]
fn hovering_a_unit_shows_its_card_with_stats_orders_and_commander() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = start(&dir.path().join("card.sqlite"));
    let at = on_unit(&h, unit(0, 1));
    let name = format!("{FR_LINE} 1");
    let listed = h.query_all_by_label(&name).count();
    h.hover_at(screen(&h, at));
    h.run();
    h.run();
    assert_eq!(
        h.query_all_by_label(&name).count(),
        listed + 1,
        "the card's name"
    );
    // The stats line of the row, as the order-of-battle editor prints it.
    let lists = builder::lists();
    let row = lists
        .iter()
        .find(|l| l.id.as_str() == "nap-french")
        .and_then(|l| l.troop_types.iter().find(|t| t.id.as_str() == FR_LINE))
        .expect("the French line row");
    assert!(
        h.query_by_label(&row.stat_line()).is_some(),
        "stats line {}",
        row.stat_line()
    );
    assert!(h.query_by_label("4 stands · 0 hits this turn").is_some());
    assert!(h.query_by_label("Orders: no order yet this turn").is_some());
    assert!(h
        .query_by_label("Commander: Brigade A (Brigade A)")
        .is_some());
    // Select the French at (110, 30) and hover the Austrians 6 cm ahead: the card carries the
    // engine's preview of the shot, one die for each of the four stands in line (FIRE-05, the
    // row's A1).
    // Past deployment, into game turn 1 (no fire while deploying).
    for _ in 0..2 {
        if !options(&h, unit(0, 5)).fire.is_empty() {
            break;
        }
        end_phase(&mut h);
    }
    let shooter = on_unit(&h, unit(0, 5));
    click_at(&mut h, shooter);
    assert_eq!(h.state().ui_state.battle_selected, Some(unit(0, 5)));
    let target = on_unit(&h, unit(1, 6));
    h.hover_at(screen(&h, target));
    h.run();
    h.run();
    let shot = labels_starting(
        &h,
        &format!("{FR_LINE} 5 may fire at it (6.0 cm, 4 stands): "),
    );
    assert_eq!(shot.len(), 1, "{shot:?}");
    assert!(shot[0].contains(": 4 dice"), "{shot:?}");
    // Off the unit: no card.
    h.hover_at(screen(&h, Point::new(230.0, 170.0)));
    h.run();
    assert!(h
        .query_by_label("Commander: Brigade A (Brigade A)")
        .is_none());
}

#[test]
fn dragging_a_unit_to_a_legal_spot_shows_a_green_ghost_and_moves_it_there() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = start(&dir.path().join("move.sqlite"));
    let before = pose(&h, unit(0, 1));
    assert_eq!(before.at, Point::new(60.0, 30.0));
    let from = on_unit(&h, unit(0, 1));
    let to = Point::new(from.x, from.y + 5.0);
    drag_to(&mut h, from, to);
    assert!(h.query_by_label("Move here").is_some(), "a green ghost");
    assert_eq!(pose(&h, unit(0, 1)), before, "nothing moves while dragging");
    h.drop_at(screen(&h, to));
    h.run();
    h.run();
    // 5 cm straight ahead: the front edge's centre from (60, 30) to (60, 35), to the grid's
    // millimetre (the pointer goes through screen points).
    let after = pose(&h, unit(0, 1));
    assert!(
        (after.at.x - 60.0).abs() <= 0.1 && (after.at.y - 35.0).abs() <= 0.1,
        "{after:?}"
    );
    assert_eq!(after.facing_deg, 0.0);
    assert!(h.query_by_label("Move here").is_none(), "the ghost is gone");
}

#[test]
fn dragging_a_unit_onto_an_enemy_shows_the_refusal_and_moves_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = start(&dir.path().join("refused.sqlite"));
    let before = pose(&h, unit(0, 1));
    let before_entries = entries(&h);
    let from = on_unit(&h, unit(0, 1));
    // 20 cm ahead: twice the French line's Move of 10 cm (MOVE-02).
    let far = Point::new(from.x, from.y + 20.0);
    drag_to(&mut h, from, far);
    assert_eq!(labels_starting(&h, "Refused: "), ["Refused: MOVE-02"]);
    // On, without letting go, to 40 cm ahead: onto the Austrians at (60, 70). Moving into
    // contact with an enemy is a charge, not a move (CHG-01).
    let to = Point::new(from.x, from.y + 40.0);
    for k in 1..=4 {
        let f = f64::from(k) / 4.0;
        h.hover_at(screen(&h, Point::new(far.x, far.y + (to.y - far.y) * f)));
        h.step();
    }
    h.run_steps(2);
    assert_eq!(labels_starting(&h, "Refused: "), ["Refused: CHG-01"]);
    assert!(h.query_by_label("Move here").is_none());
    let rule = "CHG-01";
    h.drop_at(screen(&h, to));
    h.run();
    h.run();
    assert_eq!(pose(&h, unit(0, 1)), before, "not moved");
    assert_eq!(entries(&h), before_entries, "nothing was sent");
    let notice = labels_starting(&h, "Not moved — ");
    assert_eq!(notice.len(), 1, "the page says why");
    assert!(notice[0].contains(rule), "{notice:?}");
}

#[test]
fn the_ruler_measures_two_units_edge_to_edge_and_names_the_wood_between() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = start(&dir.path().join("ruler.sqlite"));
    h.get_by_label("Ruler").click();
    h.run();
    let a = on_unit(&h, unit(0, 3));
    let b = on_unit(&h, unit(1, 4));
    click_at(&mut h, a);
    assert!(h
        .query_by_label("Click the second unit or point.")
        .is_some());
    click_at(&mut h, b);
    // Front edges along y = 30 and y = 90, the same width at the same x: 60 cm apart. The
    // wood 135..165 × 50..65 lies across every line between them and touches neither (VIS-07).
    let want = "Ruler: 60.0 cm edge to edge · out of sight: blocked by high_area 1 (VIS-07): \
                high_area 1 is in the way";
    assert!(
        h.query_by_label(want).is_some(),
        "{:?}",
        labels_starting(&h, "Ruler: ")
    );
    // The ruler picks ends, it does not select.
    assert_eq!(h.state().ui_state.battle_selected, None);
    // M puts the ruler away; a click selects again.
    h.key_press(egui::Key::M);
    h.run();
    assert!(labels_starting(&h, "Ruler: ").is_empty());
    click_at(&mut h, a);
    assert_eq!(h.state().ui_state.battle_selected, Some(unit(0, 3)));
    // Two bare points below the wood, 80 cm apart, nothing between.
    h.key_press(egui::Key::M);
    h.run();
    click_at(&mut h, Point::new(100.0, 45.0));
    click_at(&mut h, Point::new(180.0, 45.0));
    let got = labels_starting(&h, "Ruler: ");
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("Ruler: 80.0 cm between the points · in sight (VIS-02)"),
        "{got:?}"
    );
}
