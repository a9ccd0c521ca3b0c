//! Engineering (catalogue §2.14 ENG-01..ENG-06) and what the works it makes do on the table
//! (DEF-04 with DEF-06): the EngineerTask action ([`check_engineer_task`],
//! [`resolve_engineer_task`]), the end-of-initiative confirmation or cancellation of the tasks
//! (ENG-02, [`end_initiative`]), artillery fire at bridge sections (ENG-04 (c)–(d),
//! [`resolve_fire_at_bridge`]) and the table overlays the other rules consult:
//!
//! * [`defence_lines`]: a field defence's line with its cleared, demolished and bridged
//!   sections cut out (movement, sight, cover and round shot read it; a defence the referee
//!   removed whole, or one that collapsed, has no line left);
//! * [`bridge_cutters`]: the pontoon sections that cut water for movement (ENG-04 (a));
//! * [`in_sap`]: a unit in a sap trench (ENG-06: Soft cover);
//! * [`in_fortifications`]: a unit in Fortified Works or a Fortification (DEF-04, CHG-25).
//!
//! State lives in [`EngineeringState`] (one field of `BattleState`), changed only by `apply`.
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * "Starts the initiative phase in base contact": base contact is checked when the task is
//!   declared; an engineer unit that has already taken another initiative action cannot be
//!   told apart yet (the initiative gate of issue 4 consumes it: the task is an initiative
//!   action of kind EngineerTask).
//! * A task's section is 5 cm wide (× measure scale), centred on the point of the work
//!   nearest the `at` the player gives, which must lie within 5 cm of the engineers.
//! * Clearance (ENG-03) applies to Wire and Stakes; demolition (ENG-05) to Ditch, Breast Works,
//!   Log Works, Fortified Works and Fortification (Trench and Dug-Out are not demolished; they
//!   fall with their occupant, DEF-06).
//! * DEF-06 is per defence item: the first cleared or demolished section of a field defence
//!   knocks the item out for VPs (its full cost, once, as the ledger already counts it); the
//!   table effect is per 5 cm section.
//! * A bridge (ENG-04) grows from the engineers' front edge, then from the far end of their
//!   last section, 5 cm towards `at`. It may span deep or shallow water, or a Ditch.
//! * A sap (ENG-06) grows 5 cm per initiative phase the same way; a unit whose centre is in a
//!   sap is in Soft cover (dug-in is for scenario trenches, VIS-16).
//! * Consolidating through the gap (ENG-03, ENG-05 with CHG-24): engineers whose clearance or
//!   demolition succeeded may `Consolidate` once, in the same Initiative phase, under the
//!   CHG-24 limits; not once suppressed (the task no longer counts). The right is read from the
//!   works ([`consolidation_gap`]); its use is recorded in `EngineeringState::consolidated`.
//!   A field defence still standing stops every consolidation ([`defence_across`]), so only
//!   the gap lets them through.
//! * Bridge fire (ENG-04 (d)): only in the Command phase (initiative fire goes at the nearest
//!   enemy unit, INIT-04), only unlimbered artillery of the active side, within range and
//!   with the section's centre in a fire cone; one die per stand × dice per stand, hits on 6, no
//!   save, no modifiers; a section with 4 hits is destroyed and units on it are knocked out.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::battle::{check_may_act, Ctx};
use super::dice::Dice;
use super::error::{ActionError, RuleError};
use super::event::{Event, KnockOutCause, Modifier};
use super::firing::weapon_range_cm;
use super::geometry::{footprint_of, measure_scale, CONTACT_TOLERANCE_CM};
use super::state::{BattleState, Phase, PieceId, PieceState};
use super::victory::{DefenseLossCause, Loss};
use crate::geom::footprint::{fire_cone_contains, ring_polygon};
use crate::geom::segment::{
    footprint_polygon_distance, footprint_polyline_distance, point_footprint_distance,
};
use crate::geom::{Footprint, Point};
use crate::model::{Arm, DefenseId, DefenseKind, FeatureId, FieldDefense, Geometry, TerrainKind};
use geo::{Intersects, LineString, Polygon};
use serde::{Deserialize, Serialize};

/// ENG-03..ENG-06: the width of a cleared, demolished, bridged or sapped section (and the
/// length a bridge or sap grows by), in cm at measure scale 1.
pub const SECTION_CM: f64 = 5.0;
/// ENG-04: hits a bridge section takes before it is destroyed.
pub const BRIDGE_HITS: u32 = 4;
/// ENG-04: the only score that hits a bridge section.
pub const BRIDGE_HIT_ON: u8 = 6;

/// The engineering tasks (ENG-03..ENG-06).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineerTaskKind {
    /// ENG-03: clear a 5 cm section of wire or stakes (1D6, 3+).
    Clear,
    /// ENG-04: lay one 5 cm pontoon section (no roll).
    Bridge,
    /// ENG-05: demolish a 5 cm section of a work or ditch (1D6, 4+).
    Demolish,
    /// ENG-06: dig 5 cm of sap trench (no roll).
    Sap,
}

impl EngineerTaskKind {
    pub fn label(self) -> &'static str {
        match self {
            EngineerTaskKind::Clear => "obstacle clearance",
            EngineerTaskKind::Bridge => "bridging",
            EngineerTaskKind::Demolish => "demolition",
            EngineerTaskKind::Sap => "sapping",
        }
    }

    pub fn rule(self) -> &'static str {
        match self {
            EngineerTaskKind::Clear => "ENG-03",
            EngineerTaskKind::Bridge => "ENG-04",
            EngineerTaskKind::Demolish => "ENG-05",
            EngineerTaskKind::Sap => "ENG-06",
        }
    }

    /// The score the task roll needs (`None`: no roll).
    pub fn needs(self) -> Option<u8> {
        match self {
            EngineerTaskKind::Clear => Some(3),
            EngineerTaskKind::Demolish => Some(4),
            EngineerTaskKind::Bridge | EngineerTaskKind::Sap => None,
        }
    }
}

/// What a bridge section spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Spans {
    Feature { feature: FeatureId },
    Defense { side: usize, defense: DefenseId },
}

/// A change engineers made to the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum WorkKind {
    /// ENG-03 / ENG-05: a section of a field defence cleared or demolished.
    Breach {
        side: usize,
        defense: DefenseId,
        /// Centre of the section, on the defence's line.
        at: Point,
        /// The direction of the defence's line there (a unit vector as a point).
        along: Point,
        width_cm: f64,
        cause: DefenseLossCause,
    },
    /// ENG-04: one pontoon section from `from` to `to`.
    Bridge {
        spans: Spans,
        from: Point,
        to: Point,
        width_cm: f64,
        #[serde(default)]
        hits: u32,
        #[serde(default)]
        destroyed: bool,
    },
    /// ENG-06: a strip of sap trench from `from` to `to`.
    Sap {
        from: Point,
        to: Point,
        width_cm: f64,
    },
}

/// One work, with who made it and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Work {
    pub id: u32,
    pub by: PieceId,
    pub player_turn: u32,
    /// ENG-02: set at the end of the initiative phase it was made in, if the engineers were
    /// not suppressed by then.
    #[serde(default)]
    pub confirmed: bool,
    pub kind: WorkKind,
}

/// ENG-02: an engineer unit used its initiative action on a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskTaken {
    pub piece: PieceId,
    pub player_turn: u32,
    pub task: EngineerTaskKind,
}

/// Engineering state of the battle (one field of `BattleState`), with the brigade skirmisher
/// screens' state (so that issue 4's table overlays share one field).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EngineeringState {
    #[serde(default)]
    pub works: Vec<Work>,
    #[serde(default)]
    pub tasks: Vec<TaskTaken>,
    /// Brigade skirmisher screens the battle has touched (SKIR-02, SKIR-03; `skirmish`).
    #[serde(default)]
    pub screens: Vec<super::skirmish::ScreenState>,
    /// ENG-03, ENG-05: engineers that have used their right to consolidate through the gap
    /// they made (one consolidation per task).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub consolidated: Vec<GapConsolidated>,
}

/// ENG-03, ENG-05 (with CHG-24): an engineer unit consolidated after its clearance or
/// demolition in this player turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GapConsolidated {
    pub piece: PieceId,
    pub player_turn: u32,
}

impl EngineeringState {
    pub fn work(&self, id: u32) -> Option<&Work> {
        self.works.iter().find(|w| w.id == id)
    }

    fn next_id(&self) -> u32 {
        self.works.iter().map(|w| w.id).max().map_or(1, |m| m + 1)
    }

    /// ENG-02: the task an engineer unit carried out in a player turn, if any.
    pub fn task_in(&self, piece: PieceId, player_turn: u32) -> Option<EngineerTaskKind> {
        self.tasks
            .iter()
            .find(|t| t.piece == piece && t.player_turn == player_turn)
            .map(|t| t.task)
    }

    /// ENG-03, ENG-05 (with CHG-24): the breach through which `piece` may still consolidate
    /// now — one it made in this initiative phase (player turn `player_turn`), that it has not
    /// consolidated after yet. Whether the engineers are fit to move is the caller's question.
    pub fn gap_of(&self, piece: PieceId, player_turn: u32) -> Option<&Work> {
        if self
            .consolidated
            .iter()
            .any(|c| c.piece == piece && c.player_turn == player_turn)
        {
            return None;
        }
        self.works.iter().find(|w| {
            w.by == piece
                && w.player_turn == player_turn
                && matches!(w.kind, WorkKind::Breach { .. })
        })
    }
}

/// ENG-03, ENG-05 (with CHG-24): the breach `piece` may consolidate through now, if any — in
/// the Initiative phase it made the breach in only.
pub fn consolidation_gap(state: &BattleState, piece: PieceId) -> Option<&Work> {
    if state.turn.phase != Phase::Initiative {
        return None;
    }
    state.engineering.gap_of(piece, state.turn.player_turn)
}

/// ENG-03, ENG-05: the engineer units that may consolidate through their gap now (on the
/// table and unsuppressed: the task does not count for suppressed engineers), in id order.
pub fn gap_consolidations(state: &BattleState) -> Vec<PieceId> {
    let mut v: Vec<PieceId> = state
        .engineering
        .works
        .iter()
        .map(|w| w.by)
        .filter(|id| consolidation_gap(state, *id).is_some())
        .filter(|id| {
            state
                .piece(*id)
                .is_some_and(|p| p.on_table() && p.suppressed_at.is_none())
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// ENG-03, ENG-05: `apply` of a consolidation by engineers through their gap (called by the
/// charge rules' `apply` for a `Consolidated` that used no combat win).
pub fn note_gap_consolidated(state: &mut BattleState, piece: PieceId) {
    if consolidation_gap(state, piece).is_some() {
        let player_turn = state.turn.player_turn;
        state
            .engineering
            .consolidated
            .push(GapConsolidated { piece, player_turn });
    }
}

/// CHG-24 ruling ("stops at linear boundaries") with TERR-13 and DEF-04: the first field
/// defence still standing across the straight path `a`→`b` that hinders `mover` (its name). A
/// cleared or demolished section no longer stands (ENG-03, ENG-05): engineers pass through
/// the gap they made.
pub fn defence_across(
    ctx: &Ctx,
    mover: super::terrain::Mover,
    a: Point,
    b: Point,
) -> Option<String> {
    let path = line(&[a, b]);
    for (si, side) in ctx.scenario.sides.iter().enumerate() {
        for d in &side.field_defenses {
            if super::terrain::defense_going(d.kind, mover) == super::terrain::Going::Clear {
                continue;
            }
            let crossed = defence_lines(ctx.state, si, d)
                .iter()
                .filter(|run| run.len() >= 2)
                .any(|run| line(run).intersects(&path));
            if crossed {
                return Some(d.kind.label().to_string());
            }
        }
    }
    None
}

// --- apply ------------------------------------------------------------------------------------

/// `apply` for the engineering events (called from [`super::apply::apply`]).
pub fn apply_event(state: &mut BattleState, event: &Event) {
    let eng = &mut state.engineering;
    match event {
        Event::EngineerTaskTaken {
            piece,
            task,
            player_turn,
        } => eng.tasks.push(TaskTaken {
            piece: *piece,
            player_turn: *player_turn,
            task: *task,
        }),
        Event::WorkDone { work } => eng.works.push(work.clone()),
        Event::WorkConfirmed { work } => {
            if let Some(w) = eng.works.iter_mut().find(|w| w.id == *work) {
                w.confirmed = true;
            }
        }
        Event::WorkCancelled { work, .. } => eng.works.retain(|w| w.id != *work),
        Event::BridgeHit { work, total, .. } => {
            if let Some(Work {
                kind: WorkKind::Bridge { hits, .. },
                ..
            }) = eng.works.iter_mut().find(|w| w.id == *work)
            {
                *hits = *total;
            }
        }
        Event::BridgeDestroyed { work } => {
            if let Some(Work {
                kind: WorkKind::Bridge { destroyed, .. },
                ..
            }) = eng.works.iter_mut().find(|w| w.id == *work)
            {
                *destroyed = true;
            }
        }
        _ => {}
    }
}

// --- geometry ---------------------------------------------------------------------------------

fn sub(a: Point, b: Point) -> Point {
    Point::new(a.x - b.x, a.y - b.y)
}

fn add(a: Point, b: Point, k: f64) -> Point {
    Point::new(a.x + b.x * k, a.y + b.y * k)
}

fn unit(v: Point) -> Option<Point> {
    let len = v.x.hypot(v.y);
    (len > 1e-9).then(|| Point::new(v.x / len, v.y / len))
}

/// A rectangle from `a` to `b`, `width` across.
fn strip(a: Point, b: Point, width: f64) -> Option<Polygon<f64>> {
    let d = unit(sub(b, a))?;
    let n = Point::new(-d.y, d.x);
    let h = width / 2.0;
    Some(ring_polygon(&[
        add(a, n, h),
        add(b, n, h),
        add(b, n, -h),
        add(a, n, -h),
    ]))
}

impl WorkKind {
    /// The ground the work covers (a breach: its 5 cm gap, reaching 5 cm either side of the
    /// line so that it cuts it whatever the line's own width).
    pub fn polygon(&self) -> Option<Polygon<f64>> {
        match self {
            WorkKind::Breach {
                at,
                along,
                width_cm,
                ..
            } => strip(
                add(*at, *along, -width_cm / 2.0),
                add(*at, *along, width_cm / 2.0),
                2.0 * SECTION_CM,
            ),
            WorkKind::Bridge {
                from, to, width_cm, ..
            }
            | WorkKind::Sap {
                from, to, width_cm, ..
            } => strip(*from, *to, *width_cm),
        }
    }
}

/// The nearest point of a polyline to `p`, with the direction of the segment it lies on.
fn nearest_on(points: &[Point], p: Point) -> Option<(Point, Point, f64)> {
    let mut best: Option<(Point, Point, f64)> = None;
    for w in points.windows(2) {
        let (Some(&a), Some(&b)) = (w.first(), w.get(1)) else {
            continue;
        };
        let Some(d) = unit(sub(b, a)) else {
            continue;
        };
        let len = a.distance(b).0;
        let t = ((p.x - a.x) * d.x + (p.y - a.y) * d.y).clamp(0.0, len);
        let q = add(a, d, t);
        let dist = q.distance(p).0;
        if best.is_none_or(|(_, _, bd)| dist < bd) {
            best = Some((q, d, dist));
        }
    }
    best
}

fn line(points: &[Point]) -> LineString<f64> {
    LineString::from(
        points
            .iter()
            .map(|p| geo::Coord { x: p.x, y: p.y })
            .collect::<Vec<_>>(),
    )
}

/// DEF-06: the defence is gone whole (removed by the referee or collapsed); engineers' breaches
/// remove only their sections.
pub(crate) fn removed_whole(state: &BattleState, side: usize, defense: DefenseId) -> bool {
    state.ledger.side(side).is_some_and(|s| {
        s.losses.iter().any(|l| {
            matches!(l, Loss::Defense { defense: d, cause }
                if *d == defense
                    && matches!(cause, DefenseLossCause::Referee | DefenseLossCause::Collapsed))
        })
    })
}

/// DEF-04 with ENG-03..ENG-05: the runs of a field defence's line still standing — the line
/// with its breached and bridged sections cut out; none if the defence was removed whole.
/// Movement, sight, cover and round shot read this instead of the scenario's line.
pub fn defence_lines(state: &BattleState, side: usize, d: &FieldDefense) -> Vec<Vec<Point>> {
    if removed_whole(state, side, d.id) {
        return Vec::new();
    }
    let cutters: Vec<Polygon<f64>> = state
        .engineering
        .works
        .iter()
        .filter(|w| match &w.kind {
            WorkKind::Breach {
                side: s, defense, ..
            } => *s == side && *defense == d.id,
            WorkKind::Bridge {
                spans: Spans::Defense { side: s, defense },
                destroyed,
                ..
            } => *s == side && *defense == d.id && !destroyed,
            _ => false,
        })
        .filter_map(|w| w.kind.polygon())
        .collect();
    if cutters.is_empty() {
        return vec![d.at.clone()];
    }
    let refs: Vec<&Polygon<f64>> = cutters.iter().collect();
    super::terrain::off_road_runs(&d.at, &refs)
}

/// ENG-04 (a): intact pontoon sections over terrain features, which cut the water they span
/// for movement as a road cuts a river (TERR-07 ruling).
pub fn bridge_cutters(state: &BattleState) -> Vec<Polygon<f64>> {
    state
        .engineering
        .works
        .iter()
        .filter(|w| {
            matches!(
                w.kind,
                WorkKind::Bridge {
                    spans: Spans::Feature { .. },
                    destroyed: false,
                    ..
                }
            )
        })
        .filter_map(|w| w.kind.polygon())
        .collect()
}

/// ENG-06: is this point in a sap trench?
pub fn in_sap(state: &BattleState, p: Point) -> bool {
    state.engineering.works.iter().any(|w| {
        matches!(w.kind, WorkKind::Sap { .. })
            && w.kind
                .polygon()
                .is_some_and(|poly| poly.intersects(&geo::Point::new(p.x, p.y)))
    })
}

/// DEF-04 (for CHG-25): a unit in base contact with (or inside) a standing section of Fortified
/// Works or a Fortification is "in fortifications".
pub fn in_fortifications(ctx: &Ctx, piece: &PieceState) -> bool {
    let Some(fp) = footprint_of(ctx, piece) else {
        return false;
    };
    let tol = CONTACT_TOLERANCE_CM * measure_scale(ctx);
    ctx.scenario.sides.iter().enumerate().any(|(si, s)| {
        s.field_defenses
            .iter()
            .filter(|d| {
                matches!(
                    d.kind,
                    DefenseKind::FortifiedWorks | DefenseKind::Fortification
                )
            })
            .any(|d| {
                defence_lines(ctx.state, si, d)
                    .iter()
                    .any(|run| footprint_polyline_distance(&fp, &line(run)) <= tol)
            })
    })
}

// --- the task ---------------------------------------------------------------------------------

/// ENG-01: an engineer unit — an Engineers row, or an infantry unit with an engineer stand
/// attached that it has not lost.
pub fn is_engineer_unit(ctx: &Ctx, piece: &PieceState) -> bool {
    if ctx.row(piece).is_some_and(|r| r.arm == Arm::Engineers) {
        return true;
    }
    let PieceId::Unit { side, unit } = piece.id else {
        return false;
    };
    let attached = ctx
        .scenario
        .sides
        .get(side)
        .and_then(|s| s.unit(unit))
        .is_some_and(|u| u.engineer_attached);
    attached && !ctx.state.ledger.engineers_lost.contains(&piece.id)
}

/// ENG-02: an engineer unit that carried out a task this player turn may not be ordered in it.
/// For the command rules to call when they give orders.
pub fn check_not_tasked(ctx: &Ctx, piece: &PieceState) -> Result<(), RuleError> {
    match ctx
        .state
        .engineering
        .task_in(piece.id, ctx.state.turn.player_turn)
    {
        Some(task) => Err(RuleError::new(
            "ENG-02",
            format!(
                "{} carried out {} this turn and may not be ordered in it",
                piece.name,
                task.label()
            ),
        )),
        None => Ok(()),
    }
}

/// A checked task: what it will make (before the roll).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskPlan {
    pub piece: PieceId,
    pub task: EngineerTaskKind,
    pub kind: WorkKind,
}

fn front_middle(fp: &Footprint) -> Option<Point> {
    fp.front_edges().first().map(|e| e.midpoint())
}

/// Where the next bridge or sap section of these engineers starts: the far end of their last
/// standing section of that kind, or the middle of their front edge.
fn next_start(ctx: &Ctx, piece: PieceId, sap: bool, fp: &Footprint) -> Option<Point> {
    let last = ctx.state.engineering.works.iter().rev().find_map(|w| {
        if w.by != piece {
            return None;
        }
        match (&w.kind, sap) {
            (WorkKind::Sap { to, .. }, true) => Some(*to),
            (WorkKind::Bridge { to, destroyed, .. }, false) if !destroyed => Some(*to),
            _ => None,
        }
    });
    last.or_else(|| front_middle(fp))
}

/// ENG-01..ENG-06: may this engineer unit carry out this task here now? The error names the
/// rule that forbids it.
pub fn check_engineer_task(
    ctx: &Ctx,
    id: PieceId,
    task: EngineerTaskKind,
    at: Point,
) -> Result<TaskPlan, RuleError> {
    let piece = ctx.piece(id)?;
    check_may_act(ctx, piece)?;
    let t = ctx.state.turn;
    if t.phase != Phase::Initiative {
        return Err(RuleError::new(
            "ENG-02",
            format!(
                "engineering tasks are carried out in the Initiative phase, not the {} phase",
                t.phase.label()
            ),
        ));
    }
    if !is_engineer_unit(ctx, piece) {
        return Err(RuleError::new(
            "ENG-01",
            format!(
                "{} is not an engineer unit (no engineer stand attached, or it was lost)",
                piece.name
            ),
        ));
    }
    if piece.suppressed_at.is_some() {
        return Err(RuleError::new(
            "ENG-02",
            format!("{} is suppressed and may not carry out a task", piece.name),
        ));
    }
    if let Some(done) = ctx.state.engineering.task_in(id, t.player_turn) {
        return Err(RuleError::new(
            "ENG-02",
            format!(
                "{} has already carried out {} this initiative phase (one task per unit)",
                piece.name,
                done.label()
            ),
        ));
    }
    let Some(fp) = footprint_of(ctx, piece) else {
        return Err(RuleError::new(
            "SEQ-01",
            format!("{} is not on the table", piece.name),
        ));
    };
    let ms = measure_scale(ctx);
    let tol = CONTACT_TOLERANCE_CM * ms;
    let width = SECTION_CM * ms;
    let rule = task.rule();
    match task {
        EngineerTaskKind::Clear | EngineerTaskKind::Demolish => {
            let fits = |k: DefenseKind| match task {
                EngineerTaskKind::Clear => matches!(k, DefenseKind::Wire | DefenseKind::Stakes),
                _ => matches!(
                    k,
                    DefenseKind::Ditch
                        | DefenseKind::BreastWorks
                        | DefenseKind::LogWorks
                        | DefenseKind::FortifiedWorks
                        | DefenseKind::Fortification
                ),
            };
            // The touched defence of the right kind whose standing line passes nearest `at`.
            let mut best: Option<(f64, usize, DefenseId, Point, Point)> = None;
            for (si, s) in ctx.scenario.sides.iter().enumerate() {
                for d in s.field_defenses.iter().filter(|d| fits(d.kind)) {
                    for run in defence_lines(ctx.state, si, d) {
                        if footprint_polyline_distance(&fp, &line(&run)) > tol {
                            continue;
                        }
                        if let Some((q, along, dist)) = nearest_on(&run, at) {
                            if best.is_none_or(|b| dist < b.0) {
                                best = Some((dist, si, d.id, q, along));
                            }
                        }
                    }
                }
            }
            let what = if task == EngineerTaskKind::Clear {
                "an obstacle (wire, stakes)"
            } else {
                "a fortification (works, ditch)"
            };
            let Some((_, side, defense, centre, along)) = best else {
                return Err(RuleError::new(
                    rule,
                    format!(
                        "{} is not in base contact with {what} still standing",
                        piece.name
                    ),
                ));
            };
            if point_footprint_distance(centre, &fp) > width / 2.0 + tol {
                return Err(RuleError::new(
                    rule,
                    format!(
                        "the section at ({:.1}, {:.1}) is not in front of {}: a 5 cm section \
                         must touch the engineers",
                        centre.x, centre.y, piece.name
                    ),
                ));
            }
            Ok(TaskPlan {
                piece: id,
                task,
                kind: WorkKind::Breach {
                    side,
                    defense,
                    at: centre,
                    along,
                    width_cm: width,
                    cause: if task == EngineerTaskKind::Clear {
                        DefenseLossCause::Cleared
                    } else {
                        DefenseLossCause::Demolished
                    },
                },
            })
        }
        EngineerTaskKind::Bridge | EngineerTaskKind::Sap => {
            let sap = task == EngineerTaskKind::Sap;
            let Some(from) = next_start(ctx, id, sap, &fp) else {
                return Err(RuleError::new(rule, "the engineers have no front edge"));
            };
            let Some(dir) = unit(sub(at, from)) else {
                return Err(RuleError::new(
                    rule,
                    "give a point for the section to grow towards, away from where it starts",
                ));
            };
            let to = add(from, dir, width);
            let kind = if sap {
                WorkKind::Sap {
                    from,
                    to,
                    width_cm: width,
                }
            } else {
                let Some(spans) = water_touched(ctx, &fp, tol) else {
                    return Err(RuleError::new(
                        "ENG-04",
                        format!(
                            "{} is not in base contact with a river, canal, stream or ditch",
                            piece.name
                        ),
                    ));
                };
                WorkKind::Bridge {
                    spans,
                    from,
                    to,
                    width_cm: width,
                    hits: 0,
                    destroyed: false,
                }
            };
            Ok(TaskPlan {
                piece: id,
                task,
                kind,
            })
        }
    }
}

/// ENG-04: the water (or ditch) the engineers touch.
fn water_touched(ctx: &Ctx, fp: &Footprint, tol: f64) -> Option<Spans> {
    for f in &ctx.scenario.terrain {
        if !matches!(f.kind, TerrainKind::ShallowWet | TerrainKind::DeepWet) {
            continue;
        }
        let d = match &f.geometry {
            Geometry::Polygon(ring) if ring.len() >= 3 => {
                footprint_polygon_distance(fp, &ring_polygon(ring))
            }
            Geometry::Polygon(_) => continue,
            Geometry::Polyline { points, width_cm } => {
                footprint_polyline_distance(fp, &line(points)) - width_cm / 2.0
            }
        };
        if d <= tol {
            return Some(Spans::Feature { feature: f.id });
        }
    }
    for (si, s) in ctx.scenario.sides.iter().enumerate() {
        for d in s
            .field_defenses
            .iter()
            .filter(|d| d.kind == DefenseKind::Ditch)
        {
            if defence_lines(ctx.state, si, d)
                .iter()
                .any(|run| footprint_polyline_distance(fp, &line(run)) <= tol)
            {
                return Some(Spans::Defense {
                    side: si,
                    defense: d.id,
                });
            }
        }
    }
    None
}

/// ENG-02..ENG-06: the task's events — the initiative action used, the roll (clearance 3+,
/// demolition 4+) and the work made, provisional until the end of the initiative phase.
pub fn resolve_engineer_task(
    ctx: &Ctx,
    piece: PieceId,
    task: EngineerTaskKind,
    at: Point,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let plan = check_engineer_task(ctx, piece, task, at)?;
    let player_turn = ctx.state.turn.player_turn;
    let mut ev = vec![Event::EngineerTaskTaken {
        piece,
        task,
        player_turn,
    }];
    if let Some(needed) = task.needs() {
        let roll = dice.d6(task.label())?;
        ev.push(Event::DiceRolled {
            piece: Some(piece),
            purpose: task.label().to_string(),
            rule: task.rule().to_string(),
            dice: vec![roll],
            modifiers: vec![Modifier {
                rule: task.rule().to_string(),
                label: format!("succeeds on {needed}+"),
                value: i32::from(needed),
            }],
        });
        if roll < needed {
            ev.push(Event::NoEffect {
                piece,
                rule: task.rule().to_string(),
                reason: format!("{} failed: rolled {roll}, needed {needed}+", task.label()),
            });
            return Ok(ev);
        }
    }
    ev.push(Event::WorkDone {
        work: Work {
            id: ctx.state.engineering.next_id(),
            by: piece,
            player_turn,
            confirmed: false,
            kind: plan.kind,
        },
    });
    Ok(ev)
}

/// ENG-02, ENG-03, ENG-05, DEF-06: at the end of an initiative phase, each work made in it
/// stands if its engineers are still unsuppressed (and on the table), and is cancelled
/// otherwise; a standing breach knocks its field defence out for VPs (once per defence).
pub fn end_initiative(ctx: &Ctx) -> Vec<Event> {
    let mut ev = Vec::new();
    let mut lost: Vec<(usize, DefenseId)> = Vec::new();
    for w in ctx.state.engineering.works.iter().filter(|w| !w.confirmed) {
        let fit = ctx
            .state
            .piece(w.by)
            .is_some_and(|p| p.on_table() && p.suppressed_at.is_none());
        if !fit {
            ev.push(Event::WorkCancelled {
                work: w.id,
                piece: w.by,
            });
            continue;
        }
        ev.push(Event::WorkConfirmed { work: w.id });
        if let WorkKind::Breach {
            side,
            defense,
            cause,
            ..
        } = &w.kind
        {
            let key = (*side, *defense);
            if !ctx.state.ledger.defense_lost(*side, *defense) && !lost.contains(&key) {
                lost.push(key);
                ev.push(Event::DefenseKnockedOut {
                    side: *side,
                    defense: *defense,
                    cause: *cause,
                });
            }
        }
    }
    ev
}

// --- fire at bridges ----------------------------------------------------------------------------

/// ENG-04 (c)–(d): artillery fire at a pontoon section — the dice, hits on 6 only, no save; at
/// 4 hits the section is destroyed and every unit on it knocked out.
pub fn resolve_fire_at_bridge(
    ctx: &Ctx,
    firers: &[PieceId],
    work: u32,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let t = ctx.state.turn;
    let Some(w) = ctx.state.engineering.work(work) else {
        return Err(RuleError::new("ENG-04", format!("there is no bridge section {work}")).into());
    };
    let WorkKind::Bridge {
        hits: before,
        destroyed,
        ..
    } = &w.kind
    else {
        return Err(
            RuleError::new("ENG-04", format!("work {work} is not a bridge section")).into(),
        );
    };
    if *destroyed {
        return Err(RuleError::new(
            "ENG-04",
            format!("bridge section {work} is already destroyed"),
        )
        .into());
    }
    let Some(poly) = w.kind.polygon() else {
        return Ok(Vec::new());
    };
    let centre = {
        use geo::Centroid;
        poly.centroid()
            .map_or(Point::new(0.0, 0.0), |c| Point::new(c.x(), c.y()))
    };
    if t.phase == Phase::Deployment {
        return Err(RuleError::new("FIRE-01", "no firing before the battle starts").into());
    }
    if t.phase == Phase::Initiative {
        return Err(RuleError::new(
            "INIT-04",
            "on initiative a gun fires only at its nearest visible enemy unit, never at a bridge",
        )
        .into());
    }
    if firers.is_empty() {
        return Err(RuleError::new("FIRE-01", "name at least one firing unit").into());
    }
    let mut total_dice = 0u32;
    let mut mods = Vec::new();
    for f in firers {
        let p = ctx.piece(*f)?;
        check_gun_at_work(ctx, p, "ENG-04", "may target a bridge section")?;
        let row = ctx.row(p);
        let Some(fp) = footprint_of(ctx, p) else {
            continue;
        };
        let range = weapon_range_cm(ctx, p).unwrap_or(0.0);
        let d = point_footprint_distance(centre, &fp);
        if d > range + 1e-9 {
            return Err(RuleError::new(
                "FIRE-02",
                format!(
                    "bridge section {work} is {d:.1} cm from {}, beyond its range of {range:.1} cm",
                    p.name
                ),
            )
            .into());
        }
        if !fp
            .front_edges()
            .iter()
            .any(|e| fire_cone_contains(e, centre))
        {
            return Err(RuleError::new(
                "FIRE-04",
                format!(
                    "bridge section {work} is outside the fire cone of {}",
                    p.name
                ),
            )
            .into());
        }
        let per_stand = match row.and_then(|r| r.attack) {
            Some(crate::model::Attack::Ranged { dice, .. }) => u32::from(dice),
            _ => 0,
        };
        let n = u32::from(p.stands) * per_stand;
        total_dice += n;
        mods.push(Modifier {
            rule: "ENG-04".into(),
            label: format!("{}: {} stand(s) × {per_stand}", p.name, p.stands),
            value: i32::try_from(n).unwrap_or(i32::MAX),
        });
    }
    mods.push(Modifier {
        rule: "ENG-04".into(),
        label: "a bridge section is hit only on 6, no save".into(),
        value: i32::from(BRIDGE_HIT_ON),
    });
    let mut ev = Vec::new();
    let rolled = dice.roll(usize::try_from(total_dice).unwrap_or(0), "fire at bridge")?;
    let hits = u32::try_from(rolled.iter().filter(|d| **d >= BRIDGE_HIT_ON).count()).unwrap_or(0);
    ev.push(Event::DiceRolled {
        piece: match firers {
            [one] => Some(*one),
            _ => None,
        },
        purpose: "fire at bridge".into(),
        rule: "ENG-04".into(),
        dice: rolled,
        modifiers: mods,
    });
    if hits == 0 {
        return Ok(ev);
    }
    let total = (before + hits).min(BRIDGE_HITS);
    ev.push(Event::BridgeHit { work, hits, total });
    if total >= BRIDGE_HITS {
        ev.push(Event::BridgeDestroyed { work });
        for p in ctx.state.pieces.values().filter(|p| p.on_table()) {
            let Some(fp) = footprint_of(ctx, p) else {
                continue;
            };
            // On the section: a stand's centre stands on it (touching its end is not on it).
            if fp
                .stands
                .iter()
                .any(|s| poly.intersects(&geo::Point::new(s.centre.x, s.centre.y)))
            {
                ev.extend(super::victory::knock_out(
                    ctx,
                    p.id,
                    KnockOutCause::FallBackBlocked {
                        rule: "ENG-04".into(),
                        reason: "on a bridge section that was destroyed".into(),
                    },
                )?);
            }
        }
    }
    Ok(ev)
}

// --- the engineer stand in its unit ---------------------------------------------------------------

/// ENG-01 ruling with FIRE-08: an attached engineer stand fires with its unit, its own row's
/// dice, when the target is within its own range and the formation lets every stand fire (line,
/// extended line, disordered; in a column or square it is not at the front). `None` otherwise.
pub fn engineer_stand_dice(ctx: &Ctx, piece: &PieceState, distance_cm: f64) -> Option<Modifier> {
    use super::state::Formation;
    super::endphase::engineer_stand_hits(ctx, piece)?;
    if !matches!(
        piece.formation,
        Some(Formation::Line | Formation::ExtendedLine | Formation::Disordered)
    ) {
        return None;
    }
    let row = crate::model::points::engineer_row(ctx.list(piece.id.side())?)?;
    let crate::model::Attack::Ranged { dice, range_cm } = row.attack? else {
        return None;
    };
    let range = f64::from(range_cm)
        * super::firing::range_factor(ctx, piece.id.side())
        * measure_scale(ctx);
    (distance_cm <= range + 1e-9).then(|| Modifier {
        rule: "ENG-01".into(),
        label: format!(
            "attached engineer stand: {dice} di{}",
            if dice == 1 { "e" } else { "ce" }
        ),
        value: i32::from(dice),
    })
}

/// A gun firing at a work — a bridge section (ENG-04) or a construction (OPT-CONSTR-03): it may
/// act now (not suppressed, FIRE-23), is artillery (`rule`; `only` says what artillery alone
/// may do) and is unlimbered (MOVE-20).
pub(super) fn check_gun_at_work(
    ctx: &Ctx,
    p: &PieceState,
    rule: &'static str,
    only: &str,
) -> Result<(), ActionError> {
    check_may_act(ctx, p)?;
    if p.suppressed_at.is_some() {
        return Err(RuleError::new(
            "FIRE-23",
            format!(
                "{} is suppressed and can do nothing in its own turn",
                p.name
            ),
        )
        .into());
    }
    if ctx.row(p).is_none_or(|r| r.arm != Arm::Artillery) {
        return Err(RuleError::new(
            rule,
            format!("{} is not artillery: only artillery {only}", p.name),
        )
        .into());
    }
    if p.limbered {
        return Err(RuleError::new(
            "MOVE-20",
            format!("{} is limbered and cannot fire; unlimber it first", p.name),
        )
        .into());
    }
    Ok(())
}
