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
                 unit to move it; double-click an edge for a new corner; Delete removes the \
                 selected feature."
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
    /// The scenario the cached scene and violations were built from.
    cache: Option<Cache>,
    ghost: Option<Ghost>,
    /// The Defences tool's own state (src/ui/table_defences.rs).
    pub defences: super::table_defences::DefenceTool,
}

#[derive(Debug)]
struct Cache {
    scenario: Scenario,
    scene: TableScene,
    violations: Vec<Violation>,
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
    let mut violations: Vec<Violation> = crate::rules::state::placement_violations(&probe, lists)
        .into_iter()
        .filter(|v| v.subject == subject)
        .collect();
    violations.extend(zone_problem(&probe, piece, &stands));
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

fn piece_name(scn: &Scenario, piece: PieceId) -> String {
    match piece {
        PieceId::Unit { side, unit } => scn
            .sides
            .get(side)
            .and_then(|s| s.unit(unit))
            .map_or_else(|| format!("unit {unit}"), |u| u.name.clone()),
        PieceId::Hq { side, hq } => scn
            .sides
            .get(side)
            .and_then(|s| s.hq(hq))
            .map_or_else(|| format!("HQ {hq}"), |h| h.name.clone()),
    }
}

/// SEQ-01: the scenario deploys each side in its zone; a piece with a base corner outside its
/// side's zone (when the side has one) is reported here, never refused.
fn zone_problem(scn: &Scenario, piece: PieceId, stands: &[Vec<Point>]) -> Option<Violation> {
    let side = scn.sides.get(piece.side())?;
    let zone = &side.deployment_zone;
    if zone.len() < 3 {
        return None;
    }
    let out = stands
        .iter()
        .flatten()
        .find(|p| !ring_contains(zone, **p) && !on_ring(zone, **p))?;
    Some(Violation {
        rule: "SEQ-01",
        subject: subject_of(piece),
        message: format!(
            "'{}' has a base outside {}'s deployment zone (at ({:.1}, {:.1}) cm): move it into \
             the zone or redraw the zone",
            piece_name(scn, piece),
            side.name,
            out.x,
            out.y
        ),
    })
}

/// Is `p` on the ring's outline (within a hundredth of a millimetre)?
fn on_ring(ring: &[Point], p: Point) -> bool {
    let n = ring.len();
    (0..n).any(|i| {
        let (Some(a), Some(b)) = (ring.get(i), ring.get((i + 1) % n)) else {
            return false;
        };
        point_segment_distance(p, *a, *b) < 1e-3
    })
}

/// Every placement problem of the scenario: the engine's (DATA-10..12) and the zones (SEQ-01).
fn placement_problems(scn: &Scenario, lists: &[ArmyList]) -> (TableScene, Vec<Violation>) {
    let Ok(state) = BattleState::lay_out(scn, lists, 0) else {
        return (TableScene::of_scenario(scn), Vec::new());
    };
    let scene = TableScene::of_battle(scn, lists, &state);
    let mut vs = crate::rules::state::placement_violations(scn, lists);
    for p in &scene.pieces {
        let stands: Vec<Vec<Point>> = p.stands.iter().map(|s| s.corners().to_vec()).collect();
        vs.extend(zone_problem(scn, p.id, &stands));
    }
    (scene, vs)
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
        ed.cache = Some(Cache {
            scenario: scn.clone(),
            scene,
            violations,
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
    if !view.advice.is_empty() {
        ui.add_space(10.0);
        super::widgets::advice_box(ui, view.advice);
    }
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
    if ui
        .button("Delete feature")
        .on_hover_text("Remove it from the table (Delete)")
        .clicked()
    {
        out.send(edit(ScenarioEdit::DeleteFeature(f.id)));
    }
}

fn units_list(ui: &mut Ui, scn: &Scenario, ed: &mut TableEditor, out: &mut Emitter) {
    ui.label(RichText::new("Units to place").strong());
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
        let mut row = |ui: &mut Ui, piece: PieceId, name: &str, placed: bool| {
            let mark = if placed { "●" } else { "○" };
            let on = ed.placing == Some(piece);
            if ui
                .selectable_label(on, format!("{mark} {name}"))
                .on_hover_text(if placed {
                    "On the table: pick it to move it"
                } else {
                    "Not on the table yet: pick it, then click the table"
                })
                .clicked()
            {
                ed.placing = Some(piece);
                ed.facing_deg = None;
                ed.ghost = None;
            }
        };
        for h in &side.hqs {
            row(
                ui,
                PieceId::Hq { side: si, hq: h.id },
                &h.name,
                h.position.is_some(),
            );
        }
        for u in &side.units {
            row(
                ui,
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

    // Keys and the wheel, before the table view reads them.
    if !typing {
        let key = |ui: &Ui, k: Key| ui.input_mut(|i| i.consume_key(Modifiers::NONE, k));
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
                if key(ui, Key::Delete) {
                    if let Some(id) = ed.selected_feature {
                        out.send(edit(ScenarioEdit::DeleteFeature(id)));
                    }
                }
                if key(ui, Key::Escape) {
                    ed.selected_feature = None;
                }
            }
            Tool::Units => {
                if ed.placing.is_some() {
                    let mut turn = 0.0;
                    if key(ui, Key::R) {
                        turn += TURN_DEG;
                    }
                    if ui.input_mut(|i| i.consume_key(Modifiers::SHIFT, Key::R)) {
                        turn -= TURN_DEG;
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
    ed.pointer = r.pointer;

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
            if let Some(Drag::Feature { feature }) = what {
                ed.selected_feature = Some(feature);
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
        let keep = selected.is_some_and(|f| {
            corner_near(f, p, grab_cm).is_some() || edge_near(f, p, grab_cm).is_some()
        });
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
        for p in pts {
            scene.overlays.push(Overlay::Circle {
                centre: p,
                radius_cm: handle,
                fill: Color32::WHITE,
                stroke: Stroke::new(1.5, palette::BLUE),
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
