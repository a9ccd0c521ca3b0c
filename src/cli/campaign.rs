//! `campaign list|show|autoplay`: linked campaigns on the command line (docs/campaign.md).
//! `autoplay` plays every battle of a campaign with the solo opponent on both sides, carrying
//! losses, commanders, VPs and weather between them (`crate::campaign::play`), and prints per
//! battle the carry into it, the forces at its start and end, its verdict and what it did.

use super::{lists_for_validation, read_text, w, Cli, Failure};
use crate::ai::Limits;
use crate::campaign::play::{autoplay, CampaignRun, Snapshot};
use crate::campaign::HandResult;
use crate::campaign::{forces_from, tally, validate, Change};
use crate::model::army::ArmyList;
use crate::model::ids::{CampaignId, ScenarioId};
use crate::model::scenario::{parse_scenario, Scenario};
use crate::model::Campaign;
use crate::session::campaign::{autoplay_next, begin_run, enter_result};
use crate::store::{RunStatus, Store};
use clap::Subcommand;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

#[derive(Debug, Subcommand)]
pub enum CampaignCommand {
    /// The campaigns in the database.
    List,
    /// A campaign's sides, battles, carry rules, victory condition and forces before its first
    /// battle, with any problem that stops it being played.
    Show {
        /// A campaign.json file (its scenarios are the JSON files beside it), or the id of a
        /// stored campaign.
        campaign: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Begin a run of a stored campaign (one play-through; several may run side by side): its
    /// forces from its scenarios, its first battle set up. Prints the run's id.
    New {
        /// The id of a stored campaign.
        campaign: String,
        /// The run's dice seed (each battle's and each carry's dice come from it).
        #[arg(long)]
        seed: u64,
        /// A name for the run (default: the campaign's name and the seed).
        #[arg(long, default_value = "")]
        name: String,
    },
    /// The stored runs (of one campaign, or all): id, name, battles played, status.
    Runs {
        /// Only the runs of this stored campaign.
        campaign: Option<String>,
    },
    /// Fight the next battle of a stored run and carry into the one after it, in one step: the
    /// solo opponent plays both sides, or, with --result, the result of a battle fought on a
    /// real table is entered from a file (docs/campaign.md). Prints the result and the reports.
    Next {
        /// The run's id (see `campaign runs`).
        run: i64,
        /// A result entered by hand: a JSON file (`campaign::HandResult`).
        #[arg(long)]
        result: Option<std::path::PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Play every battle with the solo opponent on both sides, carrying between battles.
    Autoplay {
        /// A campaign.json file (its scenarios are the JSON files beside it), or the id of a
        /// stored campaign.
        campaign: String,
        /// The campaign's dice seed (each battle's and each carry's dice come from it).
        #[arg(long)]
        seed: u64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Reads a campaign file and the scenario files beside it.
pub fn read_campaign_dir(path: &Path) -> Result<(Campaign, Vec<Scenario>), Failure> {
    let name = path.display().to_string();
    let text = read_text(path)?;
    let campaign: Campaign = serde_json::from_str(&text).map_err(|e| {
        Failure::input(format!(
            "{name}:{}:{}: not a campaign file: {e}",
            e.line(),
            e.column()
        ))
    })?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| Failure::input(format!("{}: cannot list: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.as_path() != path)
        .collect();
    files.sort();
    let mut scenarios = Vec::new();
    for f in files {
        if f.file_name() == path.file_name() {
            continue;
        }
        let text = read_text(&f)?;
        // Only files that are scenarios count; a scenario the campaign needs that does not
        // parse is reported with its own message.
        match parse_scenario(&f.display().to_string(), &text) {
            Ok(s) => scenarios.push(s),
            Err(e) => {
                let wanted = campaign
                    .battles
                    .iter()
                    .any(|b| text.contains(&format!("\"{}\"", b.scenario)));
                if wanted {
                    return Err(Failure::input(e.to_string()));
                }
            }
        }
    }
    Ok((campaign, scenarios))
}

/// A campaign named on the command line, its scenarios and the lists to play them with.
fn load(cli: &Cli, name: &str) -> Result<(Campaign, Vec<Scenario>, Vec<ArmyList>), Failure> {
    let path = Path::new(name);
    if path.is_file() || name.ends_with(".json") {
        let (c, s) = read_campaign_dir(path)?;
        return Ok((c, s, lists_for_validation(&cli.db)?));
    }
    let store = Store::open_read(&cli.db)?;
    let campaign = store.load_campaign(&CampaignId::new(name)).map_err(|e| {
        Failure::input(format!(
            "'{name}' is neither a campaign file nor a campaign stored in {}: {e}",
            cli.db.display()
        ))
    })?;
    let mut scenarios = Vec::new();
    for b in &campaign.battles {
        if let Ok(s) = store.load_scenario(&ScenarioId::new(b.scenario.as_str())) {
            scenarios.push(s);
        }
    }
    Ok((campaign, scenarios, store.army_lists()?))
}

pub fn run(cli: &Cli, command: &CampaignCommand, out: &mut dyn Write) -> Result<u8, Failure> {
    match command {
        CampaignCommand::List => {
            let store = Store::open_read(&cli.db)?;
            let rows = store.campaign_summaries()?;
            w(out, format!("{:<24} {:<40} {:>7}", "ID", "NAME", "BATTLES"))?;
            for c in rows {
                w(
                    out,
                    format!("{:<24} {:<40} {:>7}", c.id.as_str(), c.name, c.battles),
                )?;
            }
            Ok(0)
        }
        CampaignCommand::New {
            campaign,
            seed,
            name,
        } => {
            let mut store = Store::open(&cli.db)?;
            let id = begin_run(&mut store, &CampaignId::new(campaign), *seed, name)
                .map_err(|e| Failure::input(format!("cannot begin a run of '{campaign}': {e}")))?;
            let rec = store.load_campaign_run(id)?;
            w(out, format!("run {id}: {}", rec.name))?;
            if let Some(next) = rec.next() {
                w(
                    out,
                    format!(
                        "battle 1 of {} is next: {}",
                        rec.campaign.battles.len(),
                        next.start.scenario.name
                    ),
                )?;
                print_changes(
                    "carried in",
                    &next.start.carry_in.changes,
                    &rec.forces.side_names(),
                    out,
                )?;
            }
            Ok(0)
        }
        CampaignCommand::Runs { campaign } => {
            let store = Store::open_read(&cli.db)?;
            let id = campaign.as_deref().map(CampaignId::new);
            let rows = store.campaign_runs(id.as_ref())?;
            w(
                out,
                format!(
                    "{:>5} {:<36} {:<20} {:>7} {:<11}",
                    "RUN", "NAME", "CAMPAIGN", "PLAYED", "STATUS"
                ),
            )?;
            for r in rows {
                w(
                    out,
                    format!(
                        "{:>5} {:<36} {:<20} {:>3} of {:<2} {}",
                        r.id,
                        r.name,
                        r.campaign.as_str(),
                        r.played,
                        r.battles,
                        match r.status {
                            RunStatus::InProgress => "in progress",
                            RunStatus::Ended => "ended",
                        }
                    ),
                )?;
            }
            Ok(0)
        }
        CampaignCommand::Next { run, result, json } => {
            next(cli, *run, result.as_deref(), *json, out)
        }
        CampaignCommand::Show { campaign, json } => {
            let (c, scenarios, _) = load(cli, campaign)?;
            show(&c, &scenarios, *json, out)
        }
        CampaignCommand::Autoplay {
            campaign,
            seed,
            json,
        } => {
            let (c, scenarios, lists) = load(cli, campaign)?;
            let run =
                autoplay(&c, &scenarios, &lists, *seed, &Limits::default()).map_err(|ps| {
                    let lines: Vec<String> = ps.iter().map(ToString::to_string).collect();
                    Failure::input(format!(
                        "campaign '{}' cannot be played as written:\n  {}",
                        c.id,
                        lines.join("\n  ")
                    ))
                })?;
            if *json {
                let text = serde_json::to_string_pretty(&run)
                    .map_err(|e| Failure::input(format!("cannot write JSON: {e}")))?;
                w(out, text)?;
            } else {
                print_run(&run, out)?;
            }
            Ok(if run.stopped.is_some() { 1 } else { 0 })
        }
    }
}

#[derive(Serialize)]
struct Shown<'a> {
    campaign: &'a Campaign,
    rules_in_words: Vec<String>,
    problems: Vec<String>,
    forces: Option<crate::campaign::Forces>,
}

fn show(
    c: &Campaign,
    scenarios: &[Scenario],
    json: bool,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let problems: Vec<String> = validate(c, scenarios)
        .iter()
        .map(ToString::to_string)
        .collect();
    let forces = forces_from(c, scenarios).ok();
    if json {
        let text = serde_json::to_string_pretty(&Shown {
            campaign: c,
            rules_in_words: c.rules.describe(),
            problems: problems.clone(),
            forces,
        })
        .map_err(|e| Failure::input(format!("cannot write JSON: {e}")))?;
        w(out, text)?;
        return Ok(u8::from(!problems.is_empty()));
    }
    w(out, format!("{} ({})", c.name, c.id))?;
    if let Some(f) = &forces {
        for s in &f.sides {
            w(
                out,
                format!(
                    "side {}: {} units ({} stands), {} commanders",
                    s.name,
                    s.units.len(),
                    s.stands(),
                    s.commanders.len()
                ),
            )?;
        }
    }
    for (i, b) in c.battles.iter().enumerate() {
        let link = if i == 0 {
            "first battle".to_string()
        } else {
            format!(
                "{} day{} after the last, weather {}{}",
                b.link.days_after,
                if b.link.days_after == 1 { "" } else { "s" },
                b.link.weather.label(),
                if b.link.same_ground {
                    ", same ground"
                } else {
                    ""
                }
            )
        };
        w(
            out,
            format!("battle {}: {} ({link}) {}", i + 1, b.scenario, b.note),
        )?;
    }
    w(out, "carry rules:".to_string())?;
    for l in c.rules.describe() {
        w(out, format!("  {l}"))?;
    }
    if let Some(f) = &forces {
        let t = tally(c, f);
        w(
            out,
            format!("victory: {}; so far {}", c.victory.describe(), t.why),
        )?;
    }
    for p in &problems {
        w(out, format!("problem: {p}"))?;
    }
    Ok(u8::from(!problems.is_empty()))
}

/// Per side, each unit's stands at the start and the end of the battle, and each commander.
fn side_lines(start: &Snapshot, end: &Snapshot, out: &mut dyn Write) -> Result<(), Failure> {
    for (a, b) in start.sides.iter().zip(&end.sides) {
        let total = |s: &crate::campaign::play::SideLine| -> u32 {
            s.units.iter().map(|u| u32::from(u.stands)).sum()
        };
        w(
            out,
            format!("    {}: {} → {} stands", a.name, total(a), total(b)),
        )?;
        for u in &a.units {
            let after = b
                .units
                .iter()
                .find(|x| x.id == u.id)
                .map_or(0, |x| x.stands);
            let mark = if after == u.stands { "" } else { " *" };
            w(
                out,
                format!(
                    "      {:>4} {:<52} {:>2} → {:>2}{mark}",
                    u.id, u.name, u.stands, after
                ),
            )?;
        }
        for c in &a.commanders {
            let now = b.commanders.iter().find(|x| x.id == c.id);
            let same = now.is_some_and(|n| n.name == c.name && n.command == c.command);
            let tail = match now {
                Some(n) if !same => format!(" → {} ({})", n.name, n.command),
                _ => String::new(),
            };
            w(
                out,
                format!("      hq {:>3} {} ({}){tail}", c.id, c.name, c.command),
            )?;
        }
    }
    Ok(())
}

fn change_lines(cs: &[Change], names: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    if cs.is_empty() {
        return w(out, "    (nothing changed)".to_string());
    }
    for c in cs {
        w(out, format!("    - {}", c.line(names)))?;
    }
    Ok(())
}

fn print_run(run: &CampaignRun, out: &mut dyn Write) -> Result<(), Failure> {
    let names = &run.sides;
    let name = |i: Option<usize>| i.and_then(|i| names.get(i)).cloned();
    w(
        out,
        format!("campaign {} (seed {})", run.campaign, run.seed),
    )?;
    for (i, b) in run.battles.iter().enumerate() {
        w(out, String::new())?;
        w(
            out,
            format!(
                "battle {}: {} ({}), dice seed {}",
                i + 1,
                b.name,
                b.scenario,
                b.seed
            ),
        )?;
        w(out, "  carried in:".to_string())?;
        change_lines(&b.carry_in, names, out)?;
        w(
            out,
            format!(
                "  forces, start → end (weather {} → {}):",
                b.start.weather.label(),
                b.end.weather.label()
            ),
        )?;
        side_lines(&b.start, &b.end, out)?;
        let verdict = match name(b.result.winner) {
            Some(n) => format!("{n} wins, {}", b.result.category),
            None => b.result.category.clone(),
        };
        let vps: Vec<String> = names
            .iter()
            .zip(&b.result.vps)
            .map(|(n, v)| format!("{n} {v}"))
            .collect();
        w(
            out,
            format!(
                "  result: {verdict} ({}, {} turns); VPs {}",
                b.result.reason.as_deref().unwrap_or("not ended"),
                b.result.turns,
                vps.join(" – ")
            ),
        )?;
        w(out, "  what the battle did:".to_string())?;
        change_lines(&b.outcome, names, out)?;
    }
    w(out, String::new())?;
    let vps: Vec<String> = names
        .iter()
        .zip(&run.tally.vps)
        .map(|(n, v)| format!("{n} {v}"))
        .collect();
    w(
        out,
        format!("tally: VPs {}; {}", vps.join(" – "), run.tally.why),
    )?;
    if let Some(s) = &run.stopped {
        w(out, format!("stopped: {s}"))?;
    }
    Ok(())
}

/// `campaign next`: fight (or enter) the run's next battle and carry into the one after it.
fn next(
    cli: &Cli,
    run: i64,
    result: Option<&Path>,
    json: bool,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let mut store = Store::open(&cli.db)?;
    let lists = store.army_lists()?;
    let before = store.load_campaign_run(run)?;
    let Some(at) = before.next().map(|b| b.pos) else {
        return Err(Failure::input(format!(
            "run {run} ('{}') is over: every battle has been fought",
            before.name
        )));
    };
    let rec = match result {
        Some(path) => {
            let name = path.display().to_string();
            let text = read_text(path)?;
            let hand: HandResult = serde_json::from_str(&text).map_err(|e| {
                Failure::input(format!(
                    "{name}:{}:{}: not a battle result: {e}",
                    e.line(),
                    e.column()
                ))
            })?;
            enter_result(&mut store, run, &lists, &hand)
                .map_err(|e| Failure::input(format!("{name}: {e}")))?
        }
        None => {
            autoplay_next(&mut store, run, &lists, &mut |_| true)
                .map_err(|e| Failure::input(format!("run {run}: {e}")))?
                .1
        }
    };
    let Some(done) = rec.battles.get(at) else {
        return Err(Failure::input(format!(
            "run {run}: battle {} was not kept",
            at + 1
        )));
    };
    let Some(end) = &done.end else {
        return Err(Failure::input(format!(
            "run {run}: battle {} is not over",
            at + 1
        )));
    };
    if json {
        #[derive(Serialize)]
        struct Step<'a> {
            run: i64,
            battle: usize,
            scenario: &'a str,
            result: &'a crate::campaign::BattleRecord,
            outcome: &'a [Change],
            carry_into_next: Option<&'a [Change]>,
            tally: crate::campaign::Tally,
        }
        let step = Step {
            run,
            battle: at + 1,
            scenario: done.scenario_id.as_str(),
            result: &end.result,
            outcome: &end.after.changes,
            carry_into_next: rec.next().map(|b| b.start.carry_in.changes.as_slice()),
            tally: tally(&rec.campaign, &rec.forces),
        };
        let text = serde_json::to_string_pretty(&step)
            .map_err(|e| Failure::input(format!("cannot write JSON: {e}")))?;
        w(out, text)?;
        return Ok(0);
    }
    let names = rec.forces.side_names();
    let winner = end
        .result
        .winner
        .and_then(|k| names.get(k).cloned())
        .unwrap_or_else(|| "nobody".to_string());
    w(
        out,
        format!(
            "battle {} of {}: {} — {} ({}), VPs {}",
            at + 1,
            rec.campaign.battles.len(),
            done.start.scenario.name,
            if end.result.winner.is_some() {
                format!("{winner} wins")
            } else {
                "a draw".to_string()
            },
            end.result.category,
            names
                .iter()
                .zip(&end.result.vps)
                .map(|(n, v)| format!("{n} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )?;
    print_changes("what the battle did", &end.after.changes, &names, out)?;
    match rec.next() {
        Some(b) => {
            w(
                out,
                format!("next: battle {}, {}", b.pos + 1, b.start.scenario.name),
            )?;
            print_changes("carried in", &b.start.carry_in.changes, &names, out)?;
        }
        None => w(out, "the campaign is over".to_string())?,
    }
    let t = tally(&rec.campaign, &rec.forces);
    w(out, format!("tally: {}", t.why))?;
    Ok(0)
}

fn print_changes(
    title: &str,
    changes: &[Change],
    names: &[String],
    out: &mut dyn Write,
) -> Result<(), Failure> {
    w(out, format!("  {title}:"))?;
    if changes.is_empty() {
        w(out, "    (nothing changed)".to_string())?;
    }
    for c in changes {
        w(out, format!("    - {}", c.line(names)))?;
    }
    Ok(())
}
