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
                | OptionalRule::Prone
                | OptionalRule::Scouting
                | OptionalRule::MultiplayerComms
                | OptionalRule::Weather
                | OptionalRule::Night
                | OptionalRule::Constructions
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

    /// The catalogue family the option's rules carry, e.g. "OPT-SABER" (OPT-SABER-01..03).
    pub fn family(self) -> &'static str {
        match self {
            OptionalRule::AirBurst => "OPT-AIRBURST",
            OptionalRule::SaberCharge => "OPT-SABER",
            OptionalRule::Scouting => "OPT-SCOUT",
            OptionalRule::Weather => "OPT-WEATHER",
            OptionalRule::Night => "OPT-NIGHT",
            OptionalRule::Constructions => "OPT-CONSTR",
            OptionalRule::Prone => "OPT-PRONE",
            OptionalRule::MultiplayerComms => "OPT-MULTI",
            OptionalRule::MultiNational => "OPT-NATION",
            OptionalRule::FixedFormations => "OPT-FIXED",
            OptionalRule::MoraleGrades => "OPT-MORALE-01",
            OptionalRule::MoraleGradesInCharge => "OPT-MORALE-02",
        }
    }

    /// What switching the option on changes, in our own words: shown beside its switch in the
    /// scenario settings and printed on the roster (#21 item 2). `tests/rules_gists.rs` holds
    /// these, like the rule gists, to words of our own.
    pub fn gist(self) -> &'static str {
        match self {
            OptionalRule::AirBurst => {
                "Guns firing shell may cut the fuse short: the burst covers a smaller area with \
                 one die fewer, but every stand under it is hit as if standing in the open."
            }
            OptionalRule::SaberCharge => {
                "Cavalry may announce a charge with cold steel: one more die per stand in the \
                 first round of the fight and no shooting until it ends; squares and rifle-armed \
                 foot are hard to break this way."
            }
            OptionalRule::Scouting => {
                "Light horsemen may ride ahead in single stands to find hidden enemies; a scout \
                 that is shot at or touched rides off the field without counting as a loss."
            }
            OptionalRule::Weather => {
                "The weather is taken from history or rolled before the battle and may worsen or \
                 clear at the end of each turn: poor weather costs 1 on command rolls and limits \
                 sight to 40 cm, extreme weather costs 2 and limits sight to 10 cm."
            }
            OptionalRule::Night => {
                "The battle is fought in the dark: command rolls are 1 worse and nobody sees \
                 farther than 40 cm, however fair the weather."
            }
            OptionalRule::Constructions => {
                "Buildings and field works get their own hits and save: cannon can batter them \
                 down, the troops inside may shelter behind them, and when one collapses those \
                 inside are lost."
            }
            OptionalRule::Prone => {
                "A unit may be ordered to lie down: each unit shooting at it scores one hit \
                 fewer, but it cannot move, and in close order it cannot shoot either."
            }
            OptionalRule::MultiplayerComms => {
                "With several players a side, team-mates stay silent unless a communication \
                 roll succeeds, and then may talk only for a few seconds."
            }
            OptionalRule::MultiNational => {
                "In an army of several nations, units obey only the army commander and generals \
                 of their own nation; separate allied armies on one side each keep their own \
                 breakpoint."
            }
            OptionalRule::FixedFormations => {
                "Every unit belongs to one commander for the whole battle and obeys only him, \
                 unless the army commander transfers it to another."
            }
            OptionalRule::MoraleGrades => {
                "Units are graded unmotivated, regular or motivated instead of by their hits: \
                 the grade sets how easily they are suppressed and how far they may fall back \
                 before they are lost, and changes their cost."
            }
            OptionalRule::MoraleGradesInCharge => {
                "With morale grades in use, a unit's grade also decides what roll hits it in \
                 every round of a charge, in place of its cover."
            }
        }
    }
}

/// The weather and light a scenario is fought in, in our own words, as the settings panel and
/// the roster state it once (OPT-WEATHER-01..04, OPT-NIGHT-01; #21 item 2): the weather value
/// counts only with the weather rule on, and night is one switch whether set by the rule or by
/// an older file's "night" weather.
pub fn weather_words(scenario: &Scenario) -> String {
    let weather_on = scenario.optional_rules.contains(&OptionalRule::Weather);
    let night = scenario.optional_rules.contains(&OptionalRule::Night)
        || (weather_on && scenario.weather == Weather::Night);
    let mut words = if weather_on {
        let start = match scenario.weather {
            Weather::Night => Weather::Normal,
            w => w,
        };
        format!(
            "weather rules in use (OPT-WEATHER): starts {} unless rolled before the battle, \
             may change at the end of each turn",
            start.label().to_lowercase()
        )
    } else {
        "no weather rules: fair weather throughout".to_string()
    };
    if night {
        words.push_str("; fought at night (OPT-NIGHT)");
    }
    words
}

/// OPT-MULTI-01: one player of a side and the formations they command: each HQ named, with
/// every HQ under it in the order of battle. An HQ no team names (the CO, often) is played by
/// the side's first team.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Team {
    /// Index into the scenario's sides.
    pub side: usize,
    /// The player's name, shown in the battle window ("Anna", "Left wing").
    pub name: String,
    pub hqs: Vec<crate::model::HqId>,
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
    /// SEQ-01: the side (index into `sides`) whose player turn comes first; `None` (the default,
    /// and every file from before it was added) when the sides roll off for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_player: Option<usize>,
    #[serde(default)]
    pub optional_rules: Vec<OptionalRule>,
    /// OPT-MULTI-01: the players of each side and the formations (HQs) each commands. Empty
    /// (the default, and every file from before teams): one player per side.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<Team>,
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
