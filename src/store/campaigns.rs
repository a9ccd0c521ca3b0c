//! Campaigns in the database: the campaign row with its carry-over switches, and its battles in
//! order. Written whole inside the caller's transaction, like scenarios.

use super::error::StoreError;
use super::rows::{enum_text, json_text, pos, Cells};
use super::CampaignSummary;
use crate::model::campaign::{Campaign, CampaignBattle, CarryOver};
use crate::model::ids::{CampaignId, ScenarioId};
use rusqlite::{params, Connection, OptionalExtension};

pub(crate) fn exists(conn: &Connection, id: &CampaignId) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM campaigns WHERE id = ?1")?
        .query_row([id.as_str()], |_| Ok(()))
        .optional()?
        .is_some())
}

pub(crate) fn summaries(conn: &Connection) -> Result<Vec<CampaignSummary>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.id, c.name,
                (SELECT COUNT(*) FROM campaign_battles b WHERE b.campaign_id = c.id) AS battles
         FROM campaigns c ORDER BY c.name, c.id",
    )?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let c = Cells::new("campaigns", row, &["id"]);
        out.push(CampaignSummary {
            id: CampaignId(c.text("id")?),
            name: c.text("name")?,
            battles: c.int("battles")?,
        });
    }
    Ok(out)
}

/// Writes a whole campaign, replacing any stored one with the same id.
pub(crate) fn write(conn: &Connection, camp: &Campaign) -> Result<(), StoreError> {
    if camp.id.as_str().is_empty() {
        return Err(StoreError::Invalid(format!(
            "campaign '{}' has an empty id; give it an id before saving",
            camp.name
        )));
    }
    conn.execute("DELETE FROM campaigns WHERE id = ?1", [camp.id.as_str()])?;
    let k = &camp.carry_over;
    conn.prepare_cached(
        "INSERT INTO campaigns (id, name, description, carry_losses, carry_commander_casualties,
             carry_victory_points, carry_weather, sides_json, rules_json, victory_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        camp.id.as_str(),
        camp.name,
        camp.description,
        k.losses,
        k.commander_casualties,
        k.victory_points,
        k.weather,
        json_text(&camp.sides, "the campaign's sides")?,
        json_text(&camp.rules, "the campaign's carry rules")?,
        json_text(&camp.victory, "the campaign's victory condition")?,
    ])?;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO campaign_battles (campaign_id, pos, scenario_id, note, weather, sides_json,
             link_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (i, b) in camp.battles.iter().enumerate() {
        stmt.execute(params![
            camp.id.as_str(),
            pos(i),
            b.scenario.as_str(),
            b.note,
            b.weather.map(|w| enum_text(&w)).transpose()?,
            json_text(&b.sides, "the battle's sides")?,
            json_text(&b.link, "the battle's link")?,
        ])?;
    }
    Ok(())
}

/// Reads a whole campaign, or `None` when there is none with this id.
pub(crate) fn read(conn: &Connection, id: &CampaignId) -> Result<Option<Campaign>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT * FROM campaigns WHERE id = ?1")?;
    let mut rows = stmt.query([id.as_str()])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let c = Cells::new("campaigns", row, &["id"]);
    let mut camp = Campaign {
        id: CampaignId(c.text("id")?),
        name: c.text("name")?,
        description: c.text("description")?,
        sides: c.json("sides_json")?,
        battles: Vec::new(),
        rules: c.opt_json("rules_json")?.unwrap_or_default(),
        victory: c.opt_json("victory_json")?.unwrap_or_default(),
        carry_over: CarryOver {
            losses: c.flag("carry_losses")?,
            commander_casualties: c.flag("carry_commander_casualties")?,
            victory_points: c.flag("carry_victory_points")?,
            weather: c.flag("carry_weather")?,
        },
    };
    drop(rows);
    let mut stmt =
        conn.prepare_cached("SELECT * FROM campaign_battles WHERE campaign_id = ?1 ORDER BY pos")?;
    let mut rows = stmt.query([id.as_str()])?;
    while let Some(row) = rows.next()? {
        let c = Cells::new("campaign_battles", row, &["campaign_id", "pos"]);
        camp.battles.push(CampaignBattle {
            scenario: ScenarioId(c.text("scenario_id")?),
            note: c.text("note")?,
            weather: c.opt_enum("weather")?,
            sides: c.json("sides_json")?,
            link: c.opt_json("link_json")?.unwrap_or_default(),
        });
    }
    Ok(Some(camp))
}
