//! The solo opponent on a worker thread, so the window never freezes while it thinks.
//!
//! The worker plays a copy of the battle ([`Battle::fork`]) with [`ai::play`] and sends each
//! action's log entry back as it is made; the window's session records it
//! ([`super::Session::commit_entry`]: the same events applied, and stored) and draws it. The
//! entries arrive one at a time at the pace the player sets, which can be changed (or skipped to
//! zero) while it runs; Stop ends the worker after the action in hand. Since the copy and the
//! session apply the same events in the same order, both stay the same battle.

use crate::ai::{self, AutoplayRun, Limits, Until};
use crate::rules::battle::{Battle, LogEntry};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// What the worker sends.
#[derive(Debug)]
pub enum FromOpponent {
    /// One action the opponent made, with its events.
    Entry(LogEntry),
    /// The opponent handed back: why, and what it did.
    Done(AutoplayRun),
}

/// A running opponent.
pub struct Opponent {
    rx: Receiver<FromOpponent>,
    stop: Arc<AtomicBool>,
    pace_ms: Arc<AtomicU64>,
    handle: Option<JoinHandle<()>>,
    finished: bool,
}

impl Opponent {
    /// Starts the opponent on `battle` (a fork of the session's battle) for `sides`.
    pub fn spawn(mut battle: Battle, sides: [bool; 2], until: Until, pace: Duration) -> Opponent {
        let (tx, rx) = channel();
        let stop = Arc::new(AtomicBool::new(false));
        let pace_ms = Arc::new(AtomicU64::new(
            u64::try_from(pace.as_millis()).unwrap_or(u64::MAX),
        ));
        let (stop_w, pace_w) = (stop.clone(), pace_ms.clone());
        let handle = std::thread::spawn(move || {
            let mut sent = battle.entries().len();
            let mut after = |b: &Battle| -> bool {
                let entries = b.entries();
                for e in entries.get(sent..).unwrap_or(&[]) {
                    if tx.send(FromOpponent::Entry(e.clone())).is_err() {
                        return false; // the window went away
                    }
                }
                sent = entries.len();
                // The pace, in slices so Stop and a new pace are felt at once.
                let mut waited = 0;
                while waited < pace_w.load(Ordering::Relaxed) && !stop_w.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(10));
                    waited += 10;
                }
                !stop_w.load(Ordering::Relaxed)
            };
            let run = ai::play(&mut battle, &Limits::default(), sides, until, &mut after);
            let _ = tx.send(FromOpponent::Done(run));
        });
        Opponent {
            rx,
            stop,
            pace_ms,
            handle: Some(handle),
            finished: false,
        }
    }

    /// Everything the worker has sent since the last call, in order.
    pub fn poll(&mut self) -> Vec<FromOpponent> {
        let mut out = Vec::new();
        loop {
            match self.rx.try_recv() {
                Ok(m) => {
                    if matches!(m, FromOpponent::Done(_)) {
                        self.finished = true;
                    }
                    out.push(m);
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.finished = true;
                    break;
                }
            }
        }
        out
    }

    /// Asks the opponent to stop after the action in hand.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn is_stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The pause after each action (zero: as fast as it thinks).
    pub fn set_pace(&self, pace: Duration) {
        self.pace_ms.store(
            u64::try_from(pace.as_millis()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    /// The worker sent its last message (or died).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Waits for the worker to end (after Stop, or when it is finished).
    pub fn join(mut self) {
        self.stop();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Opponent {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
