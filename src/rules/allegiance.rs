//! Who may order whom under the optional command rules: fixed formations (catalogue §3.10,
//! OPT-FIXED-01..03) and multi-national armies (§3.9, OPT-NATION-01..03).
//!
//! * OPT-FIXED-01: a unit's fixed formation is its HQ in the order of battle (`Unit::hq`) until
//!   a transfer moves it to another; the transfers are battle state ([`AllegianceState`]), the
//!   scenario never changes.
//! * OPT-FIXED-02: with the option on, only the formation's own command unit orders it; the CO
//!   picks up units an HQ failed to order (CMD-29) only in his own formation, which follows.
//! * OPT-FIXED-03: [`Action::Transfer`](super::action::Action): the CO orders a unit of his own
//!   formation to another formation — a command roll with the distance penalty from the CO to
//!   the receiving HQ (the CMD-09 formula) and −1 per section of dense terrain and per enemy
//!   unit between them, the other modifiers as for any order (successive orders CMD-08,
//!   weather OPT-WEATHER-03, a replaced commander CMD-28 …); success places the unit within
//!   10 cm of the receiving HQ and ends its orders this turn; failure is a failed order
//!   (CMD-05), a double six a blunder (CMD-18).
//! * OPT-NATION-01: with multi-national armies on, a unit (its nationality `Unit::nation`, the
//!   side's own when unset) is ordered only by its army's CO and by HQs of its nationality, or
//!   of a nationality its row's list note names (`RuleEffect::TrainedBy`); a group only by an
//!   HQ that could order each unit of it (the order check asks unit by unit).
//! * OPT-NATION-02: otherwise one army — one CO, one breakpoint, one VP total: nothing here.
//! * OPT-NATION-03: an HQ flagged `ally` heads a separate allied army of its side (itself and
//!   every HQ and unit beneath it); the rest of the side is the main army under the CO. Each
//!   army orders only its own units and has its own breakpoint (BRK-01 over its own units) and
//!   breakpoint test (BRK-02, with its own commander). When one breaks, all its units and
//!   command units are suppressed at once, the player turn is played out, and at its End phase
//!   they are all removed, counting as knocked out for the opponent's VPs (VP-01 (e)). The side
//!   breaks (BRK-03) when its last army breaks.
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * An FAO orders the artillery of any formation under fixed formations (ART-10: it commands
//!   only a grand battery's fire, never a formation of its own).
//! * A transfer is a placement (OPT-FIXED-03 ruling): the unit's reference point `at` must put
//!   its bases within 10 cm (edge to edge) of the receiving HQ, on the table, not on ground
//!   impassable to it and not in contact with an enemy. The receiving HQ is another non-FAO
//!   HQ of the same army that is on the table.
//! * "Between" the CO and the HQ is the straight line between their centres: each dense feature
//!   (dense for the transferred unit, TERR-08) the line meets counts once, each enemy troop
//!   unit whose bases it crosses once.
//! * An allied army's breakpoint test is made at the start of its side's player turn, as BRK-02;
//!   "the end of that turn" is the End phase of that player turn.
//!
//! # Not yet
//!
//! Under OPT-NATION-03 the CO-only rules (CMD-05 a failed CO ends every order, CMD-29 the CO's
//! pick-up, CMD-27 the CO's succession) still read the side's CO, not each ally's.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::battle::Ctx;
use super::command::{self, OrderOutcome, OrderRoll, OrderedUnit, UnitActionKind};
use super::dice::Dice;
use super::endphase::Staged;
use super::error::{ActionError, RuleError};
use super::event::{Event, KnockOutCause, Modifier};
use super::geometry::{footprint_of, measure_scale, CONTACT_TOLERANCE_CM};
use super::state::{BattleState, Phase, PieceId, PieceState, Pose};
use super::terrain::{is_dense_for, mover_of, path_crossings, Going, Shape, TerrainMap};
use super::victory::Loss;
use crate::geom::segment::footprint_polyline_distance;
use crate::geom::{edge_distance, in_contact, Point};
use crate::model::{HqId, OptionalRule, RuleEffect, Scenario};
use serde::{Deserialize, Serialize};

/// OPT-FIXED-03: a transferred unit is placed within this distance of the receiving HQ.
pub const TRANSFER_REACH_CM: f64 = 10.0;

/// A unit that joined another formation (OPT-FIXED-03), in the order they happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transfer {
    pub piece: PieceId,
    pub hq: HqId,
}

/// An allied army that broke (OPT-NATION-03): `head` is its heading HQ (`None`: the side's main
/// army under the CO), `player_turn` the turn it broke in (its units are removed at that
/// turn's End phase).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllyBreak {
    pub side: usize,
    #[serde(default)]
    pub head: Option<HqId>,
    pub player_turn: u32,
}

/// Battle-wide records of this module (one field of [`BattleState`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AllegianceState {
    pub transfers: Vec<Transfer>,
    pub broken: Vec<AllyBreak>,
}

/// The state changes of this module's events.
pub fn apply_event(state: &mut BattleState, event: &Event) {
    match event {
        Event::UnitTransferred {
            piece, to_hq, to, ..
        } => {
            state.allegiance.transfers.push(Transfer {
                piece: *piece,
                hq: *to_hq,
            });
            if let Some(p) = state.pieces.get_mut(piece) {
                p.pose = Some(*to);
                // OPT-FIXED-03: no more orders this turn.
                p.orders.closed = true;
                p.orders.actions_left = 0;
            }
        }
        Event::AllyBroke {
            side,
            head,
            player_turn,
        } => state.allegiance.broken.push(AllyBreak {
            side: *side,
            head: *head,
            player_turn: *player_turn,
        }),
        _ => {}
    }
}

fn refuse(rule: &'static str, message: impl Into<String>) -> ActionError {
    RuleError::new(rule, message).into()
}

fn rule_on(scenario: &Scenario, rule: OptionalRule) -> bool {
    scenario.optional_rules.contains(&rule)
}

/// OPT-FIXED: the scenario plays fixed formations.
pub fn fixed_formations(scenario: &Scenario) -> bool {
    rule_on(scenario, OptionalRule::FixedFormations)
}

/// OPT-NATION: the scenario plays multi-national armies.
pub fn multi_national(scenario: &Scenario) -> bool {
    rule_on(scenario, OptionalRule::MultiNational)
}

// ---------------------------------------------------------------------------------------------
// Formations and armies.

/// OPT-FIXED-01: the formation (its command unit's HQ id) a unit belongs to now — its latest
/// transfer's (OPT-FIXED-03), else its HQ in the order of battle. `None` for a command unit.
pub fn formation_of(ctx: &Ctx, unit: PieceId) -> Option<HqId> {
    let PieceId::Unit { side, unit: uid } = unit else {
        return None;
    };
    if let Some(t) = ctx
        .state
        .allegiance
        .transfers
        .iter()
        .rev()
        .find(|t| t.piece == unit)
    {
        return Some(t.hq);
    }
    Some(ctx.scenario.sides.get(side)?.unit(uid)?.hq)
}

/// OPT-NATION-03: the allied army an HQ belongs to — the nearest HQ flagged `ally` on its way up
/// the order of battle (itself included); `None`: the side's main army. Always `None` unless
/// multi-national armies are on.
pub fn army_of_hq(scenario: &Scenario, side: usize, hq: HqId) -> Option<HqId> {
    if !multi_national(scenario) {
        return None;
    }
    let s = scenario.sides.get(side)?;
    let mut cur = Some(hq);
    let mut guard = 0;
    while let Some(id) = cur {
        guard += 1;
        if guard > s.hqs.len() + 1 {
            return None; // a cycle: validation reports it
        }
        let h = s.hq(id)?;
        if h.ally && !h.fao {
            return Some(id);
        }
        cur = h.parent;
    }
    None
}

/// The allied army of any piece (a unit by its formation now).
pub fn army_of(ctx: &Ctx, piece: PieceId) -> Option<HqId> {
    match piece {
        PieceId::Hq { side, hq } => army_of_hq(ctx.scenario, side, hq),
        PieceId::Unit { side, .. } => army_of_hq(ctx.scenario, side, formation_of(ctx, piece)?),
    }
}

/// OPT-NATION-03: the side fights as several allied armies (multi-national armies on and at
/// least one HQ flagged `ally`).
pub fn alliance(scenario: &Scenario, side: usize) -> bool {
    multi_national(scenario)
        && scenario
            .sides
            .get(side)
            .is_some_and(|s| s.hqs.iter().any(|h| h.ally && !h.fao))
}

/// OPT-NATION-03: the side's armies, the main army (`None`) first, then each allied head in
/// the order of battle's order.
pub fn armies(scenario: &Scenario, side: usize) -> Vec<Option<HqId>> {
    let mut v = vec![None];
    if let Some(s) = scenario.sides.get(side) {
        v.extend(
            s.hqs
                .iter()
                .filter(|h| h.ally && !h.fao)
                .map(|h| Some(h.id)),
        );
    }
    v
}

/// OPT-NATION-01, OPT-NATION-03: the CO of an army — an allied army's head, the main army's
/// the side's CO (CMD-27).
pub fn army_co(ctx: &Ctx, side: usize, army: Option<HqId>) -> Option<PieceId> {
    match army {
        Some(hq) => Some(PieceId::Hq { side, hq }),
        None => command::commanding_officer(ctx, side),
    }
}

/// A piece's nationality for ordering (OPT-NATION-01): its own, else the side's (`None`).
fn nation_of<'a>(ctx: &Ctx<'a>, piece: PieceId) -> Option<&'a str> {
    let s = ctx.scenario.sides.get(piece.side())?;
    match piece {
        PieceId::Unit { unit, .. } => s.unit(unit)?.nation.as_deref(),
        PieceId::Hq { hq, .. } => s.hq(hq)?.nation.as_deref(),
    }
}

/// OPT-NATION-01 ruling: the nationalities a unit's row lets order it besides its own (the
/// list notes "British trained", "French trained").
fn trained_by<'a>(ctx: &Ctx<'a>, p: &PieceState) -> Vec<&'a str> {
    let (Some(list), Some(row)) = (ctx.list(p.id.side()), ctx.row(p)) else {
        return Vec::new();
    };
    list.row_effects(row)
        .filter_map(|e| match e {
            RuleEffect::TrainedBy { nation } => Some(nation.as_str()),
            _ => None,
        })
        .collect()
}

fn nation_label(n: Option<&str>) -> String {
    n.map_or_else(|| "the army's own".to_string(), |n| n.to_string())
}

/// OPT-FIXED-02, OPT-NATION-01, OPT-NATION-03: may command unit `command` order unit `p` under
/// the optional rules in play? (The order check calls it for each unit of an order, so a
/// mixed group passes only if every unit does.) Nothing is refused with both options off.
pub fn check_may_order(ctx: &Ctx, command: PieceId, p: &PieceState) -> Result<(), ActionError> {
    let (fixed, nations) = (fixed_formations(ctx.scenario), multi_national(ctx.scenario));
    if !fixed && !nations {
        return Ok(());
    }
    let unit = p.id;
    let side = unit.side();
    let cname = || {
        ctx.state
            .piece(command)
            .map_or_else(|| command.to_string(), |c| c.name.clone())
    };
    let fao = super::fao::is_fao(ctx, command);
    if nations && !fao {
        let (ua, ca) = (army_of(ctx, unit), army_of(ctx, command));
        if ua != ca {
            return Err(refuse(
                "OPT-NATION-03",
                format!(
                    "{} belongs to another allied army than {}: each ally orders only its own troops",
                    p.name,
                    cname()
                ),
            ));
        }
        let co = army_co(ctx, side, ua);
        if co != Some(command) {
            let un = nation_of(ctx, unit);
            let cn = nation_of(ctx, command);
            let trained = trained_by(ctx, p);
            let same = un.map(str::to_lowercase) == cn.map(str::to_lowercase);
            let allowed =
                same || cn.is_some_and(|c| trained.iter().any(|t| t.eq_ignore_ascii_case(c)));
            if !allowed {
                return Err(refuse(
                    "OPT-NATION-01",
                    format!(
                        "{} ({} nationality) may be ordered only by the CO or an HQ of its own \
                         nationality, not by {} ({}): order it with such an HQ",
                        p.name,
                        nation_label(un),
                        cname(),
                        nation_label(cn)
                    ),
                ));
            }
        }
    }
    if fixed && !fao {
        let own = formation_of(ctx, unit).map(|hq| PieceId::Hq { side, hq });
        if own != Some(command) {
            let own_name = own
                .and_then(|o| ctx.state.piece(o))
                .map_or_else(|| "its own HQ".to_string(), |o| o.name.clone());
            return Err(refuse(
                "OPT-FIXED-02",
                format!(
                    "{} is in the fixed formation of {own_name}: only {own_name} may order it, \
                     not {}",
                    p.name,
                    cname()
                ),
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// OPT-FIXED-03: transfers.

/// What a checked transfer found: the CO ordering it and the receiving HQ's piece.
struct TransferPlan<'a> {
    co: PieceId,
    unit: &'a PieceState,
    to: PieceId,
    from_hq: HqId,
}

fn check_transfer_plan<'a>(
    ctx: &Ctx<'a>,
    piece: PieceId,
    to_hq: HqId,
    at: Pose,
) -> Result<TransferPlan<'a>, ActionError> {
    if !fixed_formations(ctx.scenario) {
        return Err(refuse(
            "OPT-FIXED-03",
            "fixed formations are not played in this battle: units change formation with any order",
        ));
    }
    let p = ctx.piece(piece)?;
    if piece.is_command() {
        return Err(refuse(
            "OPT-FIXED-03",
            format!("{} is a command unit: only units are transferred", p.name),
        ));
    }
    let side = piece.side();
    let army = army_of(ctx, piece);
    let Some(co) = army_co(ctx, side, army) else {
        return Err(refuse(
            "OPT-FIXED-03",
            format!("{}'s army has no CO left to order a transfer", p.name),
        ));
    };
    let cp = command::check_issuer(ctx, co)?;
    let Some(from_hq) = formation_of(ctx, piece) else {
        return Err(refuse(
            "OPT-FIXED-01",
            format!("{} has no formation", p.name),
        ));
    };
    if (PieceId::Hq { side, hq: from_hq }) != co {
        return Err(refuse(
            "OPT-FIXED-03",
            format!(
                "{} is not in the CO's own formation: only the CO transfers units, and only his own",
                p.name
            ),
        ));
    }
    let to = PieceId::Hq { side, hq: to_hq };
    let receiving = ctx
        .scenario
        .sides
        .get(side)
        .and_then(|s| s.hq(to_hq))
        .ok_or_else(|| {
            refuse(
                "OPT-FIXED-03",
                format!("there is no HQ {} on {}'s side", to_hq.0, p.name),
            )
        })?;
    if to == co {
        return Err(refuse(
            "OPT-FIXED-03",
            format!("{} is already in the CO's formation", p.name),
        ));
    }
    if receiving.fao {
        return Err(refuse(
            "OPT-FIXED-03",
            format!(
                "{} is an artillery officer and commands no formation (ART-10)",
                receiving.name
            ),
        ));
    }
    if army_of_hq(ctx.scenario, side, to_hq) != army {
        return Err(refuse(
            "OPT-NATION-03",
            format!("{} belongs to another allied army", receiving.name),
        ));
    }
    let hp = ctx.piece(to)?;
    if !hp.on_table() {
        return Err(refuse(
            "OPT-FIXED-03",
            format!("{} is not on the table to receive a unit", hp.name),
        ));
    }
    let probe = OrderedUnit {
        piece,
        action: UnitActionKind::Move,
        target: None,
        road: false,
        dense: false,
    };
    command::check_ordered_unit(ctx, co, cp, true, &probe, p)?;
    check_placement(ctx, p, hp, at)?;
    Ok(TransferPlan {
        co,
        unit: p,
        to,
        from_hq,
    })
}

/// OPT-FIXED-03 ruling: the placement — on the table, within 10 cm of the receiving HQ, not on
/// impassable ground, not in contact with the enemy.
fn check_placement(
    ctx: &Ctx,
    p: &PieceState,
    hq: &PieceState,
    at: Pose,
) -> Result<(), ActionError> {
    if !(at.at.x.is_finite() && at.at.y.is_finite() && at.facing_deg.is_finite()) {
        return Err(refuse("OPT-FIXED-03", "the placement must be numbers"));
    }
    let mut placed = p.clone();
    placed.pose = Some(at);
    let ms = measure_scale(ctx);
    let (Some(fp), Some(hfp)) = (footprint_of(ctx, &placed), footprint_of(ctx, hq)) else {
        return Err(refuse("OPT-FIXED-03", "the placement is not on the table"));
    };
    if super::geometry::off_table(ctx, &fp) {
        return Err(refuse(
            "OPT-FIXED-03",
            format!("{} would be placed off the table", p.name),
        ));
    }
    let gap = edge_distance(&fp, &hfp) / ms;
    if gap > TRANSFER_REACH_CM + 1e-9 {
        return Err(refuse(
            "OPT-FIXED-03",
            format!(
                "{} would stand {gap:.1} cm from {}: place it within 10 cm of its new HQ",
                p.name, hq.name
            ),
        ));
    }
    let tol = CONTACT_TOLERANCE_CM * ms;
    if let Some(e) = ctx.state.pieces.values().find(|q| {
        q.id.side() != p.id.side()
            && q.on_table()
            && footprint_of(ctx, q).is_some_and(|f| in_contact(&fp, &f, tol))
    }) {
        return Err(refuse(
            "OPT-FIXED-03",
            format!(
                "{} would be placed in contact with the enemy {}",
                p.name, e.name
            ),
        ));
    }
    let rect = fp.bounding_rect();
    let map = TerrainMap::around(ctx, mover_of(ctx, &placed), Some(rect));
    for (_, patch) in map.near(&rect) {
        let Going::Impassable { rule } = patch.going else {
            continue;
        };
        if fp.stands.iter().any(|s| patch.shape.meets(&s.polygon())) {
            return Err(refuse(
                "OPT-FIXED-03",
                format!(
                    "{} would be placed on {}, impassable to it ({rule})",
                    p.name, patch.name
                ),
            ));
        }
    }
    Ok(())
}

/// OPT-FIXED-03: may the CO transfer `piece` to HQ `to_hq`'s formation, placed at `at`?
pub fn check_transfer(ctx: &Ctx, piece: PieceId, to_hq: HqId, at: Pose) -> Result<(), ActionError> {
    check_transfer_plan(ctx, piece, to_hq, at).map(|_| ())
}

fn centre(ctx: &Ctx, p: &PieceState) -> Option<Point> {
    footprint_of(ctx, p).map(|f| f.centroid())
}

/// OPT-FIXED-03 (a), (b): the transfer's own modifiers — the distance from the CO to the
/// receiving HQ (CMD-09's formula, edge to edge) and −1 per dense section and enemy unit on the
/// line between them. `unit` is the unit transferred (what "dense" is for).
pub fn transfer_modifiers(
    ctx: &Ctx,
    co: &PieceState,
    hq: &PieceState,
    unit: &PieceState,
) -> Vec<Modifier> {
    let mut mods = Vec::new();
    let ms = measure_scale(ctx);
    let (Some(cfp), Some(hfp)) = (footprint_of(ctx, co), footprint_of(ctx, hq)) else {
        return mods;
    };
    let d = edge_distance(&cfp, &hfp) / ms;
    let v = command::distance_modifier(d);
    if v != 0 {
        mods.push(Modifier {
            rule: "OPT-FIXED-03".into(),
            label: format!("the CO is {d:.1} cm from {} (CMD-09 distance)", hq.name),
            value: v,
        });
    }
    let (Some(a), Some(b)) = (centre(ctx, co), centre(ctx, hq)) else {
        return mods;
    };
    let troops = mover_of(ctx, unit).kind;
    let dense: Vec<_> = ctx
        .scenario
        .terrain
        .iter()
        .filter(|f| is_dense_for(f.kind, f.dense, troops))
        .cloned()
        .collect();
    let crossed = path_crossings(&dense, &[a, b]);
    let sections = dense
        .iter()
        .filter(|f| {
            crossed.iter().any(|c| c.feature == f.id) || {
                let shape = Shape::of(&f.geometry);
                shape.covers_point(a) || shape.covers_point(b)
            }
        })
        .count();
    let line = geo::LineString::from(vec![(a.x, a.y), (b.x, b.y)]);
    let enemies = ctx
        .state
        .pieces
        .values()
        .filter(|q| q.id.side() != co.id.side() && !q.id.is_command() && q.on_table())
        .filter(|q| {
            footprint_of(ctx, q).is_some_and(|f| footprint_polyline_distance(&f, &line) <= 1e-9)
        })
        .count();
    let n = sections + enemies;
    if n > 0 {
        let mut what = Vec::new();
        if sections > 0 {
            what.push(format!("{sections} dense terrain section(s)"));
        }
        if enemies > 0 {
            what.push(format!("{enemies} enemy unit(s)"));
        }
        mods.push(Modifier {
            rule: "OPT-FIXED-03".into(),
            label: format!("{} between the CO and {}", what.join(" and "), hq.name),
            value: -i32::try_from(n).unwrap_or(i32::MAX),
        });
    }
    mods
}

/// OPT-FIXED-03: the CO's command roll to transfer `piece` to HQ `to_hq`'s formation, and on
/// success its placement at `at`. The roll is an order of the CO's (CMD-01 cap, CMD-08, CMD-05).
pub fn resolve_transfer(
    ctx: &Ctx,
    piece: PieceId,
    to_hq: HqId,
    at: Pose,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let plan = check_transfer_plan(ctx, piece, to_hq, at)?;
    let co_piece = ctx.piece(plan.co)?;
    let hq_piece = ctx.piece(plan.to)?;
    // The ordinary modifiers of an order of this unit, but for the distance (measured to the
    // receiving HQ instead: a road declaration leaves the unit out of CMD-09) and MOVE-13
    // (touching march columns is about a move, not a transfer).
    let probe = OrderedUnit {
        piece,
        action: UnitActionKind::Move,
        target: None,
        road: true,
        dense: false,
    };
    let mut mods: Vec<Modifier> = command::order_modifiers(ctx, plan.co, &[probe])?
        .into_iter()
        .filter(|m| m.rule != "MOVE-13")
        .collect();
    mods.extend(transfer_modifiers(ctx, co_piece, hq_piece, plan.unit));
    let (value, _) = command::command_value(ctx, plan.co).unwrap_or((0, false));
    let target = i32::from(value) + mods.iter().map(|m| m.value).sum::<i32>();
    let rolled = dice.roll(2, "command roll (transfer)")?;
    let (a, b) = (
        rolled.first().copied().unwrap_or(1),
        rolled.get(1).copied().unwrap_or(1),
    );
    let outcome = command::roll_outcome([a, b], target);
    let order = ctx.state.command.next_order;
    let is_co = command::commanding_officer(ctx, plan.co.side()) == Some(plan.co);
    let unit = OrderedUnit {
        piece,
        action: UnitActionKind::Move,
        target: None,
        road: false,
        dense: false,
    };
    let mut staged = Staged::new(ctx);
    staged.push(Event::DiceRolled {
        piece: Some(plan.co),
        purpose: format!(
            "command roll: transfer {} to {}",
            plan.unit.name, hq_piece.name
        ),
        rule: "OPT-FIXED-03".into(),
        dice: rolled.clone(),
        modifiers: mods,
    });
    staged.push(Event::OrderRolled(OrderRoll {
        order,
        command: plan.co,
        co: is_co,
        units: vec![unit],
        value,
        target,
        total: a + b,
        outcome,
    }));
    if outcome.issued() {
        let from = plan.unit.pose.unwrap_or(at);
        staged.push(Event::UnitTransferred {
            piece,
            from_hq: plan.from_hq,
            to_hq,
            from,
            to: at,
        });
    } else if outcome == OrderOutcome::Blunder {
        command::blunder_table(&mut staged, order, plan.co, &[piece], dice)?;
    }
    Ok(staged.into_events())
}

/// OPT-FIXED-03, for a window: poses around the receiving HQ where a transferred unit could be
/// placed (behind, left, right, in front of it, 2 cm off its base), to be checked in turn.
pub fn transfer_spots(ctx: &Ctx, hq: &PieceState, unit: &PieceState) -> Vec<Pose> {
    let Some(pose) = hq.pose else {
        return Vec::new();
    };
    let ms = measure_scale(ctx);
    let f = crate::geom::footprint::heading(pose.facing_deg);
    let r = crate::geom::footprint::right_of(pose.facing_deg);
    let depth = footprint_of(ctx, unit).map_or(3.0, |fp| fp.depth());
    let width = footprint_of(ctx, unit).map_or(10.0, |fp| fp.frontage());
    let hq_depth = footprint_of(ctx, hq).map_or(3.0, |fp| fp.depth());
    let back = hq_depth + 2.0 * ms;
    let side_off = width / 2.0 + 4.0 * ms;
    let at = |dx: f64, dy: f64| Pose {
        at: Point::new(
            pose.at.x + r.x * dx + f.x * dy,
            pose.at.y + r.y * dx + f.y * dy,
        ),
        facing_deg: pose.facing_deg,
    };
    vec![
        at(0.0, -back),
        at(-side_off, 0.0),
        at(side_off, 0.0),
        at(0.0, depth + 2.0 * ms),
    ]
}

// ---------------------------------------------------------------------------------------------
// OPT-NATION-03: allied armies' breakpoints.

/// BRK-01 for one allied army: half its units, rounded up (units by their formation in the
/// order of battle; command units do not count).
pub fn army_breakpoint(scenario: &Scenario, side: usize, army: Option<HqId>) -> u32 {
    let Some(s) = scenario.sides.get(side) else {
        return 0;
    };
    let n = s
        .units
        .iter()
        .filter(|u| army_of_hq(scenario, side, u.hq) == army)
        .count();
    u32::try_from(n).unwrap_or(u32::MAX).div_ceil(2)
}

/// BRK-02 (e) for one allied army: its units knocked out so far (command units do not count).
pub fn army_units_lost(ctx: &Ctx, side: usize, army: Option<HqId>) -> u32 {
    let Some(l) = ctx.state.ledger.side(side) else {
        return 0;
    };
    let n = l
        .losses
        .iter()
        .filter(|loss| match loss {
            Loss::Piece { piece, .. } => !piece.is_command() && army_of(ctx, *piece) == army,
            Loss::Defense { .. } => false,
        })
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Whether an allied army has broken.
pub fn army_broken(state: &BattleState, side: usize, army: Option<HqId>) -> bool {
    state
        .allegiance
        .broken
        .iter()
        .any(|b| b.side == side && b.head == army)
}

/// BRK-02 ruling (b) for an allied army: its head while it survives, otherwise its surviving
/// HQ of the highest command value (a replaced one at −1).
fn army_commander(ctx: &Ctx, side: usize, army: Option<HqId>) -> Option<(PieceId, u8)> {
    let s = ctx.scenario.sides.get(side)?;
    let alive = |id: PieceId| ctx.state.piece(id).is_some_and(|p| !p.knocked_out);
    let value =
        |id: PieceId| command::command_value(ctx, id).map(|(v, r)| v.saturating_sub(u8::from(r)));
    let head = match army {
        Some(h) => Some(PieceId::Hq { side, hq: h }),
        None => s.co().map(|c| PieceId::Hq { side, hq: c.id }),
    };
    if let Some(h) = head.filter(|h| alive(*h)) {
        return Some((h, value(h).unwrap_or(0)));
    }
    s.hqs
        .iter()
        .filter(|h| !h.fao && army_of_hq(ctx.scenario, side, h.id) == army)
        .map(|h| PieceId::Hq { side, hq: h.id })
        .filter(|id| alive(*id))
        .filter_map(|id| value(id).map(|v| (id, v)))
        .fold(None, |best: Option<(PieceId, u8)>, c| match best {
            Some(b) if b.1 >= c.1 => Some(b),
            _ => Some(c),
        })
}

/// BRK-02, OPT-NATION-03: whether `side` tests a breakpoint when its next player turn begins —
/// the side's (`endphase::break_test_due`), or for allied armies, any army's not yet broken.
pub fn break_test_due(ctx: &Ctx, side: usize) -> bool {
    if !alliance(ctx.scenario, side) {
        return super::endphase::break_test_due(ctx.state, side);
    }
    if ctx
        .state
        .sides
        .get(side)
        .is_none_or(|s| s.broken || s.conceded)
    {
        return false;
    }
    armies(ctx.scenario, side).into_iter().any(|army| {
        let lost = army_units_lost(ctx, side, army);
        !army_broken(ctx.state, side, army)
            && lost > 0
            && lost >= army_breakpoint(ctx.scenario, side, army)
    })
}

/// The pieces (units and command units) of an allied army still in the battle.
fn army_pieces(ctx: &Ctx, side: usize, army: Option<HqId>) -> Vec<PieceId> {
    ctx.state
        .pieces
        .values()
        .filter(|p| p.id.side() == side && !p.knocked_out && !super::fao::is_fao(ctx, p.id))
        .filter(|p| army_of(ctx, p.id) == army)
        .map(|p| p.id)
        .collect()
}

/// OPT-NATION-03, BRK-02: at the start of an allied side's player turn, each of its armies not
/// yet broken that has lost at least its breakpoint in units tests (2D6 against its
/// commander's value, −1 per unit beyond, double one holds, double six breaks). An army that
/// fails breaks: all its pieces are suppressed at once. When the side's last army breaks the
/// side breaks (`Event::Broke`). Returns whether the side broke.
pub fn ally_break_tests(
    staged: &mut Staged,
    side: usize,
    dice: &mut dyn Dice,
) -> Result<bool, ActionError> {
    let scenario = staged.scenario();
    let all = armies(scenario, side);
    for army in &all {
        let (lost, bp, commander, player_turn) = {
            let ctx = staged.ctx();
            if army_broken(ctx.state, side, *army) {
                continue;
            }
            (
                army_units_lost(&ctx, side, *army),
                army_breakpoint(scenario, side, *army),
                army_commander(&ctx, side, *army),
                ctx.state.turn.player_turn,
            )
        };
        if lost == 0 || lost < bp {
            continue;
        }
        let name = army_name(scenario, side, *army);
        let (events, passed) = super::endphase::break_test_roll(
            side,
            commander,
            lost,
            bp,
            format!("breakpoint test of the allied army of {name} (OPT-NATION-03)"),
            dice,
        )?;
        for e in events {
            staged.push(e);
        }
        if !passed {
            staged.push(Event::AllyBroke {
                side,
                head: *army,
                player_turn,
            });
            let pieces = army_pieces(&staged.ctx(), side, *army);
            for piece in pieces {
                staged.push(Event::Suppressed { piece, player_turn });
            }
        }
    }
    let all_broken = all.iter().all(|a| army_broken(staged.state(), side, *a));
    if all_broken {
        staged.push(Event::Broke { side });
    }
    Ok(all_broken)
}

/// The name an allied army goes by: its head HQ's (the CO's for the main army).
pub fn army_name(scenario: &Scenario, side: usize, army: Option<HqId>) -> String {
    let s = scenario.sides.get(side);
    let hq = match army {
        Some(h) => s.and_then(|s| s.hq(h)),
        None => s.and_then(|s| s.co()),
    };
    hq.map_or_else(|| "the main army".to_string(), |h| h.name.clone())
}

/// OPT-NATION-03: at the End phase of the player turn an allied army broke in, every piece of
/// it still in the battle is removed; each counts as knocked out (VP-01 (e)). `gone`: pieces
/// the End phase has already knocked out.
pub fn remove_broken_allies(
    ctx: &Ctx,
    gone: &std::collections::BTreeSet<PieceId>,
) -> Result<Vec<Event>, ActionError> {
    let t = ctx.state.turn;
    if t.phase != Phase::End {
        return Ok(Vec::new());
    }
    let mut ev = Vec::new();
    for b in ctx
        .state
        .allegiance
        .broken
        .iter()
        .filter(|b| b.player_turn == t.player_turn)
    {
        for piece in army_pieces(ctx, b.side, b.head) {
            if gone.contains(&piece) {
                continue;
            }
            ev.extend(super::victory::knock_out(
                ctx,
                piece,
                KnockOutCause::AllyWithdrew,
            )?);
        }
    }
    Ok(ev)
}
