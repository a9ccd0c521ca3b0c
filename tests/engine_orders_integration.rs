//! Orders wired into charges, evades and engineering (issue 4): under full orders the gate
//! (`command::authorize`) runs before every charge, support, evade and task; presence dice
//! (CMD-21) and shared fate (CMD-22, CMD-26) reach the charge rules. Scripted dice, exact events.

use powderhorn::model::{ArmyList, HqId, Scenario};
use powderhorn::rules::charge::{ChargerPlan, Edge, Response};
use powderhorn::rules::command::{OrderedUnit, OrdersMode, UnitActionKind};
use powderhorn::rules::{Action, Battle, DiceSource, Event, Formation, Phase, PieceId};
use serde_json::json;

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{hq, pose, u, Sc, AUS_LINE, FR_LINE};

/// The shipped lists with the first-fire bonus off: every unit "has fired before".
fn lists() -> Vec<ArmyList> {
    builder::lists_without_first_fire()
}

/// Austrians (side 0) A at (100, 100) facing +y, the French D 12 cm ahead facing it (the WE-07
/// table), a second French unit Y off to the right; each side's brigade HQ placed at `hq0` /
/// `hq1` (or off the table).
fn scenario(hq0: Option<(f64, f64, f64)>, hq1: Option<(f64, f64, f64)>) -> Scenario {
    scenario_with(hq0, hq1, false)
}

/// As [`scenario`], the French brigade fielding a skirmisher screen when `screen` (SKIR-01).
fn scenario_with(
    hq0: Option<(f64, f64, f64)>,
    hq1: Option<(f64, f64, f64)>,
    screen: bool,
) -> Scenario {
    scenario_full(hq0, hq1, screen, false)
}

/// As [`scenario_with`], with the WE-07 supporters when `supporters`: Austrian S to A's right
/// (6 cm behind A's contact position) and French DS 5 cm behind D.
fn scenario_full(
    hq0: Option<(f64, f64, f64)>,
    hq1: Option<(f64, f64, f64)>,
    screen: bool,
    supporters: bool,
) -> Scenario {
    let place = |sc: Sc, side: usize, at: Option<(f64, f64, f64)>| match at {
        Some((x, y, f)) => sc.hq_pose(side, x, y, f),
        None => sc,
    };
    let sc = Sc::new("nap-austrian", "nap-french")
        .named("orders-charge", "Orders and charges")
        .year(1809)
        .side_names("Austrians", "French");
    let mut sc = place(place(sc, 0, hq0), 1, hq1)
        .unit(1, 1, FR_LINE, 5, 100.0, 112.0, 180.0)
        .unit_field(1, 1, "brigade_skirmishers", json!(screen))
        .unit(1, 2, FR_LINE, 5, 160.0, 112.0, 180.0)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0);
    if supporters {
        sc = sc
            .unit(0, 2, AUS_LINE, 5, 113.0, 104.5, 0.0)
            .unit(1, 4, FR_LINE, 5, 100.0, 118.5, 180.0);
    }
    if screen {
        // SKIR-01: two stands for three infantry units of the brigade.
        sc = sc.unit(1, 3, FR_LINE, 5, 200.0, 112.0, 180.0);
    }
    sc.scenario()
}

/// Side 0's Initiative phase of player turn 1 under full orders.
fn initiative(sc: Scenario, dice: Vec<u8>) -> Battle {
    let mut b = Battle::new(sc, lists(), DiceSource::Script(dice), 0).expect("sets up");
    assert_eq!(
        b.state().command.mode,
        OrdersMode::Full,
        "full orders by default"
    );
    b.perform(Action::EndPhase).expect("deployment ends");
    assert_eq!(b.state().turn.phase, Phase::Initiative);
    b
}

fn command(sc: Scenario, dice: Vec<u8>) -> Battle {
    let mut b = initiative(sc, dice);
    b.perform(Action::EndPhase).expect("to the Command phase");
    b
}

fn ok(b: &mut Battle, a: Action) -> Vec<Event> {
    match b.perform(a.clone()) {
        Ok(ev) => ev.to_vec(),
        Err(e) => panic!("expected {a:?} to be legal, got {e}"),
    }
}

use refuse::refused;

fn charge(chargers: &[PieceId], target: PieceId) -> Action {
    Action::Charge {
        chargers: chargers.to_vec(),
        target,
        saber: false,
    }
}

fn ordered(piece: PieceId, action: UnitActionKind, target: Option<PieceId>) -> OrderedUnit {
    OrderedUnit {
        piece,
        action,
        target,
        road: false,
        dense: false,
    }
}

fn issue(command: PieceId, units: Vec<OrderedUnit>) -> Action {
    Action::IssueOrder { command, units }
}

/// A roll as (purpose, dice, (rule, value) modifiers).
type Roll = (String, Vec<u8>, Vec<(String, i32)>);

fn rolls(ev: &[Event]) -> Vec<Roll> {
    ev.iter()
        .filter_map(|e| match e {
            Event::DiceRolled {
                purpose,
                dice,
                modifiers,
                ..
            } => Some((
                purpose.clone(),
                dice.clone(),
                modifiers
                    .iter()
                    .map(|m| (m.rule.clone(), m.value))
                    .collect(),
            )),
            _ => None,
        })
        .collect()
}

fn roll(purpose: &str, dice: &[u8], mods: &[(&str, i32)]) -> Roll {
    (
        purpose.to_string(),
        dice.to_vec(),
        mods.iter().map(|(r, v)| (r.to_string(), *v)).collect(),
    )
}

fn results(ev: &[Event]) -> Vec<Event> {
    ev.iter()
        .filter(|e| !matches!(e, Event::DiceRolled { .. }))
        .cloned()
        .collect()
}

fn acted(ev: &[Event]) -> Vec<(PieceId, UnitActionKind, Option<u32>, bool)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::UnitActed(a) => Some((a.piece, a.kind, a.order, a.initiative)),
            _ => None,
        })
        .collect()
}

const HQ0_BEHIND_A: Option<(f64, f64, f64)> = Some((100.0, 98.5, 0.0));
const HQ1_BEHIND_D: Option<(f64, f64, f64)> = Some((100.0, 113.5, 180.0));

#[test]
fn init_01_init_07_an_initiative_charge_uses_the_units_one_initiative_action() {
    let (a, d) = (u(0, 1), u(1, 1));
    let mut b = initiative(scenario(None, None), vec![]);
    let ev = ok(&mut b, charge(&[a], d));
    assert_eq!(acted(&ev), vec![(a, UnitActionKind::Charge, None, true)]);
    assert!(b.state().piece(a).is_some_and(|p| p.orders.initiative_used));
    // A second initiative action of the charger: refused by the gate (INIT-01), before the
    // evade's own checks.
    refused(
        &mut b,
        Action::Evade {
            piece: a,
            facing_deg: None,
            mount: false,
        },
        "INIT-01",
    );
}

#[test]
fn init_05_init_01_an_initiative_evade_uses_the_initiative_action_and_needs_an_order_later() {
    let (a, d) = (u(0, 1), u(1, 1));
    let mut b = initiative(scenario(None, None), vec![]);
    let ev = ok(
        &mut b,
        Action::Evade {
            piece: a,
            facing_deg: None,
            mount: false,
        },
    );
    assert_eq!(acted(&ev), vec![(a, UnitActionKind::Evade, None, true)]);
    assert!(ev.contains(&Event::Evaded {
        piece: a,
        away_from: d
    }));
    let to = ev.iter().find_map(|e| match e {
        Event::Moved { piece, to, .. } if *piece == a => Some(*to),
        _ => None,
    });
    assert!(
        to.is_some_and(|t| t.at.y < 100.0 && t.facing_deg == 0.0),
        "directly away from D, facing as it was: {to:?}"
    );
    refused(
        &mut b,
        Action::Deploy {
            piece: a,
            formation: Formation::AttackColumn,
        },
        "INIT-01",
    );
    // In the Command phase an evade is no ordered action: without an order, CMD-04.
    b.perform(Action::EndPhase).expect("to the Command phase");
    refused(
        &mut b,
        Action::Evade {
            piece: a,
            facing_deg: None,
            mount: false,
        },
        "CMD-04",
    );
}

#[test]
fn cmd_04_a_command_phase_charge_needs_an_order() {
    let (a, d) = (u(0, 1), u(1, 1));
    let mut b = command(scenario(HQ0_BEHIND_A, None), vec![]);
    refused(&mut b, charge(&[a], d), "CMD-04");
}

#[test]
fn cmd_13_cmd_15_a_charge_under_orders_goes_at_its_declared_target() {
    let (a, d, y) = (u(0, 1), u(1, 1), u(1, 2));
    let mut b = command(scenario(HQ0_BEHIND_A, None), vec![2, 3]);
    ok(
        &mut b,
        issue(hq(0), vec![ordered(a, UnitActionKind::Charge, Some(d))]),
    );
    refused(&mut b, charge(&[a], y), "CMD-13");
    // The order was a charge: a fire is not it (CMD-15).
    refused(
        &mut b,
        Action::Fire {
            firers: vec![a],
            target: d,
            ammunition: None,
        },
        "CMD-15",
    );
    let ev = ok(&mut b, charge(&[a], d));
    assert_eq!(
        acted(&ev),
        vec![(a, UnitActionKind::Charge, Some(0), false)]
    );
    // CHG-08 (a): one charge per order — the action is used.
    assert_eq!(b.state().piece(a).map(|p| p.orders.actions_left), Some(0));
}

#[test]
fn cmd_15_a_unit_ordered_to_move_may_not_charge() {
    let (a, d) = (u(0, 1), u(1, 1));
    let mut b = command(scenario(HQ0_BEHIND_A, None), vec![2, 3]);
    ok(
        &mut b,
        issue(hq(0), vec![ordered(a, UnitActionKind::Move, None)]),
    );
    refused(&mut b, charge(&[a], d), "CMD-15");
}

/// The full round under orders: issue_order(charge) → charge → respond (D fires, with its
/// touching HQ's presence die) → close_response → resolve_charge. The French HQ touching D
/// adds its presence die to D's fire and to D's side of the combat (CMD-21), then shares D's
/// suppression and retreat (CMD-22, CHG-26).
#[test]
fn cmd_21_cmd_22_chg_26_golden_order_charge_respond_close_resolve() {
    let (a, d) = (u(0, 1), u(1, 1));
    let dice = vec![
        2, 3, // command roll: 5 ≤ 7
        1, 1, 1, 1, 1, 1, 1, // D's counter-initiative fire: 5 + 1 + 1 presence
        6, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1, // A: 10 + 1 charging
        1, 1, 1, 1, // D's saves (3 hits + 1 line)
        6, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1, // D: 10 + 1 presence
        1, 1, 1, // A's saves (2 hits + 1 line)
    ];
    let mut b = command(scenario(HQ0_BEHIND_A, HQ1_BEHIND_D), dice);
    let ev = ok(
        &mut b,
        issue(hq(0), vec![ordered(a, UnitActionKind::Charge, Some(d))]),
    );
    assert_eq!(rolls(&ev), vec![roll("command roll", &[2, 3], &[])]);
    match results(&ev).as_slice() {
        [Event::OrderRolled(r)] => {
            assert_eq!(
                (r.order, r.command, r.value, r.target, r.total),
                (0, hq(0), 7, 7, 5)
            );
            assert_eq!(r.units, vec![ordered(a, UnitActionKind::Charge, Some(d))]);
        }
        other => panic!("unexpected {other:?}"),
    }

    let ev = ok(&mut b, charge(&[a], d));
    let (start, placed) = (pose(100.0, 100.0, 0.0), pose(100.0, 110.0, 0.0));
    assert_eq!(
        ev,
        vec![
            Event::UnitActed(powderhorn::rules::command::UnitAct {
                piece: a,
                kind: UnitActionKind::Charge,
                order: Some(0),
                initiative: false,
                limber: false,
                trace: Some(powderhorn::rules::command::MoveTrace {
                    from: start,
                    path: vec![],
                    to: placed,
                }),
            }),
            Event::ChargeDeclared {
                target: d,
                phase: Phase::Command,
                chargers: vec![ChargerPlan {
                    piece: a,
                    edge: Edge::Front,
                    start,
                    placed,
                    distance_cm: 12.0,
                    saber: false,
                }],
            },
            Event::Moved {
                piece: a,
                from: start,
                to: placed,
                path: vec![],
                cost_cm: 10.0,
            },
        ]
    );

    // INIT-12: the inactive side responds without an order.
    let ev = ok(
        &mut b,
        Action::Respond {
            piece: d,
            target: d,
            response: Response::Fire { at: a },
        },
    );
    assert_eq!(
        rolls(&ev),
        vec![roll(
            "to hit",
            &[1; 7],
            &[
                ("FIRE-08", 5),
                ("FIRE-11", 1),
                ("CMD-21", 1),
                ("FIRE-14", 4)
            ]
        )]
    );
    assert_eq!(
        results(&ev),
        vec![
            Event::ChargeResponded {
                piece: d,
                target: d,
                response: Response::Fire { at: a },
            },
            Event::Fired {
                firers: vec![d],
                target: a,
                ammunition: None,
            },
            Event::HitsScored {
                target: a,
                hits: 0,
                needed: 4,
            },
        ]
    );

    let ev = ok(&mut b, Action::CloseResponse { target: d });
    assert_eq!(
        ev,
        vec![
            Event::ResponseClosed { target: d },
            Event::ChargeContact {
                piece: a,
                target: d,
                edge: Edge::Front,
                to: pose(100.0, 112.0, 0.0),
            },
        ]
    );

    let ev = ok(&mut b, Action::ResolveCharge { target: d });
    assert_eq!(
        rolls(&ev),
        vec![
            roll(
                "charge: attackers to hit",
                &[6, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1],
                &[("CHG-13", 10), ("CHG-14", 1), ("CHG-16", 4)]
            ),
            roll(
                "save",
                &[1, 1, 1, 1],
                &[("FIRE-17", 6), ("FIRE-19", 1), ("CHG-18", 0)]
            ),
            roll(
                "charge: defenders to hit",
                &[6, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1],
                &[("CHG-13", 10), ("CMD-21", 1), ("CHG-16", 4)]
            ),
            roll(
                "save",
                &[1, 1, 1],
                &[("FIRE-17", 6), ("FIRE-19", 1), ("CHG-18", 0)]
            ),
        ]
    );
    use powderhorn::rules::charge::Outcome;
    assert_eq!(
        results(&ev),
        vec![
            Event::HitsScored {
                target: d,
                hits: 3,
                needed: 4,
            },
            Event::Saved {
                target: d,
                saved: 0,
            },
            Event::HitsTaken {
                piece: d,
                hits: 3,
                total: 3,
            },
            Event::HitsScored {
                target: a,
                hits: 2,
                needed: 4,
            },
            Event::Saved {
                target: a,
                saved: 0,
            },
            Event::HitsTaken {
                piece: a,
                hits: 2,
                total: 2,
            },
            Event::CombatRound {
                target: d,
                round: 1,
                attacker_total: 2,
                defender_total: 3,
            },
            Event::CombatDecided {
                target: d,
                outcome: Outcome::Greater,
                winner: Some(0),
            },
            Event::Suppressed {
                piece: d,
                player_turn: 1,
            },
            // CMD-22: the touching HQ copies the suppression …
            Event::Suppressed {
                piece: hq(1),
                player_turn: 1,
            },
            Event::Retreated {
                piece: d,
                from: pose(100.0, 112.0, 180.0),
                to: pose(100.0, 117.0, 180.0),
                distance_cm: 5.0,
            },
            // … and the retreat.
            Event::CommandCarried {
                piece: hq(1),
                unit: d,
                from: pose(100.0, 113.5, 180.0),
                to: pose(100.0, 118.5, 180.0),
            },
            Event::Disordered {
                piece: a,
                until: 2,
                exhausted: false,
            },
            Event::FormationChanged {
                piece: a,
                from: Some(Formation::Line),
                to: Some(Formation::Disordered),
            },
            Event::ChargeEnded {
                target: d,
                consolidate: vec![a],
            },
        ]
    );
    let h = b.state().piece(hq(1)).expect("the French HQ");
    assert_eq!(h.pose, Some(pose(100.0, 118.5, 180.0)));
    assert!(h.suppressed_at.is_some());
    // Replaying the events rebuilds the same state.
    assert_eq!(&b.replay_events(), b.state());
}

#[test]
fn cmd_21_no_presence_die_from_an_hq_left_behind_by_the_charge() {
    // The Austrian HQ touched A before the charge, not after it: A's dice carry no CMD-21.
    let (a, d) = (u(0, 1), u(1, 1));
    let mut dice = vec![2, 3];
    dice.extend([1; 11]); // A: 11 dice, no hits
    dice.extend([6; 10]); // D: 10 dice
    dice.extend([1; 11]); // A's saves
    dice.extend([1; 30]);
    let mut b = command(scenario(HQ0_BEHIND_A, None), dice);
    ok(
        &mut b,
        issue(hq(0), vec![ordered(a, UnitActionKind::Charge, Some(d))]),
    );
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    let ev = ok(&mut b, Action::ResolveCharge { target: d });
    let first = rolls(&ev).into_iter().next().expect("the attackers' roll");
    assert!(
        first.2.iter().all(|(r, _)| r != "CMD-21"),
        "no presence: {first:?}"
    );
}

#[test]
fn skir_04_a_charge_contacting_the_screen_removes_it() {
    use powderhorn::rules::skirmish::screen_deployed;
    let (a, d) = (u(0, 1), u(1, 1));
    let mut b = initiative(scenario_with(None, None, true), vec![]);
    let screened = |b: &Battle| {
        let c = b.ctx();
        screen_deployed(&c, 1, HqId(2))
    };
    assert!(screened(&b), "the French brigade's screen is out");
    let ev = ok(&mut b, charge(&[a], d));
    assert_eq!(
        ev.last(),
        Some(&Event::ScreenRemoved {
            side: 1,
            hq: HqId(2),
            rule: "SKIR-02".into(),
        })
    );
    assert!(!screened(&b));
    // Without a screen, no such event.
    let mut b = initiative(scenario(None, None), vec![]);
    let ev = ok(&mut b, charge(&[a], d));
    assert!(!ev.iter().any(|e| matches!(e, Event::ScreenRemoved { .. })));
}

fn support(piece: PieceId, friend: PieceId) -> Action {
    Action::Support { piece, friend }
}

#[test]
fn chg_08_cmd_04_cmd_15_command_phase_supports_take_the_orders_charge_action() {
    let (a, s, d, ds, y) = (u(0, 1), u(0, 2), u(1, 1), u(1, 4), u(1, 2));
    // CHG-08 (a): S is in the order with a Charge action at D; it supports A instead.
    let mut b = command(scenario_full(HQ0_BEHIND_A, None, false, true), vec![2, 3]);
    ok(
        &mut b,
        issue(
            hq(0),
            vec![
                ordered(a, UnitActionKind::Charge, Some(d)),
                ordered(s, UnitActionKind::Charge, Some(d)),
            ],
        ),
    );
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    let ev = ok(&mut b, support(s, a));
    assert_eq!(
        acted(&ev),
        vec![(s, UnitActionKind::Support, Some(0), false)]
    );
    assert_eq!(
        ev.last(),
        Some(&Event::Supported {
            piece: s,
            friend: a,
            target: d
        })
    );
    // CHG-08 (b): the inactive side supports without an order; the gate records nothing.
    let ev = ok(&mut b, support(ds, d));
    assert!(acted(&ev).is_empty());

    // Without an order S may not support (CMD-04) …
    let mut b = command(scenario_full(HQ0_BEHIND_A, None, false, true), vec![2, 3]);
    ok(
        &mut b,
        issue(hq(0), vec![ordered(a, UnitActionKind::Charge, Some(d))]),
    );
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    refused(&mut b, support(s, a), "CMD-04");

    // … nor under an order to move (CMD-15) …
    let mut b = command(scenario_full(HQ0_BEHIND_A, None, false, true), vec![2, 3]);
    ok(
        &mut b,
        issue(
            hq(0),
            vec![
                ordered(a, UnitActionKind::Charge, Some(d)),
                ordered(s, UnitActionKind::Move, None),
            ],
        ),
    );
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    refused(&mut b, support(s, a), "CMD-15");

    // … nor into a combat with another unit than the one its order named (CHG-08 (a)).
    let mut b = command(scenario_full(HQ0_BEHIND_A, None, false, true), vec![2, 3]);
    ok(
        &mut b,
        issue(
            hq(0),
            vec![
                ordered(a, UnitActionKind::Charge, Some(d)),
                ordered(s, UnitActionKind::Charge, Some(y)),
            ],
        ),
    );
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    refused(&mut b, support(s, a), "CHG-08");
}

#[test]
fn init_11_init_01_an_initiative_support_uses_the_initiative_action() {
    let (a, s, d) = (u(0, 1), u(0, 2), u(1, 1));
    let mut b = initiative(scenario_full(None, None, false, true), vec![]);
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    let ev = ok(&mut b, support(s, a));
    assert_eq!(acted(&ev), vec![(s, UnitActionKind::Support, None, true)]);
    assert!(b.state().piece(s).is_some_and(|p| p.orders.initiative_used));
}

#[test]
fn cmd_25_chg_25_a_retreat_through_an_enemy_command_unit_overruns_it() {
    // The Austrian HQ stands 2 cm behind D; D's 5 cm retreat runs through it: it joins A, the
    // nearest friend within half its Move, against A's rear (CMD-25, CMD-26).
    let (a, d) = (u(0, 1), u(1, 1));
    let dice = vec![
        6, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1, // A: 10 + 1 charging
        1, 1, 1, 1, // D's saves
        6, 6, 1, 1, 1, 1, 1, 1, 1, 1, // D: 10
        1, 1, 1, // A's saves
    ];
    let mut b = initiative(scenario(Some((100.0, 115.5, 180.0)), None), dice);
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    let ev = ok(&mut b, Action::ResolveCharge { target: d });
    let at = ev
        .iter()
        .position(|e| matches!(e, Event::Retreated { piece, .. } if *piece == d))
        .expect("D retreats");
    assert_eq!(
        ev.get(at + 1),
        Some(&Event::CommandJoined {
            piece: hq(0),
            unit: a,
            from: pose(100.0, 115.5, 180.0),
            to: pose(100.0, 110.5, 0.0),
        })
    );
    let h = b.state().piece(hq(0)).expect("the Austrian HQ");
    assert_eq!(h.orders.joined_to, Some(a));
    assert_eq!(&b.replay_events(), b.state());
}
