//! The battle page's controls for two optional rules (issue #21 item 1): scouting cavalry
//! (OPT-SCOUT-01..03) and multi-player communication rolls (OPT-MULTI-01..02), for the unit
//! selected on the table. Every button is an [`Action`] the engine offers in
//! [`Battle::options`] (each offer already passed `check`), so nothing here decides a rule:
//!
//! * a cavalry unit that may send a scout out during deployment: "Send a scout ahead" (the
//!   scout is placed 8 cm in front of the unit; the battle file places it anywhere);
//! * a scout not yet launched: "Launch with …" for each command unit that may roll for it;
//! * a command unit of the active side: "Communicate…" with a one-way message and a two-way
//!   talk with each team-mate's command unit the engine accepts, and the last grant of this
//!   player turn as "X may speak to Y for 35 s" (the engine records only the seconds).
//!
//! Layering: `ui`; reads `rules`, must not import `crate::store`, `crate::app`, `rusqlite`,
//! `rfd` or `std::fs`.

use super::widgets::Emitter;
use super::AppCommand;
use crate::geom::Point;
use crate::model::OptionalRule;
use crate::rules::event::Event;
use crate::rules::{Action, Battle, Phase, PieceId, Pose};
use egui::{RichText, Ui};

fn name_of(engine: &Battle, id: PieceId) -> String {
    engine
        .state()
        .piece(id)
        .map_or_else(|| id.to_string(), |p| p.name.clone())
}

fn button(ui: &mut Ui, text: &str, hint: &str, action: Action, out: &mut Emitter) {
    if ui.button(text).on_hover_text(hint).clicked() {
        out.send(AppCommand::BattleAction(action));
    }
}

/// The scouting and communication controls of `piece`, when it has any. Asks the engine's
/// `check` only for the few actions that can apply (the option on, the right kind of piece),
/// the same offers [`Battle::options`] makes.
pub fn panel(ui: &mut Ui, engine: &Battle, piece: PieceId, out: &mut Emitter) {
    let scenario = engine.scenario();
    let scouting = scenario.optional_rules.contains(&OptionalRule::Scouting);
    let comms = scenario
        .optional_rules
        .contains(&OptionalRule::MultiplayerComms);
    if !scouting && !comms {
        return;
    }
    let st = engine.state();
    let ok = |a: &Action| engine.check(a).is_ok();
    let command_units: Vec<PieceId> = st
        .pieces
        .keys()
        .filter(|id| id.is_command() && id.side() == piece.side())
        .copied()
        .collect();
    let deploy_scout = scouting && st.turn.phase == Phase::Deployment && !piece.is_command();
    let unlaunched = scouting
        && st
            .scouts
            .get(piece)
            .is_some_and(|s| !s.launched && !s.withdrawn);
    let launch_by: Vec<PieceId> = if unlaunched {
        command_units
            .iter()
            .filter(|c| {
                ok(&Action::LaunchScout {
                    command: **c,
                    scout: piece,
                })
            })
            .copied()
            .collect()
    } else {
        Vec::new()
    };
    let communicate: Vec<Option<PieceId>> = if comms && piece.is_command() {
        std::iter::once(None)
            .chain(
                command_units
                    .iter()
                    .filter(|c| **c != piece)
                    .map(|c| Some(*c)),
            )
            .filter(|partner| {
                ok(&Action::Communicate {
                    command: piece,
                    partner: *partner,
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    if deploy_scout {
        if let Some(pose) = st.piece(piece).and_then(|p| p.pose) {
            let rad = pose.facing_deg.to_radians();
            let at = Point::new(pose.at.x + 8.0 * rad.sin(), pose.at.y + 8.0 * rad.cos());
            let action = Action::DeployScout {
                piece,
                at: Pose {
                    at,
                    facing_deg: pose.facing_deg,
                },
            };
            if ok(&action) {
                button(
                    ui,
                    "Send a scout ahead",
                    "One stand leaves the unit for good as a scout, 8 cm ahead (OPT-SCOUT-01)",
                    action,
                    out,
                );
            }
        }
    }
    if !launch_by.is_empty() {
        ui.horizontal_wrapped(|ui| {
            for command in &launch_by {
                button(
                    ui,
                    &format!("Launch with {}", name_of(engine, *command)),
                    "The scout's initial command roll; once passed it moves without orders \
                     (OPT-SCOUT-02)",
                    Action::LaunchScout {
                        command: *command,
                        scout: piece,
                    },
                    out,
                );
            }
        });
    }
    if !communicate.is_empty() {
        egui::CollapsingHeader::new("Communicate…")
            .id_salt(("communicate", piece))
            .show(ui, |ui| {
                for partner in &communicate {
                    let (text, hint) = match partner {
                        None => (
                            "One-way message".to_string(),
                            "A command roll; on success speak, without reply, for 1D6 × 5 s \
                             (OPT-MULTI-02)",
                        ),
                        Some(p) => (
                            format!("Talk with {}", name_of(engine, *p)),
                            "Both roll; if both succeed, talk for 1D6 × 10 s (OPT-MULTI-02)",
                        ),
                    };
                    button(
                        ui,
                        &text,
                        hint,
                        Action::Communicate {
                            command: piece,
                            partner: *partner,
                        },
                        out,
                    );
                }
            });
    }
    if let Some(text) = last_grant(engine) {
        ui.label(RichText::new(text).strong());
    }
}

/// The last communication granted in this player turn, in words.
pub fn last_grant(engine: &Battle) -> Option<String> {
    let turn = engine.state().turn.player_turn;
    let mut in_turn = false;
    let mut last = None;
    for e in engine.events() {
        match e {
            Event::TurnBegan { player_turn, .. } => {
                in_turn = *player_turn == turn;
                last = None;
            }
            Event::Communicated { .. } if in_turn => last = Some(e),
            _ => {}
        }
    }
    last.and_then(|e| crate::rules::comms::grant_text(engine.state(), e))
}
