//! Field Artillery Officers as command units (catalogue ART-10, ARMY-13).
//!
//! An FAO is an `Hq` of the order of battle flagged `fao` (`model::Hq::fao`). It is a command
//! piece like any HQ (CMD-22..CMD-26, breakpoints exclude it, BRK-01; its 55 points count as VP
//! when it is knocked out, VP-01), with these differences:
//!
//! * ART-10 ruling: it fights on the list's Average Brigade HQ line ([`gunnery::fao_profile`]:
//!   command 7, move, presence, Hits, save; `model::Hq::stat_line`) and costs 55 points
//!   (`model::points::hq_points`).
//! * ART-10: it is never the CO (`command::commanding_officer`, `model::Side::co`).
//! * ART-10: it orders **only** artillery, and only artillery formed into a grand battery —
//!   two or more unlimbered guns whose bases touch ([`gunnery::check_grand_battery`]) — all
//!   ordered to fire at one declared target ([`check_fao_order`]). Under an FAO's order a gun
//!   may only fire, at that target ([`check_fao_act`]).
//!
//! Scenario validation (ART-10, ARMY-13: at most floor(artillery units / 6) FAOs, none in a
//! Command whose list forbids grand batteries, never the CO; an FAO stands outside ARMY-08's
//! ranks and ARMY-06's HQ numbers) is in `model::validate`.
//!
//! # Rulings made here
//!
//! * The FAO's command value is its line's (7), whatever its `commander` record says; a
//!   replaced FAO still takes CMD-28's −1.
//! * A grand battery's order is one Fire action per ordered gun, all at one declared target:
//!   the guns may then fire together (one Fire action with several firers) or one by one.
//! * An FAO commands no brigade (SKIR-01 screens).
//!
//! # Not yet
//!
//! OPT-MULTI communication (an FAO may not communicate) is not modelled by the engine at all.
//! `command::orderable_units` lists no units for an FAO (it probes one unit at a time, and an
//! FAO's order needs two guns), and the autoplayer leaves FAOs out of its order groups.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::action::Action;
use super::battle::Ctx;
use super::command::{OrderedUnit, UnitActionKind};
use super::error::{ActionError, RuleError};
use super::gunnery;
use super::state::{PieceId, PieceState};
use crate::model::Arm;

/// ART-10: is this command piece an FAO?
pub fn is_fao(ctx: &Ctx, id: PieceId) -> bool {
    let PieceId::Hq { side, hq } = id else {
        return false;
    };
    ctx.scenario
        .sides
        .get(side)
        .and_then(|s| s.hq(hq))
        .is_some_and(|h| h.fao)
}

/// ART-10 ruling: an FAO's command value is its list's Average Brigade HQ's (7 in the charts).
pub fn fao_command_value(ctx: &Ctx, id: PieceId) -> Option<u8> {
    let list = ctx.list(id.side())?;
    gunnery::fao_profile(list).map(|c| c.command)
}

fn refuse(message: impl Into<String>) -> ActionError {
    RuleError::new("ART-10", message).into()
}

/// ART-10: an FAO's order names only artillery units, each ordered to fire at one and the same
/// declared target, and the guns form a grand battery (two or more touching unlimbered guns of
/// a list that forms them). Orders of other command units pass.
pub fn check_fao_order(
    ctx: &Ctx,
    command: PieceId,
    units: &[OrderedUnit],
) -> Result<(), ActionError> {
    if !is_fao(ctx, command) {
        return Ok(());
    }
    let cp = ctx.piece(command)?;
    let mut target: Option<PieceId> = None;
    for u in units {
        let p = ctx.piece(u.piece)?;
        if u.piece.is_command() || ctx.row(p).is_none_or(|r| r.arm != Arm::Artillery) {
            return Err(refuse(format!(
                "{} is a Field Artillery Officer and orders only artillery; {} is not artillery",
                cp.name, p.name
            )));
        }
        if u.action != UnitActionKind::Fire {
            return Err(refuse(format!(
                "{} is a Field Artillery Officer and orders only a grand battery's fire, not {} to {}",
                cp.name,
                p.name,
                u.action.label()
            )));
        }
        match (target, u.target) {
            (_, None) => {
                return Err(refuse(format!(
                    "declare {}'s target: a grand battery fires at one declared target",
                    p.name
                )))
            }
            (None, Some(t)) => target = Some(t),
            (Some(a), Some(b)) if a != b => {
                return Err(refuse(format!(
                "{} fires at {b} but the grand battery at {a}: a grand battery fires at one target",
                p.name
            )))
            }
            _ => {}
        }
    }
    let guns: Vec<PieceId> = units.iter().map(|u| u.piece).collect();
    gunnery::check_grand_battery(ctx, &guns).map_err(|e| {
        refuse(format!(
            "{} may order only a grand battery: {}",
            cp.name, e.message
        ))
    })
}

/// ART-10: under an FAO's order a gun only fires, at the grand battery's declared target
/// (the second action of a command bonus included).
pub fn check_fao_act(ctx: &Ctx, p: &PieceState, action: &Action) -> Result<(), ActionError> {
    let Some(commander) = p.orders.commander.filter(|c| is_fao(ctx, *c)) else {
        return Ok(());
    };
    match action {
        Action::Fire { target, .. } if p.orders.target.is_none_or(|d| d == *target) => Ok(()),
        Action::Fire { .. } => Err(refuse(format!(
            "{} was ordered by the Field Artillery Officer {commander} to fire with its grand battery at its declared target",
            p.name
        ))),
        _ => Err(refuse(format!(
            "{} is under the Field Artillery Officer {commander}'s order and may only fire with its grand battery",
            p.name
        ))),
    }
}
