//! Optional scouting cavalry (OPT-SCOUT-01..03), multi-player communication (OPT-MULTI-01..02)
//! and solo play (SOLO-01), golden: scripted dice, the exact events, expected numbers worked
//! out by hand from the catalogue in the comments.
//!
//! Geometry reminders: a pose is the centre of the formation's front edge; facing 0 looks
//! towards +y, 90 towards +x, 270 towards −x. BAS-03: an infantry stand is 2.5 × 1.5 cm, a
//! cavalry stand 3.5 × 2 cm, a command stand 3 × 3 cm. A 4-stand infantry line at (100, 100)
//! facing 180 covers x 95..105, y 100..101.5.

use powderhorn::ai::{autoplay, Limits};
use powderhorn::model::samples;
use powderhorn::rules::command::{
    OrderOutcome, OrderRoll, OrderedUnit, OrdersMode, UnitActionKind,
};
use powderhorn::rules::event::Modifier;
use powderhorn::rules::reveal::RevealCause;
use powderhorn::rules::scouting::ThreatKind;
use powderhorn::rules::state::Phase;
use powderhorn::rules::{Action, Battle, DiceSource, Event, Manoeuvre, PieceId};
use serde_json::json;

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{h, hq, pose, pt, u, Sc, AUS_LINE, FR_LINE};
use refuse::refused;

const LIGHT_CAV: &str = "light-cavalry-05-12"; // French, notes 4, 11, 12 (12: may scout)
const HEAVY_CAV: &str = "heavy-cavalry-05-06-13-15"; // French, notes 4, 13: no scouting

fn perform(b: &mut Battle, a: Action) -> Vec<Event> {
    match b.perform(a.clone()) {
        Ok(ev) => ev.to_vec(),
        Err(e) => panic!("expected {a:?} to be legal, got {e}"),
    }
}

fn end_phases(b: &mut Battle, n: usize) {
    for _ in 0..n {
        perform(b, Action::EndPhase);
    }
}

fn deploy_scout(b: &mut Battle, piece: PieceId, x: f64, y: f64, f: f64) -> Vec<Event> {
    perform(
        b,
        Action::DeployScout {
            piece,
            at: pose(x, y, f),
        },
    )
}

fn name(b: &Battle, id: PieceId) -> String {
    b.state().piece(id).expect("the piece exists").name.clone()
}

/// The log folds to the same state and survives JSON.
fn replays(b: &Battle) {
    assert_eq!(b.replay_events(), *b.state(), "events fold to the state");
    let text = serde_json::to_string(b.entries()).expect("the log serialises");
    let back: Vec<powderhorn::rules::LogEntry> =
        serde_json::from_str(&text).expect("the log reads back");
    assert_eq!(back, b.entries(), "the log round-trips through JSON");
}

// ---------------------------------------------------------------------------------------------
// OPT-SCOUT-01

/// French light cavalry (3 stands) and heavy cavalry (3) and a lone light stand; Austrians far
/// away. Scouting on unless `off`.
fn cavalry(off: bool) -> Sc {
    let sc = Sc::nap()
        .hq_at(0, 100.0, 20.0)
        .unit(0, 1, LIGHT_CAV, 3, 100.0, 30.0, 0.0)
        .unit(0, 2, HEAVY_CAV, 3, 140.0, 30.0, 0.0)
        .unit(0, 3, LIGHT_CAV, 1, 60.0, 30.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 150.0, 180.0);
    if off {
        sc
    } else {
        sc.rules(&["scouting"])
    }
}

#[test]
fn opt_scout_01_an_eligible_row_detaches_one_stand_and_others_are_refused() {
    let mut b = cavalry(false).at_deployment(vec![], OrdersMode::Full);
    let breakpoint = b.state().sides[0].breakpoint;
    let parent = name(&b, u(0, 1));
    // The window's offers: the light row may, the heavy row may not.
    let offers = |b: &Battle, id| b.options(id).expect("options").deploy_scout;
    assert!(offers(&b, u(0, 1)));
    assert!(!offers(&b, u(0, 2)));
    assert!(!offers(&b, u(0, 3)), "one stand left");
    // Side 0's unit ids are 1..3, so the scout is unit 4; one stand of the light cavalry row.
    let ev = deploy_scout(&mut b, u(0, 1), 70.0, 40.0, 0.0);
    assert_eq!(
        ev,
        vec![Event::ScoutDeployed {
            scout: u(0, 4),
            parent: u(0, 1),
            name: format!("{parent} scout 1"),
            at: pose(70.0, 40.0, 0.0),
        }]
    );
    let s = b.state();
    assert_eq!(s.piece(u(0, 1)).map(|p| p.stands), Some(2), "3 − 1 stands");
    let scout = s.piece(u(0, 4)).expect("the scout is a piece");
    assert_eq!(scout.stands, 1);
    assert_eq!(
        scout.troop_type,
        s.piece(u(0, 1)).and_then(|p| p.troop_type.clone())
    );
    assert!(s.scouts.is_scout(u(0, 4)));
    // BRK-01 is counted at setup: the scout adds nothing to it.
    assert_eq!(s.sides[0].breakpoint, breakpoint);
    // A second stand of the same unit: scout 2, unit 5.
    let ev = deploy_scout(&mut b, u(0, 1), 80.0, 40.0, 0.0);
    assert!(
        matches!(&ev[..], [Event::ScoutDeployed { scout, name: n, .. }]
            if *scout == u(0, 5) && *n == format!("{parent} scout 2")),
        "{ev:?}"
    );
    // Heavy cavalry's notes do not allow scouting; a unit's last stand stays; a scout cannot
    // be placed off the table (DATA-10).
    let at = pose(150.0, 45.0, 0.0);
    refused(
        &mut b,
        Action::DeployScout { piece: u(0, 2), at },
        "OPT-SCOUT-01",
    );
    refused(
        &mut b,
        Action::DeployScout { piece: u(0, 3), at },
        "OPT-SCOUT-01",
    );
    refused(
        &mut b,
        Action::DeployScout { piece: u(0, 1), at },
        "OPT-SCOUT-01",
    ); // 1 left
    let mut b2 = cavalry(false).at_deployment(vec![], OrdersMode::Full);
    refused(
        &mut b2,
        Action::DeployScout {
            piece: u(0, 1),
            at: pose(-50.0, 40.0, 0.0),
        },
        "DATA-10",
    );
    // Only while the armies deploy.
    end_phases(&mut b2, 1);
    refused(
        &mut b2,
        Action::DeployScout { piece: u(0, 1), at },
        "OPT-SCOUT-01",
    );
    // With the option off, nothing.
    let mut off = cavalry(true).at_deployment(vec![], OrdersMode::Full);
    refused(
        &mut off,
        Action::DeployScout { piece: u(0, 1), at },
        "OPT-SCOUT-01",
    );
    replays(&b);
}

// ---------------------------------------------------------------------------------------------
// OPT-SCOUT-02

#[test]
fn opt_scout_02_initial_roll_with_the_weather_then_one_free_move_per_command_phase() {
    // Poor weather (OPT-WEATHER-03): −1 to the scout's initial roll. The Brigade HQ (value 7,
    // the only command unit, so the CO) at (100, 20) is 18.6 cm from the scout at (80, 30)
    // (16.75 across, 8 up): no CMD-09 distance modifier. Target 7 − 1 = 6.
    let sc = cavalry(false)
        .rules(&["scouting", "weather"])
        .set("weather", json!("poor"));
    // Turn 1: 3 + 4 = 7 > 6 fails. End of game turn 1: the weather-change roll 3, 4 (no
    // change). Turn 3 (side 0's second): 2 + 3 = 5 ≤ 6 passes.
    let mut b = sc.at_deployment(vec![3, 4, 3, 4, 2, 3], OrdersMode::Full);
    deploy_scout(&mut b, u(0, 1), 80.0, 30.0, 0.0);
    let scout = u(0, 4);
    end_phases(&mut b, 2); // to side 0's Command phase
    let launch = Action::LaunchScout {
        command: hq(0),
        scout,
    };
    // Not launched: it may not move.
    refused(
        &mut b,
        Action::Move {
            piece: scout,
            via: vec![],
            to: pose(80.0, 40.0, 0.0),
            manoeuvre: Manoeuvre::Advance,
        },
        "OPT-SCOUT-02",
    );
    assert_eq!(b.options(scout).expect("options").launch_by, vec![hq(0)]);
    let order = b.state().command.next_order;
    let roll = |dice: Vec<u8>, total: u8, outcome: OrderOutcome, order: u32| {
        vec![
            Event::DiceRolled {
                piece: Some(hq(0)),
                purpose: "scout's initial command roll".into(),
                rule: "OPT-SCOUT-02".into(),
                dice,
                modifiers: vec![Modifier {
                    rule: "OPT-WEATHER-03".into(),
                    label: "poor weather".into(),
                    value: -1,
                }],
            },
            Event::OrderRolled(OrderRoll {
                order,
                command: hq(0),
                co: true,
                units: vec![OrderedUnit {
                    piece: scout,
                    action: UnitActionKind::Move,
                    target: None,
                    road: false,
                    dense: false,
                }],
                value: 7,
                target: 6,
                total,
                outcome,
            }),
            Event::ScoutLaunch {
                scout,
                command: hq(0),
                launched: outcome.issued(),
            },
        ]
    };
    let ev = perform(&mut b, launch.clone());
    assert_eq!(ev, roll(vec![3, 4], 7, OrderOutcome::Failure, order));
    // One try a turn: again next turn.
    refused(&mut b, launch.clone(), "OPT-SCOUT-02");
    // Side 0: Command → Charge → End → side 1: Initiative → Command → Charge → End → (game
    // turn ends, weather roll) side 0 turn 3 Initiative → Command.
    end_phases(&mut b, 8);
    assert_eq!(b.state().turn.player_turn, 3);
    assert_eq!(b.state().turn.phase, Phase::Command);
    let order = b.state().command.next_order;
    let ev = perform(&mut b, launch.clone());
    assert_eq!(ev, roll(vec![2, 3], 5, OrderOutcome::Success, order));
    refused(&mut b, launch, "OPT-SCOUT-02"); // launched already
                                             // Free move: the full 30 cm of light cavalry, no order (the act records none).
    let ev = perform(
        &mut b,
        Action::Move {
            piece: scout,
            via: vec![],
            to: pose(80.0, 60.0, 0.0),
            manoeuvre: Manoeuvre::Advance,
        },
    );
    assert!(
        matches!(ev.first(), Some(Event::UnitActed(a)) if a.piece == scout && a.order.is_none()),
        "{ev:?}"
    );
    assert_eq!(
        b.state().piece(scout).and_then(|p| p.pose),
        Some(pose(80.0, 60.0, 0.0))
    );
    // One move a Command phase; never fire.
    refused(
        &mut b,
        Action::Move {
            piece: scout,
            via: vec![],
            to: pose(80.0, 62.0, 0.0),
            manoeuvre: Manoeuvre::Advance,
        },
        "OPT-SCOUT-02",
    );
    refused(
        &mut b,
        Action::Fire {
            firers: vec![scout],
            target: u(1, 1),
            ammunition: None,
        },
        "OPT-SCOUT-02",
    );
    replays(&b);
}

/// French light cavalry (parent of the scouts) far back; the Austrian unit 1 (4 stands at
/// (100, 100) facing 180, x 95..105, y 100..101.5) dug in a Trench behind a hedge along its
/// front edge, y = 100 from x 80 to 120 (VIS-16: hidden until revealed, VIS-17).
fn hidden() -> Sc {
    Sc::nap()
        .rules(&["scouting"])
        .defender(1)
        .unit(0, 1, LIGHT_CAV, 3, 40.0, 30.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 100.0, 180.0)
        .terrain_json(json!({"id": 1, "name": "hedge", "kind": "linear",
                             "geometry": {"polyline": {"points": [pt(80.0, 100.0),
                                                                  pt(120.0, 100.0)],
                                                       "width_cm": 0.0}}}))
        .defense_json(
            1,
            json!({"id": 9, "kind": "trench", "sections": 1, "at": [], "occupant": 1}),
        )
}

/// The reveals the first action after deployment (its end) records with a scout placed at
/// (x, y) facing f.
fn spotted_from(x: f64, y: f64, f: f64) -> Vec<Event> {
    let mut b = hidden().at_deployment(vec![], OrdersMode::Full);
    deploy_scout(&mut b, u(0, 1), x, y, f);
    assert!(!b.state().piece(u(1, 1)).is_some_and(|p| p.revealed));
    let ev = perform(&mut b, Action::EndPhase);
    replays(&b);
    ev.into_iter()
        .filter(|e| matches!(e, Event::Revealed { .. }))
        .collect()
}

fn spotted_by_scout(distance_cm: f64) -> Vec<Event> {
    vec![Event::Revealed {
        piece: u(1, 1),
        rule: "OPT-SCOUT-02".into(),
        cause: RevealCause::Scout {
            scout: u(0, 2),
            distance_cm,
        },
    }]
}

#[test]
fn opt_scout_02_spots_hidden_enemies_within_15_cm_in_cover_and_30_cm_in_the_open() {
    // In front, across the hedge (the line from the scout's centre to the unit's crosses it:
    // cover): the scout at (100, 86) facing 0 covers y 84..86, 100 − 86 = 14 cm ≤ 15.
    assert_eq!(spotted_from(100.0, 86.0, 0.0), spotted_by_scout(14.0));
    // At (100, 84): 16 cm, beyond 15 in cover (it would be within 30 in the open).
    assert_eq!(spotted_from(100.0, 84.0, 0.0), vec![]);
    // From the flank, not across the hedge (open): the scout at (125, 101) facing 270 covers
    // x 125..127, 125 − 105 = 20 cm ≤ 30.
    assert_eq!(spotted_from(125.0, 101.0, 270.0), spotted_by_scout(20.0));
    // At (136, 101): 31 cm, beyond 30.
    assert_eq!(spotted_from(136.0, 101.0, 270.0), vec![]);
}

#[test]
fn opt_scout_02_a_launched_scout_spots_after_its_free_move() {
    // The Brigade HQ (value 7) at (90, 60), the scout at (100, 70) facing 0 (x 98.25..101.75,
    // y 68..70): 6.75 across and 8 up, 10.5 cm, no distance modifier; 2 + 2 = 4 ≤ 7 launches
    // it. It is 30 cm from the hidden unit across the hedge (cover: 15 cm): not spotted. It
    // moves 16 cm to (100, 86): 14 cm, spotted.
    let mut b = hidden()
        .hq_at(0, 90.0, 60.0)
        .at_deployment(vec![2, 2], OrdersMode::Full);
    deploy_scout(&mut b, u(0, 1), 100.0, 70.0, 0.0);
    let ev = perform(&mut b, Action::EndPhase);
    assert!(!ev.iter().any(|e| matches!(e, Event::Revealed { .. })));
    perform(&mut b, Action::EndPhase);
    let ev = perform(
        &mut b,
        Action::LaunchScout {
            command: hq(0),
            scout: u(0, 2),
        },
    );
    assert!(
        ev.contains(&Event::ScoutLaunch {
            scout: u(0, 2),
            command: hq(0),
            launched: true
        }),
        "{ev:?}"
    );
    let ev = perform(
        &mut b,
        Action::Move {
            piece: u(0, 2),
            via: vec![],
            to: pose(100.0, 86.0, 0.0),
            manoeuvre: Manoeuvre::Advance,
        },
    );
    assert_eq!(ev.last(), spotted_by_scout(14.0).first(), "{ev:?}");
    assert!(b.state().piece(u(1, 1)).is_some_and(|p| p.revealed));
    replays(&b);
}

#[test]
fn opt_scout_02_spotting_needs_line_of_sight() {
    // A wood (high area, VIS: blocks sight) from y 88 to 96 across the whole approach blocks
    // the line from the scout at (100, 86) facing 0 (14 cm away) to the hidden unit.
    let sc = hidden().terrain_json(json!({"id": 2, "name": "wood", "kind": "high_area",
        "geometry": {"polygon": [pt(60.0, 88.0), pt(140.0, 88.0), pt(140.0, 96.0),
                                 pt(60.0, 96.0)]}}));
    let mut b = sc.at_deployment(vec![], OrdersMode::Full);
    deploy_scout(&mut b, u(0, 1), 100.0, 86.0, 0.0);
    let ev = perform(&mut b, Action::EndPhase);
    assert!(
        !ev.iter().any(|e| matches!(e, Event::Revealed { .. })),
        "{ev:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// OPT-SCOUT-03

#[test]
fn opt_scout_03_a_scout_fired_at_or_charged_withdraws_and_is_not_lost() {
    // Two French scouts in front of two Austrian line units in the open; free orders, so the
    // Austrians act in their own Command phase without command rolls.
    let sc = Sc::nap()
        .rules(&["scouting"])
        .unit(0, 1, LIGHT_CAV, 3, 40.0, 30.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 100.0, 180.0)
        .unit(1, 2, AUS_LINE, 4, 150.0, 100.0, 180.0);
    let mut b = sc.at_deployment(vec![], OrdersMode::Free);
    deploy_scout(&mut b, u(0, 1), 100.0, 92.0, 0.0); // 8 cm in front of unit 1
    deploy_scout(&mut b, u(0, 1), 150.0, 92.0, 0.0); // 8 cm in front of unit 2
    let (s1, s2) = (u(0, 2), u(0, 3));
    // Side 0 turn 1 (Initiative, Command, Charge, End), then side 1 Initiative → Command.
    end_phases(&mut b, 6);
    assert_eq!(b.state().turn.active, 1);
    assert_eq!(b.state().turn.phase, Phase::Command);
    let ledger = b.state().ledger.clone();
    let dice_before = b.dice_position();
    let ev = perform(
        &mut b,
        Action::Fire {
            firers: vec![u(1, 1)],
            target: s1,
            ammunition: None,
        },
    );
    assert_eq!(
        ev,
        vec![Event::ScoutWithdrawn {
            scout: s1,
            by: vec![u(1, 1)],
            cause: ThreatKind::FiredAt,
        }]
    );
    assert_eq!(b.dice_position(), dice_before, "no dice");
    let ev = perform(
        &mut b,
        Action::Charge {
            chargers: vec![u(1, 2)],
            target: s2,
            saber: false,
        },
    );
    assert_eq!(
        ev,
        vec![Event::ScoutWithdrawn {
            scout: s2,
            by: vec![u(1, 2)],
            cause: ThreatKind::Contacted,
        }]
    );
    let s = b.state();
    for scout in [s1, s2] {
        let p = s.piece(scout).expect("still listed");
        assert_eq!(p.pose, None, "off the table");
        assert!(!p.knocked_out, "withdrawn, not lost");
    }
    assert_eq!(s.sides[0].units_lost, 0, "no breakpoint loss");
    assert_eq!(s.ledger, ledger, "no VPs");
    assert_eq!(
        s.piece(u(0, 1)).map(|p| p.stands),
        Some(1),
        "not given back"
    );
    replays(&b);
}

// ---------------------------------------------------------------------------------------------
// OPT-MULTI-01, OPT-MULTI-02

/// Side 0: CO HQ 1 (army, value 8), Brigade HQs 3 and 4 (value 7) under it; team "Anna" plays
/// HQs 1 and 3, "Ben" HQ 4. Poor weather with the weather rule on (not applied to
/// communication rolls, OPT-WEATHER-03 ruling).
fn teams(with_teams: bool) -> Sc {
    let sc = Sc::bare("nap-french", "nap-austrian")
        .year(1809)
        .rules(&["multiplayer_comms", "weather"])
        .set("weather", json!("poor"))
        .hq(0, 1, "army", "average", 8, None, (100.0, 10.0))
        .hq(0, 3, "brigade", "average", 7, Some(1), (60.0, 10.0))
        .hq(0, 4, "brigade", "average", 7, Some(1), (140.0, 10.0))
        .hq(1, 2, "brigade", "average", 7, None, (100.0, 170.0))
        .unit_under(0, 1, 3, FR_LINE, 4, (60.0, 30.0), 0.0)
        .unit_under(1, 1, 2, AUS_LINE, 4, (100.0, 150.0), 180.0);
    if with_teams {
        sc.set(
            "teams",
            json!([
                {"side": 0, "name": "Anna", "hqs": [1, 3]},
                {"side": 0, "name": "Ben", "hqs": [4]}
            ]),
        )
    } else {
        sc
    }
}

fn comm(command: PieceId, partner: Option<PieceId>) -> Action {
    Action::Communicate { command, partner }
}

#[allow(clippy::too_many_arguments)]
fn comm_roll(
    command: PieceId,
    dice: Vec<u8>,
    modifiers: Vec<Modifier>,
    partner_roll: bool,
    co: bool,
    value: u8,
    target: i32,
    outcome: OrderOutcome,
) -> Vec<Event> {
    let total = dice.iter().sum();
    vec![
        Event::DiceRolled {
            piece: Some(command),
            purpose: "communication roll".into(),
            rule: "OPT-MULTI-02".into(),
            dice,
            modifiers,
        },
        Event::CommunicationRolled {
            command,
            partner_roll,
            co,
            player_turn: 1,
            value,
            target,
            total,
            outcome,
        },
    ]
}

fn granted(command: PieceId, partner: Option<PieceId>, dice: Vec<u8>, seconds: u32) -> Vec<Event> {
    vec![
        Event::DiceRolled {
            piece: Some(command),
            purpose: "communication time".into(),
            rule: "OPT-MULTI-02".into(),
            dice: dice.clone(),
            modifiers: vec![],
        },
        Event::Communicated {
            command,
            partner,
            two_way: partner.is_some(),
            dice,
            seconds,
        },
    ]
}

fn at_command(sc: &Sc, dice: Vec<u8>) -> Battle {
    sc.at_command(dice, OrdersMode::Full, &[])
}

#[test]
fn opt_multi_01_teams_gate_who_may_communicate() {
    // No teams: one player per side, nobody to talk to.
    let mut b = at_command(&teams(false), vec![]);
    refused(&mut b, comm(h(0, 3), None), "OPT-MULTI-01");
    let mut b = at_command(&teams(true), vec![]);
    // HQ 3 and the CO are both Anna's: two-way needs another player.
    refused(&mut b, comm(h(0, 3), Some(h(0, 1))), "OPT-MULTI-01");
    // A partner on the other side, or not a command unit.
    refused(&mut b, comm(h(0, 3), Some(h(1, 2))), "OPT-MULTI-02");
    refused(&mut b, comm(u(0, 1), None), "OPT-MULTI-02");
    // Only in the Command phase (CMD-03: like an order).
    let mut b = teams(true).at_initiative(vec![], OrdersMode::Full, &[]);
    refused(&mut b, comm(h(0, 3), None), "CMD-03");
    // The option off: refused.
    let mut b = at_command(&teams(true).rules(&["weather"]), vec![]);
    refused(&mut b, comm(h(0, 3), None), "OPT-MULTI-02");
}

#[test]
fn opt_multi_02_one_way_success_then_the_successive_penalty_and_a_failure_ends_orders() {
    // HQ 3 (value 7): 2 + 3 = 5 ≤ 7, no modifier (poor weather does not apply): success;
    // 1D6 = 4 → 4 × 5 = 20 s. Its second roll: 7 − 1 = 6; 4 + 4 = 8 fails.
    let mut b = at_command(&teams(true), vec![2, 3, 4, 4, 4]);
    // The window's offers: one-way, or two-way with Ben's HQ 4 (the CO is Anna's too).
    assert_eq!(
        b.options(h(0, 3)).expect("options").communicate,
        vec![None, Some(h(0, 4))]
    );
    let ev = perform(&mut b, comm(h(0, 3), None));
    let mut want = comm_roll(
        h(0, 3),
        vec![2, 3],
        vec![],
        false,
        false,
        7,
        7,
        OrderOutcome::Success,
    );
    want.extend(granted(h(0, 3), None, vec![4], 20));
    assert_eq!(ev, want);
    assert_eq!(b.state().piece(h(0, 3)).map(|p| p.orders.issued), Some(1));
    let ev = perform(&mut b, comm(h(0, 3), None));
    let succ = Modifier {
        rule: "OPT-MULTI-02".into(),
        label: "communication roll 2 this turn".into(),
        value: -1,
    };
    assert_eq!(
        ev,
        comm_roll(
            h(0, 3),
            vec![4, 4],
            vec![succ],
            false,
            false,
            7,
            6,
            OrderOutcome::Failure
        )
    );
    // Ruling (a): the failure ends HQ 3's orders for the turn.
    refused(&mut b, comm(h(0, 3), None), "CMD-05");
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 3),
            units: vec![OrderedUnit {
                piece: u(0, 1),
                action: UnitActionKind::Move,
                target: None,
                road: false,
                dense: false,
            }],
        },
        "CMD-05",
    );
    replays(&b);
}

#[test]
fn opt_multi_02_two_way_both_succeed_and_a_double_one_adds_a_die() {
    // The CO (value 8) rolls 1 + 1: success with an extra duration die; Ben's HQ 4 (value 7)
    // rolls 3 + 2 = 5 ≤ 7. Two dice, 3 + 5 = 8 → 8 × 10 = 80 s.
    let mut b = at_command(&teams(true), vec![1, 1, 3, 2, 3, 5]);
    let ev = perform(&mut b, comm(h(0, 1), Some(h(0, 4))));
    let mut want = comm_roll(
        h(0, 1),
        vec![1, 1],
        vec![],
        false,
        true,
        8,
        8,
        OrderOutcome::Bonus,
    );
    want.extend(comm_roll(
        h(0, 4),
        vec![3, 2],
        vec![],
        true,
        false,
        7,
        7,
        OrderOutcome::Success,
    ));
    want.extend(granted(h(0, 1), Some(h(0, 4)), vec![3, 5], 80));
    assert_eq!(ev, want);
    // Both count the roll as an order (CMD-01).
    for c in [h(0, 1), h(0, 4)] {
        assert_eq!(b.state().piece(c).map(|p| p.orders.issued), Some(1));
    }
    // Both double one: three dice, 2 + 3 + 6 = 11 → 110 s.
    let mut b = at_command(&teams(true), vec![1, 1, 1, 1, 2, 3, 6]);
    let ev = perform(&mut b, comm(h(0, 4), Some(h(0, 3))));
    let mut want = comm_roll(
        h(0, 4),
        vec![1, 1],
        vec![],
        false,
        false,
        7,
        7,
        OrderOutcome::Bonus,
    );
    want.extend(comm_roll(
        h(0, 3),
        vec![1, 1],
        vec![],
        true,
        false,
        7,
        7,
        OrderOutcome::Bonus,
    ));
    want.extend(granted(h(0, 4), Some(h(0, 3)), vec![2, 3, 6], 110));
    assert_eq!(ev, want);
    replays(&b);
}

#[test]
fn opt_multi_02_the_partner_failing_grants_nothing_and_the_co_failing_ends_the_sides_orders() {
    // HQ 4: 3 + 3 = 6 ≤ 7; partner HQ 3: 5 + 4 = 9 > 7 fails: no time, HQ 3's orders end.
    let mut b = at_command(&teams(true), vec![3, 3, 5, 4]);
    let ev = perform(&mut b, comm(h(0, 4), Some(h(0, 3))));
    let mut want = comm_roll(
        h(0, 4),
        vec![3, 3],
        vec![],
        false,
        false,
        7,
        7,
        OrderOutcome::Success,
    );
    want.extend(comm_roll(
        h(0, 3),
        vec![5, 4],
        vec![],
        true,
        false,
        7,
        7,
        OrderOutcome::Failure,
    ));
    assert_eq!(ev, want);
    refused(&mut b, comm(h(0, 3), Some(h(0, 4))), "CMD-05");
    // The CO: 5 + 5 = 10 > 8 fails: every command unit of the side is done (CMD-05).
    let mut b = at_command(&teams(true), vec![5, 5]);
    let ev = perform(&mut b, comm(h(0, 1), Some(h(0, 4))));
    assert_eq!(
        ev,
        comm_roll(
            h(0, 1),
            vec![5, 5],
            vec![],
            false,
            true,
            8,
            8,
            OrderOutcome::Failure
        )
    );
    refused(&mut b, comm(h(0, 4), None), "CMD-05");
}

#[test]
fn opt_multi_02_a_double_six_is_a_blunder() {
    // HQ 4: 6 + 6: a blunder (CMD-18); the table: 5, OPEN FIRE! — no ordered units, so nothing
    // fires. The roll failed: HQ 4 is done.
    let mut b = at_command(&teams(true), vec![6, 6, 5]);
    let order = b.state().command.next_order;
    let ev = perform(&mut b, comm(h(0, 4), None));
    let mut want = comm_roll(
        h(0, 4),
        vec![6, 6],
        vec![],
        false,
        false,
        7,
        7,
        OrderOutcome::Blunder,
    );
    want.push(Event::DiceRolled {
        piece: Some(h(0, 4)),
        purpose: "blunder table".into(),
        rule: "CMD-19".into(),
        dice: vec![5],
        modifiers: vec![],
    });
    want.push(Event::Blunder {
        order,
        command: h(0, 4),
        result: 5,
        name: "OPEN FIRE!".into(),
    });
    assert_eq!(ev, want);
    refused(&mut b, comm(h(0, 4), None), "CMD-05");
}

// ---------------------------------------------------------------------------------------------
// SOLO-01

#[test]
fn solo_01_the_solo_opponent_on_both_sides_plays_by_the_standard_rules() {
    // SOLO-01: no special rules. Autoplay both sides of the sample battle; re-perform every
    // logged action on a fresh battle with the same seed: each passes the same `check` any
    // player's action passes and gives the same events, and the battle reaches its end.
    let scenario = samples::scenarios()
        .expect("the samples parse")
        .into_iter()
        .find(|s| s.id.as_str() == "1809-ebelsberg")
        .expect("Ebelsberg is a sample");
    let lists = builder::lists();
    let mut b = Battle::new(scenario.clone(), lists.clone(), DiceSource::Seed(5), 0)
        .expect("the sample sets up");
    let run = autoplay(&mut b, &Limits::default());
    assert!(run.finished, "{:?}", run.stopped);
    assert_eq!(b.state().turn.phase, Phase::Over);
    let mut fresh =
        Battle::new(scenario, lists, DiceSource::Seed(5), 0).expect("the sample sets up");
    let mut checked = 0;
    for entry in b.entries() {
        fresh
            .check(&entry.action)
            .unwrap_or_else(|e| panic!("{:?} fails the standard check: {e}", entry.action));
        let ev = perform(&mut fresh, entry.action.clone());
        assert_eq!(ev, entry.events);
        checked += 1;
    }
    assert_eq!(fresh.state(), b.state());
    assert!(checked >= 100, "only {checked} actions checked");
}

#[test]
fn solo_01_with_every_optional_rule_on_the_solo_opponent_still_plays_to_the_end() {
    // The same standard rules with every optional switch on: a few seeds finish and replay.
    let mut scenario = samples::scenarios()
        .expect("the samples parse")
        .into_iter()
        .find(|s| s.id.as_str() == "1809-ebelsberg")
        .expect("Ebelsberg is a sample");
    scenario.optional_rules = powderhorn::model::scenario::OptionalRule::ALL.to_vec();
    let lists = builder::lists();
    let mut played = 0;
    for seed in 0..3 {
        let mut b = Battle::new(scenario.clone(), lists.clone(), DiceSource::Seed(seed), 0)
            .expect("the sample sets up");
        let run = autoplay(&mut b, &Limits::default());
        assert!(run.finished, "seed {seed}: {:?}", run.stopped);
        assert_eq!(
            b.replay_events(),
            *b.state(),
            "seed {seed}: the events fold"
        );
        played += 1;
    }
    assert_eq!(played, 3);
}
