//! The optional combat rules in the battle window (issue #21 item 3), driven headless with
//! `egui_kittest` by label: with the saber charge and prone switched on, the selected cavalry
//! is offered "Saber charge …" beside its charge, a foot unit "Go prone" and then "Stand up",
//! and each button performs the action the engine offered (OPT-SABER-01, OPT-PRONE-01).

#[path = "support/builder.rs"]
mod builder;
#[path = "support/ui.rs"]
mod ui_support;

use egui_kittest::kittest::Queryable;
use powderhorn::rules::{Action, Phase};
use ui_support::{
    app_with, end_phase, harness, messages, phase, start_with, FULL_ORDERS, GO_AHEAD, HOTSEAT,
};

const FR_HEAVY: &str = "heavy-cavalry-05-06-13-15";

fn last_action(h: &egui_kittest::Harness<'static, powderhorn::app::App>) -> Option<Action> {
    let run = h.state().battle_run()?;
    run.session
        .battle()
        .entries()
        .last()
        .map(|e| e.action.clone())
}

#[test]
fn the_window_offers_saber_charge_go_prone_and_stand_up_when_the_options_are_on() {
    use builder::{Sc, AUS_LINE, FR_LINE};
    let s = Sc::nap()
        .rules(&["saber_charge", "prone"])
        .unit(1, 1, AUS_LINE, 5, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_HEAVY, 3, 100.0, 94.0, 0.0)
        .unit(0, 2, FR_LINE, 4, 60.0, 60.0, 0.0)
        .scenario();
    let mut h = harness(app_with(&s));
    // The start form's orders box is ticked by default: unticked, the table rolls command.
    start_with(&mut h, "Test", &[HOTSEAT, FULL_ORDERS, GO_AHEAD]);
    end_phase(&mut h); // deployment
    end_phase(&mut h); // initiative
    assert_eq!(phase(&h), Phase::Command, "{:?}", messages(&h));

    // The foot unit lies down, then stands up again (Deploy actions).
    h.get_by_label("line-infantry-08-12 2").click();
    h.run();
    assert!(h.query_by_label("Stand up").is_none());
    h.get_by_label("Go prone").click_accesskit();
    h.run();
    assert!(
        matches!(last_action(&h), Some(Action::Prone { prone: true, .. })),
        "{:?}",
        messages(&h)
    );
    assert!(h.query_by_label("Go prone").is_none());
    h.get_by_label("Stand up").click_accesskit();
    h.run();
    assert!(
        matches!(last_action(&h), Some(Action::Prone { prone: false, .. })),
        "{:?}",
        messages(&h)
    );

    // The cavalry: the saber charge beside the ordinary one.
    h.get_by_label("heavy-cavalry-05-06-13-15 1").click();
    h.run();
    assert!(h
        .query_by_label_contains("Charge line-infantry-07-15 1")
        .is_some());
    // Its hover shows the saber charge's own first round (OPT-SABER-02): 3 stands × 3 + 3
    // (one more per mounted stand) + 1 charging + 1 heavy = 14 dice at 4+, where the ordinary
    // charge rolls 11.
    h.get_by_label_contains("Saber charge line-infantry-07-15 1")
        .hover();
    for _ in 0..6 {
        h.step();
    }
    assert!(
        h.query_by_label_contains("charge: attackers to hit: 14 dice, 4+ to hit")
            .is_some(),
        "the saber charge's hover shows its own dice"
    );
    h.get_by_label_contains("Saber charge line-infantry-07-15 1")
        .click_accesskit();
    h.run();
    assert!(
        matches!(last_action(&h), Some(Action::Charge { saber: true, .. })),
        "{:?}",
        messages(&h)
    );
}
