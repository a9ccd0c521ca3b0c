//! The scenarios page: every scenario in the database, with new (from a template with two empty
//! sides), duplicate, delete (after a confirmation), import, export and print (which opens the
//! scenario and the print options).
//!
//! Import and export only *ask*: the app opens the file dialog off the UI thread and reports the
//! outcome in the message area. No store and no file system here.

use super::commands::{AppCommand, Verb};
use super::widgets::{
    self, card, form_label, palette, section, thousands, Emitter, NamedInput as _, RichTextExt as _,
};
use super::{Page, UiState, View};
use crate::model::ListId;
use egui::{RichText, Ui};

/// The "new scenario" form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewScenarioForm {
    pub name: String,
    pub lists: [Option<ListId>; 2],
}

pub fn page(ui: &mut Ui, view: &View<'_>, state: &mut UiState, out: &mut Emitter) {
    confirm_delete(ui, view, state, out);
    egui::Panel::right("new-scenario")
        .default_size(380.0)
        .frame(
            egui::Frame::new()
                .fill(palette::PANEL)
                .inner_margin(egui::Margin::same(12)),
        )
        .show(ui, |ui| new_form(ui, view, state, out));
    egui::CentralPanel::default().show(ui, |ui| {
        ui.horizontal(|ui| {
            ui.heading(RichText::new("Scenarios").bold());
            ui.add_space(12.0);
            if widgets::verb_button(ui, Verb::ImportScenario, !view.dialog_open) {
                out.send(AppCommand::ImportScenarioDialog);
            }
        });
        ui.label(
            RichText::new("Every battle in this database. Open one to edit its orders of battle.")
                .color(palette::FAINT),
        );
        ui.add_space(8.0);
        if view.scenarios.is_empty() {
            ui.label("No scenarios yet: create one on the right, or import a scenario file.");
            return;
        }
        // At 1024 px the six buttons of a row do not fit beside the form on the right: the row's
        // buttons then take two lines (the ones used in play first), so none hides under the
        // panel or needs a sideways scroll to be found. Both ways still, for a very long name.
        let two_lines = ui.available_width() < ROW_ONE_LINE_PX;
        egui::ScrollArea::both()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::Grid::new("scenario-table")
                    .striped(true)
                    .num_columns(4)
                    .spacing([18.0, 6.0])
                    .show(ui, |ui| {
                        for h in ["Scenario", "Date", "Points", ""] {
                            ui.label(RichText::new(h).bold().color(palette::BLUE));
                        }
                        ui.end_row();
                        for s in view.scenarios {
                            let open = view.open.is_some_and(|o| o.id == s.id);
                            let mut name = RichText::new(&s.name).bold();
                            if open {
                                name = name.color(palette::BLUE);
                            }
                            ui.label(name).on_hover_text(format!(
                                "{} (id {})",
                                s.name,
                                s.id.as_str()
                            ));
                            ui.label(RichText::new(&s.date).color(palette::FAINT));
                            ui.label(thousands(i64::from(s.points)));
                            ui.push_id(s.id.as_str(), |ui| {
                                if two_lines {
                                    ui.vertical(|ui| {
                                        ui.horizontal(|ui| play_buttons(ui, view, state, out, s));
                                        ui.horizontal(|ui| file_buttons(ui, view, state, out, s));
                                    });
                                } else {
                                    ui.horizontal(|ui| {
                                        play_buttons(ui, view, state, out, s);
                                        file_buttons(ui, view, state, out, s);
                                    });
                                }
                            });
                            ui.end_row();
                        }
                    });
            });
    });
}

/// Below this width of the page (beside the form) a row's buttons take two lines.
const ROW_ONE_LINE_PX: f32 = 900.0;

/// A row's buttons for playing and printing: Open, Print…, Balance….
fn play_buttons(
    ui: &mut Ui,
    view: &View<'_>,
    state: &mut UiState,
    out: &mut Emitter,
    s: &super::ScenarioRow,
) {
    let open = view.open.is_some_and(|o| o.id == s.id);
    if ui
        .button("Open")
        .on_hover_text("Edit its orders of battle")
        .clicked()
    {
        out.send(AppCommand::OpenScenario(s.id.clone()));
        state.page = Page::OrdersOfBattle;
    }
    if super::print::print_button(ui, view, Verb::PrintScenario, view.can_print()) {
        if !open {
            out.send(AppCommand::OpenScenario(s.id.clone()));
        }
        state
            .print
            .open_for(s.id.clone(), super::print::PrintKind::Roster);
    }
    if ui
        .button("Balance…")
        .on_hover_text(
            "Let the computer play it many times and see which side is favoured, and why",
        )
        .clicked()
    {
        state.balance.open_for(s.id.clone(), s.name.clone());
    }
}

/// A row's buttons for the file itself: Duplicate, Export…, Delete.
fn file_buttons(
    ui: &mut Ui,
    view: &View<'_>,
    state: &mut UiState,
    out: &mut Emitter,
    s: &super::ScenarioRow,
) {
    if widgets::verb_button(ui, Verb::DuplicateScenario, true) {
        out.send(AppCommand::DuplicateScenario(s.id.clone()));
    }
    if widgets::verb_button(ui, Verb::ExportScenario, !view.dialog_open) {
        out.send(AppCommand::ExportScenarioDialog(s.id.clone()));
    }
    if widgets::verb_button(ui, Verb::DeleteScenario, true) {
        state.confirm_delete = Some(s.id.clone());
    }
}

fn confirm_delete(ui: &mut Ui, view: &View<'_>, state: &mut UiState, out: &mut Emitter) {
    let Some(id) = state.confirm_delete.clone() else {
        return;
    };
    let name = view
        .scenarios
        .iter()
        .find(|s| s.id == id)
        .map_or_else(|| id.to_string(), |s| s.name.clone());
    let mut close = false;
    egui::Modal::new(egui::Id::unique("confirm-delete")).show(ui.ctx(), |ui| {
        ui.set_width(380.0);
        ui.label(RichText::new("Delete this scenario?").size(17.0).bold());
        ui.add_space(6.0);
        ui.label(format!(
            "'{name}' and its orders of battle will be removed from the database."
        ));
        ui.label(
            RichText::new("This cannot be undone. Export it first to keep a copy.")
                .color(palette::WARN),
        );
        ui.add_space(10.0);
        ui.horizontal(|ui| {
            if ui
                .button(RichText::new("Delete scenario").color(palette::ERROR))
                .clicked()
            {
                out.send(AppCommand::DeleteScenario(id.clone()));
                close = true;
            }
            if ui.button("Cancel").clicked() {
                close = true;
            }
        });
    });
    if close {
        state.confirm_delete = None;
    }
}

fn new_form(ui: &mut Ui, view: &View<'_>, state: &mut UiState, out: &mut Emitter) {
    section(ui, "New scenario");
    ui.label(
        RichText::new("A 1,500-point battle with two empty sides; set the rest in the editor.")
            .color(palette::FAINT),
    );
    ui.add_space(6.0);
    let form = &mut state.new_scenario;
    for (i, slot) in form.lists.iter_mut().enumerate() {
        if slot.is_none() {
            *slot = view
                .lists
                .iter()
                .filter(|l| l.complete)
                .nth(i)
                .map(|l| l.id.clone());
        }
    }
    let options: Vec<(Option<ListId>, String)> = view
        .lists
        .iter()
        .filter(|l| l.complete)
        .map(|l| {
            (
                Some(l.id.clone()),
                format!("{} — {}", l.name, l.period.label()),
            )
        })
        .collect();
    card(ui, |ui| {
        egui::Grid::new("new-scenario-form")
            .num_columns(2)
            .spacing([10.0, 8.0])
            .show(ui, |ui| {
                form_label(ui, "Name");
                ui.add(
                    egui::TextEdit::singleline(&mut form.name)
                        .hint_text("e.g. Aspern-Essling, 21 May 1809")
                        .desired_width(240.0),
                )
                .named("New scenario name");
                ui.end_row();
                for (i, slot) in form.lists.iter_mut().enumerate() {
                    form_label(ui, &format!("Side {} list", i + 1));
                    let label = format!("Side {} army list", i + 1);
                    if let Some(v) =
                        widgets::combo(ui, ("new-list", i), &label, slot, &options, 240.0)
                    {
                        *slot = v;
                    }
                    ui.end_row();
                }
            });
        ui.add_space(6.0);
        let ready = !form.name.trim().is_empty() && form.lists.iter().all(Option::is_some);
        let spec = Verb::NewScenario.spec();
        let clicked = ui
            .add_enabled(ready, egui::Button::new(spec.label))
            .on_hover_text(spec.tooltip)
            .on_disabled_hover_text("Give it a name and pick both lists")
            .clicked();
        if clicked {
            if let [Some(a), Some(b)] = form.lists.clone() {
                out.send(AppCommand::NewScenario {
                    name: form.name.trim().to_string(),
                    lists: [a, b],
                });
                form.name.clear();
            }
        }
    });
}
