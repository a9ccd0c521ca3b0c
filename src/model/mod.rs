//! The domain model: plain data and pure functions.
//!
//! Owns army lists ([`army`]), orders of battle ([`oob`]), terrain ([`terrain`]), field defences
//! ([`defense`]), scenarios ([`scenario`]), campaigns ([`campaign`]), points costing ([`points`])
//! and army-building validation ([`validate`]). Every type is a plain serde value with newtype
//! ids, so the same value is what the scenario JSON holds, what the store saves and what the
//! engine and UI read.
//!
//! Layering: `model` depends only on `geom`. It must not import egui, eframe, rusqlite,
//! `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`); the shipped army lists
//! are embedded with `include_str!` at compile time, not read from disk.

pub mod advice;
pub mod army;
pub mod campaign;
pub mod defense;
pub mod ids;
pub mod measure;
pub mod oob;
pub mod points;
pub mod samples;
pub mod scenario;
pub mod terrain;
pub mod validate;

pub use army::*;
pub use campaign::*;
pub use defense::*;
pub use ids::*;
pub use measure::MeasureScale;
pub use oob::*;
pub use scenario::*;
pub use terrain::*;
