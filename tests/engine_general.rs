//! General concepts and sequence checks (catalogue GEN-01, GEN-02, GEN-08, GEN-09, INIT-11,
//! INIT-13, FIRE-24), run through `Battle::perform` with scripted dice and exact expectations.

use powderhorn::model::Grade;
use powderhorn::rules::casualty::{
    resolve_attack, Attack, DiceGroup, SaveSituation, TargetProfile,
};
use powderhorn::rules::charge::Response;
use powderhorn::rules::command::{OrderOutcome, OrderedUnit, OrdersMode, UnitActionKind};
use powderhorn::rules::dice::ScriptedDice;
use powderhorn::rules::event::Modifier;
use powderhorn::rules::{Action, Battle, Event, Phase, PieceId};
use serde_json::json;

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{u, Sc, AUS_LINE, FR_LINE};
use refuse::rule_of;

/// Austrians (side 0) against French (side 1), 1809; one brigade HQ each, value 8.
fn new_sc() -> Sc {
    let hq = |id: u32, x: f64, y: f64| {
        json!({
            "id": id, "name": format!("Brigade {id}"),
            "commander": {"id": id, "name": format!("General {id}"), "level": "brigade",
                          "quality": "average", "command_value": 8},
            "mounted": true, "position": {"at": {"x": x, "y": y}, "facing_deg": 0.0}
        })
    };
    Sc::bare("nap-austrian", "nap-french")
        .named("general-test", "General test")
        .year(1809)
        .hq_json(0, hq(1, 100.0, 80.0))
        .hq_json(1, hq(2, 100.0, 160.0))
}

impl Sc {
    /// Side 0's Initiative phase of player turn 1 under `mode`.
    fn initiative(&self, dice: Vec<u8>, mode: OrdersMode) -> Battle {
        self.at_initiative(dice, mode, &[])
    }
}

use builder::hq as h;

fn ou(piece: PieceId, action: UnitActionKind) -> OrderedUnit {
    OrderedUnit {
        piece,
        action,
        target: None,
        road: false,
        dense: false,
    }
}

fn turn(b: &Battle) -> (u32, usize, Phase) {
    let t = b.state().turn;
    (t.player_turn, t.active, t.phase)
}

/// WE-07's table: A (Austrian, 5 stands) facing D (French) 12 cm ahead; S to A's right rear.
fn we_07_table() -> Sc {
    new_sc()
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(0, 2, AUS_LINE, 5, 113.0, 104.5, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 112.0, 180.0)
}

#[test]
fn gen_01_flow_of_play_alternating_player_turns_of_four_phases() {
    let mut b = we_07_table().initiative(vec![], OrdersMode::Full);
    let mut seen = vec![turn(&b)];
    let mut game_turn_ended = None;
    for _ in 0..8 {
        let ev = b
            .perform(Action::EndPhase)
            .expect("the phase ends")
            .to_vec();
        if ev.contains(&Event::GameTurnEnded { game_turn: 1 }) {
            game_turn_ended = Some(seen.len());
        }
        seen.push(turn(&b));
    }
    use Phase::*;
    assert_eq!(
        seen,
        vec![
            (1, 0, Initiative),
            (1, 0, Command),
            (1, 0, Charge),
            (1, 0, End),
            (2, 1, Initiative),
            (2, 1, Command),
            (2, 1, Charge),
            (2, 1, End),
            (3, 0, Initiative),
        ]
    );
    // The game turn ends only with the second player's End phase.
    assert_eq!(game_turn_ended, Some(8));
    assert_eq!(b.state().turn.game_turn, 2);
}

#[test]
fn gen_01_a_failed_command_roll_does_not_hand_the_turn_over() {
    // [6, 5] = 11 > 8: the order fails; still side 0's Command phase.
    let mut b = we_07_table().initiative(vec![6, 5], OrdersMode::Full);
    b.perform(Action::EndPhase).expect("to the Command phase");
    let ev = b
        .perform(Action::IssueOrder {
            command: h(0),
            units: vec![ou(u(0, 1), UnitActionKind::Move)],
        })
        .expect("the order is rolled")
        .to_vec();
    assert!(ev.iter().any(|e| matches!(e, Event::OrderRolled(r)
        if r.total == 11 && r.outcome == OrderOutcome::Failure)));
    assert_eq!(turn(&b), (1, 0, Phase::Command));
    // The phase ends only when the player ends it; then the same player's Charge phase.
    b.perform(Action::EndPhase).expect("the phase ends");
    assert_eq!(turn(&b), (1, 0, Phase::Charge));
}

#[test]
fn gen_09_cmd_04_units_need_an_order_in_the_command_phase() {
    let mut b = we_07_table().initiative(vec![2, 3], OrdersMode::Full);
    b.perform(Action::EndPhase).expect("to the Command phase");
    let to = powderhorn::rules::Pose {
        at: powderhorn::geom::Point::new(100.0, 103.0),
        facing_deg: 0.0,
    };
    let mv = |piece| Action::Move {
        piece,
        via: vec![],
        to,
        manoeuvre: Default::default(),
    };
    assert_eq!(rule_of(b.perform(mv(u(0, 1)))), "CMD-04");
    let ev = b
        .perform(Action::IssueOrder {
            command: h(0),
            units: vec![ou(u(0, 1), UnitActionKind::Move)],
        })
        .expect("the order is rolled")
        .to_vec();
    assert!(ev.iter().any(|e| matches!(e, Event::OrderRolled(r)
        if r.total == 5 && r.outcome == OrderOutcome::Success)));
    // S was not in the order: still refused.
    assert_eq!(rule_of(b.perform(mv(u(0, 2)))), "CMD-04");
    b.perform(mv(u(0, 1))).expect("ordered: the move is legal");
    assert_eq!(b.state().piece(u(0, 1)).and_then(|p| p.pose), Some(to));
}

fn order_units(ev: &[Event]) -> Vec<PieceId> {
    ev.iter()
        .find_map(|e| match e {
            Event::OrderRolled(r) => Some(r.units.iter().map(|o| o.piece).collect()),
            _ => None,
        })
        .unwrap_or_default()
}

#[test]
fn gen_08_order_groups_are_formed_anew_each_turn() {
    // Turn 1: A and S ordered together ([2, 3] = 5 ≤ 8). Turn 2 (player turn 3): S alone, then
    // A alone under a second order ([1, 3], then [2, 3] with the successive-order −1).
    let sc = we_07_table().unit(0, 3, AUS_LINE, 5, 60.0, 100.0, 0.0);
    let mut b = sc.initiative(vec![2, 3, 1, 3, 2, 3], OrdersMode::Full);
    b.perform(Action::EndPhase).expect("to the Command phase");
    let both = vec![
        ou(u(0, 1), UnitActionKind::Deploy),
        ou(u(0, 3), UnitActionKind::Deploy),
    ];
    let ev = b
        .perform(Action::IssueOrder {
            command: h(0),
            units: both,
        })
        .expect("turn 1 order")
        .to_vec();
    // No distance limit between members: A and the far unit (40 cm apart) in one order.
    assert_eq!(order_units(&ev), vec![u(0, 1), u(0, 3)]);
    for _ in 0..8 {
        b.perform(Action::EndPhase)
            .expect("on to side 0's next Command phase");
    }
    assert_eq!(turn(&b), (3, 0, Phase::Command));
    let ev = b
        .perform(Action::IssueOrder {
            command: h(0),
            units: vec![ou(u(0, 3), UnitActionKind::Deploy)],
        })
        .expect("turn 2, first order")
        .to_vec();
    assert_eq!(order_units(&ev), vec![u(0, 3)]);
    let ev = b
        .perform(Action::IssueOrder {
            command: h(0),
            units: vec![
                ou(u(0, 1), UnitActionKind::Deploy),
                ou(u(0, 2), UnitActionKind::Deploy),
            ],
        })
        .expect("turn 2, second order")
        .to_vec();
    assert_eq!(order_units(&ev), vec![u(0, 1), u(0, 2)]);
    // Last turn's group does not carry over: no successive-order penalty (CMD-08 counts
    // orders received this turn); only the distance of the farthest member (CMD-09).
    assert_eq!(
        ev.first(),
        Some(&Event::DiceRolled {
            piece: Some(h(0)),
            purpose: "command roll".into(),
            rule: "CMD-03".into(),
            dice: vec![2, 3],
            modifiers: vec![Modifier {
                rule: "CMD-09".into(),
                label: "farthest unit 23.6 cm away".into(),
                value: -1
            }],
        })
    );
}

#[test]
fn init_13_no_take_backs_once_a_response_is_declared() {
    let (a, d) = (u(0, 1), u(1, 1));
    let mut b = we_07_table().initiative(vec![1, 1, 1, 1, 1, 1], OrdersMode::Full);
    b.perform(Action::Charge {
        chargers: vec![a],
        target: d,
        saber: false,
    })
    .expect("an initiative charge at the nearest visible enemy");
    b.perform(Action::Respond {
        piece: d,
        target: d,
        response: Response::Fire { at: a },
    })
    .expect("D fires back");
    // The engine has no withdraw action: the charge stays pending and the phase cannot end.
    assert_eq!(rule_of(b.perform(Action::EndPhase)), "SEQ-04");
    // The charger has spent its one initiative action on the charge (INIT-01): it cannot
    // turn it into an evade either.
    assert_eq!(
        rule_of(b.perform(Action::Evade {
            piece: a,
            facing_deg: None,
            mount: false,
        })),
        "INIT-01"
    );
    let ev = b
        .perform(Action::CloseResponse { target: d })
        .expect("the response window closes")
        .to_vec();
    assert!(ev.iter().any(|e| matches!(e, Event::ChargeContact { .. })));
}

#[test]
fn init_11_supporting_a_charge_on_initiative() {
    let (a, s, d) = (u(0, 1), u(0, 2), u(1, 1));
    let mut b = we_07_table().initiative(vec![], OrdersMode::Full);
    b.perform(Action::Charge {
        chargers: vec![a],
        target: d,
        saber: false,
    })
    .expect("initiative charge");
    b.perform(Action::CloseResponse { target: d })
        .expect("no responses");
    let ev = b
        .perform(Action::Support {
            piece: s,
            friend: a,
        })
        .expect("S supports A as its initiative action")
        .to_vec();
    // S moves into contact directly behind A (centre to centre) and supports it.
    assert_eq!(
        ev.last(),
        Some(&Event::Supported {
            piece: s,
            friend: a,
            target: d
        })
    );
    assert!(ev.iter().any(|e| matches!(e, Event::UnitActed(act)
        if act.piece == s && act.initiative && act.kind == UnitActionKind::Support)));
    let behind = powderhorn::rules::Pose {
        at: powderhorn::geom::Point::new(100.0, 110.5),
        facing_deg: 0.0,
    };
    assert_eq!(b.state().piece(s).and_then(|p| p.pose), Some(behind));
    // That was S's one initiative action: it may not support again.
    assert_eq!(
        rule_of(b.perform(Action::Support {
            piece: s,
            friend: a
        })),
        "INIT-01"
    );
}

// --- FIRE-24 --------------------------------------------------------------------------------------

fn target(suppressed: bool, grade: Grade) -> TargetProfile {
    TargetProfile {
        piece: u(1, 1),
        save: SaveSituation {
            save: None,
            replacement: None,
            flank_or_rear: false,
            formation: None,
            ranged: true,
        },
        hits_before: 0,
        ko_threshold: 15,
        suppressed,
        suppressed_by_this_order: false,
        grade,
        stays_put: false,
    }
}

fn attack(t: TargetProfile, dice: u32) -> Attack {
    Attack {
        target: t,
        groups: vec![DiceGroup {
            firers: vec![u(0, 1)],
            dice,
            modifiers: vec![],
            needed: 4,
            first_fire: false,
            jams_on_double: false,
            purpose: "to hit".into(),
            rule: "FIRE-14".into(),
        }],
        away_from: Some(u(0, 1)),
        player_turn: 3,
        morale: None,
    }
}

#[test]
fn fire_24_fall_back_test_dice_equal_to_hits() {
    // Already suppressed, 2 hits ([6, 5] at 4+, no save): no new suppression test; the
    // fall-back is [3, 4] = 7 cm.
    let mut dice = ScriptedDice::new(vec![6, 5, 3, 4]).expect("d6");
    let out = resolve_attack(&attack(target(true, Grade::Regular), 2), &mut dice).expect("dice");
    assert_eq!(out.fall_back_cm, Some(7));
    assert!(!out.suppressed);
    let (t, f) = (u(1, 1), u(0, 1));
    assert_eq!(
        out.events[2..],
        [
            Event::HitsTaken {
                piece: t,
                hits: 2,
                total: 2
            },
            Event::DiceRolled {
                piece: Some(t),
                purpose: "fall-back".into(),
                rule: "FIRE-24".into(),
                dice: vec![3, 4],
                modifiers: vec![Modifier {
                    rule: "FIRE-24".into(),
                    label: "1 die per hit taken".into(),
                    value: 2
                }],
            },
            Event::FallBackRequired {
                piece: t,
                distance_cm: 7,
                away_from: Some(f),
                in_place: false
            },
        ]
    );
    // Not suppressed before: the same hits test suppression instead (FIRE-22), no fall-back.
    let mut dice = ScriptedDice::new(vec![6, 5, 3, 4]).expect("d6");
    let out = resolve_attack(&attack(target(false, Grade::Regular), 2), &mut dice).expect("dice");
    assert_eq!(out.fall_back_cm, None);
    assert!(out.suppressed);
    // FIRE-27: a poor unit rolls one die more: [3, 4, 2] = 9 cm.
    let mut dice = ScriptedDice::new(vec![6, 5, 3, 4, 2]).expect("d6");
    let out = resolve_attack(&attack(target(true, Grade::Poor), 2), &mut dice).expect("dice");
    assert_eq!(out.fall_back_cm, Some(9));
}

// --- GEN-02 ---------------------------------------------------------------------------------------

/// The kinds of events, in order (the casualty steps an attack went through).
fn steps(ev: &[Event]) -> Vec<String> {
    ev.iter()
        .map(|e| match e {
            Event::DiceRolled { purpose, rule, .. } => format!("roll {purpose} ({rule})"),
            other => format!("{other:?}")
                .split([' ', '(', '{'])
                .next()
                .unwrap_or_default()
                .to_string(),
        })
        .collect()
}

#[test]
fn gen_02_fire_canister_and_blunder_share_the_casualty_steps() {
    // The same target (save 6, 15 hits), the same dice, three sources: small-arms fire
    // (FIRE-14), canister (ART-04) and a blunder's friendly fire (CMD-19): each goes to hit,
    // saves, hits taken, suppression, in that order.
    let with_save = |t: TargetProfile| TargetProfile {
        save: SaveSituation {
            save: Some(6),
            ..t.save
        },
        ..t
    };
    let mut seen = Vec::new();
    for (purpose, rule) in [
        ("to hit", "FIRE-14"),
        ("canister", "ART-04"),
        ("blunder: to hit", "CMD-19"),
    ] {
        let mut a = attack(with_save(target(false, Grade::Regular)), 3);
        a.groups[0].purpose = purpose.into();
        a.groups[0].rule = rule.into();
        // To hit [6, 5, 1] at 4+: 2 hits; saves [6, 2]: 1 saved; suppression [4]: suppressed.
        let mut dice = ScriptedDice::new(vec![6, 5, 1, 6, 2, 4]).expect("d6");
        let out = resolve_attack(&a, &mut dice).expect("dice");
        assert!(dice.remaining().is_empty());
        assert_eq!((out.raw_hits, out.saved, out.hits), (2, 1, 1), "{rule}");
        assert!(out.suppressed, "{rule}");
        let mut s = steps(&out.events);
        s[0] = s[0].replace(purpose, "*").replace(rule, "*");
        seen.push(s);
    }
    let expected: Vec<String> = [
        "roll * (*)",
        "HitsScored",
        "roll save (FIRE-17)",
        "Saved",
        "HitsTaken",
        "roll suppression (FIRE-22)",
        "Suppressed",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(seen, vec![expected.clone(), expected.clone(), expected]);
}

#[test]
fn gen_02_hits_from_different_attackers_add_up_to_a_knock_out() {
    // 3 stands of Hits 1 (threshold 3): small arms score 2, then canister 1 more: out.
    let t = TargetProfile {
        ko_threshold: 3,
        ..target(false, Grade::Regular)
    };
    let mut dice = ScriptedDice::new(vec![6, 5, 1, 1]).expect("d6");
    let first = resolve_attack(&attack(t.clone(), 2), &mut dice).expect("dice");
    assert_eq!((first.total_hits, first.knocked_out), (2, false));
    let mut second = attack(
        TargetProfile {
            hits_before: first.total_hits,
            ..t
        },
        1,
    );
    second.groups[0].rule = "ART-04".into();
    second.groups[0].purpose = "canister".into();
    let mut dice = ScriptedDice::new(vec![4]).expect("d6");
    let out = resolve_attack(&second, &mut dice).expect("dice");
    assert_eq!((out.total_hits, out.knocked_out), (3, true));
    assert_eq!(
        out.events[2..],
        [
            Event::HitsTaken {
                piece: u(1, 1),
                hits: 1,
                total: 3
            },
            Event::UnitKnockedOut {
                piece: u(1, 1),
                cause: powderhorn::rules::event::KnockOutCause::Hits
            },
        ]
    );
}

// --- BAS ------------------------------------------------------------------------------------------

#[test]
fn bas_02_stands_carry_the_statistics() {
    // Two units of the same row, 5 and 3 stands: the KO threshold is stands × Hits (3 each)
    // and the attack dice stands × Attacks (1 each); figures never count.
    let sc = new_sc()
        .unit(0, 1, AUS_LINE, 5, 60.0, 100.0, 0.0)
        .unit(0, 2, AUS_LINE, 3, 140.0, 100.0, 0.0);
    let b = sc.initiative(vec![], OrdersMode::Free);
    let ctx = b.ctx();
    let ko = |id| {
        let p = ctx.piece(u(0, id)).expect("unit");
        (
            p.stands,
            powderhorn::rules::firing::ko_threshold_of(&ctx, p),
        )
    };
    assert_eq!(ko(1), (5, 15));
    assert_eq!(ko(2), (3, 9));
    let dice = |stands| {
        powderhorn::rules::casualty::fire_dice(&powderhorn::rules::casualty::DiceSituation {
            stands,
            dice_per_stand: 1,
            ..Default::default()
        })
        .dice
    };
    assert_eq!((dice(5), dice(3)), (5, 3));
}

#[test]
fn bas_05_hit_and_suppression_markers_are_unit_state() {
    // A (Austrian line) fires at D 6 cm away; every die a 5: all hit at 4+, no save on 6,
    // the suppression dice suppress. The markers are D's `hits` and `suppressed_at`.
    let sc = new_sc()
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 106.0, 180.0);
    let mut b = sc.initiative(vec![5; 40], OrdersMode::Free);
    b.perform(Action::EndPhase).expect("to the Command phase");
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: None,
        })
        .expect("legal fire")
        .to_vec();
    let total = ev
        .iter()
        .find_map(|e| match e {
            Event::HitsTaken { total, .. } => Some(*total),
            _ => None,
        })
        .expect("hits taken");
    // 5 stands × 1 die, all hitting, none saved.
    assert_eq!(total, 5);
    assert!(ev.contains(&Event::Suppressed {
        piece: u(1, 1),
        player_turn: 1
    }));
    let d = b.state().piece(u(1, 1)).expect("D");
    assert_eq!((d.hits, d.suppressed_at), (total, Some(1)));
}
