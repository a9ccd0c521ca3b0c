//! The campaigns page: each campaign's battles in order and what carries from one into the
//! next. Editing is deliberately simple: move a battle up or down, switch a carry-over flag.
//! Each change emits the whole edited [`Campaign`] for the app to save. No store access here.

use super::commands::AppCommand;
use super::widgets::{palette, section, Emitter, Flag, RichTextExt as _};
use super::View;
use crate::model::Campaign;
use egui::{RichText, Ui};

pub fn page(ui: &mut Ui, view: &View<'_>, state: &mut super::UiState, out: &mut Emitter) {
    egui::Panel::left("campaign-list")
        .default_size(260.0)
        .frame(
            egui::Frame::new()
                .fill(palette::PANEL)
                .inner_margin(egui::Margin::same(10)),
        )
        .show(ui, |ui| {
            ui.label(
                RichText::new("CAMPAIGNS")
                    .bold()
                    .size(12.5)
                    .color(palette::BLUE),
            );
            ui.add_space(4.0);
            if view.campaigns.is_empty() {
                ui.label(RichText::new("No campaigns in this database.").color(palette::FAINT));
            }
            for (id, name) in view.campaigns {
                let selected = view.campaign.is_some_and(|c| &c.id == id);
                if ui.selectable_label(selected, name.as_str()).clicked() && !selected {
                    out.send(AppCommand::OpenCampaign(id.clone()));
                }
            }
        });
    egui::CentralPanel::default().show(ui, |ui| {
        let Some(c) = view.campaign else {
            ui.add_space(20.0);
            ui.label("Pick a campaign on the left.");
            return;
        };
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| campaign(ui, view, c, &mut state.page, out));
    });
}

fn campaign(ui: &mut Ui, view: &View<'_>, c: &Campaign, page: &mut super::Page, out: &mut Emitter) {
    ui.heading(RichText::new(&c.name).bold());
    if !c.description.is_empty() {
        ui.add(egui::Label::new(RichText::new(&c.description).italics()).wrap());
    }
    section(ui, "Battles, in order");
    if c.battles.is_empty() {
        ui.label(RichText::new("No battles yet.").color(palette::FAINT));
    }
    egui::Grid::new("campaign-battles")
        .striped(true)
        .num_columns(5)
        .spacing([16.0, 6.0])
        .show(ui, |ui| {
            for h in ["#", "Scenario", "Note", "Weather", ""] {
                ui.label(RichText::new(h).bold().color(palette::BLUE));
            }
            ui.end_row();
            let n = c.battles.len();
            for (i, b) in c.battles.iter().enumerate() {
                ui.label(RichText::new(format!("{}", i + 1)).bold());
                match view.scenarios.iter().find(|s| s.id == b.scenario) {
                    Some(s) => ui.label(&s.name),
                    None => ui.label(
                        RichText::new(format!("{} (not in the database)", b.scenario))
                            .color(palette::WARN),
                    ),
                };
                ui.allocate_ui(egui::vec2(460.0, 0.0), |ui| {
                    ui.set_max_width(460.0);
                    ui.add(egui::Label::new(RichText::new(&b.note).color(palette::FAINT)).wrap());
                });
                ui.label(b.weather.map_or("—", |w| w.label()));
                ui.push_id(("battle", i), |ui| {
                    ui.horizontal(|ui| {
                        if view.scenarios.iter().any(|s| s.id == b.scenario)
                            && ui
                                .button("Open")
                                .on_hover_text("Edit this battle's orders of battle")
                                .clicked()
                        {
                            out.send(AppCommand::OpenScenario(b.scenario.clone()));
                            *page = super::Page::OrdersOfBattle;
                        }
                        if ui
                            .add_enabled(i > 0, egui::Button::new("Move up"))
                            .on_hover_text("Fight this battle one place earlier")
                            .clicked()
                        {
                            let mut next = c.clone();
                            next.battles.swap(i, i - 1);
                            out.send(AppCommand::SaveCampaign(next));
                        }
                        if ui
                            .add_enabled(i + 1 < n, egui::Button::new("Move down"))
                            .on_hover_text("Fight this battle one place later")
                            .clicked()
                        {
                            let mut next = c.clone();
                            next.battles.swap(i, i + 1);
                            out.send(AppCommand::SaveCampaign(next));
                        }
                    });
                });
                ui.end_row();
            }
        });

    section(ui, "Carried from one battle into the next");
    let flags: [Flag<Campaign>; 4] = [
        (
            "Losses",
            "Stands lost stay lost; knocked-out units are gone",
            c.carry_over.losses,
            |c, v| c.carry_over.losses = v,
        ),
        (
            "Commander casualties",
            "Commanders killed or captured are replaced at -1 (CMD-28) or removed",
            c.carry_over.commander_casualties,
            |c, v| c.carry_over.commander_casualties = v,
        ),
        (
            "Victory points",
            "Victory points accumulate across the campaign",
            c.carry_over.victory_points,
            |c, v| c.carry_over.victory_points = v,
        ),
        (
            "Weather",
            "The weather at the end of one battle starts the next",
            c.carry_over.weather,
            |c, v| c.carry_over.weather = v,
        ),
    ];
    for (label, tip, value, apply) in flags {
        let mut on = value;
        if ui.checkbox(&mut on, label).on_hover_text(tip).changed() {
            let mut next = c.clone();
            apply(&mut next, on);
            out.send(AppCommand::SaveCampaign(next));
        }
    }
}
