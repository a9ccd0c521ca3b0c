//! The campaigns page (issue #19 item 5): on the left the campaigns; in the centre the selected
//! campaign — its sides, victory condition, carry rules and the chain of battles with each
//! battle's state in the selected run — then the runs of the campaign, and for the selected run
//! its next step ("Play next battle", "Computer plays it", "Enter result…"), the carry report of
//! every battle, the tally and the plots (`campaign_run`). The editor is in `campaign_editor`.
//!
//! Nothing here touches the store: the app hands in [`RunRow`]s and a [`RunView`] built from
//! the stored run, and every step is an [`AppCommand`].

use super::commands::AppCommand;
use super::widgets::{palette, section, Emitter, RichTextExt as _};
use super::View;
use crate::campaign::{BattleRecord, CarryReport, Forces, Tally};
use crate::model::{BattleLink, Campaign, CampaignId, Scenario, VictoryCondition, WeatherLink};
use egui::{RichText, Ui};

/// One row of the runs list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRow {
    pub id: i64,
    pub name: String,
    pub seed: u64,
    pub played: usize,
    pub battles: usize,
    pub ended: bool,
}

/// Where one battle of a run stands.
#[derive(Debug, Clone, PartialEq)]
pub enum RunBattleState {
    /// Set up by the carry, not started.
    Ready,
    /// Its battle session exists; `over`: the battle has its result but is not carried yet.
    Started { battle_id: i64, over: bool },
    /// Fought (in the app or by hand) and carried.
    Played {
        end: Box<Forces>,
        after: CarryReport,
        result: BattleRecord,
        by_hand: bool,
    },
}

/// One battle of the selected run, as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunBattleView {
    pub pos: usize,
    /// The scenario as the carry made it (the carried strength).
    pub scenario: Scenario,
    pub start: Forces,
    pub carry_in: CarryReport,
    pub state: RunBattleState,
}

/// The selected run, as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunView {
    pub id: i64,
    pub name: String,
    pub seed: u64,
    pub ended: bool,
    /// The campaign as the run copied it.
    pub campaign: Campaign,
    pub side_names: Vec<String>,
    /// The battles set up so far (the next one included).
    pub battles: Vec<RunBattleView>,
    pub tally: Tally,
}

impl RunView {
    /// The battle waiting to be played.
    pub fn next(&self) -> Option<&RunBattleView> {
        self.battles
            .iter()
            .find(|b| !matches!(b.state, RunBattleState::Played { .. }))
    }
}

/// How the next battle of a run is to be played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlayHow {
    /// One person against the computer, which plays campaign side `computer`.
    Solo { computer: usize },
    /// Two people at one screen.
    #[default]
    Hotseat,
    /// A referee at a real table, rolling real dice. When the battle's scenario leaves the
    /// first move to a roll-off (SEQ-01), the campaign side that won it on the table.
    Referee { won_roll_off: usize },
    /// The computer on both sides, shown move by move in the battle window.
    Computer,
}

/// The page's drafts and choices, kept between frames.
#[derive(Debug, Clone, Default)]
pub struct CampaignForm {
    pub new_run_open: bool,
    pub new_run_name: String,
    pub new_run_seed: String,
    pub confirm_delete_run: Option<i64>,
    pub play_how: PlayHow,
    pub description_open: bool,
    pub editor_open: bool,
    /// The result-by-hand form, while open.
    pub hand: Option<super::campaign_hand::HandForm>,
}

pub fn page(ui: &mut Ui, view: &View<'_>, state: &mut super::UiState, out: &mut Emitter) {
    egui::Panel::left("campaign-list")
        .default_size(240.0)
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
    if state.campaign.editor_open {
        if let Some(c) = view.campaign {
            super::campaign_editor::window(ui, view, c, &mut state.campaign, out);
        }
    }
    if let Some(run) = view.campaign_run {
        super::campaign_hand::window(ui, run, &mut state.campaign, out);
    }
    egui::CentralPanel::default().show(ui, |ui| {
        let Some(c) = view.campaign else {
            ui.add_space(20.0);
            ui.label("Pick a campaign on the left.");
            return;
        };
        // The page's width is the window's: a wide table must not push the plots off screen.
        let full = ui.available_width();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.set_max_width(full - 14.0);
                campaign(ui, view, c, &mut state.campaign, out);
            });
    });
}

/// "17 days later · weather rolled afresh" / "next morning · same ground · weather continues".
pub fn link_words(link: &BattleLink) -> String {
    let when = match link.days_after {
        0 => "next morning".to_string(),
        1 => "a day later".to_string(),
        n => format!("{n} days later"),
    };
    let weather = match link.weather {
        WeatherLink::Continue => "weather continues",
        WeatherLink::Afresh => "weather rolled afresh",
        WeatherLink::Historical => "the scenario's own weather",
    };
    if link.same_ground {
        format!("{when} · same ground · {weather}")
    } else {
        format!("{when} · {weather}")
    }
}

/// The campaign's victory condition in words.
pub fn victory_words(c: &Campaign) -> String {
    let side = |i: usize| {
        c.sides
            .get(i)
            .map_or_else(|| format!("side {}", i + 1), |s| s.name.clone())
    };
    match &c.victory {
        VictoryCondition::MostVps => {
            "The side with the most victory points over all its battles wins (VP-01, VP-02)."
                .to_string()
        }
        VictoryCondition::DecisiveDouble => "Each battle won counts one, a decisive victory two \
             (OBJ-02); level on that, victory points decide."
            .to_string(),
        VictoryCondition::ObjectiveHeldAtEnd { objective, holder } => format!(
            "Whoever holds {objective} at the end wins: the winner of each battle takes it, a \
             draw leaves it where it was ({} hold it at the start).",
            side(*holder)
        ),
    }
}

fn campaign(
    ui: &mut Ui,
    view: &View<'_>,
    c: &Campaign,
    form: &mut CampaignForm,
    out: &mut Emitter,
) {
    ui.horizontal(|ui| {
        ui.heading(RichText::new(&c.name).bold());
        ui.add_space(12.0);
        let label = if form.editor_open {
            "Close the editor"
        } else {
            "Edit the campaign…"
        };
        if ui
            .button(label)
            .on_hover_text("Battles, their links, the carry rules and the victory condition")
            .clicked()
        {
            form.editor_open = !form.editor_open;
        }
    });
    if !c.description.is_empty() {
        egui::CollapsingHeader::new("About this campaign")
            .id_salt("campaign-description")
            .default_open(form.description_open)
            .show(ui, |ui| {
                ui.add(egui::Label::new(RichText::new(&c.description).italics()).wrap());
            });
    }
    let sides: Vec<&str> = c.sides.iter().map(|s| s.name.as_str()).collect();
    if !sides.is_empty() {
        ui.label(format!("Sides: {}", sides.join(" against ")));
    }
    ui.label(RichText::new(victory_words(c)).strong());
    egui::CollapsingHeader::new("Carry rules")
        .id_salt("campaign-rules")
        .show(ui, |ui| {
            for line in c.rules.describe() {
                ui.add(egui::Label::new(format!("• {line}")).wrap());
            }
        });

    section(ui, "Battles, in order");
    chain(ui, view, c);

    section(ui, "Runs");
    super::campaign_run::runs(ui, view, c, form, out);
    if let Some(run) = view.campaign_run {
        super::campaign_run::run(ui, view, run, form, out);
    }
}

fn chain(ui: &mut Ui, view: &View<'_>, c: &Campaign) {
    if c.battles.is_empty() {
        ui.label(RichText::new("No battles yet: add them in the editor.").color(palette::FAINT));
        return;
    }
    // A run follows the campaign as it was when it began: its states fit only that order.
    let run = view.campaign_run.filter(|r| {
        r.campaign.battles.len() == c.battles.len()
            && r.campaign
                .battles
                .iter()
                .zip(&c.battles)
                .all(|(a, b)| a.scenario == b.scenario)
    });
    if view.campaign_run.is_some() && run.is_none() {
        ui.label(
            RichText::new(
                "The selected run began before the battles were changed: it keeps the order it \
                 began with (shown under the run).",
            )
            .color(palette::FAINT),
        );
    }
    for (i, b) in c.battles.iter().enumerate() {
        let fill = if i % 2 == 0 {
            palette::PANEL
        } else {
            egui::Color32::TRANSPARENT
        };
        egui::Frame::new()
            .fill(fill)
            .inner_margin(egui::Margin::symmetric(6, 3))
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new(format!("{}.", i + 1)).bold());
                    match view.scenarios.iter().find(|s| s.id == b.scenario) {
                        Some(s) => ui.label(RichText::new(&s.name).strong()),
                        None => ui.label(
                            RichText::new(format!("{} (not in this database)", b.scenario))
                                .color(palette::WARN),
                        ),
                    };
                    ui.label(RichText::new("·").color(palette::FAINT));
                    ui.label(state_words(run, i));
                });
                if i > 0 {
                    ui.label(RichText::new(link_words(&b.link)).italics());
                }
                if !b.note.is_empty() {
                    ui.add(egui::Label::new(RichText::new(&b.note).color(palette::FAINT)).wrap());
                }
            });
    }
}

/// The state of battle `i` in the selected run, in words.
fn state_words(run: Option<&RunView>, i: usize) -> RichText {
    let Some(run) = run else {
        return RichText::new("—").color(palette::FAINT);
    };
    let next = run.next().map(|b| b.pos);
    match run.battles.iter().find(|b| b.pos == i) {
        Some(RunBattleView {
            state: RunBattleState::Played { result, .. },
            ..
        }) => RichText::new(format!(
            "played: {}",
            super::campaign_run::result_words(result, &run.side_names)
        ))
        .color(palette::BLUE),
        Some(RunBattleView {
            state: RunBattleState::Started { over, .. },
            ..
        }) => {
            if *over {
                RichText::new("fought, to be carried").strong()
            } else {
                RichText::new("being fought").strong()
            }
        }
        Some(_) if next == Some(i) => RichText::new("next").strong(),
        _ => RichText::new("not yet").color(palette::FAINT),
    }
}

/// The id of the selected campaign, for commands.
pub fn campaign_id(view: &View<'_>) -> Option<CampaignId> {
    view.campaign.map(|c| c.id.clone())
}
