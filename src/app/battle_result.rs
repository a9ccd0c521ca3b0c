//! The result page's commands: export the open battle as a battle file, and print its result
//! as a PDF.
//!
//! The battle file is the session's own ([`crate::session::Session::battle_file`], what
//! `powderhorn battle export` writes), written whole or not at all (`files::write_atomically`).
//! The PDF is laid out by `crate::export::result_pdf_with_progress` from the battle's
//! [`ResultReport`] on the app's one background print job, with its progress bar, its Stop and
//! its "Wrote …" message, exactly like a roster.

use super::files::{write_atomically, DialogOutcome};
use super::jobs::Progress;
use super::print::{lay_out_and_write, PrintOutcome};
use super::App;
use crate::export::{result_pdf_with_progress, Paper};
use crate::rules::report::ResultReport;
use crate::ui::AppCommand;
use std::path::{Path, PathBuf};

impl App {
    /// Applies the result page's commands.
    pub(super) fn apply_result(&mut self, command: AppCommand, ctx: &egui::Context) {
        match command {
            AppCommand::ExportBattleDialog => {
                let Some(name) = self.battle.as_ref().map(|r| file_stem(&r.session)) else {
                    return self.fail("No battle is open, so there is nothing to export.");
                };
                self.dialogs.open_save(
                    ctx,
                    "Export the battle file",
                    ("Battle file (JSON)", "json"),
                    format!("{name}.json"),
                    DialogOutcome::BattleFile,
                );
            }
            AppCommand::ExportBattleTo(path) => self.export_battle(&path),
            AppCommand::PrintResultDialog(paper) => {
                if self.printing.is_some() {
                    return;
                }
                let Some(name) = self.battle.as_ref().map(|r| file_stem(&r.session)) else {
                    return self.fail("No battle is open, so there is no result to print.");
                };
                self.dialogs.open_save(
                    ctx,
                    "Save the result as PDF",
                    ("PDF", "pdf"),
                    format!("{name}-result.pdf"),
                    move |path| DialogOutcome::ResultPdf(paper, path),
                );
            }
            AppCommand::PrintResultTo { paper, path } => self.print_result(ctx, paper, path),
            _ => {}
        }
    }

    fn export_battle(&mut self, path: &Path) {
        let Some(run) = self.battle.as_ref() else {
            return self.fail("No battle is open, so there is nothing to export.");
        };
        let title = run.session.record().scenario.name.clone();
        let actions = run.session.battle().entries().len();
        let text = match serde_json::to_string_pretty(&run.session.battle_file()) {
            Ok(t) => t + "\n",
            Err(e) => {
                return self.fail(format!(
                    "Could not write the battle of '{title}' as JSON: {e}. Nothing was written."
                ))
            }
        };
        match write_atomically(path, text.as_bytes()) {
            Ok(()) => self.inform(format!(
                "Wrote the battle file of '{title}' ({actions} actions) to {}.",
                path.display()
            )),
            Err(e) => self.fail(format!(
                "Could not write {}: {e}. Check the folder exists and may be written to; the \
                 file was not changed.",
                path.display()
            )),
        }
    }

    fn print_result(&mut self, ctx: &egui::Context, paper: Paper, path: PathBuf) {
        if self.print_busy() {
            return;
        }
        let Some(run) = self.battle.as_ref() else {
            return self.fail("No battle is open, so there is no result to print.");
        };
        let report = ResultReport::of(run.session.battle());
        if !report.ended() {
            return self
                .fail("This battle is not over yet: its result can be printed once it has ended.");
        }
        let title = format!("the result of '{}'", report.title);
        let details = paper.label().to_string();
        let target = path.clone();
        let work = move |p: &Progress| print_result_to_file(&report, paper, &target, p);
        self.spawn_print(ctx, title, details, path, work);
    }
}

/// Lays out the result PDF, then writes it whole to `path` unless the job was cancelled.
pub fn print_result_to_file(
    report: &ResultReport,
    paper: Paper,
    path: &Path,
    progress: &Progress,
) -> PrintOutcome {
    lay_out_and_write(path, progress, |set| {
        result_pdf_with_progress(report, paper, set)
    })
}

/// "1809-ebelsberg-battle-3": the scenario's id and the battle's number.
fn file_stem(session: &crate::session::Session) -> String {
    let rec = session.record();
    format!("{}-battle-{}", rec.scenario.id.as_str(), rec.id)
}
