//! Segments against areas and lines: the questions a line of sight asks of the terrain. How
//! much of a segment lies inside a polygon (VIS-12, VIS-13 measure it), whether a segment
//! crosses a polyline (VIS-09) or touches a polygon (VIS-07), and distances from a footprint to a
//! feature (base contact). Built on `geo`'s robust intersection and containment predicates.

use super::footprint::{coord, Footprint};
use super::{Point, Rect};
use geo::{Contains, Distance, Euclidean, Intersects, Line, LineIntersection, LineString, Polygon};

/// A straight segment between two table points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    pub a: Point,
    pub b: Point,
}

impl Segment {
    pub const fn new(a: Point, b: Point) -> Segment {
        Segment { a, b }
    }

    pub fn length(&self) -> f64 {
        self.a.distance(self.b).0
    }

    pub fn line(&self) -> Line<f64> {
        Line::new(coord(self.a), coord(self.b))
    }

    /// The point `d` cm from `a` towards `b`.
    pub fn at(&self, d: f64) -> Point {
        let len = self.length();
        if len <= 0.0 {
            return self.a;
        }
        let k = d / len;
        Point::new(
            self.a.x + (self.b.x - self.a.x) * k,
            self.a.y + (self.b.y - self.a.y) * k,
        )
    }

    /// The same segment with `trim` cm cut off each end (nothing left: the midpoint twice), so
    /// that touching at an endpoint does not count as crossing.
    pub fn trimmed(&self, trim: f64) -> Segment {
        let len = self.length();
        if len <= 2.0 * trim {
            let m = self.at(len / 2.0);
            return Segment::new(m, m);
        }
        Segment::new(self.at(trim), self.at(len - trim))
    }

    pub fn bounding_rect(&self) -> Rect {
        Rect {
            min: Point::new(self.a.x.min(self.b.x), self.a.y.min(self.b.y)),
            max: Point::new(self.a.x.max(self.b.x), self.a.y.max(self.b.y)),
        }
    }
}

/// Do two rectangles overlap (touching counts)?
pub fn rects_overlap(a: &Rect, b: &Rect) -> bool {
    // `&`, not `&&`: four comparisons and no branch. Which boxes meet follows no pattern a
    // branch predictor could learn, and movement and sight ask it of every box near a path.
    (a.min.x <= b.max.x) & (b.min.x <= a.max.x) & (a.min.y <= b.max.y) & (b.min.y <= a.max.y)
}

/// The gap between two rectangles (0 when they overlap): a cheap lower bound on edge distance.
pub fn rect_gap(a: &Rect, b: &Rect) -> f64 {
    rect_gap_squared(a, b).sqrt()
}

/// The square of [`rect_gap`] (what orders pairs of rectangles by their gap, without a root).
pub fn rect_gap_squared(a: &Rect, b: &Rect) -> f64 {
    let dx = (b.min.x - a.max.x).max(a.min.x - b.max.x).max(0.0);
    let dy = (b.min.y - a.max.y).max(a.min.y - b.max.y).max(0.0);
    dx * dx + dy * dy
}

/// The pieces of `seg` strictly inside `poly`, as distance intervals `(from, to)` measured from
/// `seg.a`, in order. Running along the boundary is not inside.
pub fn inside_intervals(poly: &Polygon<f64>, seg: &Segment) -> Vec<(f64, f64)> {
    let len = seg.length();
    let line = seg.line();
    let mut cuts: Vec<f64> = vec![0.0, len];
    let ring_lines = std::iter::once(poly.exterior())
        .chain(poly.interiors().iter())
        .flat_map(|r| r.lines());
    for edge in ring_lines {
        match geo::line_intersection::line_intersection(line, edge) {
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
    cuts.sort_by(f64::total_cmp);
    cuts.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    let mut out: Vec<(f64, f64)> = Vec::new();
    for w in cuts.windows(2) {
        let (Some(&from), Some(&to)) = (w.first(), w.get(1)) else {
            continue;
        };
        if to - from < 1e-9 {
            continue;
        }
        let mid = seg.at((from + to) / 2.0);
        if poly.contains(&geo::Point::new(mid.x, mid.y)) {
            match out.last_mut() {
                Some(last) if (last.1 - from).abs() < 1e-9 => last.1 = to,
                _ => out.push((from, to)),
            }
        }
    }
    out
}

/// Does the segment touch or cross the polygon (boundary included)?
pub fn segment_meets_polygon(poly: &Polygon<f64>, seg: &Segment) -> bool {
    seg.line().intersects(poly)
}

/// Does the segment touch or cross the polyline?
pub fn segment_meets_polyline(line: &LineString<f64>, seg: &Segment) -> bool {
    seg.line().intersects(line)
}

/// Distance from a base to a chain of points. `geo`'s line-string distance indexes the chain's
/// segments and unwraps the nearest one, so a chain of one point (a wall drawn as a single
/// point, a ring collapsed to one corner) would panic: that case is a point's distance, and an
/// empty chain is infinitely far.
fn base_to_chain(base: &Polygon<f64>, chain: &LineString<f64>) -> f64 {
    match chain.0.as_slice() {
        [] => f64::INFINITY,
        [c] => Euclidean.distance(&geo::Point::from(*c), base),
        _ => Euclidean.distance(base, chain),
    }
}

/// Shortest distance from a footprint's bases to a polygon (0 when they overlap).
pub fn footprint_polygon_distance(fp: &Footprint, poly: &Polygon<f64>) -> f64 {
    // A polygon of fewer than two corners has no edge for `geo` to measure to (see
    // `base_to_chain`).
    let degenerate = poly.exterior().0.len() < 2;
    fp.stands
        .iter()
        .map(|s| -> f64 {
            if degenerate {
                base_to_chain(&s.polygon(), poly.exterior())
            } else {
                Euclidean.distance(&s.polygon(), poly)
            }
        })
        .fold(f64::INFINITY, f64::min)
}

/// Shortest distance from a footprint's bases to a polygon's boundary: 0 when a base straddles
/// it, and for a base wholly inside, how far it stands in from the edge.
pub fn footprint_boundary_distance(fp: &Footprint, poly: &Polygon<f64>) -> f64 {
    let ring = poly.exterior();
    fp.stands
        .iter()
        .map(|s| -> f64 { base_to_chain(&s.polygon(), ring) })
        .fold(f64::INFINITY, f64::min)
}

/// Shortest distance from a footprint's bases to a polyline (a line of one point is that
/// point; of none, infinitely far).
pub fn footprint_polyline_distance(fp: &Footprint, line: &LineString<f64>) -> f64 {
    fp.stands
        .iter()
        .map(|s| -> f64 { base_to_chain(&s.polygon(), line) })
        .fold(f64::INFINITY, f64::min)
}

/// Shortest distance from a point to a footprint's bases (0 inside one).
pub fn point_footprint_distance(p: Point, fp: &Footprint) -> f64 {
    let gp = geo::Point::new(p.x, p.y);
    fp.stands
        .iter()
        .map(|s| -> f64 { Euclidean.distance(&gp, &s.polygon()) })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::super::footprint::ring_polygon;
    use super::*;

    fn square(x0: f64, y0: f64, side: f64) -> Polygon<f64> {
        ring_polygon(&[
            Point::new(x0, y0),
            Point::new(x0 + side, y0),
            Point::new(x0 + side, y0 + side),
            Point::new(x0, y0 + side),
        ])
    }

    #[test]
    fn intervals_inside_a_square() {
        let sq = square(10.0, -5.0, 10.0);
        let seg = Segment::new(Point::new(0.0, 0.0), Point::new(30.0, 0.0));
        assert_eq!(inside_intervals(&sq, &seg), vec![(10.0, 20.0)]);
        let from_inside = Segment::new(Point::new(15.0, 0.0), Point::new(30.0, 0.0));
        assert_eq!(inside_intervals(&sq, &from_inside), vec![(0.0, 5.0)]);
        let along_edge = Segment::new(Point::new(0.0, -5.0), Point::new(30.0, -5.0));
        assert!(inside_intervals(&sq, &along_edge).is_empty());
        let missing = Segment::new(Point::new(0.0, 20.0), Point::new(30.0, 20.0));
        assert!(inside_intervals(&sq, &missing).is_empty());
    }

    #[test]
    fn intervals_in_a_concave_polygon() {
        // A U shape: the segment crosses both arms.
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
        let seg = Segment::new(Point::new(-5.0, 10.0), Point::new(35.0, 10.0));
        assert_eq!(inside_intervals(&u, &seg), vec![(5.0, 15.0), (25.0, 35.0)]);
    }

    /// Issue #22: a wall of one point panicked inside `geo`'s distance (an empty segment index
    /// unwrapped); it is now the distance to that point, and an empty line is infinitely far.
    #[test]
    fn distances_to_one_point_lines_and_rings_do_not_panic() {
        use crate::geom::{footprint, Arrangement, StandKind};
        let fp = footprint(
            StandKind::Infantry,
            1,
            Arrangement::Line { gap_cm: 0.0 },
            Point::new(10.0, 10.0),
            0.0,
            1.0,
        );
        // The stand runs x 8.75..11.25, y 8.5..10 (the pose is its front edge's centre).
        let one = LineString::from(vec![(10.0, 14.0)]);
        assert!((footprint_polyline_distance(&fp, &one) - 4.0).abs() < 1e-9);
        assert_eq!(
            footprint_polyline_distance(&fp, &LineString::new(vec![])),
            f64::INFINITY
        );
        let dot = ring_polygon(&[Point::new(10.0, 14.0)]);
        assert!((footprint_polygon_distance(&fp, &dot) - 4.0).abs() < 1e-9);
        assert!((footprint_boundary_distance(&fp, &dot) - 4.0).abs() < 1e-9);
    }

    #[test]
    fn trimming_and_rect_gap() {
        let s = Segment::new(Point::new(0.0, 0.0), Point::new(10.0, 0.0)).trimmed(1.0);
        assert_eq!((s.a.x, s.b.x), (1.0, 9.0));
        let a = Rect {
            min: Point::new(0.0, 0.0),
            max: Point::new(1.0, 1.0),
        };
        let b = Rect {
            min: Point::new(4.0, 5.0),
            max: Point::new(6.0, 6.0),
        };
        assert_eq!(rect_gap(&a, &b), 5.0);
        assert!(!rects_overlap(&a, &b));
    }
}
