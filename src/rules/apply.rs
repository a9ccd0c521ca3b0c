//! `apply`: the only code that changes a [`BattleState`]. It rolls no dice and recomputes
//! nothing random; it copies the results an event carries into the state.

use super::event::Event;
use super::state::{BattleState, Phase};

/// Applies one event. Events that name a piece not in the state change nothing (a log is only
/// ever applied to the state it was made from, so this cannot happen in a consistent log).
pub fn apply(state: &mut BattleState, event: &Event) {
    match event {
        Event::TurnBegan {
            game_turn,
            player_turn,
            active,
        } => {
            state.turn.game_turn = *game_turn;
            state.turn.player_turn = *player_turn;
            state.turn.active = *active;
        }
        Event::PhaseBegan { phase } => state.turn.phase = *phase,
        Event::PhaseEnded { .. } | Event::GameTurnEnded { .. } | Event::DiceRolled { .. } => {}
        Event::Moved { piece, to, .. } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.pose = Some(*to);
            }
        }
        Event::FormationChanged { piece, to, .. } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.formation = *to;
            }
        }
        Event::Limbered { piece } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.limbered = true;
            }
        }
        Event::Unlimbered { piece, facing_deg } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.limbered = false;
                if let Some(pose) = p.pose.as_mut() {
                    pose.facing_deg = *facing_deg;
                }
            }
        }
        Event::Conceded { side } => {
            if let Some(s) = state.sides.get_mut(*side) {
                s.conceded = true;
            }
        }
        Event::BattleEnded { .. } => state.turn.phase = Phase::Over,
    }
}

/// Folds a sequence of events over a state.
pub fn apply_all<'a>(state: &mut BattleState, events: impl IntoIterator<Item = &'a Event>) {
    for e in events {
        apply(state, e);
    }
}
