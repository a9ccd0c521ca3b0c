//! Campaign runs in the database (issue #19 item 3): one play-through of a campaign, with a copy
//! of the campaign and its scenarios as they were when it began, its forces as they stand, and
//! each battle with the scenario the carry made, the carry report into it, its stored battle
//! session (or the result entered by hand), the forces at its end and the report of what it did.
//!
//! The end of a battle and the carry into the next are written by [`finish`] in the caller's
//! one transaction, so a crash leaves a run before or after that step, never between.

use super::error::StoreError;
use super::rows::{enum_text, json_text, pos, Cells};
use crate::campaign::{BattleRecord, CarryReport, Forces};
use crate::model::{Campaign, CampaignId, Scenario, ScenarioId};
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    InProgress,
    /// Every battle of the campaign has been fought and carried.
    Ended,
}

/// One row of a campaign's list of runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSummary {
    pub id: i64,
    pub campaign: CampaignId,
    pub name: String,
    pub seed: u64,
    /// Battles finished and carried.
    pub played: usize,
    /// Battles in the campaign the run copied.
    pub battles: usize,
    pub status: RunStatus,
    pub updated_at: String,
}

/// A battle of a run as the carry set it up: the scenario to play and the forces and report of
/// the carry into it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunBattleStart {
    pub scenario: Scenario,
    pub start: Forces,
    pub carry_in: CarryReport,
}

/// How a battle of a run ended: the forces after it, the report of what it did and its result;
/// `hand` is the result as a person entered it, for a battle fought without the app.
#[derive(Debug, Clone, PartialEq)]
pub struct RunBattleEnd {
    pub end: Forces,
    pub after: CarryReport,
    pub result: BattleRecord,
    pub hand: Option<serde_json::Value>,
}

/// One battle of a stored run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunBattle {
    pub pos: usize,
    pub scenario_id: ScenarioId,
    pub start: RunBattleStart,
    /// The battle session that plays it, once started.
    pub battle_id: Option<i64>,
    /// Once it is over.
    pub end: Option<RunBattleEnd>,
}

/// A whole stored run.
#[derive(Debug, Clone, PartialEq)]
pub struct CampaignRunRecord {
    pub id: i64,
    pub name: String,
    pub seed: u64,
    /// The campaign as it was when the run began.
    pub campaign: Campaign,
    /// Its scenarios as they were when the run began.
    pub scenarios: Vec<Scenario>,
    /// The forces as they stand: at the start of the next battle, or after the last.
    pub forces: Forces,
    pub played: usize,
    pub status: RunStatus,
    /// The battles set up so far, in order (the next one included).
    pub battles: Vec<RunBattle>,
}

impl CampaignRunRecord {
    /// The battle waiting to be played, if any.
    pub fn next(&self) -> Option<&RunBattle> {
        self.battles.iter().find(|b| b.end.is_none())
    }
}

/// A new run whose first battle the carry has set up.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRun<'a> {
    pub name: &'a str,
    pub seed: u64,
    pub campaign: &'a Campaign,
    pub scenarios: &'a [Scenario],
    pub first: RunBattleStart,
}

pub(crate) fn create(conn: &Connection, new: &NewRun<'_>) -> Result<i64, StoreError> {
    if new.campaign.battles.is_empty() {
        return Err(StoreError::Invalid(format!(
            "campaign '{}' has no battles to play",
            new.campaign.name
        )));
    }
    conn.prepare_cached(
        "INSERT INTO campaign_runs (campaign_id, name, seed, campaign_json, scenarios_json,
             forces_json, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
    )?
    .execute(params![
        new.campaign.id.as_str(),
        new.name,
        new.seed.cast_signed(),
        json_text(new.campaign, "the campaign")?,
        json_text(&new.scenarios, "the campaign's scenarios")?,
        json_text(&new.first.start, "the campaign's forces")?,
    ])?;
    let id = conn.last_insert_rowid();
    insert_battle(conn, id, 0, &new.first)?;
    Ok(id)
}

fn insert_battle(
    conn: &Connection,
    run: i64,
    at: usize,
    b: &RunBattleStart,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO campaign_run_battles (run_id, pos, scenario_id, scenario_json, start_json,
             carry_in_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        run,
        pos(at),
        b.scenario.id.as_str(),
        json_text(&b.scenario, "the battle's scenario")?,
        json_text(&b.start, "the forces at the battle's start")?,
        json_text(&b.carry_in, "the carry report")?,
    ])?;
    Ok(())
}

pub(crate) fn summaries(
    conn: &Connection,
    campaign: Option<&CampaignId>,
) -> Result<Vec<RunSummary>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, campaign_id, name, seed, played, status, COALESCE(updated_at, created_at)
                AS updated_at,
                json_array_length(json_extract(campaign_json, '$.battles')) AS battles
         FROM campaign_runs
         WHERE ?1 IS NULL OR campaign_id = ?1
         ORDER BY id",
    )?;
    let mut rows = stmt.query([campaign.map(CampaignId::as_str)])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let c = Cells::new("campaign_runs", row, &["id"]);
        out.push(RunSummary {
            id: c.int("id")?,
            campaign: CampaignId(c.text("campaign_id")?),
            name: c.text("name")?,
            seed: c.int::<i64>("seed")?.cast_unsigned(),
            played: c.int("played")?,
            battles: c.int("battles")?,
            status: c.enumv("status")?,
            updated_at: c.text("updated_at")?,
        });
    }
    Ok(out)
}

pub(crate) fn read(conn: &Connection, id: i64) -> Result<Option<CampaignRunRecord>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT * FROM campaign_runs WHERE id = ?1")?;
    let mut rows = stmt.query([id])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let c = Cells::new("campaign_runs", row, &["id"]);
    let mut run = CampaignRunRecord {
        id,
        name: c.text("name")?,
        seed: c.int::<i64>("seed")?.cast_unsigned(),
        campaign: c.json("campaign_json")?,
        scenarios: c.json("scenarios_json")?,
        forces: c.json("forces_json")?,
        played: c.int("played")?,
        status: c.enumv("status")?,
        battles: Vec::new(),
    };
    drop(rows);
    let mut stmt =
        conn.prepare_cached("SELECT * FROM campaign_run_battles WHERE run_id = ?1 ORDER BY pos")?;
    let mut rows = stmt.query([id])?;
    while let Some(row) = rows.next()? {
        let c = Cells::new("campaign_run_battles", row, &["run_id", "pos"]);
        let end = match (
            c.opt_json::<Forces>("end_json")?,
            c.opt_json::<CarryReport>("after_json")?,
            c.opt_json::<BattleRecord>("result_json")?,
        ) {
            (Some(end), Some(after), Some(result)) => Some(RunBattleEnd {
                end,
                after,
                result,
                hand: c.opt_json("hand_json")?,
            }),
            _ => None,
        };
        run.battles.push(RunBattle {
            pos: c.int("pos")?,
            scenario_id: ScenarioId(c.text("scenario_id")?),
            start: RunBattleStart {
                scenario: c.json("scenario_json")?,
                start: c.json("start_json")?,
                carry_in: c.json("carry_in_json")?,
            },
            battle_id: c.opt_int("battle_id")?,
            end,
        });
    }
    Ok(Some(run))
}

/// The run and battle position a battle session plays, if it is a campaign battle.
pub(crate) fn of_battle(
    conn: &Connection,
    battle: i64,
) -> Result<Option<(i64, usize)>, StoreError> {
    let found = conn
        .prepare_cached("SELECT run_id, pos FROM campaign_run_battles WHERE battle_id = ?1")?
        .query_row([battle], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
        .optional()?;
    Ok(found.map(|(run, p)| (run, usize::try_from(p).unwrap_or(usize::MAX))))
}

/// Ties the next battle of `run` (at `at`) to the battle session that plays it.
pub(crate) fn link_battle(
    conn: &Connection,
    run: i64,
    at: usize,
    battle: i64,
) -> Result<(), StoreError> {
    let n = conn
        .prepare_cached(
            "UPDATE campaign_run_battles SET battle_id = ?3
             WHERE run_id = ?1 AND pos = ?2 AND end_json IS NULL",
        )?
        .execute(params![run, pos(at), battle])?;
    if n == 0 {
        return Err(StoreError::Invalid(format!(
            "battle {} of campaign run {run} is not waiting to be played",
            at + 1
        )));
    }
    touch(conn, run)
}

fn touch(conn: &Connection, run: i64) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE campaign_runs SET updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?1",
    )?
    .execute([run])?;
    Ok(())
}

/// Writes the end of battle `at` of `run` and, when there is one, the carry into the next (at
/// `at + 1`); the run's forces become those at the next battle's start, or at this one's end.
/// Refused when that battle is already over or is not the run's next.
pub(crate) fn finish(
    conn: &Connection,
    run: i64,
    at: usize,
    end: &RunBattleEnd,
    next: Option<&RunBattleStart>,
) -> Result<(), StoreError> {
    let played: i64 = conn
        .prepare_cached("SELECT played FROM campaign_runs WHERE id = ?1")?
        .query_row([run], |r| r.get(0))
        .optional()?
        .ok_or_else(|| StoreError::NotFound(format!("campaign run {run}")))?;
    if played != pos(at) {
        return Err(StoreError::Invalid(format!(
            "campaign run {run} has played {played} battles: battle {} is not the next",
            at + 1
        )));
    }
    let n = conn
        .prepare_cached(
            "UPDATE campaign_run_battles SET end_json = ?3, after_json = ?4, result_json = ?5,
                 hand_json = ?6
             WHERE run_id = ?1 AND pos = ?2 AND end_json IS NULL",
        )?
        .execute(params![
            run,
            pos(at),
            json_text(&end.end, "the forces at the battle's end")?,
            json_text(&end.after, "the report of the battle")?,
            json_text(&end.result, "the battle's result")?,
            end.hand
                .as_ref()
                .map(|h| json_text(h, "the result entered"))
                .transpose()?,
        ])?;
    if n == 0 {
        return Err(StoreError::Invalid(format!(
            "battle {} of campaign run {run} is already over",
            at + 1
        )));
    }
    let (forces, status) = match next {
        Some(b) => {
            insert_battle(conn, run, at + 1, b)?;
            (&b.start, RunStatus::InProgress)
        }
        None => (&end.end, RunStatus::Ended),
    };
    conn.prepare_cached(
        "UPDATE campaign_runs SET forces_json = ?2, played = ?3, status = ?4,
             updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
         WHERE id = ?1",
    )?
    .execute(params![
        run,
        json_text(forces, "the campaign's forces")?,
        pos(at + 1),
        enum_text(&status)?
    ])?;
    Ok(())
}

pub(crate) fn delete(conn: &Connection, run: i64) -> Result<(), StoreError> {
    if conn.execute("DELETE FROM campaign_runs WHERE id = ?1", [run])? == 0 {
        return Err(StoreError::NotFound(format!("campaign run {run}")));
    }
    Ok(())
}
