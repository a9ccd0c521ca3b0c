//! `powderhorn campaign autoplay` run as a user runs it (issue #19 item 6): a campaign of two
//! linked battles made of Ebelsberg twice (the second the next day, on the same ground, its
//! weather continuing), so the carry is checked end to end without waiting for the sample's
//! later battles.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(db: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_powderhorn"))
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("run powderhorn");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    out
}

/// The two-battle campaign in a fresh directory: (its directory, the campaign file).
fn twice_ebelsberg() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("campaigns/danube-1809/ebelsberg.json"),
        dir.path().join("ebelsberg.json"),
    )
    .expect("copy the scenario");
    let campaign = serde_json::json!({
        "id": "twice", "name": "Ebelsberg twice",
        "sides": [{"id": "french", "name": "French"}, {"id": "austrian", "name": "Austrian"}],
        "battles": [
            {"scenario": "1809-ebelsberg", "note": "first day"},
            {"scenario": "1809-ebelsberg", "note": "the next day",
             "link": {"days_after": 0, "weather": "continue", "same_ground": true}}
        ]
    });
    let file = dir.path().join("campaign.json");
    std::fs::write(&file, campaign.to_string()).expect("write the campaign");
    (dir, file)
}

fn autoplay_json(dir: &Path, file: &Path, seed: &str) -> String {
    let o = run(
        &dir.join("p.sqlite"),
        &[
            "campaign",
            "autoplay",
            file.to_str().expect("path"),
            "--seed",
            seed,
            "--json",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn count(v: &Value) -> Option<i64> {
    v.as_i64()
}

#[test]
fn campaign_autoplay_json_is_deterministic_and_every_carry_is_in_the_report() {
    let (dir, file) = twice_ebelsberg();
    let a = autoplay_json(dir.path(), &file, "3");
    let b = autoplay_json(dir.path(), &file, "3");
    assert_eq!(a, b, "the same seed gives the same campaign");
    let v: Value = serde_json::from_str(&a).expect("JSON");
    let battles = v["battles"].as_array().expect("battles");
    assert_eq!(battles.len(), 2);
    for bt in battles {
        assert_eq!(bt["scenario"], "1809-ebelsberg");
        for part in ["start", "end"] {
            assert!(bt[part]["weather"].is_string());
            let sides = bt[part]["sides"].as_array().expect("sides");
            assert_eq!(sides.len(), 2);
            assert_eq!(sides[0]["name"], "French", "the campaign's order");
            for s in sides {
                for u in s["units"].as_array().expect("units") {
                    assert!(u["id"].is_u64() && u["stands"].is_u64(), "{u}");
                }
                for c in s["commanders"].as_array().expect("commanders") {
                    assert!(c["id"].is_u64() && c["name"].is_string() && c["command"].is_u64());
                }
            }
        }
        assert!(bt["result"]["category"].is_string());
        assert_eq!(bt["result"]["vps"].as_array().map(Vec::len), Some(2));
        for ch in bt["carry_in"].as_array().expect("carry_in") {
            for key in ["kind", "side", "id", "from", "to", "why"] {
                assert!(ch.get(key).is_some(), "{key} in {ch}");
            }
            assert!(!ch["why"].as_str().unwrap_or("").is_empty());
        }
    }
    assert_eq!(v["tally"]["vps"].as_array().map(Vec::len), Some(2));
    assert!(v["tally"].get("leader").is_some());

    // Battle 2's start is battle 1's end changed exactly as its carry_in says.
    let (one, two) = (&battles[0], &battles[1]);
    let carry = two["carry_in"].as_array().expect("carry_in");
    for side in 0..2 {
        let start: Vec<&Value> = two["start"]["sides"][side]["units"]
            .as_array()
            .expect("units")
            .iter()
            .collect();
        for u in one["end"]["sides"][side]["units"]
            .as_array()
            .expect("units")
        {
            let id = &u["id"];
            let mut stands = count(&u["stands"]);
            for ch in carry.iter().filter(|c| {
                c["side"] == side
                    && &c["id"] == id
                    && (c["kind"] == "stands" || c["kind"] == "unit")
            }) {
                stands = count(&ch["to"]);
            }
            let fielded = start.iter().find(|x| &x["id"] == id);
            match stands {
                Some(n) if n > 0 => {
                    assert_eq!(
                        fielded.and_then(|x| count(&x["stands"])),
                        Some(n),
                        "unit {id}"
                    )
                }
                _ => assert!(fielded.is_none(), "unit {id} is gone but fielded"),
            }
        }
    }
    // The weather continues: one change roll of two dice, from battle 1's end weather.
    let w: Vec<&Value> = carry.iter().filter(|c| c["kind"] == "weather").collect();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0]["dice"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        w[0]["from"].as_str().map(str::to_lowercase),
        one["end"]["weather"].as_str().map(str::to_string)
    );
    assert_eq!(
        w[0]["to"].as_str().map(str::to_lowercase),
        two["start"]["weather"].as_str().map(str::to_string)
    );
}

#[test]
fn campaign_autoplay_text_and_refusals() {
    let (dir, file) = twice_ebelsberg();
    let db = dir.path().join("p.sqlite");
    let o = run(
        &db,
        &[
            "campaign",
            "autoplay",
            file.to_str().expect("path"),
            "--seed",
            "1",
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    for want in [
        "battle 1:",
        "battle 2:",
        "carried in:",
        "forces, start → end",
        "tally: VPs",
    ] {
        assert!(text.contains(want), "{want} in:\n{text}");
    }
    // A file that is not there, and a campaign naming a scenario not beside it.
    let o = run(
        &db,
        &[
            "campaign",
            "autoplay",
            "no/such/campaign.json",
            "--seed",
            "1",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let broken = dir.path().join("broken.json");
    std::fs::write(
        &broken,
        r#"{"id": "b", "name": "B", "battles": [{"scenario": "nowhere"}]}"#,
    )
    .expect("write");
    let o = run(
        &db,
        &[
            "campaign",
            "autoplay",
            broken.to_str().expect("path"),
            "--seed",
            "1",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("nowhere"), "{err}");
    // `show` lists the carry rules in words and says they are ours.
    let o = run(&db, &["campaign", "show", file.to_str().expect("path")]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("Powderhorn's own"));
}
