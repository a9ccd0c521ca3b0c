//! Referee adjustments (`Action::Adjust`, `src/rules/referee.rs`, issue 16 item 5): the referee
//! sets a piece's hits, suppression, disorder, stands, formation, limber or pose, in any phase
//! until the battle is over, with one `adjusted` event carrying the values before and after;
//! nonsense is refused with the rule it breaks and changes nothing. Also the placement point
//! of docs/scenario-format.md: a pose is the centre of the formation's front edge.
//!
//! Expected values are worked out by hand from the catalogue (GEN-11, GEN-12, FIRE-22, FIRE-28,
//! MOVE-09, MOVE-16, MOVE-20, SEQ-01, BAS-03 base sizes) and the scenario below.

use powderhorn::geom::Point;
use powderhorn::model::{HqId, Scenario};
use powderhorn::rules::event::KnockOutCause;
use powderhorn::rules::file::{action_summary, parse_battle_file};
use powderhorn::rules::geometry::footprint_of;
use powderhorn::rules::referee::{Adjustment, Condition};
use powderhorn::rules::{Action, Battle, DiceSource, Event, Formation, Phase, PieceId, Pose};
use serde_json::{json, Value};

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{hq_value, lists, pose, u, Sc};

fn place(x: f64, y: f64, facing: f64) -> Value {
    json!({"at": {"x": x, "y": y}, "facing_deg": facing})
}

/// French (side 0): u1 line infantry of 5 stands at (50, 40) facing 0, u2 heavy cavalry of 4
/// stands at (100, 40), u3 a field-artillery gun at (150, 40), u4 line infantry of 4 stands off
/// the table; Austrians (side 1): u1 line infantry of 5 stands at (50, 120) facing 180. Each
/// side has one brigade HQ. The table is 240 × 180 cm (the default).
fn scenario() -> Scenario {
    let (fr, aus) = ("line-infantry-08-12", "line-infantry-07-15");
    Sc::bare("nap-french", "nap-austrian")
        .named("referee-test", "Referee test")
        .side_names("French", "Austrians")
        .hq_json(0, hq_value(1, "Brigade Roguet", 7, place(120.0, 10.0, 0.0)))
        .named_unit(0, 1, "4e de ligne", fr, 5, 1, place(50.0, 40.0, 0.0))
        .named_unit(
            0,
            2,
            "9e cuirassiers",
            "heavy-cavalry-07-12",
            4,
            1,
            place(100.0, 40.0, 0.0),
        )
        .named_unit(
            0,
            3,
            "Batterie Lebrun",
            "field-artillery",
            1,
            1,
            place(150.0, 40.0, 0.0),
        )
        .named_unit(0, 4, "46e de ligne", fr, 4, 1, Value::Null)
        .hq_json(
            1,
            hq_value(1, "Brigade Bianchi", 7, place(120.0, 170.0, 180.0)),
        )
        .named_unit(1, 1, "IR 14 Klebek", aus, 5, 1, place(50.0, 120.0, 180.0))
        .scenario()
}

/// The battle at deployment (full orders, the default), the French first, no dice.
fn deploying() -> Battle {
    Battle::new(scenario(), lists(), DiceSource::Script(vec![]), 0).expect("the battle sets up")
}

/// The battle in the French first Initiative phase (player turn 1).
fn in_play() -> Battle {
    let mut b = deploying();
    b.perform(Action::EndPhase).expect("deployment ends");
    b
}

fn adjust(piece: PieceId, set: Adjustment) -> Action {
    Action::Adjust { piece, set }
}

/// A line battalion of the scenario as it starts: at its place, in line, no hits or markers.
fn fresh(at: Pose, stands: u8) -> Condition {
    Condition {
        pose: Some(at),
        formation: Some(Formation::Line),
        limbered: false,
        stands,
        hits: 0,
        suppressed_at: None,
        disordered_until: None,
    }
}

/// Performs an adjustment that must be legal; its events.
fn adjusted(b: &mut Battle, piece: PieceId, set: Adjustment) -> Vec<Event> {
    let used = b.log().entries.iter().map(|e| e.dice_used).sum::<usize>();
    let ev = match b.perform(adjust(piece, set)) {
        Ok(ev) => ev.to_vec(),
        Err(e) => panic!("expected a legal adjustment, got {e}"),
    };
    assert_eq!(
        b.log().entries.iter().map(|e| e.dice_used).sum::<usize>(),
        used,
        "an adjustment rolls no dice"
    );
    assert_eq!(
        &b.replay_events(),
        b.state(),
        "folding the events gives the state"
    );
    ev
}

/// Asserts that the engine refuses the adjustment under `rule` (a rule, not an unsupported
/// feature) and that nothing changed.
fn refused(b: &mut Battle, piece: PieceId, set: Adjustment, rule: &str) -> String {
    refuse::refused(b, adjust(piece, set), rule)
}

// --- what an adjustment sets ----------------------------------------------------------------------

#[test]
fn gen_12_gen_11_adjust_sets_hits_suppression_and_stands_in_one_event_that_end_01_then_reads() {
    let mut b = in_play();
    let at = pose(50.0, 40.0, 0.0);
    let ev = adjusted(
        &mut b,
        u(0, 1),
        Adjustment {
            hits: Some(4),
            suppressed: Some(true),
            stands: Some(3),
            ..Default::default()
        },
    );
    // The marker is placed in the current player turn, 1 (FIRE-22).
    let to = Condition {
        stands: 3,
        hits: 4,
        suppressed_at: Some(1),
        ..fresh(at, 5)
    };
    assert_eq!(
        ev,
        vec![Event::Adjusted {
            piece: u(0, 1),
            from: fresh(at, 5),
            to,
        }]
    );
    let p = b.state().piece(u(0, 1)).expect("u1");
    assert_eq!((p.stands, p.hits, p.suppressed_at), (3, 4, Some(1)));
    // Three stands in line: 7.5 cm of front centred on the pose, 1.5 cm deep behind it.
    let fp = footprint_of(&b.ctx(), p).expect("on the table");
    assert_eq!(fp.stands.len(), 3);
    let (xs, ys): (Vec<f64>, Vec<f64>) = fp
        .stands
        .iter()
        .flat_map(|s| s.corners())
        .map(|c| (c.x, c.y))
        .unzip();
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert!((min(&xs) - 46.25).abs() < 1e-9 && (max(&xs) - 53.75).abs() < 1e-9);
    assert!((min(&ys) - 38.5).abs() < 1e-9 && (max(&ys) - 40.0).abs() < 1e-9);
    // END-01 (GEN-11): at the End phase the 4 hits on Hits-3 stands destroy floor(4 / 3) = 1
    // stand: 3 → 2, the remainder discarded.
    let mut end = Vec::new();
    for _ in 0..4 {
        end = b
            .perform(Action::EndPhase)
            .expect("the phase ends")
            .to_vec();
    }
    assert_eq!(
        end[..2],
        [
            Event::StandsLost {
                piece: u(0, 1),
                hits: 4,
                stands_lost: 1,
                stands_left: 2,
                engineer_lost: false,
            },
            Event::HitsCleared {
                piece: u(0, 1),
                hits: 4
            },
        ]
    );
    // The log replays action for action to the same events.
    let mut again = deploying();
    for e in b.log().entries.clone() {
        assert_eq!(again.perform(e.action).map(<[Event]>::to_vec), Ok(e.events));
    }
    assert_eq!(again.state(), b.state());
}

#[test]
fn gen_12_seq_01_adjust_during_deployment_places_a_reserve_and_re_forms_a_unit() {
    let mut b = deploying();
    assert_eq!(b.state().turn.phase, Phase::Deployment);
    // The reserve battalion u4 (off the table) is placed: a scenario that starts mid-battle.
    let ev = adjusted(
        &mut b,
        u(0, 4),
        Adjustment {
            pose: Some(pose(80.0, 60.0, 90.0)),
            ..Default::default()
        },
    );
    let off = Condition {
        pose: None,
        ..fresh(pose(0.0, 0.0, 0.0), 4)
    };
    assert_eq!(
        ev,
        vec![Event::Adjusted {
            piece: u(0, 4),
            from: off,
            to: Condition {
                pose: Some(pose(80.0, 60.0, 90.0)),
                ..off
            },
        }]
    );
    // u1 into march column and turned round, in one adjustment.
    let ev = adjusted(
        &mut b,
        u(0, 1),
        Adjustment {
            formation: Some(Formation::MarchColumn),
            pose: Some(pose(60.0, 30.0, 180.0)),
            ..Default::default()
        },
    );
    assert_eq!(
        ev,
        vec![Event::Adjusted {
            piece: u(0, 1),
            from: fresh(pose(50.0, 40.0, 0.0), 5),
            to: Condition {
                formation: Some(Formation::MarchColumn),
                ..fresh(pose(60.0, 30.0, 180.0), 5)
            },
        }]
    );
    let p = b.state().piece(u(0, 1)).expect("u1");
    assert_eq!(p.formation, Some(Formation::MarchColumn));
    assert_eq!(p.pose, Some(pose(60.0, 30.0, 180.0)));
}

#[test]
fn fire_28_adjust_disorders_until_the_next_player_turns_initiative_and_lifts_it() {
    let mut b = in_play();
    // Player turn 1: disordered until the end of player turn 2's Initiative phase, as a charge
    // would leave it (FIRE-28); the formation is left alone.
    let ev = adjusted(
        &mut b,
        u(1, 1),
        Adjustment {
            disordered: Some(true),
            ..Default::default()
        },
    );
    let at = pose(50.0, 120.0, 180.0);
    assert_eq!(
        ev,
        vec![Event::Adjusted {
            piece: u(1, 1),
            from: fresh(at, 5),
            to: Condition {
                disordered_until: Some(2),
                ..fresh(at, 5)
            },
        }]
    );
    assert_eq!(
        b.state().piece(u(1, 1)).map(|p| p.formation),
        Some(Some(Formation::Line))
    );
    let ev = adjusted(
        &mut b,
        u(1, 1),
        Adjustment {
            disordered: Some(false),
            ..Default::default()
        },
    );
    assert_eq!(
        ev,
        vec![Event::Adjusted {
            piece: u(1, 1),
            from: Condition {
                disordered_until: Some(2),
                ..fresh(at, 5)
            },
            to: fresh(at, 5),
        }]
    );
}

#[test]
fn move_20_adjust_limbers_a_gun_and_an_inactive_unit_needs_no_order() {
    let mut b = in_play();
    // Full orders, the French Initiative phase: the Austrian gun-less battalion and the French
    // gun are both adjusted without any order or initiative.
    let ev = adjusted(
        &mut b,
        u(0, 3),
        Adjustment {
            limbered: Some(true),
            ..Default::default()
        },
    );
    let gun = Condition {
        pose: Some(pose(150.0, 40.0, 0.0)),
        formation: None,
        limbered: false,
        stands: 1,
        hits: 0,
        suppressed_at: None,
        disordered_until: None,
    };
    assert_eq!(
        ev,
        vec![Event::Adjusted {
            piece: u(0, 3),
            from: gun,
            to: Condition {
                limbered: true,
                ..gun
            },
        }]
    );
    assert!(b.state().piece(u(0, 3)).is_some_and(|p| p.limbered));
    adjusted(
        &mut b,
        u(1, 1),
        Adjustment {
            hits: Some(2),
            ..Default::default()
        },
    );
    assert_eq!(b.state().piece(u(1, 1)).map(|p| p.hits), Some(2));
}

// --- what an adjustment refuses -------------------------------------------------------------------

#[test]
fn gen_12_adjust_refuses_a_knocked_out_unknown_or_empty_adjustment() {
    let mut b = in_play();
    let hits = Adjustment {
        hits: Some(1),
        ..Default::default()
    };
    refused(&mut b, u(0, 9), hits, "GEN-09");
    refused(&mut b, u(0, 1), Adjustment::default(), "GEN-12");
    b.perform(Action::RemoveUnit {
        piece: u(0, 2),
        cause: KnockOutCause::Referee,
    })
    .expect("removed");
    let m = refused(&mut b, u(0, 2), hits, "GEN-12");
    assert!(m.contains("9e cuirassiers"), "{m}");
}

#[test]
fn gen_11_gen_12_adjust_refuses_no_stands_more_than_the_start_and_knock_out_hits() {
    let mut b = in_play();
    let stands = |n: u8| Adjustment {
        stands: Some(n),
        ..Default::default()
    };
    let hits = |n: u32| Adjustment {
        hits: Some(n),
        ..Default::default()
    };
    refused(&mut b, u(0, 1), stands(0), "GEN-12");
    let m = refused(&mut b, u(0, 1), stands(6), "GEN-11");
    assert!(m.contains("5 stand"), "{m}");
    // GEN-12: 5 stands of Hits 3 are knocked out at 15 hits; 14 stand.
    refused(&mut b, u(0, 1), hits(15), "GEN-12");
    adjusted(&mut b, u(0, 1), hits(14));
    // With the stands cut to 4 the threshold is 12: the 14 hits already on it would knock it out.
    refused(&mut b, u(0, 1), stands(4), "GEN-12");
    adjusted(
        &mut b,
        u(0, 1),
        Adjustment {
            stands: Some(4),
            hits: Some(11),
            ..Default::default()
        },
    );
    // A command unit has its one stand.
    let hq = PieceId::Hq {
        side: 0,
        hq: HqId(1),
    };
    refused(&mut b, hq, stands(2), "GEN-11");
}

#[test]
fn move_09_move_16_move_20_adjust_refuses_formations_and_limbers_a_unit_cannot_have() {
    let mut b = in_play();
    let formation = |f: Formation| Adjustment {
        formation: Some(f),
        ..Default::default()
    };
    refused(&mut b, u(0, 3), formation(Formation::Line), "MOVE-09");
    refused(&mut b, u(0, 2), formation(Formation::Square), "MOVE-16");
    refused(
        &mut b,
        u(0, 1),
        Adjustment {
            limbered: Some(true),
            ..Default::default()
        },
        "MOVE-20",
    );
    // Infantry may stand in square (Napoleonic, 1809 or undated).
    adjusted(&mut b, u(0, 1), formation(Formation::Square));
}

#[test]
fn seq_01_end_03_adjust_refuses_a_place_off_the_table_and_a_finished_battle() {
    let mut b = in_play();
    let at = |x: f64, y: f64, f: f64| Adjustment {
        pose: Some(pose(x, y, f)),
        ..Default::default()
    };
    // A 5-stand line is 12.5 cm wide: centred at x = 5 its left end would be at −1.25.
    refused(&mut b, u(0, 1), at(5.0, 40.0, 0.0), "SEQ-01");
    // Facing 0 the stands lie 1.5 cm behind (towards −y) the front at y = 1.
    refused(&mut b, u(0, 1), at(50.0, 1.0, 0.0), "SEQ-01");
    refused(&mut b, u(0, 1), at(f64::NAN, 40.0, 0.0), "SEQ-01");
    // Exactly on the edges is on the table: x 0–12.5, y 0–1.5.
    adjusted(&mut b, u(0, 1), at(6.25, 1.5, 0.0));
    b.perform(Action::Concede { side: 1 }).expect("conceded");
    refused(&mut b, u(0, 1), at(50.0, 40.0, 0.0), "END-03");
}

// --- the placement point (docs/scenario-format.md `Placement`) ----------------------------------

#[test]
fn seq_01_a_placement_is_the_centre_of_the_formations_front_edge_not_of_the_footprint() {
    let mut b = deploying();
    let bounds = |b: &Battle, piece: PieceId| {
        let p = b.state().piece(piece).expect("piece");
        let fp = footprint_of(&b.ctx(), p).expect("on the table");
        let cs: Vec<Point> = fp.stands.iter().flat_map(|s| s.corners()).collect();
        let lo = |f: fn(&Point) -> f64| cs.iter().map(f).fold(f64::INFINITY, f64::min);
        let hi = |f: fn(&Point) -> f64| cs.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        (lo(|c| c.x), hi(|c| c.x), lo(|c| c.y), hi(|c| c.y))
    };
    let close = |got: (f64, f64, f64, f64), want: (f64, f64, f64, f64)| {
        let d = [
            got.0 - want.0,
            got.1 - want.1,
            got.2 - want.2,
            got.3 - want.3,
        ];
        assert!(d.iter().all(|d| d.abs() < 1e-9), "{got:?} != {want:?}");
    };
    // The scenario places u1, 5 infantry stands (2.5 × 1.5 cm) in line, at (50, 40) facing +y:
    // front x 43.75–56.25 along y = 40, the stands behind it down to y = 38.5. The centre of
    // the footprint would be (50, 39.25).
    close(bounds(&b, u(0, 1)), (43.75, 56.25, 38.5, 40.0));
    // The Austrians at (50, 120) facing −y: front along y = 120, stands behind up to 121.5.
    close(bounds(&b, u(1, 1)), (43.75, 56.25, 120.0, 121.5));
    // The 4 cavalry stands (3.5 × 2.0 cm) at (100, 40): x 93–107, y 38–40.
    close(bounds(&b, u(0, 2)), (93.0, 107.0, 38.0, 40.0));
    // The same point for an adjustment's pose, in march column: 5 stands one behind the other
    // from the head's front at (60, 30), facing +x (90°): x 22.5 cm back to 52.5, y 28.75–31.25.
    adjusted(
        &mut b,
        u(0, 1),
        Adjustment {
            formation: Some(Formation::MarchColumn),
            pose: Some(pose(60.0, 30.0, 90.0)),
            ..Default::default()
        },
    );
    close(bounds(&b, u(0, 1)), (52.5, 60.0, 28.75, 31.25));
    let p = b.state().piece(u(0, 1)).expect("u1");
    let fp = footprint_of(&b.ctx(), p).expect("on the table");
    let front = fp.front_edges().first().expect("a front").midpoint();
    assert!((front.x - 60.0).abs() < 1e-9 && (front.y - 30.0).abs() < 1e-9);
}

// --- the battle file -----------------------------------------------------------------------------

#[test]
fn gen_12_adjust_reads_from_a_battle_file_and_is_summarised() {
    let text = r#"{"format": 1, "scenario": "s.json", "dice": {"seed": 1}, "actions": [
        {"action": "adjust", "piece": {"side": 0, "unit": 1}, "hits": 2, "suppressed": true,
         "pose": {"at": {"x": 70.0, "y": 45.0}, "facing_deg": 10.0}, "formation": "attack_column"},
        {"action": "adjust", "piece": {"side": 1, "hq": 1}, "disordered": false}
    ]}"#;
    let f = parse_battle_file("b.json", text).expect("parses");
    let first = adjust(
        u(0, 1),
        Adjustment {
            hits: Some(2),
            suppressed: Some(true),
            formation: Some(Formation::AttackColumn),
            pose: Some(pose(70.0, 45.0, 10.0)),
            ..Default::default()
        },
    );
    assert_eq!(f.actions[0], first);
    assert_eq!(action_summary(&f.actions[0]), "adjust 0:u1");
    assert_eq!(action_summary(&f.actions[1]), "adjust 1:hq1");
    assert_eq!(first.piece(), Some(u(0, 1)));
    // Written back, only the fields set appear.
    let v = serde_json::to_value(&first).expect("serializes");
    assert_eq!(
        v,
        json!({"action": "adjust", "piece": {"side": 0, "unit": 1}, "hits": 2,
               "suppressed": true, "formation": "attack_column",
               "pose": {"at": {"x": 70.0, "y": 45.0}, "facing_deg": 10.0}})
    );
    let bad = r#"{"format": 1, "scenario": "s.json", "dice": {"seed": 1}, "actions": [
        {"action": "adjust", "piece": {"side": 0, "unit": 1}, "stands": -1}]}"#;
    assert!(parse_battle_file("b.json", bad).is_err());
}
