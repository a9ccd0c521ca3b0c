//! The shared harness for the kittest UI tests (the app's window driven headless by label):
//! the window at a size, the app on a database file or on an in-memory store holding a
//! scenario, a battle started from the Battles page, the computer's turn waited for, an
//! `AppCommand` sent, a phase ended, and the open battle's phase, log length and messages.
//! Include it with `#[path = "support/ui.rs"] mod ui_support;`. New UI tests use these helpers
//! instead of a copy of their own.
#![allow(dead_code)]

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::model::Scenario;
use powderhorn::rules::Phase;
use powderhorn::store::Store;
use powderhorn::ui::AppCommand;
use std::path::Path;

/// The sample battle's name on the start form.
pub const EBELSBERG: &str = "Ebelsberg, 3 May 1809";
/// The start form's choices, by label.
pub const REFEREE: &str = "Referee of a real table";
pub const PHYSICAL: &str = "Physical dice, typed in as they are rolled";
pub const HOTSEAT: &str = "Hot-seat: two players at this screen";
pub const FULL_ORDERS: &str = "Full orders (initiative, command rolls)";
pub const GO_AHEAD: &str = "Start even if the army lists break the building rules";
pub const FOG: &str = "Fog of war";

/// The app in a 1400 × 900 window.
pub fn harness(app: App) -> Harness<'static, App> {
    harness_sized(app, egui::vec2(1400.0, 900.0))
}

/// The app in a window of `size` points.
pub fn harness_sized(app: App, size: egui::Vec2) -> Harness<'static, App> {
    Harness::builder()
        .with_size(size)
        .build_ui_state(|ui, app: &mut App| app.ui(ui), app)
}

/// The app on the database file `db`.
pub fn app_on(db: &Path) -> App {
    App::with_store(Store::open(db).expect("store"), db.display().to_string())
}

/// The app on the database file `db`, with `scenario` saved in it.
pub fn app_on_with(db: &Path, scenario: &Scenario) -> App {
    let mut store = Store::open(db).expect("store");
    store.save_scenario(scenario).expect("saved");
    App::with_store(store, db.display().to_string())
}

/// The app on an in-memory store holding `scenario`.
pub fn app_with(scenario: &Scenario) -> App {
    let mut store = Store::open_in_memory().expect("store");
    store.save_scenario(scenario).expect("saved");
    App::new(store)
}

/// Opens the Battles page, chooses `scenario` and clicks each of `choices` (radio buttons and
/// checkboxes of the start form, by label) in turn, then Play.
pub fn start_with(h: &mut Harness<'static, App>, scenario: &str, choices: &[&str]) {
    h.run();
    h.get_by_label("Battles").click();
    h.run();
    h.get_by_label("Scenario").click();
    h.run();
    h.get_by_label(scenario).click();
    h.run();
    for c in choices {
        // One at a time: a choice can move the ones below it.
        h.get_by_label(c).click();
        h.run();
    }
    h.get_by_label("Play").click();
    h.run();
}

/// Opens the Orders of battle page, the scenario named `name` and its `tab` (by label).
pub fn open_scenario_tab(h: &mut Harness<'static, App>, name: &str, tab: &str) {
    h.get_by_label("Orders of battle").click();
    h.run();
    h.get_all_by_label(name)
        .next()
        .expect("the scenario is listed")
        .click();
    h.run();
    h.get_by_label(tab).click();
    h.run();
}

/// Steps the window until the computer hands back (its worker thread is done), then settles.
pub fn wait_for_opponent(h: &mut Harness<'static, App>) {
    for _ in 0..20_000 {
        h.step();
        if !h.state().opponent_running() {
            h.run_steps(3);
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("the computer did not hand back");
}

/// Applies `command` as a click would, then runs the window.
pub fn send(h: &mut Harness<'static, App>, command: AppCommand) {
    let ctx = h.ctx.clone();
    h.state_mut().apply(command, &ctx);
    h.run();
}

/// Applies `command` as a click would, without running the window: for commands that start
/// work in the background (printing, the computer), whose window keeps repainting until the
/// work is done, so the caller steps it while it waits.
pub fn apply_now(h: &mut Harness<'static, App>, command: AppCommand) {
    let ctx = h.ctx.clone();
    h.state_mut().apply(command, &ctx);
}

/// Hands the turn to the computer as the "Computer plays" button would and waits until it hands
/// back. Not `send`: while the worker plays the window keeps repainting, so running it to
/// settle would race the worker thread.
pub fn opponent_plays(h: &mut Harness<'static, App>) {
    apply_now(h, AppCommand::OpponentPlay);
    h.step();
    wait_for_opponent(h);
}

/// Clicks "End phase".
pub fn end_phase(h: &mut Harness<'static, App>) {
    h.get_by_label("End phase").click();
    h.run();
}

/// The open battle's phase.
pub fn phase(h: &Harness<'static, App>) -> Phase {
    h.state()
        .battle_run()
        .expect("open")
        .session
        .battle()
        .state()
        .turn
        .phase
}

/// How many actions the open battle's log holds.
pub fn entries(h: &Harness<'static, App>) -> usize {
    h.state()
        .battle_run()
        .expect("open")
        .session
        .battle()
        .entries()
        .len()
}

/// What the referee's dice pad says is wrong with the dice entered, if anything.
pub fn pad_problem(h: &Harness<'static, App>) -> Option<String> {
    h.state().ui_state.dice_pad.problem.clone()
}

/// The texts of the app's messages.
pub fn messages(h: &Harness<'static, App>) -> Vec<String> {
    h.state()
        .messages()
        .iter()
        .map(|m| m.text.clone())
        .collect()
}

// ----- the table editor (tests/ui_table_editor*.rs) --------------------------------------------

/// The Ebelsberg sample, as shipped.
pub fn ebelsberg_sample() -> Scenario {
    powderhorn::model::samples::scenarios()
        .expect("the samples parse")
        .into_iter()
        .find(|s| s.id.as_str() == "1809-ebelsberg")
        .expect("the Ebelsberg sample")
}

/// Clicks the button (a tool, a kind) with this label.
pub fn tool(h: &mut Harness<'static, App>, label: &str) {
    h.get_by_label(label).click();
    h.run();
}

/// Where a table point is on the screen, by the projector of the table's last frame.
pub fn screen(h: &Harness<'static, App>, p: powderhorn::geom::Point) -> egui::Pos2 {
    h.state()
        .ui_state
        .table
        .projector()
        .expect("the table was drawn")
        .to_screen(p)
}

/// A primary click at a table point, as a hand on the mouse makes it.
pub fn click_cm(h: &mut Harness<'static, App>, p: powderhorn::geom::Point) {
    let at = screen(h, p);
    h.hover_at(at);
    h.run();
    h.drag_at(at);
    h.step();
    h.drop_at(at);
    h.run();
}

/// A primary drag from one table point to another, in a few steps.
pub fn drag_cm(
    h: &mut Harness<'static, App>,
    from: powderhorn::geom::Point,
    to: powderhorn::geom::Point,
) {
    let (a, b) = (screen(h, from), screen(h, to));
    press_and_move(h, a, b);
    h.drop_at(b);
    h.run();
}

/// Presses the primary button at `a` and moves to `b` in a few steps, without letting go.
pub fn press_and_move(h: &mut Harness<'static, App>, a: egui::Pos2, b: egui::Pos2) {
    h.hover_at(a);
    h.run();
    h.drag_at(a);
    h.step();
    for k in 1..=4 {
        let t = k as f32 / 4.0;
        h.hover_at(a + (b - a) * t);
        h.step();
    }
}

/// The scenario open in the editor.
pub fn open_now(h: &Harness<'static, App>) -> Scenario {
    h.state()
        .open_scenario()
        .expect("a scenario is open")
        .clone()
}

/// The scenario with this id as the store holds it.
pub fn stored_scenario(h: &Harness<'static, App>, id: &powderhorn::model::ScenarioId) -> Scenario {
    h.state()
        .store()
        .expect("a store")
        .load_scenario(id)
        .expect("stored")
}

/// Table cm → f32 screen points → table cm loses a few thousandths of a cm at the editor's zoom.
pub fn near_cm(a: powderhorn::geom::Point, b: powderhorn::geom::Point) -> bool {
    (a.x - b.x).abs() < 0.02 && (a.y - b.y).abs() < 0.02
}
