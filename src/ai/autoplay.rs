//! The driver: plays both sides of a [`Battle`] with the [`policy`](super::policy) until the
//! battle ends (`Event::BattleEnded`), or a limit stops it, and reports what happened.
//!
//! Every action goes through [`Battle::perform`]; a refusal changes nothing, is recorded in
//! [`AutoplayRun::refusals`] with the rule that refused it, and the next candidate is tried.
//! Each unit acts at most once per phase and a phase takes at most
//! [`Limits::max_actions_per_phase`] attempts, so a game always terminates.
//!
//! Layering: pure; depends on `rules`, `model` and `geom` only (checked by `tests/layering.rs`).

use super::policy::pose_of;
use super::policy::{
    charge_responses, command_units, hq_move, initiative_actions, order_groups, plan_unit,
    should_concede, troops_of, PlannedUnit, Sight,
};
use super::tactics;
use crate::model::Arm;
use crate::rules::action::Action;
use crate::rules::battle::{Battle, Ctx};
use crate::rules::charge::Response;
use crate::rules::command::{
    check_issue_order, command_value, meets_dense, order_target, unit_action,
    OrderOutcome as CmdOutcome, OrderedUnit, UnitActionKind,
};
use crate::rules::event::{EndReason, Event};
use crate::rules::firing::check_fire;
use crate::rules::movement::check_move;
use crate::rules::state::{BattleState, Phase, PieceId};
use crate::rules::victory::BattleResult;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How a side is played: the standard opponent, or the `hold` baseline the standard one is
/// measured against (docs/autoplay.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// The opponent with a plan ([`super::plan`], [`super::policy`]).
    #[default]
    Standard,
    /// A baseline that only fires from where it stands: in its turn each unit fires at its best
    /// target (a limbered gun unlimbers where it stands), and in the other side's turn it makes
    /// opportunity fire and meets charges by standing (firing at the charger or canister;
    /// charged mounted cavalry counter-charges, which INIT-15 requires of it unless it evades).
    /// It never moves, charges, supports, evades or consolidates, and its command units stay
    /// put.
    Hold,
}

impl Policy {
    /// The name used on the command line (`standard`, `hold`).
    pub fn name(self) -> &'static str {
        match self {
            Policy::Standard => "standard",
            Policy::Hold => "hold",
        }
    }

    /// Reads a name of [`Policy::name`].
    pub fn from_name(name: &str) -> Option<Policy> {
        match name.trim().to_ascii_lowercase().as_str() {
            "standard" => Some(Policy::Standard),
            "hold" => Some(Policy::Hold),
            _ => None,
        }
    }

    /// Whether this policy may take `a` at all: `hold` keeps only fire (in its turn, as
    /// opportunity fire or at a charger), canister, standing, unlimbering a gun in place, the
    /// side-wide declarations (objectives, a concession) and the phase's bookkeeping.
    pub fn allows(self, a: &Action) -> bool {
        if self == Policy::Standard {
            return true;
        }
        match a {
            Action::Fire { .. }
            | Action::OpportunityFire { .. }
            | Action::EndPhase
            | Action::CloseResponse { .. }
            | Action::ResolveCharge { .. }
            | Action::Concede { .. }
            | Action::DeclareObjective { .. }
            | Action::RollStartingWeather => true,
            // INIT-15: charged mounted cavalry must counter-charge or evade; `hold` meets the
            // charge (the engine refuses a counter-charge where the rules do not ask for one
            // of cavalry, and the driver offers it to mounted cavalry only).
            Action::Respond { response, .. } => matches!(
                response,
                Response::Fire { .. } | Response::Canister | Response::CounterCharge
            ),
            // Unlimbering where it stands (no ground covered).
            Action::Unlimber { .. } | Action::FireAtBridge { .. } => true,
            // An order that only fires or unlimbers.
            Action::IssueOrder { units, .. } => units
                .iter()
                .all(|u| matches!(u.action, UnitActionKind::Fire | UnitActionKind::Deploy)),
            _ => false,
        }
    }
}

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

/// How far [`play`] goes before it hands the table back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Until {
    /// The end of the current phase.
    Phase,
    /// The end of the current player turn.
    Turn,
    /// The end of the battle (or a decision that belongs to a person).
    End,
}

/// The side an action is decided by: the side of the piece it names, the side it names, or
/// the active side (ending a phase, fighting a combat). Closing a charge's response window is
/// the charged side's decision.
pub fn action_side(state: &BattleState, action: &Action) -> usize {
    match action {
        Action::Concede { side }
        | Action::RemoveDefense { side, .. }
        | Action::DeclareObjective { side, .. } => *side,
        Action::CloseResponse { target } => target.side(),
        Action::EndPhase | Action::ResolveCharge { .. } | Action::RollStartingWeather => {
            state.turn.active
        }
        other => other.piece().map_or(state.turn.active, PieceId::side),
    }
}

/// Called after every action the opponent performs, with the battle as it now stands; false
/// stops the opponent at once (a Stop button, or a store that could not record the action).
pub type AfterAction<'h> = dyn FnMut(&Battle) -> bool + 'h;

/// Book-keeping of one game in progress: the limits, the refusals and the actions so far.
pub struct Driver<'a, 'h> {
    limits: &'a Limits,
    refusals: Vec<Refusal>,
    actions: usize,
    stopped: Option<String>,
    /// The sides the opponent decides for; an action of another side is never attempted.
    sides: [bool; 2],
    after: &'a mut AfterAction<'h>,
    /// The hook said stop.
    halted: bool,
    /// How each side is played.
    policies: [Policy; 2],
}

impl Driver<'_, '_> {
    /// Whether `side`'s policy may take `a` (every action passes here, so a `hold` side can
    /// never move or charge whatever a planner proposes).
    fn allows(&self, side: usize, a: &Action) -> bool {
        self.policies.get(side.min(1)).is_none_or(|p| p.allows(a))
    }

    fn policy(&self, side: usize) -> Policy {
        self.policies.get(side.min(1)).copied().unwrap_or_default()
    }

    /// Performs one action through the battle and the hook; refused actions are not logged
    /// here. `None` when it was not attempted (another side's decision, or halted).
    fn perform(&mut self, battle: &mut Battle, action: &Action) -> Option<Result<(), String>> {
        let side = action_side(battle.state(), action).min(1);
        if self.halted || !self.sides[side] || !self.allows(side, action) {
            return None;
        }
        match battle.perform(action.clone()) {
            Ok(_) => {
                self.actions += 1;
                if !(self.after)(battle) {
                    self.halted = true;
                    self.stopped = Some("stopped before the end".into());
                }
                Some(Ok(()))
            }
            Err(e) => Some(Err(e.to_string())),
        }
    }

    /// Performs one action; a refusal is logged. True when it was carried out.
    fn attempt(&mut self, battle: &mut Battle, action: Action) -> bool {
        let t = battle.state().turn;
        let charge = match &action {
            Action::Charge {
                chargers, target, ..
            } => chargers.first().map(|c| (*target, *c)),
            _ => None,
        };
        // FIRE-30, FIRE-31: a unit that moves or fires under an order may draw opportunity fire.
        let mover = match &action {
            Action::Move { piece, .. } => Some(*piece),
            Action::Fire { firers, .. } => firers.first().copied(),
            _ => None,
        };
        match self.perform(battle, &action) {
            None => false,
            Some(Ok(_)) => {
                if let Some((target, charger)) = charge {
                    self.close_window(battle, target, charger);
                }
                if let Some(target) = mover.filter(|_| t.phase == Phase::Command) {
                    self.opportunity_fire(battle, target);
                }
                true
            }
            Some(Err(error)) => {
                self.refusals.push(Refusal {
                    game_turn: t.game_turn,
                    phase: t.phase,
                    action,
                    error,
                });
                false
            }
        }
    }

    /// The decisions `side` must take now in the other side's player turn: answer the charges
    /// made on its units (INIT-09..INIT-15, CHG-08 (b)) and the opportunity fire the last move
    /// or shot under an order allows (FIRE-30..FIRE-33).
    fn answer(&mut self, battle: &mut Battle, side: usize) {
        let open: Vec<(PieceId, PieceId)> = battle
            .state()
            .charges
            .combats
            .iter()
            .filter(|c| c.window_open && c.target.side() == side)
            .filter_map(|c| c.chargers.first().map(|ch| (c.target, ch.piece)))
            .collect();
        for (target, charger) in open {
            self.close_window(battle, target, charger);
        }
        let t = battle.state().turn;
        if t.phase != Phase::Command || t.active == side {
            return;
        }
        let mover = battle.entries().last().and_then(|e| match &e.action {
            Action::Move { piece, .. } => Some(*piece),
            Action::Fire { firers, .. } => firers.first().copied(),
            _ => None,
        });
        if let Some(target) = mover.filter(|m| m.side() != side) {
            self.opportunity_fire(battle, target);
        }
    }

    /// INIT-09 steps 3–4, INIT-10..INIT-15: the inactive side answers the charge on `target`
    /// (the first response of [`charge_responses`] the rules accept) and closes the window.
    fn close_window(&mut self, battle: &mut Battle, target: PieceId, charger: PieceId) {
        let open = battle
            .state()
            .charges
            .combat(target)
            .is_some_and(|c| c.window_open);
        if !open {
            return;
        }
        let responses = charge_responses(&battle.ctx(), target, charger);
        for response in responses {
            let a = Action::Respond {
                piece: target,
                target,
                response,
            };
            if !self.allows(target.side(), &a) {
                continue;
            }
            if self.attempt(battle, a) {
                break;
            }
        }
        self.attempt(battle, Action::CloseResponse { target });
        // CHG-08 (b): the inactive side supports its unit under charge, after contact.
        let support = tactics::defender_support(&battle.ctx(), target);
        if let Some(a) = support.filter(|a| self.allows(target.side(), a)) {
            self.attempt(battle, a);
        }
    }

    /// FIRE-30..FIRE-33: the inactive side's opportunity fire at `target`, which has just moved
    /// or fired under an order; each firer the policy proposes, in turn, while the target is on
    /// the table.
    fn opportunity_fire(&mut self, battle: &mut Battle, target: PieceId) {
        let shots = tactics::opportunity_fire(&battle.ctx(), &Sight::new(), target);
        for a in shots {
            if Driver::over(battle) || battle.state().piece(target).is_none_or(|p| !p.on_table()) {
                return;
            }
            self.attempt(battle, a);
        }
    }

    /// CHG-24: the winners of the combats just fought consolidate where the policy finds it
    /// worth it.
    fn consolidate(&mut self, battle: &mut Battle) {
        let moves = tactics::consolidations(&battle.ctx());
        for a in moves {
            let side = action_side(battle.state(), &a);
            if !self.allows(side, &a) {
                continue;
            }
            if Driver::over(battle) {
                return;
            }
            self.attempt(battle, a);
        }
    }

    /// SEQ-04: fights every pending combat whose window is closed, in declaration order.
    fn resolve_pending(&mut self, battle: &mut Battle) {
        let targets: Vec<PieceId> = battle
            .state()
            .charges
            .combats
            .iter()
            .filter(|c| !c.window_open)
            .map(|c| c.target)
            .collect();
        let fought = !targets.is_empty();
        for target in targets {
            if Driver::over(battle) {
                return;
            }
            self.attempt(battle, Action::ResolveCharge { target });
        }
        if fought && !Driver::over(battle) {
            self.consolidate(battle);
        }
    }

    fn over(battle: &Battle) -> bool {
        battle.state().turn.phase == Phase::Over
    }
}

/// Plays `battle` to its end with the policy for both sides.
pub fn autoplay(battle: &mut Battle, limits: &Limits) -> AutoplayRun {
    play(battle, limits, [true, true], Until::End, &mut |_| true)
}

/// A charge on a unit of a side the opponent does not play, waiting for its answer.
fn waiting_for_person(battle: &Battle, sides: [bool; 2]) -> Option<String> {
    battle
        .state()
        .charges
        .combats
        .iter()
        .find(|c| c.window_open && !sides[c.target.side().min(1)])
        .map(|c| {
            let name = battle
                .state()
                .piece(c.target)
                .map_or_else(|| c.target.to_string(), |p| p.name.clone());
            format!(
                "waiting for side {} to answer the charge on {name}",
                c.target.side()
            )
        })
}

/// Plays the sides marked in `sides` with the policy, from where the battle stands, until
/// `until` is reached, the battle ends, or a decision belongs to a side the opponent does not
/// play (a person's player turn, or a charge on a person's unit): then it stops and says why in
/// [`AutoplayRun::stopped`]. In a person's player turn it first takes the decisions that
/// belong to the opponent's side then (answering charges, opportunity fire). `after` is
/// called after every action performed; false stops at once.
pub fn play(
    battle: &mut Battle,
    limits: &Limits,
    sides: [bool; 2],
    until: Until,
    after: &mut AfterAction<'_>,
) -> AutoplayRun {
    play_with(battle, limits, sides, [Policy::Standard; 2], until, after)
}

/// [`autoplay`] with a [`Policy`] per side (`battle autoplay --policy`).
pub fn autoplay_with(battle: &mut Battle, limits: &Limits, policies: [Policy; 2]) -> AutoplayRun {
    play_with(
        battle,
        limits,
        [true, true],
        policies,
        Until::End,
        &mut |_| true,
    )
}

/// [`play`] with a [`Policy`] per side.
pub fn play_with(
    battle: &mut Battle,
    limits: &Limits,
    sides: [bool; 2],
    policies: [Policy; 2],
    until: Until,
    after: &mut AfterAction<'_>,
) -> AutoplayRun {
    let mut d = Driver {
        policies,
        limits,
        refusals: Vec::new(),
        actions: 0,
        stopped: None,
        sides,
        after,
        halted: false,
    };
    let start = battle.state().turn;
    while !Driver::over(battle) {
        if d.actions >= limits.max_actions {
            d.stopped = Some(format!("stopped after {} actions", d.actions));
            break;
        }
        if d.halted {
            break;
        }
        let t = battle.state().turn;
        if !sides[t.active.min(1)] {
            let other = 1 - t.active.min(1);
            if sides[other] {
                d.answer(battle, other);
            }
            if d.stopped.is_none() {
                d.stopped = Some(format!("waiting for side {} to play its turn", t.active));
            }
            break;
        }
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
            Phase::End => {
                // END-03 (1), OBJ-01: at the end of the game turn the objectives are declared.
                let claims = tactics::objective_claims(&battle.ctx());
                for a in claims {
                    d.attempt(battle, a);
                }
            }
            Phase::Deployment => {
                // OPT-SCOUT-01: scouts go out while the armies deploy.
                if d.policy(t.active) == Policy::Standard {
                    let places = super::optional::scout_deployments(&battle.ctx(), t.active);
                    for tries in places {
                        if let Some(a) = tries.into_iter().find(|a| battle.check(a).is_ok()) {
                            d.attempt(battle, a);
                        }
                    }
                }
            }
            Phase::Charge | Phase::Over => {}
        }
        // SEQ-04: anything still pending is fought before the phase ends.
        d.resolve_pending(battle);
        if Driver::over(battle) || d.halted {
            break;
        }
        if let Some(why) = waiting_for_person(battle, sides) {
            d.stopped = Some(why);
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
        let now = battle.state().turn;
        let done = match until {
            Until::Phase => true,
            Until::Turn => now.player_turn != start.player_turn,
            Until::End => false,
        };
        if done {
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
    let mut idle_units = Vec::new();
    for id in units {
        if attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
            return;
        }
        let candidates: Vec<Action> = {
            let ctx = battle.ctx();
            initiative_actions(&ctx, &sight, id)
                .into_iter()
                .filter(|a| d.allows(side, a))
                .collect()
        };
        let mut acted = false;
        for a in candidates {
            attempts += 1;
            if d.attempt(battle, a) {
                let events = battle.entries().last().map_or(&[][..], |e| &e.events[..]);
                if changes_sight(battle.state(), events) {
                    sight = Sight::new();
                }
                acted = true;
                break;
            }
        }
        if !acted {
            idle_units.push(id);
        }
    }
    // INIT-11: units that took no initiative action may still support a charge made after
    // their turn came (each unit is judged when it acts, INIT-02).
    if !battle.state().charges.combats.is_empty() {
        for id in idle_units {
            if attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
                return;
            }
            let support = tactics::initiative_support(&battle.ctx(), id);
            if let Some(a) = support.filter(|a| d.allows(side, a)) {
                attempts += 1;
                d.attempt(battle, a);
            }
        }
    }
    // SEQ-04: initiative charges are fought after all initiative actions.
    d.resolve_pending(battle);
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

/// CMD-02..CMD-06, CMD-29: each command unit's order group (the CO last), split by distance
/// from the command unit into at most as many orders as its command value allows (CMD-01),
/// the nearest first, so the far units' distance penalty (CMD-09) does not spoil the near
/// units' order. Each order is declared, rolled and carried out by [`execute_order`]; a failed
/// roll ends that command unit's orders (CMD-05) and the CO then picks up what it can reach
/// (CMD-29). Last, the command units follow their units (CMD-20).
fn play_command(battle: &mut Battle, d: &mut Driver) {
    let side = battle.state().turn.active;
    let done: BTreeSet<PieceId> = BTreeSet::new();
    let mut attempts = 0;
    let groups = order_groups(&battle.ctx(), side, &done);
    let co = command_units(&battle.ctx(), side).last().copied();
    for mut group in groups {
        let orders = {
            let ctx = battle.ctx();
            if Some(group.hq) == co {
                // CMD-29: the CO picks up the units an HQ failed to order.
                for u in troops_of(&ctx, side) {
                    if ctx.state.piece(u).is_some_and(|p| p.orders.hq_failed)
                        && !group.units.contains(&u)
                    {
                        group.units.push(u);
                    }
                }
            }
            split_group(&ctx, group.hq, &group.units)
        };
        let bands = orders.len();
        // CMD-06, CMD-08: the last band of a command unit is ordered again in succession while
        // the roll stays worth making; a failure there ends no order still to come.
        let mut successive = 0;
        let mut band = 0;
        while let Some(units) = orders.get(band) {
            if attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
                return;
            }
            let last = band + 1 == bands;
            let planned: Vec<PlannedUnit> = {
                let ctx = battle.ctx();
                let sight = Sight::new();
                // CMD-02..CMD-06, CMD-29, FIRE-23: the units of this order the command unit may
                // order now — those of `orderable_units`, asked of the order's units only.
                let orderable = |u: PieceId| {
                    ctx.state.piece(u).is_some_and(|p| p.on_table())
                        && check_issue_order(
                            &ctx,
                            group.hq,
                            &[OrderedUnit {
                                piece: u,
                                action: UnitActionKind::Deploy,
                                target: None,
                                road: false,
                                dense: false,
                            }],
                        )
                        .is_ok()
                };
                let mut planned: Vec<PlannedUnit> = units
                    .iter()
                    .filter(|u| orderable(**u))
                    .map(|&u| PlannedUnit {
                        piece: u,
                        // OPT-PRONE-01: lie down under the guns, stand up to act.
                        candidates: super::optional::prone_step(
                            &ctx,
                            &sight,
                            u,
                            plan_unit(&ctx, &sight, u),
                        )
                        .into_iter()
                        .filter(|a| d.allows(side, a))
                        .collect(),
                    })
                    .filter(|p| !p.candidates.is_empty())
                    .collect();
                // CHG-08 (a): units of the order support its charges.
                if d.policy(side) == Policy::Standard {
                    tactics::plan_supports(&ctx, &mut planned);
                }
                planned
            };
            if planned.is_empty() {
                band += 1;
                successive = 0;
                continue;
            }
            let least = (successive > 0).then_some(SUCCESSIVE_LEAST_TARGET);
            let outcome = execute_order(battle, group.hq, &planned, d, &mut attempts, least);
            if !outcome.issued {
                break; // CMD-05: this command unit's orders are over (or not worth a roll)
            }
            // The next order is at −1 more (CMD-08): not planned when that is already too
            // little (it is worked out exactly before it is rolled).
            let again = last
                && d.policy(side) == Policy::Standard
                && successive < SUCCESSIVE_ORDERS
                && outcome.target.is_some_and(|t| t > SUCCESSIVE_LEAST_TARGET)
                && worth_again(&battle.ctx(), &planned);
            if again {
                successive += 1;
            } else {
                band += 1;
                successive = 0;
            }
        }
    }
    // OPT-SCOUT-02: scouts are launched once the orders are given (a failed roll then costs no
    // order), and launched scouts make their free move.
    if d.policy(side) == Policy::Standard {
        let launches = super::optional::scout_launches(&battle.ctx(), side);
        for tries in launches {
            if let Some(a) = tries.into_iter().find(|a| battle.check(a).is_ok()) {
                attempts += 1;
                d.attempt(battle, a);
            }
        }
        for a in super::optional::scout_moves(&battle.ctx(), side) {
            if attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
                return;
            }
            attempts += 1;
            d.attempt(battle, a);
        }
    }
    // CMD-07: isolated units no command unit ordered give themselves an order (before the
    // command units move, CMD-20).
    let selves = if d.policy(side) == Policy::Standard {
        tactics::self_orders(&battle.ctx())
    } else {
        Vec::new()
    };
    for a in selves {
        if attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
            return;
        }
        attempts += 1;
        d.attempt(battle, a);
    }
    let hqs = if d.policy(side) == Policy::Standard {
        command_units(&battle.ctx(), side)
    } else {
        Vec::new()
    };
    for hq in hqs {
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

/// CMD-06, CMD-08: how many times at most the standard opponent orders a command unit's last
/// band again in succession (each at −1 more).
pub const SUCCESSIVE_ORDERS: usize = 2;
/// The least modified command value for which such a further order is rolled: 2D6 ≤ 6 succeeds
/// 15 times in 36.
pub const SUCCESSIVE_LEAST_TARGET: i32 = 6;

/// CMD-06, CMD-08: whether a band is worth ordering again in succession: each of its units
/// either fires (once per order, FIRE-01: a second order is a second volley, and a second hit
/// on a suppressed enemy makes it fall back, FIRE-24, FIRE-25) or marches with no enemy within
/// [`MARCH_CLEAR_CM`]. A band closing on the enemy is not hurried on ahead of the rest.
fn worth_again(ctx: &Ctx, planned: &[PlannedUnit]) -> bool {
    planned.iter().all(|u| match u.candidates.first() {
        Some(Action::Fire { .. }) => true,
        Some(Action::Move { piece, .. }) => {
            super::policy::nearest_enemy(ctx, *piece).is_none_or(|(_, d)| d > MARCH_CLEAR_CM)
        }
        _ => false,
    })
}

/// A band marches on in succession only with no enemy nearer than this (reference points).
pub const MARCH_CLEAR_CM: f64 = 40.0;

/// CMD-01, CMD-09: a command unit's units in orders by distance band from it (within 20 cm,
/// then each further 20 cm), the nearest first; the last orders merged so the count stays
/// within the command value. The far bands come last, so a roll their distance spoils ends
/// no order that could have gone better.
fn split_group(ctx: &Ctx, hq: PieceId, units: &[PieceId]) -> Vec<Vec<PieceId>> {
    let cap = usize::from(command_value(ctx, hq).map_or(1, |(v, r)| v.saturating_sub(u8::from(r))))
        .max(1);
    let Some(at) = pose_of(ctx, hq).map(|p| p.at) else {
        return vec![units.to_vec()];
    };
    let mut bands: BTreeMap<u32, Vec<PieceId>> = BTreeMap::new();
    for &u in units {
        let Some(p) = pose_of(ctx, u) else { continue };
        let dcm = at.distance(p.at).0;
        // Reference points; the rule measures edges, a little nearer.
        let band = (dcm / 22.0).floor().max(0.0) as u32;
        bands.entry(band).or_default().push(u);
    }
    let mut out: Vec<Vec<PieceId>> = bands.into_values().collect();
    while out.len() > cap {
        if let Some(last) = out.pop() {
            if let Some(prev) = out.last_mut() {
                prev.extend(last);
            }
        }
    }
    out
}

/// What one order came to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderOutcome {
    /// The command roll succeeded (CMD-04).
    pub issued: bool,
    /// Double one: two actions each (CMD-17).
    pub bonus: bool,
    /// Units that carried out an action.
    pub acted: Vec<PieceId>,
    /// Units whose every candidate was refused.
    pub refused: Vec<PieceId>,
    /// The modified command value rolled against (CMD-03), when rolled.
    pub target: Option<i32>,
}

/// CMD-03, CMD-11..CMD-13, FIRE-06: the declaration of one unit's first candidate: its kind,
/// its target (fire, charge) and, for a move, whether it earns the road bonus and whether its
/// path meets dense terrain, worked out from the move's own plan. `None` for an action no order
/// carries.
pub fn declare(ctx: &Ctx, unit: &PlannedUnit) -> Option<(OrderedUnit, usize)> {
    for (k, a) in unit.candidates.iter().enumerate() {
        let Some((_, kind)) = unit_action(a) else {
            continue;
        };
        if matches!(kind, UnitActionKind::Evade | UnitActionKind::EngineerTask) {
            continue;
        }
        let mut o = OrderedUnit {
            piece: unit.piece,
            action: kind,
            target: None,
            road: false,
            dense: false,
        };
        match a {
            Action::Fire {
                firers,
                target,
                ammunition,
            } => {
                // FIRE-01..FIRE-09: the engine's own check (no dice), so the declared target
                // is one the unit may fire at (not over friends, FIRE-07).
                if check_fire(ctx, firers, *target, *ammunition).is_err() {
                    continue;
                }
                o.target = Some(*target);
            }
            Action::Charge { target, .. } => o.target = Some(*target),
            Action::Move {
                piece,
                via,
                to,
                manoeuvre,
            } => {
                let Ok(plan) = check_move(ctx, *piece, via, *to, *manoeuvre) else {
                    continue;
                };
                let Ok(p) = ctx.piece(*piece) else { continue };
                let mut pts = vec![plan.from.at];
                pts.extend(plan.path.iter().copied());
                pts.push(plan.to.at);
                o.road = plan.road_bonus;
                o.dense = meets_dense(ctx, p, &pts);
            }
            _ => {}
        }
        return Some((o, k));
    }
    None
}

/// CMD-03..CMD-05, CMD-17: one order — each unit declares its first candidate ([`declare`]),
/// the command unit rolls (`IssueOrder`), and on success each unit carries out its declared
/// action (the first candidate of that kind the rules accept); on a command bonus each unit
/// then takes a second action, planned afresh (CMD-17: any kind). With `least`, the order is
/// not rolled when its modified command value (CMD-08..CMD-14) is below it.
pub fn execute_order(
    battle: &mut Battle,
    hq: PieceId,
    planned: &[PlannedUnit],
    d: &mut Driver,
    attempts: &mut usize,
    least: Option<i32>,
) -> OrderOutcome {
    let mut outcome = OrderOutcome::default();
    let mut declared: Vec<(OrderedUnit, usize)> = {
        let ctx = battle.ctx();
        planned.iter().filter_map(|u| declare(&ctx, u)).collect()
    };
    // CHG-08 (a): supporters act after the order's charges have made contact.
    declared.sort_by_key(|(o, _)| tactics::is_support(o.action));
    if declared.is_empty() {
        outcome.issued = true;
        return outcome;
    }
    if let Some(least) = least {
        let units: Vec<OrderedUnit> = declared.iter().map(|(o, _)| o.clone()).collect();
        if order_target(&battle.ctx(), hq, &units).map_or(true, |t| t < least) {
            return outcome;
        }
    }
    *attempts += 1;
    let order = Action::IssueOrder {
        command: hq,
        units: declared.iter().map(|(o, _)| o.clone()).collect(),
    };
    let t = battle.state().turn;
    let roll = match d.perform(battle, &order) {
        None => return outcome,
        Some(Ok(())) => battle.entries().last().and_then(|e| {
            e.events.iter().find_map(|e| match e {
                Event::OrderRolled(r) => {
                    outcome.target = Some(r.target);
                    Some(r.outcome)
                }
                _ => None,
            })
        }),
        Some(Err(error)) => {
            d.refusals.push(Refusal {
                game_turn: t.game_turn,
                phase: t.phase,
                action: order,
                error,
            });
            return outcome;
        }
    };
    let Some(roll) = roll.filter(|r| r.issued()) else {
        return outcome;
    };
    outcome.issued = true;
    outcome.bonus = roll == CmdOutcome::Bonus;
    for (o, first) in &declared {
        let Some(unit) = planned.iter().find(|u| u.piece == o.piece) else {
            continue;
        };
        let mut acted = false;
        for a in unit.candidates.iter().skip(*first) {
            if unit_action(a).map(|(_, k)| k) != Some(o.action)
                || !move_legal_now(battle, a)
                || !declared_target(a, o)
            {
                continue;
            }
            if *attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
                return outcome;
            }
            *attempts += 1;
            if d.attempt(battle, a.clone()) {
                acted = true;
                break;
            }
        }
        // MOVE-06: the ground it planned for was taken by a friend of the same order that moved
        // first; a fresh move of the same declaration (road and dense flags, CMD-11, CMD-12).
        if !acted && o.action == UnitActionKind::Move {
            let fresh = {
                let ctx = battle.ctx();
                plan_unit(&ctx, &Sight::new(), o.piece)
                    .into_iter()
                    .find(|a| same_declaration(&ctx, a, o))
            };
            if let Some(a) = fresh {
                if *attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
                    return outcome;
                }
                *attempts += 1;
                acted = d.attempt(battle, a);
            }
        }
        if acted {
            outcome.acted.push(o.piece);
        } else {
            outcome.refused.push(o.piece);
        }
    }
    // SEQ-04: the order's charges are fought after its actions (before a bonus's second).
    d.resolve_pending(battle);
    if outcome.bonus {
        for (o, _) in &declared {
            let candidates = {
                let ctx = battle.ctx();
                plan_unit(&ctx, &Sight::new(), o.piece)
            };
            for a in candidates {
                if !move_legal_now(battle, &a) || !d.allows(o.piece.side(), &a) {
                    continue;
                }
                if *attempts >= d.limits.max_actions_per_phase || Driver::over(battle) {
                    return outcome;
                }
                *attempts += 1;
                if d.attempt(battle, a) {
                    break;
                }
            }
        }
        d.resolve_pending(battle);
    }
    outcome
}

/// MOVE-01..MOVE-06: a move the engine's own check (`check_move`, no dice) accepts on the
/// table as it is now — units of the same order may have moved since it was planned. Other
/// actions pass (the engine checks them when performed).
fn move_legal_now(battle: &Battle, a: &Action) -> bool {
    match a {
        Action::Move {
            piece,
            via,
            to,
            manoeuvre,
        } => check_move(&battle.ctx(), *piece, via, *to, *manoeuvre).is_ok(),
        _ => true,
    }
}

/// FIRE-06, CMD-13: a fire or charge goes at the target declared in the order.
fn declared_target(a: &Action, o: &OrderedUnit) -> bool {
    match a {
        Action::Fire { target, .. } | Action::Charge { target, .. } => o.target == Some(*target),
        _ => true,
    }
}

/// A move legal now whose road and dense flags are those declared in the order (CMD-11,
/// CMD-12), so the declaration stays honest.
fn same_declaration(ctx: &Ctx, a: &Action, o: &OrderedUnit) -> bool {
    let Action::Move {
        piece,
        via,
        to,
        manoeuvre,
    } = a
    else {
        return false;
    };
    let (Ok(plan), Ok(p)) = (
        check_move(ctx, *piece, via, *to, *manoeuvre),
        ctx.piece(*piece),
    ) else {
        return false;
    };
    let mut pts = vec![plan.from.at];
    pts.extend(plan.path.iter().copied());
    pts.push(plan.to.at);
    plan.road_bonus == o.road && meets_dense(ctx, p, &pts) == o.dense
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
