//! A battle: the scenario, the state on the table and the log of actions with their events.
//!
//! `perform` runs one action through check → resolve → apply. The log's entries before its
//! cursor are the battle; undo moves the cursor back and rebuilds the state from the events,
//! redo moves it forward again, and a new action drops the redo tail. The dice stream is
//! positioned by how many dice the kept entries used, so the same seed and the same actions
//! always give the same battle.

use super::action::Action;
use super::apply::{apply, apply_all};
use super::dice::{self, Dice, DiceSource};
use super::endphase::Staged;
use super::error::{ActionError, RuleError};
use super::event::{EndReason, Event};
use super::state::{BattleState, Formation, Phase, PieceId, PieceState, SetupError};
use super::visibility::SightCache;
use crate::model::{Arm, ArmyList, Move, Period, RowGrade, RuleEffect, Scenario, TroopType};
use serde::{Deserialize, Serialize};

/// The version of the battle-log format.
pub const LOG_FORMAT: u32 = 1;

/// One performed action and what it produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    pub action: Action,
    pub events: Vec<Event>,
    /// Dice drawn while resolving this action.
    pub dice_used: usize,
    /// The dice a person rolled on the table and typed in for this action, in the order used
    /// (a battle with physical dice); `None` when they came from the battle's own source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_dice: Option<Vec<u8>>,
}

/// The log a store saves and a replay reads (ARCHITECTURE.md "event-sourced and replayable").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BattleLog {
    pub format: u32,
    pub rules_version: String,
    pub dice: DiceSource,
    pub first_player: usize,
    /// SEQ-01: the roll-off for the first move, a pair of dice (side 1's, side 2's) a round,
    /// the first dice of the battle's stream; empty when the scenario or the players named the
    /// first player (and in every log from before roll-offs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roll_off: Vec<[u8; 2]>,
    pub entries: Vec<LogEntry>,
    /// Entries before the cursor are in effect; those after it can be redone.
    pub cursor: usize,
    /// How the battle treats orders (INIT, CMD); logs from before orders were free.
    #[serde(default = "super::command::OrdersMode::legacy")]
    pub orders: super::command::OrdersMode,
}

/// The read-only view rules code checks against.
pub struct Ctx<'a> {
    pub scenario: &'a Scenario,
    pub lists: &'a [ArmyList],
    pub state: &'a BattleState,
    /// The battle's memo of sight indexes (None: every sight question builds its own index).
    /// It must belong to this scenario and these lists.
    pub sight: Option<&'a SightCache>,
}

impl<'a> Ctx<'a> {
    /// A context without a sight memo.
    pub fn new(scenario: &'a Scenario, lists: &'a [ArmyList], state: &'a BattleState) -> Ctx<'a> {
        Ctx {
            scenario,
            lists,
            state,
            sight: None,
        }
    }

    /// The same scenario, lists and sight memo over another state (a state derived from this
    /// one while an action resolves).
    pub fn with_state<'b>(&self, state: &'b BattleState) -> Ctx<'b>
    where
        'a: 'b,
    {
        Ctx {
            scenario: self.scenario,
            lists: self.lists,
            state,
            sight: self.sight,
        }
    }

    pub fn piece(&self, id: PieceId) -> Result<&'a PieceState, RuleError> {
        self.state
            .piece(id)
            .ok_or_else(|| RuleError::new("GEN-09", format!("there is no {id} in this battle")))
    }

    pub fn list(&self, side: usize) -> Option<&'a ArmyList> {
        let s = self.scenario.sides.get(side)?;
        self.lists.iter().find(|l| l.id == s.army_list)
    }

    /// The troop row of a unit (`None` for command units).
    pub fn row(&self, piece: &PieceState) -> Option<&'a TroopType> {
        let list = self.list(piece.id.side())?;
        list.troop_type(piece.troop_type.as_ref()?)
    }

    /// Whether a unit's row carries an effect through its notes.
    pub fn has_effect(&self, piece: &PieceState, pred: impl Fn(&RuleEffect) -> bool) -> bool {
        match (self.list(piece.id.side()), self.row(piece)) {
            (Some(list), Some(row)) => list.row_effects(row).any(pred),
            _ => false,
        }
    }
}

/// A battle in progress.
pub struct Battle {
    scenario: Scenario,
    lists: Vec<ArmyList>,
    initial: BattleState,
    state: BattleState,
    log: BattleLog,
    dice: Box<dyn Dice>,
    /// Sight indexes of recent states (a memo; never saved).
    sight: SightCache,
}

/// The most rounds a roll-off may take (SEQ-01): fair dice tie twenty times running about
/// once in 4·10¹⁵ roll-offs, so only a script of ties reaches it.
pub const ROLL_OFF_ROUNDS: usize = 20;

/// SEQ-01: a roll-off for the first move. Each side rolls a d6, side 1 first; the higher moves
/// first and a tie rolls again. Gives the side and every round's pair of dice.
pub fn roll_off(dice: &mut dyn Dice) -> Result<(usize, Vec<[u8; 2]>), SetupError> {
    let mut rounds = Vec::new();
    while rounds.len() < ROLL_OFF_ROUNDS {
        let a = roll_off_die(dice, 1)?;
        let b = roll_off_die(dice, 2)?;
        rounds.push([a, b]);
        if a != b {
            return Ok((usize::from(b > a), rounds));
        }
    }
    Err(SetupError::Dice(format!(
        "the roll-off for the first move tied {ROLL_OFF_ROUNDS} times running; name the side \
         that moves first"
    )))
}

fn roll_off_die(dice: &mut dyn Dice, side: usize) -> Result<u8, SetupError> {
    dice.d6(&format!("roll-off for the first move, side {side}"))
        .map_err(|e| SetupError::Dice(e.to_string()))
}

/// SEQ-01: a recorded roll-off (a log's or a battle file's) that is not one: a die that is no
/// d6 result, a round after the deciding one, or a winner other than the first player.
fn check_roll_off(rounds: &[[u8; 2]], first_player: usize) -> Result<(), SetupError> {
    let bad = |why: String| Err(SetupError::Dice(format!("the recorded roll-off {why}")));
    if rounds.len() > ROLL_OFF_ROUNDS {
        return bad(format!(
            "has {} rounds, more than {ROLL_OFF_ROUNDS}",
            rounds.len()
        ));
    }
    for (k, [a, b]) in rounds.iter().enumerate() {
        if !(1..=6).contains(a) || !(1..=6).contains(b) {
            return bad(format!(
                "round {} holds {a} and {b}, not two d6 results",
                k + 1
            ));
        }
        let last = k + 1 == rounds.len();
        if last == (a == b) {
            return bad(format!(
                "round {} ({a}–{b}) {}",
                k + 1,
                if last {
                    "is a tie, so it decides nothing"
                } else {
                    "decided it, yet more rounds follow"
                }
            ));
        }
        if last && usize::from(b > a) != first_player.min(1) {
            return bad(format!(
                "was won by side {}, but side {} is recorded as moving first",
                usize::from(b > a) + 1,
                first_player.min(1) + 1
            ));
        }
    }
    Ok(())
}

impl Battle {
    /// Sets up the table from a scenario with `first_player` moving first (SEQ-01: named by the
    /// scenario, or by the players after a roll-off on their own table).
    pub fn new(
        scenario: Scenario,
        lists: Vec<ArmyList>,
        dice: DiceSource,
        first_player: usize,
    ) -> Result<Battle, SetupError> {
        Battle::set_up(scenario, lists, dice, first_player, Vec::new())
    }

    /// Sets up the table with the sides rolling off for the first move (SEQ-01, [`roll_off`]):
    /// the roll-off takes the first dice of the battle's stream and is in its log. A battle with
    /// physical dice rolls off on the table and is set up with [`Battle::new`].
    pub fn rolled_off(
        scenario: Scenario,
        lists: Vec<ArmyList>,
        dice: DiceSource,
    ) -> Result<Battle, SetupError> {
        if dice == DiceSource::Physical {
            return Err(SetupError::Dice(
                "a battle with physical dice rolls off for the first move on the table; name \
                 the side that won"
                    .to_string(),
            ));
        }
        let mut source = dice::open(&dice, 0).map_err(|e| SetupError::Dice(e.to_string()))?;
        let (first, rounds) = roll_off(source.as_mut())?;
        Battle::set_up(scenario, lists, dice, first, rounds)
    }

    /// Sets up the table as the scenario says (SEQ-01): its named first player, or else a
    /// roll-off.
    pub fn opening(
        scenario: Scenario,
        lists: Vec<ArmyList>,
        dice: DiceSource,
    ) -> Result<Battle, SetupError> {
        match scenario.first_player {
            Some(first) => Battle::new(scenario, lists, dice, first),
            None => Battle::rolled_off(scenario, lists, dice),
        }
    }

    /// Sets up the table after a recorded roll-off (a stored log's, a battle file's): the
    /// rounds must be a roll-off that `first_player` won and, for a battle that rolls its own
    /// dice, the first dice of its stream; the stream goes on after them.
    pub fn after_roll_off(
        scenario: Scenario,
        lists: Vec<ArmyList>,
        dice: DiceSource,
        first_player: usize,
        rounds: &[[u8; 2]],
    ) -> Result<Battle, SetupError> {
        check_roll_off(rounds, first_player)?;
        if !rounds.is_empty() && dice != DiceSource::Physical {
            let mut source = dice::open(&dice, 0).map_err(|e| SetupError::Dice(e.to_string()))?;
            let (_, again) = roll_off(source.as_mut())?;
            if again.as_slice() != rounds {
                return Err(SetupError::Dice(format!(
                    "the recorded roll-off {rounds:?} is not what this battle's dice rolled \
                     ({again:?})"
                )));
            }
        }
        Battle::set_up(scenario, lists, dice, first_player, rounds.to_vec())
    }

    fn set_up(
        scenario: Scenario,
        lists: Vec<ArmyList>,
        dice: DiceSource,
        first_player: usize,
        roll_off: Vec<[u8; 2]>,
    ) -> Result<Battle, SetupError> {
        let initial = BattleState::setup(&scenario, &lists, first_player)?;
        let source =
            dice::open(&dice, 2 * roll_off.len()).map_err(|e| SetupError::Dice(e.to_string()))?;
        Ok(Battle {
            sight: SightCache::default(),
            state: initial.clone(),
            initial,
            scenario,
            lists,
            log: BattleLog {
                format: LOG_FORMAT,
                rules_version: super::RULES_VERSION.to_string(),
                dice,
                first_player: first_player.min(1),
                roll_off,
                entries: Vec::new(),
                cursor: 0,
                orders: super::command::OrdersMode::default(),
            },
            dice: source,
        })
    }

    /// The battle under another orders mode (INIT, CMD: `free` is the referee's mode, where
    /// command is rolled on the table). Only before the first action; later it changes nothing.
    pub fn with_orders(mut self, mode: super::command::OrdersMode) -> Battle {
        if self.log.entries.is_empty() {
            self.initial.command.mode = mode;
            self.state.command.mode = mode;
            self.sight.owner_changed();
            self.log.orders = mode;
        }
        self
    }

    pub fn state(&self) -> &BattleState {
        &self.state
    }

    pub fn initial_state(&self) -> &BattleState {
        &self.initial
    }

    pub fn log(&self) -> &BattleLog {
        &self.log
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn lists(&self) -> &[ArmyList] {
        &self.lists
    }

    /// The entries in effect.
    pub fn entries(&self) -> &[LogEntry] {
        self.log.entries.get(..self.log.cursor).unwrap_or(&[])
    }

    /// Every event in effect, in order.
    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.entries().iter().flat_map(|e| e.events.iter())
    }

    pub fn ctx(&self) -> Ctx<'_> {
        self.sight.owner_state(&self.state);
        Ctx {
            scenario: &self.scenario,
            lists: &self.lists,
            state: &self.state,
            sight: Some(&self.sight),
        }
    }

    /// A copy of the dice stream where it stands: the engine API's dry runs (`api`) draw from
    /// it, and the battle's own stream does not move.
    pub(crate) fn dice_copy(&self) -> Box<dyn Dice> {
        self.dice.boxed_clone()
    }

    /// Checks, resolves and applies one action. On any error nothing changes — neither the
    /// state, nor the log, nor the dice stream. A battle with physical dice takes its dice with
    /// each action ([`Battle::perform_with_dice`]); here it refuses any action that rolls.
    pub fn perform(&mut self, action: Action) -> Result<&[Event], ActionError> {
        let before = self.dice.used();
        let saved = self.dice.boxed_clone();
        self.sight.owner_state(&self.state);
        let ctx = Ctx {
            scenario: &self.scenario,
            lists: &self.lists,
            state: &self.state,
            sight: Some(&self.sight),
        };
        let events = match resolve_bare(&ctx, &action, self.dice.as_mut()) {
            Ok(ev) => ev,
            Err(e) => {
                // Put the stream back where it was: a refused action draws no dice.
                self.dice = saved;
                return Err(e);
            }
        };
        let dice_used = self.dice.used() - before;
        Ok(self.commit(action, events, dice_used, None))
    }

    /// Performs an action with dice rolled on a real table, in the order the rules ask for them
    /// (a battle whose dice source is [`DiceSource::Physical`]). The dice must be exactly those
    /// the action uses: too few, too many or a value that is no d6 result is refused with what
    /// the action needs and what for, and nothing changes.
    pub fn perform_with_dice(
        &mut self,
        action: Action,
        dice: &[u8],
    ) -> Result<&[Event], ActionError> {
        if self.log.dice != DiceSource::Physical {
            return Err(RuleError::new(
                "SEQ-01",
                "this battle rolls its own dice; typed-in dice are for a battle played with physical dice",
            )
            .into());
        }
        let ctx = self.ctx();
        let mut script = dice::ScriptedDice::new(dice.to_vec())?;
        let events = match resolve_bare(&ctx, &action, &mut script) {
            Ok(ev) => ev,
            Err(ActionError::Dice(dice::DiceError::Exhausted { .. })) => {
                // Too few: a dry run with stand-ins past the dice given says what it needs.
                let mut probe = dice::ProbeDice::new(dice);
                let _ = resolve_bare(&ctx, &action, &mut probe);
                return Err(dice::DiceError::Needed {
                    given: dice.len(),
                    needs: dice::group_purposes(&probe.purposes),
                }
                .into());
            }
            Err(e) => return Err(e),
        };
        let used = script.used();
        if used != dice.len() {
            let mut probe = dice::ProbeDice::new(dice);
            let _ = resolve_bare(&ctx, &action, &mut probe);
            return Err(dice::DiceError::TooMany {
                given: dice.len(),
                used,
                needs: dice::group_purposes(&probe.purposes),
            }
            .into());
        }
        // The physical source only counts the dice of the battle.
        self.dice = dice::open(&DiceSource::Physical, self.dice_position() + used)?;
        Ok(self.commit(action, events, used, Some(dice.to_vec())))
    }

    /// What an action would draw dice for, after the dice `given` (a dry run: stand-in dice
    /// past those given, so later counts are an estimate where they depend on earlier rolls).
    /// Nothing changes. A refusal under the rules is returned as it is.
    pub fn dice_needed(
        &self,
        action: &Action,
        given: &[u8],
    ) -> Result<Vec<(String, usize)>, ActionError> {
        let ctx = self.ctx();
        let mut probe = dice::ProbeDice::new(given);
        resolve_bare(&ctx, action, &mut probe)?;
        Ok(dice::group_purposes(&probe.purposes))
    }

    /// How many dice the actions in effect have used: where the dice stream stands.
    pub fn dice_position(&self) -> usize {
        2 * self.log.roll_off.len() + self.entries().iter().map(|e| e.dice_used).sum::<usize>()
    }

    /// Applies a resolved action's events with the reveals they call for (VIS-17) and records it
    /// (the redo tail goes).
    fn commit(
        &mut self,
        action: Action,
        events: Vec<Event>,
        dice_used: usize,
        hand_dice: Option<Vec<u8>>,
    ) -> &[Event] {
        let mut events = events;
        // VIS-17: the dug-in units as they stand before the action, then what it gave away of
        // them, worked out on the state with its events applied.
        let watch = super::reveal::RevealWatch::before(&self.ctx());
        apply_all(&mut self.state, &events);
        self.sight_changed(&events);
        if let Some(watch) = watch {
            let revealed = super::reveal::reveals(watch, &self.ctx());
            apply_all(&mut self.state, &revealed);
            self.sight_changed(&revealed);
            events.extend(revealed);
        }
        self.log_entry(LogEntry {
            action,
            events,
            dice_used,
            hand_dice,
        })
    }

    /// Logs an entry whose events are already applied to the state (the redo tail goes).
    fn log_entry(&mut self, entry: LogEntry) -> &[Event] {
        self.log.entries.truncate(self.log.cursor);
        self.log.entries.push(entry);
        self.log.cursor = self.log.entries.len();
        self.log
            .entries
            .last()
            .map_or(&[][..], |e| e.events.as_slice())
    }

    /// Tells the sight memo what `events`, just applied to the state, changed.
    fn sight_changed(&mut self, events: &[Event]) {
        // Which pieces may look different to sight now (None: any).
        let mut touched: Option<Vec<PieceId>> = Some(Vec::new());
        for e in events {
            match (super::apply::changes_sight_of(e), touched.as_mut()) {
                (Some(ids), Some(t)) => t.extend_from_slice(ids),
                _ => touched = None,
            }
        }
        match touched {
            Some(ids) if ids.is_empty() => self.sight.owner_changed_but_not_for_sight(),
            Some(ids) => self.sight.owner_changed_for(ids),
            None => self.sight.owner_changed(),
        }
    }

    /// Records an entry resolved on a copy of this battle (the solo opponent plays on a worker
    /// thread, [`Battle::fork`]): its events are applied as they are, nothing is resolved or
    /// rolled again, and the dice stream moves past the dice it used. The redo tail goes, as
    /// with any new action.
    pub fn push_entry(&mut self, entry: LogEntry) -> &[Event] {
        let used = entry.dice_used;
        if self.log.dice == DiceSource::Physical {
            if let Ok(d) = dice::open(&DiceSource::Physical, self.dice_position() + used) {
                self.dice = d;
            }
        } else {
            for _ in 0..used {
                let _ = self.dice.d6("played elsewhere");
            }
        }
        // Its events are whole, the reveals they called for included: applied as they are.
        apply_all(&mut self.state, &entry.events);
        self.sight_changed(&entry.events);
        self.log_entry(entry)
    }

    /// An independent copy of this battle as it stands (its log, redo stack and dice stream's
    /// position), for a worker thread. Nothing is resolved again.
    pub fn fork(&self) -> Result<Battle, SetupError> {
        Battle::restore(self.scenario.clone(), self.lists.clone(), self.log.clone())
    }

    /// A battle rebuilt from a stored log without resolving anything again: the events of the
    /// entries in effect are applied to the scenario's opening state, the dice stream is placed
    /// after the dice they used, and the undone entries stay ready for redo. What a resumed
    /// battle is.
    pub fn restore(
        scenario: Scenario,
        lists: Vec<ArmyList>,
        log: BattleLog,
    ) -> Result<Battle, SetupError> {
        let fresh = Battle::after_roll_off(
            scenario,
            lists,
            log.dice.clone(),
            log.first_player,
            &log.roll_off,
        )?
        .with_orders(log.orders);
        let Battle {
            scenario,
            lists,
            initial,
            ..
        } = fresh;
        let cursor = log.cursor.min(log.entries.len());
        let mut state = initial.clone();
        let mut used = 2 * log.roll_off.len();
        for e in log.entries.get(..cursor).unwrap_or(&[]) {
            apply_all(&mut state, &e.events);
            used += e.dice_used;
        }
        let dice = dice::open(&log.dice, used).map_err(|e| SetupError::Dice(e.to_string()))?;
        Ok(Battle {
            scenario,
            lists,
            initial,
            state,
            log: BattleLog { cursor, ..log },
            dice,
            sight: SightCache::default(),
        })
    }

    /// Drops the last action in effect (it stays in the log for redo). False if none.
    pub fn undo(&mut self) -> bool {
        if self.log.cursor == 0 {
            return false;
        }
        self.log.cursor -= 1;
        self.rebuild();
        true
    }

    /// Re-applies the next undone action's events (no dice are rolled again). False if none.
    pub fn redo(&mut self) -> bool {
        let Some(entry) = self.log.entries.get(self.log.cursor) else {
            return false;
        };
        let used = entry.dice_used;
        apply_all(&mut self.state, &entry.events);
        self.sight.owner_changed();
        self.log.cursor += 1;
        if self.log.dice == DiceSource::Physical {
            if let Ok(d) = dice::open(&DiceSource::Physical, self.dice_position()) {
                self.dice = d;
            }
        } else {
            for _ in 0..used {
                let _ = self.dice.d6("redo");
            }
        }
        true
    }

    fn rebuild(&mut self) {
        let mut state = self.initial.clone();
        for e in self.entries() {
            apply_all(&mut state, &e.events);
        }
        self.state = state;
        self.sight.owner_changed();
        if let Ok(d) = dice::open(&self.log.dice, self.dice_position()) {
            self.dice = d;
        }
    }

    /// Folds the events of the entries in effect over the initial state: what a replay of the
    /// event log gives, which must always equal [`Battle::state`].
    pub fn replay_events(&self) -> BattleState {
        let mut s = self.initial.clone();
        for e in self.events() {
            apply(&mut s, e);
        }
        s
    }
}

/// Resolves an action into events, checking it first, with the reveals it calls for appended
/// (VIS-17, worked out on a copy of the state). The only place dice are rolled.
pub fn resolve(ctx: &Ctx, action: &Action, dice: &mut dyn Dice) -> Result<Vec<Event>, ActionError> {
    let events = resolve_bare(ctx, action, dice)?;
    Ok(super::reveal::append_reveals(ctx, events))
}

/// [`resolve`] without the reveals: [`Battle::perform`] works them out on its own state once
/// the events are applied (`commit`), and a check needs none (they draw no dice and refuse
/// nothing).
pub(crate) fn resolve_bare(
    ctx: &Ctx,
    action: &Action,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let _ = &dice; // firing, charges and command rolls draw here from the engine-II issue on
    if ctx.state.turn.phase == Phase::Over {
        return Err(RuleError::new("END-03", "the battle is over").into());
    }
    // CHG-01, INIT-03: units in an unresolved combat take no other action.
    match action {
        Action::Move { piece, .. }
        | Action::Deploy { piece, .. }
        | Action::Limber { piece }
        | Action::Unlimber { piece, .. }
        | Action::Dismount { piece, .. }
        | Action::Mount { piece }
        | Action::Prone { piece, .. }
        | Action::EngineerTask { piece, .. } => super::charge::check_not_engaged(ctx, *piece)?,
        Action::Fire { firers, .. }
        | Action::FireAtBridge { firers, .. }
        | Action::FireAtConstruction { firers, .. } => {
            for f in firers {
                // OPT-SABER-01: named before the general INIT-03 refusal.
                super::charge::check_no_saber_fire(ctx, *f)?;
                super::charge::check_not_engaged(ctx, *f)?;
            }
        }
        _ => {}
    }
    // OPT-SCOUT-02 (d): scouts never fire, charge or support.
    super::scouting::check_scout_action(ctx, action)?;
    // INIT, CMD: the orders gate for every unit action; its records and the command units'
    // shared fate (CMD-22, CMD-26) are added to the action's events.
    let pending = super::command::authorize(ctx, action)?;
    let events = dispatch(ctx, action, dice)?;
    super::command::finish(ctx, pending, events)
}

fn dispatch(ctx: &Ctx, action: &Action, dice: &mut dyn Dice) -> Result<Vec<Event>, ActionError> {
    match action {
        Action::EndPhase => resolve_end_phase(ctx, dice),
        Action::Deploy { piece, formation } => {
            check_deploy(ctx, *piece, *formation)?;
            let p = ctx.piece(*piece)?;
            let mut ev = vec![Event::FormationChanged {
                piece: *piece,
                from: p.formation,
                to: Some(*formation),
            }];
            // SKIR-02: march column or square removes the brigade's skirmisher screen.
            ev.extend(super::skirmish::removal_on_deploy(ctx, p, *formation));
            Ok(ev)
        }
        Action::Limber { piece } => {
            check_limber(ctx, *piece, true)?;
            Ok(vec![Event::Limbered { piece: *piece }])
        }
        Action::Unlimber { piece, facing_deg } => {
            check_limber(ctx, *piece, false)?;
            Ok(vec![Event::Unlimbered {
                piece: *piece,
                facing_deg: *facing_deg,
            }])
        }
        Action::Move {
            piece,
            via,
            to,
            manoeuvre,
        } => super::command::resolve_move(ctx, *piece, via, *to, *manoeuvre),
        Action::Fire {
            firers,
            target,
            ammunition,
        } if super::scouting::is_active_scout(ctx.state, *target) => {
            // OPT-SCOUT-03: a scout fired at withdraws; no dice.
            super::scouting::resolve_fired_at(ctx, firers, *target, *ammunition)
        }
        Action::Charge {
            chargers, target, ..
        } if super::scouting::is_active_scout(ctx.state, *target) => {
            super::scouting::resolve_charged(ctx, chargers, *target)
        }
        Action::Fire {
            firers,
            target,
            ammunition,
        } => super::firing::resolve_fire(ctx, firers, *target, *ammunition, dice),
        Action::Concede { side } => {
            if *side > 1 {
                return Err(
                    RuleError::new("END-03", format!("there is no side {}", side + 1)).into(),
                );
            }
            let mut staged = Staged::new(ctx);
            staged.push(Event::Conceded { side: *side });
            staged.end_battle(EndReason::Concession);
            Ok(staged.into_events())
        }
        Action::RemoveUnit { piece, cause } => {
            super::victory::resolve_remove_unit(ctx, *piece, cause.clone())
        }
        Action::RemoveDefense {
            side,
            defense,
            cause,
        } => super::victory::resolve_remove_defense(ctx, *side, *defense, *cause),
        Action::DeclareObjective { side, level } => {
            super::victory::resolve_declare_objective(ctx, *side, *level)
        }
        Action::IssueOrder { command, units } => {
            super::command::resolve_issue_order(ctx, *command, units, dice)
        }
        Action::OpportunityFire { firers, target, at } => {
            super::command::resolve_opportunity_fire(ctx, firers, *target, *at, dice)
        }
        Action::SelfOrder { piece } => super::command::resolve_self_order(ctx, *piece, dice),
        Action::ReplaceCommand { piece, at } => {
            super::command::resolve_replace_command(ctx, *piece, *at)
        }
        Action::Charge {
            chargers,
            target,
            saber,
        } => super::charge::resolve_charge_as(ctx, chargers, *target, *saber),
        Action::Respond {
            piece,
            target,
            response,
        } => super::charge::resolve_respond(ctx, *piece, *target, response, dice),
        Action::CloseResponse { target } => super::charge::resolve_close_response(ctx, *target),
        Action::Support { piece, friend } => super::charge::resolve_support(ctx, *piece, *friend),
        Action::ResolveCharge { target } => super::charge::resolve_combat(ctx, *target, dice),
        Action::Consolidate { piece, to } => super::charge::resolve_consolidate(ctx, *piece, *to),
        Action::Evade {
            piece,
            facing_deg,
            mount,
        } => super::charge::resolve_evade(ctx, *piece, *facing_deg, *mount),
        Action::EngineerTask { piece, task, at } => {
            super::engineering::resolve_engineer_task(ctx, *piece, *task, *at, dice)
        }
        Action::FireAtBridge { firers, work } => {
            super::engineering::resolve_fire_at_bridge(ctx, firers, *work, dice)
        }
        Action::FireAtConstruction {
            firers,
            construction,
            at,
        } => {
            super::construction::resolve_fire_at_construction(ctx, firers, *construction, *at, dice)
        }
        Action::Dismount { piece, troop_type } => {
            super::dismount::resolve_dismount(ctx, *piece, troop_type.as_ref())
        }
        Action::Mount { piece } => super::dismount::resolve_mount(ctx, *piece),
        Action::RollStartingWeather => super::weather::resolve_roll_starting_weather(ctx, dice),
        Action::RefuseFlank {
            piece,
            left_deg,
            right_deg,
        } => super::flank::resolve_refuse_flank(ctx, *piece, *left_deg, *right_deg),
        Action::Adjust { piece, set } => super::referee::resolve_adjust(ctx, *piece, set),
        Action::Prone { piece, prone } => super::prone::resolve_prone(ctx, *piece, *prone),
        Action::DeployScout { piece, at } => {
            super::scouting::resolve_deploy_scout(ctx, *piece, *at)
        }
        Action::LaunchScout { command, scout } => {
            super::scouting::resolve_launch_scout(ctx, *command, *scout, dice)
        }
        Action::Communicate { command, partner } => {
            super::comms::resolve_communicate(ctx, *command, *partner, dice)
        }
        Action::Transfer { piece, to_hq, at } => {
            super::allegiance::resolve_transfer(ctx, *piece, *to_hq, *at, dice)
        }
    }
}

/// SEQ-02 / SEQ-03 / SEQ-05, END-01..END-03, BRK-02, BRK-03: the phase machine. Ending an
/// Initiative phase runs out disorder (SEQ-05); ending the End phase turns hits into stand
/// losses and lifts old suppression (END-01, END-02); after the second player's End phase the
/// battle may end (END-03, BRK-03); a new player turn opens with the breakpoint test when due
/// (BRK-02). Every step sees the events of the steps before it.
pub fn resolve_end_phase(ctx: &Ctx, dice: &mut dyn Dice) -> Result<Vec<Event>, ActionError> {
    use super::endphase::{begin_player_turn, end_of_player_turn, expire_disorder, game_turn_end};
    let t = ctx.state.turn;
    super::charge::check_end_phase(ctx)?;
    if t.phase == Phase::Charge {
        // SEQ-04 (3): contacts left without a resolved combat are fought before the phase ends.
        let ev = super::charge::contacts_without_combat(ctx);
        if !ev.is_empty() {
            return Ok(ev);
        }
    }
    let mut staged = Staged::new(ctx);
    match t.phase {
        Phase::Initiative => {
            staged.extend(expire_disorder(ctx));
            // ENG-02: the phase's engineering tasks stand or are cancelled.
            staged.extend(super::engineering::end_initiative(ctx));
        }
        Phase::End => staged.extend(end_of_player_turn(ctx)?),
        _ => {}
    }
    staged.push(Event::PhaseEnded { phase: t.phase });
    if let Some(next) = t
        .phase
        .next_in_turn()
        .filter(|_| t.phase != Phase::Deployment)
    {
        staged.push(Event::PhaseBegan { phase: next });
        if next == Phase::Charge {
            // SEQ-04 (3): opposing units left in base contact fight in the Charge phase.
            let ev = super::charge::contacts_without_combat(&staged.ctx());
            staged.extend(ev);
        }
        return Ok(staged.into_events());
    }
    // Deployment over, or End over: the next player turn.
    let second_player_done = t.player_turn > 0 && t.active != t.first_player;
    if second_player_done {
        staged.push(Event::GameTurnEnded {
            game_turn: t.game_turn,
        });
        // OPT-WEATHER-04 (SEQ-05): the weather-change roll, before the turn-limit check.
        let weather = super::weather::end_of_game_turn(ctx.scenario, staged.state(), dice)?;
        staged.extend(weather);
        if let Some(reason) = game_turn_end(staged.state(), ctx.scenario) {
            staged.end_battle(reason);
            return Ok(staged.into_events());
        }
    }
    begin_player_turn(&mut staged, dice)?;
    Ok(staged.into_events())
}

/// A piece may act only for the active side, in a phase where it may be given actions.
pub fn check_may_act(ctx: &Ctx, piece: &PieceState) -> Result<(), RuleError> {
    let t = ctx.state.turn;
    if piece.knocked_out {
        return Err(RuleError::new(
            "GEN-12",
            format!("{} has been knocked out", piece.name),
        ));
    }
    if piece.pose.is_none() {
        return Err(RuleError::new(
            "SEQ-01",
            format!("{} is not on the table", piece.name),
        ));
    }
    if t.phase == Phase::Deployment {
        return Ok(());
    }
    if piece.id.side() != t.active {
        return Err(RuleError::new(
            "SEQ-02",
            format!(
                "{} belongs to the inactive side; it is not its player turn",
                piece.name
            ),
        ));
    }
    if !matches!(t.phase, Phase::Initiative | Phase::Command) {
        return Err(RuleError::new(
            "SEQ-03",
            format!(
                "units act in the Initiative and Command phases, not in the {} phase",
                t.phase.label()
            ),
        ));
    }
    // ENG-02: engineers that carried out a task this turn may not be ordered in it.
    if t.phase == Phase::Command {
        super::engineering::check_not_tasked(ctx, piece)?;
    }
    Ok(())
}

/// MOVE-10: the formation-change table (from → to), as a pure function the UI also reads.
pub fn formation_change_allowed(from: Formation, to: Formation) -> bool {
    use Formation::*;
    match (from, to) {
        // Nobody deploys into disorder; only the charge rules put a unit there.
        (_, Disordered) => false,
        (a, b) if a == b => false,
        (Line, AttackColumn) => false,
        (Line, _) => true,
        (ExtendedLine, Line) => true,
        (ExtendedLine, _) => false,
        (_, ExtendedLine) => false,
        (MarchColumn | AttackColumn | Square | Disordered, _) => true,
    }
}

/// MOVE-16: may this unit form square at all?
pub fn may_form_square(ctx: &Ctx, piece: &PieceState) -> Result<(), RuleError> {
    let Some(row) = ctx.row(piece) else {
        return Err(RuleError::new(
            "MOVE-09",
            format!("{} has no formations", piece.name),
        ));
    };
    let list = ctx.list(piece.id.side());
    if row.arm == Arm::Cavalry {
        return Err(RuleError::new("MOVE-16", "cavalry may not form square"));
    }
    if list.is_some_and(|l| l.period == Period::Acw) {
        return Err(RuleError::new(
            "MOVE-16",
            "squares are not formed in American Civil War games",
        ));
    }
    if ctx.scenario.year.is_some_and(|y| y < 1760) {
        return Err(RuleError::new(
            "MOVE-16",
            "squares are not formed before 1760",
        ));
    }
    let poor = row.grade == RowGrade::Poor || piece.grade == crate::model::Grade::Poor;
    let no_square = ctx.has_effect(piece, |e| matches!(e, RuleEffect::NoSquare));
    let native = list.is_some_and(|l| l.period == Period::Colonial)
        && (row.name.starts_with("Native") || row.name.starts_with("Zulu"));
    if poor || no_square || native {
        return Err(RuleError::new(
            "MOVE-16",
            format!(
                "{} is poorly trained or irregular foot and may not form square",
                piece.name
            ),
        ));
    }
    Ok(())
}

/// MOVE-09, MOVE-10, MOVE-12, MOVE-16: a Deploy into a new formation.
pub fn check_deploy(ctx: &Ctx, id: PieceId, to: Formation) -> Result<(), RuleError> {
    let piece = ctx.piece(id)?;
    check_may_act(ctx, piece)?;
    let Some(from) = piece.formation else {
        return Err(RuleError::new(
            "MOVE-09",
            format!(
                "{} has no movement formation (artillery, transport and command units have none)",
                piece.name
            ),
        ));
    };
    if !formation_change_allowed(from, to) {
        return Err(RuleError::new(
            "MOVE-10",
            format!(
                "{} may not change from {} to {}",
                piece.name,
                from.label(),
                to.label()
            ),
        ));
    }
    if to == Formation::Square {
        may_form_square(ctx, piece)?;
    }
    if to == Formation::ExtendedLine {
        let acw_poor = piece.grade == crate::model::Grade::Poor
            && ctx.list(id.side()).is_some_and(|l| l.period == Period::Acw);
        if acw_poor {
            return Err(RuleError::new(
                "ARMY-09",
                format!(
                    "{} is poor and may not skirmish in extended line (ACW rule 1)",
                    piece.name
                ),
            ));
        }
    }
    Ok(())
}

/// MOVE-20, MOVE-23, COL-03: limbering and unlimbering guns.
pub fn check_limber(ctx: &Ctx, id: PieceId, limber: bool) -> Result<(), RuleError> {
    let piece = ctx.piece(id)?;
    check_may_act(ctx, piece)?;
    let Some(row) = ctx.row(piece).filter(|r| r.arm == Arm::Artillery) else {
        return Err(RuleError::new(
            "MOVE-20",
            format!("{} is not artillery", piece.name),
        ));
    };
    // COL-03, §5.5 ruling and Colonial note 22: Colonial guns (Move "-") move only by limber,
    // so they may limber; siege and fortress guns (and other Move 0 rows) never do.
    let colonial = ctx
        .list(id.side())
        .is_some_and(|l| l.period == Period::Colonial);
    if (row.movement == Move::Immobile && !colonial)
        || ctx.has_effect(piece, |e| matches!(e, RuleEffect::NeverMoves))
    {
        return Err(RuleError::new(
            "COL-03",
            format!("{} cannot move: its guns are never limbered", piece.name),
        ));
    }
    match (limber, piece.limbered) {
        (true, true) => Err(RuleError::new(
            "MOVE-20",
            format!("{} is already limbered", piece.name),
        )),
        (false, false) => Err(RuleError::new(
            "MOVE-20",
            format!("{} is already unlimbered", piece.name),
        )),
        _ => Ok(()),
    }
}
