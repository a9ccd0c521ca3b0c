//! The solo opponent: a pure, deterministic policy that chooses the next actions of the side to
//! act ([`policy`], with the tactics beyond moving and shooting in [`tactics`]), and a driver that plays both sides of a battle to its end ([`autoplay`]).
//!
//! Above the per-unit policy sits a plan ([`plan`]): each command unit's formation gets a task —
//! attack (an assault with local superiority), hold, screen a flank, or reserve — with a why
//! line, recomputed from the table so nothing is stored. Each side is played by a
//! [`Policy`]: `Standard` (all of this) or `Hold`, the baseline that only fires from where it
//! stands (`battle autoplay --policy 0=standard,1=hold`, figures in `docs/autoplay.md`).
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
//! * **Initiative** (INIT-01..INIT-15), unit by unit in id order, each judged when it acts
//!   (INIT-02): foot threatened by visible enemy mounted cavalry within 20 cm forms square when
//!   it may (MOVE-16); a unit charges when the odds favour it ([`policy::consider_charge`]),
//!   supports a friend's charge in contact (INIT-11, [`tactics::initiative_support`]), evades a
//!   clearly stronger enemy if a skirmisher or gun (INIT-05, [`tactics::initiative_evade`]), or
//!   fires at its nearest visible enemy (INIT-04, ART-09); a limbered gun unlimbers.
//! * **Command**: for each command unit (the CO last, CMD-02) the planner builds an *order
//!   group* with a planned action per unit, declared together and carried out through one
//!   function ([`autoplay::execute_order`]), as CMD-03 declares an order. Per unit: a charge
//!   when the odds favour it; a suppressed unit does nothing (FIRE-23); fire at the target with
//!   the most expected hits; a shaken unit pulls back; guns unlimber facing an enemy in range;
//!   foot threatened by cavalry forms square; otherwise the unit advances — on the nearest enemy
//!   within engagement reach, else on its side's objective ground (the attacker; the defender
//!   goes back to it), else on the enemy's centre — in march column far from the enemy, in line
//!   near it (line to fire). A unit on its objective ground holds it. Friends of a charger within
//!   10 cm support it (CHG-08 (a), [`tactics::plan_supports`]); winners consolidate (CHG-24,
//!   [`tactics::consolidations`]); isolated units no one ordered give themselves an order
//!   (CMD-07, [`tactics::self_orders`]). The inactive side answers charges
//!   ([`policy::charge_responses`]), supports its charged units (CHG-08 (b)) and makes
//!   opportunity fire at units that move or fire under an order when the shot is worth its cost
//!   (FIRE-30..FIRE-33, [`tactics::opportunity_fire`]). Command units then follow their units.
//! * **End**: at the end of each game turn each side is declared at the objective level the
//!   table shows (OBJ-01, END-03 (1), [`tactics::objective_claims`]; the defender in the last
//!   turn only); END-01, END-02 run in the engine.
//! * **The end** (END-03): a side with no troop unit left on the table concedes; otherwise the
//!   engine ends the battle on a break, a major objective, or at the turn limit.
//!
//! Every such decision asks the engine's own check (`resolve_support`, `resolve_consolidate`,
//! `is_isolated`, `check_deploy`, `check_move` …, which roll no dice) before proposing an
//! action; nothing illegal is attempted blindly.
//!
//! Loops are impossible by construction: each unit acts at most once per phase, a phase takes
//! at most [`autoplay::Limits::max_actions_per_phase`] actions, a refused action is logged and
//! the next candidate tried, and when nothing is left the phase ends.
//!
//! Layering: pure like `rules` — depends on `rules`, `model` and `geom`; must not import egui,
//! eframe, rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

pub mod autoplay;
pub mod balance;
pub mod optional;
pub mod plan;
pub mod policy;
pub mod tactics;
#[cfg(test)]
mod tests;

pub use autoplay::{
    action_side, autoplay, autoplay_with, execute_order, play, play_with, AfterAction, AutoplayRun,
    Limits, Policy, Refusal, Until,
};
pub use policy::{OrderGroup, PlannedUnit};
