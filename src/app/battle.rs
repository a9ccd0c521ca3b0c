//! The battle in the window: the open [`Session`], the solo opponent at work on a worker
//! thread, and the [`BattlePanel`] the Battles page draws, rebuilt after every change.
//!
//! Every action goes through the session, which stores it at once; the opponent's actions
//! arrive from its worker one at a time and are recorded the same way, so closing the window
//! at any moment loses at most the action in flight and "Resume" continues exactly there.

use crate::ai::Until;
use crate::rules::command::OrdersMode;
use crate::rules::dice::DiceSource;
use crate::rules::event::Event;
use crate::rules::fog::FogMemory;
use crate::rules::state::Phase;
use crate::rules::Action;
use crate::session::worker::{FromOpponent, Opponent};
use crate::session::{self, Session, SessionError};
use crate::store::{Actor, BattleRecord, BattleStatus, PlayMode, Store};
use crate::ui::battle::{BattlePanel, BattleRow, DiceLine, FogPanel, OpponentStatus, UnitLine};
use std::time::Duration;

/// The name shown for an enemy the viewing side does not see (fog of war).
pub const UNSEEN: &str = "unseen";

/// The battle open in the window.
pub struct BattleRun {
    pub session: Session,
    pub panel: BattlePanel,
    pub opponent: Option<Opponent>,
    pub pace_ms: u64,
    /// What the selected unit may do now (the engine's options), for the battle as it stands
    /// after `.1` actions.
    options: Option<(
        crate::rules::PieceId,
        usize,
        Option<crate::rules::api::Options>,
    )>,
    /// Fog of war: what the viewing side has seen (`rules::fog`), brought up to date with
    /// each rebuild of the panel.
    fog: Option<FogMemory>,
}

impl BattleRun {
    pub fn new(session: Session, pace_ms: u64) -> BattleRun {
        let mut run = BattleRun {
            panel: BattlePanel::default(),
            session,
            opponent: None,
            pace_ms,
            options: None,
            fog: None,
        };
        run.refresh();
        run
    }

    /// The memory of the side whose view the window shows, brought up to date (`None`: no
    /// fog of war in this battle).
    fn fog_memory(&mut self) -> Option<&FogMemory> {
        let Some(side) = fog_side(&self.session) else {
            self.fog = None;
            return None;
        };
        match self.fog.as_mut() {
            Some(m) if m.side() == side => m.catch_up(self.session.battle()),
            _ => self.fog = Some(FogMemory::of_battle(self.session.battle(), side)),
        }
        self.fog.as_ref()
    }

    /// The engine's options for the selected piece, worked out once per selection and action
    /// (none while the computer plays: the battle is changing under it).
    pub fn options_for(
        &mut self,
        selected: Option<crate::rules::PieceId>,
    ) -> Option<&crate::rules::api::Options> {
        let piece = selected.filter(|_| self.opponent.is_none())?;
        // Under fog of war only the viewing side's own units say what they may do (an enemy's
        // options would tell what it sees and where it could go).
        if fog_side(&self.session).is_some_and(|side| piece.side() != side) {
            return None;
        }
        // Every action, undo and redo adds an entry to the stored log: its count names the
        // battle as it stands.
        let n = self.session.record().entries;
        let fresh = self
            .options
            .as_ref()
            .is_some_and(|(p, k, _)| *p == piece && *k == n);
        if !fresh {
            let o = self.session.battle().options(piece).ok();
            self.options = Some((piece, n, o));
        }
        self.options.as_ref().and_then(|(_, _, o)| o.as_ref())
    }

    pub fn refresh(&mut self) {
        let hand_over = self.session.mode() == PlayMode::Hotseat;
        self.panel = match self.fog_memory().cloned() {
            Some(m) => panel_of_seen(&self.session, Some((&m, hand_over))),
            None => panel_of(&self.session),
        };
        self.panel.computer_to_play &= self.opponent.is_none();
    }

    pub fn opponent_status(&self) -> Option<OpponentStatus> {
        self.opponent.as_ref().map(|o| OpponentStatus {
            stopping: o.is_stopping(),
            pace_ms: self.pace_ms,
        })
    }

    /// Records what the opponent sent since the last frame. An error (a store that refused the
    /// write) stops the opponent; the session has gone back to what is stored.
    pub fn poll(&mut self, store: &mut Store) -> Result<bool, SessionError> {
        let Some(op) = self.opponent.as_mut() else {
            return Ok(false);
        };
        let mut changed = false;
        let mut failure = None;
        for m in op.poll() {
            if let FromOpponent::Entry(entry) = m {
                if failure.is_none() {
                    match self.session.commit_entry(store, entry) {
                        Ok(()) => changed = true,
                        Err(e) => {
                            op.stop();
                            failure = Some(e);
                        }
                    }
                }
            }
        }
        if op.is_finished() || failure.is_some() {
            if let Some(op) = self.opponent.take() {
                op.join();
            }
            changed = true;
        }
        if changed {
            self.refresh();
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(changed),
        }
    }

    /// Starts the opponent on the computer's side(s), from where the battle stands.
    pub fn start_opponent(&mut self) -> Result<(), SessionError> {
        if self.opponent.is_some() {
            return Ok(());
        }
        let sides = self.session.mode().computer_sides();
        let fork = self.session.battle().fork()?;
        self.opponent = Some(Opponent::spawn(
            fork,
            sides,
            Until::End,
            Duration::from_millis(self.pace_ms),
        ));
        self.refresh();
        Ok(())
    }

    pub fn stop_opponent(&mut self) {
        if let Some(op) = &self.opponent {
            op.stop();
        }
    }

    pub fn set_pace(&mut self, ms: u64) {
        self.pace_ms = ms;
        if let Some(op) = &self.opponent {
            op.set_pace(Duration::from_millis(ms));
        }
    }

    /// Performs a person's action (with the dice typed in, for physical dice).
    pub fn act(
        &mut self,
        store: &mut Store,
        action: Action,
        dice: &[u8],
    ) -> Result<Vec<Event>, SessionError> {
        let r = if self.session.record().dice == DiceSource::Physical {
            self.session
                .perform_with_dice(store, action, dice, Actor::Referee)
        } else {
            self.session.perform(store, action, Actor::Player)
        };
        self.refresh();
        r
    }

    /// Undo: in solo play back to the person's own last decision (the computer's answers to
    /// it go too).
    pub fn undo(&mut self, store: &mut Store) -> Result<bool, SessionError> {
        let r = match self.session.mode() {
            PlayMode::Solo { .. } => self.session.undo_to_player(store),
            _ => self.session.undo(store),
        };
        self.refresh();
        r
    }

    pub fn redo(&mut self, store: &mut Store) -> Result<bool, SessionError> {
        let r = self.session.redo(store);
        self.refresh();
        r
    }
}

/// A row of the Battles list.
pub fn row_of(b: &BattleRecord) -> BattleRow {
    BattleRow {
        id: b.id,
        scenario: b.scenario.name.clone(),
        mode: crate::session::mode_words(b.mode, &b.scenario),
        game_turn: b.game_turn,
        ended: b.status == BattleStatus::Ended,
        result: session::result_words(b).join("; "),
        updated: b.updated_at.clone().unwrap_or_else(|| b.created_at.clone()),
    }
}

/// The side whose view of a fogged battle the window shows: in solo the person's side, in
/// hot-seat the side whose turn it is (`None`: no fog of war; a referee and the computer on
/// both sides see everything).
pub fn fog_side(session: &Session) -> Option<usize> {
    let rec = session.record();
    if !rec.fog {
        return None;
    }
    match rec.mode {
        PlayMode::Solo { computer } => Some(1 - computer.min(1)),
        PlayMode::Hotseat => Some(session.battle().state().turn.active.min(1)),
        PlayMode::Referee | PlayMode::Computer => None,
    }
}

/// Everything the page shows of a session.
pub fn panel_of(session: &Session) -> BattlePanel {
    panel_of_seen(session, None)
}

/// [`panel_of`] as one side sees it under fog of war (`fog`: its memory, and whether the
/// screen is handed over between players): the table shows the enemies it sees and the others
/// faded where last seen; in the units list and the dice log the enemies it does not see now
/// are "unseen", without name, formation, markers or a way to select them.
pub fn panel_of_seen(session: &Session, fog: Option<(&FogMemory, bool)>) -> BattlePanel {
    let hidden = |id: crate::rules::PieceId| fog.is_some_and(|(m, _)| !m.is_seen(id));
    let rec = session.record();
    let battle = session.battle();
    let st = battle.state();
    let t = st.turn;
    let names = session::side_names(rec);
    let active_name = names.get(t.active).cloned().unwrap_or_default();
    let turn = match t.phase {
        Phase::Deployment => format!("Deployment · {active_name} first"),
        Phase::Over => format!("Over after game turn {}", t.game_turn),
        p => format!(
            "Game turn {} · {active_name} · {} phase",
            t.game_turn,
            p.label()
        ),
    };
    // The phase is on the bar already; the rest of what the battle waits for.
    let waiting = crate::session::waiting_lines(battle);
    let computer = rec.mode.computer();
    let sides = rec.mode.computer_sides();
    let ended = t.phase == Phase::Over;
    let computer_to_play =
        !ended
            && (sides.get(t.active).copied().unwrap_or(false)
                || st.charges.combats.iter().any(|c| {
                    c.window_open && sides.get(c.target.side()).copied().unwrap_or(false)
                }));
    let units = st
        .pieces
        .values()
        .map(|p| {
            let mut marks = Vec::new();
            if p.suppressed_at.is_some() {
                marks.push("suppressed");
            }
            if p.disordered_until.is_some_and(|u| u >= t.player_turn) {
                marks.push("disordered");
            }
            if p.dug_in {
                marks.push("dug in");
            }
            if p.knocked_out {
                marks.push("knocked out");
            } else if p.pose.is_none() {
                marks.push("off the table");
            }
            if hidden(p.id) {
                return UnitLine {
                    side: p.id.side(),
                    name: UNSEEN.to_string(),
                    formation: String::new(),
                    stands: p.stands,
                    hits: 0,
                    marks: String::new(),
                    gone: p.knocked_out,
                    id: None,
                };
            }
            UnitLine {
                side: p.id.side(),
                name: p.name.clone(),
                formation: match (p.formation, p.limbered) {
                    (Some(f), _) => f.label().to_string(),
                    (None, true) => "limbered".to_string(),
                    (None, false) if p.id.is_command() => "command".to_string(),
                    (None, false) => String::new(),
                },
                stands: p.stands,
                hits: p.hits,
                marks: marks.join(", "),
                gone: p.knocked_out,
                id: Some(p.id),
            }
        })
        .collect();
    // The dice log: the roll-off for the first move (SEQ-01), then every roll of the actions in
    // effect, in order.
    let mut dice = roll_off_lines(&battle.log().roll_off, &names);
    let mut when = String::from("before the battle");
    for (n, entry) in battle.entries().iter().enumerate() {
        let hand = entry.hand_dice.as_ref().map_or(0, Vec::len);
        let mut at = 0;
        for (k, e) in entry.events.iter().enumerate() {
            match e {
                Event::TurnBegan {
                    game_turn, active, ..
                } => {
                    when = format!(
                        "T{game_turn} {}",
                        names.get(*active).cloned().unwrap_or_default()
                    );
                }
                Event::DiceRolled {
                    piece,
                    purpose,
                    rule,
                    dice: faces,
                    modifiers,
                } => {
                    let who = match piece {
                        Some(id) if hidden(*id) => UNSEEN.to_string(),
                        _ => piece
                            .and_then(|id| battle.initial_state().piece(id))
                            .map_or_else(String::new, |p| p.name.clone()),
                    };
                    dice.push(DiceLine {
                        when: when.clone(),
                        side: piece.map(|p| p.side()),
                        who,
                        purpose: purpose.clone(),
                        rule: rule.clone(),
                        dice: faces.clone(),
                        modifiers: modifiers
                            .iter()
                            .map(|m| (m.rule.clone(), m.label.clone(), m.value))
                            .collect(),
                        by_hand: entry.hand_dice.is_some(),
                        needed: if purpose == "save" {
                            crate::rules::casualty::save_needed(modifiers).map(|v| format!("{v}+"))
                        } else {
                            needed_of(entry.events.get(k + 1..).unwrap_or_default())
                        },
                        outcome: outcome_of(entry.events.get(k + 1..).unwrap_or_default()),
                        action: n + 1,
                        typed: entry
                            .hand_dice
                            .as_ref()
                            .filter(|_| !faces.is_empty())
                            .map(|_| (at + 1, at + faces.len(), hand)),
                    });
                    at += faces.len();
                }
                _ => {}
            }
        }
    }
    let orders = match rec.orders {
        OrdersMode::Full => "full orders",
        OrdersMode::Free => "free orders",
    };
    let fog_panel = fog.map(|(m, hand_over)| FogPanel {
        side: m.side(),
        // "French: Masséna's advance guard" → "French": the player, not the command.
        side_name: names
            .get(m.side())
            .and_then(|n| n.split(':').next())
            .map(|n| n.trim().to_string())
            .unwrap_or_default(),
        hand_over,
    });
    BattlePanel {
        id: rec.id,
        title: rec.scenario.name.clone(),
        how: format!(
            "{} · {} · {orders}",
            crate::session::mode_words(rec.mode, &rec.scenario),
            session::dice_words(&rec.dice)
        ),
        side_names: names,
        turn,
        active: t.active,
        waiting,
        can_undo: !battle.entries().is_empty(),
        can_redo: battle.log().entries.len() > battle.entries().len(),
        physical: rec.dice == DiceSource::Physical,
        computer_to_play,
        computer_sides: sides,
        computer_label: match (computer, sides) {
            (Some(c), _) => format!(
                "Computer plays {}",
                session::side_names(rec).get(c).cloned().unwrap_or_default()
            ),
            (None, [true, true]) => "Computer plays both sides".to_string(),
            _ => String::new(),
        },
        ended,
        result: session::result_words(rec),
        units,
        dice,
        actions: battle.entries().len(),
        scene: match fog {
            Some((m, _)) => crate::ui::table::TableScene::of_battle_seen(
                battle.scenario(),
                battle.lists(),
                st,
                m,
            ),
            None => crate::ui::table::TableScene::of_battle(battle.scenario(), battle.lists(), st),
        },
        poses: st
            .pieces
            .values()
            .filter(|p| !p.knocked_out && !hidden(p.id))
            .filter_map(|p| p.pose.map(|pose| (p.id, pose)))
            .collect(),
        report: ended.then(|| crate::rules::report::ResultReport::of(battle)),
        fog: fog_panel,
    }
}

/// What came of a roll, from the same event [`needed_of`] reads: the hits scored, the hits
/// saved, a command roll's total and outcome, a breakpoint test's total and verdict.
fn outcome_of(after: &[Event]) -> Option<String> {
    let next = after
        .iter()
        .find(|e| !matches!(e, Event::DiceRolled { .. }))?;
    match next {
        Event::HitsScored { hits, .. } => Some(match hits {
            1 => "1 hit".to_string(),
            n => format!("{n} hits"),
        }),
        Event::Saved { saved, .. } => Some(format!("{saved} saved")),
        Event::ConstructionHit { hits, total, .. } => Some(format!(
            "{hits} hit{} kept on the building or work ({total} on that stretch)",
            if *hits == 1 { "" } else { "s" }
        )),
        Event::OrderRolled(o) => Some(format!(
            "{}: {}",
            o.total,
            match o.outcome {
                crate::rules::command::OrderOutcome::Success => "order given",
                crate::rules::command::OrderOutcome::Bonus => "order given, two actions",
                crate::rules::command::OrderOutcome::Failure => "failed",
                crate::rules::command::OrderOutcome::Blunder => "blunder",
            }
        )),
        Event::BreakTest { total, passed, .. } => Some(format!(
            "{total}: {}",
            if *passed { "holds" } else { "breaks" }
        )),
        _ => None,
    }
}

/// What a roll had to make, read from the first event after it that is not another roll: the
/// lowest score to hit (FIRE-14, GEN-16 step 4), or the highest total that passes a command
/// roll (CMD-03), a breakpoint test (BRK-02) or a self-order (CMD-07: 7).
fn needed_of(after: &[Event]) -> Option<String> {
    let next = after
        .iter()
        .find(|e| !matches!(e, Event::DiceRolled { .. }))?;
    match next {
        Event::HitsScored { needed, .. } => Some(format!("{needed}+")),
        Event::OrderRolled(o) => Some(format!("{} or less", o.target)),
        Event::BreakTest { target, .. } => Some(format!("{target} or less")),
        Event::SelfOrdered { .. } => Some("7 or less".to_string()),
        _ => None,
    }
}

/// SEQ-01: the roll-off's rounds as dice-log lines, at the top of the log (before the battle):
/// the dice, side 1's first, and what came of them. The words are short so that the line wraps
/// cleanly in the narrow log.
fn roll_off_lines(rounds: &[[u8; 2]], names: &[String]) -> Vec<DiceLine> {
    let name = |s: usize| {
        names
            .get(s)
            .cloned()
            .unwrap_or_else(|| format!("side {}", s + 1))
    };
    rounds
        .iter()
        .map(|&[a, b]| DiceLine {
            when: String::new(),
            side: None,
            who: String::new(),
            purpose: "Roll-off for the first move".to_string(),
            rule: "SEQ-01".to_string(),
            dice: vec![a, b],
            modifiers: Vec::new(),
            by_hand: false,
            needed: None,
            outcome: Some(if a == b {
                format!("{} {a}, {} {b}: a tie, again", name(0), name(1))
            } else {
                format!(
                    "{} {a}, {} {b}: {} moves first",
                    name(0),
                    name(1),
                    name(usize::from(b > a))
                )
            }),
            action: 0,
            typed: None,
        })
        .collect()
}
