//! The table view: one widget that draws a scenario's table to scale, for the battle page and
//! the scenario editor alike.
//!
//! What it owns: the camera ([`projector::Camera`]: centre in table cm and zoom in screen points
//! per cm), the cache of triangulated terrain ([`terrain::MeshCache`]), and the translation of
//! pointer and keys into camera moves and *table-space intents* ([`TableResponse`]: the piece
//! hovered or clicked, the point clicked, a drag from one table point to another). It draws a
//! [`TableScene`], plain data a page builds from a `Scenario` and, in a battle, a `BattleState`;
//! it never decides what a click means: the page turns intents into actions or edits.
//!
//! Layers, each handed the same [`Projector`] for the frame: the cloth and terrain
//! ([`terrain`]), field defences, the stands ([`units`]), the page's overlays, marker badges and
//! names ([`labels`]), then the legend, scale bar and pointer coordinates ([`legend`]).
//!
//! Controls: drag with the middle or right button to pan (or the arrow keys), the wheel or `+`
//! / `-` to zoom about the pointer, `Home` to fit the whole table. Keys act while the pointer is
//! over the table or the table has focus, and never while a text field is being typed in.
//!
//! Layering: like the rest of `ui`, it reads `model`, `geom` and `rules` and never touches the
//! store, the file system or a dialog.

pub mod labels;
pub mod legend;
pub mod projector;
pub mod scene;
pub mod terrain;
pub mod units;

pub use projector::{Camera, Projector};
pub use scene::{Markers, Overlay, SceneDefence, ScenePiece, TableScene};

use crate::geom::Point;
use crate::rules::PieceId;
use egui::{Event, Key, MouseWheelUnit, PointerButton, Sense, Shape, Stroke, Ui};

/// Zoom per point of wheel movement (a notch of a mouse wheel is about 50 points: ×1.16).
const WHEEL_ZOOM_PER_POINT: f64 = 0.003;
/// Zoom per press of `+` or `-`.
const KEY_ZOOM: f64 = 1.25;
/// Share of the view an arrow key pans.
const KEY_PAN: f32 = 0.12;

/// A drag with the primary button, in table cm: where it started, where the pointer is now
/// (or where it was let go), and the piece it started on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TableDrag {
    pub from: Point,
    pub to: Point,
    pub piece: Option<PieceId>,
    /// The button was released this frame: `to` is the drop point.
    pub finished: bool,
}

/// What happened on the table this frame, in table terms.
#[derive(Debug, Clone)]
pub struct TableResponse {
    /// The widget's own response (focus, hover, context menus).
    pub response: egui::Response,
    /// The table point under the pointer.
    pub pointer: Option<Point>,
    /// The piece with a stand under the pointer.
    pub hovered_piece: Option<PieceId>,
    /// A primary click this frame: the point, and the piece there if any.
    pub clicked_point: Option<Point>,
    pub clicked_piece: Option<PieceId>,
    /// A primary-button drag under way or just finished.
    pub drag: Option<TableDrag>,
}

/// The table view's state between frames.
#[derive(Debug, Clone)]
pub struct TableView {
    camera: Option<Camera>,
    /// The camera was moved by hand: keep it when the view is resized (otherwise keep fitting).
    moved: bool,
    table: (f64, f64),
    meshes: terrain::MeshCache,
    last: Option<Projector>,
    /// A primary drag under way: where it started, the piece there, the pointer last seen.
    drag: Option<(Point, Option<PieceId>, Point)>,
    /// Draw the legend (on by default).
    pub legend: bool,
    /// Draw the built-in hover card over a piece (on by default; a page with a card of its
    /// own turns it off).
    pub piece_card: bool,
    /// Labels drawn last frame (for tests and tuning).
    labels_drawn: usize,
}

impl Default for TableView {
    fn default() -> Self {
        TableView {
            camera: None,
            moved: false,
            table: (0.0, 0.0),
            meshes: terrain::MeshCache::default(),
            last: None,
            drag: None,
            legend: true,
            piece_card: true,
            labels_drawn: 0,
        }
    }
}

impl TableView {
    pub fn new() -> TableView {
        TableView::default()
    }

    /// The camera as last drawn.
    pub fn camera(&self) -> Option<Camera> {
        self.camera
    }

    /// The projector of the last frame drawn: what a test or a page uses to turn table cm into
    /// screen points exactly as the view does.
    pub fn projector(&self) -> Option<Projector> {
        self.last
    }

    /// The terrain meshes kept (triangulation count and size).
    pub fn mesh_cache(&self) -> &terrain::MeshCache {
        &self.meshes
    }

    /// How many piece names fitted on screen last frame.
    pub fn labels_drawn(&self) -> usize {
        self.labels_drawn
    }

    /// Looks at the whole table again (as `Home` does).
    pub fn fit(&mut self) {
        self.camera = None;
        self.moved = false;
    }

    /// Draws the scene in all the space `ui` offers and returns what the pointer did.
    pub fn show(&mut self, ui: &mut Ui, scene: &TableScene) -> TableResponse {
        let size = ui.available_size().max(egui::vec2(160.0, 120.0));
        let (rect, response) = ui.allocate_exact_size(size, Sense::click_and_drag());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, "Table"));
        let table = (scene.width_cm.max(1.0), scene.depth_cm.max(1.0));
        if self.table != table {
            self.table = table;
            self.fit();
        }
        let mut camera = match self.camera {
            Some(c) if self.moved => c,
            _ => Camera::fit(table.0, table.1, rect),
        };
        self.handle_input(ui, &response, rect, &mut camera);
        camera.keep_over(table.0, table.1);
        let (lo, hi) = projector::zoom_range(table.0, table.1, rect);
        camera.zoom = camera.zoom.clamp(lo, hi);
        self.camera = Some(camera);
        let proj = Projector::new(rect, camera);
        self.last = Some(proj);

        let pointer = response
            .hover_pos()
            .filter(|p| rect.contains(*p))
            .map(|p| proj.to_table(p));
        let hovered_piece = pointer.and_then(|p| units::piece_at(scene, p));

        let painter = ui.painter_at(rect);
        self.paint(
            &painter,
            &proj,
            scene,
            hovered_piece,
            pointer,
            response.hover_pos(),
        );

        let mut out = TableResponse {
            response: response.clone(),
            pointer,
            hovered_piece,
            clicked_point: None,
            clicked_piece: None,
            drag: None,
        };
        if response.clicked_by(PointerButton::Primary) {
            response.request_focus();
            if let Some(p) = response.interact_pointer_pos().map(|p| proj.to_table(p)) {
                out.clicked_point = Some(p);
                out.clicked_piece = units::piece_at(scene, p);
            }
        }
        if response.drag_started_by(PointerButton::Primary) {
            let origin = ui.input(|i| i.pointer.press_origin());
            if let Some(from) = origin.map(|p| proj.to_table(p)) {
                self.drag = Some((from, units::piece_at(scene, from), from));
            }
        }
        if let Some((from, piece, last)) = self.drag {
            // The pointer may leave the window as the button is let go: the drop is where it
            // was last seen.
            let to = response
                .interact_pointer_pos()
                .map(|p| proj.to_table(p))
                .or(pointer)
                .unwrap_or(last);
            let finished = response.drag_stopped_by(PointerButton::Primary)
                || !response.dragged_by(PointerButton::Primary);
            out.drag = Some(TableDrag {
                from,
                to,
                piece,
                finished,
            });
            self.drag = if finished {
                None
            } else {
                Some((from, piece, to))
            };
        }
        out
    }

    /// Wheel, pinch, keys and pan drags → camera moves.
    fn handle_input(
        &mut self,
        ui: &Ui,
        response: &egui::Response,
        rect: egui::Rect,
        cam: &mut Camera,
    ) {
        let table = self.table;
        if response.dragged_by(PointerButton::Middle)
            || response.dragged_by(PointerButton::Secondary)
        {
            let d = response.drag_delta();
            if d != egui::Vec2::ZERO {
                cam.pan_by(d);
                self.moved = true;
            }
        }
        let hovered = response.contains_pointer();
        if hovered {
            let (factor, anchor) = ui.input(|i| {
                let mut f = 1.0_f64;
                for e in &i.events {
                    match e {
                        Event::MouseWheel { unit, delta, .. } => {
                            let pts = match unit {
                                MouseWheelUnit::Point => f64::from(delta.y),
                                MouseWheelUnit::Line => f64::from(delta.y) * 50.0,
                                MouseWheelUnit::Page => {
                                    f64::from(delta.y) * f64::from(rect.height())
                                }
                            };
                            f *= (pts * WHEEL_ZOOM_PER_POINT).exp();
                        }
                        Event::Zoom(z) => f *= f64::from(*z),
                        _ => {}
                    }
                }
                (f, i.pointer.hover_pos())
            });
            if (factor - 1.0).abs() > 1e-9 {
                let anchor = anchor
                    .filter(|p| rect.contains(*p))
                    .unwrap_or(rect.center());
                cam.zoom_about(anchor, factor, rect, table);
                self.moved = true;
            }
        }
        let keys_ours = (hovered || response.has_focus()) && !ui.ctx().text_edit_focused();
        if !keys_ours {
            return;
        }
        let (home, zoom_in, zoom_out, pan, anchor) = ui.input(|i| {
            let mut pan = egui::Vec2::ZERO;
            let step = egui::vec2(rect.width(), rect.height()) * KEY_PAN;
            // Arrow keys move the view: the table slides the other way.
            if i.key_pressed(Key::ArrowLeft) {
                pan.x += step.x;
            }
            if i.key_pressed(Key::ArrowRight) {
                pan.x -= step.x;
            }
            if i.key_pressed(Key::ArrowUp) {
                pan.y += step.y;
            }
            if i.key_pressed(Key::ArrowDown) {
                pan.y -= step.y;
            }
            (
                i.key_pressed(Key::Home),
                i.key_pressed(Key::Plus) || i.key_pressed(Key::Equals),
                i.key_pressed(Key::Minus),
                pan,
                i.pointer.hover_pos(),
            )
        });
        let anchor = anchor
            .filter(|p| rect.contains(*p))
            .unwrap_or(rect.center());
        if zoom_in {
            cam.zoom_about(anchor, KEY_ZOOM, rect, table);
            self.moved = true;
        }
        if zoom_out {
            cam.zoom_about(anchor, 1.0 / KEY_ZOOM, rect, table);
            self.moved = true;
        }
        if pan != egui::Vec2::ZERO {
            cam.pan_by(pan);
            self.moved = true;
        }
        if home {
            *cam = Camera::fit(table.0, table.1, rect);
            self.moved = false;
        }
    }

    fn paint(
        &mut self,
        painter: &egui::Painter,
        proj: &Projector,
        scene: &TableScene,
        hovered: Option<PieceId>,
        pointer: Option<Point>,
        pointer_screen: Option<egui::Pos2>,
    ) {
        let view = proj.view;
        painter.rect_filled(view, 0.0, terrain::ROOM);
        let table = proj.rect_to_screen(crate::geom::Rect {
            min: Point::new(0.0, 0.0),
            max: Point::new(scene.width_cm, scene.depth_cm),
        });
        painter.rect_filled(
            table.expand(proj.len(1.5).clamp(2.0, 14.0)),
            2.0,
            terrain::TABLE_EDGE,
        );
        painter.rect_filled(table, 0.0, terrain::CLOTH);
        terrain::paint(painter, proj, &scene.terrain, &mut self.meshes);
        if self.meshes.len() > scene.terrain.len() {
            self.meshes
                .retain(|id| scene.terrain.iter().any(|f| f.id == id));
        }
        terrain::paint_defences(painter, proj, &scene.defences);
        let drawn = units::paint_stands(painter, proj, scene, hovered);
        paint_overlays(painter, proj, &scene.overlays);
        let badges = units::paint_badges(painter, scene, &drawn);
        let mut blocked = badges;
        let legend = if self.legend {
            legend::paint_legend(painter, view, scene, pointer_screen)
        } else {
            egui::Rect::NOTHING
        };
        blocked.push(legend);
        self.labels_drawn = units::paint_labels(painter, view, scene, &drawn, &blocked, hovered);
        legend::paint_scale_bar(painter, proj);
        if let Some(p) = pointer {
            legend::paint_coordinates(painter, view, p);
        }
        if let Some(at) = pointer_screen.filter(|_| self.piece_card || hovered.is_none()) {
            let mut lines = Vec::new();
            if let Some(pc) = hovered.and_then(|h| scene.piece(h)) {
                lines.push(pc.label.clone());
                if !pc.detail.is_empty() {
                    lines.push(pc.detail.clone());
                }
                let m = pc.markers.describe();
                if !m.is_empty() {
                    lines.push(m.join(", "));
                }
            }
            if let Some(p) = pointer {
                for f in terrain::features_at(&scene.terrain, p).into_iter().take(3) {
                    lines.push(format!("{} ({})", f.name, terrain::legend_name(f.kind)));
                }
            }
            units::paint_hover_card(painter, view, at, &lines);
        }
    }
}

/// The page's overlays, in table cm.
fn paint_overlays(painter: &egui::Painter, proj: &Projector, overlays: &[Overlay]) {
    for o in overlays {
        match o {
            Overlay::Polygon {
                points,
                fill,
                stroke,
            } => {
                let pts: Vec<egui::Pos2> = points.iter().map(|p| proj.to_screen(*p)).collect();
                if *fill != egui::Color32::TRANSPARENT {
                    painter.add(Shape::convex_polygon(pts.clone(), *fill, Stroke::NONE));
                }
                painter.extend(Shape::dashed_line(&closed(pts), *stroke, 6.0, 4.0));
            }
            Overlay::Polyline { points, stroke } => {
                let pts: Vec<egui::Pos2> = points.iter().map(|p| proj.to_screen(*p)).collect();
                painter.add(Shape::line(pts, *stroke));
            }
            Overlay::Circle {
                centre,
                radius_cm,
                fill,
                stroke,
            } => {
                painter.circle(
                    proj.to_screen(*centre),
                    proj.len(*radius_cm),
                    *fill,
                    *stroke,
                );
            }
            Overlay::Text { at, text, colour } => {
                painter.text(
                    proj.to_screen(*at),
                    egui::Align2::CENTER_CENTER,
                    text,
                    egui::FontId::proportional(units::LABEL_SIZE),
                    *colour,
                );
            }
        }
    }
}

fn closed(mut pts: Vec<egui::Pos2>) -> Vec<egui::Pos2> {
    if let Some(first) = pts.first().copied() {
        pts.push(first);
    }
    pts
}
