//! Dismounting cavalry (COL-02; ACW rule 3, Napoleonic 4–5, FPW 4–5, 18C 4–6, Colonial 11):
//! the Dismount and Mount actions ([`resolve_dismount`], [`resolve_mount`]).
//!
//! A cavalry unit whose row carries the list's dismounting note changes mode by a Deploy-like
//! action: dismounted, it becomes the list's dismounted-cavalry row (so it moves, fires, saves
//! and is hit as that row — "use the stats of the current mode"), with one stand fewer: the
//! horse holder, who brings the horses back when it mounts again (one stand more).
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * Where a list has several dismounted rows (ACW Union), the action names the row; with one,
//!   it is used. Colonial cavalry dismounts to the European Breech Loader row, or the Magazine
//!   Rifle row from 1890 (§5.5 ruling).
//! * Hussars and other light cavalry (the scouting note, Napoleonic 12, FPW 16) and irregulars
//!   (Napoleonic 14, 18C 23) dismount only as single scouting stands (Napoleonic 4, FPW 4,
//!   18C 4): not as a fighting unit, so the action is refused; 18C light cavalry may dismount
//!   (its note 4 names only irregulars).
//! * "Before or after a move, not both" is a limit on one order (MOVE-23 ruling) and belongs to
//!   the command rules.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::battle::{check_may_act, Ctx};
use super::error::{ActionError, RuleError};
use super::event::Event;
use super::state::{BattleState, PieceId};
use crate::model::{Arm, Period, RowRole, RuleEffect, TroopType, TroopTypeId};

/// `apply` for [`Event::ModeChanged`].
pub fn apply_event(state: &mut BattleState, event: &Event) {
    if let Event::ModeChanged {
        piece,
        troop_type,
        arm,
        stands,
        ..
    } = event
    {
        if let Some(p) = state.pieces.get_mut(piece) {
            p.troop_type = Some(troop_type.clone());
            p.arm = Some(*arm);
            p.stands = *stands;
        }
    }
}

fn refuse(message: impl Into<String>) -> ActionError {
    RuleError::new("COL-02", message).into()
}

/// COL-02 and the list notes: the row this unit dismounts to.
fn dismounted_row<'a>(
    ctx: &Ctx<'a>,
    side: usize,
    wanted: Option<&TroopTypeId>,
) -> Result<&'a TroopType, ActionError> {
    let Some(list) = ctx.list(side) else {
        return Err(refuse("the side has no army list"));
    };
    if list.period == Period::Colonial {
        let id = if ctx.scenario.year.is_some_and(|y| y >= 1890) {
            "european-magazine-rifle"
        } else {
            "european-breech-loader"
        };
        return list
            .troop_types
            .iter()
            .find(|r| r.id.as_str() == id)
            .ok_or_else(|| refuse(format!("the list has no {id} row to dismount to")));
    }
    let modes: Vec<&TroopType> = list
        .troop_types
        .iter()
        .filter(|r| r.role == RowRole::DismountedMode)
        .collect();
    match (wanted, modes.as_slice()) {
        (Some(id), _) => modes
            .iter()
            .find(|r| &r.id == id)
            .copied()
            .ok_or_else(|| refuse(format!("{id} is not a dismounted-cavalry row of this list"))),
        (None, [one]) => Ok(one),
        (None, []) => Err(refuse("the list has no dismounted-cavalry row")),
        (None, _) => Err(refuse(
            "this list has several dismounted-cavalry rows: name the one to use",
        )),
    }
}

/// COL-02 with the lists' dismounting notes: a mounted cavalry unit dismounts; the horse holder
/// leaves the line (one stand fewer).
pub fn resolve_dismount(
    ctx: &Ctx,
    id: PieceId,
    wanted: Option<&TroopTypeId>,
) -> Result<Vec<Event>, ActionError> {
    let piece = ctx.piece(id)?;
    check_may_act(ctx, piece)?;
    if piece.suppressed_at.is_some() {
        return Err(RuleError::new(
            "FIRE-23",
            format!(
                "{} is suppressed and can do nothing in its own turn",
                piece.name
            ),
        )
        .into());
    }
    let (Some(row), Some(list)) = (ctx.row(piece), ctx.list(id.side())) else {
        return Err(refuse(format!("{} has no troop row", piece.name)));
    };
    if row.arm != Arm::Cavalry || row.role == RowRole::DismountedMode {
        return Err(refuse(format!("{} is not mounted cavalry", piece.name)));
    }
    let effects: Vec<&RuleEffect> = list.row_effects(row).collect();
    if !effects
        .iter()
        .any(|e| matches!(e, RuleEffect::Dismount { .. }))
    {
        return Err(refuse(format!(
            "{} ({}) has no dismounting note and fights mounted only",
            piece.name, row.name
        )));
    }
    let irregular = effects.iter().any(|e| matches!(e, RuleEffect::Irregular));
    let scouts = effects.iter().any(|e| matches!(e, RuleEffect::Scouts));
    if irregular || (scouts && list.period != Period::EighteenthCentury) {
        return Err(refuse(format!(
            "{} ({}) dismounts only as single scouting stands, not as a fighting unit",
            piece.name, row.name
        )));
    }
    if piece.stands < 2 {
        return Err(refuse(format!(
            "{} has too few stands to leave a horse holder",
            piece.name
        )));
    }
    let to = dismounted_row(ctx, id.side(), wanted)?;
    Ok(vec![Event::ModeChanged {
        piece: id,
        troop_type: to.id.clone(),
        arm: to.arm,
        stands: piece.stands - 1,
        mounted: false,
    }])
}

/// COL-02: a dismounted unit mounts again as the row it was bought as; the horse holder rejoins.
pub fn resolve_mount(ctx: &Ctx, id: PieceId) -> Result<Vec<Event>, ActionError> {
    let piece = ctx.piece(id)?;
    check_may_act(ctx, piece)?;
    if piece.suppressed_at.is_some() {
        return Err(RuleError::new(
            "FIRE-23",
            format!(
                "{} is suppressed and can do nothing in its own turn",
                piece.name
            ),
        )
        .into());
    }
    Ok(vec![mount_event(ctx, piece)?])
}

/// COL-02: the event of a dismounted unit mounting as the row it was bought as, with its horse
/// holder back (one stand more); also the first step of a mounted evade (INIT-05 b).
pub fn mount_event(ctx: &Ctx, piece: &super::state::PieceState) -> Result<Event, ActionError> {
    let id = piece.id;
    let PieceId::Unit { side, unit } = id else {
        return Err(refuse("command units do not dismount"));
    };
    let bought = ctx
        .scenario
        .sides
        .get(side)
        .and_then(|s| s.unit(unit))
        .map(|u| u.troop_type.clone());
    let (Some(bought), Some(list)) = (bought, ctx.list(side)) else {
        return Err(refuse(format!("{} has no troop row", piece.name)));
    };
    if piece.troop_type.as_ref() == Some(&bought) {
        return Err(refuse(format!("{} is already mounted", piece.name)));
    }
    let Some(row) = list.troop_type(&bought).filter(|r| r.arm == Arm::Cavalry) else {
        return Err(refuse(format!("{} was not bought as cavalry", piece.name)));
    };
    Ok(Event::ModeChanged {
        piece: id,
        troop_type: row.id.clone(),
        arm: row.arm,
        stands: piece.stands.saturating_add(1),
        mounted: true,
    })
}
