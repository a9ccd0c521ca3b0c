//! A battle fought on a real table without the app (issue #19 item 4): its result as a person
//! enters it — per unit the stands lost or knocked out, the command units knocked out, the field
//! defences lost, the objective each side reached and whether it withdrew — from which the VPs
//! and the verdict are worked out by the rules (VP-01..VP-04, OBJ-01, OBJ-02) and carried like a
//! battle played in the app.

use super::after::{after_losses, Losses};
use super::{CarryError, CarryReport, Forces};
use crate::model::army::ArmyList;
use crate::model::points::{hq_points, unit_points};
use crate::model::{Campaign, DefenseId, HqId, Scenario, UnitId, Weather};
use crate::rules::dice::Dice;
use crate::rules::victory::{decide, BattleResult, ObjectiveLevel, SideInput};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// One scenario side's part of a result entered by hand.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandSide {
    /// Units that came through with fewer stands: (unit, stands lost).
    #[serde(default)]
    pub stands_lost: Vec<(UnitId, u8)>,
    /// Units knocked out (GEN-12): all their stands count as lost.
    #[serde(default)]
    pub knocked_out: Vec<UnitId>,
    /// Command units knocked out (CMD-28): their commanders' fates are rolled.
    #[serde(default)]
    pub commands_out: Vec<HqId>,
    /// Field defences lost (DEF-06).
    #[serde(default)]
    pub defences_lost: Vec<DefenseId>,
    /// The objective the side reached (OBJ-01).
    #[serde(default)]
    pub objective: ObjectiveLevel,
    /// The side broke (BRK-02) or conceded: it counts no objective and its VPs are capped (VP-02).
    #[serde(default)]
    pub withdrew: bool,
}

/// A result entered by hand, per scenario side (in the scenario's order).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandResult {
    pub sides: Vec<HandSide>,
    /// The weather at the end (`None`: as it began).
    #[serde(default)]
    pub end_weather: Option<Weather>,
}

/// What is wrong with a result entered by hand for `scenario`: each problem names the side and
/// the unit, command or defence, so the form can show it at its line.
pub fn hand_problems(scenario: &Scenario, hand: &HandResult) -> Vec<String> {
    let mut out = Vec::new();
    if hand.sides.len() != scenario.sides.len() {
        out.push(format!(
            "the result has {} sides, but {} has {}",
            hand.sides.len(),
            scenario.name,
            scenario.sides.len()
        ));
        return out;
    }
    for (side, h) in scenario.sides.iter().zip(&hand.sides) {
        let mut seen: BTreeSet<UnitId> = BTreeSet::new();
        for (id, lost) in &h.stands_lost {
            match side.unit(*id) {
                None => out.push(format!("{}: there is no unit {id}", side.name)),
                Some(u) if *lost >= u.stands => out.push(format!(
                    "{}: {} fought with {} stands and cannot lose {lost} and stay in the field; \
                     mark it knocked out instead",
                    side.name, u.name, u.stands
                )),
                Some(_) => {}
            }
            if !seen.insert(*id) {
                out.push(format!(
                    "{}: unit {id} is entered twice (stands lost or knocked out, not both)",
                    side.name
                ));
            }
        }
        for id in &h.knocked_out {
            if side.unit(*id).is_none() {
                out.push(format!("{}: there is no unit {id}", side.name));
            }
            if !seen.insert(*id) {
                out.push(format!(
                    "{}: unit {id} is entered twice (stands lost or knocked out, not both)",
                    side.name
                ));
            }
        }
        for id in &h.commands_out {
            if side.hq(*id).is_none() {
                out.push(format!("{}: there is no command unit {id}", side.name));
            }
        }
        for id in &h.defences_lost {
            if !side.field_defenses.iter().any(|d| d.id == *id) {
                out.push(format!("{}: there is no field defence {id}", side.name));
            }
        }
    }
    out
}

/// VP-01: what side `k` lost, in points, per its own list — full purchase cost of each unit
/// knocked out however many stands it had left, each command unit's chart cost, each defence's
/// cost (DEF-06); stands lost by units that came through give none (ruling (b)).
fn points_lost(scenario: &Scenario, lists: &[ArmyList], k: usize, h: &HandSide) -> i64 {
    let Some(side) = scenario.sides.get(k) else {
        return 0;
    };
    let Some(list) = lists.iter().find(|l| l.id == side.army_list) else {
        return 0;
    };
    let units: i64 = h
        .knocked_out
        .iter()
        .filter_map(|id| side.unit(*id))
        .map(|u| unit_points(u, list))
        .sum();
    let commands: i64 = h
        .commands_out
        .iter()
        .filter_map(|id| side.hq(*id))
        .map(|hq| hq_points(hq, list))
        .sum();
    let defences: i64 = side
        .field_defenses
        .iter()
        .filter(|d| h.defences_lost.contains(&d.id))
        .map(|d| i64::from(d.cost()))
        .sum();
    units + commands + defences
}

/// The verdict of a result entered by hand, by the rules the engine ends a battle with: each
/// side earns the points of what the other lost (VP-01), a side that withdrew counts no
/// objective and is capped (OBJ-01 ruling (b), VP-02), then the objective table (OBJ-01) and the
/// double-VP upgrade (VP-03). No VP-04 modifier: the engine plays with none.
pub fn hand_verdict(scenario: &Scenario, lists: &[ArmyList], hand: &HandResult) -> BattleResult {
    let side = |k: usize| hand.sides.get(k).cloned().unwrap_or_default();
    let input = |k: usize| SideInput {
        objective: side(k).objective,
        withdrew: side(k).withdrew,
        vp_earned: points_lost(scenario, lists, 1 - k, &side(1 - k)),
        points_modifier: 1.0,
    };
    decide([input(0), input(1)])
}

/// The forces after battle `index` of the campaign, fought on a real table on `scenario` (the
/// scenario the carry gave) with the result `hand`: carried exactly as a battle played in the
/// app ([`super::after_battle`]), each fallen commander's fate rolled from `dice`. Refused with
/// the form's problems when the result does not fit the scenario.
pub fn after_hand(
    forces: &Forces,
    campaign: &Campaign,
    index: usize,
    scenario: &Scenario,
    lists: &[ArmyList],
    hand: &HandResult,
    dice: &mut dyn Dice,
) -> Result<(Forces, CarryReport), CarryError> {
    let problems = hand_problems(scenario, hand);
    if !problems.is_empty() {
        return Err(CarryError::Mismatch(problems.join("; ")));
    }
    let mut losses = Losses::default();
    for (k, h) in hand.sides.iter().enumerate() {
        for (id, lost) in &h.stands_lost {
            losses.stands.insert((k, *id), u32::from(*lost));
        }
        for id in &h.knocked_out {
            losses
                .knocked_out
                .insert((k, *id), "GEN-12, entered by hand".to_string());
        }
        for id in &h.commands_out {
            losses.command_out.insert((k, *id));
        }
        for id in &h.defences_lost {
            losses.defences.push((k, *id));
        }
    }
    losses.result = Some(hand_verdict(scenario, lists, hand));
    let weather = hand.end_weather.unwrap_or(scenario.weather);
    after_losses(forces, campaign, index, scenario, &losses, weather, dice)
}
