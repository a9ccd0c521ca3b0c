//! Unit tests of the carry's arithmetic; the mechanisms end to end are in
//! `tests/campaign_carry.rs`.

use super::after::fate_of;
use super::carry::share_of;
use super::*;
use crate::model::{CarryRules, CommanderRule, RecoveryRule};
use crate::rules::dice::Dice;

#[test]
fn recovery_share_by_result_and_nights_is_capped() {
    let r = RecoveryRule::default();
    // Winner 33, loser 25, draw 25 after one night; +5 a further day; at most 50.
    assert_eq!(r.share(Some(true), 1), 33);
    assert_eq!(r.share(Some(false), 1), 25);
    assert_eq!(r.share(None, 1), 25);
    assert_eq!(r.share(Some(true), 2), 38);
    assert_eq!(r.share(Some(false), 6), 50);
    assert_eq!(r.share(Some(true), 40), 50);
    assert_eq!(r.share(Some(true), 0), 0);
}

#[test]
fn shares_round_to_the_nearest_stand_half_up() {
    assert_eq!(share_of(3, 33), 1); // 0.99
    assert_eq!(share_of(1, 33), 0); // 0.33
    assert_eq!(share_of(2, 25), 1); // 0.5
    assert_eq!(share_of(3, 50), 2); // 1.5
    assert_eq!(share_of(6, 33), 2); // 1.98
    assert_eq!(share_of(255, 100), 255);
}

#[test]
fn fate_die_killed_captured_wounded() {
    let r = CommanderRule::default();
    let fates: Vec<Fate> = (1..=6).map(|d| fate_of(&r, d)).collect();
    assert_eq!(
        fates,
        [
            Fate::Killed,
            Fate::Killed,
            Fate::Captured,
            Fate::Wounded,
            Fate::Wounded,
            Fate::Wounded
        ]
    );
}

#[test]
fn the_rules_in_words_say_they_are_ours_and_give_the_numbers() {
    let lines = CarryRules::default().describe();
    assert!(lines[0].contains("Powderhorn's own"));
    let all = lines.join(" ");
    for n in ["33%", "25%", "50%", "1–2 killed", "CMD-28"] {
        assert!(all.contains(n), "{n} in {all}");
    }
}

#[test]
fn battle_and_carry_dice_are_deterministic_and_apart() {
    assert_eq!(battle_seed(1, 0), battle_seed(1, 0));
    assert_ne!(battle_seed(1, 0), battle_seed(1, 1));
    assert_ne!(battle_seed(1, 0), battle_seed(2, 0));
    let roll = |mut d: crate::rules::dice::SeededDice| -> Vec<u8> {
        (0..8).map(|_| d.d6("t").unwrap_or(0)).collect()
    };
    assert_eq!(roll(carry_dice(5, 1)), roll(carry_dice(5, 1)));
    assert_ne!(roll(carry_dice(5, 1)), roll(carry_dice(5, 2)));
}

#[test]
fn a_change_reads_as_one_line_with_its_dice() {
    let c = Change {
        kind: ChangeKind::Weather,
        side: None,
        id: None,
        name: String::new(),
        from: CarryValue::text("Poor"),
        to: CarryValue::text("Extreme"),
        why: "a change roll".into(),
        dice: vec![6, 6],
    };
    assert_eq!(
        c.line(&[]),
        "weather: Poor → Extreme: a change roll [dice 6 6]"
    );
    let json = serde_json::to_value(&c).unwrap_or_default();
    assert_eq!(json["kind"], "weather");
    assert_eq!(json["side"], serde_json::Value::Null);
}

#[test]
fn an_old_campaign_file_still_reads_with_the_defaults() {
    let old = r#"{"id": "x", "name": "X", "battles": [{"scenario": "s", "note": "n"}],
                  "carry_over": {"losses": true, "commander_casualties": true,
                                 "victory_points": true, "weather": false}}"#;
    let c: crate::model::Campaign = serde_json::from_str(old).unwrap_or_else(|e| panic!("{e}"));
    assert!(c.sides.is_empty());
    assert_eq!(c.rules, CarryRules::default());
    assert_eq!(c.battles[0].link, crate::model::BattleLink::default());
    assert_eq!(c.battles[0].campaign_side(1), 1);
}
