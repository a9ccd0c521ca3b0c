//! Plays the games of a balance report (`ai::balance`) on several threads.
//!
//! Game k is played with the dice seed [`game_seed`]`(seed, k)` by the solo opponent on both
//! sides, each side with its [`Policy`] (`ai::autoplay_with`; both standard unless asked otherwise,
//! `battle balance --policy`), from a fresh battle of the scenario; the threads take the next game to play from a
//! shared counter, and the records are put back in game order before the report is made, so
//! the report is the same whatever the number of threads (only the time differs). A stop flag
//! is read between games: the games already finished make a valid (smaller) report.
//!
//! Layering: above `ai` and `rules`; below `app` and `cli`. Threads and the clock live here,
//! not in the pure `ai` layer. No egui.

use crate::ai::balance::{game_seed, BalanceReport, BalanceSetup, GameRecord};
use crate::ai::{autoplay_with, Limits, Policy};
use crate::model::army::ArmyList;
use crate::model::scenario::Scenario;
use crate::rules::battle::Battle;
use crate::rules::dice::DiceSource;
use crate::rules::state::SetupError;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How many games, on how many threads, from which seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BalanceOptions {
    pub runs: usize,
    /// 0: as many as the machine has cores.
    pub threads: usize,
    /// The seed of game 0 (game k: seed + k).
    pub seed: u64,
    pub limits: Limits,
    /// How each side is played: the standard opponent, or the `hold` baseline.
    pub policies: [Policy; 2],
}

impl Default for BalanceOptions {
    fn default() -> Self {
        BalanceOptions {
            runs: 100,
            threads: 0,
            seed: 1,
            limits: Limits::default(),
            policies: [Policy::Standard; 2],
        }
    }
}

/// Where a run stands, as reported after every game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BalanceProgress {
    pub done: usize,
    pub total: usize,
    pub elapsed: Duration,
}

impl BalanceProgress {
    /// The time left if the games still to play take as long as those played: elapsed ·
    /// (total − done) / done. None before the first game has finished.
    pub fn eta(&self) -> Option<Duration> {
        if self.done == 0 {
            return None;
        }
        let left = self.total.saturating_sub(self.done) as f64;
        Some(self.elapsed.mul_f64(left / self.done as f64))
    }

    pub fn fraction(&self) -> f32 {
        if self.total == 0 {
            1.0
        } else {
            (self.done as f32 / self.total as f32).min(1.0)
        }
    }
}

/// "1 min 05 s", "12.3 s".
pub fn duration_words(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 {
        let whole = s.round() as u64;
        format!("{} min {:02} s", whole / 60, whole % 60)
    } else {
        format!("{s:.1} s")
    }
}

/// The outcome of a run: the report of the games finished, and how long they took.
#[derive(Debug, Clone, PartialEq)]
pub struct BalanceRun {
    pub report: BalanceReport,
    /// Games asked for.
    pub asked: usize,
    /// The stop flag ended the run before all the games were played.
    pub stopped: bool,
    pub elapsed: Duration,
    /// Threads used.
    pub threads: usize,
}

/// The thread count `asked` means on this machine (0: all cores), never more than the games.
pub fn thread_count(asked: usize, runs: usize) -> usize {
    let t = if asked == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        asked
    };
    t.clamp(1, runs.max(1))
}

/// Plays `opts.runs` games of `scenario` and reports their balance. `progress` is called after
/// each game from the thread that played it; `stop` is read before each game is begun.
///
/// Fails only when the scenario cannot be set up as a battle (before any game is played).
pub fn run_balance(
    scenario: &Scenario,
    lists: &[ArmyList],
    opts: &BalanceOptions,
    stop: &AtomicBool,
    progress: &(dyn Fn(BalanceProgress) + Sync),
) -> Result<BalanceRun, SetupError> {
    let started = Instant::now();
    let fresh =
        |seed: u64| Battle::opening(scenario.clone(), lists.to_vec(), DiceSource::Seed(seed));
    let setup = BalanceSetup::of(&fresh(game_seed(opts.seed, 0))?, opts.policies);
    let threads = thread_count(opts.threads, opts.runs);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let records: Mutex<Vec<GameRecord>> = Mutex::new(Vec::with_capacity(opts.runs));
    let total = opts.runs;
    let worker = || {
        let mut mine = Vec::new();
        loop {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= total {
                break;
            }
            let index = k as u64;
            // The setup succeeded once; the same scenario with another seed cannot fail, but
            // a failure would only leave this game out.
            let Ok(mut battle) = fresh(game_seed(opts.seed, index)) else {
                continue;
            };
            // With both sides standard this is `autoplay`: the game `battle autoplay` plays.
            let run = autoplay_with(&mut battle, &opts.limits, opts.policies);
            mine.push(GameRecord::of(index, &setup, &battle, &run));
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress(BalanceProgress {
                done: n,
                total,
                elapsed: started.elapsed(),
            });
        }
        if let Ok(mut all) = records.lock() {
            all.append(&mut mine);
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(worker);
        }
        worker();
    });
    let mut games = records.into_inner().unwrap_or_else(|e| e.into_inner());
    games.sort_by_key(|g| g.index);
    let report = BalanceReport::from_games(&setup, &games);
    Ok(BalanceRun {
        stopped: games.len() < total,
        asked: total,
        report,
        elapsed: started.elapsed(),
        threads,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_scales_the_time_so_far() {
        let p = BalanceProgress {
            done: 25,
            total: 100,
            elapsed: Duration::from_secs(5),
        };
        // 5 s for 25 games: 75 more take 15 s.
        assert_eq!(p.eta(), Some(Duration::from_secs(15)));
        assert_eq!(p.fraction(), 0.25);
        let none = BalanceProgress { done: 0, ..p };
        assert_eq!(none.eta(), None);
        assert_eq!(duration_words(Duration::from_millis(12_340)), "12.3 s");
        assert_eq!(duration_words(Duration::from_secs(65)), "1 min 05 s");
    }

    #[test]
    fn thread_count_is_at_least_one_and_at_most_the_games() {
        assert_eq!(thread_count(3, 2), 2);
        assert_eq!(thread_count(3, 10), 3);
        assert_eq!(thread_count(5, 0), 1);
        assert!(thread_count(0, 1000) >= 1);
    }
}
