//! Orders of battle: side → commanding officer → HQs → units (ARMY-08).
//!
//! A side's HQs form a tree whose single root is the commanding officer (CO, CMD-27); every
//! unit names its parent HQ. The tree is data the user edits; [`super::validate`] reports where
//! it breaks the rules rather than the types forbidding it, so a half-built order of battle can
//! still be saved and shown.

use super::army::{CommandLevel, Quality};
use super::defense::FieldDefense;
use super::ids::{CommanderId, HqId, ListId, TroopTypeId, UnitId};
use crate::geom::Point;
use serde::{Deserialize, Serialize};

/// The person commanding an HQ. Level, quality and command value come from the list's command
/// chart by default but may be set for a historical figure (the book allows a brigadier rated as
/// an army commander "if the historical situation merits it").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Commander {
    pub id: CommanderId,
    pub name: String,
    /// A short historical note (rank, career, what he did that day).
    #[serde(default)]
    pub note: String,
    pub level: CommandLevel,
    pub quality: Quality,
    /// The command value (CMD-01); the chart's value unless a scenario overrides it.
    pub command_value: u8,
    /// CMD-28: a knocked-out commander is replaced once, at -1.
    #[serde(default)]
    pub replaced_once: bool,
}

/// A command unit: the CO (no parent) or an HQ beneath it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hq {
    pub id: HqId,
    /// The formation it commands, e.g. "1st Brigade (Coëhorn)".
    pub name: String,
    #[serde(default)]
    pub parent: Option<HqId>,
    pub commander: Commander,
    /// Mounted (uses the mounted command Move).
    #[serde(default = "yes")]
    pub mounted: bool,
    #[serde(default)]
    pub position: Option<Placement>,
    /// ART-10: a Field Artillery Officer — a command unit that orders only the artillery of a
    /// grand battery, is never the CO, and fights on the list's Average Brigade HQ line
    /// ([`Hq::stat_line`]) at [`FAO_POINTS`]. Absent in older files (an ordinary HQ).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fao: bool,
    /// OPT-NATION-01 (OPTIONAL): the HQ's nationality for ordering ("British", "Spanish");
    /// `None` is the side's own. Read only when the scenario switches multi-national armies on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nation: Option<String>,
    /// OPT-NATION-03 (OPTIONAL): this HQ heads a separate allied army on its side — it is that
    /// army's CO, and it and everything beneath it have their own breakpoint. Read only when
    /// the scenario switches multi-national armies on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ally: bool,
}

/// ART-10 ruling: an FAO costs 55 points (roster and VP).
pub const FAO_POINTS: u32 = 55;

/// ART-10: one FAO per this many artillery units (ARMY-13).
pub const ARTILLERY_UNITS_PER_FAO: u32 = 6;

impl Hq {
    /// The chart row the HQ fights on: its commander's level and quality; an FAO the list's
    /// Average Brigade HQ line (ART-10 ruling).
    pub fn stat_line(&self) -> (CommandLevel, Quality) {
        if self.fao {
            (CommandLevel::Brigade, Quality::Average)
        } else {
            (self.commander.level, self.commander.quality)
        }
    }
}

fn yes() -> bool {
    true
}

/// Where a unit or HQ starts on the table, when the scenario places it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    pub at: Point,
    /// Facing in degrees, 0 = towards increasing y (the far side of the table), clockwise.
    pub facing_deg: f64,
}

/// Elite or poor status of a unit (ARMY-09). For Napoleonic/FPW/18C lists it follows the row;
/// for ACW it is bought per unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    #[default]
    Regular,
    Elite,
    Poor,
}

impl Grade {
    pub const ALL: [Grade; 3] = [Grade::Regular, Grade::Elite, Grade::Poor];
    pub fn label(self) -> &'static str {
        match self {
            Grade::Regular => "Regular",
            Grade::Elite => "Elite",
            Grade::Poor => "Poor",
        }
    }
}

/// A unit of stands under one troop-chart row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    pub id: UnitId,
    pub name: String,
    pub troop_type: TroopTypeId,
    /// Number of stands (for artillery: gun stands; the limber is free, ARMY-10 c).
    pub stands: u8,
    pub hq: HqId,
    #[serde(default)]
    pub grade: Grade,
    /// An engineer stand attached, making this an engineer unit (COL-02, ENG).
    #[serde(default)]
    pub engineer_attached: bool,
    /// Provides a brigade skirmisher screen (SKIR-01).
    #[serde(default)]
    pub brigade_skirmishers: bool,
    /// Regimental guns attached (18th-century practice; scenario-specific).
    #[serde(default)]
    pub regimental_guns: bool,
    /// Designated lancers where the row permits (COL-13).
    #[serde(default)]
    pub lancers: bool,
    /// ACW: a gun attached to a cavalry brigade as horse artillery (ARMY-11).
    #[serde(default)]
    pub horse_artillery: bool,
    /// PIKE-01/02 ruling: the unit carries pikes (a scenario flag; no list row has pikes).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pikes: bool,
    #[serde(default)]
    pub position: Option<Placement>,
    /// OPT-MORALE-01 (OPTIONAL): the unit's morale grade; `None` counts as Regular (ruling d).
    /// Read only when the scenario switches morale grades on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub morale_grade: Option<MoraleGrade>,
    /// OPT-NATION-01 (OPTIONAL): the unit's nationality for ordering; `None` is the side's own.
    /// Read only when the scenario switches multi-national armies on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nation: Option<String>,
}

/// OPT-MORALE-01 (OPTIONAL): a unit's morale grade, replacing the suppression score and the
/// fall-back knock-out distance (and with OPT-MORALE-02, the score to hit it in a charge).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoraleGrade {
    Unmotivated,
    #[default]
    Regular,
    Motivated,
}

impl MoraleGrade {
    pub const ALL: [MoraleGrade; 3] = [
        MoraleGrade::Unmotivated,
        MoraleGrade::Regular,
        MoraleGrade::Motivated,
    ];
    pub fn label(self) -> &'static str {
        match self {
            MoraleGrade::Unmotivated => "Unmotivated",
            MoraleGrade::Regular => "Regular",
            MoraleGrade::Motivated => "Motivated",
        }
    }
    /// OPT-MORALE-01: suppressed if any suppression die scores this (4+, 5+, 6).
    pub fn suppressed_on(self) -> u8 {
        match self {
            MoraleGrade::Unmotivated => 4,
            MoraleGrade::Regular => 5,
            MoraleGrade::Motivated => 6,
        }
    }
    /// OPT-MORALE-01: knocked out if a fall-back exceeds this many cm (5, 10, 15).
    pub fn knocked_out_over_cm(self) -> u32 {
        match self {
            MoraleGrade::Unmotivated => 5,
            MoraleGrade::Regular => 10,
            MoraleGrade::Motivated => 15,
        }
    }
    /// OPT-MORALE-02: the score to hit the unit in a charge (4+, 5+, 6).
    pub fn charge_hit_on(self) -> u8 {
        self.suppressed_on()
    }
    /// OPT-MORALE-01 (e): the points adjustment (−25%, 0, +25%) applied to a unit's total cost,
    /// rounded to the nearest point, halves up.
    pub fn adjust_points(self, cost: u32) -> u32 {
        let quarters = match self {
            MoraleGrade::Unmotivated => 3,
            MoraleGrade::Regular => 4,
            MoraleGrade::Motivated => 5,
        };
        // cost × q / 4, rounded half up: (cost × q × 2 + 4) / 8.
        (cost * quarters * 2 + 4) / 8
    }
}

/// One side of a scenario with its order of battle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub name: String,
    pub army_list: ListId,
    /// The side's colour band on labels and the map, as sRGB.
    #[serde(default = "default_colour")]
    pub colour: [u8; 3],
    pub hqs: Vec<Hq>,
    pub units: Vec<Unit>,
    #[serde(default)]
    pub field_defenses: Vec<FieldDefense>,
    /// The deployment zone, a polygon in table centimetres.
    #[serde(default)]
    pub deployment_zone: Vec<Point>,
    #[serde(default)]
    pub objectives: Objectives,
}

fn default_colour() -> [u8; 3] {
    [90, 90, 90]
}

/// A side's major and minor objectives (OBJ-01).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Objectives {
    #[serde(default)]
    pub major: Objective,
    #[serde(default)]
    pub minor: Objective,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Objective {
    pub description: String,
    /// The ground to hold or take, where the objective is a place.
    #[serde(default)]
    pub area: Vec<Point>,
}

impl Side {
    /// The commanding officer: the HQ with no parent (CMD-27). `None` when there is none or
    /// more than one (validation reports which). An FAO is never the CO (ART-10).
    pub fn co(&self) -> Option<&Hq> {
        let mut roots = self.hqs.iter().filter(|h| h.parent.is_none() && !h.fao);
        let first = roots.next()?;
        if roots.next().is_some() {
            None
        } else {
            Some(first)
        }
    }

    pub fn hq(&self, id: HqId) -> Option<&Hq> {
        self.hqs.iter().find(|h| h.id == id)
    }

    pub fn unit(&self, id: UnitId) -> Option<&Unit> {
        self.units.iter().find(|u| u.id == id)
    }

    /// HQs directly beneath `parent` (`None`: the roots).
    pub fn child_hqs(&self, parent: Option<HqId>) -> impl Iterator<Item = &Hq> {
        self.hqs.iter().filter(move |h| h.parent == parent)
    }

    pub fn units_of(&self, hq: HqId) -> impl Iterator<Item = &Unit> {
        self.units.iter().filter(move |u| u.hq == hq)
    }

    /// The HQ's position in the chain as "II/1"-style path of ordinal numbers below the CO,
    /// used on labels. The CO itself has an empty path.
    pub fn hq_path(&self, id: HqId) -> Vec<usize> {
        let mut path = Vec::new();
        let mut cur = self.hq(id);
        let mut guard = 0;
        while let Some(h) = cur {
            guard += 1;
            if guard > self.hqs.len() {
                break; // a cycle: validation reports it
            }
            let Some(parent) = h.parent else { break };
            let pos = self
                .child_hqs(Some(parent))
                .position(|c| c.id == h.id)
                .unwrap_or(0);
            path.push(pos + 1);
            cur = self.hq(parent);
        }
        path.reverse();
        path
    }
}
