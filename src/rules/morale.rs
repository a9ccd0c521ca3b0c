//! Optional morale grades (catalogue §3.11 OPT-MORALE-01/02).
//!
//! Owns the reading of a unit's morale grade (a scenario unit field, `Unit::morale_grade`) into
//! the casualty pipeline's [`MoraleRule`] (suppression score and fall-back knock-out distance,
//! OPT-MORALE-01) and into the score to hit a unit in a charge (OPT-MORALE-02, its own
//! sub-option). Nothing here applies unless the scenario switches the optional rule on.
//!
//! Layering: depends on `model` and the rest of `rules` only; no egui, rusqlite, `std::fs`,
//! clock or thread RNG.

use super::battle::Ctx;
use super::casualty::MoraleRule;
use super::event::Modifier;
use super::state::{PieceId, PieceState};
use crate::model::{MoraleGrade, OptionalRule};

/// OPT-MORALE-01 (d): the grade of a unit; undeclared grades (and command units) are Regular.
pub fn grade_of(ctx: &Ctx, p: &PieceState) -> MoraleGrade {
    let PieceId::Unit { side, unit } = p.id else {
        return MoraleGrade::Regular;
    };
    ctx.scenario
        .sides
        .get(side)
        .and_then(|s| s.unit(unit))
        .and_then(|u| u.morale_grade)
        .unwrap_or_default()
}

/// OPT-MORALE-01: with morale grades on, the target's grade replaces the suppression score and
/// the 20 cm fall-back distance of FIRE-22/FIRE-26; `None` when the option is off.
pub fn morale_rule(ctx: &Ctx, target: &PieceState) -> Option<MoraleRule> {
    if !ctx
        .scenario
        .optional_rules
        .contains(&OptionalRule::MoraleGrades)
    {
        return None;
    }
    let g = grade_of(ctx, target);
    Some(MoraleRule {
        suppress_on: g.suppressed_on(),
        rout_over_cm: g.knocked_out_over_cm(),
    })
}

/// OPT-MORALE-02 (sub-option `MoraleGradesInCharge`): the score to hit `target` in a charge,
/// in every round and for chargers too, replacing the cover-based score of CHG-16.
pub fn charge_score(ctx: &Ctx, target: &PieceState) -> Option<(u8, Vec<Modifier>)> {
    if !ctx
        .scenario
        .optional_rules
        .contains(&OptionalRule::MoraleGradesInCharge)
    {
        return None;
    }
    let g = grade_of(ctx, target);
    let needed = g.charge_hit_on();
    Some((
        needed,
        vec![Modifier {
            rule: "OPT-MORALE-02".into(),
            label: format!("hit on {needed}+: {} morale grade", g.label()),
            value: i32::from(needed),
        }],
    ))
}

/// OPT-MORALE-02 for the charging side: the chargers' hits are scored against the first
/// charger still in the fight (the front charger, to whom CHG-17 gives the hits first).
pub fn charge_score_of(ctx: &Ctx, targets: &[PieceId]) -> Option<(u8, Vec<Modifier>)> {
    let p = targets.iter().find_map(|id| ctx.state.piece(*id))?;
    charge_score(ctx, p)
}
