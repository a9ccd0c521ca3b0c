//! A battle fought on a real table without the app (issue #19 item 4): its result as a person
//! enters it — per unit the stands lost or knocked out, the command units knocked out, the field
//! defences lost, the objective each side reached and whether it withdrew — from which the VPs
//! and the verdict are worked out by the rules (VP-01..VP-04, OBJ-01, OBJ-02) and carried like a
//! battle played in the app.

use crate::model::{DefenseId, HqId, UnitId, Weather};
use crate::rules::victory::ObjectiveLevel;
use serde::{Deserialize, Serialize};

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
