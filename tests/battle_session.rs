//! Battle sessions (issue #16 items 2–4 and 7): a stored battle played action by action, undo
//! and redo as entries of the stored log, resuming exactly where it was left, physical dice,
//! the crash test, and the `battle` subcommands' exit codes.

#[path = "support/builder.rs"]
mod builder;

use builder::{ebelsberg, lists, u, Sc, AUS_LINE, FR_LINE};
use powderhorn::ai::Until;
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::dice::DiceError;
use powderhorn::rules::file::{parse_battle_file, replay};
use powderhorn::rules::state::Phase;
use powderhorn::rules::{Action, ActionError, DiceSource, Event};
use powderhorn::session::{NewBattle, Session, SessionError};
use powderhorn::store::{Actor, BattleStatus, LogRecord, PlayMode, Store, MIGRATIONS_SQL};
use std::path::Path;
use std::process::Command;

fn new(dice: DiceSource, mode: PlayMode) -> NewBattle {
    NewBattle {
        dice,
        orders: OrdersMode::Full,
        first_player: Some(0),
        mode,
        go_ahead: true,
        fog: false,
    }
}

/// A stored Ebelsberg battle with full orders, side 0 first.
fn ebelsberg_session(store: &mut Store, dice: DiceSource, mode: PlayMode) -> Session {
    Session::start(store, ebelsberg(), &lists(), &new(dice, mode)).expect("starts")
}

/// A stored battle's events, in effect, as `battle replay` of its exported file gives them.
fn replayed_events(session: &Session) -> Vec<Event> {
    let text = serde_json::to_string(&session.battle_file()).expect("battle file JSON");
    let file = parse_battle_file("export", &text).expect("the exported battle file parses");
    let Ok(b) = replay(&file, session.battle().scenario().clone(), lists()) else {
        panic!("the exported battle replays");
    };
    b.events().cloned().collect()
}

fn events_of(session: &Session) -> Vec<Event> {
    session.battle().events().cloned().collect()
}

#[test]
fn a_played_battle_round_trips_through_the_store_and_its_export_replays_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("p.sqlite");
    let mut store = Store::open(&db).expect("store");
    let mut s = ebelsberg_session(&mut store, DiceSource::Seed(1809), PlayMode::Computer);
    let run = s
        .play_ai(&mut store, [true, true], Until::End, &mut |_| true)
        .expect("plays");
    assert!(run.finished, "{run:?}");
    assert_eq!(s.record().status, BattleStatus::Ended);
    let id = s.id();
    drop(store);

    let store = Store::open(&db).expect("reopens");
    let back = Session::resume(&store, id).expect("resumes");
    assert_eq!(back.battle().state(), s.battle().state());
    assert_eq!(back.battle().log(), s.battle().log());
    assert_eq!(back.battle().replay_events(), *back.battle().state());
    let rec = store.battle(id).expect("row");
    assert_eq!(rec.status, BattleStatus::Ended);
    assert_eq!(rec.result, s.result());
    assert!(rec.result.is_some());
    assert_eq!(rec.entries, run.actions);
    let records = store.battle_records(id).expect("records");
    assert!(records.iter().all(|r| matches!(
        r,
        LogRecord::Action {
            actor: Actor::Computer,
            ..
        }
    )));
    // The export replays to the same events, event for event.
    assert_eq!(replayed_events(&back), events_of(&back));
}

/// SEQ-01: a battle whose sides roll off for the first move stores the roll-off with it; the
/// resumed battle and the replayed export go on with the dice after it.
#[test]
fn seq_01_a_rolled_off_battle_is_stored_resumed_and_exported_with_its_roll_off() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("p.sqlite");
    let mut store = Store::open(&db).expect("store");
    let mut sc = ebelsberg();
    sc.first_player = None;
    let how = NewBattle {
        first_player: None,
        ..new(DiceSource::Seed(1813), PlayMode::Computer)
    };
    let mut s = Session::start(&mut store, sc, &lists(), &how).expect("starts");
    let rolled = s.battle().log().roll_off.clone();
    assert!(!rolled.is_empty());
    assert_eq!(s.record().roll_off, rolled);
    assert_eq!(s.record().first_player, s.battle().log().first_player);
    s.play_ai(&mut store, [true, true], Until::Turn, &mut |_| true)
        .expect("deploys");
    s.play_ai(&mut store, [true, true], Until::Turn, &mut |_| true)
        .expect("plays a turn");
    assert!(
        s.battle().dice_position() > 2 * rolled.len(),
        "dice were rolled"
    );
    let id = s.id();
    drop(store);
    let store = Store::open(&db).expect("reopens");
    let back = Session::resume(&store, id).expect("resumes");
    assert_eq!(back.record().roll_off, rolled);
    assert_eq!(back.battle().log(), s.battle().log());
    assert_eq!(back.battle().state(), s.battle().state());
    assert_eq!(s.battle_file()["roll_off"], serde_json::json!(rolled));
    assert_eq!(replayed_events(&back), events_of(&back));
    // A battle with physical dice names the side that won the roll-off on the table.
    let mut store = Store::open_in_memory().expect("store");
    let physical = NewBattle {
        first_player: None,
        ..new(DiceSource::Physical, PlayMode::Referee)
    };
    let mut sc = ebelsberg();
    sc.first_player = None;
    let err = Session::start(&mut store, sc, &lists(), &physical)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("name the side that won"), "{err}");
}

#[test]
fn undo_and_redo_are_stored_entries_and_resume_keeps_the_redo_stack() {
    let mut store = Store::open_in_memory().expect("store");
    let mut s = ebelsberg_session(&mut store, DiceSource::Seed(7), PlayMode::Hotseat);
    let id = s.id();
    // Deployment → side 0's Initiative → Command → Charge.
    for _ in 0..3 {
        s.perform(&mut store, Action::EndPhase, Actor::Player)
            .expect("end phase");
    }
    assert_eq!(s.battle().state().turn.phase, Phase::Charge);
    assert!(s.undo(&mut store).expect("undo"));
    assert!(s.undo(&mut store).expect("undo"));
    assert_eq!(s.battle().state().turn.phase, Phase::Initiative);
    assert!(s.redo(&mut store).expect("redo"));
    assert_eq!(s.battle().state().turn.phase, Phase::Command);

    // Resume: one action to redo, the same state, and the stored log has all six entries.
    let mut back = Session::resume(&store, id).expect("resumes");
    assert_eq!(back.battle().state(), s.battle().state());
    assert_eq!(back.battle().entries().len(), 2);
    assert_eq!(back.battle().log().entries.len(), 3);
    let records = store.battle_records(id).expect("records");
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| match r {
            LogRecord::Action { .. } => "action",
            LogRecord::Undo => "undo",
            LogRecord::Redo => "redo",
        })
        .collect();
    assert_eq!(
        kinds,
        ["action", "action", "action", "undo", "undo", "redo"]
    );
    assert!(back.redo(&mut store).expect("redo after resume"));
    assert_eq!(back.battle().state().turn.phase, Phase::Charge);
    assert!(!back.redo(&mut store).expect("nothing more to redo"));
    // A new action after an undo drops the redo tail from the battle, never from the store.
    assert!(back.undo(&mut store).expect("undo"));
    back.perform(&mut store, Action::EndPhase, Actor::Player)
        .expect("end phase again");
    assert!(!back.redo(&mut store).expect("the tail is gone"));
    assert_eq!(store.battle_records(id).expect("records").len(), 9);
    let again = Session::resume(&store, id).expect("resumes");
    assert_eq!(again.battle().state(), back.battle().state());
    assert_eq!(replayed_events(&again), events_of(&again));
}

#[test]
fn a_refused_action_stores_nothing() {
    let mut store = Store::open_in_memory().expect("store");
    let mut s = ebelsberg_session(&mut store, DiceSource::Seed(7), PlayMode::Hotseat);
    let err = s
        .perform(&mut store, Action::Concede { side: 5 }, Actor::Player)
        .expect_err("no side 5");
    assert!(matches!(err, SessionError::Action(ActionError::Rule(ref r)) if r.rule == "END-03"));
    assert_eq!(store.battle(s.id()).expect("row").entries, 0);
    assert!(s.battle().entries().is_empty());
}

/// French line (4 stands) 5 cm from Austrian line (5 stands), face to face: the duel of
/// tests/engine_fire.rs, with free orders so a Fire needs no command roll.
fn duel_session(store: &mut Store) -> Session {
    let sc = Sc::nap()
        .unit(1, 1, AUS_LINE, 5, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 95.0, 0.0);
    let mut nb = new(DiceSource::Physical, PlayMode::Referee);
    nb.orders = OrdersMode::Free;
    let mut s = Session::start(store, sc.scenario(), &lists(), &nb).expect("starts");
    s.perform_with_dice(store, Action::EndPhase, &[], Actor::Referee)
        .expect("deployment ends without dice");
    assert_eq!(s.battle().state().turn.phase, Phase::Initiative);
    s
}

fn fire() -> Action {
    Action::Fire {
        firers: vec![u(0, 1)],
        target: u(1, 1),
        ammunition: None,
    }
}

#[test]
fn physical_dice_wrong_entries_are_refused_with_what_the_action_needs() {
    // The shot, worked out from the catalogue: 4 stands × 1 die (FIRE-08) + 1 die for a target
    // within half range (FIRE-11) = 5 to-hit dice; first fire adds +1 to each die (FIRE-13),
    // so the open-ground 4+ (FIRE-14) is met by 3 or more. Five 1s: no hits, so no saves and
    // no suppression dice (GEN-16 steps 5–8): exactly 5 dice.
    let mut store = Store::open_in_memory().expect("store");
    let mut s = duel_session(&mut store);
    let before = s.battle().state().clone();
    let stored = store.battle(s.id()).expect("row").entries;
    let needs_total = |e: &SessionError| match e {
        SessionError::Action(ActionError::Dice(DiceError::Needed { needs, given })) => {
            (needs.iter().map(|(_, n)| n).sum::<usize>(), *given)
        }
        other => panic!("expected a dice shortfall, got {other}"),
    };
    // Too few.
    let e = s
        .perform_with_dice(&mut store, fire(), &[1, 1, 1, 1], Actor::Referee)
        .expect_err("four dice");
    assert_eq!(needs_total(&e), (5, 4));
    assert!(e.to_string().contains("needs 5 dice"), "{e}");
    // None at all.
    let e = s
        .perform_with_dice(&mut store, fire(), &[], Actor::Referee)
        .expect_err("no dice");
    assert_eq!(needs_total(&e), (5, 0));
    // Two sixes hit twice: the Austrian line then rolls 2 save dice + 1 bonus die for a line
    // (GEN-16 step 5, FIRE-19); a save of 6 is not met by the stand-in dice, so 2 hits stand
    // and 2 suppression dice follow (step 7): 5 + 3 + 2 = 10.
    let e = s
        .perform_with_dice(&mut store, fire(), &[6, 6, 1, 1, 1], Actor::Referee)
        .expect_err("the saves are missing");
    assert_eq!(needs_total(&e), (10, 5));
    // Too many.
    let e = s
        .perform_with_dice(&mut store, fire(), &[1; 6], Actor::Referee)
        .expect_err("six dice");
    assert!(
        matches!(
            e,
            SessionError::Action(ActionError::Dice(DiceError::TooMany {
                given: 6,
                used: 5,
                ..
            }))
        ),
        "{e}"
    );
    // Not a die.
    for bad in [[1, 1, 0, 1, 1], [1, 1, 1, 7, 1]] {
        let e = s
            .perform_with_dice(&mut store, fire(), &bad, Actor::Referee)
            .expect_err("not a die");
        assert!(
            matches!(
                e,
                SessionError::Action(ActionError::Dice(DiceError::NotADie { .. }))
            ),
            "{e}"
        );
    }
    // Nothing changed, nothing stored.
    assert_eq!(s.battle().state(), &before);
    assert_eq!(store.battle(s.id()).expect("row").entries, stored);

    // The right dice: carried out, the entry marks them as entered by hand.
    s.perform_with_dice(&mut store, fire(), &[1; 5], Actor::Referee)
        .expect("five dice");
    let last = s.battle().entries().last().expect("entry").clone();
    assert_eq!(last.hand_dice, Some(vec![1; 5]));
    assert_eq!(last.dice_used, 5);
    let rolled: Vec<u8> = last
        .events
        .iter()
        .filter_map(|e| match e {
            Event::DiceRolled { dice, .. } => Some(dice.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(rolled, vec![1; 5]);
    // Resumed and exported, the hand dice replay as a script.
    let back = Session::resume(&store, s.id()).expect("resumes");
    assert_eq!(back.battle().state(), s.battle().state());
    assert_eq!(replayed_events(&back), events_of(&back));
    // Undo and redo keep the hand dice.
    let mut back = back;
    assert!(back.undo(&mut store).expect("undo"));
    assert!(back.redo(&mut store).expect("redo"));
    assert_eq!(back.battle().state(), s.battle().state());
}

/// A battle whose log was written by a build before schema 7 (test battles only) migrates
/// with the dice each entry drew counted from its events, from every earlier schema that had
/// battles; schema 1 databases migrate too.
#[test]
fn every_earlier_schema_migrates_and_old_battles_resume() {
    // A real entry: a seeded Ebelsberg battle's first actions, as schema 2 stored them.
    let mut mem = Store::open_in_memory().expect("store");
    let nb = new(DiceSource::Seed(3), PlayMode::Computer);
    let mut s = Session::start(&mut mem, ebelsberg(), &lists(), &nb).expect("starts");
    s.play_ai(&mut mem, [true, true], Until::End, &mut |_| true)
        .expect("plays");
    // The log up to its third action that rolled dice.
    let mut entries = Vec::new();
    let mut rolled = 0;
    for e in s.battle().entries() {
        entries.push(e.clone());
        rolled += usize::from(e.dice_used > 0);
        if rolled == 3 {
            break;
        }
    }
    let dice: usize = entries.iter().map(|e| e.dice_used).sum();
    assert!(dice > 0, "the battle rolls dice");
    let scenario = serde_json::to_string(&ebelsberg()).expect("json");

    for version in 1..=MIGRATIONS_SQL.len() - 1 {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("old.sqlite");
        {
            let mut conn = rusqlite::Connection::open(&db).expect("raw");
            let tx = conn.transaction().expect("tx");
            for (_, sql) in MIGRATIONS_SQL.iter().take(version) {
                tx.execute_batch(sql).expect("old migration");
            }
            tx.pragma_update(None, "user_version", version as i64)
                .expect("version");
            if version >= 2 {
                tx.execute(
                    "INSERT INTO battles (scenario_id, scenario_json, seed, rules_version)
                     VALUES ('1809-ebelsberg', ?1, 3, 'bptc-2')",
                    [&scenario],
                )
                .expect("old battle");
                for (seq, e) in entries.iter().enumerate() {
                    // From schema 7 on, an entry stores the dice it used (earlier ones are
                    // counted from the events by migration 7).
                    let dice_used = if version >= 7 { e.dice_used as i64 } else { 0 };
                    let sql = if version >= 7 {
                        "INSERT INTO battle_events (battle_id, seq, action_json, events_json,
                             dice_used) VALUES (1, ?1, ?2, ?3, ?4)"
                    } else {
                        "INSERT INTO battle_events (battle_id, seq, action_json, events_json)
                         VALUES (1, ?1, ?2, ?3)"
                    };
                    let action = serde_json::to_string(&e.action).expect("a");
                    let events = serde_json::to_string(&e.events).expect("e");
                    if version >= 7 {
                        tx.execute(
                            sql,
                            rusqlite::params![seq as i64, action, events, dice_used],
                        )
                    } else {
                        tx.execute(sql, rusqlite::params![seq as i64, action, events])
                    }
                    .expect("old entry");
                }
            }
            tx.commit().expect("commit");
        }
        let store = Store::open(&db).unwrap_or_else(|e| panic!("schema {version} migrates: {e}"));
        if version < 2 {
            assert!(store.battles().expect("battles").is_empty());
            continue;
        }
        let rec = store.battle(1).expect("old battle row");
        assert_eq!(rec.dice, DiceSource::Seed(3));
        assert_eq!(rec.orders, OrdersMode::Free, "old logs were free");
        assert_eq!(rec.status, BattleStatus::InProgress);
        assert!(
            !rec.fog,
            "battles from before schema 8 were played without fog of war"
        );
        let recs = store.battle_records(1).expect("records");
        let counted: usize = recs
            .iter()
            .map(|r| match r {
                LogRecord::Action { entry, .. } => entry.dice_used,
                _ => 0,
            })
            .sum();
        assert_eq!(
            counted, dice,
            "schema {version}: dice counted from the events"
        );
        let back = Session::resume(&store, 1).expect("the old battle resumes");
        assert_eq!(back.battle().entries(), &entries[..]);
        assert_eq!(back.battle().replay_events(), *back.battle().state());
    }
}

// ----- the crash test ----------------------------------------------------------------------------

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_powderhorn")
}

fn integrity(db: &Path) -> String {
    let conn = rusqlite::Connection::open(db).expect("raw open");
    conn.query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0))
        .expect("integrity_check")
}

/// Issue #16 item 3: `battle play` is killed with SIGKILL at up to 30 moments (at least 20) spread over a game;
/// after each kill the database passes `integrity_check`, every battle resumes at its last
/// committed entry, and its stored events equal a fresh replay of its stored actions.
#[test]
fn a_battle_killed_mid_play_loses_at_most_the_action_in_flight() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("crash.sqlite");
    let scenario =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("campaigns/danube-1809/ebelsberg.json");
    let init = Command::new(bin())
        .args(["--db"])
        .arg(&db)
        .args(["db", "init"])
        .output()
        .expect("db init");
    assert!(init.status.success());
    // One whole game first, to spread the kills over its length.
    let started = std::time::Instant::now();
    let whole = Command::new(bin())
        .arg("--db")
        .arg(&db)
        .args(["battle", "play"])
        .arg(&scenario)
        .args(["--seed", "100"])
        .output()
        .expect("a whole game");
    assert!(whole.status.success());
    let game_ms = started.elapsed().as_millis().max(100) as u64;
    // Delays from 5% to 50% of a game, from a fixed sequence.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut kills = 0;
    let mut with_entries = 0;
    for round in 0..30u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let delay_ms = game_ms / 20 + x % (game_ms * 9 / 20);
        let mut child = Command::new(bin())
            .arg("--db")
            .arg(&db)
            .args(["battle", "play"])
            .arg(&scenario)
            .args(["--seed", &round.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        if child.try_wait().expect("wait").is_none() {
            child.kill().expect("SIGKILL");
            kills += 1;
        }
        let _ = child.wait();
        assert_eq!(integrity(&db), "ok", "round {round}");
        let store = Store::open(&db).expect("the database opens after the kill");
        // The battle this round played (earlier ones were checked in their rounds).
        for id in store.battle_ids().expect("ids").into_iter().rev().take(1) {
            let rec = store.battle(id).expect("row");
            let s = Session::resume(&store, id)
                .unwrap_or_else(|e| panic!("round {round}: battle {id} resumes: {e}"));
            assert_eq!(
                s.battle().entries().len(),
                rec.entries,
                "every entry in effect"
            );
            assert_eq!(
                s.battle().state().turn.game_turn,
                rec.game_turn,
                "the row's progress is the last committed entry's"
            );
            assert_eq!(
                replayed_events(&s),
                events_of(&s),
                "round {round}, battle {id}"
            );
            if rec.entries > 0 {
                with_entries += 1;
            }
        }
    }
    println!("{kills} of 30 runs killed mid-play; {with_entries} battle checks with entries");
    assert!(
        kills >= 20,
        "only {kills} runs were killed before they finished"
    );
}

// ----- the command line ----------------------------------------------------------------------------

fn run(db: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `battle act ID ACTION --dice DICE`.
fn act_with_dice(db: &Path, id: &str, action: &str, dice: &str) -> (i32, String, String) {
    run(db, &["battle", "act", id, action, "--dice", dice])
}

/// `battle new SCENARIO ARGS --json`: the new battle's id.
fn new_battle(db: &Path, scenario: &str, args: &[&str]) -> String {
    let mut all = vec!["battle", "new", scenario];
    all.extend_from_slice(args);
    all.push("--json");
    let (code, out, err) = run(db, &all);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("{\"id\": N}");
    v["id"].as_i64().expect("id").to_string()
}

#[test]
fn battle_commands_exit_codes_and_export_equals_show() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("cli.sqlite");
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("campaigns/danube-1809/ebelsberg.json")
        .display()
        .to_string();
    let id = new_battle(&db, &scenario, &["--seed", "11", "--mode", "solo:1"]);

    // A refusal: exit 1, the rule named, nothing stored.
    let (code, out, _) = run(
        &db,
        &["battle", "act", &id, r#"{"action":"concede","side":4}"#],
    );
    assert_eq!(code, 1);
    assert!(out.contains("END-03"), "{out}");
    // Not an action: exit 2. No such battle: exit 2.
    let (code, _, err) = run(&db, &["battle", "act", &id, r#"{"action":"dance"}"#]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&db, &["battle", "show", "999"]);
    assert_eq!(code, 2);
    assert!(err.contains("battle 999"), "{err}");
    // --dice on a seeded battle is a usage error.
    let (code, _, _) = act_with_dice(&db, &id, r#"{"action":"end_phase"}"#, "3");
    assert_eq!(code, 2);
    // Nothing to undo yet: exit 1.
    let (code, _, _) = run(&db, &["battle", "undo", &id]);
    assert_eq!(code, 1);

    // Side 0 (the person) ends its phases; the computer plays side 1's turn.
    for _ in 0..5 {
        let (code, _, err) = run(&db, &["battle", "act", &id, r#"{"action":"end_phase"}"#]);
        assert_eq!(code, 0, "{err}");
    }
    let (code, out, err) = run(&db, &["battle", "ai", &id, "--until", "turn"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("the computer made"), "{out}");
    let (code, _, _) = run(&db, &["battle", "undo", &id]);
    assert_eq!(code, 0);
    let (code, _, _) = run(&db, &["battle", "redo", &id]);
    assert_eq!(code, 0);
    // A hot-seat battle has no computer side.
    let hot = new_battle(&db, &scenario, &["--seed", "2", "--mode", "hotseat"]);
    let (code, _, err) = run(&db, &["battle", "ai", &hot]);
    assert_eq!(code, 2);
    assert!(err.contains("--sides both"), "{err}");

    // show --json lists the events that the exported file replays to.
    let (code, shown, _) = run(&db, &["battle", "show", &id, "--json"]);
    assert_eq!(code, 0);
    let shown: serde_json::Value = serde_json::from_str(&shown).expect("show json");
    let file = dir.path().join("b.json").display().to_string();
    let (code, _, err) = run(&db, &["battle", "export", &id, "--out", &file]);
    assert_eq!(code, 0, "{err}");
    let (code, replayed, err) = run(&db, &["battle", "replay", &file, "--json"]);
    assert_eq!(code, 0, "{err}");
    let replayed: serde_json::Value = serde_json::from_str(&replayed).expect("replay json");
    assert!(shown["events"].as_array().is_some_and(|e| !e.is_empty()));
    assert_eq!(shown["events"], replayed["events"]);
    assert_eq!(shown["status"], "in_progress");

    let (code, listed, _) = run(&db, &["battle", "list", "--json"]);
    assert_eq!(code, 0);
    let listed: serde_json::Value = serde_json::from_str(&listed).expect("list json");
    assert_eq!(listed.as_array().map(Vec::len), Some(2));

    // Physical dice from the command line: letters and a 7 refused, exit 1.
    let phys = new_battle(&db, &scenario, &["--physical", "--mode", "referee"]);
    let (code, out, _) = act_with_dice(&db, &phys, r#"{"action":"end_phase"}"#, "3,x");
    assert_eq!(code, 1);
    assert!(out.contains("not a number"), "{out}");
    let (code, out, _) = act_with_dice(&db, &phys, r#"{"action":"end_phase"}"#, "7");
    assert_eq!(code, 1);
    assert!(out.contains("1 to 6"), "{out}");
}

// ----- the opponent on a worker thread ----------------------------------------------------------

/// The window's way to let the computer play (issue #17 item 6): the opponent plays a copy of
/// the battle on a worker thread and sends each action back; the session records them one by
/// one. The result is the same battle, event for event, as the opponent playing in place, and
/// Stop leaves a stored battle that resumes as it is.
#[test]
fn the_opponent_on_a_worker_thread_plays_the_same_battle_and_stops_cleanly() {
    use powderhorn::ai::{autoplay, Limits};
    use powderhorn::rules::Battle;
    use powderhorn::session::worker::{FromOpponent, Opponent};
    use std::time::Duration;

    let mut direct = Battle::new(ebelsberg(), lists(), DiceSource::Seed(44), 0).expect("sets up");
    autoplay(&mut direct, &Limits::default());

    let mut store = Store::open_in_memory().expect("store");
    let mut s = ebelsberg_session(&mut store, DiceSource::Seed(44), PlayMode::Computer);
    let mut op = Opponent::spawn(
        s.battle().fork().expect("fork"),
        [true, true],
        Until::End,
        Duration::ZERO,
    );
    let mut received = 0;
    while !op.is_finished() {
        for m in op.poll() {
            if let FromOpponent::Entry(e) = m {
                s.commit_entry(&mut store, e).expect("recorded");
                received += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    op.join();
    assert_eq!(received, direct.entries().len());
    assert_eq!(s.battle().log().entries, direct.log().entries);
    assert_eq!(s.battle().state(), direct.state());
    assert_eq!(s.record().status, BattleStatus::Ended);
    let back = Session::resume(&store, s.id()).expect("resumes");
    assert_eq!(back.battle().state(), direct.state());

    // Stop after a few actions: what was recorded is a battle that resumes as it stands.
    let mut s = ebelsberg_session(&mut store, DiceSource::Seed(45), PlayMode::Computer);
    let mut op = Opponent::spawn(
        s.battle().fork().expect("fork"),
        [true, true],
        Until::End,
        Duration::from_millis(20),
    );
    let mut got = 0;
    while !op.is_finished() {
        for m in op.poll() {
            if let FromOpponent::Entry(e) = m {
                s.commit_entry(&mut store, e).expect("recorded");
                got += 1;
                if got == 5 {
                    op.stop();
                }
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    op.join();
    assert!(
        (5..=6).contains(&got),
        "{got} actions arrived after Stop at 5"
    );
    assert!(s.battle().state().turn.phase != Phase::Over);
    let back = Session::resume(&store, s.id()).expect("resumes");
    assert_eq!(back.battle().state(), s.battle().state());
    assert_eq!(back.battle().entries().len(), got);
}

#[test]
fn fog_of_war_is_stored_with_the_battle_and_kept_on_resume_for_solo_and_hotseat_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("fog.sqlite");
    let mut store = Store::open(&db).expect("store");
    let mut ids = Vec::new();
    for mode in [
        PlayMode::Solo { computer: 1 },
        PlayMode::Hotseat,
        PlayMode::Referee,
        PlayMode::Computer,
    ] {
        let nb = NewBattle {
            fog: true,
            ..new(DiceSource::Seed(17), mode)
        };
        let s = Session::start(&mut store, ebelsberg(), &lists(), &nb).expect("starts");
        ids.push((s.id(), s.record().fog));
    }
    // Asked for everywhere; kept where a person plays a side and does not referee.
    assert_eq!(
        ids.iter().map(|(_, f)| *f).collect::<Vec<_>>(),
        vec![true, true, false, false]
    );
    let plain = Session::start(
        &mut store,
        ebelsberg(),
        &lists(),
        &new(DiceSource::Seed(17), PlayMode::Hotseat),
    )
    .expect("starts");
    let plain = plain.id();
    drop(store);
    let store = Store::open(&db).expect("reopens");
    for (id, fog) in ids {
        let back = Session::resume(&store, id).expect("resumes");
        assert_eq!(back.record().fog, fog, "battle {id}");
    }
    assert!(
        !Session::resume(&store, plain)
            .expect("resumes")
            .record()
            .fog
    );
}
