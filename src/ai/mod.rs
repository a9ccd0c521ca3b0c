//! The solo opponent: a pure, deterministic policy that chooses the next actions of the side to
//! act ([`policy`]), and a driver that plays both sides of a battle to its end ([`autoplay`]).
//!
//! The opponent plays by the same door as a person: every choice is an ordinary
//! [`Action`](crate::rules::Action) handed to [`Battle::perform`](crate::rules::Battle::perform),
//! so the rules check it, roll its dice and record it, and the log it leaves replays like any
//! other. It never reads the dice stream and draws no randomness of its own: the same battle and
//! seed give the same game, move for move, and ties are broken by piece id order.
//!
//! # The policy (also in `docs/autoplay.md`)
//!
//! * **Deployment**: the armies stand as the scenario placed them.
//! * **Initiative** (INIT-01..INIT-06), unit by unit in id order, each judged when it acts
//!   (INIT-02): foot threatened by visible enemy mounted cavalry within 20 cm forms square when
//!   it may (MOVE-16); otherwise a unit fires at its nearest visible enemy when the rules allow
//!   (INIT-04, ART-09); a limbered gun with an enemy that close unlimbers to face it.
//! * **Command**: for each command unit (the CO last, CMD-02) the planner builds an *order
//!   group* — its own units within reach, then (CO) any unit not yet ordered — with a planned
//!   action per unit, declared together and carried out through one function
//!   ([`autoplay::execute_order`]), as CMD-03 declares an order. Per unit: a suppressed unit
//!   does nothing (FIRE-23); a unit that has a target fires at the one with the most expected
//!   hits (the firing module's own dice, score and save functions); a shaken unit (half its
//!   stands gone) pulls back; a gun with an enemy in range unlimbers facing it, and limbers
//!   when none is within reach; foot threatened by cavalry forms square, and leaves it when the
//!   threat is gone; otherwise the unit advances — on the nearest enemy within engagement
//!   reach (stopping at three quarters of its weapon range), else on its side's major objective
//!   (the attacker) or back to it (the defender, DEF-01), else on the enemy's centre — in march
//!   column when the enemy is far, in line when near. A charge step
//!   ([`policy::consider_charge`]) comes first for every unit and today proposes nothing: the
//!   engine has no charge action yet. Command units then follow their units.
//! * **Charge** and **End**: nothing to decide; the phase ends (END-01, END-02 run in the
//!   engine).
//! * **The end** (END-03): a side with no troop unit left on the table concedes; otherwise the
//!   engine ends the battle on a break or at the turn limit.
//!
//! Loops are impossible by construction: each unit acts at most once per phase, a phase takes
//! at most [`autoplay::Limits::max_actions_per_phase`] actions, a refused action is logged and
//! the next candidate tried, and when nothing is left the phase ends.
//!
//! Layering: pure like `rules` — depends on `rules`, `model` and `geom`; must not import egui,
//! eframe, rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

pub mod autoplay;
pub mod policy;
pub mod tactics;
#[cfg(test)]
mod tests;

pub use autoplay::{autoplay, execute_order, AutoplayRun, Limits, Refusal};
pub use policy::{OrderGroup, PlannedUnit};
