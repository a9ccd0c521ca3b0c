//! The store's one error type. Every message says what went wrong, with which file or row, and
//! what the user can do about it, because the GUI and CLI show these texts as they are.

use std::path::PathBuf;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file exists but is not an SQLite database at all (a text file, an image …).
    #[error(
        "{path} is not a Powderhorn database: it is not an SQLite file at all. \
         The file was left unchanged. Choose another file, or move this one away \
         so that Powderhorn can create a new database there."
    )]
    NotSqlite { path: PathBuf },

    /// The file claims to be SQLite but is damaged (truncated, overwritten, failed integrity check).
    #[error(
        "{path} is damaged and cannot be opened safely ({detail}). The file was left unchanged. \
         Restore it from a backup (or try `sqlite3 <file> .recover`), or move it away so that \
         Powderhorn can create a new database there."
    )]
    Corrupt { path: PathBuf, detail: String },

    /// Written by a newer Powderhorn: migrating it back down is not something we can do.
    #[error(
        "{path} has database schema version {found}, but this build of Powderhorn understands \
         versions up to {supported}. The file was left unchanged. Open it with a newer Powderhorn, \
         or choose another database file."
    )]
    TooNew {
        path: PathBuf,
        found: u32,
        supported: u32,
    },

    /// A healthy SQLite database that belongs to some other program.
    #[error(
        "{path} is an SQLite database, but not a Powderhorn one ({detail}). The file was left \
         unchanged. Choose a Powderhorn database, or a path where a new one can be created."
    )]
    Foreign { path: PathBuf, detail: String },

    /// Another Store (another window or process) holds the database file, under this name or
    /// another (a symlink or hard link to the same file).
    #[error(
        "{path} is open in another Powderhorn window/process (it holds {lock}). \
         Close the other window first, or open a different database file."
    )]
    Locked { path: PathBuf, lock: PathBuf },

    /// The file or its folder may not be written by this user (permissions, a read-only disk).
    #[error(
        "{path} cannot be changed: {detail}. The file is not damaged and was left unchanged. \
         Commands that only read it still work; to change it, make the file and its folder \
         writable for your user, or copy it somewhere you can write."
    )]
    ReadOnly { path: PathBuf, detail: String },

    /// Another program (an SQLite browser, a backup tool) holds a lock inside the database.
    #[error(
        "{path} is busy: another program is using it (SQLite says: {detail}). The file was left \
         unchanged. Close the other program (an SQLite browser, a sync or backup tool), then \
         try again."
    )]
    Busy { path: PathBuf, detail: String },

    /// An SQLite file in a format this build's SQLite cannot read (written by a newer SQLite).
    #[error(
        "{path} is an SQLite file in a format this build cannot read ({detail}). The file is \
         probably not damaged and was left unchanged. Open it with a newer Powderhorn, or \
         choose another database file."
    )]
    Unsupported { path: PathBuf, detail: String },

    /// A file-system operation around the database failed.
    #[error(
        "cannot {action} {path}: {source}. Check that the folder exists, that you may write to it \
         and that the disk is not full."
    )]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// SQLite reported an error; the transaction it happened in was rolled back.
    #[error(
        "database error: {0}. Nothing of the failed change was saved. If this keeps happening, \
         the database file may be damaged: restore a backup."
    )]
    Sql(#[from] rusqlite::Error),

    /// Bringing an older database up to this build's schema failed; the migration was rolled back.
    #[error(
        "cannot update {path} from schema version {from} to {to}: {source}. The file was left at \
         version {from}. Report this, and keep using the build that wrote the file meanwhile."
    )]
    Migrate {
        path: String,
        from: u32,
        to: u32,
        // Boxed: keeps StoreError small enough to wrap in other error types.
        #[source]
        source: Box<rusqlite_migration::Error>,
    },

    /// A stored row (or a value about to be stored) does not make a valid model value. The text
    /// names the table, the row and the column.
    #[error("{0}")]
    Data(String),

    /// The scenario, list, campaign, row or battle asked for is not in the database.
    #[error(
        "{0} is not in the database; it may have been deleted. Reload the list and try again."
    )]
    NotFound(String),

    /// The built-in lists, scenarios or campaigns compiled into this build could not be written.
    #[error(
        "cannot write the data built into Powderhorn: {0}. The database was not changed by this \
         step. This build's embedded assets are broken: please report it."
    )]
    Seed(String),

    /// A change to data shipped with Powderhorn (a book list or one of its rows) was refused.
    #[error(
        "{0} ships with Powderhorn and cannot be changed or removed. Add your own rows to the \
         list, or copy it into a user list and edit that."
    )]
    Shipped(String),

    /// The change would clash with something already stored (a duplicate id).
    #[error("{0}")]
    Conflict(String),

    /// The value handed to the store cannot be saved as it is.
    #[error("{0}")]
    Invalid(String),
}
