//! `powderhorn battle new|list|show|act|undo|redo|ai|play|export`: stored battle sessions from
//! the command line, over [`crate::session::Session`]. Every action is stored as it is
//! performed, so a script can play a battle step by step, and the window can resume it.
//!
//! Exit codes as everywhere: 0 done, 1 the rules refused the action (nothing was stored), 2 the
//! input could not be used (no such battle, malformed action JSON, database refused).

use super::{scenario_and_lists, w, Failure};
use crate::ai::{AutoplayRun, Until};
use crate::rules::action::Action;
use crate::rules::command::OrdersMode;
use crate::rules::dice::DiceSource;
use crate::rules::file::report;
use crate::session::{NewBattle, Session, SessionError};
use crate::store::{Actor, BattleRecord, BattleStatus, PlayMode, Store};
use clap::{Subcommand, ValueEnum};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrdersArg {
    /// Orders, initiative and opportunity fire as the rules have them.
    Full,
    /// Any active unit may act (command rolled on the table).
    Free,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UntilArg {
    Phase,
    Turn,
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SidesArg {
    /// The computer decides for both sides.
    Both,
}

/// `solo:SIDE` (the side the computer plays), `hotseat` or `referee`.
fn parse_mode(text: &str) -> Result<PlayMode, String> {
    match text {
        "hotseat" | "hot-seat" => Ok(PlayMode::Hotseat),
        "referee" => Ok(PlayMode::Referee),
        "computer" => Ok(PlayMode::Computer),
        "solo" => Ok(PlayMode::Solo { computer: 1 }),
        other => match other.strip_prefix("solo:") {
            Some("0") => Ok(PlayMode::Solo { computer: 0 }),
            Some("1") => Ok(PlayMode::Solo { computer: 1 }),
            _ => Err(format!(
                "'{other}' is not a mode: use solo:0 or solo:1 (the side the computer plays), hotseat or referee"
            )),
        },
    }
}

fn parse_side(text: &str) -> Result<usize, String> {
    match text {
        "0" => Ok(0),
        "1" => Ok(1),
        other => Err(format!("'{other}' is not a side: use 0 or 1")),
    }
}

/// SEQ-01: who moves first, as given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstArg {
    Side(usize),
    RollOff,
}

fn parse_first(text: &str) -> Result<FirstArg, String> {
    match text {
        "roll-off" => Ok(FirstArg::RollOff),
        other => parse_side(other)
            .map(FirstArg::Side)
            .map_err(|_| format!("'{other}' is not a side: use 0, 1 or roll-off")),
    }
}

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Start a stored battle of a scenario (file, or id or name of a stored one); prints its id.
    New {
        scenario: String,
        /// Seeded dice (the default: a seed is drawn and shown).
        #[arg(long, conflicts_with = "physical")]
        seed: Option<u64>,
        /// Dice rolled on a real table and typed in with each action (`battle act --dice`).
        #[arg(long)]
        physical: bool,
        #[arg(long, value_enum, default_value = "full")]
        orders: OrdersArg,
        /// solo:SIDE (SIDE: the side the computer plays, 0 or 1), hotseat or referee.
        #[arg(long, value_parser = parse_mode, default_value = "solo:1")]
        mode: PlayMode,
        /// The side that moves first (0 or 1), or roll-off (SEQ-01); when not given, as the
        /// scenario says.
        #[arg(long, value_parser = parse_first)]
        first_player: Option<FirstArg>,
        /// Start although the scenario breaks army-building rules (listed as warnings).
        #[arg(long)]
        go_ahead: bool,
        #[arg(long)]
        json: bool,
    },
    /// Every stored battle: scenario, mode, turn, status and result.
    List {
        #[arg(long)]
        json: bool,
    },
    /// A stored battle as it stands: turn, phase, what it waits for, result, units and events.
    Show {
        id: i64,
        #[arg(long)]
        json: bool,
    },
    /// Perform one action (an action object of the battle-file format) and store it.
    Act {
        id: i64,
        /// The action as JSON, e.g. '{"action": "end_phase"}'.
        action: String,
        /// The dice rolled on the table for it, in order (battles with physical dice): 3,5,1
        #[arg(long)]
        dice: Option<String>,
    },
    /// Take back the last action (stored as an undo entry: nothing is deleted).
    Undo { id: i64 },
    /// Put back the last action taken back.
    Redo { id: i64 },
    /// Let the solo opponent take the computer's decisions, storing each action as it is made.
    Ai {
        id: i64,
        #[arg(long, value_enum, default_value = "end")]
        until: UntilArg,
        /// Decide for both sides (hot-seat and referee battles have no computer side).
        #[arg(long, value_enum)]
        sides: Option<SidesArg>,
    },
    /// Start a stored battle and let the solo opponent play both sides to the end.
    Play {
        scenario: String,
        #[arg(long)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
    /// Write a battle file of the battle as it stands (`battle replay` gives the same events).
    Export {
        id: i64,
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
}

fn store_failure(e: SessionError) -> Failure {
    match e {
        SessionError::Action(a) => Failure {
            code: 1,
            message: format!("refused: {a}"),
        },
        SessionError::Warnings(_)
        | SessionError::Setup(crate::rules::state::SetupError::Table(_)) => Failure {
            code: 1,
            message: e.to_string(),
        },
        other => Failure::input(other.to_string()),
    }
}

fn json_text(v: &serde_json::Value) -> Result<String, Failure> {
    serde_json::to_string_pretty(v).map_err(|e| Failure::input(format!("cannot write JSON: {e}")))
}

/// Runs one `battle` session subcommand.
pub fn run(cli: &super::Cli, command: &SessionCommand, out: &mut dyn Write) -> Result<u8, Failure> {
    match command {
        SessionCommand::New {
            scenario,
            seed,
            physical,
            orders,
            mode,
            first_player,
            go_ahead,
            json,
        } => {
            let dice = match (seed, physical) {
                (Some(s), _) => DiceSource::Seed(*s),
                (None, true) => DiceSource::Physical,
                (None, false) if *mode == PlayMode::Referee => DiceSource::Physical,
                (None, false) => DiceSource::Seed(crate::session::fresh_seed()),
            };
            let (s, lists) = scenario_and_lists(cli, scenario)?;
            let new = NewBattle {
                dice,
                orders: orders_mode(*orders),
                first_player: match first_player {
                    None => s.first_player,
                    Some(FirstArg::Side(side)) => Some(*side),
                    Some(FirstArg::RollOff) => None,
                },
                mode: *mode,
                go_ahead: *go_ahead,
                fog: false,
            };
            let mut store = Store::open(&cli.db)?;
            let session = Session::start(&mut store, s, &lists, &new).map_err(store_failure)?;
            if *json {
                w(out, json!({ "id": session.id() }).to_string())?;
            } else {
                w(
                    out,
                    format!(
                        "battle {}: {} — {}, {}",
                        session.id(),
                        session.record().scenario.name,
                        crate::session::mode_words(session.mode(), &session.record().scenario),
                        crate::session::dice_words(&session.record().dice)
                    ),
                )?;
            }
            Ok(0)
        }
        SessionCommand::List { json } => {
            let store = Store::open_read(&cli.db)?;
            let all = store.battles()?;
            if *json {
                let rows: Vec<serde_json::Value> = all.iter().map(summary_json).collect();
                w(out, json_text(&serde_json::Value::Array(rows))?)?;
                return Ok(0);
            }
            w(
                out,
                format!(
                    "{:>4}  {:<28} {:<30} {:>4}  {:<12} {}",
                    "ID", "SCENARIO", "MODE", "TURN", "STATUS", "RESULT"
                ),
            )?;
            for b in &all {
                w(
                    out,
                    format!(
                        "{:>4}  {:<28} {:<30} {:>4}  {:<12} {}",
                        b.id,
                        b.scenario.name,
                        crate::session::mode_words(b.mode, &b.scenario),
                        b.game_turn,
                        status_label(b.status),
                        result_label(b)
                    ),
                )?;
            }
            Ok(0)
        }
        SessionCommand::Show { id, json } => {
            let store = Store::open_read(&cli.db)?;
            let session = Session::resume(&store, *id).map_err(store_failure)?;
            show(&session, *json, out)?;
            Ok(0)
        }
        SessionCommand::Act { id, action, dice } => {
            let mut store = Store::open(&cli.db)?;
            let mut session = Session::resume(&store, *id).map_err(store_failure)?;
            let action: Action = serde_json::from_str(action).map_err(|e| {
                Failure::input(format!(
                    "the action is not an action of the battle-file format (docs/battle-file.md): {e}"
                ))
            })?;
            let physical = session.record().dice == DiceSource::Physical;
            let result = match (dice, physical) {
                (Some(text), true) => {
                    let dice = match crate::session::parse_dice(text) {
                        Ok(d) => d,
                        Err(why) => {
                            let needs = session
                                .battle()
                                .dice_needed(&action, &[])
                                .map(|n| needs_text(&n))
                                .unwrap_or_default();
                            w(out, format!("refused: {why}{needs}"))?;
                            return Ok(1);
                        }
                    };
                    session.perform_with_dice(&mut store, action, &dice, Actor::Referee)
                }
                (None, true) => {
                    session.perform_with_dice(&mut store, action, &[], Actor::Referee)
                }
                (Some(_), false) => {
                    return Err(Failure::input(format!(
                        "battle {id} rolls its own dice ({}); --dice is for battles played with physical dice",
                        crate::session::dice_words(&session.record().dice)
                    )))
                }
                (None, false) => session.perform(&mut store, action, Actor::Player),
            };
            match result {
                Ok(events) => {
                    for e in &events {
                        w(out, serde_json::to_string(e).unwrap_or_default())?;
                    }
                    Ok(0)
                }
                Err(SessionError::Action(e)) => {
                    w(out, format!("refused: {e}"))?;
                    Ok(1)
                }
                Err(e) => Err(store_failure(e)),
            }
        }
        SessionCommand::Undo { id } | SessionCommand::Redo { id } => {
            let undo = matches!(command, SessionCommand::Undo { .. });
            let mut store = Store::open(&cli.db)?;
            let mut session = Session::resume(&store, *id).map_err(store_failure)?;
            let done = if undo {
                session.undo(&mut store)
            } else {
                session.redo(&mut store)
            }
            .map_err(store_failure)?;
            let what = if undo { "undo" } else { "redo" };
            if done {
                w(
                    out,
                    format!(
                        "{what}: {} actions in effect",
                        session.battle().entries().len()
                    ),
                )?;
                Ok(0)
            } else {
                w(out, format!("nothing to {what}"))?;
                Ok(1)
            }
        }
        SessionCommand::Ai { id, until, sides } => {
            let mut store = Store::open(&cli.db)?;
            let mut session = Session::resume(&store, *id).map_err(store_failure)?;
            let sides = match sides {
                Some(SidesArg::Both) => [true, true],
                None => {
                    let s = session.mode().computer_sides();
                    if s == [false, false] {
                        return Err(Failure::input(format!(
                            "battle {id} is played {}: no side is the computer's; use --sides both",
                            session.mode().label()
                        )));
                    }
                    s
                }
            };
            let until = match until {
                UntilArg::Phase => Until::Phase,
                UntilArg::Turn => Until::Turn,
                UntilArg::End => Until::End,
            };
            let run = session
                .play_ai(&mut store, sides, until, &mut |_| true)
                .map_err(store_failure)?;
            w(out, run_line(&session, &run))?;
            Ok(0)
        }
        SessionCommand::Play {
            scenario,
            seed,
            json,
        } => {
            let (s, lists) = scenario_and_lists(cli, scenario)?;
            let new = NewBattle {
                dice: DiceSource::Seed(*seed),
                orders: OrdersMode::Full,
                first_player: s.first_player,
                mode: PlayMode::Computer,
                go_ahead: true,
                fog: false,
            };
            let mut store = Store::open(&cli.db)?;
            let mut session = Session::start(&mut store, s, &lists, &new).map_err(store_failure)?;
            let run = session
                .play_ai(&mut store, [true, true], Until::End, &mut |_| true)
                .map_err(store_failure)?;
            if *json {
                let v = json!({
                    "id": session.id(),
                    "status": session.record().status,
                    "result": session.result(),
                    "actions": run.actions,
                    "game_turns": run.game_turns,
                    "stopped": run.stopped,
                });
                w(out, json_text(&v)?)?;
            } else {
                w(
                    out,
                    format!("battle {}: {}", session.id(), run_line(&session, &run)),
                )?;
            }
            Ok(0)
        }
        SessionCommand::Export { id, out: path } => {
            let store = Store::open_read(&cli.db)?;
            let session = Session::resume(&store, *id).map_err(store_failure)?;
            let text = json_text(&session.battle_file())?;
            super::write_atomically(path, text.as_bytes())
                .map_err(|e| Failure::input(format!("{}: cannot write: {e}", path.display())))?;
            w(
                out,
                format!(
                    "wrote {} ({} actions)",
                    path.display(),
                    session.battle().entries().len()
                ),
            )?;
            Ok(0)
        }
    }
}

fn orders_mode(o: OrdersArg) -> OrdersMode {
    match o {
        OrdersArg::Full => OrdersMode::Full,
        OrdersArg::Free => OrdersMode::Free,
    }
}

fn status_label(s: BattleStatus) -> &'static str {
    match s {
        BattleStatus::InProgress => "in progress",
        BattleStatus::Ended => "ended",
    }
}

fn result_label(b: &BattleRecord) -> String {
    crate::session::result_words(b).join("; ")
}

fn summary_json(b: &BattleRecord) -> serde_json::Value {
    json!({
        "id": b.id,
        "scenario": b.scenario_id.as_str(),
        "scenario_name": b.scenario.name,
        "mode": b.mode,
        "dice": b.dice,
        "orders": b.orders,
        "game_turn": b.game_turn,
        "phase": b.phase,
        "active": b.active,
        "status": b.status,
        "result": b.result,
        "entries": b.entries,
        "created_at": b.created_at,
        "updated_at": b.updated_at,
    })
}

fn needs_text(needs: &[(String, usize)]) -> String {
    if needs.is_empty() {
        return "; this action rolls no dice".to_string();
    }
    let total: usize = needs.iter().map(|(_, n)| n).sum();
    format!(
        "; this action needs {total} dice ({})",
        crate::rules::dice::needs_list(needs)
    )
}

fn run_line(session: &Session, run: &AutoplayRun) -> String {
    let t = session.battle().state().turn;
    let mut line = format!(
        "the computer made {} actions; now game turn {}, side {} to act, {} phase",
        run.actions,
        t.game_turn,
        t.active,
        t.phase.label()
    );
    if let Some(why) = &run.stopped {
        line.push_str(&format!(" ({why})"));
    }
    if session.record().status == BattleStatus::Ended {
        line.push_str(&format!("; ended: {}", result_label(session.record())));
    }
    line
}

fn show(session: &Session, json: bool, out: &mut dyn Write) -> Result<(), Failure> {
    let b = session.battle();
    let r = report(b);
    let rec = session.record();
    let in_effect = b.entries().len();
    let redo = b.log().entries.len().saturating_sub(in_effect);
    if json {
        let v = json!({
            "id": rec.id,
            "scenario": rec.scenario_id.as_str(),
            "scenario_name": rec.scenario.name,
            "mode": rec.mode,
            "dice": rec.dice,
            "orders": rec.orders,
            "first_player": rec.first_player,
            "status": rec.status,
            "turn": r.turn,
            "pending": session.battle().pending(),
            "waiting": crate::session::waiting_lines(session.battle()),
            "result": session.result(),
            "log_entries": rec.entries,
            "in_effect": in_effect,
            "redo": redo,
            "units": r.units,
            "events": r.events,
        });
        w(out, json_text(&v)?)?;
        return Ok(());
    }
    w(
        out,
        format!(
            "battle {}: {} — {}, {}, {} orders",
            rec.id,
            rec.scenario.name,
            crate::session::mode_words(rec.mode, &rec.scenario),
            crate::session::dice_words(&rec.dice),
            match rec.orders {
                OrdersMode::Full => "full",
                OrdersMode::Free => "free",
            }
        ),
    )?;
    w(
        out,
        format!(
            "{}: game turn {}, player turn {} ({}), {} phase",
            status_label(rec.status),
            r.turn.game_turn,
            r.turn.player_turn,
            r.turn.player,
            r.turn.phase.label()
        ),
    )?;
    if rec.status == BattleStatus::Ended {
        w(out, format!("result: {}", result_label(rec)))?;
    }
    for line in crate::session::waiting_lines(session.battle()) {
        w(out, format!("waiting for: {line}"))?;
    }
    w(
        out,
        format!(
            "log: {} entries; {in_effect} actions in effect, {redo} to redo; {} dice rolled",
            rec.entries, r.dice_rolled
        ),
    )?;
    super::unit_table(out, &r.units)?;
    Ok(())
}
