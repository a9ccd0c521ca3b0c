//! Cheap tests that prove a segment misses a shape, run before `geo`'s exact predicates.
//!
//! Line of sight (VIS-02) asks thousands of times per batch whether a segment touches a unit's
//! outline, a wood, a hill or a wall, and almost always the answer is no. `geo` answers exactly
//! (robust orientation predicates, edge by edge), which is what the rules need, but costs the
//! same for a near miss as for a shape on the far side of the table. The tests here answer only
//! "certainly apart" or "cannot tell"; when they cannot tell, `geo` decides. So an answer from
//! [`SegmentProbe::meets_polygon`] and its siblings is always exactly `geo`'s.
//!
//! "Certainly" is meant literally: an orientation is trusted only when its floating-point value
//! exceeds Shewchuk's forward error bound for the same expression (`3.3e-16 × |terms|`) by a
//! factor of 3,000. Below that the test gives up rather than guess.
//!
//! Layering: part of `geom`; imports nothing from the rest of the crate besides `geom` and no
//! egui, eframe, rusqlite, `std::fs`, clock or thread RNG (checked by `tests/layering.rs`).

use super::segment::{inside_intervals, rects_overlap, Segment};
use super::{Point, Rect};
use geo::kernels::{Kernel, Orientation, RobustKernel};
use geo::line_intersection::{line_intersection, LineIntersection};
use geo::{Contains, ConvexHull, Coord, Intersects, Line, LineString, MultiPoint, Polygon};

/// Relative error bound under which an orientation's sign is not trusted.
const ORIENT_ERR: f64 = 1e-12;

/// The orientation of `r` against the directed line `p → q` when it is certain: `1`
/// counter-clockwise (left), `-1` clockwise (right), `0` when too close to call (collinear or
/// within rounding). Same expression as `robust::orient2d`'s fast path, so the bound holds.
#[inline]
fn orient(p: Coord<f64>, q: Coord<f64>, r: Coord<f64>) -> i8 {
    let left = (p.x - r.x) * (q.y - r.y);
    let right = (p.y - r.y) * (q.x - r.x);
    let det = left - right;
    let bound = ORIENT_ERR * (left.abs() + right.abs());
    certain_sign(det, bound)
}

/// `1` when `det > bound`, `-1` when `det < -bound`, else `0`, worked out without a branch: the
/// sides of a shape's corners against a line of sight follow no pattern a predictor can learn.
#[inline]
fn certain_sign(det: f64, bound: f64) -> i8 {
    i8::from(det > bound) - i8::from(det < -bound)
}

/// Two points bounding a wedge from an apex, clockwise-most first ([`shadow`]).
pub type Wedge = (Coord<f64>, Coord<f64>);

/// The two vertices of a convex ring that bound it as seen from `a` outside it (clockwise-most
/// first), when the wedge they span is certainly narrower than a half turn; see
/// [`in_shadow`]. In `f64` the two may fall a little short of the true extremes: any two
/// points of a convex shape bound a wedge every ray of which (strictly inside) crosses the
/// chord between them, so the shape, and a smaller wedge only proves less.
pub fn shadow(a: Point, ring: &[Coord<f64>]) -> Option<Wedge> {
    let (mut lo, mut hi) = (*ring.first()?, *ring.first()?);
    for &p in ring {
        let cross = |q: Coord<f64>| (q.x - a.x) * (p.y - a.y) - (q.y - a.y) * (p.x - a.x);
        if cross(lo) < 0.0 {
            lo = p;
        }
        if cross(hi) > 0.0 {
            hi = p;
        }
    }
    (orient(Coord { x: a.x, y: a.y }, lo, hi) == 1).then_some((lo, hi))
}

/// A piece of the polyline `chain` that the segment `a → b` certainly crosses: the ends of
/// each lie strictly either side of the other's line.
pub fn crossed_piece(a: Point, b: Point, chain: &[Coord<f64>]) -> Option<(Coord<f64>, Coord<f64>)> {
    let (ca, cb) = (Coord { x: a.x, y: a.y }, Coord { x: b.x, y: b.y });
    chain.windows(2).find_map(|w| {
        let [p, q] = w else {
            return None;
        };
        let (o1, o2) = (orient(ca, cb, *p), orient(ca, cb, *q));
        let (o3, o4) = (orient(*p, *q, ca), orient(*p, *q, cb));
        (o1 != 0 && o2 == -o1 && o3 != 0 && o4 == -o3).then_some((*p, *q))
    })
}

/// The edges of the closed `ring` (by the index of their first corner, at most two) that `s`
/// lies on as far as `f64` can tell: collinear within rounding and inside the edge's box.
pub fn edges_holding(ring: &[Coord<f64>], s: Point) -> [Option<u8>; 2] {
    let c = Coord { x: s.x, y: s.y };
    let mut out = [None; 2];
    let mut found = ring.windows(2).enumerate().filter_map(|(i, w)| {
        let [p, q] = w else {
            return None;
        };
        let inside = c.x >= p.x.min(q.x) - 1e-9
            && c.x <= p.x.max(q.x) + 1e-9
            && c.y >= p.y.min(q.y) - 1e-9
            && c.y <= p.y.max(q.y) + 1e-9;
        (inside && orient(*p, *q, c) == 0)
            .then(|| u8::try_from(i).ok())
            .flatten()
    });
    for slot in &mut out {
        *slot = found.next();
    }
    out
}

/// Is `b` certainly strictly inside the wedge from `a` that [`shadow`] gave?
#[inline]
pub fn in_shadow(a: Point, (lo, hi): Wedge, b: Point) -> bool {
    let (ca, cb) = (Coord { x: a.x, y: a.y }, Coord { x: b.x, y: b.y });
    orient(ca, lo, cb) == 1 && orient(ca, cb, hi) == 1
}

/// [`orient`] of many points against one directed segment `a → b` with `d = b − a` worked
/// out once: `d × (r − a)`, the same sign. Its rounding error is at most about four units in
/// the last place of `|terms|` (three roundings per product, one for the difference, and `d`'s
/// own), far inside the same relative bound.
#[inline]
fn side_of(a: Coord<f64>, d: Coord<f64>, r: Coord<f64>) -> i8 {
    let left = d.x * (r.y - a.y);
    let right = d.y * (r.x - a.x);
    let det = left - right;
    let bound = ORIENT_ERR * (left.abs() + right.abs());
    certain_sign(det, bound)
}

/// Twice the signed area of a closed ring (shoelace): positive when it turns counter-clockwise.
fn twice_area(ring: &[Coord<f64>]) -> f64 {
    ring.windows(2)
        .map(|w| match w {
            [a, b] => a.x * b.y - b.x * a.y,
            _ => 0.0,
        })
        .sum()
}

/// For a closed ring that is convex, its turning direction (`1` counter-clockwise, `-1`
/// clockwise); `0` when it is not convex, is self-intersecting or encloses too little area to
/// say. Verified with exact predicates: every vertex lies on the inner side of (or on) every
/// edge's line — which is what lets [`SegmentProbe::meets_convex`] take any edge as a
/// separating axis.
pub fn convex_turn(ring: &[Coord<f64>]) -> i8 {
    let twice = twice_area(ring);
    let (turn, inner) = if twice > 1e-6 {
        (1, Orientation::CounterClockwise)
    } else if twice < -1e-6 {
        (-1, Orientation::Clockwise)
    } else {
        return 0;
    };
    let convex = ring.windows(2).all(|w| match w {
        [p, q] => {
            p == q
                || ring.iter().all(|v| {
                    let o = RobustKernel::orient2d(*p, *q, *v);
                    o == inner || o == Orientation::Collinear
                })
        }
        _ => true,
    });
    if convex {
        turn
    } else {
        0
    }
}

/// Does a piece of `poly` (a simple ring, closed, not necessarily convex) run across the
/// convex `corridor` (closed ring) from its edge `left` to its edge `right`? That is: does one
/// connected piece of corridor ∩ polygon touch both edges. `None` when it cannot be told
/// with certainty in `f64` (a vertex on or near the corridor's boundary, a crossing at a
/// corner, a boundary the polygon crosses other than the two edges, or no crossing at all);
/// the caller then asks the polygon overlay.
///
/// A connected piece touching both edges separates the corridor's other two sides, so its
/// frontier holds an arc of the polygon's boundary running inside the corridor from one edge
/// to the other; conversely the piece of the polygon beside such an arc touches both. So it
/// is enough to walk the polygon's boundary, cut where it certainly crosses the corridor's,
/// and look for an arc inside that enters by one edge and leaves by the other. Line of sight
/// (VIS-02) asks this of woods that are not convex, to prove a pair hidden by one of them.
pub fn crosses_between(
    corridor: &[Coord<f64>],
    left: Line<f64>,
    right: Line<f64>,
    poly: &[Coord<f64>],
) -> Option<bool> {
    let twice = twice_area(corridor);
    let turn: i8 = if twice > 1e-9 {
        1
    } else if twice < -1e-9 {
        -1
    } else {
        return None;
    };
    if corridor.len() < 4 || poly.len() < 4 {
        return None;
    }
    // A hull may keep collinear or repeated points (even doubling back along an edge): keep
    // only the corners that turn certainly the corridor's way. Dropping a point in the middle
    // of a straight stretch leaves the same region.
    let mut ring: Vec<Coord<f64>> = corridor[..corridor.len() - 1].to_vec();
    loop {
        let k = ring.len();
        if k < 3 {
            return None;
        }
        let flat = (0..k).find(|&i| {
            match (
                ring.get((i + k - 1) % k),
                ring.get(i),
                ring.get((i + 1) % k),
            ) {
                (Some(a), Some(b), Some(c)) => orient(*a, *b, *c) != turn,
                _ => true,
            }
        });
        match flat {
            Some(i) => {
                ring.remove(i);
            }
            None => break,
        }
    }
    if let Some(&first) = ring.first() {
        ring.push(first);
    }
    let corridor = &ring[..];
    // The corridor's edges along the two bridges (an edge may have grown over a straight
    // stretch of a unit's side; a piece that reaches that stretch touches the unit, which
    // the caller has ruled out).
    let along = |a: Coord<f64>, b: Coord<f64>, l: &Line<f64>| {
        orient(a, b, l.start) == 0 && orient(a, b, l.end) == 0
    };
    let edges_along = |l: &Line<f64>| {
        corridor
            .windows(2)
            .filter(|w| matches!(w, [a, b] if along(*a, *b, l)))
            .count()
    };
    if edges_along(&left) != 1 || edges_along(&right) != 1 {
        return None;
    }
    // Strictly inside (every edge turns the corridor's way), certainly outside, or unsure.
    let inside = |p: Coord<f64>| -> Option<bool> {
        let mut sure = true;
        for w in corridor.windows(2) {
            if let [a, b] = w {
                match orient(*a, *b, p) {
                    o if o == turn => {}
                    0 => sure = false,
                    _ => return Some(false),
                }
            }
        }
        sure.then_some(true)
    };
    let side = |a: Coord<f64>, b: Coord<f64>| -> Option<bool> {
        if along(a, b, &left) {
            Some(true)
        } else if along(a, b, &right) {
            Some(false)
        } else {
            None
        }
    };
    let first = *poly.first()?;
    let start_inside = inside(first)?;
    // Crossings in order along the polygon's boundary: which edge (true: left), and whether
    // the boundary there enters the corridor.
    let mut events: Vec<bool> = Vec::with_capacity(8);
    let mut on_edge: Vec<(f64, bool)> = Vec::with_capacity(4);
    for w in poly.windows(2) {
        let [p, q] = w else {
            continue;
        };
        on_edge.clear();
        let (ex, ey) = (q.x - p.x, q.y - p.y);
        for c in corridor.windows(2) {
            let [a, b] = c else {
                continue;
            };
            let (o1, o2) = (orient(*a, *b, *p), orient(*a, *b, *q));
            if o1 != 0 && o1 == o2 {
                continue;
            }
            let (o3, o4) = (orient(*p, *q, *a), orient(*p, *q, *b));
            if o3 != 0 && o3 == o4 {
                continue;
            }
            if o1 == 0 || o2 == 0 || o3 == 0 || o4 == 0 {
                return None;
            }
            // A proper crossing: where along p → q (for ordering only).
            let (fx, fy) = (b.x - a.x, b.y - a.y);
            let den = ex * fy - ey * fx;
            let t = ((a.x - p.x) * fy - (a.y - p.y) * fx) / den;
            on_edge.push((t, side(*a, *b)?));
        }
        on_edge.sort_by(|x, y| x.0.total_cmp(&y.0));
        if on_edge
            .windows(2)
            .any(|w| matches!(w, [x, y] if (y.0 - x.0).abs() < 1e-9))
        {
            return None;
        }
        events.extend(on_edge.iter().map(|&(_, l)| l));
    }
    if events.is_empty() || !events.len().is_multiple_of(2) {
        return None;
    }
    // The boundary alternates outside/inside at each crossing; the arcs inside run from an
    // entering crossing to the next (around the ring when the first vertex is inside).
    let n = events.len();
    let offset = usize::from(start_inside);
    let across = (0..n / 2).any(|k| {
        let from = (2 * k + n - offset) % n;
        let to = (from + 1) % n;
        matches!((events.get(from), events.get(to)), (Some(x), Some(y)) if x != y)
    });
    Some(across)
}

/// A segment prepared for many shape tests: its `geo` line and bounding box.
#[derive(Debug, Clone, Copy)]
pub struct SegmentProbe {
    pub line: Line<f64>,
    pub rect: Rect,
}

impl SegmentProbe {
    pub fn new(line: Line<f64>) -> SegmentProbe {
        let (a, b) = (line.start, line.end);
        SegmentProbe {
            line,
            rect: Rect {
                min: Point::new(a.x.min(b.x), a.y.min(b.y)),
                max: Point::new(a.x.max(b.x), a.y.max(b.y)),
            },
        }
    }

    /// Separating axes (a convex polygon and a segment are apart exactly when one of the
    /// polygon's edges or the segment itself separates them): `Some(false)` when an axis
    /// certainly separates, `Some(true)` when none can (the polygon's vertices lie certainly on
    /// both sides of the segment's line, and for every edge an end of the segment lies certainly
    /// on its inner side), `None` when it cannot be told. The ring must have [`convex_turn`]
    /// `turn` ≠ 0.
    fn against_convex(&self, ring: &[Coord<f64>], turn: i8) -> Option<bool> {
        let (a, b) = (self.line.start, self.line.end);
        if a == b {
            return None;
        }
        let (mut left, mut right, mut on) = (false, false, false);
        let d = Coord {
            x: b.x - a.x,
            y: b.y - a.y,
        };
        // A segment that certainly crosses an edge (ends of each strictly either side of the
        // other's line) meets the polygon: only the edges the line cuts need looking at, and
        // the first one found settles it (the other answers need every vertex's side).
        let small = ring.len() <= 32;
        let mut prev: Option<(Coord<f64>, i8)> = None;
        for &p in ring {
            let o = side_of(a, d, p);
            // `|=`, not a `match`: no branch on the side (see [`certain_sign`]).
            left |= o == 1;
            right |= o == -1;
            on |= o == 0;
            if let (true, Some((q, sq))) = (small, prev) {
                if sq != 0 && o != 0 && sq != o {
                    let (oa, ob) = (orient(q, p, a), orient(q, p, b));
                    if oa != 0 && ob != 0 && oa != ob {
                        return Some(true);
                    }
                }
            }
            prev = Some((p, o));
        }
        if !on && left != right {
            return Some(false);
        }
        let mut sure = left && right;
        for w in ring.windows(2) {
            let [p, q] = w else {
                continue;
            };
            let (oa, ob) = (orient(*p, *q, a), orient(*p, *q, b));
            if oa == -turn && ob == -turn {
                return Some(false);
            }
            if oa != turn && ob != turn {
                sure = false;
            }
        }
        sure.then_some(true)
    }

    /// How the segment stands to a chain of edges (a polyline, or a closed ring): all its
    /// vertices certainly on one side of the segment's line, the segment certainly crossing
    /// one of the edges, certainly touching none, or it cannot be told in `f64`.
    fn against_edges(&self, chain: &[Coord<f64>]) -> Edges {
        let (a, b) = (self.line.start, self.line.end);
        if chain.len() > 32 {
            return Edges::Unsure;
        }
        let (mut left, mut right, mut on) = (false, false, false);
        let d = Coord {
            x: b.x - a.x,
            y: b.y - a.y,
        };
        // Each vertex's side of the segment's line, worked out once for both its edges; an
        // edge the segment certainly crosses settles it as soon as it is seen (the segment's
        // line then has vertices on both sides, so they are not all on one).
        let mut unsure = false;
        let mut prev: Option<(Coord<f64>, i8)> = None;
        for &q in chain {
            let o2 = side_of(a, d, q);
            // `|=`, not a `match`: no branch on the side (see [`certain_sign`]).
            left |= o2 == 1;
            right |= o2 == -1;
            on |= o2 == 0;
            let Some((p, o1)) = prev.replace((q, o2)) else {
                continue;
            };
            if o1 != 0 && o1 == o2 {
                continue;
            }
            let (o3, o4) = (orient(p, q, a), orient(p, q, b));
            if o3 != 0 && o3 == o4 {
                continue;
            }
            if o1 != 0 && o2 != 0 && o3 != 0 && o4 != 0 {
                // Each segment's ends lie strictly either side of the other's line.
                return Edges::Cross;
            }
            unsure = true;
        }
        if !on && left != right {
            return Edges::Apart;
        }
        if unsure {
            Edges::Unsure
        } else {
            Edges::Clear
        }
    }

    /// Does the segment touch the polygon (boundary included)? `rect` bounds the polygon.
    /// Exactly `geo`'s `Line::intersects(&Polygon)`.
    pub fn meets_polygon(&self, poly: &Polygon<f64>, rect: &Rect) -> bool {
        self.meets_convex(poly, rect, 0)
    }

    /// Do both ends of the segment lie certainly on the outer side of the edge `p → q` of a
    /// convex ring that turns `turn` ([`convex_turn`], not 0)? Then the segment misses the
    /// polygon: the edge's line separates them.
    pub fn beyond_edge(&self, p: Coord<f64>, q: Coord<f64>, turn: i8) -> bool {
        turn != 0 && orient(p, q, self.line.start) == -turn && orient(p, q, self.line.end) == -turn
    }

    /// As [`Self::meets_polygon`]; `turn` is the exterior's [`convex_turn`] (0: not convex),
    /// which lets a convex polygon's edges serve as separating axes and settles containment.
    pub fn meets_convex(&self, poly: &Polygon<f64>, rect: &Rect, turn: i8) -> bool {
        let ring = &poly.exterior().0;
        if !rects_overlap(&self.rect, rect) {
            return false;
        }
        if !poly.interiors().is_empty() || ring.len() < 4 {
            return self.line.intersects(poly);
        }
        if turn != 0 {
            return match self.against_convex(ring, turn) {
                Some(meets) => meets,
                None => self.line.intersects(poly),
            };
        }
        match self.against_edges(ring) {
            Edges::Apart => false,
            Edges::Cross => true,
            Edges::Unsure => self.line.intersects(poly),
            // The boundary is untouched, so the segment lies wholly inside or wholly outside:
            // where its start is.
            Edges::Clear => poly.intersects(&self.line.start),
        }
    }

    /// [`crate::geom::segment::inside_intervals`] for the probe's own segment `seg`, the same
    /// intervals: edges whose two ends lie certainly on one side of the segment's line cannot
    /// meet it, so the exact intersection is not asked of them (it would find none).
    pub fn inside_intervals(&self, poly: &Polygon<f64>, seg: &Segment) -> Vec<(f64, f64)> {
        let ring = &poly.exterior().0;
        let line = seg.line();
        if !poly.interiors().is_empty() || ring.len() > 32 || line != self.line {
            return inside_intervals(poly, seg);
        }
        let (a, b) = (line.start, line.end);
        let d = Coord {
            x: b.x - a.x,
            y: b.y - a.y,
        };
        let mut sides = [0i8; 32];
        for (s, &p) in sides.iter_mut().zip(ring) {
            *s = side_of(a, d, p);
        }
        let len = seg.length();
        // Room for the usual few cuts, so that the pushes below do not grow it.
        let mut cuts: Vec<f64> = Vec::with_capacity(8);
        cuts.extend([0.0, len]);
        for (w, s) in ring.windows(2).zip(sides.windows(2)) {
            let ([p, q], [s0, s1]) = (w, s) else {
                continue;
            };
            if *s0 != 0 && s0 == s1 {
                continue;
            }
            match line_intersection(line, Line::new(*p, *q)) {
                Some(LineIntersection::SinglePoint { intersection, .. }) => {
                    cuts.push(seg.a.distance(Point::new(intersection.x, intersection.y)).0);
                }
                Some(LineIntersection::Collinear { intersection }) => {
                    cuts.push(
                        seg.a
                            .distance(Point::new(intersection.start.x, intersection.start.y))
                            .0,
                    );
                    cuts.push(
                        seg.a
                            .distance(Point::new(intersection.end.x, intersection.end.y))
                            .0,
                    );
                }
                None => {}
            }
        }
        // When no corner is on the line, every cut but the two ends is where an edge crosses
        // from one side of it to the other, and the boundary meets the segment nowhere else:
        // inside and outside then alternate from one piece to the next, provided no two cuts
        // fall within the 1e-9 that merges them (and so every piece is kept). The first piece
        // is asked of `geo`; the others follow.
        let proper = sides.iter().take(ring.len()).all(|&s| s != 0);
        // From here on exactly as `segment::inside_intervals`.
        cuts.sort_by(f64::total_cmp);
        let alternate = proper
            && cuts.first() == Some(&0.0)
            && cuts.last() == Some(&len)
            && cuts
                .windows(2)
                .all(|w| matches!(w, [x, y] if y - x >= 1e-9));
        cuts.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
        let mut out: Vec<(f64, f64)> = Vec::with_capacity(cuts.len() / 2);
        let mut last: Option<bool> = None;
        for w in cuts.windows(2) {
            let (Some(&from), Some(&to)) = (w.first(), w.get(1)) else {
                continue;
            };
            if to - from < 1e-9 {
                last = None;
                continue;
            }
            let inside = match last {
                Some(was) if alternate => !was,
                _ => {
                    let mid = seg.at((from + to) / 2.0);
                    poly.contains(&geo::Point::new(mid.x, mid.y))
                }
            };
            last = Some(inside);
            if inside {
                match out.last_mut() {
                    Some(last) if (last.1 - from).abs() < 1e-9 => last.1 = to,
                    _ => out.push((from, to)),
                }
            }
        }
        out
    }

    /// Does the segment touch the polyline? `rect` bounds it. Exactly `geo`'s
    /// `Line::intersects(&LineString)`.
    pub fn meets_polyline(&self, line: &LineString<f64>, rect: &Rect) -> bool {
        if !rects_overlap(&self.rect, rect) {
            return false;
        }
        if line.0.len() < 2 {
            return self.line.intersects(line);
        }
        match self.against_edges(&line.0) {
            Edges::Cross => true,
            Edges::Apart | Edges::Clear => false,
            Edges::Unsure => self.line.intersects(line),
        }
    }
}

/// `geo_types::private_utils::line_segment_distance`, the point-to-segment distance `geo`'s
/// polygon distances are the minimum of, term for term: the same operations in the same order,
/// so the same bits.
#[inline]
fn geo_segment_distance(p: Coord<f64>, start: Coord<f64>, end: Coord<f64>) -> f64 {
    if start == end {
        return (start.x - p.x).hypot(start.y - p.y);
    }
    let dx = end.x - start.x;
    let dy = end.y - start.y;
    let d_squared = dx * dx + dy * dy;
    let r = ((p.x - start.x) * dx + (p.y - start.y) * dy) / d_squared;
    if r <= 0.0 {
        return (start.x - p.x).hypot(start.y - p.y);
    }
    if r >= 1.0 {
        return (end.x - p.x).hypot(end.y - p.y);
    }
    let s = ((start.y - p.y) * dx - (start.x - p.x) * dy) / d_squared;
    s.abs() * dx.hypot(dy)
}

/// The square of the distance from `p` to the segment, within a few units in the last place
/// (the rounding of three products and a quotient): what picks the candidates for
/// [`geo_segment_distance`], never an answer itself.
#[inline]
fn segment_distance_squared(p: Coord<f64>, start: Coord<f64>, end: Coord<f64>) -> f64 {
    let (dx, dy) = (end.x - start.x, end.y - start.y);
    let (px, py) = (p.x - start.x, p.y - start.y);
    let along = px * dx + py * dy;
    if along <= 0.0 {
        return px * px + py * py;
    }
    let d_squared = dx * dx + dy * dy;
    if along >= d_squared {
        let (qx, qy) = (p.x - end.x, p.y - end.y);
        return qx * qx + qy * qy;
    }
    let cross = px * dy - py * dx;
    cross * cross / d_squared
}

/// `Euclidean.distance(a, b)` of `geo` for two polygons without holes whose bounding boxes are
/// strictly apart on an axis (`a_ring`, `b_ring`: their exterior rings, closed as `geo` keeps
/// them), to the bit, for a fraction of its cost. §1.5's edge-to-edge distance asks it of
/// stand pairs thousands of times per line-of-sight batch.
///
/// Boxes apart, the polygons cannot meet, and `geo` returns the least point-to-segment
/// distance ([`geo_segment_distance`]) over the vertex–edge pairs it has not ruled out by
/// projection, a set that always holds the nearest pair: so its answer is the least of that
/// distance over every vertex of either ring against every edge of the other, which is what
/// this returns. The squares pick the candidates (the rounding of a square is some 1e-15 of
/// it, far inside the 1e-9 kept), and only those get the exact expression with its `hypot`.
/// `None` when the boxes are not apart (then `geo` must decide whether the polygons meet) or a
/// ring is not four corners closed.
pub fn apart_ring_distance(a_ring: &[Coord<f64>], b_ring: &[Coord<f64>]) -> Option<f64> {
    // Stands are rectangles: four corners and the closing one. Fixed sizes let the compiler
    // lay the 32 measures out without a loop. Other rings are left to `geo`.
    let (Ok(a), Ok(b)) = (
        <&[Coord<f64>; 5]>::try_from(a_ring),
        <&[Coord<f64>; 5]>::try_from(b_ring),
    ) else {
        return None;
    };
    let bbox = |r: &[Coord<f64>; 5]| {
        let (mut x0, mut y0, mut x1, mut y1) = (r[0].x, r[0].y, r[0].x, r[0].y);
        for c in &r[1..] {
            x0 = x0.min(c.x);
            y0 = y0.min(c.y);
            x1 = x1.max(c.x);
            y1 = y1.max(c.y);
        }
        (x0, y0, x1, y1)
    };
    let (ax0, ay0, ax1, ay1) = bbox(a);
    let (bx0, by0, bx1, by1) = bbox(b);
    if !(ax1 < bx0 || bx1 < ax0 || ay1 < by0 || by1 < ay0) {
        return None;
    }
    let [a0, a1, a2, a3, a4] = *a;
    let [b0, b1, b2, b3, b4] = *b;
    let halves = [
        ([a0, a1, a2, a3], [(b0, b1), (b1, b2), (b2, b3), (b3, b4)]),
        ([b0, b1, b2, b3], [(a0, a1), (a1, a2), (a2, a3), (a3, a4)]),
    ];
    let mut squares = [0.0f64; 32];
    let mut least = f64::INFINITY;
    let mut k = 0usize;
    for (points, edges) in halves {
        for p in points {
            for (s, e) in edges {
                let d = segment_distance_squared(p, s, e);
                if let Some(slot) = squares.get_mut(k) {
                    *slot = d;
                }
                k += 1;
                least = least.min(d);
            }
        }
    }
    // Below 1e-6 cm the relative margin could meet the underflow range: measure every pair.
    let keep = if least > 1e-12 {
        least * (1.0 + 1e-9)
    } else {
        f64::INFINITY
    };
    let mut best = f64::INFINITY;
    let mut k = 0usize;
    for (points, edges) in halves {
        for p in points {
            for (s, e) in edges {
                if squares.get(k).is_none_or(|&d| d <= keep) {
                    best = best.min(geo_segment_distance(p, s, e));
                }
                k += 1;
            }
        }
    }
    best.is_finite().then_some(best)
}

/// See [`SegmentProbe::against_edges`].
enum Edges {
    Apart,
    Cross,
    Clear,
    Unsure,
}

/// `geo`'s convex hull of a point set (`MultiPoint::convex_hull`, quick hull), vertex for vertex
/// and in the same order, without its intermediate collections; orientation tests that the
/// `f64` filter cannot settle go to `geo`'s exact kernel, so every decision is the same. The
/// line-of-sight corridor (VIS-02) is built once per query from a few dozen points.
pub fn point_hull(points: &[Point]) -> Polygon<f64> {
    if points.len() < 4 {
        let mp: MultiPoint<f64> = points.iter().map(|p| geo::Point::new(p.x, p.y)).collect();
        return mp.convex_hull();
    }
    monotone_hull(points).unwrap_or_else(|| quick_hull(points))
}

/// The same hull by Andrew's monotone chain, which sorts the points once instead of
/// partitioning them again at every level. Both keep the corners where the boundary turns
/// strictly, with the same exact orientation test; `geo` lists them counter-clockwise, from
/// the one after the least (by `x`, then `y`) round to the least. Quick hull may also keep a
/// point that lies on an edge (a tie for the farthest point), so any three points the chain
/// finds exactly on a line (a point on an edge, a repeat) leave the set to quick hull: a point
/// on an edge of the hull is always tested against two others on that edge before it goes.
/// `None` then, and for fewer than three corners.
fn monotone_hull(points: &[Point]) -> Option<Polygon<f64>> {
    chain_hull(&sorted_coords(points)?)
}

/// By `x`, then `y`: the order [`chain_hull`] walks.
fn before(p: &Coord<f64>, q: &Coord<f64>) -> bool {
    p.x < q.x || (p.x == q.x && p.y < q.y)
}

/// The points sorted by `x`, then `y`, as the monotone chain takes them; `None` when one is not
/// finite (quick hull takes those).
pub fn sorted_coords(points: &[Point]) -> Option<Vec<Coord<f64>>> {
    // A few dozen points at most: insertion.
    let mut sorted: Vec<Coord<f64>> = Vec::with_capacity(points.len());
    for p in points {
        let c = Coord { x: p.x, y: p.y };
        if !c.x.is_finite() || !c.y.is_finite() {
            return None;
        }
        let at = sorted
            .iter()
            .rposition(|q| !before(&c, q))
            .map_or(0, |i| i + 1);
        sorted.insert(at, c);
    }
    Some(sorted)
}

/// [`point_hull`] of `all`, the points of two sets whose sorted orders ([`sorted_coords`]) are
/// `a` and `b` (so that a set kept from query to query is sorted once): the chain walks the
/// merge of the two orders, which is the sorted order of `all`, and quick hull, when the chain
/// gives way to it, takes `all` as it comes, as [`point_hull`] does.
pub fn merged_hull(all: &[Point], a: &[Coord<f64>], b: &[Coord<f64>]) -> Polygon<f64> {
    if all.len() < 4 || a.len() + b.len() != all.len() {
        return point_hull(all);
    }
    let mut merged: Vec<Coord<f64>> = Vec::with_capacity(all.len());
    let (mut i, mut j) = (0, 0);
    while let (Some(p), Some(q)) = (a.get(i), b.get(j)) {
        // Ties from `a` first, as the insertion into `a`'s points then `b`'s would place them.
        if before(q, p) {
            merged.push(*q);
            j += 1;
        } else {
            merged.push(*p);
            i += 1;
        }
    }
    merged.extend_from_slice(a.get(i..).unwrap_or(&[]));
    merged.extend_from_slice(b.get(j..).unwrap_or(&[]));
    chain_hull(&merged).unwrap_or_else(|| quick_hull(all))
}

/// The monotone chain over points already sorted by [`before`] (see [`monotone_hull`]).
fn chain_hull(sorted: &[Coord<f64>]) -> Option<Polygon<f64>> {
    let mut hull: Vec<Coord<f64>> = Vec::with_capacity(2 * sorted.len() + 1);
    // One chain (lower, then upper over the points reversed), kept turning counter-clockwise.
    let mut chain = |run: &mut dyn Iterator<Item = &Coord<f64>>| -> Option<()> {
        let floor = hull.len();
        for &p in run {
            while hull.len() >= floor + 2 {
                let (Some(&a), Some(&b)) = (hull.get(hull.len() - 2), hull.last()) else {
                    break;
                };
                match exact_orientation(a, b, p) {
                    Orientation::CounterClockwise => break,
                    Orientation::Clockwise => {
                        hull.pop();
                    }
                    Orientation::Collinear => return None,
                }
            }
            hull.push(p);
        }
        // Each chain's last point starts the other.
        hull.pop();
        Some(())
    };
    chain(&mut sorted.iter())?;
    chain(&mut sorted.iter().rev())?;
    if hull.len() < 3 {
        return None;
    }
    // Counter-clockwise from the least point: end on it instead.
    hull.rotate_left(1);
    let mut ring = LineString::new(hull);
    ring.close();
    Some(Polygon::new(ring, vec![]))
}

/// `geo`'s quick hull, step for step (see [`point_hull`]).
fn quick_hull(points: &[Point]) -> Polygon<f64> {
    let mut buf: Vec<Coord<f64>> = points.iter().map(|p| Coord { x: p.x, y: p.y }).collect();
    let mut hull: Vec<Coord<f64>> = Vec::with_capacity(buf.len() + 1);
    let mut rest: &mut [Coord<f64>] = &mut buf;
    let (min_idx, mut max_idx) = least_and_greatest_index(rest);
    let Some(min) = take_first(&mut rest, min_idx) else {
        return Polygon::new(LineString::new(hull), vec![]);
    };
    if max_idx == 0 {
        max_idx = min_idx;
    }
    max_idx = max_idx.saturating_sub(1);
    let Some(max) = take_first(&mut rest, max_idx) else {
        return Polygon::new(LineString::new(hull), vec![]);
    };
    {
        let upper = partition(rest, |p| is_ccw(max, min, p));
        hull_set(max, min, upper, &mut hull);
    }
    hull.push(max);
    let lower = partition(rest, |p| is_ccw(min, max, p));
    hull_set(min, max, lower, &mut hull);
    hull.push(min);
    let mut ring = LineString::new(hull);
    ring.close();
    Polygon::new(ring, vec![])
}

/// The orientation of `c` against `a → b`, exactly: [`orient`]'s filter, then `geo`'s exact
/// kernel when the filter cannot tell.
fn exact_orientation(a: Coord<f64>, b: Coord<f64>, c: Coord<f64>) -> Orientation {
    match orient(a, b, c) {
        1 => Orientation::CounterClockwise,
        -1 => Orientation::Clockwise,
        _ => RobustKernel::orient2d(a, b, c),
    }
}

fn is_ccw(a: Coord<f64>, b: Coord<f64>, c: Coord<f64>) -> bool {
    exact_orientation(a, b, c) == Orientation::CounterClockwise
}

fn lex_cmp(p: &Coord<f64>, q: &Coord<f64>) -> std::cmp::Ordering {
    use std::cmp::Ordering::Equal;
    p.x.partial_cmp(&q.x)
        .unwrap_or(Equal)
        .then(p.y.partial_cmp(&q.y).unwrap_or(Equal))
}

/// As `geo::utils::least_and_greatest_index`: the first least and first greatest point.
fn least_and_greatest_index(pts: &[Coord<f64>]) -> (usize, usize) {
    use std::cmp::Ordering::{Greater, Less};
    let (mut lo, mut hi) = (0, 0);
    for (i, p) in pts.iter().enumerate() {
        if let (Some(l), Some(h)) = (pts.get(lo), pts.get(hi)) {
            if lex_cmp(p, l) == Less {
                lo = i;
            }
            if lex_cmp(p, h) == Greater {
                hi = i;
            }
        }
    }
    (lo, hi)
}

/// As `geo`'s `swap_with_first_and_remove`: swap item `idx` to the front and cut it off.
fn take_first(slice: &mut &mut [Coord<f64>], idx: usize) -> Option<Coord<f64>> {
    let tmp = std::mem::take(slice);
    if idx < tmp.len() {
        tmp.swap(0, idx);
    }
    let (head, tail) = tmp.split_first_mut()?;
    *slice = tail;
    Some(*head)
}

/// As `geo::utils::partition_slice`: the items the predicate holds for moved to the front
/// (by the same swaps), which are returned.
fn partition(data: &mut [Coord<f64>], pred: impl Fn(Coord<f64>) -> bool) -> &mut [Coord<f64>] {
    let len = data.len();
    if len == 0 {
        return data;
    }
    let (mut l, mut r) = (0, len - 1);
    loop {
        while l < len && data.get(l).is_some_and(|p| pred(*p)) {
            l += 1;
        }
        while r > 0 && !data.get(r).is_some_and(|p| pred(*p)) {
            r -= 1;
        }
        if l >= r {
            return data.split_at_mut(l).0;
        }
        data.swap(l, r);
    }
}

/// As `geo`'s quick hull `hull_set`.
fn hull_set(a: Coord<f64>, b: Coord<f64>, mut set: &mut [Coord<f64>], hull: &mut Vec<Coord<f64>>) {
    match set.len() {
        0 => return,
        1 => {
            if let Some(&p) = set.first() {
                hull.push(p);
            }
            return;
        }
        _ => {}
    }
    let orth = Coord {
        x: a.y - b.y,
        y: b.x - a.x,
    };
    // `Iterator::max_by` keeps the last of equal maxima, as `geo` does.
    let far_idx = set
        .iter()
        .map(|p| orth.x * (p.x - a.x) + orth.y * (p.y - a.y))
        .enumerate()
        .max_by(|(_, x), (_, y)| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal))
        .map_or(0, |(i, _)| i);
    let Some(far) = take_first(&mut set, far_idx) else {
        return;
    };
    {
        let over = partition(set, |p| is_ccw(far, b, p));
        hull_set(far, b, over, hull);
    }
    hull.push(far);
    let over = partition(set, |p| is_ccw(a, far, p));
    hull_set(a, far, over, hull);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::footprint::ring_polygon;
    use crate::geom::segment::rect_gap;

    fn probe(ax: f64, ay: f64, bx: f64, by: f64) -> SegmentProbe {
        SegmentProbe::new(Line::new(Coord { x: ax, y: ay }, Coord { x: bx, y: by }))
    }

    fn square() -> (Polygon<f64>, Rect) {
        let pts = [
            Point::new(0.0, 0.0),
            Point::new(10.0, 0.0),
            Point::new(10.0, 10.0),
            Point::new(0.0, 10.0),
        ];
        (ring_polygon(&pts), crate::geom::footprint::rect_of(pts))
    }

    #[test]
    fn probes_agree_with_geo_on_touching_crossing_and_missing_segments() {
        let (sq, rect) = square();
        let turn = convex_turn(&sq.exterior().0);
        assert_eq!(turn, 1);
        // A pentagram turns the same way at every vertex but is not convex.
        let star: Vec<Point> = (0..5)
            .map(|i| {
                let a = std::f64::consts::TAU * f64::from(i * 2) / 5.0;
                Point::new(10.0 * a.cos(), 10.0 * a.sin())
            })
            .collect();
        assert_eq!(convex_turn(&ring_polygon(&star).exterior().0), 0);
        let cases = [
            probe(-5.0, 5.0, 15.0, 5.0),   // crosses
            probe(-5.0, 10.0, 15.0, 10.0), // runs along the top edge
            probe(10.0, 12.0, 12.0, 10.0), // misses a corner, boxes overlap
            probe(5.0, 5.0, 6.0, 6.0),     // inside
            probe(-1.0, 11.0, 1.0, 9.0),   // clips a corner
            probe(10.0, 10.0, 12.0, 12.0), // starts on a corner
            probe(-2.0, 12.0, -2.0, 12.0), // a point outside
            probe(-1.0, 11.0, 0.0, 10.0),  // ends on a corner
            probe(11.0, -5.0, 11.0, 15.0), // beside an edge
        ];
        for p in cases {
            let exact = p.line.intersects(&sq);
            assert_eq!(p.meets_polygon(&sq, &rect), exact, "{p:?}");
            assert_eq!(p.meets_convex(&sq, &rect, turn), exact, "{p:?}");
            assert_eq!(
                p.meets_polyline(sq.exterior(), &rect),
                p.line.intersects(sq.exterior())
            );
        }
    }

    /// VIS-02's corridor: [`point_hull`] and [`merged_hull`] (the same hull from two sets each
    /// sorted apart) are `geo`'s hull vertex for vertex.
    #[test]
    fn point_hull_is_geos_hull_vertex_for_vertex() {
        // Random sets, grids (collinear and tied points) and repeats.
        let mut seed: u64 = 0x1234_5678;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut chained = 0;
        for n in 0..4_000 {
            let k = 1 + n % 40;
            let pts: Vec<Point> = (0..k)
                .map(|_| {
                    let (x, y) = (next() * 100.0, next() * 50.0);
                    if n % 3 == 0 {
                        Point::new((x / 10.0).round() * 2.5, (y / 10.0).round() * 1.5)
                    } else {
                        Point::new(x, y)
                    }
                })
                .collect();
            let mp: MultiPoint<f64> = pts.iter().map(|p| geo::Point::new(p.x, p.y)).collect();
            let hull = mp.convex_hull();
            assert_eq!(point_hull(&pts), hull, "{pts:?}");
            if k >= 4 && monotone_hull(&pts).is_some() {
                chained += 1;
            }
            // Split anywhere into two sets sorted apart: the merged hull is the same.
            let cut = n % (k + 1);
            let (a, b) = pts.split_at(cut);
            let (Some(sa), Some(sb)) = (sorted_coords(a), sorted_coords(b)) else {
                panic!("finite points always sort");
            };
            assert_eq!(merged_hull(&pts, &sa, &sb), hull, "{pts:?} split at {cut}");
        }
        // Most random sets take the monotone chain; the grids (collinear and tied points) go
        // to quick hull.
        assert!(chained > 2_000, "only {chained} sets took the chain");
    }

    #[test]
    fn inside_intervals_as_segment_module() {
        let mut seed: u64 = 0x9e37_79b9;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let (sq, _) = square();
        let u = ring_polygon(&[
            Point::new(0.0, 0.0),
            Point::new(30.0, 0.0),
            Point::new(30.0, 20.0),
            Point::new(20.0, 20.0),
            Point::new(20.0, 5.0),
            Point::new(10.0, 5.0),
            Point::new(10.0, 20.0),
            Point::new(0.0, 20.0),
        ]);
        for i in 0..2000 {
            let mut pt = || {
                let (x, y) = (next() * 40.0 - 5.0, next() * 30.0 - 5.0);
                if i % 2 == 0 {
                    Point::new(x.round(), y.round())
                } else {
                    Point::new(x, y)
                }
            };
            let seg = Segment::new(pt(), pt());
            let probe = SegmentProbe::new(seg.line());
            for poly in [&sq, &u] {
                assert_eq!(
                    probe.inside_intervals(poly, &seg),
                    inside_intervals(poly, &seg),
                    "{seg:?}"
                );
            }
        }
    }

    #[test]
    fn orientation_gives_up_within_rounding() {
        let a = Coord { x: 0.1, y: 0.1 };
        let b = Coord { x: 0.3, y: 0.3 };
        assert_eq!(orient(a, b, Coord { x: 0.2, y: 0.2 }), 0);
        assert_eq!(orient(a, b, Coord { x: 0.2, y: 0.3 }), 1);
        assert_eq!(orient(a, b, Coord { x: 0.3, y: 0.2 }), -1);
    }

    /// A rectangle's corners, edge midpoints and centre (as a stand's sample points), its
    /// outline and its box.
    fn rectangle(c: Point, w: f64, d: f64, turn: f64) -> (Vec<Point>, Polygon<f64>, Rect) {
        let (s, k) = turn.to_radians().sin_cos();
        let at = |u: f64, v: f64| Point::new(c.x + u * k - v * s, c.y + u * s + v * k);
        let (hw, hd) = (w / 2.0, d / 2.0);
        let corners = [at(-hw, -hd), at(hw, -hd), at(hw, hd), at(-hw, hd)];
        let mut samples = corners.to_vec();
        samples.extend([at(0.0, -hd), at(hw, 0.0), at(0.0, hd), at(-hw, 0.0), c]);
        let poly = ring_polygon(&corners);
        let rect = crate::geom::footprint::rect_of(corners.iter().copied());
        (samples, poly, rect)
    }

    /// VIS-02 (`SightIndex::shadow`): a convex blocker clear of both ends by more than the
    /// margin that meets one segment from an apex to a target point meets the segment to every
    /// target point strictly inside its shadow from the apex (trimmed as line of sight trims
    /// them), and so does the straight piece of a wall that such a segment crosses. 20,000
    /// seeded layouts, of which many thousands of shadowed points must be checked for the test
    /// to mean anything; some points must lie outside the shadows too.
    #[test]
    fn vis_02_a_blocker_across_one_segment_blocks_its_whole_shadow() {
        let mut next = xorshift(0x5eed_fa11);
        let (mut shadowed, mut outside) = (0, 0);
        let trimmed = |a: Point, b: Point| Segment::new(a, b).trimmed(1e-3).line();
        for _ in 0..20_000 {
            let a = Point::new(0.0, next(-10.0, 10.0));
            let (tc, tw, td, tt) = (
                Point::new(next(35.0, 60.0), next(-15.0, 15.0)),
                next(2.0, 20.0),
                next(1.0, 8.0),
                next(0.0, 360.0),
            );
            let (bc, bw, bd, bt) = (
                Point::new(next(12.0, 28.0), next(-12.0, 12.0)),
                next(1.0, 25.0),
                next(1.0, 8.0),
                next(0.0, 360.0),
            );
            let (targets, _, target_rect) = rectangle(tc, tw, td, tt);
            let (_, blocker, b_rect) = rectangle(bc, bw, bd, bt);
            let turn = convex_turn(&blocker.exterior().0);
            let apex = Rect { min: a, max: a };
            let clear = |r: &Rect| rect_gap(r, &apex) > 0.01 && rect_gap(r, &target_rect) > 0.01;
            let blocks =
                |b: Point| SegmentProbe::new(trimmed(a, b)).meets_convex(&blocker, &b_rect, turn);
            if turn != 0 && clear(&b_rect) && targets.iter().any(|&b| blocks(b)) {
                let Some(w) = shadow(a, &blocker.exterior().0) else {
                    panic!("{a:?}: no shadow of {blocker:?}");
                };
                for &b in &targets {
                    if in_shadow(a, w, b) {
                        shadowed += 1;
                        assert!(blocks(b), "{a:?} to {b:?}: blocker {blocker:?}");
                    } else {
                        outside += 1;
                    }
                }
            }
            // A wall: one straight piece of a polyline, crossed by a segment to a target.
            let (p, q) = (
                Coord {
                    x: next(12.0, 28.0),
                    y: next(-25.0, 25.0),
                },
                Coord {
                    x: next(12.0, 28.0),
                    y: next(-25.0, 25.0),
                },
            );
            let chain = [
                Coord {
                    x: p.x - 5.0,
                    y: p.y + 30.0,
                },
                p,
                q,
            ];
            let piece_rect = Rect {
                min: Point::new(p.x.min(q.x), p.y.min(q.y)),
                max: Point::new(p.x.max(q.x), p.y.max(q.y)),
            };
            let crossed = targets
                .iter()
                .find_map(|&b| crossed_piece(a, b, &chain).filter(|&c| c == (p, q)));
            if let (Some((p, q)), true) = (crossed, clear(&piece_rect)) {
                let Some(w) = shadow(a, &[p, q]) else {
                    continue;
                };
                for &b in &targets {
                    if in_shadow(a, w, b) {
                        shadowed += 1;
                        assert!(trimmed(a, b).intersects(&Line::new(p, q)), "{a:?} to {b:?}");
                    }
                }
            }
        }
        assert!(shadowed > 5_000, "only {shadowed} shadowed points");
        assert!(outside > 1_000, "only {outside} points outside the shadows");
    }

    /// The edges a point of a ring lies on: a corner two, a point along an edge one, a point
    /// inside or off the ring none.
    #[test]
    fn vis_02_edges_holding_names_the_edges_a_sample_lies_on() {
        let (sq, _) = square();
        let ring = &sq.exterior().0;
        let corner = Point::new(ring[1].x, ring[1].y);
        let along = Point::new((ring[1].x + ring[2].x) / 2.0, (ring[1].y + ring[2].y) / 2.0);
        let inside = Point::new((ring[0].x + ring[2].x) / 2.0, (ring[0].y + ring[2].y) / 2.0);
        assert_eq!(edges_holding(ring, corner), [Some(0), Some(1)]);
        assert_eq!(edges_holding(ring, along), [Some(1), None]);
        assert_eq!(edges_holding(ring, inside), [None, None]);
        let beyond = Point::new(
            ring[2].x + (ring[2].x - ring[1].x),
            ring[2].y + (ring[2].y - ring[1].y),
        );
        assert_eq!(edges_holding(ring, beyond), [None, None]);
    }

    /// A seeded xorshift drawing numbers in `lo..hi`, for the random layouts of these tests.
    fn xorshift(mut seed: u64) -> impl FnMut(f64, f64) -> f64 {
        move |lo, hi| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            lo + (hi - lo) * ((seed >> 11) as f64 / (1u64 << 53) as f64)
        }
    }

    /// `apart_ring_distance` is `geo`'s polygon distance to the bit whenever the boxes are
    /// apart, and declines otherwise: rectangles (stands) at every angle, near misses where a
    /// corner almost touches an edge, shared coordinates; irregular rings it leaves to `geo`.
    #[test]
    fn apart_ring_distance_is_geos_to_the_bit() {
        use geo::{Distance, Euclidean};
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let rect = |c: Point, w: f64, d: f64, turn_deg: f64| {
            let (s, co) = turn_deg.to_radians().sin_cos();
            let corner = |u: f64, v: f64| Point::new(c.x + u * co - v * s, c.y + u * s + v * co);
            ring_polygon(&[
                corner(-w / 2.0, -d / 2.0),
                corner(w / 2.0, -d / 2.0),
                corner(w / 2.0, d / 2.0),
                corner(-w / 2.0, d / 2.0),
            ])
        };
        let blob = |c: Point, r: f64, n: usize, jag: f64, next: &mut dyn FnMut(f64, f64) -> f64| {
            let pts: Vec<Point> = (0..n)
                .map(|i| {
                    let a = std::f64::consts::TAU * i as f64 / n as f64;
                    let rr = r * next(1.0 - jag, 1.0);
                    Point::new(c.x + rr * a.cos(), c.y + rr * a.sin())
                })
                .collect();
            ring_polygon(&pts)
        };
        let (mut apart, mut declined) = (0, 0);
        for case in 0..20_000 {
            let (a, b) = match case % 4 {
                // Stands anywhere near each other, at any angle.
                0 => {
                    let a = rect(
                        Point::new(0.0, 0.0),
                        next(1.0, 4.0),
                        next(1.0, 4.0),
                        next(0.0, 360.0),
                    );
                    let b = rect(
                        Point::new(next(-8.0, 8.0), next(-8.0, 8.0)),
                        next(1.0, 4.0),
                        next(1.0, 4.0),
                        next(0.0, 360.0),
                    );
                    (a, b)
                }
                // Axis-aligned stands in a line, sharing coordinates, gaps down to nothing.
                1 => {
                    let w = 2.5;
                    let gap = [0.0, 1e-12, 1e-9, 0.5, 1.0][(next(0.0, 5.0) as usize).min(4)];
                    let a = rect(Point::new(0.0, 0.0), w, 1.5, 0.0);
                    let b = rect(Point::new(w + gap, next(-1.0, 1.0).round()), w, 1.5, 0.0);
                    (a, b)
                }
                // A corner brought to within a hair of the other's edge.
                2 => {
                    let a = rect(Point::new(0.0, 0.0), 2.5, 1.5, 0.0);
                    let t = next(0.0, 90.0);
                    let b0 = rect(Point::new(0.0, 0.0), 2.0, 2.0, t);
                    let reach = b0
                        .exterior()
                        .0
                        .iter()
                        .map(|c| c.x)
                        .fold(f64::NEG_INFINITY, f64::max);
                    let dx = 1.25 - (-reach) + next(-1e-9, 1e-6);
                    let b = rect(Point::new(dx + 0.0, next(-0.5, 0.5)), 2.0, 2.0, t);
                    (a, b)
                }
                // Irregular rings, some not convex.
                _ => {
                    let a = blob(
                        Point::new(0.0, 0.0),
                        next(2.0, 10.0),
                        3 + case % 9,
                        next(0.0, 0.6),
                        &mut next,
                    );
                    let b = blob(
                        Point::new(next(-25.0, 25.0), next(-25.0, 25.0)),
                        next(2.0, 10.0),
                        3 + case % 7,
                        next(0.0, 0.6),
                        &mut next,
                    );
                    (a, b)
                }
            };
            let exact: f64 = Euclidean.distance(&a, &b);
            match apart_ring_distance(&a.exterior().0, &b.exterior().0) {
                Some(d) => {
                    apart += 1;
                    assert_eq!(
                        d.to_bits(),
                        exact.to_bits(),
                        "case {case}: {d} vs geo {exact}; {a:?} {b:?}"
                    );
                }
                None => declined += 1,
            }
        }
        assert!(
            apart > 10_000 && declined > 1_000,
            "{apart} apart, {declined} declined"
        );
    }

    /// `crosses_between` answers as the polygon overlay would in exact arithmetic, wherever it
    /// answers at all: random woods, convex and not, across random corridors made as line of
    /// sight makes them. The overlay's pieces are rounded to its grid, so a piece's edge along
    /// a bridge can land a hair inside it and `intersects` then says no; "touches" is read
    /// here as "within 1e-5 cm", far below anything a real crossing is from the bridge.
    #[test]
    fn crosses_between_agrees_with_the_overlay() {
        use geo::{BooleanOps, Distance, Euclidean};
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut told, mut cut, mut untold) = (0, 0, 0);
        for case in 0..4_000 {
            // Two units' sample points, 20–60 cm apart, and the hull of all of them.
            let len = next(20.0, 60.0);
            let unit = |cx: f64, cy: f64, w: f64, next: &mut dyn FnMut(f64, f64) -> f64| {
                let t = next(-0.6, 0.6);
                (0..6)
                    .map(|i| {
                        let u = -w / 2.0 + w * f64::from(i) / 5.0;
                        let v = if i % 2 == 0 { 0.0 } else { 1.5 };
                        Point::new(
                            cx + u * t.cos() - v * t.sin(),
                            cy + u * t.sin() + v * t.cos(),
                        )
                    })
                    .collect::<Vec<_>>()
            };
            let p = unit(0.0, 0.0, next(5.0, 15.0), &mut next);
            let q = unit(next(-5.0, 5.0), len, next(5.0, 15.0), &mut next);
            let mut all = p.clone();
            all.extend_from_slice(&q);
            let corridor = point_hull(&all);
            let ring = &corridor.exterior().0;
            let near = |c: &Coord<f64>, pts: &[Point]| pts.iter().any(|x| x.x == c.x && x.y == c.y);
            let n = ring.len() - 1;
            let mut bridges = Vec::new();
            for i in 0..n {
                let (a, b) = (ring[i], ring[(i + 1) % n]);
                if near(&a, &p) != near(&b, &p) {
                    bridges.push(Line::new(a, b));
                }
            }
            let [left, right] = bridges[..] else {
                continue;
            };
            // A wood across the middle, jagged or not, often reaching past one side.
            let k = 5 + case % 12;
            let (cx, cy) = (next(-15.0, 15.0), len * next(0.3, 0.7));
            let r = next(4.0, 18.0);
            let jag = if case % 3 == 0 { 0.0 } else { next(0.2, 0.8) };
            let wood: Vec<Point> = (0..k)
                .map(|i| {
                    let a = std::f64::consts::TAU * i as f64 / k as f64;
                    let rr = r * (1.0 - jag * next(0.0, 1.0));
                    Point::new(cx + 2.0 * rr * a.cos(), cy + 0.5 * rr * a.sin())
                })
                .collect();
            let wood = ring_polygon(&wood);
            let touches = |c: &Polygon<f64>, l: &Line<f64>| Euclidean.distance(c, l) < 1e-5;
            let overlay = corridor
                .intersection(&wood)
                .0
                .iter()
                .any(|c| touches(c, &left) && touches(c, &right));
            match crosses_between(ring, left, right, &wood.exterior().0) {
                Some(walked) => {
                    told += 1;
                    cut += usize::from(walked);
                    assert_eq!(walked, overlay, "case {case}: {wood:?} across {corridor:?}");
                }
                None => untold += 1,
            }
        }
        assert!(
            told > 2_000 && cut > 300 && told - cut > 300,
            "{told} told ({cut} cut), {untold} not"
        );
    }
}
