//! Campaigns in the database: the campaign row with its carry-over switches, and its battles in
//! order. Written whole inside the caller's transaction, like scenarios.

use super::error::StoreError;
use super::rows::{enum_text, json_text, pos, Cells};
use super::CampaignSummary;
use crate::model::campaign::{
    BattleLink, Campaign, CampaignBattle, CampaignSide, CarryOver, CarryRules, VictoryCondition,
};
use crate::model::ids::{CampaignId, ScenarioId};
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

/// What a linked campaign adds to the columns (schema 9, `campaigns.links`): its sides, carry
/// rules, victory condition and, per battle in order, its side mapping and link.
#[derive(Serialize, Deserialize, Default)]
struct Links {
    #[serde(default)]
    sides: Vec<CampaignSide>,
    #[serde(default)]
    rules: CarryRules,
    #[serde(default)]
    victory: VictoryCondition,
    #[serde(default)]
    battles: Vec<BattleLinks>,
}

#[derive(Serialize, Deserialize, Default)]
struct BattleLinks {
    #[serde(default)]
    sides: Vec<usize>,
    #[serde(default)]
    link: BattleLink,
}

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
             carry_victory_points, carry_weather, links)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        camp.id.as_str(),
        camp.name,
        camp.description,
        k.losses,
        k.commander_casualties,
        k.victory_points,
        k.weather,
        json_text(
            &Links {
                sides: camp.sides.clone(),
                rules: camp.rules.clone(),
                victory: camp.victory.clone(),
                battles: camp
                    .battles
                    .iter()
                    .map(|b| BattleLinks {
                        sides: b.sides.clone(),
                        link: b.link,
                    })
                    .collect(),
            },
            "campaign links"
        )?
    ])?;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO campaign_battles (campaign_id, pos, scenario_id, note, weather)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (i, b) in camp.battles.iter().enumerate() {
        stmt.execute(params![
            camp.id.as_str(),
            pos(i),
            b.scenario.as_str(),
            b.note,
            b.weather.map(|w| enum_text(&w)).transpose()?
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
    let links: Links = c.opt_json("links")?.unwrap_or_default();
    let mut camp = Campaign {
        id: CampaignId(c.text("id")?),
        name: c.text("name")?,
        description: c.text("description")?,
        sides: links.sides,
        battles: Vec::new(),
        rules: links.rules,
        victory: links.victory,
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
            sides: Vec::new(),
            link: BattleLink::default(),
        });
    }
    for (b, l) in camp.battles.iter_mut().zip(links.battles) {
        b.sides = l.sides;
        b.link = l.link;
    }
    Ok(Some(camp))
}
