//! `battle autoplay`: the solo opponent plays a scenario's battle to its end, one or more times,
//! and the results are printed per run and, for several runs, as win rates and averages.

use super::{w, Failure};
use crate::ai::plan::side_plan;
use crate::ai::{play_with, AutoplayRun, Limits, Policy, Until};
use crate::model::army::ArmyList;
use crate::model::scenario::Scenario;
use crate::rules::event::EndReason;
use crate::rules::{Battle, DiceSource};
use serde::Serialize;
use std::io::Write;

/// What the command line asked for.
pub struct Options {
    pub seed: u64,
    pub runs: u32,
    pub json: bool,
    pub max_turns: Option<u32>,
    /// How each side is played (`--policy 0=standard,1=hold`).
    pub policies: [Policy; 2],
    /// Print each side's plan (a task and why per command unit) when it changes.
    pub explain: bool,
}

/// Reads `--policy`: comma-separated `SIDE=POLICY` pairs, SIDE 0 or 1, POLICY `standard` or
/// `hold`; a side not named plays `standard`.
pub fn parse_policies(text: &str) -> Result<[Policy; 2], String> {
    let mut out = [Policy::Standard; 2];
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((side, name)) = part.split_once('=') else {
            return Err(format!(
                "--policy: '{part}' is not SIDE=POLICY; write for example 0=standard,1=hold"
            ));
        };
        let side: usize = match side.trim().parse() {
            Ok(k @ (0 | 1)) => k,
            _ => {
                return Err(format!(
                    "--policy: side '{}' must be 0 or 1 (the scenario's first or second side)",
                    side.trim()
                ))
            }
        };
        let Some(policy) = Policy::from_name(name) else {
            return Err(format!(
                "--policy: '{}' is not a policy; use standard or hold",
                name.trim()
            ));
        };
        if let Some(slot) = out.get_mut(side) {
            *slot = policy;
        }
    }
    Ok(out)
}

/// One run as printed.
#[derive(Debug, Serialize)]
struct RunReport {
    seed: u64,
    /// The winning side's index and name (none: a draw).
    winner: Option<usize>,
    winner_name: Option<String>,
    category: String,
    reason: Option<String>,
    /// Why the battle ended as it did, in words (objective, breakpoint, turn limit with each
    /// side's objective, concession; the VP-03 upgrade when it applied).
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<String>,
    vps: [i64; 2],
    turns: u32,
    stands_lost: [u32; 2],
    pieces_lost: [u32; 2],
    dice: usize,
    actions: usize,
    refusals: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<String>,
}

#[derive(Debug, Serialize)]
struct Summary {
    runs: usize,
    /// Wins per side and draws, as fractions of the runs.
    win_rate: [f64; 2],
    draw_rate: f64,
    mean_turns: f64,
    mean_dice: f64,
    mean_vps: [f64; 2],
    mean_stands_lost: [f64; 2],
}

#[derive(Debug, Serialize)]
struct Report {
    scenario: String,
    sides: [String; 2],
    policies: [Policy; 2],
    runs: Vec<RunReport>,
    summary: Summary,
}

/// Plays the runs and prints them. 0 when every battle ended; 1 when the driver had to stop
/// one (its message says why); 2 for unusable input.
pub fn run(
    name: &str,
    mut scenario: Scenario,
    lists: Vec<ArmyList>,
    opts: &Options,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    if opts.runs == 0 {
        return Err(Failure::input("--runs must be at least 1"));
    }
    if let Some(t) = opts.max_turns {
        if t == 0 {
            return Err(Failure::input("--max-turns must be at least 1"));
        }
        // END-03 (2): the battle ends after the set number of game turns.
        scenario.turn_limit = scenario.turn_limit.min(t);
    }
    if opts.seed.checked_add(u64::from(opts.runs) - 1).is_none() {
        return Err(Failure::input(format!(
            "--seed {} with --runs {} runs past the largest seed",
            opts.seed, opts.runs
        )));
    }
    let side_name = |i: usize| {
        scenario
            .sides
            .get(i)
            .map_or_else(|| format!("side {}", i + 1), |s| s.name.clone())
    };
    let sides = [side_name(0), side_name(1)];
    let short = crate::rules::report::short_names(&sides);
    if !opts.json {
        w(
            out,
            format!(
                "sides: {} = {}; {} = {}",
                short[0], sides[0], short[1], sides[1]
            ),
        )?;
        if opts.policies != [Policy::Standard; 2] {
            w(
                out,
                format!(
                    "policies: {} {}, {} {}",
                    short[0],
                    opts.policies[0].name(),
                    short[1],
                    opts.policies[1].name()
                ),
            )?;
        }
    }
    let mut reports = Vec::new();
    let mut stopped = false;
    for k in 0..u64::from(opts.runs) {
        let seed = opts.seed + k;
        let mut battle = Battle::opening(scenario.clone(), lists.clone(), DiceSource::Seed(seed))
            .map_err(|e| Failure::input(format!("{name}: {e}")))?;
        let mut explained: Vec<String> = Vec::new();
        let mut last: [Vec<String>; 2] = [Vec::new(), Vec::new()];
        let mut turn = None;
        let mut explain = |b: &Battle| {
            let t = b.state().turn;
            let side = t.active.min(1);
            if !opts.explain || turn == Some((t.game_turn, side)) {
                return true;
            }
            turn = Some((t.game_turn, side));
            if opts.policies[side] != Policy::Standard {
                return true;
            }
            let plan = side_plan(&b.ctx(), side);
            // A task is new when its kind or its ground (to 5 cm) changed, not its figures.
            let keys: Vec<String> = plan
                .tasks
                .iter()
                .map(|t| {
                    let at = t.task.at();
                    format!(
                        "{} {} {:.0} {:.0}",
                        t.name,
                        t.task.label(),
                        (at.x / 5.0).round(),
                        (at.y / 5.0).round()
                    )
                })
                .collect();
            for (k, l) in keys.iter().zip(plan.why_lines()) {
                if !last[side].contains(k) {
                    explained.push(format!("  turn {}, {}: {l}", t.game_turn, short[side]));
                }
            }
            last[side] = keys;
            true
        };
        if opts.explain {
            explain(&battle);
        }
        let r: AutoplayRun = play_with(
            &mut battle,
            &Limits::default(),
            [true, true],
            opts.policies,
            Until::End,
            &mut explain,
        );
        stopped |= r.stopped.is_some();
        let report = RunReport {
            seed,
            winner: r.winner(),
            winner_name: r.winner().map(&side_name),
            category: r.result.as_ref().map_or_else(
                || "unfinished".to_string(),
                |x| x.category.label().to_string(),
            ),
            reason: r.reason.map(|x| {
                match x {
                    EndReason::TurnLimit => "turn limit",
                    EndReason::Objective => "objective",
                    EndReason::Break => "break",
                    EndReason::Concession => "concession",
                }
                .to_string()
            }),
            why: r
                .result
                .as_ref()
                .zip(r.reason)
                .map(|(res, reason)| crate::rules::report::why_words(reason, res, &short)),
            vps: r.vps(),
            turns: r.game_turns,
            stands_lost: r.stands_lost,
            pieces_lost: r.pieces_lost,
            dice: r.dice,
            actions: r.actions,
            refusals: r.refusals.len(),
            stopped: r.stopped.clone(),
        };
        if !opts.json {
            w(out, text_line(&report, &short))?;
            for l in &explained {
                w(out, l.clone())?;
            }
        }
        reports.push(report);
    }
    let summary = summarize(&reports);
    if opts.json {
        let text = serde_json::to_string_pretty(&Report {
            scenario: scenario.id.as_str().to_string(),
            sides,
            policies: opts.policies,
            runs: reports,
            summary,
        })
        .map_err(|e| Failure::input(format!("cannot write JSON: {e}")))?;
        w(out, text)?;
    } else if reports.len() > 1 {
        w(
            out,
            format!(
                "{} runs: {} wins {:.1}%, {} wins {:.1}%, draws {:.1}%; means: {:.1} turns, {:.0} dice, VPs {} {:.0} – {} {:.0}, stands lost {} {:.1} – {} {:.1}",
                summary.runs,
                short[0],
                summary.win_rate[0] * 100.0,
                short[1],
                summary.win_rate[1] * 100.0,
                summary.draw_rate * 100.0,
                summary.mean_turns,
                summary.mean_dice,
                short[0],
                summary.mean_vps[0],
                short[1],
                summary.mean_vps[1],
                short[0],
                summary.mean_stands_lost[0],
                short[1],
                summary.mean_stands_lost[1],
            ),
        )?;
    }
    Ok(if stopped { 1 } else { 0 })
}

fn text_line(r: &RunReport, short: &[String; 2]) -> String {
    let verdict = match r.winner {
        Some(i) => format!(
            "{} wins, {}",
            short.get(i).cloned().unwrap_or_default(),
            r.category
        ),
        None => r.category.clone(),
    };
    let why = r
        .why
        .clone()
        .or_else(|| r.reason.clone())
        .unwrap_or_else(|| "not ended".to_string());
    let mut line = format!(
        "seed {}: {verdict}: {why}. VPs {} {} – {} {}; stands lost {} {} – {} {}; {} turns; {} dice",
        r.seed,
        short[0],
        r.vps[0],
        short[1],
        r.vps[1],
        short[0],
        r.stands_lost[0],
        short[1],
        r.stands_lost[1],
        r.turns,
        r.dice
    );
    if let Some(s) = &r.stopped {
        line.push_str(&format!(" (stopped: {s})"));
    }
    line
}

fn summarize(rs: &[RunReport]) -> Summary {
    let n = rs.len().max(1) as f64;
    let count = |f: &dyn Fn(&RunReport) -> bool| rs.iter().filter(|r| f(r)).count() as f64 / n;
    let mean = |f: &dyn Fn(&RunReport) -> f64| rs.iter().map(f).sum::<f64>() / n;
    Summary {
        runs: rs.len(),
        win_rate: [
            count(&|r| r.winner == Some(0)),
            count(&|r| r.winner == Some(1)),
        ],
        draw_rate: count(&|r| r.winner.is_none()),
        mean_turns: mean(&|r| f64::from(r.turns)),
        mean_dice: mean(&|r| r.dice as f64),
        mean_vps: [mean(&|r| r.vps[0] as f64), mean(&|r| r.vps[1] as f64)],
        mean_stands_lost: [
            mean(&|r| f64::from(r.stands_lost[0])),
            mean(&|r| f64::from(r.stands_lost[1])),
        ],
    }
}
