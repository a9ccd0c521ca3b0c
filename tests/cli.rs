//! The command line, run as a user runs it: exit codes 0 (fine), 1 (the check found problems),
//! 2 (the input could not be used), and never a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_powderhorn"))
}

fn run(db: &Path, args: &[&str]) -> Output {
    let out = bin()
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("run powderhorn");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    out
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

struct Tmp {
    dir: tempfile::TempDir,
}

impl Tmp {
    fn new() -> Self {
        Tmp {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn db(&self) -> PathBuf {
        self.path("powderhorn.sqlite")
    }
}

#[test]
fn db_init_creates_then_opens_the_seeded_database() {
    let t = Tmp::new();
    let db = t.path("sub/dir/p.sqlite");
    let o = run(&db, &["db", "init"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).starts_with("created"), "{}", stdout(&o));
    assert!(db.exists());
    let o = run(&db, &["db", "init"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).starts_with("opened"));
    assert!(stdout(&o).contains("12 army lists"), "{}", stdout(&o));
}

#[test]
fn lists_json_gives_counts_and_completeness_of_every_list() {
    let t = Tmp::new();
    let o = run(&t.db(), &["lists", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let rows = v.as_array().expect("array");
    let get = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} missing"))
    };
    let expect = [
        ("acw-union", 20, 12, true),
        ("acw-confederate", 16, 12, true),
        ("nap-french", 32, 12, true),
        ("nap-british", 0, 12, false),
        ("nap-spanish", 21, 12, true),
        ("nap-austrian", 19, 12, true),
        ("nap-prussian", 0, 12, false),
        ("nap-russian", 20, 12, true),
        ("fpw-french", 13, 12, true),
        ("fpw-prussian", 12, 12, true),
        ("18c", 17, 12, true),
        ("colonial", 29, 6, true),
    ];
    assert_eq!(rows.len(), expect.len());
    for (id, troops, command, complete) in expect {
        let r = get(id);
        assert_eq!(r["troop_rows"], troops, "{id}");
        assert_eq!(r["command_rows"], command, "{id}");
        assert_eq!(r["complete"], complete, "{id}");
    }
    let o = run(&t.db(), &["lists"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("nap-british") && stdout(&o).contains("incomplete"));
}

#[test]
fn scenario_export_validate_import_round_trip_and_exit_codes() {
    let t = Tmp::new();
    let db = t.db();
    let o = run(&db, &["scenario", "list"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("1809-ebelsberg"), "{}", stdout(&o));

    let file = t.path("ebelsberg.json");
    let o = run(
        &db,
        &[
            "scenario",
            "export",
            "1809-ebelsberg",
            "--out",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The sample is legal: exit 0.
    let o = run(&db, &["scenario", "validate", file.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("no violations"));
    assert!(!stdout(&o).contains("advice"), "{}", stdout(&o));

    // BAS-04: a table below the book's size is advised, and advice fails nothing. (The worked
    // example's 120 × 90 cm table: shrinking the sample's table would leave its terrain and
    // troops off the table, which is refused, DATA-08 and DATA-10.)
    let small_file = t.path("small.json");
    std::fs::write(&small_file, worked_example(|_| {})).unwrap();
    let o = run(&db, &["scenario", "validate", small_file.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o)
            .lines()
            .any(|l| l.starts_with("advice BAS-04: the table is 120 × 90 cm")),
        "{}",
        stdout(&o)
    );

    // Importing over the stored one needs --replace.
    let o = run(&db, &["scenario", "import", file.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--replace"), "{}", stderr(&o));
    let o = run(
        &db,
        &["scenario", "import", "--replace", file.to_str().unwrap()],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));

    // Unknown scenario name: 2, naming what is stored.
    let o = run(
        &db,
        &[
            "scenario",
            "export",
            "Austerlitz",
            "--out",
            t.path("x.json").to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("1809-ebelsberg"));
    assert!(!t.path("x.json").exists());
}

#[test]
fn scenario_validate_prints_every_violation_with_its_rule_and_exits_1() {
    let t = Tmp::new();
    let db = t.db();
    let file = t.path("s.json");
    let o = run(
        &db,
        &[
            "scenario",
            "export",
            "1809-ebelsberg",
            "--out",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    // Break three rules: a unit of 1 stand, a troop type not in the list, a second CO.
    v["sides"][0]["units"][0]["stands"] = 1.into();
    v["sides"][0]["units"][1]["troop_type"] = "grenz-infantry-typo".into();
    let mut rival = v["sides"][0]["hqs"][1].clone();
    rival["id"] = 999.into();
    rival["parent"] = serde_json::Value::Null;
    v["sides"][0]["hqs"].as_array_mut().unwrap().push(rival);
    std::fs::write(&file, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let o = run(&db, &["scenario", "validate", file.to_str().unwrap()]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    for rule in ["ARMY-03", "DATA-02", "CMD-27"] {
        assert!(
            out.lines().any(|l| l.starts_with(rule)),
            "{rule} missing:\n{out}"
        );
    }
    assert!(out.contains("grenz-infantry-typo"));
}

#[test]
fn scenario_validate_exits_2_on_unreadable_or_malformed_files_naming_file_line_and_field() {
    let t = Tmp::new();
    let db = t.db();
    let missing = t.path("nope.json");
    let o = run(&db, &["scenario", "validate", missing.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("nope.json"));

    let bad = t.path("bad.json");
    std::fs::write(
        &bad,
        "{\n  \"format\": 1,\n  \"id\": \"x\",\n  \"name\": \"X\",\n  \"points\": \"lots\"\n}\n",
    )
    .unwrap();
    let o = run(&db, &["scenario", "validate", bad.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(e.contains("bad.json:5:"), "{e}");
    assert!(e.contains("\"lots\""), "{e}");

    let missing_field = t.path("missing.json");
    std::fs::write(
        &missing_field,
        "{\"format\":1,\"id\":\"x\",\"name\":\"X\",\"turn_limit\":8,\"sides\":[]}",
    )
    .unwrap();
    let o = run(
        &db,
        &["scenario", "validate", missing_field.to_str().unwrap()],
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("missing field `points`"),
        "{}",
        stderr(&o)
    );

    let newer = t.path("newer.json");
    std::fs::write(&newer, "{\"format\": 99, \"whatever\": true}").unwrap();
    let o = run(&db, &["scenario", "validate", newer.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("newer"), "{}", stderr(&o));

    let binary = t.path("binary.json");
    std::fs::write(&binary, [0xff_u8, 0xfe, 0x00, 0x12]).unwrap();
    let o = run(&db, &["scenario", "validate", binary.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
}

#[test]
fn a_database_that_is_not_ours_is_refused_with_exit_2_and_left_unchanged() {
    let t = Tmp::new();
    let db = t.path("notes.txt");
    let text = b"These are my campaign notes, not a database.\n".repeat(200);
    std::fs::write(&db, &text).unwrap();
    for args in [
        &["db", "init"][..],
        &["lists"][..],
        &["scenario", "list"][..],
    ] {
        let o = run(&db, args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(stderr(&o).contains("notes.txt"), "{}", stderr(&o));
    }
    assert_eq!(std::fs::read(&db).unwrap(), text);
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let t = Tmp::new();
    assert_eq!(code(&run(&t.db(), &["frobnicate"])), 2);
    assert_eq!(
        code(&run(&t.db(), &["scenario", "export", "x"])),
        2,
        "missing --out"
    );
    let o = run(&t.db(), &["--help"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("scenario"));
}

#[test]
fn export_roster_and_labels_from_a_stored_scenario_and_from_a_file() {
    let t = Tmp::new();
    let db = t.db();
    let roster = t.path("roster.pdf");
    let o = run(
        &db,
        &[
            "export",
            "roster",
            "1809-ebelsberg",
            "--out",
            roster.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(&roster).unwrap().starts_with(b"%PDF"));
    let file = t.path("s.json");
    assert_eq!(
        code(&run(
            &db,
            &[
                "scenario",
                "export",
                "1809-ebelsberg",
                "--out",
                file.to_str().unwrap()
            ]
        )),
        0
    );
    let labels = t.path("labels.pdf");
    let o = run(
        &db,
        &[
            "export",
            "labels",
            file.to_str().unwrap(),
            "--out",
            labels.to_str().unwrap(),
            "--per",
            "unit",
            "--paper",
            "letter",
            "--scale",
            "brigade",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(&labels).unwrap().starts_with(b"%PDF"));
    // One side only, by name.
    let o = run(
        &db,
        &[
            "export",
            "roster",
            "1809-ebelsberg",
            "--out",
            roster.to_str().unwrap(),
            "--side",
            "nobody",
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("nobody"), "{}", stderr(&o));
}

#[test]
fn export_of_an_empty_order_of_battle_writes_nothing_and_keeps_an_old_file() {
    let t = Tmp::new();
    let db = t.db();
    let file = t.path("s.json");
    assert_eq!(
        code(&run(
            &db,
            &[
                "scenario",
                "export",
                "1809-ebelsberg",
                "--out",
                file.to_str().unwrap()
            ]
        )),
        0
    );
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    v["sides"][1]["units"] = serde_json::json!([]);
    std::fs::write(&file, v.to_string()).unwrap();
    let out = t.path("old.pdf");
    std::fs::write(&out, b"keep me").unwrap();
    let o = run(
        &db,
        &[
            "export",
            "labels",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no units"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    let o = run(
        &db,
        &[
            "export",
            "roster",
            "no-such.json",
            "--out",
            t.path("x.pdf").to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(!t.path("x.pdf").exists());
}

#[test]
fn battle_autoplay_plays_a_file_or_a_stored_scenario_and_refuses_bad_input() {
    let t = Tmp::new();
    let db = t.db();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("campaigns/danube-1809/ebelsberg.json");
    let sample = sample.to_str().expect("utf-8 path");
    // One run from the file: one line with the verdict, VPs, turns, stands lost and dice.
    let o = run(
        &db,
        &[
            "battle",
            "autoplay",
            sample,
            "--seed",
            "3",
            "--max-turns",
            "2",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    // #22 item 7: each side named once in full, then by its short name; the line says whose
    // VPs are whose and why the battle ended as it did.
    assert!(
        text.starts_with(
            "sides: French = French: Masséna's advance guard; Austrian = Austrian: Hiller's rearguard\n"
        ),
        "{text}"
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("seed 3: "))
        .unwrap_or_default();
    assert!(
        // The Austrians hold the town at the end of turn 2: their major objective.
        line.contains(
            "Austrian wins, Decisive Victory: Austrian reached a major objective (OBJ-01)."
        ) && line.contains("VPs French ")
            && line.contains(" – Austrian ")
            && line.contains("2 turns")
            && line.contains("dice"),
        "{line}"
    );
    assert_eq!(line.matches("Masséna").count(), 0, "{line}");
    // Several runs of the stored sample, as JSON: seeds N, N+1, … and the summary.
    let o = run(
        &db,
        &[
            "battle",
            "autoplay",
            "1809-ebelsberg",
            "--seed",
            "10",
            "--runs",
            "2",
            "--json",
            "--max-turns",
            "1",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["runs"][1]["seed"], 11);
    assert_eq!(v["runs"][0]["turns"], 1);
    assert_eq!(v["summary"]["runs"], 2);
    let rates = v["summary"]["win_rate"][0].as_f64().unwrap_or(-1.0)
        + v["summary"]["win_rate"][1].as_f64().unwrap_or(-1.0)
        + v["summary"]["draw_rate"].as_f64().unwrap_or(-1.0);
    assert!((rates - 1.0).abs() < 1e-9, "{v}");
    // Bad input: exit 2 with a clear message.
    let o = run(
        &db,
        &["battle", "autoplay", "no-such-scenario", "--seed", "1"],
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no-such-scenario"), "{}", stderr(&o));
    let o = run(
        &db,
        &["battle", "autoplay", sample, "--seed", "1", "--runs", "0"],
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--runs"), "{}", stderr(&o));
    let o = run(&db, &["battle", "autoplay", sample, "--seed", "x"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // #20: a policy per side, and the plans explained.
    let o = run(
        &db,
        &[
            "battle",
            "autoplay",
            sample,
            "--seed",
            "3",
            "--max-turns",
            "2",
            "--policy",
            "0=standard,1=hold",
            "--explain",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("policies: French standard, Austrian hold"),
        "{text}"
    );
    assert!(text.contains("French: Brigade Coëhorn — "), "{text}");
    for bad in ["0=bold", "2=hold", "hold"] {
        let o = run(
            &db,
            &["battle", "autoplay", sample, "--seed", "1", "--policy", bad],
        );
        assert_eq!(code(&o), 2, "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("--policy"), "{}", stderr(&o));
    }
}

/// A battle file over the Ebelsberg sample with these actions (free orders, seed 3).
fn battle_file(t: &Tmp, name: &str, actions: serde_json::Value) -> PathBuf {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("campaigns/danube-1809/ebelsberg.json");
    let v = serde_json::json!({
        "format": 1, "scenario": sample, "dice": {"seed": 3}, "orders": "free",
        "actions": actions
    });
    let path = t.path(name);
    std::fs::write(&path, v.to_string()).expect("write the battle file");
    path
}

#[test]
fn battle_replay_prints_the_battle_before_a_refused_action_and_the_refusal_and_exits_1() {
    let t = Tmp::new();
    let db = t.db();
    let before = serde_json::json!([{"action": "end_phase"}, {"action": "end_phase"}]);
    let mut with_refusal = before.clone();
    if let Some(a) = with_refusal.as_array_mut() {
        // END-03: there are sides 0 and 1 only. Actions after the refused one are not read.
        a.push(serde_json::json!({"action": "concede", "side": 5}));
        a.push(serde_json::json!({"action": "end_phase"}));
    }
    let good = battle_file(&t, "good.json", before);
    let bad = battle_file(&t, "bad.json", with_refusal);
    let bad_arg = bad.to_str().expect("utf-8 path");

    // --json: the report of the battle as it stood before actions[2], plus `refused`.
    let o = run(
        &db,
        &["battle", "replay", good.to_str().expect("utf-8"), "--json"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut expected: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(expected["turn"]["phase"], "command");
    expected["refused"] = serde_json::json!({
        "index": 2, "action": "concede", "rule": "END-03", "message": "there is no side 6"
    });
    let o = run(&db, &["battle", "replay", bad_arg, "--json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let got: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(got, expected);

    // Text: the same table and events, then the refusal naming the file, index, action, rule.
    let o = run(&db, &["battle", "replay", bad_arg]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    let ok = stdout(&run(
        &db,
        &["battle", "replay", good.to_str().expect("utf-8")],
    ));
    assert!(
        text.starts_with(&ok),
        "the battle before the refusal:\n{text}"
    );
    let rest = &text[ok.len()..];
    assert!(
        rest.starts_with(&format!(
            "refused: {bad_arg}: actions[2] (concede): END-03: there is no side 6\n"
        )),
        "{rest}"
    );

    // A file that cannot be used still exits 2, with nothing on stdout.
    std::fs::write(t.path("broken.json"), "{\"format\": 1, \"actions\": [").expect("write");
    let o = run(
        &db,
        &[
            "battle",
            "replay",
            t.path("broken.json").to_str().expect("utf-8"),
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(stdout(&o).is_empty());
    assert!(stderr(&o).contains("broken.json"), "{}", stderr(&o));
    let o = run(
        &db,
        &[
            "battle",
            "replay",
            t.path("missing.json").to_str().expect("utf-8"),
        ],
    );
    assert_eq!(code(&o), 2);
    let o = run(
        &db,
        &[
            "battle",
            "replay",
            battle_file(
                &t,
                "malformed.json",
                serde_json::json!([{"action": "concede", "side": "x"}]),
            )
            .to_str()
            .expect("utf-8"),
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("actions[0]"), "{}", stderr(&o));
}

// --- issue #22: hostile input refused at the boundary ------------------------------------------

/// Runs the binary and fails (killing it) if it has not finished within `secs`: a command that
/// reads a pipe or a device would otherwise hang the test.
fn run_within(db: &Path, args: &[&std::ffi::OsStr], secs: u64) -> Output {
    let mut child = bin()
        .arg("--db")
        .arg(db)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run powderhorn");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} did not finish within {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    out
}

#[test]
fn files_that_are_pipes_devices_or_oversized_are_refused_before_reading() {
    let t = Tmp::new();
    let fifo = t.path("pipe.json");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let big = t.path("big.json");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(17 * 1024 * 1024))
        .expect("a sparse 17 MiB file");
    // A battle file whose scenario is the pipe.
    let battle = t.path("battle.json");
    std::fs::write(
        &battle,
        r#"{"format": 1, "dice": {"seed": 1}, "scenario": "pipe.json", "actions": []}"#,
    )
    .expect("write battle file");
    let zero = Path::new("/dev/zero");
    let cases: Vec<(Vec<&std::ffi::OsStr>, &str)> = vec![
        (
            vec!["scenario".as_ref(), "validate".as_ref(), fifo.as_os_str()],
            "not a regular file",
        ),
        (
            vec!["scenario".as_ref(), "import".as_ref(), fifo.as_os_str()],
            "not a regular file",
        ),
        (
            vec!["scenario".as_ref(), "validate".as_ref(), zero.as_os_str()],
            "not a regular file",
        ),
        (
            vec!["battle".as_ref(), "replay".as_ref(), zero.as_os_str()],
            "not a regular file",
        ),
        (
            vec!["battle".as_ref(), "replay".as_ref(), battle.as_os_str()],
            "not a regular file",
        ),
        (
            vec!["scenario".as_ref(), "validate".as_ref(), big.as_os_str()],
            "it is 17.0 MiB; scenario and battle files are at most 16 MiB",
        ),
        (
            vec!["battle".as_ref(), "replay".as_ref(), big.as_os_str()],
            "it is 17.0 MiB; scenario and battle files are at most 16 MiB",
        ),
    ];
    for (args, says) in cases {
        let o = run_within(&t.db(), &args, 60);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(says), "{args:?}: {err}");
        let named = args.last().map(|a| a.to_string_lossy().into_owned());
        let named = named.unwrap_or_default();
        let file = Path::new(&named)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert!(err.contains(&file), "{args:?} must name the file: {err}");
    }
}

/// The worked example of docs/scenario-format.md with `edit` applied to its JSON.
fn worked_example(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scenario-format.md"),
    )
    .expect("read the format doc");
    let start = doc
        .find("```json\n{\n  \"format\": 1,")
        .expect("the worked example")
        + 8;
    let end = start + doc[start..].find("\n```").expect("its end");
    let mut v: serde_json::Value = serde_json::from_str(&doc[start..end]).expect("parses");
    edit(&mut v);
    serde_json::to_string_pretty(&v).expect("json")
}

#[test]
fn scenario_validate_reports_a_unit_off_the_table_and_import_refuses_a_one_point_wall() {
    let t = Tmp::new();
    // Issue #22 item 7: a unit placed off the table passed validation.
    let off = t.path("off.json");
    let text = worked_example(|v| {
        v["sides"][0]["units"][0]["position"]["at"] = serde_json::json!({"x": 50, "y": -40});
    });
    std::fs::write(&off, text).expect("write");
    let o = run(
        &t.db(),
        &["scenario", "validate", off.to_str().expect("utf-8")],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "DATA-10 side 'French': unit '1er bataillon' (id 1, French) at (50.0, -40.0) cm \
             stands partly off the 120 × 90 cm table"
        ),
        "{}",
        stdout(&o)
    );

    // Issue #22 item 1: a one-point wall was imported; now nothing is stored.
    let wall = t.path("wall.json");
    let text = worked_example(|v| {
        v["terrain"][3]["geometry"]["polyline"]["points"] = serde_json::json!([{"x": 72, "y": 57}]);
    });
    std::fs::write(&wall, text).expect("write");
    let w = wall.to_str().expect("utf-8");
    let o = run(&t.db(), &["scenario", "validate", w]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains(
        "DATA-05 terrain: terrain feature 'Churchyard wall' (id 4): a line needs at least two \
         points; it has 1 (at (72.0, 57.0) cm): add points or delete it"
    ));
    let o = run(&t.db(), &["scenario", "import", w]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("wall.json: not imported; fix these first:"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("'Churchyard wall' (id 4)"));
    let o = run(&t.db(), &["scenario", "list"]);
    assert_eq!(code(&o), 0);
    assert!(
        !stdout(&o).contains("example-mill-bridge"),
        "{}",
        stdout(&o)
    );
}
