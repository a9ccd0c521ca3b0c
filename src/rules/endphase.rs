//! The scheduled bookkeeping of the sequence of play (SEQ-05): the End phase turning hits into
//! stand losses and lifting old suppression (END-01, END-02, GEN-11), disorder and exhaustion
//! running out at the end of an Initiative phase (FIRE-28, FIRE-29), the breakpoint test at the
//! start of a player turn (BRK-02), and when the battle ends (BRK-03, END-03).
//!
//! `battle::resolve_end_phase` calls these at their moments through [`Staged`], which applies
//! each event to a copy of the state as it is produced, so a later step sees what an earlier one
//! did (a unit knocked out at the End phase counts for the breakpoint test that opens the
//! opponent's turn in the same action). Nothing here changes the battle.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only; must not import egui,
//! eframe, rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::apply::apply;
use super::battle::Ctx;
use super::dice::Dice;
use super::error::ActionError;
use super::event::{EndReason, Event, KnockOutCause, Modifier};
use super::state::{BattleState, Phase, PieceId, PieceState};
use super::victory::{battle_result, knock_out, ObjectiveLevel, VictoryParams};
use crate::model::points::engineer_row;
use crate::model::{Arm, ArmyList, Grade, RowRole, Scenario};
use std::collections::BTreeSet;

/// Events being produced by one action, with the state as it will be once they are applied.
/// The state is copied from the context's only when it is first asked for after an event
/// (most actions never look at it), then kept up to date event by event.
pub struct Staged<'a> {
    scenario: &'a Scenario,
    lists: &'a [ArmyList],
    sight: Option<&'a super::visibility::SightCache>,
    base: &'a BattleState,
    /// `base` with every event so far applied, once asked for.
    state: std::cell::OnceCell<BattleState>,
    events: Vec<Event>,
}

impl<'a> Staged<'a> {
    pub fn new(ctx: &Ctx<'a>) -> Staged<'a> {
        Staged {
            sight: ctx.sight,
            scenario: ctx.scenario,
            lists: ctx.lists,
            base: ctx.state,
            state: std::cell::OnceCell::new(),
            events: Vec::new(),
        }
    }

    /// The state with every event so far applied.
    pub fn state(&self) -> &BattleState {
        if self.events.is_empty() {
            return self.base;
        }
        self.state.get_or_init(|| {
            let mut s = self.base.clone();
            for e in &self.events {
                apply(&mut s, e);
            }
            s
        })
    }

    /// The scenario being played.
    pub fn scenario(&self) -> &'a Scenario {
        self.scenario
    }

    pub fn ctx(&self) -> Ctx<'_> {
        Ctx {
            scenario: self.scenario,
            lists: self.lists,
            state: self.state(),
            sight: self.sight,
        }
    }

    pub fn push(&mut self, event: Event) {
        if let Some(s) = self.state.get_mut() {
            apply(s, &event);
        }
        self.events.push(event);
    }

    pub fn extend(&mut self, events: Vec<Event>) {
        for e in events {
            self.push(e);
        }
    }

    /// END-03, OBJ-01, VP-01..VP-03: the battle ends, followed by its result. The result
    /// decides who won: the `BattleEnded` event names the result's winner (none for a draw),
    /// so the two never disagree — a side left standing after its opponent broke or conceded
    /// has not won if the verdict is a draw (OBJ-01 ruling (b), VP-02 cap, no VP-03 upgrade).
    /// The verdict reads only the ledger and the sides, which `BattleEnded` leaves alone.
    pub fn end_battle(&mut self, reason: EndReason) {
        let result = battle_result(&self.ctx(), &VictoryParams::default());
        self.push(Event::BattleEnded {
            reason,
            winner: result.winner,
        });
        self.push(Event::BattleResult(result));
    }

    pub fn into_events(self) -> Vec<Event> {
        self.events
    }
}

// --- END-01 / GEN-11 -----------------------------------------------------------------------------

/// COL-05, ARMY-09, MOVE-20: the Hits of one stand of a piece — its row's (a limbered gun uses
/// the list's Limbered Artillery row), +1 for an elite unit; a command unit's own Hits. Disorder
/// and exhaustion do not change it (END-01 ruling).
pub fn per_stand_hits(ctx: &Ctx, piece: &PieceState) -> Result<u32, ActionError> {
    let unknown = || ActionError::Unsupported {
        rule: "END-01",
        what: format!("{}: its army list gives no Hits value", piece.name),
    };
    let list = ctx.list(piece.id.side()).ok_or_else(unknown)?;
    if let Some((level, quality)) = piece.command {
        let c = list.command_type(level, quality).ok_or_else(unknown)?;
        return Ok(u32::from(c.hits));
    }
    let row = ctx.row(piece).ok_or_else(unknown)?;
    let limber = (piece.limbered && row.arm == Arm::Artillery)
        .then(|| list.troop_types.iter().find(|t| t.role == RowRole::Limber))
        .flatten();
    let base = u32::from(limber.unwrap_or(row).hits);
    let elite = u32::from(piece.grade == Grade::Elite);
    Ok(base + elite)
}

/// ENG-01, GEN-11 mixed-unit ruling: the Hits of the unit's attached engineer stand (its own
/// row's), while it has one.
pub fn engineer_stand_hits(ctx: &Ctx, piece: &PieceState) -> Option<u32> {
    let PieceId::Unit { side, unit } = piece.id else {
        return None;
    };
    let attached = ctx
        .scenario
        .sides
        .get(side)
        .and_then(|s| s.unit(unit))
        .is_some_and(|u| u.engineer_attached);
    if !attached || ctx.state.ledger.engineers_lost.contains(&piece.id) {
        return None;
    }
    engineer_row(ctx.list(side)?).map(|r| u32::from(r.hits))
}

/// GEN-11 (and its mixed-unit ruling), END-01: the stands a unit's hits destroy. Hits go to one
/// stand at a time; a stand is lost when its share reaches its Hits, and what is left over is
/// discarded (never rounded up). Order: the ordinary stands, then an attached engineer stand,
/// then the unit command stand last (CMD-30). The owner's choice of order is not asked: keeping
/// the engineers to the end is the engine's ruling. Returns (troop stands lost, engineer lost).
pub fn allocate_hits(hits: u32, stands: u8, per_stand: u32, engineer: Option<u32>) -> (u8, bool) {
    let per_stand = per_stand.max(1);
    let mut left = hits;
    let mut lost: u8 = 0;
    for _ in 0..stands.saturating_sub(1) {
        if left < per_stand {
            return (lost, false);
        }
        left -= per_stand;
        lost += 1;
    }
    let mut engineer_lost = false;
    if let Some(e) = engineer {
        let e = e.max(1);
        if left < e {
            return (lost, false);
        }
        left -= e;
        engineer_lost = true;
    }
    if stands > 0 && left >= per_stand {
        lost += 1;
    }
    (lost, engineer_lost)
}

/// END-01, END-02 (GEN-11): the End phase's work at the end of a player turn. Every piece of
/// both sides carrying hits loses the stands they destroy and has its hits cleared; one left with
/// no stands is knocked out. Then the active side's suppression markers placed in an earlier
/// player turn are removed (markers of this turn stay).
pub fn end_of_player_turn(ctx: &Ctx) -> Result<Vec<Event>, ActionError> {
    let mut ev = Vec::new();
    let mut gone = BTreeSet::new();
    for p in ctx.state.pieces.values() {
        if p.knocked_out || p.hits == 0 {
            continue;
        }
        let per_stand = per_stand_hits(ctx, p)?;
        let engineer = engineer_stand_hits(ctx, p);
        let (stands_lost, engineer_lost) = allocate_hits(p.hits, p.stands, per_stand, engineer);
        let stands_left = p.stands.saturating_sub(stands_lost);
        if stands_lost > 0 || engineer_lost {
            ev.push(Event::StandsLost {
                piece: p.id,
                hits: p.hits,
                stands_lost,
                stands_left,
                engineer_lost,
            });
        }
        ev.push(Event::HitsCleared {
            piece: p.id,
            hits: p.hits,
        });
        if stands_left == 0 {
            ev.extend(knock_out(ctx, p.id, KnockOutCause::StandsLost)?);
            gone.insert(p.id);
        }
    }
    // OPT-NATION-03: an allied army that broke this turn leaves the battle now.
    let removed = super::allegiance::remove_broken_allies(ctx, &gone)?;
    for e in &removed {
        if let Event::UnitKnockedOut { piece, .. } = e {
            gone.insert(*piece);
        }
    }
    ev.extend(removed);
    let t = ctx.state.turn;
    for p in ctx.state.pieces.values() {
        let old_marker = p.suppressed_at.is_some_and(|at| at < t.player_turn);
        if p.id.side() == t.active && !p.knocked_out && !gone.contains(&p.id) && old_marker {
            ev.push(Event::SuppressionRemoved { piece: p.id });
        }
    }
    Ok(ev)
}

/// SEQ-05, FIRE-28, FIRE-29: at the end of an Initiative phase, disorder (and the exhaustion
/// that lasts exactly as long) runs out for the units disordered until this player turn.
pub fn expire_disorder(ctx: &Ctx) -> Vec<Event> {
    let now = ctx.state.turn.player_turn;
    ctx.state
        .pieces
        .values()
        .filter(|p| !p.knocked_out && p.disordered_until.is_some_and(|until| until <= now))
        .map(|p| Event::DisorderEnded { piece: p.id })
        .collect()
}

// --- BRK-02 / BRK-03 -----------------------------------------------------------------------------

/// BRK-02 ruling (a): a side tests at the start of each of its player turns once it has lost at
/// least its breakpoint in units (the breakpoint was reached in an earlier turn, since nothing is
/// lost between turns). A side that has lost no units never tests, even with a breakpoint of 0.
pub fn break_test_due(state: &BattleState, side: usize) -> bool {
    state.sides.get(side).is_some_and(|s| {
        !s.broken && !s.conceded && s.units_lost > 0 && s.units_lost >= s.breakpoint
    })
}

/// BRK-02 ruling (b), CMD-27, CMD-28: whose command value the breakpoint test uses — the CO
/// (the head of the order of battle) while it survives, otherwise the surviving HQ with the
/// highest command value; a replaced commander at its value −1. `None`: no command unit left.
pub fn break_test_commander(ctx: &Ctx, side: usize) -> Option<(PieceId, u8)> {
    let s = ctx.scenario.sides.get(side)?;
    let surviving = |hq: &crate::model::Hq| {
        let id = PieceId::Hq { side, hq: hq.id };
        ctx.state
            .piece(id)
            .is_some_and(|p| !p.knocked_out)
            .then(|| {
                // CMD-28: replaced before this battle or in it.
                let (value, replaced) = super::command::command_value(ctx, id)
                    .unwrap_or((hq.commander.command_value, hq.commander.replaced_once));
                (id, value.saturating_sub(u8::from(replaced)))
            })
    };
    if let Some(co) = s.co().and_then(surviving) {
        return Some(co);
    }
    s.hqs
        .iter()
        .filter_map(surviving)
        .fold(None, |best: Option<(PieceId, u8)>, c| match best {
            Some(b) if b.1 >= c.1 => Some(b),
            _ => Some(c),
        })
}

/// BRK-02: one breakpoint test — 2D6 against the command value of `commander` (none: 0), −1
/// for each unit lost beyond the breakpoint `bp`; a double one holds, a double six breaks. The
/// dice and the test as events, and whether it held. For a side, or an allied army of one
/// (OPT-NATION-03).
pub(super) fn break_test_roll(
    side: usize,
    commander: Option<(PieceId, u8)>,
    lost: u32,
    bp: u32,
    purpose: String,
    dice: &mut dyn Dice,
) -> Result<(Vec<Event>, bool), ActionError> {
    let command_value = commander.map_or(0, |c| c.1);
    let beyond = lost.saturating_sub(bp);
    let penalty = -i32::try_from(beyond).unwrap_or(i32::MAX);
    let target = i32::from(command_value) + penalty;
    let roll = dice.roll(2, "breakpoint test (BRK-02)")?;
    let (a, b) = match roll.as_slice() {
        [a, b] => (*a, *b),
        _ => {
            return Err(ActionError::Unsupported {
                rule: "BRK-02",
                what: "the dice gave other than two dice".to_string(),
            })
        }
    };
    let total = a + b;
    let passed = (a == 1 && b == 1) || (!(a == 6 && b == 6) && i32::from(total) <= target);
    let mut modifiers = Vec::new();
    if beyond > 0 {
        modifiers.push(Modifier {
            rule: "BRK-02".to_string(),
            label: format!("{beyond} unit(s) lost beyond the breakpoint of {bp}"),
            value: penalty,
        });
    }
    let ev = vec![
        Event::DiceRolled {
            piece: commander.map(|c| c.0),
            purpose,
            rule: "BRK-02".to_string(),
            dice: roll,
            modifiers,
        },
        Event::BreakTest {
            side,
            commander: commander.map(|c| c.0),
            command_value,
            target,
            total,
            passed,
        },
    ];
    Ok((ev, passed))
}

/// BRK-02: the breakpoint test — 2D6 against the command value at −1 per unit lost beyond the
/// breakpoint, no other modifier; a double one passes and a double six fails whatever the total
/// (no blunder table). With no command unit left the value is 0 (engine ruling: only a double
/// one holds the Command). Failing breaks the Command: it withdraws at once.
pub fn resolve_break_test(
    ctx: &Ctx,
    side: usize,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let Some(s) = ctx.state.sides.get(side) else {
        return Ok(Vec::new());
    };
    let (mut ev, passed) = break_test_roll(
        side,
        break_test_commander(ctx, side),
        s.units_lost,
        s.breakpoint,
        format!("breakpoint test of {}", s.name),
        dice,
    )?;
    if !passed {
        ev.push(Event::Broke { side });
    }
    Ok(ev)
}

/// SEQ-02, SEQ-05 (b), BRK-02, BRK-03: the next player turn begins, opening with the active
/// side's breakpoint test when it is due. If the first player of the game turn breaks, his turn
/// is over before it starts and his opponent plays the rest of the game turn (the battle then
/// ends at the end of the game turn, [`game_turn_end`]); if the second player breaks, the game
/// turn is complete and the battle ends at once.
pub fn begin_player_turn(staged: &mut Staged, dice: &mut dyn Dice) -> Result<(), ActionError> {
    // At most two turns begin: a broken first player's, then his opponent's.
    for _ in 0..2 {
        let t = staged.state().turn;
        let player_turn = t.player_turn + 1;
        let active = if t.player_turn == 0 {
            t.first_player
        } else {
            1 - t.active.min(1)
        };
        let game_turn = player_turn.div_ceil(2);
        staged.push(Event::TurnBegan {
            game_turn,
            player_turn,
            active,
        });
        // OPT-NATION-03: an allied side tests army by army.
        let allied = super::allegiance::alliance(staged.scenario(), active);
        let tested = if allied {
            super::allegiance::ally_break_tests(staged, active, dice)?;
            true
        } else if break_test_due(staged.state(), active) {
            let ev = resolve_break_test(&staged.ctx(), active, dice)?;
            staged.extend(ev);
            true
        } else {
            false
        };
        if tested {
            let broke = staged.state().sides.get(active).is_some_and(|s| s.broken);
            if broke {
                if active == t.first_player {
                    continue;
                }
                staged.push(Event::GameTurnEnded { game_turn });
                staged.end_battle(EndReason::Break);
                return Ok(());
            }
        }
        staged.push(Event::PhaseBegan {
            phase: Phase::Initiative,
        });
        return Ok(());
    }
    Ok(())
}

/// END-03 ruling, BRK-03: at the end of each game turn (after the second player's End phase) the
/// battle ends if a side broke during it, if a side that has not withdrawn has been declared to
/// have reached its major objective, or if the turn limit has been played — in that order of
/// precedence for the reason given. Concession ends the battle when it is made.
pub fn game_turn_end(state: &BattleState, scenario: &Scenario) -> Option<EndReason> {
    if state.sides.iter().any(|s| s.broken) {
        return Some(EndReason::Break);
    }
    let major = (0..state.sides.len()).any(|i| {
        let standing = state.sides.get(i).is_some_and(|s| !s.broken && !s.conceded);
        standing
            && state
                .ledger
                .side(i)
                .is_some_and(|l| l.objective == ObjectiveLevel::Major)
    });
    if major {
        return Some(EndReason::Objective);
    }
    if state.turn.game_turn >= scenario.turn_limit {
        return Some(EndReason::TurnLimit);
    }
    None
}
