//! The solo opponent's tactics beyond moving and shooting: supports (CHG-07, CHG-08, INIT-11),
//! opportunity fire (FIRE-30..FIRE-33), consolidation (CHG-24), self-orders of isolated units
//! (CMD-07), initiative evades (INIT-05) and the objective judgment the driver declares
//! (OBJ-01, END-03 (1)). Like [`super::policy`], each is a small pure function from the table
//! to candidate actions; the eligibility is always the engine's own check (`resolve_support`,
//! `resolve_consolidate`, `is_isolated` — these roll no dice), never a copy.
//!
//! Layering: pure; depends on `rules`, `model` and `geom` only (checked by `tests/layering.rs`).

use super::policy::PlannedUnit;
use super::policy::{
    centre, charge_odds, charge_odds_at, defends, dist, expected_hits, facing_towards, idle,
    is_artillery, is_shaken, pose_of, side_goal, side_units, troops_of, Sight, BODY_MARGIN_CM,
};
use crate::geom::footprint::heading;
use crate::geom::{nearest_on_segment, ring_contains, Point};
use crate::model::TroopTypeId;
use crate::rules::action::Action;
use crate::rules::apply::apply;
use crate::rules::battle::Ctx;
use crate::rules::charge::{
    resolve_charge, resolve_close_response, resolve_consolidate, resolve_support, Combat,
    CONSOLIDATE_CM, SUPPORT_CM,
};
use crate::rules::command::{is_isolated, OrdersMode, UnitActionKind, ISOLATION_CM};
use crate::rules::firing::{check_fire_as, is_mounted_cavalry, weapon_range_cm, FireOccasion};
use crate::rules::geometry::is_skirmisher;
use crate::rules::state::{Formation, Phase, PieceId, PieceState, Pose};
use crate::rules::victory::ObjectiveLevel;

/// FIRE-32: opportunity fire costs the firer its next initiative and −1 on its next orders;
/// an attacker's unit pays that only for a shot expected to score this many hits.
pub const OPPORTUNITY_HITS_ATTACKER: f64 = 1.0;
/// A defender's unit holds its ground and needs few orders: a cheaper shot is worth it.
pub const OPPORTUNITY_HITS_DEFENDER: f64 = 0.6;
/// CHG-24: a consolidation that would leave the unit nearer than this to an enemy (reference
/// points) than it was is not made.
pub const CONSOLIDATE_SAFE_CM: f64 = 8.0;
/// The last game turns, in which an attacker marches on its objective instead of engaging
/// enemies off it.
pub const LAST_TURNS: u32 = 3;

// ---------------------------------------------------------------------------------------------
// Objectives (OBJ-01, END-03 (1)).

/// The objective ground of `side`: its major, then its minor area (empty where the scenario
/// gives none).
pub fn objective_areas<'a>(ctx: &Ctx<'a>, side: usize) -> [&'a [Point]; 2] {
    ctx.scenario
        .sides
        .get(side)
        .map_or([&[][..], &[][..]], |s| {
            [
                s.objectives.major.area.as_slice(),
                s.objectives.minor.area.as_slice(),
            ]
        })
}

/// Whether a point lies on `side`'s objective ground (either area).
pub fn on_objective(ctx: &Ctx, side: usize, at: Point) -> bool {
    objective_areas(ctx, side)
        .iter()
        .any(|a| a.len() >= 3 && ring_contains(a, at))
}

/// How far inside its objective ground a unit steps to stand on it.
pub const ONTO_GROUND_CM: f64 = 3.0;

/// The nearest point of `side`'s objective ground (either area) to `at`, [`ONTO_GROUND_CM`]
/// inside its edge: where a unit steps to stand on that ground. `None` when the scenario gives
/// no area, or `at` is on it already.
pub fn nearest_objective_point(ctx: &Ctx, side: usize, at: Point) -> Option<Point> {
    nearest_point_onto(&objective_areas(ctx, side), at)
}

/// How far, at most, a unit goes to stand on ground the enemy holds as its objective
/// ([`denial_point`]): about what a foot unit covers in the last turns of a game.
pub const DENY_REACH_CM: f64 = 40.0;

/// OBJ-01: the nearest point, [`ONTO_GROUND_CM`] inside its edge, of an objective area the
/// enemy of `side` holds now ([`holds`]: a formed enemy unit stands on it and none of ours
/// does), within [`DENY_REACH_CM`] of `at`. A unit of ours standing there takes that objective
/// from the enemy at the end of the game, whoever else is on it. `None` when the enemy holds no
/// area within reach.
pub fn denial_point(ctx: &Ctx, side: usize, at: Point) -> Option<Point> {
    let enemy = 1 - side.min(1);
    let held: Vec<&[Point]> = objective_areas(ctx, enemy)
        .into_iter()
        .filter(|a| holds(ctx, enemy, a))
        .collect();
    nearest_point_onto(&held, at).filter(|q| dist(at, *q) <= DENY_REACH_CM)
}

/// The nearest point of any of `areas` to `at`, [`ONTO_GROUND_CM`] inside its edge; areas that
/// contain `at` are passed over.
fn nearest_point_onto(areas: &[&[Point]], at: Point) -> Option<Point> {
    // `from` moved ONTO_GROUND_CM along the way from `a` to `b`.
    let along = |from: Point, a: Point, b: Point| {
        let l = a.distance(b).0.max(1e-9);
        Point::new(
            from.x + (b.x - a.x) / l * ONTO_GROUND_CM,
            from.y + (b.y - a.y) / l * ONTO_GROUND_CM,
        )
    };
    let mut best: Option<(f64, Point)> = None;
    for &area in areas {
        if area.len() < 3 || ring_contains(area, at) {
            continue;
        }
        let middle = centre(area.iter().copied());
        for (k, &a) in area.iter().enumerate() {
            let Some(&b) = area.get((k + 1) % area.len()) else {
                continue;
            };
            let edge = nearest_on_segment(at, a, b);
            let d = at.distance(edge).0;
            // Inwards: on along the way from `at` through the edge, else towards the centre.
            let onto = [along(edge, at, edge), along(edge, edge, middle)]
                .into_iter()
                .find(|q| ring_contains(area, *q));
            if let Some(q) = onto {
                if best.is_none_or(|(bd, _)| d < bd - 1e-9) {
                    best = Some((d, q));
                }
            }
        }
    }
    best.map(|(_, q)| q)
}

/// Whether a piece's reference point lies on `side`'s objective ground.
pub fn piece_on_objective(ctx: &Ctx, side: usize, id: PieceId) -> bool {
    pose_of(ctx, id).is_some_and(|p| on_objective(ctx, side, p.at))
}

/// OBJ-01 as the table shows it: `side` holds `area` when one of its formed troop units (not
/// disordered) stands on it (reference point) and no enemy troop unit does.
pub fn holds(ctx: &Ctx, side: usize, area: &[Point]) -> bool {
    if area.len() < 3 {
        return false;
    }
    let inside = |id: &PieceId| pose_of(ctx, *id).is_some_and(|p| ring_contains(area, p.at));
    let mine = troops_of(ctx, side).iter().any(|u| {
        inside(u)
            && ctx
                .state
                .piece(*u)
                .is_some_and(|p| p.formation != Some(Formation::Disordered))
    });
    mine && !troops_of(ctx, 1 - side.min(1)).iter().any(inside)
}

/// OBJ-01: the level `side` has reached now — its major objective when it holds the major
/// ground, else its minor when it holds the minor ground, else none.
pub fn objective_level(ctx: &Ctx, side: usize) -> ObjectiveLevel {
    let [major, minor] = objective_areas(ctx, side);
    if holds(ctx, side, major) {
        ObjectiveLevel::Major
    } else if holds(ctx, side, minor) {
        ObjectiveLevel::Minor
    } else {
        ObjectiveLevel::None
    }
}

/// END-03 (1), OBJ-01: the declarations due now. At the end of each game turn (the second
/// player's End phase, before it ends) each side standing is declared at the level the table
/// shows ([`objective_level`]) when that differs from its last declaration. A defender (DEF-01)
/// holds "to the end": its claim is made in the last game turn only, so holding its ground
/// early never ends the battle.
pub fn objective_claims(ctx: &Ctx) -> Vec<Action> {
    let t = ctx.state.turn;
    if t.phase != Phase::End || t.active == t.first_player {
        return Vec::new();
    }
    let last = t.game_turn >= ctx.scenario.turn_limit;
    let mut out = Vec::new();
    for (side, s) in ctx.state.sides.iter().enumerate() {
        if s.broken || s.conceded || (defends(ctx, side) && !last) {
            continue;
        }
        let level = objective_level(ctx, side);
        let current = ctx
            .state
            .ledger
            .side(side)
            .map_or(ObjectiveLevel::None, |l| l.objective);
        if level != current {
            out.push(Action::DeclareObjective { side, level });
        }
    }
    out
}

/// The game turns left, this one included (1 in the last turn, and past the limit).
pub fn turns_left(ctx: &Ctx) -> u32 {
    ctx.scenario
        .turn_limit
        .saturating_sub(ctx.state.turn.game_turn)
        + 1
}

/// The attacker presses on: in the last [`LAST_TURNS`] game turns it marches on its objective.
pub fn closing_turns(ctx: &Ctx) -> bool {
    turns_left(ctx) <= LAST_TURNS
}

/// The most game turns before the end at which an attacker's unit sets out for ground the enemy
/// holds as its objective ([`denial_point`]); a unit near it waits for the closing turns
/// (`policy::denial_target`).
pub const DENY_TURNS: u32 = 6;

// ---------------------------------------------------------------------------------------------
// Supports (CHG-07, CHG-08, INIT-11).

/// CHG-07, CHG-08: a support (+1 die, CHG-14) is worth sending unless the fight is already a
/// sure double win (CHG-22) — a supporter of a loser is suppressed and retreats.
pub fn support_helps(dealt: f64, taken: f64) -> bool {
    dealt < 2.0 * taken + 0.5
}

/// Reference points within `reach` of base edges (a cheap test before the engine's own).
fn near(ctx: &Ctx, a: PieceId, b: PieceId, reach: f64) -> bool {
    match (pose_of(ctx, a), pose_of(ctx, b)) {
        (Some(p), Some(q)) => dist(p.at, q.at) <= reach + BODY_MARGIN_CM,
        _ => false,
    }
}

/// `side`'s expected (hits dealt, hits taken) in a pending combat, its supporters counted.
fn combat_odds(ctx: &Ctx, c: &Combat, side: usize) -> Option<(f64, f64)> {
    let contact = c.contacts.first()?;
    let (cp, tp) = (ctx.piece(contact.piece).ok()?, ctx.piece(c.target).ok()?);
    let count = |s: usize| {
        u32::try_from(c.supporters.iter().filter(|r| r.piece.side() == s).count()).unwrap_or(0)
    };
    let att = c.attacker;
    let support = [count(att), count(1 - att.min(1))];
    let (dealt, taken) = charge_odds_at(ctx, cp, tp, support, contact.edge);
    Some(if side == att {
        (dealt, taken)
    } else {
        (taken, dealt)
    })
}

/// CHG-08 (b): the inactive side's support of its unit under charge, after contact — the first
/// unit by id the engine lets support (`resolve_support`), when support helps. One only: there
/// is room for one supporter behind a unit (INIT-11, centre to centre).
pub fn defender_support(ctx: &Ctx, target: PieceId) -> Option<Action> {
    let c = ctx.state.charges.combat(target)?;
    if c.window_open || c.contacts.is_empty() {
        return None;
    }
    let (dealt, taken) = combat_odds(ctx, c, target.side())?;
    if !support_helps(dealt, taken) {
        return None;
    }
    troops_of(ctx, target.side())
        .into_iter()
        .filter(|u| *u != target && near(ctx, *u, target, SUPPORT_CM))
        .find(|u| resolve_support(ctx, *u, target).is_ok())
        .map(|piece| Action::Support {
            piece,
            friend: target,
        })
}

/// INIT-01, INIT-03, FIRE-32: the cheap part of the engine's initiative check — the unit has
/// not used its initiative this turn, is not suppressed, and did not make opportunity fire in
/// the opponent's last turn. (The rest, engagement and distance, is the engine's to refuse.)
pub fn may_use_initiative(ctx: &Ctx, p: &PieceState) -> bool {
    let o = &p.orders;
    !o.initiative_used
        && p.suppressed_at.is_none()
        && o.opportunity_fired_in
            .is_none_or(|pt| pt + 1 != ctx.state.turn.player_turn)
}

/// INIT-11: `id`'s initiative support of a friendly unit in contact in a pending combat of its
/// side, when the engine allows it and it helps.
pub fn initiative_support(ctx: &Ctx, id: PieceId) -> Option<Action> {
    if ctx.piece(id).is_ok_and(|p| !may_use_initiative(ctx, p)) {
        return None;
    }
    let side = id.side();
    for c in ctx.state.charges.combats.iter().filter(|c| !c.window_open) {
        if c.attacker != side {
            continue;
        }
        let Some((dealt, taken)) = combat_odds(ctx, c, side) else {
            continue;
        };
        if !support_helps(dealt, taken) {
            continue;
        }
        for k in &c.contacts {
            if near(ctx, id, k.piece, SUPPORT_CM) && resolve_support(ctx, id, k.piece).is_ok() {
                return Some(Action::Support {
                    piece: id,
                    friend: k.piece,
                });
            }
        }
    }
    None
}

/// CHG-08 (a): the supports of one order. For each unit whose plan is a charge that support
/// would help ([`support_helps`] on [`charge_odds`]), the first other unit of the order (by
/// position in the order) that the engine lets support the charger once it is in contact
/// takes a Support action instead of its own plan. The table after the charge is worked out
/// by the engine itself: the charge's events and its contact (no response assumed) applied to
/// a copy of the state. Supports are carried out after the order's charges.
pub fn plan_supports(ctx: &Ctx, planned: &mut [PlannedUnit]) {
    let busy = |u: &PlannedUnit| {
        matches!(
            u.candidates.first(),
            Some(Action::Charge { .. } | Action::Support { .. })
        )
    };
    for k in 0..planned.len() {
        let Some(Action::Charge {
            chargers, target, ..
        }) = planned.get(k).and_then(|u| u.candidates.first())
        else {
            continue;
        };
        let (Some(&charger), target) = (chargers.first(), *target) else {
            continue;
        };
        let (Ok(cp), Ok(tp)) = (ctx.piece(charger), ctx.piece(target)) else {
            continue;
        };
        let (dealt, taken) = charge_odds(ctx, cp, tp);
        if !support_helps(dealt, taken) {
            continue;
        }
        let mut after = ctx.state.clone();
        let Ok(events) = resolve_charge(ctx, &[charger], target) else {
            continue;
        };
        for e in &events {
            apply(&mut after, e);
        }
        let c1 = ctx.with_state(&after);
        let Ok(events) = resolve_close_response(&c1, target) else {
            continue;
        };
        let mut contact = after.clone();
        for e in &events {
            apply(&mut contact, e);
        }
        let c2 = ctx.with_state(&contact);
        let in_contact = c2
            .state
            .charges
            .combat(target)
            .is_some_and(|c| c.contacts.iter().any(|x| x.piece == charger));
        if !in_contact {
            continue;
        }
        let supporter = (0..planned.len()).find(|&j| {
            j != k
                && planned.get(j).is_some_and(|u| {
                    !busy(u)
                        && near(&c2, u.piece, charger, SUPPORT_CM)
                        && resolve_support(&c2, u.piece, charger).is_ok()
                })
        });
        if let Some(u) = supporter.and_then(|j| planned.get_mut(j)) {
            u.candidates = vec![Action::Support {
                piece: u.piece,
                friend: charger,
            }];
        }
    }
}

/// Whether an ordered unit's declared action is a support (carried out after the charges).
pub fn is_support(kind: UnitActionKind) -> bool {
    kind == UnitActionKind::Support
}

// ---------------------------------------------------------------------------------------------
// Opportunity fire (FIRE-30..FIRE-33).

/// FIRE-30..FIRE-33: the inactive side's opportunity fire at `target`, which has just moved or
/// fired under the current order: each unsuppressed unit with a ranged weapon that has not
/// fired so this enemy turn, sees the target within its range and expects at least
/// [`OPPORTUNITY_HITS_ATTACKER`] hits ([`OPPORTUNITY_HITS_DEFENDER`] for a defender) — worth
/// the FIRE-32 cost of its next initiative and −1 on its next orders. Best shot first, ties by
/// id; each fires on its own. Never at a charger or supporter (FIRE-33). The sight index is
/// built only when some unit is close enough to need it.
pub fn opportunity_fire(ctx: &Ctx, sight: &Sight, target: PieceId) -> Vec<Action> {
    let t = ctx.state.turn;
    let Ok(tp) = ctx.piece(target) else {
        return Vec::new();
    };
    if t.phase != Phase::Command
        || target.side() != t.active
        || target.is_command()
        || !tp.on_table()
        || matches!(
            tp.orders.last_kind,
            Some(UnitActionKind::Charge | UnitActionKind::Support)
        )
    {
        return Vec::new();
    }
    // FIRE-31: under full orders, only a unit that moved or fired under the current order.
    let current = ctx.state.command.current.as_ref().map(|c| c.id);
    if ctx.state.command.mode == OrdersMode::Full
        && (current.is_none() || tp.orders.acted_in_order != current)
    {
        return Vec::new();
    }
    let Some(at) = pose_of(ctx, target).map(|p| p.at) else {
        return Vec::new();
    };
    let side = 1 - t.active.min(1);
    let needed = if defends(ctx, side) {
        OPPORTUNITY_HITS_DEFENDER
    } else {
        OPPORTUNITY_HITS_ATTACKER
    };
    let mut scored: Vec<(f64, PieceId)> = Vec::new();
    // A unit's range depends only on its side and troop row here (the context is fixed), and
    // many units share a row: each is worked out once.
    let mut ranges: Vec<(usize, Option<&TroopTypeId>, Option<f64>)> = Vec::new();
    for p in side_units(ctx, side).filter(|p| p.on_table()) {
        let u = p.id;
        if idle(p)
            || p.limbered
            || p.orders.opportunity_fired_in == Some(t.player_turn)
            || ctx.state.charges.combat_of(u).is_some()
        {
            continue;
        }
        let key = (u.side(), p.troop_type.as_ref());
        let known = ranges
            .iter()
            .find(|(s, tt, _)| (*s, *tt) == key)
            .map(|(_, _, r)| *r);
        let range = match known {
            Some(r) => r,
            None => {
                let r = weapon_range_cm(ctx, p);
                ranges.push((key.0, key.1, r));
                r
            }
        };
        let Some(range) = range else {
            continue;
        };
        if p.pose
            .is_none_or(|q| dist(q.at, at) > range + BODY_MARGIN_CM)
        {
            continue;
        }
        if super::policy::within_sight(ctx, sight, u, target, range).is_none() {
            continue;
        }
        // FIRE-32: a shot out of range or cone is wasted, not refused; the policy judges the
        // shot as the engine's own check (no dice) plans it — range, cone, fire over friends.
        let Ok(plan) = check_fire_as(ctx, &[u], target, None, FireOccasion::Opportunity) else {
            continue;
        };
        let hits = expected_hits(ctx, &plan);
        if hits >= needed {
            scored.push((hits, u));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .map(|(_, u)| Action::OpportunityFire {
            firers: vec![u],
            target,
            at: None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Consolidation (CHG-24).

/// CHG-24: the consolidations of the winners whose right is valid now, in the CHG-24 order
/// (the attacker first). A winner that is not shaken moves forward (5 cm, else 3.5 or 2) when
/// that takes it onto its side's objective ground, or — an attacker — at least 1 cm nearer its
/// goal, and does not leave it nearer than [`CONSOLIDATE_SAFE_CM`] to an enemy than it was. The
/// engine's own check (`resolve_consolidate`) decides what is legal.
pub fn consolidations(ctx: &Ctx) -> Vec<Action> {
    let t = ctx.state.turn;
    let mut rights: Vec<(u32, PieceId)> = ctx
        .state
        .charges
        .consolidation
        .iter()
        .filter(|r| r.player_turn == t.player_turn && r.phase == t.phase)
        .map(|r| (r.order, r.piece))
        .collect();
    rights.sort();
    rights
        .into_iter()
        .filter_map(|(_, piece)| {
            consolidate_to(ctx, piece).map(|to| Action::Consolidate { piece, to })
        })
        .collect()
}

fn nearest_enemy_cm(ctx: &Ctx, side: usize, at: Point) -> f64 {
    troops_of(ctx, 1 - side.min(1))
        .into_iter()
        .filter_map(|e| pose_of(ctx, e).map(|p| dist(p.at, at)))
        .fold(f64::INFINITY, f64::min)
}

fn consolidate_to(ctx: &Ctx, id: PieceId) -> Option<Pose> {
    let p = ctx.piece(id).ok()?;
    let from = pose_of(ctx, id)?;
    if is_shaken(ctx, p) {
        return None;
    }
    let side = id.side();
    let goal = side_goal(ctx, side)?;
    let defender = defends(ctx, side);
    let h = heading(from.facing_deg);
    let before = nearest_enemy_cm(ctx, side, from.at);
    for step in [CONSOLIDATE_CM, 3.5, 2.0] {
        let to = Pose {
            at: Point::new(from.at.x + h.x * step, from.at.y + h.y * step),
            facing_deg: from.facing_deg,
        };
        let onto = !on_objective(ctx, side, from.at) && on_objective(ctx, side, to.at);
        let gain = dist(from.at, goal) - dist(to.at, goal);
        let worth = onto || (!defender && gain >= 1.0);
        if !worth {
            return None;
        }
        let after = nearest_enemy_cm(ctx, side, to.at);
        if after < CONSOLIDATE_SAFE_CM && after < before {
            continue;
        }
        if resolve_consolidate(ctx, id, to).is_ok() {
            return Some(to);
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Self-orders (CMD-07).

/// CMD-07: the self-orders of the active side's isolated units that no command unit ordered
/// this turn (too far from every one of them): each unsuppressed unit with no friendly piece
/// within 20 cm and unseen by its command units (the engine's `is_isolated`), which did not
/// self-order in its last turn and does not stand on its side's objective ground (the
/// self-order's move goes towards its command unit, away from the ground it holds). A friend's reference point within 20 cm already rules a unit
/// out, so the sight test is made only for units truly alone.
pub fn self_orders(ctx: &Ctx) -> Vec<Action> {
    let t = ctx.state.turn;
    let side = t.active;
    let friends: Vec<(PieceId, Point)> = ctx
        .state
        .pieces
        .values()
        .filter(|p| p.id.side() == side && p.on_table())
        .filter_map(|p| p.pose.map(|q| (p.id, q.at)))
        .collect();
    let mut out = Vec::new();
    for u in troops_of(ctx, side) {
        let Ok(p) = ctx.piece(u) else { continue };
        let o = &p.orders;
        if idle(p)
            || o.commander.is_some()
            || o.closed
            || o.hq_failed
            || o.self_ordered_in.is_some_and(|pt| pt + 2 == t.player_turn)
            || ctx.state.charges.combat_of(u).is_some()
        {
            continue;
        }
        let Some(at) = pose_of(ctx, u).map(|q| q.at) else {
            continue;
        };
        // A unit holding its side's objective ground stays there, ordered or not.
        if on_objective(ctx, side, at) {
            continue;
        }
        if friends
            .iter()
            .any(|(f, q)| *f != u && dist(at, *q) <= ISOLATION_CM)
        {
            continue;
        }
        if is_isolated(ctx, u) {
            out.push(Action::SelfOrder { piece: u });
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Initiative evades (INIT-05).

/// INIT-05: a skirmisher (VIS-07) or a gun evades its nearest visible enemy `enemy` when that
/// enemy could charge it with good odds ([`charge_odds`] as the policy's own charge rule:
/// hits dealt at least 1.5 × those taken + 0.2) and — a gun — it has no shot at it
/// (`has_shot`). It ends facing the enemy. Squares never evade (MOVE-15).
pub fn initiative_evade(ctx: &Ctx, id: PieceId, enemy: PieceId, has_shot: bool) -> Option<Action> {
    let p = ctx.piece(id).ok()?;
    let ep = ctx.piece(enemy).ok()?;
    let gun = is_artillery(ctx, p);
    if !(gun || is_skirmisher(ctx, p)) || p.formation == Some(Formation::Square) {
        return None;
    }
    if (gun && has_shot) || is_artillery(ctx, ep) || idle(ep) {
        return None;
    }
    let (dealt, taken) = charge_odds(ctx, ep, p);
    let threatened = dealt >= taken * 1.5 + 0.2 || (is_mounted_cavalry(ctx, ep) && !gun);
    threatened.then(|| Action::Evade {
        piece: id,
        facing_deg: facing_towards(ctx, id, enemy),
        mount: false,
    })
}
