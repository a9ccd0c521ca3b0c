//! The line-of-sight implementation as it stood before the speed work of issue 3 (commit
//! c6f5889, `src/rules/visibility.rs`), kept verbatim as the reference the optimised
//! `SightIndex` must agree with verdict for verdict, rule for rule, blocker for blocker and
//! segment for segment (`tests/engine_visibility_equivalence.rs`). Only the paths changed
//! (`crate::` to `powderhorn::`) and the index is renamed `RefIndex`; the public types
//! (`Sight`, `Blocker`, `SightParams`, the constants) are the engine's own.
//!
//! Do not "improve" this file: it is the specification the fast path is checked against.
//!
//! One deliberate change since (2026-11-25, `docs/decisions.md` "Line of sight: the corridor
//! walk"): the corridor proof asked `intersects` of the polygon overlay's pieces and a bridge,
//! and the overlay rounds its pieces to a grid, so a piece running along a bridge usually
//! landed a hair inside it and a wood that plainly cut the corridor was not counted (the
//! verdict never changed, only which blocked segment was reported). A piece now touches a
//! bridge when it comes within 1e-5 cm of it.

#![allow(dead_code, clippy::all)]

use geo::orient::{Direction, Orient};
use geo::{
    BooleanOps, Contains, ConvexHull, Distance, Euclidean, Intersects, IsConvex, Line, LineString,
    MultiPoint, Polygon,
};
use powderhorn::geom::footprint::{rect_of, ring_polygon};
use powderhorn::geom::segment::{
    footprint_boundary_distance, footprint_polyline_distance, inside_intervals, rect_gap,
    rects_overlap, Segment,
};
use powderhorn::geom::{
    crest_line, sight_arc_contains, BoxIndex, CrestLine, Footprint, Point, Rect, StandKind,
};
use powderhorn::model::Geometry;
use powderhorn::rules::geometry::{footprint_of, is_skirmisher, stand_kind};
use powderhorn::rules::visibility::{
    check_dug_in, defense_blocks_sight, sight_terrain, Blocker, Sight, SightParams, SightTerrain,
    CONCEALED_SEEN_CM, DUG_IN_REVEAL_CM, HIDDEN_GUN_REVEAL_CM, HIGH_AREA_SEEN_CM, LOW_AREA_SEEN_CM,
    LOW_CROSSING_CM,
};
use powderhorn::rules::{Ctx, PieceId};
use std::collections::BTreeMap;

const TRIM_CM: f64 = 1e-3;

fn coord(p: Point) -> geo::Coord<f64> {
    geo::Coord { x: p.x, y: p.y }
}

trait Hidden {
    fn hidden(rule: &'static str, detail: String, by: Option<Blocker>, distance_cm: f64) -> Sight;
}

impl Hidden for Sight {
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
    id: PieceId,
    name: String,
    footprint: Footprint,
    rect: Rect,
    outline: Polygon<f64>,
    samples: Vec<Point>,
    centroid: Point,
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
    /// Hill level and massif under the centroid (0 / None on the table).
    level: u8,
    massif: Option<usize>,
    /// Each stand's bounding rectangle and polygon, made once.
    stands: Vec<(Rect, Polygon<f64>)>,
    /// Area pieces the unit stands well inside (not at their edge), with each sample point's
    /// distance to the edge: VIS-12 bounds how deep a point can be seen or see out.
    deep: Vec<Deep>,
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
        // The nearest pair of rectangles first, then only pairs that could beat it.
        let mut best_pair: Option<(f64, usize, usize)> = None;
        for (i, (ra, _)) in self.stands.iter().enumerate() {
            for (j, (rb, _)) in other.stands.iter().enumerate() {
                let g = rect_gap(ra, rb);
                if best_pair.is_none_or(|(b, _, _)| g < b) {
                    best_pair = Some((g, i, j));
                }
            }
        }
        let Some((_, bi, bj)) = best_pair else {
            return 0.0;
        };
        let dist = |a: &Polygon<f64>, b: &Polygon<f64>| -> f64 { Euclidean.distance(a, b) };
        let mut best = match (self.stands.get(bi), other.stands.get(bj)) {
            (Some((_, a)), Some((_, b))) => dist(a, b),
            _ => f64::INFINITY,
        };
        for (i, (ra, pa)) in self.stands.iter().enumerate() {
            for (j, (rb, pb)) in other.stands.iter().enumerate() {
                if best <= 0.0 {
                    return 0.0;
                }
                if (i, j) != (bi, bj) && rect_gap(ra, rb) < best {
                    best = best.min(dist(pa, pb));
                }
            }
        }
        if best.is_finite() {
            best
        } else {
            0.0
        }
    }

    /// Distance from a point to the nearest stand (0 inside one).
    fn to_point(&self, p: Point) -> f64 {
        let gp = geo::Point::new(p.x, p.y);
        let here = Rect { min: p, max: p };
        let mut best = f64::INFINITY;
        for (r, poly) in &self.stands {
            if rect_gap(r, &here) < best {
                let d: f64 = Euclidean.distance(&gp, poly);
                best = best.min(d);
            }
        }
        best
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
/// sample points, terrain shapes and two R*-trees (pieces and features).
#[derive(Debug, Clone)]
pub struct RefIndex {
    params: SightParams,
    pieces: Vec<PieceSight>,
    by_id: BTreeMap<PieceId, usize>,
    piece_tree: BoxIndex,
    features: Vec<FeatureSight>,
    feature_tree: BoxIndex,
    massifs: Vec<Massif>,
}

fn line_string(points: &[Point]) -> LineString<f64> {
    LineString::from(points.iter().map(|p| coord(*p)).collect::<Vec<_>>())
}

fn contains_point(poly: &Polygon<f64>, p: Point) -> bool {
    poly.contains(&geo::Point::new(p.x, p.y))
}

impl RefIndex {
    /// Builds the index for the current state with the scenario's weather.
    pub fn new(ctx: &Ctx) -> RefIndex {
        RefIndex::with_params(ctx, SightParams::of(ctx))
    }

    pub fn with_params(ctx: &Ctx, params: SightParams) -> RefIndex {
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
            features.push(FeatureSight {
                class,
                points: f.geometry.points().to_vec(),
                rect: rect_of(f.geometry.points().iter().copied()),
                convex: matches!(&shape, Shape::Area(p) if p.exterior().is_convex()),
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
                features.push(FeatureSight {
                    class: SightTerrain::Linear,
                    points: d.at.clone(),
                    rect: rect_of(d.at.iter().copied()),
                    shape: Shape::Line {
                        line: line_string(&d.at),
                        half_width: 0.0,
                    },
                    blocker: Blocker::Defense {
                        id: d.id,
                        side,
                        name: d.kind.label().to_string(),
                    },
                    massif: None,
                    convex: false,
                });
            }
        }
        let massifs = group_massifs(&mut features);
        let feature_tree = BoxIndex::new(features.iter().enumerate().map(|(i, f)| (f.rect, i)));

        let mut pieces = Vec::new();
        for p in ctx.state.pieces.values() {
            let Some(fp) = footprint_of(ctx, p) else {
                continue;
            };
            let kind = stand_kind(ctx, p);
            let gun = kind == StandKind::Artillery;
            let unlimbered_gun = gun && !p.limbered;
            let command = kind == StandKind::Command;
            let lawful_dug_in = p.dug_in && check_dug_in(ctx, p).is_ok();
            let revealed = p.revealed || p.has_fired;
            let centroid = fp.centroid();
            let (level, massif) = level_at(&features, &feature_tree, centroid);
            let proximity_kind = match kind {
                StandKind::Infantry | StandKind::Cavalry | StandKind::Command => true,
                StandKind::Artillery => !p.limbered,
                StandKind::Transport => false,
            };
            pieces.push(PieceSight {
                id: p.id,
                name: p.name.clone(),
                rect: fp.bounding_rect(),
                outline: fp.outline().orient(Direction::Default),
                samples: fp.outline_samples(),
                centroid,
                blocks: !(command || unlimbered_gun || is_skirmisher(ctx, p)),
                gun,
                concealed: unlimbered_gun || (lawful_dug_in && !revealed),
                dug_in: lawful_dug_in && !revealed,
                revealed_by_proximity: proximity_kind,
                has_fired: p.has_fired,
                level,
                massif,
                deep: Vec::new(),
                stands: fp
                    .stands
                    .iter()
                    .map(|s| (s.bounding_rect(), s.polygon()))
                    .collect(),
                footprint: fp,
            });
        }
        for p in pieces.iter_mut() {
            p.deep = deep_areas(&features, &feature_tree, p, params.contact_cm);
        }
        let by_id = pieces.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
        let piece_tree = BoxIndex::new(pieces.iter().enumerate().map(|(i, p)| (p.rect, i)));
        RefIndex {
            params,
            pieces,
            by_id,
            piece_tree,
            features,
            feature_tree,
            massifs,
        }
    }

    pub fn params(&self) -> SightParams {
        self.params
    }

    /// The footprint the index holds for a piece (`None` off the table).
    pub fn footprint(&self, id: PieceId) -> Option<&Footprint> {
        self.by_id
            .get(&id)
            .and_then(|&i| self.pieces.get(i))
            .map(|p| &p.footprint)
    }

    /// Is an enemy of `of` (a piece of another side) within `cm` of it?
    fn enemy_within(&self, of: &PieceSight, cm: f64) -> bool {
        self.piece_tree.query_within(&of.rect, cm).any(|j| {
            self.pieces.get(j).is_some_and(|q| {
                q.id.side() != of.id.side() && rect_gap(&q.rect, &of.rect) <= cm && q.gap(of) <= cm
            })
        })
    }

    /// Linear features (terrain or works) the piece is in base contact with, whose line crosses
    /// the segment between the two centroids (VIS-08, VIS-17 "behind").
    fn behind_linear(&self, target: &PieceSight, from: Point) -> Option<usize> {
        let seg = Segment::new(from, target.centroid);
        let grown = grow(&target.rect, self.params.contact_cm + 1.0);
        self.feature_tree.query(&grown).find(|&fi| {
            let Some(f) = self.features.get(fi) else {
                return false;
            };
            let Shape::Line { line, half_width } = &f.shape else {
                return false;
            };
            footprint_polyline_distance(&target.footprint, line)
                <= half_width + self.params.contact_cm
                && seg.line().intersects(line)
        })
    }

    /// Area features whose inside holds the piece's centroid, with whether the piece touches
    /// the boundary.
    fn areas_holding(&self, p: &PieceSight) -> Vec<(usize, bool)> {
        let probe = Rect {
            min: p.centroid,
            max: p.centroid,
        };
        let mut out: Vec<(usize, bool)> = self
            .feature_tree
            .query(&probe)
            .filter_map(|fi| {
                let f = self.features.get(fi)?;
                let Shape::Area(poly) = &f.shape else {
                    return None;
                };
                if !matches!(f.class, SightTerrain::LowArea | SightTerrain::HighArea)
                    || !contains_point(poly, p.centroid)
                {
                    return None;
                }
                let at_edge =
                    footprint_boundary_distance(&p.footprint, poly) <= self.params.contact_cm;
                Some((fi, at_edge))
            })
            .collect();
        out.sort();
        out
    }

    /// VIS-01..VIS-17: can `observer` see `target`?
    pub fn sight(&self, observer: PieceId, target: PieceId) -> Sight {
        let (Some(&oi), Some(&ti)) = (self.by_id.get(&observer), self.by_id.get(&target)) else {
            let missing = if self.by_id.contains_key(&observer) {
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
                detail: format!("{} sees itself", o.name),
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
        // VIS-03.
        let targets: Vec<Point> = t
            .samples
            .iter()
            .copied()
            .filter(|p| sight_arc_contains(&o.footprint, *p))
            .collect();
        if targets.is_empty() {
            return Sight::hidden(
                "VIS-03",
                format!("{} is outside {}'s sight arc", t.name, o.name),
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
                if let Some(fi) = self.behind_linear(t, o.centroid) {
                    return Sight::hidden(
                        "VIS-17",
                        format!("{} is dug in behind {}", t.name, self.feature_name(fi)),
                        self.features.get(fi).map(|f| f.blocker.clone()),
                        distance,
                    );
                }
                if let Some((fi, _)) = self.areas_holding(t).into_iter().find(|(_, edge)| *edge) {
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
                .or_else(|| self.behind_linear(t, o.centroid));
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
        let mut sources: Vec<Point> = o
            .samples
            .iter()
            .copied()
            .filter(|p| sight_arc_contains(&o.footprint, *p))
            .collect();
        // VIS-12: points deeper in a wood than it can be seen into or out of see nothing.
        let looks_down = o.level >= 1 && o.level > t.level;
        let scale = self.params.measure_scale;
        let mut targets = targets;
        for d in &t.deep {
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
            targets.retain(|q| deep_at(t, d, *q) <= limit + 1e-9);
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
        for d in &o.deep {
            if (!d.high && looks_down) || self.area_touches(d.feature, t) {
                continue;
            }
            let limit = if d.high {
                HIGH_AREA_SEEN_CM
            } else {
                LOW_AREA_SEEN_CM
            } * scale;
            sources.retain(|p| deep_at(o, d, *p) <= limit + 1e-9);
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
        self.features.get(fi).is_some_and(|f| match &f.shape {
            Shape::Area(poly) => rects_overlap(&f.rect, &p.rect) && poly.intersects(&p.outline),
            Shape::Line { .. } => false,
        })
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
        let env = union_rect(&o.rect, &t.rect);
        // Every point between the two units lies within `reach` of the line joining their
        // rectangles' centres, so nothing farther from it can be in the way.
        let spine = Line::new(coord(rect_centre(&o.rect)), coord(rect_centre(&t.rect)));
        let reach = half_diagonal(&o.rect).max(half_diagonal(&t.rect));
        let near_spine = |r: &Rect| -> bool {
            let c = rect_centre(r);
            let d: f64 = Euclidean.distance(&geo::Point::new(c.x, c.y), &spine);
            d <= reach + half_diagonal(r) + 1e-6
        };
        let mut units: Vec<&PieceSight> = self
            .piece_tree
            .query(&env)
            .filter_map(|j| self.pieces.get(j))
            .filter(|q| q.blocks && q.id != o.id && q.id != t.id && near_spine(&q.rect))
            .collect();
        units.sort_by_key(|q| q.id);
        let mut linears: Vec<LinearCheck> = Vec::new();
        let mut areas: Vec<AreaRef> = Vec::new();
        let mut massif_ids: Vec<usize> = Vec::new();
        let mut feats: Vec<usize> = self.feature_tree.query(&env).collect();
        feats.sort_unstable();
        for fi in feats {
            let Some(f) = self.features.get(fi) else {
                continue;
            };
            if !near_spine(&f.rect) {
                continue;
            }
            match f.class {
                SightTerrain::Linear => linears.push(LinearCheck {
                    feature: fi,
                    exempt: None,
                }),
                SightTerrain::LowArea | SightTerrain::HighArea => {
                    let Shape::Area(poly) = &f.shape else {
                        continue;
                    };
                    let touches = |p: &PieceSight| {
                        rects_overlap(&f.rect, &p.rect) && poly.intersects(&p.outline)
                    };
                    let opaque = f.class == SightTerrain::HighArea && !touches(o) && !touches(t);
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
        let mut sources = sources.to_vec();
        let mut targets = targets.to_vec();
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
            points.retain(|p| {
                crest.on_or_towards(*p, lower_ref) || !poly.intersects(&geo::Point::new(p.x, p.y))
            });
            if points.is_empty() {
                let upper = if upper_is_observer { o } else { t };
                return Sight::hidden(
                    "VIS-14",
                    format!("{} is behind the crest of {}", upper.name, f.blocker.name()),
                    Some(f.blocker.clone()),
                    distance,
                );
            }
        }
        let (sources, targets) = (&sources[..], &targets[..]);
        let corridor: Polygon<f64> = MultiPoint::new(
            sources
                .iter()
                .chain(targets.iter())
                .map(|p| geo::Point::new(p.x, p.y))
                .collect(),
        )
        .convex_hull();
        let scene = Scene {
            o,
            t,
            units: &units,
            hills: &hills,
            areas: &areas,
            looks_down: o.level >= 1 && o.level > t.level,
            explain: false,
        };
        let explained = Scene {
            explain: true,
            ..scene
        };
        let hidden = |block: Block, seg: &Segment| Sight {
            visible: false,
            rule: block.rule,
            detail: block.detail,
            by: block.by,
            segment: Some((seg.a, seg.b)),
            distance_cm: distance,
            exceptions: Vec::new(),
        };
        if self.separated(&scene, sources, targets, &corridor) {
            if let Some(first) = pairs(sources, targets, limit).next() {
                if let Err(block) = self.test_segment(&explained, &first, &mut linears) {
                    return hidden(block, &first);
                }
            }
        }
        // Sampling (VIS-02): target points behind the target's own bases, as seen from the
        // observer, add nothing a point on its near side does not.
        let from = Point::new(
            sources.iter().map(|p| p.x).sum::<f64>() / sources.len().max(1) as f64,
            sources.iter().map(|p| p.y).sum::<f64>() / sources.len().max(1) as f64,
        );
        let near: Vec<Point> = targets
            .iter()
            .copied()
            .filter(|q| {
                !Segment::new(from, *q)
                    .trimmed(TRIM_CM)
                    .line()
                    .intersects(&t.outline)
            })
            .collect();
        let targets: &[Point] = if near.is_empty() { targets } else { &near };
        let mut first: Option<Sight> = None;
        let mut hint: Option<Hint> = None;
        let mut tried = false;
        for seg in pairs(sources, targets, limit) {
            tried = true;
            if let Some(h) = hint {
                if self.still_blocks(&scene, h, &seg, &mut linears) {
                    continue;
                }
            }
            let sc = if first.is_none() { &explained } else { &scene };
            match self.test_segment(sc, &seg, &mut linears) {
                Ok(exceptions) => {
                    return Sight {
                        visible: true,
                        rule: "VIS-02",
                        detail: format!("{} sees {}", o.name, t.name),
                        by: None,
                        segment: Some((seg.a, seg.b)),
                        distance_cm: distance,
                        exceptions,
                    };
                }
                Err(block) => {
                    hint = block.hint;
                    if first.is_none() {
                        first = Some(hidden(block, &seg));
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
                format!("{} cannot see {}", o.name, t.name),
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
        let line_rect = |l: &Line<f64>| {
            rect_of([
                Point::new(l.start.x, l.start.y),
                Point::new(l.end.x, l.end.y),
            ])
        };
        let (left_rect, right_rect) = (line_rect(&left), line_rect(&right));
        let cuts = |poly: &Polygon<f64>, rect: &Rect, convex: bool| -> bool {
            if !rects_overlap(rect, &left_rect)
                || !rects_overlap(rect, &right_rect)
                || !poly.intersects(&left)
                || !poly.intersects(&right)
            {
                return false;
            }
            let touches =
                |p: &PieceSight| rects_overlap(rect, &p.rect) && poly.intersects(&p.outline);
            if touches(scene.o) || touches(scene.t) {
                return false;
            }
            // The overlay's pieces are rounded to its grid: a piece's edge along a bridge can
            // land a hair inside it, so "touches" is "within 1e-5 cm" (see the header).
            let touches = |c: &Polygon<f64>, l: &Line<f64>| -> bool {
                let d: f64 = Euclidean.distance(c, l);
                d < 1e-5
            };
            convex
                || corridor
                    .intersection(poly)
                    .0
                    .iter()
                    .any(|c| touches(c, &left) && touches(c, &right))
        };
        if scene.units.iter().any(|q| cuts(&q.outline, &q.rect, true)) {
            return true;
        }
        let high = scene.areas.iter().filter(|a| a.opaque).map(|a| a.feature);
        let opaque_hills = scene.hills.iter().filter_map(|h| match *h {
            HillRule::Opaque { base } => Some(base),
            _ => None,
        });
        high.chain(opaque_hills).any(|fi| {
            self.features.get(fi).is_some_and(|f| match &f.shape {
                Shape::Area(poly) => cuts(poly, &f.rect, f.convex),
                Shape::Line { .. } => false,
            })
        })
    }

    fn hill_rule(&self, m: usize, o: &PieceSight, t: &PieceSight) -> Option<HillRule> {
        let massif = self.massifs.get(m)?;
        let base = massif.base;
        let o_on = o.massif == Some(m);
        let t_on = t.massif == Some(m);
        if !o_on && !t_on {
            return Some(HillRule::Opaque { base });
        }
        if o_on && t_on && o.level == t.level {
            return Some(HillRule::SameLevel { base });
        }
        // VIS-14 (b): on the same hill the lower is "on lower ground"; otherwise the one off it.
        let upper_is_observer = if o_on && t_on {
            o.level > t.level
        } else {
            o_on
        };
        let (upper, lower) = if upper_is_observer { (o, t) } else { (t, o) };
        let top = self.top_contour(massif, upper.centroid)?;
        let crest = crest_line(top, lower.footprint.facing_deg)?;
        Some(HillRule::Crest {
            base,
            crest,
            upper_is_observer,
            lower_ref: lower.centroid,
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
        seg: &Segment,
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
                self.check_area(scene, *a, seg, &mut tally).is_err()
            }),
        }
    }

    fn unit_blocks(&self, q: &PieceSight, seg: &Segment) -> bool {
        rects_overlap(&q.rect, &seg.bounding_rect())
            && seg.trimmed(TRIM_CM).line().intersects(&q.outline)
    }

    /// One segment against everything in the way, in the catalogue's order: the exceptions
    /// it relied on, or why it is blocked.
    fn test_segment(
        &self,
        scene: &Scene,
        seg: &Segment,
        linears: &mut [LinearCheck],
    ) -> Result<Vec<&'static str>, Block> {
        let mut used: Vec<&'static str> = Vec::new();
        // VIS-07 (3): other units.
        for (i, q) in scene.units.iter().enumerate() {
            if self.unit_blocks(q, seg) {
                return Err(Block {
                    rule: "VIS-07",
                    detail: scene.say(|| format!("{} is in the way", q.name)),
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
            match self.check_area(scene, *a, seg, &mut tally) {
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
        seg: &Segment,
    ) -> Result<Option<&'static str>, Block> {
        let Some(f) = self.features.get(lc.feature) else {
            return Ok(None);
        };
        let Shape::Line {
            line: ls,
            half_width,
        } = &f.shape
        else {
            return Ok(None);
        };
        if !rects_overlap(&f.rect, &seg.bounding_rect())
            || !seg.trimmed(TRIM_CM).line().intersects(ls)
        {
            return Ok(None);
        }
        let t = scene.t;
        let (contact, dug_in_against) = self.linear_facts(scene, lc, ls, *half_width, &f.rect);
        if dug_in_against {
            return Err(Block {
                rule: "VIS-17",
                detail: scene.say(|| format!("{} is dug in behind {}", t.name, f.blocker.name())),
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
    fn linear_facts(
        &self,
        scene: &Scene,
        lc: &mut LinearCheck,
        ls: &LineString<f64>,
        half_width: f64,
        rect: &Rect,
    ) -> (bool, bool) {
        let (o, t) = (scene.o, scene.t);
        *lc.exempt.get_or_insert_with(|| {
            let reach = half_width + self.params.contact_cm;
            let touch =
                |p: &PieceSight| rect_gap(rect, &p.rect) <= reach && p.to_line(ls, rect) <= reach;
            let (o_touch, t_touch) = (touch(o), touch(t));
            (
                o_touch || t_touch,
                t_touch && t.dug_in && o.id.side() != t.id.side(),
            )
        })
    }

    /// VIS-06 and VIS-14.
    fn check_hill(
        &self,
        scene: &Scene,
        h: &HillRule,
        seg: &Segment,
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
        if !rects_overlap(&f.rect, &seg.bounding_rect()) || !seg.line().intersects(poly) {
            return Ok(None);
        }
        match *h {
            HillRule::Opaque { .. } => {
                // Ruling (c): whatever meets the footprint of a hill neither unit stands on.
                if !seg.trimmed(TRIM_CM).line().intersects(poly) {
                    return Ok(None);
                }
                Err(Block {
                    rule: "VIS-14",
                    detail: scene.say(|| format!("the hill {} is in the way", f.blocker.name())),
                    by: scene.name(|| f.blocker.clone()),
                    hint: None,
                })
            }
            HillRule::SameLevel { .. } => Ok(Some("VIS-06")),
            HillRule::Crest {
                crest,
                upper_is_observer,
                lower_ref,
                ..
            } => {
                let upper_pt = if upper_is_observer { seg.a } else { seg.b };
                if crest.on_or_towards(upper_pt, lower_ref) {
                    return Ok(Some("VIS-14"));
                }
                let upper = if upper_is_observer { scene.o } else { scene.t };
                Err(Block {
                    rule: "VIS-14",
                    detail: scene.say(|| {
                        format!("{} is behind the crest of {}", upper.name, f.blocker.name())
                    }),
                    by: scene.name(|| f.blocker.clone()),
                    hint: None,
                })
            }
        }
    }

    /// VIS-07 (high area crossings), VIS-11, VIS-12, VIS-13 and VIS-15 for one area piece.
    /// `low_crossed` carries the one low piece already crossed (VIS-13) between calls.
    fn check_area(
        &self,
        scene: &Scene,
        area: AreaRef,
        seg: &Segment,
        low_crossed: &mut Option<(usize, f64)>,
    ) -> Result<Vec<&'static str>, Block> {
        let mut used = Vec::new();
        let fi = area.feature;
        let Some(f) = self.features.get(fi) else {
            return Ok(used);
        };
        let Shape::Area(poly) = &f.shape else {
            return Ok(used);
        };
        if !rects_overlap(&f.rect, &seg.bounding_rect()) {
            return Ok(used);
        }
        if area.opaque {
            // Touches neither unit: whatever part of the line meets it is a crossing (VIS-07).
            if seg.trimmed(TRIM_CM).line().intersects(poly) {
                return Err(Block {
                    rule: "VIS-07",
                    detail: scene.say(|| format!("{} is in the way", f.blocker.name())),
                    by: scene.name(|| f.blocker.clone()),
                    hint: None,
                });
            }
            return Ok(used);
        }
        let (o, t) = (scene.o, scene.t);
        let high = f.class == SightTerrain::HighArea;
        let intervals = inside_intervals(poly, seg);
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
                if o.to_point(seg.at(to)) <= self.params.contact_cm {
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
                if t.to_point(seg.at(from)) <= self.params.contact_cm {
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
                    scene.say(|| format!("{what} is in the way")),
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
                    scene.say(|| format!("the line crosses a second piece of low terrain, {what}")),
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

/// What blocked the last segment, to try first on the next.
#[derive(Debug, Clone, Copy)]
enum Hint {
    Unit(usize),
    Linear(usize),
    Hill(usize),
    Area(usize),
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
    let same =
        |c: &geo::Coord<f64>, x: &Point| (c.x - x.x).abs() < 1e-9 && (c.y - x.y).abs() < 1e-9;
    let mut sides = Vec::with_capacity(n);
    for c in ring.iter().take(n) {
        let in_p = p.iter().any(|x| same(c, x));
        let in_q = q.iter().any(|x| same(c, x));
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

fn grow(r: &Rect, d: f64) -> Rect {
    Rect {
        min: Point::new(r.min.x - d, r.min.y - d),
        max: Point::new(r.max.x + d, r.max.y + d),
    }
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
fn deep_at(p: &PieceSight, d: &Deep, q: Point) -> f64 {
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
    contact: f64,
) -> Vec<Deep> {
    let probe = Rect {
        min: p.centroid,
        max: p.centroid,
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
            if !contains_point(poly, p.centroid)
                || footprint_boundary_distance(&p.footprint, poly) <= contact
            {
                return None;
            }
            let depth = p
                .samples
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

impl RefIndex {
    /// The enemies `piece` can see, nearest first (ties by id): the pool "nearest enemy" and
    /// target choices draw from (§1.5, VIS-01).
    pub fn visible_enemies(&self, piece: PieceId) -> Vec<(PieceId, f64)> {
        let Some(o) = self.by_id.get(&piece).and_then(|&i| self.pieces.get(i)) else {
            return Vec::new();
        };
        let mut out: Vec<(PieceId, f64)> = Vec::new();
        for j in self.piece_tree.query_within(&o.rect, self.params.limit_cm) {
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
    /// lowest id, and [`RefIndex::visible_enemies`] lists the tied ones).
    pub fn nearest_visible_enemy(&self, piece: PieceId) -> Option<(PieceId, f64)> {
        self.visible_enemies(piece).into_iter().next()
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
