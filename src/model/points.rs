//! Points costing (ARMY-01, ARMY-09, ARMY-11, ARMY-15, DEF-03) and the breakpoint figure (BRK-01).
//!
//! Costing never fails: a unit whose troop type is missing costs 0 here and validation reports
//! the missing type, so that the editor can always show a total.

use super::army::{Arm, ArmyList, RowGrade, RuleEffect, TroopType};
use super::oob::{Grade, Hq, Side, Unit};

/// ARMY-01: the per-stand price of a unit's row after grade and horse-artillery adjustments.
pub fn stand_cost(unit: &Unit, row: &TroopType, list: &ArmyList) -> i64 {
    let base = i64::from(row.points.unwrap_or(0));
    // ARMY-09 / ARMY-15: ACW elite +5 and poor -5 per stand, only where the grade is bought
    // (a row whose grade is fixed by its notes already prices it in).
    let grade = match (list.caps.grade_costs, unit.grade, row.grade) {
        (Some(c), Grade::Elite, RowGrade::Regular) => i64::from(c.elite_per_stand),
        (Some(c), Grade::Poor, RowGrade::Regular) => i64::from(c.poor_per_stand),
        _ => 0,
    };
    // ARMY-11: ACW horse artillery +10 per gun stand; rows that already include it carry a
    // surcharge of 0.
    let horse = if unit.horse_artillery && row.arm == Arm::Artillery {
        list.special_rules
            .iter()
            .flat_map(|r| r.effects.iter())
            .find_map(|e| match e {
                RuleEffect::HorseArtillery { surcharge, .. } if *surcharge > 0 => {
                    Some(i64::from(*surcharge))
                }
                _ => None,
            })
            .unwrap_or(0)
    } else {
        0
    };
    base + grade + horse
}

/// The list's engineer row: the stand an infantry unit buys to become an engineer unit.
pub fn engineer_row(list: &ArmyList) -> Option<&TroopType> {
    list.troop_types
        .iter()
        .find(|t| t.arm == Arm::Engineers && t.purchasable())
}

/// ARMY-01: stands × per-stand cost, plus an attached engineer stand at its row's price.
pub fn unit_points(unit: &Unit, list: &ArmyList) -> i64 {
    let Some(row) = list.troop_type(&unit.troop_type) else {
        return 0;
    };
    let mut total = i64::from(unit.stands) * stand_cost(unit, row, list);
    if unit.engineer_attached {
        if let Some(eng) = engineer_row(list) {
            total += i64::from(eng.points.unwrap_or(0));
        }
    }
    total
}

/// A command unit costs its chart row (level and quality); an FAO 55 points (ART-10 ruling).
pub fn hq_points(hq: &Hq, list: &ArmyList) -> i64 {
    if hq.fao {
        return i64::from(super::oob::FAO_POINTS);
    }
    list.command_type(hq.commander.level, hq.commander.quality)
        .map_or(0, |c| i64::from(c.points))
}

/// Totals of one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SidePoints {
    pub units: i64,
    pub command: i64,
    /// DEF-03: field defences count inside the total (DEF-02).
    pub defenses: i64,
}

impl SidePoints {
    pub fn total(&self) -> i64 {
        self.units + self.command + self.defenses
    }
}

pub fn side_points(side: &Side, list: &ArmyList) -> SidePoints {
    SidePoints {
        units: side.units.iter().map(|u| unit_points(u, list)).sum(),
        command: side.hqs.iter().map(|h| hq_points(h, list)).sum(),
        defenses: side
            .field_defenses
            .iter()
            .map(|d| i64::from(d.cost()))
            .sum(),
    }
}

/// BRK-01: half the non-command units, rounded up. Skirmisher screens, scouts and field defences
/// are not units here; artillery (gun + limber), engineer-augmented and transport units count.
pub fn breakpoint(side: &Side) -> u32 {
    let n = u32::try_from(side.units.len()).unwrap_or(u32::MAX);
    n.div_ceil(2)
}
