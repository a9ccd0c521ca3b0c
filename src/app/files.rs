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

/// Turns the path a dialog gave (none: cancelled) into what the app does next.
type MakeOutcome = Box<dyn FnOnce(Option<PathBuf>) -> DialogOutcome + Send>;

/// What a dialog asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub title: &'static str,
    /// The kind of file and its extension, e.g. ("PDF", "pdf").
    pub filter: (&'static str, &'static str),
    /// The name suggested when saving.
    pub file_name: Option<String>,
    /// Save (a new or replaced file) rather than open (an existing one).
    pub save: bool,
}

enum FromDialog {
    Chosen(DialogOutcome),
    /// The system's dialog could not open: the built-in chooser takes over.
    Unavailable(Request, MakeOutcome),
}

/// The built-in chooser, shown when the system's file dialog cannot open (no desktop portal, no
/// zenity): a typed path with completion from the folder typed so far.
pub struct Fallback {
    pub request: Request,
    pub text: String,
    /// Why the path typed cannot be used yet, shown under the field.
    pub problem: Option<String>,
    make: MakeOutcome,
}

impl std::fmt::Debug for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fallback")
            .field("request", &self.request)
            .field("text", &self.text)
            .finish_non_exhaustive()
    }
}

/// A system dialog that comes back empty sooner than this was never shown: nobody opens and
/// cancels a file dialog in a quarter of a second.
const NEVER_SHOWN: std::time::Duration = std::time::Duration::from_millis(250);

/// At most one file dialog at a time, on a worker thread; the built-in chooser when the system's
/// dialog cannot open.
#[derive(Default)]
pub struct Dialogs {
    pending: Option<Receiver<FromDialog>>,
    pub fallback: Option<Fallback>,
    ready: Option<DialogOutcome>,
    /// Skip the system dialog (`POWDERHORN_FILE_DIALOG=builtin`, and tests).
    pub builtin_only: bool,
}

impl std::fmt::Debug for Dialogs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dialogs")
            .field("open", &self.is_open())
            .field("fallback", &self.fallback)
            .finish_non_exhaustive()
    }
}

impl Dialogs {
    pub fn new() -> Dialogs {
        Dialogs {
            builtin_only: std::env::var("POWDERHORN_FILE_DIALOG").is_ok_and(|v| v == "builtin"),
            ..Dialogs::default()
        }
    }

    pub fn is_open(&self) -> bool {
        self.pending.is_some() || self.fallback.is_some()
    }

    /// Opens "choose a scenario file to import"; `ctx` is woken when the user is done.
    pub fn open_import(&mut self, ctx: &egui::Context) {
        self.open(
            ctx,
            Request {
                title: "Import a scenario",
                filter: ("Scenario JSON", "json"),
                file_name: None,
                save: false,
            },
            Box::new(DialogOutcome::Import),
        );
    }

    /// Opens "save scenario as".
    pub fn open_export(&mut self, ctx: &egui::Context, id: ScenarioId) {
        let name = format!("{id}.json");
        self.open_save(
            ctx,
            "Export the scenario",
            ("Scenario JSON", "json"),
            name,
            move |path| DialogOutcome::Export(id, path),
        );
    }

    /// Opens "save the PDF as", suggesting `file_name`.
    pub fn open_print(
        &mut self,
        ctx: &egui::Context,
        id: ScenarioId,
        print: Print,
        file_name: String,
    ) {
        let title = match print {
            Print::Roster(_) => "Save the roster as PDF",
            Print::Labels(_) => "Save the labels as PDF",
        };
        self.open_save(ctx, title, ("PDF", "pdf"), file_name, move |path| {
            DialogOutcome::Print(id, print, path)
        });
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
        filter: (&'static str, &'static str),
        file_name: String,
        outcome: impl FnOnce(Option<PathBuf>) -> DialogOutcome + Send + 'static,
    ) {
        self.open(
            ctx,
            Request {
                title,
                filter,
                file_name: Some(file_name),
                save: true,
            },
            Box::new(outcome),
        );
    }

    /// The one way a dialog opens: the system's on a worker thread, or the built-in chooser
    /// when the system's cannot open (or the built-in one is asked for).
    fn open(&mut self, ctx: &egui::Context, request: Request, make: MakeOutcome) {
        if self.is_open() {
            return;
        }
        if self.builtin_only {
            self.fallback = Some(Fallback::new(request, make));
            return;
        }
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let started = std::time::Instant::now();
            let mut d = rfd::FileDialog::new()
                .set_title(request.title)
                .add_filter(request.filter.0, &[request.filter.1]);
            if let Some(name) = &request.file_name {
                d = d.set_file_name(name);
            }
            let path = if request.save {
                d.save_file()
            } else {
                d.pick_file()
            };
            let answer = if path.is_none() && started.elapsed() < NEVER_SHOWN {
                FromDialog::Unavailable(request, make)
            } else {
                FromDialog::Chosen(make(path))
            };
            let _ = tx.send(answer);
            ctx.request_repaint();
        });
        self.pending = Some(rx);
    }

    /// The outcome, once the dialog (or the built-in chooser) has closed.
    pub fn poll(&mut self) -> Option<DialogOutcome> {
        if let Some(done) = self.ready.take() {
            return Some(done);
        }
        let rx = self.pending.as_ref()?;
        match rx.try_recv() {
            Ok(FromDialog::Chosen(outcome)) => {
                self.pending = None;
                Some(outcome)
            }
            Ok(FromDialog::Unavailable(request, make)) => {
                self.pending = None;
                self.fallback = Some(Fallback::new(request, make));
                None
            }
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.pending = None;
                None
            }
        }
    }

    /// The built-in chooser's "Open"/"Save": the path typed, if it can be used.
    pub fn fallback_accept(&mut self) {
        let Some(f) = &mut self.fallback else { return };
        match check_typed_path(&f.text, &f.request) {
            Ok(path) => {
                if let Some(f) = self.fallback.take() {
                    self.ready = Some((f.make)(Some(path)));
                }
            }
            Err(why) => f.problem = Some(why),
        }
    }

    /// The built-in chooser's "Cancel".
    pub fn fallback_cancel(&mut self) {
        if let Some(f) = self.fallback.take() {
            self.ready = Some((f.make)(None));
        }
    }
}

impl Fallback {
    fn new(request: Request, make: MakeOutcome) -> Fallback {
        let dir = std::env::current_dir().unwrap_or_default();
        let text = match &request.file_name {
            Some(name) => dir.join(name),
            None => dir.join(""),
        }
        .display()
        .to_string();
        Fallback {
            request,
            text,
            problem: None,
            make,
        }
    }
}

/// Draws the built-in chooser while it is open: why it is shown, the path field with its
/// completions, and Open/Save and Cancel. Enter accepts, Escape cancels.
pub fn fallback_window(ctx: &egui::Context, dialogs: &mut Dialogs) {
    let Some(f) = &mut dialogs.fallback else {
        return;
    };
    let (mut accept, mut cancel) = (false, false);
    let verb = if f.request.save { "Save" } else { "Open" };
    egui::Window::new(f.request.title)
        .id(egui::Id::unique("built-in-file-chooser"))
        .collapsible(false)
        .resizable(false)
        .default_width(520.0)
        .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
        .show(ctx, |ui| {
            ui.label(
                "The system's file dialog could not open here (it needs a desktop portal or \
                 zenity; see the README). Type the file's path instead:",
            );
            let field = ui.add(
                egui::TextEdit::singleline(&mut f.text)
                    .desired_width(500.0)
                    .hint_text(format!("a .{} file", f.request.filter.1)),
            );
            let field = crate::ui::widgets::NamedInput::named(field, "File path");
            if field.changed() {
                f.problem = None;
            }
            if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                accept = true;
            }
            if let Some(why) = &f.problem {
                ui.colored_label(crate::ui::widgets::palette::ERROR, why);
            }
            let options = complete_path(&f.text, 12);
            if !options.is_empty() {
                ui.label(
                    egui::RichText::new("In this folder:")
                        .small()
                        .color(crate::ui::widgets::palette::FAINT),
                );
                for o in options {
                    let name = std::path::Path::new(o.trim_end_matches(['/', '\\']))
                        .file_name()
                        .map_or_else(|| o.clone(), |n| n.to_string_lossy().into_owned());
                    let shown = if o.ends_with(['/', '\\']) {
                        format!("{name}/")
                    } else {
                        name
                    };
                    if ui.small_button(shown).clicked() {
                        f.text = o;
                        f.problem = None;
                    }
                }
            }
            ui.horizontal(|ui| {
                if ui.button(verb).clicked() {
                    accept = true;
                }
                if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                    cancel = true;
                }
            });
        });
    if accept {
        dialogs.fallback_accept();
    } else if cancel {
        dialogs.fallback_cancel();
    }
    if !dialogs.is_open() {
        ctx.request_repaint();
    }
}

/// Whether a typed path can be used for `request`: an existing file to open; a file in an
/// existing folder to save (an existing file there is replaced).
pub fn check_typed_path(text: &str, request: &Request) -> Result<PathBuf, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("type the file's path".into());
    }
    let path = PathBuf::from(t);
    if path.is_dir() {
        return Err(format!("{t} is a folder; add the file's name"));
    }
    if request.save {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        if let Some(p) = parent {
            if !p.is_dir() {
                return Err(format!("there is no folder {}", p.display()));
            }
        }
        Ok(path)
    } else if path.is_file() {
        Ok(path)
    } else {
        Err(format!("there is no file {t}"))
    }
}

/// Completions of a typed path: the entries of the folder typed so far whose names start with
/// what follows the last separator (folders end with the separator), sorted, at most `max`.
pub fn complete_path(text: &str, max: usize) -> Vec<String> {
    let sep = std::path::MAIN_SEPARATOR;
    let (dir, prefix) = match text.rfind(['/', sep]) {
        Some(i) => (&text[..=i], &text[i + 1..]),
        None => ("", text),
    };
    let Ok(entries) = std::fs::read_dir(if dir.is_empty() { "." } else { dir }) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .filter_map(Result::ok)
        .take(2_000)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with(prefix) || (name.starts_with('.') && !prefix.starts_with('.')) {
                return None;
            }
            let slash = if e.path().is_dir() {
                sep.to_string()
            } else {
                String::new()
            };
            Some(format!("{dir}{name}{slash}"))
        })
        .collect();
    out.sort();
    out.truncate(max);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn save(name: &str) -> Request {
        Request {
            title: "Save",
            filter: ("Text", "txt"),
            file_name: Some(name.into()),
            save: true,
        }
    }

    #[test]
    fn a_typed_path_is_checked_for_opening_and_saving() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::fs::write(&file, "{}").unwrap();
        let open = Request {
            save: false,
            ..save("x")
        };
        let shown = |p: &Path| p.display().to_string();
        assert_eq!(check_typed_path(&shown(&file), &open), Ok(file.clone()));
        assert!(check_typed_path(&shown(&dir.path().join("b.json")), &open)
            .unwrap_err()
            .starts_with("there is no file"));
        assert!(check_typed_path(&shown(dir.path()), &open)
            .unwrap_err()
            .contains("is a folder"));
        let new = dir.path().join("new.txt");
        assert_eq!(check_typed_path(&shown(&new), &save("n")), Ok(new));
        assert!(
            check_typed_path(&shown(&dir.path().join("no/such/x.txt")), &save("n"))
                .unwrap_err()
                .starts_with("there is no folder")
        );
        assert!(check_typed_path("  ", &save("n")).is_err());
    }

    #[test]
    fn completion_lists_the_folders_entries_that_start_as_typed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ebelsberg.json"), "{}").unwrap();
        std::fs::write(dir.path().join("essling.json"), "{}").unwrap();
        std::fs::create_dir(dir.path().join("exports")).unwrap();
        std::fs::write(dir.path().join("wagram.json"), "{}").unwrap();
        let base = format!("{}{}", dir.path().display(), std::path::MAIN_SEPARATOR);
        let got = complete_path(&format!("{base}e"), 10);
        assert_eq!(
            got,
            vec![
                format!("{base}ebelsberg.json"),
                format!("{base}essling.json"),
                format!("{base}exports{}", std::path::MAIN_SEPARATOR),
            ]
        );
        assert_eq!(complete_path(&format!("{base}e"), 1).len(), 1);
        assert!(complete_path("/no/such/folder/x", 10).is_empty());
    }

    #[test]
    fn the_built_in_chooser_hands_back_the_typed_path_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = egui::Context::default();
        let mut d = Dialogs {
            builtin_only: true,
            ..Dialogs::default()
        };
        d.open_save(&ctx, "Save", ("Text", "txt"), "log.txt".into(), |p| {
            DialogOutcome::Text("t".into(), p)
        });
        assert!(d.is_open());
        let Some(f) = &mut d.fallback else {
            panic!("the built-in chooser is open")
        };
        assert!(f.text.ends_with("log.txt"), "{}", f.text);
        f.text = dir.path().join("none/log.txt").display().to_string();
        d.fallback_accept();
        assert!(d.poll().is_none(), "a path that cannot be used is kept");
        assert!(d.fallback.as_ref().unwrap().problem.is_some());
        let target = dir.path().join("log.txt");
        d.fallback.as_mut().unwrap().text = target.display().to_string();
        d.fallback_accept();
        assert_eq!(
            d.poll(),
            Some(DialogOutcome::Text("t".into(), Some(target)))
        );
        assert!(!d.is_open());
        d.open_import(&ctx);
        d.fallback_cancel();
        assert_eq!(d.poll(), Some(DialogOutcome::Import(None)));
    }

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
