//! Powderhorn: scenario authoring, the Black Powder Tactical Commander engine, linked campaigns
//! and printed rosters and base labels for black-powder-era tabletop wargames.
//!
//! Layering (ARCHITECTURE.md): `geom` ← `model` ← `rules` ← `campaign` form the pure core;
//! `store` and `export` build on it; `session` (a stored battle in play) on the store and the
//! engine; `app`, `ui` and `cli` sit on top. `tests/layering.rs`
//! fails the build if the pure core imports a GUI, SQLite, the file system, a clock or a thread RNG.

/// Every binary that links Powderhorn (the app, the tests, the benches) allocates through
/// mimalloc: the engine makes and drops many small vectors per action and glibc's malloc spent
/// about a sixth of an autoplayed battle's instructions on them (docs/decisions.md, "The
/// allocator").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// Lets the shared test builder (tests/support/builder.rs, included by src/ai/tests.rs) name
// this crate as `powderhorn::` from inside it.
#[cfg(test)]
extern crate self as powderhorn;

pub mod ai;
pub mod app;
pub mod campaign;
pub mod cli;
pub mod export;
pub mod geom;
pub mod model;
pub mod rules;
pub mod session;
pub mod store;
pub mod ui;
