//! The Napoleonic and Franco-Prussian army-list books (`assets/armies/napoleonic.json`,
//! `assets/armies/franco-prussian.json`) checked against the rulebook transcription
//! `000_88000d3b8e05e4da.txt` (seed lines cited per value) and the catalogue rulings
//! (§4.6 ARMY, §5.0 COL, §5.2, §5.3, §5.6, §5.7).

use powderhorn::model::army::{
    parse_book, Arm, ArmyList, Attack, CommandLevel, HqLimit, HqRange, ListBook, Move, Period,
    Quality, RowGrade, RowRole, RuleEffect, TroopType, SHIPPED_BOOKS,
};

const NAP_FILE: &str = "napoleonic.json";
const FPW_FILE: &str = "franco-prussian.json";

fn book(file: &str) -> ListBook {
    let (_, text) = SHIPPED_BOOKS
        .iter()
        .find(|(f, _)| *f == file)
        .unwrap_or_else(|| panic!("{file} is not among SHIPPED_BOOKS"));
    parse_book(file, text).unwrap_or_else(|e| panic!("{e}"))
}

fn lists(file: &str) -> Vec<ArmyList> {
    book(file).resolve()
}

fn list(file: &str, id: &str) -> ArmyList {
    lists(file)
        .into_iter()
        .find(|l| l.id.as_str() == id)
        .unwrap_or_else(|| panic!("no list {id} in {file}"))
}

fn row<'a>(l: &'a ArmyList, id: &str) -> &'a TroopType {
    l.troop_types
        .iter()
        .find(|t| t.id.as_str() == id)
        .unwrap_or_else(|| panic!("no row {id} in {}", l.id))
}

fn ranged(dice: u8, range_cm: u32) -> Option<Attack> {
    Some(Attack::Ranged { dice, range_cm })
}

fn save(t: &TroopType) -> Option<u8> {
    t.save.map(|s| s.target())
}

fn limit(t: &TroopType) -> Option<(Option<u32>, Option<u32>)> {
    t.limit.map(|l| (l.min, l.max))
}

/// The row carries a correction of `field` from `printed` to `adopted` citing `rule`.
fn assert_correction(t: &TroopType, field: &str, printed: &str, adopted: &str, rule: &str) {
    assert!(
        t.corrections.iter().any(|c| c.field == field
            && c.printed == printed
            && c.adopted == adopted
            && c.rule == rule),
        "{}: expected correction {field} {printed:?} -> {adopted:?} ({rule}), have {:?}",
        t.id,
        t.corrections
    );
}

fn hq(level: CommandLevel, min_inf: u32, max_inf: u32) -> HqRange {
    HqRange {
        level,
        min_inf,
        max_inf,
    }
}

/// The shared 12-row chart (Napoleonic seed 1603-1614, FPW seed 1741-1752, identical values;
/// COL-10). `nation_limit`: Brigade/Division/Corps limit "*" / "*9" → nation text.
fn assert_shared_command_chart(l: &ArmyList) {
    assert_eq!(l.command_types.len(), 12, "{}: command rows", l.id);
    let expect: [(CommandLevel, Quality, u8, u8, u8, u32); 12] = [
        (CommandLevel::Brigade, Quality::Uninspiring, 6, 0, 6, 30),
        (CommandLevel::Brigade, Quality::Average, 7, 1, 6, 55),
        (CommandLevel::Brigade, Quality::Exceptional, 8, 2, 6, 90),
        (CommandLevel::Division, Quality::Uninspiring, 7, 0, 6, 35),
        (CommandLevel::Division, Quality::Average, 8, 1, 6, 60),
        (CommandLevel::Division, Quality::Exceptional, 9, 2, 6, 95),
        (CommandLevel::Corps, Quality::Uninspiring, 8, 1, 6, 45),
        (CommandLevel::Corps, Quality::Average, 9, 1, 6, 80),
        (CommandLevel::Corps, Quality::Exceptional, 10, 2, 6, 110),
        (CommandLevel::Army, Quality::Uninspiring, 9, 1, 6, 100),
        (CommandLevel::Army, Quality::Average, 10, 2, 6, 125),
        // "5, 6" save on the Exceptional Army HQ = 5+ (FIRE-18).
        (CommandLevel::Army, Quality::Exceptional, 11, 3, 5, 170),
    ];
    for (level, quality, command, presence, sv, points) in expect {
        let c = l
            .command_type(level, quality)
            .unwrap_or_else(|| panic!("{}: no {level:?} {quality:?}", l.id));
        assert_eq!(c.command, command, "{}", c.label());
        assert_eq!(c.presence_dice, presence, "{}", c.label());
        assert_eq!(c.hits, 6, "{}", c.label());
        assert_eq!(c.save.map(|s| s.target()), Some(sv), "{}", c.label());
        assert_eq!(c.points, points, "{}", c.label());
        assert_eq!(
            c.movement,
            Move::Command {
                dismounted: 10,
                mounted: 30
            },
            "{}",
            c.label()
        );
        let want_limit = if level == CommandLevel::Army {
            HqLimit::One
        } else {
            HqLimit::Nation
        };
        assert_eq!(c.limit, want_limit, "{}", c.label());
        let want_notes = if quality == Quality::Exceptional {
            vec![9, 10]
        } else {
            vec![9]
        };
        assert_eq!(c.notes, want_notes, "{}", c.label());
    }
}

fn rule_numbers(l: &ArmyList) -> Vec<u32> {
    l.special_rules.iter().map(|r| r.no).collect()
}

// ---------------------------------------------------------------------------------------------
// Napoleonic book
// ---------------------------------------------------------------------------------------------

#[test]
fn nap_book_parses_with_six_lists_shared_chart_rules_1_to_25_and_caps_fire_13_army_07_09() {
    let b = book(NAP_FILE);
    assert_eq!(b.period, Period::Napoleonic);
    // Seed 1620: "+1 to hit die roll modifier the first time it fires" (FIRE-13).
    assert!(b.first_fire_bonus);
    assert!(b.ranges_scale);
    assert_eq!(b.caps.exceptional_per_level, Some(1)); // note 10, seed 1634
    assert_eq!(b.caps.elite.len(), 2);
    let inf = b
        .caps
        .elite
        .iter()
        .find(|c| c.arm == Arm::Infantry)
        .unwrap();
    assert_eq!((inf.per_points, inf.unless_all_elite), (3000, true)); // note 2, seed 1623
    let cav = b.caps.elite.iter().find(|c| c.arm == Arm::Cavalry).unwrap();
    assert_eq!((cav.per_points, cav.unless_all_elite), (3000, false)); // note 15, seed 1639
    assert_eq!(b.command_types.len(), 12);
    assert!(b.missing_rules.is_empty());

    let ids: Vec<&str> = b.lists.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "nap-french",
            "nap-british",
            "nap-spanish",
            "nap-austrian",
            "nap-prussian",
            "nap-russian"
        ]
    );
    for l in &b.lists {
        assert!(l.command_types.is_none(), "{} uses the shared chart", l.id);
        assert_eq!(l.source.seed, "000_88000d3b8e05e4da.txt");
        assert!(!l.organisation.is_empty(), "{}", l.id);
    }

    for l in b.resolve() {
        assert_eq!(l.period, Period::Napoleonic);
        assert!(l.first_fire_bonus);
        assert_shared_command_chart(&l);
        assert_eq!(rule_numbers(&l), (1..=25).collect::<Vec<u32>>());
        for r in &l.special_rules {
            assert!(!r.title.trim().is_empty(), "rule {}", r.no);
            assert!(
                !r.gist.trim().is_empty() && !r.gist.contains('\n'),
                "rule {}",
                r.no
            );
        }
    }
}

#[test]
fn nap_special_rule_effects_match_the_rule_numbers_art_02_art_04_army_11() {
    let l = list(NAP_FILE, "nap-french");
    let fx = |n: u32| l.special_rule(n).unwrap().effects.clone();
    // Seed 1627: field artillery penetrates 5 cm, canister 4 attacks at 15 cm, no initiative charge.
    let six = fx(6);
    assert!(six.contains(&RuleEffect::ArtilleryCoverShift));
    assert!(six.contains(&RuleEffect::RoundShotPenetration { cm: 5 }));
    assert!(six.contains(&RuleEffect::Canister {
        attacks: 4,
        range_cm: 15
    }));
    assert!(six.contains(&RuleEffect::NoInitiativeCharge));
    // Seed 1628: fortress artillery canister 3 attacks at 15 cm and never moves.
    let seven = fx(7);
    assert!(seven.contains(&RuleEffect::Canister {
        attacks: 3,
        range_cm: 15
    }));
    assert!(seven.contains(&RuleEffect::NeverMoves));
    // ARMY-11: the +10 is already inside the 85-point Horse Artillery row.
    assert_eq!(
        fx(20),
        vec![RuleEffect::HorseArtillery {
            surcharge: 0,
            limber_cm: 30
        }]
    );
    assert_eq!(
        fx(17),
        vec![RuleEffect::LightTroops {
            save: 5,
            solo_move_cm: 12
        }]
    );
    assert_eq!(fx(18), vec![RuleEffect::HighAngle { wall_save: 4 }]);
    assert_eq!(fx(2), vec![RuleEffect::Elite]);
    assert_eq!(fx(3), vec![RuleEffect::Poor]);
    assert_eq!(fx(15), vec![RuleEffect::Elite]);
    assert_eq!(fx(16), vec![RuleEffect::Poor]);
    assert_eq!(fx(10), vec![RuleEffect::ExceptionalCap { per_level: 1 }]);
    assert_eq!(
        fx(23),
        vec![RuleEffect::TrainedBy {
            nation: "British".into()
        }]
    );
    assert_eq!(
        fx(25),
        vec![RuleEffect::TrainedBy {
            nation: "French".into()
        }]
    );
    assert!(fx(1).is_empty());
}

#[test]
fn nap_french_row_counts_and_spot_values_army_04_col_07() {
    let l = list(NAP_FILE, "nap-french");
    assert!(l.complete);
    assert_eq!(l.troop_types.len(), 32);
    assert_eq!(l.command_types.len(), 12);
    // Seed 1364.
    assert_eq!(
        l.hq_ranges,
        vec![
            hq(CommandLevel::Brigade, 4, 6),
            hq(CommandLevel::Division, 8, 12),
            hq(CommandLevel::Corps, 24, 36)
        ]
    );
    assert_eq!(l.source.lines, "1352-1410");

    // Seed 1374: Skirmishing Infantry | Inf | 12 | 1/10 | 2 | None | | | 17 → COL-12 save 5.
    let sk = row(&l, "skirmishing-infantry");
    assert_eq!(sk.movement, Move::Cm(12));
    assert_eq!(sk.role, RowRole::SkirmishProfile);
    assert_eq!(sk.points, None);
    assert_eq!(sk.limit, None);
    assert!(!sk.purchasable());
    assert_eq!(save(sk), Some(5));
    assert_correction(sk, "save", "None", "5", "COL-12");

    // Seed 1375: Old Guard | Inf | 10 | 1/10 | 3 | 4 | 105 | 4/- | 1, 2, 21.
    let og = row(&l, "old-guard");
    assert_eq!(og.arm, Arm::Infantry);
    assert_eq!(og.movement, Move::Cm(10));
    assert_eq!(og.attack, ranged(1, 10));
    assert_eq!(og.hits, 3);
    assert_eq!(save(og), Some(4));
    assert_eq!(og.points, Some(105));
    assert_eq!(limit(og), Some((Some(4), None)));
    assert_eq!(og.notes, vec![1, 2, 21]);
    assert_eq!(og.grade, RowGrade::Elite);
    assert!(og.corrections.is_empty());

    // Seed 1376: Middle Guard lacks note 2 → not elite.
    assert_eq!(row(&l, "middle-guard").grade, RowGrade::Regular);

    // Seed 1382: Provisional Line Infantry (13) | ... | 2 | 0 | 35 | 4/- | 1, 3, 21.
    let pl = row(&l, "provisional-line-infantry-13");
    assert_eq!(pl.hits, 2);
    assert_eq!(pl.save, None);
    assert_eq!(pl.grade, RowGrade::Poor);
    assert_eq!(pl.years.map(|y| (y.from, y.to)), Some((1813, Some(1813))));

    // Seed 1380: Line Infantry (08-12) ... 6 | 55.
    let li = row(&l, "line-infantry-08-12");
    assert_eq!((save(li), li.points), (Some(6), Some(55)));
    assert_eq!(li.years.map(|y| (y.from, y.to)), Some((1808, Some(1812))));

    // Seed 1388: "Light Infantry(15)" — OCR split fixed in the name; save 6 kept (COL-12).
    let l15 = row(&l, "light-infantry-15");
    assert_eq!(l15.name, "Light Infantry (15)");
    assert_eq!(save(l15), Some(6));
    assert!(l15.corrections.is_empty());

    // Seed 1389: Heavy Cavalry (05-06,13-15): split years → no single range stored.
    let hc = row(&l, "heavy-cavalry-05-06-13-15");
    assert_eq!(hc.years, None);
    assert_eq!(hc.attack, ranged(1, 2));
    assert_eq!(limit(hc), Some((None, Some(1))));

    // Seed 1393: Light Cavalry (13/15) → 1813-1815.
    let lc = row(&l, "light-cavalry-13-15");
    assert_eq!(lc.years.map(|y| (y.from, y.to)), Some((1813, Some(1815))));
    assert_eq!((save(lc), lc.points), (None, Some(45)));

    // Seed 1394: Guard Heavy Cavalry (05-12) ... 4 | 120 | -/3 | 4, 13, 15.
    let ghc = row(&l, "guard-heavy-cavalry-05-12");
    assert_eq!(ghc.points, Some(120));
    assert_eq!(limit(ghc), Some((None, Some(3))));
    assert_eq!(ghc.grade, RowGrade::Elite);

    // Seeds 1396-1397: Guard Light Cavalry notes "4, 11, 12, 1" → 4, 11, 12, 15 (§5.6 / §5.2).
    for id in ["guard-light-cavalry-05-12", "guard-light-cavalry-13-15"] {
        let g = row(&l, id);
        assert_eq!(g.notes, vec![4, 11, 12, 15], "{id}");
        assert_eq!(g.grade, RowGrade::Elite, "{id}");
        assert_correction(g, "notes", "4, 11, 12, 1", "4, 11, 12, 15", "§5.6 / §5.2");
    }

    // Seed 1398: Dismounted Cavalry, All | Inf | 10 | 1/7 | 2 | 5 | 85 | | 4, 5 (ARMY-10 b).
    let dc = row(&l, "dismounted-cavalry-all");
    assert_eq!(dc.role, RowRole::DismountedMode);
    assert_eq!(dc.points, Some(85));
    assert_eq!(dc.attack, ranged(1, 7));
    assert!(!dc.purchasable());

    // Seed 1400: Field Artillery | Art | 5/10 | 1/45 (COL-03 manhandle / prolonge).
    let fa = row(&l, "field-artillery");
    assert_eq!(
        fa.movement,
        Move::Gun {
            manhandle: 5,
            prolonge: 10
        }
    );
    assert_eq!(fa.attack, ranged(1, 45));
    assert_eq!(fa.save, None);
    assert_eq!(limit(fa), Some((None, Some(2))));

    // Seed 1402: Mortar | Art | 0 | 1/20 | 2 | 0 | 70 | (blank) | 8, 18.
    let mo = row(&l, "mortar");
    assert_eq!(mo.movement, Move::Immobile);
    assert_eq!(mo.attack, ranged(1, 20));
    assert_eq!(mo.limit, None);
    assert_eq!(mo.notes, vec![8, 18]);

    // Seed 1403: Horse Artillery 85 points (ARMY-11).
    assert_eq!(row(&l, "horse-artillery").points, Some(85));

    // Seed 1404: Limbered Artillery | Cav | 10/30 | (blank) | 2 | 0 → transport limber (COL-02).
    let lb = row(&l, "limbered-artillery");
    assert_eq!(lb.arm, Arm::Transport);
    assert_eq!(lb.role, RowRole::Limber);
    assert_eq!(
        lb.movement,
        Move::Limber {
            foot: 10,
            horse: 30
        }
    );
    assert_eq!(lb.attack, None);
    assert_eq!(lb.points, None);
    assert_correction(lb, "arm", "Cav", "transport", "COL-02");

    // Seed 1405: Engineers | Engr | 10 | 2/10 | 2 | 0 | 125 | -/1 | 1, 19.
    let en = row(&l, "engineers");
    assert_eq!(en.arm, Arm::Engineers);
    assert_eq!(en.attack, ranged(2, 10));
    assert_eq!(en.points, Some(125));
}

#[test]
fn nap_british_is_incomplete_with_no_troop_rows_but_shared_chart_and_rules_section_5_2() {
    let l = list(NAP_FILE, "nap-british");
    assert!(!l.complete);
    assert!(l
        .incomplete_reason
        .as_deref()
        .is_some_and(|r| r.contains("missing")));
    assert!(l.troop_types.is_empty());
    assert_shared_command_chart(&l);
    // Seed 1603: Brigade HQ | Uninspiring | 6 | 10/30 | +0 | 6 | +6 | 30 | * | 9.
    let b = l
        .command_type(CommandLevel::Brigade, Quality::Uninspiring)
        .unwrap();
    assert_eq!((b.command, b.points, b.limit), (6, 30, HqLimit::Nation));
    // Seed 1614: Army HQ | Exceptional | 11 | 10/30 | +3 | 6 | 5, 6 | 170 | 1 | 9, 10.
    let a = l
        .command_type(CommandLevel::Army, Quality::Exceptional)
        .unwrap();
    assert_eq!(
        (a.command, a.presence_dice, a.points, a.limit),
        (11, 3, 170, HqLimit::One)
    );
    assert_eq!(a.save.map(|s| s.target()), Some(5));
    assert_eq!(rule_numbers(&l), (1..=25).collect::<Vec<u32>>());
    // Note 23 (British trained) is ready for when the chart arrives.
    assert!(l.special_rule(23).is_some());
    // Seed 1424.
    assert_eq!(
        l.hq_ranges,
        vec![
            hq(CommandLevel::Brigade, 3, 5),
            hq(CommandLevel::Division, 12, 20),
            hq(CommandLevel::Corps, 36, 60)
        ]
    );
}

#[test]
fn nap_spanish_row_counts_and_spot_values_guard_heavy_move_30_col_12() {
    let l = list(NAP_FILE, "nap-spanish");
    assert!(l.complete);
    assert_eq!(l.troop_types.len(), 21);
    assert_eq!(l.command_types.len(), 12);
    // Seed 1448.
    assert_eq!(
        l.hq_ranges,
        vec![
            hq(CommandLevel::Brigade, 4, 6),
            hq(CommandLevel::Division, 8, 18),
            hq(CommandLevel::Corps, 24, 54)
        ]
    );

    // Seed 1454 ("-" stray OCR lead ignored): Skirmishing Infantry | Inf | 10 ... None → 5.
    let sk = row(&l, "skirmishing-infantry");
    assert_eq!(sk.movement, Move::Cm(10));
    assert_eq!(sk.role, RowRole::SkirmishProfile);
    assert_correction(sk, "save", "None", "5", "COL-12");

    // Seed 1455: Guard/Grenadier Infantry | Inf | 8 | 1/10 | 3 | 5 | 75 | 4/- | 1, 2, 24.
    let gg = row(&l, "guard-grenadier-infantry");
    assert_eq!(gg.movement, Move::Cm(8));
    assert_eq!((save(gg), gg.points), (Some(5), Some(75)));
    assert_eq!(gg.notes, vec![1, 2, 24]);
    assert_eq!(gg.grade, RowGrade::Elite);

    // Seed 1456: Line Infantry (09/15) | 8 | ... | 0 | 30.
    let l0915 = row(&l, "line-infantry-09-15");
    assert_eq!((l0915.save, l0915.points), (None, Some(30)));
    assert_eq!(
        l0915.years.map(|y| (y.from, y.to)),
        Some((1809, Some(1815)))
    );

    // Seed 1458: Light Infantry (09/15) save 0 with note 17 → 5 (COL-12).
    let lt = row(&l, "light-infantry-09-15");
    assert_eq!(save(lt), Some(5));
    assert_correction(lt, "save", "0", "5", "COL-12");

    // Seed 1462: Light Infantry (13/15) | Inf | 12 | 1/10 | 3 | 6 | 30 | -/1 | 1, 17, 22, 23.
    let lt13 = row(&l, "light-infantry-13-15");
    assert_eq!(lt13.movement, Move::Cm(12));
    assert_eq!(save(lt13), Some(6));
    assert!(lt13.corrections.is_empty());
    assert_eq!(limit(lt13), Some((None, Some(1))));
    assert_eq!(lt13.notes, vec![1, 17, 22, 23]);

    // Seed 1463: Guard/Heavy Cavalry Move 10 → 30 (§5.6 / §5.2); note 16 → poor.
    let gh = row(&l, "guard-heavy-cavalry");
    assert_eq!(gh.movement, Move::Cm(30));
    assert_correction(gh, "move", "10", "30", "§5.6 / §5.2");
    assert_eq!(gh.grade, RowGrade::Poor);
    assert_eq!(gh.attack, ranged(1, 2));

    // Seed 1464: Light Cavalry (05/08, 14/15) | ... | 0 | 75: kept as printed, split years.
    let lc = row(&l, "light-cavalry-05-08-14-15");
    assert_eq!((lc.save, lc.points), (None, Some(75)));
    assert_eq!(lc.years, None);

    // Seed 1469 ("9" stray OCR lead ignored): Field Artillery 5/10 1/45 75.
    let fa = row(&l, "field-artillery");
    assert_eq!(fa.attack, ranged(1, 45));
    assert_eq!(fa.points, Some(75));

    // Seed 1473: Limbered Artillery → transport (COL-02).
    let lb = row(&l, "limbered-artillery");
    assert_eq!((lb.arm, lb.role.clone()), (Arm::Transport, RowRole::Limber));
    assert_correction(lb, "arm", "Cav", "transport", "COL-02");
}

#[test]
fn nap_austrian_row_counts_and_spot_values_landwehr_move_8_col_12() {
    let l = list(NAP_FILE, "nap-austrian");
    assert!(l.complete);
    assert_eq!(l.troop_types.len(), 19);
    assert_eq!(l.command_types.len(), 12);
    // Seed 1488.
    assert_eq!(
        l.hq_ranges,
        vec![
            hq(CommandLevel::Brigade, 4, 6),
            hq(CommandLevel::Division, 8, 18),
            hq(CommandLevel::Corps, 24, 54)
        ]
    );

    // Seed 1495: Grenadier Infantry | Inf | 8 | 1/10 | 3 | 5 | 75 | 4/- | 1, 2.
    let gr = row(&l, "grenadier-infantry");
    assert_eq!(gr.movement, Move::Cm(8));
    assert_eq!(gr.grade, RowGrade::Elite);
    assert_eq!(limit(gr), Some((Some(4), None)));

    // Seed 1496: Line Infantry (05-06) 45 points, 1805-1806.
    let l05 = row(&l, "line-infantry-05-06");
    assert_eq!(l05.points, Some(45));
    assert_eq!(l05.years.map(|y| (y.from, y.to)), Some((1805, Some(1806))));

    // Seeds 1498-1499: Grenz and Jager save 0 + note 17 → 5 (COL-12); note 22.
    for id in ["grenz-infantry", "jager-infantry"] {
        let t = row(&l, id);
        assert_eq!(save(t), Some(5), "{id}");
        assert_correction(t, "save", "0", "5", "COL-12");
        assert_eq!(t.notes, vec![1, 17, 22], "{id}");
    }
    // Seed 1499: Jager 75 points, limit -/1.
    let jg = row(&l, "jager-infantry");
    assert_eq!((jg.points, limit(jg)), (Some(75), Some((None, Some(1)))));

    // Seed 1501: Landwehr Infantry Move 30 → 8 (§5.6 / §5.2); note 3 → poor.
    let lw = row(&l, "landwehr-infantry");
    assert_eq!(lw.movement, Move::Cm(8));
    assert_correction(lw, "move", "30", "8", "§5.6 / §5.2");
    assert_eq!(lw.grade, RowGrade::Poor);
    assert_eq!(lw.points, Some(30));

    // Seed 1502: Heavy Cavalry | Cav | 30 | 1/2 | 3 | 6 | 60 | -/1 | 4, 13.
    let hc = row(&l, "heavy-cavalry");
    assert_eq!(hc.movement, Move::Cm(30));
    assert_eq!(hc.attack, ranged(1, 2));
    assert_eq!((hc.hits, save(hc), hc.points), (3, Some(6), Some(60)));

    // Seed 1504: Freikorps/Landwehr Cav ... 30 | -/1 | 4, 11, 12, 16 → poor.
    let fl = row(&l, "freikorps-landwehr-cav");
    assert_eq!(fl.grade, RowGrade::Poor);
    assert_eq!(fl.points, Some(30));

    // Seed 1509: Mortar immobile, no limit.
    let mo = row(&l, "mortar");
    assert_eq!((mo.movement, mo.limit), (Move::Immobile, None));
}

#[test]
fn nap_prussian_is_incomplete_with_shared_chart_rules_and_average_leadership_section_5_2() {
    let l = list(NAP_FILE, "nap-prussian");
    assert!(!l.complete);
    assert!(l
        .incomplete_reason
        .as_deref()
        .is_some_and(|r| r.contains("missing")));
    assert!(l.troop_types.is_empty());
    assert_shared_command_chart(&l);
    // Seed 1610: Corps HQ | Average | 9 | 10/30 | +1 | 6 | +6 | 80 | * | 9.
    let c = l
        .command_type(CommandLevel::Corps, Quality::Average)
        .unwrap();
    assert_eq!(
        (c.command, c.presence_dice, c.points, c.limit),
        (9, 1, 80, HqLimit::Nation)
    );
    assert_eq!(rule_numbers(&l), (1..=25).collect::<Vec<u32>>());
    // Seed 1528.
    assert_eq!(
        l.hq_ranges,
        vec![
            hq(CommandLevel::Brigade, 4, 7),
            hq(CommandLevel::Division, 12, 21),
            hq(CommandLevel::Corps, 36, 63)
        ]
    );
    // §5.2 ruling: no Prussian leadership text, so Average throughout.
    assert!(l.organisation.contains("Average"));
}

#[test]
fn nap_russian_row_counts_and_spot_values_guard_jager_and_note_15_section_5_6() {
    let l = list(NAP_FILE, "nap-russian");
    assert!(l.complete);
    assert_eq!(l.troop_types.len(), 20);
    assert_eq!(l.command_types.len(), 12);
    // Seed 1556: only division and corps ranges are printed; §5.2 rules brigade 5–6.
    assert_eq!(
        l.hq_ranges,
        vec![
            hq(CommandLevel::Brigade, 5, 6),
            hq(CommandLevel::Division, 15, 18),
            hq(CommandLevel::Corps, 45, 54)
        ]
    );

    // Seed 1563: Guard Infantry | Inf | 10 | 1/10 | 3 | 5 | 75 | 4/- | 1, 2, 21.
    let gi = row(&l, "guard-infantry");
    assert_eq!((gi.hits, save(gi), gi.points), (3, Some(5), Some(75)));
    assert_eq!(gi.grade, RowGrade::Elite);

    // Seed 1564: Guard Jager Infantry Hits 1, notes 1, 15, 22 → Hits 3, notes 1, 2, 22.
    let gj = row(&l, "guard-jager-infantry");
    assert_eq!(gj.hits, 3);
    assert_eq!(gj.notes, vec![1, 2, 22]);
    assert_eq!(gj.grade, RowGrade::Elite);
    assert_eq!(save(gj), Some(6));
    assert_correction(gj, "hits", "1", "3", "§5.6 / §5.2");
    assert_correction(gj, "notes", "1, 15, 22", "1, 2, 22", "§5.6 / §5.2");

    // Seed 1568: Jager Infantry save 0 + note 17 → 5 (COL-12), 40 points, -/1.
    let jg = row(&l, "jager-infantry");
    assert_eq!(save(jg), Some(5));
    assert_correction(jg, "save", "0", "5", "COL-12");
    assert_eq!((jg.points, limit(jg)), (Some(40), Some((None, Some(1)))));

    // Seed 1569: Militia Infantry: poor, limit -/1 as printed (ARMY-09 ignores the max).
    let mi = row(&l, "militia-infantry");
    assert_eq!(mi.grade, RowGrade::Poor);
    assert_eq!(limit(mi), Some((None, Some(1))));

    // Seeds 1571-1572: note 15 moves from Light Cavalry to Guard Light Cavalry.
    let gl = row(&l, "guard-light-cavalry");
    assert_eq!(gl.notes, vec![4, 11, 12, 15]);
    assert_eq!(gl.grade, RowGrade::Elite);
    assert_correction(gl, "notes", "4, 11, 12", "4, 11, 12, 15", "§5.6 / §5.2");
    let lc = row(&l, "light-cavalry");
    assert_eq!(lc.notes, vec![4, 11, 12]);
    assert_eq!(lc.grade, RowGrade::Regular);
    assert_correction(lc, "notes", "4, 11, 12, 15", "4, 11, 12", "§5.6 / §5.2");
    assert_eq!((lc.save, lc.points), (None, Some(45)));

    // Seed 1573: Cossack Cavalry | Cav | 30 | 1/2 | 3 | 0 | 30 | -/1 | 4, 11, 14, 16.
    let co = row(&l, "cossack-cavalry");
    assert_eq!(co.movement, Move::Cm(30));
    assert_eq!(co.notes, vec![4, 11, 14, 16]);
    assert_eq!(co.grade, RowGrade::Poor);
    assert_eq!(co.points, Some(30));

    // Seed 1580: Limbered Artillery → transport (COL-02), 10/30.
    let lb = row(&l, "limbered-artillery");
    assert_eq!(
        lb.movement,
        Move::Limber {
            foot: 10,
            horse: 30
        }
    );
    assert_correction(lb, "arm", "Cav", "transport", "COL-02");
}

// ---------------------------------------------------------------------------------------------
// Franco-Prussian book
// ---------------------------------------------------------------------------------------------

#[test]
fn fpw_book_parses_with_two_lists_shared_chart_and_rules_missing_11_13_fire_13() {
    let b = book(FPW_FILE);
    assert_eq!(b.period, Period::FrancoPrussian);
    // FIRE-13: the FPW rules do not state the first-fire bonus.
    assert!(!b.first_fire_bonus);
    assert_eq!(b.caps.exceptional_per_level, Some(1)); // FPW 10, seed 1769
    assert_eq!(b.missing_rules, vec![11, 13]);
    let ids: Vec<&str> = b.lists.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["fpw-french", "fpw-prussian"]);
    let mut want: Vec<u32> = (1..=10).collect();
    want.extend([12, 14, 15, 16, 17, 18, 19]);
    for l in b.resolve() {
        assert_eq!(l.period, Period::FrancoPrussian);
        assert!(!l.first_fire_bonus);
        assert_shared_command_chart(&l); // seed 1741-1752, limit "*9" → nation
        assert_eq!(rule_numbers(&l), want);
        assert!(l.special_rule(11).is_none() && l.special_rule(13).is_none());
    }
    let l = list(FPW_FILE, "fpw-french");
    assert_eq!(
        l.special_rule(4).unwrap().effects.last(),
        Some(&RuleEffect::MountedRange { cm: 1 })
    );
    assert!(l
        .special_rule(6)
        .unwrap()
        .effects
        .contains(&RuleEffect::Canister {
            attacks: 4,
            range_cm: 20
        }));
}

#[test]
fn fpw_french_row_counts_and_spot_values_merged_cell_and_mounted_range_section_5_3() {
    let l = list(FPW_FILE, "fpw-french");
    assert!(l.complete);
    assert_eq!(l.troop_types.len(), 13);
    assert_eq!(l.command_types.len(), 12);
    // Seed 1678.
    assert_eq!(
        l.hq_ranges,
        vec![
            hq(CommandLevel::Brigade, 6, 8),
            hq(CommandLevel::Division, 12, 16),
            hq(CommandLevel::Corps, 24, 32)
        ]
    );

    // Seed 1682: Skirmishing Infantry | Inf | 10 | 1/35 | 2 | None | no points, limit, notes.
    let sk = row(&l, "skirmishing-infantry");
    assert_eq!(sk.role, RowRole::SkirmishProfile);
    assert!(sk.notes.is_empty());
    assert_eq!(sk.save, None);

    // Seed 1683: Guard | Inf | 10 | 1/35 | 3 | 5 | 105 | 4/- | 1, 2, 13.
    let gu = row(&l, "guard");
    assert_eq!(gu.attack, ranged(1, 35));
    assert_eq!((gu.hits, save(gu), gu.points), (3, Some(5), Some(105)));
    assert_eq!(gu.grade, RowGrade::Elite);

    // Seed 1684: Line Infantry save 0 kept (no light note).
    assert_eq!(row(&l, "line-infantry").save, None);
    // Seed 1685: Light Infantry save 5 printed, note 12: kept, no correction.
    let lt = row(&l, "light-infantry");
    assert_eq!(save(lt), Some(5));
    assert!(lt.corrections.is_empty());
    // Seed 1686: Garde National hits 2, poor.
    let gn = row(&l, "garde-national");
    assert_eq!((gn.hits, gn.grade), (2, RowGrade::Poor));

    // Seed 1687: Heavy Cavalry | Cav | 30 | 1/2 | 2 | 5 | 60 | -/1 | 4, 5, 17 → range 1.
    let hc = row(&l, "heavy-cavalry");
    assert_eq!(hc.movement, Move::Cm(30));
    assert_eq!(hc.attack, ranged(1, 1));
    assert_correction(hc, "attack", "1/2", "1/1", "§5.6 / FPW rule 4");
    assert_eq!(hc.notes, vec![4, 5, 17]);

    // Seed 1688: Light Cavalry "2 6" merged cell → Hits 2, Save 6; range 1.
    let lc = row(&l, "light-cavalry");
    assert_eq!((lc.hits, save(lc)), (2, Some(6)));
    assert_correction(lc, "hits", "2 6", "2", "§5.6 / §5.3");
    assert_correction(lc, "save", "2 6", "6", "§5.6 / §5.3");
    assert_eq!(lc.attack, ranged(1, 1));
    assert_correction(lc, "attack", "1/2", "1/1", "§5.6 / FPW rule 4");
    assert_eq!((lc.points, limit(lc)), (Some(60), Some((None, Some(1)))));
    assert_eq!(lc.notes, vec![4, 15, 16]);

    // Seed 1689: Dismounted Cavalry, All | Inf | 10 | 1/35 | 2 | 5 | 85 | | 4, 13.
    let dc = row(&l, "dismounted-cavalry-all");
    assert_eq!(dc.role, RowRole::DismountedMode);
    assert_eq!(dc.attack, ranged(1, 35));
    assert_eq!(dc.points, Some(85));

    // Seed 1690: Millailleuse | Art | 5/10 | 1/60 | 2 | 0 | 75 | -/1 | 6, 8.
    let mi = row(&l, "millailleuse");
    assert_eq!(mi.attack, ranged(1, 60));
    assert_eq!(limit(mi), Some((None, Some(1))));
    // Seed 1691: Artillery 1/80.
    assert_eq!(row(&l, "artillery").attack, ranged(1, 80));
    // Seed 1692: Fortress Artillery immobile, note 7 only.
    let fo = row(&l, "fortress-artillery");
    assert_eq!((fo.movement, fo.notes.clone()), (Move::Immobile, vec![7]));

    // Seed 1693: Limbered Artillery | Cav | 30 (both types, COL-03) → transport.
    let lb = row(&l, "limbered-artillery");
    assert_eq!(
        lb.movement,
        Move::Limber {
            foot: 30,
            horse: 30
        }
    );
    assert_eq!(lb.arm, Arm::Transport);
    assert_correction(lb, "arm", "Cav", "transport", "COL-02");
}

#[test]
fn fpw_prussian_row_counts_and_spot_values_mounted_range_section_5_3() {
    let l = list(FPW_FILE, "fpw-prussian");
    assert!(l.complete);
    assert_eq!(l.troop_types.len(), 12);
    assert_eq!(l.command_types.len(), 12);
    // Seed 1708.
    assert_eq!(
        l.hq_ranges,
        vec![
            hq(CommandLevel::Brigade, 6, 8),
            hq(CommandLevel::Division, 12, 16),
            hq(CommandLevel::Corps, 24, 32)
        ]
    );

    // Seed 1715: Guard Infantry | Inf | 10 | 1/30 | 3 | 5 | 75 | 4/- | 1, 2, 13.
    let gi = row(&l, "guard-infantry");
    assert_eq!(gi.attack, ranged(1, 30));
    assert_eq!(gi.grade, RowGrade::Elite);
    assert_eq!(gi.points, Some(75));
    // Seed 1717: Bavarian Jaeger Infantry range 35, no note 12 (kept as printed).
    let bj = row(&l, "bavarian-jaeger-infantry");
    assert_eq!(bj.attack, ranged(1, 35));
    assert_eq!(bj.notes, vec![1, 13]);
    // Seed 1718: Jaeger Infantry ... 5 | 75 | -/1 | 1, 12, 13.
    let jg = row(&l, "jaeger-infantry");
    assert_eq!((save(jg), jg.points), (Some(5), Some(75)));
    assert_eq!(limit(jg), Some((None, Some(1))));
    assert!(jg.corrections.is_empty());
    // Seed 1719: Heavy Cavalry | Cav | 30 | 1/2 | 2 | 6 | 60 | -/1 | 4, 17 → range 1.
    let hc = row(&l, "heavy-cavalry");
    assert_eq!(hc.attack, ranged(1, 1));
    assert_eq!((hc.hits, save(hc)), (2, Some(6)));
    assert_correction(hc, "attack", "1/2", "1/1", "§5.6 / FPW rule 4");
    // Seed 1720: Light Cavalry → range 1.
    assert_correction(
        row(&l, "light-cavalry"),
        "attack",
        "1/2",
        "1/1",
        "§5.6 / FPW rule 4",
    );
    // Seed 1721: Dismounted Cavalry keeps range 30 (not mounted).
    let dc = row(&l, "dismounted-cavalry-all");
    assert_eq!(dc.attack, ranged(1, 30));
    assert_eq!(dc.notes, vec![4, 5, 13]);
    // Seed 1722: Artillery | Art | 5/10 | 1/100 | 2 | 0 | 75 | -/2.
    let ar = row(&l, "artillery");
    assert_eq!(ar.attack, ranged(1, 100));
    assert_eq!(
        ar.movement,
        Move::Gun {
            manhandle: 5,
            prolonge: 10
        }
    );
    assert_eq!(limit(ar), Some((None, Some(2))));
    // Seed 1724: Limbered Artillery → transport.
    assert_correction(
        row(&l, "limbered-artillery"),
        "arm",
        "Cav",
        "transport",
        "COL-02",
    );
    // Seed 1725: Engineers | Engr | 10 | 1/30 | 2 | 0 | 125 | -/1 | 1, 13, 14.
    let en = row(&l, "engineers");
    assert_eq!((en.arm, en.points), (Arm::Engineers, Some(125)));
    assert_eq!(en.notes, vec![1, 13, 14]);
}

// ---------------------------------------------------------------------------------------------
// Whole-book invariants
// ---------------------------------------------------------------------------------------------

#[test]
fn every_cited_note_exists_in_special_rules_or_missing_rules_col_09() {
    for file in [NAP_FILE, FPW_FILE] {
        for l in lists(file) {
            let known = |n: u32| l.special_rule(n).is_some() || l.missing_rules.contains(&n);
            for t in &l.troop_types {
                for n in &t.notes {
                    assert!(known(*n), "{} {}: note {n}", l.id, t.id);
                }
            }
            for c in &l.command_types {
                for n in &c.notes {
                    assert!(known(*n), "{} {}: note {n}", l.id, c.label());
                }
            }
        }
    }
}

#[test]
fn every_correction_cites_a_rule_and_row_ids_are_unique_slugs() {
    for file in [NAP_FILE, FPW_FILE] {
        for l in lists(file) {
            let mut seen = std::collections::HashSet::new();
            for t in &l.troop_types {
                assert!(seen.insert(t.id.as_str()), "{}: duplicate {}", l.id, t.id);
                assert!(
                    t.id.as_str()
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                    "{}: id {}",
                    l.id,
                    t.id
                );
                for c in &t.corrections {
                    assert!(!c.rule.trim().is_empty(), "{} {}: {c:?}", l.id, t.id);
                    assert!(!c.field.trim().is_empty(), "{} {}: {c:?}", l.id, t.id);
                    assert!(!c.adopted.trim().is_empty(), "{} {}: {c:?}", l.id, t.id);
                }
            }
            for c in &l.command_types {
                for k in &c.corrections {
                    assert!(!k.rule.trim().is_empty(), "{} {}: {k:?}", l.id, c.label());
                }
            }
        }
    }
}

#[test]
fn limbers_skirmishers_and_dismounted_rows_are_not_purchasable_army_10_col_02() {
    for file in [NAP_FILE, FPW_FILE] {
        for l in lists(file) {
            for t in &l.troop_types {
                if t.name.starts_with("Limbered Artillery") {
                    assert_eq!(t.arm, Arm::Transport, "{} {}", l.id, t.id);
                    assert_eq!(t.role, RowRole::Limber, "{} {}", l.id, t.id);
                    assert_eq!(t.attack, None, "{} {}", l.id, t.id);
                }
                if t.name.starts_with("Skirmishing Infantry") {
                    assert_eq!(t.role, RowRole::SkirmishProfile, "{} {}", l.id, t.id);
                }
                if t.name.starts_with("Dismounted Cavalry") {
                    assert_eq!(t.role, RowRole::DismountedMode, "{} {}", l.id, t.id);
                }
                if t.role != RowRole::Unit {
                    assert!(!t.purchasable(), "{} {}", l.id, t.id);
                } else {
                    assert!(
                        t.points.is_some(),
                        "{} {}: unit row without points",
                        l.id,
                        t.id
                    );
                }
                // ARMY-09: grades follow the elite/poor notes of each book.
                let (elite, poor) = if l.period == Period::Napoleonic {
                    ([2, 15], [3, 16])
                } else {
                    ([2, 18], [3, 19])
                };
                let want = if t.notes.iter().any(|n| elite.contains(n)) {
                    RowGrade::Elite
                } else if t.notes.iter().any(|n| poor.contains(n)) {
                    RowGrade::Poor
                } else {
                    RowGrade::Regular
                };
                assert_eq!(t.grade, want, "{} {}", l.id, t.id);
                // FPW 4: every mounted cavalry row attacks at 1 cm.
                if l.period == Period::FrancoPrussian && t.arm == Arm::Cavalry {
                    assert_eq!(
                        t.attack
                            .map(|a| matches!(a, Attack::Ranged { range_cm: 1, .. })),
                        Some(true),
                        "{} {}",
                        l.id,
                        t.id
                    );
                }
            }
        }
    }
}

#[test]
fn light_rows_without_a_printed_save_get_5_by_col_12_and_others_keep_theirs() {
    for file in [NAP_FILE, FPW_FILE] {
        for l in lists(file) {
            let light = if l.period == Period::Napoleonic {
                17
            } else {
                12
            };
            for t in l.troop_types.iter().filter(|t| t.notes.contains(&light)) {
                assert!(t.save.is_some(), "{} {}", l.id, t.id);
                let col12 = t.corrections.iter().any(|c| c.rule == "COL-12");
                if col12 {
                    assert_eq!(save(t), Some(5), "{} {}", l.id, t.id);
                }
            }
        }
    }
}
