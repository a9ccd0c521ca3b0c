//! Orders (catalogue §2.5 INIT-01..INIT-06, INIT-16 and §2.6 CMD-01..CMD-30, with FIRE-06 and
//! opportunity fire FIRE-30..FIRE-33): who may act in the Initiative and Command phases, the
//! command roll and its modifiers, the command bonus and the blunder table, command movement,
//! command presence, command units sharing the fate of the unit they touch, overruns and
//! replacement commanders.
//!
//! The centre is one gate, [`authorize`], which `battle::resolve` calls before any unit action
//! is carried out: in the Initiative phase it allows one initiative action per eligible unit
//! (INIT-01..INIT-06, INIT-16); in the Command phase it requires an order with an action left of
//! the kind asked for (CMD-04, CMD-15). [`finish`] then records what the action used
//! ([`Event::UnitActed`]) and applies the consequences every action shares (CMD-22, CMD-26).
//! Actions are mapped to [`UnitActionKind`] by [`unit_action`]: one line per action.
//!
//! A battle runs under an [`OrdersMode`]: `full` (the rules, the default for new battles) or
//! `free` (the referee's mode for table games where command is rolled on the table, and for old
//! battle files): in free mode the gate lets every action through and `issue_order` is refused.
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * CMD-06 "in succession": when a command unit issues an order, the units it ordered before
//!   and leaves out of this order are closed for the turn; a new order ends the remaining
//!   actions of the order before it (SEQ-04: an order's actions are carried out before the next
//!   command roll). CMD-02: a command unit issuing an order ends the orders of the command unit
//!   that acted before it.
//! * The nearest visible enemy for initiative does not count enemy command units (CMD-24: no
//!   target), as the fire check already rules.
//! * A unit moves on initiative only by evading (INIT-05, the charge rules' action); a Move is
//!   refused with INIT-01.
//! * Declarations are checked when the action comes: a declared road move must earn the road
//!   bonus (CMD-11), an undeclared move into, through or out of dense terrain is refused
//!   (CMD-12), a declared fire or charge must go at the declared target (FIRE-06, CMD-13). The
//!   second action of a command bonus is free of its declaration (CMD-17).
//! * Opportunity fire at a mover (FIRE-31): the `opportunity_fire` action comes after the move
//!   with the point `at` of its path; the mover is put back there (facing as at the start of
//!   the move), fired at, and, unless suppressed, knocked out or fallen back, finishes its move.
//! * CMD-25: a command unit that escapes an overrun is placed with its front edge against the
//!   centre of the rear edge of the friendly unit it joins, facing as that unit.
//! * CMD-28: "at the start of its owner's next turn" is the owner's Initiative phase of that
//!   turn; a replacement not placed then is lost.
//!
//! # Not yet
//!
//! Multi-player communication modifiers; overruns met while
//! falling back (the fire code's forced moves) are not carried out (the charge rules' forced
//! moves use [`overrun_events`]).
//!
//! # Wired here from the other modules
//!
//! Charges, supports, evades, engineering tasks, dismounting, mounting and fire at a bridge are
//! other modules' actions, mapped here by [`unit_action`]: under full orders each passes the gate
//! (one initiative action, INIT-01, INIT-07, INIT-11, INIT-16, ENG-02; an order's action in the
//! Command phase, CMD-04, CMD-15, with the charge target declared, CMD-13, and supports taking a
//! Charge or Support order's action against its declared target, CHG-08 (a)). The inactive
//! side's responses, supports (CHG-08 (b)) and opportunity fire need no order; `close_response`,
//! `resolve_charge` and `consolidate` are not unit actions. [`finish`] runs on every action's
//! events, so the charge rules' suppressions, retreats (`Retreated`), knock-outs and
//! consolidations are shared by touching or joined command units (CMD-22, CMD-26, CHG-26), and
//! the charge rules take presence dice from `firing::presence_dice` (CMD-21).
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::action::{Action, Manoeuvre};
use super::battle::Ctx;
use super::casualty::{
    resolve_attack, score_to_hit, Attack, DiceGroup, SaveSituation, TargetProfile,
};
use super::dice::Dice;
use super::endphase::Staged;
use super::error::{ActionError, RuleError};
use super::event::{Event, KnockOutCause, Modifier};
use super::firing::{
    self, fall_back_events, ko_threshold_of, save_of, stays_put, target_cover, INITIATIVE_CM,
};
use super::geometry::{footprint_of, measure_scale, CONTACT_TOLERANCE_CM};
use super::movement::{self, forced_move, ForcedKind, ForcedOutcome};
use super::state::{BattleState, Formation, Phase, PieceId, PieceState, Pose};
use super::terrain::{feature_going, is_dense_for, mover_of, Going, Shape};
use super::visibility::{sight_index, SightIndex};
use crate::geom::footprint::{bearing_deg, heading};
use crate::geom::segment::{footprint_polyline_distance, rect_gap};
use crate::geom::{edge_distance, in_contact, Footprint, Point};
use crate::model::{CommandLevel, Geometry, HqId, TerrainKind};
use serde::{Deserialize, Serialize};

/// CMD-09, CMD-02: normal command distance.
pub const COMMAND_DISTANCE_CM: f64 = 20.0;
/// CMD-13 ruling: the zone of control in front of an enemy.
pub const CHARGE_ZONE_CM: f64 = 10.0;
/// CMD-07 ruling (c): the fixed value an isolated unit's self-order rolls against.
pub const SELF_ORDER_VALUE: u8 = 7;
/// CMD-07 ruling (a): no friendly unit this close.
pub const ISOLATION_CM: f64 = 20.0;
/// CMD-28 ruling: a replacement is placed at least this far from any enemy unit.
pub const REPLACEMENT_CLEARANCE_CM: f64 = 5.0;
/// How far (cm) an opportunity-fire point may lie off the mover's path.
pub const PATH_TOLERANCE_CM: f64 = 0.05;

// ---------------------------------------------------------------------------------------------
// Data.

/// How a battle treats orders: the rules, or free (command resolved on the table).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum OrdersMode {
    /// INIT and CMD in full: initiative eligibility, orders, opportunity fire (the default).
    #[default]
    Full,
    /// Any active unit may act in the Initiative and Command phases (the referee's mode; old
    /// battle files).
    Free,
}

impl OrdersMode {
    /// What an old battle file or log without the field means.
    pub fn legacy() -> OrdersMode {
        OrdersMode::Free
    }
}

/// The kinds of unit action orders and initiative deal in (CMD-15, INIT-01, INIT-11, INIT-16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitActionKind {
    Move,
    /// Formation change, limber, unlimber, mount, dismount (CMD-15, INIT-06).
    Deploy,
    Fire,
    Charge,
    /// Moving to support a charge (CMD-15, INIT-11).
    Support,
    /// INIT-05: initiative and counter-initiative only.
    Evade,
    /// INIT-16, ENG-02: initiative only.
    EngineerTask,
}

impl UnitActionKind {
    pub fn label(self) -> &'static str {
        match self {
            UnitActionKind::Move => "move",
            UnitActionKind::Deploy => "deploy",
            UnitActionKind::Fire => "fire",
            UnitActionKind::Charge => "charge",
            UnitActionKind::Support => "support",
            UnitActionKind::Evade => "evade",
            UnitActionKind::EngineerTask => "engineering task",
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One unit of an order and what it is to do (CMD-03, CMD-15), with what the modifiers read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderedUnit {
    pub piece: PieceId,
    pub action: UnitActionKind,
    /// The enemy unit a Fire (FIRE-06) or Charge (CMD-13) is aimed at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<PieceId>,
    /// CMD-11: the whole move is along a road (ignored for the distance modifier).
    #[serde(default, skip_serializing_if = "is_false")]
    pub road: bool,
    /// CMD-12: the move goes into, through or out of terrain dense for the unit.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dense: bool,
}

/// How a command roll came out (CMD-04, CMD-05, CMD-17, CMD-18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderOutcome {
    Success,
    /// Double one: two actions each (CMD-17).
    Bonus,
    Failure,
    /// Double six: fails, and the blunder table (CMD-18, CMD-19).
    Blunder,
}

impl OrderOutcome {
    pub fn issued(self) -> bool {
        matches!(self, OrderOutcome::Success | OrderOutcome::Bonus)
    }
}

/// The result of one command roll, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderRoll {
    /// Order number in the battle (FIRE-31, FIRE-25: "this order").
    pub order: u32,
    pub command: PieceId,
    /// The command unit is the CO (CMD-05: its failure ends every order this turn).
    pub co: bool,
    pub units: Vec<OrderedUnit>,
    /// The command value before modifiers (CMD-01).
    pub value: u8,
    /// The modified value: the highest total that succeeds.
    pub target: i32,
    pub total: u8,
    pub outcome: OrderOutcome,
}

/// A move as carried out, for opportunity fire along it (FIRE-31).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveTrace {
    pub from: Pose,
    #[serde(default)]
    pub path: Vec<Point>,
    pub to: Pose,
}

impl MoveTrace {
    fn points(&self) -> Vec<Point> {
        let mut v = vec![self.from.at];
        v.extend(self.path.iter().copied());
        v.push(self.to.at);
        v
    }

    /// Whether `p` lies on the path (within the tolerance).
    pub fn contains(&self, p: Point, tolerance: f64) -> bool {
        let pts = self.points();
        pts.windows(2).any(|w| match (w.first(), w.get(1)) {
            (Some(&a), Some(&b)) => point_segment_distance(p, a, b) <= tolerance,
            _ => false,
        })
    }
}

fn point_segment_distance(p: Point, a: Point, b: Point) -> f64 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let l2 = dx * dx + dy * dy;
    let t = if l2 <= 1e-12 {
        0.0
    } else {
        (((p.x - a.x) * dx + (p.y - a.y) * dy) / l2).clamp(0.0, 1.0)
    };
    let q = Point::new(a.x + t * dx, a.y + t * dy);
    p.distance(q).0
}

/// A unit action used (INIT-01, CMD-04).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitAct {
    pub piece: PieceId,
    pub kind: UnitActionKind,
    /// The order it acted under (`None` on initiative).
    #[serde(default)]
    pub order: Option<u32>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub initiative: bool,
    /// A limber or unlimber (MOVE-23: not both in one order).
    #[serde(default, skip_serializing_if = "is_false")]
    pub limber: bool,
    /// The move made, for opportunity fire (FIRE-31).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<MoveTrace>,
}

/// Per-piece order records (one field of [`PieceState`]). The per-turn ones are cleared when a
/// player turn begins (SEQ-05 (c)).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct UnitOrders {
    // --- as a unit, this player turn
    /// Successful orders received (CMD-08).
    pub received: u8,
    /// The command unit that ordered it (CMD-06).
    pub commander: Option<PieceId>,
    /// May not be ordered again this turn (CMD-06).
    pub closed: bool,
    /// An HQ tried and failed to order it: only the CO may, at −1 (CMD-29).
    pub hq_failed: bool,
    /// The order it is under and the actions left of it (CMD-04, CMD-17).
    pub order: Option<u32>,
    pub actions_left: u8,
    /// The declared action (`None` after a command bonus: any, CMD-17).
    pub allowed: Option<UnitActionKind>,
    pub target: Option<PieceId>,
    pub road: bool,
    pub dense: bool,
    /// Limbered or unlimbered under the current order (MOVE-23).
    pub limber_changed: bool,
    /// Used its initiative this turn (INIT-01, CMD-08).
    pub initiative_used: bool,
    /// The order under which it last moved or fired (FIRE-30, FIRE-31), and the move.
    pub acted_in_order: Option<u32>,
    pub last_kind: Option<UnitActionKind>,
    pub last_move: Option<MoveTrace>,
    // --- as a unit, across turns
    /// The player turn in which it declared opportunity fire (FIRE-32).
    pub opportunity_fired_in: Option<u32>,
    /// The player turn of its last self-order (CMD-07).
    pub self_ordered_in: Option<u32>,
    // --- as a command unit
    /// Failed a command roll this turn (CMD-05).
    pub failed: bool,
    /// Successful orders issued this turn (CMD-01 cap).
    pub issued: u8,
    /// Its orders are over this turn: another command unit acted after it (CMD-02).
    pub done: bool,
    /// Made its command move this phase (CMD-20).
    pub moved: bool,
    /// Came back as a replacement: value −1 for good (CMD-28).
    pub replaced: bool,
    /// The player turn it came back in (CMD-28: no orders, no move that turn).
    pub arrived_in: Option<u32>,
    /// The player turn in which its replacement may be placed (CMD-28).
    pub replacement_due: Option<u32>,
    /// The chance of a replacement has passed.
    pub replacement_lapsed: bool,
    /// Joined to this unit until its owner's next turn begins (CMD-25, CMD-26).
    pub joined_to: Option<PieceId>,
    // --- as a target
    /// The order whose fire placed its suppression marker (FIRE-25).
    pub suppressed_by_order: Option<u32>,
}

/// The order being carried out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurrentOrder {
    pub id: u32,
    pub command: PieceId,
    pub units: Vec<PieceId>,
}

/// Battle-wide order records (one field of [`BattleState`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommandState {
    pub mode: OrdersMode,
    /// The number the next order gets.
    pub next_order: u32,
    pub current: Option<CurrentOrder>,
    /// The command unit issuing orders now (CMD-02).
    pub acting: Option<PieceId>,
    /// The CO failed: no more orders this turn (CMD-05).
    pub all_ended: bool,
    /// Command units have begun to move: the orders of this phase are over (CMD-20).
    pub command_movement: bool,
}

// ---------------------------------------------------------------------------------------------
// Apply (called from `apply`).

/// SEQ-05 (a), (c), CMD-26, CMD-28: a player turn begins — clear the per-turn records, end
/// joins of the side now active, and open (or close) replacement chances.
pub fn on_turn_began(state: &mut BattleState) {
    let t = state.turn;
    state.command.current = None;
    state.command.acting = None;
    state.command.all_ended = false;
    state.command.command_movement = false;
    for p in state.pieces.values_mut() {
        let o = &mut p.orders;
        *o = UnitOrders {
            opportunity_fired_in: o.opportunity_fired_in,
            self_ordered_in: o.self_ordered_in,
            replaced: o.replaced,
            arrived_in: o.arrived_in,
            replacement_due: o.replacement_due,
            replacement_lapsed: o.replacement_lapsed,
            joined_to: o.joined_to,
            suppressed_by_order: o.suppressed_by_order,
            ..UnitOrders::default()
        };
        if p.id.side() != t.active {
            continue;
        }
        o.joined_to = None;
        if p.id.is_command() && p.knocked_out && !o.replaced && !o.replacement_lapsed {
            match o.replacement_due {
                None => o.replacement_due = Some(t.player_turn),
                Some(due) if due < t.player_turn => {
                    o.replacement_due = None;
                    o.replacement_lapsed = true;
                }
                Some(_) => {}
            }
        }
    }
}

/// The state changes of this module's events.
pub fn apply_command_event(state: &mut BattleState, event: &Event) {
    match event {
        Event::OrderRolled(r) => apply_order_roll(state, r),
        Event::UnitActed(a) => {
            if let Some(p) = state.pieces.get_mut(&a.piece) {
                let o = &mut p.orders;
                if a.initiative {
                    o.initiative_used = true;
                } else {
                    o.actions_left = o.actions_left.saturating_sub(1);
                    o.limber_changed |= a.limber;
                }
                if matches!(a.kind, UnitActionKind::Move | UnitActionKind::Fire) {
                    o.acted_in_order = a.order;
                }
                o.last_kind = Some(a.kind);
                if a.trace.is_some() {
                    o.last_move = a.trace.clone();
                }
            }
        }
        Event::OpportunityFireDeclared {
            firers,
            player_turn,
            ..
        } => {
            for f in firers {
                if let Some(p) = state.pieces.get_mut(f) {
                    p.orders.opportunity_fired_in = Some(*player_turn);
                }
            }
        }
        Event::MoveInterrupted { piece, at, .. } => set_pose(state, *piece, *at),
        Event::MoveResumed { piece, to, .. } | Event::CommandCarried { piece, to, .. } => {
            set_pose(state, *piece, *to)
        }
        Event::SelfOrdered {
            piece, player_turn, ..
        } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.orders.self_ordered_in = Some(*player_turn);
                p.orders.closed = true;
            }
        }
        Event::CommandMoved { piece } => {
            state.command.command_movement = true;
            state.command.current = None;
            if let Some(p) = state.pieces.get_mut(piece) {
                p.orders.moved = true;
            }
        }
        Event::CommandJoined {
            piece, unit, to, ..
        } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.pose = Some(*to);
                p.orders.joined_to = Some(*unit);
            }
        }
        Event::SuppressedByOrder { piece, order } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.orders.suppressed_by_order = Some(*order);
            }
        }
        Event::CommandReplaced {
            piece,
            at,
            player_turn,
        } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.knocked_out = false;
                p.pose = Some(*at);
                p.hits = 0;
                p.suppressed_at = None;
                p.orders.replaced = true;
                p.orders.arrived_in = Some(*player_turn);
                p.orders.replacement_due = None;
            }
        }
        _ => {}
    }
}

fn set_pose(state: &mut BattleState, piece: PieceId, pose: Pose) {
    if let Some(p) = state.pieces.get_mut(&piece) {
        p.pose = Some(pose);
    }
}

fn apply_order_roll(state: &mut BattleState, r: &OrderRoll) {
    let cs = &mut state.command;
    let previous = cs.acting.replace(r.command);
    cs.next_order = r.order + 1;
    cs.current = None;
    if let Some(prev) = previous.filter(|p| *p != r.command) {
        if let Some(p) = state.pieces.get_mut(&prev) {
            p.orders.done = true;
        }
        close_units_of(state, prev);
    }
    let in_order = |id: PieceId| r.units.iter().any(|u| u.piece == id);
    // The remaining actions of the order before lapse (SEQ-04).
    for p in state.pieces.values_mut() {
        p.orders.actions_left = 0;
    }
    if r.outcome.issued() {
        for p in state.pieces.values_mut() {
            if p.orders.commander == Some(r.command) && !in_order(p.id) {
                p.orders.closed = true;
            }
        }
        let bonus = r.outcome == OrderOutcome::Bonus;
        for u in &r.units {
            if let Some(p) = state.pieces.get_mut(&u.piece) {
                let o = &mut p.orders;
                o.received = o.received.saturating_add(1);
                o.commander = Some(r.command);
                o.order = Some(r.order);
                o.actions_left = if bonus { 2 } else { 1 };
                o.allowed = (!bonus).then_some(u.action);
                o.target = u.target;
                o.road = u.road;
                o.dense = u.dense;
                o.limber_changed = false;
            }
        }
        if let Some(p) = state.pieces.get_mut(&r.command) {
            p.orders.issued = p.orders.issued.saturating_add(1);
        }
        state.command.current = Some(CurrentOrder {
            id: r.order,
            command: r.command,
            units: r.units.iter().map(|u| u.piece).collect(),
        });
    } else {
        if let Some(p) = state.pieces.get_mut(&r.command) {
            p.orders.failed = true;
        }
        close_units_of(state, r.command);
        for u in &r.units {
            if let Some(p) = state.pieces.get_mut(&u.piece) {
                if p.orders.commander.is_none() {
                    if r.co {
                        p.orders.closed = true;
                    } else {
                        p.orders.hq_failed = true;
                    }
                }
            }
        }
        if r.co {
            state.command.all_ended = true;
        }
    }
}

fn close_units_of(state: &mut BattleState, command: PieceId) {
    for p in state.pieces.values_mut() {
        if p.orders.commander == Some(command) {
            p.orders.closed = true;
            p.orders.actions_left = 0;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Pure rules.

/// CMD-09 ruling: the distance modifier for the farthest unit `d_cm` away (rulebook cm):
/// 0 up to 20 cm, then −ceil((d − 20) / 20).
pub fn distance_modifier(d_cm: f64) -> i32 {
    if d_cm <= COMMAND_DISTANCE_CM + 1e-9 {
        return 0;
    }
    let steps = ((d_cm - COMMAND_DISTANCE_CM) / COMMAND_DISTANCE_CM - 1e-9).ceil();
    -(steps.clamp(0.0, 1000.0) as i32)
}

/// CMD-03, CMD-17, CMD-18: a 2D6 command roll against the modified value. Double one always
/// succeeds with the bonus; double six always fails as a blunder.
pub fn roll_outcome(dice: [u8; 2], target: i32) -> OrderOutcome {
    match dice {
        [1, 1] => OrderOutcome::Bonus,
        [6, 6] => OrderOutcome::Blunder,
        [a, b] if i32::from(a) + i32::from(b) <= target => OrderOutcome::Success,
        _ => OrderOutcome::Failure,
    }
}

/// CMD-19: the names of the blunder table's results (1–6).
pub fn blunder_name(result: u8) -> &'static str {
    match result {
        1 => "CEASE FIRING!",
        2 => "CROSS-FIRE!",
        3 => "RE-LOCATE!",
        4 => "PULL BACK!",
        5 => "OPEN FIRE!",
        _ => "LET'S GET 'EM!",
    }
}

/// CMD-08 ruling: the successive-order penalty of an order, from each unit's orders received
/// this turn and whether it used its initiative (the highest applies).
pub fn successive_penalty(histories: &[(u8, bool)]) -> i32 {
    histories
        .iter()
        .map(|(received, initiative)| i32::from(*received) + i32::from(*initiative))
        .max()
        .unwrap_or(0)
}

fn m(rule: &str, label: impl Into<String>, value: i32) -> Modifier {
    Modifier {
        rule: rule.to_string(),
        label: label.into(),
        value,
    }
}

fn refuse(rule: &'static str, message: impl Into<String>) -> ActionError {
    RuleError::new(rule, message).into()
}

// ---------------------------------------------------------------------------------------------
// Facts about command units.

/// The scenario's HQ record of a command piece.
fn scenario_hq<'a>(ctx: &Ctx<'a>, id: PieceId) -> Option<&'a crate::model::Hq> {
    let PieceId::Hq { side, hq } = id else {
        return None;
    };
    ctx.scenario.sides.get(side)?.hq(hq)
}

/// CMD-01, CMD-28: the command value, and whether it carries the replacement −1 (a commander
/// replaced in an earlier battle, or in this one). An FAO's is its Average Brigade HQ line's
/// (ART-10 ruling, `gunnery::fao_profile`).
pub fn command_value(ctx: &Ctx, id: PieceId) -> Option<(u8, bool)> {
    let h = scenario_hq(ctx, id)?;
    let replaced =
        h.commander.replaced_once || ctx.state.piece(id).is_some_and(|p| p.orders.replaced);
    let value = if h.fao {
        super::fao::fao_command_value(ctx, id).unwrap_or(h.commander.command_value)
    } else {
        h.commander.command_value
    };
    Some((value, replaced))
}

fn level_rank(level: CommandLevel) -> u8 {
    match level {
        CommandLevel::Army => 4,
        CommandLevel::Corps => 3,
        CommandLevel::Division => 2,
        _ => 1,
    }
}

/// CMD-27: the side's CO now — the head of the order of battle while it survives, otherwise
/// the surviving HQ of the highest level, then the highest command value, then the lowest id.
/// ART-10: an FAO is never the CO.
pub fn commanding_officer(ctx: &Ctx, side: usize) -> Option<PieceId> {
    let s = ctx.scenario.sides.get(side)?;
    let alive = |hq: HqId| {
        let id = PieceId::Hq { side, hq };
        ctx.state
            .piece(id)
            .is_some_and(|p| !p.knocked_out)
            .then_some(id)
    };
    if let Some(co) = s.co().and_then(|h| alive(h.id)) {
        return Some(co);
    }
    s.hqs
        .iter()
        .filter(|h| !h.fao)
        .filter_map(|h| alive(h.id).map(|id| (h, id)))
        .max_by(|(a, ai), (b, bi)| {
            level_rank(a.commander.level)
                .cmp(&level_rank(b.commander.level))
                .then(a.commander.command_value.cmp(&b.commander.command_value))
                .then(bi.cmp(ai))
        })
        .map(|(_, id)| id)
}

/// ARMY-08: the unit's chain of command, its own HQ first, up to the CO.
pub fn chain_of_command(ctx: &Ctx, unit: PieceId) -> Vec<PieceId> {
    let PieceId::Unit { side, unit: uid } = unit else {
        return Vec::new();
    };
    let Some(s) = ctx.scenario.sides.get(side) else {
        return Vec::new();
    };
    let mut chain = Vec::new();
    let mut cur = s.unit(uid).map(|u| u.hq);
    while let Some(h) = cur {
        let id = PieceId::Hq { side, hq: h };
        if chain.contains(&id) || chain.len() > s.hqs.len() {
            break;
        }
        chain.push(id);
        cur = s.hq(h).and_then(|x| x.parent);
    }
    chain
}

/// CMD-21 ruling (a): does command unit `hq`, touching `unit`, add its presence dice to the
/// unit's attack? Under an order this turn only the command unit that ordered it counts; in
/// attacks outside its orders (initiative, counter-initiative, opportunity fire, charge defence)
/// any command unit of its chain (`in_chain`). The charge rules call this too.
pub fn presence_counts(ctx: &Ctx, unit: PieceId, hq: PieceId, in_chain: bool) -> bool {
    let t = ctx.state.turn;
    let Some(p) = ctx.state.piece(unit) else {
        return false;
    };
    let under_order = t.phase == Phase::Command
        && unit.side() == t.active
        && p.orders.commander.is_some()
        && ctx.state.command.mode == OrdersMode::Full;
    if under_order {
        p.orders.commander == Some(hq)
    } else {
        in_chain
    }
}

// ---------------------------------------------------------------------------------------------
// Mapping actions.

/// The units an action makes act and the kind of action (one line per action; charges,
/// supports, evades and engineering tasks are mapped in here by their modules).
pub fn unit_action(action: &Action) -> Option<(Vec<PieceId>, UnitActionKind)> {
    match action {
        Action::Move { piece, .. } => Some((vec![*piece], UnitActionKind::Move)),
        Action::Deploy { piece, .. }
        | Action::Limber { piece }
        | Action::Unlimber { piece, .. } => Some((vec![*piece], UnitActionKind::Deploy)),
        Action::Fire { firers, .. } => Some((firers.clone(), UnitActionKind::Fire)),
        Action::Charge { chargers, .. } => Some((chargers.clone(), UnitActionKind::Charge)),
        // CHG-08 (b): the inactive side's supports pass the gate as inactive-side actions.
        Action::Support { piece, .. } => Some((vec![*piece], UnitActionKind::Support)),
        Action::Evade { piece, .. } => Some((vec![*piece], UnitActionKind::Evade)),
        Action::EngineerTask { piece, .. } => Some((vec![*piece], UnitActionKind::EngineerTask)),
        Action::Dismount { piece, .. } | Action::Mount { piece } => {
            Some((vec![*piece], UnitActionKind::Deploy))
        }
        Action::FireAtBridge { firers, .. } | Action::FireAtConstruction { firers, .. } => {
            Some((firers.clone(), UnitActionKind::Fire))
        }
        // MOVE-30 ruling: refusing a flank is a Deploy action.
        Action::RefuseFlank { piece, .. } => Some((vec![*piece], UnitActionKind::Deploy)),
        // OPT-PRONE-01 ruling: lying down and standing up are Deploy actions.
        Action::Prone { piece, .. } => Some((vec![*piece], UnitActionKind::Deploy)),
        // Responses (INIT-12) and opportunity fire (FIRE-31) are the inactive side's and need no
        // order; CloseResponse, ResolveCharge and Consolidate carry on a charge already
        // authorized (CHG-24: consolidation is part of the combat, not an action).
        _ => None,
    }
}

/// What the gate found: the events [`finish`] records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pending {
    acts: Vec<UnitAct>,
    command_move: Option<PieceId>,
}

fn nearest_enemy_unit(index: &SightIndex, piece: PieceId) -> Option<(PieceId, f64)> {
    index.nearest_visible_enemy_where(piece, |id| !id.is_command())
}

/// INIT-01..INIT-04, INIT-06, INIT-16, CMD-04, CMD-06, CMD-15, CMD-20, FIRE-06, MOVE-23: may
/// these units take this action now? Called by `battle::resolve` before any unit action.
/// Nothing changes on a refusal; the rule's id is in the error.
pub fn authorize(ctx: &Ctx, action: &Action) -> Result<Pending, ActionError> {
    let st = ctx.state;
    let t = st.turn;
    if st.command.mode == OrdersMode::Free {
        return Ok(Pending::default());
    }
    let Some((actors, kind)) = unit_action(action) else {
        return Ok(Pending::default());
    };
    if !matches!(t.phase, Phase::Initiative | Phase::Command) {
        return Ok(Pending::default());
    }
    let mut pending = Pending::default();
    let index = if t.phase == Phase::Initiative {
        Some(sight_index(ctx))
    } else {
        None
    };
    let limber = matches!(action, Action::Limber { .. } | Action::Unlimber { .. });
    for id in actors {
        let Some(p) = st.piece(id) else {
            continue;
        };
        if id.side() != t.active || !p.on_table() {
            continue; // the action's own check refuses it
        }
        if id.is_command() {
            match (t.phase, kind) {
                (Phase::Initiative, _) => {
                    return Err(refuse(
                        "INIT-03",
                        format!(
                            "{} is a command unit; command units take no initiative action",
                            p.name
                        ),
                    ))
                }
                (Phase::Command, UnitActionKind::Move) => {
                    check_command_move(ctx, p)?;
                    pending.command_move = Some(id);
                }
                _ => {}
            }
            continue;
        }
        if t.phase == Phase::Initiative {
            initiative_check(ctx, index.as_deref(), p, kind)?;
            pending.acts.push(UnitAct {
                piece: id,
                kind,
                order: None,
                initiative: true,
                limber,
                trace: None,
            });
            continue;
        }
        // The Command phase.
        if st.command.command_movement {
            return Err(refuse(
                "CMD-20",
                format!(
                    "the command units have begun to move: the orders of this Command phase are over, so {} may not act",
                    p.name
                ),
            ));
        }
        // OPT-SCOUT-02 (b): a launched scout moves without an order.
        if let Some(act) = super::scouting::command_phase_act(ctx, p, kind)? {
            pending.acts.push(act);
            continue;
        }
        let o = &p.orders;
        let current = st.command.current.as_ref();
        let under = current.is_some_and(|c| o.order == Some(c.id) && c.units.contains(&id));
        if !under || o.actions_left == 0 {
            let why = if p.orders.closed {
                "its orders are over this turn (CMD-06)"
            } else if under {
                "it has carried out the action of its order"
            } else {
                "it has no order; issue one first"
            };
            return Err(refuse(
                "CMD-04",
                format!(
                    "{} may act in the Command phase only under an order: {why}",
                    p.name
                ),
            ));
        }
        if let Some(allowed) = o.allowed {
            // CHG-08 (a): a unit ordered to charge may take its action to support instead.
            let support_of_charge = kind == UnitActionKind::Support
                && matches!(allowed, UnitActionKind::Charge | UnitActionKind::Support);
            if allowed != kind && !support_of_charge {
                return Err(refuse(
                    "CMD-15",
                    format!(
                        "{} was ordered to {}, not to {}",
                        p.name,
                        allowed.label(),
                        kind.label()
                    ),
                ));
            }
            check_declaration(ctx, p, action)?;
        }
        super::fao::check_fao_act(ctx, p, action)?; // ART-10: a grand battery only fires
        if limber && o.limber_changed {
            return Err(refuse(
                "MOVE-23",
                format!("{} may not both limber and unlimber in one order", p.name),
            ));
        }
        pending.acts.push(UnitAct {
            piece: id,
            kind,
            order: o.order,
            initiative: false,
            limber,
            trace: None,
        });
    }
    Ok(pending)
}

/// INIT-01, INIT-03, INIT-05, INIT-06, INIT-07, INIT-16, FIRE-32: may this unit take an
/// initiative action of this kind now (its nearest visible enemy unit within 20 cm, except for
/// an engineering task)? The charge and engineering modules call this for their actions; the
/// target rules of each action (INIT-04, INIT-07) stay with the action's own check.
pub fn check_initiative(ctx: &Ctx, id: PieceId, kind: UnitActionKind) -> Result<(), RuleError> {
    let p = ctx.piece(id)?;
    let index = sight_index(ctx);
    initiative_check(ctx, Some(&index), p, kind)
}

fn initiative_check(
    ctx: &Ctx,
    index: Option<&SightIndex>,
    p: &PieceState,
    kind: UnitActionKind,
) -> Result<(), RuleError> {
    let t = ctx.state.turn;
    if p.orders.initiative_used {
        return Err(RuleError::new(
            "INIT-01",
            format!(
                "{} has already used its initiative this turn (one action)",
                p.name
            ),
        ));
    }
    if p.suppressed_at.is_some() {
        return Err(RuleError::new(
            "INIT-03",
            format!("{} is suppressed and may not use initiative", p.name),
        ));
    }
    if p.orders
        .opportunity_fired_in
        .is_some_and(|pt| pt + 1 == t.player_turn)
    {
        return Err(RuleError::new(
            "INIT-03",
            format!(
                "{} made opportunity fire in the opponent's last turn and may not use initiative (FIRE-32)",
                p.name
            ),
        ));
    }
    if let Some(fp) = footprint_of(ctx, p) {
        let tol = CONTACT_TOLERANCE_CM * measure_scale(ctx);
        let engaged = ctx.state.pieces.values().find(|q| {
            q.id.side() != p.id.side()
                && !q.id.is_command()
                && q.on_table()
                && footprint_of(ctx, q).is_some_and(|f| in_contact(&fp, &f, tol))
        });
        if let Some(e) = engaged {
            return Err(RuleError::new(
                "INIT-03",
                format!(
                    "{} is in base contact with {} and takes no other initiative action",
                    p.name, e.name
                ),
            ));
        }
    }
    if kind == UnitActionKind::EngineerTask {
        return Ok(()); // INIT-16: no nearby enemy needed
    }
    if kind == UnitActionKind::Move {
        return Err(RuleError::new(
            "INIT-01",
            format!(
                "{} may not move on initiative: it may fire, deploy, evade or charge; moves need an order",
                p.name
            ),
        ));
    }
    let near = index.and_then(|i| nearest_enemy_unit(i, p.id));
    let reach = INITIATIVE_CM * measure_scale(ctx);
    match near {
        Some((_, d)) if d <= reach + 1e-9 => Ok(()),
        Some((e, d)) => Err(RuleError::new(
            "INIT-01",
            format!(
                "{}'s nearest visible enemy ({}) is {:.1} cm away, beyond the 20 cm of initiative",
                p.name,
                ctx.state.piece(e).map_or(String::new(), |q| q.name.clone()),
                d
            ),
        )),
        None => Err(RuleError::new(
            "INIT-01",
            format!("{} sees no enemy unit: no initiative action", p.name),
        )),
    }
}

/// CMD-11, CMD-12, CMD-13, FIRE-06: the action keeps to what the order declared.
fn check_declaration(ctx: &Ctx, p: &PieceState, action: &Action) -> Result<(), ActionError> {
    let o = &p.orders;
    match action {
        Action::Fire { target, .. } => {
            if let Some(declared) = o.target.filter(|d| d != target) {
                return Err(refuse(
                    "FIRE-06",
                    format!(
                        "{} was ordered to fire at {}; the targets of an order are declared before its dice",
                        p.name, declared
                    ),
                ));
            }
        }
        Action::Charge { target, .. } => {
            if let Some(declared) = o.target.filter(|d| d != target) {
                return Err(refuse(
                    "CMD-13",
                    format!(
                        "{} was ordered to charge {}; a charge under orders goes at its declared target (FIRE-06)",
                        p.name, declared
                    ),
                ));
            }
        }
        Action::Support { friend, .. } => {
            // CHG-08 (a): a unit ordered to charge X supports only a combat against X.
            let combat = ctx
                .state
                .charges
                .combats
                .iter()
                .find(|c| c.target == *friend || c.contacts.iter().any(|k| k.piece == *friend));
            if let (Some(declared), Some(c)) = (o.target, combat) {
                let enemy = if c.target == *friend {
                    c.contacts.iter().map(|k| k.piece).find(|k| *k == declared)
                } else {
                    Some(c.target).filter(|t| *t == declared)
                };
                if enemy.is_none() {
                    return Err(refuse(
                        "CHG-08",
                        format!(
                            "{} was ordered against {}; it may support only a combat with that unit",
                            p.name, declared
                        ),
                    ));
                }
            }
        }
        Action::Move {
            piece,
            via,
            to,
            manoeuvre,
        } => {
            let plan = movement::check_move(ctx, *piece, via, *to, *manoeuvre)?;
            if o.road && !plan.road_bonus {
                return Err(refuse(
                    "CMD-11",
                    format!(
                        "{}'s order was a road move (no distance penalty): the whole move must be along the road",
                        p.name
                    ),
                ));
            }
            let mut pts = vec![plan.from.at];
            pts.extend(plan.path.iter().copied());
            pts.push(plan.to.at);
            if !o.dense && meets_dense(ctx, p, &pts) {
                return Err(refuse(
                    "CMD-12",
                    format!(
                        "{}'s move goes into, through or out of dense terrain, which its order did not declare (−1)",
                        p.name
                    ),
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// CMD-12: does the path of the reference point go into, through or out of terrain dense for
/// the unit (TERR-08), or across a line of it (a ford for towed guns, TERR-07)?
pub fn meets_dense(ctx: &Ctx, p: &PieceState, path: &[Point]) -> bool {
    let troops = mover_of(ctx, p).kind;
    let dense: Vec<_> = ctx
        .scenario
        .terrain
        .iter()
        .filter(|f| is_dense_for(f.kind, f.dense, troops))
        .cloned()
        .collect();
    if dense.is_empty() {
        return false;
    }
    if !super::terrain::path_crossings(&dense, path).is_empty() {
        return true;
    }
    path.iter().any(|q| {
        dense
            .iter()
            .any(|f| Shape::of(&f.geometry).covers_point(*q))
    })
}

/// CMD-20, CMD-28: may this command unit make its command move now?
fn check_command_move(ctx: &Ctx, p: &PieceState) -> Result<(), ActionError> {
    let t = ctx.state.turn;
    if p.orders.moved {
        return Err(refuse(
            "CMD-20",
            format!("{} has made its command move this phase", p.name),
        ));
    }
    if p.orders.arrived_in == Some(t.player_turn) {
        return Err(refuse(
            "CMD-28",
            format!(
                "{} came back as a replacement this turn and may not move",
                p.name
            ),
        ));
    }
    if let Some(u) = p.orders.joined_to {
        return Err(refuse(
            "CMD-20",
            format!(
                "{} has joined {} and moves only with it until its next turn (CMD-26)",
                p.name, u
            ),
        ));
    }
    Ok(())
}

/// Records what the gate allowed and the consequences every action shares: a command unit
/// touching or joined to a unit shares its suppression, fall-back and knock-out (CMD-22,
/// CMD-26), and a joined command unit moves with its unit (CMD-20 ruling).
pub fn finish(ctx: &Ctx, pending: Pending, events: Vec<Event>) -> Result<Vec<Event>, ActionError> {
    let mut out = Vec::new();
    // FIRE-25: fire under an order marks the suppressions it places with the order.
    let fire_order = pending
        .acts
        .iter()
        .find(|a| a.kind == UnitActionKind::Fire && !a.initiative)
        .and_then(|a| a.order);
    if let Some(hq) = pending.command_move {
        out.push(Event::CommandMoved { piece: hq });
    }
    for mut act in pending.acts {
        act.trace = events.iter().find_map(|e| match e {
            Event::Moved {
                piece,
                from,
                to,
                path,
                ..
            } if *piece == act.piece => Some(MoveTrace {
                from: *from,
                path: path.clone(),
                to: *to,
            }),
            _ => None,
        });
        out.push(Event::UnitActed(act));
    }
    for e in share_fate(ctx, events) {
        let mark = match (&e, fire_order) {
            (Event::Suppressed { piece, .. }, Some(order))
                if piece.side() != ctx.state.turn.active =>
            {
                Some(Event::SuppressedByOrder {
                    piece: *piece,
                    order,
                })
            }
            _ => None,
        };
        out.push(e);
        out.extend(mark);
    }
    Ok(out)
}

/// FIRE-25 ruling: the unit's suppression marker was placed by the order being carried out now
/// (initiative, counter-initiative, opportunity fire and blunder attacks are orders of their own
/// and never match).
pub fn suppressed_by_current_order(state: &BattleState, p: &PieceState) -> bool {
    let current = state
        .command
        .current
        .as_ref()
        .filter(|_| state.turn.phase == Phase::Command && state.command.mode == OrdersMode::Full)
        .map(|c| c.id);
    p.suppressed_at.is_some() && current.is_some() && p.orders.suppressed_by_order == current
}

/// The friendly command units touching or joined to `unit` now.
fn attached_commands(ctx: &Ctx, unit: PieceId) -> Vec<(PieceId, bool)> {
    let Some(up) = ctx.state.piece(unit) else {
        return Vec::new();
    };
    let Some(ufp) = footprint_of(ctx, up) else {
        return Vec::new();
    };
    let tol = CONTACT_TOLERANCE_CM * measure_scale(ctx);
    // Command units sort after every unit, by side: their side's are one run of the map.
    let side = unit.side();
    ctx.state
        .pieces
        .range(PieceId::Hq { side, hq: HqId(0) }..)
        .map(|(_, q)| q)
        .take_while(|q| q.id.is_command() && q.id.side() == side)
        .filter(|q| q.on_table())
        .filter_map(|q| {
            let joined = q.orders.joined_to == Some(unit);
            let touching = footprint_of(ctx, q).is_some_and(|f| in_contact(&f, &ufp, tol));
            (joined || touching).then_some((q.id, joined))
        })
        .collect()
}

/// Carries a pose along the move `from` → `to` of the unit it is attached to (a rigid motion:
/// the unit's turn about its reference point, then its shift).
fn carried(pose: Pose, from: Pose, to: Pose) -> Pose {
    let turn = (to.facing_deg - from.facing_deg).to_radians();
    let (dx, dy) = (pose.at.x - from.at.x, pose.at.y - from.at.y);
    // Facing is clockwise from +y, so a clockwise turn by θ maps (x, y) to
    // (x cos θ + y sin θ, −x sin θ + y cos θ).
    let (s, c) = turn.sin_cos();
    Pose {
        at: Point::new(to.at.x + dx * c + dy * s, to.at.y - dx * s + dy * c),
        facing_deg: (pose.facing_deg + to.facing_deg - from.facing_deg).rem_euclid(360.0),
    }
}

/// CMD-22, CMD-26, CHG-26: the events with each touching or joined command unit's share added
/// after the event it shares — suppression and knock-out for both; a fall-back or a charge
/// retreat carries a touching or joined one; any other move (a charge, a support, a
/// consolidation, an evade) carries only a joined one.
fn share_fate(ctx: &Ctx, events: Vec<Event>) -> Vec<Event> {
    let mut out = Vec::with_capacity(events.len());
    // What the events already say of command units: the pass is idempotent, and a command unit
    // carried twice in one action starts its second carry where the first ended.
    let mut knocked: Vec<PieceId> = Vec::new();
    let mut suppressed: Vec<PieceId> = Vec::new();
    let mut carried_with: Vec<(PieceId, PieceId)> = Vec::new();
    for e in &events {
        match e {
            Event::Suppressed { piece, .. } if piece.is_command() => suppressed.push(*piece),
            Event::UnitKnockedOut { piece, .. } if piece.is_command() => knocked.push(*piece),
            Event::CommandCarried { piece, unit, .. } => carried_with.push((*piece, *unit)),
            _ => {}
        }
    }
    let mut poses: std::collections::BTreeMap<PieceId, Pose> = std::collections::BTreeMap::new();
    let pt = ctx.state.turn.player_turn;
    for e in events {
        let mut extra: Vec<Event> = Vec::new();
        match &e {
            Event::Suppressed { piece, .. } if !piece.is_command() => {
                for (hq, _) in attached_commands(ctx, *piece) {
                    let free = ctx
                        .state
                        .piece(hq)
                        .is_some_and(|q| q.suppressed_at.is_none());
                    if free && !suppressed.contains(&hq) {
                        suppressed.push(hq);
                        extra.push(Event::Suppressed {
                            piece: hq,
                            player_turn: pt,
                        });
                    }
                }
            }
            Event::UnitKnockedOut { piece, cause }
                if !piece.is_command() && *cause != KnockOutCause::Referee =>
            {
                for (hq, _) in attached_commands(ctx, *piece) {
                    if !knocked.contains(&hq) {
                        knocked.push(hq);
                        extra.push(Event::UnitKnockedOut {
                            piece: hq,
                            cause: cause.clone(),
                        });
                    }
                }
            }
            Event::FellBack {
                piece, from, to, ..
            }
            | Event::Retreated {
                piece, from, to, ..
            }
            | Event::Moved {
                piece, from, to, ..
            }
            | Event::Consolidated {
                piece, from, to, ..
            } if !piece.is_command() => {
                // CMD-22, CHG-26: a touching command unit shares a fall-back or a retreat.
                let forced = matches!(e, Event::FellBack { .. } | Event::Retreated { .. });
                for (hq, joined) in attached_commands(ctx, *piece) {
                    // CMD-22: touching, it shares a fall-back; CMD-26: joined, every move.
                    if !(joined || forced) || carried_with.contains(&(hq, *piece)) {
                        continue;
                    }
                    let Some(pose) = poses
                        .get(&hq)
                        .copied()
                        .or_else(|| ctx.state.piece(hq).and_then(|q| q.pose))
                    else {
                        continue;
                    };
                    let to = carried(pose, *from, *to);
                    poses.insert(hq, to);
                    extra.push(Event::CommandCarried {
                        piece: hq,
                        unit: *piece,
                        from: pose,
                        to,
                    });
                }
            }
            Event::UnitKnockedOut { piece, .. } if piece.is_command() => knocked.push(*piece),
            _ => {}
        }
        out.push(e);
        out.extend(extra);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The command roll.

/// CMD-01, CMD-03: the modified command value of an order as declared now — the highest 2D6
/// total that succeeds (a double one and a double six aside, CMD-17, CMD-18).
pub fn order_target(
    ctx: &Ctx,
    command: PieceId,
    units: &[OrderedUnit],
) -> Result<i32, ActionError> {
    order_value(ctx, command, units).map(|(_, _, target)| target)
}

/// CMD-03: an order's modifiers as declared now, the command value and that value with the
/// modifiers applied.
fn order_value(
    ctx: &Ctx,
    command: PieceId,
    units: &[OrderedUnit],
) -> Result<(Vec<Modifier>, u8, i32), ActionError> {
    let mods = order_modifiers(ctx, command, units)?;
    let (value, _) = command_value(ctx, command).unwrap_or((0, false));
    let target = i32::from(value) + mods.iter().map(|m| m.value).sum::<i32>();
    Ok((mods, value, target))
}

/// CMD-03, CMD-08..CMD-14, MOVE-13, CMD-28, CMD-29, FIRE-32, OPT-WEATHER-03, OPT-NIGHT-01: the
/// modifiers of an order as declared now.
pub fn order_modifiers(
    ctx: &Ctx,
    command: PieceId,
    units: &[OrderedUnit],
) -> Result<Vec<Modifier>, ActionError> {
    let st = ctx.state;
    let t = st.turn;
    let ms = measure_scale(ctx);
    let cp = ctx.piece(command)?;
    let Some(cfp) = footprint_of(ctx, cp) else {
        return Err(refuse("SEQ-01", format!("{} is not on the table", cp.name)));
    };
    let mut mods = Vec::new();
    let pieces: Vec<&PieceState> = units.iter().filter_map(|u| st.piece(u.piece)).collect();
    let histories: Vec<(u8, bool)> = pieces
        .iter()
        .map(|p| (p.orders.received, p.orders.initiative_used))
        .collect();
    let succ = successive_penalty(&histories);
    if succ > 0 {
        let initiative = pieces.iter().any(|p| p.orders.initiative_used);
        let label = if initiative {
            format!("successive orders (incl. −1 after initiative): −{succ}")
        } else {
            format!("successive orders: order {} to these units", succ + 1)
        };
        mods.push(m("CMD-08", label, -succ));
    }
    // CMD-09..CMD-11: distance to the farthest unit not on a road move.
    let mut farthest: Option<f64> = None;
    for (u, p) in units.iter().zip(&pieces) {
        if u.road {
            continue;
        }
        if let Some(fp) = footprint_of(ctx, p) {
            let d = edge_distance(&cfp, &fp) / ms;
            farthest = Some(farthest.map_or(d, |f: f64| f.max(d)));
        }
    }
    if let Some(d) = farthest {
        let v = distance_modifier(d);
        if v != 0 {
            mods.push(m("CMD-09", format!("farthest unit {d:.1} cm away"), v));
        }
    }
    if units.iter().any(|u| u.dense) {
        mods.push(m(
            "CMD-12",
            "a move into, through or out of dense terrain",
            -1,
        ));
    }
    let index = sight_index(ctx);
    let charge_near = units.iter().zip(&pieces).any(|(u, p)| {
        u.action == UnitActionKind::Charge
            && u.target.is_some_and(|target| {
                let s = index.sight(p.id, target);
                s.visible && s.distance_cm <= CHARGE_ZONE_CM * ms + 1e-9
            })
    });
    if charge_near {
        mods.push(m("CMD-13", "charging a visible enemy within 10 cm", -1));
    }
    let tol = CONTACT_TOLERANCE_CM * ms;
    let all_column = !pieces.is_empty()
        && pieces
            .iter()
            .all(|p| p.formation == Some(Formation::MarchColumn));
    let touching = pieces
        .iter()
        .any(|p| footprint_of(ctx, p).is_some_and(|f| in_contact(&cfp, &f, tol)));
    if all_column && touching {
        mods.push(m("MOVE-13", "touching the march-column units it orders", 1));
    }
    let is_co = commanding_officer(ctx, command.side()) == Some(command);
    if is_co && pieces.iter().any(|p| p.orders.hq_failed) {
        mods.push(m(
            "CMD-29",
            "the CO picks up units an HQ failed to order",
            -1,
        ));
    }
    if pieces.iter().any(|p| {
        p.orders
            .opportunity_fired_in
            .is_some_and(|pt| pt + 1 == t.player_turn)
    }) {
        mods.push(m(
            "FIRE-32",
            "a unit made opportunity fire in the opponent's last turn",
            -1,
        ));
    }
    if command_value(ctx, command).is_some_and(|(_, replaced)| replaced) {
        mods.push(m("CMD-28", "a replaced commander", -1));
    }
    // OPT-WEATHER-03, OPT-NIGHT-01: the weather of the moment (battle state, `weather`).
    mods.extend(super::weather::command_modifier(ctx));
    Ok(mods)
}

/// CMD-01..CMD-06, CMD-15, CMD-29, FIRE-06, FIRE-23, GEN-08: may this order be declared?
pub fn check_issue_order(
    ctx: &Ctx,
    command: PieceId,
    units: &[OrderedUnit],
) -> Result<(), ActionError> {
    let cp = check_issuer(ctx, command)?;
    let is_co = commanding_officer(ctx, command.side()) == Some(command);
    check_ordered_units(ctx, command, cp, is_co, units)
}

/// The part of [`check_issue_order`] about the command unit alone (whatever it orders): the
/// phase, CMD-02, CMD-05, CMD-28, FIRE-23 and its command value (CMD-01). The command unit.
pub(crate) fn check_issuer<'a>(
    ctx: &Ctx<'a>,
    command: PieceId,
) -> Result<&'a PieceState, ActionError> {
    let st = ctx.state;
    let t = st.turn;
    if st.command.mode == OrdersMode::Free {
        return Err(refuse(
            "CMD-03",
            "this battle's orders are free (rolled on the table): units act without engine orders",
        ));
    }
    if t.phase != Phase::Command {
        return Err(refuse(
            "CMD-03",
            format!(
                "orders are issued in the Command phase, not the {} phase",
                t.phase.label()
            ),
        ));
    }
    let cp = ctx.piece(command)?;
    if !command.is_command() {
        return Err(refuse(
            "CMD-03",
            format!("{} is not a command unit", cp.name),
        ));
    }
    super::battle::check_may_act(ctx, cp)?;
    if st.command.command_movement {
        return Err(refuse(
            "CMD-20",
            "the command units have begun to move: no more orders this phase",
        ));
    }
    if st.command.all_ended {
        return Err(refuse(
            "CMD-05",
            "the CO failed a command roll: no command unit may issue more orders this turn",
        ));
    }
    if cp.orders.failed {
        return Err(refuse(
            "CMD-05",
            format!(
                "{} failed a command roll and may issue no more orders this turn",
                cp.name
            ),
        ));
    }
    if cp.orders.done {
        return Err(refuse(
            "CMD-02",
            format!(
                "{} has finished issuing orders: another command unit has acted since",
                cp.name
            ),
        ));
    }
    if cp.orders.arrived_in == Some(t.player_turn) {
        return Err(refuse(
            "CMD-28",
            format!(
                "{} came back as a replacement this turn and may not issue orders",
                cp.name
            ),
        ));
    }
    if cp.suppressed_at.is_some() {
        return Err(refuse(
            "FIRE-23",
            format!(
                "{} is suppressed and can do nothing in its own turn",
                cp.name
            ),
        ));
    }
    let (value, replaced) = command_value(ctx, command).unwrap_or((0, false));
    let cap = value.saturating_sub(u8::from(replaced));
    if cp.orders.issued >= cap {
        return Err(refuse(
            "CMD-01",
            format!(
                "{} has issued its {cap} orders this turn (its command value)",
                cp.name
            ),
        ));
    }
    Ok(cp)
}

/// The part of [`check_issue_order`] about the units ordered, once [`check_issuer`] passed.
fn check_ordered_units(
    ctx: &Ctx,
    command: PieceId,
    cp: &PieceState,
    is_co: bool,
    units: &[OrderedUnit],
) -> Result<(), ActionError> {
    if units.is_empty() {
        return Err(refuse("GEN-08", "an order names at least one unit"));
    }
    super::fao::check_fao_order(ctx, command, units)?;
    for (k, u) in units.iter().enumerate() {
        if units.iter().skip(k + 1).any(|v| v.piece == u.piece) {
            return Err(refuse(
                "GEN-08",
                format!("{} is named twice in one order", u.piece),
            ));
        }
        check_ordered_unit(ctx, command, cp, is_co, u, ctx.piece(u.piece)?)?;
    }
    Ok(())
}

/// The part of [`check_ordered_units`] about one unit `u` (whose piece is `p`).
pub(super) fn check_ordered_unit(
    ctx: &Ctx,
    command: PieceId,
    cp: &PieceState,
    is_co: bool,
    u: &OrderedUnit,
    p: &PieceState,
) -> Result<(), ActionError> {
    if u.piece.is_command() {
        return Err(refuse(
            "CMD-23",
            format!("{} is a command unit and is not ordered", p.name),
        ));
    }
    if u.piece.side() != command.side() {
        return Err(refuse(
            "CMD-03",
            format!("{} is not {}'s unit", p.name, cp.name),
        ));
    }
    super::battle::check_may_act(ctx, p)?;
    if p.suppressed_at.is_some() {
        return Err(refuse(
            "FIRE-23",
            format!(
                "{} is suppressed and can do nothing in its own turn",
                p.name
            ),
        ));
    }
    let o = &p.orders;
    if o.closed {
        return Err(refuse(
            "CMD-06",
            format!("{} may not be ordered again this turn", p.name),
        ));
    }
    if let Some(other) = o.commander.filter(|c| *c != command) {
        return Err(refuse(
            "CMD-06",
            format!(
                "{} has been ordered by {} this turn: one commander per unit",
                p.name, other
            ),
        ));
    }
    if o.hq_failed && !is_co {
        return Err(refuse(
            "CMD-29",
            format!(
                "an HQ failed to order {}: only the CO may pick it up this turn",
                p.name
            ),
        ));
    }
    // OPT-FIXED-02, OPT-NATION-01, OPT-NATION-03 (optional rules; nothing when off).
    super::allegiance::check_may_order(ctx, command, p)?;
    match u.action {
        UnitActionKind::Evade | UnitActionKind::EngineerTask => {
            return Err(refuse(
                "CMD-15",
                format!(
                    "{} is not an ordered action (move, deploy, fire, charge or support)",
                    u.action.label()
                ),
            ))
        }
        UnitActionKind::Fire | UnitActionKind::Charge => {
            let Some(target) = u.target else {
                return Err(refuse(
                    "FIRE-06",
                    format!(
                        "declare {}'s target with the order: all targets of an order are declared before its dice",
                        p.name
                    ),
                ));
            };
            let tp = ctx.piece(target)?;
            if target.side() == command.side() {
                return Err(refuse(
                    "FIRE-01",
                    format!("{} is not an enemy unit", tp.name),
                ));
            }
            if target.is_command() {
                return Err(refuse(
                    "CMD-24",
                    format!(
                        "{} is a command unit and may not be chosen as a target",
                        tp.name
                    ),
                ));
            }
        }
        _ => {}
    }
    if (u.road || u.dense) && u.action != UnitActionKind::Move {
        return Err(refuse(
            if u.road { "CMD-11" } else { "CMD-12" },
            format!(
                "{}: road and dense-terrain declarations belong to moves",
                p.name
            ),
        ));
    }
    Ok(())
}

/// For a UI or an AI: the units `command` may order now (CMD-02..CMD-06, CMD-29, FIRE-23),
/// before any dice. Empty when the command unit may issue no order at all.
pub fn orderable_units(ctx: &Ctx, command: PieceId) -> Vec<PieceId> {
    // What the command unit alone decides is the same for every unit: checked once.
    let Ok(cp) = check_issuer(ctx, command) else {
        return Vec::new();
    };
    let is_co = commanding_officer(ctx, command.side()) == Some(command);
    // ART-10: an FAO orders only a grand battery's fire, never a unit to deploy: the check
    // below would refuse every unit.
    if super::fao::is_fao(ctx, command) {
        return Vec::new();
    }
    // The side's troop units are one run of ids (units before command units, by side).
    let side = command.side();
    let first = PieceId::Unit {
        side,
        unit: crate::model::UnitId(0),
    };
    ctx.state
        .pieces
        .range(first..)
        .map(|(_, p)| p)
        .take_while(|p| p.id.side() == side && !p.id.is_command())
        .filter(|p| p.on_table())
        // FIRE-23, CMD-06, CMD-29: refusals read straight off the unit (the check would make
        // them too, with a message nobody reads here).
        .filter(|p| {
            let o = &p.orders;
            p.suppressed_at.is_none()
                && !o.closed
                && o.commander.is_none_or(|c| c == command)
                && (is_co || !o.hq_failed)
        })
        // One unit named once, by a command unit that is no FAO: the whole of
        // [`check_ordered_units`] is the unit's own part.
        .filter(|p| {
            let unit = OrderedUnit {
                piece: p.id,
                action: UnitActionKind::Deploy,
                target: None,
                road: false,
                dense: false,
            };
            check_ordered_unit(ctx, command, cp, is_co, &unit, p).is_ok()
        })
        .map(|p| p.id)
        .collect()
}

/// CMD-03..CMD-17: the 2D6 roll of an order already checked — its modifiers, the dice
/// (`purpose`, under `rule`) and the `OrderRolled` event — staged, with the outcome and the
/// order's number; a blunder's table is the caller's ([`blunder_table`]). Orders and a scout's
/// initial roll (OPT-SCOUT-02), which is an order to move the scout, roll through it.
pub(crate) fn roll_order<'a>(
    ctx: &'a Ctx<'a>,
    command: PieceId,
    units: &[OrderedUnit],
    purpose: &str,
    rule: &str,
    dice: &mut dyn Dice,
) -> Result<(Staged<'a>, OrderOutcome, u32), ActionError> {
    let (mods, value, target) = order_value(ctx, command, units)?;
    let rolled = dice.roll(2, purpose)?;
    let (a, b) = (
        rolled.first().copied().unwrap_or(1),
        rolled.get(1).copied().unwrap_or(1),
    );
    let outcome = roll_outcome([a, b], target);
    let order = ctx.state.command.next_order;
    let co = commanding_officer(ctx, command.side()) == Some(command);
    let mut staged = Staged::new(ctx);
    staged.push(Event::DiceRolled {
        piece: Some(command),
        purpose: purpose.into(),
        rule: rule.into(),
        dice: rolled,
        modifiers: mods,
    });
    staged.push(Event::OrderRolled(OrderRoll {
        order,
        command,
        co,
        units: units.to_vec(),
        value,
        target,
        total: a + b,
        outcome,
    }));
    Ok((staged, outcome, order))
}

/// CMD-03..CMD-19: issues an order — the 2D6 roll with every modifier, the outcome, and a
/// blunder's result.
pub fn resolve_issue_order(
    ctx: &Ctx,
    command: PieceId,
    units: &[OrderedUnit],
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    check_issue_order(ctx, command, units)?;
    let (mut staged, outcome, order) =
        roll_order(ctx, command, units, "command roll", "CMD-03", dice)?;
    if outcome == OrderOutcome::Blunder {
        let unit_ids: Vec<PieceId> = units.iter().map(|u| u.piece).collect();
        blunder_table(&mut staged, order, command, &unit_ids, dice)?;
    }
    Ok(staged.into_events())
}

/// CMD-18, CMD-19: a blunder's die, its event and what it does to `units` — of an order, a
/// transfer (OPT-FIXED-03), a scout's initial roll (OPT-SCOUT-02) or a communication roll
/// (OPT-MULTI-02; no units).
pub(crate) fn blunder_table(
    staged: &mut Staged,
    order: u32,
    command: PieceId,
    units: &[PieceId],
    dice: &mut dyn Dice,
) -> Result<(), ActionError> {
    let die = dice.d6("blunder table")?;
    staged.push(Event::DiceRolled {
        piece: Some(command),
        purpose: "blunder table".into(),
        rule: "CMD-19".into(),
        dice: vec![die],
        modifiers: Vec::new(),
    });
    staged.push(Event::Blunder {
        order,
        command,
        result: die,
        name: blunder_name(die).to_string(),
    });
    blunder(staged, command, units, die, dice)
}

// ---------------------------------------------------------------------------------------------
// The blunder table (CMD-19).

fn half_move(ctx: &Ctx, id: PieceId) -> f64 {
    movement::move_allowance(ctx, id, Manoeuvre::Advance).map_or(0.0, |a| a.base_cm / 2.0)
}

/// CMD-19 (4), (6) ruling: in the open — not inside area terrain, not in contact behind linear
/// terrain, not in a field defence, not dug in, not an unlimbered gun.
pub fn in_the_open(ctx: &Ctx, p: &PieceState) -> bool {
    if stays_put(ctx, p) || p.dug_in {
        return false;
    }
    let Some(fp) = footprint_of(ctx, p) else {
        return false;
    };
    let c = fp.centroid();
    let tol = CONTACT_TOLERANCE_CM * measure_scale(ctx);
    for f in &ctx.scenario.terrain {
        match (&f.kind, &f.geometry) {
            (TerrainKind::Open | TerrainKind::Road | TerrainKind::Hill { .. }, _) => {}
            (TerrainKind::Linear, g) => {
                let line = geo::LineString::from(
                    g.points()
                        .iter()
                        .map(|q| geo::Coord { x: q.x, y: q.y })
                        .collect::<Vec<_>>(),
                );
                if footprint_polyline_distance(&fp, &line) <= tol {
                    return false;
                }
            }
            (_, g @ Geometry::Polygon(_)) if Shape::of(g).covers_point(c) => return false,
            _ => {}
        }
    }
    for s in &ctx.scenario.sides {
        for d in &s.field_defenses {
            if d.occupant.is_some_and(|o| {
                PieceId::Unit {
                    side: p.id.side(),
                    unit: o,
                } == p.id
            }) {
                return false;
            }
        }
    }
    true
}

/// A forced half-move along `bearing`, as events (CMD-19 results 3, 4, 6): normal terrain rules
/// (the evade walk); running into the enemy or off the table means no move.
fn blunder_move(
    staged: &mut Staged,
    id: PieceId,
    bearing: f64,
    distance: f64,
) -> Result<(), ActionError> {
    let mut overruns = Vec::new();
    let ev = {
        let c = staged.ctx();
        let Some(from) = c.state.piece(id).and_then(|p| p.pose) else {
            return Ok(());
        };
        if distance <= 1e-9 {
            return Ok(());
        }
        match forced_move(
            &c,
            id,
            ForcedKind::Evade,
            bearing,
            distance,
            from.facing_deg,
        )? {
            ForcedOutcome::Moved {
                to,
                distance_cm,
                overruns: run,
            }
            | ForcedOutcome::StoppedByFriend {
                to,
                distance_cm,
                overruns: run,
                ..
            } => {
                overruns = run;
                Event::Moved {
                    piece: id,
                    from,
                    to,
                    path: Vec::new(),
                    cost_cm: distance_cm,
                }
            }
            ForcedOutcome::KnockedOut { rule, reason } => Event::NoEffect {
                piece: id,
                rule: "CMD-19".into(),
                reason: format!(
                    "the blunder move would run into trouble ({rule}: {reason}); it stays"
                ),
            },
        }
    };
    staged.push(ev);
    // CMD-25, MOVE-08: enemy command units the blunder move runs through are overrun.
    push_overruns(staged, &overruns)
}

fn centre_of(ctx: &Ctx, id: PieceId) -> Option<Point> {
    ctx.state
        .piece(id)
        .and_then(|p| footprint_of(ctx, p))
        .map(|f| f.centroid())
}

/// The nearest enemy unit by edge distance (not only visible ones): the fall-back reference of
/// CMD-19 (1), (2).
fn nearest_enemy_any(ctx: &Ctx, id: PieceId) -> Option<PieceId> {
    let p = ctx.state.piece(id)?;
    let fp = footprint_of(ctx, p)?;
    ctx.state
        .pieces
        .values()
        .filter(|q| q.id.side() != id.side() && !q.id.is_command() && q.on_table())
        .filter_map(|q| footprint_of(ctx, q).map(|f| (q.id, edge_distance(&fp, &f))))
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        .map(|(id, _)| id)
}

/// One blunder attack (CMD-19 results 1 and 2) through the casualty pipeline, with its
/// fall-back away from the nearest enemy.
fn blunder_attack(
    staged: &mut Staged,
    victim: PieceId,
    dice_n: u32,
    flank: bool,
    from: Point,
    dice: &mut dyn Dice,
) -> Result<(), ActionError> {
    let (attack, away) = {
        let c = staged.ctx();
        let Some(p) = c.state.piece(victim) else {
            return Ok(());
        };
        let Some(fp) = footprint_of(&c, p) else {
            return Ok(());
        };
        let command = victim.is_command();
        let cover = target_cover(&c, from, p, &fp);
        let to_hit = score_to_hit(cover.cover, false, command, false);
        let mut mods = vec![m(
            "CMD-19",
            "blunder attack dice",
            i32::try_from(dice_n).unwrap_or(0),
        )];
        mods.extend(to_hit.modifiers);
        let enemy = nearest_enemy_any(&c, victim);
        let away = enemy.and_then(|e| centre_of(&c, e));
        let attack = Attack {
            target: TargetProfile {
                piece: victim,
                save: SaveSituation {
                    save: save_of(&c, p),
                    replacement: None,
                    flank_or_rear: flank,
                    formation: p.formation,
                    ranged: true,
                },
                hits_before: p.hits,
                ko_threshold: ko_threshold_of(&c, p),
                suppressed: p.suppressed_at.is_some(),
                suppressed_by_this_order: false,
                grade: p.grade,
                stays_put: stays_put(&c, p),
            },
            groups: vec![DiceGroup {
                firers: Vec::new(),
                dice: dice_n,
                modifiers: mods,
                needed: to_hit.needed,
                first_fire: false,
                jams_on_double: false,
                purpose: "blunder: to hit".into(),
                rule: "CMD-19".into(),
            }],
            away_from: enemy,
            player_turn: c.state.turn.player_turn,
            morale: super::morale::morale_rule(&c, p), // OPT-MORALE-01
        };
        (attack, away.unwrap_or(fp.centroid()))
    };
    let out = resolve_attack(&attack, dice)?;
    staged.extend(out.events);
    if let Some(d) = out.fall_back_cm {
        let fb = fall_back_events(&staged.ctx(), victim, d, away)?;
        staged.extend(fb);
    }
    Ok(())
}

/// CMD-19: carries out blunder result `die` for the order of `command` to `units`.
fn blunder(
    staged: &mut Staged,
    command: PieceId,
    units: &[PieceId],
    die: u8,
    dice: &mut dyn Dice,
) -> Result<(), ActionError> {
    match die {
        1 => {
            let n = dice.d6("cease firing! attack dice")?;
            staged.push(Event::DiceRolled {
                piece: Some(command),
                purpose: "cease firing! attack dice".into(),
                rule: "CMD-19".into(),
                dice: vec![n],
                modifiers: Vec::new(),
            });
            let from = centre_of(&staged.ctx(), command).unwrap_or(Point::new(0.0, 0.0));
            blunder_attack(staged, command, u32::from(n), false, from, dice)?;
        }
        2 => {
            let (from, victims) = {
                let c = staged.ctx();
                let Some(cp) = c.state.piece(command) else {
                    return Ok(());
                };
                let Some(cfp) = footprint_of(&c, cp) else {
                    return Ok(());
                };
                let mut near: Vec<(f64, PieceId)> = c
                    .state
                    .pieces
                    .values()
                    .filter(|q| q.id.side() == command.side() && !q.id.is_command() && q.on_table())
                    .filter_map(|q| footprint_of(&c, q).map(|f| (edge_distance(&cfp, &f), q.id)))
                    .collect();
                near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                (
                    cfp.centroid(),
                    near.into_iter()
                        .take(3)
                        .map(|(_, id)| id)
                        .collect::<Vec<_>>(),
                )
            };
            for v in victims {
                blunder_attack(staged, v, 3, true, from, dice)?;
            }
        }
        3 => {
            let c = staged.ctx();
            let index = sight_index(&c);
            let enemy = nearest_enemy_unit(&index, command);
            let (Some((e, _)), Some(me)) = (enemy, centre_of(&c, command)) else {
                let ev = Event::NoEffect {
                    piece: command,
                    rule: "CMD-19".into(),
                    reason: "re-locate: the command unit sees no enemy".into(),
                };
                staged.push(ev);
                return Ok(());
            };
            let Some(ec) = centre_of(&c, e) else {
                return Ok(());
            };
            let d = half_move(&c, command);
            blunder_move(staged, command, bearing_deg(ec, me), d)?;
        }
        4 | 6 => {
            for u in units {
                let plan = {
                    let c = staged.ctx();
                    let Some(p) = c.state.piece(*u) else {
                        continue;
                    };
                    if !p.on_table() || p.suppressed_at.is_some() || !in_the_open(&c, p) {
                        None
                    } else {
                        let index = sight_index(&c);
                        nearest_enemy_unit(&index, *u).and_then(|(e, dist)| {
                            let (me, ec) = (centre_of(&c, *u)?, centre_of(&c, e)?);
                            let half = half_move(&c, *u);
                            Some(if die == 4 {
                                (bearing_deg(ec, me), half)
                            } else {
                                let stop = (dist - measure_scale(&c)).max(0.0);
                                (bearing_deg(me, ec), half.min(stop))
                            })
                        })
                    }
                };
                if let Some((bearing, d)) = plan {
                    blunder_move(staged, *u, bearing, d)?;
                }
            }
        }
        _ => {
            // 5: OPEN FIRE! — a normal attack at the nearest visible enemy, not an order.
            for u in units {
                let target = {
                    let c = staged.ctx();
                    let Some(p) = c.state.piece(*u) else {
                        continue;
                    };
                    if !p.on_table() || p.suppressed_at.is_some() {
                        continue;
                    }
                    nearest_enemy_unit(&sight_index(&c), *u).map(|(e, _)| e)
                };
                let Some(target) = target else {
                    continue;
                };
                let res = firing::resolve_fire(&staged.ctx(), &[*u], target, None, dice);
                match res {
                    Ok(ev) => staged.extend(ev),
                    Err(ActionError::Rule(e)) => staged.push(Event::NoEffect {
                        piece: *u,
                        rule: "CMD-19".into(),
                        reason: format!(
                            "open fire!: cannot fire at its nearest visible enemy ({e})"
                        ),
                    }),
                    Err(other) => return Err(other),
                }
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Opportunity fire (FIRE-30..FIRE-33).

/// FIRE-30..FIRE-33: inactive units fire at a unit that moved or fired under the current order;
/// at a mover, from a point `at` of its move (FIRE-31). Out of range or cone, the declared fire
/// is wasted, and the penalties still apply (FIRE-32).
pub fn resolve_opportunity_fire(
    ctx: &Ctx,
    firers: &[PieceId],
    target: PieceId,
    at: Option<Point>,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let st = ctx.state;
    let t = st.turn;
    if t.phase != Phase::Command {
        return Err(refuse(
            "FIRE-30",
            format!(
                "opportunity fire is made in the active player's Command phase, not the {} phase",
                t.phase.label()
            ),
        ));
    }
    if firers.is_empty() {
        return Err(refuse("FIRE-30", "name at least one firing unit"));
    }
    let tp = ctx.piece(target)?;
    if target.side() != t.active || target.is_command() || !tp.on_table() {
        return Err(refuse(
            "FIRE-30",
            format!(
                "{} is not an active enemy unit that can be fired at",
                tp.name
            ),
        ));
    }
    for f in firers {
        let fp = ctx.piece(*f)?;
        if f.side() == t.active {
            return Err(refuse(
                "FIRE-30",
                format!(
                    "{} belongs to the active side: opportunity fire is the inactive side's",
                    fp.name
                ),
            ));
        }
        if f.is_command() {
            return Err(refuse(
                "CMD-23",
                format!("{} is a command unit; command units never fire", fp.name),
            ));
        }
        if fp.suppressed_at.is_some() {
            return Err(refuse("FIRE-30", format!("{} is suppressed", fp.name)));
        }
        if fp.orders.opportunity_fired_in == Some(t.player_turn) {
            return Err(refuse(
                "FIRE-30",
                format!(
                    "{} has made its opportunity fire this enemy turn (once)",
                    fp.name
                ),
            ));
        }
    }
    let full = st.command.mode == OrdersMode::Full;
    let o = &tp.orders;
    if full {
        if matches!(
            o.last_kind,
            Some(UnitActionKind::Charge | UnitActionKind::Support)
        ) {
            return Err(refuse(
                "FIRE-33",
                format!(
                    "{} is charging: it is answered by counter-initiative, not opportunity fire",
                    tp.name
                ),
            ));
        }
        let current = st.command.current.as_ref().map(|c| c.id);
        if current.is_none() || o.acted_in_order != current {
            return Err(refuse(
                "FIRE-31",
                format!(
                    "{} has neither moved nor fired under the current order",
                    tp.name
                ),
            ));
        }
    }
    let mut staged = Staged::new(ctx);
    let mut interrupted: Option<(Pose, Pose)> = None;
    if let Some(point) = at {
        let trace = o.last_move.as_ref().filter(|_| full);
        let Some(trace) = trace else {
            return Err(refuse(
                "FIRE-31",
                format!(
                    "{} has no move under the current order to stop it on",
                    tp.name
                ),
            ));
        };
        if tp.pose != Some(trace.to) {
            return Err(refuse(
                "FIRE-31",
                format!("{}'s move has already ended where it was stopped", tp.name),
            ));
        }
        if !trace.contains(point, PATH_TOLERANCE_CM * measure_scale(ctx)) {
            return Err(refuse(
                "FIRE-31",
                format!(
                    "({:.1}, {:.1}) is not on {}'s move",
                    point.x, point.y, tp.name
                ),
            ));
        }
        let stop = Pose {
            at: point,
            facing_deg: if point.distance(trace.to.at).0 <= PATH_TOLERANCE_CM * measure_scale(ctx) {
                trace.to.facing_deg
            } else {
                trace.from.facing_deg
            },
        };
        interrupted = Some((stop, trace.to));
    }
    staged.push(Event::OpportunityFireDeclared {
        firers: firers.to_vec(),
        target,
        player_turn: t.player_turn,
        at: interrupted.map(|(s, _)| s),
    });
    if let Some((stop, to)) = interrupted {
        staged.push(Event::MoveInterrupted {
            piece: target,
            from: to,
            at: stop,
        });
    }
    let fire = {
        let c = staged.ctx();
        firing::resolve_fire_as(
            &c,
            firers,
            target,
            None,
            firing::FireOccasion::Opportunity,
            dice,
        )
    };
    match fire {
        Ok(ev) => staged.extend(ev),
        Err(ActionError::Rule(e)) if matches!(e.rule, "FIRE-02" | "FIRE-04") => {
            staged.push(Event::NoEffect {
                piece: target,
                rule: "FIRE-32".into(),
                reason: format!("the opportunity fire is wasted: {e}"),
            });
        }
        Err(e) => return Err(e),
    }
    if let Some((stop, to)) = interrupted {
        let fell_back = staged
            .state()
            .piece(target)
            .is_some_and(|p| p.pose != Some(stop));
        let halted = staged
            .state()
            .piece(target)
            .is_none_or(|p| !p.on_table() || p.suppressed_at.is_some());
        if !fell_back && !halted {
            staged.push(Event::MoveResumed {
                piece: target,
                from: stop,
                to,
            });
        }
    }
    Ok(staged.into_events())
}

// ---------------------------------------------------------------------------------------------
// Self-orders (CMD-07).

/// CMD-07 ruling (a): no friendly piece within 20 cm and no friendly command unit sees it.
pub fn is_isolated(ctx: &Ctx, id: PieceId) -> bool {
    let Some(p) = ctx.state.piece(id) else {
        return false;
    };
    let Some(fp) = footprint_of(ctx, p) else {
        return false;
    };
    let reach = ISOLATION_CM * measure_scale(ctx);
    let index = sight_index(ctx);
    // Within reach, edge to edge: the index's footprint of the friend (this state's), and a
    // friend whose box is farther than reach set aside without measuring (bases are never
    // nearer than their boxes; `in_contact` measures exactly as `edge_distance` does whenever
    // the boxes leave the answer open).
    let limit = reach + 1e-9;
    let rect = fp.bounding_rect();
    let within = |q: &PieceState| match index.footprint_if_same(q) {
        Some((f, r)) => rect_gap(&rect, &r) <= limit + 1e-9 && in_contact(&fp, f, limit),
        None => footprint_of(ctx, q).is_some_and(|f| in_contact(&fp, &f, limit)),
    };
    !ctx.state.pieces.values().any(|q| {
        q.id != id
            && q.id.side() == id.side()
            && q.on_table()
            && (within(q) || (q.id.is_command() && index.sight(q.id, id).visible))
    })
}

/// CMD-07: an isolated unit's self-order — 2D6 against 7, no modifiers, no bonus or blunder;
/// on success a full move directly towards the nearest command unit of its chain.
pub fn resolve_self_order(
    ctx: &Ctx,
    piece: PieceId,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let st = ctx.state;
    let t = st.turn;
    let p = ctx.piece(piece)?;
    if st.command.mode == OrdersMode::Free {
        return Err(refuse(
            "CMD-07",
            "this battle's orders are free (rolled on the table)",
        ));
    }
    if t.phase != Phase::Command || st.command.command_movement {
        return Err(refuse(
            "CMD-07",
            "a self-order is given in the Command phase, before command movement",
        ));
    }
    if piece.is_command() {
        return Err(refuse("CMD-07", format!("{} is a command unit", p.name)));
    }
    super::battle::check_may_act(ctx, p)?;
    if p.suppressed_at.is_some() {
        return Err(refuse("FIRE-23", format!("{} is suppressed", p.name)));
    }
    if p.orders.commander.is_some() || p.orders.closed || p.orders.hq_failed {
        return Err(refuse(
            "CMD-07",
            format!("{} has been ordered (or tried) this turn", p.name),
        ));
    }
    if p.orders
        .self_ordered_in
        .is_some_and(|pt| pt + 2 == t.player_turn)
    {
        return Err(refuse(
            "CMD-07",
            format!(
                "{} gave itself an order in its last turn: every second turn only",
                p.name
            ),
        ));
    }
    if !is_isolated(ctx, piece) {
        return Err(refuse(
            "CMD-07",
            format!(
                "{} is not out of contact (a friend within {} cm or seen by a command unit)",
                p.name,
                ISOLATION_CM * measure_scale(ctx)
            ),
        ));
    }
    let hq = chain_of_command(ctx, piece)
        .into_iter()
        .find(|h| st.piece(*h).is_some_and(PieceState::on_table));
    let rolled = dice.roll(2, "self-order")?;
    let total: u8 = rolled.iter().sum();
    let success = total <= SELF_ORDER_VALUE;
    let mut staged = Staged::new(ctx);
    staged.push(Event::DiceRolled {
        piece: Some(piece),
        purpose: "self-order".into(),
        rule: "CMD-07".into(),
        dice: rolled,
        modifiers: vec![m("CMD-07", "fixed value", i32::from(SELF_ORDER_VALUE))],
    });
    staged.push(Event::SelfOrdered {
        piece,
        player_turn: t.player_turn,
        success,
    });
    if success {
        let c = staged.ctx();
        let towards = hq.and_then(|h| Some((centre_of(&c, piece)?, centre_of(&c, h)?)));
        let full =
            movement::move_allowance(&c, piece, Manoeuvre::Advance).map_or(0.0, |a| a.base_cm);
        match towards {
            Some((me, them)) => blunder_move(&mut staged, piece, bearing_deg(me, them), full)?,
            None => staged.push(Event::NoEffect {
                piece,
                rule: "CMD-07".into(),
                reason: "no command unit of its chain is on the table".into(),
            }),
        }
    }
    Ok(staged.into_events())
}

// ---------------------------------------------------------------------------------------------
// Overruns (CMD-25) and replacements (CMD-28).

/// The pose that puts a command unit's front edge against the centre of `unit`'s rear edge.
fn behind(fp: &Footprint) -> Pose {
    let h = heading(fp.facing_deg);
    let rear = fp
        .stands
        .iter()
        .flat_map(|s| s.corners())
        .map(|c| -((c.x - fp.at.x) * h.x + (c.y - fp.at.y) * h.y))
        .fold(0.0_f64, f64::max);
    Pose {
        at: Point::new(fp.at.x - h.x * rear, fp.at.y - h.y * rear),
        facing_deg: fp.facing_deg,
    }
}

/// CMD-25: a Move as events; an enemy command unit moved through or into joins a friendly
/// non-command unit within half its Move (placed against its rear, CMD-26) or is knocked out.
pub fn resolve_move(
    ctx: &Ctx,
    piece: PieceId,
    via: &[Point],
    to: Pose,
    manoeuvre: Manoeuvre,
) -> Result<Vec<Event>, ActionError> {
    let plan = movement::check_move(ctx, piece, via, to, manoeuvre)?;
    let mut staged = Staged::new(ctx);
    staged.push(Event::Moved {
        piece,
        from: plan.from,
        to: plan.to,
        path: plan.path.clone(),
        cost_cm: plan.cost_cm,
    });
    push_overruns(&mut staged, &plan.overruns)?;
    Ok(staged.into_events())
}

/// CMD-25: the events for enemy command units a move ran through or into (each joins a
/// friendly non-command unit within half its Move, placed against its rear, CMD-26, or is
/// knocked out). The charge rules call this for charge, pursuit, evade, retreat and
/// consolidation moves; `ctx` may be the state before or after the move, since the refuge is
/// always the command unit's own friend, never the mover.
pub fn overrun_events(ctx: &Ctx, hqs: &[PieceId]) -> Result<Vec<Event>, ActionError> {
    let mut staged = Staged::new(ctx);
    push_overruns(&mut staged, hqs)?;
    Ok(staged.into_events())
}

fn push_overruns(staged: &mut Staged, hqs: &[PieceId]) -> Result<(), ActionError> {
    for hq in hqs {
        let ev = {
            let c = staged.ctx();
            let hp = c.piece(*hq)?;
            if hp.knocked_out {
                continue;
            }
            let (Some(hfp), Some(from)) = (footprint_of(&c, hp), hp.pose) else {
                continue;
            };
            let half = half_move(&c, *hq);
            let refuge = c
                .state
                .pieces
                .values()
                .filter(|q| q.id.side() == hq.side() && !q.id.is_command() && q.on_table())
                .filter_map(|q| footprint_of(&c, q).map(|f| (edge_distance(&hfp, &f), q.id, f)))
                .filter(|(d, _, _)| *d <= half + 1e-9)
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            match refuge {
                Some((_, unit, f)) => Event::CommandJoined {
                    piece: *hq,
                    unit,
                    from,
                    to: behind(&f),
                },
                None => Event::UnitKnockedOut {
                    piece: *hq,
                    cause: KnockOutCause::Overrun,
                },
            }
        };
        staged.push(ev);
    }
    Ok(())
}

/// CMD-28: places a knocked-out command unit back on the table at the start of its owner's
/// next turn (once per game), not in impassable terrain and not within 5 cm of an enemy unit.
pub fn resolve_replace_command(
    ctx: &Ctx,
    piece: PieceId,
    at: Pose,
) -> Result<Vec<Event>, ActionError> {
    let st = ctx.state;
    let t = st.turn;
    let p = ctx.piece(piece)?;
    if !piece.is_command() {
        return Err(refuse(
            "CMD-28",
            format!("{} is not a command unit", p.name),
        ));
    }
    if !p.knocked_out {
        return Err(refuse(
            "CMD-28",
            format!("{} has not been knocked out", p.name),
        ));
    }
    if p.orders.replaced {
        return Err(refuse(
            "CMD-28",
            format!("{} has been replaced once already", p.name),
        ));
    }
    if piece.side() != t.active
        || t.phase != Phase::Initiative
        || p.orders.replacement_due != Some(t.player_turn)
    {
        return Err(refuse(
            "CMD-28",
            format!(
                "{} may be replaced only at the start (Initiative phase) of its owner's next turn after its loss",
                p.name
            ),
        ));
    }
    if !(at.at.x.is_finite() && at.at.y.is_finite() && at.facing_deg.is_finite()) {
        return Err(refuse("CMD-28", "the placement must be numbers"));
    }
    let mut placed = p.clone();
    placed.knocked_out = false;
    placed.pose = Some(at);
    let Some(fp) = footprint_of(ctx, &placed) else {
        return Err(refuse("CMD-28", "the placement is not on the table"));
    };
    if super::geometry::off_table(ctx, &fp) {
        return Err(refuse(
            "CMD-28",
            format!("{} would be placed off the table", p.name),
        ));
    }
    let reach = REPLACEMENT_CLEARANCE_CM * measure_scale(ctx);
    if let Some(e) = st.pieces.values().find(|q| {
        q.id.side() != piece.side()
            && q.on_table()
            && footprint_of(ctx, q).is_some_and(|f| edge_distance(&fp, &f) <= reach + 1e-9)
    }) {
        return Err(refuse(
            "CMD-28",
            format!("{} would be within 5 cm of the enemy {}", p.name, e.name),
        ));
    }
    let mover = mover_of(ctx, &placed);
    let c = fp.centroid();
    for f in &ctx.scenario.terrain {
        let going = feature_going(f.kind, f.dense, f.frozen, mover);
        if let Going::Impassable { rule } = going {
            let shape = Shape::of(&f.geometry);
            if shape.covers_point(c) || shape.covers_point(at.at) {
                return Err(refuse(
                    "CMD-28",
                    format!(
                        "{} would be placed in impassable terrain ({rule}: {})",
                        p.name, f.name
                    ),
                ));
            }
        }
    }
    Ok(vec![Event::CommandReplaced {
        piece,
        at,
        player_turn: t.player_turn,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmd_09_distance_modifier_edges() {
        assert_eq!(distance_modifier(20.0), 0);
        assert_eq!(distance_modifier(20.000_000_000_1), 0);
        assert_eq!(distance_modifier(20.01), -1);
        assert_eq!(distance_modifier(40.0), -1);
        assert_eq!(distance_modifier(40.01), -2);
        assert_eq!(distance_modifier(100.0), -4);
    }

    #[test]
    fn cmd_19_blunder_names() {
        let names: Vec<&str> = (1..=6).map(blunder_name).collect();
        assert_eq!(
            names,
            [
                "CEASE FIRING!",
                "CROSS-FIRE!",
                "RE-LOCATE!",
                "PULL BACK!",
                "OPEN FIRE!",
                "LET'S GET 'EM!"
            ]
        );
    }

    #[test]
    fn fire_31_move_trace_contains_points_on_its_path_only() {
        let p = |x, y| Pose {
            at: Point::new(x, y),
            facing_deg: 0.0,
        };
        let t = MoveTrace {
            from: p(0.0, 0.0),
            path: vec![Point::new(0.0, 10.0)],
            to: p(10.0, 10.0),
        };
        assert!(t.contains(Point::new(0.0, 5.0), 0.05));
        assert!(t.contains(Point::new(5.0, 10.0), 0.05));
        assert!(!t.contains(Point::new(5.0, 5.0), 0.05));
        assert!(!t.contains(Point::new(11.0, 10.0), 0.05));
    }

    #[test]
    fn cmd_26_carried_pose_turns_with_the_unit() {
        let p = |x, y, f| Pose {
            at: Point::new(x, y),
            facing_deg: f,
        };
        // A command unit 3 cm behind a unit that moves 5 cm ahead.
        let c = carried(p(0.0, -3.0, 0.0), p(0.0, 0.0, 0.0), p(0.0, 5.0, 0.0));
        assert!(c.at.x.abs() < 1e-9 && (c.at.y - 2.0).abs() < 1e-9);
        // The unit turns 90° clockwise (to face +x) on the spot: behind it is now −x.
        let c = carried(p(0.0, -3.0, 0.0), p(0.0, 0.0, 0.0), p(0.0, 0.0, 90.0));
        assert!((c.at.x + 3.0).abs() < 1e-9 && c.at.y.abs() < 1e-9, "{c:?}");
        assert!((c.facing_deg - 90.0).abs() < 1e-9);
    }

    #[test]
    fn cmd_03_roll_outcomes_and_successive_penalty() {
        assert_eq!(roll_outcome([2, 5], 7), OrderOutcome::Success);
        assert_eq!(roll_outcome([2, 6], 7), OrderOutcome::Failure);
        assert!(OrderOutcome::Bonus.issued() && !OrderOutcome::Blunder.issued());
        assert_eq!(successive_penalty(&[]), 0);
    }
}
