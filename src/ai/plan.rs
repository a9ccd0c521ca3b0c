//! The opponent's plan: each side reads its scenario's objectives and the table, and each of its
//! command units gets a [`Task`] — attack an objective, hold a position, screen a flank, or wait
//! in reserve — with a "why" line a person can read (`battle autoplay --explain`).
//!
//! The plan is a pure function of the battle state ([`side_plan`]): nothing is stored between
//! turns, so the same table gives the same plan, and a saved battle resumes with the plan it
//! had. A task persists over several turns because the table it is read from changes slowly;
//! it changes when one of the re-planning triggers below does:
//!
//! * **Breakpoint near**: the side has lost all but [`BREAK_MARGIN`] of its breakpoint in units
//!   (BRK-02, read from the state) — every command unit holds where it stands.
//! * **Objective taken**: the attacker holds its major objective (OBJ-01 as the table shows it,
//!   [`tactics::holds`]) — every command unit holds that ground.
//! * **Enemy on our ground**: a defender with an enemy unit on its objective counter-attacks
//!   when it is the stronger there, and commits its reserve.
//! * **Flank turned / formation worn**: an attacking formation that has lost half its stands,
//!   or the closing turns (END-03 (2)), commit the reserve; local superiority, or the closing
//!   turns, send the cavalry from the flank into the attack to exploit.
//!
//! Local superiority ([`SUPERIORITY`]): an attack is an *assault* (charges at even odds on
//! the objective ground and near it) when the side's stands within [`APPROACH_CM`] of the
//! objective outnumber the enemy's within [`LOCAL_CM`] of it by that margin, or in the closing
//! turns; otherwise the attackers close to firing range and let the fire (guns first) prepare
//! the assault, charging only at the usual good odds.
//!
//! The plan reads the table only (pieces, stands, the scenario's objective areas and chain of
//! command, the side's losses); the rules are asked nothing and copied nowhere — units carry
//! out their tasks through [`policy`](super::policy), which asks the engine's checks.
//!
//! Layering: pure; depends on `rules`, `model` and `geom` only (checked by `tests/layering.rs`).

use super::policy::{command_units, defends, dist, pose_of, side_units};
use super::tactics;
use crate::geom::Point;
use crate::model::{Arm, HqId, UnitId};
use crate::rules::battle::Ctx;
use crate::rules::state::PieceId;
use serde::Serialize;
use std::collections::BTreeMap;

/// The side is within this many units of its breakpoint: it stops attacking and holds.
pub const BREAK_MARGIN: u32 = 1;
/// Own stands within this distance of the objective count for an assault.
pub const APPROACH_CM: f64 = 50.0;
/// Enemy stands within this distance of the objective count against one.
pub const LOCAL_CM: f64 = 30.0;
/// The margin of local superiority an assault needs.
pub const SUPERIORITY: f64 = 1.3;
/// A reserve waits this far behind the nearest attacking formation.
pub const RESERVE_BEHIND_CM: f64 = 25.0;
/// A screening cavalry formation stands this far to the side of the objective.
pub const SCREEN_OFFSET_CM: f64 = 40.0;
/// A formation that keeps less than this share of its stands is worn.
pub const WORN_SHARE: f64 = 0.5;

/// What a command unit's formation is doing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "task")]
pub enum Task {
    /// Take the ground at `at`; `assault`: with local superiority (charge at even odds there).
    Attack { at: Point, assault: bool },
    /// Hold the ground at `at`: engage only enemies that come close, go back when strayed.
    Hold { at: Point },
    /// Cover a flank from `at`, engaging what comes near.
    Screen { at: Point },
    /// Wait at `at`, behind the attack, until committed.
    Reserve { at: Point },
}

impl Task {
    /// Where the task sends the formation.
    pub fn at(&self) -> Point {
        match *self {
            Task::Attack { at, .. }
            | Task::Hold { at }
            | Task::Screen { at }
            | Task::Reserve { at } => at,
        }
    }

    pub fn is_attack(&self) -> bool {
        matches!(self, Task::Attack { .. })
    }

    /// An attack with local superiority.
    pub fn is_assault(&self) -> bool {
        matches!(self, Task::Attack { assault: true, .. })
    }

    /// How far the formation may stand from [`Task::at`] before it goes back (`None`: it
    /// keeps going until it is there).
    pub fn stay_within_cm(&self) -> Option<f64> {
        match self {
            Task::Attack { .. } => None,
            Task::Hold { .. } => Some(super::policy::HOLD_RADIUS_CM),
            Task::Screen { .. } => Some(12.0),
            Task::Reserve { .. } => Some(8.0),
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Task::Attack { assault: true, .. } => "assault",
            Task::Attack { .. } => "attack",
            Task::Hold { .. } => "hold",
            Task::Screen { .. } => "screen",
            Task::Reserve { .. } => "reserve",
        }
    }
}

/// One command unit's task and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HqTask {
    pub hq: PieceId,
    pub name: String,
    pub task: Task,
    pub why: String,
}

/// A side's plan for the table as it stands.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct SidePlan {
    pub side: usize,
    pub tasks: Vec<HqTask>,
    /// Each unit's formation: its own command unit, or the CO's when its own is gone.
    #[serde(skip)]
    formation: BTreeMap<UnitId, HqId>,
}

impl SidePlan {
    /// The task of the formation `unit` belongs to.
    pub fn task_of(&self, unit: PieceId) -> Option<&Task> {
        let PieceId::Unit { unit, .. } = unit else {
            return None;
        };
        let hq = self.formation.get(&unit)?;
        self.tasks
            .iter()
            .find(|t| matches!(t.hq, PieceId::Hq { hq: h, .. } if h == *hq))
            .map(|t| &t.task)
    }

    /// One line per command unit: its name, task and why.
    pub fn why_lines(&self) -> Vec<String> {
        self.tasks
            .iter()
            .map(|t| {
                let at = t.task.at();
                format!(
                    "{} — {} towards ({:.0}, {:.0}): {}",
                    t.name,
                    t.task.label(),
                    at.x,
                    at.y,
                    t.why
                )
            })
            .collect()
    }
}

/// A formation's look at the table.
struct Formation {
    hq: HqId,
    /// Where the scenario deployed it (the centre of its units' placements): the reserve is
    /// chosen from this, so the choice stays put while the formations move.
    deployed: Point,
    name: String,
    centre: Point,
    stands: u32,
    start: u32,
    cavalry: u32,
}

fn centre(points: &[Point]) -> Option<Point> {
    if points.is_empty() {
        return None;
    }
    let n = points.len() as f64;
    let (x, y) = points
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + p.x, y + p.y));
    Some(Point::new(x / n, y / n))
}

/// The ground the side fights for: the centre of its major objective, else its minor, else
/// the enemy's centre.
pub fn objective_point(ctx: &Ctx, side: usize) -> Option<Point> {
    let [major, minor] = tactics::objective_areas(ctx, side);
    if let Some(c) = centre(major) {
        return Some(c);
    }
    if let Some(c) = centre(minor) {
        return Some(c);
    }
    let enemy: Vec<Point> = side_units(ctx, 1 - side.min(1))
        .filter(|p| p.on_table())
        .filter_map(|p| p.pose.map(|q| q.at))
        .collect();
    centre(&enemy)
}

/// Stands of `side`'s troop units on the table whose reference point lies within `reach` of `at`.
pub fn stands_near(ctx: &Ctx, side: usize, at: Point, reach: f64) -> u32 {
    side_units(ctx, side)
        .filter(|p| p.on_table())
        .filter(|p| p.pose.is_some_and(|q| dist(q.at, at) <= reach))
        .map(|p| u32::from(p.stands))
        .sum()
}

/// The side's plan for the table as it stands (see the module doc for the tasks and the
/// re-planning triggers). Deterministic: formations in command-unit id order, the CO last.
pub fn side_plan(ctx: &Ctx, side: usize) -> SidePlan {
    let mut plan = SidePlan {
        side,
        ..SidePlan::default()
    };
    let Some(s) = ctx.scenario.sides.get(side) else {
        return plan;
    };
    let hqs = command_units(ctx, side);
    let on_table = |h: HqId| hqs.contains(&PieceId::Hq { side, hq: h });
    let co = hqs.last().and_then(|h| match h {
        PieceId::Hq { hq, .. } => Some(*hq),
        PieceId::Unit { .. } => None,
    });
    let Some(co) = co else {
        return plan;
    };
    // ART-10: an FAO's guns fight with the CO's formation.
    let fao = |h: HqId| s.hq(h).is_some_and(|x| x.fao);
    for u in &s.units {
        let hq = if on_table(u.hq) && !fao(u.hq) {
            u.hq
        } else {
            co
        };
        plan.formation.insert(u.id, hq);
    }
    let mut formations: BTreeMap<HqId, (Vec<Point>, u32, u32, u32)> = BTreeMap::new();
    let mut deployed: BTreeMap<HqId, Vec<Point>> = BTreeMap::new();
    let starting: BTreeMap<UnitId, u8> = s.units.iter().map(|u| (u.id, u.stands)).collect();
    for u in &s.units {
        if let (Some(hq), Some(at)) = (plan.formation.get(&u.id), u.position.map(|p| p.at)) {
            deployed.entry(*hq).or_default().push(at);
        }
    }
    for p in side_units(ctx, side) {
        let PieceId::Unit { unit, .. } = p.id else {
            continue;
        };
        let Some(hq) = plan.formation.get(&unit).copied() else {
            continue;
        };
        let start = starting.get(&unit).map_or(0, |n| u32::from(*n));
        let e = formations.entry(hq).or_default();
        e.2 += start;
        if !p.on_table() {
            continue;
        }
        if let Some(q) = p.pose {
            e.0.push(q.at);
        }
        e.1 += u32::from(p.stands);
        if p.arm == Some(Arm::Cavalry) {
            e.3 += u32::from(p.stands);
        }
    }
    let mut forms: Vec<Formation> = formations
        .into_iter()
        .filter_map(|(hq, (pts, stands, start, cavalry))| {
            let at = centre(&pts)?;
            Some(Formation {
                hq,
                deployed: deployed.get(&hq).and_then(|d| centre(d)).unwrap_or(at),
                name: s.hq(hq).map_or_else(|| hq.to_string(), |h| h.name.clone()),
                centre: centre(&pts)?,
                stands,
                start,
                cavalry,
            })
        })
        .collect();
    // The CO's formation is planned last, like its orders (CMD-02).
    forms.sort_by_key(|f| (f.hq == co, f.hq));
    let Some(goal) = objective_point(ctx, side) else {
        return plan;
    };
    let enemy = 1 - side.min(1);
    let own_pts: Vec<Point> = forms.iter().map(|f| f.centre).collect();
    let home = centre(&own_pts).unwrap_or(goal);
    let defender = defends(ctx, side);
    let closing = tactics::closing_turns(ctx);
    let ledger = ctx.state.sides.get(side);
    let lost = ledger.map_or(0, |l| l.units_lost);
    let breakpoint = ledger.map_or(u32::MAX, |l| l.breakpoint);
    let near_break = lost > 0 && lost + BREAK_MARGIN >= breakpoint;
    let [major, _] = tactics::objective_areas(ctx, side);
    let taken = !defender && tactics::holds(ctx, side, major);
    let own_near = stands_near(ctx, side, goal, APPROACH_CM);
    let enemy_near = stands_near(ctx, enemy, goal, LOCAL_CM);
    let superior = f64::from(own_near) >= SUPERIORITY * f64::from(enemy_near).max(1.0);
    let enemy_on_ground = side_units(ctx, enemy)
        .filter(|p| p.on_table())
        .any(|p| tactics::piece_on_objective(ctx, side, p.id));
    let worn = |f: &Formation| f64::from(f.stands) < WORN_SHARE * f64::from(f.start.max(1));
    let cavalry = |f: &Formation| f.cavalry * 2 > f.stands;
    let odds = format!("{own_near} of our stands near it against {enemy_near} of theirs");
    // The flank a formation covers: the side of the line home → goal it stands on.
    let flank = |f: &Formation| {
        let (dx, dy) = (goal.x - home.x, goal.y - home.y);
        let len = (dx * dx + dy * dy).sqrt().max(1e-9);
        let (nx, ny) = (-dy / len, dx / len);
        let sgn = if (f.centre.x - home.x) * nx + (f.centre.y - home.y) * ny >= 0.0 {
            1.0
        } else {
            -1.0
        };
        let max_x = ctx.scenario.table.width_cm;
        let max_y = ctx.scenario.table.depth_cm;
        Point::new(
            (goal.x + sgn * nx * SCREEN_OFFSET_CM).clamp(5.0, (max_x - 5.0).max(5.0)),
            (goal.y + sgn * ny * SCREEN_OFFSET_CM).clamp(5.0, (max_y - 5.0).max(5.0)),
        )
    };
    let push = |plan: &mut SidePlan, f: &Formation, task: Task, why: String| {
        plan.tasks.push(HqTask {
            hq: PieceId::Hq { side, hq: f.hq },
            name: f.name.clone(),
            task,
            why,
        });
    };
    if near_break {
        for f in &forms {
            let why = format!(
                "breakpoint near ({lost} of {breakpoint} units lost): stand and hold where it is"
            );
            push(&mut plan, f, Task::Hold { at: f.centre }, why);
        }
        return plan;
    }
    if taken {
        for f in &forms {
            push(
                &mut plan,
                f,
                Task::Hold { at: goal },
                "our objective is taken: hold it".into(),
            );
        }
        return plan;
    }
    // The reserve: the formation (not cavalry) farthest from the objective, when there are at
    // least three that are not cavalry.
    let foot: Vec<&Formation> = forms.iter().filter(|f| !cavalry(f)).collect();
    let reserve = (foot.len() >= 3)
        .then(|| {
            foot.iter()
                .filter(|f| f.hq != co || foot.len() == 1)
                .max_by(|a, b| {
                    dist(a.deployed, goal)
                        .total_cmp(&dist(b.deployed, goal))
                        .then(b.hq.cmp(&a.hq))
                })
                .map(|f| f.hq)
        })
        .flatten();
    let worn_names: Vec<&str> = forms
        .iter()
        .filter(|f| Some(f.hq) != reserve && !cavalry(f) && worn(f))
        .map(|f| f.name.as_str())
        .collect();
    if defender {
        let counter = enemy_on_ground && superior;
        for f in &forms {
            let (task, why) = if cavalry(f) && !counter {
                (
                    Task::Screen { at: flank(f) },
                    "cavalry covers the flank of our position".to_string(),
                )
            } else if Some(f.hq) == reserve && !enemy_on_ground {
                let away = behind(goal, ctx, enemy, RESERVE_BEHIND_CM);
                (
                    Task::Reserve { at: away },
                    "waits behind the objective to meet a break-in".to_string(),
                )
            } else if counter {
                (
                    Task::Attack {
                        at: goal,
                        assault: true,
                    },
                    format!("the enemy is on our ground and we are the stronger there ({odds}): counter-attack"),
                )
            } else if Some(f.hq) == reserve {
                (
                    Task::Hold { at: goal },
                    "reserve committed: the enemy is on our ground".to_string(),
                )
            } else {
                (
                    Task::Hold { at: goal },
                    "hold our objective ground".to_string(),
                )
            };
            push(&mut plan, f, task, why);
        }
        return plan;
    }
    let assault = superior || closing;
    let attack_why = if closing {
        "the last turns: take the objective whatever it costs".to_string()
    } else if superior {
        format!("local superiority ({odds}): assault the objective")
    } else {
        format!(
            "advance on the objective; not yet the stronger there ({odds}), so fire prepares the assault"
        )
    };
    let attack = Task::Attack { at: goal, assault };
    // Where the reserve waits: behind the formation nearest the objective.
    let front = forms
        .iter()
        .filter(|f| Some(f.hq) != reserve && !cavalry(f))
        .min_by(|a, b| dist(a.centre, goal).total_cmp(&dist(b.centre, goal)))
        .map_or(home, |f| f.centre);
    for f in &forms {
        let (task, why) = if cavalry(f) && !assault {
            (
                Task::Screen { at: flank(f) },
                "cavalry covers the flank of the attack until it can exploit".to_string(),
            )
        } else if cavalry(f) {
            (attack, "cavalry joins the attack to exploit it".to_string())
        } else if Some(f.hq) == reserve && worn_names.is_empty() && !closing {
            let back = step_back(front, goal, RESERVE_BEHIND_CM);
            (
                Task::Reserve { at: back },
                "held back behind the leading formation, fresh for later".to_string(),
            )
        } else if Some(f.hq) == reserve {
            let why = if closing {
                "reserve committed for the last turns".to_string()
            } else {
                format!("reserve committed: {} is worn", worn_names.join(", "))
            };
            (attack, why)
        } else {
            (attack, attack_why.clone())
        };
        push(&mut plan, f, task, why);
    }
    plan
}

/// A point `by` cm from `from`, away from `towards`.
fn step_back(from: Point, towards: Point, by: f64) -> Point {
    let (dx, dy) = (from.x - towards.x, from.y - towards.y);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1e-9 {
        return from;
    }
    Point::new(from.x + dx / len * by, from.y + dy / len * by)
}

/// A point `by` cm behind `at`, away from the centre of `enemy`'s troops.
fn behind(at: Point, ctx: &Ctx, enemy: usize, by: f64) -> Point {
    let pts: Vec<Point> = side_units(ctx, enemy)
        .filter_map(|p| pose_of(ctx, p.id).map(|q| q.at))
        .collect();
    match centre(&pts) {
        Some(e) => step_back(at, e, by),
        None => at,
    }
}

/// Both sides' plans, side 0 first.
pub fn plans(ctx: &Ctx) -> [SidePlan; 2] {
    [side_plan(ctx, 0), side_plan(ctx, 1)]
}
