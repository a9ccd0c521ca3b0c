//! "Enter result…": a battle of a run fought on a real table without the app (issue #19 item 4).
//! Per scenario side: stands lost and knocked out per unit (GEN-12), command units knocked out
//! (CMD-28), field defences lost (DEF-06), the objective reached (OBJ-01) and whether it
//! withdrew (BRK-02, VP-02); the weather at the end. The VPs and verdict are the rules' work, in
//! the app; this form only gathers what happened.

use super::campaigns::{CampaignForm, RunBattleView, RunView};
use super::commands::AppCommand;
use super::widgets::{palette, Emitter, NamedInput as _};
use crate::campaign::{HandResult, HandSide};
use crate::model::Weather;
use crate::rules::victory::ObjectiveLevel;
use egui::{RichText, Ui};

/// One unit's line of the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandUnit {
    pub lost: u8,
    pub knocked_out: bool,
}

/// One scenario side's part of the form.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HandSideForm {
    pub units: Vec<HandUnit>,
    pub commands_out: Vec<bool>,
    pub defences_lost: Vec<bool>,
    pub objective: ObjectiveLevel,
    pub withdrew: bool,
}

/// The form's draft, for battle `pos` of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct HandForm {
    pub pos: usize,
    pub sides: Vec<HandSideForm>,
    pub end_weather: Option<Weather>,
}

impl HandForm {
    pub fn new(b: &RunBattleView) -> HandForm {
        HandForm {
            pos: b.pos,
            sides: b
                .scenario
                .sides
                .iter()
                .map(|s| HandSideForm {
                    units: s
                        .units
                        .iter()
                        .map(|_| HandUnit {
                            lost: 0,
                            knocked_out: false,
                        })
                        .collect(),
                    commands_out: vec![false; s.hqs.len()],
                    defences_lost: vec![false; s.field_defenses.len()],
                    objective: ObjectiveLevel::None,
                    withdrew: false,
                })
                .collect(),
            end_weather: None,
        }
    }

    /// The result as the maintainer's `enter_result` takes it.
    pub fn result(&self, b: &RunBattleView) -> HandResult {
        HandResult {
            sides: self
                .sides
                .iter()
                .zip(&b.scenario.sides)
                .map(|(f, s)| {
                    let mut h = HandSide {
                        objective: f.objective,
                        withdrew: f.withdrew,
                        ..HandSide::default()
                    };
                    for (u, d) in s.units.iter().zip(&f.units) {
                        if d.knocked_out {
                            h.knocked_out.push(u.id);
                        } else if d.lost > 0 {
                            h.stands_lost.push((u.id, d.lost));
                        }
                    }
                    for (q, out) in s.hqs.iter().zip(&f.commands_out) {
                        if *out {
                            h.commands_out.push(q.id);
                        }
                    }
                    for (d, lost) in s.field_defenses.iter().zip(&f.defences_lost) {
                        if *lost {
                            h.defences_lost.push(d.id);
                        }
                    }
                    h
                })
                .collect(),
            end_weather: self.end_weather,
        }
    }
}

pub fn window(ui: &mut Ui, run: &RunView, form: &mut CampaignForm, out: &mut Emitter) {
    let Some(mut hand) = form.hand.take() else {
        return;
    };
    let Some(b) = run.battles.iter().find(|b| b.pos == hand.pos) else {
        return;
    };
    let mut open = true;
    let mut keep = true;
    egui::Window::new(format!(
        "Result of battle {}: {}",
        b.pos + 1,
        b.scenario.name
    ))
    .open(&mut open)
    .default_size([640.0, 520.0])
    .show(ui.ctx(), |ui| {
        ui.horizontal(|ui| {
            if ui.button("Enter this result").clicked() {
                out.send(AppCommand::EnterCampaignResult {
                    run: run.id,
                    result: hand.result(b),
                });
                keep = false;
            }
            if ui.button("Cancel").clicked() {
                keep = false;
            }
        });
        egui::ScrollArea::vertical().show(ui, |ui| {
            ui.label(
                RichText::new(
                    "What happened on the table. The victory points and the verdict are worked \
                     out from it by the rules (VP-01..VP-04, OBJ-01, OBJ-02), then carried.",
                )
                .color(palette::FAINT),
            );
            for (si, (side, f)) in b
                .scenario
                .sides
                .iter()
                .zip(hand.sides.iter_mut())
                .enumerate()
            {
                ui.separator();
                ui.label(RichText::new(&side.name).strong().size(15.0));
                egui::Grid::new(("hand-units", si))
                    .num_columns(3)
                    .spacing([12.0, 3.0])
                    .show(ui, |ui| {
                        for h in ["Unit", "Stands lost", "Knocked out (GEN-12)"] {
                            ui.label(RichText::new(h).color(palette::BLUE));
                        }
                        ui.end_row();
                        for (u, d) in side.units.iter().zip(f.units.iter_mut()) {
                            ui.label(format!(
                                "{} ({} stand{})",
                                u.name,
                                u.stands,
                                if u.stands == 1 { "" } else { "s" }
                            ));
                            ui.add_enabled(
                                !d.knocked_out,
                                egui::DragValue::new(&mut d.lost).range(0..=u.stands),
                            )
                            .named(&format!("Stands lost by {}", u.name));
                            ui.checkbox(&mut d.knocked_out, "")
                                .named(&format!("{} knocked out", u.name));
                            ui.end_row();
                        }
                    });
                if !side.hqs.is_empty() {
                    ui.label(
                        RichText::new("Command units knocked out (CMD-28)").color(palette::BLUE),
                    );
                    ui.horizontal_wrapped(|ui| {
                        for (q, o) in side.hqs.iter().zip(f.commands_out.iter_mut()) {
                            ui.checkbox(o, format!("{} ({})", q.name, q.commander.name));
                        }
                    });
                }
                if !side.field_defenses.is_empty() {
                    ui.label(RichText::new("Field defences lost (DEF-06)").color(palette::BLUE));
                    ui.horizontal_wrapped(|ui| {
                        for (d, o) in side.field_defenses.iter().zip(f.defences_lost.iter_mut()) {
                            ui.checkbox(o, format!("defence {}", d.id));
                        }
                    });
                }
                ui.horizontal(|ui| {
                    ui.label("Objective reached (OBJ-01):");
                    for o in [
                        ObjectiveLevel::None,
                        ObjectiveLevel::Minor,
                        ObjectiveLevel::Major,
                    ] {
                        ui.radio_value(&mut f.objective, o, o.label());
                    }
                });
                ui.checkbox(
                    &mut f.withdrew,
                    "Broke or withdrew (no objective counts; VP-02 caps its points)",
                );
            }
            ui.separator();
            ui.horizontal(|ui| {
                ui.label("Weather at the end:");
                ui.radio_value(&mut hand.end_weather, None, "as it began");
                for w in Weather::ALL {
                    ui.radio_value(&mut hand.end_weather, Some(w), w.label());
                }
            });
        });
    });
    if open && keep {
        form.hand = Some(hand);
    }
}
