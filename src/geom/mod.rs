//! Table geometry in centimetres.
//!
//! The rulebook measures everything in centimetres on the table top (catalogue §1.5), so every
//! coordinate here is a [`Cm`]-valued [`Point`] with `x` running along the table's width and `y`
//! along its depth, origin at the first side's left rear corner. This module owns points, polygons,
//! polylines, bases and footprints ([`footprint`]: the reference-point convention is documented
//! there), edge-to-edge distances, sight arcs and fire cones, segment tests against terrain
//! ([`segment`]) and a spatial index ([`index`]). Polygon and segment work is done by `geo`, the
//! index by `rstar`; geom has its own small enums ([`StandKind`], [`Arrangement`]) rather than
//! the rules' formations.
//!
//! Layering: `geom` is the bottom of the pure core. It imports nothing from the rest of the crate
//! and must not import egui, eframe, rusqlite, `std::fs`, a clock or a thread RNG (checked by
//! `tests/layering.rs`).

pub mod footprint;
pub mod index;
pub mod prefilter;
pub mod refusal;
pub mod segment;

pub use footprint::{
    aspect_of, crest_line, edge_distance, fire_cone_contains, footprint, in_contact,
    sight_arc_contains, Arrangement, Aspect, CrestLine, Footprint, FrontEdge, Stand, StandKind,
};
pub use index::BoxIndex;
pub use refusal::Refusal;
pub use segment::Segment;

use serde::{Deserialize, Serialize};

/// A table measure in centimetres; the rulebook's own unit.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Cm(pub f64);

/// A point on the table, in centimetres.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub const fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }

    /// Straight-line distance to another point.
    pub fn distance(self, other: Point) -> Cm {
        Cm(((self.x - other.x).powi(2) + (self.y - other.y).powi(2)).sqrt())
    }
}

/// Shoelace area of a closed ring (absolute value), in square centimetres.
pub fn ring_area(ring: &[Point]) -> f64 {
    if ring.len() < 3 {
        return 0.0;
    }
    let mut twice = 0.0;
    for (i, a) in ring.iter().enumerate() {
        let b = ring[(i + 1) % ring.len()];
        twice += a.x * b.y - b.x * a.y;
    }
    (twice / 2.0).abs()
}

/// Even-odd point-in-polygon test for a closed ring.
pub fn ring_contains(ring: &[Point], p: Point) -> bool {
    let n = ring.len();
    if n < 3 {
        return false;
    }
    let mut inside = false;
    let mut j = n - 1;
    for i in 0..n {
        let (a, b) = (ring[i], ring[j]);
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// Length of an open polyline.
pub fn polyline_length(line: &[Point]) -> Cm {
    Cm(line.windows(2).map(|w| w[0].distance(w[1]).0).sum())
}

/// The point of the segment `a`–`b` nearest `p` (`a` when the segment has no length).
pub fn nearest_on_segment(p: Point, a: Point, b: Point) -> Point {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let l2 = dx * dx + dy * dy;
    let t = if l2 > 0.0 {
        (((p.x - a.x) * dx + (p.y - a.y) * dy) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Point::new(a.x + dx * t, a.y + dy * t)
}

/// Distance in centimetres from `p` to the nearest point of the segment `a`–`b` (to `a` when
/// the segment has no length).
pub fn point_segment_distance(p: Point, a: Point, b: Point) -> f64 {
    p.distance(nearest_on_segment(p, a, b)).0
}

/// An axis-aligned rectangle given by two corners; used for tables and zones.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    pub min: Point,
    pub max: Point,
}

impl Rect {
    pub fn contains(&self, p: Point) -> bool {
        p.x >= self.min.x && p.x <= self.max.x && p.y >= self.min.y && p.y <= self.max.y
    }

    /// This rectangle grown by `by` on every side.
    pub fn grown(&self, by: f64) -> Rect {
        Rect {
            min: Point::new(self.min.x - by, self.min.y - by),
            max: Point::new(self.max.x + by, self.max.y + by),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_segment_distance_is_to_the_nearest_point_of_the_segment() {
        let (a, b) = (Point::new(0.0, 0.0), Point::new(10.0, 0.0));
        // Beside the segment: straight across to (3, 0).
        assert_eq!(point_segment_distance(Point::new(3.0, 4.0), a, b), 4.0);
        // Beyond its end: to (10, 0), a 3-4-5 triangle.
        assert_eq!(point_segment_distance(Point::new(13.0, 4.0), a, b), 5.0);
        // A segment of no length is its one point.
        let c = Point::new(1.0, 1.0);
        assert_eq!(point_segment_distance(Point::new(4.0, 5.0), c, c), 5.0);
    }

    #[test]
    fn square_area_and_containment() {
        let sq = [
            Point::new(0.0, 0.0),
            Point::new(10.0, 0.0),
            Point::new(10.0, 10.0),
            Point::new(0.0, 10.0),
        ];
        assert_eq!(ring_area(&sq), 100.0);
        assert!(ring_contains(&sq, Point::new(5.0, 5.0)));
        assert!(!ring_contains(&sq, Point::new(15.0, 5.0)));
        assert_eq!(polyline_length(&sq[..3]).0, 20.0);
    }
}
