//! Scouting cavalry (catalogue §3.3, OPTIONAL, flag `OptionalRule::Scouting`): OPT-SCOUT-01
//! deploying single stands as scouts, OPT-SCOUT-02 their initial roll, free movement and
//! spotting, OPT-SCOUT-03 scouts under threat. With the flag off nothing here has any effect:
//! every action of this module is refused and no scout ever exists.
//!
//! A scout is a piece of its own in the battle state: a unit id of its side that the scenario
//! does not use (the next free one), one stand of its parent's troop row, listed in
//! [`ScoutState`]. It belongs to no formation, so no HQ orders it and no command rule counts it.
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * OPT-SCOUT-01: scouts are detached during deployment (SEQ-01), one stand per
//!   [`Action::DeployScout`](super::Action::DeployScout), placed where any piece may be placed
//!   (on the table, off impassable ground and other pieces, inside the side's deployment zone).
//!   A unit keeps at least one stand: its last stand may not be sent out.
//! * OPT-SCOUT-02 (a): [`Action::LaunchScout`](super::Action::LaunchScout) is a command roll of
//!   the command unit (any of the side's CO and HQs, not an FAO) with every normal modifier
//!   (`command::order_modifiers` for an order to move the scout, weather included, as the
//!   OPT-WEATHER-03 ruling says). It is an order of that command unit: it counts towards its
//!   CMD-01 cap and CMD-02, a failure ends its orders (CMD-05) and a blunder is a blunder
//!   (CMD-18, CMD-19). One try per scout per own turn; after a failure it tries again next turn.
//! * OPT-SCOUT-02 (b): a launched scout makes one Move per own Command phase without an order
//!   (up to its full Move, no successive penalty); it takes no other action in that phase.
//! * OPT-SCOUT-02 (c): a scout on the table spots a hidden enemy — a dug-in unit not yet
//!   revealed (VIS-16, VIS-17: the hidden set-up this engine plays) — within 30 cm edge to edge,
//!   or 15 cm when the hidden unit has cover from the scout (`firing::target_cover` from the
//!   scout's centre, from the terrain alone — woods, built-up areas, behind walls and hedges;
//!   the Trench or Dug-Out that hides it, and other works, do not count, or every hidden unit
//!   would be "in cover"), × the measure scale, if it has line of sight: the engine's sight rules
//!   (VIS-01..VIS-15) with the hidden unit taken as not hidden. Checked after every action
//!   outside deployment (the hook in `reveal::append_reveals`), recorded as `Revealed` with
//!   cause `scout`.
//! * OPT-SCOUT-03: a Fire action at a scout that the fire rules accept (range, sight, arc:
//!   `firing::check_fire`) rolls no dice: the scout withdraws (`ScoutWithdrawn`, cause
//!   `fired_at`). A charge at a scout that the charge rules accept withdraws it before contact
//!   (cause `contacted`); the chargers stay where they are, their action spent. A withdrawn
//!   scout is off the table for good, not knocked out: no breakpoint, no VPs (and a scout
//!   knocked out by any other rule is not counted either, `apply`).
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::action::Action;
use super::apply::apply_all;
use super::battle::Ctx;
use super::command::{check_issuer, OrderOutcome, OrderedUnit, UnitAct, UnitActionKind};
use super::dice::Dice;
use super::error::{ActionError, RuleError};
use super::event::Event;
use super::geometry::{footprint_of, measure_scale};
use super::reveal::RevealCause;
use super::state::{BattleState, Phase, PieceId, PieceState, Pose};
use super::visibility::{check_dug_in, SightIndex};
use crate::geom::edge_distance;
use crate::model::{Cover, HqId, OptionalRule, UnitId};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// OPT-SCOUT-02: a scout spots hidden enemies this close in the open (cm, × measure scale).
pub const SPOT_OPEN_CM: f64 = 30.0;
/// OPT-SCOUT-02: … and this close when they have cover.
pub const SPOT_COVER_CM: f64 = 15.0;

/// One scout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scout {
    /// The unit it was detached from (OPT-SCOUT-03: never rejoins it).
    pub parent: PieceId,
    /// Passed its initial command roll (OPT-SCOUT-02 (a)).
    #[serde(default)]
    pub launched: bool,
    /// The player turn of its last initial roll (one try per turn).
    #[serde(default)]
    pub tried_in: Option<u32>,
    /// Fired at or contacted: off the table for good (OPT-SCOUT-03).
    #[serde(default)]
    pub withdrawn: bool,
}

/// The battle's scouts (one field of [`BattleState`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ScoutState {
    pub scouts: BTreeMap<PieceId, Scout>,
}

impl ScoutState {
    pub fn is_empty(&self) -> bool {
        self.scouts.is_empty()
    }

    /// Whether `id` is (or was) a scout.
    pub fn is_scout(&self, id: PieceId) -> bool {
        self.scouts.contains_key(&id)
    }

    pub fn get(&self, id: PieceId) -> Option<&Scout> {
        self.scouts.get(&id)
    }
}

/// What made a scout withdraw (OPT-SCOUT-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreatKind {
    FiredAt,
    Contacted,
}

const RULE_01: &str = "OPT-SCOUT-01";
const RULE_02: &str = "OPT-SCOUT-02";
const RULE_03: &str = "OPT-SCOUT-03";

fn refuse(rule: &'static str, message: impl Into<String>) -> ActionError {
    RuleError::new(rule, message).into()
}

/// The scenario plays the optional scouting rules.
pub fn on(ctx: &Ctx) -> bool {
    ctx.scenario
        .optional_rules
        .contains(&OptionalRule::Scouting)
}

fn check_on(ctx: &Ctx) -> Result<(), ActionError> {
    if on(ctx) {
        Ok(())
    } else {
        Err(refuse(
            RULE_01,
            "scouting cavalry is not switched on for this battle (the scenario's optional rules)",
        ))
    }
}

/// A scout still in play (not withdrawn).
pub fn is_active_scout(state: &BattleState, id: PieceId) -> bool {
    state.scouts.get(id).is_some_and(|s| !s.withdrawn)
}

/// The id the next scout of `side` gets: one above every unit id the side uses.
pub fn next_scout_id(ctx: &Ctx, side: usize) -> PieceId {
    let in_scenario = ctx
        .scenario
        .sides
        .get(side)
        .and_then(|s| s.units.iter().map(|u| u.id.0).max())
        .unwrap_or(0);
    let in_state = ctx
        .state
        .pieces
        .keys()
        .filter_map(|id| match id {
            PieceId::Unit { side: s, unit } if *s == side => Some(unit.0),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    PieceId::Unit {
        side,
        unit: UnitId(in_scenario.max(in_state).saturating_add(1)),
    }
}

/// OPT-SCOUT-01: may `piece` send one stand out as a scout now?
pub fn check_deploy_scout<'a>(
    ctx: &Ctx<'a>,
    piece: PieceId,
) -> Result<&'a PieceState, ActionError> {
    check_on(ctx)?;
    if ctx.state.turn.phase != Phase::Deployment {
        return Err(refuse(
            RULE_01,
            format!(
                "scouts are sent out while the armies deploy, not in the {} phase",
                ctx.state.turn.phase.label()
            ),
        ));
    }
    let p = ctx.piece(piece)?;
    if piece.is_command() || ctx.state.scouts.is_scout(piece) {
        return Err(refuse(
            RULE_01,
            format!("{} cannot send out scouts: only a cavalry unit can", p.name),
        ));
    }
    if !p.on_table() {
        return Err(refuse(
            RULE_01,
            format!(
                "{} is not on the table; place it before sending scouts out",
                p.name
            ),
        ));
    }
    let may = match (ctx.list(piece.side()), ctx.row(p)) {
        (Some(list), Some(row)) => list.can_scout(row),
        _ => false,
    };
    if !may {
        return Err(refuse(
            RULE_01,
            format!(
                "{}'s troop type may not scout in single stands: only light cavalry and hussars \
                 whose list notes allow it, or any cavalry in an ACW army",
                p.name
            ),
        ));
    }
    if p.stands < 2 {
        return Err(refuse(
            RULE_01,
            format!(
                "{} has one stand left and keeps it: a unit cannot send its last stand out",
                p.name
            ),
        ));
    }
    Ok(p)
}

/// OPT-SCOUT-01: detaches one stand of `piece` as a scout placed at `at`.
pub fn resolve_deploy_scout(
    ctx: &Ctx,
    piece: PieceId,
    at: Pose,
) -> Result<Vec<Event>, ActionError> {
    let p = check_deploy_scout(ctx, piece)?;
    let scout = next_scout_id(ctx, piece.side());
    let n = ctx
        .state
        .scouts
        .scouts
        .values()
        .filter(|s| s.parent == piece)
        .count()
        + 1;
    let events = vec![Event::ScoutDeployed {
        scout,
        parent: piece,
        name: format!("{} scout {n}", p.name),
        at,
    }];
    // Placed as any piece is placed (DATA-10..12, SEQ-01): only what the scout adds counts.
    let mut after = ctx.state.clone();
    apply_all(&mut after, &events);
    let post = ctx.with_state(&after);
    let before: Vec<_> = super::state::placement_in(ctx)
        .into_iter()
        .chain(super::state::zone_in(ctx))
        .collect();
    let new = super::state::placement_in(&post)
        .into_iter()
        .chain(super::state::zone_in(&post))
        .find(|v| !before.contains(v));
    if let Some(v) = new {
        return Err(refuse(
            v.rule,
            format!("the scout cannot be placed there: {}", v.message),
        ));
    }
    Ok(events)
}

/// The command unit may make a scout's initial roll: any of the side's command units but an
/// FAO (ART-10: an FAO orders guns only).
fn is_fao(ctx: &Ctx, command: PieceId) -> bool {
    let PieceId::Hq { side, hq } = command else {
        return false;
    };
    ctx.scenario
        .sides
        .get(side)
        .and_then(|s| s.hq(hq))
        .is_some_and(|h| h.fao)
}

/// OPT-SCOUT-02 (a): may `command` make `scout`'s initial roll now?
pub fn check_launch_scout(ctx: &Ctx, command: PieceId, scout: PieceId) -> Result<(), ActionError> {
    check_on(ctx)?;
    let sp = ctx.piece(scout)?;
    let Some(s) = ctx.state.scouts.get(scout) else {
        return Err(refuse(RULE_02, format!("{} is not a scout", sp.name)));
    };
    if s.withdrawn || !sp.on_table() {
        return Err(refuse(RULE_03, format!("{} has left the table", sp.name)));
    }
    if scout.side() != command.side() {
        return Err(refuse(RULE_02, format!("{} is the enemy's scout", sp.name)));
    }
    if s.launched {
        return Err(refuse(
            RULE_02,
            format!(
                "{} has passed its initial roll already and moves without orders",
                sp.name
            ),
        ));
    }
    if s.tried_in == Some(ctx.state.turn.player_turn) {
        return Err(refuse(
            RULE_02,
            format!(
                "{} failed its initial roll this turn; it may try again next turn",
                sp.name
            ),
        ));
    }
    if is_fao(ctx, command) {
        return Err(refuse(
            "ART-10",
            "a forward artillery observer orders guns only; choose the CO or an HQ",
        ));
    }
    check_issuer(ctx, command)?;
    Ok(())
}

fn move_order(scout: PieceId) -> OrderedUnit {
    OrderedUnit {
        piece: scout,
        action: UnitActionKind::Move,
        target: None,
        road: false,
        dense: false,
    }
}

/// OPT-SCOUT-02 (a): the scout's initial command roll (see the module's rulings).
pub fn resolve_launch_scout(
    ctx: &Ctx,
    command: PieceId,
    scout: PieceId,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    check_launch_scout(ctx, command, scout)?;
    let units = [move_order(scout)];
    let (mut staged, outcome, order) = super::command::roll_order(
        ctx,
        command,
        &units,
        "scout's initial command roll",
        RULE_02,
        dice,
    )?;
    staged.push(Event::ScoutLaunch {
        scout,
        command,
        launched: outcome.issued(),
    });
    if outcome == OrderOutcome::Blunder {
        super::command::blunder_table(&mut staged, order, command, &[scout], dice)?;
    }
    Ok(staged.into_events())
}

/// OPT-SCOUT-02 (b): the orders gate for a scout in its own Command phase. `None` for a piece
/// that is not a scout (the normal gate decides); the act to record for a launched scout's
/// one move of the phase; a refusal for anything else.
pub fn command_phase_act(
    ctx: &Ctx,
    p: &PieceState,
    kind: UnitActionKind,
) -> Result<Option<UnitAct>, ActionError> {
    let Some(s) = ctx.state.scouts.get(p.id) else {
        return Ok(None);
    };
    if !s.launched {
        return Err(refuse(
            RULE_02,
            format!(
                "{} has not passed its initial command roll yet: a command unit must launch it \
                 first",
                p.name
            ),
        ));
    }
    if kind != UnitActionKind::Move {
        return Err(refuse(
            RULE_02,
            format!("{} is a scout: in the Command phase it only moves", p.name),
        ));
    }
    if p.orders.last_kind == Some(UnitActionKind::Move) {
        return Err(refuse(
            RULE_02,
            format!("{} has made its move this Command phase", p.name),
        ));
    }
    Ok(Some(UnitAct {
        piece: p.id,
        kind,
        order: None,
        initiative: false,
        limber: false,
        trace: None,
    }))
}

/// OPT-SCOUT-02 (d): scouts never fire, charge or support, and take no orders.
pub fn check_scout_action(ctx: &Ctx, action: &Action) -> Result<(), ActionError> {
    let st = ctx.state;
    if st.scouts.is_empty() {
        return Ok(());
    }
    let named = |ids: &[PieceId], what: &str| -> Result<(), ActionError> {
        match ids.iter().find(|id| st.scouts.is_scout(**id)) {
            Some(id) => {
                let name = st.piece(*id).map_or(id.to_string(), |p| p.name.clone());
                Err(refuse(
                    RULE_02,
                    format!("{name} is a scout; scouts never {what}"),
                ))
            }
            None => Ok(()),
        }
    };
    match action {
        Action::Fire { firers, .. }
        | Action::OpportunityFire { firers, .. }
        | Action::FireAtBridge { firers, .. } => named(firers, "fire"),
        Action::Charge { chargers, .. } => named(chargers, "charge"),
        Action::Support { piece, .. } => named(&[*piece], "support"),
        Action::Respond {
            piece, response, ..
        } => match response {
            super::charge::Response::Evade { .. } => Ok(()),
            _ => named(&[*piece], "fire or fight; a scout may only evade"),
        },
        Action::IssueOrder { units, .. } => {
            let ids: Vec<PieceId> = units.iter().map(|u| u.piece).collect();
            named(
                &ids,
                "take orders; once launched (launch_scout) they move without them",
            )
        }
        _ => Ok(()),
    }
}

/// OPT-SCOUT-03: a fire the fire rules accept at a scout: the scout withdraws, no dice.
pub fn resolve_fired_at(
    ctx: &Ctx,
    firers: &[PieceId],
    scout: PieceId,
    ammunition: Option<super::artillery::Ammunition>,
) -> Result<Vec<Event>, ActionError> {
    super::firing::check_fire(ctx, firers, scout, ammunition)?;
    Ok(vec![Event::ScoutWithdrawn {
        scout,
        by: firers.to_vec(),
        cause: ThreatKind::FiredAt,
    }])
}

/// OPT-SCOUT-03: a charge the charge rules accept at a scout: the scout withdraws before
/// contact; the chargers stay.
pub fn resolve_charged(
    ctx: &Ctx,
    chargers: &[PieceId],
    scout: PieceId,
) -> Result<Vec<Event>, ActionError> {
    super::charge::check_charge(ctx, chargers, scout)?;
    Ok(vec![Event::ScoutWithdrawn {
        scout,
        by: chargers.to_vec(),
        cause: ThreatKind::Contacted,
    }])
}

/// OPT-SCOUT-02 (c): the hidden enemies the scouts on the table spot in the state of `ctx`
/// (the state after an action), leaving out those in `already`: one `Revealed` each, naming
/// the nearest scout that spots it (ties: the lowest id).
pub fn spotted(ctx: &Ctx, already: &BTreeSet<PieceId>) -> Vec<Event> {
    let st = ctx.state;
    if st.scouts.is_empty() || !on(ctx) || matches!(st.turn.phase, Phase::Deployment | Phase::Over)
    {
        return Vec::new();
    }
    let scouts: Vec<&PieceState> = st
        .scouts
        .scouts
        .iter()
        .filter(|(_, s)| !s.withdrawn)
        .filter_map(|(id, _)| st.piece(*id))
        .filter(|p| p.on_table())
        .collect();
    if scouts.is_empty() {
        return Vec::new();
    }
    let hidden: Vec<&PieceState> = st
        .pieces
        .values()
        .filter(|p| {
            p.on_table()
                && p.dug_in
                && !p.revealed
                && !p.has_fired
                && !already.contains(&p.id)
                && check_dug_in(ctx, p).is_ok()
        })
        .collect();
    if hidden.is_empty() {
        return Vec::new();
    }
    let ms = measure_scale(ctx);
    // Pairs within reach: (hidden, scout, distance in table cm).
    let mut near: Vec<(PieceId, PieceId, f64)> = Vec::new();
    for h in &hidden {
        let Some(hfp) = footprint_of(ctx, h) else {
            continue;
        };
        for s in scouts.iter().filter(|s| s.id.side() != h.id.side()) {
            let Some(sfp) = footprint_of(ctx, s) else {
                continue;
            };
            let d = edge_distance(&sfp, &hfp);
            if d > SPOT_OPEN_CM * ms + 1e-9 {
                continue;
            }
            // Cover from the terrain only: the works that hide it do not count.
            let mut bare = (*h).clone();
            bare.dug_in = false;
            bare.id = PieceId::Hq {
                side: h.id.side(),
                hq: HqId(u32::MAX),
            };
            let cover = super::firing::target_cover(ctx, sfp.centroid(), &bare, &hfp).cover;
            let reach = if cover == Cover::Open {
                SPOT_OPEN_CM
            } else {
                SPOT_COVER_CM
            } * ms;
            if d <= reach + 1e-9 {
                near.push((h.id, s.id, d));
            }
        }
    }
    if near.is_empty() {
        return Vec::new();
    }
    // Line of sight with the hidden units taken as not hidden.
    let mut open = st.clone();
    for (h, _, _) in &near {
        if let Some(p) = open.pieces.get_mut(h) {
            p.revealed = true;
        }
    }
    let octx = Ctx::new(ctx.scenario, ctx.lists, &open);
    let index = SightIndex::new(&octx);
    let mut best: BTreeMap<PieceId, (f64, PieceId)> = BTreeMap::new();
    for (h, s, d) in near {
        if !index.sight(s, h).visible {
            continue;
        }
        let e = best.entry(h).or_insert((d, s));
        if (d, s) < *e {
            *e = (d, s);
        }
    }
    best.into_iter()
        .map(|(h, (d, s))| Event::Revealed {
            piece: h,
            rule: RULE_02.to_string(),
            cause: RevealCause::Scout {
                scout: s,
                distance_cm: ((d / ms) * 1000.0).round() / 1000.0,
            },
        })
        .collect()
}

/// Applies this module's events.
pub fn apply_event(state: &mut BattleState, event: &Event) {
    match event {
        Event::ScoutDeployed {
            scout,
            parent,
            name,
            at,
        } => {
            let Some(p) = state.pieces.get_mut(parent) else {
                return;
            };
            p.stands = p.stands.saturating_sub(1);
            let mut s = p.clone();
            s.id = *scout;
            s.name = name.clone();
            s.pose = Some(*at);
            s.stands = 1;
            s.hits = 0;
            s.suppressed_at = None;
            s.disordered_until = None;
            s.knocked_out = false;
            s.dug_in = false;
            s.revealed = false;
            s.has_fired = false;
            s.orders = Default::default();
            s.flank = Default::default();
            state.pieces.insert(*scout, s);
            state.scouts.scouts.insert(
                *scout,
                Scout {
                    parent: *parent,
                    launched: false,
                    tried_in: None,
                    withdrawn: false,
                },
            );
        }
        Event::ScoutLaunch {
            scout, launched, ..
        } => {
            let turn = state.turn.player_turn;
            if let Some(s) = state.scouts.scouts.get_mut(scout) {
                s.launched |= *launched;
                s.tried_in = Some(turn);
            }
        }
        Event::ScoutWithdrawn { scout, .. } => {
            if let Some(s) = state.scouts.scouts.get_mut(scout) {
                s.withdrawn = true;
            }
            if let Some(p) = state.pieces.get_mut(scout) {
                p.pose = None;
            }
        }
        _ => {}
    }
}
