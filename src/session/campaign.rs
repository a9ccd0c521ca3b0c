//! Campaign runs played through the store (issue #19 items 3 and 5): begin a run, start its
//! next battle as a stored battle session, and once that battle is over, write its end and the
//! carry into the next battle in one transaction.
//!
//! The dice follow [`crate::campaign::play::autoplay`] exactly — battle `i` is seeded with
//! [`battle_seed`]`(seed, i)` and the carry between battles draws from
//! [`carry_dice`]`(seed, i)` — so a run played here, stored, reopened and continued gives the
//! same forces, results and reports as one played straight through.

use super::{NewBattle, Session, SessionError};
use crate::ai::{AutoplayRun, Until};
use crate::campaign::{
    after_battle, after_hand, battle_seed, carry_dice, forces_from, scenario_for_battle,
    BattleRecord, CarryError, CarryReport, Forces, HandResult,
};
use crate::model::army::ArmyList;
use crate::model::{Campaign, CampaignId, Scenario};
use crate::rules::battle::Battle;
use crate::rules::dice::{Dice, DiceSource};
use crate::store::{
    CampaignRunRecord, NewRun, PlayMode, RunBattleEnd, RunBattleStart, Store, StoreError,
};

/// Why a campaign step could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("the carry between battles failed: {0}")]
    Carry(#[from] CarryError),
    /// The campaign cannot be played as written (its problems, each on a line).
    #[error("the campaign cannot be played as it is:\n{}", .0.join("\n"))]
    Problems(Vec<String>),
    /// The step asked for does not fit where the run stands.
    #[error("{0}")]
    NotNow(String),
}

/// The campaign's scenarios from the store, in its order (each once), or what is missing.
pub fn campaign_scenarios(
    store: &Store,
    campaign: &Campaign,
) -> Result<Vec<Scenario>, CampaignError> {
    let mut out: Vec<Scenario> = Vec::new();
    let mut missing = Vec::new();
    for b in &campaign.battles {
        if out.iter().any(|s| s.id == b.scenario) {
            continue;
        }
        match store.load_scenario(&b.scenario) {
            Ok(s) => out.push(s),
            Err(StoreError::NotFound(_)) => missing.push(format!(
                "battle '{}': scenario '{}' is not in this database (import it first)",
                b.note, b.scenario
            )),
            Err(e) => return Err(e.into()),
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(CampaignError::Problems(missing))
    }
}

fn scenario_of<'a>(
    scenarios: &'a [Scenario],
    campaign: &Campaign,
    at: usize,
) -> Result<&'a Scenario, CampaignError> {
    let cb = campaign
        .battles
        .get(at)
        .ok_or_else(|| CampaignError::NotNow(format!("the campaign has no battle {}", at + 1)))?;
    scenarios
        .iter()
        .find(|s| s.id == cb.scenario)
        .ok_or_else(|| {
            CampaignError::Problems(vec![format!(
                "battle {}: scenario '{}' is missing from the run",
                at + 1,
                cb.scenario
            )])
        })
}

/// The carry into battle `at`, drawing from `dice`.
fn carry_into(
    forces: &Forces,
    campaign: &Campaign,
    scenarios: &[Scenario],
    at: usize,
    dice: &mut dyn Dice,
) -> Result<RunBattleStart, CampaignError> {
    let scenario = scenario_of(scenarios, campaign, at)?;
    let carried = scenario_for_battle(forces, campaign, at, scenario, dice)?;
    Ok(RunBattleStart {
        scenario: carried.scenario,
        start: carried.forces,
        carry_in: carried.report,
    })
}

/// Begins a run of the stored campaign `id` with `seed`: its forces from its scenarios as they
/// are now, and its first battle set up. Returns the run's id.
pub fn begin_run(
    store: &mut Store,
    id: &CampaignId,
    seed: u64,
    name: &str,
) -> Result<i64, CampaignError> {
    let campaign = store.load_campaign(id)?;
    let scenarios = campaign_scenarios(store, &campaign)?;
    let problems = crate::campaign::validate(&campaign, &scenarios);
    if !problems.is_empty() {
        return Err(CampaignError::Problems(
            problems.iter().map(ToString::to_string).collect(),
        ));
    }
    let forces = forces_from(&campaign, &scenarios)
        .map_err(|ps| CampaignError::Problems(ps.iter().map(ToString::to_string).collect()))?;
    let mut dice = carry_dice(seed, 0);
    let first = carry_into(&forces, &campaign, &scenarios, 0, &mut dice)?;
    let name = if name.trim().is_empty() {
        format!("{} (seed {seed})", campaign.name)
    } else {
        name.trim().to_string()
    };
    Ok(store.create_campaign_run(&NewRun {
        name: &name,
        seed,
        campaign: &campaign,
        scenarios: &scenarios,
        first,
    })?)
}

/// How the next battle of a run is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NextBattle {
    pub mode: PlayMode,
    /// Dice typed in at a real table instead of the run's seeded dice.
    pub physical: bool,
    pub full_orders: bool,
    pub fog: bool,
    /// SEQ-01: the scenario side that moves first when the players name it (a referee's
    /// roll-off on the table); `None`: as the battle's scenario says, or a roll-off with the
    /// run's dice.
    pub first_player: Option<usize>,
}

impl NextBattle {
    /// The computer on both sides, seeded dice, full orders: as `campaign autoplay` plays.
    pub const COMPUTER: NextBattle = NextBattle {
        mode: PlayMode::Computer,
        physical: false,
        full_orders: true,
        fog: false,
        first_player: None,
    };
}

/// Starts the run's next battle as a stored battle session with the carried forces (or resumes
/// the one already started). Its seeded dice are the run's for that battle.
pub fn start_next(
    store: &mut Store,
    run: i64,
    lists: &[ArmyList],
    how: NextBattle,
) -> Result<Session, CampaignError> {
    let rec = store.load_campaign_run(run)?;
    let Some(next) = rec.next() else {
        return Err(CampaignError::NotNow(format!(
            "campaign run '{}' is over: every battle has been fought",
            rec.name
        )));
    };
    if let Some(id) = next.battle_id {
        return Ok(Session::resume(store, id)?);
    }
    if next.start.scenario.sides.iter().any(|s| s.units.is_empty()) {
        return Err(CampaignError::NotNow(format!(
            "battle {} ({}) cannot be fought: a side has no unit left to bring to it; enter its \
             result by hand instead",
            next.pos + 1,
            next.start.scenario.name
        )));
    }
    let new = NewBattle {
        dice: if how.physical {
            DiceSource::Physical
        } else {
            DiceSource::Seed(battle_seed(rec.seed, next.pos))
        },
        orders: if how.full_orders {
            crate::rules::command::OrdersMode::Full
        } else {
            crate::rules::command::OrdersMode::Free
        },
        first_player: how.first_player.or(next.start.scenario.first_player),
        mode: how.mode,
        go_ahead: true,
        fog: how.fog,
    };
    let session = Session::start(store, next.start.scenario.clone(), lists, &new)?;
    store.link_campaign_battle(run, next.pos, session.id())?;
    Ok(session)
}

/// The end of battle `at` of `rec`, played as `battle`, and the carry into the next: what
/// [`finish_battle`] writes.
fn step_after(
    rec: &CampaignRunRecord,
    at: usize,
    battle: &Battle,
) -> Result<(RunBattleEnd, Option<RunBattleStart>), CampaignError> {
    let start = rec
        .battles
        .get(at)
        .ok_or_else(|| CampaignError::NotNow(format!("the run has no battle {}", at + 1)))?;
    let mut dice = carry_dice(rec.seed, at + 1);
    let (end, after) = after_battle(&start.start.start, &rec.campaign, at, battle, &mut dice)?;
    finish_step(rec, at, end, after, None, &mut dice)
}

/// The carry into the battle after `at`, from the forces `end` at its close.
fn finish_step(
    rec: &CampaignRunRecord,
    at: usize,
    end: Forces,
    after: CarryReport,
    hand: Option<serde_json::Value>,
    dice: &mut dyn Dice,
) -> Result<(RunBattleEnd, Option<RunBattleStart>), CampaignError> {
    let result: BattleRecord = end.battles.last().cloned().ok_or_else(|| {
        CampaignError::NotNow(format!("battle {} has no result to carry", at + 1))
    })?;
    let next = if at + 1 < rec.campaign.battles.len() {
        Some(carry_into(
            &end,
            &rec.campaign,
            &rec.scenarios,
            at + 1,
            dice,
        )?)
    } else {
        None
    };
    Ok((
        RunBattleEnd {
            end,
            after,
            result,
            hand,
        },
        next,
    ))
}

/// Once the battle session of the run's next battle is over, writes its end and the carry into
/// the battle after it, in one transaction. Refused while the battle is still being fought.
pub fn finish_battle(store: &mut Store, run: i64) -> Result<CampaignRunRecord, CampaignError> {
    let rec = store.load_campaign_run(run)?;
    let Some(next) = rec.next() else {
        return Err(CampaignError::NotNow(format!(
            "campaign run '{}' is over: there is no battle to finish",
            rec.name
        )));
    };
    let Some(id) = next.battle_id else {
        return Err(CampaignError::NotNow(format!(
            "battle {} ({}) has not been started",
            next.pos + 1,
            next.start.scenario.name
        )));
    };
    let session = Session::resume(store, id)?;
    if session.result().is_none() {
        return Err(CampaignError::NotNow(format!(
            "battle {} ({}) is still being fought",
            next.pos + 1,
            next.start.scenario.name
        )));
    }
    let at = next.pos;
    let (end, following) = step_after(&rec, at, session.battle())?;
    store.finish_campaign_battle(run, at, &end, following.as_ref())?;
    Ok(store.load_campaign_run(run)?)
}

/// Writes the result of the run's next battle as a person entered it (a battle fought on a
/// real table without the app), worked out and carried like a battle played in the app, with
/// the carry into the battle after it, in one transaction. Refused when the battle was fought
/// to its end in the app (carry that instead) or when the result does not fit its scenario.
pub fn enter_result(
    store: &mut Store,
    run: i64,
    lists: &[ArmyList],
    hand: &HandResult,
) -> Result<CampaignRunRecord, CampaignError> {
    let rec = store.load_campaign_run(run)?;
    let Some(next) = rec.next() else {
        return Err(CampaignError::NotNow(format!(
            "campaign run '{}' is over: there is no battle to enter",
            rec.name
        )));
    };
    if let Some(id) = next.battle_id {
        if Session::resume(store, id)?.result().is_some() {
            return Err(CampaignError::NotNow(format!(
                "battle {} ({}) was fought to its end in the app: carry its result instead",
                next.pos + 1,
                next.start.scenario.name
            )));
        }
    }
    let problems = crate::campaign::hand_problems(&next.start.scenario, hand);
    if !problems.is_empty() {
        return Err(CampaignError::Problems(problems));
    }
    let at = next.pos;
    let mut dice = carry_dice(rec.seed, at + 1);
    let (end, after) = after_hand(
        &next.start.start,
        &rec.campaign,
        at,
        &next.start.scenario,
        lists,
        hand,
        &mut dice,
    )?;
    let value = serde_json::to_value(hand)
        .map_err(|e| CampaignError::NotNow(format!("the result entered cannot be kept: {e}")))?;
    let (end, following) = finish_step(&rec, at, end, after, Some(value), &mut dice)?;
    store.finish_campaign_battle(run, at, &end, following.as_ref())?;
    Ok(store.load_campaign_run(run)?)
}

/// Plays the run's next battle with the solo opponent on both sides, stored as it goes, and
/// carries into the battle after it. Returns the opponent's run and the run as it stands.
pub fn autoplay_next(
    store: &mut Store,
    run: i64,
    lists: &[ArmyList],
    keep_going: &mut dyn FnMut(&Battle) -> bool,
) -> Result<(AutoplayRun, CampaignRunRecord), CampaignError> {
    let mut session = start_next(store, run, lists, NextBattle::COMPUTER)?;
    let played = session.play_ai(store, [true, true], Until::End, keep_going)?;
    if session.result().is_none() {
        return Err(CampaignError::NotNow(format!(
            "the battle did not finish: {}",
            played
                .stopped
                .clone()
                .unwrap_or_else(|| "stopped".to_string())
        )));
    }
    let rec = finish_battle(store, run)?;
    Ok((played, rec))
}
