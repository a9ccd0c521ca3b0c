//! The roster: one section per side to play from, printed on A4 or Letter.
//!
//! Each side starts on a new page with a summary (points, units, breakpoint, field-defence
//! budget) and a breakpoint track to mark, then the order of battle as one table in
//! chain-of-command order (each HQ row followed by its units), then the field defences bought.
//! Every unit row has empty boxes to pencil in hits (one group per stand) and suppression, and
//! the gists of its special rules beneath it. Tables break between rows only, with the header
//! repeated on the next page; every page carries the scenario, the side and "page n of N"
//! (counted per side, since each player takes his own side's pages).

use super::data::{
    hq_place_label, hqs_in_order, select_sides, unattached_units, unit_extras, SideView,
};
use super::fonts::{fonts, Fonts};
use super::render::{render, tint, Item, PageItems, BLACK, GREY, LIGHT};
use super::text::{truncate, wrap};
use super::{scaled_attack, ExportError, Face, Paper};
use crate::model::points::{breakpoint, engineer_row, hq_points, side_points, unit_points};
use crate::model::validate::defense_budget;
use crate::model::{save_label, Cover, DefensePosture, OptionalRule, Scenario, Unit};

/// What to print in a roster.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RosterOptions {
    /// Only this side (by name, case-insensitive); `None`: every side, each from a new page.
    pub side: Option<String>,
    pub paper: Paper,
}

/// The roster of a scenario as PDF bytes.
pub fn roster_pdf(
    scenario: &Scenario,
    lists: &[crate::model::ArmyList],
    opts: &RosterOptions,
) -> Result<Vec<u8>, ExportError> {
    roster_pdf_with_progress(scenario, lists, opts, &|_| {})
}

/// [`roster_pdf`], calling `progress` with the fraction done (0.0 to 1.0, never decreasing).
pub fn roster_pdf_with_progress(
    scenario: &Scenario,
    lists: &[crate::model::ArmyList],
    opts: &RosterOptions,
    progress: &dyn Fn(f32),
) -> Result<Vec<u8>, ExportError> {
    progress(0.0);
    let sides = select_sides(scenario, lists, opts.side.as_deref())?;
    let f = fonts()?;
    let geo = Geometry::new(opts.paper);
    let n = sides.len().max(1) as f32;
    let mut flows = Vec::new();
    for (i, sv) in sides.iter().enumerate() {
        let mut flow = Flow::new(&geo);
        side_section(f, &geo, scenario, sv, &mut flow)?;
        flows.push(flow.pages);
        progress(0.3 * (i + 1) as f32 / n);
    }
    // The footer counts the file's pages, and a side's own when the file holds several sides,
    // so "page 2 of 5" never describes a three-page side of a five-page file.
    let total: usize = flows.iter().map(Vec::len).sum();
    let several = sides.len() > 1;
    let mut pages = Vec::new();
    for (sv, side_pages) in sides.iter().zip(flows) {
        let count = side_pages.len();
        for (k, mut page) in side_pages.into_iter().enumerate() {
            let at = PageNumber {
                file: (pages.len() + 1, total),
                side: several.then_some((k + 1, count)),
            };
            page_frame(f, &geo, scenario, sv, at, &mut page);
            pages.push(page);
        }
    }
    let title = match &opts.side {
        Some(s) => format!("{} — roster — {s}", scenario.name),
        None => format!("{} — roster", scenario.name),
    };
    let bytes = render(&pages, opts.paper, &title, progress, (0.3, 1.0))?;
    progress(1.0);
    Ok(bytes)
}

/// Page geometry in points.
struct Geometry {
    h: f32,
    left: f32,
    right: f32,
    /// First y of body content.
    top: f32,
    /// Last y body content may reach.
    bottom: f32,
}

const MARGIN: f32 = 36.0;
const HEADER_H: f32 = 38.0;
const FOOTER_H: f32 = 22.0;

impl Geometry {
    fn new(paper: Paper) -> Self {
        let (w, h) = paper.size_pt();
        Geometry {
            h,
            left: MARGIN,
            right: w - MARGIN,
            top: MARGIN + HEADER_H,
            bottom: h - MARGIN - FOOTER_H + 8.0,
        }
    }
    fn width(&self) -> f32 {
        self.right - self.left
    }
}

/// A block of items drawn relative to its own top-left corner, `h` tall.
#[derive(Default)]
struct Block {
    h: f32,
    items: Vec<Item>,
    /// Start a new page rather than end one with this block and put the next on the next page.
    keep_with_next: bool,
}

/// Places blocks down the pages of one side.
struct Flow {
    pages: Vec<PageItems>,
    y: f32,
    top: f32,
    bottom: f32,
    left: f32,
}

impl Flow {
    fn new(g: &Geometry) -> Self {
        Flow {
            pages: vec![PageItems::default()],
            y: g.top,
            top: g.top,
            bottom: g.bottom,
            left: g.left,
        }
    }

    fn room(&self) -> f32 {
        self.bottom - self.y
    }

    fn at_top(&self) -> bool {
        self.y <= self.top + 0.01
    }

    fn new_page(&mut self) {
        self.pages.push(PageItems::default());
        self.y = self.top;
    }

    fn place(&mut self, b: &Block) {
        let (x, y) = (self.left, self.y);
        if let Some(page) = self.pages.last_mut() {
            page.items.extend(b.items.iter().map(|it| it.shifted(x, y)));
        }
        self.y += b.h;
    }

    fn space(&mut self, h: f32) {
        if !self.at_top() {
            self.y = (self.y + h).min(self.bottom);
        }
    }

    /// Places loose blocks, keeping each whole (and a keep-with-next block with its follower).
    fn blocks(&mut self, blocks: &[Block]) {
        for (i, b) in blocks.iter().enumerate() {
            let next_h = if b.keep_with_next {
                blocks.get(i + 1).map_or(0.0, |n| n.h)
            } else {
                0.0
            };
            if b.h + next_h > self.room() && !self.at_top() {
                self.new_page();
            }
            self.place(b);
        }
    }

    /// Places a table under its title: title, header and at least the first row together,
    /// rows never split, the header repeated at the top of every page the table continues on.
    fn table(&mut self, title: &Block, header: &Block, rows: &[Block]) {
        let first = rows.first().map_or(0.0, |r| r.h);
        if title.h + header.h + first > self.room() && !self.at_top() {
            self.new_page();
        }
        self.place(title);
        self.place(header);
        for (i, row) in rows.iter().enumerate() {
            let next_h = if row.keep_with_next {
                rows.get(i + 1).map_or(0.0, |n| n.h)
            } else {
                0.0
            };
            let need = if row.h + next_h <= self.bottom - self.top - header.h {
                row.h + next_h
            } else {
                row.h
            };
            if need > self.room() {
                self.new_page();
                self.place(header);
            }
            self.place(row);
        }
    }
}

/// Column of the order-of-battle table.
struct Col {
    title: &'static str,
    w: f32,
    right: bool,
}

const CELL: f32 = 7.2;
const CELL_PAD: f32 = 2.2;
const GIST: f32 = 6.2;
const BOX: f32 = 6.5;
const BOX_GAP: f32 = 1.6;
const GROUP_GAP: f32 = 4.5;

fn oob_columns(g: &Geometry) -> Vec<Col> {
    let c = |title, w, right| Col { title, w, right };
    let fixed = [
        c("Place", 30.0, false),
        c("Unit / HQ", 0.0, false),
        c("Troop type / commander", 94.0, false),
        c("St", 22.0, true),
        c("Move", 30.0, true),
        c("Attack", 34.0, true),
        c("H", 14.0, true),
        c("Save", 22.0, true),
        c("Pts", 26.0, true),
        c("Hits — pencil in, one group per stand", 0.0, false),
        c("Supp.", 24.0, false),
    ];
    let used: f32 = fixed.iter().map(|c| c.w).sum();
    let spare = g.width() - used;
    // Share the rest between the unit name and the tally boxes.
    let hits_w = (spare * 0.45).clamp(100.0, 150.0);
    fixed
        .into_iter()
        .enumerate()
        .map(|(i, mut col)| {
            if i == 1 {
                col.w = spare - hits_w;
            } else if i == 9 {
                col.w = hits_w;
            }
            col
        })
        .collect()
}

fn col_x(cols: &[Col], i: usize) -> f32 {
    cols.iter().take(i).map(|c| c.w).sum()
}

fn col_w(cols: &[Col], i: usize) -> f32 {
    cols.get(i).map_or(0.0, |c| c.w)
}

/// Line height of text at `size` in a face: ascent + descent plus a little air.
fn leading(f: &Fonts, face: Face, size: f32) -> f32 {
    f.get(face).extent_em() * size * 1.02
}

/// Wrapped lines of a cell, each (face, text).
type CellLines = Vec<(Face, String)>;

fn cell_lines(f: &Fonts, parts: &[(Face, &str)], width: f32) -> CellLines {
    let mut out = Vec::new();
    for (face, text) in parts {
        if text.is_empty() {
            continue;
        }
        for l in wrap(f.get(*face), text, CELL, width.max(1.0)) {
            out.push((*face, l));
        }
    }
    out
}

fn cells_height(f: &Fonts, cells: &[CellLines]) -> f32 {
    cells
        .iter()
        .map(|c| {
            c.iter()
                .map(|(face, _)| leading(f, *face, CELL))
                .sum::<f32>()
        })
        .fold(0.0, f32::max)
}

fn draw_cells(
    f: &Fonts,
    cols: &[Col],
    cells: &[CellLines],
    y0: f32,
    items: &mut Vec<Item>,
    indent: &[f32],
) {
    for (i, lines) in cells.iter().enumerate() {
        let x = col_x(cols, i);
        let w = col_w(cols, i);
        let ind = indent.get(i).copied().unwrap_or(0.0);
        let mut y = y0;
        for (face, text) in lines {
            let m = f.get(*face);
            y += m.ascent * CELL;
            let tw = m.width_pt(text, CELL);
            let tx = if cols.get(i).is_some_and(|c| c.right) {
                x + w - CELL_PAD - tw
            } else {
                x + CELL_PAD + ind
            };
            items.push(Item::text(tx, y, *face, CELL, text.clone()));
            y += m.descent * CELL * 1.02 + (leading(f, *face, CELL) - m.extent_em() * CELL * 1.02);
        }
    }
}

/// Tally boxes: `groups` of boxes (one group per stand), wrapped to `width`. Returns the items
/// (relative to the cell's top-left) and the height used.
fn tally(groups: &[u8], width: f32) -> (Vec<Item>, f32) {
    let mut items = Vec::new();
    let mut x = 0.0_f32;
    let mut y = 0.0_f32;
    let row_h = BOX + BOX_GAP;
    for &n in groups {
        let n = f32::from(n);
        let gw = n * BOX + (n - 1.0).max(0.0) * BOX_GAP;
        if x > 0.0 && x + gw > width {
            x = 0.0;
            y += row_h;
        }
        let mut bx = x;
        for _ in 0..(n as u32) {
            if bx + BOX > width && bx > 0.0 {
                bx = 0.0;
                y += row_h;
            }
            items.push(Item::Rect {
                x: bx,
                y,
                w: BOX,
                h: BOX,
                fill: None,
                stroke: Some((BLACK, 0.5)),
            });
            bx += BOX + BOX_GAP;
        }
        x = bx - BOX_GAP + GROUP_GAP;
    }
    let h = if groups.iter().any(|g| *g > 0) {
        y + BOX
    } else {
        0.0
    };
    (items, h)
}

fn header_block(f: &Fonts, cols: &[Col]) -> Block {
    let face = Face::CondensedBold;
    let size = 6.6;
    let mut items = Vec::new();
    let mut h: f32 = 0.0;
    let mut cells = Vec::new();
    for c in cols {
        let lines = wrap(f.get(face), c.title, size, c.w - 2.0 * CELL_PAD);
        h = h.max(lines.len() as f32 * leading(f, face, size));
        cells.push(lines);
    }
    let h = h + 2.0 * CELL_PAD;
    let total: f32 = cols.iter().map(|c| c.w).sum();
    items.push(Item::Rect {
        x: 0.0,
        y: 0.0,
        w: total,
        h,
        fill: Some([232, 232, 232]),
        stroke: None,
    });
    for (i, lines) in cells.iter().enumerate() {
        let x = col_x(cols, i);
        let w = col_w(cols, i);
        let mut y = CELL_PAD;
        for l in lines {
            y += f.get(face).ascent * size;
            let tw = f.get(face).width_pt(l, size);
            let tx = if cols.get(i).is_some_and(|c| c.right) {
                x + w - CELL_PAD - tw
            } else {
                x + CELL_PAD
            };
            items.push(Item::text(tx, y, face, size, l.clone()));
            y += leading(f, face, size) - f.get(face).ascent * size;
        }
    }
    items.push(Item::Line {
        x1: 0.0,
        y1: h,
        x2: total,
        y2: h,
        colour: BLACK,
        width: 0.8,
    });
    Block {
        h,
        items,
        keep_with_next: false,
    }
}

/// Gist paragraph under a row: wrapped, at most `MAX_GIST_LINES` (the last cut with "…").
const MAX_GIST_LINES: usize = 8;

fn gist_lines(f: &Fonts, text: &str, width: f32) -> Vec<String> {
    let m = f.get(Face::Condensed);
    let mut lines = wrap(m, text, GIST, width);
    if lines.len() > MAX_GIST_LINES {
        lines.truncate(MAX_GIST_LINES);
        if let Some(last) = lines.last_mut() {
            let (t, _) = truncate(m, &format!("{last} …"), GIST, width);
            *last = t;
        }
    }
    lines
}

/// One row of the order-of-battle table: an HQ or a unit.
struct OobRow {
    place: String,
    name: String,
    name_face: Face,
    /// Troop type, or the commander's name.
    kind: String,
    kind_face: Face,
    /// Extras of a unit ("Elite, + engineer stand"), or the commander's level and quality.
    kind_sub: String,
    stands: String,
    movement: String,
    attack: String,
    hits: String,
    save: String,
    points: String,
    indent: f32,
    /// Tally boxes, one group per stand.
    groups: Vec<u8>,
    supp: bool,
    gist: String,
    fill: Option<[u8; 3]>,
    keep_with_next: bool,
}

fn row_block(f: &Fonts, cols: &[Col], spec: &OobRow) -> Block {
    let c = Face::Condensed;
    let parts: [Vec<(Face, &str)>; 9] = [
        vec![(c, &spec.place)],
        vec![(spec.name_face, &spec.name)],
        vec![(spec.kind_face, &spec.kind), (c, &spec.kind_sub)],
        vec![(c, &spec.stands)],
        vec![(c, &spec.movement)],
        vec![(c, &spec.attack)],
        vec![(c, &spec.hits)],
        vec![(c, &spec.save)],
        vec![(c, &spec.points)],
    ];
    let cells: Vec<CellLines> = parts
        .iter()
        .enumerate()
        .map(|(i, parts)| {
            let ind = if i == 1 { spec.indent } else { 0.0 };
            cell_lines(f, parts, col_w(cols, i) - 2.0 * CELL_PAD - ind)
        })
        .collect();
    let text_h = cells_height(f, &cells);
    let hits_col = 9;
    let (boxes, boxes_h) = tally(&spec.groups, col_w(cols, hits_col) - 2.0 * CELL_PAD);
    let text_h = text_h.max(BOX);
    let gist_x = col_x(cols, 1) + CELL_PAD + spec.indent;
    let gist_w = col_x(cols, hits_col) - gist_x - CELL_PAD;
    let gists = if spec.gist.is_empty() {
        Vec::new()
    } else {
        gist_lines(f, &spec.gist, gist_w)
    };
    let gm = f.get(Face::Condensed);
    let gist_lead = leading(f, Face::Condensed, GIST);
    let gist_h = if gists.is_empty() {
        0.0
    } else {
        gists.len() as f32 * gist_lead + 1.0
    };
    // The gists run under the text columns, beside the tally boxes.
    let h = CELL_PAD + (text_h + gist_h).max(boxes_h) + CELL_PAD;
    let total: f32 = cols.iter().map(|c| c.w).sum();
    let mut items = Vec::new();
    if let Some(fill) = spec.fill {
        items.push(Item::Rect {
            x: 0.0,
            y: 0.0,
            w: total,
            h,
            fill: Some(fill),
            stroke: None,
        });
    }
    let indent: Vec<f32> = (0..cols.len())
        .map(|i| if i == 1 { spec.indent } else { 0.0 })
        .collect();
    draw_cells(f, cols, &cells, CELL_PAD, &mut items, &indent);
    let bx = col_x(cols, hits_col) + CELL_PAD;
    items.extend(boxes.iter().map(|b| b.shifted(bx, CELL_PAD)));
    if spec.supp {
        items.push(Item::Rect {
            x: col_x(cols, 10) + CELL_PAD,
            y: CELL_PAD,
            w: BOX,
            h: BOX,
            fill: None,
            stroke: Some((BLACK, 0.5)),
        });
    }
    let mut y = CELL_PAD + text_h + 1.0;
    for l in gists {
        y += gm.ascent * GIST;
        items.push(Item::text(gist_x, y, Face::Condensed, GIST, l).coloured([70, 70, 70]));
        y += gist_lead - gm.ascent * GIST;
    }
    items.push(Item::Line {
        x1: 0.0,
        y1: h,
        x2: total,
        y2: h,
        colour: LIGHT,
        width: 0.4,
    });
    Block {
        h,
        items,
        keep_with_next: spec.keep_with_next,
    }
}

fn side_section(
    f: &Fonts,
    g: &Geometry,
    scenario: &Scenario,
    sv: &SideView,
    flow: &mut Flow,
) -> Result<(), ExportError> {
    let side = sv.side;
    let list = sv.list;
    let pts = side_points(side, list);
    let n_units = side.units.len();
    let stands: u32 = side.units.iter().map(|u| u32::from(u.stands)).sum();
    let bp = breakpoint(side);

    // Summary.
    let mut summary = Vec::new();
    let title_face = Face::SansBold;
    let line = |text: String, face: Face, size: f32| -> Block {
        let m = f.get(face);
        let lines = wrap(m, &text, size, g.width());
        let lead = leading(f, face, size);
        let mut items = Vec::new();
        let mut y = 0.0;
        for l in lines {
            items.push(Item::text(0.0, y + m.ascent * size, face, size, l));
            y += lead;
        }
        Block {
            h: y + 2.0,
            items,
            keep_with_next: false,
        }
    };
    let mut heading = line(format!("{} — {}", side.name, list.name), title_face, 11.0);
    heading.keep_with_next = true;
    summary.push(heading);
    summary.push(line(
        format!(
            "Points {} of {} agreed: units {}, command {}, field defences {}.",
            thousands(pts.total()),
            thousands(i64::from(scenario.points)),
            thousands(pts.units),
            thousands(pts.command),
            thousands(pts.defenses)
        ),
        Face::Sans,
        8.0,
    ));
    summary.push(line(
        format!(
            "{n_units} units ({stands} stands) under {} command units. Breakpoint {bp} units knocked out (BRK-01: half the units, rounded up).",
            side.hqs.len()
        ),
        Face::Sans,
        8.0,
    ));
    summary.push(line(defence_budget_text(scenario, sv), Face::Sans, 8.0));
    // #21 item 2: the weather once, and every optional rule the scenario switches on with what
    // it changes, so the table plays what the scenario says.
    let weather = crate::model::scenario::weather_words(scenario);
    let mut first = weather.chars();
    let weather = first.next().map_or_else(String::new, |c| {
        c.to_uppercase().collect::<String>() + first.as_str()
    });
    summary.push(line(format!("{weather}."), Face::Sans, 8.0));
    summary.push(line(optional_rules_text(scenario), Face::Sans, 8.0));
    for rule in rules_in_play(scenario) {
        summary.push(line(
            format!("    {} ({}): {}", rule.label(), rule.family(), rule.gist()),
            Face::Sans,
            7.5,
        ));
    }
    flow.blocks(&summary);
    flow.space(4.0);
    flow.blocks(&[breakpoint_track(f, g, n_units, bp)]);
    flow.space(8.0);

    // Order of battle.
    let cols = oob_columns(g);
    let header = header_block(f, &cols);
    let titled = line("Chain of command and units".to_string(), title_face, 9.5);
    let hq_fill = tint(side.colour, 0.22);
    let mut specs: Vec<OobRow> = Vec::new();
    for e in hqs_in_order(side) {
        let hq = e.hq;
        let c = &hq.commander;
        // ART-10: an FAO is shown on its Average Brigade HQ line.
        let (level, quality) = hq.stat_line();
        let ct = list.command_type(level, quality);
        let indent = (e.depth as f32 * 5.0).min(20.0);
        let units: Vec<&Unit> = side.units_of(hq.id).collect();
        specs.push(OobRow {
            place: hq_place_label(&e.place),
            name: hq.name.clone(),
            name_face: Face::CondensedBold,
            kind: c.name.clone(),
            kind_face: Face::CondensedBold,
            kind_sub: if hq.fao {
                format!(
                    "FAO ({}, {}), command {}",
                    level.label(),
                    quality.label(),
                    ct.map_or(c.command_value, |t| t.command)
                )
            } else {
                format!(
                    "{}, {}, command {}",
                    c.level.label(),
                    c.quality.label(),
                    c.command_value
                )
            },
            stands: String::new(),
            movement: ct.map_or_else(String::new, |t| t.movement.to_string()),
            attack: ct.map_or_else(String::new, |t| format!("+{}", t.presence_dice)),
            hits: ct.map_or_else(String::new, |t| t.hits.to_string()),
            save: ct.map_or_else(String::new, |t| save_label(t.save)),
            points: hq_points(hq, list).to_string(),
            indent,
            groups: ct.map_or_else(Vec::new, |t| vec![t.hits]),
            supp: false,
            gist: c.note.clone(),
            fill: Some(hq_fill),
            keep_with_next: !units.is_empty(),
        });
        for u in units {
            if let Some(r) = unit_row(sv, scenario, u, indent + 5.0) {
                specs.push(r);
            }
        }
    }
    for u in unattached_units(side) {
        if let Some(r) = unit_row(sv, scenario, u, 0.0) {
            specs.push(r);
        }
    }
    let rows: Vec<Block> = specs.iter().map(|r| row_block(f, &cols, r)).collect();
    flow.table(&titled, &header, &rows);
    flow.space(8.0);

    // Field defences (none bought: the summary says so; no empty section).
    if !side.field_defenses.is_empty() {
        let dtitle = line("Field defences".to_string(), title_face, 9.5);
        let dcols = defence_columns(g);
        let dheader = header_block(f, &dcols);
        let mut drows = Vec::new();
        for d in &side.field_defenses {
            let spec = d.kind.spec();
            let occupant = d
                .occupant
                .and_then(|id| side.unit(id))
                .map_or_else(String::new, |u| u.name.clone());
            let cells = [
                spec.label.to_string(),
                spec.what.to_string(),
                d.sections.to_string(),
                if spec.obstacle {
                    "obstacle".to_string()
                } else {
                    cover_label(spec.cover).to_string()
                },
                occupant,
                d.cost().to_string(),
            ];
            let lines: Vec<CellLines> = cells
                .iter()
                .enumerate()
                .map(|(i, text)| {
                    cell_lines(
                        f,
                        &[(Face::Condensed, text)],
                        col_w(&dcols, i) - 2.0 * CELL_PAD,
                    )
                })
                .collect();
            let h = cells_height(f, &lines) + 2.0 * CELL_PAD;
            let mut items = Vec::new();
            draw_cells(f, &dcols, &lines, CELL_PAD, &mut items, &[]);
            let total: f32 = dcols.iter().map(|c| c.w).sum();
            items.push(Item::Line {
                x1: 0.0,
                y1: h,
                x2: total,
                y2: h,
                colour: LIGHT,
                width: 0.4,
            });
            drows.push(Block {
                h,
                items,
                keep_with_next: false,
            });
        }
        flow.table(&dtitle, &dheader, &drows);
    }
    Ok(())
}

fn unit_row(sv: &SideView, scenario: &Scenario, u: &Unit, indent: f32) -> Option<OobRow> {
    let list = sv.list;
    let row = sv.row(u)?;
    let mut stands = u.stands.to_string();
    let mut groups = vec![row.hits; usize::from(u.stands)];
    if u.engineer_attached {
        stands.push_str("+E");
        if let Some(eng) = engineer_row(list) {
            groups.push(eng.hits);
        }
    }
    Some(OobRow {
        place: hq_place_label(&super::oob_place(sv.side, u)),
        name: u.name.clone(),
        name_face: Face::Condensed,
        kind: row.name.clone(),
        kind_face: Face::Condensed,
        kind_sub: unit_extras(u, row).join(", "),
        stands,
        movement: row.movement.to_string(),
        attack: row.attack.map_or_else(
            || "-".to_string(),
            |a| scaled_attack(a, list, scenario.scale),
        ),
        hits: row.hits.to_string(),
        save: save_label(row.save),
        points: unit_points(u, list).to_string(),
        indent,
        groups,
        supp: true,
        gist: list.note_gists(row).join("   "),
        fill: None,
        keep_with_next: false,
    })
}

/// DEF-04 cover, as the roster prints it.
fn cover_label(c: Cover) -> &'static str {
    match c {
        Cover::Open => "none",
        Cover::Soft => "soft",
        Cover::Hard => "hard",
        Cover::Full => "full",
    }
}

fn defence_columns(g: &Geometry) -> Vec<Col> {
    let c = |title, w, right| Col { title, w, right };
    let fixed = [
        c("Item", 80.0, false),
        c("What", 0.0, false),
        c("Sections", 40.0, true),
        c("Cover", 44.0, false),
        c("Occupant", 110.0, false),
        c("Pts", 30.0, true),
    ];
    let used: f32 = fixed.iter().map(|c| c.w).sum();
    let spare = g.width() - used;
    fixed
        .into_iter()
        .enumerate()
        .map(|(i, mut col)| {
            if i == 1 {
                col.w = spare;
            }
            col
        })
        .collect()
}

/// The optional rules a roster lists: those switched on, weather and night aside (they are in
/// the weather line).
fn rules_in_play(scenario: &Scenario) -> Vec<OptionalRule> {
    OptionalRule::ALL
        .into_iter()
        .filter(|r| {
            scenario.optional_rules.contains(r)
                && !matches!(r, OptionalRule::Weather | OptionalRule::Night)
        })
        .collect()
}

fn optional_rules_text(scenario: &Scenario) -> String {
    let on = rules_in_play(scenario);
    if on.is_empty() {
        "Optional rules: none; the standard rules throughout.".to_string()
    } else {
        let not_played: Vec<&str> = on
            .iter()
            .filter(|r| !r.implemented())
            .map(|r| r.label())
            .collect();
        let mut text = format!("Optional rules in play ({}):", on.len());
        if !not_played.is_empty() {
            text = format!(
                "Optional rules switched on ({}); Powderhorn does not yet play {}, so settle them at the table:",
                on.len(),
                not_played.join(", ")
            );
        }
        text
    }
}

fn defence_budget_text(scenario: &Scenario, sv: &SideView) -> String {
    let spent: u32 = sv.side.field_defenses.iter().map(|d| d.cost()).sum();
    let budget = defense_budget(scenario.points, scenario.defense);
    let is_defender = scenario.defender == Some(sv.index);
    match (scenario.defense, is_defender) {
        (DefensePosture::None, _) if spent == 0 => {
            "Field defences: none (the scenario allows none, DEF-01).".to_string()
        }
        (_, false) if spent == 0 => {
            "Field defences: none (only the defender buys them, DEF-01).".to_string()
        }
        (posture, _) => format!(
            "Field-defence budget used: {} of {} points ({} posture, {} % of {}; DEF-02).",
            thousands(i64::from(spent)),
            thousands(i64::from(budget)),
            posture.label().to_lowercase(),
            posture.budget_percent(),
            thousands(i64::from(scenario.points))
        ),
    }
}

/// Boxes 1..=units to tick as units are knocked out, the breakpoint box marked "BP" and the
/// boxes past it with the BRK-02 test modifier.
fn breakpoint_track(f: &Fonts, g: &Geometry, units: usize, bp: u32) -> Block {
    let mut items = Vec::new();
    let label = "Breakpoint track — tick one box per unit knocked out. From BP on, test at the start of each own turn (BRK-02).";
    let m = f.get(Face::Sans);
    let size = 7.5;
    let (label, _) = truncate(m, label, size, g.width());
    items.push(Item::text(0.0, m.ascent * size, Face::Sans, size, label));
    let top = leading(f, Face::Sans, size) + 2.0;
    let b = 13.0;
    let gap = 2.5;
    let per_line = ((g.width() + gap) / (b + gap)).floor().max(1.0) as usize;
    let small = f.get(Face::Condensed);
    let mut h = top;
    for i in 0..units {
        let n = i + 1;
        let row = i / per_line;
        let col = i % per_line;
        let x = col as f32 * (b + gap);
        let y = top + row as f32 * (b + 10.0);
        let is_bp = n as u32 == bp;
        items.push(Item::Rect {
            x,
            y,
            w: b,
            h: b,
            fill: None,
            stroke: Some(if is_bp {
                ([180, 0, 0], 1.6)
            } else {
                (BLACK, 0.6)
            }),
        });
        let num = n.to_string();
        let nw = small.width_pt(&num, 5.5);
        items.push(
            Item::text(
                x + b - nw - 1.0,
                y + small.ascent * 5.5 + 0.8,
                Face::Condensed,
                5.5,
                num,
            )
            .coloured(GREY),
        );
        let under = if is_bp {
            "BP".to_string()
        } else if n as u32 > bp {
            format!("−{}", n as u32 - bp)
        } else {
            String::new()
        };
        if !under.is_empty() {
            let face = if is_bp {
                Face::CondensedBold
            } else {
                Face::Condensed
            };
            let uw = f.get(face).width_pt(&under, 6.0);
            let colour = if is_bp { [180, 0, 0] } else { GREY };
            items.push(
                Item::text(x + (b - uw) / 2.0, y + b + 6.5, face, 6.0, under).coloured(colour),
            );
        }
        h = h.max(y + b + 9.0);
    }
    Block {
        h,
        items,
        keep_with_next: false,
    }
}

/// Where a page stands: in the file, and within its side when the file holds several.
#[derive(Debug, Clone, Copy)]
struct PageNumber {
    file: (usize, usize),
    side: Option<(usize, usize)>,
}

impl PageNumber {
    /// "page 4 of 5 (French, 2 of 3)", or "page 2 of 3" for a file of one side.
    fn words(self, side: &str) -> String {
        let (n, of) = self.file;
        match self.side {
            Some((k, count)) => format!("page {n} of {of} ({side}, {k} of {count})"),
            None => format!("page {n} of {of}"),
        }
    }
}

/// Header and footer of a page: scenario and side at the top, the page number at the bottom.
fn page_frame(
    f: &Fonts,
    g: &Geometry,
    scenario: &Scenario,
    sv: &SideView,
    at: PageNumber,
    page: &mut PageItems,
) {
    let side = sv.side;
    let items = &mut page.items;
    let bold = f.get(Face::SansBold);
    let y1 = MARGIN + bold.ascent * 12.0;
    // Side name with its colour swatch, right-aligned.
    let side_w = bold.width_pt(&side.name, 12.0);
    let sw = 12.0;
    let side_x = g.right - side_w;
    let title_room = side_x - sw - 12.0 - g.left;
    let (title, _) = truncate(bold, &scenario.name, 12.0, title_room.max(10.0));
    items.push(Item::text(g.left, y1, Face::SansBold, 12.0, title));
    items.push(Item::Rect {
        x: side_x - sw - 4.0,
        y: MARGIN + 1.0,
        w: sw,
        h: 10.0,
        fill: Some(side.colour),
        stroke: Some((BLACK, 0.4)),
    });
    items.push(Item::text(
        side_x,
        y1,
        Face::SansBold,
        12.0,
        side.name.clone(),
    ));
    let sans = f.get(Face::Sans);
    let mut facts = Vec::new();
    if !scenario.date.is_empty() {
        facts.push(scenario.date.clone());
    }
    facts.push(format!(
        "{} points a side",
        thousands(i64::from(scenario.points))
    ));
    let factor = if sv.list.ranges_scale {
        format!("ranges ×{}", scenario.scale.range_factor())
    } else {
        "ranges as listed".to_string()
    };
    facts.push(format!("{} scale ({factor})", scenario.scale.label()));
    facts.push(format!("{} turns", scenario.turn_limit));
    let (facts, _) = truncate(sans, &facts.join(" · "), 7.5, g.width());
    let y2 = MARGIN + 17.0 + sans.ascent * 7.5;
    items.push(Item::text(g.left, y2, Face::Sans, 7.5, facts).coloured(GREY));
    items.push(Item::Line {
        x1: g.left,
        y1: MARGIN + 30.0,
        x2: g.right,
        y2: MARGIN + 30.0,
        colour: BLACK,
        width: 0.8,
    });
    // Footer.
    let fy = g.h - MARGIN;
    items.push(Item::Line {
        x1: g.left,
        y1: fy - 10.0,
        x2: g.right,
        y2: fy - 10.0,
        colour: LIGHT,
        width: 0.5,
    });
    let page_text = at.words(&side.name);
    let pw = sans.width_pt(&page_text, 7.5);
    items.push(Item::text(g.right - pw, fy, Face::Sans, 7.5, page_text));
    let left = format!("Powderhorn roster · {} · {}", scenario.name, side.name);
    let (left, _) = truncate(sans, &left, 7.5, g.width() - pw - 20.0);
    items.push(Item::text(g.left, fy, Face::Sans, 7.5, left).coloured(GREY));
}

/// 3000 → "3,000".
fn thousands(v: i64) -> String {
    let s = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if v < 0 {
        format!("−{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(3000), "3,000");
        assert_eq!(thousands(75), "75");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn tally_wraps_inside_its_column() {
        let (items, h) = tally(&[3; 8], 100.0);
        assert_eq!(items.len(), 24);
        assert!(h > BOX);
        for it in items {
            if let Item::Rect { x, w, .. } = it {
                assert!(x + w <= 100.0 + 1e-3);
            }
        }
    }
}
