//! Battle files: a scenario, a dice source and a list of actions, replayed headless by
//! `powderhorn battle replay` (format in `docs/battle-file.md`). Parsing and replay are pure;
//! the CLI reads the files.

use super::action::Action;
use super::battle::Battle;
use super::command::OrdersMode;
use super::dice::DiceSource;
use super::error::ActionError;
use super::event::Event;
use super::state::{BattleState, Formation, Phase, PieceId};
use crate::geom::Point;
use crate::model::scenario::strip_position;
use crate::model::{parse_scenario, ArmyList, Scenario};
use serde::{Deserialize, Serialize};

/// The version of the battle-file format this build reads.
pub const BATTLE_FILE_FORMAT: u32 = 1;

/// Where the battle's scenario comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ScenarioRef {
    /// A scenario file, relative to the battle file's folder.
    Path(String),
    /// The scenario itself.
    Inline(Box<Scenario>),
}

/// The dice of a battle file: `{"seed": 42}` or `{"script": [4, 2, 6]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiceSpec {
    Seed(u64),
    Script(Vec<u8>),
}

impl From<&DiceSpec> for DiceSource {
    fn from(d: &DiceSpec) -> Self {
        match d {
            DiceSpec::Seed(s) => DiceSource::Seed(*s),
            DiceSpec::Script(v) => DiceSource::Script(v.clone()),
        }
    }
}

/// A parsed battle file; actions are still raw so each can be reported by index.
#[derive(Debug, Clone)]
pub struct BattleFile {
    pub scenario: ScenarioRef,
    pub dice: DiceSpec,
    pub first_player: usize,
    /// SEQ-01: the roll-off that decided `first_player`, a pair of dice a round (empty: the
    /// first player was named). They are the first dice of the file's dice.
    pub roll_off: Vec<[u8; 2]>,
    /// INIT, CMD: `full` (the rules) or `free` (orders rolled on the table). Files without the
    /// field are free, as they were written before orders existed.
    pub orders: OrdersMode,
    pub actions: Vec<Action>,
}

#[derive(Deserialize)]
struct RawFile {
    format: u32,
    scenario: serde_json::Value,
    dice: DiceSpec,
    #[serde(default)]
    first_player: usize,
    #[serde(default)]
    roll_off: Vec<[u8; 2]>,
    #[serde(default = "OrdersMode::legacy")]
    orders: OrdersMode,
    #[serde(default)]
    actions: Vec<serde_json::Value>,
}

/// A battle file that cannot be used, saying where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BattleFileError {
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: battle-file format {found} is newer than this Powderhorn reads ({BATTLE_FILE_FORMAT}); update Powderhorn")]
    TooNew { file: String, found: u32 },
    #[error("{file}: scenario: {message}")]
    Scenario { file: String, message: String },
    #[error("{file}: first_player is {found}; it must be 0 or 1")]
    FirstPlayer { file: String, found: usize },
    #[error("{file}: actions[{index}]: {message}")]
    Action {
        file: String,
        index: usize,
        message: String,
    },
}

/// Parses a battle file's text. Each action is parsed on its own so an error names its index
/// and the field serde complains about.
pub fn parse_battle_file(file: &str, text: &str) -> Result<BattleFile, BattleFileError> {
    let raw: RawFile = serde_json::from_str(text).map_err(|e| BattleFileError::Syntax {
        file: file.to_string(),
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })?;
    if raw.format > BATTLE_FILE_FORMAT {
        return Err(BattleFileError::TooNew {
            file: file.to_string(),
            found: raw.format,
        });
    }
    if raw.first_player > 1 {
        return Err(BattleFileError::FirstPlayer {
            file: file.to_string(),
            found: raw.first_player,
        });
    }
    let scenario = match raw.scenario {
        serde_json::Value::String(p) => ScenarioRef::Path(p),
        other => {
            let text = other.to_string();
            let s = parse_scenario(&format!("{file} (inline scenario)"), &text).map_err(|e| {
                BattleFileError::Scenario {
                    file: file.to_string(),
                    message: e.to_string(),
                }
            })?;
            ScenarioRef::Inline(Box::new(s))
        }
    };
    let mut actions = Vec::with_capacity(raw.actions.len());
    for (index, v) in raw.actions.into_iter().enumerate() {
        let a: Action = serde_json::from_value(v).map_err(|e| BattleFileError::Action {
            file: file.to_string(),
            index,
            message: strip_position(&e.to_string()),
        })?;
        actions.push(a);
    }
    Ok(BattleFile {
        scenario,
        dice: raw.dice,
        first_player: raw.first_player,
        roll_off: raw.roll_off,
        orders: raw.orders,
        actions,
    })
}

/// An action of the file the engine refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("actions[{index}] ({summary}): {error}")]
pub struct ReplayError {
    pub index: usize,
    pub summary: String,
    pub error: ActionError,
}

/// The refused action of a replay as `battle replay --json` reports it (`refused`): its index
/// in the file, its summary ([`action_summary`]), the catalogue rule that refused it (`None`
/// when the dice ran out rather than a rule) and the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub index: usize,
    pub action: String,
    pub rule: Option<String>,
    pub message: String,
}

impl Refusal {
    pub fn of(e: &ReplayError) -> Refusal {
        let (rule, message) = match &e.error {
            ActionError::Rule(r) => (Some(r.rule.to_string()), r.message.clone()),
            ActionError::Unsupported { rule, what } => (
                Some(rule.to_string()),
                format!("not supported yet by this build: {what}"),
            ),
            ActionError::Dice(d) => (None, d.to_string()),
        };
        Refusal {
            index: e.index,
            action: e.summary.clone(),
            rule,
            message,
        }
    }
}

/// A short description of an action for messages: "deploy side 1 unit 3".
pub fn action_summary(a: &Action) -> String {
    let verb = match a {
        Action::EndPhase => "end_phase",
        Action::Move { .. } => "move",
        Action::Deploy { .. } => "deploy",
        Action::Limber { .. } => "limber",
        Action::Unlimber { .. } => "unlimber",
        Action::Concede { .. } => "concede",
        Action::RemoveUnit { .. } => "remove_unit",
        Action::RemoveDefense { .. } => "remove_defense",
        Action::DeclareObjective { .. } => "declare_objective",
        Action::Fire { .. } => "fire",
        Action::IssueOrder { .. } => "issue_order",
        Action::OpportunityFire { .. } => "opportunity_fire",
        Action::SelfOrder { .. } => "self_order",
        Action::ReplaceCommand { .. } => "replace_command",
        Action::Charge { .. } => "charge",
        Action::Respond { .. } => "respond",
        Action::CloseResponse { .. } => "close_response",
        Action::Support { .. } => "support",
        Action::ResolveCharge { .. } => "resolve_charge",
        Action::Consolidate { .. } => "consolidate",
        Action::Evade { .. } => "evade",
        Action::EngineerTask { .. } => "engineer_task",
        Action::FireAtBridge { .. } => "fire_at_bridge",
        Action::FireAtConstruction { .. } => "fire_at_construction",
        Action::Dismount { .. } => "dismount",
        Action::Mount { .. } => "mount",
        Action::RollStartingWeather => "roll_starting_weather",
        Action::RefuseFlank { .. } => "refuse_flank",
        Action::Adjust { .. } => "adjust",
        Action::Prone { prone: true, .. } => "go_prone",
        Action::Prone { prone: false, .. } => "stand_up",
        Action::DeployScout { .. } => "deploy_scout",
        Action::LaunchScout { .. } => "launch_scout",
        Action::Communicate { .. } => "communicate",
        Action::Transfer { .. } => "transfer",
    };
    match a.piece() {
        Some(p) => format!("{verb} {p}"),
        None => verb.to_string(),
    }
}

/// Runs every action of a battle file; stops at the first refused one.
pub fn replay(
    file: &BattleFile,
    scenario: Scenario,
    lists: Vec<ArmyList>,
) -> Result<Battle, ReplayOutcome> {
    let mut battle = Battle::after_roll_off(
        scenario,
        lists,
        DiceSource::from(&file.dice),
        file.first_player,
        &file.roll_off,
    )
    .map_err(|e| ReplayOutcome::Setup(e.to_string()))?
    .with_orders(file.orders);
    for (index, a) in file.actions.iter().enumerate() {
        if let Err(error) = battle.perform(a.clone()) {
            return Err(ReplayOutcome::Refused {
                battle: Box::new(battle),
                error: ReplayError {
                    index,
                    summary: action_summary(a),
                    error,
                },
            });
        }
    }
    Ok(battle)
}

/// Why a replay stopped early.
pub enum ReplayOutcome {
    Setup(String),
    /// The battle as it stood before the refused action.
    Refused {
        battle: Box<Battle>,
        error: ReplayError,
    },
}

/// The replay report: the stable JSON shape of `battle replay --json` (docs/battle-file.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub format: u32,
    pub turn: TurnReport,
    pub units: Vec<UnitReport>,
    pub events: Vec<EventReport>,
    pub dice_rolled: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnReport {
    pub game_turn: u32,
    pub player_turn: u32,
    /// The active side (0 or 1) and its name.
    pub active: usize,
    pub player: String,
    pub phase: Phase,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitReport {
    pub id: PieceId,
    pub name: String,
    pub side: usize,
    pub position: Option<Point>,
    pub facing_deg: Option<f64>,
    pub formation: Option<Formation>,
    pub limbered: bool,
    pub stands: u8,
    pub hits: u32,
    pub suppressed: bool,
    pub disordered: bool,
    pub knocked_out: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventReport {
    /// Index of the action in the file that produced the event.
    pub action: usize,
    #[serde(flatten)]
    pub event: Event,
}

/// Builds the report of a battle's current state and event log.
pub fn report(battle: &Battle) -> Report {
    let state: &BattleState = battle.state();
    let t = state.turn;
    Report {
        format: BATTLE_FILE_FORMAT,
        turn: TurnReport {
            game_turn: t.game_turn,
            player_turn: t.player_turn,
            active: t.active,
            player: state
                .sides
                .get(t.active)
                .map(|s| s.name.clone())
                .unwrap_or_default(),
            phase: t.phase,
        },
        units: state
            .pieces
            .values()
            .map(|p| UnitReport {
                id: p.id,
                name: p.name.clone(),
                side: p.id.side(),
                position: p.pose.map(|q| q.at),
                facing_deg: p.pose.map(|q| q.facing_deg),
                formation: p.formation,
                limbered: p.limbered,
                stands: p.stands,
                hits: p.hits,
                suppressed: p.suppressed_at.is_some(),
                disordered: p
                    .disordered_until
                    .is_some_and(|until| until >= t.player_turn),
                knocked_out: p.knocked_out,
            })
            .collect(),
        events: battle
            .entries()
            .iter()
            .enumerate()
            .flat_map(|(i, e)| {
                e.events.iter().map(move |ev| EventReport {
                    action: i,
                    event: ev.clone(),
                })
            })
            .collect(),
        dice_rolled: battle.entries().iter().map(|e| e.dice_used).sum(),
    }
}
