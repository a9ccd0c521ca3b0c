//! The view's furniture, drawn over the table in screen space: the legend of the terrain kinds
//! present (and the sides and field defences), the scale bar, and the pointer's table
//! coordinates.

use super::projector::Projector;
use super::scene::TableScene;
use super::terrain::{layer, legend_name, style};
use crate::geom::Point;
use egui::{Color32, FontId, Stroke};

const INK: Color32 = Color32::from_rgb(0x1e, 0x1a, 0x15);
const CARD: Color32 = Color32::from_rgba_premultiplied(0xee, 0xea, 0xe0, 0xe6);

/// The rows of the legend: (swatch colour, drawn as a line?, name), terrain kinds in drawing
/// order, then field defences, then the sides.
pub fn rows(scene: &TableScene) -> Vec<(Color32, bool, String)> {
    let mut kinds: Vec<_> = scene.terrain.iter().map(|f| f.kind).collect();
    kinds.sort_by_key(|k| layer(*k));
    kinds.dedup();
    let mut out: Vec<(Color32, bool, String)> = kinds
        .into_iter()
        .map(|k| (style(k).fill, k.is_line(), legend_name(k)))
        .collect();
    if !scene.defences.is_empty() {
        out.push((
            Color32::from_rgb(0x8a, 0x6a, 0x40),
            true,
            "Field defences".into(),
        ));
    }
    let mut sides: Vec<usize> = scene.pieces.iter().map(|p| p.side).collect();
    sides.sort_unstable();
    sides.dedup();
    for s in sides {
        if let Some((name, colour)) = scene.sides.get(s) {
            out.push((*colour, false, name.clone()));
        }
    }
    out
}

/// The legend in the view's top-right corner; returns its rectangle. In a view too small to
/// spare the room (the legend would cover more than a tenth of it) only a "Legend" tab is
/// drawn, and the legend opens while the pointer is over the tab.
pub fn paint_legend(
    painter: &egui::Painter,
    view: egui::Rect,
    scene: &TableScene,
    pointer: Option<egui::Pos2>,
) -> egui::Rect {
    let rows = rows(scene);
    if rows.is_empty() {
        return egui::Rect::NOTHING;
    }
    let font = FontId::proportional(11.5);
    let galleys: Vec<_> = rows
        .iter()
        .map(|(_, _, t)| painter.layout_no_wrap(t.clone(), font.clone(), INK))
        .collect();
    let row_h = 16.0;
    let w = galleys.iter().map(|g| g.size().x).fold(0.0, f32::max) + 40.0;
    let h = row_h * rows.len() as f32 + 10.0;
    let rect = egui::Rect::from_min_size(
        egui::pos2(view.right() - w - 10.0, view.top() + 10.0),
        egui::vec2(w, h),
    );
    if w * h > view.area() * 0.1 {
        let tab = painter.layout_no_wrap("Legend".into(), font, INK);
        let tab_rect = egui::Rect::from_min_size(
            egui::pos2(view.right() - tab.size().x - 22.0, view.top() + 10.0),
            tab.size() + egui::vec2(12.0, 6.0),
        );
        if !pointer.is_some_and(|p| tab_rect.contains(p) || rect.contains(p)) {
            painter.rect(
                tab_rect,
                4.0,
                CARD,
                Stroke::new(1.0, Color32::from_rgb(0x8a, 0x80, 0x70)),
                egui::StrokeKind::Inside,
            );
            painter.galley(tab_rect.min + egui::vec2(6.0, 3.0), tab, INK);
            return tab_rect;
        }
    }
    painter.rect(
        rect,
        4.0,
        CARD,
        Stroke::new(1.0, Color32::from_rgb(0x8a, 0x80, 0x70)),
        egui::StrokeKind::Inside,
    );
    for (n, ((colour, line, _), g)) in rows.iter().zip(galleys).enumerate() {
        let y = rect.top() + 5.0 + row_h * n as f32 + row_h / 2.0;
        let sw =
            egui::Rect::from_center_size(egui::pos2(rect.left() + 17.0, y), egui::vec2(18.0, 11.0));
        if *line {
            painter.line_segment(
                [sw.left_center(), sw.right_center()],
                Stroke::new(4.0, *colour),
            );
        } else {
            painter.rect(
                sw,
                2.0,
                *colour,
                Stroke::new(0.8, INK),
                egui::StrokeKind::Inside,
            );
        }
        painter.galley(egui::pos2(rect.left() + 32.0, y - g.size().y / 2.0), g, INK);
    }
    rect
}

/// The longest "round" length (1, 2 or 5 × a power of ten, cm) at most `max_px` long on screen.
pub fn scale_bar_cm(zoom: f64, max_px: f64) -> f64 {
    let mut best = 1.0;
    let mut p = 0.01;
    while p < 1e5 {
        for m in [1.0, 2.0, 5.0] {
            let l = p * m;
            if l * zoom <= max_px {
                best = l;
            }
        }
        p *= 10.0;
    }
    best
}

fn cm_text(cm: f64) -> String {
    if cm >= 100.0 {
        format!("{} m", cm / 100.0)
    } else if cm >= 1.0 {
        format!("{cm:.0} cm")
    } else {
        format!("{:.0} mm", cm * 10.0)
    }
}

/// The scale bar in the bottom-left corner: alternate dark and pale halves, like a map's.
pub fn paint_scale_bar(painter: &egui::Painter, proj: &Projector) {
    let view = proj.view;
    let cm = scale_bar_cm(proj.zoom(), 150.0);
    let len = proj.len(cm);
    let origin = egui::pos2(view.left() + 14.0, view.bottom() - 16.0);
    let back = egui::Rect::from_min_max(
        origin - egui::vec2(6.0, 20.0),
        origin + egui::vec2(len + 6.0, 8.0),
    );
    painter.rect_filled(back, 3.0, CARD);
    let half = len / 2.0;
    let bar = |x0: f32, x1: f32, c: Color32| {
        painter.rect(
            egui::Rect::from_min_max(
                egui::pos2(x0, origin.y - 3.0),
                egui::pos2(x1, origin.y + 3.0),
            ),
            0.0,
            c,
            Stroke::new(1.0, INK),
            egui::StrokeKind::Inside,
        );
    };
    bar(origin.x, origin.x + half, INK);
    bar(
        origin.x + half,
        origin.x + len,
        Color32::from_rgb(0xf5, 0xf1, 0xe8),
    );
    painter.text(
        egui::pos2(origin.x, origin.y - 5.0),
        egui::Align2::LEFT_BOTTOM,
        cm_text(cm),
        FontId::proportional(11.0),
        INK,
    );
}

/// The pointer's table coordinates in the bottom-right corner.
pub fn paint_coordinates(painter: &egui::Painter, view: egui::Rect, at: Point) {
    let text = format!("x {:.1} cm   y {:.1} cm", at.x, at.y);
    let g = painter.layout_no_wrap(text, FontId::monospace(11.0), INK);
    let rect = egui::Rect::from_min_size(
        egui::pos2(
            view.right() - g.size().x - 18.0,
            view.bottom() - g.size().y - 14.0,
        ),
        g.size() + egui::vec2(8.0, 4.0),
    );
    painter.rect_filled(rect, 3.0, CARD);
    painter.galley(rect.min + egui::vec2(4.0, 2.0), g, INK);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_bar_is_a_round_length_that_fits() {
        assert_eq!(scale_bar_cm(5.0, 150.0), 20.0);
        assert_eq!(scale_bar_cm(50.0, 150.0), 2.0);
        assert_eq!(scale_bar_cm(1.0, 150.0), 100.0);
        assert_eq!(cm_text(100.0), "1 m");
        assert_eq!(cm_text(0.5), "5 mm");
    }
}
