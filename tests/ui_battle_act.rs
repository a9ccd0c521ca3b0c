//! Acting on the battle table from the window (issue #17 item 4), driven headless with
//! `egui_kittest` by label: the order composer issues an order whose command roll lands in the
//! dice log with the modifiers the composer showed; a charge in hot-seat opens the response
//! window for the other player, who responds and closes it, and the combat is fought; a
//! manoeuvre the rules refuse is disabled and says which rule refuses it.

#[path = "support/builder.rs"]
mod builder;
#[path = "support/ui.rs"]
mod ui_support;

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::rules::api::Decision;
use powderhorn::rules::{Action, Event, Phase};
use ui_support::{
    app_on, app_with, end_phase, entries, harness, messages, phase, start_with, wait_for_opponent,
    EBELSBERG, FULL_ORDERS, GO_AHEAD, HOTSEAT,
};

/// French heavy cavalry (Napoleonic French list).
const FR_HEAVY: &str = "heavy-cavalry-05-06-13-15";

/// Starts `scenario` with `choices` and ends the deployment and the French Initiative phase:
/// the French Command phase.
fn to_command(h: &mut Harness<'static, App>, scenario: &str, choices: &[&str]) {
    start_with(h, scenario, choices);
    end_phase(h); // deployment
    end_phase(h); // initiative
    assert_eq!(phase(h), Phase::Command, "{:?}", messages(h));
}

/// Full orders, hot-seat Ebelsberg: in the French Command phase the composer offers each
/// command unit that may order; ticking a unit (a move) shows the engine's preview, and
/// "Roll for the order" issues exactly that order: its 2D6 command roll is in the dice log
/// with the very modifiers (rule IDs and values) the composer showed, and in the window.
#[test]
fn an_order_composed_in_the_window_is_rolled_and_logged_with_its_modifiers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("order.sqlite");
    let mut h = harness(app_on(&db));
    to_command(&mut h, EBELSBERG, &[HOTSEAT]);
    let run = h.state().battle_run().expect("open");
    let battle = run.session.battle();
    // An order whose roll has at least one modifier (CMD-09 distance, CMD-10 …), so the
    // comparison below has something to compare.
    let mv = |piece| powderhorn::rules::command::OrderedUnit {
        piece,
        action: powderhorn::rules::command::UnitActionKind::Move,
        target: None,
        road: false,
        dense: false,
    };
    let (command, unit) = battle
        .pending()
        .decisions
        .iter()
        .filter_map(|d| match d {
            Decision::Order { command, units, .. } => Some((*command, units.clone())),
            _ => None,
        })
        .flat_map(|(c, units)| units.into_iter().map(move |u| (c, u)))
        .find(|(c, u)| {
            battle
                .order_preview(*c, &[mv(*u)])
                .is_ok_and(|p| !p.modifiers.is_empty())
        })
        .expect("a French order with a modifier on its roll");
    let name = |id| battle.state().piece(id).expect("piece").name.clone();
    let (command_name, unit_name) = (name(command), name(unit));
    let before = run.session.battle().entries().len();

    h.get_by_label(&format!("Command: {command_name}"))
        .click_accesskit();
    h.run();
    h.get_by_label(&format!("Order {unit_name}"))
        .click_accesskit();
    h.run();
    let run = h.state().battle_run().expect("open");
    let order = [mv(unit)];
    let preview = run
        .session
        .battle()
        .order_preview(command, &order)
        .expect("the engine accepts this order");
    assert!(h
        .query_by_label_contains(&format!(
            "Needs {} or less on 2D6 (command value {})",
            preview.target, preview.value
        ))
        .is_some());
    for m in &preview.modifiers {
        assert!(
            h.query_by_label(&m.rule).is_some(),
            "{} shown in the composer",
            m.rule
        );
    }

    h.get_by_label("Roll for the order").click_accesskit();
    h.run();
    let run = h.state().battle_run().expect("open");
    let battle = run.session.battle();
    assert_eq!(battle.entries().len(), before + 1, "{:?}", messages(&h));
    let last = battle.entries().last().expect("the order");
    assert_eq!(
        last.action,
        Action::IssueOrder {
            command,
            units: order.to_vec()
        }
    );
    let roll = run
        .panel
        .dice
        .iter()
        .rev()
        .find(|d| d.purpose == "command roll")
        .expect("the command roll in the dice log");
    assert_eq!(roll.dice.len(), 2, "2D6");
    let shown: Vec<(String, String, i32)> = preview
        .modifiers
        .iter()
        .map(|m| (m.rule.clone(), m.label.clone(), m.value))
        .collect();
    assert!(!shown.is_empty());
    assert_eq!(roll.modifiers, shown);
    assert!(last
        .events
        .iter()
        .any(|e| matches!(e, Event::OrderRolled(r) if r.target == preview.target)));
    // The draft is emptied once sent.
    assert!(h.state().ui_state.act.order.units.is_empty());
}

/// French heavy cavalry 6 cm from an Austrian line, hot-seat with free orders: the French charge from
/// the unit card; the window hands over to the Austrian player with the answers the engine
/// accepts; the Austrians fire at the charger, close the window, and the combat is fought.
#[test]
fn a_charge_in_hot_seat_hands_over_for_the_response_then_is_fought() {
    use builder::{Sc, AUS_LINE};
    let duel = Sc::nap()
        .unit(1, 1, AUS_LINE, 5, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_HEAVY, 3, 100.0, 94.0, 0.0)
        .scenario();
    let mut h = harness(app_with(&duel));
    to_command(&mut h, "Test", &[HOTSEAT, FULL_ORDERS, GO_AHEAD]);
    h.get_by_label("heavy-cavalry-05-06-13-15 1").click();
    h.run();
    h.get_by_label_contains("Charge line-infantry-07-15 1")
        .click_accesskit();
    h.run();
    assert!(
        h.query_by_label("Side B player: respond to the charge on line-infantry-07-15 1")
            .is_some(),
        "{:?}",
        messages(&h)
    );
    h.get_by_label("Fire at heavy-cavalry-05-06-13-15 1")
        .click_accesskit();
    h.run();
    h.get_by_label("Done responding").click_accesskit();
    h.run();
    h.get_by_label("Fight the combat at line-infantry-07-15 1")
        .click_accesskit();
    h.run();
    let run = h.state().battle_run().expect("open");
    let kinds: Vec<&str> = run
        .session
        .battle()
        .entries()
        .iter()
        .map(|e| match &e.action {
            Action::Charge { .. } => "charge",
            Action::Respond { .. } => "respond",
            Action::CloseResponse { .. } => "close",
            Action::ResolveCharge { .. } => "fight",
            _ => "other",
        })
        .filter(|k| *k != "other")
        .collect();
    assert_eq!(
        kinds,
        ["charge", "respond", "close", "fight"],
        "{:?}",
        messages(&h)
    );
    assert!(run.session.battle().state().charges.combats.is_empty());
    assert!(
        run.panel.dice.iter().any(|d| d.rule.starts_with("CHG-")),
        "the combat's dice are in the log"
    );
    assert!(
        h.query_by_label_contains("respond to the charge").is_none(),
        "the window is closed"
    );
}

/// Heavy cavalry may not retire (MOVE-28: infantry only): the Retire button is disabled and
/// "Why not?" gives the rule ID and the engine's sentence; a move the engine accepts (forward
/// 5 cm) is enabled and moves the unit.
#[test]
fn a_refused_manoeuvre_is_disabled_and_names_its_rule() {
    use builder::{Sc, AUS_LINE};
    let sc = Sc::nap()
        .unit(1, 1, AUS_LINE, 5, 100.0, 150.0, 180.0)
        .unit(0, 1, FR_HEAVY, 3, 100.0, 60.0, 0.0)
        .scenario();
    let mut h = harness(app_with(&sc));
    to_command(&mut h, "Test", &[HOTSEAT, FULL_ORDERS, GO_AHEAD]);
    h.get_by_label("heavy-cavalry-05-06-13-15 1").click();
    h.run();
    h.get_by_label("Why not?").click_accesskit();
    h.run();
    assert!(
        h.query_by_label_contains("Retire 5 cm: MOVE-28: ")
            .is_some(),
        "the refusal with its rule"
    );
    let before = entries(&h);
    // A disabled button does nothing.
    h.get_by_label("Retire 5 cm").click_accesskit();
    h.run();
    h.get_by_label("Forward 5 cm").click_accesskit();
    h.run();
    let run = h.state().battle_run().expect("open");
    let entries = run.session.battle().entries();
    assert_eq!(entries.len(), before + 1, "{:?}", messages(&h));
    assert!(matches!(
        entries.last().map(|e| &e.action),
        Some(Action::Move {
            manoeuvre: powderhorn::rules::Manoeuvre::Advance,
            ..
        })
    ));
}

/// Solo against the computer (it plays the Austrians): the person's charge on an Austrian unit
/// waits for the computer's answer; "Let the computer answer" starts it, it responds on its
/// worker and closes the window, and the person fights the combat.
#[test]
fn in_solo_the_computer_answers_a_charge_on_its_unit() {
    use builder::{Sc, AUS_LINE};
    let duel = Sc::nap()
        .unit(1, 1, AUS_LINE, 5, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_HEAVY, 3, 100.0, 94.0, 0.0)
        .scenario();
    let mut h = harness(app_with(&duel));
    h.state_mut().ui_state.pace_ms = 0;
    to_command(&mut h, "Test", &[FULL_ORDERS, GO_AHEAD]);
    h.get_by_label("heavy-cavalry-05-06-13-15 1").click();
    h.run();
    h.get_by_label_contains("Charge line-infantry-07-15 1")
        .click_accesskit();
    h.run();
    assert!(h
        .query_by_label_contains("answers the charge on line-infantry-07-15 1")
        .is_some());
    assert!(
        h.query_by_label("Done responding").is_none(),
        "not the person's answer"
    );
    h.get_by_label("Let the computer answer").click_accesskit();
    h.step();
    wait_for_opponent(&mut h);
    let run = h.state().battle_run().expect("open");
    let battle = run.session.battle();
    assert!(
        battle
            .entries()
            .iter()
            .any(|e| matches!(e.action, Action::CloseResponse { .. })),
        "{:?}",
        messages(&h)
    );
    assert_eq!(battle.state().turn.active, 0, "still the person's turn");
    h.get_by_label("Fight the combat at line-infantry-07-15 1")
        .click_accesskit();
    h.run();
    let run = h.state().battle_run().expect("open");
    assert!(matches!(
        run.session.battle().entries().last().map(|e| &e.action),
        Some(Action::ResolveCharge { .. })
    ));
}

/// The end poses the manoeuvre buttons work out are ones the engine accepts: four French lines
/// in the open, free orders, each makes one manoeuvre from its button (a wheel, an about face,
/// a retire, an oblique) and the log records that manoeuvre.
#[test]
fn the_manoeuvre_buttons_make_moves_the_engine_accepts() {
    use builder::{Sc, AUS_LINE, FR_LINE};
    use powderhorn::rules::Manoeuvre;
    let sc = Sc::nap()
        .unit(1, 1, AUS_LINE, 5, 100.0, 170.0, 180.0)
        .unit(0, 1, FR_LINE, 4, 40.0, 60.0, 0.0)
        .unit(0, 2, FR_LINE, 4, 80.0, 60.0, 0.0)
        .unit(0, 3, FR_LINE, 4, 120.0, 60.0, 0.0)
        .unit(0, 4, FR_LINE, 4, 160.0, 60.0, 0.0)
        .scenario();
    let mut h = harness(app_with(&sc));
    to_command(&mut h, "Test", &[HOTSEAT, FULL_ORDERS, GO_AHEAD]);
    for (unit, button, manoeuvre) in [
        ("line-infantry-08-12 1", "Wheel right 15°", Manoeuvre::Wheel),
        ("line-infantry-08-12 2", "About face", Manoeuvre::AboutFace),
        ("line-infantry-08-12 3", "Retire 5 cm", Manoeuvre::Retire),
        (
            "line-infantry-08-12 4",
            "Oblique left 5 cm",
            Manoeuvre::Advance,
        ),
    ] {
        h.get_by_label(unit).click();
        h.run();
        let before = entries(&h);
        h.get_by_label(button).click_accesskit();
        h.run();
        let run = h.state().battle_run().expect("open");
        let entries = run.session.battle().entries();
        assert_eq!(entries.len(), before + 1, "{button}: {:?}", messages(&h));
        assert!(
            matches!(
                entries.last().map(|e| &e.action),
                Some(Action::Move { manoeuvre: m, .. }) if *m == manoeuvre
            ),
            "{button}"
        );
    }
}
