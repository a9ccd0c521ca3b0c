//! Brigade skirmisher screens (catalogue §2.12 SKIR-01..SKIR-04): who has one and how big it is
//! ([`screen_stands`]), when it is deployed ([`screen_deployed`]), whether a line of fire crosses
//! it ([`screens_fire`], SKIR-03 (a): −1 die per firing unit), how many hits it can still absorb
//! ([`screen_pool`], SKIR-03 (b), (d)), and its removal when the brigade forms march column or
//! square ([`removal_on_deploy`], SKIR-02) or an enemy contacts it ([`removal_on_contact`], for
//! the charge rules).
//!
//! A screen is not a piece: it is not a unit for breakpoint or VPs (SKIR-01 (d)), it cannot be
//! targeted, and it blocks no sight (VIS-07). Its state — hits absorbed, removed — lives in
//! [`super::engineering::EngineeringState::screens`].
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * A brigade fields its screen when the scenario flags at least one of its units
//!   `brigade_skirmishers` (the scenario's opt-in; the stands are still computed from the
//!   brigade, SKIR-01 (b)), the list has a Skirmishing Infantry row and the year is after 1760
//!   (or not given).
//! * The screen stands in the 5 cm strip in front of each of its brigade's infantry units' front
//!   edges; a line of fire (firer's centre to target's centre) that crosses the strip of any
//!   brigade unit crosses the screen.
//! * Hits a screen absorbs stay with it (it has no End phase: a stand that absorbed its Hits is
//!   removed at once, SKIR-03 (d), and the remainder waits for the next hit).
//! * SKIR-03 (c): when the screen absorbs every hit, nothing is left for the formed unit, so it
//!   makes no test; the screen's own suppression has no engine effect.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::battle::Ctx;
use super::event::Event;
use super::geometry::{footprint_of, measure_scale};
use super::state::{BattleState, Formation, PieceId, PieceState};
use crate::geom::footprint::ring_polygon;
use crate::geom::segment::{segment_meets_polygon, Segment};
use crate::geom::Point;
use crate::model::{Arm, CommandLevel, HqId, RowRole};
use serde::{Deserialize, Serialize};

/// SKIR-02: how far in front of the brigade's front edges the screen stands, cm.
pub const SCREEN_DEPTH_CM: f64 = 5.0;
/// SKIR-01 (b): 2 stands for every 3 infantry units.
pub const STANDS_PER_THREE_UNITS: u32 = 2;

/// One brigade's screen as the battle has changed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScreenState {
    pub side: usize,
    pub hq: HqId,
    /// Hits absorbed so far (SKIR-03 (b)).
    #[serde(default)]
    pub hits: u32,
    /// Removed for good (SKIR-02: contact, march column or square).
    #[serde(default)]
    pub removed: bool,
}

/// `apply` for the screen events.
pub fn apply_event(state: &mut BattleState, event: &Event) {
    let screens = &mut state.engineering.screens;
    let (side, hq) = match event {
        Event::ScreenHit { side, hq, .. } | Event::ScreenRemoved { side, hq, .. } => (*side, *hq),
        _ => return,
    };
    let idx = match screens.iter().position(|s| s.side == side && s.hq == hq) {
        Some(i) => i,
        None => {
            screens.push(ScreenState {
                side,
                hq,
                hits: 0,
                removed: false,
            });
            screens.len() - 1
        }
    };
    let Some(s) = screens.get_mut(idx) else {
        return;
    };
    match event {
        Event::ScreenHit { total, .. } => s.hits = *total,
        Event::ScreenRemoved { .. } => s.removed = true,
        _ => {}
    }
}

/// SKIR-01 (a): the brigade HQ a unit belongs to, if its parent HQ is a brigade HQ.
pub fn brigade_of(ctx: &Ctx, piece: &PieceState) -> Option<HqId> {
    let PieceId::Unit { side, unit } = piece.id else {
        return None;
    };
    let s = ctx.scenario.sides.get(side)?;
    let u = s.unit(unit)?;
    let hq = s.hq(u.hq)?;
    // ART-10: an FAO commands no brigade.
    (hq.commander.level == CommandLevel::Brigade && !hq.fao).then_some(hq.id)
}

/// The brigade's infantry units on the table (SKIR-01 (a)).
fn brigade_units<'a>(ctx: &Ctx<'a>, side: usize, hq: HqId) -> Vec<&'a PieceState> {
    let Some(s) = ctx.scenario.sides.get(side) else {
        return Vec::new();
    };
    s.units
        .iter()
        .filter(|u| u.hq == hq)
        .filter_map(|u| ctx.state.piece(PieceId::Unit { side, unit: u.id }))
        .filter(|p| p.on_table() && ctx.row(p).is_some_and(|r| r.arm == Arm::Infantry))
        .collect()
}

/// SKIR-01: the screen's stands as entitled — 2 × floor(infantry units / 3) of the brigade's
/// units (on the table or not), when the brigade fields one (module rulings); 0 otherwise.
pub fn screen_stands(ctx: &Ctx, side: usize, hq: HqId) -> u32 {
    let Some(s) = ctx.scenario.sides.get(side) else {
        return 0;
    };
    let Some(h) = s.hq(hq) else {
        return 0;
    };
    if h.commander.level != CommandLevel::Brigade
        || h.fao // ART-10: an FAO commands no brigade
        || ctx.scenario.year.is_some_and(|y| y <= 1760)
    {
        return 0;
    }
    let Some(list) = ctx.list(side) else {
        return 0;
    };
    if !list
        .troop_types
        .iter()
        .any(|r| r.role == RowRole::SkirmishProfile)
    {
        return 0;
    }
    let units: Vec<_> = s
        .units
        .iter()
        .filter(|u| u.hq == hq)
        .filter(|u| {
            list.troop_type(&u.troop_type)
                .is_some_and(|r| r.arm == Arm::Infantry)
        })
        .collect();
    if !units.iter().any(|u| u.brigade_skirmishers) {
        return 0;
    }
    let n = u32::try_from(units.len()).unwrap_or(0);
    STANDS_PER_THREE_UNITS * (n / 3)
}

/// SKIR-03 (b): the Hits of one screen stand (the list's Skirmishing Infantry row; 2).
pub fn stand_hits(ctx: &Ctx, side: usize) -> u32 {
    ctx.list(side)
        .and_then(|l| {
            l.troop_types
                .iter()
                .find(|r| r.role == RowRole::SkirmishProfile)
        })
        .map_or(2, |r| u32::from(r.hits).max(1))
}

fn screen_state(state: &BattleState, side: usize, hq: HqId) -> Option<&ScreenState> {
    state
        .engineering
        .screens
        .iter()
        .find(|s| s.side == side && s.hq == hq)
}

/// SKIR-03 (d): stands left — those entitled less those that absorbed their Hits.
pub fn stands_left(ctx: &Ctx, side: usize, hq: HqId) -> u32 {
    let hits = screen_state(ctx.state, side, hq).map_or(0, |s| s.hits);
    screen_stands(ctx, side, hq).saturating_sub(hits / stand_hits(ctx, side))
}

/// SKIR-02: the screen operates — not removed, stands left, and every brigade infantry unit on
/// the table in line, attack column or extended line.
pub fn screen_deployed(ctx: &Ctx, side: usize, hq: HqId) -> bool {
    if screen_state(ctx.state, side, hq).is_some_and(|s| s.removed) {
        return false;
    }
    let units = brigade_units(ctx, side, hq);
    stands_left(ctx, side, hq) > 0
        && !units.is_empty()
        && units.iter().all(|p| {
            matches!(
                p.formation,
                Some(Formation::Line | Formation::AttackColumn | Formation::ExtendedLine)
            )
        })
}

/// SKIR-03 (b): hits the screen may still absorb.
pub fn screen_pool(ctx: &Ctx, side: usize, hq: HqId) -> u32 {
    let per = stand_hits(ctx, side);
    let total = screen_stands(ctx, side, hq) * per;
    total.saturating_sub(screen_state(ctx.state, side, hq).map_or(0, |s| s.hits))
}

/// SKIR-03 (a): the screen in front of `target`'s brigade that a line of fire from `from`
/// crosses, if any (the brigade HQ).
pub fn screens_fire(ctx: &Ctx, target: &PieceState, from: Point) -> Option<HqId> {
    let hq = brigade_of(ctx, target)?;
    let side = target.id.side();
    if !screen_deployed(ctx, side, hq) {
        return None;
    }
    let tfp = footprint_of(ctx, target)?;
    let lof = Segment::new(from, tfp.centroid());
    let depth = SCREEN_DEPTH_CM * measure_scale(ctx);
    let crosses = brigade_units(ctx, side, hq).iter().any(|p| {
        footprint_of(ctx, p).is_some_and(|fp| {
            fp.front_edges().iter().any(|e| {
                let ahead = crate::geom::footprint::heading(e.facing_deg);
                let off = |q: Point| Point::new(q.x + ahead.x * depth, q.y + ahead.y * depth);
                let strip = ring_polygon(&[e.left, e.right, off(e.right), off(e.left)]);
                segment_meets_polygon(&strip, &lof)
            })
        })
    });
    crosses.then_some(hq)
}

/// SKIR-03 (b), (d): the hits of one attack after saves split between the screen and the unit:
/// the events for the screen and the hits left for the unit.
pub fn absorb(ctx: &Ctx, side: usize, hq: HqId, hits: u32) -> (Vec<Event>, u32) {
    let pool = screen_pool(ctx, side, hq);
    let taken = hits.min(pool);
    if taken == 0 {
        return (Vec::new(), hits);
    }
    let before = screen_state(ctx.state, side, hq).map_or(0, |s| s.hits);
    let total = before + taken;
    let per = stand_hits(ctx, side);
    let left = screen_stands(ctx, side, hq).saturating_sub(total / per);
    let mut ev = vec![Event::ScreenHit {
        side,
        hq,
        hits: taken,
        total,
        stands_left: left,
    }];
    if left == 0 {
        ev.push(Event::ScreenRemoved {
            side,
            hq,
            rule: "SKIR-03".into(),
        });
    }
    (ev, hits - taken)
}

/// SKIR-02: a Deploy into march column or square removes the brigade's screen.
pub fn removal_on_deploy(ctx: &Ctx, piece: &PieceState, to: Formation) -> Vec<Event> {
    if !matches!(to, Formation::MarchColumn | Formation::Square) {
        return Vec::new();
    }
    let Some(hq) = brigade_of(ctx, piece) else {
        return Vec::new();
    };
    let side = piece.id.side();
    if !screen_deployed(ctx, side, hq) {
        return Vec::new();
    }
    vec![Event::ScreenRemoved {
        side,
        hq,
        rule: "SKIR-02".into(),
    }]
}

/// SKIR-02, SKIR-04: an enemy contacting the screen removes it (for the charge rules to call).
pub fn removal_on_contact(ctx: &Ctx, side: usize, hq: HqId) -> Vec<Event> {
    if !screen_deployed(ctx, side, hq) {
        return Vec::new();
    }
    vec![Event::ScreenRemoved {
        side,
        hq,
        rule: "SKIR-02".into(),
    }]
}
