//! The units layer: every stand as the engine lays it out (`rules::geometry::footprint_of`,
//! copied into [`ScenePiece::stands`]), a filled rectangle in its side's colour with a darker
//! front edge, command stands marked with a gold disc; marker badges (hits, Suppressed,
//! Disordered, Exhausted, dug in) beside the unit; and names placed by [`super::labels`].

use super::labels::{self, Candidate};
use super::projector::{rects_meet, Projector};
use super::scene::{ScenePiece, TableScene};
use crate::geom::Point;
use crate::rules::PieceId;
use egui::{Color32, FontId, Pos2, Shape, Stroke};

/// The size of names on the table, whatever the zoom.
pub const LABEL_SIZE: f32 = 11.5;
const BADGE_SIZE: f32 = 9.0;
const INK: Color32 = Color32::from_rgb(0x1e, 0x1a, 0x15);
const GOLD: Color32 = Color32::from_rgb(0xe0, 0xb8, 0x3c);

fn scale(c: Color32, k: f32) -> Color32 {
    let f = |v: u8| (f32::from(v) * k).clamp(0.0, 255.0) as u8;
    Color32::from_rgb(f(c.r()), f(c.g()), f(c.b()))
}

/// The topmost piece with a stand under the table point `p` (pieces drawn later are on top).
pub fn piece_at(scene: &TableScene, p: Point) -> Option<PieceId> {
    scene
        .pieces
        .iter()
        .rev()
        .find(|pc| pc.covers(p))
        .map(|pc| pc.id)
}

/// Paints the stands of every piece in view; returns the screen box of each piece drawn, by
/// index into `scene.pieces`, for the labels and badges.
pub fn paint_stands(
    painter: &egui::Painter,
    proj: &Projector,
    scene: &TableScene,
    hovered: Option<PieceId>,
) -> Vec<(usize, egui::Rect)> {
    let visible = proj.visible();
    let mut drawn = Vec::new();
    let thin = Stroke::new(if proj.zoom() > 6.0 { 1.0 } else { 0.6 }, INK);
    let front_px = proj.len(0.3).clamp(1.2, 4.0);
    for (i, pc) in scene.pieces.iter().enumerate() {
        let Some(b) = pc.bounds() else {
            continue;
        };
        if !rects_meet(&b, &visible) {
            continue;
        }
        let fill = pc.colour;
        let front = scale(fill, 0.42);
        let lit = Some(pc.id) == hovered || Some(pc.id) == scene.selected;
        let outline = if lit {
            Stroke::new(2.0, Color32::WHITE)
        } else {
            thin
        };
        for s in &pc.stands {
            let [fl, fr, rr, rl] = s.corners().map(|p| proj.to_screen(p));
            painter.add(Shape::convex_polygon(vec![fl, fr, rr, rl], fill, outline));
            painter.line_segment([fl, fr], Stroke::new(front_px, front));
            if pc.command {
                let r = proj.len(s.width.min(s.depth) * 0.22).max(1.5);
                let c = proj.to_screen(s.centre);
                painter.circle(c, r, GOLD, Stroke::new(0.8, INK));
            }
        }
        drawn.push((i, proj.rect_to_screen(b)));
    }
    drawn
}

/// The badges of one piece: (text, fill).
fn badges(pc: &ScenePiece) -> Vec<(String, Color32)> {
    let m = pc.markers;
    let mut out = Vec::new();
    if m.hits > 0 {
        out.push((m.hits.to_string(), Color32::from_rgb(0xb0, 0x22, 0x22)));
    }
    if m.suppressed {
        out.push(("S".into(), Color32::from_rgb(0xc0, 0x6a, 0x10)));
    }
    if m.disordered {
        out.push(("D".into(), Color32::from_rgb(0xb8, 0x98, 0x10)));
    }
    if m.exhausted {
        out.push(("E".into(), Color32::from_rgb(0x6a, 0x3a, 0x8a)));
    }
    if m.dug_in {
        out.push(("dug in".into(), Color32::from_rgb(0x5c, 0x44, 0x2b)));
    }
    if m.prone {
        out.push(("P".into(), Color32::from_rgb(0x4a, 0x5a, 0x3a)));
    }
    out
}

/// Marker badges in a row above each piece's top-right corner; returns their rectangles (labels
/// keep clear of them).
pub fn paint_badges(
    painter: &egui::Painter,
    scene: &TableScene,
    drawn: &[(usize, egui::Rect)],
) -> Vec<egui::Rect> {
    let mut rects = Vec::new();
    let font = FontId::proportional(BADGE_SIZE);
    for &(i, b) in drawn {
        let Some(pc) = scene.pieces.get(i) else {
            continue;
        };
        if !pc.markers.any() {
            continue;
        }
        let mut x = b.right() + 1.0;
        let y = b.top() - 1.0;
        for (text, fill) in badges(pc) {
            let g = painter.layout_no_wrap(text, font.clone(), Color32::WHITE);
            let w = (g.size().x + 5.0).max(BADGE_SIZE + 4.0);
            let r = egui::Rect::from_min_size(
                egui::pos2(x, y - BADGE_SIZE - 3.0),
                egui::vec2(w, BADGE_SIZE + 4.0),
            );
            painter.rect(
                r,
                (BADGE_SIZE + 4.0) / 2.0,
                fill,
                Stroke::new(1.0, Color32::from_rgb(0xf4, 0xee, 0xe0)),
                egui::StrokeKind::Outside,
            );
            painter.galley(r.center() - g.size() / 2.0, g, Color32::WHITE);
            rects.push(r);
            x = r.right() + 2.0;
        }
    }
    rects
}

/// Names of the pieces drawn, culled so none overlaps another or a badge (the hovered piece's
/// name is on its hover card instead); returns how many were drawn.
pub fn paint_labels(
    painter: &egui::Painter,
    view: egui::Rect,
    scene: &TableScene,
    drawn: &[(usize, egui::Rect)],
    badges: &[egui::Rect],
    hovered: Option<PieceId>,
) -> usize {
    let font = FontId::proportional(LABEL_SIZE);
    let mut galleys = Vec::with_capacity(drawn.len());
    let mut cands = Vec::with_capacity(drawn.len());
    for &(i, b) in drawn {
        let Some(pc) = scene.pieces.get(i) else {
            continue;
        };
        if Some(pc.id) == hovered {
            continue;
        }
        let g = painter.layout_no_wrap(pc.label.clone(), font.clone(), INK);
        let size = g.size() + egui::vec2(6.0, 2.0);
        let rect = egui::Rect::from_min_size(
            egui::pos2(b.center().x - size.x / 2.0, b.bottom() + 2.0),
            size,
        );
        let importance = if pc.command { 1e9 } else { 0.0 };
        cands.push(Candidate {
            rect,
            priority: importance + b.area(),
        });
        galleys.push(g);
    }
    let kept = labels::place(&cands, view, badges);
    for &k in &kept {
        if let (Some(c), Some(g)) = (cands.get(k), galleys.get(k)) {
            plate(painter, c.rect, g.clone());
        }
    }
    kept.len()
}

/// A label on a pale plate, so it reads over woods and water alike.
fn plate(painter: &egui::Painter, rect: egui::Rect, galley: std::sync::Arc<egui::Galley>) {
    painter.rect_filled(
        rect,
        3.0,
        Color32::from_rgba_unmultiplied(0xf5, 0xf1, 0xe8, 215),
    );
    painter.galley(rect.min + egui::vec2(3.0, 1.0), galley, INK);
}

/// The hover card: the piece's name, detail and markers, beside the pointer, kept in view.
pub fn paint_hover_card(painter: &egui::Painter, view: egui::Rect, at: Pos2, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let galleys: Vec<_> = lines
        .iter()
        .enumerate()
        .map(|(n, t)| {
            let size = if n == 0 { 13.0 } else { 11.5 };
            painter.layout_no_wrap(t.clone(), FontId::proportional(size), INK)
        })
        .collect();
    let w = galleys.iter().map(|g| g.size().x).fold(0.0, f32::max) + 14.0;
    let h = galleys.iter().map(|g| g.size().y + 1.0).sum::<f32>() + 10.0;
    let mut min = at + egui::vec2(16.0, 12.0);
    if min.x + w > view.right() {
        min.x = at.x - 16.0 - w;
    }
    if min.y + h > view.bottom() {
        min.y = at.y - 12.0 - h;
    }
    min.x = min.x.max(view.left());
    min.y = min.y.max(view.top());
    let rect = egui::Rect::from_min_size(min, egui::vec2(w, h));
    painter.rect(
        rect,
        4.0,
        Color32::from_rgba_unmultiplied(0xfb, 0xf9, 0xf4, 240),
        Stroke::new(1.0, Color32::from_rgb(0x8a, 0x80, 0x70)),
        egui::StrokeKind::Inside,
    );
    let mut y = rect.top() + 5.0;
    for g in galleys {
        let gh = g.size().y;
        painter.galley(egui::pos2(rect.left() + 7.0, y), g, INK);
        y += gh + 1.0;
    }
}
