//! `battle balance`: the solo opponent plays a scenario many times on all cores, and the
//! balance report (`ai::balance`) says which side is favoured and why: win and draw rates with
//! 95% intervals, the spread of VPs, losses and game length, how often each objective was
//! reached, and how often each unit came through.
//!
//! Progress goes to stderr (games done, elapsed, time left); the report to stdout, as text or
//! JSON. Game k uses the dice seed `--seed` + k, the game `battle autoplay --seed` (seed + k)
//! plays; the report is the same for any `--threads`. `--policy 0=standard,1=hold` plays a side
//! with the hold baseline (read as `battle autoplay --policy` reads it); the report's header
//! and its JSON name each side's policy.

use super::{w, Failure};
use crate::ai::balance::{percent, policy_label, BalanceReport, Spread};
use crate::ai::Policy;
use crate::model::army::ArmyList;
use crate::model::scenario::Scenario;
use crate::rules::report::short_names;
use crate::rules::victory::ObjectiveLevel;
use crate::session::balance::{duration_words, run_balance, BalanceOptions, BalanceProgress};
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct Options {
    pub runs: usize,
    /// 0: all cores.
    pub threads: usize,
    pub seed: u64,
    pub json: bool,
    /// How each side is played (`--policy`).
    pub policies: [Policy; 2],
}

/// Plays the games and prints the report. 0 when every game ended; 1 when the driver had to
/// stop one (the report says how many); 2 for unusable input.
pub fn run(
    name: &str,
    scenario: Scenario,
    lists: Vec<ArmyList>,
    opts: &Options,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    if opts.runs == 0 {
        return Err(Failure::input("--runs must be at least 1"));
    }
    if opts.seed.checked_add(opts.runs as u64 - 1).is_none() {
        return Err(Failure::input(format!(
            "--seed {} with --runs {} runs past the largest seed; choose a smaller seed",
            opts.seed, opts.runs
        )));
    }
    let options = BalanceOptions {
        runs: opts.runs,
        threads: opts.threads,
        seed: opts.seed,
        policies: opts.policies,
        ..BalanceOptions::default()
    };
    let stop = AtomicBool::new(false);
    // At most a few progress lines a second.
    let last: Mutex<Option<Instant>> = Mutex::new(None);
    let progress = |p: BalanceProgress| {
        let Ok(mut last) = last.lock() else {
            return;
        };
        let due = last.is_none_or(|t| t.elapsed() >= Duration::from_millis(250));
        if !due && p.done < p.total {
            return;
        }
        *last = Some(Instant::now());
        let left = p.eta().map_or_else(String::new, |d| {
            format!(", about {} left", duration_words(d))
        });
        eprint!(
            "\r{}/{} games, {}{left}   ",
            p.done,
            p.total,
            duration_words(p.elapsed)
        );
    };
    let done = run_balance(&scenario, &lists, &options, &stop, &progress)
        .map_err(|e| Failure::input(format!("{name}: {e}")))?;
    eprintln!(
        "\r{} games in {} on {} thread{}          ",
        done.report.games,
        duration_words(done.elapsed),
        done.threads,
        if done.threads == 1 { "" } else { "s" }
    );
    let r = &done.report;
    if opts.json {
        let text = serde_json::to_string_pretty(&serde_json::json!({
            "seed": opts.seed,
            "threads": done.threads,
            "seconds": done.elapsed.as_secs_f64(),
            "report": r,
        }))
        .map_err(|e| Failure::input(format!("cannot write JSON: {e}")))?;
        w(out, text)?;
    } else {
        w(out, text(r, opts.seed))?;
    }
    Ok(if r.unfinished > 0 { 1 } else { 0 })
}

fn spread_line(label: &str, s: &Spread) -> String {
    format!(
        "  {label:<28} min {:>5}  q1 {:>7.1}  median {:>7.1}  q3 {:>7.1}  max {:>5}  mean {:>7.1}",
        s.min, s.q1, s.median, s.q3, s.max, s.mean
    )
}

fn bar(count: usize, most: usize) -> String {
    let len = if most == 0 {
        0
    } else {
        (count * 30).div_ceil(most)
    };
    "#".repeat(len)
}

fn histogram(label: &str, s: &Spread) -> Vec<String> {
    let most = s.bins.iter().map(|b| b.count).max().unwrap_or(0);
    let mut lines = vec![format!("  {label}")];
    for b in &s.bins {
        let range = if b.to - b.from == 1 {
            format!("{}", b.from)
        } else {
            format!("{}–{}", b.from, b.to - 1)
        };
        lines.push(format!(
            "    {range:>11} {:>6}  {}",
            b.count,
            bar(b.count, most)
        ));
    }
    lines
}

/// The report as a person reads it: the verdict first, then the figures behind it.
#[allow(clippy::needless_range_loop)] // sides index several parallel arrays
pub fn text(r: &BalanceReport, seed: u64) -> String {
    let short = short_names(&r.sides);
    let mut l = vec![
        format!(
            "Balance of {}: {} games (seeds {}–{})",
            r.scenario,
            r.games,
            seed,
            seed.saturating_add((r.games as u64).saturating_sub(1))
        ),
        format!(
            "  {} = {}; {} = {}",
            short[0], r.sides[0], short[1], r.sides[1]
        ),
    ];
    // Only when a side is not the standard opponent: a report of two standard sides reads as
    // it always has.
    if r.policies != [Policy::Standard; 2] {
        l.push(format!(
            "  played by: {} {}; {} {}",
            short[0],
            policy_label(r.policies[0]),
            short[1],
            policy_label(r.policies[1])
        ));
    }
    l.extend([
        String::new(),
        r.verdict.clone(),
        String::new(),
        "Results (95% intervals)".to_string(),
    ]);
    for s in 0..2 {
        l.push(format!(
            "  {:<28} {}",
            format!("{} win", short[s]),
            r.wins[s].words()
        ));
    }
    l.push(format!("  {:<28} {}", "draw", r.draws.words()));
    if r.unfinished > 0 {
        l.push(format!(
            "  {:<28} {}",
            "stopped before the end", r.unfinished
        ));
    }
    l.push(String::new());
    l.push("How the games ended (END-03)".to_string());
    for e in &r.ends {
        l.push(format!("  {:<28} {}", e.label, e.rate.words()));
    }
    l.push(String::new());
    l.push("Spread".to_string());
    for s in 0..2 {
        l.push(spread_line(&format!("{} VPs", short[s]), &r.vps[s]));
    }
    for s in 0..2 {
        l.push(spread_line(
            &format!("{} stands lost", short[s]),
            &r.stands_lost[s],
        ));
    }
    l.push(spread_line("game turns", &r.turns));
    l.push(String::new());
    for s in 0..2 {
        l.extend(histogram(&format!("{} VPs", short[s]), &r.vps[s]));
    }
    for s in 0..2 {
        l.extend(histogram(
            &format!("{} stands lost", short[s]),
            &r.stands_lost[s],
        ));
    }
    l.extend(histogram("game turns", &r.turns));
    l.push(String::new());
    l.push("Objectives reached (OBJ-01)".to_string());
    for o in &r.objectives {
        let level = match o.level {
            ObjectiveLevel::Major => "major",
            _ => "minor or better",
        };
        let desc = if o.description.is_empty() {
            "(no description)".to_string()
        } else {
            o.description.clone()
        };
        l.push(format!(
            "  {:<10} {:<16} {:>14}  {desc}",
            short.get(o.side).cloned().unwrap_or_default(),
            level,
            o.rate.words()
        ));
    }
    l.push(String::new());
    l.push(
        "Units: how often each came through (not knocked out), and the stands it lost on average"
            .to_string(),
    );
    for s in 0..2 {
        l.push(format!("  {}", r.sides[s]));
        for u in r.units.iter().filter(|u| u.unit.side == s) {
            l.push(format!(
                "    survives {:>4}  loses {:>4.1} of {:>2}  {}{}",
                percent(u.survived.rate),
                u.mean_stands_lost,
                u.unit.stands,
                u.unit.name,
                if u.unit.command { " (HQ)" } else { "" },
            ));
        }
    }
    l.join("\n")
}
