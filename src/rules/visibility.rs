//! Visibility (catalogue §2.3, VIS-01..VIS-17): who can see whom, and if not, which rule and
//! which feature or unit is in the way.
//!
//! # How a line of sight is traced
//!
//! VIS-02 ruling: LOS exists if at least one straight segment from a point of the observer's
//! stands to a point of the target's stands lies in the observer's sight arc (VIS-03), is no
//! longer than the visibility limit (VIS-04) and is not blocked (VIS-07..VIS-15). The points
//! are sampled per stand — corners and edge midpoints — keeping those on the outside of the unit
//! (a point buried between two stands sees nothing its neighbours on the outline do not). As the
//! arc is a half-plane, a segment lies in it only if both its ends do: the observer's points are
//! those on or ahead of its front edge (all of them for command units and squares), the
//! target's those inside the arc. Before any segment is traced, the two concealment rules that
//! hide a whole unit are applied (VIS-17 dug-in troops, VIS-08 unfired guns, only between
//! enemies), and points that cannot see or be seen whatever the segment are dropped: those
//! deeper in a wood than VIS-12 lets anyone see, and those behind a hill's crest (VIS-14).
//!
//! A segment is then tested against, in order: other units (VIS-07 (3): every unit except
//! command units, infantry skirmishers and unlimbered guns, each blocking with the convex hull
//! of its stands), linear obstacles (VIS-09), hills (VIS-06, VIS-14) and area terrain (VIS-11..
//! VIS-13, VIS-15). The first segment tried gives the reason reported when none is clear.
//!
//! Speed (`benches/engine.rs`, `los`): everything that could be in the way of a pair lies in
//! their *corridor*, the convex hull of both units' points. If a single opaque blocker (a unit,
//! high area terrain or a hill neither unit stands on, touching neither unit) meets both outer
//! tangents of the corridor, it cuts every segment, and the pair is out of sight without
//! tracing any. Otherwise segments are traced with whatever blocked the previous one tried
//! first, and with target points on the far side of the target's own bases left out (they see
//! nothing a nearer point does not).
//!
//! Every segment-against-shape question goes through [`crate::geom::prefilter`] first: plain
//! `f64` orientation tests that trust a sign only beyond its rounding bound, so they answer
//! "certainly crosses" or "certainly apart" exactly as `geo`'s robust predicates would, and
//! leave the rest to `geo`. What each query would otherwise redo is made once in the index:
//! which areas each unit touches, each unit's sight arc, each shape's convexity. The corridor
//! hull is built only when an opaque blocker is in the scene. None of this changes an answer:
//! `tests/engine_visibility_equivalence.rs` holds the index to the implementation it replaced,
//! answer for answer, on the bench's table and on random ones.
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * A segment that touches a unit, a wood neither unit touches or a hill neither stands on is
//!   blocked by it (touching counts, as for bases); a segment's own two ends are trimmed by a
//!   hundredth of a millimetre first, so a point on a base that touches a blocker is not
//!   blocked by the touch alone.
//! * A unit stands *inside* an area or *on* a hill contour when its footprint centroid does;
//!   its level is the highest contour containing that point (0: the table).
//! * Area terrain is measured along each segment as the intervals the segment spends inside
//!   the polygon. The interval that starts at the observer is "seeing out" (VIS-12 (c)), the one
//!   that ends at the target "seeing in" (VIS-12 (a)), one covering both ends "both inside"
//!   (VIS-12 (b)), and any other interval a crossing (high: blocks, VIS-07; low: VIS-13).
//! * VIS-11 "at the boundary": the seeing-out or seeing-in interval is forgiven when the segment
//!   leaves (enters) the terrain within base contact of the unit's own bases — troops lining the
//!   edge see out and are seen through *that* edge, not across the whole wood behind them.
//! * VIS-15 applies to the observer only, when it stands on a hill above the target.
//! * Hills group into massifs: a contour belongs to the massif of the lower contour containing
//!   it. VIS-14's "top contour" is the massif's highest contour nearest the unit on the hill;
//!   VIS-14 (c) blocks with the massif's lowest contour. Mountains count as one-level hills.
//! * TERR-07 partially wet ground (swamp, marsh, paddy) is low area terrain for sight; roads,
//!   streams, rivers, impassable ground and open clearings do not affect sight.
//! * Field defences along a line — breast works, log works, fortified works, fortifications —
//!   block sight as linear obstacles (VIS-09); wire, stakes, ditches, trenches and dug-outs do not.
//! * VIS-08 "behind linear terrain" and VIS-17 "behind" mean the obstacle the unit touches
//!   crosses the segment between the two units' centroids.
//! * VIS-16: a piece counts as dug in only if its side is the scenario's defender; otherwise the
//!   flag is ignored (and [`check_dug_in`] says why).
//! * Dug-in units and unlimbered guns are the VIS-12 5 cm types until revealed; an unfired gun
//!   or unrevealed dug-in unit is revealed by firing (`has_fired`); a dug-in unit also by moving
//!   and by an enemy within 5 cm (VIS-17): `reveal::append_reveals` records those as
//!   `Event::Revealed`, which sets `revealed` ([`due_reveals`] is the same proximity test over
//!   an index).
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::battle::Ctx;
use super::error::RuleError;
use super::geometry::{
    footprint_of, is_skirmisher, measure_scale, stand_kind, CONTACT_TOLERANCE_CM,
};
use super::state::BattleState;
use super::state::{PieceId, PieceState};
use crate::geom::footprint::{coord, heading, rect_of, ring_polygon, EPS};
use crate::geom::index::FlatBoxes;
use crate::geom::prefilter::{
    self, convex_turn, merged_hull, point_hull, sorted_coords, SegmentProbe, Wedge,
};
use crate::geom::segment::{
    footprint_boundary_distance, footprint_polyline_distance, rect_gap, rect_gap_squared,
    rects_overlap, Segment,
};
use crate::geom::{crest_line, BoxIndex, CrestLine, Footprint, Point, Rect, StandKind};
use crate::model::{
    Arm, DefenseId, DefenseKind, FeatureId, Geometry, OptionalRule, Scenario, TerrainKind, Weather,
};
use geo::orient::{Direction, Orient};
use geo::{
    BooleanOps, Contains, Distance, Euclidean, Intersects, IsConvex, Line, LineString, Polygon,
};
use std::borrow::Cow;
use std::sync::Arc;
use std::sync::{Mutex, OnceLock};

/// VIS-04: normal visibility, cm.
pub const NORMAL_VISIBILITY_CM: f64 = 100.0;
/// OPT-WEATHER-03 / OPT-NIGHT-01: poor weather and night.
pub const POOR_VISIBILITY_CM: f64 = 40.0;
/// OPT-WEATHER-03: extreme weather.
pub const EXTREME_VISIBILITY_CM: f64 = 10.0;
/// VIS-05 / VIS-12: concealed types (deployed guns, dug-in troops) are seen only this close.
pub const CONCEALED_SEEN_CM: f64 = 5.0;
/// VIS-12: other troops inside high area terrain.
pub const HIGH_AREA_SEEN_CM: f64 = 10.0;
/// VIS-12: other troops inside low area terrain.
pub const LOW_AREA_SEEN_CM: f64 = 20.0;
/// VIS-13: the longest crossing of one low area piece.
pub const LOW_CROSSING_CM: f64 = 10.0;
/// VIS-08: an enemy this close reveals an unfired gun (the initiative range).
pub const HIDDEN_GUN_REVEAL_CM: f64 = 20.0;
/// VIS-17: an enemy this close reveals dug-in troops.
pub const DUG_IN_REVEAL_CM: f64 = 5.0;

/// Segments are trimmed this much at each end before testing them against units and linear
/// obstacles, so that a sample point on a base touching another unit's corner is not "blocked"
/// by the touch.
const TRIM_CM: f64 = 1e-3;
/// How far a blocker must stand from both units (bounding boxes) for its shadow
/// ([`SightIndex::shadow`]) to count: well over the two trims, so that where a segment in the
/// shadow crosses the blocker lies inside the trimmed segment.
const SHADOW_MARGIN_CM: f64 = 0.01;

/// VIS-04, OPT-WEATHER-03, OPT-NIGHT-01: the visibility limit at measure scale 1. The weather
/// is given (it changes during a battle, OPT-WEATHER-04); it counts only when the weather rule
/// is on, night only when the night rule is on, and with both the worse applies.
pub fn visibility_limit_cm(scenario: &Scenario, weather: Weather) -> f64 {
    let weather_on = scenario.optional_rules.contains(&OptionalRule::Weather);
    let night_on = scenario.optional_rules.contains(&OptionalRule::Night);
    let mut limit = NORMAL_VISIBILITY_CM;
    if weather_on {
        limit = match weather {
            Weather::Normal => NORMAL_VISIBILITY_CM,
            Weather::Poor | Weather::Night => POOR_VISIBILITY_CM,
            Weather::Extreme => EXTREME_VISIBILITY_CM,
        };
    }
    if night_on {
        limit = limit.min(POOR_VISIBILITY_CM);
    }
    limit
}

/// What a terrain kind is to sight (VIS-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SightTerrain {
    /// Crops, tall grass, scrub, heath (and, by ruling, partially wet ground).
    LowArea,
    /// Orchards, woods, forest, jungle and built-up areas.
    HighArea,
    /// A hill contour (mountains: level 1).
    Hill { level: u8 },
    /// Walls, fences, hedges.
    Linear,
    /// No effect on sight.
    Clear,
}

/// VIS-10: the sight class of a terrain kind.
pub fn sight_terrain(kind: TerrainKind) -> SightTerrain {
    match kind {
        TerrainKind::LowArea | TerrainKind::PartiallyWet => SightTerrain::LowArea,
        TerrainKind::HighArea | TerrainKind::BuiltUp => SightTerrain::HighArea,
        TerrainKind::Hill { level } => SightTerrain::Hill {
            level: level.max(1),
        },
        TerrainKind::Mountain => SightTerrain::Hill { level: 1 },
        TerrainKind::Linear => SightTerrain::Linear,
        TerrainKind::Open
        | TerrainKind::Road
        | TerrainKind::ShallowWet
        | TerrainKind::DeepWet
        | TerrainKind::Impassable => SightTerrain::Clear,
    }
}

/// Field defences that block sight as linear obstacles (ruling in the module docs).
pub fn defense_blocks_sight(kind: DefenseKind) -> bool {
    matches!(
        kind,
        DefenseKind::BreastWorks
            | DefenseKind::LogWorks
            | DefenseKind::FortifiedWorks
            | DefenseKind::Fortification
    )
}

/// What stands in the way.
#[derive(Debug, Clone, PartialEq)]
pub enum Blocker {
    Feature {
        id: FeatureId,
        name: String,
    },
    Defense {
        id: DefenseId,
        side: usize,
        name: String,
    },
    Piece {
        id: PieceId,
        name: String,
    },
}

impl Blocker {
    pub fn name(&self) -> &str {
        match self {
            Blocker::Feature { name, .. }
            | Blocker::Defense { name, .. }
            | Blocker::Piece { name, .. } => name,
        }
    }
}

/// The answer to "can the observer see the target?", with the reason either way.
#[derive(Debug, Clone, PartialEq)]
pub struct Sight {
    pub visible: bool,
    /// Visible: "VIS-02". Not visible: the rule that hides the target.
    pub rule: &'static str,
    /// A sentence for the UI and the dice log.
    pub detail: String,
    /// The feature or unit in the way, when there is one.
    pub by: Option<Blocker>,
    /// Visible: the clear segment found. Not visible: the segment the reason was found on.
    pub segment: Option<(Point, Point)>,
    /// Edge-to-edge distance between the two units, cm.
    pub distance_cm: f64,
    /// Exceptions the clear segment relied on (e.g. "VIS-09", "VIS-13"), in catalogue order.
    pub exceptions: Vec<&'static str>,
}

impl Sight {
    fn hidden(rule: &'static str, detail: String, by: Option<Blocker>, distance_cm: f64) -> Sight {
        Sight {
            visible: false,
            rule,
            detail,
            by,
            segment: None,
            distance_cm,
            exceptions: Vec::new(),
        }
    }

    /// Out of sight because `block` blocks the segment `seg` (VIS-02: the first one tried).
    fn blocked(block: Block, seg: &Segment, distance_cm: f64) -> Sight {
        Sight {
            segment: Some((seg.a, seg.b)),
            ..Sight::hidden(block.rule, block.detail, block.by, distance_cm)
        }
    }
}

/// Scale-adjusted numbers one query batch uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SightParams {
    pub limit_cm: f64,
    pub measure_scale: f64,
    pub contact_cm: f64,
}

impl SightParams {
    /// The scenario's weather, scaled by the battle's measure scale (BAS-01).
    pub fn of(ctx: &Ctx) -> SightParams {
        // OPT-WEATHER-03/04, OPT-NIGHT-01: the weather of the moment (battle state).
        SightParams::with_weather(ctx, super::weather::effective(ctx.scenario, ctx.state))
    }

    /// As [`SightParams::of`] with the weather of the moment (OPT-WEATHER-04 changes it).
    pub fn with_weather(ctx: &Ctx, weather: Weather) -> SightParams {
        let scale = measure_scale(ctx);
        SightParams {
            limit_cm: visibility_limit_cm(ctx.scenario, weather) * scale,
            measure_scale: scale,
            contact_cm: CONTACT_TOLERANCE_CM * scale,
        }
    }
}

/// The shape of a sight-relevant feature.
#[derive(Debug, Clone)]
enum Shape {
    Area(Polygon<f64>),
    Line {
        line: LineString<f64>,
        half_width: f64,
    },
}

#[derive(Debug, Clone)]
struct FeatureSight {
    class: SightTerrain,
    /// The feature's own points (area rings not closed).
    points: Vec<Point>,
    shape: Shape,
    rect: Rect,
    blocker: Blocker,
    /// Hills: the massif the contour belongs to.
    massif: Option<usize>,
    /// Areas: convex (a cheaper proof that it cuts a corridor).
    convex: bool,
    /// Areas: which way the exterior turns if it is convex ([`convex_turn`]), so that a
    /// segment can be tested against its edges as separating axes; 0 for the others.
    turn: i8,
}

#[derive(Debug, Clone)]
struct Massif {
    /// The lowest contour (feature index): what blocks when no unit stands on the hill.
    base: usize,
    /// Every contour of the massif (feature indices).
    contours: Vec<usize>,
}

#[derive(Debug, Clone)]
struct PieceSight {
    /// The state this was made from: an unchanged piece keeps its part in a refreshed index.
    source: PieceState,
    /// The convex hull of its bases, which movement collides with (`movement::base_hull`).
    hull: Polygon<f64>,
    id: PieceId,
    name: String,
    footprint: Footprint,
    rect: Rect,
    outline: Polygon<f64>,
    /// Which way the outline (a convex hull) turns ([`convex_turn`]), for
    /// [`SegmentProbe::meets_convex`].
    outline_turn: i8,
    /// VIS-03: the sight arc, made once ([`SightArc`]).
    arc: SightArc,
    /// The corners of the convex hull of the samples ([`Seen::samples`]), and of the samples in
    /// the unit's own sight arc: the corridor of a query whose points are these sets is the
    /// hull of these corners (see [`SightIndex::trace`]). Made when a query first needs them.
    samples_hull: OnceLock<Corners>,
    arc_hull: OnceLock<Corners>,
    /// VIS-09: the linear features (by index, sorted) the unit is in base contact with, made
    /// when a query first asks ([`SightIndex::linear_contacts`]).
    linear_contact: OnceLock<Vec<usize>>,
    /// What only a unit that sees or is looked at needs, made when a query first asks
    /// ([`SightIndex::seen`]): most pieces rebuilt after a move stand in other units' way or
    /// are measured to, and never observe or get looked at before they move again.
    seen: OnceLock<Seen>,
    /// VIS-07 (3): blocks other units' sight.
    blocks: bool,
    /// Artillery (VIS-08).
    gun: bool,
    /// VIS-12: seen only within 5 cm inside area terrain.
    concealed: bool,
    /// VIS-16 lawful and not yet revealed (VIS-17).
    dug_in: bool,
    /// VIS-17: revealed by an enemy within 5 cm (foot, command, cavalry, deployed guns).
    revealed_by_proximity: bool,
    has_fired: bool,
    /// Each stand's bounding rectangle and polygon, made once.
    stands: Vec<(Rect, Polygon<f64>)>,
}

/// What a piece's sight part says of it beyond its geometry.
struct Flags {
    blocks: bool,
    gun: bool,
    concealed: bool,
    dug_in: bool,
    revealed_by_proximity: bool,
    has_fired: bool,
}

impl PieceSight {
    /// A piece's sight part: its geometry from the footprint, the rest as `flags` say. One
    /// constructor for the pieces on the table and the ruler's bare points.
    fn new(source: PieceState, fp: Footprint, flags: Flags) -> PieceSight {
        let outline = fp.outline().orient(Direction::Default);
        PieceSight {
            hull: super::movement::base_hull(&fp),
            id: source.id,
            name: source.name.clone(),
            source,
            rect: fp.bounding_rect(),
            outline_turn: convex_turn(&outline.exterior().0),
            outline,
            arc: SightArc::of(&fp),
            samples_hull: OnceLock::new(),
            arc_hull: OnceLock::new(),
            linear_contact: OnceLock::new(),
            seen: OnceLock::new(),
            blocks: flags.blocks,
            gun: flags.gun,
            concealed: flags.concealed,
            dug_in: flags.dug_in,
            revealed_by_proximity: flags.revealed_by_proximity,
            has_fired: flags.has_fired,
            stands: fp
                .stands
                .iter()
                .map(|s| (s.bounding_rect(), s.polygon()))
                .collect(),
            footprint: fp,
        }
    }
}

/// A piece's part of the index that only its own sight questions read (as observer or
/// target). It depends on the piece, the terrain and the parameters, as the rest of its part.
#[derive(Debug, Clone)]
struct Seen {
    centroid: Point,
    /// Hill level and massif under the centroid (0 / None on the table).
    level: u8,
    massif: Option<usize>,
    /// VIS-02 sample points on the unit's outline.
    samples: Vec<Point>,
    /// The sample points in the unit's own sight arc (VIS-03), in sample order: the points
    /// every query from this unit starts from.
    arc_points: Vec<Point>,
    /// Per sample point, the edges of the outline it lies on ([`prefilter::edges_holding`]):
    /// the edge that shows a target point faces the observer ([`SightIndex::trace`]).
    sample_edges: Vec<[Option<u8>; 2]>,
    /// The area features (terrain and hills) the outline touches, by index, sorted: "touches
    /// the unit" is asked of the same few features by every query (VIS-07, VIS-11, VIS-12).
    touching: Vec<usize>,
    /// A piece that may hide (dug in, or an unfired gun): what it may hide in or behind.
    hiding: Option<Hiding>,
    /// Area pieces the unit stands well inside (not at their edge), with each sample point's
    /// distance to the edge: VIS-12 bounds how deep a point can be seen or see out.
    deep: Vec<Deep>,
}

impl Seen {
    fn of(p: &PieceSight, features: &[FeatureSight], tree: &BoxIndex, contact: f64) -> Seen {
        let centroid = p.footprint.centroid();
        let (level, massif) = level_at(features, tree, centroid);
        let samples = p.footprint.outline_samples();
        let arc_points = kept(&samples, |q| p.arc.contains(q));
        let hiding = (p.dug_in || (p.gun && !p.has_fired)).then(|| Hiding {
            holding: holding_areas(features, tree, p, centroid, contact),
            lines: lines_in_contact(features, tree, p, contact),
        });
        let deep = deep_areas(features, tree, p, centroid, &samples, contact);
        let ring = &p.outline.exterior().0;
        let sample_edges = samples
            .iter()
            .map(|s| prefilter::edges_holding(ring, *s))
            .collect();
        Seen {
            centroid,
            level,
            massif,
            sample_edges,
            touching: touching_areas(features, tree, p),
            samples,
            arc_points,
            hiding,
            deep,
        }
    }

    /// Does area feature `fi` touch the unit's outline (precomputed, [`touching_areas`])?
    fn touches(&self, fi: usize) -> bool {
        self.touching.binary_search(&fi).is_ok()
    }
}

#[derive(Debug, Clone)]
struct Deep {
    feature: usize,
    high: bool,
    /// Per sample point (same order as `PieceSight::samples`).
    depth: Vec<f64>,
}

impl PieceSight {
    /// §1.5 edge-to-edge distance (as `geom::edge_distance`, on the stands made once).
    fn gap(&self, other: &PieceSight) -> f64 {
        // The nearest pair of rectangles first, then only pairs that could beat it. Any first
        // pair gives the same answer (the least distance over every pair that could be less
        // than it), so the squares of the gaps pick it, without a branch per pair.
        if self.stands.is_empty() || other.stands.is_empty() {
            return 0.0;
        }
        let (mut least, mut bi, mut bj) = (f64::INFINITY, 0, 0);
        for (i, (ra, _)) in self.stands.iter().enumerate() {
            for (j, (rb, _)) in other.stands.iter().enumerate() {
                let g = rect_gap_squared(ra, rb);
                let nearer = g < least;
                least = if nearer { g } else { least };
                bi = if nearer { i } else { bi };
                bj = if nearer { j } else { bj };
            }
        }
        // `geo`'s polygon distance, to the bit: worked out directly for stands whose boxes
        // are apart ([`prefilter::apart_ring_distance`]); `geo` decides stands that may meet,
        // unless two bounds under the distance show the pair cannot beat `best` (so the
        // answer is the same minimum over all pairs).
        let dist = |a: &Polygon<f64>, b: &Polygon<f64>, best: f64| -> f64 {
            match prefilter::apart_ring_distance(&a.exterior().0, &b.exterior().0) {
                Some(d) => d,
                None if axis_gap(a, b) <= best && convex_gap_bound(a, b) <= best => {
                    Euclidean.distance(a, b)
                }
                None => f64::INFINITY,
            }
        };
        let mut best = match (self.stands.get(bi), other.stands.get(bj)) {
            (Some((_, a)), Some((_, b))) => dist(a, b, f64::INFINITY),
            _ => f64::INFINITY,
        };
        // A second bound under a pair's distance: how far apart the two stands lie along the
        // line from this unit's box centre to the other's (a unit vector `u`: the distance is
        // at least the gap between their projections on it). Tilted stands have loose boxes,
        // and this bound is what rules most of their pairs out. A pair is passed over only
        // when the bound beats `best` by far more than its rounding, so no pair that could be
        // nearer is.
        let (from, to) = (rect_centre(&self.rect), rect_centre(&other.rect));
        let (dx, dy) = (to.x - from.x, to.y - from.y);
        let length = dx.hypot(dy);
        let u = Point::new(dx / length, dy / length);
        let apart_along = |a: &Polygon<f64>, b: &Polygon<f64>, best: f64| {
            let along = |c: &geo::Coord<f64>| c.x * u.x + c.y * u.y;
            let far_a = a
                .exterior()
                .0
                .iter()
                .map(along)
                .fold(f64::NEG_INFINITY, f64::max);
            let near_b = b
                .exterior()
                .0
                .iter()
                .map(along)
                .fold(f64::INFINITY, f64::min);
            near_b - far_a > best + 1e-9
        };
        for (i, (ra, pa)) in self.stands.iter().enumerate() {
            for (j, (rb, pb)) in other.stands.iter().enumerate() {
                if best <= 0.0 {
                    return 0.0;
                }
                if (i, j) != (bi, bj) && rect_gap(ra, rb) < best && !apart_along(pa, pb, best) {
                    best = best.min(dist(pa, pb, best));
                }
            }
        }
        if best.is_finite() {
            best
        } else {
            0.0
        }
    }

    /// Is a point within `cm` of a stand (inside one counts)? As "the distance from the point
    /// to the nearest stand is at most `cm`", asking `geo` only of the stands whose boxes are
    /// near enough (a box farther than `cm` by more than rounding holds no stand that near).
    fn within(&self, p: Point, cm: f64) -> bool {
        let gp = geo::Point::new(p.x, p.y);
        let here = Rect { min: p, max: p };
        self.stands.iter().any(|(r, poly)| {
            rect_gap(r, &here) <= cm + 1e-9 && {
                let d: f64 = Euclidean.distance(&gp, poly);
                d <= cm
            }
        })
    }

    /// Distance from a polyline (with its bounding rectangle) to the nearest stand.
    fn to_line(&self, ls: &LineString<f64>, rect: &Rect) -> f64 {
        let mut best = f64::INFINITY;
        for (r, poly) in &self.stands {
            if rect_gap(r, rect) < best {
                let d: f64 = Euclidean.distance(poly, ls);
                best = best.min(d);
            }
        }
        best
    }
}

/// Per-query facts about one hill massif.
#[derive(Debug, Clone, Copy)]
enum HillRule {
    /// Neither unit stands on it: its base contour blocks (VIS-14 (c)).
    Opaque { base: usize },
    /// Both on the same level (VIS-06).
    SameLevel { base: usize },
    /// One unit higher on it: the crest line decides (VIS-14).
    Crest {
        base: usize,
        crest: CrestLine,
        upper_is_observer: bool,
        lower_ref: Point,
    },
}

/// Everything a batch of line-of-sight queries needs, built once from the state: footprints,
/// sample points, terrain shapes and an R*-tree of the features (the pieces, in id order, are
/// few enough to scan).
#[derive(Debug, Clone)]
pub struct SightIndex {
    params: SightParams,
    /// Shared with the earlier index a [`SightCache`] refreshed this one from, where the piece
    /// is unchanged.
    pieces: Vec<Arc<PieceSight>>,
    /// Each piece's bounding rectangle, by slot, and the same in flat arrays: "which pieces
    /// are near" scans these ([`FlatBoxes`]).
    piece_rects: Vec<Rect>,
    piece_boxes: FlatBoxes,
    /// Each piece's id, by slot (the pieces are in id order): found by a binary search over
    /// these rather than over the pieces themselves, each behind its own pointer.
    piece_ids: Vec<PieceId>,
    /// Whether each piece blocks sight (VIS-07 (3)), by slot.
    piece_blocks: Vec<bool>,
    /// The terrain part depends only on the scenario, the engineering works and the defences
    /// removed ([`TerrainKey`]), so a refreshed index shares it.
    features: Arc<Vec<FeatureSight>>,
    feature_tree: Arc<BoxIndex>,
    massifs: Arc<Vec<Massif>>,
    terrain_key: TerrainKey,
    /// Where the pieces stand, for "which are near" questions; made on first use.
    places: std::sync::OnceLock<Places>,
}

/// The reference point of every piece by slot (`None` without a pose), read in one flat pass,
/// and the most stands any piece has.
#[derive(Debug, Clone)]
struct Places {
    points: Vec<Option<Point>>,
    most_stands: u8,
}

/// What the terrain part of a [`SightIndex`] is made from besides the scenario: the engineers'
/// works (ENG-03..ENG-06) and the field defences lost (DEF-06). Tasks taken and skirmisher
/// screens do not change what blocks sight.
#[derive(Debug, Clone, PartialEq)]
struct TerrainKey {
    works: Vec<super::engineering::Work>,
    lost_defenses: Vec<(usize, DefenseId)>,
}

impl TerrainKey {
    fn lost_defenses(state: &BattleState) -> impl Iterator<Item = (usize, DefenseId)> + '_ {
        state.ledger.sides.iter().enumerate().flat_map(|(side, s)| {
            s.losses.iter().filter_map(move |l| match l {
                super::victory::Loss::Defense { defense, .. } => Some((side, *defense)),
                super::victory::Loss::Piece { .. } => None,
            })
        })
    }

    fn of(state: &BattleState) -> TerrainKey {
        TerrainKey {
            works: state.engineering.works.clone(),
            lost_defenses: TerrainKey::lost_defenses(state).collect(),
        }
    }

    fn matches(&self, state: &BattleState) -> bool {
        self.works == state.engineering.works
            && self
                .lost_defenses
                .iter()
                .copied()
                .eq(TerrainKey::lost_defenses(state))
    }
}

fn line_string(points: &[Point]) -> LineString<f64> {
    LineString::from(points.iter().map(|p| coord(*p)).collect::<Vec<_>>())
}

fn contains_point(poly: &Polygon<f64>, p: Point) -> bool {
    poly.contains(&geo::Point::new(p.x, p.y))
}

/// VIS-16: may this piece be dug in? Only the defender's units, in a Trench (any unit) or a
/// Dug-Out (command or artillery units, DEF-03).
pub fn check_dug_in(ctx: &Ctx, piece: &PieceState) -> Result<(), RuleError> {
    if !piece.dug_in {
        return Ok(());
    }
    let side = piece.id.side();
    if ctx.scenario.defender != Some(side) {
        return Err(RuleError::new(
            "VIS-16",
            format!(
                "{} may not be dug in: only the defender's troops start the game dug in",
                piece.name
            ),
        ));
    }
    let PieceId::Unit { unit, .. } = piece.id else {
        return Ok(());
    };
    let Some(def) = ctx
        .scenario
        .sides
        .get(side)
        .and_then(|s| s.field_defenses.iter().find(|d| d.occupant == Some(unit)))
    else {
        // Granted by the scenario without a bought work.
        return Ok(());
    };
    let artillery = piece.arm == Some(Arm::Artillery);
    match def.kind {
        DefenseKind::Trench => Ok(()),
        DefenseKind::DugOut if artillery => Ok(()),
        DefenseKind::DugOut => Err(RuleError::new(
            "VIS-16",
            format!(
                "{}: a Dug-Out shelters only a command or artillery unit",
                piece.name
            ),
        )),
        other => Err(RuleError::new(
            "VIS-16",
            format!(
                "{}: a {} does not dig a unit in (Trench or Dug-Out)",
                piece.name,
                other.label()
            ),
        )),
    }
}

impl SightIndex {
    /// Builds the index for the current state with the scenario's weather.
    pub fn new(ctx: &Ctx) -> SightIndex {
        SightIndex::with_params(ctx, SightParams::of(ctx))
    }

    pub fn with_params(ctx: &Ctx, params: SightParams) -> SightIndex {
        let (features, feature_tree, massifs) = SightIndex::terrain(ctx);
        let pieces = ctx
            .state
            .pieces
            .values()
            .filter_map(|p| SightIndex::piece(ctx, p).map(Arc::new))
            .collect();
        SightIndex::assemble(
            params,
            pieces,
            Arc::new(features),
            Arc::new(feature_tree),
            Arc::new(massifs),
            TerrainKey::of(ctx.state),
        )
    }

    /// The terrain part: features that matter to sight, their R*-tree and the hill massifs.
    fn terrain(ctx: &Ctx) -> (Vec<FeatureSight>, BoxIndex, Vec<Massif>) {
        let mut features = Vec::new();
        for f in &ctx.scenario.terrain {
            let class = sight_terrain(f.kind);
            let blocker = Blocker::Feature {
                id: f.id,
                name: f.name.clone(),
            };
            let shape = match (&f.geometry, class) {
                (_, SightTerrain::Clear) => continue,
                (Geometry::Polygon(ring), SightTerrain::Linear) => Shape::Line {
                    line: line_string(&closed(ring)),
                    half_width: 0.0,
                },
                (Geometry::Polyline { points, width_cm }, SightTerrain::Linear) => Shape::Line {
                    line: line_string(points),
                    half_width: width_cm.max(0.0) / 2.0,
                },
                (Geometry::Polygon(ring), _) if ring.len() >= 3 => {
                    Shape::Area(ring_polygon(ring).orient(Direction::Default))
                }
                // An area drawn as a line or with too few points has no inside.
                _ => continue,
            };
            let convex = matches!(&shape, Shape::Area(p) if p.exterior().is_convex());
            let turn = match &shape {
                Shape::Area(p) => convex_turn(&p.exterior().0),
                Shape::Line { .. } => 0,
            };
            features.push(FeatureSight {
                class,
                points: f.geometry.points().to_vec(),
                rect: rect_of(f.geometry.points().iter().copied()),
                convex,
                turn,
                shape,
                blocker,
                massif: None,
            });
        }
        for (side, s) in ctx.scenario.sides.iter().enumerate() {
            for d in &s.field_defenses {
                if !defense_blocks_sight(d.kind) || d.at.len() < 2 {
                    continue;
                }
                // engineering (ENG-05, DEF-06): demolished sections block nothing.
                for run in super::engineering::defence_lines(ctx.state, side, d) {
                    if run.len() < 2 {
                        continue;
                    }
                    features.push(FeatureSight {
                        class: SightTerrain::Linear,
                        rect: rect_of(run.iter().copied()),
                        shape: Shape::Line {
                            line: line_string(&run),
                            half_width: 0.0,
                        },
                        points: run,
                        blocker: Blocker::Defense {
                            id: d.id,
                            side,
                            name: d.kind.label().to_string(),
                        },
                        massif: None,
                        convex: false,
                        turn: 0,
                    });
                }
            }
        }
        let massifs = group_massifs(&mut features);
        let feature_tree = BoxIndex::new(features.iter().enumerate().map(|(i, f)| (f.rect, i)));
        (features, feature_tree, massifs)
    }

    /// One piece's part (`None` off the table): it depends only on the piece's own state, the
    /// terrain part and the parameters.
    fn piece(ctx: &Ctx, p: &PieceState) -> Option<PieceSight> {
        let fp = footprint_of(ctx, p)?;
        let kind = stand_kind(ctx, p);
        let gun = kind == StandKind::Artillery;
        let unlimbered_gun = gun && !p.limbered;
        let command = kind == StandKind::Command;
        let lawful_dug_in = p.dug_in && check_dug_in(ctx, p).is_ok();
        let revealed = p.revealed || p.has_fired;
        let proximity_kind = match kind {
            StandKind::Infantry | StandKind::Cavalry | StandKind::Command => true,
            StandKind::Artillery => !p.limbered,
            StandKind::Transport => false,
        };
        Some(PieceSight::new(
            p.clone(),
            fp,
            Flags {
                blocks: !(command || unlimbered_gun || is_skirmisher(ctx, p)),
                gun,
                concealed: unlimbered_gun || (lawful_dug_in && !revealed),
                dug_in: lawful_dug_in && !revealed,
                revealed_by_proximity: proximity_kind,
                has_fired: p.has_fired,
            },
        ))
    }

    /// The piece's [`Seen`] part, made on first use from this index's terrain and parameters
    /// (a piece is only ever part of indexes that share them, [`SightIndex::refreshed`]).
    fn seen<'a>(&self, p: &'a PieceSight) -> &'a Seen {
        p.seen.get_or_init(|| {
            Seen::of(
                p,
                &self.features,
                &self.feature_tree,
                self.params.contact_cm,
            )
        })
    }

    fn assemble(
        params: SightParams,
        pieces: Vec<Arc<PieceSight>>,
        features: Arc<Vec<FeatureSight>>,
        feature_tree: Arc<BoxIndex>,
        massifs: Arc<Vec<Massif>>,
        terrain_key: TerrainKey,
    ) -> SightIndex {
        let piece_rects: Vec<Rect> = pieces.iter().map(|p| p.rect).collect();
        SightIndex {
            params,
            piece_boxes: FlatBoxes::new(&piece_rects),
            piece_rects,
            piece_ids: pieces.iter().map(|p| p.id).collect(),
            piece_blocks: pieces.iter().map(|p| p.blocks).collect(),
            pieces,
            features,
            feature_tree,
            massifs,
            terrain_key,
            places: std::sync::OnceLock::new(),
        }
    }

    /// The index for `ctx`'s state, made from this one (an index of an earlier state of the
    /// same battle): the terrain part is shared when the works and lost defences are the same,
    /// and so is every piece whose state is unchanged. The answers are exactly those of
    /// [`SightIndex::with_params`] on the new state (pieces are kept in id order, as
    /// there). `None` when nothing changed.
    fn refreshed(&self, ctx: &Ctx, params: SightParams) -> Option<SightIndex> {
        if params != self.params || !self.terrain_key.matches(ctx.state) {
            return Some(SightIndex::with_params(ctx, params));
        }
        let mut changed = false;
        let mut old = self.pieces.iter().peekable();
        let mut pieces = Vec::with_capacity(self.pieces.len());
        for p in ctx.state.pieces.values() {
            // Both lists are in id order: skip the old pieces that are gone.
            while old.peek().is_some_and(|o| o.id < p.id) {
                old.next();
                changed = true;
            }
            match old.peek() {
                Some(o) if o.id == p.id => {
                    if same_for_sight(&o.source, p) {
                        pieces.push(Arc::clone(o));
                    } else {
                        changed = true;
                        if let Some(s) = SightIndex::piece(ctx, p) {
                            pieces.push(Arc::new(s));
                        }
                    }
                    old.next();
                }
                _ => {
                    // Not in the old index: off the table then (or new). Still off?
                    if let Some(s) = SightIndex::piece(ctx, p) {
                        changed = true;
                        pieces.push(Arc::new(s));
                    }
                }
            }
        }
        if old.next().is_some() {
            changed = true;
        }
        if !changed {
            return None;
        }
        Some(SightIndex::assemble(
            params,
            pieces,
            Arc::clone(&self.features),
            Arc::clone(&self.feature_tree),
            Arc::clone(&self.massifs),
            self.terrain_key.clone(),
        ))
    }

    /// [`SightIndex::refreshed`] when only the pieces `ids` may differ from this index's (in
    /// sight's eyes: [`same_for_sight`]): only they are compared and rebuilt. The same index.
    fn refreshed_pieces(
        &self,
        ctx: &Ctx,
        params: SightParams,
        ids: &[PieceId],
    ) -> Option<SightIndex> {
        if params != self.params || !self.terrain_key.matches(ctx.state) {
            return Some(SightIndex::with_params(ctx, params));
        }
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let mut pieces = self.pieces.clone();
        let mut changed = false;
        for id in ids {
            let now = ctx.state.piece(id);
            match (pieces.binary_search_by_key(&id, |p| p.id), now) {
                (Ok(k), Some(p)) => {
                    if pieces.get(k).is_some_and(|o| same_for_sight(&o.source, p)) {
                        continue;
                    }
                    changed = true;
                    match SightIndex::piece(ctx, p) {
                        Some(s) => {
                            if let Some(slot) = pieces.get_mut(k) {
                                *slot = Arc::new(s);
                            }
                        }
                        None => {
                            pieces.remove(k);
                        }
                    }
                }
                (Ok(k), None) => {
                    changed = true;
                    pieces.remove(k);
                }
                (Err(k), Some(p)) => {
                    if let Some(s) = SightIndex::piece(ctx, p) {
                        changed = true;
                        pieces.insert(k, Arc::new(s));
                    }
                }
                (Err(_), None) => {}
            }
        }
        changed.then(|| {
            SightIndex::assemble(
                params,
                pieces,
                Arc::clone(&self.features),
                Arc::clone(&self.feature_tree),
                Arc::clone(&self.massifs),
                self.terrain_key.clone(),
            )
        })
    }

    /// Where a piece's part is (the parts are in id order).
    fn slot(&self, id: PieceId) -> Option<usize> {
        self.piece_ids.binary_search(&id).ok()
    }

    fn get(&self, id: PieceId) -> Option<&PieceSight> {
        self.slot(id).and_then(|i| self.pieces.get(i)).map(|p| &**p)
    }

    /// The footprint ([`footprint_of`]) and its box as this index laid them out for piece `p`,
    /// when `p` is the same in everything the index reads ([`same_for_sight`]): a piece's part
    /// depends only on its own state ([`SightIndex::piece`]), so this is the footprint
    /// `footprint_of` gives for `p` in any state of the same battle. `None` otherwise.
    pub(crate) fn footprint_if_same(&self, p: &PieceState) -> Option<(&Footprint, Rect)> {
        self.get(p.id)
            .filter(|ps| same_for_sight(&ps.source, p))
            .map(|ps| (&ps.footprint, ps.rect))
    }

    /// The parts whose boxes come within `d` (in each axis) of `r`, touching included, in id
    /// order: the boxes of a few hundred pieces are scanned faster than an R-tree is rebuilt
    /// after every move, and every caller's answer is independent of the order.
    fn pieces_near<'a>(&'a self, r: &Rect, d: f64) -> impl Iterator<Item = usize> + 'a {
        self.piece_boxes.meeting(&r.grown(d))
    }

    /// Each piece's base hull and box, with the state they were laid out from, for the pieces
    /// whose reference point may lie within `reach` of `area` (a superset: the caller applies its own exact test), still in id order. `reach`
    /// is given the most stands any piece has and answers the farthest a piece of that many
    /// stands could matter.
    pub(crate) fn hulls_near(
        &self,
        area: &Rect,
        reach: impl Fn(u8) -> f64,
    ) -> impl Iterator<Item = (&PieceState, &Polygon<f64>, Rect)> + '_ {
        let places = self.places.get_or_init(|| Places {
            points: self
                .pieces
                .iter()
                .map(|p| p.source.pose.map(|q| q.at))
                .collect(),
            most_stands: self
                .pieces
                .iter()
                .map(|p| p.source.stands)
                .max()
                .unwrap_or(0),
        });
        // A hair more than the reach, so that no rounding of the caller's test falls outside.
        let grow = reach(places.most_stands) + 1e-6;
        let (lo, hi) = (
            Point::new(area.min.x - grow, area.min.y - grow),
            Point::new(area.max.x + grow, area.max.y + grow),
        );
        places
            .points
            .iter()
            .zip(&self.pieces)
            .filter(move |(at, _)| {
                // `&`, not `&&`: no branch per comparison (see `rects_overlap`).
                at.is_some_and(|q| (q.x >= lo.x) & (q.x <= hi.x) & (q.y >= lo.y) & (q.y <= hi.y))
            })
            .map(|(_, p)| (&p.source, &p.hull, p.rect))
    }

    /// A piece's base hull and bounding box as movement sees them (`None` off the table).
    pub(crate) fn base_hull(&self, id: PieceId) -> Option<(&Polygon<f64>, Rect)> {
        let p = self.get(id)?;
        Some((&p.hull, p.rect))
    }

    pub fn params(&self) -> SightParams {
        self.params
    }

    /// The footprint the index holds for a piece (`None` off the table).
    pub fn footprint(&self, id: PieceId) -> Option<&Footprint> {
        self.get(id).map(|p| &p.footprint)
    }

    /// Is an enemy of `of` (a piece of another side) within `cm` of it?
    fn enemy_within(&self, of: &PieceSight, cm: f64) -> bool {
        self.pieces_near(&of.rect, cm).any(|j| {
            self.pieces.get(j).is_some_and(|q| {
                q.id.side() != of.id.side() && rect_gap(&q.rect, &of.rect) <= cm && q.gap(of) <= cm
            })
        })
    }

    /// Linear features (terrain or works) the piece is in base contact with, whose line crosses
    /// the segment between the two centroids (VIS-08, VIS-17 "behind").
    fn behind_linear(&self, target: &PieceSight, from: Point) -> Option<usize> {
        let seen = self.seen(target);
        let seg = Segment::new(from, seen.centroid);
        let near = match &seen.hiding {
            Some(h) => Cow::Borrowed(&h.lines),
            None => Cow::Owned(lines_in_contact(
                &self.features,
                &self.feature_tree,
                target,
                self.params.contact_cm,
            )),
        };
        near.iter().copied().find(|&fi| {
            matches!(self.features.get(fi).map(|f| &f.shape),
                Some(Shape::Line { line, .. }) if seg.line().intersects(line))
        })
    }

    /// Area features whose inside holds the piece's centroid, with whether the piece touches
    /// the boundary.
    fn areas_holding<'a>(&self, p: &'a PieceSight) -> Cow<'a, [(usize, bool)]> {
        let seen = self.seen(p);
        match &seen.hiding {
            Some(h) => Cow::Borrowed(&h.holding),
            None => Cow::Owned(holding_areas(
                &self.features,
                &self.feature_tree,
                p,
                seen.centroid,
                self.params.contact_cm,
            )),
        }
    }

    /// §1.5: the edge-to-edge distance between two pieces on the table, the `distance_cm`
    /// that [`Self::sight`] reports whenever it answers "visible" (`None`: one is not on the
    /// table). Cheaper than a sight question, so a caller that wants only what is visible
    /// within some distance can leave out what is farther before tracing it.
    pub fn edge_gap(&self, a: PieceId, b: PieceId) -> Option<f64> {
        Some(self.get(a)?.gap(self.get(b)?))
    }

    /// VIS-01..VIS-17: can `observer` see `target`?
    pub fn sight(&self, observer: PieceId, target: PieceId) -> Sight {
        let (Some(oi), Some(ti)) = (self.slot(observer), self.slot(target)) else {
            let missing = if self.slot(observer).is_some() {
                target
            } else {
                observer
            };
            return Sight::hidden(
                "VIS-01",
                format!("{missing} is not on the table"),
                None,
                f64::INFINITY,
            );
        };
        let (Some(o), Some(t)) = (self.pieces.get(oi), self.pieces.get(ti)) else {
            return Sight::hidden("VIS-01", "no such piece".into(), None, f64::INFINITY);
        };
        let limit = self.params.limit_cm;
        // VIS-04.
        if rect_gap(&o.rect, &t.rect) > limit {
            return Sight::hidden(
                "VIS-04",
                format!("{} is more than {limit} cm from {}", t.name, o.name),
                None,
                rect_gap(&o.rect, &t.rect),
            );
        }
        let distance = o.gap(t);
        if oi == ti {
            return Sight {
                visible: true,
                rule: "VIS-02",
                detail: sentence(&[&o.name, " sees itself"]),
                by: None,
                segment: None,
                distance_cm: 0.0,
                exceptions: Vec::new(),
            };
        }
        if distance > limit {
            return Sight::hidden(
                "VIS-04",
                format!(
                    "{} is {distance:.1} cm from {}, beyond the {limit} cm visibility limit",
                    t.name, o.name
                ),
                None,
                distance,
            );
        }
        // The parts of the two pieces only their own questions read, made on first use.
        let (os, ts) = (self.seen(o), self.seen(t));
        // VIS-03.
        let targets = kept(&ts.samples, |p| o.arc.contains(p));
        if targets.is_empty() {
            return Sight::hidden(
                "VIS-03",
                sentence(&[&t.name, " is outside ", &o.name, "'s sight arc"]),
                None,
                distance,
            );
        }
        let enemies = o.id.side() != t.id.side();
        // VIS-17: dug-in troops at a wood's inside edge or behind a wall stay out of sight.
        if enemies && t.dug_in {
            let proximity = t.revealed_by_proximity
                && self.enemy_within(t, DUG_IN_REVEAL_CM * self.params.measure_scale);
            if !proximity {
                if let Some(fi) = self.behind_linear(t, os.centroid) {
                    return Sight::hidden(
                        "VIS-17",
                        sentence(&[&t.name, " is dug in behind ", &self.feature_name(fi)]),
                        self.features.get(fi).map(|f| f.blocker.clone()),
                        distance,
                    );
                }
                if let Some(&(fi, _)) = self.areas_holding(t).iter().find(|(_, edge)| *edge) {
                    return Sight::hidden(
                        "VIS-17",
                        format!(
                            "{} is dug in at the edge of {}",
                            t.name,
                            self.feature_name(fi)
                        ),
                        self.features.get(fi).map(|f| f.blocker.clone()),
                        distance,
                    );
                }
            }
        }
        // VIS-08: an unfired gun in area terrain or behind a wall cannot be picked out.
        if enemies && t.gun && !t.has_fired {
            let hiding = self
                .areas_holding(t)
                .first()
                .map(|(fi, _)| *fi)
                .or_else(|| self.behind_linear(t, os.centroid));
            if let Some(fi) = hiding {
                if !self.enemy_within(t, HIDDEN_GUN_REVEAL_CM * self.params.measure_scale) {
                    return Sight::hidden(
                        "VIS-08",
                        format!(
                            "{} has not fired and is hidden by {}; no enemy is within {} cm",
                            t.name,
                            self.feature_name(fi),
                            HIDDEN_GUN_REVEAL_CM * self.params.measure_scale
                        ),
                        self.features.get(fi).map(|f| f.blocker.clone()),
                        distance,
                    );
                }
            }
        }
        // VIS-02: the segment lies in the sight arc, a half-plane, so both its ends do.
        let mut sources: Cow<[Point]> = Cow::Borrowed(&os.arc_points);
        // VIS-12: points deeper in a wood than it can be seen into or out of see nothing.
        let looks_down = os.level >= 1 && os.level > ts.level;
        let scale = self.params.measure_scale;
        let mut targets = targets;
        for d in &ts.deep {
            if (!d.high && looks_down) || self.area_touches(d.feature, o) {
                continue;
            }
            let limit = if t.concealed {
                CONCEALED_SEEN_CM
            } else if d.high {
                HIGH_AREA_SEEN_CM
            } else {
                LOW_AREA_SEEN_CM
            } * scale;
            targets.retain(|q| deep_at(ts, d, *q) <= limit + 1e-9);
            if targets.is_empty() {
                return Sight::hidden(
                    "VIS-12",
                    format!(
                        "{} is more than {limit} cm inside {}, where it is not seen",
                        t.name,
                        self.feature_name(d.feature)
                    ),
                    self.features.get(d.feature).map(|f| f.blocker.clone()),
                    distance,
                );
            }
        }
        for d in &os.deep {
            if (!d.high && looks_down) || self.area_touches(d.feature, t) {
                continue;
            }
            let limit = if d.high {
                HIGH_AREA_SEEN_CM
            } else {
                LOW_AREA_SEEN_CM
            } * scale;
            if sources.iter().any(|p| deep_at(os, d, *p) > limit + 1e-9) {
                sources
                    .to_mut()
                    .retain(|p| deep_at(os, d, *p) <= limit + 1e-9);
            }
            if sources.is_empty() {
                return Sight::hidden(
                    "VIS-12",
                    format!(
                        "{} is more than {limit} cm inside {} and cannot see out",
                        o.name,
                        self.feature_name(d.feature)
                    ),
                    self.features.get(d.feature).map(|f| f.blocker.clone()),
                    distance,
                );
            }
        }
        self.trace(o, t, &sources, &targets, distance)
    }

    /// Does an area piece touch the unit's outline?
    fn area_touches(&self, fi: usize, p: &PieceSight) -> bool {
        self.seen(p).touches(fi)
    }

    fn feature_name(&self, fi: usize) -> String {
        self.features
            .get(fi)
            .map_or_else(String::new, |f| f.blocker.name().to_string())
    }

    /// VIS-02: try the segments until one is clear.
    ///
    /// Only what meets the corridor (the convex hull of both units' sample points) can be in
    /// the way of any segment. Before tracing segment by segment, look for a proof that every
    /// segment is blocked: an opaque blocker (a unit, high area terrain or a hill neither unit
    /// stands on) that touches neither unit and cuts the corridor from one of its two outer
    /// tangents ("bridges") to the other separates the two units. Otherwise trace the
    /// segments, trying first whatever blocked the previous one.
    fn trace(
        &self,
        o: &PieceSight,
        t: &PieceSight,
        sources: &[Point],
        targets: &[Point],
        distance: f64,
    ) -> Sight {
        let limit = self.params.limit_cm;
        let (os, ts) = (self.seen(o), self.seen(t));
        let env = union_rect(&o.rect, &t.rect);
        // Every point between the two units lies within `reach` of the line joining their
        // rectangles' centres, so nothing farther from it can be in the way.
        let spine = Line::new(coord(rect_centre(&o.rect)), coord(rect_centre(&t.rect)));
        let reach = half_diagonal(&o.rect).max(half_diagonal(&t.rect));
        let near_spine = |r: &Rect| -> bool {
            let c = rect_centre(r);
            let within = reach + half_diagonal(r) + 1e-6;
            // A plain estimate settles all but the borderline cases, which `geo` decides.
            let rough = point_segment_distance(c, &spine);
            if rough < within - 1e-7 {
                return true;
            }
            if rough > within + 1e-7 {
                return false;
            }
            let d: f64 = Euclidean.distance(&geo::Point::new(c.x, c.y), &spine);
            d <= within
        };
        let mut units: Vec<&PieceSight> = Vec::with_capacity(16);
        // What decides is read from the flat lists by slot; only the units kept are looked at.
        units.extend(
            self.pieces_near(&env, 0.0)
                .filter(|&j| {
                    self.piece_blocks.get(j) == Some(&true)
                        && self
                            .piece_ids
                            .get(j)
                            .is_some_and(|&id| id != o.id && id != t.id)
                        && self.piece_rects.get(j).is_some_and(&near_spine)
                })
                .filter_map(|j| self.pieces.get(j).map(|q| &**q)),
        );
        units.sort_by_key(|q| q.id);
        // Room for the usual few of each, so that the pushes below do not grow them.
        let mut linears: Vec<LinearCheck> = Vec::with_capacity(8);
        let mut areas: Vec<AreaRef> = Vec::with_capacity(8);
        let mut massif_ids: Vec<usize> = Vec::with_capacity(4);
        for (fi, rect) in self.feature_tree.query_in_order(&env) {
            if !near_spine(&rect) {
                continue;
            }
            let Some(f) = self.features.get(fi) else {
                continue;
            };
            match f.class {
                SightTerrain::Linear => linears.push(LinearCheck {
                    feature: fi,
                    exempt: None,
                }),
                SightTerrain::LowArea | SightTerrain::HighArea => {
                    if !matches!(f.shape, Shape::Area(_)) {
                        continue;
                    }
                    let opaque =
                        f.class == SightTerrain::HighArea && !os.touches(fi) && !ts.touches(fi);
                    areas.push(AreaRef {
                        feature: fi,
                        opaque,
                    });
                }
                SightTerrain::Hill { .. } => {
                    if let Some(m) = f.massif {
                        if !massif_ids.contains(&m) {
                            massif_ids.push(m);
                        }
                    }
                }
                SightTerrain::Clear => {}
            }
        }
        let hills: Vec<HillRule> = massif_ids
            .iter()
            .filter_map(|&m| self.hill_rule(m, o, t))
            .collect();
        // VIS-14: the points of the unit up the hill that lie behind its crest see and are
        // seen by nothing below.
        let mut sources: Cow<[Point]> = Cow::Borrowed(sources);
        let mut targets: Cow<[Point]> = Cow::Borrowed(targets);
        for h in &hills {
            let HillRule::Crest {
                base,
                crest,
                upper_is_observer,
                lower_ref,
            } = *h
            else {
                continue;
            };
            let Some(f) = self.features.get(base) else {
                continue;
            };
            let Shape::Area(poly) = &f.shape else {
                continue;
            };
            let points = if upper_is_observer {
                &mut sources
            } else {
                &mut targets
            };
            points.to_mut().retain(|p| {
                crest.on_or_towards(*p, lower_ref) || !poly.intersects(&geo::Point::new(p.x, p.y))
            });
            if points.is_empty() {
                let upper = if upper_is_observer { o } else { t };
                return Sight::hidden(
                    "VIS-14",
                    sentence(&[&upper.name, " is behind the crest of ", f.blocker.name()]),
                    Some(f.blocker.clone()),
                    distance,
                );
            }
        }
        let (sources, targets) = (&sources[..], &targets[..]);
        let scene = Scene {
            o,
            t,
            units: &units,
            hills: &hills,
            areas: &areas,
            looks_down: os.level >= 1 && os.level > ts.level,
            explain: false,
        };
        let explained = Scene {
            explain: true,
            ..scene
        };
        // The corridor proof (see above): the first segment of all gives the reason. Without
        // an opaque blocker in the scene there is no proof to look for, nor hull to build.
        let opaque = !units.is_empty()
            || areas.iter().any(|a| a.opaque)
            || hills.iter().any(|h| matches!(h, HillRule::Opaque { .. }));
        if opaque {
            // The hull of the two sets is the hull of their hulls' corners: made once per unit
            // for the usual sets (all of the target's points, the observer's in its arc).
            // Each set also sorted for the hull's monotone chain, the kept ones once.
            let (from, from_sorted) = Corners::for_set(sources, &os.arc_points, &o.arc_hull);
            let (to, to_sorted) = Corners::for_set(targets, &ts.samples, &t.samples_hull);
            let mut all = Vec::with_capacity(from.len() + to.len());
            all.extend_from_slice(from);
            all.extend_from_slice(to);
            let corridor = match (from_sorted, to_sorted) {
                (Some(a), Some(b)) => merged_hull(&all, &a, &b),
                _ => point_hull(&all),
            };
            if self.separated(&scene, sources, targets, &corridor) {
                if let Some(first) = pairs(sources, targets, limit).next() {
                    let probe = Probe::new(first);
                    if let Err(block) = self.test_segment(&explained, &probe, &mut linears) {
                        return Sight::blocked(block, &first, distance);
                    }
                }
            }
        }
        // Sampling (VIS-02): target points behind the target's own bases, as seen from the
        // observer, add nothing a point on its near side does not.
        let from = Point::new(
            sources.iter().map(|p| p.x).sum::<f64>() / sources.len().max(1) as f64,
            sources.iter().map(|p| p.y).sum::<f64>() / sources.len().max(1) as f64,
        );
        // A point on the side facing the observer is clear of the outline as soon as the edge
        // it lies on has the whole segment outside it; the exact test decides the rest, and
        // the order of the tests changes no answer. `targets` keeps the samples' order, so
        // each point's place among them is found walking forward.
        let ring = &t.outline.exterior().0;
        let mut at = 0;
        let mut near = Vec::with_capacity(targets.len());
        for &q in targets {
            while ts.samples.get(at).is_some_and(|s| *s != q) {
                at += 1;
            }
            let probe = SegmentProbe::new(Segment::new(from, q).trimmed(TRIM_CM).line());
            let own_edge = ts.sample_edges.get(at).is_some_and(|edges| {
                edges.iter().flatten().any(|&e| {
                    let e = usize::from(e);
                    match (ring.get(e), ring.get(e + 1)) {
                        (Some(p), Some(r)) => probe.beyond_edge(*p, *r, t.outline_turn),
                        _ => false,
                    }
                })
            });
            if own_edge || !probe.meets_convex(&t.outline, &t.rect, t.outline_turn) {
                near.push(q);
            }
        }
        let near: &[Point] = if near.is_empty() { targets } else { &near };
        self.trace_segments(&scene, &explained, sources, near, distance, &mut linears)
    }

    /// VIS-02: the segments from `sources` to `targets` in order, until one is clear; when none
    /// is, the reason the first is blocked. Whatever blocked the previous segment is tried
    /// first on the next (it usually blocks that one too).
    fn trace_segments(
        &self,
        scene: &Scene,
        explained: &Scene,
        sources: &[Point],
        targets: &[Point],
        distance: f64,
        linears: &mut [LinearCheck],
    ) -> Sight {
        let (o, t) = (scene.o, scene.t);
        let limit = self.params.limit_cm;
        let mut first: Option<Sight> = None;
        let mut hint: Option<Hint> = None;
        let mut tried = false;
        for &a in sources {
            // The targets in the shadow of a blocker that blocked a segment from `a` add
            // nothing ([`Shadows`]).
            let mut shadows = Shadows::default();
            for &b in targets {
                let seg = Segment::new(a, b);
                if seg.length() > limit {
                    continue;
                }
                tried = true;
                if shadows.hide(a, b) {
                    continue;
                }
                let probe = Probe::new(seg);
                if let Some(h) = hint {
                    if self.still_blocks(scene, h, &probe, linears) {
                        shadows.add(h, || self.shadow(scene, h, linears, (a, b)));
                        continue;
                    }
                }
                let sc = if first.is_none() { explained } else { scene };
                match self.test_segment(sc, &probe, linears) {
                    Ok(exceptions) => {
                        return Sight {
                            visible: true,
                            rule: "VIS-02",
                            detail: sentence(&[&o.name, " sees ", &t.name]),
                            by: None,
                            segment: Some((seg.a, seg.b)),
                            distance_cm: distance,
                            exceptions,
                        };
                    }
                    Err(block) => {
                        hint = block.hint;
                        if let Some(h) = hint {
                            shadows.add(h, || self.shadow(scene, h, linears, (a, b)));
                        }
                        if first.is_none() {
                            first = Some(Sight::blocked(block, &seg, distance));
                        }
                    }
                }
            }
        }
        match first {
            Some(s) => s,
            None if !tried => Sight::hidden(
                "VIS-04",
                format!(
                    "no part of {} within {limit} cm of {} is in its sight arc",
                    t.name, o.name
                ),
                None,
                distance,
            ),
            None => Sight::hidden(
                "VIS-02",
                sentence(&[&o.name, " cannot see ", &t.name]),
                None,
                distance,
            ),
        }
    }

    /// Does one opaque blocker cut the corridor between the two units (see [`Self::trace`])?
    fn separated(
        &self,
        scene: &Scene,
        sources: &[Point],
        targets: &[Point],
        corridor: &Polygon<f64>,
    ) -> bool {
        let Some((left, right)) = bridges(corridor, sources, targets) else {
            return false;
        };
        let (left_p, right_p) = (SegmentProbe::new(left), SegmentProbe::new(right));
        // `touches`: does the blocker touch either unit?
        let cuts = |poly: &Polygon<f64>,
                    rect: &Rect,
                    convex: bool,
                    turn: i8,
                    touches: &dyn Fn() -> bool| {
            if !left_p.meets_convex(poly, rect, turn)
                || !right_p.meets_convex(poly, rect, turn)
                || touches()
            {
                return false;
            }
            // A wood that is not convex: walk its boundary across the corridor
            // ([`prefilter::crosses_between`]), and ask the polygon overlay only when that
            // walk cannot tell.
            let walked = || {
                poly.interiors().is_empty().then(|| {
                    prefilter::crosses_between(
                        &corridor.exterior().0,
                        left,
                        right,
                        &poly.exterior().0,
                    )
                })?
            };
            // The overlay rounds its pieces to a grid, so a piece along a bridge may land a
            // hair inside it: it touches the bridge within 1e-5 cm.
            let touches = |c: &Polygon<f64>, l: &Line<f64>| -> bool {
                let d: f64 = Euclidean.distance(c, l);
                d < 1e-5
            };
            convex
                || walked().unwrap_or_else(|| {
                    corridor
                        .intersection(poly)
                        .0
                        .iter()
                        .any(|c| touches(c, &left) && touches(c, &right))
                })
        };
        let unit_touches = |q: &PieceSight, p: &PieceSight| {
            rects_overlap(&q.rect, &p.rect) && q.outline.intersects(&p.outline)
        };
        if scene.units.iter().any(|q| {
            cuts(&q.outline, &q.rect, true, q.outline_turn, &|| {
                unit_touches(q, scene.o) || unit_touches(q, scene.t)
            })
        }) {
            return true;
        }
        let high = scene.areas.iter().filter(|a| a.opaque).map(|a| a.feature);
        let opaque_hills = scene.hills.iter().filter_map(|h| match *h {
            HillRule::Opaque { base } => Some(base),
            _ => None,
        });
        high.chain(opaque_hills).any(|fi| {
            self.features.get(fi).is_some_and(|f| match &f.shape {
                Shape::Area(poly) => cuts(poly, &f.rect, f.convex, f.turn, &|| {
                    self.seen(scene.o).touches(fi) || self.seen(scene.t).touches(fi)
                }),
                Shape::Line { .. } => false,
            })
        })
    }

    fn hill_rule(&self, m: usize, o: &PieceSight, t: &PieceSight) -> Option<HillRule> {
        let massif = self.massifs.get(m)?;
        let base = massif.base;
        let (os, ts) = (self.seen(o), self.seen(t));
        let o_on = os.massif == Some(m);
        let t_on = ts.massif == Some(m);
        if !o_on && !t_on {
            return Some(HillRule::Opaque { base });
        }
        if o_on && t_on && os.level == ts.level {
            return Some(HillRule::SameLevel { base });
        }
        // VIS-14 (b): on the same hill the lower is "on lower ground"; otherwise the one off it.
        let upper_is_observer = if o_on && t_on {
            os.level > ts.level
        } else {
            o_on
        };
        let (upper, lower, lower_seen) = if upper_is_observer {
            (os, t, ts)
        } else {
            (ts, o, os)
        };
        let top = self.top_contour(massif, upper.centroid)?;
        let crest = crest_line(top, lower.footprint.facing_deg)?;
        Some(HillRule::Crest {
            base,
            crest,
            upper_is_observer,
            lower_ref: lower_seen.centroid,
        })
    }

    /// VIS-14 ruling (a): the highest contour of the massif (nearest `near` among equals).
    fn top_contour(&self, massif: &Massif, near: Point) -> Option<&[Point]> {
        let here = Rect {
            min: near,
            max: near,
        };
        let mut best: Option<(u8, f64, &[Point])> = None;
        for &ci in &massif.contours {
            let Some(f) = self.features.get(ci) else {
                continue;
            };
            let SightTerrain::Hill { level } = f.class else {
                continue;
            };
            let gap = rect_gap(&f.rect, &here);
            let better = match best {
                None => true,
                Some((l, g, _)) => level > l || (level == l && gap < g),
            };
            if better {
                best = Some((level, gap, &f.points));
            }
        }
        best.map(|(_, _, pts)| pts)
    }

    /// Does what blocked the previous segment block this one too?
    fn still_blocks(
        &self,
        scene: &Scene,
        hint: Hint,
        seg: &Probe,
        linears: &mut [LinearCheck],
    ) -> bool {
        match hint {
            Hint::Unit(i) => scene.units.get(i).is_some_and(|q| self.unit_blocks(q, seg)),
            Hint::Linear(i) => linears
                .get_mut(i)
                .is_some_and(|lc| self.check_linear(scene, lc, seg).is_err()),
            Hint::Hill(i) => scene
                .hills
                .get(i)
                .is_some_and(|h| self.check_hill(scene, h, seg).is_err()),
            Hint::Area(i) => scene.areas.get(i).is_some_and(|a| {
                let mut tally = None;
                self.check_area(scene, *a, seg, &mut tally, true).is_err()
            }),
        }
    }

    /// The shadow of the blocker `hint` names as seen from the source point `a`, once it has
    /// blocked the segment `a → b` ([`Shadows`]): for a convex opaque blocker ([`Self::convex_opaque`]
    /// with a [`convex_turn`]) whose box is clear of both units' by more than
    /// [`SHADOW_MARGIN_CM`], the two vertices bounding it from `a` ([`prefilter::shadow`]).
    ///
    /// A linear obstacle is no convex shape, but each straight piece of it is: the piece the
    /// blocked segment `a → b` crosses ([`prefilter::crossed_piece`]) casts the shadow, and
    /// whether the obstacle blocks at all (VIS-09, VIS-17) is the same for every segment of
    /// the query ([`Self::linear_facts`]).
    fn shadow(
        &self,
        scene: &Scene,
        hint: Hint,
        linears: &[LinearCheck],
        (a, b): (Point, Point),
    ) -> Option<Wedge> {
        let clear = |rect: &Rect| {
            rect_gap(rect, &scene.o.rect) > SHADOW_MARGIN_CM
                && rect_gap(rect, &scene.t.rect) > SHADOW_MARGIN_CM
        };
        if let Hint::Linear(i) = hint {
            let f = self.features.get(linears.get(i)?.feature)?;
            let Shape::Line { line, .. } = &f.shape else {
                return None;
            };
            let (p, q) = prefilter::crossed_piece(a, b, &line.0)?;
            let rect = rect_of([Point::new(p.x, p.y), Point::new(q.x, q.y)]);
            return clear(&rect)
                .then(|| prefilter::shadow(a, &[p, q]))
                .flatten();
        }
        let (poly, rect, turn) = self.convex_opaque(scene, hint)?;
        if turn == 0 || !clear(&rect) {
            return None;
        }
        prefilter::shadow(a, &poly.exterior().0)
    }

    /// The shape of an opaque blocker a hint names (a unit, a high area neither unit touches,
    /// a hill neither unit stands on), with its box and its [`convex_turn`].
    fn convex_opaque<'a>(
        &'a self,
        scene: &Scene<'a>,
        hint: Hint,
    ) -> Option<(&'a Polygon<f64>, Rect, i8)> {
        match hint {
            Hint::Unit(i) => {
                let q = scene.units.get(i)?;
                Some((&q.outline, q.rect, q.outline_turn))
            }
            Hint::Area(i) => {
                let area = scene.areas.get(i).filter(|ar| ar.opaque)?;
                let f = self.features.get(area.feature)?;
                let Shape::Area(poly) = &f.shape else {
                    return None;
                };
                Some((poly, f.rect, f.turn))
            }
            Hint::Hill(i) => {
                let Some(HillRule::Opaque { base }) = scene.hills.get(i) else {
                    return None;
                };
                let f = self.features.get(*base)?;
                let Shape::Area(poly) = &f.shape else {
                    return None;
                };
                Some((poly, f.rect, f.turn))
            }
            Hint::Linear(_) => None,
        }
    }

    fn unit_blocks(&self, q: &PieceSight, seg: &Probe) -> bool {
        rects_overlap(&q.rect, &seg.full.rect)
            && seg.trim.meets_convex(&q.outline, &q.rect, q.outline_turn)
    }

    /// One segment against everything in the way, in the catalogue's order: the exceptions
    /// it relied on, or why it is blocked.
    fn test_segment(
        &self,
        scene: &Scene,
        seg: &Probe,
        linears: &mut [LinearCheck],
    ) -> Result<Vec<&'static str>, Block> {
        let mut used: Vec<&'static str> = Vec::new();
        // VIS-07 (3): other units.
        for (i, q) in scene.units.iter().enumerate() {
            if self.unit_blocks(q, seg) {
                return Err(Block {
                    rule: "VIS-07",
                    detail: scene.say(|| sentence(&[&q.name, " is in the way"])),
                    by: scene.name(|| Blocker::Piece {
                        id: q.id,
                        name: q.name.clone(),
                    }),
                    hint: Some(Hint::Unit(i)),
                });
            }
        }
        // VIS-09 linear obstacles (VIS-17: not for a dug-in target against it).
        for (i, lc) in linears.iter_mut().enumerate() {
            match self.check_linear(scene, lc, seg) {
                Ok(Some(rule)) => used.push(rule),
                Ok(None) => {}
                Err(mut b) => {
                    b.hint = Some(Hint::Linear(i));
                    return Err(b);
                }
            }
        }
        // VIS-06 / VIS-14: hills.
        for (i, h) in scene.hills.iter().enumerate() {
            match self.check_hill(scene, h, seg) {
                Ok(Some(rule)) => used.push(rule),
                Ok(None) => {}
                Err(mut b) => {
                    b.hint = Some(Hint::Hill(i));
                    return Err(b);
                }
            }
        }
        // VIS-11..VIS-13, VIS-15: area terrain.
        let mut tally: Option<(usize, f64)> = None;
        for (i, a) in scene.areas.iter().enumerate() {
            match self.check_area(scene, *a, seg, &mut tally, false) {
                Ok(rules) => used.extend(rules),
                Err(mut b) => {
                    b.hint = Some(Hint::Area(i));
                    return Err(b);
                }
            }
        }
        used.sort_unstable();
        used.dedup();
        Ok(used)
    }

    /// VIS-09 (and VIS-17 for a dug-in target against the obstacle).
    fn check_linear(
        &self,
        scene: &Scene,
        lc: &mut LinearCheck,
        seg: &Probe,
    ) -> Result<Option<&'static str>, Block> {
        let Some(f) = self.features.get(lc.feature) else {
            return Ok(None);
        };
        let Shape::Line { line: ls, .. } = &f.shape else {
            return Ok(None);
        };
        if !rects_overlap(&f.rect, &seg.full.rect) || !seg.trim.meets_polyline(ls, &f.rect) {
            return Ok(None);
        }
        let t = scene.t;
        let (contact, dug_in_against) = self.linear_facts(scene, lc);
        if dug_in_against {
            return Err(Block {
                rule: "VIS-17",
                detail: scene.say(|| sentence(&[&t.name, " is dug in behind ", f.blocker.name()])),
                by: scene.name(|| f.blocker.clone()),
                hint: None,
            });
        }
        if !contact {
            return Err(Block {
                rule: "VIS-09",
                detail: scene.say(|| {
                    format!(
                        "{} is in the way and neither unit is in base contact with it",
                        f.blocker.name()
                    )
                }),
                by: scene.name(|| f.blocker.clone()),
                hint: None,
            });
        }
        Ok(Some("VIS-09"))
    }

    /// Is either unit in base contact with the obstacle (VIS-09), and is the target dug in
    /// against it (VIS-17)? Worked out once per query.
    fn linear_facts(&self, scene: &Scene, lc: &mut LinearCheck) -> (bool, bool) {
        let (o, t) = (scene.o, scene.t);
        *lc.exempt.get_or_insert_with(|| {
            let touch = |p: &PieceSight| self.linear_contacts(p).binary_search(&lc.feature).is_ok();
            let (o_touch, t_touch) = (touch(o), touch(t));
            (
                o_touch || t_touch,
                t_touch && t.dug_in && o.id.side() != t.id.side(),
            )
        })
    }

    /// VIS-09: the linear features `p` is in base contact with (within the obstacle's half
    /// width and the contact tolerance of one of its stands), sorted; worked out once per
    /// piece and index, however many queries ask. A piece's part of the index is rebuilt
    /// whenever the piece, the terrain or the parameters change, so the list stays true.
    fn linear_contacts<'a>(&self, p: &'a PieceSight) -> &'a [usize] {
        p.linear_contact.get_or_init(|| {
            self.features
                .iter()
                .enumerate()
                .filter_map(|(fi, f)| {
                    let Shape::Line { line, half_width } = &f.shape else {
                        return None;
                    };
                    let reach = half_width + self.params.contact_cm;
                    (rect_gap(&f.rect, &p.rect) <= reach && p.to_line(line, &f.rect) <= reach)
                        .then_some(fi)
                })
                .collect()
        })
    }

    /// VIS-06 and VIS-14.
    fn check_hill(
        &self,
        scene: &Scene,
        h: &HillRule,
        seg: &Probe,
    ) -> Result<Option<&'static str>, Block> {
        let (HillRule::Opaque { base }
        | HillRule::SameLevel { base }
        | HillRule::Crest { base, .. }) = *h;
        let Some(f) = self.features.get(base) else {
            return Ok(None);
        };
        let Shape::Area(poly) = &f.shape else {
            return Ok(None);
        };
        // Ruling (c): whatever meets the footprint of a hill neither unit stands on. The
        // trimmed segment lies within the whole one, so when it meets the hill the whole one
        // does; when it does not, the answer is "no part" either way.
        if let HillRule::Opaque { .. } = *h {
            if !seg.trim.meets_convex(poly, &f.rect, f.turn) {
                return Ok(None);
            }
        } else if !seg.full.meets_convex(poly, &f.rect, f.turn) {
            return Ok(None);
        }
        match *h {
            HillRule::Opaque { .. } => Err(Block {
                rule: "VIS-14",
                detail: scene.say(|| sentence(&["the hill ", f.blocker.name(), " is in the way"])),
                by: scene.name(|| f.blocker.clone()),
                hint: None,
            }),
            HillRule::SameLevel { .. } => Ok(Some("VIS-06")),
            HillRule::Crest {
                crest,
                upper_is_observer,
                lower_ref,
                ..
            } => {
                let upper_pt = if upper_is_observer {
                    seg.seg.a
                } else {
                    seg.seg.b
                };
                if crest.on_or_towards(upper_pt, lower_ref) {
                    return Ok(Some("VIS-14"));
                }
                let upper = if upper_is_observer { scene.o } else { scene.t };
                Err(Block {
                    rule: "VIS-14",
                    detail: scene.say(|| {
                        sentence(&[&upper.name, " is behind the crest of ", f.blocker.name()])
                    }),
                    by: scene.name(|| f.blocker.clone()),
                    hint: None,
                })
            }
        }
    }

    /// VIS-07 (high area crossings), VIS-11, VIS-12, VIS-13 and VIS-15 for one area piece.
    /// `low_crossed` carries the one low piece already crossed (VIS-13) between calls.
    /// `likely`: the segment probably meets the area (it blocked the last one), so the quick
    /// "misses" test before the intervals would cost more than it saves; the answer is the
    /// same either way.
    fn check_area(
        &self,
        scene: &Scene,
        area: AreaRef,
        seg: &Probe,
        low_crossed: &mut Option<(usize, f64)>,
        likely: bool,
    ) -> Result<Vec<&'static str>, Block> {
        let mut used = Vec::new();
        let fi = area.feature;
        let Some(f) = self.features.get(fi) else {
            return Ok(used);
        };
        let Shape::Area(poly) = &f.shape else {
            return Ok(used);
        };
        if !rects_overlap(&f.rect, &seg.full.rect) {
            return Ok(used);
        }
        if area.opaque {
            // Touches neither unit: whatever part of the line meets it is a crossing (VIS-07).
            if seg.trim.meets_convex(poly, &f.rect, f.turn) {
                return Err(Block {
                    rule: "VIS-07",
                    detail: scene.say(|| sentence(&[f.blocker.name(), " is in the way"])),
                    by: scene.name(|| f.blocker.clone()),
                    hint: None,
                });
            }
            return Ok(used);
        }
        let (o, t) = (scene.o, scene.t);
        let high = f.class == SightTerrain::HighArea;
        // A segment that misses the closed polygon has no inside interval.
        if !likely && !seg.full.meets_convex(poly, &f.rect, f.turn) {
            return Ok(used);
        }
        let intervals = seg.full.inside_intervals(poly, &seg.seg);
        let seg = &seg.seg;
        if intervals.is_empty() {
            return Ok(used);
        }
        if !high && scene.looks_down {
            used.push("VIS-15");
            return Ok(used);
        }
        let len = seg.length();
        let scale = self.params.measure_scale;
        let kind_limit = if high {
            HIGH_AREA_SEEN_CM
        } else {
            LOW_AREA_SEEN_CM
        } * scale;
        let target_limit = if t.concealed {
            CONCEALED_SEEN_CM * scale
        } else {
            kind_limit
        };
        let what = f.blocker.name();
        let block = |rule: &'static str, detail: String| Block {
            rule,
            detail,
            by: scene.name(|| f.blocker.clone()),
            hint: None,
        };
        let mut crossing = 0.0;
        for &(from, to) in &intervals {
            let at_o = from <= 1e-6;
            let at_t = to >= len - 1e-6;
            if at_o && at_t {
                // VIS-12 (b): both inside the same piece.
                if len > target_limit + 1e-9 {
                    return Err(block(
                        "VIS-12",
                        scene.say(|| format!(
                            "{} is {len:.1} cm away inside {what}; it is seen there only within {target_limit} cm",
                            t.name
                        )),
                    ));
                }
                used.push("VIS-12");
            } else if at_o {
                // VIS-11: the observer at the edge sees out through it; VIS-12 (c).
                if o.within(seg.at(to), self.params.contact_cm) {
                    used.push("VIS-11");
                } else if to <= kind_limit + 1e-9 {
                    used.push("VIS-12");
                } else {
                    return Err(block(
                        "VIS-12",
                        scene.say(|| format!(
                            "{} looks through {to:.1} cm of {what}; it sees out only through {kind_limit} cm",
                            o.name
                        )),
                    ));
                }
            } else if at_t {
                // VIS-11: a target at the edge is seen; VIS-12 (a).
                let depth = len - from;
                if t.within(seg.at(from), self.params.contact_cm) {
                    used.push("VIS-11");
                } else if depth <= target_limit + 1e-9 {
                    used.push("VIS-12");
                } else {
                    return Err(block(
                        "VIS-12",
                        scene.say(|| format!(
                            "{} is {depth:.1} cm inside {what}; it is seen there only within {target_limit} cm",
                            t.name
                        )),
                    ));
                }
            } else if high {
                return Err(block(
                    "VIS-07",
                    scene.say(|| sentence(&[what, " is in the way"])),
                ));
            } else {
                crossing += to - from;
            }
        }
        if crossing > 0.0 {
            // VIS-13: one low piece, at most 10 cm of it.
            if low_crossed.is_some() {
                return Err(block(
                    "VIS-13",
                    scene.say(|| {
                        sentence(&["the line crosses a second piece of low terrain, ", what])
                    }),
                ));
            }
            if crossing > LOW_CROSSING_CM * scale + 1e-9 {
                return Err(block(
                    "VIS-13",
                    scene.say(|| format!(
                        "the line crosses {crossing:.1} cm of {what}; at most {} cm may be seen across",
                        LOW_CROSSING_CM * scale
                    )),
                ));
            }
            *low_crossed = Some((fi, crossing));
            used.push("VIS-13");
        }
        Ok(used)
    }
}

/// The two units and what may stand between them, for one query.
#[derive(Clone, Copy)]
struct Scene<'s> {
    o: &'s PieceSight,
    t: &'s PieceSight,
    units: &'s [&'s PieceSight],
    hills: &'s [HillRule],
    areas: &'s [AreaRef],
    /// VIS-15: the observer stands on a hill above the target.
    looks_down: bool,
    /// Word the reasons (only for the segment whose reason is reported).
    explain: bool,
}

impl Scene<'_> {
    fn say(&self, detail: impl FnOnce() -> String) -> String {
        if self.explain {
            detail()
        } else {
            String::new()
        }
    }

    fn name(&self, blocker: impl FnOnce() -> Blocker) -> Option<Blocker> {
        self.explain.then(blocker)
    }
}

/// An area piece near the line, and whether it is opaque for this pair: high area terrain that
/// touches neither unit, so that any segment meeting it is blocked (VIS-07).
#[derive(Debug, Clone, Copy)]
struct AreaRef {
    feature: usize,
    opaque: bool,
}

/// One segment with what every test of it needs, made once: the segment, its line and the
/// line trimmed by [`TRIM_CM`] at each end (units, linear obstacles and opaque areas are
/// tested against the trimmed line), each with its bounding box.
struct Probe {
    seg: Segment,
    full: SegmentProbe,
    trim: SegmentProbe,
}

impl Probe {
    fn new(seg: Segment) -> Probe {
        Probe {
            seg,
            full: SegmentProbe::new(seg.line()),
            trim: SegmentProbe::new(seg.trimmed(TRIM_CM).line()),
        }
    }
}

/// What blocked the last segment, to try first on the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hint {
    Unit(usize),
    Linear(usize),
    Hill(usize),
    Area(usize),
}

/// The shadows of the blockers that blocked a segment from one source point (VIS-02), so that
/// the rest of its fan skips the targets inside one. A convex opaque blocker `C`, clear of
/// both units' boxes by more than [`SHADOW_MARGIN_CM`], blocked the segment `a → b`: `b` lies in
/// the closed wedge `C` fills as seen from `a`, and beyond `C`. The target's outline `T`
/// (convex, holding every target point) misses `C`, so the part of `T` in the wedge (convex,
/// so connected) lies wholly on one side of `C`: beyond it, where `b` is. So the segment to
/// any target point strictly inside the wedge ([`prefilter::in_shadow`]) crosses `C`, farther
/// than the margin from both ends, so inside the trimmed segment: it is blocked by `C` as the
/// segment to `b` was. A blocked segment is neither reported nor, coming after the first, its
/// reason, so skipping it changes no answer.
#[derive(Default)]
struct Shadows {
    /// Each blocker asked about, with its shadow when it has one.
    kept: [Option<(Hint, Option<Wedge>)>; 4],
}

impl Shadows {
    fn hide(&self, a: Point, b: Point) -> bool {
        self.kept
            .iter()
            .map_while(|k| *k)
            .any(|(_, w)| w.is_some_and(|w| prefilter::in_shadow(a, w, b)))
    }

    /// Remember `h`'s shadow (worked out by `of` the first time `h` blocks from this point).
    fn add(&mut self, h: Hint, of: impl FnOnce() -> Option<Wedge>) {
        if self.kept.iter().map_while(|k| *k).any(|(k, _)| k == h) {
            return;
        }
        if let Some(slot) = self.kept.iter_mut().find(|k| k.is_none()) {
            *slot = Some((h, of()));
        }
    }
}

/// A detail sentence made of its parts, in a string of exactly their length: `format!` guesses
/// short and grows the string as it writes, and line of sight writes one for every answer.
fn sentence(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        out.push_str(p);
    }
    out
}

/// Distance from a point to a segment in plain `f64` (within some 1e-13 cm of `geo`'s).
fn point_segment_distance(c: Point, l: &Line<f64>) -> f64 {
    let (dx, dy) = (l.end.x - l.start.x, l.end.y - l.start.y);
    let len2 = dx * dx + dy * dy;
    let k = if len2 > 0.0 {
        (((c.x - l.start.x) * dx + (c.y - l.start.y) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (px, py) = (l.start.x + k * dx, l.start.y + k * dy);
    ((c.x - px) * (c.x - px) + (c.y - py) * (c.y - py)).sqrt()
}

/// The points `keep` keeps, in order, in a vector sized for all of them (no regrowing).
fn kept(points: &[Point], keep: impl Fn(Point) -> bool) -> Vec<Point> {
    let mut out = Vec::with_capacity(points.len());
    out.extend(points.iter().copied().filter(|p| keep(*p)));
    out
}

/// VIS-02, VIS-04: every segment from a source point to a target point within the limit.
fn pairs<'a>(
    sources: &'a [Point],
    targets: &'a [Point],
    limit: f64,
) -> impl Iterator<Item = Segment> + 'a {
    sources.iter().flat_map(move |&a| {
        targets
            .iter()
            .map(move |&b| Segment::new(a, b))
            .filter(move |s| s.length() <= limit)
    })
}

/// The corridor's two outer tangents: the hull edges running from an observer point to a
/// target point. `None` when the hull does not split into one run of each (the units overlap
/// or interleave), or is degenerate.
fn bridges(corridor: &Polygon<f64>, p: &[Point], q: &[Point]) -> Option<(Line<f64>, Line<f64>)> {
    let ring = &corridor.exterior().0;
    let n = ring.len().checked_sub(1)?;
    if n < 3 {
        return None;
    }
    // `&` and a fold, not `&&` and `any`: every comparison made, without a branch on each.
    let same =
        |c: &geo::Coord<f64>, x: &Point| ((c.x - x.x).abs() < 1e-9) & ((c.y - x.y).abs() < 1e-9);
    // A point well outside a set's box is near none of its points: most corners are told by
    // one of the two boxes.
    let near = |c: &geo::Coord<f64>, pts: &[Point], r: &Rect| {
        (c.x > r.min.x - 1e-8)
            & (c.x < r.max.x + 1e-8)
            & (c.y > r.min.y - 1e-8)
            & (c.y < r.max.y + 1e-8)
            && pts.iter().fold(false, |found, x| found | same(c, x))
    };
    let (p_box, q_box) = (rect_of(p.iter().copied()), rect_of(q.iter().copied()));
    let mut sides = Vec::with_capacity(n);
    for c in ring.iter().take(n) {
        let in_p = near(c, p, &p_box);
        let in_q = near(c, q, &q_box);
        match (in_p, in_q) {
            (true, false) => sides.push(true),
            (false, true) => sides.push(false),
            _ => return None,
        }
    }
    let mut out: Vec<Line<f64>> = Vec::with_capacity(2);
    for i in 0..n {
        let j = (i + 1) % n;
        let (Some(si), Some(sj), Some(a), Some(b)) =
            (sides.get(i), sides.get(j), ring.get(i), ring.get(j))
        else {
            return None;
        };
        if si != sj {
            out.push(Line::new(*a, *b));
        }
    }
    match out.as_slice() {
        [l, r] => Some((*l, *r)),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy)]
struct LinearCheck {
    feature: usize,
    /// Cached: is either unit in base contact with it (VIS-09)? And is the target dug in
    /// against it (VIS-17)?
    exempt: Option<(bool, bool)>,
}

/// Why one segment is blocked.
struct Block {
    rule: &'static str,
    detail: String,
    by: Option<Blocker>,
    hint: Option<Hint>,
}

fn closed(ring: &[Point]) -> Vec<Point> {
    let mut v = ring.to_vec();
    if let Some(&f) = ring.first() {
        v.push(f);
    }
    v
}

fn rect_centre(r: &Rect) -> Point {
    Point::new((r.min.x + r.max.x) / 2.0, (r.min.y + r.max.y) / 2.0)
}

fn half_diagonal(r: &Rect) -> f64 {
    r.min.distance(r.max).0 / 2.0
}

fn union_rect(a: &Rect, b: &Rect) -> Rect {
    Rect {
        min: Point::new(a.min.x.min(b.min.x), a.min.y.min(b.min.y)),
        max: Point::new(a.max.x.max(b.max.x), a.max.y.max(b.max.y)),
    }
}

/// Groups hill contours into massifs (module docs), lowest level first.
fn group_massifs(features: &mut [FeatureSight]) -> Vec<Massif> {
    let mut hills: Vec<(u8, usize)> = features
        .iter()
        .enumerate()
        .filter_map(|(i, f)| match (f.class, &f.shape) {
            (SightTerrain::Hill { level }, Shape::Area(_)) => Some((level, i)),
            _ => None,
        })
        .collect();
    hills.sort();
    let mut massifs: Vec<Massif> = Vec::new();
    for &(level, i) in &hills {
        let probe = features.get(i).and_then(|f| match &f.shape {
            Shape::Area(p) => p.exterior().0.first().map(|c| Point::new(c.x, c.y)),
            Shape::Line { .. } => None,
        });
        // The highest lower contour holding this one's first vertex.
        let parent = probe.and_then(|pt| {
            hills
                .iter()
                .filter(|(l, j)| *l < level && *j != i)
                .filter(|(_, j)| {
                    features.get(*j).is_some_and(|f| match &f.shape {
                        Shape::Area(poly) => poly.intersects(&geo::Point::new(pt.x, pt.y)),
                        Shape::Line { .. } => false,
                    })
                })
                .max_by_key(|(l, _)| *l)
                .and_then(|(_, j)| features.get(*j).and_then(|f| f.massif))
        });
        let m = match parent {
            Some(m) => m,
            None => {
                massifs.push(Massif {
                    base: i,
                    contours: Vec::new(),
                });
                massifs.len() - 1
            }
        };
        if let Some(ms) = massifs.get_mut(m) {
            ms.contours.push(i);
        }
        if let Some(f) = features.get_mut(i) {
            f.massif = Some(m);
        }
    }
    massifs
}

/// How far inside a deep area piece a sample point of the unit lies (0 if it is not one).
fn deep_at(p: &Seen, d: &Deep, q: Point) -> f64 {
    p.samples
        .iter()
        .position(|s| s.x == q.x && s.y == q.y)
        .and_then(|i| d.depth.get(i).copied())
        .unwrap_or(0.0)
}

/// The area pieces holding a unit's centroid whose edge its bases do not reach.
fn deep_areas(
    features: &[FeatureSight],
    tree: &BoxIndex,
    p: &PieceSight,
    centroid: Point,
    samples: &[Point],
    contact: f64,
) -> Vec<Deep> {
    let probe = Rect {
        min: centroid,
        max: centroid,
    };
    let mut out: Vec<Deep> = tree
        .query(&probe)
        .filter_map(|fi| {
            let f = features.get(fi)?;
            let Shape::Area(poly) = &f.shape else {
                return None;
            };
            let high = match f.class {
                SightTerrain::HighArea => true,
                SightTerrain::LowArea => false,
                _ => return None,
            };
            if !contains_point(poly, centroid)
                || footprint_boundary_distance(&p.footprint, poly) <= contact
            {
                return None;
            }
            let depth = samples
                .iter()
                .map(|s| -> f64 { Euclidean.distance(&geo::Point::new(s.x, s.y), poly.exterior()) })
                .collect();
            Some(Deep {
                feature: fi,
                high,
                depth,
            })
        })
        .collect();
    out.sort_by_key(|d| d.feature);
    out
}

/// A lower bound on the distance between two convex polygons (stands), a hair under the
/// widest gap between their projections on the polygons' own edge directions (projections
/// do not lengthen distances). Tighter than the axis-aligned box gap for turned stands.
/// A lower bound on the distance between two convex polygons (stands), within rounding of
/// the distance itself when they are certainly apart ([`axis_gap`] finds a separating axis):
/// then the distance is that of the nearest vertex of one to an edge of the other. 0 when they
/// may touch. [`PieceSight::gap`] asks `geo` only of the pairs this cannot rule out.
fn convex_gap_bound(a: &Polygon<f64>, b: &Polygon<f64>) -> f64 {
    if axis_gap(a, b) <= 0.0 {
        return 0.0;
    }
    let (ra, rb) = (&a.exterior().0, &b.exterior().0);
    let mut best = f64::INFINITY;
    for (points, ring) in [(ra, rb), (rb, ra)] {
        for c in points.iter() {
            for w in ring.windows(2) {
                let [p, q] = w else {
                    continue;
                };
                best = best.min(point_segment_distance(
                    Point::new(c.x, c.y),
                    &Line::new(*p, *q),
                ));
            }
        }
    }
    // `point_segment_distance` is within some 1e-13 cm of `geo`'s; stay well under it.
    (best - 1e-9).max(0.0)
}

fn axis_gap(a: &Polygon<f64>, b: &Polygon<f64>) -> f64 {
    let (ra, rb) = (&a.exterior().0, &b.exterior().0);
    let mut widest: f64 = 0.0;
    for ring in [ra, rb] {
        // A rectangle's first two edges give both its directions.
        for w in ring.windows(2).take(2) {
            let [p, q] = w else {
                continue;
            };
            let (dx, dy) = (q.x - p.x, q.y - p.y);
            let len = (dx * dx + dy * dy).sqrt();
            if len <= 0.0 || !len.is_finite() {
                continue;
            }
            let (ux, uy) = (dx / len, dy / len);
            let span = |r: &[geo::Coord<f64>]| {
                r.iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
                        let v = c.x * ux + c.y * uy;
                        (lo.min(v), hi.max(v))
                    })
            };
            let ((a0, a1), (b0, b1)) = (span(ra), span(rb));
            widest = widest.max(b0 - a1).max(a0 - b1);
        }
    }
    // Rounding in the projections is some 1e-13 cm; stay well under it.
    (widest - 1e-9).max(0.0)
}

/// VIS-03: [`crate::geom::sight_arc_contains`] with each front edge's midpoint and heading worked out once
/// (the same arithmetic, so the same answers), as every query asks it of a dozen points.
#[derive(Debug, Clone)]
struct SightArc {
    all_round: bool,
    /// Per front edge: its midpoint and the unit vector straight ahead.
    fronts: Vec<(Point, Point)>,
}

impl SightArc {
    fn of(fp: &Footprint) -> SightArc {
        SightArc {
            all_round: fp.sees_all_round(),
            fronts: fp
                .fronts
                .iter()
                .map(|e| (e.midpoint(), heading(e.facing_deg)))
                .collect(),
        }
    }

    /// As `sight_arc_contains(footprint, p)`: on or ahead of a front edge's line.
    fn contains(&self, p: Point) -> bool {
        self.all_round
            || self
                .fronts
                .iter()
                .any(|(m, h)| (p.x - m.x) * h.x + (p.y - m.y) * h.y >= -EPS)
    }
}

/// What a piece that may hide (dug in, VIS-17; an unfired gun, VIS-08) hides in or behind,
/// worked out once with its part of the index: the same answers the queries would work out.
#[derive(Debug, Clone)]
struct Hiding {
    /// [`holding_areas`].
    holding: Vec<(usize, bool)>,
    /// [`lines_in_contact`].
    lines: Vec<usize>,
}

/// Area features whose inside holds the piece's centroid, with whether the piece touches the
/// boundary (within `contact` cm), sorted.
fn holding_areas(
    features: &[FeatureSight],
    tree: &BoxIndex,
    p: &PieceSight,
    centroid: Point,
    contact: f64,
) -> Vec<(usize, bool)> {
    let probe = Rect {
        min: centroid,
        max: centroid,
    };
    let mut out: Vec<(usize, bool)> = tree
        .query(&probe)
        .filter_map(|fi| {
            let f = features.get(fi)?;
            let Shape::Area(poly) = &f.shape else {
                return None;
            };
            if !matches!(f.class, SightTerrain::LowArea | SightTerrain::HighArea)
                || !contains_point(poly, centroid)
            {
                return None;
            }
            let at_edge = footprint_boundary_distance(&p.footprint, poly) <= contact;
            Some((fi, at_edge))
        })
        .collect();
    out.sort();
    out
}

/// Linear features (terrain or works) the piece is in base contact with (within `contact` cm of
/// their width), in the feature tree's order.
fn lines_in_contact(
    features: &[FeatureSight],
    tree: &BoxIndex,
    p: &PieceSight,
    contact: f64,
) -> Vec<usize> {
    let grown = p.rect.grown(contact + 1.0);
    tree.query(&grown)
        .filter(|&fi| {
            let Some(f) = features.get(fi) else {
                return false;
            };
            let Shape::Line { line, half_width } = &f.shape else {
                return false;
            };
            footprint_polyline_distance(&p.footprint, line) <= half_width + contact
        })
        .collect()
}

/// A point set sorted for the monotone chain ([`sorted_coords`]), kept or made for the query.
type SortedSet<'a> = Cow<'a, [geo::Coord<f64>]>;

/// The corners of a point set's convex hull ([`hull_corners`]), and the same sorted for the
/// monotone chain ([`sorted_coords`]; `None` when one is not finite).
#[derive(Debug, Clone)]
struct Corners {
    points: Vec<Point>,
    sorted: Option<Vec<geo::Coord<f64>>>,
}

impl Corners {
    fn of(points: &[Point]) -> Corners {
        let points = hull_corners(points);
        let sorted = sorted_coords(&points);
        Corners { points, sorted }
    }

    /// A query's point set for its corridor, with the same sorted: a unit's kept corners
    /// (`kept`, made from `whole` on first use) when the set is all of `whole`, else the set
    /// itself, sorted now.
    fn for_set<'a>(
        set: &'a [Point],
        whole: &[Point],
        kept: &'a OnceLock<Corners>,
    ) -> (&'a [Point], Option<SortedSet<'a>>) {
        if set.len() == whole.len() {
            let c = kept.get_or_init(|| Corners::of(whole));
            (&c.points[..], c.sorted.as_deref().map(Cow::Borrowed))
        } else {
            (set, sorted_coords(set).map(Cow::Owned))
        }
    }
}

/// The corners of the convex hull of `points` (the ring without its closing point).
fn hull_corners(points: &[Point]) -> Vec<Point> {
    let hull = point_hull(points);
    let ring = &hull.exterior().0;
    let n = if ring.len() > 1 && ring.first() == ring.last() {
        ring.len() - 1
    } else {
        ring.len()
    };
    ring.iter().take(n).map(|c| Point::new(c.x, c.y)).collect()
}

/// The area features (any class) whose polygon touches the unit's outline, sorted.
fn touching_areas(features: &[FeatureSight], tree: &BoxIndex, p: &PieceSight) -> Vec<usize> {
    let mut out: Vec<usize> = tree
        .query(&p.rect)
        .filter(|&fi| {
            features.get(fi).is_some_and(|f| match &f.shape {
                Shape::Area(poly) => rects_overlap(&f.rect, &p.rect) && poly.intersects(&p.outline),
                Shape::Line { .. } => false,
            })
        })
        .collect();
    out.sort_unstable();
    out
}

/// The hill level and massif under a point (0 and none on the table).
fn level_at(features: &[FeatureSight], tree: &BoxIndex, p: Point) -> (u8, Option<usize>) {
    let probe = Rect { min: p, max: p };
    let mut best: (u8, Option<usize>) = (0, None);
    for fi in tree.query(&probe) {
        let Some(f) = features.get(fi) else {
            continue;
        };
        if let (SightTerrain::Hill { level }, Shape::Area(poly)) = (f.class, &f.shape) {
            if level > best.0 && contains_point(poly, p) {
                best = (level, f.massif);
            }
        }
    }
    best
}

impl SightIndex {
    /// The enemies `piece` can see, nearest first (ties by id): the pool "nearest enemy" and
    /// target choices draw from (§1.5, VIS-01).
    pub fn visible_enemies(&self, piece: PieceId) -> Vec<(PieceId, f64)> {
        let Some(o) = self.get(piece) else {
            return Vec::new();
        };
        let mut out: Vec<(PieceId, f64)> = Vec::new();
        for j in self.pieces_near(&o.rect, self.params.limit_cm) {
            let Some(q) = self.pieces.get(j) else {
                continue;
            };
            if q.id.side() == o.id.side() {
                continue;
            }
            let s = self.sight(o.id, q.id);
            if s.visible {
                out.push((q.id, s.distance_cm));
            }
        }
        out.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        out
    }

    /// The nearest enemy `piece` can see (§1.5: on a tie the owner chooses; this returns the
    /// lowest id, and [`SightIndex::visible_enemies`] lists the tied ones).
    pub fn nearest_visible_enemy(&self, piece: PieceId) -> Option<(PieceId, f64)> {
        self.nearest_visible_enemy_where(piece, |_| true)
    }

    /// The first of [`Self::visible_enemies`] that `keep` accepts, found nearest first: a
    /// visible answer's distance is the pair's edge gap ([`Self::edge_gap`]), so the enemies
    /// are put in order of gap (ties by id, as that list is) and traced in that order until
    /// one is visible, instead of tracing every enemy within the visibility limit.
    pub fn nearest_visible_enemy_where(
        &self,
        piece: PieceId,
        keep: impl Fn(PieceId) -> bool,
    ) -> Option<(PieceId, f64)> {
        let o = self.get(piece)?;
        let mut near: Vec<(f64, PieceId)> = self
            .pieces_near(&o.rect, self.params.limit_cm)
            .filter_map(|j| self.pieces.get(j))
            .filter(|q| q.id.side() != o.id.side() && keep(q.id))
            .map(|q| (o.gap(q), q.id))
            .collect();
        near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        near.into_iter().find_map(|(_, id)| {
            let s = self.sight(o.id, id);
            s.visible.then_some((id, s.distance_cm))
        })
    }

    /// VIS-17 / VIS-08 reveals due now: unrevealed dug-in pieces with an enemy within 5 cm
    /// (foot, command, cavalry and deployed guns only). Firing and moving reveal through the
    /// state flags; this is the proximity part, for the engine to record.
    pub fn due_reveals(&self) -> Vec<PieceId> {
        self.pieces
            .iter()
            .filter(|p| {
                p.dug_in
                    && p.revealed_by_proximity
                    && self.enemy_within(p, DUG_IN_REVEAL_CM * self.params.measure_scale)
            })
            .map(|p| p.id)
            .collect()
    }
}

/// Does a piece's part of a [`SightIndex`] (and its base hull) read anything that differs
/// between these two states of it? The destructuring names every field, so a field added to
/// [`PieceState`] must be placed here on one side or the other before this compiles.
fn same_for_sight(a: &PieceState, b: &PieceState) -> bool {
    let PieceState {
        id,
        name,
        troop_type,
        arm,
        command,
        pose,
        formation,
        limbered,
        stands,
        knocked_out,
        dug_in,
        revealed,
        has_fired,
        flank,
        // Markers and records that neither lay out the bases nor hide or reveal anything.
        hits: _,
        suppressed_at: _,
        disordered_until: _,
        grade: _,
        orders: _,
        prone: _,
    } = a;
    *id == b.id
        && *pose == b.pose
        && *formation == b.formation
        && *stands == b.stands
        && *limbered == b.limbered
        && *knocked_out == b.knocked_out
        && *dug_in == b.dug_in
        && *revealed == b.revealed
        && *has_fired == b.has_fired
        && *flank == b.flank
        && *troop_type == b.troop_type
        && *arm == b.arm
        && *command == b.command
        && *name == b.name
}

/// The last [`SightIndex`] built for one battle, so that the next question about a state that
/// differs in a few pieces rebuilds only those pieces (and nothing when nothing changed).
///
/// A cache belongs to one scenario and one set of army lists (a [`super::battle::Battle`] owns
/// one); the state may change freely between questions, [`sight_index`] checks every piece
/// against the state it was made from. Answers are exactly those of a fresh
/// [`SightIndex::with_params`]. Cloning gives an empty cache. It holds no dice and no clock:
/// a memo, not rules state.
///
/// For the owning battle's own state it also keeps the answers of the move checks asked of it
/// ([`super::movement::MoveAnswers`]): an AI plans a move, declares it and carries it out, and
/// the engine checks it again when authorising and resolving it, all on the same state.
#[derive(Default)]
pub struct SightCache {
    last: Mutex<Option<Arc<SightIndex>>>,
    /// The scenario's terrain as movement prepares it ([`super::terrain::TerrainMemo`]).
    terrain: Mutex<super::terrain::TerrainMemo>,
    /// The owning battle's own state (see [`SightCache::owner_state`]).
    owner: Mutex<OwnerState>,
}

/// Where the owning battle's state lives and, once made, its index. The battle registers the
/// address each time it lends its state out ([`SightCache::owner_state`]) and forgets the
/// index each time it changes the state ([`SightCache::owner_changed`]); while a context over
/// that state exists the state is borrowed and cannot change, so a question about the state at
/// that address is answered by the index without comparing the pieces again.
#[derive(Default)]
struct OwnerState {
    /// Address of the battle's state (0: no battle registered).
    at: usize,
    index: Option<Arc<SightIndex>>,
    /// The move checks answered on that state.
    moves: super::movement::MoveAnswers,
    /// An index of an earlier state and the pieces changed since (in sight's eyes only those):
    /// the next question about the state rebuilds just them.
    stale: Option<(Arc<SightIndex>, Vec<PieceId>)>,
}

impl SightCache {
    /// The index made last for the owning battle's state, or else the last one made (of some
    /// state of the same battle), if any; none is made here. For reading the pieces that have
    /// not changed ([`SightIndex::footprint_if_same`]).
    pub(crate) fn any_index(&self) -> Option<Arc<SightIndex>> {
        let owned = self.owner.lock().ok().and_then(|o| o.index.clone());
        owned.or_else(|| self.last.lock().ok().and_then(|l| l.clone()))
    }

    /// The battle's prepared terrain, for [`super::terrain::TerrainMap::around`] (None if a
    /// panic left it poisoned: the map is then prepared afresh).
    pub(crate) fn terrain_memo(
        &self,
    ) -> Option<std::sync::MutexGuard<'_, super::terrain::TerrainMemo>> {
        self.terrain.lock().ok()
    }

    /// The owning battle lends out `state`, its own state (and no other), now. Only
    /// [`super::battle::Battle`] calls this, for the state it owns.
    pub(crate) fn owner_state(&self, state: &BattleState) {
        let at = std::ptr::from_ref(state) as usize;
        if let Ok(mut o) = self.owner.lock() {
            if o.at != at {
                o.at = at;
                o.index = None;
                o.stale = None;
                o.moves = Default::default();
            }
        }
    }

    /// The owning battle changed its state: its index and move answers are no longer known.
    pub(crate) fn owner_changed(&mut self) {
        if let Ok(o) = self.owner.get_mut() {
            o.index = None;
            o.stale = None;
            o.moves = Default::default();
        }
    }

    /// The owning battle changed its state, and to sight only the pieces `ids` (the events'
    /// [`super::apply::changes_sight_of`]): the next index rebuilds just those.
    pub(crate) fn owner_changed_for(&mut self, ids: Vec<PieceId>) {
        if let Ok(o) = self.owner.get_mut() {
            o.moves = Default::default();
            o.stale = match (o.index.take(), o.stale.take()) {
                (Some(index), _) => Some((index, ids)),
                (None, Some((index, mut earlier))) => {
                    earlier.extend(ids);
                    Some((index, earlier))
                }
                (None, None) => None,
            };
        }
    }

    /// The index of the owner's state made from the stale one, when there is one for `params`.
    fn brought_up_to_date(&self, ctx: &Ctx, params: SightParams) -> Option<Arc<SightIndex>> {
        let (base, ids) = {
            let at = std::ptr::from_ref(ctx.state) as usize;
            let mut o = self.owner.lock().ok()?;
            if o.at != at || o.stale.as_ref().is_none_or(|(b, _)| b.params != params) {
                return None;
            }
            o.stale.take()?
        };
        let index = match base.refreshed_pieces(ctx, params, &ids) {
            None => base,
            Some(index) => Arc::new(index),
        };
        if let Ok(mut slot) = self.last.lock() {
            *slot = Some(Arc::clone(&index));
        }
        self.own(ctx.state, &index);
        Some(index)
    }

    /// The owning battle changed its state, but no piece the way sight sees it (the events were
    /// all [`super::apply::leaves_sight_alone`]): the index stands, the move answers go.
    pub(crate) fn owner_changed_but_not_for_sight(&mut self) {
        if let Ok(o) = self.owner.get_mut() {
            o.moves = Default::default();
        }
    }

    /// `f` on the move answers of the owner's state, when `state` is the owner's (`None`
    /// otherwise: other states keep no answers). `f` must not ask sight questions.
    pub(crate) fn owner_moves<R>(
        &self,
        state: &BattleState,
        f: impl FnOnce(&mut super::movement::MoveAnswers) -> R,
    ) -> Option<R> {
        let at = std::ptr::from_ref(state) as usize;
        let mut o = self.owner.lock().ok()?;
        (o.at == at).then(|| f(&mut o.moves))
    }

    /// The index of the owner's state with `params`, if made since it last changed.
    fn owned(&self, state: &BattleState, params: SightParams) -> Option<Arc<SightIndex>> {
        let at = std::ptr::from_ref(state) as usize;
        let o = self.owner.lock().ok()?;
        if o.at != at {
            return None;
        }
        o.index.as_ref().filter(|i| i.params == params).cloned()
    }

    /// Remembers `index` as the owner's state's when `state` is the owner's.
    fn own(&self, state: &BattleState, index: &Arc<SightIndex>) {
        let at = std::ptr::from_ref(state) as usize;
        if let Ok(mut o) = self.owner.lock() {
            if o.at == at {
                o.index = Some(Arc::clone(index));
            }
        }
    }
}

impl Clone for SightCache {
    fn clone(&self) -> SightCache {
        SightCache::default()
    }
}

impl std::fmt::Debug for SightCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SightCache")
    }
}

/// The sight index of `ctx`'s state with the scenario's weather, through the battle's
/// [`SightCache`] when the context has one.
pub fn sight_index(ctx: &Ctx) -> Arc<SightIndex> {
    sight_index_with(ctx, SightParams::of(ctx))
}

/// [`sight_index`] with explicit parameters (a weather other than the scenario's).
pub fn sight_index_with(ctx: &Ctx, params: SightParams) -> Arc<SightIndex> {
    let Some(cache) = ctx.sight else {
        return Arc::new(SightIndex::with_params(ctx, params));
    };
    if let Some(index) = cache.owned(ctx.state, params) {
        return index;
    }
    if let Some(index) = cache.brought_up_to_date(ctx, params) {
        return index;
    }
    let index = {
        let Ok(mut slot) = cache.last.lock() else {
            // A panic elsewhere poisoned the memo: answer without it.
            return Arc::new(SightIndex::with_params(ctx, params));
        };
        match slot.as_ref() {
            Some(prev) => match prev.refreshed(ctx, params) {
                None => Arc::clone(prev),
                Some(index) => {
                    let next = Arc::new(index);
                    *slot = Some(Arc::clone(&next));
                    next
                }
            },
            None => {
                let next = Arc::new(SightIndex::with_params(ctx, params));
                *slot = Some(Arc::clone(&next));
                next
            }
        }
    };
    cache.own(ctx.state, &index);
    index
}

/// VIS-01..VIS-17: can `observer` see `target` now? Through the battle's [`SightCache`] when
/// the context has one; otherwise builds a [`SightIndex`] for this one question.
pub fn line_of_sight(ctx: &Ctx, observer: PieceId, target: PieceId) -> Sight {
    sight_index(ctx).sight(observer, target)
}

/// VIS-01: an initiative action, fire or charge needs LOS to its target. The error names the
/// rule that hides it.
pub fn check_line_of_sight(
    ctx: &Ctx,
    observer: PieceId,
    target: PieceId,
) -> Result<Sight, RuleError> {
    let s = line_of_sight(ctx, observer, target);
    if s.visible {
        Ok(s)
    } else {
        Err(RuleError::new(s.rule, s.detail))
    }
}

/// The enemies `piece` can see, nearest first (VIS-01, §1.5).
pub fn visible_enemies(ctx: &Ctx, piece: PieceId) -> Vec<(PieceId, f64)> {
    sight_index(ctx).visible_enemies(piece)
}

/// The nearest visible enemy (§1.5; ties: lowest id).
pub fn nearest_visible_enemy(ctx: &Ctx, piece: PieceId) -> Option<(PieceId, f64)> {
    sight_index(ctx).nearest_visible_enemy(piece)
}

/// VIS-17: dug-in pieces an enemy has come within 5 cm of, to be revealed.
pub fn due_reveals(ctx: &Ctx) -> Vec<PieceId> {
    sight_index(ctx).due_reveals()
}

/// One end of a ruler on the table: a unit, or a bare point (table cm).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SightEnd {
    Piece(PieceId),
    Point(Point),
}

/// The ruler's answer between two ends ([`SightIndex::sight_between`]): how far, and whether
/// one end sees the other, with the rule that decides and what is in the way.
#[derive(Debug, Clone, PartialEq)]
pub struct SightReport {
    /// Edge to edge (§1.5) when both ends are units; from the point to the nearest stand when
    /// one is a point; centre to centre between two points.
    pub distance_cm: f64,
    pub visible: bool,
    /// "VIS-02" when visible, otherwise the rule that hides the far end.
    pub rule: &'static str,
    /// The engine's sentence (VIS detail).
    pub detail: String,
    /// The name of the feature, defence or unit in the way ([`Blocker::name`]).
    pub blocker: Option<String>,
    /// The segment the answer was found on.
    pub segment: Option<(Point, Point)>,
}

/// Size of the stand that stands for a bare point in [`SightIndex::sight_between`], cm.
const POINT_STAND_CM: f64 = 0.02;

impl SightIndex {
    /// VIS-01..VIS-17 between any two ends — two units, a unit and a point, or two points —
    /// for a ruler. Between two units it is [`SightIndex::sight`]. A bare point is looked from
    /// (or at) as if a command stand a fifth of a millimetre wide stood there: it sees all
    /// round, blocks nothing, and belongs to the side opposite the unit at the other end (an
    /// enemy's eye, so VIS-08 and VIS-17 concealment count), so every rule of the engine's own
    /// trace applies to it unchanged: the visibility limit (VIS-04), units in the way (VIS-07),
    /// linear obstacles (VIS-09), hills (VIS-14) and area terrain (VIS-11..VIS-13).
    pub fn sight_between(&self, a: SightEnd, b: SightEnd) -> SightReport {
        let side_of = |e: SightEnd| match e {
            SightEnd::Piece(id) => Some(id.side()),
            SightEnd::Point(_) => None,
        };
        let (sa, sb) = (side_of(a), side_of(b));
        let mut extra: Vec<Arc<PieceSight>> = Vec::new();
        let mut end = |e: SightEnd, other: Option<usize>, k: u32, name: &str| -> PieceId {
            match e {
                SightEnd::Piece(id) => id,
                SightEnd::Point(at) => {
                    let side = other.map_or(0, |s| usize::from(s == 0));
                    let id = PieceId::Hq {
                        side,
                        hq: crate::model::HqId(u32::MAX - k),
                    };
                    extra.push(Arc::new(point_piece(id, name, at)));
                    id
                }
            }
        };
        let oid = end(a, sb, 0, "the first point");
        let tid = end(b, sa, 1, "the second point");
        let sight = if extra.is_empty() {
            self.sight(oid, tid)
        } else {
            let mut pieces: Vec<Arc<PieceSight>> = self.pieces.clone();
            for p in extra {
                let at = pieces.partition_point(|q| q.id < p.id);
                pieces.insert(at, p);
            }
            SightIndex::assemble(
                self.params,
                pieces,
                Arc::clone(&self.features),
                Arc::clone(&self.feature_tree),
                Arc::clone(&self.massifs),
                self.terrain_key.clone(),
            )
            .sight(oid, tid)
        };
        let distance_cm = match (a, b) {
            (SightEnd::Point(p), SightEnd::Point(q)) => (q.x - p.x).hypot(q.y - p.y),
            (SightEnd::Point(p), SightEnd::Piece(id))
            | (SightEnd::Piece(id), SightEnd::Point(p)) => {
                self.get(id).map_or(f64::INFINITY, |u| point_gap(u, p))
            }
            (SightEnd::Piece(x), SightEnd::Piece(y)) => {
                self.edge_gap(x, y).unwrap_or(sight.distance_cm)
            }
        };
        SightReport {
            distance_cm,
            visible: sight.visible,
            rule: sight.rule,
            detail: sight.detail,
            blocker: sight.by.as_ref().map(|b| b.name().to_string()),
            segment: sight.segment,
        }
    }
}

/// The distance from a point to a unit's nearest stand (0 on a stand).
fn point_gap(p: &PieceSight, at: Point) -> f64 {
    let gp = geo::Point::new(at.x, at.y);
    p.stands
        .iter()
        .map(|(_, poly)| -> f64 { Euclidean.distance(&gp, poly) })
        .fold(f64::INFINITY, f64::min)
}

/// The stand-in for a bare point ([`SightIndex::sight_between`]): a tiny command stand.
fn point_piece(id: PieceId, name: &str, at: Point) -> PieceSight {
    let stand = crate::geom::Stand {
        kind: StandKind::Command,
        centre: at,
        facing_deg: 0.0,
        width: POINT_STAND_CM,
        depth: POINT_STAND_CM,
    };
    let front = stand.front_edge();
    let fp = Footprint {
        stands: vec![stand],
        kind: StandKind::Command,
        arrangement: crate::geom::footprint::Arrangement::Single,
        at,
        facing_deg: 0.0,
        fronts: vec![front],
    };
    let source = PieceState {
        id,
        name: name.to_string(),
        troop_type: None,
        arm: None,
        command: Some((
            crate::model::CommandLevel::Brigade,
            crate::model::Quality::Average,
        )),
        pose: Some(super::state::Pose {
            at,
            facing_deg: 0.0,
        }),
        formation: None,
        limbered: false,
        stands: 1,
        hits: 0,
        suppressed_at: None,
        disordered_until: None,
        knocked_out: false,
        grade: Default::default(),
        dug_in: false,
        revealed: false,
        has_fired: false,
        orders: Default::default(),
        flank: Default::default(),
        prone: false,
    };
    PieceSight::new(
        source,
        fp,
        Flags {
            blocks: false,
            gun: false,
            concealed: false,
            dug_in: false,
            revealed_by_proximity: true,
            has_fired: false,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::{ConvexHull, MultiPoint};

    fn feature(class: SightTerrain, ring: &[(f64, f64)]) -> FeatureSight {
        let points: Vec<Point> = ring.iter().map(|&(x, y)| Point::new(x, y)).collect();
        FeatureSight {
            class,
            rect: rect_of(points.iter().copied()),
            shape: Shape::Area(ring_polygon(&points)),
            points,
            blocker: Blocker::Feature {
                id: FeatureId(0),
                name: String::new(),
            },
            massif: None,
            convex: true,
            turn: 0,
        }
    }

    fn square(x0: f64, y0: f64, side: f64) -> Vec<(f64, f64)> {
        vec![
            (x0, y0),
            (x0 + side, y0),
            (x0 + side, y0 + side),
            (x0, y0 + side),
        ]
    }

    #[test]
    fn vis_02_bridges_are_the_outer_tangents_of_the_corridor() {
        let p = [Point::new(0.0, 0.0), Point::new(10.0, 0.0)];
        let q = [Point::new(0.0, 50.0), Point::new(10.0, 50.0)];
        let corridor: Polygon<f64> = MultiPoint::new(
            p.iter()
                .chain(q.iter())
                .map(|c| geo::Point::new(c.x, c.y))
                .collect(),
        )
        .convex_hull();
        let Some((l, r)) = bridges(&corridor, &p, &q) else {
            panic!("two separate rows have two bridges");
        };
        let xs = {
            let mut v = [l.start.x, r.start.x];
            v.sort_by(f64::total_cmp);
            v
        };
        assert_eq!(xs, [0.0, 10.0]);
        assert_eq!((l.start.x - l.end.x).abs(), 0.0);
        // Interleaved rows (a point in both sets) give no bridges.
        assert!(bridges(
            &corridor,
            &p,
            &[Point::new(0.0, 0.0), Point::new(10.0, 50.0)]
        )
        .is_none());
    }

    #[test]
    fn vis_14_contours_group_into_massifs() {
        let mut f = vec![
            feature(SightTerrain::Hill { level: 1 }, &square(0.0, 0.0, 100.0)),
            feature(SightTerrain::Hill { level: 2 }, &square(20.0, 20.0, 20.0)),
            feature(SightTerrain::Hill { level: 2 }, &square(60.0, 60.0, 20.0)),
            feature(SightTerrain::Hill { level: 1 }, &square(200.0, 0.0, 50.0)),
            feature(SightTerrain::HighArea, &square(20.0, 20.0, 5.0)),
        ];
        let massifs = group_massifs(&mut f);
        assert_eq!(massifs.len(), 2);
        assert_eq!(
            f.iter().map(|x| x.massif).collect::<Vec<_>>(),
            vec![Some(0), Some(0), Some(0), Some(1), None]
        );
        let tree = BoxIndex::new(f.iter().enumerate().map(|(i, x)| (x.rect, i)));
        assert_eq!(level_at(&f, &tree, Point::new(30.0, 30.0)), (2, Some(0)));
        assert_eq!(level_at(&f, &tree, Point::new(50.0, 50.0)), (1, Some(0)));
        assert_eq!(level_at(&f, &tree, Point::new(150.0, 50.0)), (0, None));
    }

    /// A French and an Austrian side with one wood 40..60 × 30..70 cm and two units: a French
    /// battalion at (20, 10) facing +y and an Austrian one at (80, 10).
    fn ruler_table() -> (Scenario, Vec<crate::model::ArmyList>, BattleState) {
        let unit = |id: u32, hq: u32, troop: &str, x: f64| {
            serde_json::json!({"id": id, "name": format!("Battalion {id}"), "troop_type": troop,
                "stands": 4, "hq": hq,
                "position": {"at": {"x": x, "y": 10.0}, "facing_deg": 0.0}})
        };
        let hq = |id: u32| {
            serde_json::json!({"id": id, "name": format!("Brigade {id}"),
                "commander": {"id": id, "name": format!("General {id}"), "level": "brigade",
                              "quality": "average", "command_value": 7},
                "mounted": true, "position": null})
        };
        let s: Scenario = match serde_json::from_value(serde_json::json!({
            "format": 1, "id": "ruler", "name": "Ruler", "points": 1500, "turn_limit": 6,
            "year": 1809,
            "terrain": [{"id": 1, "name": "Great Wood", "kind": "high_area",
                "geometry": {"polygon": [{"x": 40.0, "y": 30.0}, {"x": 60.0, "y": 30.0},
                                         {"x": 60.0, "y": 70.0}, {"x": 40.0, "y": 70.0}]}}],
            "sides": [
                {"name": "A", "army_list": "nap-french", "hqs": [hq(1)],
                 "units": [unit(1, 1, "line-infantry-08-12", 20.0)]},
                {"name": "B", "army_list": "nap-austrian", "hqs": [hq(2)],
                 "units": [unit(2, 2, "line-infantry-07-15", 80.0)]}
            ]
        })) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        let lists = match crate::model::army::shipped_lists() {
            Ok(l) => l,
            Err(e) => panic!("{e}"),
        };
        let state = match BattleState::setup(&s, &lists, 0) {
            Ok(st) => st,
            Err(e) => panic!("{e}"),
        };
        (s, lists, state)
    }

    #[test]
    fn vis_07_a_wood_between_two_points_blocks_the_ruler() {
        let (s, lists, state) = ruler_table();
        let ctx = Ctx::new(&s, &lists, &state);
        let index = SightIndex::new(&ctx);
        // Across the wood's middle: 80 cm apart, the wood touches neither point (VIS-07).
        let r = index.sight_between(
            SightEnd::Point(Point::new(10.0, 50.0)),
            SightEnd::Point(Point::new(90.0, 50.0)),
        );
        assert!(!r.visible);
        assert_eq!(r.rule, "VIS-07");
        assert_eq!(r.blocker.as_deref(), Some("Great Wood"));
        assert!((r.distance_cm - 80.0).abs() < 1e-9, "{}", r.distance_cm);
        // Below the wood (y = 20): nothing in the way.
        let r = index.sight_between(
            SightEnd::Point(Point::new(10.0, 20.0)),
            SightEnd::Point(Point::new(90.0, 20.0)),
        );
        assert!(r.visible, "{r:?}");
        assert_eq!(r.rule, "VIS-02");
        assert_eq!(r.blocker, None);
        // Farther than the 100 cm limit of normal visibility (VIS-04): 0..130 along y = 90.
        let r = index.sight_between(
            SightEnd::Point(Point::new(0.0, 90.0)),
            SightEnd::Point(Point::new(130.0, 90.0)),
        );
        assert!(!r.visible);
        assert_eq!(r.rule, "VIS-04");
    }

    #[test]
    fn vis_02_ruler_between_units_and_from_a_point() {
        let (s, lists, state) = ruler_table();
        let ctx = Ctx::new(&s, &lists, &state);
        let index = SightIndex::new(&ctx);
        let fr = PieceId::Unit {
            side: 0,
            unit: crate::model::UnitId(1),
        };
        let au = PieceId::Unit {
            side: 1,
            unit: crate::model::UnitId(2),
        };
        // Two units: the engine's own sight and edge gap.
        let r = index.sight_between(SightEnd::Piece(fr), SightEnd::Piece(au));
        assert_eq!(r.visible, index.sight(fr, au).visible);
        assert_eq!(Some(r.distance_cm), index.edge_gap(fr, au));
        // A point straight above the French front edge's centre (20, 10), 30 cm on: the
        // French stands' front edge lies along y = 10, so the gap is 30 cm, and the wood (x
        // from 40) is not in the way.
        let r = index.sight_between(SightEnd::Piece(fr), SightEnd::Point(Point::new(20.0, 40.0)));
        assert!(r.visible, "{r:?}");
        assert!((r.distance_cm - 30.0).abs() < 1e-9, "{}", r.distance_cm);
        // From the middle of the wood's far side to the Austrians: the point stands 10 cm
        // inside nothing (x = 70 is past the wood), clear.
        let r = index.sight_between(SightEnd::Point(Point::new(70.0, 50.0)), SightEnd::Piece(au));
        assert!(r.visible, "{r:?}");
        // From the far side of the wood, across it, to the French: blocked by the wood.
        let r = index.sight_between(SightEnd::Point(Point::new(50.0, 90.0)), SightEnd::Piece(fr));
        assert!(!r.visible, "{r:?}");
        assert_eq!(r.rule, "VIS-07");
    }

    #[test]
    fn vis_04_weather_limits() {
        let mut s: Scenario = match serde_json::from_value(serde_json::json!({
            "format": 1, "id": "t", "name": "t", "points": 1000, "turn_limit": 6, "sides": []
        })) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            visibility_limit_cm(&s, Weather::Extreme),
            NORMAL_VISIBILITY_CM
        );
        s.optional_rules = vec![OptionalRule::Weather];
        assert_eq!(visibility_limit_cm(&s, Weather::Night), POOR_VISIBILITY_CM);
        assert_eq!(
            visibility_limit_cm(&s, Weather::Extreme),
            EXTREME_VISIBILITY_CM
        );
    }
}
