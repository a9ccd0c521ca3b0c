//! Scenarios in the database: the scenario row, its sides (orders of battle) with HQs,
//! commanders, units and field defences, and its terrain features. A scenario is always written
//! whole (delete + insert in the caller's transaction), so a save never leaves half of one.

use super::error::StoreError;
use super::rows::{enum_text, json_text, pos, Cells};
use super::ScenarioSummary;
use crate::geom::Point;
use crate::model::defense::FieldDefense;
use crate::model::ids::{
    CommanderId, DefenseId, FeatureId, HqId, ListId, ScenarioId, TroopTypeId, UnitId,
};
use crate::model::measure::MeasureScale;
use crate::model::oob::{Commander, Hq, Placement, Side, Unit};
use crate::model::scenario::{Scenario, Table};
use crate::model::terrain::{Geometry, TerrainFeature, TerrainKind};
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::BTreeMap;

pub(crate) fn exists(conn: &Connection, id: &ScenarioId) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM scenarios WHERE id = ?1")?
        .query_row([id.as_str()], |_| Ok(()))
        .optional()?
        .is_some())
}

pub(crate) fn summaries(conn: &Connection) -> Result<Vec<ScenarioSummary>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, name, date, points, optional_rules_json, first_player FROM scenarios
         ORDER BY name, id",
    )?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let c = Cells::new("scenarios", row, &["id"]);
        out.push(ScenarioSummary {
            id: ScenarioId(c.text("id")?),
            name: c.text("name")?,
            date: c.text("date")?,
            points: c.int("points")?,
            optional_rules: c.json("optional_rules_json")?,
            first_player: c.opt_int("first_player")?,
        });
    }
    Ok(out)
}

/// Refuses numbers SQLite cannot hold faithfully (it stores NaN as NULL) before anything is
/// written, naming where the bad number is.
fn check_finite(s: &Scenario) -> Result<(), StoreError> {
    let bad = |what: String| {
        StoreError::Invalid(format!(
            "scenario '{}': {what} has a coordinate that is not a finite number; fix it before saving",
            s.id
        ))
    };
    let pts = |p: &[Point]| p.iter().all(|p| p.x.is_finite() && p.y.is_finite());
    let place = |p: &Option<Placement>| {
        p.is_none_or(|p| p.at.x.is_finite() && p.at.y.is_finite() && p.facing_deg.is_finite())
    };
    if !(s.table.width_cm.is_finite() && s.table.depth_cm.is_finite()) {
        return Err(bad("the table".to_string()));
    }
    for t in &s.terrain {
        let width_ok = match &t.geometry {
            Geometry::Polygon(_) => true,
            Geometry::Polyline { width_cm, .. } => width_cm.is_finite(),
        };
        if !width_ok || !pts(t.geometry.points()) {
            return Err(bad(format!("terrain feature {} '{}'", t.id, t.name)));
        }
    }
    for side in &s.sides {
        if !pts(&side.deployment_zone)
            || !pts(&side.objectives.major.area)
            || !pts(&side.objectives.minor.area)
        {
            return Err(bad(format!("side '{}'", side.name)));
        }
        if let Some(h) = side.hqs.iter().find(|h| !place(&h.position)) {
            return Err(bad(format!("HQ {} '{}'", h.id, h.name)));
        }
        if let Some(u) = side.units.iter().find(|u| !place(&u.position)) {
            return Err(bad(format!("unit {} '{}'", u.id, u.name)));
        }
        if let Some(d) = side.field_defenses.iter().find(|d| !pts(&d.at)) {
            return Err(bad(format!("field defence {}", d.id)));
        }
    }
    Ok(())
}

fn placement_cols(p: &Option<Placement>) -> (Option<f64>, Option<f64>, Option<f64>) {
    match p {
        Some(p) => (Some(p.at.x), Some(p.at.y), Some(p.facing_deg)),
        None => (None, None, None),
    }
}

fn placement_from(c: &Cells<'_, '_>) -> Result<Option<Placement>, StoreError> {
    match (
        c.opt_real("x")?,
        c.opt_real("y")?,
        c.opt_real("facing_deg")?,
    ) {
        (Some(x), Some(y), Some(facing_deg)) => Ok(Some(Placement {
            at: Point::new(x, y),
            facing_deg,
        })),
        (None, None, None) => Ok(None),
        _ => Err(c.bad("x/y/facing_deg", "must be all set or all NULL")),
    }
}

/// The kind's name and hill level, as the columns hold them.
fn kind_cols(kind: &TerrainKind) -> Result<(String, Option<u8>), StoreError> {
    let level = match kind {
        TerrainKind::Hill { level } => Some(*level),
        _ => None,
    };
    match serde_json::to_value(kind) {
        Ok(serde_json::Value::Object(m)) if m.len() == 1 + usize::from(level.is_some()) => {
            match m.get("kind") {
                Some(serde_json::Value::String(s)) => Ok((s.clone(), level)),
                _ => Err(StoreError::Invalid(format!(
                    "terrain kind {kind:?} has no name the schema can store"
                ))),
            }
        }
        _ => Err(StoreError::Invalid(format!(
            "terrain kind {kind:?} carries data the schema has no column for (a migration is needed)"
        ))),
    }
}

fn kind_from(c: &Cells<'_, '_>) -> Result<TerrainKind, StoreError> {
    let name = c.text("kind")?;
    let level: Option<u8> = c.opt_int("hill_level")?;
    let mut obj = serde_json::Map::new();
    obj.insert("kind".to_string(), serde_json::Value::String(name.clone()));
    if let Some(l) = level {
        obj.insert("level".to_string(), l.into());
    }
    let kind: TerrainKind =
        serde_json::from_value(serde_json::Value::Object(obj)).map_err(|e| {
            c.bad(
                "kind",
                format!("holds '{name}' (hill_level {level:?}), which is not a terrain kind ({e})"),
            )
        })?;
    if level.is_some() && !matches!(kind, TerrainKind::Hill { .. }) {
        return Err(c.bad(
            "hill_level",
            format!("is set for a feature of kind '{name}'"),
        ));
    }
    Ok(kind)
}

/// Writes a whole scenario, replacing any stored one with the same id. Call inside a transaction.
pub(crate) fn write(conn: &Connection, s: &Scenario) -> Result<(), StoreError> {
    if s.id.as_str().is_empty() {
        return Err(StoreError::Invalid(format!(
            "scenario '{}' has an empty id; give it an id before saving",
            s.name
        )));
    }
    check_finite(s)?;
    let what = format!("scenario '{}'", s.id);
    conn.execute("DELETE FROM scenarios WHERE id = ?1", [s.id.as_str()])?;
    conn.prepare_cached(
        "INSERT INTO scenarios (id, format, name, date, year, description, table_width_cm,
             table_depth_cm, scale, points, turn_limit, weather, defense, defender,
             optional_rules_json, measure_scale, teams_json, first_player)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
    )?
    .execute(params![
        s.id.as_str(),
        s.format,
        s.name,
        s.date,
        s.year,
        s.description,
        s.table.width_cm,
        s.table.depth_cm,
        enum_text(&s.scale)?,
        s.points,
        s.turn_limit,
        enum_text(&s.weather)?,
        enum_text(&s.defense)?,
        s.defender.map(pos),
        json_text(&s.optional_rules, &what)?,
        s.measure_scale.factor(),
        json_text(&s.teams, &what)?,
        s.first_player.map(pos),
    ])?;

    for (si, side) in s.sides.iter().enumerate() {
        let si = pos(si);
        let what = format!("{what}, side '{}'", side.name);
        conn.prepare_cached(
            "INSERT INTO sides (scenario_id, side, name, army_list, colour_r, colour_g, colour_b,
                 deployment_zone_json, objectives_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            s.id.as_str(),
            si,
            side.name,
            side.army_list.as_str(),
            side.colour[0],
            side.colour[1],
            side.colour[2],
            json_text(&side.deployment_zone, &what)?,
            json_text(&side.objectives, &what)?,
        ])?;

        for (hp, hq) in side.hqs.iter().enumerate() {
            let (x, y, f) = placement_cols(&hq.position);
            conn.prepare_cached(
                "INSERT INTO hqs (scenario_id, side, pos, id, name, parent, mounted, x, y,
                     facing_deg, fao, nation, ally)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?
            .execute(params![
                s.id.as_str(),
                si,
                pos(hp),
                hq.id.0,
                hq.name,
                hq.parent.map(|p| p.0),
                hq.mounted,
                x,
                y,
                f,
                hq.fao,
                hq.nation,
                hq.ally
            ])?;
            let c = &hq.commander;
            conn.prepare_cached(
                "INSERT INTO commanders (scenario_id, side, hq_pos, id, name, note, level,
                     quality, command_value, replaced_once)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                s.id.as_str(),
                si,
                pos(hp),
                c.id.0,
                c.name,
                c.note,
                enum_text(&c.level)?,
                enum_text(&c.quality)?,
                c.command_value,
                c.replaced_once
            ])?;
        }

        for (up, u) in side.units.iter().enumerate() {
            let (x, y, f) = placement_cols(&u.position);
            conn.prepare_cached(
                "INSERT INTO units (scenario_id, side, pos, id, name, troop_type, stands, hq,
                     grade, engineer_attached, brigade_skirmishers, regimental_guns, lancers,
                     horse_artillery, pikes, x, y, facing_deg, morale_grade, nation)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                     ?17, ?18, ?19, ?20)",
            )?
            .execute(params![
                s.id.as_str(),
                si,
                pos(up),
                u.id.0,
                u.name,
                u.troop_type.as_str(),
                u.stands,
                u.hq.0,
                enum_text(&u.grade)?,
                u.engineer_attached,
                u.brigade_skirmishers,
                u.regimental_guns,
                u.lancers,
                u.horse_artillery,
                u.pikes,
                x,
                y,
                f,
                u.morale_grade.as_ref().map(enum_text).transpose()?,
                u.nation
            ])?;
        }

        for (dp, d) in side.field_defenses.iter().enumerate() {
            conn.prepare_cached(
                "INSERT INTO field_defenses (scenario_id, side, pos, id, kind, sections, at_json,
                     occupant)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                s.id.as_str(),
                si,
                pos(dp),
                d.id.0,
                enum_text(&d.kind)?,
                d.sections,
                json_text(&d.at, &format!("{what}, field defence {}", d.id))?,
                d.occupant.map(|o| o.0)
            ])?;
        }
    }

    for (tp, t) in s.terrain.iter().enumerate() {
        insert_feature(conn, s, tp, t, &what)?;
    }
    Ok(())
}

/// Writes one terrain feature's row at position `tp` of scenario `s`.
fn insert_feature(
    conn: &Connection,
    s: &Scenario,
    tp: usize,
    t: &TerrainFeature,
    what: &str,
) -> Result<(), StoreError> {
    let (kind, level) = kind_cols(&t.kind)?;
    let (shape, width) = match &t.geometry {
        Geometry::Polygon(_) => ("polygon", None),
        Geometry::Polyline { width_cm, .. } => ("polyline", Some(*width_cm)),
    };
    conn.prepare_cached(
        "INSERT INTO terrain_features (scenario_id, pos, id, name, kind, hill_level, shape,
             width_cm, points_json, dense, frozen, construction)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        s.id.as_str(),
        pos(tp),
        t.id.0,
        t.name,
        kind,
        level,
        shape,
        width,
        json_text(
            &t.geometry.points(),
            &format!("{what}, terrain feature {}", t.id)
        )?,
        t.dense,
        t.frozen,
        t.construction.as_ref().map(enum_text).transpose()?
    ])?;
    Ok(())
}

/// Whether `a` and `b` differ at most in their terrain features, each kept at its place (the
/// same number, the same id at each position): an edit of the table that
/// [`write_changes`] can store row by row. Every field is named, so a field added to
/// `Scenario` must be decided here.
fn only_terrain_changed(a: &Scenario, b: &Scenario) -> bool {
    let Scenario {
        format,
        id,
        name,
        date,
        year,
        description,
        table,
        scale,
        measure_scale,
        points,
        turn_limit,
        weather,
        defense,
        defender,
        first_player,
        optional_rules,
        terrain,
        sides,
        teams,
    } = a;
    *format == b.format
        && *id == b.id
        && *name == b.name
        && *date == b.date
        && *year == b.year
        && *description == b.description
        && *table == b.table
        && *scale == b.scale
        && *measure_scale == b.measure_scale
        && *points == b.points
        && *turn_limit == b.turn_limit
        && *weather == b.weather
        && *defense == b.defense
        && *defender == b.defender
        && *first_player == b.first_player
        && *optional_rules == b.optional_rules
        && *sides == b.sides
        && *teams == b.teams
        && terrain.len() == b.terrain.len()
        && terrain.iter().zip(&b.terrain).all(|(x, y)| x.id == y.id)
}

/// Stores `after` over the stored `before`: when only features of the table changed in place
/// (a corner dragged, a wood moved, and their undo), only their rows are written again;
/// otherwise the whole scenario, as [`write`]. Call inside a transaction. The stored scenario
/// is `after` either way (issue #18 item 10: a corner edit of a 150-feature table saves in
/// well under a millisecond instead of rewriting every row).
pub(crate) fn write_changes(
    conn: &Connection,
    before: &Scenario,
    after: &Scenario,
) -> Result<(), StoreError> {
    if !only_terrain_changed(before, after) {
        return write(conn, after);
    }
    check_finite(after)?;
    let what = format!("scenario '{}'", after.id);
    for (tp, (old, new)) in before.terrain.iter().zip(&after.terrain).enumerate() {
        if old == new {
            continue;
        }
        let gone = conn.execute(
            "DELETE FROM terrain_features WHERE scenario_id = ?1 AND pos = ?2",
            params![after.id.as_str(), pos(tp)],
        )?;
        if gone != 1 {
            // The store does not hold `before` after all: write the whole scenario.
            return write(conn, after);
        }
        insert_feature(conn, after, tp, new, &what)?;
    }
    Ok(())
}

/// Maps a child row's side index to the side it belongs to.
fn side_of<'a>(
    sides: &'a mut [Side],
    index: &BTreeMap<i64, usize>,
    c: &Cells<'_, '_>,
) -> Result<&'a mut Side, StoreError> {
    let si: i64 = c.int("side")?;
    index
        .get(&si)
        .and_then(|i| sides.get_mut(*i))
        .ok_or_else(|| {
            c.bad(
                "side",
                format!("names side {si}, which the scenario does not have"),
            )
        })
}

/// Reads a whole scenario, or `None` when there is none with this id.
pub(crate) fn read(conn: &Connection, id: &ScenarioId) -> Result<Option<Scenario>, StoreError> {
    let key = id.as_str();
    let mut stmt = conn.prepare_cached("SELECT * FROM scenarios WHERE id = ?1")?;
    let mut rows = stmt.query([key])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let c = Cells::new("scenarios", row, &["id"]);
    let mut s = Scenario {
        format: c.int("format")?,
        id: ScenarioId(c.text("id")?),
        name: c.text("name")?,
        date: c.text("date")?,
        year: c.opt_int("year")?,
        description: c.text("description")?,
        table: Table {
            width_cm: c.real("table_width_cm")?,
            depth_cm: c.real("table_depth_cm")?,
        },
        scale: c.enumv("scale")?,
        measure_scale: {
            let f = c.real("measure_scale")?;
            MeasureScale::from_factor(f)
                .ok_or_else(|| c.bad("measure_scale", format!("holds {f}, not 0.5, 1 or 2")))?
        },
        points: c.int("points")?,
        turn_limit: c.int("turn_limit")?,
        weather: c.enumv("weather")?,
        defense: c.enumv("defense")?,
        defender: c.opt_int("defender")?,
        first_player: c.opt_int("first_player")?,
        teams: c.json("teams_json")?,
        optional_rules: c.json("optional_rules_json")?,
        terrain: Vec::new(),
        sides: Vec::new(),
    };
    drop(rows);

    let mut index = BTreeMap::new();
    let mut stmt =
        conn.prepare_cached("SELECT * FROM sides WHERE scenario_id = ?1 ORDER BY side")?;
    let mut rows = stmt.query([key])?;
    while let Some(row) = rows.next()? {
        let c = Cells::new("sides", row, &["scenario_id", "side"]);
        index.insert(c.int::<i64>("side")?, s.sides.len());
        s.sides.push(Side {
            name: c.text("name")?,
            army_list: ListId(c.text("army_list")?),
            colour: [c.int("colour_r")?, c.int("colour_g")?, c.int("colour_b")?],
            hqs: Vec::new(),
            units: Vec::new(),
            field_defenses: Vec::new(),
            deployment_zone: c.json("deployment_zone_json")?,
            objectives: c.json("objectives_json")?,
        });
    }
    drop(rows);

    let mut stmt = conn.prepare_cached(
        "SELECT h.*, c.hq_pos AS c_hq_pos, c.id AS c_id, c.name AS c_name, c.note AS c_note,
                c.level AS c_level, c.quality AS c_quality, c.command_value AS c_command_value,
                c.replaced_once AS c_replaced_once
         FROM hqs h LEFT JOIN commanders c
             ON c.scenario_id = h.scenario_id AND c.side = h.side AND c.hq_pos = h.pos
         WHERE h.scenario_id = ?1 ORDER BY h.side, h.pos",
    )?;
    let mut rows = stmt.query([key])?;
    while let Some(row) = rows.next()? {
        let c = Cells::new("hqs", row, &["scenario_id", "side", "pos"]);
        if c.opt_int::<i64>("c_hq_pos")?.is_none() {
            return Err(c.bad("pos", "is an HQ with no row in table commanders"));
        }
        let hq = Hq {
            id: HqId(c.int("id")?),
            name: c.text("name")?,
            parent: c.opt_int("parent")?.map(HqId),
            commander: Commander {
                id: CommanderId(c.int("c_id")?),
                name: c.text("c_name")?,
                note: c.text("c_note")?,
                level: c.enumv("c_level")?,
                quality: c.enumv("c_quality")?,
                command_value: c.int("c_command_value")?,
                replaced_once: c.flag("c_replaced_once")?,
            },
            mounted: c.flag("mounted")?,
            position: placement_from(&c)?,
            fao: c.flag("fao")?,
            nation: c.opt_text("nation")?,
            ally: c.flag("ally")?,
        };
        side_of(&mut s.sides, &index, &c)?.hqs.push(hq);
    }
    drop(rows);

    let mut stmt =
        conn.prepare_cached("SELECT * FROM units WHERE scenario_id = ?1 ORDER BY side, pos")?;
    let mut rows = stmt.query([key])?;
    while let Some(row) = rows.next()? {
        let c = Cells::new("units", row, &["scenario_id", "side", "pos"]);
        let unit = Unit {
            id: UnitId(c.int("id")?),
            name: c.text("name")?,
            troop_type: TroopTypeId(c.text("troop_type")?),
            stands: c.int("stands")?,
            hq: HqId(c.int("hq")?),
            grade: c.enumv("grade")?,
            engineer_attached: c.flag("engineer_attached")?,
            brigade_skirmishers: c.flag("brigade_skirmishers")?,
            regimental_guns: c.flag("regimental_guns")?,
            lancers: c.flag("lancers")?,
            horse_artillery: c.flag("horse_artillery")?,
            pikes: c.flag("pikes")?,
            position: placement_from(&c)?,
            morale_grade: c.opt_enum("morale_grade")?,
            nation: c.opt_text("nation")?,
        };
        side_of(&mut s.sides, &index, &c)?.units.push(unit);
    }
    drop(rows);

    let mut stmt = conn
        .prepare_cached("SELECT * FROM field_defenses WHERE scenario_id = ?1 ORDER BY side, pos")?;
    let mut rows = stmt.query([key])?;
    while let Some(row) = rows.next()? {
        let c = Cells::new("field_defenses", row, &["scenario_id", "side", "pos"]);
        let d = FieldDefense {
            id: DefenseId(c.int("id")?),
            kind: c.enumv("kind")?,
            sections: c.int("sections")?,
            at: c.json("at_json")?,
            occupant: c.opt_int("occupant")?.map(UnitId),
        };
        side_of(&mut s.sides, &index, &c)?.field_defenses.push(d);
    }
    drop(rows);

    let mut stmt =
        conn.prepare_cached("SELECT * FROM terrain_features WHERE scenario_id = ?1 ORDER BY pos")?;
    let mut rows = stmt.query([key])?;
    while let Some(row) = rows.next()? {
        let c = Cells::new("terrain_features", row, &["scenario_id", "pos"]);
        let points: Vec<Point> = c.json("points_json")?;
        let geometry = match (c.text("shape")?.as_str(), c.opt_real("width_cm")?) {
            ("polygon", None) => Geometry::Polygon(points),
            ("polyline", Some(width_cm)) => Geometry::Polyline { points, width_cm },
            (shape, width) => {
                return Err(c.bad(
                    "shape",
                    format!("holds '{shape}' with width_cm {width:?}; expected a polygon without a width or a polyline with one"),
                ))
            }
        };
        s.terrain.push(TerrainFeature {
            id: FeatureId(c.int("id")?),
            name: c.text("name")?,
            kind: kind_from(&c)?,
            geometry,
            dense: c.flag("dense")?,
            frozen: c.flag("frozen")?,
            construction: c.opt_enum("construction")?,
        });
    }
    Ok(Some(s))
}
