//! `docs/rules-coverage.md` lists every rule of the BPTC catalogue with the tests that cover it,
//! and cannot go stale: this test rebuilds the table from the test sources (a test covers a rule
//! when its name carries the rule's id, e.g. `army_04_…` or `vis_09_…`) and fails if the file
//! differs. Regenerate with `UPDATE_COVERAGE=1 cargo test --test rules_coverage`.
//!
//! Where the catalogue is beside the clone (`../shared/rules/bptc-catalogue.md`, as on CI), the
//! list of ids is checked against it too, so a new catalogue entry shows up as uncovered.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const DOC: &str = "docs/rules-coverage.md";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Catalogue ids with their titles, in catalogue order, read from the catalogue text.
fn catalogue_ids(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("**") {
            // **ID: Title.** or **ID (OPTIONAL): Title.**
            let Some(colon) = rest.find(':') else {
                continue;
            };
            let head = rest[..colon].trim_end_matches(" (OPTIONAL)");
            if !is_id(head) {
                continue;
            }
            let title = rest[colon + 1..]
                .split("**")
                .next()
                .unwrap_or("")
                .trim()
                .trim_end_matches('.')
                .to_string();
            out.push((head.to_string(), title));
        } else if let Some(rest) = line.strip_prefix("### WE-") {
            let (num, title) = rest.split_once(':').unwrap_or((rest, ""));
            out.push((format!("WE-{}", num.trim()), title.trim().to_string()));
        }
    }
    out
}

fn is_id(s: &str) -> bool {
    let mut parts = s.split('-');
    let Some(first) = parts.next() else {
        return false;
    };
    let rest: Vec<&str> = parts.collect();
    !first.is_empty()
        && first.chars().all(|c| c.is_ascii_uppercase())
        && !rest.is_empty()
        && rest[..rest.len() - 1]
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_uppercase()))
        && rest
            .last()
            .is_some_and(|n| n.chars().next().is_some_and(|c| c.is_ascii_digit()))
}

/// "OPT-WEATHER-03" → "opt_weather_03".
fn slug(id: &str) -> String {
    id.to_ascii_lowercase().replace('-', "_")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every test function name in tests/ and src/ (a `#[test]` or proptest `fn` after the attribute).
fn test_names() -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&root().join("tests"), &mut files);
    rust_files(&root().join("src"), &mut files);
    files.sort();
    let mut names = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let rel = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
        let mut armed = false;
        let mut in_proptest = false;
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with("proptest!") {
                in_proptest = true;
            }
            if t.starts_with("#[test]") {
                armed = true;
                continue;
            }
            if let Some(rest) = t.strip_prefix("fn ").or_else(|| t.strip_prefix("pub fn ")) {
                if armed || in_proptest {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    names.push((name, rel.clone()));
                }
                armed = false;
            }
        }
    }
    names
}

/// Which issue owns a rule that is not covered yet.
fn owner(id: &str) -> &'static str {
    let prefix = id.rsplit_once('-').map_or(id, |(p, _)| p);
    match prefix {
        "ARMY" | "COL" => "foundation (#2)",
        "BAS" | "GEN" | "VIS" | "SEQ" | "MOVE" | "TERR" => "engine I (#3)",
        p if p.starts_with("OPT") => "optional rules (later)",
        "SOLO" => "solo play (later)",
        _ => "engine II (#4)",
    }
}

fn render(ids: &[(String, String)], tests: &[(String, String)]) -> String {
    let mut covered = 0;
    let mut rows = String::new();
    for (id, title) in ids {
        let s = slug(id);
        let mut hits: Vec<String> = tests
            .iter()
            .filter(|(n, _)| {
                n.match_indices(&s).any(|(i, _)| {
                    let before_ok = i == 0 || n.as_bytes().get(i - 1) == Some(&b'_');
                    let after = n.as_bytes().get(i + s.len());
                    before_ok && !after.is_some_and(|c| c.is_ascii_digit())
                })
            })
            .map(|(n, f)| format!("`{f}::{n}`"))
            .collect();
        hits.dedup();
        let status = if hits.is_empty() {
            format!("not yet — {}", owner(id))
        } else {
            covered += 1;
            "covered".to_string()
        };
        rows.push_str(&format!(
            "| {id} | {} | {status} | {} |\n",
            title.replace('|', "/"),
            hits.join("<br>")
        ));
    }
    format!(
        "# BPTC rules coverage\n\n\
         Every rule of `../shared/rules/bptc-catalogue.md` (and its worked examples) with the tests that\n\
         check it. A test covers a rule when its name carries the rule's id (`army_04_…`, `vis_09_…`,\n\
         `we_15_…`). Generated and checked by `tests/rules_coverage.rs`: the test fails when this file\n\
         differs from what the test sources say, so it cannot go stale. Regenerate with\n\
         `UPDATE_COVERAGE=1 cargo test --test rules_coverage`.\n\n\
         **{covered} of {} entries covered.**\n\n\
         | id | rule | status | tests |\n|---|---|---|---|\n{rows}",
        ids.len()
    )
}

/// The ids and titles the doc lists (so the check works without the catalogue beside the clone).
fn doc_ids(doc: &str) -> Vec<(String, String)> {
    doc.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let id = cells.get(1)?;
            is_id(id).then(|| (id.to_string(), cells.get(2).unwrap_or(&"").to_string()))
        })
        .collect()
}

#[test]
fn rules_coverage_doc_is_complete_and_current() {
    let doc_path = root().join(DOC);
    let catalogue = root().join("../shared/rules/bptc-catalogue.md");
    let existing = std::fs::read_to_string(&doc_path).unwrap_or_default();
    let ids = match std::fs::read_to_string(&catalogue) {
        Ok(text) => catalogue_ids(&text),
        Err(_) => doc_ids(&existing),
    };
    assert!(
        ids.len() > 300,
        "expected every catalogue entry, found {}",
        ids.len()
    );
    let tests = test_names();
    let fresh = render(&ids, &tests);
    if std::env::var_os("UPDATE_COVERAGE").is_some() {
        std::fs::write(&doc_path, &fresh).expect("write the coverage doc");
        return;
    }
    assert!(
        existing == fresh,
        "{DOC} is stale: run `UPDATE_COVERAGE=1 cargo test --test rules_coverage` and commit it"
    );
}

#[test]
fn every_listed_test_exists() {
    let doc = std::fs::read_to_string(root().join(DOC)).expect("coverage doc");
    let tests: BTreeMap<String, String> = test_names()
        .into_iter()
        .map(|(n, f)| (format!("{f}::{n}"), f))
        .collect();
    let mut missing = Vec::new();
    for cell in doc.split('`').skip(1).step_by(2) {
        if cell.contains("::") && !tests.contains_key(cell) {
            missing.push(cell.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "listed tests that do not exist: {missing:?}"
    );
}

#[test]
fn id_parsing_and_slugs() {
    assert!(is_id("ARMY-04") && is_id("OPT-WEATHER-03") && is_id("WE-15"));
    assert!(!is_id("Ruling") && !is_id("ARMY") && !is_id("Engine"));
    assert_eq!(slug("OPT-WEATHER-03"), "opt_weather_03");
    let ids = catalogue_ids("**VIS-09: Linear terrain and LOS.** text\n**OPT-NIGHT-01 (OPTIONAL): Night.** x\n### WE-01: Infantry fire (FIRE-08)\n");
    assert_eq!(
        ids[0],
        ("VIS-09".to_string(), "Linear terrain and LOS".to_string())
    );
    assert_eq!(ids[1].0, "OPT-NIGHT-01");
    assert_eq!(ids[2].0, "WE-01");
    let md = render(
        &ids,
        &[
            ("vis_09_wall_blocks".into(), "tests/x.rs".into()),
            ("vis_091_other".into(), "t.rs".into()),
        ],
    );
    assert!(md.contains(
        "| VIS-09 | Linear terrain and LOS | covered | `tests/x.rs::vis_09_wall_blocks` |"
    ));
    assert!(!md.contains("vis_091_other"));
}

/// Rule ids written in a text: upper-case words joined by hyphens ending in a number
/// ("FIRE-11", "OPT-WEATHER-03"), standing alone.
fn cited_ids(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_uppercase()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_uppercase() || b[j].is_ascii_digit() || b[j] == b'-') {
            j += 1;
        }
        let word = text[i..j].trim_end_matches('-');
        let followed = b.get(i + word.len()).copied().unwrap_or(b' ');
        if is_id(word) && !followed.is_ascii_alphanumeric() {
            out.push(word.to_string());
        }
        i = j.max(i + 1);
    }
    out
}

/// The code of a source file without its unit tests (`#[cfg(test)]` onward), where ids made up
/// to test a fallback ("FIRE-99") live.
fn without_unit_tests(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |k| &text[..k])
}

/// #21 item 5: the source cites only rules that exist, and cites every rule of the catalogue.
/// An id whose family the BPTC catalogue uses must be one of its entries; another system's id
/// must be in that system's catalogue; our own data checks (DATA-nn) must have their words in
/// `rules::gist`.
#[test]
fn every_rule_id_cited_in_the_source_is_in_a_catalogue_and_every_catalogue_rule_is_cited() {
    let rules_dir = root().join("../shared/rules");
    let Ok(bptc) = std::fs::read_to_string(rules_dir.join("bptc-catalogue.md")) else {
        eprintln!("the catalogue is not beside the clone: nothing to compare");
        return;
    };
    let catalogue: std::collections::BTreeSet<String> =
        catalogue_ids(&bptc).into_iter().map(|(id, _)| id).collect();
    let family = |id: &str| id.rsplit_once('-').map_or(id, |(f, _)| f).to_string();
    let bptc_families: std::collections::BTreeSet<String> =
        catalogue.iter().map(|id| family(id)).collect();
    let mut others = String::new();
    for e in std::fs::read_dir(&rules_dir)
        .expect("the rules directory")
        .flatten()
    {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "md") && !p.ends_with("bptc-catalogue.md") {
            others.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
        }
    }
    let other_ids: std::collections::BTreeSet<String> = cited_ids(&others).into_iter().collect();
    let ours: std::collections::BTreeSet<String> = powderhorn::rules::gist::all()
        .map(|g| g.id.to_string())
        .collect();

    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut cited = std::collections::BTreeSet::new();
    let mut unknown = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("a source file");
        for id in cited_ids(without_unit_tests(&text)) {
            let known = if bptc_families.contains(&family(&id)) {
                catalogue.contains(&id)
            } else if id.starts_with("DATA-") {
                ours.contains(&id)
            } else {
                // Another system's id, or a name that only looks like one ("UTF-8", "APP-6").
                other_ids.contains(&id) || !id.contains(|c: char| c.is_ascii_digit()) || {
                    let f = family(&id);
                    !others.contains(&format!("{f}-"))
                }
            };
            if !known {
                unknown.push(format!("{}: {id}", f.display()));
            }
            cited.insert(id);
        }
    }
    assert!(
        unknown.is_empty(),
        "ids cited in the source that no catalogue has:\n{}",
        unknown.join("\n")
    );
    // The other way: every BPTC rule (not the worked examples) is cited somewhere in the code.
    let uncited: Vec<&String> = catalogue
        .iter()
        .filter(|id| !id.starts_with("WE-") && !cited.contains(*id))
        .collect();
    assert!(
        uncited.is_empty(),
        "catalogue rules the source never cites: {uncited:?}"
    );
    assert!(cited.len() > 280, "only {} ids cited", cited.len());
}

#[test]
fn the_id_finder_reads_ids_and_skips_words() {
    assert_eq!(
        cited_ids("see FIRE-11, OPT-WEATHER-03; (CMD-19) UTF-8 XFIRE-2 FIRE-12a ab-CD-1"),
        vec!["FIRE-11", "OPT-WEATHER-03", "CMD-19", "UTF-8", "XFIRE-2"]
    );
}
