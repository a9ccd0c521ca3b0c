//! Label layouts as data: what a rules system prints on a base label, and the engine that fits
//! it into a label of a given size.
//!
//! A [`LabelLayout`] names, per label kind (unit or commander), the lines of the label. A line
//! is a list of [`Part`]s — a field of the label (`place`, `name`, `stats` …) with optional
//! literal prefix and suffix, or a literal — joined by spaces, plus an optional right-aligned
//! group. Each line has a face and font size bounds. The engine picks for every line the
//! largest size that fits the width, shrinks all lines together when they are too tall, drops
//! optional lines (then the lowest lines) when even the minimum sizes are too tall, and cuts a
//! line with "…" when it is too wide at its minimum size. The result never leaves the label.

use super::fonts::{fonts, Fonts};
use super::text::{truncate, wrap, wrap_checked, ELLIPSIS, NBSP};
use super::{mm_to_pt, pt_to_mm, ExportError, Face};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a label is for: a unit's stand (or the unit) or a commander's base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LabelKind {
    Unit,
    Commander,
}

/// The edge of the label that carries the side's colour band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BandEdge {
    #[default]
    Top,
    Bottom,
    Left,
    Right,
    /// No band.
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BandSpec {
    pub edge: BandEdge,
    /// Thickness of the band, in millimetres.
    pub size_mm: f32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Align {
    #[default]
    Left,
    Center,
    Right,
}

/// One piece of a line: a field's value wrapped in `prefix`/`suffix` (left out, with them, when
/// the field is empty or missing), or literal `text` when `field` is absent.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Part {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub suffix: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Keep this part on the same row as the next one when a line wraps (a place code with
    /// its name: never "III —" alone on a row).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub glue: bool,
}

impl Part {
    pub fn field(name: &str) -> Part {
        Part {
            field: Some(name.to_string()),
            ..Part::default()
        }
    }

    pub fn with_prefix(mut self, p: &str) -> Part {
        self.prefix = p.to_string();
        self
    }

    pub fn with_suffix(mut self, s: &str) -> Part {
        self.suffix = s.to_string();
        self
    }

    fn resolve(&self, fields: &BTreeMap<String, String>) -> Option<String> {
        match &self.field {
            Some(f) => {
                let v = fields.get(f).map(|s| s.trim()).unwrap_or("");
                (!v.is_empty()).then(|| format!("{}{v}{}", self.prefix, self.suffix))
            }
            None => (!self.text.is_empty()).then(|| self.text.clone()),
        }
    }
}

fn default_min() -> f32 {
    3.5
}

/// One line of a label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineSpec {
    pub parts: Vec<Part>,
    /// Printed flush right on the same line (a stand number, a points value).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub right: Vec<Part>,
    pub face: Face,
    #[serde(default = "default_min")]
    pub min_pt: f32,
    pub max_pt: f32,
    #[serde(default)]
    pub align: Align,
    /// Dropped first when the label is too small for every line.
    #[serde(default)]
    pub optional: bool,
    /// Rows the line may wrap onto when one row would be too small to read (a long unit or
    /// commander name). Lines with a right group always take one row.
    #[serde(default = "one_line")]
    pub max_lines: u8,
}

fn one_line() -> u8 {
    1
}

/// A rules system's label design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelLayout {
    pub name: String,
    pub band: BandSpec,
    /// Clear space kept between the label's edges (and the band) and the text, in millimetres.
    pub padding_mm: f32,
    /// Extra space between lines, at least, in millimetres.
    #[serde(default)]
    pub line_gap_mm: f32,
    pub unit: Vec<LineSpec>,
    pub commander: Vec<LineSpec>,
}

const BPTC_JSON: &str = include_str!("layouts/bptc.json");

impl LabelLayout {
    /// The Black Powder Tactical Commander label layout shipped in `layouts/bptc.json`.
    pub fn bptc() -> Result<LabelLayout, ExportError> {
        LabelLayout::from_json(BPTC_JSON)
    }

    /// Reads and checks a layout from JSON.
    pub fn from_json(text: &str) -> Result<LabelLayout, ExportError> {
        let layout: LabelLayout = serde_json::from_str(text).map_err(|e| ExportError::Layout {
            layout: "(json)".into(),
            message: e.to_string(),
        })?;
        layout.check()?;
        Ok(layout)
    }

    pub fn lines(&self, kind: LabelKind) -> &[LineSpec] {
        match kind {
            LabelKind::Unit => &self.unit,
            LabelKind::Commander => &self.commander,
        }
    }

    /// Refuses sizes that would make fitting meaningless.
    pub fn check(&self) -> Result<(), ExportError> {
        let bad = |message: String| ExportError::Layout {
            layout: self.name.clone(),
            message,
        };
        if !(0.0..=10.0).contains(&self.padding_mm) || !(0.0..=10.0).contains(&self.line_gap_mm) {
            return Err(bad(
                "padding and line gap must be between 0 and 10 mm".into()
            ));
        }
        if !(0.0..=20.0).contains(&self.band.size_mm) {
            return Err(bad("the band must be between 0 and 20 mm".into()));
        }
        for (kind, lines) in [("unit", &self.unit), ("commander", &self.commander)] {
            if lines.is_empty() {
                return Err(bad(format!("the {kind} label has no lines")));
            }
            for (i, l) in lines.iter().enumerate() {
                if !(l.min_pt >= 1.0 && l.min_pt <= l.max_pt && l.max_pt <= 72.0) {
                    return Err(bad(format!(
                        "{kind} line {}: sizes must satisfy 1 ≤ min_pt ≤ max_pt ≤ 72 (got {} and {})",
                        i + 1,
                        l.min_pt,
                        l.max_pt
                    )));
                }
                if !(1..=4).contains(&l.max_lines) {
                    return Err(bad(format!(
                        "{kind} line {}: max_lines must be 1 to 4 (got {})",
                        i + 1,
                        l.max_lines
                    )));
                }
                if l.parts.is_empty() && l.right.is_empty() {
                    return Err(bad(format!("{kind} line {} shows nothing", i + 1)));
                }
            }
        }
        Ok(())
    }
}

/// A rectangle in millimetres from the page's top-left corner, y downwards.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct RectMm {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl RectMm {
    pub fn right(&self) -> f32 {
        self.x + self.w
    }
    pub fn bottom(&self) -> f32 {
        self.y + self.h
    }
    /// Whether `other` lies inside this rectangle (with a 1 µm tolerance for float noise).
    pub fn contains(&self, other: &RectMm) -> bool {
        const EPS: f32 = 0.001;
        other.x >= self.x - EPS
            && other.y >= self.y - EPS
            && other.right() <= self.right() + EPS
            && other.bottom() <= self.bottom() + EPS
    }
}

/// A piece of text placed on a label, with everything needed to check that it fits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlacedText {
    pub text: String,
    pub face: Face,
    pub size_pt: f32,
    /// Left end of the baseline, in millimetres from the page's top-left corner.
    pub x_mm: f32,
    pub baseline_mm: f32,
    /// Advance width of the text as printed.
    pub width_mm: f32,
    /// The face's ascent and descent at this size: the text's ink stays between
    /// `baseline_mm - ascent_mm` and `baseline_mm + descent_mm`.
    pub ascent_mm: f32,
    pub descent_mm: f32,
    /// Cut with an ellipsis because it did not fit at the minimum size.
    pub truncated: bool,
}

impl PlacedText {
    /// The box the text can ink.
    pub fn bounds_mm(&self) -> RectMm {
        RectMm {
            x: self.x_mm,
            y: self.baseline_mm - self.ascent_mm,
            w: self.width_mm,
            h: self.ascent_mm + self.descent_mm,
        }
    }
}

/// The band's rectangle and the text area inside a label.
pub(crate) fn label_areas(layout: &LabelLayout, rect: RectMm) -> (Option<RectMm>, RectMm) {
    let b = layout.band.size_mm.min(rect.w / 2.0).min(rect.h / 2.0);
    let (band, mut area) = match layout.band.edge {
        BandEdge::None => (None, rect),
        _ if b <= 0.0 => (None, rect),
        BandEdge::Top => (
            Some(RectMm { h: b, ..rect }),
            RectMm {
                y: rect.y + b,
                h: rect.h - b,
                ..rect
            },
        ),
        BandEdge::Bottom => (
            Some(RectMm {
                y: rect.bottom() - b,
                h: b,
                ..rect
            }),
            RectMm {
                h: rect.h - b,
                ..rect
            },
        ),
        BandEdge::Left => (
            Some(RectMm { w: b, ..rect }),
            RectMm {
                x: rect.x + b,
                w: rect.w - b,
                ..rect
            },
        ),
        BandEdge::Right => (
            Some(RectMm {
                x: rect.right() - b,
                w: b,
                ..rect
            }),
            RectMm {
                w: rect.w - b,
                ..rect
            },
        ),
    };
    let p = layout.padding_mm.min(area.w / 4.0).min(area.h / 4.0);
    area.x += p;
    area.y += p;
    area.w -= 2.0 * p;
    area.h -= 2.0 * p;
    (band, area)
}

struct Resolved<'a> {
    spec: &'a LineSpec,
    left: String,
    right: String,
    /// Lines the left text may take (1 when the line has a right group).
    max_lines: usize,
}

/// The parts' text joined by spaces; a glued part is followed by a no-break space, which the
/// wrapper does not break at and which is printed as an ordinary space.
fn join(parts: &[Part], fields: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut glue = false;
    for (p, text) in parts
        .iter()
        .filter_map(|p| p.resolve(fields).map(|t| (p, t)))
    {
        if !out.is_empty() {
            out.push(if glue { NBSP } else { ' ' });
        }
        out.push_str(&text);
        glue = p.glue;
    }
    out
}

/// Printed text: no-break spaces become spaces (same advance in the shipped fonts).
fn printed(text: String) -> String {
    if text.contains(NBSP) {
        text.replace(NBSP, " ")
    } else {
        text
    }
}

/// The gap between a line's left text and its right group, in em.
const RIGHT_GAP_EM: f32 = 0.6;

/// A line's chosen size and the number of printed lines it takes.
#[derive(Clone, Copy)]
struct Choice {
    size: f32,
    rows: usize,
}

/// Sizes are chosen in steps of 0.1 pt.
fn tenths(pt: f32) -> i32 {
    (pt * 10.0).floor() as i32
}

/// Lines `text` wraps to at `size` in `width_pt`, and whether a word had to be split.
fn rows_at(f: &Fonts, face: Face, text: &str, size: f32, width_pt: f32) -> (usize, bool) {
    let (rows, broke) = wrap_checked(f.get(face), text, size, width_pt);
    (rows.len().max(1), broke)
}

/// The largest size (in 0.1 pt steps, within the line's bounds) at which the line fits the
/// width in at most `rows` rows; `None` if not even at the minimum.
fn largest_fitting(f: &Fonts, l: &Resolved, rows: usize, width_pt: f32) -> Option<f32> {
    let m = f.get(l.spec.face);
    let fits = |t: i32| {
        let size = t as f32 / 10.0;
        if l.max_lines <= 1 || !l.right.is_empty() {
            let gap = if l.left.is_empty() || l.right.is_empty() {
                0.0
            } else {
                RIGHT_GAP_EM * size
            };
            m.width_pt(&l.left, size) + gap + m.width_pt(&l.right, size) <= width_pt
        } else {
            let (n, broke) = rows_at(f, l.spec.face, &l.left, size, width_pt);
            n <= rows && !broke
        }
    };
    let (mut lo, mut hi) = (tenths(l.spec.min_pt), tenths(l.spec.max_pt));
    if !fits(lo) {
        return None;
    }
    // Widths grow with the size, so the fitting sizes are an interval from the minimum.
    while lo < hi {
        let mid = (lo + hi + 1) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo as f32 / 10.0)
}

/// A line on one row: the largest size that fits the width, or its minimum (to be cut with
/// "…") when none does — then `true`.
fn one_row(f: &Fonts, l: &Resolved, width_pt: f32) -> (Choice, bool) {
    match largest_fitting(f, l, 1, width_pt) {
        Some(size) => (Choice { size, rows: 1 }, false),
        None => (
            Choice {
                size: l.spec.min_pt,
                rows: 1,
            },
            true,
        ),
    }
}

/// A line wrapped onto 2..=max_lines rows: the row count allowing the largest size (fewer rows
/// on a tie), if any fits without splitting a word.
fn wrapped(f: &Fonts, l: &Resolved, width_pt: f32) -> Option<Choice> {
    let mut best: Option<Choice> = None;
    for rows in 2..=l.max_lines {
        if let Some(size) = largest_fitting(f, l, rows, width_pt) {
            if best.is_none_or(|b| size > b.size + 0.05) {
                best = Some(Choice { size, rows });
            }
        }
    }
    best
}

/// Each line's size and rows before the height is considered: one row at the largest size
/// that fits the width. A line that may wrap takes more rows when one row would cut it with
/// "…" (keeping the text matters more than its size), or when one row would be small (under
/// 3/4 of its largest size) and the wrapped rows still fit the label's height with every other
/// line as it is.
fn natural(f: &Fonts, lines: &[Resolved], area: RectMm, gap_mm: f32) -> Vec<Choice> {
    let width_pt = mm_to_pt(area.w);
    let firsts: Vec<(Choice, bool)> = lines.iter().map(|l| one_row(f, l, width_pt)).collect();
    let mut choices: Vec<Choice> = firsts.iter().map(|(c, _)| *c).collect();
    for (i, l) in lines.iter().enumerate() {
        if l.max_lines <= 1 {
            continue;
        }
        let Some((one, cut)) = firsts.get(i).copied() else {
            continue;
        };
        let w = match (wrapped(f, l, width_pt), cut) {
            (Some(w), _) => w,
            // Too long even for every row at the minimum size: all the rows, the last cut.
            (None, true) => Choice {
                size: l.spec.min_pt,
                rows: l.max_lines,
            },
            (None, false) => continue,
        };
        let readable = (l.spec.max_pt * 0.75).max(l.spec.min_pt);
        if cut {
            if let Some(c) = choices.get_mut(i) {
                *c = w;
            }
        } else if one.size < readable && w.size > one.size {
            let mut trial = choices.clone();
            if let Some(c) = trial.get_mut(i) {
                *c = w;
            }
            if lines_height(f, lines, &trial, gap_mm) <= area.h {
                choices = trial;
            }
        }
    }
    choices
}

fn lines_height(f: &Fonts, lines: &[Resolved], choices: &[Choice], gap_mm: f32) -> f32 {
    let text: f32 = lines
        .iter()
        .zip(choices)
        .map(|(l, c)| c.rows as f32 * pt_to_mm(c.size) * f.get(l.spec.face).extent_em())
        .sum();
    text + gap_mm * (lines.len().saturating_sub(1)) as f32
}

/// Fits the lines of `kind` into `area` (millimetres). Returns the placed text; every piece lies
/// inside `area`.
pub(crate) fn fit_lines(
    layout: &LabelLayout,
    kind: LabelKind,
    fields: &BTreeMap<String, String>,
    area: RectMm,
) -> Result<Vec<PlacedText>, ExportError> {
    let f = fonts()?;
    let mut lines: Vec<Resolved> = layout
        .lines(kind)
        .iter()
        .filter_map(|spec| {
            let left = join(&spec.parts, fields);
            let right = join(&spec.right, fields);
            if left.is_empty() && right.is_empty() {
                return None;
            }
            let max_lines = if right.is_empty() {
                usize::from(spec.max_lines.max(1))
            } else {
                1
            };
            Some(Resolved {
                spec,
                left,
                right,
                max_lines,
            })
        })
        .collect();
    if area.w <= 0.0 || area.h <= 0.0 {
        return Ok(Vec::new());
    }
    let width_pt = mm_to_pt(area.w);
    let gap_mm = layout.line_gap_mm;
    loop {
        if lines.is_empty() {
            return Ok(Vec::new());
        }
        let mut choices = natural(f, &lines, area, gap_mm);
        let mut h = lines_height(f, &lines, &choices, gap_mm);
        if h > area.h {
            // Shrink every line by the same factor, but not below its minimum. Smaller text
            // never needs more rows, so the row counts stay valid.
            let gaps = gap_mm * (lines.len().saturating_sub(1)) as f32;
            let k = if h - gaps > 0.0 {
                (area.h - gaps) / (h - gaps)
            } else {
                0.0
            };
            for (c, l) in choices.iter_mut().zip(&lines) {
                c.size = ((c.size * k * 10.0).floor() / 10.0).max(l.spec.min_pt);
                if c.rows > 1 {
                    c.rows = rows_at(f, l.spec.face, &l.left, c.size, width_pt)
                        .0
                        .min(c.rows);
                }
            }
            h = lines_height(f, &lines, &choices, gap_mm);
        }
        if h > area.h + 1e-4 {
            // Even the minimum sizes are too tall: first give up optional lines, then extra
            // rows of wrapped lines, then the lowest line.
            if let Some(i) = lines.iter().rposition(|l| l.spec.optional) {
                lines.remove(i);
            } else if let Some(l) = lines.iter_mut().rev().find(|l| l.max_lines > 1) {
                l.max_lines -= 1;
            } else {
                lines.pop();
            }
            continue;
        }
        return Ok(place(f, &lines, &choices, area, h, gap_mm));
    }
}

fn place(
    f: &Fonts,
    lines: &[Resolved],
    choices: &[Choice],
    area: RectMm,
    h: f32,
    gap_mm: f32,
) -> Vec<PlacedText> {
    // Spread the spare height between and around the lines, keeping them together.
    let n = lines.len() as f32;
    let spare = (area.h - h).max(0.0);
    let extra_gap = (spare / (n + 1.0)).min(1.2);
    let block = h + extra_gap * (n - 1.0);
    let mut y = area.y + (area.h - block) / 2.0;
    let width_pt = mm_to_pt(area.w);
    let mut out = Vec::new();
    for (l, c) in lines.iter().zip(choices) {
        let size = c.size;
        let m = f.get(l.spec.face);
        let ascent_mm = pt_to_mm(size) * m.ascent;
        let descent_mm = pt_to_mm(size) * m.descent;
        let row_h = pt_to_mm(size) * m.extent_em();
        let mk = |text: String, x_pt: f32, w_pt: f32, baseline: f32, cut: bool| PlacedText {
            text: printed(text),
            face: l.spec.face,
            size_pt: size,
            x_mm: area.x + pt_to_mm(x_pt),
            baseline_mm: baseline,
            width_mm: pt_to_mm(w_pt),
            ascent_mm,
            descent_mm,
            truncated: cut,
        };
        let aligned = |w_pt: f32| match l.spec.align {
            Align::Left => 0.0,
            Align::Center => ((width_pt - w_pt) / 2.0).max(0.0),
            Align::Right => (width_pt - w_pt).max(0.0),
        };
        if c.rows > 1 {
            // A wrapped line: at most `rows` rows, the last cut with "…" if text is left over.
            let mut rows = wrap(m, &l.left, size, width_pt);
            if rows.len() > c.rows {
                let rest = rows.split_off(c.rows - 1).join(" ");
                rows.push(truncate(m, &rest, size, width_pt).0);
            }
            let last = rows.len().saturating_sub(1);
            for (i, text) in rows.into_iter().enumerate() {
                let w = m.width_pt(&text, size);
                let cut = i == last && text.ends_with(ELLIPSIS) && !l.left.ends_with(ELLIPSIS);
                out.push(mk(text, aligned(w), w, y + ascent_mm, cut));
                y += row_h;
            }
            y += gap_mm + extra_gap;
            continue;
        }
        let baseline = y + ascent_mm;
        let gap_pt = if l.left.is_empty() || l.right.is_empty() {
            0.0
        } else {
            RIGHT_GAP_EM * size
        };
        // The right group keeps its full text when it can; the left text gives way first.
        let (right, right_cut) = truncate(m, &l.right, size, width_pt);
        let right_w = m.width_pt(&right, size);
        let left_room = (width_pt - right_w - gap_pt).max(0.0);
        let (left, left_cut) = if left_room > 0.0 {
            truncate(m, &l.left, size, left_room)
        } else {
            (String::new(), !l.left.is_empty())
        };
        let left_w = m.width_pt(&left, size);
        if !left.is_empty() {
            let x = if right.is_empty() {
                aligned(left_w)
            } else {
                0.0
            };
            out.push(mk(left, x, left_w, baseline, left_cut));
        }
        if !right.is_empty() {
            out.push(mk(
                right,
                (width_pt - right_w).max(0.0),
                right_w,
                baseline,
                right_cut,
            ));
        }
        y += row_h + gap_mm + extra_gap;
    }
    // Guard against float noise: nothing may end past the area.
    for t in &mut out {
        let over = t.x_mm + t.width_mm - area.right();
        if over > 0.0 {
            t.x_mm -= over;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bptc_layout_parses_and_is_sane() {
        let l = LabelLayout::bptc().unwrap();
        assert!(!l.unit.is_empty() && !l.commander.is_empty());
        assert!(l.unit.iter().all(|s| s.min_pt >= 3.5));
    }

    #[test]
    fn parts_skip_empty_fields_with_their_affixes() {
        let mut fields = BTreeMap::new();
        fields.insert("place".to_string(), "II/1".to_string());
        fields.insert("name".to_string(), "3e Ligne".to_string());
        fields.insert("rules".to_string(), String::new());
        let parts = [
            Part::field("place").with_suffix(" —"),
            Part::field("name"),
            Part::field("rules").with_prefix("R"),
        ];
        assert_eq!(join(&parts, &fields), "II/1 — 3e Ligne");
        fields.insert("place".to_string(), String::new());
        assert_eq!(join(&parts, &fields), "3e Ligne");
        let mut glued = parts.clone();
        glued[0].glue = true;
        fields.insert("place".to_string(), "II/1".to_string());
        assert_eq!(join(&glued, &fields), "II/1 —\u{a0}3e Ligne");
        assert_eq!(printed(join(&glued, &fields)), "II/1 — 3e Ligne");
    }

    #[test]
    fn bad_sizes_are_refused() {
        let mut l = LabelLayout::bptc().unwrap();
        l.unit[0].min_pt = 9.0;
        l.unit[0].max_pt = 4.0;
        let e = l.check().unwrap_err().to_string();
        assert!(e.contains("min_pt"), "{e}");
    }
}
