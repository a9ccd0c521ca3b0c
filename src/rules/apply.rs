//! `apply`: the only code that changes a [`BattleState`]. It rolls no dice and recomputes
//! nothing random; it copies the results an event carries into the state.

use super::event::Event;
use super::state::{BattleState, Phase, PieceId};
use super::victory::Loss;

/// Applies one event. Events that name a piece not in the state change nothing (a log is only
/// ever applied to the state it was made from, so this cannot happen in a consistent log).
pub fn apply(state: &mut BattleState, event: &Event) {
    // MOVE-30: a unit that moves or changes formation stands straight again. After every event
    // each refused unit stands where it refused, so only the pieces an event may move, re-form
    // or knock out need watching: none for some events, those it names for others
    // ([`changes_sight_of`]: the fields watched are among those sight sees), all for the rest.
    let refused = if leaves_flanks_alone(event) {
        Vec::new()
    } else {
        match changes_sight_of(event) {
            Some(ids) => super::flank::before_event_of(state, ids),
            None => super::flank::before_event(state),
        }
    };
    match event {
        Event::TurnBegan {
            game_turn,
            player_turn,
            active,
        } => {
            state.turn.game_turn = *game_turn;
            state.turn.player_turn = *player_turn;
            state.turn.active = *active;
            super::command::on_turn_began(state);
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
        Event::Fired { firers, .. } => {
            for f in firers {
                if let Some(p) = state.pieces.get_mut(f) {
                    p.has_fired = true;
                }
            }
        }
        Event::HitsScored { .. }
        | Event::Saved { .. }
        | Event::FallBackRequired { .. }
        | Event::ShellLanded { .. }
        | Event::NoEffect { .. } => {}
        Event::HitsTaken { piece, total, .. } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.hits = *total;
            }
        }
        Event::Suppressed { piece, player_turn } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.suppressed_at = Some(*player_turn);
            }
        }
        Event::FellBack { piece, to, .. } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.pose = Some(*to);
            }
        }
        Event::UnitKnockedOut { piece, cause } => {
            // GEN-12 ruling: out at once, and counted at once for the breakpoint (BRK-01 counts
            // non-command units only).
            let newly = state
                .pieces
                .get_mut(piece)
                .is_some_and(|p| !std::mem::replace(&mut p.knocked_out, true));
            // OPT-SCOUT-03: a scout never counts towards the breakpoint or VPs.
            let newly = newly && !state.scouts.is_scout(*piece);
            if newly && !piece.is_command() {
                if let Some(s) = state.sides.get_mut(piece.side()) {
                    s.units_lost += 1;
                }
            }
            // VP-01: every knock-out is worth its cost to the opponent, command units included.
            if newly {
                state.ledger.record(
                    piece.side(),
                    Loss::Piece {
                        piece: *piece,
                        cause: cause.clone(),
                    },
                );
            }
        }
        Event::StandsLost {
            piece,
            stands_left,
            engineer_lost,
            ..
        } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.stands = *stands_left;
            }
            if *engineer_lost {
                state.ledger.engineers_lost.insert(*piece);
            }
        }
        Event::HitsCleared { piece, .. } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.hits = 0;
            }
        }
        Event::SuppressionRemoved { piece } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.suppressed_at = None;
            }
        }
        Event::DisorderEnded { piece } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.disordered_until = None;
            }
        }
        Event::DefenseKnockedOut {
            side,
            defense,
            cause,
        } => state.ledger.record(
            *side,
            Loss::Defense {
                defense: *defense,
                cause: *cause,
            },
        ),
        Event::ObjectiveDeclared { side, level } => {
            if let Some(l) = state.ledger.sides.get_mut(*side) {
                l.objective = *level;
            }
        }
        Event::Broke { side } => {
            if let Some(s) = state.sides.get_mut(*side) {
                s.broken = true;
            }
        }
        Event::BreakTest { .. } | Event::BattleResult(_) => {}
        Event::OrderRolled(_)
        | Event::UnitActed(_)
        | Event::Blunder { .. }
        | Event::OpportunityFireDeclared { .. }
        | Event::MoveInterrupted { .. }
        | Event::MoveResumed { .. }
        | Event::SelfOrdered { .. }
        | Event::CommandMoved { .. }
        | Event::CommandJoined { .. }
        | Event::CommandCarried { .. }
        | Event::CommandReplaced { .. }
        | Event::SuppressedByOrder { .. } => super::command::apply_command_event(state, event),
        e @ (Event::ChargeDeclared { .. }
        | Event::ChargeResponded { .. }
        | Event::ResponseClosed { .. }
        | Event::ChargeContact { .. }
        | Event::ChargeFailed { .. }
        | Event::Supported { .. }
        | Event::Disordered { .. }
        | Event::CombatRound { .. }
        | Event::CombatDecided { .. }
        | Event::Retreated { .. }
        | Event::ChargeEnded { .. }
        | Event::Consolidated { .. }
        | Event::Evaded { .. }) => super::charge::apply_charge_event(state, e),
        Event::EngineerTaskTaken { .. }
        | Event::WorkDone { .. }
        | Event::WorkConfirmed { .. }
        | Event::WorkCancelled { .. }
        | Event::BridgeHit { .. }
        | Event::BridgeDestroyed { .. } => super::engineering::apply_event(state, event),
        Event::ConstructionHit { .. } | Event::ConstructionCollapsed { .. } => {
            super::construction::apply_event(state, event)
        }
        Event::ScreenHit { .. } | Event::ScreenRemoved { .. } => {
            super::skirmish::apply_event(state, event)
        }
        Event::ModeChanged { .. } => super::dismount::apply_event(state, event),
        Event::WeatherChanged { .. } => super::weather::apply_event(state, event),
        Event::FlankRefused { .. } => super::flank::apply_event(state, event),
        Event::Revealed { .. } | Event::DugInEnded { .. } => {
            super::reveal::apply_event(state, event)
        }
        Event::Adjusted { .. } => super::referee::apply_event(state, event),
        Event::ProneChanged { .. } | Event::HitsReduced { .. } => {
            super::prone::apply_event(state, event)
        }
        Event::ScoutDeployed { .. } | Event::ScoutLaunch { .. } | Event::ScoutWithdrawn { .. } => {
            super::scouting::apply_event(state, event)
        }
        Event::CommunicationRolled { .. } | Event::Communicated { .. } => {
            super::comms::apply_event(state, event)
        }
        Event::UnitTransferred { .. } | Event::AllyBroke { .. } => {
            super::allegiance::apply_event(state, event)
        }
    }
    super::flank::after_event(state, refused);
}

/// Folds a sequence of events over a state.
/// The events whose arm of [`apply`] touches no piece's pose, formation, troop row, knock-out
/// or flank (only the turn, the dice, hits, suppression, disorder's end, the ledger and the
/// sides): what MOVE-30's straightening watches cannot change.
fn leaves_flanks_alone(event: &Event) -> bool {
    matches!(
        event,
        Event::PhaseBegan { .. }
            | Event::PhaseEnded { .. }
            | Event::GameTurnEnded { .. }
            | Event::DiceRolled { .. }
            | Event::BattleEnded { .. }
            | Event::HitsScored { .. }
            | Event::Saved { .. }
            | Event::FallBackRequired { .. }
            | Event::ShellLanded { .. }
            | Event::NoEffect { .. }
            | Event::HitsTaken { .. }
            | Event::Suppressed { .. }
            | Event::HitsCleared { .. }
            | Event::SuppressionRemoved { .. }
            | Event::DisorderEnded { .. }
            | Event::DefenseKnockedOut { .. }
            | Event::ObjectiveDeclared { .. }
            | Event::Broke { .. }
            | Event::AllyBroke { .. }
            | Event::BreakTest { .. }
            | Event::BattleResult(_)
            | Event::Conceded { .. }
            | Event::ProneChanged { .. }
            | Event::HitsReduced { .. }
    )
}

/// The events after which every piece looks the same to sight — the fields a sight index is
/// made from (pose, formation, stands, limber, knock-out, dug-in, reveal, fire, flank, troop
/// row, arm, command, name) — and the works and lost defences are unchanged: the turn, dice,
/// hits, suppression, disorder's end, the sides, and orders. The battle keeps its sight index
/// across them ([`super::visibility::SightCache`]).
pub fn leaves_sight_alone(event: &Event) -> bool {
    (leaves_flanks_alone(event) && !matches!(event, Event::DefenseKnockedOut { .. }))
        || matches!(
            event,
            Event::OrderRolled(_)
                | Event::UnitActed(_)
                | Event::SelfOrdered { .. }
                | Event::SuppressedByOrder { .. }
                | Event::CommandMoved { .. }
                | Event::OpportunityFireDeclared { .. }
        )
}

/// The pieces whose sight an event may change (VIS-01..VIS-17): none for the events that
/// [`leaves_sight_alone`]; the pieces it names for the events that change only their own
/// place, formation, limber, stands, fire or reveal (a refused flank it straightens is its own
/// too); `None` for any other event, after which every piece is looked at again.
pub fn changes_sight_of(event: &Event) -> Option<&[PieceId]> {
    if leaves_sight_alone(event) {
        return Some(&[]);
    }
    match event {
        Event::Moved { piece, .. }
        | Event::FellBack { piece, .. }
        | Event::FormationChanged { piece, .. }
        | Event::Limbered { piece }
        | Event::Unlimbered { piece, .. }
        | Event::StandsLost { piece, .. }
        | Event::MoveInterrupted { piece, .. }
        | Event::MoveResumed { piece, .. }
        | Event::CommandCarried { piece, .. }
        | Event::Revealed { piece, .. }
        | Event::DugInEnded { piece, .. }
        | Event::UnitTransferred { piece, .. }
        | Event::Adjusted { piece, .. } => Some(std::slice::from_ref(piece)),
        Event::Fired { firers, .. } => Some(firers.as_slice()),
        _ => None,
    }
}

pub fn apply_all<'a>(state: &mut BattleState, events: impl IntoIterator<Item = &'a Event>) {
    for e in events {
        apply(state, e);
    }
}
