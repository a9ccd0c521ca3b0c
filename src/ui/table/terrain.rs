//! The terrain layer: each kind painted like a cloth (woods dark green, fields straw, towns
//! brick and slate, hills shaded by contour level, water blue, roads tan, walls and hedges as
//! thick lines), and the field defences over it.
//!
//! egui fills only convex polygons, and woods, towns and hills are rarely convex, so every area
//! is triangulated once with geo's `TriangulateEarcut` into a [`egui::Mesh`] in table
//! centimetres and kept in a [`MeshCache`] keyed by the feature's id and a hash of its kind and
//! geometry: panning and zooming only move the cached vertices through the projector; an edited
//! feature re-triangulates alone, the next frame it is drawn.

use super::projector::{rects_meet, Projector};
use super::scene::SceneDefence;
use crate::geom::{point_segment_distance, Point, Rect};
use crate::model::{DefenseKind, FeatureId, Geometry, TerrainFeature, TerrainKind};
use egui::{Color32, Mesh, Shape, Stroke};
use geo::TriangulateEarcut as _;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The cloth the table is covered with.
pub const CLOTH: Color32 = Color32::from_rgb(0x7d, 0x8f, 0x5a);
/// Around the table: the room's floor.
pub const ROOM: Color32 = Color32::from_rgb(0x3b, 0x35, 0x2e);
/// The table's edge.
pub const TABLE_EDGE: Color32 = Color32::from_rgb(0x5e, 0x45, 0x2c);

/// How a kind looks: fill (areas), edge, and line width in cm for line kinds drawn without a
/// width of their own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    pub fill: Color32,
    pub edge: Color32,
    pub line_cm: f64,
}

/// The cloth colour of a kind. Hills grow darker and browner with each contour level, so a
/// level 2 on a level 1 reads as higher ground at a glance.
pub fn style(kind: TerrainKind) -> Style {
    let s = |fill: (u8, u8, u8), edge: (u8, u8, u8), line_cm: f64| Style {
        fill: Color32::from_rgb(fill.0, fill.1, fill.2),
        edge: Color32::from_rgb(edge.0, edge.1, edge.2),
        line_cm,
    };
    match kind {
        TerrainKind::Open => s((0x86, 0x98, 0x62), (0x6d, 0x7d, 0x4d), 0.0),
        TerrainKind::LowArea => s((0xc8, 0xae, 0x5a), (0x9a, 0x84, 0x3c), 0.0),
        TerrainKind::HighArea => s((0x35, 0x55, 0x2c), (0x22, 0x3a, 0x1c), 0.0),
        TerrainKind::Linear => s((0x6b, 0x64, 0x58), (0x45, 0x40, 0x38), 0.8),
        TerrainKind::Hill { level } => {
            let l = f32::from(level.clamp(1, 5) - 1);
            let k = |base: f32, step: f32| (base - step * l).clamp(0.0, 255.0) as u8;
            Style {
                fill: Color32::from_rgb(k(150.0, 16.0), k(146.0, 22.0), k(98.0, 16.0)),
                edge: Color32::from_rgb(k(96.0, 12.0), k(88.0, 14.0), k(58.0, 10.0)),
                line_cm: 0.0,
            }
        }
        TerrainKind::Mountain => s((0x8a, 0x7b, 0x6a), (0x5c, 0x50, 0x44), 0.0),
        TerrainKind::Road => s((0xc9, 0xb0, 0x82), (0x9c, 0x84, 0x5a), 2.0),
        TerrainKind::PartiallyWet => s((0x6b, 0x85, 0x6e), (0x4a, 0x66, 0x5c), 0.0),
        TerrainKind::ShallowWet => s((0x6f, 0x9c, 0xb8), (0x4a, 0x77, 0x94), 2.0),
        TerrainKind::DeepWet => s((0x47, 0x72, 0x9a), (0x33, 0x55, 0x78), 4.0),
        TerrainKind::BuiltUp => s((0x9a, 0x6e, 0x58), (0x5a, 0x4a, 0x44), 0.0),
        TerrainKind::Impassable => s((0x4a, 0x42, 0x3b), (0x2a, 0x25, 0x21), 0.0),
    }
}

/// What the legend calls a kind (our words for how it looks on the cloth).
pub fn legend_name(kind: TerrainKind) -> String {
    match kind {
        TerrainKind::Open => "Clearing".into(),
        TerrainKind::LowArea => "Fields, scrub".into(),
        TerrainKind::HighArea => "Woods, orchards".into(),
        TerrainKind::Linear => "Walls, hedges".into(),
        TerrainKind::Hill { level } => format!("Hill, level {level}"),
        TerrainKind::Mountain => "Mountain".into(),
        TerrainKind::Road => "Road".into(),
        TerrainKind::PartiallyWet => "Marsh".into(),
        TerrainKind::ShallowWet => "Stream, ford".into(),
        TerrainKind::DeepWet => "River, lake".into(),
        TerrainKind::BuiltUp => "Built-up area".into(),
        TerrainKind::Impassable => "Cliffs, ravines".into(),
    }
}

/// Drawing order: low ground first, woods and towns over hills, lines on top.
pub fn layer(kind: TerrainKind) -> u16 {
    match kind {
        TerrainKind::Hill { level } => 10 + u16::from(level),
        TerrainKind::Mountain => 30,
        TerrainKind::LowArea => 40,
        TerrainKind::PartiallyWet => 41,
        TerrainKind::DeepWet => 42,
        TerrainKind::HighArea => 50,
        TerrainKind::BuiltUp => 51,
        TerrainKind::Impassable => 52,
        TerrainKind::Open => 53,
        TerrainKind::ShallowWet => 60,
        TerrainKind::Road => 61,
        TerrainKind::Linear => 62,
    }
}

/// Is this feature painted as an area (a filled ring), or as a line?
fn is_area(f: &TerrainFeature) -> bool {
    matches!(f.geometry, Geometry::Polygon(ref p) if p.len() >= 3) && !f.kind.is_line()
}

/// A hash of what decides a feature's mesh: its kind and every coordinate, bit for bit.
pub fn geometry_hash(f: &TerrainFeature) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    layer(f.kind).hash(&mut h);
    if let TerrainKind::Hill { level } = f.kind {
        level.hash(&mut h);
    }
    match &f.geometry {
        Geometry::Polygon(pts) => {
            0u8.hash(&mut h);
            for p in pts {
                p.x.to_bits().hash(&mut h);
                p.y.to_bits().hash(&mut h);
            }
        }
        Geometry::Polyline { points, width_cm } => {
            1u8.hash(&mut h);
            width_cm.to_bits().hash(&mut h);
            for p in points {
                p.x.to_bits().hash(&mut h);
                p.y.to_bits().hash(&mut h);
            }
        }
    }
    h.finish()
}

/// One feature's triangulated fill, in table cm (f32), with its colour baked in.
#[derive(Debug, Clone)]
pub struct CachedMesh {
    pub hash: u64,
    pub mesh: Arc<Mesh>,
    pub bounds: Rect,
}

/// Triangulated area fills by feature id, kept across frames.
#[derive(Debug, Default, Clone)]
pub struct MeshCache {
    meshes: HashMap<FeatureId, CachedMesh>,
    /// How many triangulations were made since the cache was created (tests count them).
    triangulations: u64,
}

impl MeshCache {
    pub fn triangulations(&self) -> u64 {
        self.triangulations
    }

    pub fn len(&self) -> usize {
        self.meshes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.meshes.is_empty()
    }

    /// The cached mesh of an area feature, triangulating it if it is new or has changed.
    /// `None` for line features and rings that triangulate to nothing.
    pub fn mesh(&mut self, f: &TerrainFeature) -> Option<&CachedMesh> {
        if !is_area(f) {
            return None;
        }
        let hash = geometry_hash(f);
        let fresh = self.meshes.get(&f.id).is_some_and(|c| c.hash == hash);
        if !fresh {
            self.triangulations += 1;
            self.meshes.insert(f.id, triangulate(f, hash));
        }
        self.meshes.get(&f.id).filter(|c| !c.mesh.is_empty())
    }

    /// Drops the meshes of features no longer on the table.
    pub fn retain(&mut self, keep: impl Fn(FeatureId) -> bool) {
        self.meshes.retain(|id, _| keep(*id));
    }
}

/// Triangulates a ring with earcut into a mesh in table cm (empty if it has no area), so a
/// degenerate ring is remembered as empty rather than tried again every frame.
fn triangulate(f: &TerrainFeature, hash: u64) -> CachedMesh {
    let ring: &[Point] = match &f.geometry {
        Geometry::Polygon(ring) => ring,
        Geometry::Polyline { .. } => &[],
    };
    let bounds = crate::geom::footprint::rect_of(ring.iter().copied());
    let empty = || CachedMesh {
        hash,
        mesh: Arc::new(Mesh::default()),
        bounds,
    };
    let poly = crate::geom::footprint::ring_polygon(ring);
    let raw = poly.earcut_triangles_raw();
    let colour = style(f.kind).fill;
    let mut mesh = Mesh::default();
    mesh.reserve_vertices(raw.vertices.len());
    for [x, y] in &raw.vertices {
        mesh.colored_vertex(egui::pos2(*x as f32, *y as f32), colour);
    }
    mesh.reserve_triangles(raw.triangle_indices.len() / 3);
    for t in raw.triangle_indices.chunks_exact(3) {
        let (Ok(a), Ok(b), Ok(c)) = (
            u32::try_from(t[0]),
            u32::try_from(t[1]),
            u32::try_from(t[2]),
        ) else {
            return empty();
        };
        mesh.add_triangle(a, b, c);
    }
    CachedMesh {
        hash,
        mesh: Arc::new(mesh),
        bounds,
    }
}

/// The area of a mesh's triangles (in its own units squared): the tests' check that a concave
/// ring is covered exactly, not by its hull.
pub fn mesh_area(mesh: &Mesh) -> f64 {
    mesh.triangles()
        .filter_map(|[a, b, c]| {
            let p = |i: u32| mesh.vertices.get(i as usize).map(|v| v.pos);
            let (a, b, c) = (p(a)?, p(b)?, p(c)?);
            let cross = f64::from(b.x - a.x) * f64::from(c.y - a.y)
                - f64::from(c.x - a.x) * f64::from(b.y - a.y);
            Some(cross.abs() / 2.0)
        })
        .sum()
}

fn feature_bounds(f: &TerrainFeature) -> Rect {
    let pad = match &f.geometry {
        Geometry::Polyline { width_cm, .. } => width_cm.max(style(f.kind).line_cm),
        Geometry::Polygon(_) => style(f.kind).line_cm,
    };
    let r = crate::geom::footprint::rect_of(f.geometry.points().iter().copied());
    Rect {
        min: Point::new(r.min.x - pad, r.min.y - pad),
        max: Point::new(r.max.x + pad, r.max.y + pad),
    }
}

/// Paints every feature visible through `proj`, in drawing order, areas from the cache.
pub fn paint(
    painter: &egui::Painter,
    proj: &Projector,
    terrain: &[TerrainFeature],
    cache: &mut MeshCache,
) {
    let visible = proj.visible();
    let mut order: Vec<&TerrainFeature> = terrain.iter().collect();
    order.sort_by_key(|f| layer(f.kind));
    let (a, s) = proj.affine();
    // All area fills of the frame go into one mesh: one shape to tessellate, not hundreds.
    let mut fills = Mesh::default();
    let mut lines: Vec<Shape> = Vec::new();
    let edge_px = 1.0_f32.max(proj.len(0.15)).min(2.0);
    for f in order {
        if !rects_meet(&feature_bounds(f), &visible) {
            // Still keep its mesh warm, so it is not re-triangulated when it comes into view.
            let _ = cache.mesh(f);
            continue;
        }
        let st = style(f.kind);
        if let Some(c) = cache.mesh(f) {
            // Areas drawn after lines would cover them: flush the lines below first.
            if !lines.is_empty() {
                flush(painter, &mut fills, &mut lines);
            }
            append_projected(&mut fills, &c.mesh, a, s);
            if let Geometry::Polygon(ring) = &f.geometry {
                let pts: Vec<egui::Pos2> = ring.iter().map(|p| proj.to_screen(*p)).collect();
                lines.push(Shape::closed_line(pts, Stroke::new(edge_px, st.edge)));
            }
            continue;
        }
        line_feature(proj, f, st, &mut lines);
    }
    flush(painter, &mut fills, &mut lines);
}

fn flush(painter: &egui::Painter, fills: &mut Mesh, lines: &mut Vec<Shape>) {
    if !fills.is_empty() {
        painter.add(Shape::mesh(std::mem::take(fills)));
    }
    painter.extend(lines.drain(..));
}

/// Appends a cached cm mesh to `out`, moved to the screen by `screen = (a.x + x·s, a.y − y·s)`.
fn append_projected(out: &mut Mesh, mesh: &Mesh, a: egui::Pos2, s: f32) {
    let Ok(base) = u32::try_from(out.vertices.len()) else {
        return;
    };
    out.vertices.extend(mesh.vertices.iter().map(|v| {
        let mut v = *v;
        v.pos = egui::pos2(a.x + v.pos.x * s, a.y - v.pos.y * s);
        v
    }));
    out.indices.extend(mesh.indices.iter().map(|i| base + i));
}

/// Roads, streams, walls and hedges, and any feature given as a ring of a line kind.
fn line_feature(proj: &Projector, f: &TerrainFeature, st: Style, out: &mut Vec<Shape>) {
    let (pts, closed, width_cm) = match &f.geometry {
        Geometry::Polyline { points, width_cm } => (points, false, width_cm.max(0.0)),
        Geometry::Polygon(ring) => (ring, true, 0.0),
    };
    if pts.len() < 2 {
        return;
    }
    let w_cm = if width_cm > 0.0 { width_cm } else { st.line_cm };
    let screen: Vec<egui::Pos2> = pts.iter().map(|p| proj.to_screen(*p)).collect();
    let (min_px, edge) = match f.kind {
        TerrainKind::Linear => (2.5, true),
        TerrainKind::Road => (2.0, true),
        _ => (2.0, true),
    };
    let w = proj.len(w_cm).max(min_px);
    let mk = |pts: Vec<egui::Pos2>, stroke: Stroke| {
        if closed {
            Shape::closed_line(pts, stroke)
        } else {
            Shape::line(pts, stroke)
        }
    };
    if edge {
        out.push(mk(screen.clone(), Stroke::new(w + 1.5, st.edge)));
    }
    out.push(mk(screen, Stroke::new(w, st.fill)));
}

/// How a field defence looks: colour, width in cm, minimum width on screen.
fn defence_style(kind: DefenseKind) -> (Color32, f64, f32) {
    match kind {
        DefenseKind::Wire => (Color32::from_rgb(0x55, 0x55, 0x58), 0.3, 1.0),
        DefenseKind::Stakes => (Color32::from_rgb(0x6e, 0x4b, 0x2a), 0.8, 2.0),
        DefenseKind::Ditch => (Color32::from_rgb(0x4d, 0x3a, 0x26), 1.5, 2.0),
        DefenseKind::Trench | DefenseKind::DugOut => {
            (Color32::from_rgb(0x5c, 0x44, 0x2b), 0.6, 2.0)
        }
        DefenseKind::BreastWorks | DefenseKind::LogWorks => {
            (Color32::from_rgb(0x8a, 0x6a, 0x40), 1.2, 2.5)
        }
        DefenseKind::FortifiedWorks | DefenseKind::Fortification => {
            (Color32::from_rgb(0x7a, 0x76, 0x6e), 1.6, 3.0)
        }
    }
}

/// Field defences: works as raised earth lines, wire thin and dark, trenches as outlines.
pub fn paint_defences(painter: &egui::Painter, proj: &Projector, defences: &[SceneDefence]) {
    for d in defences {
        let (colour, w_cm, min_px) = defence_style(d.kind);
        let pts: Vec<egui::Pos2> = d.points.iter().map(|p| proj.to_screen(*p)).collect();
        let w = proj.len(w_cm).max(min_px);
        let closed = matches!(d.kind, DefenseKind::Trench | DefenseKind::DugOut) && pts.len() >= 3;
        let dark = Stroke::new(w + 1.5, Color32::from_rgb(0x2e, 0x24, 0x1a));
        let main = Stroke::new(w, colour);
        if closed {
            painter.add(Shape::closed_line(pts.clone(), dark));
            painter.add(Shape::closed_line(pts, main));
        } else if d.kind == DefenseKind::Wire {
            painter.extend(Shape::dashed_line(&pts, main, 4.0, 3.0));
        } else {
            painter.add(Shape::line(pts.clone(), dark));
            painter.add(Shape::line(pts, main));
        }
    }
}

/// The names of the features under a table point (top first), for the hover card.
pub fn features_at(terrain: &[TerrainFeature], p: Point) -> Vec<&TerrainFeature> {
    let mut hit: Vec<&TerrainFeature> = terrain
        .iter()
        .filter(|f| match &f.geometry {
            Geometry::Polygon(ring) if ring.len() >= 3 => crate::geom::ring_contains(ring, p),
            Geometry::Polygon(_) => false,
            Geometry::Polyline { points, width_cm } => {
                let half = (width_cm.max(style(f.kind).line_cm) / 2.0).max(0.5);
                points
                    .windows(2)
                    .any(|w| point_segment_distance(p, w[0], w[1]) <= half)
            }
        })
        .collect();
    hit.sort_by_key(|f| std::cmp::Reverse(layer(f.kind)));
    hit
}
