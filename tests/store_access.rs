//! Who may open a database, under which name, and what they are told when they may not
//! (#22 items 3 and 4): the lock is on the file itself, so a symlink, a hard link or a deleted
//! `.lock` file cannot let a second writer in; a read-only file, a file busy in another program
//! and a newer SQLite format each get their own message naming the file, never "damaged"; a
//! read-only database still serves the commands that only read, and leaves nothing beside it;
//! a refused file gets no `.lock` left beside it.

use powderhorn::store::{lock_path, Store, StoreError};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The tests of this file run one at a time. One of them starts processes, and a process
/// started (forked) while another test holds a database's lock keeps a copy of that lock until
/// it has started its program: under load a lock test then sees its own file locked by nobody
/// it knows.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn side_file(db: &Path, suffix: &str) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn new_db(dir: &tempfile::TempDir) -> PathBuf {
    let db = dir.path().join("club.db");
    drop(Store::open(&db).expect("a new database"));
    db
}

fn locked(r: Result<Store, StoreError>, what: &str) {
    match r {
        Err(StoreError::Locked { .. }) => {}
        Err(e) => panic!("{what}: expected the lock refusal, got: {e}"),
        Ok(_) => panic!("{what}: a second writer got in"),
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_a_hard_link_or_a_deleted_lock_file_cannot_let_a_second_writer_in() {
    let _serial = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(&dir);
    let link = dir.path().join("shortcut.db");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let hard = dir.path().join("hard.db");
    std::fs::hard_link(&db, &hard).unwrap();

    let first = Store::open(&db).unwrap();
    locked(Store::open(&link), "through a symlink");
    locked(Store::open(&hard), "through a hard link");
    std::fs::remove_file(lock_path(&db)).unwrap();
    locked(Store::open(&db), "after the .lock file was deleted");
    // A read-only look is refused too while a writer holds the file.
    locked(Store::open_read(&hard), "a reader through a hard link");
    drop(first);

    // Once the writer has gone, each name opens (one at a time).
    for name in [&db, &link, &hard] {
        let s = Store::open(name).unwrap_or_else(|e| panic!("{}: {e}", name.display()));
        assert!(!s.scenario_summaries().unwrap().is_empty());
    }
    // The hard link's WAL was never separate from the file's: nothing committed was lost.
    assert!(!side_file(&hard, "-wal").exists());
}

#[test]
fn a_refused_file_gets_no_lock_file_left_beside_it() {
    let _serial = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("someone-elses.sqlite");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch("CREATE TABLE birds (name TEXT); INSERT INTO birds VALUES ('wren');")
            .unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    match Store::open(&db) {
        Err(StoreError::Foreign { .. }) => {}
        other => panic!("expected a foreign-file refusal, got {:?}", other.err()),
    }
    assert!(
        !lock_path(&db).exists(),
        "an empty .lock was left beside a refused file"
    );
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

#[test]
fn a_newer_sqlite_format_is_named_as_such_not_as_damage() {
    let _serial = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(&dir);
    let mut bytes = std::fs::read(&db).unwrap();
    // File-format read/write versions (header bytes 18 and 19): 3 is beyond this SQLite.
    bytes[18] = 3;
    bytes[19] = 3;
    std::fs::write(&db, &bytes).unwrap();
    let e = Store::open(&db).err().expect("refused");
    assert!(matches!(e, StoreError::Unsupported { .. }), "got {e:?}");
    let text = e.to_string();
    assert!(text.contains(&db.display().to_string()), "{text}");
    assert!(!text.contains("is damaged"), "{text}");
    assert!(!text.contains("backup"), "{text}");
    assert_eq!(std::fs::read(&db).unwrap(), bytes);
    assert!(!lock_path(&db).exists());
}

#[test]
fn a_database_busy_in_another_program_says_so_and_names_the_file() {
    let _serial = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(&dir);
    // Another program (say an SQLite browser) takes the file for itself.
    let other = rusqlite::Connection::open(&db).unwrap();
    other
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
        .unwrap();
    other
        .execute_batch("CREATE TABLE other_programs_table (x INTEGER);")
        .unwrap();
    let e = Store::open(&db)
        .err()
        .expect("refused while the other program holds it");
    assert!(matches!(e, StoreError::Busy { .. }), "got {e:?}");
    let text = e.to_string();
    assert!(text.contains(&db.display().to_string()), "{text}");
    assert!(text.contains("another program"), "{text}");
    assert!(!text.contains("is damaged"), "{text}");
    drop(other);
    assert!(
        Store::open(&db).is_ok(),
        "free again once the other program is done"
    );
}

/// Runs the command line as a user who may not write the database or its folder: as root, by
/// dropping to `nobody` with setpriv (root may write anything); as anyone else, directly.
#[cfg(unix)]
#[test]
fn a_read_only_database_serves_reading_commands_and_refuses_writes_by_name() {
    let _serial = one_at_a_time();
    use std::os::unix::fs::PermissionsExt;
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false);
    if is_root && Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped: running as root without setpriv, so nothing here is read-only");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The binary, where `nobody` may run it.
    let bin = dir.path().join("powderhorn");
    std::fs::copy(env!("CARGO_BIN_EXE_powderhorn"), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let db = data.join("club.db");
    drop(Store::open(&db).unwrap());
    let scenario = dir.path().join("ebelsberg.json");
    let run = |args: &[&str]| {
        let mut c = if is_root {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(&bin);
            c
        } else {
            Command::new(&bin)
        };
        c.arg("--db").arg(&db).args(args).output().unwrap()
    };
    // Export a scenario while still writable (to import it later).
    let out = Command::new(&bin)
        .arg("--db")
        .arg(&db)
        .args(["scenario", "export", "1809-ebelsberg", "--out"])
        .arg(&scenario)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::set_permissions(&scenario, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o555)).unwrap();
    let before = std::fs::read(&db).unwrap();

    let list = run(&["scenario", "list"]);
    assert!(
        list.status.success(),
        "reading a read-only database failed: {}",
        String::from_utf8_lossy(&list.stderr)
    );
    assert!(String::from_utf8_lossy(&list.stdout).contains("1809-ebelsberg"));
    let battles = run(&["battle", "list"]);
    assert!(
        battles.status.success(),
        "{}",
        String::from_utf8_lossy(&battles.stderr)
    );

    let import = run(&[
        "scenario",
        "import",
        "--replace",
        scenario.to_str().unwrap(),
    ]);
    assert!(
        !import.status.success(),
        "an import into a read-only database succeeded"
    );
    let err = String::from_utf8_lossy(&import.stderr);
    assert!(err.contains(&db.display().to_string()), "{err}");
    assert!(err.contains("cannot be changed"), "{err}");
    assert!(
        !err.contains("is damaged") && !err.contains("backup"),
        "{err}"
    );

    for suffix in ["-wal", "-shm", ".lock"] {
        assert!(
            !side_file(&db, suffix).exists(),
            "{suffix} left beside a read-only database"
        );
    }
    assert_eq!(std::fs::read(&db).unwrap(), before, "the file changed");
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
}
