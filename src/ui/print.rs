//! Printing: the options popup (roster or labels; all sides or one; A4 or Letter; labels per
//! stand or unit, ranges at which scale) and the progress bar of the PDF being written.
//!
//! The popup only *asks*: "Save PDF…" sends [`AppCommand::PrintDialog`], and the app opens the
//! save dialog and writes the PDF on a worker thread, reporting progress that [`job_bar`] draws
//! and the outcome in the message area. No file system, no dialog here.

use super::commands::{AppCommand, Print, Verb};
use super::widgets::{self, form_label, palette, Emitter, RichTextExt as _};
use super::{JobStatus, UiState, View};
use crate::export::{LabelOptions, Paper, Per, RosterOptions};
use crate::model::{Scale, Scenario, ScenarioId};
use egui::{RichText, Ui};

/// Roster or labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PrintKind {
    #[default]
    Roster,
    Labels,
}

/// The print options popup: open or not, and the choices, which are kept between openings
/// (side and scale only for the same scenario).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PrintForm {
    pub open: bool,
    pub scenario: Option<ScenarioId>,
    pub kind: PrintKind,
    /// Only this side (by name); `None`: all sides.
    pub side: Option<String>,
    pub paper: Paper,
    pub per: Per,
    /// Ranges at this scale; `None`: the scenario's own.
    pub scale: Option<Scale>,
}

impl PrintForm {
    /// Opens the popup for `scenario`, on `kind`.
    pub fn open_for(&mut self, scenario: ScenarioId, kind: PrintKind) {
        if self.scenario.as_ref() != Some(&scenario) {
            self.side = None;
            self.scale = None;
        }
        self.scenario = Some(scenario);
        self.kind = kind;
        self.open = true;
    }

    /// What the form asks for.
    pub fn print(&self) -> Print {
        match self.kind {
            PrintKind::Roster => Print::Roster(RosterOptions {
                side: self.side.clone(),
                paper: self.paper,
            }),
            PrintKind::Labels => Print::Labels(LabelOptions {
                per: self.per,
                paper: self.paper,
                scale: self.scale,
                side: self.side.clone(),
            }),
        }
    }
}

/// The print buttons of the order-of-battle header, for the open scenario.
pub fn buttons(ui: &mut Ui, view: &View<'_>, scn: &Scenario, state: &mut UiState) {
    let can = view.can_print();
    if print_button(ui, view, Verb::PrintLabels, can) {
        state.print.open_for(scn.id.clone(), PrintKind::Labels);
    }
    if print_button(ui, view, Verb::PrintRoster, can) {
        state.print.open_for(scn.id.clone(), PrintKind::Roster);
    }
}

/// A print verb button that says why it is disabled.
pub fn print_button(ui: &mut Ui, view: &View<'_>, verb: Verb, enabled: bool) -> bool {
    if enabled {
        return widgets::verb_button(ui, verb, true);
    }
    let why = if view.job.is_some() {
        "A PDF is being written: wait for it to finish"
    } else {
        "A file dialog is open"
    };
    ui.add_enabled(false, egui::Button::new(verb.label()))
        .on_disabled_hover_text(why);
    false
}

/// The options popup, when open. Closed by "Cancel", Escape or a click outside it.
pub fn popup(ui: &mut Ui, view: &View<'_>, state: &mut UiState, out: &mut Emitter) {
    let form = &mut state.print;
    if !form.open {
        return;
    }
    let Some(id) = form.scenario.clone() else {
        form.open = false;
        return;
    };
    // Side names come from the scenario, which is open in the editor when printing.
    let scn = view.open.filter(|s| s.id == id);
    let name = scn.map(|s| s.name.clone()).unwrap_or_else(|| {
        view.scenarios
            .iter()
            .find(|s| s.id == id)
            .map_or_else(|| id.to_string(), |s| s.name.clone())
    });
    if let (Some(scn), Some(side)) = (scn, &form.side) {
        if !scn.sides.iter().any(|s| &s.name == side) {
            form.side = None; // renamed or deleted since
        }
    }
    let mut close = false;
    let modal = egui::Modal::new(egui::Id::unique("print-options")).show(ui.ctx(), |ui| {
        ui.set_width(440.0);
        ui.label(RichText::new(format!("Print — {name}")).size(17.0).bold());
        let blurb = match form.kind {
            PrintKind::Roster => "A roster to play from: each side from a new page.",
            PrintKind::Labels => {
                "Stat labels the size of their bases, with cut marks: print at 100 % (actual size)."
            }
        };
        ui.add(egui::Label::new(RichText::new(blurb).color(palette::FAINT)).wrap());
        ui.add_space(8.0);
        egui::Grid::new("print-form")
            .num_columns(2)
            .spacing([12.0, 8.0])
            .show(ui, |ui| {
                form_label(ui, "What");
                ui.horizontal(|ui| {
                    ui.radio_value(&mut form.kind, PrintKind::Roster, "Roster");
                    ui.radio_value(&mut form.kind, PrintKind::Labels, "Labels");
                });
                ui.end_row();

                form_label(ui, "Sides");
                let mut options = vec![(None, "All sides".to_string())];
                if let Some(scn) = scn {
                    options.extend(
                        scn.sides
                            .iter()
                            .filter(|s| !s.name.trim().is_empty())
                            .map(|s| (Some(s.name.clone()), format!("{} only", s.name))),
                    );
                }
                if let Some(v) =
                    widgets::combo(ui, "print-side", "Sides", &form.side, &options, 240.0)
                {
                    form.side = v;
                }
                ui.end_row();

                form_label(ui, "Paper");
                ui.horizontal(|ui| {
                    for p in Paper::ALL {
                        ui.radio_value(&mut form.paper, p, p.label());
                    }
                });
                ui.end_row();

                if form.kind == PrintKind::Labels {
                    form_label(ui, "One label for");
                    ui.horizontal(|ui| {
                        ui.radio_value(&mut form.per, Per::Stand, "Each stand");
                        ui.radio_value(&mut form.per, Per::Unit, "Each unit");
                    });
                    ui.end_row();

                    form_label(ui, "Ranges at");
                    let own = scn.map_or_else(
                        || "The scenario's scale".to_string(),
                        |s| format!("The scenario's ({})", s.scale.label().to_lowercase()),
                    );
                    let mut scales = vec![(None, own)];
                    scales.extend(
                        Scale::ALL
                            .iter()
                            .map(|s| (Some(*s), format!("{} scale", s.label()))),
                    );
                    if let Some(v) =
                        widgets::combo(ui, "print-scale", "Ranges at", &form.scale, &scales, 240.0)
                    {
                        form.scale = v;
                    }
                    ui.end_row();
                }
            });
        if let Some(scn) = scn {
            empty_side_warnings(ui, scn, form.side.as_deref());
        }
        ui.add_space(10.0);
        ui.horizontal(|ui| {
            if print_button(ui, view, Verb::SavePdf, view.can_print()) {
                out.send(AppCommand::PrintDialog {
                    scenario: id.clone(),
                    print: form.print(),
                });
                close = true;
            }
            if ui.button("Cancel").clicked() {
                close = true;
            }
        });
    });
    if close || modal.should_close() {
        form.open = false;
    }
}

/// Warns before printing a side with no units (the export refuses it and says so).
fn empty_side_warnings(ui: &mut Ui, scn: &Scenario, only: Option<&str>) {
    let empty: Vec<&str> = scn
        .sides
        .iter()
        .filter(|s| only.is_none_or(|o| s.name == o) && s.units.is_empty())
        .map(|s| s.name.as_str())
        .collect();
    for side in empty {
        let side = if side.trim().is_empty() {
            "A side"
        } else {
            side
        };
        ui.add_space(4.0);
        ui.horizontal_wrapped(|ui| {
            widgets::warn_icon(ui);
            ui.label(
                RichText::new(format!(
                    "{side} has no units yet: there is nothing to print for it."
                ))
                .color(palette::WARN),
            );
        });
    }
}

/// The job being run: what is being written, a progress bar with the step and percentage, and
/// a Stop button.
pub fn job_bar(ui: &mut Ui, job: &JobStatus<'_>, out: &mut Emitter) {
    ui.horizontal(|ui| {
        ui.label(RichText::new("Printing").bold().color(palette::BLUE));
        ui.add(egui::Label::new(job.what).truncate());
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if job.stopping {
                ui.add_enabled(false, egui::Button::new("Stopping…"));
            } else if widgets::verb_button(ui, Verb::CancelJob, true) {
                out.send(AppCommand::CancelJob);
            }
        });
    });
    let pct = (job.progress * 100.0).floor();
    let text = if job.note.is_empty() {
        format!("{pct:.0} %")
    } else {
        format!("{} — {pct:.0} %", job.note)
    };
    // A light fill, so that the dark text over it stays readable.
    let fill = egui::Color32::from_rgb(0xa9, 0xbd, 0xd8);
    ui.add(
        egui::ProgressBar::new(job.progress)
            .desired_height(18.0)
            .fill(fill)
            .text(RichText::new(text).color(palette::INK)),
    );
}
