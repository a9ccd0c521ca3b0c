//! Engineering (catalogue §2.14 ENG-01..ENG-06) and field defences on the table (§4.1 DEF-04,
//! DEF-05, DEF-06). Each test builds a small scenario (French engineers, side 0, against
//! Austrian works, side 1), drives it through `Battle::perform` with scripted dice, and checks
//! the exact events and what movement, cover and sight make of the table afterwards. Refusals
//! name their rule.

use powderhorn::geom::footprint::ring_polygon;
use powderhorn::geom::Point;
use powderhorn::model::Cover;
use powderhorn::model::DefenseId;
use powderhorn::rules::action::Action;
use powderhorn::rules::api::Decision;
use powderhorn::rules::apply::apply_all;
use powderhorn::rules::battle::resolve;
use powderhorn::rules::command::{OrderedUnit, OrdersMode, UnitActionKind};
use powderhorn::rules::dice::ScriptedDice;
use powderhorn::rules::engineering::{
    check_not_tasked, defence_lines, in_fortifications, EngineerTaskKind, Spans, Work, WorkKind,
};
use powderhorn::rules::event::Modifier;
use powderhorn::rules::firing::target_cover;
use powderhorn::rules::geometry::footprint_of;
use powderhorn::rules::terrain::{Mover, Source, TerrainMap, TroopKind};
use powderhorn::rules::victory::DefenseLossCause;
use powderhorn::rules::{ActionError, Battle, BattleState, Ctx, Event, Phase, PieceId};
use serde_json::json;

#[path = "support/builder.rs"]
mod builder;
use builder::{lists, pt as p, u, Sc};

/// French (side 0) against Austrians (side 1) holding fixed works (none until added), every
/// unit under HQ 1, each side's brigade HQ at (150, 5); 8 turns.
fn new_sc() -> Sc {
    let hq = |name: &str| {
        json!({"id": 1, "name": name, "parent": null,
               "commander": {"id": 1, "name": name, "level": "brigade", "quality": "average",
                             "command_value": 7},
               "position": {"at": {"x": 150.0, "y": 5.0}, "facing_deg": 0.0}})
    };
    Sc::bare("nap-french", "nap-austrian")
        .named("eng-test", "Engineering test")
        .turn_limit(8)
        .posture("fixed")
        .defender(1)
        .side_names("French", "Austrians")
        .hq_json(0, hq("Brigade A"))
        .hq_json(1, hq("Brigade B"))
        .side(1, "field_defenses", json!([]))
}

impl Sc {
    /// Unit `id` has an engineer stand attached.
    fn engineers(self, side: usize, id: u32) -> Sc {
        self.flag(side, id, "engineer_attached")
    }

    /// The battle in side 0's first Initiative phase, orders free (these tests are about the
    /// engineering rules, not the order gate).
    fn battle(&self, dice: Vec<u8>) -> Battle {
        self.battle_in(dice, OrdersMode::Free)
    }

    /// The same under the given orders mode.
    fn battle_in(&self, dice: Vec<u8>, orders: OrdersMode) -> Battle {
        self.at_initiative(dice, orders, &[])
    }
}

fn ctx(b: &Battle) -> Ctx<'_> {
    b.ctx()
}

fn rule_of(e: ActionError) -> &'static str {
    match e {
        ActionError::Rule(r) => r.rule,
        other => panic!("expected a rule refusal, got {other:?}"),
    }
}

/// French engineers (2 stands, front edge at y = 28) facing a 40 cm Austrian wire line on y = 28.
fn wire_scene() -> Sc {
    new_sc()
        .unit_under(0, 1, 1, "engineers", 2, (50.0, 28.0), 0.0)
        .defense_id(1, 1, "wire", &[(30.0, 28.0), (70.0, 28.0)], None)
}

fn task(piece: PieceId, task: EngineerTaskKind, x: f64, y: f64) -> Action {
    Action::EngineerTask {
        piece,
        task,
        at: Point::new(x, y),
    }
}

fn roll(piece: PieceId, purpose: &str, rule: &str, die: u8, needed: i32) -> Event {
    Event::DiceRolled {
        piece: Some(piece),
        purpose: purpose.into(),
        rule: rule.into(),
        dice: vec![die],
        modifiers: vec![Modifier {
            rule: rule.into(),
            label: format!("succeeds on {needed}+"),
            value: needed,
        }],
    }
}

fn close(a: Point, b: Point) -> bool {
    (a.x - b.x).abs() < 1e-6 && (a.y - b.y).abs() < 1e-6
}

#[test]
fn eng_03_clearance_on_3_cuts_a_5_cm_gap_in_the_wire_golden() {
    let sc = wire_scene();
    let mut b = sc.battle(vec![3]);
    let ev = b
        .perform(task(u(0, 1), EngineerTaskKind::Clear, 50.0, 30.0))
        .expect("the engineers clear the wire")
        .to_vec();
    assert_eq!(
        ev,
        vec![
            Event::EngineerTaskTaken {
                piece: u(0, 1),
                task: EngineerTaskKind::Clear,
                player_turn: 1
            },
            roll(u(0, 1), "obstacle clearance", "ENG-03", 3, 3),
            Event::WorkDone {
                work: Work {
                    id: 1,
                    by: u(0, 1),
                    player_turn: 1,
                    confirmed: false,
                    kind: WorkKind::Breach {
                        side: 1,
                        defense: DefenseId(1),
                        at: Point::new(50.0, 28.0),
                        along: Point::new(1.0, 0.0),
                        width_cm: 5.0,
                        cause: DefenseLossCause::Cleared,
                    }
                }
            }
        ]
    );
    // The wire now stands in two runs either side of a 5 cm gap.
    let runs = defence_lines(b.state(), 1, &b.scenario().sides[1].field_defenses[0]);
    assert_eq!(runs.len(), 2);
    assert!(close(*runs[0].last().expect("run"), Point::new(47.5, 28.0)));
    assert!(close(runs[1][0], Point::new(52.5, 28.0)));
    // ENG-02, DEF-06: at the end of the initiative phase it stands and knocks the wire out.
    let ev = b
        .perform(Action::EndPhase)
        .expect("the phase ends")
        .to_vec();
    assert_eq!(
        ev,
        vec![
            Event::WorkConfirmed { work: 1 },
            Event::DefenseKnockedOut {
                side: 1,
                defense: DefenseId(1),
                cause: DefenseLossCause::Cleared
            },
            Event::PhaseEnded {
                phase: Phase::Initiative
            },
            Event::PhaseBegan {
                phase: Phase::Command
            },
        ]
    );
    assert!(b.state().engineering.works[0].confirmed);
    assert_eq!(b.replay_events(), *b.state());
}

#[test]
fn eng_03_clearance_fails_on_2_and_changes_no_ground() {
    let mut b = wire_scene().battle(vec![2]);
    let ev = b
        .perform(task(u(0, 1), EngineerTaskKind::Clear, 50.0, 30.0))
        .expect("the task is legal")
        .to_vec();
    assert_eq!(
        ev,
        vec![
            Event::EngineerTaskTaken {
                piece: u(0, 1),
                task: EngineerTaskKind::Clear,
                player_turn: 1
            },
            roll(u(0, 1), "obstacle clearance", "ENG-03", 2, 3),
            Event::NoEffect {
                piece: u(0, 1),
                rule: "ENG-03".into(),
                reason: "obstacle clearance failed: rolled 2, needed 3+".into()
            }
        ]
    );
    assert!(b.state().engineering.works.is_empty());
    // ENG-02: the initiative action is spent all the same.
    let e = b
        .perform(task(u(0, 1), EngineerTaskKind::Clear, 50.0, 30.0))
        .unwrap_err();
    assert_eq!(rule_of(e), "ENG-02");
}

#[test]
fn eng_03_terr_13_the_cleared_gap_lets_cavalry_through_the_wire() {
    let mut b = wire_scene().battle(vec![6]);
    let gap = ring_polygon(&[
        Point::new(49.0, 27.0),
        Point::new(51.0, 27.0),
        Point::new(51.0, 29.0),
        Point::new(49.0, 29.0),
    ]);
    let horse = Mover {
        kind: TroopKind::Cavalry,
        animals: true,
    };
    let blocks = |b: &Battle| {
        TerrainMap::new(&ctx(b), horse)
            .patches
            .iter()
            .filter(|p| matches!(p.source, Source::Defense { .. }))
            .any(|p| p.shape.meets(&gap))
    };
    assert!(
        blocks(&b),
        "wire is impassable to horses before the clearance"
    );
    b.perform(task(u(0, 1), EngineerTaskKind::Clear, 50.0, 30.0))
        .expect("cleared");
    assert!(!blocks(&b), "the 5 cm gap is clear going");
    let wire_patches = TerrainMap::new(&ctx(&b), horse)
        .patches
        .iter()
        .filter(|p| matches!(p.source, Source::Defense { .. }))
        .count();
    assert_eq!(wire_patches, 2);
}

#[test]
fn eng_05_demolition_on_4_removes_the_breastwork_cover_there() {
    // Austrian line infantry behind breast works; French engineers touch the works' front.
    let sc = new_sc()
        .unit_under(0, 1, 1, "engineers", 2, (50.0, 29.0), 0.0)
        .unit_under(1, 1, 1, "line-infantry-07-15", 2, (50.0, 29.0), 180.0)
        .defense_id(1, 1, "breast_works", &[(30.0, 29.0), (70.0, 29.0)], None);
    let mut b = sc.battle(vec![4]);
    let cover = |b: &Battle| {
        let c = ctx(b);
        let t = c.piece(u(1, 1)).expect("target");
        let tfp = footprint_of(&c, t).expect("on table");
        target_cover(&c, Point::new(50.0, 10.0), t, &tfp).cover
    };
    assert_eq!(cover(&b), Cover::Soft);
    let ev = b
        .perform(task(u(0, 1), EngineerTaskKind::Demolish, 50.0, 29.0))
        .expect("demolition")
        .to_vec();
    assert_eq!(ev[1], roll(u(0, 1), "demolition", "ENG-05", 4, 4));
    assert!(matches!(
        &ev[2],
        Event::WorkDone { work } if matches!(work.kind, WorkKind::Breach { cause: DefenseLossCause::Demolished, .. })
    ));
    assert_eq!(
        cover(&b),
        Cover::Open,
        "the demolished section covers nothing"
    );
    let ev = b.perform(Action::EndPhase).expect("phase ends").to_vec();
    assert!(ev.contains(&Event::DefenseKnockedOut {
        side: 1,
        defense: DefenseId(1),
        cause: DefenseLossCause::Demolished
    }));
}

#[test]
fn eng_05_demolition_fails_on_3() {
    let sc = new_sc()
        .unit_under(0, 1, 1, "engineers", 2, (50.0, 28.0), 0.0)
        .defense_id(1, 1, "log_works", &[(30.0, 28.0), (70.0, 28.0)], None);
    let mut b = sc.battle(vec![3]);
    let ev = b
        .perform(task(u(0, 1), EngineerTaskKind::Demolish, 50.0, 28.0))
        .expect("legal")
        .to_vec();
    assert_eq!(ev.len(), 3);
    assert_eq!(ev[1], roll(u(0, 1), "demolition", "ENG-05", 3, 4));
    assert!(matches!(&ev[2], Event::NoEffect { rule, .. } if rule == "ENG-05"));
}

#[test]
fn eng_02_the_task_is_cancelled_if_the_engineers_are_suppressed_before_the_phase_ends() {
    let mut b = wire_scene().battle(vec![5]);
    b.perform(task(u(0, 1), EngineerTaskKind::Clear, 50.0, 30.0))
        .expect("cleared");
    // Counter-initiative fire (charges) would do this; the state is edited as it would leave it.
    let mut st: BattleState = b.state().clone();
    st.pieces
        .get_mut(&u(0, 1))
        .expect("engineers")
        .suppressed_at = Some(1);
    let c = Ctx {
        scenario: b.scenario(),
        lists: b.lists(),
        state: &st,
        sight: None,
    };
    let mut d = ScriptedDice::new(vec![]).expect("dice");
    let ev = resolve(&c, &Action::EndPhase, &mut d).expect("the phase ends");
    assert_eq!(
        ev,
        vec![
            Event::WorkCancelled {
                work: 1,
                piece: u(0, 1)
            },
            Event::PhaseEnded {
                phase: Phase::Initiative
            },
            Event::PhaseBegan {
                phase: Phase::Command
            },
        ]
    );
    let mut after = st.clone();
    apply_all(&mut after, &ev);
    assert!(after.engineering.works.is_empty());
    assert_eq!(
        defence_lines(&after, 1, &b.scenario().sides[1].field_defenses[0]).len(),
        1,
        "the wire stands whole again"
    );
}

#[test]
fn eng_02_refusals_name_their_rule() {
    // Not an engineer unit (ENG-01).
    let sc = wire_scene().unit_under(0, 2, 1, "line-infantry-08-12", 2, (60.0, 28.0), 0.0);
    let mut b = sc.battle(vec![]);
    let e = b
        .perform(task(u(0, 2), EngineerTaskKind::Clear, 60.0, 30.0))
        .unwrap_err();
    assert_eq!(rule_of(e), "ENG-01");
    // Suppressed engineers (ENG-02): edit the state as fire would leave it.
    let mut st = b.state().clone();
    st.pieces.get_mut(&u(0, 1)).expect("eng").suppressed_at = Some(1);
    let c = Ctx {
        scenario: b.scenario(),
        lists: b.lists(),
        state: &st,
        sight: None,
    };
    let mut d = ScriptedDice::new(vec![6]).expect("dice");
    let e = resolve(
        &c,
        &task(u(0, 1), EngineerTaskKind::Clear, 50.0, 30.0),
        &mut d,
    )
    .unwrap_err();
    assert_eq!(rule_of(e), "ENG-02");
    // Outside the Initiative phase (ENG-02).
    b.perform(Action::EndPhase).expect("to Command");
    let e = b
        .perform(task(u(0, 1), EngineerTaskKind::Clear, 50.0, 30.0))
        .unwrap_err();
    assert_eq!(rule_of(e), "ENG-02");
}

#[test]
fn eng_01_an_attached_engineer_stand_makes_an_engineer_unit_until_it_is_lost() {
    let sc = new_sc()
        .unit_under(0, 2, 1, "line-infantry-08-12", 2, (50.0, 28.0), 0.0)
        .engineers(0, 2)
        .defense_id(1, 1, "stakes", &[(30.0, 28.0), (70.0, 28.0)], None);
    let mut b = sc.battle(vec![3]);
    let mut lost = b.state().clone();
    lost.ledger.engineers_lost.insert(u(0, 2));
    let c = Ctx {
        scenario: b.scenario(),
        lists: b.lists(),
        state: &lost,
        sight: None,
    };
    let mut d = ScriptedDice::new(vec![6]).expect("dice");
    let e = resolve(
        &c,
        &task(u(0, 2), EngineerTaskKind::Clear, 50.0, 28.0),
        &mut d,
    )
    .unwrap_err();
    assert_eq!(rule_of(e), "ENG-01");
    b.perform(task(u(0, 2), EngineerTaskKind::Clear, 50.0, 28.0))
        .expect("the attached stand lets the line battalion clear stakes");
}

#[test]
fn eng_03_refused_out_of_contact_and_for_a_work_that_is_not_an_obstacle() {
    let sc = new_sc()
        .unit_under(0, 1, 1, "engineers", 2, (50.0, 20.0), 0.0)
        .defense_id(1, 1, "wire", &[(30.0, 28.0), (70.0, 28.0)], None)
        .defense_id(1, 2, "breast_works", &[(30.0, 20.0), (70.0, 20.0)], None);
    let mut b = sc.battle(vec![6]);
    let e = b
        .perform(task(u(0, 1), EngineerTaskKind::Clear, 50.0, 28.0))
        .unwrap_err();
    assert_eq!(
        rule_of(e),
        "ENG-03",
        "the wire is 8 cm away; works are not cleared"
    );
    // A section far along the line is not in front of the engineers.
    let e = b
        .perform(task(u(0, 1), EngineerTaskKind::Demolish, 68.0, 20.0))
        .unwrap_err();
    assert_eq!(rule_of(e), "ENG-05");
}

#[test]
fn eng_02_a_tasked_engineer_unit_may_not_be_ordered_this_turn() {
    // Under full orders: the task is the unit's initiative action (INIT-16), and the Command
    // phase's order naming the engineers is refused (ENG-02).
    let mut b = wire_scene().battle_in(vec![1], OrdersMode::Full);
    b.perform(task(u(0, 1), EngineerTaskKind::Clear, 50.0, 30.0))
        .expect("tried");
    let c = ctx(&b);
    let e = check_not_tasked(&c, c.piece(u(0, 1)).expect("eng")).unwrap_err();
    assert_eq!(e.rule, "ENG-02");
    b.perform(Action::EndPhase).expect("to Command");
    let before = b.state().clone();
    let e = b
        .perform(Action::IssueOrder {
            command: PieceId::Hq {
                side: 0,
                hq: powderhorn::model::HqId(1),
            },
            units: vec![OrderedUnit {
                piece: u(0, 1),
                action: UnitActionKind::Deploy,
                target: None,
                road: false,
                dense: false,
            }],
        })
        .unwrap_err();
    assert_eq!(rule_of(e), "ENG-02");
    assert_eq!(b.state(), &before, "a refusal changes nothing");
    // Free orders (command rolled on the table): the action itself is refused.
    let mut b = wire_scene().battle(vec![1]);
    b.perform(task(u(0, 1), EngineerTaskKind::Clear, 50.0, 30.0))
        .expect("tried");
    b.perform(Action::EndPhase).expect("to Command");
    let e = b
        .perform(Action::Deploy {
            piece: u(0, 1),
            formation: powderhorn::rules::Formation::MarchColumn,
        })
        .unwrap_err();
    assert_eq!(rule_of(e), "ENG-02");
}

fn river_scene() -> Sc {
    // A 4 cm river from y = 28 to y = 32; the engineers stand on the south bank.
    new_sc()
        .unit_under(0, 1, 1, "engineers", 2, (50.0, 28.0), 0.0)
        .polygon(
            7,
            "deep_wet",
            &[(0.0, 28.0), (200.0, 28.0), (200.0, 32.0), (0.0, 32.0)],
        )
}

#[test]
fn eng_04_a_pontoon_section_is_5_cm_with_no_roll_and_carries_a_column_across() {
    let mut b = river_scene().battle(vec![]);
    let ev = b
        .perform(task(u(0, 1), EngineerTaskKind::Bridge, 50.0, 40.0))
        .expect("bridging")
        .to_vec();
    assert_eq!(
        ev,
        vec![
            Event::EngineerTaskTaken {
                piece: u(0, 1),
                task: EngineerTaskKind::Bridge,
                player_turn: 1
            },
            Event::WorkDone {
                work: Work {
                    id: 1,
                    by: u(0, 1),
                    player_turn: 1,
                    confirmed: false,
                    kind: WorkKind::Bridge {
                        spans: Spans::Feature {
                            feature: powderhorn::model::FeatureId(7)
                        },
                        from: Point::new(50.0, 28.0),
                        to: Point::new(50.0, 33.0),
                        width_cm: 5.0,
                        hits: 0,
                        destroyed: false,
                    }
                }
            }
        ]
    );
    // Foot find the water cut where the bridge crosses it: a 2.5 cm column fits on it, a 6 cm
    // line does not.
    let map = TerrainMap::new(&ctx(&b), Mover::FOOT);
    let water: Vec<_> = map
        .patches
        .iter()
        .filter(|p| matches!(p.source, Source::Feature(_)))
        .collect();
    let column = ring_polygon(&[
        Point::new(48.75, 27.0),
        Point::new(51.25, 27.0),
        Point::new(51.25, 33.0),
        Point::new(48.75, 33.0),
    ]);
    let line = ring_polygon(&[
        Point::new(47.0, 29.0),
        Point::new(53.0, 29.0),
        Point::new(53.0, 30.5),
        Point::new(47.0, 30.5),
    ]);
    assert!(!water.iter().any(|p| p.shape.meets(&column)));
    assert!(water.iter().any(|p| p.shape.meets(&line)));
}

#[test]
fn eng_04_refused_away_from_water() {
    let sc = new_sc().unit_under(0, 1, 1, "engineers", 2, (50.0, 20.0), 0.0);
    let mut b = sc.battle(vec![]);
    let e = b
        .perform(task(u(0, 1), EngineerTaskKind::Bridge, 50.0, 40.0))
        .unwrap_err();
    assert_eq!(rule_of(e), "ENG-04");
}

#[test]
fn eng_04_bridge_sections_are_hit_only_on_6_by_artillery_and_fall_at_4_hits_with_who_is_on_them() {
    let sc = river_scene()
        // On the far bank, its base reaching back over the section's landing (DATA-12: a
        // battle cannot start with it in the river).
        .unit_under(0, 2, 1, "line-infantry-08-12", 1, (50.0, 32.1), 180.0)
        .unit_under(1, 2, 1, "field-artillery", 2, (50.0, 60.0), 180.0)
        .unit_under(1, 3, 1, "line-infantry-07-15", 2, (70.0, 40.0), 180.0);
    let mut b = sc.battle(vec![6, 6, 6, 5, 6, 6]);
    b.perform(task(u(0, 1), EngineerTaskKind::Bridge, 50.0, 40.0))
        .expect("bridged");
    for _ in 0..4 {
        b.perform(Action::EndPhase).expect("side 0's turn runs out");
    }
    assert_eq!(b.state().turn.active, 1);
    assert!(b.state().engineering.works[0].confirmed);
    // Not on initiative: initiative fire goes at the nearest enemy unit.
    let e = b
        .perform(Action::FireAtBridge {
            firers: vec![u(1, 2)],
            work: 1,
        })
        .unwrap_err();
    assert_eq!(rule_of(e), "INIT-04");
    b.perform(Action::EndPhase).expect("to Command");
    // Only artillery may target a bridge section.
    let e = b
        .perform(Action::FireAtBridge {
            firers: vec![u(1, 3)],
            work: 1,
        })
        .unwrap_err();
    assert_eq!(rule_of(e), "ENG-04");
    let ev = b
        .perform(Action::FireAtBridge {
            firers: vec![u(1, 2)],
            work: 1,
        })
        .expect("the guns fire")
        .to_vec();
    assert_eq!(
        ev,
        vec![
            Event::DiceRolled {
                piece: Some(u(1, 2)),
                purpose: "fire at bridge".into(),
                rule: "ENG-04".into(),
                dice: vec![6, 6],
                modifiers: vec![
                    Modifier {
                        rule: "ENG-04".into(),
                        label: "field-artillery 2: 2 stand(s) × 1".into(),
                        value: 2
                    },
                    Modifier {
                        rule: "ENG-04".into(),
                        label: "a bridge section is hit only on 6, no save".into(),
                        value: 6
                    }
                ]
            },
            Event::BridgeHit {
                work: 1,
                hits: 2,
                total: 2
            }
        ]
    );
    // A 5 does nothing; the 6 makes 3 hits; two more 6s bring the section to 4 hits and down.
    let ev = b
        .perform(Action::FireAtBridge {
            firers: vec![u(1, 2)],
            work: 1,
        })
        .expect("fires again")
        .to_vec();
    assert_eq!(
        ev[1],
        Event::BridgeHit {
            work: 1,
            hits: 1,
            total: 3
        }
    );
    assert_eq!(ev.len(), 2);
    let ev = b
        .perform(Action::FireAtBridge {
            firers: vec![u(1, 2)],
            work: 1,
        })
        .expect("and again")
        .to_vec();
    assert_eq!(
        ev[1..],
        [
            Event::BridgeHit {
                work: 1,
                hits: 2,
                total: 4
            },
            Event::BridgeDestroyed { work: 1 },
            // ENG-04 (c): the battalion crossing on the section goes down with it.
            Event::UnitKnockedOut {
                piece: u(0, 2),
                cause: powderhorn::rules::event::KnockOutCause::FallBackBlocked {
                    rule: "ENG-04".into(),
                    reason: "on a bridge section that was destroyed".into()
                }
            }
        ]
    );
    // A destroyed section carries nobody: the river is whole again for movement.
    let map = TerrainMap::new(&ctx(&b), Mover::FOOT);
    let mid = ring_polygon(&[
        Point::new(49.5, 29.5),
        Point::new(50.5, 29.5),
        Point::new(50.5, 30.5),
        Point::new(49.5, 30.5),
    ]);
    assert!(map.patches.iter().any(|p| p.shape.meets(&mid)));
}

#[test]
fn eng_06_a_sap_grows_5_cm_a_phase_and_is_soft_cover() {
    let sc = new_sc()
        .unit_under(0, 1, 1, "engineers", 2, (50.0, 28.0), 0.0)
        .unit_under(0, 2, 1, "line-infantry-08-12", 1, (80.0, 29.0), 0.0);
    let mut b = sc.battle(vec![]);
    b.perform(task(u(0, 1), EngineerTaskKind::Sap, 50.0, 60.0))
        .expect("sapping");
    let WorkKind::Sap { from, to, .. } = b.state().engineering.works[0].kind.clone() else {
        panic!("a sap");
    };
    assert!(close(from, Point::new(50.0, 28.0)) && close(to, Point::new(50.0, 33.0)));
    // Next turn the sap grows from its head.
    for _ in 0..8 {
        b.perform(Action::EndPhase).expect("phases");
    }
    assert_eq!(b.state().turn.active, 0);
    b.perform(task(u(0, 1), EngineerTaskKind::Sap, 50.0, 60.0))
        .expect("sapping again");
    let WorkKind::Sap { from, to, .. } = b.state().engineering.works[1].kind.clone() else {
        panic!("a sap");
    };
    assert!(close(from, Point::new(50.0, 33.0)) && close(to, Point::new(50.0, 38.0)));
    // A unit whose centre is in the sap is in Soft cover.
    let mut st = b.state().clone();
    st.pieces.get_mut(&u(0, 2)).expect("inf").pose = Some(powderhorn::rules::Pose {
        at: Point::new(50.0, 36.5),
        facing_deg: 0.0,
    });
    let c = Ctx {
        scenario: b.scenario(),
        lists: b.lists(),
        state: &st,
        sight: None,
    };
    let t = c.piece(u(0, 2)).expect("inf");
    let tfp = footprint_of(&c, t).expect("on table");
    let f = target_cover(&c, Point::new(50.0, 90.0), t, &tfp);
    assert_eq!(f.cover, Cover::Soft);
    assert_eq!(f.why, "in a sap trench");
}

#[test]
fn def_04_fortification_covers_from_every_direction_and_is_in_fortifications() {
    let sc = new_sc()
        .unit_under(1, 1, 1, "line-infantry-07-15", 2, (50.0, 29.0), 180.0)
        .unit_under(1, 2, 1, "line-infantry-07-15", 2, (90.0, 29.0), 180.0)
        .defense_id(1, 1, "fortification", &[(30.0, 29.0), (70.0, 29.0)], None)
        .defense_id(1, 2, "breast_works", &[(80.0, 29.0), (100.0, 29.0)], None);
    let b = sc.battle(vec![]);
    let c = ctx(&b);
    let cover_from = |id: PieceId, from: Point| {
        let t = c.piece(id).expect("target");
        let tfp = footprint_of(&c, t).expect("on table");
        target_cover(&c, from, t, &tfp).cover
    };
    // The units face south (180°) with the works along their front edge (y = 29): fire from
    // the south crosses the works, fire from the north comes from behind.
    assert_eq!(cover_from(u(1, 1), Point::new(50.0, 0.0)), Cover::Full);
    assert_eq!(cover_from(u(1, 1), Point::new(50.0, 60.0)), Cover::Full);
    // Breast works cover only against fire crossing them.
    assert_eq!(cover_from(u(1, 2), Point::new(90.0, 0.0)), Cover::Soft);
    assert_eq!(cover_from(u(1, 2), Point::new(90.0, 60.0)), Cover::Open);
    assert!(in_fortifications(&c, c.piece(u(1, 1)).expect("u1")));
    assert!(!in_fortifications(&c, c.piece(u(1, 2)).expect("u2")));
}

#[test]
fn def_04_wire_stakes_and_ditch_are_obstacles_only_no_cover() {
    for kind in ["wire", "stakes", "ditch"] {
        let sc = new_sc()
            .unit_under(1, 1, 1, "line-infantry-07-15", 2, (50.0, 29.0), 180.0)
            .defense_id(1, 1, kind, &[(30.0, 29.0), (70.0, 29.0)], None);
        let b = sc.battle(vec![]);
        let c = ctx(&b);
        let t = c.piece(u(1, 1)).expect("target");
        let tfp = footprint_of(&c, t).expect("on table");
        assert_eq!(
            target_cover(&c, Point::new(50.0, 0.0), t, &tfp).cover,
            Cover::Open,
            "{kind}"
        );
        assert!(TerrainMap::new(&c, Mover::FOOT)
            .patches
            .iter()
            .any(|p| matches!(p.source, Source::Defense { .. })));
    }
}

#[test]
fn def_04_def_06_a_work_the_referee_removed_gives_no_cover_and_blocks_nothing() {
    let sc = new_sc()
        .unit_under(1, 1, 1, "line-infantry-07-15", 2, (50.0, 29.0), 180.0)
        .defense_id(1, 1, "log_works", &[(30.0, 29.0), (70.0, 29.0)], None);
    let mut b = sc.battle(vec![]);
    let cover = |b: &Battle| {
        let c = ctx(b);
        let t = c.piece(u(1, 1)).expect("target");
        let tfp = footprint_of(&c, t).expect("on table");
        target_cover(&c, Point::new(50.0, 0.0), t, &tfp).cover
    };
    assert_eq!(cover(&b), Cover::Hard);
    b.perform(Action::RemoveDefense {
        side: 1,
        defense: DefenseId(1),
        cause: DefenseLossCause::Referee,
    })
    .expect("removed");
    assert_eq!(cover(&b), Cover::Open);
    assert!(!TerrainMap::new(&ctx(&b), Mover::FOOT)
        .patches
        .iter()
        .any(|p| matches!(p.source, Source::Defense { .. })));
}

#[test]
fn def_05_defences_stand_in_the_deployment_area_at_10_cm_a_section() {
    use powderhorn::model::validate::validate_scenario;
    let mut sc = new_sc()
        .unit_under(1, 1, 1, "line-infantry-07-15", 2, (50.0, 90.0), 180.0)
        .defense_id(1, 1, "breast_works", &[(30.0, 90.0), (40.0, 90.0)], None)
        .defense_id(1, 2, "stakes", &[(30.0, 95.0), (52.0, 95.0)], None)
        .defense_id(1, 3, "log_works", &[(30.0, 20.0), (40.0, 20.0)], None)
        .defense_id(1, 4, "trench", &[], None)
        .defense_id(1, 5, "trench", &[], Some(1));
    sc.v["sides"][1]["deployment_zone"] =
        json!([p(0.0, 80.0), p(200.0, 80.0), p(200.0, 120.0), p(0.0, 120.0)]);
    let v = validate_scenario(&sc.scenario(), &lists());
    let def05: Vec<String> = v
        .iter()
        .filter(|x| x.rule == "DEF-05")
        .map(|x| x.message.clone())
        .collect();
    assert_eq!(
        def05,
        vec![
            "Stakes 2 is drawn 22.0 cm long; 1 section(s) of 10 cm reach 10 cm".to_string(),
            "Log Works 3 lies outside its side's deployment area".to_string(),
        ]
    );
}

#[test]
fn eng_01_fire_08_an_attached_engineer_stand_adds_its_dice_and_its_hits() {
    use powderhorn::rules::firing::ko_threshold_of;
    let sc = new_sc()
        .unit_under(0, 2, 1, "line-infantry-08-12", 4, (50.0, 28.0), 0.0)
        .engineers(0, 2)
        .unit_under(1, 1, 1, "line-infantry-07-15", 4, (50.0, 36.0), 180.0);
    let mut b = sc.battle(vec![1; 12]);
    let c = ctx(&b);
    // 4 stands × 3 Hits + the engineer stand's 2 (French Engineers row).
    assert_eq!(ko_threshold_of(&c, c.piece(u(0, 2)).expect("u2")), 14);
    b.perform(Action::EndPhase).expect("to Command");
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(0, 2)],
            target: u(1, 1),
            ammunition: None,
        })
        .expect("fire")
        .to_vec();
    let Some(Event::DiceRolled {
        dice, modifiers, ..
    }) = ev.iter().find(|e| matches!(e, Event::DiceRolled { .. }))
    else {
        panic!("a roll");
    };
    assert_eq!(dice.len(), 4 + 2);
    assert!(modifiers.contains(&Modifier {
        rule: "ENG-01".into(),
        label: "attached engineer stand: 2 dice".into(),
        value: 2
    }));
}

#[test]
fn eng_02_engineer_tasks_and_their_events_round_trip_through_the_battle_file_format() {
    let action: Action = serde_json::from_value(json!({
        "action": "engineer_task", "piece": {"side": 0, "unit": 1}, "task": "clear",
        "at": {"x": 50.0, "y": 30.0}
    }))
    .expect("the documented form parses");
    assert_eq!(action, task(u(0, 1), EngineerTaskKind::Clear, 50.0, 30.0));
    let mut b = river_scene().battle(vec![]);
    b.perform(task(u(0, 1), EngineerTaskKind::Bridge, 50.0, 40.0))
        .expect("bridge");
    b.perform(Action::EndPhase).expect("confirmed");
    let text = serde_json::to_string(b.log()).expect("the log serializes");
    let back: powderhorn::rules::BattleLog = serde_json::from_str(&text).expect("and parses");
    assert_eq!(&back, b.log());
}

// --- ENG-03 / ENG-05 with CHG-24: consolidating through the gap -------------------------------

fn consolidate(piece: PieceId, x: f64, y: f64, facing: f64) -> Action {
    Action::Consolidate {
        piece,
        to: builder::pose(x, y, facing),
    }
}

/// `piece` consolidates from `from` to `to` (x, y, facing): exactly one `Consolidated` event.
fn consolidates(b: &mut Battle, piece: PieceId, from: (f64, f64, f64), to: (f64, f64, f64)) {
    let ev = b
        .perform(consolidate(piece, to.0, to.1, to.2))
        .expect("the consolidation is legal")
        .to_vec();
    assert_eq!(
        ev,
        vec![Event::Consolidated {
            piece,
            from: builder::pose(from.0, from.1, from.2),
            to: builder::pose(to.0, to.1, to.2),
        }]
    );
}

fn gap_decisions(b: &Battle) -> Vec<Decision> {
    b.pending()
        .decisions
        .into_iter()
        .filter(|d| matches!(d, Decision::Consolidate { .. }))
        .collect()
}

#[test]
fn eng_03_chg_24_engineers_consolidate_5_cm_through_the_gap_they_cleared() {
    // The engineers' front edge is on the wire at y = 28, centre x = 50; the 3 clears the
    // section 47.5..52.5. ENG-03 then lets them consolidate up to 5 cm straight ahead (CHG-24):
    // from (50, 28) to (50, 33), through the gap.
    let mut b = wire_scene().battle(vec![3]);
    let e = u(0, 1);
    assert!(gap_decisions(&b).is_empty(), "nothing cleared yet");
    assert!(!b.options(e).expect("options").consolidate);
    b.perform(task(e, EngineerTaskKind::Clear, 50.0, 30.0))
        .expect("cleared");
    // The decisions panel and the unit's options both offer it.
    assert_eq!(
        gap_decisions(&b),
        vec![Decision::Consolidate {
            side: 0,
            piece: e,
            target: None
        }]
    );
    assert!(b.options(e).expect("options").consolidate);
    // More than 5 cm is refused (CHG-24).
    let err = b.perform(consolidate(e, 50.0, 34.0, 0.0)).unwrap_err();
    assert_eq!(rule_of(err), "CHG-24");
    consolidates(&mut b, e, (50.0, 28.0, 0.0), (50.0, 33.0, 0.0));
    // One consolidation per task: the right is spent.
    assert!(gap_decisions(&b).is_empty());
    assert!(!b.options(e).expect("options").consolidate);
    let err = b.perform(consolidate(e, 50.0, 34.0, 0.0)).unwrap_err();
    assert_eq!(rule_of(err), "CHG-24");
    // The log replays to the same state, the used right included.
    assert_eq!(b.replay_events(), *b.state());
}

#[test]
fn eng_03_chg_24_no_consolidation_across_wire_still_standing_nor_after_the_phase() {
    // Cleared at x = 46 (section 43.5..48.5, touching their left): the engineers' straight path at x = 50 meets
    // the wire still standing, so the consolidation stops there (CHG-24 ruling): refused.
    let mut b = wire_scene().battle(vec![4]);
    let e = u(0, 1);
    let ev = b
        .perform(task(e, EngineerTaskKind::Clear, 46.0, 30.0))
        .expect("cleared")
        .to_vec();
    assert!(matches!(
        &ev[2],
        Event::WorkDone { work } if matches!(work.kind, WorkKind::Breach { at, .. } if close(at, Point::new(46.0, 28.0)))
    ));
    let err = b.perform(consolidate(e, 50.0, 33.0, 0.0)).unwrap_err();
    let text = err.to_string().to_lowercase();
    assert!(text.contains("wire in the way"), "{text}");
    assert_eq!(rule_of(err), "CHG-24");
    // Standing still is a legal (empty) consolidation; the right lapses with the phase.
    b.perform(Action::EndPhase).expect("to the Command phase");
    assert!(gap_decisions(&b).is_empty());
    let err = b.perform(consolidate(e, 50.0, 28.0, 0.0)).unwrap_err();
    assert_eq!(rule_of(err), "CHG-24");
}

#[test]
fn eng_03_chg_24_a_failed_clearance_gives_no_consolidation() {
    let mut b = wire_scene().battle(vec![2]);
    let e = u(0, 1);
    b.perform(task(e, EngineerTaskKind::Clear, 50.0, 30.0))
        .expect("legal");
    assert!(gap_decisions(&b).is_empty());
    let err = b.perform(consolidate(e, 50.0, 30.0, 0.0)).unwrap_err();
    assert_eq!(rule_of(err), "CHG-24");
}

#[test]
fn eng_05_chg_24_engineers_consolidate_through_the_works_they_demolished() {
    // Log works on y = 28 across the engineers' front; the 4 demolishes 47.5..52.5 and they
    // move 5 cm through it, turning to face 10° on the way (CHG-24 lets them change facing).
    let sc = new_sc()
        .unit_under(0, 1, 1, "engineers", 2, (50.0, 28.0), 0.0)
        .defense_id(1, 1, "log_works", &[(30.0, 28.0), (70.0, 28.0)], None);
    let mut b = sc.battle(vec![4]);
    let e = u(0, 1);
    b.perform(task(e, EngineerTaskKind::Demolish, 50.0, 28.0))
        .expect("demolished");
    consolidates(&mut b, e, (50.0, 28.0, 0.0), (50.0, 33.0, 10.0));
}
