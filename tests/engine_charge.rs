//! Charges and close combat (catalogue §2.13 CHG-01..CHG-26, INIT-05, INIT-07..INIT-15, SEQ-04,
//! ART-04 canister, FIRE-28/29, MOVE-18, worked examples WE-07, WE-08, WE-09 and WE-12).
//!
//! The worked examples run through `Battle::perform` with scripted dice on a table built to the
//! example's distances, asserting the exact dice drawn and the exact result events. "Everyone
//! has fired before" is arranged by switching the lists' first-fire bonus off (FIRE-13), which
//! is what having fired means for these attacks.
//!
//! Geometry reminders (geom::footprint): a pose is the centre of the formation's front edge;
//! facing 0 looks towards +y, 180 towards −y. An infantry stand is 2.5 × 1.5 cm, cavalry
//! 3.5 × 2.0, a gun 2.5 × 2.5.

use powderhorn::model::ArmyList;
use powderhorn::rules::charge::{ChargerPlan, Edge, Outcome, Response};
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::event::KnockOutCause;
use powderhorn::rules::firing::ko_threshold_of;
use powderhorn::rules::{
    Action, ActionError, Battle, DiceSource, Event, Formation, Phase, PieceId,
};
use proptest::prelude::*;

// --- scenario builder (tests/support/builder.rs) ------------------------------------------------

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{hq, pose, u, Sc, AUS_LINE, FIELD_ART, FR_LINE};

/// The shipped lists with the first-fire bonus off: every unit "has fired before".
fn lists() -> Vec<ArmyList> {
    builder::lists_without_first_fire()
}

/// This file's tables: [`Sc::new`] named "charge-test", in `year`.
fn new_sc(list0: &str, list1: &str, year: u16) -> Sc {
    Sc::new(list0, list1)
        .named("charge-test", "Charge test")
        .year(year)
}

impl Sc {
    /// Side 0's Initiative phase of player turn 1, after the deploys; free orders.
    fn initiative(&self, dice: Vec<u8>, deploys: &[(PieceId, Formation)]) -> Battle {
        self.initiative_with(DiceSource::Script(dice), deploys)
    }

    fn initiative_with(&self, dice: DiceSource, deploys: &[(PieceId, Formation)]) -> Battle {
        Sc::to_initiative(self.battle_on(lists(), dice, 0, OrdersMode::Free), deploys)
    }

    /// Side 0's Command phase of player turn 1.
    fn command(&self, dice: Vec<u8>, deploys: &[(PieceId, Formation)]) -> Battle {
        let mut b = self.initiative(dice, deploys);
        b.perform(Action::EndPhase).expect("to the Command phase");
        b
    }
}

fn ok(b: &mut Battle, a: Action) -> Vec<Event> {
    match b.perform(a.clone()) {
        Ok(ev) => ev.to_vec(),
        Err(e) => panic!("expected {a:?} to be legal, got {e}"),
    }
}

use refuse::refused;

fn rolls(ev: &[Event]) -> Vec<(String, Vec<u8>)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::DiceRolled { purpose, dice, .. } => Some((purpose.clone(), dice.clone())),
            _ => None,
        })
        .collect()
}

fn roll(purpose: &str, dice: &[u8]) -> (String, Vec<u8>) {
    (purpose.to_string(), dice.to_vec())
}

fn results(ev: &[Event]) -> Vec<Event> {
    ev.iter()
        .filter(|e| !matches!(e, Event::DiceRolled { .. }))
        .cloned()
        .collect()
}

/// The (rule, value) modifiers of the first roll for `purpose`.
fn modifiers(ev: &[Event], purpose: &str) -> Vec<(String, i32)> {
    ev.iter()
        .find_map(|e| match e {
            Event::DiceRolled {
                purpose: p,
                modifiers,
                ..
            } if p == purpose => Some(
                modifiers
                    .iter()
                    .map(|m| (m.rule.clone(), m.value))
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default()
}

fn charge(chargers: &[PieceId], target: PieceId) -> Action {
    Action::Charge {
        chargers: chargers.to_vec(),
        target,
        saber: false,
    }
}

fn respond(piece: PieceId, target: PieceId, response: Response) -> Action {
    Action::Respond {
        piece,
        target,
        response,
    }
}

fn charge_ko(piece: PieceId, rule: &str, reason: &str) -> Event {
    Event::UnitKnockedOut {
        piece,
        cause: KnockOutCause::Charge {
            rule: rule.into(),
            reason: reason.into(),
        },
    }
}

const FR_HEAVY: &str = "heavy-cavalry-05-06-13-15";

// --- WE-07 ------------------------------------------------------------------------------------------

/// WE-07 table (Austrians side 0, French side 1, 1809): A 5 stands in line at y 98.5..100
/// facing +y; D 12.0 cm ahead facing A; DS 5 cm behind D. S stands to A's right so that it is
/// 6 cm behind A's *contact* position (CHG-07 measures the support radius to the friend in
/// contact; the example's "6 cm behind A" at the start would leave S 18 cm away after A's 12 cm
/// charge — noted in the report).
fn we_07_table(with_ds: bool) -> Sc {
    let sc = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(0, 2, AUS_LINE, 5, 113.0, 104.5, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 112.0, 180.0);
    if with_ds {
        sc.unit(1, 2, FR_LINE, 5, 100.0, 118.5, 180.0)
    } else {
        sc
    }
}

const WE07_ROUND: [&[u8]; 4] = [
    &[6, 6, 5, 5, 4, 4, 4, 3, 2, 2, 1, 1],
    &[6, 5, 4, 3, 3, 2, 1, 1],
    &[6, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1],
    &[5, 3, 2, 1],
];

#[test]
fn we_07_init_09_chg_02_chg_13_chg_14_chg_17_chg_18_chg_19_chg_22_fire_28_double_with_supports() {
    let (a, s, d, ds) = (u(0, 1), u(0, 2), u(1, 1), u(1, 2));
    let mut dice = vec![3, 3, 2, 2, 1, 1];
    for r in WE07_ROUND {
        dice.extend_from_slice(r);
    }
    dice.extend_from_slice(&[1, 1]); // the French breakpoint test (BRK-02) that opens turn 2
    let mut b = we_07_table(true).command(dice, &[]);
    // INIT-09 step 1–2: declared and placed 2 cm from D's front edge.
    let ev = ok(&mut b, charge(&[a], d));
    assert_eq!(
        ev,
        vec![
            Event::ChargeDeclared {
                target: d,
                phase: Phase::Command,
                chargers: vec![ChargerPlan {
                    piece: a,
                    edge: Edge::Front,
                    start: pose(100.0, 100.0, 0.0),
                    placed: pose(100.0, 110.0, 0.0),
                    distance_cm: 12.0,
                    saber: false,
                }],
            },
            Event::Moved {
                piece: a,
                from: pose(100.0, 100.0, 0.0),
                to: pose(100.0, 110.0, 0.0),
                path: vec![],
                cost_cm: 10.0,
            },
        ]
    );
    // SEQ-04: no phase ends while the charge is pending.
    refused(&mut b, Action::EndPhase, "SEQ-04");
    // INIT-12: D fires at A at 2 cm: 5 + 1 (half range) = 6 dice at 4+: no hits.
    let ev = ok(&mut b, respond(d, d, Response::Fire { at: a }));
    assert_eq!(rolls(&ev), vec![roll("to hit", &[3, 3, 2, 2, 1, 1])]);
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
    // INIT-12 (c): once per charge.
    refused(&mut b, respond(d, d, Response::Fire { at: a }), "INIT-12");
    // INIT-09 step 4: contact with D's front edge.
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
    // CHG-07/08, INIT-11: S behind A, DS behind D (the inactive side, without orders).
    let ev = ok(
        &mut b,
        Action::Support {
            piece: s,
            friend: a,
        },
    );
    assert_eq!(
        ev,
        vec![
            Event::Moved {
                piece: s,
                from: pose(113.0, 104.5, 0.0),
                to: pose(100.0, 110.5, 0.0),
                path: vec![],
                cost_cm: 14.318,
            },
            Event::Supported {
                piece: s,
                friend: a,
                target: d,
            },
        ]
    );
    let ev = ok(
        &mut b,
        Action::Support {
            piece: ds,
            friend: d,
        },
    );
    assert_eq!(
        ev.last(),
        Some(&Event::Supported {
            piece: ds,
            friend: d,
            target: d,
        })
    );
    assert_eq!(
        b.state().piece(ds).and_then(|p| p.pose),
        Some(pose(100.0, 113.5, 180.0))
    );
    // CHG-13/14: Austrians 5 × 2 + 1 + 1 = 12; French 5 × 2 + 1 = 11.
    let ev = ok(&mut b, Action::ResolveCharge { target: d });
    assert_eq!(
        rolls(&ev),
        vec![
            roll("charge: attackers to hit", WE07_ROUND[0]),
            roll("save", WE07_ROUND[1]),
            roll("charge: defenders to hit", WE07_ROUND[2]),
            roll("save", WE07_ROUND[3]),
        ]
    );
    assert_eq!(
        modifiers(&ev, "charge: attackers to hit"),
        vec![
            ("CHG-13".into(), 10),
            ("CHG-14".into(), 1),
            ("CHG-14".into(), 1),
            ("CHG-16".into(), 4),
        ]
    );
    assert_eq!(
        modifiers(&ev, "charge: defenders to hit"),
        vec![
            ("CHG-13".into(), 10),
            ("CHG-14".into(), 1),
            ("CHG-16".into(), 4)
        ]
    );
    assert_eq!(
        results(&ev),
        vec![
            Event::HitsScored {
                target: d,
                hits: 7,
                needed: 4
            },
            Event::Saved {
                target: d,
                saved: 1
            },
            Event::HitsTaken {
                piece: d,
                hits: 6,
                total: 6
            },
            Event::HitsScored {
                target: a,
                hits: 3,
                needed: 4
            },
            Event::Saved {
                target: a,
                saved: 0
            },
            Event::HitsTaken {
                piece: a,
                hits: 3,
                total: 3
            },
            Event::CombatRound {
                target: d,
                round: 1,
                attacker_total: 3,
                defender_total: 6,
            },
            Event::CombatDecided {
                target: d,
                outcome: Outcome::Double,
                winner: Some(0),
            },
            charge_ko(d, "CHG-22", "lost a charge by double or more"),
            Event::Suppressed {
                piece: ds,
                player_turn: 1
            },
            Event::Retreated {
                piece: ds,
                from: pose(100.0, 113.5, 180.0),
                to: pose(100.0, 118.5, 180.0),
                distance_cm: 5.0,
            },
            Event::Disordered {
                piece: a,
                until: 2,
                exhausted: false
            },
            Event::FormationChanged {
                piece: a,
                from: Some(Formation::Line),
                to: Some(Formation::Disordered),
            },
            Event::ChargeEnded {
                target: d,
                consolidate: vec![a, s],
            },
        ]
    );
    assert!(b.state().charges.combats.is_empty());
    // CHG-02: a disordered unit may not charge.
    refused(&mut b, charge(&[a], ds), "CHG-02");
    // GEN-11/END-01: at the End phase A loses floor(3/3) = 1 stand.
    ok(&mut b, Action::EndPhase);
    ok(&mut b, Action::EndPhase);
    let ev = ok(&mut b, Action::EndPhase);
    assert!(ev.contains(&Event::StandsLost {
        piece: a,
        hits: 3,
        stands_lost: 1,
        stands_left: 4,
        engineer_lost: false,
    }));
    assert_eq!(b.replay_events(), *b.state());
}

#[test]
fn we_07_chg_21_variant_greater_suppressed_retreat() {
    // D's response fire leaves one hit on A; DS is left out of this variant (placed behind D it
    // would stop D's retreat at once, CHG-25 — see the report).
    let (a, s, d) = (u(0, 1), u(0, 2), u(1, 1));
    let mut dice = vec![4, 3, 2, 2, 1, 1, 1, 1, 1];
    dice.extend_from_slice(WE07_ROUND[0]);
    dice.extend_from_slice(WE07_ROUND[1]);
    dice.extend_from_slice(&[6, 5, 4, 3, 3, 2, 2, 1, 1, 1]);
    dice.extend_from_slice(WE07_ROUND[3]);
    let mut b = we_07_table(false).command(dice, &[]);
    ok(&mut b, charge(&[a], d));
    let ev = ok(&mut b, respond(d, d, Response::Fire { at: a }));
    assert!(ev.contains(&Event::HitsTaken {
        piece: a,
        hits: 1,
        total: 1
    }));
    ok(&mut b, Action::CloseResponse { target: d });
    ok(
        &mut b,
        Action::Support {
            piece: s,
            friend: a,
        },
    );
    let ev = ok(&mut b, Action::ResolveCharge { target: d });
    let tail: Vec<Event> = results(&ev).into_iter().skip(6).collect();
    assert_eq!(
        tail,
        vec![
            Event::CombatRound {
                target: d,
                round: 1,
                attacker_total: 4,
                defender_total: 6,
            },
            Event::CombatDecided {
                target: d,
                outcome: Outcome::Greater,
                winner: Some(0),
            },
            Event::Suppressed {
                piece: d,
                player_turn: 1
            },
            Event::Retreated {
                piece: d,
                from: pose(100.0, 112.0, 180.0),
                to: pose(100.0, 117.0, 180.0),
                distance_cm: 5.0,
            },
            Event::Disordered {
                piece: a,
                until: 2,
                exhausted: false
            },
            Event::FormationChanged {
                piece: a,
                from: Some(Formation::Line),
                to: Some(Formation::Disordered),
            },
            Event::ChargeEnded {
                target: d,
                consolidate: vec![a, s],
            },
        ]
    );
}

// --- WE-08 ------------------------------------------------------------------------------------------

/// WE-08 table (French side 0, Austrians side 1, 1806): C, 4 stands of heavy cavalry in line at
/// y 98..100 facing +y; T, 5 stands in attack column 15 cm ahead, facing C.
fn we_08_battle(dice: Vec<u8>) -> Battle {
    let t = u(1, 1);
    new_sc("nap-french", "nap-austrian", 1806)
        .unit(0, 1, FR_HEAVY, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, "line-infantry-05-06", 5, 100.0, 115.0, 180.0)
        .initiative(
            dice,
            &[(t, Formation::MarchColumn), (t, Formation::AttackColumn)],
        )
}

#[test]
fn we_08_init_07_chg_15_chg_24_chg_26_fire_28_fire_29_initiative_cavalry_double() {
    let (c, t) = (u(0, 1), u(1, 1));
    let french = [6, 6, 6, 5, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1];
    let austrian = [6, 5, 3, 3, 2, 2, 1, 1, 1, 1];
    let mut dice = vec![2, 2, 1];
    dice.extend_from_slice(&french);
    dice.extend_from_slice(&austrian);
    dice.extend_from_slice(&[6, 4, 1]);
    dice.extend_from_slice(&[1, 1]); // the Austrian breakpoint test (BRK-02) that opens turn 2
    let mut b = we_08_battle(dice);
    let ev = ok(&mut b, charge(&[c], t));
    assert!(matches!(
        ev.first(),
        Some(Event::ChargeDeclared {
            phase: Phase::Initiative,
            ..
        })
    ));
    // T fires: 2 front stands × 1 + 1 (half range) = 3 dice.
    let ev = ok(&mut b, respond(t, t, Response::Fire { at: c }));
    assert_eq!(rolls(&ev), vec![roll("to hit", &[2, 2, 1])]);
    assert_eq!(
        modifiers(&ev, "to hit"),
        vec![
            ("FIRE-08".into(), 2),
            ("FIRE-11".into(), 1),
            ("FIRE-14".into(), 4)
        ]
    );
    ok(&mut b, Action::CloseResponse { target: t });
    let ev = ok(&mut b, Action::ResolveCharge { target: t });
    assert_eq!(
        rolls(&ev),
        vec![
            roll("charge: attackers to hit", &french),
            roll("charge: defenders to hit", &austrian),
            roll("save", &[6, 4, 1]),
        ]
    );
    // 4 × 3 + 1 (charging) + 1 (heavy, note 13) = 14; 5 × 2 = 10 (all stands of the column).
    assert_eq!(
        modifiers(&ev, "charge: attackers to hit"),
        vec![
            ("CHG-13".into(), 12),
            ("CHG-14".into(), 1),
            ("CHG-15".into(), 1),
            ("CHG-16".into(), 4)
        ]
    );
    assert_eq!(
        modifiers(&ev, "charge: defenders to hit"),
        vec![("CHG-13".into(), 10), ("CHG-16".into(), 4)]
    );
    assert_eq!(
        results(&ev),
        vec![
            Event::HitsScored {
                target: t,
                hits: 8,
                needed: 4
            },
            Event::HitsTaken {
                piece: t,
                hits: 8,
                total: 8
            },
            Event::HitsScored {
                target: c,
                hits: 2,
                needed: 4
            },
            Event::Saved {
                target: c,
                saved: 1
            },
            Event::HitsTaken {
                piece: c,
                hits: 1,
                total: 1
            },
            Event::CombatRound {
                target: t,
                round: 1,
                attacker_total: 1,
                defender_total: 8,
            },
            Event::CombatDecided {
                target: t,
                outcome: Outcome::Double,
                winner: Some(0),
            },
            charge_ko(t, "CHG-22", "lost a charge by double or more"),
            Event::Disordered {
                piece: c,
                until: 2,
                exhausted: true
            },
            Event::FormationChanged {
                piece: c,
                from: Some(Formation::Line),
                to: Some(Formation::Disordered),
            },
            Event::ChargeEnded {
                target: t,
                consolidate: vec![c],
            },
        ]
    );
    // FIRE-28/29: KO threshold 4 × 3 − 1 − 1 = 10.
    let cp = b.state().piece(c).cloned().expect("C");
    assert_eq!(ko_threshold_of(&b.ctx(), &cp), 10);
    assert_eq!(b.state().sides[1].units_lost, 1);
    // CHG-24: up to 5 cm forward.
    refused(
        &mut b,
        Action::Consolidate {
            piece: c,
            to: pose(100.0, 121.0, 0.0),
        },
        "CHG-24",
    );
    let ev = ok(
        &mut b,
        Action::Consolidate {
            piece: c,
            to: pose(100.0, 120.0, 90.0),
        },
    );
    assert_eq!(
        ev,
        vec![Event::Consolidated {
            piece: c,
            from: pose(100.0, 115.0, 0.0),
            to: pose(100.0, 120.0, 90.0),
        }]
    );
    refused(
        &mut b,
        Action::Consolidate {
            piece: c,
            to: pose(100.0, 121.0, 90.0),
        },
        "CHG-24",
    );
    // SEQ-05: disorder ends at the end of the Austrian initiative phase (player turn 2).
    ok(&mut b, Action::EndPhase);
    ok(&mut b, Action::EndPhase);
    ok(&mut b, Action::EndPhase);
    ok(&mut b, Action::EndPhase);
    assert_eq!(b.state().turn.player_turn, 2);
    let ev = ok(&mut b, Action::EndPhase);
    assert!(ev.contains(&Event::DisorderEnded { piece: c }));
}

// --- WE-09 ------------------------------------------------------------------------------------------

#[test]
fn we_09_chg_16_chg_20_chg_21_equal_then_second_round_in_the_open() {
    let (a, r) = (u(0, 1), u(1, 1));
    let mut dice = vec![3, 3, 2, 1, 1];
    let rounds: [&[u8]; 8] = [
        &[6, 5, 5, 4, 4, 3, 2, 1, 1],
        &[5, 4, 2, 1],
        &[6, 5, 4, 3, 2, 2, 1, 1],
        &[4, 3, 2, 1],
        &[5, 3, 3, 2, 2, 1, 1, 1],
        &[3, 2],
        &[6, 4, 3, 3, 2, 1, 1, 1],
        &[2, 2, 1],
    ];
    for x in rounds {
        dice.extend_from_slice(x);
    }
    let mut b = new_sc("nap-austrian", "nap-russian", 1809)
        .unit(0, 1, AUS_LINE, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, "line-infantry", 4, 100.0, 112.0, 180.0)
        .hedge(&[(90.0, 111.95), (110.0, 111.95)])
        .command(dice, &[]);
    // CHG-06: legal across the wall because R touches it.
    ok(&mut b, charge(&[a], r));
    let ev = ok(&mut b, respond(r, r, Response::Fire { at: a }));
    assert!(ev.contains(&Event::HitsScored {
        target: a,
        hits: 0,
        needed: 4
    }));
    ok(&mut b, Action::CloseResponse { target: r });
    let ev = ok(&mut b, Action::ResolveCharge { target: r });
    assert_eq!(
        rolls(&ev).into_iter().map(|(_, d)| d).collect::<Vec<_>>(),
        rounds.iter().map(|x| x.to_vec()).collect::<Vec<_>>()
    );
    // Round 1: R behind the wall is hit on 5+; round 2 everyone on 4+ and no charge bonus.
    let attack_rolls: Vec<Vec<(String, i32)>> = ev
        .iter()
        .filter_map(|e| match e {
            Event::DiceRolled {
                purpose, modifiers, ..
            } if purpose == "charge: attackers to hit" => Some(
                modifiers
                    .iter()
                    .map(|m| (m.rule.clone(), m.value))
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(
        attack_rolls,
        vec![
            vec![
                ("CHG-13".into(), 8),
                ("CHG-14".into(), 1),
                ("CHG-16".into(), 5)
            ],
            vec![("CHG-13".into(), 8), ("CHG-16".into(), 4)],
        ]
    );
    let r_ = results(&ev);
    assert!(r_.contains(&Event::CombatRound {
        target: r,
        round: 1,
        attacker_total: 3,
        defender_total: 3
    }));
    let tail: Vec<Event> = r_.iter().rev().take(5).rev().cloned().collect();
    assert_eq!(
        tail,
        vec![
            Event::CombatRound {
                target: r,
                round: 2,
                attacker_total: 5,
                defender_total: 4
            },
            Event::CombatDecided {
                target: r,
                outcome: Outcome::Greater,
                winner: Some(1),
            },
            Event::Suppressed {
                piece: a,
                player_turn: 1
            },
            Event::Retreated {
                piece: a,
                from: pose(100.0, 112.0, 0.0),
                to: pose(100.0, 108.0, 0.0),
                distance_cm: 4.0,
            },
            Event::ChargeEnded {
                target: r,
                consolidate: vec![r],
            },
        ]
    );
    // Nobody is disordered: the charge failed and R did not charge.
    assert!(!r_.iter().any(|e| matches!(e, Event::Disordered { .. })));
    // CHG-24: R may not consolidate across the wall.
    refused(
        &mut b,
        Action::Consolidate {
            piece: r,
            to: pose(100.0, 110.0, 180.0),
        },
        "CHG-24",
    );
}

// --- WE-12 ------------------------------------------------------------------------------------------

#[test]
fn we_12_art_04_init_09_chg_14_chg_23_canister_then_wiped_out() {
    let (a, g) = (u(0, 1), u(1, 1));
    let canister = [6, 6, 5, 5, 5, 4, 4, 4, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1];
    let suppression = [1, 1, 2, 2, 3, 3, 1, 2, 3, 4];
    let austrian = [6, 5, 5, 4, 3, 3, 2, 2, 1, 1];
    let mut dice = canister.to_vec();
    dice.extend_from_slice(&suppression);
    dice.extend_from_slice(&austrian);
    dice.push(5);
    dice.extend_from_slice(&[1, 1]); // the French breakpoint test (BRK-02) that opens turn 2
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FIELD_ART, 1, 100.0, 114.0, 180.0)
        .command(
            dice,
            &[(a, Formation::MarchColumn), (a, Formation::AttackColumn)],
        );
    ok(&mut b, charge(&[a], g));
    // A gun never answers with plain fire (INIT-10).
    refused(&mut b, respond(g, g, Response::Fire { at: a }), "INIT-10");
    let ev = ok(&mut b, respond(g, g, Response::Canister));
    assert_eq!(
        rolls(&ev),
        vec![
            roll("canister", &canister),
            roll("suppression", &suppression)
        ]
    );
    assert_eq!(
        modifiers(&ev, "canister"),
        vec![
            ("ART-04".into(), 20),
            ("ART-04".into(), 0),
            ("FIRE-14".into(), 4)
        ]
    );
    assert_eq!(
        results(&ev),
        vec![
            Event::ChargeResponded {
                piece: g,
                target: g,
                response: Response::Canister,
            },
            Event::Fired {
                firers: vec![g],
                target: a,
                ammunition: Some(powderhorn::rules::artillery::Ammunition::Canister),
            },
            Event::HitsScored {
                target: a,
                hits: 10,
                needed: 4
            },
            Event::HitsTaken {
                piece: a,
                hits: 10,
                total: 10
            },
            Event::Suppressed {
                piece: a,
                player_turn: 1
            },
        ]
    );
    // INIT-09 ruling: a suppressed charger still makes contact.
    let ev = ok(&mut b, Action::CloseResponse { target: g });
    assert!(ev.contains(&Event::ChargeContact {
        piece: a,
        target: g,
        edge: Edge::Front,
        to: pose(100.0, 114.0, 0.0),
    }));
    let ev = ok(&mut b, Action::ResolveCharge { target: g });
    assert_eq!(
        rolls(&ev),
        vec![
            roll("charge: attackers to hit", &austrian),
            roll("charge: defenders to hit", &[5]),
        ]
    );
    // 5 × 2 + 1 (charging) − 1 (suppressed) = 10; the gun 1 × 1.
    assert_eq!(
        modifiers(&ev, "charge: attackers to hit"),
        vec![
            ("CHG-13".into(), 10),
            ("CHG-14".into(), 1),
            ("CHG-14".into(), -1),
            ("CHG-16".into(), 4)
        ]
    );
    assert_eq!(
        results(&ev),
        vec![
            Event::HitsScored {
                target: g,
                hits: 4,
                needed: 4
            },
            Event::HitsTaken {
                piece: g,
                hits: 4,
                total: 4
            },
            Event::UnitKnockedOut {
                piece: g,
                cause: KnockOutCause::Hits
            },
            Event::HitsScored {
                target: a,
                hits: 1,
                needed: 4
            },
            Event::HitsTaken {
                piece: a,
                hits: 1,
                total: 11
            },
            Event::CombatRound {
                target: g,
                round: 1,
                attacker_total: 11,
                defender_total: 4,
            },
            Event::CombatDecided {
                target: g,
                outcome: Outcome::WipedOut,
                winner: Some(0),
            },
            Event::Disordered {
                piece: a,
                until: 2,
                exhausted: false
            },
            Event::FormationChanged {
                piece: a,
                from: Some(Formation::AttackColumn),
                to: Some(Formation::Disordered),
            },
            Event::ChargeEnded {
                target: g,
                consolidate: vec![a],
            },
        ]
    );
    // End phase: A loses floor(11/3) = 3 stands.
    ok(&mut b, Action::EndPhase);
    ok(&mut b, Action::EndPhase);
    let ev = ok(&mut b, Action::EndPhase);
    assert!(ev.contains(&Event::StandsLost {
        piece: a,
        hits: 11,
        stands_lost: 3,
        stands_left: 2,
        engineer_lost: false,
    }));
}

// --- Refusals ---------------------------------------------------------------------------------------

#[test]
fn chg_03_charge_distance_and_formation() {
    let (a, d) = (u(0, 1), u(1, 1));
    let sc = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 121.0, 180.0);
    let mut b = sc.command(vec![], &[]);
    refused(&mut b, charge(&[a], d), "CHG-03");
    let sc = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 110.0, 180.0);
    let mut b = sc.command(vec![], &[(a, Formation::MarchColumn)]);
    refused(&mut b, charge(&[a], d), "CHG-03");
}

#[test]
fn chg_03_note_21_must_charge_in_attack_column() {
    let (f, a) = (u(0, 1), u(1, 1));
    let sc = new_sc("nap-french", "nap-austrian", 1809)
        .unit(0, 1, FR_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, AUS_LINE, 5, 100.0, 110.0, 180.0);
    let mut b = sc.command(vec![], &[]);
    refused(&mut b, charge(&[f], a), "CHG-03");
    let mut b = sc.command(
        vec![],
        &[(f, Formation::MarchColumn), (f, Formation::AttackColumn)],
    );
    ok(&mut b, charge(&[f], a));
}

#[test]
fn init_10_artillery_never_charges() {
    let (g, d) = (u(0, 1), u(1, 1));
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, FIELD_ART, 1, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 110.0, 180.0)
        .command(vec![], &[]);
    refused(&mut b, charge(&[g], d), "INIT-10");
}

#[test]
fn init_07_initiative_charge_only_at_the_nearest_visible_enemy() {
    let (a, near, far) = (u(0, 1), u(1, 1), u(1, 2));
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 85.0, 108.0, 180.0)
        .unit(1, 2, FR_LINE, 5, 115.0, 112.0, 180.0)
        .initiative(vec![], &[]);
    refused(&mut b, charge(&[a], far), "INIT-07");
    ok(&mut b, charge(&[a], near));
}

#[test]
fn chg_06_move_18_irregular_cavalry_may_not_charge_a_square() {
    let (k, s) = (u(0, 1), u(1, 1));
    let mut b = new_sc("nap-russian", "nap-french", 1809)
        .unit(0, 1, "cossack-cavalry", 3, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 4, 100.0, 110.0, 180.0)
        .command(vec![], &[(s, Formation::Square)]);
    refused(&mut b, charge(&[k], s), "CHG-06");
}

#[test]
fn chg_06_obstacle_only_when_touching_it() {
    // A stream between them, touched by neither: no charge across it.
    let (a, r) = (u(0, 1), u(1, 1));
    let sc = new_sc("nap-austrian", "nap-russian", 1809)
        .unit(0, 1, AUS_LINE, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, "line-infantry", 4, 100.0, 112.0, 180.0);
    let mut b = sc
        .clone_with(|s| s.line("shallow_wet", &[(90.0, 106.0), (110.0, 106.0)]))
        .command(vec![], &[]);
    refused(&mut b, charge(&[a], r), "CHG-06");
    // Starting in base contact with it, the charge may cross.
    let mut b = sc
        .clone_with(|s| s.line("shallow_wet", &[(90.0, 100.05), (110.0, 100.05)]))
        .command(vec![], &[]);
    ok(&mut b, charge(&[a], r));
    // A wall touched by neither already hides the target (VIS-09).
    let mut b = sc
        .clone_with(|s| s.hedge(&[(90.0, 106.0), (110.0, 106.0)]))
        .command(vec![], &[]);
    refused(&mut b, charge(&[a], r), "VIS-09");
}

#[test]
fn chg_10_init_08_no_gap_narrower_than_5_cm() {
    // E stands ahead and to the side of T, 3.9 cm from it: the charger's contact position
    // overhangs into the gap between them.
    let (a, t) = (u(0, 1), u(1, 1));
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 4, 100.0, 112.0, 180.0)
        .unit(1, 2, FR_LINE, 4, 113.0, 108.0, 180.0)
        .command(vec![], &[]);
    refused(&mut b, charge(&[a], t), "CHG-10");
}

#[test]
fn chg_10_a_gap_with_deep_water_is_only_the_water_beside_the_unit() {
    // A lake: a band along y 40–50 with a leg down the right edge (x 230–240) to y 80. Its
    // convex hull reaches down to y = 50 + 30/230 × x, 63 cm at x = 100. E stands 3 cm left of
    // the leg, 120 cm away from the charge: A (front at y 56) charges T (front at y 68) 12 cm
    // ahead, in open ground inside that hull but nowhere near the gap between E and the water
    // (3 cm wide, by the leg). Hulling E with the whole lake closed off that ground.
    let (a, t) = (u(0, 1), u(1, 1));
    let lake = || {
        builder::ring(&[
            (0.0, 40.0),
            (240.0, 40.0),
            (240.0, 80.0),
            (230.0, 80.0),
            (230.0, 50.0),
            (0.0, 50.0),
        ])
    };
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 56.0, 0.0)
        .unit(1, 1, FR_LINE, 4, 100.0, 68.0, 180.0)
        .unit(1, 2, FR_LINE, 4, 222.0, 70.0, 180.0)
        .feature("deep_wet", serde_json::json!({ "polygon": lake() }))
        .command(vec![], &[]);
    ok(&mut b, charge(&[a], t));
    // Deep water where E stood in `chg_10_init_08_no_gap_narrower_than_5_cm`, 3 cm from T's
    // side: the charger's contact position overhangs into that gap, as it did into the gap
    // between the two units.
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 4, 100.0, 112.0, 180.0)
        .feature("deep_wet", builder::rect(108.0, 104.0, 130.0, 116.0))
        .command(vec![], &[]);
    refused(&mut b, charge(&[a], t), "CHG-10");
}

#[test]
fn init_12_chg_09_response_rules() {
    let (a, s, d, far) = (u(0, 1), u(0, 2), u(1, 1), u(1, 3));
    let mut b = we_07_table(false)
        .unit(1, 3, FR_LINE, 5, 130.0, 112.0, 180.0)
        .command(vec![], &[]);
    refused(&mut b, respond(d, d, Response::Fire { at: a }), "INIT-09");
    ok(&mut b, charge(&[a], d));
    // Only the inactive side responds; only within 10 cm (fire) or 5 cm (evade).
    refused(&mut b, respond(s, d, Response::Fire { at: a }), "INIT-12");
    refused(&mut b, respond(far, d, Response::Fire { at: a }), "INIT-12");
    refused(
        &mut b,
        respond(
            far,
            d,
            Response::Evade {
                facing_deg: None,
                limber: false,
            },
        ),
        "INIT-12",
    );
    // INIT-15: only mounted cavalry counter-charge.
    refused(&mut b, respond(d, d, Response::CounterCharge), "INIT-15");
    // Supports wait for contact (INIT-09 step 6).
    refused(
        &mut b,
        Action::Support {
            piece: s,
            friend: a,
        },
        "CHG-07",
    );
    // No combat before the window closes.
    refused(&mut b, Action::ResolveCharge { target: d }, "INIT-09");
}

#[test]
fn init_15_cavalry_must_evade_or_counter_charge_and_both_count_as_charging() {
    let (c, k) = (u(0, 1), u(1, 1));
    // Attackers 14 sixes, the defender's 15 saves all fail, its 14 dice all miss.
    let mut dice = vec![6u8; 14];
    dice.extend_from_slice(&[1u8; 15]);
    dice.extend_from_slice(&[1u8; 14]);
    let mut b = new_sc("nap-french", "nap-austrian", 1809)
        .unit(0, 1, FR_HEAVY, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, "heavy-cavalry", 4, 100.0, 110.0, 180.0)
        .command(dice, &[]);
    ok(&mut b, charge(&[c], k));
    refused(&mut b, Action::CloseResponse { target: k }, "INIT-15");
    ok(&mut b, respond(k, k, Response::CounterCharge));
    ok(&mut b, Action::CloseResponse { target: k });
    let ev = ok(&mut b, Action::ResolveCharge { target: k });
    // INIT-15 (b): heavy cavalry +1 and the charging +1 on both sides in round 1.
    let want = vec![
        ("CHG-13".to_string(), 12),
        ("CHG-14".to_string(), 1),
        ("CHG-15".to_string(), 1),
        ("CHG-16".to_string(), 4),
    ];
    assert_eq!(modifiers(&ev, "charge: attackers to hit"), want);
    assert_eq!(modifiers(&ev, "charge: defenders to hit"), want);
}

#[test]
fn init_14_evading_a_charge_leaves_the_charger_disordered() {
    let (a, d) = (u(0, 1), u(1, 1));
    let mut b = we_07_table(false).command(vec![], &[]);
    ok(&mut b, charge(&[a], d));
    let ev = ok(
        &mut b,
        respond(
            d,
            d,
            Response::Evade {
                facing_deg: None,
                limber: false,
            },
        ),
    );
    // INIT-05: straight away from A, the full Move of 10 cm.
    let moved = ev.iter().find_map(|e| match e {
        Event::Moved { piece, to, .. } if *piece == d => Some(*to),
        _ => None,
    });
    let to = moved.expect("D evaded");
    assert!(
        (to.at.x - 100.0).abs() < 1e-3 && (to.at.y - 122.0).abs() < 1e-3,
        "{to:?}"
    );
    let ev = ok(&mut b, Action::CloseResponse { target: d });
    // A may go on to 20 cm from its start (front edge at y 120): D's front is 2 cm from it.
    assert!(ev.contains(&Event::Moved {
        piece: a,
        from: pose(100.0, 110.0, 0.0),
        to: pose(100.0, 120.0, 0.0),
        path: vec![],
        cost_cm: 10.0,
    }));
    assert!(ev.contains(&charge_ko(
        d,
        "INIT-14",
        "caught evading, 2.0 cm from the charger"
    )));
    assert!(ev.contains(&Event::Disordered {
        piece: a,
        until: 2,
        exhausted: false
    }));
    assert!(b.state().charges.combats.is_empty());
}

#[test]
fn init_05_initiative_evade_and_square_refusal() {
    let (a, d) = (u(0, 1), u(1, 1));
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 180.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 88.0, 0.0)
        .initiative(vec![], &[]);
    let ev = ok(
        &mut b,
        Action::Evade {
            piece: a,
            facing_deg: Some(0.0),
            mount: false,
        },
    );
    assert_eq!(
        ev.first(),
        Some(&Event::Evaded {
            piece: a,
            away_from: d
        })
    );
    let Some(Event::Moved { to, cost_cm, .. }) = ev.get(1) else {
        panic!("expected the evade move, got {ev:?}");
    };
    assert!(
        (to.at.y - 108.0).abs() < 1e-3 && (to.at.x - 100.0).abs() < 1e-3,
        "{to:?}"
    );
    assert_eq!(to.facing_deg, 0.0);
    assert!((cost_cm - 8.0).abs() < 1e-3);
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 180.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 88.0, 0.0)
        .initiative(vec![], &[(a, Formation::Square)]);
    refused(
        &mut b,
        Action::Evade {
            piece: a,
            facing_deg: None,
            mount: false,
        },
        "INIT-05",
    );
}

#[test]
fn chg_11_chg_14_defender_contacted_on_its_flank() {
    // T faces east (90): its south end is its right flank; A comes up from the south.
    let (a, t) = (u(0, 1), u(1, 1));
    let mut dice = vec![1u8; 10];
    dice.extend_from_slice(&[6u8; 8]);
    dice.extend_from_slice(&[1u8; 10]);
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 4, 99.25, 95.0, 0.0)
        .unit(1, 1, FR_LINE, 4, 100.0, 112.0, 90.0)
        .command(dice, &[]);
    let ev = ok(&mut b, charge(&[a], t));
    assert!(matches!(
        ev.first(),
        Some(Event::ChargeDeclared { chargers, .. }) if chargers.first().map(|k| k.edge) == Some(Edge::Right)
    ));
    ok(&mut b, Action::CloseResponse { target: t });
    let ev = ok(&mut b, Action::ResolveCharge { target: t });
    // One stand touches: 1 × 2 − 2 (flank) = 0, floor 1.
    assert_eq!(
        modifiers(&ev, "charge: defenders to hit"),
        vec![
            ("CHG-13".into(), 2),
            ("CHG-14".into(), -2),
            ("FIRE-12".into(), 1),
            ("CHG-16".into(), 4)
        ]
    );
}

#[test]
fn chg_07_support_limits() {
    let (a, s, d) = (u(0, 1), u(0, 2), u(1, 1));
    let far = u(0, 3);
    let mut b = we_07_table(false)
        .unit(0, 3, AUS_LINE, 5, 140.0, 100.0, 0.0)
        .command(vec![1, 1, 1, 1, 1, 1], &[]);
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    refused(
        &mut b,
        Action::Support {
            piece: far,
            friend: a,
        },
        "CHG-07",
    );
    refused(
        &mut b,
        Action::Support {
            piece: s,
            friend: d,
        },
        "CHG-07",
    );
    ok(
        &mut b,
        Action::Support {
            piece: s,
            friend: a,
        },
    );
}

#[test]
fn seq_04_chg_12_init_03_pending_combat_blocks_other_actions() {
    let (a, d) = (u(0, 1), u(1, 1));
    let mut b = we_07_table(false).command(vec![], &[]);
    ok(&mut b, charge(&[a], d));
    refused(&mut b, Action::EndPhase, "SEQ-04");
    refused(&mut b, charge(&[u(0, 2)], d), "INIT-09");
    // INIT-03, CHG-01: the charger does nothing else until the combat is fought.
    refused(
        &mut b,
        Action::Deploy {
            piece: a,
            formation: Formation::MarchColumn,
        },
        "INIT-03",
    );
    refused(
        &mut b,
        Action::Fire {
            firers: vec![a],
            target: d,
            ammunition: None,
        },
        "INIT-03",
    );
}

// --- Replay -----------------------------------------------------------------------------------------

fn we_07_flow(b: &mut Battle) -> Result<(), ActionError> {
    let (a, s, d, ds) = (u(0, 1), u(0, 2), u(1, 1), u(1, 2));
    b.perform(charge(&[a], d))?;
    b.perform(respond(d, d, Response::Fire { at: a }))?;
    b.perform(Action::CloseResponse { target: d })?;
    if b.state().charges.combat(d).is_some() {
        b.perform(Action::Support {
            piece: s,
            friend: a,
        })?;
        b.perform(Action::Support {
            piece: ds,
            friend: d,
        })?;
        b.perform(Action::ResolveCharge { target: d })?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Same actions and the same dice give the same events, and the event log replays to the
    /// same state (ARCHITECTURE.md "event-sourced and replayable").
    #[test]
    fn chg_19_replay_same_actions_same_events(seed in any::<u64>()) {
        let sc = we_07_table(true);
        let run = || {
            let mut b = sc.initiative_with(DiceSource::Seed(seed), &[]);
            b.perform(Action::EndPhase).expect("to Command");
            let r = we_07_flow(&mut b);
            (b, r)
        };
        let (b1, r1) = run();
        let (b2, r2) = run();
        prop_assert_eq!(&r1, &r2);
        prop_assert!(r1.is_ok(), "{:?}", r1);
        let e1: Vec<Event> = b1.events().cloned().collect();
        let e2: Vec<Event> = b2.events().cloned().collect();
        prop_assert_eq!(e1, e2);
        prop_assert_eq!(b1.replay_events(), b1.state().clone());
        prop_assert!(b1.state().charges.combats.is_empty());
    }
}

// --- More rules ---------------------------------------------------------------------------------

#[test]
fn chg_17_flank_roll_odd_goes_to_the_right_flank_charger() {
    // T faces −y: its right flank is the west end. W charges the west end, E the east end.
    let (e, w, t) = (u(0, 1), u(0, 2), u(1, 1));
    let mut dice = vec![6u8; 10]; // attackers: 2 × (2 × 2 + 1)
    dice.extend_from_slice(&[1u8; 11]); // T's saves (10 + the line die)
    dice.push(3); // CHG-17: odd → the right flank charger (W)
    dice.extend_from_slice(&[6, 6]); // T: two touching stands × 2 − 2 (flank)
    dice.extend_from_slice(&[1, 1, 1]); // W's saves
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 2, 112.0, 112.75, 270.0)
        .unit(0, 2, AUS_LINE, 2, 88.0, 112.75, 90.0)
        .unit(1, 1, FR_LINE, 4, 100.0, 112.0, 180.0)
        .command(dice, &[]);
    let ev = ok(&mut b, charge(&[e, w], t));
    let Some(Event::ChargeDeclared { chargers, .. }) = ev.first() else {
        panic!("{ev:?}");
    };
    assert_eq!(
        chargers
            .iter()
            .map(|k| (k.piece, k.edge))
            .collect::<Vec<_>>(),
        vec![(e, Edge::Left), (w, Edge::Right)]
    );
    ok(&mut b, Action::CloseResponse { target: t });
    let ev = ok(&mut b, Action::ResolveCharge { target: t });
    assert_eq!(
        rolls(&ev),
        vec![
            roll("charge: attackers to hit", &[6; 10]),
            roll("save", &[1; 11]),
            roll("flank allocation", &[3]),
            roll("charge: defenders to hit", &[6, 6]),
            roll("save", &[1, 1, 1]),
        ]
    );
    assert!(ev.contains(&Event::HitsTaken {
        piece: w,
        hits: 2,
        total: 2
    }));
    assert_eq!(
        modifiers(&ev, "charge: defenders to hit"),
        vec![
            ("CHG-13".into(), 4),
            ("CHG-14".into(), -2),
            ("CHG-16".into(), 4)
        ]
    );
    // 10 ≥ 2 × 2: double; both chargers in contact are disordered (FIRE-28 b).
    assert!(ev.contains(&Event::CombatDecided {
        target: t,
        outcome: Outcome::Double,
        winner: Some(0)
    }));
    for k in [e, w] {
        assert!(ev.contains(&Event::Disordered {
            piece: k,
            until: 2,
            exhausted: false
        }));
    }
}

#[test]
fn chg_25_retreat_into_a_suppressed_friend_knocks_out_both() {
    // F suppresses DS (2.5 cm behind D) with a flank shot; A then beats D by less than double,
    // and D's retreat runs straight into DS.
    let (a, f, d, ds) = (u(0, 1), u(0, 2), u(1, 1), u(1, 2));
    let mut dice = vec![6, 1, 1, 1, 1, 1, 1]; // F: 5 + 2 (flank) dice
    dice.extend_from_slice(&[1, 1]); // DS saves
    dice.push(6); // DS suppression
    dice.extend_from_slice(&[6, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1]); // A: 11 dice, 3 hits
    dice.extend_from_slice(&[1, 1, 1, 1]); // D saves
    dice.extend_from_slice(&[6, 6, 1, 1, 1, 1, 1, 1, 1, 1]); // D: 10 dice, 2 hits
    dice.extend_from_slice(&[1, 1, 1]); // A saves
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(0, 2, AUS_LINE, 5, 115.0, 117.0, 270.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 112.0, 180.0)
        .unit(1, 2, FR_LINE, 5, 100.0, 116.0, 180.0)
        .command(dice, &[]);
    let ev = ok(
        &mut b,
        Action::Fire {
            firers: vec![f],
            target: ds,
            ammunition: None,
        },
    );
    assert!(ev.contains(&Event::Suppressed {
        piece: ds,
        player_turn: 1
    }));
    ok(&mut b, charge(&[a], d));
    // INIT-12: a suppressed unit does not respond.
    refused(&mut b, respond(ds, d, Response::Fire { at: a }), "INIT-12");
    ok(&mut b, Action::CloseResponse { target: d });
    let ev = ok(&mut b, Action::ResolveCharge { target: d });
    assert!(ev.contains(&Event::CombatDecided {
        target: d,
        outcome: Outcome::Greater,
        winner: Some(0)
    }));
    let why = "retreated into a suppressed friendly unit";
    assert!(ev.contains(&charge_ko(d, "CHG-25", why)), "{ev:?}");
    assert!(ev.contains(&charge_ko(ds, "CHG-25", why)));
    assert_eq!(b.state().sides[1].units_lost, 2);
}

#[test]
fn fire_29_init_15_exhausted_cavalry_cannot_evade_and_must_counter_charge() {
    let (c, t, x) = (u(0, 1), u(1, 1), u(1, 2));
    let mut dice = vec![2, 2, 1];
    dice.extend_from_slice(&[6, 6, 6, 5, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1]);
    dice.extend_from_slice(&[6, 5, 3, 3, 2, 2, 1, 1, 1, 1]);
    dice.extend_from_slice(&[6, 4, 1]);
    dice.extend_from_slice(&[1, 1]); // the Austrian breakpoint test
    let mut b = new_sc("nap-french", "nap-austrian", 1806)
        .unit(0, 1, FR_HEAVY, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, "line-infantry-05-06", 5, 100.0, 115.0, 180.0)
        .unit(1, 2, "line-infantry-05-06", 5, 100.0, 136.0, 180.0)
        .initiative(
            dice,
            &[(t, Formation::MarchColumn), (t, Formation::AttackColumn)],
        );
    ok(&mut b, charge(&[c], t));
    ok(&mut b, respond(t, t, Response::Fire { at: c }));
    ok(&mut b, Action::CloseResponse { target: t });
    ok(&mut b, Action::ResolveCharge { target: t });
    for _ in 0..4 {
        ok(&mut b, Action::EndPhase);
    }
    // The Austrian initiative phase: C is still disordered and exhausted.
    assert_eq!(b.state().turn.active, 1);
    ok(&mut b, charge(&[x], c));
    refused(
        &mut b,
        respond(
            c,
            c,
            Response::Evade {
                facing_deg: None,
                limber: false,
            },
        ),
        "FIRE-29",
    );
    refused(&mut b, Action::CloseResponse { target: c }, "INIT-15");
    ok(&mut b, respond(c, c, Response::CounterCharge));
    ok(&mut b, Action::CloseResponse { target: c });
}

#[test]
fn init_10_charged_gun_pivots_or_limbers_and_evades() {
    let (a, g) = (u(0, 1), u(1, 1));
    let sc = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FIELD_ART, 1, 100.0, 114.0, 150.0);
    let deploys = [(a, Formation::MarchColumn), (a, Formation::AttackColumn)];
    let mut b = sc.command(vec![], &deploys);
    ok(&mut b, charge(&[a], g));
    refused(
        &mut b,
        respond(g, g, Response::Pivot { facing_deg: 30.0 }),
        "INIT-10",
    );
    let ev = ok(&mut b, respond(g, g, Response::Pivot { facing_deg: 180.0 }));
    assert!(matches!(
        ev.get(1),
        Some(Event::Moved { piece, to, .. }) if *piece == g && to.facing_deg == 180.0
    ));
    // INIT-10 ruling: the alternatives exclude each other.
    refused(&mut b, respond(g, g, Response::Canister), "INIT-12");
    let mut b = sc.command(vec![], &deploys);
    ok(&mut b, charge(&[a], g));
    let ev = ok(
        &mut b,
        respond(
            g,
            g,
            Response::Evade {
                facing_deg: None,
                limber: true,
            },
        ),
    );
    assert!(ev.contains(&Event::Limbered { piece: g }));
    let cost = ev.iter().find_map(|e| match e {
        Event::Moved { piece, cost_cm, .. } if *piece == g => Some(*cost_cm),
        _ => None,
    });
    // INIT-05 (a): half the limbered Move (10 cm).
    assert!(cost.is_some_and(|c| (c - 5.0).abs() < 1e-3), "{cost:?}");
}

#[test]
fn move_16_irregular_foot_must_evade_cavalry() {
    // Spanish line (note 24) charged by cavalry must evade if it can.
    let (c, s) = (u(0, 1), u(1, 1));
    let mut b = new_sc("nap-french", "nap-spanish", 1809)
        .unit(0, 1, FR_HEAVY, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, "line-infantry-09-15", 5, 100.0, 110.0, 180.0)
        .command(vec![], &[]);
    ok(&mut b, charge(&[c], s));
    refused(&mut b, Action::CloseResponse { target: s }, "MOVE-16");
    ok(
        &mut b,
        respond(
            s,
            s,
            Response::Evade {
                facing_deg: None,
                limber: false,
            },
        ),
    );
    ok(&mut b, Action::CloseResponse { target: s });
}

#[test]
fn chg_08_inactive_side_supports_once_per_enemy_turn() {
    let (a, d, ds) = (u(0, 1), u(1, 1), u(1, 2));
    let mut b = we_07_table(true).command(vec![], &[]);
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    ok(
        &mut b,
        Action::Support {
            piece: ds,
            friend: d,
        },
    );
    refused(
        &mut b,
        Action::Support {
            piece: ds,
            friend: d,
        },
        "CHG-08",
    );
}

#[test]
fn pike_01_cavalry_may_not_charge_the_front_of_pikes_but_may_take_the_flank() {
    let (c, p) = (u(0, 1), u(1, 1));
    let sc = new_sc("nap-french", "nap-austrian", 1809)
        .unit(0, 1, FR_HEAVY, 2, 100.0, 100.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 110.0, 180.0)
        .flag(1, 1, "pikes");
    let mut b = sc.command(vec![], &[]);
    refused(&mut b, charge(&[c], p), "PIKE-01");
    // From the side: P faces −y, so the east end is its left flank.
    let mut b = new_sc("nap-french", "nap-austrian", 1809)
        .unit(0, 1, FR_HEAVY, 1, 115.0, 110.75, 270.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 110.0, 180.0)
        .flag(1, 1, "pikes")
        .command(vec![], &[]);
    let ev = ok(&mut b, charge(&[c], p));
    assert!(matches!(
        ev.first(),
        Some(Event::ChargeDeclared { chargers, .. }) if chargers.first().map(|k| k.edge) == Some(Edge::Left)
    ));
}

#[test]
fn pike_02_pikes_count_one_cover_level_better_against_infantry() {
    let (a, p) = (u(0, 1), u(1, 1));
    let mut dice = vec![6u8; 11];
    dice.extend_from_slice(&[1u8; 12]);
    dice.extend_from_slice(&[1u8; 10]);
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 110.0, 180.0)
        .flag(1, 1, "pikes")
        .command(dice, &[]);
    ok(&mut b, charge(&[a], p));
    ok(&mut b, Action::CloseResponse { target: p });
    let ev = ok(&mut b, Action::ResolveCharge { target: p });
    assert_eq!(
        modifiers(&ev, "charge: attackers to hit"),
        vec![
            ("CHG-13".into(), 10),
            ("CHG-14".into(), 1),
            ("PIKE-02".into(), 1),
            ("CHG-16".into(), 5)
        ]
    );
}

#[test]
fn chg_15_lancers_and_note_22_extra_die() {
    // Designated lancers (COL-13) +1 on the initial charge attack; Grenz (note 22) +1 always.
    let (g, l) = (u(0, 1), u(1, 1));
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, "grenz-infantry", 4, 100.0, 100.0, 0.0)
        .unit(1, 1, "light-cavalry-05-12", 3, 100.0, 110.0, 180.0)
        .flag(1, 1, "lancers")
        .command(
            {
                let mut d = vec![6u8; 10]; // Grenz: 4 × 2 + 1 (charging) + 1 (note 22)
                d.extend_from_slice(&[1u8; 11]); // lancers' saves (6+, 10 + line die)
                d.extend_from_slice(&[1u8; 11]); // lancers counter-charging: 9 + 1 + 1
                d
            },
            &[],
        );
    ok(&mut b, charge(&[g], l));
    ok(&mut b, respond(l, l, Response::CounterCharge));
    ok(&mut b, Action::CloseResponse { target: l });
    let ev = ok(&mut b, Action::ResolveCharge { target: l });
    assert_eq!(
        modifiers(&ev, "charge: attackers to hit"),
        vec![
            ("CHG-13".into(), 8),
            ("CHG-14".into(), 1),
            ("CHG-15".into(), 1),
            ("CHG-16".into(), 4)
        ]
    );
    assert_eq!(
        modifiers(&ev, "charge: defenders to hit"),
        vec![
            ("CHG-13".into(), 9),
            ("CHG-14".into(), 1),
            ("CHG-15".into(), 1),
            ("CHG-16".into(), 4)
        ]
    );
}

/// French light cavalry u(0, 1), 4 stands, charge Austrian u(1, 1) formed in square 12 cm
/// ahead in the Command phase; no response; the combat fought with `dice`. The battle and the
/// combat's events.
fn cavalry_charge_a_square(dice: Vec<u8>) -> (Battle, Vec<Event>) {
    let (c, s) = (u(0, 1), u(1, 1));
    let mut b = new_sc("nap-french", "nap-austrian", 1809)
        .unit(0, 1, "light-cavalry-05-12", 4, 100.0, 100.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 100.0, 112.0, 180.0)
        .command(dice, &[(s, Formation::Square)]);
    ok(&mut b, charge(&[c], s));
    ok(&mut b, Action::CloseResponse { target: s });
    let ev = ok(&mut b, Action::ResolveCharge { target: s });
    (b, ev)
}

#[test]
fn move_18_square_counts_one_level_better_against_cavalry() {
    let mut dice = vec![6u8; 13]; // 4 × 3 + 1 (charging)
    dice.extend_from_slice(&[1u8; 13]); // the square saves normally in a charge (CHG-18)
    dice.extend_from_slice(&[1u8; 8]); // the square: 4 stands × 2, all fronts
    let (_, ev) = cavalry_charge_a_square(dice);
    assert_eq!(
        modifiers(&ev, "charge: attackers to hit"),
        vec![
            ("CHG-13".into(), 12),
            ("CHG-14".into(), 1),
            ("MOVE-18".into(), 1),
            ("CHG-16".into(), 5)
        ]
    );
    assert_eq!(rolls(&ev).get(1), Some(&roll("save", &[1u8; 13])));
}

#[test]
fn chg_25_d_a_square_that_must_retreat_is_destroyed_instead() {
    // Light cavalry (4 stands) charge an Austrian square (4 stands). Round 1: 12 + 1 dice
    // needing 5+ (square one level better against cavalry): three 6s = 3 hits; the square's
    // 3 saves all 1s. The square's 4 × 2 dice need 4+ (chargers in the open): two 6s = 2
    // hits; the cavalry's saves all 1s. Totals: square side 3, cavalry 2 — more, not double
    // (CHG-21): the square is suppressed and must retreat, but a square cannot move
    // (MOVE-15), so it is knocked out instead (CHG-25 ruling (d)). No retreat move is made.
    let s = u(1, 1);
    let mut dice = vec![6u8, 6, 6];
    dice.extend_from_slice(&[1u8; 10]); // the rest of the cavalry's 13 dice
    dice.extend_from_slice(&[1u8; 3]); // the square's saves
    dice.extend_from_slice(&[6u8, 6, 1, 1, 1, 1, 1, 1]); // the square's 8 dice
    dice.extend_from_slice(&[1u8; 4]); // the cavalry's saves (and any bonus die)
    let (b, ev) = cavalry_charge_a_square(dice);
    let r_ = results(&ev);
    let from = r_
        .iter()
        .position(|e| matches!(e, Event::CombatRound { .. }))
        .expect("a round is fought");
    assert_eq!(
        r_[from..from + 4].to_vec(),
        vec![
            Event::CombatRound {
                target: s,
                round: 1,
                attacker_total: 2,
                defender_total: 3
            },
            Event::CombatDecided {
                target: s,
                outcome: Outcome::Greater,
                winner: Some(0),
            },
            Event::Suppressed {
                piece: s,
                player_turn: 1
            },
            charge_ko(
                s,
                "CHG-25",
                "a square cannot move (MOVE-15), so it is destroyed instead of retreating"
            ),
        ]
    );
    assert!(!r_
        .iter()
        .any(|e| matches!(e, Event::Retreated { piece, .. } if *piece == s)));
    assert!(!b.state().pieces[&s].on_table());
}

#[test]
fn chg_01_charge_actions_and_events_survive_the_battle_file_round_trip() {
    let (a, s, d, ds) = (u(0, 1), u(0, 2), u(1, 1), u(1, 2));
    let mut b = we_07_table(true).initiative_with(DiceSource::Seed(7), &[]);
    ok(&mut b, Action::EndPhase);
    let actions = vec![
        charge(&[a], d),
        respond(d, d, Response::Fire { at: a }),
        respond(
            ds,
            d,
            Response::Evade {
                facing_deg: Some(90.0),
                limber: false,
            },
        ),
        Action::CloseResponse { target: d },
        Action::Support {
            piece: s,
            friend: a,
        },
        Action::ResolveCharge { target: d },
        Action::Consolidate {
            piece: a,
            to: pose(100.0, 112.0, 0.0),
        },
        Action::Evade {
            piece: a,
            facing_deg: None,
            mount: false,
        },
    ];
    for a in &actions {
        let text = serde_json::to_string(a).expect("serializes");
        let back: Action = serde_json::from_str(&text).expect("parses");
        assert_eq!(&back, a, "{text}");
    }
    for act in actions.into_iter().take(6) {
        let _ = b.perform(act);
    }
    let log = serde_json::to_string(b.log()).expect("the log serializes");
    let back: powderhorn::rules::BattleLog = serde_json::from_str(&log).expect("the log parses");
    assert_eq!(&back, b.log());
    // The charge state (the battle state's own map keys are not JSON strings; the log is what
    // is stored).
    let charges = serde_json::to_string(&b.state().charges).expect("the charge state serializes");
    let back: powderhorn::rules::charge::ChargeState =
        serde_json::from_str(&charges).expect("the charge state parses");
    assert_eq!(&back, &b.state().charges);
}

#[test]
fn init_09_step_5_a_charger_that_falls_back_is_disordered() {
    // D's response suppresses A; X's response (its own order, FIRE-25) makes A fall back.
    let (a, d, x) = (u(0, 1), u(1, 1), u(1, 3));
    let mut dice = vec![6, 1, 1, 1, 1, 1]; // D: 5 + 1 (half range)
    dice.extend_from_slice(&[1, 1]); // A's saves
    dice.push(6); // A's suppression
    dice.extend_from_slice(&[6, 1, 1]); // X: 1 stand + 1 (half range) + …
    dice.extend_from_slice(&[1, 1, 1, 1, 1, 1]);
    let mut b = we_07_table(false)
        .unit(1, 3, FR_LINE, 1, 108.0, 112.0, 180.0)
        .command(dice, &[]);
    ok(&mut b, charge(&[a], d));
    ok(&mut b, respond(d, d, Response::Fire { at: a }));
    let ev = ok(&mut b, respond(x, d, Response::Fire { at: a }));
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::FellBack { piece, .. } if *piece == a)),
        "{ev:?}"
    );
    let ev = ok(&mut b, Action::CloseResponse { target: d });
    assert_eq!(
        ev,
        vec![
            Event::ResponseClosed { target: d },
            Event::ChargeFailed {
                piece: a,
                target: d,
                reason: "it fell back before contact".into(),
            },
            Event::Disordered {
                piece: a,
                until: 2,
                exhausted: false
            },
            Event::FormationChanged {
                piece: a,
                from: Some(Formation::Line),
                to: Some(Formation::Disordered),
            },
            Event::ChargeEnded {
                target: d,
                consolidate: vec![],
            },
        ]
    );
}

#[test]
fn cmd_25_move_08_fire_26_a_charger_falling_back_through_an_enemy_hq_overruns_it() {
    let (a, d, x) = (u(0, 1), u(1, 1), u(1, 3));
    let mut dice = vec![6, 1, 1, 1, 1, 1]; // D: 5 + 1 (half range)
    dice.extend_from_slice(&[1, 1]); // A's saves
    dice.push(6); // A's suppression
    dice.extend_from_slice(&[6, 1, 1]); // X: 1 stand + 1 (half range) + …
    dice.extend_from_slice(&[1, 1, 1, 1, 1, 1]);
    let mut b = we_07_table(false)
        .unit(1, 3, FR_LINE, 1, 108.0, 112.0, 180.0)
        .hq_pose(1, 91.5, 111.5, 0.0)
        .command(dice, &[]);
    ok(&mut b, charge(&[a], d));
    ok(&mut b, respond(d, d, Response::Fire { at: a }));
    let ev = ok(&mut b, respond(x, d, Response::Fire { at: a }));
    // A's 1 cm fall-back (FIRE-25) swings its left end into Brigade B's HQ, beside it: the HQ
    // joins D, the nearest friend within half its Move, against D's rear (CMD-25, CMD-26).
    let tail: Vec<Event> = results(&ev).into_iter().rev().take(2).rev().collect();
    assert_eq!(
        tail,
        vec![
            Event::FellBack {
                piece: a,
                from: pose(100.0, 110.0, 0.0),
                to: b
                    .state()
                    .piece(a)
                    .and_then(|p| p.pose)
                    .expect("A on the table"),
                distance_cm: 1.0,
            },
            Event::CommandJoined {
                piece: hq(1),
                unit: d,
                from: pose(91.5, 111.5, 0.0),
                to: pose(100.0, 113.5, 180.0),
            },
        ]
    );
}

#[test]
fn cmd_25_chg_25_a_retreat_stopped_by_a_friend_overruns_the_enemy_hq_on_its_way() {
    let (a, d, ds) = (u(0, 1), u(1, 1), u(1, 2));
    let mut dice = vec![6, 6, 6, 1, 1, 1, 1, 1, 1]; // A: 4 × 2 + 1
    dice.extend_from_slice(&[1; 4]); // D's saves
    dice.extend_from_slice(&[6, 6, 1, 1, 1, 1, 1, 1]); // D: 4 × 2
    dice.extend_from_slice(&[1, 1, 1]); // A's saves
                                        // D (y 112..113.5), Brigade A's HQ behind it (y 114..117), DS behind that (y 118..119.5).
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 4, 100.0, 112.0, 180.0)
        .unit(1, 2, FR_LINE, 4, 100.0, 118.0, 180.0)
        .hq_pose(0, 100.0, 114.0, 180.0)
        .command(dice, &[]);
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    let ev = ok(&mut b, Action::ResolveCharge { target: d });
    // CHG-21, CHG-25: D loses 3 to 2 and retreats half its Move straight back, through the
    // HQ (CMD-25, MOVE-08: it joins A, within half its Move, against A's rear, CMD-26), and
    // stops on DS, which is suppressed.
    let to = b
        .state()
        .piece(d)
        .and_then(|p| p.pose)
        .expect("D on the table");
    assert!((to.at.y - 116.5).abs() < 1e-3);
    let tail: Vec<Event> = results(&ev).into_iter().rev().take(7).rev().collect();
    assert_eq!(
        tail,
        vec![
            Event::Suppressed {
                piece: d,
                player_turn: 1
            },
            Event::Retreated {
                piece: d,
                from: pose(100.0, 112.0, 180.0),
                to,
                distance_cm: 4.5
            },
            Event::CommandJoined {
                piece: hq(0),
                unit: a,
                from: pose(100.0, 114.0, 180.0),
                to: pose(100.0, 110.5, 0.0),
            },
            Event::Suppressed {
                piece: ds,
                player_turn: 1
            },
            Event::Disordered {
                piece: a,
                until: 2,
                exhausted: false
            },
            Event::FormationChanged {
                piece: a,
                from: Some(Formation::Line),
                to: Some(Formation::Disordered)
            },
            Event::ChargeEnded {
                target: d,
                consolidate: vec![a]
            },
        ]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// CHG-04, CHG-10: wherever a legal charge starts, the charger ends flush against the
    /// target (base contact, no overlap) on the edge it declared, and never farther than 20 cm
    /// from where it started.
    #[test]
    fn chg_04_chg_10_contact_is_flush_on_the_declared_edge(
        dx in -12.0f64..12.0,
        dy in 3.0f64..22.0,
        turn in -40.0f64..40.0,
        target_facing in prop_oneof![Just(180.0f64), Just(150.0), Just(90.0), Just(225.0)],
    ) {
        let (a, d) = (u(0, 1), u(1, 1));
        let sc = new_sc("nap-austrian", "nap-french", 1809)
            .unit(0, 1, AUS_LINE, 4, 100.0 + dx, 112.0 - dy, turn)
            .unit(1, 1, FR_LINE, 4, 100.0, 112.0, target_facing);
        // DATA-11: a placement where the two units overlap cannot start a battle; not a case.
        prop_assume!(powderhorn::rules::state::placement_violations(&sc.scenario(), &lists()).is_empty());
        let mut b = sc.command(vec![], &[]);
        let declared = match b.perform(charge(&[a], d)) {
            Ok(ev) => ev.to_vec(),
            Err(_) => return Ok(()),
        };
        let Some(Event::ChargeDeclared { chargers, .. }) = declared.first() else {
            return Err(TestCaseError::fail("no declaration"));
        };
        let plan = chargers.first().cloned().expect("one charger");
        prop_assert!(plan.distance_cm <= 20.0 + 1e-6);
        let ev = b.perform(Action::CloseResponse { target: d }).expect("closes").to_vec();
        let contact = ev.iter().find_map(|e| match e {
            Event::ChargeContact { edge, to, .. } => Some((*edge, *to)),
            _ => None,
        });
        let (edge, to) = contact.expect("contact made");
        prop_assert_eq!(edge, plan.edge);
        let ctx = b.ctx();
        let ap = b.state().piece(a).cloned().expect("A");
        let dp = b.state().piece(d).cloned().expect("D");
        prop_assert_eq!(ap.pose, Some(to));
        let afp = powderhorn::rules::geometry::footprint_of(&ctx, &ap).expect("A on table");
        let dfp = powderhorn::rules::geometry::footprint_of(&ctx, &dp).expect("D on table");
        prop_assert!(powderhorn::geom::edge_distance(&afp, &dfp) <= 0.1);
        // No overlap: every A stand centre lies outside every D stand.
        for s in &afp.stands {
            for t in &dfp.stands {
                prop_assert!(!t.covers(s.centre, -0.01));
            }
        }
    }
}

#[test]
fn chg_23_both_sides_wiped_out_nobody_consolidates() {
    let (a, g) = (u(0, 1), u(1, 1));
    let mut dice = vec![6, 6, 1, 1]; // canister: 4 attacks × 1 stand
    dice.extend_from_slice(&[1, 1, 1]); // A's saves (2 + the line die)
    dice.extend_from_slice(&[1, 1]); // suppression: none
    dice.extend_from_slice(&[6, 6, 6]); // A: 1 × 2 + 1
    dice.push(6); // the gun
    dice.extend_from_slice(&[1, 1]); // A's saves
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 1, 100.0, 100.0, 0.0)
        .unit(1, 1, FIELD_ART, 1, 100.0, 110.0, 180.0)
        .command(dice, &[]);
    ok(&mut b, charge(&[a], g));
    ok(&mut b, respond(g, g, Response::Canister));
    ok(&mut b, Action::CloseResponse { target: g });
    let ev = ok(&mut b, Action::ResolveCharge { target: g });
    let tail: Vec<Event> = results(&ev).into_iter().rev().take(2).rev().collect();
    assert_eq!(
        tail,
        vec![
            Event::CombatDecided {
                target: g,
                outcome: Outcome::BothWipedOut,
                winner: None,
            },
            Event::ChargeEnded {
                target: g,
                consolidate: vec![],
            },
        ]
    );
    assert_eq!(b.state().sides[0].units_lost, 1);
    assert_eq!(b.state().sides[1].units_lost, 1);
}

#[test]
fn init_14_an_evader_out_of_reach_survives_and_the_charger_is_disordered() {
    let (a, k) = (u(0, 1), u(1, 1));
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, "light-cavalry-05-12", 3, 100.0, 112.0, 180.0)
        .command(vec![], &[]);
    ok(&mut b, charge(&[a], k));
    ok(
        &mut b,
        respond(
            k,
            k,
            Response::Evade {
                facing_deg: Some(0.0),
                limber: false,
            },
        ),
    );
    let ev = ok(&mut b, Action::CloseResponse { target: k });
    assert!(ev.contains(&Event::ChargeFailed {
        piece: a,
        target: k,
        reason: "the target evaded out of reach".into(),
    }));
    assert!(ev.contains(&Event::Disordered {
        piece: a,
        until: 2,
        exhausted: false
    }));
    assert!(b.state().piece(k).is_some_and(|p| p.on_table()));
}

#[test]
fn chg_05_chg_10_chg_11_chg_17_a_second_charge_joins_the_combat_on_its_target() {
    let (a, s, d) = (u(0, 1), u(0, 2), u(1, 1));
    let mut dice = vec![6, 6, 6, 6];
    dice.extend_from_slice(&[1; 18]); // A and S: 2 × (5 × 2 + 1), one pool at 4+
    dice.extend_from_slice(&[1; 5]); // D's saves (4 + the line die)
    dice.extend_from_slice(&[6, 1, 1, 1, 1, 1, 1, 1]); // D: 5 × 2 − 2 (fights to its flank)
    dice.extend_from_slice(&[1, 1]); // A's saves
    let mut b = we_07_table(false).command(dice, &[]);
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    // CHG-05, CHG-10: S charges D too; D's front is A's, so S takes D's left flank.
    let ev = ok(&mut b, charge(&[s], d));
    assert_eq!(
        ev,
        vec![
            Event::ChargeDeclared {
                target: d,
                phase: Phase::Command,
                chargers: vec![ChargerPlan {
                    piece: s,
                    edge: Edge::Left,
                    start: pose(113.0, 104.5, 0.0),
                    placed: pose(108.25, 112.75, 270.0),
                    distance_cm: 10.817,
                    saber: false,
                }],
            },
            Event::Moved {
                piece: s,
                from: pose(113.0, 104.5, 0.0),
                to: pose(108.25, 112.75, 270.0),
                path: vec![],
                cost_cm: 9.52,
            },
        ]
    );
    // D is fighting A hand to hand: no response of its own; nobody fires at A, in contact.
    refused(&mut b, respond(d, d, Response::Fire { at: s }), "CHG-05");
    let ev = ok(&mut b, Action::CloseResponse { target: d });
    assert_eq!(
        ev,
        vec![
            Event::ResponseClosed { target: d },
            Event::ChargeContact {
                piece: s,
                target: d,
                edge: Edge::Left,
                to: pose(106.25, 112.75, 270.0),
            },
        ]
    );
    // One combat: both chargers' dice in one pool (CHG-13/14); D counts all its stands (front
    // contact, CHG-11) but fights to its flank (−2); its hits go to A on its front (CHG-17).
    let ev = ok(&mut b, Action::ResolveCharge { target: d });
    assert_eq!(
        modifiers(&ev, "charge: attackers to hit"),
        vec![
            ("CHG-13".into(), 10),
            ("CHG-14".into(), 1),
            ("CHG-16".into(), 4),
            ("CHG-13".into(), 10),
            ("CHG-14".into(), 1),
            ("CHG-16".into(), 4)
        ]
    );
    assert_eq!(
        modifiers(&ev, "charge: defenders to hit"),
        vec![
            ("CHG-13".into(), 10),
            ("CHG-14".into(), -2),
            ("CHG-16".into(), 4)
        ]
    );
    let tail: Vec<Event> = results(&ev).into_iter().skip(3).collect();
    assert_eq!(
        tail,
        vec![
            Event::HitsScored {
                target: a,
                hits: 1,
                needed: 4
            },
            Event::Saved {
                target: a,
                saved: 0
            },
            Event::HitsTaken {
                piece: a,
                hits: 1,
                total: 1
            },
            Event::CombatRound {
                target: d,
                round: 1,
                attacker_total: 1,
                defender_total: 4
            },
            Event::CombatDecided {
                target: d,
                outcome: Outcome::Double,
                winner: Some(0)
            },
            charge_ko(d, "CHG-22", "lost a charge by double or more"),
            Event::Disordered {
                piece: a,
                until: 2,
                exhausted: false
            },
            Event::FormationChanged {
                piece: a,
                from: Some(Formation::Line),
                to: Some(Formation::Disordered)
            },
            Event::Disordered {
                piece: s,
                until: 2,
                exhausted: false
            },
            Event::FormationChanged {
                piece: s,
                from: Some(Formation::Line),
                to: Some(Formation::Disordered)
            },
            Event::ChargeEnded {
                target: d,
                consolidate: vec![a, s]
            },
        ]
    );
}

#[test]
fn chg_05_a_second_charge_on_a_supporter_is_reported_unsupported() {
    let (a, d, ds, s) = (u(0, 1), u(1, 1), u(1, 2), u(0, 2));
    let mut b = we_07_table(true).command(vec![], &[]);
    ok(&mut b, charge(&[a], d));
    ok(&mut b, Action::CloseResponse { target: d });
    ok(
        &mut b,
        Action::Support {
            piece: ds,
            friend: d,
        },
    );
    refuse::unsupported(&mut b, charge(&[s], ds), "CHG-05");
}

/// CHG-05 table: D (3 stands, x 96.25..103.75) and E (4 stands, x 103.75..113.75) of side 1
/// side by side facing −y with their fronts at y 112; A (4 stands, x 95..105) 12 cm short of
/// D; F, a friend of A, at x 84..94 level with D's front, leaves A no shift to the left
/// that would keep it off E (CHG-04 b).
fn chg_05_table() -> Sc {
    new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 4, 100.0, 100.0, 0.0)
        .unit(0, 2, AUS_LINE, 4, 89.0, 112.0, 0.0)
        .unit(1, 1, FR_LINE, 3, 100.0, 112.0, 180.0)
        .unit(1, 2, FR_LINE, 4, 108.75, 112.0, 180.0)
}

#[test]
fn chg_05_chg_19_fire_28_a_charger_touching_two_enemy_units_makes_two_charges() {
    let (a, d, e) = (u(0, 1), u(1, 1), u(1, 2));
    let mut dice = vec![6, 6, 6, 1, 1, 1, 1, 1, 1]; // A on D: 4 × 2 + 1
    dice.extend_from_slice(&[1; 4]); // D's saves
    dice.extend_from_slice(&[6, 1, 1, 1, 1, 1]); // D: 3 × 2
    dice.extend_from_slice(&[1, 1]); // A's saves
    dice.extend_from_slice(&[6, 6, 6, 1, 1, 1, 1, 1, 1]); // A on E: 4 × 2 + 1, not yet disordered
    dice.extend_from_slice(&[1; 4]); // E's saves
    dice.extend_from_slice(&[6, 1, 1, 1, 1, 1, 1, 1]); // E: 4 × 2
    dice.extend_from_slice(&[1, 1]); // A's saves
    let mut b = chg_05_table().command(dice, &[]);
    ok(&mut b, charge(&[a], d));
    // CHG-04 (b) leaves A centred on D's front, over E's front too: a second charge, on E.
    let ev = ok(&mut b, Action::CloseResponse { target: d });
    let at = pose(100.0, 112.0, 0.0);
    assert_eq!(
        ev,
        vec![
            Event::ResponseClosed { target: d },
            Event::ChargeContact {
                piece: a,
                target: d,
                edge: Edge::Front,
                to: at,
            },
            Event::ChargeDeclared {
                target: e,
                phase: Phase::Command,
                chargers: vec![ChargerPlan {
                    piece: a,
                    edge: Edge::Front,
                    start: pose(100.0, 100.0, 0.0),
                    placed: at,
                    distance_cm: 12.0,
                    saber: false,
                }],
            },
            Event::ResponseClosed { target: e },
            Event::ChargeContact {
                piece: a,
                target: e,
                edge: Edge::Front,
                to: at,
            },
        ]
    );
    // The active player fights D first: A wins by double; E is still to come, so A is not
    // disordered yet and may not consolidate.
    let ev = ok(&mut b, Action::ResolveCharge { target: d });
    assert_eq!(
        rolls(&ev),
        vec![
            roll("charge: attackers to hit", &[6, 6, 6, 1, 1, 1, 1, 1, 1]),
            roll("save", &[1, 1, 1, 1]),
            roll("charge: defenders to hit", &[6, 1, 1, 1, 1, 1]),
            roll("save", &[1, 1]),
        ]
    );
    let tail: Vec<Event> = results(&ev).into_iter().skip(6).collect();
    assert_eq!(
        tail,
        vec![
            Event::CombatRound {
                target: d,
                round: 1,
                attacker_total: 1,
                defender_total: 3
            },
            Event::CombatDecided {
                target: d,
                outcome: Outcome::Double,
                winner: Some(0)
            },
            charge_ko(d, "CHG-22", "lost a charge by double or more"),
            Event::ChargeEnded {
                target: d,
                consolidate: vec![a]
            },
        ]
    );
    refused(
        &mut b,
        Action::Consolidate {
            piece: a,
            to: pose(100.0, 113.0, 0.0),
        },
        "CHG-05",
    );
    // E: a separate charge (A charging, +1); CHG-19 counts A's hit from the first combat.
    let ev = ok(&mut b, Action::ResolveCharge { target: e });
    assert_eq!(
        modifiers(&ev, "charge: attackers to hit"),
        vec![
            ("CHG-13".into(), 8),
            ("CHG-14".into(), 1),
            ("CHG-16".into(), 4)
        ]
    );
    let res = results(&ev);
    assert!(res.contains(&Event::CombatRound {
        target: e,
        round: 1,
        attacker_total: 2,
        defender_total: 3
    }));
    assert!(res.contains(&Event::CombatDecided {
        target: e,
        outcome: Outcome::Greater,
        winner: Some(0)
    }));
    assert!(res.contains(&Event::Suppressed {
        piece: e,
        player_turn: 1
    }));
    let end: Vec<Event> = res.into_iter().rev().take(3).rev().collect();
    assert_eq!(
        end,
        vec![
            Event::Disordered {
                piece: a,
                until: 2,
                exhausted: false
            },
            Event::FormationChanged {
                piece: a,
                from: Some(Formation::Line),
                to: Some(Formation::Disordered)
            },
            Event::ChargeEnded {
                target: e,
                consolidate: vec![a]
            },
        ]
    );
    ok(&mut b, Action::EndPhase);
}

#[test]
fn chg_05_pike_01_a_second_contact_on_the_front_of_pikes_is_refused() {
    let (c, d) = (u(0, 1), u(1, 1));
    // The CHG-05 table with French heavy cavalry (3 stands, 10.5 cm) charging Austrian D; E,
    // beside D, carries pikes: the only contact on D's front also touches E's front.
    let sc = new_sc("nap-french", "nap-austrian", 1809)
        .unit(0, 1, FR_HEAVY, 3, 100.0, 100.0, 0.0)
        .unit(0, 2, FR_LINE, 4, 89.0, 112.0, 0.0)
        .unit(1, 1, AUS_LINE, 3, 100.0, 112.0, 180.0)
        .unit(1, 2, AUS_LINE, 4, 108.75, 112.0, 180.0);
    let mut b = sc
        .clone_with(|s| s.flag(1, 2, "pikes"))
        .command(vec![], &[]);
    refused(&mut b, charge(&[c], d), "PIKE-01");
    // Without the pikes the same charge is legal, and makes a second charge on E at contact.
    let mut b = sc.command(vec![], &[]);
    ok(&mut b, charge(&[c], d));
    ok(&mut b, Action::CloseResponse { target: d });
    assert_eq!(b.state().charges.combats.len(), 2);
}

// --- SEQ-04 (3): the Charge phase fights contacts left without a combat -----------------------

/// A (side 0) at x 100..110 in base contact, front to front, with D (95..105) and E
/// (107.5..117.5) of side 1, all in line.
fn seq_04_table() -> Sc {
    new_sc("nap-austrian", "nap-french", 1809)
        .unit(1, 1, FR_LINE, 4, 100.0, 100.0, 180.0)
        .unit(0, 1, AUS_LINE, 4, 105.0, 100.0, 0.0)
        .unit(1, 2, FR_LINE, 4, 112.5, 100.0, 180.0)
}

#[test]
fn seq_04_chg_05_contact_without_a_combat_is_fought_in_the_charge_phase() {
    let (a, d, e) = (u(0, 1), u(1, 1), u(1, 2));
    let mut dice = vec![6, 6, 1, 1, 1, 1, 1, 1]; // A: 4 stands × 2, no charge bonus
    dice.extend_from_slice(&[1, 1, 1]); // E's saves (2 + the line die)
    dice.extend_from_slice(&[6, 6, 6, 1, 1, 1, 1, 1]); // E: 4 × 2
    dice.extend_from_slice(&[1, 1, 1, 1]); // A's saves (3 + the line die)
    let mut b = seq_04_table().command(dice, &[]);
    // SEQ-04 (3): entering the Charge phase opens one combat per inactive unit touched.
    let ev = ok(&mut b, Action::EndPhase);
    let standing = |target: PieceId| {
        let plan = ChargerPlan {
            piece: a,
            edge: Edge::Front,
            start: pose(105.0, 100.0, 0.0),
            placed: pose(105.0, 100.0, 0.0),
            distance_cm: 0.0,
            saber: false,
        };
        vec![
            Event::ChargeDeclared {
                target,
                phase: Phase::Charge,
                chargers: vec![plan],
            },
            Event::ResponseClosed { target },
            Event::ChargeContact {
                piece: a,
                target,
                edge: Edge::Front,
                to: pose(105.0, 100.0, 0.0),
            },
        ]
    };
    let mut expected = vec![
        Event::PhaseEnded {
            phase: Phase::Command,
        },
        Event::PhaseBegan {
            phase: Phase::Charge,
        },
    ];
    expected.extend(standing(d));
    expected.extend(standing(e));
    assert_eq!(ev, expected);
    // The Charge phase does not end with those contacts unresolved.
    refused(&mut b, Action::EndPhase, "SEQ-04");
    // CHG-05: the active player picks the order: E first. Nobody charged: no +1, 4+ all round.
    let ev = ok(&mut b, Action::ResolveCharge { target: e });
    assert_eq!(
        rolls(&ev),
        vec![
            roll("charge: attackers to hit", &[6, 6, 1, 1, 1, 1, 1, 1]),
            roll("save", &[1, 1, 1]),
            roll("charge: defenders to hit", &[6, 6, 6, 1, 1, 1, 1, 1]),
            roll("save", &[1, 1, 1, 1]),
        ]
    );
    assert_eq!(
        modifiers(&ev, "charge: attackers to hit"),
        vec![("CHG-13".into(), 8), ("CHG-16".into(), 4)]
    );
    let retreat_to = b.state().piece(a).and_then(|p| p.pose).expect("A stays");
    assert!(retreat_to.at.x < 105.0 && retreat_to.at.y < 100.0);
    assert_eq!(
        results(&ev),
        vec![
            Event::HitsScored {
                target: e,
                hits: 2,
                needed: 4
            },
            Event::Saved {
                target: e,
                saved: 0
            },
            Event::HitsTaken {
                piece: e,
                hits: 2,
                total: 2
            },
            Event::HitsScored {
                target: a,
                hits: 3,
                needed: 4
            },
            Event::Saved {
                target: a,
                saved: 0
            },
            Event::HitsTaken {
                piece: a,
                hits: 3,
                total: 3
            },
            Event::CombatRound {
                target: e,
                round: 1,
                attacker_total: 3,
                defender_total: 2
            },
            Event::CombatDecided {
                target: e,
                outcome: Outcome::Greater,
                winner: Some(1)
            },
            Event::Suppressed {
                piece: a,
                player_turn: 1
            },
            // CHG-21/25: away from E, the unit it was touching. No disorder: nobody charged.
            Event::Retreated {
                piece: a,
                from: pose(105.0, 100.0, 0.0),
                to: retreat_to,
                distance_cm: 4.0
            },
            Event::ChargeEnded {
                target: e,
                consolidate: vec![e]
            },
        ]
    );
    // CHG-05 ruling: A's retreat took it out of contact with D: that combat is not fought.
    let ev = ok(&mut b, Action::ResolveCharge { target: d });
    assert_eq!(
        ev,
        vec![
            Event::ChargeFailed {
                piece: a,
                target: d,
                reason: "no longer in base contact: the combat is not fought (CHG-05)".into(),
            },
            Event::ChargeEnded {
                target: d,
                consolidate: vec![e]
            },
        ]
    );
    let ev = ok(&mut b, Action::EndPhase);
    assert_eq!(
        ev,
        vec![
            Event::PhaseEnded {
                phase: Phase::Charge
            },
            Event::PhaseBegan { phase: Phase::End },
        ]
    );
}

#[test]
fn seq_04_chg_21_chg_25_a_pair_whose_combat_was_resolved_is_not_made_to_fight_again() {
    let (a, d, ds) = (u(0, 1), u(1, 1), u(1, 2));
    let mut dice = vec![6, 6, 6, 1, 1, 1, 1, 1]; // A: 4 × 2, nobody charging
    dice.extend_from_slice(&[1; 4]); // D's saves (3 + the line die)
    dice.extend_from_slice(&[6, 6, 1, 1, 1, 1, 1, 1]); // D: 4 × 2
    dice.extend_from_slice(&[1, 1, 1]); // A's saves
                                        // A and D deployed front to front; DS right behind D, touching it.
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 4, 100.0, 100.0, 180.0)
        .unit(1, 2, FR_LINE, 4, 100.0, 101.5, 180.0)
        .command(dice, &[]);
    let ev = ok(&mut b, Action::EndPhase);
    assert_eq!(ev.len(), 5, "{ev:?}"); // the phase change and one combat, on D
    let ev = ok(&mut b, Action::ResolveCharge { target: d });
    // CHG-21, CHG-25: D loses (3 against 2) and its retreat stops at once against DS: DS is
    // suppressed and D stays in base contact with A. No winner's disorder (nobody charged).
    let res = results(&ev);
    let tail: Vec<Event> = res.iter().rev().take(4).rev().cloned().collect();
    let Some(Event::Retreated { distance_cm, .. }) = tail.get(1) else {
        panic!("expected D's retreat: {res:?}");
    };
    assert!(*distance_cm < 0.01);
    assert_eq!(
        tail.first(),
        Some(&Event::Suppressed {
            piece: d,
            player_turn: 1
        })
    );
    assert_eq!(
        tail.get(2..),
        Some(
            &[
                Event::Suppressed {
                    piece: ds,
                    player_turn: 1
                },
                Event::ChargeEnded {
                    target: d,
                    consolidate: vec![a]
                },
            ][..]
        )
    );
    // SEQ-04 (3): A and D had their combat; the Charge phase ends without another.
    let ev = ok(&mut b, Action::EndPhase);
    assert_eq!(
        ev,
        vec![
            Event::PhaseEnded {
                phase: Phase::Charge
            },
            Event::PhaseBegan { phase: Phase::End },
        ]
    );
}

#[test]
fn seq_04_no_contact_no_combat_in_the_charge_phase() {
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 4, 100.0, 101.0, 180.0)
        .command(vec![], &[]);
    let ev = ok(&mut b, Action::EndPhase);
    assert_eq!(ev.len(), 2, "only the phase change: {ev:?}");
    assert!(b.state().charges.combats.is_empty());
}

/// The events with move end points rounded to 0.001 cm (the evade path is found to a
/// tolerance far below a millimetre).
fn rounded(ev: Vec<Event>) -> Vec<Event> {
    let r = |v: f64| (v * 1000.0).round() / 1000.0;
    ev.into_iter()
        .map(|e| match e {
            Event::Moved {
                piece,
                from,
                to,
                path,
                cost_cm,
            } => Event::Moved {
                piece,
                from,
                to: pose(r(to.at.x), r(to.at.y), to.facing_deg),
                path,
                cost_cm: r(cost_cm),
            },
            other => other,
        })
        .collect()
}

/// Dragoons (Napoleonic note 4) dismounted in deployment, then evading on initiative.
fn dismounted_dragoons() -> Battle {
    let sc = new_sc("nap-french", "nap-austrian", 1809)
        .unit(0, 1, "heavy-cavalry-07-12", 3, 100.0, 100.0, 180.0)
        .unit(1, 1, AUS_LINE, 5, 100.0, 88.0, 0.0);
    let mut b = Battle::new(sc.scenario(), lists(), DiceSource::Script(vec![]), 0)
        .expect("the test battle sets up")
        .with_orders(OrdersMode::Free);
    ok(
        &mut b,
        Action::Dismount {
            piece: u(0, 1),
            troop_type: None,
        },
    );
    ok(&mut b, Action::EndPhase);
    assert_eq!(b.state().turn.phase, Phase::Initiative);
    b
}

#[test]
fn init_05_dismounted_cavalry_mount_to_evade_at_half_their_mounted_move() {
    let (a, d) = (u(0, 1), u(1, 1));
    let mut b = dismounted_dragoons();
    let ev = rounded(ok(
        &mut b,
        Action::Evade {
            piece: a,
            facing_deg: Some(0.0),
            mount: true,
        },
    ));
    assert_eq!(
        ev,
        vec![
            Event::Evaded {
                piece: a,
                away_from: d
            },
            Event::ModeChanged {
                piece: a,
                troop_type: powderhorn::model::TroopTypeId::new("heavy-cavalry-07-12"),
                arm: powderhorn::model::Arm::Cavalry,
                stands: 3,
                mounted: true,
            },
            Event::Moved {
                piece: a,
                from: pose(100.0, 100.0, 180.0),
                to: pose(100.0, 115.0, 0.0),
                path: vec![],
                cost_cm: 15.0,
            },
        ]
    );
}

#[test]
fn init_05_dismounted_cavalry_without_mounting_evade_on_foot() {
    let (a, d) = (u(0, 1), u(1, 1));
    let mut b = dismounted_dragoons();
    let ev = rounded(ok(
        &mut b,
        Action::Evade {
            piece: a,
            facing_deg: Some(0.0),
            mount: false,
        },
    ));
    assert_eq!(
        ev,
        vec![
            Event::Evaded {
                piece: a,
                away_from: d
            },
            Event::Moved {
                piece: a,
                from: pose(100.0, 100.0, 180.0),
                to: pose(100.0, 110.0, 0.0),
                path: vec![],
                cost_cm: 10.0,
            },
        ]
    );
    // Formed infantry have no horses to mount.
    let mut b = new_sc("nap-austrian", "nap-french", 1809)
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 180.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 88.0, 0.0)
        .initiative(vec![], &[]);
    refused(
        &mut b,
        Action::Evade {
            piece: a,
            facing_deg: None,
            mount: true,
        },
        "INIT-05",
    );
}
