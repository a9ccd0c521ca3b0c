//! The solo opponent's decisions: small pure functions from the table ([`Ctx`]) to candidate
//! [`Action`]s, best first. Nothing here changes the battle or rolls a die; the driver
//! ([`super::autoplay`]) performs what these propose. The policy is described in the module essay
//! ([`super`]) and in `docs/autoplay.md`.
//!
//! Each decision is its own function so the command rules can rewire them one at a time:
//! [`initiative_actions`] (one unit's initiative), [`plan_unit`] (one unit's action in an order),
//! [`order_groups`] (which units each command unit orders), [`consider_charge`] (the charge
//! step: odds from the charge module's own dice, CHG-14) and [`hq_move`] (a command unit
//! following its units). Supports, opportunity fire, consolidation, self-orders, evades and the
//! objective judgment live in [`super::tactics`]. In short, a unit charges when the odds favour
//! it, else fires at the target with the most expected hits, else moves: on the nearest enemy
//! within reach, else on its side's objective ground (which, once there, it holds), in march
//! column far from the enemy and in line near it.
//!
//! Layering: pure; depends on `rules`, `model` and `geom` only (checked by `tests/layering.rs`).

use super::tactics;
use crate::geom::footprint::{bearing_deg, heading, normalize_deg, ring_polygon};
use crate::geom::segment::{segment_meets_polygon, Segment};
use crate::geom::{ring_contains, Point};
use crate::model::{
    Arm, Attack as AttackValue, Cover, Geometry, HqId, Scenario, Side, TerrainKind, UnitId,
};
use crate::rules::action::{Action, Manoeuvre};
use crate::rules::battle::{check_deploy, check_limber, Ctx};
use crate::rules::casualty::{
    fire_dice, save_plan, score_to_hit, DiceSituation, SaveSituation, SquareBonus,
};
use crate::rules::charge::{
    charge_dice, charge_dice_per_stand, check_charge_as, ChargeDiceSituation, Edge, Response,
    CHARGE_CM,
};
use crate::rules::error::ActionError;
use crate::rules::firing::{
    firer_plan, is_mounted_cavalry, save_of, target_cover, weapon_range_cm, FirePlan, INITIATIVE_CM,
};
use crate::rules::geometry::{aspect, footprint_of};
use crate::rules::movement::{legal_destinations, move_allowance, MoveChecker};
use crate::rules::state::{Formation, PieceId, PieceState, Pose};
use crate::rules::terrain::{feature_going, mover_of, Going};
use crate::rules::visibility::SightIndex;
use std::cell::OnceCell;
use std::collections::BTreeSet;

/// An attacker engages an enemy unit this close (reference points, cm) instead of marching on
/// its objective.
pub const ENGAGE_ATTACKER_CM: f64 = 40.0;
/// A defender leaves its ground only for an enemy this close.
pub const ENGAGE_DEFENDER_CM: f64 = 25.0;
/// Beyond this from every enemy a line forms march column to travel (MOVE-09).
pub const FAR_CM: f64 = 50.0;
/// Within this of an enemy a march column deploys into line.
pub const NEAR_CM: f64 = 40.0;
/// A square stays formed while enemy mounted cavalry is this close (MOVE-17's forced-square
/// distance); beyond it, it goes back into line.
pub const SQUARE_STAY_CM: f64 = 30.0;
/// Foot forms square when enemy mounted cavalry comes this close (MOVE-16, MOVE-17's 30 cm is
/// the forced square; this is the voluntary one, inside the initiative distance).
pub const SQUARE_THREAT_CM: f64 = 20.0;
/// A defender's unit farther than this from its objective's centre walks back to it.
pub const HOLD_RADIUS_CM: f64 = 30.0;
/// Mounted cavalry without a ranged attack closes to this distance, to threaten (and, once the
/// engine has charges, to charge: [`consider_charge`]).
pub const CAVALRY_STANDOFF_CM: f64 = 12.0;
/// A unit in range of an enemy it cannot shoot at closes to this distance (reference points).
pub const CLOSE_IN_CM: f64 = 2.0;
/// A column this close to the end of a bridge stays in column, to keep the way clear.
pub const BRIDGE_CLEAR_CM: f64 = 12.0;
/// A command unit stays this far behind the centre of its units.
pub const HQ_BEHIND_CM: f64 = 6.0;
/// A gun in action whose nearest enemy in range lies more than this off its facing limbers to
/// turn (the fire cone is ±15°, FIRE-04).
pub const GUN_TURN_DEG: f64 = 20.0;
/// The formations a march column halted near the enemy tries, best first (line to fire).
pub const FIGHTING_FORMATIONS: [Formation; 3] = [
    Formation::Line,
    Formation::ExtendedLine,
    Formation::AttackColumn,
];
/// Grid of the destinations sampled when the straight move is refused (cm).
pub const RESOLUTION_CM: f64 = 3.0;

/// The sight index (VIS-01..VIS-17) of one look at the table, built only when a decision first
/// needs it: most units far from the enemy never do.
///
/// With it, read on first need too: per side, the troop units on the table by the x of their
/// reference point (strips of x find the enemies near a point, and the nearest, without walking
/// every piece) and each side's goal ([`side_goal`]). (The moves checked on it are remembered
/// by the battle's own memo, `movement::MoveAnswers`.) Like the index, it holds for the table
/// it was first read from; the driver makes a new `Sight` whenever a piece moves, arrives or
/// leaves.
#[derive(Default)]
pub struct Sight {
    cell: OnceCell<std::sync::Arc<SightIndex>>,
    troops: [OnceCell<Strips>; 2],
    goals: [OnceCell<Option<Point>>; 2],
    plans: [OnceCell<super::plan::SidePlan>; 2],
}

impl Sight {
    pub fn new() -> Sight {
        Sight::default()
    }

    pub fn get(&self, ctx: &Ctx) -> &SightIndex {
        self.cell
            .get_or_init(|| crate::rules::visibility::sight_index(ctx))
    }

    /// [`nearest_enemy`] of `id`, read from the strips: the least distance, ties by id, as
    /// the walk over every enemy in id order finds it.
    pub(crate) fn nearest_enemy(&self, ctx: &Ctx, id: PieceId) -> Option<(PieceId, f64)> {
        let at = pose_of(ctx, id)?.at;
        let enemy = 1 - id.side().min(1);
        let strips = self
            .troops
            .get(enemy)
            .map(|c| c.get_or_init(|| Strips::of(ctx, enemy)));
        let found = match strips {
            Some(s) if !s.left_out && at.x.is_finite() && at.y.is_finite() => s.nearest(at),
            _ => return nearest_enemy(ctx, id),
        };
        // The winner is read again from the table; any doubt, and every enemy is walked.
        match found {
            Some((e, d))
                if ctx.state.piece(e).is_some_and(|p| {
                    p.on_table() && p.pose.is_some_and(|q| dist(at, q.at) == d)
                }) =>
            {
                Some((e, d))
            }
            _ => nearest_enemy(ctx, id),
        }
    }

    /// The plan of `side` (0 or 1, [`super::plan::side_plan`]), worked out once; the task of
    /// `unit`'s formation in it.
    pub fn task(&self, ctx: &Ctx, unit: PieceId) -> Option<super::plan::Task> {
        let side = unit.side();
        match self.plans.get(side) {
            Some(cell) => cell
                .get_or_init(|| super::plan::side_plan(ctx, side))
                .task_of(unit)
                .copied(),
            None => super::plan::side_plan(ctx, side).task_of(unit).copied(),
        }
    }

    /// [`side_goal`] of `side` (0 or 1), worked out once.
    pub(crate) fn goal(&self, ctx: &Ctx, side: usize) -> Option<Point> {
        match self.goals.get(side) {
            Some(cell) => *cell.get_or_init(|| side_goal(ctx, side)),
            None => side_goal(ctx, side),
        }
    }

    /// The enemy troop units of `side` on the table whose reference point lies within `reach`
    /// cm of `at` (`dist(at, p.at) <= reach`), with their poses: exactly those of
    /// [`enemy_troops`] that pass that test, in no particular order.
    pub(crate) fn enemies_near<'a>(
        &self,
        ctx: &Ctx<'a>,
        side: usize,
        at: Point,
        reach: f64,
    ) -> Vec<(&'a PieceState, Pose)> {
        let enemy = 1 - side.min(1);
        let strips = self
            .troops
            .get(enemy)
            .map(|c| c.get_or_init(|| Strips::of(ctx, enemy)));
        let (Some(strips), true) = (
            strips,
            at.x.is_finite() && at.y.is_finite() && reach.is_finite(),
        ) else {
            // Unbounded questions are rare: answered by walking every piece.
            return enemy_troops(ctx, side)
                .filter(|(_, p)| dist(at, p.at) <= reach)
                .collect();
        };
        strips
            .near(at, reach)
            .filter_map(|id| {
                let p = ctx.state.piece(id)?;
                if p.id.side() != enemy || p.id.is_command() || !p.on_table() {
                    return None;
                }
                let pose = p.pose?;
                (dist(at, pose.at) <= reach).then_some((p, pose))
            })
            .collect()
    }
}

/// One side's troop units on the table, by vertical strips of the table (x of the reference
/// point), so a question about a point reads only the strips near it. Points with a coordinate
/// that is not finite are left out: no finite reach gets to them.
#[derive(Debug, Default)]
struct Strips {
    /// The left edge of the first strip and the strips' width (cm).
    x0: f64,
    width: f64,
    /// Strip `k` holds `points[starts[k]..starts[k + 1]]`.
    starts: Vec<usize>,
    points: Vec<(Point, PieceId)>,
    /// A unit was left out (a coordinate not finite).
    left_out: bool,
}

impl Strips {
    /// At most this many strips, however wide the table.
    const MAX: f64 = 64.0;
    /// Strips are at least this wide (cm).
    const MIN_WIDTH: f64 = 8.0;

    fn of(ctx: &Ctx, side: usize) -> Strips {
        let posed: Vec<(Point, PieceId)> = side_units(ctx, side)
            .filter(|p| p.on_table())
            .filter_map(|p| p.pose.map(|q| (q.at, p.id)))
            .collect();
        let n_posed = posed.len();
        let all: Vec<(Point, PieceId)> = posed
            .into_iter()
            .filter(|(at, _)| at.x.is_finite() && at.y.is_finite())
            .collect();
        let left_out = all.len() != n_posed;
        let (lo, hi) = all
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), (p, _)| {
                (l.min(p.x), h.max(p.x))
            });
        if all.is_empty() {
            return Strips {
                left_out,
                ..Strips::default()
            };
        }
        let width = ((hi - lo) / Strips::MAX).max(Strips::MIN_WIDTH);
        let mut s = Strips {
            x0: lo,
            width,
            starts: Vec::new(),
            points: Vec::new(),
            left_out,
        };
        let n = s.strip(hi) + 1;
        let mut starts = vec![0usize; n + 1];
        for (p, _) in &all {
            if let Some(c) = starts.get_mut(s.strip(p.x) + 1) {
                *c += 1;
            }
        }
        for k in 1..starts.len() {
            let before = starts.get(k - 1).copied().unwrap_or(0);
            if let Some(c) = starts.get_mut(k) {
                *c += before;
            }
        }
        let mut next = starts.clone();
        let mut points = vec![(Point::new(0.0, 0.0), PieceId::Hq { side, hq: HqId(0) }); all.len()];
        for e in all {
            let Some(slot) = next.get_mut(s.strip(e.0.x)) else {
                continue;
            };
            if let Some(dst) = points.get_mut(*slot) {
                *dst = e;
            }
            *slot += 1;
        }
        s.starts = starts;
        s.points = points;
        s
    }

    /// The strip of `x` (clamped to the first and last).
    fn strip(&self, x: f64) -> usize {
        // `as` truncates towards zero (the floor here, below 0 and NaN give 0) and saturates.
        let k = ((x - self.x0) / self.width) as usize;
        if self.starts.is_empty() {
            k
        } else {
            k.min(self.starts.len().saturating_sub(2))
        }
    }

    /// The nearest point to `at` (least distance, ties by id): the strips read outwards from
    /// `at`'s, until the next strip lies farther off (with a centimetre to spare) than the best.
    fn nearest(&self, at: Point) -> Option<(PieceId, f64)> {
        let n = self.starts.len().saturating_sub(1);
        if n == 0 {
            return None;
        }
        let mut best: Option<(f64, PieceId)> = None;
        let scan = |k: usize, best: &mut Option<(f64, PieceId)>| {
            let from = self.starts.get(k).copied().unwrap_or(0);
            let to = self.starts.get(k + 1).copied().unwrap_or(0).max(from);
            for (p, id) in self.points.get(from..to).unwrap_or(&[]) {
                let d = dist(at, *p);
                if best.is_none_or(|(b, bid)| d < b || (d == b && *id < bid)) {
                    *best = Some((d, *id));
                }
            }
        };
        let k0 = self.strip(at.x);
        scan(k0, &mut best);
        let (mut l, mut r) = (k0, k0);
        loop {
            let gl = if l > 0 {
                at.x - (self.x0 + l as f64 * self.width)
            } else {
                f64::INFINITY
            };
            let gr = if r + 1 < n {
                self.x0 + (r + 1) as f64 * self.width - at.x
            } else {
                f64::INFINITY
            };
            let g = gl.min(gr);
            if g == f64::INFINITY || best.is_some_and(|(b, _)| g - 1.0 > b) {
                break;
            }
            if gl <= gr {
                l -= 1;
                scan(l, &mut best);
            } else {
                r += 1;
                scan(r, &mut best);
            }
        }
        best.map(|(d, id)| (id, d))
    }

    /// The pieces whose reference point may lie within `reach` of `at` (a superset: the strips
    /// a centimetre wider than the reach either side, then a box test).
    fn near(&self, at: Point, reach: f64) -> impl Iterator<Item = PieceId> + '_ {
        let r = reach + 1.0;
        let (a, b) = (self.strip(at.x - r), self.strip(at.x + r));
        let from = self.starts.get(a).copied().unwrap_or(0);
        let to = self.starts.get(b + 1).copied().unwrap_or(0).max(from);
        self.points
            .get(from..to)
            .unwrap_or(&[])
            .iter()
            .filter(move |(p, _)| (p.x - at.x).abs() <= r && (p.y - at.y).abs() <= r)
            .map(|(_, id)| *id)
    }
}

/// One unit of an order with its candidate actions, best first; the first the rules accept is
/// carried out, and none at all means the unit stands.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedUnit {
    pub piece: PieceId,
    pub candidates: Vec<Action>,
}

/// CMD-02, CMD-03: the units one command unit orders together, each with its planned action.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderGroup {
    pub hq: PieceId,
    pub units: Vec<PieceId>,
}

/// The reference point of a piece on the table.
pub fn pose_of(ctx: &Ctx, id: PieceId) -> Option<Pose> {
    ctx.state
        .piece(id)
        .filter(|p| p.on_table())
        .and_then(|p| p.pose)
}

pub(crate) fn dist(a: Point, b: Point) -> f64 {
    a.distance(b).0
}

/// The troop units of `side` still on the table, in id order.
pub fn troops_of(ctx: &Ctx, side: usize) -> Vec<PieceId> {
    side_units(ctx, side)
        .filter(|p| p.on_table())
        .map(|p| p.id)
        .collect()
}

/// The troop units of `side` (on the table or not), in id order: one run of the pieces, as a
/// [`PieceId`] orders units before command units, each by side.
pub(crate) fn side_units<'a>(
    ctx: &Ctx<'a>,
    side: usize,
) -> impl Iterator<Item = &'a PieceState> + 'a {
    let first = PieceId::Unit {
        side,
        unit: UnitId(0),
    };
    ctx.state
        .pieces
        .range(first..)
        .map(|(_, p)| p)
        .take_while(move |p| p.id.side() == side && !p.id.is_command())
}

/// The command units of `side` on the table, the CO last (CMD-02), the rest in id order.
pub fn command_units(ctx: &Ctx, side: usize) -> Vec<PieceId> {
    let co = ctx
        .scenario
        .sides
        .get(side)
        .and_then(|s| s.co())
        .map(|h| PieceId::Hq { side, hq: h.id });
    let mut out: Vec<PieceId> = ctx
        .state
        .pieces
        .values()
        .filter(|p| p.id.side() == side && p.id.is_command() && p.on_table())
        .map(|p| p.id)
        .filter(|id| Some(*id) != co)
        .collect();
    if let Some(co) = co.filter(|c| ctx.state.piece(*c).is_some_and(|p| p.on_table())) {
        out.push(co);
    }
    out
}

/// FIRE-23: a suppressed unit does nothing in its own turn.
pub(crate) fn idle(p: &PieceState) -> bool {
    p.suppressed_at.is_some()
}

pub(crate) fn is_artillery(ctx: &Ctx, p: &PieceState) -> bool {
    ctx.row(p).is_some_and(|r| r.arm == Arm::Artillery)
}

/// The stands a unit started with.
fn starting_stands(scenario: &Scenario, id: PieceId) -> u8 {
    match id {
        PieceId::Unit { side, unit } => scenario
            .sides
            .get(side)
            .and_then(|s| s.unit(unit))
            .map_or(1, |u| u.stands),
        PieceId::Hq { .. } => 1,
    }
}

/// Shaken: a unit of more than one stand that has lost half of them or more.
pub fn is_shaken(ctx: &Ctx, p: &PieceState) -> bool {
    let start = starting_stands(ctx.scenario, p.id);
    start > 1 && u32::from(p.stands) * 2 <= u32::from(start)
}

/// The nearest enemy troop unit by reference point (seen or not), ties by id.
pub fn nearest_enemy(ctx: &Ctx, id: PieceId) -> Option<(PieceId, f64)> {
    let at = pose_of(ctx, id)?.at;
    let mut best: Option<(PieceId, f64)> = None;
    for (e, p) in enemy_troops(ctx, id.side()) {
        let d = dist(at, p.at);
        if best.is_none_or(|(_, b)| d < b) {
            best = Some((e.id, d));
        }
    }
    best
}

/// The enemy troop units of `side` on the table with their poses, in id order: what
/// [`troops_of`] and [`pose_of`] give together, read in one pass over the pieces.
fn enemy_troops<'a>(
    ctx: &Ctx<'a>,
    side: usize,
) -> impl Iterator<Item = (&'a PieceState, Pose)> + 'a {
    let enemy = 1 - side.min(1);
    side_units(ctx, enemy).filter_map(|p| {
        if p.on_table() {
            p.pose.map(|pose| (p, pose))
        } else {
            None
        }
    })
}

/// Margin (cm) between reference points and base edges when picking the enemies worth a sight
/// test: no formation reaches further than this from its reference point.
pub(crate) const BODY_MARGIN_CM: f64 = 20.0;

/// VIS-01, §1.5: the enemy troop units `id` sees within `reach` cm (edge to edge), nearest
/// first, ties by id (command units are no target, CMD-24). Only enemies whose reference point
/// is within reach of a body are tested, so the cost follows what is near.
pub fn seen_within(ctx: &Ctx, sight: &Sight, id: PieceId, reach: f64) -> Vec<(PieceId, f64)> {
    let Some(at) = pose_of(ctx, id).map(|p| p.at) else {
        return Vec::new();
    };
    let mut out: Vec<(PieceId, f64)> = sight
        .enemies_near(ctx, id.side(), at, reach + BODY_MARGIN_CM)
        .into_iter()
        .filter_map(|(e, _)| within_sight(ctx, sight, id, e.id, reach).map(|d| (e.id, d)))
        .collect();
    out.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    out
}

/// VIS-01, §1.5: the distance at which `id` sees `target`, when it does within `reach` cm
/// (edge to edge). A visible answer's distance is the pair's edge gap, so a target farther than
/// `reach` is ruled out by the gap before its line of sight is traced; the answer is the same.
pub(crate) fn within_sight(
    ctx: &Ctx,
    sight: &Sight,
    id: PieceId,
    target: PieceId,
    reach: f64,
) -> Option<f64> {
    let index = sight.get(ctx);
    if index.edge_gap(id, target)? > reach + 1e-9 {
        return None;
    }
    let s = index.sight(id, target);
    (s.visible && s.distance_cm <= reach + 1e-9).then_some(s.distance_cm)
}

/// Expected hits of a checked Fire plan: dice (FIRE-08, FIRE-11, FIRE-12 through
/// [`fire_dice`]) × chance to hit ([`score_to_hit`] with the target's cover) × chance the
/// save fails ([`save_plan`]). An estimate for choosing targets; the dice decide.
pub fn expected_hits(ctx: &Ctx, plan: &FirePlan) -> f64 {
    let Ok(tp) = ctx.piece(plan.target) else {
        return 0.0;
    };
    let Some(tfp) = footprint_of(ctx, tp) else {
        return 0.0;
    };
    let mut total = 0.0;
    for f in &plan.firers {
        let Ok(fp) = ctx.piece(f.piece) else { continue };
        let Some(ffp) = footprint_of(ctx, fp) else {
            continue;
        };
        let flank = aspect(ctx, fp, tp).is_some_and(|a| a != crate::geom::Aspect::Front);
        let square = if tp.formation != Some(Formation::Square) {
            SquareBonus::None
        } else if f.class.is_ordnance() {
            SquareBonus::PerStand
        } else {
            SquareBonus::PerUnit
        };
        let dice = fire_dice(&DiceSituation {
            stands: f.stands,
            dice_per_stand: f.dice_per_stand,
            target_extended_line: tp.formation == Some(Formation::ExtendedLine),
            within_half_range: f.class.half_range_bonus()
                && f.distance_cm <= f.range_cm / 2.0 + 1e-9,
            flank_or_rear: flank,
            square,
            firer_extended_line: fp.formation == Some(Formation::ExtendedLine),
            ..DiceSituation::default()
        })
        .dice;
        let cover = target_cover(ctx, ffp.centroid(), tp, &tfp).cover;
        let needed = score_to_hit(cover, false, false, false).needed;
        let p_hit = f64::from(7u8.saturating_sub(needed)) / 6.0;
        let save = save_plan(&SaveSituation {
            save: save_of(ctx, tp),
            replacement: None,
            flank_or_rear: flank,
            formation: tp.formation,
            ranged: true,
        });
        let p_saved = save
            .target
            .map_or(0.0, |s| f64::from(7u8.saturating_sub(s)) / 6.0);
        total += f64::from(dice) * p_hit * (1.0 - p_saved);
    }
    total
}

/// The Fire actions a unit may make now, most expected hits first (ties by target id).
pub fn fire_candidates(ctx: &Ctx, sight: &Sight, id: PieceId) -> Vec<Action> {
    fire_scored(ctx, sight, id)
        .into_iter()
        .map(|(_, a)| a)
        .collect()
}

/// [`fire_candidates`] with each shot's expected hits.
fn fire_scored(ctx: &Ctx, sight: &Sight, id: PieceId) -> Vec<(f64, Action)> {
    let Ok(p) = ctx.piece(id) else {
        return Vec::new();
    };
    let Some(range) = weapon_range_cm(ctx, p) else {
        return Vec::new();
    };
    if p.limbered || idle(p) {
        return Vec::new();
    }
    let attacking = sight.task(ctx, id).is_some_and(|t| t.is_attack());
    let mut scored: Vec<(f64, f64, PieceId)> = seen_within(ctx, sight, id, range)
        .into_iter()
        .filter_map(|(e, d)| {
            let plan = sighted_plan(ctx, p, e, d, range)?;
            let hits = expected_hits(ctx, &plan);
            Some((hits * fire_focus(ctx, e, attacking), hits, e))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2)));
    scored
        .into_iter()
        .map(|(_, h, target)| {
            (
                h,
                Action::Fire {
                    firers: vec![id],
                    target,
                    ammunition: None,
                },
            )
        })
        .collect()
}

/// How much a hit on `target` is worth beyond its count, for choosing whom to fire at: fire is
/// concentrated. A unit already suppressed falls back when hit again (FIRE-24, FIRE-26) — off
/// its ground, or out of the battle if far — so it is worth half as much again; and an
/// attacker's fire prepares the assault on the enemy standing on its objective ground, worth
/// half as much again too.
fn fire_focus(ctx: &Ctx, target: PieceId, attacking: bool) -> f64 {
    let mut w = 1.0;
    if ctx
        .piece(target)
        .is_ok_and(|tp| tp.suppressed_at.is_some() && !tp.dug_in)
    {
        w += FOCUS_BONUS;
    }
    if attacking && tactics::piece_on_objective(ctx, 1 - target.side().min(1), target) {
        w += FOCUS_BONUS;
    }
    w
}

/// The plan [`check_fire`](crate::rules::firing::check_fire) makes for one firer at a target
/// it sees at `distance` cm, from the rules' own per-firer plan ([`firer_plan`]: weapon class
/// and load, ART-01; the stands in the fire cone, FIRE-04, FIRE-05; dice per stand), without
/// the legality checks the engine makes when the Fire is performed (which a refused candidate
/// then meets, as before). `None` when no stand bears.
fn sighted_plan(
    ctx: &Ctx,
    p: &PieceState,
    target: PieceId,
    distance: f64,
    range: f64,
) -> Option<FirePlan> {
    let tp = ctx.state.piece(target)?;
    let (fp, tfp) = (footprint_of(ctx, p)?, footprint_of(ctx, tp)?);
    let firer = firer_plan(ctx, p, &fp, &tfp, None, range, distance, true)?;
    Some(FirePlan {
        shell: firer.ammunition.is_some_and(|a| a.is_shell()),
        firers: vec![firer],
        target,
        forced_square: false,
    })
}

/// MOVE-16: foot that may form square, threatened by visible enemy mounted cavalry within
/// `reach` cm.
fn square_threat(ctx: &Ctx, sight: &Sight, p: &PieceState, reach: f64) -> bool {
    p.formation != Some(Formation::Square) && cavalry_near(ctx, sight, p, reach)
}

/// MOVE-16, MOVE-17: whether visible enemy mounted cavalry stands within `reach` of the unit.
fn cavalry_near(ctx: &Ctx, sight: &Sight, p: &PieceState, reach: f64) -> bool {
    let Some(at) = pose_of(ctx, p.id).map(|q| q.at) else {
        return false;
    };
    sight
        .enemies_near(ctx, p.id.side(), at, reach + BODY_MARGIN_CM)
        .into_iter()
        .any(|(e, _)| {
            is_mounted_cavalry(ctx, e) && within_sight(ctx, sight, p.id, e.id, reach).is_some()
        })
}

/// INIT-01..INIT-06: one unit's initiative action, judged now (INIT-02). Only against the
/// nearest visible enemy within 20 cm: form square against cavalry (INIT-06), fire (INIT-04),
/// or unlimber a gun to face it (INIT-06). Empty: the unit takes no initiative.
pub fn initiative_actions(ctx: &Ctx, sight: &Sight, id: PieceId) -> Vec<Action> {
    let Ok(p) = ctx.piece(id) else {
        return Vec::new();
    };
    if id.is_command() || !p.on_table() || idle(p) || !tactics::may_use_initiative(ctx, p) {
        return Vec::new();
    }
    let Some((near, _)) = seen_within(ctx, sight, id, INITIATIVE_CM).first().copied() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if square_threat(ctx, sight, p, SQUARE_THREAT_CM)
        && check_deploy(ctx, id, Formation::Square).is_ok()
    {
        out.push(Action::Deploy {
            piece: id,
            formation: Formation::Square,
        });
    }
    out.extend(consider_charge(ctx, sight, id));
    // INIT-11: a friend's charge that support would help comes before the unit's own fire.
    out.extend(tactics::initiative_support(ctx, id));
    // INIT-04 / ART-09: the rules pick the allowed target; offer the nearest first, then any
    // other the check accepts (artillery's counter-battery).
    let fire = fire_candidates(ctx, sight, id);
    let (nearest, others): (Vec<Action>, Vec<Action>) = fire
        .into_iter()
        .partition(|a| matches!(a, Action::Fire { target, .. } if *target == near));
    // INIT-05: a threatened skirmisher evades before it fires; a gun only when it has no shot.
    let evade = tactics::initiative_evade(ctx, id, near, !nearest.is_empty());
    if !is_artillery(ctx, p) {
        out.extend(evade.clone());
    }
    out.extend(nearest);
    out.extend(others);
    if is_artillery(ctx, p) {
        out.extend(evade);
    }
    if p.limbered && is_artillery(ctx, p) && check_limber(ctx, id, false).is_ok() {
        if let Some(facing) = facing_towards(ctx, id, near) {
            out.push(Action::Unlimber {
                piece: id,
                facing_deg: facing,
            });
        }
    }
    out
}

/// Hits one side of a charge is expected to score in the first round: its dice (CHG-13,
/// CHG-14 through [`charge_dice`]) × the chance to hit `p_hit` × the chance the other's save
/// (melee: squares and lines keep theirs, [`save_plan`]) fails. `by_flanked`: `by` is the
/// defender contacted on a flank or the rear (CHG-11: its flank stand only, at −2, CHG-14);
/// `on_flanked`: `on` is, so its save is one worse (CHG-18). An estimate for deciding; the dice
/// decide.
#[allow(clippy::too_many_arguments)]
fn charge_hits(
    ctx: &Ctx,
    by: &PieceState,
    on: &PieceState,
    charging: bool,
    support: u32,
    p_hit: f64,
    by_flanked: bool,
    on_flanked: bool,
) -> f64 {
    // CHG-14: each supporter adds +1 die to its side's pool (as the engine's side pool does).
    let dice = support
        + charge_dice(&ChargeDiceSituation {
            stands: if by_flanked { 1 } else { u32::from(by.stands) },
            dice_per_stand: charge_dice_per_stand(ctx, by),
            charging,
            suppressed: by.suppressed_at.is_some(),
            flank_or_rear: by_flanked,
            disordered: by.formation == Some(Formation::Disordered),
            ..ChargeDiceSituation::default()
        })
        .dice;
    let save = save_plan(&SaveSituation {
        save: save_of(ctx, on),
        replacement: None,
        flank_or_rear: on_flanked,
        formation: on.formation,
        ranged: false,
    });
    let p_saved = save
        .target
        .map_or(0.0, |s| f64::from(7u8.saturating_sub(s)) / 6.0);
    f64::from(dice) * p_hit * (1.0 - p_saved)
}

/// CHG-16: the chance a charger standing where `by` stands hits `on` in the first round — by
/// `on`'s own cover against it (FIRE-15, [`target_cover`]; a square one level better against
/// mounted cavalry, MOVE-18): 4+ in the open, 5+ in soft cover, 6 in hard or full.
fn first_round_hit(ctx: &Ctx, by: &PieceState, on: &PieceState) -> f64 {
    let (Some(bfp), Some(tfp)) = (footprint_of(ctx, by), footprint_of(ctx, on)) else {
        return 0.5;
    };
    let mut cover = target_cover(ctx, bfp.centroid(), on, &tfp).cover;
    if on.formation == Some(Formation::Square) && is_mounted_cavalry(ctx, by) {
        cover = match cover {
            Cover::Open => Cover::Soft,
            _ => Cover::Hard,
        };
    }
    match cover {
        Cover::Open => 0.5,
        Cover::Soft => 1.0 / 3.0,
        Cover::Hard | Cover::Full => 1.0 / 6.0,
    }
}

/// CHG-13..CHG-19 as odds: (expected hits dealt, expected hits taken) in the first round of a
/// charge by `charger` on `target`, contacting its front. Hits taken include a gun's canister or
/// a unit's counter-initiative fire (INIT-12, ART-04) at the same rate as a melee round.
pub fn charge_odds(ctx: &Ctx, charger: &PieceState, target: &PieceState) -> (f64, f64) {
    charge_odds_supported(ctx, charger, target, [0, 0])
}

/// [`charge_odds`] with `support[0]` supporters behind the charger and `support[1]` behind the
/// target (CHG-07, CHG-08: +1 die each to their side, CHG-14).
pub fn charge_odds_supported(
    ctx: &Ctx,
    charger: &PieceState,
    target: &PieceState,
    support: [u32; 2],
) -> (f64, f64) {
    charge_odds_at(ctx, charger, target, support, Edge::Front)
}

/// [`charge_odds_supported`] for a charge that contacts the target's `edge` (CHG-10, the
/// engine's [`check_charge_as`] says which): on a flank or the rear the target fights with its
/// flank stand only, at −2, and saves one worse (CHG-11, CHG-14, CHG-18), and it cannot meet
/// the charge with fire from its front. The charger hits the target by its cover (CHG-16).
pub fn charge_odds_at(
    ctx: &Ctx,
    charger: &PieceState,
    target: &PieceState,
    support: [u32; 2],
    edge: Edge,
) -> (f64, f64) {
    let flanked = edge != Edge::Front;
    let dealt = charge_hits(
        ctx,
        charger,
        target,
        true,
        support[0],
        first_round_hit(ctx, charger, target),
        false,
        flanked,
    );
    let mut taken = charge_hits(
        ctx,
        target,
        charger,
        is_mounted_cavalry(ctx, target),
        support[1],
        0.5,
        flanked,
        false,
    );
    let ranged = ctx
        .row(target)
        .is_some_and(|r| matches!(r.attack, Some(AttackValue::Ranged { .. })));
    if ranged && !flanked && target.suppressed_at.is_none() && !target.limbered {
        taken *= 1.6; // it fires as the charge comes in
    }
    (dealt, taken)
}

/// CHG-01..CHG-06, INIT-07: the charge step of a unit's plan — at its nearest visible enemy
/// unit within the 20 cm charge reach, from line or attack column (CHG-02), when the odds
/// favour it ([`charge_odds`]): expected hits dealt at least half as many again as those taken,
/// or more than taken against a suppressed, disordered or shaken unit. Cavalry does not charge
/// a square (MOVE-16). Empty otherwise; the engine checks the rest (path, contact edge).
pub fn consider_charge(ctx: &Ctx, sight: &Sight, id: PieceId) -> Vec<Action> {
    let Ok(p) = ctx.piece(id) else {
        return Vec::new();
    };
    if id.is_command()
        || idle(p)
        || is_artillery(ctx, p)
        || !matches!(p.formation, Some(Formation::Line | Formation::AttackColumn))
    {
        return Vec::new();
    }
    let Some((target, _)) = seen_within(ctx, sight, id, CHARGE_CM).first().copied() else {
        return Vec::new();
    };
    let Ok(tp) = ctx.piece(target) else {
        return Vec::new();
    };
    if tp.formation == Some(Formation::Square) && is_mounted_cavalry(ctx, p) {
        return Vec::new();
    }
    if ctx.state.charges.combat_of(target).is_some() {
        return Vec::new(); // one charge per target at a time
    }
    // CHG-01..CHG-10: the engine's own check (it rolls no dice) — distance to the edge it
    // would reach, formation, gaps — so no charge is declared blindly; and the edge it would
    // contact, which the odds depend on (CHG-11).
    let Some(edge) = check_charge_as(ctx, &[id], target, false)
        .ok()
        .and_then(|c| c.chargers.first().map(|k| k.edge))
    else {
        return Vec::new();
    };
    let (dealt, taken) = charge_odds_at(ctx, p, tp, [0, 0], edge);
    let weak = tp.suppressed_at.is_some()
        || tp.formation == Some(Formation::Disordered)
        || is_shaken(ctx, tp);
    // The attacker presses on: an enemy on its objective ground is charged at even odds; so is
    // one near the ground an assault (local superiority, `plan`) goes for.
    let task = sight.task(ctx, id);
    let on_ground = tactics::piece_on_objective(ctx, id.side(), target);
    let assault = task.is_some_and(|t| {
        t.is_assault()
            && (on_ground
                || pose_of(ctx, target)
                    .is_some_and(|q| dist(q.at, t.at()) <= super::plan::LOCAL_CM))
    });
    let press = (!defends(ctx, id.side()) && on_ground) || assault;
    // In the closing turns an attacker storms what stands on its objective whatever it costs
    // (the plan's "take the objective whatever it costs"): at half odds.
    let storm = on_ground
        && !defends(ctx, id.side())
        && task.is_some_and(|t| t.is_attack())
        && tactics::closing_turns(ctx);
    let worth = dealt >= taken * 1.5 + 0.2
        || (weak && dealt > taken)
        || (press && dealt >= taken * 1.1)
        || (storm && dealt >= taken * STORM_ODDS);
    if worth {
        // OPT-SABER-01: mounted cavalry charges with the saber when the rule is on.
        vec![super::optional::with_saber(
            ctx,
            Action::Charge {
                chargers: vec![id],
                target,
                saber: false,
            },
        )]
    } else {
        Vec::new()
    }
}

/// INIT-10, INIT-12..INIT-15, ART-04: the charged unit's response — a gun fires canister,
/// mounted cavalry counter-charges, a unit that would lose the fight evades when it may, and a
/// unit with a ranged weapon fires at the charger. Best first; empty: it stands.
pub fn charge_responses(ctx: &Ctx, target: PieceId, charger: PieceId) -> Vec<Response> {
    let (Ok(tp), Ok(cp)) = (ctx.piece(target), ctx.piece(charger)) else {
        return Vec::new();
    };
    if idle(tp) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if is_artillery(ctx, tp) {
        out.push(Response::Canister);
        return out;
    }
    if is_mounted_cavalry(ctx, tp) {
        out.push(Response::CounterCharge);
    }
    let (dealt, taken) = charge_odds(ctx, cp, tp);
    if dealt > 2.0 * taken.max(0.1) {
        out.push(Response::Evade {
            facing_deg: None,
            limber: false,
        });
    }
    let ranged = ctx
        .row(tp)
        .is_some_and(|r| matches!(r.attack, Some(AttackValue::Ranged { .. })));
    if ranged {
        out.push(Response::Fire { at: charger });
    }
    out
}

pub(crate) fn facing_towards(ctx: &Ctx, from: PieceId, to: PieceId) -> Option<f64> {
    let a = pose_of(ctx, from)?.at;
    let b = pose_of(ctx, to)?.at;
    Some(bearing_deg(a, b))
}

/// Where a side is going: the centre of its major objective's ground when it has one, else the
/// centre of the enemy still on the table.
pub fn side_goal(ctx: &Ctx, side: usize) -> Option<Point> {
    let area = ctx
        .scenario
        .sides
        .get(side)
        .map(|s| s.objectives.major.area.as_slice())
        .unwrap_or(&[]);
    if !area.is_empty() {
        return Some(centre(area.iter().copied()));
    }
    let enemy: Vec<Point> = enemy_troops(ctx, side).map(|(_, p)| p.at).collect();
    (!enemy.is_empty()).then(|| centre(enemy.into_iter()))
}

pub(crate) fn centre(points: impl Iterator<Item = Point>) -> Point {
    let (mut x, mut y, mut n) = (0.0, 0.0, 0.0);
    for p in points {
        x += p.x;
        y += p.y;
        n += 1.0;
    }
    if n > 0.0 {
        Point::new(x / n, y / n)
    } else {
        Point::new(0.0, 0.0)
    }
}

/// DEF-01: the scenario names this side the defender.
pub(crate) fn defends(ctx: &Ctx, side: usize) -> bool {
    ctx.scenario.defender == Some(side)
}

/// An attacking gun moves up to this share of its range from the enemy on its objective.
pub const GUN_PREPARE_SHARE: f64 = 0.8;
/// The extra weight of a hit on a suppressed enemy, or on one on the attacker's objective
/// ([`fire_focus`]).
pub const FOCUS_BONUS: f64 = 0.5;
/// The odds (hits dealt against hits taken) at which an attacker storms its objective in the
/// closing turns.
pub const STORM_ODDS: f64 = 0.5;
/// How far beyond the end of an enemy line a unit stands to charge its flank.
pub const FLANK_OFFSET_CM: f64 = 7.0;
/// A shot expecting fewer hits than this is not worth standing for when a flank is there to
/// be turned.
pub const WEAK_SHOT_HITS: f64 = 0.35;

/// CHG-10, CHG-11, CHG-16: where an attacking unit goes to charge `enemy` in the flank rather
/// than the front — a point [`FLANK_OFFSET_CM`] beyond the end of its line nearer the unit,
/// level with its middle — when a charge on its front would meet it in cover (the charger
/// would hit it on 5s or 6s in the first round) and the unit is foot or cavalry that may charge.
/// The engine decides which edge a charge reaches (the nearest visible one); this only puts the
/// unit where the flank is nearest. `None` when the enemy stands in the open, or is a square (no
/// flank), or is a gun or a command unit.
pub fn flank_point(ctx: &Ctx, id: PieceId, enemy: PieceId) -> Option<Point> {
    let p = ctx.piece(id).ok()?;
    let ep = ctx.piece(enemy).ok()?;
    if id.is_command()
        || enemy.is_command()
        || is_artillery(ctx, p)
        || is_artillery(ctx, ep)
        || ep.formation == Some(Formation::Square)
        || first_round_hit(ctx, p, ep) >= 0.5
    {
        return None;
    }
    let efp = footprint_of(ctx, ep)?;
    let at = pose_of(ctx, id)?.at;
    let right = crate::geom::footprint::right_of(efp.facing_deg);
    let c = efp.centroid();
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for corner in efp.stands.iter().flat_map(|s| s.corners()) {
        let t = (corner.x - c.x) * right.x + (corner.y - c.y) * right.y;
        lo = lo.min(t);
        hi = hi.max(t);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return None;
    }
    let ends = [hi + FLANK_OFFSET_CM, lo - FLANK_OFFSET_CM]
        .map(|t| Point::new(c.x + right.x * t, c.y + right.y * t));
    let [a, b] = ends;
    let best = if dist(at, a) <= dist(at, b) { a } else { b };
    let table = &ctx.scenario.table;
    (best.x >= 0.0 && best.y >= 0.0 && best.x <= table.width_cm && best.y <= table.depth_cm)
        .then_some(best)
}

/// The share of its move a unit is reckoned to make good in a game turn on its way to ground
/// the enemy holds ([`denial_target`]): orders fail, and such ground is usually slow to enter.
pub const DENY_PACE_SHARE: f64 = 0.5;

/// Ground the enemy holds as its objective that this unit sets out for now, if any (OBJ-01,
/// [`tactics::denial_point`]): in the closing turns ([`tactics::LAST_TURNS`]) whatever its
/// distance; from the last [`tactics::DENY_TURNS`] game turns when at [`DENY_PACE_SHARE`] of its
/// move a turn it needs about all the turns left to get there. A unit close to the ground goes on
/// fighting where it stands until the closing turns; one far off sets out in time. Guns do not
/// go: they take ground with their fire, not by standing on it.
fn denial_target(ctx: &Ctx, id: PieceId, at: Point) -> Option<Point> {
    if ctx.piece(id).map_or(true, |p| is_artillery(ctx, p)) {
        return None;
    }
    let left = tactics::turns_left(ctx);
    if left > tactics::DENY_TURNS {
        return None;
    }
    let q = tactics::denial_point(ctx, id.side(), at)?;
    if tactics::closing_turns(ctx) {
        return Some(q);
    }
    let reach = move_allowance(ctx, id, Manoeuvre::Advance)
        .ok()?
        .reach(false);
    let pace = (reach * DENY_PACE_SHARE).max(1.0);
    (dist(at, q) / pace >= f64::from(left) - 1.0).then_some(q)
}

/// Where a unit should end its move, if anywhere: short of the nearest enemy within engagement
/// reach (at ¾ of its weapon range, or [`CAVALRY_STANDOFF_CM`]), else the side's goal (a
/// defender only when it has strayed from it).
pub fn movement_target(ctx: &Ctx, id: PieceId) -> Option<Point> {
    movement_target_in(ctx, &Sight::new(), id, nearest_enemy(ctx, id))
}

/// [`movement_target`] for a look at the table already taken: the side's goal read once per
/// [`Sight`], and the unit's nearest enemy ([`nearest_enemy`]) as the caller found it.
fn movement_target_in(
    ctx: &Ctx,
    sight: &Sight,
    id: PieceId,
    nearest: Option<(PieceId, f64)>,
) -> Option<Point> {
    let p = ctx.piece(id).ok()?;
    let at = pose_of(ctx, id)?.at;
    let side = id.side();
    let task = sight.task(ctx, id);
    // The formation's task (`plan`) decides whether it goes forward like an attacker.
    let defender = task.map_or_else(|| defends(ctx, side), |t| !t.is_attack());
    let engage = if defender {
        ENGAGE_DEFENDER_CM
    } else {
        ENGAGE_ATTACKER_CM
    };
    // Objective ground is held: a unit on its side's objective stays unless an enemy is on it
    // too (then it engages that enemy).
    let held = tactics::on_objective(ctx, side, at);
    // In the closing turns the attacker marches on its objective, engaging only enemies on it.
    let closing = !defender && tactics::closing_turns(ctx);
    // An attacking unit goes, in time for the end, onto ground the enemy holds as its objective
    // (OBJ-01: one unit of ours standing there takes that objective from it); in the closing
    // turns a unit not yet on its own ground steps onto its nearest edge.
    if !defender {
        if let Some(q) = denial_target(ctx, id, at) {
            return Some(q);
        }
    }
    if closing && !held {
        if let Some(q) = tactics::nearest_objective_point(ctx, side, at) {
            return Some(q);
        }
    }
    if let Some((e, d)) = nearest {
        let contested = tactics::piece_on_objective(ctx, side, e);
        if d <= engage && (contested || (!held && !closing)) {
            // An attacker turns an enemy in cover by its flank (CHG-11) rather than facing it.
            if !defender {
                if let Some(f) = flank_point(ctx, id, e) {
                    return (dist(at, f) > CLOSE_IN_CM).then_some(f);
                }
            }
            let ep = pose_of(ctx, e)?.at;
            // Ranged units close to ¾ of their range; one already in range with no shot (out
            // of sight, behind works) closes in until it has one.
            let standoff = match weapon_range_cm(ctx, p) {
                None => CAVALRY_STANDOFF_CM,
                Some(r) if d > r + 1.0 => (r * 0.75).max(3.0),
                Some(_) => CLOSE_IN_CM,
            };
            if d <= standoff + 1.0 {
                return None;
            }
            let k = standoff / d.max(1e-9);
            return Some(Point::new(
                ep.x + (at.x - ep.x) * k,
                ep.y + (at.y - ep.y) * k,
            ));
        }
    }
    let (goal, radius) = match task {
        Some(t) => (t.at(), t.stay_within_cm().unwrap_or(0.0)),
        None => (sight.goal(ctx, side)?, HOLD_RADIUS_CM),
    };
    if held || (defender && dist(at, goal) <= radius) {
        return None;
    }
    Some(goal)
}

/// A way over ground a piece may not enter: a road segment crossing it (a bridge, TERR-06,
/// TERR-07), from its `near` end (the piece's side) to its `far` end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossing {
    pub near: Point,
    pub far: Point,
}

/// TERR-06, TERR-07, TERR-12: the polygons of terrain this piece may not enter.
fn obstacles(ctx: &Ctx, p: &PieceState) -> Vec<Vec<Point>> {
    let mover = mover_of(ctx, p);
    ctx.scenario
        .terrain
        .iter()
        .filter(|f| {
            matches!(
                feature_going(f.kind, f.dense, f.frozen, mover),
                Going::Impassable { .. }
            )
        })
        .filter_map(|f| match &f.geometry {
            Geometry::Polygon(ring) if ring.len() >= 3 => Some(ring.clone()),
            _ => None,
        })
        .collect()
}

/// The road segments that cross `ring` (each a bridge or a pass).
fn road_crossings(ctx: &Ctx, ring: &[Point]) -> Vec<(Point, Point)> {
    let poly = ring_polygon(ring);
    let mut out = Vec::new();
    for f in &ctx.scenario.terrain {
        let (TerrainKind::Road, Geometry::Polyline { points, .. }) = (f.kind, &f.geometry) else {
            continue;
        };
        for w in points.windows(2) {
            let (Some(&a), Some(&b)) = (w.first(), w.get(1)) else {
                continue;
            };
            if segment_meets_polygon(&poly, &Segment::new(a, b)) {
                out.push((a, b));
            }
        }
    }
    out
}

/// Route finding, just enough for rivers: when the straight line from `from` to `target` runs
/// into ground the piece may not enter, the road crossing (bridge) that makes the shortest way
/// round, oriented from this side. `None`: the way is open, or there is no crossing.
pub fn crossing_towards(ctx: &Ctx, id: PieceId, from: Point, target: Point) -> Option<Crossing> {
    let p = ctx.piece(id).ok()?;
    let seg = Segment::new(from, target);
    let mut best: Option<(f64, Crossing)> = None;
    for ring in obstacles(ctx, p) {
        let inside = ring_contains(&ring, from);
        if !inside && !segment_meets_polygon(&ring_polygon(&ring), &seg) {
            continue;
        }
        for (a, b) in road_crossings(ctx, &ring) {
            // The near end is the one on this side: reachable without entering the obstacle
            // (or, on the bridge, the one the piece is heading away from).
            let poly = ring_polygon(&ring);
            let a_open = !segment_meets_polygon(&poly, &Segment::new(from, a));
            let b_open = !segment_meets_polygon(&poly, &Segment::new(from, b));
            let (near, far) = match (a_open, b_open) {
                (true, false) => (a, b),
                (false, true) => (b, a),
                _ if inside => {
                    if dist(target, b) < dist(target, a) {
                        (a, b)
                    } else {
                        (b, a)
                    }
                }
                _ => continue,
            };
            let cost = if inside {
                dist(from, far) + dist(far, target)
            } else {
                dist(from, near) + dist(near, far) + dist(far, target)
            };
            if best.is_none_or(|(c, _)| cost < c - 1e-9) {
                best = Some((cost, Crossing { near, far }));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// A detour must be this much quicker than the straight way (a share of its cost) to be
/// taken, so that a piece does not swing between two ways of about the same length.
const DETOUR_GAIN: f64 = 0.15;
/// What entering ground with boundary stops (TERR-05) is reckoned to cost, in cm of open
/// ground: the rest of the move it ends.
const STOP_COST_CM: f64 = 10.0;

/// Ground that slows this piece (TERR-04, TERR-05: area terrain, as the engine's terrain rules
/// grade it for the piece): each polygon with the cost of a centimetre inside and whether
/// reaching it stops a move.
fn slow_ground<'a>(ctx: &Ctx<'a>, p: &PieceState) -> Vec<(&'a [Point], f64, bool)> {
    let mover = mover_of(ctx, p);
    ctx.scenario
        .terrain
        .iter()
        .filter_map(|f| {
            let Going::Area { speed, stops, .. } = feature_going(f.kind, f.dense, f.frozen, mover)
            else {
                return None;
            };
            match &f.geometry {
                Geometry::Polygon(ring) if ring.len() >= 3 && speed > 0.0 && speed < 1.0 => {
                    Some((ring.as_slice(), 1.0 / speed, stops))
                }
                _ => None,
            }
        })
        .collect()
}

/// The cost of going straight from `a` to `b` in cm of open ground: the length, each cm inside
/// slow ground at its cost, [`STOP_COST_CM`] for each stretch of stopping ground entered;
/// `None` through ground the piece may not enter.
fn way_cost(
    slow: &[(&[Point], f64, bool)],
    blocked: &[Vec<Point>],
    a: Point,
    b: Point,
) -> Option<f64> {
    let seg = Segment::new(a, b);
    if blocked
        .iter()
        .any(|ring| segment_meets_polygon(&ring_polygon(ring), &seg))
    {
        return None;
    }
    let mut cost = seg.length();
    for (ring, per_cm, stops) in slow {
        for (from, to) in crate::geom::segment::inside_intervals(&ring_polygon(ring), &seg) {
            cost += (to - from) * (per_cm - 1.0);
            if *stops && from > 1e-6 {
                cost += STOP_COST_CM;
            }
        }
    }
    Some(cost)
}

/// Going round slow ground (TERR-04): when the straight way to `target` runs through area
/// terrain that slows the piece, and the target is not in that ground, the first corner of the
/// quickest way round it. The ways are through the corners of the slow ground the straight way
/// meets, each stood off by the piece's own half-width and a little, every leg costed at the
/// terrain's own price ([`way_cost`]); the detour is taken only when it is clearly quicker
/// ([`DETOUR_GAIN`]). A wood between a column and its objective is walked round; a town that
/// is the objective is still entered; a piece already in the wood goes on straight out of it.
pub fn detour_round_slow_ground(
    ctx: &Ctx,
    id: PieceId,
    from: Point,
    target: Point,
) -> Option<Point> {
    let p = ctx.piece(id).ok()?;
    let slow = slow_ground(ctx, p);
    let straight_seg = Segment::new(from, target);
    // The slow ground in the way: the straight way runs through it, and neither end is in it.
    let in_way: Vec<&[Point]> = slow
        .iter()
        .map(|(ring, _, _)| *ring)
        .filter(|ring| {
            !ring_contains(ring, from)
                && !ring_contains(ring, target)
                && !crate::geom::segment::inside_intervals(&ring_polygon(ring), &straight_seg)
                    .is_empty()
        })
        .collect();
    if in_way.is_empty() {
        return None;
    }
    let blocked = obstacles(ctx, p);
    let straight = way_cost(&slow, &blocked, from, target)?;
    let half = footprint_of(ctx, p).map_or(5.0, |fp| {
        fp.stands
            .iter()
            .flat_map(|s| s.corners())
            .map(|c| dist(c, fp.at))
            .fold(0.0, f64::max)
    });
    let stand_off = half + 2.0;
    let table = ctx.scenario.table;
    // The nodes: the start, the corners stood off from their ground's centre, the target.
    let mut nodes = vec![from];
    for ring in &in_way {
        let n = ring.len() as f64;
        let centre = Point::new(
            ring.iter().map(|q| q.x).sum::<f64>() / n,
            ring.iter().map(|q| q.y).sum::<f64>() / n,
        );
        for corner in ring.iter() {
            let out = dist(*corner, centre).max(1e-9);
            let w = Point::new(
                corner.x + (corner.x - centre.x) / out * stand_off,
                corner.y + (corner.y - centre.y) / out * stand_off,
            );
            let on_table =
                (0.0..=table.width_cm).contains(&w.x) && (0.0..=table.depth_cm).contains(&w.y);
            if on_table && dist(from, w) >= 3.0 {
                nodes.push(w);
            }
        }
    }
    nodes.push(target);
    let goal = nodes.len() - 1;
    // Dijkstra over the complete graph of the nodes (a few dozen at most).
    let mut best = vec![f64::INFINITY; nodes.len()];
    let mut via: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut done = vec![false; nodes.len()];
    best[0] = 0.0;
    while let Some(u) = (0..nodes.len())
        .filter(|&k| !done[k] && best[k].is_finite())
        .min_by(|&a, &b| best[a].total_cmp(&best[b]).then(a.cmp(&b)))
    {
        if u == goal {
            break;
        }
        done[u] = true;
        for v in 0..nodes.len() {
            if done[v] || v == u {
                continue;
            }
            let Some(c) = way_cost(&slow, &blocked, nodes[u], nodes[v]) else {
                continue;
            };
            if best[u] + c < best[v] - 1e-9 {
                best[v] = best[u] + c;
                via[v] = Some(u);
            }
        }
    }
    // Not clearly quicker, or no way round at all (an infinite cost).
    if best[goal] >= straight * (1.0 - DETOUR_GAIN) {
        return None;
    }
    // Walk back from the target to the node after the start.
    let mut k = goal;
    while let Some(prev) = via[k] {
        if prev == 0 {
            return (k != goal).then_some(nodes[k]);
        }
        k = prev;
    }
    None
}

/// Whether a piece stands within [`BRIDGE_CLEAR_CM`] of either end of any crossing it could
/// use: a column there stays a column and moves on, so the way stays open.
fn near_crossing_end(ctx: &Ctx, id: PieceId) -> bool {
    let (Ok(p), Some(at)) = (ctx.piece(id), pose_of(ctx, id).map(|q| q.at)) else {
        return false;
    };
    obstacles(ctx, p).iter().any(|ring| {
        road_crossings(ctx, ring)
            .iter()
            .any(|(a, b)| dist(at, *a) <= BRIDGE_CLEAR_CM || dist(at, *b) <= BRIDGE_CLEAR_CM)
    })
}

/// Whether a piece is on (or at the near end of) a crossing: then it moves straight along it.
fn at_crossing(from: Point, c: &Crossing) -> bool {
    if dist(from, c.near) <= 1.5 {
        return true;
    }
    // On the bridge: close to the segment, between its ends.
    let (dx, dy) = (c.far.x - c.near.x, c.far.y - c.near.y);
    let l2 = dx * dx + dy * dy;
    if l2 <= 1e-9 {
        return false;
    }
    let t = ((from.x - c.near.x) * dx + (from.y - c.near.y) * dy) / l2;
    let px = c.near.x + dx * t;
    let py = c.near.y + dy * t;
    (0.0..=1.0).contains(&t) && dist(from, Point::new(px, py)) <= 0.5
}

/// The point a piece heads for next on its way to `target`: the target itself, a corner of slow
/// ground it goes round ([`detour_round_slow_ground`]), the near end of the crossing it must
/// use, or (at or on the crossing) a point just beyond its far end.
/// Returns the point and whether the piece is crossing (it must then keep to the road's line).
pub fn next_waypoint(ctx: &Ctx, id: PieceId, target: Point) -> (Point, bool) {
    let Some(from) = pose_of(ctx, id).map(|p| p.at) else {
        return (target, false);
    };
    match crossing_towards(ctx, id, from, target) {
        None => (
            detour_round_slow_ground(ctx, id, from, target).unwrap_or(target),
            false,
        ),
        Some(c) if at_crossing(from, &c) => {
            let d = dist(c.near, c.far).max(1e-9);
            let beyond = Point::new(
                c.far.x + (c.far.x - c.near.x) / d * 4.0,
                c.far.y + (c.far.y - c.near.y) / d * 4.0,
            );
            (beyond, true)
        }
        Some(c) => (c.near, false),
    }
}

/// The rules that stop a move where linear terrain or an area's edge is reached (TERR-02,
/// TERR-05): a straight move refused by one of them may be made up to that point instead.
const STOPPING_GROUND: [&str; 2] = ["TERR-02", "TERR-05"];
/// The least a move up to such a stop must gain (cm).
const STOP_STEP_CM: f64 = 0.1;

/// A Move towards `target`: the straight move the allowance allows, when the rules accept it;
/// else the best of the legal destinations (nearest the target, ties by order found, asked of
/// [`MoveChecker::nearest_destination`]). `None`
/// when no move gets at least a centimetre closer.
pub fn move_towards(ctx: &Ctx, id: PieceId, target: Point) -> Option<Action> {
    let p = ctx.piece(id).ok()?;
    let from = pose_of(ctx, id)?;
    let (target, crossing) = next_waypoint(ctx, id, target);
    let here = dist(from.at, target);
    if here < 1.0 {
        return None;
    }
    let bearing = bearing_deg(from.at, target);
    let turn = normalize_deg(bearing - from.facing_deg).abs();
    let line = matches!(
        p.formation,
        Some(Formation::Line | Formation::ExtendedLine | Formation::Disordered)
    );
    let column = matches!(
        p.formation,
        Some(Formation::MarchColumn | Formation::AttackColumn)
    );
    // Guns in action are manhandled; everything else advances.
    let manoeuvre = if is_artillery(ctx, p) && !p.limbered {
        Manoeuvre::Manhandle
    } else {
        Manoeuvre::Advance
    };
    let allowance = move_allowance(ctx, id, manoeuvre).ok()?;
    // Every destination tried below is checked for the same piece in the same context.
    let checker = MoveChecker::new(ctx, id);
    let reach = allowance.reach(false);
    if reach <= 0.0 {
        return None;
    }
    let straight_ok = if line {
        turn <= 45.0
    } else if column {
        turn <= 90.0
    } else {
        true
    };
    let mut stopped_short = false;
    if straight_ok {
        let dir = heading(bearing);
        let facing = if line || manoeuvre == Manoeuvre::Manhandle {
            from.facing_deg
        } else {
            bearing
        };
        // The full straight move, then shorter ones (terrain or a friend may stop it short).
        for frac in [0.98, 0.6, 0.3] {
            let len = reach.min(here) * frac;
            if len < 1.0 {
                break;
            }
            let to = Pose {
                at: Point::new(from.at.x + dir.x * len, from.at.y + dir.y * len),
                facing_deg: facing,
            };
            match checker.check(&[], to, manoeuvre) {
                Ok(plan) if plan.overruns.is_empty() => {
                    return Some(Action::Move {
                        piece: id,
                        via: vec![],
                        to,
                        manoeuvre,
                    });
                }
                Err(ActionError::Rule(e)) if STOPPING_GROUND.contains(&e.rule) => {
                    stopped_short = true;
                }
                _ => {}
            }
        }
    }
    // Stopped short of a wall or a wood's edge it has not reached (TERR-02, TERR-05): the
    // step up to it, however short, is what lets the next move cross (MOVE-03). Otherwise a
    // move must gain a centimetre.
    let gain = if stopped_short { STOP_STEP_CM } else { 1.0 };
    if crossing {
        // On a bridge only the straight line along it is any good.
        return None;
    }
    let mut best: Option<(f64, Pose, Manoeuvre)> = None;
    let mut manoeuvres = vec![manoeuvre];
    if line && !straight_ok {
        manoeuvres.push(Manoeuvre::Wheel);
    }
    for m in manoeuvres {
        // The legal end pose nearest the target, if any gets a centimetre nearer.
        if let Some((d, pose)) =
            checker.nearest_destination(m, RESOLUTION_CM.max(reach / 4.0), target, here - gain)
        {
            if best.is_none_or(|(b, _, _)| d < b - 1e-9) {
                best = Some((d, pose, m));
            }
        }
    }
    let (d, to, m) = best?;
    if d > here - gain {
        return None;
    }
    Some(Action::Move {
        piece: id,
        via: vec![],
        to,
        manoeuvre: m,
    })
}

/// MOVE-28: a shaken unit pulls back — infantry retires straight back as far as it may; others
/// move away from the nearest enemy.
pub fn pull_back(ctx: &Ctx, id: PieceId) -> Option<Action> {
    let p = ctx.piece(id).ok()?;
    let from = pose_of(ctx, id)?;
    if p.arm == Some(Arm::Infantry) && p.formation != Some(Formation::Square) {
        let far = legal_destinations(ctx, id, Manoeuvre::Retire, RESOLUTION_CM)
            .into_iter()
            .map(|pose| (dist(pose.at, from.at), pose))
            .fold(None, |acc: Option<(f64, Pose)>, (d, pose)| match acc {
                Some((b, _)) if b >= d => acc,
                _ => Some((d, pose)),
            });
        if let Some((d, to)) = far {
            if d >= 1.0 {
                return Some(Action::Move {
                    piece: id,
                    via: vec![],
                    to,
                    manoeuvre: Manoeuvre::Retire,
                });
            }
        }
    }
    let (e, _) = nearest_enemy(ctx, id)?;
    let ep = pose_of(ctx, e)?.at;
    let away = Point::new(2.0 * from.at.x - ep.x, 2.0 * from.at.y - ep.y);
    if p.formation
        .is_some_and(|f| matches!(f, Formation::Line | Formation::ExtendedLine))
    {
        return None;
    }
    move_towards(ctx, id, away)
}

/// One unit's candidate actions in a Command-phase order, best first: charge (none yet), fire at
/// the best target, square against cavalry, pull back when shaken, guns into or out of action,
/// formation for the distance, then the move. Empty: the unit stands.
pub fn plan_unit(ctx: &Ctx, sight: &Sight, id: PieceId) -> Vec<Action> {
    let Ok(p) = ctx.piece(id) else {
        return Vec::new();
    };
    if id.is_command() || !p.on_table() || idle(p) {
        return Vec::new();
    }
    let mut out = consider_charge(ctx, sight, id);
    // Foot against cavalry: square first (it may still fire from it).
    if square_threat(ctx, sight, p, SQUARE_THREAT_CM + 5.0)
        && check_deploy(ctx, id, Formation::Square).is_ok()
    {
        out.push(Action::Deploy {
            piece: id,
            formation: Formation::Square,
        });
        return out;
    }
    let scored = fire_scored(ctx, sight, id);
    let best_shot = scored.first().map_or(0.0, |(h, _)| *h);
    let fire: Vec<Action> = scored.into_iter().map(|(_, a)| a).collect();
    // A square goes back into line once no mounted cavalry is within 30 cm, before it fires: a
    // square takes fire with no saves and an extra die from every gun (MOVE-17), and within
    // 30 cm of cavalry it would be forced back into square the moment it is shot at. With
    // cavalry near it stands and fires. Nothing below is for a square.
    if p.formation == Some(Formation::Square) {
        if !cavalry_near(ctx, sight, p, SQUARE_STAY_CM) {
            out.extend(deploy_if_allowed(ctx, id, Formation::Line));
        }
        out.extend(fire);
        return out;
    }
    // The nearest enemy, found once for the whole plan.
    let nearest = OnceCell::new();
    let near_of = || *nearest.get_or_init(|| sight.nearest_enemy(ctx, id));
    if is_shaken(ctx, p) && near_of().is_some_and(|(_, d)| d <= INITIATIVE_CM) {
        out.extend(pull_back(ctx, id));
        out.extend(fire);
        return out;
    }
    // Near the end an attacking unit goes onto ground the enemy holds as its objective (in
    // time, `denial_target`), else, in the closing turns and off its own objective ground,
    // steps onto it, before it fires — standing there takes the objective from the enemy
    // (OBJ-01).
    if !is_artillery(ctx, p) && sight.task(ctx, id).is_some_and(|t| t.is_attack()) {
        let onto = pose_of(ctx, id).and_then(|q| {
            [
                denial_target(ctx, id, q.at),
                tactics::closing_turns(ctx)
                    .then(|| tactics::nearest_objective_point(ctx, id.side(), q.at))
                    .flatten(),
            ]
            .into_iter()
            .flatten()
            .find_map(|to| move_towards(ctx, id, to))
        });
        if let Some(step) = onto {
            out.push(step);
            out.extend(fire);
            return out;
        }
    }
    // An attacker with only a weak shot at an enemy in cover goes for its flank instead, and
    // fires only if it cannot move there.
    let turning = !fire.is_empty()
        && best_shot < WEAK_SHOT_HITS
        && !is_artillery(ctx, p)
        && sight.task(ctx, id).is_some_and(|t| t.is_attack())
        && near_of().is_some_and(|(e, _)| flank_point(ctx, id, e).is_some());
    if turning {
        let column = p.formation == Some(Formation::MarchColumn);
        let step = movement_target_in(ctx, sight, id, near_of())
            .and_then(|target| move_towards(ctx, id, target));
        match step {
            Some(step) => {
                if column && !near_crossing_end(ctx, id) {
                    out.extend(deploy_if_allowed(ctx, id, Formation::AttackColumn));
                }
                out.push(step);
            }
            // Hemmed in (at a bridge's end, against works): a column takes attack column to
            // charge from where it stands (CHG-03).
            None if column => out.extend(deploy_if_allowed(ctx, id, Formation::AttackColumn)),
            None => {}
        }
        out.extend(fire);
        return out;
    }
    // Guns prepare the assault: an attacking gun with no shot moves up until it has one at the
    // enemy on the objective, and turns to face it.
    if is_artillery(ctx, p) && fire.is_empty() && sight.task(ctx, id).is_some_and(|t| t.is_attack())
    {
        if let Some(step) = gun_to_the_objective(ctx, id) {
            out.push(step);
            out.extend(fire);
            return out;
        }
    }
    if !fire.is_empty() {
        out.extend(fire);
        return out;
    }
    let near = near_of();
    if is_artillery(ctx, p) {
        out.extend(plan_gun(ctx, sight, id, near));
        return out;
    }
    let Some(target) = movement_target_in(ctx, sight, id, near) else {
        // Holding: a march column close to the enemy takes a fighting formation — line to
        // fire, else extended line (skirmishers), else attack column (to charge); the first
        // the rules allow where it stands (a bridgehead may leave room for a column only).
        if p.formation == Some(Formation::MarchColumn) && near.is_some_and(|(_, d)| d < NEAR_CM) {
            out.extend(
                FIGHTING_FORMATIONS
                    .iter()
                    .find_map(|f| deploy_if_allowed(ctx, id, *f)),
            );
        }
        return out;
    };
    let enemy_d = near.map_or(f64::INFINITY, |(_, d)| d);
    let must_cross =
        pose_of(ctx, id).is_some_and(|from| crossing_towards(ctx, id, from.at, target).is_some());
    match p.formation {
        Some(Formation::Line | Formation::AttackColumn | Formation::ExtendedLine) if must_cross => {
            out.extend(deploy_if_allowed(ctx, id, Formation::MarchColumn));
        }
        Some(Formation::Line) if enemy_d > FAR_CM => {
            out.extend(deploy_if_allowed(ctx, id, Formation::MarchColumn));
        }
        Some(Formation::MarchColumn)
            if enemy_d <= NEAR_CM && !must_cross && !near_crossing_end(ctx, id) =>
        {
            out.extend(deploy_if_allowed(ctx, id, Formation::Line));
        }
        Some(Formation::Disordered) => {
            out.extend(deploy_if_allowed(ctx, id, Formation::Line));
        }
        _ => {}
    }
    out.extend(move_towards(ctx, id, target));
    out
}

/// FIRE-16, ART-01: the step that brings an attacking gun within range of the enemy standing
/// on its side's objective ground, when none there is in range: limber where it stands (MOVE-20),
/// then move limbered towards the point at [`GUN_PREPARE_SHARE`] of its range from the nearest
/// such enemy (the next turn it unlimbers facing it, [`plan_gun`]). `None` when a gun is already
/// in range of one, or no enemy stands on the objective, or the gun may not limber or move.
fn gun_to_the_objective(ctx: &Ctx, id: PieceId) -> Option<Action> {
    let p = ctx.piece(id).ok()?;
    let range = weapon_range_cm(ctx, p)?;
    let at = pose_of(ctx, id)?.at;
    let side = id.side();
    let (e, d) = enemy_troops(ctx, side)
        .filter(|(ep, pose)| !ep.id.is_command() && tactics::on_objective(ctx, side, pose.at))
        .map(|(ep, pose)| (pose.at, dist(at, pose.at), ep.id))
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)))
        .map(|(q, d, _)| (q, d))?;
    if d <= range {
        // In range: in action facing it (limbered to turn when it is off to the side, as
        // `plan_gun` turns a gun, MOVE-20).
        return bring_to_bear(ctx, p, bearing_deg(at, e));
    }
    if !p.limbered {
        return check_limber(ctx, id, true)
            .is_ok()
            .then_some(Action::Limber { piece: id });
    }
    let k = (range * GUN_PREPARE_SHARE) / d.max(1e-9);
    let to = Point::new(e.x + (at.x - e.x) * k, e.y + (at.y - e.y) * k);
    move_towards(ctx, id, to)
}

/// MOVE-20: a gun in range brought to bear on `bearing`: limbered, it unlimbers facing it;
/// unlimbered with the target off to the side of its facing (outside its cone, FIRE-04), it
/// limbers to turn, and unlimbers facing it the next time. `None`: it holds as it is.
fn bring_to_bear(ctx: &Ctx, p: &PieceState, bearing: f64) -> Option<Action> {
    let id = p.id;
    if p.limbered {
        return check_limber(ctx, id, false)
            .is_ok()
            .then_some(Action::Unlimber {
                piece: id,
                facing_deg: bearing,
            });
    }
    let off = p
        .pose
        .map_or(0.0, |q| normalize_deg(bearing - q.facing_deg).abs());
    (off > GUN_TURN_DEG && check_limber(ctx, id, true).is_ok())
        .then_some(Action::Limber { piece: id })
}

/// Guns: unlimber facing an enemy within range; limber when none is within range and more
/// than half again further; move limbered towards the target.
fn plan_gun(ctx: &Ctx, sight: &Sight, id: PieceId, near: Option<(PieceId, f64)>) -> Vec<Action> {
    let Ok(p) = ctx.piece(id) else {
        return Vec::new();
    };
    let range = weapon_range_cm(ctx, p).unwrap_or(0.0);
    let mut out = Vec::new();
    match near {
        Some((e, d)) if d <= range => {
            if let Some(facing) = facing_towards(ctx, id, e) {
                out.extend(bring_to_bear(ctx, p, facing));
            }
        }
        _ => {
            let Some(target) = movement_target_in(ctx, sight, id, near) else {
                return out;
            };
            if !p.limbered {
                if check_limber(ctx, id, true).is_ok() {
                    out.push(Action::Limber { piece: id });
                }
            } else {
                out.extend(move_towards(ctx, id, target));
            }
        }
    }
    out
}

fn deploy_if_allowed(ctx: &Ctx, id: PieceId, formation: Formation) -> Option<Action> {
    check_deploy(ctx, id, formation)
        .ok()
        .map(|()| Action::Deploy {
            piece: id,
            formation,
        })
}

/// The command units (`hq` and those below it) a unit answers to, nearest first.
#[cfg(test)]
fn chain_of(ctx: &Ctx, id: PieceId) -> Vec<HqId> {
    let PieceId::Unit { side, unit } = id else {
        return Vec::new();
    };
    let Some(s) = ctx.scenario.sides.get(side) else {
        return Vec::new();
    };
    let mut chain = Vec::with_capacity(4);
    let mut cur = s.unit(unit).map(|u| u.hq);
    while let Some(h) = cur {
        if chain.contains(&h) || chain.len() > s.hqs.len() {
            break;
        }
        chain.push(h);
        cur = s.hq(h).and_then(|x| x.parent);
    }
    chain
}

/// A side's chain of command read for many units at once: the same answers as [`chain_of`],
/// with each unit found by halving when the scenario lists its units in id order (else by
/// search, as [`Side::unit`]) and no chain built.
struct Chains<'a> {
    side: Option<&'a Side>,
    sorted: bool,
}

impl<'a> Chains<'a> {
    fn of(ctx: &Ctx<'a>, side: usize) -> Chains<'a> {
        let side = ctx.scenario.sides.get(side);
        let sorted = side.is_some_and(|s| s.units.is_sorted_by_key(|u| u.id));
        Chains { side, sorted }
    }

    /// The unit's own command unit: the first of [`chain_of`].
    fn hq(&self, id: PieceId) -> Option<HqId> {
        let (PieceId::Unit { unit, .. }, Some(s)) = (id, self.side) else {
            return None;
        };
        if self.sorted {
            let k = s.units.partition_point(|u| u.id < unit);
            s.units.get(k).filter(|u| u.id == unit).map(|u| u.hq)
        } else {
            s.unit(unit).map(|u| u.hq)
        }
    }

    /// Whether `hq` is in the unit's [`chain_of`]: the same walk up, as many steps at most
    /// (past a repeat the walk only meets command units it met already).
    fn answers_to(&self, id: PieceId, hq: HqId) -> bool {
        let Some(s) = self.side else {
            return false;
        };
        let mut cur = self.hq(id);
        let mut steps = 0;
        while let Some(h) = cur {
            if steps > s.hqs.len() {
                break;
            }
            if h == hq {
                return true;
            }
            steps += 1;
            cur = s.hq(h).and_then(|x| x.parent);
        }
        false
    }
}

/// CMD-02, CMD-06, CMD-09, CMD-29: the order groups of the active side's Command phase, in the
/// order they are given (the CO last). Each command unit orders its own units (those whose
/// HQ it is); the CO then orders every unit not yet in a group (its own and those whose HQ is
/// gone or did not order them). Units already in `done` (acted this phase) are left out.
pub fn order_groups(ctx: &Ctx, side: usize, done: &BTreeSet<PieceId>) -> Vec<OrderGroup> {
    let chains = Chains::of(ctx, side);
    // The units still to act, each with its own command unit, and whether a group took it.
    let troops: Vec<(PieceId, Option<HqId>)> = troops_of(ctx, side)
        .into_iter()
        .filter(|u| !done.contains(u))
        .map(|u| (u, chains.hq(u)))
        .collect();
    let mut taken = vec![false; troops.len()];
    // ART-10: an FAO orders only a grand battery; the autoplayer leaves it out, so the guns
    // under it are ordered with the rest of the CO's group.
    let hqs: Vec<PieceId> = command_units(ctx, side)
        .into_iter()
        .filter(|h| !crate::rules::fao::is_fao(ctx, *h))
        .collect();
    let mut groups = Vec::new();
    let last = hqs.len().saturating_sub(1);
    for (k, hq) in hqs.iter().enumerate() {
        let PieceId::Hq { hq: hq_id, .. } = *hq else {
            continue;
        };
        let is_co = k == last;
        let mut units = Vec::new();
        for ((u, h), t) in troops.iter().zip(taken.iter_mut()) {
            if !*t && (is_co || *h == Some(hq_id)) {
                *t = true;
                units.push(*u);
            }
        }
        groups.push(OrderGroup { hq: *hq, units });
    }
    // No command unit left at all: the units still act (CMD-07 would give them self-orders).
    if hqs.is_empty() {
        let units: Vec<PieceId> = troops
            .iter()
            .zip(&taken)
            .filter(|(_, t)| !**t)
            .map(|((u, _), _)| *u)
            .collect();
        if let Some(first) = units.first().copied() {
            groups.push(OrderGroup { hq: first, units });
        }
    }
    groups
}

/// A command unit follows its units: to a point [`HQ_BEHIND_CM`] behind their centre, away
/// from the nearest enemy. `None` when it has no units or is close enough.
pub fn hq_move(ctx: &Ctx, hq: PieceId) -> Option<Action> {
    let PieceId::Hq { side, hq: hq_id } = hq else {
        return None;
    };
    let chains = Chains::of(ctx, side);
    let units: Vec<Point> = side_units(ctx, side)
        .filter(|p| p.on_table() && chains.answers_to(p.id, hq_id))
        .filter_map(|p| p.pose.map(|q| q.at))
        .collect();
    if units.is_empty() {
        return None;
    }
    let c = centre(units.into_iter());
    let enemy: Vec<Point> = enemy_troops(ctx, side).map(|(_, p)| p.at).collect();
    let enemy_centre = (!enemy.is_empty()).then(|| centre(enemy.into_iter()));
    let target = match enemy_centre {
        Some(enemy_goal) => {
            let d = dist(c, enemy_goal).max(1e-9);
            // Behind the units, seen from the enemy.
            let k = HQ_BEHIND_CM / d;
            Point::new(
                c.x + (c.x - enemy_goal.x) * k,
                c.y + (c.y - enemy_goal.y) * k,
            )
        }
        None => c,
    };
    let at = pose_of(ctx, hq)?.at;
    if dist(at, target) < 4.0 {
        return None;
    }
    move_towards(ctx, hq, target)
}

/// END-03 (4): a side concedes when it has no troop unit left on the table.
pub fn should_concede(ctx: &Ctx, side: usize) -> bool {
    troops_of(ctx, side).is_empty()
}

#[cfg(test)]
mod chain_tests {
    use super::*;
    use crate::model::army::shipped_lists;
    use crate::model::samples;
    use crate::rules::battle::Battle;
    use crate::rules::dice::DiceSource;

    #[test]
    fn cmd_02_chains_answer_as_chain_of_sorted_or_not() {
        let lists = shipped_lists().expect("the shipped army lists parse");
        let scenario = samples::scenarios()
            .expect("samples")
            .into_iter()
            .find(|s| s.id.as_str() == "1809-ebelsberg")
            .expect("Ebelsberg");
        for reversed in [false, true] {
            let mut s = scenario.clone();
            if reversed {
                for side in &mut s.sides {
                    side.units.reverse();
                }
            }
            let b = Battle::new(s, lists.clone(), DiceSource::Seed(1), 0).expect("sets up");
            let ctx = b.ctx();
            for side in 0..2 {
                let chains = Chains::of(&ctx, side);
                let hqs: Vec<HqId> = ctx
                    .scenario
                    .sides
                    .get(side)
                    .map(|s| s.hqs.iter().map(|h| h.id).collect())
                    .unwrap_or_default();
                assert!(hqs.len() > 1, "a chain of command to walk");
                for id in ctx.state.pieces.keys().filter(|id| id.side() == side) {
                    let chain = chain_of(&ctx, *id);
                    assert_eq!(chains.hq(*id), chain.first().copied(), "{id}");
                    for h in &hqs {
                        assert_eq!(chains.answers_to(*id, *h), chain.contains(h), "{id} {h}");
                    }
                }
            }
        }
    }
}
