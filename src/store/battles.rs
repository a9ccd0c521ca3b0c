//! Battles in the database: the battle row (scenario snapshot, dice seed, rules version) and its
//! append-only log of entries. The schema's triggers refuse any UPDATE or DELETE of an entry and
//! any insert that is not at the end, so "append-only" holds even for code that bypasses this
//! module.

use super::error::StoreError;
use super::rows::Cells;
use crate::model::ids::ScenarioId;
use crate::model::scenario::Scenario;
use rusqlite::{params, Connection, OptionalExtension};

/// A stored battle: what is needed to replay its log.
#[derive(Debug, Clone, PartialEq)]
pub struct BattleRecord {
    pub id: i64,
    pub scenario_id: ScenarioId,
    /// The scenario as it was when the battle was created (later edits do not change a battle).
    pub scenario: Scenario,
    pub seed: u64,
    pub rules_version: String,
    /// UTC, ISO 8601.
    pub created_at: String,
    /// Number of log entries.
    pub entries: usize,
}

pub(crate) fn exists(conn: &Connection, battle: i64) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM battles WHERE id = ?1")?
        .query_row([battle], |_| Ok(()))
        .optional()?
        .is_some())
}

pub(crate) fn create(
    conn: &Connection,
    scenario: &Scenario,
    seed: u64,
    rules_version: &str,
) -> Result<i64, StoreError> {
    let snapshot = serde_json::to_string(scenario).map_err(|e| {
        StoreError::Invalid(format!(
            "scenario '{}' cannot be stored with the battle: {e}",
            scenario.id
        ))
    })?;
    conn.prepare_cached(
        "INSERT INTO battles (scenario_id, scenario_json, seed, rules_version)
         VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![
        scenario.id.as_str(),
        snapshot,
        seed.cast_signed(),
        rules_version
    ])?;
    Ok(conn.last_insert_rowid())
}

fn check_json(battle: i64, what: &str, text: &str) -> Result<(), StoreError> {
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .map(|_| ())
        .map_err(|e| {
            StoreError::Invalid(format!(
                "battle {battle}: the {what} to append is not valid JSON ({e}); nothing was appended"
            ))
        })
}

/// Appends one entry at the end of the log; returns its sequence number (0 = first).
pub(crate) fn append(
    conn: &Connection,
    battle: i64,
    action_json: &str,
    events_json: &str,
) -> Result<u32, StoreError> {
    check_json(battle, "action", action_json)?;
    check_json(battle, "events", events_json)?;
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
    conn.prepare_cached(
        "INSERT INTO battle_events (battle_id, seq, action_json, events_json)
         VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![battle, seq, action_json, events_json])?;
    Ok(seq)
}

pub(crate) fn entries(
    conn: &Connection,
    battle: i64,
) -> Result<Vec<(u32, String, String)>, StoreError> {
    if !exists(conn, battle)? {
        return Err(StoreError::NotFound(format!("battle {battle}")));
    }
    let mut stmt = conn.prepare_cached(
        "SELECT battle_id, seq, action_json, events_json FROM battle_events
         WHERE battle_id = ?1 ORDER BY seq",
    )?;
    let mut rows = stmt.query([battle])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let c = Cells::new("battle_events", row, &["battle_id", "seq"]);
        out.push((
            c.int("seq")?,
            c.text("action_json")?,
            c.text("events_json")?,
        ));
    }
    Ok(out)
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
    Ok(Some(BattleRecord {
        id: c.int("id")?,
        scenario_id: ScenarioId(c.text("scenario_id")?),
        scenario: c.json("scenario_json")?,
        seed: c.int::<i64>("seed")?.cast_unsigned(),
        rules_version: c.text("rules_version")?,
        created_at: c.text("created_at")?,
        entries: c.int("entries")?,
    }))
}

/// Every battle id, oldest first.
pub(crate) fn ids(conn: &Connection) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT id FROM battles ORDER BY id")?;
    let ids = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<Vec<i64>, _>>()?;
    Ok(ids)
}
