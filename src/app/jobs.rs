//! Background jobs with progress: work long enough to notice (writing a PDF now, auto-play
//! later) runs on a worker thread while the window keeps drawing.
//!
//! [`Job::spawn`] starts the work on a named thread and hands it a [`Progress`]: the work reports
//! the fraction done (0.0 to 1.0, never decreasing) and a short note of what it is doing, and
//! checks [`Progress::is_cancelled`] where stopping is safe. Every report wakes the window, so
//! nothing polls in a busy loop. The app calls [`Job::poll`] once a frame: it takes the reports
//! in and, when the work has returned, hands back its result. A worker that panics does not take
//! the window with it: the job ends as [`JobPoll::Lost`].
//!
//! Cancelling is cooperative: [`Job::cancel`] raises a flag the work reads; what "stop" means
//! (e.g. "do not write the file") is the work's business.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::Arc;

/// A report from the worker.
#[derive(Debug, Clone, PartialEq)]
enum Update {
    Fraction(f32),
    Note(String),
}

/// The worker's handle for reporting progress and reading the cancel flag.
pub struct Progress {
    tx: Sender<Update>,
    ctx: egui::Context,
    cancel: Arc<AtomicBool>,
    /// The last fraction sent, so reports never go backwards and tiny steps are not sent.
    sent: Cell<f32>,
}

/// Fractions closer than this to the last one sent are not worth a repaint.
const STEP: f32 = 0.005;

impl Progress {
    /// Reports the fraction done, clamped to 0.0..=1.0. A fraction lower than one already
    /// reported is ignored, so the bar never goes backwards; 1.0 is always reported.
    pub fn set(&self, fraction: f32) {
        let f = if fraction.is_nan() {
            0.0
        } else {
            fraction.clamp(0.0, 1.0)
        };
        let last = self.sent.get();
        let worth_it = f > last && (f - last >= STEP || f >= 1.0);
        if worth_it {
            self.sent.set(f);
            self.send(Update::Fraction(f));
        }
    }

    /// Says what the work is doing now ("Laying out pages", "Saving the file").
    pub fn note(&self, text: impl Into<String>) {
        self.send(Update::Note(text.into()));
    }

    /// Whether the user asked the job to stop.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    fn send(&self, update: Update) {
        // The job may have been dropped (window closed): nobody is listening, which is fine.
        if self.tx.send(update).is_ok() {
            self.ctx.request_repaint();
        }
    }
}

/// Wakes the window when the worker ends, whether it returned or panicked.
struct WakeOnDrop(egui::Context);

impl Drop for WakeOnDrop {
    fn drop(&mut self) {
        self.0.request_repaint();
    }
}

/// What [`Job::poll`] found.
#[derive(Debug, PartialEq)]
pub enum JobPoll<T> {
    /// Still working.
    Running,
    /// The work returned this.
    Done(T),
    /// The worker ended without a result (it panicked).
    Lost,
}

/// A piece of work running on its own thread, with its progress as last reported.
#[derive(Debug)]
pub struct Job<T> {
    what: String,
    note: String,
    progress: f32,
    updates: Receiver<Update>,
    result: Receiver<T>,
    cancel: Arc<AtomicBool>,
}

impl<T: Send + 'static> Job<T> {
    /// Starts `work` on a worker thread. `what` says what it is doing ("Writing the roster of
    /// …"); `ctx` is woken on every report and when the work ends.
    ///
    /// Fails only if the operating system will not start a thread.
    pub fn spawn(
        ctx: &egui::Context,
        what: impl Into<String>,
        work: impl FnOnce(&Progress) -> T + Send + 'static,
    ) -> std::io::Result<Job<T>> {
        let (tx, updates) = channel();
        let (done, result) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let progress = Progress {
            tx,
            ctx: ctx.clone(),
            cancel: Arc::clone(&cancel),
            sent: Cell::new(0.0),
        };
        let wake = WakeOnDrop(ctx.clone());
        std::thread::Builder::new()
            .name("powderhorn-job".to_string())
            .spawn(move || {
                let _wake = wake;
                let out = work(&progress);
                let _ = done.send(out);
            })?;
        Ok(Job {
            what: what.into(),
            note: String::new(),
            progress: 0.0,
            updates,
            result,
            cancel,
        })
    }
}

impl<T> Job<T> {
    /// Takes in the reports sent so far and, once the work has returned, its result.
    pub fn poll(&mut self) -> JobPoll<T> {
        self.drain();
        match self.result.try_recv() {
            Ok(out) => {
                // Reports sent just before the result.
                self.drain();
                JobPoll::Done(out)
            }
            Err(TryRecvError::Empty) => JobPoll::Running,
            Err(TryRecvError::Disconnected) => {
                self.drain();
                JobPoll::Lost
            }
        }
    }

    fn drain(&mut self) {
        while let Ok(update) = self.updates.try_recv() {
            match update {
                Update::Fraction(f) => self.progress = self.progress.max(f),
                Update::Note(n) => self.note = n,
            }
        }
    }

    /// What the job is doing, as given to [`Job::spawn`].
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The worker's last note.
    pub fn note(&self) -> &str {
        &self.note
    }

    /// The fraction done, as last reported (0.0 to 1.0).
    pub fn progress(&self) -> f32 {
        self.progress
    }

    /// Asks the work to stop; it reads the flag where stopping is safe.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether [`Job::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn wait<T>(job: &mut Job<T>) -> JobPoll<T> {
        let start = Instant::now();
        loop {
            match job.poll() {
                JobPoll::Running if start.elapsed() < Duration::from_secs(10) => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                other => return other,
            }
        }
    }

    #[test]
    fn reports_progress_and_the_result() {
        let ctx = egui::Context::default();
        let mut job = Job::spawn(&ctx, "counting", |p| {
            p.note("halfway");
            for i in 0..=100 {
                p.set(i as f32 / 100.0);
            }
            p.set(0.2); // going backwards is ignored
            p.note("done");
            42
        })
        .unwrap();
        assert_eq!(job.what(), "counting");
        assert_eq!(wait(&mut job), JobPoll::Done(42));
        assert_eq!(job.progress(), 1.0);
        assert_eq!(job.note(), "done");
    }

    #[test]
    fn progress_is_clamped_and_tiny_steps_are_not_sent() {
        let ctx = egui::Context::default();
        let mut job = Job::spawn(&ctx, "x", |p| {
            p.set(f32::NAN);
            p.set(-3.0);
            p.set(0.001);
            p.set(7.0);
        })
        .unwrap();
        assert_eq!(wait(&mut job), JobPoll::Done(()));
        assert_eq!(job.progress(), 1.0);
    }

    #[test]
    fn a_panicking_worker_is_lost_not_fatal() {
        let ctx = egui::Context::default();
        let mut job: Job<u8> = Job::spawn(&ctx, "doomed", |p| {
            p.set(0.5);
            panic!("worker fell over");
        })
        .unwrap();
        assert_eq!(wait(&mut job), JobPoll::Lost);
        assert_eq!(job.progress(), 0.5);
    }

    #[test]
    fn cancel_raises_the_flag_the_work_reads() {
        let ctx = egui::Context::default();
        let (go, wait_for_go) = channel::<()>();
        let mut job = Job::spawn(&ctx, "stoppable", move |p| {
            let _ = wait_for_go.recv();
            p.is_cancelled()
        })
        .unwrap();
        assert!(!job.is_cancelled());
        job.cancel();
        assert!(job.is_cancelled());
        go.send(()).unwrap();
        assert_eq!(wait(&mut job), JobPoll::Done(true));
    }
}
