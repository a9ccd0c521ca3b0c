//! Writes the sample PDFs for looking at (the `docs/*.png` pictures are made from these): the
//! roster and base labels of the shipped Ebelsberg sample on A4 and Letter, labels per unit, and
//! the Napoleonic Battlefield Commander label example (only a layout description is new there).
//!
//! ```sh
//! cargo run --example sample_pdfs [-- OUT_DIR]
//! ```
//!
//! The folder is the argument, else `$POWDERHORN_EXPORT_DIR`, else `target/export-samples`.
//! (This was an ignored test in `tests/export.rs`; it checks nothing, so it is an example.)

use anyhow::{anyhow, Context, Result};
use powderhorn::export::*;
use powderhorn::model::army::shipped_lists;
use powderhorn::model::samples;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The Napoleonic Battlefield Commander's labels: a 6 mm strip on the back of a 50 mm brigade
/// base and a 9 mm strip on a 25 mm officer base, coloured by side on the left.
const NBC_LAYOUT: &str = include_str!("../tests/support/nbc_layout.json");

fn nbc_label(kind: LabelKind, w: f32, h: f32, key: &str, fields: &[(&str, &str)]) -> LabelContent {
    LabelContent {
        kind,
        base: None,
        w_mm: w,
        h_mm: h,
        colour: [200, 40, 40],
        fields: fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        key: format!("nbc {key}"),
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let path = dir.join(name);
    write_pdf_atomically(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

fn main() -> Result<()> {
    let dir: PathBuf = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("POWDERHORN_EXPORT_DIR").ok())
        .unwrap_or_else(|| "target/export-samples".into())
        .into();
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let lists = shipped_lists().context("reading the shipped army lists")?;
    let scenarios = samples::scenarios().context("reading the shipped samples")?;
    let ebelsberg = scenarios
        .iter()
        .find(|s| s.id.as_str() == "1809-ebelsberg")
        .ok_or_else(|| anyhow!("the Ebelsberg sample is not among the shipped samples"))?;
    for paper in Paper::ALL {
        let p = paper.label().to_lowercase();
        let roster = roster_pdf(ebelsberg, &lists, &RosterOptions { side: None, paper })?;
        write(&dir, &format!("roster-{p}.pdf"), &roster)?;
        let opts = LabelOptions {
            paper,
            ..LabelOptions::default()
        };
        write(
            &dir,
            &format!("labels-{p}.pdf"),
            &labels_pdf(ebelsberg, &lists, &opts)?,
        )?;
    }
    let per_unit = LabelOptions {
        per: Per::Unit,
        ..LabelOptions::default()
    };
    write(
        &dir,
        "labels-per-unit.pdf",
        &labels_pdf(ebelsberg, &lists, &per_unit)?,
    )?;

    let layout = LabelLayout::from_json(NBC_LAYOUT)?;
    let labels = vec![
        nbc_label(
            LabelKind::Unit,
            50.0,
            6.0,
            "Roeben",
            &[
                ("formation", "III/1/2"),
                ("name", "Roeben"),
                ("quality", "3"),
                ("mixed", "MX"),
                ("skirmish", "1"),
                ("cp", "6"),
            ],
        ),
        nbc_label(
            LabelKind::Commander,
            25.0,
            9.0,
            "Liechtenstein",
            &[
                ("formation", "X"),
                ("name", "Liechtenstein"),
                ("radius", "23"),
                ("leadership", "1"),
                ("temperament", "2"),
                ("ability", "3"),
            ],
        ),
    ];
    let g = SheetGeometry::default();
    let placed = pack_labels(&layout, &labels, Paper::A4, &g)?;
    let sheets = render_label_sheets(&placed, Paper::A4, &g, "NBC example", "NBC labels", &|_| {})?;
    write(&dir, "labels-nbc.pdf", &sheets)?;
    Ok(())
}
