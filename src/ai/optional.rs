//! The solo opponent's use of the optional rules a scenario switches on (#21 item 3): saber
//! charges (OPT-SABER-01..03), lying prone under the guns (OPT-PRONE-01..02) and scouts
//! (OPT-SCOUT-01..03). Like the rest of the opponent it copies no rule: every choice is an
//! ordinary action the engine checks, and with a rule off each function leaves the plan as it
//! was.

use super::policy::{dist, is_artillery, move_towards, pose_of, seen_within, side_goal, Sight};
use crate::geom::footprint::bearing_deg;
use crate::geom::Point;
use crate::rules::action::Action;
use crate::rules::battle::Ctx;
use crate::rules::charge::{check_charge_as, saber_in_use};
use crate::rules::firing::is_mounted_cavalry;
use crate::rules::prone::{check_prone, is_prone, prone_in_use};
use crate::rules::scouting;
use crate::rules::state::{Formation, PieceId, Pose};

/// How near a visible enemy gun a unit with nothing to do lies down, cm.
const GUN_THREAT_CM: f64 = 60.0;
/// How near visible enemy troops a prone unit stays standing (it would be charged), cm.
const CLOSE_CM: f64 = 20.0;
/// At most this many scouts a side sends out.
const MAX_SCOUTS: usize = 2;
/// A unit keeps at least this many stands after sending a scout.
const MIN_STANDS_LEFT: u8 = 2;
/// How far a scout keeps from the nearest visible enemy, cm (near enough to spot in the open,
/// OPT-SCOUT-02: 30 cm).
const SCOUT_STANDOFF_CM: f64 = 25.0;

/// OPT-SABER-01..03: a charge of mounted cavalry is declared as a saber charge when the rule is
/// on and the engine accepts it — but not at a square, against which the bonus does not apply
/// (OPT-SABER-03 (a)). Anything else is returned unchanged.
pub fn with_saber(ctx: &Ctx, charge: Action) -> Action {
    let Action::Charge {
        chargers,
        target,
        saber: false,
    } = &charge
    else {
        return charge;
    };
    let mounted = chargers
        .iter()
        .all(|c| ctx.piece(*c).is_ok_and(|p| is_mounted_cavalry(ctx, p)));
    let square = ctx
        .piece(*target)
        .is_ok_and(|t| t.formation == Some(Formation::Square));
    if saber_in_use(ctx)
        && mounted
        && !square
        && check_charge_as(ctx, chargers, *target, true).is_ok()
    {
        return Action::Charge {
            chargers: chargers.clone(),
            target: *target,
            saber: true,
        };
    }
    charge
}

/// OPT-PRONE-01..02: the prone step of a unit's plan. A foot unit with nothing to do, within
/// reach of a visible enemy gun and with no enemy troops close enough to charge it, lies down.
/// A prone unit stands up — that is its action this turn — when its plan is to act (move,
/// charge, or fire from close order), when its formation attacks, when the guns are gone, or
/// when enemy troops come close; otherwise it stays down.
pub fn prone_step(ctx: &Ctx, sight: &Sight, id: PieceId, plan: Vec<Action>) -> Vec<Action> {
    if !prone_in_use(ctx) {
        return plan;
    }
    let Ok(p) = ctx.piece(id) else {
        return plan;
    };
    if is_artillery(ctx, p) || is_mounted_cavalry(ctx, p) {
        return plan;
    }
    let near = seen_within(ctx, sight, id, GUN_THREAT_CM);
    let guns = near
        .iter()
        .any(|(e, _)| ctx.piece(*e).is_ok_and(|q| is_artillery(ctx, q)));
    let close = near.iter().any(|(_, d)| *d <= CLOSE_CM);
    if is_prone(ctx, p) {
        let extended = p.formation == Some(Formation::ExtendedLine);
        let acts = plan.first().is_some_and(|a| match a {
            Action::Move { .. } | Action::Charge { .. } | Action::Support { .. } => true,
            Action::Fire { .. } => !extended,
            _ => false,
        });
        let attacks = sight.task(ctx, id).is_some_and(|t| t.is_attack());
        if (acts || attacks || !guns || close) && check_prone(ctx, id, false).is_ok() {
            return vec![Action::Prone {
                piece: id,
                prone: false,
            }];
        }
        return plan;
    }
    if plan.is_empty() && guns && !close && check_prone(ctx, id, true).is_ok() {
        return vec![Action::Prone {
            piece: id,
            prone: true,
        }];
    }
    plan
}

/// OPT-SCOUT-01: the scouts a side sends out while it deploys — from its cavalry units that may
/// scout and keep at least two stands, at most two scouts, each placed a little ahead of its
/// unit towards the enemy. For each unit, the places to try in turn (the engine checks each).
pub fn scout_deployments(ctx: &Ctx, side: usize) -> Vec<Vec<Action>> {
    if !scouting::on(ctx) {
        return Vec::new();
    }
    let goal = enemy_centre(ctx, side).or_else(|| side_goal(ctx, side));
    let mut out = Vec::new();
    for p in ctx.state.pieces.values() {
        if out.len() >= MAX_SCOUTS {
            break;
        }
        if p.id.side() != side
            || p.stands <= MIN_STANDS_LEFT
            || scouting::check_deploy_scout(ctx, p.id).is_err()
        {
            continue;
        }
        let (Some(pose), Some(goal)) = (p.pose, goal) else {
            continue;
        };
        let facing = bearing_deg(pose.at, goal);
        let (sin, cos) = facing.to_radians().sin_cos();
        let places = [10.0, 6.0, 14.0, 3.0]
            .into_iter()
            .map(|ahead| Action::DeployScout {
                piece: p.id,
                at: Pose {
                    at: Point::new(pose.at.x + ahead * sin, pose.at.y + ahead * cos),
                    facing_deg: facing,
                },
            })
            .collect();
        out.push(places);
    }
    out
}

/// OPT-SCOUT-02 (a): for each of the side's scouts not yet launched, the command units that
/// might make its initial roll, nearest first (the engine checks each).
pub fn scout_launches(ctx: &Ctx, side: usize) -> Vec<Vec<Action>> {
    if !scouting::on(ctx) {
        return Vec::new();
    }
    let commands: Vec<PieceId> = ctx
        .state
        .pieces
        .keys()
        .filter(|id| id.is_command() && id.side() == side)
        .copied()
        .collect();
    let mut out = Vec::new();
    for (&id, s) in &ctx.state.scouts.scouts {
        if id.side() != side || s.launched || s.withdrawn {
            continue;
        }
        let Some(at) = pose_of(ctx, id).map(|p| p.at) else {
            continue;
        };
        let mut by: Vec<(f64, PieceId)> = commands
            .iter()
            .filter_map(|c| pose_of(ctx, *c).map(|p| (dist(p.at, at), *c)))
            .collect();
        by.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        out.push(
            by.into_iter()
                .map(|(_, command)| Action::LaunchScout { command, scout: id })
                .collect(),
        );
    }
    out
}

/// OPT-SCOUT-02 (b): the free move of each launched scout of the side — towards the nearest
/// enemy troops, stopping short of them where it can still spot, or towards the enemy's ground
/// when it sees none.
pub fn scout_moves(ctx: &Ctx, side: usize) -> Vec<Action> {
    if !scouting::on(ctx) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (&id, s) in &ctx.state.scouts.scouts {
        if id.side() != side || !s.launched || s.withdrawn {
            continue;
        }
        let Some(from) = pose_of(ctx, id).map(|p| p.at) else {
            continue;
        };
        let nearest = ctx
            .state
            .pieces
            .values()
            .filter(|q| q.id.side() != side && !q.id.is_command() && q.on_table())
            .filter_map(|q| q.pose.map(|p| p.at))
            .min_by(|a, b| dist(*a, from).total_cmp(&dist(*b, from)));
        let target = match nearest {
            Some(e) => {
                let d = dist(from, e);
                if d <= SCOUT_STANDOFF_CM {
                    continue;
                }
                let k = (d - SCOUT_STANDOFF_CM) / d;
                Point::new(from.x + (e.x - from.x) * k, from.y + (e.y - from.y) * k)
            }
            None => match enemy_centre(ctx, side).or_else(|| side_goal(ctx, side)) {
                Some(g) => g,
                None => continue,
            },
        };
        if let Some(a) = move_towards(ctx, id, target) {
            out.push(a);
        }
    }
    out
}

/// The centre of the enemy's deployment zone, if it has one.
fn enemy_centre(ctx: &Ctx, side: usize) -> Option<Point> {
    let zone = &ctx.scenario.sides.get(1 - side.min(1))?.deployment_zone;
    if zone.is_empty() {
        return None;
    }
    let n = zone.len() as f64;
    let (x, y) = zone.iter().fold((0.0, 0.0), |(x, y), p| (x + p.x, y + p.y));
    Some(Point::new(x / n, y / n))
}
