//! A spatial index of rectangles (an `rstar` R*-tree), so that "what is near this?" over a few
//! hundred stands and terrain features costs a tree walk instead of a scan. Items are stored by
//! the caller's index into its own vectors; the tree holds only their bounding rectangles.

use super::segment::rects_overlap;
use super::Rect;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};

type Entry = GeomWithData<Rectangle<[f64; 2]>, usize>;

/// Rectangles in four flat arrays, one per coordinate, for a straight pass that tells which of
/// them meet a query rectangle. The pass decides 64 rectangles at a time into a bit mask, with
/// no branch per rectangle: which boxes meet a line of sight's surroundings follows no pattern
/// a branch predictor could learn, and the arrays are read in order.
#[derive(Debug, Clone, Default)]
pub struct FlatBoxes {
    min_x: Vec<f64>,
    min_y: Vec<f64>,
    max_x: Vec<f64>,
    max_y: Vec<f64>,
}

impl FlatBoxes {
    pub fn new(rects: &[Rect]) -> FlatBoxes {
        // One straight copy per coordinate: line of sight remakes the pieces' boxes after every
        // move.
        let coordinate = |f: fn(&Rect) -> f64| rects.iter().map(f).collect::<Vec<f64>>();
        FlatBoxes {
            min_x: coordinate(|r| r.min.x),
            min_y: coordinate(|r| r.min.y),
            max_x: coordinate(|r| r.max.x),
            max_y: coordinate(|r| r.max.y),
        }
    }

    pub fn len(&self) -> usize {
        self.min_x.len()
    }

    pub fn is_empty(&self) -> bool {
        self.min_x.is_empty()
    }

    /// The `i`th rectangle.
    pub fn get(&self, i: usize) -> Option<Rect> {
        Some(Rect {
            min: super::Point::new(*self.min_x.get(i)?, *self.min_y.get(i)?),
            max: super::Point::new(*self.max_x.get(i)?, *self.max_y.get(i)?),
        })
    }

    /// The positions, increasing, of the rectangles that meet `r` (touching counts), by
    /// [`rects_overlap`] (which has no branch).
    pub fn meeting(&self, r: &Rect) -> Meeting<'_> {
        Meeting {
            boxes: self,
            r: *r,
            next: 0,
            base: 0,
            mask: 0,
        }
    }

    /// Which of the rectangles from `base` (up to 64 of them) meet `r`, bit `j` for `base + j`.
    fn mask(&self, r: &Rect, base: usize) -> u64 {
        let end = (base + 64).min(self.len());
        fn part(v: &[f64], base: usize, end: usize) -> &[f64] {
            v.get(base..end).unwrap_or(&[])
        }
        let (x0, y0, x1, y1) = (
            part(&self.min_x, base, end),
            part(&self.min_y, base, end),
            part(&self.max_x, base, end),
            part(&self.max_y, base, end),
        );
        let mut mask = 0u64;
        for (j, (((a, b), c), d)) in x0.iter().zip(y0).zip(x1).zip(y1).enumerate() {
            let b = Rect {
                min: super::Point::new(*a, *b),
                max: super::Point::new(*c, *d),
            };
            mask |= u64::from(rects_overlap(r, &b)) << j;
        }
        mask
    }
}

/// See [`FlatBoxes::meeting`].
#[derive(Debug, Clone)]
pub struct Meeting<'a> {
    boxes: &'a FlatBoxes,
    r: Rect,
    /// The first rectangle not yet decided.
    next: usize,
    /// The position of bit 0 of `mask`.
    base: usize,
    mask: u64,
}

impl Iterator for Meeting<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            if self.next >= self.boxes.len() {
                return None;
            }
            self.base = self.next;
            self.mask = self.boxes.mask(&self.r, self.base);
            self.next += 64;
        }
        let j = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.base + j)
    }
}

/// Bounding rectangles keyed by the caller's item number.
#[derive(Debug, Clone, Default)]
pub struct BoxIndex {
    tree: RTree<Entry>,
    /// The same rectangles in item order, with their item numbers, for
    /// [`BoxIndex::query_in_order`].
    flat: FlatBoxes,
    items: Vec<usize>,
}

fn aabb(r: &Rect) -> AABB<[f64; 2]> {
    AABB::from_corners([r.min.x, r.min.y], [r.max.x, r.max.y])
}

impl BoxIndex {
    /// Bulk-loads the items (faster and better balanced than inserting one by one).
    pub fn new(items: impl IntoIterator<Item = (Rect, usize)>) -> BoxIndex {
        let mut flat: Vec<(Rect, usize)> = items.into_iter().collect();
        let entries: Vec<Entry> = flat
            .iter()
            .map(|(r, i)| GeomWithData::new(Rectangle::from_aabb(aabb(r)), *i))
            .collect();
        flat.sort_by_key(|(_, i)| *i);
        let (rects, items): (Vec<Rect>, Vec<usize>) = flat.into_iter().unzip();
        BoxIndex {
            tree: RTree::bulk_load(entries),
            flat: FlatBoxes::new(&rects),
            items,
        }
    }

    /// The items of [`BoxIndex::query`], in increasing item number, each with its rectangle,
    /// by a straight pass over the rectangles: for a few hundred items and a query that meets
    /// many of them (line of sight asks for everything near two units, VIS-02), cheaper than
    /// walking the tree and sorting what it finds.
    pub fn query_in_order(&self, r: &Rect) -> impl Iterator<Item = (usize, Rect)> + '_ {
        self.flat
            .meeting(r)
            .filter_map(|k| Some((*self.items.get(k)?, self.flat.get(k)?)))
    }

    pub fn len(&self) -> usize {
        self.tree.size()
    }

    pub fn is_empty(&self) -> bool {
        self.tree.size() == 0
    }

    /// The items whose rectangles meet `r` (touching counts), in no particular order.
    pub fn query(&self, r: &Rect) -> impl Iterator<Item = usize> + '_ {
        self.tree
            .locate_in_envelope_intersecting(&aabb(r))
            .map(|e| e.data)
    }

    /// The items whose rectangles come within `d` of `r`.
    pub fn query_within(&self, r: &Rect, d: f64) -> impl Iterator<Item = usize> + '_ {
        let grown = Rect {
            min: super::Point::new(r.min.x - d, r.min.y - d),
            max: super::Point::new(r.max.x + d, r.max.y + d),
        };
        self.tree
            .locate_in_envelope_intersecting(&aabb(&grown))
            .map(|e| e.data)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Point;
    use super::*;

    fn r(x0: f64, y0: f64, x1: f64, y1: f64) -> Rect {
        Rect {
            min: Point::new(x0, y0),
            max: Point::new(x1, y1),
        }
    }

    /// The branch-free pass finds exactly what `rects_overlap` finds, in order, across the
    /// 64-box masks and their last partial one, touching and degenerate boxes included.
    #[test]
    fn flat_boxes_meet_as_rects_overlap_does() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Whole and half centimetres, so that boxes often share an edge or a corner.
            (seed % 81) as f64 / 2.0
        };
        for n in [0usize, 1, 63, 64, 65, 130, 200] {
            let rects: Vec<Rect> = (0..n)
                .map(|_| {
                    let (x, y, w, h) = (next(), next(), next() / 8.0, next() / 8.0);
                    r(x, y, x + w, y + h)
                })
                .collect();
            let flat = FlatBoxes::new(&rects);
            assert_eq!(flat.len(), n);
            assert_eq!(flat.is_empty(), n == 0);
            let mut met = 0;
            for _ in 0..50 {
                let (x, y, w, h) = (next(), next(), next() / 2.0, next() / 2.0);
                let q = r(x, y, x + w, y + h);
                let want: Vec<usize> = (0..n)
                    .filter(|&i| rects.get(i).is_some_and(|b| rects_overlap(&q, b)))
                    .collect();
                let got: Vec<usize> = flat.meeting(&q).collect();
                assert_eq!(got, want, "{n} boxes, query {q:?}");
                met += got.len();
            }
            for (i, b) in rects.iter().enumerate() {
                assert_eq!(flat.get(i), Some(*b));
            }
            assert_eq!(flat.get(n), None);
            if n >= 64 {
                assert!(met > 0, "the queries met nothing among {n} boxes");
            }
        }
    }

    #[test]
    fn finds_what_overlaps() {
        let idx = BoxIndex::new([(r(0.0, 0.0, 1.0, 1.0), 7), (r(10.0, 10.0, 12.0, 12.0), 9)]);
        assert_eq!(idx.len(), 2);
        let mut hits: Vec<usize> = idx.query(&r(0.5, 0.5, 11.0, 11.0)).collect();
        hits.sort();
        assert_eq!(hits, vec![7, 9]);
        assert_eq!(idx.query(&r(2.0, 2.0, 3.0, 3.0)).count(), 0);
        let in_order: Vec<usize> = idx
            .query_in_order(&r(0.5, 0.5, 11.0, 11.0))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(in_order, hits);
        // Touching counts, as for the tree.
        assert_eq!(
            idx.query_in_order(&r(1.0, 1.0, 2.0, 2.0))
                .map(|(i, _)| i)
                .collect::<Vec<_>>(),
            vec![7]
        );
        assert_eq!(
            idx.query(&r(1.0, 1.0, 2.0, 2.0)).collect::<Vec<_>>(),
            vec![7]
        );
        assert_eq!(
            idx.query_within(&r(2.0, 2.0, 3.0, 3.0), 1.0)
                .collect::<Vec<_>>(),
            vec![7]
        );
    }
}
