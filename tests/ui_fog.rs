//! Fog of war in the window (issue #17 item 10), driven headless with `egui_kittest`: a hot-seat
//! battle of the sample asks for the player before showing each side's view, hides the enemies
//! that side does not see (table, units list, dice log) and shows them again to the referee.

#[path = "support/ui.rs"]
mod ui_support;

use egui_kittest::kittest::Queryable;
use powderhorn::rules::fog::FogMemory;
use ui_support::{app_on, end_phase, harness, start_with, EBELSBERG, FOG, HOTSEAT, REFEREE};

#[test]
fn hot_seat_fog_of_war_hands_the_screen_over_and_hides_unseen_enemies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("fog.sqlite");
    let mut h = harness(app_on(&db));
    start_with(&mut h, EBELSBERG, &[HOTSEAT, FOG]);
    let run = h.state().battle_run().expect("a battle is open");
    assert!(run.session.record().fog, "stored with fog of war");
    // Nothing of the battle until the French player has the screen.
    assert!(h.query_by_label("Pass to the French player").is_some());
    assert!(h.query_by_label("End phase").is_none());
    assert!(h.query_by_label("Dice log").is_none());
    h.get_by_label("I am the French player: show my view")
        .click();
    h.run();
    assert!(h.query_by_label("End phase").is_some());
    // What the French see, by the engine's sight: the Austrians they do not see are "unseen"
    // in the units list, with no way to select them, and absent from the table.
    let run = h.state().battle_run().expect("open");
    let battle = run.session.battle();
    let memory = FogMemory::of_battle(battle, 0);
    let hidden: Vec<_> = battle
        .state()
        .pieces
        .values()
        .filter(|p| p.id.side() == 1 && p.pose.is_some() && !memory.is_seen(p.id))
        .collect();
    assert!(
        !hidden.is_empty(),
        "at the start of Ebelsberg some Austrians are out of French sight"
    );
    let panel = &run.panel;
    for p in &hidden {
        assert!(
            panel.units.iter().all(|u| u.name != p.name),
            "{} named",
            p.name
        );
        assert!(panel.scene.piece(p.id).is_none(), "{} drawn", p.name);
        assert!(panel.poses.iter().all(|(id, _)| *id != p.id));
    }
    let unseen = panel.units.iter().filter(|u| u.name == "unseen").count();
    assert_eq!(unseen, hidden.len());
    assert!(panel
        .units
        .iter()
        .all(|u| u.name != "unseen" || u.id.is_none()));
    // Every French unit is on the list under its name.
    for p in battle.state().pieces.values().filter(|p| p.id.side() == 0) {
        assert!(panel.units.iter().any(|u| u.name == p.name));
    }
    // The French end deployment and their phases: then the screen goes to the Austrian player.
    let mut guard = 0;
    while h.query_by_label("Pass to the Austrian player").is_none() {
        end_phase(&mut h);
        guard += 1;
        assert!(guard < 10, "the turn passes to the Austrians");
    }
    assert!(h.query_by_label("End phase").is_none());
    h.get_by_label("I am the Austrian player: show my view")
        .click();
    h.run();
    let run = h.state().battle_run().expect("open");
    assert_eq!(run.panel.fog.as_ref().map(|f| f.side), Some(1));
    let memory = FogMemory::of_battle(run.session.battle(), 1);
    for p in run.session.battle().state().pieces.values() {
        if p.id.side() == 0 && p.pose.is_some() && !memory.is_seen(p.id) {
            assert!(run.panel.units.iter().all(|u| u.name != p.name));
            // Seen at some time: drawn faded where last seen; never seen: not drawn.
            match memory.last_seen(p.id) {
                Some(_) => assert!(run
                    .panel
                    .scene
                    .piece(p.id)
                    .is_some_and(|s| s.label.starts_with("last seen"))),
                None => assert!(run.panel.scene.piece(p.id).is_none()),
            }
        }
    }
}

#[test]
fn a_referee_sees_everything_even_when_fog_was_asked_for() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ref.sqlite");
    let mut h = harness(app_on(&db));
    // The box is offered for solo and hot-seat: tick it there, then choose the referee.
    start_with(&mut h, EBELSBERG, &[HOTSEAT, FOG, REFEREE]);
    let run = h.state().battle_run().expect("open");
    assert!(!run.session.record().fog);
    assert!(run.panel.fog.is_none());
    assert!(h.query_by_label("End phase").is_some());
    let on_table = run
        .session
        .battle()
        .state()
        .pieces
        .values()
        .filter(|p| p.pose.is_some())
        .count();
    assert_eq!(run.panel.scene.pieces.len(), on_table);
    assert!(run.panel.units.iter().all(|u| u.name != "unseen"));
}
