//! Battles in the database: the battle row (how it is played, the scenario and army lists as
//! they were when it began, its status and result) and its append-only log.
//!
//! The log is the whole audit trail of a table: each entry is an action with the events it
//! produced, or an undo or a redo. Nothing is ever changed or deleted (the schema's triggers
//! refuse any UPDATE or DELETE of an entry and any insert that is not at the end), so a battle
//! as it stands, with its redo stack, is a fold over its entries ([`fold_log`]). An entry and
//! the battle row's progress columns are written in one transaction.

use super::error::StoreError;
use super::rows::{enum_text, json_text, Cells};
use crate::model::army::ArmyList;
use crate::model::ids::ScenarioId;
use crate::model::scenario::Scenario;
use crate::rules::battle::LogEntry;
use crate::rules::command::OrdersMode;
use crate::rules::dice::DiceSource;
use crate::rules::state::Phase;
use crate::rules::victory::BattleResult;
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

/// Who plays a battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "mode")]
pub enum PlayMode {
    /// One person against the computer, which plays `computer` (0 or 1).
    Solo { computer: usize },
    /// Two people at one screen, taking turns.
    Hotseat,
    /// A referee keeps the app in step with a real table (usually with physical dice).
    Referee,
    /// The computer plays both sides (a demonstration, a balance run, a test).
    Computer,
}

impl PlayMode {
    /// The side the computer plays, if any.
    pub fn computer(self) -> Option<usize> {
        match self {
            PlayMode::Solo { computer } => Some(computer),
            PlayMode::Hotseat | PlayMode::Referee | PlayMode::Computer => None,
        }
    }

    /// Whether fog of war is offered: a person plays at least one side and does not referee
    /// (solo and hot-seat). A referee and the computer on both sides see everything.
    pub fn offers_fog(self) -> bool {
        matches!(self, PlayMode::Solo { .. } | PlayMode::Hotseat)
    }

    /// The sides the computer decides for.
    pub fn computer_sides(self) -> [bool; 2] {
        match self {
            PlayMode::Solo { computer } => [computer == 0, computer == 1],
            PlayMode::Computer => [true, true],
            PlayMode::Hotseat | PlayMode::Referee => [false, false],
        }
    }

    pub fn label(self) -> String {
        match self {
            PlayMode::Solo { computer } => format!("solo (computer plays side {computer})"),
            PlayMode::Hotseat => "hot-seat".to_string(),
            PlayMode::Referee => "referee".to_string(),
            PlayMode::Computer => "computer against computer".to_string(),
        }
    }
}

/// Whether a battle is still going.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BattleStatus {
    InProgress,
    Ended,
}

/// What a new battle is: the scenario and lists as they are now, and how it is played.
#[derive(Debug, Clone, PartialEq)]
pub struct BattleSetup {
    pub scenario: Scenario,
    pub lists: Vec<ArmyList>,
    pub dice: DiceSource,
    pub orders: OrdersMode,
    pub first_player: usize,
    /// SEQ-01: the roll-off's dice that decided `first_player` (empty: it was named).
    pub roll_off: Vec<[u8; 2]>,
    pub mode: PlayMode,
    pub rules_version: String,
    /// Fog of war: each player sees only the enemies their units see (`rules::fog`). Stored
    /// only for modes that offer it ([`PlayMode::offers_fog`]).
    pub fog: bool,
}

/// Where a battle stands, written with every entry (the Battles list reads it without a
/// replay).
#[derive(Debug, Clone, PartialEq)]
pub struct BattleProgress {
    pub game_turn: u32,
    pub phase: Phase,
    pub active: usize,
    pub status: BattleStatus,
    pub result: Option<BattleResult>,
}

/// Who decided an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    /// A person at the screen.
    Player,
    /// The solo opponent.
    Computer,
    /// A referee's entry (physical dice, adjustments).
    Referee,
}

/// One entry of a stored log.
#[derive(Debug, Clone, PartialEq)]
pub enum LogRecord {
    /// An action performed, with its events and dice.
    Action { entry: LogEntry, actor: Actor },
    /// The last action in effect was taken back.
    Undo,
    /// The last action taken back was put back.
    Redo,
}

/// A stored battle's row.
#[derive(Debug, Clone, PartialEq)]
pub struct BattleRecord {
    pub id: i64,
    pub scenario_id: ScenarioId,
    /// The scenario as it was when the battle was created (later edits do not change a battle).
    pub scenario: Scenario,
    /// The army lists as they were when the battle was created; `None` for battles stored
    /// before schema 7, which use the lists they find.
    pub lists: Option<Vec<ArmyList>>,
    pub dice: DiceSource,
    pub orders: OrdersMode,
    pub first_player: usize,
    /// SEQ-01: the roll-off's dice that decided `first_player` (empty: it was named).
    pub roll_off: Vec<[u8; 2]>,
    pub mode: PlayMode,
    pub status: BattleStatus,
    pub result: Option<BattleResult>,
    pub game_turn: u32,
    pub phase: Phase,
    pub active: usize,
    pub rules_version: String,
    /// UTC, ISO 8601.
    pub created_at: String,
    pub updated_at: Option<String>,
    /// Number of log entries (actions, undos and redos).
    pub entries: usize,
    /// Played with fog of war (schema 8; false for older battles).
    pub fog: bool,
}

/// The log a stored battle's entries fold to: the entries in effect and the redo stack, as a
/// [`crate::rules::BattleLog`] keeps them (entries before `cursor` are in effect).
pub fn fold_log(records: &[LogRecord]) -> Result<(Vec<LogEntry>, usize), String> {
    let (entries, cursor) = fold_log_with_actors(records)?;
    Ok((entries.into_iter().map(|(e, _)| e).collect(), cursor))
}

/// [`fold_log`] with who decided each entry.
pub fn fold_log_with_actors(
    records: &[LogRecord],
) -> Result<(Vec<(LogEntry, Actor)>, usize), String> {
    let mut entries: Vec<(LogEntry, Actor)> = Vec::new();
    let mut cursor = 0usize;
    for (seq, r) in records.iter().enumerate() {
        match r {
            LogRecord::Action { entry, actor } => {
                entries.truncate(cursor);
                entries.push((entry.clone(), *actor));
                cursor = entries.len();
            }
            LogRecord::Undo => {
                cursor = cursor.checked_sub(1).ok_or_else(|| {
                    format!("entry {seq} undoes an action, but none is in effect")
                })?;
            }
            LogRecord::Redo => {
                if cursor >= entries.len() {
                    return Err(format!(
                        "entry {seq} redoes an action, but none was taken back"
                    ));
                }
                cursor += 1;
            }
        }
    }
    Ok((entries, cursor))
}

fn dice_columns(dice: &DiceSource) -> Result<(&'static str, i64, Option<String>), StoreError> {
    Ok(match dice {
        DiceSource::Seed(s) => ("seeded", s.cast_signed(), None),
        DiceSource::Physical => ("physical", 0, None),
        DiceSource::Script(v) => ("script", 0, Some(json_text(v, "the dice script")?)),
    })
}

fn mode_columns(mode: PlayMode) -> (&'static str, Option<i64>) {
    match mode {
        PlayMode::Solo { computer } => ("solo", Some(i64::from(computer == 1))),
        PlayMode::Hotseat => ("hotseat", None),
        PlayMode::Referee => ("referee", None),
        PlayMode::Computer => ("computer", None),
    }
}

pub(crate) fn exists(conn: &Connection, battle: i64) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM battles WHERE id = ?1")?
        .query_row([battle], |_| Ok(()))
        .optional()?
        .is_some())
}

pub(crate) fn create(conn: &Connection, setup: &BattleSetup) -> Result<i64, StoreError> {
    let scenario = &setup.scenario;
    let snapshot = serde_json::to_string(scenario).map_err(|e| {
        StoreError::Invalid(format!(
            "scenario '{}' cannot be stored with the battle: {e}",
            scenario.id
        ))
    })?;
    let lists = json_text(&setup.lists, "the battle's army lists")?;
    let (dice_kind, seed, script) = dice_columns(&setup.dice)?;
    let (mode, computer) = mode_columns(setup.mode);
    if setup.first_player > 1 {
        return Err(StoreError::Invalid(format!(
            "first player {} is not a side (0 or 1)",
            setup.first_player
        )));
    }
    conn.prepare_cached(
        "INSERT INTO battles (scenario_id, scenario_json, seed, rules_version, lists_json,
             dice_kind, dice_script, orders, first_player, mode, computer_side, phase,
             active_side, updated_at, fog, roll_off_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'deployment', ?9,
             strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?12, ?13)",
    )?
    .execute(params![
        scenario.id.as_str(),
        snapshot,
        seed,
        setup.rules_version,
        lists,
        dice_kind,
        script,
        enum_text(&setup.orders)?,
        i64::from(setup.first_player == 1),
        mode,
        computer,
        setup.fog && setup.mode.offers_fog(),
        json_text(&setup.roll_off, "the roll-off")?,
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Appends one entry at the end of the log and records the battle's progress with it; returns
/// the entry's sequence number (0 = first).
pub(crate) fn append(
    conn: &Connection,
    battle: i64,
    record: &LogRecord,
    progress: &BattleProgress,
) -> Result<u32, StoreError> {
    if !exists(conn, battle)? {
        return Err(StoreError::NotFound(format!("battle {battle}")));
    }
    let next: i64 = conn
        .prepare_cached("SELECT COALESCE(MAX(seq) + 1, 0) FROM battle_events WHERE battle_id = ?1")?
        .query_row([battle], |r| r.get(0))?;
    let seq = u32::try_from(next).map_err(|_| {
        StoreError::Invalid(format!(
            "battle {battle} already has {next} entries, the most one battle can hold"
        ))
    })?;
    let (kind, action, events, dice_used, hand, actor) = match record {
        LogRecord::Action { entry, actor } => (
            "action",
            json_text(&entry.action, "the action")?,
            json_text(&entry.events, "the events")?,
            i64::try_from(entry.dice_used).unwrap_or(i64::MAX),
            entry
                .hand_dice
                .as_ref()
                .map(|d| json_text(d, "the dice entered"))
                .transpose()?,
            Some(enum_text(actor)?),
        ),
        LogRecord::Undo => ("undo", "null".into(), "[]".into(), 0, None, None),
        LogRecord::Redo => ("redo", "null".into(), "[]".into(), 0, None, None),
    };
    conn.prepare_cached(
        "INSERT INTO battle_events (battle_id, seq, action_json, events_json, kind, dice_used,
             hand_dice, actor)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        battle, seq, action, events, kind, dice_used, hand, actor
    ])?;
    let result = progress
        .result
        .as_ref()
        .map(|r| json_text(r, "the result"))
        .transpose()?;
    conn.prepare_cached(
        "UPDATE battles SET game_turn = ?2, phase = ?3, active_side = ?4, status = ?5,
             result_json = ?6, updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
         WHERE id = ?1",
    )?
    .execute(params![
        battle,
        i64::from(progress.game_turn),
        enum_text(&progress.phase)?,
        i64::from(progress.active == 1),
        enum_text(&progress.status)?,
        result,
    ])?;
    Ok(seq)
}

pub(crate) fn records(conn: &Connection, battle: i64) -> Result<Vec<LogRecord>, StoreError> {
    if !exists(conn, battle)? {
        return Err(StoreError::NotFound(format!("battle {battle}")));
    }
    let mut stmt = conn.prepare_cached(
        "SELECT battle_id, seq, kind, action_json, events_json, dice_used, hand_dice, actor
         FROM battle_events WHERE battle_id = ?1 ORDER BY seq",
    )?;
    let mut rows = stmt.query([battle])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let c = Cells::new("battle_events", row, &["battle_id", "seq"]);
        let kind = c.text("kind")?;
        out.push(match kind.as_str() {
            "undo" => LogRecord::Undo,
            "redo" => LogRecord::Redo,
            _ => LogRecord::Action {
                entry: LogEntry {
                    action: c.json("action_json")?,
                    events: c.json("events_json")?,
                    dice_used: c.int("dice_used")?,
                    hand_dice: c.opt_json("hand_dice")?,
                },
                actor: c.opt_enum("actor")?.unwrap_or(Actor::Player),
            },
        });
    }
    Ok(out)
}

fn record_of(c: &Cells) -> Result<BattleRecord, StoreError> {
    let seed = c.int::<i64>("seed")?.cast_unsigned();
    let dice = match c.text("dice_kind")?.as_str() {
        "physical" => DiceSource::Physical,
        "script" => DiceSource::Script(c.opt_json("dice_script")?.unwrap_or_default()),
        _ => DiceSource::Seed(seed),
    };
    let mode = match c.text("mode")?.as_str() {
        "solo" => PlayMode::Solo {
            computer: c.opt_int::<usize>("computer_side")?.unwrap_or(1).min(1),
        },
        "referee" => PlayMode::Referee,
        "computer" => PlayMode::Computer,
        _ => PlayMode::Hotseat,
    };
    Ok(BattleRecord {
        id: c.int("id")?,
        scenario_id: ScenarioId(c.text("scenario_id")?),
        scenario: c.json("scenario_json")?,
        lists: c.opt_json("lists_json")?,
        dice,
        orders: c.enumv("orders")?,
        first_player: c.int::<usize>("first_player")?.min(1),
        roll_off: c.json("roll_off_json")?,
        mode,
        status: c.enumv("status")?,
        result: c.opt_json("result_json")?,
        game_turn: c.int("game_turn")?,
        phase: c.enumv("phase")?,
        active: c.int::<usize>("active_side")?.min(1),
        rules_version: c.text("rules_version")?,
        created_at: c.text("created_at")?,
        updated_at: c.opt_text("updated_at")?,
        entries: c.int("entries")?,
        fog: c.int::<i64>("fog")? != 0,
    })
}

pub(crate) fn read(conn: &Connection, battle: i64) -> Result<Option<BattleRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT b.*, (SELECT COUNT(*) FROM battle_events e WHERE e.battle_id = b.id) AS entries
         FROM battles b WHERE b.id = ?1",
    )?;
    let mut rows = stmt.query([battle])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let c = Cells::new("battles", row, &["id"]);
    Ok(Some(record_of(&c)?))
}

/// Every battle's row, oldest first.
pub(crate) fn all(conn: &Connection) -> Result<Vec<BattleRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT b.*, (SELECT COUNT(*) FROM battle_events e WHERE e.battle_id = b.id) AS entries
         FROM battles b ORDER BY b.id",
    )?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let c = Cells::new("battles", row, &["id"]);
        out.push(record_of(&c)?);
    }
    Ok(out)
}

/// Every battle id, oldest first.
pub(crate) fn ids(conn: &Connection) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT id FROM battles ORDER BY id")?;
    let ids = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<Vec<i64>, _>>()?;
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::action::Action;

    fn entry(n: usize) -> LogRecord {
        LogRecord::Action {
            entry: LogEntry {
                action: Action::Concede { side: n % 2 },
                events: Vec::new(),
                dice_used: n,
                hand_dice: None,
            },
            actor: Actor::Player,
        }
    }

    #[test]
    fn the_log_folds_undo_and_redo_into_entries_and_a_cursor() {
        // a b undo c → a c ; undo undo redo → a in effect, c redoable.
        let recs = vec![entry(1), entry(2), LogRecord::Undo, entry(3)];
        let (e, cursor) = fold_log(&recs).unwrap();
        assert_eq!(
            e.iter().map(|x| x.dice_used).collect::<Vec<_>>(),
            vec![1, 3]
        );
        assert_eq!(cursor, 2);
        let mut more = recs.clone();
        more.extend([LogRecord::Undo, LogRecord::Undo, LogRecord::Redo]);
        let (e, cursor) = fold_log(&more).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(cursor, 1);
        assert!(fold_log(&[LogRecord::Undo]).is_err());
        assert!(fold_log(&[entry(1), LogRecord::Redo]).is_err());
    }
}
