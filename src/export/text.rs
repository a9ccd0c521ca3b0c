//! Fitting text into boxes: cutting with an ellipsis and wrapping into lines. All widths are
//! the embedded fonts' real advances ([`super::fonts`]).

use super::fonts::Metrics;

pub(crate) const ELLIPSIS: char = '…';

/// A space the wrapper never breaks at.
pub(crate) const NBSP: char = '\u{a0}';

/// Words for wrapping: split at white space other than the no-break space.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() && c != NBSP)
        .filter(|w| !w.is_empty())
}

/// `text` cut to at most `avail_pt` wide at `size_pt`, ending in "…" when cut. Returns the text
/// and whether it was cut; an empty string when not even the ellipsis fits.
pub(crate) fn truncate(m: &Metrics, text: &str, size_pt: f32, avail_pt: f32) -> (String, bool) {
    if m.width_pt(text, size_pt) <= avail_pt {
        return (text.to_string(), false);
    }
    let ell = m.glyph(ELLIPSIS).1 * size_pt;
    if ell > avail_pt {
        return (String::new(), true);
    }
    let mut width = ell;
    let mut end = 0;
    for (i, ch) in text.char_indices() {
        let w = m.glyph(ch).1 * size_pt;
        if width + w > avail_pt {
            break;
        }
        width += w;
        end = i + ch.len_utf8();
    }
    let mut out = text.get(..end).unwrap_or("").trim_end().to_string();
    out.push(ELLIPSIS);
    (out, true)
}

/// Greedy word wrap of `text` into lines at most `avail_pt` wide at `size_pt`. A word wider
/// than a line is broken after a hyphen if it has one, else between characters. Never returns
/// a line wider than `avail_pt` (unless a single character is, which the callers' sizes rule
/// out).
pub(crate) fn wrap(m: &Metrics, text: &str, size_pt: f32, avail_pt: f32) -> Vec<String> {
    wrap_checked(m, text, size_pt, avail_pt).0
}

/// [`wrap`], also telling whether a word had to be broken between letters (which labels
/// avoid by choosing a smaller size instead).
pub(crate) fn wrap_checked(
    m: &Metrics,
    text: &str,
    size_pt: f32,
    avail_pt: f32,
) -> (Vec<String>, bool) {
    let space = m.glyph(' ').1 * size_pt;
    let mut lines = Vec::new();
    let mut broke = false;
    let mut cur = String::new();
    let mut cur_w = 0.0_f32;
    // Pieces: whole words, or hyphen-separated parts of words too wide for a line. A piece
    // that continues the previous one (after its hyphen) is joined without a space.
    let mut pieces: Vec<(String, bool)> = Vec::new();
    for word in words(text) {
        if m.width_pt(word, size_pt) <= avail_pt || !word.contains('-') {
            pieces.push((word.to_string(), false));
            continue;
        }
        let mut first = true;
        for part in word.split_inclusive('-') {
            pieces.push((part.to_string(), !first));
            first = false;
        }
    }
    for (word, glued) in pieces {
        let w = m.width_pt(&word, size_pt);
        let sep = if glued { 0.0 } else { space };
        if cur.is_empty() {
            if w <= avail_pt {
                cur.push_str(&word);
                cur_w = w;
                continue;
            }
        } else if cur_w + sep + w <= avail_pt {
            if !glued {
                cur.push(' ');
            }
            cur.push_str(&word);
            cur_w += sep + w;
            continue;
        } else if w <= avail_pt {
            lines.push(std::mem::take(&mut cur));
            cur.push_str(&word);
            cur_w = w;
            continue;
        }
        // The piece alone is wider than a line: break it by characters.
        broke = true;
        if !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
        }
        cur_w = 0.0;
        for ch in word.chars() {
            let cw = m.glyph(ch).1 * size_pt;
            if cur_w + cw > avail_pt && !cur.is_empty() {
                lines.push(std::mem::take(&mut cur));
                cur_w = 0.0;
            }
            cur.push(ch);
            cur_w += cw;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    (lines, broke)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fonts::fonts;
    use crate::export::Face;

    #[test]
    fn truncation_ends_in_ellipsis_and_fits() {
        let m = fonts().unwrap().get(Face::Condensed);
        let (t, cut) = truncate(m, "Infanterie-Regiment Erzherzog Karl Nr. 3", 6.0, 40.0);
        assert!(cut && t.ends_with(ELLIPSIS));
        assert!(m.width_pt(&t, 6.0) <= 40.0);
        let (t, cut) = truncate(m, "Jäger", 6.0, 40.0);
        assert!(!cut);
        assert_eq!(t, "Jäger");
    }

    #[test]
    fn wrapping_keeps_every_line_inside() {
        let m = fonts().unwrap().get(Face::Sans);
        let text = "Foot troops, mostly armed with smoothbore muskets (a few rifles or air guns); rows may be graded Elite or Poor by rules 2 and 3. Supercalifragilisticexpialidocious";
        let lines = wrap(m, text, 7.0, 60.0);
        assert!(lines.len() > 3);
        for l in &lines {
            assert!(m.width_pt(l, 7.0) <= 60.0, "{l}");
        }
        let rejoined: String = lines.concat().split_whitespace().collect();
        let original: String = text.split_whitespace().collect();
        assert_eq!(rejoined, original);
    }

    #[test]
    fn no_break_spaces_hold_and_measure_as_spaces() {
        let m = fonts().unwrap().get(Face::Condensed);
        assert_eq!(m.glyph(NBSP).1, m.glyph(' ').1);
        let w = m.width_pt("III — Kavallerie", 8.0) * 1.05;
        let lines = wrap(m, "III\u{a0}—\u{a0}Kavallerie batterie", 8.0, w);
        assert_eq!(lines, vec!["III\u{a0}—\u{a0}Kavallerie", "batterie"]);
    }

    #[test]
    fn long_hyphenated_words_break_after_the_hyphen() {
        let m = fonts().unwrap().get(Face::Condensed);
        let w = m.width_pt("Chevaulegers-Regiment", 8.0) * 0.8;
        let (lines, broke) = wrap_checked(m, "Chevaulegers-Regiment Vincent", 8.0, w);
        assert_eq!(lines, vec!["Chevaulegers-", "Regiment Vincent"]);
        assert!(!broke);
        let (_, broke) = wrap_checked(m, "Supercalifragilistic", 8.0, 20.0);
        assert!(broke);
    }
}
