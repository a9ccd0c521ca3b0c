//! Movement (catalogue §2.7 MOVE-01..MOVE-30, §2.8 TERR-01..TERR-14, TERR-13 with DEF-04/05,
//! the movement side of CMD-25 and MOVE-07): allowances, manoeuvres, terrain, obstacles and the
//! other pieces on the table.
//!
//! A move is a sequence of *motions* of the piece's footprint (straight translations, the pivot
//! of a wheel, the instant turn of a column's head or of an about face), built from the action by
//! [`check_move`] according to the manoeuvre (MOVE-26..MOVE-29, MOVE-21, MOVE-24). A *walk* then
//! slides the footprint along the motions in small steps, notes every change in what its bases
//! touch (refined by bisection) and applies the rules at each change: stop at a linear obstacle
//! and cross it free at the start of the next move (MOVE-03), stop entering or leaving area
//! terrain (TERR-05), pay ½ or ¼ inside (TERR-04, TERR-08, TERR-10), never enter impassable
//! ground (TERR-06/07/12/13), halve the move through friends (MOVE-06), never touch the enemy
//! (CHG-01), overrun enemy command units (MOVE-08, CMD-25), stay on the table. Contact and
//! overlap are judged on the bases shrunk by a hair ([`SHRINK_CM`]), so that touching is not
//! overlapping. The same walk serves [`legal_destinations`] (rays from the piece) and
//! [`forced_move`] (fall-back, retreat and evade, MOVE-07), so all three agree.
//!
//! Distances are those of the reference point (the centre of the formation's front edge,
//! `geom::footprint`), which for straight moves is every stand's distance; a wheel is measured
//! on the outside stand's arc (MOVE-02 ruling, MOVE-26).
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::action::Manoeuvre;
use super::battle::{check_may_act, Ctx};
use super::error::{ActionError, RuleError};
use super::event::Event;
use super::geometry::{footprint_of, straight_footprint_of, CONTACT_TOLERANCE_CM};
use super::state::{Formation, PieceId, PieceState, Pose};
use super::terrain::{command_mounted, mover_of, Going, Mover, TerrainMap, TroopKind};
use crate::geom::footprint::{
    bearing_deg, heading, normalize_deg, rect_corners, rect_of, right_of, ring_polygon,
};
use crate::geom::segment::{footprint_polyline_distance, rects_overlap};
use crate::geom::{Footprint, Point, Rect};
use crate::model::{Arm, DefenseKind, Move, RowRole, RuleEffect};
use geo::{Distance, Euclidean, Intersects, LineString, Polygon};
use std::rc::Rc;

/// Bases are shrunk by this much (cm) before overlap tests, so that bases which only touch an
/// obstacle, a boundary or another unit do not count as on it.
pub const SHRINK_CM: f64 = 1e-4;
/// Costs are reported to this precision (cm), and a move may overrun its allowance by as much:
/// a hundredth of a millimetre, far below what a tape measure resolves.
pub const COST_PRECISION_CM: f64 = 1e-3;
/// How far (cm) a requested end may lie beyond the exact point where the unit must stop.
pub const END_TOLERANCE_CM: f64 = 0.02;
/// Angles (degrees) closer than this count as equal (facings, "straight back").
pub const ANGLE_TOLERANCE_DEG: f64 = 0.5;
/// MOVE-29: the oblique limit; MOVE-26: the wheel limit.
pub const OBLIQUE_MAX_DEG: f64 = 45.0;
pub const WHEEL_MAX_DEG: f64 = 45.0;
/// MOVE-26 ruling (ours): a column's head turns at most this much at any one point of its path,
/// so that a column cannot reverse on the spot for free (that is an about face, MOVE-27).
pub const COLUMN_TURN_MAX_DEG: f64 = 90.0;
/// Largest step (cm of the measured stand's travel) between two looks at the table.
const STEP_CM: f64 = 0.5;
/// A change found within this distance of the start of a move happens "at the start".
const START_CM: f64 = CONTACT_TOLERANCE_CM + SHRINK_CM + 1e-6;
/// Bisection rounds when refining a change (0.5 cm / 2^18 ≈ 2e-6 cm).
const BISECT_ROUNDS: usize = 18;

// ---------------------------------------------------------------------------------------------
// Small vector helpers (private; geom's are private to geom).

fn add(p: Point, v: Point, k: f64) -> Point {
    Point::new(p.x + v.x * k, p.y + v.y * k)
}

fn sub(a: Point, b: Point) -> Point {
    Point::new(a.x - b.x, a.y - b.y)
}

fn dot(a: Point, b: Point) -> f64 {
    a.x * b.x + a.y * b.y
}

fn cross(a: Point, b: Point) -> f64 {
    a.x * b.y - a.y * b.x
}

fn len(v: Point) -> f64 {
    (v.x * v.x + v.y * v.y).sqrt()
}

/// `p` turned `deg` clockwise about `c` (the facing convention).
fn rotate(p: Point, c: Point, deg: f64) -> Point {
    let (s, co) = deg.to_radians().sin_cos();
    let v = sub(p, c);
    Point::new(c.x + v.x * co + v.y * s, c.y - v.x * s + v.y * co)
}

fn to_world(pose: Pose, local: Point) -> Point {
    let r = right_of(pose.facing_deg);
    let f = heading(pose.facing_deg);
    add(add(pose.at, r, local.x), f, local.y)
}

/// How many placed points [`Placed`] keeps on the stack.
const PLACED_INLINE: usize = 16;

/// Points placed at a pose, on the stack when there are few: a walk lays its bases' outline
/// out at every look, and an outline has a handful of corners.
#[derive(Debug, Clone)]
struct Placed {
    len: usize,
    inline: [Point; PLACED_INLINE],
    /// All the points, when more than [`PLACED_INLINE`].
    more: Vec<Point>,
}

impl std::ops::Deref for Placed {
    type Target = [Point];

    fn deref(&self) -> &[Point] {
        if self.len > PLACED_INLINE {
            &self.more
        } else {
            self.inline.get(..self.len).unwrap_or(&[])
        }
    }
}

/// Local points (x right, y ahead) placed at a pose.
fn place(local: &[Point], pose: Pose, (r, f): (Point, Point)) -> Placed {
    let at = |l: &Point| {
        Point::new(
            pose.at.x + r.x * l.x + f.x * l.y,
            pose.at.y + r.y * l.x + f.y * l.y,
        )
    };
    let mut out = Placed {
        len: local.len(),
        inline: [Point::default(); PLACED_INLINE],
        more: Vec::new(),
    };
    if local.len() > PLACED_INLINE {
        out.more = local.iter().map(at).collect();
    } else {
        for (o, l) in out.inline.iter_mut().zip(local) {
            *o = at(l);
        }
    }
    out
}

fn same_angle(a: f64, b: f64) -> bool {
    normalize_deg(a - b).abs() <= ANGLE_TOLERANCE_DEG
}

fn union(a: Rect, b: Rect) -> Rect {
    Rect {
        min: Point::new(a.min.x.min(b.min.x), a.min.y.min(b.min.y)),
        max: Point::new(a.max.x.max(b.max.x), a.max.y.max(b.max.y)),
    }
}

/// Rounds a cost or distance to [`COST_PRECISION_CM`].
fn round_cost(x: f64) -> f64 {
    const SCALE: f64 = 1000.0; // 1 / COST_PRECISION_CM
    (x * SCALE).round() / SCALE
}

fn fmt_pt(p: Point) -> String {
    format!("({:.2}, {:.2})", p.x, p.y)
}

/// The corners of the convex hull of some points, counter-clockwise, without a closing
/// repeat. Andrew's monotone chain on coordinates snapped to 1e-9 cm integers with exact
/// orientation tests, so float noise in nearly equal coordinates cannot drop a real corner (this
/// runs for every piece near a move, so it avoids `geo`'s general hull and its allocations).
/// The convex hull of a footprint's bases: what another piece's move may not enter.
pub(crate) fn base_hull(fp: &Footprint) -> Polygon<f64> {
    let mut corners: Vec<Point> = Vec::with_capacity(fp.stands.len() * 4);
    corners.extend(fp.stands.iter().flat_map(|s| s.corners()));
    ring_polygon(&hull_points(&corners))
}

/// `x.round() as i64` (half away from zero), without a call into the maths library when `x`
/// is well inside the range where `as i64` truncates exactly: the fraction `x - trunc(x)` is
/// exact there, so comparing it with ½ rounds exactly as `round` does.
fn round_i64(x: f64) -> i64 {
    const EXACT: f64 = 4_503_599_627_370_496.0; // 2^52: every float beyond is an integer
    if x.abs() < EXACT {
        let t = x as i64;
        let frac = x - t as f64;
        if frac >= 0.5 {
            t + 1
        } else if frac <= -0.5 {
            t - 1
        } else {
            t
        }
    } else {
        x.round() as i64
    }
}

fn hull_points(points: &[Point]) -> Vec<Point> {
    const Q: f64 = 1e9;
    // Sized once: a filtered list would start small and regrow.
    let mut pts: Vec<((i64, i64), Point)> = Vec::with_capacity(points.len());
    pts.extend(
        points
            .iter()
            .filter(|p| p.x.is_finite() && p.y.is_finite())
            .map(|p| ((round_i64(p.x * Q), round_i64(p.y * Q)), *p)),
    );
    pts.sort_by_key(|(q, _)| *q);
    pts.dedup_by_key(|(q, _)| *q);
    if pts.len() < 3 {
        return pts.into_iter().map(|(_, p)| p).collect();
    }
    let turn = |o: (i64, i64), a: (i64, i64), b: (i64, i64)| -> i128 {
        let (ax, ay) = (i128::from(a.0 - o.0), i128::from(a.1 - o.1));
        let (bx, by) = (i128::from(b.0 - o.0), i128::from(b.1 - o.1));
        ax * by - ay * bx
    };
    let mut hull: Vec<((i64, i64), Point)> = Vec::with_capacity(pts.len() * 2);
    let n = pts.len();
    for pass in 0..2 {
        let start = hull.len();
        for k in 0..n {
            // Left to right, then right to left.
            let Some(&(q, p)) = pts.get(if pass == 0 { k } else { n - 1 - k }) else {
                continue;
            };
            while hull.len() >= start + 2 {
                let (Some(&(a, _)), Some(&(b, _))) = (hull.get(hull.len() - 2), hull.last()) else {
                    break;
                };
                if turn(a, b, q) <= 0 {
                    hull.pop();
                } else {
                    break;
                }
            }
            hull.push((q, p));
        }
        hull.pop();
    }
    hull.into_iter().map(|(_, p)| p).collect()
}

/// `geo`'s answer to "is `c` outside the closed ring?" (`coord_pos_relative_to_ring`, the
/// winding number with its boundary short cut, the same exact predicate and comparisons), for
/// a ring kept on the stack.
fn outside_ring(c: geo::Coord<f64>, ring: &[geo::Coord<f64>]) -> bool {
    let between = |v: f64, a: f64, b: f64| {
        if a < b {
            v >= a && v <= b
        } else {
            v >= b && v <= a
        }
    };
    match ring {
        [] => return true,
        [only] => return c != *only,
        _ => {}
    }
    let mut winding = 0i32;
    for w in ring.windows(2) {
        let (Some(&s), Some(&e)) = (w.first(), w.get(1)) else {
            continue;
        };
        if s.y <= c.y {
            if e.y >= c.y {
                let o = <geo::kernels::RobustKernel as geo::Kernel<f64>>::orient2d(s, e, c);
                if o == geo::Orientation::CounterClockwise && e.y != c.y {
                    winding += 1;
                } else if o == geo::Orientation::Collinear && between(c.x, s.x, e.x) {
                    return false;
                }
            }
        } else if e.y <= c.y {
            let o = <geo::kernels::RobustKernel as geo::Kernel<f64>>::orient2d(s, e, c);
            if o == geo::Orientation::Clockwise {
                winding -= 1;
            } else if o == geo::Orientation::Collinear && between(c.x, s.x, e.x) {
                return false;
            }
        }
    }
    winding == 0
}

/// `a.intersects(&ring_polygon(b))` of `geo`, for a hull without holes and the bases' outline
/// `b` (the hulls a walk compares), by `geo`'s own steps: a corner of each inside or on the
/// other, or an edge of one meeting an edge of the other (`Line::intersects`, exact
/// predicates). Two changes, neither of which can change the answer: an edge pair whose boxes
/// are apart is not asked (two closed segments that meet lie in both their boxes, and comparing
/// coordinates is exact), and `b`'s ring is closed on the stack instead of in a `Polygon`.
/// Anything else (holes, a long outline) goes to `geo` whole.
fn hulls_meet(a: &Polygon<f64>, b: &[Point]) -> bool {
    const MAX: usize = PLACED_INLINE + 1;
    if !a.interiors().is_empty() || b.is_empty() || b.len() >= MAX {
        return a.intersects(&ring_polygon(b));
    }
    // Closed as `ring_polygon` closes it.
    let mut ring = [geo::Coord { x: 0.0, y: 0.0 }; MAX];
    for (r, p) in ring.iter_mut().zip(b) {
        *r = geo::Coord { x: p.x, y: p.y };
    }
    let mut n = b.len();
    if let (Some(&first), Some(&last)) = (ring.first(), ring.get(n - 1)) {
        if first != last {
            if let Some(r) = ring.get_mut(n) {
                *r = first;
                n += 1;
            }
        }
    }
    let rb = ring.get(..n).unwrap_or(&[]);
    let ra = &a.exterior().0;
    if ra.first().is_some_and(|p| !outside_ring(*p, rb))
        || rb.first().is_some_and(|p| a.intersects(p))
    {
        return true;
    }
    let boxed = |l: geo::Line<f64>| {
        (
            l,
            l.start.x.min(l.end.x),
            l.start.x.max(l.end.x),
            l.start.y.min(l.end.y),
            l.start.y.max(l.end.y),
        )
    };
    a.exterior().lines().map(boxed).any(|(la, x0, x1, y0, y1)| {
        rb.windows(2).any(|w| {
            let (Some(&start), Some(&end)) = (w.first(), w.get(1)) else {
                return false;
            };
            // The four box comparisons with `&` (no branch each, see `rects_overlap`).
            (start.x.max(end.x) >= x0)
                & (start.x.min(end.x) <= x1)
                & (start.y.max(end.y) >= y0)
                & (start.y.min(end.y) <= y1)
                && la.intersects(&geo::Line::new(start, end))
        })
    })
}

/// The part of a convex polygon on the side of the line through `o` along `dir` where
/// `side * cross(dir, p - o) >= offset` (Sutherland–Hodgman against one half-plane).
fn clip_half(poly: &[Point], o: Point, dir: Point, side: f64, offset: f64) -> Vec<Point> {
    let val = |p: Point| side * cross(dir, sub(p, o)) - offset;
    let mut out = Vec::new();
    let n = poly.len();
    for i in 0..n {
        let (Some(&a), Some(&b)) = (poly.get(i), poly.get((i + 1) % n)) else {
            continue;
        };
        let (va, vb) = (val(a), val(b));
        if va >= 0.0 {
            out.push(a);
        }
        if (va >= 0.0) != (vb >= 0.0) {
            let t = va / (va - vb);
            out.push(Point::new(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Allowance.

/// What one Move action allows a piece, before its path is known: the Move value in force, the
/// road bonus it would earn, and what the manoeuvre costs up front. Order code calls
/// [`move_allowance`] once per Move action (each successful order gives one, MOVE-01).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Allowance {
    /// The Move value this action uses (cm): COL-03's column for the current mode.
    pub base_cm: f64,
    /// The catalogue entry the value comes from (COL-03, COL-12, MOVE-20, MOVE-21, MOVE-24,
    /// TERR-14).
    pub source: &'static str,
    /// MOVE-25: added when the whole move runs along a road; 0 when this piece never earns it.
    pub road_bonus_cm: f64,
    /// Spent before moving: half the allowance for an about face (MOVE-27).
    pub overhead_cm: f64,
    /// MOVE-28: a retire covers at most ¾ of the allowance and uses the whole move.
    pub retire: bool,
}

impl Allowance {
    /// Can a path of terrain-weighted length `weighted` be made? `passage`: it passes through
    /// friends (MOVE-06 halves the distance); `on_road`: the road bonus applies (MOVE-25).
    pub fn fits(&self, weighted: f64, passage: bool, on_road: bool) -> bool {
        let factor = if passage { 2.0 } else { 1.0 };
        if self.retire {
            return weighted * factor <= 0.75 * self.base_cm + COST_PRECISION_CM;
        }
        self.overhead_cm + weighted * factor <= self.total(on_road) + COST_PRECISION_CM
    }

    /// The allowance spent by such a path (what `Event::Moved::cost_cm` reports).
    pub fn spent(&self, weighted: f64, passage: bool) -> f64 {
        if self.retire {
            return self.base_cm;
        }
        let factor = if passage { 2.0 } else { 1.0 };
        round_cost(self.overhead_cm + weighted * factor)
    }

    /// The whole allowance, road bonus included when it applies.
    pub fn total(&self, on_road: bool) -> f64 {
        self.base_cm + if on_road { self.road_bonus_cm } else { 0.0 }
    }

    /// The longest terrain-weighted distance, with or without the road bonus.
    pub fn reach(&self, on_road: bool) -> f64 {
        if self.retire {
            0.75 * self.base_cm
        } else {
            (self.total(on_road) - self.overhead_cm).max(0.0)
        }
    }
}

fn refuse(rule: &'static str, message: impl Into<String>) -> ActionError {
    ActionError::Rule(RuleError::new(rule, message))
}

/// ARMY-11, Napoleonic 20, 18C 19, ACW 9: a gun whose limber moves at the horse-artillery speed:
/// a Horse Artillery row (its surcharge is already in the row, so the effect carries 0), or an
/// ACW gun the scenario designates horse artillery.
pub fn is_horse_artillery(ctx: &Ctx, piece: &PieceState) -> bool {
    let row_is_horse = ctx.has_effect(piece, |e| {
        matches!(e, RuleEffect::HorseArtillery { surcharge: 0, .. })
    });
    let designated = match piece.id {
        PieceId::Unit { side, unit } => ctx
            .scenario
            .sides
            .get(side)
            .and_then(|s| s.unit(unit))
            .is_some_and(|u| u.horse_artillery),
        PieceId::Hq { .. } => false,
    };
    row_is_horse || designated
}

/// MOVE-20, MOVE-21, COL-03 (2): the speed of a limbered gun, from the list's Limbered Artillery
/// row: the foot-artillery speed, or the horse-artillery speed for horse artillery.
fn limber_speed(ctx: &Ctx, piece: &PieceState) -> Result<f64, ActionError> {
    let horse = is_horse_artillery(ctx, piece);
    let list = ctx.list(piece.id.side());
    let row = list.and_then(|l| l.troop_types.iter().find(|t| t.role == RowRole::Limber));
    match row.map(|r| r.movement) {
        Some(Move::Limber { foot, horse: h }) => Ok(f64::from(if horse { h } else { foot })),
        Some(Move::Cm(c)) => Ok(f64::from(c)),
        Some(other) if other.primary_cm() > 0 => Ok(f64::from(other.primary_cm())),
        _ => {
            let effect = ctx.row(piece).and_then(|r| {
                list?.row_effects(r).find_map(|e| match e {
                    RuleEffect::HorseArtillery { limber_cm, .. } if horse => Some(*limber_cm),
                    _ => None,
                })
            });
            effect
                .map(f64::from)
                .ok_or_else(|| ActionError::Unsupported {
                    rule: "MOVE-20",
                    what: format!(
                        "moving limbered {}: its army list has no Limbered Artillery row",
                        piece.name
                    ),
                })
        }
    }
}

/// MOVE-05 (DEF-04): is this gun emplaced in Fortified Works or a Fortification (in base contact
/// with a section, or sheltered by it)?
pub fn is_emplaced(ctx: &Ctx, piece: &PieceState) -> bool {
    if piece.arm != Some(Arm::Artillery) || piece.limbered {
        return false;
    }
    let Some(fp) = footprint_of(ctx, piece) else {
        return false;
    };
    let unit_id = match piece.id {
        PieceId::Unit { unit, .. } => Some(unit),
        PieceId::Hq { .. } => None,
    };
    ctx.scenario
        .sides
        .iter()
        .flat_map(|s| s.field_defenses.iter())
        .any(|d| {
            if !matches!(
                d.kind,
                DefenseKind::FortifiedWorks | DefenseKind::Fortification
            ) {
                return false;
            }
            if unit_id.is_some() && d.occupant == unit_id {
                return true;
            }
            if d.at.len() < 2 {
                return false;
            }
            let line = LineString::from(d.at.iter().map(|p| (p.x, p.y)).collect::<Vec<_>>());
            let mut ring = d.at.clone();
            let closed = d.at.len() >= 3 && d.at.first() == d.at.last();
            if closed {
                ring.pop();
                let poly = ring_polygon(&ring);
                if fp.polygons().intersects(&poly) {
                    return true;
                }
            }
            footprint_polyline_distance(&fp, &line) <= CONTACT_TOLERANCE_CM
        })
}

/// The allowance of one Move action (MOVE-02, COL-03, COL-12, MOVE-15, MOVE-20, MOVE-21,
/// MOVE-24..MOVE-28, TERR-14, MOVE-05, BAS-01) — the function order code calls for each Move action it
/// grants. Refuses, with the rule, manoeuvres the piece may not make at all.
pub fn move_allowance(
    ctx: &Ctx,
    id: PieceId,
    manoeuvre: Manoeuvre,
) -> Result<Allowance, ActionError> {
    let piece = ctx.piece(id)?;
    let plain = |base: f64, source, bonus| Allowance {
        base_cm: base,
        source,
        road_bonus_cm: bonus,
        overhead_cm: 0.0,
        retire: false,
    };
    let only_advance = |what: &str| -> Result<(), ActionError> {
        match manoeuvre {
            Manoeuvre::Advance => Ok(()),
            Manoeuvre::Wheel => Err(refuse(
                "MOVE-26",
                format!("{what} turn freely as they move; only infantry and cavalry in line wheel"),
            )),
            Manoeuvre::AboutFace => Err(refuse(
                "MOVE-27",
                format!("{what} turn freely as they move; only infantry and cavalry about face"),
            )),
            Manoeuvre::Retire => Err(refuse("MOVE-28", "only infantry retire")),
            Manoeuvre::Manhandle => Err(refuse("MOVE-21", "only unlimbered guns are manhandled")),
            Manoeuvre::Prolonge => Err(refuse("MOVE-24", "only unlimbered guns move by prolonge")),
        }
    };
    // TERR-14 ruling, COL-03 (3): command units, dismounted or mounted.
    if let Some((level, quality)) = piece.command {
        only_advance("command units")?;
        let mounted = command_mounted(ctx, piece);
        let mv = ctx
            .list(id.side())
            .and_then(|l| l.command_type(level, quality))
            .map(|c| c.movement);
        let base = match mv {
            Some(Move::Command {
                dismounted,
                mounted: m,
            }) => f64::from(if mounted { m } else { dismounted }),
            Some(other) => f64::from(other.primary_cm()),
            None => {
                return Err(refuse(
                    "COL-10",
                    format!("{} has no row in its list's command chart", piece.name),
                ))
            }
        };
        // MOVE-25 ruling: mounted command units are "horse"; we count command units as moving
        // in column on a road.
        return Ok(scaled(
            ctx,
            plain(base, "TERR-14", if mounted { 10.0 } else { 5.0 }),
        ));
    }
    let Some(row) = ctx.row(piece) else {
        return Err(refuse(
            "COL-03",
            format!("{} has no troop row, so no Move value", piece.name),
        ));
    };
    if ctx.has_effect(piece, |e| matches!(e, RuleEffect::NeverMoves)) {
        return Err(refuse(
            "COL-03",
            format!(
                "{} never moves during a scenario (siege or fortress guns)",
                piece.name
            ),
        ));
    }
    let allowance = match row.arm {
        Arm::Artillery => {
            if piece.limbered {
                if manoeuvre == Manoeuvre::Manhandle {
                    return Err(refuse(
                        "MOVE-21",
                        format!("{} is limbered: it is towed, not manhandled", piece.name),
                    ));
                }
                if manoeuvre == Manoeuvre::Prolonge {
                    return Err(refuse(
                        "MOVE-24",
                        format!(
                            "{} is limbered: only unlimbered guns use the prolonge",
                            piece.name
                        ),
                    ));
                }
                only_advance("limbered guns")?;
                plain(limber_speed(ctx, piece)?, "MOVE-20", 10.0)
            } else {
                if is_emplaced(ctx, piece) {
                    return Err(refuse(
                        "MOVE-05",
                        format!(
                            "{} is emplaced in fortifications and never moves",
                            piece.name
                        ),
                    ));
                }
                match manoeuvre {
                    Manoeuvre::Manhandle => match row.movement {
                        Move::Gun { manhandle, .. } if manhandle > 0 => {
                            plain(f64::from(manhandle), "MOVE-21", 0.0)
                        }
                        Move::Cm(c) if c > 0 => plain(f64::from(c), "MOVE-21", 0.0),
                        _ => {
                            return Err(refuse(
                                "MOVE-21",
                                format!(
                                    "{} has Move {}: mortars and siege guns cannot be manhandled",
                                    piece.name, row.movement
                                ),
                            ))
                        }
                    },
                    Manoeuvre::Prolonge => match row.movement {
                        Move::Gun { prolonge, .. } if prolonge > 0 => {
                            plain(f64::from(prolonge), "MOVE-24", 0.0)
                        }
                        _ => {
                            return Err(refuse(
                                "MOVE-24",
                                format!(
                                    "{} has Move {}: no prolonge distance",
                                    piece.name, row.movement
                                ),
                            ))
                        }
                    },
                    Manoeuvre::Advance => {
                        return Err(refuse(
                            "MOVE-21",
                            format!(
                                "{} is unlimbered: it moves by manhandling (MOVE-21) or prolonge \
                                 (MOVE-24), or limbers first",
                                piece.name
                            ),
                        ))
                    }
                    Manoeuvre::Wheel | Manoeuvre::AboutFace => {
                        return Err(refuse(
                            "MOVE-22",
                            "turning an unlimbered gun is a pivot: a Deploy action",
                        ))
                    }
                    Manoeuvre::Retire => return Err(refuse("MOVE-28", "only infantry retire")),
                }
            }
        }
        Arm::Transport | Arm::Armour => {
            only_advance("transport")?;
            let base = match row.movement {
                Move::Limber { foot, horse } => f64::from(if is_horse_artillery(ctx, piece) {
                    horse
                } else {
                    foot
                }),
                m => f64::from(m.primary_cm()),
            };
            plain(base, "COL-03", 10.0)
        }
        Arm::Infantry | Arm::Engineers | Arm::Cavalry => {
            let cavalry = row.arm == Arm::Cavalry;
            let formation = piece.formation.unwrap_or(Formation::Line);
            if formation == Formation::Square {
                return Err(refuse(
                    "MOVE-15",
                    format!("{} is in square; a square cannot move", piece.name),
                ));
            }
            let light = ctx.list(id.side()).and_then(|l| {
                l.row_effects(row).find_map(|e| match e {
                    RuleEffect::LightTroops { solo_move_cm, .. } => Some(*solo_move_cm),
                    _ => None,
                })
            });
            let (base, source) = match (light, formation) {
                (Some(solo), Formation::ExtendedLine) if solo > 0 => (f64::from(solo), "COL-12"),
                _ => (f64::from(row.movement.primary_cm()), "COL-03"),
            };
            let bonus = match (formation, cavalry) {
                (Formation::MarchColumn, false) => 5.0,
                (Formation::MarchColumn, true) => 10.0,
                _ => 0.0,
            };
            let mut a = plain(base, source, bonus);
            match manoeuvre {
                Manoeuvre::Advance => {}
                Manoeuvre::Wheel => {
                    if !matches!(formation, Formation::Line | Formation::ExtendedLine) {
                        return Err(refuse(
                            "MOVE-26",
                            format!(
                                "{} is in {}: columns turn by following their head, only lines \
                                 wheel",
                                piece.name,
                                formation.label()
                            ),
                        ));
                    }
                }
                Manoeuvre::AboutFace => {
                    a.overhead_cm = base / 2.0;
                    a.road_bonus_cm = 0.0;
                }
                Manoeuvre::Retire => {
                    if cavalry {
                        return Err(refuse(
                            "MOVE-28",
                            "cavalry cannot retire; they about face (MOVE-27)",
                        ));
                    }
                    a.retire = true;
                    a.road_bonus_cm = 0.0;
                }
                Manoeuvre::Manhandle => {
                    return Err(refuse("MOVE-21", "only unlimbered guns are manhandled"))
                }
                Manoeuvre::Prolonge => {
                    return Err(refuse("MOVE-24", "only unlimbered guns move by prolonge"))
                }
            }
            a
        }
    };
    if allowance.base_cm <= 0.0 {
        return Err(refuse(
            "COL-03",
            format!("{} has Move {} and cannot move", piece.name, row.movement),
        ));
    }
    Ok(scaled(ctx, allowance))
}

/// BAS-01: every distance, moves included, scales with the miniature size.
fn scaled(ctx: &Ctx, mut a: Allowance) -> Allowance {
    let k = super::geometry::measure_scale(ctx);
    a.base_cm *= k;
    a.road_bonus_cm *= k;
    a.overhead_cm *= k;
    a
}

// ---------------------------------------------------------------------------------------------
// The moving body and the scene around it.

/// The moving piece's bases relative to its reference point (x to the right, y ahead).
#[derive(Debug, Clone)]
struct Body {
    /// Convex hull of the bases.
    hull: Vec<Point>,
    /// Convex hull of the bases shrunk by [`SHRINK_CM`].
    inner: Vec<Point>,
    front_left: Point,
    front_right: Point,
    /// Farthest hull point from the reference point.
    radius: f64,
    /// The last facing placed and its (right, ahead) unit vectors: a straight motion keeps
    /// its facing, so most placements reuse them.
    trig: std::cell::Cell<(f64, Point, Point)>,
    /// The footprint the body was made from, for its centroid: only an about face (MOVE-27)
    /// needs that, and `geo`'s centroid of every base is a good part of making the body.
    source: Footprint,
    centroid: std::cell::OnceCell<Point>,
}

impl Body {
    fn of(fp: Footprint) -> Body {
        let pose = Pose {
            at: fp.at,
            facing_deg: fp.facing_deg,
        };
        // The pose's axes once for every point (`to_local` would work them out per point).
        let axes = (right_of(pose.facing_deg), heading(pose.facing_deg));
        let local = |p: Point| {
            let d = sub(p, pose.at);
            Point::new(dot(d, axes.0), dot(d, axes.1))
        };
        // Each stand's own axes, once per facing (the stands of a formation share one).
        let mut stand_axes = (f64::NAN, Point::default(), Point::default());
        let mut corners: Vec<Point> = Vec::with_capacity(fp.stands.len() * 4);
        let mut shrunk: Vec<Point> = Vec::with_capacity(fp.stands.len() * 4);
        for s in &fp.stands {
            if stand_axes.0 != s.facing_deg {
                stand_axes = (s.facing_deg, heading(s.facing_deg), right_of(s.facing_deg));
            }
            let (_, f, r) = stand_axes;
            corners.extend(rect_corners(s.centre, s.width, s.depth, f, r).map(local));
            let width = (s.width - 2.0 * SHRINK_CM).max(SHRINK_CM);
            let depth = (s.depth - 2.0 * SHRINK_CM).max(SHRINK_CM);
            shrunk.extend(rect_corners(s.centre, width, depth, f, r).map(local));
        }
        let hull = hull_points(&corners);
        let inner = hull_points(&shrunk);
        let radius = hull.iter().map(|p| len(*p)).fold(0.0, f64::max);
        let (front_left, front_right) = match fp.fronts.first() {
            Some(e) => (local(e.left), local(e.right)),
            None => (Point::new(-0.5, 0.0), Point::new(0.5, 0.0)),
        };
        Body {
            trig: std::cell::Cell::new((f64::NAN, Point::default(), Point::default())),
            hull,
            inner,
            front_left,
            front_right,
            radius,
            source: fp,
            centroid: std::cell::OnceCell::new(),
        }
    }

    /// The centroid of the bases, local (as `Body::of` works local points out).
    fn centroid(&self) -> Point {
        *self.centroid.get_or_init(|| {
            let fp = &self.source;
            let axes = (right_of(fp.facing_deg), heading(fp.facing_deg));
            let d = sub(fp.centroid(), fp.at);
            Point::new(dot(d, axes.0), dot(d, axes.1))
        })
    }

    fn axes(&self, facing: f64) -> (Point, Point) {
        let (f0, r, a) = self.trig.get();
        if f0 == facing {
            return (r, a);
        }
        let (sn, cs) = facing.to_radians().sin_cos();
        let (r, a) = (Point::new(cs, -sn), Point::new(sn, cs));
        self.trig.set((facing, r, a));
        (r, a)
    }

    fn inner_at(&self, pose: Pose) -> Placed {
        place(&self.inner, pose, self.axes(pose.facing_deg))
    }

    fn hull_at(&self, pose: Pose) -> Placed {
        place(&self.hull, pose, self.axes(pose.facing_deg))
    }

    /// MOVE-27 ruling: an about face turns every stand in place, i.e. the footprint turns 180°
    /// about its centroid; the reference point lands on the old rear edge.
    fn about_faced(&self, pose: Pose) -> Pose {
        let c = to_world(pose, self.centroid());
        Pose {
            at: Point::new(2.0 * c.x - pose.at.x, 2.0 * c.y - pose.at.y),
            facing_deg: normalize_deg(pose.facing_deg + 180.0),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rel {
    Enemy,
    EnemyCommand,
    Friend,
}

#[derive(Debug, Clone)]
struct Other<'s> {
    id: PieceId,
    name: &'s str,
    rel: Rel,
    /// Borrowed from the battle's sight index when there is one.
    poly: std::borrow::Cow<'s, Polygon<f64>>,
    rect: Rect,
}

/// Everything a walk looks at: terrain for this mover, the other pieces and the table.
struct Scene<'s> {
    map: std::sync::Arc<TerrainMap>,
    others: Vec<Other<'s>>,
    table: Rect,
    mover: Mover,
}

/// The battle's sight index of `ctx`'s state (every piece's base hull laid out), when the
/// context has the battle's memo; `Scene::new` borrows the hulls from it.
fn hull_index(ctx: &Ctx) -> Option<std::sync::Arc<super::visibility::SightIndex>> {
    ctx.sight.map(|_| super::visibility::sight_index(ctx))
}

impl<'s> Scene<'s> {
    /// The scene within `area` (pieces whose reference point is so far away that no formation
    /// could reach into the area are skipped before their bases are laid out). `index` is
    /// [`hull_index`] of the same context.
    fn new(
        ctx: &Ctx<'s>,
        piece: &PieceState,
        mover: Mover,
        area: Rect,
        index: Option<&'s super::visibility::SightIndex>,
    ) -> Scene<'s> {
        let command_mover = piece.id.is_command();
        let scale = super::geometry::measure_scale(ctx);
        // Which other pieces the mover meets, and how (None: it ignores them).
        // The longest formation: a column of its stands, the biggest base 3.5 cm each way
        // (BAS-01: bases grow with the measure scale).
        let reach_of = |stands: u8| (f64::from(stands.max(1)) * 3.5 + 6.0) * scale;
        let relation = |id: PieceId, other: &PieceState| -> Option<Rel> {
            if id == piece.id || !other.on_table() {
                return None;
            }
            let reach = reach_of(other.stands);
            let far = other.pose.is_none_or(|p| {
                // `|`, not `||`: no branch per comparison (see `rects_overlap`).
                (p.at.x < area.min.x - reach)
                    | (p.at.x > area.max.x + reach)
                    | (p.at.y < area.min.y - reach)
                    | (p.at.y > area.max.y + reach)
            });
            if far {
                return None;
            }
            let friend = id.side() == piece.id.side();
            match (friend, id.is_command()) {
                // MOVE-08: friends pass through their own command units freely; BAS-02: a
                // command unit takes no table space, so it passes its own troops freely too.
                (true, true) => None,
                (true, false) if command_mover => None,
                (true, false) => Some(Rel::Friend),
                (false, true) => Some(Rel::EnemyCommand),
                (false, false) => Some(Rel::Enemy),
            }
        };
        // Room for the pieces near most moves, so the list seldom regrows.
        let mut others = Vec::with_capacity(32);
        match index {
            // The battle's memo has every piece's hull already, in id order, with the piece's
            // state it was laid out from (the same as the context's in all the scene reads:
            // pose, stands, knocked out, name); a piece without a hull has no footprint.
            Some(index) => {
                for (other, poly, rect) in index.hulls_near(&area, reach_of) {
                    let Some(rel) = relation(other.id, other) else {
                        continue;
                    };
                    others.push(Other {
                        id: other.id,
                        name: other.name.as_str(),
                        rel,
                        rect,
                        poly: std::borrow::Cow::Borrowed(poly),
                    });
                }
            }
            // A bare context lays every hull out.
            None => {
                for (id, other) in &ctx.state.pieces {
                    let Some(rel) = relation(*id, other) else {
                        continue;
                    };
                    let Some(fp) = footprint_of(ctx, other) else {
                        continue;
                    };
                    others.push(Other {
                        id: *id,
                        name: other.name.as_str(),
                        rel,
                        rect: fp.bounding_rect(),
                        poly: std::borrow::Cow::Owned(base_hull(&fp)),
                    });
                }
            }
        }
        let t = ctx.scenario.table;
        Scene {
            map: TerrainMap::shared_around(ctx, mover, Some(area)),
            others,
            table: Rect {
                min: Point::new(0.0, 0.0),
                max: Point::new(t.width_cm, t.depth_cm),
            },
            mover,
        }
    }

    fn command_mover(&self) -> bool {
        self.mover.kind == TroopKind::Command
    }
}

// ---------------------------------------------------------------------------------------------
// Motions.

/// One continuous piece of a move.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Motion {
    /// Straight, facing kept.
    Line { from: Pose, to: Pose },
    /// A wheel: the footprint turns `angle_deg` (clockwise positive) about `pivot`; distance is
    /// measured on the arc of radius `radius` (the outside stand, MOVE-26).
    Arc {
        from: Pose,
        pivot: Point,
        angle_deg: f64,
        radius: f64,
    },
    /// An instant change of pose (a column's head turning, an about face).
    Turn { from: Pose, to: Pose },
}

impl Motion {
    fn length(&self) -> f64 {
        match self {
            Motion::Line { from, to } => from.at.distance(to.at).0,
            Motion::Arc {
                angle_deg, radius, ..
            } => angle_deg.abs().to_radians() * radius,
            Motion::Turn { .. } => 0.0,
        }
    }

    /// The pose after `u` cm of this motion (a line may be followed past its end).
    fn pose(&self, u: f64) -> Pose {
        match *self {
            Motion::Line { from, to } => {
                let l = from.at.distance(to.at).0;
                if l <= 1e-12 {
                    return to;
                }
                let d = Point::new((to.at.x - from.at.x) / l, (to.at.y - from.at.y) / l);
                Pose {
                    at: add(from.at, d, u),
                    facing_deg: from.facing_deg,
                }
            }
            Motion::Arc {
                from,
                pivot,
                angle_deg,
                radius,
            } => {
                let total = angle_deg.abs().to_radians() * radius;
                let k = if total > 1e-12 { u / total } else { 1.0 };
                let a = angle_deg * k;
                Pose {
                    at: rotate(from.at, pivot, a),
                    facing_deg: from.facing_deg + a,
                }
            }
            Motion::Turn { from, to } => {
                if u <= 0.0 {
                    from
                } else {
                    to
                }
            }
        }
    }

    fn end(&self) -> Pose {
        match *self {
            Motion::Line { to, .. } | Motion::Turn { to, .. } => to,
            Motion::Arc { .. } => self.pose(self.length()),
        }
    }

    /// The unit direction of travel (a line's, a wheel's at its start).
    fn direction(&self) -> Point {
        match *self {
            Motion::Line { from, to } => {
                let v = sub(to.at, from.at);
                let l = len(v);
                if l > 1e-12 {
                    Point::new(v.x / l, v.y / l)
                } else {
                    heading(from.facing_deg)
                }
            }
            Motion::Arc { from, .. } | Motion::Turn { from, .. } => heading(from.facing_deg),
        }
    }

    /// Reference-point positions along the motion, for road checks and boxes.
    fn trace(&self, step: f64) -> Vec<Point> {
        self.trace_points(step).collect()
    }

    /// [`Motion::trace`]'s points one by one (a box needs no list of them).
    fn trace_points(&self, step: f64) -> impl Iterator<Item = Point> + '_ {
        let l = self.length();
        let n = (l / step).ceil().max(1.0) as usize;
        (0..=n).map(move |k| self.pose(l * k as f64 / n as f64).at)
    }
}

// ---------------------------------------------------------------------------------------------
// The walk.

const TOUCH: u8 = 1;
const HOLDS: u8 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Patch(usize),
    Other(usize),
}

#[derive(Debug, Clone, Copy)]
struct Cand {
    key: Key,
    rect: Rect,
}

/// A candidate's outline as plain segments and corners, for the contact events of straight
/// motions.
#[derive(Debug, Clone, Default)]
struct Outline {
    edges: Vec<(Point, Point)>,
    verts: Vec<Point>,
}

impl Outline {
    fn of_ring(ring: &LineString<f64>, closed: bool, out: &mut Outline) {
        let pts = &ring.0;
        out.edges.reserve(pts.len());
        out.verts.reserve(pts.len());
        for w in pts.windows(2) {
            if let (Some(a), Some(b)) = (w.first(), w.get(1)) {
                out.edges.push((Point::new(a.x, a.y), Point::new(b.x, b.y)));
            }
        }
        if closed {
            if let (Some(a), Some(b)) = (pts.last(), pts.first()) {
                let (a, b) = (Point::new(a.x, a.y), Point::new(b.x, b.y));
                if a != b {
                    out.edges.push((a, b));
                }
            }
        }
        out.verts.extend(pts.iter().map(|c| Point::new(c.x, c.y)));
    }

    fn of_shape(shape: &super::terrain::Shape) -> Outline {
        use super::terrain::Shape;
        let mut o = Outline::default();
        match shape {
            Shape::Area(a) => {
                for ring in std::iter::once(a.exterior()).chain(a.interiors()) {
                    Outline::of_ring(ring, true, &mut o);
                }
            }
            Shape::Strips(v) => {
                for p in v {
                    for ring in std::iter::once(p.exterior()).chain(p.interiors()) {
                        Outline::of_ring(ring, true, &mut o);
                    }
                }
            }
            Shape::Line(l) => Outline::of_ring(l, false, &mut o),
        }
        o
    }
}

/// Where the ray `o + t·d` crosses segment `a`–`b`, as `t` (None when parallel or missed).
fn ray_hits(o: Point, d: Point, a: Point, b: Point) -> Option<f64> {
    let e = sub(b, a);
    let den = cross(d, e);
    if den.abs() < 1e-12 {
        return None;
    }
    ray_hits_across(o, d, a, e, den)
}

/// [`ray_hits`] past its parallel test, given the segment's vector `e = b - a` and
/// `den = cross(d, e)` (the same for every ray along `d`, so worked out once per segment).
#[inline]
fn ray_hits_across(o: Point, d: Point, a: Point, e: Point, den: f64) -> Option<f64> {
    let ao = sub(a, o);
    let t = cross(ao, e) / den;
    let u = cross(ao, d) / den;
    (-1e-12..=1.0 + 1e-12).contains(&u).then_some(t)
}

/// Event index standing for the table edge.
const TABLE: usize = usize::MAX;

/// What the bases touch at one pose: per candidate, TOUCH (and HOLDS: wholly inside an area).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Snap {
    flags: Vec<u8>,
    table_ok: bool,
}

impl Snap {
    fn flag(&self, i: usize) -> u8 {
        self.flags.get(i).copied().unwrap_or(0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AreaState {
    Out,
    Straddle,
    In,
}

#[derive(Debug, Clone, Copy)]
struct Mem {
    area: AreaState,
    /// Stepped out of this area at the start of the move: its rate no longer applies.
    left: bool,
}

/// What blocked a walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cause {
    Enemy,
    Terrain,
    Table,
}

/// Why a walk cannot go on.
#[derive(Debug, Clone)]
enum Halt {
    /// It may not go here at all; `last_ok` is the last pose before.
    Blocked {
        cause: Cause,
        rule: &'static str,
        message: String,
        s: f64,
        last_ok: Pose,
        snap_ok: Snap,
        weighted: f64,
    },
    /// It must end here.
    Stop {
        rule: &'static str,
        message: String,
        s: f64,
        pose: Pose,
        snap: Snap,
        weighted: f64,
    },
    /// Entering area terrain: it must end placed wholly inside, at `pose`, `s_end` along.
    Place {
        rule: &'static str,
        message: String,
        s_end: f64,
        pose: Pose,
        snap: Snap,
        weighted: f64,
    },
}

impl Halt {
    fn severity(&self) -> u8 {
        match self {
            Halt::Blocked { .. } => 3,
            Halt::Place { .. } => 2,
            Halt::Stop { .. } => 1,
        }
    }
}

/// The state of a walk.
#[derive(Clone)]
struct Walk<'s> {
    scene: &'s Scene<'s>,
    body: &'s Body,
    cands: Rc<Vec<Cand>>,
    /// Outlines of the candidates (same order), for contact events.
    /// Made when a contact event first needs one (most candidates never do).
    outlines: Rc<Vec<std::cell::OnceCell<Outline>>>,
    /// The rate of the ground under the bases, kept up to date with `snap` and `mem`.
    rate_now: (f64, Option<&'static str>),
    mem: Vec<Mem>,
    snap: Snap,
    step: f64,
    /// No stops or rates from area terrain (TERR-09 on the road bonus).
    ignore_areas: bool,
    /// Fall-back and retreat: no costs, no linear or area stops (FIRE-24, CHG-25 rulings).
    forced: bool,
    s: f64,
    weighted: f64,
    /// The first this many cm of the move are a free crossing (MOVE-03).
    free_until: f64,
    worst: Option<(f64, &'static str)>,
    passage: Vec<PieceId>,
    overruns: Vec<PieceId>,
    /// Reference-point path stayed on a road so far.
    on_road: bool,
}

impl<'s> Walk<'s> {
    fn new(
        scene: &'s Scene<'s>,
        body: &'s Body,
        start: Pose,
        area: Rect,
        step: f64,
        ignore_areas: bool,
        forced: bool,
    ) -> Walk<'s> {
        let mut cands = Vec::with_capacity(scene.others.len() + 16);
        for (i, p) in scene.map.near(&area) {
            let relevant = match p.going {
                Going::Clear => false,
                Going::Area { .. } => !ignore_areas && !forced,
                Going::Linear { .. } => !forced,
                Going::Impassable { .. } => true,
            };
            if relevant {
                cands.push(Cand {
                    key: Key::Patch(i),
                    rect: p.rect,
                });
            }
        }
        for (j, o) in scene.others.iter().enumerate() {
            if rects_overlap(&o.rect, &area) {
                cands.push(Cand {
                    key: Key::Other(j),
                    rect: o.rect,
                });
            }
        }
        let outlines: Vec<std::cell::OnceCell<Outline>> =
            cands.iter().map(|_| std::cell::OnceCell::new()).collect();
        let mut w = Walk {
            scene,
            body,
            cands: Rc::new(cands),
            outlines: Rc::new(outlines),
            rate_now: (1.0, None),
            mem: Vec::new(),
            snap: Snap {
                flags: Vec::new(),
                table_ok: true,
            },
            step,
            ignore_areas,
            forced,
            s: 0.0,
            weighted: 0.0,
            free_until: 0.0,
            worst: None,
            passage: Vec::new(),
            overruns: Vec::new(),
            on_road: scene.map.on_road(start.at),
        };
        w.snap = w.look(start);
        w.mem = w
            .cands
            .iter()
            .enumerate()
            .map(|(i, _)| {
                let f = w.snap.flag(i);
                let area = if f & HOLDS != 0 {
                    AreaState::In
                } else if f & TOUCH != 0 {
                    AreaState::Straddle
                } else {
                    AreaState::Out
                };
                Mem { area, left: false }
            })
            .collect();
        w.rate_now = w.rate();
        w
    }

    fn look(&self, pose: Pose) -> Snap {
        self.look_among(pose, None)
    }

    /// [`Walk::look`], asking only the candidates `near` (all when `None`): the caller knows
    /// that no other candidate's box can meet the bases at `pose`, so their flags are the 0
    /// that asking them would find.
    fn look_among(&self, pose: Pose, near: Option<&[usize]>) -> Snap {
        let pts = self.body.inner_at(pose);
        let rect = rect_of(pts.iter().copied());
        let t = &self.scene.table;
        let table_ok = pts.iter().all(|p| t.contains(*p));
        let mut poly: Option<Polygon<f64>> = None;
        let flags = match near {
            None => (0..self.cands.len())
                .map(|i| self.flag_of(i, &pts, &rect, &mut poly))
                .collect(),
            Some(near) => {
                let mut flags = vec![0u8; self.cands.len()];
                for &i in near {
                    if let Some(f) = flags.get_mut(i) {
                        *f = self.flag_of(i, &pts, &rect, &mut poly);
                    }
                }
                flags
            }
        };
        Snap { flags, table_ok }
    }

    /// The candidates whose boxes may meet the bases anywhere along a wheel (None for other
    /// motions: all may). A wheel turns the footprint about its pivot, so every point of the
    /// bases stays within the reference point's distance from the pivot plus the body's radius;
    /// the box of that disc, with a margin far above rounding, holds every box `look` makes.
    fn near_motion(&self, m: &Motion) -> Option<Vec<usize>> {
        let Motion::Arc { from, pivot, .. } = *m else {
            return None;
        };
        let r = len(sub(from.at, pivot)) + self.body.radius;
        let margin = 1e-6 + 1e-9 * (pivot.x.abs() + pivot.y.abs() + r);
        let reach = r + margin;
        if !reach.is_finite() {
            return None;
        }
        let disc = Rect {
            min: Point::new(pivot.x - reach, pivot.y - reach),
            max: Point::new(pivot.x + reach, pivot.y + reach),
        };
        Some(
            self.cands
                .iter()
                .enumerate()
                .filter(|(_, c)| rects_overlap(&c.rect, &disc))
                .map(|(i, _)| i)
                .collect(),
        )
    }

    /// The snapshot `base` with only candidates `which` (and the table, [`TABLE`]) looked at
    /// again at `pose`: a straight motion's contact events say nothing else changed. `None`
    /// when that is `base` itself (copied only once something differs).
    fn relook(&self, base: &Snap, pose: Pose, which: &[usize]) -> Option<Snap> {
        let pts = self.body.inner_at(pose);
        let rect = rect_of(pts.iter().copied());
        let mut poly: Option<Polygon<f64>> = None;
        let mut out: Option<Snap> = None;
        for &i in which {
            if i == TABLE {
                let t = &self.scene.table;
                let ok = pts.iter().all(|p| t.contains(*p));
                if ok != base.table_ok {
                    out.get_or_insert_with(|| base.clone()).table_ok = ok;
                }
            } else if let Some(&was) = base.flags.get(i) {
                let f = self.flag_of(i, &pts, &rect, &mut poly);
                if f != was {
                    if let Some(slot) = out.get_or_insert_with(|| base.clone()).flags.get_mut(i) {
                        *slot = f;
                    }
                }
            }
        }
        out
    }

    /// TOUCH / HOLDS of candidate `i` for the (shrunk) outline `pts`.
    /// The box test is inlined into every look; most candidates end there.
    #[inline]
    fn flag_of(&self, i: usize, pts: &[Point], rect: &Rect, poly: &mut Option<Polygon<f64>>) -> u8 {
        match self.cands.get(i) {
            Some(c) if rects_overlap(&c.rect, rect) => self.flag_near(c, pts, poly),
            _ => 0,
        }
    }

    /// [`Walk::flag_of`] of a candidate whose box meets the bases' box.
    fn flag_near(&self, c: &Cand, pts: &[Point], poly: &mut Option<Polygon<f64>>) -> u8 {
        match c.key {
            Key::Patch(i) => match self.scene.map.patches.get(i) {
                Some(p) => {
                    let poly = poly.get_or_insert_with(|| ring_polygon(pts));
                    match p.going {
                        Going::Impassable { .. } => u8::from(p.shape.meets(poly)),
                        Going::Area { stops, .. } => {
                            if p.shape.meets(poly) {
                                if stops && p.shape.holds(poly) {
                                    TOUCH | HOLDS
                                } else {
                                    TOUCH
                                }
                            } else {
                                0
                            }
                        }
                        Going::Linear { .. } => u8::from(p.shape.meets(poly)),
                        Going::Clear => 0,
                    }
                }
                None => 0,
            },
            Key::Other(j) => match self.scene.others.get(j) {
                Some(o) => u8::from(hulls_meet(&o.poly, pts)),
                None => 0,
            },
        }
    }

    /// A candidate's outline, for contact events.
    fn outline(&self, c: &Cand) -> Outline {
        match c.key {
            Key::Patch(i) => self
                .scene
                .map
                .patches
                .get(i)
                .map(|p| Outline::of_shape(&p.shape))
                .unwrap_or_default(),
            Key::Other(j) => self
                .scene
                .others
                .get(j)
                .map(|o| {
                    let mut out = Outline::default();
                    Outline::of_ring(o.poly.exterior(), true, &mut out);
                    out
                })
                .unwrap_or_default(),
        }
    }

    /// The contact events of a straight motion between `u0` and `u1` cm along it: every time a
    /// corner of the (shrunk) bases crosses an edge of a candidate, or a candidate's corner
    /// crosses an edge of the bases, or a corner crosses the table edge — the only times what
    /// the bases touch can change. Sorted; `only` restricts them to one candidate.
    fn line_events(&self, m: &Motion, u0: f64, u1: f64, only: Option<usize>) -> Vec<(f64, usize)> {
        let Motion::Line { from, .. } = *m else {
            return Vec::new();
        };
        let d = m.direction();
        let back = Point::new(-d.x, -d.y);
        let hull = self.body.inner_at(from);
        let swept = union(
            rect_of(hull.iter().map(|p| add(*p, d, u0))),
            rect_of(hull.iter().map(|p| add(*p, d, u1))),
        );
        // The hull's edges (k to k + 1, the last closing the ring) with their vectors and
        // `ray_hits`' denominator for rays along `back`, once for every corner cast at them;
        // kept on the stack for the first `n` (all of them unless the hull is long).
        let n = hull.len().min(PLACED_INLINE);
        let mut hull_edges = [(Point::default(), Point::default(), 0.0); PLACED_INLINE];
        for (k, slot) in hull_edges.iter_mut().enumerate().take(n) {
            if let (Some(&p), Some(&q)) = (hull.get(k), hull.get((k + 1) % hull.len())) {
                let e = sub(q, p);
                *slot = (p, e, cross(back, e));
            }
        }
        let mut ev = Vec::with_capacity(32);
        let mut push = |t: f64, i: usize| {
            if t > u0 + 1e-12 && t <= u1 {
                ev.push((t, i));
            }
        };
        // Every event kept lies in the swept box: a corner's ray meets an edge at a point the
        // corner passes between `u0` and `u1`, and a candidate's corner met by an edge of the
        // bases is a point the bases pass over. An edge whose box, or a corner that, stands
        // clear of the swept box (by far more than any rounding) gives none and is skipped;
        // the others give exactly the events they gave before, in the same order.
        let near = swept.grown(1e-6);
        let mut edges: Vec<(Point, Point)> = Vec::new();
        for (i, c) in self.cands.iter().enumerate() {
            if only.is_some_and(|o| o != i) || !rects_overlap(&c.rect, &swept) {
                continue;
            }
            let Some(o) = self
                .outlines
                .get(i)
                .map(|o| o.get_or_init(|| self.outline(c)))
            else {
                continue;
            };
            edges.clear();
            edges.extend(o.edges.iter().copied().filter(|(a, b)| {
                (a.x.max(b.x) >= near.min.x)
                    & (a.x.min(b.x) <= near.max.x)
                    & (a.y.max(b.y) >= near.min.y)
                    & (a.y.min(b.y) <= near.max.y)
            }));
            for h in hull.iter() {
                for (a, b) in &edges {
                    if let Some(t) = ray_hits(*h, d, *a, *b) {
                        push(t, i);
                    }
                }
            }
            for v in o.verts.iter().filter(|v| near.contains(**v)) {
                for &(p, e, den) in hull_edges.get(..n).unwrap_or(&[]) {
                    if den.abs() < 1e-12 {
                        continue;
                    }
                    if let Some(t) = ray_hits_across(*v, back, p, e, den) {
                        push(t, i);
                    }
                }
                for k in n..hull.len() {
                    let (Some(&p), Some(&q)) = (hull.get(k), hull.get((k + 1) % hull.len())) else {
                        continue;
                    };
                    if let Some(t) = ray_hits(*v, back, p, q) {
                        push(t, i);
                    }
                }
            }
        }
        if only.is_none() {
            let t = &self.scene.table;
            for h in hull.iter() {
                if d.x.abs() > 1e-12 {
                    push((t.min.x - h.x) / d.x, TABLE);
                    push((t.max.x - h.x) / d.x, TABLE);
                }
                if d.y.abs() > 1e-12 {
                    push((t.min.y - h.y) / d.y, TABLE);
                    push((t.max.y - h.y) / d.y, TABLE);
                }
            }
        }
        ev.sort_by(|a, b| a.0.total_cmp(&b.0));
        ev
    }

    /// The rate of the ground under the bases now: the most severe area rate touched (TERR-04,
    /// TERR-08, TERR-10), 1 in the open.
    fn rate(&self) -> (f64, Option<&'static str>) {
        if self.forced {
            return (1.0, None);
        }
        let mut speed = 1.0;
        let mut rule = None;
        for (i, c) in self.cands.iter().enumerate() {
            if self.snap.flag(i) & TOUCH == 0 {
                continue;
            }
            let Some(m) = self.mem.get(i) else { continue };
            let Key::Patch(p) = c.key else { continue };
            let Some(patch) = self.scene.map.patches.get(p) else {
                continue;
            };
            if let Going::Area {
                speed: s, rule: r, ..
            } = patch.going
            {
                if !m.left && !self.ignore_areas && s < speed {
                    speed = s;
                    rule = Some(r);
                }
            }
        }
        (speed, rule)
    }

    /// Charges the stretch from `a` to `b` (cm into the move) at the current rate; the part
    /// before `free_until` (a MOVE-03 crossing) is free.
    fn accumulate(&mut self, a: f64, b: f64) {
        let a = a.max(self.free_until);
        if b <= a {
            return;
        }
        let d = b - a;
        let (speed, rule) = self.rate_now;
        self.weighted += d / speed;
        if let Some(r) = rule {
            if self.worst.is_none_or(|(s, _)| speed < s) {
                self.worst = Some((speed, r));
            }
        }
    }

    /// Runs one motion from its start. `sink` sees each step's pose and may stop the walk
    /// (returns false).
    fn run(&mut self, m: &Motion, sink: &mut dyn FnMut(&Walk, Pose) -> bool) -> Result<bool, Halt> {
        let s0 = self.s;
        let l = m.length();
        if let Motion::Turn { from, to } = *m {
            let new = self.look(to);
            if new != self.snap {
                let old = self.snap.clone();
                self.change(&old, &new, m, 0.0, s0, from, to)?;
                self.snap = new;
                self.rate_now = self.rate();
            }
            return Ok(sink(self, to));
        }
        if matches!(m, Motion::Line { .. }) {
            return self.run_line(m, sink);
        }
        let near = self.near_motion(m);
        let n = (l / self.step - 1e-9).ceil().max(1.0) as usize;
        let mut prev = 0.0;
        for k in 1..=n {
            let u = if k == n { l } else { k as f64 * self.step };
            let target = self.look_among(m.pose(u), near.as_deref());
            let mut cur = prev;
            let mut guard = 0;
            while target != self.snap && guard < 12 {
                guard += 1;
                let (lo, hi, hs) = self.bisect(m, cur, u, &target, near.as_deref());
                self.accumulate(s0 + cur, s0 + lo);
                let old = self.snap.clone();
                self.s = s0 + lo;
                self.change(&old, &hs, m, lo, s0, m.pose(lo), m.pose(hi))?;
                self.snap = hs;
                self.rate_now = self.rate();
                self.accumulate(s0 + lo, s0 + hi);
                cur = hi;
            }
            if target != self.snap {
                self.snap = target;
                self.rate_now = self.rate();
            }
            self.accumulate(s0 + cur, s0 + u);
            self.s = s0 + u;
            self.track_road(m, prev, u);
            prev = u;
            if !sink(self, m.pose(u)) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The reference point's path from `a` to `b` along `m` stays on a road (MOVE-25).
    fn track_road(&mut self, m: &Motion, a: f64, b: f64) {
        // Only a walk in road mode (TERR-09) needs to know; others never read it.
        if !self.ignore_areas {
            return;
        }
        if self.scene.map.roads.is_empty() {
            self.on_road = false;
            return;
        }
        if !self.on_road {
            return;
        }
        let (pa, pb) = (m.pose(a).at, m.pose(b).at);
        let steps = (pa.distance(pb).0 / 0.25).ceil().max(1.0) as usize;
        self.on_road = (1..=steps).all(|i| {
            let t = i as f64 / steps as f64;
            self.scene.map.on_road(Point::new(
                pa.x + (pb.x - pa.x) * t,
                pa.y + (pb.y - pa.y) * t,
            ))
        });
    }

    /// A straight motion by its contact events: between two events nothing the bases touch
    /// changes, so each event is looked at once, just after it, and the rules applied there.
    /// `sink` still sees the pose every `step`.
    fn run_line(
        &mut self,
        m: &Motion,
        sink: &mut dyn FnMut(&Walk, Pose) -> bool,
    ) -> Result<bool, Halt> {
        let s0 = self.s;
        let l = m.length();
        let events = self.line_events(m, 0.0, l, None);
        let n = (l / self.step - 1e-9).ceil().max(1.0) as usize;
        let (mut cur, mut prev_grid) = (0.0, 0.0);
        let (mut ei, mut k) = (0, 1);
        let mut which: Vec<usize> = Vec::new();
        loop {
            let next_grid = if k > n {
                f64::INFINITY
            } else if k == n {
                l
            } else {
                k as f64 * self.step
            };
            let next_event = events.get(ei).map_or(f64::INFINITY, |e| e.0);
            if next_grid.is_infinite() && next_event.is_infinite() {
                break;
            }
            if next_event <= next_grid {
                let t = next_event;
                which.clear();
                while let Some(&(te, ie)) = events.get(ei) {
                    if te - t > 1e-9 {
                        break;
                    }
                    if !which.contains(&ie) {
                        which.push(ie);
                    }
                    ei += 1;
                }
                let t_next = events.get(ei).map_or(f64::INFINITY, |e| e.0);
                let delta = ((t_next - t) / 2.0).min(1e-7);
                let at = if t < l { (t + delta).min(l) } else { l };
                let new = self.relook(&self.snap, m.pose(at), &which);
                self.accumulate(s0 + cur, s0 + t);
                cur = t;
                if let Some(new) = new.filter(|new| *new != self.snap) {
                    let old = self.snap.clone();
                    self.s = s0 + t;
                    let lo = (t - 1e-9).max(0.0);
                    self.change(&old, &new, m, lo, s0, m.pose(lo), m.pose(at))?;
                    self.snap = new;
                    self.rate_now = self.rate();
                }
            } else {
                let u = next_grid;
                self.accumulate(s0 + cur, s0 + u);
                cur = u;
                self.s = s0 + u;
                self.track_road(m, prev_grid, u);
                prev_grid = u;
                k += 1;
                if !sink(self, m.pose(u)) {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// The first change from the current snapshot between `a` and `b` (where `target` differs):
    /// (last pose still the same, first pose changed, its snapshot).
    /// `near`: as for [`Walk::look_among`].
    fn bisect(
        &self,
        m: &Motion,
        a: f64,
        b: f64,
        target: &Snap,
        near: Option<&[usize]>,
    ) -> (f64, f64, Snap) {
        let (mut lo, mut hi) = (a, b);
        let mut hs = target.clone();
        for _ in 0..BISECT_ROUNDS {
            let mid = (lo + hi) / 2.0;
            let s = self.look_among(m.pose(mid), near);
            if s == self.snap {
                lo = mid;
            } else {
                hi = mid;
                hs = s;
            }
        }
        (lo, hi, hs)
    }

    /// Applies the rules to a change of what the bases touch, just after `u_lo` along motion
    /// `m` (which starts `s0` into the move): the table edge (MOVE-02), impassable ground
    /// (TERR-02/06/07/12/13, MOVE-04), linear obstacles (TERR-02, TERR-07, TERR-13, MOVE-03),
    /// area boundaries (TERR-05), the enemy (CHG-01, CMD-23), enemy command units (MOVE-08,
    /// CMD-25) and friends passed through (MOVE-06).
    #[allow(clippy::too_many_arguments)]
    fn change(
        &mut self,
        old: &Snap,
        new: &Snap,
        m: &Motion,
        u_lo: f64,
        s0: f64,
        pose_lo: Pose,
        pose_hi: Pose,
    ) -> Result<(), Halt> {
        let s_lo = s0 + u_lo;
        let at_start = s_lo <= START_CM;
        let mut halt: Option<Halt> = None;
        let raise = |h: Halt, halt: &mut Option<Halt>| {
            if halt.as_ref().is_none_or(|x| h.severity() > x.severity()) {
                *halt = Some(h);
            }
        };
        let blocked = |cause: Cause, rule: &'static str, message: String, w: &Walk| Halt::Blocked {
            cause,
            rule,
            message,
            s: s_lo,
            last_ok: pose_lo,
            snap_ok: old.clone(),
            weighted: w.weighted,
        };
        let stop = |rule: &'static str, message: String, w: &Walk| Halt::Stop {
            rule,
            message,
            s: s_lo,
            pose: pose_lo,
            snap: old.clone(),
            weighted: w.weighted,
        };
        if old.table_ok && !new.table_ok {
            raise(
                blocked(
                    Cause::Table,
                    "MOVE-02",
                    format!(
                        "the move would take the unit off the table at {}",
                        fmt_pt(pose_hi.at)
                    ),
                    self,
                ),
                &mut halt,
            );
        }
        for i in 0..self.cands.len() {
            let (fo, fnew) = (old.flag(i), new.flag(i));
            if fo == fnew {
                continue;
            }
            let Some(c) = self.cands.get(i).copied() else {
                continue;
            };
            let touched = fo & TOUCH == 0 && fnew & TOUCH != 0;
            match c.key {
                Key::Patch(p) => {
                    let Some(patch) = self.scene.map.patches.get(p) else {
                        continue;
                    };
                    match patch.going {
                        Going::Impassable { rule } if touched => {
                            let (rule, message) = match self.narrow_gap(pose_hi, m) {
                                Some(msg) => ("MOVE-04", msg),
                                None => (
                                    rule,
                                    format!(
                                        "{} is impassable to these troops (at {})",
                                        patch.name,
                                        fmt_pt(pose_hi.at)
                                    ),
                                ),
                            };
                            raise(blocked(Cause::Terrain, rule, message, self), &mut halt);
                        }
                        Going::Linear { rule } if touched => {
                            // Touching at the start, or reached at the very start of
                            // the move (a column's first turn swings its body onto the
                            // obstacle it halted against): it is in contact there and
                            // crosses. A stop where it stands could never be the contact
                            // its next move crosses from.
                            if at_start {
                                // MOVE-03 ruling: placed with its rear edge touching the far
                                // side, free.
                                let clear = clearance(
                                    &patch.shape,
                                    &self.body.hull_at(m.pose(0.0)),
                                    m.direction(),
                                    self.body.radius * 2.0 + 10.0,
                                );
                                self.free_until = self.free_until.max(s0 + clear);
                            } else {
                                raise(
                                    stop(
                                        rule,
                                        format!(
                                            "the unit reaches {} at {} and must stop there; it \
                                             crosses at the start of its next move (MOVE-03)",
                                            patch.name,
                                            fmt_pt(pose_lo.at)
                                        ),
                                        self,
                                    ),
                                    &mut halt,
                                );
                            }
                        }
                        Going::Area { stops, rule, .. } => {
                            let Some(mm) = self.mem.get(i).copied() else {
                                continue;
                            };
                            let next = if fnew & HOLDS != 0 {
                                AreaState::In
                            } else if fnew & TOUCH != 0 {
                                AreaState::Straddle
                            } else {
                                AreaState::Out
                            };
                            if stops {
                                if mm.area == AreaState::Out && next != AreaState::Out {
                                    // TERR-05: entering.
                                    if let Some(h) =
                                        self.enter(i, m, u_lo, s0, pose_lo, old, rule, &patch.name)
                                    {
                                        raise(h, &mut halt);
                                    }
                                } else if mm.area == AreaState::In && next != AreaState::In {
                                    if at_start {
                                        if let Some(x) = self.mem.get_mut(i) {
                                            x.left = true;
                                        }
                                    } else {
                                        raise(
                                            stop(
                                                "TERR-05",
                                                format!(
                                                    "the unit reaches the edge of {} at {} and \
                                                     stops inside it; it may step out on a later \
                                                     move",
                                                    patch.name,
                                                    fmt_pt(pose_lo.at)
                                                ),
                                                self,
                                            ),
                                            &mut halt,
                                        );
                                    }
                                }
                                if next == AreaState::In {
                                    if let Some(x) = self.mem.get_mut(i) {
                                        x.left = false;
                                    }
                                }
                            }
                            if let Some(x) = self.mem.get_mut(i) {
                                x.area = next;
                            }
                        }
                        _ => {}
                    }
                }
                Key::Other(j) => {
                    let Some(o) = self.scene.others.get(j) else {
                        continue;
                    };
                    if !touched {
                        continue;
                    }
                    match o.rel {
                        Rel::Enemy => {
                            let (rule, what) = if self.scene.command_mover() {
                                ("CMD-23", "command units never charge")
                            } else {
                                ("CHG-01", "a move into contact with the enemy is a charge")
                            };
                            let message = match self.narrow_gap(pose_hi, m) {
                                Some(msg) if !self.forced => msg,
                                _ => format!(
                                    "the move runs into {} at {}: {what}",
                                    o.name,
                                    fmt_pt(pose_hi.at)
                                ),
                            };
                            let rule = if message.starts_with("the gap") {
                                "MOVE-04"
                            } else {
                                rule
                            };
                            raise(blocked(Cause::Enemy, rule, message, self), &mut halt);
                        }
                        Rel::EnemyCommand => {
                            if self.scene.command_mover() {
                                raise(
                                    blocked(
                                        Cause::Enemy,
                                        "CMD-25",
                                        format!(
                                            "command units cannot overrun enemy command units ({})",
                                            o.name
                                        ),
                                        self,
                                    ),
                                    &mut halt,
                                );
                            } else if !self.overruns.contains(&o.id) {
                                self.overruns.push(o.id);
                            }
                        }
                        Rel::Friend => {
                            if !self.passage.contains(&o.id) {
                                self.passage.push(o.id);
                            }
                        }
                    }
                }
            }
        }
        match halt {
            Some(h) => Err(h),
            None => Ok(()),
        }
    }

    /// TERR-05 entering: the unit is placed just inside, wholly within the area and touching its
    /// boundary, free, and its move ends. Along a straight motion the placement continues in the
    /// same direction; where the unit cannot be placed (the area is too narrow, or something is
    /// in the way, or the motion is a wheel or turn) it stops at the edge instead — or, if it
    /// already stood at the edge when the move began, goes on in at the reduced rate.
    #[allow(clippy::too_many_arguments)]
    fn enter(
        &mut self,
        i: usize,
        m: &Motion,
        u_lo: f64,
        s0: f64,
        pose_lo: Pose,
        old: &Snap,
        rule: &'static str,
        name: &str,
    ) -> Option<Halt> {
        let s_lo = s0 + u_lo;
        let at_start = s_lo <= START_CM;
        let placed = match m {
            Motion::Line { .. } => self.placement(i, m, u_lo, old),
            _ => None,
        };
        match placed {
            Some((u_in, pose, snap)) => Some(Halt::Place {
                rule: "TERR-05",
                message: format!(
                    "the unit reaches {name} at {} and is placed just inside it at {}, where its \
                     move ends",
                    fmt_pt(pose_lo.at),
                    fmt_pt(pose.at)
                ),
                s_end: s0 + u_in,
                pose,
                snap,
                weighted: self.weighted,
            }),
            None if at_start => None,
            None => Some(Halt::Stop {
                rule: if rule == "TERR-04" { "TERR-05" } else { rule },
                message: format!(
                    "the unit reaches {name} at {} and stops at its edge",
                    fmt_pt(pose_lo.at)
                ),
                s: s_lo,
                pose: pose_lo,
                snap: old.clone(),
                weighted: self.weighted,
            }),
        }
    }

    /// TERR-05: the first pose along a straight motion (past its end if need be) where the
    /// bases are wholly inside area candidate `i`, if nothing else is in the way there.
    fn placement(&self, i: usize, m: &Motion, u_lo: f64, old: &Snap) -> Option<(f64, Pose, Snap)> {
        let reach = self.body.radius * 2.0 + 1.0;
        // Wholly inside begins at one of the area's contact events.
        let events = self.line_events(m, u_lo, u_lo + reach, Some(i));
        let mut k = 0;
        while let Some(&(t, _)) = events.get(k) {
            while events.get(k).is_some_and(|e| e.0 - t <= 1e-9) {
                k += 1;
            }
            let t_next = events.get(k).map_or(f64::INFINITY, |e| e.0);
            let at = t + ((t_next - t) / 2.0).min(1e-7);
            let pts = self.body.inner_at(m.pose(at));
            let rect = rect_of(pts.iter().copied());
            let f = self.flag_of(i, &pts, &rect, &mut None);
            if f & HOLDS != 0 {
                let pose = m.pose(at);
                let snap = self.look(pose);
                return self
                    .clear_for_placement(&snap, old, i)
                    .then_some((at, pose, snap));
            }
            if f & TOUCH == 0 {
                return None;
            }
        }
        None
    }

    /// A placement must not put the bases on anything they were not already on (other than the
    /// area itself and other areas).
    fn clear_for_placement(&self, at: &Snap, old: &Snap, area: usize) -> bool {
        if !at.table_ok {
            return false;
        }
        self.cands.iter().enumerate().all(|(j, c)| {
            if j == area || at.flag(j) & TOUCH == 0 || old.flag(j) & TOUCH != 0 {
                return true;
            }
            match c.key {
                Key::Patch(p) => self
                    .scene
                    .map
                    .patches
                    .get(p)
                    .is_some_and(|p| matches!(p.going, Going::Area { .. })),
                Key::Other(o) => self
                    .scene
                    .others
                    .get(o)
                    .is_some_and(|o| o.rel == Rel::EnemyCommand),
            }
        })
    }

    /// MOVE-04: is the piece wedged between two obstacles, its centre line clear but both flanks
    /// blocked? Returns the message if so.
    fn narrow_gap(&self, pose: Pose, m: &Motion) -> Option<String> {
        let pts = self.body.inner_at(pose);
        let dir = m.direction();
        let centre = {
            let n = pts.len().max(1) as f64;
            Point::new(
                pts.iter().map(|p| p.x).sum::<f64>() / n,
                pts.iter().map(|p| p.y).sum::<f64>() / n,
            )
        };
        let band = 0.05;
        let left = clip_half(&pts, centre, dir, 1.0, band);
        let right = clip_half(&pts, centre, dir, -1.0, band);
        let mid = clip_half(
            &clip_half(&pts, centre, dir, 1.0, -band),
            centre,
            dir,
            -1.0,
            -band,
        );
        let blocked = |poly: &[Point]| -> bool {
            if poly.len() < 3 {
                return false;
            }
            let mut g: Option<Polygon<f64>> = None;
            self.cands.iter().any(|c| match c.key {
                Key::Patch(p) => self.scene.map.patches.get(p).is_some_and(|p| {
                    matches!(p.going, Going::Impassable { .. })
                        && p.shape.meets(g.get_or_insert_with(|| ring_polygon(poly)))
                }),
                Key::Other(o) => self
                    .scene
                    .others
                    .get(o)
                    .is_some_and(|o| o.rel == Rel::Enemy && hulls_meet(&o.poly, poly)),
            })
        };
        if blocked(&left) && blocked(&right) && !blocked(&mid) {
            Some(format!(
                "the gap at {} is narrower than the unit's frontage in its current formation",
                fmt_pt(pose.at)
            ))
        } else {
            None
        }
    }

    /// Rules checked where a move ends: on the table (MOVE-02), on no impassable ground
    /// (TERR-06/07/12/13), not astride an obstacle (MOVE-03), not overlapping friends (MOVE-06),
    /// not in contact with the enemy unless it started so (CHG-01; CMD-23 for command units).
    fn end_problem(
        &self,
        snap: &Snap,
        pose: Pose,
        start_contacts: &[PieceId],
    ) -> Option<(&'static str, String)> {
        if !snap.table_ok {
            return Some(("MOVE-02", "the unit would end off the table".to_string()));
        }
        for (i, c) in self.cands.iter().enumerate() {
            if snap.flag(i) & TOUCH == 0 {
                continue;
            }
            match c.key {
                Key::Patch(p) => {
                    let Some(patch) = self.scene.map.patches.get(p) else {
                        continue;
                    };
                    match patch.going {
                        Going::Impassable { rule } => {
                            return Some((
                                rule,
                                format!("the unit would end on {}, impassable to it", patch.name),
                            ))
                        }
                        Going::Linear { .. } => {
                            return Some((
                                "MOVE-03",
                                format!(
                                    "the unit would end astride {}: a crossing places it with its \
                                     rear edge touching the far side",
                                    patch.name
                                ),
                            ))
                        }
                        _ => {}
                    }
                }
                Key::Other(o) => {
                    let Some(other) = self.scene.others.get(o) else {
                        continue;
                    };
                    match other.rel {
                        Rel::Friend => {
                            return Some((
                                "MOVE-06",
                                format!("the unit may not end its move overlapping {}", other.name),
                            ))
                        }
                        Rel::Enemy => {
                            return Some((
                                if self.scene.command_mover() {
                                    "CMD-23"
                                } else {
                                    "CHG-01"
                                },
                                format!("the unit would end on {}", other.name),
                            ))
                        }
                        Rel::EnemyCommand => {}
                    }
                }
            }
        }
        if !self.forced && !self.scene.command_mover() {
            if let Some(name) = self.enemy_contact(pose, start_contacts) {
                return Some((
                    "CHG-01",
                    format!("the move ends in contact with {name}: moving into contact with the enemy is a charge"),
                ));
            }
        }
        None
    }

    /// CHG-01: the enemy unit (other than those touched at the start) the bases would touch.
    fn enemy_contact(&self, pose: Pose, start_contacts: &[PieceId]) -> Option<String> {
        // Cheap first: any enemy within the body's reach of the reference point at all?
        let reach = self.body.radius + CONTACT_TOLERANCE_CM;
        let around = Rect {
            min: Point::new(pose.at.x - reach, pose.at.y - reach),
            max: Point::new(pose.at.x + reach, pose.at.y + reach),
        };
        let near = self.scene.others.iter().any(|o| {
            o.rel == Rel::Enemy
                && !start_contacts.contains(&o.id)
                && rects_overlap(&o.rect, &around)
        });
        if !near {
            return None;
        }
        let hull = self.body.hull_at(pose);
        let rect = rect_of(hull.iter().copied()).grown(CONTACT_TOLERANCE_CM);
        let mut poly: Option<Polygon<f64>> = None;
        for o in &self.scene.others {
            if o.rel != Rel::Enemy
                || start_contacts.contains(&o.id)
                || !rects_overlap(&o.rect, &rect)
            {
                continue;
            }
            let p = poly.get_or_insert_with(|| ring_polygon(&hull));
            let d: f64 = Euclidean.distance(&*o.poly, &*p);
            if d < CONTACT_TOLERANCE_CM {
                return Some(o.name.to_string());
            }
        }
        None
    }
}

/// MOVE-03 ruling: how far a base must travel along `dir` to stand clear of an obstacle it is
/// crossing — the farthest any hull corner must go to leave the obstacle's far side.
fn clearance(shape: &super::terrain::Shape, hull: &[Point], dir: Point, limit: f64) -> f64 {
    use super::terrain::Shape;
    let reach = 1000.0;
    let edges: Vec<(Point, Point)> = match shape {
        Shape::Line(l) => l
            .lines()
            .map(|e| {
                (
                    Point::new(e.start.x, e.start.y),
                    Point::new(e.end.x, e.end.y),
                )
            })
            .collect(),
        Shape::Area(a) => a
            .exterior()
            .lines()
            .map(|e| {
                (
                    Point::new(e.start.x, e.start.y),
                    Point::new(e.end.x, e.end.y),
                )
            })
            .collect(),
        Shape::Strips(v) => v
            .iter()
            .flat_map(|p| p.exterior().lines())
            .map(|e| {
                (
                    Point::new(e.start.x, e.start.y),
                    Point::new(e.end.x, e.end.y),
                )
            })
            .collect(),
    };
    let mut best: f64 = 0.0;
    for v in hull {
        let far = add(*v, dir, reach);
        let ray = geo::Line::new((v.x, v.y), (far.x, far.y));
        let mut last: Option<f64> = None;
        for (a, b) in &edges {
            let e = geo::Line::new((a.x, a.y), (b.x, b.y));
            let hit = match geo::line_intersection::line_intersection(ray, e) {
                Some(geo::LineIntersection::SinglePoint { intersection, .. }) => {
                    Some(v.distance(Point::new(intersection.x, intersection.y)).0)
                }
                Some(geo::LineIntersection::Collinear { intersection }) => Some(
                    v.distance(Point::new(intersection.end.x, intersection.end.y))
                        .0,
                ),
                None => None,
            };
            if let Some(t) = hit {
                // Only the obstacle near this base: the first stretch of crossings.
                if t <= limit {
                    last = Some(last.map_or(t, |l: f64| l.max(t)));
                }
            }
        }
        if let Some(t) = last {
            best = best.max(t);
        }
    }
    best
}

/// The enemy units a piece is in contact with at a pose (a move may leave or keep those).
/// An enemy whose box is farther from the bases' box than the tolerance (plus a margin far
/// above the rounding of either figure) cannot be within it, so its polygon distance is not
/// measured; the hull polygon is laid out only when some enemy is that near.
fn enemy_contacts(scene: &Scene, body: &Body, pose: Pose) -> Vec<PieceId> {
    let pts = body.hull_at(pose);
    let near = rect_of(pts.iter().copied()).grown(CONTACT_TOLERANCE_CM + 1e-6);
    let mut hull: Option<Polygon<f64>> = None;
    let mut out = Vec::new();
    for o in &scene.others {
        if o.rel != Rel::Enemy || !rects_overlap(&o.rect, &near) {
            continue;
        }
        let hull = hull.get_or_insert_with(|| ring_polygon(&pts));
        let d: f64 = Euclidean.distance(&*o.poly, &*hull);
        if d < CONTACT_TOLERANCE_CM {
            out.push(o.id);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Building a move from an action.

/// How a piece moves, by what it is (MOVE-09, MOVE-20, MOVE-26 ruling).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// Line and extended line: straight ahead or oblique, facing kept; wheels to turn.
    Line,
    /// March and attack column, disordered: the head leads and turns, the body follows.
    Column,
    /// Limbered guns, transport and command units: any path, any final facing.
    Free,
    /// Unlimbered guns: manhandled (any direction) or prolonged (straight back), facing kept.
    Gun,
}

fn style_of(piece: &PieceState) -> Style {
    if piece.id.is_command() {
        return Style::Free;
    }
    match piece.arm {
        Some(Arm::Artillery) if piece.limbered => Style::Free,
        Some(Arm::Artillery) => Style::Gun,
        Some(Arm::Transport | Arm::Armour) => Style::Free,
        _ => match piece.formation {
            Some(Formation::MarchColumn | Formation::AttackColumn | Formation::Disordered) => {
                Style::Column
            }
            _ => Style::Line,
        },
    }
}

/// A move that the rules allow, as [`check_move`] found it.
#[derive(Debug, Clone, PartialEq)]
pub struct MovePlan {
    pub piece: PieceId,
    pub from: Pose,
    pub to: Pose,
    /// Intermediate points of the reference point's path (the action's `via`, or the points of
    /// a wheel's arc).
    pub path: Vec<Point>,
    pub allowance: Allowance,
    /// Allowance spent (MOVE-02: terrain- and manoeuvre-weighted).
    pub cost_cm: f64,
    /// The whole move ran along a road and earned the bonus (MOVE-25, TERR-09).
    pub road_bonus: bool,
    /// Friendly units passed through (MOVE-06).
    pub passed_through: Vec<PieceId>,
    /// Enemy command units moved through or into (MOVE-08, CMD-25).
    pub overruns: Vec<PieceId>,
}

/// Builds the motions of a move and checks the manoeuvre's geometry (MOVE-26..MOVE-29,
/// MOVE-21/22/24, MOVE-27 ruling). Returns the motions and the event path.
fn motions_for(
    piece: &PieceState,
    body: &Body,
    from: Pose,
    via: &[Point],
    to: Pose,
    manoeuvre: Manoeuvre,
) -> Result<(Vec<Motion>, Vec<Point>), ActionError> {
    let style = style_of(piece);
    let mut points = Vec::with_capacity(via.len() + 2);
    points.push(from.at);
    points.extend_from_slice(via);
    points.push(to.at);
    let path = via.to_vec();
    match manoeuvre {
        Manoeuvre::Advance => {
            let ms = legs(style, from, &points, Some(to.facing_deg))?;
            Ok((ms, path))
        }
        Manoeuvre::Wheel => {
            if !via.is_empty() {
                return Err(refuse(
                    "MOVE-26",
                    "a wheel is given by its end pose alone (advance, pivot, advance)",
                ));
            }
            wheel(body, from, to)
        }
        Manoeuvre::AboutFace => {
            let turned = body.about_faced(from);
            // A line ends facing the other way; a column then follows its head (the legs after
            // the turn check its final facing).
            if style != Style::Column && !same_angle(to.facing_deg, turned.facing_deg) {
                return Err(refuse(
                    "MOVE-27",
                    "an about face ends facing the opposite way",
                ));
            }
            let delta = sub(turned.at, from.at);
            // The turn is made where the path shows a leg equal to the turn's shift, or at the
            // start.
            let k = points.windows(2).position(|w| match (w.first(), w.get(1)) {
                (Some(a), Some(b)) => len(sub(sub(*b, *a), delta)) <= 0.01,
                _ => false,
            });
            let (before, after): (Vec<Point>, Vec<Point>) = match k {
                Some(k) => (
                    points.get(..=k).map(<[Point]>::to_vec).unwrap_or_default(),
                    points
                        .get(k + 1..)
                        .map(<[Point]>::to_vec)
                        .unwrap_or_default(),
                ),
                None => {
                    let mut a = vec![add(from.at, delta, 1.0)];
                    a.extend(points.iter().skip(1).copied());
                    (vec![from.at], a)
                }
            };
            let mut ms = legs(style, from, &before, None)?;
            let pre_end = ms.last().map_or(from, Motion::end);
            let post_start = body.about_faced(pre_end);
            ms.push(Motion::Turn {
                from: pre_end,
                to: post_start,
            });
            let mut rest = vec![post_start.at];
            rest.extend(after.iter().skip(1).copied());
            ms.extend(legs(style, post_start, &rest, Some(to.facing_deg))?);
            Ok((ms, path))
        }
        Manoeuvre::Retire | Manoeuvre::Prolonge => {
            let rule = if manoeuvre == Manoeuvre::Retire {
                "MOVE-28"
            } else {
                "MOVE-24"
            };
            if !same_angle(to.facing_deg, from.facing_deg) {
                return Err(refuse(
                    rule,
                    "the unit keeps its facing while moving straight back",
                ));
            }
            let back = normalize_deg(from.facing_deg + 180.0);
            let mut ms = Vec::new();
            for w in points.windows(2) {
                let (Some(&a), Some(&b)) = (w.first(), w.get(1)) else {
                    continue;
                };
                if a.distance(b).0 <= 1e-9 {
                    continue;
                }
                if !same_angle(bearing_deg(a, b), back) {
                    return Err(refuse(rule, "this move goes straight backwards only"));
                }
                ms.push(Motion::Line {
                    from: Pose {
                        at: a,
                        facing_deg: from.facing_deg,
                    },
                    to: Pose {
                        at: b,
                        facing_deg: from.facing_deg,
                    },
                });
            }
            Ok((ms, path))
        }
        Manoeuvre::Manhandle => {
            if !same_angle(to.facing_deg, from.facing_deg) {
                return Err(refuse(
                    "MOVE-22",
                    "a manhandled gun keeps its facing; turning it is a pivot (a Deploy action)",
                ));
            }
            let ms = points
                .windows(2)
                .filter_map(|w| match (w.first(), w.get(1)) {
                    (Some(&a), Some(&b)) if a.distance(b).0 > 1e-9 => Some(Motion::Line {
                        from: Pose {
                            at: a,
                            facing_deg: from.facing_deg,
                        },
                        to: Pose {
                            at: b,
                            facing_deg: from.facing_deg,
                        },
                    }),
                    _ => None,
                })
                .collect();
            Ok((ms, path))
        }
    }
}

/// Straight legs through `points` for a style, starting at `start`. `end_facing`: the facing
/// the move must end with (checked for lines and columns, taken as given by free movers).
fn legs(
    style: Style,
    start: Pose,
    points: &[Point],
    end_facing: Option<f64>,
) -> Result<Vec<Motion>, ActionError> {
    let mut ms = Vec::new();
    let mut cur = start;
    for w in points.windows(2) {
        let (Some(&a), Some(&b)) = (w.first(), w.get(1)) else {
            continue;
        };
        if a.distance(b).0 <= 1e-9 {
            continue;
        }
        let bearing = bearing_deg(a, b);
        match style {
            Style::Line | Style::Gun => {
                let off = normalize_deg(bearing - cur.facing_deg);
                if off.abs() > OBLIQUE_MAX_DEG + ANGLE_TOLERANCE_DEG {
                    let (rule, what) = if off.abs() >= 135.0 {
                        ("MOVE-28", "moving backwards is a retire (infantry only)")
                    } else {
                        (
                            "MOVE-29",
                            "an oblique move goes at most 45° from straight ahead",
                        )
                    };
                    return Err(refuse(
                        rule,
                        format!("a leg heads {off:.1}° off the unit's facing: {what}"),
                    ));
                }
            }
            Style::Column | Style::Free => {
                let turn = normalize_deg(bearing - cur.facing_deg);
                if style == Style::Column && turn.abs() > COLUMN_TURN_MAX_DEG + ANGLE_TOLERANCE_DEG
                {
                    return Err(refuse(
                        "MOVE-26",
                        format!(
                            "the column's head would turn {turn:.1}° at {}: a column turns at \
                             most 90° at a time following its head (about face to reverse, MOVE-27)",
                            fmt_pt(a)
                        ),
                    ));
                }
                if turn.abs() > 1e-9 {
                    let turned = Pose {
                        at: a,
                        facing_deg: bearing,
                    };
                    ms.push(Motion::Turn {
                        from: cur,
                        to: turned,
                    });
                    cur = turned;
                }
            }
        }
        let next = Pose {
            at: b,
            facing_deg: cur.facing_deg,
        };
        ms.push(Motion::Line {
            from: Pose {
                at: a,
                facing_deg: cur.facing_deg,
            },
            to: next,
        });
        cur = next;
    }
    if let Some(f) = end_facing {
        match style {
            Style::Line | Style::Gun => {
                if !same_angle(f, cur.facing_deg) {
                    return Err(refuse(
                        "MOVE-26",
                        "a unit in line keeps its facing when it advances; it turns by wheeling \
                         (MOVE-26) or about facing (MOVE-27)",
                    ));
                }
            }
            Style::Column => {
                if !same_angle(f, cur.facing_deg) {
                    return Err(refuse(
                        "MOVE-26",
                        "a column ends facing the way its head last moved",
                    ));
                }
            }
            Style::Free => {
                if !same_angle(f, cur.facing_deg) {
                    let turned = Pose {
                        at: cur.at,
                        facing_deg: f,
                    };
                    ms.push(Motion::Turn {
                        from: cur,
                        to: turned,
                    });
                }
            }
        }
    }
    Ok(ms)
}

/// MOVE-26: advance `a` straight ahead, pivot on the inside front corner by the facing change
/// (≤ 45°), advance `b` straight ahead; `to` fixes all three. Distance is measured on the
/// outside stand's arc (radius: the front edge's width).
fn wheel(body: &Body, from: Pose, to: Pose) -> Result<(Vec<Motion>, Vec<Point>), ActionError> {
    let theta = normalize_deg(to.facing_deg - from.facing_deg);
    if theta.abs() > WHEEL_MAX_DEG + ANGLE_TOLERANCE_DEG {
        return Err(refuse(
            "MOVE-26",
            format!(
                "a wheel turns at most 45° in a move, not {:.1}°",
                theta.abs()
            ),
        ));
    }
    let f_old = heading(from.facing_deg);
    if theta.abs() <= 1e-9 {
        // No turn: a straight advance.
        let d = sub(to.at, from.at);
        if cross(f_old, d).abs() > 1e-6 || dot(f_old, d) < -1e-9 {
            return Err(refuse(
                "MOVE-26",
                "a wheel without a turn goes straight ahead",
            ));
        }
        let ms = if len(d) > 1e-9 {
            vec![Motion::Line { from, to }]
        } else {
            vec![]
        };
        return Ok((ms, vec![]));
    }
    let f_new = heading(to.facing_deg);
    let local_pivot = if theta > 0.0 {
        body.front_right
    } else {
        body.front_left
    };
    let radius = len(sub(body.front_right, body.front_left)).max(1e-6);
    let pivot0 = to_world(from, local_pivot);
    let p1 = rotate(from.at, pivot0, theta);
    let d = sub(to.at, p1);
    let det = cross(f_old, f_new);
    let a = cross(d, f_new) / det;
    let b = cross(f_old, d) / det;
    if a < -1e-6 || b < -1e-6 {
        return Err(refuse(
            "MOVE-26",
            format!(
                "no wheel reaches that pose: pivoting on the {} flank, the unit would have to move \
                 backwards ({a:.2} cm before, {b:.2} cm after the pivot)",
                if theta > 0.0 { "right" } else { "left" }
            ),
        ));
    }
    let (a, b) = (a.max(0.0), b.max(0.0));
    let mut ms = Vec::new();
    let mut path = Vec::new();
    let start_arc = Pose {
        at: add(from.at, f_old, a),
        facing_deg: from.facing_deg,
    };
    if a > 1e-9 {
        ms.push(Motion::Line {
            from,
            to: start_arc,
        });
        path.push(start_arc.at);
    }
    let arc = Motion::Arc {
        from: start_arc,
        pivot: add(pivot0, f_old, a),
        angle_deg: theta,
        radius,
    };
    let samples = (theta.abs() / 5.0).ceil().max(1.0) as usize;
    for k in 1..samples {
        path.push(arc.pose(arc.length() * k as f64 / samples as f64).at);
    }
    let end_arc = arc.end();
    ms.push(arc);
    if b > 1e-9 {
        path.push(end_arc.at);
        ms.push(Motion::Line {
            from: end_arc,
            to: Pose {
                at: to.at,
                facing_deg: end_arc.facing_deg,
            },
        });
    }
    Ok((ms, path))
}

fn path_rect(start: Pose, ms: &[Motion]) -> Rect {
    let mut r = rect_of([start.at]);
    for m in ms {
        r = union(r, rect_of(m.trace_points(1.0)));
    }
    r
}

/// Can the piece be moved at all now (SEQ rules, FIRE-23)?
fn check_can_move(ctx: &Ctx, piece: &PieceState) -> Result<(), ActionError> {
    check_may_act(ctx, piece)?;
    // OPT-PRONE-02: a prone unit does not move.
    super::prone::check_may_move(ctx, piece)?;
    if piece.suppressed_at.is_some() {
        return Err(refuse(
            "FIRE-23",
            format!(
                "{} is suppressed and can do nothing in its own turn",
                piece.name
            ),
        ));
    }
    Ok(())
}

/// How far beyond the table's edge (cm at measure scale 1) a move's points may lie before the
/// move is refused without being walked ([`beyond_table`]).
pub const BEYOND_TABLE_CM: f64 = 10.0;

/// MOVE-02: the first of a move's points (via points, then the end) lying more than
/// [`BEYOND_TABLE_CM`] beyond the table's edge. Each is where the reference point — the middle
/// of the unit's front edge, on its bases — must pass, so the bases would leave the table, which
/// the walk refuses; saying so at once keeps the work of a check bounded by the table's size,
/// however far the point asked for.
pub fn beyond_table(ctx: &Ctx, via: &[Point], to: Pose) -> Option<Point> {
    let t = ctx.scenario.table;
    let m = BEYOND_TABLE_CM * super::geometry::measure_scale(ctx);
    via.iter()
        .chain(std::iter::once(&to.at))
        .find(|p| !(p.x >= -m && p.y >= -m && p.x <= t.width_cm + m && p.y <= t.depth_cm + m))
        .copied()
}

fn valid_pose(p: Pose) -> bool {
    p.at.x.is_finite() && p.at.y.is_finite() && p.facing_deg.is_finite()
}

/// Checks a Move action against every MOVE and TERR entry (and CHG-01, CMD-23, CMD-25 for the
/// pieces it meets) and returns the legal move, or the rule that forbids it. Nothing changes.
pub fn check_move(
    ctx: &Ctx,
    id: PieceId,
    via: &[Point],
    to: Pose,
    manoeuvre: Manoeuvre,
) -> Result<MovePlan, ActionError> {
    MoveChecker::new(ctx, id).check(via, to, manoeuvre)
}

/// The move checks answered on one state of a battle (kept by the battle's memo,
/// [`super::visibility::SightCache`], for its own state only, and forgotten when the state
/// changes). A question is the piece, the points, the end pose and the manoeuvre, compared to
/// the bit, so a remembered answer is the very one the check would give again.
#[derive(Debug, Default)]
pub(crate) struct MoveAnswers {
    asked: Vec<(MoveQuestion, Result<MovePlan, ActionError>)>,
}

#[derive(Debug)]
struct MoveQuestion {
    piece: PieceId,
    via: Vec<Point>,
    to: Pose,
    manoeuvre: Manoeuvre,
}

/// At most this many answers are kept per state (an AI's planning asks a few per unit).
const MOVE_ANSWERS_KEPT: usize = 512;

fn same_bits(a: Point, b: Point) -> bool {
    a.x.to_bits() == b.x.to_bits() && a.y.to_bits() == b.y.to_bits()
}

impl MoveAnswers {
    fn find(
        &self,
        piece: PieceId,
        via: &[Point],
        to: Pose,
        manoeuvre: Manoeuvre,
    ) -> Option<&Result<MovePlan, ActionError>> {
        self.asked
            .iter()
            .find(|(q, _)| {
                q.piece == piece
                    && q.manoeuvre == manoeuvre
                    && same_bits(q.to.at, to.at)
                    && q.to.facing_deg.to_bits() == to.facing_deg.to_bits()
                    && q.via.len() == via.len()
                    && q.via.iter().zip(via).all(|(a, b)| same_bits(*a, *b))
            })
            .map(|(_, a)| a)
    }

    fn remember(
        &mut self,
        piece: PieceId,
        via: &[Point],
        to: Pose,
        manoeuvre: Manoeuvre,
        answer: &Result<MovePlan, ActionError>,
    ) {
        if self.asked.len() < MOVE_ANSWERS_KEPT {
            if self.asked.capacity() == 0 {
                self.asked.reserve(32);
            }
            let q = MoveQuestion {
                piece,
                via: via.to_vec(),
                to,
                manoeuvre,
            };
            self.asked.push((q, answer.clone()));
        }
    }
}

/// [`check_move`] and [`legal_destinations`] for one piece in one unchanging context, asked
/// many times (an AI trying several destinations): what depends on the piece alone — its
/// straight footprint and moving body (MOVE-30), the battle's sight index whose hulls the scene
/// borrows — is worked out once, when first needed, and shared by every question. Each answer
/// is exactly the one [`check_move`] or [`legal_destinations`] gives.
pub struct MoveChecker<'c, 's> {
    ctx: &'c Ctx<'s>,
    id: PieceId,
    /// The start pose and moving body, or None when the piece has no footprint.
    prepared: std::cell::OnceCell<Option<(Pose, Body)>>,
    index: std::cell::OnceCell<Option<std::sync::Arc<super::visibility::SightIndex>>>,
    /// [`move_allowance`] per manoeuvre asked (the same for every destination).
    allowances: std::cell::RefCell<Vec<(Manoeuvre, Result<Allowance, ActionError>)>>,
}

impl<'c, 's> MoveChecker<'c, 's> {
    pub fn new(ctx: &'c Ctx<'s>, id: PieceId) -> MoveChecker<'c, 's> {
        MoveChecker {
            ctx,
            id,
            prepared: std::cell::OnceCell::new(),
            index: std::cell::OnceCell::new(),
            allowances: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// [`move_allowance`] of this piece for `manoeuvre`, worked out once.
    fn allowance(&self, manoeuvre: Manoeuvre) -> Result<Allowance, ActionError> {
        if let Some((_, known)) = self
            .allowances
            .borrow()
            .iter()
            .find(|(m, _)| *m == manoeuvre)
        {
            return known.clone();
        }
        let made = move_allowance(self.ctx, self.id, manoeuvre);
        self.allowances.borrow_mut().push((manoeuvre, made.clone()));
        made
    }

    /// MOVE-30: a move starts from the straight line (and straightens a refused flank).
    fn prepared(&self, piece: &PieceState) -> Option<&(Pose, Body)> {
        self.prepared
            .get_or_init(|| {
                straight_footprint_of(self.ctx, piece).map(|fp| {
                    let from = Pose {
                        at: fp.at,
                        facing_deg: fp.facing_deg,
                    };
                    (from, Body::of(fp))
                })
            })
            .as_ref()
    }

    fn index(&self) -> Option<&super::visibility::SightIndex> {
        self.index.get_or_init(|| hull_index(self.ctx)).as_deref()
    }

    /// [`check_move`] of this piece. On the battle's own state the answer is remembered until
    /// the state changes ([`MoveAnswers`]), so the same question is worked out once.
    pub fn check(
        &self,
        via: &[Point],
        to: Pose,
        manoeuvre: Manoeuvre,
    ) -> Result<MovePlan, ActionError> {
        let Some(memo) = self.ctx.sight else {
            return check_move_with(self, via, to, manoeuvre);
        };
        let state = self.ctx.state;
        if let Some(Some(known)) =
            memo.owner_moves(state, |m| m.find(self.id, via, to, manoeuvre).cloned())
        {
            return known;
        }
        let answer = check_move_with(self, via, to, manoeuvre);
        memo.owner_moves(state, |m| m.remember(self.id, via, to, manoeuvre, &answer));
        answer
    }

    /// [`legal_destinations`] of this piece.
    pub fn destinations(&self, manoeuvre: Manoeuvre, resolution_cm: f64) -> Vec<Pose> {
        destinations(self, manoeuvre, resolution_cm, None).unwrap_or_default()
    }

    /// Of this piece's [`legal_destinations`], the one whose reference point is nearest
    /// `target` (of equally near ones, the first in their order), and its distance, when it
    /// lies within `within_cm` of it. The same answer as searching them all, but rays that
    /// cannot come nearer than that or than the best found so far are never walked. `None`
    /// when the piece cannot move or gets no nearer than `within_cm`.
    pub fn nearest_destination(
        &self,
        manoeuvre: Manoeuvre,
        resolution_cm: f64,
        target: Point,
        within_cm: f64,
    ) -> Option<(f64, Pose)> {
        if !target.x.is_finite() || !target.y.is_finite() || within_cm.is_nan() {
            return None;
        }
        let found = destinations(self, manoeuvre, resolution_cm, Some((target, within_cm))).ok()?;
        found
            .first()
            .map(|pose| (len(sub(pose.at, target)), *pose))
            .filter(|(d, _)| *d <= within_cm)
    }
}

fn check_move_with(
    checker: &MoveChecker,
    via: &[Point],
    to: Pose,
    manoeuvre: Manoeuvre,
) -> Result<MovePlan, ActionError> {
    let (ctx, id) = (checker.ctx, checker.id);
    let piece = ctx.piece(id)?;
    check_can_move(ctx, piece)?;
    let allowance = checker.allowance(manoeuvre)?;
    if !valid_pose(to) || via.iter().any(|p| !p.x.is_finite() || !p.y.is_finite()) {
        return Err(refuse("MOVE-02", "the move's points must be numbers"));
    }
    if let Some(far) = beyond_table(ctx, via, to) {
        return Err(refuse(
            "MOVE-02",
            format!(
                "the move goes to {}, beyond the table's edge: the unit must stay on the table",
                fmt_pt(far)
            ),
        ));
    }
    // MOVE-30: a move starts from the straight line (and straightens a refused flank).
    let Some((from, body)) = checker.prepared(piece) else {
        return Err(refuse(
            "SEQ-01",
            format!("{} is not on the table", piece.name),
        ));
    };
    let (from, body) = (*from, body);
    let (motions, path) = motions_for(piece, body, from, via, to, manoeuvre)?;
    let area = path_rect(from, &motions).grown(body.radius * 3.0 + 2.0);
    let scene = Scene::new(ctx, piece, mover_of(ctx, piece), area, checker.index());
    let total: f64 = motions.iter().map(Motion::length).sum();
    // MOVE-25 / TERR-09: the road bonus needs the whole path on a road. The path is traced
    // only when a road could matter (both readers, here and `over_allowance`, ask only then).
    let roads_matter = allowance.road_bonus_cm > 0.0 && !scene.map.roads.is_empty();
    let traced: Vec<Point> = if roads_matter {
        motions.iter().flat_map(|m| m.trace(0.25)).collect()
    } else {
        Vec::new()
    };
    let on_road =
        roads_matter && scene.map.on_road(from.at) && traced.iter().all(|p| scene.map.on_road(*p));
    let mut walk = Walk::new(&scene, body, from, area, STEP_CM, on_road, false);
    let start_contacts = enemy_contacts(&scene, body, from);
    let mut end_snap: Option<Snap> = None;
    let mut weighted_at_end: Option<f64> = None;
    let last = motions.len();
    for (k, m) in motions.iter().enumerate() {
        match walk.run(m, &mut |_, _| true) {
            Ok(_) => {}
            Err(Halt::Blocked { rule, message, .. }) => return Err(refuse(rule, message)),
            Err(Halt::Stop {
                rule,
                message,
                s,
                snap,
                weighted,
                ..
            }) => {
                let rest_is_turn = motions
                    .get(k + 1..)
                    .is_some_and(|r| r.iter().all(|m| matches!(m, Motion::Turn { .. })));
                if total - s <= END_TOLERANCE_CM && (k + 1 == last || rest_is_turn) {
                    end_snap = Some(snap);
                    weighted_at_end = Some(weighted);
                    break;
                }
                return Err(refuse(rule, message));
            }
            Err(Halt::Place {
                rule,
                message,
                s_end,
                pose,
                snap,
                weighted,
            }) => {
                let lands = (total - s_end).abs() <= END_TOLERANCE_CM
                    && pose.at.distance(to.at).0 <= END_TOLERANCE_CM * 2.0
                    && (k + 1 == last
                        || motions
                            .get(k + 1..)
                            .is_some_and(|r| r.iter().all(|m| matches!(m, Motion::Turn { .. }))));
                if lands {
                    end_snap = Some(snap);
                    weighted_at_end = Some(weighted);
                    break;
                }
                return Err(refuse(rule, message));
            }
        }
    }
    let snap = end_snap.unwrap_or_else(|| walk.snap.clone());
    let weighted = weighted_at_end.unwrap_or(walk.weighted);
    if let Some((rule, message)) = walk.end_problem(&snap, to, &start_contacts) {
        return Err(refuse(rule, message));
    }
    let passage = !walk.passage.is_empty();
    if !allowance.fits(weighted, passage, on_road) {
        return Err(over_allowance(
            &allowance, weighted, total, passage, on_road, &walk, manoeuvre, &scene, &traced,
        ));
    }
    Ok(MovePlan {
        piece: id,
        from,
        to,
        path,
        allowance,
        cost_cm: allowance.spent(weighted, passage),
        road_bonus: on_road,
        passed_through: walk.passage.clone(),
        overruns: walk.overruns.clone(),
    })
}

/// Names the rule a too-long move breaks, the one whose cost tipped it over: MOVE-28 (retire),
/// MOVE-06 (passage of lines), TERR-04/07/08/11 (terrain), MOVE-27 (about face), MOVE-25 (road
/// bonus lost off the road), MOVE-26 (wheel), else MOVE-02.
#[allow(clippy::too_many_arguments)]
fn over_allowance(
    a: &Allowance,
    weighted: f64,
    raw: f64,
    passage: bool,
    on_road: bool,
    walk: &Walk,
    manoeuvre: Manoeuvre,
    scene: &Scene,
    traced: &[Point],
) -> ActionError {
    let spent = a.spent(weighted, passage);
    let describe = format!(
        "the move costs {:.2} cm of a {:.2} cm allowance",
        if a.retire {
            weighted * if passage { 2.0 } else { 1.0 }
        } else {
            spent
        },
        if a.retire {
            0.75 * a.base_cm
        } else {
            a.total(on_road)
        }
    );
    if a.retire {
        return refuse(
            "MOVE-28",
            format!("a retire covers at most ¾ of the Move: {describe}"),
        );
    }
    if passage && a.fits(weighted, false, on_road) {
        return refuse(
            "MOVE-06",
            format!("passing through friends halves the move: {describe}"),
        );
    }
    if weighted > raw + 1e-9 && a.fits(raw, passage, on_road) {
        let rule = walk.worst.map_or("TERR-04", |(_, r)| r);
        return refuse(rule, format!("terrain slows the unit: {describe}"));
    }
    if a.overhead_cm > 0.0 && a.overhead_cm + raw > a.total(on_road) && raw <= a.total(on_road) {
        return refuse(
            "MOVE-27",
            format!("an about face spends half the allowance: {describe}"),
        );
    }
    let road_would_do = a.road_bonus_cm > 0.0
        && !on_road
        && !scene.map.roads.is_empty()
        && a.fits(weighted, passage, true)
        && traced.iter().any(|p| scene.map.on_road(*p));
    if road_would_do {
        return refuse(
            "MOVE-25",
            format!("the road bonus needs the whole move along the road: {describe}"),
        );
    }
    if manoeuvre == Manoeuvre::Wheel {
        return refuse(
            "MOVE-26",
            format!("the wheel is measured on the outside stand: {describe}"),
        );
    }
    refuse("MOVE-02", describe)
}

/// MOVE-02..MOVE-30, TERR-01..TERR-14, CMD-25: a Move action as events. A legal move gives one
/// `Moved` event with the path and the allowance spent; an illegal one the rule that forbids
/// it. Moving through or into an enemy command unit overruns it (MOVE-08, CMD-25): the command
/// unit joins a friendly unit within half its Move or is knocked out (`command::overrun_events`;
/// `battle` dispatches Move actions to `command::resolve_move`, which does the same).
pub fn resolve_move(
    ctx: &Ctx,
    piece: PieceId,
    via: &[Point],
    to: Pose,
    manoeuvre: Manoeuvre,
) -> Result<Vec<Event>, ActionError> {
    let plan = check_move(ctx, piece, via, to, manoeuvre)?;
    let mut events = vec![Event::Moved {
        piece,
        from: plan.from,
        to: plan.to,
        path: plan.path,
        cost_cm: plan.cost_cm,
    }];
    events.extend(super::command::overrun_events(ctx, &plan.overruns)?);
    Ok(events)
}

/// The enemy command units a move would overrun (MOVE-08, CMD-25), for the command rules.
pub fn overruns(
    ctx: &Ctx,
    piece: PieceId,
    via: &[Point],
    to: Pose,
    manoeuvre: Manoeuvre,
) -> Result<Vec<PieceId>, ActionError> {
    Ok(check_move(ctx, piece, via, to, manoeuvre)?.overruns)
}

// ---------------------------------------------------------------------------------------------
// Legal destinations.

/// MOVE-02..MOVE-29, TERR-01..TERR-14: candidate end poses a piece could legally reach with one
/// Move action of `manoeuvre`, for a UI
/// or an AI: straight rays from the piece (every oblique within 45° for lines, all round for
/// columns, guns and free movers, every wheel angle followed by an advance, the single straight
/// line back for retire and prolonge), sampled every `resolution_cm`, plus the exact points where
/// the rules stop the piece (at a wall, inside a wood's edge) and the last step each ray's
/// allowance reaches (in rough ground that may fall short of the first sample). Each pose returned is one
/// [`check_move`] accepts for the straight path (or the wheel) to it. Empty when the piece
/// cannot move.
pub fn legal_destinations(
    ctx: &Ctx,
    id: PieceId,
    manoeuvre: Manoeuvre,
    resolution_cm: f64,
) -> Vec<Pose> {
    MoveChecker::new(ctx, id).destinations(manoeuvre, resolution_cm)
}

/// The legal destinations (see [`legal_destinations`]); with `nearest` (a point and a distance),
/// only the one nearest that point (the first in ray order of equally near ones, [`NEAR_TIE_CM`])
/// when it lies within that distance: the rays are then walked nearest first and the search ends
/// at the first ray whose whole length lies further from the point than that or the best found.
fn destinations(
    checker: &MoveChecker,
    manoeuvre: Manoeuvre,
    resolution_cm: f64,
    nearest: Option<(Point, f64)>,
) -> Result<Vec<Pose>, ActionError> {
    let (ctx, id) = (checker.ctx, checker.id);
    let piece = ctx.piece(id)?;
    check_can_move(ctx, piece)?;
    let allowance = checker.allowance(manoeuvre)?;
    let Some((from, body)) = checker.prepared(piece) else {
        return Ok(vec![]);
    };
    let (from, body) = (*from, body);
    let res = if resolution_cm.is_finite() {
        resolution_cm.max(0.1)
    } else {
        1.0
    };
    let step = res / (res / STEP_CM).ceil().max(1.0);
    let style = style_of(piece);
    // Rays run at most the reach plus a free crossing or placement (each under two body radii
    // and a centimetre); the bases reach one radius beyond the reference point.
    let longest = allowance.reach(true) + body.radius * 3.0 + 3.0;
    let area = Rect {
        min: Point::new(from.at.x - longest, from.at.y - longest),
        max: Point::new(from.at.x + longest, from.at.y + longest),
    };
    let scene = Scene::new(ctx, piece, mover_of(ctx, piece), area, checker.index());
    let road_start = allowance.road_bonus_cm > 0.0 && scene.map.on_road(from.at);
    let reach = allowance.reach(road_start);
    let start_contacts = enemy_contacts(&scene, body, from);
    let mut out = Vec::new();
    // With `nearest`: the best so far, its distance and its place in the full search's order.
    let mut best: Option<(f64, (usize, usize, usize), Pose)> = None;
    // Road mode first (its samples are valid while the path stays on the road), then normal.
    let modes: &[bool] = if road_start { &[true, false] } else { &[false] };
    for (mode, &road) in modes.iter().enumerate() {
        let template = Walk::new(&scene, body, from, area, step, road, false);
        let rays = ray_plans(style, manoeuvre, body, from, reach, res);
        let mut order: Vec<(f64, usize)> = match nearest {
            Some((t, _)) => rays
                .iter()
                .enumerate()
                .map(|(k, ray)| (ray_least_distance(ray, from, body, t), k))
                .collect(),
            None => (0..rays.len()).map(|k| (0.0, k)).collect(),
        };
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (least, k) in order {
            let bound = best.map_or(f64::INFINITY, |(b, _, _)| b);
            if nearest.is_some_and(|(_, within)| least > within.min(bound) + NEAR_TIE_CM) {
                break;
            }
            let Some((prefix, dir_facing, max_len)) = rays.get(k) else {
                continue;
            };
            // This ray's poses; with `nearest`, the best of them against the best so far.
            let mut found = Vec::new();
            walk_ray(
                &template,
                &allowance,
                road,
                &start_contacts,
                res,
                from,
                prefix,
                *dir_facing,
                *max_len,
                &mut found,
            );
            let Some((t, _)) = nearest else {
                out.append(&mut found);
                continue;
            };
            for (n, pose) in found.into_iter().enumerate() {
                let d = len(sub(pose.at, t));
                let key = (mode, k, n);
                let better = best.is_none_or(|(b, bk, _)| {
                    d < b - NEAR_TIE_CM || (d <= b + NEAR_TIE_CM && key < bk)
                });
                if better {
                    best = Some((d, key, pose));
                }
            }
        }
    }
    if nearest.is_some() {
        return Ok(best.map(|(_, _, pose)| pose).into_iter().collect());
    }
    Ok(out)
}

/// Two destinations this close to the point [`MoveChecker::nearest_destination`] is asked of
/// are equally near; the first in the full search's order is taken.
const NEAR_TIE_CM: f64 = 1e-9;

/// The least distance from `target` of any pose a ray can yield: its prefix's end (a wheel's)
/// and the straight part from there, lengthened by a placement beyond its end (two body radii
/// and a centimetre).
fn ray_least_distance(ray: &RayPlan, from: Pose, body: &Body, target: Point) -> f64 {
    let (prefix, dir_facing, max_len) = ray;
    let start = prefix.last().map_or(from, Motion::end);
    let Some((dir, _)) = dir_facing else {
        return len(sub(start.at, target));
    };
    let end = add(start.at, *dir, max_len + body.radius * 2.0 + 1.0);
    crate::geom::point_segment_distance(target, start.at, end)
}

/// One ray of [`destinations`]: its prefix (a wheel, an about face), then the straight part,
/// sampled every `res` and at each halt, and its last step within the allowance; every legal
/// pose found is pushed onto `out` in the order met.
#[allow(clippy::too_many_arguments)]
fn walk_ray(
    template: &Walk,
    allowance: &Allowance,
    road: bool,
    start_contacts: &[PieceId],
    res: f64,
    from: Pose,
    prefix: &[Motion],
    dir_facing: Option<(Point, f64)>,
    max_len: f64,
    out: &mut Vec<Pose>,
) {
    let mut walk = template.clone();
    let mut cur = from;
    for m in prefix {
        match walk.run(m, &mut |_, _| true) {
            Ok(_) => cur = m.end(),
            Err(h) => {
                take_halt(&walk, &h, allowance, road, start_contacts, out, true);
                return;
            }
        }
    }
    if !prefix.is_empty() && prefix.iter().any(|m| !matches!(m, Motion::Turn { .. })) {
        push_if_legal(
            &walk,
            &walk.snap.clone(),
            cur,
            walk.weighted,
            allowance,
            road,
            start_contacts,
            out,
        );
    }
    let Some((dir, facing)) = dir_facing else {
        return;
    };
    let ray_start = Pose {
        at: cur.at,
        facing_deg: facing,
    };
    if !same_angle(facing, cur.facing_deg) {
        let t = Motion::Turn {
            from: cur,
            to: ray_start,
        };
        if let Err(h) = walk.run(&t, &mut |_, _| true) {
            take_halt(&walk, &h, allowance, road, start_contacts, out, false);
            return;
        }
    }
    let ray = Motion::Line {
        from: ray_start,
        to: Pose {
            at: add(ray_start.at, dir, max_len),
            facing_deg: facing,
        },
    };
    let base_s = walk.s;
    let result = walk.run(&ray, &mut |w, pose| {
        let u = w.s - base_s;
        let k = (u / res).round();
        let on_grid = (u - k * res).abs() < 1e-6;
        if road && !w.on_road {
            return false;
        }
        if !allowance.fits(w.weighted, !w.passage.is_empty(), road) {
            return false;
        }
        // The ray's last step within the allowance is a destination too: rough ground may
        // leave the piece less than one sample's spacing to move (TERR-04).
        let last = !on_grid
            && !allowance.fits(
                w.weighted + w.step / w.rate_now.0.max(1e-3),
                !w.passage.is_empty(),
                road,
            );
        if (on_grid || last) && w.end_problem(&w.snap, pose, start_contacts).is_none() {
            out.push(pose);
        }
        true
    });
    if let Err(h) = result {
        if !road || walk.on_road {
            take_halt(&walk, &h, allowance, road, start_contacts, out, false);
        }
    }
}

/// A ray: motions made before it (a wheel's pivot, an about face), then the direction and
/// facing of the straight part and its longest length.
type RayPlan = (Vec<Motion>, Option<(Point, f64)>, f64);

fn ray_plans(
    style: Style,
    manoeuvre: Manoeuvre,
    body: &Body,
    from: Pose,
    reach: f64,
    res: f64,
) -> Vec<RayPlan> {
    let longest = reach + body.radius * 2.0 + 1.0;
    let fan = |start: Pose, half: f64, facing_follows: bool, max_len: f64, prefix: Vec<Motion>| {
        let r = reach.max(res);
        let dtheta = (res / r).to_degrees().max(0.5);
        let n = ((2.0 * half) / dtheta).ceil().max(1.0) as usize;
        let n = if half >= 180.0 { n } else { n + 1 };
        (0..n)
            .map(|k| {
                let off = if half >= 180.0 {
                    360.0 * k as f64 / n as f64
                } else if n > 1 {
                    -half + 2.0 * half * k as f64 / (n - 1) as f64
                } else {
                    0.0
                };
                let bearing = start.facing_deg + off;
                let facing = if facing_follows {
                    bearing
                } else {
                    start.facing_deg
                };
                (prefix.clone(), Some((heading(bearing), facing)), max_len)
            })
            .collect::<Vec<_>>()
    };
    match (manoeuvre, style) {
        (Manoeuvre::Advance, Style::Line) => fan(from, OBLIQUE_MAX_DEG, false, longest, vec![]),
        (Manoeuvre::Advance, Style::Column) => {
            fan(from, COLUMN_TURN_MAX_DEG, true, longest, vec![])
        }
        (Manoeuvre::Advance, _) => fan(from, 180.0, true, longest, vec![]),
        (Manoeuvre::Manhandle, _) => fan(from, 180.0, false, longest, vec![]),
        (Manoeuvre::Retire | Manoeuvre::Prolonge, _) => {
            let back = from.facing_deg + 180.0;
            vec![(vec![], Some((heading(back), from.facing_deg)), longest)]
        }
        (Manoeuvre::AboutFace, _) => {
            let turned = body.about_faced(from);
            let prefix = vec![Motion::Turn { from, to: turned }];
            let half = if style == Style::Line {
                OBLIQUE_MAX_DEG
            } else {
                COLUMN_TURN_MAX_DEG
            };
            fan(turned, half, style != Style::Line, longest, prefix)
        }
        (Manoeuvre::Wheel, _) => {
            let radius = len(sub(body.front_right, body.front_left)).max(1e-6);
            let dtheta = (res / radius).to_degrees().max(0.5);
            let n = (WHEEL_MAX_DEG / dtheta).ceil().max(1.0) as usize;
            let mut v = Vec::new();
            for side in [-1.0, 1.0] {
                for k in 1..=n {
                    let theta = side * WHEEL_MAX_DEG * k as f64 / n as f64;
                    let local_pivot = if theta > 0.0 {
                        body.front_right
                    } else {
                        body.front_left
                    };
                    let arc = Motion::Arc {
                        from,
                        pivot: to_world(from, local_pivot),
                        angle_deg: theta,
                        radius,
                    };
                    let end = arc.end();
                    let rest = (reach - arc.length()).max(0.0) + body.radius * 2.0 + 1.0;
                    v.push((
                        vec![arc],
                        Some((heading(end.facing_deg), end.facing_deg)),
                        rest,
                    ));
                }
            }
            v
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn push_if_legal(
    walk: &Walk,
    snap: &Snap,
    pose: Pose,
    weighted: f64,
    allowance: &Allowance,
    road: bool,
    start_contacts: &[PieceId],
    out: &mut Vec<Pose>,
) {
    if road && !walk.on_road {
        return;
    }
    if allowance.fits(weighted, !walk.passage.is_empty(), road)
        && walk.end_problem(snap, pose, start_contacts).is_none()
    {
        out.push(pose);
    }
}

/// A halt on a ray: the pose where the rules end the move (a stop or a placement) is itself a
/// destination; a block leaves the last pose before it (unless `prefix`, which must complete).
fn take_halt(
    walk: &Walk,
    h: &Halt,
    allowance: &Allowance,
    road: bool,
    start_contacts: &[PieceId],
    out: &mut Vec<Pose>,
    prefix: bool,
) {
    if prefix {
        return;
    }
    match h {
        Halt::Stop {
            pose,
            snap,
            weighted,
            ..
        }
        | Halt::Place {
            pose,
            snap,
            weighted,
            ..
        } => push_if_legal(
            walk,
            snap,
            *pose,
            *weighted,
            allowance,
            road,
            start_contacts,
            out,
        ),
        Halt::Blocked {
            last_ok,
            snap_ok,
            weighted,
            s,
            ..
        } => {
            if *s > 1e-9 {
                push_if_legal(
                    walk,
                    snap_ok,
                    *last_ok,
                    *weighted,
                    allowance,
                    road,
                    start_contacts,
                    out,
                )
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Forced moves.

/// The kinds of move a unit makes because it must (MOVE-01, MOVE-07).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForcedKind {
    /// FIRE-24: straight away from the firer; no costs, no linear or area stops.
    FallBack,
    /// CHG-25: half Move directly away; no terrain costs (ruling c), no stops.
    Retreat,
    /// INIT-05: up to the full Move directly away, under the normal terrain rules.
    Evade,
}

/// Where a forced move ends.
#[derive(Debug, Clone, PartialEq)]
pub enum ForcedOutcome {
    /// The unit moved (`distance_cm` of travel) and ended at `to`; `overruns` are enemy command
    /// units it passed through or into (CMD-25).
    Moved {
        to: Pose,
        distance_cm: f64,
        overruns: Vec<PieceId>,
    },
    /// It ran into a friendly unit and stopped on contact (FIRE-26, CHG-25): the caller applies
    /// the friend's suppression (or, in a retreat into a suppressed friend, both knock-outs).
    /// `overruns`: enemy command units passed through before the stop (CMD-25).
    StoppedByFriend {
        to: Pose,
        friend: PieceId,
        distance_cm: f64,
        overruns: Vec<PieceId>,
    },
    /// The path runs into enemy units (MOVE-07), impassable terrain (FIRE-26, CHG-25 ruling a)
    /// or off the table (FIRE-26, CHG-25): the unit is knocked out.
    KnockedOut { rule: &'static str, reason: String },
}

/// MOVE-07 (with FIRE-24/26, CHG-25, INIT-05): moves a unit `distance_cm` along `bearing_deg`
/// (the direction of travel), ending facing `end_facing_deg`. For an evade, `distance_cm` is the
/// allowance, spent at the terrain rates and cut short by linear and area stops; fall-back and
/// retreat ignore both. Reports the knock-out when the path meets enemy units, impassable ground
/// or the table edge. Nothing changes: the caller turns the outcome into events.
pub fn forced_move(
    ctx: &Ctx,
    id: PieceId,
    kind: ForcedKind,
    bearing: f64,
    distance_cm: f64,
    end_facing_deg: f64,
) -> Result<ForcedOutcome, RuleError> {
    let piece = ctx.piece(id)?;
    let Some(fp) = straight_footprint_of(ctx, piece) else {
        return Err(RuleError::new(
            "SEQ-01",
            format!("{} is not on the table", piece.name),
        ));
    };
    let from = Pose {
        at: fp.at,
        facing_deg: fp.facing_deg,
    };
    let body = Body::of(fp);
    let forced = kind != ForcedKind::Evade;
    let dir = heading(bearing);
    let length = if forced {
        distance_cm.max(0.0)
    } else {
        distance_cm.max(0.0) + body.radius * 4.0 + 2.0
    };
    let motion = Motion::Line {
        from,
        to: Pose {
            at: add(from.at, dir, length),
            facing_deg: from.facing_deg,
        },
    };
    let area = path_rect(from, &[motion]).grown(body.radius * 3.0 + 2.0);
    let index = hull_index(ctx);
    let scene = Scene::new(ctx, piece, mover_of(ctx, piece), area, index.as_deref());
    let mut walk = Walk::new(&scene, &body, from, area, STEP_CM, false, forced);
    let mut last = from;
    let mut friend: Option<PieceId> = None;
    let budget = distance_cm.max(0.0);
    let result = walk.run(&motion, &mut |w, pose| {
        // A friend touched: stop on contact (at the last pose before it).
        if let Some(f) = w.passage.first() {
            friend = Some(*f);
            return false;
        }
        if !forced && w.weighted > budget + 1e-9 {
            return false;
        }
        last = pose;
        true
    });
    let turn = |p: Pose| Pose {
        at: p.at,
        facing_deg: end_facing_deg,
    };
    match result {
        Err(Halt::Blocked {
            cause,
            message,
            last_ok,
            ..
        }) => {
            let rule = match (cause, kind) {
                (Cause::Enemy, _) => "MOVE-07",
                (_, ForcedKind::FallBack) => "FIRE-26",
                (_, ForcedKind::Retreat) => "CHG-25",
                (_, ForcedKind::Evade) => {
                    // INIT-05: an evade follows the normal rules; it stops short of the ground
                    // it may not enter.
                    return Ok(ForcedOutcome::Moved {
                        to: turn(last_ok),
                        distance_cm: round_cost(from.at.distance(last_ok.at).0),
                        overruns: walk.overruns.clone(),
                    });
                }
            };
            return Ok(ForcedOutcome::KnockedOut {
                rule,
                reason: message,
            });
        }
        Err(Halt::Stop { pose, .. }) | Err(Halt::Place { pose, .. }) => {
            return Ok(ForcedOutcome::Moved {
                to: turn(pose),
                distance_cm: round_cost(from.at.distance(pose.at).0),
                overruns: walk.overruns.clone(),
            });
        }
        Ok(_) => {}
    }
    if let Some(f) = friend {
        // Back off to the contact point by bisection between `last` and the touching pose.
        let fi = scene.others.iter().position(|o| o.id == f);
        let touching = |p: Pose| -> bool {
            fi.and_then(|i| scene.others.get(i))
                .is_some_and(|o| o.poly.intersects(&ring_polygon(&body.inner_at(p))))
        };
        let (mut lo, mut hi) = (
            from.at.distance(last.at).0,
            from.at.distance(last.at).0 + STEP_CM,
        );
        for _ in 0..BISECT_ROUNDS {
            let mid = (lo + hi) / 2.0;
            if touching(motion.pose(mid)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let at = motion.pose(lo);
        return Ok(ForcedOutcome::StoppedByFriend {
            to: turn(at),
            friend: f,
            distance_cm: round_cost(lo),
            overruns: walk.overruns.clone(),
        });
    }
    if !forced {
        // An evade spends its allowance: find where the budget runs out.
        let (mut lo, mut hi) = (0.0, length);
        let mut best = from;
        for _ in 0..BISECT_ROUNDS {
            let mid = (lo + hi) / 2.0;
            let mut w = Walk::new(&scene, &body, from, area, STEP_CM, false, false);
            let m = Motion::Line {
                from,
                to: motion.pose(mid),
            };
            let fine = w.run(&m, &mut |_, _| true).is_ok() && w.weighted <= budget + 1e-9;
            if fine {
                lo = mid;
                best = motion.pose(mid);
            } else {
                hi = mid;
            }
        }
        return Ok(ForcedOutcome::Moved {
            to: turn(best),
            distance_cm: round_cost(lo),
            overruns: walk.overruns.clone(),
        });
    }
    let end = motion.end();
    if let Some((rule, message)) = walk.end_problem(&walk.snap, end, &[]) {
        return Ok(ForcedOutcome::KnockedOut {
            rule,
            reason: message,
        });
    }
    Ok(ForcedOutcome::Moved {
        to: turn(end),
        distance_cm: round_cost(length),
        overruns: walk.overruns.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_is_clockwise_like_facings() {
        let p = rotate(Point::new(0.0, 1.0), Point::new(0.0, 0.0), 90.0);
        assert!((p.x - 1.0).abs() < 1e-12 && p.y.abs() < 1e-12);
        let h = heading(90.0);
        assert!((h.x - 1.0).abs() < 1e-12);
    }

    #[test]
    fn hull_keeps_every_corner_despite_float_noise() {
        // A column of three stands as rotated-and-back corners come out: x differs in the last
        // bits, and the left side's points are not in y order when sorted by x.
        let n = |k: f64| k * 1e-15;
        let pts = [
            Point::new(-1.75 - n(5.8), -4.0 + n(5.8)),
            Point::new(-1.75 - n(4.0), -6.0 - n(1.0)),
            Point::new(-1.75 - n(2.2), n(1.55)),
            Point::new(-1.75 + n(2.0), -2.0),
            Point::new(1.75, -6.0 - n(2.0)),
            Point::new(1.75 + n(9.3), -4.0 - n(6.0)),
            Point::new(1.75 + n(2.0), 0.0),
            Point::new(1.75 - n(1.0), -2.0),
        ];
        let h = hull_points(&pts);
        assert_eq!(h.len(), 4, "{h:?}");
        for (x, y) in [(-1.75, -6.0), (1.75, -6.0), (1.75, 0.0), (-1.75, 0.0)] {
            assert!(
                h.iter()
                    .any(|p| (p.x - x).abs() < 1e-9 && (p.y - y).abs() < 1e-9),
                "corner ({x}, {y}) missing from {h:?}"
            );
        }
    }

    /// A seeded xorshift drawing numbers in `0..1`, for the random cases below.
    fn xorshift(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// `hulls_meet` gives `geo`'s `Intersects` answer on many random pairs: rotated bases laid
    /// out as the walk lays them out, hulls of point clouds (some nearly flat), bases on a
    /// coarse grid that touch along an edge or at a corner exactly, near misses by a rounding,
    /// nested ones and degenerate rings.
    #[test]
    fn hulls_meet_agrees_with_geo() {
        let mut rnd = xorshift(0x9E37_79B9_7F4A_7C15);
        let (mut met, mut apart, mut touching) = (0, 0, 0);
        for case in 0..30_000 {
            let kind = case % 6;
            let shape = |rnd: &mut dyn FnMut() -> f64| -> Vec<Point> {
                match kind {
                    // Bases in a row (rotated, or square to the table), hull laid out at a pose
                    // like `Body::inner_at`.
                    0 | 1 => {
                        let n = 1 + (rnd() * 4.0) as usize;
                        let facing = if kind == 0 {
                            rnd() * 360.0
                        } else {
                            90.0 * (rnd() * 4.0).floor()
                        };
                        let (f, r) = (heading(facing), right_of(facing));
                        let mut corners = Vec::new();
                        for k in 0..n {
                            let c = add(Point::new(0.0, 0.0), r, 4.0 * k as f64);
                            corners.extend(rect_corners(c, 4.0, 2.0, f, r));
                        }
                        let local = hull_points(&corners);
                        let pose = Pose {
                            at: Point::new(rnd() * 12.0 - 6.0, rnd() * 12.0 - 6.0),
                            facing_deg: rnd() * 360.0,
                        };
                        let (sn, cs) = pose.facing_deg.to_radians().sin_cos();
                        let placed = place(&local, pose, (Point::new(cs, -sn), Point::new(sn, cs)));
                        // Half the time the world hull, as the sight index keeps it.
                        if rnd() < 0.5 {
                            placed.to_vec()
                        } else {
                            hull_points(&placed)
                        }
                    }
                    // Axis-aligned bases on a quarter-centimetre grid: exact edge and corner
                    // contacts are common.
                    2 => {
                        let x = (rnd() * 24.0).floor() * 0.25;
                        let y = (rnd() * 24.0).floor() * 0.25;
                        let w = 0.25 + (rnd() * 12.0).floor() * 0.25;
                        let d = 0.25 + (rnd() * 12.0).floor() * 0.25;
                        vec![
                            Point::new(x, y),
                            Point::new(x + w, y),
                            Point::new(x + w, y + d),
                            Point::new(x, y + d),
                        ]
                    }
                    // Point clouds, some nearly flat.
                    3 => {
                        let n = 3 + (rnd() * 8.0) as usize;
                        let squash = if rnd() < 0.3 { 1e-12 } else { 1.0 };
                        let pts: Vec<Point> = (0..n)
                            .map(|_| Point::new(rnd() * 8.0 - 4.0, (rnd() * 8.0 - 4.0) * squash))
                            .collect();
                        hull_points(&pts)
                    }
                    // Triangles and segments with corners on a coarse grid.
                    4 => {
                        let n = if rnd() < 0.2 { 2 } else { 3 };
                        (0..n)
                            .map(|_| Point::new((rnd() * 6.0).floor(), (rnd() * 6.0).floor()))
                            .collect()
                    }
                    // A unit square nudged by a rounding or two from the grid.
                    _ => {
                        let e = f64::EPSILON * (rnd() * 8.0 - 4.0).round();
                        let (x, y) = ((rnd() * 3.0).floor() + e, (rnd() * 3.0).floor() - e);
                        vec![
                            Point::new(x, y),
                            Point::new(x + 1.0, y),
                            Point::new(x + 1.0, y + 1.0),
                            Point::new(x, y + 1.0),
                        ]
                    }
                }
            };
            let (pa, pb) = (shape(&mut rnd), shape(&mut rnd));
            let (a, b) = (ring_polygon(&pa), ring_polygon(&pb));
            let want = a.intersects(&b);
            assert_eq!(hulls_meet(&a, &pb), want, "case {case}: {a:?} {b:?}");
            assert_eq!(hulls_meet(&b, &pa), want, "case {case}: {b:?} {a:?}");
            // Corners against the ring as `geo` places them.
            for c in a.exterior().0.iter().chain(b.exterior().0.iter()) {
                let mut ring = b.exterior().0.clone();
                assert_eq!(outside_ring(*c, &ring), !b.intersects(c), "case {case}");
                ring.truncate(1);
                let one = Polygon::new(LineString::from(ring.clone()), vec![]);
                assert_eq!(outside_ring(*c, &ring), !one.intersects(c), "case {case}");
            }
            if want {
                met += 1;
                let corner_inside = a.exterior().0.iter().any(|c| b.intersects(c))
                    || b.exterior().0.iter().any(|c| a.intersects(c));
                let d: f64 = Euclidean.distance(&a, &b);
                if d == 0.0 && !corner_inside {
                    touching += 1;
                }
            } else {
                apart += 1;
            }
        }
        // Both answers, and pairs that meet only where edges cross or touch, are all tried.
        assert!(met > 3_000 && apart > 3_000, "{met} {apart}");
        assert!(touching > 100, "{touching}");
    }

    /// `round_i64` is `round() as i64` on halves, near-halves, negatives, huge values and the
    /// quantized coordinates `hull_points` makes.
    #[test]
    fn round_i64_rounds_as_round_does() {
        let mut rnd = xorshift(0x2545_F491_4F6C_DD1D);
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            0.499_999_999_999_999_94,
            -0.499_999_999_999_999_94,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            9.3e18,
            -9.3e18,
            1e300,
            f64::MAX,
            f64::MIN,
        ];
        for _ in 0..100_000 {
            let k = (rnd() * 2e6 - 1e6).floor();
            xs.push(k + 0.5);
            xs.push(k + 0.5 - f64::EPSILON * k.abs().max(1.0));
            xs.push(k + 0.5 + f64::EPSILON * k.abs().max(1.0));
            xs.push((rnd() * 400.0 - 100.0) * 1e9);
        }
        for x in xs {
            assert_eq!(round_i64(x), x.round() as i64, "{x:e}");
        }
    }

    #[test]
    fn clip_half_splits_a_square() {
        let sq = [
            Point::new(-1.0, -1.0),
            Point::new(1.0, -1.0),
            Point::new(1.0, 1.0),
            Point::new(-1.0, 1.0),
        ];
        // Direction +y: "left" (cross > 0) is x < 0.
        let left = clip_half(&sq, Point::new(0.0, 0.0), Point::new(0.0, 1.0), 1.0, 0.0);
        assert!(left.iter().all(|p| p.x <= 1e-12));
        assert_eq!(left.len(), 4);
    }

    #[test]
    fn allowance_arithmetic() {
        let a = Allowance {
            base_cm: 10.0,
            source: "COL-03",
            road_bonus_cm: 5.0,
            overhead_cm: 0.0,
            retire: false,
        };
        assert!(a.fits(10.0, false, false));
        assert!(!a.fits(10.1, false, false));
        assert!(a.fits(15.0, false, true));
        assert!(a.fits(5.0, true, false));
        assert!(!a.fits(5.5, true, false));
        assert_eq!(a.spent(5.0, true), 10.0);
        let r = Allowance { retire: true, ..a };
        assert!(r.fits(7.5, false, false) && !r.fits(7.6, false, false));
        assert_eq!(r.spent(3.0, false), 10.0);
    }

    #[test]
    fn arc_motion_measures_the_outside_stand() {
        let m = Motion::Arc {
            from: Pose {
                at: Point::new(0.0, 0.0),
                facing_deg: 0.0,
            },
            pivot: Point::new(5.0, 0.0),
            angle_deg: 45.0,
            radius: 10.0,
        };
        assert!((m.length() - 10.0 * std::f64::consts::FRAC_PI_4).abs() < 1e-12);
        let end = m.end();
        assert!((end.facing_deg - 45.0).abs() < 1e-12);
    }
}
