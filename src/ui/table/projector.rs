//! The camera over the table and the projector it gives each frame: table centimetres ↔ screen
//! points. Every layer (terrain, stands, labels, overlays) and every hit test goes through the
//! same [`Projector`], so what is drawn and what is clicked can never disagree.
//!
//! The table's `y` runs from the first side's rear edge towards the second side, and a facing of
//! 0° points along +y, clockwise (`geom::footprint`). The screen's y runs downwards, so the
//! projector flips y: the first side sits at the bottom looking up the screen, and a facing
//! turns clockwise on screen as it does on the table (no mirror image).

use crate::geom::{Point, Rect};

/// Zoom limits: the widest view shows the whole table with room around it; the closest shows
/// [`CLOSEST_VIEW_CM`] across the view's shorter side, so a single 2.5 cm infantry stand fills a
/// good third of it (the "1 cm filling a stand" end of the range).
pub const CLOSEST_VIEW_CM: f64 = 8.0;
/// How far out past "the whole table" one may zoom: a little cloth around it.
pub const WIDEST_OF_FIT: f64 = 0.6;
/// The margin (screen points) left around the table when fitting it.
pub const FIT_MARGIN_PX: f64 = 24.0;

/// Where the camera looks (table cm) and how close (screen points per cm).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    pub centre: Point,
    pub zoom: f64,
}

impl Camera {
    /// The camera that shows the whole `width × depth` table centred in `view`.
    pub fn fit(width_cm: f64, depth_cm: f64, view: egui::Rect) -> Camera {
        Camera {
            centre: Point::new(width_cm / 2.0, depth_cm / 2.0),
            zoom: fit_zoom(width_cm, depth_cm, view),
        }
    }

    /// Scales by `factor` about the screen point `anchor`: the table point under the anchor
    /// stays under it (the zoom is clamped to [`zoom_range`] first).
    pub fn zoom_about(
        &mut self,
        anchor: egui::Pos2,
        factor: f64,
        view: egui::Rect,
        table: (f64, f64),
    ) {
        if !factor.is_finite() || factor <= 0.0 {
            return;
        }
        let before = Projector::new(view, *self).to_table(anchor);
        let (lo, hi) = zoom_range(table.0, table.1, view);
        self.zoom = (self.zoom * factor).clamp(lo, hi);
        // Put `before` back under the anchor.
        let c = view.center();
        self.centre = Point::new(
            before.x - (f64::from(anchor.x) - f64::from(c.x)) / self.zoom,
            before.y + (f64::from(anchor.y) - f64::from(c.y)) / self.zoom,
        );
    }

    /// Moves the table by a screen-space drag of `delta` points (the cloth follows the hand).
    pub fn pan_by(&mut self, delta: egui::Vec2) {
        if self.zoom > 0.0 {
            self.centre.x -= f64::from(delta.x) / self.zoom;
            self.centre.y += f64::from(delta.y) / self.zoom;
        }
    }

    /// Keeps the camera's centre over the table, so the table can never be lost off screen.
    pub fn keep_over(&mut self, width_cm: f64, depth_cm: f64) {
        self.centre.x = self.centre.x.clamp(0.0, width_cm.max(0.0));
        self.centre.y = self.centre.y.clamp(0.0, depth_cm.max(0.0));
    }
}

/// The zoom at which the whole table fits in `view` with [`FIT_MARGIN_PX`] to spare.
pub fn fit_zoom(width_cm: f64, depth_cm: f64, view: egui::Rect) -> f64 {
    let w = (f64::from(view.width()) - 2.0 * FIT_MARGIN_PX).max(1.0);
    let h = (f64::from(view.height()) - 2.0 * FIT_MARGIN_PX).max(1.0);
    let zx = w / width_cm.max(1.0);
    let zy = h / depth_cm.max(1.0);
    zx.min(zy).max(1e-3)
}

/// (widest, closest) zoom in screen points per cm for this table in this view.
pub fn zoom_range(width_cm: f64, depth_cm: f64, view: egui::Rect) -> (f64, f64) {
    let lo = fit_zoom(width_cm, depth_cm, view) * WIDEST_OF_FIT;
    let short = f64::from(view.width().min(view.height())).max(1.0);
    let hi = (short / CLOSEST_VIEW_CM).max(lo);
    (lo, hi)
}

/// One frame's mapping between table centimetres and screen points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projector {
    /// The widget's rectangle on screen.
    pub view: egui::Rect,
    pub camera: Camera,
}

impl Projector {
    pub fn new(view: egui::Rect, camera: Camera) -> Projector {
        Projector { view, camera }
    }

    /// Screen points per centimetre.
    pub fn zoom(&self) -> f64 {
        self.camera.zoom
    }

    pub fn to_screen(&self, p: Point) -> egui::Pos2 {
        let c = self.view.center();
        let z = self.camera.zoom;
        egui::pos2(
            (f64::from(c.x) + (p.x - self.camera.centre.x) * z) as f32,
            (f64::from(c.y) - (p.y - self.camera.centre.y) * z) as f32,
        )
    }

    pub fn to_table(&self, pos: egui::Pos2) -> Point {
        let c = self.view.center();
        let z = self.camera.zoom.max(1e-9);
        Point::new(
            self.camera.centre.x + (f64::from(pos.x) - f64::from(c.x)) / z,
            self.camera.centre.y - (f64::from(pos.y) - f64::from(c.y)) / z,
        )
    }

    /// A length on the table as screen points.
    pub fn len(&self, cm: f64) -> f32 {
        (cm * self.camera.zoom) as f32
    }

    /// The affine map as `screen = (a.x + x·s, a.y − y·s)` in f32, for transforming many
    /// vertices (the cached terrain meshes) without going through f64 each time.
    pub fn affine(&self) -> (egui::Pos2, f32) {
        let c = self.view.center();
        let z = self.camera.zoom;
        let ax = f64::from(c.x) - self.camera.centre.x * z;
        let ay = f64::from(c.y) + self.camera.centre.y * z;
        (egui::pos2(ax as f32, ay as f32), z as f32)
    }

    /// The part of the table plane the view shows (cm), for culling.
    pub fn visible(&self) -> Rect {
        let a = self.to_table(self.view.left_top());
        let b = self.to_table(self.view.right_bottom());
        Rect {
            min: Point::new(a.x.min(b.x), a.y.min(b.y)),
            max: Point::new(a.x.max(b.x), a.y.max(b.y)),
        }
    }

    /// A table rectangle as a screen rectangle.
    pub fn rect_to_screen(&self, r: Rect) -> egui::Rect {
        egui::Rect::from_two_pos(self.to_screen(r.min), self.to_screen(r.max))
    }
}

/// Do two table rectangles overlap (touching counts)?
pub fn rects_meet(a: &Rect, b: &Rect) -> bool {
    a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> egui::Rect {
        egui::Rect::from_min_size(egui::pos2(10.0, 20.0), egui::vec2(800.0, 600.0))
    }

    #[test]
    fn first_side_is_at_the_bottom_and_facing_turns_clockwise() {
        let p = Projector::new(view(), Camera::fit(240.0, 180.0, view()));
        let rear = p.to_screen(Point::new(120.0, 0.0));
        let far = p.to_screen(Point::new(120.0, 180.0));
        assert!(rear.y > far.y, "y = 0 is at the bottom");
        let right = p.to_screen(Point::new(240.0, 90.0));
        let left = p.to_screen(Point::new(0.0, 90.0));
        assert!(right.x > left.x);
    }

    #[test]
    fn zoom_is_clamped_to_its_range() {
        let mut cam = Camera::fit(240.0, 180.0, view());
        let (lo, hi) = zoom_range(240.0, 180.0, view());
        cam.zoom_about(view().center(), 1e6, view(), (240.0, 180.0));
        assert!((cam.zoom - hi).abs() < 1e-9);
        cam.zoom_about(view().center(), 1e-6, view(), (240.0, 180.0));
        assert!((cam.zoom - lo).abs() < 1e-9);
    }
}
