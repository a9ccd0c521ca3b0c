//! The engine API a table and the solo opponent drive (issue #16 item 1, ARCHITECTURE.md "The
//! battle window"): three questions a battle answers without rolling one of its dice or
//! changing anything.
//!
//! * [`Battle::check`]: the whole legality check [`Battle::perform`] makes — the same
//!   `battle::resolve` (orders gate CMD-04/CMD-15, FIRE-06, CMD-13 included), run on a copy of
//!   the dice stream and thrown away. On a seeded battle the copy draws exactly the dice
//!   `perform` would, so `check` accepts exactly what `perform` accepts; a scripted (physical)
//!   source that would run out is carried on by a probe that never does, so the answer is
//!   "legal under the rules" plus how many dice, for what, the referee must roll
//!   ([`Checked`]).
//! * [`Battle::pending`]: who must decide what now ([`Pending`], [`Decision`]): the active
//!   side's phase and orders, an open charge-response window with the units that may respond
//!   and how, supports, combats to fight, consolidations, a replacement commander (CMD-28), a
//!   breakpoint test due (BRK-02) and the end of the battle.
//! * [`Battle::options`]: what one unit may do now ([`Options`]): fire targets and charge
//!   targets each with a [`DicePreview`] (dice, score needed, save, every modifier with its rule
//!   ID), formation changes, limbering, mounting, evading and its movement envelope; and
//!   [`Battle::order_preview`] for a command roll (target number and each modifier).
//!
//! Everything offered is what the check accepts (each offer is a `check` of the action it
//! stands for), and every number comes from the functions resolution itself uses:
//! `firing::preview_attack` (the attack `resolve_fire` rolls), `casualty::save_plan`, and for
//! charges and orders the dice events of a dry run. No rule is copied here.
//!
//! The answers are plain serde data (pieces by id, decisions, modifiers with rule IDs, labels
//! in our words), the shape a second rule system can also provide and the CLI prints as JSON.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::action::{Action, Manoeuvre};
use super::apply::apply_all;
use super::battle::{check_may_act, resolve, resolve_bare, Battle, Ctx};
use super::casualty::{save_plan, Attack};
use super::charge::{check_charge, check_not_engaged, Edge, Response};
use super::command::{orderable_units, OrderOutcome, OrderedUnit, OrdersMode, UnitActionKind};
use super::dice::{Dice, DiceError};
use super::error::ActionError;
use super::event::{Event, Modifier};
use super::state::{Formation, Phase, PieceId, PieceState, Pose};
use super::victory::BattleResult;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------------
// The answers (plain data).

/// Dice drawn one after another for one purpose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draw {
    pub purpose: String,
    pub dice: usize,
}

/// An action the rules accept, and the dice `perform` would draw for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checked {
    /// Dice the action draws (on a seeded battle, exactly those `perform` draws).
    pub dice: usize,
    /// What they are for, in the order drawn. With physical dice, what the referee rolls.
    pub draws: Vec<Draw>,
    /// Of `dice`, those past the end of a scripted source (to be rolled and typed in before
    /// `perform` can carry the action out). Always 0 on a seeded battle.
    pub beyond_script: usize,
}

/// One roll of an attack, before it is rolled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RollPreview {
    pub purpose: String,
    /// The rule the roll is made under (FIRE-14, CHG-16 …).
    pub rule: String,
    /// The units whose dice these are.
    pub firers: Vec<PieceId>,
    pub dice: u32,
    /// The score each die needs (`None` where the roll has no single score).
    pub score: Option<u8>,
    /// FIRE-13: +1 on each die (the first ranged attack of the game).
    pub first_fire: bool,
    /// How the dice and the score were reached, each with its rule ID.
    pub modifiers: Vec<Modifier>,
}

/// The target's save against the attack (FIRE-17..FIRE-19).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavePreview {
    /// The score a save die needs (`None`: no save).
    pub score: Option<u8>,
    /// Save dice beyond one per hit (FIRE-19: a line's bonus die).
    pub bonus_dice: u32,
    pub modifiers: Vec<Modifier>,
}

/// An attack's dice before anything is rolled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DicePreview {
    pub rolls: Vec<RollPreview>,
    pub save: Option<SavePreview>,
    /// GEN-12: the hits this player turn that knock the target out, and those it has.
    pub ko_threshold: Option<u32>,
    pub hits_before: Option<u32>,
    /// What the preview leaves to the dice (shell's landing point, responses to a charge …).
    pub note: Option<String>,
}

/// A target a unit may fire at now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FireOption {
    pub target: PieceId,
    pub name: String,
    /// Edge to edge, at declaration.
    pub distance_cm: f64,
    /// Stands that fire (FIRE-05).
    pub stands: u32,
    pub preview: DicePreview,
    /// OPT-AIRBURST-01: the same fire with air-burst shell is accepted too (the preview is the
    /// default load's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub air_burst: bool,
}

/// A target a unit may charge now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChargeOption {
    pub target: PieceId,
    pub name: String,
    /// The edge it goes for (CHG-10) and the charge distance it uses.
    pub edge: Edge,
    pub distance_cm: f64,
    /// The first round's dice if nobody responds (`None`, with the reason in the note, when
    /// the combat could not be previewed).
    pub preview: Option<DicePreview>,
    pub note: Option<String>,
    /// OPT-SABER-01: the same charge declared as a saber charge is accepted too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub saber: bool,
    /// OPT-SABER-02: the first round's dice of that saber charge if nobody responds (with its
    /// extra die per mounted stand); `None` when no saber charge is offered or it could not be
    /// previewed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saber_preview: Option<DicePreview>,
}

/// OPTIONAL constructions (OPT-CONSTR-03): a building or bought work a gun may fire at now
/// (`FireAtConstruction` with `at` none), and how damaged it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConstructionOffer {
    pub construction: super::construction::ConstructionId,
    pub name: String,
    /// The 5 cm segment the shot strikes, and its hits so far of the Hits that bring the
    /// construction down (OPT-CONSTR-01).
    pub segment: u32,
    pub hits: u32,
    pub of: u32,
    /// The dice the guns roll at it (hit only on 6).
    pub dice: usize,
}

/// What a unit may do now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Options {
    pub piece: PieceId,
    pub name: String,
    /// The kinds of action it has at least one legal offer of now (a Move: the orders gate and
    /// the unit's state allow one; where to is the envelope).
    pub kinds: Vec<UnitActionKind>,
    pub fire: Vec<FireOption>,
    pub charges: Vec<ChargeOption>,
    /// Formations it may deploy into (MOVE-09, MOVE-10, MOVE-16).
    pub formations: Vec<Formation>,
    pub limber: bool,
    /// Unlimbering facing as it stands.
    pub unlimber: bool,
    pub mount: bool,
    pub dismount: bool,
    /// INIT-05: evading the nearest visible enemy.
    pub evade: bool,
    /// CHG-24 (ENG-03, ENG-05): it holds a right to consolidate now (a combat win, or a gap its
    /// engineers have just made); where to is checked when it moves (`Consolidate`).
    #[serde(default)]
    pub consolidate: bool,
    /// OPT-PRONE-01: it may lie down now (a Deploy action).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prone: bool,
    /// OPT-PRONE-01: it lies prone and may stand up now (a Deploy action).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stand_up: bool,
    /// Legal end poses of an advance (MOVE-02..MOVE-08), sampled on a grid; `None` when not
    /// asked for or no move is allowed now.
    pub envelope: Option<Vec<Pose>>,
    /// OPT-SCOUT-01: it may send one stand out as a scout now (`deploy_scout`; the place is
    /// checked when it is given).
    #[serde(default)]
    pub deploy_scout: bool,
    /// OPT-SCOUT-02 (a): a scout not yet launched — the command units that may make its
    /// initial roll now (`launch_scout`).
    #[serde(default)]
    pub launch_by: Vec<PieceId>,
    /// OPT-MULTI-02: a command unit — the communication rolls it may make now (`communicate`):
    /// `None` one-way, `Some(partner)` two-way with that team-mate's command unit.
    #[serde(default)]
    pub communicate: Vec<Option<PieceId>>,
    /// OPT-CONSTR-03: buildings and works it may fire at now (empty unless constructions are
    /// in use).
    #[serde(default)]
    pub constructions: Vec<ConstructionOffer>,
    /// OPT-FIXED-03 (fixed formations): the formations the CO may transfer it to now, each
    /// with a placement the check accepts. Empty when the option is off.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transfer: Vec<TransferOption>,
}

/// OPT-FIXED-03: a formation a unit may be transferred to, and where it would be placed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransferOption {
    pub to_hq: crate::model::HqId,
    /// The receiving HQ's name.
    pub name: String,
    /// A placement within 10 cm of it that the rules accept (others may be given).
    pub at: Pose,
}

/// A unit of the inactive side that may answer a charge, and the answers the rules accept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Responder {
    pub piece: PieceId,
    pub responses: Vec<Response>,
}

/// A unit that may move into support of a friend in a pending combat (CHG-07, CHG-08).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SupportOffer {
    pub piece: PieceId,
    pub friend: PieceId,
}

/// One decision someone must (or may) take now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "decision")]
pub enum Decision {
    /// The active side acts in its phase (SEQ-03) and ends it (`may_end`: `EndPhase` is
    /// accepted now).
    Phase {
        side: usize,
        phase: Phase,
        may_end: bool,
    },
    /// A command unit may issue an order to these units (CMD-02..CMD-06, CMD-29).
    Order {
        side: usize,
        command: PieceId,
        units: Vec<PieceId>,
    },
    /// INIT-09 step 3: the charge on `target` waits for the inactive side's responses
    /// (INIT-10, INIT-12..INIT-15, CHG-09, ART-04), then `CloseResponse`.
    ChargeResponse {
        side: usize,
        target: PieceId,
        chargers: Vec<PieceId>,
        responders: Vec<Responder>,
    },
    /// Units that may support a side of the charge on `target` (CHG-07, CHG-08, INIT-11).
    Support {
        side: usize,
        target: PieceId,
        offers: Vec<SupportOffer>,
    },
    /// The combat of the charge on `target` is ready to be fought (`ResolveCharge`, SEQ-04).
    FightCombat { target: PieceId },
    /// CHG-24: a winner may consolidate (`target`: the unit of the combat won), or ENG-03 /
    /// ENG-05: engineers may consolidate through the gap they have just made (`target` none).
    Consolidate {
        side: usize,
        piece: PieceId,
        target: Option<PieceId>,
    },
    /// CMD-28: a lost command unit may be placed back now (`ReplaceCommand`).
    ReplaceCommand { side: usize, piece: PieceId },
    /// BRK-02: the side whose player turn comes next tests its breakpoint when it begins (the
    /// roll is made as the End phase ends).
    BreakTestDue { side: usize },
    /// END-03: the battle is over.
    Over { result: Option<BattleResult> },
}

/// Who must decide what now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    pub game_turn: u32,
    pub player_turn: u32,
    /// The side whose player turn it is.
    pub active: usize,
    pub phase: Phase,
    /// The side whose answer the battle waits for first (the inactive side while a response
    /// window is open).
    pub side: usize,
    pub decisions: Vec<Decision>,
}

/// A command roll before it is rolled (CMD-03..CMD-05, CMD-17, CMD-18).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderPreview {
    pub command: PieceId,
    /// The command value before modifiers (CMD-01).
    pub value: u8,
    /// The highest 2D6 total that succeeds.
    pub target: i32,
    pub modifiers: Vec<Modifier>,
    /// Chances over the 36 throws of 2D6 ([`super::command::roll_outcome`]): success (bonus
    /// included), command bonus (double one) and blunder (double six).
    pub success: f64,
    pub bonus: f64,
    pub blunder: f64,
}

// ---------------------------------------------------------------------------------------------
// The dice of a dry run.

/// What a die past the end of a scripted source reads in a dry run.
const PROBE_FACE: u8 = 4;

/// The dice of a dry run: the battle's stream copied where it stands, carried on past the end
/// of a script by [`PROBE_FACE`]s, with every draw recorded.
struct Probe {
    inner: Option<Box<dyn Dice>>,
    start: usize,
    used: usize,
    beyond: usize,
    draws: Vec<Draw>,
}

impl Probe {
    fn over(inner: Box<dyn Dice>) -> Probe {
        let start = inner.used();
        Probe {
            inner: Some(inner),
            start,
            used: start,
            beyond: 0,
            draws: Vec::new(),
        }
    }

    fn checked(&self) -> Checked {
        Checked {
            dice: self.used - self.start,
            draws: self.draws.clone(),
            beyond_script: self.beyond,
        }
    }
}

impl Clone for Probe {
    fn clone(&self) -> Probe {
        Probe {
            inner: self.inner.as_ref().map(|d| d.boxed_clone()),
            start: self.start,
            used: self.used,
            beyond: self.beyond,
            draws: self.draws.clone(),
        }
    }
}

impl Dice for Probe {
    fn d6(&mut self, purpose: &str) -> Result<u8, DiceError> {
        let drawn = match self.inner.as_mut().map(|d| d.d6(purpose)) {
            Some(Ok(v)) => Some(v),
            // A scripted source that ran out, or physical dice (which hold none): the rest
            // are stand-ins, so a battle played with physical dice gets its checks and
            // previews like any other.
            Some(Err(DiceError::Exhausted { .. } | DiceError::Needed { .. })) | None => None,
            Some(Err(e)) => return Err(e),
        };
        let v = drawn.unwrap_or_else(|| {
            self.inner = None;
            self.beyond += 1;
            PROBE_FACE
        });
        self.used += 1;
        match self.draws.last_mut() {
            Some(d) if d.purpose == purpose => d.dice += 1,
            _ => self.draws.push(Draw {
                purpose: purpose.to_string(),
                dice: 1,
            }),
        }
        Ok(v)
    }

    fn used(&self) -> usize {
        self.used
    }

    fn boxed_clone(&self) -> Box<dyn Dice> {
        Box::new(self.clone())
    }
}

// ---------------------------------------------------------------------------------------------
// Previews from the resolution's own numbers.

/// The preview of a direct attack as `resolve_fire` would roll it.
fn attack_preview(attack: &Attack) -> DicePreview {
    let save = save_plan(&attack.target.save);
    DicePreview {
        rolls: attack
            .groups
            .iter()
            .filter(|g| g.dice > 0)
            .map(|g| RollPreview {
                purpose: g.purpose.clone(),
                rule: g.rule.clone(),
                firers: g.firers.clone(),
                dice: g.dice,
                score: Some(g.needed),
                first_fire: g.first_fire,
                modifiers: g.modifiers.clone(),
            })
            .collect(),
        save: Some(SavePreview {
            score: save.target,
            bonus_dice: save.bonus_dice,
            modifiers: save.modifiers,
        }),
        ko_threshold: Some(attack.target.ko_threshold),
        hits_before: Some(attack.target.hits_before),
        note: None,
    }
}

/// The rolls of a dry run's events up to the end of the first combat round (CHG-13..CHG-16):
/// each `DiceRolled` with its count and modifiers; the score is the CHG-16 score its
/// modifiers name.
fn first_round_rolls(events: &[Event]) -> Vec<RollPreview> {
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::CombatRound { .. } => break,
            Event::DiceRolled {
                piece,
                purpose,
                rule,
                dice,
                modifiers,
            } => out.push(RollPreview {
                purpose: purpose.clone(),
                rule: rule.clone(),
                firers: piece.iter().copied().collect(),
                dice: u32::try_from(dice.len()).unwrap_or(u32::MAX),
                score: modifiers
                    .iter()
                    .rev()
                    .find(|m| m.rule == "CHG-16")
                    .and_then(|m| u8::try_from(m.value).ok()),
                first_fire: false,
                modifiers: modifiers.clone(),
            }),
            _ => {}
        }
    }
    out
}

impl Battle {
    /// Resolves `action` on a copy of the dice stream and returns the events it would record
    /// and the dice it drew. Nothing of the battle changes.
    fn dry_run(&self, action: &Action) -> Result<(Vec<Event>, Probe), ActionError> {
        let mut probe = Probe::over(self.dice_copy());
        let ctx = self.ctx();
        let events = resolve(&ctx, action, &mut probe)?;
        Ok((events, probe))
    }

    /// The whole check `perform` makes, without performing: `Ok` exactly when `perform` would
    /// carry the action out (with a scripted source: when it would, given enough dice), with
    /// the dice it would draw and what for. Draws none of the battle's dice, changes nothing.
    pub fn check(&self, action: &Action) -> Result<Checked, ActionError> {
        // The reveals an action calls for draw no dice and refuse nothing (VIS-17).
        let mut probe = Probe::over(self.dice_copy());
        resolve_bare(&self.ctx(), action, &mut probe)?;
        Ok(probe.checked())
    }

    /// The ruler: distance and line of sight between two units, a unit and a point, or two
    /// points (VIS-01..VIS-17, [`super::visibility::SightIndex::sight_between`]), for the
    /// battle as it stands. Changes nothing.
    pub fn sight_between(
        &self,
        a: super::visibility::SightEnd,
        b: super::visibility::SightEnd,
    ) -> super::visibility::SightReport {
        let ctx = self.ctx();
        super::visibility::sight_index(&ctx).sight_between(a, b)
    }

    /// The fire preview of one unit at one target, if it may fire at it now.
    fn fire_option(&self, piece: PieceId, target: &PieceState) -> Option<FireOption> {
        let action = Action::Fire {
            firers: vec![piece],
            target: target.id,
            ammunition: None,
        };
        self.check(&action).ok()?;
        let ctx = self.ctx();
        let plan = super::firing::check_fire(&ctx, &[piece], target.id, None).ok()?;
        let first = plan.firers.first()?;
        let preview = match super::firing::preview_attack(&ctx, &plan) {
            Ok(Some(attack)) => attack_preview(&attack),
            _ => DicePreview {
                rolls: Vec::new(),
                save: None,
                ko_threshold: None,
                hits_before: Some(target.hits),
                note: Some(
                    "shell: the units attacked and their dice depend on where it lands (ART-03)"
                        .into(),
                ),
            },
        };
        let air_burst = super::firing::air_burst_in_use(&ctx)
            && self
                .check(&Action::Fire {
                    firers: vec![piece],
                    target: target.id,
                    ammunition: Some(super::artillery::Ammunition::AirBurst),
                })
                .is_ok();
        Some(FireOption {
            target: target.id,
            name: target.name.clone(),
            distance_cm: first.distance_cm,
            stands: first.stands,
            preview,
            air_burst,
        })
    }

    /// The first round of a charge's combat if nobody responds: the charge (a saber charge with
    /// `saber`, OPT-SABER-01..02), the closing of the window and the combat run on scratch
    /// copies, their dice events read.
    fn charge_preview(
        &self,
        piece: PieceId,
        target: PieceId,
        saber: bool,
    ) -> Result<DicePreview, ActionError> {
        let (declared, mut probe) = self.dry_run(&Action::Charge {
            chargers: vec![piece],
            target,
            saber,
        })?;
        let mut state = self.state().clone();
        apply_all(&mut state, &declared);
        let closed = {
            let ctx = Ctx::new(self.scenario(), self.lists(), &state);
            resolve(&ctx, &Action::CloseResponse { target }, &mut probe)?
        };
        apply_all(&mut state, &closed);
        let fought = {
            let ctx = Ctx::new(self.scenario(), self.lists(), &state);
            resolve(&ctx, &Action::ResolveCharge { target }, &mut probe)?
        };
        let rolls = first_round_rolls(&fought);
        let note = if rolls.is_empty() {
            "no contact is made: nothing is fought".to_string()
        } else {
            "first round, if no unit responds (INIT-09); saves follow the hits".to_string()
        };
        Ok(DicePreview {
            rolls,
            save: None,
            ko_threshold: None,
            hits_before: self.state().piece(target).map(|p| p.hits),
            note: Some(note),
        })
    }

    fn charge_option(&self, piece: PieceId, target: &PieceState) -> Option<ChargeOption> {
        let action = Action::Charge {
            chargers: vec![piece],
            target: target.id,
            saber: false,
        };
        self.check(&action).ok()?;
        let ctx = self.ctx();
        let checked = check_charge(&ctx, &[piece], target.id).ok()?;
        let plan = checked.chargers.first()?;
        let (preview, note) = match self.charge_preview(piece, target.id, false) {
            Ok(p) => (Some(p), None),
            Err(e) => (None, Some(format!("no preview: {e}"))),
        };
        let saber = super::charge::saber_in_use(&ctx)
            && self
                .check(&Action::Charge {
                    chargers: vec![piece],
                    target: target.id,
                    saber: true,
                })
                .is_ok();
        let saber_preview = if saber {
            self.charge_preview(piece, target.id, true).ok()
        } else {
            None
        };
        Some(ChargeOption {
            target: target.id,
            name: target.name.clone(),
            edge: plan.edge,
            distance_cm: plan.distance_cm,
            preview,
            note,
            saber,
            saber_preview,
        })
    }

    /// What `piece` may do now, each offer one `check` accepts, with dice previews; no
    /// movement envelope (see [`Battle::options_with`]).
    pub fn options(&self, piece: PieceId) -> Result<Options, ActionError> {
        self.options_with(piece, None)
    }

    /// [`Battle::options`] with the movement envelope sampled every `resolution_cm` cm of the
    /// table (`movement::MoveChecker::destinations`), when a move is allowed now.
    pub fn options_with(
        &self,
        piece: PieceId,
        envelope_resolution_cm: Option<f64>,
    ) -> Result<Options, ActionError> {
        let ctx = self.ctx();
        let p = ctx.piece(piece)?;
        let ok = |a: Action| self.check(&a).is_ok();
        let enemies: Vec<&PieceState> = ctx
            .state
            .pieces
            .values()
            .filter(|q| q.id.side() != piece.side() && !q.id.is_command() && q.on_table())
            .collect();
        let may_act = p.on_table() && !piece.is_command();
        let fire: Vec<FireOption> = if may_act {
            enemies
                .iter()
                .filter_map(|t| self.fire_option(piece, t))
                .collect()
        } else {
            Vec::new()
        };
        let charges: Vec<ChargeOption> = if may_act {
            enemies
                .iter()
                .filter_map(|t| self.charge_option(piece, t))
                .collect()
        } else {
            Vec::new()
        };
        let formations: Vec<Formation> = Formation::ALL
            .into_iter()
            .filter(|f| {
                p.formation.is_some()
                    && ok(Action::Deploy {
                        piece,
                        formation: *f,
                    })
            })
            .collect();
        let facing = p.pose.map_or(0.0, |q| q.facing_deg);
        let limber = ok(Action::Limber { piece });
        let unlimber = ok(Action::Unlimber {
            piece,
            facing_deg: facing,
        });
        let mount = ok(Action::Mount { piece });
        let dismount = ok(Action::Dismount {
            piece,
            troop_type: None,
        });
        let evade = ok(Action::Evade {
            piece,
            facing_deg: None,
            mount: false,
        });
        let consolidate =
            p.on_table() && super::charge::check_consolidation_right(&ctx, piece).is_ok();
        let in_use = super::prone::prone_in_use(&ctx);
        let prone = in_use && ok(Action::Prone { piece, prone: true });
        let stand_up = in_use
            && ok(Action::Prone {
                piece,
                prone: false,
            });
        let constructions = if may_act {
            self.construction_offers(piece)
        } else {
            Vec::new()
        };
        // A move: the unit may act, is not held in a combat, and the orders gate lets a move
        // of it through (standing still, so no declaration about the path is read).
        let may_move = p.pose.is_some_and(|pose| {
            check_may_act(&ctx, p).is_ok()
                && check_not_engaged(&ctx, piece).is_ok()
                && super::prone::check_may_move(&ctx, p).is_ok()
                && super::command::authorize(
                    &ctx,
                    &Action::Move {
                        piece,
                        via: Vec::new(),
                        to: pose,
                        manoeuvre: Manoeuvre::Advance,
                    },
                )
                .is_ok()
        });
        let envelope = envelope_resolution_cm
            .filter(|_| may_move)
            .map(|r| super::movement::legal_destinations(&ctx, piece, Manoeuvre::Advance, r));
        let mut kinds = Vec::new();
        if may_move && envelope.as_ref().is_none_or(|e| !e.is_empty()) {
            kinds.push(UnitActionKind::Move);
        }
        if !formations.is_empty() || limber || unlimber || mount || dismount || prone || stand_up {
            kinds.push(UnitActionKind::Deploy);
        }
        if !fire.is_empty() {
            kinds.push(UnitActionKind::Fire);
        }
        if !charges.is_empty() {
            kinds.push(UnitActionKind::Charge);
        }
        if evade {
            kinds.push(UnitActionKind::Evade);
        }
        let transfer = self.transfer_options(&ctx, p);
        let deploy_scout =
            super::scouting::on(&ctx) && super::scouting::check_deploy_scout(&ctx, piece).is_ok();
        let command_units: Vec<PieceId> = ctx
            .state
            .pieces
            .keys()
            .filter(|id| id.is_command() && id.side() == piece.side())
            .copied()
            .collect();
        let launch_by: Vec<PieceId> = if super::scouting::is_active_scout(ctx.state, piece)
            && ctx.state.scouts.get(piece).is_some_and(|s| !s.launched)
        {
            command_units
                .iter()
                .filter(|c| {
                    ok(Action::LaunchScout {
                        command: **c,
                        scout: piece,
                    })
                })
                .copied()
                .collect()
        } else {
            Vec::new()
        };
        let communicate: Vec<Option<PieceId>> =
            if piece.is_command() && super::comms::on(ctx.scenario) {
                std::iter::once(None)
                    .chain(
                        command_units
                            .iter()
                            .filter(|c| **c != piece)
                            .map(|c| Some(*c)),
                    )
                    .filter(|partner| {
                        ok(Action::Communicate {
                            command: piece,
                            partner: *partner,
                        })
                    })
                    .collect()
            } else {
                Vec::new()
            };
        Ok(Options {
            deploy_scout,
            launch_by,
            communicate,
            transfer,
            piece,
            name: p.name.clone(),
            kinds,
            fire,
            charges,
            formations,
            limber,
            unlimber,
            mount,
            dismount,
            evade,
            consolidate,
            prone,
            stand_up,
            envelope,
            constructions,
        })
    }

    /// The buildings and works `piece` may fire at now, each one `check` accepts.
    pub fn construction_offers(&self, piece: PieceId) -> Vec<ConstructionOffer> {
        let ctx = self.ctx();
        super::construction::sites(&ctx)
            .into_iter()
            .filter_map(|site| {
                let checked = self
                    .check(&Action::FireAtConstruction {
                        firers: vec![piece],
                        construction: site.id,
                        at: None,
                    })
                    .ok()?;
                let segment = super::construction::aimed_segment(&ctx, piece, &site, None);
                Some(ConstructionOffer {
                    construction: site.id,
                    name: site.name.clone(),
                    segment,
                    hits: ctx.state.constructions.hits(site.id, segment),
                    of: site.profile().hits,
                    dice: checked
                        .draws
                        .iter()
                        .filter(|d| d.purpose == "fire at construction")
                        .map(|d| d.dice)
                        .sum(),
                })
            })
            .collect()
    }

    /// OPT-FIXED-03: for each other HQ of the unit's side, the first spot beside it
    /// (`allegiance::transfer_spots`) where a transfer `check` accepts is offered.
    fn transfer_options(&self, ctx: &Ctx, p: &PieceState) -> Vec<TransferOption> {
        use super::allegiance::{check_transfer, fixed_formations, transfer_spots};
        if !fixed_formations(ctx.scenario) || p.id.is_command() || !p.on_table() {
            return Vec::new();
        }
        let Some(side) = ctx.scenario.sides.get(p.id.side()) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for h in &side.hqs {
            let id = PieceId::Hq {
                side: p.id.side(),
                hq: h.id,
            };
            let Ok(hp) = ctx.piece(id) else { continue };
            // A spot check without dice first: most HQs are refused for the unit, not the spot.
            let spots = transfer_spots(ctx, hp, p);
            let Some(at) = spots.into_iter().find(|at| {
                check_transfer(ctx, p.id, h.id, *at).is_ok()
                    && self
                        .check(&Action::Transfer {
                            piece: p.id,
                            to_hq: h.id,
                            at: *at,
                        })
                        .is_ok()
            }) else {
                continue;
            };
            out.push(TransferOption {
                to_hq: h.id,
                name: hp.name.clone(),
                at,
            });
        }
        out
    }

    /// The command roll of this order before it is rolled: the order must be one the rules
    /// accept now (the refusal otherwise). Its value, target and modifiers are those the roll
    /// itself records (a dry run of `IssueOrder`).
    pub fn order_preview(
        &self,
        command: PieceId,
        units: &[OrderedUnit],
    ) -> Result<OrderPreview, ActionError> {
        let (events, _) = self.dry_run(&Action::IssueOrder {
            command,
            units: units.to_vec(),
        })?;
        let modifiers = events
            .iter()
            .find_map(|e| match e {
                Event::DiceRolled {
                    purpose, modifiers, ..
                } if purpose == "command roll" => Some(modifiers.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let Some((value, target)) = events.iter().find_map(|e| match e {
            Event::OrderRolled(r) => Some((r.value, r.target)),
            _ => None,
        }) else {
            return Err(ActionError::Unsupported {
                rule: "CMD-03",
                what: "an order that makes no command roll".into(),
            });
        };
        let (mut success, mut bonus, mut blunder) = (0u32, 0u32, 0u32);
        for a in 1..=6u8 {
            for b in 1..=6u8 {
                match super::command::roll_outcome([a, b], target) {
                    OrderOutcome::Success => success += 1,
                    OrderOutcome::Bonus => {
                        success += 1;
                        bonus += 1;
                    }
                    OrderOutcome::Blunder => blunder += 1,
                    OrderOutcome::Failure => {}
                }
            }
        }
        Ok(OrderPreview {
            command,
            value,
            target,
            modifiers,
            success: f64::from(success) / 36.0,
            bonus: f64::from(bonus) / 36.0,
            blunder: f64::from(blunder) / 36.0,
        })
    }

    /// Who must decide what now.
    pub fn pending(&self) -> Pending {
        let ctx = self.ctx();
        let st = ctx.state;
        let t = st.turn;
        let mut decisions = Vec::new();
        if t.phase == Phase::Over {
            let result = self
                .events()
                .filter_map(|e| match e {
                    Event::BattleResult(r) => Some(r.clone()),
                    _ => None,
                })
                .last();
            return Pending {
                game_turn: t.game_turn,
                player_turn: t.player_turn,
                active: t.active,
                phase: t.phase,
                side: t.active,
                decisions: vec![Decision::Over { result }],
            };
        }
        let inactive = 1 - t.active.min(1);
        let mut side = t.active;
        for c in &st.charges.combats {
            let chargers: Vec<PieceId> = c.chargers.iter().map(|k| k.piece).collect();
            if c.window_open {
                side = 1 - c.attacker.min(1);
                let responders = st
                    .pieces
                    .values()
                    .filter(|q| q.id.side() == side && !q.id.is_command() && q.on_table())
                    .filter_map(|q| {
                        let responses: Vec<Response> = self
                            .response_candidates(q, &chargers)
                            .into_iter()
                            .filter(|r| {
                                self.check(&Action::Respond {
                                    piece: q.id,
                                    target: c.target,
                                    response: r.clone(),
                                })
                                .is_ok()
                            })
                            .collect();
                        (!responses.is_empty()).then_some(Responder {
                            piece: q.id,
                            responses,
                        })
                    })
                    .collect();
                decisions.push(Decision::ChargeResponse {
                    side,
                    target: c.target,
                    chargers: chargers.clone(),
                    responders,
                });
            } else {
                decisions.push(Decision::FightCombat { target: c.target });
            }
            // CHG-07, CHG-08: supports for either side of this combat.
            let mut friends: Vec<PieceId> = vec![c.target];
            friends.extend(c.chargers.iter().map(|k| k.piece));
            for s in [c.attacker.min(1), 1 - c.attacker.min(1)] {
                let offers: Vec<SupportOffer> =
                    st.pieces
                        .values()
                        .filter(|q| q.id.side() == s && !q.id.is_command() && q.on_table())
                        .filter(|q| st.charges.combat_of(q.id).is_none())
                        .flat_map(|q| {
                            friends.iter().filter(move |f| f.side() == s).map(move |f| {
                                SupportOffer {
                                    piece: q.id,
                                    friend: *f,
                                }
                            })
                        })
                        .filter(|o| {
                            self.check(&Action::Support {
                                piece: o.piece,
                                friend: o.friend,
                            })
                            .is_ok()
                        })
                        .collect();
                if !offers.is_empty() {
                    decisions.push(Decision::Support {
                        side: s,
                        target: c.target,
                        offers,
                    });
                }
            }
        }
        for r in &st.charges.consolidation {
            if r.player_turn == t.player_turn && r.phase == t.phase {
                decisions.push(Decision::Consolidate {
                    side: r.piece.side(),
                    piece: r.piece,
                    target: Some(r.target),
                });
            }
        }
        // ENG-03, ENG-05: engineers that have just cleared or demolished a section.
        for piece in super::engineering::gap_consolidations(st) {
            decisions.push(Decision::Consolidate {
                side: piece.side(),
                piece,
                target: None,
            });
        }
        if t.phase == Phase::Initiative {
            for q in st.pieces.values() {
                let due = q.id.is_command()
                    && q.id.side() == t.active
                    && q.knocked_out
                    && !q.orders.replaced
                    && q.orders.replacement_due == Some(t.player_turn);
                if due {
                    decisions.push(Decision::ReplaceCommand {
                        side: t.active,
                        piece: q.id,
                    });
                }
            }
        }
        if t.phase == Phase::Command && st.command.mode == OrdersMode::Full {
            for q in st.pieces.values() {
                if q.id.is_command() && q.id.side() == t.active && q.on_table() {
                    let units = orderable_units(&ctx, q.id);
                    if !units.is_empty() {
                        decisions.push(Decision::Order {
                            side: t.active,
                            command: q.id,
                            units,
                        });
                    }
                }
            }
        }
        let next = if t.phase == Phase::Deployment {
            t.first_player
        } else {
            inactive
        };
        if matches!(t.phase, Phase::End | Phase::Deployment)
            && super::allegiance::break_test_due(&ctx, next)
        {
            decisions.push(Decision::BreakTestDue { side: next });
        }
        decisions.insert(
            0,
            Decision::Phase {
                side: t.active,
                phase: t.phase,
                may_end: self.check(&Action::EndPhase).is_ok(),
            },
        );
        Pending {
            game_turn: t.game_turn,
            player_turn: t.player_turn,
            active: t.active,
            phase: t.phase,
            side,
            decisions,
        }
    }

    /// The answers a unit could give a charge, for the check to sort out: fire at each
    /// charger, evade (on foot or limbered / mounted), meet the charge, canister, and a gun's
    /// pivot to face the first charger.
    fn response_candidates(&self, q: &PieceState, chargers: &[PieceId]) -> Vec<Response> {
        let mut out: Vec<Response> = chargers.iter().map(|c| Response::Fire { at: *c }).collect();
        out.push(Response::Evade {
            facing_deg: None,
            limber: false,
        });
        out.push(Response::Evade {
            facing_deg: None,
            limber: true,
        });
        out.push(Response::CounterCharge);
        out.push(Response::Canister);
        let towards = chargers
            .first()
            .and_then(|c| self.state().piece(*c))
            .and_then(|c| c.pose)
            .zip(q.pose)
            .map(|(c, own)| crate::geom::footprint::bearing_deg(own.at, c.at));
        if let Some(facing_deg) = towards {
            out.push(Response::Pivot { facing_deg });
        }
        out
    }
}
