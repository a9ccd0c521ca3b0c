//! Applying [`ScenarioEdit`]s to a scenario: the pure half of the editor.
//!
//! Owns the rules of *editing* (not of the wargame): new ids are the largest in the scenario
//! plus one; a new HQ gets the chart's command value; a changed level or quality resets the
//! command value to the chart's; moving an HQ under itself is refused; deleting an HQ hands its
//! sub-HQs and units to its parent. Army-building rules stay in `model::validate`, which reports
//! rather than forbids, so an edit here fails only when it cannot mean anything.
//!
//! No store, no egui: `app` calls [`apply`] on a copy and keeps the copy only when it succeeds.

use crate::model::{
    Arm, ArmyList, CommandLevel, Commander, CommanderId, DefensePosture, Hq, HqId, ListId,
    MeasureScale, Objectives, Quality, Scale, Scenario, ScenarioId, Side, Table, Unit, UnitId,
    Weather, SCENARIO_FORMAT,
};
use crate::ui::ScenarioEdit;

/// Why an edit could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("side {0} does not exist")]
    NoSide(usize),
    #[error("HQ {0} does not exist on this side")]
    NoHq(HqId),
    #[error("unit {0} does not exist on this side")]
    NoUnit(UnitId),
    #[error("'{hq}' cannot be placed under '{parent}': that HQ is beneath it")]
    Cycle { hq: String, parent: String },
    #[error("terrain feature {0} does not exist")]
    NoFeature(crate::model::FeatureId),
    #[error("field defence {0} does not exist on this side")]
    NoDefense(crate::model::DefenseId),
    /// A shape or placement the table editor refuses (`table_edit`), with the rule.
    #[error("{rule}: {message}")]
    Shape { rule: &'static str, message: String },
}

/// What an edit created, so the editor can select it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Created {
    Nothing,
    Side(usize),
    Hq(usize, HqId),
    Unit(usize, UnitId),
}

/// The next HQ id: the largest in any side plus one.
pub fn next_hq_id(s: &Scenario) -> HqId {
    HqId(
        s.sides
            .iter()
            .flat_map(|d| d.hqs.iter())
            .map(|h| h.id.0)
            .max()
            .map_or(1, |m| m + 1),
    )
}

pub fn next_unit_id(s: &Scenario) -> UnitId {
    UnitId(
        s.sides
            .iter()
            .flat_map(|d| d.units.iter())
            .map(|u| u.id.0)
            .max()
            .map_or(1, |m| m + 1),
    )
}

pub fn next_commander_id(s: &Scenario) -> CommanderId {
    CommanderId(
        s.sides
            .iter()
            .flat_map(|d| d.hqs.iter())
            .map(|h| h.commander.id.0)
            .max()
            .map_or(1, |m| m + 1),
    )
}

/// The chart's command value for a level and quality, if the list has that row.
fn chart_value(list: Option<&ArmyList>, level: CommandLevel, quality: Quality) -> Option<u8> {
    list.and_then(|l| l.command_type(level, quality))
        .map(|c| c.command)
}

/// The level a new HQ gets: one rank below its parent where the chart has one, else the
/// parent's; the highest level of the chart for a CO.
fn new_level(list: Option<&ArmyList>, parent: Option<CommandLevel>) -> CommandLevel {
    let levels = list.map(|l| l.levels()).unwrap_or_default();
    match parent {
        None => levels.last().copied().unwrap_or(CommandLevel::Brigade),
        Some(p) => levels
            .iter()
            .rev()
            .find(|l| l.rank() < p.rank())
            .copied()
            .unwrap_or(p),
    }
}

/// The quality a new HQ gets: Average where the chart has it at that level, else the first.
fn new_quality(list: Option<&ArmyList>, level: CommandLevel) -> Quality {
    let qs: Vec<Quality> = list
        .map(|l| {
            l.command_types
                .iter()
                .filter(|c| c.level == level)
                .map(|c| c.quality)
                .collect()
        })
        .unwrap_or_default();
    if qs.contains(&Quality::Average) {
        Quality::Average
    } else {
        qs.first().copied().unwrap_or(Quality::Average)
    }
}

fn side_mut(s: &mut Scenario, side: usize) -> Result<&mut Side, EditError> {
    s.sides.get_mut(side).ok_or(EditError::NoSide(side))
}

fn find_list<'a>(lists: &'a [ArmyList], id: &ListId) -> Option<&'a ArmyList> {
    lists.iter().find(|l| &l.id == id)
}

/// A fresh commander for an HQ of the given level and quality.
fn new_commander(
    id: CommanderId,
    list: Option<&ArmyList>,
    level: CommandLevel,
    quality: Quality,
) -> Commander {
    Commander {
        id,
        name: String::new(),
        note: String::new(),
        level,
        quality,
        command_value: chart_value(list, level, quality).unwrap_or(7),
        replaced_once: false,
    }
}

/// The default troop type for a new unit: the first bought infantry row, else any bought row.
/// The row a new unit starts as: the list's ordinary line infantry, the bulk of any army of the
/// period — a regular, purchasable infantry row, preferring one called "line" and one with no
/// limit on numbers, the cheapest of those — never the costliest or rarest row because it is
/// listed first (#22 item 6).
fn default_row(list: Option<&ArmyList>) -> Option<&crate::model::TroopType> {
    let l = list?;
    let rank = |t: &&crate::model::TroopType| {
        (
            !t.name.to_lowercase().contains("line"),
            t.limit.is_some(),
            t.grade != crate::model::army::RowGrade::Regular,
            t.points.unwrap_or(u32::MAX),
        )
    };
    l.troop_types
        .iter()
        .filter(|t| t.arm == Arm::Infantry && t.purchasable())
        .min_by_key(rank)
        .or_else(|| {
            l.troop_types
                .iter()
                .filter(|t| t.purchasable())
                .min_by_key(rank)
        })
}

/// A neutral name for the `n`th unit of an arm under its HQ: "Battalion 3", "Regiment 2",
/// "Battery 1" — not a troop row's name, which would go stale when the row is changed.
pub fn neutral_name(arm: Arm, n: usize) -> String {
    let word = match arm {
        Arm::Infantry => "Battalion",
        Arm::Cavalry => "Regiment",
        Arm::Artillery => "Battery",
        _ => "Unit",
    };
    format!("{word} {n}")
}

/// The number of a neutral name ("Battalion 3" → 3), if the name is one for `arm`.
fn neutral_number(name: &str, arm: Arm) -> Option<usize> {
    let (word, n) = name.rsplit_once(' ')?;
    let n: usize = n.parse().ok()?;
    (neutral_name(arm, n) == name && !word.is_empty()).then_some(n)
}

/// Applies one edit to `s`. On error `s` may be partly changed: apply to a copy.
pub fn apply(
    s: &mut Scenario,
    edit: &ScenarioEdit,
    lists: &[ArmyList],
) -> Result<Created, EditError> {
    match edit {
        ScenarioEdit::Settings(settings) => {
            (**settings).clone().apply_to(s);
            if s.defender.is_some_and(|d| d >= s.sides.len()) {
                s.defender = None;
            }
            Ok(Created::Nothing)
        }
        ScenarioEdit::AddSide { list } => {
            let n = s.sides.len();
            let name = find_list(lists, list)
                .map_or_else(|| format!("Side {}", n + 1), |l| short_side_name(&l.name));
            s.sides.push(empty_side(name, list.clone(), n));
            Ok(Created::Side(n))
        }
        ScenarioEdit::SetSide {
            side,
            name,
            list,
            colour,
        } => {
            let d = side_mut(s, *side)?;
            d.name = name.clone();
            d.army_list = list.clone();
            d.colour = *colour;
            Ok(Created::Nothing)
        }
        ScenarioEdit::DeleteSide(side) => {
            if *side >= s.sides.len() {
                return Err(EditError::NoSide(*side));
            }
            s.sides.remove(*side);
            s.defender = match s.defender {
                Some(d) if d == *side => None,
                Some(d) if d > *side => Some(d - 1),
                other => other,
            };
            Ok(Created::Nothing)
        }
        ScenarioEdit::AddHq { side, parent } => {
            let id = next_hq_id(s);
            let cid = next_commander_id(s);
            let list_id = s
                .sides
                .get(*side)
                .ok_or(EditError::NoSide(*side))?
                .army_list
                .clone();
            let list = find_list(lists, &list_id);
            let d = side_mut(s, *side)?;
            let parent_level = match parent {
                Some(p) => Some(d.hq(*p).ok_or(EditError::NoHq(*p))?.commander.level),
                None => None,
            };
            let level = new_level(list, parent_level);
            let quality = new_quality(list, level);
            let siblings = d.child_hqs(*parent).count();
            let name = match parent {
                None => "Commanding officer".to_string(),
                Some(_) => format!("{} {}", ordinal(siblings + 1), level_noun(level)),
            };
            d.hqs.push(Hq {
                id,
                name,
                parent: *parent,
                commander: new_commander(cid, list, level, quality),
                mounted: true,
                position: None,
                fao: false,
                nation: None,
                ally: false,
            });
            Ok(Created::Hq(*side, id))
        }
        ScenarioEdit::SetHq { side, hq } => {
            let list_id = s
                .sides
                .get(*side)
                .ok_or(EditError::NoSide(*side))?
                .army_list
                .clone();
            let list = find_list(lists, &list_id);
            let d = side_mut(s, *side)?;
            let slot = d
                .hqs
                .iter_mut()
                .find(|h| h.id == hq.id)
                .ok_or(EditError::NoHq(hq.id))?;
            let mut next = (**hq).clone();
            let old = &slot.commander;
            if old.level != next.commander.level || old.quality != next.commander.quality {
                if let Some(v) = chart_value(list, next.commander.level, next.commander.quality) {
                    next.commander.command_value = v;
                }
            }
            // The parent is changed only through MoveHq, which checks for loops.
            next.parent = slot.parent;
            *slot = next;
            Ok(Created::Nothing)
        }
        ScenarioEdit::MoveHq { side, hq, parent } => {
            let d = side_mut(s, *side)?;
            let me = d.hq(*hq).ok_or(EditError::NoHq(*hq))?.name.clone();
            if let Some(p) = parent {
                let target = d.hq(*p).ok_or(EditError::NoHq(*p))?.name.clone();
                if !crate::ui::oob::possible_parents(d, *hq)
                    .iter()
                    .any(|h| h.id == *p)
                {
                    return Err(EditError::Cycle {
                        hq: me,
                        parent: target,
                    });
                }
            }
            if let Some(h) = d.hqs.iter_mut().find(|h| h.id == *hq) {
                h.parent = *parent;
            }
            Ok(Created::Nothing)
        }
        ScenarioEdit::DeleteHq { side, hq } => {
            let d = side_mut(s, *side)?;
            let parent = d.hq(*hq).ok_or(EditError::NoHq(*hq))?.parent;
            d.hqs.retain(|h| h.id != *hq);
            for h in d.hqs.iter_mut().filter(|h| h.parent == Some(*hq)) {
                h.parent = parent;
            }
            if let Some(p) = parent {
                for u in d.units.iter_mut().filter(|u| u.hq == *hq) {
                    u.hq = p;
                }
            }
            Ok(Created::Nothing)
        }
        ScenarioEdit::ReplaceCommander { side, hq } => {
            let cid = next_commander_id(s);
            let list_id = s
                .sides
                .get(*side)
                .ok_or(EditError::NoSide(*side))?
                .army_list
                .clone();
            let list = find_list(lists, &list_id);
            let d = side_mut(s, *side)?;
            let h = d
                .hqs
                .iter_mut()
                .find(|h| h.id == *hq)
                .ok_or(EditError::NoHq(*hq))?;
            h.commander = new_commander(cid, list, h.commander.level, h.commander.quality);
            Ok(Created::Nothing)
        }
        ScenarioEdit::AddUnit { side, hq } => {
            let id = next_unit_id(s);
            let list_id = s
                .sides
                .get(*side)
                .ok_or(EditError::NoSide(*side))?
                .army_list
                .clone();
            let list = find_list(lists, &list_id);
            let d = side_mut(s, *side)?;
            if d.hq(*hq).is_none() {
                return Err(EditError::NoHq(*hq));
            }
            let row = default_row(list);
            let stands = match row.map(|r| r.arm) {
                Some(Arm::Infantry) | Some(Arm::Engineers) => 4,
                Some(Arm::Cavalry) => 3,
                _ => 1,
            };
            let n = d.units_of(*hq).count() + 1;
            d.units.push(Unit {
                id,
                name: neutral_name(row.map_or(Arm::Infantry, |r| r.arm), n),
                troop_type: row
                    .map_or_else(|| crate::model::TroopTypeId::new("?"), |r| r.id.clone()),
                stands,
                hq: *hq,
                grade: Default::default(),
                engineer_attached: false,
                brigade_skirmishers: false,
                regimental_guns: false,
                lancers: false,
                horse_artillery: false,
                pikes: false,
                position: None,
                morale_grade: None,
                nation: None,
            });
            Ok(Created::Unit(*side, id))
        }
        ScenarioEdit::SetUnit { side, unit } => {
            let list = s
                .sides
                .get(*side)
                .and_then(|d| find_list(lists, &d.army_list));
            let arm_of =
                |t: &crate::model::TroopTypeId| list.and_then(|l| l.troop_type(t)).map(|r| r.arm);
            let d = side_mut(s, *side)?;
            let slot = d
                .units
                .iter_mut()
                .find(|u| u.id == unit.id)
                .ok_or(EditError::NoUnit(unit.id))?;
            let mut new = (**unit).clone();
            // A neutral name follows a change of arm ("Battalion 2" made cavalry becomes
            // "Regiment 2"); a name the user gave stays.
            if let (Some(old_arm), Some(new_arm)) =
                (arm_of(&slot.troop_type), arm_of(&new.troop_type))
            {
                if new.name == slot.name && old_arm != new_arm {
                    if let Some(n) = neutral_number(&slot.name, old_arm) {
                        new.name = neutral_name(new_arm, n);
                    }
                }
            }
            *slot = new;
            Ok(Created::Nothing)
        }
        ScenarioEdit::DeleteUnit { side, unit } => {
            let d = side_mut(s, *side)?;
            let before = d.units.len();
            d.units.retain(|u| u.id != *unit);
            if d.units.len() == before {
                return Err(EditError::NoUnit(*unit));
            }
            for f in d
                .field_defenses
                .iter_mut()
                .filter(|f| f.occupant == Some(*unit))
            {
                f.occupant = None;
            }
            Ok(Created::Nothing)
        }
        ScenarioEdit::AddFeature(f) => {
            super::table_edit::add_feature(s, f)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::SetFeature(f) => {
            super::table_edit::set_feature(s, f)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::DeleteFeature(id) => {
            super::table_edit::delete_feature(s, *id)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::PlaceUnit { side, unit, at } => {
            super::table_edit::place_unit(s, *side, *unit, *at)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::PlaceHq { side, hq, at } => {
            super::table_edit::place_hq(s, *side, *hq, *at)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::DeploySide(side) => {
            super::table_edit::deploy_side(s, lists, *side)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::DeployHq { side, hq } => {
            super::table_edit::deploy_hq(s, lists, *side, *hq)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::SetArea { side, area, ring } => {
            super::table_edit::set_area(s, *side, *area, ring)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::AddPiece { piece, at } => {
            super::table_edit::add_piece(s, *piece, *at)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::AddDefense { side, defense } => {
            super::table_edit::add_defense(s, lists, *side, defense)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::SetDefense { side, defense } => {
            super::table_edit::set_defense(s, lists, *side, defense)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::DeleteDefense { side, id } => {
            super::table_edit::delete_defense(s, *side, *id)?;
            Ok(Created::Nothing)
        }
        ScenarioEdit::SetObjectiveText {
            side,
            major,
            description,
        } => {
            let d = side_mut(s, *side)?;
            let o = if *major {
                &mut d.objectives.major
            } else {
                &mut d.objectives.minor
            };
            o.description = description.clone();
            Ok(Created::Nothing)
        }
    }
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn level_noun(level: CommandLevel) -> &'static str {
    match level {
        CommandLevel::Brigade | CommandLevel::Hq => "Brigade",
        CommandLevel::Division => "Division",
        CommandLevel::Corps => "Corps",
        CommandLevel::Army => "Army",
    }
}

/// A side's default name from its list: "Napoleonic French Army" → "French",
/// "Franco-Prussian War Prussian Army" → "Prussian"; names not ending in "Army" are kept.
fn short_side_name(list_name: &str) -> String {
    const PERIODS: [&str; 5] = [
        "ACW ",
        "Napoleonic ",
        "Franco-Prussian War ",
        "18th Century ",
        "Colonial ",
    ];
    let Some(stem) = list_name.strip_suffix(" Army") else {
        return list_name.to_string();
    };
    let short = PERIODS
        .iter()
        .find_map(|p| stem.strip_prefix(p))
        .unwrap_or(stem);
    if short.trim().is_empty() {
        list_name.to_string()
    } else {
        short.trim().to_string()
    }
}

const SIDE_COLOURS: [[u8; 3]; 2] = [[0x2b, 0x4c, 0x7e], [0xa3, 0x2e, 0x2e]];

fn empty_side(name: String, list: ListId, index: usize) -> Side {
    Side {
        name,
        army_list: list,
        colour: SIDE_COLOURS.get(index).copied().unwrap_or([90, 90, 90]),
        hqs: Vec::new(),
        units: Vec::new(),
        field_defenses: Vec::new(),
        deployment_zone: Vec::new(),
        objectives: Objectives::default(),
    }
}

/// The "new scenario" template: two empty sides on the lists given, 1,500 points, 12 turns.
pub fn template(id: ScenarioId, name: &str, lists: &[ListId; 2], all: &[ArmyList]) -> Scenario {
    let sides = lists
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let side_name = find_list(all, l)
                .map_or_else(|| format!("Side {}", i + 1), |x| short_side_name(&x.name));
            empty_side(side_name, l.clone(), i)
        })
        .collect();
    Scenario {
        format: SCENARIO_FORMAT,
        id,
        name: name.to_string(),
        date: String::new(),
        year: None,
        description: String::new(),
        table: Table::default(),
        scale: Scale::Battalion,
        measure_scale: MeasureScale::Printed,
        points: 1500,
        turn_limit: 12,
        weather: Weather::Normal,
        defense: DefensePosture::None,
        defender: None,
        first_player: None,
        teams: Vec::new(),
        optional_rules: Vec::new(),
        terrain: Vec::new(),
        sides,
    }
}

/// A slug id for a new scenario from its name, unique among `taken`.
pub fn new_scenario_id(name: &str, taken: &[ScenarioId]) -> ScenarioId {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let slug = slug.trim_matches('-');
    let base = if slug.is_empty() {
        "scenario".to_string()
    } else {
        slug.to_string()
    };
    let mut id = base.clone();
    let mut n = 2;
    while taken.iter().any(|t| t.as_str() == id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    ScenarioId::new(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::army::shipped_lists;
    use crate::ui::ScenarioSettings;

    fn lists() -> Vec<ArmyList> {
        shipped_lists().unwrap()
    }

    fn scenario(lists: &[ArmyList]) -> Scenario {
        let ids = [ListId::new("nap-french"), ListId::new("nap-austrian")];
        template(ScenarioId::new("t"), "Test", &ids, lists)
    }

    #[test]
    fn new_ids_are_max_plus_one() {
        let l = lists();
        let mut s = scenario(&l);
        let Created::Hq(_, co) = apply(
            &mut s,
            &ScenarioEdit::AddHq {
                side: 0,
                parent: None,
            },
            &l,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(co, HqId(1));
        s.sides[0].hqs[0].id = HqId(41);
        s.sides[0].hqs[0].commander.id = CommanderId(9);
        let Created::Hq(_, b) = apply(
            &mut s,
            &ScenarioEdit::AddHq {
                side: 1,
                parent: None,
            },
            &l,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(b, HqId(42));
        assert_eq!(s.sides[1].hqs[0].commander.id, CommanderId(10));
        let Created::Unit(_, u) = apply(
            &mut s,
            &ScenarioEdit::AddUnit {
                side: 0,
                hq: HqId(41),
            },
            &l,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(u, UnitId(1));
        assert!(l[0].troop_types.iter().any(|_| true));
    }

    /// #22 item 6: "Add unit" picked the first (costliest) infantry row and named the unit after
    /// it; the name did not follow a change of type.
    #[test]
    fn a_new_unit_is_ordinary_line_infantry_with_a_neutral_name_that_follows_its_arm() {
        let l = lists();
        let mut s = scenario(&l);
        let Created::Hq(_, hq) = apply(
            &mut s,
            &ScenarioEdit::AddHq {
                side: 0,
                parent: None,
            },
            &l,
        )
        .unwrap() else {
            panic!()
        };
        apply(&mut s, &ScenarioEdit::AddUnit { side: 0, hq }, &l).unwrap();
        let french = find_list(&l, &s.sides[0].army_list).unwrap();
        let unit = s.sides[0].units[0].clone();
        let row = french.troop_type(&unit.troop_type).unwrap();
        assert_eq!(row.arm, Arm::Infantry);
        assert!(row.name.to_lowercase().contains("line"), "{}", row.name);
        assert_eq!(row.grade, crate::model::army::RowGrade::Regular);
        let dearest = french
            .troop_types
            .iter()
            .filter(|t| t.arm == Arm::Infantry && t.purchasable())
            .filter_map(|t| t.points)
            .max()
            .unwrap();
        assert!(row.points.unwrap() < dearest, "not the costliest row");
        assert_eq!(unit.name, "Battalion 1");

        // Made cavalry, the neutral name follows; a name of the user's own stays.
        let horse = french
            .troop_types
            .iter()
            .find(|t| t.arm == Arm::Cavalry && t.purchasable())
            .unwrap();
        let mut changed = unit.clone();
        changed.troop_type = horse.id.clone();
        let set = |u: &Unit| ScenarioEdit::SetUnit {
            side: 0,
            unit: Box::new(u.clone()),
        };
        apply(&mut s, &set(&changed), &l).unwrap();
        assert_eq!(s.sides[0].units[0].name, "Regiment 1");
        let mut named = s.sides[0].units[0].clone();
        named.name = "2e Hussards".into();
        apply(&mut s, &set(&named), &l).unwrap();
        named.troop_type = row.id.clone();
        apply(&mut s, &set(&named), &l).unwrap();
        assert_eq!(s.sides[0].units[0].name, "2e Hussards");
    }

    #[test]
    fn sub_hq_is_a_rank_lower_with_the_chart_value() {
        let l = lists();
        let mut s = scenario(&l);
        apply(
            &mut s,
            &ScenarioEdit::AddHq {
                side: 0,
                parent: None,
            },
            &l,
        )
        .unwrap();
        let co = s.sides[0].hqs[0].clone();
        apply(
            &mut s,
            &ScenarioEdit::AddHq {
                side: 0,
                parent: Some(co.id),
            },
            &l,
        )
        .unwrap();
        let sub = &s.sides[0].hqs[1];
        assert!(sub.commander.level.rank() < co.commander.level.rank());
        let list = l.iter().find(|x| x.id.as_str() == "nap-french").unwrap();
        let chart = list
            .command_type(sub.commander.level, sub.commander.quality)
            .unwrap();
        assert_eq!(sub.commander.command_value, chart.command);
    }

    #[test]
    fn changing_quality_resets_the_command_value() {
        let l = lists();
        let mut s = scenario(&l);
        apply(
            &mut s,
            &ScenarioEdit::AddHq {
                side: 0,
                parent: None,
            },
            &l,
        )
        .unwrap();
        let mut hq = s.sides[0].hqs[0].clone();
        hq.commander.command_value = 2;
        apply(
            &mut s,
            &ScenarioEdit::SetHq {
                side: 0,
                hq: Box::new(hq.clone()),
            },
            &l,
        )
        .unwrap();
        assert_eq!(
            s.sides[0].hqs[0].commander.command_value, 2,
            "same level and quality keep a set value"
        );
        let list = l.iter().find(|x| x.id.as_str() == "nap-french").unwrap();
        let other = list
            .command_types
            .iter()
            .find(|c| c.level == hq.commander.level && c.quality != hq.commander.quality)
            .unwrap();
        hq.commander.quality = other.quality;
        apply(
            &mut s,
            &ScenarioEdit::SetHq {
                side: 0,
                hq: Box::new(hq),
            },
            &l,
        )
        .unwrap();
        assert_eq!(s.sides[0].hqs[0].commander.command_value, other.command);
    }

    #[test]
    fn an_hq_cannot_move_under_its_own_child() {
        let l = lists();
        let mut s = scenario(&l);
        apply(
            &mut s,
            &ScenarioEdit::AddHq {
                side: 0,
                parent: None,
            },
            &l,
        )
        .unwrap();
        apply(
            &mut s,
            &ScenarioEdit::AddHq {
                side: 0,
                parent: Some(HqId(1)),
            },
            &l,
        )
        .unwrap();
        let err = apply(
            &mut s,
            &ScenarioEdit::MoveHq {
                side: 0,
                hq: HqId(1),
                parent: Some(HqId(2)),
            },
            &l,
        );
        assert!(matches!(err, Err(EditError::Cycle { .. })));
    }

    #[test]
    fn deleting_an_hq_hands_its_children_to_its_parent() {
        let l = lists();
        let mut s = scenario(&l);
        apply(
            &mut s,
            &ScenarioEdit::AddHq {
                side: 0,
                parent: None,
            },
            &l,
        )
        .unwrap();
        apply(
            &mut s,
            &ScenarioEdit::AddHq {
                side: 0,
                parent: Some(HqId(1)),
            },
            &l,
        )
        .unwrap();
        apply(
            &mut s,
            &ScenarioEdit::AddHq {
                side: 0,
                parent: Some(HqId(2)),
            },
            &l,
        )
        .unwrap();
        apply(
            &mut s,
            &ScenarioEdit::AddUnit {
                side: 0,
                hq: HqId(2),
            },
            &l,
        )
        .unwrap();
        apply(
            &mut s,
            &ScenarioEdit::DeleteHq {
                side: 0,
                hq: HqId(2),
            },
            &l,
        )
        .unwrap();
        let side = &s.sides[0];
        assert_eq!(side.hq(HqId(3)).unwrap().parent, Some(HqId(1)));
        assert_eq!(side.units[0].hq, HqId(1));
    }

    #[test]
    fn settings_and_side_deletion_keep_the_defender_sane() {
        let l = lists();
        let mut s = scenario(&l);
        let mut set = ScenarioSettings::of(&s);
        set.defender = Some(1);
        apply(&mut s, &ScenarioEdit::Settings(Box::new(set)), &l).unwrap();
        apply(&mut s, &ScenarioEdit::DeleteSide(0), &l).unwrap();
        assert_eq!(s.defender, Some(0));
        apply(&mut s, &ScenarioEdit::DeleteSide(0), &l).unwrap();
        assert_eq!(s.defender, None);
    }

    #[test]
    fn side_names_come_from_the_list_names() {
        assert_eq!(short_side_name("Napoleonic French Army"), "French");
        assert_eq!(
            short_side_name("Franco-Prussian War Prussian Army"),
            "Prussian"
        );
        assert_eq!(short_side_name("ACW Union Army"), "Union");
        assert_eq!(short_side_name("18th Century Wars"), "18th Century Wars");
    }

    #[test]
    fn scenario_ids_are_unique_slugs() {
        let taken = vec![ScenarioId::new("aspern-1809")];
        assert_eq!(
            new_scenario_id("Aspern, 1809", &taken).as_str(),
            "aspern-1809-2"
        );
        assert_eq!(new_scenario_id("Wagram", &taken).as_str(), "wagram");
        assert_eq!(new_scenario_id("!!!", &taken).as_str(), "scenario");
    }
}
