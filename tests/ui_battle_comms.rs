//! The battle page's communication control (OPT-MULTI-01..02), driven headless with
//! `egui_kittest` by label: with the option on and two French players, a selected HQ offers
//! "Communicate…"; its one-way message is the engine's `communicate` action, and a grant is
//! shown in seconds.

#[path = "support/builder.rs"]
mod builder;
#[path = "support/ui.rs"]
mod ui_support;

use egui_kittest::kittest::Queryable;
use powderhorn::model::scenario::OptionalRule;
use powderhorn::model::{HqId, Team};
use powderhorn::rules::{Action, Event, Phase, PieceId};
use ui_support::{
    app_with, ebelsberg_sample, end_phase, harness, phase, start_with, EBELSBERG, HOTSEAT,
};

#[test]
fn opt_multi_02_a_selected_hq_communicates_from_the_window() {
    let mut sc = ebelsberg_sample();
    sc.optional_rules.push(OptionalRule::MultiplayerComms);
    sc.teams = vec![
        Team {
            side: 0,
            name: "Claparède".into(),
            hqs: vec![HqId(2)],
        },
        Team {
            side: 0,
            name: "Legrand".into(),
            hqs: vec![HqId(6)],
        },
    ];
    let mut h = harness(app_with(&sc));
    start_with(&mut h, EBELSBERG, &[HOTSEAT]);
    end_phase(&mut h); // deployment
    end_phase(&mut h); // initiative
    assert_eq!(phase(&h), Phase::Command);
    let coehorn = PieceId::Hq {
        side: 0,
        hq: HqId(3),
    };
    h.state_mut().ui_state.battle_selected = Some(coehorn);
    h.run();
    h.get_by_label("Communicate…").click();
    h.run();
    h.get_by_label("One-way message").click();
    h.run();
    let run = h.state().battle_run().expect("open");
    let battle = run.session.battle();
    let last = battle.entries().last().expect("an entry");
    assert_eq!(
        last.action,
        Action::Communicate {
            command: coehorn,
            partner: None
        }
    );
    assert!(
        last.events.iter().any(
            |e| matches!(e, Event::CommunicationRolled { command, .. } if *command == coehorn)
        ),
        "{:?}",
        last.events
    );
    let granted = last.events.iter().find_map(|e| match e {
        Event::Communicated { seconds, .. } => Some(*seconds),
        _ => None,
    });
    if let Some(s) = granted {
        let want = format!("Brigade Coëhorn may speak to the team-mates for {s} s (no reply)");
        assert!(h.query_by_label(&want).is_some(), "{want}");
    }
}
