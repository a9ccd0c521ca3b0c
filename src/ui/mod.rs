//! The egui panels and widgets of the Powderhorn window.
//!
//! What it owns: how the app looks and what a click means. Every drawing function reads a
//! borrowed [`View`] of the app's data and a [`UiState`] of purely visual choices (which page,
//! which list, which node of the tree, half-typed form fields), and *emits* [`AppCommand`]s.
//! It never touches the store, the file system or a dialog: `crate::app` applies the commands
//! (store writes, undo snapshots, `rfd` dialogs) and hands back a fresh `View` next frame. That
//! split is what lets `tests/ui.rs` drive the whole window with `egui_kittest` and no display.
//!
//! Layering: `ui` depends on `model`, on `export`'s option types (plain data: what to print)
//! and `egui`; it must not import `crate::store`, `crate::app`, `rusqlite`, `rfd` or `std::fs`.
//!
//! Pages: [`army_lists`] (troop and command charts, user troop types), [`oob`] (the order of
//! battle editor: the heart of the app), [`scenarios`] (list, new, duplicate, delete, import,
//! export) and [`campaigns`] (battles in order and what carries over); [`print`] is the print
//! options popup and the progress bar of a PDF being written. [`table`] is the table view
//! widget (terrain and stands to scale), shown read-only on the order-of-battle page.

pub mod army_lists;
pub mod balance;
pub mod battle;
pub mod battle_act;
pub mod battle_comms;
pub mod battle_look;
pub mod battle_plan;
pub mod battle_result;
pub mod campaign_editor;
pub mod campaign_hand;
pub mod campaign_run;
pub mod campaigns;
pub mod commands;
pub mod dice_log;
pub mod dice_pad;
pub mod oob;
pub mod print;
pub mod rules_ref;
pub mod scenarios;
pub mod table;
pub mod table_defences;
pub mod table_editor;
pub mod widgets;

pub use commands::{
    AppCommand, Print, ReadyMade, ScenarioEdit, ScenarioSettings, Selection, SideArea, Verb,
    VerbSpec,
};

use crate::model::validate::{Subject, Violation};
use crate::model::{ArmyList, Campaign, CampaignId, ListId, Scenario, ScenarioId, TroopTypeId};
use egui::{RichText, Ui};
use std::collections::BTreeSet;
use widgets::RichTextExt as _;
use widgets::{palette, Emitter, Pending};

/// The pages of the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Page {
    ArmyLists,
    #[default]
    OrdersOfBattle,
    Scenarios,
    Battles,
    Campaigns,
    /// The rules reference: every rule ID in our own words.
    Rules,
}

impl Page {
    pub const ALL: [Page; 6] = [
        Page::ArmyLists,
        Page::OrdersOfBattle,
        Page::Scenarios,
        Page::Battles,
        Page::Campaigns,
        Page::Rules,
    ];
    pub fn label(self) -> &'static str {
        match self {
            Page::ArmyLists => "Army lists",
            Page::OrdersOfBattle => "Orders of battle",
            Page::Scenarios => "Scenarios",
            Page::Battles => "Battles",
            Page::Campaigns => "Campaigns",
            Page::Rules => "Rules",
        }
    }
}

/// One row of the scenario list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioRow {
    pub id: ScenarioId,
    pub name: String,
    pub date: String,
    pub points: u32,
    /// The optional rules it is played with.
    pub optional_rules: Vec<crate::model::scenario::OptionalRule>,
    /// SEQ-01: the side that moves first (`None`: the sides roll off).
    pub first_player: Option<usize>,
}

/// A message in the message area.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub level: Level,
    pub text: String,
    /// A follow-up the user may choose, e.g. "Replace" after an import found the id taken.
    pub action: Option<(String, AppCommand)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Error,
}

/// The database could not be opened: what happened and what the user can do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreProblem {
    pub path: String,
    pub error: String,
    pub advice: String,
}

/// A background job as the window shows it: a progress bar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobStatus<'a> {
    /// What is being done: "Writing the roster of 'Ebelsberg' to /tmp/ebelsberg-roster.pdf".
    pub what: &'a str,
    /// The step it is at: "Laying out the pages".
    pub note: &'a str,
    /// Fraction done, 0.0 to 1.0.
    pub progress: f32,
    /// Stop was asked for; the job is finishing without writing.
    pub stopping: bool,
}

/// What the app shows, borrowed from the app for one frame.
pub struct View<'a> {
    pub store_problem: Option<&'a StoreProblem>,
    pub db_path: &'a str,
    pub lists: &'a [ArmyList],
    /// Troop types added in this database (shown marked "user", removable).
    pub user_rows: &'a BTreeSet<(ListId, TroopTypeId)>,
    pub scenarios: &'a [ScenarioRow],
    /// The scenario open in the editor and its violations.
    pub open: Option<&'a Scenario>,
    pub violations: &'a [Violation],
    /// The book's advice on the open scenario (BAS-04, BAS-06): notes, not problems.
    pub advice: &'a [crate::model::advice::Advice],
    /// BAS-06: the share of the open table under terrain (0–1), worked out once per edit with
    /// the advice.
    pub terrain_cover: f64,
    pub campaigns: &'a [(CampaignId, String)],
    pub campaign: Option<&'a Campaign>,
    /// The runs of the selected campaign, and the run selected (issue #19 item 5).
    pub campaign_runs: &'a [campaigns::RunRow],
    pub campaign_run: Option<&'a campaigns::RunView>,
    /// The computer playing a campaign battle in the background, if it is.
    pub campaign_job: Option<JobStatus<'a>>,
    pub messages: &'a [Message],
    pub can_undo: bool,
    pub can_redo: bool,
    /// A file dialog is open (buttons that would open another are disabled).
    pub dialog_open: bool,
    /// The background job running, if any (one at a time).
    pub job: Option<JobStatus<'a>>,
    /// The stored battles, oldest first.
    pub battles: &'a [battle::BattleRow],
    /// The battle open on the Battles page.
    pub battle: Option<&'a battle::BattlePanel>,
    /// The solo opponent at work on it.
    pub opponent: Option<battle::OpponentStatus>,
    /// What the unit selected on the battle table may do now (the engine's own options).
    pub options: Option<&'a crate::rules::api::Options>,
    /// The open battle itself, read-only: pages ask it `check`, `options`, `pending` and
    /// sight questions (pure, nothing rolled or changed); acting goes through `AppCommand`s.
    pub engine: Option<&'a crate::rules::Battle>,
}

impl View<'_> {
    pub fn violations_of(&self, subject: Subject) -> Vec<&Violation> {
        self.violations
            .iter()
            .filter(|v| v.subject == subject)
            .collect()
    }
    pub fn list(&self, id: &ListId) -> Option<&ArmyList> {
        self.lists.iter().find(|l| &l.id == id)
    }
    /// Whether a print may start: no file dialog open and no job running.
    pub fn can_print(&self) -> bool {
        !self.dialog_open && self.job.is_none()
    }
}

/// Visual state the UI keeps between frames; owned by the app, changed only by the UI (and by
/// the app to select what a command created).
#[derive(Debug)]
pub struct UiState {
    pub page: Page,
    pub list: Option<ListId>,
    pub list_filter: String,
    pub troop_draft: army_lists::TroopDraft,
    pub selection: Selection,
    pub new_scenario: scenarios::NewScenarioForm,
    pub confirm_delete: Option<ScenarioId>,
    pub scenario_pick: Option<ScenarioId>,
    /// The print options popup.
    pub print: print::PrintForm,
    /// The start form of the Battles page (and the dice typed in for the next action).
    pub start: battle::StartForm,
    /// The pause after each of the computer's actions.
    pub pace_ms: u64,
    /// The order-of-battle page shows the table instead of the two sides' trees.
    pub show_table: bool,
    /// The table view's camera and terrain meshes.
    pub table: table::TableView,
    /// The table editor's tool, drawing and piece being placed (issue #18).
    pub table_editor: table_editor::TableEditor,
    /// The battle page's table view (its own camera) and the piece selected on it.
    pub battle_table: table::TableView,
    pub battle_selected: Option<crate::rules::PieceId>,
    /// The battle table's look tools: ruler, ghost, envelope (`battle_look`).
    pub battle_look: battle_look::LookState,
    /// The battle page's acting controls: the draft order, manoeuvre settings, the engine's
    /// answers for the state on the table.
    pub act: battle_act::ActState,
    /// The battle (by id) whose result page was put aside for its table ("Back to the table").
    pub result_set_aside: Option<i64>,
    /// The dice log's side and unit filter.
    pub dice_log: dice_log::LogFilter,
    /// The referee's dice pad (physical dice).
    pub dice_pad: dice_pad::DicePad,
    /// The Rules page: family, search, the rule opened.
    pub rules_ref: rules_ref::RulesRef,
    /// Hot-seat with fog of war: the (battle, side) whose player took the screen last.
    pub fog_viewer: Option<(i64, usize)>,
    /// The campaigns page's drafts (new run, how to play, editor, result by hand).
    pub campaign: campaigns::CampaignForm,
    pending: Option<Pending>,
    /// Scenario → Balance…: the window's form and the scenario it is open for.
    pub balance: balance::BalanceForm,
}

impl Default for UiState {
    fn default() -> Self {
        UiState {
            page: Page::default(),
            list: None,
            list_filter: String::new(),
            troop_draft: Default::default(),
            selection: Default::default(),
            new_scenario: Default::default(),
            confirm_delete: None,
            scenario_pick: None,
            print: Default::default(),
            start: Default::default(),
            pace_ms: 400,
            show_table: false,
            table: Default::default(),
            table_editor: Default::default(),
            battle_table: Default::default(),
            battle_selected: None,
            battle_look: Default::default(),
            act: Default::default(),
            result_set_aside: None,
            dice_log: Default::default(),
            dice_pad: Default::default(),
            rules_ref: Default::default(),
            fog_viewer: None,
            campaign: Default::default(),
            pending: None,
            balance: Default::default(),
        }
    }
}

/// Draws the whole window into `ui` and returns what the user asked for this frame.
pub fn show(ui: &mut Ui, view: &View<'_>, state: &mut UiState) -> Vec<AppCommand> {
    let mut out = Emitter::new(state.pending.take());
    if let Some(problem) = view.store_problem {
        store_problem_page(ui, problem);
        let (cmds, pending) = out.finish(ui.ctx());
        state.pending = pending;
        return cmds;
    }
    shortcuts(ui.ctx(), view, state, &mut out);

    egui::Panel::top("nav")
        .frame(
            egui::Frame::new()
                .fill(palette::BLUE)
                .inner_margin(egui::Margin::symmetric(12, 6)),
        )
        .show(ui, |ui| nav_bar(ui, view, state, &mut out));
    if !shown_messages(ui, view).is_empty() {
        // A toast over the bottom-right corner: it never pushes the page about, so nothing
        // moves under the pointer when a note comes or goes.
        let width = (ui.ctx().content_rect().width() - 24.0).clamp(240.0, 560.0);
        egui::Area::new(ui.make_persistent_id("messages"))
            .anchor(egui::Align2::RIGHT_BOTTOM, egui::vec2(-12.0, -30.0))
            .order(egui::Order::Foreground)
            .show(ui.ctx(), |ui| {
                egui::Frame::new()
                    .fill(palette::PAPER)
                    .stroke(egui::Stroke::new(1.0, palette::FAINT))
                    .corner_radius(6.0)
                    .inner_margin(egui::Margin::same(6))
                    .show(ui, |ui| {
                        ui.set_width(width);
                        messages(ui, view, &mut out);
                    });
            });
    }
    if let Some(job) = &view.job {
        egui::Panel::top("job")
            .frame(
                egui::Frame::new()
                    .fill(palette::PANEL)
                    .inner_margin(egui::Margin::symmetric(12, 6)),
            )
            .show(ui, |ui| print::job_bar(ui, job, &mut out));
    }
    egui::Panel::bottom("status")
        .frame(
            egui::Frame::new()
                .fill(palette::PANEL)
                .inner_margin(egui::Margin::symmetric(12, 3)),
        )
        .show(ui, |ui| status_bar(ui, view));

    match state.page {
        Page::ArmyLists => army_lists::page(ui, view, state, &mut out),
        Page::OrdersOfBattle => oob::page(ui, view, state, &mut out),
        Page::Scenarios => scenarios::page(ui, view, state, &mut out),
        Page::Battles => battle::page(ui, view, state, &mut out),
        Page::Campaigns => campaigns::page(ui, view, state, &mut out),
        Page::Rules => rules_ref::page(ui, state),
    }
    print::popup(ui, view, state, &mut out);

    let (cmds, pending) = out.finish(ui.ctx());
    state.pending = pending;
    cmds
}

/// Global shortcuts from the [`Verb`] table; a focused text field keeps its own Ctrl+Z.
fn shortcuts(ctx: &egui::Context, view: &View<'_>, state: &mut UiState, out: &mut Emitter) {
    if ctx.text_edit_focused() {
        return;
    }
    for verb in Verb::WITH_SHORTCUTS {
        let spec = verb.spec();
        let pressed = [spec.shortcut, spec.alt_shortcut]
            .into_iter()
            .flatten()
            .any(|s| ctx.input_mut(|i| i.consume_shortcut(&s)));
        if !pressed {
            continue;
        }
        let on_battle = state.page == Page::Battles && view.battle.is_some();
        let battle_idle = view.opponent.is_none();
        match verb {
            Verb::Undo if on_battle && battle_idle && view.battle.is_some_and(|b| b.can_undo) => {
                out.send(AppCommand::BattleUndo)
            }
            Verb::Redo if on_battle && battle_idle && view.battle.is_some_and(|b| b.can_redo) => {
                out.send(AppCommand::BattleRedo)
            }
            Verb::Undo | Verb::Redo if on_battle => {}
            Verb::Undo if view.can_undo => out.send(AppCommand::Undo),
            Verb::Redo if view.can_redo => out.send(AppCommand::Redo),
            Verb::NewScenario => state.page = Page::Scenarios,
            Verb::ImportScenario if !view.dialog_open => out.send(AppCommand::ImportScenarioDialog),
            Verb::PrintRoster if view.can_print() => {
                if let Some(s) = view.open {
                    state.print.open_for(s.id.clone(), print::PrintKind::Roster);
                }
            }
            _ => {}
        }
    }
}

fn nav_bar(ui: &mut Ui, view: &View<'_>, state: &mut UiState, out: &mut Emitter) {
    ui.horizontal(|ui| {
        ui.label(
            RichText::new("POWDERHORN")
                .bold()
                .size(17.0)
                .color(egui::Color32::from_rgb(0xf0, 0xe6, 0xcc)),
        );
        ui.add_space(18.0);
        for page in Page::ALL {
            let selected = state.page == page;
            let text = RichText::new(page.label()).size(14.5).color(if selected {
                palette::INK
            } else {
                egui::Color32::from_rgb(0xe8, 0xe2, 0xd4)
            });
            let button = egui::Button::new(text)
                .fill(if selected {
                    palette::PAPER
                } else {
                    egui::Color32::TRANSPARENT
                })
                .stroke(egui::Stroke::NONE);
            if ui.add(button).clicked() {
                state.page = page;
            }
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            // On a battle, Undo and Redo take back and put back its actions (kept in its log).
            let battle = view.battle.filter(|_| state.page == Page::Battles);
            let idle = view.opponent.is_none();
            match battle {
                Some(b) => {
                    if widgets::verb_button(ui, Verb::Redo, b.can_redo && idle) {
                        out.send(AppCommand::BattleRedo);
                    }
                    if widgets::verb_button(ui, Verb::Undo, b.can_undo && idle) {
                        out.send(AppCommand::BattleUndo);
                    }
                }
                None => {
                    if widgets::verb_button(ui, Verb::Redo, view.can_redo) {
                        out.send(AppCommand::Redo);
                    }
                    if widgets::verb_button(ui, Verb::Undo, view.can_undo) {
                        out.send(AppCommand::Undo);
                    }
                }
            }
            if let Some(s) = view.open {
                ui.label(
                    RichText::new(&s.name)
                        .italics()
                        .color(egui::Color32::from_rgb(0xe8, 0xe2, 0xd4)),
                );
            }
        });
    });
}

/// How long a "Done" note stays before it goes by itself (problems stay until dismissed).
const NOTE_SECONDS: f64 = 8.0;

/// The messages still to show, newest last: every problem, and the notes younger than
/// [`NOTE_SECONDS`] (each note's age counted from the frame it first appeared in).
fn shown_messages<'a>(ui: &Ui, view: &View<'a>) -> Vec<(usize, &'a Message)> {
    let now = ui.input(|i| i.time);
    let mut next_expiry: Option<f64> = None;
    let shown: Vec<(usize, &Message)> = view
        .messages
        .iter()
        .enumerate()
        .filter(|(i, m)| {
            if m.level == Level::Error {
                return true;
            }
            let key = ui.make_persistent_id(("message-first-seen", *i, &m.text));
            let first = ui.data_mut(|d| *d.get_temp_mut_or_insert_with(key, || now));
            let left = first + NOTE_SECONDS - now;
            if left > 0.0 {
                next_expiry = Some(next_expiry.map_or(left, |n: f64| n.min(left)));
            }
            left > 0.0
        })
        .collect();
    if let Some(left) = next_expiry {
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_secs_f64(left.max(0.05)));
    }
    shown
}

/// One line: the newest message in full; earlier ones behind "N earlier" (so notes never pile
/// up).
fn messages(ui: &mut Ui, view: &View<'_>, out: &mut Emitter) {
    let shown = shown_messages(ui, view);
    let Some((newest, earlier)) = shown.split_last() else {
        return;
    };
    if !earlier.is_empty() {
        egui::CollapsingHeader::new(
            RichText::new(format!("{} earlier", earlier.len())).color(palette::FAINT),
        )
        .id_salt("earlier-messages")
        .show(ui, |ui| {
            for (i, m) in earlier {
                message_line(ui, *i, m, out);
            }
        });
    }
    message_line(ui, newest.0, newest.1, out);
}

fn message_line(ui: &mut Ui, i: usize, m: &Message, out: &mut Emitter) {
    {
        let (fg, bg) = match m.level {
            Level::Info => (palette::OK, egui::Color32::from_rgb(0xe3, 0xef, 0xdf)),
            Level::Error => (palette::ERROR, palette::ERROR_BG),
        };
        egui::Frame::new()
            .fill(bg)
            .stroke(egui::Stroke::new(1.0, fg.gamma_multiply(0.6)))
            .corner_radius(4.0)
            .inner_margin(egui::Margin::symmetric(10, 5))
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.horizontal(|ui| {
                    let tag = if m.level == Level::Error {
                        "Problem"
                    } else {
                        "Done"
                    };
                    ui.label(RichText::new(tag).bold().color(fg));
                    // Long messages wrap short of the buttons on the right.
                    let buttons = if m.action.is_some() { 190.0 } else { 90.0 };
                    let width = (ui.available_width() - buttons).max(160.0);
                    ui.allocate_ui(egui::vec2(width, 0.0), |ui| {
                        ui.set_max_width(width);
                        ui.add(egui::Label::new(RichText::new(&m.text).color(fg)).wrap());
                    });
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        if ui.button("Dismiss").clicked() {
                            out.send(AppCommand::DismissMessage(i));
                        }
                        if let Some((label, cmd)) = &m.action {
                            if ui.button(label.as_str()).clicked() {
                                out.send(cmd.clone());
                                out.send(AppCommand::DismissMessage(i));
                            }
                        }
                    });
                });
            });
    }
}

fn status_bar(ui: &mut Ui, view: &View<'_>) {
    ui.horizontal(|ui| {
        ui.small(format!("Database: {}", view.db_path));
        ui.separator();
        ui.small(format!(
            "{} · {} · {}",
            count(view.lists.len(), "army list", "army lists"),
            count(view.scenarios.len(), "scenario", "scenarios"),
            count(view.campaigns.len(), "campaign", "campaigns")
        ));
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.small("Every change is saved at once · Ctrl+Z undo · Ctrl+Shift+Z redo");
        });
    });
}

/// "1 scenario", "2 scenarios", "0 scenarios".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The whole window when the database could not be opened: the error and what to do.
fn store_problem_page(ui: &mut Ui, problem: &StoreProblem) {
    egui::CentralPanel::default().show(ui, |ui| {
        ui.add_space(60.0);
        ui.vertical_centered(|ui| {
            ui.set_max_width(720.0);
            ui.label(
                RichText::new("POWDERHORN")
                    .bold()
                    .size(22.0)
                    .color(palette::BLUE),
            );
            ui.add_space(20.0);
            egui::Frame::new()
                .fill(palette::ERROR_BG)
                .stroke(egui::Stroke::new(1.5, palette::ERROR))
                .corner_radius(6.0)
                .inner_margin(egui::Margin::same(18))
                .show(ui, |ui| {
                    ui.set_width(680.0);
                    ui.with_layout(egui::Layout::top_down(egui::Align::Min), |ui| {
                        ui.label(
                            RichText::new("The database could not be opened")
                                .size(19.0)
                                .bold()
                                .color(palette::ERROR),
                        );
                        ui.add_space(8.0);
                        ui.label(RichText::new(format!("File: {}", problem.path)).monospace());
                        ui.add_space(4.0);
                        ui.add(
                            egui::Label::new(RichText::new(&problem.error).color(palette::ERROR))
                                .wrap(),
                        );
                        ui.add_space(12.0);
                        ui.label(RichText::new("What to do").bold());
                        ui.add(egui::Label::new(&problem.advice).wrap());
                        ui.add_space(8.0);
                        ui.label(
                            RichText::new("Nothing has been written to the file.")
                                .italics()
                                .color(palette::FAINT),
                        );
                    });
                });
        });
    });
}

#[cfg(test)]
mod tests {
    /// The UI's sources, up to their tests.
    const SOURCES: [(&str, &str); 22] = [
        ("mod.rs", include_str!("mod.rs")),
        ("army_lists.rs", include_str!("army_lists.rs")),
        ("battle.rs", include_str!("battle.rs")),
        ("campaigns.rs", include_str!("campaigns.rs")),
        ("campaign_editor.rs", include_str!("campaign_editor.rs")),
        ("campaign_hand.rs", include_str!("campaign_hand.rs")),
        ("campaign_run.rs", include_str!("campaign_run.rs")),
        ("commands.rs", include_str!("commands.rs")),
        ("dice_log.rs", include_str!("dice_log.rs")),
        ("dice_pad.rs", include_str!("dice_pad.rs")),
        ("rules_ref.rs", include_str!("rules_ref.rs")),
        ("oob.rs", include_str!("oob.rs")),
        ("print.rs", include_str!("print.rs")),
        ("scenarios.rs", include_str!("scenarios.rs")),
        ("widgets.rs", include_str!("widgets.rs")),
        ("table/mod.rs", include_str!("table/mod.rs")),
        ("table/labels.rs", include_str!("table/labels.rs")),
        ("table/legend.rs", include_str!("table/legend.rs")),
        ("table/projector.rs", include_str!("table/projector.rs")),
        ("table/scene.rs", include_str!("table/scene.rs")),
        ("table/terrain.rs", include_str!("table/terrain.rs")),
        ("table/units.rs", include_str!("table/units.rs")),
    ];

    #[test]
    fn counts_take_the_singular_for_one() {
        assert_eq!(super::count(1, "scenario", "scenarios"), "1 scenario");
        assert_eq!(super::count(0, "scenario", "scenarios"), "0 scenarios");
        assert_eq!(super::count(12, "army list", "army lists"), "12 army lists");
    }

    #[test]
    fn ui_never_touches_the_store_the_files_or_the_dialogs() {
        let forbidden = ["crate::store", "crate::app", "rusqlite", "rfd::", "std::fs"];
        for (file, text) in SOURCES {
            let code = text.split("#[cfg(test)]").next().unwrap_or(text);
            for (n, line) in code.lines().enumerate() {
                let line = line.trim_start();
                if line.starts_with("//") {
                    continue;
                }
                for bad in forbidden {
                    assert!(!line.contains(bad), "src/ui/{file}:{}: uses {bad}", n + 1);
                }
            }
        }
    }
}
