//! Deciding whether a file may be opened as ours, without changing it until it has passed.
//!
//! The order is the safety argument:
//! 1. read the 100-byte header with plain file I/O: not "SQLite format 3\0" → [`StoreError::NotSqlite`];
//!    a schema version above ours → [`StoreError::TooNew`]. Nothing is created, not even a lock file.
//! 2. take the lock file `<db>.lock` ([`acquire_lock`]) so no other Powderhorn changes the file while
//!    we look at it (and none can open it after us).
//! 3. check the header against the file's length (truncation), then open the file **read-only**,
//!    as `immutable` when it has no `-wal` beside it (so SQLite creates no `-wal`/`-shm` next to a
//!    file that may not be ours), and read `user_version`, `application_id` and `PRAGMA quick_check`.
//! 4. only then does the caller open it read-write and switch it to WAL (which rewrites header bytes).

use super::error::StoreError;
use super::schema::{APPLICATION_ID, LATEST_SCHEMA};
use rusqlite::{Connection, ErrorCode, OpenFlags};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Read;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 16] = b"SQLite format 3\0";
const HEADER_LEN: usize = 100;

/// What is at the path before we open it.
pub(crate) enum FileState {
    /// No file: a new database is created.
    Missing,
    /// A 0-byte file (e.g. made by `touch`): treated as new.
    Empty,
    /// An SQLite header (checked for magic only).
    Sqlite { header: Header, len: u64 },
}

/// The fields of the SQLite file header we check (https://sqlite.org/fileformat.html §1.3).
pub(crate) struct Header {
    page_size: u64,
    write_version: u8,
    read_version: u8,
    change_counter: u32,
    pages: u32,
    valid_for: u32,
    user_version: i32,
}

fn be_u32(buf: &[u8], at: usize) -> u32 {
    buf.get(at..at + 4)
        .and_then(|s| <[u8; 4]>::try_from(s).ok())
        .map_or(0, u32::from_be_bytes)
}

fn byte(buf: &[u8], at: usize) -> u8 {
    buf.get(at).copied().unwrap_or(0)
}

/// `<db>.lock`: the file whose OS lock says "this database is open in a Powderhorn".
pub fn lock_path(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

pub(crate) fn wal_path(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push("-wal");
    PathBuf::from(s)
}

/// Step 1: reads what is at `path` with plain file I/O, refusing what is plainly not ours.
pub(crate) fn inspect_file(path: &Path) -> Result<FileState, StoreError> {
    let io = |action, source| StoreError::Io {
        action,
        path: path.to_path_buf(),
        source,
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileState::Missing),
        Err(e) => return Err(io("open", e)),
    };
    let meta = file.metadata().map_err(|e| io("read", e))?;
    if meta.is_dir() {
        return Err(io(
            "open",
            std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "it is a folder; a database is a file",
            ),
        ));
    }
    let len = meta.len();
    if len == 0 {
        return Ok(FileState::Empty);
    }
    let mut buf = Vec::with_capacity(HEADER_LEN);
    file.take(HEADER_LEN as u64)
        .read_to_end(&mut buf)
        .map_err(|e| io("read", e))?;
    if buf.get(..MAGIC.len()) != Some(&MAGIC[..]) {
        return Err(StoreError::NotSqlite {
            path: path.to_path_buf(),
        });
    }
    if buf.len() < HEADER_LEN {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: format!(
                "the file is only {} bytes long, shorter than the 100-byte SQLite header: it was truncated",
                buf.len()
            ),
        });
    }
    let raw_page = u16::from_be_bytes([byte(&buf, 16), byte(&buf, 17)]);
    let header = Header {
        page_size: if raw_page == 1 {
            65536
        } else {
            u64::from(raw_page)
        },
        write_version: byte(&buf, 18),
        read_version: byte(&buf, 19),
        change_counter: be_u32(&buf, 24),
        pages: be_u32(&buf, 28),
        valid_for: be_u32(&buf, 92),
        user_version: be_u32(&buf, 60).cast_signed(),
    };
    Ok(FileState::Sqlite { header, len })
}

/// Step 1 (cont.): a schema version above ours is refused before anything is created.
pub(crate) fn refuse_too_new(path: &Path, h: &Header) -> Result<(), StoreError> {
    match u32::try_from(h.user_version) {
        Ok(found) if found > LATEST_SCHEMA => Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found,
            supported: LATEST_SCHEMA,
        }),
        _ => Ok(()),
    }
}

/// Step 3a (under the lock): the header must describe a file of this length.
pub(crate) fn check_header(path: &Path, h: &Header, len: u64) -> Result<(), StoreError> {
    let corrupt = |detail: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        detail,
    };
    if !(512..=65536).contains(&h.page_size) || !h.page_size.is_power_of_two() {
        return Err(corrupt(format!(
            "its header gives a page size of {} bytes, which SQLite never writes",
            h.page_size
        )));
    }
    if !(1..=2).contains(&h.write_version) || !(1..=2).contains(&h.read_version) {
        return Err(StoreError::Unsupported {
            path: path.to_path_buf(),
            detail: format!(
                "its header gives file-format versions {}/{}; this SQLite knows 1 and 2",
                h.write_version, h.read_version
            ),
        });
    }
    if !len.is_multiple_of(h.page_size) {
        return Err(corrupt(format!(
            "it is {len} bytes long, not a whole number of {}-byte pages: it was truncated or appended to",
            h.page_size
        )));
    }
    let have = len / h.page_size;
    if !wal_path(path).exists() && h.valid_for == h.change_counter && u64::from(h.pages) > have {
        return Err(corrupt(format!(
            "its header counts {} pages but the file holds only {have}: it was truncated",
            h.pages
        )));
    }
    Ok(())
}

/// Is this I/O error "you may not write here" (permissions, a read-only file system)?
pub(crate) fn is_read_only(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
    )
}

/// Step 1 (cont.): an existing file this user may not write is refused before anything is
/// created beside it, with the real cause (not "damaged"). Opening for writing changes nothing.
pub(crate) fn refuse_unwritable(path: &Path) -> Result<(), StoreError> {
    match OpenOptions::new().read(true).write(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) if is_read_only(&e) => Err(StoreError::ReadOnly {
            path: path.to_path_buf(),
            detail: format!("the file may not be written ({e})"),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(StoreError::Io {
            action: "open",
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Step 2b: an OS lock on the database file itself, whatever name it was opened by: a symlink, a
/// hard link or a deleted `.lock` file cannot let a second writer in. `shared` for a read-only
/// look (readers may share; a writer excludes all). flock-style locks, which SQLite's own
/// (fcntl) locks on Linux and macOS neither see nor disturb.
///
/// Unix only: on Windows such a lock is mandatory and would stop SQLite reading its own file;
/// there the `.lock` file alone guards it.
pub(crate) fn lock_database_file(db: &Path, shared: bool) -> Result<Option<File>, StoreError> {
    if cfg!(not(unix)) {
        return Ok(None);
    }
    let file = File::open(db).map_err(|source| StoreError::Io {
        action: "open",
        path: db.to_path_buf(),
        source,
    })?;
    let taken = if shared {
        file.try_lock_shared()
    } else {
        file.try_lock()
    };
    match taken {
        Ok(()) => Ok(Some(file)),
        Err(TryLockError::WouldBlock) => Err(StoreError::Locked {
            path: db.to_path_buf(),
            lock: db.to_path_buf(),
        }),
        Err(TryLockError::Error(source)) => Err(StoreError::Io {
            action: "lock",
            path: db.to_path_buf(),
            source,
        }),
    }
}

/// Step 2: takes `<db>.lock` for the Store's lifetime; another holder means another window.
pub(crate) fn acquire_lock(db: &Path) -> Result<File, StoreError> {
    let lock = lock_path(db);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock)
        .map_err(|source| {
            if is_read_only(&source) {
                StoreError::ReadOnly {
                    path: db.to_path_buf(),
                    detail: format!(
                        "its folder may not be written, so no lock file can be made beside it \
                         ({source})"
                    ),
                }
            } else {
                StoreError::Io {
                    action: "create the lock file",
                    path: lock.clone(),
                    source,
                }
            }
        })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(StoreError::Locked {
            path: db.to_path_buf(),
            lock,
        }),
        Err(TryLockError::Error(source)) => Err(StoreError::Io {
            action: "lock",
            path: lock,
            source,
        }),
    }
}

/// What the read-only look found.
pub(crate) enum Existing {
    /// An SQLite file with nothing in it (no schema, no ids): ours to set up.
    Blank,
    /// A Powderhorn database at this schema version (≤ ours).
    Ours,
}

/// Turns an SQLite error met while opening or checking into the message the user should see:
/// damage, another program's lock and a read-only file each get their own cause and cure.
pub(crate) fn classify(path: &Path, e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt) => StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("SQLite says: {e}"),
        },
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => StoreError::Busy {
            path: path.to_path_buf(),
            detail: e.to_string(),
        },
        Some(ErrorCode::ReadOnly) => StoreError::ReadOnly {
            path: path.to_path_buf(),
            detail: format!("SQLite says: {e}"),
        },
        _ => StoreError::Sql(e),
    }
}

/// A read-only connection for [`super::Store::open_read`]: `immutable` when no `-wal` is beside
/// the file (nothing is created next to it), plain read-only otherwise (SQLite must read the
/// `-wal` an earlier session left).
pub(crate) fn connect_readonly(path: &Path) -> Result<Connection, StoreError> {
    if wal_path(path).exists() {
        Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
    } else {
        Connection::open_with_flags(
            immutable_uri(path)?,
            OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_URI
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
    }
    .map_err(|e| classify(path, e))
}

/// A `file:` URI for `path` with `immutable=1`: read without locks, journals or side files.
fn immutable_uri(path: &Path) -> Result<String, StoreError> {
    let abs = std::path::absolute(path).map_err(|source| StoreError::Io {
        action: "find the full path of",
        path: path.to_path_buf(),
        source,
    })?;
    #[cfg(unix)]
    let (prefix, bytes) = {
        use std::os::unix::ffi::OsStrExt;
        ("file://", abs.as_os_str().as_bytes().to_vec())
    };
    #[cfg(not(unix))]
    let (prefix, bytes) = {
        let Some(s) = abs.to_str() else {
            return Err(StoreError::Invalid(format!(
                "{} cannot be opened: its path is not valid Unicode",
                path.display()
            )));
        };
        ("file:///", s.replace('\\', "/").into_bytes())
    };
    let mut uri = String::from(prefix);
    for b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~/:".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    Ok(uri)
}

/// Step 3b (under the lock): a read-only look inside. Changes nothing and creates no side files
/// unless a `-wal` from an earlier session already exists (then SQLite must read it).
pub(crate) fn inspect_readonly(path: &Path) -> Result<(Existing, Connection), StoreError> {
    let conn = connect_readonly(path)?;

    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| classify(path, e))?;
    if version > i64::from(LATEST_SCHEMA) {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found: u32::try_from(version).unwrap_or(u32::MAX),
            supported: LATEST_SCHEMA,
        });
    }

    let problems: Vec<String> = (|| {
        let mut stmt = conn.prepare("PRAGMA quick_check(5)")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<Result<Vec<_>, _>>()
    })()
    .map_err(|e| classify(path, e))?;
    if problems != ["ok"] {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("SQLite's integrity check found: {}", problems.join("; ")),
        });
    }

    let app: i64 = conn
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .map_err(|e| classify(path, e))?;
    let objects: i64 = conn
        .query_row("SELECT COUNT(*) FROM sqlite_schema", [], |r| r.get(0))
        .map_err(|e| classify(path, e))?;
    if app == i64::from(APPLICATION_ID) {
        Ok((Existing::Ours, conn))
    } else if app == 0 && version == 0 && objects == 0 {
        Ok((Existing::Blank, conn))
    } else {
        Err(StoreError::Foreign {
            path: path.to_path_buf(),
            detail: format!(
                "its application id is {app:#x} rather than Powderhorn's {APPLICATION_ID:#x}, \
                 at schema version {version}, with {objects} tables and indexes"
            ),
        })
    }
}
