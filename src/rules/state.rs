//! Battle state: what is on the table now. Built once from a scenario ([`BattleState::setup`])
//! and afterwards changed only by [`super::apply::apply`], one event at a time.

use crate::geom::Point;
use crate::model::{
    Arm, ArmyList, CommandLevel, Grade, HqId, ListId, Quality, Scenario, TroopTypeId, UnitId,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A piece on the table: a troop unit or a command unit, of a side (0 or 1). Shown as
/// `0:u3` (side 0, unit 3) or `1:hq2`, the same ids battle files use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PieceId {
    Unit { side: usize, unit: UnitId },
    Hq { side: usize, hq: HqId },
}

impl PieceId {
    pub fn side(self) -> usize {
        match self {
            PieceId::Unit { side, .. } | PieceId::Hq { side, .. } => side,
        }
    }
    pub fn is_command(self) -> bool {
        matches!(self, PieceId::Hq { .. })
    }
}

impl fmt::Display for PieceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PieceId::Unit { side, unit } => write!(f, "{side}:u{unit}"),
            PieceId::Hq { side, hq } => write!(f, "{side}:hq{hq}"),
        }
    }
}

/// Where a piece stands: the centre of its unit command stand's front edge, and its facing in
/// degrees (0 = towards +y, clockwise).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    pub at: Point,
    pub facing_deg: f64,
}

/// Movement formations (MOVE-09). Artillery, transport and command units have none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Formation {
    Line,
    ExtendedLine,
    MarchColumn,
    AttackColumn,
    Square,
    Disordered,
}

impl Formation {
    pub const ALL: [Formation; 6] = [
        Formation::Line,
        Formation::ExtendedLine,
        Formation::MarchColumn,
        Formation::AttackColumn,
        Formation::Square,
        Formation::Disordered,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Formation::Line => "line",
            Formation::ExtendedLine => "extended line",
            Formation::MarchColumn => "march column",
            Formation::AttackColumn => "attack column",
            Formation::Square => "square",
            Formation::Disordered => "disordered",
        }
    }
}

/// Player-turn phases (SEQ-03), with deployment before the first and `Over` after the last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Deployment,
    Initiative,
    Command,
    Charge,
    End,
    Over,
}

impl Phase {
    pub fn label(self) -> &'static str {
        match self {
            Phase::Deployment => "Deployment",
            Phase::Initiative => "Initiative",
            Phase::Command => "Command",
            Phase::Charge => "Charge",
            Phase::End => "End",
            Phase::Over => "Over",
        }
    }

    /// SEQ-03: the phase after this one within a player turn (`None` after End).
    pub fn next_in_turn(self) -> Option<Phase> {
        match self {
            Phase::Deployment => Some(Phase::Initiative),
            Phase::Initiative => Some(Phase::Command),
            Phase::Command => Some(Phase::Charge),
            Phase::Charge => Some(Phase::End),
            Phase::End | Phase::Over => None,
        }
    }
}

/// Where the battle is in its sequence of play (SEQ-02).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnState {
    /// 1-based game turn; 0 during deployment.
    pub game_turn: u32,
    /// 1-based count of player turns; game_turn = ceil(player_turn / 2).
    pub player_turn: u32,
    /// The side whose player turn it is.
    pub active: usize,
    pub first_player: usize,
    pub phase: Phase,
}

/// One troop unit or command unit on the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PieceState {
    pub id: PieceId,
    pub name: String,
    /// Troop row (units) — `None` for command units.
    #[serde(default)]
    pub troop_type: Option<TroopTypeId>,
    pub arm: Option<Arm>,
    /// Command level and quality (command units).
    #[serde(default)]
    pub command: Option<(CommandLevel, Quality)>,
    /// `None`: not on the table (reserves, or removed).
    pub pose: Option<Pose>,
    pub formation: Option<Formation>,
    /// Artillery: hooked to its limber (MOVE-20).
    #[serde(default)]
    pub limbered: bool,
    /// Combat stands left (units) — command units count 1.
    pub stands: u8,
    /// Hits taken this player turn (GEN-11).
    pub hits: u32,
    /// Player turn in which the suppression marker was placed (FIRE-22).
    #[serde(default)]
    pub suppressed_at: Option<u32>,
    /// Disordered until the end of the initiative phase of this player turn (FIRE-28).
    #[serde(default)]
    pub disordered_until: Option<u32>,
    #[serde(default)]
    pub knocked_out: bool,
    #[serde(default)]
    pub grade: Grade,
    /// Starts the battle in a Trench or Dug-Out (VIS-16, DEF-04).
    #[serde(default)]
    pub dug_in: bool,
    /// A dug-in unit has given its position away (VIS-17): permanent once set.
    #[serde(default)]
    pub revealed: bool,
    /// Has fired at least once this game: reveals hidden guns (VIS-08) and dug-in units
    /// (VIS-17), and is the first-fire bonus's memory (FIRE-13).
    #[serde(default)]
    pub has_fired: bool,
    /// Orders, initiative and command-unit records (INIT, CMD, FIRE-30..33; `command`).
    #[serde(default)]
    pub orders: super::command::UnitOrders,
    /// Refused flank stands (MOVE-30; `flank`).
    #[serde(default, skip_serializing_if = "super::flank::FlankState::is_straight")]
    pub flank: super::flank::FlankState,
}

impl PieceState {
    pub fn on_table(&self) -> bool {
        self.pose.is_some() && !self.knocked_out
    }
}

/// Per-side totals the rules keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideState {
    pub name: String,
    pub list: ListId,
    /// BRK-01, counted at setup.
    pub breakpoint: u32,
    pub units_lost: u32,
    pub broken: bool,
    pub conceded: bool,
}

/// Everything on the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BattleState {
    pub turn: TurnState,
    pub pieces: BTreeMap<PieceId, PieceState>,
    pub sides: Vec<SideState>,
    /// Losses, declared objectives and lost engineer stands (END, BRK, OBJ, VP; `victory`).
    #[serde(default)]
    pub ledger: super::victory::Ledger,
    /// The orders mode and the current order (CMD; `command`).
    #[serde(default)]
    pub command: super::command::CommandState,
    /// Charges under way, supports made and consolidations owed (CHG, INIT-09; `charge`).
    #[serde(default)]
    pub charges: super::charge::ChargeState,
    /// Works engineers made (ENG-03..ENG-06) and the tasks taken (ENG-02).
    #[serde(default)]
    pub engineering: super::engineering::EngineeringState,
    /// The weather of the moment (OPT-WEATHER-02, OPT-WEATHER-04; `weather`).
    #[serde(default)]
    pub weather: super::weather::WeatherState,
}

/// The battle cannot be set up from this scenario.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("a battle needs two sides; the scenario has {0}")]
    Sides(usize),
    #[error("side '{side}' uses army list '{list}', which is not installed")]
    List { side: String, list: String },
    #[error("the dice source cannot be used: {0}")]
    Dice(String),
    #[error("unit '{unit}' uses troop type '{troop}' not in list '{list}'")]
    Troop {
        unit: String,
        troop: String,
        list: String,
    },
}

/// The default formation a unit starts in: line for foot and horse, none for the rest.
fn starting_formation(arm: Arm) -> Option<Formation> {
    match arm {
        Arm::Infantry | Arm::Cavalry | Arm::Engineers => Some(Formation::Line),
        Arm::Artillery | Arm::Transport | Arm::Armour => None,
    }
}

impl BattleState {
    /// The table at the start of deployment: every placed unit and HQ of both sides. SEQ-01:
    /// the scenario or a roll-off decides the first player, so it is given here.
    pub fn setup(
        scenario: &Scenario,
        lists: &[ArmyList],
        first_player: usize,
    ) -> Result<BattleState, SetupError> {
        if scenario.sides.len() != 2 {
            return Err(SetupError::Sides(scenario.sides.len()));
        }
        let mut pieces = BTreeMap::new();
        let mut sides = Vec::new();
        for (si, side) in scenario.sides.iter().enumerate() {
            let Some(list) = lists.iter().find(|l| l.id == side.army_list) else {
                return Err(SetupError::List {
                    side: side.name.clone(),
                    list: side.army_list.to_string(),
                });
            };
            for u in &side.units {
                let Some(row) = list.troop_type(&u.troop_type) else {
                    return Err(SetupError::Troop {
                        unit: u.name.clone(),
                        troop: u.troop_type.to_string(),
                        list: list.name.clone(),
                    });
                };
                let id = PieceId::Unit {
                    side: si,
                    unit: u.id,
                };
                pieces.insert(
                    id,
                    PieceState {
                        id,
                        name: u.name.clone(),
                        troop_type: Some(u.troop_type.clone()),
                        arm: Some(row.arm),
                        command: None,
                        pose: u.position.map(|p| Pose {
                            at: p.at,
                            facing_deg: p.facing_deg,
                        }),
                        formation: starting_formation(row.arm),
                        limbered: false,
                        stands: u.stands,
                        hits: 0,
                        suppressed_at: None,
                        disordered_until: None,
                        knocked_out: false,
                        grade: crate::model::validate::effective_grade(u, row),
                        dug_in: side.field_defenses.iter().any(|d| d.occupant == Some(u.id)),
                        revealed: false,
                        has_fired: false,
                        orders: Default::default(),
                        flank: Default::default(),
                    },
                );
            }
            for h in &side.hqs {
                let id = PieceId::Hq { side: si, hq: h.id };
                pieces.insert(
                    id,
                    PieceState {
                        id,
                        name: h.name.clone(),
                        troop_type: None,
                        arm: None,
                        command: Some(h.stat_line()), // ART-10: an FAO on the Brigade HQ line
                        pose: h.position.map(|p| Pose {
                            at: p.at,
                            facing_deg: p.facing_deg,
                        }),
                        formation: None,
                        limbered: false,
                        stands: 1,
                        hits: 0,
                        suppressed_at: None,
                        disordered_until: None,
                        knocked_out: false,
                        grade: Grade::Regular,
                        dug_in: false,
                        revealed: false,
                        has_fired: false,
                        orders: Default::default(),
                        flank: Default::default(),
                    },
                );
            }
            sides.push(SideState {
                name: side.name.clone(),
                list: side.army_list.clone(),
                breakpoint: crate::model::points::breakpoint(side),
                units_lost: 0,
                broken: false,
                conceded: false,
            });
        }
        let first = first_player.min(1);
        Ok(BattleState {
            turn: TurnState {
                game_turn: 0,
                player_turn: 0,
                active: first,
                first_player: first,
                phase: Phase::Deployment,
            },
            pieces,
            sides,
            ledger: super::victory::Ledger::default(),
            command: Default::default(),
            charges: super::charge::ChargeState::default(),
            engineering: Default::default(),
            weather: Default::default(),
        })
    }

    pub fn piece(&self, id: PieceId) -> Option<&PieceState> {
        self.pieces.get(&id)
    }
}
