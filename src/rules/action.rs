//! What a player asks the battle to do. An action is only a request: `check` decides whether it
//! is legal, `resolve` turns it into events (rolling any dice), `apply` changes the state.

use super::artillery::Ammunition;
use super::charge::Response;
use super::event::KnockOutCause;
use super::state::{Formation, PieceId, Pose};
use super::victory::{DefenseLossCause, ObjectiveLevel};
use crate::geom::Point;
use crate::model::DefenseId;
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
    Deploy {
        piece: PieceId,
        formation: Formation,
    },
    /// Hook a gun to its limber (MOVE-20, MOVE-23): a Deploy action.
    Limber { piece: PieceId },
    /// Unhook a gun, facing the direction given (MOVE-20, MOVE-23): a Deploy action.
    Unlimber { piece: PieceId, facing_deg: f64 },
    /// A player gives up the battle (END-03 (4)).
    Concede { side: usize },
    /// The referee removes a piece the table knocked out (GEN-12: a rule resolved on the table
    /// that the engine does not cover, or physical play); it counts for the breakpoint and VPs
    /// like any knock-out (BRK-02, VP-01), and its Trench or Dug-Out falls with it (DEF-06).
    RemoveUnit {
        piece: PieceId,
        #[serde(default = "referee")]
        cause: KnockOutCause,
    },
    /// The referee removes a field defence the table cleared or demolished (DEF-06).
    RemoveDefense {
        side: usize,
        defense: DefenseId,
        #[serde(default)]
        cause: DefenseLossCause,
    },
    /// The referee or the players declare how far a side has got towards its scenario
    /// objectives (END-03 (1), OBJ-01); a major objective ends the battle at the end of the
    /// game turn.
    DeclareObjective { side: usize, level: ObjectiveLevel },
    /// Fire at one enemy unit; several firers combine into one attack (FIRE-01..FIRE-09). The
    /// ammunition is for guns (ART-01); left out, each gun fires its default load.
    Fire {
        firers: Vec<PieceId>,
        target: PieceId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ammunition: Option<Ammunition>,
    },
    /// A command unit orders a formation of units (CMD-02..CMD-19, GEN-08): each unit with the
    /// action it is to carry out and what the command modifiers read (road move CMD-11, dense
    /// terrain CMD-12, charge or fire target CMD-13, FIRE-06). Rolls 2D6 against the modified
    /// command value.
    IssueOrder {
        command: PieceId,
        units: Vec<super::command::OrderedUnit>,
    },
    /// Inactive units fire at an enemy unit that moved or fired under the current order
    /// (FIRE-30..FIRE-32); `at`, for a mover, is the point of its path where it is stopped to
    /// be fired at (FIRE-31).
    OpportunityFire {
        firers: Vec<PieceId>,
        target: PieceId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Point>,
    },
    /// An isolated unit gives itself an order to move towards its command (CMD-07).
    SelfOrder { piece: PieceId },
    /// A knocked-out command unit comes back once, at the start of its owner's next turn
    /// (CMD-28).
    ReplaceCommand { piece: PieceId, at: Pose },
    /// Declare a charge (CHG-01..CHG-10, INIT-07..INIT-09): one unit, or several of one order,
    /// against one enemy unit. The chargers are placed 2 cm from it and the inactive side's
    /// response window opens (`charge`).
    Charge {
        chargers: Vec<PieceId>,
        target: PieceId,
        /// OPTIONAL saber charge (OPT-SABER-01): declared as one, by cavalry only; left out of
        /// battle files when false.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        saber: bool,
    },
    /// The inactive side's counter-initiative to the charge on `target` (INIT-10, INIT-12..15,
    /// CHG-09, ART-04): one response per unit.
    Respond {
        piece: PieceId,
        target: PieceId,
        response: Response,
    },
    /// The inactive side is done responding to the charge on `target`: the chargers that still
    /// can make contact (INIT-09 steps 4–5, INIT-14).
    CloseResponse { target: PieceId },
    /// Move a unit into support of a friendly unit in contact (CHG-07, CHG-08, INIT-11).
    Support { piece: PieceId, friend: PieceId },
    /// Fight the combat of the charge on `target` to a finish (SEQ-04, CHG-12..CHG-26).
    ResolveCharge { target: PieceId },
    /// A winner of a combat moves up to 5 cm forward (CHG-24).
    Consolidate { piece: PieceId, to: Pose },
    /// Initiative evade: directly away from the nearest visible enemy within 20 cm (INIT-05).
    /// `mount`: dismounted cavalry mount first and move half their mounted Move (INIT-05 b);
    /// without it they evade on foot.
    Evade {
        piece: PieceId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        facing_deg: Option<f64>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        mount: bool,
    },
    /// An engineer unit's initiative action (ENG-02): clear, bridge, demolish or sap one 5 cm
    /// section at or towards `at` (ENG-03..ENG-06).
    EngineerTask {
        piece: PieceId,
        task: super::engineering::EngineerTaskKind,
        at: Point,
    },
    /// Artillery fire at a pontoon section (ENG-04 (c)–(d)); `work` is the section's work id.
    FireAtBridge { firers: Vec<PieceId>, work: u32 },
    /// OPTIONAL constructions: artillery fire straight at a building or bought work
    /// (OPT-CONSTR-03); `at` picks the 5 cm segment aimed at (the one nearest it), none: the
    /// segment facing the first gun.
    FireAtConstruction {
        firers: Vec<PieceId>,
        construction: super::construction::ConstructionId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Point>,
    },
    /// Mounted cavalry dismount (COL-02 and the lists' dismounting notes): a Deploy action;
    /// `troop_type` names the dismounted row where the list has several.
    Dismount {
        piece: PieceId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        troop_type: Option<crate::model::TroopTypeId>,
    },
    /// Dismounted cavalry mount again (COL-02): a Deploy action.
    Mount { piece: PieceId },
    /// OPT-WEATHER-02: roll 2D6 for the starting weather, once, during deployment (battles
    /// using the optional weather rule and not the historical weather).
    RollStartingWeather,
    /// The referee sets some of a piece's hits, suppression, disorder, stands, formation, limber
    /// or pose, to match a real table or to start a scenario mid-battle (`referee`; GEN-12).
    /// Any phase until the battle is over; no dice, no order. The solo opponent never makes it.
    Adjust {
        piece: PieceId,
        #[serde(flatten)]
        set: super::referee::Adjustment,
    },
    /// Swing the flank stands of an infantry (or dismounted cavalry) line back by 0°–45° each
    /// (MOVE-30): a Deploy action. The angles replace any earlier ones; 0 and 0 straightens.
    RefuseFlank {
        piece: PieceId,
        #[serde(default)]
        left_deg: f64,
        #[serde(default)]
        right_deg: f64,
    },
    /// OPTIONAL prone (OPT-PRONE-01): a foot unit lies down (`prone: true`) or stands up
    /// (`prone: false`); either is a Deploy action.
    Prone { piece: PieceId, prone: bool },
    /// OPT-SCOUT-01: during deployment, detach one stand of `piece` (a cavalry unit whose row
    /// may scout) as a scout placed at `at`. The unit keeps one stand fewer for good.
    DeployScout { piece: PieceId, at: Pose },
    /// OPT-SCOUT-02 (a): a friendly command unit makes the scout's initial command roll in the
    /// Command phase (the normal modifiers, weather included). Once it passes, the scout moves
    /// up to its full Move in each own Command phase without orders.
    LaunchScout { command: PieceId, scout: PieceId },
    /// OPT-MULTI-02: a communication roll by a command unit (CO or HQ, not an FAO) in the
    /// Command phase: one-way when `partner` is none; two-way when it names a team-mate's
    /// command unit, which rolls too (ruling (b)).
    Communicate {
        command: PieceId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partner: Option<PieceId>,
    },
    /// OPT-FIXED-03 (OPTIONAL, fixed formations): the CO orders a unit of his own formation to
    /// join HQ `to_hq`'s formation for the rest of the battle; on a successful command roll it
    /// is placed at `at`, within 10 cm of that HQ (`allegiance`).
    Transfer {
        piece: PieceId,
        to_hq: crate::model::HqId,
        at: Pose,
    },
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
            Action::Fire { firers, .. } => firers.first().copied(),
            Action::RemoveUnit { piece, .. } => Some(*piece),
            Action::RemoveDefense { .. } | Action::DeclareObjective { .. } => None,
            Action::EndPhase | Action::Concede { .. } => None,
            Action::IssueOrder { command, .. } => Some(*command),
            Action::OpportunityFire { firers, .. } => firers.first().copied(),
            Action::SelfOrder { piece } | Action::ReplaceCommand { piece, .. } => Some(*piece),
            Action::Charge { chargers, .. } => chargers.first().copied(),
            Action::Respond { piece, .. }
            | Action::Support { piece, .. }
            | Action::Consolidate { piece, .. }
            | Action::Evade { piece, .. } => Some(*piece),
            Action::CloseResponse { .. } | Action::ResolveCharge { .. } => None,
            Action::EngineerTask { piece, .. } => Some(*piece),
            Action::FireAtBridge { firers, .. } | Action::FireAtConstruction { firers, .. } => {
                firers.first().copied()
            }
            Action::Dismount { piece, .. } | Action::Mount { piece } => Some(*piece),
            Action::RollStartingWeather => None,
            Action::RefuseFlank { piece, .. } | Action::Adjust { piece, .. } => Some(*piece),
            Action::Prone { piece, .. } => Some(*piece),
            Action::DeployScout { piece, .. } => Some(*piece),
            Action::LaunchScout { command, .. } | Action::Communicate { command, .. } => {
                Some(*command)
            }
            Action::Transfer { piece, .. } => Some(*piece),
        }
    }
}

/// The cause a referee's removal records unless it names another.
fn referee() -> KnockOutCause {
    KnockOutCause::Referee
}
