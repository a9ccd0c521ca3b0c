//! The driver: plays both sides of a [`Battle`] with the [`policy`](super::policy) until the
//! battle ends (`Event::BattleEnded`), or a limit stops it, and reports what happened.
//!
//! Every action goes through [`Battle::perform`]; a refusal changes nothing, is recorded in
//! [`AutoplayRun::refusals`] with the rule that refused it, and the next candidate is tried.
//! Each unit acts at most once per phase and a phase takes at most
//! [`Limits::max_actions_per_phase`] attempts, so a game always terminates.
//!
//! Layering: pure; depends on `rules`, `model` and `geom` only (checked by `tests/layering.rs`).

use super::policy::{
    command_units, hq_move, initiative_actions, order_groups, plan_unit, should_concede, troops_of,
    PlannedUnit, Sight,
};
use crate::model::Arm;
use crate::rules::action::Action;
use crate::rules::battle::Battle;
use crate::rules::event::{EndReason, Event};
use crate::rules::state::{BattleState, Phase, PieceId};
use crate::rules::victory::BattleResult;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Guards against runaway games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Attempts (performed or refused) allowed in one phase before it is ended.
    pub max_actions_per_phase: usize,
    /// Actions performed in the whole game before the driver gives up (the engine's turn limit
    /// normally ends the game long before).
    pub max_actions: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_actions_per_phase: 1_000,
            max_actions: 200_000,
        }
    }
}

/// An action the rules refused, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refusal {
    pub game_turn: u32,
    pub phase: Phase,
    pub action: Action,
    pub error: String,
}

/// What an autoplayed game came to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AutoplayRun {
    /// The battle reached `BattleEnded`.
    pub finished: bool,
    pub reason: Option<EndReason>,
    /// The verdict (OBJ-01, OBJ-02, VP-01..VP-04), when the battle ended.
    pub result: Option<BattleResult>,
    pub game_turns: u32,
    /// Actions performed.
    pub actions: usize,
    /// Dice rolled in the whole game.
    pub dice: usize,
    /// Stands lost per side (a knocked-out unit loses all it had).
    pub stands_lost: [u32; 2],
    /// Units and command units knocked out per side.
    pub pieces_lost: [u32; 2],
    pub refusals: Vec<Refusal>,
    /// Why the driver stopped before the battle ended, if it did.
    pub stopped: Option<String>,
}

impl AutoplayRun {
    /// The winning side, if the verdict names one.
    pub fn winner(&self) -> Option<usize> {
        self.result.as_ref().and_then(|r| r.winner)
    }

    /// Final VPs per side (VP-01, VP-02).
    pub fn vps(&self) -> [i64; 2] {
        self.result
            .as_ref()
            .map_or([0, 0], |r| [r.sides[0].vp, r.sides[1].vp])
    }
}

/// Book-keeping of one game in progress: the limits, the refusals and the actions so far.
pub struct Driver<'a> {
    limits: &'a Limits,
    refusals: Vec<Refusal>,
    actions: usize,
    stopped: Option<String>,
}

impl Driver<'_> {
    /// Performs one action; a refusal is logged. True when it was carried out.
    fn attempt(&mut self, battle: &mut Battle, action: Action) -> bool {
        let t = battle.state().turn;
        match battle.perform(action.clone()) {
            Ok(_) => {
                self.actions += 1;
                true
            }
            Err(e) => {
                self.refusals.push(Refusal {
                    game_turn: t.game_turn,
                    phase: t.phase,
                    action,
                    error: e.to_string(),
                });
                false
            }
        }
    }

    fn over(battle: &Battle) -> bool {
        battle.state().turn.phase == Phase::Over
    }
}

/// Plays `battle` to its end with the policy for both sides.
pub fn autoplay(battle: &mut Battle, limits: &Limits) -> AutoplayRun {
    let mut d = Driver {
        limits,
        refusals: Vec::new(),
        actions: 0,
        stopped: None,
    };
    while !Driver::over(battle) {
        if d.actions >= limits.max_actions {
            d.stopped = Some(format!("stopped after {} actions", d.actions));
            break;
        }
        let t = battle.state().turn;
        match t.phase {
            Phase::Initiative => {
                if should_concede(&battle.ctx(), t.active) {
                    if !d.attempt(battle, Action::Concede { side: t.active }) {
                        d.stopped = Some("the concession was refused".into());
                        break;
                    }
                    continue;
                }
                play_initiative(battle, &mut d);
            }
            Phase::Command => play_command(battle, &mut d),
            Phase::Deployment | Phase::Charge | Phase::End | Phase::Over => {}
        }
        if Driver::over(battle) {
            break;
        }
        if !d.attempt(battle, Action::EndPhase) {
            let why = d
                .refusals
                .last()
                .map_or_else(String::new, |r| r.error.clone());
            d.stopped = Some(format!("the phase could not be ended: {why}"));
            break;
        }
    }
    summarize(battle, d)
}

/// INIT-01, INIT-02: each unit in id order, judged when it acts; sight is rebuilt after each
/// action that changed the table.
fn play_initiative(battle: &mut Battle, d: &mut Driver) {
    let side = battle.state().turn.active;
    let units = troops_of(&battle.ctx(), side);
    let mut attempts = 0;
    let mut sight = Sight::new();
    for id in units {
        if attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
            return;
        }
        let candidates = {
            let ctx = battle.ctx();
            initiative_actions(&ctx, &sight, id)
        };
        for a in candidates {
            attempts += 1;
            if d.attempt(battle, a) {
                let events = battle.entries().last().map_or(&[][..], |e| &e.events[..]);
                if changes_sight(battle.state(), events) {
                    sight = Sight::new();
                }
                break;
            }
        }
    }
}

/// Whether an action's events can change who sees whom (INIT-02: sight is worked out when each
/// unit acts): anything that moves, turns, reshapes, reveals or removes a piece. Hits, saves
/// and suppression do not, so the sight index of the last look stays good after most fire. A
/// first shot can reveal a hidden gun or a dug-in unit (VIS-08, VIS-17), so fire by guns or
/// dug-in units counts.
fn changes_sight(state: &BattleState, events: &[Event]) -> bool {
    let reveals = |f: &PieceId| {
        state
            .piece(*f)
            .is_some_and(|p| p.dug_in || p.arm == Some(Arm::Artillery))
    };
    events.iter().any(|e| {
        !matches!(
            e,
            Event::DiceRolled { .. }
                | Event::HitsScored { .. }
                | Event::Saved { .. }
                | Event::HitsTaken { .. }
                | Event::Suppressed { .. }
                | Event::NoEffect { .. }
        ) && !matches!(e, Event::Fired { firers, .. } if !firers.iter().any(reveals))
    })
}

/// CMD-02..CMD-06: each command unit's order group (the CO last), planned at its declaration
/// and carried out by [`execute_order`]; units an order could not move are planned once more;
/// then the command units follow their units.
fn play_command(battle: &mut Battle, d: &mut Driver) {
    let side = battle.state().turn.active;
    let mut done: BTreeSet<PieceId> = BTreeSet::new();
    let mut attempts = 0;
    let groups = order_groups(&battle.ctx(), side, &done);
    for group in groups {
        for round in 0..2 {
            if attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
                return;
            }
            let planned: Vec<PlannedUnit> = {
                let ctx = battle.ctx();
                let sight = Sight::new();
                group
                    .units
                    .iter()
                    .filter(|u| !done.contains(u))
                    .map(|&u| PlannedUnit {
                        piece: u,
                        candidates: plan_unit(&ctx, &sight, u),
                    })
                    .collect()
            };
            let outcome = execute_order(battle, group.hq, &planned, d, &mut attempts);
            done.extend(outcome.acted.iter().copied());
            // Units whose every candidate was refused get a second declaration (their
            // planned moves may have been blocked by the group's earlier moves).
            if round == 0 && outcome.refused.is_empty() {
                break;
            }
        }
    }
    for hq in command_units(&battle.ctx(), side) {
        if attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
            return;
        }
        let Some(a) = hq_move(&battle.ctx(), hq) else {
            continue;
        };
        attempts += 1;
        d.attempt(battle, a);
    }
}

/// What one order came to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderOutcome {
    /// Units that carried out an action.
    pub acted: Vec<PieceId>,
    /// Units whose every candidate was refused.
    pub refused: Vec<PieceId>,
}

/// CMD-03, CMD-04: carries out one order — every unit's first candidate the rules accept.
///
/// REWIRE (Command phase, CMD-03..CMD-09): today the engine lets any active unit act in the
/// Command phase, so this performs the unit actions directly. With orders it should perform
/// the order action for `hq` and `planned` (its 2D6 roll), stop on failure (CMD-05), and give
/// each unit its action under that order.
pub fn execute_order(
    battle: &mut Battle,
    hq: PieceId,
    planned: &[PlannedUnit],
    d: &mut Driver,
    attempts: &mut usize,
) -> OrderOutcome {
    let _ = hq;
    let mut outcome = OrderOutcome::default();
    for unit in planned {
        let mut refused = false;
        let mut acted = false;
        for a in &unit.candidates {
            if *attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
                return outcome;
            }
            *attempts += 1;
            if d.attempt(battle, a.clone()) {
                acted = true;
                break;
            }
            refused = true;
        }
        if acted {
            outcome.acted.push(unit.piece);
        } else if refused {
            outcome.refused.push(unit.piece);
        }
    }
    outcome
}

fn summarize(battle: &Battle, d: Driver) -> AutoplayRun {
    let mut reason = None;
    let mut result = None;
    for e in battle.events() {
        match e {
            Event::BattleEnded { reason: r, .. } => reason = Some(*r),
            Event::BattleResult(r) => result = Some(r.clone()),
            _ => {}
        }
    }
    let mut stands_lost = [0u32; 2];
    let mut pieces_lost = [0u32; 2];
    let initial = battle.initial_state();
    for (id, p) in &battle.state().pieces {
        let side = id.side().min(1);
        let start = initial.piece(*id).map_or(0, |q| u32::from(q.stands));
        let left = if p.knocked_out {
            0
        } else {
            u32::from(p.stands)
        };
        if !id.is_command() {
            stands_lost[side] += start.saturating_sub(left);
        }
        if p.knocked_out {
            pieces_lost[side] += 1;
        }
    }
    AutoplayRun {
        finished: Driver::over(battle),
        reason,
        result,
        game_turns: battle.state().turn.game_turn,
        actions: d.actions,
        dice: battle.entries().iter().map(|e| e.dice_used).sum(),
        stands_lost,
        pieces_lost,
        refusals: d.refusals,
        stopped: d.stopped,
    }
}
