//! Powderhorn: scenario authoring, the Black Powder Tactical Commander engine, linked campaigns
//! and printed rosters and base labels for black-powder-era tabletop wargames.
//!
//! Layering (ARCHITECTURE.md): `geom` ← `model` ← `rules` ← `campaign` form the pure core;
//! `store` and `export` build on it; `app`, `ui` and `cli` sit on top. `tests/layering.rs`
//! fails the build if the pure core imports a GUI, SQLite, the file system, a clock or a thread RNG.

pub mod ai;
pub mod app;
pub mod campaign;
pub mod cli;
pub mod export;
pub mod geom;
pub mod model;
pub mod rules;
pub mod store;
pub mod ui;
