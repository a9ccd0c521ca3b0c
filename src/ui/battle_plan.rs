//! "The computer's plan": on the battle page of a battle the computer plays a side
//! of, each of its command units' task (attack, assault, hold, screen, reserve) and why, as the
//! solo opponent reads the table now (`ai::plan::side_plan`, the same plan it plays by, and the
//! lines `battle autoplay --explain` prints). Folded away until opened, and worked out only
//! while it is open. With fog of war on it is not shown: the plan counts enemy units the player
//! may not see, and would give them away.

use super::battle::BattlePanel;
use super::View;
use egui::{RichText, Ui};

/// The heading of the fold.
pub const HEADING: &str = "The computer's plan";

/// The computer's plan for each side it plays, one line per command unit.
pub fn lines(engine: &crate::rules::Battle, side: usize) -> Vec<String> {
    crate::ai::plan::side_plan(&engine.ctx(), side)
        .tasks
        .iter()
        .map(|t| format!("{} — {}: {}", t.name, t.task.label(), t.why))
        .collect()
}

/// The fold on the battle page's left panel (nothing when no side is the computer's, or the
/// battle is over).
pub fn show(ui: &mut Ui, view: &View, panel: &BattlePanel) {
    let Some(engine) = view.engine else {
        return;
    };
    if panel.ended || !panel.computer_sides.iter().any(|c| *c) {
        return;
    }
    ui.add_space(6.0);
    egui::CollapsingHeader::new(RichText::new(HEADING).strong())
        .id_salt("computer-plan")
        .default_open(false)
        .show(ui, |ui| {
            if panel.fog.is_some() {
                ui.label(
                    RichText::new(
                        "Hidden while fog of war is on: the plan counts enemy units you may \
                         not see.",
                    )
                    .color(super::widgets::palette::FAINT),
                );
                return;
            }
            for (side, _) in panel.computer_sides.iter().enumerate().filter(|(_, c)| **c) {
                let name = panel.side_names.get(side).cloned().unwrap_or_default();
                ui.label(RichText::new(name).color(super::battle_result::side_colour(side)));
                for line in lines(engine, side) {
                    ui.label(RichText::new(line).small());
                }
            }
        });
}
