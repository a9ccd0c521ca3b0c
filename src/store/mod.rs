//! The store: the only code in Powderhorn that touches SQLite.
//!
//! It owns the database file and everything about it: opening it safely, the lock that keeps a
//! second window out, the schema and its migrations (`db/migrations/*.sql`, applied with
//! `rusqlite_migration` and tracked in `PRAGMA user_version`), seeding a new database with the
//! army lists and sample scenarios compiled into the build, and turning rows into validated model
//! types and back. The GUI (`app`) and the CLI call [`Store`]; nothing else sees a `Connection`.
//!
//! What it promises:
//! - **Never overwrite a file it could not open as ours.** A file that is not SQLite, is damaged,
//!   belongs to another program or was written by a newer Powderhorn is refused with a message
//!   naming it, and is left byte-for-byte as it was: it is inspected with plain reads and a
//!   read-only (`immutable`) SQLite connection before anything can write to it, and switched to
//!   WAL only after it passed (see `open.rs` for the order and why).
//! - **One writer.** `<db>.lock` beside the database is locked (`File::try_lock`) for the Store's
//!   lifetime; a second Store on the same file fails at once with [`StoreError::Locked`].
//! - **Every write is one transaction** (a scenario is replaced whole or not at all; a battle
//!   entry is appended whole or not at all), in WAL mode with foreign keys on.
//! - **Shipped data is not user data.** The book lists are rows with origin `shipped`, rewritten
//!   from `crate::model::army::shipped_lists()` on every open when they differ (so a build with
//!   corrected numbers corrects old databases) and never changed by an edit: users add rows of
//!   origin `user` to any list, or save whole user lists; removing or overwriting a shipped row is
//!   refused with [`StoreError::Shipped`].
//! - **Rows become model types at this boundary.** A row that does not convert is a
//!   [`StoreError::Data`] naming table, row and column, never a panic.
//! - **Battles are append-only**, enforced by triggers in the schema as well as by the API.
//!
//! What it must not do: import egui/eframe or anything of `app`/`ui`/`cli` (the dependency runs
//! the other way), decide rules (validation and points live in `model`), or hand out SQL types.
//!
//! Layering: `store` depends on `model` (and through it `geom`); `app` and `cli` depend on it.

mod battles;
mod campaign_runs;
mod campaigns;
mod error;
mod lists;
mod open;
mod rows;
mod scenarios;
mod schema;

pub use battles::{
    fold_log, fold_log_with_actors, Actor, BattleProgress, BattleRecord, BattleSetup, BattleStatus,
    LogRecord, PlayMode,
};
pub use campaign_runs::{
    CampaignRunRecord, NewRun, RunBattle, RunBattleEnd, RunBattleStart, RunStatus, RunSummary,
};
pub use error::StoreError;
pub use open::lock_path;
pub use schema::{APPLICATION_ID, LATEST_SCHEMA, MIGRATIONS_SQL, MIGRATION_1_SQL, MIGRATION_2_SQL};

use crate::model::army::{shipped_lists, ArmyList, Period, TroopType};
use crate::model::campaign::Campaign;
use crate::model::ids::{CampaignId, ListId, ScenarioId, TroopTypeId};
use crate::model::samples;
use crate::model::scenario::Scenario;
use lists::Origin;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One row of the army-list picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListSummary {
    pub id: ListId,
    pub name: String,
    pub period: Period,
    pub complete: bool,
    /// Made in the app rather than shipped.
    pub user: bool,
    /// Troop rows, user rows added to a shipped list included.
    pub troop_rows: usize,
    pub command_rows: usize,
}

/// One row of the scenario picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioSummary {
    pub id: ScenarioId,
    pub name: String,
    pub date: String,
    pub points: u32,
    /// The optional rules the scenario is played with (shown before a battle starts).
    pub optional_rules: Vec<crate::model::scenario::OptionalRule>,
    /// SEQ-01: the side that moves first (`None`: the sides roll off).
    pub first_player: Option<usize>,
}

/// One row of the campaign picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignSummary {
    pub id: CampaignId,
    pub name: String,
    pub battles: usize,
}

/// An open Powderhorn database. Dropping it closes the connection, then releases the lock.
pub struct Store {
    // Field order matters: the connection closes (checkpointing the WAL) before the lock goes.
    conn: Connection,
    path: Option<PathBuf>,
    /// The OS lock on the database file itself (exclusive; shared when opened read-only).
    _db_lock: Option<File>,
    _lock: Option<File>,
}

impl Drop for Store {
    /// The `.lock` file goes with the store that made it, so none is left beside a closed
    /// database (the lock on the database file itself is what keeps a second writer out, so
    /// removing the name while we still hold it lets no one in).
    fn drop(&mut self) {
        if let (Some(_), Some(path)) = (&self._lock, &self.path) {
            let _ = std::fs::remove_file(open::lock_path(path));
        }
    }
}

/// `meta` key recording that the sample scenarios and campaigns were seeded once, so a user who
/// deletes a sample does not see it come back on the next open.
const SAMPLES_SEEDED: &str = "samples_seeded";

fn shown(path: Option<&Path>) -> String {
    path.map_or_else(|| ":memory:".to_string(), |p| p.display().to_string())
}

/// Errors while writing built-in data: our own data problems become [`StoreError::Seed`]; SQLite
/// and file errors stay what they are.
fn seed_error(what: String) -> impl Fn(StoreError) -> StoreError {
    move |e| match e {
        StoreError::Sql(_) | StoreError::Io { .. } => e,
        other => StoreError::Seed(format!("{what}: {other}")),
    }
}

impl Store {
    /// Opens the database at `path`, creating the folder and a new seeded database when nothing
    /// (or an empty file) is there. An existing file is checked before anything can change it,
    /// locked against other windows, migrated to this build's schema (after a backup copy
    /// `<db>.v<N>.bak`) and its shipped lists re-synced.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        // 1. Refuse what is plainly not ours, or not ours to change, before creating anything.
        if let open::FileState::Sqlite { header, .. } = open::inspect_file(path)? {
            open::refuse_too_new(path, &header)?;
        }
        open::refuse_unwritable(path)?;
        // 2. The folder and the lock.
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| StoreError::Io {
                action: "create the folder",
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let lock_was_there = open::lock_path(path).exists();
        let lock = open::acquire_lock(path)?;
        let opened = Store::open_locked(path, lock);
        if opened.is_err() && !lock_was_there {
            // Refused: leave nothing of ours beside a file that is not ours (the lock was ours
            // alone: it did not exist before and we still hold it).
            let _ = std::fs::remove_file(open::lock_path(path));
        }
        opened
    }

    /// Steps 2b–4 of [`Store::open`], under `<db>.lock`.
    fn open_locked(path: &Path, lock: File) -> Result<Store, StoreError> {
        // 2b. The file itself, whatever its name (symlink, hard link, a deleted lock file).
        let mut db_lock = match open::inspect_file(path)? {
            open::FileState::Missing => None,
            _ => open::lock_database_file(path, false)?,
        };
        // 3. Look again under the lock, read-only.
        let fresh = match open::inspect_file(path)? {
            open::FileState::Missing | open::FileState::Empty => true,
            open::FileState::Sqlite { header, len } => {
                open::refuse_too_new(path, &header)?;
                open::check_header(path, &header, len)?;
                matches!(open::inspect_readonly(path)?.0, open::Existing::Blank)
            }
        };
        // 4. Now it is ours: read-write, WAL, migrate, sync the built-in data.
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| open::classify(path, e))?;
        if db_lock.is_none() {
            // A new file: SQLite has just made it; lock it before anything is written.
            db_lock = open::lock_database_file(path, false)?;
        }
        let setup = |conn: &Connection| -> rusqlite::Result<()> {
            conn.busy_timeout(Duration::from_secs(2))?;
            conn.pragma_update(None, "foreign_keys", true)?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "synchronous", "NORMAL")
        };
        setup(&conn).map_err(|e| open::classify(path, e))?;
        let mut store = Store {
            conn,
            path: Some(path.to_path_buf()),
            _db_lock: db_lock,
            _lock: Some(lock),
        };
        let classify = |e: StoreError| match e {
            StoreError::Sql(e) => open::classify(path, e),
            other => other,
        };
        store.migrate(!fresh).map_err(classify)?;
        store.sync_builtin().map_err(classify)?;
        Ok(store)
    }

    /// Opens the database for commands that only read it. A file this user may not write (or
    /// in a folder they may not write) is opened read-only: no lock file, no `-wal`/`-shm` made
    /// beside it, nothing migrated or synced; it must already be at this build's schema. A
    /// writable file opens as [`Store::open`] does.
    pub fn open_read(path: &Path) -> Result<Store, StoreError> {
        match Store::open(path) {
            Err(StoreError::ReadOnly { .. }) => Store::open_read_only(path),
            other => other,
        }
    }

    fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let open::FileState::Sqlite { header, len } = open::inspect_file(path)? else {
            return Err(StoreError::ReadOnly {
                path: path.to_path_buf(),
                detail: "it holds no database yet, and one cannot be created there".into(),
            });
        };
        open::refuse_too_new(path, &header)?;
        // Readers share; a writing Powderhorn excludes them.
        let db_lock = open::lock_database_file(path, true)?;
        open::check_header(path, &header, len)?;
        let (existing, conn) = open::inspect_readonly(path)?;
        if matches!(existing, open::Existing::Blank) {
            return Err(StoreError::ReadOnly {
                path: path.to_path_buf(),
                detail: "it is an empty SQLite file, and it cannot be set up read-only".into(),
            });
        }
        let store = Store {
            conn,
            path: Some(path.to_path_buf()),
            _db_lock: db_lock,
            _lock: None,
        };
        let version = store.schema_version()?;
        if version < LATEST_SCHEMA {
            return Err(StoreError::ReadOnly {
                path: path.to_path_buf(),
                detail: format!(
                    "it is at schema version {version} and needs updating to {LATEST_SCHEMA}, \
                     which needs write access"
                ),
            });
        }
        Ok(store)
    }

    /// A new seeded database in memory (tests, previews). No file, no lock, no WAL.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let conn = Connection::open_in_memory()?;
        conn.pragma_update(None, "foreign_keys", true)?;
        let mut store = Store {
            conn,
            path: None,
            _db_lock: None,
            _lock: None,
        };
        store.migrate(false)?;
        store.sync_builtin()?;
        Ok(store)
    }

    /// The database file, `None` for an in-memory store.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// `PRAGMA user_version`: the number of migrations applied.
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        let v: i64 = self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))?;
        u32::try_from(v).map_err(|_| {
            StoreError::Data(format!(
                "{} has schema version {v}, which is not a version Powderhorn writes",
                shown(self.path())
            ))
        })
    }

    /// The journal mode in force ("wal" for a file database; "memory" in memory), for diagnostics.
    pub fn journal_mode(&self) -> Result<String, StoreError> {
        Ok(self
            .conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))?)
    }

    /// Whether SQLite enforces foreign keys on this connection (always true; for diagnostics).
    pub fn foreign_keys_enabled(&self) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))?)
    }

    /// Brings the schema to [`LATEST_SCHEMA`]; an existing file at an older version is first
    /// copied to `<db>.v<old>.bak` (the migration itself is one transaction either way).
    fn migrate(&mut self, existing: bool) -> Result<(), StoreError> {
        let from = self.schema_version()?;
        if existing && from > 0 && from < LATEST_SCHEMA {
            self.backup_before_migration(from)?;
        }
        schema::MIGRATIONS
            .to_latest(&mut self.conn)
            .map_err(|source| StoreError::Migrate {
                path: shown(self.path()),
                from,
                to: LATEST_SCHEMA,
                source: Box::new(source),
            })
    }

    fn backup_before_migration(&self, from: u32) -> Result<(), StoreError> {
        let Some(path) = self.path() else {
            return Ok(());
        };
        let base = format!("{}.v{from}.bak", path.display());
        let mut target = PathBuf::from(&base);
        let mut n = 2;
        while target.exists() {
            target = PathBuf::from(format!("{base}.{n}"));
            n += 1;
        }
        // VACUUM INTO takes a text path; a path that is not Unicode gets no backup (the
        // migration is still one transaction).
        if let Some(t) = target.to_str() {
            self.conn.execute("VACUUM INTO ?1", [t])?;
        }
        Ok(())
    }

    fn write_tx(&mut self) -> Result<Transaction<'_>, StoreError> {
        Ok(self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?)
    }

    /// Re-syncs the shipped lists (every open) and seeds the samples (once per database).
    fn sync_builtin(&mut self) -> Result<(), StoreError> {
        let shipped = shipped_lists().map_err(|e| StoreError::Seed(e.to_string()))?;
        let tx = self.write_tx()?;
        lists::resync_shipped(&tx, &shipped)
            .map_err(seed_error("the shipped army lists".to_string()))?;
        tx.commit()?;

        let seeded: Option<String> = {
            use rusqlite::OptionalExtension;
            self.conn
                .query_row(
                    "SELECT value FROM meta WHERE key = ?1",
                    [SAMPLES_SEEDED],
                    |r| r.get(0),
                )
                .optional()?
        };
        if seeded.is_some() {
            return Ok(());
        }
        let sample_scenarios = samples::scenarios().map_err(|e| StoreError::Seed(e.to_string()))?;
        let sample_campaigns = samples::campaigns().map_err(|e| StoreError::Seed(e.to_string()))?;
        let tx = self.write_tx()?;
        for s in &sample_scenarios {
            if !scenarios::exists(&tx, &s.id)? {
                scenarios::write(&tx, s)
                    .map_err(seed_error(format!("sample scenario '{}'", s.id)))?;
            }
        }
        for c in &sample_campaigns {
            if !campaigns::exists(&tx, &c.id)? {
                campaigns::write(&tx, c)
                    .map_err(seed_error(format!("sample campaign '{}'", c.id)))?;
            }
        }
        tx.execute(
            "INSERT INTO meta (key, value) VALUES (?1, '1')",
            [SAMPLES_SEEDED],
        )?;
        tx.commit()?;
        Ok(())
    }

    // ----- the window's memory ----------------------------------------------------------------

    /// A value the window keeps between runs (e.g. the scenario open when it was closed).
    pub fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn
            .query_row(
                "SELECT value FROM meta WHERE key = ?1",
                [format!("ui.{key}")],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Keeps `value` under `key` for the next run (keys are kept apart from the store's own).
    pub fn set_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [format!("ui.{key}"), value.to_string()],
        )?;
        Ok(())
    }

    // ----- army lists -------------------------------------------------------------------------

    /// Every list for the picker: shipped lists in book order, then user lists by name.
    pub fn list_summaries(&self) -> Result<Vec<ListSummary>, StoreError> {
        lists::summaries(&self.conn)
    }

    /// Every list, whole: shipped lists in book order with the rows users added to them after
    /// the book's rows (ask [`Store::is_user_troop_type`] which those are), then user lists.
    pub fn army_lists(&self) -> Result<Vec<ArmyList>, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let mut out = Vec::new();
        for (id, _) in lists::list_ids(&tx)? {
            if let Some(list) = lists::read_list(&tx, &id, true)? {
                out.push(list);
            }
        }
        Ok(out)
    }

    /// One list, whole (as in [`Store::army_lists`]).
    pub fn army_list(&self, id: &ListId) -> Result<ArmyList, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        lists::read_list(&tx, id, true)?
            .ok_or_else(|| StoreError::NotFound(format!("army list '{id}'")))
    }

    /// Adds a user row to any list, shipped or user. The id must be new within the list.
    pub fn add_user_troop_type(
        &mut self,
        list: &ListId,
        row: &TroopType,
    ) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        if lists::list_origin(&tx, list)?.is_none() {
            return Err(StoreError::NotFound(format!("army list '{list}'")));
        }
        if let Some(origin) = lists::troop_origin(&tx, list, &row.id)? {
            let whose = match origin {
                Origin::Shipped => "a shipped",
                Origin::User => "a user",
            };
            return Err(StoreError::Conflict(format!(
                "army list '{list}' already has {whose} troop type with the id '{}'; \
                 choose another id for the new row",
                row.id
            )));
        }
        let next: i64 = tx.query_row(
            "SELECT COALESCE(MAX(pos) + 1, 0) FROM troop_types WHERE list_id = ?1 AND origin = 'user'",
            [list.as_str()],
            |r| r.get(0),
        )?;
        lists::insert_troop_type(&tx, list, row, Origin::User, next)?;
        tx.commit()?;
        Ok(())
    }

    /// Removes a user row. Shipped rows are refused: they belong to the book.
    pub fn remove_user_troop_type(
        &mut self,
        list: &ListId,
        row: &TroopTypeId,
    ) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        match lists::troop_origin(&tx, list, row)? {
            None => Err(StoreError::NotFound(format!(
                "troop type '{row}' of army list '{list}'"
            ))),
            Some(Origin::Shipped) => Err(StoreError::Shipped(format!(
                "troop type '{row}' of army list '{list}'"
            ))),
            Some(Origin::User) => {
                tx.execute(
                    "DELETE FROM troop_types WHERE list_id = ?1 AND id = ?2 AND origin = 'user'",
                    [list.as_str(), row.as_str()],
                )?;
                tx.commit()?;
                Ok(())
            }
        }
    }

    /// Whether a row was added by a user (`false`: it ships with the book).
    pub fn is_user_troop_type(&self, list: &ListId, row: &TroopTypeId) -> Result<bool, StoreError> {
        match lists::troop_origin(&self.conn, list, row)? {
            Some(origin) => Ok(origin == Origin::User),
            None => Err(StoreError::NotFound(format!(
                "troop type '{row}' of army list '{list}'"
            ))),
        }
    }

    /// The ids of a list's user rows, in the order they were added.
    pub fn user_troop_types(&self, list: &ListId) -> Result<Vec<TroopTypeId>, StoreError> {
        if lists::list_origin(&self.conn, list)?.is_none() {
            return Err(StoreError::NotFound(format!("army list '{list}'")));
        }
        lists::user_troop_ids(&self.conn, list)
    }

    /// Saves a whole user list (`list.user` must be true), replacing a stored user list with the
    /// same id. A shipped list's id is refused.
    pub fn save_user_list(&mut self, list: &ArmyList) -> Result<(), StoreError> {
        if !list.user {
            return Err(StoreError::Invalid(format!(
                "army list '{}' is not marked as a user list (user = false); only user lists can \
                 be saved. Set user = true (and give it an id of its own, e.g. 'user-…')",
                list.id
            )));
        }
        if list.id.as_str().is_empty() {
            return Err(StoreError::Invalid(format!(
                "army list '{}' has an empty id; give it an id before saving",
                list.name
            )));
        }
        lists::check_unique_rows(list)?;
        let tx = self.write_tx()?;
        if lists::list_origin(&tx, &list.id)? == Some(Origin::Shipped) {
            return Err(StoreError::Shipped(format!("army list '{}'", list.id)));
        }
        tx.execute("DELETE FROM army_lists WHERE id = ?1", [list.id.as_str()])?;
        lists::write_whole_list(&tx, list, Origin::User, 0)?;
        tx.commit()?;
        Ok(())
    }

    /// Deletes a user list. Shipped lists are refused. Scenarios naming it keep the name (and
    /// validation reports the list missing).
    pub fn delete_user_list(&mut self, id: &ListId) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        match lists::list_origin(&tx, id)? {
            None => Err(StoreError::NotFound(format!("army list '{id}'"))),
            Some(Origin::Shipped) => Err(StoreError::Shipped(format!("army list '{id}'"))),
            Some(Origin::User) => {
                tx.execute("DELETE FROM army_lists WHERE id = ?1", [id.as_str()])?;
                tx.commit()?;
                Ok(())
            }
        }
    }

    // ----- scenarios --------------------------------------------------------------------------

    /// Every scenario for the picker, by name.
    pub fn scenario_summaries(&self) -> Result<Vec<ScenarioSummary>, StoreError> {
        scenarios::summaries(&self.conn)
    }

    pub fn load_scenario(&self, id: &ScenarioId) -> Result<Scenario, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        scenarios::read(&tx, id)?.ok_or_else(|| StoreError::NotFound(format!("scenario '{id}'")))
    }

    /// Inserts the scenario or replaces the stored one with its id, whole, in one transaction.
    pub fn save_scenario(&mut self, s: &Scenario) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        scenarios::write(&tx, s)?;
        tx.commit()?;
        Ok(())
    }

    /// Saves `after` over `before`, the scenario as this store last saved it: only the rows of
    /// what changed when that is some features of the table in place (an editor's drag and its
    /// undo), else the whole scenario as [`Store::save_scenario`]. One transaction.
    pub fn save_scenario_over(
        &mut self,
        before: &Scenario,
        after: &Scenario,
    ) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        scenarios::write_changes(&tx, before, after)?;
        tx.commit()?;
        Ok(())
    }

    /// Deletes a scenario with its orders of battle and terrain. Battles keep their own copy of
    /// it; campaigns keep naming it (and validation reports it missing).
    pub fn delete_scenario(&mut self, id: &ScenarioId) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        if tx.execute("DELETE FROM scenarios WHERE id = ?1", [id.as_str()])? == 0 {
            return Err(StoreError::NotFound(format!("scenario '{id}'")));
        }
        tx.commit()?;
        Ok(())
    }

    // ----- campaigns --------------------------------------------------------------------------

    /// Every campaign for the picker, by name.
    pub fn campaign_summaries(&self) -> Result<Vec<CampaignSummary>, StoreError> {
        campaigns::summaries(&self.conn)
    }

    pub fn load_campaign(&self, id: &CampaignId) -> Result<Campaign, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        campaigns::read(&tx, id)?.ok_or_else(|| StoreError::NotFound(format!("campaign '{id}'")))
    }

    /// Inserts the campaign or replaces the stored one with its id, whole, in one transaction.
    pub fn save_campaign(&mut self, c: &Campaign) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        campaigns::write(&tx, c)?;
        tx.commit()?;
        Ok(())
    }

    pub fn delete_campaign(&mut self, id: &CampaignId) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        if tx.execute("DELETE FROM campaigns WHERE id = ?1", [id.as_str()])? == 0 {
            return Err(StoreError::NotFound(format!("campaign '{id}'")));
        }
        tx.commit()?;
        Ok(())
    }

    // ----- campaign runs ----------------------------------------------------------------------

    /// Begins a run of a campaign with its first battle set up by the carry; returns its id.
    pub fn create_campaign_run(&mut self, new: &NewRun<'_>) -> Result<i64, StoreError> {
        let tx = self.write_tx()?;
        let id = campaign_runs::create(&tx, new)?;
        tx.commit()?;
        Ok(id)
    }

    /// The runs of one campaign (or of every campaign), oldest first.
    pub fn campaign_runs(
        &self,
        campaign: Option<&CampaignId>,
    ) -> Result<Vec<RunSummary>, StoreError> {
        campaign_runs::summaries(&self.conn, campaign)
    }

    pub fn load_campaign_run(&self, run: i64) -> Result<CampaignRunRecord, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        campaign_runs::read(&tx, run)?
            .ok_or_else(|| StoreError::NotFound(format!("campaign run {run}")))
    }

    /// The run and battle position (0-based) a battle session plays, if it is a campaign's.
    pub fn campaign_run_of_battle(&self, battle: i64) -> Result<Option<(i64, usize)>, StoreError> {
        campaign_runs::of_battle(&self.conn, battle)
    }

    /// Ties battle `at` of `run` to the session `battle` that plays it.
    pub fn link_campaign_battle(
        &mut self,
        run: i64,
        at: usize,
        battle: i64,
    ) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        campaign_runs::link_battle(&tx, run, at, battle)?;
        tx.commit()?;
        Ok(())
    }

    /// The end of battle `at` of `run` and the carry into the next, in one transaction: a crash
    /// leaves the run before or after this step, never between.
    pub fn finish_campaign_battle(
        &mut self,
        run: i64,
        at: usize,
        end: &RunBattleEnd,
        next: Option<&RunBattleStart>,
    ) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        campaign_runs::finish(&tx, run, at, end, next)?;
        tx.commit()?;
        Ok(())
    }

    pub fn delete_campaign_run(&mut self, run: i64) -> Result<(), StoreError> {
        let tx = self.write_tx()?;
        campaign_runs::delete(&tx, run)?;
        tx.commit()?;
        Ok(())
    }

    // ----- battles ----------------------------------------------------------------------------

    /// Starts a battle. The battle keeps a copy of the scenario and army lists as they are now,
    /// so later edits never change how its log replays. Returns the battle's id.
    pub fn create_battle(&mut self, setup: &BattleSetup) -> Result<i64, StoreError> {
        let tx = self.write_tx()?;
        let id = battles::create(&tx, setup)?;
        tx.commit()?;
        Ok(id)
    }

    /// Appends one entry (an action with its events, an undo or a redo) at the end of the
    /// battle's log and records where the battle stands, in one transaction. Returns the
    /// entry's sequence number: its index in the log, 0 for the first.
    pub fn append_battle_record(
        &mut self,
        battle: i64,
        record: &LogRecord,
        progress: &BattleProgress,
    ) -> Result<u32, StoreError> {
        let tx = self.write_tx()?;
        let seq = battles::append(&tx, battle, record, progress)?;
        tx.commit()?;
        Ok(seq)
    }

    /// The battle's whole log, in order.
    pub fn battle_records(&self, battle: i64) -> Result<Vec<LogRecord>, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        battles::records(&tx, battle)
    }

    /// A stored battle's row.
    pub fn battle(&self, battle: i64) -> Result<BattleRecord, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        battles::read(&tx, battle)?.ok_or_else(|| StoreError::NotFound(format!("battle {battle}")))
    }

    /// Every stored battle's row, oldest first.
    pub fn battles(&self) -> Result<Vec<BattleRecord>, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        battles::all(&tx)
    }

    /// Every battle's id, oldest first.
    pub fn battle_ids(&self) -> Result<Vec<i64>, StoreError> {
        battles::ids(&self.conn)
    }
}
