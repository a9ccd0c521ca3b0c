//! A battle session: one stored battle, played action by action, with every action committed
//! to the store as it happens.
//!
//! The session owns a [`Battle`] (the engine) and knows the battle's row in the store; the
//! store is handed to each call, so the window and the command line share one open database.
//! What it promises:
//! - **The store is the truth.** Each performed action, undo and redo is one entry of the
//!   battle's append-only log, written in one transaction with the battle's progress (turn,
//!   phase, status, result). When a write fails, the session rebuilds itself from the store, so
//!   what the player sees is always what is stored; a crash loses at most the action in flight.
//! - **Undo and redo are entries, not deletions**: the stored log is the whole audit trail of
//!   the table, and [`Session::resume`] rebuilds exactly the battle and the redo stack the
//!   player left (`store::fold_log`, `Battle::restore`: events applied, nothing rolled again).
//! - **Physical dice**: a referee's battle takes the dice rolled on the table with each action;
//!   wrong dice are refused with what the action needs, and nothing changes.
//! - **The solo opponent** decides through the same door as a person; each of its actions is
//!   stored as it is made.
//!
//! Layering: above `rules`, `ai` and `store`; below `app` and `cli`. No egui.

use crate::ai::{self, AutoplayRun, Limits, Until};
use crate::model::army::ArmyList;
use crate::model::scenario::Scenario;
use crate::model::validate::Violation;
use crate::rules::action::Action;
use crate::rules::battle::{Battle, BattleLog, LogEntry};
use crate::rules::command::OrdersMode;
use crate::rules::dice::DiceSource;
use crate::rules::error::ActionError;
use crate::rules::event::Event;
use crate::rules::state::{Phase, SetupError};
use crate::rules::victory::BattleResult;
use crate::store::{
    fold_log, fold_log_with_actors, Actor, BattleProgress, BattleRecord, BattleSetup, BattleStatus,
    LogRecord, PlayMode, Store, StoreError,
};
use serde_json::{json, Value};

pub mod balance;
pub mod campaign;
pub mod worker;

/// Why a session call did nothing.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The rules refused the action (or its dice); nothing changed, nothing was stored.
    #[error(transparent)]
    Action(#[from] ActionError),
    /// The battle cannot start or be rebuilt.
    #[error("the battle cannot be set up: {0}")]
    Setup(#[from] SetupError),
    /// The scenario breaks army-building rules; the battle starts only when asked to go ahead.
    #[error("the scenario breaks army-building rules (start anyway to play it as it is):\n{}", list(.0))]
    Warnings(Vec<String>),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stored log does not make a battle (written by a newer build, or changed by hand).
    #[error("battle {id}: the stored log cannot be replayed: {why}")]
    Log { id: i64, why: String },
}

fn list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("  - {s}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// How a new battle is played.
#[derive(Debug, Clone, PartialEq)]
pub struct NewBattle {
    pub dice: DiceSource,
    pub orders: OrdersMode,
    /// SEQ-01: the side that moves first; `None` when the sides roll off for it with the
    /// battle's own dice (a battle with physical dice names the side that won on the table).
    pub first_player: Option<usize>,
    pub mode: PlayMode,
    /// Start although the scenario breaks army-building rules (they are listed as warnings).
    pub go_ahead: bool,
    /// Fog of war (`rules::fog`); ignored for modes that do not offer it
    /// ([`PlayMode::offers_fog`]).
    pub fog: bool,
}

/// The army-building problems of a scenario, shown before a battle starts (warnings: the
/// battle starts when asked to go ahead). Table problems (DATA-04..DATA-12) are not warnings:
/// the battle's setup refuses them.
pub fn start_warnings(scenario: &Scenario, lists: &[ArmyList]) -> Vec<Violation> {
    crate::model::validate::start_warnings(scenario, lists)
}

/// One battle in play.
pub struct Session {
    record: BattleRecord,
    battle: Battle,
}

/// The lists a scenario's sides use, in side order (what a battle keeps a copy of).
fn lists_of(scenario: &Scenario, lists: &[ArmyList]) -> Vec<ArmyList> {
    let mut out: Vec<ArmyList> = Vec::new();
    for side in &scenario.sides {
        if out.iter().any(|l| l.id == side.army_list) {
            continue;
        }
        if let Some(l) = lists.iter().find(|l| l.id == side.army_list) {
            out.push(l.clone());
        }
    }
    out
}

impl Session {
    /// Starts and stores a new battle of `scenario`. Placement or geometry errors refuse it;
    /// army-building violations refuse it unless `go_ahead` (they are the warnings a player
    /// sees first).
    pub fn start(
        store: &mut Store,
        scenario: Scenario,
        lists: &[ArmyList],
        new: &NewBattle,
    ) -> Result<Session, SessionError> {
        let used = lists_of(&scenario, lists);
        // Set the battle up first: a table the engine refuses (units off the table, on each
        // other, in impassable ground; broken shapes) is never stored, go ahead or not.
        let battle = match new.first_player {
            Some(first) => Battle::new(scenario.clone(), used.clone(), new.dice.clone(), first),
            None => Battle::rolled_off(scenario.clone(), used.clone(), new.dice.clone()),
        }?
        .with_orders(new.orders);
        let warnings = start_warnings(&scenario, &used);
        if !warnings.is_empty() && !new.go_ahead {
            return Err(SessionError::Warnings(
                warnings.iter().map(ToString::to_string).collect(),
            ));
        }
        let setup = BattleSetup {
            scenario,
            lists: used,
            dice: new.dice.clone(),
            orders: new.orders,
            first_player: battle.log().first_player,
            roll_off: battle.log().roll_off.clone(),
            mode: new.mode,
            rules_version: crate::rules::RULES_VERSION.to_string(),
            fog: new.fog && new.mode.offers_fog(),
        };
        let id = store.create_battle(&setup)?;
        let record = store.battle(id)?;
        Ok(Session { record, battle })
    }

    /// Rebuilds a stored battle exactly as it was left: the actions in effect, the redo stack
    /// and the dice stream's position. Nothing is rolled or resolved again.
    pub fn resume(store: &Store, id: i64) -> Result<Session, SessionError> {
        let record = store.battle(id)?;
        let lists = match &record.lists {
            Some(l) => l.clone(),
            None => lists_of(&record.scenario, &store.army_lists()?),
        };
        let records = store.battle_records(id)?;
        let (entries, cursor) = fold_log(&records).map_err(|why| SessionError::Log { id, why })?;
        let log = BattleLog {
            format: crate::rules::battle::LOG_FORMAT,
            rules_version: record.rules_version.clone(),
            dice: record.dice.clone(),
            first_player: record.first_player,
            roll_off: record.roll_off.clone(),
            entries,
            cursor,
            orders: record.orders,
        };
        let battle = Battle::restore(record.scenario.clone(), lists, log)?;
        Ok(Session { record, battle })
    }

    pub fn id(&self) -> i64 {
        self.record.id
    }

    /// The battle's stored row as of the last write.
    pub fn record(&self) -> &BattleRecord {
        &self.record
    }

    pub fn battle(&self) -> &Battle {
        &self.battle
    }

    pub fn mode(&self) -> PlayMode {
        self.record.mode
    }

    /// The result, once the battle ended.
    pub fn result(&self) -> Option<BattleResult> {
        result_of(&self.battle)
    }

    /// Writes one entry; on failure the session goes back to what the store holds.
    fn persist(&mut self, store: &mut Store, record: &LogRecord) -> Result<(), SessionError> {
        let progress = progress_of(&self.battle);
        match store.append_battle_record(self.record.id, record, &progress) {
            Ok(_) => {
                advance(&mut self.record, progress);
                Ok(())
            }
            Err(e) => {
                // Nothing of this action is stored: show what is.
                if let Ok(again) = Session::resume(store, self.record.id) {
                    *self = again;
                }
                Err(e.into())
            }
        }
    }

    fn last_entry(&self) -> Option<LogEntry> {
        self.battle.entries().last().cloned()
    }

    /// Performs one action (the battle's own dice) and stores it. A refusal changes and
    /// stores nothing.
    pub fn perform(
        &mut self,
        store: &mut Store,
        action: Action,
        actor: Actor,
    ) -> Result<Vec<Event>, SessionError> {
        let events = self.battle.perform(action)?.to_vec();
        self.store_last(store, actor)?;
        Ok(events)
    }

    /// Performs one action with dice rolled on the table (a battle with physical dice).
    pub fn perform_with_dice(
        &mut self,
        store: &mut Store,
        action: Action,
        dice: &[u8],
        actor: Actor,
    ) -> Result<Vec<Event>, SessionError> {
        let events = self.battle.perform_with_dice(action, dice)?.to_vec();
        self.store_last(store, actor)?;
        Ok(events)
    }

    fn store_last(&mut self, store: &mut Store, actor: Actor) -> Result<(), SessionError> {
        let Some(entry) = self.last_entry() else {
            return Ok(());
        };
        self.persist(store, &LogRecord::Action { entry, actor })
    }

    /// Records an action the solo opponent resolved on a copy of the battle (a worker thread,
    /// [`worker::Opponent`]): its events are applied as they are and stored, marked as the
    /// computer's.
    pub fn commit_entry(&mut self, store: &mut Store, entry: LogEntry) -> Result<(), SessionError> {
        self.battle.push_entry(entry);
        self.store_last(store, Actor::Computer)
    }

    /// Takes back the last action in effect (stored as an undo entry). False if none.
    pub fn undo(&mut self, store: &mut Store) -> Result<bool, SessionError> {
        if !self.battle.undo() {
            return Ok(false);
        }
        self.persist(store, &LogRecord::Undo)?;
        Ok(true)
    }

    /// Puts back the last action taken back (stored as a redo entry). False if none.
    pub fn redo(&mut self, store: &mut Store) -> Result<bool, SessionError> {
        if !self.battle.redo() {
            return Ok(false);
        }
        self.persist(store, &LogRecord::Redo)?;
        Ok(true)
    }

    /// Takes back actions until the last action a person decided is undone too (solo play:
    /// the computer's answers to it go with it). False if there is none.
    pub fn undo_to_player(&mut self, store: &mut Store) -> Result<bool, SessionError> {
        let id = self.record.id;
        let records = store.battle_records(id)?;
        let (entries, cursor) =
            fold_log_with_actors(&records).map_err(|why| SessionError::Log { id, why })?;
        let in_effect = entries.get(..cursor).unwrap_or(&[]);
        let Some(last_player) = in_effect.iter().rposition(|(_, a)| *a != Actor::Computer) else {
            return Ok(false);
        };
        while self.battle.entries().len() > last_player {
            if !self.undo(store)? {
                break;
            }
        }
        Ok(true)
    }

    /// The solo opponent decides for `sides` (both in an all-computer game) until `until`, the
    /// battle's end, or a decision that belongs to a person; each action is stored as it is
    /// made. `keep_going` is asked after each action (a Stop button); the run's `stopped` says
    /// why it handed back.
    pub fn play_ai(
        &mut self,
        store: &mut Store,
        sides: [bool; 2],
        until: Until,
        keep_going: &mut dyn FnMut(&Battle) -> bool,
    ) -> Result<AutoplayRun, SessionError> {
        let id = self.record.id;
        let mut stored = self.battle.entries().len();
        let mut failure: Option<SessionError> = None;
        let mut progress = self.record.clone();
        let run = {
            let mut after = |b: &Battle| -> bool {
                // Every entry the opponent added since the last call (one per call).
                let entries = b.entries();
                let new = entries.get(stored..).unwrap_or(&[]);
                for entry in new {
                    let p = progress_of(b);
                    let rec = LogRecord::Action {
                        entry: entry.clone(),
                        actor: Actor::Computer,
                    };
                    if let Err(e) = store.append_battle_record(id, &rec, &p) {
                        failure = Some(e.into());
                        return false;
                    }
                    advance(&mut progress, p);
                }
                stored = entries.len();
                keep_going(b)
            };
            ai::play(
                &mut self.battle,
                &Limits::default(),
                sides,
                until,
                &mut after,
            )
        };
        self.record = progress;
        if let Some(e) = failure {
            // The last action is in memory but not stored: go back to the store.
            if let Ok(again) = Session::resume(store, id) {
                *self = again;
            }
            return Err(e);
        }
        Ok(run)
    }

    /// The battle as a battle file (docs/battle-file.md): the scenario inline, the dice (the
    /// seed, or the dice entered by hand as a script), and the actions in effect. Replaying it
    /// gives exactly the events of the battle as it stands.
    pub fn battle_file(&self) -> Value {
        let entries = self.battle.entries();
        let dice = match &self.record.dice {
            DiceSource::Seed(s) => json!({ "seed": s }),
            DiceSource::Script(v) => json!({ "script": v }),
            DiceSource::Physical => {
                let all: Vec<u8> = entries
                    .iter()
                    .flat_map(|e| e.hand_dice.iter().flatten().copied())
                    .collect();
                json!({ "script": all })
            }
        };
        let mut file = json!({
            "format": crate::rules::file::BATTLE_FILE_FORMAT,
            "scenario": self.battle.scenario(),
            "dice": dice,
            "first_player": self.record.first_player,
            "orders": self.record.orders,
            "actions": entries.iter().map(|e| &e.action).collect::<Vec<_>>(),
        });
        // SEQ-01: a roll-off took the first dice of the stream; the replay rolls it again.
        if !self.record.roll_off.is_empty() {
            file["roll_off"] = json!(self.record.roll_off);
        }
        file
    }
}

/// Where a battle stands, as stored with each entry.
fn progress_of(battle: &Battle) -> BattleProgress {
    let t = battle.state().turn;
    let over = t.phase == Phase::Over;
    BattleProgress {
        game_turn: t.game_turn,
        phase: t.phase,
        active: t.active,
        status: if over {
            BattleStatus::Ended
        } else {
            BattleStatus::InProgress
        },
        result: if over { result_of(battle) } else { None },
    }
}

/// A battle row after one more entry written with `p`.
fn advance(record: &mut BattleRecord, p: BattleProgress) {
    record.entries += 1;
    record.game_turn = p.game_turn;
    record.phase = p.phase;
    record.active = p.active;
    record.status = p.status;
    record.result = p.result;
}

/// The verdict in a battle's events, once it ended.
pub fn result_of(battle: &Battle) -> Option<BattleResult> {
    battle
        .entries()
        .iter()
        .rev()
        .flat_map(|e| e.events.iter().rev())
        .find_map(|e| match e {
            Event::BattleResult(r) => Some(r.clone()),
            _ => None,
        })
}

/// What the battle waits for now, in words: one line per decision of [`Battle::pending`]
/// (the window's bar and `battle show`).
pub fn waiting_lines(battle: &Battle) -> Vec<String> {
    use crate::rules::api::Decision;
    let st = battle.state();
    let side = |s: usize| {
        battle
            .scenario()
            .sides
            .get(s)
            .map_or_else(|| format!("side {s}"), |x| x.name.clone())
    };
    let name = |id: crate::rules::PieceId| {
        st.piece(id)
            .map_or_else(|| id.to_string(), |p| p.name.clone())
    };
    let units = |n: usize| {
        if n == 1 {
            "1 unit".to_string()
        } else {
            format!("{n} units")
        }
    };
    battle
        .pending()
        .decisions
        .iter()
        .map(|d| match d {
            Decision::Phase {
                side: s,
                phase,
                may_end,
            } => format!(
                "{} to act in its {} phase{}",
                side(*s),
                phase.label(),
                if *may_end { ", then end it" } else { "" }
            ),
            Decision::Order {
                side: s,
                command,
                units: u,
            } => format!(
                "{}: {} may give an order to {}",
                side(*s),
                name(*command),
                units(u.len())
            ),
            Decision::ChargeResponse {
                side: s,
                target,
                responders,
                ..
            } => format!(
                "{} to answer the charge on {} ({} may respond), then close the response",
                side(*s),
                name(*target),
                units(responders.len())
            ),
            Decision::Support {
                side: s,
                target,
                offers,
            } => format!(
                "{}: {} may support the combat at {}",
                side(*s),
                units(offers.len()),
                name(*target)
            ),
            Decision::FightCombat { target } => {
                format!("the combat of the charge on {} to be fought", name(*target))
            }
            Decision::Consolidate { piece, .. } => {
                format!("{} may consolidate after its win", name(*piece))
            }
            Decision::ReplaceCommand { side: s, piece } => format!(
                "{}: {} may be replaced by a new commander (CMD-28)",
                side(*s),
                name(*piece)
            ),
            Decision::BreakTestDue { side: s } => format!(
                "{} tests its breakpoint as its player turn begins (BRK-02)",
                side(*s)
            ),
            Decision::Over { .. } => "nothing: the battle is over".to_string(),
        })
        .collect()
}

/// Who plays, in words, with the sides' names: "solo: the computer plays Austrian: Hiller's
/// rearguard".
pub fn mode_words(mode: PlayMode, scenario: &Scenario) -> String {
    match mode {
        PlayMode::Solo { computer } => format!(
            "solo: the computer plays {}",
            scenario
                .sides
                .get(computer)
                .map_or_else(|| format!("side {computer}"), |s| s.name.clone())
        ),
        other => other.label(),
    }
}

/// A seed for a battle started without one (shown with the battle, so it can be replayed).
/// The session layer may read the clock; the engine never does.
pub fn fresh_seed() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1809, |d| {
            d.as_nanos() as u64 ^ u64::from(std::process::id())
        })
}

/// Dice typed in as "3,5,1" (spaces allowed); the message says which entry is wrong.
pub fn parse_dice(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for (i, part) in text.split([',', ' ']).filter(|p| !p.is_empty()).enumerate() {
        let v: u8 = part.trim().parse().map_err(|_| {
            format!(
                "Die {} is '{part}', which is not a number: type the dice as numbers 1 to 6, e.g. 3,5,1",
                i + 1
            )
        })?;
        if !(1..=6).contains(&v) {
            return Err(format!("Die {} is {v}: a d6 shows 1 to 6", i + 1));
        }
        out.push(v);
    }
    Ok(out)
}

/// Each side's name, in side order.
pub fn side_names(b: &BattleRecord) -> [String; 2] {
    let name = |i: usize| {
        b.scenario
            .sides
            .get(i)
            .map_or_else(|| format!("Side {}", i + 1), |s| s.name.clone())
    };
    [name(0), name(1)]
}

/// The verdict in words: who won and how, and each side's VPs.
pub fn result_words(b: &BattleRecord) -> Vec<String> {
    let Some(r) = &b.result else {
        return Vec::new();
    };
    let names = side_names(b);
    let name = |i: usize| names.get(i).cloned().unwrap_or_default();
    let mut out = vec![match r.winner {
        Some(w) => format!("{} wins: {}", name(w), r.category.label()),
        None => "A draw".to_string(),
    }];
    for (i, s) in r.sides.iter().enumerate() {
        out.push(format!("{}: {} VPs", name(i), s.vp));
    }
    out
}

/// Where a battle's dice come from, in words.
pub fn dice_words(d: &DiceSource) -> String {
    match d {
        DiceSource::Seed(s) => format!("seeded dice ({s})"),
        DiceSource::Script(v) => format!("a script of {} dice", v.len()),
        DiceSource::Physical => "physical dice".to_string(),
    }
}
