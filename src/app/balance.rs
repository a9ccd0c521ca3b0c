//! The balance run of Scenario → Balance… (`ui::balance`): the games are played off the UI
//! thread by `session::balance::run_balance` (itself on as many threads as asked), with the
//! progress shared through a mutex and a repaint asked after each game, a stop flag for Stop,
//! and the finished run handed back over a channel. One run at a time.

use super::App;
use crate::ai::balance::BalanceReport;
use crate::ai::Policy;
use crate::model::ScenarioId;
use crate::session::balance::{
    duration_words, run_balance, thread_count, BalanceOptions, BalanceProgress, BalanceRun,
};
use crate::ui::balance::{BalanceAsk, BalanceLive, BalanceShown};
use crate::ui::AppCommand;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A run in progress.
#[derive(Debug)]
struct Work {
    scenario: ScenarioId,
    name: String,
    total: usize,
    threads: usize,
    policies: [Policy; 2],
    started: Instant,
    stop: Arc<AtomicBool>,
    live: Arc<Mutex<BalanceProgress>>,
    done: Receiver<Result<BalanceRun, String>>,
}

/// The balance runs of this window: the one in progress and the last report.
#[derive(Debug, Default)]
pub struct Balance {
    work: Option<Work>,
    last: Option<(ScenarioId, BalanceRun)>,
    note: String,
    error: Option<String>,
    /// The side names of the scenario the window is open for (None: unreadable), read when it
    /// opens.
    sides: Option<(ScenarioId, Option<[String; 2]>)>,
}

impl Balance {
    fn live(&self) -> Option<BalanceLive> {
        let w = self.work.as_ref()?;
        let p = w.live.lock().map_or(
            BalanceProgress {
                done: 0,
                total: w.total,
                elapsed: Duration::ZERO,
            },
            |p| *p,
        );
        let now = BalanceProgress {
            elapsed: w.started.elapsed(),
            ..p
        };
        Some(BalanceLive {
            done: now.done,
            total: now.total,
            elapsed: now.elapsed,
            eta: now.eta(),
            threads: w.threads,
            stopping: w.stop.load(Ordering::Relaxed),
            policies: w.policies,
        })
    }
}

impl App {
    /// Whether balance games are being played.
    pub fn balance_running(&self) -> bool {
        self.balance.work.is_some()
    }

    /// The last balance report and the scenario it is of.
    pub fn balance_report(&self) -> Option<(&ScenarioId, &BalanceReport)> {
        self.balance.last.as_ref().map(|(id, r)| (id, &r.report))
    }

    pub(super) fn apply_balance(&mut self, ask: BalanceAsk, ctx: &egui::Context) {
        match ask {
            BalanceAsk::Stop => {
                if let Some(w) = &self.balance.work {
                    w.stop.store(true, Ordering::Relaxed);
                }
            }
            BalanceAsk::Start {
                scenario,
                runs,
                threads,
                seed,
                policies,
            } => self.start_balance(ctx, scenario, runs, threads, seed, policies),
        }
    }

    fn start_balance(
        &mut self,
        ctx: &egui::Context,
        id: ScenarioId,
        runs: usize,
        threads: usize,
        seed: u64,
        policies: [Policy; 2],
    ) {
        if self.balance.work.is_some() {
            return;
        }
        self.balance.error = None;
        let Some(store) = &self.store else { return };
        let scenario = match store.load_scenario(&id) {
            Ok(s) => s,
            Err(e) => {
                self.balance.error = Some(format!(
                    "Cannot read scenario '{id}' to play it: {e}. Close this window and open the scenario from the list again."
                ));
                return;
            }
        };
        let name = scenario.name.clone();
        let lists = self.lists.clone();
        let runs = runs.max(1);
        let opts = BalanceOptions {
            runs,
            threads,
            seed,
            policies,
            ..BalanceOptions::default()
        };
        let stop = Arc::new(AtomicBool::new(false));
        let live = Arc::new(Mutex::new(BalanceProgress {
            done: 0,
            total: runs,
            elapsed: Duration::ZERO,
        }));
        let (tx, rx) = channel();
        let (stop2, live2, ctx2) = (Arc::clone(&stop), Arc::clone(&live), ctx.clone());
        let spawned = std::thread::Builder::new()
            .name("powderhorn-balance".to_string())
            .spawn(move || {
                let progress = |p: BalanceProgress| {
                    if let Ok(mut l) = live2.lock() {
                        if p.done > l.done {
                            *l = p;
                        }
                    }
                    ctx2.request_repaint();
                };
                let out = run_balance(&scenario, &lists, &opts, &stop2, &progress)
                    .map_err(|e| e.to_string());
                let _ = tx.send(out);
                ctx2.request_repaint();
            });
        match spawned {
            Ok(_) => {
                self.balance.work = Some(Work {
                    scenario: id,
                    name,
                    total: runs,
                    threads: thread_count(threads, runs),
                    policies,
                    started: Instant::now(),
                    stop,
                    live,
                    done: rx,
                });
            }
            Err(e) => {
                self.balance.error = Some(format!(
                    "Cannot start the games: the system would not start a thread ({e})."
                ))
            }
        }
    }

    /// Takes in the finished run, if it has finished.
    pub(super) fn poll_balance(&mut self, ctx: &egui::Context) {
        let Some(w) = &self.balance.work else { return };
        match w.done.try_recv() {
            Err(TryRecvError::Empty) => {
                // The time left moves on between games.
                ctx.request_repaint_after(Duration::from_millis(250));
            }
            Err(TryRecvError::Disconnected) => {
                let name = w.name.clone();
                self.balance.work = None;
                self.balance.error = Some(format!(
                    "The games of '{name}' stopped without a report (the player thread failed). Try again with fewer games."
                ));
            }
            Ok(Err(e)) => {
                let name = w.name.clone();
                self.balance.work = None;
                self.balance.error = Some(format!(
                    "Cannot play '{name}': {e}. Fix the scenario (Orders of battle page shows what is wrong) and start again."
                ));
            }
            Ok(Ok(run)) => {
                let id = w.scenario.clone();
                self.balance.work = None;
                let plural = |n: usize| if n == 1 { "" } else { "s" };
                self.balance.note = if run.stopped {
                    format!(
                        "Stopped after {} of {} games ({}); the report is of the games finished.",
                        run.report.games,
                        run.asked,
                        duration_words(run.elapsed)
                    )
                } else {
                    format!(
                        "{} game{} in {} on {} thread{}.",
                        run.report.games,
                        plural(run.report.games),
                        duration_words(run.elapsed),
                        run.threads,
                        plural(run.threads)
                    )
                };
                self.balance.last = Some((id, run));
            }
        }
    }

    /// Reads the side names of the scenario the window is open for when it opens (the form
    /// names the sides it offers a choice for); forgets them when it closes, so a renamed side
    /// shows the next time.
    fn read_balance_sides(&mut self) {
        let Some((id, _)) = &self.ui_state.balance.open else {
            self.balance.sides = None;
            return;
        };
        if self.balance.sides.as_ref().is_some_and(|(of, _)| of == id) {
            return;
        }
        let sides = self
            .store
            .as_ref()
            .and_then(|store| store.load_scenario(id).ok())
            .map(|sc| {
                let name = |i: usize| {
                    sc.sides
                        .get(i)
                        .map_or_else(|| format!("Side {}", i + 1), |s| s.name.clone())
                };
                [name(0), name(1)]
            });
        self.balance.sides = Some((id.clone(), sides));
    }

    /// Draws the balance window (when open) and returns what it asked for.
    pub(super) fn balance_window(&mut self, ctx: &egui::Context) -> Vec<AppCommand> {
        self.read_balance_sides();
        let live = self.balance.live();
        let shown = BalanceShown {
            live,
            report: self.balance.last.as_ref().map(|(_, r)| &r.report),
            report_of: self.balance.last.as_ref().map(|(id, _)| id),
            note: &self.balance.note,
            error: self.balance.error.as_deref(),
            sides: self.balance.sides.as_ref().and_then(|(_, s)| s.as_ref()),
        };
        crate::ui::balance::window(ctx, &shown, &mut self.ui_state.balance)
    }
}
