//! Optional rules: weather and night (catalogue §3.4 OPT-WEATHER-01..04, §3.5 OPT-NIGHT-01)
//! and morale grades (§3.11 OPT-MORALE-01/02), with the worked examples WE-16 and WE-17.
//!
//! Battles run through `Battle::perform` with scripted dice; every test asserts exact events,
//! numbers or the refusing rule.

use powderhorn::model::{Grade, MoraleGrade, Weather};
use powderhorn::rules::casualty::{
    resolve_attack, Attack, AttackOutcome, DiceGroup, MoraleRule, SaveSituation, TargetProfile,
};
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::dice::ScriptedDice;
use powderhorn::rules::event::{KnockOutCause, Modifier};
use powderhorn::rules::morale;
use powderhorn::rules::visibility::SightParams;
use powderhorn::rules::weather::{self, WeatherCause};
use powderhorn::rules::{Action, Battle, DiceSource, Event, Phase, PieceId};
use serde_json::json;

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{lists, u, Sc, AUS_LINE, FR_LINE};
use refuse::rule_of;

/// A two-sided Napoleonic scenario, HQs off table unless placed; 8 turns.
fn new_sc() -> Sc {
    Sc::nap()
        .named("opt-test", "Optional rules test")
        .turn_limit(8)
}

impl Sc {
    /// The battle in deployment with `dice` scripted.
    fn deployment(&self, dice: Vec<u8>) -> Battle {
        self.at_deployment(dice, OrdersMode::Free)
    }
}

fn start_roll(rolled: [u8; 2], from: Weather, to: Weather) -> Vec<Event> {
    vec![
        Event::DiceRolled {
            piece: None,
            purpose: "starting weather".into(),
            rule: "OPT-WEATHER-02".into(),
            dice: rolled.to_vec(),
            modifiers: Vec::new(),
        },
        Event::WeatherChanged {
            from,
            to,
            cause: WeatherCause::Start,
        },
    ]
}

fn change_roll(rolled: [u8; 2]) -> Event {
    Event::DiceRolled {
        piece: None,
        purpose: "weather change".into(),
        rule: "OPT-WEATHER-04".into(),
        dice: rolled.to_vec(),
        modifiers: Vec::new(),
    }
}

/// Ends phases until the game turn `turn` has ended; returns the events of the action that
/// ended it.
fn end_game_turn(b: &mut Battle, turn: u32) -> Vec<Event> {
    for _ in 0..20 {
        let ev = b
            .perform(Action::EndPhase)
            .expect("the phase ends")
            .to_vec();
        if ev
            .iter()
            .any(|e| matches!(e, Event::GameTurnEnded { game_turn } if *game_turn == turn))
        {
            return ev;
        }
    }
    panic!("game turn {turn} did not end");
}

fn weather_events(ev: &[Event]) -> Vec<Event> {
    ev.iter()
        .filter(|e| {
            matches!(e, Event::WeatherChanged { .. })
                || matches!(e, Event::DiceRolled { rule, .. } if rule.starts_with("OPT-WEATHER"))
        })
        .cloned()
        .collect()
}

fn effective(b: &Battle) -> Weather {
    weather::effective(b.scenario(), b.state())
}

fn command_mod(b: &Battle) -> Option<Modifier> {
    weather::command_modifier(&b.ctx())
}

fn m(rule: &str, label: &str, value: i32) -> Option<Modifier> {
    Some(Modifier {
        rule: rule.into(),
        label: label.into(),
        value,
    })
}

// --- weather ------------------------------------------------------------------------------------

#[test]
fn opt_weather_01_categories_and_their_effects() {
    // OPT-WEATHER-01/03: Normal / Poor / Extreme, each with its command modifier and sight limit.
    for (w, cmd, limit) in [
        (Weather::Normal, None, 100.0),
        (Weather::Poor, m("OPT-WEATHER-03", "poor weather", -1), 40.0),
        (
            Weather::Extreme,
            m("OPT-WEATHER-03", "extreme weather", -2),
            10.0,
        ),
    ] {
        let b = new_sc()
            .rules(&["weather"])
            .set("weather", json!(w))
            .deployment(vec![]);
        assert_eq!(effective(&b), w);
        assert_eq!(command_mod(&b), cmd, "{w:?}");
        assert_eq!(SightParams::of(&b.ctx()).limit_cm, limit, "{w:?}");
    }
    // Without the optional rule the scenario's weather has no effect.
    let b = new_sc().set("weather", json!("extreme")).deployment(vec![]);
    assert_eq!(effective(&b), Weather::Normal);
    assert_eq!(command_mod(&b), None);
    assert_eq!(SightParams::of(&b.ctx()).limit_cm, 100.0);
}

#[test]
fn opt_weather_02_starting_roll_thresholds() {
    for (rolled, to) in [
        ([4, 6], Weather::Poor),
        ([6, 6], Weather::Extreme),
        ([6, 5], Weather::Poor),
        ([4, 5], Weather::Normal),
        ([1, 1], Weather::Normal),
    ] {
        let mut b = new_sc().rules(&["weather"]).deployment(rolled.to_vec());
        let ev = b
            .perform(Action::RollStartingWeather)
            .expect("legal in deployment");
        assert_eq!(ev, start_roll(rolled, Weather::Normal, to).as_slice());
        assert_eq!(b.state().weather.current, Some(to));
        assert!(b.state().weather.start_rolled);
    }
}

#[test]
fn opt_weather_02_starting_roll_refusals() {
    // Not without the weather rule.
    let mut b = new_sc().rules(&["night"]).deployment(vec![4, 6]);
    assert_eq!(
        rule_of(b.perform(Action::RollStartingWeather)),
        "OPT-WEATHER-02"
    );
    // Only once.
    let mut b = new_sc().rules(&["weather"]).deployment(vec![4, 6, 6, 6]);
    b.perform(Action::RollStartingWeather).expect("first roll");
    assert_eq!(
        rule_of(b.perform(Action::RollStartingWeather)),
        "OPT-WEATHER-02"
    );
    assert_eq!(b.state().weather.current, Some(Weather::Poor));
    // Only before the game: not once the first player turn has begun.
    let mut b = new_sc().rules(&["weather"]).deployment(vec![4, 6]);
    b.perform(Action::EndPhase).expect("deployment ends");
    assert_eq!(b.state().turn.phase, Phase::Initiative);
    assert_eq!(
        rule_of(b.perform(Action::RollStartingWeather)),
        "OPT-WEATHER-02"
    );
    assert_eq!(b.state().weather.current, None);
}

#[test]
fn opt_weather_04_change_roll_after_second_players_end_phase() {
    // The roll comes with the game turn's end, after GameTurnEnded and before the next turn.
    let mut b = new_sc().rules(&["weather"]).deployment(vec![6, 6]);
    b.perform(Action::EndPhase).expect("deployment ends");
    let ev = end_game_turn(&mut b, 1);
    let at = ev
        .iter()
        .position(|e| matches!(e, Event::GameTurnEnded { game_turn: 1 }))
        .expect("the game turn ended");
    assert_eq!(ev[at + 1], change_roll([6, 6]));
    assert_eq!(
        ev[at + 2],
        Event::WeatherChanged {
            from: Weather::Normal,
            to: Weather::Poor,
            cause: WeatherCause::Change,
        }
    );
    // No dice are drawn at the end of the first player's turn (only after the second's), and
    // none at all without the weather rule.
    let mut b = new_sc().rules(&["night"]).deployment(vec![]);
    b.perform(Action::EndPhase).expect("deployment ends");
    let ev = end_game_turn(&mut b, 1);
    assert_eq!(weather_events(&ev), Vec::<Event>::new());
}

#[test]
fn opt_weather_04_current_weather_is_battle_state_replayed_from_events() {
    let mut b = new_sc().rules(&["weather"]).deployment(vec![4, 6, 6, 6]);
    b.perform(Action::RollStartingWeather).expect("start");
    b.perform(Action::EndPhase).expect("deployment ends");
    end_game_turn(&mut b, 1);
    assert_eq!(b.state().weather.current, Some(Weather::Extreme));
    // The scenario still says Normal: the state, not the scenario, carries the weather.
    assert_eq!(b.scenario().weather, Weather::Normal);
    assert_eq!(b.replay_events().weather, b.state().weather);
    // Undo the game turn's end: the weather goes back with it.
    assert!(b.undo());
    assert_eq!(b.state().weather.current, Some(Weather::Poor));
}

#[test]
fn we_16_weather_sequence() {
    // Starting roll [4, 6] = 10 → Poor; then end of turns 1..5: [6,6] Extreme, [3,3] no change,
    // [1,1] Poor, [1,1] Normal, [1,1] stays Normal.
    let mut b = new_sc()
        .rules(&["weather"])
        .deployment(vec![4, 6, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1]);
    let ev = b
        .perform(Action::RollStartingWeather)
        .expect("start")
        .to_vec();
    assert_eq!(ev, start_roll([4, 6], Weather::Normal, Weather::Poor));
    assert_eq!(effective(&b), Weather::Poor);
    assert_eq!(command_mod(&b), m("OPT-WEATHER-03", "poor weather", -1));
    assert_eq!(SightParams::of(&b.ctx()).limit_cm, 40.0);
    b.perform(Action::EndPhase).expect("deployment ends");

    let change = |from, to| Event::WeatherChanged {
        from,
        to,
        cause: WeatherCause::Change,
    };
    let expected: [(Vec<Event>, Weather, Option<Modifier>, f64); 5] = [
        (
            vec![change_roll([6, 6]), change(Weather::Poor, Weather::Extreme)],
            Weather::Extreme,
            m("OPT-WEATHER-03", "extreme weather", -2),
            10.0,
        ),
        (
            vec![change_roll([3, 3])],
            Weather::Extreme,
            m("OPT-WEATHER-03", "extreme weather", -2),
            10.0,
        ),
        (
            vec![change_roll([1, 1]), change(Weather::Extreme, Weather::Poor)],
            Weather::Poor,
            m("OPT-WEATHER-03", "poor weather", -1),
            40.0,
        ),
        (
            vec![change_roll([1, 1]), change(Weather::Poor, Weather::Normal)],
            Weather::Normal,
            None,
            100.0,
        ),
        (vec![change_roll([1, 1])], Weather::Normal, None, 100.0),
    ];
    for (turn, (events, w, cmd, limit)) in (1..).zip(expected) {
        let ev = end_game_turn(&mut b, turn);
        assert_eq!(weather_events(&ev), events, "end of turn {turn}");
        assert_eq!(effective(&b), w, "after turn {turn}");
        assert_eq!(command_mod(&b), cmd, "after turn {turn}");
        assert_eq!(
            SightParams::of(&b.ctx()).limit_cm,
            limit,
            "after turn {turn}"
        );
    }
    // [6, 6] while Extreme stays Extreme.
    assert_eq!(
        weather::changed_weather(Weather::Extreme, [6, 6]),
        Weather::Extreme
    );
}

#[test]
fn we_16_opt_night_01_night_never_better_than_poor() {
    // Night and weather on: the weather changes underneath; night holds it at Poor or worse.
    let mut b = new_sc()
        .rules(&["weather", "night"])
        .deployment(vec![1, 1, 6, 6, 6, 6]);
    b.perform(Action::RollStartingWeather).expect("start");
    assert_eq!(b.state().weather.current, Some(Weather::Normal));
    assert_eq!(effective(&b), Weather::Poor);
    assert_eq!(command_mod(&b), m("OPT-NIGHT-01", "night", -1));
    assert_eq!(SightParams::of(&b.ctx()).limit_cm, 40.0);
    b.perform(Action::EndPhase).expect("deployment ends");
    end_game_turn(&mut b, 1);
    // Underlying Poor: still −1 and 40 cm.
    assert_eq!(b.state().weather.current, Some(Weather::Poor));
    assert_eq!(effective(&b), Weather::Poor);
    assert_eq!(command_mod(&b).map(|m| m.value), Some(-1));
    end_game_turn(&mut b, 2);
    // Underlying Extreme is worse than night: −2 and 10 cm.
    assert_eq!(effective(&b), Weather::Extreme);
    assert_eq!(command_mod(&b), m("OPT-WEATHER-03", "extreme weather", -2));
    assert_eq!(SightParams::of(&b.ctx()).limit_cm, 10.0);
}

#[test]
fn opt_night_01_night_alone_cannot_change() {
    // Night without the weather rule: Poor for the whole battle, no weather rolls.
    let mut b = new_sc().rules(&["night"]).deployment(vec![]);
    assert_eq!(effective(&b), Weather::Poor);
    assert_eq!(command_mod(&b), m("OPT-NIGHT-01", "night", -1));
    assert_eq!(SightParams::of(&b.ctx()).limit_cm, 40.0);
    b.perform(Action::EndPhase).expect("deployment ends");
    let ev = end_game_turn(&mut b, 1);
    assert_eq!(weather_events(&ev), Vec::<Event>::new());
    assert_eq!(effective(&b), Weather::Poor);
    // A scenario set at night with the weather rule: night, Normal weather underneath.
    let b = new_sc()
        .rules(&["weather"])
        .set("weather", json!("night"))
        .deployment(vec![]);
    assert_eq!(
        weather::underlying(b.scenario(), b.state()),
        Weather::Normal
    );
    assert_eq!(effective(&b), Weather::Poor);
    assert_eq!(command_mod(&b), m("OPT-NIGHT-01", "night", -1));
}

// --- morale grades ------------------------------------------------------------------------------

/// A French 4-stand line 5.0 cm in front of an Austrian 5-stand line (T = u(1, 1)), in the
/// open (the duel of tests/engine_fire.rs).
fn duel(rules: &[&str]) -> Sc {
    new_sc()
        .rules(rules)
        .unit(1, 1, AUS_LINE, 5, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_LINE, 4, 100.0, 95.0, 0.0)
}

/// The duel at side 0's Command phase with `dice` scripted.
fn duel_battle(sc: &Sc, dice: Vec<u8>) -> Battle {
    let mut b = sc.deployment(dice);
    b.perform(Action::EndPhase).expect("deployment ends");
    b.perform(Action::EndPhase).expect("to the Command phase");
    assert_eq!(b.state().turn.phase, Phase::Command);
    b
}

fn suppression_mods(ev: &[Event]) -> Vec<(String, i32)> {
    ev.iter()
        .find_map(|e| match e {
            Event::DiceRolled {
                purpose, modifiers, ..
            } if purpose == "suppression" => Some(
                modifiers
                    .iter()
                    .map(|m| (m.rule.clone(), m.value))
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default()
}

fn grade_rule(g: MoraleGrade) -> MoraleRule {
    MoraleRule {
        suppress_on: g.suppressed_on(),
        rout_over_cm: g.knocked_out_over_cm(),
    }
}

/// WE-17's unit U in Soft cover (to hit 5+), no save, 15 hits to knock out.
fn u_profile(suppressed: bool) -> TargetProfile {
    TargetProfile {
        piece: u(1, 1),
        save: SaveSituation {
            save: None,
            replacement: None,
            flank_or_rear: false,
            formation: None,
            ranged: true,
        },
        hits_before: 0,
        ko_threshold: 15,
        suppressed,
        suppressed_by_this_order: false,
        grade: Grade::Regular,
        stays_put: false,
    }
}

/// Two dice at 5+ from one firer: [5, 6] score 2 hits on U.
fn two_hits(t: TargetProfile, morale: Option<MoraleRule>) -> Attack {
    Attack {
        target: t,
        groups: vec![DiceGroup {
            firers: vec![u(0, 1)],
            dice: 2,
            modifiers: vec![],
            needed: 5,
            first_fire: false,
            jams_on_double: false,
            purpose: "to hit".into(),
            rule: "FIRE-14".into(),
        }],
        away_from: Some(u(0, 1)),
        player_turn: 3,
        morale,
    }
}

fn run(a: &Attack, d: &[u8]) -> AttackOutcome {
    let mut dice = ScriptedDice::new(d.to_vec()).expect("dice are d6");
    let out = resolve_attack(a, &mut dice).expect("enough dice");
    assert!(dice.remaining().is_empty(), "every scripted die is used");
    out
}

#[test]
fn we_17_opt_morale_01_suppression_by_grade() {
    // U takes 2 hits ([5, 6] at 5+), suppression dice [4, 2].
    let d = [5, 6, 4, 2];
    let unmotivated = run(
        &two_hits(u_profile(false), Some(grade_rule(MoraleGrade::Unmotivated))),
        &d,
    );
    assert_eq!(unmotivated.hits, 2);
    assert!(unmotivated.suppressed, "Unmotivated: 4+ suppresses");
    assert_eq!(
        unmotivated.events.last(),
        Some(&Event::Suppressed {
            piece: u(1, 1),
            player_turn: 3
        })
    );
    assert_eq!(
        suppression_mods(&unmotivated.events),
        vec![("OPT-MORALE-01".to_string(), 4)]
    );
    // Standard rules need the score to hit (5): not suppressed; Regular 5+, Motivated 6: not.
    assert!(!run(&two_hits(u_profile(false), None), &d).suppressed);
    for g in [MoraleGrade::Regular, MoraleGrade::Motivated] {
        assert!(
            !run(&two_hits(u_profile(false), Some(grade_rule(g))), &d).suppressed,
            "{g:?}"
        );
    }
}

#[test]
fn we_17_opt_morale_01_fall_back_over_the_grade_distance_knocks_out() {
    // U, now suppressed, takes 2 hits; fall-back [3, 4] = 7 cm > 5: knocked out.
    let d = [5, 6, 3, 4];
    let out = run(
        &two_hits(u_profile(true), Some(grade_rule(MoraleGrade::Unmotivated))),
        &d,
    );
    assert!(out.knocked_out);
    assert_eq!(out.fall_back_cm, None);
    assert_eq!(
        out.events.last(),
        Some(&Event::UnitKnockedOut {
            piece: u(1, 1),
            cause: KnockOutCause::Rout { distance_cm: 7 }
        })
    );
    // Regular: 7 <= 10, falls back 7 cm. Standard rules: <= 20, falls back 7 cm.
    let regular = run(
        &two_hits(u_profile(true), Some(grade_rule(MoraleGrade::Regular))),
        &d,
    );
    assert!(!regular.knocked_out);
    assert_eq!(regular.fall_back_cm, Some(7));
    let standard = run(&two_hits(u_profile(true), None), &d);
    assert!(!standard.knocked_out);
    assert_eq!(standard.fall_back_cm, Some(7));
}

#[test]
fn we_17_opt_morale_01_points_adjustment() {
    // Line Infantry (08-12) unit of 5 = 275 points.
    assert_eq!(MoraleGrade::Unmotivated.adjust_points(275), 206);
    assert_eq!(MoraleGrade::Regular.adjust_points(275), 275);
    assert_eq!(MoraleGrade::Motivated.adjust_points(275), 344);
    // Halves round up: 2 × 0.75 = 1.5 → 2; 10 × 1.25 = 12.5 → 13.
    assert_eq!(MoraleGrade::Unmotivated.adjust_points(2), 2);
    assert_eq!(MoraleGrade::Motivated.adjust_points(10), 13);
}

#[test]
fn opt_morale_01_the_units_grade_flows_through_the_engine() {
    // The duel of engine_fire's fire_22 test: 1 hit on T, suppression die [4].
    let dice = vec![6, 1, 1, 1, 1, 1, 1, 4];
    // Unmotivated T: 4+ suppresses.
    let sc = duel(&["morale_grades"]).unit_field(1, 1, "morale_grade", json!("unmotivated"));
    let mut b = duel_battle(&sc, dice.clone());
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: None,
        })
        .expect("legal fire")
        .to_vec();
    assert_eq!(
        suppression_mods(&ev),
        vec![("OPT-MORALE-01".to_string(), 4)]
    );
    assert!(ev.contains(&Event::Suppressed {
        piece: u(1, 1),
        player_turn: 1
    }));
    // No grade declared: Regular, 5+: not suppressed.
    let mut b = duel_battle(&duel(&["morale_grades"]), dice.clone());
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: None,
        })
        .expect("legal fire")
        .to_vec();
    assert_eq!(
        suppression_mods(&ev),
        vec![("OPT-MORALE-01".to_string(), 5)]
    );
    assert!(!ev.iter().any(|e| matches!(e, Event::Suppressed { .. })));
    // The option off: the grade is ignored (the score to hit, FIRE-22).
    let sc = duel(&[]).unit_field(1, 1, "morale_grade", json!("unmotivated"));
    let b = duel_battle(&sc, vec![]);
    let t = b.state().piece(u(1, 1)).expect("T").clone();
    assert_eq!(morale::morale_rule(&b.ctx(), &t), None);
}

#[test]
fn we_17_opt_morale_02_grade_sets_the_charge_score() {
    // A Motivated unit is hit only on 6 in a charge, even in the open, with the sub-option on.
    let sc = duel(&["morale_grades", "morale_grades_in_charge"]).unit_field(
        1,
        1,
        "morale_grade",
        json!("motivated"),
    );
    let b = duel_battle(&sc, vec![]);
    let t = b.state().piece(u(1, 1)).expect("T").clone();
    let f = b.state().piece(u(0, 1)).expect("F").clone();
    assert_eq!(
        morale::charge_score(&b.ctx(), &t),
        Some((
            6,
            vec![Modifier {
                rule: "OPT-MORALE-02".into(),
                label: "hit on 6+: Motivated morale grade".into(),
                value: 6
            }]
        ))
    );
    // Chargers too: F has no grade, Regular, 5+.
    assert_eq!(
        morale::charge_score_of(&b.ctx(), &[u(0, 1)]).map(|s| s.0),
        Some(5)
    );
    assert_eq!(morale::charge_score(&b.ctx(), &f).map(|s| s.0), Some(5));
    // Without the sub-option, the cover-based score stands (no override).
    let sc = duel(&["morale_grades"]).unit_field(1, 1, "morale_grade", json!("motivated"));
    let b = duel_battle(&sc, vec![]);
    assert_eq!(morale::charge_score(&b.ctx(), &t), None);
}

#[test]
fn opt_weather_03_the_weather_of_the_moment_reaches_command_rolls_and_sight() {
    // Full orders. Starting roll [6, 6]: Extreme. The French unit 14 cm away is then out of
    // sight (10 cm), and the order roll carries −2.
    let sc = new_sc()
        .rules(&["weather"])
        .unit(0, 1, FR_LINE, 4, 100.0, 86.0, 0.0)
        .unit(1, 1, AUS_LINE, 5, 100.0, 100.0, 180.0);
    let mut sc = sc;
    sc.v["sides"][0]["hqs"][0]["position"] =
        json!({"at": {"x": 100.0, "y": 80.0}, "facing_deg": 0.0});
    let mut b = Battle::new(
        sc.scenario(),
        lists(),
        DiceSource::Script(vec![6, 6, 2, 3]),
        0,
    )
    .expect("sets up");
    b.perform(Action::RollStartingWeather).expect("start roll");
    assert_eq!(effective(&b), Weather::Extreme);
    b.perform(Action::EndPhase).expect("deployment ends");
    b.perform(Action::EndPhase).expect("to the Command phase");
    let ev = b
        .perform(Action::IssueOrder {
            command: PieceId::Hq {
                side: 0,
                hq: powderhorn::model::HqId(1),
            },
            units: vec![powderhorn::rules::command::OrderedUnit {
                piece: u(0, 1),
                action: powderhorn::rules::command::UnitActionKind::Fire,
                target: Some(u(1, 1)),
                road: false,
                dense: false,
            }],
        })
        .expect("the order is rolled")
        .to_vec();
    assert_eq!(
        ev.first(),
        Some(&Event::DiceRolled {
            piece: Some(PieceId::Hq {
                side: 0,
                hq: powderhorn::model::HqId(1),
            }),
            purpose: "command roll".into(),
            rule: "CMD-03".into(),
            dice: vec![2, 3],
            modifiers: m("OPT-WEATHER-03", "extreme weather", -2)
                .into_iter()
                .collect(),
        })
    );
    let fire = Action::Fire {
        firers: vec![u(0, 1)],
        target: u(1, 1),
        ammunition: None,
    };
    assert_eq!(rule_of(b.perform(fire)), "VIS-04");
}
