//! Knock-outs and what they are worth, objectives, and the result of the battle.
//!
//! Owns the battle's ledger ([`Ledger`]: every loss, the objectives declared,
//! attached engineer stands lost), the knock-out helpers the firing, charge and End-phase code
//! call ([`knock_out`], [`knock_out_defense`]), the referee's actions that record what the
//! table decided ([`resolve_remove_unit`], [`resolve_remove_defense`],
//! [`resolve_declare_objective`]) and the verdict: objectives (OBJ-01, OBJ-02) and victory
//! points (VP-01..VP-04, DEF-06) as pure functions ([`decide`], [`battle_result`]).
//!
//! A loss is recorded by `apply` from `Event::UnitKnockedOut` / `Event::DefenseKnockedOut` and
//! priced at the verdict from the scenario's purchase costs ([`loss_points`]), so a command
//! unit knocked out twice (the original and its replacement, CMD-28) counts twice. The
//! `Event::BattleResult` that follows `Event::BattleEnded` carries every number of the verdict.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only; must not import egui,
//! eframe, rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::battle::Ctx;
use super::error::{ActionError, RuleError};
use super::event::{Event, KnockOutCause};
use super::state::{Phase, PieceId, PieceState};
use crate::model::points::{hq_points, unit_points};
use crate::model::{DefenseId, DefenseKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// How far a side got towards its scenario objectives (OBJ-01). A side that reached its major
/// objective counts as "major", which includes the minor one (OBJ-01 ruling (a)).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum ObjectiveLevel {
    #[default]
    None,
    Minor,
    Major,
}

impl ObjectiveLevel {
    pub fn label(self) -> &'static str {
        match self {
            ObjectiveLevel::None => "no objective",
            ObjectiveLevel::Minor => "minor objective",
            ObjectiveLevel::Major => "major objective",
        }
    }
}

/// Why a field defence was knocked out (DEF-06).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum DefenseLossCause {
    /// ENG-03: an obstacle cleared by engineers.
    Cleared,
    /// ENG-05: a work demolished.
    Demolished,
    /// OPT-CONSTR-03: a construction collapsed.
    Collapsed,
    /// DEF-06 ruling: a Trench or Dug-Out whose occupant was knocked out in it.
    OccupantKnockedOut,
    /// The referee removed it.
    #[default]
    Referee,
}

/// One thing a side lost that is worth VPs to the opponent (VP-01, DEF-06). Priced by
/// [`loss_points`] from the scenario's costs, which never change during a battle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Loss {
    Piece {
        piece: PieceId,
        cause: KnockOutCause,
    },
    Defense {
        defense: DefenseId,
        cause: DefenseLossCause,
    },
}

/// What one side has lost and declared.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SideLedger {
    /// The objective the referee or players declared reached (END-03 (1), OBJ-01); the latest
    /// declaration stands.
    #[serde(default)]
    pub objective: ObjectiveLevel,
    /// Every knock-out of the side's units, command units (each time, CMD-28) and field
    /// defences, in order (VP-01).
    #[serde(default)]
    pub losses: Vec<Loss>,
}

/// The bookkeeping END, BRK, OBJ and VP need beyond the per-side totals of
/// [`super::state::SideState`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Ledger {
    #[serde(default)]
    pub sides: [SideLedger; 2],
    /// Units whose attached engineer stand has been lost: they are no longer engineer units
    /// (ENG-01) and the stand takes no more hits (GEN-11 mixed-unit ruling).
    #[serde(default)]
    pub engineers_lost: BTreeSet<PieceId>,
}

impl Ledger {
    pub fn side(&self, side: usize) -> Option<&SideLedger> {
        self.sides.get(side)
    }

    /// Records a loss (`apply` only).
    pub fn record(&mut self, side: usize, loss: Loss) {
        if let Some(s) = self.sides.get_mut(side) {
            s.losses.push(loss);
        }
    }

    pub fn defense_lost(&self, side: usize, defense: DefenseId) -> bool {
        self.side(side).is_some_and(|s| {
            s.losses
                .iter()
                .any(|l| matches!(l, Loss::Defense { defense: d, .. } if *d == defense))
        })
    }
}

// --- knock-outs ----------------------------------------------------------------------------------

/// VP-01 ruling (a), (c), (d): what a piece is worth to the opponent when knocked out — its full
/// purchase cost (every stand bought, grade and horse-artillery adjustments and an attached
/// engineer stand included) however many stands it had left; a command unit its chart cost, each
/// time it is knocked out (CMD-28). Items bought free (limbers) are part of their unit.
pub fn piece_points(ctx: &Ctx, piece: PieceId) -> i64 {
    let Some(side) = ctx.scenario.sides.get(piece.side()) else {
        return 0;
    };
    let Some(list) = ctx.list(piece.side()) else {
        return 0;
    };
    match piece {
        PieceId::Unit { unit, .. } => side.unit(unit).map_or(0, |u| unit_points(u, list)),
        PieceId::Hq { hq, .. } => side.hq(hq).map_or(0, |h| hq_points(h, list)),
    }
}

/// VP-01, DEF-06: what one loss is worth to the opponent of `side`.
pub fn loss_points(ctx: &Ctx, side: usize, loss: &Loss) -> i64 {
    match loss {
        Loss::Piece { piece, .. } => piece_points(ctx, *piece),
        Loss::Defense { defense, .. } => ctx
            .scenario
            .sides
            .get(side)
            .and_then(|s| s.field_defenses.iter().find(|d| d.id == *defense))
            .map_or(0, |d| i64::from(d.cost())),
    }
}

/// DEF-06 ruling: a Trench or Dug-Out holds its occupant while the occupant stands where the
/// scenario placed it (within 1 cm; the work does not move). A unit the scenario does not place
/// is taken to be in its work.
fn in_its_work(ctx: &Ctx, piece: &PieceState) -> bool {
    let PieceId::Unit { side, unit } = piece.id else {
        return false;
    };
    let start = ctx
        .scenario
        .sides
        .get(side)
        .and_then(|s| s.unit(unit))
        .and_then(|u| u.position);
    match (start, piece.pose) {
        (Some(start), Some(now)) => {
            (start.at.x - now.at.x).hypot(start.at.y - now.at.y) <= IN_WORK_CM
        }
        (None, _) => true,
        (Some(_), None) => false,
    }
}

/// How far an occupant may stand from its starting place and still be in its Trench or Dug-Out.
const IN_WORK_CM: f64 = 1.0;

/// GEN-12, BRK-02 (e), VP-01, DEF-06: the events of knocking a piece out — the piece (`apply`
/// counts it for the breakpoint unless it is a command unit, and records it for the VPs) and
/// the Trench or Dug-Out it occupied, which falls with it. The firing, charge and End-phase
/// code call this; it changes nothing.
pub fn knock_out(ctx: &Ctx, piece: PieceId, cause: KnockOutCause) -> Result<Vec<Event>, RuleError> {
    let p = ctx.piece(piece)?;
    if p.knocked_out {
        return Err(RuleError::new(
            "GEN-12",
            format!("{} has already been knocked out", p.name),
        ));
    }
    let mut ev = vec![Event::UnitKnockedOut { piece, cause }];
    if let PieceId::Unit { side, unit } = piece {
        if in_its_work(ctx, p) {
            let works = ctx.scenario.sides.get(side).into_iter().flat_map(|s| {
                s.field_defenses.iter().filter(|d| {
                    d.occupant == Some(unit)
                        && matches!(d.kind, DefenseKind::Trench | DefenseKind::DugOut)
                })
            });
            for d in works {
                if !ctx.state.ledger.defense_lost(side, d.id) {
                    ev.push(Event::DefenseKnockedOut {
                        side,
                        defense: d.id,
                        cause: DefenseLossCause::OccupantKnockedOut,
                    });
                }
            }
        }
    }
    Ok(ev)
}

/// DEF-06: the event of a field defence being knocked out (cleared, demolished, collapsed),
/// worth its full cost (every section bought) to the opponent.
pub fn knock_out_defense(
    ctx: &Ctx,
    side: usize,
    defense: DefenseId,
    cause: DefenseLossCause,
) -> Result<Vec<Event>, RuleError> {
    let Some(d) = ctx
        .scenario
        .sides
        .get(side)
        .and_then(|s| s.field_defenses.iter().find(|d| d.id == defense))
    else {
        return Err(RuleError::new(
            "DEF-06",
            format!("side {side} has no field defence {}", defense.0),
        ));
    };
    if ctx.state.ledger.defense_lost(side, defense) {
        return Err(RuleError::new(
            "DEF-06",
            format!(
                "{} {} has already been knocked out",
                d.kind.label(),
                defense.0
            ),
        ));
    }
    Ok(vec![Event::DefenseKnockedOut {
        side,
        defense,
        cause,
    }])
}

/// Referee actions record what happened on the table during play, not before it (SEQ-01).
fn check_in_play(ctx: &Ctx) -> Result<(), RuleError> {
    if ctx.state.turn.phase == Phase::Deployment {
        return Err(RuleError::new(
            "SEQ-01",
            "play has not begun: end deployment first",
        ));
    }
    Ok(())
}

/// GEN-12: the referee removes a piece the table knocked out (a rule the engine does not cover
/// yet, or physical play); it counts for the breakpoint and VPs like any knock-out.
pub fn resolve_remove_unit(
    ctx: &Ctx,
    piece: PieceId,
    cause: KnockOutCause,
) -> Result<Vec<Event>, ActionError> {
    check_in_play(ctx)?;
    let p = ctx.piece(piece)?;
    if p.pose.is_none() && !p.knocked_out {
        return Err(RuleError::new("SEQ-01", format!("{} is not on the table", p.name)).into());
    }
    Ok(knock_out(ctx, piece, cause)?)
}

/// DEF-06: the referee removes a field defence the table cleared or demolished.
pub fn resolve_remove_defense(
    ctx: &Ctx,
    side: usize,
    defense: DefenseId,
    cause: DefenseLossCause,
) -> Result<Vec<Event>, ActionError> {
    check_in_play(ctx)?;
    Ok(knock_out_defense(ctx, side, defense, cause)?)
}

/// END-03 (1), OBJ-01: the referee or the players declare how far a side has got towards its
/// scenario objectives (areas and text the engine cannot judge). The latest declaration stands;
/// a declared major objective ends the battle at the end of the game turn.
pub fn resolve_declare_objective(
    ctx: &Ctx,
    side: usize,
    level: ObjectiveLevel,
) -> Result<Vec<Event>, ActionError> {
    check_in_play(ctx)?;
    let Some(s) = ctx.state.sides.get(side) else {
        return Err(RuleError::new("END-03", format!("there is no side {}", side + 1)).into());
    };
    if s.broken || s.conceded {
        return Err(RuleError::new(
            "OBJ-01",
            format!(
                "{} has withdrawn or conceded and counts as having reached no objective",
                s.name
            ),
        )
        .into());
    }
    let current = ctx.state.ledger.side(side).map(|l| l.objective);
    if current == Some(level) {
        return Err(RuleError::new(
            "END-03",
            format!("{} already stands at {}", s.name, level.label()),
        )
        .into());
    }
    Ok(vec![Event::ObjectiveDeclared { side, level }])
}

// --- the verdict ---------------------------------------------------------------------------------

/// The OBJ-02 result ladder, worst to best.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    DecisiveDefeat,
    MinorDefeat,
    Draw,
    MinorVictory,
    DecisiveVictory,
    /// "and a nice shiny medal" (VP-03).
    DecisiveVictoryWithPromotion,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::DecisiveDefeat => "Decisive Defeat",
            Outcome::MinorDefeat => "Minor Defeat",
            Outcome::Draw => "Draw",
            Outcome::MinorVictory => "Minor Victory",
            Outcome::DecisiveVictory => "Decisive Victory",
            Outcome::DecisiveVictoryWithPromotion => "Decisive Victory with promotion",
        }
    }

    /// OBJ-02: the opponent's result mirrors this one.
    pub fn mirror(self) -> Outcome {
        match self {
            Outcome::DecisiveDefeat => Outcome::DecisiveVictory,
            Outcome::MinorDefeat => Outcome::MinorVictory,
            Outcome::Draw => Outcome::Draw,
            Outcome::MinorVictory => Outcome::MinorDefeat,
            Outcome::DecisiveVictory | Outcome::DecisiveVictoryWithPromotion => {
                Outcome::DecisiveDefeat
            }
        }
    }

    /// VP-03 ruling (c): one step up the OBJ-02 ladder (the top stays the top).
    pub fn improved(self) -> Outcome {
        match self {
            Outcome::DecisiveDefeat => Outcome::MinorDefeat,
            Outcome::MinorDefeat => Outcome::Draw,
            Outcome::Draw => Outcome::MinorVictory,
            Outcome::MinorVictory => Outcome::DecisiveVictory,
            Outcome::DecisiveVictory | Outcome::DecisiveVictoryWithPromotion => {
                Outcome::DecisiveVictoryWithPromotion
            }
        }
    }

    pub fn is_victory(self) -> bool {
        self > Outcome::Draw
    }
}

/// OBJ-01: the results of the two sides from the objectives each counts as reached (a side
/// that withdrew or conceded has already been counted as reaching none, ruling (b)). Every
/// pairing of none, minor and major is covered (ruling (c)).
pub fn objective_results(a: ObjectiveLevel, b: ObjectiveLevel) -> [Outcome; 2] {
    use ObjectiveLevel as L;
    let first = match (a, b) {
        (L::None, L::None) | (L::Minor, L::Minor) | (L::Major, L::Major) => Outcome::Draw,
        (L::Minor, L::None) | (L::Major, L::Minor) => Outcome::MinorVictory,
        (L::Major, L::None) => Outcome::DecisiveVictory,
        (L::None, L::Minor) | (L::Minor, L::Major) => Outcome::MinorDefeat,
        (L::None, L::Major) => Outcome::DecisiveDefeat,
    };
    [first, first.mirror()]
}

/// VP-04: the "random points modifier", a multiplier on the VPs a side earns (before the cap
/// and the upgrade), rounded to the nearest point. The book never defines how it is rolled, so
/// it is a parameter; anything but a finite number ≥ 0 is treated as 1 (no effect).
pub fn apply_points_modifier(vp: i64, modifier: f64) -> i64 {
    if !modifier.is_finite() || modifier < 0.0 {
        return vp;
    }
    (vp as f64 * modifier).round() as i64
}

/// VP-02: a side that withdrew through its breakpoint or conceded finishes with at most the
/// opponent's VPs. Returns the VPs and whether the cap bit.
pub fn cap_withdrawn(own: i64, opponent: i64, withdrew: bool) -> (i64, bool) {
    if withdrew && own > opponent {
        (opponent, true)
    } else {
        (own, false)
    }
}

/// VP-03 ruling (a), (e): the side that earned at least twice the opponent's VPs, if any
/// (0 against 0 upgrades nobody; at most one side can qualify).
pub fn double_vp_side(vp: [i64; 2]) -> Option<usize> {
    let [a, b] = vp;
    if a > 0 && a >= b.saturating_mul(2) {
        Some(0)
    } else if b > 0 && b >= a.saturating_mul(2) {
        Some(1)
    } else {
        None
    }
}

/// What the verdict needs to know about one side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SideInput {
    /// The objective declared reached.
    pub objective: ObjectiveLevel,
    /// Broke (BRK-02) or conceded.
    pub withdrew: bool,
    /// VP-01: the points of the opponent's knocked-out units, command units and defences.
    pub vp_earned: i64,
    /// VP-04 (1.0: none).
    pub points_modifier: f64,
}

/// One side's line of the verdict, every step shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideResult {
    /// The objective declared reached.
    pub declared: ObjectiveLevel,
    /// OBJ-01 ruling (b): what counts (none for a side that withdrew or conceded).
    pub objective: ObjectiveLevel,
    pub withdrew: bool,
    /// VP-01.
    pub vp_earned: i64,
    /// VP-04.
    pub points_modifier: f64,
    /// After VP-04, before VP-02.
    pub vp_modified: i64,
    /// The final VPs (VP-02 applied).
    pub vp: i64,
    /// VP-02 lowered the VPs.
    pub capped: bool,
    /// OBJ-01.
    pub objective_result: Outcome,
    /// VP-03: this side earned the upgrade.
    pub upgraded: bool,
    /// The final result on the OBJ-02 ladder.
    pub result: Outcome,
}

/// The battle's result: each side's line, the winner (none for a draw) and the category won.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BattleResult {
    pub sides: [SideResult; 2],
    pub winner: Option<usize>,
    /// The winner's result, or `draw`.
    pub category: Outcome,
}

/// OBJ-01, OBJ-02, VP-02, VP-03, VP-04: the verdict from what each side reached and earned.
/// Pure arithmetic, so the UI, the engine and the worked examples share it.
pub fn decide(input: [SideInput; 2]) -> BattleResult {
    let [a, b] = input;
    let counted = |s: &SideInput| {
        if s.withdrew {
            ObjectiveLevel::None
        } else {
            s.objective
        }
    };
    let base = objective_results(counted(&a), counted(&b));
    let modified = [
        apply_points_modifier(a.vp_earned, a.points_modifier),
        apply_points_modifier(b.vp_earned, b.points_modifier),
    ];
    let [ma, mb] = modified;
    let (va, ca) = cap_withdrawn(ma, mb, a.withdrew);
    let (vb, cb) = cap_withdrawn(mb, ma, b.withdrew);
    let up = double_vp_side([va, vb]);
    let [ra, rb] = base;
    let result = match up {
        Some(0) => {
            let r = ra.improved();
            [r, r.mirror()]
        }
        Some(_) => {
            let r = rb.improved();
            [r.mirror(), r]
        }
        None => base,
    };
    let [fa, fb] = result;
    let line =
        |s: &SideInput, vp_modified, vp, capped, objective_result, upgraded, result| SideResult {
            declared: s.objective,
            objective: counted(s),
            withdrew: s.withdrew,
            vp_earned: s.vp_earned,
            points_modifier: s.points_modifier,
            vp_modified,
            vp,
            capped,
            objective_result,
            upgraded,
            result,
        };
    let winner = if fa.is_victory() {
        Some(0)
    } else if fb.is_victory() {
        Some(1)
    } else {
        None
    };
    let category = match winner {
        Some(0) => fa,
        Some(_) => fb,
        None => Outcome::Draw,
    };
    BattleResult {
        sides: [
            line(&a, ma, va, ca, ra, up == Some(0), fa),
            line(&b, mb, vb, cb, rb, up == Some(1), fb),
        ],
        winner,
        category,
    }
}

/// Settings of the verdict that are not in the scenario yet.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VictoryParams {
    /// VP-04, per side; 1.0 = no effect (the default until a source defines the roll).
    pub points_modifier: [f64; 2],
}

impl Default for VictoryParams {
    fn default() -> Self {
        VictoryParams {
            points_modifier: [1.0, 1.0],
        }
    }
}

/// VP-01: the VPs a side earned — the points of everything its opponent lost.
pub fn vp_earned(ctx: &Ctx, side: usize) -> i64 {
    let opponent = 1 - side.min(1);
    ctx.state.ledger.side(opponent).map_or(0, |l| {
        l.losses
            .iter()
            .map(|loss| loss_points(ctx, opponent, loss))
            .sum()
    })
}

/// OBJ-01, OBJ-02, VP-01..VP-04: the battle's result from the state (objectives declared,
/// losses recorded, who broke or conceded) and the scenario's costs.
pub fn battle_result(ctx: &Ctx, params: &VictoryParams) -> BattleResult {
    let state = ctx.state;
    let input = |side: usize| {
        let withdrew = state
            .sides
            .get(side)
            .is_some_and(|s| s.broken || s.conceded);
        SideInput {
            objective: state
                .ledger
                .side(side)
                .map_or(ObjectiveLevel::None, |l| l.objective),
            withdrew,
            vp_earned: vp_earned(ctx, side),
            points_modifier: params.points_modifier.get(side).copied().unwrap_or(1.0),
        }
    };
    decide([input(0), input(1)])
}
