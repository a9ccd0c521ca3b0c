//! The campaign editor (a window over the campaigns page): add, remove and reorder battles, pick
//! their scenarios, edit each link (days, weather, same ground), the carry rules and the victory
//! condition. Every change sends the whole edited [`Campaign`] to be saved at once; numbers are
//! refused at the field when out of range (`widgets::num_field`). Runs already begun keep the
//! copy of the campaign they began with.

use super::campaigns::CampaignForm;
use super::commands::AppCommand;
use super::widgets::{num_field, palette, Emitter, NamedInput as _};
use super::View;
use crate::model::{Campaign, CampaignBattle, VictoryCondition, WeatherLink};
use egui::{RichText, Ui};

fn save(c: &Campaign, f: impl FnOnce(&mut Campaign)) -> AppCommand {
    let mut next = c.clone();
    f(&mut next);
    AppCommand::SaveCampaign(next)
}

pub fn window(
    ui: &mut Ui,
    view: &View<'_>,
    c: &Campaign,
    form: &mut CampaignForm,
    out: &mut Emitter,
) {
    let mut open = true;
    egui::Window::new(format!("Edit: {}", c.name))
        .open(&mut open)
        .default_size([720.0, 560.0])
        .vscroll(true)
        .show(ui.ctx(), |ui| {
            ui.label(
                RichText::new("Each change is saved at once. Runs already begun keep the campaign as it was when they began.")
                    .color(palette::FAINT),
            );
            ui.label(RichText::new("Battles").strong().size(15.0));
            battles(ui, view, c, out);
            ui.separator();
            ui.label(RichText::new("Carry rules (Powderhorn's own)").strong().size(15.0));
            rules(ui, c, out);
            ui.separator();
            ui.label(RichText::new("Victory condition").strong().size(15.0));
            victory(ui, c, out);
        });
    if !open {
        form.editor_open = false;
    }
}

fn battles(ui: &mut Ui, view: &View<'_>, c: &Campaign, out: &mut Emitter) {
    let n = c.battles.len();
    for (i, b) in c.battles.iter().enumerate() {
        ui.push_id(("edit-battle", i), |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(format!("{}.", i + 1)).strong());
                let current = view
                    .scenarios
                    .iter()
                    .find(|s| s.id == b.scenario)
                    .map_or_else(|| format!("{} (missing)", b.scenario), |s| s.name.clone());
                egui::ComboBox::from_id_salt("scenario")
                    .selected_text(current)
                    .width(240.0)
                    .show_ui(ui, |ui| {
                        for s in view.scenarios {
                            if ui.selectable_label(s.id == b.scenario, &s.name).clicked()
                                && s.id != b.scenario
                            {
                                let id = s.id.clone();
                                out.send(save(c, |x| {
                                    if let Some(bb) = x.battles.get_mut(i) {
                                        bb.scenario = id;
                                    }
                                }));
                            }
                        }
                    })
                    .response
                    .named("Scenario of this battle");
                if ui
                    .add_enabled(i > 0, egui::Button::new("Move up"))
                    .on_hover_text("Fight this battle one place earlier")
                    .clicked()
                {
                    out.send(save(c, |x| x.battles.swap(i, i - 1)));
                }
                if ui
                    .add_enabled(i + 1 < n, egui::Button::new("Move down"))
                    .on_hover_text("Fight this battle one place later")
                    .clicked()
                {
                    out.send(save(c, |x| x.battles.swap(i, i + 1)));
                }
                if ui.button("Remove").clicked() {
                    out.send(save(c, |x| {
                        if i < x.battles.len() {
                            x.battles.remove(i);
                        }
                    }));
                }
            });
            if i > 0 {
                ui.horizontal(|ui| {
                    ui.add_space(18.0);
                    ui.label("Days after the one before (0: next morning)");
                    num_field(
                        ui,
                        out,
                        ("days", i),
                        b.link.days_after,
                        0..=365,
                        "days after",
                        |v| {
                            save(c, |x| {
                                if let Some(bb) = x.battles.get_mut(i) {
                                    bb.link.days_after = v;
                                }
                            })
                        },
                    );
                    ui.label("Weather");
                    egui::ComboBox::from_id_salt("weather-link")
                        .selected_text(b.link.weather.label())
                        .show_ui(ui, |ui| {
                            for w in [
                                WeatherLink::Continue,
                                WeatherLink::Afresh,
                                WeatherLink::Historical,
                            ] {
                                if ui
                                    .selectable_label(b.link.weather == w, w.label())
                                    .clicked()
                                    && b.link.weather != w
                                {
                                    out.send(save(c, |x| {
                                        if let Some(bb) = x.battles.get_mut(i) {
                                            bb.link.weather = w;
                                        }
                                    }));
                                }
                            }
                        })
                        .response
                        .named("Weather of this battle");
                    let mut same = b.link.same_ground;
                    if ui
                        .checkbox(&mut same, "Same ground")
                        .on_hover_text("Only then do field defences carry")
                        .changed()
                    {
                        out.send(save(c, |x| {
                            if let Some(bb) = x.battles.get_mut(i) {
                                bb.link.same_ground = same;
                            }
                        }));
                    }
                });
            }
        });
    }
    ui.horizontal(|ui| {
        ui.label("Add a battle:");
        egui::ComboBox::from_id_salt("campaign-add-battle")
            .selected_text("pick a scenario…")
            .width(240.0)
            .show_ui(ui, |ui| {
                for s in view.scenarios {
                    if ui.selectable_label(false, &s.name).clicked() {
                        let id = s.id.clone();
                        out.send(save(c, |x| x.battles.push(CampaignBattle::new(id))));
                    }
                }
            })
            .response
            .named("Add a battle");
    });
}

type NumRow = (&'static str, u32, u32, fn(&mut Campaign, u32));

fn rules(ui: &mut Ui, c: &Campaign, out: &mut Emitter) {
    let r = &c.rules;
    let rows: [NumRow; 9] = [
        (
            "Recovery after a won battle, %",
            r.recovery.winner,
            100,
            |x, v| x.rules.recovery.winner = v,
        ),
        (
            "… after a lost battle, %",
            r.recovery.loser,
            100,
            |x, v| x.rules.recovery.loser = v,
        ),
        ("… after a draw, %", r.recovery.draw, 100, |x, v| {
            x.rules.recovery.draw = v
        }),
        (
            "… more for each further day, %",
            r.recovery.per_extra_day,
            100,
            |x, v| x.rules.recovery.per_extra_day = v,
        ),
        ("… at most, %", r.recovery.cap, 100, |x, v| {
            x.rules.recovery.cap = v
        }),
        (
            "A knocked-out unit comes back with, % of its stands",
            r.knocked_out.back_at,
            100,
            |x, v| x.rules.knocked_out.back_at = v,
        ),
        (
            "Commander killed on a d6 of 1 to",
            u32::from(r.commanders.killed_up_to),
            6,
            |x, v| x.rules.commanders.killed_up_to = u8::try_from(v).unwrap_or(6),
        ),
        (
            "… captured up to (above: wounded)",
            u32::from(r.commanders.captured_up_to),
            6,
            |x, v| x.rules.commanders.captured_up_to = u8::try_from(v).unwrap_or(6),
        ),
        (
            "Wounded commander misses this many battles",
            r.commanders.wounded_out_for,
            20,
            |x, v| x.rules.commanders.wounded_out_for = v,
        ),
    ];
    egui::Grid::new("campaign-rules-edit")
        .num_columns(2)
        .spacing([12.0, 4.0])
        .show(ui, |ui| {
            for (k, (label, value, max, set)) in rows.into_iter().enumerate() {
                ui.label(label);
                num_field(ui, out, ("rule", k), value, 0..=max, label, |v| {
                    save(c, |x| set(x, v))
                });
                ui.end_row();
            }
            ui.label("Replacement's command value is lower by (CMD-28: 1)");
            num_field(
                ui,
                out,
                "rule-penalty",
                r.commanders.replacement_penalty,
                0..=5,
                "replacement penalty",
                |v| save(c, |x| x.rules.commanders.replacement_penalty = v),
            );
            ui.end_row();
        });
    let mut back = r.knocked_out.back_if_field_kept;
    if ui
        .checkbox(
            &mut back,
            "Knocked-out units of a side that kept the field come back",
        )
        .changed()
    {
        out.send(save(c, |x| x.rules.knocked_out.back_if_field_kept = back));
    }
    if r.commanders.captured_up_to < r.commanders.killed_up_to {
        ui.label(
            RichText::new(
                "Captured-up-to is below killed-up-to: no roll would mean captured. Raise it to at least the killed number.",
            )
            .color(palette::WARN),
        );
    }
}

fn victory(ui: &mut Ui, c: &Campaign, out: &mut Emitter) {
    let kind = match &c.victory {
        VictoryCondition::MostVps => 0,
        VictoryCondition::DecisiveDouble => 1,
        VictoryCondition::ObjectiveHeldAtEnd { .. } => 2,
    };
    let holder_name = |i: usize| c.sides.get(i).map_or("the first side", |s| s.name.as_str());
    ui.horizontal(|ui| {
        if ui.radio(kind == 0, "Most victory points").clicked() && kind != 0 {
            out.send(save(c, |x| x.victory = VictoryCondition::MostVps));
        }
        if ui
            .radio(kind == 1, "Battles won, decisive counting double")
            .clicked()
            && kind != 1
        {
            out.send(save(c, |x| x.victory = VictoryCondition::DecisiveDouble));
        }
        if ui
            .radio(kind == 2, "An objective held at the end")
            .clicked()
            && kind != 2
        {
            out.send(save(c, |x| {
                x.victory = VictoryCondition::ObjectiveHeldAtEnd {
                    objective: "the objective".to_string(),
                    holder: 0,
                }
            }));
        }
    });
    if let VictoryCondition::ObjectiveHeldAtEnd { objective, holder } = &c.victory {
        ui.horizontal(|ui| {
            ui.label("Objective");
            let id = ui.make_persistent_id("campaign-objective");
            let mut text: String = ui
                .data(|d| d.get_temp::<String>(id))
                .unwrap_or_else(|| objective.clone());
            let resp = ui
                .add(egui::TextEdit::singleline(&mut text).desired_width(180.0))
                .named("Objective");
            if resp.changed() {
                ui.data_mut(|d| d.insert_temp(id, text.clone()));
            }
            if resp.lost_focus() {
                ui.data_mut(|d| d.remove::<String>(id));
                let t = text.trim().to_string();
                if !t.is_empty() && &t != objective {
                    let h = *holder;
                    out.send(save(c, |x| {
                        x.victory = VictoryCondition::ObjectiveHeldAtEnd {
                            objective: t,
                            holder: h,
                        }
                    }));
                }
            }
            ui.label("held at the start by");
            for i in 0..c.sides.len() {
                if ui.radio(*holder == i, holder_name(i)).clicked() && *holder != i {
                    let o = objective.clone();
                    out.send(save(c, |x| {
                        x.victory = VictoryCondition::ObjectiveHeldAtEnd {
                            objective: o,
                            holder: i,
                        }
                    }));
                }
            }
        });
    }
}
