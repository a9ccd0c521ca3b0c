//! A refused flank (MOVE-30): the end stands of a line or extended line swung back.
//!
//! # Geometry
//!
//! A refused flank stand turns back about its **inner front corner** (the front corner next to
//! the rest of the line): the left end stand turns anticlockwise (its facing is the unit's facing
//! minus the angle), the right end stand clockwise (facing plus the angle), by at most
//! [`MAX_REFUSAL_DEG`]. Its outer end moves back; its inner rear corner swings a little into the
//! neighbouring stand (or into the gap of an extended line) — stands of one unit may overlap, and
//! nothing measures a unit against itself.
//!
//! The refused footprint keeps the unit's pose (reference point and facing) and arrangement. Its
//! firing fronts are: first the front of the **unrefused** stands (from the left end of the first
//! to the right end of the last), facing the unit's way; then one front per refused stand, its
//! own front edge (MOVE-30 ruling: "the refused stand's front edge adds its own fire cone for that
//! stand"). So a refused footprint sees from every front (the union of the half-planes, VIS-03),
//! and fires from each (FIRE-04), while front, flank and rear (FIRE-10) are judged from the
//! unrefused stands only ([`Footprint::is_refused_front`], [`Footprint::facing_centroid`]).
//!
//! A refused stand is recognised by its facing: in a line every stand faces the unit's way except
//! the refused ones, so nothing extra is stored in the footprint.
//!
//! Layering: part of `geom`; imports nothing from the rest of the crate.

use super::footprint::{normalize_deg, Arrangement, Footprint, FrontEdge, Stand};
use super::Point;
use geo::{Centroid, MultiPolygon};
use serde::{Deserialize, Serialize};

/// MOVE-30: a flank stand swings back by at most this much.
pub const MAX_REFUSAL_DEG: f64 = 45.0;

/// Angles closer to 0 than this (degrees) count as straight.
const STRAIGHT_DEG: f64 = 1e-9;

/// MOVE-30: how far back each flank stand of a line is swung, in degrees (0 = straight).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Refusal {
    pub left_deg: f64,
    pub right_deg: f64,
}

impl Refusal {
    /// Neither flank refused.
    pub fn is_straight(&self) -> bool {
        self.left_deg.abs() <= STRAIGHT_DEG && self.right_deg.abs() <= STRAIGHT_DEG
    }
}

/// Turns `p` about `c` by `deg` in the facing convention (clockwise positive).
fn turn(p: Point, c: Point, deg: f64) -> Point {
    let (s, k) = deg.to_radians().sin_cos();
    let (x, y) = (p.x - c.x, p.y - c.y);
    Point::new(c.x + x * k + y * s, c.y - x * s + y * k)
}

/// The stand turned by `deg` (clockwise positive) about `pivot`.
fn turned(stand: &Stand, pivot: Point, deg: f64) -> Stand {
    Stand {
        centre: turn(stand.centre, pivot, deg),
        facing_deg: stand.facing_deg + deg,
        ..*stand
    }
}

impl Footprint {
    /// MOVE-30: this footprint with its flank stands swung back. Only a line arrangement of two
    /// stands or more is refused, and at least one stand always stays unrefused: with two stands
    /// only the left flank is (if asked), otherwise the right. Angles are clamped to
    /// 0..=[`MAX_REFUSAL_DEG`] (the rules layer refuses anything else before it gets here).
    pub fn with_refusal(mut self, refusal: Refusal) -> Footprint {
        if !matches!(self.arrangement, Arrangement::Line { .. }) || self.stands.len() < 2 {
            return self;
        }
        let clamp = |a: f64| {
            if a.is_finite() {
                a.clamp(0.0, MAX_REFUSAL_DEG)
            } else {
                0.0
            }
        };
        let (left, right) = (clamp(refusal.left_deg), clamp(refusal.right_deg));
        let n = self.stands.len();
        let left_on = left > STRAIGHT_DEG;
        let right_on = right > STRAIGHT_DEG && n >= 2 + usize::from(left_on);
        if !left_on && !right_on {
            return self;
        }
        let first = usize::from(left_on);
        let last = if right_on { n - 2 } else { n - 1 };
        let (Some(a), Some(b)) = (self.stands.get(first), self.stands.get(last)) else {
            return self;
        };
        let main = FrontEdge {
            left: a.front_edge().left,
            right: b.front_edge().right,
            facing_deg: self.facing_deg,
        };
        let mut extra = Vec::new();
        if left_on {
            if let Some(s) = self.stands.first_mut() {
                let pivot = s.front_edge().right;
                *s = turned(s, pivot, -left);
                extra.push(s.front_edge());
            }
        }
        if right_on {
            if let Some(s) = self.stands.last_mut() {
                let pivot = s.front_edge().left;
                *s = turned(s, pivot, right);
                extra.push(s.front_edge());
            }
        }
        self.fronts = std::iter::once(main).chain(extra).collect();
        self
    }

    /// MOVE-30: is this stand a refused flank stand (a stand of a line not facing the unit's
    /// way)?
    pub fn is_refused_stand(&self, s: &Stand) -> bool {
        matches!(self.arrangement, Arrangement::Line { .. })
            && normalize_deg(s.facing_deg - self.facing_deg).abs() > STRAIGHT_DEG
    }

    /// MOVE-30: is this front a refused stand's own front (not the unit's facing front)?
    pub fn is_refused_front(&self, e: &FrontEdge) -> bool {
        matches!(self.arrangement, Arrangement::Line { .. })
            && normalize_deg(e.facing_deg - self.facing_deg).abs() > STRAIGHT_DEG
    }

    /// MOVE-30: has any flank stand been swung back?
    pub fn has_refused_stands(&self) -> bool {
        self.stands.iter().any(|s| self.is_refused_stand(s))
    }

    /// MOVE-30 ruling: the centre the unit's facing is judged from — the centroid of the
    /// unrefused stands (all stands when none is refused).
    pub fn facing_centroid(&self) -> Point {
        if !self.has_refused_stands() {
            return self.centroid();
        }
        let polys = MultiPolygon::new(
            self.stands
                .iter()
                .filter(|s| !self.is_refused_stand(s))
                .map(Stand::polygon)
                .collect(),
        );
        polys
            .centroid()
            .map_or_else(|| self.centroid(), |c| Point::new(c.x(), c.y()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::footprint::{
        aspect_of, fire_cone_contains, footprint, heading, sight_arc_contains, Aspect, StandKind,
    };
    use geo::Intersects;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    fn line(n: usize, gap: f64) -> Footprint {
        footprint(
            StandKind::Infantry,
            n,
            Arrangement::Line { gap_cm: gap },
            Point::new(0.0, 0.0),
            0.0,
            1.0,
        )
    }

    #[test]
    fn move_30_left_flank_turns_back_about_its_inner_front_corner() {
        let fp = line(4, 0.0).with_refusal(Refusal {
            left_deg: 90.0_f64.min(MAX_REFUSAL_DEG),
            right_deg: 0.0,
        });
        let [s0, s1, s2, s3] = [0, 1, 2, 3].map(|i| fp.stands[i]);
        // Stand 0 spanned x −5..−2.5 at the front (y = 0); it pivots on (−2.5, 0).
        let [fl, fr, _, _] = s0.corners();
        assert!(close(fr.x, -2.5) && close(fr.y, 0.0));
        let h = 2.5 * 45f64.to_radians().cos();
        assert!(close(fl.x, -2.5 - h) && close(fl.y, -h), "{fl:?}");
        assert!(close(s0.facing_deg, -45.0));
        for s in [s1, s2, s3] {
            assert!(close(s.facing_deg, 0.0));
        }
        assert!(fp.is_refused_stand(&s0) && !fp.is_refused_stand(&s1));
        // Fronts: the unrefused stands' front (x −2.5..5), then the refused stand's own.
        assert_eq!(fp.front_edges().len(), 2);
        let main = fp.front_edges()[0];
        assert!(close(main.left.x, -2.5) && close(main.right.x, 5.0));
        assert!(!fp.is_refused_front(&main));
        assert!(fp.is_refused_front(&fp.front_edges()[1]));
        // The pose is kept.
        assert!(close(fp.at.x, 0.0) && close(fp.facing_deg, 0.0));
    }

    #[test]
    fn move_30_both_flanks_and_the_limits() {
        let fp = line(4, 1.0).with_refusal(Refusal {
            left_deg: 30.0,
            right_deg: 45.0,
        });
        assert!(close(fp.stands[0].facing_deg, -30.0));
        assert!(close(fp.stands[3].facing_deg, 45.0));
        assert_eq!(fp.front_edges().len(), 3);
        // Extended line (1 cm gaps, frontage 13): the right stand pivots on its own front-left
        // corner at x = 6.5 − 2.5 = 4.
        let [fl, fr, _, _] = fp.stands[3].corners();
        assert!(close(fl.x, 4.0) && close(fl.y, 0.0));
        let h = 2.5 * 45f64.to_radians().cos();
        assert!(close(fr.x, 4.0 + h) && close(fr.y, -h));
        // Two stands: only one flank; one stand: none; 0° and a column: unchanged.
        let two = line(2, 0.0).with_refusal(Refusal {
            left_deg: 20.0,
            right_deg: 20.0,
        });
        assert_eq!(
            two.stands
                .iter()
                .filter(|s| two.is_refused_stand(s))
                .count(),
            1
        );
        let one = line(1, 0.0).with_refusal(Refusal {
            left_deg: 20.0,
            right_deg: 0.0,
        });
        assert_eq!(one, line(1, 0.0));
        assert_eq!(line(4, 0.0).with_refusal(Refusal::default()), line(4, 0.0));
        let col = footprint(
            StandKind::Infantry,
            4,
            Arrangement::Column,
            Point::new(0.0, 0.0),
            0.0,
            1.0,
        );
        assert_eq!(
            col.clone().with_refusal(Refusal {
                left_deg: 30.0,
                right_deg: 0.0
            }),
            col
        );
    }

    #[test]
    fn move_30_refused_stand_fires_and_sees_from_its_own_front_but_facing_is_the_line_s() {
        let fp = line(4, 0.0).with_refusal(Refusal {
            left_deg: 45.0,
            right_deg: 0.0,
        });
        // Out to the front-left, beyond the line's own cone (x < −5 − 10·tan 15° at y = 10).
        let p = Point::new(-14.0, 6.0);
        let main = fp.front_edges()[0];
        let own = fp.front_edges()[1];
        assert!(!fire_cone_contains(&main, p));
        assert!(fire_cone_contains(&own, p));
        assert!(sight_arc_contains(&fp, p));
        // Behind the line's front but ahead of the refused stand: seen only through it.
        let q = Point::new(-9.0, -1.0);
        assert!(sight_arc_contains(&fp, q));
        assert!(!sight_arc_contains(&line(4, 0.0), q));
        // An attacker there is in the refused stand's cone, but the unit's facing is its
        // unrefused stands': a flank shot.
        let attacker = footprint(
            StandKind::Infantry,
            2,
            Arrangement::Line { gap_cm: 0.0 },
            Point::new(-16.0, 8.0),
            135.0,
            1.0,
        );
        assert!(own.cone_polygon(1000.0).intersects(&attacker.polygons()));
        assert!(!main.cone_polygon(1000.0).intersects(&attacker.polygons()));
        assert_eq!(aspect_of(&attacker, &fp), Aspect::Flank);
        let ahead = heading(fp.stands[0].facing_deg);
        assert!(ahead.x < 0.0 && ahead.y > 0.0);
        // The facing centroid is the unrefused stands' (x −2.5..5 → 1.25).
        assert!(close(fp.facing_centroid().x, 1.25));
    }
}
