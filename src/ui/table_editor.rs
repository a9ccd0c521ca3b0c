//! The table editor (issue #18): the scenario's table in edit mode, on the order-of-battle page's
//! "Table" view. A tool bar above the table picks what a click means:
//!
//! * **Select** — click a feature to select it (its corners get handles), a unit or HQ to show
//!   it in the inspector; drag a handle to move that corner, drag inside the selected feature to
//!   move it, drag a placed unit to move it; double-click an edge of the selected feature to put
//!   a corner there; `Delete` deletes the selected feature.
//! * **Area** / **Line** — click corner after corner; `Enter` or a double-click closes the
//!   outline, `Backspace` takes back the last corner, `Esc` drops the drawing. The kind comes
//!   from the panel beside the table, which says what the kind does (movement for foot, horse
//!   and guns from `rules::terrain::feature_going`, sight from `rules::visibility::sight_terrain`,
//!   cover from the FIRE-15 ladder `rules::firing::target_cover` uses), in our own words.
//! * **Units** — pick a unit or HQ in the list beside the table: its footprint, laid out by the
//!   engine (`BattleState::lay_out`, `rules::geometry::footprint_of`), follows the pointer; `R`
//!   (`Shift+R` back) or the wheel turns it by 15°; a click places it. What would be wrong with
//!   it there is listed live with the rule (DATA-10..12 from `rules::state::placement_violations`,
//!   and outside its side's deployment zone, SEQ-01). "Deploy this side" lays a whole side out.
//! * **Defences** — buy field defences within the posture's budget and place them
//!   (`table_defences`, DEF-01..05).
//! * **Ruler** — drag to measure.
//!
//! Also (issue #18 items 2, 6, 7): **snapping** (`S`, or the tool bar's box) puts a corner being
//! drawn or dragged onto another feature's corner, else onto its edge, else onto the table's
//! edge, when within a few screen points ([`snap_point`]; a pink ring marks the target). `R` /
//! `Shift+R` turn the selected feature by 15° about the middle of its corners ([`rotated`]),
//! one edit each. A clicked corner is picked: `Delete` or a right-click takes it out
//! ([`without_corner`]: an area keeps three, a line two, DATA-05). A deep-water river lists its
//! crossings, the roads bridging it and the shallow water fording it (a road across deep water
//! is a bridge, shallow water across it a ford, TERR-07), and adds either ([`bridge_across`],
//! [`ford_across`]). The Units list is the
//! order-of-battle tree; each row can be dragged onto the table (egui drag and drop) and each HQ
//! deployed on its own ("Deploy", `ScenarioEdit::DeployHq`). The panel states the book's table
//! advice, size (BAS-04) and terrain cover (BAS-06), worked out again after every edit.
//!
//! Every finished stroke or drag is one [`ScenarioEdit`]: the app checks it (shapes against the
//! DATA-05..09 boundary checks), saves it and keeps one undo step for it. A drawing the app
//! refuses stays on the table with the app's message above, so it can be mended; nothing
//! half-drawn is ever saved.
//!
//! Layering: `ui`; reads `model`, `geom` and `rules`, emits commands, touches no store.

use super::commands::{AppCommand, ReadyMade, ScenarioEdit, Selection, SideArea};
use super::table::{Overlay, TableScene, TableView};
use super::widgets::{palette, Emitter};
use super::View;
use crate::geom::{point_segment_distance, ring_contains, Point};
use crate::model::validate::{Subject, Violation};
use crate::model::{
    ArmyList, FeatureId, Geometry, Placement, Scenario, TerrainFeature, TerrainKind,
};
use crate::rules::terrain::{feature_going, Going, Mover, TroopKind};
use crate::rules::visibility::{sight_terrain, SightTerrain};
use crate::rules::{BattleState, PieceId};
use egui::{Color32, Key, Modifiers, RichText, Stroke, Ui};

/// How near (screen points) the pointer must be to a corner or an edge to take it.
const GRAB_PX: f32 = 9.0;
/// One press of R, or one notch of the wheel, turns a unit being placed by this much.
const TURN_DEG: f64 = 15.0;
/// How near (screen points) a corner must come to another feature's corner or edge, or to the
/// table's edge, to snap to it.
const SNAP_PX: f32 = 12.0;

/// What a click on the table does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tool {
    #[default]
    Select,
    Area,
    Line,
    Pieces,
    Zones,
    Units,
    Defences,
    Ruler,
}

impl Tool {
    pub const ALL: [Tool; 8] = [
        Tool::Select,
        Tool::Area,
        Tool::Line,
        Tool::Pieces,
        Tool::Zones,
        Tool::Units,
        Tool::Defences,
        Tool::Ruler,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Tool::Select => "Select",
            Tool::Area => "Draw area",
            Tool::Line => "Draw line",
            Tool::Pieces => "Ready-made",
            Tool::Zones => "Zones & objectives",
            Tool::Units => "Place units",
            Tool::Defences => "Defences",
            Tool::Ruler => "Ruler",
        }
    }

    pub fn hint(self) -> &'static str {
        match self {
            Tool::Select => {
                "Click a feature or unit to select it. Drag a corner handle, the feature or a \
                 unit to move it; double-click an edge for a new corner; click a corner and \
                 press Delete (or right-click it) to take it out; R / Shift+R turns the \
                 feature by 15°; Delete removes the selected feature."
            }
            Tool::Area => {
                "Click each corner. Enter or double-click closes the area, Backspace takes back \
                 a corner, Esc drops it."
            }
            Tool::Line => {
                "Click each point. Enter or double-click ends the line, Backspace takes back a \
                 point, Esc drops it."
            }
            Tool::Pieces => {
                "Pick a piece in the panel, then click the table where its middle goes; \
                 reshape it afterwards with Select."
            }
            Tool::Zones => {
                "Pick a side's zone or objective in the panel, then click its corners on the \
                 table; Enter or double-click closes it, Backspace takes back a corner, Esc \
                 drops it."
            }
            Tool::Units => {
                "Pick a unit in the list, then click the table to put it there. R or the wheel \
                 turns it (Shift+R the other way)."
            }
            Tool::Defences => super::table_defences::HINT,
            Tool::Ruler => "Drag across the table to measure.",
        }
    }
}

/// A drag the editor is following.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Drag {
    Corner { feature: FeatureId, index: usize },
    Feature { feature: FeatureId },
    Piece { piece: PieceId },
}

/// The table editor's state between frames (in `UiState`).
#[derive(Debug, Default)]
pub struct TableEditor {
    pub tool: Tool,
    /// The kind the Area tool draws, and the Line tool's.
    pub area_kind: Option<TerrainKind>,
    pub line_kind: Option<TerrainKind>,
    /// The contour level of a hill drawn (1 = lowest).
    pub hill_level: u8,
    /// The corners clicked so far, table cm.
    pub draft: Vec<Point>,
    /// A closed drawing handed to the app, waiting to show up in the scenario.
    submitted: Option<Vec<Point>>,
    pub selected_feature: Option<FeatureId>,
    /// The ready-made piece the next click drops.
    pub piece: Option<ReadyMade>,
    /// The side's zone or objective the Zones tool is drawing.
    pub area_target: Option<(usize, SideArea)>,
    drag: Option<(Drag, Point, Point)>,
    /// The unit or HQ being placed, and its facing.
    pub placing: Option<PieceId>,
    pub facing_deg: Option<f64>,
    /// The editor's own word on the last thing tried (a corner off the table, …).
    pub note: Option<String>,
    ruler: Option<(Point, Point)>,
    pointer: Option<Point>,
    /// Where the pointer last was on the table (a river's crossing is added there).
    last_pointer: Option<Point>,
    /// The scenario the cached scene and violations were built from.
    cache: Option<Cache>,
    ghost: Option<Ghost>,
    /// The Defences tool's own state (src/ui/table_defences.rs).
    pub defences: super::table_defences::DefenceTool,
    /// Snapping on (S): corners drawn and dragged go to other features' corners and edges and
    /// to the table's edge when near them.
    pub snap: bool,
    /// The corner of the selected feature picked with a click (Delete deletes it).
    pub selected_corner: Option<usize>,
    /// Where the pointer would snap to this frame (drawn as a marker).
    snap_mark: Option<Point>,
}

#[derive(Debug)]
struct Cache {
    scenario: Scenario,
    scene: TableScene,
    violations: Vec<Violation>,
    /// BAS-06: the share of the table under terrain.
    cover: f64,
}

/// The piece being placed at one spot: its stands and what would be wrong with it there.
#[derive(Debug, Clone)]
struct Ghost {
    piece: PieceId,
    at: Placement,
    stands: Vec<Vec<Point>>,
    violations: Vec<Violation>,
}

impl TableEditor {
    fn area_kind(&self) -> TerrainKind {
        match self.area_kind.unwrap_or(TerrainKind::HighArea) {
            TerrainKind::Hill { .. } => TerrainKind::Hill {
                level: self.hill_level.max(1),
            },
            k => k,
        }
    }

    fn line_kind(&self) -> TerrainKind {
        self.line_kind.unwrap_or(TerrainKind::Road)
    }

    /// The violations of the placed pieces (DATA-10..12 and zones) as last worked out.
    pub fn placement_problems(&self) -> &[Violation] {
        self.cache.as_ref().map_or(&[], |c| c.violations.as_slice())
    }

    /// The live violations of the piece following the pointer.
    pub fn ghost_problems(&self) -> &[Violation] {
        self.ghost.as_ref().map_or(&[], |g| g.violations.as_slice())
    }

    /// Where the pointer snapped to last frame, if it did.
    pub fn snap_mark(&self) -> Option<Point> {
        self.snap_mark
    }
}

/// Snapping (issue #18 item 2): where `p` goes with snapping on. The nearest corner of another
/// feature within `tol` cm comes first, then the nearest point on another feature's edge, then
/// the table's edge (each of x and y within `tol` of it goes onto it, so a corner near the
/// table's corner goes onto that corner). `skip` is the feature being reshaped. `None`: nothing
/// is near, `p` stays where it is.
pub fn snap_point(scn: &Scenario, p: Point, tol: f64, skip: Option<FeatureId>) -> Option<Point> {
    let others = || scn.terrain.iter().filter(move |f| Some(f.id) != skip);
    let nearest = |cands: &mut dyn Iterator<Item = Point>| {
        cands
            .map(|c| (c.distance(p).0, c))
            .filter(|(d, _)| *d <= tol)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, c)| c)
    };
    let mut corners = others().flat_map(|f| f.geometry.points().iter().copied());
    if let Some(c) = nearest(&mut corners) {
        return Some(c);
    }
    let mut feet = others().flat_map(|f| {
        let pts = f.geometry.points();
        let n = pts.len();
        let count = match f.geometry {
            Geometry::Polygon(_) => n,
            Geometry::Polyline { .. } => n.saturating_sub(1),
        };
        (0..count).filter_map(move |i| {
            let (a, b) = (*pts.get(i)?, *pts.get((i + 1) % n)?);
            Some(foot(p, a, b))
        })
    });
    if let Some(c) = nearest(&mut feet) {
        return Some(c);
    }
    let t = scn.table;
    let axis = |v: f64, max: f64| {
        if v.abs() <= tol {
            Some(0.0)
        } else if (max - v).abs() <= tol {
            Some(max)
        } else {
            None
        }
    };
    match (axis(p.x, t.width_cm), axis(p.y, t.depth_cm)) {
        (None, None) => None,
        (x, y) => Some(Point::new(x.unwrap_or(p.x), y.unwrap_or(p.y))),
    }
}

/// The point of segment `a`–`b` nearest to `p`.
fn foot(p: Point, a: Point, b: Point) -> Point {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let l2 = dx * dx + dy * dy;
    let t = if l2 > 0.0 {
        (((p.x - a.x) * dx + (p.y - a.y) * dy) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Point::new(a.x + dx * t, a.y + dy * t)
}

/// The feature turned by `deg` degrees about the middle of its corners (the mean point).
pub fn rotated(f: &TerrainFeature, deg: f64) -> TerrainFeature {
    let pts = f.geometry.points();
    let n = pts.len().max(1) as f64;
    let c = Point::new(
        pts.iter().map(|p| p.x).sum::<f64>() / n,
        pts.iter().map(|p| p.y).sum::<f64>() / n,
    );
    let (sin, cos) = deg.to_radians().sin_cos();
    let turn = |p: &mut Point| {
        let (x, y) = (p.x - c.x, p.y - c.y);
        *p = Point::new(c.x + x * cos - y * sin, c.y + x * sin + y * cos);
    };
    let mut g = f.clone();
    match &mut g.geometry {
        Geometry::Polygon(p) => p.iter_mut().for_each(turn),
        Geometry::Polyline { points, .. } => points.iter_mut().for_each(turn),
    }
    g
}

/// The feature without its corner `index`, or why not: an area keeps at least three corners
/// and a line two (DATA-05).
pub fn without_corner(f: &TerrainFeature, index: usize) -> Result<TerrainFeature, String> {
    let (least, what) = match f.geometry {
        Geometry::Polygon(_) => (3, "an area"),
        Geometry::Polyline { .. } => (2, "a line"),
    };
    let n = f.geometry.points().len();
    if n <= least {
        return Err(format!(
            "'{}' has only {n} corners and {what} needs at least {least} (DATA-05): the corner \
             stays. To take the feature away, click away from its corners and press Delete.",
            f.name
        ));
    }
    let mut g = f.clone();
    match &mut g.geometry {
        Geometry::Polygon(p) if index < p.len() => {
            p.remove(index);
        }
        Geometry::Polyline { points, .. } if index < points.len() => {
            points.remove(index);
        }
        _ => return Err(format!("'{}' has no corner {}", f.name, index + 1)),
    }
    Ok(g)
}

/// A river's crossing (issue #18 item 2): the model has no crossing of its own; a road across
/// deep water cuts its way through it (the TERR-07 ruling `rules::terrain` applies: the road
/// marks the bridge). This is a bridge 4 cm wide across `river` at the point of its outline
/// nearest `near`, square to that edge and long enough to reach the far bank (the river's
/// width there, measured along the crossing, plus 3 cm each side); kept on the table.
pub fn bridge_across(
    river: &TerrainFeature,
    near: Point,
    table: crate::model::Table,
) -> Option<TerrainFeature> {
    crossing_across(
        river,
        near,
        table,
        format!("Bridge over {}", river.name),
        TerrainKind::Road,
        4.0,
    )
}

/// How wide a ford [`ford_across`] makes, cm: room for a battalion of four stands in line
/// (10 cm) with a little to spare.
pub const FORD_WIDTH_CM: f64 = 12.0;

/// A ford across `river` (issue #18 item 2, TERR-07): shallow water [`FORD_WIDTH_CM`] wide laid
/// where [`bridge_across`] would lay a bridge. The engine cuts shallow water out of the deep
/// water it crosses (`rules::terrain::TerrainMap`), so troops cross there by the linear
/// stop-and-cross, limbers and wagons included, and guns count it as dense going (TERR-08).
pub fn ford_across(
    river: &TerrainFeature,
    near: Point,
    table: crate::model::Table,
) -> Option<TerrainFeature> {
    crossing_across(
        river,
        near,
        table,
        format!("Ford across {}", river.name),
        TerrainKind::ShallowWet,
        FORD_WIDTH_CM,
    )
}

/// A feature of `kind`, `width_cm` wide, laid along [`span_across`] (a bridge or a ford).
fn crossing_across(
    river: &TerrainFeature,
    near: Point,
    table: crate::model::Table,
    name: String,
    kind: TerrainKind,
    width_cm: f64,
) -> Option<TerrainFeature> {
    let (from, to) = span_across(river, near, table)?;
    Some(TerrainFeature {
        id: FeatureId(0),
        name,
        kind,
        geometry: Geometry::Polyline {
            points: vec![from, to],
            width_cm,
        },
        dense: false,
        frozen: false,
        construction: None,
    })
}

/// The two ends of a crossing of `river` at the point of its outline nearest `near`: square to
/// that edge, from 3 cm before the near bank to 3 cm past the far one, kept on the table.
fn span_across(
    river: &TerrainFeature,
    near: Point,
    table: crate::model::Table,
) -> Option<(Point, Point)> {
    let pts = river.geometry.points();
    let n = pts.len();
    // The nearest edge and the foot on it.
    let (a, b, at) = (0..n)
        .filter_map(|i| {
            let (a, b) = (*pts.get(i)?, *pts.get((i + 1) % n)?);
            let f = foot(near, a, b);
            Some((a, b, f, f.distance(near).0))
        })
        .min_by(|x, y| x.3.total_cmp(&y.3))
        .map(|(a, b, f, _)| (a, b, f))?;
    let len = a.distance(b).0;
    if len <= 0.0 {
        return None;
    }
    // Square to the bank, pointing into the water.
    let (mut nx, mut ny) = (-(b.y - a.y) / len, (b.x - a.x) / len);
    if !ring_contains(pts, Point::new(at.x + nx * 0.5, at.y + ny * 0.5)) {
        nx = -nx;
        ny = -ny;
    }
    // Walk across to the far bank (1 cm steps, at most the table's diagonal).
    let reach = table.width_cm.hypot(table.depth_cm);
    let mut w = 0.5;
    while w < reach && ring_contains(pts, Point::new(at.x + nx * w, at.y + ny * w)) {
        w += 0.5;
    }
    let clamp = |p: Point| {
        Point::new(
            p.x.clamp(0.0, table.width_cm),
            p.y.clamp(0.0, table.depth_cm),
        )
    };
    let from = clamp(Point::new(at.x - nx * 3.0, at.y - ny * 3.0));
    let to = clamp(Point::new(at.x + nx * (w + 3.0), at.y + ny * (w + 3.0)));
    Some((from, to))
}

/// The crossings of `river`: the roads (its bridges) and the shallow water (its fords,
/// TERR-07) with a point inside it or a segment that meets its outline.
pub fn crossings_of<'a>(scn: &'a Scenario, river: &TerrainFeature) -> Vec<&'a TerrainFeature> {
    let ring = river.geometry.points();
    scn.terrain
        .iter()
        .filter(|f| {
            matches!(f.kind, TerrainKind::Road | TerrainKind::ShallowWet) && f.id != river.id
        })
        .filter(|f| {
            let pts = f.geometry.points();
            pts.iter().any(|p| ring_contains(ring, *p))
                || pts.windows(2).any(|w| {
                    let [a, b] = *w else {
                        return false;
                    };
                    (0..ring.len()).any(|i| {
                        let (Some(c), Some(d)) = (ring.get(i), ring.get((i + 1) % ring.len()))
                        else {
                            return false;
                        };
                        segments_cross(a, b, *c, *d)
                    })
                })
        })
        .collect()
}

fn segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool {
    let side = |p: Point, q: Point, r: Point| (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x);
    let (d1, d2) = (side(c, d, a), side(c, d, b));
    let (d3, d4) = (side(a, b, c), side(a, b, d));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

/// The kinds drawn as areas and as lines: together the twelve of `TerrainKind::ALL`.
pub fn area_kinds() -> Vec<TerrainKind> {
    TerrainKind::ALL
        .into_iter()
        .filter(|k| !k.is_line())
        .collect()
}

pub fn line_kinds() -> Vec<TerrainKind> {
    TerrainKind::ALL
        .into_iter()
        .filter(|k| k.is_line())
        .collect()
}

/// What a kind of terrain does, in our words, from the engine's own tables: movement for foot,
/// horse and guns (`feature_going`), sight (`sight_terrain`), cover (the FIRE-15 ladder).
pub fn effects(kind: TerrainKind) -> Vec<String> {
    let going = |troops: TroopKind, animals: bool| {
        let g = feature_going(
            kind,
            false,
            false,
            Mover {
                kind: troops,
                animals,
            },
        );
        match g {
            Going::Clear => "no hindrance".to_string(),
            Going::Area { speed, stops, rule } => {
                let pace = if (speed - 0.5).abs() < 1e-9 {
                    "half pace".to_string()
                } else if (speed - 0.25).abs() < 1e-9 {
                    "quarter pace".to_string()
                } else {
                    format!("{:.0}% pace", speed * 100.0)
                };
                if stops {
                    format!("{pace}, halting at its edge going in and out ({rule})")
                } else {
                    format!("{pace} ({rule})")
                }
            }
            Going::Linear { rule } => format!("halts at it and crosses next move ({rule})"),
            Going::Impassable { rule } => format!("cannot go in ({rule})"),
        }
    };
    let sight = match sight_terrain(kind) {
        SightTerrain::Clear => "Sight: does not block the view.".to_string(),
        SightTerrain::LowArea => "Sight: troops inside are hidden beyond 20 cm in; one short \
                                  stretch (10 cm or less) can be seen across (VIS-12, VIS-13)."
            .to_string(),
        SightTerrain::HighArea => "Sight: no view through it; troops at its edge see out and \
                                   are seen, troops inside only from 10 cm (VIS-11, VIS-12)."
            .to_string(),
        SightTerrain::Hill { level } => format!(
            "Sight: high ground at level {level}; troops behind its crest are out of view \
             (VIS-14)."
        ),
        SightTerrain::Linear => {
            "Sight: a wall or hedge; only the works that are built up block a view.".to_string()
        }
    };
    let cover = match kind {
        TerrainKind::HighArea => "Cover: soft for troops inside (FIRE-15).",
        TerrainKind::BuiltUp => "Cover: hard for troops inside (FIRE-15).",
        TerrainKind::Linear => {
            "Cover: soft for troops touching it when the shot crosses it (FIRE-15)."
        }
        _ => "Cover: none; troops here are in the open (FIRE-15).",
    };
    vec![
        format!("Foot: {}.", going(TroopKind::Foot, false)),
        format!("Horse: {}.", going(TroopKind::Cavalry, true)),
        format!("Guns: {}.", going(TroopKind::TowedGun, true)),
        sight,
        cover.to_string(),
    ]
}

/// The corners of a piece's stands laid out at `at`, and what would be wrong with it there:
/// the engine's placement checks (DATA-10..12) and the side's deployment zone.
fn ghost_of(scn: &Scenario, lists: &[ArmyList], piece: PieceId, at: Placement) -> Option<Ghost> {
    let mut probe = scn.clone();
    match piece {
        PieceId::Unit { side, unit } => {
            let u = probe
                .sides
                .get_mut(side)?
                .units
                .iter_mut()
                .find(|u| u.id == unit)?;
            u.position = Some(at);
        }
        PieceId::Hq { side, hq } => {
            let h = probe
                .sides
                .get_mut(side)?
                .hqs
                .iter_mut()
                .find(|h| h.id == hq)?;
            h.position = Some(at);
        }
    }
    let state = BattleState::lay_out(&probe, lists, 0).ok()?;
    let ctx = crate::rules::Ctx::new(&probe, lists, &state);
    let fp = crate::rules::geometry::footprint_of(&ctx, state.piece(piece)?)?;
    let stands: Vec<Vec<Point>> = fp.stands.iter().map(|s| s.corners().to_vec()).collect();
    let subject = subject_of(piece);
    let violations: Vec<Violation> = crate::rules::state::placement_violations(&probe, lists)
        .into_iter()
        .filter(|v| v.subject == subject)
        .collect();
    Some(Ghost {
        piece,
        at,
        stands,
        violations,
    })
}

fn subject_of(piece: PieceId) -> Subject {
    match piece {
        PieceId::Unit { side, unit } => Subject::Unit(side, unit),
        PieceId::Hq { side, hq } => Subject::Hq(side, hq),
    }
}

/// Every placement problem of the scenario, the engine's own: off the table, overlapping, in
/// impassable ground (DATA-10..12) and outside the side's zone (SEQ-01).
fn placement_problems(scn: &Scenario, lists: &[ArmyList]) -> (TableScene, Vec<Violation>) {
    let Ok(state) = BattleState::lay_out(scn, lists, 0) else {
        return (TableScene::of_scenario(scn), Vec::new());
    };
    let scene = TableScene::of_battle(scn, lists, &state);
    (scene, crate::rules::state::placement_violations(scn, lists))
}

fn edit(e: ScenarioEdit) -> AppCommand {
    AppCommand::Edit(e)
}

/// The table editor: a panel beside the table and the table with its tool bar. Called by the
/// order-of-battle page in place of its central panel.
pub fn page(
    ui: &mut Ui,
    view: &View<'_>,
    scn: &Scenario,
    ed: &mut TableEditor,
    table: &mut TableView,
    selection: &mut Selection,
    out: &mut Emitter,
) {
    refresh(ed, view, scn);
    egui::Panel::left("table-editor-side")
        .default_size(260.0)
        .size_range(220.0..=360.0)
        .frame(
            egui::Frame::new()
                .fill(palette::PANEL)
                .inner_margin(egui::Margin::same(10)),
        )
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| side_panel(ui, view, scn, ed, out));
        });
    egui::CentralPanel::default()
        .frame(egui::Frame::new())
        .show(ui, |ui| {
            egui::Frame::new()
                .fill(palette::PANEL)
                .inner_margin(egui::Margin::symmetric(10, 6))
                .show(ui, |ui| tool_bar(ui, ed));
            table_area(ui, view, scn, ed, table, selection, out);
        });
}

/// Brings the cached scene and problems up to date, and settles a drawing handed to the app.
fn refresh(ed: &mut TableEditor, view: &View<'_>, scn: &Scenario) {
    if ed.cache.as_ref().is_none_or(|c| c.scenario != *scn) {
        let (scene, violations) = placement_problems(scn, view.lists);
        // The cover is the app's, worked out once per edit with the advice (BAS-06).
        let cover = view.terrain_cover;
        ed.cache = Some(Cache {
            scenario: scn.clone(),
            scene,
            violations,
            cover,
        });
        ed.ghost = None;
    }
    if let Some(points) = ed.submitted.take() {
        let feature = scn
            .terrain
            .iter()
            .rev()
            .find(|f| f.geometry.points() == points.as_slice());
        let area = scn
            .sides
            .iter()
            .any(|d| SideArea::ALL.iter().any(|a| a.of(d) == points.as_slice()));
        match feature {
            Some(f) => {
                ed.selected_feature = Some(f.id);
                ed.draft.clear();
                ed.note = None;
            }
            None if area => {
                ed.area_target = None;
                ed.draft.clear();
                ed.note = None;
            }
            None => {
                ed.note = Some(
                    "Not saved: the outline was refused (see the message above). Mend it with \
                     Backspace and more corners, or Esc to drop it."
                        .into(),
                );
            }
        }
    }
    if ed
        .selected_feature
        .is_some_and(|id| scn.terrain.iter().all(|f| f.id != id))
    {
        ed.selected_feature = None;
    }
    let corners = ed
        .selected_feature
        .and_then(|id| scn.terrain.iter().find(|f| f.id == id))
        .map_or(0, |f| f.geometry.points().len());
    if ed.selected_corner.is_some_and(|i| i >= corners) {
        ed.selected_corner = None;
    }
}

fn tool_bar(ui: &mut Ui, ed: &mut TableEditor) {
    ui.horizontal_wrapped(|ui| {
        for tool in Tool::ALL {
            if ui
                .selectable_label(ed.tool == tool, tool.label())
                .on_hover_text(tool.hint())
                .clicked()
                && ed.tool != tool
            {
                ed.tool = tool;
                ed.draft.clear();
                ed.drag = None;
                ed.note = None;
                if tool != Tool::Units {
                    ed.placing = None;
                }
                ed.area_target = None;
            }
        }
        ui.separator();
        ui.checkbox(&mut ed.snap, "Snap (S)").on_hover_text(
            "Corners you draw or drag go onto other features' corners and edges and onto the \
             table's edge when near them",
        );
        ui.separator();
        ui.label(RichText::new(ed.tool.hint()).color(palette::FAINT));
    });
    if let Some(note) = &ed.note {
        ui.label(RichText::new(note).color(palette::WARN));
    }
}

fn side_panel(
    ui: &mut Ui,
    view: &View<'_>,
    scn: &Scenario,
    ed: &mut TableEditor,
    out: &mut Emitter,
) {
    match ed.tool {
        Tool::Area | Tool::Line => kind_picker(ui, ed),
        Tool::Select => selected_feature(ui, scn, ed, out),
        Tool::Pieces => {
            ui.label(RichText::new("Ready-made pieces").strong());
            for piece in ReadyMade::ALL {
                if ui
                    .selectable_label(ed.piece == Some(piece), piece.label())
                    .clicked()
                {
                    ed.piece = Some(piece);
                }
            }
            ui.label(
                RichText::new("Click the table where the piece's middle goes.")
                    .color(palette::FAINT),
            );
        }
        Tool::Zones => zones_panel(ui, scn, ed, out),
        Tool::Units => units_list(ui, scn, ed, out),
        Tool::Defences => super::table_defences::panel(ui, view, scn, &mut ed.defences, out),
        Tool::Ruler => {
            ui.label(RichText::new("Ruler").strong());
            match ed.ruler {
                Some((a, b)) => {
                    ui.label(format!("{:.1} cm", a.distance(b).0));
                }
                None => {
                    ui.label("Drag across the table.");
                }
            }
        }
    }
    let problems = ed.placement_problems();
    if !problems.is_empty() {
        ui.add_space(10.0);
        ui.label(RichText::new("Placement problems").strong());
        for v in problems {
            ui.label(RichText::new(format!("{}: {}", v.rule, v.message)).color(palette::WARN));
        }
    }
    table_advice(ui, scn, ed);
    if !view.advice.is_empty() {
        ui.add_space(10.0);
        super::widgets::advice_box(ui, view.advice);
    }
}

/// The book's advice on the table, live as the designer draws (issue #18 item 7): the table's
/// size against BAS-04 and the share under terrain against BAS-06, worked out again after every
/// edit (the cover with the feature being dragged where it would go is not shown: see
/// docs/benchmarks.md for what one working out costs).
fn table_advice(ui: &mut Ui, scn: &Scenario, ed: &TableEditor) {
    use crate::model::advice::{COVER_RANGE, MIN_TABLE_CM};
    ui.add_space(10.0);
    ui.label(RichText::new("Table advice").strong());
    let k = scn.measure_scale.factor();
    let (short, long) = (MIN_TABLE_CM.0 * k, MIN_TABLE_CM.1 * k);
    let (w, d) = (scn.table.width_cm, scn.table.depth_cm);
    let big_enough = w.min(d) >= short && w.max(d) >= long;
    let size = format!(
        "Table {w} × {d} cm: {} (BAS-04 asks at least {short} × {long} cm at this scale).",
        if big_enough { "big enough" } else { "small" }
    );
    ui.label(RichText::new(size).color(if big_enough {
        palette::OK
    } else {
        palette::WARN
    }));
    let cover = ed.cache.as_ref().map_or(0.0, |c| c.cover);
    let pct = (cover * 100.0).round();
    let (lo, hi) = COVER_RANGE;
    let (verdict, good) = if cover < lo {
        ("too open: add woods, villages or hills", false)
    } else if cover > hi + 1e-9 {
        ("crowded: take some away", false)
    } else {
        ("within the book's range", true)
    };
    ui.label(
        RichText::new(format!(
            "Terrain covers {pct}% of the table: {verdict} (BAS-06 advises a third to a half)."
        ))
        .color(if good { palette::OK } else { palette::WARN }),
    );
}

fn kind_picker(ui: &mut Ui, ed: &mut TableEditor) {
    let (kinds, current) = if ed.tool == Tool::Area {
        (area_kinds(), ed.area_kind())
    } else {
        (line_kinds(), ed.line_kind())
    };
    ui.label(RichText::new("Kind of terrain").strong());
    for k in kinds {
        let on = std::mem::discriminant(&k) == std::mem::discriminant(&current);
        if ui.radio(on, k.label()).clicked() {
            if ed.tool == Tool::Area {
                ed.area_kind = Some(k);
            } else {
                ed.line_kind = Some(k);
            }
        }
    }
    if matches!(current, TerrainKind::Hill { .. }) {
        ui.horizontal(|ui| {
            ui.label("Contour level");
            let mut level = ed.hill_level.max(1);
            ui.add(egui::DragValue::new(&mut level).range(1..=9));
            ed.hill_level = level;
        });
    }
    ui.add_space(6.0);
    ui.label(RichText::new(format!("What {} does", current.label().to_lowercase())).strong());
    for line in effects(current) {
        ui.label(RichText::new(line).color(palette::FAINT));
    }
    if !ed.draft.is_empty() {
        ui.add_space(6.0);
        let n = ed.draft.len();
        ui.label(format!(
            "{n} corner{} so far",
            if n == 1 { "" } else { "s" }
        ));
    }
}

fn selected_feature(ui: &mut Ui, scn: &Scenario, ed: &mut TableEditor, out: &mut Emitter) {
    let Some(f) = ed
        .selected_feature
        .and_then(|id| scn.terrain.iter().find(|f| f.id == id))
    else {
        ui.label(RichText::new("Nothing selected").strong());
        ui.label(
            RichText::new("Click a feature on the table to reshape, move or delete it.")
                .color(palette::FAINT),
        );
        return;
    };
    ui.label(RichText::new(&f.name).strong());
    ui.label(format!(
        "{}, {} corners",
        super::table::terrain::legend_name(f.kind),
        f.geometry.points().len()
    ));
    let kinds = if f.kind.is_line() {
        line_kinds()
    } else {
        area_kinds()
    };
    ui.horizontal_wrapped(|ui| {
        for k in kinds {
            let on = std::mem::discriminant(&k) == std::mem::discriminant(&f.kind);
            if ui.selectable_label(on, k.label()).clicked() && !on {
                let mut g = f.clone();
                g.kind = match k {
                    TerrainKind::Hill { .. } => TerrainKind::Hill {
                        level: ed.hill_level.max(1),
                    },
                    k => k,
                };
                out.send(edit(ScenarioEdit::SetFeature(Box::new(g))));
            }
        }
    });
    if let TerrainKind::Hill { level } = f.kind {
        ui.horizontal(|ui| {
            ui.label("Contour level");
            let mut l = level;
            let r = ui.add(egui::DragValue::new(&mut l).range(1..=9));
            if r.changed() && l != level {
                let mut g = f.clone();
                g.kind = TerrainKind::Hill { level: l };
                out.send(edit(ScenarioEdit::SetFeature(Box::new(g))));
            }
        });
    }
    for line in effects(f.kind) {
        ui.label(RichText::new(line).color(palette::FAINT));
    }
    ui.horizontal_wrapped(|ui| {
        ui.label("Turn");
        for (text, deg, hint) in [
            ("⟲ 15°", -TURN_DEG, "Turn it 15° one way (Shift+R)"),
            ("⟳ 15°", TURN_DEG, "Turn it 15° the other way (R)"),
        ] {
            if ui.button(text).on_hover_text(hint).clicked() {
                out.send(edit(ScenarioEdit::SetFeature(Box::new(rotated(f, deg)))));
            }
        }
    });
    if let Some(i) = ed.selected_corner {
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("Corner {} picked", i + 1));
            if ui
                .button("Delete corner")
                .on_hover_text("Take this corner out (Delete, or right-click the corner)")
                .clicked()
            {
                delete_corner(f, i, ed, out);
            }
        });
    }
    if ui
        .button("Delete feature")
        .on_hover_text("Remove it from the table (Delete, with no corner picked)")
        .clicked()
    {
        out.send(edit(ScenarioEdit::DeleteFeature(f.id)));
    }
    if f.kind == TerrainKind::DeepWet {
        crossings_panel(ui, scn, f, ed, out);
    }
}

/// A river's crossing points: its bridges listed, one added where the pointer last was over
/// it (or at its middle), each one selected to move it or deleted here.
fn crossings_panel(
    ui: &mut Ui,
    scn: &Scenario,
    river: &TerrainFeature,
    ed: &mut TableEditor,
    out: &mut Emitter,
) {
    ui.add_space(8.0);
    ui.label(RichText::new("Crossings").strong());
    ui.label(
        RichText::new(
            "Deep water is crossed only at a bridge or a ford (TERR-07). A bridge is a road \
             across the river; a ford is shallow water across it, waded by the stop-and-cross \
             of walls and streams (limbers and wagons too; heavy going for guns). Select one \
             to drag it along the bank.",
        )
        .color(palette::FAINT),
    );
    let crossings = crossings_of(scn, river);
    if crossings.is_empty() {
        ui.label("No crossing yet.");
    }
    for c in crossings {
        ui.horizontal_wrapped(|ui| {
            ui.label(
                RichText::new(if c.kind == TerrainKind::Road {
                    "Bridge"
                } else {
                    "Ford"
                })
                .color(palette::FAINT),
            );
            if ui.selectable_label(false, &c.name).clicked() {
                ed.selected_feature = Some(c.id);
                ed.selected_corner = None;
            }
            if ui
                .small_button("Delete")
                .on_hover_text(format!("Take '{}' away", c.name))
                .clicked()
            {
                out.send(edit(ScenarioEdit::DeleteFeature(c.id)));
            }
        });
    }
    // Where the pointer was last over the river, else the middle of its outline.
    let pts = river.geometry.points();
    let at = ed
        .last_pointer
        .filter(|p| ring_contains(pts, *p))
        .unwrap_or_else(|| {
            let n = pts.len().max(1) as f64;
            Point::new(
                pts.iter().map(|p| p.x).sum::<f64>() / n,
                pts.iter().map(|p| p.y).sum::<f64>() / n,
            )
        });
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Add a bridge")
            .on_hover_text(
                "A road 4 cm wide across the river, where the pointer last was over it (else \
                 near the middle of its outline)",
            )
            .clicked()
        {
            if let Some(b) = bridge_across(river, at, scn.table) {
                out.send(edit(ScenarioEdit::AddFeature(Box::new(b))));
            }
        }
        if ui
            .button("Add a ford")
            .on_hover_text(format!(
                "Shallow water {FORD_WIDTH_CM} cm wide across the river, where the pointer \
                 last was over it (else near the middle of its outline)"
            ))
            .clicked()
        {
            if let Some(f) = ford_across(river, at, scn.table) {
                out.send(edit(ScenarioEdit::AddFeature(Box::new(f))));
            }
        }
    });
}

/// Deletes corner `i` of `f`, or says why it stays.
fn delete_corner(f: &TerrainFeature, i: usize, ed: &mut TableEditor, out: &mut Emitter) {
    match without_corner(f, i) {
        Ok(g) => {
            out.send(edit(ScenarioEdit::SetFeature(Box::new(g))));
            ed.selected_corner = None;
            ed.note = None;
        }
        Err(why) => ed.note = Some(why),
    }
}

/// The order of battle as a tree beside the table: each HQ with its units beneath it and its
/// sub-HQs further in. Each row is picked with a click (then the table is clicked) or dragged
/// straight onto the table; each HQ can be deployed on its own, each side as a whole.
fn units_list(ui: &mut Ui, scn: &Scenario, ed: &mut TableEditor, out: &mut Emitter) {
    ui.label(RichText::new("Units to place").strong());
    ui.label(
        RichText::new("Drag a unit or HQ onto the table, or pick it and click the table.")
            .color(palette::FAINT),
    );
    if let Some(g) = &ed.ghost {
        if g.violations.is_empty() {
            ui.label(RichText::new("Fits here.").color(palette::OK));
        }
        for v in &g.violations {
            ui.label(RichText::new(format!("{}: {}", v.rule, v.message)).color(palette::ERROR));
        }
    }
    for (si, side) in scn.sides.iter().enumerate() {
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            ui.label(RichText::new(&side.name).strong());
        });
        if ui
            .button("Deploy this side")
            .on_hover_text("Lay every unit and HQ of this side out in line in its zone")
            .clicked()
        {
            out.send(edit(ScenarioEdit::DeploySide(si)));
        }
        let mut row = |ui: &mut Ui, depth: usize, piece: PieceId, name: &str, placed: bool| {
            let mark = if placed { "●" } else { "○" };
            let on = ed.placing == Some(piece);
            ui.horizontal(|ui| {
                ui.add_space(14.0 * depth as f32);
                let r = ui
                    .selectable_label(on, format!("{mark} {name}"))
                    .interact(egui::Sense::drag())
                    .on_hover_text(if placed {
                        "On the table: drag it or pick it to move it"
                    } else {
                        "Not on the table yet: drag it onto the table, or pick it and click"
                    });
                r.dnd_set_drag_payload(piece);
                if r.clicked() {
                    ed.placing = Some(piece);
                    ed.facing_deg = None;
                    ed.ghost = None;
                }
                if let PieceId::Hq { side, hq } = piece {
                    if ui
                        .small_button("Deploy")
                        .accessible_name(format!("Deploy this HQ: {name}"))
                        .on_hover_text(
                            "Lay this HQ, its units and the HQs under it out in line in the \
                             zone, clear of what is already placed",
                        )
                        .clicked()
                    {
                        out.send(edit(ScenarioEdit::DeployHq { side, hq }));
                    }
                }
            });
        };
        // Depth first from the commanding officers, each HQ's units beneath it.
        let mut stack: Vec<(usize, crate::model::HqId)> = side
            .hqs
            .iter()
            .filter(|h| h.parent.is_none_or(|p| side.hq(p).is_none()))
            .rev()
            .map(|h| (0, h.id))
            .collect();
        let mut shown: Vec<crate::model::HqId> = Vec::new();
        while let Some((depth, id)) = stack.pop() {
            let Some(h) = side.hq(id) else { continue };
            if shown.contains(&id) {
                continue;
            }
            shown.push(id);
            row(
                ui,
                depth,
                PieceId::Hq { side: si, hq: h.id },
                &h.name,
                h.position.is_some(),
            );
            for u in side.units.iter().filter(|u| u.hq == id) {
                row(
                    ui,
                    depth + 1,
                    PieceId::Unit {
                        side: si,
                        unit: u.id,
                    },
                    &u.name,
                    u.position.is_some(),
                );
            }
            for sub in side.hqs.iter().rev().filter(|x| x.parent == Some(id)) {
                stack.push((depth + 1, sub.id));
            }
        }
        // Anything the tree did not reach (an HQ in a loop, a unit of no HQ).
        for h in side.hqs.iter().filter(|h| !shown.contains(&h.id)) {
            row(
                ui,
                0,
                PieceId::Hq { side: si, hq: h.id },
                &h.name,
                h.position.is_some(),
            );
        }
        for u in side.units.iter().filter(|u| !shown.contains(&u.hq)) {
            row(
                ui,
                0,
                PieceId::Unit {
                    side: si,
                    unit: u.id,
                },
                &u.name,
                u.position.is_some(),
            );
        }
    }
}

/// The piece's current placement, if it has one.
fn placement_of(scn: &Scenario, piece: PieceId) -> Option<Placement> {
    match piece {
        PieceId::Unit { side, unit } => scn.sides.get(side)?.unit(unit)?.position,
        PieceId::Hq { side, hq } => scn.sides.get(side)?.hq(hq)?.position,
    }
}

fn place(piece: PieceId, at: Placement) -> ScenarioEdit {
    match piece {
        PieceId::Unit { side, unit } => ScenarioEdit::PlaceUnit {
            side,
            unit,
            at: Some(at),
        },
        PieceId::Hq { side, hq } => ScenarioEdit::PlaceHq {
            side,
            hq,
            at: Some(at),
        },
    }
}

/// The feature with `id` moved as the drag under way says (a corner or the whole).
fn dragged(f: &TerrainFeature, drag: Drag, from: Point, to: Point) -> TerrainFeature {
    let mut g = f.clone();
    let map = |pts: &mut Vec<Point>| match drag {
        Drag::Corner { index, .. } => {
            if let Some(p) = pts.get_mut(index) {
                *p = to;
            }
        }
        Drag::Feature { .. } => {
            for p in pts.iter_mut() {
                p.x += to.x - from.x;
                p.y += to.y - from.y;
            }
        }
        Drag::Piece { .. } => {}
    };
    match &mut g.geometry {
        Geometry::Polygon(p) => map(p),
        Geometry::Polyline { points, .. } => map(points),
    }
    g
}

/// The corner of `f` within grabbing distance of `p`, nearest first.
fn corner_near(f: &TerrainFeature, p: Point, grab_cm: f64) -> Option<usize> {
    f.geometry
        .points()
        .iter()
        .enumerate()
        .map(|(i, c)| (i, c.distance(p).0))
        .filter(|(_, d)| *d <= grab_cm)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The edge of `f` within grabbing distance of `p`: the index of the corner it starts from.
fn edge_near(f: &TerrainFeature, p: Point, grab_cm: f64) -> Option<usize> {
    let pts = f.geometry.points();
    let n = pts.len();
    let closed = matches!(f.geometry, Geometry::Polygon(_));
    let count = if closed { n } else { n.saturating_sub(1) };
    (0..count)
        .filter_map(|i| {
            let a = pts.get(i)?;
            let b = pts.get((i + 1) % n)?;
            Some((i, point_segment_distance(p, *a, *b)))
        })
        .filter(|(_, d)| *d <= grab_cm)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// Closes the drawing: a feature of the chosen kind handed to the app.
fn finish_draft(ed: &mut TableEditor, out: &mut Emitter) {
    let points = ed.draft.clone();
    if ed.tool == Tool::Zones {
        if let Some((side, area)) = ed.area_target {
            out.send(edit(ScenarioEdit::SetArea {
                side,
                area,
                ring: points.clone(),
            }));
            ed.submitted = Some(points);
        }
        return;
    }
    let (kind, geometry) = if ed.tool == Tool::Line {
        let kind = ed.line_kind();
        let width_cm = match kind {
            TerrainKind::Road => 4.0,
            TerrainKind::ShallowWet => 3.0,
            _ => 0.0,
        };
        (
            kind,
            Geometry::Polyline {
                points: points.clone(),
                width_cm,
            },
        )
    } else {
        (ed.area_kind(), Geometry::Polygon(points.clone()))
    };
    let f = TerrainFeature {
        id: FeatureId(0),
        name: String::new(),
        kind,
        geometry,
        dense: false,
        frozen: false,
        construction: None,
    };
    out.send(edit(ScenarioEdit::AddFeature(Box::new(f))));
    ed.submitted = Some(points);
}

fn table_area(
    ui: &mut Ui,
    view: &View<'_>,
    scn: &Scenario,
    ed: &mut TableEditor,
    table: &mut TableView,
    selection: &mut Selection,
    out: &mut Emitter,
) {
    let typing = ui.ctx().text_edit_focused();
    let last = table.projector();
    let over_table = last.is_some_and(|p| ui.rect_contains_pointer(p.view));
    let zoom = last.map_or(4.0, |p| p.len(1.0).max(0.01) as f64);
    let grab_cm = f64::from(GRAB_PX) / zoom;
    let snap_cm = f64::from(SNAP_PX) / zoom;

    // Keys and the wheel, before the table view reads them.
    if !typing {
        let key = |ui: &Ui, k: Key| ui.input_mut(|i| i.consume_key(Modifiers::NONE, k));
        if key(ui, Key::S) {
            ed.snap = !ed.snap;
        }
        match ed.tool {
            Tool::Area | Tool::Line | Tool::Zones => {
                if key(ui, Key::Enter) && !ed.draft.is_empty() {
                    finish_draft(ed, out);
                }
                if key(ui, Key::Escape) {
                    ed.draft.clear();
                    ed.note = None;
                }
                if key(ui, Key::Backspace) {
                    ed.draft.pop();
                }
            }
            Tool::Select => {
                let selected = ed
                    .selected_feature
                    .and_then(|id| scn.terrain.iter().find(|f| f.id == id));
                if key(ui, Key::Delete) {
                    match (selected, ed.selected_corner) {
                        (Some(f), Some(i)) => delete_corner(f, i, ed, out),
                        (Some(f), None) => out.send(edit(ScenarioEdit::DeleteFeature(f.id))),
                        (None, _) => {}
                    }
                }
                let mut turn = 0.0;
                // Shift+R first: egui's plain R matches it too (it ignores Shift).
                if ui.input_mut(|i| i.consume_key(Modifiers::SHIFT, Key::R)) {
                    turn -= TURN_DEG;
                }
                if key(ui, Key::R) {
                    turn += TURN_DEG;
                }
                if let (Some(f), true) = (selected, turn != 0.0) {
                    out.send(edit(ScenarioEdit::SetFeature(Box::new(rotated(f, turn)))));
                }
                if key(ui, Key::Escape) {
                    if ed.selected_corner.is_some() {
                        ed.selected_corner = None;
                    } else {
                        ed.selected_feature = None;
                    }
                }
            }
            Tool::Units => {
                if ed.placing.is_some() {
                    let mut turn = 0.0;
                    // Shift+R first: egui's plain R matches it too (it ignores Shift).
                    if ui.input_mut(|i| i.consume_key(Modifiers::SHIFT, Key::R)) {
                        turn -= TURN_DEG;
                    }
                    if key(ui, Key::R) {
                        turn += TURN_DEG;
                    }
                    if over_table {
                        // The wheel turns the piece instead of zooming (+ and - still zoom).
                        ui.input_mut(|i| {
                            i.events.retain(|e| {
                                if let egui::Event::MouseWheel { delta, .. } = e {
                                    turn += TURN_DEG * f64::from(delta.y.signum());
                                    false
                                } else {
                                    true
                                }
                            })
                        });
                    }
                    if turn != 0.0 {
                        let f = ed.facing_deg.unwrap_or_else(|| default_facing(scn, ed));
                        ed.facing_deg = Some((f + turn).rem_euclid(360.0));
                    }
                }
                if key(ui, Key::Escape) {
                    ed.placing = None;
                    ed.ghost = None;
                }
            }
            Tool::Pieces => {
                if key(ui, Key::Escape) {
                    ed.piece = None;
                }
            }
            Tool::Defences => super::table_defences::keys(ui, &mut ed.defences, out),
            Tool::Ruler => {}
        }
    }

    let Some(cache) = ed.cache.as_ref() else {
        return;
    };
    let mut scene = cache.scene.clone();
    scene.selected = match *selection {
        Selection::Unit(side, unit) => Some(PieceId::Unit { side, unit }),
        Selection::Hq(side, hq) => Some(PieceId::Hq { side, hq }),
        Selection::Scenario | Selection::Side(_) => None,
    };
    decorate(&mut scene, scn, ed, grab_cm);
    if ed.tool == Tool::Defences {
        super::table_defences::decorate(&mut scene, view, scn, &ed.defences, grab_cm);
    }
    let r = table.show(ui, &scene);
    // Snapping: the pointer, and a click, go onto what is near (the corner being dragged skips
    // its own feature).
    let skip = match ed.drag {
        Some((Drag::Corner { feature, .. }, ..)) => Some(feature),
        _ => None,
    };
    let snaps = ed.snap
        && (matches!(ed.tool, Tool::Area | Tool::Line | Tool::Zones)
            || matches!(ed.drag, Some((Drag::Corner { .. }, ..)))
            || r.drag.is_some_and(|d| {
                ed.tool == Tool::Select
                    && ed
                        .selected_feature
                        .and_then(|id| scn.terrain.iter().find(|f| f.id == id))
                        .is_some_and(|f| corner_near(f, d.from, grab_cm).is_some())
            }));
    let snap = |p: Point| {
        if snaps {
            snap_point(scn, p, snap_cm, skip)
        } else {
            None
        }
    };
    ed.snap_mark = r.pointer.and_then(snap);
    ed.pointer = r.pointer.map(|p| snap(p).unwrap_or(p));
    if r.pointer.is_some() {
        ed.last_pointer = r.pointer;
    }
    let mut r = r;
    r.clicked_point = r.clicked_point.map(|p| snap(p).unwrap_or(p));
    if let Some(d) = r.drag.as_mut() {
        if snaps && ed.tool == Tool::Select {
            let skip = ed.selected_feature;
            d.to = snap_point(scn, d.to, snap_cm, skip).unwrap_or(d.to);
        }
    }

    let drawing = ed.tool != Tool::Zones || ed.area_target.is_some();
    match ed.tool {
        Tool::Area | Tool::Line | Tool::Zones if drawing => {
            if r.response.double_clicked() {
                // The double-click's first click already put a corner there.
                if !ed.draft.is_empty() {
                    finish_draft(ed, out);
                }
            } else if let Some(p) = r.clicked_point {
                let t = scn.table;
                if p.x < 0.0 || p.y < 0.0 || p.x > t.width_cm || p.y > t.depth_cm {
                    ed.note = Some(format!(
                        "({:.1}, {:.1}) cm is off the table: put every corner on the cloth \
                         (MOVE-02, the table edge).",
                        p.x, p.y
                    ));
                } else if ed.draft.last() != Some(&p) {
                    ed.draft.push(p);
                    ed.note = None;
                }
            }
        }
        Tool::Area | Tool::Line | Tool::Zones => {}
        Tool::Pieces => {
            if let (Some(piece), Some(at)) = (ed.piece, r.clicked_point) {
                out.send(edit(ScenarioEdit::AddPiece { piece, at }));
            }
        }
        Tool::Select => select_tool(scn, ed, selection, &r, grab_cm, out),
        Tool::Units => {
            // A row of the tree dragged over the table: it is the piece being placed, and
            // letting go places it where the pointer is.
            if let Some(piece) = r.response.dnd_hover_payload::<PieceId>().map(|p| *p) {
                if ed.placing != Some(piece) {
                    ed.placing = Some(piece);
                    ed.facing_deg = None;
                    ed.ghost = None;
                }
            }
            let dropped = r
                .response
                .dnd_release_payload::<PieceId>()
                .map(|p| *p)
                .and_then(|piece| Some((piece, r.pointer?)));
            if let Some((piece, _)) = dropped {
                ed.placing = Some(piece);
            }
            if let Some((_, p)) = dropped {
                r.clicked_point = Some(p);
            }
            if let (Some(piece), Some(p)) = (ed.placing, r.pointer.or(r.clicked_point)) {
                let facing = ed.facing_deg.unwrap_or_else(|| default_facing(scn, ed));
                let at = Placement {
                    at: p,
                    facing_deg: facing,
                };
                let stale = ed.ghost.as_ref().is_none_or(|g| {
                    g.piece != piece || g.at.facing_deg != facing || g.at.at.distance(p).0 > 0.25
                });
                if stale {
                    ed.ghost = ghost_of(scn, view.lists, piece, at);
                }
            }
            if let (Some(piece), Some(p)) = (ed.placing, r.clicked_point) {
                let facing = ed.facing_deg.unwrap_or_else(|| default_facing(scn, ed));
                out.send(edit(place(
                    piece,
                    Placement {
                        at: p,
                        facing_deg: facing,
                    },
                )));
                *selection = match piece {
                    PieceId::Unit { side, unit } => Selection::Unit(side, unit),
                    PieceId::Hq { side, hq } => Selection::Hq(side, hq),
                };
                ed.placing = next_unplaced(scn, piece);
                ed.ghost = None;
            }
        }
        Tool::Defences => {
            super::table_defences::table_input(view, scn, &mut ed.defences, &r, grab_cm, out)
        }
        Tool::Ruler => {
            if let Some(d) = r.drag {
                ed.ruler = Some((d.from, d.to));
            }
        }
    }
}

/// The facing a piece is placed with until turned: its own, or towards the enemy.
fn default_facing(scn: &Scenario, ed: &TableEditor) -> f64 {
    match ed.placing {
        Some(p) => {
            placement_of(scn, p).map_or(if p.side() == 0 { 0.0 } else { 180.0 }, |pl| pl.facing_deg)
        }
        None => 0.0,
    }
}

/// The next piece of the same side not yet on the table, after `done`.
fn next_unplaced(scn: &Scenario, done: PieceId) -> Option<PieceId> {
    let si = done.side();
    let side = scn.sides.get(si)?;
    let hqs = side
        .hqs
        .iter()
        .filter(|h| h.position.is_none())
        .map(|h| PieceId::Hq { side: si, hq: h.id });
    let units = side
        .units
        .iter()
        .filter(|u| u.position.is_none())
        .map(|u| PieceId::Unit {
            side: si,
            unit: u.id,
        });
    hqs.chain(units).find(|p| *p != done)
}

fn select_tool(
    scn: &Scenario,
    ed: &mut TableEditor,
    selection: &mut Selection,
    r: &super::table::TableResponse,
    grab_cm: f64,
    out: &mut Emitter,
) {
    let selected = ed
        .selected_feature
        .and_then(|id| scn.terrain.iter().find(|f| f.id == id));
    if let Some(d) = r.drag {
        if ed.drag.is_none() {
            let what = if let Some(i) = selected.and_then(|f| corner_near(f, d.from, grab_cm)) {
                selected.map(|f| Drag::Corner {
                    feature: f.id,
                    index: i,
                })
            } else if let Some(piece) = d.piece {
                Some(Drag::Piece { piece })
            } else {
                super::table::terrain::features_at(&scn.terrain, d.from)
                    .first()
                    .map(|f| Drag::Feature { feature: f.id })
            };
            match what {
                Some(Drag::Feature { feature }) => {
                    if ed.selected_feature != Some(feature) {
                        ed.selected_corner = None;
                    }
                    ed.selected_feature = Some(feature);
                }
                Some(Drag::Corner { index, .. }) => ed.selected_corner = Some(index),
                _ => {}
            }
            ed.drag = what.map(|w| (w, d.from, d.to));
        }
        if let Some((what, from, _)) = ed.drag {
            ed.drag = Some((what, from, d.to));
            if d.finished {
                ed.drag = None;
                if from.distance(d.to).0 > 1e-6 {
                    finish_drag(scn, what, from, d.to, out);
                }
            }
        }
        return;
    }
    // Right-click on a corner of the selected feature deletes that corner.
    if r.response.secondary_clicked() {
        if let (Some(f), Some(p)) = (selected, r.pointer) {
            if let Some(i) = corner_near(f, p, grab_cm) {
                delete_corner(f, i, ed, out);
                return;
            }
        }
    }
    if r.response.double_clicked() {
        if let (Some(f), Some(p)) = (selected, r.clicked_point.or(r.pointer)) {
            if corner_near(f, p, grab_cm).is_none() {
                if let Some(i) = edge_near(f, p, grab_cm) {
                    let mut g = f.clone();
                    match &mut g.geometry {
                        Geometry::Polygon(pts) => pts.insert(i + 1, p),
                        Geometry::Polyline { points, .. } => points.insert(i + 1, p),
                    }
                    out.send(edit(ScenarioEdit::SetFeature(Box::new(g))));
                    return;
                }
            }
        }
    }
    if let Some(p) = r.clicked_point {
        if let Some(piece) = r.clicked_piece {
            *selection = match piece {
                PieceId::Unit { side, unit } => Selection::Unit(side, unit),
                PieceId::Hq { side, hq } => Selection::Hq(side, hq),
            };
            return;
        }
        let corner = selected.and_then(|f| corner_near(f, p, grab_cm));
        let keep = corner.is_some() || selected.is_some_and(|f| edge_near(f, p, grab_cm).is_some());
        ed.selected_corner = corner;
        if !keep {
            ed.selected_feature = super::table::terrain::features_at(&scn.terrain, p)
                .first()
                .map(|f| f.id);
        }
    }
}

fn finish_drag(scn: &Scenario, what: Drag, from: Point, to: Point, out: &mut Emitter) {
    match what {
        Drag::Corner { feature, .. } | Drag::Feature { feature } => {
            if let Some(f) = scn.terrain.iter().find(|f| f.id == feature) {
                let g = dragged(f, what, from, to);
                out.send(edit(ScenarioEdit::SetFeature(Box::new(g))));
            }
        }
        Drag::Piece { piece } => {
            if let Some(pl) = placement_of(scn, piece) {
                let at = Point::new(pl.at.x + to.x - from.x, pl.at.y + to.y - from.y);
                out.send(edit(place(
                    piece,
                    Placement {
                        at,
                        facing_deg: pl.facing_deg,
                    },
                )));
            }
        }
    }
}

/// What the editor adds to the scene: the drawing, the selected feature's handles, the feature
/// being dragged where it would go, the piece being placed, the ruler.
fn decorate(scene: &mut TableScene, scn: &Scenario, ed: &TableEditor, grab_cm: f64) {
    let handle = grab_cm * 0.6;
    let ink = Color32::from_rgb(0xff, 0xf4, 0xc8);
    if let Some((what, from, to)) = ed.drag {
        if let Drag::Corner { feature, .. } | Drag::Feature { feature } = what {
            if let Some(slot) = scene.terrain.iter_mut().find(|f| f.id == feature) {
                *slot = dragged(slot, what, from, to);
            }
        }
    }
    if let Some(f) = ed
        .selected_feature
        .and_then(|id| scene.terrain.iter().find(|f| f.id == id))
        .cloned()
    {
        let pts = f.geometry.points().to_vec();
        let stroke = Stroke::new(2.0, ink);
        match f.geometry {
            Geometry::Polygon(_) => scene.overlays.push(Overlay::Polygon {
                points: pts.clone(),
                fill: Color32::TRANSPARENT,
                stroke,
            }),
            Geometry::Polyline { .. } => scene.overlays.push(Overlay::Polyline {
                points: pts.clone(),
                stroke,
            }),
        }
        for (i, p) in pts.into_iter().enumerate() {
            let picked = ed.selected_corner == Some(i);
            scene.overlays.push(Overlay::Circle {
                centre: p,
                radius_cm: if picked { handle * 1.4 } else { handle },
                fill: if picked {
                    palette::BLUE
                } else {
                    Color32::WHITE
                },
                stroke: Stroke::new(
                    1.5,
                    if picked {
                        Color32::WHITE
                    } else {
                        palette::BLUE
                    },
                ),
            });
        }
    }
    // Objective areas: each outline once (both sides often share one), named in the Zones tool.
    let mut seen: Vec<&[Point]> = Vec::new();
    for side in &scn.sides {
        let [r, g, b] = side.colour;
        for (area, word) in [
            (SideArea::MajorObjective, "major objective"),
            (SideArea::MinorObjective, "minor objective"),
        ] {
            let ring = area.of(side);
            if ring.len() < 3 || seen.contains(&ring) {
                continue;
            }
            seen.push(ring);
            let shared = scn
                .sides
                .iter()
                .filter(|d| SideArea::ALL.iter().any(|a| a.of(d) == ring))
                .count()
                > 1;
            scene.overlays.push(Overlay::Polygon {
                points: ring.to_vec(),
                fill: Color32::TRANSPARENT,
                stroke: Stroke::new(2.0, Color32::from_rgb(r, g, b)),
            });
            if ed.tool != Tool::Zones {
                continue;
            }
            let n = ring.len() as f64;
            let c = Point::new(
                ring.iter().map(|p| p.x).sum::<f64>() / n,
                ring.iter().map(|p| p.y).sum::<f64>() / n,
            );
            let name = side.name.split(':').next().unwrap_or(&side.name);
            let text = if shared {
                format!("Objective of both sides ({word} for {name})")
            } else {
                format!("{name} {word}")
            };
            scene.overlays.push(Overlay::Text {
                at: c,
                text,
                colour: Color32::WHITE,
            });
        }
    }
    if !ed.draft.is_empty() {
        let mut line = ed.draft.clone();
        if let Some(p) = ed.pointer {
            line.push(p);
        }
        if matches!(ed.tool, Tool::Area | Tool::Zones) && line.len() >= 3 {
            if let Some(first) = line.first().copied() {
                line.push(first);
            }
        }
        scene.overlays.push(Overlay::Polyline {
            points: line,
            stroke: Stroke::new(2.0, ink),
        });
        for p in &ed.draft {
            scene.overlays.push(Overlay::Circle {
                centre: *p,
                radius_cm: handle,
                fill: ink,
                stroke: Stroke::new(1.0, Color32::BLACK),
            });
        }
    }
    if let Some(g) = &ed.ghost {
        let [r, gr, b] = scn
            .sides
            .get(g.piece.side())
            .map_or([128, 128, 128], |s| s.colour);
        let bad = !g.violations.is_empty();
        let stroke = Stroke::new(2.0, if bad { palette::ERROR } else { Color32::WHITE });
        for s in &g.stands {
            scene.overlays.push(Overlay::Polygon {
                points: s.clone(),
                fill: Color32::from_rgba_unmultiplied(r, gr, b, 150),
                stroke,
            });
        }
    }
    if let Some(m) = ed.snap_mark {
        // The snap target: a ring round a dot, in a colour no terrain uses.
        let mark = Color32::from_rgb(0xff, 0x3d, 0xc8);
        scene.overlays.push(Overlay::Circle {
            centre: m,
            radius_cm: handle * 1.8,
            fill: Color32::TRANSPARENT,
            stroke: Stroke::new(2.0, mark),
        });
        scene.overlays.push(Overlay::Circle {
            centre: m,
            radius_cm: handle * 0.5,
            fill: mark,
            stroke: Stroke::NONE,
        });
    }
    if let Some((a, b)) = ed.ruler.filter(|_| ed.tool == Tool::Ruler) {
        scene.overlays.push(Overlay::Polyline {
            points: vec![a, b],
            stroke: Stroke::new(2.0, ink),
        });
        scene.overlays.push(Overlay::Text {
            at: Point::new((a.x + b.x) / 2.0, (a.y + b.y) / 2.0),
            text: format!("{:.1} cm", a.distance(b).0),
            colour: ink,
        });
    }
}

fn zones_panel(ui: &mut Ui, scn: &Scenario, ed: &mut TableEditor, out: &mut Emitter) {
    ui.label(RichText::new("Zones and objectives").strong());
    for (si, side) in scn.sides.iter().enumerate() {
        ui.add_space(8.0);
        ui.label(RichText::new(&side.name).strong());
        for area in SideArea::ALL {
            let ring = area.of(side);
            ui.horizontal_wrapped(|ui| {
                let status = if ring.is_empty() {
                    "none".to_string()
                } else {
                    format!("{} corners", ring.len())
                };
                ui.label(format!("{}: {status}", area.label()));
                let drawing = ed.area_target == Some((si, area));
                let verb = if ring.is_empty() { "Draw" } else { "Redraw" };
                let name = format!("Draw the {} of {}", area.label().to_lowercase(), side.name);
                if ui
                    .selectable_label(drawing, verb)
                    .accessible_name(name)
                    .on_hover_text(format!(
                        "Click the corners of {}'s {} on the table",
                        side.name,
                        area.label().to_lowercase()
                    ))
                    .clicked()
                {
                    ed.area_target = if drawing { None } else { Some((si, area)) };
                    ed.draft.clear();
                    ed.note = None;
                }
                if !ring.is_empty() && ui.small_button("Clear").clicked() {
                    out.send(edit(ScenarioEdit::SetArea {
                        side: si,
                        area,
                        ring: Vec::new(),
                    }));
                }
            });
        }
        for (major, what, current) in [
            (true, "Major objective", &side.objectives.major.description),
            (false, "Minor objective", &side.objectives.minor.description),
        ] {
            ui.label(RichText::new(what).color(palette::FAINT));
            let name = format!("{what} of {}", side.name);
            super::widgets::text_field(
                ui,
                out,
                ("objective", si, major),
                current,
                super::widgets::FieldLook::new(&name)
                    .width(220.0)
                    .multiline(),
                move |description| {
                    edit(ScenarioEdit::SetObjectiveText {
                        side: si,
                        major,
                        description,
                    })
                },
            );
        }
    }
    ui.add_space(10.0);
    ui.label(RichText::new("How the battle is decided").strong());
    for line in victory_terms(scn) {
        ui.label(line);
    }
}

/// The scenario's turn limit and victory conditions in plain words (END-03, OBJ-01, VP-01,
/// VP-03, BRK-02), for the panel a player reads before the battle.
pub fn victory_terms(scn: &Scenario) -> Vec<String> {
    let mut out = vec![format!(
        "The battle lasts at most {} game turns. It ends sooner when a side achieves its major \
         objective, when a side breaks and withdraws, or when a player concedes (END-03).",
        scn.turn_limit
    )];
    for side in &scn.sides {
        let aim = |o: &crate::model::Objective| {
            if o.description.trim().is_empty() {
                "not set".to_string()
            } else {
                o.description.trim().to_string()
            }
        };
        out.push(format!(
            "{}: major objective {}; minor objective {}. Once it has lost {} units (its \
             breakpoint) it tests at the start of each of its turns and withdraws if the test \
             fails (BRK-01, BRK-02).",
            side.name,
            aim(&side.objectives.major),
            aim(&side.objectives.minor),
            crate::model::points::breakpoint(side)
        ));
    }
    out.push(
        "Each side's result follows from which of its objectives it achieved (OBJ-01). Each \
         side scores the points value of the enemy units it knocked out (VP-01); twice the \
         enemy's score lifts a result by one step (VP-03)."
            .to_string(),
    );
    out
}
