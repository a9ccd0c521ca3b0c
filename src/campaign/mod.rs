//! Linked campaigns: what carries from one battle's result into the next scenario (losses,
//! recovery, knocked-out units, commander casualties, victory points, weather, field defences),
//! as pure functions over the model's [`crate::model::Campaign`] and the battles of the engine.
//!
//! The flow of one campaign, battle by battle (what [`play::autoplay`] does, and what a stored
//! campaign run does one step at a time):
//!
//! 1. [`forces_from`] builds the campaign's [`Forces`] from its scenarios: every unit and
//!    commander at the strength of its first appearance. Identity: a unit is the same from
//!    battle to battle when it has the same unit id on the same campaign side; a commander
//!    likewise by the id of his command unit (HQ).
//! 2. [`scenario_for_battle`] carries the forces into the next battle's scenario: stands,
//!    units gone, commanders replaced, weather, defences. It returns the scenario to play, the
//!    forces after the carry and a [`CarryReport`] of every change with its reason.
//! 3. The battle is played ([`crate::rules::Battle`]).
//! 4. [`after_battle`] reads the finished battle's events: stands lost, units and command units
//!    knocked out, defences lost, the verdict and VPs (VP-01..VP-03), the end weather; it rolls
//!    each fallen commander's fate and returns the forces after the battle and a report of it.
//! 5. [`tally`] gives the standing under the campaign's [`crate::model::VictoryCondition`].
//!
//! Every die of the carry comes from a seeded stream ([`carry_dice`]) and is in the report.
//! Suppression, disorder and hits never carry: the forces hold only stands and statuses.
//!
//! Layering: depends on `rules`, `model`, `geom` and `ai`; must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

mod after;
mod carry;
mod forces;
mod hand;
pub mod play;
mod report;
mod tally;
#[cfg(test)]
mod tests;

pub use after::after_battle;
pub use carry::{scenario_for_battle, Carried};
pub use forces::{
    forces_from, validate, Absent, BattleRecord, CampaignProblem, CommanderForce, Fallen, Fate,
    Forces, SideForces, UnitForce, UnitStatus,
};
pub use hand::{after_hand, hand_problems, hand_verdict, HandResult, HandSide};
pub use report::{CarryReport, CarryValue, Change, ChangeKind};
pub use tally::{tally, Tally};

use crate::model::{Campaign, Scenario};
use crate::rules::dice::SeededDice;

/// The carry could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CarryError {
    /// A die the carry needed was not there (a scripted stream ran out).
    #[error("the campaign's dice ran out: {0}")]
    Dice(String),
    /// The battle is not one of this campaign's, or its sides do not match the campaign's.
    #[error("{0}")]
    Mismatch(String),
}

impl From<crate::rules::dice::DiceError> for CarryError {
    fn from(e: crate::rules::dice::DiceError) -> Self {
        CarryError::Dice(e.to_string())
    }
}

/// Battle `index` of the campaign, refused when there is none or it is not `scenario`'s.
fn battle_of<'a>(
    campaign: &'a Campaign,
    index: usize,
    scenario: &Scenario,
) -> Result<&'a crate::model::CampaignBattle, CarryError> {
    let cb = campaign.battles.get(index).ok_or_else(|| {
        CarryError::Mismatch(format!(
            "the campaign has {} battles; there is no battle {}",
            campaign.battles.len(),
            index + 1
        ))
    })?;
    if scenario.id != cb.scenario {
        return Err(CarryError::Mismatch(format!(
            "battle {} of the campaign is scenario '{}', but the one given is '{}'",
            index + 1,
            cb.scenario,
            scenario.id
        )));
    }
    Ok(cb)
}

/// SplitMix64's finaliser: spreads a seed and an index over all 64 bits.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The dice seed of battle `index` (0-based) of a campaign run with seed `seed`.
pub fn battle_seed(seed: u64, index: usize) -> u64 {
    mix(seed ^ mix(index as u64).rotate_left(1))
}

/// The dice of the carry between battle `index - 1` and battle `index` (the fates of the
/// commanders who fell in battle `index - 1` and the weather of battle `index`); `index` is the
/// number of battles played so far. Its stream is apart from every battle's own.
pub fn carry_dice(seed: u64, index: usize) -> SeededDice {
    SeededDice::new(mix(seed.rotate_left(17) ^ mix((index as u64) ^ 0xC0FF_EE00)))
}

/// The scenarios of a campaign in play order, or the ids it names that are not among those
/// given, so a campaign can be checked before its first battle.
pub fn ordered_scenarios<'a>(
    campaign: &Campaign,
    scenarios: &'a [Scenario],
) -> Result<Vec<&'a Scenario>, Vec<String>> {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for b in &campaign.battles {
        match scenarios.iter().find(|s| s.id == b.scenario) {
            Some(s) => found.push(s),
            None => missing.push(b.scenario.to_string()),
        }
    }
    if missing.is_empty() {
        Ok(found)
    } else {
        Err(missing)
    }
}
