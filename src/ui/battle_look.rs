//! Look before you act (issue #17 items 3 and 4): the battle table with what the engine says
//! about it drawn over it, before anything is done.
//!
//! * **Hover card**: the unit under the pointer — name, troop stats line (COL-05), stands, hits
//!   this turn, markers, its orders this turn (CMD-04..CMD-08, INIT-01) and its commander — and,
//!   when the selected unit may fire at it, the engine's dice preview of that shot.
//! * **Selection overlays**: the movement envelope (`Battle::options_with`: every sampled end
//!   pose of an advance the engine accepts, MOVE-02..MOVE-08), the fire cone of each front edge
//!   to the weapon's range and half range (FIRE-02, FIRE-04: ±15°), and a line to every enemy
//!   it can see (`SightIndex::visible_enemies`, VIS-02), solid when it may fire at it now.
//! * **Ghost**: dragging a unit shows its stands at the dragged pose, checked live with
//!   `Battle::check(Action::Move)` (a dry run; cached per millimetre of target), green when the
//!   rules accept it and red with the refusal's rule ID and sentence beside it. Dropping a
//!   green ghost sends the move; dropping a red one sends nothing and says why. Facing is kept
//!   (a wheel is a manoeuvre of its own, MOVE-26: not offered by dragging).
//! * **Ruler** (button "Ruler", key `M`): click two units or points; the distance (edge to edge
//!   between units, §1.5) and the line of sight between them with the blocker and the VIS rule
//!   (`Battle::sight_between`).
//!
//! Like every page it reads the engine (`View::engine`) and acts only through
//! [`AppCommand`]s. Layering: `ui`; reads `rules`, never the store.

use super::battle::{preview_words, BattlePanel};
use super::table::{Overlay, Projector, TableResponse};
use super::widgets::{palette, Emitter};
use super::{AppCommand, UiState, View};
use crate::geom::Point;
use crate::rules::api::Options;
use crate::rules::error::ActionError;
use crate::rules::visibility::{SightEnd, SightReport};
use crate::rules::{Action, Battle, Manoeuvre, PieceId, Pose};
use egui::{Color32, RichText, Stroke, Ui};

/// The envelope is sampled every this many cm (`Battle::options_with`).
const ENVELOPE_RESOLUTION_CM: f64 = 2.0;
/// The ghost's target is snapped to this grid (cm): what is checked is what is sent.
const GHOST_GRID_CM: f64 = 0.1;
/// A drag shorter than this is a click, not a move.
const MIN_MOVE_CM: f64 = 0.2;

const GHOST_OK: Color32 = Color32::from_rgba_premultiplied(30, 120, 40, 120);
const GHOST_REFUSED: Color32 = Color32::from_rgba_premultiplied(150, 20, 20, 130);

/// What the look tools keep between frames.
#[derive(Debug, Default)]
pub struct LookState {
    /// The ruler tool is on: clicks on the table pick its ends.
    pub ruler: bool,
    ruler_ends: Vec<SightEnd>,
    ruler_report: Option<SightReport>,
    ghost: Option<GhostCheck>,
    selection: Option<SelectionCache>,
    /// Why the last drop moved nothing (cleared by the next drag or selection).
    pub notice: Option<String>,
}

impl LookState {
    /// The ruler's answer once both ends are picked.
    pub fn ruler_report(&self) -> Option<&SightReport> {
        self.ruler_report.as_ref()
    }
}

/// The engine's verdict on one ghost pose.
#[derive(Debug, Clone, PartialEq)]
struct GhostCheck {
    piece: PieceId,
    /// The snapped target, in grid steps.
    key: (i64, i64),
    to: Pose,
    /// `Err((rule, sentence))` when refused.
    verdict: Result<(), (String, String)>,
}

/// The selected unit's overlays, for one battle state and piece, and whether the engine's
/// options for it were at hand.
#[derive(Debug, Clone)]
struct SelectionCache {
    battle: i64,
    state: crate::rules::BattleState,
    piece: PieceId,
    with_options: bool,
    overlays: Vec<Overlay>,
}

/// The rule ID and our sentence of a refusal.
fn refusal(e: &ActionError) -> (String, String) {
    match e {
        ActionError::Rule(r) => (r.rule.to_string(), r.message.clone()),
        ActionError::Unsupported { rule, what } => {
            (rule.to_string(), format!("not supported yet: {what}"))
        }
        ActionError::Dice(d) => ("DICE".to_string(), d.to_string()),
    }
}

/// The battle page's table, with the look tools (called from the page's central panel).
pub fn table(
    ui: &mut Ui,
    view: &View<'_>,
    panel: &BattlePanel,
    state: &mut UiState,
    out: &mut Emitter,
) {
    let engine = view.engine;
    let idle = view.opponent.is_none();
    // M toggles the ruler (never while a text field is typed in); Escape lets go of its ends.
    let (m, esc) = if ui.ctx().text_edit_focused() {
        (false, false)
    } else {
        ui.input(|i| {
            (
                i.key_pressed(egui::Key::M),
                i.key_pressed(egui::Key::Escape),
            )
        })
    };
    if m {
        toggle_ruler(&mut state.battle_look);
    }
    if esc {
        state.battle_look.ruler_ends.clear();
        state.battle_look.ruler_report = None;
    }
    toolbar(ui, state);

    let selected = state.battle_selected;
    let mut scene = panel.scene.clone();
    scene.selected = selected;
    if let (Some(b), Some(piece), true) = (engine, selected, idle) {
        let overlays = selection(&mut state.battle_look, b, panel, piece, view.options);
        scene.overlays.extend_from_slice(overlays);
    }
    let ruler = ruler_overlays(&scene, &state.battle_look);
    scene.overlays.extend(ruler);

    state.battle_table.piece_card = false;
    let r = state.battle_table.show(ui, &scene);
    let proj = state.battle_table.projector();

    if let Some(p) = r.clicked_point {
        if state.battle_look.ruler {
            let end = r.clicked_piece.map_or(SightEnd::Point(p), SightEnd::Piece);
            pick_ruler_end(&mut state.battle_look, engine, end);
        } else if super::battle_act::table_click(view, state, p, out) {
            // A click that placed something armed by the acting panel (CMD-28's replacement).
        } else {
            state.battle_selected = r.clicked_piece;
            state.battle_look.notice = None;
        }
    }
    if !state.battle_look.ruler {
        drag(ui, &r, proj, engine, view, panel, state, out);
    }
    // A verdict holds for one drag only: the battle may change before the next.
    if r.drag.is_none_or(|d| d.finished) {
        state.battle_look.ghost = None;
    }
    let dragging = r.drag.is_some_and(|d| !d.finished && d.piece.is_some());
    if let (Some(h), false) = (r.hovered_piece, dragging) {
        hover_card(ui, &r, engine, panel, view.options, h);
    }
}

fn toggle_ruler(look: &mut LookState) {
    look.ruler = !look.ruler;
    look.notice = None;
    look.ruler_ends.clear();
    look.ruler_report = None;
}

/// The row above the table: the ruler's button and answer, and why the last drop did nothing.
fn toolbar(ui: &mut Ui, state: &mut UiState) {
    let look = &mut state.battle_look;
    ui.horizontal_wrapped(|ui| {
        if ui
            .selectable_label(look.ruler, "Ruler")
            .on_hover_text(
                "Measure between two units (edge to edge) or two points, and see whether one \
                 sees the other and what is in the way (M)",
            )
            .clicked()
        {
            toggle_ruler(look);
        }
        if look.ruler {
            match (&look.ruler_report, look.ruler_ends.len()) {
                (Some(rep), _) => {
                    let colour = if rep.visible {
                        palette::OK
                    } else {
                        palette::ERROR
                    };
                    ui.label(RichText::new(ruler_words(rep, &look.ruler_ends)).color(colour));
                }
                (None, 1) => {
                    ui.label(
                        RichText::new("Click the second unit or point.").color(palette::FAINT),
                    );
                }
                _ => {
                    ui.label(
                        RichText::new("Click a unit or a point of the table to measure from.")
                            .color(palette::FAINT),
                    );
                }
            }
        }
        if let Some(n) = &look.notice {
            ui.label(RichText::new(n).color(palette::ERROR));
        }
    });
}

/// "34.2 cm edge to edge · out of sight: Great Wood is in the way (VIS-07, blocked by Great
/// Wood)".
pub fn ruler_words(rep: &SightReport, ends: &[SightEnd]) -> String {
    let units = ends.iter().all(|e| matches!(e, SightEnd::Piece(_)));
    let points = ends.iter().all(|e| matches!(e, SightEnd::Point(_)));
    let how = if units {
        "edge to edge"
    } else if points {
        "between the points"
    } else {
        "to the nearest stand"
    };
    let sight = if rep.visible {
        format!("in sight ({})", rep.rule)
    } else {
        match &rep.blocker {
            Some(b) => format!(
                "out of sight: blocked by {b} ({}): {}",
                rep.rule, rep.detail
            ),
            None => format!("out of sight ({}): {}", rep.rule, rep.detail),
        }
    };
    format!("Ruler: {:.1} cm {how} · {sight}", rep.distance_cm)
}

fn pick_ruler_end(look: &mut LookState, engine: Option<&Battle>, end: SightEnd) {
    if look.ruler_ends.len() >= 2 {
        look.ruler_ends.clear();
        look.ruler_report = None;
    }
    look.ruler_ends.push(end);
    if let ([a, b], Some(e)) = (look.ruler_ends.as_slice(), engine) {
        look.ruler_report = Some(e.sight_between(*a, *b));
    }
}

/// Where a ruler end is drawn: a unit's centre or the point.
fn end_point(scene: &super::table::TableScene, e: SightEnd) -> Option<Point> {
    match e {
        SightEnd::Point(p) => Some(p),
        SightEnd::Piece(id) => scene.piece(id).and_then(centre),
    }
}

fn centre(p: &super::table::ScenePiece) -> Option<Point> {
    p.bounds()
        .map(|r| Point::new((r.min.x + r.max.x) / 2.0, (r.min.y + r.max.y) / 2.0))
}

fn ruler_overlays(scene: &super::table::TableScene, look: &LookState) -> Vec<Overlay> {
    let mut overlays = Vec::new();
    if !look.ruler {
        return overlays;
    }
    let ends: Vec<Point> = look
        .ruler_ends
        .iter()
        .filter_map(|e| end_point(scene, *e))
        .collect();
    let ink = Color32::from_rgb(0x10, 0x30, 0x80);
    for p in &ends {
        overlays.push(Overlay::Circle {
            centre: *p,
            radius_cm: 0.8,
            fill: Color32::TRANSPARENT,
            stroke: Stroke::new(2.0, ink),
        });
    }
    if let ([a, b], Some(rep)) = (ends.as_slice(), &look.ruler_report) {
        let colour = if rep.visible {
            ink
        } else {
            Color32::from_rgb(0xb0, 0x20, 0x20)
        };
        overlays.push(Overlay::Polyline {
            points: vec![*a, *b],
            stroke: Stroke::new(2.0, colour),
        });
        if let (false, Some((s, t))) = (rep.visible, rep.segment) {
            overlays.push(Overlay::Polyline {
                points: vec![s, t],
                stroke: Stroke::new(1.0, Color32::from_rgb(0xe0, 0x40, 0x40)),
            });
        }
        overlays.push(Overlay::Text {
            at: Point::new((a.x + b.x) / 2.0, (a.y + b.y) / 2.0),
            text: format!(
                "{:.1} cm{}",
                rep.distance_cm,
                match &rep.blocker {
                    Some(b) if !rep.visible => format!(" · {b} ({})", rep.rule),
                    _ if !rep.visible => format!(" · {}", rep.rule),
                    _ => String::new(),
                }
            ),
            colour,
        });
    }
    overlays
}

/// The selected unit's overlays, worked out once per battle state and selection (the
/// envelope alone is hundreds of move checks).
fn selection<'s>(
    look: &'s mut LookState,
    b: &Battle,
    panel: &BattlePanel,
    piece: PieceId,
    options: Option<&Options>,
) -> &'s [Overlay] {
    let options = options.filter(|o| o.piece == piece);
    let fresh = look.selection.as_ref().is_some_and(|e| {
        e.battle == panel.id
            && e.piece == piece
            && e.with_options == options.is_some()
            && &e.state == b.state()
    });
    if !fresh {
        let poses = if panel.ended {
            Vec::new()
        } else {
            b.options_with(piece, Some(ENVELOPE_RESOLUTION_CM))
                .ok()
                .and_then(|o| o.envelope)
                .unwrap_or_default()
        };
        let mut overlays = Vec::new();
        selection_overlays(&mut overlays, b, piece, options, &poses);
        look.selection = Some(SelectionCache {
            battle: panel.id,
            state: b.state().clone(),
            piece,
            with_options: options.is_some(),
            overlays,
        });
    }
    look.selection
        .as_ref()
        .map_or(&[], |e| e.overlays.as_slice())
}

/// The envelope, the fire cones and the lines to the enemies the selected unit sees.
fn selection_overlays(
    overlays: &mut Vec<Overlay>,
    b: &Battle,
    piece: PieceId,
    options: Option<&Options>,
    envelope: &[Pose],
) {
    let reach = Color32::from_rgba_unmultiplied(40, 140, 60, 90);
    for pose in envelope {
        overlays.push(Overlay::Circle {
            centre: pose.at,
            radius_cm: 0.35,
            fill: reach,
            stroke: Stroke::NONE,
        });
    }
    let ctx = b.ctx();
    let Some(p) = ctx.state.piece(piece) else {
        return;
    };
    let Some(fp) = crate::rules::geometry::footprint_of(&ctx, p) else {
        return;
    };
    // FIRE-02 range, FIRE-04 cone of ±15° from each front edge.
    if let Some(range) = crate::rules::firing::weapon_range_cm(&ctx, p) {
        let fire = Color32::from_rgb(0xc0, 0x6a, 0x10);
        for e in fp.front_edges() {
            let ring = |r: f64| -> Vec<Point> {
                let poly = e.cone_polygon(r);
                let mut pts: Vec<Point> = poly
                    .exterior()
                    .0
                    .iter()
                    .map(|c| Point::new(c.x, c.y))
                    .collect();
                pts.pop();
                pts
            };
            overlays.push(Overlay::Polygon {
                points: ring(range),
                fill: Color32::from_rgba_unmultiplied(0xc0, 0x6a, 0x10, 28),
                stroke: Stroke::new(1.2, fire),
            });
            overlays.push(Overlay::Polygon {
                points: ring(range / 2.0),
                fill: Color32::TRANSPARENT,
                stroke: Stroke::new(0.8, fire),
            });
            let mid = e.midpoint();
            let ahead = crate::geom::footprint::heading(e.facing_deg);
            let beyond = range + 1.5;
            overlays.push(Overlay::Text {
                at: Point::new(mid.x + ahead.x * beyond, mid.y + ahead.y * beyond),
                text: format!("range {range:.0} cm (FIRE-02)"),
                colour: Color32::from_rgb(0x6a, 0x32, 0x00),
            });
        }
    }
    // VIS-02: the enemies it sees; solid where it may fire now (the engine's options).
    let index = crate::rules::visibility::sight_index(&ctx);
    let from = fp.centroid();
    for (enemy, distance) in index.visible_enemies(piece) {
        let Some(to) = index.footprint(enemy).map(|f| f.centroid()) else {
            continue;
        };
        let may_fire = options.is_some_and(|o| o.fire.iter().any(|f| f.target == enemy));
        let (stroke, colour) = if may_fire {
            (
                Stroke::new(2.0, Color32::from_rgb(0xb0, 0x20, 0x20)),
                Color32::from_rgb(0xb0, 0x20, 0x20),
            )
        } else {
            (
                Stroke::new(1.0, Color32::from_rgba_unmultiplied(60, 60, 60, 150)),
                Color32::from_rgb(60, 60, 60),
            )
        };
        overlays.push(Overlay::Polyline {
            points: vec![from, to],
            stroke,
        });
        overlays.push(Overlay::Text {
            at: Point::new((from.x + to.x) / 2.0, (from.y + to.y) / 2.0),
            text: format!("{distance:.0} cm"),
            colour,
        });
    }
}

/// A unit dragged: the ghost, checked live; the drop sends the move or says why not.
#[allow(clippy::too_many_arguments)]
fn drag(
    ui: &mut Ui,
    r: &TableResponse,
    proj: Option<Projector>,
    engine: Option<&Battle>,
    view: &View<'_>,
    panel: &BattlePanel,
    state: &mut UiState,
    out: &mut Emitter,
) {
    let Some(d) = r.drag else {
        return;
    };
    let Some(piece) = d.piece else {
        return;
    };
    let (dx, dy) = (d.to.x - d.from.x, d.to.y - d.from.y);
    let moved = dx.hypot(dy) > MIN_MOVE_CM;
    let Some(pose) = panel
        .poses
        .iter()
        .find(|(id, _)| *id == piece)
        .map(|(_, p)| *p)
    else {
        return;
    };
    if !moved || panel.ended || view.opponent.is_some() {
        return;
    }
    let snap = |v: f64| (v / GHOST_GRID_CM).round();
    let key_f = (snap(pose.at.x + dx), snap(pose.at.y + dy));
    // Grid steps of a table (metres at most) fit an i64 exactly.
    #[allow(clippy::cast_possible_truncation)]
    let key = (key_f.0 as i64, key_f.1 as i64);
    let to = Pose {
        at: Point::new(key_f.0 * GHOST_GRID_CM, key_f.1 * GHOST_GRID_CM),
        facing_deg: pose.facing_deg,
    };
    let action = Action::Move {
        piece,
        via: Vec::new(),
        to,
        manoeuvre: Manoeuvre::Advance,
    };
    let look = &mut state.battle_look;
    let cached = look
        .ghost
        .as_ref()
        .filter(|g| g.piece == piece && g.key == key)
        .cloned();
    let check = match cached {
        Some(g) => g,
        None => {
            let verdict = match engine {
                Some(b) => b.check(&action).map(|_| ()).map_err(|e| refusal(&e)),
                None => Ok(()),
            };
            let g = GhostCheck {
                piece,
                key,
                to,
                verdict,
            };
            look.ghost = Some(g.clone());
            g
        }
    };
    look.notice = None;
    if d.finished {
        look.ghost = None;
        state.battle_selected = Some(piece);
        match &check.verdict {
            Ok(()) => out.send(AppCommand::BattleAction(action)),
            Err((rule, sentence)) => {
                look.notice = Some(format!("Not moved — {rule}: {sentence}"));
            }
        }
        return;
    }
    if let (Some(proj), Some(sp)) = (proj, panel.scene.piece(piece)) {
        paint_ghost(ui, r, &proj, sp, (dx, dy), &check);
    }
}

fn paint_ghost(
    ui: &Ui,
    r: &TableResponse,
    proj: &Projector,
    sp: &super::table::ScenePiece,
    (dx, dy): (f64, f64),
    check: &GhostCheck,
) {
    let painter = ui.painter_at(r.response.rect);
    let (fill, edge) = match check.verdict {
        Ok(()) => (GHOST_OK, Color32::from_rgb(20, 90, 30)),
        Err(_) => (GHOST_REFUSED, Color32::from_rgb(120, 10, 10)),
    };
    let mut right = f32::NEG_INFINITY;
    let mut top = f32::INFINITY;
    for s in &sp.stands {
        let pts: Vec<egui::Pos2> = s
            .corners()
            .iter()
            .map(|c| proj.to_screen(Point::new(c.x + dx, c.y + dy)))
            .collect();
        for p in &pts {
            right = right.max(p.x);
            top = top.min(p.y);
        }
        painter.add(egui::Shape::convex_polygon(
            pts,
            fill,
            Stroke::new(1.5, edge),
        ));
    }
    let (title, words) = match &check.verdict {
        Ok(()) => ("Move here".to_string(), String::new()),
        Err((rule, sentence)) => (format!("Refused: {rule}"), sentence.clone()),
    };
    if !right.is_finite() {
        return;
    }
    egui::Area::new(egui::Id::unique("battle-ghost-verdict"))
        .order(egui::Order::Tooltip)
        .fixed_pos(egui::pos2(right + 10.0, top))
        .interactable(false)
        .show(ui.ctx(), |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_max_width(300.0);
                let colour = if check.verdict.is_ok() {
                    palette::OK
                } else {
                    palette::ERROR
                };
                ui.label(RichText::new(title).strong().color(colour));
                if !words.is_empty() {
                    ui.label(words);
                }
            });
        });
}

/// The hover card of the unit under the pointer.
fn hover_card(
    ui: &Ui,
    r: &TableResponse,
    engine: Option<&Battle>,
    panel: &BattlePanel,
    options: Option<&Options>,
    piece: PieceId,
) {
    let Some(at) = r.response.hover_pos() else {
        return;
    };
    let lines = card_lines(engine, panel, options, piece);
    if lines.is_empty() {
        return;
    }
    egui::Area::new(egui::Id::unique("battle-hover-card"))
        .order(egui::Order::Tooltip)
        .fixed_pos(at + egui::vec2(18.0, 18.0))
        .interactable(false)
        .show(ui.ctx(), |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_max_width(340.0);
                for (i, l) in lines.iter().enumerate() {
                    if i == 0 {
                        ui.label(RichText::new(l).strong());
                    } else {
                        ui.label(l);
                    }
                }
            });
        });
}

/// The card's lines: name; stats; stands and hits; markers; orders; commander; the selected
/// unit's shot at it.
pub fn card_lines(
    engine: Option<&Battle>,
    panel: &BattlePanel,
    options: Option<&Options>,
    piece: PieceId,
) -> Vec<String> {
    let mut out = Vec::new();
    let sp = panel.scene.piece(piece);
    let Some(b) = engine else {
        if let Some(sp) = sp {
            out.push(sp.label.clone());
            out.push(sp.detail.clone());
        }
        return out;
    };
    let ctx = b.ctx();
    let Some(p) = ctx.state.piece(piece) else {
        return out;
    };
    out.push(p.name.clone());
    match (ctx.row(p), p.command) {
        (_, Some((level, quality))) => {
            out.push(format!("{} command, {}", level.label(), quality.label()))
        }
        (Some(row), None) => {
            let formation = p
                .formation
                .map_or(String::new(), |f| format!(", {}", f.label()));
            out.push(format!("{}{formation}", row.name));
            out.push(row.stat_line());
        }
        (None, None) => {}
    }
    if !piece.is_command() {
        out.push(format!(
            "{} stand{} · {} hit{} this turn",
            p.stands,
            if p.stands == 1 { "" } else { "s" },
            p.hits,
            if p.hits == 1 { "" } else { "s" }
        ));
    }
    if let Some(m) = sp.map(|s| s.markers.describe()) {
        let m: Vec<String> = m.into_iter().filter(|w| !w.contains("hit")).collect();
        if !m.is_empty() {
            out.push(m.join(", "));
        }
    }
    if !piece.is_command() {
        out.push(orders_words(&p.orders));
    }
    if let Some(c) = commander_words(b, piece) {
        out.push(c);
    }
    if let Some(f) = options.and_then(|o| o.fire.iter().find(|f| f.target == piece).map(|f| (o, f)))
    {
        let (o, f) = f;
        let (short, _) = preview_words(&f.preview);
        out.push(format!(
            "{} may fire at it ({:.1} cm, {} stands): {short}",
            o.name, f.distance_cm, f.stands
        ));
    }
    out
}

/// Orders this turn, in words (CMD-04, CMD-06, CMD-08, INIT-01).
fn orders_words(o: &crate::rules::command::UnitOrders) -> String {
    let mut parts = Vec::new();
    if o.received == 0 {
        parts.push("no order yet this turn".to_string());
    } else {
        parts.push(format!(
            "{} order{} this turn",
            o.received,
            if o.received == 1 { "" } else { "s" }
        ));
        if o.actions_left > 0 {
            let what = o
                .allowed
                .map_or_else(|| "any action".to_string(), |k| k.label().to_string());
            parts.push(format!(
                "{} action{} left ({what})",
                o.actions_left,
                if o.actions_left == 1 { "" } else { "s" }
            ));
        }
        if o.closed {
            parts.push("no more orders this turn".into());
        }
    }
    if o.initiative_used {
        parts.push("initiative used".into());
    }
    format!("Orders: {}", parts.join(", "))
}

/// "Commander: General X (Brigade A)" from the scenario's order of battle.
fn commander_words(b: &Battle, piece: PieceId) -> Option<String> {
    let side = b.scenario().sides.get(piece.side())?;
    let hq_id = match piece {
        PieceId::Unit { unit, .. } => side.units.iter().find(|u| u.id == unit)?.hq,
        PieceId::Hq { hq, .. } => hq,
    };
    let hq = side.hqs.iter().find(|h| h.id == hq_id)?;
    Some(format!("Commander: {} ({})", hq.commander.name, hq.name))
}
