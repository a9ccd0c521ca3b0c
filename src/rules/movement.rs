//! Movement (catalogue MOVE and TERR): allowances, manoeuvres, terrain and obstacles.
//!
//! `resolve_move` checks a requested move against every MOVE and TERR entry and, when legal,
//! returns the `Moved` event with the allowance spent. Until the movement rules land (engine I
//! issue), a move is refused as unsupported by name rather than carried out unchecked.

use super::action::Manoeuvre;
use super::battle::Ctx;
use super::error::ActionError;
use super::event::Event;
use super::state::{PieceId, Pose};
use crate::geom::Point;

/// MOVE-02..MOVE-30, TERR-01..TERR-14.
pub fn resolve_move(
    ctx: &Ctx,
    piece: PieceId,
    _via: &[Point],
    _to: Pose,
    _manoeuvre: Manoeuvre,
) -> Result<Vec<Event>, ActionError> {
    let p = ctx.piece(piece)?;
    super::battle::check_may_act(ctx, p)?;
    Err(ActionError::Unsupported {
        rule: "MOVE-02",
        what: format!("moving {} (movement rules are not in this build yet)", p.name),
    })
}
