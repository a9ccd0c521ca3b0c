//! Multi-player communication (catalogue §3.8, OPTIONAL, flag
//! `OptionalRule::MultiplayerComms`): OPT-MULTI-01 teams and silence, OPT-MULTI-02 communication
//! rolls. With the flag off [`Action::Communicate`](super::Action::Communicate) is refused and
//! nothing here has any effect.
//!
//! Teams are scenario data ([`crate::model::Team`]): each names a side's player and the HQs
//! (formations) they command. The engine cannot hear the players; it records who may speak to
//! whom and for how many seconds ([`Event::Communicated`]), and the window shows it.
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * OPT-MULTI-01: a command unit's player is the team naming it or the nearest HQ above it in
//!   the order of battle; an HQ no team reaches (often the CO) is the side's first team's. A side
//!   with fewer than two teams has no one to talk to: communication is refused for it.
//! * OPT-MULTI-02: the roll is 2D6 against the command value with no modifier but the
//!   successive penalty: −1 for each communication roll the same command unit made earlier
//!   this player turn (not weather, OPT-WEATHER-03 ruling). Double one always succeeds and adds
//!   one die to the duration; double six fails as a blunder (CMD-18), carried out in full from
//!   the blunder table (CMD-19; the results that act on the ordered units find none).
//! * Ruling (a): it is an order of the command unit: it must be one that may issue an order now
//!   (CMD-01 cap, CMD-02, CMD-05, CMD-20, CMD-28, FIRE-23 suppressed — the same check as
//!   `issue_order`); it makes it the command unit issuing orders (CMD-02); success counts
//!   towards its CMD-01 cap; failure ends its orders for the turn, and for the CO the side's.
//! * Ruling (b): two-way, the partner is a command unit of the same side played by another
//!   team, on the table, not an FAO, not suppressed, that has not failed a roll this turn and
//!   has orders left under its CMD-01 cap; its roll follows the initiator's, only if the
//!   initiator's succeeded, and counts as an order of the partner in the same way (cap,
//!   failure, its own successive penalty) without taking CMD-02 from the initiator.
//! * Ruling (c): the duration is the sum of 1D6, +1D6 for each double one rolled (both: three
//!   dice), × 5 s one-way or × 10 s two-way.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::battle::Ctx;
use super::command::{check_issuer, command_value, commanding_officer, roll_outcome, OrderOutcome};
use super::dice::Dice;
use super::endphase::Staged;
use super::error::{ActionError, RuleError};
use super::event::{Event, Modifier};
use super::state::{BattleState, PieceId};
use crate::model::{HqId, OptionalRule, Scenario};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const RULE: &str = "OPT-MULTI-02";
/// OPT-MULTI-02 ruling (c): seconds per duration pip, one-way and two-way.
pub const ONE_WAY_SECONDS: u32 = 5;
pub const TWO_WAY_SECONDS: u32 = 10;

/// Communication rolls made (one field of [`BattleState`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommsState {
    /// Per command unit: the player turn of its last communication roll and how many it made
    /// in that turn (the successive penalty).
    pub rolls: BTreeMap<PieceId, (u32, u8)>,
}

impl CommsState {
    pub fn is_empty(&self) -> bool {
        self.rolls.is_empty()
    }

    /// The communication rolls `command` made in player turn `turn`.
    pub fn made_in(&self, command: PieceId, turn: u32) -> u8 {
        match self.rolls.get(&command) {
            Some((t, n)) if *t == turn => *n,
            _ => 0,
        }
    }
}

fn refuse(rule: &'static str, message: impl Into<String>) -> ActionError {
    RuleError::new(rule, message).into()
}

/// The scenario plays the optional communication rules.
pub fn on(scenario: &Scenario) -> bool {
    scenario
        .optional_rules
        .contains(&OptionalRule::MultiplayerComms)
}

/// The teams of `side`, in scenario order.
fn teams_of(scenario: &Scenario, side: usize) -> Vec<&crate::model::Team> {
    scenario.teams.iter().filter(|t| t.side == side).collect()
}

/// OPT-MULTI-01 ruling: the index (among the side's teams) of the player who commands command
/// unit `id`: the team naming it or the nearest HQ above it; otherwise the first team.
pub fn team_of(scenario: &Scenario, id: PieceId) -> Option<usize> {
    let PieceId::Hq { side, hq } = id else {
        return None;
    };
    let teams = teams_of(scenario, side);
    if teams.is_empty() {
        return None;
    }
    let s = scenario.sides.get(side)?;
    let mut cur: Option<HqId> = Some(hq);
    let mut steps = 0;
    while let Some(h) = cur {
        if let Some(i) = teams.iter().position(|t| t.hqs.contains(&h)) {
            return Some(i);
        }
        steps += 1;
        if steps > s.hqs.len() {
            break;
        }
        cur = s.hq(h).and_then(|x| x.parent);
    }
    Some(0)
}

fn is_fao(ctx: &Ctx, id: PieceId) -> bool {
    let PieceId::Hq { side, hq } = id else {
        return false;
    };
    ctx.scenario
        .sides
        .get(side)
        .and_then(|s| s.hq(hq))
        .is_some_and(|h| h.fao)
}

fn name(ctx: &Ctx, id: PieceId) -> String {
    ctx.state
        .piece(id)
        .map_or_else(|| id.to_string(), |p| p.name.clone())
}

/// OPT-MULTI-01, OPT-MULTI-02: may `command` make this communication roll now (two-way with
/// `partner`)?
pub fn check_communicate(
    ctx: &Ctx,
    command: PieceId,
    partner: Option<PieceId>,
) -> Result<(), ActionError> {
    if !on(ctx.scenario) {
        return Err(refuse(
            RULE,
            "multi-player communication is not switched on for this battle (the scenario's \
             optional rules)",
        ));
    }
    let side = command.side();
    if teams_of(ctx.scenario, side).len() < 2 {
        return Err(refuse(
            "OPT-MULTI-01",
            format!(
                "side {} has one player: communication rolls are for team-mates; list the \
                 side's players and their HQs under the scenario's teams",
                side + 1
            ),
        ));
    }
    if !command.is_command() {
        return Err(refuse(
            RULE,
            format!(
                "{} is not a command unit; only the CO and HQs communicate",
                name(ctx, command)
            ),
        ));
    }
    if is_fao(ctx, command) {
        return Err(refuse(
            RULE,
            format!(
                "{} is a forward artillery observer, who may not communicate; choose the CO or \
                 an HQ",
                name(ctx, command)
            ),
        ));
    }
    // Ruling (a): an order of the command unit (phase, CMD-01/02/05/20/28, FIRE-23).
    check_issuer(ctx, command)?;
    let Some(partner) = partner else {
        return Ok(());
    };
    let pp = ctx.piece(partner)?;
    if !partner.is_command() || partner.side() != side || partner == command {
        return Err(refuse(
            RULE,
            format!(
                "{} cannot answer: a two-way roll names a command unit of a team-mate on the \
                 same side",
                pp.name
            ),
        ));
    }
    if is_fao(ctx, partner) {
        return Err(refuse(
            RULE,
            format!(
                "{} is a forward artillery observer, who may not communicate",
                pp.name
            ),
        ));
    }
    if team_of(ctx.scenario, partner) == team_of(ctx.scenario, command) {
        return Err(refuse(
            "OPT-MULTI-01",
            format!(
                "{} and {} are commanded by the same player; a two-way roll is between two \
                 players",
                name(ctx, command),
                pp.name
            ),
        ));
    }
    if !pp.on_table() {
        return Err(refuse(
            RULE,
            format!("{} is not on the table and cannot be contacted", pp.name),
        ));
    }
    if pp.suppressed_at.is_some() {
        return Err(refuse(
            RULE,
            format!(
                "{} is suppressed and cannot be contacted this turn",
                pp.name
            ),
        ));
    }
    if pp.orders.failed || ctx.state.command.all_ended {
        return Err(refuse(
            "CMD-05",
            format!(
                "{} has failed a roll this turn and can make no more",
                pp.name
            ),
        ));
    }
    let (value, replaced) = command_value(ctx, partner).unwrap_or((0, false));
    let cap = value.saturating_sub(u8::from(replaced));
    if pp.orders.issued >= cap {
        return Err(refuse(
            "CMD-01",
            format!("{} has used its {cap} orders this turn", pp.name),
        ));
    }
    Ok(())
}

/// One command unit's communication roll: its events and its outcome and dice.
fn roll_one(
    ctx: &Ctx,
    staged: &mut Staged,
    command: PieceId,
    partner_roll: bool,
    dice: &mut dyn Dice,
) -> Result<(OrderOutcome, [u8; 2]), ActionError> {
    let turn = ctx.state.turn.player_turn;
    let earlier = ctx.state.comms.made_in(command, turn);
    let mut modifiers = Vec::new();
    if earlier > 0 {
        modifiers.push(Modifier {
            rule: RULE.to_string(),
            label: format!("communication roll {} this turn", earlier + 1),
            value: -i32::from(earlier),
        });
    }
    let (value, _) = command_value(ctx, command).unwrap_or((0, false));
    let target = i32::from(value) - i32::from(earlier);
    let rolled = dice.roll(2, "communication roll")?;
    let pair = [
        rolled.first().copied().unwrap_or(1),
        rolled.get(1).copied().unwrap_or(1),
    ];
    let outcome = roll_outcome(pair, target);
    staged.push(Event::DiceRolled {
        piece: Some(command),
        purpose: "communication roll".into(),
        rule: RULE.into(),
        dice: rolled,
        modifiers,
    });
    staged.push(Event::CommunicationRolled {
        command,
        partner_roll,
        co: commanding_officer(ctx, command.side()) == Some(command),
        player_turn: turn,
        value,
        target,
        total: pair[0] + pair[1],
        outcome,
    });
    if outcome == OrderOutcome::Blunder {
        let order = ctx.state.command.next_order;
        super::command::blunder_table(staged, order, command, &[], dice)?;
    }
    Ok((outcome, pair))
}

/// OPT-MULTI-02: a communication roll, one-way or two-way (see the module's rulings).
pub fn resolve_communicate(
    ctx: &Ctx,
    command: PieceId,
    partner: Option<PieceId>,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    check_communicate(ctx, command, partner)?;
    let mut staged = Staged::new(ctx);
    let (first, _) = roll_one(ctx, &mut staged, command, false, dice)?;
    if !first.issued() {
        return Ok(staged.into_events());
    }
    let mut extra = u32::from(first == OrderOutcome::Bonus);
    if let Some(p) = partner {
        let (second, _) = roll_one(ctx, &mut staged, p, true, dice)?;
        if !second.issued() {
            return Ok(staged.into_events());
        }
        extra += u32::from(second == OrderOutcome::Bonus);
    }
    let n = 1 + extra;
    let rolled = dice.roll(n as usize, "communication time")?;
    let per = if partner.is_some() {
        TWO_WAY_SECONDS
    } else {
        ONE_WAY_SECONDS
    };
    let seconds = rolled.iter().map(|d| u32::from(*d)).sum::<u32>() * per;
    staged.push(Event::DiceRolled {
        piece: Some(command),
        purpose: "communication time".into(),
        rule: RULE.into(),
        dice: rolled.clone(),
        modifiers: Vec::new(),
    });
    staged.push(Event::Communicated {
        command,
        partner,
        two_way: partner.is_some(),
        dice: rolled,
        seconds,
    });
    Ok(staged.into_events())
}

/// What the window shows for a grant: "Brigade A may speak to Brigade B for 35 s".
pub fn grant_text(state: &BattleState, event: &Event) -> Option<String> {
    let Event::Communicated {
        command,
        partner,
        two_way,
        seconds,
        ..
    } = event
    else {
        return None;
    };
    let n = |id: PieceId| {
        state
            .piece(id)
            .map_or_else(|| id.to_string(), |p| p.name.clone())
    };
    Some(match (partner, two_way) {
        (Some(p), true) => format!("{} and {} may talk for {seconds} s", n(*command), n(*p)),
        (Some(p), false) => format!("{} may speak to {} for {seconds} s", n(*command), n(*p)),
        (None, _) => format!(
            "{} may speak to the team-mates for {seconds} s (no reply)",
            n(*command)
        ),
    })
}

/// Applies this module's events (ruling (a): a communication roll is an order of its command
/// unit).
pub fn apply_event(state: &mut BattleState, event: &Event) {
    let Event::CommunicationRolled {
        command,
        partner_roll,
        co,
        player_turn,
        outcome,
        ..
    } = event
    else {
        return;
    };
    let made = state.comms.made_in(*command, *player_turn);
    state
        .comms
        .rolls
        .insert(*command, (*player_turn, made.saturating_add(1)));
    if !partner_roll {
        // CMD-02: it is now the command unit issuing orders; the one before it is done, and
        // the remaining actions of the order before lapse (SEQ-04).
        let previous = state.command.acting.replace(*command);
        state.command.current = None;
        for p in state.pieces.values_mut() {
            p.orders.actions_left = 0;
        }
        if let Some(prev) = previous.filter(|p| p != command) {
            if let Some(p) = state.pieces.get_mut(&prev) {
                p.orders.done = true;
            }
            close_units_of(state, prev);
        }
    }
    if outcome.issued() {
        if let Some(p) = state.pieces.get_mut(command) {
            p.orders.issued = p.orders.issued.saturating_add(1);
        }
    } else {
        if let Some(p) = state.pieces.get_mut(command) {
            p.orders.failed = true;
        }
        close_units_of(state, *command);
        if *co {
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
