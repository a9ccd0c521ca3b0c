//! The Battles page: every stored battle with Resume, the start form ("Play…" a scenario), and
//! the battle in play: the bar that says whose turn and phase it is and what the battle waits
//! for, the controls (end phase, undo, redo, let the computer play, Stop, its pace), the units
//! of both sides, the dice log, and the result once the battle ended.
//!
//! Like every page it only reads a [`BattlePanel`] the app built from the session and emits
//! [`AppCommand`]s; the app performs, stores and rebuilds the panel.

use super::battle_result::side_colour;
use super::widgets::RichTextExt as _;
use super::widgets::{palette, Emitter};
use super::{AppCommand, UiState, View};
use crate::model::ScenarioId;
use egui::{RichText, Ui};

/// One row of the Battles list.
#[derive(Debug, Clone, PartialEq)]
pub struct BattleRow {
    pub id: i64,
    pub scenario: String,
    pub mode: String,
    pub game_turn: u32,
    pub ended: bool,
    pub result: String,
    pub updated: String,
}

/// How a new battle is to be played (the start form).
#[derive(Debug, Clone, PartialEq)]
pub struct StartRequest {
    pub scenario: ScenarioId,
    /// `Some(side)`: solo, the computer plays `side`; `None` with `referee` false: hot-seat.
    pub computer: Option<usize>,
    pub referee: bool,
    /// Dice rolled on a real table and typed in.
    pub physical: bool,
    /// The seed (`None`: a fresh one, shown with the battle).
    pub seed: Option<u64>,
    pub full_orders: bool,
    /// SEQ-01: the side that moves first; `None`: the sides roll off with the battle's dice.
    pub first_player: Option<usize>,
    /// Start although the scenario breaks army-building rules.
    pub go_ahead: bool,
    /// Fog of war (solo and hot-seat only).
    pub fog: bool,
}

/// The start form's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct StartForm {
    pub scenario: Option<ScenarioId>,
    /// 0: solo, 1: hot-seat, 2: referee.
    pub mode: usize,
    pub computer: usize,
    pub physical: bool,
    pub seed: String,
    pub full_orders: bool,
    /// SEQ-01: the side that moves first (`None`: a roll-off); set from the scenario when one
    /// is chosen.
    pub first_player: Option<usize>,
    pub go_ahead: bool,
    /// Fog of war (offered for solo and hot-seat).
    pub fog: bool,
    /// Dice typed in for the next action (physical dice).
    pub dice: String,
}

impl Default for StartForm {
    fn default() -> Self {
        StartForm {
            scenario: None,
            mode: 0,
            computer: 1,
            physical: false,
            seed: String::new(),
            full_orders: true,
            first_player: None,
            go_ahead: false,
            fog: false,
            dice: String::new(),
        }
    }
}

/// One line of the dice log.
#[derive(Debug, Clone, PartialEq)]
pub struct DiceLine {
    /// "T2 side 0 Command".
    pub when: String,
    pub side: Option<usize>,
    /// The unit that rolled, by name.
    pub who: String,
    pub purpose: String,
    pub rule: String,
    pub dice: Vec<u8>,
    /// (rule, label, value) of every modifier.
    pub modifiers: Vec<(String, String, i32)>,
    /// Typed in from a real table.
    pub by_hand: bool,
    /// What the roll had to make, from the events it led to: "4+" (the lowest score to hit,
    /// FIRE-14), "7 or less" (a command roll or breakpoint test); `None` where no event says.
    pub needed: Option<String>,
    /// What came of it, from the same event: "9: failed", "2 hits", "1 saved".
    pub outcome: Option<String>,
    /// The action it belongs to, counted from 1 in the log in effect.
    pub action: usize,
    /// For dice typed in: where these dice came in the action's entered dice, as (first,
    /// last, of how many), counted from 1.
    pub typed: Option<(usize, usize, usize)>,
}

/// One unit in the units list.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitLine {
    pub side: usize,
    pub name: String,
    pub formation: String,
    pub stands: u8,
    pub hits: u32,
    pub marks: String,
    pub gone: bool,
    pub id: Option<crate::rules::PieceId>,
}

/// The battle in play, as the page shows it (built by the app after every change).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BattlePanel {
    pub id: i64,
    pub title: String,
    /// "solo (computer plays side 1) · seeded dice (seed 42) · full orders".
    pub how: String,
    pub side_names: [String; 2],
    /// "Game turn 2 · French · Command phase".
    pub turn: String,
    pub active: usize,
    /// What the battle waits for, in words.
    pub waiting: Vec<String>,
    pub can_undo: bool,
    pub can_redo: bool,
    pub physical: bool,
    /// It is the computer's decision now.
    pub computer_to_play: bool,
    /// The sides the computer plays (solo: one; none in hot-seat or refereeing).
    pub computer_sides: [bool; 2],
    /// "Computer plays French" (empty when no side is the computer's).
    pub computer_label: String,
    pub ended: bool,
    /// The verdict and each side's VPs, once ended.
    pub result: Vec<String>,
    pub units: Vec<UnitLine>,
    pub dice: Vec<DiceLine>,
    pub actions: usize,
    /// The table as it stands, drawn by the table view.
    pub scene: super::table::TableScene,
    /// Where each piece on the table stands (a drag moves it from here).
    pub poses: Vec<(crate::rules::PieceId, crate::rules::Pose)>,
    /// The result once the battle has ended (the result page, `battle_result`).
    pub report: Option<crate::rules::report::ResultReport>,
    /// Fog of war: the side whose view the panel shows (`None`: everything is shown).
    pub fog: Option<FogPanel>,
}

/// Whose view of a fogged battle the panel shows.
#[derive(Debug, Clone, PartialEq)]
pub struct FogPanel {
    pub side: usize,
    pub side_name: String,
    /// Hot-seat: the screen is handed over between the players, so the page asks for the
    /// player before showing their view.
    pub hand_over: bool,
}

/// The opponent at work, as the page shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpponentStatus {
    pub stopping: bool,
    pub pace_ms: u64,
}

/// The Battles page.
pub fn page(ui: &mut Ui, view: &View<'_>, state: &mut UiState, out: &mut Emitter) {
    match view.battle {
        Some(panel) => {
            let from = out.commands.len();
            battle_page(ui, view, panel, state, out);
            // Physical dice: an action that needs dice waits on the pad for them.
            if let (true, Some(engine)) = (panel.physical, view.engine) {
                super::dice_pad::route(engine, &mut state.dice_pad, out, from);
            }
        }
        None => list_page(ui, view, state, out),
    }
}

fn list_page(ui: &mut Ui, view: &View<'_>, state: &mut UiState, out: &mut Emitter) {
    let form_width = (ui.available_width() * 0.32).clamp(250.0, 360.0);
    egui::Panel::right("start-battle")
        .default_size(form_width)
        .frame(
            egui::Frame::new()
                .fill(palette::PANEL)
                .inner_margin(egui::Margin::same(12)),
        )
        .show(ui, |ui| start_form(ui, view, state, out));
    egui::CentralPanel::default().show(ui, |ui| {
        ui.heading(RichText::new("Battles").bold());
        ui.label(
            RichText::new("Every battle stored in this database. Resume one where it was left.")
                .color(palette::FAINT),
        );
        ui.add_space(8.0);
        if view.battles.is_empty() {
            ui.label("No battles yet: start one on the right.");
            return;
        }
        egui::ScrollArea::both()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::Grid::new("battle-table")
                    .striped(true)
                    .num_columns(6)
                    .spacing([16.0, 6.0])
                    .show(ui, |ui| {
                        for h in ["", "Battle", "Scenario", "Turn", "Status", "Mode"] {
                            ui.label(RichText::new(h).bold().color(palette::BLUE));
                        }
                        ui.end_row();
                        for b in view.battles.iter().rev() {
                            ui.push_id(b.id, |ui| {
                                let label = if b.ended { "Open" } else { "Resume" };
                                if ui
                                    .button(label)
                                    .on_hover_text("Continue exactly where it was left")
                                    .clicked()
                                {
                                    out.send(AppCommand::OpenBattle(b.id));
                                }
                            });
                            ui.label(format!("#{}", b.id));
                            ui.label(RichText::new(&b.scenario).bold());
                            ui.label(b.game_turn.to_string());
                            if b.ended {
                                ui.label(
                                    RichText::new(format!("ended: {}", b.result))
                                        .color(palette::OK),
                                )
                                .on_hover_text(&b.result);
                            } else {
                                ui.label("in progress");
                            }
                            ui.label(&b.mode);
                            ui.end_row();
                        }
                    });
            });
    });
}

fn start_form(ui: &mut Ui, view: &View<'_>, state: &mut UiState, out: &mut Emitter) {
    let f = &mut state.start;
    ui.label(RichText::new("Start a battle").size(16.0).bold());
    ui.add_space(6.0);
    let chosen = f
        .scenario
        .as_ref()
        .and_then(|id| view.scenarios.iter().find(|s| &s.id == id))
        .map_or("choose a scenario", |s| s.name.as_str())
        .to_string();
    egui::ComboBox::from_label("Scenario")
        .selected_text(chosen)
        .width(220.0)
        .show_ui(ui, |ui| {
            for s in view.scenarios {
                if ui
                    .selectable_value(&mut f.scenario, Some(s.id.clone()), &s.name)
                    .clicked()
                {
                    // SEQ-01: who moves first as the scenario says, until changed here.
                    f.first_player = s.first_player;
                }
            }
        });
    // The scenario's optional rules as they are set (changed in its settings, not here).
    if let Some(row) = f
        .scenario
        .as_ref()
        .and_then(|id| view.scenarios.iter().find(|s| &s.id == id))
    {
        let rules = if row.optional_rules.is_empty() {
            "none".to_string()
        } else {
            row.optional_rules
                .iter()
                .map(|r| {
                    if r.implemented() {
                        r.label().to_string()
                    } else {
                        format!("{} (not yet played)", r.label())
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        ui.label(RichText::new(format!("Optional rules: {rules}")).color(palette::FAINT))
            .on_hover_text("Set in the scenario's settings on the Orders of battle page");
    }
    ui.add_space(6.0);
    ui.label(RichText::new("Who plays").bold());
    ui.radio_value(&mut f.mode, 0, "Solo against the computer");
    if f.mode == 0 {
        ui.horizontal(|ui| {
            ui.add_space(18.0);
            ui.label("The computer plays");
            ui.radio_value(&mut f.computer, 0, "side 1");
            ui.radio_value(&mut f.computer, 1, "side 2");
        });
    }
    ui.radio_value(&mut f.mode, 1, "Hot-seat: two players at this screen");
    ui.radio_value(&mut f.mode, 2, "Referee of a real table");
    if f.mode < 2 {
        ui.checkbox(&mut f.fog, "Fog of war").on_hover_text(
            "Each player sees only the enemy units their own units can see (VIS-01..VIS-17); \
                 the others are shown faded where they were last seen",
        );
    }
    ui.add_space(6.0);
    ui.label(RichText::new("Dice").bold());
    ui.checkbox(
        &mut f.physical,
        "Physical dice, typed in as they are rolled",
    );
    if !f.physical {
        ui.horizontal(|ui| {
            let label = ui.label("Seed");
            ui.add(
                egui::TextEdit::singleline(&mut f.seed)
                    .hint_text("any")
                    .desired_width(120.0),
            )
            .labelled_by(label.id)
            .on_hover_text("The same seed and the same actions give the same battle");
        });
    }
    ui.add_space(6.0);
    ui.checkbox(
        &mut f.full_orders,
        "Full orders (initiative, command rolls)",
    )
    .on_hover_text("Off: any unit of the active side may act; command is rolled on the table");
    // SEQ-01: physical dice roll off on the table, and the referee names the side that won.
    ui.horizontal(|ui| {
        ui.label("First player");
        ui.radio_value(&mut f.first_player, Some(0), "side 1");
        ui.radio_value(&mut f.first_player, Some(1), "side 2");
        ui.add_enabled_ui(!f.physical, |ui| {
            ui.radio_value(&mut f.first_player, None, "roll off")
                .on_hover_text("Each side rolls a die; the higher moves first, a tie rolls again")
                .on_disabled_hover_text(
                    "With physical dice, roll off on the table and choose the side that won",
                );
        });
    });
    let must_name = f.physical && f.first_player.is_none();
    if must_name {
        ui.label(
            RichText::new("Roll off on the table and choose the side that won.")
                .color(palette::ERROR),
        );
    }
    ui.checkbox(
        &mut f.go_ahead,
        "Start even if the army lists break the building rules",
    );
    ui.add_space(8.0);
    let seed = f.seed.trim();
    let seed_ok = f.physical || seed.is_empty() || seed.parse::<u64>().is_ok();
    if !seed_ok {
        ui.label(RichText::new("The seed must be a whole number.").color(palette::ERROR));
    }
    let ready = f.scenario.is_some() && seed_ok && !must_name;
    if ui
        .add_enabled(ready, egui::Button::new(RichText::new("Play").bold()))
        .on_hover_text("Start the battle and store it")
        .clicked()
    {
        if let Some(scenario) = f.scenario.clone() {
            out.send(AppCommand::StartBattle(StartRequest {
                scenario,
                computer: (f.mode == 0).then_some(f.computer),
                referee: f.mode == 2,
                physical: f.physical,
                seed: if f.physical { None } else { seed.parse().ok() },
                full_orders: f.full_orders,
                first_player: f.first_player,
                go_ahead: f.go_ahead,
                fog: f.fog && f.mode < 2,
            }));
        }
    }
}

/// Hot-seat with fog of war: the screen between two players' views, so neither sees the
/// other's. It shows nothing of the battle but whose turn it is.
fn hand_over(
    ui: &mut Ui,
    panel: &BattlePanel,
    fog: &FogPanel,
    state: &mut UiState,
    out: &mut Emitter,
) {
    egui::CentralPanel::default().show(ui, |ui| {
        ui.vertical_centered(|ui| {
            ui.add_space(ui.available_height() * 0.3);
            ui.label(RichText::new(&panel.title).size(16.0).color(palette::FAINT));
            ui.add_space(8.0);
            ui.label(
                RichText::new(format!("Pass to the {} player", fog.side_name))
                    .size(26.0)
                    .bold()
                    .color(side_colour(fog.side)),
            );
            ui.add_space(6.0);
            ui.label(
                "Fog of war: each player sees only the enemy units their own units can see. \
                 The other player should look away now.",
            );
            ui.add_space(12.0);
            if ui
                .button(
                    RichText::new(format!("I am the {} player: show my view", fog.side_name))
                        .size(16.0),
                )
                .clicked()
            {
                state.fog_viewer = Some((panel.id, fog.side));
                state.battle_selected = None;
            }
            ui.add_space(12.0);
            if ui.button("◀ Battles").clicked() {
                out.send(AppCommand::CloseBattle);
            }
        });
    });
}

fn battle_page(
    ui: &mut Ui,
    view: &View<'_>,
    panel: &BattlePanel,
    state: &mut UiState,
    out: &mut Emitter,
) {
    if let Some(fog) = panel.fog.as_ref().filter(|f| f.hand_over) {
        if state.fog_viewer != Some((panel.id, fog.side)) {
            hand_over(ui, panel, fog, state, out);
            return;
        }
    }
    egui::Panel::top("battle-bar")
        .frame(
            egui::Frame::new()
                .fill(palette::PANEL)
                .inner_margin(egui::Margin::symmetric(12, 6)),
        )
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                if ui
                    .button("◀ Battles")
                    .on_hover_text("Back to the list")
                    .clicked()
                {
                    out.send(AppCommand::CloseBattle);
                }
                ui.label(RichText::new(&panel.title).bold().size(16.0));
                ui.label(RichText::new(&panel.how).color(palette::FAINT));
            });
            ui.horizontal_wrapped(|ui| {
                ui.label(
                    RichText::new(&panel.turn)
                        .bold()
                        .color(side_colour(panel.active)),
                );
                ui.separator();
                let busy = view.opponent.is_some();
                let can_act = !panel.ended && !busy;
                if ui
                    .add_enabled(can_act, egui::Button::new("End phase"))
                    .on_hover_text("Finish this phase (SEQ-03)")
                    .clicked()
                {
                    out.send(AppCommand::BattleAction(crate::rules::Action::EndPhase));
                }
                if !panel.computer_label.is_empty() {
                    ui.separator();
                    match view.opponent {
                        None => {
                            if ui
                                .add_enabled(
                                    panel.computer_to_play && !panel.ended,
                                    egui::Button::new(&panel.computer_label),
                                )
                                .on_hover_text("Let the computer take its decisions now")
                                .clicked()
                            {
                                out.send(AppCommand::OpponentPlay);
                            }
                        }
                        Some(op) => {
                            ui.spinner();
                            ui.label(if op.stopping {
                                "stopping…"
                            } else {
                                "the computer is playing"
                            });
                            if ui
                                .add_enabled(!op.stopping, egui::Button::new("Stop"))
                                .clicked()
                            {
                                out.send(AppCommand::OpponentStop);
                            }
                        }
                    }
                    let mut pace = state.pace_ms;
                    ui.label("pace");
                    if ui
                        .add(
                            egui::Slider::new(&mut pace, 0..=2000)
                                .suffix(" ms")
                                .text("per action"),
                        )
                        .changed()
                    {
                        state.pace_ms = pace;
                        out.send(AppCommand::OpponentPace(pace));
                    }
                }
            });
            // The first thing waited for in full; the rest (often one line per command unit
            // that may give an order) folded behind one line, so the table keeps its height.
            if let Some((first, rest)) = panel.waiting.split_first() {
                ui.label(RichText::new(format!("Waiting for {first}")).color(palette::WARN));
                if !rest.is_empty() {
                    egui::CollapsingHeader::new(
                        RichText::new(format!("and {} more", rest.len())).color(palette::WARN),
                    )
                    .id_salt("waiting-more")
                    .show(ui, |ui| {
                        for w in rest {
                            ui.label(
                                RichText::new(format!("Waiting for {w}")).color(palette::WARN),
                            );
                        }
                    });
                }
            }
            if panel.physical {
                ui.separator();
                super::dice_pad::show(ui, view.engine, &mut state.dice_pad, &mut state.start.dice);
            }
        });
    if let Some(report) = panel.report.as_ref() {
        if super::battle_result::shows_result(panel, state) {
            return super::battle_result::page(ui, view, panel, report, state, out);
        }
    }
    // The side panels give way on small windows so the table keeps most of the width.
    let width = ui.available_width();
    let log_width = (width * 0.26).clamp(200.0, 420.0);
    let units_width = (width * 0.2).clamp(170.0, 300.0);
    egui::Panel::right("dice-log")
        .default_size(log_width)
        .min_size(160.0)
        .max_size(log_width)
        .frame(
            egui::Frame::new()
                .fill(palette::CARD)
                .inner_margin(egui::Margin::same(10)),
        )
        .show(ui, |ui| super::dice_log::show(ui, panel, state, out));
    egui::Panel::left("battle-units")
        .default_size(units_width)
        .min_size(150.0)
        .max_size(units_width)
        .frame(
            egui::Frame::new()
                .fill(palette::PAPER)
                .inner_margin(egui::Margin::same(10)),
        )
        .show(ui, |ui| {
            if panel.ended {
                egui::Frame::new()
                    .fill(egui::Color32::from_rgb(0xe3, 0xef, 0xdf))
                    .inner_margin(egui::Margin::same(10))
                    .show(ui, |ui| {
                        ui.label(RichText::new("The battle is over").bold().size(16.0));
                        for line in &panel.result {
                            ui.label(line);
                        }
                        if panel.report.is_some() && ui.button("Show the result").clicked() {
                            state.result_set_aside = None;
                        }
                    });
                ui.add_space(8.0);
            }
            selected_card(ui, panel, state);
            if let Some(o) = view.options {
                unit_options(ui, panel, o, out);
            }
            super::battle_act::panel(ui, view, panel, state, out);
            super::battle_plan::show(ui, view, panel);
            units(ui, panel, state);
        });
    // The table with the look tools: hover card, selection overlays, ghost drag, ruler.
    egui::CentralPanel::default().show(ui, |ui| {
        super::battle_look::table(ui, view, panel, state, out);
    });
}

/// The selected unit's card.
fn selected_card(ui: &mut Ui, panel: &BattlePanel, state: &UiState) {
    let Some(id) = state.battle_selected else {
        ui.label(
            RichText::new("Click a unit on the table to select it; drag it to move it.")
                .color(palette::FAINT),
        );
        ui.add_space(6.0);
        return;
    };
    let Some(u) = panel.units.iter().find(|u| u.id == Some(id)) else {
        return;
    };
    egui::Frame::new()
        .fill(palette::CARD)
        .stroke(egui::Stroke::new(1.0, side_colour(u.side)))
        .inner_margin(egui::Margin::same(8))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.label(RichText::new(&u.name).bold().color(side_colour(u.side)));
            if let Some(detail) = panel.scene.piece(id).map(|p| p.detail.clone()) {
                ui.label(detail);
            }
            ui.label(format!(
                "{} stands · {} hits{}",
                u.stands,
                u.hits,
                if u.marks.is_empty() {
                    String::new()
                } else {
                    format!(" · {}", u.marks)
                }
            ));
        });
    ui.add_space(6.0);
}

/// The modifiers of a roll, one per line with its rule ID (hover text).
fn modifier_lines(mods: &[crate::rules::event::Modifier]) -> String {
    mods.iter()
        .map(|m| format!("{}  {} ({:+})", m.rule, m.label, m.value))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A preview in a few words: "5 dice, 4+ to hit (+1 first fire); save 6+ with 1 bonus die".
pub(super) fn preview_words(p: &crate::rules::api::DicePreview) -> (String, String) {
    let mut short = Vec::new();
    let mut long = Vec::new();
    for r in &p.rolls {
        let score = r
            .score
            .map_or_else(String::new, |s| format!(", {s}+ to hit"));
        let ff = if r.first_fire { " (+1 first fire)" } else { "" };
        short.push(format!("{} dice{score}{ff}", r.dice));
        long.push(format!(
            "{}: {} dice{score}{ff}\n{}",
            r.purpose,
            r.dice,
            modifier_lines(&r.modifiers)
        ));
    }
    if let Some(save) = &p.save {
        match save.score {
            Some(sc) => {
                let bonus = if save.bonus_dice > 0 {
                    format!(" + {} bonus die", save.bonus_dice)
                } else {
                    String::new()
                };
                short.push(format!("save {sc}+{bonus}"));
                long.push(format!(
                    "save {sc}+{bonus}\n{}",
                    modifier_lines(&save.modifiers)
                ));
            }
            None => short.push("no save".into()),
        }
    }
    if let (Some(ko), Some(h)) = (p.ko_threshold, p.hits_before) {
        long.push(format!("knocked out at {ko} hits this turn (has {h})"));
    }
    if let Some(n) = &p.note {
        long.push(n.clone());
    }
    (short.join("; "), long.join("\n\n"))
}

/// What the selected unit may do now, from the engine's options: each button is an action the
/// engine has already checked, with its dice preview before anything is rolled.
fn unit_options(
    ui: &mut Ui,
    panel: &BattlePanel,
    o: &crate::rules::api::Options,
    out: &mut Emitter,
) {
    use crate::rules::Action;
    if panel.ended {
        return;
    }
    let nothing = o.fire.is_empty()
        && o.charges.is_empty()
        && o.formations.is_empty()
        && !o.limber
        && !o.unlimber
        && !o.mount
        && !o.dismount
        && !o.evade
        && !o.prone
        && !o.stand_up;
    if nothing {
        ui.label(RichText::new("Nothing to do for this unit now.").color(palette::FAINT));
        ui.add_space(6.0);
        return;
    }
    for f in &o.fire {
        let (short, long) = preview_words(&f.preview);
        let text = format!("Fire at {} ({:.0} cm): {short}", f.name, f.distance_cm);
        if ui.button(text).on_hover_text(long).clicked() {
            out.send(AppCommand::BattleAction(Action::Fire {
                firers: vec![o.piece],
                target: f.target,
                ammunition: None,
            }));
        }
        // OPT-AIRBURST-01: offered where the engine accepts it.
        if f.air_burst
            && ui
                .button(format!("Air burst at {}", f.name))
                .on_hover_text(
                    "Shell cut to burst overhead: 2 cm zone, one die fewer, every target hit \
                     as in the open (OPT-AIRBURST-01)",
                )
                .clicked()
        {
            out.send(AppCommand::BattleAction(Action::Fire {
                firers: vec![o.piece],
                target: f.target,
                ammunition: Some(crate::rules::artillery::Ammunition::AirBurst),
            }));
        }
    }
    for c in &o.charges {
        let detail = c.preview.as_ref().map(preview_words).unwrap_or_default();
        let text = format!("Charge {} ({:.0} cm)", c.name, c.distance_cm);
        let hover = [detail.1, c.note.clone().unwrap_or_default()].join("\n");
        if ui.button(text).on_hover_text(hover).clicked() {
            out.send(AppCommand::BattleAction(Action::Charge {
                chargers: vec![o.piece],
                target: c.target,
                saber: false,
            }));
        }
        // OPT-SABER-01: the same charge declared as a saber charge, with its own dice.
        let saber_hover = || {
            let what = "Cavalry charge with the sword: no firing until it is fought; mounted \
                        cavalry roll one more die per stand in the first round (OPT-SABER-01..03)";
            match c.saber_preview.as_ref().map(preview_words) {
                Some((_, long)) => format!("{what}\n{long}"),
                None => what.to_string(),
            }
        };
        if c.saber
            && ui
                .button(format!("Saber charge {} ({:.0} cm)", c.name, c.distance_cm))
                .on_hover_text(saber_hover())
                .clicked()
        {
            out.send(AppCommand::BattleAction(Action::Charge {
                chargers: vec![o.piece],
                target: c.target,
                saber: true,
            }));
        }
    }
    if !o.formations.is_empty() {
        ui.horizontal_wrapped(|ui| {
            ui.label("Form");
            for f in &o.formations {
                if ui
                    .button(f.label())
                    .on_hover_text("Change formation (MOVE-09, MOVE-10)")
                    .clicked()
                {
                    out.send(AppCommand::BattleAction(Action::Deploy {
                        piece: o.piece,
                        formation: *f,
                    }));
                }
            }
        });
    }
    ui.horizontal_wrapped(|ui| {
        if o.limber && ui.button("Limber").clicked() {
            out.send(AppCommand::BattleAction(Action::Limber { piece: o.piece }));
        }
        if o.unlimber && ui.button("Unlimber").clicked() {
            let facing = panel
                .poses
                .iter()
                .find(|(id, _)| *id == o.piece)
                .map_or(0.0, |(_, p)| p.facing_deg);
            out.send(AppCommand::BattleAction(Action::Unlimber {
                piece: o.piece,
                facing_deg: facing,
            }));
        }
        if o.dismount && ui.button("Dismount").clicked() {
            out.send(AppCommand::BattleAction(Action::Dismount {
                piece: o.piece,
                troop_type: None,
            }));
        }
        if o.mount && ui.button("Mount").clicked() {
            out.send(AppCommand::BattleAction(Action::Mount { piece: o.piece }));
        }
        // OPT-PRONE-01: lying down and standing up are Deploy actions.
        if o.prone
            && ui
                .button("Go prone")
                .on_hover_text(
                    "Lie down: each enemy unit firing at it scores one hit fewer; it may not \
                     move, and fires only in extended line (OPT-PRONE-01, OPT-PRONE-02)",
                )
                .clicked()
        {
            out.send(AppCommand::BattleAction(Action::Prone {
                piece: o.piece,
                prone: true,
            }));
        }
        if o.stand_up
            && ui
                .button("Stand up")
                .on_hover_text("Get up from prone (OPT-PRONE-01)")
                .clicked()
        {
            out.send(AppCommand::BattleAction(Action::Prone {
                piece: o.piece,
                prone: false,
            }));
        }
        if o.evade && ui.button("Evade").on_hover_text("INIT-05").clicked() {
            out.send(AppCommand::BattleAction(Action::Evade {
                piece: o.piece,
                facing_deg: None,
                mount: false,
            }));
        }
    });
    ui.add_space(6.0);
}

fn units(ui: &mut Ui, panel: &BattlePanel, state: &mut UiState) {
    egui::ScrollArea::vertical()
        .id_salt("battle-units")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for side in 0..2 {
                ui.label(
                    RichText::new(panel.side_names.get(side).map_or("", String::as_str))
                        .bold()
                        .color(side_colour(side)),
                );
                for u in panel.units.iter().filter(|u| u.side == side) {
                    let mut name = RichText::new(&u.name);
                    if u.gone {
                        name = name.strikethrough().color(palette::FAINT);
                    }
                    let mut status = format!("{} st", u.stands);
                    if u.hits > 0 {
                        status.push_str(&format!(" · {} h", u.hits));
                    }
                    if !u.marks.is_empty() {
                        status.push_str(&format!(" · {}", u.marks));
                    }
                    let chosen = u.id.is_some() && u.id == state.battle_selected;
                    let hover = format!("{}\n{} · {status}", u.name, u.formation);
                    ui.horizontal(|ui| {
                        let room = (ui.available_width() - 46.0).max(60.0);
                        let button = egui::Button::selectable(chosen, name).truncate();
                        if ui
                            .add_sized([room, 18.0], button)
                            .on_hover_text(&hover)
                            .clicked()
                        {
                            state.battle_selected = u.id;
                        }
                        ui.label(
                            RichText::new(format!("{} st", u.stands))
                                .small()
                                .color(palette::FAINT),
                        );
                    });
                }
                ui.add_space(8.0);
            }
        });
}
