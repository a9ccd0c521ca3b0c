//! The headless command line: `db`, `lists`, `scenario` (and, from the engine and export issues
//! on, `battle` and `export`).
//!
//! Owns argument parsing (clap) and the mapping of every outcome to an exit code, in one place:
//! 0 success, 1 a check found problems (e.g. `scenario validate` reported violations), 2 the
//! input could not be used (unreadable or malformed file, unknown name, database refused). No
//! command panics on any input. May depend on everything below it; nothing depends on it.

mod autoplay;
mod balance;
mod battle;
pub mod campaign;

use crate::model::army::{shipped_lists, ArmyList};
use crate::model::scenario::{parse_scenario, scenario_to_json, Scenario};
use crate::model::validate::{validate_scenario, Subject, Violation};
use crate::store::{Store, StoreError};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The default database, relative to the working directory (git-ignored).
pub const DEFAULT_DB: &str = "db/powderhorn.sqlite";

#[derive(Debug, Parser)]
#[command(
    name = "powderhorn",
    version,
    about = "Author black-powder-era scenarios, run Black Powder Tactical Commander battles, print rosters and base labels.",
    long_about = "With no command, opens the Powderhorn window on the database."
)]
pub struct Cli {
    /// The database file (created and seeded on first use).
    #[arg(long, global = true, value_name = "PATH", default_value = DEFAULT_DB)]
    pub db: PathBuf,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Database housekeeping.
    Db {
        #[command(subcommand)]
        command: DbCommand,
    },
    /// The army lists: troop and command row counts, complete or not.
    Lists {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Scenarios in the database and scenario files.
    Scenario {
        #[command(subcommand)]
        command: ScenarioCommand,
    },
    /// Battles: stored battle sessions played step by step, and battle files (docs/battle-file.md).
    Battle {
        #[command(subcommand)]
        command: BattleCommand,
    },
    /// Printable PDFs: rosters to play from and labels for the backs of bases (docs/export.md).
    Export {
        #[command(subcommand)]
        command: ExportCommand,
    },
    /// Linked campaigns: losses, commanders, VPs and weather carried between battles (docs/campaign.md).
    Campaign {
        #[command(subcommand)]
        command: campaign::CampaignCommand,
    },
}

/// Paper sizes for printing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PaperArg {
    A4,
    Letter,
}

/// One label per stand or per unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PerArg {
    Stand,
    Unit,
}

/// Representation scale for printed ranges (GEN-07).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScaleArg {
    Company,
    Battalion,
    Brigade,
}

#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// A roster per side: chain of command, stat lines, rule gists, tallies, breakpoint track.
    Roster {
        /// A scenario JSON file, or the id or name of a stored scenario.
        scenario: String,
        #[arg(long, value_name = "FILE.pdf")]
        out: PathBuf,
        /// Only this side (by name).
        #[arg(long)]
        side: Option<String>,
        #[arg(long, value_enum, default_value = "a4")]
        paper: PaperArg,
    },
    /// Stat labels at the true size of each base, with cut marks.
    Labels {
        /// A scenario JSON file, or the id or name of a stored scenario.
        scenario: String,
        #[arg(long, value_name = "FILE.pdf")]
        out: PathBuf,
        #[arg(long, value_enum, default_value = "stand")]
        per: PerArg,
        #[arg(long, value_enum, default_value = "a4")]
        paper: PaperArg,
        /// Print ranges at this scale (default: the scenario's).
        #[arg(long, value_enum)]
        scale: Option<ScaleArg>,
        /// Only this side (by name).
        #[arg(long)]
        side: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum BattleCommand {
    /// Replay a battle file: print the resulting state and the event log.
    Replay {
        file: PathBuf,
        /// Print JSON (the stable report format of docs/battle-file.md).
        #[arg(long)]
        json: bool,
    },
    /// Let the solo opponent play both sides to the end (docs/autoplay.md).
    Autoplay {
        /// A scenario JSON file, or the id or name of a stored scenario.
        scenario: String,
        /// The dice seed of the first run; run k uses seed + k.
        #[arg(long)]
        seed: u64,
        /// How many battles to play.
        #[arg(long, default_value_t = 1)]
        runs: u32,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// End the battle after this many game turns (at most the scenario's turn limit).
        #[arg(long, value_name = "T")]
        max_turns: Option<u32>,
        /// How each side is played, e.g. `0=standard,1=hold` (hold only fires from where it
        /// stands; a side not named plays standard).
        #[arg(long, value_name = "SIDE=POLICY,...")]
        policy: Option<String>,
        /// Print each side's plan — a task and why per command unit — whenever it changes.
        #[arg(long)]
        explain: bool,
    },
    /// Play a scenario many times with the solo opponent on both sides and report its balance:
    /// win and draw rates with 95% intervals, VPs, losses, game length, objectives, units.
    Balance {
        /// A scenario JSON file, or the id or name of a stored scenario.
        scenario: String,
        /// How many games to play.
        #[arg(long, default_value_t = 100)]
        runs: usize,
        /// Threads to play on (default: all cores); the report is the same for any count.
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// The dice seed of the first game; game k uses seed + k.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// How each side is played, e.g. `0=standard,1=hold` (as `battle autoplay --policy`;
        /// a side not named plays standard).
        #[arg(long, value_name = "SIDE=POLICY,...")]
        policy: Option<String>,
    },
    /// Stored battle sessions: new, list, show, act, undo, redo, ai, play, export.
    #[command(flatten)]
    Session(battle::SessionCommand),
}

#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Create (and seed) the database if it does not exist; migrate it if it is older.
    Init,
}

#[derive(Debug, Subcommand)]
pub enum ScenarioCommand {
    /// The scenarios in the database.
    List,
    /// Import a scenario JSON file into the database.
    Import {
        file: PathBuf,
        /// Replace a stored scenario with the same id.
        #[arg(long)]
        replace: bool,
    },
    /// Export a stored scenario (by id or name) as JSON.
    Export {
        name: String,
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Check a scenario file against the army-building rules: one violation per line, then the
    /// book's advice on table size, stands and terrain cover (BAS-04, BAS-06), which never fails
    /// the check.
    Validate { file: PathBuf },
}

/// An outcome that is not success: the message for stderr and the exit code.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub(crate) fn input(message: impl Into<String>) -> Self {
        Failure {
            code: 2,
            message: message.into(),
        }
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::input(e.to_string())
    }
}

/// Runs a parsed headless command, writing to `out`. `Ok(code)` is 0 or 1.
pub fn run(cli: &Cli, command: &Command, out: &mut dyn Write) -> Result<u8, Failure> {
    match command {
        Command::Db {
            command: DbCommand::Init,
        } => {
            let existed = cli.db.exists();
            let store = Store::open(&cli.db)?;
            let v = store.schema_version()?;
            let lists = store.list_summaries()?.len();
            let scenarios = store.scenario_summaries()?.len();
            w(
                out,
                format!(
                    "{} {} (schema {v}): {lists} army lists, {scenarios} scenarios",
                    if existed { "opened" } else { "created" },
                    cli.db.display()
                ),
            )?;
            Ok(0)
        }
        Command::Lists { json } => {
            let store = Store::open_read(&cli.db)?;
            let lists = store.list_summaries()?;
            if *json {
                let rows: Vec<serde_json::Value> = lists
                    .iter()
                    .map(|l| {
                        serde_json::json!({
                            "id": l.id.as_str(),
                            "name": l.name,
                            "period": l.period,
                            "troop_rows": l.troop_rows,
                            "command_rows": l.command_rows,
                            "complete": l.complete,
                            "user": l.user,
                        })
                    })
                    .collect();
                let text = serde_json::to_string_pretty(&rows)
                    .map_err(|e| Failure::input(format!("cannot write JSON: {e}")))?;
                w(out, text)?;
            } else {
                w(
                    out,
                    format!(
                        "{:<18} {:<32} {:>6} {:>8}  {}",
                        "ID", "NAME", "TROOPS", "COMMAND", "STATUS"
                    ),
                )?;
                for l in &lists {
                    w(
                        out,
                        format!(
                            "{:<18} {:<32} {:>6} {:>8}  {}{}",
                            l.id.as_str(),
                            l.name,
                            l.troop_rows,
                            l.command_rows,
                            if l.complete { "complete" } else { "incomplete" },
                            if l.user { " (user)" } else { "" }
                        ),
                    )?;
                }
            }
            Ok(0)
        }
        Command::Scenario { command } => run_scenario(cli, command, out),
        Command::Battle {
            command: BattleCommand::Replay { file, json },
        } => run_replay(file, *json, out),
        Command::Battle {
            command:
                BattleCommand::Autoplay {
                    scenario,
                    seed,
                    runs,
                    json,
                    max_turns,
                    policy,
                    explain,
                },
        } => {
            let policies = autoplay::parse_policies(policy.as_deref().unwrap_or(""))
                .map_err(Failure::input)?;
            let (s, lists) = scenario_and_lists(cli, scenario)?;
            let opts = autoplay::Options {
                seed: *seed,
                runs: *runs,
                json: *json,
                max_turns: *max_turns,
                policies,
                explain: *explain,
            };
            autoplay::run(scenario, s, lists, &opts, out)
        }
        Command::Battle {
            command:
                BattleCommand::Balance {
                    scenario,
                    runs,
                    threads,
                    seed,
                    json,
                    policy,
                },
        } => {
            let policies = autoplay::parse_policies(policy.as_deref().unwrap_or(""))
                .map_err(Failure::input)?;
            let (s, lists) = scenario_and_lists(cli, scenario)?;
            let opts = balance::Options {
                runs: *runs,
                threads: *threads,
                seed: *seed,
                json: *json,
                policies,
            };
            balance::run(scenario, s, lists, &opts, out)
        }
        Command::Battle {
            command: BattleCommand::Session(command),
        } => battle::run(cli, command, out),
        Command::Export { command } => run_export(cli, command, out),
        Command::Campaign { command } => campaign::run(cli, command, out),
    }
}

impl From<PaperArg> for crate::export::Paper {
    fn from(p: PaperArg) -> Self {
        match p {
            PaperArg::A4 => crate::export::Paper::A4,
            PaperArg::Letter => crate::export::Paper::Letter,
        }
    }
}

impl From<ScaleArg> for crate::model::Scale {
    fn from(s: ScaleArg) -> Self {
        match s {
            ScaleArg::Company => crate::model::Scale::Company,
            ScaleArg::Battalion => crate::model::Scale::Battalion,
            ScaleArg::Brigade => crate::model::Scale::Brigade,
        }
    }
}

/// A scenario named on the command line: a JSON file if one exists at that path, otherwise a
/// stored scenario by id or name. Returns it with the lists to read it against.
fn scenario_and_lists(cli: &Cli, name: &str) -> Result<(Scenario, Vec<ArmyList>), Failure> {
    let path = Path::new(name);
    // Anything at that path but a directory is read as a file (and a pipe or device refused).
    if path.is_file() || (path.exists() && !path.is_dir()) {
        let scenario = read_scenario(path)?;
        return Ok((scenario, lists_for_validation(&cli.db)?));
    }
    if name.ends_with(".json") {
        return Err(Failure::input(format!("{name}: no such file")));
    }
    let store = Store::open_read(&cli.db)?;
    let scenario = load_stored(
        cli,
        &store,
        name,
        "is neither a scenario file nor a scenario stored in",
    )?;
    Ok((scenario, store.army_lists()?))
}

/// A stored scenario by id, or else by name (case-insensitive); the error lists what is stored.
fn load_stored(cli: &Cli, store: &Store, name: &str, missing: &str) -> Result<Scenario, Failure> {
    let summaries = store.scenario_summaries()?;
    let Some(found) = summaries
        .iter()
        .find(|s| s.id.as_str() == name)
        .or_else(|| summaries.iter().find(|s| s.name.eq_ignore_ascii_case(name)))
    else {
        let known: Vec<&str> = summaries.iter().map(|s| s.id.as_str()).collect();
        return Err(Failure::input(format!(
            "'{name}' {missing} {}; stored: {}",
            cli.db.display(),
            known.join(", ")
        )));
    };
    Ok(store.load_scenario(&found.id)?)
}

/// `export roster` / `export labels`: the PDF is written whole or not at all.
fn run_export(cli: &Cli, command: &ExportCommand, out: &mut dyn Write) -> Result<u8, Failure> {
    use crate::export::{
        labels_pdf, roster_pdf, write_pdf_atomically, LabelOptions, Per, RosterOptions,
    };
    let (bytes, path) = match command {
        ExportCommand::Roster {
            scenario,
            out: path,
            side,
            paper,
        } => {
            let (s, lists) = scenario_and_lists(cli, scenario)?;
            let opts = RosterOptions {
                side: side.clone(),
                paper: (*paper).into(),
            };
            let bytes = roster_pdf(&s, &lists, &opts)
                .map_err(|e| Failure::input(format!("{scenario}: {e}")))?;
            (bytes, path)
        }
        ExportCommand::Labels {
            scenario,
            out: path,
            per,
            paper,
            scale,
            side,
        } => {
            let (s, lists) = scenario_and_lists(cli, scenario)?;
            let opts = LabelOptions {
                per: match per {
                    PerArg::Stand => Per::Stand,
                    PerArg::Unit => Per::Unit,
                },
                paper: (*paper).into(),
                scale: scale.map(Into::into),
                side: side.clone(),
            };
            let bytes = labels_pdf(&s, &lists, &opts)
                .map_err(|e| Failure::input(format!("{scenario}: {e}")))?;
            (bytes, path)
        }
    };
    write_pdf_atomically(path, &bytes).map_err(|e| Failure::input(e.to_string()))?;
    w(
        out,
        format!("wrote {} ({} bytes)", path.display(), bytes.len()),
    )?;
    Ok(0)
}

/// `battle replay`: 0 when every action was carried out; 1 when the engine refused an action
/// (the battle as it stood before that action is printed, then the refusal: its index, the
/// action, the rule and the message; with `--json` the report gains a `refused` object); 2 when
/// the file cannot be used.
fn run_replay(path: &Path, json: bool, out: &mut dyn Write) -> Result<u8, Failure> {
    use crate::rules::file::{
        parse_battle_file, replay, report, Refusal, ReplayOutcome, ScenarioRef,
    };
    let name = path.display().to_string();
    let text = read_text(path)?;
    let file = parse_battle_file(&name, &text).map_err(|e| Failure::input(e.to_string()))?;
    let scenario = match &file.scenario {
        ScenarioRef::Inline(s) => (**s).clone(),
        ScenarioRef::Path(p) => {
            let base = path.parent().unwrap_or(Path::new("."));
            read_scenario(&base.join(p))
                .map_err(|f| Failure::input(format!("{name}: scenario: {}", f.message)))?
        }
    };
    let lists = shipped_lists().map_err(|e| Failure::input(e.to_string()))?;
    let (battle, refused) = match replay(&file, scenario, lists) {
        Ok(b) => (b, None),
        Err(ReplayOutcome::Setup(m)) => return Err(Failure::input(format!("{name}: {m}"))),
        Err(ReplayOutcome::Refused { battle, error }) => (*battle, Some(error)),
    };
    let code = u8::from(refused.is_some());
    let r = report(&battle);
    if json {
        let mut v = serde_json::to_value(&r)
            .map_err(|e| Failure::input(format!("cannot write JSON: {e}")))?;
        if let (Some(e), Some(obj)) = (&refused, v.as_object_mut()) {
            let refusal = serde_json::to_value(Refusal::of(e))
                .map_err(|e| Failure::input(format!("cannot write JSON: {e}")))?;
            obj.insert("refused".to_string(), refusal);
        }
        let text = serde_json::to_string_pretty(&v)
            .map_err(|e| Failure::input(format!("cannot write JSON: {e}")))?;
        w(out, text)?;
        return Ok(code);
    }
    w(
        out,
        format!(
            "game turn {}, player turn {} ({}), {} phase; {} dice rolled",
            r.turn.game_turn,
            r.turn.player_turn,
            r.turn.player,
            r.turn.phase.label(),
            r.dice_rolled
        ),
    )?;
    unit_table(out, &r.units)?;
    w(out, "events:".to_string())?;
    for e in &r.events {
        let line = serde_json::to_string(&e.event).unwrap_or_default();
        w(out, format!("  [{}] {line}", e.action))?;
    }
    if let Some(e) = &refused {
        w(
            out,
            format!(
                "refused: {name}: {e}\nthe replay stopped there; the table above is the battle before that action"
            ),
        )?;
    }
    Ok(code)
}

fn run_scenario(cli: &Cli, command: &ScenarioCommand, out: &mut dyn Write) -> Result<u8, Failure> {
    match command {
        ScenarioCommand::List => {
            let store = Store::open_read(&cli.db)?;
            for s in store.scenario_summaries()? {
                w(
                    out,
                    format!(
                        "{:<24} {:<40} {:>6} pts  {}",
                        s.id.as_str(),
                        s.name,
                        s.points,
                        s.date
                    ),
                )?;
            }
            Ok(0)
        }
        ScenarioCommand::Import { file, replace } => {
            let scenario = read_scenario(file)?;
            // DATA-04..09: shapes the engine cannot use are never stored.
            let broken = crate::model::validate::geometry_violations(&scenario);
            if !broken.is_empty() {
                let lines: Vec<String> = broken
                    .iter()
                    .map(|v| format_violation(&scenario, v))
                    .collect();
                return Err(Failure::input(format!(
                    "{}: not imported; fix these first:\n{}",
                    file.display(),
                    lines.join("\n")
                )));
            }
            let mut store = Store::open(&cli.db)?;
            let exists = store
                .scenario_summaries()?
                .iter()
                .any(|s| s.id == scenario.id);
            if exists && !replace {
                return Err(Failure::input(format!(
                    "{}: a scenario with id '{}' is already stored; use --replace to overwrite it",
                    file.display(),
                    scenario.id
                )));
            }
            store.save_scenario(&scenario)?;
            w(
                out,
                format!("imported '{}' ({})", scenario.name, scenario.id.as_str()),
            )?;
            Ok(0)
        }
        ScenarioCommand::Export { name, out: path } => {
            let store = Store::open_read(&cli.db)?;
            let scenario = load_stored(cli, &store, name, "is not a scenario stored in")?;
            write_scenario(&scenario, path)?;
            w(out, format!("wrote {}", path.display()))?;
            Ok(0)
        }
        ScenarioCommand::Validate { file } => {
            let scenario = read_scenario(file)?;
            let lists = lists_for_validation(&cli.db)?;
            // Shapes and placement first (a battle cannot start on them), then army building.
            let mut violations = crate::model::validate::geometry_violations(&scenario);
            violations.extend(crate::rules::state::placement_violations(&scenario, &lists));
            violations.extend(validate_scenario(&scenario, &lists));
            for v in &violations {
                w(out, format_violation(&scenario, v))?;
            }
            for a in crate::model::advice::scenario_advice(&scenario) {
                w(out, format!("advice {}: {}", a.rule, a.message))?;
            }
            if violations.is_empty() {
                w(out, format!("{}: no violations", file.display()))?;
                Ok(0)
            } else {
                Ok(1)
            }
        }
    }
}

/// The lists to validate against: the database's (shipped and user) when it can be opened,
/// otherwise the shipped lists, saying so.
fn lists_for_validation(db: &Path) -> Result<Vec<ArmyList>, Failure> {
    if db.exists() {
        match Store::open_read(db).and_then(|s| s.army_lists()) {
            Ok(lists) => return Ok(lists),
            Err(e) => eprintln!("note: validating against the shipped lists only: {e}"),
        }
    }
    shipped_lists().map_err(|e| Failure::input(e.to_string()))
}

/// "ARMY-04 side 'French': …" with the item named.
pub fn format_violation(scenario: &Scenario, v: &Violation) -> String {
    let side_name = |i: usize| {
        scenario
            .sides
            .get(i)
            .map_or_else(|| format!("side {}", i + 1), |s| s.name.clone())
    };
    let place = match v.subject {
        Subject::Scenario => "scenario".to_string(),
        Subject::Side(i) => format!("side '{}'", side_name(i)),
        // The message names the HQ or unit itself.
        Subject::Hq(i, _) | Subject::Unit(i, _) => format!("side '{}'", side_name(i)),
        Subject::Defense(i, id) => format!("side '{}' field defence {id}", side_name(i)),
        // The message names the feature itself.
        Subject::Feature(_) => "terrain".to_string(),
    };
    format!("{} {place}: {}", v.rule, v.message)
}

/// The largest scenario or battle file read, bytes (16 MiB). The sample scenario is ~60 KiB and
/// a long battle file a few MiB; anything larger is not one of ours, and reading it whole would
/// cost memory and time without bound.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// Reads a scenario or battle file as text, refusing before any read what cannot be one: a
/// FIFO, device, socket or directory (which could block or never end: `/dev/zero`, a pipe) and
/// a file over [`MAX_INPUT_BYTES`]. The size is checked again while reading, in case the file
/// grows meanwhile.
pub fn read_text(path: &Path) -> Result<String, Failure> {
    use std::io::Read;
    let name = path.display();
    let meta =
        std::fs::metadata(path).map_err(|e| Failure::input(format!("{name}: cannot read: {e}")))?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a pipe, device or socket)"
        };
        return Err(Failure::input(format!(
            "{name}: cannot read: it is {what}; give the path of a JSON file"
        )));
    }
    let too_big = |len: u64| {
        Failure::input(format!(
            "{name}: cannot read: it is {:.1} MiB; scenario and battle files are at most {} MiB",
            len as f64 / (1024.0 * 1024.0),
            MAX_INPUT_BYTES / (1024 * 1024)
        ))
    };
    if meta.len() > MAX_INPUT_BYTES {
        return Err(too_big(meta.len()));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| Failure::input(format!("{name}: cannot read: {e}")))?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::input(format!("{name}: cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes)
        .map_err(|e| Failure::input(format!("{name}: cannot read: not UTF-8 text ({e})")))
}

/// Reads and parses a scenario file; errors name the file, line and field.
pub fn read_scenario(path: &Path) -> Result<Scenario, Failure> {
    let text = read_text(path)?;
    parse_scenario(&path.display().to_string(), &text).map_err(|e| Failure::input(e.to_string()))
}

/// Writes a scenario file whole or not at all: a temporary file beside it, then a rename.
pub fn write_scenario(scenario: &Scenario, path: &Path) -> Result<(), Failure> {
    let text = scenario_to_json(scenario)
        .map_err(|e| Failure::input(format!("cannot encode scenario: {e}")))?;
    write_atomically(path, text.as_bytes())
        .map_err(|e| Failure::input(format!("{}: cannot write: {e}", path.display())))
}

/// Writes `bytes` to a temporary file in the target's directory and renames it into place, so
/// an existing file is replaced only by a complete new one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The units of a battle report as a table: id, name, position, facing, formation, stands,
/// hits and status (`battle replay` and `battle show`).
pub(crate) fn unit_table(
    out: &mut dyn Write,
    units: &[crate::rules::file::UnitReport],
) -> Result<(), Failure> {
    w(
        out,
        format!(
            "{:<14} {:<34} {:>14} {:>7} {:<14} {:>6} {:>4}  {}",
            "ID", "NAME", "POSITION", "FACING", "FORMATION", "STANDS", "HITS", "STATUS"
        ),
    )?;
    for u in units {
        let id = u.id.to_string();
        let pos = u.position.map_or_else(
            || "off table".to_string(),
            |p| format!("({:.1}, {:.1})", p.x, p.y),
        );
        let facing = u.facing_deg.map_or_else(String::new, |f| format!("{f:.0}"));
        let formation = match (u.formation, u.limbered) {
            (Some(f), _) => f.label().to_string(),
            (None, true) => "limbered".to_string(),
            (None, false) => String::new(),
        };
        let mut status = Vec::new();
        if u.suppressed {
            status.push("suppressed");
        }
        if u.disordered {
            status.push("disordered");
        }
        if u.knocked_out {
            status.push("knocked out");
        }
        w(
            out,
            format!(
                "{id:<14} {:<34} {pos:>14} {facing:>7} {formation:<14} {:>6} {:>4}  {}",
                u.name,
                u.stands,
                u.hits,
                status.join(", ")
            ),
        )?;
    }
    Ok(())
}

pub(crate) fn w(out: &mut dyn Write, line: String) -> Result<(), Failure> {
    writeln!(out, "{line}").map_err(|e| Failure::input(format!("cannot write output: {e}")))
}
