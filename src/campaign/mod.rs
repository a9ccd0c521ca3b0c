//! Linked campaigns: what carries from one battle's result into the next scenario (losses,
//! commander casualties, victory points, weather), as pure functions over the model's
//! [`crate::model::Campaign`] and the battle logs of the engine.
//!
//! Layering: depends on `rules`, `model` and `geom`; must not import egui, eframe, rusqlite,
//! `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use crate::model::{Campaign, Scenario};

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
