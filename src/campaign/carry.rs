//! The carry into a battle: the campaign's forces put into the battle's scenario (stands, units
//! gone or back, commanders replaced or returned, weather, field defences), every change in the
//! report with its reason.

use super::after::plural;
use super::forces::{Absent, Fate, Forces, UnitStatus};
use super::report::{CarryReport, CarryValue, Change, ChangeKind};
use super::CarryError;
use crate::model::{Campaign, Scenario, Weather, WeatherLink};
use crate::rules::dice::Dice;
use crate::rules::weather::{changed_weather, starting_weather};

/// What the carry into a battle gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Carried {
    /// The scenario to play: the campaign's forces in it.
    pub scenario: Scenario,
    /// The forces after the carry (recovery made, commanders replaced, fates settled).
    pub forces: Forces,
    /// Every change between the end of the last battle and the start of this one.
    pub report: CarryReport,
}

pub(super) fn share_of(n: u8, percent: u32) -> u8 {
    let v = (u32::from(n) * percent + 50) / 100;
    u8::try_from(v).unwrap_or(n)
}

fn result_words(won: Option<bool>) -> &'static str {
    match won {
        Some(true) => "won",
        Some(false) => "lost",
        None => "drew",
    }
}

/// Carries `forces` into battle `index` of the campaign, played on `scenario` (the battle's
/// scenario as written; its units and command units are the campaign's by id). The dice are
/// for the weather (two for a change or a fresh roll); give [`super::carry_dice`]`(seed, index)`
/// after the [`super::after_battle`] of the battle before drew from it.
///
/// In order, each with its reason in the report:
/// 1. commanders: a fallen one is replaced (a named replacement, or else the senior officer of
///    his staff, at his command value less the campaign's penalty, CMD-28's −1 by default); a
///    wounded one returns when his battles out are over;
/// 2. units: a knocked-out unit comes back at part strength if its side kept the field, or is
///    gone; a unit gets back its share of the stands it lost in the last battle (recovery, by
///    its side's result and the nights between); with losses switched off all are made whole;
/// 3. the scenario: each unit at its campaign strength, units gone left out, each command unit
///    led by its campaign commander;
/// 4. the weather, by the battle's link (continue, afresh, historical);
/// 5. field defences knocked out last time stay knocked out on the same ground only.
pub fn scenario_for_battle(
    forces: &Forces,
    campaign: &Campaign,
    index: usize,
    scenario: &Scenario,
    dice: &mut dyn Dice,
) -> Result<Carried, CarryError> {
    let cb = super::battle_of(campaign, index, scenario)?;
    let rules = &campaign.rules;
    let switches = campaign.carry_over;
    let mut f = forces.clone();
    let mut report = CarryReport::default();
    let last = f
        .battles
        .last()
        .map(|b| {
            if b.name.is_empty() {
                b.scenario.clone()
            } else {
                b.name.clone()
            }
        })
        .unwrap_or_default();
    let last_name = if last.is_empty() {
        "the last battle".to_string()
    } else {
        format!("the last battle ({last})")
    };
    let nights = if index == 0 { 0 } else { cb.link.nights() };

    // 1. Commanders.
    for (c, side) in f.sides.iter_mut().enumerate() {
        for cf in &mut side.commanders {
            let fallen = cf.fallen.take();
            let mut stand_in_needed = false;
            if let Some(fl) = fallen {
                let returning = cf.absent.as_ref().is_some_and(|a| a.battles_left == 0);
                if fl.fate == Fate::Wounded && rules.commanders.wounded_out_for == 0 {
                    report.push(Change {
                        kind: ChangeKind::Commander,
                        side: Some(c),
                        id: Some(cf.hq.0),
                        name: cf.name.clone(),
                        from: CarryValue::text("wounded"),
                        to: CarryValue::text("in command"),
                        why: "his wound keeps him out of no battle under this campaign's rules"
                            .into(),
                        dice: Vec::new(),
                    });
                    continue;
                }
                if fl.fate == Fate::Wounded && cf.absent.is_none() {
                    cf.absent = Some(Absent {
                        name: cf.name.clone(),
                        command_value: cf.command_value,
                        battles_left: rules.commanders.wounded_out_for,
                    });
                }
                if !returning {
                    stand_in_needed = true;
                    let named = rules
                        .commanders
                        .replacements
                        .iter()
                        .find(|r| r.side == c && r.hq == cf.hq);
                    let value = named.and_then(|r| r.command_value).unwrap_or_else(|| {
                        cf.command_value
                            .saturating_sub(rules.commanders.replacement_penalty)
                            .max(1)
                    });
                    let name = named.map_or_else(
                        || format!("the senior officer of {}", cf.hq_name),
                        |r| r.name.clone(),
                    );
                    let whose = if named.is_some() {
                        "the campaign names him to take over"
                    } else {
                        "no replacement is named, so the senior officer of the staff takes over"
                    };
                    report.push(Change {
                        kind: ChangeKind::Commander,
                        side: Some(c),
                        id: Some(cf.hq.0),
                        name: cf.hq_name.clone(),
                        from: CarryValue::text(format!("{} ({})", cf.name, cf.command_value)),
                        to: CarryValue::text(format!("{name} ({value})")),
                        why: format!(
                            "{} was {} in {last_name}; {whose}, command value {} → {value} (CMD-28, campaign rule)",
                            cf.name,
                            fl.fate.label(),
                            cf.command_value
                        ),
                        dice: Vec::new(),
                    });
                    cf.name = name;
                    cf.command_value = value;
                }
            }
            if let Some(a) = cf.absent.take() {
                if a.battles_left == 0 {
                    report.push(Change {
                        kind: ChangeKind::Commander,
                        side: Some(c),
                        id: Some(cf.hq.0),
                        name: cf.hq_name.clone(),
                        from: CarryValue::text(format!("{} ({})", cf.name, cf.command_value)),
                        to: CarryValue::text(format!("{} ({})", a.name, a.command_value)),
                        why: format!(
                            "{} is back from his wound and takes his command again",
                            a.name
                        ),
                        dice: Vec::new(),
                    });
                    cf.name = a.name;
                    cf.command_value = a.command_value;
                } else {
                    if !stand_in_needed {
                        report.push(Change {
                            kind: ChangeKind::Commander,
                            side: Some(c),
                            id: Some(cf.hq.0),
                            name: cf.hq_name.clone(),
                            from: CarryValue::text(format!("{} ({})", cf.name, cf.command_value)),
                            to: CarryValue::text(format!("{} ({})", cf.name, cf.command_value)),
                            why: format!(
                                "{} is still away wounded ({} more battle{} after this one)",
                                a.name,
                                a.battles_left - 1,
                                if a.battles_left - 1 == 1 { "" } else { "s" }
                            ),
                            dice: Vec::new(),
                        });
                    }
                    cf.absent = Some(Absent {
                        battles_left: a.battles_left - 1,
                        ..a
                    });
                }
            }
        }
    }

    // 2. Units.
    for (c, side) in f.sides.iter_mut().enumerate() {
        let won = side.last_won;
        for u in &mut side.units {
            let rec = std::mem::take(&mut u.recoverable);
            if !switches.losses {
                if u.status != UnitStatus::Ready || u.stands != u.full_stands {
                    report.push(Change {
                        kind: ChangeKind::Stands,
                        side: Some(c),
                        id: Some(u.id.0),
                        name: u.name.clone(),
                        from: CarryValue::from(u.stands),
                        to: CarryValue::from(u.full_stands),
                        why: "this campaign does not carry losses: every unit starts each battle whole".into(),
                        dice: Vec::new(),
                    });
                    u.stands = u.full_stands;
                    u.status = UnitStatus::Ready;
                }
                continue;
            }
            match u.status {
                UnitStatus::Gone => {}
                UnitStatus::KnockedOut => {
                    let kept = won != Some(false);
                    if rules.knocked_out.back_if_field_kept && kept {
                        let back = share_of(u.full_stands, rules.knocked_out.back_at)
                            .max(1)
                            .min(u.full_stands);
                        report.push(Change {
                            kind: ChangeKind::Unit,
                            side: Some(c),
                            id: Some(u.id.0),
                            name: u.name.clone(),
                            from: CarryValue::text("knocked out"),
                            to: CarryValue::from(back),
                            why: format!(
                                "its side {} {last_name} and kept the field, so it rallies with {}% of its {} stand{} (at least one; campaign rule)",
                                result_words(won),
                                rules.knocked_out.back_at,
                                u.full_stands,
                                plural(u.full_stands)
                            ),
                            dice: Vec::new(),
                        });
                        u.stands = back;
                        u.status = UnitStatus::Ready;
                    } else {
                        let why = if rules.knocked_out.back_if_field_kept {
                            format!("its side lost {last_name} and the field with it: the unit is gone for the rest of the campaign (campaign rule)")
                        } else {
                            "knocked-out units do not come back in this campaign".to_string()
                        };
                        report.push(Change {
                            kind: ChangeKind::Unit,
                            side: Some(c),
                            id: Some(u.id.0),
                            name: u.name.clone(),
                            from: CarryValue::text("knocked out"),
                            to: CarryValue::text("gone"),
                            why,
                            dice: Vec::new(),
                        });
                        u.stands = 0;
                        u.status = UnitStatus::Gone;
                    }
                }
                UnitStatus::Ready => {
                    if rec == 0 {
                        continue;
                    }
                    let share = rules.recovery.share(won, nights);
                    let room = u.full_stands.saturating_sub(u.stands);
                    let back = share_of(rec, share).min(room);
                    if back > 0 {
                        report.push(Change {
                            kind: ChangeKind::Stands,
                            side: Some(c),
                            id: Some(u.id.0),
                            name: u.name.clone(),
                            from: CarryValue::from(u.stands),
                            to: CarryValue::from(u.stands + back),
                            why: format!(
                                "{back} of the {rec} stand{} lost in {last_name} rejoin{} after {nights} night{}: {share}% for a side that {} (campaign rule)",
                                plural(rec),
                                if back == 1 { "s" } else { "" },
                                if nights == 1 { "" } else { "s" },
                                result_words(won)
                            ),
                            dice: Vec::new(),
                        });
                        u.stands += back;
                    }
                }
            }
        }
    }

    // 3. The scenario.
    let mut sc = scenario.clone();
    let mut gone_ids = Vec::new();
    for (k, side) in sc.sides.iter_mut().enumerate() {
        let c = cb.campaign_side(k);
        let Some(fs) = f.sides.get(c) else {
            return Err(CarryError::Mismatch(format!(
                "scenario side {} is mapped to campaign side {}, which the campaign does not have",
                k + 1,
                c + 1
            )));
        };
        side.units.retain_mut(|u| match fs.unit(u.id) {
            Some(fu) if fu.status == UnitStatus::Ready && fu.stands > 0 => {
                u.stands = fu.stands;
                true
            }
            Some(fu) => {
                report.push(Change {
                    kind: ChangeKind::Unit,
                    side: Some(c),
                    id: Some(u.id.0),
                    name: fu.name.clone(),
                    from: CarryValue::text("gone"),
                    to: CarryValue::text("not fielded"),
                    why: format!(
                        "the unit is gone from the campaign, so it is left out of {}",
                        scenario.name
                    ),
                    dice: Vec::new(),
                });
                gone_ids.push(u.id);
                false
            }
            None => true,
        });
        for d in &mut side.field_defenses {
            if d.occupant.is_some_and(|o| gone_ids.contains(&o)) {
                d.occupant = None;
            }
        }
        gone_ids.clear();
        for h in &mut side.hqs {
            if let Some(cf) = fs.commander(h.id) {
                h.commander.name = cf.name.clone();
                h.commander.command_value = cf.command_value;
            }
        }
    }

    // 4. Weather.
    let historical = scenario.weather;
    if !switches.weather || index == 0 {
        if let Some(w) = cb.weather.filter(|_| !switches.weather) {
            if w != historical {
                report.push(weather_change(
                    historical,
                    w,
                    "this campaign does not carry the weather; the battle's own setting replaces the scenario's".into(),
                    Vec::new(),
                ));
            }
            sc.weather = w;
        }
    } else if historical == Weather::Night && cb.link.weather != WeatherLink::Historical {
        report.push(weather_change(
            f.weather.unwrap_or(historical),
            Weather::Night,
            "the battle is fought at night, as its scenario says; the weather rolls go on underneath (OPT-NIGHT-01)".into(),
            Vec::new(),
        ));
    } else {
        match cb.link.weather {
            WeatherLink::Historical => {
                if let Some(from) = f.weather.filter(|w| *w != historical) {
                    report.push(weather_change(
                        from,
                        historical,
                        format!(
                            "the battle starts in the weather its scenario gives ({}), not the weather {last_name} ended in",
                            historical.label()
                        ),
                        Vec::new(),
                    ));
                }
            }
            WeatherLink::Continue => {
                let from = f.weather.unwrap_or(historical);
                let d = dice.roll(2, "campaign weather change")?;
                let pair = [
                    d.first().copied().unwrap_or(0),
                    d.get(1).copied().unwrap_or(0),
                ];
                let to = changed_weather(from, pair);
                report.push(weather_change(
                    from,
                    to,
                    format!(
                        "the battle follows on: it starts with the weather {last_name} ended in ({}), then one change roll (OPT-WEATHER-04): {}",
                        from.label(),
                        if to == from { "no change".to_string() } else { format!("now {}", to.label()) }
                    ),
                    d,
                ));
                sc.weather = to;
            }
            WeatherLink::Afresh => {
                let d = dice.roll(2, "campaign starting weather")?;
                let total: u32 = d.iter().map(|x| u32::from(*x)).sum();
                let to = starting_weather(total);
                report.push(weather_change(
                    f.weather.unwrap_or(historical),
                    to,
                    format!(
                        "days have passed since {last_name}: the weather is rolled afresh (OPT-WEATHER-02), {total} gives {}",
                        to.label()
                    ),
                    d,
                ));
                sc.weather = to;
            }
        }
    }

    // 5. Field defences.
    if index > 0 {
        for (c, d) in std::mem::take(&mut f.defences_lost) {
            let Some(k) = cb.scenario_side(c, sc.sides.len()) else {
                continue;
            };
            let Some(side) = sc.sides.get_mut(k) else {
                continue;
            };
            if cb.link.same_ground {
                if side.field_defenses.iter().any(|x| x.id == d) {
                    side.field_defenses.retain(|x| x.id != d);
                    report.push(Change {
                        kind: ChangeKind::Defence,
                        side: Some(c),
                        id: Some(d.0),
                        name: format!("defence {d}"),
                        from: CarryValue::text("standing"),
                        to: CarryValue::text("knocked out"),
                        why: format!("knocked out in {last_name} (DEF-06); this battle is on the same ground, so it stays down"),
                        dice: Vec::new(),
                    });
                }
            } else {
                report.push(Change {
                    kind: ChangeKind::Defence,
                    side: Some(c),
                    id: Some(d.0),
                    name: format!("defence {d}"),
                    from: CarryValue::text("knocked out"),
                    to: CarryValue::text("not carried"),
                    why: "this battle is on other ground: field defences do not carry, the scenario's own stand".into(),
                    dice: Vec::new(),
                });
            }
        }
    }
    f.defences_lost.clear();

    Ok(Carried {
        scenario: sc,
        forces: f,
        report,
    })
}

fn weather_change(from: Weather, to: Weather, why: String, dice: Vec<u8>) -> Change {
    Change {
        kind: ChangeKind::Weather,
        side: None,
        id: None,
        name: String::new(),
        from: CarryValue::text(from.label()),
        to: CarryValue::text(to.label()),
        why,
        dice,
    }
}
