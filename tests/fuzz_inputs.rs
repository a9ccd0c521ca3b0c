//! The input fuzzer (issue #22 acceptance): mutated scenario files and battle files, fed
//! through everything that reads them — parsing, the boundary checks (DATA-04..DATA-13),
//! validation, the designer's advice (BAS-04, BAS-06), battle set-up, the solo opponent playing
//! a player turn on what set up, and a battle file's replay. Every case must end in a result or a
//! clear refusal: no panic, and no case running longer than [`HANG_SECS`].
//!
//! The ordinary test run tries a bounded, seeded sample ([`DEFAULT_CASES`] cases). The long run
//! is the same harness with more cases, in release mode:
//!
//! ```text
//! FUZZ_CASES=20000 FUZZ_SEED=7 cargo test --release --test fuzz_inputs -- --nocapture
//! ```
//!
//! A failing case is written to `target/fuzz-failures/` (its input as it was fed) and named in
//! the failure message, so it can be replayed with `powderhorn scenario validate` or
//! `powderhorn battle replay`.

use powderhorn::ai::{self, Limits, Until};
use powderhorn::model::advice::scenario_advice;
use powderhorn::model::army::shipped_lists;
use powderhorn::model::validate::{geometry_violations, validate_scenario};
use powderhorn::model::{parse_scenario, ArmyList, Scenario};
use powderhorn::rules::file::{parse_battle_file, replay, ScenarioRef};
use powderhorn::rules::{Battle, DiceSource};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Cases in the ordinary test run.
const DEFAULT_CASES: usize = 160;
/// A case running longer than this is a hang (debug build, shared machine: generous; a case
/// takes a few hundred milliseconds at most).
const HANG_SECS: u64 = 30;

struct Rand(ChaCha8Rng);

impl Rand {
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.0.next_u64() % n as u64) as usize
        }
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Numbers that have broken geometry and arithmetic before: zero, negatives, the far side of
/// the world, past f32 and i32, past u32, subnormal.
const NUMBERS: [f64; 12] = [
    0.0,
    -1.0,
    -0.0,
    0.5,
    1e9,
    -1e9,
    1e300,
    -1e300,
    4294967296.0,
    9007199254740993.0,
    1e-300,
    2147483648.0,
];

/// Strings that have broken ids and enumerations before.
fn strings(r: &mut Rand) -> Value {
    let long = "x".repeat(20_000);
    let pool = [
        "",
        "\u{0}",
        "wood",
        "river",
        "linear",
        "fixed",
        "hasty",
        "brigade",
        "line",
        "column",
        "square",
        "limbered",
        "../../etc/passwd",
        "🐎",
        long.as_str(),
    ];
    Value::String((*r.pick(&pool)).to_string())
}

/// Every node of `v` (paths as index lists), to pick one.
fn paths(v: &Value, here: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    out.push(here.clone());
    match v {
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(i);
                paths(x, here, out);
                here.pop();
            }
        }
        Value::Object(o) => {
            for (i, (_, x)) in o.iter().enumerate() {
                here.push(i);
                paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn node<'a>(v: &'a mut Value, path: &[usize]) -> &'a mut Value {
    let mut cur = v;
    for &i in path {
        cur = match cur {
            Value::Array(a) => &mut a[i],
            Value::Object(o) => o.iter_mut().nth(i).map(|(_, x)| x).expect("path exists"),
            _ => unreachable!("paths only descend into containers"),
        };
    }
    cur
}

fn is_number_at(v: &Value, path: &[usize]) -> bool {
    let mut cur = v;
    for &i in path {
        cur = match cur {
            Value::Array(a) => &a[i],
            Value::Object(o) => match o.iter().nth(i) {
                Some((_, x)) => x,
                None => return false,
            },
            _ => return false,
        };
    }
    cur.is_number()
}

/// One structural mutation somewhere in `v`.
fn mutate(r: &mut Rand, v: &mut Value) {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    // Three times in five a number (coordinates, sizes, stands, dice: most of what still parses
    // but may break the engine), otherwise any node.
    let numbers: Vec<&Vec<usize>> = all.iter().filter(|p| is_number_at(v, p)).collect();
    let path = if r.below(5) < 3 && !numbers.is_empty() {
        (*r.pick(&numbers)).clone()
    } else {
        r.pick(&all).clone()
    };
    let donor = {
        let other = r.pick(&all).clone();
        node(v, &other).clone()
    };
    let n = node(v, &path);
    match n {
        Value::Number(_) => {
            *n = match (r.below(4), n.as_u64()) {
                (0, _) => json!(*r.pick(&NUMBERS)),
                (1, _) => json!(-(n.as_f64().unwrap_or(0.0))),
                // An id, a count or a die: another small whole number, still well formed.
                (_, Some(k)) => json!(k.saturating_add(r.below(7) as u64).saturating_sub(3)),
                _ => json!(n.as_f64().unwrap_or(0.0) + (r.below(400) as f64 - 200.0)),
            }
        }
        Value::String(_) => *n = strings(r),
        Value::Bool(b) => *b = !*b,
        Value::Array(a) => match r.below(5) {
            0 if !a.is_empty() => {
                let i = r.below(a.len());
                a.remove(i);
            }
            1 if !a.is_empty() => {
                let i = r.below(a.len());
                let x = a[i].clone();
                a.insert(i, x);
            }
            2 => a.clear(),
            3 => a.reverse(),
            _ => {
                for _ in 0..r.below(300) {
                    if let Some(x) = a.first().cloned() {
                        a.push(x);
                    }
                }
            }
        },
        Value::Object(o) => match r.below(3) {
            0 if !o.is_empty() => {
                let key = o.keys().nth(r.below(o.len())).cloned().unwrap_or_default();
                o.remove(&key);
            }
            1 if !o.is_empty() => {
                let key = o.keys().nth(r.below(o.len())).cloned().unwrap_or_default();
                o.insert(key, Value::Null);
            }
            _ => *n = donor,
        },
        Value::Null => *n = donor,
    }
}

/// The text of a case: 1–4 structural mutations, and one time in five a damaged byte stream.
fn case_text(r: &mut Rand, seed: &Value) -> String {
    let mut v = seed.clone();
    for _ in 0..=r.below(4) {
        mutate(r, &mut v);
    }
    let mut text = serde_json::to_string(&v).unwrap_or_default();
    if r.below(5) == 0 && !text.is_empty() {
        let mut bytes = text.into_bytes();
        match r.below(3) {
            0 => bytes.truncate(r.below(bytes.len())),
            1 => {
                let i = r.below(bytes.len());
                bytes[i] = (r.0.next_u32() & 0xff) as u8;
            }
            _ => {
                let i = r.below(bytes.len());
                bytes.insert(i, b"{[\",:0-e"[r.below(8)]);
            }
        }
        text = String::from_utf8_lossy(&bytes).into_owned();
    }
    text
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    tried: usize,
    unreadable: usize,
    refused: usize,
    set_up: usize,
    played: usize,
}

/// A scenario file through every reader, ending with a player turn of the solo opponent.
fn scenario_case(text: &str, lists: &[ArmyList]) -> Tally {
    let mut t = Tally {
        tried: 1,
        ..Tally::default()
    };
    let Ok(s) = parse_scenario("case.json", text) else {
        t.unreadable = 1;
        return t;
    };
    let broken = geometry_violations(&s);
    let _ = validate_scenario(&s, lists);
    if !broken.is_empty() {
        t.refused = 1;
        return t;
    }
    let _ = scenario_advice(&s);
    play_a_turn(s, lists, &mut t);
    t
}

fn play_a_turn(s: Scenario, lists: &[ArmyList], t: &mut Tally) {
    match Battle::new(s, lists.to_vec(), DiceSource::Seed(1), 0) {
        Err(_) => t.refused = 1,
        Ok(mut b) => {
            t.set_up = 1;
            let limits = Limits {
                max_actions_per_phase: 200,
                max_actions: 2_000,
            };
            let run = ai::play(&mut b, &limits, [true, true], Until::Turn, &mut |_| true);
            t.played = usize::from(run.actions > 0);
        }
    }
}

/// A battle file through parsing and replay.
fn battle_case(text: &str, lists: &[ArmyList]) -> Tally {
    let mut t = Tally {
        tried: 1,
        ..Tally::default()
    };
    let Ok(file) = parse_battle_file("case.battle.json", text) else {
        t.unreadable = 1;
        return t;
    };
    let ScenarioRef::Inline(s) = &file.scenario else {
        // A path: the reader of battle files refuses what is not a regular file (tested in
        // hostile_input); here nothing is read from disk.
        t.refused = 1;
        return t;
    };
    match replay(&file, (**s).clone(), lists.to_vec()) {
        Ok(_) => {
            t.set_up = 1;
            t.played = 1;
        }
        Err(powderhorn::rules::file::ReplayOutcome::Setup(_)) => t.refused = 1,
        Err(powderhorn::rules::file::ReplayOutcome::Refused { .. }) => t.set_up = 1,
    }
    t
}

/// The seeds: every sample scenario, and a battle file of a played turn of the first sample.
fn seeds(lists: &[ArmyList]) -> (Vec<Value>, Value) {
    let samples = powderhorn::model::samples::scenarios().expect("the samples parse");
    let scen: Vec<Value> = samples
        .iter()
        .map(|s| serde_json::to_value(s).expect("a sample as JSON"))
        .collect();
    let first = samples.into_iter().next().expect("a sample");
    let mut b = Battle::new(first.clone(), lists.to_vec(), DiceSource::Seed(5), 0).expect("set up");
    let limits = Limits {
        max_actions_per_phase: 200,
        max_actions: 400,
    };
    ai::play(&mut b, &limits, [true, true], Until::Turn, &mut |_| true);
    let actions: Vec<Value> = b
        .entries()
        .iter()
        .map(|e| serde_json::to_value(&e.action).expect("an action as JSON"))
        .collect();
    assert!(!actions.is_empty(), "the seed battle has actions to mutate");
    let file = json!({
        "format": powderhorn::rules::file::BATTLE_FILE_FORMAT,
        "scenario": first,
        "dice": {"seed": 5},
        "first_player": 0,
        "orders": "full",
        "actions": actions,
    });
    (scen, file)
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn mutated_scenario_and_battle_files_end_in_a_result_or_a_refusal_never_a_panic_or_hang() {
    let cases = env_usize("FUZZ_CASES", DEFAULT_CASES);
    let seed = env_usize("FUZZ_SEED", 1) as u64;
    let lists = shipped_lists().expect("the shipped lists");
    let (scenarios, battle) = seeds(&lists);
    let mut r = Rand(ChaCha8Rng::seed_from_u64(seed));
    let mut total = [Tally::default(); 2];
    let mut slowest = (Duration::ZERO, String::new());
    let failures_dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    let started = Instant::now();
    for i in 0..cases {
        // Two in three cases are scenario files, one in three battle files.
        let kind = usize::from(i % 3 == 2);
        let seed_value = if kind == 0 {
            scenarios[r.below(scenarios.len())].clone()
        } else {
            battle.clone()
        };
        let text = case_text(&mut r, &seed_value);
        let (tx, rx) = mpsc::channel();
        let (input, lists2) = (text.clone(), lists.clone());
        let t0 = Instant::now();
        let worker = std::thread::spawn(move || {
            let got = std::panic::catch_unwind(|| {
                if kind == 0 {
                    scenario_case(&input, &lists2)
                } else {
                    battle_case(&input, &lists2)
                }
            });
            let _ = tx.send(got.map_err(|p| {
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            }));
        });
        let outcome = rx.recv_timeout(Duration::from_secs(HANG_SECS));
        let took = t0.elapsed();
        let name = format!(
            "seed{seed}-case{i}.{}json",
            if kind == 0 { "" } else { "battle." }
        );
        let keep = |why: &str| {
            let _ = std::fs::create_dir_all(&failures_dir);
            let path = failures_dir.join(&name);
            let _ = std::fs::write(&path, &text);
            format!("case {i} ({why}): input kept in {}", path.display())
        };
        match outcome {
            Ok(Ok(t)) => {
                let s = &mut total[kind];
                s.tried += t.tried;
                s.unreadable += t.unreadable;
                s.refused += t.refused;
                s.set_up += t.set_up;
                s.played += t.played;
                let _ = worker.join();
            }
            Ok(Err(message)) => panic!("{}", keep(&format!("panicked: {message}"))),
            Err(_) => panic!("{}", keep(&format!("ran over {HANG_SECS} s"))),
        }
        if took > slowest.0 {
            slowest = (took, name);
        }
    }
    let [s, b] = total;
    println!(
        "fuzz: seed {seed}, {cases} cases in {:.1} s, 0 panics, 0 hangs; slowest {:.0} ms ({})\n\
         scenario files: {} tried, {} unreadable, {} refused at the boundary or set-up, {} set up, {} played a turn\n\
         battle files: {} tried, {} unreadable, {} refused, {} set up, {} replayed to the end",
        started.elapsed().as_secs_f64(),
        slowest.0.as_secs_f64() * 1e3,
        slowest.1,
        s.tried, s.unreadable, s.refused, s.set_up, s.played,
        b.tried, b.unreadable, b.refused, b.set_up, b.played,
    );
    assert_eq!(s.tried + b.tried, cases, "every case was run");
    // A harness whose mutations never get past the parser proves little: some of each kind
    // must reach set-up and play.
    let floor = cases / 20;
    assert!(
        s.set_up >= floor.min(s.tried),
        "only {} scenario cases set up",
        s.set_up
    );
    assert!(
        b.set_up >= floor.min(b.tried),
        "only {} battle cases set up",
        b.set_up
    );
}
