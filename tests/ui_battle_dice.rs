//! The dice log, the rules reference and the referee's dice pad driven headless with
//! `egui_kittest` (issue #17 item 5): filter the log by a side, copy it as text, open a cited
//! rule on the Rules page, and in a physical-dice battle enter a fire's dice on the pad: a bad
//! entry is refused with the engine's words and changes nothing; a good one is performed and
//! its roll shows in the log marked as typed in, with where its dice went.

#[path = "support/builder.rs"]
mod builder;
#[path = "support/ui.rs"]
mod ui_support;

use builder::{Sc, AUS_LINE, FR_LINE};
use egui::Key;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::ui::Page;
use ui_support::{
    app_with, end_phase, entries, harness_sized, pad_problem, start_with, FULL_ORDERS, GO_AHEAD,
    HOTSEAT, PHYSICAL, REFEREE,
};

const FRENCH: &str = "line-infantry-08-12 1";
const FIRE: &str = "Fire at line-infantry-07-15 1";

/// A French line 5 cm in front of an Austrian line, face to face, free orders; the
/// deployment ended, so the French may fire. `choices`: the start form's extra choices.
fn duel(choices: &[&str]) -> Harness<'static, App> {
    let sc = Sc::nap()
        .unit(1, 1, AUS_LINE, 5, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 95.0, 0.0)
        .scenario();
    let mut h = harness_sized(app_with(&sc), egui::vec2(1500.0, 950.0));
    start_with(
        &mut h,
        "Test",
        &[choices, &[FULL_ORDERS, GO_AHEAD]].concat(),
    );
    end_phase(&mut h);
    h.get_by_label(FRENCH).click();
    h.run();
    h
}

#[test]
fn the_log_filters_by_side_copies_its_text_and_opens_a_cited_rule() {
    let mut h = duel(&[HOTSEAT]);
    h.get_by_label_contains(FIRE).click();
    h.run();
    let dice = h.state().battle_run().expect("open").panel.dice.clone();
    let french = dice.iter().filter(|d| d.side == Some(0)).count();
    let austrian = dice.iter().filter(|d| d.side == Some(1)).count();
    assert!(french >= 1, "the volley is in the log: {dice:?}");
    assert!(h.query_by_label_contains("to hit:").is_some());

    // Only the Austrians' rolls (their saves, if any): the French volley leaves the list.
    let names = h
        .state()
        .battle_run()
        .expect("open")
        .panel
        .side_names
        .clone();
    h.get_by_label("Side").click();
    h.run();
    h.get_by_label(&format!("Only {}", names[1])).click();
    h.run();
    assert_eq!(h.state().ui_state.dice_log.side, Some(1));
    assert!(h.query_by_label_contains("to hit:").is_none());
    if austrian == 0 {
        assert!(h.query_by_label("No rolls yet.").is_some());
    }
    assert!(h
        .query_by_label_contains(&format!("· {austrian} shown"))
        .is_some());

    // Copy puts the rolls shown on the clipboard, as the text export words them.
    h.get_by_label("Copy").click();
    h.step();
    let copied: Vec<String> = h
        .output()
        .platform_output
        .commands
        .iter()
        .filter_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    let [text] = copied.as_slice() else {
        panic!("one copy, got {copied:?}");
    };
    assert!(
        text.starts_with(&format!("Dice log: Test ({} only)\n", names[1])),
        "{text}"
    );
    assert!(!text.contains("to hit FIRE"), "{text}");

    // Back to both sides; a modifier's rule ID opens the Rules page at that rule.
    h.get_by_label("Side").click();
    h.run();
    h.get_by_label("Both sides").click();
    h.run();
    let first_fire = h
        .query_all_by_label("FIRE-13")
        .next()
        .expect("the +1 cited");
    first_fire.click();
    h.run();
    assert_eq!(h.state().ui_state.page, Page::Rules);
    assert_eq!(
        h.state().ui_state.rules_ref.selected.as_deref(),
        Some("FIRE-13")
    );
    assert!(h.query_by_label("First volley").is_some());
    // The search narrows the list.
    h.get_by_label_contains("All rules").click();
    h.run();
    h.get_by_label("Search rules").click();
    h.run();
    h.get_by_label("Search rules").type_text("square");
    h.run();
    assert!(h.query_by_label("Forced into square").is_some());
    assert!(h.query_by_label("First volley").is_none());
}

#[test]
fn the_referee_enters_a_fires_dice_on_the_pad_a_bad_entry_is_refused_a_good_one_logged() {
    let mut h = duel(&[REFEREE, PHYSICAL]);
    assert_eq!(
        h.state().battle_run().expect("open").session.record().dice,
        powderhorn::rules::DiceSource::Physical
    );
    assert!(
        h.query_by_label("Dice rolled:").is_none(),
        "the pad replaced the field"
    );
    let before = entries(&h);
    h.get_by_label_contains(FIRE).click();
    h.run();
    // The fire waits on the pad, which says what the dice are for: 4 stands + 1 within half
    // range = 5 dice to hit (FIRE-08, FIRE-11).
    assert_eq!(entries(&h), before, "nothing performed yet");
    assert!(h.state().ui_state.dice_pad.action.is_some());
    assert!(h
        .query_by_label_contains("roll 5 dice: 5 dice for to hit")
        .is_some());

    // A key that is no face of a d6 is refused on the pad.
    h.key_press(Key::Num7);
    h.run();
    assert!(h
        .query_by_label("7 is not a face of a d6: enter each die as 1 to 6")
        .is_some());
    // Too few: two dice and Enter. The engine's words; nothing happens.
    h.key_press(Key::Num1);
    h.key_press(Key::Num1);
    h.run();
    h.key_press(Key::Enter);
    h.run();
    assert_eq!(h.state().ui_state.dice_pad.dice, vec![1, 1]);
    let problem = pad_problem(&h).expect("refused");
    assert!(problem.contains("2 were entered"), "{problem}");
    assert!(h.query_by_label(&problem).is_some(), "shown on the pad");
    assert_eq!(entries(&h), before);
    // Too many: six ones (with the four clicked on the pad), then one taken back.
    for _ in 0..4 {
        h.get_by_label("⚀ 1").click();
        h.run();
    }
    h.get_by_label("Roll them in").click();
    h.run();
    let problem = pad_problem(&h).expect("refused");
    assert!(
        problem.starts_with("6 dice were entered but the action uses only 5"),
        "{problem}"
    );
    assert_eq!(entries(&h), before);
    h.key_press(Key::Backspace);
    h.run();
    // Five ones: each 1 + 1 first fire (FIRE-13) = 2, short of the 4 needed in the open
    // (FIRE-14): no hits, so no save and no test follow. Exactly 5 dice.
    h.get_by_label("Roll them in").click();
    h.run();
    assert_eq!(
        entries(&h),
        before + 1,
        "performed: {:?} {:?}",
        h.state().ui_state.dice_pad,
        h.state().messages()
    );
    let run = h.state().battle_run().expect("open");
    let entry = run.session.battle().entries().last().expect("entry");
    assert_eq!(entry.hand_dice.as_deref(), Some(&[1, 1, 1, 1, 1][..]));
    let roll = run.panel.dice.last().expect("logged");
    assert_eq!(roll.purpose, "to hit");
    assert_eq!(roll.dice, vec![1, 1, 1, 1, 1]);
    assert!(roll.by_hand);
    assert_eq!(roll.typed, Some((1, 5, 5)));
    assert_eq!(roll.needed.as_deref(), Some("4+"));
    assert!(h.query_by_label("dice 1–5 of 5 typed in").is_some());
    assert!(
        h.state().ui_state.dice_pad.action.is_none(),
        "the pad is free"
    );
}
