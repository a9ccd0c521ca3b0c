//! The order-of-battle editor: the heart of Powderhorn.
//!
//! Layout: a header strip (which scenario, its scenario-level problems), the two sides side by
//! side, each a card with live totals (points against the limit, breakpoint, field-defence
//! budget) above a tree CO → HQs → sub-HQs → units, and on the right an inspector for whatever
//! is selected (scenario settings, a side, an HQ with its commander inline, or a unit).
//!
//! Every violation from `validate_scenario` is drawn beside the item its [`Subject`] names, with
//! its rule id, in the warning colour; side- and scenario-level ones sit at the top of their
//! side or of the scenario. Points are recomputed from the model each frame (`points::*`), so
//! what is shown is always what would be saved.
//!
//! Edits are emitted as [`ScenarioEdit`]s; the app snapshots, applies and saves them. Text and
//! number fields commit on Enter or lost focus (see [`super::widgets`]). No store access here.

use super::commands::{AppCommand, ScenarioEdit, ScenarioSettings, Selection, Verb};
use super::widgets::{
    self, card, form_label, palette, section, thousands, violation_box, Emitter, FieldLook,
    RichTextExt as _,
};
use super::{UiState, View};
use crate::model::points::{breakpoint, hq_points, side_points, unit_points};
use crate::model::validate::{defense_budget, Subject, Violation};
use crate::model::{
    ArmyList, CommandLevel, DefensePosture, Grade, Hq, HqId, MeasureScale, OptionalRule, Quality,
    Scale, Scenario, Side, Unit, Weather,
};
use egui::{Align, Layout, RichText, Ui};
use std::collections::BTreeSet;

const INDENT: f32 = 18.0;

pub fn page(ui: &mut Ui, view: &View<'_>, state: &mut UiState, out: &mut Emitter) {
    let Some(scn) = view.open else {
        egui::CentralPanel::default().show(ui, |ui| pick_scenario(ui, view, out));
        return;
    };
    if !selection_exists(scn, state.selection) {
        state.selection = Selection::Scenario;
    }
    egui::Panel::top("oob-head")
        .frame(
            egui::Frame::new()
                .fill(palette::PANEL)
                .inner_margin(egui::Margin::symmetric(12, 8)),
        )
        .show(ui, |ui| header(ui, view, scn, state, out));
    // The inspector gives way on small windows so the sides keep room (1024 px wide and up).
    let inspector_width = (ui.available_width() * 0.42).clamp(320.0, 430.0);
    egui::Panel::right("inspector")
        .default_size(inspector_width)
        .size_range(280.0..=560.0)
        .frame(
            egui::Frame::new()
                .fill(palette::PANEL)
                .inner_margin(egui::Margin::same(12)),
        )
        .show(ui, |ui| {
            // Both ways: a form wider than the panel scrolls inside it rather than spilling
            // under the sides.
            egui::ScrollArea::both()
                .auto_shrink([false, false])
                .show(ui, |ui| inspector(ui, view, scn, state, out));
        });
    if state.show_table {
        let UiState {
            table_editor,
            table,
            selection,
            ..
        } = state;
        super::table_editor::page(ui, view, scn, table_editor, table, selection, out);
        return;
    }
    egui::CentralPanel::default().show(ui, |ui| {
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| sides(ui, view, scn, state));
    });
}

fn pick_scenario(ui: &mut Ui, view: &View<'_>, out: &mut Emitter) {
    ui.add_space(20.0);
    ui.heading("Open a scenario");
    ui.label(
        RichText::new("Pick the battle whose orders of battle you want to edit.")
            .color(palette::FAINT),
    );
    ui.add_space(10.0);
    if view.scenarios.is_empty() {
        ui.label("There are no scenarios yet: create or import one on the Scenarios page.");
    }
    egui::Grid::new("oob-pick")
        .striped(true)
        .spacing([16.0, 6.0])
        .show(ui, |ui| {
            for s in view.scenarios {
                if ui.button(RichText::new(&s.name).bold()).clicked() {
                    out.send(AppCommand::OpenScenario(s.id.clone()));
                }
                ui.label(RichText::new(&s.date).color(palette::FAINT));
                ui.label(format!("{} pts", thousands(i64::from(s.points))));
                ui.label(
                    RichText::new(s.id.as_str())
                        .monospace()
                        .color(palette::FAINT),
                );
                ui.end_row();
            }
        });
}

fn selection_exists(scn: &Scenario, sel: Selection) -> bool {
    match sel {
        Selection::Scenario => true,
        Selection::Side(s) => s < scn.sides.len(),
        Selection::Hq(s, h) => scn.sides.get(s).is_some_and(|side| side.hq(h).is_some()),
        Selection::Unit(s, u) => scn.sides.get(s).is_some_and(|side| side.unit(u).is_some()),
    }
}

fn header(ui: &mut Ui, view: &View<'_>, scn: &Scenario, state: &mut UiState, out: &mut Emitter) {
    ui.horizontal(|ui| {
        form_label(ui, "Scenario");
        let options: Vec<(crate::model::ScenarioId, String)> = view
            .scenarios
            .iter()
            .map(|s| (s.id.clone(), s.name.clone()))
            .collect();
        if let Some(id) = widgets::combo(ui, "oob-scenario", "Scenario", &scn.id, &options, 300.0) {
            state.selection = Selection::Scenario;
            out.send(AppCommand::OpenScenario(id));
        }
        ui.add_space(8.0);
        let sel = state.selection == Selection::Scenario;
        if ui
            .selectable_label(sel, "Scenario settings")
            .on_hover_text(
                "Name, date, points, turn limit, scale, weather, defences, optional rules",
            )
            .clicked()
        {
            state.selection = Selection::Scenario;
        }
        if ui
            .selectable_label(state.show_table, "Table")
            .on_hover_text(
                "The table to scale: draw terrain, place units and deploy sides (tools above it)",
            )
            .clicked()
        {
            state.show_table = !state.show_table;
        }
        ui.add_space(8.0);
        let mut facts = vec![];
        if !scn.date.is_empty() {
            facts.push(scn.date.clone());
        }
        facts.push(format!("{} pts a side", thousands(i64::from(scn.points))));
        facts.push(format!("{} turns", scn.turn_limit));
        facts.push(format!("{} scale", scn.scale.label()));
        if !scn.measure_scale.is_printed() {
            facts.push(format!(
                "{} figures (distances ×{})",
                scn.measure_scale.label(),
                scn.measure_scale.factor()
            ));
        }
        if scn.weather != Weather::Normal {
            facts.push(format!("{} weather", scn.weather.label()));
        }
        if scn.defense != DefensePosture::None {
            facts.push(format!("{} defences", scn.defense.label()));
        }
        ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
            super::print::buttons(ui, view, scn, state);
            ui.with_layout(Layout::left_to_right(Align::Center), |ui| {
                let facts = RichText::new(facts.join(" · ")).color(palette::FAINT);
                ui.add(egui::Label::new(facts).truncate());
            });
        });
    });
    let vs = view.violations_of(Subject::Scenario);
    if !vs.is_empty() {
        ui.add_space(4.0);
        violation_box(ui, &vs);
    }
}

// ---------------------------------------------------------------------------------------------
// The two sides and their trees

fn sides(ui: &mut Ui, view: &View<'_>, scn: &Scenario, state: &mut UiState) {
    if scn.sides.is_empty() {
        ui.add_space(20.0);
        ui.label("This scenario has no sides: add them in the scenario settings.");
        return;
    }
    let n = scn.sides.len();
    // Side by side where each side gets a readable width; one above the other where it would
    // not (below some 1,100 px of window the columns used to run into each other).
    if ui.available_width() / n as f32 >= MIN_SIDE_COLUMN {
        ui.columns(n, |cols| {
            for (i, side) in scn.sides.iter().enumerate() {
                if let Some(col) = cols.get_mut(i) {
                    col.push_id(("side", i), |ui| side_column(ui, view, scn, i, side, state));
                }
            }
        });
    } else {
        for (i, side) in scn.sides.iter().enumerate() {
            ui.push_id(("side", i), |ui| side_column(ui, view, scn, i, side, state));
            ui.add_space(12.0);
        }
    }
}

/// The narrowest a side's column may be beside the other's, px.
const MIN_SIDE_COLUMN: f32 = 380.0;

fn side_column(
    ui: &mut Ui,
    view: &View<'_>,
    scn: &Scenario,
    idx: usize,
    side: &Side,
    state: &mut UiState,
) {
    let list = view.list(&side.army_list);
    card(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            let [r, g, b] = side.colour;
            let (rect, _) = ui.allocate_exact_size(egui::vec2(6.0, 22.0), egui::Sense::hover());
            ui.painter()
                .rect_filled(rect, 1.0, egui::Color32::from_rgb(r, g, b));
            let selected = state.selection == Selection::Side(idx);
            let name = if side.name.is_empty() {
                "(unnamed side)"
            } else {
                side.name.as_str()
            };
            if ui
                .selectable_label(selected, RichText::new(name).size(18.0).bold())
                .on_hover_text("Select the side: name, army list, totals, field defences")
                .clicked()
            {
                state.selection = Selection::Side(idx);
            }
            if scn.defender == Some(idx) {
                ui.label(RichText::new("defender").small().color(palette::FAINT));
            }
        });
        ui.label(
            RichText::new(list.map_or_else(
                || format!("{} (not installed)", side.army_list),
                |l| l.name.clone(),
            ))
            .color(palette::FAINT),
        );
        ui.add_space(4.0);
        if let Some(list) = list {
            side_totals(ui, scn, idx, side, list);
        }
        let vs = view.violations_of(Subject::Side(idx));
        if !vs.is_empty() {
            ui.add_space(4.0);
            violation_box(ui, &vs);
        }
    });
    ui.add_space(6.0);
    tree(ui, view, idx, side, list, state);
}

fn side_totals(ui: &mut Ui, scn: &Scenario, _idx: usize, side: &Side, list: &ArmyList) {
    let p = side_points(side, list);
    let total = p.total();
    let limit = i64::from(scn.points);
    let over = total > limit;
    ui.horizontal(|ui| {
        ui.label(
            RichText::new(format!("{} / {} pts", thousands(total), thousands(limit)))
                .size(17.0)
                .bold()
                .color(if over { palette::WARN } else { palette::INK }),
        );
        if over {
            ui.label(
                RichText::new(format!("{} over", thousands(total - limit))).color(palette::WARN),
            );
        } else {
            ui.label(
                RichText::new(format!("{} left", thousands(limit - total))).color(palette::FAINT),
            );
        }
    });
    let fraction = if limit > 0 {
        total as f32 / limit as f32
    } else {
        0.0
    };
    ui.add(
        egui::ProgressBar::new(fraction.clamp(0.0, 1.0))
            .desired_height(5.0)
            .fill(if over { palette::WARN } else { palette::BLUE }),
    );
    ui.label(
        RichText::new(format!(
            "units {} · command {} · defences {}",
            thousands(p.units),
            thousands(p.command),
            thousands(p.defenses)
        ))
        .small()
        .color(palette::FAINT),
    );
    ui.horizontal(|ui| {
        ui.label(format!(
            "Breakpoint {} (of {} units)",
            breakpoint(side),
            side.units.len()
        ))
        .on_hover_text("BRK-01: half the non-command units, rounded up");
        ui.label("·");
        let budget = defense_budget(scn.points, scn.defense);
        let text = if budget == 0 {
            "no field defences".to_string()
        } else {
            format!(
                "defences {} / {} pts",
                thousands(p.defenses),
                thousands(i64::from(budget))
            )
        };
        ui.label(text).on_hover_text(
            "DEF-02: the defender's field-defence budget is a share of the points total",
        );
    });
}

/// HQs reachable from the roots, for spotting those caught in a cycle.
fn reachable(side: &Side) -> BTreeSet<HqId> {
    let ids: BTreeSet<HqId> = side.hqs.iter().map(|h| h.id).collect();
    let mut seen = BTreeSet::new();
    let mut stack: Vec<HqId> = side
        .hqs
        .iter()
        .filter(|h| h.parent.is_none_or(|p| !ids.contains(&p)))
        .map(|h| h.id)
        .collect();
    while let Some(id) = stack.pop() {
        if seen.insert(id) {
            stack.extend(side.child_hqs(Some(id)).map(|c| c.id));
        }
    }
    seen
}

/// What every node of one side's tree needs to know.
struct TreeCtx<'a> {
    view: &'a View<'a>,
    idx: usize,
    side: &'a Side,
    list: Option<&'a ArmyList>,
    /// The side's colour, lightened, for the symbols.
    fill: egui::Color32,
}

fn tree(
    ui: &mut Ui,
    view: &View<'_>,
    idx: usize,
    side: &Side,
    list: Option<&ArmyList>,
    state: &mut UiState,
) {
    let t = TreeCtx {
        view,
        idx,
        side,
        list,
        fill: widgets::tint(side.colour),
    };
    let ids: BTreeSet<HqId> = side.hqs.iter().map(|h| h.id).collect();
    if side.hqs.is_empty() {
        ui.label(
            RichText::new("No commanding officer yet: select the side and add one.")
                .italics()
                .color(palette::FAINT),
        );
    }
    let mut seen = BTreeSet::new();
    for root in side
        .hqs
        .iter()
        .filter(|h| h.parent.is_none_or(|p| !ids.contains(&p)))
    {
        hq_node(ui, &t, root, 0, state, &mut seen);
    }
    let lost: Vec<&Hq> = side
        .hqs
        .iter()
        .filter(|h| !reachable(side).contains(&h.id))
        .collect();
    if !lost.is_empty() {
        ui.add_space(6.0);
        ui.label(
            RichText::new("Outside the chain of command (a loop of parents)").color(palette::WARN),
        );
        for h in lost {
            if !seen.contains(&h.id) {
                hq_node(ui, &t, h, 0, state, &mut seen);
            }
        }
    }
    let orphans: Vec<&Unit> = side.units.iter().filter(|u| !ids.contains(&u.hq)).collect();
    if !orphans.is_empty() {
        ui.add_space(6.0);
        ui.label(RichText::new("Units without an HQ").color(palette::WARN));
        for u in orphans {
            unit_node(ui, &t, u, 0, state);
        }
    }
}

/// Points of an HQ, its units and everything beneath it.
pub fn subtree_points(side: &Side, hq: HqId, list: &ArmyList) -> i64 {
    let mut total = 0;
    let mut seen = BTreeSet::new();
    let mut stack = vec![hq];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        if let Some(h) = side.hq(id) {
            total += hq_points(h, list);
        }
        total += side.units_of(id).map(|u| unit_points(u, list)).sum::<i64>();
        stack.extend(side.child_hqs(Some(id)).map(|c| c.id));
    }
    total
}

fn hq_node(
    ui: &mut Ui,
    t: &TreeCtx<'_>,
    hq: &Hq,
    depth: usize,
    state: &mut UiState,
    seen: &mut BTreeSet<HqId>,
) {
    let (view, idx, side, list) = (t.view, t.idx, t.side, t.list);
    if !seen.insert(hq.id) {
        return;
    }
    let indent = depth as f32 * INDENT;
    let selected = state.selection == Selection::Hq(idx, hq.id);
    let c = &hq.commander;
    ui.add_space(2.0);
    let name = if hq.name.is_empty() {
        "(unnamed HQ)"
    } else {
        hq.name.as_str()
    };
    let points = list.map(|l| format!("{} pts", thousands(subtree_points(side, hq.id, l))));
    let clicked = tree_row(
        ui,
        indent,
        |ui| {
            widgets::hq_symbol(ui, c.level, hq.parent.is_none(), t.fill)
                .on_hover_text(c.level.label());
        },
        RichText::new(name).bold(),
        selected,
        points.map(|p| RichText::new(p).bold()),
    );
    if clicked {
        state.selection = Selection::Hq(idx, hq.id);
    }
    let who = if c.name.is_empty() {
        "unnamed commander".to_string()
    } else {
        c.name.clone()
    };
    let mut line = format!("CV {} · {} · {who}", c.command_value, c.quality.label());
    if c.replaced_once {
        line.push_str(" · replaced once");
    }
    sub_line(ui, indent + INDENT, line);
    for v in view.violations_of(Subject::Hq(idx, hq.id)) {
        inline_violation(ui, indent + INDENT, v);
    }
    for u in side.units_of(hq.id) {
        unit_node(ui, t, u, depth + 1, state);
    }
    for child in side.child_hqs(Some(hq.id)) {
        hq_node(ui, t, child, depth + 1, state, seen);
    }
}

fn unit_node(ui: &mut Ui, t: &TreeCtx<'_>, u: &Unit, depth: usize, state: &mut UiState) {
    let (view, idx, list, fill) = (t.view, t.idx, t.list, t.fill);
    let indent = depth as f32 * INDENT;
    let selected = state.selection == Selection::Unit(idx, u.id);
    let row = list.and_then(|l| l.troop_type(&u.troop_type));
    let name = if u.name.is_empty() {
        "(unnamed unit)"
    } else {
        u.name.as_str()
    };
    let points = list.map(|l| RichText::new(format!("{} pts", thousands(unit_points(u, l)))));
    let clicked = tree_row(
        ui,
        indent,
        |ui| {
            widgets::unit_symbol(ui, row.map(|r| r.arm), fill)
                .on_hover_text(row.map_or("Unknown troop type", |r| r.arm.label()));
        },
        RichText::new(name),
        selected,
        points,
    );
    if clicked {
        state.selection = Selection::Unit(idx, u.id);
    }
    let mut line = format!(
        "{} × {}",
        u.stands,
        row.map_or_else(
            || format!("{} (not in list)", u.troop_type),
            |r| r.name.clone()
        )
    );
    if u.grade != Grade::Regular {
        line.push_str(&format!(" · {}", u.grade.label()));
    }
    for (on, what) in [
        (u.engineer_attached, "engineers"),
        (u.brigade_skirmishers, "skirmishers"),
        (u.regimental_guns, "regimental guns"),
        (u.lancers, "lancers"),
        (u.horse_artillery, "horse artillery"),
    ] {
        if on {
            line.push_str(&format!(" · {what}"));
        }
    }
    sub_line(ui, indent + INDENT, line);
    for v in view.violations_of(Subject::Unit(idx, u.id)) {
        inline_violation(ui, indent + INDENT, v);
    }
}

/// One row of the tree: symbol, a selectable name that truncates before it reaches the points,
/// and the points right-aligned so they form a column. Returns whether the name was clicked.
fn tree_row(
    ui: &mut Ui,
    indent: f32,
    symbol: impl FnOnce(&mut Ui),
    name: RichText,
    selected: bool,
    points: Option<RichText>,
) -> bool {
    ui.horizontal(|ui| {
        ui.add_space(indent);
        symbol(ui);
        ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
            if let Some(p) = points {
                ui.label(p);
            }
            ui.with_layout(Layout::left_to_right(Align::Center), |ui| {
                ui.add(egui::Button::selectable(selected, name).truncate())
                    .clicked()
            })
            .inner
        })
        .inner
    })
    .inner
}

/// The faint second line under a tree row.
fn sub_line(ui: &mut Ui, indent: f32, text: String) {
    ui.horizontal(|ui| {
        ui.add_space(indent);
        ui.add(egui::Label::new(RichText::new(text).small().color(palette::FAINT)).truncate());
    });
}

fn inline_violation(ui: &mut Ui, indent: f32, v: &Violation) {
    ui.horizontal(|ui| {
        ui.add_space(indent);
        ui.vertical(|ui| widgets::violation_line(ui, v));
    });
}

// ---------------------------------------------------------------------------------------------
// The inspector

fn inspector(ui: &mut Ui, view: &View<'_>, scn: &Scenario, state: &mut UiState, out: &mut Emitter) {
    match state.selection {
        Selection::Scenario => scenario_inspector(ui, view, scn, state, out),
        Selection::Side(s) => {
            if let Some(side) = scn.sides.get(s) {
                side_inspector(ui, view, scn, s, side, out);
            }
        }
        Selection::Hq(s, h) => {
            if let Some(hq) = scn.sides.get(s).and_then(|side| side.hq(h)) {
                if let Some(side) = scn.sides.get(s) {
                    hq_inspector(ui, view, s, side, hq, out);
                }
            }
        }
        Selection::Unit(s, u) => {
            if let Some(side) = scn.sides.get(s) {
                if let Some(unit) = side.unit(u) {
                    unit_inspector(ui, view, s, side, unit, out);
                }
            }
        }
    }
}

fn edit(e: ScenarioEdit) -> AppCommand {
    AppCommand::Edit(e)
}

fn inspector_title(ui: &mut Ui, kind: &str, title: &str) {
    ui.label(
        RichText::new(kind.to_uppercase())
            .small()
            .bold()
            .color(palette::BLUE),
    );
    ui.label(RichText::new(title).size(18.0).bold());
    ui.add_space(4.0);
}

/// Makes the settings command for one change of the settings.
type SettingsEdit<'a> = dyn Fn(&dyn Fn(&mut ScenarioSettings)) -> AppCommand + 'a;

/// Switches one optional rule on or off in the settings, keeping the list sorted.
fn set_rule(s: &mut ScenarioSettings, rule: OptionalRule, on: bool) {
    s.optional_rules.retain(|r| *r != rule);
    if on {
        s.optional_rules.push(rule);
        s.optional_rules.sort();
    }
}

/// The weather rows of the settings grid (OPT-WEATHER-01..04, OPT-NIGHT-01): the weather rule's
/// switch with the weather it starts in, and the night switch. An older file that set the
/// weather to "night" shows the night switch on; switching it off clears both.
fn weather_rows(ui: &mut Ui, out: &mut Emitter, scn: &Scenario, with: &SettingsEdit<'_>) {
    let weather_on = scn.optional_rules.contains(&OptionalRule::Weather);
    let night_on = scn.optional_rules.contains(&OptionalRule::Night)
        || (weather_on && scn.weather == Weather::Night);
    form_label(ui, "Weather");
    ui.horizontal(|ui| {
        let mut on = weather_on;
        if ui
            .checkbox(&mut on, "Weather rules (OPT-WEATHER)")
            .on_hover_text(OptionalRule::Weather.gist())
            .changed()
        {
            out.send(with(&|s| set_rule(s, OptionalRule::Weather, on)));
        }
        if weather_on {
            let start = if scn.weather == Weather::Night {
                Weather::Normal
            } else {
                scn.weather
            };
            let weathers: Vec<(Weather, String)> = Weather::ALL
                .iter()
                .filter(|w| **w != Weather::Night)
                .map(|w| (*w, format!("starts {}", w.label().to_lowercase())))
                .collect();
            if let Some(v) = widgets::combo(
                ui,
                "scn-weather",
                "Starting weather",
                &start,
                &weathers,
                120.0,
            ) {
                out.send(with(&|s| s.weather = v));
            }
        }
    });
    ui.end_row();
    form_label(ui, "Light");
    let mut on = night_on;
    if ui
        .checkbox(&mut on, "Fought at night (OPT-NIGHT)")
        .on_hover_text(OptionalRule::Night.gist())
        .changed()
    {
        out.send(with(&|s| {
            set_rule(s, OptionalRule::Night, on);
            if !on && s.weather == Weather::Night {
                s.weather = Weather::Normal;
            }
        }));
    }
    ui.end_row();
    form_label(ui, "");
    ui.label(
        RichText::new(crate::model::scenario::weather_words(scn))
            .small()
            .color(palette::FAINT),
    );
    ui.end_row();
}

fn scenario_inspector(
    ui: &mut Ui,
    view: &View<'_>,
    scn: &Scenario,
    _state: &mut UiState,
    out: &mut Emitter,
) {
    inspector_title(ui, "Scenario", &scn.name);
    let base = ScenarioSettings::of(scn);
    let with = |f: &dyn Fn(&mut ScenarioSettings)| -> AppCommand {
        let mut s = base.clone();
        f(&mut s);
        edit(ScenarioEdit::Settings(Box::new(s)))
    };
    egui::Grid::new("scenario-settings")
        .num_columns(2)
        .spacing([10.0, 6.0])
        .show(ui, |ui| {
            form_label(ui, "Name");
            widgets::text_field(
                ui,
                out,
                "scn-name",
                &scn.name,
                FieldLook::new("Scenario name").width(250.0),
                |v| with(&|s| s.name = v.clone()),
            );
            ui.end_row();
            form_label(ui, "Date");
            widgets::text_field(
                ui,
                out,
                "scn-date",
                &scn.date,
                FieldLook::new("Date"),
                |v| with(&|s| s.date = v.clone()),
            );
            ui.end_row();
            form_label(ui, "Year");
            let year = scn.year.map_or_else(String::new, |y| y.to_string());
            widgets::text_field(
                ui,
                out,
                "scn-year",
                &year,
                FieldLook::new("Year").width(60.0),
                |v| {
                    let t = v.trim().to_string();
                    with(&|s| {
                        if t.is_empty() {
                            s.year = None;
                        } else if let Ok(y) = t.parse() {
                            s.year = Some(y);
                        }
                    })
                },
            )
            .on_hover_text("The year decides which rows are available (ARMY-12); blank for none");
            ui.end_row();
            form_label(ui, "Points a side");
            widgets::num_field(
                ui,
                out,
                "scn-points",
                scn.points,
                0..=100_000,
                "Points a side",
                |v| with(&|s| s.points = v),
            );
            ui.end_row();
            form_label(ui, "Turn limit");
            widgets::num_field(
                ui,
                out,
                "scn-turns",
                scn.turn_limit,
                1..=99,
                "Turn limit",
                |v| with(&|s| s.turn_limit = v),
            );
            ui.end_row();
            form_label(ui, "Table (cm)");
            ui.horizontal(|ui| {
                widgets::num_field(
                    ui,
                    out,
                    "scn-width",
                    scn.table.width_cm,
                    30.0..=1000.0,
                    "Table width (cm)",
                    |v| with(&|s| s.table.width_cm = v),
                );
                ui.label("×");
                widgets::num_field(
                    ui,
                    out,
                    "scn-depth",
                    scn.table.depth_cm,
                    30.0..=1000.0,
                    "Table depth (cm)",
                    |v| with(&|s| s.table.depth_cm = v),
                );
            });
            ui.end_row();
            form_label(ui, "Scale");
            let scales: Vec<(Scale, String)> = Scale::ALL
                .iter()
                .map(|s| (*s, s.label().to_string()))
                .collect();
            if let Some(v) = widgets::combo(ui, "scn-scale", "Scale", &scn.scale, &scales, 140.0) {
                out.send(with(&|s| s.scale = v));
            }
            ui.end_row();
            // BAS-01: the miniature size; every distance of the rules follows it.
            form_label(ui, "Figure scale");
            let sizes: Vec<(MeasureScale, String)> = MeasureScale::ALL
                .iter()
                .map(|m| (*m, m.label().to_string()))
                .collect();
            if let Some(v) = widgets::combo(
                ui,
                "scn-measure-scale",
                "Figure scale",
                &scn.measure_scale,
                &sizes,
                140.0,
            ) {
                out.send(with(&|s| s.measure_scale = v));
            }
            ui.end_row();
            // OPT-WEATHER, OPT-NIGHT: stated once, as switches with the starting weather
            // beside them (#21 item 2); an older file's "night" weather reads as the night switch.
            weather_rows(ui, out, scn, &with);
            form_label(ui, "Defence posture");
            let postures: Vec<(DefensePosture, String)> = DefensePosture::ALL
                .iter()
                .map(|d| {
                    (
                        *d,
                        format!("{} ({}% budget)", d.label(), d.budget_percent()),
                    )
                })
                .collect();
            if let Some(v) = widgets::combo(
                ui,
                "scn-defense",
                "Defence posture",
                &scn.defense,
                &postures,
                140.0,
            ) {
                out.send(with(&|s| s.defense = v));
            }
            ui.end_row();
            form_label(ui, "Defender");
            if let Some(v) = widgets::combo(
                ui,
                "scn-defender",
                "Defender",
                &scn.defender,
                &side_choices(scn, "None"),
                140.0,
            ) {
                out.send(with(&|s| s.defender = v));
            }
            ui.end_row();
            // SEQ-01: the scenario names the side that moves first, or the sides roll off.
            form_label(ui, "First move");
            if let Some(v) = widgets::combo(
                ui,
                "scn-first",
                "First move",
                &scn.first_player,
                &side_choices(scn, "Roll off"),
                140.0,
            ) {
                out.send(with(&|s| s.first_player = v));
            }
            ui.end_row();
        });
    ui.add_space(4.0);
    form_label(ui, "Description");
    widgets::text_field(
        ui,
        out,
        "scn-desc",
        &scn.description,
        FieldLook::new("Description")
            .width(ui.available_width())
            .multiline(),
        |v| with(&|s| s.description = v.clone()),
    );

    section(ui, "Optional rules");
    // #21 item 2: each switch with what it changes, in our words; weather and night are in the
    // settings above, once.
    for rule in OptionalRule::ALL
        .iter()
        .filter(|r| !matches!(r, OptionalRule::Weather | OptionalRule::Night))
    {
        let mut on = scn.optional_rules.contains(rule);
        let label = if rule.implemented() {
            format!("{} ({})", rule.label(), rule.family())
        } else {
            format!("{} ({}, not yet played)", rule.label(), rule.family())
        };
        let resp = ui.checkbox(&mut on, label);
        let resp = if rule.implemented() {
            resp.on_hover_text(rule.gist())
        } else {
            resp.on_hover_text(
                "The battle engine does not play this option yet: it is kept with the \
                 scenario, but a battle is fought as if it were off.",
            )
        };
        if resp.changed() {
            out.send(with(&|s| set_rule(s, *rule, on)));
        }
        ui.indent(("opt-gist", *rule as usize), |ui| {
            ui.label(RichText::new(rule.gist()).small().color(palette::FAINT));
        });
    }

    section(ui, "Sides");
    for (i, s) in scn.sides.iter().enumerate() {
        ui.label(format!(
            "{}. {} — {}",
            i + 1,
            s.name,
            view.list(&s.army_list)
                .map_or(s.army_list.as_str(), |l| l.name.as_str())
        ));
    }
    if widgets::verb_button(ui, Verb::AddSide, !view.lists.is_empty()) {
        if let Some(l) = view.lists.iter().find(|l| l.complete) {
            out.send(edit(ScenarioEdit::AddSide { list: l.id.clone() }));
        }
    }
    let vs = view.violations_of(Subject::Scenario);
    if !vs.is_empty() {
        section(ui, "Problems");
        violation_box(ui, &vs);
    }
    if !view.advice.is_empty() {
        section(ui, "Table and game size");
        widgets::advice_box(ui, view.advice);
    }
}

fn side_inspector(
    ui: &mut Ui,
    view: &View<'_>,
    scn: &Scenario,
    idx: usize,
    side: &Side,
    out: &mut Emitter,
) {
    inspector_title(ui, &format!("Side {}", idx + 1), &side.name);
    let (name, list_id, colour) = (side.name.clone(), side.army_list.clone(), side.colour);
    egui::Grid::new("side-form")
        .num_columns(2)
        .spacing([10.0, 6.0])
        .show(ui, |ui| {
            form_label(ui, "Name");
            let (l, c) = (list_id.clone(), colour);
            widgets::text_field(
                ui,
                out,
                ("side-name", idx),
                &side.name,
                FieldLook::new("Side name"),
                move |v| {
                    edit(ScenarioEdit::SetSide {
                        side: idx,
                        name: v,
                        list: l,
                        colour: c,
                    })
                },
            );
            ui.end_row();
            form_label(ui, "Army list");
            let options: Vec<(crate::model::ListId, String)> = view
                .lists
                .iter()
                .map(|l| {
                    let mut label = format!("{} — {}", l.name, l.period.label());
                    if !l.complete {
                        label.push_str(" (incomplete)");
                    }
                    (l.id.clone(), label)
                })
                .collect();
            if let Some(l) = widgets::combo(
                ui,
                ("side-list", idx),
                "Army list",
                &side.army_list,
                &options,
                250.0,
            ) {
                out.send(edit(ScenarioEdit::SetSide {
                    side: idx,
                    name: name.clone(),
                    list: l,
                    colour,
                }));
            }
            ui.end_row();
        });
    if let Some(list) = view.list(&side.army_list) {
        section(ui, "Totals");
        side_totals(ui, scn, idx, side, list);
    }
    section(ui, "Field defences");
    if side.field_defenses.is_empty() {
        ui.label(RichText::new("None bought.").color(palette::FAINT));
    }
    for d in &side.field_defenses {
        ui.horizontal(|ui| {
            ui.label(format!("{} × {}", d.sections, d.kind.label()));
            ui.label(
                RichText::new(d.kind.spec().what)
                    .small()
                    .color(palette::FAINT),
            );
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                ui.label(format!("{} pts", d.cost()));
            });
        });
        for v in view.violations_of(Subject::Defense(idx, d.id)) {
            widgets::violation_line(ui, v);
        }
    }
    let vs = view.violations_of(Subject::Side(idx));
    if !vs.is_empty() {
        section(ui, "Problems");
        violation_box(ui, &vs);
    }
    section(ui, "Actions");
    ui.horizontal_wrapped(|ui| {
        let has_co = side.hqs.iter().any(|h| h.parent.is_none());
        if widgets::verb_button(ui, Verb::AddCo, !has_co) {
            out.send(edit(ScenarioEdit::AddHq {
                side: idx,
                parent: None,
            }));
        }
        if widgets::verb_button(ui, Verb::DeleteSide, true) {
            out.send(edit(ScenarioEdit::DeleteSide(idx)));
        }
    });
}

/// HQs that may become `hq`'s parent: any HQ not `hq` itself nor beneath it.
pub fn possible_parents(side: &Side, hq: HqId) -> Vec<&Hq> {
    let mut below = BTreeSet::new();
    let mut stack = vec![hq];
    while let Some(id) = stack.pop() {
        if below.insert(id) {
            stack.extend(side.child_hqs(Some(id)).map(|c| c.id));
        }
    }
    side.hqs.iter().filter(|h| !below.contains(&h.id)).collect()
}

fn hq_label(h: &Hq) -> String {
    format!(
        "{} ({})",
        if h.name.is_empty() {
            "unnamed HQ"
        } else {
            h.name.as_str()
        },
        h.commander.level.label()
    )
}

fn hq_inspector(ui: &mut Ui, view: &View<'_>, idx: usize, side: &Side, hq: &Hq, out: &mut Emitter) {
    let kind = if hq.parent.is_none() {
        "Commanding officer"
    } else {
        "HQ"
    };
    inspector_title(ui, kind, &hq.name);
    let list = view.list(&side.army_list);
    let set = |f: &dyn Fn(&mut Hq)| -> AppCommand {
        let mut h = hq.clone();
        f(&mut h);
        edit(ScenarioEdit::SetHq {
            side: idx,
            hq: Box::new(h),
        })
    };
    egui::Grid::new("hq-form")
        .num_columns(2)
        .spacing([10.0, 6.0])
        .show(ui, |ui| {
            form_label(ui, "Formation");
            widgets::text_field(
                ui,
                out,
                ("hq-name", idx, hq.id),
                &hq.name,
                FieldLook::new("HQ name").width(250.0),
                |v| set(&|h| h.name = v.clone()),
            );
            ui.end_row();
            form_label(ui, "Parent");
            let mut options: Vec<(Option<HqId>, String)> =
                vec![(None, "None (commanding officer)".to_string())];
            options.extend(
                possible_parents(side, hq.id)
                    .into_iter()
                    .map(|h| (Some(h.id), hq_label(h))),
            );
            if let Some(p) = widgets::combo(
                ui,
                ("hq-parent", idx, hq.id),
                "Parent HQ",
                &hq.parent,
                &options,
                250.0,
            ) {
                out.send(edit(ScenarioEdit::MoveHq {
                    side: idx,
                    hq: hq.id,
                    parent: p,
                }));
            }
            ui.end_row();
            ui.label("");
            let mut mounted = hq.mounted;
            if ui.checkbox(&mut mounted, "Mounted").changed() {
                out.send(set(&|h| h.mounted = mounted));
            }
            ui.end_row();
            // ART-10: a Field Artillery Officer (the Average Brigade HQ line, 55 points).
            ui.label("");
            let mut fao = hq.fao;
            if ui
                .checkbox(&mut fao, "FAO")
                .on_hover_text(
                    "Field Artillery Officer (ART-10): orders only a grand battery firing at one \
                     target; Average Brigade HQ line, 55 points; never the CO",
                )
                .changed()
            {
                out.send(set(&|h| h.fao = fao));
            }
            ui.end_row();
        });

    section(ui, "Commander");
    let c = &hq.commander;
    egui::Grid::new("commander-form")
        .num_columns(2)
        .spacing([10.0, 6.0])
        .show(ui, |ui| {
            form_label(ui, "Name");
            widgets::text_field(
                ui,
                out,
                ("cmd-name", idx, hq.id),
                &c.name,
                FieldLook::new("Commander name").width(250.0),
                |v| set(&|h| h.commander.name = v.clone()),
            );
            ui.end_row();
            form_label(ui, "Level");
            let mut levels: Vec<CommandLevel> = list.map(|l| l.levels()).unwrap_or_default();
            if !levels.contains(&c.level) {
                levels.push(c.level);
            }
            let level_opts: Vec<(CommandLevel, String)> =
                levels.iter().map(|l| (*l, l.label().to_string())).collect();
            if let Some(v) = widgets::combo(
                ui,
                ("cmd-level", idx, hq.id),
                "Command level",
                &c.level,
                &level_opts,
                160.0,
            ) {
                out.send(set(&|h| h.commander.level = v));
            }
            ui.end_row();
            form_label(ui, "Quality");
            let mut qualities: Vec<Quality> = list
                .map(|l| {
                    l.command_types
                        .iter()
                        .filter(|t| t.level == c.level)
                        .map(|t| t.quality)
                        .collect()
                })
                .unwrap_or_default();
            if !qualities.contains(&c.quality) {
                qualities.push(c.quality);
            }
            let q_opts: Vec<(Quality, String)> = qualities
                .iter()
                .map(|q| (*q, q.label().to_string()))
                .collect();
            if let Some(v) = widgets::combo(
                ui,
                ("cmd-quality", idx, hq.id),
                "Quality",
                &c.quality,
                &q_opts,
                160.0,
            ) {
                out.send(set(&|h| h.commander.quality = v));
            }
            ui.end_row();
            form_label(ui, "Command value");
            widgets::num_field(
                ui,
                out,
                ("cmd-cv", idx, hq.id),
                c.command_value,
                1..=12,
                "Command value",
                |v| set(&|h| h.commander.command_value = v),
            )
            .on_hover_text("CMD-01; reset to the chart's value when level or quality change");
            ui.end_row();
            ui.label("");
            let mut replaced = c.replaced_once;
            if ui
                .checkbox(&mut replaced, "Replaced once")
                .on_hover_text("CMD-28: a knocked-out commander is replaced once, at -1")
                .changed()
            {
                out.send(set(&|h| h.commander.replaced_once = replaced));
            }
            ui.end_row();
        });
    form_label(ui, "Historical note");
    widgets::text_field(
        ui,
        out,
        ("cmd-note", idx, hq.id),
        &c.note,
        FieldLook::new("Historical note")
            .width(ui.available_width())
            .multiline(),
        |v| set(&|h| h.commander.note = v.clone()),
    );
    if let Some(ct) = list.and_then(|l| l.command_type(c.level, c.quality)) {
        ui.label(
            RichText::new(format!(
                "Chart: {} — command {}, move {}, +{} presence, hits {}, save {}, {} pts",
                ct.label(),
                ct.command,
                ct.movement,
                ct.presence_dice,
                ct.hits,
                ct.save
                    .map_or_else(|| "none".to_string(), |s| s.to_string()),
                ct.points
            ))
            .small()
            .color(palette::FAINT),
        );
    }
    if let Some(list) = list {
        section(ui, "Points");
        ui.label(format!(
            "HQ {} pts · with everything beneath it {} pts",
            hq_points(hq, list),
            thousands(subtree_points(side, hq.id, list))
        ));
    }
    let vs = view.violations_of(Subject::Hq(idx, hq.id));
    if !vs.is_empty() {
        section(ui, "Problems");
        violation_box(ui, &vs);
    }
    section(ui, "Actions");
    ui.horizontal_wrapped(|ui| {
        if widgets::verb_button(ui, Verb::AddUnit, true) {
            out.send(edit(ScenarioEdit::AddUnit {
                side: idx,
                hq: hq.id,
            }));
        }
        if widgets::verb_button(ui, Verb::AddHq, true) {
            out.send(edit(ScenarioEdit::AddHq {
                side: idx,
                parent: Some(hq.id),
            }));
        }
        if widgets::verb_button(ui, Verb::ReplaceCommander, true) {
            out.send(edit(ScenarioEdit::ReplaceCommander {
                side: idx,
                hq: hq.id,
            }));
        }
        if widgets::verb_button(ui, Verb::DeleteHq, true) {
            out.send(edit(ScenarioEdit::DeleteHq {
                side: idx,
                hq: hq.id,
            }));
        }
    });
}

fn unit_inspector(
    ui: &mut Ui,
    view: &View<'_>,
    idx: usize,
    side: &Side,
    unit: &Unit,
    out: &mut Emitter,
) {
    inspector_title(ui, "Unit", &unit.name);
    let list = view.list(&side.army_list);
    let set = |f: &dyn Fn(&mut Unit)| -> AppCommand {
        let mut u = unit.clone();
        f(&mut u);
        edit(ScenarioEdit::SetUnit {
            side: idx,
            unit: Box::new(u),
        })
    };
    let id = unit.id;
    egui::Grid::new("unit-form")
        .num_columns(2)
        .spacing([10.0, 6.0])
        .show(ui, |ui| {
            form_label(ui, "Name");
            widgets::text_field(
                ui,
                out,
                ("unit-name", idx, id),
                &unit.name,
                FieldLook::new("Unit name").width(250.0),
                |v| set(&|u| u.name = v.clone()),
            );
            ui.end_row();
            form_label(ui, "Troop type");
            let mut options: Vec<(crate::model::TroopTypeId, String)> = list
                .map(|l| {
                    l.troop_types
                        .iter()
                        .filter(|t| t.purchasable())
                        .map(|t| (t.id.clone(), t.name.clone()))
                        .collect()
                })
                .unwrap_or_default();
            if !options.iter().any(|(t, _)| t == &unit.troop_type) {
                let name = list
                    .and_then(|l| l.troop_type(&unit.troop_type))
                    .map_or_else(
                        || format!("{} (not in list)", unit.troop_type),
                        |t| format!("{} (not bought)", t.name),
                    );
                options.insert(0, (unit.troop_type.clone(), name));
            }
            if let Some(t) = widgets::combo(
                ui,
                ("unit-type", idx, id),
                "Troop type",
                &unit.troop_type,
                &options,
                250.0,
            ) {
                out.send(set(&|u| u.troop_type = t.clone()));
            }
            ui.end_row();
            form_label(ui, "Stands");
            widgets::num_field(
                ui,
                out,
                ("unit-stands", idx, id),
                unit.stands,
                1..=12,
                "Stands",
                |v| set(&|u| u.stands = v),
            );
            ui.end_row();
            form_label(ui, "Grade");
            let grades: Vec<(Grade, String)> = Grade::ALL
                .iter()
                .map(|g| (*g, g.label().to_string()))
                .collect();
            if let Some(g) = widgets::combo(
                ui,
                ("unit-grade", idx, id),
                "Grade",
                &unit.grade,
                &grades,
                120.0,
            ) {
                out.send(set(&|u| u.grade = g));
            }
            ui.end_row();
            form_label(ui, "HQ");
            let hqs: Vec<(HqId, String)> = side.hqs.iter().map(|h| (h.id, hq_label(h))).collect();
            if let Some(h) =
                widgets::combo(ui, ("unit-hq", idx, id), "Parent HQ", &unit.hq, &hqs, 250.0)
            {
                out.send(set(&|u| u.hq = h));
            }
            ui.end_row();
        });
    section(ui, "Attachments");
    let flags: [widgets::Flag<Unit>; 5] = [
        (
            "Engineer attached",
            "An engineer stand makes this an engineer unit (COL-02)",
            unit.engineer_attached,
            |u, v| u.engineer_attached = v,
        ),
        (
            "Brigade skirmishers",
            "Provides a brigade skirmisher screen (SKIR-01)",
            unit.brigade_skirmishers,
            |u, v| u.brigade_skirmishers = v,
        ),
        (
            "Regimental guns",
            "Regimental guns attached (18th century)",
            unit.regimental_guns,
            |u, v| u.regimental_guns = v,
        ),
        (
            "Lancers",
            "Designated lancers where the row permits (COL-13)",
            unit.lancers,
            |u, v| u.lancers = v,
        ),
        (
            "Horse artillery",
            "ACW: a gun with a cavalry brigade (ARMY-11)",
            unit.horse_artillery,
            |u, v| u.horse_artillery = v,
        ),
    ];
    egui::Grid::new("unit-flags").num_columns(2).show(ui, |ui| {
        for (i, (label, tip, value, apply)) in flags.into_iter().enumerate() {
            let mut on = value;
            if ui.checkbox(&mut on, label).on_hover_text(tip).changed() {
                out.send(set(&|u| apply(u, on)));
            }
            if i % 2 == 1 {
                ui.end_row();
            }
        }
    });
    if let Some(list) = list {
        section(ui, "Points");
        let pts = unit_points(unit, list);
        ui.label(
            RichText::new(format!("{} pts", thousands(pts)))
                .size(16.0)
                .bold(),
        );
        if let Some(row) = list.troop_type(&unit.troop_type) {
            let mut how = format!(
                "{} stands × {} pts",
                unit.stands,
                crate::model::points::stand_cost(unit, row, list)
            );
            if unit.engineer_attached {
                if let Some(e) = crate::model::points::engineer_row(list) {
                    how.push_str(&format!(" + engineer stand {} pts", e.points.unwrap_or(0)));
                }
            }
            ui.label(RichText::new(how).color(palette::FAINT));
            ui.label(
                RichText::new(format!("{}: {}", row.name, row.stat_line()))
                    .monospace()
                    .color(palette::FAINT),
            );
            for g in list.note_gists(row) {
                ui.add(egui::Label::new(RichText::new(g).small().color(palette::FAINT)).wrap());
            }
        }
    }
    let vs = view.violations_of(Subject::Unit(idx, unit.id));
    if !vs.is_empty() {
        section(ui, "Problems");
        violation_box(ui, &vs);
    }
    section(ui, "Actions");
    ui.horizontal_wrapped(|ui| {
        if widgets::verb_button(ui, Verb::AddUnit, true) {
            out.send(edit(ScenarioEdit::AddUnit {
                side: idx,
                hq: unit.hq,
            }));
        }
        if widgets::verb_button(ui, Verb::DeleteUnit, true) {
            out.send(edit(ScenarioEdit::DeleteUnit {
                side: idx,
                unit: unit.id,
            }));
        }
    });
}

/// A combo box's choices of a side of the scenario, or `none` (no side).
fn side_choices(scn: &Scenario, none: &str) -> Vec<(Option<usize>, String)> {
    std::iter::once((None, none.to_string()))
        .chain(
            scn.sides
                .iter()
                .enumerate()
                .map(|(i, s)| (Some(i), s.name.clone())),
        )
        .collect()
}
