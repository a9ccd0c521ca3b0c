//! Campaigns: an ordered chain of battles and what carries from one into the next. The linking
//! logic (applying a result to the next scenario) lives in `crate::campaign`; this is the data.

use super::ids::{CampaignId, ScenarioId};
use super::scenario::Weather;
use serde::{Deserialize, Serialize};

/// What a campaign carries from one battle's result into the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarryOver {
    /// Stands lost stay lost; knocked-out units are gone.
    pub losses: bool,
    /// Commanders killed or captured are replaced at -1 (CMD-28) or removed.
    pub commander_casualties: bool,
    /// Victory points accumulate across the campaign.
    pub victory_points: bool,
    /// The weather at the end of one battle starts the next.
    pub weather: bool,
}

impl Default for CarryOver {
    fn default() -> Self {
        CarryOver {
            losses: true,
            commander_casualties: true,
            victory_points: true,
            weather: true,
        }
    }
}

/// One battle of a campaign, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CampaignBattle {
    pub scenario: ScenarioId,
    /// Free text: where it sits in the campaign ("Day 1: Landshut").
    #[serde(default)]
    pub note: String,
    /// Weather override for this battle when carry-over of weather is off.
    #[serde(default)]
    pub weather: Option<Weather>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Campaign {
    pub id: CampaignId,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub battles: Vec<CampaignBattle>,
    #[serde(default)]
    pub carry_over: CarryOver,
}
