//! The result page: what a battle came to, shown in place of the table once it has ended.
//!
//! The headline (the winner and the category won, or a draw) with why it ended so (END-03,
//! BRK-03, OBJ-01, VP-03); each side's VP tally item by item — every unit, command unit and
//! field defence the opponent lost with its points (VP-01, DEF-06) — with the VP-04 modifier,
//! the VP-02 cap and the VP-03 ×2 upgrade spelled out when they applied; each side's strength
//! at the end of every game turn (an `egui_plot` line chart) and the stands every unit lost (a
//! bar chart). Buttons export the battle file, print the result as PDF (both through the app's
//! file dialog and print job) and go back to the table.
//!
//! It reads the [`ResultReport`] the app put in the [`super::battle::BattlePanel`] and emits
//! [`AppCommand`]s; "Back to the table" only changes [`UiState::result_set_aside`].

use super::battle::BattlePanel;
use super::widgets::{palette, Emitter};
use super::{AppCommand, UiState, View};
use crate::rules::report::{ItemKind, ResultReport};
use egui::{Color32, RichText, Ui};
use egui_plot::{Bar, BarChart, Corner, Legend, Line, Plot, PlotPoints};

/// Each side's colour on this page (the battle bar's blue and red).
pub fn side_colour(side: usize) -> Color32 {
    if side == 0 {
        Color32::from_rgb(0x1f, 0x3a, 0x8f)
    } else {
        Color32::from_rgb(0x9a, 0x1f, 0x1f)
    }
}

/// Whether the battle page shows the result instead of the table now.
pub fn shows_result(panel: &BattlePanel, state: &UiState) -> bool {
    panel.ended && panel.report.is_some() && state.result_set_aside != Some(panel.id)
}

/// The result page, in the space below the battle bar.
pub fn page(
    ui: &mut Ui,
    view: &View<'_>,
    panel: &BattlePanel,
    report: &ResultReport,
    state: &mut UiState,
    out: &mut Emitter,
) {
    egui::CentralPanel::default()
        .frame(
            egui::Frame::new()
                .fill(palette::PAPER)
                .inner_margin(egui::Margin::same(16)),
        )
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| body(ui, view, panel, report, state, out));
        });
}

fn body(
    ui: &mut Ui,
    view: &View<'_>,
    panel: &BattlePanel,
    report: &ResultReport,
    state: &mut UiState,
    out: &mut Emitter,
) {
    ui.label(RichText::new("The battle is over").color(palette::FAINT));
    let colour = report.winner().map_or(palette::INK, side_colour);
    ui.label(
        RichText::new(&report.headline)
            .size(26.0)
            .strong()
            .color(colour),
    );
    if !report.why.is_empty() {
        ui.label(RichText::new(format!("Why: {}.", report.why)).size(15.0));
    }
    ui.label(
        RichText::new(format!(
            "{} game turns begun · {} actions",
            report.game_turns, panel.actions
        ))
        .color(palette::FAINT),
    );
    ui.add_space(8.0);
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Back to the table")
            .on_hover_text("Look at the table as the battle left it; the result stays here")
            .clicked()
        {
            state.result_set_aside = Some(panel.id);
        }
        let free = view.can_print();
        if ui
            .add_enabled(free, egui::Button::new("Export battle file…"))
            .on_hover_text(
                "Save the battle as a battle file: the scenario, the dice and every action, \
                 to replay or restore it",
            )
            .clicked()
        {
            out.send(AppCommand::ExportBattleDialog);
        }
        if ui
            .add_enabled(free, egui::Button::new("Print result (PDF)…"))
            .on_hover_text(
                "Save this result as a PDF to print: headline, VP tally, strength, losses",
            )
            .clicked()
        {
            out.send(AppCommand::PrintResultDialog(state.print.paper));
        }
    });
    ui.add_space(12.0);

    let wide = ui.available_width() >= 760.0;
    if wide {
        ui.columns(2, |cols| {
            for (i, c) in cols.iter_mut().enumerate() {
                tally(c, report, i);
            }
        });
    } else {
        for i in 0..2 {
            tally(ui, report, i);
            ui.add_space(8.0);
        }
    }
    ui.add_space(14.0);
    // Both charts in the room left on the screen, within reason (the page scrolls below that).
    let plot_h = (ui.available_height() - 56.0).clamp(170.0, 300.0);
    if wide {
        ui.columns(2, |cols| {
            if let [a, b] = cols {
                strength_plot(a, report, plot_h);
                losses_chart(b, report, plot_h);
            }
        });
    } else {
        strength_plot(ui, report, plot_h);
        ui.add_space(10.0);
        losses_chart(ui, report, plot_h);
    }
}

/// One side's VPs: what the opponent lost, item by item, and how the total was reached.
fn tally(ui: &mut Ui, report: &ResultReport, side: usize) {
    let Some(s) = report.sides.get(side) else {
        return;
    };
    egui::Frame::new()
        .fill(palette::CARD)
        .stroke(egui::Stroke::new(1.0, palette::RULE))
        .inner_margin(egui::Margin::same(10))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.label(
                RichText::new(format!("{}: {} VPs", s.name, s.vp))
                    .size(17.0)
                    .strong()
                    .color(side_colour(side)),
            );
            ui.label(RichText::new(s.result.label()).strong());
            ui.label(
                RichText::new(format!(
                    "Objective declared: {}; counted: {} (OBJ-01){}",
                    s.declared.label(),
                    s.objective.label(),
                    if s.withdrew {
                        " — withdrew or conceded, so none counts"
                    } else {
                        ""
                    }
                ))
                .color(palette::FAINT),
            );
            ui.add_space(4.0);
            ui.label(RichText::new("Lost by the opponent (VP-01)").color(palette::BLUE));
            egui::Grid::new(("vp-items", side))
                .striped(true)
                .num_columns(3)
                .spacing([12.0, 3.0])
                .show(ui, |ui| {
                    if s.items.is_empty() {
                        ui.label(RichText::new("nothing").color(palette::FAINT));
                        ui.end_row();
                    }
                    for it in &s.items {
                        let kind = match it.kind {
                            ItemKind::Unit => "",
                            ItemKind::Command => " · command",
                            ItemKind::Defence => " · field defence (DEF-06)",
                        };
                        ui.label(format!("{}{kind}", it.name))
                            .on_hover_text(format!("{} ({})", it.how, it.cause_rule));
                        ui.label(
                            RichText::new(format!("turn {} · {}", it.game_turn, it.how))
                                .color(palette::FAINT),
                        );
                        ui.label(format!("{} VPs", it.points));
                        ui.end_row();
                    }
                    ui.label(RichText::new("Earned").strong());
                    ui.label("");
                    ui.label(RichText::new(format!("{} VPs", s.earned)).strong());
                    ui.end_row();
                });
            for line in report.adjustments(side) {
                ui.label(RichText::new(line).color(palette::WARN));
            }
            ui.label(RichText::new(format!("Final: {} VPs", s.vp)).strong());
        });
}

fn strength_plot(ui: &mut Ui, report: &ResultReport, height: f32) {
    ui.label(
        RichText::new("Strength over the game turns")
            .size(16.0)
            .strong(),
    );
    ui.label(
        RichText::new("Stands of the units not knocked out, at the end of each game turn")
            .color(palette::FAINT),
    );
    Plot::new("result-strength")
        .height(height)
        .legend(Legend::default().position(Corner::LeftBottom))
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .include_y(0.0)
        .include_x(0.0)
        .x_axis_label("game turn")
        .x_axis_formatter(|mark, _| match mark.value {
            0.0 => "start".to_string(),
            v if v.fract() == 0.0 && v > 0.0 => format!("{v}"),
            _ => String::new(),
        })
        .y_axis_label("stands")
        .show(ui, |p| {
            for side in 0..2 {
                let pts: Vec<[f64; 2]> = report
                    .strength
                    .iter()
                    .map(|s| {
                        [
                            f64::from(s.game_turn),
                            f64::from(s.stands.get(side).copied().unwrap_or(0)),
                        ]
                    })
                    .collect();
                let name = report.side_names.get(side).cloned().unwrap_or_default();
                p.line(
                    Line::new(name, PlotPoints::new(pts))
                        .color(side_colour(side))
                        .width(2.5),
                );
            }
        });
}

fn losses_chart(ui: &mut Ui, report: &ResultReport, height: f32) {
    ui.label(RichText::new("Losses by unit").size(16.0).strong());
    ui.label(
        RichText::new("Stands lost by each unit; a knocked-out unit counts all its stands")
            .color(palette::FAINT),
    );
    if report.losses.is_empty() {
        ui.label("No unit lost a stand.");
        return;
    }
    let mut k = 0.0;
    let mut names = Vec::new();
    let mut bars: [Vec<Bar>; 2] = [Vec::new(), Vec::new()];
    for l in &report.losses {
        let side = l.side().min(1);
        let mark = if l.knocked_out { " (knocked out)" } else { "" };
        if let Some(v) = bars.get_mut(side) {
            v.push(
                Bar::new(k, f64::from(l.stands_lost))
                    .name(format!("{}{mark}", l.name))
                    .width(0.6),
            );
        }
        names.push(l.name.clone());
        k += 1.0;
    }
    let [a, b] = bars;
    Plot::new("result-losses")
        .height(height)
        .legend(Legend::default().position(Corner::RightTop))
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .include_y(0.0)
        .include_x(-0.5)
        .include_x(k - 0.5)
        .show_x(false)
        .x_axis_formatter(move |mark, _| {
            let v = mark.value;
            if v.fract() == 0.0 && v >= 0.0 {
                names.get(v as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_axis_label("unit")
        .y_axis_label("stands lost")
        .show(ui, |p| {
            for (side, bars) in [(0, a), (1, b)] {
                if bars.is_empty() {
                    continue;
                }
                let name = report.side_names.get(side).cloned().unwrap_or_default();
                p.bar_chart(BarChart::new(name, bars).color(side_colour(side)));
            }
        });
}
