//! The Powderhorn window: app state, the command queue, the background file dialogs and the
//! background jobs (printing a PDF) with their progress.
//!
//! What it owns: the open [`Store`] (or the reason it could not be opened), the data the pages
//! show (army lists, scenario and campaign summaries, the scenario open in the editor and its
//! validation), the undo history, the message area, the file-dialog worker and the print job.
//!
//! How a frame goes: [`App::ui`] lends a read-only [`View`] to `crate::ui::show`, which draws
//! and returns [`AppCommand`]s; `App` then applies each command in one place
//! ([`App::apply`]): scenario edits go through `edit::apply` on a copy, are validated, saved to
//! SQLite at once (`save_scenario`, one transaction) and recorded for undo. A failed save leaves
//! the editor showing what is in the database and says why in the message area; the app keeps
//! running. `ui` never touches the store; only this module does.
//!
//! Printing ("Print roster…", "Print labels…"): the save dialog runs on the dialog worker; the
//! chosen path starts a [`jobs::Job`] that lays the PDF out and writes it whole
//! ([`print::print_to_file`]) while the window draws its progress bar; the outcome lands in the
//! message area ("Wrote …" or the export's own explanation). One job at a time.
//!
//! Layering: `app` may use everything (`model`, `store`, `ui`, `eframe`, `rfd`); nothing but
//! `main.rs` and the tests depend on it.

mod balance;
pub mod battle;
pub mod battle_result;
pub mod campaign;
pub mod edit;
pub mod files;
pub mod history;
pub mod jobs;
pub mod print;
pub mod table_edit;

pub use files::{
    export_scenario_file, import_scenario_file, import_scenario_file_with, ExportError,
    ImportError, OnExisting,
};

use crate::model::advice::{scenario_advice_with_cover, Advice, CoverCache};
use crate::model::validate::{validate_scenario, Violation};
use crate::model::{ArmyList, Campaign, CampaignId, ListId, Scenario, TroopTypeId};
use crate::store::{Store, StoreError};
use crate::ui::{
    self, widgets, AppCommand, JobStatus, Level, Message, Page, Print, ScenarioRow, Selection,
    StoreProblem, UiState, View,
};
use edit::Created;
use files::{DialogOutcome, Dialogs};
use history::History;
use jobs::{Job, JobPoll};
use print::{PrintOutcome, PrintReport};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// How many messages the message area keeps.
const MAX_MESSAGES: usize = 4;
/// The setting that remembers the scenario open in the editor.
const LAST_SCENARIO: &str = "last_scenario";

/// A PDF being printed in the background.
struct PrintRun {
    job: Job<PrintOutcome>,
    path: PathBuf,
    /// "the roster of 'Ebelsberg'".
    title: String,
    /// "all sides, A4".
    details: String,
}

/// The application: everything the window shows and the one place changes are applied.
pub struct App {
    store: Option<Store>,
    db_path: String,
    problem: Option<StoreProblem>,
    lists: Vec<ArmyList>,
    user_rows: BTreeSet<(ListId, TroopTypeId)>,
    scenarios: Vec<ScenarioRow>,
    open: Option<Scenario>,
    violations: Vec<Violation>,
    /// The book's advice on the open scenario (BAS-04, BAS-06), kept with the violations.
    advice: Vec<Advice>,
    /// BAS-06: the share of the open table under terrain, and what keeps it quick to work out
    /// again after an edit (issue #18 item 10).
    terrain_cover: f64,
    cover_cache: CoverCache,
    campaigns: Vec<(CampaignId, String)>,
    campaign: Option<Campaign>,
    messages: Vec<Message>,
    history: History,
    dialogs: Dialogs,
    printing: Option<PrintRun>,
    /// Scenario → Balance…: the games in play and the last report.
    balance: balance::Balance,
    last_print: Option<PrintReport>,
    style_installed: bool,
    /// The stored battles (the Battles list).
    battles: Vec<crate::ui::battle::BattleRow>,
    /// The battle open on the Battles page.
    battle: Option<battle::BattleRun>,
    /// The runs of the selected campaign and the computer's campaign battle (`campaign`).
    runs: campaign::CampaignRuns,
    /// Visual state of the pages (which page, selection, form drafts).
    pub ui_state: UiState,
}

impl App {
    /// An app on an open store. Nothing is shown open; the Orders of battle page offers the
    /// scenarios.
    pub fn new(store: Store) -> App {
        Self::with_store(store, "(in memory)")
    }

    /// An app on an open store, naming the database file in the status bar.
    pub fn with_store(store: Store, db_path: impl Into<String>) -> App {
        let mut app = App::empty(db_path.into());
        app.store = Some(store);
        app.reload_all();
        app
    }

    /// Opens the scenario that was open when the window last closed, if it is still stored.
    pub fn reopen_last_scenario(&mut self) {
        let Some(id) = self
            .store
            .as_ref()
            .and_then(|s| s.setting(LAST_SCENARIO).ok().flatten())
            .map(crate::model::ScenarioId::new)
        else {
            return;
        };
        if self.scenarios.iter().any(|r| r.id == id) {
            self.open_scenario_by_id(&id);
            self.ui_state.page = Page::OrdersOfBattle;
        }
    }

    /// An app whose database could not be opened: the window shows why and what to do, and
    /// nothing is ever written.
    pub fn with_problem(db: &Path, error: &StoreError) -> App {
        let mut app = App::empty(db.display().to_string());
        app.problem = Some(StoreProblem {
            path: db.display().to_string(),
            error: error.to_string(),
            advice: advice_for(error, db),
        });
        app
    }

    fn empty(db_path: String) -> App {
        App {
            store: None,
            db_path,
            problem: None,
            lists: Vec::new(),
            user_rows: BTreeSet::new(),
            scenarios: Vec::new(),
            open: None,
            violations: Vec::new(),
            advice: Vec::new(),
            terrain_cover: 0.0,
            cover_cache: CoverCache::default(),
            campaigns: Vec::new(),
            campaign: None,
            messages: Vec::new(),
            history: History::default(),
            dialogs: Dialogs::new(),
            printing: None,
            balance: balance::Balance::default(),
            last_print: None,
            style_installed: false,
            battles: Vec::new(),
            battle: None,
            runs: Default::default(),
            ui_state: UiState::default(),
        }
    }

    /// The battle open on the Battles page.
    pub fn battle_run(&self) -> Option<&battle::BattleRun> {
        self.battle.as_ref()
    }

    /// Whether the computer is playing in the open battle.
    pub fn opponent_running(&self) -> bool {
        self.battle.as_ref().is_some_and(|b| b.opponent.is_some())
    }

    /// The store, for tests and the command line.
    /// Use the built-in file chooser instead of the system's dialogs (tests; the window uses it
    /// by itself when the system's cannot open, or with `POWDERHORN_FILE_DIALOG=builtin`).
    pub fn use_builtin_file_chooser(&mut self) {
        self.dialogs.builtin_only = true;
    }

    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// The scenario open in the editor.
    pub fn open_scenario(&self) -> Option<&Scenario> {
        self.open.as_ref()
    }

    /// The messages now shown.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Whether a PDF is being printed in the background.
    pub fn is_printing(&self) -> bool {
        self.printing.is_some()
    }

    /// The progress of the PDF being printed (0.0 to 1.0), while one is.
    pub fn print_progress(&self) -> Option<f32> {
        self.printing.as_ref().map(|r| r.job.progress())
    }

    /// What the last finished print job did: path, progress reached, outcome.
    pub fn last_print(&self) -> Option<&PrintReport> {
        self.last_print.as_ref()
    }

    /// The database problem shown instead of the pages, if any.
    pub fn problem(&self) -> Option<&StoreProblem> {
        self.problem.as_ref()
    }

    /// Draws the window and applies what the user asked for. `egui_kittest` drives this
    /// directly: `Harness::builder().build_ui_state(|ui, app: &mut App| app.ui(ui), app)`.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        if !self.style_installed {
            // Fonts apply from the next pass: draw nothing until then.
            widgets::install_style(ui.ctx());
            self.style_installed = true;
            ui.ctx().request_discard("Powderhorn fonts installed");
            return;
        }
        if let Some(outcome) = self.dialogs.poll() {
            self.dialog_done(outcome, ui.ctx());
        }
        self.poll_print();
        self.poll_balance(ui.ctx());
        self.poll_opponent(ui.ctx());
        self.campaign_frame();
        let selected = self.ui_state.battle_selected;
        let options = self
            .battle
            .as_mut()
            .and_then(|b| b.options_for(selected))
            .cloned();
        let can_undo = self
            .open
            .as_ref()
            .is_some_and(|s| self.history.can_undo(&s.id));
        let can_redo = self
            .open
            .as_ref()
            .is_some_and(|s| self.history.can_redo(&s.id));
        let commands = {
            let view = View {
                store_problem: self.problem.as_ref(),
                db_path: &self.db_path,
                lists: &self.lists,
                user_rows: &self.user_rows,
                scenarios: &self.scenarios,
                open: self.open.as_ref(),
                violations: &self.violations,
                advice: &self.advice,
                terrain_cover: self.terrain_cover,
                campaigns: &self.campaigns,
                campaign: self.campaign.as_ref(),
                campaign_runs: &self.runs.rows,
                campaign_run: self.runs.run.as_ref(),
                campaign_job: self.runs.job_status(),
                messages: &self.messages,
                can_undo,
                can_redo,
                dialog_open: self.dialogs.is_open(),
                job: self.printing.as_ref().map(|r| JobStatus {
                    what: r.job.what(),
                    note: r.job.note(),
                    progress: r.job.progress(),
                    stopping: r.job.is_cancelled(),
                }),
                battles: &self.battles,
                battle: self.battle.as_ref().map(|b| &b.panel),
                opponent: self.battle.as_ref().and_then(|b| b.opponent_status()),
                options: options.as_ref(),
                engine: self.battle.as_ref().map(|b| b.session.battle()),
            };
            ui::show(ui, &view, &mut self.ui_state)
        };
        files::fallback_window(ui.ctx(), &mut self.dialogs);
        let balance = self.balance_window(ui.ctx());
        let commands: Vec<AppCommand> = commands.into_iter().chain(balance).collect();
        if !commands.is_empty() {
            // This frame was drawn before the commands: show their effect at once.
            ui.ctx().request_repaint();
        }
        for c in commands {
            self.apply(c, ui.ctx());
        }
    }

    fn inform(&mut self, text: impl Into<String>) {
        self.push_message(Message {
            level: Level::Info,
            text: text.into(),
            action: None,
        });
    }

    fn fail(&mut self, text: impl Into<String>) {
        self.push_message(Message {
            level: Level::Error,
            text: text.into(),
            action: None,
        });
    }

    fn push_message(&mut self, m: Message) {
        self.messages.push(m);
        while self.messages.len() > MAX_MESSAGES {
            self.messages.remove(0);
        }
    }

    // --- reading from the store ------------------------------------------------------------

    fn reload_all(&mut self) {
        self.reload_lists();
        self.reload_scenarios();
        self.reload_campaigns();
        self.reload_battles();
    }

    fn reload_battles(&mut self) {
        let Some(store) = &self.store else { return };
        match store.battles() {
            Ok(rows) => self.battles = rows.iter().map(battle::row_of).collect(),
            Err(e) => self.fail(format!("Cannot read the stored battles: {e}")),
        }
    }

    /// Records the computer's actions that arrived since the last frame.
    fn poll_opponent(&mut self, ctx: &egui::Context) {
        let (Some(run), Some(store)) = (self.battle.as_mut(), self.store.as_mut()) else {
            return;
        };
        if run.opponent.is_none() {
            return;
        }
        let outcome = run.poll(store);
        // Keep drawing while it plays, so each action shows as it comes.
        ctx.request_repaint_after(std::time::Duration::from_millis(30));
        match outcome {
            Ok(true) if run.opponent.is_none() => self.reload_battles(),
            Ok(_) => {}
            Err(e) => {
                self.fail(format!(
                    "The computer's last action could not be stored, so it stopped: {e}"
                ));
                self.reload_battles();
            }
        }
    }

    /// Applies the Battles page's commands.
    fn apply_battle(&mut self, command: AppCommand) {
        use crate::session::{NewBattle, Session, SessionError};
        let Some(store) = self.store.as_mut() else {
            return;
        };
        let pace = self.ui_state.pace_ms;
        let refused = |e: &SessionError| match e {
            SessionError::Action(a) => format!("Refused: {a}"),
            other => other.to_string(),
        };
        match command {
            AppCommand::StartBattle(req) => {
                let scenario = match store.load_scenario(&req.scenario) {
                    Ok(s) => s,
                    Err(e) => return self.fail(format!("Cannot open the scenario: {e}")),
                };
                let mode = match (req.computer, req.referee) {
                    (Some(c), _) => crate::store::PlayMode::Solo { computer: c.min(1) },
                    (None, true) => crate::store::PlayMode::Referee,
                    (None, false) => crate::store::PlayMode::Hotseat,
                };
                let dice = if req.physical {
                    crate::rules::DiceSource::Physical
                } else {
                    crate::rules::DiceSource::Seed(
                        req.seed.unwrap_or_else(crate::session::fresh_seed),
                    )
                };
                let new = NewBattle {
                    dice,
                    orders: if req.full_orders {
                        crate::rules::command::OrdersMode::Full
                    } else {
                        crate::rules::command::OrdersMode::Free
                    },
                    first_player: req.first_player,
                    mode,
                    go_ahead: req.go_ahead,
                    fog: req.fog,
                };
                match Session::start(store, scenario, &self.lists, &new) {
                    Ok(s) => {
                        let name = s.record().scenario.name.clone();
                        self.battle = Some(battle::BattleRun::new(s, pace));
                        self.inform(format!("Battle of '{name}' started and stored."));
                        self.reload_battles();
                    }
                    Err(e) => self.fail(refused(&e)),
                }
            }
            AppCommand::OpenBattle(id) => {
                if let Some(mut old) = self.battle.take() {
                    old.stop_opponent();
                }
                match Session::resume(store, id) {
                    Ok(s) => self.battle = Some(battle::BattleRun::new(s, pace)),
                    Err(e) => self.fail(format!("Cannot resume battle {id}: {e}")),
                }
            }
            AppCommand::CloseBattle => {
                if let Some(mut old) = self.battle.take() {
                    old.stop_opponent();
                }
                self.reload_battles();
            }
            AppCommand::BattleAction(action) => {
                let dice = crate::session::parse_dice(&self.ui_state.start.dice);
                let Some(run) = self.battle.as_mut() else {
                    return;
                };
                let outcome = match dice {
                    Ok(d) => run.act(store, action, &d).map_err(|e| refused(&e)),
                    Err(why) => Err(why),
                };
                match outcome {
                    Ok(_) => {
                        self.ui_state.start.dice.clear();
                        self.reload_battles();
                    }
                    Err(e) => self.fail(e),
                }
            }
            AppCommand::BattleUndo | AppCommand::BattleRedo => {
                let undo = matches!(command, AppCommand::BattleUndo);
                let Some(run) = self.battle.as_mut() else {
                    return;
                };
                let r = if undo {
                    run.undo(store)
                } else {
                    run.redo(store)
                };
                match r {
                    Ok(_) => self.reload_battles(),
                    Err(e) => self.fail(refused(&e)),
                }
            }
            AppCommand::OpponentPlay => {
                let Some(run) = self.battle.as_mut() else {
                    return;
                };
                if let Err(e) = run.start_opponent() {
                    self.fail(format!("The computer cannot start: {e}"));
                }
            }
            AppCommand::OpponentStop => {
                if let Some(run) = self.battle.as_mut() {
                    run.stop_opponent();
                }
            }
            AppCommand::OpponentPace(ms) => {
                if let Some(run) = self.battle.as_mut() {
                    run.set_pace(ms);
                }
            }
            _ => {}
        }
    }

    fn reload_lists(&mut self) {
        let Some(store) = &self.store else { return };
        match store.army_lists() {
            Ok(lists) => {
                let mut user = BTreeSet::new();
                for l in &lists {
                    if let Ok(ids) = store.user_troop_types(&l.id) {
                        user.extend(ids.into_iter().map(|t| (l.id.clone(), t)));
                    }
                }
                self.lists = lists;
                self.user_rows = user;
            }
            Err(e) => self.fail(format!("Cannot read the army lists: {e}")),
        }
        self.revalidate();
    }

    fn reload_scenarios(&mut self) {
        let Some(store) = &self.store else { return };
        match store.scenario_summaries() {
            Ok(rows) => {
                self.scenarios = rows
                    .into_iter()
                    .map(|s| ScenarioRow {
                        id: s.id,
                        name: s.name,
                        date: s.date,
                        points: s.points,
                        optional_rules: s.optional_rules,
                        first_player: s.first_player,
                    })
                    .collect();
            }
            Err(e) => self.fail(format!("Cannot read the scenario list: {e}")),
        }
    }

    fn reload_campaigns(&mut self) {
        let Some(store) = &self.store else { return };
        match store.campaign_summaries() {
            Ok(rows) => self.campaigns = rows.into_iter().map(|c| (c.id, c.name)).collect(),
            Err(e) => self.fail(format!("Cannot read the campaigns: {e}")),
        }
        if self.campaign.is_none() {
            if let Some((id, _)) = self.campaigns.first().cloned() {
                self.open_campaign(&id);
            }
        }
    }

    fn revalidate(&mut self) {
        // What `scenario validate` reports: the army-building and data rules, and where the
        // pieces stand (off the table, overlapping, impassable ground, outside their zone).
        self.violations = match &self.open {
            Some(s) => {
                let mut v = validate_scenario(s, &self.lists);
                v.extend(crate::rules::state::placement_violations(s, &self.lists));
                v
            }
            None => Vec::new(),
        };
        // The cover once per edit, for the advice and the table editor alike.
        self.terrain_cover = match &self.open {
            Some(s) => self.cover_cache.cover(s),
            None => 0.0,
        };
        self.advice = match &self.open {
            Some(s) => scenario_advice_with_cover(s, self.terrain_cover),
            None => Vec::new(),
        };
    }

    fn open_campaign(&mut self, id: &CampaignId) {
        let Some(store) = &self.store else { return };
        match store.load_campaign(id) {
            Ok(c) => {
                let other = self.campaign.as_ref().is_none_or(|o| o.id != c.id);
                self.campaign = Some(c);
                if other {
                    self.runs.run = None;
                }
                self.reload_runs();
            }
            Err(e) => self.fail(format!("Cannot open campaign '{id}': {e}")),
        }
    }

    /// Opens the Battles page on a new solo battle of the stored scenario `scenario` (its id
    /// or its name), seeded with `seed`: what `POWDERHORN_START=battle:<scenario>` asks for
    /// (`tests/real_window.rs` opens the window on the sample's table this way). Returns what
    /// went wrong, in words, when no such scenario is stored or the battle does not start.
    pub fn start_battle_of(&mut self, scenario: &str, seed: u64) -> Result<(), String> {
        let Some(row) = self
            .scenarios
            .iter()
            .find(|s| s.id.as_str() == scenario || s.name == scenario)
        else {
            return Err(format!(
                "no stored scenario has the id or name '{scenario}': `powderhorn scenario list` \
                 shows them"
            ));
        };
        let req = crate::ui::battle::StartRequest {
            scenario: row.id.clone(),
            computer: Some(1),
            referee: false,
            physical: false,
            seed: Some(seed),
            full_orders: true,
            first_player: row.first_player,
            go_ahead: true,
            fog: false,
        };
        self.ui_state.page = Page::Battles;
        self.apply_battle(AppCommand::StartBattle(req));
        if self.battle.is_none() {
            return Err(format!("the battle of '{scenario}' did not start"));
        }
        Ok(())
    }

    // --- applying commands -----------------------------------------------------------------

    /// Applies one command: the only place the app's data and the database change.
    pub fn apply(&mut self, command: AppCommand, ctx: &egui::Context) {
        if command == AppCommand::StopCampaignJob {
            // The computer's campaign battle holds the store while it plays.
            return self.apply_campaign(command, ctx);
        }
        if self.store.is_none() {
            return; // the database could not be opened: nothing may be written
        }
        match command {
            c @ (AppCommand::StartBattle(_)
            | AppCommand::OpenBattle(_)
            | AppCommand::CloseBattle
            | AppCommand::BattleAction(_)
            | AppCommand::BattleUndo
            | AppCommand::BattleRedo
            | AppCommand::OpponentPlay
            | AppCommand::OpponentStop
            | AppCommand::OpponentPace(_)) => self.apply_battle(c),
            c @ (AppCommand::ExportBattleDialog
            | AppCommand::ExportBattleTo(_)
            | AppCommand::PrintResultDialog(_)
            | AppCommand::PrintResultTo { .. }) => self.apply_result(c, ctx),
            AppCommand::OpenScenario(id) => self.open_scenario_by_id(&id),
            AppCommand::Edit(e) => self.edit(&e),
            AppCommand::Undo => self.undo(),
            AppCommand::Redo => self.redo(),
            AppCommand::NewScenario { name, lists } => self.new_scenario(&name, &lists),
            AppCommand::DuplicateScenario(id) => self.duplicate(&id),
            AppCommand::DeleteScenario(id) => self.delete(&id),
            AppCommand::ImportScenarioDialog => self.dialogs.open_import(ctx),
            AppCommand::ImportScenarioReplacing(path) => self.import(&path, OnExisting::Replace),
            AppCommand::ExportScenarioDialog(id) => self.dialogs.open_export(ctx, id),
            AppCommand::SaveDiceLog { file_name, text } => {
                self.dialogs.open_save_text(ctx, file_name, text)
            }
            AppCommand::PrintDialog { scenario, print } => {
                self.runs.carried_print = None;
                if self.printing.is_none() {
                    let name = print::default_file_name(&scenario, &print);
                    self.dialogs.open_print(ctx, scenario, print, name);
                }
            }
            AppCommand::PrintTo {
                scenario,
                print,
                path,
            } => self.start_print(ctx, &scenario, print, path),
            AppCommand::Balance(ask) => self.apply_balance(ask, ctx),
            AppCommand::CancelJob => {
                if let Some(run) = &self.printing {
                    run.job.cancel();
                }
            }
            AppCommand::AddUserTroopType(list, row) => {
                let Some(store) = &mut self.store else { return };
                match store.add_user_troop_type(&list, &row) {
                    Ok(_) => {
                        self.inform(format!(
                            "Added '{}' to {}.",
                            row.name,
                            list_name(&self.lists, &list)
                        ));
                        self.reload_lists();
                    }
                    Err(e) => self.fail(format!("Cannot add '{}': {e}", row.name)),
                }
            }
            AppCommand::RemoveUserTroopType(list, row) => {
                let Some(store) = &mut self.store else { return };
                match store.remove_user_troop_type(&list, &row) {
                    Ok(_) => {
                        self.inform(format!("Removed troop type '{row}'."));
                        self.reload_lists();
                    }
                    Err(e) => self.fail(format!("Cannot remove '{row}': {e}")),
                }
            }
            AppCommand::SaveCampaign(c) => {
                let Some(store) = &mut self.store else { return };
                match store.save_campaign(&c) {
                    Ok(_) => {
                        self.inform(format!("Saved the campaign '{}'.", c.name));
                        self.campaign = Some(c);
                        self.reload_campaigns();
                    }
                    Err(e) => self.fail(format!("Cannot save campaign '{}': {e}", c.name)),
                }
            }
            AppCommand::OpenCampaign(id) => self.open_campaign(&id),
            c @ (AppCommand::NewCampaignRun { .. }
            | AppCommand::SelectCampaignRun(_)
            | AppCommand::DeleteCampaignRun(_)
            | AppCommand::PlayCampaignBattle { .. }
            | AppCommand::CarryCampaignBattle(_)
            | AppCommand::AutoplayCampaignBattle(_)
            | AppCommand::StopCampaignJob
            | AppCommand::EnterCampaignResult { .. }
            | AppCommand::PrintCarried { .. }) => self.apply_campaign(c, ctx),
            AppCommand::DismissMessage(i) => {
                if i < self.messages.len() {
                    self.messages.remove(i);
                }
            }
        }
    }

    fn open_scenario_by_id(&mut self, id: &crate::model::ScenarioId) {
        let Some(store) = &self.store else { return };
        match store.load_scenario(id) {
            Ok(s) => {
                // Remembered for the next start; a failure to remember loses nothing now.
                let _ = store.set_setting(LAST_SCENARIO, id.as_str());
                self.open = Some(s);
                self.ui_state.selection = Selection::Scenario;
                self.revalidate();
            }
            Err(e) => self.fail(format!("Cannot open scenario '{id}': {e}")),
        }
    }

    /// Saves `next` as the open scenario; on failure the open scenario is left as it was.
    fn save_open(&mut self, next: Scenario) -> bool {
        let Some(store) = &mut self.store else {
            return false;
        };
        // The open scenario is what the store holds: a table edit writes only its rows.
        let saved = match self.open.as_ref().filter(|o| o.id == next.id) {
            Some(before) => store.save_scenario_over(before, &next),
            None => store.save_scenario(&next),
        };
        match saved {
            Ok(_) => {
                let summary_changed =
                    self.scenarios
                        .iter()
                        .find(|r| r.id == next.id)
                        .is_none_or(|r| {
                            r.name != next.name
                                || r.date != next.date
                                || r.points != next.points
                                || r.optional_rules != next.optional_rules
                                || r.first_player != next.first_player
                        });
                self.open = Some(next);
                self.revalidate();
                if summary_changed {
                    self.reload_scenarios();
                }
                true
            }
            Err(e) => {
                self.fail(format!("The change was not saved: {e}"));
                false
            }
        }
    }

    fn edit(&mut self, e: &ui::ScenarioEdit) {
        let Some(current) = self.open.clone() else {
            return;
        };
        let mut next = current.clone();
        match edit::apply(&mut next, e, &self.lists) {
            Ok(created) => {
                if next == current {
                    return;
                }
                if self.save_open(next) {
                    self.history.record(current);
                    match created {
                        Created::Nothing => {}
                        Created::Side(s) => self.ui_state.selection = Selection::Side(s),
                        Created::Hq(s, h) => self.ui_state.selection = Selection::Hq(s, h),
                        Created::Unit(s, u) => self.ui_state.selection = Selection::Unit(s, u),
                    }
                }
            }
            Err(err) => self.fail(format!("Cannot make that change: {err}.")),
        }
    }

    fn undo(&mut self) {
        let Some(current) = self.open.clone() else {
            return;
        };
        let Some(prev) = self.history.undo(&current) else {
            return;
        };
        if !self.save_open(prev.clone()) {
            // Put the stacks back as they were: the database still holds `current`.
            let _ = self.history.redo(&prev);
        }
    }

    fn redo(&mut self) {
        let Some(current) = self.open.clone() else {
            return;
        };
        let Some(next) = self.history.redo(&current) else {
            return;
        };
        if !self.save_open(next.clone()) {
            let _ = self.history.undo(&next);
        }
    }

    fn new_scenario(&mut self, name: &str, lists: &[ListId; 2]) {
        let taken: Vec<_> = self.scenarios.iter().map(|s| s.id.clone()).collect();
        let id = edit::new_scenario_id(name, &taken);
        let s = edit::template(id.clone(), name, lists, &self.lists);
        let Some(store) = &mut self.store else { return };
        match store.save_scenario(&s) {
            Ok(_) => {
                self.reload_scenarios();
                self.inform(format!("Created scenario '{name}'."));
                self.open_scenario_by_id(&id);
                self.ui_state.page = Page::OrdersOfBattle;
            }
            Err(e) => self.fail(format!("Cannot create scenario '{name}': {e}")),
        }
    }

    fn duplicate(&mut self, id: &crate::model::ScenarioId) {
        let Some(store) = &mut self.store else { return };
        let mut s = match store.load_scenario(id) {
            Ok(s) => s,
            Err(e) => return self.fail(format!("Cannot copy scenario '{id}': {e}")),
        };
        let taken: Vec<_> = self.scenarios.iter().map(|r| r.id.clone()).collect();
        s.name = format!("{} (copy)", s.name);
        s.id = edit::new_scenario_id(&format!("{id} copy"), &taken);
        match store.save_scenario(&s) {
            Ok(_) => {
                self.inform(format!("Copied to '{}' ({}).", s.name, s.id));
                self.reload_scenarios();
            }
            Err(e) => self.fail(format!("Cannot copy scenario '{id}': {e}")),
        }
    }

    fn delete(&mut self, id: &crate::model::ScenarioId) {
        let Some(store) = &mut self.store else { return };
        match store.delete_scenario(id) {
            Ok(_) => {
                self.history.forget(id);
                if self.open.as_ref().is_some_and(|s| &s.id == id) {
                    self.open = None;
                    self.revalidate();
                }
                self.inform(format!("Deleted scenario '{id}'."));
                self.reload_scenarios();
            }
            Err(e) => self.fail(format!("Cannot delete scenario '{id}': {e}")),
        }
    }

    fn import(&mut self, path: &Path, on_existing: OnExisting) {
        let Some(store) = &mut self.store else { return };
        match import_scenario_file_with(store, path, on_existing) {
            Ok(id) => {
                self.history.forget(&id);
                self.reload_scenarios();
                let name = self
                    .scenarios
                    .iter()
                    .find(|s| s.id == id)
                    .map_or_else(|| id.to_string(), |s| s.name.clone());
                self.inform(format!("Imported '{name}' from {}.", path.display()));
                self.open_scenario_by_id(&id);
                self.ui_state.page = Page::OrdersOfBattle;
            }
            Err(ImportError::Exists { path: shown, id, name }) => self.push_message(Message {
                level: Level::Error,
                text: format!(
                    "{shown}: scenario '{id}' is already in the database as '{name}'. Replace it \
                     with the file's version? (The database copy is lost; export it first to keep it.)"
                ),
                action: Some(("Replace".to_string(), AppCommand::ImportScenarioReplacing(path.to_path_buf()))),
            }),
            Err(e) => self.fail(format!("Import failed: {e}")),
        }
    }

    fn dialog_done(&mut self, outcome: DialogOutcome, ctx: &egui::Context) {
        match outcome {
            DialogOutcome::Import(Some(path)) => self.import(&path, OnExisting::Refuse),
            DialogOutcome::Export(id, Some(path)) => {
                let Some(store) = &self.store else { return };
                match export_scenario_file(store, &id, &path) {
                    Ok(()) => self.inform(format!("Exported '{id}' to {}.", path.display())),
                    Err(e) => self.fail(format!("Export failed: {e}")),
                }
            }
            DialogOutcome::Print(id, print, Some(path)) => {
                self.start_print(ctx, &id, print, print::with_pdf_extension(path));
            }
            DialogOutcome::BattleFile(Some(path)) => {
                self.apply_result(AppCommand::ExportBattleTo(path), ctx);
            }
            DialogOutcome::ResultPdf(paper, Some(path)) => {
                let path = print::with_pdf_extension(path);
                self.apply_result(AppCommand::PrintResultTo { paper, path }, ctx);
            }
            DialogOutcome::Text(text, Some(path)) => {
                match files::write_atomically(&path, text.as_bytes()) {
                    Ok(()) => self.inform(format!("Saved the dice log to {}.", path.display())),
                    Err(e) => self.fail(format!(
                        "Could not save the dice log to {}: {e}. Choose a folder you can write to.",
                        path.display()
                    )),
                }
            }
            DialogOutcome::Import(None)
            | DialogOutcome::Text(_, None)
            | DialogOutcome::Export(_, None)
            | DialogOutcome::Print(_, _, None)
            | DialogOutcome::BattleFile(None)
            | DialogOutcome::ResultPdf(_, None) => {}
        }
    }

    // --- printing --------------------------------------------------------------------------

    /// Starts printing `print` of scenario `id` to `path` on a background job.
    fn start_print(
        &mut self,
        ctx: &egui::Context,
        id: &crate::model::ScenarioId,
        print: Print,
        path: PathBuf,
    ) {
        if self.print_busy() {
            return;
        }
        let carried = self.runs.carried_print.take().filter(|s| &s.id == id);
        let scenario = match carried.or_else(|| self.open.clone().filter(|s| &s.id == id)) {
            Some(s) => s,
            None => {
                let Some(store) = &self.store else { return };
                match store.load_scenario(id) {
                    Ok(s) => s,
                    Err(e) => return self.fail(format!("Cannot print scenario '{id}': {e}")),
                }
            }
        };
        let lists = self.lists.clone();
        let title = print::describe(&print, &scenario.name);
        let details = print::details(&print);
        let target = path.clone();
        let work =
            move |p: &jobs::Progress| print::print_to_file(&scenario, &lists, &print, &target, p);
        self.spawn_print(ctx, title, details, path, work);
    }

    /// Takes in the print job's progress and, once it has ended, reports how.
    fn poll_print(&mut self) {
        let Some(run) = &mut self.printing else {
            return;
        };
        let outcome = match run.job.poll() {
            JobPoll::Running => return,
            JobPoll::Done(outcome) => Some(outcome),
            JobPoll::Lost => None,
        };
        let Some(run) = self.printing.take() else {
            return;
        };
        let shown = run.path.display();
        let (title, details) = (&run.title, &run.details);
        let (written, level, text) = match outcome {
            Some(PrintOutcome::Written { bytes }) => (
                true,
                Level::Info,
                format!(
                    "Wrote {shown}: {title}, {details} ({}).",
                    print::size_text(bytes)
                ),
            ),
            Some(PrintOutcome::Failed(e)) => (
                false,
                Level::Error,
                format!("Could not print {title}: {e}. Nothing was written."),
            ),
            Some(PrintOutcome::Cancelled) => (
                false,
                Level::Info,
                format!("Stopped printing {title}: {shown} was not written."),
            ),
            None => (
                false,
                Level::Error,
                format!("Printing {title} failed with an internal error: {shown} was not written."),
            ),
        };
        let result = if written { Ok(()) } else { Err(text.clone()) };
        self.push_message(Message {
            level,
            text,
            action: None,
        });
        self.last_print = Some(PrintReport {
            path: run.path.clone(),
            progress: run.job.progress(),
            result,
        });
    }
}

fn list_name(lists: &[ArmyList], id: &ListId) -> String {
    lists
        .iter()
        .find(|l| &l.id == id)
        .map_or_else(|| id.to_string(), |l| l.name.clone())
}

/// What the user can do about a database that would not open, beyond the error's own text.
fn advice_for(error: &StoreError, db: &Path) -> String {
    let other = "Or start Powderhorn on another database file: powderhorn --db <other file>.";
    match error {
        StoreError::Locked { .. } => format!(
            "Another Powderhorn is using {}. Close it, then start Powderhorn again. {other}",
            db.display()
        ),
        StoreError::TooNew { .. } | StoreError::Unsupported { .. } => {
            format!("Use a newer Powderhorn for this file. {other}")
        }
        StoreError::ReadOnly { .. } => format!(
            "Make {} and its folder writable for your user (or copy the file to a folder you \
             own), then start Powderhorn again. {other}",
            db.display()
        ),
        StoreError::Busy { .. } => format!(
            "Close the other program that has {} open, then start Powderhorn again. {other}",
            db.display()
        ),
        StoreError::NotSqlite { .. } | StoreError::Corrupt { .. } | StoreError::Foreign { .. } => {
            format!(
            "Move the file aside (or restore it from a backup) and start Powderhorn again; a new, \
             empty database will be created. {other}"
        )
        }
        _ => format!("Check the file and its folder, then start Powderhorn again. {other}"),
    }
}

impl eframe::App for App {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        App::ui(self, ui);
    }

    #[cfg(feature = "glow")]
    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.settle_print_on_exit();
    }

    #[cfg(not(feature = "glow"))]
    fn on_exit(&mut self) {
        self.settle_print_on_exit();
    }
}

impl App {
    /// The window is closing while a PDF is being printed: give the job a few seconds to
    /// finish (the user asked for that file), then ask it to stop before writing, so that the
    /// process does not end half-way through a write.
    fn settle_print_on_exit(&mut self) {
        use std::time::{Duration, Instant};
        let Some(run) = &mut self.printing else {
            return;
        };
        let wait = |job: &mut Job<PrintOutcome>, for_how_long: Duration| {
            let until = Instant::now() + for_how_long;
            while Instant::now() < until {
                if !matches!(job.poll(), JobPoll::Running) {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            false
        };
        if !wait(&mut run.job, Duration::from_secs(5)) {
            run.job.cancel();
            let _ = wait(&mut run.job, Duration::from_secs(2));
        }
    }
}

/// Opens the database and the Powderhorn window, and returns when the window is closed.
///
/// If the database cannot be opened (locked by another instance, damaged, newer, not ours) the
/// window still opens and explains what happened and what to do; nothing is written.
pub fn run_gui(db: &Path) -> anyhow::Result<()> {
    let mut app = match Store::open(db) {
        Ok(store) => {
            let mut app = App::with_store(store, db.display().to_string());
            app.reopen_last_scenario();
            app
        }
        Err(e) => App::with_problem(db, &e),
    };
    // `POWDERHORN_START=battle:<scenario>`: open on a new battle of that scenario (a check
    // that the window opens and draws the table on a machine like a user's).
    if let Ok(start) = std::env::var("POWDERHORN_START") {
        let Some(scenario) = start.strip_prefix("battle:") else {
            anyhow::bail!(
                "POWDERHORN_START is '{start}': the only start it knows is battle:<scenario>"
            );
        };
        app.start_battle_of(scenario, 1)
            .map_err(|e| anyhow::anyhow!("POWDERHORN_START: {e}"))?;
    }
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Powderhorn")
            .with_app_id("powderhorn")
            .with_inner_size([1280.0, 800.0])
            .with_min_inner_size([960.0, 600.0]),
        #[cfg(feature = "glow")]
        renderer: eframe::Renderer::Glow,
        ..Default::default()
    };
    eframe::run_native(
        "Powderhorn",
        options,
        Box::new(move |cc| {
            let mut app = app;
            widgets::install_style(&cc.egui_ctx);
            app.style_installed = true;
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the Powderhorn window: {e}"))
}
