//! Brigade skirmishers (catalogue §2.12 SKIR-01..SKIR-04), the artillery extras of §2.10
//! (ART-06 regimental guns, ART-10 FAO and grand batteries, COL-03 guns that never move) and
//! the per-list special rules of §5 that the engine applies (each test named after its list
//! and note, e.g. `acw_16_…`). `docs/special-rules.md` is the audit of every note; the last
//! test here checks that every test it names exists.

use powderhorn::geom::Point;
use powderhorn::model::HqId;
use powderhorn::rules::action::Action;
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::event::Modifier;
use powderhorn::rules::skirmish::{screen_deployed, screen_pool, screen_stands, stands_left};
use powderhorn::rules::{ActionError, Battle, Ctx, DiceSource, Event, Formation, Phase, PieceId};
use serde_json::{json, Value};

#[path = "support/builder.rs"]
mod builder;
use builder::{lists, u, Sc};

/// Blue (`list0`) against Red (`list1`), 1809, 8 turns; each side with a brigade HQ (1) and a
/// division HQ (2) on the rear edge.
fn new_sc(list0: &str, list1: &str) -> Sc {
    let hq = |id: u32, level: &str| {
        json!({"id": id, "name": format!("{level} {id}"), "parent": null,
               "commander": {"id": id, "name": format!("General {id}"), "level": level,
                             "quality": "average", "command_value": 7},
               "position": {"at": {"x": 150.0 + f64::from(id), "y": 5.0}, "facing_deg": 0.0}})
    };
    Sc::bare(list0, list1)
        .named("special-test", "Special rules test")
        .turn_limit(8)
        .year(1809)
        .side_names("Blue", "Red")
        .hqs(0, vec![hq(1, "brigade"), hq(2, "division")])
        .hqs(1, vec![hq(1, "brigade"), hq(2, "division")])
}

impl Sc {
    /// The battle in side `first`'s first Initiative phase.
    fn battle(&self, dice: Vec<u8>, first: usize) -> Battle {
        let mut b = self.battle_on(lists(), DiceSource::Script(dice), first, OrdersMode::Free);
        b.perform(Action::EndPhase).expect("deployment ends");
        b
    }
}

fn rule_of(e: ActionError) -> String {
    match e {
        ActionError::Rule(r) => r.rule.to_string(),
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
    let mut sc = new_sc("nap-french", "nap-austrian");
    for i in 0..n {
        sc = sc.unit_under(
            0,
            i + 1,
            1,
            "line-infantry-08-12",
            4,
            (50.0 + 15.0 * f64::from(i), 28.0),
            0.0,
        );
    }
    sc.flag(0, 1, "brigade_skirmishers")
        .unit_under(1, 1, 1, "line-infantry-07-15", 4, (50.0, 36.0), 180.0)
        .unit_under(1, 2, 1, "line-infantry-07-15", 4, (58.0, 36.0), 180.0)
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
fn skir_03_shell_is_ranged_fire_and_the_screen_takes_its_hit_first() {
    let sc = brigade(3).unit_under(1, 5, 1, "howitzer-field-artillery", 1, (50.0, 44.0), 180.0);
    // Deviation 1 (on target); 1 die (1 − 1 for the screen, floor 1) hits on 6; saves 1, 1.
    let mut b = sc.battle(vec![1, 6, 1, 1], 1);
    b.perform(Action::EndPhase).expect("to Command");
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(1, 5)],
            target: u(0, 1),
            ammunition: Some(powderhorn::rules::artillery::Ammunition::Shell),
        })
        .expect("shell")
        .to_vec();
    let to_hit = ev
        .iter()
        .find(|e| matches!(e, Event::DiceRolled { rule, .. } if rule == "ART-03"))
        .expect("the shell's roll");
    assert!(mods(to_hit)
        .iter()
        .any(|m| m.rule == "SKIR-03" && m.value == -1));
    assert!(ev.contains(&Event::ScreenHit {
        side: 0,
        hq: HqId(1),
        hits: 1,
        total: 1,
        stands_left: 2
    }));
    assert!(!ev.iter().any(|e| matches!(e, Event::HitsTaken { .. })));
}

#[test]
fn skir_03_fire_that_does_not_cross_the_screen_is_not_reduced() {
    // The Austrians stand behind the French brigade (y = 20, facing −y is away; they face +y).
    let sc = brigade(3)
        .unit_under(1, 3, 1, "line-infantry-07-15", 4, (50.0, 18.0), 0.0)
        .unit_under(1, 4, 1, "line-infantry-07-15", 4, (200.0, 100.0), 0.0);
    let mut sc = sc;
    // Move the front Austrians away so only the rear ones are near (to the far corner: a
    // battle cannot start with them off the table, DATA-10).
    sc.v["sides"][1]["units"][0]["position"]["at"] = json!({"x": 205.0, "y": 170.0});
    sc.v["sides"][1]["units"][1]["position"]["at"] = json!({"x": 225.0, "y": 170.0});
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
        sight: None,
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

// --- ART-06, ART-10, COL-03 --------------------------------------------------------------------

#[test]
fn art_06_a_regimental_gun_adds_its_hits_to_the_ko_threshold_and_moves_with_its_unit() {
    use powderhorn::rules::firing::ko_threshold_of;
    let sc = new_sc("nap-french", "nap-austrian")
        .unit_under(0, 1, 1, "line-infantry-08-12", 4, (50.0, 28.0), 0.0)
        .unit_under(0, 2, 1, "line-infantry-08-12", 4, (70.0, 28.0), 0.0)
        .flag(0, 1, "regimental_guns");
    let b = sc.battle(vec![], 0);
    let c = b.ctx();
    // 4 stands × 3 Hits, plus the French howitzer row's 2 Hits.
    assert_eq!(ko_threshold_of(&c, c.piece(u(0, 1)).expect("u1")), 14);
    assert_eq!(ko_threshold_of(&c, c.piece(u(0, 2)).expect("u2")), 12);
    // The gun is no piece of its own: it goes where its battalion goes.
    assert_eq!(b.state().pieces.len(), 2 + 2 + 2);
}

#[test]
fn art_06_the_regimental_gun_fires_shell_as_the_lists_howitzer_and_the_muskets_without_it() {
    let sc = new_sc("nap-french", "nap-austrian")
        .unit_under(0, 1, 1, "line-infantry-08-12", 4, (50.0, 28.0), 0.0)
        .flag(0, 1, "regimental_guns")
        .unit_under(0, 2, 1, "line-infantry-08-12", 4, (62.0, 28.0), 0.0)
        .unit_under(1, 1, 1, "line-infantry-07-15", 4, (50.0, 36.0), 180.0);
    // Deviation 1 (on target), one to-hit die, then whatever the pipeline asks.
    let mut b = sc.battle(vec![1, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 0);
    b.perform(Action::EndPhase).expect("to Command");
    // A battalion without a gun has no shell to fire.
    let e = b
        .perform(Action::Fire {
            firers: vec![u(0, 2)],
            target: u(1, 1),
            ammunition: Some(powderhorn::rules::artillery::Ammunition::Shell),
        })
        .unwrap_err();
    assert_eq!(rule_of(e), "ART-01");
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: Some(powderhorn::rules::artillery::Ammunition::Shell),
        })
        .expect("the regimental gun fires")
        .to_vec();
    let rolls: Vec<(String, usize)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::DiceRolled { rule, dice, .. } => Some((rule.clone(), dice.len())),
            _ => None,
        })
        .collect();
    // High-angle deviation (ART-08), then one die: one howitzer stand at 1 die (ART-06).
    assert_eq!(rolls.first(), Some(&("ART-08".to_string(), 1)));
    assert_eq!(rolls.get(1), Some(&("ART-03".to_string(), 1)));
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::ShellLanded { firer, deviated: false, .. } if *firer == u(0, 1)
    )));
    // Its muskets fire without the gun: 4 stands, 4 dice.
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: None,
        })
        .expect("musketry")
        .to_vec();
    assert!(ev.iter().any(
        |e| matches!(e, Event::DiceRolled { dice, rule, .. } if rule == "FIRE-14" && dice.len() == 4)
    ));
}

#[test]
fn art_10_one_fao_per_six_artillery_units_and_none_for_austria() {
    use powderhorn::rules::gunnery::{fao_allowance, fao_profile, side_fao_allowance};
    let all = lists();
    let french = all
        .iter()
        .find(|l| l.id.as_str() == "nap-french")
        .expect("fr");
    let austrian = all
        .iter()
        .find(|l| l.id.as_str() == "nap-austrian")
        .expect("au");
    assert_eq!(
        [5, 6, 11, 12].map(|n| fao_allowance(french, n)),
        [0, 1, 1, 2]
    );
    assert_eq!(fao_allowance(austrian, 12), 0);
    let p = fao_profile(french).expect("Average Brigade HQ");
    assert_eq!(
        (p.command, p.presence_dice, p.hits, p.points),
        (7, 1, 6, 55)
    );
    let mut sc = new_sc("nap-french", "nap-austrian");
    for i in 0..6 {
        sc = sc.unit_under(
            0,
            i + 1,
            1,
            "field-artillery",
            1,
            (20.0 + 10.0 * f64::from(i), 20.0),
            0.0,
        );
    }
    let b = sc.battle(vec![], 0);
    assert_eq!(side_fao_allowance(&b.ctx(), 0), 1);
}

#[test]
fn art_10_a_grand_battery_is_touching_unlimbered_guns_of_a_list_that_forms_them() {
    use powderhorn::rules::gunnery::check_grand_battery;
    let sc = new_sc("nap-french", "nap-austrian")
        .unit_under(0, 1, 1, "field-artillery", 1, (50.0, 20.0), 0.0)
        .unit_under(0, 2, 1, "field-artillery", 1, (52.5, 20.0), 0.0)
        .unit_under(0, 3, 1, "field-artillery", 1, (55.0, 20.0), 0.0)
        .unit_under(0, 4, 1, "field-artillery", 1, (80.0, 20.0), 0.0)
        .unit_under(1, 1, 1, "field-artillery", 1, (50.0, 90.0), 180.0)
        .unit_under(1, 2, 1, "field-artillery", 1, (52.5, 90.0), 180.0);
    let b = sc.battle(vec![], 0);
    let c = b.ctx();
    check_grand_battery(&c, &[u(0, 1), u(0, 2), u(0, 3)]).expect("three touching guns");
    assert_eq!(
        check_grand_battery(&c, &[u(0, 1), u(0, 4)])
            .unwrap_err()
            .rule,
        "ART-10"
    );
    assert_eq!(
        check_grand_battery(&c, &[u(0, 1)]).unwrap_err().rule,
        "ART-10"
    );
    let e = check_grand_battery(&c, &[u(1, 1), u(1, 2)]).unwrap_err();
    assert_eq!(e.rule, "ART-10");
    assert!(e.message.contains("never grouped"));
}

#[test]
fn col_03_acw_15_siege_guns_and_nap_7_fortress_guns_never_move() {
    let sc = new_sc("acw-union", "nap-french")
        .unit_under(0, 1, 1, "smoothbore-siege-cannon", 1, (50.0, 20.0), 0.0)
        .unit_under(0, 2, 1, "mortar", 1, (70.0, 20.0), 0.0)
        .unit_under(1, 1, 1, "fortress-artillery", 1, (50.0, 90.0), 180.0);
    let mut b = sc.battle(vec![], 0);
    for g in [u(0, 1), u(0, 2)] {
        let e = b.perform(Action::Limber { piece: g }).unwrap_err();
        assert_eq!(rule_of(e), "COL-03");
    }
    for _ in 0..4 {
        b.perform(Action::EndPhase).expect("to side 1");
    }
    let e = b.perform(Action::Limber { piece: u(1, 1) }).unwrap_err();
    assert_eq!(rule_of(e), "COL-03");
}

// --- per-list notes (section 5) -------------------------------------------------------------------

fn range_of(list: &str, troop: &str, year: u16) -> f64 {
    use powderhorn::rules::firing::weapon_range_cm;
    let b = new_sc(list, "nap-french")
        .year(year)
        .unit_under(0, 1, 1, troop, 3, (50.0, 20.0), 0.0)
        .battle(vec![], 0);
    let c = b.ctx();
    weapon_range_cm(&c, c.piece(u(0, 1)).expect("unit")).expect("a ranged attack")
}

#[test]
fn acw_2_acw_5_fpw_4_c18_5_mounted_cavalry_ranges() {
    assert_eq!(range_of("acw-union", "us-cavalry-1861", 1861), 2.0);
    assert_eq!(range_of("acw-union", "us-cavalry-1862", 1862), 2.0);
    assert_eq!(range_of("fpw-french", "heavy-cavalry", 1870), 1.0);
    assert_eq!(range_of("18c", "heavy-cavalry", 1757), 1.0);
    // Dismounted, the carbine's range counts (COL-02).
    assert_eq!(
        range_of(
            "acw-union",
            "us-cavalry-dismounted-1862-rifled-bl-carbine",
            1862
        ),
        15.0
    );
}

#[test]
fn acw_12_gatling_range_is_10_cm() {
    assert_eq!(range_of("acw-union", "gatling-gun", 1864), 10.0);
}

#[test]
fn acw_6_howitzers_reach_20_cm() {
    assert_eq!(range_of("acw-union", "howitzers", 1863), 20.0);
}

#[test]
fn nap_24_patriot_infantry_may_not_form_square() {
    let sc = new_sc("nap-spanish", "nap-french")
        .unit_under(0, 1, 1, "line-infantry-09-15", 4, (50.0, 20.0), 0.0)
        .unit_under(0, 2, 1, "line-infantry-08-14", 4, (80.0, 20.0), 0.0);
    let mut b = sc.battle(vec![], 0);
    let e = b
        .perform(Action::Deploy {
            piece: u(0, 1),
            formation: Formation::Square,
        })
        .unwrap_err();
    assert_eq!(rule_of(e), "MOVE-16");
    b.perform(Action::Deploy {
        piece: u(0, 2),
        formation: Formation::Square,
    })
    .expect("Josephist line forms square");
}

fn mode(b: &Battle, id: PieceId) -> (String, u8, Option<powderhorn::model::Arm>) {
    let p = b.state().piece(id).expect("piece");
    (
        p.troop_type
            .as_ref()
            .map(|t| t.as_str().to_string())
            .unwrap_or_default(),
        p.stands,
        p.arm,
    )
}

#[test]
fn acw_3_dismounting_cavalry_use_the_dismounted_row_and_leave_a_horse_holder() {
    use powderhorn::model::{Arm, TroopTypeId};
    let sc = new_sc("acw-union", "acw-confederate")
        .year(1862)
        .unit_under(0, 1, 1, "us-cavalry-1862", 4, (50.0, 20.0), 0.0);
    let mut b = sc.battle(vec![], 0);
    // The Union list has four dismounted rows: the action must name one.
    let e = b
        .perform(Action::Dismount {
            piece: u(0, 1),
            troop_type: None,
        })
        .unwrap_err();
    assert_eq!(rule_of(e), "COL-02");
    let row = TroopTypeId::new("us-cavalry-dismounted-1862-rifled-bl-carbine");
    let ev = b
        .perform(Action::Dismount {
            piece: u(0, 1),
            troop_type: Some(row.clone()),
        })
        .expect("dismount")
        .to_vec();
    assert_eq!(
        ev,
        vec![Event::ModeChanged {
            piece: u(0, 1),
            troop_type: row,
            arm: Arm::Infantry,
            stands: 3,
            mounted: false
        }]
    );
    // Dismounted: the 5+ save and the carbine of the dismounted row.
    let c = b.ctx();
    assert_eq!(
        powderhorn::rules::firing::save_of(&c, c.piece(u(0, 1)).expect("u")),
        Some(5)
    );
    b.perform(Action::Mount { piece: u(0, 1) }).expect("mount");
    assert_eq!(
        mode(&b, u(0, 1)),
        ("us-cavalry-1862".to_string(), 4, Some(Arm::Cavalry))
    );
    assert_eq!(
        rule_of(b.perform(Action::Mount { piece: u(0, 1) }).unwrap_err()),
        "COL-02"
    );
}

#[test]
fn nap_4_nap_5_dragoons_dismount_hussars_only_as_scouts_and_infantry_never() {
    use powderhorn::model::Arm;
    let sc = new_sc("nap-french", "nap-austrian")
        .unit_under(0, 1, 1, "heavy-cavalry-07-12", 3, (50.0, 20.0), 0.0)
        .unit_under(0, 2, 1, "light-cavalry-05-12", 3, (70.0, 20.0), 0.0)
        .unit_under(0, 3, 1, "line-infantry-08-12", 3, (90.0, 20.0), 0.0);
    let mut b = sc.battle(vec![], 0);
    b.perform(Action::Dismount {
        piece: u(0, 1),
        troop_type: None,
    })
    .expect("dragoons dismount");
    assert_eq!(
        mode(&b, u(0, 1)),
        ("dismounted-cavalry-all".to_string(), 2, Some(Arm::Infantry))
    );
    for p in [u(0, 2), u(0, 3)] {
        let e = b
            .perform(Action::Dismount {
                piece: p,
                troop_type: None,
            })
            .unwrap_err();
        assert_eq!(rule_of(e), "COL-02");
    }
}

#[test]
fn colonial_11_cavalry_dismounts_as_european_rifles_one_stand_fewer() {
    let sc = new_sc("colonial", "colonial").year(1895).unit_under(
        0,
        1,
        1,
        "cavalry",
        6,
        (50.0, 20.0),
        0.0,
    );
    let mut b = sc.battle(vec![], 0);
    b.perform(Action::Dismount {
        piece: u(0, 1),
        troop_type: None,
    })
    .expect("dismount");
    assert_eq!(mode(&b, u(0, 1)).0, "european-magazine-rifle");
    assert_eq!(mode(&b, u(0, 1)).1, 5);
}

#[test]
fn acw_1_poor_infantry_may_not_skirmish() {
    let mut sc = new_sc("acw-union", "acw-confederate")
        .year(1862)
        .unit_under(0, 1, 1, "regular-infantry-rifled-bl", 4, (50.0, 20.0), 0.0)
        .unit_under(0, 2, 1, "regular-infantry-rifled-bl", 4, (80.0, 20.0), 0.0);
    sc.v["sides"][0]["units"][0]["grade"] = json!("poor");
    let mut b = sc.battle(vec![], 0);
    let e = b
        .perform(Action::Deploy {
            piece: u(0, 1),
            formation: Formation::ExtendedLine,
        })
        .unwrap_err();
    assert_eq!(rule_of(e), "ARMY-09");
    b.perform(Action::Deploy {
        piece: u(0, 2),
        formation: Formation::ExtendedLine,
    })
    .expect("regular infantry skirmish");
}

#[test]
fn colonial_4_colonial_6_zulus_and_swordsmen_never_fire() {
    let sc = new_sc("colonial", "colonial")
        .year(1879)
        .unit_under(0, 1, 1, "zulu", 6, (50.0, 20.0), 0.0)
        .unit_under(0, 2, 1, "native-sword", 6, (70.0, 20.0), 0.0)
        .unit_under(1, 1, 1, "european-breech-loader", 6, (60.0, 25.0), 180.0);
    let mut b = sc.battle(vec![], 0);
    b.perform(Action::EndPhase).expect("to Command");
    for f in [u(0, 1), u(0, 2)] {
        let e = b
            .perform(Action::Fire {
                firers: vec![f],
                target: u(1, 1),
                ammunition: None,
            })
            .unwrap_err();
        assert_eq!(rule_of(e), "COL-04");
    }
}

#[test]
fn colonial_22_col_03_colonial_guns_move_by_limber_but_are_not_manhandled() {
    let sc = new_sc("colonial", "colonial").year(1885).unit_under(
        0,
        1,
        1,
        "gun-mlr",
        1,
        (50.0, 20.0),
        0.0,
    );
    let mut b = sc.battle(vec![], 0);
    b.perform(Action::Limber { piece: u(0, 1) })
        .expect("Colonial guns limber (Move '-': only by limber)");
    assert!(b.state().piece(u(0, 1)).is_some_and(|p| p.limbered));
}

// --- the audit document ---------------------------------------------------------------------------

/// Every test function name in tests/ and src/ (a `fn` right after `#[test]`, or inside
/// `proptest!`), as `tests/rules_coverage.rs` reads them.
fn test_names() -> std::collections::BTreeSet<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("tests"), &mut files);
    walk(&root.join("src"), &mut files);
    let mut names = std::collections::BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let mut armed = false;
        let mut in_proptest = false;
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with("proptest!") {
                in_proptest = true;
            }
            if t.starts_with("#[test]") {
                armed = true;
                continue;
            }
            if let Some(rest) = t.strip_prefix("fn ").or_else(|| t.strip_prefix("pub fn ")) {
                if armed || in_proptest {
                    names.insert(
                        rest.chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect(),
                    );
                }
                armed = false;
            }
        }
    }
    names
}

#[test]
fn special_rules_doc_names_only_tests_that_exist_and_covers_every_note() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/special-rules.md")).expect("the audit doc");
    let names = test_names();
    let mut missing = Vec::new();
    let mut rows = 0;
    for line in doc
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---"))
    {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let Some(test_cell) = cells.last() else {
            continue;
        };
        if *test_cell == "Test" {
            continue;
        }
        rows += 1;
        for (k, part) in test_cell.split('`').enumerate() {
            if k % 2 == 1 && !names.contains(part) {
                missing.push(part.to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/special-rules.md names tests that do not exist: {missing:?}"
    );
    // Every note of every list set has a row (ACW 17, Napoleonic 25, FPW 19, 18C 25 with 11–13
    // on one row, Colonial 23 with 16–19 on one row) plus the preamble and period rows.
    assert!(rows >= 17 + 25 + 19 + 23 + 20, "{rows} rows");
    // Each shipped special rule appears in its list set's table.
    let sections = [
        ("## American Civil War", "acw"),
        ("## Napoleonic", "napoleonic"),
        ("## Franco-Prussian", "franco-prussian"),
        ("## 18th Century", "eighteenth-century"),
        ("## Colonial", "colonial"),
    ];
    for (i, (head, file)) in sections.iter().enumerate() {
        let start = doc.find(head).expect("section");
        let end = sections
            .get(i + 1)
            .and_then(|(h, _)| doc.find(h))
            .unwrap_or(doc.len());
        let section = &doc[start..end];
        let text = std::fs::read_to_string(root.join(format!("assets/armies/{file}.json")))
            .expect("list file");
        let book: Value = serde_json::from_str(&text).expect("json");
        for r in book["special_rules"].as_array().expect("rules") {
            let no = r["no"].as_u64().expect("no");
            let listed = section.lines().any(|l| {
                let first = l.trim_matches('|').split('|').next().unwrap_or("").trim();
                first == no.to_string()
                    || first.split_once('–').is_some_and(|(a, b)| {
                        let (a, b) = (a.parse::<u64>(), b.parse::<u64>());
                        matches!((a, b), (Ok(a), Ok(b)) if a <= no && no <= b)
                    })
            });
            assert!(
                listed,
                "{file}: note {no} has no row in docs/special-rules.md"
            );
        }
    }
}

#[test]
fn colonial_21_light_modern_artillery_fires_shell_high_angle_at_a_target_only_a_friend_sees() {
    let mut sc = new_sc("colonial", "colonial")
        .year(1909)
        .unit_under(0, 1, 1, "artillery-light-modern", 1, (50.0, 10.0), 0.0)
        .unit_under(0, 2, 1, "gun-blr", 1, (56.0, 10.0), 0.0)
        .unit_under(0, 3, 1, "european-magazine-rifle", 2, (70.0, 41.0), 270.0)
        .unit_under(1, 1, 1, "european-breech-loader", 2, (50.0, 40.0), 180.0);
    sc.v["terrain"] = json!([{"id": 1, "name": "Thorn bush", "kind": "high_area",
        "geometry": {"polygon": [{"x": 35.0, "y": 20.0}, {"x": 65.0, "y": 20.0},
                                 {"x": 65.0, "y": 30.0}, {"x": 35.0, "y": 30.0}]}}]);
    let mut b = sc.battle(vec![1; 20], 0);
    b.perform(Action::EndPhase).expect("to Command");
    let shell = Some(powderhorn::rules::artillery::Ammunition::Shell);
    // Round shot needs sight: indirect fire is shell.
    let e = b
        .perform(Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: None,
        })
        .unwrap_err();
    assert_eq!(rule_of(e), "ART-08");
    // Another gun without the note may not fire at what it cannot see.
    let e = b
        .perform(Action::Fire {
            firers: vec![u(0, 2)],
            target: u(1, 1),
            ammunition: shell,
        })
        .unwrap_err();
    assert!(rule_of(e).starts_with("VIS"));
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: shell,
        })
        .expect("indirect fire")
        .to_vec();
    assert!(matches!(
        ev.iter().find(|e| matches!(e, Event::DiceRolled { .. })),
        Some(Event::DiceRolled { rule, .. }) if rule == "ART-08"
    ));
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::ShellLanded { firer, .. } if *firer == u(0, 1))));
}

#[test]
fn c18_19_horse_artillery_only_after_1755() {
    use powderhorn::model::validate::validate_scenario;
    let build = |year: u16| {
        let sc = new_sc("18c", "18c").year(year).unit_under(
            0,
            1,
            1,
            "horse-artillery",
            1,
            (50.0, 10.0),
            0.0,
        );
        validate_scenario(&sc.scenario(), &lists())
            .iter()
            .any(|v| v.rule == "ARMY-12" && v.message.contains("Horse Artillery"))
    };
    assert!(
        build(1745),
        "War of the Austrian Succession: no horse artillery"
    );
    assert!(!build(1758), "Seven Years War: horse artillery");
}
