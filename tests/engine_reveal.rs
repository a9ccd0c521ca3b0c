//! VIS-17 reveals recorded as events: a dug-in unit is revealed when it moves or fires, and when
//! an enemy comes within 5 cm; the reveal is permanent; leaving its position ends its dug-in
//! status (ruling). Every test runs through `Battle::perform` and checks the exact events, and
//! that folding the events again gives the same state.
//!
//! Geometry reminders: a pose is the centre of the formation's front edge; facing 0 looks
//! towards +y. A 4-stand infantry line at (100, 50) facing 0 covers x 95..105, y 48.5..50.

use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::event::KnockOutCause;
use powderhorn::rules::reveal::RevealCause;
use powderhorn::rules::visibility::line_of_sight;
use powderhorn::rules::{Action, Battle, Event, Formation, LogEntry, Manoeuvre, PieceId, Pose};
use serde_json::json;

#[path = "support/builder.rs"]
mod builder;
use builder::{pose, pt, u, Sc, AUS_LINE, FR_LINE};

/// French side 0, Austrian side 1 (units added with the side's line infantry); `defender`
/// holds a Trench for its unit 1, in base contact behind a hedge along its front edge at
/// y = `hedge_y`.
fn new_sc(defender: usize, hedge_y: f64) -> Sc {
    let hq = |id: u32| {
        json!({
            "id": id, "name": format!("Brigade {id}"),
            "commander": {"id": id, "name": format!("General {id}"), "level": "brigade",
                          "quality": "average", "command_value": 7},
            "mounted": true, "position": null
        })
    };
    Sc::bare("nap-french", "nap-austrian")
        .named("reveal-test", "Reveal test")
        .year(1809)
        .side_names("French", "Austrians")
        .hq_json(0, hq(1))
        .hq_json(1, hq(2))
        .defender(defender)
        .terrain_json(json!({"id": 1, "name": "hedge", "kind": "linear",
                             "geometry": {"polyline": {"points": [pt(80.0, hedge_y),
                                                                  pt(120.0, hedge_y)],
                                                       "width_cm": 0.0}}}))
        .defense_json(
            defender,
            json!({"id": 9, "kind": "trench", "sections": 1, "at": [], "occupant": 1}),
        )
}

impl Sc {
    /// The battle in deployment, free orders, with `dice` scripted.
    fn deploying(&self, dice: Vec<u8>) -> Battle {
        self.at_deployment(dice, OrdersMode::Free)
    }

    /// Side 0's Command phase of player turn 1.
    fn command(&self, dice: Vec<u8>) -> Battle {
        self.at_command(dice, OrdersMode::Free, &[])
    }
}

fn mv(b: &mut Battle, piece: PieceId, to: Pose, m: Manoeuvre) -> Vec<Event> {
    match b.perform(Action::Move {
        piece,
        via: vec![],
        to,
        manoeuvre: m,
    }) {
        Ok(ev) => ev.to_vec(),
        Err(e) => panic!("expected a legal move of {piece} to {to:?}, got {e}"),
    }
}

fn reveal(piece: PieceId, cause: RevealCause) -> Event {
    Event::Revealed {
        piece,
        rule: "VIS-17".into(),
        cause,
    }
}

fn reveals(ev: &[Event]) -> Vec<Event> {
    ev.iter()
        .filter(|e| matches!(e, Event::Revealed { .. } | Event::DugInEnded { .. }))
        .cloned()
        .collect()
}

/// (revealed, dug_in) of a piece.
fn flags(b: &Battle, id: PieceId) -> (bool, bool) {
    let p = b.state().piece(id).expect("the piece is in the battle");
    (p.revealed, p.dug_in)
}

fn sees(b: &Battle, observer: PieceId, target: PieceId) -> (bool, &'static str) {
    let s = line_of_sight(&b.ctx(), observer, target);
    (s.visible, s.rule)
}

/// The log folds to the same state, survives JSON, and undo/redo keep the flags in step.
fn replays(b: &mut Battle) {
    assert_eq!(b.replay_events(), *b.state(), "events fold to the state");
    let entries = b.entries().to_vec();
    let text = serde_json::to_string(&entries).expect("the log serialises");
    let back: Vec<LogEntry> = serde_json::from_str(&text).expect("the log reads back");
    assert_eq!(back, entries, "the events round-trip through JSON");
    let now = b.state().clone();
    assert!(b.undo());
    assert!(b.redo());
    assert_eq!(*b.state(), now, "undo then redo gives the same state");
}

#[test]
fn vis_17_moving_reveals_it_and_leaving_the_works_ends_dug_in() {
    let sc = new_sc(0, 50.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 50.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 80.0, 180.0);
    let mut b = sc.command(vec![]);
    assert_eq!(sees(&b, u(1, 1), u(0, 1)), (false, "VIS-17"));
    assert_eq!(flags(&b, u(0, 1)), (false, true));
    // Straight back out of the trench: revealed, and no longer dug in (its position is left).
    let ev = mv(&mut b, u(0, 1), pose(100.0, 45.0, 0.0), Manoeuvre::Retire);
    assert!(matches!(ev.first(), Some(Event::Moved { .. })), "{ev:?}");
    assert_eq!(
        reveals(&ev),
        vec![
            reveal(u(0, 1), RevealCause::Moved),
            Event::DugInEnded {
                piece: u(0, 1),
                rule: "VIS-17".into()
            },
        ]
    );
    assert_eq!(
        ev[ev.len() - 2..],
        reveals(&ev)[..],
        "appended after the move"
    );
    assert_eq!(flags(&b, u(0, 1)), (true, false));
    // Moving again records nothing more.
    let ev = mv(&mut b, u(0, 1), pose(100.0, 42.0, 0.0), Manoeuvre::Retire);
    assert!(reveals(&ev).is_empty(), "{ev:?}");
    replays(&mut b);
}

#[test]
fn vis_17_changing_formation_in_place_reveals_but_keeps_it_dug_in() {
    let sc = new_sc(0, 50.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 50.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 80.0, 180.0);
    let mut b = sc.command(vec![]);
    let ev = b
        .perform(Action::Deploy {
            piece: u(0, 1),
            formation: Formation::MarchColumn,
        })
        .expect("the deploy is legal")
        .to_vec();
    assert_eq!(reveals(&ev), vec![reveal(u(0, 1), RevealCause::Moved)]);
    // Revealed for good, still in its works (FIRE-26, CMD-19 result 4 keep applying).
    assert_eq!(flags(&b, u(0, 1)), (true, true));
    replays(&mut b);
}

#[test]
fn vis_17_firing_reveals_it_for_good_and_it_stays_dug_in() {
    // The Austrians 8 cm in front of the hedge: it hides the French trench (VIS-17) until the
    // French fire (every die a 1: no hits).
    let sc = new_sc(0, 50.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 50.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 58.0, 180.0);
    let mut b = sc.command(vec![1; 40]);
    assert_eq!(sees(&b, u(1, 1), u(0, 1)), (false, "VIS-17"));
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: None,
        })
        .expect("the fire is legal")
        .to_vec();
    assert!(ev.iter().any(|e| matches!(e, Event::Fired { .. })));
    assert_eq!(ev.last(), Some(&reveal(u(0, 1), RevealCause::Fired)));
    assert_eq!(flags(&b, u(0, 1)), (true, true));
    assert!(sees(&b, u(1, 1), u(0, 1)).0, "seen behind its hedge now");
    replays(&mut b);
}

#[test]
fn vis_17_an_enemy_within_5_cm_reveals_it_and_one_farther_does_not() {
    // The Austrians dug in behind a hedge at y = 100, facing the French.
    let sc = new_sc(1, 100.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 86.0, 0.0)
        .unit(0, 2, FR_LINE, 4, 60.0, 60.0, 0.0);
    let mut b = sc.command(vec![]);
    assert_eq!(sees(&b, u(0, 2), u(1, 1)), (false, "VIS-17"));
    // 6 cm short of the hedge: nothing given away.
    let ev = mv(&mut b, u(0, 1), pose(100.0, 94.0, 0.0), Manoeuvre::Advance);
    assert!(reveals(&ev).is_empty(), "{ev:?}");
    assert_eq!(flags(&b, u(1, 1)), (false, true));
    // 4.5 cm: revealed, naming the enemy and the distance.
    let ev = mv(&mut b, u(0, 1), pose(100.0, 95.5, 0.0), Manoeuvre::Advance);
    let [Event::Revealed {
        piece,
        rule,
        cause: RevealCause::EnemyWithin { enemy, distance_cm },
    }] = &reveals(&ev)[..]
    else {
        panic!("expected one proximity reveal, got {ev:?}");
    };
    assert_eq!(
        (*piece, rule.as_str(), *enemy),
        (u(1, 1), "VIS-17", u(0, 1))
    );
    assert!((distance_cm - 4.5).abs() < 1e-6, "{distance_cm}");
    assert_eq!(ev.last(), reveals(&ev).last(), "appended after the move");
    // An enemy's approach reveals, but the unit has not left its works.
    assert_eq!(flags(&b, u(1, 1)), (true, true));
    assert!(sees(&b, u(0, 2), u(1, 1)).0, "the far French now see it");
    replays(&mut b);
}

/// VIS-17: `perform` works the reveals out on its own state once the action's events are
/// applied; the engine's `resolve` (a dry run) works them out on a copy. Both give the same
/// events, and an entry recorded from elsewhere (`push_entry`, the opponent's worker thread)
/// keeps its reveals as they are, never adding them twice.
#[test]
fn vis_17_perform_records_the_reveals_a_dry_run_gives() {
    use powderhorn::rules::battle::resolve;
    use powderhorn::rules::dice::ScriptedDice;
    // The French dug in at y = 50 step back out of their works: revealed, and dug in no more.
    let sc = new_sc(0, 50.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 50.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 80.0, 180.0);
    let mut b = sc.command(vec![]);
    let mut copy = sc.command(vec![]);
    let step = Action::Move {
        piece: u(0, 1),
        via: vec![],
        to: pose(100.0, 45.0, 0.0),
        manoeuvre: Manoeuvre::Retire,
    };
    let mut none = ScriptedDice::new(vec![]).expect("no dice");
    let foreseen = resolve(&b.ctx(), &step, &mut none).expect("the move resolves");
    let done = b.perform(step.clone()).expect("the move is made").to_vec();
    assert_eq!(done, foreseen);
    assert_eq!(
        reveals(&done),
        vec![
            reveal(u(0, 1), RevealCause::Moved),
            Event::DugInEnded {
                piece: u(0, 1),
                rule: "VIS-17".into()
            },
        ]
    );
    let entry = b.entries().last().cloned().expect("the move is logged");
    let pushed = copy.push_entry(entry).to_vec();
    assert_eq!(pushed, done, "the reveal is recorded once");
    assert_eq!(copy.state(), b.state());
    replays(&mut b);
}

#[test]
fn vis_17_the_reveal_is_permanent_when_the_enemy_goes_away() {
    let sc = new_sc(1, 100.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 90.0, 0.0)
        .unit(0, 2, FR_LINE, 4, 60.0, 60.0, 0.0);
    let mut b = sc.command(vec![]);
    let ev = mv(&mut b, u(0, 1), pose(100.0, 97.0, 0.0), Manoeuvre::Advance);
    assert_eq!(reveals(&ev).len(), 1, "{ev:?}");
    // The near enemy falls back out of 5 cm, then is removed altogether: still revealed, no
    // new event.
    let ev = mv(&mut b, u(0, 1), pose(100.0, 90.0, 0.0), Manoeuvre::Retire);
    assert!(reveals(&ev).is_empty(), "{ev:?}");
    let ev = b
        .perform(Action::RemoveUnit {
            piece: u(0, 1),
            cause: KnockOutCause::Referee,
        })
        .expect("the referee removes it")
        .to_vec();
    assert!(reveals(&ev).is_empty(), "{ev:?}");
    assert_eq!(flags(&b, u(1, 1)), (true, true));
    assert!(
        sees(&b, u(0, 2), u(1, 1)).0,
        "still seen: the position is given away"
    );
    // Into the next player turns: the flag stays.
    for _ in 0..6 {
        b.perform(Action::EndPhase).expect("the phases run");
    }
    assert_eq!(flags(&b, u(1, 1)), (true, true));
    replays(&mut b);
    // Undo back past the reveal: hidden again; the replayed state agrees.
    while b.undo() {}
    assert_eq!(flags(&b, u(1, 1)), (false, true));
    assert_eq!(b.replay_events(), *b.state());
}

#[test]
fn vis_17_placing_units_in_deployment_reveals_nothing() {
    let sc = new_sc(0, 50.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 50.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 80.0, 180.0);
    let mut b = sc.deploying(vec![]);
    let ev = mv(&mut b, u(0, 1), pose(100.0, 47.0, 0.0), Manoeuvre::Retire);
    assert!(reveals(&ev).is_empty(), "{ev:?}");
    assert_eq!(flags(&b, u(0, 1)), (false, true));
}

#[test]
fn vis_17_battles_without_dug_in_units_get_no_reveal_events() {
    let mut sc = new_sc(0, 50.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 50.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 54.0, 180.0);
    sc.v["sides"][0]["field_defenses"] = json!([]);
    let mut b = sc.command(vec![]);
    let ev = mv(&mut b, u(0, 1), pose(100.0, 45.0, 0.0), Manoeuvre::Retire);
    assert!(reveals(&ev).is_empty(), "{ev:?}");
}

#[test]
fn vis_17_a_hidden_dug_in_unit_cannot_be_fired_at_until_revealed() {
    // The Austrians dug in behind a hedge at y = 100; French unit 1 is 8 cm short of it.
    let sc = new_sc(1, 100.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 92.0, 0.0)
        .unit(0, 2, FR_LINE, 4, 112.0, 88.0, 0.0);
    let mut b = sc.command(vec![1; 40]);
    let fire = Action::Fire {
        firers: vec![u(0, 1)],
        target: u(1, 1),
        ammunition: None,
    };
    let Err(e) = b.perform(fire.clone()) else {
        panic!("a hidden dug-in unit was fired at");
    };
    assert!(e.to_string().contains("VIS-17"), "{e}");
    // French unit 2 moves up beside unit 1, 4.5 cm from the Austrians: the position is given
    // away.
    let ev = mv(&mut b, u(0, 2), pose(112.0, 96.0, 0.0), Manoeuvre::Advance);
    assert!(
        matches!(
            &reveals(&ev)[..],
            [Event::Revealed { piece, cause: RevealCause::EnemyWithin { enemy, .. }, .. }]
                if *piece == u(1, 1) && *enemy == u(0, 2)
        ),
        "{ev:?}"
    );
    let ev = b
        .perform(fire)
        .expect("revealed: it may be fired at")
        .to_vec();
    assert!(
        ev.iter().any(|e| matches!(e, Event::Fired { .. })),
        "{ev:?}"
    );
    assert!(reveals(&ev).is_empty(), "{ev:?}");
    replays(&mut b);
}

#[test]
fn vis_17_a_revealed_unit_stays_seen_after_it_moves_away() {
    // Firing gives the French trench away; the French then advance over their hedge out of
    // their works: one reveal only, the dug-in status ends, and they stay seen all along.
    let sc = new_sc(0, 50.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 50.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 58.0, 180.0);
    let mut b = sc.command(vec![1; 40]);
    assert_eq!(sees(&b, u(1, 1), u(0, 1)), (false, "VIS-17"));
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: None,
        })
        .expect("the fire is legal")
        .to_vec();
    assert_eq!(reveals(&ev), vec![reveal(u(0, 1), RevealCause::Fired)]);
    assert!(sees(&b, u(1, 1), u(0, 1)).0);
    let ev = mv(&mut b, u(0, 1), pose(100.0, 53.5, 0.0), Manoeuvre::Advance);
    assert_eq!(
        reveals(&ev),
        vec![Event::DugInEnded {
            piece: u(0, 1),
            rule: "VIS-17".into()
        }]
    );
    assert_eq!(flags(&b, u(0, 1)), (true, false));
    assert!(sees(&b, u(1, 1), u(0, 1)).0);
    replays(&mut b);
}

#[test]
fn vis_17_opportunity_fire_from_a_dug_in_unit_reveals_it() {
    // The Austrians dug in behind a hedge at y = 100; the French advance from 12 to 8 cm.
    let sc = new_sc(1, 100.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 88.0, 0.0);
    let mut b = sc.command(vec![1; 40]);
    let ev = mv(&mut b, u(0, 1), pose(100.0, 92.0, 0.0), Manoeuvre::Advance);
    assert!(reveals(&ev).is_empty(), "{ev:?}");
    let ev = b
        .perform(Action::OpportunityFire {
            firers: vec![u(1, 1)],
            target: u(0, 1),
            at: None,
        })
        .expect("the opportunity fire is legal")
        .to_vec();
    assert!(
        ev.iter().any(|e| matches!(e, Event::Fired { .. })),
        "{ev:?}"
    );
    assert_eq!(ev.last(), Some(&reveal(u(1, 1), RevealCause::Fired)));
    assert_eq!(flags(&b, u(1, 1)), (true, true));
    replays(&mut b);
}

#[test]
fn vis_17_a_charge_placed_beside_a_dug_in_unit_reveals_it() {
    // The Austrians dug in behind a short hedge (x 80..105.5); beside it, in the open, Austrian
    // unit 2. French unit 1 in attack column charges unit 2 and is placed 2 cm from it, 4.03 cm
    // from the dug-in unit's corner.
    let mut sc = new_sc(1, 100.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 100.0, 180.0)
        .unit(1, 2, AUS_LINE, 4, 111.0, 100.0, 180.0)
        .unit(0, 1, FR_LINE, 4, 111.0, 88.0, 0.0);
    sc.v["terrain"][0]["geometry"]["polyline"]["points"] =
        json!([pt(80.0, 100.0), pt(105.5, 100.0)]);
    let mut b = sc.deploying(vec![]);
    for f in [Formation::MarchColumn, Formation::AttackColumn] {
        b.perform(Action::Deploy {
            piece: u(0, 1),
            formation: f,
        })
        .expect("the deploy is legal");
    }
    b.perform(Action::EndPhase).expect("deployment ends");
    b.perform(Action::EndPhase).expect("to the Command phase");
    assert_eq!(flags(&b, u(1, 1)), (false, true));
    let ev = b
        .perform(Action::Charge {
            chargers: vec![u(0, 1)],
            target: u(1, 2),
            saber: false,
        })
        .expect("the charge is legal")
        .to_vec();
    let [Event::Revealed {
        piece,
        cause: RevealCause::EnemyWithin { enemy, distance_cm },
        ..
    }] = &reveals(&ev)[..]
    else {
        panic!("expected one proximity reveal, got {ev:?}");
    };
    assert_eq!((*piece, *enemy), (u(1, 1), u(0, 1)));
    assert!((distance_cm - 4.031).abs() < 1e-9, "{distance_cm}");
    assert_eq!(flags(&b, u(1, 1)), (true, true));
    replays(&mut b);
}
