//! The Battles page driven headless with `egui_kittest` (issue #17, first increment): start a
//! solo battle from the sample, play phases, let the computer play its turn on its worker
//! thread, undo with Ctrl+Z, close and resume exactly, and refuse a bad physical die.

#[path = "support/builder.rs"]
mod builder;
#[path = "support/ui.rs"]
mod ui_support;

use egui::{Key, Modifiers};
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use powderhorn::app::App;
use ui_support::{
    app_on, app_with, end_phase, entries, harness, messages, pad_problem, start_with,
    wait_for_opponent, EBELSBERG, FULL_ORDERS, GO_AHEAD, HOTSEAT, PHYSICAL, REFEREE,
};

/// The sample, solo (the defaults), or as a referee with physical dice.
fn start_battle(h: &mut Harness<'static, App>, referee_physical: bool) {
    let choices: &[&str] = if referee_physical {
        &[REFEREE, PHYSICAL]
    } else {
        &[]
    };
    start_with(h, EBELSBERG, choices);
}

#[test]
fn a_solo_battle_is_started_played_undone_and_resumed_from_the_window() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ui.sqlite");
    let mut h = harness(app_on(&db));
    h.state_mut().ui_state.pace_ms = 0;
    start_battle(&mut h, false);
    assert!(h
        .query_by_label("Deployment · French: Masséna's advance guard first")
        .is_some());
    assert!(h
        .query_by_label("Computer plays Austrian: Hiller's rearguard")
        .is_some());

    // The person (the French) ends deployment and its four phases.
    for _ in 0..5 {
        end_phase(&mut h);
    }
    let id = h.state().battle_run().expect("open").session.id();
    let turn = h
        .state()
        .battle_run()
        .expect("open")
        .session
        .battle()
        .state()
        .turn;
    assert_eq!(turn.active, 1, "the Austrians' player turn");

    // The computer plays its turn, action by action, on its worker thread.
    h.get_by_label("Computer plays Austrian: Hiller's rearguard")
        .click();
    h.step();
    wait_for_opponent(&mut h);
    let run = h.state().battle_run().expect("open");
    let after = run.session.battle().state().turn;
    assert_eq!(
        after.active, 0,
        "the computer handed back at the French turn"
    );
    assert_eq!(after.game_turn, 2);
    let actions = run.session.battle().entries().len();
    assert!(actions > 6, "the computer acted ({actions} actions in all)");
    let rolls = run.panel.dice.len();

    // Ctrl+Z in solo play takes back the person's own last decision (ending the End phase)
    // with every answer of the computer after it.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    let run = h.state().battle_run().expect("open");
    assert_eq!(run.session.battle().entries().len(), 4);
    assert_eq!(run.session.battle().state().turn.active, 0);
    assert!(run.panel.dice.len() <= rolls);

    // Close the window (drop the app) and open it again: the same battle, to the action.
    let state = run.session.battle().state().clone();
    drop(h);
    let mut h = harness(app_on(&db));
    h.run();
    h.get_by_label("Battles").click();
    h.run();
    h.get_by_label("Resume").click();
    h.run();
    let run = h.state().battle_run().expect("resumed");
    assert_eq!(run.session.id(), id);
    assert_eq!(run.session.battle().state(), &state);
    // The undone actions can be redone after the restart.
    assert!(run.panel.can_redo);
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run();
    assert_eq!(entries(&h), 5);
}

#[test]
fn a_referee_battle_refuses_a_bad_die_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ref.sqlite");
    let mut h = harness(app_on(&db));
    start_battle(&mut h, true);
    assert_eq!(
        h.state()
            .battle_run()
            .expect("started")
            .session
            .record()
            .dice,
        powderhorn::rules::DiceSource::Physical
    );
    end_phase(&mut h);
    // Deployment ends without dice.
    let turn = h
        .state()
        .battle_run()
        .expect("open")
        .session
        .battle()
        .state()
        .turn;
    assert_eq!(turn.game_turn, 1);
    // The dice pad (tests/ui_battle_dice.rs drives it through a fire): a 7 is no die, and a
    // die for an action that draws none is one too many. Both are refused on the pad.
    assert!(h.query_by_label("Dice rolled:").is_none());
    h.state_mut().ui_state.dice_pad.action = Some(powderhorn::rules::Action::EndPhase);
    h.run();
    h.key_press(Key::Num7);
    h.run();
    assert_eq!(
        h.state().ui_state.dice_pad.problem.as_deref(),
        Some("7 is not a face of a d6: enter each die as 1 to 6")
    );
    h.key_press(Key::Num3);
    h.run();
    h.key_press(Key::Enter);
    h.run();
    let problem = pad_problem(&h).unwrap_or_default();
    assert!(
        problem.starts_with("1 dice were entered but the action uses only 0"),
        "{problem}"
    );
    let after = entries(&h);
    assert_eq!(after, 1, "nothing performed");
}

/// Dragging a unit on the battle table moves it: the engine's new position is the old one
/// plus the drag, in table centimetres, and the move is in the stored log.
#[test]
fn dragging_a_unit_on_the_table_moves_it_by_the_drag_in_centimetres() {
    use powderhorn::geom::Point;
    use powderhorn::rules::{Action, PieceId};
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("drag.sqlite");
    let mut h = harness(app_on(&db));
    // Hot-seat with free orders: any French unit may move in the Initiative phase.
    start_with(&mut h, EBELSBERG, &[HOTSEAT, FULL_ORDERS]);
    end_phase(&mut h);
    // The French foot or horse nearest the front, 4 cm straight ahead.
    let run = h.state().battle_run().expect("open");
    let state = run.session.battle().state();
    let (piece, pose) = run
        .panel
        .poses
        .iter()
        .copied()
        .filter(|(id, _)| matches!(id, PieceId::Unit { side: 0, .. }))
        .filter(|(id, _)| state.piece(*id).is_some_and(|p| p.formation.is_some()))
        .max_by(|a, b| a.1.at.y.total_cmp(&b.1.at.y))
        .expect("a French unit");
    let stand = run
        .panel
        .scene
        .piece(piece)
        .and_then(|p| p.stands.first().map(|s| s.centre))
        .expect("its first stand");
    let step = Point::new(
        4.0 * pose.facing_deg.to_radians().sin(),
        4.0 * pose.facing_deg.to_radians().cos(),
    );
    let to = Point::new(stand.x + step.x, stand.y + step.y);
    let p = h.state().ui_state.battle_table.projector().expect("drawn");
    h.hover_at(p.to_screen(stand));
    h.run();
    h.drag_at(p.to_screen(stand));
    h.step();
    h.hover_at(p.to_screen(Point::new(stand.x + step.x / 2.0, stand.y + step.y / 2.0)));
    h.step();
    h.hover_at(p.to_screen(to));
    h.step();
    h.drop_at(p.to_screen(to));
    h.run();
    let run = h.state().battle_run().expect("open");
    let msgs = messages(&h);
    let last = run.session.battle().entries().last().expect("an action");
    assert!(
        matches!(last.action, Action::Move { piece: p, .. } if p == piece),
        "{msgs:?}"
    );
    let now = run
        .session
        .battle()
        .state()
        .piece(piece)
        .and_then(|p| p.pose)
        .expect("on table");
    let moved = Point::new(now.at.x - pose.at.x, now.at.y - pose.at.y);
    assert!(
        (moved.x - step.x).abs() < 0.05 && (moved.y - step.y).abs() < 0.05,
        "moved {moved:?}, dragged {step:?}"
    );
    assert!((now.facing_deg - pose.facing_deg).abs() < 1e-9);
}

/// Select a unit, see its fire target with the dice preview (from the engine's options), fire
/// by clicking it, find the roll in the dice log with its modifiers and rule IDs, and undo it.
#[test]
fn firing_from_the_unit_card_logs_the_roll_with_its_modifiers_and_undo_takes_it_back() {
    use builder::{Sc, AUS_LINE, FR_LINE};
    // French line (4 stands) 5 cm from Austrian line (5 stands), face to face.
    let duel = Sc::nap()
        .unit(1, 1, AUS_LINE, 5, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 95.0, 0.0)
        .scenario();
    let mut h = harness(app_with(&duel));
    // A two-unit test table breaks the army-building rules: refused until asked to go ahead.
    start_with(&mut h, "Test", &[HOTSEAT, FULL_ORDERS]);
    assert!(h.query_by_label("End phase").is_none());
    assert!(h
        .state()
        .messages()
        .iter()
        .any(|m| m.text.contains("army-building rules")));
    h.get_by_label(GO_AHEAD).click();
    h.run();
    h.get_by_label("Play").click();
    h.run();
    end_phase(&mut h);
    h.get_by_label("line-infantry-08-12 1").click();
    h.run();
    // The preview, worked out from the catalogue: 4 stands + 1 die within half range = 5
    // dice (FIRE-08, FIRE-11), 4+ in the open (FIRE-14) with +1 first fire (FIRE-13).
    assert!(h
        .query_by_label_contains(
            "Fire at line-infantry-07-15 1 (5 cm): 5 dice, 4+ to hit (+1 first fire)"
        )
        .is_some());
    h.get_by_label_contains("Fire at line-infantry-07-15 1")
        .click();
    h.run();
    let run = h.state().battle_run().expect("open");
    let roll = run.panel.dice.first().expect("a roll in the dice log");
    assert_eq!(roll.purpose, "to hit");
    assert_eq!(roll.dice.len(), 5);
    assert!(roll
        .modifiers
        .iter()
        .any(|(rule, _, v)| rule == "FIRE-08" && *v == 4));
    assert!(roll.modifiers.iter().any(|(rule, _, _)| rule == "FIRE-13"));
    assert!(
        !h.query_all_by_label("FIRE-08")
            .collect::<Vec<_>>()
            .is_empty(),
        "shown in the log"
    );
    let actions = run.session.battle().entries().len();
    h.get_by_label("Undo").click();
    h.run();
    let run = h.state().battle_run().expect("open");
    assert_eq!(run.session.battle().entries().len(), actions - 1);
    assert!(
        run.panel.dice.is_empty(),
        "the roll left the log with the undo"
    );
}

/// The start form with the first sample, changed by `change`, chosen as its scenario.
fn start_form_of_sample(
    change: impl FnOnce(&mut powderhorn::model::Scenario),
) -> Harness<'static, App> {
    let mut s = powderhorn::model::samples::scenarios()
        .expect("samples")
        .into_iter()
        .next()
        .expect("a sample");
    change(&mut s);
    let name = s.name.clone();
    let mut h = ui_support::harness(ui_support::app_with(&s));
    h.run();
    h.get_by_label("Battles").click();
    h.run();
    h.get_by_label("Scenario").click();
    h.run();
    h.get_by_label(&name).click();
    h.run();
    h
}

/// #17 item 1: the start form shows the chosen scenario's optional rules as they are set, and
/// marks those the engine does not play yet.
#[test]
fn the_start_form_shows_the_scenarios_optional_rules_as_set() {
    use powderhorn::model::scenario::OptionalRule;
    let h = start_form_of_sample(|s| {
        s.optional_rules = vec![OptionalRule::Weather, OptionalRule::Prone];
    });
    // Each marked by whether the engine plays it (both do since #21: OPT-PRONE).
    let shown: Vec<String> = [OptionalRule::Weather, OptionalRule::Prone]
        .iter()
        .map(|r| {
            if r.implemented() {
                r.label().to_string()
            } else {
                format!("{} (not yet played)", r.label())
            }
        })
        .collect();
    assert_eq!(shown, ["Weather", "Prone"]);
    assert!(
        h.query_by_label(&format!("Optional rules: {}", shown.join(", ")))
            .is_some(),
        "the optional rules are not shown as set"
    );
}

/// SEQ-01: the start form takes who moves first from the chosen scenario; a scenario that
/// leaves it to a roll-off is rolled off with the battle's dice when it starts, and with
/// physical dice the form asks for the side that won on the table before it plays.
#[test]
fn seq_01_the_start_form_rolls_off_as_the_scenario_says_or_asks_who_won_on_the_table() {
    let mut h = start_form_of_sample(|s| s.first_player = None);
    assert_eq!(
        h.state().ui_state.start.first_player,
        None,
        "as the scenario says"
    );
    // Physical dice: the roll-off is made on the table, so the form wants the winner.
    h.get_by_label(PHYSICAL).click();
    h.run();
    let ask = "Roll off on the table and choose the side that won.";
    assert!(h.query_by_label(ask).is_some());
    assert!(h.get_by_label("Play").accesskit_node().is_disabled());
    // "side 2" of the First player row, below the computer's own "side 2".
    h.get_all_by_label("side 2")
        .last()
        .expect("the first player's side 2")
        .click();
    h.run();
    assert!(h.query_by_label(ask).is_none());
    assert_eq!(h.state().ui_state.start.first_player, Some(1));
    // Back to the app's own dice, rolling off: the battle starts with its roll-off logged.
    h.get_by_label(PHYSICAL).click();
    h.run();
    h.get_by_label("roll off").click();
    h.run();
    h.get_by_label("Play").click();
    h.run();
    let run = h.state().battle_run().expect("a battle is open");
    let log = run.session.battle().log();
    let [.., last] = log.roll_off.as_slice() else {
        panic!("no roll-off was made");
    };
    assert_eq!(log.first_player, usize::from(last[1] > last[0]));
    assert_eq!(run.session.record().roll_off, log.roll_off);
    // The dice log shows it before the battle's own rolls, with who moves first.
    let sides = &run.session.record().scenario.sides;
    let first = &sides[log.first_player].name;
    let shown = format!(
        "→ {} {}, {} {}: {first} moves first",
        sides[0].name, last[0], sides[1].name, last[1]
    );
    // One line per round: the battle's seed is its own, so a tie (a second round) may come.
    assert_eq!(
        h.get_all_by_label("Roll-off for the first move:").count(),
        log.roll_off.len()
    );
    assert!(h.query_by_label(&shown).is_some(), "{shown}");
}
