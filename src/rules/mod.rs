//! The Black Powder Tactical Commander engine (catalogue `bptc-catalogue.md`).
//!
//! Owns the battle: state, actions, checks (`check_*`, refusing illegal actions with the
//! catalogue rule that forbids them), resolution (`resolve_*`, the only place dice are rolled,
//! every roll and modifier recorded as an event) and application (`apply`, the only mutator).
//! A battle is an ordered log of actions and their events; same seed and same actions give the
//! same battle. The engine arrives with the engine issues; this module holds what the model
//! layer already needs from it: the rules version written into every battle log.
//!
//! Layering: depends on `model` and `geom` only; must not import egui, eframe, rusqlite,
//! `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

/// Written into each battle log and store row, so a log replayed by a later build can tell
/// which rules produced it.
pub const RULES_VERSION: &str = "bptc-1";
