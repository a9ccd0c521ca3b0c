//! The table editor's edits (issue #18): terrain features drawn, reshaped, moved and deleted;
//! units and HQs placed; a side deployed in line in its zone. The pure half, as `edit` is for
//! the order of battle: `edit::apply` hands these [`ScenarioEdit`](crate::ui::ScenarioEdit)
//! variants here, on a copy of the scenario that the app keeps only when this succeeds.
//!
//! A shape is checked against the same boundary checks the file import and the battle start use
//! (`model::validate::geometry_violations`, DATA-04..DATA-09) before it is stored, so nothing
//! the editor saves can be refused later: an outline that crosses itself (DATA-07), has too few
//! corners (DATA-05) or lies off the table (DATA-08) is refused here with the validator's own
//! words. The editor also refuses corners off the table's edge ([`OFF_TABLE`]), which the format
//! allows for a river leaving the table but a designer clicking on the cloth never means.
//!
//! Field defences (`add_defense`, `set_defense`, `delete_defense`) are checked the same way for
//! their shape, and their purchase against DEF-01..03 (`model::purchase_refusal`): over the
//! budget is refused; placed outside the defender's zone (DEF-05) is kept and reported.
//!
//! No store and no egui.

use super::edit::EditError;
use crate::geom::Point;
use crate::model::validate::{geometry_violations, Subject};
use crate::model::{
    next_defense_id, purchase_refusal, ArmyList, DefenseId, FeatureId, FieldDefense, HqId,
    Placement, Scenario, Table, TerrainFeature, UnitId, SCENARIO_FORMAT,
};
use crate::rules::geometry::footprint_of;
use crate::rules::{BattleState, Ctx, PieceId};
use crate::ui::{ReadyMade, SideArea};

/// The rule cited for a corner the editor refuses because it lies off the table's edge: the
/// table edge is the edge of play (MOVE-02).
pub const OFF_TABLE: &str = "MOVE-02";

/// The next feature id: the largest in the scenario plus one.
pub fn next_feature_id(s: &Scenario) -> FeatureId {
    FeatureId(s.terrain.iter().map(|f| f.id.0).max().map_or(1, |m| m + 1))
}

/// The first reason `f` cannot stand on a table of this size, as an edit error naming the rule:
/// a corner off the table, then the boundary checks of `geometry_violations`.
pub fn check_feature(table: Table, f: &TerrainFeature) -> Result<(), EditError> {
    if let Some(p) = f
        .geometry
        .points()
        .iter()
        .find(|p| p.x < 0.0 || p.y < 0.0 || p.x > table.width_cm || p.y > table.depth_cm)
    {
        return Err(EditError::Shape {
            rule: OFF_TABLE,
            message: format!(
                "'{}' has a corner at ({:.1}, {:.1}) cm, off the {} × {} cm table: keep every \
                 corner on the cloth",
                f.name, p.x, p.y, table.width_cm, table.depth_cm
            ),
        });
    }
    let probe = Scenario {
        format: SCENARIO_FORMAT,
        id: crate::model::ScenarioId::new("probe"),
        name: String::new(),
        date: String::new(),
        year: None,
        description: String::new(),
        table,
        scale: Default::default(),
        measure_scale: Default::default(),
        points: 0,
        turn_limit: 0,
        weather: Default::default(),
        defense: Default::default(),
        defender: None,
        first_player: None,
        teams: Vec::new(),
        optional_rules: Vec::new(),
        terrain: vec![f.clone()],
        sides: Vec::new(),
    };
    match geometry_violations(&probe).into_iter().next() {
        Some(v) => Err(EditError::Shape {
            rule: v.rule,
            message: v.message,
        }),
        None => Ok(()),
    }
}

/// Adds a drawn feature under a fresh id (the id it was drawn with is ignored).
pub fn add_feature(s: &mut Scenario, f: &TerrainFeature) -> Result<FeatureId, EditError> {
    let mut f = f.clone();
    f.id = next_feature_id(s);
    if f.name.trim().is_empty() {
        f.name = format!("{} {}", f.kind.label(), f.id);
    }
    check_feature(s.table, &f)?;
    let id = f.id;
    s.terrain.push(f);
    Ok(id)
}

/// Replaces the feature with `f`'s id (a reshaped, moved or re-kinded feature).
pub fn set_feature(s: &mut Scenario, f: &TerrainFeature) -> Result<(), EditError> {
    check_feature(s.table, f)?;
    let slot = s
        .terrain
        .iter_mut()
        .find(|t| t.id == f.id)
        .ok_or(EditError::NoFeature(f.id))?;
    *slot = f.clone();
    Ok(())
}

pub fn delete_feature(s: &mut Scenario, id: FeatureId) -> Result<(), EditError> {
    let before = s.terrain.len();
    s.terrain.retain(|f| f.id != id);
    if s.terrain.len() == before {
        return Err(EditError::NoFeature(id));
    }
    Ok(())
}

/// An ellipse of `n` corners about `c`, half-widths `rx`, `ry`, a little irregular (every other
/// corner pulled in by `dent`) so it looks drawn by hand.
fn blob(c: Point, rx: f64, ry: f64, n: usize, dent: f64) -> Vec<Point> {
    (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            let k = if i % 2 == 1 { 1.0 - dent } else { 1.0 };
            Point::new(c.x + rx * k * a.cos(), c.y + ry * k * a.sin())
        })
        .collect()
}

fn rect(c: Point, w: f64, d: f64) -> Vec<Point> {
    vec![
        Point::new(c.x - w / 2.0, c.y - d / 2.0),
        Point::new(c.x + w / 2.0, c.y - d / 2.0),
        Point::new(c.x + w / 2.0, c.y + d / 2.0),
        Point::new(c.x - w / 2.0, c.y + d / 2.0),
    ]
}

/// The features of a ready-made piece centred at `at` (ids 0: [`add_piece`] numbers them).
/// Sizes are what a wargamer puts down on a 240 × 180 cm cloth: a 30 × 20 cm wood, a 16 × 12 cm
/// village, a 20 × 16 cm walled yard, a hill 40 × 26 cm with a crest contour half that, a river
/// 8 cm wide across the table with a road 4 cm wide bridging it, a road 60 cm long.
pub fn ready_made(piece: ReadyMade, at: Point, table: Table) -> Vec<TerrainFeature> {
    use crate::model::{Geometry, TerrainKind};
    let f = |name: &str, kind: TerrainKind, geometry: Geometry| TerrainFeature {
        id: FeatureId(0),
        name: name.to_string(),
        kind,
        geometry,
        dense: false,
        frozen: false,
        construction: None,
    };
    match piece {
        ReadyMade::Wood => vec![f(
            "Wood",
            TerrainKind::HighArea,
            Geometry::Polygon(blob(at, 15.0, 10.0, 10, 0.15)),
        )],
        ReadyMade::Village => vec![f(
            "Village",
            TerrainKind::BuiltUp,
            Geometry::Polygon(blob(at, 8.0, 6.0, 8, 0.1)),
        )],
        ReadyMade::Farm => {
            let mut wall = rect(at, 20.0, 16.0);
            if let Some(first) = wall.first().copied() {
                wall.push(first); // a line closing on itself: the yard wall
            }
            vec![
                f(
                    "Farmhouse",
                    TerrainKind::BuiltUp,
                    Geometry::Polygon(rect(at, 8.0, 6.0)),
                ),
                f(
                    "Farmyard wall",
                    TerrainKind::Linear,
                    Geometry::Polyline {
                        points: wall,
                        width_cm: 0.0,
                    },
                ),
            ]
        }
        ReadyMade::Hill => vec![
            f(
                "Hill",
                TerrainKind::Hill { level: 1 },
                Geometry::Polygon(blob(at, 20.0, 13.0, 12, 0.08)),
            ),
            f(
                "Hill crest",
                TerrainKind::Hill { level: 2 },
                Geometry::Polygon(blob(at, 10.0, 6.5, 10, 0.08)),
            ),
        ],
        ReadyMade::RiverWithBridge => vec![
            f(
                "River",
                TerrainKind::DeepWet,
                Geometry::Polygon(vec![
                    Point::new(0.0, at.y - 4.0),
                    Point::new(table.width_cm, at.y - 4.0),
                    Point::new(table.width_cm, at.y + 4.0),
                    Point::new(0.0, at.y + 4.0),
                ]),
            ),
            f(
                "Bridge road",
                TerrainKind::Road,
                Geometry::Polyline {
                    points: vec![Point::new(at.x, at.y - 12.0), Point::new(at.x, at.y + 12.0)],
                    width_cm: 4.0,
                },
            ),
        ],
        ReadyMade::Road => vec![f(
            "Road",
            TerrainKind::Road,
            Geometry::Polyline {
                points: vec![Point::new(at.x - 30.0, at.y), Point::new(at.x + 30.0, at.y)],
                width_cm: 4.0,
            },
        )],
    }
}

/// Adds a ready-made piece: every feature of it or none.
pub fn add_piece(s: &mut Scenario, piece: ReadyMade, at: Point) -> Result<(), EditError> {
    let mut next = s.clone();
    for f in ready_made(piece, at, s.table) {
        add_feature(&mut next, &f)?;
    }
    *s = next;
    Ok(())
}

/// Sets (or, with `None`, clears) where a unit starts.
pub fn place_unit(
    s: &mut Scenario,
    side: usize,
    unit: UnitId,
    at: Option<Placement>,
) -> Result<(), EditError> {
    let d = s.sides.get_mut(side).ok_or(EditError::NoSide(side))?;
    let u = d
        .units
        .iter_mut()
        .find(|u| u.id == unit)
        .ok_or(EditError::NoUnit(unit))?;
    u.position = at;
    Ok(())
}

/// Sets (or clears) where an HQ starts.
pub fn place_hq(
    s: &mut Scenario,
    side: usize,
    hq: HqId,
    at: Option<Placement>,
) -> Result<(), EditError> {
    let d = s.sides.get_mut(side).ok_or(EditError::NoSide(side))?;
    let h = d
        .hqs
        .iter_mut()
        .find(|h| h.id == hq)
        .ok_or(EditError::NoHq(hq))?;
    h.position = at;
    Ok(())
}

/// Sets a side's deployment zone or objective area (an empty ring clears it). A ring is
/// refused with a corner off the table ([`OFF_TABLE`]), fewer than three corners or a repeated
/// corner (DATA-05), or sides that cross (DATA-07: the editor asks this of zones too, although
/// a crossing changes no rule, because "inside" a bow tie is not what anyone drew).
pub fn set_area(
    s: &mut Scenario,
    side: usize,
    area: SideArea,
    ring: &[Point],
) -> Result<(), EditError> {
    let t = s.table;
    if !ring.is_empty() {
        let d = s.sides.get(side).ok_or(EditError::NoSide(side))?;
        let what = format!("{}'s {}", d.name, area.label().to_lowercase());
        if let Some(p) = ring
            .iter()
            .find(|p| p.x < 0.0 || p.y < 0.0 || p.x > t.width_cm || p.y > t.depth_cm)
        {
            return Err(EditError::Shape {
                rule: OFF_TABLE,
                message: format!(
                    "{what} has a corner at ({:.1}, {:.1}) cm, off the {} × {} cm table: keep                      every corner on the cloth",
                    p.x, p.y, t.width_cm, t.depth_cm
                ),
            });
        }
        if let Some(p) = crate::model::validate::first_crossing(ring, true) {
            return Err(EditError::Shape {
                rule: "DATA-07",
                message: format!(
                    "{what} crosses itself at ({:.1}, {:.1}) cm: redraw it without the crossing",
                    p.x, p.y
                ),
            });
        }
    }
    let d = s.sides.get_mut(side).ok_or(EditError::NoSide(side))?;
    let slot = match area {
        SideArea::DeploymentZone => &mut d.deployment_zone,
        SideArea::MajorObjective => &mut d.objectives.major.area,
        SideArea::MinorObjective => &mut d.objectives.minor.area,
    };
    let old = std::mem::replace(slot, ring.to_vec());
    // The shape checks of the file format (DATA-05, DATA-06) on the side as it now is.
    let bad = geometry_violations(s)
        .into_iter()
        .find(|v| v.subject == crate::model::validate::Subject::Side(side));
    if let Some(v) = bad {
        if let Some(d) = s.sides.get_mut(side) {
            let slot = match area {
                SideArea::DeploymentZone => &mut d.deployment_zone,
                SideArea::MajorObjective => &mut d.objectives.major.area,
                SideArea::MinorObjective => &mut d.objectives.minor.area,
            };
            *slot = old;
        }
        return Err(EditError::Shape {
            rule: v.rule,
            message: v.message,
        });
    }
    Ok(())
}

/// The room left between neighbouring units laid out by [`deploy_side`], cm.
pub const DEPLOY_GAP_CM: f64 = 4.0;

/// The ground a side deploys on: its zone's bounding box, or without a zone the quarter of the
/// table on its own edge (side 0 the near edge, y = 0; side 1 the far one).
fn deploy_box(s: &Scenario, side: usize) -> (Point, Point) {
    let t = s.table;
    let zone = s
        .sides
        .get(side)
        .map(|d| d.deployment_zone.as_slice())
        .unwrap_or_default();
    if zone.len() >= 3 {
        let r = crate::geom::footprint::rect_of(zone.iter().copied());
        let clamp = |p: Point| Point::new(p.x.clamp(0.0, t.width_cm), p.y.clamp(0.0, t.depth_cm));
        return (clamp(r.min), clamp(r.max));
    }
    let q = t.depth_cm / 4.0;
    if side == 0 {
        (Point::new(0.0, 0.0), Point::new(t.width_cm, q))
    } else {
        (
            Point::new(0.0, t.depth_cm - q),
            Point::new(t.width_cm, t.depth_cm),
        )
    }
}

/// "Deploy this side": every unit of the side, then its HQs, laid out in line abreast across its
/// zone, facing the enemy (side 0 towards +y, side 1 towards −y), front rank nearest the enemy,
/// further ranks behind when a rank is full — a starting point the designer then adjusts. Units
/// keep their order of battle order. Each unit's width and depth are the engine's own footprint
/// in its starting formation. Units that do not fit in the zone's box are left where they were.
pub fn deploy_side(s: &mut Scenario, lists: &[ArmyList], side: usize) -> Result<(), EditError> {
    deploy_pieces(s, lists, side, None)
}

/// "Deploy this HQ": the HQ, its units and everything under it (sub-HQs and their units), laid
/// out in line in the side's zone as [`deploy_side`] does, in the first room along the ranks
/// that the side's other placed pieces leave free. The side's other pieces stay where they are.
pub fn deploy_hq(
    s: &mut Scenario,
    lists: &[ArmyList],
    side: usize,
    hq: HqId,
) -> Result<(), EditError> {
    let d = s.sides.get(side).ok_or(EditError::NoSide(side))?;
    if d.hq(hq).is_none() {
        return Err(EditError::NoHq(hq));
    }
    // The HQ and every HQ beneath it (a parent chain is never a loop: MoveHq refuses one).
    let mut hqs = vec![hq];
    let mut i = 0;
    while let Some(h) = hqs.get(i).copied() {
        for sub in d.hqs.iter().filter(|x| x.parent == Some(h)) {
            if !hqs.contains(&sub.id) {
                hqs.push(sub.id);
            }
        }
        i += 1;
    }
    let mut chosen: Vec<PieceId> = d
        .units
        .iter()
        .filter(|u| hqs.contains(&u.hq))
        .map(|u| PieceId::Unit { side, unit: u.id })
        .collect();
    chosen.extend(hqs.iter().map(|&h| PieceId::Hq { side, hq: h }));
    deploy_pieces(s, lists, side, Some(&chosen))
}

/// Lays the side's pieces out in line (all of them, or only `chosen`), keeping clear of the
/// side's placed pieces that are not being laid out.
fn deploy_pieces(
    s: &mut Scenario,
    lists: &[ArmyList],
    side: usize,
    chosen: Option<&[PieceId]>,
) -> Result<(), EditError> {
    if side >= s.sides.len() {
        return Err(EditError::NoSide(side));
    }
    let wanted = |id: PieceId| chosen.is_none_or(|c| c.contains(&id));
    // The ground the side's other placed pieces already stand on.
    let mut taken: Vec<crate::geom::Rect> = Vec::new();
    if chosen.is_some() {
        if let Ok(state) = BattleState::lay_out(s, lists, 0) {
            let ctx = Ctx::new(s, lists, &state);
            for p in state.pieces.values() {
                if p.id.side() != side || wanted(p.id) {
                    continue;
                }
                if let Some(fp) = footprint_of(&ctx, p) {
                    taken.push(crate::geom::footprint::rect_of(
                        fp.stands.iter().flat_map(|st| st.corners()),
                    ));
                }
            }
        }
    }
    let facing = if side == 0 { 0.0 } else { 180.0 };
    // Measure every piece of the side at the origin, facing 0.
    let mut probe = s.clone();
    if let Some(d) = probe.sides.get_mut(side) {
        let origin = Some(Placement {
            at: Point::new(0.0, 0.0),
            facing_deg: 0.0,
        });
        for u in &mut d.units {
            u.position = origin;
        }
        for h in &mut d.hqs {
            h.position = origin;
        }
    }
    let Ok(state) = BattleState::lay_out(&probe, lists, 0) else {
        return Err(EditError::Shape {
            rule: "DATA-02",
            message: "the side's units cannot be laid out: check each unit's troop type".into(),
        });
    };
    let ctx = Ctx::new(&probe, lists, &state);
    let size = |id: PieceId| -> Option<(f64, f64)> {
        let p = state.piece(id)?;
        let fp = footprint_of(&ctx, p)?;
        let r = crate::geom::footprint::rect_of(fp.stands.iter().flat_map(|st| st.corners()));
        Some((r.max.x - r.min.x, r.max.y - r.min.y))
    };
    let Some(d) = s.sides.get(side) else {
        return Err(EditError::NoSide(side));
    };
    let mut order: Vec<(PieceId, f64, f64)> = Vec::new();
    for u in &d.units {
        let id = PieceId::Unit { side, unit: u.id };
        if !wanted(id) {
            continue;
        }
        if let Some((w, dp)) = size(id) {
            order.push((id, w, dp));
        }
    }
    for h in &d.hqs {
        let id = PieceId::Hq { side, hq: h.id };
        if !wanted(id) {
            continue;
        }
        if let Some((w, dp)) = size(id) {
            order.push((id, w, dp));
        }
    }
    let (lo, hi) = deploy_box(s, side);
    let margin = DEPLOY_GAP_CM / 2.0;
    let mut x = lo.x + margin;
    // Distance back from the front of the zone to the front of the rank being filled.
    let mut back = margin;
    let mut rank_depth: f64 = 0.0;
    let mut placements: Vec<(PieceId, Placement)> = Vec::new();
    // The box a piece of width `w` and depth `dp` covers with its front edge's left end at `x`.
    let span = |x: f64, back: f64, w: f64, dp: f64| {
        let (y0, y1) = if side == 0 {
            (hi.y - back - dp, hi.y - back)
        } else {
            (lo.y + back, lo.y + back + dp)
        };
        crate::geom::Rect {
            min: Point::new(x, y0),
            max: Point::new(x + w, y1),
        }
    };
    let meets = |a: &crate::geom::Rect, b: &crate::geom::Rect| {
        a.min.x < b.max.x + DEPLOY_GAP_CM / 2.0
            && b.min.x < a.max.x + DEPLOY_GAP_CM / 2.0
            && a.min.y < b.max.y
            && b.min.y < a.max.y
    };
    for (id, w, dp) in order {
        // Step past the ground already taken and on to the next rank when a rank is full; a
        // bounded number of steps (each one moves right or back a rank).
        let mut fits = false;
        for _ in 0..(4 * taken.len() + 64) {
            if x + w > hi.x - margin && x > lo.x + margin {
                x = lo.x + margin;
                back += rank_depth + DEPLOY_GAP_CM;
                rank_depth = 0.0;
            }
            if back + dp > (hi.y - lo.y) - margin || x + w > hi.x - margin {
                break; // no room left in the zone's box
            }
            let here = span(x, back, w, dp);
            match taken.iter().find(|t| meets(&here, t)) {
                Some(t) => x = t.max.x + DEPLOY_GAP_CM,
                None => {
                    fits = true;
                    break;
                }
            }
        }
        if !fits {
            continue;
        }
        let front_y = if side == 0 { hi.y - back } else { lo.y + back };
        // The pose is the centre of the front edge; side 1 faces 180°, mirroring left and right.
        let at = Point::new(x + w / 2.0, front_y);
        placements.push((
            id,
            Placement {
                at,
                facing_deg: facing,
            },
        ));
        x += w + DEPLOY_GAP_CM;
        rank_depth = rank_depth.max(dp);
    }
    for (id, p) in placements {
        match id {
            PieceId::Unit { unit, .. } => place_unit(s, side, unit, Some(p))?,
            PieceId::Hq { hq, .. } => place_hq(s, side, hq, Some(p))?,
        }
    }
    Ok(())
}

/// The first reason the defence `d` of `side` cannot stand on the table: a corner off the
/// table's edge ([`OFF_TABLE`]), then the boundary checks of `geometry_violations` (DATA-05,
/// DATA-06, DATA-09) on it. An unplaced defence (no points) has nothing to check.
fn check_defense_shape(s: &Scenario, side: usize, d: &FieldDefense) -> Result<(), EditError> {
    let t = s.table;
    let name = format!("{} {}", d.kind.label(), d.id);
    if let Some(p) =
        d.at.iter()
            .find(|p| p.x < 0.0 || p.y < 0.0 || p.x > t.width_cm || p.y > t.depth_cm)
    {
        return Err(EditError::Shape {
            rule: OFF_TABLE,
            message: format!(
                "{name} has a point at ({:.1}, {:.1}) cm, off the {} × {} cm table: put it on the \
                 cloth",
                p.x, p.y, t.width_cm, t.depth_cm
            ),
        });
    }
    let mut probe = s.clone();
    if let Some(d0) = probe.sides.get_mut(side) {
        d0.field_defenses = vec![d.clone()];
    }
    let bad = geometry_violations(&probe)
        .into_iter()
        .find(|v| v.subject == Subject::Defense(side, d.id));
    match bad {
        Some(v) => Err(EditError::Shape {
            rule: v.rule,
            message: v.message,
        }),
        None => Ok(()),
    }
}

/// DEF-01..03: the purchase refused with the validator's own words, if it breaks them.
fn check_purchase(
    s: &Scenario,
    lists: &[ArmyList],
    side: usize,
    d: &FieldDefense,
) -> Result<(), EditError> {
    match purchase_refusal(s, lists, side, d) {
        Some(v) => Err(EditError::Shape {
            rule: v.rule,
            message: format!("not bought: {}", v.message),
        }),
        None => Ok(()),
    }
}

/// Buys a field defence for `side` and puts it where its points say, under a fresh id (the one
/// it came with is ignored). Refused when the purchase breaks DEF-01..03 or the outline is not a
/// usable shape; placed outside the zone or longer than its sections (DEF-05) it is kept and
/// reported by the validator.
pub fn add_defense(
    s: &mut Scenario,
    lists: &[ArmyList],
    side: usize,
    d: &FieldDefense,
) -> Result<DefenseId, EditError> {
    if side >= s.sides.len() {
        return Err(EditError::NoSide(side));
    }
    let mut d = d.clone();
    d.id = next_defense_id(s);
    d.sections = d.sections.max(1);
    check_defense_shape(s, side, &d)?;
    check_purchase(s, lists, side, &d)?;
    let id = d.id;
    if let Some(slot) = s.sides.get_mut(side) {
        slot.field_defenses.push(d);
    }
    Ok(id)
}

/// Replaces the side's defence with `d`'s id (moved, more or fewer sections, another
/// occupant). The purchase is checked again only when it changes kind or costs more, so a
/// defence already over the budget can still be moved or cut down.
pub fn set_defense(
    s: &mut Scenario,
    lists: &[ArmyList],
    side: usize,
    d: &FieldDefense,
) -> Result<(), EditError> {
    let old = s
        .sides
        .get(side)
        .ok_or(EditError::NoSide(side))?
        .field_defenses
        .iter()
        .find(|x| x.id == d.id)
        .cloned()
        .ok_or(EditError::NoDefense(d.id))?;
    let mut d = d.clone();
    d.sections = d.sections.max(1);
    check_defense_shape(s, side, &d)?;
    if d.kind != old.kind || d.cost() > old.cost() {
        check_purchase(s, lists, side, &d)?;
    }
    if let Some(slot) = s
        .sides
        .get_mut(side)
        .and_then(|x| x.field_defenses.iter_mut().find(|x| x.id == d.id))
    {
        *slot = d;
    }
    Ok(())
}

/// Sells a bought defence back: it leaves the table and its points the budget.
pub fn delete_defense(s: &mut Scenario, side: usize, id: DefenseId) -> Result<(), EditError> {
    let d = s.sides.get_mut(side).ok_or(EditError::NoSide(side))?;
    let before = d.field_defenses.len();
    d.field_defenses.retain(|x| x.id != id);
    if d.field_defenses.len() == before {
        return Err(EditError::NoDefense(id));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::army::shipped_lists;
    use crate::model::{samples, Geometry, TerrainKind};

    fn wood(points: Vec<Point>) -> TerrainFeature {
        TerrainFeature {
            id: FeatureId(0),
            name: String::new(),
            kind: TerrainKind::HighArea,
            geometry: Geometry::Polygon(points),
            dense: false,
            frozen: false,
            construction: None,
        }
    }

    fn ebelsberg() -> Scenario {
        samples::scenario("1809-ebelsberg").expect("the sample")
    }

    fn square(x: f64, y: f64, a: f64) -> Vec<Point> {
        vec![
            Point::new(x, y),
            Point::new(x + a, y),
            Point::new(x + a, y + a),
            Point::new(x, y + a),
        ]
    }

    #[test]
    fn a_drawn_wood_gets_the_next_id_and_a_name() {
        let mut s = ebelsberg();
        let next = next_feature_id(&s);
        let id = add_feature(&mut s, &wood(square(10.0, 10.0, 20.0))).expect("a good wood");
        assert_eq!(id, next);
        let f = s.terrain.iter().find(|f| f.id == id).expect("stored");
        assert_eq!(f.name, format!("High area {id}"));
        assert_eq!(f.geometry.points(), square(10.0, 10.0, 20.0).as_slice());
    }

    #[test]
    fn data_07_a_bow_tie_is_refused_and_nothing_is_added() {
        let mut s = ebelsberg();
        let before = s.clone();
        // (10,10) → (30,30) → (30,10) → (10,30) crosses itself at (20,20).
        let bow = vec![
            Point::new(10.0, 10.0),
            Point::new(30.0, 30.0),
            Point::new(30.0, 10.0),
            Point::new(10.0, 30.0),
        ];
        let err = add_feature(&mut s, &wood(bow)).expect_err("refused");
        match err {
            EditError::Shape { rule, message } => {
                assert_eq!(rule, "DATA-07");
                assert!(message.contains("(20.0, 20.0) cm"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s, before);
    }

    #[test]
    fn data_05_two_corners_and_off_table_corners_are_refused() {
        let mut s = ebelsberg();
        let two = wood(vec![Point::new(10.0, 10.0), Point::new(20.0, 10.0)]);
        assert!(matches!(
            add_feature(&mut s, &two),
            Err(EditError::Shape {
                rule: "DATA-05",
                ..
            })
        ));
        // The sample table is 240 × 180 cm: x 250 is off it.
        let off = wood(square(230.0, 10.0, 20.0));
        assert!(matches!(
            add_feature(&mut s, &off),
            Err(EditError::Shape {
                rule: OFF_TABLE,
                ..
            })
        ));
    }

    #[test]
    fn a_moved_corner_replaces_the_feature_and_a_bad_one_does_not() {
        let mut s = ebelsberg();
        let id = add_feature(&mut s, &wood(square(10.0, 10.0, 20.0))).expect("added");
        let mut f = s
            .terrain
            .iter()
            .find(|f| f.id == id)
            .cloned()
            .expect("there");
        f.geometry = Geometry::Polygon(vec![
            Point::new(10.0, 10.0),
            Point::new(35.0, 5.0),
            Point::new(30.0, 30.0),
            Point::new(10.0, 30.0),
        ]);
        set_feature(&mut s, &f).expect("a good reshape");
        assert_eq!(
            s.terrain
                .iter()
                .find(|t| t.id == id)
                .map(|t| t.geometry.points()[1]),
            Some(Point::new(35.0, 5.0))
        );
        let before = s.clone();
        // Dragging the last corner to (40, 20) makes its side (40,20)-(10,10) cross the side
        // (35,5)-(30,30) half-way along: at (32.5, 17.5).
        let mut bad = f.clone();
        bad.geometry = Geometry::Polygon(vec![
            Point::new(10.0, 10.0),
            Point::new(35.0, 5.0),
            Point::new(30.0, 30.0),
            Point::new(40.0, 20.0),
        ]);
        match set_feature(&mut s, &bad) {
            Err(EditError::Shape { rule, message }) => {
                assert_eq!(rule, "DATA-07");
                assert!(message.contains("(32.5, 17.5) cm"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s, before);
        delete_feature(&mut s, id).expect("deleted");
        assert!(s.terrain.iter().all(|t| t.id != id));
        assert_eq!(delete_feature(&mut s, id), Err(EditError::NoFeature(id)));
    }

    #[test]
    fn a_zone_is_set_cleared_and_a_crossing_one_refused() {
        let mut s = ebelsberg();
        let ring = square(0.0, 0.0, 40.0);
        set_area(&mut s, 0, SideArea::MajorObjective, &ring).expect("a good area");
        assert_eq!(s.sides[0].objectives.major.area, ring);
        let before = s.clone();
        let bow = vec![
            Point::new(0.0, 0.0),
            Point::new(40.0, 40.0),
            Point::new(40.0, 0.0),
            Point::new(0.0, 40.0),
        ];
        assert!(matches!(
            set_area(&mut s, 0, SideArea::DeploymentZone, &bow),
            Err(EditError::Shape {
                rule: "DATA-07",
                ..
            })
        ));
        let two = vec![Point::new(0.0, 0.0), Point::new(40.0, 40.0)];
        assert!(matches!(
            set_area(&mut s, 0, SideArea::DeploymentZone, &two),
            Err(EditError::Shape {
                rule: "DATA-05",
                ..
            })
        ));
        assert_eq!(s, before);
        set_area(&mut s, 0, SideArea::MajorObjective, &[]).expect("cleared");
        assert!(s.sides[0].objectives.major.area.is_empty());
    }

    #[test]
    fn every_ready_made_piece_drops_whole_in_mid_table_and_none_half_off_it() {
        let mut checked = 0;
        for piece in ReadyMade::ALL {
            let mut s = ebelsberg();
            s.terrain.clear();
            let want = ready_made(piece, Point::new(120.0, 90.0), s.table).len();
            add_piece(&mut s, piece, Point::new(120.0, 90.0)).expect("fits mid-table");
            assert_eq!(s.terrain.len(), want, "{piece:?}");
            let ids: std::collections::BTreeSet<_> = s.terrain.iter().map(|f| f.id).collect();
            assert_eq!(ids.len(), want, "distinct ids");
            // 3 cm from the left edge, a wood (15 cm half-width) would reach x −12: refused,
            // and nothing of the piece is added.
            let before = s.clone();
            if piece != ReadyMade::RiverWithBridge {
                assert!(
                    add_piece(&mut s, piece, Point::new(3.0, 90.0)).is_err(),
                    "{piece:?}"
                );
                assert_eq!(s, before);
            }
            checked += 1;
        }
        assert_eq!(checked, ReadyMade::ALL.len());
    }

    #[test]
    fn deploy_side_lays_the_units_out_in_line_inside_the_zone() {
        let lists = shipped_lists().expect("lists");
        let mut s = ebelsberg();
        for side in &mut s.sides {
            for u in &mut side.units {
                u.position = None;
            }
            for h in &mut side.hqs {
                h.position = None;
            }
        }
        deploy_side(&mut s, &lists, 0).expect("deployed");
        let side = &s.sides[0];
        let zone = side.deployment_zone.clone();
        let placed: Vec<Placement> = side.units.iter().filter_map(|u| u.position).collect();
        assert_eq!(placed.len(), side.units.len(), "every unit has room");
        assert!(placed.iter().all(|p| p.facing_deg == 0.0));
        assert!(placed
            .iter()
            .all(|p| crate::geom::ring_contains(&zone, p.at)));
        // No DATA-10..12 among the deployed side's pieces.
        let bad: Vec<_> = crate::rules::state::placement_violations(&s, &lists)
            .into_iter()
            .filter(|v| {
                matches!(
                    v.subject,
                    crate::model::validate::Subject::Unit(0, _)
                        | crate::model::validate::Subject::Hq(0, _)
                )
            })
            .collect();
        assert!(bad.is_empty(), "{bad:?}");
    }

    fn stakes(x: f64, y: f64, len: f64, sections: u32) -> FieldDefense {
        FieldDefense {
            id: DefenseId(0),
            kind: crate::model::DefenseKind::Stakes,
            sections,
            at: vec![Point::new(x, y), Point::new(x + len, y)],
            occupant: None,
        }
    }

    /// Ebelsberg: hasty, 4,500 points, budget 450, 285 spent by the Austrians (side 1).
    #[test]
    fn def_02_a_purchase_past_the_budget_is_refused_and_one_within_it_added() {
        let lists = shipped_lists().expect("lists");
        let mut s = ebelsberg();
        let before = s.clone();
        // 7 sections of Stakes: 175 > 165 left.
        match add_defense(&mut s, &lists, 1, &stakes(20.0, 130.0, 20.0, 7)) {
            Err(EditError::Shape { rule, message }) => {
                assert_eq!(rule, "DEF-02");
                assert!(
                    message.contains("460") && message.contains("450"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s, before);
        // The French are not the defender: refused whatever the cost.
        assert!(matches!(
            add_defense(&mut s, &lists, 0, &stakes(20.0, 30.0, 10.0, 1)),
            Err(EditError::Shape { rule: "DEF-02", .. })
        ));
        let id = add_defense(&mut s, &lists, 1, &stakes(20.0, 130.0, 20.0, 6)).expect("150 fits");
        assert_eq!(id, DefenseId(8), "the next id after the sample's seven");
        assert_eq!(crate::model::defense_spent(&s.sides[1]), 435);
    }

    #[test]
    fn def_02_a_defence_over_the_budget_may_be_moved_or_cut_but_not_grown() {
        let lists = shipped_lists().expect("lists");
        let mut s = ebelsberg();
        s.points = 2000; // hasty budget 200 < 285 spent
        let mut d = s.sides[1]
            .field_defenses
            .iter()
            .find(|d| d.id == DefenseId(2))
            .cloned()
            .expect("the sample's stakes");
        for p in &mut d.at {
            p.y += 10.0;
        }
        set_defense(&mut s, &lists, 1, &d).expect("a move costs nothing");
        d.sections = 1;
        d.at = crate::model::cut_line_to_length(&d.at, 10.0);
        set_defense(&mut s, &lists, 1, &d).expect("fewer sections cost less");
        d.sections = 3;
        assert!(matches!(
            set_defense(&mut s, &lists, 1, &d),
            Err(EditError::Shape { rule: "DEF-02", .. })
        ));
        delete_defense(&mut s, 1, DefenseId(2)).expect("sold back");
        assert_eq!(
            delete_defense(&mut s, 1, DefenseId(2)),
            Err(EditError::NoDefense(DefenseId(2)))
        );
    }

    #[test]
    fn data_05_a_defence_off_the_table_or_of_one_point_is_refused() {
        let lists = shipped_lists().expect("lists");
        let mut s = ebelsberg();
        let before = s.clone();
        assert!(matches!(
            add_defense(&mut s, &lists, 1, &stakes(235.0, 130.0, 10.0, 1)),
            Err(EditError::Shape {
                rule: OFF_TABLE,
                ..
            })
        ));
        let mut one = stakes(20.0, 130.0, 0.0, 1);
        one.at.truncate(1);
        assert!(matches!(
            add_defense(&mut s, &lists, 1, &one),
            Err(EditError::Shape {
                rule: "DATA-05",
                ..
            })
        ));
        assert_eq!(s, before);
    }
}
