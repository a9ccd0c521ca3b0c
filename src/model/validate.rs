//! Army-building validation (ARMY-03..13, DEF-01..03, CMD-27): every violation, each with the
//! rule that makes it one, never just the first.
//!
//! Validation is a pure function of a scenario and the army lists. It reports; it never
//! refuses to hold data, so a half-built order of battle can be saved and shown with its
//! problems beside the items they concern ([`Subject`]).
//!
//! # Geometry (DATA-04..DATA-09)
//!
//! [`geometry_violations`] is the other half: the table and the shapes on it that no rule can
//! judge because they are not shapes at all (a wall of one point, a wood of two, a road that
//! crosses itself, a coordinate a kilometre off the table). Unlike the army-building checks
//! these are refused at every boundary — `scenario validate` (exit 1), `scenario import`
//! (nothing stored) and `rules::BattleState::setup` (no battle starts) — because the engine's
//! geometry (`geo`) either panics on them or does unbounded work. Placement (DATA-10..DATA-12:
//! bases off the table, on each other, on impassable ground) needs the engine's footprints and
//! terrain rules, so it lives in `rules::state::placement_violations`, which returns the same
//! [`Violation`]s; so does the deployment-zone check (SEQ-01: a base outside its side's zone),
//! which `scenario validate` reports (exit 1) but a battle start does not refuse. This module
//! cannot ask the engine's footprints (the layering keeps `model` below `rules`), which is why
//! [`validate_scenario`] does not hold those checks. [`start_warnings`] is what a battle start shows and does not refuse.

use super::army::{Arm, ArmyList, CommandLevel, HqLimit, Quality, RowGrade, RuleEffect, TroopType};
use super::ids::{DefenseId, FeatureId, HqId, UnitId};
use super::oob::{Grade, Side};
use super::points::side_points;
use super::scenario::{find_list, DefensePosture, Scenario};
use crate::geom::{point_segment_distance, Point};
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
    /// A terrain feature (geometry checks, DATA-05..DATA-09).
    Feature(FeatureId),
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
    if let Some(f) = scenario.first_player {
        if f >= scenario.sides.len() {
            out.push(Violation {
                rule: "SEQ-01",
                subject: Subject::Scenario,
                message: format!(
                    "side {} is to move first, but there is no such side; name side 1 or 2, \
                     or leave it to a roll-off",
                    f + 1
                ),
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

// --- geometry: DATA-04..DATA-09 --------------------------------------------------------------

/// DATA-04: the largest table side accepted, cm (100 m). Tables are a few metres; anything near
/// this is a typing slip, and every search the engine makes (moves, sight) is bounded by it.
pub const MAX_TABLE_CM: f64 = 10_000.0;

/// DATA-06: how far beyond the table edge a coordinate may lie, cm (100 m). Terrain may run off
/// the table (a river leaving it), but not by more than this.
pub const MAX_BEYOND_TABLE_CM: f64 = 10_000.0;

/// DATA-09: the most corners one shape may have. Generous for a river traced from a map; it
/// bounds the work every later check and the engine does per shape.
pub const MAX_CORNERS: usize = 4_096;

/// Everything a battle start shows as a warning but does not refuse: the army-building
/// violations of [`validate_scenario`] (issue #16: listed, and the battle starts when asked).
pub fn start_warnings(scenario: &Scenario, lists: &[ArmyList]) -> Vec<Violation> {
    validate_scenario(scenario, lists)
}

/// Is the table's size usable (DATA-04)? Other geometry is measured against it.
fn table_ok(scenario: &Scenario) -> bool {
    let t = scenario.table;
    [t.width_cm, t.depth_cm]
        .iter()
        .all(|v| v.is_finite() && *v > 0.0 && *v <= MAX_TABLE_CM)
}

/// What kind of shape a list of points is meant to be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outline {
    /// A closed ring, first point not repeated (terrain areas): at least three corners.
    Ring,
    /// An open line (roads, streams, walls, field-defence fronts): at least two points; the
    /// last point may repeat the first to close a loop (a wall around a field).
    Line,
}

fn fmt_cm(p: Point) -> String {
    format!("({:.1}, {:.1}) cm", p.x, p.y)
}

/// The first problem with one shape, in the order a user fixes them: corner count (DATA-09),
/// coordinates (DATA-06), too few points and repeated points (DATA-05), a crossing (DATA-07),
/// wholly off the table (DATA-08). `reach` widens the shape (half a road's width).
fn outline_problem(
    points: &[Point],
    outline: Outline,
    table: Option<(f64, f64)>,
    reach: f64,
    check_crossing: bool,
) -> Option<(&'static str, String)> {
    if points.len() > MAX_CORNERS {
        return Some((
            "DATA-09",
            format!(
                "it has {} corners; a shape may have at most {MAX_CORNERS}: simplify it",
                points.len()
            ),
        ));
    }
    if let Some(p) = points
        .iter()
        .find(|p| !(p.x.is_finite() && p.y.is_finite()))
    {
        return Some((
            "DATA-06",
            format!(
                "a corner is not a number (x {}, y {}): give every corner finite coordinates in cm",
                p.x, p.y
            ),
        ));
    }
    if let Some((w, d)) = table {
        let m = MAX_BEYOND_TABLE_CM;
        if let Some(p) = points
            .iter()
            .find(|p| p.x < -m || p.y < -m || p.x > w + m || p.y > d + m)
        {
            return Some((
                "DATA-06",
                format!(
                    "a corner at {} lies more than {:.0} m beyond the {w} × {d} cm table: \
                     check the coordinates (they are in cm)",
                    fmt_cm(*p),
                    m / 100.0
                ),
            ));
        }
    }
    let need = match outline {
        Outline::Ring => 3,
        Outline::Line => 2,
    };
    if points.len() < need {
        let what = match outline {
            Outline::Ring => "an area needs at least three corners",
            Outline::Line => "a line needs at least two points",
        };
        let at = points
            .first()
            .map_or_else(String::new, |p| format!(" (at {})", fmt_cm(*p)));
        return Some((
            "DATA-05",
            format!(
                "{what}; it has {}{at}: add points or delete it",
                points.len()
            ),
        ));
    }
    // A line whose last point repeats its first is a closed loop: check it as a ring.
    let (pts, closed) = match (outline, points.first(), points.last()) {
        (Outline::Line, Some(a), Some(b)) if points.len() >= 4 && a == b => {
            (points.get(..points.len() - 1).unwrap_or(points), true)
        }
        (Outline::Line, _, _) => (points, false),
        (Outline::Ring, _, _) => (points, true),
    };
    let n = pts.len();
    let seg_count = if closed { n } else { n - 1 };
    for i in 0..seg_count {
        let (Some(a), Some(b)) = (pts.get(i), pts.get((i + 1) % n)) else {
            continue;
        };
        if a == b {
            let why = if closed && i + 1 == n {
                "its last corner repeats its first (a ring closes by itself): delete the last"
            } else {
                "two consecutive corners are the same point: delete one"
            };
            return Some(("DATA-05", format!("{why} (at {})", fmt_cm(*a))));
        }
    }
    if check_crossing {
        if let Some(p) = first_crossing(pts, closed) {
            return Some((
                "DATA-07",
                format!(
                    "its outline crosses itself at {}: redraw it without the crossing, or split \
                     it into separate features",
                    fmt_cm(p)
                ),
            ));
        }
        if reach > 0.0 {
            if let Some(p) = first_overlap(pts, closed, 2.0 * reach) {
                return Some((
                    "DATA-07",
                    format!(
                        "drawn {:.1} cm wide, it runs over itself near {} (two stretches closer \
                         than its width, away from any bend): space its turns wider or make it \
                         narrower",
                        2.0 * reach,
                        fmt_cm(p)
                    ),
                ));
            }
        }
    }
    if let Some((w, d)) = table {
        let r = crate::geom::footprint::rect_of(pts.iter().copied());
        if r.max.x + reach < 0.0
            || r.max.y + reach < 0.0
            || r.min.x - reach > w
            || r.min.y - reach > d
        {
            return Some((
                "DATA-08",
                format!(
                    "it lies wholly off the {w} × {d} cm table (from {} to {}): move it onto \
                     the table or delete it",
                    fmt_cm(r.min),
                    fmt_cm(r.max)
                ),
            ));
        }
    }
    None
}

/// DATA-07: where the outline first touches itself other than where consecutive segments meet
/// (`closed`: the last point joins the first). A sweep along x over the segments' boxes: each
/// segment is compared only with those whose x-range overlaps its own, so a legitimate outline
/// costs about n log n and the worst (every segment spanning the table) n², with n at most
/// [`MAX_CORNERS`]. Touching counts as crossing, and consecutive segments that double back
/// along each other overlap. Points must be finite.
pub fn first_crossing(points: &[Point], closed: bool) -> Option<Point> {
    use geo::line_intersection::{line_intersection, LineIntersection};
    use geo::{Coord, Line};
    let n = points.len();
    if n < 3 {
        return None;
    }
    /// One side of the outline with its box and its place along the outline.
    struct Side {
        min: Point,
        max: Point,
        index: usize,
        line: Line<f64>,
    }
    let count = if closed { n } else { n - 1 };
    let mut segs: Vec<Side> = Vec::with_capacity(count);
    for i in 0..count {
        let (Some(a), Some(b)) = (points.get(i), points.get((i + 1) % n)) else {
            continue;
        };
        segs.push(Side {
            min: Point::new(a.x.min(b.x), a.y.min(b.y)),
            max: Point::new(a.x.max(b.x), a.y.max(b.y)),
            index: i,
            line: Line::new(Coord { x: a.x, y: a.y }, Coord { x: b.x, y: b.y }),
        });
    }
    segs.sort_by(|a, b| a.min.x.total_cmp(&b.min.x));
    let adjacent = |i: usize, j: usize| {
        let d = i.abs_diff(j);
        d == 1 || (closed && d == count - 1)
    };
    for (k, a) in segs.iter().enumerate() {
        for b in segs.iter().skip(k + 1) {
            if b.min.x > a.max.x {
                break;
            }
            if b.min.y > a.max.y || a.min.y > b.max.y {
                continue;
            }
            match line_intersection(a.line, b.line) {
                None => {}
                Some(LineIntersection::SinglePoint { .. }) if adjacent(a.index, b.index) => {}
                Some(LineIntersection::SinglePoint { intersection, .. }) => {
                    return Some(Point::new(intersection.x, intersection.y));
                }
                // Consecutive segments share their joint; more than that doubles back.
                Some(LineIntersection::Collinear { intersection })
                    if !adjacent(a.index, b.index) || intersection.start != intersection.end =>
                {
                    return Some(Point::new(intersection.start.x, intersection.start.y));
                }
                Some(LineIntersection::Collinear { .. }) => {}
            }
        }
    }
    None
}

/// DATA-07 for a line with a width: where two stretches of it lie closer than `width` although
/// more than twice its width apart along the line (nearer than that is the inside of a bend).
/// Such a road or stream is drawn over itself: its outline crosses itself although its centre
/// line does not, and measuring the ground it covers would cost time without bound (issue
/// #22). The same sweep as [`first_crossing`], over boxes grown by the width; the centre line
/// must not cross itself (checked first), so the distance of two sides is that of their ends.
fn first_overlap(points: &[Point], closed: bool, width: f64) -> Option<Point> {
    let n = points.len();
    if n < 3 || width.is_nan() || width <= 0.0 {
        return None;
    }
    let count = if closed { n } else { n - 1 };
    struct Side {
        a: Point,
        b: Point,
        min: Point,
        max: Point,
        /// Distance along the line to the side's start, and its length.
        s: f64,
        len: f64,
    }
    let mut sides: Vec<Side> = Vec::with_capacity(count);
    let mut s = 0.0;
    for i in 0..count {
        let (Some(&a), Some(&b)) = (points.get(i), points.get((i + 1) % n)) else {
            continue;
        };
        let len = a.distance(b).0;
        sides.push(Side {
            a,
            b,
            min: Point::new(a.x.min(b.x) - width, a.y.min(b.y) - width),
            max: Point::new(a.x.max(b.x) + width, a.y.max(b.y) + width),
            s,
            len,
        });
        s += len;
    }
    let total = s;
    let mut order: Vec<usize> = (0..sides.len()).collect();
    order.sort_by(|&i, &j| {
        let xi = sides.get(i).map_or(0.0, |x| x.min.x);
        let xj = sides.get(j).map_or(0.0, |x| x.min.x);
        xi.total_cmp(&xj)
    });
    for (k, &i) in order.iter().enumerate() {
        let Some(u) = sides.get(i) else { continue };
        for &j in order.iter().skip(k + 1) {
            let Some(v) = sides.get(j) else { continue };
            if v.min.x > u.max.x {
                break;
            }
            if v.min.y > u.max.y || u.min.y > v.max.y {
                continue;
            }
            let (first, second) = if u.s < v.s { (u, v) } else { (v, u) };
            let mut gap = second.s - (first.s + first.len);
            if closed {
                gap = gap.min(total - (second.s + second.len) + first.s);
            }
            if gap <= 2.0 * width {
                continue;
            }
            let d = point_segment_distance(u.a, v.a, v.b)
                .min(point_segment_distance(u.b, v.a, v.b))
                .min(point_segment_distance(v.a, u.a, u.b))
                .min(point_segment_distance(v.b, u.a, u.b));
            if d < width {
                return Some(u.a);
            }
        }
    }
    None
}

/// DATA-13: the longest identifier accepted, in characters. Ids are short slugs.
pub const MAX_ID_CHARS: usize = 100;

/// What is wrong with an identifier, if anything (DATA-13).
pub fn id_problem(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        Some("is empty")
    } else if id.chars().any(char::is_control) {
        Some("holds a control character (such as a NUL or a line break)")
    } else if id.chars().count() > MAX_ID_CHARS {
        Some("is too long")
    } else {
        None
    }
}

/// DATA-13: every identifier of the scenario that cannot be stored or looked up.
fn id_violations(scenario: &Scenario) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut check = |what: String, id: &str, subject: Subject| {
        if let Some(why) = id_problem(id) {
            out.push(Violation {
                rule: "DATA-13",
                subject,
                message: format!(
                    "{what} {why}; give it a short id of letters, digits and dashes (at most \
                     {MAX_ID_CHARS} characters)"
                ),
            });
        }
    };
    check(
        "the scenario's id".into(),
        scenario.id.as_str(),
        Subject::Scenario,
    );
    for (i, side) in scenario.sides.iter().enumerate() {
        check(
            format!("side {} ('{}')'s army list id", i + 1, side.name),
            side.army_list.as_str(),
            Subject::Side(i),
        );
        for u in &side.units {
            check(
                format!("unit '{}' (id {})'s troop type id", u.name, u.id),
                u.troop_type.as_str(),
                Subject::Unit(i, u.id),
            );
        }
    }
    out
}

/// DATA-04..DATA-09: the table and every shape on it that is not a usable shape, each named
/// with where it is and how to fix it. Empty for a scenario the engine can play on.
///
/// * DATA-04 — the table is not a positive size of at most [`MAX_TABLE_CM`] each way.
/// * DATA-05 — a line (road, stream, wall, field-defence front) of fewer than two points, an
///   area of fewer than three, two consecutive corners at the same point (a zero-length side;
///   for an area also a last corner repeating the first), or a line width that is negative or
///   not a number; an objective area or deployment zone, when given, of fewer than three.
/// * DATA-06 — a coordinate that is not a number, or more than [`MAX_BEYOND_TABLE_CM`] beyond
///   the table's edge.
/// * DATA-07 — an outline (area or line) that crosses or touches itself, or a line with a width
///   whose stretches run within that width of each other away from a bend (a road drawn over
///   itself). The format has no self-crossing shapes: a road that loops over itself is two
///   roads; a line may close into a loop by repeating its first point at the end.
/// * DATA-08 — a terrain feature or field defence wholly off the table.
/// * DATA-09 — a shape of more than [`MAX_CORNERS`] corners.
/// * DATA-13 — an identifier (the scenario's, a side's army list, a unit's troop type) that is
///   empty, holds a control character (a NUL, a line break) or is longer than [`MAX_ID_CHARS`].
pub fn geometry_violations(scenario: &Scenario) -> Vec<Violation> {
    let mut out = id_violations(scenario);
    let t = scenario.table;
    let table = if table_ok(scenario) {
        Some((t.width_cm, t.depth_cm))
    } else {
        out.push(Violation {
            rule: "DATA-04",
            subject: Subject::Scenario,
            message: format!(
                "the table is {} × {} cm; give it a width and depth above 0 and at most {:.0} cm \
                 ({:.0} m)",
                t.width_cm,
                t.depth_cm,
                MAX_TABLE_CM,
                MAX_TABLE_CM / 100.0
            ),
        });
        None
    };
    for f in &scenario.terrain {
        let (points, outline, width) = match &f.geometry {
            super::terrain::Geometry::Polygon(p) => (p.as_slice(), Outline::Ring, 0.0),
            super::terrain::Geometry::Polyline { points, width_cm } => {
                (points.as_slice(), Outline::Line, *width_cm)
            }
        };
        let name = format!("terrain feature '{}' (id {})", f.name, f.id);
        let problem = if !(width.is_finite() && (0.0..=MAX_TABLE_CM).contains(&width)) {
            Some((
                "DATA-05",
                format!("its width is {width} cm: give a width from 0 to {MAX_TABLE_CM:.0} cm"),
            ))
        } else {
            outline_problem(points, outline, table, width / 2.0, true)
        };
        if let Some((rule, message)) = problem {
            out.push(Violation {
                rule,
                subject: Subject::Feature(f.id),
                message: format!("{name}: {message}"),
            });
        }
    }
    for (si, side) in scenario.sides.iter().enumerate() {
        for d in &side.field_defenses {
            if d.at.is_empty() {
                continue; // bought but not yet placed
            }
            if let Some((rule, message)) = outline_problem(&d.at, Outline::Line, table, 0.0, true) {
                out.push(Violation {
                    rule,
                    subject: Subject::Defense(si, d.id),
                    message: format!("{} {}: {message}", d.kind.spec().label, d.id),
                });
            }
        }
        let areas = [
            ("the deployment zone", &side.deployment_zone),
            ("the major objective's area", &side.objectives.major.area),
            ("the minor objective's area", &side.objectives.minor.area),
        ];
        for (what, ring) in areas {
            if ring.is_empty() {
                continue;
            }
            // Only read as rings (inside or not): crossings change no rule, so none is asked.
            if let Some((rule, message)) = outline_problem(ring, Outline::Ring, table, 0.0, false) {
                out.push(Violation {
                    rule,
                    subject: Subject::Side(si),
                    message: format!("{}: {what}: {message}", side.name),
                });
            }
        }
    }
    out
}
