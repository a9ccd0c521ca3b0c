//! The embedded fonts and their measurements.
//!
//! Four DejaVu faces ship in `assets/fonts/` (licence beside them) and are compiled into the
//! binary. Widths come from each face's `hmtx` advances, read with `skrifa`; the same glyph ids
//! and advances are handed to krilla for drawing ([`Metrics::glyphs`]), so a measured width is
//! the printed width. A character the face lacks is measured and drawn as `?`.

use super::{pt_to_mm, ExportError};
use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, MetadataProvider};
use std::collections::HashMap;
use std::sync::OnceLock;

const SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
const SANS_BOLD: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");
const CONDENSED: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansCondensed.ttf");
const CONDENSED_BOLD: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansCondensed-Bold.ttf");

/// A font face of the shipped family. Layout files name faces with these snake_case names.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Face {
    Sans,
    SansBold,
    Condensed,
    CondensedBold,
}

impl Face {
    pub const ALL: [Face; 4] = [
        Face::Sans,
        Face::SansBold,
        Face::Condensed,
        Face::CondensedBold,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Face::Sans => "DejaVu Sans",
            Face::SansBold => "DejaVu Sans Bold",
            Face::Condensed => "DejaVu Sans Condensed",
            Face::CondensedBold => "DejaVu Sans Condensed Bold",
        }
    }

    pub(crate) fn data(self) -> &'static [u8] {
        match self {
            Face::Sans => SANS,
            Face::SansBold => SANS_BOLD,
            Face::Condensed => CONDENSED,
            Face::CondensedBold => CONDENSED_BOLD,
        }
    }
}

/// Characters below this are looked up once per face and kept in a table.
const TABLE_CHARS: u32 = 0x250;

/// The measurements of one face, in em (font units / units per em).
pub(crate) struct Metrics {
    font: FontRef<'static>,
    upem: f32,
    /// Ascent above the baseline, in em (positive).
    pub ascent: f32,
    /// Descent below the baseline, in em (positive).
    pub descent: f32,
    /// (glyph id, advance in em) of the characters below [`TABLE_CHARS`].
    table: Vec<(u32, f32)>,
    fallback: (u32, f32),
}

impl Metrics {
    fn new(face: Face) -> Result<Self, ExportError> {
        let font = FontRef::new(face.data()).map_err(|e| ExportError::Font {
            face: face.name(),
            message: e.to_string(),
        })?;
        let m = font.metrics(Size::unscaled(), LocationRef::default());
        let upem = f32::from(m.units_per_em.max(1));
        let mut me = Metrics {
            font: font.clone(),
            upem,
            ascent: m.ascent / upem,
            descent: -m.descent / upem,
            table: Vec::new(),
            fallback: (0, 0.5),
        };
        me.fallback = me
            .lookup('?')
            .or_else(|| me.lookup_gid(0))
            .unwrap_or((0, 0.5));
        me.table = (0..TABLE_CHARS)
            .map(|c| {
                char::from_u32(c)
                    .and_then(|ch| me.lookup(ch))
                    .unwrap_or(me.fallback)
            })
            .collect();
        Ok(me)
    }

    fn lookup(&self, ch: char) -> Option<(u32, f32)> {
        let gid = self.font.charmap().map(ch)?;
        self.lookup_gid(gid.to_u32())
    }

    fn lookup_gid(&self, gid: u32) -> Option<(u32, f32)> {
        let gm = self
            .font
            .glyph_metrics(Size::unscaled(), LocationRef::default());
        let adv = gm.advance_width(skrifa::GlyphId::new(gid))?;
        Some((gid, adv / self.upem))
    }

    /// Glyph id and advance (em) of a character; `?` for one the face lacks.
    pub fn glyph(&self, ch: char) -> (u32, f32) {
        let c = ch as u32;
        if c < TABLE_CHARS {
            if let Some(g) = self.table.get(c as usize) {
                return *g;
            }
        }
        self.lookup(ch).unwrap_or(self.fallback)
    }

    /// Width of `text` in em.
    pub fn width_em(&self, text: &str) -> f32 {
        text.chars().map(|c| self.glyph(c).1).sum()
    }

    /// Width of `text` in points at `size_pt`.
    pub fn width_pt(&self, text: &str, size_pt: f32) -> f32 {
        self.width_em(text) * size_pt
    }

    /// Ascent + descent, in em: the vertical extent a line of this face can ink.
    pub fn extent_em(&self) -> f32 {
        self.ascent + self.descent
    }

    /// The glyphs krilla draws for `text`: our ids and our advances, one per character, each
    /// pointing back at its characters so the PDF's text can be copied and searched.
    pub fn glyphs(&self, text: &str) -> Vec<krilla::text::KrillaGlyph> {
        text.char_indices()
            .map(|(i, ch)| {
                let (gid, adv) = self.glyph(ch);
                krilla::text::KrillaGlyph::new(
                    krilla::text::GlyphId::new(gid),
                    adv,
                    0.0,
                    0.0,
                    0.0,
                    i..i + ch.len_utf8(),
                    None,
                )
            })
            .collect()
    }
}

/// All four faces, parsed once per process (they are compiled in, so this cannot vary).
pub(crate) struct Fonts {
    sans: Metrics,
    sans_bold: Metrics,
    condensed: Metrics,
    condensed_bold: Metrics,
}

impl Fonts {
    pub fn get(&self, face: Face) -> &Metrics {
        match face {
            Face::Sans => &self.sans,
            Face::SansBold => &self.sans_bold,
            Face::Condensed => &self.condensed,
            Face::CondensedBold => &self.condensed_bold,
        }
    }
}

static FONTS: OnceLock<Result<Fonts, String>> = OnceLock::new();

/// The parsed fonts. Fails only if the embedded files are damaged.
pub(crate) fn fonts() -> Result<&'static Fonts, ExportError> {
    let r = FONTS.get_or_init(|| {
        let load = |f: Face| Metrics::new(f).map_err(|e| e.to_string());
        Ok(Fonts {
            sans: load(Face::Sans)?,
            sans_bold: load(Face::SansBold)?,
            condensed: load(Face::Condensed)?,
            condensed_bold: load(Face::CondensedBold)?,
        })
    });
    r.as_ref().map_err(|message| ExportError::Font {
        face: "DejaVu",
        message: message.clone(),
    })
}

/// krilla fonts for one document, created on demand.
pub(crate) struct PdfFonts {
    fonts: HashMap<Face, krilla::text::Font>,
}

impl PdfFonts {
    pub fn new() -> Self {
        PdfFonts {
            fonts: HashMap::new(),
        }
    }

    pub fn get(&mut self, face: Face) -> Result<krilla::text::Font, ExportError> {
        if let Some(f) = self.fonts.get(&face) {
            return Ok(f.clone());
        }
        let font = krilla::text::Font::new(krilla::Data::from(face.data()), 0).ok_or(
            ExportError::Font {
                face: face.name(),
                message: "krilla could not read it".into(),
            },
        )?;
        self.fonts.insert(face, font.clone());
        Ok(font)
    }
}

/// The printed width of `text` in millimetres at `size_pt` in `face`: the same advances the PDF
/// is drawn with. Tests and the GUI's preview use it to check that text fits.
pub fn text_width_mm(face: Face, size_pt: f32, text: &str) -> Result<f32, ExportError> {
    Ok(pt_to_mm(fonts()?.get(face).width_pt(text, size_pt)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_load_and_measure() {
        let f = fonts().unwrap();
        for face in Face::ALL {
            let m = f.get(face);
            assert!(
                m.ascent > 0.7 && m.ascent < 1.1,
                "{face:?} ascent {}",
                m.ascent
            );
            assert!(m.descent > 0.1 && m.descent < 0.4);
            assert!(m.width_em("M") > m.width_em("i"));
        }
        let wide = f.get(Face::Sans).width_em("Ebelsberg");
        let narrow = f.get(Face::Condensed).width_em("Ebelsberg");
        assert!(narrow < wide);
    }

    #[test]
    fn accents_and_dashes_have_glyphs() {
        let f = fonts().unwrap().get(Face::Sans);
        for ch in ['ë', 'ä', 'é', '—', '…', '·', '×'] {
            let (gid, _) = f.glyph(ch);
            assert_ne!(gid, f.fallback.0, "{ch} missing");
        }
    }
}
