//! What a player asks the battle to do. An action is only a request: `check` decides whether it
//! is legal, `resolve` turns it into events (rolling any dice), `apply` changes the state.

use super::state::{Formation, PieceId, Pose};
use crate::geom::Point;
use serde::{Deserialize, Serialize};

/// A player's request. Serialized in battle files as `{"action": "move", …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum Action {
    /// Finish the current phase (SEQ-03); after End, the next player turn begins.
    EndPhase,
    /// Move a unit along a path to a final pose (MOVE-02..08, MOVE-25..30, TERR).
    Move {
        piece: PieceId,
        /// Intermediate points of the path of the unit's reference point, in order.
        #[serde(default)]
        via: Vec<Point>,
        to: Pose,
        #[serde(default)]
        manoeuvre: Manoeuvre,
    },
    /// Change movement formation (MOVE-09, MOVE-10, MOVE-16): a Deploy action.
    Deploy { piece: PieceId, formation: Formation },
    /// Hook a gun to its limber (MOVE-20, MOVE-23): a Deploy action.
    Limber { piece: PieceId },
    /// Unhook a gun, facing the direction given (MOVE-20, MOVE-23): a Deploy action.
    Unlimber { piece: PieceId, facing_deg: f64 },
    /// A player gives up the battle (END-03 (4)).
    Concede { side: usize },
}

/// How a move is made; each has its own cost and limits (MOVE-26..29, MOVE-24, MOVE-21).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Manoeuvre {
    /// Forward, oblique (≤ 45°) or, for columns, following the head (MOVE-02, MOVE-26, MOVE-29).
    #[default]
    Advance,
    /// Line or extended line pivoting on a flank stand, ≤ 45° (MOVE-26).
    Wheel,
    /// Turn 180° for half the allowance, then move (MOVE-27).
    AboutFace,
    /// Straight back, facing kept, ≤ ¾ of the allowance (MOVE-28).
    Retire,
    /// An unlimbered gun moved straight back by its limber (MOVE-24).
    Prolonge,
    /// An unlimbered gun moved by its crew (MOVE-21).
    Manhandle,
}

impl Action {
    /// The piece the action is about, if any.
    pub fn piece(&self) -> Option<PieceId> {
        match self {
            Action::Move { piece, .. }
            | Action::Deploy { piece, .. }
            | Action::Limber { piece }
            | Action::Unlimber { piece, .. } => Some(*piece),
            Action::EndPhase | Action::Concede { .. } => None,
        }
    }
}
