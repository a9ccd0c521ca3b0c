//! Charges and close combat (catalogue §2.13 CHG-01..CHG-26, with INIT-05, INIT-07..INIT-15,
//! SEQ-04, PIKE-01/02, ART-04 canister, FIRE-28/29 disorder and exhaustion, MOVE-18, and the
//! list rules of CHG-15): the actions [`Action::Charge`](super::Action::Charge), `Respond`,
//! `CloseResponse`, `Support`, `ResolveCharge`, `Consolidate` and `Evade`, their checks and
//! their resolution.
//!
//! # The charge as a small state machine
//!
//! A charge is a [`Combat`] kept in [`ChargeState`] (one field of the battle state) from its
//! declaration until it is fought, following INIT-09:
//!
//! 1. `Charge` (active side): eligibility (CHG-02/03/06, INIT-07, INIT-10, PIKE-01), the contact
//!    edge (CHG-10), the path (CHG-04, INIT-08) — then each charger is placed 2 cm short of the
//!    target edge and the **response window** opens (`ChargeDeclared` + `Moved`).
//! 2. `Respond` (inactive side, only while the window is open): fire at a charger from within
//!    10 cm, evade from within 5 cm, counter-charge (mounted cavalry), or, for the charged gun,
//!    canister, pivot or evade (INIT-10, INIT-12, INIT-15, CHG-09, ART-04). One response per unit
//!    and charge. While a window is open no other charge may be declared.
//! 3. `CloseResponse` (either side may send it; it is the inactive side's "done"): the chargers
//!    still able make contact; a charger that fell back or is otherwise short is disordered
//!    (INIT-09 steps 4–5); an evaded target is pursued (INIT-14).
//! 4. `Support` (either side, after contact): CHG-07, CHG-08, INIT-11.
//! 5. `ResolveCharge` (active side): rounds until decided (CHG-13..CHG-23), then retreats and
//!    knock-outs (CHG-25), disorder and exhaustion (CHG-26, FIRE-28/29), and the winners' right
//!    to consolidate.
//! 6. `Consolidate` (the winners, either side, in order, optional): CHG-24.
//!
//! SEQ-04 decides *when* step 5 happens: after all initiative actions for initiative charges,
//! after the order's actions for command-phase charges, and in the Charge phase for anything
//! left. On this branch the active player asks for it with `ResolveCharge`; ending a phase
//! while any combat is pending is refused (SEQ-04), so no combat is ever skipped.
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * CHG-10 with several chargers: each charger, in the order named, takes the nearest visible
//!   edge of the target that no earlier charger took.
//! * CHG-10, the gap between an enemy unit and impassable terrain: the ground between the unit
//!   and each piece of impassable ground or deep water within 5 cm of it, as far as 5 cm around
//!   the unit (their convex hull), not the whole feature; roads, bridges and fords across the
//!   water are cut out of it as the charger's movement has them (TERR-06, TERR-07).
//! * The charge distance (CHG-04 c) is measured from the charger's front-edge centre after the
//!   free pivot to its front-edge centre in contact.
//! * The contact pose is centred on the edge, or shifted along it in 0.25 cm steps as little as
//!   needed to overlap nobody and touch no other enemy (CHG-04 b); if no shift helps, a contact
//!   pose that would overlap another unit is refused (CHG-10).
//! * CHG-05, one charger touching several enemy units: when no shift keeps the contact pose off
//!   other enemy units, each further enemy unit touched is a separate charge on it: at contact
//!   (`CloseResponse`) the charger joins that unit's combat or opens one, already in contact on
//!   the edge it touches, with no response window of its own (the unit could respond to the
//!   first charge as a unit near the charged one). The charger counts as charging in round 1 of
//!   each; the active player picks the order (`ResolveCharge`). A charger finishes its charge
//!   with its last combat: it is disordered (FIRE-28 b) only if it wins that one, and may not
//!   consolidate while a combat of its is pending. A combat none of whose chargers still
//!   touches its target (they retreated or were knocked out in a combat fought before) ends
//!   unfought. The further contact obeys CHG-10 (an edge held by a charger already is refused)
//!   and PIKE-01.
//! * CHG-05, a further charge on the target of a pending combat (its window closed) joins that
//!   combat: its chargers take edges no charger in contact holds, a response window opens for
//!   them (one response per unit and combat; the target, fighting hand to hand, makes none; fire
//!   only at chargers not yet in contact), and the combat is fought as one, all chargers in
//!   contact pooling their dice (CHG-13..CHG-19). A charge on a unit that only supports a
//!   pending combat is reported as unsupported.
//! * SEQ-04 (3): entering the Charge phase, every inactive unit still in base contact with
//!   active units and in no combat gets one (`contacts_without_combat`), fought there with
//!   nobody charging (4+ all round, no winners' disorder); the phase cannot end until they are.
//! * Only unsuppressed units respond at all (INIT-12 "unsuppressed units", CHG-09, INIT-15 c).
//! * INIT-11 on initiative: the supporter's combat must be the nearest pending combat (by edge
//!   distance to its friendly units in contact).
//! * A winner's right to consolidate lasts for the phase in which it was earned, until another
//!   charge is declared or it consolidates; consolidating passes the rights of the units listed
//!   before it (CHG-24 order).
//! * Counter-initiative fire is never a forced-square trigger (FIRE-33: charge reactions are a
//!   system of their own), and a charged gun fires only canister (INIT-10).
//! * Canister attacks every non-command unit with a stand in the gun's cone within canister range,
//!   in id order, each through the full casualty pipeline (WE-12 shows the suppression test).
//! * The 1D6 flank allocation roll (CHG-17) is rolled in each round that needs it, after the
//!   attackers' dice and the defender's saves, just before the defending side's dice.
//! * Both sides' dice of a round are worked out before any hits of the round land (all dice are
//!   rolled together, CHG-16), so a unit knocked out in a round still strikes back (WE-12).
//! * A defender contacted on its front and on a flank counts all its stands (CHG-11 frontal
//!   contact) but still fights to its flank: −2 and the save one worse (CHG-14, CHG-18).
//! * CHG-19 totals count every unit of a side that made contact (knocked out or not) and its
//!   supporters, using their hits this player turn.
//! * A retreating unit that was already suppressed keeps its older marker.
//! * Evading guns: an unlimbered gun limbers and moves half its limbered Move (INIT-05 a; the
//!   limber is taken to be with the gun); with `limber: false` it is manhandled straight back up
//!   to its manhandle Move (INIT-10).
//! * Dismounted cavalry may mount to evade (INIT-05 b): the abstract horse holder (it left the
//!   line when the unit dismounted, COL-02) is taken to be at the command stand, as a gun's
//!   limber is (INIT-05 a); mounted, they move half their mounted Move, otherwise they evade on
//!   foot at the dismounted Move.
//! * Pursuit of an evader (INIT-14) stops where its straight path meets anything; the evader is
//!   caught when it ends less than 3 cm from the charger.
//! * CMD-21 in a charge: each side's pool in each round takes `firing::presence_dice` over the
//!   side's units in contact, so a command unit adds its dice once per side (CMD-21 (b)), to the
//!   first unit in contact it touches and commands. A command unit touching the charger before
//!   the charge is left behind by it and adds nothing.
//! * CMD-25: a charge, pursuit, evade, retreat or consolidation that runs through an enemy
//!   command unit overruns it: `command::overrun_events` (join a friend within half its Move, or
//!   be lost) follows the move's events.
//! * SKIR-04: a charger whose line from the middle of its starting front edge to the target's
//!   centre crosses the target brigade's screen removes it (`screen_removed`); the screen has no
//!   depth of its own, so the charge always goes on to the unit behind.
//!
//! # Not here
//!
//! Who may act, and with what (one initiative action; an order's Charge or Support action at
//! its declared target, CMD-04, CMD-13, CMD-15, CHG-08 (a)) is the order gate's,
//! `command::authorize`, which `battle::resolve` runs before every charge, support and evade;
//! this module keeps the charge's own eligibility (CHG-02..CHG-08, INIT-07, INIT-10, INIT-11),
//! and the checks that also hold under free orders (suppressed or command units take no
//! initiative evade; one initiative support). Command units sharing a combat's outcome (CMD-22,
//! CMD-26, CHG-26) are added by `command::finish` to every action's events (suppression,
//! `Retreated`, knock-out; a joined one moves with charge, support and consolidation moves).
//!
//! # The OPTIONAL saber charge (OPT-SABER-01..03)
//!
//! With the option on, `Charge { saber: true }` declares a saber charge, kept on each
//! [`ChargerPlan`] (and so in `ChargeDeclared`). Rulings made here:
//!
//! * "Only cavalry" (OPT-SABER-01) is read from the troop row: cavalry rows, mounted or in their
//!   dismounted mode. Only mounted cavalry get the bonus (OPT-SABER-02).
//! * No ranged fire "until the charge is over": a saber charger in a combat not yet fought is
//!   refused any Fire (OPT-SABER-01, [`check_no_saber_fire`]); the combat's end is the charge's
//!   end.
//! * OPT-SABER-02: +1 die per stand of a saber-charging mounted cavalry unit in round 1 of its
//!   combat only (also in a further combat of the same charge, CHG-05). Its stands are all the
//!   stands it has (CHG-13 c).
//! * OPT-SABER-03 (a)/(c): the bonus is lost against a target in square unless that target is
//!   poor (row grade or unit grade Poor, or the list's poor note).
//! * OPT-SABER-03 (b)/(c): a charged unit on foot that is rifle-armed ([`rifle_armed`]) and not
//!   poor rolls +1 die in every round of a combat in which a mounted cavalry charger is in
//!   contact with it, saber charge or not (the ruling's "when charged by mounted cavalry").
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::action::Manoeuvre;
use super::apply::apply;
use super::artillery::{canister_dice, canister_profile};
use super::battle::{check_may_act, Ctx};
use super::casualty::{
    cover_label, save_plan, score_to_hit, Attack, AttackDice, DiceGroup, SaveSituation,
};
use super::dice::Dice;
use super::error::{ActionError, RuleError};
use super::event::{Event, KnockOutCause, Modifier};
use super::firing::{
    fall_back_events, is_disordered, is_exhausted, is_mounted_cavalry, ko_threshold_of,
    presence_dice, range_factor, resolve_fire_as, save_of, shifts_cover, target_cover,
    target_profile, FireOccasion, INITIATIVE_CM,
};
use super::geometry::{footprint_of, measure_scale, CONTACT_TOLERANCE_CM};
use super::movement::{forced_move, move_allowance, ForcedKind, ForcedOutcome};
use super::state::{BattleState, Formation, Phase, PieceId, PieceState, Pose};
use super::terrain::{mover_of, path_crossings, Going, Shape, Source};
use super::visibility::{sight_index, SightIndex};
use crate::geom::footprint::{bearing_deg, heading, normalize_deg, right_of};
use crate::geom::segment::{rect_gap, rects_overlap, segment_meets_polyline, Segment};
use crate::geom::{edge_distance, Footprint, FrontEdge, Point, Rect};
use crate::model::{Arm, Cover, DefenseKind, OptionalRule, RowRole, RuleEffect, TerrainKind};
use geo::{ConvexHull, Intersects, LineString, MultiPoint, Polygon};
use serde::{Deserialize, Serialize};
use std::cell::OnceCell;

/// CHG-03: the charge distance, unscaled by the representation scale (GEN-07).
pub const CHARGE_CM: f64 = 20.0;
/// INIT-09 step 2: chargers are placed this far from the target before the response.
pub const PLACE_CM: f64 = 2.0;
/// INIT-12 ruling: counter-initiative fire from within this distance of the charged unit.
pub const RESPONSE_FIRE_CM: f64 = 10.0;
/// INIT-12 ruling: evading from within this distance of the charged unit.
pub const RESPONSE_EVADE_CM: f64 = 5.0;
/// CHG-07: a supporter must be within this distance of the friend in contact.
pub const SUPPORT_CM: f64 = 10.0;
/// CHG-10: the narrowest gap a charger may enter.
pub const GAP_CM: f64 = 5.0;
/// INIT-14: an evader ending closer than this to the pursuing charger is knocked out.
pub const CAUGHT_CM: f64 = 3.0;
/// INIT-09 step 5: a charger must get this close to its target.
pub const CLOSE_CM: f64 = 1.0;
/// CHG-24: the consolidation distance and how near a visible enemy it may end.
pub const CONSOLIDATE_CM: f64 = 5.0;
pub const CONSOLIDATE_CLEAR_CM: f64 = 3.0;
/// A guard against a combat that never ends (equal totals round after round): never reached
/// with real dice.
pub const MAX_ROUNDS: u32 = 100;

// ---------------------------------------------------------------------------------------------
// Types kept in the state and the log.

/// A side of a target formation's outline (CHG-10 ruling): front, the two flanks, rear. A square
/// has four fronts, named by the way they face.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Edge {
    Front,
    Left,
    Right,
    Rear,
}

impl Edge {
    pub fn label(self) -> &'static str {
        match self {
            Edge::Front => "front",
            Edge::Left => "left flank",
            Edge::Right => "right flank",
            Edge::Rear => "rear",
        }
    }
}

/// The inactive side's answer to a charge (INIT-10, INIT-12, INIT-15, CHG-09, ART-04).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Response {
    /// Fire at one charger (never a supporter): the charged unit or a unit within 10 cm of it.
    Fire { at: PieceId },
    /// Evade directly away from the nearest charger: the charged unit or a unit within 5 cm of
    /// it. Guns: `limber` to limber and move half the limbered Move, otherwise manhandled back.
    /// Dismounted cavalry: `limber` to mount and move half the mounted Move, otherwise on foot
    /// (INIT-05 b).
    Evade {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        facing_deg: Option<f64>,
        #[serde(default)]
        limber: bool,
    },
    /// Mounted cavalry meet the charge (INIT-15): they count as charging in round 1.
    CounterCharge,
    /// The charged gun fires canister (ART-04).
    Canister,
    /// The charged gun is manhandled round up to 90° to face the charger (INIT-10).
    Pivot { facing_deg: f64 },
}

/// One charger as declared: the edge it goes for, where it started, where it was placed 2 cm
/// short, and the charge distance it will use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChargerPlan {
    pub piece: PieceId,
    pub edge: Edge,
    pub start: Pose,
    pub placed: Pose,
    pub distance_cm: f64,
    /// OPT-SABER-01: declared as a saber charge.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub saber: bool,
}

/// How a combat was decided (CHG-21..CHG-23).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// CHG-21: the loser took more, but less than double.
    Greater,
    /// CHG-22: the loser took double or more (1 against 0 included).
    Double,
    /// CHG-23: every unit of one side in contact was knocked out: as a double win.
    WipedOut,
    /// CHG-23: both sides lost every unit in contact: nobody consolidates.
    BothWipedOut,
}

/// A unit of the inactive side that has responded to this charge, and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseMark {
    pub piece: PieceId,
    pub response: Response,
}

/// A charger in base contact, and the edge it touches.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    pub piece: PieceId,
    pub edge: Edge,
}

/// A supporter and the friend it stands behind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SupportRec {
    pub piece: PieceId,
    pub friend: PieceId,
}

/// A charge between declaration and resolution (INIT-09).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Combat {
    pub target: PieceId,
    /// The charging side.
    pub attacker: usize,
    pub phase: Phase,
    pub player_turn: u32,
    pub chargers: Vec<ChargerPlan>,
    /// Chargers that made contact (INIT-09 step 4).
    #[serde(default)]
    pub contacts: Vec<Contact>,
    /// INIT-09 step 3: the inactive side may respond.
    pub window_open: bool,
    #[serde(default)]
    pub responses: Vec<ResponseMark>,
    #[serde(default)]
    pub supporters: Vec<SupportRec>,
}

impl Combat {
    fn response_of(&self, piece: PieceId) -> Option<&Response> {
        self.responses
            .iter()
            .find(|r| r.piece == piece)
            .map(|r| &r.response)
    }

    /// INIT-15: the charged mounted cavalry met the charge.
    pub fn counter_charged(&self) -> bool {
        matches!(self.response_of(self.target), Some(Response::CounterCharge))
    }

    /// INIT-14: the charged unit evaded.
    pub fn target_evaded(&self) -> bool {
        matches!(self.response_of(self.target), Some(Response::Evade { .. }))
    }
}

/// A unit's support this turn (CHG-08: one charge per initiative phase or order; the inactive
/// side one per enemy player turn).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SupportMark {
    pub piece: PieceId,
    pub player_turn: u32,
    pub phase: Phase,
}

/// A winner's right to consolidate (CHG-24), valid in the phase it was earned.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ConsolidateRight {
    pub piece: PieceId,
    pub target: PieceId,
    pub player_turn: u32,
    pub phase: Phase,
    /// Its place in the CHG-24 order (the attacker first).
    pub order: u32,
}

/// SEQ-04 (3): a charger and its target whose combat was resolved this player turn; they may
/// stay in base contact (a retreat stopped against a friend) without being made to fight again.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fought {
    pub charger: PieceId,
    pub target: PieceId,
    pub player_turn: u32,
}

/// Everything the charge rules remember between actions (one field of the battle state).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChargeState {
    /// Charges declared and not yet fought, in declaration order.
    #[serde(default)]
    pub combats: Vec<Combat>,
    #[serde(default)]
    pub supports: Vec<SupportMark>,
    #[serde(default)]
    pub consolidation: Vec<ConsolidateRight>,
    /// SEQ-04 (3): the pairs whose combat was resolved this player turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fought: Vec<Fought>,
}

impl ChargeState {
    pub fn combat(&self, target: PieceId) -> Option<&Combat> {
        self.combats.iter().find(|c| c.target == target)
    }

    fn combat_mut(&mut self, target: PieceId) -> Option<&mut Combat> {
        self.combats.iter_mut().find(|c| c.target == target)
    }

    /// The unresolved combat `piece` takes part in (charger, target or supporter).
    pub fn combat_of(&self, piece: PieceId) -> Option<&Combat> {
        self.combats.iter().find(|c| {
            c.target == piece
                || c.chargers.iter().any(|k| k.piece == piece)
                || c.supporters.iter().any(|s| s.piece == piece)
        })
    }
}

/// `apply` for the charge events: the only code that changes [`ChargeState`].
pub fn apply_charge_event(state: &mut BattleState, event: &Event) {
    let turn = state.turn;
    match event {
        Event::ChargeDeclared {
            target,
            phase,
            chargers,
        } => {
            state.charges.consolidation.clear();
            // CHG-05: a further charge on a unit already in combat joins that combat; its new
            // chargers get a response window of their own.
            if let Some(c) = state.charges.combat_mut(*target) {
                let contacts = c.contacts.clone();
                c.chargers
                    .retain(|k| contacts.iter().any(|x| x.piece == k.piece));
                c.chargers.extend(chargers.iter().cloned());
                c.window_open = true;
                return;
            }
            state.charges.combats.push(Combat {
                target: *target,
                attacker: chargers.first().map_or(turn.active, |k| k.piece.side()),
                phase: *phase,
                player_turn: turn.player_turn,
                chargers: chargers.clone(),
                contacts: Vec::new(),
                window_open: true,
                responses: Vec::new(),
                supporters: Vec::new(),
            });
        }
        Event::ChargeResponded {
            piece,
            target,
            response,
        } => {
            if let Some(c) = state.charges.combat_mut(*target) {
                c.responses.push(ResponseMark {
                    piece: *piece,
                    response: response.clone(),
                });
            }
        }
        Event::ResponseClosed { target } => {
            if let Some(c) = state.charges.combat_mut(*target) {
                c.window_open = false;
            }
        }
        Event::ChargeContact {
            piece,
            target,
            edge,
            to,
        } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.pose = Some(*to);
            }
            if let Some(c) = state.charges.combat_mut(*target) {
                c.contacts.push(Contact {
                    piece: *piece,
                    edge: *edge,
                });
            }
        }
        Event::Supported {
            piece,
            friend,
            target,
        } => {
            if let Some(c) = state.charges.combat_mut(*target) {
                c.supporters.push(SupportRec {
                    piece: *piece,
                    friend: *friend,
                });
            }
            state.charges.supports.push(SupportMark {
                piece: *piece,
                player_turn: turn.player_turn,
                phase: turn.phase,
            });
        }
        Event::Disordered { piece, until, .. } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.disordered_until = Some(*until);
            }
        }
        Event::Retreated { piece, to, .. } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.pose = Some(*to);
            }
        }
        Event::ChargeEnded {
            target,
            consolidate,
        } => {
            let pt = turn.player_turn;
            state.charges.fought.retain(|f| f.player_turn == pt);
            let pairs: Vec<Fought> = state
                .charges
                .combat(*target)
                .map(|c| {
                    c.contacts
                        .iter()
                        .map(|k| Fought {
                            charger: k.piece,
                            target: *target,
                            player_turn: pt,
                        })
                        .collect()
                })
                .unwrap_or_default();
            state.charges.fought.extend(pairs);
            state.charges.combats.retain(|c| c.target != *target);
            state.charges.consolidation.clear();
            for (k, piece) in consolidate.iter().enumerate() {
                state.charges.consolidation.push(ConsolidateRight {
                    piece: *piece,
                    target: *target,
                    player_turn: turn.player_turn,
                    phase: turn.phase,
                    order: u32::try_from(k).unwrap_or(u32::MAX),
                });
            }
        }
        Event::Consolidated { piece, to, .. } => {
            if let Some(p) = state.pieces.get_mut(piece) {
                p.pose = Some(*to);
            }
            // CHG-24: the attacker moves first; those before this unit have passed.
            let order = state
                .charges
                .consolidation
                .iter()
                .find(|r| r.piece == *piece)
                .map(|r| r.order);
            if let Some(o) = order {
                state.charges.consolidation.retain(|r| r.order > o);
            } else {
                // ENG-03, ENG-05: engineers through the gap they made (their one consolidation).
                super::engineering::note_gap_consolidated(state, *piece);
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Small helpers.

// err, view, record and record_all: the firing module's, one of each for the engine.
use super::firing::{err, record, record_all, view};

fn add(p: Point, v: Point, k: f64) -> Point {
    Point::new(p.x + v.x * k, p.y + v.y * k)
}

fn sub(a: Point, b: Point) -> Point {
    Point::new(a.x - b.x, a.y - b.y)
}

fn dot(a: Point, b: Point) -> f64 {
    a.x * b.x + a.y * b.y
}

/// Rotates `p` about `c` clockwise by `deg` (the facing convention).
fn rotate(p: Point, c: Point, deg: f64) -> Point {
    let (s, co) = deg.to_radians().sin_cos();
    let d = sub(p, c);
    Point::new(c.x + d.x * co + d.y * s, c.y - d.x * s + d.y * co)
}

fn m(rule: &str, label: impl Into<String>, value: i32) -> Modifier {
    Modifier {
        rule: rule.to_string(),
        label: label.into(),
        value,
    }
}

fn i(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn point_segment_distance(p: Point, a: Point, b: Point) -> f64 {
    let ab = sub(b, a);
    let len2 = dot(ab, ab);
    let t = if len2 > 1e-12 {
        (dot(sub(p, a), ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(add(a, ab, t)).0
}

fn corners(fp: &Footprint) -> Vec<Point> {
    fp.stands.iter().flat_map(|s| s.corners()).collect()
}

fn hull(points: &[Point]) -> Polygon<f64> {
    let mp: MultiPoint<f64> = points
        .iter()
        .map(|p| geo::Point::new(p.x, p.y))
        .collect::<Vec<_>>()
        .into();
    mp.convex_hull()
}

/// The polygon pulled in towards its centre by `by` cm at every vertex, so that shapes which
/// only touch it do not count as meeting it.
fn shrunk(poly: &Polygon<f64>, by: f64) -> Polygon<f64> {
    let pts: Vec<Point> = poly
        .exterior()
        .points()
        .map(|p| Point::new(p.x(), p.y()))
        .collect();
    if pts.is_empty() {
        return poly.clone();
    }
    let n = pts.len() as f64;
    let c = Point::new(
        pts.iter().map(|p| p.x).sum::<f64>() / n,
        pts.iter().map(|p| p.y).sum::<f64>() / n,
    );
    let inner: Vec<geo::Coord<f64>> = pts
        .iter()
        .map(|p| {
            let d = p.distance(c).0;
            let k = if d > by { (d - by) / d } else { 0.0 };
            geo::Coord {
                x: c.x + (p.x - c.x) * k,
                y: c.y + (p.y - c.y) * k,
            }
        })
        .collect();
    Polygon::new(LineString::from(inner), Vec::new())
}

/// Do two footprints overlap (more than touch)?
fn overlaps(a: &Footprint, b: &Footprint) -> bool {
    // Each shrunk base lies inside its footprint's box and each other base inside the other's:
    // apart boxes settle it before any base is laid out.
    if !rects_overlap(&a.bounding_rect(), &b.bounding_rect()) {
        return false;
    }
    let pa: Vec<Polygon<f64>> = a
        .stands
        .iter()
        .map(|s| shrunk(&s.polygon(), 0.01))
        .collect();
    b.stands.iter().any(|t| {
        let q = t.polygon();
        pa.iter().any(|p| p.intersects(&q))
    })
}

/// MOVE-08, CMD-25: the enemy command units a forced or charge move runs through or into; the
/// command rules resolve their fate (`command::overrun_events`: join a friend or be lost).
fn overruns_of(outcome: &ForcedOutcome, into: &mut Vec<PieceId>) {
    if let ForcedOutcome::Moved { overruns, .. } | ForcedOutcome::StoppedByFriend { overruns, .. } =
        outcome
    {
        for o in overruns {
            if !into.contains(o) {
                into.push(*o);
            }
        }
    }
}

fn with_pose(p: &PieceState, pose: Pose) -> PieceState {
    let mut q = p.clone();
    q.pose = Some(pose);
    q
}

fn row_arm(ctx: &Ctx, p: &PieceState) -> Option<Arm> {
    ctx.row(p).map(|r| r.arm)
}

fn is_artillery(ctx: &Ctx, p: &PieceState) -> bool {
    row_arm(ctx, p) == Some(Arm::Artillery)
}

/// The scenario's unit record of a piece (designations such as lancers, COL-13).
fn scenario_unit<'a>(ctx: &Ctx<'a>, p: &PieceState) -> Option<&'a crate::model::Unit> {
    let PieceId::Unit { side, unit } = p.id else {
        return None;
    };
    ctx.scenario.sides.get(side)?.unit(unit)
}

// ---------------------------------------------------------------------------------------------
// Edges and contact (CHG-04, CHG-10).

/// CHG-10 ruling: the outline edges of a piece, each as a [`FrontEdge`] facing outwards. A
/// square's four faces; otherwise the sides of the stands' bounding box in the piece's frame.
pub fn edges_of(ctx: &Ctx, p: &PieceState) -> Vec<(Edge, FrontEdge)> {
    let Some(fp) = footprint_of(ctx, p) else {
        return Vec::new();
    };
    if p.formation == Some(Formation::Square) {
        return fp
            .front_edges()
            .iter()
            .map(|e| {
                let d = normalize_deg(e.facing_deg - fp.facing_deg);
                let edge = if d.abs() < 45.0 {
                    Edge::Front
                } else if d.abs() > 135.0 {
                    Edge::Rear
                } else if d > 0.0 {
                    Edge::Right
                } else {
                    Edge::Left
                };
                (edge, *e)
            })
            .collect();
    }
    let f = heading(fp.facing_deg);
    let r = right_of(fp.facing_deg);
    let (mut smin, mut smax, mut tmin, mut tmax) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for c in corners(&fp) {
        let d = sub(c, fp.at);
        smin = smin.min(dot(d, r));
        smax = smax.max(dot(d, r));
        tmin = tmin.min(dot(d, f));
        tmax = tmax.max(dot(d, f));
    }
    let pt = |s: f64, t: f64| add(add(fp.at, r, s), f, t);
    let face = fp.facing_deg;
    vec![
        (
            Edge::Front,
            FrontEdge {
                left: pt(smin, tmax),
                right: pt(smax, tmax),
                facing_deg: face.rem_euclid(360.0),
            },
        ),
        (
            Edge::Right,
            FrontEdge {
                left: pt(smax, tmax),
                right: pt(smax, tmin),
                facing_deg: (face + 90.0).rem_euclid(360.0),
            },
        ),
        (
            Edge::Rear,
            FrontEdge {
                left: pt(smax, tmin),
                right: pt(smin, tmin),
                facing_deg: (face + 180.0).rem_euclid(360.0),
            },
        ),
        (
            Edge::Left,
            FrontEdge {
                left: pt(smin, tmin),
                right: pt(smin, tmax),
                facing_deg: (face - 90.0).rem_euclid(360.0),
            },
        ),
    ]
}

/// Is contact on `edge` frontal for CHG-11/CHG-14/CHG-17? A square has no flank or rear
/// (MOVE-15).
fn frontal(target: &PieceState, edge: Edge) -> bool {
    edge == Edge::Front || target.formation == Some(Formation::Square)
}

/// CHG-10, INIT-07: the nearest base edge of the target that the charger faces (its centre lies
/// outside that edge) and that no other charger has taken.
fn nearest_edge(
    ctx: &Ctx,
    charger: &PieceState,
    target: &PieceState,
    taken: &[Edge],
) -> Option<(Edge, FrontEdge)> {
    let cfp = footprint_of(ctx, charger)?;
    let from = charger.pose?.at;
    let centre = cfp.centroid();
    // Ties (the nearest point is a corner two edges share) go to the edge that faces the
    // charger most squarely.
    let mut best: Option<(f64, f64, Edge, FrontEdge)> = None;
    for (edge, fe) in edges_of(ctx, target) {
        let ahead = fe.local(centre).1;
        if taken.contains(&edge) || ahead <= 1e-6 {
            continue;
        }
        let d = point_segment_distance(from, fe.left, fe.right);
        let better = best
            .is_none_or(|(b, t, _, _)| d < b - 1e-6 || ((d - b).abs() <= 1e-6 && ahead > t + 1e-9));
        if better {
            best = Some((d, ahead, edge, fe));
        }
    }
    best.map(|(_, _, e, fe)| (e, fe))
}

/// CHG-04 (b): flush against the edge, centred on it, facing it.
fn contact_pose(fe: &FrontEdge) -> Pose {
    Pose {
        at: fe.midpoint(),
        facing_deg: (fe.facing_deg + 180.0).rem_euclid(360.0),
    }
}

/// CHG-04 (b): the contact pose on an edge — centred where possible, otherwise shifted along
/// the edge as little as needed (0.25 cm steps) so that the charger overlaps nobody and touches
/// no enemy but the target. If no shift helps, the centred pose (the checks then refuse it).
fn contact_for(
    ctx: &Ctx,
    p: &PieceState,
    target: PieceId,
    fe: &FrontEdge,
    ignore: &[PieceId],
) -> Pose {
    let centred = contact_pose(fe);
    let Some(cfp) = footprint_of(ctx, &with_pose(p, centred)) else {
        return centred;
    };
    let ms = measure_scale(ctx);
    let reach = (fe.width() + cfp.frontage()) / 2.0 - 0.5 * ms;
    let along = right_of(fe.facing_deg);
    let others: Vec<(PieceId, Footprint, Rect)> = ctx
        .state
        .pieces
        .values()
        .filter(|q| q.id != p.id && q.id != target && q.on_table() && !ignore.contains(&q.id))
        .filter_map(|q| {
            footprint_of(ctx, q).map(|f| {
                let r = f.bounding_rect();
                (q.id, f, r)
            })
        })
        .collect();
    // A unit whose box stands clear of the pose's box by more than the contact tolerance
    // neither overlaps it nor touches it (bases are never nearer than their boxes, and both
    // figures are rounded far less than the slack): it is passed without measuring.
    let clear = CONTACT_TOLERANCE_CM * ms + 1e-9;
    let free = |pose: Pose| -> bool {
        let Some(f) = footprint_of(ctx, &with_pose(p, pose)) else {
            return false;
        };
        let fr = f.bounding_rect();
        others.iter().all(|(id, q, qr)| {
            rect_gap(&fr, qr) > clear
                || (!overlaps(&f, q)
                    && (id.side() == p.id.side()
                        || id.is_command()
                        || edge_distance(&f, q) > CONTACT_TOLERANCE_CM * ms))
        })
    };
    let step = 0.25 * ms;
    let mut k = 0.0;
    while k <= reach + 1e-9 {
        for sign in [1.0, -1.0] {
            let pose = Pose {
                at: add(centred.at, along, sign * k),
                facing_deg: centred.facing_deg,
            };
            if free(pose) {
                return pose;
            }
            if k == 0.0 {
                break;
            }
        }
        k += step;
    }
    centred
}

/// CHG-04 (a): the free pivot about the footprint's centre to a new facing.
fn pivoted(fp: &Footprint, from: Pose, facing_deg: f64) -> Pose {
    let delta = normalize_deg(facing_deg - from.facing_deg);
    Pose {
        at: rotate(from.at, fp.centroid(), delta),
        facing_deg,
    }
}

// ---------------------------------------------------------------------------------------------
// Facts about units in charges.

/// Is the OPTIONAL saber charge in use in this battle (OPT-SABER-01)?
pub fn saber_in_use(ctx: &Ctx) -> bool {
    ctx.scenario
        .optional_rules
        .contains(&OptionalRule::SaberCharge)
}

/// OPT-SABER-01: a cavalry row, mounted or in its dismounted mode.
fn is_cavalry(ctx: &Ctx, p: &PieceState) -> bool {
    ctx.row(p)
        .is_some_and(|r| r.arm == Arm::Cavalry || r.role == RowRole::DismountedMode)
}

/// Men on foot: infantry, engineers, dismounted cavalry.
fn on_foot(ctx: &Ctx, p: &PieceState) -> bool {
    ctx.row(p).is_some_and(|r| {
        r.role == RowRole::DismountedMode || matches!(r.arm, Arm::Infantry | Arm::Engineers)
    })
}

/// OPT-SABER-03 (c): poor troops — the row's grade, the unit's bought grade (ACW Poor) or the
/// list's poor note.
pub fn is_poor(ctx: &Ctx, p: &PieceState) -> bool {
    p.grade == crate::model::Grade::Poor
        || ctx
            .row(p)
            .is_some_and(|r| r.grade == crate::model::RowGrade::Poor)
        || ctx.has_effect(p, |e| matches!(e, RuleEffect::Poor))
}

/// OPT-SABER-03 (b) ruling: a foot row armed with rifled muskets or breech-loaders — every
/// Franco-Prussian foot row (FPW note 13 read as rifle-armed), and elsewhere the rows whose
/// name says rifle, rifled or breech-loading (ACW "Rifled/Breech Loading" rows and rifled
/// carbines, 18C American Riflemen, the Colonial rifle and breech-loader rows).
pub fn rifle_armed(list: &crate::model::ArmyList, row: &crate::model::TroopType) -> bool {
    let foot =
        row.role == RowRole::DismountedMode || matches!(row.arm, Arm::Infantry | Arm::Engineers);
    if !foot {
        return false;
    }
    if list.period == crate::model::Period::FrancoPrussian {
        return true;
    }
    let name = row.name.to_ascii_lowercase();
    name.contains("rifle") || name.contains("breech")
}

/// OPT-SABER-01: a unit that declared a saber charge fires no ranged weapon until that charge
/// is over (its combat fought).
pub fn check_no_saber_fire(ctx: &Ctx, piece: PieceId) -> Result<(), RuleError> {
    let saber = ctx
        .state
        .charges
        .combats
        .iter()
        .any(|c| c.chargers.iter().any(|k| k.piece == piece && k.saber));
    if saber && saber_in_use(ctx) {
        let name = ctx
            .state
            .piece(piece)
            .map_or(piece.to_string(), |p| p.name.clone());
        return Err(RuleError::new(
            "OPT-SABER-01",
            format!(
                "{name} has declared a saber charge and fires no ranged weapon until that charge \
                 is fought"
            ),
        ));
    }
    Ok(())
}

/// CHG-13: attack dice per stand in a charge, without the saber line (OPT-SABER-02 adds its +1
/// per stand as a modifier of its own, [`ChargeDiceSituation::saber`]).
pub fn charge_dice_per_stand(ctx: &Ctx, p: &PieceState) -> u32 {
    let Some(row) = ctx.row(p) else {
        return 1;
    };
    match row.arm {
        Arm::Cavalry if row.role != RowRole::DismountedMode => 3,
        Arm::Cavalry | Arm::Infantry | Arm::Engineers => 2,
        Arm::Artillery | Arm::Transport | Arm::Armour => 1,
    }
}

/// What the CHG-14/CHG-15 table needs to know about one unit in one round.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChargeDiceSituation {
    /// Stands that count (CHG-11, CHG-13 c).
    pub stands: u32,
    pub dice_per_stand: u32,
    /// CHG-14: +1, the unit is charging (first round; both sides in a counter-charge).
    pub charging: bool,
    /// CHG-14: −1, the unit is suppressed.
    pub suppressed: bool,
    /// CHG-14: −2, fighting to its own flank or rear.
    pub flank_or_rear: bool,
    /// CHG-15: +1 heavy cavalry while charging (Nap 13, 18C 22, FPW 17).
    pub heavy: bool,
    /// CHG-15: +1 lancers on the initial charge attack (ACW 13, Nap 11, FPW 15, 18C 20).
    pub lancers: bool,
    /// CHG-15: +1 "receives +1 attack die" (Nap 22), in every attack.
    pub extra_attack_die: bool,
    /// CHG-15 / CMD-21: command presence dice (`firing::presence_dice` over the side's units).
    pub presence_dice: u32,
    /// CHG-15 / FIRE-28: −2 disordered.
    pub disordered: bool,
    /// CHG-13 "with sabre" / OPT-SABER-02: +1 per stand, a saber-charging mounted cavalry unit
    /// in round 1 (not against a square, OPT-SABER-03 a).
    pub saber: bool,
    /// CHG-15 / OPT-SABER-03 (b): +1, rifle-armed foot charged by mounted cavalry.
    pub rifled: bool,
}

/// CHG-13, CHG-14, CHG-15 (with the FIRE-12 floor): one unit's dice in a charge round, and every
/// modifier that made them. Supporters' +1 is added to the side's pool separately.
pub fn charge_dice(s: &ChargeDiceSituation) -> AttackDice {
    let base = s.stands * s.dice_per_stand;
    let mut mods = vec![m(
        "CHG-13",
        format!(
            "{} stand{} × {} di{}",
            s.stands,
            if s.stands == 1 { "" } else { "s" },
            s.dice_per_stand,
            if s.dice_per_stand == 1 { "e" } else { "ce" }
        ),
        i(base),
    )];
    if s.charging {
        mods.push(m("CHG-14", "charging (first round)", 1));
    }
    if s.suppressed {
        mods.push(m("CHG-14", "suppressed", -1));
    }
    if s.flank_or_rear {
        mods.push(m("CHG-14", "fighting to its flank or rear", -2));
    }
    if s.saber {
        mods.push(m(
            "OPT-SABER-02",
            "saber charge: +1 die per stand (first round)",
            i(s.stands),
        ));
    }
    if s.rifled {
        mods.push(m(
            "OPT-SABER-03",
            "rifled muskets against charging mounted cavalry",
            1,
        ));
    }
    if s.heavy {
        mods.push(m("CHG-15", "heavy cavalry during the charge", 1));
    }
    if s.lancers {
        mods.push(m("CHG-15", "lancers on the initial charge attack", 1));
    }
    if s.extra_attack_die {
        mods.push(m("CHG-15", "+1 attack die (list note)", 1));
    }
    if s.presence_dice > 0 {
        mods.push(m("CMD-21", "command presence", i(s.presence_dice)));
    }
    if s.disordered {
        mods.push(m("FIRE-28", "disordered", -2));
    }
    let total: i32 = mods.iter().map(|x| x.value).sum();
    if total < 1 {
        mods.push(m(
            "FIRE-12",
            "a unit that attacks rolls at least 1 die",
            1 - total,
        ));
    }
    AttackDice {
        dice: u32::try_from(total.max(1)).unwrap_or(1),
        modifiers: mods,
    }
}

/// MOVE-18, CHG-16: one cover level better (open → soft, soft → hard; hard and full stay).
pub fn one_level_better(c: Cover) -> Cover {
    match c {
        Cover::Open => Cover::Soft,
        Cover::Soft | Cover::Hard => Cover::Hard,
        Cover::Full => Cover::Full,
    }
}

/// PIKE-01/02 ruling: pikes are a scenario flag on the unit.
fn pike(ctx: &Ctx, p: &PieceState) -> bool {
    scenario_unit(ctx, p).is_some_and(|u| u.pikes)
}

/// FIRE-28 (d): disorder (and FIRE-29 exhaustion for mounted cavalry) until the end of the
/// next player turn's initiative phase; the unit is placed in disordered formation (MOVE-19).
fn disorder_events(ctx: &Ctx, p: &PieceState) -> Vec<Event> {
    let mut v = vec![Event::Disordered {
        piece: p.id,
        until: ctx.state.turn.player_turn + 1,
        exhausted: is_mounted_cavalry(ctx, p),
    }];
    if let Some(f) = p.formation.filter(|f| *f != Formation::Disordered) {
        v.push(Event::FormationChanged {
            piece: p.id,
            from: Some(f),
            to: Some(Formation::Disordered),
        });
    }
    v
}

// ---------------------------------------------------------------------------------------------
// Declaring a charge.

/// SEQ-04: no phase ends while a combat is pending.
pub fn check_end_phase(ctx: &Ctx) -> Result<(), RuleError> {
    if let Some(c) = ctx.state.charges.combats.first() {
        let name = ctx
            .state
            .piece(c.target)
            .map_or(c.target.to_string(), |p| p.name.clone());
        return Err(RuleError::new(
            "SEQ-04",
            format!(
                "the charge on {name} is still pending: {} it first",
                if c.window_open {
                    "close its response window and resolve"
                } else {
                    "resolve"
                }
            ),
        ));
    }
    Ok(())
}

/// SEQ-04 (3), CHG-01, CHG-05, CHG-20: the check the Charge phase opens (and ends) with. Every
/// combat is fought before the Command phase may end (`check_end_phase`), so none is left here;
/// but opposing units may still stand in base contact without a resolved combat (a retreat
/// stopped short against a friend while touching another enemy, a move that kept a contact it
/// started with, a deployment). A charger and target whose combat was resolved this player turn
/// ([`Fought`]) are not made to fight again. Ruling: any other such contact is a combat, fought
/// in this Charge phase like the further rounds of CHG-20 — for
/// each inactive unit touched (in id order), one combat whose "chargers" are the active side's
/// units touching it (each on the edge it touches), already in contact, with no response
/// window; nobody counts as charging and everyone is in the open (CHG-16 later rounds). An
/// active unit touching two enemy units is in two combats (CHG-05). The Charge phase does not
/// end until they are resolved (`check_end_phase`); an `EndPhase` that finds new ones opens
/// them instead of ending the phase (`battle::resolve_end_phase`).
pub fn contacts_without_combat(ctx: &Ctx) -> Vec<Event> {
    let t = ctx.state.turn;
    let tol = CONTACT_TOLERANCE_CM * measure_scale(ctx) + 1e-6;
    let free = |p: &PieceState| {
        !p.id.is_command() && p.on_table() && ctx.state.charges.combat_of(p.id).is_none()
    };
    // With each footprint its bounding box: the gap between boxes is a lower bound on the
    // edge distance, so most pairs are settled without measuring bases. The battle's sight
    // index has every box already (`footprint_of`'s, of this very state); a footprint is laid
    // out only for a piece some pair's boxes do not settle.
    let index = ctx.sight.map(|_| sight_index(ctx));
    let boxed = |p: &'_ PieceState| -> Option<(OnceCell<Option<Footprint>>, crate::geom::Rect)> {
        if let Some((_, r)) = index.as_ref().and_then(|i| i.base_hull(p.id)) {
            return Some((OnceCell::new(), r));
        }
        footprint_of(ctx, p).map(|fp| {
            let r = fp.bounding_rect();
            (OnceCell::from(Some(fp)), r)
        })
    };
    let actives: Vec<(&PieceState, OnceCell<Option<Footprint>>, crate::geom::Rect)> = ctx
        .state
        .pieces
        .values()
        .filter(|p| p.id.side() == t.active && free(p))
        .filter_map(|p| boxed(p).map(|(fp, r)| (p, fp, r)))
        .collect();
    let boxes =
        crate::geom::index::BoxIndex::new(actives.iter().enumerate().map(|(k, a)| (a.2, k)));
    let mut events = Vec::new();
    for tp in ctx.state.pieces.values() {
        if tp.id.side() == t.active || !free(tp) {
            continue;
        }
        let Some((tfp, trect)) = boxed(tp) else {
            continue;
        };
        let fought = |a: PieceId| {
            ctx.state
                .charges
                .fought
                .iter()
                .any(|f| f.player_turn == t.player_turn && f.charger == a && f.target == tp.id)
        };
        // The boxes near this one (a superset of those within `tol`), in id order.
        let mut close: Vec<usize> = boxes.query_within(&trect, tol + 1e-6).collect();
        close.sort_unstable();
        let near: Vec<&(&PieceState, OnceCell<Option<Footprint>>, crate::geom::Rect)> = close
            .into_iter()
            .filter_map(|k| actives.get(k))
            .filter(|(a, _, _)| !fought(a.id))
            .filter(|(_, _, arect)| crate::geom::segment::rect_gap(arect, &trect) <= tol)
            .collect();
        if near.is_empty() {
            continue;
        }
        let Some(tfp) = tfp.get_or_init(|| footprint_of(ctx, tp)).as_ref() else {
            continue;
        };
        let plans: Vec<ChargerPlan> = near
            .into_iter()
            .filter_map(|(a, afp, _)| {
                let afp = afp.get_or_init(|| footprint_of(ctx, a)).as_ref()?;
                (edge_distance(afp, tfp) <= tol).then_some((a, afp))
            })
            .filter_map(|(a, afp)| {
                let pose = a.pose?;
                let edge = touched_edge(ctx, afp, tp);
                Some(ChargerPlan {
                    piece: a.id,
                    edge,
                    start: pose,
                    placed: pose,
                    distance_cm: 0.0,
                    saber: false,
                })
            })
            .collect();
        if plans.is_empty() {
            continue;
        }
        events.push(Event::ChargeDeclared {
            target: tp.id,
            phase: t.phase,
            chargers: plans.clone(),
        });
        events.push(Event::ResponseClosed { target: tp.id });
        for k in plans {
            events.push(Event::ChargeContact {
                piece: k.piece,
                target: tp.id,
                edge: k.edge,
                to: k.start,
            });
        }
    }
    events
}

/// CHG-10 ruling, for a contact already made: the edge of `target` along which the toucher's
/// bases lie the longest (sampled every twentieth of each edge); ties go to the earlier edge in
/// `edges_of` order (the front first).
fn touched_edge(ctx: &Ctx, toucher: &Footprint, target: &PieceState) -> Edge {
    let slack = CONTACT_TOLERANCE_CM * measure_scale(ctx) + 1e-6;
    let mut best: Option<(usize, Edge)> = None;
    for (edge, fe) in edges_of(ctx, target) {
        let along = sub(fe.right, fe.left);
        let n = (0..=20)
            .filter(|k| {
                let p = add(fe.left, along, f64::from(*k) / 20.0);
                toucher.stands.iter().any(|s| s.covers(p, slack))
            })
            .count();
        if best.is_none_or(|(b, _)| n > b) {
            best = Some((n, edge));
        }
    }
    best.map_or(Edge::Front, |(_, e)| e)
}

/// CHG-05: a charger whose contact pose also touches `q` (an enemy unit, not its target)
/// charges `q` too, as a separate charge. Refused when that contact breaks a contact rule:
/// the edge of `q` it touches is held by a charger already (CHG-10), cavalry on the front of
/// pikes (PIKE-01); reported as unsupported when `q` only supports or charges in a pending
/// combat.
fn check_second_contact(
    ctx: &Ctx,
    p: &PieceState,
    contact_fp: &Footprint,
    q: &PieceState,
) -> Result<(), ActionError> {
    let existing = ctx.state.charges.combat(q.id);
    if existing.is_none() && ctx.state.charges.combat_of(q.id).is_some() {
        return Err(ActionError::Unsupported {
            rule: "CHG-05",
            what: format!(
                "a charge by {} that would also contact {}, which supports an unresolved combat",
                p.name, q.name
            ),
        });
    }
    let edge = touched_edge(ctx, contact_fp, q);
    if existing.is_some_and(|c| c.contacts.iter().any(|k| k.edge == edge)) {
        return Err(err(
            "CHG-10",
            format!(
                "{} would also touch the {} of {}, which another charger holds already",
                p.name,
                edge.label(),
                q.name
            ),
        ));
    }
    if is_mounted_cavalry(ctx, p) && pike(ctx, q) && frontal(q, edge) {
        return Err(err(
            "PIKE-01",
            format!(
                "{} would also touch the front of {}, a pike unit",
                p.name, q.name
            ),
        ));
    }
    Ok(())
}

/// CHG-05: the further charges a charger makes by touching, at its contact pose `to`, enemy
/// units other than its target: for each (in id order) the charger joins the combat on that
/// unit, or opens one, already in contact on the edge it touches (`touched_edge`). Ruling: that
/// unit gets no response window of its own (it could respond to the first charge as a unit
/// within 10 or 5 cm of the charged one, INIT-12); the charger counts as charging in round 1
/// (a separate charge); the active player picks the order in which the combats are fought.
fn second_contacts(ctx: &Ctx, plan: &ChargerPlan, target: PieceId, to: Pose) -> Vec<Event> {
    let Some(p) = ctx.state.piece(plan.piece) else {
        return Vec::new();
    };
    let Some(fp) = footprint_of(ctx, &with_pose(p, to)) else {
        return Vec::new();
    };
    let tol = CONTACT_TOLERANCE_CM * measure_scale(ctx) + 1e-6;
    let mut events = Vec::new();
    for q in ctx.state.pieces.values() {
        if q.id == target || q.id.side() == p.id.side() || q.id.is_command() || !q.on_table() {
            continue;
        }
        let Some(qfp) = footprint_of(ctx, q) else {
            continue;
        };
        if edge_distance(&fp, &qfp) > tol {
            continue;
        }
        let edge = touched_edge(ctx, &fp, q);
        events.push(Event::ChargeDeclared {
            target: q.id,
            phase: ctx.state.turn.phase,
            chargers: vec![ChargerPlan {
                piece: p.id,
                edge,
                start: plan.start,
                placed: to,
                distance_cm: plan.distance_cm,
                saber: plan.saber,
            }],
        });
        events.push(Event::ResponseClosed { target: q.id });
        events.push(Event::ChargeContact {
            piece: p.id,
            target: q.id,
            edge,
            to,
        });
        // OPT-PRONE-01 ruling: contacted, it stands up.
        events.extend(super::prone::stand_up_on_contact(ctx, q.id));
    }
    events
}

/// CHG-01, INIT-03: a unit in an unresolved combat (charger, charged unit or supporter) takes
/// no other action until the combat is fought; `battle::resolve` asks this for moves, deploys,
/// limbering and fire.
pub fn check_not_engaged(ctx: &Ctx, piece: PieceId) -> Result<(), RuleError> {
    if ctx.state.charges.combat_of(piece).is_some() {
        let name = ctx
            .state
            .piece(piece)
            .map_or(piece.to_string(), |p| p.name.clone());
        return Err(RuleError::new(
            "INIT-03",
            format!("{name} is in an unresolved combat; it is fought to a finish first (CHG-01)"),
        ));
    }
    Ok(())
}

fn check_no_open_window(ctx: &Ctx) -> Result<(), ActionError> {
    if let Some(c) = ctx.state.charges.combats.iter().find(|c| c.window_open) {
        return Err(err(
            "INIT-09",
            format!(
                "the inactive side is still responding to the charge on {}; close that response first",
                c.target
            ),
        ));
    }
    Ok(())
}

/// CHG-02, CHG-03, CHG-06, INIT-03, INIT-07, INIT-10, MOVE-19, PIKE-01: may this unit charge
/// this target at all (before geometry)?
fn check_charger(
    ctx: &Ctx,
    sight: &SightIndex,
    p: &PieceState,
    target: &PieceState,
) -> Result<(), ActionError> {
    if p.id.is_command() {
        return Err(err(
            "INIT-10",
            format!("{} is a command unit; command units never charge", p.name),
        ));
    }
    check_may_act(ctx, p)?;
    let Some(row) = ctx.row(p) else {
        return Err(err("COL-04", format!("{} has no troop row", p.name)));
    };
    if matches!(row.arm, Arm::Artillery | Arm::Transport) || row.role == RowRole::Limber {
        return Err(err(
            "INIT-10",
            format!(
                "{} is artillery or transport; they never start a charge",
                p.name
            ),
        ));
    }
    if ctx.state.charges.combat_of(p.id).is_some() {
        return Err(err(
            "INIT-03",
            format!("{} is already in an unresolved combat", p.name),
        ));
    }
    if p.suppressed_at.is_some() {
        return Err(err(
            "CHG-02",
            format!("{} is suppressed and may not charge", p.name),
        ));
    }
    // OPT-PRONE-02: a charge is a move.
    super::prone::check_may_move(ctx, p)?;
    if is_disordered(ctx.state, p) || p.formation == Some(Formation::Disordered) {
        return Err(err(
            "CHG-02",
            format!(
                "{} is disordered and may not charge (FIRE-28, MOVE-19)",
                p.name
            ),
        ));
    }
    let attack_column_only =
        ctx.has_effect(p, |e| matches!(e, RuleEffect::MustChargeInAttackColumn));
    match p.formation {
        Some(Formation::AttackColumn) => {}
        Some(Formation::Line) if !attack_column_only => {}
        Some(Formation::Line) => {
            return Err(err(
                "CHG-03",
                format!(
                "{} must charge in attack column (list note: must use attack column in a charge)",
                p.name
            ),
            ))
        }
        other => {
            return Err(err(
                "CHG-03",
                format!(
                    "{} is in {}; charging units must be in line or attack column",
                    p.name,
                    other.map_or("no formation", Formation::label)
                ),
            ))
        }
    }
    let s = sight.sight(p.id, target.id);
    if !s.visible {
        return Err(RuleError::new(s.rule, s.detail).into());
    }
    let cavalry = is_mounted_cavalry(ctx, p);
    if cavalry
        && target.formation == Some(Formation::Square)
        && ctx.has_effect(p, |e| matches!(e, RuleEffect::Irregular))
    {
        return Err(err(
            "CHG-06",
            format!(
                "{} is irregular cavalry and may not charge a square (MOVE-18)",
                p.name
            ),
        ));
    }
    if ctx.state.turn.phase == Phase::Initiative {
        if ctx.has_effect(p, |e| matches!(e, RuleEffect::NoInitiativeCharge)) {
            return Err(err(
                "INIT-10",
                format!("{} may not charge on initiative", p.name),
            ));
        }
        let ms = measure_scale(ctx);
        let candidates: Vec<(PieceId, f64)> = sight
            .visible_enemies(p.id)
            .into_iter()
            .filter(|(id, _)| !id.is_command())
            .collect();
        let nearest = candidates.first().map(|(_, d)| *d);
        let ok = nearest.is_some_and(|d| {
            d <= INITIATIVE_CM * ms + 1e-9
                && candidates
                    .iter()
                    .any(|(id, dd)| *id == target.id && *dd <= d + 1e-9)
        });
        if !ok {
            return Err(err(
                "INIT-07",
                format!(
                    "on initiative {} may charge only its nearest visible enemy within {} cm; {} is not it",
                    p.name,
                    INITIATIVE_CM * ms,
                    target.name
                ),
            ));
        }
    }
    Ok(())
}

/// CHG-06: crossing an obstacle (linear terrain, shallow water, a field defence) is allowed only
/// if the charger starts in base contact with it or the target is in base contact with it.
fn check_obstacles(
    ctx: &Ctx,
    charger: &PieceState,
    cfp: &Footprint,
    target: &PieceState,
    tfp: &Footprint,
) -> Result<(), ActionError> {
    let tol = CONTACT_TOLERANCE_CM * measure_scale(ctx);
    let path = [cfp.centroid(), tfp.centroid()];
    let touches =
        |shape: &Shape| shape_distance(shape, cfp) <= tol || shape_distance(shape, tfp) <= tol;
    for c in path_crossings(&ctx.scenario.terrain, &path) {
        if !matches!(c.kind, TerrainKind::Linear | TerrainKind::ShallowWet) {
            continue;
        }
        let Some(f) = ctx.scenario.terrain.iter().find(|f| f.id == c.feature) else {
            continue;
        };
        if !touches(&Shape::of(&f.geometry)) {
            return Err(err(
                "CHG-06",
                format!(
                    "{} would charge across {}; it may only if it starts in base contact with it or {} touches it",
                    charger.name, f.name, target.name
                ),
            ));
        }
    }
    let seg = Segment::new(path[0], path[1]);
    for side in &ctx.scenario.sides {
        for d in &side.field_defenses {
            if matches!(d.kind, DefenseKind::Trench | DefenseKind::DugOut) {
                continue;
            }
            let line: LineString<f64> =
                d.at.iter()
                    .map(|p| geo::Coord { x: p.x, y: p.y })
                    .collect::<Vec<_>>()
                    .into();
            if !segment_meets_polyline(&line, &seg) {
                continue;
            }
            let shape = Shape::Line(line);
            if !touches(&shape) {
                return Err(err(
                    "CHG-06",
                    format!(
                        "{} would charge across a field defence; it may only if it starts in base contact with it or {} touches it",
                        charger.name, target.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn shape_distance(shape: &Shape, fp: &Footprint) -> f64 {
    use crate::geom::segment::{footprint_polygon_distance, footprint_polyline_distance};
    match shape {
        Shape::Line(l) => footprint_polyline_distance(fp, l),
        Shape::Area(p) => footprint_polygon_distance(fp, p),
        Shape::Strips(v) => v
            .iter()
            .map(|p| footprint_polygon_distance(fp, p))
            .fold(f64::INFINITY, f64::min),
    }
}

/// CHG-10, INIT-08: the swept path may not enter a gap narrower than 5 cm between two enemy
/// units, or between an enemy unit and impassable terrain (the part of it beside the unit).
fn check_gaps(ctx: &Ctx, charger: &PieceState, swept: &Polygon<f64>) -> Result<(), ActionError> {
    let ms = measure_scale(ctx);
    let inner = shrunk(swept, 0.01 * ms);
    // Cheap first tests, each exact, so every pair they set aside is one the full test would
    // have passed too and the answer (and which gap is named) is unchanged: a hull meets the
    // swept path only if its box (the box of its points) meets the path's box; two shapes are
    // never nearer than their boxes' gap, and both figures are rounded far less than
    // `BOX_SLACK`.
    const BOX_SLACK: f64 = 1e-9;
    let inner_rect = crate::geom::footprint::polygon_rect(&inner);
    let may_meet = |r: &Rect| inner_rect.is_none_or(|ir| rects_overlap(r, &ir));
    let enemies: Vec<(&PieceState, Footprint, Rect)> = ctx
        .state
        .pieces
        .values()
        .filter(|q| q.id.side() != charger.id.side() && !q.id.is_command() && q.on_table())
        .filter_map(|q| {
            footprint_of(ctx, q).map(|fp| {
                let r = fp.bounding_rect();
                (q, fp, r)
            })
        })
        .collect();
    // The ground a gap is measured against: impassable ground and deep water as the charger's
    // own terrain map has them, with the roads, bridges and fords across cut out (the way
    // across is no wall, TERR-06, TERR-07); the map is shared through the battle's memo.
    let map = super::terrain::TerrainMap::shared_around(ctx, mover_of(ctx, charger), None);
    let walls: Vec<&super::terrain::Patch> = map
        .patches
        .iter()
        .filter(|p| matches!(p.going, Going::Impassable { .. }))
        .filter(|p| match p.source {
            Source::Feature(id) => ctx.scenario.terrain.iter().any(|t| {
                t.id == id && matches!(t.kind, TerrainKind::Impassable | TerrainKind::DeepWet)
            }),
            Source::Defense { .. } => false,
        })
        .collect();
    for (k, (a, afp, ar)) in enemies.iter().enumerate() {
        for (b, bfp, br) in enemies.iter().skip(k + 1) {
            if !may_meet(&union_rect(ar, br)) || rect_gap(ar, br) > GAP_CM * ms + BOX_SLACK {
                continue;
            }
            if edge_distance(afp, bfp) >= GAP_CM * ms {
                continue;
            }
            let mut pts = corners(afp);
            pts.extend(corners(bfp));
            if inner.intersects(&hull(&pts)) {
                return Err(err(
                    "CHG-10",
                    format!(
                        "{} would enter the gap between {} and {}, narrower than {} cm",
                        charger.name,
                        a.name,
                        b.name,
                        GAP_CM * ms
                    ),
                ));
            }
        }
        // The gap is the ground between the unit and a wall within the gap's width of the
        // unit: each piece of the wall there, hulled with the unit's corners. Hulling the
        // whole feature would close off everything between the unit and the far end of a long
        // river.
        let reach = GAP_CM * ms;
        let near = ar.grown(reach);
        if !may_meet(&near) {
            continue;
        }
        for wall in &walls {
            if rect_gap(ar, &wall.rect) > reach + BOX_SLACK {
                continue;
            }
            if shape_distance(&wall.shape, afp) >= reach {
                continue;
            }
            for piece in pieces_within(&wall.shape, &near) {
                let mut pts = corners(afp);
                pts.extend(piece);
                if inner.intersects(&hull(&pts)) {
                    return Err(err(
                        "CHG-10",
                        format!(
                            "{} would enter the gap between {} and {}, narrower than {} cm",
                            charger.name, a.name, wall.name, reach
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The points of each part of `shape` inside the box `r` (the box's own corners where it
/// cuts an area).
fn pieces_within(shape: &Shape, r: &Rect) -> Vec<Vec<Point>> {
    use geo::BooleanOps;
    let boxed = geo::Rect::new(
        geo::Coord {
            x: r.min.x,
            y: r.min.y,
        },
        geo::Coord {
            x: r.max.x,
            y: r.max.y,
        },
    )
    .to_polygon();
    let of = |ls: &LineString<f64>| -> Vec<Point> {
        ls.points().map(|p| Point::new(p.x(), p.y())).collect()
    };
    let pieces: Vec<Vec<Point>> = match shape {
        Shape::Area(a) => a
            .intersection(&boxed)
            .0
            .iter()
            .map(|p| of(p.exterior()))
            .collect(),
        Shape::Strips(v) => v
            .iter()
            .flat_map(|s| s.intersection(&boxed).0)
            .map(|p| of(p.exterior()))
            .collect(),
        Shape::Line(l) => boxed
            .clip(&geo::MultiLineString::new(vec![l.clone()]), false)
            .0
            .iter()
            .map(of)
            .collect(),
    };
    pieces.into_iter().filter(|v| !v.is_empty()).collect()
}

/// The box holding both boxes.
fn union_rect(a: &Rect, b: &Rect) -> Rect {
    Rect {
        min: Point::new(a.min.x.min(b.min.x), a.min.y.min(b.min.y)),
        max: Point::new(a.max.x.max(b.max.x), a.max.y.max(b.max.y)),
    }
}

/// A charge as checked (CHG-01..CHG-10, INIT-07, INIT-08): each charger's edge, start, place
/// 2 cm short and distance, the moves that place them, and the command units run over on the
/// way (CMD-25).
#[derive(Debug, Clone, PartialEq)]
pub struct ChargeCheck {
    pub chargers: Vec<ChargerPlan>,
    pub moves: Vec<Event>,
    pub overrun: Vec<PieceId>,
}

/// CHG-01..CHG-10, INIT-03, INIT-07, INIT-08, PIKE-01, CMD-24: every check of a charge
/// declaration, made before anything is resolved (no dice, nothing changed). [`resolve_charge`]
/// starts with it, so the two cannot drift apart; the engine API offers the charges it accepts
/// (`api`). The orders gate (CMD-13, INIT-01) is `command::authorize`'s, as for every action.
pub fn check_charge(
    ctx: &Ctx,
    chargers: &[PieceId],
    target: PieceId,
) -> Result<ChargeCheck, ActionError> {
    check_charge_as(ctx, chargers, target, false)
}

/// [`check_charge`], declared as a saber charge or not (OPT-SABER-01).
pub fn check_charge_as(
    ctx: &Ctx,
    chargers: &[PieceId],
    target: PieceId,
    saber: bool,
) -> Result<ChargeCheck, ActionError> {
    let t = ctx.state.turn;
    if !matches!(t.phase, Phase::Initiative | Phase::Command) {
        return Err(err(
            "CHG-02",
            format!(
                "charges are made on initiative or under orders, not in the {} phase",
                t.phase.label()
            ),
        ));
    }
    if saber && !saber_in_use(ctx) {
        return Err(err(
            "OPT-SABER-01",
            "the saber charge is an optional rule this battle does not use; declare an \
             ordinary charge, or switch the option on in the scenario",
        ));
    }
    check_no_open_window(ctx)?;
    if chargers.is_empty() {
        return Err(err("CHG-02", "name at least one charging unit"));
    }
    for (k, c) in chargers.iter().enumerate() {
        if chargers.iter().skip(k + 1).any(|d| d == c) {
            return Err(err("CHG-02", format!("{c} is named twice")));
        }
    }
    if t.phase == Phase::Initiative && chargers.len() > 1 {
        return Err(err(
            "INIT-07",
            "on initiative each unit charges on its own, as its one initiative action",
        ));
    }
    let tp = ctx.piece(target)?;
    if tp.id.is_command() {
        return Err(err(
            "CMD-24",
            format!("{} is a command unit and may not be charged", tp.name),
        ));
    }
    let Some(tfp) = footprint_of(ctx, tp) else {
        return Err(err("GEN-12", format!("{} is not on the table", tp.name)));
    };
    // CHG-05 ruling: a further charge on the target of a pending combat joins that combat
    // (its chargers take edges no charger in contact holds, CHG-10); a unit that only
    // supports a pending combat is not charged while that combat is pending.
    let existing = ctx.state.charges.combat(target);
    if existing.is_none() && ctx.state.charges.combat_of(target).is_some() {
        return Err(ActionError::Unsupported {
            rule: "CHG-05",
            what: format!(
                "a charge on {}, which supports or charges in an unresolved combat",
                tp.name
            ),
        });
    }
    let ms = measure_scale(ctx);
    let sight = sight_index(ctx);
    let mut taken: Vec<Edge> = existing
        .map(|c| c.contacts.iter().map(|k| k.edge).collect())
        .unwrap_or_default();
    let mut plans = Vec::new();
    let mut moves = Vec::new();
    let mut overrun: Vec<PieceId> = Vec::new();
    for id in chargers {
        let p = ctx.piece(*id)?;
        if id.side() == tp.id.side() {
            return Err(err(
                "CHG-01",
                format!("{} may charge only an enemy unit", p.name),
            ));
        }
        check_charger(ctx, &sight, p, tp)?;
        if saber && !is_cavalry(ctx, p) {
            return Err(err(
                "OPT-SABER-01",
                format!(
                    "only cavalry may make a saber charge; {} is not cavalry, so charge it \
                     without the saber declaration",
                    p.name
                ),
            ));
        }
        let (Some(cfp), Some(start)) = (footprint_of(ctx, p), p.pose) else {
            return Err(err("SEQ-01", format!("{} is not on the table", p.name)));
        };
        let Some((edge, fe)) = nearest_edge(ctx, p, tp, &taken) else {
            return Err(err(
                "CHG-10",
                format!(
                    "{} has no free base edge of {} it can reach (each edge takes one charger)",
                    p.name, tp.name
                ),
            ));
        };
        if is_mounted_cavalry(ctx, p) && pike(ctx, tp) && frontal(tp, edge) {
            return Err(err(
                "PIKE-01",
                format!(
                    "cavalry may not charge the front of {}, a pike unit",
                    tp.name
                ),
            ));
        }
        let contact = contact_for(ctx, p, target, &fe, chargers);
        let turned = pivoted(&cfp, start, contact.facing_deg);
        let distance = turned.at.distance(contact.at).0;
        if distance > CHARGE_CM * ms + 1e-6 {
            return Err(err(
                "CHG-03",
                format!(
                    "{} would need {:.1} cm to reach the {} of {}; the charge distance is {} cm",
                    p.name,
                    distance,
                    edge.label(),
                    tp.name,
                    CHARGE_CM * ms
                ),
            ));
        }
        // INIT-09 step 2: 2 cm short, or where it is if it started closer.
        let placed = if distance <= PLACE_CM * ms + 1e-9 {
            start
        } else {
            Pose {
                at: add(contact.at, heading(fe.facing_deg), PLACE_CM * ms),
                facing_deg: contact.facing_deg,
            }
        };
        // CHG-04 (d), INIT-08: the path meets no unit and no impassable ground.
        let mut scratch = ctx.state.clone();
        if let Some(q) = scratch.pieces.get_mut(id) {
            q.pose = Some(turned);
        }
        let sctx = view(ctx, &scratch);
        let run = turned.at.distance(placed.at).0;
        if placed != start && run > 1e-9 {
            let bearing = bearing_deg(turned.at, placed.at);
            let outcome = forced_move(
                &sctx,
                *id,
                ForcedKind::Retreat,
                bearing,
                run,
                contact.facing_deg,
            )?;
            overruns_of(&outcome, &mut overrun);
            match outcome {
                ForcedOutcome::Moved { .. } => {}
                ForcedOutcome::StoppedByFriend { friend, .. } => {
                    let name = ctx
                        .state
                        .piece(friend)
                        .map_or(String::new(), |f| f.name.clone());
                    return Err(err(
                        "CHG-04",
                        format!("{}'s charge path runs into {}", p.name, name),
                    ));
                }
                ForcedOutcome::KnockedOut { reason, .. } => {
                    return Err(err(
                        "CHG-04",
                        format!("{}'s charge path is blocked: {}", p.name, reason),
                    ));
                }
            }
        }
        let tq = with_pose(p, turned);
        let Some(tfp_turned) = footprint_of(&sctx, &tq) else {
            continue;
        };
        let Some(contact_fp) = footprint_of(ctx, &with_pose(p, contact)) else {
            continue;
        };
        check_obstacles(ctx, p, &tfp_turned, tp, &tfp)?;
        let mut pts = corners(&tfp_turned);
        pts.extend(corners(&contact_fp));
        check_gaps(ctx, p, &hull(&pts))?;
        // The contact position itself: no overlap with anyone, and only the target touched.
        for q in ctx.state.pieces.values() {
            if q.id == *id || q.id == target || !q.on_table() || chargers.contains(&q.id) {
                continue;
            }
            let Some(qfp) = footprint_of(ctx, q) else {
                continue;
            };
            if overlaps(&contact_fp, &qfp) {
                return Err(err(
                    "CHG-10",
                    format!(
                        "{} has no room to contact the {} of {}: {} is in the way",
                        p.name,
                        edge.label(),
                        tp.name,
                        q.name
                    ),
                ));
            }
            if q.id.side() != id.side()
                && !q.id.is_command()
                && edge_distance(&contact_fp, &qfp) <= CONTACT_TOLERANCE_CM * ms
            {
                check_second_contact(ctx, p, &contact_fp, q)?;
            }
        }
        taken.push(edge);
        plans.push(ChargerPlan {
            piece: *id,
            edge,
            start,
            placed,
            distance_cm: (distance * 1000.0).round() / 1000.0,
            saber,
        });
        if placed != start {
            moves.push(Event::Moved {
                piece: *id,
                from: start,
                to: placed,
                path: Vec::new(),
                cost_cm: (start.at.distance(placed.at).0 * 1000.0).round() / 1000.0,
            });
        }
    }
    Ok(ChargeCheck {
        chargers: plans,
        moves,
        overrun,
    })
}

/// CHG-01..CHG-10, INIT-07..INIT-09 step 2: checks a charge ([`check_charge`]) and places the
/// chargers 2 cm short of their edges; the response window opens. No dice.
pub fn resolve_charge(
    ctx: &Ctx,
    chargers: &[PieceId],
    target: PieceId,
) -> Result<Vec<Event>, ActionError> {
    resolve_charge_as(ctx, chargers, target, false)
}

/// [`resolve_charge`], declared as a saber charge or not (OPT-SABER-01).
pub fn resolve_charge_as(
    ctx: &Ctx,
    chargers: &[PieceId],
    target: PieceId,
    saber: bool,
) -> Result<Vec<Event>, ActionError> {
    let ChargeCheck {
        chargers: plans,
        moves,
        overrun,
    } = check_charge_as(ctx, chargers, target, saber)?;
    let t = ctx.state.turn;
    let tp = ctx.piece(target)?;
    // SKIR-04 ruling: a charger whose line from the middle of its front edge where it started
    // to the target's centre crosses the target brigade's screen contacts the screen, which is removed
    // (SKIR-02); the screen has no depth of its own here, so the charge always has the distance
    // to go on to the unit behind.
    let screened = plans.iter().find_map(|plan| {
        let from = ctx
            .state
            .piece(plan.piece)
            .and_then(|p| footprint_of(ctx, &with_pose(p, plan.start)))
            .and_then(|fp| fp.front_edges().first().map(FrontEdge::midpoint))?;
        super::skirmish::screens_fire(ctx, tp, from)
    });
    let mut events = vec![Event::ChargeDeclared {
        target,
        phase: t.phase,
        chargers: plans,
    }];
    events.extend(moves);
    // CMD-25: command units run over on the way.
    events.extend(super::command::overrun_events(ctx, &overrun)?);
    if let Some(hq) = screened {
        events.extend(super::skirmish::removal_on_contact(ctx, tp.id.side(), hq));
    }
    Ok(events)
}

// ---------------------------------------------------------------------------------------------
// The response window (INIT-09 step 3, INIT-10, INIT-12..INIT-15, CHG-09, ART-04).

fn open_combat<'a>(ctx: &Ctx<'a>, target: PieceId) -> Result<&'a Combat, ActionError> {
    let Some(c) = ctx.state.charges.combat(target) else {
        return Err(err(
            "INIT-09",
            format!("there is no pending charge on {target}"),
        ));
    };
    Ok(c)
}

/// INIT-05 (c), (d), FIRE-29: may this unit evade at all?
fn check_can_evade(ctx: &Ctx, p: &PieceState) -> Result<(), ActionError> {
    // OPT-PRONE-02: an evade is a move.
    super::prone::check_may_move(ctx, p)?;
    if p.formation == Some(Formation::Square) {
        return Err(err(
            "INIT-05",
            format!("{} is in square and cannot evade (MOVE-15)", p.name),
        ));
    }
    if is_exhausted(ctx, p) {
        return Err(err(
            "FIRE-29",
            format!("{} is exhausted cavalry and cannot evade", p.name),
        ));
    }
    if ctx.has_effect(p, |e| matches!(e, RuleEffect::NeverMoves))
        || ctx
            .row(p)
            .is_some_and(|r| r.movement == crate::model::Move::Immobile)
    {
        return Err(err(
            "INIT-05",
            format!("{} cannot move, so it cannot evade", p.name),
        ));
    }
    Ok(())
}

/// INIT-05: the evade move itself, directly away from `away` (a point: the enemy's centre),
/// up to `allowance` cm under the normal terrain rules, ending facing `facing` (or as it
/// was). Told to (`limber`), guns limber first (INIT-05 a) and dismounted cavalry mount
/// (INIT-05 b), and either moves half its new Move.
fn evade_events(
    ctx: &Ctx,
    p: &PieceState,
    away_from: PieceId,
    away: Point,
    facing: Option<f64>,
    limber: bool,
) -> Result<Vec<Event>, ActionError> {
    let mut state = ctx.state.clone();
    let mut events = Vec::new();
    let gun = is_artillery(ctx, p) && !p.limbered;
    record(
        &mut state,
        &mut events,
        Event::Evaded {
            piece: p.id,
            away_from,
        },
    );
    let (allowance, manoeuvre_facing) = if limber && is_dismounted_cavalry(ctx, p) {
        let mounted = super::dismount::mount_event(ctx, p)?;
        record(&mut state, &mut events, mounted);
        let c = view(ctx, &state);
        let a = move_allowance(&c, p.id, Manoeuvre::Advance)?;
        (a.base_cm / 2.0, None)
    } else if gun && limber {
        record(&mut state, &mut events, Event::Limbered { piece: p.id });
        let c = view(ctx, &state);
        let a = move_allowance(&c, p.id, Manoeuvre::Advance)?;
        (a.base_cm / 2.0, None)
    } else if gun {
        // INIT-10: manhandled straight back, facing kept, at most the manhandle Move.
        let a = move_allowance(ctx, p.id, Manoeuvre::Manhandle)?;
        let Some(pose) = p.pose else {
            return Ok(events);
        };
        (a.base_cm, Some((pose.facing_deg + 180.0).rem_euclid(360.0)))
    } else {
        let a = move_allowance(ctx, p.id, Manoeuvre::Advance)?;
        (a.base_cm, None)
    };
    let c = view(ctx, &state);
    let me = c.piece(p.id)?;
    let (Some(fp), Some(from)) = (footprint_of(&c, me), me.pose) else {
        return Ok(events);
    };
    let centre = fp.centroid();
    let bearing = match manoeuvre_facing {
        Some(b) => b,
        None if away.distance(centre).0 > 1e-9 => bearing_deg(away, centre),
        None => (from.facing_deg + 180.0).rem_euclid(360.0),
    };
    let end_facing = match (manoeuvre_facing, facing) {
        (Some(_), _) => from.facing_deg,
        (None, Some(f)) => f,
        (None, None) => from.facing_deg,
    };
    let outcome = forced_move(&c, p.id, ForcedKind::Evade, bearing, allowance, end_facing)?;
    let mut overrun = Vec::new();
    overruns_of(&outcome, &mut overrun);
    let (to, dist) = match outcome {
        ForcedOutcome::Moved {
            to, distance_cm, ..
        }
        | ForcedOutcome::StoppedByFriend {
            to, distance_cm, ..
        } => (to, distance_cm),
        ForcedOutcome::KnockedOut { reason, .. } => {
            return Err(err(
                "INIT-05",
                format!("{} cannot evade that way: {}", p.name, reason),
            ))
        }
    };
    record(
        &mut state,
        &mut events,
        Event::Moved {
            piece: p.id,
            from,
            to,
            path: Vec::new(),
            cost_cm: dist,
        },
    );
    let es = super::command::overrun_events(&view(ctx, &state), &overrun)?;
    record_all(&mut state, &mut events, es);
    Ok(events)
}

/// INIT-10, INIT-12, INIT-15, CHG-09, ART-04: one unit of the inactive side responds to the
/// charge on `target`.
pub fn resolve_respond(
    ctx: &Ctx,
    piece: PieceId,
    target: PieceId,
    response: &Response,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let c = open_combat(ctx, target)?;
    if !c.window_open {
        return Err(err(
            "INIT-09",
            "the response window of this charge is closed: the chargers have made contact",
        ));
    }
    let p = ctx.piece(piece)?;
    if piece.side() == c.attacker {
        return Err(err(
            "INIT-12",
            format!(
                "{} belongs to the charging side; only the inactive side responds",
                p.name
            ),
        ));
    }
    if !p.on_table() {
        return Err(err("GEN-12", format!("{} is not on the table", p.name)));
    }
    if piece.is_command() {
        return Err(err(
            "CMD-23",
            format!("{} is a command unit; command units do not respond", p.name),
        ));
    }
    if c.response_of(piece).is_some() {
        // CHG-05 ruling: one response per unit and combat, a further charge included.
        return Err(err(
            "INIT-12",
            format!("{} has already responded to this charge", p.name),
        ));
    }
    if piece == target && !c.contacts.is_empty() {
        return Err(err(
            "CHG-05",
            format!(
                "{} is already fighting hand to hand; it makes no response to a further charge",
                p.name
            ),
        ));
    }
    if p.suppressed_at.is_some() {
        // INIT-12, CHG-09: only unsuppressed units respond; INIT-15 (c): suppressed cavalry
        // fight standing.
        return Err(err(
            "INIT-12",
            format!("{} is suppressed and cannot respond to the charge", p.name),
        ));
    }
    let ms = measure_scale(ctx);
    let tp = ctx.piece(target)?;
    let distance_to_target = match (footprint_of(ctx, p), footprint_of(ctx, tp)) {
        (Some(a), Some(b)) if piece != target => edge_distance(&a, &b),
        _ => 0.0,
    };
    let suppressed = p.suppressed_at.is_some();
    let gun = is_artillery(ctx, p);
    let charged_gun = gun && piece == target;
    let mut state = ctx.state.clone();
    let mut events = Vec::new();
    record(
        &mut state,
        &mut events,
        Event::ChargeResponded {
            piece,
            target,
            response: response.clone(),
        },
    );
    let nearest_charger = |c: &Combat, ctx: &Ctx| -> Option<(PieceId, Point)> {
        let fp = footprint_of(ctx, p)?;
        c.chargers
            .iter()
            .filter_map(|k| {
                let kp = ctx.state.piece(k.piece)?;
                let kfp = footprint_of(ctx, kp)?;
                Some((edge_distance(&fp, &kfp), k.piece, kfp.centroid()))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(_, id, at)| (id, at))
    };
    match response {
        Response::Fire { at } => {
            if charged_gun {
                return Err(err(
                    "INIT-10",
                    "a charged gun responds with canister, a pivot or an evade (ART-04)",
                ));
            }
            if !c.chargers.iter().any(|k| k.piece == *at)
                || c.contacts.iter().any(|k| k.piece == *at)
            {
                return Err(err(
                    "CHG-09",
                    format!(
                        "{at} is not a charger of this charge still on its way in; response fire is only at those"
                    ),
                ));
            }
            if distance_to_target > RESPONSE_FIRE_CM * ms + 1e-9 {
                return Err(err(
                    "INIT-12",
                    format!(
                        "{} is {:.1} cm from {}; only units within 10 cm of the charged unit may fire",
                        p.name, distance_to_target, tp.name
                    ),
                ));
            }
            let c2 = view(ctx, &state);
            let fire =
                resolve_fire_as(&c2, &[piece], *at, None, FireOccasion::ChargeResponse, dice)?;
            record_all(&mut state, &mut events, fire);
        }
        Response::Evade { facing_deg, limber } => {
            if distance_to_target > RESPONSE_EVADE_CM * ms + 1e-9 {
                return Err(err(
                    "INIT-12",
                    format!(
                        "{} is {:.1} cm from {}; only units within 5 cm of the charged unit may evade",
                        p.name, distance_to_target, tp.name
                    ),
                ));
            }
            check_can_evade(ctx, p)?;
            if *limber && !gun && !is_dismounted_cavalry(ctx, p) {
                return Err(err(
                    "INIT-05",
                    format!("{} is neither a gun nor dismounted cavalry", p.name),
                ));
            }
            let Some((away_from, away)) = nearest_charger(c, ctx) else {
                return Err(err("INIT-09", "the charge has no charger left"));
            };
            let ev = evade_events(ctx, p, away_from, away, *facing_deg, *limber)?;
            record_all(&mut state, &mut events, ev);
        }
        Response::CounterCharge => {
            if piece != target || !is_mounted_cavalry(ctx, p) {
                return Err(err(
                    "INIT-15",
                    "only the charged unit, if it is mounted cavalry, counter-charges",
                ));
            }
            if suppressed {
                return Err(err(
                    "INIT-15",
                    format!(
                        "{} is suppressed: it cannot counter-charge and fights standing",
                        p.name
                    ),
                ));
            }
        }
        Response::Canister => {
            if !charged_gun || p.limbered {
                return Err(err(
                    "ART-04",
                    "canister is fired only by the charged gun, unlimbered",
                ));
            }
            if suppressed {
                return Err(err(
                    "FIRE-23",
                    format!("{} is suppressed and cannot fire", p.name),
                ));
            }
            let ev = canister_events(ctx, &state, p, dice)?;
            record_all(&mut state, &mut events, ev);
        }
        Response::Pivot { facing_deg } => {
            if !charged_gun || p.limbered {
                return Err(err(
                    "INIT-10",
                    "only the charged gun, unlimbered, pivots in response",
                ));
            }
            let (Some(from), Some(fp)) = (p.pose, footprint_of(ctx, p)) else {
                return Ok(events);
            };
            if normalize_deg(facing_deg - from.facing_deg).abs() > 90.0 + 1e-9 {
                return Err(err(
                    "INIT-10",
                    format!("{} may pivot at most 90° in response", p.name),
                ));
            }
            let to = pivoted(&fp, from, facing_deg.rem_euclid(360.0));
            record(
                &mut state,
                &mut events,
                Event::Moved {
                    piece,
                    from,
                    to,
                    path: Vec::new(),
                    cost_cm: 0.0,
                },
            );
        }
    }
    Ok(events)
}

/// ART-04 (with its rulings a–d): the charged gun's canister attacks every unit with stands in
/// its cone within canister range, each through the casualty pipeline (GEN-16).
fn canister_events(
    ctx: &Ctx,
    state: &BattleState,
    gun: &PieceState,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let mut state = state.clone();
    let mut events = Vec::new();
    let (Some(list), Some(row)) = (ctx.list(gun.id.side()), ctx.row(gun)) else {
        return Err(err("COL-04", format!("{} has no troop row", gun.name)));
    };
    let profile = canister_profile(list, row);
    let range = f64::from(profile.range_cm) * range_factor(ctx, gun.id.side()) * measure_scale(ctx);
    let Some(gfp) = footprint_of(ctx, gun) else {
        return Ok(events);
    };
    let cones: Vec<Polygon<f64>> = gfp
        .front_edges()
        .iter()
        .map(|e| e.cone_polygon(range))
        .collect();
    let first_fire = list.first_fire_bonus && !gun.has_fired;
    let chargers: Vec<PieceId> = ctx
        .state
        .charges
        .combat(gun.id)
        .map(|c| c.chargers.iter().map(|k| k.piece).collect())
        .unwrap_or_default();
    record(
        &mut state,
        &mut events,
        Event::Fired {
            firers: vec![gun.id],
            target: chargers.first().copied().unwrap_or(gun.id),
            ammunition: Some(super::artillery::Ammunition::Canister),
        },
    );
    let victims: Vec<PieceId> = ctx
        .state
        .pieces
        .values()
        .filter(|q| q.id != gun.id && q.on_table() && !q.id.is_command())
        .map(|q| q.id)
        .collect();
    let shift = shifts_cover(ctx, gun);
    let centre = gfp.centroid();
    for v in victims {
        let attack = {
            let c = view(ctx, &state);
            let Some(vp) = c.state.piece(v) else {
                continue;
            };
            let Some(vfp) = footprint_of(&c, vp) else {
                continue;
            };
            let n = vfp
                .stands
                .iter()
                .filter(|s| cones.iter().any(|k| s.polygon().intersects(k)))
                .count();
            let n = u32::try_from(n).unwrap_or(0);
            if n == 0 {
                continue;
            }
            let cover = if chargers.contains(&v) {
                Cover::Open
            } else {
                target_cover(&c, centre, vp, &vfp).cover
            };
            let to_hit = score_to_hit(cover, shift, false, false);
            let mut mods = vec![m(
                "ART-04",
                format!(
                    "canister: {} attack{} × {} stand{} in the cone within {:.0} cm",
                    profile.attacks_per_stand,
                    if profile.attacks_per_stand == 1 {
                        ""
                    } else {
                        "s"
                    },
                    n,
                    if n == 1 { "" } else { "s" },
                    range
                ),
                i(canister_dice(profile, n)),
            )];
            if chargers.contains(&v) {
                mods.push(m("ART-04", "a charging unit is in the open", 0));
            }
            mods.extend(to_hit.modifiers);
            Attack {
                target: target_profile(&c, vp, false, None),
                groups: vec![DiceGroup {
                    firers: vec![gun.id],
                    dice: canister_dice(profile, n),
                    modifiers: mods,
                    needed: to_hit.needed,
                    first_fire,
                    jams_on_double: false,
                    purpose: "canister".into(),
                    rule: "ART-04".into(),
                }],
                away_from: Some(gun.id),
                player_turn: c.state.turn.player_turn,
                morale: super::morale::morale_rule(&c, vp), // OPT-MORALE-01
            }
        };
        // OPT-PRONE-02: canister is fire too.
        let out = {
            let c = view(ctx, &state);
            let reduce = |h: u32| super::prone::reduce(&c, &attack, h);
            super::casualty::resolve_attack_with(&attack, &reduce, dice)?
        };
        record_all(&mut state, &mut events, out.events);
        if let Some(d) = out.fall_back_cm {
            let c = view(ctx, &state);
            let fb = fall_back_events(&c, v, d, centre)?;
            record_all(&mut state, &mut events, fb);
        }
    }
    Ok(events)
}

/// INIT-09 steps 4–5, INIT-14, INIT-15, MOVE-16: the inactive side is done; contact.
pub fn resolve_close_response(ctx: &Ctx, target: PieceId) -> Result<Vec<Event>, ActionError> {
    let c = open_combat(ctx, target)?;
    if !c.window_open {
        return Err(err("INIT-09", "the response window is already closed"));
    }
    let tp = ctx.piece(target)?;
    let responded = c.response_of(target).is_some();
    let any_cavalry_charger = c.chargers.iter().any(|k| {
        ctx.state
            .piece(k.piece)
            .is_some_and(|kp| kp.on_table() && is_mounted_cavalry(ctx, kp))
    });
    // CHG-05 ruling: a target already fighting (a further charge on it) makes no response.
    let fighting = !c.contacts.is_empty();
    if tp.on_table() && !responded && !fighting {
        if is_mounted_cavalry(ctx, tp) && tp.suppressed_at.is_none() {
            return Err(err(
                "INIT-15",
                format!(
                    "{} is mounted cavalry: it must evade or counter-charge",
                    tp.name
                ),
            ));
        }
        let no_square = ctx.has_effect(tp, |e| matches!(e, RuleEffect::NoSquare));
        if no_square && any_cavalry_charger && check_can_evade(ctx, tp).is_ok() {
            return Err(err(
                "MOVE-16",
                format!(
                    "{} is irregular foot charged by cavalry: it must evade",
                    tp.name
                ),
            ));
        }
    }
    let mut state = ctx.state.clone();
    let mut events = Vec::new();
    record(&mut state, &mut events, Event::ResponseClosed { target });
    let chargers = c.chargers.clone();
    if c.target_evaded() || !tp.on_table() {
        // INIT-14: pursuit; the charge is over either way (FIRE-28 (b), (c)).
        for k in &chargers {
            let ev = pursuit_events(ctx, &state, k, target)?;
            record_all(&mut state, &mut events, ev);
        }
        record(
            &mut state,
            &mut events,
            Event::ChargeEnded {
                target,
                consolidate: Vec::new(),
            },
        );
        return Ok(events);
    }
    // CHG-05: chargers already in contact (an earlier charge on this target) keep their edges.
    let mut taken: Vec<Edge> = c.contacts.iter().map(|k| k.edge).collect();
    let mut made = c.contacts.len();
    for k in &chargers {
        if c.contacts.iter().any(|x| x.piece == k.piece) {
            continue;
        }
        let c2 = view(ctx, &state);
        let Some(kp) = c2.state.piece(k.piece) else {
            continue;
        };
        if !kp.on_table() {
            continue;
        }
        let able = kp.pose == Some(k.placed);
        let tp2 = c2.piece(target)?;
        let edge = if able {
            nearest_edge(&c2, kp, tp2, &taken)
        } else {
            None
        };
        match edge {
            Some((edge, fe)) => {
                taken.push(edge);
                made += 1;
                let ids: Vec<PieceId> = chargers
                    .iter()
                    .map(|k| k.piece)
                    .filter(|id| !c.contacts.iter().any(|x| x.piece == *id))
                    .collect();
                let to = contact_for(&c2, kp, target, &fe, &ids);
                record(
                    &mut state,
                    &mut events,
                    Event::ChargeContact {
                        piece: k.piece,
                        target,
                        edge,
                        to,
                    },
                );
                // OPT-PRONE-01 ruling: a prone target stands up when a charger reaches it.
                let up = super::prone::stand_up_on_contact(&view(ctx, &state), target);
                record_all(&mut state, &mut events, up.into_iter().collect());
                let ev = second_contacts(&view(ctx, &state), k, target, to);
                record_all(&mut state, &mut events, ev);
            }
            None => {
                let kp = kp.clone();
                record(
                    &mut state,
                    &mut events,
                    Event::ChargeFailed {
                        piece: k.piece,
                        target,
                        reason: if able {
                            "no free edge of the target to contact".into()
                        } else {
                            "it fell back before contact".into()
                        },
                    },
                );
                let ev = disorder_events(&view(ctx, &state), &kp);
                record_all(&mut state, &mut events, ev);
            }
        }
    }
    if made == 0 {
        record(
            &mut state,
            &mut events,
            Event::ChargeEnded {
                target,
                consolidate: Vec::new(),
            },
        );
    }
    Ok(events)
}

/// INIT-14: a charger continues towards the evader, up to 20 cm from its start; the evader is
/// knocked out if it ends less than 3 cm from the charger; the charger is disordered either way
/// (INIT-14 ruling, FIRE-28 (b)/(c)).
fn pursuit_events(
    ctx: &Ctx,
    state: &BattleState,
    k: &ChargerPlan,
    target: PieceId,
) -> Result<Vec<Event>, ActionError> {
    let c = view(ctx, state);
    let mut events = Vec::new();
    let Some(kp) = c.state.piece(k.piece) else {
        return Ok(events);
    };
    if !kp.on_table() {
        return Ok(events);
    }
    let ms = measure_scale(&c);
    let tp = c.piece(target)?;
    let able = kp.pose == Some(k.placed);
    if let (true, Some(from), Some(tfp)) = (able, kp.pose, footprint_of(&c, tp)) {
        let spent = k.start.at.distance(from.at).0;
        let left = (CHARGE_CM * ms - spent).max(0.0);
        let aim = tfp.centroid();
        let bearing = bearing_deg(from.at, aim);
        // The longest straight run that neither overlaps the evader nor exceeds what is left.
        let fits = |d: f64| -> bool {
            let pose = Pose {
                at: add(from.at, heading(bearing), d),
                facing_deg: from.facing_deg,
            };
            footprint_of(&c, &with_pose(kp, pose)).is_some_and(|f| !overlaps(&f, &tfp))
        };
        let (mut lo, mut hi) = (0.0, left);
        if fits(hi) {
            lo = hi;
        } else {
            for _ in 0..40 {
                let mid = (lo + hi) / 2.0;
                if fits(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
        }
        let mut end = from;
        let mut overrun = Vec::new();
        if lo > 1e-6 {
            let outcome = forced_move(
                &c,
                k.piece,
                ForcedKind::Retreat,
                bearing,
                lo,
                from.facing_deg,
            )?;
            overruns_of(&outcome, &mut overrun);
            match outcome {
                ForcedOutcome::Moved { to, .. } | ForcedOutcome::StoppedByFriend { to, .. } => {
                    end = to;
                }
                ForcedOutcome::KnockedOut { .. } => {}
            }
        }
        if end != from {
            events.push(Event::Moved {
                piece: k.piece,
                from,
                to: end,
                path: Vec::new(),
                cost_cm: (from.at.distance(end.at).0 * 1000.0).round() / 1000.0,
            });
        }
        events.extend(super::command::overrun_events(&c, &overrun)?);
        let gap = footprint_of(&c, &with_pose(kp, end))
            .map_or(f64::INFINITY, |f| edge_distance(&f, &tfp));
        let caught = gap < CAUGHT_CM * ms - 1e-9;
        if caught {
            events.push(Event::UnitKnockedOut {
                piece: target,
                cause: KnockOutCause::Charge {
                    rule: "INIT-14".into(),
                    reason: format!("caught evading, {gap:.1} cm from the charger"),
                },
            });
        }
        if gap > CLOSE_CM * ms + 1e-9 && !caught {
            events.push(Event::ChargeFailed {
                piece: k.piece,
                target,
                reason: "the target evaded out of reach".into(),
            });
        }
    } else if !able {
        events.push(Event::ChargeFailed {
            piece: k.piece,
            target,
            reason: "it fell back before contact".into(),
        });
    }
    let mut scratch = state.clone();
    for e in &events {
        apply(&mut scratch, e);
    }
    let c2 = view(ctx, &scratch);
    if let Some(kp) = c2.state.piece(k.piece) {
        let kp = kp.clone();
        events.extend(disorder_events(&c2, &kp));
    }
    Ok(events)
}

// ---------------------------------------------------------------------------------------------
// Supports (CHG-07, CHG-08, INIT-11).

/// CHG-07, CHG-08, INIT-11: `piece` moves into base contact behind `friend`, a unit in contact
/// in a pending combat whose chargers have made contact.
pub fn resolve_support(
    ctx: &Ctx,
    piece: PieceId,
    friend: PieceId,
) -> Result<Vec<Event>, ActionError> {
    let t = ctx.state.turn;
    let Some(c) = ctx.state.charges.combats.iter().find(|c| {
        !c.window_open && (c.target == friend || c.contacts.iter().any(|k| k.piece == friend))
    }) else {
        return Err(err(
            "CHG-07",
            format!("{friend} is not a unit in contact in a combat awaiting supports"),
        ));
    };
    let p = ctx.piece(piece)?;
    let fp_friend = ctx.piece(friend)?;
    if piece.side() != friend.side() {
        return Err(err(
            "CHG-07",
            format!("{} may support only a friendly unit", p.name),
        ));
    }
    if piece.side() == t.active {
        check_may_act(ctx, p)?;
    } else if !p.on_table() {
        return Err(err("GEN-12", format!("{} is not on the table", p.name)));
    }
    if piece.is_command() || ctx.row(p).is_none_or(|r| r.attack.is_none()) {
        return Err(err(
            "CHG-07",
            format!("{} has no Attack value and cannot support", p.name),
        ));
    }
    // OPT-PRONE-02: moving into support is a move.
    super::prone::check_may_move(ctx, p)?;
    if ctx.state.charges.combat_of(piece).is_some() {
        return Err(err(
            "CHG-08",
            format!("{} is already part of a combat", p.name),
        ));
    }
    let used = ctx.state.charges.supports.iter().any(|s| {
        s.piece == piece
            && if piece.side() == t.active {
                s.player_turn == t.player_turn && s.phase == t.phase && t.phase == Phase::Initiative
            } else {
                s.player_turn == t.player_turn
            }
    });
    if used {
        return Err(err(
            "CHG-08",
            format!(
                "{} has already supported a charge {}",
                p.name,
                if piece.side() == t.active {
                    "this initiative phase"
                } else {
                    "this enemy player turn"
                }
            ),
        ));
    }
    if p.suppressed_at.is_some()
        || is_disordered(ctx.state, p)
        || matches!(
            p.formation,
            Some(Formation::Square) | Some(Formation::Disordered)
        )
    {
        return Err(err(
            "CHG-07",
            format!(
                "{} is suppressed, disordered or in square and may not support",
                p.name
            ),
        ));
    }
    if is_mounted_cavalry(ctx, fp_friend) && !is_mounted_cavalry(ctx, p) {
        return Err(err(
            "CHG-07",
            format!(
                "only mounted cavalry may support {}, mounted cavalry",
                fp_friend.name
            ),
        ));
    }
    let ms = measure_scale(ctx);
    let (Some(sfp), Some(ffp), Some(from)) =
        (footprint_of(ctx, p), footprint_of(ctx, fp_friend), p.pose)
    else {
        return Err(err("SEQ-01", format!("{} is not on the table", p.name)));
    };
    let d = edge_distance(&sfp, &ffp);
    if d > SUPPORT_CM * ms + 1e-9 {
        return Err(err(
            "CHG-07",
            format!(
                "{} is {:.1} cm from {}; a supporter must be within 10 cm",
                p.name, d, fp_friend.name
            ),
        ));
    }
    let s = sight_index(ctx).sight(piece, friend);
    if !s.visible {
        return Err(RuleError::new(s.rule, s.detail).into());
    }
    // INIT-11: on initiative, the nearest visible combat within 10 cm.
    if t.phase == Phase::Initiative && piece.side() == t.active {
        let distance_to = |cb: &Combat| -> f64 {
            let mut ids = vec![cb.target];
            ids.extend(cb.contacts.iter().map(|k| k.piece));
            ids.iter()
                .filter_map(|id| ctx.state.piece(*id))
                .filter(|q| q.id.side() == piece.side())
                .filter_map(|q| footprint_of(ctx, q))
                .map(|f| edge_distance(&sfp, &f))
                .fold(f64::INFINITY, f64::min)
        };
        let mine = distance_to(c);
        let nearer = ctx
            .state
            .charges
            .combats
            .iter()
            .filter(|o| !o.window_open && o.target != c.target)
            .any(|o| distance_to(o) < mine - 1e-9);
        if nearer {
            return Err(err(
                "INIT-11",
                format!(
                    "on initiative {} may support only the nearest combat",
                    p.name
                ),
            ));
        }
    }
    // INIT-11: centre to centre, directly behind the friend.
    let Some((_, rear)) = edges_of(ctx, fp_friend)
        .into_iter()
        .find(|(e, _)| *e == Edge::Rear)
    else {
        return Err(err("CHG-07", "the friend has no rear edge"));
    };
    let to = Pose {
        at: rear.midpoint(),
        facing_deg: (rear.facing_deg + 180.0).rem_euclid(360.0),
    };
    let Some(tfp) = footprint_of(ctx, &with_pose(p, to)) else {
        return Err(err("SEQ-01", format!("{} is not on the table", p.name)));
    };
    for q in ctx.state.pieces.values() {
        if q.id == piece || q.id == friend || !q.on_table() {
            continue;
        }
        let Some(qfp) = footprint_of(ctx, q) else {
            continue;
        };
        if q.id.side() != piece.side()
            && !q.id.is_command()
            && edge_distance(&tfp, &qfp) <= CONTACT_TOLERANCE_CM * ms
        {
            return Err(err(
                "CHG-07",
                format!(
                    "the support position behind {} touches {}, an enemy: that would be a charge",
                    fp_friend.name, q.name
                ),
            ));
        }
        if overlaps(&tfp, &qfp) {
            return Err(err(
                "CHG-07",
                format!(
                    "there is no room behind {}: {} is in the way",
                    fp_friend.name, q.name
                ),
            ));
        }
    }
    Ok(vec![
        Event::Moved {
            piece,
            from,
            to,
            path: Vec::new(),
            cost_cm: (from.at.distance(to.at).0 * 1000.0).round() / 1000.0,
        },
        Event::Supported {
            piece,
            friend,
            target: c.target,
        },
    ])
}

// ---------------------------------------------------------------------------------------------
// Resolution (CHG-12..CHG-26).

/// One side of a round: its units in contact and their pool.
struct Pool {
    groups: Vec<DiceGroup>,
}

fn lancer(ctx: &Ctx, p: &PieceState) -> bool {
    scenario_unit(ctx, p).is_some_and(|u| u.lancers)
        && ctx.has_effect(p, |e| matches!(e, RuleEffect::Lancers))
}

/// CHG-13..CHG-16: the dice of one side in one round. `units` are its units in contact with
/// `charging` telling which count as charging; `supporters` add +1 each; `needed` gives each
/// unit's score to hit and why.
fn side_pool(
    ctx: &Ctx,
    units: &[(PieceId, u32, bool, bool)],
    supporters: &[PieceId],
    needed: &dyn Fn(&PieceState) -> (u8, Vec<Modifier>),
    optional: &dyn Fn(&PieceState) -> (bool, bool),
    first_round: bool,
    purpose: &str,
) -> Pool {
    let mut groups: Vec<DiceGroup> = Vec::new();
    let multi = units.len() > 1;
    // CMD-21 (b): a command unit's presence dice go once into the side's pool, to the first
    // unit in contact it touches and commands.
    let ids: Vec<PieceId> = units.iter().map(|(id, ..)| *id).collect();
    let presence = presence_dice(ctx, &ids);
    for (k, (id, stands, charging, flank)) in units.iter().enumerate() {
        let Some(p) = ctx.state.piece(*id) else {
            continue;
        };
        let charging = *charging && first_round;
        // OPT-SABER-02, OPT-SABER-03: the saber bonus and the rifled die.
        let (saber, rifled) = optional(p);
        let s = ChargeDiceSituation {
            saber,
            rifled,
            stands: *stands,
            dice_per_stand: charge_dice_per_stand(ctx, p),
            charging,
            suppressed: p.suppressed_at.is_some(),
            flank_or_rear: *flank,
            heavy: charging && ctx.has_effect(p, |e| matches!(e, RuleEffect::HeavyCavalry)),
            lancers: charging && lancer(ctx, p),
            extra_attack_die: ctx.has_effect(p, |e| matches!(e, RuleEffect::ExtraAttackDie)),
            presence_dice: presence.get(id).copied().unwrap_or(0),
            disordered: is_disordered(ctx.state, p),
        };
        let mut dice = charge_dice(&s);
        if k == 0 {
            for sp in supporters {
                let name = ctx
                    .state
                    .piece(*sp)
                    .map_or(sp.to_string(), |q| q.name.clone());
                dice.modifiers
                    .push(m("CHG-14", format!("{name} supporting"), 1));
                dice.dice += 1;
            }
        }
        let (score, mut why) = needed(p);
        let mut mods = dice.modifiers;
        mods.append(&mut why);
        if multi {
            for x in &mut mods {
                x.label = format!("{}: {}", p.name, x.label);
            }
        }
        if let Some(g) = groups.iter_mut().find(|g| g.needed == score) {
            g.firers.push(*id);
            g.dice += dice.dice;
            g.modifiers.extend(mods);
        } else {
            groups.push(DiceGroup {
                firers: vec![*id],
                dice: dice.dice,
                modifiers: mods,
                needed: score,
                first_fire: false,
                jams_on_double: false,
                purpose: purpose.to_string(),
                rule: "CHG-16".into(),
            });
        }
    }
    Pool { groups }
}

/// Rolls a pool and returns its raw hits, recording the rolls (CHG-16).
fn roll_pool(
    pool: &Pool,
    target: PieceId,
    events: &mut Vec<Event>,
    dice: &mut dyn Dice,
) -> Result<u32, ActionError> {
    let mut raw = 0u32;
    let mut lowest: Option<u8> = None;
    for g in &pool.groups {
        if g.dice == 0 {
            continue;
        }
        let rolled = dice.roll(usize::try_from(g.dice).unwrap_or(0), &g.purpose)?;
        raw += u32::try_from(rolled.iter().filter(|d| **d >= g.needed).count()).unwrap_or(0);
        lowest = Some(lowest.map_or(g.needed, |l| l.min(g.needed)));
        events.push(Event::DiceRolled {
            piece: match g.firers.as_slice() {
                [one] => Some(*one),
                _ => None,
            },
            purpose: g.purpose.clone(),
            rule: g.rule.clone(),
            dice: rolled,
            modifiers: g.modifiers.clone(),
        });
    }
    if let Some(needed) = lowest {
        events.push(Event::HitsScored {
            target,
            hits: raw,
            needed,
        });
    }
    Ok(raw)
}

/// CHG-18: saves (FIRE-17..19: line bonus, attack column none, square saves normally, flank or
/// rear one worse), hits added, knock-out; no suppression or fall-back test.
fn land_hits(
    ctx: &Ctx,
    state: &mut BattleState,
    events: &mut Vec<Event>,
    victim: PieceId,
    raw: u32,
    flank: bool,
    dice: &mut dyn Dice,
) -> Result<(), ActionError> {
    if raw == 0 {
        return Ok(());
    }
    let (plan, hits_before, threshold) = {
        let c = view(ctx, state);
        let Some(vp) = c.state.piece(victim) else {
            return Ok(());
        };
        let plan = save_plan(&SaveSituation {
            save: save_of(&c, vp),
            replacement: None,
            flank_or_rear: flank,
            formation: vp.formation,
            ranged: false,
        });
        (plan, vp.hits, ko_threshold_of(&c, vp))
    };
    let mut saved = 0;
    if let Some(sv) = plan.target {
        let n = raw + plan.bonus_dice;
        let rolled = dice.roll(usize::try_from(n).unwrap_or(0), "save")?;
        saved = u32::try_from(rolled.iter().filter(|d| **d >= sv).count())
            .unwrap_or(0)
            .min(raw);
        let mut mods = plan.modifiers.clone();
        mods.push(m("CHG-18", "charge saves: no suppression test follows", 0));
        record(
            state,
            events,
            Event::DiceRolled {
                piece: Some(victim),
                purpose: "save".into(),
                rule: "CHG-18".into(),
                dice: rolled,
                modifiers: mods,
            },
        );
        record(
            state,
            events,
            Event::Saved {
                target: victim,
                saved,
            },
        );
    }
    let hits = raw - saved;
    if hits == 0 {
        return Ok(());
    }
    let total = hits_before + hits;
    record(
        state,
        events,
        Event::HitsTaken {
            piece: victim,
            hits,
            total,
        },
    );
    if total >= threshold {
        record(
            state,
            events,
            Event::UnitKnockedOut {
                piece: victim,
                cause: KnockOutCause::Hits,
            },
        );
    }
    Ok(())
}

/// CHG-25: a retreat of half a move directly away from `away`, facing kept; into enemies, off
/// the table or impassable ground, or an unlimbered gun or a unit in fortifications: knocked
/// out; into an unsuppressed friend: stops, the friend is suppressed; into a suppressed friend:
/// both knocked out.
fn retreat_events(ctx: &Ctx, piece: PieceId, away: Point) -> Result<Vec<Event>, ActionError> {
    let p = ctx.piece(piece)?;
    let ko = |rule: &str, reason: String| Event::UnitKnockedOut {
        piece,
        cause: KnockOutCause::Charge {
            rule: rule.to_string(),
            reason,
        },
    };
    if is_artillery(ctx, p) && !p.limbered {
        return Ok(vec![ko(
            "CHG-25",
            "an unlimbered gun cannot retreat".into(),
        )]);
    }
    let fortified = ctx.scenario.sides.get(piece.side()).is_some_and(|s| {
        let PieceId::Unit { unit, .. } = piece else {
            return false;
        };
        s.field_defenses.iter().any(|d| {
            d.occupant == Some(unit)
                && matches!(
                    d.kind,
                    DefenseKind::FortifiedWorks | DefenseKind::Fortification
                )
        })
    });
    if fortified {
        return Ok(vec![ko(
            "CHG-25",
            "a unit in fortifications cannot retreat".into(),
        )]);
    }
    let (Some(fp), Some(from)) = (footprint_of(ctx, p), p.pose) else {
        return Ok(Vec::new());
    };
    let half = match move_allowance(ctx, piece, Manoeuvre::Advance) {
        Ok(a) => a.base_cm / 2.0,
        Err(_) => 0.0,
    };
    if half <= 0.0 {
        // CHG-25 ruling (d): a square cannot move (MOVE-15), so one that must retreat is
        // knocked out instead, as an unlimbered gun is; so is any unit with no move left.
        let reason = if p.formation == Some(Formation::Square) {
            "a square cannot move (MOVE-15), so it is destroyed instead of retreating"
        } else {
            "it cannot move, so it cannot retreat"
        };
        return Ok(vec![ko("CHG-25", reason.into())]);
    }
    let centre = fp.centroid();
    let bearing = if away.distance(centre).0 > 1e-9 {
        bearing_deg(away, centre)
    } else {
        (from.facing_deg + 180.0).rem_euclid(360.0)
    };
    let outcome = forced_move(
        ctx,
        piece,
        ForcedKind::Retreat,
        bearing,
        half,
        from.facing_deg,
    )?;
    let mut overrun = Vec::new();
    overruns_of(&outcome, &mut overrun);
    Ok(match outcome {
        ForcedOutcome::Moved {
            to, distance_cm, ..
        } => {
            let mut v = vec![Event::Retreated {
                piece,
                from,
                to,
                distance_cm,
            }];
            // CMD-25: command units run over by the retreat.
            v.extend(super::command::overrun_events(ctx, &overrun)?);
            v
        }
        ForcedOutcome::StoppedByFriend {
            to,
            friend,
            distance_cm,
            ..
        } => {
            let mut v = vec![Event::Retreated {
                piece,
                from,
                to,
                distance_cm,
            }];
            // CMD-25: command units run over before the stop.
            v.extend(super::command::overrun_events(ctx, &overrun)?);
            let friend_suppressed = ctx
                .state
                .piece(friend)
                .is_some_and(|q| q.suppressed_at.is_some());
            if friend_suppressed {
                let why = "retreated into a suppressed friendly unit".to_string();
                v.push(ko("CHG-25", why.clone()));
                v.push(Event::UnitKnockedOut {
                    piece: friend,
                    cause: KnockOutCause::Charge {
                        rule: "CHG-25".into(),
                        reason: why,
                    },
                });
            } else {
                v.push(Event::Suppressed {
                    piece: friend,
                    player_turn: ctx.state.turn.player_turn,
                });
            }
            v
        }
        ForcedOutcome::KnockedOut { rule, reason } => {
            vec![ko(if rule == "MOVE-07" { "CHG-25" } else { rule }, reason)]
        }
    })
}

/// The unit's side's units in contact that are still on the table.
fn alive(state: &BattleState, ids: &[PieceId]) -> Vec<PieceId> {
    ids.iter()
        .copied()
        .filter(|id| state.piece(*id).is_some_and(PieceState::on_table))
        .collect()
}

/// The nearest (edge to edge) of `among` to `piece`, and its centre.
fn nearest_of(ctx: &Ctx, piece: PieceId, among: &[PieceId]) -> Option<Point> {
    let p = ctx.state.piece(piece)?;
    let fp = footprint_of(ctx, p)?;
    among
        .iter()
        .filter_map(|id| {
            let q = ctx.state.piece(*id)?;
            let qfp = footprint_of(ctx, q)?;
            Some((edge_distance(&fp, &qfp), *id, qfp.centroid()))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, _, c)| c)
}

/// SEQ-04, CHG-12..CHG-26: fights the combat of the charge on `target` to a finish.
pub fn resolve_combat(
    ctx: &Ctx,
    target: PieceId,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let t = ctx.state.turn;
    if !matches!(t.phase, Phase::Initiative | Phase::Command | Phase::Charge) {
        return Err(err(
            "SEQ-04",
            "combats are fought in the Initiative, Command or Charge phase",
        ));
    }
    let combat = open_combat(ctx, target)?.clone();
    if combat.window_open {
        return Err(err(
            "INIT-09",
            "the inactive side has not closed its response to this charge yet",
        ));
    }
    let mut state = ctx.state.clone();
    let mut events = Vec::new();
    let attacker = combat.attacker;
    let contacts = combat.contacts.clone();
    let charger_ids: Vec<PieceId> = contacts.iter().map(|k| k.piece).collect();
    // SEQ-04 (3) ruling: a combat opened by the Charge phase was made by no charge.
    let standing = combat.phase == Phase::Charge;
    let open_label = if standing {
        "no charge was made (SEQ-04): everyone in the open, hit on 4+"
    } else {
        "later round: everyone in the open, hit on 4+"
    };
    // CHG-05 ruling: a charger in several combats may have left this one's target (retreated
    // or knocked out in a combat fought before it); with no charger still touching the target
    // the combat ends unfought.
    if let Some(ended) = unfought(ctx, &combat) {
        return Ok(ended);
    }
    let att_supporters: Vec<PieceId> = combat
        .supporters
        .iter()
        .filter(|s| s.piece.side() == attacker)
        .map(|s| s.piece)
        .collect();
    let def_supporters: Vec<PieceId> = combat
        .supporters
        .iter()
        .filter(|s| s.piece.side() != attacker)
        .map(|s| s.piece)
        .collect();
    let counter = combat.counter_charged();
    let any_front = contacts.iter().any(|k| {
        ctx.state
            .piece(target)
            .is_some_and(|tp| frontal(tp, k.edge))
    });
    // CHG-11: only flank or rear contact limits the defender's stands; CHG-14/CHG-18: any flank
    // or rear contact means it fights to its flank (−2, save one worse).
    let defender_flank = !contacts.is_empty() && !any_front;
    let fights_to_flank = contacts.iter().any(|k| {
        ctx.state
            .piece(target)
            .is_some_and(|tp| !frontal(tp, k.edge))
    });
    let mut round = 0;
    let outcome: (Outcome, Option<usize>) = loop {
        round += 1;
        if round > MAX_ROUNDS {
            return Err(ActionError::Unsupported {
                rule: "CHG-20",
                what: format!("a combat still equal after {MAX_ROUNDS} rounds"),
            });
        }
        let first = round == 1 && !standing;
        let c = view(ctx, &state);
        let chargers_now = alive(c.state, &charger_ids);
        let Some(tp) = c.state.piece(target).filter(|p| p.on_table()).cloned() else {
            break (Outcome::WipedOut, Some(attacker));
        };
        let Some(tfp) = footprint_of(&c, &tp) else {
            break (Outcome::WipedOut, Some(attacker));
        };
        // CHG-11: a defender contacted only on its flank or rear fights with the stands that
        // touch the enemy.
        let def_stands = if defender_flank {
            let touching = tfp
                .stands
                .iter()
                .filter(|s| {
                    chargers_now.iter().any(|k| {
                        c.state
                            .piece(*k)
                            .and_then(|kp| footprint_of(&c, kp))
                            .is_some_and(|kfp| {
                                kfp.stands.iter().any(|ks| {
                                    let one = |x: &crate::geom::Stand| Footprint {
                                        stands: vec![*x],
                                        kind: kfp.kind,
                                        arrangement: kfp.arrangement,
                                        at: kfp.at,
                                        facing_deg: kfp.facing_deg,
                                        fronts: Vec::new(),
                                    };
                                    edge_distance(&one(s), &one(ks))
                                        <= CONTACT_TOLERANCE_CM * measure_scale(&c) + 1e-6
                                })
                            })
                    })
                })
                .count();
            u32::try_from(touching.max(1)).unwrap_or(1)
        } else {
            u32::from(tp.stands)
        };
        // Attacking side: hits go to the defender, by its cover in round 1 (CHG-16).
        let att_units: Vec<(PieceId, u32, bool, bool)> = chargers_now
            .iter()
            .filter_map(|k| {
                c.state
                    .piece(*k)
                    .map(|p| (*k, u32::from(p.stands), true, false))
            })
            .collect();
        let tp_ref = &tp;
        let tfp_ref = &tfp;
        let att_needed = |p: &PieceState| -> (u8, Vec<Modifier>) {
            // OPT-MORALE-02 (optional, `morale`): the defender's grade sets the score.
            if let Some(s) = super::morale::charge_score(&c, tp_ref) {
                return s;
            }
            if !first {
                return (4, vec![m("CHG-16", open_label, 4)]);
            }
            let from = footprint_of(&c, p).map_or(tfp_ref.centroid(), |f| f.centroid());
            let found = target_cover(&c, from, tp_ref, tfp_ref);
            let mut cover = found.cover;
            let mut mods = Vec::new();
            let cav = is_mounted_cavalry(&c, p);
            if cav && c.has_effect(tp_ref, |e| matches!(e, RuleEffect::NoSquare)) {
                if cover != Cover::Open {
                    mods.push(m(
                        "CHG-16",
                        "defends against cavalry as in the open (list note)",
                        0,
                    ));
                }
                cover = Cover::Open;
            } else if cav && tp_ref.formation == Some(Formation::Square) {
                let b = one_level_better(cover);
                mods.push(m(
                    "MOVE-18",
                    format!(
                        "square against cavalry: {} counts as {}",
                        cover_label(cover),
                        cover_label(b)
                    ),
                    1,
                ));
                cover = b;
            } else if !cav && pike(&c, tp_ref) {
                let b = one_level_better(cover);
                mods.push(m("PIKE-02", "pikes against infantry: one level better", 1));
                cover = b;
            }
            let needed = match cover {
                Cover::Open => 4,
                Cover::Soft => 5,
                Cover::Hard | Cover::Full => 6,
            };
            mods.push(m(
                "CHG-16",
                format!(
                    "hit on {needed}+: defender {} ({})",
                    cover_label(cover),
                    found.why
                ),
                i32::from(needed),
            ));
            (needed, mods)
        };
        // OPT-SABER-02 with OPT-SABER-03 (a), (c): the saber bonus of round 1.
        let saber_blocked = tp.formation == Some(Formation::Square) && !is_poor(&c, &tp);
        let att_optional = |p: &PieceState| -> (bool, bool) {
            let declared = combat.chargers.iter().any(|k| k.piece == p.id && k.saber);
            (
                first
                    && declared
                    && saber_in_use(&c)
                    && is_mounted_cavalry(&c, p)
                    && !saber_blocked,
                false,
            )
        };
        let att_pool = side_pool(
            &c,
            &att_units,
            &alive(c.state, &att_supporters),
            &att_needed,
            &att_optional,
            first,
            "charge: attackers to hit",
        );
        // Defending side: the defender (charging too when it counter-charged).
        let def_units = vec![(target, def_stands, counter, fights_to_flank)];
        let def_needed = |_: &PieceState| -> (u8, Vec<Modifier>) {
            // OPT-MORALE-02 (optional, `morale`): the chargers' grade sets the score.
            if let Some(s) = super::morale::charge_score_of(&c, &chargers_now) {
                return s;
            }
            if first {
                (
                    4,
                    vec![m("CHG-16", "chargers count as in the open: hit on 4+", 4)],
                )
            } else {
                (4, vec![m("CHG-16", open_label, 4)])
            }
        };
        // OPT-SABER-03 (b), (c): rifled muskets against charging mounted cavalry.
        let by_horse = chargers_now.iter().any(|k| {
            c.state
                .piece(*k)
                .is_some_and(|kp| is_mounted_cavalry(&c, kp))
        });
        let def_optional = |p: &PieceState| -> (bool, bool) {
            let rifled = saber_in_use(&c)
                && by_horse
                && on_foot(&c, p)
                && !is_poor(&c, p)
                && c.row(p)
                    .zip(c.list(p.id.side()))
                    .is_some_and(|(row, list)| rifle_armed(list, row));
            (false, rifled)
        };
        let def_pool = side_pool(
            &c,
            &def_units,
            &alive(c.state, &def_supporters),
            &def_needed,
            &def_optional,
            first,
            "charge: defenders to hit",
        );
        // CHG-17 (b): which charger takes the defenders' hits.
        let on = |edges: &[Edge]| -> Vec<PieceId> {
            contacts
                .iter()
                .filter(|k| chargers_now.contains(&k.piece) && edges.contains(&k.edge))
                .map(|k| k.piece)
                .collect()
        };
        let front = if tp.formation == Some(Formation::Square) {
            on(&[Edge::Front, Edge::Left, Edge::Right, Edge::Rear])
        } else {
            on(&[Edge::Front])
        };
        // CHG-16: all dice of a round are rolled together, so both pools were worked out
        // above, before any hits land. The attackers' dice and the defender's saves come
        // first (as WE-07 records them), then the CHG-17 allocation die when it is needed,
        // then the defenders' dice and the charger's saves.
        let att_raw = roll_pool(&att_pool, target, &mut events, dice)?;
        land_hits(
            ctx,
            &mut state,
            &mut events,
            target,
            att_raw,
            fights_to_flank,
            dice,
        )?;
        let victim_of_defenders = if let Some(k) = front.first() {
            Some(*k)
        } else {
            let right = on(&[Edge::Right]);
            let left = on(&[Edge::Left]);
            match (right.first(), left.first()) {
                (Some(r), Some(l)) => {
                    let die = dice.d6("flank allocation")?;
                    record(
                        &mut state,
                        &mut events,
                        Event::DiceRolled {
                            piece: None,
                            purpose: "flank allocation".into(),
                            rule: "CHG-17".into(),
                            dice: vec![die],
                            modifiers: vec![m(
                                "CHG-17",
                                "odd: the right flank charger; even: the left (seen from the defender)",
                                0,
                            )],
                        },
                    );
                    Some(if die % 2 == 1 { *r } else { *l })
                }
                (Some(r), None) => Some(*r),
                (None, Some(l)) => Some(*l),
                (None, None) => on(&[Edge::Rear]).first().copied(),
            }
        };
        let def_victim = victim_of_defenders.unwrap_or(target);
        let mut pending_def: Vec<Event> = Vec::new();
        let def_raw = roll_pool(&def_pool, def_victim, &mut pending_def, dice)?;
        record_all(&mut state, &mut events, pending_def);
        if victim_of_defenders.is_some() {
            land_hits(
                ctx,
                &mut state,
                &mut events,
                def_victim,
                def_raw,
                false,
                dice,
            )?;
        }
        // CHG-19: totals of every unit involved, hits this player turn included.
        let total = |ids: &[PieceId]| -> u32 {
            ids.iter()
                .filter_map(|id| state.piece(*id).map(|p| p.hits))
                .sum()
        };
        let mut att_all = charger_ids.clone();
        att_all.extend(att_supporters.iter().copied());
        let mut def_all = vec![target];
        def_all.extend(def_supporters.iter().copied());
        let (at, dt) = (total(&att_all), total(&def_all));
        record(
            &mut state,
            &mut events,
            Event::CombatRound {
                target,
                round,
                attacker_total: at,
                defender_total: dt,
            },
        );
        let att_left = !alive(&state, &charger_ids).is_empty();
        let def_left = state.piece(target).is_some_and(PieceState::on_table);
        match (att_left, def_left) {
            (false, false) => break (Outcome::BothWipedOut, None),
            (true, false) => break (Outcome::WipedOut, Some(attacker)),
            (false, true) => break (Outcome::WipedOut, Some(1 - attacker)),
            (true, true) => {}
        }
        if at == dt {
            continue;
        }
        let (loser_total, winner_total, winner) = if at > dt {
            (at, dt, 1 - attacker)
        } else {
            (dt, at, attacker)
        };
        if loser_total >= 2 * winner_total {
            break (Outcome::Double, Some(winner));
        }
        break (Outcome::Greater, Some(winner));
    };
    let (outcome, winner) = outcome;
    record(
        &mut state,
        &mut events,
        Event::CombatDecided {
            target,
            outcome,
            winner,
        },
    );
    let mut consolidate = Vec::new();
    if let Some(w) = winner {
        let (win_contact, win_support, lose_contact, lose_support) = if w == attacker {
            (
                charger_ids.clone(),
                att_supporters.clone(),
                vec![target],
                def_supporters.clone(),
            )
        } else {
            (
                vec![target],
                def_supporters.clone(),
                charger_ids.clone(),
                att_supporters.clone(),
            )
        };
        let mut enemy_all = win_contact.clone();
        enemy_all.extend(win_support.iter().copied());
        // The losers in contact.
        for id in alive(&state, &lose_contact) {
            let c = view(ctx, &state);
            match outcome {
                Outcome::Greater => {
                    let ev = suppress_and_retreat(&c, id, &win_contact)?;
                    record_all(&mut state, &mut events, ev);
                }
                _ => record(
                    &mut state,
                    &mut events,
                    Event::UnitKnockedOut {
                        piece: id,
                        cause: KnockOutCause::Charge {
                            rule: "CHG-22".into(),
                            reason: "lost a charge by double or more".into(),
                        },
                    },
                ),
            }
        }
        // The losers' supporters (CHG-22, CHG-23); after a greater win they stay.
        if outcome != Outcome::Greater {
            for id in alive(&state, &lose_support) {
                let c = view(ctx, &state);
                let ev = suppress_and_retreat(&c, id, &enemy_all)?;
                record_all(&mut state, &mut events, ev);
            }
        }
        // FIRE-28 (b), FIRE-29: disorder for the charging side's units in contact when it
        // wins, and for counter-charging cavalry that win.
        // SEQ-04 (3) ruling: a fight without a charge disorders nobody (FIRE-28: troops that
        // have finished a *charge*).
        let disorder_winners = !standing && (w == attacker || counter);
        if disorder_winners {
            // CHG-05 ruling: a charger that also touched another enemy unit finishes its
            // charge with its last combat, and is disordered only if it wins that one.
            let elsewhere = |id: &PieceId| {
                state
                    .charges
                    .combats
                    .iter()
                    .any(|o| o.target != target && o.contacts.iter().any(|k| k.piece == *id))
            };
            let finished: Vec<PieceId> = alive(&state, &win_contact)
                .into_iter()
                .filter(|id| !elsewhere(id))
                .collect();
            for id in finished {
                let c = view(ctx, &state);
                if let Some(p) = c.state.piece(id).cloned() {
                    let ev = disorder_events(&c, &p);
                    record_all(&mut state, &mut events, ev);
                }
            }
        }
        consolidate = alive(&state, &win_contact);
        consolidate.extend(alive(&state, &win_support));
    }
    record(
        &mut state,
        &mut events,
        Event::ChargeEnded {
            target,
            consolidate,
        },
    );
    Ok(events)
}

/// CHG-05 ruling: the events ending a combat none of whose chargers still touches its target
/// (each charger `ChargeFailed`, then `ChargeEnded` with nobody to consolidate); `None` when a
/// charger still touches it, or the target is gone (the fight code handles that).
fn unfought(ctx: &Ctx, combat: &Combat) -> Option<Vec<Event>> {
    let target = combat.target;
    let tp = ctx.state.piece(target).filter(|p| p.on_table())?;
    let tfp = footprint_of(ctx, tp)?;
    let tol = CONTACT_TOLERANCE_CM * measure_scale(ctx) + 1e-6;
    let touching = |id: PieceId| {
        ctx.state
            .piece(id)
            .filter(|p| p.on_table())
            .and_then(|p| footprint_of(ctx, p))
            .is_some_and(|fp| edge_distance(&fp, &tfp) <= tol)
    };
    if combat.contacts.iter().any(|k| touching(k.piece)) {
        return None;
    }
    let mut events: Vec<Event> = combat
        .contacts
        .iter()
        .filter(|k| ctx.state.piece(k.piece).is_some_and(PieceState::on_table))
        .map(|k| Event::ChargeFailed {
            piece: k.piece,
            target,
            reason: "no longer in base contact: the combat is not fought (CHG-05)".into(),
        })
        .collect();
    // The rights to consolidate earned earlier in this phase stand (ChargeEnded renews them).
    let t = ctx.state.turn;
    let mut rights: Vec<&ConsolidateRight> = ctx
        .state
        .charges
        .consolidation
        .iter()
        .filter(|r| r.player_turn == t.player_turn && r.phase == t.phase)
        .collect();
    rights.sort_by_key(|r| r.order);
    events.push(Event::ChargeEnded {
        target,
        consolidate: rights.iter().map(|r| r.piece).collect(),
    });
    Some(events)
}

/// CHG-21/22/25: suppressed (keeping an older marker) and a retreat away from the nearest enemy
/// unit that took part.
fn suppress_and_retreat(
    ctx: &Ctx,
    id: PieceId,
    enemies: &[PieceId],
) -> Result<Vec<Event>, ActionError> {
    let mut state = ctx.state.clone();
    let mut events = Vec::new();
    let Some(p) = ctx.state.piece(id) else {
        return Ok(events);
    };
    if p.suppressed_at.is_none() {
        record(
            &mut state,
            &mut events,
            Event::Suppressed {
                piece: id,
                player_turn: ctx.state.turn.player_turn,
            },
        );
    }
    let c = view(ctx, &state);
    let live = alive(c.state, enemies);
    let Some(away) = nearest_of(&c, id, &live) else {
        return Ok(events);
    };
    let ev = retreat_events(&c, id, away)?;
    record_all(&mut state, &mut events, ev);
    Ok(events)
}

// ---------------------------------------------------------------------------------------------
// Consolidation (CHG-24).

/// CHG-24, ENG-03, ENG-05: may `piece` consolidate now — a combat win of this phase (CHG-21,
/// CHG-22), or, for engineers, a section of an obstacle or work they cleared or demolished in
/// this Initiative phase (once, and not once suppressed: the task then does not count). Where
/// to is checked by [`resolve_consolidate`].
pub fn check_consolidation_right(ctx: &Ctx, piece: PieceId) -> Result<(), ActionError> {
    let t = ctx.state.turn;
    let won = ctx
        .state
        .charges
        .consolidation
        .iter()
        .any(|r| r.piece == piece && r.player_turn == t.player_turn && r.phase == t.phase);
    if won {
        return Ok(());
    }
    let Some(work) = super::engineering::consolidation_gap(ctx.state, piece) else {
        return Err(err(
            "CHG-24",
            format!(
                "{piece} has no combat win, nor a gap it has just cleared, to consolidate \
                 through now"
            ),
        ));
    };
    let p = ctx.piece(piece)?;
    if p.suppressed_at.is_some() || !p.on_table() {
        let rule = match work.kind {
            super::engineering::WorkKind::Breach {
                cause: super::victory::DefenseLossCause::Demolished,
                ..
            } => "ENG-05",
            _ => "ENG-03",
        };
        return Err(err(
            rule,
            format!(
                "{} is suppressed: its gap no longer counts, so it may not consolidate \
                 through it",
                p.name
            ),
        ));
    }
    Ok(())
}

/// CHG-24: a winner moves up to 5 cm in the direction it faces (it may change facing), not
/// ending within 3 cm of a visible enemy, never into contact, stopping at linear and area
/// boundaries (refused beyond them; a field defence still standing is such a boundary, TERR-13).
/// ENG-03, ENG-05: engineers that have just cleared or demolished a section consolidate the
/// same way, through the gap they made.
pub fn resolve_consolidate(ctx: &Ctx, piece: PieceId, to: Pose) -> Result<Vec<Event>, ActionError> {
    check_consolidation_right(ctx, piece)?;
    let p = ctx.piece(piece)?;
    if ctx.state.charges.combat_of(piece).is_some() {
        // CHG-05, CHG-01: a winner that also touched another enemy unit fights that combat
        // first.
        return Err(err(
            "CHG-05",
            format!(
                "{} is still in an unresolved combat; it consolidates after that one",
                p.name
            ),
        ));
    }
    let (Some(from), Some(fp)) = (p.pose, footprint_of(ctx, p)) else {
        return Err(err("SEQ-01", format!("{} is not on the table", p.name)));
    };
    let ms = measure_scale(ctx);
    let d = sub(to.at, from.at);
    let along = dot(d, heading(from.facing_deg));
    let across = dot(d, right_of(from.facing_deg)).abs();
    if along < -1e-6 || across > 0.05 * ms {
        return Err(err(
            "CHG-24",
            format!("{} consolidates only in the direction it faces", p.name),
        ));
    }
    if along > CONSOLIDATE_CM * ms + 1e-6 {
        return Err(err(
            "CHG-24",
            format!(
                "{} may consolidate at most {} cm ({along:.1} cm asked)",
                p.name,
                CONSOLIDATE_CM * ms
            ),
        ));
    }
    let mut scratch = ctx.state.clone();
    let mut overrun = Vec::new();
    if along > 1e-9 {
        let outcome = forced_move(
            ctx,
            piece,
            ForcedKind::Retreat,
            from.facing_deg,
            along,
            to.facing_deg,
        )?;
        overruns_of(&outcome, &mut overrun);
        match outcome {
            ForcedOutcome::Moved { .. } => {}
            ForcedOutcome::StoppedByFriend { .. } => {
                return Err(err("CHG-24", format!("{} would run into a friend", p.name)))
            }
            ForcedOutcome::KnockedOut { reason, .. } => {
                return Err(err(
                    "CHG-24",
                    format!("{} cannot go there: {reason}", p.name),
                ))
            }
        }
        let end_centre = footprint_of(ctx, &with_pose(p, to)).map_or(to.at, |f| f.centroid());
        let crossings = path_crossings(&ctx.scenario.terrain, &[fp.centroid(), end_centre]);
        if let Some(cr) = crossings
            .iter()
            .find(|c| !matches!(c.kind, TerrainKind::Road | TerrainKind::Open))
        {
            let name = ctx
                .scenario
                .terrain
                .iter()
                .find(|f| f.id == cr.feature)
                .map_or(String::new(), |f| f.name.clone());
            return Err(err(
                "CHG-24",
                format!("a consolidation stops at the boundary of {name}"),
            ));
        }
        let mover = super::terrain::mover_of(ctx, p);
        if let Some(name) =
            super::engineering::defence_across(ctx, mover, fp.centroid(), end_centre)
        {
            return Err(err(
                "CHG-24",
                format!(
                    "a consolidation stops at the {name} in the way (only a gap cleared in it \
                     lets a unit through)"
                ),
            ));
        }
    }
    if let Some(q) = scratch.pieces.get_mut(&piece) {
        q.pose = Some(to);
    }
    let c = view(ctx, &scratch);
    if let Some(end) = c.state.piece(piece).and_then(|q| footprint_of(&c, q)) {
        for q in c.state.pieces.values() {
            if q.id == piece || !q.on_table() {
                continue;
            }
            let Some(qfp) = footprint_of(&c, q) else {
                continue;
            };
            let touches_enemy = q.id.side() != piece.side()
                && edge_distance(&end, &qfp) <= CONTACT_TOLERANCE_CM * ms;
            if touches_enemy || overlaps(&end, &qfp) {
                return Err(err(
                    "CHG-24",
                    format!(
                        "{} would end on or against {}; a consolidation never makes contact",
                        p.name, q.name
                    ),
                ));
            }
        }
    }
    let sight = sight_index(&c);
    for (e, dist) in sight.visible_enemies(piece) {
        if dist < CONSOLIDATE_CLEAR_CM * ms - 1e-9 {
            let name = ctx.state.piece(e).map_or(e.to_string(), |q| q.name.clone());
            return Err(err(
                "CHG-24",
                format!(
                    "{} may not end a consolidation within {} cm of {} ({dist:.1} cm)",
                    p.name,
                    CONSOLIDATE_CLEAR_CM * ms,
                    name
                ),
            ));
        }
    }
    // CMD-25: command units run over on the way.
    let mut v = vec![Event::Consolidated { piece, from, to }];
    v.extend(super::command::overrun_events(ctx, &overrun)?);
    Ok(v)
}

// ---------------------------------------------------------------------------------------------
// The initiative evade (INIT-05).

/// INIT-05 (with INIT-02, INIT-03, FIRE-29): the unit moves up to its full Move directly away
/// from its nearest visible enemy within 20 cm, ending facing `facing_deg` if given.
pub fn resolve_evade(
    ctx: &Ctx,
    piece: PieceId,
    facing_deg: Option<f64>,
    mount: bool,
) -> Result<Vec<Event>, ActionError> {
    let t = ctx.state.turn;
    if t.phase != Phase::Initiative {
        return Err(err(
            "INIT-05",
            "an evade of one's own is an initiative action (evading a charge is a response)",
        ));
    }
    check_no_open_window(ctx)?;
    let p = ctx.piece(piece)?;
    if piece.is_command() {
        return Err(err(
            "INIT-03",
            format!("{} is a command unit and takes no initiative", p.name),
        ));
    }
    check_may_act(ctx, p)?;
    if p.suppressed_at.is_some() {
        return Err(err(
            "INIT-03",
            format!("{} is suppressed and takes no initiative", p.name),
        ));
    }
    if ctx.state.charges.combat_of(piece).is_some() {
        return Err(err(
            "INIT-03",
            format!("{} is in an unresolved combat", p.name),
        ));
    }
    check_can_evade(ctx, p)?;
    if mount && !is_dismounted_cavalry(ctx, p) {
        return Err(err(
            "INIT-05",
            format!(
                "{} is not dismounted cavalry and has no horses to mount",
                p.name
            ),
        ));
    }
    let sight = sight_index(ctx);
    let ms = measure_scale(ctx);
    let Some((enemy, d)) = sight
        .visible_enemies(piece)
        .into_iter()
        .find(|(id, _)| !id.is_command())
    else {
        return Err(err("INIT-05", format!("{} sees no enemy to evade", p.name)));
    };
    if d > INITIATIVE_CM * ms + 1e-9 {
        return Err(err(
            "INIT-05",
            format!(
                "{}'s nearest visible enemy is {d:.1} cm away; evading needs one within {} cm",
                p.name,
                INITIATIVE_CM * ms
            ),
        ));
    }
    let away = ctx
        .state
        .piece(enemy)
        .and_then(|e| footprint_of(ctx, e))
        .map(|f| f.centroid());
    let Some(away) = away else {
        return Err(err("INIT-05", "the enemy is not on the table"));
    };
    evade_events(
        ctx,
        p,
        enemy,
        away,
        facing_deg,
        (is_artillery(ctx, p) && !p.limbered) || mount,
    )
}

/// INIT-05 (b): a unit fighting as its list's dismounted-cavalry row (COL-02).
fn is_dismounted_cavalry(ctx: &Ctx, p: &PieceState) -> bool {
    ctx.row(p)
        .is_some_and(|r| r.role == crate::model::RowRole::DismountedMode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotate_is_clockwise() {
        let p = rotate(Point::new(0.0, 1.0), Point::new(0.0, 0.0), 90.0);
        assert!((p.x - 1.0).abs() < 1e-12 && p.y.abs() < 1e-12);
    }

    #[test]
    fn chg_14_chg_15_dice_table_and_floor() {
        let s = ChargeDiceSituation {
            stands: 4,
            dice_per_stand: 3,
            charging: true,
            heavy: true,
            ..Default::default()
        };
        assert_eq!(charge_dice(&s).dice, 14);
        let s = ChargeDiceSituation {
            stands: 1,
            dice_per_stand: 1,
            suppressed: true,
            flank_or_rear: true,
            disordered: true,
            ..Default::default()
        };
        let d = charge_dice(&s);
        assert_eq!(d.dice, 1);
        assert_eq!(d.modifiers.last().map(|x| x.rule.as_str()), Some("FIRE-12"));
    }

    #[test]
    fn move_18_one_level_better() {
        assert_eq!(one_level_better(Cover::Open), Cover::Soft);
        assert_eq!(one_level_better(Cover::Soft), Cover::Hard);
        assert_eq!(one_level_better(Cover::Hard), Cover::Hard);
        assert_eq!(one_level_better(Cover::Full), Cover::Full);
    }
}
