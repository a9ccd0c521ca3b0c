//! Small widgets every page shares: the look (colours, spacing), fields that commit on Enter or
//! lost focus rather than on each keystroke, verb buttons drawn from the [`Verb`] table, and the
//! warning line that shows a rule violation.
//!
//! Commit-on-blur works through [`Emitter`]: while a field has focus it keeps its text in egui's
//! temporary memory and records the command its current text would send; once focus has gone
//! (Enter, Tab, a click elsewhere, even when the field is no longer drawn) [`Emitter::finish`]
//! sends that command. Escape drops it. No store, no file system here.

use super::commands::{AppCommand, Verb};
use crate::model::validate::Violation;
use egui::{Color32, Id, Key, RichText, Stroke, TextEdit, Ui};

/// Colours of the Powderhorn look: parchment and ink, with a regimental blue for selection.
pub mod palette {
    use egui::Color32;
    pub const PAPER: Color32 = Color32::from_rgb(0xf5, 0xf1, 0xe8);
    pub const PANEL: Color32 = Color32::from_rgb(0xeb, 0xe4, 0xd6);
    pub const CARD: Color32 = Color32::from_rgb(0xfb, 0xf9, 0xf4);
    pub const STRIPE: Color32 = Color32::from_rgb(0xef, 0xe9, 0xdc);
    pub const INK: Color32 = Color32::from_rgb(0x26, 0x22, 0x1c);
    pub const FAINT: Color32 = Color32::from_rgb(0x6e, 0x66, 0x5a);
    pub const RULE: Color32 = Color32::from_rgb(0xc9, 0xbf, 0xac);
    pub const BLUE: Color32 = Color32::from_rgb(0x1f, 0x3a, 0x5f);
    pub const BLUE_LIGHT: Color32 = Color32::from_rgb(0xcf, 0xda, 0xe8);
    pub const WARN: Color32 = Color32::from_rgb(0xa8, 0x4b, 0x00);
    pub const WARN_BG: Color32 = Color32::from_rgb(0xfb, 0xec, 0xd9);
    pub const ERROR: Color32 = Color32::from_rgb(0xa3, 0x1f, 0x1f);
    pub const ERROR_BG: Color32 = Color32::from_rgb(0xf8, 0xe0, 0xdc);
    pub const OK: Color32 = Color32::from_rgb(0x2d, 0x6a, 0x2f);
    pub const USER: Color32 = Color32::from_rgb(0x5a, 0x3d, 0x8a);
}

/// The font family of bold text ([`RichTextExt::bold`]).
pub const BOLD: &str = "bold";

/// The UI fonts: DejaVu Sans Condensed (regular and bold) from `assets/fonts`, the same files
/// the PDF export embeds. They read well at small sizes in dense tables, have a real bold, and
/// cover the accented names of the period (Coëhorn, Masséna) and the symbols we use.
fn fonts() -> egui::FontDefinitions {
    use egui::{FontData, FontFamily};
    use std::sync::Arc;
    let mut fonts = egui::FontDefinitions::default();
    let add = |fonts: &mut egui::FontDefinitions, name: &str, bytes: &'static [u8]| {
        fonts
            .font_data
            .insert(name.to_string(), Arc::new(FontData::from_static(bytes)));
    };
    add(
        &mut fonts,
        "dejavu-condensed",
        include_bytes!("../../assets/fonts/DejaVuSansCondensed.ttf"),
    );
    add(
        &mut fonts,
        "dejavu-condensed-bold",
        include_bytes!("../../assets/fonts/DejaVuSansCondensed-Bold.ttf"),
    );
    let proportional = fonts.families.entry(FontFamily::Proportional).or_default();
    proportional.insert(0, "dejavu-condensed".to_string());
    let fallbacks = proportional.clone();
    fonts
        .families
        .entry(FontFamily::Monospace)
        .or_default()
        .push("dejavu-condensed".to_string());
    let mut bold = vec!["dejavu-condensed-bold".to_string()];
    bold.extend(fallbacks);
    fonts.families.insert(FontFamily::Name(BOLD.into()), bold);
    fonts
}

/// Bold text in the UI's bold face.
pub trait RichTextExt {
    fn bold(self) -> RichText;
}

impl RichTextExt for RichText {
    fn bold(self) -> RichText {
        self.family(egui::FontFamily::Name(BOLD.into()))
    }
}

/// Installs the Powderhorn look on a context (fonts, light theme, parchment panels, firmer
/// spacing). Fonts take effect from the next pass.
pub fn install_style(ctx: &egui::Context) {
    ctx.set_fonts(fonts());
    ctx.set_theme(egui::Theme::Light);
    ctx.style_mut_of(egui::Theme::Light, |style| {
        let v = &mut style.visuals;
        v.panel_fill = palette::PAPER;
        v.window_fill = palette::CARD;
        v.faint_bg_color = palette::STRIPE;
        v.extreme_bg_color = Color32::WHITE;
        v.warn_fg_color = palette::WARN;
        v.error_fg_color = palette::ERROR;
        v.weak_text_color = Some(palette::FAINT);
        v.selection.bg_fill = palette::BLUE_LIGHT;
        v.selection.stroke = Stroke::new(1.0, palette::BLUE);
        v.hyperlink_color = palette::BLUE;
        v.widgets.noninteractive.fg_stroke = Stroke::new(1.0, palette::INK);
        v.widgets.noninteractive.bg_stroke = Stroke::new(1.0, palette::RULE);
        v.widgets.inactive.fg_stroke = Stroke::new(1.0, palette::INK);
        v.widgets.inactive.bg_stroke = Stroke::new(1.0, Color32::from_rgb(0xb8, 0xac, 0x94));
        v.widgets.inactive.weak_bg_fill = Color32::from_rgb(0xe4, 0xdc, 0xcb);
        v.widgets.inactive.bg_fill = Color32::from_rgb(0xe4, 0xdc, 0xcb);
        v.widgets.hovered.fg_stroke = Stroke::new(1.5, Color32::BLACK);
        v.widgets.hovered.weak_bg_fill = Color32::from_rgb(0xd9, 0xcf, 0xba);
        v.widgets.hovered.bg_fill = Color32::from_rgb(0xd9, 0xcf, 0xba);
        v.widgets.active.fg_stroke = Stroke::new(2.0, Color32::BLACK);
        v.widgets.active.weak_bg_fill = palette::BLUE_LIGHT;
        style.spacing.item_spacing = egui::vec2(8.0, 5.0);
        style.spacing.button_padding = egui::vec2(8.0, 3.0);
        style.spacing.interact_size.y = 22.0;
        for (ts, size) in [
            (egui::TextStyle::Body, 14.0),
            (egui::TextStyle::Button, 14.0),
            (egui::TextStyle::Heading, 20.0),
            (egui::TextStyle::Small, 12.0),
            (egui::TextStyle::Monospace, 13.0),
        ] {
            if let Some(f) = style.text_styles.get_mut(&ts) {
                f.size = size;
            }
        }
        if let Some(h) = style.text_styles.get_mut(&egui::TextStyle::Heading) {
            h.family = egui::FontFamily::Name(BOLD.into());
        }
    });
}

/// A labelled on/off switch of a value: label, tooltip, current state, how to set it.
pub type Flag<T> = (&'static str, &'static str, bool, fn(&mut T, bool));

/// A field edit waiting for its widget to lose focus.
#[derive(Debug, Clone)]
pub struct Pending {
    widget: Id,
    command: AppCommand,
}

/// Collects the commands one frame emits, including field edits committed on blur.
#[derive(Debug, Default)]
pub struct Emitter {
    pub commands: Vec<AppCommand>,
    pending: Option<Pending>,
}

impl Emitter {
    pub fn new(pending: Option<Pending>) -> Self {
        Emitter {
            commands: Vec::new(),
            pending,
        }
    }

    pub fn send(&mut self, command: AppCommand) {
        self.commands.push(command);
    }

    /// Sends the pending field edit once its widget no longer has focus and is not dragged.
    /// Returns the commands and what is still pending.
    pub fn finish(mut self, ctx: &egui::Context) -> (Vec<AppCommand>, Option<Pending>) {
        if let Some(p) = self.pending.take() {
            let focused = ctx.memory(|m| m.focused()) == Some(p.widget);
            let dragged = ctx.dragged_id() == Some(p.widget);
            if focused || dragged {
                self.pending = Some(p);
            } else {
                // Focus left the field because of something done this frame (a click on
                // Undo, another scenario picked): the edit happened first.
                self.commands.insert(0, p.command);
            }
        }
        (self.commands, self.pending)
    }

    fn set_pending(&mut self, widget: Id, command: Option<AppCommand>) {
        match command {
            Some(command) => {
                // A different field took over: the old one's edit is committed first.
                if let Some(old) = self.pending.take() {
                    if old.widget != widget {
                        self.commands.push(old.command);
                    }
                }
                self.pending = Some(Pending { widget, command });
            }
            None => {
                if self.pending.as_ref().is_some_and(|p| p.widget == widget) {
                    self.pending = None;
                }
            }
        }
    }

    fn drop_pending(&mut self, widget: Id) {
        if self.pending.as_ref().is_some_and(|p| p.widget == widget) {
            self.pending = None;
        }
    }
}

/// How a field is drawn.
#[derive(Debug, Clone, Copy)]
pub struct FieldLook<'a> {
    /// The accessible name (what a screen reader and the tests find it by).
    pub name: &'a str,
    pub width: f32,
    pub multiline: bool,
}

impl<'a> FieldLook<'a> {
    pub fn new(name: &'a str) -> Self {
        FieldLook {
            name,
            width: 250.0,
            multiline: false,
        }
    }
    pub fn width(mut self, w: f32) -> Self {
        self.width = w;
        self
    }
    pub fn multiline(mut self) -> Self {
        self.multiline = true;
        self
    }
}

/// A text field that commits on Enter or lost focus: `make` turns the new text into the
/// command to send (only when it differs from `current`).
pub fn text_field(
    ui: &mut Ui,
    out: &mut Emitter,
    salt: impl egui::AsIdSalt,
    current: &str,
    look: FieldLook<'_>,
    make: impl FnOnce(String) -> AppCommand,
) -> egui::Response {
    let id = ui.make_persistent_id(("text-field", salt));
    let mut buf: String = ui
        .data(|d| d.get_temp::<String>(id))
        .unwrap_or_else(|| current.to_string());
    let edit = if look.multiline {
        TextEdit::multiline(&mut buf).desired_rows(3)
    } else {
        TextEdit::singleline(&mut buf)
    };
    let edit = edit.id(id).desired_width(look.width);
    let resp = if look.multiline {
        // A long note scrolls inside its box rather than pushing the form off the screen.
        egui::ScrollArea::vertical()
            .id_salt(id.with("scroll"))
            .max_height(130.0)
            .show(ui, |ui| ui.add(edit))
            .inner
    } else {
        ui.add(edit)
    };
    let resp = resp.named(look.name);
    let escape = ui.input(|i| i.key_pressed(Key::Escape));
    if (resp.has_focus() || resp.lost_focus()) && escape {
        ui.data_mut(|d| d.remove::<String>(id));
        out.drop_pending(id);
        ui.memory_mut(|m| m.surrender_focus(id));
    } else if resp.has_focus() {
        let changed = buf != current;
        ui.data_mut(|d| d.insert_temp(id, buf.clone()));
        out.set_pending(id, changed.then(|| make(buf)));
    } else {
        ui.data_mut(|d| d.remove::<String>(id));
        if resp.lost_focus() && buf != current {
            out.set_pending(id, Some(make(buf)));
        }
    }
    resp
}

/// A shipped list's text as a player reads it: references to our working papers — transcript
/// line numbers ("seed 1412-1438"), catalogue sections ("catalogue §5.2", "§5.6") — are taken out,
/// so the player sees the point in our words and a rule ID where there is one (#22 item 6).
pub fn players_words(text: &str) -> String {
    // Rulings named in running text become ours.
    let text = text
        .replace("catalogue §5.2 rules ", "by our ruling, ")
        .replace("by the catalogue's §5.2 ruling", "by our ruling")
        .replace("per the §5.2 ruling", "by our ruling");
    let jargon = |t: &str| t.contains("seed ") || t.contains("catalogue") || t.contains('§');
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    // Parentheses that only point at our papers go whole.
    while let Some(open) = rest.find('(') {
        let Some(len) = rest[open..].find(')') else {
            break;
        };
        let inner = &rest[open + 1..open + len];
        out.push_str(&rest[..open]);
        if jargon(inner) {
            while out.ends_with(' ') {
                out.pop();
            }
        } else {
            out.push_str(&rest[open..=open + len]);
        }
        rest = &rest[open + len + 1..];
    }
    out.push_str(rest);
    // Any section number left becomes "our ruling".
    while let Some(at) = out.find('§') {
        let tail = &out[at..];
        let len = tail
            .char_indices()
            .find(|(_, c)| !(*c == '§' || *c == '.' || c.is_ascii_digit()))
            .map_or(tail.len(), |(i, _)| i);
        let len = if tail[..len].ends_with('.') {
            len - 1
        } else {
            len
        };
        out.replace_range(at..at + len, "our ruling");
    }
    out
}

/// The rule behind a corrected value as a player reads it: the rule IDs it names ("ARMY-06(c)"),
/// or "our correction of a misprint" where it only points at our papers.
pub fn correction_words(rule: &str) -> String {
    let ids: Vec<&str> = rule
        .split('/')
        .map(str::trim)
        .filter(|t| !t.is_empty() && !t.contains('§') && !t.contains("seed "))
        .collect();
    if ids.is_empty() {
        "our correction of a misprint".to_string()
    } else {
        ids.join(", ")
    }
}

/// Reads a typed number for a field that takes `range` (whole numbers only when `T` is): the
/// value, or the sentence that says what is wrong and what the field takes.
pub fn parse_number<T: egui::emath::Numeric>(
    text: &str,
    range: &std::ops::RangeInclusive<T>,
) -> Result<T, String> {
    let (lo, hi) = (range.start().to_f64(), range.end().to_f64());
    let takes = if T::INTEGRAL {
        format!("a whole number from {lo} to {hi}")
    } else {
        format!("a number from {lo} to {hi}")
    };
    let t = text.trim().replace('\u{2212}', "-");
    let v: f64 = match t.parse::<f64>() {
        Ok(v) if v.is_finite() => v,
        _ if t.is_empty() => return Err(format!("empty; type {takes}")),
        _ => return Err(format!("\"{}\" is not a number; type {takes}", text.trim())),
    };
    if T::INTEGRAL && v.fract() != 0.0 {
        return Err(format!("{v} is not a whole number; type {takes}"));
    }
    if v < lo || v > hi {
        return Err(format!("{v} is out of range; type {takes}"));
    }
    Ok(T::from_f64(v))
}

/// A typed number field that commits on Enter or lost focus. What is not a number, or out of
/// the field's range, is never changed into something else nor dropped: the text stays as
/// typed, marked, with the reason beside it, and nothing is saved until it is put right (or
/// Escape brings back the stored value).
pub fn num_field<T>(
    ui: &mut Ui,
    out: &mut Emitter,
    salt: impl egui::AsIdSalt,
    current: T,
    range: std::ops::RangeInclusive<T>,
    name: &str,
    make: impl FnOnce(T) -> AppCommand,
) -> egui::Response
where
    T: egui::emath::Numeric + Clone + Send + Sync + PartialEq + 'static,
{
    let id = ui.make_persistent_id(("num-field", salt));
    let shown = if T::INTEGRAL {
        format!("{}", current.to_f64())
    } else {
        let v = current.to_f64();
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    let mut buf: String = ui
        .data(|d| d.get_temp::<String>(id))
        .unwrap_or_else(|| shown.clone());
    let checked = parse_number(&buf, &range);
    ui.vertical(|ui| {
        let mut edit = TextEdit::singleline(&mut buf).id(id).desired_width(64.0);
        if checked.is_err() {
            edit = edit.text_color(palette::WARN);
        }
        let resp = ui.add(edit).named(name);
        let escape = ui.input(|i| i.key_pressed(Key::Escape));
        let parsed = parse_number(&buf, &range);
        if (resp.has_focus() || resp.lost_focus()) && escape {
            ui.data_mut(|d| d.remove::<String>(id));
            out.drop_pending(id);
            ui.memory_mut(|m| m.surrender_focus(id));
        } else if resp.has_focus() {
            ui.data_mut(|d| d.insert_temp(id, buf.clone()));
            out.set_pending(
                id,
                parsed
                    .as_ref()
                    .ok()
                    .filter(|v| **v != current)
                    .map(|v| make(*v)),
            );
        } else {
            match &parsed {
                Ok(v) => {
                    ui.data_mut(|d| d.remove::<String>(id));
                    if resp.lost_focus() && *v != current {
                        out.set_pending(id, Some(make(*v)));
                    }
                }
                // Kept as typed, with the reason, until put right.
                Err(_) if buf != shown => {
                    ui.data_mut(|d| d.insert_temp(id, buf.clone()));
                }
                Err(_) => {
                    ui.data_mut(|d| d.remove::<String>(id));
                }
            }
        }
        if let Err(why) = &parsed {
            // Below the field, wrapped narrow, so the form keeps its width.
            ui.scope(|ui| {
                ui.set_max_width(200.0);
                ui.add(
                    egui::Label::new(
                        RichText::new(format!("{name}: {why}"))
                            .small()
                            .color(palette::WARN),
                    )
                    .wrap(),
                )
                .on_hover_text(
                    "Nothing is saved until the number is put right; Escape brings back the \
                     saved value",
                );
            });
        }
        resp
    })
    .inner
}

/// A combo box whose every pick is committed at once.
pub fn combo<T: PartialEq + Clone>(
    ui: &mut Ui,
    salt: impl egui::AsIdSalt,
    name: &str,
    current: &T,
    options: &[(T, String)],
    width: f32,
) -> Option<T> {
    let shown = options
        .iter()
        .find(|(v, _)| v == current)
        .map_or_else(|| "—".to_string(), |(_, l)| l.clone());
    let mut picked = None;
    let resp = egui::ComboBox::from_id_salt(("combo", salt))
        .selected_text(shown.clone())
        .width(width)
        .truncate()
        .show_ui(ui, |ui| {
            for (v, label) in options {
                if ui.selectable_label(v == current, label.as_str()).clicked() && v != current {
                    picked = Some(v.clone());
                }
            }
        });
    // The choice in full on hover, since a long one is cut to the box's width.
    let _ = resp.response.named(name).on_hover_text(shown);
    picked
}

/// A button for a verb: its label, its tooltip with the shortcut, enabled or not.
pub fn verb_button(ui: &mut Ui, verb: Verb, enabled: bool) -> bool {
    let spec = verb.spec();
    let mut tip = spec.tooltip.to_string();
    if let Some(s) = spec.shortcut {
        tip.push_str(&format!("  ({})", ui.ctx().format_shortcut(&s)));
    }
    if let Some(s) = spec.alt_shortcut {
        tip.push_str(&format!(" or {}", ui.ctx().format_shortcut(&s)));
    }
    let resp = ui.add_enabled(enabled, egui::Button::new(spec.label));
    let resp = resp.on_hover_text(&tip).on_disabled_hover_text(tip);
    resp.clicked()
}

/// A small caps-style section heading with a rule under it.
pub fn section(ui: &mut Ui, title: &str) {
    ui.add_space(6.0);
    ui.label(
        RichText::new(title.to_uppercase())
            .bold()
            .size(12.5)
            .color(palette::BLUE),
    );
    ui.separator();
}

/// Where [`form_label`] leaves its id and text for the field drawn next to it.
fn form_label_slot() -> Id {
    Id::unique("powderhorn-form-label")
}

/// A form label (left column of a two-column form). The field helpers below that come next
/// and carry the same name are tied to it (`labelled_by`), so a screen reader and the tests
/// find one "Stands", not the label and the field.
pub fn form_label(ui: &mut Ui, text: &str) -> egui::Response {
    let resp = ui.label(RichText::new(text).color(palette::FAINT));
    ui.data_mut(|d| d.insert_temp(form_label_slot(), (resp.id, text.to_string())));
    resp
}

/// Names an input for screen readers and tests: by the [`form_label`] just drawn when it
/// reads the same, else by `name`.
pub trait NamedInput {
    fn named(self, name: &str) -> egui::Response;
}

impl NamedInput for egui::Response {
    fn named(self, name: &str) -> egui::Response {
        let label = self.ctx.data_mut(|d| {
            let label = d.get_temp::<(Id, String)>(form_label_slot());
            d.remove::<(Id, String)>(form_label_slot());
            label
        });
        match label {
            Some((id, text)) if text == name => self.labelled_by(id),
            _ => self.accessible_name(name),
        }
    }
}

/// A small warning triangle, painted (the default fonts carry no symbol glyphs).
pub fn warn_icon(ui: &mut Ui) -> egui::Response {
    let (rect, resp) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
    let c = rect.center();
    let pts = vec![
        egui::pos2(c.x, rect.top() + 1.0),
        egui::pos2(rect.right() - 0.5, rect.bottom() - 1.0),
        egui::pos2(rect.left() + 0.5, rect.bottom() - 1.0),
    ];
    let p = ui.painter();
    p.add(egui::Shape::convex_polygon(
        pts,
        palette::WARN,
        Stroke::NONE,
    ));
    p.line_segment(
        [
            egui::pos2(c.x, rect.top() + 5.0),
            egui::pos2(c.x, rect.bottom() - 5.0),
        ],
        Stroke::new(1.6, Color32::WHITE),
    );
    p.circle_filled(egui::pos2(c.x, rect.bottom() - 3.0), 0.9, Color32::WHITE);
    resp
}

/// One violation: rule id and message in the warning colour, wrapped.
pub fn violation_line(ui: &mut Ui, v: &Violation) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 5.0;
        warn_icon(ui);
        ui.label(RichText::new(v.rule).color(palette::WARN).bold());
        ui.label(RichText::new(&v.message).color(palette::WARN));
    });
}

/// A side colour lightened for filling a symbol.
pub fn tint(rgb: [u8; 3]) -> Color32 {
    let mix = |c: u8| -> u8 { (u16::from(c) * 35 / 100 + 255 * 65 / 100).min(255) as u8 };
    Color32::from_rgb(mix(rgb[0]), mix(rgb[1]), mix(rgb[2]))
}

/// A map-symbol frame (after NATO APP-6) for a unit of an arm: infantry ⨯, cavalry /,
/// artillery •, engineers ш, transport ○, armour ⬭. Painted, so it needs no font.
pub fn unit_symbol(ui: &mut Ui, arm: Option<crate::model::Arm>, fill: Color32) -> egui::Response {
    use crate::model::Arm;
    let (rect, resp) = ui.allocate_exact_size(egui::vec2(24.0, 16.0), egui::Sense::hover());
    let f = egui::Rect::from_min_max(
        egui::pos2(rect.left() + 1.0, rect.top() + 2.0),
        egui::pos2(rect.right() - 1.0, rect.bottom() - 2.0),
    );
    let p = ui.painter();
    let ink = Stroke::new(1.2, palette::INK);
    p.rect_filled(f, 0.0, fill);
    match arm {
        Some(Arm::Infantry) => {
            p.line_segment([f.left_top(), f.right_bottom()], ink);
            p.line_segment([f.left_bottom(), f.right_top()], ink);
        }
        Some(Arm::Cavalry) => {
            p.line_segment([f.left_bottom(), f.right_top()], ink);
        }
        Some(Arm::Artillery) => {
            p.circle_filled(f.center(), 2.6, palette::INK);
        }
        Some(Arm::Engineers) => {
            let y = f.center().y - 2.0;
            let (l, r) = (f.left() + 5.0, f.right() - 5.0);
            p.line_segment([egui::pos2(l, y), egui::pos2(r, y)], ink);
            for x in [l, (l + r) / 2.0, r] {
                p.line_segment([egui::pos2(x, y), egui::pos2(x, y + 4.0)], ink);
            }
        }
        Some(Arm::Transport) => {
            p.circle_stroke(f.center(), 3.2, ink);
        }
        Some(Arm::Armour) => {
            let r = egui::Rect::from_center_size(
                f.center(),
                egui::vec2(f.width() - 8.0, f.height() - 5.0),
            );
            p.rect_stroke(r, 3.0, ink, egui::StrokeKind::Middle);
        }
        None => {
            p.line_segment(
                [
                    egui::pos2(f.center().x, f.top() + 3.0),
                    egui::pos2(f.center().x, f.bottom() - 3.0),
                ],
                ink,
            );
        }
    }
    p.rect_stroke(f, 0.0, ink, egui::StrokeKind::Middle);
    resp
}

/// An HQ symbol: a frame with the staff at its lower left and the echelon marks above
/// (X brigade, XX division, XXX corps, XXXX army). The CO's frame is drawn heavier.
pub fn hq_symbol(
    ui: &mut Ui,
    level: crate::model::CommandLevel,
    co: bool,
    fill: Color32,
) -> egui::Response {
    use crate::model::CommandLevel;
    let (rect, resp) = ui.allocate_exact_size(egui::vec2(24.0, 26.0), egui::Sense::hover());
    let f = egui::Rect::from_min_max(
        egui::pos2(rect.left() + 1.0, rect.top() + 8.0),
        egui::pos2(rect.right() - 1.0, rect.top() + 19.0),
    );
    let p = ui.painter();
    let ink = Stroke::new(if co { 2.0 } else { 1.2 }, palette::INK);
    p.rect_filled(f, 0.0, fill);
    p.rect_stroke(f, 0.0, ink, egui::StrokeKind::Middle);
    p.line_segment(
        [f.left_bottom(), egui::pos2(f.left(), rect.bottom())],
        Stroke::new(1.4, palette::INK),
    );
    let marks = match level {
        CommandLevel::Brigade | CommandLevel::Hq => 1,
        CommandLevel::Division => 2,
        CommandLevel::Corps => 3,
        CommandLevel::Army => 4,
    };
    let w = 4.0;
    let gap = 1.2;
    let total = marks as f32 * w + (marks as f32 - 1.0) * gap;
    let mut x = f.center().x - total / 2.0;
    let thin = Stroke::new(1.1, palette::INK);
    for _ in 0..marks {
        let (t, b) = (rect.top() + 1.5, rect.top() + 6.0);
        p.line_segment([egui::pos2(x, t), egui::pos2(x + w, b)], thin);
        p.line_segment([egui::pos2(x, b), egui::pos2(x + w, t)], thin);
        x += w + gap;
    }
    resp
}

/// The book's advice (BAS-04, BAS-06) in quiet type under a heading: notes for the
/// designer, not problems.
pub fn advice_box(ui: &mut Ui, advice: &[crate::model::advice::Advice]) {
    if advice.is_empty() {
        return;
    }
    ui.label(
        RichText::new("The book advises")
            .color(palette::FAINT)
            .small(),
    );
    for a in advice {
        ui.horizontal_wrapped(|ui| {
            ui.spacing_mut().item_spacing.x = 5.0;
            ui.label(RichText::new(a.rule).color(palette::FAINT).bold());
            ui.label(RichText::new(&a.message).color(palette::FAINT));
        });
    }
}

/// A boxed list of violations, for the top of a side or the scenario.
pub fn violation_box(ui: &mut Ui, vs: &[&Violation]) {
    if vs.is_empty() {
        return;
    }
    egui::Frame::new()
        .fill(palette::WARN_BG)
        .stroke(Stroke::new(1.0, palette::WARN.gamma_multiply(0.5)))
        .corner_radius(4.0)
        .inner_margin(egui::Margin::symmetric(8, 5))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            for v in vs {
                violation_line(ui, v);
            }
        });
}

/// A white card with a hairline border, for grouping.
pub fn card<R>(ui: &mut Ui, add: impl FnOnce(&mut Ui) -> R) -> R {
    egui::Frame::new()
        .fill(palette::CARD)
        .stroke(Stroke::new(1.0, palette::RULE))
        .corner_radius(4.0)
        .inner_margin(egui::Margin::same(10))
        .show(ui, add)
        .inner
}

/// 1234567 → "1,234,567"; negative numbers keep their sign.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn list_texts_lose_their_working_paper_references() {
        assert_eq!(
            super::players_words(
                "The source transcription has only the British organisation text (seed \
                 1412-1438); the chart is missing, so none are invented (catalogue §5.2, §5.7)."
            ),
            "The source transcription has only the British organisation text; the chart is \
             missing, so none are invented."
        );
        assert_eq!(
            super::players_words("rate Prussian commanders Average, per the §5.2 ruling."),
            "rate Prussian commanders Average, by our ruling."
        );
        assert_eq!(
            super::players_words(
                "Brigade HQs command 5-6 infantry units by the catalogue's §5.2 ruling (the \
                 source gives no brigade range)."
            ),
            "Brigade HQs command 5-6 infantry units by our ruling (the source gives no brigade \
             range)."
        );
        assert_eq!(
            super::players_words(
                "none is stored (catalogue §5.2 rules 5-6 for Russian brigade HQs). Also"
            ),
            "none is stored (by our ruling, 5-6 for Russian brigade HQs). Also"
        );
        assert_eq!(
            super::players_words("No references (at all)."),
            "No references (at all)."
        );
        assert_eq!(
            super::correction_words("§5.6 / §5.2"),
            "our correction of a misprint"
        );
        assert_eq!(super::correction_words("ARMY-06(c) / §5.6"), "ARMY-06(c)");
    }

    #[test]
    fn a_typed_number_is_read_or_refused_with_its_reason_never_changed() {
        assert_eq!(super::parse_number("12", &(1u32..=99)), Ok(12));
        assert_eq!(super::parse_number(" 7 ", &(1u32..=99)), Ok(7));
        let e = super::parse_number("-5", &(1u32..=99)).unwrap_err();
        assert_eq!(e, "-5 is out of range; type a whole number from 1 to 99");
        let e = super::parse_number("abc", &(30.0f64..=1000.0)).unwrap_err();
        assert_eq!(e, "\"abc\" is not a number; type a number from 30 to 1000");
        assert!(super::parse_number("2.5", &(1u32..=99)).is_err());
        assert!(super::parse_number("", &(1u32..=99)).is_err());
        assert!(super::parse_number("inf", &(30.0f64..=1000.0)).is_err());
        assert_eq!(super::parse_number("182.5", &(30.0f64..=1000.0)), Ok(182.5));
    }

    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1500), "1,500");
        assert_eq!(thousands(-1234567), "-1,234,567");
    }
}
