//! A whole campaign played by the solo opponent on both sides (`powderhorn campaign autoplay`):
//! each battle carried in, played to its end with [`crate::ai::autoplay`], and carried out,
//! with the forces at each battle's start and end, its verdict and every carry report.
//! Deterministic: the same campaign, scenarios, lists and seed give the same run.

use super::{
    after_battle, battle_seed, carry_dice, forces_from, scenario_for_battle, tally,
    CampaignProblem, CarryReport, Forces, Tally,
};
use crate::ai::{autoplay as play_battle, Limits};
use crate::model::{ArmyList, Campaign, CampaignBattle, Scenario, Weather};
use crate::rules::event::EndReason;
use crate::rules::{Battle, DiceSource};
use serde::Serialize;

/// One unit as it stands at a battle's start or end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnitLine {
    pub id: u32,
    pub name: String,
    pub stands: u8,
}

/// One commander as he stands at a battle's start or end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommanderLine {
    /// The command unit (HQ) he leads.
    pub id: u32,
    pub name: String,
    pub command: u8,
}

/// One campaign side's part of a battle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SideLine {
    pub id: String,
    pub name: String,
    pub units: Vec<UnitLine>,
    pub commanders: Vec<CommanderLine>,
}

/// The forces of a battle at its start or end, sides in the campaign's order, ids the
/// campaign's; only the units and command units the battle fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    pub weather: Weather,
    pub sides: Vec<SideLine>,
}

/// A battle's verdict in campaign sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResultLine {
    /// The winning campaign side; `None` a draw (or no verdict).
    pub winner: Option<usize>,
    pub category: String,
    /// VPs per campaign side.
    pub vps: Vec<i64>,
    /// Why it ended: turn limit, objective, break, concession.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub turns: u32,
}

/// One battle of the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlayedBattle {
    pub scenario: String,
    pub name: String,
    /// The battle's own dice seed.
    pub seed: u64,
    pub start: Snapshot,
    pub end: Snapshot,
    pub result: ResultLine,
    /// Every change between the end of the battle before and this one's start.
    pub carry_in: Vec<super::Change>,
    /// What the battle did to the forces: stands lost, units knocked out, commanders fallen,
    /// VPs into the tally.
    pub outcome: Vec<super::Change>,
    /// Why the solo opponent stopped before the end, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// A whole campaign played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CampaignRun {
    pub campaign: String,
    pub seed: u64,
    /// The campaign's side names, in its order.
    pub sides: Vec<String>,
    pub battles: Vec<PlayedBattle>,
    pub tally: Tally,
    /// The forces after the last battle played.
    #[serde(skip)]
    pub forces: Forces,
    /// Why the run stopped before the last battle, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

fn snapshot(
    forces: &Forces,
    cb: &CampaignBattle,
    scenario: &Scenario,
    weather: Weather,
) -> Snapshot {
    let sides = forces
        .sides
        .iter()
        .enumerate()
        .map(|(c, fs)| {
            let sc = cb
                .scenario_side(c, scenario.sides.len())
                .and_then(|k| scenario.sides.get(k));
            let (units, commanders) = match sc {
                Some(s) => (
                    s.units
                        .iter()
                        .filter_map(|u| fs.unit(u.id))
                        .map(|u| UnitLine {
                            id: u.id.0,
                            name: u.name.clone(),
                            stands: u.stands,
                        })
                        .collect(),
                    s.hqs
                        .iter()
                        .filter_map(|h| fs.commander(h.id))
                        .map(|h| CommanderLine {
                            id: h.hq.0,
                            name: h.name.clone(),
                            command: h.command_value,
                        })
                        .collect(),
                ),
                None => (Vec::new(), Vec::new()),
            };
            SideLine {
                id: fs.id.clone(),
                name: fs.name.clone(),
                units,
                commanders,
            }
        })
        .collect();
    Snapshot { weather, sides }
}

fn reason_words(r: EndReason) -> &'static str {
    match r {
        EndReason::TurnLimit => "turn limit",
        EndReason::Objective => "objective",
        EndReason::Break => "break",
        EndReason::Concession => "concession",
    }
}

/// Plays every battle of the campaign with the solo opponent on both sides, carrying between
/// them. Refused with the campaign's problems when it cannot be played as written; a battle
/// that cannot start (e.g. a side with no unit left) or that the opponent could not finish
/// ends the run there, with `stopped` saying why.
pub fn autoplay(
    campaign: &Campaign,
    scenarios: &[Scenario],
    lists: &[ArmyList],
    seed: u64,
    limits: &Limits,
) -> Result<CampaignRun, Vec<CampaignProblem>> {
    let mut forces = forces_from(campaign, scenarios)?;
    let sides = forces.side_names();
    let mut battles = Vec::new();
    let mut stopped = None;
    let mut dice = carry_dice(seed, 0);
    for (i, cb) in campaign.battles.iter().enumerate() {
        let Some(scenario) = scenarios.iter().find(|s| s.id == cb.scenario) else {
            stopped = Some(format!(
                "battle {}: scenario '{}' is missing",
                i + 1,
                cb.scenario
            ));
            break;
        };
        let carried = match scenario_for_battle(&forces, campaign, i, scenario, &mut dice) {
            Ok(c) => c,
            Err(e) => {
                stopped = Some(format!("battle {} ({}): {e}", i + 1, scenario.name));
                break;
            }
        };
        let start = snapshot(
            &carried.forces,
            cb,
            &carried.scenario,
            carried.scenario.weather,
        );
        let bseed = battle_seed(seed, i);
        // SEQ-01: who moves first as the scenario says, or a roll-off with the battle's dice.
        let mut battle = match Battle::opening(
            carried.scenario.clone(),
            lists.to_vec(),
            DiceSource::Seed(bseed),
        ) {
            Ok(b) => b,
            Err(e) => {
                stopped = Some(format!(
                    "battle {} ({}) cannot start with the forces carried into it: {e}",
                    i + 1,
                    scenario.name
                ));
                break;
            }
        };
        let run = play_battle(&mut battle, limits);
        dice = carry_dice(seed, i + 1);
        let (after, outcome): (Forces, CarryReport) =
            match after_battle(&carried.forces, campaign, i, &battle, &mut dice) {
                Ok(x) => x,
                Err(e) => {
                    stopped = Some(format!("after battle {} ({}): {e}", i + 1, scenario.name));
                    break;
                }
            };
        let end = snapshot(
            &after,
            cb,
            &carried.scenario,
            after.weather.unwrap_or(carried.scenario.weather),
        );
        let record = after.battles.last();
        let result = ResultLine {
            winner: record.and_then(|r| r.winner),
            category: record.map_or_else(|| "unfinished".to_string(), |r| r.category.clone()),
            vps: record.map_or_else(Vec::new, |r| r.vps.clone()),
            reason: run.reason.map(|r| reason_words(r).to_string()),
            turns: run.game_turns,
        };
        let halted = run.stopped.clone();
        battles.push(PlayedBattle {
            scenario: scenario.id.as_str().to_string(),
            name: scenario.name.clone(),
            seed: bseed,
            start,
            end,
            result,
            carry_in: carried.report.changes,
            outcome: outcome.changes,
            stopped: halted.clone(),
        });
        forces = after;
        if let Some(s) = halted {
            stopped = Some(format!(
                "battle {} ({}) did not finish: {s}",
                i + 1,
                scenario.name
            ));
            break;
        }
    }
    let t = tally(campaign, &forces);
    Ok(CampaignRun {
        campaign: campaign.id.as_str().to_string(),
        seed,
        sides,
        battles,
        tally: t,
        forces,
        stopped,
    })
}
