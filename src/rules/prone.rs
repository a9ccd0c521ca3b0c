//! OPTIONAL prone (catalogue §3.7 OPT-PRONE-01, OPT-PRONE-02, and the FIRE-12 note that
//! hit-reduction effects apply after the roll): [`Action::Prone`](super::action::Action::Prone),
//! checked by [`check_prone`], recorded as [`Event::ProneChanged`]; the fire and movement gates
//! ([`check_may_fire`], [`check_may_move`]), the cut in hits ([`reduce`], recorded as
//! [`Event::HitsReduced`]) and standing up when a charge makes contact ([`stand_up_on_contact`]).
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * Going prone and standing up are each a **Deploy** action (catalogue ruling): under full
//!   orders they need an order to deploy or a deploy initiative action, like a formation change.
//!   In deployment a unit may be set out prone.
//! * Only units on foot lie down: infantry, engineers and dismounted cavalry. Mounted cavalry,
//!   guns, transport and command units have no prone marker.
//! * "May not move" covers every voluntary move: a Move, a charge, a support move and an
//!   initiative or response evade. Forced moves (fall back, retreat) still move the unit, which
//!   stays prone. A change of formation is allowed; the effects follow the formation it is in.
//! * OPT-PRONE-02's cut is made on the attack's hits after saves, before a skirmisher screen
//!   (SKIR-03) takes its share; the firing units are the distinct units whose dice are in the
//!   attack (a shell, a round-shot penetration and a canister attack each have one). A blunder's
//!   attack (CMD-19) has no firing unit and is not cut.
//! * A prone unit stands up at the moment a charger makes contact with it (`ChargeContact`),
//!   whether it was charged or is a further unit touched (CHG-05); it then fights normally.
//! * With the option off, nothing here has any effect, whatever a hand-edited state says.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::battle::{check_may_act, Ctx};
use super::casualty::Attack;
use super::error::{ActionError, RuleError};
use super::event::Event;
use super::state::{BattleState, Formation, PieceId, PieceState};
use crate::model::{Arm, OptionalRule, RowRole};

/// The rule every prone refusal and record names.
const GOING: &str = "OPT-PRONE-01";
const EFFECTS: &str = "OPT-PRONE-02";

/// Is the optional prone rule in use in this battle?
pub fn prone_in_use(ctx: &Ctx) -> bool {
    ctx.scenario.optional_rules.contains(&OptionalRule::Prone)
}

/// Does this unit lie prone now, with the option in use?
pub fn is_prone(ctx: &Ctx, piece: &PieceState) -> bool {
    piece.prone && prone_in_use(ctx)
}

/// Men on foot: infantry, engineers, dismounted cavalry.
fn on_foot(ctx: &Ctx, piece: &PieceState) -> bool {
    ctx.row(piece).is_some_and(|row| {
        row.role == RowRole::DismountedMode || matches!(row.arm, Arm::Infantry | Arm::Engineers)
    })
}

/// OPT-PRONE-01: may this unit lie down (`prone`) or stand up (`!prone`) now? Nothing changes
/// on a refusal.
pub fn check_prone(ctx: &Ctx, id: PieceId, prone: bool) -> Result<(), RuleError> {
    if !prone_in_use(ctx) {
        return Err(RuleError::new(
            GOING,
            "lying prone is an optional rule this battle does not use; switch it on in the \
             scenario's optional rules first",
        ));
    }
    let piece = ctx.piece(id)?;
    check_may_act(ctx, piece)?;
    // Standing up is always allowed to a prone unit (one that mounted stays able to get up).
    if prone && (id.is_command() || !on_foot(ctx, piece) || piece.formation.is_none()) {
        return Err(RuleError::new(
            GOING,
            format!(
                "only units on foot (infantry, engineers, dismounted cavalry) lie prone; {} cannot",
                piece.name
            ),
        ));
    }
    if piece.prone == prone {
        return Err(RuleError::new(
            GOING,
            if prone {
                format!("{} is already lying prone", piece.name)
            } else {
                format!(
                    "{} is not prone, so it has nothing to stand up from",
                    piece.name
                )
            },
        ));
    }
    Ok(())
}

/// OPT-PRONE-01: checks, then records the unit lying down or standing up.
pub fn resolve_prone(ctx: &Ctx, id: PieceId, prone: bool) -> Result<Vec<Event>, ActionError> {
    check_prone(ctx, id, prone)?;
    Ok(vec![Event::ProneChanged {
        piece: id,
        prone,
        rule: GOING.into(),
    }])
}

/// `apply` for [`Event::ProneChanged`] ([`Event::HitsReduced`] is a record only: the hits it
/// took away were never taken).
pub fn apply_event(state: &mut BattleState, event: &Event) {
    if let Event::ProneChanged { piece, prone, .. } = event {
        if let Some(p) = state.pieces.get_mut(piece) {
            p.prone = *prone;
        }
    }
}

/// OPT-PRONE-02: a prone unit may not move (every voluntary move; see the module's rulings).
pub fn check_may_move(ctx: &Ctx, piece: &PieceState) -> Result<(), RuleError> {
    if is_prone(ctx, piece) {
        return Err(RuleError::new(
            EFFECTS,
            format!(
                "{} is lying prone and may not move; stand it up first (a Deploy action)",
                piece.name
            ),
        ));
    }
    Ok(())
}

/// OPT-PRONE-02: a prone unit in extended line (skirmish order) may fire; in any other
/// formation (close order) it may not.
pub fn check_may_fire(ctx: &Ctx, piece: &PieceState) -> Result<(), RuleError> {
    if is_prone(ctx, piece) && piece.formation != Some(Formation::ExtendedLine) {
        return Err(RuleError::new(
            EFFECTS,
            format!(
                "{} is lying prone in close order and may not fire; only a prone extended line \
                 fires. Stand it up first (a Deploy action)",
                piece.name
            ),
        ));
    }
    Ok(())
}

/// The distinct units whose dice are in an attack.
fn firing_units(attack: &Attack) -> u32 {
    let mut ids: Vec<PieceId> = attack
        .groups
        .iter()
        .filter(|g| g.dice > 0)
        .flat_map(|g| g.firers.iter().copied())
        .collect();
    ids.sort();
    ids.dedup();
    u32::try_from(ids.len()).unwrap_or(u32::MAX)
}

/// OPT-PRONE-02 ruling: the hits left after saves on a prone target, one fewer per firing unit,
/// never below 0, with the record of the cut (none when nothing was cut). Shaped as the
/// casualty pipeline's `absorb` step (`casualty::resolve_attack_with`).
pub fn reduce(ctx: &Ctx, attack: &Attack, hits: u32) -> (Vec<Event>, u32) {
    let target = attack.target.piece;
    let prone = ctx.state.piece(target).is_some_and(|p| is_prone(ctx, p));
    let by = if prone {
        firing_units(attack).min(hits)
    } else {
        0
    };
    if by == 0 {
        return (Vec::new(), hits);
    }
    (
        vec![Event::HitsReduced {
            piece: target,
            by,
            rule: EFFECTS.into(),
        }],
        hits - by,
    )
}

/// OPT-PRONE-01 ruling: a prone unit a charger has just made contact with stands up (the event
/// to record, if it is prone).
pub fn stand_up_on_contact(ctx: &Ctx, piece: PieceId) -> Option<Event> {
    let p = ctx.state.piece(piece)?;
    is_prone(ctx, p).then(|| Event::ProneChanged {
        piece,
        prone: false,
        rule: GOING.into(),
    })
}
