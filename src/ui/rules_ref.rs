//! The Rules page: every rule of the catalogue and every data check in our own words
//! ([`crate::rules::gist`]), browsable by family and searchable. A click on a rule ID in the
//! dice log opens this page at that rule ([`RulesRef::open`]).

use super::widgets::palette;
use super::widgets::RichTextExt as _;
use super::UiState;
use crate::rules::gist::{self, RuleGist};
use egui::{RichText, Ui};

/// What the Rules page shows: a family, a search, the rule opened from elsewhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RulesRef {
    pub search: String,
    /// Only this family ("FIRE"); `None`: all.
    pub family: Option<String>,
    /// The rule opened (highlighted and scrolled to once).
    pub selected: Option<String>,
    scroll: bool,
}

impl RulesRef {
    /// Opens the page at `rule` ("FIRE-28 (b)" opens FIRE-28): its family, no search.
    pub fn open(&mut self, rule: &str) {
        let id = gist::id_of(rule).to_string();
        self.family = Some(gist::family_of(&id).to_string());
        self.search.clear();
        self.selected = Some(id);
        self.scroll = true;
    }
}

/// Does a rule match the search? Every word of the query must be in its ID, title or text
/// (any case).
pub fn matches(g: &RuleGist, query: &str) -> bool {
    let hay = format!("{} {} {}", g.id, g.title, g.text).to_lowercase();
    query
        .split_whitespace()
        .all(|w| hay.contains(&w.to_lowercase()))
}

/// The rules shown for a family and a search, in the rulebook's order.
pub fn shown(family: Option<&str>, query: &str) -> Vec<RuleGist> {
    gist::all()
        .filter(|g| family.is_none_or(|f| gist::family_of(g.id) == f))
        .filter(|g| matches(g, query))
        .collect()
}

pub fn page(ui: &mut Ui, state: &mut UiState) {
    let r = &mut state.rules_ref;
    egui::Panel::left("rule-families")
        .default_size(230.0)
        .frame(
            egui::Frame::new()
                .fill(palette::PANEL)
                .inner_margin(egui::Margin::same(10)),
        )
        .show(ui, |ui| {
            ui.label(RichText::new("Families").bold());
            egui::ScrollArea::vertical()
                .id_salt("rule-families")
                .show(ui, |ui| {
                    let all = gist::all().count();
                    if ui
                        .selectable_label(r.family.is_none(), format!("All rules ({all})"))
                        .clicked()
                    {
                        r.family = None;
                    }
                    for (f, words) in gist::FAMILIES {
                        let n = gist::all().filter(|g| gist::family_of(g.id) == *f).count();
                        let chosen = r.family.as_deref() == Some(*f);
                        if ui
                            .selectable_label(chosen, format!("{f} ({n})"))
                            .on_hover_text(*words)
                            .clicked()
                        {
                            r.family = Some((*f).to_string());
                        }
                    }
                });
        });
    egui::CentralPanel::default().show(ui, |ui| {
        ui.heading(RichText::new("Rules reference").bold());
        ui.label(
            RichText::new(
                "Black Powder Tactical Commander as the app plays it, each rule in a sentence or two \
                 of our own. The IDs are the ones the dice log and refusals cite.",
            )
            .color(palette::FAINT),
        );
        ui.horizontal(|ui| {
            let label = ui.label("Search rules");
            ui.add(
                egui::TextEdit::singleline(&mut r.search)
                    .hint_text("e.g. square, FIRE-14, suppressed")
                    .desired_width(260.0),
            )
            .labelled_by(label.id);
            if !r.search.is_empty() && ui.button("Clear").clicked() {
                r.search.clear();
            }
        });
        if let Some(f) = r.family.as_deref().and_then(gist::family_words) {
            ui.label(RichText::new(f).italics());
        }
        ui.separator();
        let list = shown(r.family.as_deref(), &r.search);
        egui::ScrollArea::vertical()
            .id_salt("rules-list")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                if list.is_empty() {
                    ui.label("No rule matches the search: try fewer or other words.");
                }
                for g in &list {
                    let chosen = r.selected.as_deref() == Some(g.id);
                    let frame = egui::Frame::new()
                        .fill(if chosen {
                            egui::Color32::from_rgb(0xf3, 0xe9, 0xc6)
                        } else {
                            palette::CARD
                        })
                        .inner_margin(egui::Margin::same(6));
                    let resp = frame
                        .show(ui, |ui| {
                            ui.set_width(ui.available_width());
                            ui.horizontal_wrapped(|ui| {
                                ui.label(
                                    RichText::new(g.id).monospace().strong().color(palette::BLUE),
                                );
                                ui.label(RichText::new(g.title).bold());
                            });
                            ui.label(g.text);
                        })
                        .response;
                    if chosen && r.scroll {
                        resp.scroll_to_me(Some(egui::Align::TOP));
                        r.scroll = false;
                    }
                    ui.add_space(2.0);
                }
            });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_and_family_narrow_the_list() {
        let squares = shown(None, "square");
        assert!(squares.iter().any(|g| g.id == "MOVE-15"));
        assert!(squares.iter().all(|g| matches(g, "SQUARE")));
        let fire = shown(Some("FIRE"), "");
        assert!(fire.len() >= 33 && fire.iter().all(|g| g.id.starts_with("FIRE-")));
        assert_eq!(
            shown(None, "fire-14")
                .iter()
                .map(|g| g.id)
                .collect::<Vec<_>>(),
            vec!["FIRE-14"]
        );
        assert!(shown(Some("VP"), "zebra").is_empty());
    }

    #[test]
    fn opening_a_cited_rule_selects_it_in_its_family() {
        let mut r = RulesRef {
            search: "old".into(),
            ..Default::default()
        };
        r.open("FIRE-28 (b)");
        assert_eq!(r.selected.as_deref(), Some("FIRE-28"));
        assert_eq!(r.family.as_deref(), Some("FIRE"));
        assert!(r.search.is_empty());
    }
}
