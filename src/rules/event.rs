//! What happened. Events carry results (positions after a move, dice rolled, stands removed),
//! so replaying events never re-rolls or recomputes anything; `apply` is a pure fold over them.

use super::state::{Formation, Phase, PieceId, Pose};
use crate::geom::Point;
use serde::{Deserialize, Serialize};

/// One modifier applied to a roll or a value, for the auditable dice log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Modifier {
    pub rule: String,
    pub label: String,
    pub value: i32,
}

/// Why the battle ended (END-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    TurnLimit,
    Objective,
    Break,
    Concession,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    /// A player turn begins (SEQ-02).
    TurnBegan {
        game_turn: u32,
        player_turn: u32,
        active: usize,
    },
    PhaseBegan {
        phase: Phase,
    },
    PhaseEnded {
        phase: Phase,
    },
    /// Both player turns of a game turn are done (SEQ-05).
    GameTurnEnded {
        game_turn: u32,
    },
    /// Every die drawn, with what it was for and what modified it.
    DiceRolled {
        piece: Option<PieceId>,
        purpose: String,
        rule: String,
        dice: Vec<u8>,
        #[serde(default)]
        modifiers: Vec<Modifier>,
    },
    Moved {
        piece: PieceId,
        from: Pose,
        to: Pose,
        #[serde(default)]
        path: Vec<Point>,
        /// Allowance spent, in cm (after terrain and manoeuvre costs).
        cost_cm: f64,
    },
    FormationChanged {
        piece: PieceId,
        from: Option<Formation>,
        to: Option<Formation>,
    },
    Limbered {
        piece: PieceId,
    },
    Unlimbered {
        piece: PieceId,
        facing_deg: f64,
    },
    Conceded {
        side: usize,
    },
    BattleEnded {
        reason: EndReason,
        /// The side that won outright (break or concession), if any; otherwise objectives decide.
        winner: Option<usize>,
    },
}
