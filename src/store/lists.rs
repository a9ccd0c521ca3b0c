//! Army lists in the database: whole lists, their troop and command rows, special rules and HQ
//! ranges, the shipped/user origin of each, and the re-sync of the shipped lists.
//!
//! The shipped lists are compiled into the build (`crate::model::army::shipped_lists`). Their
//! rows are written only by [`resync_shipped`], which runs on every open and makes the stored
//! shipped rows equal to this build's, leaving user rows alone. User edits never land on a
//! shipped row: users add rows of their own (origin `user`) or whole user lists.

use super::error::StoreError;
use super::rows::{enum_text, json_text, pos, Cells};
use super::ListSummary;
use crate::model::army::{
    ArmyList, CommandType, HqRange, Limit, SourceRef, SpecialRule, TroopType, Years,
};
use crate::model::ids::{ListId, TroopTypeId};
use crate::model::Save;
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::BTreeSet;

/// Where a list or troop row came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Compiled into the build; rewritten by the re-sync, never by an edit.
    Shipped,
    /// Made in the app; the re-sync never touches it.
    User,
}

impl Origin {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Origin::Shipped => "shipped",
            Origin::User => "user",
        }
    }

    fn parse(table: &str, key: &str, s: &str) -> Result<Origin, StoreError> {
        match s {
            "shipped" => Ok(Origin::Shipped),
            "user" => Ok(Origin::User),
            other => Err(StoreError::Data(format!(
                "table {table}, row ({key}): column origin holds '{other}', not 'shipped' or 'user'"
            ))),
        }
    }
}

/// The origin of a stored list, or `None` when there is no such list.
pub(crate) fn list_origin(conn: &Connection, id: &ListId) -> Result<Option<Origin>, StoreError> {
    let s: Option<String> = conn
        .prepare_cached("SELECT origin FROM army_lists WHERE id = ?1")?
        .query_row([id.as_str()], |r| r.get(0))
        .optional()?;
    s.map(|s| Origin::parse("army_lists", &format!("id='{id}'"), &s))
        .transpose()
}

/// The origin of a stored troop row, or `None` when the list has no such row.
pub(crate) fn troop_origin(
    conn: &Connection,
    list: &ListId,
    row: &TroopTypeId,
) -> Result<Option<Origin>, StoreError> {
    let s: Option<String> = conn
        .prepare_cached("SELECT origin FROM troop_types WHERE list_id = ?1 AND id = ?2")?
        .query_row([list.as_str(), row.as_str()], |r| r.get(0))
        .optional()?;
    s.map(|s| Origin::parse("troop_types", &format!("list_id='{list}', id='{row}'"), &s))
        .transpose()
}

/// The ids of the rows users added to a list, in the order they were added.
pub(crate) fn user_troop_ids(
    conn: &Connection,
    list: &ListId,
) -> Result<Vec<TroopTypeId>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM troop_types WHERE list_id = ?1 AND origin = 'user' ORDER BY pos, id",
    )?;
    let ids = stmt
        .query_map([list.as_str()], |r| r.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ids.into_iter().map(TroopTypeId).collect())
}

/// Every stored list id with its origin: shipped lists in book order, then user lists by name.
pub(crate) fn list_ids(conn: &Connection) -> Result<Vec<(ListId, Origin)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, origin FROM army_lists ORDER BY origin = 'user', pos, name, id",
    )?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let c = Cells::new("army_lists", row, &["id"]);
        let id = c.text("id")?;
        let origin = Origin::parse("army_lists", &format!("id='{id}'"), &c.text("origin")?)?;
        out.push((ListId(id), origin));
    }
    Ok(out)
}

pub(crate) fn summaries(conn: &Connection) -> Result<Vec<ListSummary>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT l.id, l.name, l.period, l.complete, l.origin,
                (SELECT COUNT(*) FROM troop_types t WHERE t.list_id = l.id) AS troop_rows,
                (SELECT COUNT(*) FROM command_types c WHERE c.list_id = l.id) AS command_rows
         FROM army_lists l
         ORDER BY l.origin = 'user', l.pos, l.name, l.id",
    )?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let c = Cells::new("army_lists", row, &["id"]);
        let id = c.text("id")?;
        let origin = Origin::parse("army_lists", &format!("id='{id}'"), &c.text("origin")?)?;
        out.push(ListSummary {
            id: ListId(id),
            name: c.text("name")?,
            period: c.enumv("period")?,
            complete: c.flag("complete")?,
            user: origin == Origin::User,
            troop_rows: c.int("troop_rows")?,
            command_rows: c.int("command_rows")?,
        });
    }
    Ok(out)
}

/// Reads one list. `with_user_rows = false` gives the shipped view of a shipped list (what the
/// re-sync compares with the build).
pub(crate) fn read_list(
    conn: &Connection,
    id: &ListId,
    with_user_rows: bool,
) -> Result<Option<ArmyList>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT * FROM army_lists WHERE id = ?1")?;
    let mut rows = stmt.query([id.as_str()])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let c = Cells::new("army_lists", row, &["id"]);
    let origin = Origin::parse("army_lists", &format!("id='{id}'"), &c.text("origin")?)?;
    let mut list = ArmyList {
        id: ListId(c.text("id")?),
        name: c.text("name")?,
        period: c.enumv("period")?,
        complete: c.flag("complete")?,
        incomplete_reason: c.opt_text("incomplete_reason")?,
        user: origin == Origin::User,
        source: SourceRef {
            seed: c.text("source_seed")?,
            lines: c.text("source_lines")?,
        },
        organisation: c.text("organisation")?,
        first_fire_bonus: c.flag("first_fire_bonus")?,
        ranges_scale: c.flag("ranges_scale")?,
        hq_ranges: Vec::new(),
        caps: c.json("caps_json")?,
        troop_types: Vec::new(),
        command_types: Vec::new(),
        special_rules: Vec::new(),
        missing_rules: c.json("missing_rules_json")?,
    };
    drop(rows);

    let mut stmt =
        conn.prepare_cached("SELECT * FROM hq_ranges WHERE list_id = ?1 ORDER BY pos")?;
    let mut rows = stmt.query([id.as_str()])?;
    while let Some(row) = rows.next()? {
        let c = Cells::new("hq_ranges", row, &["list_id", "pos"]);
        list.hq_ranges.push(HqRange {
            level: c.enumv("level")?,
            min_inf: c.int("min_inf")?,
            max_inf: c.int("max_inf")?,
        });
    }
    drop(rows);

    let sql = if with_user_rows {
        "SELECT * FROM troop_types WHERE list_id = ?1 ORDER BY origin = 'user', pos, id"
    } else {
        "SELECT * FROM troop_types WHERE list_id = ?1 AND origin = 'shipped' ORDER BY pos, id"
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query([id.as_str()])?;
    while let Some(row) = rows.next()? {
        let c = Cells::new("troop_types", row, &["list_id", "id"]);
        list.troop_types.push(troop_from(&c)?);
    }
    drop(rows);

    let mut stmt =
        conn.prepare_cached("SELECT * FROM command_types WHERE list_id = ?1 ORDER BY pos")?;
    let mut rows = stmt.query([id.as_str()])?;
    while let Some(row) = rows.next()? {
        let c = Cells::new("command_types", row, &["list_id", "pos"]);
        list.command_types.push(CommandType {
            level: c.enumv("level")?,
            quality: c.enumv("quality")?,
            command: c.int("command_value")?,
            movement: c.json("move_json")?,
            presence_dice: c.int("presence_dice")?,
            hits: c.int("hits")?,
            save: save_from(&c)?,
            points: c.int("points")?,
            limit: c.json("limit_json")?,
            notes: c.json("notes_json")?,
            corrections: c.json("corrections_json")?,
        });
    }
    drop(rows);

    let mut stmt =
        conn.prepare_cached("SELECT * FROM special_rules WHERE list_id = ?1 ORDER BY pos")?;
    let mut rows = stmt.query([id.as_str()])?;
    while let Some(row) = rows.next()? {
        let c = Cells::new("special_rules", row, &["list_id", "pos"]);
        list.special_rules.push(SpecialRule {
            no: c.int("no")?,
            title: c.text("title")?,
            gist: c.text("gist")?,
            effects: c.json("effects_json")?,
        });
    }
    Ok(Some(list))
}

fn save_from(c: &Cells<'_, '_>) -> Result<Option<Save>, StoreError> {
    match c.opt_int::<u8>("save")? {
        None => Ok(None),
        Some(n) => Save::new(n).map(Some).map_err(|e| c.bad("save", e)),
    }
}

fn troop_from(c: &Cells<'_, '_>) -> Result<TroopType, StoreError> {
    let limit = if c.flag("has_limit")? {
        Some(Limit {
            min: c.opt_int("limit_min")?,
            max: c.opt_int("limit_max")?,
        })
    } else {
        None
    };
    let years = match c.opt_int::<u16>("year_from")? {
        None => None,
        Some(from) => Some(Years {
            from,
            to: c.opt_int("year_to")?,
        }),
    };
    Ok(TroopType {
        id: TroopTypeId(c.text("id")?),
        name: c.text("name")?,
        arm: c.enumv("arm")?,
        movement: c.json("move_json")?,
        attack: c.opt_json("attack_json")?,
        hits: c.int("hits")?,
        save: save_from(c)?,
        points: c.opt_int("points")?,
        limit,
        notes: c.json("notes_json")?,
        role: c.enumv("role")?,
        grade: c.enumv("grade")?,
        grade_optional: c.flag("grade_optional")?,
        years,
        corrections: c.json("corrections_json")?,
    })
}

/// Writes a list's own row and everything but its troop rows.
fn insert_list_parts(
    conn: &Connection,
    list: &ArmyList,
    origin: Origin,
    list_pos: i64,
) -> Result<(), StoreError> {
    let what = format!("army list '{}'", list.id);
    conn.prepare_cached(
        "INSERT INTO army_lists (id, origin, pos, name, period, complete, incomplete_reason,
             source_seed, source_lines, organisation, first_fire_bonus, ranges_scale, caps_json,
             missing_rules_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
         ON CONFLICT (id) DO UPDATE SET origin = excluded.origin, pos = excluded.pos,
             name = excluded.name, period = excluded.period, complete = excluded.complete,
             incomplete_reason = excluded.incomplete_reason, source_seed = excluded.source_seed,
             source_lines = excluded.source_lines, organisation = excluded.organisation,
             first_fire_bonus = excluded.first_fire_bonus, ranges_scale = excluded.ranges_scale,
             caps_json = excluded.caps_json, missing_rules_json = excluded.missing_rules_json",
    )?
    .execute(params![
        list.id.as_str(),
        origin.as_str(),
        list_pos,
        list.name,
        enum_text(&list.period)?,
        list.complete,
        list.incomplete_reason,
        list.source.seed,
        list.source.lines,
        list.organisation,
        list.first_fire_bonus,
        list.ranges_scale,
        json_text(&list.caps, &format!("{what}: caps"))?,
        json_text(&list.missing_rules, &format!("{what}: missing rules"))?,
    ])?;

    let mut stmt = conn.prepare_cached(
        "INSERT INTO hq_ranges (list_id, pos, level, min_inf, max_inf) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (i, r) in list.hq_ranges.iter().enumerate() {
        stmt.execute(params![
            list.id.as_str(),
            pos(i),
            enum_text(&r.level)?,
            r.min_inf,
            r.max_inf
        ])?;
    }

    let mut stmt = conn.prepare_cached(
        "INSERT INTO command_types (list_id, pos, level, quality, command_value, move_json,
             presence_dice, hits, save, points, limit_json, notes_json, corrections_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?;
    for (i, c) in list.command_types.iter().enumerate() {
        let row = format!("{what}: command row {}", c.label());
        stmt.execute(params![
            list.id.as_str(),
            pos(i),
            enum_text(&c.level)?,
            enum_text(&c.quality)?,
            c.command,
            json_text(&c.movement, &row)?,
            c.presence_dice,
            c.hits,
            c.save.map(Save::target),
            c.points,
            json_text(&c.limit, &row)?,
            json_text(&c.notes, &row)?,
            json_text(&c.corrections, &row)?,
        ])?;
    }

    let mut stmt = conn.prepare_cached(
        "INSERT INTO special_rules (list_id, pos, no, title, gist, effects_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (i, r) in list.special_rules.iter().enumerate() {
        stmt.execute(params![
            list.id.as_str(),
            pos(i),
            r.no,
            r.title,
            r.gist,
            json_text(&r.effects, &format!("{what}: special rule {}", r.no))?,
        ])?;
    }
    Ok(())
}

/// Writes one troop row.
pub(crate) fn insert_troop_type(
    conn: &Connection,
    list: &ListId,
    t: &TroopType,
    origin: Origin,
    row_pos: i64,
) -> Result<(), StoreError> {
    if t.id.as_str().is_empty() {
        return Err(StoreError::Invalid(format!(
            "a troop type of army list '{list}' has an empty id; give it an id unique within the list"
        )));
    }
    let what = format!("troop type '{}' of army list '{list}'", t.id);
    conn.prepare_cached(
        "INSERT INTO troop_types (list_id, id, pos, origin, name, arm, move_json, attack_json,
             hits, save, points, has_limit, limit_min, limit_max, notes_json, role, grade,
             grade_optional, year_from, year_to, corrections_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
             ?19, ?20, ?21)",
    )?
    .execute(params![
        list.as_str(),
        t.id.as_str(),
        row_pos,
        origin.as_str(),
        t.name,
        enum_text(&t.arm)?,
        json_text(&t.movement, &what)?,
        t.attack.map(|a| json_text(&a, &what)).transpose()?,
        t.hits,
        t.save.map(Save::target),
        t.points,
        t.limit.is_some(),
        t.limit.and_then(|l| l.min),
        t.limit.and_then(|l| l.max),
        json_text(&t.notes, &what)?,
        enum_text(&t.role)?,
        enum_text(&t.grade)?,
        t.grade_optional,
        t.years.map(|y| y.from),
        t.years.and_then(|y| y.to),
        json_text(&t.corrections, &what)?,
    ])?;
    Ok(())
}

/// Refuses a list whose rows share an id (the id is how scenarios name a row).
pub(crate) fn check_unique_rows(list: &ArmyList) -> Result<(), StoreError> {
    let mut seen = BTreeSet::new();
    for t in &list.troop_types {
        if !seen.insert(t.id.as_str()) {
            return Err(StoreError::Conflict(format!(
                "army list '{}' has two troop types with the id '{}'; give each row its own id",
                list.id, t.id
            )));
        }
    }
    Ok(())
}

/// Writes a whole list whose every row has the list's origin (seeding, user lists).
pub(crate) fn write_whole_list(
    conn: &Connection,
    list: &ArmyList,
    origin: Origin,
    list_pos: i64,
) -> Result<(), StoreError> {
    check_unique_rows(list)?;
    insert_list_parts(conn, list, origin, list_pos)?;
    for (i, t) in list.troop_types.iter().enumerate() {
        insert_troop_type(conn, &list.id, t, origin, pos(i))?;
    }
    Ok(())
}

/// Is every shipped list stored exactly as this build ships it (same lists, same order, same
/// rows)? A stored row that does not even read counts as a difference.
fn shipped_matches(conn: &Connection, shipped: &[ArmyList]) -> Result<bool, StoreError> {
    let stored: Vec<ListId> = list_ids(conn)?
        .into_iter()
        .filter(|(_, o)| *o == Origin::Shipped)
        .map(|(id, _)| id)
        .collect();
    if stored.len() != shipped.len() || stored.iter().zip(shipped).any(|(a, b)| *a != b.id) {
        return Ok(false);
    }
    for list in shipped {
        match read_list(conn, &list.id, false) {
            Ok(Some(mut s)) => {
                s.user = list.user;
                if s != *list {
                    return Ok(false);
                }
            }
            Ok(None) | Err(StoreError::Data(_)) => return Ok(false),
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// The first of `base`, `base-2`, `base-3` … for which `taken` says no.
fn free_id(
    base: &str,
    mut taken: impl FnMut(&str) -> Result<bool, StoreError>,
) -> Result<String, StoreError> {
    if !taken(base)? {
        return Ok(base.to_string());
    }
    let mut n = 2u32;
    loop {
        let candidate = format!("{base}-{n}");
        if !taken(&candidate)? {
            return Ok(candidate);
        }
        n = n.saturating_add(1);
    }
}

/// Makes the stored shipped lists equal to `shipped` (this build's), without losing user data.
/// Runs inside the caller's transaction; returns whether anything was written.
///
/// - A list this build no longer ships is deleted, unless users added rows to it or a scenario
///   names it: then it is kept as a user list (all its rows user rows) so nothing of theirs breaks.
/// - A user list whose id this build now ships is renamed `user-<id>` (scenario sides follow).
/// - A user row whose id a shipped row of the same list now takes is renamed `<id>-user` (units
///   of scenarios on that list follow), so the user's row survives beside the book's.
pub(crate) fn resync_shipped(conn: &Connection, shipped: &[ArmyList]) -> Result<bool, StoreError> {
    if shipped_matches(conn, shipped)? {
        return Ok(false);
    }
    let shipped_ids: BTreeSet<&str> = shipped.iter().map(|l| l.id.as_str()).collect();

    for (id, origin) in list_ids(conn)? {
        if origin != Origin::Shipped || shipped_ids.contains(id.as_str()) {
            continue;
        }
        let user_rows: i64 = conn.query_row(
            "SELECT COUNT(*) FROM troop_types WHERE list_id = ?1 AND origin = 'user'",
            [id.as_str()],
            |r| r.get(0),
        )?;
        let used_by_sides: i64 = conn.query_row(
            "SELECT COUNT(*) FROM sides WHERE army_list = ?1",
            [id.as_str()],
            |r| r.get(0),
        )?;
        if user_rows > 0 || used_by_sides > 0 {
            conn.execute(
                "UPDATE army_lists SET origin = 'user', pos = 0 WHERE id = ?1",
                [id.as_str()],
            )?;
            conn.execute(
                "UPDATE troop_types SET origin = 'user' WHERE list_id = ?1",
                [id.as_str()],
            )?;
        } else {
            conn.execute("DELETE FROM army_lists WHERE id = ?1", [id.as_str()])?;
        }
    }

    for (i, list) in shipped.iter().enumerate() {
        if list_origin(conn, &list.id)? == Some(Origin::User) {
            let new_id = free_id(&format!("user-{}", list.id), |c| {
                Ok(list_origin(conn, &ListId::new(c))?.is_some() || shipped_ids.contains(c))
            })?;
            conn.execute(
                "UPDATE army_lists SET id = ?1 WHERE id = ?2",
                [new_id.as_str(), list.id.as_str()],
            )?;
            conn.execute(
                "UPDATE sides SET army_list = ?1 WHERE army_list = ?2",
                [new_id.as_str(), list.id.as_str()],
            )?;
        }
        for table in ["hq_ranges", "command_types", "special_rules"] {
            conn.execute(
                &format!("DELETE FROM {table} WHERE list_id = ?1"),
                [list.id.as_str()],
            )?;
        }
        conn.execute(
            "DELETE FROM troop_types WHERE list_id = ?1 AND origin = 'shipped'",
            [list.id.as_str()],
        )?;
        check_unique_rows(list)?;
        insert_list_parts(conn, list, Origin::Shipped, pos(i))?;
        for (j, t) in list.troop_types.iter().enumerate() {
            if troop_origin(conn, &list.id, &t.id)?.is_some() {
                let new_id = free_id(&format!("{}-user", t.id), |c| {
                    Ok(
                        troop_origin(conn, &list.id, &TroopTypeId::new(c))?.is_some()
                            || list.troop_type(&TroopTypeId::new(c)).is_some(),
                    )
                })?;
                conn.execute(
                    "UPDATE troop_types SET id = ?1 WHERE list_id = ?2 AND id = ?3",
                    [new_id.as_str(), list.id.as_str(), t.id.as_str()],
                )?;
                conn.execute(
                    "UPDATE units SET troop_type = ?1
                     WHERE troop_type = ?2 AND (scenario_id, side) IN
                         (SELECT scenario_id, side FROM sides WHERE army_list = ?3)",
                    [new_id.as_str(), t.id.as_str(), list.id.as_str()],
                )?;
            }
            insert_troop_type(conn, &list.id, t, Origin::Shipped, pos(j))?;
        }
    }
    Ok(true)
}
