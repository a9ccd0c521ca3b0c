//! The table editor's **Defences** tool (issue #18 item 4): the defender buys field defences
//! from the DEF-03 table within the posture's budget (DEF-02: hasty 10%, fixed 25% of the
//! points) and puts each on the table.
//!
//! * The panel lists every item of the table with its cost, what it does in our words (DEF-04,
//!   TERR-13) and whether it is a line or a spot, marks those the posture does not offer, and
//!   shows the budget spent and allowed.
//! * "Buy and place" checks the purchase first ([`purchase_refusal`], the validator's own
//!   DEF-01..03 violations): over the budget, not offered in this posture or no defender, it is
//!   refused there with the rule and nothing follows. Otherwise the item follows the pointer:
//!   a line item is put down by clicking its two ends (the second end never further than its
//!   sections reach, 10 cm each, DEF-05), a Trench or Dug-Out by one click where its middle goes
//!   (the size of the unit it shelters, DEF-05). What would be wrong with it there (outside the
//!   defender's zone, DEF-05) is listed live, in red, and is allowed, as a unit placed outside
//!   its zone is.
//! * With nothing to place, a click on a defence selects it: drag it to move it, change its
//!   sections or occupant in the panel, or sell it back (the button or `Delete`).
//! * Every DEF violation of the scenario (from `validate_scenario`, which the app keeps up to
//!   date) is listed under the budget and beside the defence it concerns.
//!
//! Each purchase, move, change and sale is one [`ScenarioEdit`] (`AddDefense`, `SetDefense`,
//! `DeleteDefense`): one undo step, saved at once.
//!
//! Layering: `ui`; reads `model`, `geom` and `rules`, emits commands, touches no store.

use super::commands::{AppCommand, ScenarioEdit};
use super::table::{Overlay, TableResponse, TableScene};
use super::widgets::{palette, Emitter};
use super::View;
use crate::geom::{point_segment_distance, ring_contains, Point};
use crate::model::validate::{defense_budget, validate_scenario, Subject, Violation};
use crate::model::{
    cut_line_to_length, defense_spent, max_length_cm, next_defense_id, purchase_refusal, ArmyList,
    DefenseId, DefenseKind, DefensePosture, FieldDefense, Placement, Scenario, UnitId,
};
use crate::rules::{BattleState, Ctx, PieceId};
use egui::{Color32, Key, Modifiers, RichText, Stroke, Ui};

/// The tool bar's hint for the tool.
pub const HINT: &str = "Buy a field defence in the panel, then click its two ends on the table \
                        (a trench: its middle). Click one to select it, drag to move it, Delete \
                        sells it back.";

/// A Trench or Dug-Out with no occupant chosen: this wide per unit dug in, and this deep, cm.
pub const SHELTER_DEFAULT_CM: (f64, f64) = (12.0, 4.0);

/// The Defences tool's state between frames (in the table editor's state).
#[derive(Debug, Default)]
pub struct DefenceTool {
    /// The item chosen in the table (none yet: the first the posture offers).
    pub kind: Option<DefenseKind>,
    /// Sections to buy (0 is read as 1).
    pub sections: u32,
    /// The unit a Trench or Dug-Out is bought for.
    pub occupant: Option<UnitId>,
    /// A purchase checked and waiting for its place on the table, with the side buying it.
    pub placing: Option<(usize, FieldDefense)>,
    /// The first end of a line item being put down.
    pub first_end: Option<Point>,
    /// The bought defence selected on the table.
    pub selected: Option<(usize, DefenseId)>,
    /// Why the last "Buy" was refused (DEF-01..03).
    pub refusal: Option<Violation>,
    /// The size of the Trench or Dug-Out being placed, cm (worked out when it was bought).
    shelter_size: (f64, f64),
    /// Where the item being placed would go and what would be wrong with it there.
    ghost: Option<Ghost>,
    /// A selected defence being dragged: from, to.
    drag: Option<(Point, Point)>,
}

#[derive(Debug, Clone)]
struct Ghost {
    points: Vec<Point>,
    violations: Vec<Violation>,
}

impl DefenceTool {
    fn kind_or_first(&self, scn: &Scenario) -> DefenseKind {
        self.kind.unwrap_or_else(|| {
            DefenseKind::ALL
                .into_iter()
                .find(|k| k.available(scn.defense))
                .unwrap_or(DefenseKind::Trench)
        })
    }

    fn sections(&self) -> u32 {
        self.sections.max(1)
    }

    /// The live problems of the item following the pointer (DEF-05 and the shape checks).
    pub fn ghost_problems(&self) -> &[Violation] {
        self.ghost.as_ref().map_or(&[], |g| g.violations.as_slice())
    }
}

/// What an item does on the table, in our words (DEF-04, TERR-13, FIRE-15).
pub fn effect_words(kind: DefenseKind) -> &'static str {
    match kind {
        DefenseKind::Trench => {
            "Digs one unit in: soft cover against fire from any side, and the unit is harder \
             to spot (DEF-04)."
        }
        DefenseKind::DugOut => {
            "Digs in one command or artillery unit: soft cover from any side, harder to spot \
             (DEF-04)."
        }
        DefenseKind::Wire => {
            "No cover. Horses, mounted officers and towed guns cannot cross it until it is \
             breached; foot halt at it (TERR-13)."
        }
        DefenseKind::Ditch => {
            "No cover. Only foot can cross, halting at it; everyone else is stopped until it \
             is breached (TERR-13)."
        }
        DefenseKind::Stakes => {
            "No cover. Only foot can cross, halting at it; horse and guns are stopped until it \
             is breached (TERR-13)."
        }
        DefenseKind::BreastWorks => {
            "Soft cover for a unit touching it, against fire that crosses it (DEF-04)."
        }
        DefenseKind::LogWorks => {
            "Hard cover for a unit touching it, against fire that crosses it (DEF-04)."
        }
        DefenseKind::FortifiedWorks => {
            "Hard cover for a unit touching it; its defenders count as in fortifications and \
             guns in it cannot move (DEF-04)."
        }
        DefenseKind::Fortification => {
            "Full cover from every side; its defenders count as in fortifications and guns in \
             it cannot move (DEF-04)."
        }
    }
}

/// The width (along its front) and depth of a unit's bases as the engine lays them out in its
/// starting formation, cm: the size of the Trench or Dug-Out it occupies (DEF-05).
pub fn occupant_size(
    scn: &Scenario,
    lists: &[ArmyList],
    side: usize,
    unit: UnitId,
) -> Option<(f64, f64)> {
    let mut probe = scn.clone();
    let u = probe
        .sides
        .get_mut(side)?
        .units
        .iter_mut()
        .find(|u| u.id == unit)?;
    u.position = Some(Placement {
        at: Point::new(0.0, 0.0),
        facing_deg: 0.0,
    });
    let state = BattleState::lay_out(&probe, lists, 0).ok()?;
    let ctx = Ctx::new(&probe, lists, &state);
    let piece = state.piece(PieceId::Unit { side, unit })?;
    let fp = crate::rules::geometry::footprint_of(&ctx, piece)?;
    let r = crate::geom::footprint::rect_of(fp.stands.iter().flat_map(|s| s.corners()));
    Some((r.max.x - r.min.x, r.max.y - r.min.y))
}

/// The outline of a Trench or Dug-Out centred at `c`: `w` wide along the table's width, `d`
/// deep.
pub fn shelter_outline(c: Point, w: f64, d: f64) -> Vec<Point> {
    vec![
        Point::new(c.x - w / 2.0, c.y - d / 2.0),
        Point::new(c.x + w / 2.0, c.y - d / 2.0),
        Point::new(c.x + w / 2.0, c.y + d / 2.0),
        Point::new(c.x - w / 2.0, c.y + d / 2.0),
    ]
}

/// The second end of a line item put down from `a` towards `p`: no further than its sections
/// reach (DEF-05).
pub fn line_end(a: Point, p: Point, sections: u32) -> Point {
    cut_line_to_length(&[a, p], max_length_cm(sections))
        .get(1)
        .copied()
        .unwrap_or(a)
}

/// The defence's points moved by `to − from`.
fn moved(at: &[Point], from: Point, to: Point) -> Vec<Point> {
    at.iter()
        .map(|p| Point::new(p.x + to.x - from.x, p.y + to.y - from.y))
        .collect()
}

/// The bought defence nearest `p` within `grab_cm` of its line (or inside a Trench's outline).
pub fn defence_at(scn: &Scenario, p: Point, grab_cm: f64) -> Option<(usize, DefenseId)> {
    let mut best: Option<((usize, DefenseId), f64)> = None;
    for (si, side) in scn.sides.iter().enumerate() {
        for d in &side.field_defenses {
            let closed = d.kind.shelters() && d.at.len() >= 3;
            let n = d.at.len();
            let edges = if closed { n } else { n.saturating_sub(1) };
            let mut dist = (0..edges)
                .filter_map(|i| {
                    Some(point_segment_distance(
                        p,
                        *d.at.get(i)?,
                        *d.at.get((i + 1) % n)?,
                    ))
                })
                .fold(f64::INFINITY, f64::min);
            if closed && ring_contains(&d.at, p) {
                dist = 0.0;
            }
            if dist <= grab_cm && best.is_none_or(|(_, b)| dist < b) {
                best = Some(((si, d.id), dist));
            }
        }
    }
    best.map(|(id, _)| id)
}

fn defence(scn: &Scenario, at: (usize, DefenseId)) -> Option<&FieldDefense> {
    scn.sides
        .get(at.0)?
        .field_defenses
        .iter()
        .find(|d| d.id == at.1)
}

/// The side's points with its defences (ARMY-02), if its list is installed.
fn side_total(view: &View<'_>, side: &crate::model::Side) -> Option<i64> {
    let list = view.list(&side.army_list)?;
    Some(crate::model::points::side_points(side, list).total())
}

fn edit(e: ScenarioEdit) -> AppCommand {
    AppCommand::Edit(e)
}

/// The size of a Trench or Dug-Out bought as `d` for `side` (DEF-05): its occupant's bases,
/// or [`SHELTER_DEFAULT_CM`] a unit dug in when nobody is named.
pub fn shelter_size(
    scn: &Scenario,
    lists: &[ArmyList],
    side: usize,
    d: &FieldDefense,
) -> (f64, f64) {
    d.occupant
        .and_then(|u| occupant_size(scn, lists, side, u))
        .unwrap_or((
            SHELTER_DEFAULT_CM.0 * f64::from(d.sections.max(1)),
            SHELTER_DEFAULT_CM.1,
        ))
}

/// The outline the item being placed would have with the pointer at `p` (`size`: a Trench's
/// or Dug-Out's, worked out once when it was bought).
fn ghost_points(d: &FieldDefense, size: (f64, f64), first: Option<Point>, p: Point) -> Vec<Point> {
    if d.kind.shelters() {
        shelter_outline(p, size.0, size.1)
    } else {
        match first {
            Some(a) => vec![a, line_end(a, p, d.sections)],
            None => vec![p],
        }
    }
}

/// DEF-05 and the rest of the validator's word on `d` of `side` if it stood at `points`.
fn problems_there(
    scn: &Scenario,
    lists: &[ArmyList],
    side: usize,
    d: &FieldDefense,
    points: &[Point],
) -> Vec<Violation> {
    let mut probe = scn.clone();
    let mut d = d.clone();
    d.id = next_defense_id(scn);
    d.at = points.to_vec();
    let id = d.id;
    if let Some(s) = probe.sides.get_mut(side) {
        s.field_defenses.push(d);
    }
    validate_scenario(&probe, lists)
        .into_iter()
        .filter(|v| v.subject == Subject::Defense(side, id))
        .collect()
}

/// Keys, before the table view reads them: `Esc` drops the item being placed (or the
/// selection), `Delete` sells the selected defence back.
pub fn keys(ui: &mut Ui, ed: &mut DefenceTool, out: &mut Emitter) {
    let key = |ui: &Ui, k: Key| ui.input_mut(|i| i.consume_key(Modifiers::NONE, k));
    if key(ui, Key::Escape) {
        if ed.placing.is_some() {
            ed.placing = None;
            ed.first_end = None;
            ed.ghost = None;
        } else {
            ed.selected = None;
        }
    }
    if ed.placing.is_none() && key(ui, Key::Delete) {
        if let Some((side, id)) = ed.selected.take() {
            out.send(edit(ScenarioEdit::DeleteDefense { side, id }));
        }
    }
}

/// Clicks and drags on the table while the Defences tool is on.
pub fn table_input(
    view: &View<'_>,
    scn: &Scenario,
    ed: &mut DefenceTool,
    r: &TableResponse,
    grab_cm: f64,
    out: &mut Emitter,
) {
    if let Some((side, d)) = ed.placing.clone() {
        if let Some(p) = r.pointer.or(r.clicked_point) {
            let points = ghost_points(&d, ed.shelter_size, ed.first_end, p);
            let stale = ed.ghost.as_ref().is_none_or(|g| {
                g.points.len() != points.len()
                    || g.points
                        .iter()
                        .zip(&points)
                        .any(|(a, b)| a.distance(*b).0 > 0.25)
            });
            if stale {
                let violations = if points.len() >= 2 {
                    problems_there(scn, view.lists, side, &d, &points)
                } else {
                    Vec::new()
                };
                ed.ghost = Some(Ghost { points, violations });
            }
        }
        let Some(p) = r.clicked_point else { return };
        let points = if d.kind.shelters() {
            Some(ghost_points(&d, ed.shelter_size, None, p))
        } else {
            match ed.first_end {
                None => {
                    ed.first_end = Some(p);
                    None
                }
                Some(a) => {
                    let b = line_end(a, p, d.sections);
                    (a.distance(b).0 > 1e-6).then(|| vec![a, b])
                }
            }
        };
        if let Some(points) = points {
            let mut bought = d;
            bought.at = points;
            ed.selected = Some((side, next_defense_id(scn)));
            out.send(edit(ScenarioEdit::AddDefense {
                side,
                defense: Box::new(bought),
            }));
            ed.placing = None;
            ed.first_end = None;
            ed.ghost = None;
        }
        return;
    }
    if let Some(dr) = r.drag {
        if ed.drag.is_none() {
            let hit = defence_at(scn, dr.from, grab_cm);
            if hit.is_some() {
                ed.selected = hit;
                ed.drag = Some((dr.from, dr.to));
            }
        }
        if let Some((from, _)) = ed.drag {
            ed.drag = Some((from, dr.to));
            if dr.finished {
                ed.drag = None;
                if let Some((side, d)) = ed.selected.and_then(|s| Some((s.0, defence(scn, s)?))) {
                    if from.distance(dr.to).0 > 1e-6 {
                        let mut g = d.clone();
                        g.at = moved(&d.at, from, dr.to);
                        out.send(edit(ScenarioEdit::SetDefense {
                            side,
                            defense: Box::new(g),
                        }));
                    }
                }
            }
        }
        return;
    }
    if let Some(p) = r.clicked_point {
        ed.selected = defence_at(scn, p, grab_cm);
    }
}

/// What the tool adds to the table: each defence named, those with a problem outlined in red,
/// the selected one with handles (where it is being dragged to), the item being placed.
pub fn decorate(
    scene: &mut TableScene,
    view: &View<'_>,
    scn: &Scenario,
    ed: &DefenceTool,
    grab_cm: f64,
) {
    let ink = Color32::from_rgb(0xff, 0xf4, 0xc8);
    for (si, side) in scn.sides.iter().enumerate() {
        for d in &side.field_defenses {
            if d.at.is_empty() {
                continue;
            }
            let bad = !view.violations_of(Subject::Defense(si, d.id)).is_empty();
            let selected = ed.selected == Some((si, d.id));
            let mut pts = d.at.clone();
            if selected {
                if let Some((from, to)) = ed.drag {
                    pts = moved(&d.at, from, to);
                }
            }
            if d.kind.shelters() && pts.len() >= 3 {
                if let Some(first) = pts.first().copied() {
                    pts.push(first);
                }
            }
            if bad || selected {
                scene.overlays.push(Overlay::Polyline {
                    points: pts.clone(),
                    stroke: Stroke::new(
                        if selected { 3.0 } else { 2.0 },
                        if bad { palette::ERROR } else { ink },
                    ),
                });
            }
            if selected {
                for p in &pts {
                    scene.overlays.push(Overlay::Circle {
                        centre: *p,
                        radius_cm: grab_cm * 0.5,
                        fill: Color32::WHITE,
                        stroke: Stroke::new(1.5, palette::BLUE),
                    });
                }
            }
            let n = d.at.len() as f64;
            let c = Point::new(
                d.at.iter().map(|p| p.x).sum::<f64>() / n,
                d.at.iter().map(|p| p.y).sum::<f64>() / n + 2.5,
            );
            scene.overlays.push(Overlay::Text {
                at: c,
                text: format!("{} ×{}", d.kind.label(), d.sections),
                colour: if bad { palette::ERROR } else { Color32::WHITE },
            });
        }
    }
    let (Some((side, d)), Some(g)) = (&ed.placing, &ed.ghost) else {
        return;
    };
    let [r, gr, b] = scn.sides.get(*side).map_or([128, 128, 128], |s| s.colour);
    let stroke = Stroke::new(
        3.0,
        if g.violations.is_empty() {
            Color32::WHITE
        } else {
            palette::ERROR
        },
    );
    if d.kind.shelters() {
        scene.overlays.push(Overlay::Polygon {
            points: g.points.clone(),
            fill: Color32::from_rgba_unmultiplied(r, gr, b, 140),
            stroke,
        });
    } else if let [a, e] = g.points.as_slice() {
        scene.overlays.push(Overlay::Polyline {
            points: vec![*a, *e],
            stroke,
        });
        scene.overlays.push(Overlay::Text {
            at: Point::new((a.x + e.x) / 2.0, (a.y + e.y) / 2.0 - 2.5),
            text: format!(
                "{:.1} of {:.0} cm",
                a.distance(*e).0,
                max_length_cm(d.sections)
            ),
            colour: ink,
        });
    } else if let Some(p) = g.points.first() {
        scene.overlays.push(Overlay::Circle {
            centre: *p,
            radius_cm: grab_cm * 0.5,
            fill: Color32::from_rgb(r, gr, b),
            stroke,
        });
    }
}

/// The panel beside the table: the posture and budget, the DEF-03 table to buy from, the item
/// being placed, the selected defence, every bought one and every DEF problem.
pub fn panel(
    ui: &mut Ui,
    view: &View<'_>,
    scn: &Scenario,
    ed: &mut DefenceTool,
    out: &mut Emitter,
) {
    if ed.selected.is_some_and(|s| defence(scn, s).is_none()) {
        ed.selected = None;
    }
    ui.label(RichText::new("Field defences").strong());
    let defender = scn.defender.filter(|d| *d < scn.sides.len());
    let posture = scn.defense;
    let budget = defense_budget(scn.points, posture);
    match (posture, defender.and_then(|d| scn.sides.get(d))) {
        (DefensePosture::None, _) => {
            ui.label(
                RichText::new(
                    "This scenario has no defence posture, so nobody may buy field defences \
                     (DEF-01). Choose a hasty or fixed defence and a defender in the scenario's \
                     settings.",
                )
                .color(palette::FAINT),
            );
        }
        (_, None) => {
            ui.label(
                RichText::new(
                    "No side is the defender: choose one in the scenario's settings; only the \
                     defender buys field defences (DEF-01).",
                )
                .color(palette::FAINT),
            );
        }
        (p, Some(side)) => {
            let spent = defense_spent(side);
            ui.label(format!(
                "{} defence: {} may spend up to {}% of the {} points, {budget} points (DEF-02).",
                p.label(),
                side.name,
                p.budget_percent(),
                scn.points
            ));
            let over = spent > budget;
            let frac = if budget == 0 {
                1.0
            } else {
                (spent as f32 / budget as f32).min(1.0)
            };
            ui.label(
                RichText::new(format!(
                    "Spent {spent} of {budget} points. Left to spend: {} points",
                    budget.saturating_sub(spent)
                ))
                .color(if over { palette::ERROR } else { palette::INK }),
            );
            ui.add(
                egui::ProgressBar::new(frac)
                    .desired_width(220.0)
                    .desired_height(6.0)
                    .fill(if over { palette::ERROR } else { palette::OK }),
            );
            if let Some(total) = side_total(view, side) {
                ui.label(
                    RichText::new(format!(
                        "The side with its defences: {total} of {} points (DEF-02 counts them \
                         inside the total).",
                        scn.points
                    ))
                    .color(if total > i64::from(scn.points) {
                        palette::ERROR
                    } else {
                        palette::FAINT
                    }),
                );
            }
        }
    }
    // Every DEF problem of the scenario, as the validator has it.
    let def_problems: Vec<&Violation> = view
        .violations
        .iter()
        .filter(|v| v.rule.starts_with("DEF-"))
        .collect();
    for v in &def_problems {
        ui.label(RichText::new(format!("{}: {}", v.rule, v.message)).color(palette::ERROR));
    }

    ui.add_space(8.0);
    if let Some((side, d)) = ed.placing.clone() {
        placing_panel(ui, scn, ed, side, &d);
    } else if let Some(sel) = ed.selected {
        selected_panel(ui, view, scn, ed, sel, out);
    }
    ui.add_space(8.0);
    buy_panel(ui, view, scn, ed, defender);

    ui.add_space(8.0);
    ui.label(RichText::new("Bought").strong());
    let mut any = false;
    for (si, side) in scn.sides.iter().enumerate() {
        for d in &side.field_defenses {
            any = true;
            let on = ed.selected == Some((si, d.id));
            let occupant = d
                .occupant
                .and_then(|u| side.unit(u))
                .map_or_else(String::new, |u| format!(", for {}", u.name));
            let text = format!(
                "{} {}: {} × {} = {} pts{occupant}",
                d.kind.label(),
                d.id,
                d.sections,
                d.kind.spec().cost,
                d.cost()
            );
            if ui
                .selectable_label(on, text)
                .on_hover_text("Select it on the table")
                .clicked()
            {
                ed.selected = if on { None } else { Some((si, d.id)) };
                ed.placing = None;
                ed.first_end = None;
            }
            for v in view.violations_of(Subject::Defense(si, d.id)) {
                ui.label(
                    RichText::new(format!("  {}: {}", v.rule, v.message)).color(palette::ERROR),
                );
            }
        }
    }
    if !any {
        ui.label(RichText::new("None yet.").color(palette::FAINT));
    }
}

fn placing_panel(ui: &mut Ui, scn: &Scenario, ed: &mut DefenceTool, side: usize, d: &FieldDefense) {
    let what = format!("{} × {}", d.sections, d.kind.label());
    let hint = if d.kind.shelters() {
        "click the table where its middle goes".to_string()
    } else if ed.first_end.is_none() {
        "click the table at its first end".to_string()
    } else {
        format!(
            "click its other end (at most {:.0} cm away)",
            max_length_cm(d.sections)
        )
    };
    let name = scn.sides.get(side).map_or("", |s| s.name.as_str());
    ui.label(RichText::new(format!("Placing {what} for {name}: {hint}.")).strong());
    match &ed.ghost {
        Some(g) if g.points.len() >= 2 && g.violations.is_empty() => {
            ui.label(RichText::new("Fits here.").color(palette::OK));
        }
        _ => {}
    }
    for v in ed.ghost_problems() {
        ui.label(RichText::new(format!("{}: {}", v.rule, v.message)).color(palette::ERROR));
    }
    if ui
        .button("Cancel")
        .on_hover_text("Esc: nothing is bought")
        .clicked()
    {
        ed.placing = None;
        ed.first_end = None;
        ed.ghost = None;
    }
}

fn selected_panel(
    ui: &mut Ui,
    view: &View<'_>,
    scn: &Scenario,
    ed: &mut DefenceTool,
    sel: (usize, DefenseId),
    out: &mut Emitter,
) {
    let Some(d) = defence(scn, sel) else { return };
    let (side, _) = sel;
    let spec = d.kind.spec();
    ui.label(RichText::new(format!("{} {} selected", spec.label, d.id)).strong());
    ui.label(RichText::new("Drag it on the table to move it.").color(palette::FAINT));
    ui.horizontal(|ui| {
        ui.label(if d.kind.shelters() {
            "Units dug in"
        } else {
            "Sections"
        });
        let mut n = d.sections;
        let r = ui
            .add(egui::DragValue::new(&mut n).range(1..=40))
            .accessible_name("Sections of the selected defence");
        if r.changed() && n != d.sections {
            let mut g = d.clone();
            g.sections = n;
            if !g.kind.shelters() && g.at.len() >= 2 {
                g.at = cut_line_to_length(&g.at, max_length_cm(n));
            }
            out.send(edit(ScenarioEdit::SetDefense {
                side,
                defense: Box::new(g),
            }));
        }
        ui.label(format!("{} pts", d.cost()));
    });
    if d.kind.shelters() {
        if let Some(s) = scn.sides.get(side) {
            let mut options: Vec<(Option<UnitId>, String)> = vec![(None, "nobody named".into())];
            options.extend(s.units.iter().map(|u| (Some(u.id), u.name.clone())));
            if let Some(o) = super::widgets::combo(
                ui,
                ("defence-occupant", side, d.id),
                "Shelters",
                &d.occupant,
                &options,
                200.0,
            ) {
                let mut g = d.clone();
                g.occupant = o;
                out.send(edit(ScenarioEdit::SetDefense {
                    side,
                    defense: Box::new(g),
                }));
            }
        }
    }
    for v in view.violations_of(Subject::Defense(side, d.id)) {
        ui.label(RichText::new(format!("{}: {}", v.rule, v.message)).color(palette::ERROR));
    }
    if ui
        .button("Sell back")
        .on_hover_text("Delete: take it off the table and return its points to the budget")
        .clicked()
    {
        out.send(edit(ScenarioEdit::DeleteDefense { side, id: d.id }));
        ed.selected = None;
    }
}

fn buy_panel(
    ui: &mut Ui,
    view: &View<'_>,
    scn: &Scenario,
    ed: &mut DefenceTool,
    defender: Option<usize>,
) {
    ui.label(RichText::new("Buy (DEF-03)").strong());
    let current = ed.kind_or_first(scn);
    egui::Grid::new("defence-table")
        .num_columns(3)
        .spacing([8.0, 2.0])
        .show(ui, |ui| {
            for k in DefenseKind::ALL {
                let spec = k.spec();
                let offered = k.available(scn.defense);
                let mut label = RichText::new(spec.label);
                if !offered {
                    label = label.color(palette::FAINT);
                }
                if ui
                    .selectable_label(current == k, label)
                    .on_hover_text(effect_words(k))
                    .clicked()
                {
                    ed.kind = Some(k);
                    ed.refusal = None;
                }
                ui.label(format!("{} pts", spec.cost));
                let (note, why) = match (offered, spec.hasty) {
                    (true, _) if k.shelters() => (
                        "spot",
                        "Put down at one spot, the size of its unit (DEF-05)",
                    ),
                    (true, _) => (
                        "line",
                        "A line of 10 cm sections, put down by its two ends (DEF-05)",
                    ),
                    (false, false) => ("fixed only", "Only a fixed defence may buy it (DEF-03)"),
                    (false, true) => (
                        "no posture",
                        "Nobody may buy field defences without a defence posture (DEF-01)",
                    ),
                };
                ui.label(RichText::new(note).small().color(palette::FAINT))
                    .on_hover_text(why);
                ui.end_row();
            }
        });
    let spec = current.spec();
    ui.label(RichText::new(effect_words(current)).color(palette::FAINT));
    ui.horizontal(|ui| {
        ui.label(if current.shelters() {
            "Units dug in"
        } else {
            "Sections"
        });
        let mut n = ed.sections();
        if ui
            .add(egui::DragValue::new(&mut n).range(1..=40))
            .accessible_name("Sections to buy")
            .changed()
        {
            ed.sections = n;
            ed.refusal = None;
        }
        ui.label(format!(
            "{n} × {} = {} pts",
            spec.cost,
            spec.cost * ed.sections()
        ));
    });
    if current.shelters() {
        if let Some(s) = defender.and_then(|d| scn.sides.get(d)) {
            let mut options: Vec<(Option<UnitId>, String)> = vec![(None, "nobody named".into())];
            options.extend(s.units.iter().map(|u| (Some(u.id), u.name.clone())));
            if let Some(o) = super::widgets::combo(
                ui,
                "defence-buy-occupant",
                "Shelters",
                &ed.occupant,
                &options,
                200.0,
            ) {
                ed.occupant = o;
            }
        }
    }
    let side = defender.unwrap_or(0);
    if let Some(d) = defender.and_then(|d| scn.sides.get(d)) {
        let cost = spec.cost * ed.sections();
        let spent = defense_spent(d) + cost;
        let budget = defense_budget(scn.points, scn.defense);
        ui.label(
            RichText::new(format!(
                "After buying: {spent} of {budget} points on defences."
            ))
            .color(if spent > budget {
                palette::ERROR
            } else {
                palette::FAINT
            }),
        );
        if let Some(total) = side_total(view, d).map(|t| t + i64::from(cost)) {
            if total > i64::from(scn.points) {
                ui.label(
                    RichText::new(format!(
                        "The side would cost {total} of {} points (ARMY-02): allowed here, \
                         shown as a problem in the order of battle until troops are cut.",
                        scn.points
                    ))
                    .color(palette::WARN),
                );
            }
        }
    }
    if ui
        .button("Buy and place")
        .on_hover_text("Check the purchase against the budget, then put it on the table")
        .clicked()
    {
        let d = FieldDefense {
            id: next_defense_id(scn),
            kind: current,
            sections: ed.sections(),
            at: Vec::new(),
            occupant: if current.shelters() {
                ed.occupant
            } else {
                None
            },
        };
        match purchase_refusal(scn, view.lists, side, &d) {
            Some(v) => {
                ed.refusal = Some(v);
                ed.placing = None;
            }
            None => {
                ed.refusal = None;
                ed.shelter_size = shelter_size(scn, view.lists, side, &d);
                ed.placing = Some((side, d));
                ed.first_end = None;
                ed.ghost = None;
                ed.selected = None;
            }
        }
    }
    if let Some(v) = &ed.refusal {
        ui.label(
            RichText::new(format!("Not bought. {}: {}", v.rule, v.message)).color(palette::ERROR),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::army::shipped_lists;
    use crate::model::samples;

    fn ebelsberg() -> Scenario {
        samples::scenario("1809-ebelsberg").expect("the sample")
    }

    #[test]
    fn def_05_a_line_end_stops_at_ten_cm_a_section() {
        let a = Point::new(20.0, 130.0);
        // 3-4-5: 50 cm away, two sections reach 20 cm along the same direction.
        assert_eq!(
            line_end(a, Point::new(50.0, 170.0), 2),
            Point::new(32.0, 146.0)
        );
        // Nearer than the sections reach: where clicked.
        assert_eq!(
            line_end(a, Point::new(25.0, 130.0), 2),
            Point::new(25.0, 130.0)
        );
    }

    #[test]
    fn def_05_a_click_takes_the_nearest_defence_on_its_line_or_inside_a_trench() {
        let s = ebelsberg();
        // Breast Works 1 runs (112, 84) → (132, 84); 1 cm off its line is within 2 cm.
        assert_eq!(
            defence_at(&s, Point::new(120.0, 85.0), 2.0),
            Some((1, DefenseId(1)))
        );
        // Trench 6 is the rectangle (74..86, 84..88): its middle is inside it.
        assert_eq!(
            defence_at(&s, Point::new(80.0, 86.0), 0.5),
            Some((1, DefenseId(6)))
        );
        assert_eq!(defence_at(&s, Point::new(30.0, 100.0), 2.0), None);
    }

    #[test]
    fn def_05_a_trench_takes_its_occupants_size_or_twelve_by_four() {
        let lists = shipped_lists().expect("lists");
        let s = ebelsberg();
        let mut d = FieldDefense {
            id: DefenseId(99),
            kind: DefenseKind::Trench,
            sections: 2,
            at: Vec::new(),
            occupant: None,
        };
        assert_eq!(shelter_size(&s, &lists, 1, &d), (24.0, 4.0));
        // Named: the engine's own footprint of the unit (the sample's Trench 6 shelters the
        // k.k. Jäger battalion); wider than deep, and not the default.
        d.occupant = s.sides[1]
            .field_defenses
            .iter()
            .find(|x| x.id == DefenseId(6))
            .and_then(|x| x.occupant);
        let unit = d.occupant.expect("the sample names one");
        let (w, dp) = shelter_size(&s, &lists, 1, &d);
        assert_eq!(
            Some((w, dp)),
            occupant_size(&s, &lists, 1, unit),
            "the occupant's footprint"
        );
        assert!(w > dp && dp > 0.0, "{w} × {dp}");
    }
}
