//! The optional command rules in the battle window: with fixed formations on, a unit of the
//! CO's own formation is offered "Transfer to …" for each other HQ (OPT-FIXED-03), and the
//! button performs the transfer's command roll; a unit of another formation is offered none.

#[path = "support/builder.rs"]
mod builder;
#[path = "support/ui.rs"]
mod ui_support;

use builder::{Sc, AUS_LINE, FR_LINE};
use egui_kittest::kittest::Queryable;
use powderhorn::rules::{Action, Phase};
use ui_support::{
    app_with, end_phase, entries, harness, messages, phase, start_with, GO_AHEAD, HOTSEAT,
};

#[test]
fn opt_fixed_03_the_window_offers_a_transfer_for_the_cos_units_only() {
    let sc = Sc::bare("nap-french", "nap-austrian")
        .named("opt-fixed-ui", "Fixed formations")
        .year(1809)
        .rules(&["fixed_formations"])
        .hq(0, 1, "division", "average", 8, None, (100.0, 20.0))
        .hq(0, 2, "brigade", "average", 7, Some(1), (150.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (100.0, 40.0), 0.0)
        .unit_under(0, 2, 2, FR_LINE, 4, (150.0, 40.0), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 4, (100.0, 150.0), 180.0)
        .scenario();
    let mut h = harness(app_with(&sc));
    start_with(&mut h, "Fixed formations", &[HOTSEAT, GO_AHEAD]);
    end_phase(&mut h); // deployment
    end_phase(&mut h); // initiative
    assert_eq!(phase(&h), Phase::Command, "{:?}", messages(&h));
    let mode = h
        .state()
        .battle_run()
        .map(|r| r.session.battle().state().command.mode);
    assert_eq!(mode, Some(powderhorn::rules::command::OrdersMode::Full));
    // Unit 2 is HQ 0.2's: no transfer is offered.
    h.get_by_label("line-infantry-08-12 2").click();
    h.run();
    assert!(h.query_by_label_contains("Transfer to").is_none());
    // Unit 1 is the CO's: it may join HQ 0.2's formation.
    h.get_by_label("line-infantry-08-12 1").click();
    h.run();
    let before = entries(&h);
    h.get_by_label("Transfer to HQ 0.2").click_accesskit();
    h.run();
    let run = h.state().battle_run().expect("open");
    let log = run.session.battle().entries();
    assert_eq!(log.len(), before + 1, "{:?}", messages(&h));
    assert!(matches!(
        log.last().map(|e| &e.action),
        Some(Action::Transfer { to_hq, .. }) if to_hq.0 == 2
    ));
    assert!(
        run.panel.dice.iter().any(|d| d.rule == "OPT-FIXED-03"),
        "the transfer's command roll is in the dice log"
    );
}
