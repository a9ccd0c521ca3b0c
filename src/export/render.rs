//! The one place that talks to krilla. Layout code produces pages of [`Item`]s (positions in
//! points from the page's top-left corner, y downwards); [`render`] paints them. Keeping the
//! geometry as plain values is what lets tests check it without parsing a PDF.

use super::fonts::{fonts, PdfFonts};
use super::{ExportError, Face, Paper};
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect};
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, FillRule, LineCap, Stroke};

pub(crate) type Rgb = [u8; 3];

pub(crate) const BLACK: Rgb = [0, 0, 0];
pub(crate) const GREY: Rgb = [110, 110, 110];
pub(crate) const LIGHT: Rgb = [200, 200, 200];

/// One drawing instruction, in points.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    /// Text with its baseline starting at (x, y).
    Text {
        x: f32,
        y: f32,
        face: Face,
        size: f32,
        text: String,
        colour: Rgb,
    },
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        fill: Option<Rgb>,
        stroke: Option<(Rgb, f32)>,
    },
    Line {
        x1: f32,
        y1: f32,
        x2: f32,
        y2: f32,
        colour: Rgb,
        width: f32,
    },
}

impl Item {
    pub fn text(x: f32, y: f32, face: Face, size: f32, text: impl Into<String>) -> Item {
        Item::Text {
            x,
            y,
            face,
            size,
            text: text.into(),
            colour: BLACK,
        }
    }

    pub fn coloured(mut self, c: Rgb) -> Item {
        if let Item::Text { colour, .. } = &mut self {
            *colour = c;
        }
        self
    }

    /// The same item moved by (dx, dy).
    pub fn shifted(&self, dx: f32, dy: f32) -> Item {
        let mut it = self.clone();
        match &mut it {
            Item::Text { x, y, .. } | Item::Rect { x, y, .. } => {
                *x += dx;
                *y += dy;
            }
            Item::Line { x1, y1, x2, y2, .. } => {
                *x1 += dx;
                *x2 += dx;
                *y1 += dy;
                *y2 += dy;
            }
        }
        it
    }
}

/// A page's items.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PageItems {
    pub items: Vec<Item>,
}

/// Paints `pages` on `paper` and returns the PDF. `progress` goes from `from` to `to` as pages
/// are painted.
pub(crate) fn render(
    pages: &[PageItems],
    paper: Paper,
    title: &str,
    progress: &dyn Fn(f32),
    (from, to): (f32, f32),
) -> Result<Vec<u8>, ExportError> {
    let metrics = fonts()?;
    let mut pdf_fonts = PdfFonts::new();
    let mut doc = krilla::Document::new();
    doc.set_metadata(
        krilla::metadata::Metadata::new()
            .title(title.to_string())
            .creator("Powderhorn".to_string()),
    );
    let (pw, ph) = paper.size_pt();
    let n = pages.len().max(1) as f32;
    for (i, page) in pages.iter().enumerate() {
        let settings = PageSettings::from_wh(pw, ph).ok_or_else(|| ExportError::Pdf {
            message: format!("bad page size {pw} × {ph} pt"),
        })?;
        let mut p = doc.start_page_with(settings);
        let mut s = p.surface();
        for item in &page.items {
            match item {
                Item::Text {
                    x,
                    y,
                    face,
                    size,
                    text,
                    colour,
                } => {
                    if text.is_empty() {
                        continue;
                    }
                    let glyphs = metrics.get(*face).glyphs(text);
                    let font = pdf_fonts.get(*face)?;
                    s.set_stroke(None);
                    s.set_fill(Some(fill(*colour)));
                    s.draw_glyphs(Point::from_xy(*x, *y), &glyphs, font, text, *size, false);
                }
                Item::Rect {
                    x,
                    y,
                    w,
                    h,
                    fill: f,
                    stroke,
                } => {
                    let Some(rect) = Rect::from_xywh(*x, *y, *w, *h) else {
                        continue;
                    };
                    let mut pb = PathBuilder::new();
                    pb.push_rect(rect);
                    let Some(path) = pb.finish() else { continue };
                    s.set_fill(f.map(fill));
                    s.set_stroke(stroke.map(|(c, width)| line(c, width)));
                    s.draw_path(&path);
                }
                Item::Line {
                    x1,
                    y1,
                    x2,
                    y2,
                    colour,
                    width,
                } => {
                    let mut pb = PathBuilder::new();
                    pb.move_to(*x1, *y1);
                    pb.line_to(*x2, *y2);
                    let Some(path) = pb.finish() else { continue };
                    s.set_fill(None);
                    s.set_stroke(Some(line(*colour, *width)));
                    s.draw_path(&path);
                }
            }
        }
        s.finish();
        p.finish();
        progress(from + (to - from) * (i + 1) as f32 / n);
    }
    doc.finish().map_err(|e| ExportError::Pdf {
        message: format!("{e:?}"),
    })
}

fn fill([r, g, b]: Rgb) -> Fill {
    Fill {
        paint: rgb::Color::new(r, g, b).into(),
        opacity: NormalizedF32::ONE,
        rule: FillRule::NonZero,
    }
}

fn line([r, g, b]: Rgb, width: f32) -> Stroke {
    Stroke {
        paint: rgb::Color::new(r, g, b).into(),
        width,
        line_cap: LineCap::Butt,
        ..Stroke::default()
    }
}

/// Mixes `c` with white: `amount` 0 = white, 1 = `c`.
pub(crate) fn tint(c: Rgb, amount: f32) -> Rgb {
    let mix = |v: u8| {
        (255.0 - (255.0 - f32::from(v)) * amount)
            .round()
            .clamp(0.0, 255.0) as u8
    };
    let [r, g, b] = c;
    [mix(r), mix(g), mix(b)]
}
