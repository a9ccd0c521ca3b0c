//! The campaigns page's side of the app (issue #19 item 5): the runs of the selected campaign,
//! the selected run as the page shows it, and its steps through `session::campaign` — begin a
//! run, play its next battle in the battle window, carry a finished battle into the next (by
//! itself when the page is shown again), let the computer play a battle in the background, and
//! print the next battle's roster with the carried strength.
//!
//! The computer's battle runs on a worker thread with the store lent to it (the one SQLite
//! connection cannot be shared, and the database file is locked to this window): while it runs,
//! nothing else is written, the page shows its progress and Stop, and the store comes back with
//! the result. Stopping leaves the battle stored, to resume.

use super::jobs::{Job, JobPoll};
use super::App;
use crate::session::campaign::{self as runs, NextBattle};
use crate::session::Session;
use crate::store::{PlayMode, RunStatus, Store};
use crate::ui::campaigns::{PlayHow, RunBattleState, RunBattleView, RunRow, RunView};
use crate::ui::commands::AppCommand;
use crate::ui::{JobStatus, Page, Print};

/// What the computer's battle hands back: the store it borrowed and what happened.
type Played = (Store, Result<String, String>);

/// The computer playing a run's battle in the background.
pub(super) struct CampaignJob {
    job: Job<Option<Played>>,
    run: i64,
}

/// The app's campaign-run state.
#[derive(Default)]
pub(super) struct CampaignRuns {
    pub rows: Vec<RunRow>,
    pub run: Option<RunView>,
    pub job: Option<CampaignJob>,
    /// The page was on screen last frame (coming back to it carries a finished battle).
    pub was_shown: bool,
    /// A carried scenario waiting for its print dialog (printed instead of the stored one).
    pub carried_print: Option<crate::model::Scenario>,
}

impl CampaignRuns {
    pub fn job_status(&self) -> Option<JobStatus<'_>> {
        self.job.as_ref().map(|j| JobStatus {
            what: j.job.what(),
            note: j.job.note(),
            progress: j.job.progress(),
            stopping: j.job.is_cancelled(),
        })
    }
}

impl App {
    /// The campaign run shown on the campaigns page.
    pub fn campaign_run(&self) -> Option<&RunView> {
        self.runs.run.as_ref()
    }

    /// Whether the computer is playing a campaign battle in the background.
    pub fn campaign_job_running(&self) -> bool {
        self.runs.job.is_some()
    }

    /// Called once a frame before drawing: takes in the computer's battle and, when the page
    /// comes back on screen, carries a battle that has ended.
    pub(super) fn campaign_frame(&mut self) {
        self.poll_campaign_job();
        let shown = self.ui_state.page == Page::Campaigns;
        if shown && !self.runs.was_shown && self.runs.job.is_none() {
            self.reload_runs();
            self.carry_if_over();
        }
        self.runs.was_shown = shown;
    }

    /// The runs of the selected campaign, and the selected run again from the store.
    pub(super) fn reload_runs(&mut self) {
        let Some(store) = &self.store else { return };
        let Some(c) = &self.campaign else {
            self.runs.rows.clear();
            self.runs.run = None;
            return;
        };
        match store.campaign_runs(Some(&c.id)) {
            Ok(rows) => {
                self.runs.rows = rows
                    .into_iter()
                    .map(|r| RunRow {
                        id: r.id,
                        name: r.name,
                        seed: r.seed,
                        played: r.played,
                        battles: r.battles,
                        ended: r.status == RunStatus::Ended,
                    })
                    .collect();
            }
            Err(e) => return self.fail(format!("Cannot read the runs of '{}': {e}", c.name)),
        }
        let keep = self
            .runs
            .run
            .as_ref()
            .map(|r| r.id)
            .filter(|id| self.runs.rows.iter().any(|r| r.id == *id))
            .or_else(|| self.runs.rows.last().map(|r| r.id));
        match keep {
            Some(id) => self.load_run(id),
            None => self.runs.run = None,
        }
    }

    fn load_run(&mut self, id: i64) {
        let Some(store) = &self.store else { return };
        let rec = match store.load_campaign_run(id) {
            Ok(r) => r,
            Err(e) => {
                self.runs.run = None;
                return self.fail(format!("Cannot open campaign run {id}: {e}"));
            }
        };
        let open = self
            .battle
            .as_ref()
            .map(|b| (b.session.id(), b.session.result().is_some()));
        let battles = rec
            .battles
            .iter()
            .map(|b| {
                let state = match (&b.end, b.battle_id) {
                    (Some(end), _) => RunBattleState::Played {
                        end: Box::new(end.end.clone()),
                        after: end.after.clone(),
                        result: end.result.clone(),
                        by_hand: end.hand.is_some(),
                    },
                    (None, Some(battle_id)) => {
                        let over = match open {
                            Some((open_id, over)) if open_id == battle_id => over,
                            _ => Session::resume(store, battle_id)
                                .is_ok_and(|s| s.result().is_some()),
                        };
                        RunBattleState::Started { battle_id, over }
                    }
                    (None, None) => RunBattleState::Ready,
                };
                RunBattleView {
                    pos: b.pos,
                    scenario: b.start.scenario.clone(),
                    start: b.start.start.clone(),
                    carry_in: b.start.carry_in.clone(),
                    state,
                }
            })
            .collect();
        let tally = crate::campaign::tally(&rec.campaign, &rec.forces);
        let side_names = rec.forces.side_names();
        self.runs.run = Some(RunView {
            id: rec.id,
            name: rec.name.clone(),
            seed: rec.seed,
            ended: rec.status == RunStatus::Ended,
            campaign: rec.campaign,
            side_names,
            battles,
            tally,
        });
    }

    /// Carries the selected run's next battle if it has ended: no bookkeeping for the player.
    fn carry_if_over(&mut self) {
        let Some(run) = &self.runs.run else { return };
        let over = run
            .next()
            .is_some_and(|b| matches!(b.state, RunBattleState::Started { over: true, .. }));
        if over {
            let id = run.id;
            self.carry(id);
        }
    }

    fn carry(&mut self, run: i64) {
        let Some(store) = self.store.as_mut() else {
            return;
        };
        match runs::finish_battle(store, run) {
            Ok(rec) => {
                let done = rec.played;
                let text = match rec.next() {
                    Some(n) => format!(
                        "Battle {done} is carried: battle {} ({}) is set up with what is left.",
                        n.pos + 1,
                        n.start.scenario.name
                    ),
                    None => format!("Battle {done} is carried: the campaign run is over."),
                };
                self.inform(text);
            }
            Err(e) => self.fail(format!("The battle could not be carried: {e}")),
        }
        self.reload_runs();
    }

    /// Applies the campaigns page's run commands.
    pub(super) fn apply_campaign(&mut self, command: AppCommand, ctx: &egui::Context) {
        match command {
            AppCommand::NewCampaignRun {
                campaign,
                name,
                seed,
            } => {
                let Some(store) = self.store.as_mut() else {
                    return;
                };
                match runs::begin_run(store, &campaign, seed, &name) {
                    Ok(id) => {
                        self.runs.run = None;
                        self.inform("A new run has begun: its first battle is set up.");
                        self.reload_runs();
                        self.load_run(id);
                    }
                    Err(e) => self.fail(format!("The run could not begin: {e}")),
                }
            }
            AppCommand::SelectCampaignRun(id) => {
                self.load_run(id);
                self.carry_if_over();
            }
            AppCommand::DeleteCampaignRun(id) => {
                let Some(store) = self.store.as_mut() else {
                    return;
                };
                match store.delete_campaign_run(id) {
                    Ok(()) => {
                        if self.runs.run.as_ref().is_some_and(|r| r.id == id) {
                            self.runs.run = None;
                        }
                        self.inform("The run was deleted.");
                        self.reload_runs();
                        self.reload_battles();
                    }
                    Err(e) => self.fail(format!("The run could not be deleted: {e}")),
                }
            }
            AppCommand::PlayCampaignBattle { run, how } => self.play_next(run, how),
            AppCommand::CarryCampaignBattle(run) => self.carry(run),
            AppCommand::AutoplayCampaignBattle(run) => self.autoplay(run, ctx),
            AppCommand::StopCampaignJob => {
                if let Some(j) = &self.runs.job {
                    j.job.cancel();
                }
            }
            AppCommand::EnterCampaignResult { run, result } => {
                let Some(store) = self.store.as_mut() else {
                    return;
                };
                match runs::enter_result(store, run, &self.lists, &result) {
                    Ok(rec) => self.inform(format!(
                        "The result of battle {} is entered, worked out by the rules and carried.",
                        rec.played
                    )),
                    Err(e) => self.fail(format!("The result was not entered: {e}")),
                }
                self.reload_runs();
            }
            AppCommand::PrintCarried { run, labels } => {
                let Some(next) = self
                    .runs
                    .run
                    .as_ref()
                    .filter(|r| r.id == run)
                    .and_then(|r| r.next())
                else {
                    return;
                };
                let scenario = next.scenario.clone();
                let print = if labels {
                    Print::Labels(Default::default())
                } else {
                    Print::Roster(Default::default())
                };
                let name = super::print::default_file_name(&scenario.id, &print);
                let id = scenario.id.clone();
                self.runs.carried_print = Some(scenario);
                if self.printing.is_none() {
                    self.dialogs.open_print(ctx, id, print, name);
                }
            }
            _ => {}
        }
    }

    fn play_next(&mut self, run: i64, how: PlayHow) {
        let Some(view) = self.runs.run.as_ref().filter(|r| r.id == run) else {
            return;
        };
        let Some(next) = view.next() else { return };
        let scenario_side = |campaign_side: usize| {
            view.campaign
                .battles
                .get(next.pos)
                .and_then(|b| b.scenario_side(campaign_side, next.scenario.sides.len()))
                .unwrap_or(campaign_side)
        };
        // SEQ-01: a referee names the side that won the roll-off on the table when the
        // scenario leaves the first move to one; otherwise the scenario or the run's dice say.
        let first_player = match how {
            PlayHow::Referee { won_roll_off } if next.scenario.first_player.is_none() => {
                Some(scenario_side(won_roll_off).min(1))
            }
            _ => None,
        };
        let (mode, physical) = match how {
            PlayHow::Solo { computer } => (
                PlayMode::Solo {
                    computer: scenario_side(computer).min(1),
                },
                false,
            ),
            PlayHow::Hotseat => (PlayMode::Hotseat, false),
            PlayHow::Referee { .. } => (PlayMode::Referee, true),
            PlayHow::Computer => (PlayMode::Computer, false),
        };
        let Some(store) = self.store.as_mut() else {
            return;
        };
        let how = NextBattle {
            mode,
            physical,
            full_orders: true,
            fog: false,
            first_player,
        };
        match runs::start_next(store, run, &self.lists, how) {
            Ok(session) => {
                if let Some(mut old) = self.battle.take() {
                    old.stop_opponent();
                }
                self.battle = Some(super::battle::BattleRun::new(
                    session,
                    self.ui_state.pace_ms,
                ));
                self.reload_battles();
                self.load_run(run);
                self.ui_state.page = Page::Battles;
            }
            Err(e) => self.fail(format!("The next battle could not be opened: {e}")),
        }
    }

    fn autoplay(&mut self, run: i64, ctx: &egui::Context) {
        if self.runs.job.is_some() {
            return self.fail("The computer is already playing a battle: wait for it or stop it.");
        }
        let Some(next) = self
            .runs
            .run
            .as_ref()
            .filter(|r| r.id == run)
            .and_then(|r| r.next())
        else {
            return;
        };
        let what = format!(
            "The computer is playing battle {} ({})",
            next.pos + 1,
            next.scenario.name
        );
        let turns = next.scenario.turn_limit.max(1) as f32;
        // The battle window must not hold the battle the worker plays.
        if let Some(open) = &self.battle {
            if matches!(next.state, RunBattleState::Started { battle_id, .. } if battle_id == open.session.id())
            {
                if let Some(mut old) = self.battle.take() {
                    old.stop_opponent();
                }
            }
        }
        let Some(store) = self.store.take() else {
            return;
        };
        let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(store)));
        let lent = std::sync::Arc::clone(&slot);
        let lists = self.lists.clone();
        let spawned = Job::spawn(ctx, what, move |p| {
            let mut store = lent.lock().ok().and_then(|mut s| s.take())?;
            let mut keep_going = |b: &crate::rules::Battle| {
                let t = b.state().turn.game_turn;
                p.set((t.saturating_sub(1)) as f32 / turns);
                p.note(format!("· game turn {t}"));
                !p.is_cancelled()
            };
            let out = match runs::autoplay_next(&mut store, run, &lists, &mut keep_going) {
                Ok((_, rec)) => Ok(match rec.next() {
                    Some(n) => format!(
                        "The computer played battle {} and it is carried: battle {} ({}) is next.",
                        rec.played,
                        n.pos + 1,
                        n.start.scenario.name
                    ),
                    None => format!(
                        "The computer played battle {} and it is carried: the run is over.",
                        rec.played
                    ),
                }),
                Err(e) if p.is_cancelled() => Err(format!(
                    "Stopped. The battle is stored as it stood: resume it, or let the computer \
                     carry on ({e})."
                )),
                Err(e) => Err(format!("The computer could not play the battle: {e}")),
            };
            Some((store, out))
        });
        match spawned {
            Ok(job) => self.runs.job = Some(CampaignJob { job, run }),
            Err(e) => {
                self.store = slot.lock().ok().and_then(|mut s| s.take());
                self.fail(format!("Cannot start the computer's battle: {e}"));
            }
        }
    }

    fn poll_campaign_job(&mut self) {
        let Some(j) = self.runs.job.as_mut() else {
            return;
        };
        let polled = j.job.poll();
        let run = j.run;
        match polled {
            JobPoll::Running => {}
            JobPoll::Done(Some((store, out))) => {
                self.runs.job = None;
                self.store = Some(store);
                match out {
                    Ok(text) => self.inform(text),
                    Err(text) => self.fail(text),
                }
                self.reload_battles();
                self.reload_runs();
                self.load_run(run);
            }
            JobPoll::Done(None) | JobPoll::Lost => {
                self.runs.job = None;
                self.fail(
                    "The computer's battle ended unexpectedly and the database was closed with \
                     it; nothing half-done was kept. Close and reopen Powderhorn to go on.",
                );
            }
        }
    }
}
