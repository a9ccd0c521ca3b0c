//! Scenarios: a table, two sides with their orders of battle, terrain, objectives, turn limit,
//! weather, defence posture and the optional rules switched on. A scenario is what
//! `campaigns/*.json` files hold (format in `docs/scenario-format.md`) and what the store saves.

use super::army::ArmyList;
use super::ids::{ListId, ScenarioId};
use super::measure::MeasureScale;
use super::oob::Side;
use super::terrain::TerrainFeature;
use serde::{Deserialize, Serialize};

/// The version of the scenario JSON format this build reads and writes.
pub const SCENARIO_FORMAT: u32 = 1;

/// Representation scale (GEN-04..07): multiplies army-list weapon ranges only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    Company,
    #[default]
    Battalion,
    Brigade,
}

impl Scale {
    pub const ALL: [Scale; 3] = [Scale::Company, Scale::Battalion, Scale::Brigade];
    pub fn label(self) -> &'static str {
        match self {
            Scale::Company => "Company",
            Scale::Battalion => "Battalion",
            Scale::Brigade => "Brigade",
        }
    }
    /// GEN-07: ×2 company, ×1 battalion, ×0.5 brigade.
    ///
    /// ```
    /// use powderhorn::model::Scale;
    /// // A 1/10 musket range at company scale reaches 20 cm.
    /// assert_eq!(10.0 * Scale::Company.range_factor(), 20.0);
    /// assert_eq!(10.0 * Scale::Brigade.range_factor(), 5.0);
    /// ```
    pub fn range_factor(self) -> f64 {
        match self {
            Scale::Company => 2.0,
            Scale::Battalion => 1.0,
            Scale::Brigade => 0.5,
        }
    }
}

/// OPT-WEATHER-01 categories (and OPT-NIGHT-01, which counts as poor and cannot change).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Weather {
    #[default]
    Normal,
    Poor,
    Extreme,
    Night,
}

impl Weather {
    pub const ALL: [Weather; 4] = [
        Weather::Normal,
        Weather::Poor,
        Weather::Extreme,
        Weather::Night,
    ];
    pub fn label(self) -> &'static str {
        match self {
            Weather::Normal => "Normal",
            Weather::Poor => "Poor",
            Weather::Extreme => "Extreme",
            Weather::Night => "Night",
        }
    }
}

/// DEF-01: whether the defender may buy field defences, and at which budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefensePosture {
    #[default]
    None,
    Hasty,
    Fixed,
}

impl DefensePosture {
    pub const ALL: [DefensePosture; 3] = [
        DefensePosture::None,
        DefensePosture::Hasty,
        DefensePosture::Fixed,
    ];
    pub fn label(self) -> &'static str {
        match self {
            DefensePosture::None => "None",
            DefensePosture::Hasty => "Hasty",
            DefensePosture::Fixed => "Fixed",
        }
    }
    /// DEF-02: budget percentage of the agreed points total.
    pub fn budget_percent(self) -> u32 {
        match self {
            DefensePosture::None => 0,
            DefensePosture::Hasty => 10,
            DefensePosture::Fixed => 25,
        }
    }
}

/// The optional rules of catalogue §3, each off unless the scenario switches it on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptionalRule {
    AirBurst,
    SaberCharge,
    Scouting,
    Weather,
    Night,
    Constructions,
    Prone,
    MultiplayerComms,
    MultiNational,
    FixedFormations,
    MoraleGrades,
    /// OPT-MORALE-02 ruling: the separate sub-option `opt.moraleGradesInCharge`.
    MoraleGradesInCharge,
}

impl OptionalRule {
    pub const ALL: [OptionalRule; 12] = [
        OptionalRule::AirBurst,
        OptionalRule::SaberCharge,
        OptionalRule::Scouting,
        OptionalRule::Weather,
        OptionalRule::Night,
        OptionalRule::Constructions,
        OptionalRule::Prone,
        OptionalRule::MultiplayerComms,
        OptionalRule::MultiNational,
        OptionalRule::FixedFormations,
        OptionalRule::MoraleGrades,
        OptionalRule::MoraleGradesInCharge,
    ];
    /// Whether the rules engine plays this option yet. The window marks the others "not yet
    /// played" so a designer never believes a switch that does nothing (#22 item 6);
    /// `tests/optional_rules_marked.rs` holds this to what src/rules reads.
    pub fn implemented(self) -> bool {
        matches!(
            self,
            OptionalRule::AirBurst
                | OptionalRule::SaberCharge
                | OptionalRule::Weather
                | OptionalRule::Night
                | OptionalRule::MoraleGrades
                | OptionalRule::MoraleGradesInCharge
                | OptionalRule::MultiNational
                | OptionalRule::FixedFormations
        )
    }

    pub fn label(self) -> &'static str {
        match self {
            OptionalRule::AirBurst => "Air-burst shell fire",
            OptionalRule::SaberCharge => "Saber charge",
            OptionalRule::Scouting => "Scouting cavalry",
            OptionalRule::Weather => "Weather",
            OptionalRule::Night => "Night",
            OptionalRule::Constructions => "Constructions",
            OptionalRule::Prone => "Prone",
            OptionalRule::MultiplayerComms => "Multi-player communication",
            OptionalRule::MultiNational => "Multi-national armies",
            OptionalRule::FixedFormations => "Fixed formations",
            OptionalRule::MoraleGrades => "Morale grades",
            OptionalRule::MoraleGradesInCharge => "Morale grades in charges",
        }
    }
}

/// The table, in centimetres (BAS-04: at least 180 × 240 is advised, not enforced).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub width_cm: f64,
    pub depth_cm: f64,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            width_cm: 240.0,
            depth_cm: 180.0,
        }
    }
}

/// A scenario: everything needed to set up a battle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// Must be [`SCENARIO_FORMAT`]; files from a newer build are refused with a clear message.
    pub format: u32,
    pub id: ScenarioId,
    pub name: String,
    /// The historical date, free text ("3 May 1809").
    #[serde(default)]
    pub date: String,
    /// The year used for period availability (ARMY-12).
    #[serde(default)]
    pub year: Option<u16>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub table: Table,
    #[serde(default)]
    pub scale: Scale,
    /// BAS-01: the miniature scale, the factor on every distance; not written when ×1, so
    /// files from before it was added read as ×1 and are written back unchanged.
    #[serde(default, skip_serializing_if = "MeasureScale::is_printed")]
    pub measure_scale: MeasureScale,
    /// The agreed points total per side (ARMY-02); limits are per full 1,500 of it.
    pub points: u32,
    pub turn_limit: u32,
    #[serde(default)]
    pub weather: Weather,
    #[serde(default)]
    pub defense: DefensePosture,
    /// Index into `sides` of the defender in an attack/defence scenario (DEF-01).
    #[serde(default)]
    pub defender: Option<usize>,
    #[serde(default)]
    pub optional_rules: Vec<OptionalRule>,
    #[serde(default)]
    pub terrain: Vec<TerrainFeature>,
    pub sides: Vec<Side>,
}

impl Scenario {
    /// The army list a side uses, from the lists given.
    pub fn list_for<'a>(&self, side: &Side, lists: &'a [ArmyList]) -> Option<&'a ArmyList> {
        find_list(lists, &side.army_list)
    }
}

pub fn find_list<'a>(lists: &'a [ArmyList], id: &ListId) -> Option<&'a ArmyList> {
    lists.iter().find(|l| &l.id == id)
}

/// A scenario file that could not be read as one: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioFileError {
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: scenario format {found} is newer than this Powderhorn reads ({supported}); update Powderhorn")]
    TooNew {
        file: String,
        found: u32,
        supported: u32,
    },
}

/// Parses scenario JSON, naming the file, line, column and field of the first problem.
///
/// serde_json reports a missing or mistyped field with its position; the message says which
/// field ("missing field `points`", "unknown variant `battalionn`, expected one of …").
pub fn parse_scenario(file: &str, text: &str) -> Result<Scenario, ScenarioFileError> {
    let syntax = |e: serde_json::Error| ScenarioFileError::Syntax {
        file: file.to_string(),
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    };
    // Check the format number first, so a newer file gets the right message even when its
    // new fields would not parse.
    #[derive(Deserialize)]
    struct Head {
        format: Option<u32>,
    }
    let head: Head = serde_json::from_str(text).map_err(syntax)?;
    if let Some(found) = head.format {
        if found > SCENARIO_FORMAT {
            return Err(ScenarioFileError::TooNew {
                file: file.to_string(),
                found,
                supported: SCENARIO_FORMAT,
            });
        }
    }
    serde_json::from_str(text).map_err(syntax)
}

/// Writes scenario JSON in the documented layout (pretty, two-space indent).
pub fn scenario_to_json(s: &Scenario) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(s)
}

/// A serde_json message without its trailing " at line L column C", for messages that give
/// the position themselves (scenario files, battle files).
pub fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg.get(..i).unwrap_or(msg).to_string(),
        None => msg.to_string(),
    }
}
