//! Referee adjustments: a logged correction that sets a piece's hits, suppression, disorder,
//! stands, formation, limber or pose, to bring the engine in line with a real table, or to set
//! up a scenario that starts in the middle of a battle (`Action::Adjust`, battle-file action
//! `"adjust"`, docs/battle-file.md).
//!
//! An adjustment rolls no dice. It resolves into one [`Event::Adjusted`] that carries every
//! adjustable value before and after ([`Condition`]), so the log shows what the referee changed
//! and `apply` only copies the new values in. Like the referee's removal (GEN-12, `victory`),
//! it may be made in any phase, deployment included, until the battle is over (END-03), by
//! either side, with no order. The solo opponent never makes one.
//!
//! What it refuses, each with the catalogue rule that makes it nonsense: an unknown piece
//! (GEN-09), a knocked-out one (GEN-12: out for good; a knock-out is `remove_unit`), nothing
//! to change (GEN-12), no stands or more than the unit started with (GEN-12, GEN-11: stands are
//! only lost), hits that would knock the unit out (GEN-12), a formation for a unit without
//! formations or one it may not take (MOVE-09, MOVE-16), a limber for what is not a gun
//! (MOVE-20, COL-03), and a place whose stands would stand off the table (SEQ-01).
//!
//! Layering: part of `rules`; depends on `model` and `geom` only; must not import egui,
//! eframe, rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::apply::apply;
use super::battle::Ctx;
use super::error::{ActionError, RuleError};
use super::event::Event;
use super::state::{BattleState, Formation, PieceId, PieceState, Pose};
use crate::model::{Arm, Move, Period, RuleEffect};
use serde::{Deserialize, Serialize};

/// What a referee sets; every field left out stays as it is. `suppressed: true` places a
/// marker in the current player turn (kept if the piece already has one); `disordered: true`
/// disorders the unit until the end of the next player turn's Initiative phase, as a charge
/// would (FIRE-28), without changing its formation (set `formation` to `disordered` for
/// that). Exhaustion is not set: it follows from disorder for mounted cavalry (FIRE-29).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Adjustment {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hits: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppressed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disordered: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stands: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formation: Option<Formation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limbered: Option<bool>,
    /// Where the piece stands: the centre of its formation's front edge, and its facing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pose: Option<Pose>,
}

impl Adjustment {
    fn is_empty(&self) -> bool {
        *self == Adjustment::default()
    }
}

/// Every value an adjustment can set, as the piece's state holds it: what `Event::Adjusted`
/// carries before and after.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Condition {
    pub pose: Option<Pose>,
    pub formation: Option<Formation>,
    pub limbered: bool,
    pub stands: u8,
    pub hits: u32,
    /// The player turn the suppression marker was placed in (FIRE-22).
    pub suppressed_at: Option<u32>,
    /// Disordered until the end of this player turn's Initiative phase (FIRE-28).
    pub disordered_until: Option<u32>,
}

impl Condition {
    pub fn of(p: &PieceState) -> Condition {
        Condition {
            pose: p.pose,
            formation: p.formation,
            limbered: p.limbered,
            stands: p.stands,
            hits: p.hits,
            suppressed_at: p.suppressed_at,
            disordered_until: p.disordered_until,
        }
    }
}

/// `apply`'s arm for [`Event::Adjusted`]: copies the new values in. Moving, re-forming or
/// re-counting the stands of a line straightens a refused flank (MOVE-30).
pub fn apply_event(state: &mut BattleState, event: &Event) {
    let Event::Adjusted { piece, from, to } = event else {
        return;
    };
    let Some(p) = state.pieces.get_mut(piece) else {
        return;
    };
    p.pose = to.pose;
    p.formation = to.formation;
    p.limbered = to.limbered;
    p.stands = to.stands;
    p.hits = to.hits;
    p.suppressed_at = to.suppressed_at;
    p.disordered_until = to.disordered_until;
    if from.pose != to.pose || from.formation != to.formation || from.stands != to.stands {
        p.flank = Default::default();
    }
}

fn refuse(rule: &'static str, message: String) -> ActionError {
    RuleError::new(rule, message).into()
}

/// The stands a piece started the battle with (a command unit has one).
fn starting_stands(ctx: &Ctx, piece: PieceId) -> Option<u8> {
    match piece {
        PieceId::Hq { .. } => Some(1),
        PieceId::Unit { side, unit } => ctx
            .scenario
            .sides
            .get(side)
            .and_then(|s| s.unit(unit))
            .map(|u| u.stands),
    }
}

/// GEN-12 (the referee's table rulings), SEQ-01, MOVE-09, MOVE-16, MOVE-20, FIRE-22,
/// FIRE-28: the referee sets some of a piece's values. One `Adjusted` event, or a refusal
/// naming the rule the adjustment would break; nothing is rolled.
pub fn resolve_adjust(
    ctx: &Ctx,
    piece: PieceId,
    set: &Adjustment,
) -> Result<Vec<Event>, ActionError> {
    let p = ctx.piece(piece)?;
    if p.knocked_out {
        return Err(refuse(
            "GEN-12",
            format!(
                "{} has been knocked out and is out for good; only a piece in play can be adjusted",
                p.name
            ),
        ));
    }
    if set.is_empty() {
        return Err(refuse(
            "GEN-12",
            format!(
                "the adjustment of {} sets nothing: give at least one of hits, suppressed, disordered, stands, formation, limbered or pose",
                p.name
            ),
        ));
    }
    let t = ctx.state.turn;
    let from = Condition::of(p);
    let mut to = from;
    if let Some(stands) = set.stands {
        let start = starting_stands(ctx, piece).unwrap_or(p.stands);
        if stands == 0 {
            return Err(refuse(
                "GEN-12",
                format!(
                    "{} cannot be left with no stands; a unit without stands is knocked out: use remove_unit",
                    p.name
                ),
            ));
        }
        if stands > start {
            return Err(refuse(
                "GEN-11",
                format!(
                    "{} started the battle with {start} stand(s) and cannot have {stands}; give 1 to {start}",
                    p.name
                ),
            ));
        }
        to.stands = stands;
    }
    if let Some(f) = set.formation {
        if p.formation.is_none() {
            return Err(refuse(
                "MOVE-09",
                format!(
                    "{} has no movement formation (artillery, transport and command units have none); leave formation out",
                    p.name
                ),
            ));
        }
        if f == Formation::Square && p.formation != Some(Formation::Square) {
            super::battle::may_form_square(ctx, p)?;
        }
        to.formation = Some(f);
    }
    if let Some(limbered) = set.limbered {
        check_limber(ctx, p)?;
        to.limbered = limbered;
    }
    if let Some(pose) = set.pose {
        if !(pose.at.x.is_finite() && pose.at.y.is_finite() && pose.facing_deg.is_finite()) {
            return Err(refuse(
                "SEQ-01",
                format!("the place given for {} must be numbers", p.name),
            ));
        }
        to.pose = Some(pose);
    }
    if let Some(hits) = set.hits {
        to.hits = hits;
    }
    if let Some(s) = set.suppressed {
        to.suppressed_at = match (s, from.suppressed_at) {
            (true, Some(at)) => Some(at),
            (true, None) => Some(t.player_turn),
            (false, _) => None,
        };
    }
    if let Some(d) = set.disordered {
        let now = super::firing::is_disordered(ctx.state, p);
        to.disordered_until = match (d, now) {
            (true, true) => from.disordered_until,
            (true, false) => Some(t.player_turn + 1),
            (false, _) => None,
        };
    }
    let event = Event::Adjusted { piece, from, to };
    // Judge the piece as the adjustment leaves it: its footprint on the table, its KO
    // threshold with its new stands and disorder.
    let mut after = ctx.state.clone();
    apply(&mut after, &event);
    let post = ctx.with_state(&after);
    let Some(q) = after.piece(piece) else {
        return Err(refuse(
            "GEN-09",
            format!("there is no {piece} in this battle"),
        ));
    };
    check_on_table(&post, q)?;
    if set.hits.is_some() || set.stands.is_some() || set.disordered.is_some() {
        let threshold = super::firing::ko_threshold_of(&post, q);
        if to.hits > 0 && to.hits >= threshold {
            return Err(refuse(
                "GEN-12",
                format!(
                    "{} hits would knock {} out (it is knocked out at {threshold}); give fewer, or use remove_unit",
                    to.hits, p.name
                ),
            ));
        }
    }
    Ok(vec![event])
}

/// MOVE-20, COL-03: only guns that can be limbered take a limber setting.
fn check_limber(ctx: &Ctx, p: &PieceState) -> Result<(), ActionError> {
    let Some(row) = ctx.row(p).filter(|r| r.arm == Arm::Artillery) else {
        return Err(refuse(
            "MOVE-20",
            format!("{} is not artillery and has no limber", p.name),
        ));
    };
    let colonial = ctx
        .list(p.id.side())
        .is_some_and(|l| l.period == Period::Colonial);
    if (row.movement == Move::Immobile && !colonial)
        || ctx.has_effect(p, |e| matches!(e, RuleEffect::NeverMoves))
    {
        return Err(refuse(
            "COL-03",
            format!("{}'s guns are never limbered", p.name),
        ));
    }
    Ok(())
}

/// SEQ-01: every stand of a placed piece stands on the table.
fn check_on_table(ctx: &Ctx, q: &PieceState) -> Result<(), ActionError> {
    let Some(fp) = super::geometry::footprint_of(ctx, q) else {
        return Ok(()); // not placed: nothing to check
    };
    let table = &ctx.scenario.table;
    if super::geometry::off_table(ctx, &fp) {
        return Err(refuse(
            "SEQ-01",
            format!(
                "{} would stand partly off the {} × {} cm table; give a place whose stands all fit on it",
                q.name, table.width_cm, table.depth_cm
            ),
        ));
    }
    Ok(())
}
