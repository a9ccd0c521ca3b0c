//! The battle-file harness (docs/battle-file.md): the worked example replays to the documented
//! state, identically every time; an illegal action stops the replay with the battle before it
//! and the refusal (index, action, rule), exit code 1; malformed or unreadable files exit 2;
//! never a panic. Plus the replay properties of the event log and the documented referee
//! adjustments.

use powderhorn::model::army::shipped_lists;
use powderhorn::rules::file::{parse_battle_file, replay, report, ScenarioRef};
use powderhorn::rules::{Action, Battle, DiceSource, Formation, PieceId};
use proptest::prelude::*;
use std::path::Path;
use std::process::Command;

/// The fenced ```json blocks of a markdown file, in order.
fn json_blocks(md: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut cur: Option<String> = None;
    for line in md.lines() {
        match (&mut cur, line.trim_start()) {
            (None, l) if l.starts_with("```json") => cur = Some(String::new()),
            (Some(b), l) if l.starts_with("```") => {
                blocks.push(std::mem::take(b));
                cur = None;
            }
            (Some(b), _) => {
                b.push_str(line);
                b.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

fn doc_example() -> (String, serde_json::Value) {
    let md =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/battle-file.md"))
            .expect("docs/battle-file.md");
    let blocks = json_blocks(&md);
    assert!(blocks.len() >= 2, "the doc has the example and its report");
    let expected: serde_json::Value = serde_json::from_str(&blocks[1]).expect("report JSON");
    (blocks[0].clone(), expected)
}

fn replay_cli(file: &Path, json: bool) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_powderhorn"));
    c.arg("battle").arg("replay").arg(file);
    if json {
        c.arg("--json");
    }
    let out = c.output().expect("run powderhorn");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    out
}

#[test]
fn worked_example_replays_to_the_documented_state_twice() {
    let (example, expected) = doc_example();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("example.json");
    std::fs::write(&file, &example).unwrap();
    let first = replay_cli(&file, true);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let got: serde_json::Value = serde_json::from_slice(&first.stdout).expect("json report");
    assert_eq!(got, expected, "docs/battle-file.md is out of date");
    let second = replay_cli(&file, true);
    assert_eq!(first.stdout, second.stdout, "same file, same battle");
    let text = replay_cli(&file, false);
    assert_eq!(text.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&text.stdout).contains("Tirailleurs du Pô"));
}

#[test]
fn replay_refuses_an_illegal_action_with_its_index_and_rule_move_10() {
    let (example, _) = doc_example();
    let mut v: serde_json::Value = serde_json::from_str(&example).unwrap();
    // The Austrians' ordered deploy, into attack column instead of square.
    v["actions"][12]["formation"] = "attack_column".into();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.json");
    std::fs::write(&file, v.to_string()).unwrap();
    let out = replay_cli(&file, false);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().rev().nth(1).unwrap_or_default();
    assert!(last.starts_with("refused: "), "{text}");
    assert!(
        last.contains("actions[12] (deploy 1:u1): MOVE-10"),
        "{text}"
    );
}

#[test]
fn replay_refuses_an_illegal_move_with_the_rule_id_cmd_04_move_02() {
    let (example, _) = doc_example();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.json");
    // The documented refusal: the square's order has been carried out.
    let mut v: serde_json::Value = serde_json::from_str(&example).unwrap();
    v["actions"].as_array_mut().unwrap().push(serde_json::json!(
        {"action": "move", "piece": {"side": 1, "unit": 1}, "to": {"at": {"x": 120.0, "y": 140.0}, "facing_deg": 180.0}}
    ));
    std::fs::write(&file, v.to_string()).unwrap();
    let out = replay_cli(&file, false);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("actions[13] (move 1:u1): CMD-04"), "{text}");
    // Beyond the allowance.
    let mut v: serde_json::Value = serde_json::from_str(&example).unwrap();
    v["actions"][6]["to"]["at"]["y"] = 60.0.into();
    std::fs::write(&file, v.to_string()).unwrap();
    let out = replay_cli(&file, false);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("actions[6] (move 0:u1): MOVE-02"), "{text}");
    assert!(text.contains("of a 10.00 cm allowance"), "{text}");
}

#[test]
fn replay_names_the_action_index_and_field_of_malformed_input() {
    let (example, _) = doc_example();
    let dir = tempfile::tempdir().unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&example).unwrap();
    v["actions"][2] = serde_json::json!({"action": "deploy", "piece": {"side": 0, "unit": 1}, "formation": "wedge"});
    let file = dir.path().join("bad.json");
    std::fs::write(&file, v.to_string()).unwrap();
    let out = replay_cli(&file, false);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("actions[2]") && err.contains("wedge"), "{err}");

    // An unknown piece is the engine's refusal (exit 1); an unreadable file, a bad scenario
    // path, a newer format and truncated JSON cannot be used (exit 2).
    v = serde_json::from_str(&example).unwrap();
    v["actions"][3]["piece"]["unit"] = 99.into();
    std::fs::write(&file, v.to_string()).unwrap();
    let out = replay_cli(&file, false);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("actions[3] (deploy 0:u99): GEN-09"));
    let out = replay_cli(&dir.path().join("missing.json"), false);
    assert_eq!(out.status.code(), Some(2));
    v = serde_json::from_str(&example).unwrap();
    v["scenario"] = "nowhere/scenario.json".into();
    std::fs::write(&file, v.to_string()).unwrap();
    let out = replay_cli(&file, false);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nowhere/scenario.json"));
    v["format"] = 7.into();
    std::fs::write(&file, v.to_string()).unwrap();
    assert!(String::from_utf8_lossy(&replay_cli(&file, false).stderr).contains("newer"));
    std::fs::write(&file, &example[..example.len() / 2]).unwrap();
    let out = replay_cli(&file, false);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.json:"));
}

#[test]
fn gen_12_the_documented_referee_adjustments_replay_to_the_documented_events() {
    let (example, _) = doc_example();
    let md =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/battle-file.md"))
            .expect("docs/battle-file.md");
    let blocks = json_blocks(&md);
    let adjustments: serde_json::Value =
        serde_json::from_str(&blocks[2]).expect("the adjustments parse");
    let expected: serde_json::Value = serde_json::from_str(&blocks[3]).expect("the events parse");
    let mut v: serde_json::Value = serde_json::from_str(&example).unwrap();
    let actions = v["actions"].as_array_mut().unwrap();
    let first = actions.len();
    actions.extend(adjustments.as_array().unwrap().iter().cloned());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("adjusted.json");
    std::fs::write(&file, v.to_string()).unwrap();
    let out = replay_cli(&file, true);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let adjusted: Vec<serde_json::Value> = r["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"].as_u64().unwrap_or(0) >= first as u64)
        .cloned()
        .collect();
    assert_eq!(
        serde_json::Value::Array(adjusted),
        expected,
        "docs/battle-file.md is out of date"
    );
    let unit = |side: u64, id: u64| {
        r["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["id"]["side"] == side && u["id"]["unit"] == id)
            .cloned()
            .unwrap()
    };
    let (column, square, gun) = (unit(0, 1), unit(1, 1), unit(0, 2));
    assert_eq!(
        (column["hits"].clone(), column["suppressed"].clone()),
        (4.into(), true.into())
    );
    assert_eq!(
        (square["stands"].clone(), square["disordered"].clone()),
        (4.into(), true.into())
    );
    assert_eq!(gun["limbered"], false);
    assert_eq!(gun["position"], serde_json::json!({"x": 130.0, "y": 40.0}));
    // The documented refusals: 6 stands on a unit that started with 5, 15 hits on 5 stands of
    // Hits 3.
    for (extra, rule) in [
        (
            serde_json::json!({"action": "adjust", "piece": {"side": 1, "unit": 1}, "stands": 6}),
            "GEN-11",
        ),
        (
            serde_json::json!({"action": "adjust", "piece": {"side": 0, "unit": 1}, "hits": 15}),
            "GEN-12",
        ),
    ] {
        let mut w = v.clone();
        w["actions"].as_array_mut().unwrap().push(extra);
        std::fs::write(&file, w.to_string()).unwrap();
        let out = replay_cli(&file, true);
        assert_eq!(out.status.code(), Some(1));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["refused"]["index"], first + 3);
        assert_eq!(r["refused"]["rule"], rule);
    }
}

#[test]
fn a_scenario_path_is_read_relative_to_the_battle_file() {
    let dir = tempfile::tempdir().unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("campaigns/danube-1809/ebelsberg.json");
    std::fs::create_dir_all(dir.path().join("scen")).unwrap();
    std::fs::copy(&sample, dir.path().join("scen/ebelsberg.json")).unwrap();
    let file = dir.path().join("b.json");
    std::fs::write(
        &file,
        r#"{"format":1,"scenario":"scen/ebelsberg.json","dice":{"seed":3},"actions":[{"action":"end_phase"}]}"#,
    )
    .unwrap();
    let out = replay_cli(&file, true);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["turn"]["phase"], "initiative");
    assert_eq!(r["turn"]["game_turn"], 1);
}

/// A battle of the doc example, built through the library, under free orders (the random
/// actions below act without orders; engine_command.rs has the replay property with orders).
fn example_battle() -> Battle {
    let (example, _) = doc_example();
    let f = parse_battle_file("example.json", &example).unwrap();
    assert_eq!(f.orders, powderhorn::rules::command::OrdersMode::Full);
    let ScenarioRef::Inline(s) = &f.scenario else {
        panic!("inline")
    };
    Battle::new(
        (**s).clone(),
        shipped_lists().unwrap(),
        DiceSource::Seed(7),
        0,
    )
    .unwrap()
    .with_orders(powderhorn::rules::command::OrdersMode::Free)
}

fn arb_action() -> impl Strategy<Value = Action> {
    let piece = prop_oneof![
        Just(PieceId::Unit {
            side: 0,
            unit: powderhorn::model::UnitId(1)
        }),
        Just(PieceId::Unit {
            side: 0,
            unit: powderhorn::model::UnitId(2)
        }),
        Just(PieceId::Unit {
            side: 1,
            unit: powderhorn::model::UnitId(1)
        }),
        Just(PieceId::Hq {
            side: 0,
            hq: powderhorn::model::HqId(1)
        }),
    ];
    let formation = prop::sample::select(Formation::ALL.to_vec());
    prop_oneof![
        3 => Just(Action::EndPhase),
        3 => (piece.clone(), formation).prop_map(|(piece, formation)| Action::Deploy { piece, formation }),
        1 => piece.clone().prop_map(|piece| Action::Limber { piece }),
        1 => (piece, 0.0..360.0f64).prop_map(|(piece, facing_deg)| Action::Unlimber { piece, facing_deg }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Replaying the log's events reproduces the live state exactly; replaying its actions with
    /// the same dice reproduces the same events; undo then redo changes nothing.
    #[test]
    fn replay_of_events_and_of_actions_reproduces_the_battle(actions in prop::collection::vec(arb_action(), 0..60)) {
        let mut live = example_battle();
        let mut accepted = Vec::new();
        for a in actions {
            let before = live.state().clone();
            match live.perform(a.clone()) {
                Ok(_) => accepted.push(a),
                Err(_) => prop_assert_eq!(live.state(), &before, "a refused action changes nothing"),
            }
            prop_assert_eq!(&live.replay_events(), live.state());
        }
        let mut again = example_battle();
        for a in &accepted {
            prop_assert!(again.perform(a.clone()).is_ok());
        }
        prop_assert_eq!(again.log().entries.clone(), live.log().entries.clone());
        prop_assert_eq!(again.state(), live.state());
        let n = live.entries().len();
        let end = live.state().clone();
        for _ in 0..n { prop_assert!(live.undo()); }
        prop_assert_eq!(live.state(), live.initial_state());
        for _ in 0..n { prop_assert!(live.redo()); }
        prop_assert_eq!(live.state(), &end);
        prop_assert_eq!(report(&live), report(&again));
    }
}

#[test]
fn undo_then_a_new_action_drops_the_redo_tail() {
    let mut b = example_battle();
    b.perform(Action::EndPhase).unwrap();
    let deploy = Action::Deploy {
        piece: PieceId::Unit {
            side: 0,
            unit: powderhorn::model::UnitId(1),
        },
        formation: Formation::MarchColumn,
    };
    b.perform(deploy).unwrap();
    assert!(b.undo());
    assert_eq!(b.log().entries.len(), 2, "kept for redo");
    b.perform(Action::EndPhase).unwrap();
    assert_eq!(b.log().entries.len(), 2, "the redo tail is gone");
    assert!(!b.redo());
}

#[test]
fn replay_from_a_parsed_file_matches_the_cli() {
    let (example, expected) = doc_example();
    let f = parse_battle_file("example.json", &example).unwrap();
    let ScenarioRef::Inline(s) = &f.scenario else {
        panic!("inline")
    };
    let Ok(b) = replay(&f, (**s).clone(), shipped_lists().unwrap()) else {
        panic!("replays")
    };
    let got = serde_json::to_value(report(&b)).unwrap();
    assert_eq!(got, expected);
}

#[test]
fn cmd_03_a_battle_file_without_orders_is_free_and_full_is_read() {
    let base = r#"{"format":1,"scenario":"s.json","dice":{"seed":3},"actions":[]}"#;
    let f = parse_battle_file("old.json", base).unwrap();
    assert_eq!(f.orders, powderhorn::rules::command::OrdersMode::Free);
    let full = r#"{"format":1,"scenario":"s.json","dice":{"seed":3},"orders":"full","actions":[]}"#;
    let f = parse_battle_file("new.json", full).unwrap();
    assert_eq!(f.orders, powderhorn::rules::command::OrdersMode::Full);
    let bad = r#"{"format":1,"scenario":"s.json","dice":{"seed":3},"orders":"loose"}"#;
    assert!(parse_battle_file("bad.json", bad).is_err());
}
