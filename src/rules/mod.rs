//! The Black Powder Tactical Commander engine (catalogue `bptc-catalogue.md`).
//!
//! Owns the battle: state ([`state`]), actions ([`action`]), checks (`check_*`, refusing illegal
//! actions with the catalogue rule that forbids them, [`error`]), resolution (`resolve_*`, the
//! only place dice are rolled, every roll and modifier recorded as an event, [`event`]) and
//! application ([`apply`], the only mutator). A battle ([`battle`]) is an ordered log of actions
//! and their events; the same seed and the same actions give the same battle ([`dice`]).
//!
//! Layering: depends on `model` and `geom` only; must not import egui, eframe, rusqlite,
//! `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

pub mod action;
pub mod allegiance;
pub mod api;
pub mod apply;
pub mod artillery;
pub mod battle;
pub mod casualty;
pub mod charge;
pub mod command;
pub mod comms;
pub mod construction;
pub mod dice;
pub mod dismount;
pub mod endphase;
pub mod engineering;
pub mod error;
pub mod event;
pub mod fao;
pub mod file;
pub mod firing;
pub mod flank;
pub mod fog;
pub mod geometry;
pub mod gist;
pub mod gunnery;
pub mod morale;
pub mod movement;
pub mod prone;
pub mod referee;
pub mod report;
pub mod reveal;
pub mod scouting;
pub mod skirmish;
pub mod state;
pub mod terrain;
pub mod victory;
pub mod visibility;
pub mod weather;

pub use action::{Action, Manoeuvre};
pub use battle::{Battle, BattleLog, Ctx, LogEntry};
pub use dice::{Dice, DiceSource};
pub use error::{ActionError, RuleError};
pub use event::Event;
pub use state::{BattleState, Formation, Phase, PieceId, PieceState, Pose};

/// Written into each battle log and store row, so a log replayed by a later build can tell
/// which rules produced it.
pub const RULES_VERSION: &str = "bptc-2";
