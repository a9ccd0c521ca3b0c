//! Base labels: one per stand (or per unit) and one per commander, at the base's real size,
//! packed on sheets with cut marks.
//!
//! Three steps, each a public function so tests and other rules systems can use them alone:
//! [`bptc_label_contents`] reads a scenario into [`LabelContent`]s (size + fields),
//! [`pack_labels`] places them on sheets and fits their text with a [`LabelLayout`], and
//! [`render_label_sheets`] paints the result. [`labels_pdf`] runs all three.

use super::data::{
    hq_place_label, hqs_in_order, note_codes, select_sides, unattached_units, unit_extras, SideView,
};
use super::fonts::fonts;
use super::layout::{fit_lines, label_areas};
use super::render::{render, Item, PageItems, BLACK, GREY, LIGHT};
use super::text::truncate;
use super::{mm_to_pt, oob_place, scaled_stats, ExportError, Face, LabelKind, LabelLayout, Paper};
use crate::geom::footprint::StandKind;
use crate::model::points::{engineer_row, hq_points, stand_cost, unit_points};
use crate::model::{Arm, Move, RowRole, Scale, Scenario, TroopType, Unit};
use std::collections::BTreeMap;

pub use super::layout::{PlacedText, RectMm};

/// One label per stand or one per unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Per {
    #[default]
    Stand,
    Unit,
}

/// What to print on a label sheet.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LabelOptions {
    pub per: Per,
    pub paper: Paper,
    /// Representation scale for printed ranges (GEN-07); `None`: the scenario's own.
    pub scale: Option<Scale>,
    /// Only this side (by name, case-insensitive); `None`: every side.
    pub side: Option<String>,
}

/// The base a label is for, with its BAS-03 size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BaseKind {
    Infantry,
    Cavalry,
    Artillery,
    Transport,
    Command,
}

impl BaseKind {
    /// The same base as the table geometry knows it.
    pub fn stand_kind(self) -> StandKind {
        match self {
            BaseKind::Infantry => StandKind::Infantry,
            BaseKind::Cavalry => StandKind::Cavalry,
            BaseKind::Artillery => StandKind::Artillery,
            BaseKind::Transport => StandKind::Transport,
            BaseKind::Command => StandKind::Command,
        }
    }

    /// BAS-03: frontage × depth in millimetres (infantry 25 × 15, cavalry 35 × 20, artillery
    /// 25 × 25, transport 25 × 35, command 30 × 30 by the catalogue ruling), read from
    /// `geom`'s base table so that labels and the table top can never disagree.
    pub fn size_mm(self) -> (f32, f32) {
        let (w, d) = self.stand_kind().base_cm();
        ((w * 10.0) as f32, (d * 10.0) as f32)
    }

    /// The base of a troop row: engineers and dismounted cavalry on infantry bases (BAS-03
    /// ruling); the Colonial armoured car on a transport base (it is "a vehicle", §5.5).
    pub fn of_row(row: &TroopType) -> BaseKind {
        if row.role == RowRole::DismountedMode {
            return BaseKind::Infantry;
        }
        match row.arm {
            Arm::Infantry | Arm::Engineers => BaseKind::Infantry,
            Arm::Cavalry => BaseKind::Cavalry,
            Arm::Artillery => BaseKind::Artillery,
            Arm::Transport | Arm::Armour => BaseKind::Transport,
        }
    }
}

/// One label to print, before placing: its size, the side's colour and the values of the
/// fields a [`LabelLayout`] may show.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelContent {
    pub kind: LabelKind,
    /// The base it goes on, when it is a BPTC base.
    pub base: Option<BaseKind>,
    pub w_mm: f32,
    pub h_mm: f32,
    pub colour: [u8; 3],
    pub fields: BTreeMap<String, String>,
    /// Names the label in messages and tests: "French/unit 3/stand 2".
    pub key: String,
}

/// A label on a sheet: where it is and what is written where.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedLabel {
    /// Sheet (page) number, from 0.
    pub page: usize,
    /// The label's outline, exactly the base's size, from the sheet's top-left corner.
    pub rect_mm: RectMm,
    pub kind: LabelKind,
    pub base: Option<BaseKind>,
    pub colour: [u8; 3],
    pub band_mm: Option<RectMm>,
    /// Where text may go (inside the padding); every [`PlacedText`] lies inside it.
    pub text_area_mm: RectMm,
    pub texts: Vec<PlacedText>,
    pub key: String,
}

/// How labels sit on a sheet, in millimetres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SheetGeometry {
    /// Unprinted border on every side (most printers cannot print the outer 4–6 mm).
    pub margin_mm: f32,
    /// Space between labels, for the cut.
    pub gutter_mm: f32,
    /// Space kept at the bottom of the printable area for the footer and scale bar.
    pub footer_mm: f32,
}

impl Default for SheetGeometry {
    fn default() -> Self {
        SheetGeometry {
            margin_mm: 10.0,
            gutter_mm: 1.0,
            footer_mm: 7.0,
        }
    }
}

impl SheetGeometry {
    /// The area labels may occupy on `paper`.
    pub fn label_area(&self, paper: Paper) -> RectMm {
        let (w, h) = paper.size_mm();
        RectMm {
            x: self.margin_mm,
            y: self.margin_mm,
            w: w - 2.0 * self.margin_mm,
            h: h - 2.0 * self.margin_mm - self.footer_mm,
        }
    }
}

fn field(map: &mut BTreeMap<String, String>, k: &str, v: impl Into<String>) {
    map.insert(k.to_string(), v.into());
}

/// The BPTC labels of a scenario: commanders first for each side, then every unit in
/// chain-of-command order (one label per stand, or per unit), attached engineer stands,
/// limbers (one per mobile gun stand, ARMY-10 c) and brigade skirmisher screens (SKIR-01).
pub fn bptc_label_contents(
    scenario: &Scenario,
    lists: &[crate::model::ArmyList],
    opts: &LabelOptions,
) -> Result<Vec<LabelContent>, ExportError> {
    let sides = select_sides(scenario, lists, opts.side.as_deref())?;
    let scale = opts.scale.unwrap_or(scenario.scale);
    let mut out = Vec::new();
    for sv in &sides {
        side_labels(sv, scale, opts.per, &mut out);
    }
    Ok(out)
}

fn side_labels(sv: &SideView, scale: Scale, per: Per, out: &mut Vec<LabelContent>) {
    let side = sv.side;
    let list = sv.list;
    let hqs = hqs_in_order(side);
    let mut base_fields = BTreeMap::new();
    field(&mut base_fields, "side", side.name.clone());
    let (cw, ch) = BaseKind::Command.size_mm();
    for e in &hqs {
        let c = &e.hq.commander;
        let mut f = base_fields.clone();
        field(&mut f, "place", hq_place_label(&e.place));
        field(&mut f, "name", c.name.clone());
        // ART-10: an FAO's label shows its Average Brigade HQ line.
        let (level, quality) = e.hq.stat_line();
        let ct = list.command_type(level, quality);
        let value = match ct {
            Some(t) if e.hq.fao => t.command,
            _ => c.command_value,
        };
        field(
            &mut f,
            "level",
            if e.hq.fao { "FAO" } else { level.label() },
        );
        field(&mut f, "quality", quality.label());
        field(&mut f, "command", value.to_string());
        field(&mut f, "formation", e.hq.name.clone());
        if let Some(ct) = ct {
            field(&mut f, "presence", ct.presence_dice.to_string());
            let save = ct.save.map_or_else(|| "-".to_string(), |s| s.to_string());
            field(
                &mut f,
                "stats",
                format!("M{} H{} S{save}", ct.movement, ct.hits),
            );
            field(&mut f, "move", ct.movement.to_string());
        }
        field(&mut f, "points", format!("{}pt", hq_points(e.hq, list)));
        out.push(LabelContent {
            kind: LabelKind::Commander,
            base: Some(BaseKind::Command),
            w_mm: cw,
            h_mm: ch,
            colour: side.colour,
            fields: f,
            key: format!("{}/hq {}", side.name, e.hq.id),
        });
    }
    let mut units: Vec<&Unit> = Vec::new();
    for e in &hqs {
        units.extend(side.units_of(e.hq.id));
    }
    units.extend(unattached_units(side));
    let limber = list.troop_types.iter().find(|t| t.role == RowRole::Limber);
    for unit in units {
        let Some(row) = sv.row(unit) else { continue };
        let mut f = base_fields.clone();
        field(&mut f, "place", hq_place_label(&oob_place(side, unit)));
        field(&mut f, "name", unit.name.clone());
        field(&mut f, "stats", scaled_stats(row, list, scale));
        field(&mut f, "rules", note_codes(row));
        let extras = unit_extras(unit, row);
        let grade = extras
            .iter()
            .find(|x| matches!(**x, "Elite" | "Poor"))
            .copied()
            .unwrap_or("");
        field(&mut f, "grade", grade);
        let mut type_line = row.name.clone();
        for x in extras.iter().filter(|x| !matches!(**x, "Elite" | "Poor")) {
            type_line.push_str(" · ");
            type_line.push_str(x);
        }
        field(&mut f, "type", type_line);
        let base = BaseKind::of_row(row);
        let n = unit.stands;
        let mk = |f: BTreeMap<String, String>, base: BaseKind, key: String| {
            let (w, h) = base.size_mm();
            LabelContent {
                kind: LabelKind::Unit,
                base: Some(base),
                w_mm: w,
                h_mm: h,
                colour: side.colour,
                fields: f,
                key,
            }
        };
        let ukey = format!("{}/unit {}", side.name, unit.id);
        match per {
            Per::Stand => {
                field(
                    &mut f,
                    "points",
                    format!("{}pt", stand_cost(unit, row, list)),
                );
                for k in 1..=n {
                    let mut sf = f.clone();
                    field(&mut sf, "stand", format!("{k}/{n}"));
                    out.push(mk(sf, base, format!("{ukey}/stand {k}")));
                }
            }
            Per::Unit => {
                field(&mut f, "points", format!("{}pt", unit_points(unit, list)));
                let st = if n == 1 { "stand" } else { "stands" };
                field(&mut f, "stand", format!("{n} {st}"));
                out.push(mk(f.clone(), base, ukey.clone()));
            }
        }
        if per == Per::Stand && unit.engineer_attached {
            if let Some(eng) = engineer_row(list) {
                let mut ef = f.clone();
                field(&mut ef, "stats", scaled_stats(eng, list, scale));
                field(&mut ef, "rules", note_codes(eng));
                field(&mut ef, "type", eng.name.clone());
                field(&mut ef, "stand", "engineer");
                field(&mut ef, "points", format!("{}pt", eng.points.unwrap_or(0)));
                out.push(mk(ef, BaseKind::of_row(eng), format!("{ukey}/engineer")));
            }
        }
        let mobile_gun = row.arm == Arm::Artillery && matches!(row.movement, Move::Gun { .. });
        if let (Per::Stand, true, Some(lr)) = (per, mobile_gun, limber) {
            for k in 1..=n {
                let mut lf = f.clone();
                field(&mut lf, "stats", scaled_stats(lr, list, scale));
                field(&mut lf, "rules", note_codes(lr));
                field(&mut lf, "type", lr.name.clone());
                field(&mut lf, "stand", format!("limber {k}/{n}"));
                field(&mut lf, "points", "");
                out.push(mk(lf, BaseKind::Transport, format!("{ukey}/limber {k}")));
            }
        }
    }
    skirmish_screens(sv, scale, per, &base_fields, out);
    defence_labels(sv, &base_fields, out);
}

/// A line work's section as it stands on the table (DEF-03: 10 × 5 cm), mm.
const SECTION_MM: (f32, f32) = (100.0, 50.0);
/// A Trench's or Dug-Out's marker, mm: it goes beside the unit it shelters.
const SHELTER_MM: (f32, f32) = (50.0, 25.0);

/// The field defences the side bought (DEF-01..DEF-05): one label per 10 × 5 cm section of a
/// line work or obstacle, the section's true size, and one marker per Trench or Dug-Out naming
/// the unit it shelters, so what the roster lists is on the table too.
fn defence_labels(
    sv: &SideView,
    base_fields: &BTreeMap<String, String>,
    out: &mut Vec<LabelContent>,
) {
    let side = sv.side;
    for d in &side.field_defenses {
        let spec = d.kind.spec();
        let mut f = base_fields.clone();
        field(&mut f, "place", "Field defence");
        field(&mut f, "name", format!("{} {}", spec.label, d.id));
        let role = if spec.obstacle {
            "obstacle (TERR-13)".to_string()
        } else {
            format!(
                "{} (DEF-04)",
                crate::rules::casualty::cover_label(spec.cover)
            )
        };
        field(&mut f, "stats", role);
        let key = format!("{}/defence {}", side.name, d.id);
        if d.kind.shelters() {
            let who = d
                .occupant
                .and_then(|u| side.unit(u))
                .map_or_else(|| "its unit".to_string(), |u| u.name.clone());
            field(&mut f, "type", format!("shelters {who}"));
            field(&mut f, "points", format!("{}pt", d.cost()));
            let (w, h) = SHELTER_MM;
            out.push(LabelContent {
                kind: LabelKind::Unit,
                base: None,
                w_mm: w,
                h_mm: h,
                colour: side.colour,
                fields: f,
                key,
            });
            continue;
        }
        field(&mut f, "points", format!("{}pt", spec.cost));
        field(&mut f, "type", spec.what.to_string());
        let n = d.sections.max(1);
        for k in 1..=n {
            let mut sf = f.clone();
            field(&mut sf, "stand", format!("section {k}/{n}"));
            let (w, h) = SECTION_MM;
            out.push(LabelContent {
                kind: LabelKind::Unit,
                base: None,
                w_mm: w,
                h_mm: h,
                colour: side.colour,
                fields: sf,
                key: format!("{key}/section {k}"),
            });
        }
    }
}

/// SKIR-01: a brigade HQ with a unit marked as providing the screen gets 2 skirmisher stands
/// per 3 infantry units beneath it, on infantry bases, with the list's skirmish profile.
fn skirmish_screens(
    sv: &SideView,
    scale: Scale,
    per: Per,
    base_fields: &BTreeMap<String, String>,
    out: &mut Vec<LabelContent>,
) {
    let Some(profile) = sv
        .list
        .troop_types
        .iter()
        .find(|t| t.role == RowRole::SkirmishProfile)
    else {
        return;
    };
    for e in hqs_in_order(sv.side) {
        let units: Vec<&Unit> = sv.side.units_of(e.hq.id).collect();
        if !units.iter().any(|u| u.brigade_skirmishers) {
            continue;
        }
        let infantry = units
            .iter()
            .filter(|u| sv.row(u).is_some_and(|r| r.arm == Arm::Infantry))
            .count();
        let stands = 2 * (infantry / 3);
        if stands == 0 {
            continue;
        }
        let mut f = base_fields.clone();
        field(&mut f, "place", hq_place_label(&e.place));
        field(&mut f, "name", format!("Skirmishers, {}", e.hq.name));
        field(&mut f, "stats", scaled_stats(profile, sv.list, scale));
        field(&mut f, "rules", note_codes(profile));
        field(&mut f, "type", profile.name.clone());
        let (w, h) = BaseKind::Infantry.size_mm();
        let count = match per {
            Per::Stand => stands,
            Per::Unit => 1,
        };
        for k in 1..=count {
            let mut sf = f.clone();
            let stand = match per {
                Per::Stand => format!("screen {k}/{stands}"),
                Per::Unit => format!("screen, {stands} stands"),
            };
            field(&mut sf, "stand", stand);
            out.push(LabelContent {
                kind: LabelKind::Unit,
                base: Some(BaseKind::Infantry),
                w_mm: w,
                h_mm: h,
                colour: sv.side.colour,
                fields: sf,
                key: format!("{}/hq {}/skirmisher {k}", sv.side.name, e.hq.id),
            });
        }
    }
}

/// Places labels on sheets, largest first (shelf packing: rows of labels, each label going
/// into the first row with room), inside the printable area with `gutter_mm` between labels,
/// and fits each label's text with `layout`. Labels of one size keep their input order.
pub fn pack_labels(
    layout: &LabelLayout,
    labels: &[LabelContent],
    paper: Paper,
    geometry: &SheetGeometry,
) -> Result<Vec<PlacedLabel>, ExportError> {
    layout.check()?;
    let area = geometry.label_area(paper);
    let g = geometry.gutter_mm;
    let mut order: Vec<&LabelContent> = labels.iter().collect();
    order.sort_by(|la, lb| {
        lb.h_mm
            .total_cmp(&la.h_mm)
            .then(lb.w_mm.total_cmp(&la.w_mm))
    });
    struct Shelf {
        page: usize,
        y: f32,
        h: f32,
        x_next: f32,
    }
    let mut shelves: Vec<Shelf> = Vec::new();
    let mut out = Vec::with_capacity(labels.len());
    for l in order {
        if !(l.w_mm > 0.0 && l.h_mm > 0.0) || l.w_mm > area.w || l.h_mm > area.h {
            return Err(ExportError::LabelTooLarge {
                w_mm: l.w_mm,
                h_mm: l.h_mm,
                paper: paper.label(),
            });
        }
        let fits = |s: &Shelf| s.x_next + l.w_mm <= area.right() + 1e-4 && l.h_mm <= s.h + 1e-4;
        let shelf_ix = match shelves.iter().position(fits) {
            Some(ix) => ix,
            None => {
                let (page, y) = match shelves.last() {
                    Some(last) if last.y + last.h + g + l.h_mm <= area.bottom() + 1e-4 => {
                        (last.page, last.y + last.h + g)
                    }
                    Some(last) => (last.page + 1, area.y),
                    None => (0, area.y),
                };
                shelves.push(Shelf {
                    page,
                    y,
                    h: l.h_mm,
                    x_next: area.x,
                });
                shelves.len() - 1
            }
        };
        let Some(shelf) = shelves.get_mut(shelf_ix) else {
            continue;
        };
        let rect = RectMm {
            x: shelf.x_next,
            y: shelf.y,
            w: l.w_mm,
            h: l.h_mm,
        };
        shelf.x_next += l.w_mm + g;
        let (band, text_area) = label_areas(layout, rect);
        let texts = fit_lines(layout, l.kind, &l.fields, text_area)?;
        out.push(PlacedLabel {
            page: shelf.page,
            rect_mm: rect,
            kind: l.kind,
            base: l.base,
            colour: l.colour,
            band_mm: band,
            text_area_mm: text_area,
            texts,
            key: l.key.clone(),
        });
    }
    Ok(out)
}

/// The labels of a scenario placed on sheets with the shipped BPTC layout: what
/// [`labels_pdf`] draws, for checking sizes and fit without parsing the PDF.
pub fn label_layout(
    scenario: &Scenario,
    lists: &[crate::model::ArmyList],
    opts: &LabelOptions,
) -> Result<Vec<PlacedLabel>, ExportError> {
    let contents = bptc_label_contents(scenario, lists, opts)?;
    pack_labels(
        &LabelLayout::bptc()?,
        &contents,
        opts.paper,
        &SheetGeometry::default(),
    )
}

/// The label sheets of a scenario as PDF bytes.
pub fn labels_pdf(
    scenario: &Scenario,
    lists: &[crate::model::ArmyList],
    opts: &LabelOptions,
) -> Result<Vec<u8>, ExportError> {
    labels_pdf_with_progress(scenario, lists, opts, &|_| {})
}

/// [`labels_pdf`], calling `progress` with the fraction done (0.0 to 1.0, never decreasing).
pub fn labels_pdf_with_progress(
    scenario: &Scenario,
    lists: &[crate::model::ArmyList],
    opts: &LabelOptions,
    progress: &dyn Fn(f32),
) -> Result<Vec<u8>, ExportError> {
    progress(0.0);
    let contents = bptc_label_contents(scenario, lists, opts)?;
    progress(0.05);
    let geometry = SheetGeometry::default();
    let placed = pack_labels(&LabelLayout::bptc()?, &contents, opts.paper, &geometry)?;
    progress(0.25);
    let wanted = opts.side.as_deref().map(|w| w.trim().to_lowercase());
    let sides: Vec<String> = scenario
        .sides
        .iter()
        .filter(|s| {
            wanted
                .as_deref()
                .is_none_or(|w| w.is_empty() || s.name.trim().to_lowercase() == w)
        })
        .map(|s| s.name.clone())
        .collect();
    let scale = opts.scale.unwrap_or(scenario.scale);
    let footer = format!(
        "{} — {} — labels, {} scale — print at 100 % (actual size)",
        scenario.name,
        sides.join(" & "),
        scale.label().to_lowercase()
    );
    let bytes = render_label_sheets(
        &placed,
        opts.paper,
        &geometry,
        &footer,
        &format!("{} — labels", scenario.name),
        &|p| progress(0.25 + 0.75 * p),
    )?;
    progress(1.0);
    Ok(bytes)
}

/// Paints placed labels: outline, colour band, text and cut marks at every corner, and on each
/// sheet a footer with `footer`, the sheet number and a 50 mm bar to check the print scale.
pub fn render_label_sheets(
    placed: &[PlacedLabel],
    paper: Paper,
    geometry: &SheetGeometry,
    footer: &str,
    title: &str,
    progress: &dyn Fn(f32),
) -> Result<Vec<u8>, ExportError> {
    let pages_n = placed.iter().map(|p| p.page + 1).max().unwrap_or(1);
    let mut pages: Vec<PageItems> = vec![PageItems::default(); pages_n];
    let mark = (geometry.gutter_mm * 0.8).clamp(0.3, 3.0);
    for l in placed {
        let Some(page) = pages.get_mut(l.page) else {
            continue;
        };
        let r = l.rect_mm;
        let items = &mut page.items;
        if let Some(b) = l.band_mm {
            items.push(rect_mm(b, Some(l.colour), None));
        }
        items.push(rect_mm(r, None, Some((LIGHT, 0.25))));
        for t in &l.texts {
            items.push(Item::text(
                mm_to_pt(t.x_mm),
                mm_to_pt(t.baseline_mm),
                t.face,
                t.size_pt,
                t.text.clone(),
            ));
        }
        // Cut marks: short strokes continuing each edge outwards from each corner, kept
        // inside the gutter so they never touch a neighbouring label.
        for (cx, cy, sx, sy) in [
            (r.x, r.y, -1.0, -1.0),
            (r.right(), r.y, 1.0, -1.0),
            (r.x, r.bottom(), -1.0, 1.0),
            (r.right(), r.bottom(), 1.0, 1.0),
        ] {
            items.push(line_mm(cx, cy, cx + sx * mark, cy, BLACK, 0.3));
            items.push(line_mm(cx, cy, cx, cy + sy * mark, BLACK, 0.3));
        }
    }
    let (pw, ph) = paper.size_mm();
    let base_y = ph - geometry.margin_mm - 1.5;
    let metrics = fonts()?;
    for (i, page) in pages.iter_mut().enumerate() {
        let items = &mut page.items;
        let x0 = geometry.margin_mm;
        let x1 = pw - geometry.margin_mm;
        let sheet = format!("sheet {} of {}", i + 1, pages_n);
        let sw = super::text_width_mm(Face::Condensed, 6.5, &sheet)?;
        let room = mm_to_pt(x1 - x0 - sw - 5.0).max(0.0);
        let (footer, _) = truncate(metrics.get(Face::Condensed), footer, 6.5, room);
        items.push(
            Item::text(mm_to_pt(x0), mm_to_pt(base_y), Face::Condensed, 6.5, footer).coloured(GREY),
        );
        items.push(
            Item::text(
                mm_to_pt(x1 - sw),
                mm_to_pt(base_y),
                Face::Condensed,
                6.5,
                sheet,
            )
            .coloured(GREY),
        );
        // A 50 mm bar above the footer: measure it to check the printer did not scale.
        let by = base_y - 3.5;
        let bx = x1 - 50.0;
        items.push(line_mm(bx, by, bx + 50.0, by, GREY, 0.5));
        items.push(line_mm(bx, by - 1.0, bx, by + 1.0, GREY, 0.5));
        items.push(line_mm(bx + 50.0, by - 1.0, bx + 50.0, by + 1.0, GREY, 0.5));
        let t = "50 mm";
        let tw = super::text_width_mm(Face::Condensed, 5.5, t)?;
        items.push(
            Item::text(
                mm_to_pt(bx - tw - 1.5),
                mm_to_pt(by + 0.7),
                Face::Condensed,
                5.5,
                t,
            )
            .coloured(GREY),
        );
    }
    render(&pages, paper, title, progress, (0.0, 1.0))
}

fn rect_mm(r: RectMm, fill: Option<[u8; 3]>, stroke: Option<([u8; 3], f32)>) -> Item {
    Item::Rect {
        x: mm_to_pt(r.x),
        y: mm_to_pt(r.y),
        w: mm_to_pt(r.w),
        h: mm_to_pt(r.h),
        fill,
        stroke,
    }
}

fn line_mm(x1: f32, y1: f32, x2: f32, y2: f32, colour: [u8; 3], width_pt: f32) -> Item {
    Item::Line {
        x1: mm_to_pt(x1),
        y1: mm_to_pt(y1),
        x2: mm_to_pt(x2),
        y2: mm_to_pt(y2),
        colour,
        width: width_pt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_sizes_are_bas_03() {
        assert_eq!(BaseKind::Infantry.size_mm(), (25.0, 15.0));
        assert_eq!(BaseKind::Cavalry.size_mm(), (35.0, 20.0));
        assert_eq!(BaseKind::Artillery.size_mm(), (25.0, 25.0));
        assert_eq!(BaseKind::Transport.size_mm(), (25.0, 35.0));
        assert_eq!(BaseKind::Command.size_mm(), (30.0, 30.0));
    }

    fn content(w: f32, h: f32, key: &str) -> LabelContent {
        let mut fields = BTreeMap::new();
        fields.insert("name".to_string(), key.to_string());
        LabelContent {
            kind: LabelKind::Unit,
            base: None,
            w_mm: w,
            h_mm: h,
            colour: [200, 0, 0],
            fields,
            key: key.to_string(),
        }
    }

    #[test]
    fn packing_keeps_labels_apart_and_inside_the_area() {
        let layout = LabelLayout::bptc().unwrap();
        let mut labels = Vec::new();
        for i in 0..300 {
            let (w, h) = [
                (25.0, 15.0),
                (35.0, 20.0),
                (25.0, 25.0),
                (25.0, 35.0),
                (30.0, 30.0),
            ][i % 5];
            labels.push(content(w, h, &format!("l{i}")));
        }
        let g = SheetGeometry::default();
        let placed = pack_labels(&layout, &labels, Paper::A4, &g).unwrap();
        assert_eq!(placed.len(), 300);
        let area = g.label_area(Paper::A4);
        for (i, a) in placed.iter().enumerate() {
            assert!(area.contains(&a.rect_mm), "{} outside", a.key);
            for b in placed.iter().skip(i + 1).filter(|b| b.page == a.page) {
                let apart = a.rect_mm.right() + g.gutter_mm <= b.rect_mm.x + 1e-3
                    || b.rect_mm.right() + g.gutter_mm <= a.rect_mm.x + 1e-3
                    || a.rect_mm.bottom() + g.gutter_mm <= b.rect_mm.y + 1e-3
                    || b.rect_mm.bottom() + g.gutter_mm <= a.rect_mm.y + 1e-3;
                assert!(apart, "{} and {} overlap", a.key, b.key);
            }
        }
    }

    #[test]
    fn a_label_larger_than_the_sheet_is_refused() {
        let layout = LabelLayout::bptc().unwrap();
        let e = pack_labels(
            &layout,
            &[content(400.0, 10.0, "x")],
            Paper::A4,
            &SheetGeometry::default(),
        )
        .unwrap_err();
        assert!(matches!(e, ExportError::LabelTooLarge { .. }));
    }
}
