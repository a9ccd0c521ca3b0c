//! Label culling: with hundreds of pieces on a table seen whole, their names would pile into an
//! unreadable smear. Labels keep one legible size at every zoom and are placed greedily, the most
//! important first (command units, then the units that are largest on screen); a label that
//! would overlap one already placed, or leave the view, is dropped. Dropped names are still
//! shown on hover. The same greedy pass runs every frame: it costs far less than laying out the
//! text, and needs no memory of the last frame, so labels never lag the camera.

use egui::Rect;

/// One label that wants a place on screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Where it would go (screen points).
    pub rect: Rect,
    /// Higher goes first.
    pub priority: f32,
}

/// The gap kept between two labels, in screen points.
pub const LABEL_GAP: f32 = 2.0;

/// Indices (into `candidates`) of the labels to draw: greedy by priority (ties keep the given
/// order), each kept only if it is inside `view` and overlaps no label kept before it nor any
/// of the `blocked` rectangles.
pub fn place(candidates: &[Candidate], view: Rect, blocked: &[Rect]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by(|&a, &b| {
        let pa = candidates.get(a).map_or(0.0, |c| c.priority);
        let pb = candidates.get(b).map_or(0.0, |c| c.priority);
        pb.total_cmp(&pa).then(a.cmp(&b))
    });
    let mut kept: Vec<usize> = Vec::new();
    let mut taken: Vec<Rect> = Vec::new();
    for i in order {
        let Some(c) = candidates.get(i) else {
            continue;
        };
        if !view.contains_rect(c.rect) {
            continue;
        }
        let padded = c.rect.expand(LABEL_GAP / 2.0);
        let clash = taken
            .iter()
            .chain(blocked.iter())
            .any(|t| t.intersects(padded));
        if !clash {
            taken.push(padded);
            kept.push(i);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{pos2, vec2};

    fn at(x: f32, y: f32, p: f32) -> Candidate {
        Candidate {
            rect: Rect::from_min_size(pos2(x, y), vec2(40.0, 12.0)),
            priority: p,
        }
    }

    #[test]
    fn the_more_important_of_two_overlapping_labels_wins() {
        let view = Rect::from_min_size(pos2(0.0, 0.0), vec2(400.0, 300.0));
        let c = [
            at(10.0, 10.0, 1.0),
            at(20.0, 14.0, 5.0),
            at(200.0, 100.0, 0.5),
        ];
        assert_eq!(place(&c, view, &[]), vec![1, 2]);
    }

    #[test]
    fn labels_outside_the_view_are_dropped_and_kept_ones_never_overlap() {
        let view = Rect::from_min_size(pos2(0.0, 0.0), vec2(200.0, 100.0));
        let c: Vec<Candidate> = (0..50)
            .map(|i| at((i * 13 % 230) as f32, (i * 7 % 110) as f32, (i % 5) as f32))
            .collect();
        let kept = place(&c, view, &[]);
        assert!(!kept.is_empty());
        for (n, &a) in kept.iter().enumerate() {
            assert!(view.contains_rect(c[a].rect));
            for &b in &kept[n + 1..] {
                assert!(!c[a].rect.intersects(c[b].rect), "{a} and {b} overlap");
            }
        }
    }
}
