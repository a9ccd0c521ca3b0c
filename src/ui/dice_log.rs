//! The dice log of the battle page (issue #17 item 5): every roll of the actions in effect,
//! with what it was for, the dice as faces, the score it needed, each modifier with its rule ID
//! (hover: the rule in our words; click: the rule on the Rules page), and for dice typed in
//! from a real table where in the entered dice they came. It filters by side and by unit, and
//! the lines shown can be copied or saved as plain text ([`log_text`], a pure function).
//!
//! Like every page it only reads the [`BattlePanel`] and emits [`AppCommand`]s.

use super::battle::{BattlePanel, DiceLine};
use super::battle_result::side_colour;
use super::widgets::RichTextExt as _;
use super::widgets::{palette, Emitter};
use super::{AppCommand, Page, UiState};
use crate::rules::gist;
use egui::{RichText, Ui};

/// Which lines of the log are shown (and copied or saved).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogFilter {
    /// Only the rolls of this side's units.
    pub side: Option<usize>,
    /// Only the rolls of the unit of this name.
    pub unit: Option<String>,
}

impl LogFilter {
    pub fn keeps(&self, d: &DiceLine) -> bool {
        self.side.is_none_or(|s| d.side == Some(s))
            && self.unit.as_ref().is_none_or(|u| &d.who == u)
    }
}

/// The faces of d6 results: "⚃ ⚅ ⚁".
pub fn faces(dice: &[u8]) -> String {
    dice.iter()
        .map(|d| face(*d).to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The face of one d6 result ('?' for anything else).
pub fn face(d: u8) -> char {
    match d {
        1 => '⚀',
        2 => '⚁',
        3 => '⚂',
        4 => '⚃',
        5 => '⚄',
        6 => '⚅',
        _ => '?',
    }
}

/// "dice 1–3 of 5 typed in" for dice entered at the table.
pub fn typed_words(typed: (usize, usize, usize)) -> String {
    let (first, last, of) = typed;
    if first == last {
        format!("die {first} of {of} typed in")
    } else {
        format!("dice {first}–{last} of {of} typed in")
    }
}

/// The log as plain text, the lines the filter keeps, one roll a line and its modifiers
/// indented under it:
///
/// ```text
/// Dice log: Ebelsberg, 3 May 1809 (French only)
///
/// #3 T1 French · 1er de ligne · to hit FIRE-14: 4 6 2 5 1 (needs 4+)
///     FIRE-08  4 stands firing (+4)
/// ```
pub fn log_text(
    title: &str,
    side_names: &[String; 2],
    lines: &[DiceLine],
    f: &LogFilter,
) -> String {
    let mut scope = Vec::new();
    if let Some(s) = f.side {
        scope.push(side_names.get(s).cloned().unwrap_or_default());
    }
    if let Some(u) = &f.unit {
        scope.push(u.clone());
    }
    let mut out = format!("Dice log: {title}");
    if !scope.is_empty() {
        out.push_str(&format!(" ({} only)", scope.join(", ")));
    }
    out.push_str("\n\n");
    let mut n = 0;
    for d in lines.iter().filter(|d| f.keeps(d)) {
        n += 1;
        let mut head = vec![format!("#{} {}", d.action, d.when)];
        if !d.who.is_empty() {
            head.push(d.who.clone());
        }
        head.push(format!("{} {}", d.purpose, d.rule));
        let dice = d
            .dice
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        out.push_str(&format!("{}: {dice}", head.join(" · ")));
        if let Some(need) = &d.needed {
            out.push_str(&format!(" (needs {need})"));
        }
        if let Some(came) = &d.outcome {
            out.push_str(&format!(" → {came}"));
        }
        if let Some(t) = d.typed {
            out.push_str(&format!(" [{}]", typed_words(t)));
        }
        out.push('\n');
        for (rule, label, value) in &d.modifiers {
            out.push_str(&format!("    {rule}  {label} ({value:+})\n"));
        }
    }
    if n == 0 {
        out.push_str("No rolls.\n");
    }
    out
}

/// A file name for the saved log: "ebelsberg-3-may-1809-dice.txt".
pub fn file_name(title: &str) -> String {
    let mut slug = String::new();
    for c in title.chars() {
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "battle-dice.txt".to_string()
    } else {
        format!("{slug}-dice.txt")
    }
}

/// A rule ID as a link: hover for the rule in our words, click to read it on the Rules page.
pub fn rule_link(ui: &mut Ui, rule: &str, state: &mut UiState) {
    let text = RichText::new(rule).monospace().color(palette::BLUE);
    if ui
        .add(egui::Button::new(text).frame(false))
        .on_hover_text(gist::gist(rule))
        .clicked()
    {
        state.rules_ref.open(rule);
        state.page = Page::Rules;
    }
}

/// The dice log panel.
pub fn show(ui: &mut Ui, panel: &BattlePanel, state: &mut UiState, out: &mut Emitter) {
    ui.label(RichText::new("Dice log").bold().size(15.0));
    let filter = state.dice_log.clone();
    let shown: Vec<&DiceLine> = panel.dice.iter().filter(|d| filter.keeps(d)).collect();
    ui.label(
        RichText::new(format!(
            "{} actions · {} rolls{}",
            panel.actions,
            panel.dice.len(),
            if shown.len() == panel.dice.len() {
                String::new()
            } else {
                format!(" · {} shown", shown.len())
            }
        ))
        .color(palette::FAINT),
    );
    ui.horizontal_wrapped(|ui| {
        let side_text = filter
            .side
            .and_then(|s| panel.side_names.get(s).cloned())
            .map_or_else(|| "Both sides".to_string(), |n| format!("Only {n}"));
        egui::ComboBox::from_label("Side")
            .selected_text(side_text)
            .width(110.0)
            .show_ui(ui, |ui| {
                let f = &mut state.dice_log;
                if ui
                    .selectable_label(f.side.is_none(), "Both sides")
                    .clicked()
                {
                    f.side = None;
                }
                for (i, name) in panel.side_names.iter().enumerate() {
                    let label = format!("Only {name}");
                    if ui.selectable_label(f.side == Some(i), label).clicked() {
                        f.side = Some(i);
                        f.unit = None;
                    }
                }
            });
        let mut units: Vec<&str> = panel
            .dice
            .iter()
            .filter(|d| filter.side.is_none_or(|s| d.side == Some(s)))
            .map(|d| d.who.as_str())
            .filter(|w| !w.is_empty())
            .collect();
        units.sort_unstable();
        units.dedup();
        egui::ComboBox::from_label("Unit")
            .selected_text(
                filter
                    .unit
                    .clone()
                    .unwrap_or_else(|| "All units".to_string()),
            )
            .width(130.0)
            .show_ui(ui, |ui| {
                let f = &mut state.dice_log;
                if ui.selectable_label(f.unit.is_none(), "All units").clicked() {
                    f.unit = None;
                }
                for u in &units {
                    if ui
                        .selectable_label(f.unit.as_deref() == Some(*u), *u)
                        .clicked()
                    {
                        f.unit = Some((*u).to_string());
                    }
                }
            });
    });
    ui.horizontal(|ui| {
        let text = || log_text(&panel.title, &panel.side_names, &panel.dice, &filter);
        if ui
            .button("Copy")
            .on_hover_text("Copy the rolls shown to the clipboard, as text")
            .clicked()
        {
            ui.ctx().copy_text(text());
        }
        if ui
            .button("Save as text…")
            .on_hover_text("Write the rolls shown to a text file")
            .clicked()
        {
            out.send(AppCommand::SaveDiceLog {
                file_name: file_name(&panel.title),
                text: text(),
            });
        }
    });
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt("dice-log")
        .auto_shrink([false, false])
        .stick_to_bottom(true)
        .show(ui, |ui| {
            if shown.is_empty() {
                ui.label(RichText::new("No rolls yet.").color(palette::FAINT));
            }
            for (i, d) in shown.iter().enumerate() {
                ui.push_id(i, |ui| line(ui, d, state));
            }
        });
}

fn line(ui: &mut Ui, d: &DiceLine, state: &mut UiState) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(&d.when).small().color(palette::FAINT));
        let who = RichText::new(&d.who).bold();
        ui.label(match d.side {
            Some(s) => who.color(side_colour(s)),
            None => who,
        });
        ui.label(format!("{}:", d.purpose));
        ui.label(RichText::new(faces(&d.dice)).size(17.0))
            .on_hover_text(
                d.dice
                    .iter()
                    .map(u8::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            );
        if let Some(need) = &d.needed {
            ui.label(RichText::new(format!("needs {need}")).small());
        }
        if let Some(came) = &d.outcome {
            ui.label(RichText::new(format!("→ {came}")).small().strong());
        }
        rule_link(ui, &d.rule, state);
        if d.by_hand {
            let words = d.typed.map_or_else(|| "typed in".to_string(), typed_words);
            ui.label(RichText::new(words).italics().color(palette::FAINT));
        }
    });
    for (rule, label, value) in &d.modifiers {
        ui.horizontal_wrapped(|ui| {
            ui.add_space(16.0);
            rule_link(ui, rule, state);
            ui.label(RichText::new(format!("{label} ({value:+})")).small());
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roll(side: usize, who: &str, purpose: &str, dice: &[u8]) -> DiceLine {
        DiceLine {
            when: "T1 French".into(),
            side: Some(side),
            who: who.into(),
            purpose: purpose.into(),
            rule: "FIRE-14".into(),
            dice: dice.to_vec(),
            modifiers: vec![("FIRE-08".into(), "4 stands firing".into(), 4)],
            by_hand: false,
            needed: Some("4+".into()),
            outcome: None,
            action: 3,
            typed: None,
        }
    }

    fn names() -> [String; 2] {
        ["French".to_string(), "Austrians".to_string()]
    }

    #[test]
    fn the_text_has_one_line_a_roll_and_its_modifiers_under_it() {
        let mut typed = roll(1, "IR 4", "save", &[6]);
        typed.by_hand = true;
        typed.typed = Some((5, 5, 5));
        typed.needed = None;
        typed.modifiers.clear();
        typed.rule = "FIRE-17".into();
        let lines = vec![roll(0, "1er de ligne", "to hit", &[4, 6, 2, 5]), typed];
        let text = log_text("Ebelsberg", &names(), &lines, &LogFilter::default());
        assert_eq!(
            text,
            "Dice log: Ebelsberg\n\n\
             #3 T1 French · 1er de ligne · to hit FIRE-14: 4 6 2 5 (needs 4+)\n    \
             FIRE-08  4 stands firing (+4)\n\
             #3 T1 French · IR 4 · save FIRE-17: 6 [die 5 of 5 typed in]\n"
        );
    }

    #[test]
    fn the_filter_keeps_one_side_or_one_unit_and_says_so() {
        let lines = vec![
            roll(0, "1er de ligne", "to hit", &[1]),
            roll(1, "IR 4", "to hit", &[2]),
            roll(1, "IR 9", "to hit", &[3]),
        ];
        let side = LogFilter {
            side: Some(1),
            unit: None,
        };
        let text = log_text("E", &names(), &lines, &side);
        assert!(text.starts_with("Dice log: E (Austrians only)\n\n"));
        assert!(!text.contains("1er de ligne"));
        assert_eq!(text.matches("to hit").count(), 2);
        let unit = LogFilter {
            side: None,
            unit: Some("IR 9".into()),
        };
        let text = log_text("E", &names(), &lines, &unit);
        assert_eq!(
            text,
            "Dice log: E (IR 9 only)\n\n\
             #3 T1 French · IR 9 · to hit FIRE-14: 3 (needs 4+)\n    \
             FIRE-08  4 stands firing (+4)\n"
        );
        let none = LogFilter {
            side: Some(0),
            unit: Some("IR 9".into()),
        };
        assert!(log_text("E", &names(), &lines, &none).ends_with("No rolls.\n"));
    }

    #[test]
    fn faces_typed_words_and_file_names() {
        assert_eq!(faces(&[1, 6, 9]), "⚀ ⚅ ?");
        assert_eq!(typed_words((1, 3, 5)), "dice 1–3 of 5 typed in");
        assert_eq!(typed_words((2, 2, 2)), "die 2 of 2 typed in");
        assert_eq!(
            file_name("Ebelsberg, 3 May 1809"),
            "ebelsberg-3-may-1809-dice.txt"
        );
        assert_eq!(file_name("!!"), "battle-dice.txt");
    }
}
