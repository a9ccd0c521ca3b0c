//! The ACW, 18th Century and Colonial army-list books (`assets/armies/{acw,eighteenth-century,
//! colonial}.json`) checked against the rulebook transcription `000_88000d3b8e05e4da.txt` and the
//! catalogue's rulings (§4.6 ARMY, §5.0 COL, §5.1, §5.4, §5.5, §5.6, §5.7).
//!
//! Seed line numbers in the comments are 1-based lines of the seed file.

use powderhorn::model::army::{
    parse_book, Arm, ArmyList, Attack, CommandLevel, CommandType, HqLimit, HqRange, Limit,
    ListBook, Move, Period, Quality, RowGrade, RowRole, RuleEffect, TroopType, Years,
    SHIPPED_BOOKS,
};
use powderhorn::model::ids::TroopTypeId;

const SEED: &str = "000_88000d3b8e05e4da.txt";

/// Parses one of the shipped books by file name (the text is embedded at compile time).
fn book(file: &str) -> ListBook {
    let (_, text) = SHIPPED_BOOKS
        .iter()
        .find(|(f, _)| *f == file)
        .unwrap_or_else(|| panic!("{file} is not a shipped book"));
    parse_book(file, text).unwrap_or_else(|e| panic!("{e}"))
}

fn lists(file: &str) -> Vec<ArmyList> {
    book(file).resolve()
}

fn list(file: &str, id: &str) -> ArmyList {
    lists(file)
        .into_iter()
        .find(|l| l.id.as_str() == id)
        .unwrap_or_else(|| panic!("{file} has no list {id}"))
}

fn row<'a>(l: &'a ArmyList, id: &str) -> &'a TroopType {
    l.troop_type(&TroopTypeId::new(id))
        .unwrap_or_else(|| panic!("{} has no row {id}", l.id))
}

fn hq(l: &ArmyList, level: CommandLevel, quality: Quality) -> &CommandType {
    l.command_type(level, quality)
        .unwrap_or_else(|| panic!("{} has no {level:?} {quality:?} HQ", l.id))
}

fn ranged(dice: u8, range_cm: u32) -> Option<Attack> {
    Some(Attack::Ranged { dice, range_cm })
}

fn save(l: &TroopType) -> Option<u8> {
    l.save.map(|s| s.target())
}

fn lim(min: Option<u32>, max: Option<u32>) -> Option<Limit> {
    Some(Limit { min, max })
}

fn has_correction(r: &TroopType, field: &str, printed: &str, rule_part: &str) -> bool {
    r.corrections
        .iter()
        .any(|c| c.field == field && c.printed == printed && c.rule.contains(rule_part))
}

const OUR_BOOKS: [&str; 3] = ["acw.json", "eighteenth-century.json", "colonial.json"];

// ------------------------------------------------------------------------------------------ ACW

#[test]
fn acw_book_has_first_fire_and_shared_rules_1_to_17_section_5_1() {
    let b = book("acw.json");
    assert_eq!(b.period, Period::Acw);
    assert!(
        b.first_fire_bonus,
        "ACW preamble, seed 1318: +1 the first time a unit fires"
    );
    assert!(b.ranges_scale);
    let nos: Vec<u32> = b.special_rules.iter().map(|r| r.no).collect();
    assert_eq!(nos, (1..=17).collect::<Vec<_>>());
    assert!(b.missing_rules.is_empty());
    let ids: Vec<&str> = b.lists.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["acw-union", "acw-confederate"]);
    for l in b.resolve() {
        assert!(l.complete);
        assert_eq!(l.source.seed, SEED);
        assert!(!l.organisation.is_empty());
        assert_eq!(
            l.special_rules.len(),
            17,
            "rules 1-17 are shared by both lists"
        );
    }
}

#[test]
fn acw_union_row_counts_and_spot_values_army_04_col_07() {
    let l = list("acw.json", "acw-union");
    assert_eq!(l.source.lines, "1231-1275");
    assert_eq!(l.troop_types.len(), 20, "§5.7: Union troop rows");
    assert_eq!(l.command_types.len(), 12, "§5.7: Union command rows");

    // Seed 1239: Regular Infantry Rifled/Breech Loading Musket | Inf | 10 | 1/20 | 3 | None | 60 | 4/- | 1, 14
    let ri = row(&l, "regular-infantry-rifled-bl");
    assert_eq!(ri.arm, Arm::Infantry);
    assert_eq!(ri.movement, Move::Cm(10));
    assert_eq!(ri.attack, ranged(1, 20));
    assert_eq!(ri.hits, 3);
    assert_eq!(
        save(ri),
        None,
        "COL-12: note 14 does not change Regular Infantry's save"
    );
    assert_eq!(ri.points, Some(60));
    assert_eq!(ri.limit, lim(Some(4), None));
    assert_eq!(ri.notes, [1, 14]);
    assert!(ri.grade_optional, "ACW rule 1 / ARMY-09");
    assert!(ri.corrections.is_empty());

    // Seed 1237: Skirmishing Infantry ... | 12 | 1/20 | 2 | +5 | (blank) | (blank) | 14
    let sk = row(&l, "skirmishing-infantry-rifled-bl");
    assert_eq!(sk.role, RowRole::SkirmishProfile);
    assert_eq!(save(sk), Some(5), "FIRE-18: '+5' is 5+");
    assert_eq!(sk.points, None);
    assert_eq!(sk.limit, None);
    assert!(!sk.purchasable(), "ARMY-10 a");

    // Seed 1246: US Cavalry 1861 | Cav | 30 | 1/2 | 1 | None | 55 | -/1 | 2, 3, 13
    let c61 = row(&l, "us-cavalry-1861");
    assert_eq!(c61.hits, 1, "§5.1: keep the 1861 row's Hits 1");
    assert_eq!(c61.points, Some(55));
    assert_eq!(c61.limit, lim(None, Some(1)));
    assert_eq!(
        c61.years,
        Some(Years {
            from: 1861,
            to: Some(1862)
        }),
        "ARMY-12"
    );

    // Seed 1244: US Cavalry (Dismounted) 1863+ ... | 12 | 2/15 | 2 | 5+ | (blank) | -/1 | 3, 5
    let d63 = row(&l, "us-cavalry-dismounted-1863-rifled-bl-carbine");
    assert_eq!(d63.role, RowRole::DismountedMode);
    assert_eq!(d63.attack, ranged(2, 15));
    assert_eq!(
        d63.years,
        Some(Years {
            from: 1863,
            to: None
        })
    );

    // Seed 1248: Gatling Gun | Art | 3/10 | 2/20 | 2 | None | 150 | -/- | 8, 12
    // Corrected: rule 12 gives range 10 cm (§5.6 / §5.1).
    let g = row(&l, "gatling-gun");
    assert_eq!(
        g.movement,
        Move::Gun {
            manhandle: 3,
            prolonge: 10
        }
    );
    assert_eq!(g.attack, ranged(2, 10));
    assert!(has_correction(g, "attack", "2/20", "§5.1"));
    assert_eq!(g.points, Some(150));
    assert_eq!(g.limit, lim(None, None));

    // Seed 1252: Smoothbore Siege Cannon | Art | 0 | 3/60 | 2 | None | 70 | -/3 | 6, 15
    let siege = row(&l, "smoothbore-siege-cannon");
    assert_eq!(siege.movement, Move::Immobile);
    assert_eq!(siege.attack, ranged(3, 60));

    // Seed 1256: Limbered Artillery | Cav | 15/30 | (blank) | 2 | None | - | (blank) | 8, 9
    let lb = row(&l, "limbered-artillery");
    assert_eq!(lb.arm, Arm::Transport);
    assert!(has_correction(lb, "arm", "Cav", "COL-02"));
    assert_eq!(lb.role, RowRole::Limber);
    assert_eq!(
        lb.movement,
        Move::Limber {
            foot: 15,
            horse: 30
        }
    );
    assert_eq!(lb.attack, None);
    assert_eq!(lb.points, None);

    // Seed 1260: Brigade HQ | Uninspiring | 6 | 10/30 | +0 | 6 | +6 | 30 | 1 per 3 Inf | 10
    let b = hq(&l, CommandLevel::Brigade, Quality::Uninspiring);
    assert_eq!(b.command, 6);
    assert_eq!(
        b.movement,
        Move::Command {
            dismounted: 10,
            mounted: 30
        }
    );
    assert_eq!(b.presence_dice, 0);
    assert_eq!(b.hits, 6);
    assert_eq!(b.save.map(|s| s.target()), Some(6));
    assert_eq!(b.points, 30);
    assert_eq!(b.limit, HqLimit::PerInfantry { units: 3 });
    // Seed 1263 / 1266: 1 per 6 Inf, 1 per 18 Inf.
    assert_eq!(
        hq(&l, CommandLevel::Division, Quality::Average).limit,
        HqLimit::PerInfantry { units: 6 }
    );
    assert_eq!(
        hq(&l, CommandLevel::Corps, Quality::Exceptional).limit,
        HqLimit::PerInfantry { units: 18 }
    );
    // Seed 1271: Army HQ | Exceptional | 11 | 10/30 | +3 | 6 | 5, 6 | 170 | 1 | 10, 11
    let a = hq(&l, CommandLevel::Army, Quality::Exceptional);
    assert_eq!(a.command, 11);
    assert_eq!(a.presence_dice, 3);
    assert_eq!(a.save.map(|s| s.target()), Some(5), "FIRE-18: '5, 6' is 5+");
    assert_eq!(a.limit, HqLimit::One);
    assert_eq!(a.notes, [10, 11]);

    // ARMY-07, ARMY-09, ACW rule 13.
    assert_eq!(l.caps.exceptional_per_level, Some(1));
    assert_eq!(l.caps.lancer_units_max, Some(1));
    let gc = l.caps.grade_costs.expect("ACW optional grades");
    assert_eq!((gc.elite_per_stand, gc.poor_per_stand), (5, -5));
    assert_eq!(l.caps.elite.len(), 1);
    assert_eq!(l.caps.elite[0].arm, Arm::Infantry);
    assert_eq!(l.caps.elite[0].per_points, 1500);
}

#[test]
fn acw_confederate_row_counts_and_spot_values_army_06_army_07() {
    let l = list("acw.json", "acw-confederate");
    assert_eq!(l.source.lines, "1276-1315");
    assert_eq!(l.troop_types.len(), 16, "§5.7: Confederate troop rows");
    assert_eq!(l.command_types.len(), 12, "§5.7: Confederate command rows");

    // Seed 1286: CS Engineers | Eng | 10 | 1/15 | 2 | None | 120 | -/1 | 1, 17
    let e = row(&l, "cs-engineers");
    assert_eq!(e.arm, Arm::Engineers);
    assert_eq!(e.hits, 2);
    assert_eq!(e.points, Some(120));
    assert_eq!(e.limit, lim(None, Some(1)));

    // Seed 1288: CS Cavalry (Dismounted) Smooth Bore Carbine/Shotgun | Inf | 15 | 1/5 | 2 | 5+ | | -/1 | 3, 4
    let d = row(&l, "cs-cavalry-dismounted-sb-carbine-shotgun");
    assert_eq!(d.movement, Move::Cm(15));
    assert_eq!(d.attack, ranged(1, 5));
    assert_eq!(save(d), Some(5));
    assert_eq!(d.role, RowRole::DismountedMode);
    assert_eq!(d.points, None);

    // Seed 1289: CS Cavalry | Cav | 30 | 1/2 | 2 | None | 65 | -/1 | 3, 4
    let c = row(&l, "cs-cavalry");
    assert_eq!(c.arm, Arm::Cavalry);
    assert_eq!(c.points, Some(65));
    assert_eq!(c.notes, [3, 4]);

    // Seed 1290: Howitzers | Art | 3/10 | 2/20 | 2 | None | 45 | 1/2 | 6, 8 (Union: 35)
    let h = row(&l, "howitzers");
    assert_eq!(h.points, Some(45));
    assert_eq!(h.limit, lim(Some(1), Some(2)));
    // Seed 1294: Rifled Cannon | Art | 3/10 | 1/75 | 2 | None | 85 | 1/3 | 7, 8
    assert_eq!(row(&l, "rifled-cannon").attack, ranged(1, 75));
    // Seed 1296: Mortar | Art | 0 | 1/60 | ...
    assert_eq!(row(&l, "mortar").movement, Move::Immobile);
    assert_eq!(row(&l, "mortar").attack, ranged(1, 60));

    // Seed 1297: Limbered Artillery | Cav | 15/30 | | 2 | None | (blank) | | 8, 9
    let lb = row(&l, "limbered-artillery");
    assert_eq!(lb.arm, Arm::Transport);
    assert!(has_correction(lb, "arm", "Cav", "COL-02"));
    assert_eq!(lb.points, None);

    // No Gatling row in the Confederate chart.
    assert!(l.troop_types.iter().all(|r| r.id.as_str() != "gatling-gun"));

    // Seed 1301 / 1304 / 1307: 1 per 4 / 12 / 36 Inf; seed 1310: Army HQ limit 1.
    assert_eq!(
        hq(&l, CommandLevel::Brigade, Quality::Average).limit,
        HqLimit::PerInfantry { units: 4 }
    );
    assert_eq!(
        hq(&l, CommandLevel::Division, Quality::Uninspiring).limit,
        HqLimit::PerInfantry { units: 12 }
    );
    assert_eq!(
        hq(&l, CommandLevel::Corps, Quality::Uninspiring).limit,
        HqLimit::PerInfantry { units: 36 }
    );
    assert_eq!(hq(&l, CommandLevel::Corps, Quality::Uninspiring).points, 45);
    assert_eq!(
        hq(&l, CommandLevel::Army, Quality::Uninspiring).limit,
        HqLimit::One
    );

    // ARMY-07: two Exceptional HQs per level; no lancers in this list.
    assert_eq!(l.caps.exceptional_per_level, Some(2));
    assert_eq!(l.caps.lancer_units_max, None);
    assert!(l.caps.grade_costs.is_some());
}

#[test]
fn acw_special_rule_effects_carry_the_rule_numbers() {
    let l = list("acw.json", "acw-union");
    let eff = |n: u32| l.special_rule(n).expect("rule").effects.clone();
    // Seed 1330-1332: rule 6 smoothbore artillery; seed 1339: rule 12 Gatling range 10 cm.
    let six = eff(6);
    assert!(six.contains(&RuleEffect::ArtilleryCoverShift));
    assert!(six.contains(&RuleEffect::RoundShotPenetration { cm: 2 }));
    assert!(six.contains(&RuleEffect::Canister {
        attacks: 3,
        range_cm: 10
    }));
    assert!(six.contains(&RuleEffect::Howitzer {
        range_cm: 20,
        open_targets_only: true
    }));
    assert!(six.contains(&RuleEffect::HorseArtillery {
        surcharge: 10,
        limber_cm: 30
    }));
    assert!(eff(7).contains(&RuleEffect::Canister {
        attacks: 2,
        range_cm: 10
    }));
    for n in [2, 4, 5] {
        assert_eq!(eff(n), [RuleEffect::MountedRange { cm: 2 }]);
    }
    assert_eq!(
        eff(3),
        [RuleEffect::Dismount {
            dismounted_save: Some(5)
        }]
    );
    assert_eq!(eff(12), [RuleEffect::GatlingJam { range_cm: 10 }]);
    assert_eq!(eff(13), [RuleEffect::Lancers]);
    assert_eq!(
        eff(14),
        [RuleEffect::LightTroops {
            save: 5,
            solo_move_cm: 12
        }]
    );
    assert_eq!(eff(15), [RuleEffect::NeverMoves]);
    assert_eq!(eff(16), [RuleEffect::HighAngle { wall_save: 4 }]);
    assert_eq!(eff(17), [RuleEffect::Engineer]);
    assert_eq!(eff(10), [RuleEffect::OneArmyHq]);
    // The Gatling row picks up the jam through its note 12.
    let g = row(&l, "gatling-gun");
    assert!(l
        .row_effects(g)
        .any(|e| *e == RuleEffect::GatlingJam { range_cm: 10 }));
}

// ------------------------------------------------------------------------------------------ 18C

#[test]
fn eighteenth_century_row_counts_and_spot_values_army_06c_section_5_4() {
    let b = book("eighteenth-century.json");
    assert_eq!(b.period, Period::EighteenthCentury);
    assert!(!b.first_fire_bonus, "§5.4: no first-fire preamble");
    assert_eq!(b.missing_rules, [11, 12, 13]);
    let l = list("eighteenth-century.json", "18c");
    assert_eq!(l.source.lines, "1785-1864");
    assert_eq!(l.troop_types.len(), 17, "§5.7: 18C troop rows");
    assert_eq!(l.command_types.len(), 12, "§5.7: 18C command rows");
    let nos: Vec<u32> = l.special_rules.iter().map(|r| r.no).collect();
    assert_eq!(
        nos,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]
    );

    // Seed 1799: Heavy Cavalry | Cav | 10 | 1/2 | 3 | 0 | 65 | -/1 | 4, 6, 22, 24
    // Corrected: Move 30 (§5.6 / §5.4) and mounted range 1 cm (rule 5, §5.6).
    let hc = row(&l, "heavy-cavalry");
    assert_eq!(hc.movement, Move::Cm(30));
    assert!(has_correction(hc, "move", "10", "§5.4"));
    assert_eq!(hc.attack, ranged(1, 1));
    assert!(has_correction(hc, "attack", "1/2", "§5.6"));
    assert_eq!(hc.hits, 3);
    assert_eq!(save(hc), None, "FIRE-18: '0' is no save");
    assert_eq!(hc.points, Some(65));
    assert_eq!(hc.grade, RowGrade::Elite, "note 24");
    // Every mounted cavalry row shoots at 1 cm (§5.6: FPW (both), 18C).
    for r in l.troop_types.iter().filter(|r| r.arm == Arm::Cavalry) {
        assert_eq!(r.attack, ranged(1, 1), "{}", r.id);
    }
    // Seed 1801: Irregular Cavalry ... | 35 | -/1 | 4, 6, 20, 23, 25
    let ic = row(&l, "irregular-cavalry");
    assert_eq!(ic.grade, RowGrade::Poor, "note 25");
    assert_eq!(ic.limit, lim(None, Some(1)));

    // Seed 1794: Guard/Grenadier Infantry | Inf | 8 | 1/10 | 3 | 6 | 75 | 4/- | 1, 2
    let gg = row(&l, "guard-grenadier-infantry");
    assert_eq!(gg.movement, Move::Cm(8));
    assert_eq!(save(gg), Some(6));
    assert_eq!(gg.grade, RowGrade::Elite, "note 2");
    // Seed 1796: Light Infantry | Inf | 12 | 1/10 | 4 | 5+ | 65 | 4/- | 1, 15 (Hits 4 kept)
    let li = row(&l, "light-infantry");
    assert_eq!(li.hits, 4);
    assert_eq!(save(li), Some(5));
    assert!(
        li.corrections.is_empty(),
        "COL-12 needs no change: the row prints 5+"
    );
    // Seed 1798: Indians/Militia | Inf | 10 | 1/10 | 2 | 6 | 30 | 4/- | 1, 3
    let im = row(&l, "indians-militia");
    assert_eq!(im.grade, RowGrade::Poor, "note 3");
    assert_eq!(im.points, Some(30));
    // Seed 1802: Dismounted Cavalry, All | Inf | 10 | 1/7 | 2 | 5 | 85 | (blank) | 4, 5, 6
    let dc = row(&l, "dismounted-cavalry-all");
    assert_eq!(dc.role, RowRole::DismountedMode);
    assert_eq!(dc.limit, None);
    assert!(!dc.purchasable(), "ARMY-10 b");
    // Seed 1805: Fortress Artillery | Art | 0 | 1/45 | 2 | 0 | 80 | (blank) | 8, 9
    assert_eq!(row(&l, "fortress-artillery").movement, Move::Immobile);
    // Seed 1807: Horse Artillery | Art | 5/10 | 1/45 | 2 | 0 | 90 | -/2 | 7, 9, 19
    let ha = row(&l, "horse-artillery");
    assert_eq!(
        ha.movement,
        Move::Gun {
            manhandle: 5,
            prolonge: 10
        }
    );
    assert_eq!(ha.points, Some(90));
    assert_eq!(ha.limit, lim(None, Some(2)));
    // Seed 1808: Limbered Artillery | Cav | 10/30 | | 2 | 0 | | | 7, 9, 19
    let lb = row(&l, "limbered-artillery");
    assert_eq!(lb.arm, Arm::Transport);
    assert!(has_correction(lb, "arm", "Cav", "COL-02"));
    assert_eq!(
        lb.movement,
        Move::Limber {
            foot: 10,
            horse: 30
        }
    );
    // Seed 1809: Engineers | Engr | 10 | 1/10 | 2 | 0 | 125 | -/1 | 1, 16, 18 → notes 1, 18.
    let en = row(&l, "engineers");
    assert_eq!(en.notes, [1, 18]);
    assert!(has_correction(en, "notes", "1, 16, 18", "§5.4"));

    // Seed 1813: Brigade HQ | Uninspiring | 6 | 10/30 | +0 | 6 | +6 | 30 | *26 | 10, 14
    let bq = hq(&l, CommandLevel::Brigade, Quality::Uninspiring);
    assert_eq!(bq.limit, HqLimit::Nation);
    assert!(bq
        .corrections
        .iter()
        .any(|c| c.field == "limit" && c.printed == "*26" && c.rule.contains("ARMY-06(c)")));
    // Seed 1819: Corps HQ | Uninspiring | 8 | ... | +1 | ... | 45 | *26 | 12, 14
    let cq = hq(&l, CommandLevel::Corps, Quality::Uninspiring);
    assert_eq!((cq.command, cq.presence_dice, cq.points), (8, 1, 45));
    assert_eq!(cq.notes, [12, 14]);
    // Seed 1824: Army HQ | Exceptional | 11 | 10/30 | +3 | 6 | 5, 6 | 170 | 1 | 13, 14
    let aq = hq(&l, CommandLevel::Army, Quality::Exceptional);
    assert_eq!(aq.limit, HqLimit::One);
    assert_eq!(aq.save.map(|s| s.target()), Some(5));
    assert!(aq.corrections.is_empty());

    // ARMY-06 c: the French Napoleonic ranges.
    assert_eq!(
        l.hq_ranges,
        [
            HqRange {
                level: CommandLevel::Brigade,
                min_inf: 4,
                max_inf: 6
            },
            HqRange {
                level: CommandLevel::Division,
                min_inf: 8,
                max_inf: 12
            },
            HqRange {
                level: CommandLevel::Corps,
                min_inf: 24,
                max_inf: 36
            },
        ]
    );
    // ARMY-07, ARMY-09.
    assert_eq!(l.caps.exceptional_per_level, Some(1));
    let inf = l
        .caps
        .elite
        .iter()
        .find(|c| c.arm == Arm::Infantry)
        .expect("elite inf cap");
    assert_eq!((inf.per_points, inf.unless_all_elite), (3000, true));
    let cav = l
        .caps
        .elite
        .iter()
        .find(|c| c.arm == Arm::Cavalry)
        .expect("elite cav cap");
    assert_eq!((cav.per_points, cav.unless_all_elite), (3000, false));
    assert_eq!(l.caps.grade_costs, None);
}

#[test]
fn eighteenth_century_rule_effects_rule_5_range_and_rule_19_horse_artillery() {
    let l = list("eighteenth-century.json", "18c");
    let eff = |n: u32| l.special_rule(n).expect("rule").effects.clone();
    assert!(eff(5).contains(&RuleEffect::MountedRange { cm: 1 }));
    assert!(eff(7).contains(&RuleEffect::Canister {
        attacks: 4,
        range_cm: 15
    }));
    assert!(eff(8).contains(&RuleEffect::NeverMoves));
    assert_eq!(eff(14), [RuleEffect::ExceptionalCap { per_level: 1 }]);
    assert_eq!(
        eff(15),
        [RuleEffect::LightTroops {
            save: 5,
            solo_move_cm: 12
        }]
    );
    assert_eq!(
        eff(19),
        [RuleEffect::HorseArtillery {
            surcharge: 0,
            limber_cm: 30
        }]
    );
    assert_eq!(eff(2), [RuleEffect::Elite]);
    assert_eq!(eff(25), [RuleEffect::Poor]);
}

// ------------------------------------------------------------------------------------- Colonial

#[test]
fn colonial_row_counts_and_spot_values_col_02_col_04_section_5_5() {
    let b = book("colonial.json");
    assert_eq!(b.period, Period::Colonial);
    assert!(!b.first_fire_bonus);
    assert!(!b.ranges_scale, "§5.5: the list's own small-action scale");
    let l = list("colonial.json", "colonial");
    assert_eq!(l.source.lines, "1866-1938");
    assert_eq!(l.troop_types.len(), 29, "§5.7: Colonial troop rows");
    assert_eq!(l.command_types.len(), 6, "§5.7: Colonial command rows");
    let nos: Vec<u32> = l.special_rules.iter().map(|r| r.no).collect();
    assert_eq!(nos, (1..=23).collect::<Vec<_>>());
    assert_eq!(l.caps.hq_per_stands, Some(10), "ARMY-06 d");
    assert_eq!(
        l.caps.exceptional_per_level, None,
        "ARMY-07: no Colonial cap"
    );

    // Seed 1874: Colonial Egyptian Rifle | Infantry | 10 | 3/30* | 4 | - | 20 | 3/- | 1
    let eg = row(&l, "colonial-egyptian-rifle");
    assert_eq!(eg.movement, Move::Cm(10));
    assert_eq!(eg.attack, ranged(3, 30), "COL-04: trailing '*' ignored");
    assert_eq!(eg.hits, 4);
    assert_eq!(save(eg), None);
    assert_eq!(eg.points, Some(20));
    assert_eq!(eg.limit, lim(Some(3), None));
    // Seed 1880: Zulu | Infantry | 10 | CC only | 7 | - | 15 | 3/- | 4
    let z = row(&l, "zulu");
    assert_eq!(z.attack, Some(Attack::CloseCombatOnly));
    assert_eq!(z.hits, 7);
    // Seed 1884: Native Rifle | Infantry | 12 | 4/20* | 6 | - | 30 | -/3 | 8
    assert_eq!(row(&l, "native-rifle").limit, lim(None, Some(3)));
    // Seed 1886: Boer Rifle | Infantry | 10 | 5/40* | 5 | - | 20 | 3/- | 10
    assert_eq!(row(&l, "boer-rifle").attack, ranged(5, 40));
    // Seed 1887: Cavalry | Cavalry | 30 | 2/5* | 5 | - | 30 | -/6 | 11
    assert_eq!(row(&l, "cavalry").limit, lim(None, Some(6)));
    // Seed 1888: Machine Gun | Infantry | 5 | 3/50* | 4 | - | 40 | -/1 | 12
    let mg = row(&l, "machine-gun");
    assert_eq!(mg.arm, Arm::Infantry);
    assert_eq!(mg.movement, Move::Cm(5));
    // Seed 1889: Engineer | Engineers | 10 | 3/30* | 6 | - | 60 | -/- 3 | 13 → "-/-" (§5.6 / §5.5)
    let en = row(&l, "engineer");
    assert_eq!(en.arm, Arm::Engineers);
    assert_eq!(en.limit, lim(None, None));
    assert!(has_correction(en, "limit", "-/- 3", "§5.5"));
    // Seed 1895: Gun, QF | Artillery | - | 4/80 | 5 | - | 50 | -/2 | 19
    let qf = row(&l, "gun-qf");
    assert_eq!(qf.name, "Gun, QF");
    assert_eq!(qf.movement, Move::Immobile);
    assert_eq!(qf.attack, ranged(4, 80));
    assert_eq!(qf.points, Some(50));
    // Seed 1896: Armored Car All | Armour | 20 | 1/30* | 2 | 6 | 100 | -/- 1 | (+1911) 20
    let ac = row(&l, "armored-car-all");
    assert_eq!(ac.arm, Arm::Armour);
    assert_eq!(save(ac), Some(6));
    assert_eq!(
        ac.years,
        Some(Years {
            from: 1911,
            to: None
        })
    );
    assert_eq!(ac.limit, lim(None, None));
    assert!(has_correction(ac, "limit", "-/- 1", "§5.5"));
    assert_eq!(ac.notes, [20]);
    // Seed 1897: Artillery, Light, Modern | Artillery | - | 2/90 | 4 | - | 25 | -/- 1 | (+1908) 21
    let alm = row(&l, "artillery-light-modern");
    assert_eq!(
        alm.years,
        Some(Years {
            from: 1908,
            to: None
        })
    );
    assert!(has_correction(alm, "limit", "-/- 1", "§5.5"));
    // Seed 1899: Limbered Artillery | (blank) | 15/30 | (blank) | 2 | - | - | -/- | 22
    let lb = row(&l, "limbered-artillery");
    assert_eq!(lb.arm, Arm::Transport);
    assert_eq!(lb.role, RowRole::Limber);
    assert_eq!(
        lb.movement,
        Move::Limber {
            foot: 15,
            horse: 30
        }
    );
    assert_eq!(lb.points, None);
    assert!(
        lb.corrections.is_empty(),
        "the Colonial arm cell is blank, not 'Cav'"
    );
    // Seed 1898, 1900-1902: transport rows with a blank Arm.
    for id in ["bicycles", "wagon", "riding-horses", "trucks"] {
        let t = row(&l, id);
        assert_eq!(t.arm, Arm::Transport, "{id}");
        assert_eq!(t.attack, None, "{id}");
        assert!(t.notes.is_empty(), "{id}");
    }
    assert_eq!(row(&l, "trucks").points, Some(30));
    assert_eq!(row(&l, "wagon").movement, Move::Cm(10));

    // Seed 1910: HQ | Very Good | 10 | 10/30 | +2 | 6 | +6 | 125 | (blank) | 23
    let vg = hq(&l, CommandLevel::Hq, Quality::VeryGood);
    assert_eq!((vg.command, vg.presence_dice, vg.points), (10, 2, 125));
    assert_eq!(vg.limit, HqLimit::Unlimited);
    // Seed 1909: HQ | Good | 9 | 10/30 | +1 | ... | 100 — the non-monotonic presence kept.
    assert_eq!(hq(&l, CommandLevel::Hq, Quality::Good).presence_dice, 1);
    // Seed 1911: HQ | Exceptional | 11 | ... | 5, 6 | 170
    assert_eq!(
        hq(&l, CommandLevel::Hq, Quality::Exceptional)
            .save
            .map(|s| s.target()),
        Some(5)
    );
    assert!(l.command_types.iter().all(|c| c.level == CommandLevel::Hq));
    let quals: Vec<Quality> = l.command_types.iter().map(|c| c.quality).collect();
    assert_eq!(quals, Quality::ALL);

    // §5.5 rules 4 and 6: must close to fight.
    for n in [4, 6] {
        assert_eq!(
            l.special_rule(n).expect("rule").effects,
            [RuleEffect::CloseCombatOnly]
        );
    }
}

// ------------------------------------------------------------------------------- whole books

#[test]
fn every_cited_note_exists_in_special_rules_or_missing_rules_col_09() {
    for file in OUR_BOOKS {
        for l in lists(file) {
            let known = |n: u32| l.special_rule(n).is_some() || l.missing_rules.contains(&n);
            for r in &l.troop_types {
                for n in &r.notes {
                    assert!(known(*n), "{file} {} row {} cites note {n}", l.id, r.id);
                }
            }
            for c in &l.command_types {
                for n in &c.notes {
                    assert!(known(*n), "{file} {} {} cites note {n}", l.id, c.label());
                }
            }
            for m in &l.missing_rules {
                assert!(
                    l.special_rule(*m).is_none(),
                    "{file}: {m} is both present and missing"
                );
            }
        }
    }
}

#[test]
fn every_correction_names_the_catalogue_rule_that_makes_it() {
    let mut count = 0;
    for file in OUR_BOOKS {
        for l in lists(file) {
            let troop = l.troop_types.iter().flat_map(|r| r.corrections.iter());
            let cmd = l.command_types.iter().flat_map(|c| c.corrections.iter());
            for c in troop.chain(cmd) {
                count += 1;
                assert!(!c.rule.trim().is_empty(), "{file}: {c:?}");
                assert!(!c.field.trim().is_empty(), "{file}: {c:?}");
                assert!(!c.printed.trim().is_empty(), "{file}: {c:?}");
                assert!(!c.adopted.trim().is_empty(), "{file}: {c:?}");
                assert_ne!(c.printed, c.adopted, "{file}: {c:?}");
            }
        }
    }
    // Union: Gatling, limber; Confederate: limber; 18C: 3 cavalry ranges, Heavy Cavalry move,
    // limber, Engineers notes, 9 "*26" HQ limits; Colonial: 3 stray limit digits.
    assert_eq!(count, 2 + 1 + (3 + 1 + 1 + 1 + 9) + 3);
}

#[test]
fn row_ids_are_unique_slugs_and_roles_follow_army_10() {
    for file in OUR_BOOKS {
        for l in lists(file) {
            let mut seen = std::collections::HashSet::new();
            for r in &l.troop_types {
                let id = r.id.as_str();
                assert!(seen.insert(id), "{file} {}: duplicate row id {id}", l.id);
                assert!(
                    !id.is_empty()
                        && id
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                        && !id.starts_with('-')
                        && !id.ends_with('-')
                        && !id.contains("--"),
                    "{file}: bad slug {id}"
                );
                assert_eq!(r.name.trim(), r.name, "{id}");
                assert!(!r.name.contains("  "), "{id}");
                match r.role {
                    RowRole::SkirmishProfile => {
                        assert!(r.name.starts_with("Skirmishing Infantry"), "{id}");
                        assert_eq!(r.points, None, "{id}");
                    }
                    RowRole::DismountedMode => {
                        assert!(r.name.contains("Dismounted"), "{id}");
                        assert!(!r.purchasable(), "{id}");
                    }
                    RowRole::Limber => {
                        assert_eq!(r.arm, Arm::Transport, "{id}");
                        assert_eq!(r.points, None, "{id}");
                        assert!(matches!(r.movement, Move::Limber { .. }), "{id}");
                    }
                    RowRole::Unit => {
                        assert!(!r.name.starts_with("Skirmishing"), "{id}");
                        assert!(!r.name.contains("Dismounted"), "{id}");
                    }
                }
                if let Some(s) = r.save {
                    assert!((2..=6).contains(&s.target()));
                }
            }
            for c in &l.command_types {
                assert_eq!(c.hits, 6, "{}", c.label());
                assert_eq!(
                    c.movement,
                    Move::Command {
                        dismounted: 10,
                        mounted: 30
                    }
                );
            }
        }
    }
}

#[test]
fn books_round_trip_through_serde_unchanged() {
    for file in OUR_BOOKS {
        let b = book(file);
        let text = serde_json::to_string(&b).expect("serialise");
        let again = parse_book(file, &text).expect("re-parse");
        assert_eq!(b, again, "{file}");
        // The file on disk is the one embedded in SHIPPED_BOOKS.
        let disk = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("assets/armies")
                .join(file),
        )
        .expect("read book");
        assert_eq!(
            parse_book(file, &disk).expect("parse disk copy"),
            b,
            "{file}"
        );
    }
}
