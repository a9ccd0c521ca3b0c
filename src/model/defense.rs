//! Field defences (DEF-01..06): the items a defender may buy, their costs and availability.
//! The table is data ([`DefenseKind::spec`]) so that the editor, validation, rosters and the
//! engine read the same numbers.

use super::ids::{DefenseId, UnitId};
use crate::geom::Point;
use serde::{Deserialize, Serialize};

/// DEF-03: the field-defence items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefenseKind {
    Trench,
    Wire,
    Ditch,
    Stakes,
    DugOut,
    BreastWorks,
    LogWorks,
    FortifiedWorks,
    Fortification,
}

/// The cover a work gives its occupant (DEF-04, FIRE-15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cover {
    Open,
    Soft,
    Hard,
    Full,
}

/// One row of the DEF-03 table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefenseSpec {
    pub label: &'static str,
    pub what: &'static str,
    /// Points per item (per unit dug in, per 10 cm of wire, per 10 × 5 cm section).
    pub cost: u32,
    pub hasty: bool,
    pub fixed: bool,
    /// DEF-04 ruling.
    pub cover: Cover,
    /// DEF-04: obstacles only (TERR-13).
    pub obstacle: bool,
}

impl DefenseKind {
    pub const ALL: [DefenseKind; 9] = [
        DefenseKind::Trench,
        DefenseKind::Wire,
        DefenseKind::Ditch,
        DefenseKind::Stakes,
        DefenseKind::DugOut,
        DefenseKind::BreastWorks,
        DefenseKind::LogWorks,
        DefenseKind::FortifiedWorks,
        DefenseKind::Fortification,
    ];

    /// DEF-03 (costs and availability) and DEF-04 (effects).
    pub fn spec(self) -> DefenseSpec {
        use Cover::*;
        let (label, what, cost, hasty, fixed, cover, obstacle) = match self {
            DefenseKind::Trench => ("Trench", "digs in one unit", 5, true, true, Soft, false),
            DefenseKind::Wire => (
                "Wire",
                "10 cm length of wire obstacle",
                5,
                false,
                true,
                Open,
                true,
            ),
            DefenseKind::Ditch => (
                "Ditch",
                "10 x 5 cm steep ditch",
                25,
                false,
                true,
                Open,
                true,
            ),
            DefenseKind::Stakes => (
                "Stakes",
                "10 x 5 cm section of stakes or abatis",
                25,
                true,
                true,
                Open,
                true,
            ),
            DefenseKind::DugOut => (
                "Dug-Out",
                "shelters one command or artillery unit",
                25,
                false,
                true,
                Soft,
                false,
            ),
            DefenseKind::BreastWorks => (
                "Breast Works",
                "10 x 5 cm section of light cover",
                25,
                true,
                true,
                Soft,
                false,
            ),
            DefenseKind::LogWorks => (
                "Log Works",
                "10 x 5 cm section of medium cover",
                50,
                false,
                true,
                Hard,
                false,
            ),
            DefenseKind::FortifiedWorks => (
                "Fortified Works",
                "10 x 5 cm section of heavy cover",
                75,
                false,
                true,
                Hard,
                false,
            ),
            DefenseKind::Fortification => (
                "Fortification",
                "10 x 5 cm section of overhead cover",
                100,
                false,
                true,
                Full,
                false,
            ),
        };
        DefenseSpec {
            label,
            what,
            cost,
            hasty,
            fixed,
            cover,
            obstacle,
        }
    }

    pub fn label(self) -> &'static str {
        self.spec().label
    }
}

/// A bought field defence, placed in the defender's deployment area (DEF-05).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldDefense {
    pub id: DefenseId,
    pub kind: DefenseKind,
    /// Sections bought (each 10 cm, or one unit for Trench / Dug-Out).
    #[serde(default = "one")]
    pub sections: u32,
    /// Where it stands: a polyline along its front (works, wire) or a polygon.
    #[serde(default)]
    pub at: Vec<Point>,
    /// Trench and Dug-Out: the unit sheltered.
    #[serde(default)]
    pub occupant: Option<UnitId>,
}

fn one() -> u32 {
    1
}

impl FieldDefense {
    /// DEF-03: cost × sections.
    pub fn cost(&self) -> u32 {
        self.kind.spec().cost * self.sections
    }
}

/// DEF-05: a section's length along its front, cm (each bought section is 10 × 5 cm).
pub const SECTION_LENGTH_CM: f64 = 10.0;
/// DEF-05: slack on the drawn length, cm (drawing, not measuring, error).
const LENGTH_SLACK_CM: f64 = 0.5;

impl FieldDefense {
    /// DEF-05: what is wrong with where this defence is placed — outside the owner's deployment
    /// zone (when the scenario draws one), or a work or obstacle drawn longer than its sections
    /// (10 cm each). Unplaced defences (no points yet) have nothing to check.
    pub fn placement_problems(&self, deployment_zone: &[Point]) -> Vec<String> {
        let spec = self.kind.spec();
        let mut out = Vec::new();
        // A Trench or Dug-Out takes its occupant's size; one bought for several units (WE-15)
        // names none, so no occupant is required here.
        let shelters = matches!(self.kind, DefenseKind::Trench | DefenseKind::DugOut);
        if self.at.is_empty() {
            return out;
        }
        if deployment_zone.len() >= 3
            && !self
                .at
                .iter()
                .all(|p| crate::geom::ring_contains(deployment_zone, *p))
        {
            out.push(format!(
                "{} {} lies outside its side's deployment area",
                spec.label, self.id.0
            ));
        }
        if !shelters && self.at.len() >= 2 {
            let len = crate::geom::polyline_length(&self.at).0;
            let max = SECTION_LENGTH_CM * f64::from(self.sections);
            if len > max + LENGTH_SLACK_CM {
                out.push(format!(
                    "{} {} is drawn {len:.1} cm long; {} section(s) of 10 cm reach {max:.0} cm",
                    spec.label, self.id.0, self.sections
                ));
            }
        }
        out
    }
}
