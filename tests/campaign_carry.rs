//! Linked campaigns (issue #19 item 8): one test per carry mechanism, each with its expected
//! values worked out by hand from the campaign's carry rules (docs/campaign.md, ours: BPTC has
//! no campaign rules) and the rules they cite; and a property test over random battles that
//! every unit and stand is accounted for exactly as the reports say.
//!
//! The battles are finished by hand: a battle at deployment gets one log entry whose events are
//! the battle's outcome (stands lost, knock-outs, the verdict), so each test says exactly what
//! happened in it.

#[path = "support/builder.rs"]
mod builder;

use builder::{h, lists, u, Sc, AUS_LINE, FR_LINE};
use powderhorn::campaign::{
    after_battle, forces_from, scenario_for_battle, tally, validate, ChangeKind, Forces, UnitStatus,
};
use powderhorn::model::{Campaign, DefenseId, Scenario, UnitId, Weather};
use powderhorn::rules::dice::{Dice, ScriptedDice, SeededDice};
use powderhorn::rules::event::{EndReason, KnockOutCause};
use powderhorn::rules::victory::{decide, DefenseLossCause, ObjectiveLevel, SideInput};
use powderhorn::rules::weather::WeatherCause;
use powderhorn::rules::{Action, Battle, DiceSource, Event, LogEntry};
use serde_json::{json, Value};

/// One day's scenario: French 101 (6 stands) and 102 (4) under HQ 1 "Brigade A" (command 7);
/// Austrian 201 and 202 (6 each) under HQ 2 "Brigade B" (command 7); an Austrian defence 5.
fn day(id: &str, name: &str) -> Sc {
    Sc::nap()
        .named(id, name)
        .side_names("French", "Austrian")
        .unit(0, 101, FR_LINE, 6, 60.0, 40.0, 0.0)
        .unit(0, 102, FR_LINE, 4, 140.0, 40.0, 0.0)
        .unit(1, 201, AUS_LINE, 6, 60.0, 140.0, 180.0)
        .unit(1, 202, AUS_LINE, 6, 140.0, 140.0, 180.0)
        .defense_id(1, 5, "stakes", &[(200.0, 120.0), (210.0, 120.0)], None)
}

fn days() -> Vec<Scenario> {
    vec![
        day("day1", "Day one").scenario(),
        day("day2", "Day two").scenario(),
        day("day3", "Day three").scenario(),
    ]
}

/// A three-battle campaign of [`days`], the links of days two and three given, and `extra`
/// fields merged in (rules, victory, carry switches).
fn campaign(link2: Value, link3: Value, extra: Value) -> Campaign {
    let mut v = json!({
        "id": "test-camp", "name": "Test campaign",
        "sides": [{"id": "fr", "name": "French"}, {"id": "au", "name": "Austrian"}],
        "battles": [
            {"scenario": "day1"},
            {"scenario": "day2", "link": link2},
            {"scenario": "day3", "link": link3}
        ]
    });
    if let (Some(m), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        for (k, x) in e {
            m.insert(k.clone(), x.clone());
        }
    }
    serde_json::from_value(v).expect("the test campaign parses")
}

fn next_day() -> Value {
    json!({"days_after": 0, "weather": "historical"})
}

fn inputs(a: ObjectiveLevel, b: ObjectiveLevel, vps: [i64; 2]) -> [SideInput; 2] {
    let s = |objective, vp_earned| SideInput {
        objective,
        withdrew: false,
        vp_earned,
        points_modifier: 1.0,
    };
    [s(a, vps[0]), s(b, vps[1])]
}

/// OBJ-01: French reach their major objective, Austrians none: a French decisive victory.
fn french_win() -> Option<[SideInput; 2]> {
    Some(inputs(ObjectiveLevel::Major, ObjectiveLevel::None, [0, 0]))
}

/// The battle on `s`, finished with `events` and then the verdict of `result`.
fn finish(s: &Scenario, mut events: Vec<Event>, result: Option<[SideInput; 2]>) -> Battle {
    let mut b = Battle::new(s.clone(), lists(), DiceSource::Script(vec![]), 0)
        .expect("the test battle sets up");
    if let Some(input) = result {
        let r = decide(input);
        events.push(Event::BattleEnded {
            reason: EndReason::TurnLimit,
            winner: r.winner,
        });
        events.push(Event::BattleResult(r));
    }
    b.push_entry(LogEntry {
        action: Action::EndPhase,
        events,
        dice_used: 0,
        hand_dice: None,
    });
    b
}

fn lost(side: usize, id: u32, n: u8, left: u8) -> Event {
    Event::StandsLost {
        piece: u(side, id),
        hits: u32::from(n) * 3,
        stands_lost: n,
        stands_left: left,
        engineer_lost: false,
    }
}

fn ko(side: usize, id: u32) -> Event {
    Event::UnitKnockedOut {
        piece: u(side, id),
        cause: KnockOutCause::Hits,
    }
}

fn hq_out(side: usize, id: u32) -> Event {
    Event::UnitKnockedOut {
        piece: h(side, id),
        cause: KnockOutCause::Overrun,
    }
}

fn dice(v: &[u8]) -> ScriptedDice {
    ScriptedDice::new(v.to_vec()).expect("dice")
}

fn stands(s: &Scenario, side: usize, id: u32) -> Option<u8> {
    s.sides
        .get(side)?
        .units
        .iter()
        .find(|x| x.id == UnitId(id))
        .map(|x| x.stands)
}

fn commander(s: &Scenario, side: usize, hq: u32) -> (String, u8) {
    let c = &s.sides[side]
        .hqs
        .iter()
        .find(|x| x.id.0 == hq)
        .expect("hq")
        .commander;
    (c.name.clone(), c.command_value)
}

/// Battle 1 played with `events` and `result`, then carried into battle 2: the forces after
/// battle 1, its report, and the carry (scenario, forces, report).
fn one_then_carry(
    c: &Campaign,
    events: Vec<Event>,
    result: Option<[SideInput; 2]>,
    d: &mut ScriptedDice,
) -> (
    Forces,
    powderhorn::campaign::CarryReport,
    powderhorn::campaign::Carried,
) {
    let sc = days();
    let f0 = forces_from(c, &sc).expect("the campaign plays");
    let c0 = scenario_for_battle(&f0, c, 0, &sc[0], d).expect("carry into battle 1");
    let b = finish(&c0.scenario, events, result);
    let (f1, out) = after_battle(&c0.forces, c, 0, &b, d).expect("after battle 1");
    let c1 = scenario_for_battle(&f1, c, 1, &sc[1], d).expect("carry into battle 2");
    (f1, out, c1)
}

fn no_recovery() -> Value {
    json!({"rules": {"recovery": {"winner": 0, "loser": 0, "draw": 0, "per_extra_day": 0, "cap": 0}}})
}

#[test]
fn losses_stay_lost_into_the_next_battle() {
    let c = campaign(next_day(), next_day(), no_recovery());
    let (f1, out, c1) = one_then_carry(
        &c,
        vec![lost(0, 101, 2, 4), lost(1, 201, 1, 5), lost(1, 201, 2, 3)],
        french_win(),
        &mut dice(&[]),
    );
    // 101: 6 − 2 = 4; 201: 6 − 1 − 2 = 3 (two End phases); 102 and 202 untouched.
    assert_eq!(f1.sides[0].unit(UnitId(101)).map(|x| x.stands), Some(4));
    assert_eq!(f1.sides[1].unit(UnitId(201)).map(|x| x.stands), Some(3));
    let ch: Vec<_> = out.about(ChangeKind::Stands, 0, 101).collect();
    assert_eq!(ch.len(), 1);
    assert_eq!((ch[0].from.count(), ch[0].to.count()), (Some(6), Some(4)));
    assert!(ch[0].why.contains("END-01"), "{}", ch[0].why);
    assert_eq!(stands(&c1.scenario, 0, 101), Some(4));
    assert_eq!(stands(&c1.scenario, 0, 102), Some(4));
    assert_eq!(stands(&c1.scenario, 1, 201), Some(3));
    assert_eq!(stands(&c1.scenario, 1, 202), Some(6));
    assert!(c1.report.of_kind(ChangeKind::Stands).next().is_none());
}

#[test]
fn recovery_by_nights_winner_a_third_loser_a_quarter_more_with_days_capped() {
    // French win. 101 lost 3 (6 → 3), 201 lost 4 (6 → 2).
    let events = || vec![lost(0, 101, 3, 3), lost(1, 201, 4, 2)];
    let cases = [
        // One night: winner 33% of 3 = 0.99 → 1 (to the nearest); loser 25% of 4 = 1.
        (0u32, 4u8, 3u8),
        // Four nights: winner 33 + 3×5 = 48% of 3 = 1.44 → 1; loser 25 + 15 = 40% of 4 = 1.6 → 2.
        (3, 4, 4),
        // Eleven nights: 33 + 50 = 83, capped at 50% of 3 = 1.5 → 2 (half up); 50% of 4 = 2.
        (10, 5, 4),
    ];
    for (days_after, fr, au) in cases {
        let link = json!({"days_after": days_after, "weather": "historical"});
        let c = campaign(link, next_day(), json!({}));
        let (_, _, c1) = one_then_carry(&c, events(), french_win(), &mut dice(&[]));
        assert_eq!(
            stands(&c1.scenario, 0, 101),
            Some(fr),
            "days_after {days_after}"
        );
        assert_eq!(
            stands(&c1.scenario, 1, 201),
            Some(au),
            "days_after {days_after}"
        );
        let r: Vec<_> = c1.report.about(ChangeKind::Stands, 0, 101).collect();
        assert_eq!(r.len(), 1);
        assert_eq!(
            (r[0].from.count(), r[0].to.count()),
            (Some(3), Some(i64::from(fr)))
        );
        assert!(r[0].why.contains("campaign rule"), "{}", r[0].why);
    }
}

#[test]
fn knocked_out_units_come_back_at_a_third_if_their_side_kept_the_field_else_are_gone() {
    let c = campaign(next_day(), next_day(), json!({}));
    // French win; French 101 (6) and Austrian 202 (6) knocked out.
    let (f1, out, c1) = one_then_carry(
        &c,
        vec![ko(0, 101), ko(1, 202)],
        french_win(),
        &mut dice(&[]),
    );
    assert_eq!(
        f1.sides[0].unit(UnitId(101)).map(|x| x.status),
        Some(UnitStatus::KnockedOut)
    );
    assert_eq!(out.about(ChangeKind::Unit, 0, 101).count(), 1);
    // The winner kept the field: 33% of 6 = 1.98 → 2 stands.
    assert_eq!(stands(&c1.scenario, 0, 101), Some(2));
    // The loser's is gone, and left out of day two.
    assert_eq!(stands(&c1.scenario, 1, 202), None);
    assert_eq!(
        c1.forces.sides[1].unit(UnitId(202)).map(|x| x.status),
        Some(UnitStatus::Gone)
    );
    let gone: Vec<_> = c1.report.about(ChangeKind::Unit, 1, 202).collect();
    assert_eq!(gone.len(), 2, "gone, then not fielded: {gone:?}");
    // And it stays out of day three.
    let sc = days();
    let b2 = finish(&c1.scenario, vec![], french_win());
    let (f2, _) = after_battle(&c1.forces, &c, 1, &b2, &mut dice(&[])).expect("after 2");
    let c2 = scenario_for_battle(&f2, &c, 2, &sc[2], &mut dice(&[])).expect("carry 3");
    assert_eq!(stands(&c2.scenario, 1, 202), None);
    // A 4-stand unit: 33% of 4 = 1.32 → 1.
    let (_, _, c1) = one_then_carry(&c, vec![ko(0, 102)], french_win(), &mut dice(&[]));
    assert_eq!(stands(&c1.scenario, 0, 102), Some(1));
}

#[test]
fn cmd_28_commander_killed_is_replaced_by_the_senior_officer_at_minus_one() {
    let c = campaign(next_day(), next_day(), json!({}));
    // The fate die 1: killed (1–2).
    let mut d = dice(&[1]);
    let (f1, out, c1) = one_then_carry(&c, vec![hq_out(0, 1)], french_win(), &mut d);
    assert_eq!(d.remaining(), &[] as &[u8]);
    let fate: Vec<_> = out.about(ChangeKind::Commander, 0, 1).collect();
    assert_eq!(fate.len(), 1);
    assert_eq!(fate[0].dice, vec![1]);
    assert_eq!(fate[0].to.to_string(), "killed");
    assert!(f1.sides[0].commander(powderhorn::model::HqId(1)).is_some());
    assert_eq!(
        commander(&c1.scenario, 0, 1),
        ("the senior officer of Brigade A".to_string(), 6)
    );
    // Captured (3) with a named replacement: his name, at 7 − 1.
    let named = json!({"rules": {"commanders": {"killed_up_to": 2, "captured_up_to": 3,
        "wounded_out_for": 1, "replacement_penalty": 1,
        "replacements": [{"side": 0, "hq": 1, "name": "Colonel Roux"}]}}});
    let c = campaign(next_day(), next_day(), named);
    let (_, out, c1) = one_then_carry(&c, vec![hq_out(0, 1)], french_win(), &mut dice(&[3]));
    assert_eq!(out.changes[0].to.to_string(), "captured");
    assert_eq!(
        commander(&c1.scenario, 0, 1),
        ("Colonel Roux".to_string(), 6)
    );
    // The replacement stays for day three.
    let sc = days();
    let b2 = finish(&c1.scenario, vec![], french_win());
    let (f2, _) = after_battle(&c1.forces, &c, 1, &b2, &mut dice(&[])).expect("after 2");
    let c2 = scenario_for_battle(&f2, &c, 2, &sc[2], &mut dice(&[])).expect("carry 3");
    assert_eq!(
        commander(&c2.scenario, 1 - 1, 1),
        ("Colonel Roux".to_string(), 6)
    );
}

#[test]
fn cmd_28_wounded_commander_misses_one_battle_then_returns() {
    let c = campaign(next_day(), next_day(), json!({}));
    // The fate die 5: wounded (4–6), out for 1 battle.
    let (_, _, c1) = one_then_carry(&c, vec![hq_out(1, 2)], french_win(), &mut dice(&[5]));
    assert_eq!(
        commander(&c1.scenario, 1, 2),
        ("the senior officer of Brigade B".to_string(), 6)
    );
    let sc = days();
    let b2 = finish(&c1.scenario, vec![], french_win());
    let (f2, _) = after_battle(&c1.forces, &c, 1, &b2, &mut dice(&[])).expect("after 2");
    let c2 = scenario_for_battle(&f2, &c, 2, &sc[2], &mut dice(&[])).expect("carry 3");
    assert_eq!(commander(&c2.scenario, 1, 2), ("Brigade B".to_string(), 7));
    let back: Vec<_> = c2.report.about(ChangeKind::Commander, 1, 2).collect();
    assert_eq!(back.len(), 1);
    assert!(
        back[0].why.contains("back from his wound"),
        "{}",
        back[0].why
    );
}

fn weather_to(to: Weather) -> Event {
    Event::WeatherChanged {
        from: Weather::Normal,
        to,
        cause: WeatherCause::Change,
    }
}

#[test]
fn opt_weather_04_continue_starts_from_the_end_weather_then_one_change_roll() {
    let link = json!({"days_after": 0, "weather": "continue"});
    let c = campaign(link, next_day(), json!({}));
    // Day one ends Poor; double six: one step worse, Extreme.
    let mut d = dice(&[6, 6]);
    let (f1, _, c1) = one_then_carry(&c, vec![weather_to(Weather::Poor)], french_win(), &mut d);
    assert_eq!(f1.weather, Some(Weather::Poor));
    assert_eq!(c1.scenario.weather, Weather::Extreme);
    let w: Vec<_> = c1.report.of_kind(ChangeKind::Weather).collect();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].dice, vec![6, 6]);
    assert_eq!(
        (w[0].from.to_string(), w[0].to.to_string()),
        ("Poor".into(), "Extreme".into())
    );
    // 3 and 4: no change, Poor stands.
    let (_, _, c1) = one_then_carry(
        &c,
        vec![weather_to(Weather::Poor)],
        french_win(),
        &mut dice(&[3, 4]),
    );
    assert_eq!(c1.scenario.weather, Weather::Poor);
    // Double one from Poor: one step better, Normal.
    let (_, _, c1) = one_then_carry(
        &c,
        vec![weather_to(Weather::Poor)],
        french_win(),
        &mut dice(&[1, 1]),
    );
    assert_eq!(c1.scenario.weather, Weather::Normal);
}

#[test]
fn opt_weather_02_afresh_rolls_the_starting_weather() {
    let link = json!({"days_after": 5, "weather": "afresh"});
    let c = campaign(link, next_day(), json!({}));
    // 2D6: 12 Extreme, 10–11 Poor, 2–9 Normal.
    for (d, w) in [
        ([6u8, 6u8], Weather::Extreme),
        ([5, 6], Weather::Poor),
        ([4, 6], Weather::Poor),
        ([4, 5], Weather::Normal),
        ([1, 1], Weather::Normal),
    ] {
        let (_, _, c1) = one_then_carry(
            &c,
            vec![weather_to(Weather::Extreme)],
            french_win(),
            &mut dice(&d),
        );
        assert_eq!(c1.scenario.weather, w, "dice {d:?}");
        assert_eq!(c1.report.dice(), d.to_vec());
    }
}

#[test]
fn historical_weather_stands_and_rolls_no_dice() {
    let c = campaign(next_day(), next_day(), json!({}));
    let mut sc = days();
    sc[1].weather = Weather::Poor;
    let f0 = forces_from(&c, &sc).expect("plays");
    let mut d = dice(&[6, 6]);
    let c0 = scenario_for_battle(&f0, &c, 0, &sc[0], &mut d).expect("carry 1");
    let b = finish(
        &c0.scenario,
        vec![weather_to(Weather::Extreme)],
        french_win(),
    );
    let (f1, _) = after_battle(&c0.forces, &c, 0, &b, &mut d).expect("after 1");
    let c1 = scenario_for_battle(&f1, &c, 1, &sc[1], &mut d).expect("carry 2");
    assert_eq!(c1.scenario.weather, Weather::Poor);
    assert_eq!(d.remaining(), &[6, 6]);
    let w: Vec<_> = c1.report.of_kind(ChangeKind::Weather).collect();
    assert_eq!(
        (w[0].from.to_string(), w[0].to.to_string()),
        ("Extreme".into(), "Poor".into())
    );
}

#[test]
fn vp_01_vps_and_results_go_into_the_tally() {
    let c = campaign(next_day(), next_day(), json!({}));
    // No objectives: a draw on OBJ-01; VP-03: 120 is at least twice 40, so the French result
    // goes up one step, to a minor victory.
    let r = Some(inputs(
        ObjectiveLevel::None,
        ObjectiveLevel::None,
        [120, 40],
    ));
    let (f1, out, _) = one_then_carry(&c, vec![], r, &mut dice(&[]));
    assert_eq!((f1.sides[0].vps, f1.sides[1].vps), (120, 40));
    assert_eq!(out.of_kind(ChangeKind::Vps).count(), 2);
    let rec = &f1.battles[0];
    assert_eq!(rec.winner, Some(0));
    assert_eq!(rec.category, "Minor Victory");
    assert!(!rec.decisive);
    assert_eq!(rec.vps, vec![120, 40]);
    let t = tally(&c, &f1);
    assert_eq!(t.vps, vec![120, 40]);
    assert_eq!(t.wins, vec![1, 0]);
    assert_eq!(t.leader, Some(0));
    // Decisive victories counted double: an Austrian decisive win (2) beats one French minor (1).
    let dd = campaign(
        next_day(),
        next_day(),
        json!({"victory": {"kind": "decisive_double"}}),
    );
    let mut f = f1.clone();
    f.battles.push(powderhorn::campaign::BattleRecord {
        scenario: "day2".into(),
        name: "Day two".into(),
        winner: Some(1),
        category: "Decisive Victory".into(),
        decisive: true,
        vps: vec![0, 10],
    });
    assert_eq!(tally(&dd, &f).leader, Some(1));
    assert_eq!(
        tally(&c, &f).leader,
        Some(0),
        "most VPs: the sides' running totals"
    );
    // The objective held at the end: the last decided battle's winner holds it.
    let held = campaign(
        next_day(),
        next_day(),
        json!({"victory": {"kind": "objective_held_at_end", "objective": "Vienna", "holder": 1}}),
    );
    assert_eq!(tally(&held, &f1).leader, Some(0));
    assert_eq!(tally(&held, &f).leader, Some(1));
}

fn defence_out() -> Event {
    Event::DefenseKnockedOut {
        side: 1,
        defense: DefenseId(5),
        cause: DefenseLossCause::Referee,
    }
}

#[test]
fn def_06_defences_lost_stay_lost_only_on_the_same_ground() {
    let same = json!({"days_after": 0, "weather": "historical", "same_ground": true});
    let c = campaign(same, next_day(), json!({}));
    let (f1, _, c1) = one_then_carry(&c, vec![defence_out()], french_win(), &mut dice(&[]));
    assert_eq!(f1.defences_lost, vec![(1, DefenseId(5))]);
    assert!(c1.scenario.sides[1].field_defenses.is_empty());
    assert_eq!(c1.report.about(ChangeKind::Defence, 1, 5).count(), 1);
    // Other ground: the scenario's own defence stands.
    let c = campaign(next_day(), next_day(), json!({}));
    let (_, _, c1) = one_then_carry(&c, vec![defence_out()], french_win(), &mut dice(&[]));
    assert_eq!(c1.scenario.sides[1].field_defenses.len(), 1);
    let r: Vec<_> = c1.report.about(ChangeKind::Defence, 1, 5).collect();
    assert_eq!(r[0].to.to_string(), "not carried");
}

#[test]
fn suppression_disorder_and_hits_never_carry() {
    let c = campaign(next_day(), next_day(), json!({}));
    let events = vec![
        Event::HitsTaken {
            piece: u(0, 101),
            hits: 2,
            total: 2,
        },
        Event::Suppressed {
            piece: u(0, 101),
            player_turn: 1,
        },
        Event::Disordered {
            piece: u(1, 201),
            until: 9,
            exhausted: true,
        },
    ];
    let (_, out, c1) = one_then_carry(&c, events, french_win(), &mut dice(&[]));
    assert!(out.of_kind(ChangeKind::Stands).next().is_none());
    assert!(out.of_kind(ChangeKind::Unit).next().is_none());
    assert_eq!(c1.scenario.sides, days()[1].sides, "day two as written");
    let b =
        Battle::new(c1.scenario.clone(), lists(), DiceSource::Script(vec![]), 0).expect("sets up");
    for id in [u(0, 101), u(1, 201)] {
        let p = b.state().pieces.get(&id).expect("piece");
        assert_eq!(
            (p.hits, p.suppressed_at, p.disordered_until),
            (0, None, None)
        );
    }
}

#[test]
fn a_battle_maps_its_sides_to_the_campaigns() {
    // Day two has the Austrians as its first side.
    let mut c = campaign(next_day(), next_day(), json!({}));
    c.battles[1].sides = vec![1, 0];
    let mut sc = days();
    sc[1].sides.swap(0, 1);
    let f0 = forces_from(&c, &sc).expect("plays");
    assert_eq!(f0.sides[0].units.len(), 2);
    let mut d = dice(&[]);
    let c0 = scenario_for_battle(&f0, &c, 0, &sc[0], &mut d).expect("carry 1");
    let b = finish(&c0.scenario, vec![lost(1, 201, 2, 4)], french_win());
    let (f1, _) = after_battle(&c0.forces, &c, 0, &b, &mut d).expect("after 1");
    let c1 = scenario_for_battle(&f1, &c, 1, &sc[1], &mut d).expect("carry 2");
    // Austrian 201: 6 − 2 = 4, then the loser's 25% of 2 = 0.5 → 1: 5, in scenario side 0.
    assert_eq!(stands(&c1.scenario, 0, 201), Some(5));
    let b2 = finish(&c1.scenario, vec![lost(0, 201, 1, 4)], None);
    let (f2, out) = after_battle(&c1.forces, &c, 1, &b2, &mut d).expect("after 2");
    assert_eq!(f2.sides[1].unit(UnitId(201)).map(|x| x.stands), Some(4));
    assert_eq!(out.changes[0].side, Some(1));
}

#[test]
fn validation_reports_a_unit_id_with_two_troop_types_on_one_side() {
    let c = campaign(next_day(), next_day(), json!({}));
    let mut sc = days();
    sc[2].sides[0].units[0].troop_type = powderhorn::model::TroopTypeId::new("light-infantry");
    let p = validate(&c, &sc);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0].battle, Some(2));
    assert!(p[0].message.contains("unit 101"), "{}", p[0].message);
    assert!(forces_from(&c, &sc).is_err());
    // A scenario missing is reported too.
    let p = validate(&c, &sc[..2]);
    assert!(p.iter().any(|x| x.message.contains("day3")), "{p:?}");
}

/// Every unit's stands after a step are its stands before plus the report's change for it, and
/// no unit appears or vanishes, over random battles.
#[test]
fn property_every_unit_and_stand_is_accounted_for_by_the_reports() {
    let mut checked_units = 0usize;
    let mut battles = 0usize;
    let mut with_change = 0usize;
    for seed in 0..120u64 {
        let mut r = SeededDice::new(seed);
        let mut roll = || r.d6("test").unwrap_or(1);
        let link = json!({"days_after": u32::from(roll()) - 1, "weather": "continue", "same_ground": roll() > 3});
        let c = campaign(link.clone(), link, json!({}));
        let sc = days();
        let mut f = forces_from(&c, &sc).expect("plays");
        let mut d = SeededDice::new(seed ^ 0xABCD);
        for (i, s) in sc.iter().enumerate() {
            let carried = scenario_for_battle(&f, &c, i, s, &mut d).expect("carry");
            check_step(
                &f,
                &carried.forces,
                &carried.report,
                &mut checked_units,
                &mut with_change,
            );
            // The scenario fields exactly the ready units, at their campaign stands.
            for (k, side) in carried.scenario.sides.iter().enumerate() {
                for x in &side.units {
                    let fu = carried.forces.sides[k].unit(x.id).expect("known unit");
                    assert_eq!((fu.status, fu.stands), (UnitStatus::Ready, x.stands));
                }
            }
            let mut events = Vec::new();
            for (k, side) in carried.scenario.sides.iter().enumerate() {
                for x in &side.units {
                    let mut left = x.stands;
                    match roll() {
                        1 => events.push(ko(k, x.id.0)),
                        2..=4 => {
                            let n = (roll() % 3).min(left);
                            if n > 0 {
                                left -= n;
                                events.push(lost(k, x.id.0, n, left));
                            }
                        }
                        _ => {}
                    }
                }
                if roll() == 6 {
                    events.push(hq_out(k, side.hqs[0].id.0));
                }
            }
            let obj = |v: u8| match v {
                1 | 2 => ObjectiveLevel::None,
                3 | 4 => ObjectiveLevel::Minor,
                _ => ObjectiveLevel::Major,
            };
            let result = inputs(
                obj(roll()),
                obj(roll()),
                [i64::from(roll()) * 10, i64::from(roll()) * 10],
            );
            let b = finish(&carried.scenario, events, Some(result));
            let (next, out) = after_battle(&carried.forces, &c, i, &b, &mut d).expect("after");
            check_step(
                &carried.forces,
                &next,
                &out,
                &mut checked_units,
                &mut with_change,
            );
            f = next;
            battles += 1;
        }
    }
    assert_eq!(battles, 360);
    assert!(checked_units >= 2_500, "checked {checked_units} unit steps");
    assert!(with_change >= 300, "only {with_change} unit steps changed");
}

fn check_step(
    before: &Forces,
    after: &Forces,
    report: &powderhorn::campaign::CarryReport,
    checked: &mut usize,
    changed: &mut usize,
) {
    assert_eq!(before.sides.len(), after.sides.len());
    for (c, (a, b)) in before.sides.iter().zip(&after.sides).enumerate() {
        let ids =
            |s: &powderhorn::campaign::SideForces| s.units.iter().map(|x| x.id).collect::<Vec<_>>();
        assert_eq!(ids(a), ids(b), "no unit appears or vanishes");
        for (x, y) in a.units.iter().zip(&b.units) {
            let mut stands = i64::from(x.stands);
            for ch in report
                .changes
                .iter()
                .filter(|ch| ch.side == Some(c) && ch.id == Some(x.id.0))
                .filter(|ch| matches!(ch.kind, ChangeKind::Stands | ChangeKind::Unit))
            {
                let from = ch.from.count().unwrap_or(0);
                let to = ch.to.count().unwrap_or(0);
                assert_eq!(from, stands, "{ch:?} starts where the unit stood");
                stands = to;
            }
            assert_eq!(stands, i64::from(y.stands), "unit {} of side {c}", x.id);
            if y.stands != x.stands {
                *changed += 1;
            }
            *checked += 1;
        }
    }
}
