//! MOVE-30 Refuse the flank: infantry or dismounted cavalry in line or extended line swing one or
//! both flank stands back by up to 45° ([`Action::RefuseFlank`](super::action::Action), checked
//! by [`check_refuse_flank`], recorded as [`Event::FlankRefused`]).
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * It is a **Deploy** action (catalogue ruling): under full orders it needs an order to deploy
//!   (CMD-04, CMD-15) or a deploy initiative action (INIT), like a formation change.
//! * The action sets both flanks at once: `left_deg` and `right_deg` are the angles wanted
//!   (0 = straight), not additions; refusing again replaces the old angles and 0/0 straightens
//!   the line. Asking for what the unit already stands in is refused.
//! * At least one stand stays unrefused, since the unit's facing is taken from its unrefused
//!   stands: a one-stand unit refuses nothing, a two-stand unit one flank only, both flanks need
//!   three stands. Should losses later leave too few stands, the footprint keeps the left flank
//!   refused and straightens the right ([`crate::geom::Footprint::with_refusal`]).
//! * "Not allowed while charging": a charger of a charge not yet fought may not refuse (MOVE-30);
//!   a unit in an unresolved combat otherwise takes no action at all (INIT-03).
//! * The swung stands may not end off the table (MOVE-02), on impassable terrain (that terrain's
//!   rule, as for a move's end: TERR-06/07/12/13), astride a linear obstacle (MOVE-03) or over
//!   another unit, friend or foe (MOVE-30; command units take no table space, BAS-02).
//! * **A refusal belongs to the spot it was made at.** Any change of the unit's pose (every move,
//!   charge, fall back, retreat, evade, consolidation), formation (a Deploy, disorder) or troop
//!   row (mounting) straightens the line, as does being knocked out: `apply` clears the refusal
//!   after such an event ([`after_event`]), so there is no separate "straighten" event to forget.
//!   A Move is measured from the straight line ([`super::geometry::straight_footprint_of`]).
//!   A unit wanting its flank refused after moving refuses it again with a new Deploy action.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::battle::{check_may_act, Ctx};
use super::error::{ActionError, RuleError};
use super::event::Event;
use super::geometry::straight_footprint_of;
use super::movement::SHRINK_CM;
use super::state::{BattleState, Formation, PieceId, PieceState, Pose};
use super::terrain::{mover_of, Going, TerrainMap};
use crate::geom::refusal::MAX_REFUSAL_DEG;
use crate::geom::{Point, Rect, Refusal, Stand};
use crate::model::{Arm, RowRole, TroopTypeId};
use geo::Intersects;
use serde::{Deserialize, Serialize};

/// A unit's refused flanks (MOVE-30), kept in [`PieceState::flank`].
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct FlankState {
    /// How far back the left flank stand is swung, degrees (0 = straight).
    #[serde(default)]
    pub left_deg: f64,
    /// How far back the right flank stand is swung, degrees (0 = straight).
    #[serde(default)]
    pub right_deg: f64,
    /// The pose the unit refused at: the refusal holds only there (a copy of the piece placed
    /// elsewhere, as movement and charge code make to try a pose, stands straight).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Pose>,
}

impl FlankState {
    /// Neither flank refused (the default; not written into saved states).
    pub fn is_straight(&self) -> bool {
        self.refusal().is_straight()
    }

    pub fn refusal(&self) -> Refusal {
        Refusal {
            left_deg: self.left_deg,
            right_deg: self.right_deg,
        }
    }
}

/// MOVE-30: the refusal a piece's footprint shows now, if any — only in line or extended line and
/// at the pose it was made at.
pub fn refusal_of(piece: &PieceState) -> Option<Refusal> {
    let f = &piece.flank;
    let line = matches!(
        piece.formation,
        Some(Formation::Line | Formation::ExtendedLine)
    );
    (line && !f.is_straight() && f.at.is_some() && f.at == piece.pose).then(|| f.refusal())
}

fn refuse(message: impl Into<String>) -> RuleError {
    RuleError::new("MOVE-30", message)
}

/// MOVE-30: infantry (engineers too) or dismounted cavalry — foot that forms a line.
fn is_foot(ctx: &Ctx, piece: &PieceState) -> bool {
    match ctx.row(piece) {
        Some(row) => {
            row.role == RowRole::DismountedMode || matches!(row.arm, Arm::Infantry | Arm::Engineers)
        }
        None => false,
    }
}

/// MOVE-30 (and MOVE-02, MOVE-03, the TERR rules for the swung stands, INIT-03, SEQ): may this
/// unit stand with its flanks swung back by these angles? Nothing changes on a refusal.
pub fn check_refuse_flank(
    ctx: &Ctx,
    id: PieceId,
    left_deg: f64,
    right_deg: f64,
) -> Result<(), RuleError> {
    let piece = ctx.piece(id)?;
    check_may_act(ctx, piece)?;
    for (side, a) in [("left", left_deg), ("right", right_deg)] {
        if !a.is_finite() || !(0.0..=MAX_REFUSAL_DEG).contains(&a) {
            return Err(refuse(format!(
                "a flank stand swings back by 0° to {MAX_REFUSAL_DEG}°; {a}° asked for the {side} flank of {}",
                piece.name
            )));
        }
    }
    if let Some(c) = ctx.state.charges.combat_of(id) {
        if c.chargers.iter().any(|k| k.piece == id) {
            return Err(refuse(format!(
                "{} is charging; a flank is not refused while charging",
                piece.name
            )));
        }
    }
    super::charge::check_not_engaged(ctx, id)?;
    if !is_foot(ctx, piece) {
        return Err(refuse(format!(
            "only infantry or dismounted cavalry refuse a flank; {} may not",
            piece.name
        )));
    }
    let formation = piece.formation;
    if !matches!(formation, Some(Formation::Line | Formation::ExtendedLine)) {
        return Err(refuse(format!(
            "only a line or an extended line refuses a flank; {} is in {}",
            piece.name,
            formation.map_or("no formation", Formation::label)
        )));
    }
    let wanted = Refusal {
        left_deg,
        right_deg,
    };
    let refused = usize::from(left_deg > 0.0) + usize::from(right_deg > 0.0);
    let stands = usize::from(piece.stands);
    if refused > 0 && stands < refused + 1 {
        return Err(refuse(format!(
            "{} has {stands} stand{}: at least one stand stays unrefused, so it may refuse {}",
            piece.name,
            if stands == 1 { "" } else { "s" },
            match stands {
                0 | 1 => "no flank",
                _ => "one flank only",
            }
        )));
    }
    let now = refusal_of(piece).unwrap_or_default();
    if now == wanted {
        return Err(refuse(format!(
            "{} already stands so (left {left_deg}°, right {right_deg}°)",
            piece.name
        )));
    }
    let Some(fp) = straight_footprint_of(ctx, piece) else {
        return Err(RuleError::new(
            "SEQ-01",
            format!("{} is not on the table", piece.name),
        ));
    };
    let fp = fp.with_refusal(wanted);
    let swung: Vec<Stand> = fp
        .stands
        .iter()
        .filter(|s| fp.is_refused_stand(s))
        .copied()
        .collect();
    check_room(ctx, piece, &swung)
}

/// The swung stands stay on the table, off impassable ground and obstacles, and off other units.
fn check_room(ctx: &Ctx, piece: &PieceState, swung: &[Stand]) -> Result<(), RuleError> {
    if swung.is_empty() {
        return Ok(());
    }
    let t = ctx.scenario.table;
    let table = Rect {
        min: Point::new(0.0, 0.0),
        max: Point::new(t.width_cm, t.depth_cm),
    };
    let shrunk: Vec<Stand> = swung
        .iter()
        .map(|s| Stand {
            width: (s.width - 2.0 * SHRINK_CM).max(SHRINK_CM),
            depth: (s.depth - 2.0 * SHRINK_CM).max(SHRINK_CM),
            ..*s
        })
        .collect();
    if shrunk
        .iter()
        .flat_map(Stand::corners)
        .any(|c| !table.contains(c))
    {
        return Err(RuleError::new(
            "MOVE-02",
            format!(
                "{}'s refused stand would stand off the table (MOVE-30)",
                piece.name
            ),
        ));
    }
    let area = crate::geom::footprint::rect_of(swung.iter().flat_map(Stand::corners));
    let polys: Vec<_> = shrunk.iter().map(Stand::polygon).collect();
    for other in ctx.state.pieces.values() {
        if other.id == piece.id || other.id.is_command() || !other.on_table() {
            continue;
        }
        let Some(ofp) = super::geometry::footprint_of(ctx, other) else {
            continue;
        };
        let r = ofp.bounding_rect();
        if !crate::geom::segment::rects_overlap(&r, &area) {
            continue;
        }
        if ofp
            .stands
            .iter()
            .any(|s| polys.iter().any(|p| s.polygon().intersects(p)))
        {
            return Err(refuse(format!(
                "{}'s refused stand would stand on {}",
                piece.name, other.name
            )));
        }
    }
    let grown = Rect {
        min: Point::new(area.min.x - 0.01, area.min.y - 0.01),
        max: Point::new(area.max.x + 0.01, area.max.y + 0.01),
    };
    let map = TerrainMap::around(ctx, mover_of(ctx, piece), Some(grown));
    for (_, patch) in map.near(&grown) {
        if !polys.iter().any(|p| patch.shape.meets(p)) {
            continue;
        }
        match patch.going {
            Going::Impassable { rule } => {
                return Err(RuleError::new(
                    rule,
                    format!(
                        "{}'s refused stand would stand on {}, impassable to it (MOVE-30)",
                        piece.name, patch.name
                    ),
                ))
            }
            Going::Linear { .. } => {
                return Err(RuleError::new(
                    "MOVE-03",
                    format!(
                        "{}'s refused stand would stand astride {} (MOVE-30)",
                        piece.name, patch.name
                    ),
                ))
            }
            Going::Clear | Going::Area { .. } => {}
        }
    }
    Ok(())
}

/// MOVE-30: a legal refusal as its event.
pub fn resolve_refuse_flank(
    ctx: &Ctx,
    piece: PieceId,
    left_deg: f64,
    right_deg: f64,
) -> Result<Vec<Event>, ActionError> {
    check_refuse_flank(ctx, piece, left_deg, right_deg)?;
    Ok(vec![Event::FlankRefused {
        piece,
        left_deg,
        right_deg,
    }])
}

/// `apply` for [`Event::FlankRefused`]: the refusal holds at the unit's pose of now.
pub fn apply_event(state: &mut BattleState, event: &Event) {
    if let Event::FlankRefused {
        piece,
        left_deg,
        right_deg,
    } = event
    {
        if let Some(p) = state.pieces.get_mut(piece) {
            let f = FlankState {
                left_deg: *left_deg,
                right_deg: *right_deg,
                at: p.pose,
            };
            p.flank = if f.is_straight() {
                FlankState::default()
            } else {
                f
            };
        }
    }
}

/// What [`after_event`] compares: each refused unit's formation and troop row before an event.
pub type Watch = Vec<(PieceId, Option<Formation>, Option<TroopTypeId>)>;

/// Called by `apply` before every event: the units standing with a refused flank (usually none).
pub fn before_event(state: &BattleState) -> Watch {
    state
        .pieces
        .values()
        .filter(|p| !p.flank.is_straight())
        .map(|p| (p.id, p.formation, p.troop_type.clone()))
        .collect()
}

/// [`before_event`] for the pieces `ids` only (an event that can change no other's place,
/// formation, troop row or knock-out).
pub fn before_event_of(state: &BattleState, ids: &[PieceId]) -> Watch {
    ids.iter()
        .filter_map(|id| state.pieces.get(id))
        .filter(|p| !p.flank.is_straight())
        .map(|p| (p.id, p.formation, p.troop_type.clone()))
        .collect()
}

/// Called by `apply` after every event: a refused unit that moved, changed formation or troop
/// row, or was knocked out stands straight again (module docs).
pub fn after_event(state: &mut BattleState, watch: Watch) {
    for (id, formation, troop) in watch {
        if let Some(p) = state.pieces.get_mut(&id) {
            let kept = p.flank.at.is_some()
                && p.flank.at == p.pose
                && p.formation == formation
                && p.troop_type == troop
                && !p.knocked_out;
            if !kept {
                p.flank = FlankState::default();
            }
        }
    }
}

/// FIRE-04 with MOVE-30's ruling: the stands of a refused line that fire at `target` — every
/// unrefused stand when the line's own cone holds any part of it, and each refused stand whose
/// own front's cone does. `cone_holds` is firing's cone test.
pub fn eligible_stands(
    fp: &crate::geom::Footprint,
    target: &crate::geom::Footprint,
    cone_holds: impl Fn(&crate::geom::FrontEdge, &crate::geom::Footprint) -> bool,
) -> u32 {
    let unrefused = fp.stands.iter().filter(|s| !fp.is_refused_stand(s)).count();
    let line = fp
        .front_edges()
        .iter()
        .filter(|e| !fp.is_refused_front(e))
        .any(|e| cone_holds(e, target));
    let own = fp
        .stands
        .iter()
        .filter(|s| fp.is_refused_stand(s) && cone_holds(&s.front_edge(), target))
        .count();
    let total = if line { unrefused } else { 0 } + own;
    u32::try_from(total).unwrap_or(u32::MAX)
}
