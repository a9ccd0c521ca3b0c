//! After a battle: what it did to the campaign's forces, read from its events (stands lost,
//! units and command units knocked out, defences lost, the verdict), with each fallen
//! commander's fate rolled.

use super::forces::{BattleRecord, Fallen, Fate, Forces, UnitStatus};
use super::report::{CarryReport, CarryValue, Change, ChangeKind};
use super::CarryError;
use crate::model::{Campaign, CommanderRule, DefenseId, HqId, Scenario, UnitId, Weather};
use crate::rules::dice::Dice;
use crate::rules::event::Event;
use crate::rules::victory::{BattleResult, Outcome};
use crate::rules::{Battle, PieceId};
use std::collections::{BTreeMap, BTreeSet};

/// What one battle did, per scenario side: read from its events, or entered by hand
/// ([`super::hand`]).
#[derive(Default)]
pub(super) struct Losses {
    pub(super) stands: BTreeMap<(usize, UnitId), u32>,
    /// With the rule that knocked each out.
    pub(super) knocked_out: BTreeMap<(usize, UnitId), String>,
    pub(super) command_out: BTreeSet<(usize, HqId)>,
    pub(super) defences: Vec<(usize, DefenseId)>,
    pub(super) result: Option<BattleResult>,
}

fn read_events<'a>(events: impl Iterator<Item = &'a Event>) -> Losses {
    let mut l = Losses::default();
    for e in events {
        match e {
            Event::StandsLost {
                piece: PieceId::Unit { side, unit },
                stands_lost,
                ..
            } => *l.stands.entry((*side, *unit)).or_default() += u32::from(*stands_lost),
            Event::UnitKnockedOut { piece, cause } => match piece {
                PieceId::Unit { side, unit } => {
                    l.knocked_out
                        .entry((*side, *unit))
                        .or_insert_with(|| cause.rule().to_string());
                }
                PieceId::Hq { side, hq } => {
                    l.command_out.insert((*side, *hq));
                }
            },
            Event::DefenseKnockedOut { side, defense, .. } => l.defences.push((*side, *defense)),
            Event::BattleResult(r) => l.result = Some(r.clone()),
            _ => {}
        }
    }
    l
}

/// The fate a die gives under the campaign's commander rule.
pub fn fate_of(rule: &CommanderRule, die: u8) -> Fate {
    if die <= rule.killed_up_to {
        Fate::Killed
    } else if die <= rule.captured_up_to {
        Fate::Captured
    } else {
        Fate::Wounded
    }
}

/// The forces after battle `index` of the campaign, played as `battle` (its scenario the one
/// [`super::scenario_for_battle`] gave), and the report of what the battle did to them:
///
/// * stands lost (END-01) stay lost, and those of the last battle are remembered for recovery;
/// * units knocked out (GEN-12) are marked so; the carry into the next battle decides whether
///   they come back;
/// * each commander whose command unit was knocked out, even if it came back in the battle
///   (CMD-28), rolls one die for his fate (killed, captured, wounded), unless commander
///   casualties are switched off;
/// * field defences knocked out (DEF-06) are remembered for a battle on the same ground;
/// * the verdict and VPs (OBJ-02, VP-01..VP-03) go into the record and, when the campaign
///   carries them, the tally;
/// * the weather the battle ended with is kept for a battle that continues it.
///
/// Suppression, disorder and hits are not read: they never carry.
pub fn after_battle(
    forces: &Forces,
    campaign: &Campaign,
    index: usize,
    battle: &Battle,
    dice: &mut dyn Dice,
) -> Result<(Forces, CarryReport), CarryError> {
    let scenario = battle.scenario();
    let losses = read_events(battle.events());
    let weather = crate::rules::weather::underlying(scenario, battle.state());
    after_losses(forces, campaign, index, scenario, &losses, weather, dice)
}

/// [`after_battle`] from what the battle did, however it is known.
pub(super) fn after_losses(
    forces: &Forces,
    campaign: &Campaign,
    index: usize,
    scenario: &Scenario,
    losses: &Losses,
    end_weather: Weather,
    dice: &mut dyn Dice,
) -> Result<(Forces, CarryReport), CarryError> {
    let cb = super::battle_of(campaign, index, scenario)?;
    let mut next = forces.clone();
    let mut report = CarryReport::default();
    let at = &scenario.name;

    for f in &mut next.sides {
        for u in &mut f.units {
            u.recoverable = 0;
        }
    }
    for (k, side) in scenario.sides.iter().enumerate() {
        let c = cb.campaign_side(k);
        let Some(f) = next.sides.get_mut(c) else {
            return Err(CarryError::Mismatch(format!(
                "scenario side {} is mapped to campaign side {}, which the campaign does not have",
                k + 1,
                c + 1
            )));
        };
        for su in &side.units {
            let Some(u) = f.units.iter_mut().find(|u| u.id == su.id) else {
                continue;
            };
            if u.status != UnitStatus::Ready {
                continue;
            }
            let before = u.stands;
            let lost = losses
                .stands
                .get(&(k, su.id))
                .copied()
                .unwrap_or(0)
                .min(u32::from(before));
            let lost = u8::try_from(lost).unwrap_or(before);
            if let Some(rule) = losses.knocked_out.get(&(k, su.id)) {
                u.stands = 0;
                u.status = UnitStatus::KnockedOut;
                u.recoverable = 0;
                report.push(Change {
                    kind: ChangeKind::Unit,
                    side: Some(c),
                    id: Some(su.id.0),
                    name: u.name.clone(),
                    from: CarryValue::from(before),
                    to: CarryValue::text("knocked out"),
                    why: format!(
                        "knocked out at {at} ({rule}); all its {before} stands count as lost"
                    ),
                    dice: Vec::new(),
                });
            } else if lost > 0 {
                u.stands = before - lost;
                u.recoverable = lost;
                report.push(Change {
                    kind: ChangeKind::Stands,
                    side: Some(c),
                    id: Some(su.id.0),
                    name: u.name.clone(),
                    from: CarryValue::from(before),
                    to: CarryValue::from(u.stands),
                    why: format!("lost {lost} stand{} at {at} (END-01)", plural(lost)),
                    dice: Vec::new(),
                });
            }
        }
        for h in &side.hqs {
            if !losses.command_out.contains(&(k, h.id)) {
                continue;
            }
            let Some(cf) = f.commanders.iter_mut().find(|x| x.hq == h.id) else {
                continue;
            };
            if !campaign.carry_over.commander_casualties {
                report.push(Change {
                    kind: ChangeKind::Commander,
                    side: Some(c),
                    id: Some(h.id.0),
                    name: cf.name.clone(),
                    from: CarryValue::text(cf.name.clone()),
                    to: CarryValue::text(cf.name.clone()),
                    why: format!("his command unit was knocked out at {at}, but this campaign does not carry commander casualties: he stays"),
                    dice: Vec::new(),
                });
                continue;
            }
            let die = dice.d6("commander's fate")?;
            let fate = fate_of(&campaign.rules.commanders, die);
            cf.fallen = Some(Fallen {
                fate,
                die: Some(die),
            });
            report.push(Change {
                kind: ChangeKind::Commander,
                side: Some(c),
                id: Some(h.id.0),
                name: cf.name.clone(),
                from: CarryValue::text("in command"),
                to: CarryValue::text(fate.label()),
                why: format!(
                    "his command unit ({}) was knocked out at {at} (CMD-28); the campaign's die for his fate came up {die}: {}",
                    cf.hq_name,
                    fate.label()
                ),
                dice: vec![die],
            });
        }
    }

    // The verdict, in campaign sides.
    let n = next.sides.len();
    let mut vps = vec![0i64; n];
    let (winner, category, decisive) = match &losses.result {
        Some(r) => {
            for (k, s) in r.sides.iter().enumerate() {
                if let Some(v) = vps.get_mut(cb.campaign_side(k)) {
                    *v = s.vp;
                }
            }
            let winner = r.winner.map(|w| cb.campaign_side(w));
            let decisive = r.category >= Outcome::DecisiveVictory;
            (winner, r.category.label().to_string(), decisive)
        }
        None => (None, "unfinished".to_string(), false),
    };
    for k in 0..scenario.sides.len() {
        let c = cb.campaign_side(k);
        if let Some(f) = next.sides.get_mut(c) {
            f.last_won = match (losses.result.is_some(), winner) {
                (true, Some(w)) => Some(w == c),
                _ => None,
            };
            let earned = vps.get(c).copied().unwrap_or(0);
            if campaign.carry_over.victory_points {
                let before = f.vps;
                f.vps = before.saturating_add(earned);
                report.push(Change {
                    kind: ChangeKind::Vps,
                    side: Some(c),
                    id: None,
                    name: String::new(),
                    from: CarryValue::from(before),
                    to: CarryValue::from(f.vps),
                    why: format!(
                        "{earned} VPs earned at {at} (VP-01, VP-02) go into the campaign tally"
                    ),
                    dice: Vec::new(),
                });
            }
        }
    }
    next.battles.push(BattleRecord {
        scenario: scenario.id.as_str().to_string(),
        name: scenario.name.clone(),
        winner,
        category,
        decisive,
        vps,
    });
    next.weather = Some(end_weather);
    next.defences_lost = losses
        .defences
        .iter()
        .map(|(k, d)| (cb.campaign_side(*k), *d))
        .collect();
    Ok((next, report))
}

pub(super) fn plural(n: u8) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
