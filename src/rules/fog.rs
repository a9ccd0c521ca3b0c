//! Fog of war (issue #17 item 10): which enemy pieces one side can see now, and where it last
//! saw each of the others.
//!
//! Nothing here decides sight: "seen" is exactly the engine's own VIS-01..VIS-17 answer
//! ([`super::visibility::SightIndex::visible_enemies`]) asked for every piece of the viewing side
//! on the table — so command units look all round (VIS-03), woods, hills, walls and units block
//! (VIS-07..VIS-15), unfired guns and dug-in troops stay hidden until revealed (VIS-08, VIS-17),
//! and nothing is seen beyond the visibility limit (VIS-04). A rule changed there changes the
//! fog with it.
//!
//! The memory ([`FogMemory`]) is a fold over the battle's log: after the opening state and after
//! each entry in effect it records, for every enemy seen then, its pose, formation and the turn.
//! An enemy seen only in the middle of an entry (passing through the open during one move) is
//! not remembered: the log is looked at between entries, as a player looks at the table between
//! actions. The same log gives the same memory; no die, no clock.
//!
//! Rulings made here:
//! * A side sees its own pieces always; fog hides enemies only.
//! * An enemy that leaves the table (destroyed, routed, off the edge) is forgotten: the view
//!   draws nothing for it, seen or not.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::apply::apply_all;
use super::battle::{Battle, Ctx};
use super::state::{BattleState, Formation, PieceId, Pose};
use super::visibility::{sight_index, SightCache};
use std::collections::{BTreeMap, BTreeSet};

/// The enemy pieces (of the side other than `side`) that at least one piece of `side` on the
/// table sees now, by the engine's own sight rules (VIS-01..VIS-17): the union of
/// [`super::visibility::SightIndex::visible_enemies`] over the side's pieces, found enemy by
/// enemy with the nearest observers asked first and the search stopped at the first that sees
/// it (the same set, with fewer lines traced).
pub fn seen_by(ctx: &Ctx, side: usize) -> BTreeSet<PieceId> {
    let index = sight_index(ctx);
    // VIS-04: a visible pair's distance is its edge gap, so nothing beyond the limit is seen.
    let limit = index.params().limit_cm;
    let observers: Vec<PieceId> = ctx
        .state
        .pieces
        .values()
        .filter(|p| p.id.side() == side && p.pose.is_some() && !p.knocked_out)
        .map(|p| p.id)
        .collect();
    let mut seen = BTreeSet::new();
    for enemy in ctx.state.pieces.values() {
        if enemy.id.side() == side || enemy.pose.is_none() {
            continue;
        }
        let mut near: Vec<(f64, PieceId)> = observers
            .iter()
            .filter_map(|o| {
                let gap = index.edge_gap(*o, enemy.id)?;
                (gap <= limit).then_some((gap, *o))
            })
            .collect();
        near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        if near.iter().any(|(_, o)| index.sight(*o, enemy.id).visible) {
            seen.insert(enemy.id);
        }
    }
    seen
}

/// Where and when the viewing side last saw one enemy piece.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LastSeen {
    pub pose: Pose,
    pub formation: Option<Formation>,
    pub limbered: bool,
    /// The game turn it was seen in (0: during deployment, before the first turn).
    pub game_turn: u32,
}

/// What one side knows of the enemy: who it sees now and where it last saw every other enemy
/// still on the table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FogMemory {
    side: usize,
    seen: BTreeSet<PieceId>,
    last: BTreeMap<PieceId, LastSeen>,
    /// How many entries of the log were folded in ([`FogMemory::catch_up`]); `None`: not
    /// folded yet.
    folded: Option<usize>,
    /// The last entry folded in, to notice an undo followed by another action.
    last_entry: Option<super::battle::LogEntry>,
}

impl FogMemory {
    /// A memory of `side` that has seen nothing yet.
    pub fn new(side: usize) -> FogMemory {
        FogMemory {
            side,
            ..FogMemory::default()
        }
    }

    /// The side whose view this is.
    pub fn side(&self) -> usize {
        self.side
    }

    /// Looks at the table `ctx` shows: the enemies seen now replace the last set, and each one's
    /// pose is remembered; enemies off the table are forgotten.
    pub fn observe(&mut self, ctx: &Ctx) {
        self.seen = seen_by(ctx, self.side);
        let turn = ctx.state.turn.game_turn;
        for id in &self.seen {
            let Some(p) = ctx.state.piece(*id) else {
                continue;
            };
            let Some(pose) = p.pose else {
                continue;
            };
            self.last.insert(
                *id,
                LastSeen {
                    pose,
                    formation: p.formation,
                    limbered: p.limbered,
                    game_turn: turn,
                },
            );
        }
        let state = ctx.state;
        self.last.retain(|id, _| on_table(state, *id));
    }

    /// The memory of `side` over `battle`'s log: the opening state and the state after every
    /// entry in effect, in order.
    pub fn of_battle(battle: &Battle, side: usize) -> FogMemory {
        let mut m = FogMemory::new(side);
        m.refold(battle);
        m
    }

    /// Brings the memory up to `battle` as it stands: one new entry is looked at on the
    /// battle's own state (and its sight memo); an undo, or any other change of the entries
    /// already folded in, folds the whole log again. Call it after every change (the app does,
    /// each time it rebuilds the battle page).
    pub fn catch_up(&mut self, battle: &Battle) {
        let entries = battle.entries();
        let n = entries.len();
        let prefix_ok = match (self.folded, &self.last_entry) {
            (Some(0), None) => true,
            (Some(k), Some(e)) if k > 0 && k <= n => entries.get(k - 1) == Some(e),
            _ => false,
        };
        if prefix_ok && Some(n) == self.folded {
            return;
        }
        if prefix_ok && self.folded.map(|k| k + 1) == Some(n) {
            self.observe(&battle.ctx());
            self.folded = Some(n);
            self.last_entry = entries.last().cloned();
            return;
        }
        self.refold(battle);
    }

    fn refold(&mut self, battle: &Battle) {
        let mut m = FogMemory::new(self.side);
        // One sight memo for the whole fold: each state differs from the last in a few pieces.
        let cache = SightCache::default();
        let mut state: BattleState = battle.initial_state().clone();
        m.observe(&ctx_with(battle, &state, &cache));
        for e in battle.entries() {
            apply_all(&mut state, &e.events);
            m.observe(&ctx_with(battle, &state, &cache));
        }
        m.folded = Some(battle.entries().len());
        m.last_entry = battle.entries().last().cloned();
        *self = m;
    }

    /// Is this piece visible to the viewing side now (its own pieces always are)?
    pub fn is_seen(&self, id: PieceId) -> bool {
        id.side() == self.side || self.seen.contains(&id)
    }

    /// The enemies seen now.
    pub fn seen(&self) -> &BTreeSet<PieceId> {
        &self.seen
    }

    /// Where the viewing side last saw an enemy it does not see now (`None`: never seen, or
    /// seen now, or gone from the table).
    pub fn last_seen(&self, id: PieceId) -> Option<&LastSeen> {
        if self.is_seen(id) {
            return None;
        }
        self.last.get(&id)
    }

    /// Every enemy remembered, seen now or not, with where it was last seen.
    pub fn remembered(&self) -> &BTreeMap<PieceId, LastSeen> {
        &self.last
    }
}

/// A context over one state of `battle`'s log, sharing the fold's sight memo.
fn ctx_with<'a>(battle: &'a Battle, state: &'a BattleState, cache: &'a SightCache) -> Ctx<'a> {
    let mut c = Ctx::new(battle.scenario(), battle.lists(), state);
    c.sight = Some(cache);
    c
}

fn on_table(state: &BattleState, id: PieceId) -> bool {
    state
        .piece(id)
        .is_some_and(|p| p.pose.is_some() && !p.knocked_out)
}
