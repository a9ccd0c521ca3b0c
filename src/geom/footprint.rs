//! Bases and footprints: where a unit's stands lie on the table, and the geometry the rules ask
//! of them — edge-to-edge distance, contact, the sight arc, the fire cone, front/flank/rear and
//! the crest line of a hill.
//!
//! # The reference point
//!
//! A unit's pose (`rules::Pose`) is one point and a facing. The point is **the centre of the
//! front edge of the formation**: for line and extended line the middle of the whole front (where
//! the unit command stand stands, MOVE-11); for march and attack column the middle of the leading
//! rank's front; for square the middle of the front face's outer edge; for a disordered unit
//! (the rough circle of MOVE-19) the middle of the unit command stand's front edge; for a single
//! stand (command units, one-stand units) its own front-edge centre; for a limbered gun the
//! front of the limber (the vehicle leads, the gun trails behind facing backwards, MOVE-23).
//! Everything else — the stand rectangles — is derived from that point, the facing, the
//! stand count, the arrangement and the base size, so a footprint is never stored, only computed.
//!
//! # Directions
//!
//! Facing is in degrees, 0 = towards +y, clockwise (so 90 = towards +x). The unit vector of a
//! facing is `(sin θ, cos θ)`; "right" of a facing is `(cos θ, −sin θ)`.
//!
//! # What this module does not know
//!
//! Formations, troop rows, terrain kinds and the rules' exceptions (march column always hit in
//! the flank, squares never) live in `rules`; geom has its own small enums ([`StandKind`],
//! [`Arrangement`]) and answers geometric questions only.

use super::{Point, Rect};
use geo::{
    BoundingRect, Centroid, ConvexHull, Coord, Distance, Euclidean, Intersects, LineString,
    MultiPoint, MultiPolygon, Polygon,
};
use serde::{Deserialize, Serialize};
use std::cell::OnceCell;

/// Half-width of the fire cone's splay (FIRE-04): 15° outward from straight ahead on each side.
pub const FIRE_CONE_SPLAY_DEG: f64 = 15.0;

/// Rounding slack for "on the line" tests, in cm: far below anything a tape measure resolves.
pub const EPS: f64 = 1e-6;

/// The unit vector of a facing (0 = +y, clockwise).
pub fn heading(facing_deg: f64) -> Point {
    let r = facing_deg.to_radians();
    Point::new(r.sin(), r.cos())
}

/// The unit vector to the right of a facing.
pub fn right_of(facing_deg: f64) -> Point {
    let r = facing_deg.to_radians();
    Point::new(r.cos(), -r.sin())
}

/// Bearing of `to` seen from `from`, in the facing convention (0 = +y, clockwise), in [0, 360).
pub fn bearing_deg(from: Point, to: Point) -> f64 {
    let b = (to.x - from.x).atan2(to.y - from.y).to_degrees();
    b.rem_euclid(360.0)
}

/// An angle folded into (−180, 180].
pub fn normalize_deg(a: f64) -> f64 {
    let r = a.rem_euclid(360.0);
    if r > 180.0 {
        r - 360.0
    } else {
        r
    }
}

fn add(p: Point, v: Point, k: f64) -> Point {
    Point::new(p.x + v.x * k, p.y + v.y * k)
}

fn dot(a: Point, b: Point) -> f64 {
    a.x * b.x + a.y * b.y
}

fn sub(a: Point, b: Point) -> Point {
    Point::new(a.x - b.x, a.y - b.y)
}

pub(crate) fn coord(p: Point) -> Coord<f64> {
    Coord { x: p.x, y: p.y }
}

pub(crate) fn point(c: Coord<f64>) -> Point {
    Point::new(c.x, c.y)
}

/// The corners of a `width` × `depth` rectangle centred on `centre`, facing along the unit
/// vector `f` with `r` to its right (front-left, front-right, rear-right, rear-left): a
/// stand's corners ([`Stand::corners`]) for a caller that has the axes already.
pub fn rect_corners(centre: Point, width: f64, depth: f64, f: Point, r: Point) -> [Point; 4] {
    let (hw, hd) = (width / 2.0, depth / 2.0);
    let front = add(centre, f, hd);
    let rear = add(centre, f, -hd);
    [
        add(front, r, -hw),
        add(front, r, hw),
        add(rear, r, hw),
        add(rear, r, -hw),
    ]
}

/// A closed `geo` polygon from a ring of table points (first point not repeated).
pub fn ring_polygon(ring: &[Point]) -> Polygon<f64> {
    // Closed here, as `Polygon::new` would close it, with room for the closing point made at
    // once (closing it there grows the list: a second allocation and a copy).
    let mut coords = Vec::with_capacity(ring.len() + 1);
    coords.extend(ring.iter().map(|p| coord(*p)));
    if let (Some(&first), Some(&last)) = (coords.first(), coords.last()) {
        if first != last {
            coords.push(first);
        }
    }
    Polygon::new(LineString::from(coords), vec![])
}

/// The kinds of base the rules size differently (BAS-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StandKind {
    Infantry,
    Cavalry,
    Artillery,
    Transport,
    Command,
}

impl StandKind {
    /// BAS-03: (frontage, depth) in cm at measure scale 1. Command stands are 3 × 3 cm by the
    /// BAS-03 ruling (the book leaves them to the figures).
    pub const fn base_cm(self) -> (f64, f64) {
        match self {
            StandKind::Infantry => (2.5, 1.5),
            StandKind::Cavalry => (3.5, 2.0),
            StandKind::Artillery => (2.5, 2.5),
            StandKind::Transport => (2.5, 3.5),
            StandKind::Command => (3.0, 3.0),
        }
    }
}

/// One base: an oriented rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stand {
    pub kind: StandKind,
    pub centre: Point,
    pub facing_deg: f64,
    /// Frontage, cm.
    pub width: f64,
    pub depth: f64,
}

impl Stand {
    /// A stand of `kind` at its base size × `measure_scale`.
    pub fn new(kind: StandKind, centre: Point, facing_deg: f64, measure_scale: f64) -> Stand {
        let (w, d) = kind.base_cm();
        Stand {
            kind,
            centre,
            facing_deg,
            width: w * measure_scale,
            depth: d * measure_scale,
        }
    }

    /// Front-left, front-right, rear-right, rear-left.
    pub fn corners(&self) -> [Point; 4] {
        let (f, r) = (heading(self.facing_deg), right_of(self.facing_deg));
        rect_corners(self.centre, self.width, self.depth, f, r)
    }

    pub fn front_edge(&self) -> FrontEdge {
        let [fl, fr, _, _] = self.corners();
        FrontEdge {
            left: fl,
            right: fr,
            facing_deg: self.facing_deg,
        }
    }

    pub fn polygon(&self) -> Polygon<f64> {
        ring_polygon(&self.corners())
    }

    /// VIS-02 sample points: the four corners, the four edge midpoints and the centre.
    pub fn sample_points(&self) -> [Point; 9] {
        let [a, b, c, d] = self.corners();
        let mid = |p: Point, q: Point| Point::new((p.x + q.x) / 2.0, (p.y + q.y) / 2.0);
        [
            mid(a, b),
            a,
            b,
            mid(b, c),
            mid(d, a),
            self.centre,
            c,
            d,
            mid(c, d),
        ]
    }

    pub fn bounding_rect(&self) -> Rect {
        rect_of(self.corners().iter().copied())
    }

    /// Is `p` on or inside the rectangle (with `slack` cm to spare)?
    pub fn covers(&self, p: Point, slack: f64) -> bool {
        self.covers_on(self.axes(), p, slack)
    }

    /// The stand's right and ahead directions ([`right_of`] and [`heading`] of its facing), for
    /// asking [`Stand::covers_on`] of many points without working them out each time.
    pub fn axes(&self) -> (Point, Point) {
        (right_of(self.facing_deg), heading(self.facing_deg))
    }

    /// [`Stand::covers`] with the stand's own [`Stand::axes`] given: the same answer.
    pub fn covers_on(&self, (right, ahead): (Point, Point), p: Point, slack: f64) -> bool {
        let d = sub(p, self.centre);
        let s = dot(d, right);
        let t = dot(d, ahead);
        s.abs() <= self.width / 2.0 + slack && t.abs() <= self.depth / 2.0 + slack
    }
}

/// The bounding rectangle of some points (a zero rectangle at the origin when there are none).
pub fn rect_of(points: impl IntoIterator<Item = Point>) -> Rect {
    let mut it = points.into_iter();
    let Some(first) = it.next() else {
        return Rect {
            min: Point::default(),
            max: Point::default(),
        };
    };
    let mut r = Rect {
        min: first,
        max: first,
    };
    for p in it {
        r.min.x = r.min.x.min(p.x);
        r.min.y = r.min.y.min(p.y);
        r.max.x = r.max.x.max(p.x);
        r.max.y = r.max.y.max(p.y);
    }
    r
}

/// A front edge: its two ends as seen facing forward, and the facing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FrontEdge {
    pub left: Point,
    pub right: Point,
    pub facing_deg: f64,
}

impl FrontEdge {
    pub fn midpoint(&self) -> Point {
        Point::new(
            (self.left.x + self.right.x) / 2.0,
            (self.left.y + self.right.y) / 2.0,
        )
    }

    pub fn width(&self) -> f64 {
        self.left.distance(self.right).0
    }

    /// A point in edge coordinates: (lateral offset to the right of the midpoint, distance
    /// ahead of the edge's line).
    pub fn local(&self, p: Point) -> (f64, f64) {
        let d = sub(p, self.midpoint());
        (
            dot(d, right_of(self.facing_deg)),
            dot(d, heading(self.facing_deg)),
        )
    }

    /// FIRE-04: the fire cone cut off at `range` cm, as a polygon (left end, right end, far right,
    /// far left).
    pub fn cone_polygon(&self, range: f64) -> Polygon<f64> {
        let f = heading(self.facing_deg);
        let r = right_of(self.facing_deg);
        let spread = range * FIRE_CONE_SPLAY_DEG.to_radians().tan();
        let far_right = add(add(self.right, f, range), r, spread);
        let far_left = add(add(self.left, f, range), r, -spread);
        ring_polygon(&[self.left, self.right, far_right, far_left])
    }
}

/// How the stands of a unit are laid out (geom's own view of MOVE-09..MOVE-23).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrangement {
    /// Side by side in one rank, `gap_cm` apart (line: 0; extended line: 1 or 2, MOVE-12).
    Line { gap_cm: f64 },
    /// March column: one behind another (MOVE-13).
    Column,
    /// Attack column: two abreast, ceil(n/2) deep (MOVE-14).
    TwoAbreast,
    /// Square: stands spread over four outward faces (MOVE-15).
    Square,
    /// Disordered: a rough circle around the unit command stand (MOVE-19).
    Cluster,
    /// One stand (command units).
    Single,
    /// A limbered gun: limber in front, gun behind facing backwards (MOVE-23).
    LimberedGun,
}

/// Which side a shot comes from (FIRE-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aspect {
    Front,
    Flank,
    Rear,
}

/// A unit's stands on the table, with the fronts the rules measure from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Footprint {
    pub stands: Vec<Stand>,
    pub kind: StandKind,
    pub arrangement: Arrangement,
    /// The reference point (see the module docs) and facing it was built from.
    pub at: Point,
    pub facing_deg: f64,
    /// Firing front edges: one, or four for a square (FIRE-04 ruling); a line with refused
    /// flank stands adds each one's own front after the unit's (MOVE-30, [`super::refusal`]).
    pub fronts: Vec<FrontEdge>,
}

/// Lays out a unit (BAS-03, MOVE-11..MOVE-15, MOVE-19, MOVE-23): `stands` bases of `kind`
/// arranged as `arrangement` with the reference point `pose_at` (module docs) and facing.
/// Zero stands are treated as one, so a footprint always has a stand.
pub fn footprint(
    kind: StandKind,
    stands: usize,
    arrangement: Arrangement,
    pose_at: Point,
    facing_deg: f64,
    measure_scale: f64,
) -> Footprint {
    let n = stands.max(1);
    let (w0, d0) = kind.base_cm();
    let (w, d) = (w0 * measure_scale, d0 * measure_scale);
    let f = heading(facing_deg);
    let r = right_of(facing_deg);
    // Centre of a stand at lateral offset `s` and with its front edge `t` behind the reference.
    let at = |s: f64, t: f64, dd: f64| add(add(pose_at, r, s), f, -(t + dd / 2.0));
    let mut out: Vec<Stand> = Vec::with_capacity(n + 1);
    let mut fronts = Vec::new();
    let stand = |k: StandKind, c: Point, face: f64| Stand::new(k, c, face, measure_scale);
    match arrangement {
        Arrangement::Line { gap_cm } => {
            let gap = gap_cm.max(0.0) * measure_scale;
            let total = n as f64 * w + (n as f64 - 1.0) * gap;
            for i in 0..n {
                let s = -total / 2.0 + w / 2.0 + i as f64 * (w + gap);
                out.push(stand(kind, at(s, 0.0, d), facing_deg));
            }
            fronts.push(FrontEdge {
                left: add(pose_at, r, -total / 2.0),
                right: add(pose_at, r, total / 2.0),
                facing_deg,
            });
        }
        Arrangement::Column => {
            for i in 0..n {
                out.push(stand(kind, at(0.0, i as f64 * d, d), facing_deg));
            }
            fronts.extend(out.first().map(Stand::front_edge));
        }
        Arrangement::TwoAbreast => {
            for i in 0..n {
                let row = (i / 2) as f64;
                let alone = i + 1 == n && n % 2 == 1;
                let s = if alone {
                    0.0
                } else if i % 2 == 0 {
                    -w / 2.0
                } else {
                    w / 2.0
                };
                out.push(stand(kind, at(s, row * d, d), facing_deg));
            }
            let front_w = if n >= 2 { 2.0 * w } else { w };
            fronts.push(FrontEdge {
                left: add(pose_at, r, -front_w / 2.0),
                right: add(pose_at, r, front_w / 2.0),
                facing_deg,
            });
        }
        Arrangement::Square => {
            // MOVE-15 ruling: as even as possible; the spare stands go front, rear, right, left.
            let mut per = [n / 4; 4];
            for slot in per.iter_mut().take(n % 4) {
                *slot += 1;
            }
            let [front_n, rear_n, right_n, left_n] = per;
            let side = (per.iter().copied().max().unwrap_or(1).max(1)) as f64 * w;
            // Hollow: ahead-distance from the reference between d and d + side.
            let hollow_mid = d + side / 2.0;
            let mut face = |count: usize, face_deg: f64, centre: Point| {
                if count == 0 {
                    return;
                }
                let fr = right_of(face_deg);
                let total = count as f64 * w;
                for i in 0..count {
                    let s = -total / 2.0 + w / 2.0 + i as f64 * w;
                    out.push(stand(kind, add(centre, fr, s), face_deg));
                }
                let fh = heading(face_deg);
                let edge_mid = add(centre, fh, d / 2.0);
                fronts.push(FrontEdge {
                    left: add(edge_mid, fr, -total / 2.0),
                    right: add(edge_mid, fr, total / 2.0),
                    facing_deg: face_deg,
                });
            };
            let hollow = add(pose_at, f, -hollow_mid);
            face(front_n, facing_deg, add(pose_at, f, -d / 2.0));
            face(
                rear_n,
                facing_deg + 180.0,
                add(hollow, f, -(side / 2.0 + d / 2.0)),
            );
            face(
                right_n,
                facing_deg + 90.0,
                add(hollow, r, side / 2.0 + d / 2.0),
            );
            face(
                left_n,
                facing_deg - 90.0,
                add(hollow, r, -(side / 2.0 + d / 2.0)),
            );
        }
        Arrangement::Cluster => {
            let command = stand(kind, at(0.0, 0.0, d), facing_deg);
            fronts.push(command.front_edge());
            out.push(command);
            let others = n - 1;
            if others > 0 {
                // Far enough out that the ring clears the centre stand and its own neighbours.
                let clear_centre = (w * w + d * d).sqrt() / 2.0 + d / 2.0 + 0.5 * measure_scale;
                let clear_ring = others as f64 * (w + 0.5 * measure_scale) / std::f64::consts::TAU;
                let radius = clear_centre.max(clear_ring);
                for k in 0..others {
                    let bearing = facing_deg + 360.0 * (k as f64 + 0.5) / others as f64;
                    let c = add(command.centre, heading(bearing), radius);
                    // MOVE-19: some face out, some face in.
                    let face = if k % 2 == 0 { bearing } else { bearing + 180.0 };
                    out.push(stand(kind, c, face));
                }
            }
        }
        Arrangement::Single => {
            let s = stand(kind, at(0.0, 0.0, d), facing_deg);
            fronts.push(s.front_edge());
            out.push(s);
        }
        Arrangement::LimberedGun => {
            let limber = Stand::new(StandKind::Transport, pose_at, facing_deg, measure_scale);
            let gun = Stand::new(StandKind::Artillery, pose_at, facing_deg, measure_scale);
            let total = n as f64 * limber.width.max(gun.width);
            let pitch = limber.width.max(gun.width);
            for i in 0..n {
                let s = -total / 2.0 + pitch / 2.0 + i as f64 * pitch;
                out.push(Stand {
                    centre: at(s, 0.0, limber.depth),
                    ..limber
                });
                out.push(Stand {
                    centre: at(s, limber.depth, gun.depth),
                    facing_deg: facing_deg + 180.0,
                    ..gun
                });
            }
            fronts.push(FrontEdge {
                left: add(pose_at, r, -total / 2.0),
                right: add(pose_at, r, total / 2.0),
                facing_deg,
            });
        }
    }
    Footprint {
        stands: out,
        kind,
        arrangement,
        at: pose_at,
        facing_deg,
        fronts,
    }
}

impl Footprint {
    /// Every stand as a polygon.
    pub fn polygons(&self) -> MultiPolygon<f64> {
        MultiPolygon::new(self.stands.iter().map(Stand::polygon).collect())
    }

    /// The union of the stands (touching stands merge; gaps stay gaps).
    pub fn union(&self) -> MultiPolygon<f64> {
        let polys: Vec<Polygon<f64>> = self.stands.iter().map(Stand::polygon).collect();
        geo::unary_union(polys.iter())
    }

    /// The convex hull of all stand corners: the outline a blocking unit presents (VIS-07).
    pub fn outline(&self) -> Polygon<f64> {
        let pts: Vec<geo::Point<f64>> = self
            .stands
            .iter()
            .flat_map(|s| s.corners())
            .map(|p| geo::Point::new(p.x, p.y))
            .collect();
        MultiPoint::new(pts).convex_hull()
    }

    pub fn bounding_rect(&self) -> Rect {
        rect_of(self.stands.iter().flat_map(|s| s.corners()))
    }

    fn extent(&self, axis: Point) -> f64 {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for c in self.stands.iter().flat_map(|s| s.corners()) {
            let v = dot(c, axis);
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if hi >= lo {
            hi - lo
        } else {
            0.0
        }
    }

    /// Width across the unit's facing, gaps included (MOVE-04 measures gaps against it).
    pub fn frontage(&self) -> f64 {
        self.extent(right_of(self.facing_deg))
    }

    /// Extent along the unit's facing.
    pub fn depth(&self) -> f64 {
        self.extent(heading(self.facing_deg))
    }

    /// FIRE-04 ruling: the firing front edges (four for a square, one otherwise).
    pub fn front_edges(&self) -> &[FrontEdge] {
        &self.fronts
    }

    /// The area-weighted centre of the stands ("directly away/towards" in §1.5 uses it).
    pub fn centroid(&self) -> Point {
        let fallback = self.stands.first().map_or(self.at, |s| s.centre);
        self.polygons()
            .centroid()
            .map_or(fallback, |c| Point::new(c.x(), c.y()))
    }

    /// VIS-03: command units and squares see all round.
    pub fn sees_all_round(&self) -> bool {
        self.kind == StandKind::Command || self.arrangement == Arrangement::Square
    }

    /// VIS-02 sample points on the outside of the unit: [`Footprint::sample_points`] without
    /// those buried inside it (stand centres, midpoints of edges two stands share). A segment
    /// to a buried point first crosses the unit's own outline, so the outline points see
    /// everything the buried ones would, up to the sampling.
    pub fn outline_samples(&self) -> Vec<Point> {
        const PROBE: f64 = 1e-3;
        const D: f64 = std::f64::consts::FRAC_1_SQRT_2;
        let dirs = [
            (1.0, 0.0),
            (-1.0, 0.0),
            (0.0, 1.0),
            (0.0, -1.0),
            (D, D),
            (-D, D),
            (D, -D),
            (-D, -D),
        ];
        let stands: Vec<(&Stand, (Point, Point))> =
            self.stands.iter().map(|s| (s, s.axes())).collect();
        self.sample_points()
            .into_iter()
            .filter(|p| {
                !dirs.iter().all(|(dx, dy)| {
                    let q = Point::new(p.x + dx * PROBE, p.y + dy * PROBE);
                    stands.iter().any(|(s, axes)| s.covers_on(*axes, q, 1e-9))
                })
            })
            .collect()
    }

    /// VIS-02: corners, edge midpoints and centres of every stand, without repeats.
    pub fn sample_points(&self) -> Vec<Point> {
        let mut pts: Vec<Point> = Vec::with_capacity(self.stands.len() * 9);
        for s in &self.stands {
            for p in s.sample_points() {
                if !pts
                    .iter()
                    .any(|q| (q.x - p.x).abs() < 1e-6 && (q.y - p.y).abs() < 1e-6)
                {
                    pts.push(p);
                }
            }
        }
        pts
    }
}

/// §1.5: the shortest distance between any stand edges of two units; 0 when they touch or
/// overlap.
pub fn edge_distance(a: &Footprint, b: &Footprint) -> f64 {
    edge_distance_upto(a, b, f64::INFINITY)
}

/// [`edge_distance`] when it is at most `limit`; otherwise some figure above `limit` (the
/// bounding boxes' gap, a lower bound), found without measuring a single base.
///
/// The boxes' gap is a lower bound on the true distance, and both are rounded far less than
/// [`LOWER_BOUND_SLACK`]: a pair set aside by its boxes could never have measured `limit` or
/// less. Every pair that is measured is measured exactly as before, so the figure returned
/// within `limit` is the same to the bit.
fn edge_distance_upto(a: &Footprint, b: &Footprint, limit: f64) -> f64 {
    let ra: Vec<Rect> = a.stands.iter().map(Stand::bounding_rect).collect();
    let rb: Vec<Rect> = b.stands.iter().map(Stand::bounding_rect).collect();
    // The rectangles' gap is a lower bound: measure the nearest pair of rectangles first, then
    // only the pairs that could beat it.
    let gap = super::segment::rect_gap;
    let mut seed: Option<(f64, usize, usize)> = None;
    for (i, x) in ra.iter().enumerate() {
        for (j, y) in rb.iter().enumerate() {
            let g = gap(x, y);
            if seed.is_none_or(|(b, _, _)| g < b) {
                seed = Some((g, i, j));
            }
        }
    }
    let Some((nearest, si, sj)) = seed else {
        return 0.0;
    };
    if nearest > limit + LOWER_BOUND_SLACK {
        return nearest;
    }
    // Each stand's polygon is laid out once, and only when one of its pairs is measured.
    let pa: Vec<OnceCell<Polygon<f64>>> = ra.iter().map(|_| OnceCell::new()).collect();
    let pb: Vec<OnceCell<Polygon<f64>>> = rb.iter().map(|_| OnceCell::new()).collect();
    let dist = |i: usize, j: usize| -> f64 {
        match (
            a.stands.get(i).zip(pa.get(i)),
            b.stands.get(j).zip(pb.get(j)),
        ) {
            (Some((s, p)), Some((t, q))) => {
                let (p, q) = (p.get_or_init(|| s.polygon()), q.get_or_init(|| t.polygon()));
                // `geo`'s answer to the bit, worked out directly when the boxes are apart.
                super::prefilter::apart_ring_distance(&p.exterior().0, &q.exterior().0)
                    .unwrap_or_else(|| Euclidean.distance(p, q))
            }
            _ => f64::INFINITY,
        }
    };
    let mut best = dist(si, sj);
    for (i, x) in ra.iter().enumerate() {
        for (j, y) in rb.iter().enumerate() {
            if best <= 0.0 {
                return 0.0;
            }
            if (i, j) != (si, sj) && gap(x, y) < best {
                best = best.min(dist(i, j));
            }
        }
    }
    if best.is_finite() {
        best
    } else {
        0.0
    }
}

/// How far below a measured distance a bounding-box lower bound may be trusted to stay: far
/// more than the rounding of either figure (tables are metres across, doubles carry 16
/// digits), far less than anything a ruler shows.
const LOWER_BOUND_SLACK: f64 = 1e-9;

/// Base contact: within `tolerance` cm edge to edge (a hand placing bases leaves a hair's gap).
pub fn in_contact(a: &Footprint, b: &Footprint, tolerance: f64) -> bool {
    edge_distance_upto(a, b, tolerance) <= tolerance
}

/// VIS-03 / §1.5: the 180° half-plane in front of the line through the front edge (on the line
/// counts); all round for command units and squares.
pub fn sight_arc_contains(observer: &Footprint, p: Point) -> bool {
    if observer.sees_all_round() {
        return true;
    }
    observer.fronts.iter().any(|e| e.local(p).1 >= -EPS)
}

/// FIRE-04: is the point in the cone bounded by rays from the edge's ends splayed 15° outward
/// from straight ahead? (No range limit here; the rules compare ranges separately.)
pub fn fire_cone_contains(front_edge: &FrontEdge, p: Point) -> bool {
    let (s, t) = front_edge.local(p);
    let half = front_edge.width() / 2.0;
    t >= -EPS && s.abs() <= half + t * FIRE_CONE_SPLAY_DEG.to_radians().tan() + EPS
}

/// A range beyond any table: used to close the fire cone into a polygon for FIRE-10.
const UNLIMITED_CM: f64 = 100_000.0;

/// FIRE-10 ruling (1) and (2): frontal if any part of the attacker's bases lies in one of the
/// target's fire cones (its own front edge, unlimited range); otherwise rear if the attacker's
/// centroid bears 135° or more from the target's facing, seen from the target's centroid, else
/// flank. The rules layer applies (3) march column always flank and (4) square never. MOVE-30
/// ruling: with a refused flank, only the unrefused stands' front and centroid count.
pub fn aspect_of(attacker: &Footprint, target: &Footprint) -> Aspect {
    let attacker_polys = attacker.polygons();
    // MOVE-30 ruling: a refused stand's own front is not the unit's facing.
    for edge in target.fronts.iter().filter(|e| !target.is_refused_front(e)) {
        let cone = edge.cone_polygon(UNLIMITED_CM);
        if attacker_polys.intersects(&cone) {
            return Aspect::Front;
        }
    }
    let phi = normalize_deg(
        bearing_deg(target.facing_centroid(), attacker.centroid()) - target.facing_deg,
    );
    if phi.abs() >= 135.0 {
        Aspect::Rear
    } else {
        Aspect::Flank
    }
}

/// VIS-14: a crest line, an infinite line through `through` running along `direction`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CrestLine {
    pub through: Point,
    /// Unit vector along the line.
    pub direction: Point,
}

impl CrestLine {
    /// Signed distance of `p` from the line (positive to the left of `direction`).
    pub fn side(&self, p: Point) -> f64 {
        let d = sub(p, self.through);
        self.direction.x * d.y - self.direction.y * d.x
    }

    /// VIS-14: `p` is on the line or on the same side as `reference`.
    pub fn on_or_towards(&self, p: Point, reference: Point) -> bool {
        let sp = self.side(p);
        sp.abs() <= EPS || sp.signum() == self.side(reference).signum()
    }

    /// A drawable stretch of the line, `half_len` cm either side of its anchor.
    pub fn segment(&self, half_len: f64) -> (Point, Point) {
        (
            add(self.through, self.direction, -half_len),
            add(self.through, self.direction, half_len),
        )
    }
}

/// VIS-14 ruling (a): the crest line runs through the centroid of the hill's (top contour)
/// polygon, parallel to the front edge of the unit on lower ground. `None` for a degenerate
/// polygon.
pub fn crest_line(hill: &[Point], lower_unit_facing_deg: f64) -> Option<CrestLine> {
    let c = ring_polygon(hill).centroid()?;
    Some(CrestLine {
        through: Point::new(c.x(), c.y()),
        direction: right_of(lower_unit_facing_deg),
    })
}

/// The bounding rectangle of a `geo` polygon as a table rectangle.
pub fn polygon_rect(p: &Polygon<f64>) -> Option<Rect> {
    let r = p.bounding_rect()?;
    Some(Rect {
        min: point(r.min()),
        max: point(r.max()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const O: Point = Point::new(0.0, 0.0);

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn base_sizes_follow_bas_03() {
        assert_eq!(StandKind::Infantry.base_cm(), (2.5, 1.5));
        assert_eq!(StandKind::Cavalry.base_cm(), (3.5, 2.0));
        assert_eq!(StandKind::Artillery.base_cm(), (2.5, 2.5));
        assert_eq!(StandKind::Transport.base_cm(), (2.5, 3.5));
        assert_eq!(StandKind::Command.base_cm(), (3.0, 3.0));
        let s = Stand::new(StandKind::Cavalry, O, 0.0, 2.0);
        assert_eq!((s.width, s.depth), (7.0, 4.0));
    }

    #[test]
    fn stand_corners_follow_the_facing() {
        let s = Stand::new(StandKind::Infantry, Point::new(0.0, -0.75), 0.0, 1.0);
        let [fl, fr, rr, rl] = s.corners();
        assert!(close(fl.x, -1.25) && close(fl.y, 0.0));
        assert!(close(fr.x, 1.25) && close(fr.y, 0.0));
        assert!(close(rr.x, 1.25) && close(rr.y, -1.5));
        assert!(close(rl.x, -1.25) && close(rl.y, -1.5));
        // Facing 90° (towards +x): the front edge is the +x side, left end at +y.
        let e = Stand::new(StandKind::Infantry, O, 90.0, 1.0).front_edge();
        assert!(close(e.left.x, 0.75) && close(e.left.y, 1.25));
        assert!(close(e.right.x, 0.75) && close(e.right.y, -1.25));
    }

    #[test]
    fn line_frontage_is_n_stand_widths() {
        let fp = footprint(
            StandKind::Infantry,
            6,
            Arrangement::Line { gap_cm: 0.0 },
            O,
            0.0,
            1.0,
        );
        assert_eq!(fp.stands.len(), 6);
        assert!(close(fp.frontage(), 15.0));
        assert!(close(fp.depth(), 1.5));
        let e = fp.front_edges()[0];
        assert!(close(e.width(), 15.0));
        assert!(close(e.midpoint().x, 0.0) && close(e.midpoint().y, 0.0));
    }

    #[test]
    fn extended_line_adds_the_gaps() {
        let one = footprint(
            StandKind::Infantry,
            4,
            Arrangement::Line { gap_cm: 1.0 },
            O,
            0.0,
            1.0,
        );
        assert!(close(one.frontage(), 4.0 * 2.5 + 3.0));
        let two = footprint(
            StandKind::Infantry,
            4,
            Arrangement::Line { gap_cm: 2.0 },
            O,
            0.0,
            1.0,
        );
        assert!(close(two.frontage(), 4.0 * 2.5 + 6.0));
        let scaled = footprint(
            StandKind::Infantry,
            4,
            Arrangement::Line { gap_cm: 2.0 },
            O,
            0.0,
            0.5,
        );
        assert!(close(scaled.frontage(), (4.0 * 2.5 + 6.0) / 2.0));
    }

    #[test]
    fn march_column_is_one_stand_wide() {
        let fp = footprint(StandKind::Cavalry, 4, Arrangement::Column, O, 0.0, 1.0);
        assert!(close(fp.frontage(), 3.5));
        assert!(close(fp.depth(), 8.0));
        assert!(close(fp.front_edges()[0].width(), 3.5));
    }

    #[test]
    fn attack_column_depth_is_ceil_half() {
        for (n, rows) in [(2, 1), (3, 2), (4, 2), (5, 3), (8, 4)] {
            let fp = footprint(StandKind::Infantry, n, Arrangement::TwoAbreast, O, 0.0, 1.0);
            assert!(close(fp.depth(), rows as f64 * 1.5), "n = {n}");
            assert!(close(fp.frontage(), 5.0), "n = {n}");
            assert!(close(fp.front_edges()[0].width(), 5.0));
        }
    }

    #[test]
    fn square_spreads_stands_over_four_faces() {
        let fp = footprint(StandKind::Infantry, 6, Arrangement::Square, O, 0.0, 1.0);
        assert_eq!(fp.stands.len(), 6);
        assert_eq!(fp.front_edges().len(), 4);
        let mut faces: Vec<i64> = fp
            .front_edges()
            .iter()
            .map(|e| normalize_deg(e.facing_deg).round() as i64)
            .collect();
        faces.sort();
        assert_eq!(faces, vec![-90, 0, 90, 180]);
        // Two stands front and rear, one on each side: the hollow is two stands wide.
        assert!(close(fp.frontage(), 5.0 + 3.0));
        assert!(close(fp.depth(), 5.0 + 3.0));
        assert!(fp.sees_all_round());
        // No two stands overlap.
        for (i, a) in fp.stands.iter().enumerate() {
            for b in fp.stands.iter().skip(i + 1) {
                let d: f64 = Euclidean.distance(&a.polygon(), &b.polygon());
                assert!(d >= 0.0);
                assert!(!geo::Relate::relate(&a.polygon(), &b.polygon()).is_overlaps());
            }
        }
    }

    #[test]
    fn disordered_rings_the_command_stand() {
        let fp = footprint(StandKind::Infantry, 5, Arrangement::Cluster, O, 0.0, 1.0);
        assert_eq!(fp.stands.len(), 5);
        let front = fp.front_edges()[0];
        assert!(close(front.width(), 2.5));
        assert!(close(front.midpoint().y, 0.0));
        let c = fp.stands[0].centre;
        for s in &fp.stands[1..] {
            let d: f64 = Euclidean.distance(&s.polygon(), &fp.stands[0].polygon());
            assert!(
                d > 0.0,
                "ring stand at {:?} overlaps the centre {c:?}",
                s.centre
            );
        }
    }

    #[test]
    fn limbered_gun_trails_its_limber() {
        let fp = footprint(
            StandKind::Artillery,
            1,
            Arrangement::LimberedGun,
            O,
            0.0,
            1.0,
        );
        assert_eq!(fp.stands.len(), 2);
        assert_eq!(fp.stands[0].kind, StandKind::Transport);
        assert_eq!(fp.stands[1].kind, StandKind::Artillery);
        assert!(close(normalize_deg(fp.stands[1].facing_deg), 180.0));
        assert!(close(fp.depth(), 3.5 + 2.5));
    }

    #[test]
    fn outline_samples_drop_buried_points() {
        let fp = footprint(
            StandKind::Infantry,
            3,
            Arrangement::Line { gap_cm: 0.0 },
            O,
            0.0,
            1.0,
        );
        // 3 stands × 9 points, 4 corners and 2 edge midpoints shared: 21 distinct.
        assert_eq!(fp.sample_points().len(), 21);
        // Without the 3 centres and the 2 shared-edge midpoints.
        let outline = fp.outline_samples();
        assert_eq!(outline.len(), 16);
        assert!(!outline.iter().any(|p| close(p.x, 0.0) && close(p.y, -0.75)));
        assert!(outline.iter().any(|p| close(p.x, 1.25) && close(p.y, 0.0)));
    }

    #[test]
    fn edge_distance_and_contact() {
        let a = footprint(
            StandKind::Infantry,
            2,
            Arrangement::Line { gap_cm: 0.0 },
            O,
            0.0,
            1.0,
        );
        let b = footprint(
            StandKind::Infantry,
            2,
            Arrangement::Line { gap_cm: 0.0 },
            Point::new(0.0, 11.5),
            0.0,
            1.0,
        );
        // a's front is y = 0; b's rear is y = 11.5 - 1.5 = 10.
        assert!(close(edge_distance(&a, &b), 10.0));
        assert!(!in_contact(&a, &b, 0.1));
        let c = footprint(
            StandKind::Infantry,
            2,
            Arrangement::Line { gap_cm: 0.0 },
            Point::new(0.0, 1.5),
            0.0,
            1.0,
        );
        assert_eq!(edge_distance(&a, &c), 0.0);
        assert!(in_contact(&a, &c, 0.0));
    }

    #[test]
    fn sight_arc_is_the_half_plane_ahead() {
        let fp = footprint(
            StandKind::Infantry,
            4,
            Arrangement::Line { gap_cm: 0.0 },
            O,
            0.0,
            1.0,
        );
        assert!(sight_arc_contains(&fp, Point::new(50.0, 0.1)));
        assert!(sight_arc_contains(&fp, Point::new(-50.0, 0.0)));
        assert!(!sight_arc_contains(&fp, Point::new(0.0, -0.1)));
        let hq = footprint(StandKind::Command, 1, Arrangement::Single, O, 0.0, 1.0);
        assert!(sight_arc_contains(&hq, Point::new(0.0, -40.0)));
    }

    #[test]
    fn fire_cone_splays_fifteen_degrees() {
        let e = footprint(
            StandKind::Infantry,
            4,
            Arrangement::Line { gap_cm: 0.0 },
            O,
            0.0,
            1.0,
        )
        .front_edges()[0];
        let tan15 = 15f64.to_radians().tan();
        // 10 cm ahead the cone reaches 5 + 10·tan 15° either side.
        assert!(fire_cone_contains(
            &e,
            Point::new(5.0 + 10.0 * tan15 - 0.01, 10.0)
        ));
        assert!(!fire_cone_contains(
            &e,
            Point::new(5.0 + 10.0 * tan15 + 0.01, 10.0)
        ));
        assert!(!fire_cone_contains(&e, Point::new(0.0, -1.0)));
    }

    #[test]
    fn aspect_front_flank_rear() {
        let target = footprint(
            StandKind::Infantry,
            4,
            Arrangement::Line { gap_cm: 0.0 },
            O,
            0.0,
            1.0,
        );
        let at = |x: f64, y: f64, facing: f64| {
            footprint(
                StandKind::Infantry,
                4,
                Arrangement::Line { gap_cm: 0.0 },
                Point::new(x, y),
                facing,
                1.0,
            )
        };
        assert_eq!(aspect_of(&at(0.0, 30.0, 180.0), &target), Aspect::Front);
        assert_eq!(aspect_of(&at(40.0, 0.0, 270.0), &target), Aspect::Flank);
        assert_eq!(aspect_of(&at(0.0, -30.0, 0.0), &target), Aspect::Rear);
    }

    #[test]
    fn crest_line_runs_through_the_centroid_parallel_to_the_front() {
        let hill = [
            Point::new(0.0, 0.0),
            Point::new(20.0, 0.0),
            Point::new(20.0, 10.0),
            Point::new(0.0, 10.0),
        ];
        let Some(crest) = crest_line(&hill, 0.0) else {
            panic!("a square hill has a centroid");
        };
        assert!(close(crest.through.x, 10.0) && close(crest.through.y, 5.0));
        assert!(close(crest.direction.x, 1.0) && close(crest.direction.y, 0.0));
        // The lower unit is south (y < 0): a point at y = 4 is forward of the crest, y = 6 behind.
        let lower = Point::new(10.0, -20.0);
        assert!(crest.on_or_towards(Point::new(3.0, 4.0), lower));
        assert!(crest.on_or_towards(Point::new(3.0, 5.0), lower));
        assert!(!crest.on_or_towards(Point::new(3.0, 6.0), lower));
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        fn arrangement() -> impl Strategy<Value = Arrangement> {
            prop_oneof![
                (0.0..2.0f64).prop_map(|gap_cm| Arrangement::Line { gap_cm }),
                Just(Arrangement::Column),
                Just(Arrangement::TwoAbreast),
                Just(Arrangement::Square),
                Just(Arrangement::Cluster),
                Just(Arrangement::Single),
                Just(Arrangement::LimberedGun),
            ]
        }

        fn kind() -> impl Strategy<Value = StandKind> {
            prop_oneof![
                Just(StandKind::Infantry),
                Just(StandKind::Cavalry),
                Just(StandKind::Artillery),
                Just(StandKind::Transport),
                Just(StandKind::Command),
            ]
        }

        prop_compose! {
            fn a_footprint()(k in kind(), n in 1usize..9, arr in arrangement(),
                             x in -50.0..50.0f64, y in -50.0..50.0f64, facing in 0.0..360.0f64)
                             -> Footprint {
                footprint(k, n, arr, Point::new(x, y), facing, 1.0)
            }
        }

        proptest! {
            #[test]
            fn edge_distance_is_symmetric_and_never_negative(a in a_footprint(), b in a_footprint()) {
                let ab = edge_distance(&a, &b);
                let ba = edge_distance(&b, &a);
                prop_assert!(ab >= 0.0);
                prop_assert!((ab - ba).abs() < 1e-9, "{ab} vs {ba}");
                prop_assert!(ab <= a.centroid().distance(b.centroid()).0 + 1e-9);
            }

            /// The box shortcut of `in_contact` never changes its answer: contact is the full
            /// measure within the tolerance, at tolerances around the pair's own distance too.
            #[test]
            fn in_contact_is_the_full_measure_within_the_tolerance(
                a in a_footprint(), b in a_footprint(), tol in 0.0..3.0f64, nudge in -1e-9..1e-9f64
            ) {
                let d = edge_distance(&a, &b);
                for t in [tol, d, d + nudge, d + 1e-10, (d - 1e-10).max(0.0)] {
                    prop_assert_eq!(in_contact(&a, &b, t), d <= t, "distance {} tolerance {}", d, t);
                }
                let within = edge_distance_upto(&a, &b, tol);
                if d <= tol {
                    prop_assert_eq!(within.to_bits(), d.to_bits());
                } else {
                    prop_assert!(within > tol);
                }
            }

            #[test]
            fn a_point_in_the_fire_cone_is_in_the_sight_arc(
                a in a_footprint(), px in -150.0..150.0f64, py in -150.0..150.0f64
            ) {
                let p = Point::new(px, py);
                for e in a.front_edges() {
                    if fire_cone_contains(e, p) {
                        prop_assert!(sight_arc_contains(&a, p));
                    }
                }
            }

            #[test]
            fn line_frontage_is_stands_and_gaps_at_any_facing(
                n in 1usize..12, gap in 0.0..2.0f64, facing in 0.0..360.0f64
            ) {
                let fp = footprint(StandKind::Infantry, n, Arrangement::Line { gap_cm: gap },
                                   Point::new(3.0, 4.0), facing, 1.0);
                let want = n as f64 * 2.5 + (n as f64 - 1.0) * gap;
                prop_assert!((fp.frontage() - want).abs() < 1e-9);
                prop_assert!((fp.depth() - 1.5).abs() < 1e-9);
            }
        }
    }
}
