//! Terrain for movement (catalogue §2.8 TERR-01..TERR-14, field defences as obstacles TERR-13
//! with DEF-04/DEF-05, roads MOVE-25/TERR-09): what a terrain feature or a field defence is *to a
//! given kind of troops*, and where it lies on the table.
//!
//! The table of effects is one function per source ([`feature_going`], [`defense_going`]), so the
//! engine, the UI and the tests read the same answers (ARCHITECTURE.md habit 5). [`TerrainMap`]
//! prepares the scenario's features once for one mover (shapes as `geo` polygons and lines,
//! roads cut through the obstacles they cross, fords cut out of deep water, a box index) so that the movement code
//! ([`super::movement`]) can ask "what does this base touch here?" cheaply. [`path_crossings`]
//! answers the path-level question (which features a reference path enters, leaves or crosses)
//! for order and charge code.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::battle::Ctx;
use super::state::PieceState;
use crate::geom::footprint::ring_polygon;
use crate::geom::segment::{inside_intervals, rects_overlap, Segment};
use crate::geom::{BoxIndex, Point, Rect};
use crate::model::{Arm, DefenseKind, FeatureId, Geometry, TerrainFeature, TerrainKind};
use geo::{BooleanOps, Coord, Intersects, LineString, MultiPolygon, Polygon};
use std::sync::Arc;

/// The troop categories the terrain rules distinguish (TERR-02, TERR-06..08, TERR-13, TERR-14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TroopKind {
    /// Infantry, engineers and dismounted cavalry.
    Foot,
    /// Mounted cavalry.
    Cavalry,
    /// Guns, limbered (towed by their limber) or unlimbered (manhandled or on the prolonge);
    /// TERR-08 counts both as towed guns.
    TowedGun,
    /// Limbers moving alone, wagons, trucks, the armoured car (TERR-08 "other transport").
    Transport,
    /// Command units (TERR-14).
    Command,
}

/// A piece as the terrain rules see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mover {
    pub kind: TroopKind,
    /// Mounted or horse-drawn: TERR-13 makes wire impassable to animals.
    pub animals: bool,
}

impl Mover {
    pub const FOOT: Mover = Mover {
        kind: TroopKind::Foot,
        animals: false,
    };
}

/// What a stretch of ground is to a mover.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Going {
    /// No effect (TERR-01 open ground, hills, roads, snow, and whatever TERR-14 lets command
    /// units ignore).
    Clear,
    /// Movement inside costs `1 / speed` per cm. `stops`: area terrain, with the boundary stops
    /// of TERR-05 (dense going on open ground or hills only slows).
    Area {
        speed: f64,
        stops: bool,
        rule: &'static str,
    },
    /// Stop on reaching it, cross free at the start of the next move (TERR-02, MOVE-03).
    Linear { rule: &'static str },
    /// May not be entered (TERR-02, TERR-06, TERR-07, TERR-12, TERR-13).
    Impassable { rule: &'static str },
}

/// Which troops a piece counts as for terrain. Command units follow TERR-14; artillery is a
/// towed gun whether limbered or not (TERR-08).
pub fn mover_of(ctx: &Ctx, piece: &PieceState) -> Mover {
    if piece.id.is_command() {
        return Mover {
            kind: TroopKind::Command,
            animals: command_mounted(ctx, piece),
        };
    }
    match piece.arm {
        Some(Arm::Infantry) | Some(Arm::Engineers) | None => Mover::FOOT,
        Some(Arm::Cavalry) => Mover {
            kind: TroopKind::Cavalry,
            animals: true,
        },
        Some(Arm::Artillery) => Mover {
            kind: TroopKind::TowedGun,
            animals: true,
        },
        Some(Arm::Transport) | Some(Arm::Armour) => Mover {
            kind: TroopKind::Transport,
            animals: true,
        },
    }
}

/// Whether a command unit rides (the scenario's HQ flag; TERR-14 ruling keeps 30 cm mounted).
pub fn command_mounted(ctx: &Ctx, piece: &PieceState) -> bool {
    let super::state::PieceId::Hq { side, hq } = piece.id else {
        return false;
    };
    ctx.scenario
        .sides
        .get(side)
        .and_then(|s| s.hq(hq))
        .is_none_or(|h| h.mounted)
}

/// TERR-08: is this feature dense going for these troops? (Also what CMD-12's −1 for ordering
/// into, through or out of dense terrain reads.) Fords count as dense for towed guns
/// (TERR-07 ruling).
pub fn is_dense_for(kind: TerrainKind, dense_flag: bool, troops: TroopKind) -> bool {
    use TerrainKind as K;
    if matches!(kind, K::Road) {
        return false;
    }
    match troops {
        TroopKind::Command => false,
        TroopKind::Foot | TroopKind::Cavalry => dense_flag || matches!(kind, K::PartiallyWet),
        TroopKind::TowedGun => dense_flag || !matches!(kind, K::Open | K::Hill { .. } | K::Road),
        TroopKind::Transport => dense_flag || matches!(kind, K::LowArea | K::HighArea | K::BuiltUp),
    }
}

/// TERR-01..TERR-12 and TERR-14: what a terrain feature is to a mover (before roads: a road
/// marks a way through mountains, cliffs and rivers, TERR-06/07/12, which [`TerrainMap`] applies
/// by cutting the obstacle where the road crosses it).
///
/// Rulings beyond the catalogue's words:
/// low area terrain counts as "rough ground" for other transport (TERR-08), hills are "gentle"
/// for towed guns unless flagged dense, and frozen snow on dry kinds changes nothing (TERR-11).
pub fn feature_going(kind: TerrainKind, dense: bool, frozen: bool, mover: Mover) -> Going {
    use TerrainKind as K;
    let troops = mover.kind;
    let wet = matches!(kind, K::PartiallyWet | K::ShallowWet | K::DeepWet);
    // TERR-11: frozen wet terrain is high area terrain for movement, for everybody.
    if frozen && wet {
        return if troops == TroopKind::Command {
            Going::Clear
        } else {
            Going::Area {
                speed: 0.25,
                stops: true,
                rule: "TERR-11",
            }
        };
    }
    // TERR-14: command units follow the foot restrictions for what is passable, and ignore every
    // stop and reduction.
    if troops == TroopKind::Command {
        return match kind {
            K::DeepWet => Going::Impassable { rule: "TERR-07" },
            K::Impassable => Going::Impassable { rule: "TERR-12" },
            _ => Going::Clear,
        };
    }
    let dense_here = is_dense_for(kind, dense, troops);
    let slow_only = |rule| Going::Area {
        speed: 0.25,
        stops: false,
        rule,
    };
    match kind {
        K::Open | K::Hill { .. } | K::Road => {
            if dense_here && kind != K::Road {
                slow_only("TERR-08")
            } else {
                Going::Clear
            }
        }
        K::LowArea => {
            if dense_here {
                Going::Area {
                    speed: 0.25,
                    stops: true,
                    rule: "TERR-08",
                }
            } else {
                Going::Area {
                    speed: 0.5,
                    stops: true,
                    rule: "TERR-04",
                }
            }
        }
        K::HighArea | K::BuiltUp => Going::Area {
            speed: 0.25,
            stops: true,
            rule: "TERR-04",
        },
        K::Linear => match troops {
            TroopKind::Foot | TroopKind::Cavalry => Going::Linear { rule: "TERR-02" },
            _ => Going::Impassable { rule: "TERR-02" },
        },
        K::Mountain => match troops {
            TroopKind::Foot => {
                if dense {
                    slow_only("TERR-08")
                } else {
                    Going::Clear
                }
            }
            _ => Going::Impassable { rule: "TERR-06" },
        },
        K::PartiallyWet => match troops {
            TroopKind::Foot => Going::Area {
                speed: 0.25,
                stops: true,
                rule: "TERR-07",
            },
            _ => Going::Impassable { rule: "TERR-07" },
        },
        // TERR-07 ruling: fords are crossed by the linear procedure, limbers and wagons included.
        K::ShallowWet => Going::Linear { rule: "TERR-07" },
        K::DeepWet => Going::Impassable { rule: "TERR-07" },
        K::Impassable => Going::Impassable { rule: "TERR-12" },
    }
}

/// TERR-13 (with DEF-04): field defences as obstacles. Stakes and ditches are impassable except
/// to foot, who treat them as linear; wire is impassable to animals and towed guns and linear to
/// everyone else. Command units follow the foot restrictions and ignore linear terrain (TERR-14),
/// except that a mounted command unit is an animal for wire.
///
/// Ruling beyond the catalogue: the works (Breast Works, Log Works, Fortified Works,
/// Fortification) are linear terrain for movement, as walls are (TERR-02): foot and horse stop
/// and cross, limbers and wagons may not cross. Trench and Dug-Out do not hinder movement.
/// Cleared, demolished and bridged sections (ENG-03..ENG-05) are cut out of the line by
/// [`TerrainMap`] (through `engineering::defence_lines`).
pub fn defense_going(kind: DefenseKind, mover: Mover) -> Going {
    use DefenseKind as D;
    let troops = mover.kind;
    match kind {
        D::Trench | D::DugOut => Going::Clear,
        D::Stakes | D::Ditch => match troops {
            TroopKind::Foot => Going::Linear { rule: "TERR-13" },
            TroopKind::Command => Going::Clear,
            _ => Going::Impassable { rule: "TERR-13" },
        },
        D::Wire => {
            if mover.animals || troops == TroopKind::TowedGun {
                Going::Impassable { rule: "TERR-13" }
            } else if troops == TroopKind::Command {
                Going::Clear
            } else {
                Going::Linear { rule: "TERR-13" }
            }
        }
        D::BreastWorks | D::LogWorks | D::FortifiedWorks | D::Fortification => match troops {
            TroopKind::Foot | TroopKind::Cavalry => Going::Linear { rule: "TERR-13" },
            TroopKind::Command => Going::Clear,
            _ => Going::Impassable { rule: "TERR-13" },
        },
    }
}

/// Where a piece of terrain came from, for messages and for callers that need the feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Feature(FeatureId),
    /// A field defence: (side index, position in that side's list).
    Defense {
        side: usize,
        index: usize,
    },
}

/// A shape on the table: an area, the strips of a wide polyline, or a zero-width line.
#[derive(Debug, Clone)]
pub enum Shape {
    Area(Polygon<f64>),
    /// A polyline with a width: one rectangle per segment and a small octagon at each bend.
    Strips(Vec<Polygon<f64>>),
    Line(LineString<f64>),
}

/// Does segment `a`–`b` pass through the interior of the convex ring (either orientation; a
/// closing repeat is fine)? Running along its boundary does not count.
fn cuts_convex(ring: &[Coord<f64>], a: Coord<f64>, b: Coord<f64>) -> bool {
    const EPS: f64 = 1e-9;
    let n = ring.len();
    if n < 3 {
        return false;
    }
    let twice_area: f64 = (0..n)
        .filter_map(|i| Some((ring.get(i)?, ring.get((i + 1) % n)?)))
        .map(|(p, q)| p.x * q.y - q.x * p.y)
        .sum();
    let orient = if twice_area >= 0.0 { 1.0 } else { -1.0 };
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for i in 0..n {
        let (Some(p), Some(q)) = (ring.get(i), ring.get((i + 1) % n)) else {
            continue;
        };
        if p == q {
            continue;
        }
        let side = |c: Coord<f64>| orient * ((q.x - p.x) * (c.y - p.y) - (q.y - p.y) * (c.x - p.x));
        let (fa, fb) = (side(a), side(b));
        if fa <= EPS && fb <= EPS {
            return false;
        }
        if fa < EPS {
            t0 = t0.max((EPS - fa) / (fb - fa));
        } else if fb < EPS {
            t1 = t1.min((EPS - fa) / (fb - fa));
        }
    }
    t1 - t0 > 1e-12
}

fn coord(p: Point) -> Coord<f64> {
    Coord { x: p.x, y: p.y }
}

fn rect_of_points<'a>(pts: impl IntoIterator<Item = &'a Point>) -> Rect {
    crate::geom::footprint::rect_of(pts.into_iter().copied())
}

/// The strips of a polyline `half` cm either side of its centre line.
fn strips(points: &[Point], half: f64) -> Vec<Polygon<f64>> {
    let mut out = Vec::new();
    for w in points.windows(2) {
        let (Some(&a), Some(&b)) = (w.first(), w.get(1)) else {
            continue;
        };
        let len = a.distance(b).0;
        if len <= 1e-9 {
            continue;
        }
        let (nx, ny) = (-(b.y - a.y) / len * half, (b.x - a.x) / len * half);
        out.push(ring_polygon(&[
            Point::new(a.x + nx, a.y + ny),
            Point::new(b.x + nx, b.y + ny),
            Point::new(b.x - nx, b.y - ny),
            Point::new(a.x - nx, a.y - ny),
        ]));
    }
    // Close the outside of each bend.
    if points.len() > 2 {
        for p in points.iter().skip(1).take(points.len() - 2) {
            let oct: Vec<Point> = (0..8)
                .map(|k| {
                    let t = std::f64::consts::TAU * (k as f64 + 0.5) / 8.0;
                    Point::new(p.x + half * t.cos(), p.y + half * t.sin())
                })
                .collect();
            out.push(ring_polygon(&oct));
        }
    }
    out
}

impl Shape {
    /// The shape of a feature's geometry.
    pub fn of(geometry: &Geometry) -> Shape {
        match geometry {
            Geometry::Polygon(ring) => Shape::Area(ring_polygon(ring)),
            Geometry::Polyline { points, width_cm } => Shape::of_line(points, *width_cm),
        }
    }

    fn of_line(points: &[Point], width_cm: f64) -> Shape {
        if width_cm > 1e-9 {
            Shape::Strips(strips(points, width_cm / 2.0))
        } else {
            Shape::Line(LineString::from(
                points.iter().map(|p| coord(*p)).collect::<Vec<_>>(),
            ))
        }
    }

    /// Does the shape meet the polygon (touching counts)?
    pub fn meets(&self, poly: &Polygon<f64>) -> bool {
        match self {
            Shape::Area(a) => a.intersects(poly),
            Shape::Strips(v) => v.iter().any(|s| s.intersects(poly)),
            Shape::Line(l) => l.intersects(poly),
        }
    }

    /// Is the convex polygon (a base outline) wholly inside the shape (its boundary may touch)?
    /// For an area: every corner of the outline is on or in the area and no edge of the area
    /// (holes included) passes through the outline's interior. For strips, every corner inside
    /// some strip (close enough for a base inside a frozen stream).
    pub fn holds(&self, poly: &Polygon<f64>) -> bool {
        match self {
            Shape::Area(a) => {
                let outline = &poly.exterior().0;
                outline.iter().all(|c| a.intersects(&geo::Point::from(*c)))
                    && !std::iter::once(a.exterior())
                        .chain(a.interiors())
                        .flat_map(|r| r.lines())
                        .any(|e| cuts_convex(outline, e.start, e.end))
            }
            Shape::Strips(v) => poly
                .exterior()
                .points()
                .all(|p| v.iter().any(|s| s.intersects(&p))),
            Shape::Line(_) => false,
        }
    }

    /// Is the point on the shape (boundary included)?
    pub fn covers_point(&self, p: Point) -> bool {
        let gp = geo::Point::new(p.x, p.y);
        match self {
            Shape::Area(a) => a.intersects(&gp),
            Shape::Strips(v) => v.iter().any(|s| s.intersects(&gp)),
            Shape::Line(l) => l.intersects(&gp),
        }
    }

    /// The box of the shape's points.
    pub(crate) fn rect(&self) -> Rect {
        let pts: Vec<Point> = match self {
            Shape::Area(a) => a
                .exterior()
                .points()
                .map(|p| Point::new(p.x(), p.y()))
                .collect(),
            Shape::Strips(v) => v
                .iter()
                .flat_map(|s| s.exterior().points())
                .map(|p| Point::new(p.x(), p.y()))
                .collect(),
            Shape::Line(l) => l.points().map(|p| Point::new(p.x(), p.y())).collect(),
        };
        rect_of_points(&pts)
    }
}

/// One piece of terrain prepared for one mover.
#[derive(Debug, Clone)]
pub struct Patch {
    pub source: Source,
    pub name: String,
    pub going: Going,
    /// Shared with the battle's memo ([`TerrainMemo`]) when there is one.
    pub shape: Arc<Shape>,
    pub rect: Rect,
}

/// The scenario's terrain and field defences, as they matter to one mover.
#[derive(Debug, Clone)]
pub struct TerrainMap {
    /// Everything that is not [`Going::Clear`] to this mover.
    pub patches: Vec<Patch>,
    /// Road surfaces (MOVE-25, TERR-06/07/09/12).
    pub roads: Vec<Arc<Shape>>,
    road_rects: Vec<Rect>,
    index: BoxIndex,
}

/// How close to a road's centre line a point on a road without a width must be, in cm.
const BARE_ROAD_HALF_WIDTH: f64 = 1.5;

impl TerrainMap {
    /// Prepares the terrain of a scenario for a mover: every feature and field defence that is
    /// not clear going to it, and the roads. Where a road crosses a linear obstacle or impassable
    /// ground, the road's surface is cut out of it (a gate, a ford, a bridge, a pass: the road
    /// marks the way through, TERR-06/07/12 ruling), so a base on the road passes and a base
    /// wider than the road does not (MOVE-04). Where shallow water is drawn across deep water,
    /// that part of the deep water is a ford (TERR-07): cut out the same way, it leaves the
    /// shallow water's own going, the linear stop-and-cross, limbers and wagons included.
    pub fn new(ctx: &Ctx, mover: Mover) -> TerrainMap {
        Self::around(ctx, mover, None)
    }

    /// As [`TerrainMap::new`], keeping only what lies within `area` (when given): a move looks
    /// at a small part of the table, and preparing the rest would be wasted.
    ///
    /// With the battle's memo (`ctx.sight`) the road surfaces and each feature's pieces are
    /// prepared once per battle and shared ([`TerrainMemo`]): the same pieces as worked out
    /// afresh, to the bit.
    pub fn around(ctx: &Ctx, mover: Mover, area: Option<Rect>) -> TerrainMap {
        let mut memo = ctx.sight.and_then(|s| s.terrain_memo());
        Self::around_with(ctx, mover, area, memo.as_deref_mut())
    }

    /// [`TerrainMap::around`], shared through the battle's memo: the map of the same features
    /// and field defences near the area, for the same mover, is made once per battle. The
    /// map depends on nothing else while the battle has no engineering works (bridges and
    /// breaches cut the terrain: a battle with any prepares each map afresh).
    pub(crate) fn shared_around(ctx: &Ctx, mover: Mover, area: Option<Rect>) -> Arc<TerrainMap> {
        let memo = match ctx.sight {
            Some(sight) if ctx.state.engineering.works.is_empty() => sight.terrain_memo(),
            _ => None,
        };
        let Some(mut memo) = memo else {
            return Arc::new(Self::around(ctx, mover, area));
        };
        // Which features and standing field defences lie near the area (the same tests as
        // `around_with`'s): one bit each.
        let near = |pts: &[Point], width: f64| near_area(area, pts, width);
        let mut bits: Vec<u64> = Vec::with_capacity(2);
        let mut k = 0usize;
        let mut push = |on: bool| {
            if k.is_multiple_of(64) {
                bits.push(0);
            }
            if let Some(w) = bits.last_mut() {
                *w |= u64::from(on) << (k % 64);
            }
            k += 1;
        };
        for f in &ctx.scenario.terrain {
            let width = match &f.geometry {
                Geometry::Polyline { width_cm, .. } => width_cm.max(2.0 * BARE_ROAD_HALF_WIDTH),
                Geometry::Polygon(_) => 0.0,
            };
            push(near(f.geometry.points(), width));
        }
        for (si, side) in ctx.scenario.sides.iter().enumerate() {
            for d in &side.field_defenses {
                // With no engineering works a defence stands whole unless removed whole
                // (`engineering::defence_lines`).
                push(near(&d.at, 0.0) && !super::engineering::removed_whole(ctx.state, si, d.id));
            }
        }
        let key = (mover, bits);
        if let Some(known) = memo.maps.get(&key) {
            return Arc::clone(known);
        }
        let made = Arc::new(Self::around_with(ctx, mover, area, Some(&mut memo)));
        if memo.maps.len() < MAPS_KEPT {
            memo.maps.insert(key, Arc::clone(&made));
        }
        made
    }

    fn around_with(
        ctx: &Ctx,
        mover: Mover,
        area: Option<Rect>,
        mut memo: Option<&mut TerrainMemo>,
    ) -> TerrainMap {
        let near = |pts: &[Point], width: f64| near_area(area, pts, width);
        let width_of = |g: &Geometry| match g {
            Geometry::Polyline { width_cm, .. } => width_cm.max(2.0 * BARE_ROAD_HALF_WIDTH),
            Geometry::Polygon(_) => 0.0,
        };
        let terrain = &ctx.scenario.terrain;
        // Which features lie near the area, once (the same test for roads, fords and patches).
        let near_ids: Vec<bool> = terrain
            .iter()
            .map(|f| near(f.geometry.points(), width_of(&f.geometry)))
            .collect();
        let is_near = |fi: usize| near_ids.get(fi).copied().unwrap_or(false);
        let mut roads: Vec<Arc<Shape>> = Vec::new();
        let mut road_rects: Vec<Rect> = Vec::new();
        let mut road_ids: Vec<usize> = Vec::new();
        for (fi, f) in terrain.iter().enumerate() {
            if !is_near(fi) || f.kind != TerrainKind::Road {
                continue;
            }
            let (shape, rect) = match memo.as_deref_mut() {
                Some(m) => m.road(fi, || road_surface(f)),
                None => road_surface(f),
            };
            roads.push(shape);
            road_rects.push(rect);
            road_ids.push(fi);
        }
        // TERR-07: shallow water drawn across deep water is a ford there; its shape is cut out
        // of the deep water (as a road cuts a bridge) and the ford's own going applies.
        let ford_ids: Vec<usize> = terrain
            .iter()
            .enumerate()
            .filter(|(fi, f)| f.kind == TerrainKind::ShallowWet && is_near(*fi))
            .map(|(fi, _)| fi)
            .collect();
        let fords = std::cell::OnceCell::new();
        let fords = || -> &Vec<Polygon<f64>> {
            fords.get_or_init(|| {
                ford_ids
                    .iter()
                    .filter_map(|fi| terrain.get(*fi))
                    .flat_map(|f| match Shape::of(&f.geometry) {
                        Shape::Area(a) => vec![a],
                        Shape::Strips(v) => v,
                        Shape::Line(_) => Vec::new(),
                    })
                    .collect()
            })
        };
        // ENG-04 (a): pontoon sections cut the water they span, as roads do (no road bonus).
        // Made by the state, not the scenario: a battle with any is prepared afresh.
        let bridges = super::engineering::bridge_cutters(ctx.state);
        if !bridges.is_empty() {
            memo = None;
        }
        let cutters = std::cell::OnceCell::new();
        let cutters = || -> &(Vec<Arc<Shape>>, Vec<Rect>) {
            cutters.get_or_init(|| {
                let mut shapes = roads.clone();
                shapes.extend(bridges.iter().map(|b| Arc::new(Shape::Area(b.clone()))));
                let rects = shapes.iter().map(|s| s.rect()).collect();
                (shapes, rects)
            })
        };
        let road_set = memo.as_deref_mut().map(|m| m.set(&road_ids));
        let ford_set = memo.as_deref_mut().map(|m| m.set(&ford_ids));
        let mut patches = Vec::new();
        for (fi, f) in terrain.iter().enumerate() {
            let going = feature_going(f.kind, f.dense, f.frozen, mover);
            if going == Going::Clear || !is_near(fi) {
                continue;
            }
            let deep = f.kind == TerrainKind::DeepWet && matches!(going, Going::Impassable { .. });
            // The pieces of the feature left for this going: cut by the roads and bridges near
            // the area (linear obstacles and impassable ground, `add`) and, deep water, by the
            // fords near it.
            let cut = |out: &mut Vec<Patch>| {
                let centre = match &f.geometry {
                    Geometry::Polyline { points, width_cm } => Some((points.as_slice(), *width_cm)),
                    Geometry::Polygon(_) => None,
                };
                let mut patch = feature_patch(f, going);
                if deep {
                    patch = cut_fords(patch, fords());
                }
                let (shapes, rects) = cutters();
                Self::add(out, shapes, rects, patch, centre);
            };
            match (memo.as_deref_mut(), road_set, ford_set) {
                (Some(m), Some(roads), Some(fords)) => {
                    let key = CutKey {
                        feature: fi,
                        class: cut_class(going),
                        roads,
                        fords: if deep { fords } else { usize::MAX },
                    };
                    let pieces = m.cut(key, || {
                        let mut out = Vec::new();
                        cut(&mut out);
                        out.into_iter().map(|p| (p.shape, p.rect)).collect()
                    });
                    patches.extend(pieces.iter().map(|(shape, rect)| Patch {
                        source: Source::Feature(f.id),
                        name: f.name.clone(),
                        going,
                        shape: Arc::clone(shape),
                        rect: *rect,
                    }));
                }
                _ => cut(&mut patches),
            }
        }
        for (si, side) in ctx.scenario.sides.iter().enumerate() {
            for (di, d) in side.field_defenses.iter().enumerate() {
                let going = defense_going(d.kind, mover);
                if going == Going::Clear || d.at.len() < 2 || !near(&d.at, 0.0) {
                    continue;
                }
                // ENG-03..ENG-05, DEF-06: only the sections still standing hinder movement.
                for run in super::engineering::defence_lines(ctx.state, si, d) {
                    if run.len() < 2 {
                        continue;
                    }
                    let shape = Shape::of_line(&run, 0.0);
                    let rect = shape.rect();
                    Self::add(
                        &mut patches,
                        &roads,
                        &road_rects,
                        Patch {
                            source: Source::Defense {
                                side: si,
                                index: di,
                            },
                            name: d.kind.label().to_string(),
                            going,
                            shape: Arc::new(shape),
                            rect,
                        },
                        Some((run.as_slice(), 0.0)),
                    );
                }
            }
        }
        let index = BoxIndex::new(patches.iter().enumerate().map(|(i, p)| (p.rect, i)));
        TerrainMap {
            patches,
            roads,
            road_rects,
            index,
        }
    }

    /// Adds a patch, cutting the road surfaces out of it if it is an obstacle a road crosses:
    /// lines along their centre line (`centre`: points and width), areas by polygon difference.
    fn add(
        out: &mut Vec<Patch>,
        roads: &[Arc<Shape>],
        road_rects: &[Rect],
        patch: Patch,
        centre: Option<(&[Point], f64)>,
    ) {
        let crosses_road = road_rects.iter().any(|r| rects_overlap(r, &patch.rect));
        let cuttable = matches!(patch.going, Going::Linear { .. } | Going::Impassable { .. });
        if !crosses_road || !cuttable {
            out.push(patch);
            return;
        }
        let road_polys: Vec<&Polygon<f64>> = roads
            .iter()
            .flat_map(|r| match &**r {
                Shape::Area(a) => std::slice::from_ref(a),
                Shape::Strips(v) => v.as_slice(),
                Shape::Line(_) => &[],
            })
            .collect();
        match (centre, &*patch.shape) {
            (Some((points, width)), _) if matches!(patch.going, Going::Linear { .. }) => {
                for run in off_road_runs(points, &road_polys) {
                    let shape = Shape::of_line(&run, width);
                    let rect = shape.rect();
                    out.push(Patch {
                        shape: Arc::new(shape),
                        rect,
                        ..patch.clone()
                    });
                }
            }
            (_, Shape::Area(_) | Shape::Strips(_)) => {
                let mut pieces = MultiPolygon::new(match &*patch.shape {
                    Shape::Area(a) => vec![a.clone()],
                    Shape::Strips(v) => v.clone(),
                    Shape::Line(_) => vec![],
                });
                for road in &road_polys {
                    if pieces.intersects(*road) {
                        pieces = pieces.difference(*road);
                    }
                }
                let shape = Shape::Strips(pieces.0);
                let rect = shape.rect();
                out.push(Patch {
                    shape: Arc::new(shape),
                    rect,
                    ..patch
                });
            }
            _ => out.push(patch),
        }
    }

    /// The patches whose boxes meet `r`.
    pub fn near(&self, r: &Rect) -> impl Iterator<Item = (usize, &Patch)> + '_ {
        self.index
            .query(r)
            .filter_map(|i| self.patches.get(i).map(|p| (i, p)))
    }

    /// Is the point on a road?
    pub fn on_road(&self, p: Point) -> bool {
        self.road_rects
            .iter()
            .zip(&self.roads)
            .any(|(r, s)| r.contains(p) && s.covers_point(p))
    }
}

/// TERR-07: deep water with the fords across it (`fords`, shallow-water shapes) cut out, so
/// that a base on a ford passes and one wider than the ford does not (MOVE-04, as at a bridge).
/// A deep-water line without a width is left whole.
fn cut_fords(patch: Patch, fords: &[Polygon<f64>]) -> Patch {
    let pieces = match &*patch.shape {
        Shape::Area(a) => vec![a.clone()],
        Shape::Strips(v) => v.clone(),
        Shape::Line(_) => return patch,
    };
    let mut pieces = MultiPolygon::new(pieces);
    let mut cut = false;
    for ford in fords {
        if pieces.intersects(ford) {
            pieces = pieces.difference(ford);
            cut = true;
        }
    }
    if !cut {
        return patch;
    }
    let shape = Shape::Strips(pieces.0);
    let rect = shape.rect();
    Patch {
        shape: Arc::new(shape),
        rect,
        ..patch
    }
}

fn feature_patch(f: &TerrainFeature, going: Going) -> Patch {
    let shape = Shape::of(&f.geometry);
    let rect = shape.rect();
    Patch {
        source: Source::Feature(f.id),
        name: f.name.clone(),
        going,
        shape: Arc::new(shape),
        rect,
    }
}

/// A road's surface (MOVE-25): its strips, a road drawn without a width taken as
/// [`BARE_ROAD_HALF_WIDTH`] either side of its line; and the surface's box.
fn road_surface(f: &TerrainFeature) -> (Arc<Shape>, Rect) {
    let shape = match &f.geometry {
        Geometry::Polyline { points, width_cm } => Shape::of_line(
            points,
            if *width_cm > 1e-9 {
                *width_cm
            } else {
                2.0 * BARE_ROAD_HALF_WIDTH
            },
        ),
        g => Shape::of(g),
    };
    let rect = shape.rect();
    (Arc::new(shape), rect)
}

/// How [`TerrainMap::add`] treats a feature's going: kept whole (area going), cut along its
/// centre line or as a polygon (linear), cut as a polygon (impassable).
fn cut_class(going: Going) -> u8 {
    match going {
        Going::Linear { .. } => 1,
        Going::Impassable { .. } => 2,
        Going::Clear | Going::Area { .. } => 0,
    }
}

/// A feature's pieces as prepared for one kind of going, with the roads (and, deep water, the
/// fords) near the area that cut it: [`TerrainMemo::set`] numbers each list of features.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct CutKey {
    feature: usize,
    class: u8,
    roads: usize,
    /// `usize::MAX` when no ford can cut the feature.
    fords: usize,
}

/// The pieces a feature leaves to movement, each with its box.
type Pieces = Arc<[(Arc<Shape>, Rect)]>;

/// At most this many prepared features are kept per battle (a scenario has a few dozen
/// features, each cut by a few different sets of nearby roads).
const CUTS_KEPT: usize = 4096;

/// At most this many whole maps are kept per battle.
const MAPS_KEPT: usize = 4096;

/// The scenario's road surfaces and the pieces its features leave to movement (cut by roads
/// and fords), prepared once per battle: part of the battle's memo
/// ([`super::visibility::SightCache`]), which belongs to one scenario. A piece depends only on
/// the feature, how its going is cut ([`cut_class`]) and which roads and fords lie near (the
/// state's pontoon bridges cut too: a map with any is prepared afresh, not from here), so a
/// kept piece is exactly the one worked out afresh.
#[derive(Debug, Default)]
pub struct TerrainMemo {
    /// Whole maps ([`TerrainMap::shared_around`]) by mover and the features and defences near.
    maps: std::collections::HashMap<(Mover, Vec<u64>), Arc<TerrainMap>>,
    roads: Vec<Option<(Arc<Shape>, Rect)>>,
    sets: Vec<Vec<usize>>,
    cuts: std::collections::HashMap<CutKey, Pieces>,
}

impl TerrainMemo {
    /// The surface of road feature `fi`, made by `make` the first time.
    fn road(&mut self, fi: usize, make: impl FnOnce() -> (Arc<Shape>, Rect)) -> (Arc<Shape>, Rect) {
        if self.roads.len() <= fi {
            self.roads.resize(fi + 1, None);
        }
        match self.roads.get_mut(fi) {
            Some(Some((shape, rect))) => (Arc::clone(shape), *rect),
            Some(slot) => {
                let made = make();
                *slot = Some((Arc::clone(&made.0), made.1));
                made
            }
            None => make(),
        }
    }

    /// The number of this list of feature indices (the same list, the same number).
    fn set(&mut self, ids: &[usize]) -> usize {
        if let Some(k) = self.sets.iter().position(|s| s.as_slice() == ids) {
            return k;
        }
        self.sets.push(ids.to_vec());
        self.sets.len() - 1
    }

    /// The pieces for `key`, made by `make` the first time.
    fn cut(&mut self, key: CutKey, make: impl FnOnce() -> Vec<(Arc<Shape>, Rect)>) -> Pieces {
        if let Some(known) = self.cuts.get(&key) {
            return Arc::clone(known);
        }
        let made: Pieces = make().into();
        if self.cuts.len() < CUTS_KEPT {
            self.cuts.insert(key, Arc::clone(&made));
        }
        made
    }
}

/// The runs of a polyline that lie off the road surfaces (`roads`), cut exactly where the
/// centre line enters and leaves a road.
pub(crate) fn off_road_runs(pts: &[Point], roads: &[&Polygon<f64>]) -> Vec<Vec<Point>> {
    let mut runs: Vec<Vec<Point>> = Vec::new();
    let mut cur: Vec<Point> = Vec::new();
    let extend = |cur: &mut Vec<Point>, p: Point| {
        if cur.last().is_none_or(|q| q.distance(p).0 > 1e-9) {
            cur.push(p);
        }
    };
    for w in pts.windows(2) {
        let (Some(&a), Some(&b)) = (w.first(), w.get(1)) else {
            continue;
        };
        let seg = Segment::new(a, b);
        let len = seg.length();
        let seg_rect = seg.bounding_rect();
        let mut on: Vec<(f64, f64)> = roads
            .iter()
            .filter(|r| {
                crate::geom::footprint::polygon_rect(r)
                    .is_some_and(|rr| rects_overlap(&rr, &seg_rect))
            })
            .flat_map(|r| inside_intervals(r, &seg))
            .collect();
        on.sort_by(|x, y| x.0.total_cmp(&y.0));
        let mut pos = 0.0;
        for (from, to) in on {
            if from > pos {
                extend(&mut cur, seg.at(pos));
                extend(&mut cur, seg.at(from));
            }
            if to > pos {
                if cur.len() >= 2 {
                    runs.push(std::mem::take(&mut cur));
                } else {
                    cur.clear();
                }
                pos = to;
            }
        }
        if pos < len {
            extend(&mut cur, seg.at(pos));
            extend(&mut cur, b);
        }
    }
    if cur.len() >= 2 {
        runs.push(cur);
    }
    runs
}

/// How a reference path meets a feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crossing {
    /// Goes from outside to inside an area.
    Enters,
    /// Goes from inside to outside an area.
    Exits,
    /// Crosses a line (a wall, a stream, a road).
    Crosses,
}

/// Where a path meets a feature: the feature, how, where and how far along the path (cm).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathCrossing {
    pub feature: FeatureId,
    pub kind: TerrainKind,
    pub crossing: Crossing,
    pub at: Point,
    pub along_cm: f64,
}

/// Which features a path of points (a unit's reference point, a charge line) enters, exits or
/// crosses, in order along the path (TERR-02..TERR-07; CMD-12 reads it for dense terrain, the
/// charge rules for obstacles). Areas count by their polygon; lines (walls, streams, roads)
/// by their centre line. The footprint-level rules of a move live in `movement`.
pub fn path_crossings(features: &[TerrainFeature], path: &[Point]) -> Vec<PathCrossing> {
    let mut out = Vec::new();
    let mut walked = 0.0;
    for w in path.windows(2) {
        let (Some(&a), Some(&b)) = (w.first(), w.get(1)) else {
            continue;
        };
        let seg = Segment::new(a, b);
        let len = seg.length();
        let seg_rect = seg.bounding_rect();
        for f in features {
            let shape_rect = rect_of_points(f.geometry.points());
            if !rects_overlap(&seg_rect, &shape_rect) {
                continue;
            }
            match &f.geometry {
                Geometry::Polygon(ring) => {
                    let poly = ring_polygon(ring);
                    for (from, to) in inside_intervals(&poly, &seg) {
                        if from > 1e-9 {
                            out.push(PathCrossing {
                                feature: f.id,
                                kind: f.kind,
                                crossing: Crossing::Enters,
                                at: seg.at(from),
                                along_cm: walked + from,
                            });
                        }
                        if to < len - 1e-9 {
                            out.push(PathCrossing {
                                feature: f.id,
                                kind: f.kind,
                                crossing: Crossing::Exits,
                                at: seg.at(to),
                                along_cm: walked + to,
                            });
                        }
                    }
                }
                Geometry::Polyline { points, .. } => {
                    for e in points.windows(2) {
                        let (Some(&c), Some(&d)) = (e.first(), e.get(1)) else {
                            continue;
                        };
                        if let Some(geo::LineIntersection::SinglePoint { intersection, .. }) =
                            geo::line_intersection::line_intersection(
                                seg.line(),
                                Segment::new(c, d).line(),
                            )
                        {
                            let at = Point::new(intersection.x, intersection.y);
                            out.push(PathCrossing {
                                feature: f.id,
                                kind: f.kind,
                                crossing: Crossing::Crosses,
                                at,
                                along_cm: walked + a.distance(at).0,
                            });
                        }
                    }
                }
            }
        }
        walked += len;
    }
    out.sort_by(|x, y| x.along_cm.total_cmp(&y.along_cm));
    out
}

/// Whether the box of `pts`, grown by `width` on every side, meets `area` (everything is near
/// when there is no area): which features and defences a terrain map around `area` takes in.
fn near_area(area: Option<Rect>, pts: &[Point], width: f64) -> bool {
    area.is_none_or(|a| {
        let r = rect_of_points(pts);
        let r = Rect {
            min: Point::new(r.min.x - width, r.min.y - width),
            max: Point::new(r.max.x + width, r.max.y + width),
        };
        rects_overlap(&r, &a)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAV: Mover = Mover {
        kind: TroopKind::Cavalry,
        animals: true,
    };
    const GUN: Mover = Mover {
        kind: TroopKind::TowedGun,
        animals: true,
    };
    const WAGON: Mover = Mover {
        kind: TroopKind::Transport,
        animals: true,
    };
    const HQ: Mover = Mover {
        kind: TroopKind::Command,
        animals: true,
    };
    const HQ_ON_FOOT: Mover = Mover {
        kind: TroopKind::Command,
        animals: false,
    };

    fn speed(g: Going) -> f64 {
        match g {
            Going::Area { speed, .. } => speed,
            Going::Clear => 1.0,
            _ => 0.0,
        }
    }

    #[test]
    fn terr_04_low_half_high_quarter() {
        assert_eq!(
            speed(feature_going(
                TerrainKind::LowArea,
                false,
                false,
                Mover::FOOT
            )),
            0.5
        );
        assert_eq!(
            speed(feature_going(TerrainKind::HighArea, false, false, CAV)),
            0.25
        );
        assert_eq!(
            speed(feature_going(
                TerrainKind::BuiltUp,
                false,
                false,
                Mover::FOOT
            )),
            0.25
        );
    }

    #[test]
    fn terr_08_dense_by_troop_kind() {
        // Crops are rough ground to wagons and dense to guns, but only half speed to foot.
        assert_eq!(
            speed(feature_going(TerrainKind::LowArea, false, false, WAGON)),
            0.25
        );
        assert_eq!(
            speed(feature_going(TerrainKind::LowArea, false, false, GUN)),
            0.25
        );
        assert!(!is_dense_for(
            TerrainKind::Hill { level: 1 },
            false,
            TroopKind::TowedGun
        ));
        assert!(is_dense_for(
            TerrainKind::ShallowWet,
            false,
            TroopKind::TowedGun
        ));
        assert!(is_dense_for(TerrainKind::Open, true, TroopKind::Foot));
        assert_eq!(
            feature_going(TerrainKind::Open, true, false, CAV),
            Going::Area {
                speed: 0.25,
                stops: false,
                rule: "TERR-08"
            }
        );
    }

    #[test]
    fn terr_06_07_12_impassable_by_kind() {
        assert_eq!(
            feature_going(TerrainKind::Mountain, false, false, Mover::FOOT),
            Going::Clear
        );
        assert_eq!(
            feature_going(TerrainKind::Mountain, false, false, CAV),
            Going::Impassable { rule: "TERR-06" }
        );
        assert_eq!(
            feature_going(TerrainKind::PartiallyWet, false, false, CAV),
            Going::Impassable { rule: "TERR-07" }
        );
        assert_eq!(
            feature_going(TerrainKind::ShallowWet, false, false, GUN),
            Going::Linear { rule: "TERR-07" }
        );
        assert_eq!(
            feature_going(TerrainKind::Impassable, false, false, HQ),
            Going::Impassable { rule: "TERR-12" }
        );
        assert_eq!(
            feature_going(TerrainKind::Linear, false, false, WAGON),
            Going::Impassable { rule: "TERR-02" }
        );
    }

    #[test]
    fn terr_11_frozen_wet_is_high_area_for_all() {
        assert_eq!(
            feature_going(TerrainKind::DeepWet, false, true, CAV),
            Going::Area {
                speed: 0.25,
                stops: true,
                rule: "TERR-11"
            }
        );
        assert_eq!(
            feature_going(TerrainKind::Open, false, true, CAV),
            Going::Clear
        );
    }

    #[test]
    fn terr_13_and_14_obstacles_by_mover() {
        assert_eq!(
            defense_going(DefenseKind::Stakes, Mover::FOOT),
            Going::Linear { rule: "TERR-13" }
        );
        assert_eq!(
            defense_going(DefenseKind::Ditch, CAV),
            Going::Impassable { rule: "TERR-13" }
        );
        assert_eq!(
            defense_going(DefenseKind::Wire, HQ),
            Going::Impassable { rule: "TERR-13" }
        );
        assert_eq!(defense_going(DefenseKind::Wire, HQ_ON_FOOT), Going::Clear);
        assert_eq!(
            feature_going(TerrainKind::PartiallyWet, false, false, HQ),
            Going::Clear
        );
    }

    fn square(x0: f64, y0: f64, side: f64) -> Vec<Point> {
        vec![
            Point::new(x0, y0),
            Point::new(x0 + side, y0),
            Point::new(x0 + side, y0 + side),
            Point::new(x0, y0 + side),
        ]
    }

    #[test]
    fn terr_05_holds_means_wholly_inside() {
        // A U-shaped wood: a base across the notch is not inside although its corners are.
        let u = Shape::Area(ring_polygon(&[
            Point::new(0.0, 0.0),
            Point::new(30.0, 0.0),
            Point::new(30.0, 20.0),
            Point::new(20.0, 20.0),
            Point::new(20.0, 5.0),
            Point::new(10.0, 5.0),
            Point::new(10.0, 20.0),
            Point::new(0.0, 20.0),
        ]));
        assert!(u.holds(&ring_polygon(&square(2.0, 1.0, 3.0))));
        assert!(
            u.holds(&ring_polygon(&square(0.0, 0.0, 3.0))),
            "touching the edge is inside"
        );
        assert!(
            !u.holds(&ring_polygon(&square(8.0, 8.0, 3.0))),
            "straddling"
        );
        let across = ring_polygon(&[
            Point::new(5.0, 10.0),
            Point::new(25.0, 10.0),
            Point::new(25.0, 12.0),
            Point::new(5.0, 12.0),
        ]);
        assert!(u.meets(&across));
        assert!(!u.holds(&across), "corners in both arms, the notch between");
    }

    #[test]
    fn roads_cut_walls_exactly() {
        let road = ring_polygon(&[
            Point::new(10.0, -5.0),
            Point::new(14.0, -5.0),
            Point::new(14.0, 5.0),
            Point::new(10.0, 5.0),
        ]);
        let runs = off_road_runs(&[Point::new(0.0, 0.0), Point::new(30.0, 0.0)], &[&road]);
        assert_eq!(runs.len(), 2);
        let ends: Vec<(f64, f64)> = runs
            .iter()
            .map(|r| {
                (
                    r.first().map_or(-1.0, |p| p.x),
                    r.last().map_or(-1.0, |p| p.x),
                )
            })
            .collect();
        assert_eq!(ends, vec![(0.0, 10.0), (14.0, 30.0)]);
    }

    #[test]
    fn crossings_along_a_path() {
        let wood = TerrainFeature {
            id: FeatureId(1),
            name: "Wood".into(),
            kind: TerrainKind::HighArea,
            geometry: Geometry::Polygon(vec![
                Point::new(0.0, 10.0),
                Point::new(10.0, 10.0),
                Point::new(10.0, 20.0),
                Point::new(0.0, 20.0),
            ]),
            dense: false,
            frozen: false,
            construction: None,
        };
        let wall = TerrainFeature {
            id: FeatureId(2),
            name: "Wall".into(),
            kind: TerrainKind::Linear,
            geometry: Geometry::Polyline {
                points: vec![Point::new(-5.0, 25.0), Point::new(15.0, 25.0)],
                width_cm: 0.0,
            },
            dense: false,
            frozen: false,
            construction: None,
        };
        let c = path_crossings(
            &[wall, wood],
            &[Point::new(5.0, 0.0), Point::new(5.0, 30.0)],
        );
        let kinds: Vec<(Crossing, f64)> = c.iter().map(|c| (c.crossing, c.along_cm)).collect();
        assert_eq!(
            kinds,
            vec![
                (Crossing::Enters, 10.0),
                (Crossing::Exits, 20.0),
                (Crossing::Crosses, 25.0)
            ]
        );
    }
}
