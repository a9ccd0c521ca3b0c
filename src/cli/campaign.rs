//! `campaign list|show|autoplay`: linked campaigns on the command line (docs/campaign.md).
//! `autoplay` plays every battle of a campaign with the solo opponent on both sides, carrying
//! losses, commanders, VPs and weather between them (`crate::campaign::play`), and prints per
//! battle the carry into it, the forces at its start and end, its verdict and what it did.

use super::{lists_for_validation, read_text, w, Cli, Failure};
use crate::ai::Limits;
use crate::campaign::play::{autoplay, CampaignRun, Snapshot};
use crate::campaign::{forces_from, tally, validate, Change};
use crate::model::army::ArmyList;
use crate::model::ids::{CampaignId, ScenarioId};
use crate::model::scenario::{parse_scenario, Scenario};
use crate::model::Campaign;
use crate::store::Store;
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
