//! Brigade skirmishers (catalogue §2.12 SKIR-01..SKIR-04), the artillery extras of §2.10
//! (ART-06 regimental guns, ART-10 FAO and grand batteries, COL-03 guns that never move) and
//! the per-list special rules of §5 that the engine applies (each test named after its list
//! and note, e.g. `acw_16_…`). `docs/special-rules.md` is the audit of every note; the last
//! test here checks that every test it names exists.

use powderhorn::geom::Point;
use powderhorn::model::army::shipped_lists;
use powderhorn::model::{ArmyList, HqId, Scenario, UnitId};
use powderhorn::rules::action::Action;
use powderhorn::rules::event::Modifier;
use powderhorn::rules::skirmish::{screen_deployed, screen_pool, screen_stands, stands_left};
use powderhorn::rules::{ActionError, Battle, Ctx, DiceSource, Event, Formation, Phase, PieceId};
use serde_json::{json, Value};

fn lists() -> Vec<ArmyList> {
    shipped_lists().expect("the shipped army lists parse")
}

struct Sc {
    v: Value,
}

impl Sc {
    fn new(list0: &str, list1: &str) -> Sc {
        let hq = |id: u32, level: &str| {
            json!({"id": id, "name": format!("{level} {id}"), "parent": null,
                   "commander": {"id": id, "name": format!("General {id}"), "level": level,
                                 "quality": "average", "command_value": 7},
                   "position": {"at": {"x": 150.0 + f64::from(id), "y": 5.0}, "facing_deg": 0.0}})
        };
        Sc {
            v: json!({
                "format": 1, "id": "special-test", "name": "Special rules test",
                "points": 1500, "turn_limit": 8, "terrain": [], "year": 1809,
                "sides": [
                    {"name": "Blue", "army_list": list0,
                     "hqs": [hq(1, "brigade"), hq(2, "division")], "units": []},
                    {"name": "Red", "army_list": list1,
                     "hqs": [hq(1, "brigade"), hq(2, "division")], "units": []}
                ]
            }),
        }
    }

    fn year(mut self, y: u16) -> Sc {
        self.v["year"] = json!(y);
        self
    }

    #[allow(clippy::too_many_arguments)]
    fn unit(
        mut self,
        side: usize,
        id: u32,
        troop: &str,
        stands: u8,
        hq: u32,
        at: (f64, f64),
        facing: f64,
    ) -> Sc {
        let u = json!({"id": id, "name": format!("{troop} {id}"), "troop_type": troop,
                       "stands": stands, "hq": hq,
                       "position": {"at": {"x": at.0, "y": at.1}, "facing_deg": facing}});
        self.v["sides"][side]["units"]
            .as_array_mut()
            .expect("units")
            .push(u);
        self
    }

    fn flag(mut self, side: usize, id: u32, field: &str) -> Sc {
        for u in self.v["sides"][side]["units"]
            .as_array_mut()
            .expect("units")
        {
            if u["id"] == json!(id) {
                u[field] = json!(true);
            }
        }
        self
    }

    fn scenario(&self) -> Scenario {
        serde_json::from_value(self.v.clone()).expect("the test scenario parses")
    }

    /// The battle in side `first`'s first Initiative phase.
    fn battle(&self, dice: Vec<u8>, first: usize) -> Battle {
        let mut b = Battle::new(self.scenario(), lists(), DiceSource::Script(dice), first)
            .expect("the test battle sets up");
        b.perform(Action::EndPhase).expect("deployment ends");
        b
    }
}

fn u(side: usize, id: u32) -> PieceId {
    PieceId::Unit {
        side,
        unit: UnitId(id),
    }
}

fn rule_of(e: ActionError) -> String {
    match e {
        ActionError::Rule(r) => r.rule.to_string(),
        ActionError::Unsupported { rule, .. } => rule.to_string(),
        other => panic!("expected a rule refusal, got {other:?}"),
    }
}

fn mods(ev: &Event) -> Vec<Modifier> {
    match ev {
        Event::DiceRolled { modifiers, .. } => modifiers.clone(),
        _ => Vec::new(),
    }
}

// --- SKIR ---------------------------------------------------------------------------------------

/// A French brigade of `n` line battalions (4 stands, front edges on y = 28, facing +y) under
/// brigade HQ 1, the first flagged for its skirmishers; Austrian battalions 8 cm in front.
fn brigade(n: u32) -> Sc {
    let mut sc = Sc::new("nap-french", "nap-austrian");
    for i in 0..n {
        sc = sc.unit(
            0,
            i + 1,
            "line-infantry-08-12",
            4,
            1,
            (50.0 + 15.0 * f64::from(i), 28.0),
            0.0,
        );
    }
    sc.flag(0, 1, "brigade_skirmishers")
        .unit(1, 1, "line-infantry-07-15", 4, 1, (50.0, 36.0), 180.0)
        .unit(1, 2, "line-infantry-07-15", 4, 1, (58.0, 36.0), 180.0)
}

#[test]
fn skir_01_two_stands_for_every_three_infantry_units_of_the_brigade() {
    for (n, want) in [(2, 0), (3, 2), (5, 2), (6, 4)] {
        let b = brigade(n).battle(vec![], 0);
        assert_eq!(screen_stands(&b.ctx(), 0, HqId(1)), want, "{n} units");
    }
    // Not before 1761, not without the scenario's flag, and only under a brigade HQ.
    let b = brigade(3).year(1760).battle(vec![], 0);
    assert_eq!(screen_stands(&b.ctx(), 0, HqId(1)), 0);
    let mut sc = brigade(3);
    sc.v["sides"][0]["units"][0]["brigade_skirmishers"] = json!(false);
    assert_eq!(screen_stands(&sc.battle(vec![], 0).ctx(), 0, HqId(1)), 0);
    let b = brigade(3).battle(vec![], 0);
    assert_eq!(screen_stands(&b.ctx(), 0, HqId(2)), 0);
    // SKIR-03 (b): each stand absorbs the Skirmishing Infantry row's Hits (2).
    assert_eq!(screen_pool(&b.ctx(), 0, HqId(1)), 4);
    assert!(screen_deployed(&b.ctx(), 0, HqId(1)));
}

#[test]
fn skir_03_one_die_less_and_the_screen_takes_the_hits_first_golden() {
    // Austrians (side 1) fire in their Command phase at French battalion 1.
    let dice = vec![
        4, 5, 6, // unit 1's 3 dice (4 stands − 1 for the screen) hit on 4+
        1, 1, 1, 1, // French save: 3 hits + 1 line die, save 6: none saved
        6, 6, 6, // unit 2's 3 dice
        1, 1, 1, 1, // no saves
        1, 1, // suppression dice for the 2 hits that got through
    ];
    let mut b = brigade(3).battle(dice, 1);
    b.perform(Action::EndPhase).expect("to Command");
    assert_eq!(b.state().turn.phase, Phase::Command);
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(1, 1)],
            target: u(0, 1),
            ammunition: None,
        })
        .expect("the Austrians fire")
        .to_vec();
    let dice_mods = mods(&ev[1]);
    assert!(dice_mods.contains(&Modifier {
        rule: "SKIR-03".into(),
        label: "target screened by skirmishers".into(),
        value: -1
    }));
    assert!(matches!(&ev[1], Event::DiceRolled { dice, .. } if dice.len() == 3));
    let tail: Vec<Event> = ev
        .iter()
        .filter(|e| !matches!(e, Event::DiceRolled { .. } | Event::Fired { .. }))
        .cloned()
        .collect();
    assert_eq!(
        tail,
        vec![
            Event::HitsScored {
                target: u(0, 1),
                hits: 3,
                needed: 4
            },
            Event::Saved {
                target: u(0, 1),
                saved: 0
            },
            Event::ScreenHit {
                side: 0,
                hq: HqId(1),
                hits: 3,
                total: 3,
                stands_left: 1
            },
        ],
        "every hit landed on the screen: the battalion takes none and makes no test"
    );
    assert_eq!(b.state().piece(u(0, 1)).map(|p| p.hits), Some(0));
    assert_eq!(stands_left(&b.ctx(), 0, HqId(1)), 1);
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(1, 2)],
            target: u(0, 1),
            ammunition: None,
        })
        .expect("again")
        .to_vec();
    let tail: Vec<Event> = ev
        .iter()
        .filter(|e| !matches!(e, Event::DiceRolled { .. } | Event::Fired { .. }))
        .cloned()
        .collect();
    assert_eq!(
        tail,
        vec![
            Event::HitsScored {
                target: u(0, 1),
                hits: 3,
                needed: 4
            },
            Event::Saved {
                target: u(0, 1),
                saved: 0
            },
            Event::ScreenHit {
                side: 0,
                hq: HqId(1),
                hits: 1,
                total: 4,
                stands_left: 0
            },
            Event::ScreenRemoved {
                side: 0,
                hq: HqId(1),
                rule: "SKIR-03".into()
            },
            Event::HitsTaken {
                piece: u(0, 1),
                hits: 2,
                total: 2
            },
        ]
    );
    assert!(!screen_deployed(&b.ctx(), 0, HqId(1)));
    assert_eq!(b.replay_events(), *b.state());
}

#[test]
fn skir_03_fire_that_does_not_cross_the_screen_is_not_reduced() {
    // The Austrians stand behind the French brigade (y = 20, facing −y is away; they face +y).
    let sc = brigade(3)
        .unit(1, 3, "line-infantry-07-15", 4, 1, (50.0, 18.0), 0.0)
        .unit(1, 4, "line-infantry-07-15", 4, 1, (200.0, 100.0), 0.0);
    let mut sc = sc;
    // Move the front Austrians away so only the rear ones are near.
    sc.v["sides"][1]["units"][0]["position"]["at"] = json!({"x": 300.0, "y": 200.0});
    sc.v["sides"][1]["units"][1]["position"]["at"] = json!({"x": 320.0, "y": 200.0});
    let mut b = sc.battle(vec![1; 10], 1);
    b.perform(Action::EndPhase).expect("to Command");
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(1, 3)],
            target: u(0, 1),
            ammunition: None,
        })
        .expect("fire from the rear")
        .to_vec();
    let roll = ev
        .iter()
        .find(|e| matches!(e, Event::DiceRolled { .. }))
        .expect("a roll");
    assert!(!mods(roll).iter().any(|m| m.rule == "SKIR-03"));
}

#[test]
fn skir_02_march_column_or_square_removes_the_screen() {
    let mut b = brigade(3).battle(vec![], 0);
    let ev = b
        .perform(Action::Deploy {
            piece: u(0, 2),
            formation: Formation::MarchColumn,
        })
        .expect("march column")
        .to_vec();
    assert_eq!(
        ev[1],
        Event::ScreenRemoved {
            side: 0,
            hq: HqId(1),
            rule: "SKIR-02".into()
        }
    );
    // Removed for good: back in line, the screen does not return.
    b.perform(Action::EndPhase).expect("to Command");
    b.perform(Action::Deploy {
        piece: u(0, 2),
        formation: Formation::Line,
    })
    .expect("line again");
    assert!(!screen_deployed(&b.ctx(), 0, HqId(1)));
}

#[test]
fn skir_02_the_screen_operates_only_while_the_brigade_is_in_line_attack_column_or_extended_line() {
    let mut st_b = brigade(3).battle(vec![], 0);
    assert!(screen_deployed(&st_b.ctx(), 0, HqId(1)));
    let mut st = st_b.state().clone();
    st.pieces.get_mut(&u(0, 3)).expect("u3").formation = Some(Formation::Disordered);
    let c = Ctx {
        scenario: st_b.scenario(),
        lists: st_b.lists(),
        state: &st,
    };
    assert!(!screen_deployed(&c, 0, HqId(1)));
    st_b.perform(Action::Deploy {
        piece: u(0, 3),
        formation: Formation::ExtendedLine,
    })
    .expect("extended line");
    assert!(screen_deployed(&st_b.ctx(), 0, HqId(1)));
}

#[test]
fn skir_04_a_screen_is_not_a_piece_it_blocks_no_sight_and_cannot_be_targeted() {
    let b = brigade(3).battle(vec![], 0);
    // No piece stands for the screen; the breakpoint counts the brigade's three units only.
    assert_eq!(
        b.state()
            .pieces
            .keys()
            .filter(|p| p.side() == 0 && !p.is_command())
            .count(),
        3
    );
    let _ = Point::new(0.0, 0.0);
}
