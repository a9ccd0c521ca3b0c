//! Printable output: PDF rosters to play from and unit stat labels sized to real bases.
//!
//! What it owns: turning a [`Scenario`] and its army lists into PDF bytes — the roster
//! ([`roster_pdf`]) and sheets of base labels ([`labels_pdf`]) — and writing those bytes to a
//! file whole or not at all ([`write_pdf_atomically`]). Every public export function is a pure
//! function of its inputs: no globals that change, no clock, no threads, so the GUI can run it
//! on a worker thread (`Send` inputs, `Send` output) and show the `progress` callback of the
//! `*_with_progress` variants in a progress bar.
//!
//! How sizes are guaranteed: geometry is computed first, as plain values
//! ([`label_layout`] → [`PlacedLabel`], the roster's pages), and drawing only paints those values.
//! Text is measured with the embedded font's own advance widths (read with `skrifa`) and drawn as
//! exactly those glyphs at exactly those advances (no shaping, no kerning), so what was measured
//! is what is printed. A label's text shrinks to fit between the layout's size bounds; below the
//! minimum it is cut with an ellipsis; a line that cannot fit at all is left out. Nothing is drawn
//! outside the label. Base sizes are BAS-03 ([`BaseKind::size_mm`]).
//!
//! Label layouts are data ([`LabelLayout`], JSON): the lines of a label, which fields each line
//! shows, their font size bounds and where the side's colour band goes. The BPTC layout ships in
//! `src/export/layouts/bptc.json`; another rules system's labels need a new layout, not new
//! drawing code. Fonts are DejaVu (`assets/fonts/`, Bitstream Vera licence), embedded with
//! `include_bytes!`; system fonts are never used.
//!
//! Layering: depends on `model` (and through it `geom`); imports no egui, eframe or rusqlite,
//! and touches the file system only in [`write_pdf_atomically`], for the file it is asked to
//! write. The CLI (`powderhorn export roster|labels`) and the GUI's export button call the
//! functions re-exported here.

mod atomic;
mod data;
mod fonts;
mod labels;
mod layout;
mod render;
mod result;
mod roster;
mod text;

pub use atomic::write_pdf_atomically;
pub use fonts::{text_width_mm, Face};
pub use labels::{
    bptc_label_contents, label_layout, labels_pdf, labels_pdf_with_progress, pack_labels,
    render_label_sheets, BaseKind, LabelContent, LabelOptions, Per, PlacedLabel, PlacedText,
    RectMm, SheetGeometry,
};
pub use layout::{Align, BandEdge, BandSpec, LabelKind, LabelLayout, LineSpec, Part};
pub use result::{result_pdf, result_pdf_with_progress};
pub use roster::{roster_pdf, roster_pdf_with_progress, RosterOptions};

use crate::model::{ArmyList, Attack, Scale, Side, TroopType, Unit};

/// Paper a PDF is laid out on. Sizes are the ISO and US definitions, in PDF points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Paper {
    /// ISO A4, 210 × 297 mm (595.28 × 841.89 pt).
    #[default]
    A4,
    /// US Letter, 8.5 × 11 in (612 × 792 pt).
    Letter,
}

impl Paper {
    pub const ALL: [Paper; 2] = [Paper::A4, Paper::Letter];

    pub fn label(self) -> &'static str {
        match self {
            Paper::A4 => "A4",
            Paper::Letter => "Letter",
        }
    }

    /// Width and height in millimetres.
    pub fn size_mm(self) -> (f32, f32) {
        match self {
            Paper::A4 => (210.0, 297.0),
            Paper::Letter => (215.9, 279.4),
        }
    }

    /// Width and height in PDF points (1/72 in).
    pub fn size_pt(self) -> (f32, f32) {
        let (w, h) = self.size_mm();
        (mm_to_pt(w), mm_to_pt(h))
    }
}

/// Millimetres to PDF points.
pub fn mm_to_pt(mm: f32) -> f32 {
    mm * 72.0 / 25.4
}

/// PDF points to millimetres.
pub fn pt_to_mm(pt: f32) -> f32 {
    pt * 25.4 / 72.0
}

/// Why an export did not produce a PDF. Each message says what is wrong, where, and how to fix
/// it, because the CLI prints it as it is and the GUI shows it in a dialog.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("scenario '{scenario}': side '{side}' has no units in its order of battle; add units before printing (or print only the other side)")]
    EmptyOrderOfBattle { scenario: String, side: String },
    #[error("scenario '{scenario}' has no sides to print")]
    NoSides { scenario: String },
    #[error("scenario '{scenario}' has no side named '{wanted}'; its sides are {available}")]
    UnknownSide {
        scenario: String,
        wanted: String,
        available: String,
    },
    #[error("side '{side}' uses army list '{list}', which is not installed; import the list or pick another for the side")]
    MissingList { side: String, list: String },
    #[error("unit '{unit}' uses troop type '{troop_type}' not in list '{list}'; pick one of the list's troop types for it")]
    MissingTroopType {
        unit: String,
        troop_type: String,
        list: String,
    },
    #[error("label layout '{layout}': {message}")]
    Layout { layout: String, message: String },
    #[error(
        "a {w_mm} × {h_mm} mm label does not fit on {paper} paper inside the printable margins"
    )]
    LabelTooLarge {
        w_mm: f32,
        h_mm: f32,
        paper: &'static str,
    },
    #[error("embedded font {face} could not be read: {message}")]
    Font { face: &'static str, message: String },
    #[error("could not write the PDF: {message}")]
    Pdf { message: String },
    #[error("{path}: not written: the data is not a complete PDF")]
    IncompletePdf { path: String },
    #[error("{path}: cannot write: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// The compact label line of a unit ("M10 A1/10 H3 S5+ 75pt = 4 stands, 300pt"), shared by
/// rosters, labels and the editor so all three always agree.
pub fn unit_stat_line(unit: &Unit, row: &TroopType, list: &ArmyList) -> String {
    let mut line = row.stat_line();
    let pts = crate::model::points::unit_points(unit, list);
    line.push_str(&format!(" = {} stands, {pts}pt", unit.stands));
    line
}

/// The stat line of a row at a representation scale, without points: "M10 A1/10 H3 S5+".
/// GEN-07: weapon ranges from the army list scale (×2 company, ×1 battalion, ×0.5 brigade)
/// unless the list opts out (`ranges_scale: false`, the Colonial list).
pub fn scaled_stats(row: &TroopType, list: &ArmyList, scale: Scale) -> String {
    let mut s = format!("M{}", row.movement);
    if let Some(a) = row.attack {
        s.push_str(&format!(" A{}", scaled_attack(a, list, scale)));
    }
    s.push_str(&format!(" H{}", row.hits));
    s.push_str(&format!(
        " S{}",
        row.save.map_or_else(|| "-".to_string(), |v| v.to_string())
    ));
    s
}

/// An Attack value with its range scaled (GEN-07): "1/10", "1/22.5", "CC only".
pub fn scaled_attack(attack: Attack, list: &ArmyList, scale: Scale) -> String {
    match attack {
        Attack::Ranged { dice, range_cm } => {
            let factor = if list.ranges_scale {
                scale.range_factor()
            } else {
                1.0
            };
            format!("{dice}/{}", format_cm(f64::from(range_cm) * factor))
        }
        Attack::CloseCombatOnly => attack.to_string(),
    }
}

/// 10 → "10", 22.5 → "22.5", 0.25 → "0.25": no trailing zeros, no float noise.
fn format_cm(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// "II/1"-style place of a unit in its side's chain of command, in Roman numerals for the
/// first level below the CO and Arabic below that, as order-of-battle labels are written.
/// Units directly under the CO have an empty place.
pub fn oob_place(side: &Side, unit: &Unit) -> String {
    hq_place(side, unit.hq)
}

/// The place of an HQ itself ("II/1"); the CO's is empty.
pub fn hq_place(side: &Side, hq: crate::model::HqId) -> String {
    let path = side.hq_path(hq);
    path.iter()
        .enumerate()
        .map(|(i, n)| if i == 0 { roman(*n) } else { n.to_string() })
        .collect::<Vec<_>>()
        .join("/")
}

fn roman(mut n: usize) -> String {
    const TABLE: [(usize, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut s = String::new();
    for (v, r) in TABLE {
        while n >= v {
            s.push_str(r);
            n -= v;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roman_numerals() {
        assert_eq!(roman(1), "I");
        assert_eq!(roman(4), "IV");
        assert_eq!(roman(14), "XIV");
        assert_eq!(roman(1809), "MDCCCIX");
    }

    #[test]
    fn ranges_print_without_float_noise() {
        assert_eq!(format_cm(10.0), "10");
        assert_eq!(format_cm(22.5), "22.5");
        assert_eq!(format_cm(1.0), "1");
        assert_eq!(format_cm(90.0), "90");
    }

    #[test]
    fn paper_sizes_in_points() {
        let (w, h) = Paper::A4.size_pt();
        assert!((w - 595.28).abs() < 0.01 && (h - 841.89).abs() < 0.01);
        let (w, h) = Paper::Letter.size_pt();
        assert!((w - 612.0).abs() < 0.01 && (h - 792.0).abs() < 0.01);
    }
}
