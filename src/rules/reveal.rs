//! VIS-17: recording when a dug-in unit gives its position away, and when it leaves it.
//!
//! A dug-in unit (VIS-16 lawful: the defender's, in its Trench or Dug-Out) placed behind linear
//! terrain or at the inside edge of area terrain stays out of sight (the sight rules in
//! `visibility` apply that). It is revealed when it moves or fires, and — foot, command units,
//! cavalry and deployed guns — once an enemy unit comes within 5 cm. Nothing in the battle state
//! changes by itself, so [`append_reveals`] runs after every action (the one hook in
//! `battle::resolve`, which covers every action kind: moves, deploys, charges, evades,
//! fall-backs, retreats, consolidations, blunder moves, command moves, fire of every kind) and
//! appends the events that record what the action gave away, computed on the state after the
//! action's own events.
//!
//! Rulings applied (catalogue VIS-17 **Ruling**):
//! * A reveal is permanent for the rest of the game ([`Event::Revealed`] sets `revealed`; nothing
//!   clears it).
//! * Dug-in status keeps its other effects — stand fast on fall-back up to 10 cm (FIRE-26), stay
//!   put on a PULL BACK! blunder (CMD-19 result 4), the trench's Soft cover (DEF-04) — after a
//!   reveal, until the unit *leaves its position*: then [`Event::DugInEnded`] clears `dug_in`.
//!   Firing and an enemy's approach reveal but leave it dug in.
//! * "Moves" (engine reading): any change of the unit's stands on the table — its position, its
//!   facing, its formation, or limbering/unlimbering — reveals it. "Leaves its position" means
//!   its reference point (the centre of its front edge) moved; turning, changing formation or
//!   limbering in place keeps it in its works.
//! * Moves made while the armies deploy (before the game starts, SEQ-01) are placement, not
//!   movement: they reveal nothing and keep the unit dug in.
//! * Proximity is measured edge to edge (§1.5), 5 cm × the measure scale (BAS-01); the event
//!   names the nearest such enemy (ties: the lowest id).
//! * A unit revealed by firing already counted as seen through `has_fired` (VIS-08 memory);
//!   the event records it in the log all the same.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::apply::apply_all;
use super::battle::Ctx;
use super::event::Event;
use super::geometry::{footprint_of, measure_scale, stand_kind};
use super::state::{BattleState, Phase, PieceId, PieceState};
use super::visibility::{check_dug_in, DUG_IN_REVEAL_CM};
use crate::geom::segment::rect_gap;
use crate::geom::{edge_distance, Footprint, Rect, StandKind};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeSet;

/// The rule every reveal event names.
pub const REVEAL_RULE: &str = "VIS-17";

/// A reference point that moved less than this (cm) has not left its position (float noise).
const STILL_CM: f64 = 1e-6;

/// Why a dug-in unit was revealed (VIS-17).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RevealCause {
    /// It moved: position, facing, formation or limbering changed.
    Moved,
    /// It fired (any fire, opportunity fire included).
    Fired,
    /// An enemy unit came within 5 cm (× measure scale): the nearest one, edge to edge.
    EnemyWithin { enemy: PieceId, distance_cm: f64 },
    /// OPT-SCOUT-02: an enemy scout spotted it (within 30 cm in the open, 15 cm in cover, with
    /// line of sight; `scouting::spotted`): the nearest such scout, edge to edge, in cm.
    Scout { scout: PieceId, distance_cm: f64 },
}

/// A dug-in unit's works still count for it: VIS-16 lawful and not yet moved off.
fn dug_in(ctx: &Ctx, p: &PieceState) -> bool {
    p.dug_in && check_dug_in(ctx, p).is_ok()
}

fn stands_moved(before: &PieceState, after: &PieceState) -> bool {
    before.pose != after.pose
        || before.formation != after.formation
        || before.limbered != after.limbered
}

fn left_position(before: &PieceState, after: &PieceState) -> bool {
    match (before.pose, after.pose) {
        (Some(a), Some(b)) => a.at.distance(b.at).0 > STILL_CM,
        _ => false,
    }
}

/// VIS-17: the action's `events` with the reveal events they call for appended (see
/// [`reveals`]), worked out on a copy of the state with the events applied: for a dry run,
/// which changes nothing. `Battle::perform` applies the events to its own state instead and
/// asks [`reveals`] there. Costs nothing in battles without dug-in units.
pub fn append_reveals(ctx: &Ctx, events: Vec<Event>) -> Vec<Event> {
    let Some(watch) = RevealWatch::before(ctx) else {
        return events;
    };
    let mut after: BattleState = ctx.state.clone();
    apply_all(&mut after, &events);
    let mut out = events;
    out.extend(reveals(watch, &ctx.with_state(&after)));
    out
}

/// The dug-in units as they stood before an action (VIS-17), for [`reveals`] once its events
/// are applied.
pub struct RevealWatch {
    /// The dug-in units whose works count for them, as they were (none in deployment: placing
    /// a unit reveals nothing).
    before: Vec<PieceState>,
    /// The sight index of the state before, whose footprints are reused where the piece is
    /// unchanged.
    known: Option<std::sync::Arc<super::visibility::SightIndex>>,
}

impl RevealWatch {
    /// `None` when no unit is dug in: nothing can be revealed.
    pub fn before(ctx: &Ctx) -> Option<RevealWatch> {
        if !ctx.state.pieces.values().any(|p| p.dug_in) {
            return None;
        }
        let placing = ctx.state.turn.phase == Phase::Deployment;
        Some(RevealWatch {
            before: if placing {
                Vec::new()
            } else {
                ctx.state
                    .pieces
                    .values()
                    .filter(|p| dug_in(ctx, p))
                    .cloned()
                    .collect()
            },
            known: ctx.sight.and_then(|s| s.any_index()),
        })
    }
}

/// VIS-17: the reveal events an action calls for, given `post`, the state with its events
/// applied: for each dug-in unit, in piece order, `revealed` (moved, fired, or an enemy within
/// 5 cm) if it was not revealed yet, then `dug_in_ended` if it left its position; then what
/// scouts spot (OPT-SCOUT-02).
pub fn reveals(watch: RevealWatch, post: &Ctx) -> Vec<Event> {
    let after = post.state;
    let mut out = Vec::new();
    let mut revealed: BTreeSet<PieceId> = BTreeSet::new();
    for before in &watch.before {
        let Some(now) = after.pieces.get(&before.id).filter(|p| !p.knocked_out) else {
            continue;
        };
        let cause = if stands_moved(before, now) {
            Some(RevealCause::Moved)
        } else if now.has_fired && !before.has_fired {
            Some(RevealCause::Fired)
        } else {
            None
        };
        if let Some(cause) = cause.filter(|_| !before.revealed) {
            revealed.insert(before.id);
            out.push(Event::Revealed {
                piece: before.id,
                rule: REVEAL_RULE.to_string(),
                cause,
            });
        }
        if left_position(before, now) {
            out.push(Event::DugInEnded {
                piece: before.id,
                rule: REVEAL_RULE.to_string(),
            });
        }
    }
    if matches!(after.turn.phase, Phase::Deployment | Phase::Over) {
        return out;
    }
    // Proximity: only when some unrevealed dug-in unit is left to check.
    let unseen = |p: &&PieceState| {
        p.on_table()
            && dug_in(post, p)
            && !p.revealed
            && !p.has_fired
            && !revealed.contains(&p.id)
            && revealed_by_proximity(post, p)
    };
    let watching: Vec<&PieceState> = after.pieces.values().filter(unseen).collect();
    if watching.is_empty() {
        // OPT-SCOUT-02: what the scouts spot.
        out.extend(super::scouting::spotted(post, &revealed));
        return out;
    }
    // Every piece that is an enemy of some watched unit, laid out once with its box: read from
    // the battle's sight index when the piece is as the index laid it out (the same footprint
    // to the bit), laid out here otherwise.
    let known = watch.known;
    let enemies: Vec<(PieceId, Cow<'_, Footprint>, Rect)> = after
        .pieces
        .values()
        .filter(|q| watching.iter().any(|p| p.id.side() != q.id.side()))
        .filter_map(|q| {
            if let Some((fp, r)) = known.as_deref().and_then(|i| i.footprint_if_same(q)) {
                return Some((q.id, Cow::Borrowed(fp), r));
            }
            footprint_of(post, q).map(|fp| {
                let r = fp.bounding_rect();
                (q.id, Cow::Owned(fp), r)
            })
        })
        .collect();
    let reach = DUG_IN_REVEAL_CM * measure_scale(post);
    for p in watching {
        if let Some((enemy, d)) = nearest_enemy_within(post, p, &enemies, reach) {
            // Rounded for the log, as the move events' costs are.
            let distance_cm = (d * 1000.0).round() / 1000.0;
            out.push(Event::Revealed {
                piece: p.id,
                rule: REVEAL_RULE.to_string(),
                cause: RevealCause::EnemyWithin { enemy, distance_cm },
            });
            revealed.insert(p.id);
        }
    }
    // OPT-SCOUT-02: what the scouts spot that the approach did not reveal.
    out.extend(super::scouting::spotted(post, &revealed));
    out
}

/// VIS-17: the kinds an enemy's approach reveals: foot, command units, cavalry and deployed
/// (unlimbered) guns; not limbered guns or transport.
fn revealed_by_proximity(ctx: &Ctx, p: &PieceState) -> bool {
    match stand_kind(ctx, p) {
        StandKind::Infantry | StandKind::Cavalry | StandKind::Command => true,
        StandKind::Artillery => !p.limbered,
        StandKind::Transport => false,
    }
}

/// VIS-17: the nearest enemy piece within `reach` cm of `p`, edge to edge (§1.5), and its
/// distance; ties go to the lowest id.
fn nearest_enemy_within(
    ctx: &Ctx,
    p: &PieceState,
    enemies: &[(PieceId, Cow<'_, Footprint>, Rect)],
    reach: f64,
) -> Option<(PieceId, f64)> {
    let fp = footprint_of(ctx, p)?;
    let rect = fp.bounding_rect();
    let mut best: Option<(f64, PieceId)> = None;
    for (id, efp, erect) in enemies {
        if id.side() == p.id.side() || rect_gap(&rect, erect) > reach {
            continue;
        }
        let g = edge_distance(&fp, efp);
        if g <= reach && best.is_none_or(|(bg, bid)| (g, *id) < (bg, bid)) {
            best = Some((g, *id));
        }
    }
    best.map(|(g, id)| (id, g))
}

/// Applies [`Event::Revealed`] and [`Event::DugInEnded`].
pub fn apply_event(state: &mut BattleState, event: &Event) {
    match event {
        Event::Revealed { piece, .. } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.revealed = true;
            }
        }
        Event::DugInEnded { piece, .. } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.dug_in = false;
            }
        }
        _ => {}
    }
}
