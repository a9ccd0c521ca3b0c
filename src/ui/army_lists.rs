//! The army-list browser: pick a list, read its troop chart and command chart as the rulebook
//! prints them (with our corrections marked and explained), read the special rules, and add a
//! user troop type to any list.
//!
//! Shipped rows are read-only; rows added in this database are marked "user" and can be
//! removed. The form below the chart is UI state ([`TroopDraft`]) until "Add troop type" turns
//! it into a [`TroopType`] and emits [`AppCommand::AddUserTroopType`]; the app stores it.
//! No store access here.

use super::commands::{AppCommand, Verb};
use super::widgets::{self, palette, section, Emitter, NamedInput as _, RichTextExt as _};
use super::{UiState, View};
use crate::model::{
    Arm, ArmyList, Attack, Correction, Limit, Move, Period, RowRole, Save, TroopType, TroopTypeId,
};
use egui::{RichText, Ui};

/// The "new troop type" form, kept between frames.
#[derive(Debug, Clone, PartialEq)]
pub struct TroopDraft {
    pub name: String,
    pub arm: Arm,
    pub move_cm: u32,
    pub attacks: bool,
    pub dice: u8,
    pub range_cm: u32,
    pub hits: u8,
    /// 0 = no save; otherwise 2..=6.
    pub save: u8,
    pub points: u32,
    /// Blank or "-" = no limit.
    pub min: String,
    pub max: String,
    /// Special-rule numbers, e.g. "3, 7".
    pub notes: String,
    pub error: Option<String>,
}

impl Default for TroopDraft {
    fn default() -> Self {
        TroopDraft {
            name: String::new(),
            arm: Arm::Infantry,
            move_cm: 10,
            attacks: true,
            dice: 1,
            range_cm: 15,
            hits: 3,
            save: 0,
            points: 50,
            min: String::new(),
            max: String::new(),
            notes: String::new(),
            error: None,
        }
    }
}

fn parse_limit_cell(s: &str, what: &str) -> Result<Option<u32>, String> {
    let t = s.trim();
    if t.is_empty() || t == "-" {
        return Ok(None);
    }
    t.parse::<u32>()
        .map(Some)
        .map_err(|_| format!("{what} must be a whole number or blank, not '{t}'"))
}

impl TroopDraft {
    /// The troop type this form describes, for `list`; or what is wrong with the form.
    pub fn to_troop_type(&self, list: &ArmyList) -> Result<TroopType, String> {
        let name = self.name.trim();
        if name.is_empty() {
            return Err("Give the troop type a name.".into());
        }
        if list
            .troop_types
            .iter()
            .any(|t| t.name.eq_ignore_ascii_case(name))
        {
            return Err(format!("'{name}' is already in this list's troop chart."));
        }
        if self.hits == 0 {
            return Err("Hits must be at least 1.".into());
        }
        let save = match self.save {
            0 => None,
            n => Some(Save::new(n)?),
        };
        let min = parse_limit_cell(&self.min, "Min")?;
        let max = parse_limit_cell(&self.max, "Max")?;
        if let (Some(a), Some(b)) = (min, max) {
            if a > b {
                return Err(format!("Min {a} is more than max {b}."));
            }
        }
        let mut notes = Vec::new();
        for part in self
            .notes
            .split([',', ' '])
            .filter(|p| !p.trim().is_empty())
        {
            let n: u32 = part.trim().parse().map_err(|_| {
                format!("Notes are special-rule numbers such as '3, 7', not '{part}'")
            })?;
            if list.special_rule(n).is_none() {
                return Err(format!("List '{}' has no special rule {n}.", list.name));
            }
            notes.push(n);
        }
        Ok(TroopType {
            id: unique_user_id(list, name),
            name: name.to_string(),
            arm: self.arm,
            movement: if self.move_cm == 0 {
                Move::Immobile
            } else {
                Move::Cm(self.move_cm)
            },
            attack: self.attacks.then_some(Attack::Ranged {
                dice: self.dice,
                range_cm: self.range_cm,
            }),
            hits: self.hits,
            save,
            points: Some(self.points),
            limit: (min.is_some() || max.is_some()).then_some(Limit { min, max }),
            notes,
            role: RowRole::Unit,
            grade: Default::default(),
            grade_optional: false,
            years: None,
            corrections: Vec::new(),
        })
    }
}

/// "user-" + a slug of the name, unique within the list.
fn unique_user_id(list: &ArmyList, name: &str) -> TroopTypeId {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_matches('-');
    let base = format!("user-{}", if slug.is_empty() { "row" } else { slug });
    let mut id = base.clone();
    let mut n = 2;
    while list.troop_types.iter().any(|t| t.id.as_str() == id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    TroopTypeId::new(id)
}

pub fn page(ui: &mut Ui, view: &View<'_>, state: &mut UiState, out: &mut Emitter) {
    if state.list.is_none() {
        state.list = view.lists.first().map(|l| l.id.clone());
    }
    egui::Panel::left("list-picker")
        .default_size(270.0)
        .frame(
            egui::Frame::new()
                .fill(palette::PANEL)
                .inner_margin(egui::Margin::same(10)),
        )
        .show(ui, |ui| picker(ui, view, state));
    egui::CentralPanel::default().show(ui, |ui| {
        let Some(list) = state.list.as_ref().and_then(|id| view.list(id)) else {
            ui.label("No army list selected.");
            return;
        };
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| list_page(ui, view, list, state, out));
    });
}

fn picker(ui: &mut Ui, view: &View<'_>, state: &mut UiState) {
    ui.label(
        RichText::new("ARMY LISTS")
            .bold()
            .size(12.5)
            .color(palette::BLUE),
    );
    ui.add(
        egui::TextEdit::singleline(&mut state.list_filter)
            .hint_text("Filter lists")
            .desired_width(f32::INFINITY),
    );
    ui.add_space(4.0);
    let filter = state.list_filter.to_lowercase();
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let mut periods: Vec<Period> = view.lists.iter().map(|l| l.period).collect();
            periods.dedup();
            for period in periods {
                let lists: Vec<&ArmyList> = view
                    .lists
                    .iter()
                    .filter(|l| l.period == period && l.name.to_lowercase().contains(&filter))
                    .collect();
                if lists.is_empty() {
                    continue;
                }
                ui.add_space(6.0);
                ui.label(RichText::new(period.label()).bold().color(palette::FAINT));
                for l in lists {
                    let selected = state.list.as_ref() == Some(&l.id);
                    let mut text = RichText::new(&l.name);
                    if !l.complete {
                        text = text.color(palette::FAINT);
                    }
                    let resp = ui.selectable_label(selected, text);
                    let resp = if l.complete {
                        resp
                    } else {
                        resp.on_hover_text(widgets::players_words(
                            l.incomplete_reason.as_deref().unwrap_or("incomplete"),
                        ))
                    };
                    if resp.clicked() {
                        state.list = Some(l.id.clone());
                        state.troop_draft.error = None;
                    }
                }
            }
        });
}

fn list_page(
    ui: &mut Ui,
    view: &View<'_>,
    list: &ArmyList,
    state: &mut UiState,
    out: &mut Emitter,
) {
    ui.horizontal(|ui| {
        ui.heading(RichText::new(&list.name).bold());
        if list.user {
            ui.label(RichText::new("user list").color(palette::USER));
        }
    });
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(list.period.label()).color(palette::FAINT));
        ui.label("·");
        if list.complete {
            ui.label(RichText::new("Complete").color(palette::OK));
        } else {
            ui.label(
                RichText::new(format!(
                    "Incomplete: {}",
                    widgets::players_words(
                        list.incomplete_reason
                            .as_deref()
                            .unwrap_or("the source lacks part of it")
                    )
                ))
                .color(palette::WARN),
            );
        }
        ui.label("·");
        ui.label(
            RichText::new(format!(
                "{} troop types, {} command types",
                list.troop_types.len(),
                list.command_types.len()
            ))
            .color(palette::FAINT),
        );
    });
    if !list.organisation.is_empty() {
        ui.add_space(4.0);
        ui.add(
            egui::Label::new(RichText::new(widgets::players_words(&list.organisation)).italics())
                .wrap(),
        );
    }

    section(ui, "Troop chart");
    troop_chart(ui, view, list, out);
    ui.label(
        RichText::new(
            "Limit is min/max per full 1,500 points (ARMY-04); † marks a value corrected from the \
             printed chart (hover for why).",
        )
        .small()
        .color(palette::FAINT),
    );

    section(ui, "Special rules");
    special_rules(ui, list);

    section(ui, "Command chart");
    command_chart(ui, list);
    if !list.hq_ranges.is_empty() {
        ui.add_space(4.0);
        for r in &list.hq_ranges {
            ui.label(
                RichText::new(format!(
                    "* {} commands {} to {} infantry units (ARMY-06 b)",
                    r.level.label(),
                    r.min_inf,
                    r.max_inf
                ))
                .small(),
            );
        }
    }

    section(ui, "Add a user troop type");
    troop_form(ui, list, state, out);
    ui.add_space(20.0);
}

/// The corrections of a row that concern one column.
fn corrections_for<'a>(row: &'a TroopType, field: &str) -> Vec<&'a Correction> {
    row.corrections
        .iter()
        .filter(|c| c.field == field)
        .collect()
}

/// A cell value with a † marker and explanation where a correction applies.
fn cell(ui: &mut Ui, text: String, corrections: &[&Correction], weak: bool) {
    let rich = if weak {
        RichText::new(text).color(palette::FAINT)
    } else {
        RichText::new(text)
    };
    if corrections.is_empty() {
        ui.label(rich);
        return;
    }
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 2.0;
        ui.label(rich);
        correction_mark(ui, corrections);
    });
}

/// The † after a corrected value, its tooltip naming each correction: what was printed, what
/// we adopted and on what ground.
fn correction_mark(ui: &mut Ui, corrections: &[&Correction]) {
    let tip = corrections
        .iter()
        .map(|c| {
            format!(
                "printed {}, adopted {} ({})",
                c.printed,
                c.adopted,
                widgets::correction_words(&c.rule)
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    ui.label(RichText::new("†").bold().color(palette::WARN))
        .on_hover_text(tip);
}

fn troop_chart(ui: &mut Ui, view: &View<'_>, list: &ArmyList, out: &mut Emitter) {
    if list.troop_types.is_empty() {
        ui.label(
            RichText::new("This list has no troop chart in the source.")
                .italics()
                .color(palette::WARN),
        );
        return;
    }
    egui::Grid::new(("troop-chart", list.id.as_str()))
        .striped(true)
        .num_columns(10)
        .spacing([14.0, 4.0])
        .min_col_width(28.0)
        .show(ui, |ui| {
            for h in [
                "Troop Stand",
                "Arm",
                "Move",
                "Attack",
                "Hits",
                "Save",
                "Points",
                "Limit",
                "Notes",
                "",
            ] {
                ui.label(RichText::new(h).bold().color(palette::BLUE));
            }
            ui.end_row();
            for row in &list.troop_types {
                let user = view.user_rows.contains(&(list.id.clone(), row.id.clone()));
                let weak = !row.purchasable();
                ui.horizontal(|ui| {
                    ui.spacing_mut().item_spacing.x = 4.0;
                    let name = corrections_for(row, "name");
                    cell(ui, row.name.clone(), &name, weak);
                    if user {
                        ui.label(RichText::new("user").small().bold().color(palette::USER))
                            .on_hover_text("Added in this database");
                    }
                    match row.role {
                        RowRole::Unit => {}
                        RowRole::SkirmishProfile => {
                            ui.label(
                                RichText::new("(skirmish profile)")
                                    .small()
                                    .color(palette::FAINT),
                            );
                        }
                        RowRole::DismountedMode => {
                            ui.label(
                                RichText::new("(dismounted mode)")
                                    .small()
                                    .color(palette::FAINT),
                            );
                        }
                        RowRole::Limber => {
                            ui.label(RichText::new("(free limber)").small().color(palette::FAINT));
                        }
                    }
                });
                cell(
                    ui,
                    row.arm.label().to_string(),
                    &corrections_for(row, "arm"),
                    weak,
                );
                cell(
                    ui,
                    row.movement.to_string(),
                    &corrections_for(row, "move"),
                    weak,
                );
                cell(
                    ui,
                    row.attack
                        .map_or_else(|| "-".to_string(), |a| a.to_string()),
                    &corrections_for(row, "attack"),
                    weak,
                );
                cell(
                    ui,
                    row.hits.to_string(),
                    &corrections_for(row, "hits"),
                    weak,
                );
                cell(
                    ui,
                    row.save
                        .map_or_else(|| "None".to_string(), |s| s.to_string()),
                    &corrections_for(row, "save"),
                    weak,
                );
                cell(
                    ui,
                    row.points
                        .map_or_else(|| "-".to_string(), |p| p.to_string()),
                    &corrections_for(row, "points"),
                    weak,
                );
                cell(
                    ui,
                    row.limit.map_or_else(String::new, |l| l.to_string()),
                    &corrections_for(row, "limit"),
                    weak,
                );
                notes_cell(ui, list, row);
                if user {
                    let spec = Verb::RemoveTroopType.spec();
                    if ui
                        .small_button(spec.label)
                        .on_hover_text(format!("{} ('{}')", spec.tooltip, row.name))
                        .clicked()
                    {
                        out.send(AppCommand::RemoveUserTroopType(
                            list.id.clone(),
                            row.id.clone(),
                        ));
                    }
                } else {
                    ui.label("");
                }
                ui.end_row();
            }
        });
}

fn notes_cell(ui: &mut Ui, list: &ArmyList, row: &TroopType) {
    if row.notes.is_empty() {
        let c = corrections_for(row, "notes");
        cell(ui, String::new(), &c, false);
        return;
    }
    let text = row
        .notes
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let gists = list.note_gists(row).join("\n");
    let corrections = corrections_for(row, "notes");
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 2.0;
        ui.label(RichText::new(text).underline())
            .on_hover_text(gists);
        if !corrections.is_empty() {
            correction_mark(ui, &corrections);
        }
    });
}

fn special_rules(ui: &mut Ui, list: &ArmyList) {
    if list.special_rules.is_empty() {
        ui.label(RichText::new("None.").color(palette::FAINT));
    }
    egui::Grid::new(("special-rules", list.id.as_str()))
        .num_columns(2)
        .spacing([10.0, 3.0])
        .show(ui, |ui| {
            for r in &list.special_rules {
                ui.label(RichText::new(format!("{}.", r.no)).bold());
                ui.horizontal_wrapped(|ui| {
                    ui.set_max_width(820.0);
                    ui.label(RichText::new(&r.title).bold());
                    ui.label(&r.gist);
                });
                ui.end_row();
            }
        });
    if !list.missing_rules.is_empty() {
        let nos = list
            .missing_rules
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        ui.label(
            RichText::new(format!(
                "Notes {nos} are cited by rows but are not in the source."
            ))
            .small()
            .color(palette::WARN),
        );
    }
}

fn command_chart(ui: &mut Ui, list: &ArmyList) {
    if list.command_types.is_empty() {
        ui.label(RichText::new("No command chart.").color(palette::WARN));
        return;
    }
    egui::Grid::new(("command-chart", list.id.as_str()))
        .striped(true)
        .num_columns(10)
        .spacing([14.0, 4.0])
        .show(ui, |ui| {
            for h in [
                "HQ", "Quality", "Command", "Move", "Attack", "Hits", "Save", "Points", "Limit",
                "Notes",
            ] {
                ui.label(RichText::new(h).bold().color(palette::BLUE));
            }
            ui.end_row();
            for c in &list.command_types {
                let field = |f: &str| -> Vec<&Correction> {
                    c.corrections.iter().filter(|x| x.field == f).collect()
                };
                cell(ui, c.level.label().to_string(), &field("level"), false);
                cell(ui, c.quality.label().to_string(), &field("quality"), false);
                cell(ui, c.command.to_string(), &field("command"), false);
                cell(ui, c.movement.to_string(), &field("move"), false);
                cell(ui, format!("+{}", c.presence_dice), &field("attack"), false);
                cell(ui, c.hits.to_string(), &field("hits"), false);
                cell(
                    ui,
                    c.save.map_or_else(|| "None".to_string(), |s| s.to_string()),
                    &field("save"),
                    false,
                );
                cell(ui, c.points.to_string(), &field("points"), false);
                cell(ui, c.limit.to_string(), &field("limit"), false);
                let notes = c
                    .notes
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                let gists = c
                    .notes
                    .iter()
                    .map(|n| match list.special_rule(*n) {
                        Some(r) => format!("{n}. {}: {}", r.title, r.gist),
                        None => format!("{n}. (not in the source)"),
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                if gists.is_empty() {
                    ui.label("");
                } else {
                    ui.label(RichText::new(notes).underline())
                        .on_hover_text(gists);
                }
                ui.end_row();
            }
        });
}

fn troop_form(ui: &mut Ui, list: &ArmyList, state: &mut UiState, out: &mut Emitter) {
    let d = &mut state.troop_draft;
    ui.label(
        RichText::new(format!(
            "A new row for {}'s troop chart, saved in this database and marked \"user\".",
            list.name
        ))
        .color(palette::FAINT),
    );
    ui.add_space(4.0);
    egui::Grid::new("troop-form")
        .num_columns(4)
        .spacing([12.0, 6.0])
        .show(ui, |ui| {
            widgets::form_label(ui, "Name");
            ui.add(egui::TextEdit::singleline(&mut d.name).desired_width(220.0))
                .named("Troop name");
            widgets::form_label(ui, "Arm");
            let arms: Vec<(Arm, String)> = Arm::ALL
                .iter()
                .map(|a| (*a, a.label().to_string()))
                .collect();
            if let Some(a) = widgets::combo(ui, "draft-arm", "Arm", &d.arm, &arms, 140.0) {
                d.arm = a;
            }
            ui.end_row();

            widgets::form_label(ui, "Move (cm)");
            ui.add(egui::DragValue::new(&mut d.move_cm).range(0..=60))
                .named("Move (cm)");
            widgets::form_label(ui, "Attack");
            ui.horizontal(|ui| {
                ui.checkbox(&mut d.attacks, "Attacks");
                ui.add_enabled(
                    d.attacks,
                    egui::DragValue::new(&mut d.dice)
                        .range(1..=6)
                        .suffix(" dice"),
                )
                .named("Attack dice");
                ui.label("/");
                ui.add_enabled(
                    d.attacks,
                    egui::DragValue::new(&mut d.range_cm)
                        .range(1..=200)
                        .suffix(" cm"),
                )
                .named("Attack range (cm)");
            });
            ui.end_row();

            widgets::form_label(ui, "Hits");
            ui.add(egui::DragValue::new(&mut d.hits).range(1..=9))
                .named("Hits");
            widgets::form_label(ui, "Save");
            let saves: Vec<(u8, String)> = std::iter::once((0u8, "None".to_string()))
                .chain((2u8..=6).map(|n| (n, format!("{n}+"))))
                .collect();
            if let Some(s) = widgets::combo(ui, "draft-save", "Save", &d.save, &saves, 80.0) {
                d.save = s;
            }
            ui.end_row();

            widgets::form_label(ui, "Points per stand");
            ui.add(egui::DragValue::new(&mut d.points).range(0..=1000))
                .named("Points per stand");
            widgets::form_label(ui, "Limit min / max");
            ui.horizontal(|ui| {
                ui.add(
                    egui::TextEdit::singleline(&mut d.min)
                        .desired_width(40.0)
                        .hint_text("-"),
                )
                .named("Limit min");
                ui.label("/");
                ui.add(
                    egui::TextEdit::singleline(&mut d.max)
                        .desired_width(40.0)
                        .hint_text("-"),
                )
                .named("Limit max");
            });
            ui.end_row();

            widgets::form_label(ui, "Notes");
            ui.add(
                egui::TextEdit::singleline(&mut d.notes)
                    .desired_width(220.0)
                    .hint_text("rule numbers, e.g. 3, 7"),
            )
            .named("Notes");
            ui.label("");
            ui.label("");
            ui.end_row();
        });
    ui.add_space(4.0);
    ui.horizontal(|ui| {
        if widgets::verb_button(ui, Verb::AddTroopType, true) {
            match d.to_troop_type(list) {
                Ok(t) => {
                    out.send(AppCommand::AddUserTroopType(list.id.clone(), t));
                    *d = TroopDraft {
                        arm: d.arm,
                        ..TroopDraft::default()
                    };
                }
                Err(e) => d.error = Some(e),
            }
        }
        if let Some(e) = &d.error {
            ui.label(RichText::new(e).color(palette::ERROR));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::army::shipped_lists;

    #[test]
    fn draft_becomes_a_user_row_with_a_unique_id() {
        let lists = shipped_lists().unwrap();
        let list = lists.iter().find(|l| !l.troop_types.is_empty()).unwrap();
        let d = TroopDraft {
            name: "Grenz Sharpshooters".into(),
            save: 5,
            min: "".into(),
            max: "2".into(),
            ..TroopDraft::default()
        };
        let t = d.to_troop_type(list).unwrap();
        assert_eq!(t.id.as_str(), "user-grenz-sharpshooters");
        assert_eq!(t.save.map(|s| s.target()), Some(5));
        assert_eq!(
            t.limit,
            Some(Limit {
                min: None,
                max: Some(2)
            })
        );
        assert!(t.purchasable());
    }

    #[test]
    fn draft_rejects_bad_cells() {
        let lists = shipped_lists().unwrap();
        let list = &lists[0];
        let bad_name = TroopDraft::default();
        assert!(bad_name.to_troop_type(list).is_err());
        let bad_limit = TroopDraft {
            name: "X".into(),
            min: "three".into(),
            ..TroopDraft::default()
        };
        assert!(bad_limit.to_troop_type(list).unwrap_err().contains("Min"));
        let bad_note = TroopDraft {
            name: "X".into(),
            notes: "999".into(),
            ..TroopDraft::default()
        };
        assert!(bad_note.to_troop_type(list).unwrap_err().contains("999"));
    }
}
