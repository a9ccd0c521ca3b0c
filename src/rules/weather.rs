//! Optional weather and night (catalogue §3.4 OPT-WEATHER-01..04, §3.5 OPT-NIGHT-01).
//!
//! Owns the weather of the moment as battle state ([`WeatherState`], changed only by
//! [`Event::WeatherChanged`]), the starting-weather roll (an action before the first player
//! turn), the weather-change roll at the end of each game turn (SEQ-05) and the effective
//! category every effect reads: command rolls (`command`), the visibility limit (`visibility`,
//! which firing and charging see through VIS-01).
//!
//! The catalogue gives weather no movement or firing modifiers of its own: OPT-WEATHER-03
//! names only the command modifier and the visibility limit; fire and charges are limited
//! through sight (VIS-01, VIS-04).
//!
//! Layering: depends on `model` and the rest of `rules` only; no egui, rusqlite, `std::fs`,
//! clock or thread RNG.

use serde::{Deserialize, Serialize};

use super::battle::Ctx;
use super::dice::Dice;
use super::error::{ActionError, RuleError};
use super::event::{Event, Modifier};
use super::state::{BattleState, Phase};
use crate::model::{OptionalRule, Scenario, Weather};

/// The weather as it stands in the battle (OPT-WEATHER-02, OPT-WEATHER-04).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeatherState {
    /// The weather category now, once a roll has set it; `None` = the scenario's weather.
    #[serde(default)]
    pub current: Option<Weather>,
    /// The starting-weather roll has been made (OPT-WEATHER-02: once, before the game).
    #[serde(default)]
    pub start_rolled: bool,
}

/// Why the weather changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WeatherCause {
    /// The starting roll (OPT-WEATHER-02).
    Start,
    /// The end-of-game-turn roll (OPT-WEATHER-04).
    Change,
}

fn rule_on(scenario: &Scenario, r: OptionalRule) -> bool {
    scenario.optional_rules.contains(&r)
}

/// OPT-WEATHER-01: the underlying weather category (Normal, Poor, Extreme). A scenario set at
/// Night starts from Normal weather underneath (OPT-NIGHT-01: the weather keeps changing).
pub fn underlying(scenario: &Scenario, state: &BattleState) -> Weather {
    match state.weather.current {
        Some(w) => w,
        None if scenario.weather == Weather::Night => Weather::Normal,
        None => scenario.weather,
    }
}

/// OPT-NIGHT-01: night is in force when the night rule is on, or the scenario is set at night
/// and the weather rule is on.
pub fn night(scenario: &Scenario) -> bool {
    rule_on(scenario, OptionalRule::Night)
        || (scenario.weather == Weather::Night && rule_on(scenario, OptionalRule::Weather))
}

fn severity(w: Weather) -> u8 {
    match w {
        Weather::Normal => 0,
        Weather::Poor | Weather::Night => 1,
        Weather::Extreme => 2,
    }
}

/// OPT-WEATHER-03, OPT-NIGHT-01: the category whose effects apply now. The weather counts only
/// with the weather rule on; night makes it never better than Poor (the worse of the two).
pub fn effective(scenario: &Scenario, state: &BattleState) -> Weather {
    let mut w = if rule_on(scenario, OptionalRule::Weather) {
        underlying(scenario, state)
    } else {
        Weather::Normal
    };
    if w == Weather::Night {
        w = Weather::Poor;
    }
    if night(scenario) && severity(w) < 1 {
        w = Weather::Poor;
    }
    w
}

/// OPT-WEATHER-03, OPT-NIGHT-01: the modifier to every command roll made to issue an order
/// (CMD-03): −1 poor weather or night, −2 extreme weather.
pub fn command_modifier(ctx: &Ctx) -> Option<Modifier> {
    let w = effective(ctx.scenario, ctx.state);
    let (rule, label, value) = match w {
        Weather::Normal => return None,
        Weather::Extreme => ("OPT-WEATHER-03", "extreme weather", -2),
        _ if night(ctx.scenario) && !poor_by_weather(ctx) => ("OPT-NIGHT-01", "night", -1),
        _ => ("OPT-WEATHER-03", "poor weather", -1),
    };
    Some(Modifier {
        rule: rule.into(),
        label: label.into(),
        value,
    })
}

fn poor_by_weather(ctx: &Ctx) -> bool {
    rule_on(ctx.scenario, OptionalRule::Weather)
        && underlying(ctx.scenario, ctx.state) == Weather::Poor
}

/// OPT-WEATHER-02: the starting weather from 2D6: 12 Extreme, 10–11 Poor, 2–9 Normal.
pub fn starting_weather(total: u32) -> Weather {
    match total {
        12.. => Weather::Extreme,
        10 | 11 => Weather::Poor,
        _ => Weather::Normal,
    }
}

/// OPT-WEATHER-04: double six one step worse, double one one step better, else no change.
pub fn changed_weather(from: Weather, dice: [u8; 2]) -> Weather {
    match (dice, from) {
        ([6, 6], Weather::Normal) => Weather::Poor,
        ([6, 6], Weather::Poor | Weather::Night) => Weather::Extreme,
        ([1, 1], Weather::Extreme) => Weather::Poor,
        ([1, 1], Weather::Poor | Weather::Night) => Weather::Normal,
        _ => from,
    }
}

/// OPT-WEATHER-02: the starting roll is for a battle using the weather rule, once, before the
/// first player turn (the scenario's weather is then the historical one, replaced by the roll).
pub fn check_roll_starting_weather(ctx: &Ctx) -> Result<(), RuleError> {
    if !rule_on(ctx.scenario, OptionalRule::Weather) {
        return Err(RuleError::new(
            "OPT-WEATHER-02",
            "the scenario does not use the optional weather rule",
        ));
    }
    if ctx.state.weather.start_rolled {
        return Err(RuleError::new(
            "OPT-WEATHER-02",
            "the starting weather has already been rolled",
        ));
    }
    let t = ctx.state.turn;
    if t.player_turn > 0 || t.phase != Phase::Deployment {
        return Err(RuleError::new(
            "OPT-WEATHER-02",
            "the starting weather is rolled before the game, during deployment",
        ));
    }
    Ok(())
}

/// OPT-WEATHER-02: rolls 2D6 for the starting weather; the result is recorded even when it
/// equals the scenario's weather.
pub fn resolve_roll_starting_weather(
    ctx: &Ctx,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    check_roll_starting_weather(ctx)?;
    let rolled = dice.roll(2, "starting weather")?;
    let total: u32 = rolled.iter().map(|d| u32::from(*d)).sum();
    let to = starting_weather(total);
    Ok(vec![
        Event::DiceRolled {
            piece: None,
            purpose: "starting weather".into(),
            rule: "OPT-WEATHER-02".into(),
            dice: rolled,
            modifiers: Vec::new(),
        },
        Event::WeatherChanged {
            from: underlying(ctx.scenario, ctx.state),
            to,
            cause: WeatherCause::Start,
        },
    ])
}

/// OPT-WEATHER-04 (SEQ-05): at the end of each game turn, after the second player's End phase,
/// the weather-change roll; nothing when the weather rule is off.
pub fn end_of_game_turn(
    scenario: &Scenario,
    state: &BattleState,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    if !rule_on(scenario, OptionalRule::Weather) {
        return Ok(Vec::new());
    }
    let rolled = dice.roll(2, "weather change")?;
    let pair = [
        rolled.first().copied().unwrap_or(0),
        rolled.get(1).copied().unwrap_or(0),
    ];
    let from = underlying(scenario, state);
    let to = changed_weather(from, pair);
    let mut ev = vec![Event::DiceRolled {
        piece: None,
        purpose: "weather change".into(),
        rule: "OPT-WEATHER-04".into(),
        dice: rolled,
        modifiers: Vec::new(),
    }];
    if to != from {
        ev.push(Event::WeatherChanged {
            from,
            to,
            cause: WeatherCause::Change,
        });
    }
    Ok(ev)
}

/// The only mutator of [`WeatherState`].
pub fn apply_event(state: &mut BattleState, event: &Event) {
    if let Event::WeatherChanged { to, cause, .. } = event {
        state.weather.current = Some(*to);
        if *cause == WeatherCause::Start {
            state.weather.start_rolled = true;
        }
    }
}
