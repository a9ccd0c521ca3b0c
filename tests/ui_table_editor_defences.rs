//! The table editor's Defences tool (issue #18 item 4) driven headless with `egui_kittest`:
//! field defences bought from the DEF-03 table within the posture's budget (DEF-02), put on the
//! table (DEF-05), moved, sold back, each one undo step and saved at once.
//!
//! The Ebelsberg sample is a hasty defence of 4,500 points with the Austrians (side 1) as
//! defender: the budget is 10% of 4,500 = 450 points (DEF-02). Already bought: Breast Works of
//! 2 + 3 + 2 sections at 25 (175), Stakes of 2 + 2 sections at 25 (100) and two Trenches at 5
//! (10): 285 spent, 165 left. The Austrian zone runs from y 78..82 to the far edge; the ground
//! at x 10..40, y 85..115 is open cloth inside it.

#[path = "support/ui.rs"]
mod ui_support;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::geom::Point;
use powderhorn::model::{DefenseKind, FieldDefense, Scenario};
use ui_support::{
    app_with, click_cm, drag_cm, harness_sized, messages, near_cm as near, open_scenario_tab,
    screen,
};

fn sample() -> Scenario {
    ui_support::ebelsberg_sample()
}

fn stored(h: &Harness<'static, App>) -> Scenario {
    ui_support::stored_scenario(h, &sample().id)
}

const AUSTRIANS: usize = 1;

/// The app on an in-memory store holding the sample, on its Table view with the Defences tool.
fn defences_tool() -> Harness<'static, App> {
    let s = sample();
    let mut h = harness_sized(app_with(&s), egui::vec2(1500.0, 950.0));
    open_scenario_tab(&mut h, &s.name, "Table");
    h.get_by_label("Defences").click();
    h.run();
    h
}

fn shown(h: &Harness<'static, App>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

/// Chooses `kind` in the panel's table and `sections`, then presses "Buy and place".
fn buy(h: &mut Harness<'static, App>, kind: &str, sections: u32) {
    h.get_by_label(kind).click();
    h.run();
    h.state_mut().ui_state.table_editor.defences.sections = sections;
    h.run();
    h.get_by_label("Buy and place").click();
    h.run();
}

fn added(before: &Scenario, after: &Scenario) -> Vec<FieldDefense> {
    let old = &before.sides[AUSTRIANS].field_defenses;
    after.sides[AUSTRIANS]
        .field_defenses
        .iter()
        .filter(|d| old.iter().all(|o| o.id != d.id))
        .cloned()
        .collect()
}

#[test]
fn def_02_a_trench_bought_within_the_hasty_budget_is_placed_saved_and_counted() {
    let mut h = defences_tool();
    let before = stored(&h);
    assert!(shown(&h, "Left to spend: 165 points"), "450 − 285");
    buy(&mut h, "Trench", 1);
    assert!(shown(&h, "Placing 1 × Trench"), "it follows the pointer");
    click_cm(&mut h, Point::new(30.0, 100.0));
    let after = stored(&h);
    let new = added(&before, &after);
    assert_eq!(new.len(), 1, "{new:?}");
    let t = &new[0];
    assert_eq!((t.kind, t.sections, t.cost()), (DefenseKind::Trench, 1, 5));
    // Nobody named to shelter: 12 × 4 cm, centred where clicked.
    let want = [
        Point::new(24.0, 98.0),
        Point::new(36.0, 98.0),
        Point::new(36.0, 102.0),
        Point::new(24.0, 102.0),
    ];
    assert_eq!(t.at.len(), 4);
    for (got, want) in t.at.iter().zip(want) {
        assert!(near(*got, want), "{got:?} vs {want:?}");
    }
    // 290 spent: 160 left, and no DEF problem.
    h.run();
    assert!(shown(&h, "Left to spend: 160 points"));
    let lists = powderhorn::model::army::shipped_lists().expect("lists");
    let def: Vec<_> = powderhorn::model::validate::validate_scenario(&after, &lists)
        .into_iter()
        .filter(|v| v.rule.starts_with("DEF-"))
        .collect();
    assert!(def.is_empty(), "{def:?}");
    assert!(!shown(&h, "DEF-02:") && !shown(&h, "DEF-05:"), "none shown");
    // One purchase, one undo step.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(stored(&h), before);
}

#[test]
fn def_02_breast_works_over_the_budget_are_refused_at_buy_with_the_rule() {
    let mut h = defences_tool();
    let before = stored(&h);
    // 7 sections × 25 = 175 > 165 left: 285 + 175 = 460 > 450.
    buy(&mut h, "Breast Works", 7);
    assert!(
        shown(&h, "Not bought. DEF-02:") && shown(&h, "460") && shown(&h, "450"),
        "refused with the rule and the sums"
    );
    assert!(h.state().ui_state.table_editor.defences.placing.is_none());
    click_cm(&mut h, Point::new(30.0, 100.0));
    assert_eq!(stored(&h), before, "nothing bought, nothing placed");
    assert!(
        messages(&h).iter().all(|m| !m.contains("DEF-")),
        "refused before the app"
    );
    // 6 sections (150) fit: bought and put down by its two ends.
    buy(&mut h, "Breast Works", 6);
    assert!(!shown(&h, "Not bought."));
    click_cm(&mut h, Point::new(20.0, 130.0));
    click_cm(&mut h, Point::new(60.0, 130.0));
    let new = added(&before, &stored(&h));
    assert_eq!(new.len(), 1, "{new:?}");
    assert_eq!(
        (new[0].kind, new[0].cost()),
        (DefenseKind::BreastWorks, 150)
    );
}

#[test]
fn def_05_a_stakes_line_stops_at_its_sections_length() {
    let mut h = defences_tool();
    let before = stored(&h);
    buy(&mut h, "Stakes", 2);
    click_cm(&mut h, Point::new(20.0, 130.0));
    // Clicked 30 cm away: two sections reach 20 cm, so the line ends at x 40.
    click_cm(&mut h, Point::new(50.0, 130.0));
    let new = added(&before, &stored(&h));
    assert_eq!(new.len(), 1, "{new:?}");
    assert_eq!(new[0].at.len(), 2);
    assert!(
        near(new[0].at[0], Point::new(20.0, 130.0)),
        "{:?}",
        new[0].at
    );
    assert!(
        near(new[0].at[1], Point::new(40.0, 130.0)),
        "{:?}",
        new[0].at
    );
    assert_eq!(new[0].cost(), 50);
}

#[test]
fn def_05_a_trench_outside_the_defenders_zone_is_shown_live_and_kept() {
    let mut h = defences_tool();
    let before = stored(&h);
    buy(&mut h, "Trench", 1);
    // (30, 30) is in the French zone, across the river.
    let at = Point::new(30.0, 30.0);
    h.hover_at(screen(&h, at));
    h.run();
    h.run();
    assert!(
        shown(&h, "DEF-05: Trench") && shown(&h, "outside its side's deployment area"),
        "the live check names the rule"
    );
    click_cm(&mut h, at);
    let new = added(&before, &stored(&h));
    assert_eq!(new.len(), 1, "allowed, as a unit outside its zone is");
    h.run();
    assert!(shown(&h, "DEF-05"), "still listed after placing");
}

#[test]
fn def_05_dragging_a_bought_trench_moves_it_and_undo_puts_it_back() {
    let mut h = defences_tool();
    let before = stored(&h);
    buy(&mut h, "Trench", 1);
    click_cm(&mut h, Point::new(30.0, 100.0));
    let placed = added(&before, &stored(&h));
    assert_eq!(placed.len(), 1);
    let id = placed[0].id;
    // Drag from inside its outline, 10 cm right and 5 cm down.
    drag_cm(&mut h, Point::new(30.0, 100.0), Point::new(40.0, 105.0));
    let after = stored(&h);
    let t = after.sides[AUSTRIANS]
        .field_defenses
        .iter()
        .find(|d| d.id == id)
        .expect("still bought");
    for (got, was) in t.at.iter().zip(&placed[0].at) {
        assert!(near(*got, Point::new(was.x + 10.0, was.y + 5.0)), "{got:?}");
    }
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    let back = stored(&h);
    let t = back.sides[AUSTRIANS]
        .field_defenses
        .iter()
        .find(|d| d.id == id)
        .expect("still bought");
    assert_eq!(t.at, placed[0].at, "undo puts it back");
    // Selected (the drag selected it): Delete sells it back.
    h.key_press(Key::Delete);
    h.run();
    assert_eq!(stored(&h), before, "sold back");
}
