//! A spatial index of rectangles (an `rstar` R*-tree), so that "what is near this?" over a few
//! hundred stands and terrain features costs a tree walk instead of a scan. Items are stored by
//! the caller's index into its own vectors; the tree holds only their bounding rectangles.

use super::Rect;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};

type Entry = GeomWithData<Rectangle<[f64; 2]>, usize>;

/// Bounding rectangles keyed by the caller's item number.
#[derive(Debug, Clone, Default)]
pub struct BoxIndex {
    tree: RTree<Entry>,
    /// The same rectangles in item order, for [`BoxIndex::query_in_order`].
    flat: Vec<(Rect, usize)>,
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
        BoxIndex {
            tree: RTree::bulk_load(entries),
            flat,
        }
    }

    /// The items of [`BoxIndex::query`], in increasing item number, each with its rectangle,
    /// by a straight pass over the rectangles: for a few hundred items and a query that meets
    /// many of them (line of sight asks for everything near two units, VIS-02), cheaper than
    /// walking the tree and sorting what it finds.
    pub fn query_in_order(&self, r: &Rect) -> impl Iterator<Item = (usize, Rect)> + '_ {
        let r = *r;
        self.flat.iter().filter_map(move |(b, i)| {
            (b.min.x <= r.max.x && r.min.x <= b.max.x && b.min.y <= r.max.y && r.min.y <= b.max.y)
                .then_some((*i, *b))
        })
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
