//! The printed result of a battle: the headline (winner, category and why), each side's VP
//! tally item by item with the VP-04 modifier, the VP-02 cap and the VP-03 upgrade when they
//! applied, the strength of each side at the end of every game turn (a table and a chart), and
//! the losses of every unit. One A4 or Letter document, pages added as the tables need.
//!
//! It reads a [`ResultReport`] (`rules::report`) and paints through the same pieces as the
//! roster: [`render`] and its [`Item`]s, the embedded fonts and their measured word wrap.

use super::fonts::{fonts, Fonts};
use super::render::{render, tint, Item, PageItems, Rgb, BLACK, GREY, LIGHT};
use super::text::{truncate, wrap};
use super::{ExportError, Face, Paper};
use crate::rules::report::{short_names, ItemKind, ResultReport};

const MARGIN: f32 = 42.0;
const FOOTER_H: f32 = 22.0;
/// The two sides' colours in the chart (blue and red, as on the result page).
const SIDE_COLOURS: [Rgb; 2] = [[40, 80, 170], [180, 50, 40]];

/// The result of a battle as PDF bytes.
pub fn result_pdf(report: &ResultReport, paper: Paper) -> Result<Vec<u8>, ExportError> {
    result_pdf_with_progress(report, paper, &|_| {})
}

/// [`result_pdf`], calling `progress` with the fraction done (0.0 to 1.0, never decreasing).
pub fn result_pdf_with_progress(
    report: &ResultReport,
    paper: Paper,
    progress: &dyn Fn(f32),
) -> Result<Vec<u8>, ExportError> {
    progress(0.0);
    let f = fonts()?;
    let mut d = Doc::new(f, paper);
    content(&mut d, report);
    progress(0.3);
    let pages = d.finish(report);
    let bytes = render(
        &pages,
        paper,
        &format!("{} — result", report.title),
        progress,
        (0.3, 1.0),
    )?;
    progress(1.0);
    Ok(bytes)
}

/// The pages being written, top to bottom.
struct Doc {
    f: &'static Fonts,
    pages: Vec<PageItems>,
    y: f32,
    left: f32,
    right: f32,
    bottom: f32,
    h: f32,
}

impl Doc {
    fn new(f: &'static Fonts, paper: Paper) -> Doc {
        let (w, h) = paper.size_pt();
        Doc {
            f,
            pages: vec![PageItems::default()],
            y: MARGIN,
            left: MARGIN,
            right: w - MARGIN,
            bottom: h - MARGIN - FOOTER_H,
            h,
        }
    }

    fn width(&self) -> f32 {
        self.right - self.left
    }

    fn leading(&self, face: Face, size: f32) -> f32 {
        self.f.get(face).extent_em() * size * 1.15
    }

    /// Room for `h` more points on this page, or a new page.
    fn need(&mut self, h: f32) {
        if self.y + h > self.bottom && self.y > MARGIN + 0.5 {
            self.pages.push(PageItems::default());
            self.y = MARGIN;
        }
    }

    fn push(&mut self, item: Item) {
        if let Some(p) = self.pages.last_mut() {
            p.items.push(item);
        }
    }

    fn space(&mut self, h: f32) {
        self.y += h;
    }

    /// One line of text cut to fit `width` at x (from the left margin).
    fn cell(&mut self, x: f32, width: f32, face: Face, size: f32, text: &str, colour: Rgb) {
        let m = self.f.get(face);
        let (t, _) = truncate(m, text, size, width.max(4.0));
        let base = self.y + m.ascent * size;
        self.push(Item::text(self.left + x, base, face, size, t).coloured(colour));
    }

    /// A paragraph wrapped to the page width, indented by `indent`.
    fn para(&mut self, face: Face, size: f32, indent: f32, text: &str, colour: Rgb) {
        let m = self.f.get(face);
        let lead = self.leading(face, size);
        for line in wrap(m, text, size, self.width() - indent) {
            self.need(lead);
            let base = self.y + m.ascent * size;
            self.push(Item::text(self.left + indent, base, face, size, line).coloured(colour));
            self.y += lead;
        }
    }

    /// A table row of cells at the given x offsets and widths.
    fn row(&mut self, cols: &[(f32, f32)], cells: &[(Face, String)], size: f32, colour: Rgb) {
        let lead = self.leading(Face::Sans, size);
        self.need(lead);
        for ((x, w), (face, text)) in cols.iter().zip(cells) {
            self.cell(*x, *w, *face, size, text, colour);
        }
        self.y += lead;
    }

    /// A table's head: the column titles in bold, a light rule under them and a little space.
    fn head(&mut self, cols: &[(f32, f32)], titles: &[String]) {
        let cells: Vec<(Face, String)> =
            titles.iter().map(|t| (Face::SansBold, t.clone())).collect();
        self.row(cols, &cells, 9.0, BLACK);
        self.rule(LIGHT, 0.5);
        self.space(2.0);
    }

    fn rule(&mut self, colour: Rgb, width: f32) {
        let y = self.y;
        self.push(Item::Line {
            x1: self.left,
            y1: y,
            x2: self.right,
            y2: y,
            colour,
            width,
        });
    }

    /// The footer of every page: what and "page n of N".
    fn finish(mut self, report: &ResultReport) -> Vec<PageItems> {
        let n = self.pages.len();
        let sans = self.f.get(Face::Sans);
        let fy = self.h - MARGIN;
        for (i, page) in self.pages.iter_mut().enumerate() {
            page.items.push(Item::Line {
                x1: self.left,
                y1: fy - 10.0,
                x2: self.right,
                y2: fy - 10.0,
                colour: LIGHT,
                width: 0.5,
            });
            let num = format!("page {} of {n}", i + 1);
            let pw = sans.width_pt(&num, 7.5);
            page.items
                .push(Item::text(self.right - pw, fy, Face::Sans, 7.5, num));
            let left = format!("Powderhorn · result of {}", report.title);
            let (left, _) = truncate(sans, &left, 7.5, self.right - self.left - pw - 20.0);
            page.items
                .push(Item::text(self.left, fy, Face::Sans, 7.5, left).coloured(GREY));
        }
        self.pages
    }
}

fn content(d: &mut Doc, r: &ResultReport) {
    d.para(Face::Sans, 9.0, 0.0, "The result of the battle", GREY);
    d.para(Face::SansBold, 15.0, 0.0, &r.title, BLACK);
    d.space(4.0);
    d.para(Face::SansBold, 20.0, 0.0, &r.headline, BLACK);
    if !r.why.is_empty() {
        d.para(Face::Sans, 10.5, 0.0, &format!("Why: {}.", r.why), BLACK);
    }
    d.para(
        Face::Sans,
        9.0,
        0.0,
        &format!(
            "{} game turns begun. VPs: {} {}, {} {}.",
            r.game_turns, r.side_names[0], r.sides[0].vp, r.side_names[1], r.sides[1].vp
        ),
        GREY,
    );
    d.space(6.0);
    d.rule(BLACK, 0.8);
    d.space(8.0);

    let w = d.width();
    let cols = [
        (0.0, w * 0.46),
        (w * 0.47, w * 0.08),
        (w * 0.56, w * 0.32),
        (w * 0.89, w * 0.11),
    ];
    for (i, s) in r.sides.iter().enumerate() {
        d.need(60.0);
        d.para(
            Face::SansBold,
            12.5,
            0.0,
            &format!("{}: {} VPs · {}", s.name, s.vp, s.result.label()),
            BLACK,
        );
        d.para(
            Face::Sans,
            9.0,
            0.0,
            &format!(
                "VPs earned from what the opponent lost (VP-01, DEF-06). Objective declared: {}; \
                 counted: {} (OBJ-01){}.",
                s.declared.label(),
                s.objective.label(),
                if s.withdrew {
                    "; withdrew or conceded, so none counts"
                } else {
                    ""
                }
            ),
            GREY,
        );
        d.space(2.0);
        d.head(
            &cols,
            &[
                "Lost by the opponent".into(),
                "Turn".into(),
                "How".into(),
                "VPs".into(),
            ],
        );
        if s.items.is_empty() {
            d.row(&cols, &[(Face::Sans, "nothing".into())], 9.0, GREY);
        }
        for it in &s.items {
            let kind = match it.kind {
                ItemKind::Unit => "",
                ItemKind::Command => " (command, VP-01)",
                ItemKind::Defence => " (field defence, DEF-06)",
            };
            d.row(
                &cols,
                &[
                    (Face::Sans, format!("{}{kind}", it.name)),
                    (Face::Sans, it.game_turn.to_string()),
                    (Face::Sans, format!("{} ({})", it.how, it.cause_rule)),
                    (Face::Sans, it.points.to_string()),
                ],
                9.0,
                BLACK,
            );
        }
        d.rule(LIGHT, 0.5);
        d.space(2.0);
        d.row(
            &cols,
            &[
                (Face::SansBold, "Earned".into()),
                (Face::Sans, String::new()),
                (Face::Sans, String::new()),
                (Face::SansBold, s.earned.to_string()),
            ],
            9.0,
            BLACK,
        );
        for line in r.adjustments(i) {
            d.para(Face::Sans, 9.0, 8.0, &line, BLACK);
        }
        d.row(
            &cols,
            &[
                (Face::SansBold, "Final VPs".into()),
                (Face::Sans, String::new()),
                (Face::Sans, String::new()),
                (Face::SansBold, s.vp.to_string()),
            ],
            9.0,
            BLACK,
        );
        d.space(10.0);
    }

    strength(d, r);
    losses(d, r);
}

fn strength(d: &mut Doc, r: &ResultReport) {
    d.need(200.0);
    d.para(
        Face::SansBold,
        12.5,
        0.0,
        "Strength at the end of each game turn",
        BLACK,
    );
    d.para(
        Face::Sans,
        9.0,
        0.0,
        "Stands of the units not knocked out, and the points of every piece still in the fight.",
        GREY,
    );
    d.space(4.0);
    chart(d, r);
    let w = d.width();
    let cols = [
        (0.0, w * 0.16),
        (w * 0.17, w * 0.2),
        (w * 0.38, w * 0.2),
        (w * 0.59, w * 0.2),
        (w * 0.8, w * 0.2),
    ];
    let [a, b] = short_names(&r.side_names);
    d.head(
        &cols,
        &[
            "Game turn".into(),
            format!("{a}: stands"),
            format!("{b}: stands"),
            format!("{a}: points"),
            format!("{b}: points"),
        ],
    );
    for p in &r.strength {
        let when = match (p.game_turn, p.complete) {
            (0, _) => "start".to_string(),
            (t, true) => t.to_string(),
            (t, false) => format!("{t} (ended)"),
        };
        d.row(
            &cols,
            &[
                (Face::Sans, when),
                (Face::Sans, p.stands[0].to_string()),
                (Face::Sans, p.stands[1].to_string()),
                (Face::Sans, p.points[0].to_string()),
                (Face::Sans, p.points[1].to_string()),
            ],
            9.0,
            BLACK,
        );
    }
    d.space(10.0);
}

/// Stands per side over the game turns, as two lines on a grid.
fn chart(d: &mut Doc, r: &ResultReport) {
    let h = 110.0;
    d.need(h + 20.0);
    let (x0, y0) = (d.left + 30.0, d.y);
    let w = (d.width() * 0.6).max(120.0);
    let max_x = r.strength.len().saturating_sub(1).max(1) as f32;
    let max_y = r
        .strength
        .iter()
        .flat_map(|p| p.stands)
        .max()
        .unwrap_or(1)
        .max(1) as f32;
    let px = |i: usize| x0 + w * i as f32 / max_x;
    let py = |v: u32| y0 + h - h * v as f32 / max_y;
    d.push(Item::Rect {
        x: x0,
        y: y0,
        w,
        h,
        fill: Some(tint(LIGHT, 0.15)),
        stroke: Some((LIGHT, 0.5)),
    });
    d.push(Item::text(x0 - 26.0, y0 + 7.0, Face::Sans, 7.0, max_y.to_string()).coloured(GREY));
    d.push(Item::text(x0 - 26.0, y0 + h, Face::Sans, 7.0, "0").coloured(GREY));
    for (i, p) in r.strength.iter().enumerate() {
        let label = if p.game_turn == 0 {
            "start".to_string()
        } else {
            p.game_turn.to_string()
        };
        d.push(Item::text(px(i) - 4.0, y0 + h + 10.0, Face::Sans, 7.0, label).coloured(GREY));
    }
    for (side, &colour) in SIDE_COLOURS.iter().enumerate() {
        for (i, pair) in r.strength.windows(2).enumerate() {
            if let [a, b] = pair {
                d.push(Item::Line {
                    x1: px(i),
                    y1: py(a.stands.get(side).copied().unwrap_or(0)),
                    x2: px(i + 1),
                    y2: py(b.stands.get(side).copied().unwrap_or(0)),
                    colour,
                    width: 1.6,
                });
            }
        }
        let ly = y0 + 12.0 + 14.0 * side as f32;
        d.push(Item::Line {
            x1: x0 + w + 14.0,
            y1: ly - 3.0,
            x2: x0 + w + 34.0,
            y2: ly - 3.0,
            colour,
            width: 2.0,
        });
        let name = short_names(&r.side_names)
            .get(side)
            .cloned()
            .unwrap_or_default();
        let (name, _) = truncate(
            d.f.get(Face::Sans),
            &format!("{name} (stands)"),
            8.0,
            d.right - (x0 + w + 38.0),
        );
        d.push(Item::text(x0 + w + 38.0, ly, Face::Sans, 8.0, name));
    }
    d.y += h + 18.0;
}

fn losses(d: &mut Doc, r: &ResultReport) {
    d.need(60.0);
    d.para(Face::SansBold, 12.5, 0.0, "Losses by unit", BLACK);
    let w = d.width();
    let cols = [
        (0.0, w * 0.4),
        (w * 0.41, w * 0.24),
        (w * 0.66, w * 0.14),
        (w * 0.81, w * 0.19),
    ];
    d.head(
        &cols,
        &[
            "Unit".into(),
            "Side".into(),
            "Stands lost".into(),
            "Knocked out".into(),
        ],
    );
    if r.losses.is_empty() {
        d.row(&cols, &[(Face::Sans, "no losses".into())], 9.0, GREY);
    }
    for l in &r.losses {
        d.row(
            &cols,
            &[
                (Face::Sans, l.name.clone()),
                (
                    Face::Sans,
                    short_names(&r.side_names)
                        .get(l.side())
                        .cloned()
                        .unwrap_or_default(),
                ),
                (
                    Face::Sans,
                    format!("{} of {}", l.stands_lost, l.stands_at_start),
                ),
                (
                    Face::Sans,
                    match l.knocked_out_turn {
                        Some(t) => format!("in game turn {t}"),
                        None if l.knocked_out => "yes".to_string(),
                        None => "—".to_string(),
                    },
                ),
            ],
            9.0,
            BLACK,
        );
    }
}
