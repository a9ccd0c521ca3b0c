//! The rules reference (`powderhorn::rules::gist`): every rule ID the engine can cite has its
//! own words, and none of those words is copied from the catalogue or the rulebook.
//!
//! The engine's IDs are found by scanning the sources of `src/rules` and `src/ai` (modifiers,
//! events, refusals and doc comments all cite them the same way). The catalogue and the
//! rulebook transcriptions sit beside the clone (`../shared/`); where they are absent (a clone
//! on its own) the copy check has nothing to compare with and says so.

use powderhorn::rules::gist;
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sources(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("gist.rs") {
            // gist.rs is the table itself (and its tests cite IDs that do not exist).
            out.push(std::fs::read_to_string(&p).unwrap_or_default());
        }
    }
}

const FAMILIES: [&str; 24] = [
    "BAS", "GEN", "SEQ", "INIT", "CMD", "MOVE", "FIRE", "ART", "CHG", "VIS", "TERR", "END", "BRK",
    "VP", "OBJ", "DEF", "ENG", "SKIR", "PIKE", "ARMY", "COL", "OPT", "SOLO", "DATA",
];

/// Rule IDs in a text: a family, an optional second part (OPT-WEATHER) and a number.
fn ids_in(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let boundary = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-');
        if boundary && b[i].is_ascii_uppercase() {
            let id = gist::id_of(&text[i..]);
            let fam = gist::family_of(id);
            let numbered = id
                .rsplit('-')
                .next()
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()));
            let after = b.get(i + id.len()).copied().unwrap_or(b' ');
            if FAMILIES.contains(&fam) && numbered && !after.is_ascii_alphanumeric() {
                out.insert(id.to_string());
                i += id.len();
                continue;
            }
        }
        i += 1;
    }
    out
}

#[test]
fn every_rule_id_the_engine_cites_has_its_own_gist() {
    let mut texts = Vec::new();
    sources(&root().join("src/rules"), &mut texts);
    sources(&root().join("src/ai"), &mut texts);
    let cited: BTreeSet<String> = texts.iter().flat_map(|t| ids_in(t)).collect();
    assert!(cited.len() > 200, "found only {} cited IDs", cited.len());
    let missing: Vec<&String> = cited
        .iter()
        .filter(|id| gist::entry(id).is_none())
        .collect();
    assert!(missing.is_empty(), "no gist for {missing:?}");
    // The window shows the rule's own words, not the family's.
    for id in &cited {
        assert!(gist::gist(id).starts_with(&format!("{id} — ")), "{id}");
    }
}

#[test]
fn every_catalogue_rule_has_a_gist() {
    let Ok(cat) = std::fs::read_to_string(root().join("../shared/rules/bptc-catalogue.md")) else {
        eprintln!("catalogue not beside the clone: nothing to compare");
        return;
    };
    // Entries open a line with "**ID:" or "**ID (OPTIONAL):".
    let entries: BTreeSet<String> = cat
        .lines()
        .filter_map(|l| l.strip_prefix("**"))
        .map(gist::id_of)
        .filter(|id| id.contains('-') && id.ends_with(|c: char| c.is_ascii_digit()))
        .map(str::to_string)
        .collect();
    assert!(entries.len() > 280, "found only {} entries", entries.len());
    let missing: Vec<&String> = entries
        .iter()
        .filter(|id| gist::entry(id).is_none())
        .collect();
    assert!(missing.is_empty(), "no gist for {missing:?}");
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

const RUN: usize = 8;

fn runs(text: &str, into: &mut HashSet<Vec<String>>) {
    let w = words(text);
    for r in w.windows(RUN) {
        into.insert(r.to_vec());
    }
}

#[test]
fn no_gist_copies_eight_words_running_from_the_catalogue_or_the_rulebooks() {
    let mut sources = Vec::new();
    if let Ok(t) = std::fs::read_to_string(root().join("../shared/rules/bptc-catalogue.md")) {
        sources.push(t);
    }
    if let Ok(dir) = std::fs::read_dir(root().join("../shared/seeds")) {
        for e in dir.flatten() {
            if e.path().extension().is_some_and(|x| x == "txt") {
                sources.push(std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
    }
    if sources.is_empty() {
        eprintln!("catalogue and seeds not beside the clone: nothing to compare");
        return;
    }
    let mut theirs = HashSet::new();
    for s in &sources {
        runs(s, &mut theirs);
    }
    let mut checked = 0;
    let mut copied = Vec::new();
    for g in gist::all() {
        for part in [g.title, g.text] {
            let w = words(part);
            for r in w.windows(RUN) {
                if theirs.contains(r) {
                    copied.push(format!("{}: \"{}\"", g.id, r.join(" ")));
                }
            }
        }
        checked += 1;
    }
    // The optional rules' switches carry their own gist (#21 item 2): the same check.
    for rule in powderhorn::model::OptionalRule::ALL {
        let w = words(rule.gist());
        assert!(
            w.len() >= 12,
            "{rule:?}: a gist of {} words says too little",
            w.len()
        );
        for r in w.windows(RUN) {
            if theirs.contains(r) {
                copied.push(format!("{rule:?}: \"{}\"", r.join(" ")));
            }
        }
        checked += 1;
    }
    assert!(checked >= 302, "checked only {checked} gists");
    assert!(copied.is_empty(), "copied runs of {RUN} words: {copied:#?}");
}

#[test]
fn the_id_scanner_finds_ids_and_only_ids() {
    let found = ids_in("m(\"FIRE-11\", …) OPT-WEATHER-03; CMD-19(3) FOO-1 XFIRE-2 FIRE-12a");
    let want: BTreeSet<String> = ["FIRE-11", "OPT-WEATHER-03", "CMD-19"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(found, want);
}
