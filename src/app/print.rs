//! Printing from the window: a roster or label sheets of a scenario, written to a PDF on a
//! background [`Job`] while a progress bar shows how far it has got.
//!
//! The work is [`print_to_file`]: `crate::export` lays the PDF out in memory (reporting its
//! progress), and only a complete PDF is written, atomically (`write_pdf_atomically`: temporary
//! file, `fsync`, rename), so an error or a cancel leaves no file and never a partial one. The
//! export's messages are meant for users (an empty order of battle, a missing troop type) and
//! are shown as they are.

use super::jobs::{Job, Progress};
use super::{App, PrintRun};
use crate::export::{
    labels_pdf_with_progress, roster_pdf_with_progress, write_pdf_atomically, ExportError, Per,
};
use crate::model::{ArmyList, Scenario, ScenarioId};
use crate::ui::Print;
use std::path::{Path, PathBuf};

/// How much of the bar laying out the PDF takes; saving the file is the rest.
const LAYOUT_SHARE: f32 = 0.9;

/// How a print job ended.
#[derive(Debug)]
pub enum PrintOutcome {
    /// The PDF is on disk, this many bytes.
    Written { bytes: usize },
    /// Nothing was written: why.
    Failed(ExportError),
    /// The user stopped it before the file was written; nothing was written.
    Cancelled,
}

/// What the last print job did, for the message area and the tests.
#[derive(Debug, Clone, PartialEq)]
pub struct PrintReport {
    pub path: PathBuf,
    /// The progress last reported: 1.0 once the file is written.
    pub progress: f32,
    /// `Ok` when the file was written, else the message shown.
    pub result: Result<(), String>,
}

/// Lays out the PDF, then writes it whole to `path` unless the job was cancelled.
/// Runs on the job's worker thread with owned copies of the scenario and lists.
pub fn print_to_file(
    scenario: &Scenario,
    lists: &[ArmyList],
    print: &Print,
    path: &Path,
    progress: &Progress,
) -> PrintOutcome {
    lay_out_and_write(path, progress, |report| match print {
        Print::Roster(opts) => roster_pdf_with_progress(scenario, lists, opts, report),
        Print::Labels(opts) => labels_pdf_with_progress(scenario, lists, opts, report),
    })
}

/// The body of every print job: lays the PDF out with `lay_out` (which reports its own progress
/// through the function it is given, 0 to 1, shown as the first [`LAYOUT_SHARE`] of the bar),
/// then writes it whole to `path` unless the job was cancelled.
pub fn lay_out_and_write(
    path: &Path,
    progress: &Progress,
    lay_out: impl FnOnce(&dyn Fn(f32)) -> Result<Vec<u8>, ExportError>,
) -> PrintOutcome {
    progress.note("Laying out the pages");
    let bytes = match lay_out(&|f| progress.set(f * LAYOUT_SHARE)) {
        Ok(b) => b,
        Err(e) => return PrintOutcome::Failed(e),
    };
    if progress.is_cancelled() {
        return PrintOutcome::Cancelled;
    }
    progress.note("Saving the file");
    match write_pdf_atomically(path, &bytes) {
        Ok(()) => {
            progress.set(1.0);
            PrintOutcome::Written { bytes: bytes.len() }
        }
        Err(e) => PrintOutcome::Failed(e),
    }
}

impl App {
    /// While a print job is still writing, says so and returns true: one job at a time.
    pub(super) fn print_busy(&mut self) -> bool {
        let Some(run) = &self.printing else {
            return false;
        };
        let busy = format!(
            "Still writing {}: wait for it to finish, then print again.",
            run.path.display()
        );
        self.fail(busy);
        true
    }

    /// Starts `work` as the app's print job, writing `title` (`details`) to `path`; its
    /// progress, Stop and outcome are taken in by `poll_print`.
    pub(super) fn spawn_print(
        &mut self,
        ctx: &egui::Context,
        title: String,
        details: String,
        path: PathBuf,
        work: impl FnOnce(&Progress) -> PrintOutcome + Send + 'static,
    ) {
        let what = format!("Writing {title} ({details}) to {}", path.display());
        match Job::spawn(ctx, what, work) {
            Ok(job) => {
                self.printing = Some(PrintRun {
                    job,
                    path,
                    title,
                    details,
                });
            }
            Err(e) => self.fail(format!("Cannot start printing {title}: {e}")),
        }
    }
}

/// "the roster of 'Ebelsberg'", "the labels (per unit) of 'Ebelsberg'".
pub fn describe(print: &Print, scenario_name: &str) -> String {
    match print {
        Print::Roster(_) => format!("the roster of '{scenario_name}'"),
        Print::Labels(o) => match o.per {
            Per::Stand => format!("the stand labels of '{scenario_name}'"),
            Per::Unit => format!("the unit labels of '{scenario_name}'"),
        },
    }
}

/// "all sides, A4" or "French only, Letter, brigade scale".
pub fn details(print: &Print) -> String {
    let side = print
        .side()
        .map_or_else(|| "all sides".to_string(), |s| format!("{} only", s.trim()));
    let mut out = format!("{side}, {}", print.paper().label());
    if let Print::Labels(o) = print {
        if let Some(scale) = o.scale {
            out.push_str(&format!(", {} scale", scale.label().to_lowercase()));
        }
    }
    out
}

/// The file name the save dialog suggests: `ebelsberg-roster.pdf`,
/// `ebelsberg-french-labels.pdf`.
pub fn default_file_name(scenario: &ScenarioId, print: &Print) -> String {
    let what = match print {
        Print::Roster(_) => "roster",
        Print::Labels(_) => "labels",
    };
    let side = print
        .side()
        .map(slug)
        .filter(|s| !s.is_empty())
        .map_or_else(String::new, |s| format!("-{s}"));
    format!("{}{side}-{what}.pdf", scenario.as_str())
}

/// A path the user typed without an extension gets `.pdf`.
pub fn with_pdf_extension(path: PathBuf) -> PathBuf {
    if path.extension().is_some() {
        path
    } else {
        path.with_extension("pdf")
    }
}

/// "Armée du Nord" → "armee-du-nord": file-name safe text of lower-case ASCII letters and
/// digits (common accents folded, apostrophes dropped), everything else a single dash.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.trim().chars().flat_map(char::to_lowercase) {
        let folded = match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => "a",
            'æ' => "ae",
            'ç' => "c",
            'è' | 'é' | 'ê' | 'ë' => "e",
            'ì' | 'í' | 'î' | 'ï' => "i",
            'ñ' => "n",
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' => "o",
            'ù' | 'ú' | 'û' | 'ü' => "u",
            'ý' | 'ÿ' => "y",
            'ß' => "ss",
            _ => "",
        };
        if c == '\'' || c == '’' {
            continue; // "Masséna's" → "massenas"
        }
        if !folded.is_empty() {
            out.push_str(folded);
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// "54 KB", "1.2 MB".
pub fn size_text(bytes: usize) -> String {
    if bytes < 1024 * 1024 {
        format!("{} KB", bytes.div_ceil(1024))
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{LabelOptions, Paper, RosterOptions};
    use crate::model::Scale;

    #[test]
    fn default_file_names_come_from_the_scenario_id_and_side() {
        let id = ScenarioId::new("ebelsberg-1809");
        let roster = Print::Roster(RosterOptions::default());
        assert_eq!(default_file_name(&id, &roster), "ebelsberg-1809-roster.pdf");
        let labels = Print::Labels(LabelOptions {
            side: Some("Armée du Nord".into()),
            ..LabelOptions::default()
        });
        assert_eq!(
            default_file_name(&id, &labels),
            "ebelsberg-1809-armee-du-nord-labels.pdf"
        );
        let french = Print::Roster(RosterOptions {
            side: Some("French: Masséna's advance guard".into()),
            paper: Paper::A4,
        });
        assert_eq!(
            default_file_name(&id, &french),
            "ebelsberg-1809-french-massenas-advance-guard-roster.pdf"
        );
    }

    #[test]
    fn details_name_side_paper_and_scale() {
        let p = Print::Labels(LabelOptions {
            per: Per::Unit,
            paper: Paper::Letter,
            scale: Some(Scale::Brigade),
            side: Some("French".into()),
        });
        assert_eq!(details(&p), "French only, Letter, brigade scale");
        assert_eq!(describe(&p, "Ebelsberg"), "the unit labels of 'Ebelsberg'");
        let r = Print::Roster(RosterOptions::default());
        assert_eq!(details(&r), "all sides, A4");
    }

    #[test]
    fn a_typed_name_without_extension_gets_pdf() {
        assert_eq!(
            with_pdf_extension(PathBuf::from("/tmp/x")),
            PathBuf::from("/tmp/x.pdf")
        );
        assert_eq!(
            with_pdf_extension(PathBuf::from("/tmp/x.PDF")),
            PathBuf::from("/tmp/x.PDF")
        );
    }

    fn wait(job: &mut super::super::jobs::Job<PrintOutcome>) -> Option<PrintOutcome> {
        use super::super::jobs::JobPoll;
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(60) {
            match job.poll() {
                JobPoll::Running => std::thread::sleep(std::time::Duration::from_millis(5)),
                JobPoll::Done(o) => return Some(o),
                JobPoll::Lost => return None,
            }
        }
        None
    }

    fn ebelsberg() -> (Scenario, Vec<ArmyList>) {
        let s = crate::model::samples::scenarios()
            .unwrap()
            .into_iter()
            .find(|s| s.id.as_str() == "1809-ebelsberg")
            .unwrap();
        (s, crate::model::army::shipped_lists().unwrap())
    }

    #[test]
    fn a_print_job_writes_the_pdf_and_reaches_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ebelsberg-roster.pdf");
        let (s, lists) = ebelsberg();
        let target = path.clone();
        let ctx = egui::Context::default();
        let mut job = super::super::jobs::Job::spawn(&ctx, "roster", move |p| {
            print_to_file(
                &s,
                &lists,
                &Print::Roster(RosterOptions::default()),
                &target,
                p,
            )
        })
        .unwrap();
        let outcome = wait(&mut job);
        assert!(
            matches!(outcome, Some(PrintOutcome::Written { bytes }) if bytes > 1000),
            "{outcome:?}"
        );
        assert_eq!(job.progress(), 1.0);
        assert!(std::fs::read(&path).unwrap().starts_with(b"%PDF-"));
    }

    #[test]
    fn a_cancelled_print_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.pdf");
        let (s, lists) = ebelsberg();
        let target = path.clone();
        let (go, wait_for_go) = std::sync::mpsc::channel::<()>();
        let ctx = egui::Context::default();
        let mut job = super::super::jobs::Job::spawn(&ctx, "labels", move |p| {
            let _ = wait_for_go.recv();
            print_to_file(
                &s,
                &lists,
                &Print::Labels(LabelOptions::default()),
                &target,
                p,
            )
        })
        .unwrap();
        job.cancel();
        go.send(()).unwrap();
        let outcome = wait(&mut job);
        assert!(
            matches!(outcome, Some(PrintOutcome::Cancelled)),
            "{outcome:?}"
        );
        assert!(!path.exists());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no temporary file left"
        );
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(size_text(1), "1 KB");
        assert_eq!(size_text(54 * 1024), "54 KB");
        assert_eq!(size_text(3 * 1024 * 1024 / 2), "1.5 MB");
    }
}
