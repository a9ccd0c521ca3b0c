//! The runs of a campaign and the selected run: its next step, each battle's carry report, the
//! tally and the plots (strength across battles, cumulative VPs, losses per battle).

use super::battle_result::side_colour;
use super::campaigns::{CampaignForm, PlayHow, RunBattleState, RunView};
use super::commands::AppCommand;
use super::widgets::{palette, section, Emitter, NamedInput as _, RichTextExt as _};
use super::View;
use crate::campaign::{BattleRecord, CarryReport};
use crate::model::Campaign;
use egui::{RichText, Ui};
use egui_plot::{Bar, BarChart, Corner, Legend, Line, Plot, PlotPoints, Points};

/// "French won (Decisive Victory), VPs 7–2" in our words.
pub fn result_words(r: &BattleRecord, side_names: &[String]) -> String {
    let vps: Vec<String> = r.vps.iter().map(i64::to_string).collect();
    let who = match r.winner {
        Some(w) => format!(
            "{} won ({})",
            side_names.get(w).map_or("?", String::as_str),
            r.category
        ),
        None => "a draw".to_string(),
    };
    format!("{who}, VPs {}", vps.join("–"))
}

pub fn runs(
    ui: &mut Ui,
    view: &View<'_>,
    c: &Campaign,
    form: &mut CampaignForm,
    out: &mut Emitter,
) {
    let busy = view.campaign_job.is_some();
    if view.campaign_runs.is_empty() {
        ui.label(
            RichText::new("No run of this campaign yet: begin one to play its battles in turn.")
                .color(palette::FAINT),
        );
    }
    egui::Grid::new("campaign-runs")
        .striped(true)
        .num_columns(5)
        .spacing([14.0, 4.0])
        .show(ui, |ui| {
            for r in view.campaign_runs {
                let selected = view.campaign_run.is_some_and(|v| v.id == r.id);
                if ui
                    .selectable_label(selected, r.name.as_str())
                    .on_hover_text("Show this run")
                    .clicked()
                    && !selected
                {
                    out.send(AppCommand::SelectCampaignRun(r.id));
                }
                ui.label(format!("seed {}", r.seed));
                ui.label(format!("{}/{} played", r.played, r.battles));
                ui.label(if r.ended { "over" } else { "in progress" });
                ui.push_id(("run-delete", r.id), |ui| {
                    if form.confirm_delete_run == Some(r.id) {
                        ui.horizontal(|ui| {
                            ui.label(
                                RichText::new("Delete it and its battles?").color(palette::WARN),
                            );
                            if ui
                                .add_enabled(!busy, egui::Button::new("Yes, delete"))
                                .clicked()
                            {
                                out.send(AppCommand::DeleteCampaignRun(r.id));
                                form.confirm_delete_run = None;
                            }
                            if ui.button("Keep it").clicked() {
                                form.confirm_delete_run = None;
                            }
                        });
                    } else if ui
                        .add_enabled(!busy, egui::Button::new("Delete run…"))
                        .clicked()
                    {
                        form.confirm_delete_run = Some(r.id);
                    }
                });
                ui.end_row();
            }
        });
    ui.add_space(4.0);
    if form.new_run_open {
        ui.horizontal(|ui| {
            ui.label("Name");
            ui.add(egui::TextEdit::singleline(&mut form.new_run_name).desired_width(200.0))
                .named("Name");
            ui.label("Seed");
            ui.add(egui::TextEdit::singleline(&mut form.new_run_seed).desired_width(90.0))
                .named("Seed");
            let seed = form.new_run_seed.trim().parse::<u64>();
            let ok = seed.is_ok() && !busy;
            if ui
                .add_enabled(ok, egui::Button::new("Begin the run"))
                .clicked()
            {
                if let Ok(seed) = seed {
                    out.send(AppCommand::NewCampaignRun {
                        campaign: c.id.clone(),
                        name: form.new_run_name.trim().to_string(),
                        seed,
                    });
                    form.new_run_open = false;
                }
            }
            if ui.button("Cancel").clicked() {
                form.new_run_open = false;
            }
            if seed.is_err() {
                ui.label(
                    RichText::new("The seed is a whole number from 0 up (it fixes the dice).")
                        .color(palette::WARN),
                );
            }
        });
    } else if ui
        .add_enabled(!busy, egui::Button::new("New run…"))
        .on_hover_text("Begin a play-through of this campaign from its first battle")
        .clicked()
    {
        form.new_run_open = true;
        if form.new_run_seed.trim().is_empty() {
            form.new_run_seed = "1".to_string();
        }
    }
}

pub fn run(
    ui: &mut Ui,
    view: &View<'_>,
    run: &RunView,
    form: &mut CampaignForm,
    out: &mut Emitter,
) {
    section(ui, &format!("Run: {}", run.name));
    next_step(ui, view, run, form, out);
    tally(ui, run);
    if run
        .battles
        .iter()
        .any(|b| matches!(b.state, RunBattleState::Played { .. }))
    {
        plots(ui, run);
    }
    section(ui, "What carried, battle by battle");
    for b in &run.battles {
        let title = format!("{}. {}", b.pos + 1, b.scenario.name);
        egui::CollapsingHeader::new(RichText::new(title).strong())
            .id_salt(("carry", run.id, b.pos))
            .default_open(true)
            .show(ui, |ui| {
                if b.pos > 0 || !b.carry_in.is_empty() {
                    ui.label(
                        RichText::new("Into the battle")
                            .color(palette::BLUE)
                            .strong(),
                    );
                    report(
                        ui,
                        &b.carry_in,
                        &run.side_names,
                        "Nothing changed on the way in.",
                    );
                }
                if let RunBattleState::Played {
                    after,
                    result,
                    by_hand,
                    ..
                } = &b.state
                {
                    let how = if *by_hand { " (entered by hand)" } else { "" };
                    ui.label(
                        RichText::new(format!(
                            "The battle{how}: {}",
                            result_words(result, &run.side_names)
                        ))
                        .color(palette::BLUE)
                        .strong(),
                    );
                    report(ui, after, &run.side_names, "Nobody lost anything.");
                }
            });
    }
}

fn report(ui: &mut Ui, r: &CarryReport, side_names: &[String], empty: &str) {
    if r.is_empty() {
        ui.label(RichText::new(empty).color(palette::FAINT));
        return;
    }
    let weather: Vec<_> = r.changes.iter().filter(|c| c.side.is_none()).collect();
    for c in weather {
        ui.add(egui::Label::new(format!("• {}", c.line(side_names))).wrap());
    }
    for (s, name) in side_names.iter().enumerate() {
        let lines: Vec<_> = r.changes.iter().filter(|c| c.side == Some(s)).collect();
        if lines.is_empty() {
            continue;
        }
        ui.label(RichText::new(name).color(side_colour(s)).strong());
        for c in lines {
            ui.add(egui::Label::new(format!("   • {}", c.line_under_side(side_names))).wrap());
        }
    }
}

fn next_step(
    ui: &mut Ui,
    view: &View<'_>,
    run: &RunView,
    form: &mut CampaignForm,
    out: &mut Emitter,
) {
    if let Some(job) = &view.campaign_job {
        ui.horizontal(|ui| {
            ui.add(
                egui::ProgressBar::new(job.progress)
                    .desired_width(260.0)
                    .show_percentage(),
            );
            ui.label(format!("{} {}", job.what, job.note));
            if ui
                .add_enabled(!job.stopping, egui::Button::new("Stop"))
                .on_hover_text("Stop after the current action; the battle stays stored to resume")
                .clicked()
            {
                out.send(AppCommand::StopCampaignJob);
            }
        });
        return;
    }
    let Some(next) = run.next() else {
        ui.label(RichText::new("Every battle of this run has been fought.").strong());
        return;
    };
    ui.label(
        RichText::new(format!(
            "Next: battle {}, {}",
            next.pos + 1,
            next.scenario.name
        ))
        .strong(),
    );
    match &next.state {
        RunBattleState::Started { battle_id, over } => {
            ui.horizontal(|ui| {
                if *over {
                    if ui
                        .button("Carry into the next battle")
                        .on_hover_text("Write this battle's end and carry its forces on")
                        .clicked()
                    {
                        out.send(AppCommand::CarryCampaignBattle(run.id));
                    }
                } else {
                    if ui
                        .button("Resume the battle")
                        .on_hover_text("It was started and is stored: carry on where it stopped")
                        .clicked()
                    {
                        out.send(AppCommand::PlayCampaignBattle {
                            run: run.id,
                            how: form.play_how,
                        });
                    }
                    if ui
                        .button("Computer plays it")
                        .on_hover_text("The computer finishes it on both sides, then it is carried")
                        .clicked()
                    {
                        out.send(AppCommand::AutoplayCampaignBattle(run.id));
                    }
                }
                ui.label(RichText::new(format!("stored battle {battle_id}")).color(palette::FAINT));
            });
        }
        _ => {
            ui.horizontal(|ui| {
                ui.label("How:");
                let names = &run.side_names;
                let side = |i: usize| names.get(i).cloned().unwrap_or_default();
                let label = |h: PlayHow| match h {
                    PlayHow::Solo { computer } => {
                        format!("Solo as {} against the computer", side(1 - computer.min(1)))
                    }
                    PlayHow::Hotseat => "Hot-seat, two players".to_string(),
                    PlayHow::Referee { .. } => "Referee at a real table (real dice)".to_string(),
                    PlayHow::Computer => "Computer on both sides".to_string(),
                };
                let referee = match form.play_how {
                    r @ PlayHow::Referee { .. } => r,
                    _ => PlayHow::Referee { won_roll_off: 0 },
                };
                egui::ComboBox::from_id_salt("campaign-play-how")
                    .selected_text(label(form.play_how))
                    .width(300.0)
                    .show_ui(ui, |ui| {
                        for h in [
                            PlayHow::Solo { computer: 1 },
                            PlayHow::Solo { computer: 0 },
                            PlayHow::Hotseat,
                            referee,
                            PlayHow::Computer,
                        ] {
                            ui.selectable_value(&mut form.play_how, h, label(h));
                        }
                    })
                    .response
                    .named("How to play it");
            });
            // SEQ-01: real dice roll off on the table; the referee says which side won.
            if let PlayHow::Referee { won_roll_off } = &mut form.play_how {
                if next.scenario.first_player.is_none() {
                    ui.horizontal(|ui| {
                        ui.label("Roll off on the table; first move:");
                        for i in 0..2 {
                            let name = run.side_names.get(i).cloned().unwrap_or_default();
                            ui.radio_value(won_roll_off, i, name);
                        }
                    });
                }
            }
            ui.horizontal(|ui| {
                if ui
                    .button("Play next battle")
                    .on_hover_text("Open it in the battle window with the carried forces")
                    .clicked()
                {
                    out.send(AppCommand::PlayCampaignBattle {
                        run: run.id,
                        how: form.play_how,
                    });
                }
                if ui
                    .button("Computer plays it")
                    .on_hover_text(
                        "The computer fights it on both sides in the background, then carries",
                    )
                    .clicked()
                {
                    out.send(AppCommand::AutoplayCampaignBattle(run.id));
                }
                if ui
                    .button("Enter result…")
                    .on_hover_text("Fought on a real table without the app: type in what happened")
                    .clicked()
                {
                    form.hand = Some(super::campaign_hand::HandForm::new(next));
                }
                if ui
                    .button("Print its roster…")
                    .on_hover_text("The roster of the next battle, with the carried strength")
                    .clicked()
                {
                    out.send(AppCommand::PrintCarried {
                        run: run.id,
                        labels: false,
                    });
                }
                if ui
                    .button("Print its labels…")
                    .on_hover_text(
                        "Base labels for the next battle: one per stand the carry left each unit",
                    )
                    .clicked()
                {
                    out.send(AppCommand::PrintCarried {
                        run: run.id,
                        labels: true,
                    });
                }
            });
        }
    }
}

fn tally(ui: &mut Ui, run: &RunView) {
    section(ui, "Tally");
    let t = &run.tally;
    egui::Grid::new("campaign-tally")
        .num_columns(4)
        .spacing([18.0, 4.0])
        .show(ui, |ui| {
            for h in ["Side", "VPs", "Battles won", "Decisive"] {
                ui.label(RichText::new(h).bold().color(palette::BLUE));
            }
            ui.end_row();
            for (i, name) in run.side_names.iter().enumerate() {
                ui.label(RichText::new(name).color(side_colour(i)).strong());
                ui.label(format!("{}", t.vps.get(i).copied().unwrap_or(0)));
                ui.label(format!("{}", t.wins.get(i).copied().unwrap_or(0)));
                ui.label(format!("{}", t.decisive.get(i).copied().unwrap_or(0)));
                ui.end_row();
            }
        });
    let lead = match t.leader.and_then(|l| run.side_names.get(l)) {
        Some(n) => format!("{n} leads: {}.", t.why),
        None => format!("Nobody leads: {}.", t.why),
    };
    ui.label(RichText::new(lead).strong());
}

/// Strength (stands) of each side at the start and end of each battle played.
fn strength_points(run: &RunView, side: usize) -> Vec<[f64; 2]> {
    let mut pts = Vec::new();
    for b in &run.battles {
        let x = b.pos as f64 + 1.0;
        if let Some(s) = b.start.sides.get(side) {
            pts.push([x, f64::from(s.stands())]);
        }
        if let RunBattleState::Played { end, .. } = &b.state {
            if let Some(s) = end.sides.get(side) {
                pts.push([x + 0.6, f64::from(s.stands())]);
            }
        }
    }
    pts
}

fn plots(ui: &mut Ui, run: &RunView) {
    section(ui, "Across the battles");
    let height = 180.0;
    let width = ((ui.available_width() - 40.0) / 3.0).max(240.0);
    let n = run.side_names.len().min(2);
    let played: Vec<(usize, &BattleRecord)> = run
        .battles
        .iter()
        .filter_map(|b| match &b.state {
            RunBattleState::Played { result, .. } => Some((b.pos, result)),
            _ => None,
        })
        .collect();
    ui.horizontal_wrapped(|ui| {
        ui.vertical(|ui| {
            ui.set_width(width);
            ui.label(RichText::new("Strength (stands)").strong());
            ui.label(RichText::new("each battle's start, then its end").color(palette::FAINT));
            Plot::new("campaign-strength")
                .height(height)
                .width(width)
                .legend(Legend::default().position(Corner::LeftBottom))
                .allow_zoom(false)
                .allow_drag(false)
                .allow_scroll(false)
                .y_axis_label("stands")
                .x_axis_label("battle")
                .x_axis_formatter(|m, _| {
                    if m.value.fract() == 0.0 && m.value >= 1.0 {
                        format!("{}", m.value)
                    } else {
                        String::new()
                    }
                })
                .show(ui, |p| {
                    for side in 0..n {
                        let name = run.side_names.get(side).cloned().unwrap_or_default();
                        let pts = strength_points(run, side);
                        p.line(
                            Line::new(name.clone(), PlotPoints::new(pts.clone()))
                                .color(side_colour(side))
                                .width(2.5),
                        );
                        p.points(
                            Points::new(name, PlotPoints::new(pts))
                                .color(side_colour(side))
                                .radius(3.0),
                        );
                    }
                });
        });
        ui.vertical(|ui| {
            ui.set_width(width);
            ui.label(RichText::new("Victory points, summed").strong());
            ui.label(RichText::new("after each battle").color(palette::FAINT));
            Plot::new("campaign-vps")
                .height(height)
                .width(width)
                .legend(Legend::default().position(Corner::LeftTop))
                .allow_zoom(false)
                .allow_drag(false)
                .allow_scroll(false)
                .include_y(0.0)
                .include_x(0.0)
                .x_axis_label("battle")
                .x_axis_formatter(|m, _| match m.value {
                    0.0 => "start".to_string(),
                    v if v.fract() == 0.0 && v > 0.0 => format!("{v}"),
                    _ => String::new(),
                })
                .show(ui, |p| {
                    for side in 0..n {
                        let mut sum = 0i64;
                        let mut pts = vec![[0.0, 0.0]];
                        for (pos, r) in &played {
                            sum += r.vps.get(side).copied().unwrap_or(0);
                            pts.push([*pos as f64 + 1.0, sum as f64]);
                        }
                        let name = run.side_names.get(side).cloned().unwrap_or_default();
                        p.line(
                            Line::new(name, PlotPoints::new(pts))
                                .color(side_colour(side))
                                .width(2.5),
                        );
                    }
                });
        });
        ui.vertical(|ui| {
            ui.set_width(width);
            ui.label(RichText::new("Stands lost per battle").strong());
            ui.label(RichText::new("in the fighting, before recovery").color(palette::FAINT));
            // Head room above the tallest bar, for the legend.
            let most = run
                .battles
                .iter()
                .filter_map(|b| match &b.state {
                    RunBattleState::Played { end, .. } => b
                        .start
                        .sides
                        .iter()
                        .zip(&end.sides)
                        .map(|(s, e)| s.stands().saturating_sub(e.stands()))
                        .max(),
                    _ => None,
                })
                .max()
                .unwrap_or(1);
            Plot::new("campaign-losses")
                .height(height)
                .width(width)
                .legend(Legend::default().position(Corner::RightTop))
                .allow_zoom(false)
                .allow_drag(false)
                .allow_scroll(false)
                .include_y(0.0)
                .include_y(f64::from(most) * 1.6 + 1.0)
                .include_x(0.5)
                .include_x(run.battles.len() as f64 + 0.5)
                .x_axis_formatter(|m, _| {
                    if m.value.fract() == 0.0 && m.value >= 1.0 {
                        format!("{}", m.value)
                    } else {
                        String::new()
                    }
                })
                .x_axis_label("battle")
                .show(ui, |p| {
                    for side in 0..n {
                        let bars: Vec<Bar> = run
                            .battles
                            .iter()
                            .filter_map(|b| match &b.state {
                                RunBattleState::Played { end, .. } => {
                                    let before = b.start.sides.get(side)?.stands();
                                    let after = end.sides.get(side)?.stands();
                                    Some(
                                        Bar::new(
                                            b.pos as f64 + 1.0 + (side as f64 - 0.5) * 0.35,
                                            f64::from(before.saturating_sub(after)),
                                        )
                                        .width(0.33),
                                    )
                                }
                                _ => None,
                            })
                            .collect();
                        let name = run.side_names.get(side).cloned().unwrap_or_default();
                        p.bar_chart(BarChart::new(name, bars).color(side_colour(side)));
                    }
                });
        });
    });
}
