//! Scenario files: import and export behind the window's file dialogs.
//!
//! The code behind the dialog ([`import_scenario_file`], [`export_scenario_file`]) is plain and
//! tested; the dialogs themselves (`rfd`) run on a worker thread and hand the chosen path back
//! over a channel ([`Dialogs`]), so the window keeps drawing while one is open and tests never
//! open one.
//!
//! The same worker hands back where to save a printed PDF ([`Dialogs::open_print`]); the
//! printing itself is a background job (`super::print`, `super::jobs`).
//!
//! Import reads, parses (`parse_scenario` names file:line:column) and refuses to replace a
//! scenario already in the database unless asked. Export writes a temporary file beside the
//! target and renames it over, so a crash or full disk never leaves a half-written file.

use crate::model::{parse_scenario, scenario_to_json, ScenarioFileError, ScenarioId};
use crate::store::{Store, StoreError};
use crate::ui::Print;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, TryRecvError};

/// Why a scenario file could not be imported. Each message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Parse(#[from] ScenarioFileError),
    #[error(
        "{path}: scenario '{id}' is already in the database as '{name}'. Choose Replace to \
         overwrite it, or give the file's scenario another \"id\"."
    )]
    Exists {
        path: String,
        id: ScenarioId,
        name: String,
    },
    #[error("{path}: {source}")]
    Store {
        path: String,
        #[source]
        source: Box<StoreError>,
    },
}

/// Why a scenario could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("cannot load scenario '{id}': {source}")]
    Load {
        id: ScenarioId,
        #[source]
        source: Box<StoreError>,
    },
    #[error("cannot write scenario '{id}' as JSON: {source}")]
    Json {
        id: ScenarioId,
        #[source]
        source: serde_json::Error,
    },
    #[error("cannot write {path}: {source}. The file was not changed.")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Whether an import may overwrite a scenario with the same id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnExisting {
    Refuse,
    Replace,
}

/// Imports a scenario file, refusing to replace a scenario already in the database.
pub fn import_scenario_file(store: &mut Store, path: &Path) -> Result<ScenarioId, ImportError> {
    import_scenario_file_with(store, path, OnExisting::Refuse)
}

/// Imports a scenario file; `OnExisting::Replace` is the user's "yes, replace it".
pub fn import_scenario_file_with(
    store: &mut Store,
    path: &Path,
    on_existing: OnExisting,
) -> Result<ScenarioId, ImportError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ImportError::Read {
        path: shown.clone(),
        source,
    })?;
    let scenario = parse_scenario(&shown, &text)?;
    if on_existing == OnExisting::Refuse {
        let existing = store
            .scenario_summaries()
            .map_err(|source| ImportError::Store {
                path: shown.clone(),
                source: Box::new(source),
            })?;
        if let Some(s) = existing.iter().find(|s| s.id == scenario.id) {
            return Err(ImportError::Exists {
                path: shown,
                id: scenario.id.clone(),
                name: s.name.clone(),
            });
        }
    }
    store
        .save_scenario(&scenario)
        .map_err(|source| ImportError::Store {
            path: shown,
            source: Box::new(source),
        })?;
    Ok(scenario.id)
}

/// Exports a scenario from the store to `path` as scenario JSON, atomically.
pub fn export_scenario_file(
    store: &Store,
    id: &ScenarioId,
    path: &Path,
) -> Result<(), ExportError> {
    let scenario = store
        .load_scenario(id)
        .map_err(|source| ExportError::Load {
            id: id.clone(),
            source: Box::new(source),
        })?;
    let mut text = scenario_to_json(&scenario).map_err(|source| ExportError::Json {
        id: id.clone(),
        source,
    })?;
    text.push('\n');
    write_atomically(path, text.as_bytes()).map_err(|source| ExportError::Write {
        path: path.display().to_string(),
        source,
    })
}

/// Writes `bytes` to a temporary file in `path`'s folder, flushes it to disk and renames it
/// over `path`. On any failure the temporary file is removed and `path` is untouched.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no file name"))?;
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// What a file dialog returned.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogOutcome {
    Import(Option<PathBuf>),
    Export(ScenarioId, Option<PathBuf>),
    /// Where to save a PDF of `print` of the scenario.
    Print(ScenarioId, Print, Option<PathBuf>),
    /// Where to save the open battle's battle file.
    BattleFile(Option<PathBuf>),
    /// Where to save the open battle's result as PDF on this paper.
    ResultPdf(crate::export::Paper, Option<PathBuf>),
    /// Where to save a text (the dice log).
    Text(String, Option<PathBuf>),
}

/// At most one file dialog at a time, on a worker thread.
#[derive(Debug, Default)]
pub struct Dialogs {
    pending: Option<Receiver<DialogOutcome>>,
}

impl Dialogs {
    pub fn is_open(&self) -> bool {
        self.pending.is_some()
    }

    /// Opens "choose a scenario file to import"; `ctx` is woken when the user is done.
    pub fn open_import(&mut self, ctx: &egui::Context) {
        if self.is_open() {
            return;
        }
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let path = rfd::FileDialog::new()
                .set_title("Import a scenario")
                .add_filter("Scenario JSON", &["json"])
                .pick_file();
            let _ = tx.send(DialogOutcome::Import(path));
            ctx.request_repaint();
        });
        self.pending = Some(rx);
    }

    /// Opens "save scenario as".
    pub fn open_export(&mut self, ctx: &egui::Context, id: ScenarioId) {
        if self.is_open() {
            return;
        }
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let path = rfd::FileDialog::new()
                .set_title("Export the scenario")
                .add_filter("Scenario JSON", &["json"])
                .set_file_name(format!("{id}.json"))
                .save_file();
            let _ = tx.send(DialogOutcome::Export(id, path));
            ctx.request_repaint();
        });
        self.pending = Some(rx);
    }

    /// Opens "save the PDF as", suggesting `file_name`.
    pub fn open_print(
        &mut self,
        ctx: &egui::Context,
        id: ScenarioId,
        print: Print,
        file_name: String,
    ) {
        if self.is_open() {
            return;
        }
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        let title = match print {
            Print::Roster(_) => "Save the roster as PDF",
            Print::Labels(_) => "Save the labels as PDF",
        };
        std::thread::spawn(move || {
            let path = rfd::FileDialog::new()
                .set_title(title)
                .add_filter("PDF", &["pdf"])
                .set_file_name(file_name)
                .save_file();
            let _ = tx.send(DialogOutcome::Print(id, print, path));
            ctx.request_repaint();
        });
        self.pending = Some(rx);
    }

    /// Opens "save the text as" (the dice log), suggesting `file_name`.
    pub fn open_save_text(&mut self, ctx: &egui::Context, file_name: String, text: String) {
        self.open_save(
            ctx,
            "Save the dice log as text",
            ("Text", "txt"),
            file_name,
            move |path| DialogOutcome::Text(text, path),
        );
    }

    /// Opens "save as" with `title`, one filter (`kind`, extension `ext`) and `file_name`
    /// suggested; `outcome` makes the answer from the path chosen (none: cancelled).
    pub fn open_save(
        &mut self,
        ctx: &egui::Context,
        title: &'static str,
        (kind, ext): (&'static str, &'static str),
        file_name: String,
        outcome: impl FnOnce(Option<PathBuf>) -> DialogOutcome + Send + 'static,
    ) {
        if self.is_open() {
            return;
        }
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let path = rfd::FileDialog::new()
                .set_title(title)
                .add_filter(kind, &[ext])
                .set_file_name(file_name)
                .save_file();
            let _ = tx.send(outcome(path));
            ctx.request_repaint();
        });
        self.pending = Some(rx);
    }

    /// The outcome, once the dialog has closed.
    pub fn poll(&mut self) -> Option<DialogOutcome> {
        let rx = self.pending.as_ref()?;
        match rx.try_recv() {
            Ok(outcome) => {
                self.pending = None;
                Some(outcome)
            }
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.pending = None;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_whole_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.json");
        std::fs::write(&p, "old").unwrap();
        write_atomically(&p, b"new contents").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new contents");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn atomic_write_to_a_missing_folder_fails_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("no-such-dir").join("out.json");
        assert!(write_atomically(&p, b"x").is_err());
        assert!(!p.exists());
    }
}
