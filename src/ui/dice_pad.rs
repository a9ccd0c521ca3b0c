//! The referee's dice pad (issue #17 item 5): in a battle played with physical dice, an action
//! that needs dice waits on the pad, which says what they are for (the engine's purposes and
//! counts, [`crate::rules::Battle::dice_needed`]); the referee enters the dice rolled on the
//! table with the keys 1–6 or the six d6 buttons (Backspace takes the last back), and the pad
//! checks them with the engine (each a d6, not too few, not too many) before the action goes
//! to the app with them. A refused entry says why and sends nothing.

use super::dice_log::face;
use super::widgets::RichTextExt as _;
use super::widgets::{palette, Emitter};
use super::AppCommand;
use crate::rules::dice::{self, DiceError};
use crate::rules::{Action, Battle};
use egui::{RichText, Ui};

/// The pad between frames.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DicePad {
    /// The action waiting for its dice.
    pub action: Option<Action>,
    /// The dice entered so far, in the order rolled.
    pub dice: Vec<u8>,
    /// Why the last entry was refused.
    pub problem: Option<String>,
    /// The action whose dice passed the check, to be sent after the page drew ([`route`]).
    confirmed: Option<Action>,
}

impl DicePad {
    /// Adds a die as typed: 1–6 go in; anything else is refused with a message.
    pub fn key(&mut self, value: u8) {
        if (1..=6).contains(&value) {
            self.dice.push(value);
            self.problem = None;
        } else {
            self.problem = Some(format!(
                "{value} is not a face of a d6: enter each die as 1 to 6"
            ));
        }
    }

    pub fn back(&mut self) {
        self.dice.pop();
        self.problem = None;
    }

    fn reset(&mut self) {
        *self = DicePad::default();
    }
}

/// Checks dice entered for `action` with the engine: each a d6, exactly as many as the action
/// draws (later rolls may depend on earlier ones: the count is worked out from the dice given).
/// The error is the engine's message, or its refusal of the action.
pub fn check(engine: &Battle, action: &Action, entered: &[u8]) -> Result<(), String> {
    dice::check_entered(entered).map_err(|e| e.to_string())?;
    let needs = engine
        .dice_needed(action, entered)
        .map_err(|e| format!("Refused: {e}"))?;
    let used: usize = needs.iter().map(|(_, n)| n).sum();
    let given = entered.len();
    if given < used {
        return Err(DiceError::Needed { given, needs }.to_string());
    }
    if given > used {
        return Err(DiceError::TooMany { given, used, needs }.to_string());
    }
    Ok(())
}

/// Takes out of `out.commands[from..]` the battle actions that need dice and parks the last
/// of them on the pad; actions that need none (or that the engine refuses: the app says why)
/// go on as they are. Then sends the action whose dice the pad accepted this frame. Called
/// after the battle page drew, in physical-dice battles only.
pub fn route(engine: &Battle, pad: &mut DicePad, out: &mut Emitter, from: usize) {
    let mut i = from;
    while i < out.commands.len() {
        let needs_dice = match out.commands.get(i) {
            Some(AppCommand::BattleAction(a)) => engine
                .dice_needed(a, &[])
                .is_ok_and(|n| n.iter().any(|(_, k)| *k > 0)),
            _ => false,
        };
        if needs_dice {
            if let AppCommand::BattleAction(a) = out.commands.remove(i) {
                if pad.action.as_ref() != Some(&a) {
                    pad.dice.clear();
                }
                pad.action = Some(a);
                pad.problem = None;
            }
        } else {
            i += 1;
        }
    }
    if let Some(a) = pad.confirmed.take() {
        out.send(AppCommand::BattleAction(a));
    }
}

/// The action in a few words, for the pad's heading.
pub fn action_words(engine: &Battle, action: &Action) -> String {
    let name = |id| {
        engine
            .state()
            .piece(id)
            .map_or_else(|| "a unit".to_string(), |p| p.name.clone())
    };
    match action {
        Action::Fire { firers, target, .. } => match firers.as_slice() {
            [one] => format!("{} fires at {}", name(*one), name(*target)),
            _ => format!("{} units fire at {}", firers.len(), name(*target)),
        },
        Action::OpportunityFire { target, .. } => format!("opportunity fire at {}", name(*target)),
        Action::Charge {
            chargers, target, ..
        } => match chargers.as_slice() {
            [one] => format!("{} charges {}", name(*one), name(*target)),
            _ => format!("{} units charge {}", chargers.len(), name(*target)),
        },
        Action::IssueOrder { .. } => "an order (the command roll)".to_string(),
        Action::SelfOrder { piece } => format!("{} orders itself", name(*piece)),
        Action::Move { piece, .. } => format!("{} moves", name(*piece)),
        Action::EndPhase => "ending the phase".to_string(),
        Action::ResolveCharge { target } => format!("the fight at {}", name(*target)),
        _ => "the action chosen".to_string(),
    }
}

/// The pad (drawn only in physical-dice battles).
pub fn show(ui: &mut Ui, engine: Option<&Battle>, pad: &mut DicePad, dice_field: &mut String) {
    let Some(engine) = engine else {
        return;
    };
    let Some(action) = pad.action.clone() else {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new("Dice pad").bold());
            ui.label(
                RichText::new(
                    "Physical dice: pick an action and the pad will say what its dice are for.",
                )
                .color(palette::FAINT),
            );
        });
        return;
    };
    // Keys: 1–6 enter a die, other digits are refused, Backspace takes one back, Enter sends.
    let mut send = false;
    if !ui.ctx().text_edit_focused() {
        let keys: Vec<egui::Key> = ui.ctx().input(|i| {
            i.events
                .iter()
                .filter_map(|e| match e {
                    egui::Event::Key {
                        key, pressed: true, ..
                    } => Some(*key),
                    _ => None,
                })
                .collect()
        });
        for key in keys {
            use egui::Key as K;
            let digit = [
                K::Num0,
                K::Num1,
                K::Num2,
                K::Num3,
                K::Num4,
                K::Num5,
                K::Num6,
                K::Num7,
                K::Num8,
                K::Num9,
            ]
            .iter()
            .position(|k| *k == key);
            match (digit, key) {
                (Some(d), _) => pad.key(u8::try_from(d).unwrap_or(0)),
                (None, K::Backspace) => pad.back(),
                (None, K::Enter) => send = true,
                _ => {}
            }
        }
    }
    let needs = engine.dice_needed(&action, &pad.dice);
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Dice pad").bold());
        ui.label(RichText::new(format!("for {}", action_words(engine, &action))).strong());
        match &needs {
            Ok(n) => {
                let total: usize = n.iter().map(|(_, k)| k).sum();
                ui.label(format!(
                    "· roll {}: {}",
                    if total == 1 {
                        "1 die".to_string()
                    } else {
                        format!("{total} dice")
                    },
                    dice::needs_list(n)
                ));
                ui.label(
                    RichText::new(format!("({} entered)", pad.dice.len())).color(palette::FAINT),
                );
            }
            Err(e) => {
                ui.label(RichText::new(format!("Refused: {e}")).color(palette::ERROR));
            }
        }
    });
    ui.horizontal_wrapped(|ui| {
        for v in 1..=6u8 {
            let text = RichText::new(format!("{} {v}", face(v))).size(18.0);
            if ui
                .button(text)
                .on_hover_text(format!("A die showing {v} (key {v})"))
                .clicked()
            {
                pad.key(v);
            }
        }
        ui.separator();
        if ui
            .add_enabled(!pad.dice.is_empty(), egui::Button::new("⌫ Back"))
            .on_hover_text("Take back the last die (Backspace)")
            .clicked()
        {
            pad.back();
        }
        ui.label(
            RichText::new(if pad.dice.is_empty() {
                "no dice yet".to_string()
            } else {
                super::dice_log::faces(&pad.dice)
            })
            .size(18.0),
        )
        .on_hover_text(
            pad.dice
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        );
        ui.separator();
        if ui
            .button(RichText::new("Roll them in").bold())
            .on_hover_text("Check the dice with the rules and perform the action (Enter)")
            .clicked()
        {
            send = true;
        }
        if ui
            .button("Cancel")
            .on_hover_text("Drop this action; nothing happens")
            .clicked()
        {
            pad.reset();
        }
    });
    if let Some(p) = &pad.problem {
        ui.label(RichText::new(p).color(palette::ERROR));
    }
    if send {
        match check(engine, &action, &pad.dice) {
            Ok(()) => {
                *dice_field = pad
                    .dice
                    .iter()
                    .map(u8::to_string)
                    .collect::<Vec<_>>()
                    .join(",");
                pad.reset();
                pad.confirmed = Some(action);
            }
            Err(why) => pad.problem = Some(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_take_faces_and_refuse_anything_else() {
        let mut pad = DicePad::default();
        pad.key(4);
        pad.key(7);
        assert_eq!(pad.dice, vec![4]);
        assert_eq!(
            pad.problem.as_deref(),
            Some("7 is not a face of a d6: enter each die as 1 to 6")
        );
        pad.key(6);
        assert!(pad.problem.is_none());
        pad.back();
        pad.key(0);
        assert_eq!(pad.dice, vec![4]);
        assert!(pad.problem.is_some());
    }
}
