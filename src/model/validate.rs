//! Army-building validation (ARMY-03..13, DEF-01..03, CMD-27): every violation, each with the
//! rule that makes it one, never just the first.
//!
//! Validation is a pure function of a scenario and the army lists. It reports; it never
//! refuses to hold data, so a half-built order of battle can be saved and shown with its
//! problems beside the items they concern ([`Subject`]).

use super::army::{Arm, ArmyList, CommandLevel, HqLimit, Quality, RowGrade, RuleEffect, TroopType};
use super::ids::{DefenseId, HqId, UnitId};
use super::oob::{Grade, Side};
use super::points::side_points;
use super::scenario::{find_list, DefensePosture, Scenario};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What a violation is about, so the editor can show it beside that item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    Scenario,
    Side(usize),
    Hq(usize, HqId),
    Unit(usize, UnitId),
    Defense(usize, DefenseId),
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The catalogue entry (e.g. "ARMY-04"); "DATA-xx" for references the rules cannot judge.
    pub rule: &'static str,
    pub subject: Subject,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

/// k for minimums (ARMY-04 a): full 1,500s, so below 1,500 there is no minimum.
pub fn min_multiplier(points: u32) -> u32 {
    points / 1500
}

/// k for maximums (ARMY-04 a): at least one.
pub fn max_multiplier(points: u32) -> u32 {
    (points / 1500).max(1)
}

/// DEF-02: floor(total × percent / 100).
///
/// ```
/// use powderhorn::model::validate::defense_budget;
/// use powderhorn::model::DefensePosture;
/// assert_eq!(defense_budget(3000, DefensePosture::Fixed), 750); // WE-15
/// assert_eq!(defense_budget(1500, DefensePosture::Hasty), 150);
/// assert_eq!(defense_budget(1500, DefensePosture::None), 0);
/// ```
pub fn defense_budget(points: u32, posture: DefensePosture) -> u32 {
    points * posture.budget_percent() / 100
}

/// ARMY-09 b: elite units allowed: floor(P / per), at least one from 1,500 points.
pub fn elite_allowance(points: u32, per_points: u32) -> u32 {
    let n = points.checked_div(per_points).unwrap_or(0);
    if points >= 1500 {
        n.max(1)
    } else {
        n
    }
}

/// ARMY-06 a: "1 per N Inf" allows ceil(I / N).
pub fn per_infantry_allowance(infantry: u32, n: u32) -> u32 {
    if n == 0 {
        return u32::MAX;
    }
    infantry.div_ceil(n)
}

/// ARMY-06 b: a nation range "a to b infantry units" allows between ceil(I / b) (only when
/// I ≥ a) and max(1, floor(I / a)) HQs of that level.
pub fn nation_range_allowance(infantry: u32, min_inf: u32, max_inf: u32) -> (u32, u32) {
    let lower = if infantry >= min_inf && max_inf > 0 {
        infantry.div_ceil(max_inf)
    } else {
        0
    };
    let upper = infantry.checked_div(min_inf).map_or(u32::MAX, |n| n.max(1));
    (lower, upper)
}

/// Validates a whole scenario against the lists given.
pub fn validate_scenario(scenario: &Scenario, lists: &[ArmyList]) -> Vec<Violation> {
    let mut out = Vec::new();
    if scenario.sides.len() != 2 {
        out.push(Violation {
            rule: "GEN-01",
            subject: Subject::Scenario,
            message: format!(
                "a battle has two sides; this scenario has {}",
                scenario.sides.len()
            ),
        });
    }
    if let Some(d) = scenario.defender {
        if d >= scenario.sides.len() {
            out.push(Violation {
                rule: "DEF-01",
                subject: Subject::Scenario,
                message: format!("the defender is side {}, which does not exist", d + 1),
            });
        }
    }
    for (i, side) in scenario.sides.iter().enumerate() {
        match find_list(lists, &side.army_list) {
            Some(list) => out.extend(validate_side(scenario, i, side, list)),
            None => out.push(Violation {
                rule: "DATA-01",
                subject: Subject::Side(i),
                message: format!(
                    "side '{}' uses army list '{}', which is not installed",
                    side.name, side.army_list
                ),
            }),
        }
    }
    out
}

fn is_native_row(row: &TroopType) -> bool {
    let n = row.name.to_ascii_lowercase();
    n.starts_with("native") || n.starts_with("zulu")
}

/// Validates one side of a scenario against its list.
pub fn validate_side(
    scenario: &Scenario,
    idx: usize,
    side: &Side,
    list: &ArmyList,
) -> Vec<Violation> {
    let mut v = Vec::new();
    let side_subject = Subject::Side(idx);
    let p = scenario.points;
    let mut push = |rule: &'static str, subject: Subject, message: String| {
        v.push(Violation {
            rule,
            subject,
            message,
        })
    };

    // --- rows, references and per-unit rules ---------------------------------------------
    let hq_ids: BTreeSet<HqId> = side.hqs.iter().map(|h| h.id).collect();
    let mut rows: Vec<(&super::oob::Unit, &TroopType)> = Vec::new();
    for u in &side.units {
        let subj = Subject::Unit(idx, u.id);
        let Some(row) = list.troop_type(&u.troop_type) else {
            push(
                "DATA-02",
                subj,
                format!(
                    "unit '{}' uses troop type '{}', which is not in list '{}'",
                    u.name, u.troop_type, list.name
                ),
            );
            continue;
        };
        rows.push((u, row));
        if !row.purchasable() {
            push(
                "ARMY-10",
                subj,
                format!(
                    "unit '{}': '{}' is not bought as a unit ({})",
                    u.name,
                    row.name,
                    match row.role {
                        super::army::RowRole::SkirmishProfile =>
                            "it is the brigade-skirmisher profile",
                        super::army::RowRole::DismountedMode =>
                            "it is the dismounted mode of bought cavalry",
                        super::army::RowRole::Limber => "limbers come free with each gun",
                        super::army::RowRole::Unit => "it has no points value",
                    }
                ),
            );
        }
        if !hq_ids.contains(&u.hq) {
            push(
                "ARMY-08",
                subj,
                format!("unit '{}' has no parent HQ in this order of battle", u.name),
            );
        }
        if let (Some(year), Some(years)) = (scenario.year, row.years) {
            if !years.contains(year) {
                push(
                    "ARMY-12",
                    subj,
                    format!(
                        "unit '{}': '{}' is not available in {year}",
                        u.name, row.name
                    ),
                );
            }
        }
        // ARMY-03 stand counts (Colonial sizes are the list's own).
        let (lo, hi) = match (list.period, row.arm) {
            (super::army::Period::Colonial, _) => (1, 12),
            (_, Arm::Infantry) | (_, Arm::Engineers) => (3, 8),
            (_, Arm::Cavalry) => (3, 6),
            (_, Arm::Artillery) | (_, Arm::Transport) | (_, Arm::Armour) => (1, 1),
        };
        if u.stands < lo || u.stands > hi {
            push(
                "ARMY-03",
                subj,
                format!(
                    "unit '{}' has {} stands; {} units have {lo}–{hi}",
                    u.name,
                    u.stands,
                    row.arm.label().to_lowercase()
                ),
            );
        }
        // ARMY-09: grades. Where the row fixes the grade, a unit left Regular simply follows
        // its row (see `effective_grade`); claiming a different grade is the violation.
        match (u.grade, row.grade, list.caps.grade_costs) {
            (Grade::Regular, _, _) => {}
            (g, rg, _) if g == grade_of(rg) => {}
            (_, RowGrade::Regular, Some(_)) if row.grade_optional => {}
            (g, _, _) => push(
                "ARMY-09",
                subj,
                format!(
                    "unit '{}': '{}' may not be made {}",
                    u.name,
                    row.name,
                    g.label().to_lowercase()
                ),
            ),
        }
        if u.lancers && !list.row_effects(row).any(|e| *e == RuleEffect::Lancers) {
            push(
                "COL-13",
                subj,
                format!("unit '{}': '{}' may not be lancers", u.name, row.name),
            );
        }
        if u.engineer_attached {
            if row.arm != Arm::Infantry {
                push(
                    "ARMY-03",
                    subj,
                    format!("unit '{}': an engineer stand joins infantry only", u.name),
                );
            } else if super::points::engineer_row(list).is_none() {
                push(
                    "ARMY-03",
                    subj,
                    format!(
                        "unit '{}': list '{}' has no engineer row",
                        u.name, list.name
                    ),
                );
            }
        }
        if u.horse_artillery && row.arm != Arm::Artillery {
            push(
                "ARMY-11",
                subj,
                format!("unit '{}': only artillery can be horse artillery", u.name),
            );
        }
    }

    // --- ARMY-04 / ARMY-05: limits ------------------------------------------------------------
    let count = |arm: Arm, pred: &dyn Fn(&TroopType) -> bool| -> u32 {
        rows.iter()
            .filter(|(_, r)| r.arm == arm && pred(r))
            .map(|(u, _)| {
                if arm.limit_counts_units() {
                    1
                } else {
                    u32::from(u.stands)
                }
            })
            .sum()
    };
    let infantry_units = count(Arm::Infantry, &|_| true);
    let cavalry_units = count(Arm::Cavalry, &|_| true);
    let all_cavalry = infantry_units == 0 && cavalry_units > 0;
    if !side.units.is_empty() && infantry_units == 0 && cavalry_units == 0 {
        push(
            "ARMY-05",
            side_subject,
            format!(
                "side '{}' has no infantry: infantry units are compulsory",
                side.name
            ),
        );
    }
    let available = |r: &TroopType| match (scenario.year, r.years) {
        (Some(y), Some(ys)) => ys.contains(y),
        _ => true,
    };
    let kmin = min_multiplier(p);
    let kmax = max_multiplier(p);
    for arm in Arm::ALL {
        // ARMY-05: an all-cavalry force meets the infantry minimum with cavalry.
        let (rule_arm, counted) = match arm {
            Arm::Infantry if all_cavalry => continue,
            Arm::Cavalry if all_cavalry => (Arm::Infantry, cavalry_units),
            _ => (arm, count(arm, &|_| true)),
        };
        let min = list
            .troop_types
            .iter()
            .filter(|r| r.arm == rule_arm && r.purchasable() && available(r))
            .filter_map(|r| r.limit.and_then(|l| l.min))
            .max()
            .unwrap_or(0);
        let need = min * kmin;
        if need > 0 && counted < need {
            let what = if rule_arm.limit_counts_units() {
                "units"
            } else {
                "stands"
            };
            push(
                if all_cavalry && arm == Arm::Cavalry {
                    "ARMY-05"
                } else {
                    "ARMY-04"
                },
                side_subject,
                format!(
                    "{} needs at least {need} {} {what} at {p} points; it has {counted}",
                    side.name,
                    arm.label().to_lowercase()
                ),
            );
        }
    }
    let mut per_row: BTreeMap<&str, (u32, &TroopType)> = BTreeMap::new();
    for (u, r) in &rows {
        let e = per_row.entry(r.id.as_str()).or_insert((0, r));
        e.0 += if r.arm.limit_counts_units() {
            1
        } else {
            u32::from(u.stands)
        };
    }
    for (n, r) in per_row.values() {
        let Some(max) = r.limit.and_then(|l| l.max) else {
            continue;
        };
        if r.grade == RowGrade::Poor && r.arm == Arm::Infantry {
            continue; // ARMY-09 c: poor infantry has no min/max
        }
        if all_cavalry && r.arm == Arm::Cavalry {
            continue; // ARMY-05: cavalry rows' max becomes "-"
        }
        let allowed = max * kmax;
        if *n > allowed {
            let what = if r.arm.limit_counts_units() {
                "units"
            } else {
                "stands"
            };
            push(
                "ARMY-04",
                side_subject,
                format!(
                    "{} has {n} {what} of '{}'; at most {allowed} at {p} points",
                    side.name, r.name
                ),
            );
        }
    }

    // --- ARMY-09 elite caps; COL-13 lancer cap -----------------------------------------------
    for cap in &list.caps.elite {
        let of_arm: Vec<_> = rows.iter().filter(|(_, r)| r.arm == cap.arm).collect();
        let elite = of_arm
            .iter()
            .filter(|(u, _)| u.grade == Grade::Elite)
            .count();
        let elite = u32::try_from(elite).unwrap_or(u32::MAX);
        let all_elite = !of_arm.is_empty()
            && of_arm
                .iter()
                .all(|(u, r)| effective_grade(u, r) == Grade::Elite);
        let allowed = elite_allowance(p, cap.per_points);
        if elite > allowed && !(cap.unless_all_elite && all_elite) {
            push(
                "ARMY-09",
                side_subject,
                format!(
                    "{} has {elite} elite {} units; at most {allowed} at {p} points (1 per {})",
                    side.name,
                    cap.arm.label().to_lowercase(),
                    cap.per_points
                ),
            );
        }
    }
    if let Some(max) = list.caps.lancer_units_max {
        let n = side.units.iter().filter(|u| u.lancers).count();
        if n > max as usize {
            push(
                "COL-13",
                side_subject,
                format!("{} has {n} lancer units; the list allows {max}", side.name),
            );
        }
    }

    // ARMY-13: FPW French mitrailleuse, at most one stand per 4 other artillery stands.
    let is_mitrailleuse = |r: &TroopType| {
        let n = r.name.to_ascii_lowercase();
        n.contains("mitrailleuse") || n.contains("millailleuse")
    };
    let mitrailleuse = count(Arm::Artillery, &|r| is_mitrailleuse(r));
    if mitrailleuse > 0 {
        let guns = count(Arm::Artillery, &|r| !is_mitrailleuse(r));
        let allowed = guns / 4;
        if mitrailleuse > allowed {
            push(
                "ARMY-13",
                side_subject,
                format!(
                    "{} has {mitrailleuse} mitrailleuse stands and {guns} other gun stands; at most one per 4 gun stands ({allowed})",
                    side.name
                ),
            );
        }
    }

    // --- command: CO, chain, ratios, quality caps -----------------------------------------------
    if side.hqs.is_empty() {
        push(
            "ARMY-07",
            side_subject,
            format!("{} has no command unit: every Command needs one", side.name),
        );
    }
    let roots: Vec<_> = side.hqs.iter().filter(|h| h.parent.is_none()).collect();
    if roots.len() > 1 {
        for h in &roots[1..] {
            push(
                "CMD-27",
                Subject::Hq(idx, h.id),
                format!(
                    "'{}' has no superior, but '{}' is already the commanding officer",
                    h.name, roots[0].name
                ),
            );
        }
    }
    for h in &side.hqs {
        let subj = Subject::Hq(idx, h.id);
        let (level, quality) = h.stat_line(); // ART-10: an FAO's is the Average Brigade HQ line
        if list.command_type(level, quality).is_none() {
            push(
                "DATA-03",
                subj,
                format!(
                    "'{}': list '{}' has no {} of {} quality",
                    h.name,
                    list.name,
                    level.label(),
                    quality.label().to_lowercase()
                ),
            );
        }
        if let Some(pid) = h.parent {
            match side.hq(pid) {
                None => push(
                    "ARMY-08",
                    subj,
                    format!(
                        "'{}' reports to an HQ that is not in this order of battle",
                        h.name
                    ),
                ),
                // ART-10: an FAO stands outside the ranks of HQs (it may report to any).
                Some(parent)
                    if !h.fao
                        && parent.commander.level.rank() <= level.rank()
                        && list.period != super::army::Period::Colonial =>
                {
                    push(
                        "ARMY-08",
                        subj,
                        format!(
                            "'{}' ({}) reports to '{}' ({}), which is not a higher level",
                            h.name,
                            h.commander.level.label(),
                            parent.name,
                            parent.commander.level.label()
                        ),
                    )
                }
                Some(_) => {}
            }
            // a cycle never reaches a root
            let mut seen = BTreeSet::new();
            let mut cur = Some(h);
            while let Some(c) = cur {
                if !seen.insert(c.id) {
                    push(
                        "ARMY-08",
                        subj,
                        format!("'{}' is in a loop of HQs reporting to each other", h.name),
                    );
                    break;
                }
                cur = c.parent.and_then(|p| side.hq(p));
            }
        }
    }
    // ART-10, ARMY-13: FAOs — one per 6 artillery units, none where the list forbids grand
    // batteries (the Austrian ruling), never the CO.
    let faos: Vec<_> = side.hqs.iter().filter(|h| h.fao).collect();
    if !faos.is_empty() {
        let guns = rows.iter().filter(|(_, r)| r.arm == Arm::Artillery).count();
        let guns = u32::try_from(guns).unwrap_or(u32::MAX);
        let allowed = guns / super::oob::ARTILLERY_UNITS_PER_FAO;
        if list.caps.no_grand_batteries {
            push(
                "ART-10",
                side_subject,
                format!(
                    "{} may field no Field Artillery Officers: {} artillery never formed grand batteries",
                    side.name, list.name
                ),
            );
        } else if u32::try_from(faos.len()).unwrap_or(u32::MAX) > allowed {
            push(
                "ART-10",
                side_subject,
                format!(
                    "{} has {} Field Artillery Officers and {guns} artillery units; at most one per {} artillery units ({allowed})",
                    side.name,
                    faos.len(),
                    super::oob::ARTILLERY_UNITS_PER_FAO
                ),
            );
        }
        for h in faos.iter().filter(|h| h.parent.is_none()) {
            push(
                "ART-10",
                Subject::Hq(idx, h.id),
                format!(
                    "'{}' is a Field Artillery Officer and may never be the commanding officer",
                    h.name
                ),
            );
        }
    }
    let ratio_base = if all_cavalry {
        cavalry_units
    } else {
        infantry_units
    };
    let mut by_level: BTreeMap<CommandLevel, u32> = BTreeMap::new();
    let mut exceptional: BTreeMap<CommandLevel, u32> = BTreeMap::new();
    for h in side.hqs.iter().filter(|h| !h.fao) {
        // ART-10: FAOs are counted by their own ratio above.
        *by_level.entry(h.commander.level).or_default() += 1;
        if h.commander.quality == Quality::Exceptional {
            *exceptional.entry(h.commander.level).or_default() += 1;
        }
    }
    for (&level, &n) in &by_level {
        let limit = list
            .command_types
            .iter()
            .find(|c| c.level == level)
            .map(|c| c.limit);
        match limit {
            Some(HqLimit::One) if n > 1 => push(
                "ARMY-06",
                side_subject,
                format!(
                    "{} has {n} {}s; only one per game",
                    side.name,
                    level.label()
                ),
            ),
            Some(HqLimit::PerInfantry { units }) => {
                let allowed = per_infantry_allowance(ratio_base, units);
                if n > allowed {
                    push(
                        "ARMY-06",
                        side_subject,
                        format!(
                            "{} has {n} {}s for {ratio_base} {} units; 1 per {units} allows {allowed}",
                            side.name,
                            level.label(),
                            if all_cavalry { "cavalry" } else { "infantry" }
                        ),
                    );
                }
            }
            Some(HqLimit::Nation) => {
                if let Some(r) = list.hq_ranges.iter().find(|r| r.level == level) {
                    let (lo, hi) = nation_range_allowance(ratio_base, r.min_inf, r.max_inf);
                    if n < lo || n > hi {
                        push(
                            "ARMY-06",
                            side_subject,
                            format!(
                                "{} has {n} {}s for {ratio_base} infantry units; {} commands {}–{} each, so {lo}–{hi} are allowed",
                                side.name,
                                level.label(),
                                level.label(),
                                r.min_inf,
                                r.max_inf
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
    }
    // ARMY-06 e: at most one Army HQ, whatever the chart says.
    if by_level.get(&CommandLevel::Army).copied().unwrap_or(0) > 1
        && !list
            .command_types
            .iter()
            .any(|c| c.level == CommandLevel::Army && c.limit == HqLimit::One)
    {
        push(
            "ARMY-06",
            side_subject,
            format!("{} has more than one Army HQ; only one per game", side.name),
        );
    }
    // ARMY-06 d: Colonial natives, one HQ per N troop stands plus the CO.
    if let Some(per) = list.caps.hq_per_stands {
        if !rows.is_empty() && rows.iter().all(|(_, r)| is_native_row(r)) {
            let stands: u32 = rows.iter().map(|(u, _)| u32::from(u.stands)).sum();
            let allowed = stands / per.max(1) + 1;
            let n = u32::try_from(side.hqs.len()).unwrap_or(u32::MAX);
            if n > allowed {
                push(
                    "ARMY-06",
                    side_subject,
                    format!(
                        "{} is a native force of {stands} stands: at most {allowed} HQs (1 per {per} stands plus the CO); it has {n}",
                        side.name
                    ),
                );
            }
        }
    }
    if let Some(cap) = list.caps.exceptional_per_level {
        for (&level, &n) in &exceptional {
            if n > cap {
                push(
                    "ARMY-07",
                    side_subject,
                    format!(
                        "{} has {n} Exceptional {}s; the list allows {cap} per level",
                        side.name,
                        level.label()
                    ),
                );
            }
        }
    }

    // --- DEF-01..03 ----------------------------------------------------------------------------
    if !side.field_defenses.is_empty() {
        let is_defender = scenario.defender == Some(idx);
        if scenario.defense == DefensePosture::None || !is_defender {
            push(
                "DEF-02",
                side_subject,
                if scenario.defense == DefensePosture::None {
                    format!(
                        "{} has field defences, but this scenario has no defence posture",
                        side.name
                    )
                } else {
                    format!(
                        "{} is not the defender and may buy no field defences",
                        side.name
                    )
                },
            );
        }
        for d in &side.field_defenses {
            let spec = d.kind.spec();
            let ok = match scenario.defense {
                DefensePosture::Hasty => spec.hasty,
                DefensePosture::Fixed => spec.fixed,
                DefensePosture::None => true, // reported above
            };
            if !ok {
                push(
                    "DEF-03",
                    Subject::Defense(idx, d.id),
                    format!(
                        "{} is available only to a fixed defence, not a {} one",
                        spec.label,
                        scenario.defense.label().to_lowercase()
                    ),
                );
            }
            // DEF-05: placement (deployment area, section lengths, an occupant to dig in).
            for problem in d.placement_problems(&side.deployment_zone) {
                push("DEF-05", Subject::Defense(idx, d.id), problem);
            }
            if let Some(occ) = d.occupant {
                if side.unit(occ).is_none() {
                    push(
                        "DEF-05",
                        Subject::Defense(idx, d.id),
                        format!(
                            "{} shelters a unit that is not in this order of battle",
                            spec.label
                        ),
                    );
                }
            }
        }
        let spent: u32 = side.field_defenses.iter().map(|d| d.cost()).sum();
        let budget = defense_budget(p, scenario.defense);
        if scenario.defense != DefensePosture::None && spent > budget {
            push(
                "DEF-02",
                side_subject,
                format!(
                    "{} spends {spent} points on field defences; a {} defence may spend {budget} ({}% of {p})",
                    side.name,
                    scenario.defense.label().to_lowercase(),
                    scenario.defense.budget_percent()
                ),
            );
        }
    }

    // --- total -------------------------------------------------------------------------------
    let total = side_points(side, list).total();
    if total > i64::from(p) {
        push(
            "ARMY-02",
            side_subject,
            format!(
                "{} costs {total} points; the agreed total is {p}",
                side.name
            ),
        );
    }
    v
}

/// The grade a unit fights at (ARMY-09): the row's where the row fixes it (Napoleonic, FPW and
/// 18C notes), otherwise the one bought for the unit (ACW).
pub fn effective_grade(unit: &super::oob::Unit, row: &TroopType) -> Grade {
    match row.grade {
        RowGrade::Regular => unit.grade,
        fixed => grade_of(fixed),
    }
}

fn grade_of(g: RowGrade) -> Grade {
    match g {
        RowGrade::Regular => Grade::Regular,
        RowGrade::Elite => Grade::Elite,
        RowGrade::Poor => Grade::Poor,
    }
}
