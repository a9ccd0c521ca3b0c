//! The pure core (geom, model, rules, campaign) imports no GUI, no SQLite, no file system, no
//! clock and no thread RNG, and the layers point one way: geom ← model ← rules ← campaign
//! (ARCHITECTURE.md). The outer layers keep their places too: the UI draws and emits commands
//! and never touches the store, the app, dialogs or files; the store and the export run without
//! a GUI. This test reads the sources, so breaking the rule fails the build's tests.

use std::path::{Path, PathBuf};

/// Forbidden in every pure module: (needle, why).
const IMPURE: &[(&str, &str)] = &[
    ("egui", "GUI"),
    ("eframe", "GUI"),
    ("rfd::", "file dialogs"),
    ("rusqlite", "SQLite"),
    ("std::fs", "the file system"),
    ("fs::read", "the file system"),
    ("File::open", "the file system"),
    ("File::create", "the file system"),
    ("std::env", "the environment"),
    ("std::net", "the network"),
    ("std::process", "processes"),
    ("std::time", "a clock"),
    ("SystemTime", "a clock"),
    ("Instant::", "a clock"),
    ("chrono", "a clock"),
    ("thread_rng", "a thread RNG"),
    ("rand::rng(", "a thread RNG"),
    ("from_entropy", "an unseeded RNG"),
    ("from_os_rng", "an unseeded RNG"),
    ("OsRng", "an unseeded RNG"),
    ("getrandom", "an unseeded RNG"),
    ("crate::store", "the store layer"),
    ("crate::session", "the battle session layer"),
    ("crate::export", "the export layer"),
    ("crate::app", "the app layer"),
    ("crate::ui", "the UI layer"),
    ("crate::cli", "the CLI layer"),
];

/// Per module, the pure modules above it that it must not import.
const UPWARD: &[(&str, &[&str])] = &[
    ("geom", &["crate::model", "crate::rules", "crate::campaign"]),
    ("model", &["crate::rules", "crate::campaign"]),
    ("rules", &["crate::campaign"]),
    ("campaign", &[]),
    // The solo opponent (src/ai) is pure like the rules it plays by.
    ("ai", &["crate::campaign"]),
];

/// Per outer module, what it must not import (its non-test code).
const OUTER: &[(&str, &[&str])] = &[
    (
        "ui",
        &[
            "crate::store",
            "crate::app",
            "crate::cli",
            "rusqlite",
            "rfd::",
            "std::fs",
        ],
    ),
    (
        "store",
        &[
            "egui",
            "eframe",
            "rfd::",
            "crate::ui",
            "crate::app",
            "crate::cli",
            "crate::export",
        ],
    ),
    (
        "export",
        &[
            "egui",
            "eframe",
            "rfd::",
            "rusqlite",
            "crate::store",
            "crate::ui",
            "crate::app",
            "crate::cli",
        ],
    ),
];

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

/// The offending lines of one source text (comments skipped).
fn offences(text: &str, forbidden: &[&str]) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let code = code.split(" //").next().unwrap_or(code);
        for needle in forbidden {
            if code.contains(needle) {
                found.push((i + 1, format!("`{needle}` in: {}", line.trim())));
            }
        }
    }
    found
}

#[test]
fn pure_core_imports_no_gui_sqlite_files_clock_or_thread_rng() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut problems = Vec::new();
    let mut files_checked = 0;
    for (module, upward) in UPWARD {
        let mut files = Vec::new();
        rust_files(&root.join(module), &mut files);
        assert!(!files.is_empty(), "src/{module} has no sources");
        let mut forbidden: Vec<&str> = IMPURE.iter().map(|(n, _)| *n).collect();
        forbidden.extend(upward.iter().copied());
        for f in files {
            files_checked += 1;
            let text = std::fs::read_to_string(&f).expect("read source");
            for (line, what) in offences(&text, &forbidden) {
                problems.push(format!("{}:{line}: {what}", f.display()));
            }
        }
    }
    assert!(files_checked >= 4);
    assert!(
        problems.is_empty(),
        "the pure core must stay pure (ARCHITECTURE.md):\n{}",
        problems.join("\n")
    );
}

#[test]
fn ui_uses_no_store_and_store_and_export_use_no_gui() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut problems = Vec::new();
    for (module, forbidden) in OUTER {
        let mut files = Vec::new();
        rust_files(&root.join(module), &mut files);
        assert!(files.len() >= 2, "src/{module} has too few sources");
        for f in files {
            let text = std::fs::read_to_string(&f).expect("read source");
            // Unit tests may name what they forbid.
            let code = text.split("#[cfg(test)]").next().unwrap_or(&text);
            for (line, what) in offences(code, forbidden) {
                problems.push(format!("{}:{line}: {what}", f.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the outer layers must keep their places (ARCHITECTURE.md):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checker_catches_what_it_should() {
    let bad = "use egui::Ui;\nlet t = std::time::Instant::now();\n// use rusqlite; (a comment is fine)\nlet x = rand::thread_rng();";
    let forbidden: Vec<&str> = IMPURE.iter().map(|(n, _)| *n).collect();
    let found = offences(bad, &forbidden);
    let lines: Vec<usize> = found.iter().map(|(l, _)| *l).collect();
    assert!(lines.contains(&1) && lines.contains(&2) && lines.contains(&4));
    assert!(!lines.contains(&3));
    // The outer layers' lists catch a store call in the UI and a GUI in the store.
    let outer = |module: &str| {
        OUTER
            .iter()
            .find(|(m, _)| *m == module)
            .map(|(_, f)| *f)
            .unwrap_or_default()
    };
    let ui = "let s = crate::store::Store::open(path)?;";
    assert_eq!(offences(ui, outer("ui")).len(), 1);
    let store = "use egui::Color32;";
    assert_eq!(offences(store, outer("store")).len(), 1);
    assert_eq!(offences(store, outer("export")).len(), 1);
}

#[test]
fn every_module_opens_with_its_essay() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for module in [
        "geom", "model", "rules", "campaign", "ai", "store", "export", "app", "ui", "cli",
    ] {
        let path = root.join(module).join("mod.rs");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            text.trim_start().starts_with("//!"),
            "{} must open with a //! essay",
            path.display()
        );
    }
}
