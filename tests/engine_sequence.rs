//! The sequence of play (SEQ-01..03, SEQ-05), representation scales (GEN-03..07) and the army-list
//! columns as data (COL-01..11, ARMY-13, ARMY-15), checked through the engine and the shipped lists.

use powderhorn::model::army::*;
use powderhorn::model::points::unit_points;
use powderhorn::model::validate::validate_scenario;
use powderhorn::model::*;
use powderhorn::rules::event::Event;
use powderhorn::rules::{Action, Battle, DiceSource, Phase};

fn lists() -> Vec<ArmyList> {
    shipped_lists().expect("shipped lists")
}

fn list(id: &str) -> ArmyList {
    lists().into_iter().find(|l| l.id.as_str() == id).expect(id)
}

fn row<'a>(l: &'a ArmyList, name: &str) -> &'a TroopType {
    l.troop_types
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name}"))
}

fn sample_battle(first: usize) -> Battle {
    let s = samples::scenarios().expect("sample")[0].clone();
    Battle::new(s, lists(), DiceSource::Seed(1), first).expect("setup")
}

#[test]
fn seq_01_deployment_then_the_chosen_first_player_begins() {
    for first in [0, 1] {
        let mut b = sample_battle(first);
        assert_eq!(b.state().turn.phase, Phase::Deployment);
        assert_eq!(b.state().turn.game_turn, 0);
        let ev = b.perform(Action::EndPhase).unwrap().to_vec();
        assert_eq!(
            ev,
            vec![
                Event::PhaseEnded {
                    phase: Phase::Deployment
                },
                Event::TurnBegan {
                    game_turn: 1,
                    player_turn: 1,
                    active: first
                },
                Event::PhaseBegan {
                    phase: Phase::Initiative
                },
            ]
        );
    }
}

#[test]
fn seq_02_player_turns_alternate_and_two_make_a_game_turn() {
    let mut b = sample_battle(1);
    b.perform(Action::EndPhase).unwrap();
    let mut seen = Vec::new();
    for _ in 0..16 {
        b.perform(Action::EndPhase).unwrap();
        let t = b.state().turn;
        if t.phase == Phase::Initiative {
            seen.push((t.game_turn, t.player_turn, t.active));
        }
    }
    assert_eq!(seen, vec![(1, 2, 0), (2, 3, 1), (2, 4, 0), (3, 5, 1)]);
    assert!(b
        .events()
        .any(|e| matches!(e, Event::GameTurnEnded { game_turn: 1 })));
}

#[test]
fn seq_03_four_phases_in_order() {
    let mut b = sample_battle(0);
    b.perform(Action::EndPhase).unwrap();
    let mut phases = vec![b.state().turn.phase];
    for _ in 0..4 {
        b.perform(Action::EndPhase).unwrap();
        phases.push(b.state().turn.phase);
    }
    assert_eq!(
        phases,
        vec![
            Phase::Initiative,
            Phase::Command,
            Phase::Charge,
            Phase::End,
            Phase::Initiative
        ]
    );
    assert_eq!(b.state().turn.active, 1);
}

#[test]
fn seq_05_end_03_turn_limit_ends_the_battle_after_the_second_players_end_phase() {
    let mut s = samples::scenarios().expect("sample")[0].clone();
    s.turn_limit = 1;
    let mut b = Battle::new(s, lists(), DiceSource::Seed(1), 0).unwrap();
    for _ in 0..9 {
        b.perform(Action::EndPhase).unwrap();
    }
    assert_eq!(b.state().turn.phase, Phase::Over);
    assert!(
        b.perform(Action::EndPhase).is_err(),
        "nothing after the end"
    );
}

#[test]
fn gen_03_gen_04_gen_05_gen_06_gen_07_range_scale_by_representation() {
    assert_eq!(Scale::Company.range_factor(), 2.0);
    assert_eq!(Scale::Battalion.range_factor(), 1.0);
    assert_eq!(Scale::Brigade.range_factor(), 0.5);
    assert_eq!(
        Scale::default(),
        Scale::Battalion,
        "GEN-05: the lists are written at battalion scale"
    );
    assert!(list("nap-french").ranges_scale);
    assert!(
        !list("colonial").ranges_scale,
        "§5.5: Colonial ranges are never scaled"
    );
}

#[test]
fn col_01_troop_stand_labels_keep_their_years() {
    let f = list("nap-french");
    let r = row(&f, "Line Infantry (05-07)");
    assert_eq!(
        r.years,
        Some(Years {
            from: 1805,
            to: Some(1807)
        })
    );
    assert!(r.years.unwrap().contains(1806) && !r.years.unwrap().contains(1809));
}

#[test]
fn col_03_move_column_forms() {
    let u = list("acw-union");
    assert_eq!(
        row(&u, "Rifled Cannon").movement,
        Move::Gun {
            manhandle: 3,
            prolonge: 10
        }
    );
    assert_eq!(
        row(&u, "Limbered Artillery").movement,
        Move::Limber {
            foot: 15,
            horse: 30
        }
    );
    assert_eq!(row(&u, "Mortar").movement, Move::Immobile);
    assert!(u.command_types.iter().all(|c| c.movement
        == Move::Command {
            dismounted: 10,
            mounted: 30
        }));
}

#[test]
fn col_05_col_06_hits_per_stand_and_save_notation() {
    let u = list("acw-union");
    let inf = row(&u, "Regular Infantry Rifled/Breech Loading Musket");
    assert_eq!((inf.hits, inf.save), (3, None), "\"None\" is no save");
    let army_ex = u
        .command_type(CommandLevel::Army, Quality::Exceptional)
        .unwrap();
    assert_eq!(army_ex.save.map(Save::target), Some(5), "\"5, 6\" reads 5+");
    let brigade = u
        .command_type(CommandLevel::Brigade, Quality::Average)
        .unwrap();
    assert_eq!(brigade.save.map(Save::target), Some(6), "\"+6\" reads 6+");
}

#[test]
fn col_08_limit_column_as_data() {
    let u = list("acw-union");
    assert_eq!(
        row(&u, "Regular Infantry Rifled/Breech Loading Musket").limit,
        Some(Limit {
            min: Some(4),
            max: None
        })
    );
    let b = u
        .command_type(CommandLevel::Brigade, Quality::Average)
        .unwrap();
    assert_eq!(b.limit, HqLimit::PerInfantry { units: 3 });
    let a = u
        .command_type(CommandLevel::Army, Quality::Average)
        .unwrap();
    assert_eq!(a.limit, HqLimit::One);
    let f = list("nap-french");
    assert_eq!(
        f.command_type(CommandLevel::Corps, Quality::Average)
            .unwrap()
            .limit,
        HqLimit::Nation
    );
}

#[test]
fn col_10_every_three_grade_chart_follows_the_common_pattern() {
    for l in lists().iter().filter(|l| l.period != Period::Colonial) {
        assert_eq!(l.command_types.len(), 12, "{}", l.name);
        for (level, values, presence, points) in [
            (CommandLevel::Brigade, [6, 7, 8], [0, 1, 2], [30, 55, 90]),
            (CommandLevel::Division, [7, 8, 9], [0, 1, 2], [35, 60, 95]),
            (CommandLevel::Corps, [8, 9, 10], [1, 1, 2], [45, 80, 110]),
            (CommandLevel::Army, [9, 10, 11], [1, 2, 3], [100, 125, 170]),
        ] {
            for (i, q) in [Quality::Uninspiring, Quality::Average, Quality::Exceptional]
                .into_iter()
                .enumerate()
            {
                let c = l
                    .command_type(level, q)
                    .unwrap_or_else(|| panic!("{} {level:?} {q:?}", l.name));
                assert_eq!(
                    (c.command, c.presence_dice, c.points),
                    (values[i], presence[i], points[i]),
                    "{} {level:?} {q:?}",
                    l.name
                );
            }
        }
    }
}

#[test]
fn col_11_the_charts_govern_not_the_illustrative_stat_line() {
    let u = list("acw-union");
    let r = row(&u, "Regular Infantry Rifled/Breech Loading Musket");
    assert_eq!(
        (r.hits, r.points),
        (3, Some(60)),
        "the example line's Hits 2, 30 points are illustrative"
    );
    assert_eq!(
        u.command_type(CommandLevel::Brigade, Quality::Uninspiring)
            .unwrap()
            .command,
        6
    );
}

#[test]
fn army_15_cost_adjustments_elite_poor_and_horse_artillery() {
    let u = list("acw-union");
    let inf = row(&u, "Regular Infantry Rifled/Breech Loading Musket")
        .id
        .clone();
    let gun = row(&u, "Rifled Cannon").id.clone();
    let mk = |troop: &TroopTypeId, stands: u8, grade: Grade, horse: bool| Unit {
        id: UnitId(1),
        name: "x".into(),
        troop_type: troop.clone(),
        stands,
        hq: HqId(1),
        grade,
        engineer_attached: false,
        brigade_skirmishers: false,
        regimental_guns: false,
        lancers: false,
        horse_artillery: horse,
        pikes: false,
        position: None,
        morale_grade: None,
        nation: None,
    };
    assert_eq!(unit_points(&mk(&inf, 5, Grade::Regular, false), &u), 300);
    assert_eq!(unit_points(&mk(&inf, 5, Grade::Elite, false), &u), 325);
    assert_eq!(unit_points(&mk(&inf, 5, Grade::Poor, false), &u), 275);
    assert_eq!(unit_points(&mk(&gun, 1, Grade::Regular, true), &u), 95);
}

#[test]
fn army_13_fpw_french_mitrailleuse_one_stand_per_four_gun_stands() {
    let mut s = samples::scenarios().expect("sample")[0].clone();
    let f = list("fpw-french");
    let mitr = f
        .troop_types
        .iter()
        .find(|t| t.name.to_ascii_lowercase().contains("illailleuse"))
        .expect("mitrailleuse row")
        .id
        .clone();
    s.sides[0].army_list = f.id.clone();
    let hq = s.sides[0].hqs[0].id;
    let template = s.sides[0].units[0].clone();
    s.sides[0].units = vec![Unit {
        id: UnitId(900),
        troop_type: mitr,
        stands: 1,
        hq,
        ..template
    }];
    let v = validate_scenario(&s, &lists());
    assert!(
        v.iter()
            .any(|x| x.rule == "ARMY-13" && x.message.contains("1 mitrailleuse")),
        "{v:?}"
    );
}

/// The first sample scenario with its first player left to a roll-off.
fn rolling_off() -> Scenario {
    let mut s = samples::scenarios().expect("sample")[0].clone();
    s.first_player = None;
    s
}

/// SEQ-01: each side rolls a die, side 1 first; the higher moves first and a tie rolls again.
/// Script 3, 3 (a tie), then 2 for side 1 and 5 for side 2: side 2 (index 1) moves first, and
/// the roll-off has used the first four dice of the stream.
#[test]
fn seq_01_roll_off_the_higher_die_moves_first_and_a_tie_rolls_again() {
    let mut b = Battle::rolled_off(rolling_off(), lists(), DiceSource::Script(vec![3, 3, 2, 5]))
        .expect("the roll-off is made");
    assert_eq!(b.log().roll_off, vec![[3, 3], [2, 5]]);
    assert_eq!(b.log().first_player, 1);
    assert_eq!(b.state().turn.first_player, 1);
    assert_eq!(
        b.dice_position(),
        4,
        "the roll-off's dice are the stream's first"
    );
    let ev = b
        .perform(Action::EndPhase)
        .expect("deployment ends")
        .to_vec();
    assert!(ev.contains(&Event::TurnBegan {
        game_turn: 1,
        player_turn: 1,
        active: 1
    }));
    // Side 1 winning: 6 against 1, no tie.
    let b = Battle::rolled_off(rolling_off(), lists(), DiceSource::Script(vec![6, 1]))
        .expect("the roll-off is made");
    assert_eq!(
        (b.log().first_player, b.log().roll_off.clone()),
        (0, vec![[6, 1]])
    );
    // A script that runs out in a tie says so and sets nothing up.
    let err = Battle::rolled_off(rolling_off(), lists(), DiceSource::Script(vec![4, 4]))
        .err()
        .expect("refused");
    assert!(err.to_string().contains("ran out after 2 dice"), "{err}");
}

/// SEQ-01: a scenario names its first player, or leaves the first move to a roll-off.
#[test]
fn seq_01_the_scenario_names_the_first_player_or_leaves_it_to_a_roll_off() {
    let mut named = rolling_off();
    named.first_player = Some(1);
    let b = Battle::opening(named, lists(), DiceSource::Script(vec![1, 6])).expect("set up");
    assert_eq!((b.log().first_player, b.dice_position()), (1, 0));
    assert!(
        b.log().roll_off.is_empty(),
        "no roll-off when the scenario names the side"
    );
    let b =
        Battle::opening(rolling_off(), lists(), DiceSource::Script(vec![1, 6])).expect("set up");
    assert_eq!(
        (b.log().first_player, b.log().roll_off.clone()),
        (1, vec![[1, 6]])
    );
}

/// SEQ-01: with physical dice the sides roll off on the table, and the side that won is named.
#[test]
fn seq_01_a_battle_with_physical_dice_rolls_off_on_the_table() {
    let err = Battle::rolled_off(rolling_off(), lists(), DiceSource::Physical)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("on the table"), "{err}");
    assert!(Battle::new(rolling_off(), lists(), DiceSource::Physical, 1).is_ok());
}

/// SEQ-01: a recorded roll-off that is no roll-off, or not the one the battle's dice give,
/// is refused rather than replayed on the wrong dice.
#[test]
fn seq_01_a_recorded_roll_off_that_is_not_one_is_refused() {
    let script = || DiceSource::Script(vec![2, 5, 6, 6]);
    let set_up = |first: usize, rounds: &[[u8; 2]]| {
        Battle::after_roll_off(rolling_off(), lists(), script(), first, rounds)
            .err()
            .map(|e| e.to_string())
    };
    assert_eq!(set_up(1, &[[2, 5]]), None, "the script's own roll-off");
    for (first, rounds, says) in [
        (0, vec![[2, 5]], "won by side 2"),
        (1, vec![[4, 4]], "is a tie"),
        (1, vec![[3, 1], [2, 5]], "more rounds follow"),
        (1, vec![[0, 5]], "not two d6 results"),
        (1, vec![[1, 5]], "not what this battle's dice rolled"),
    ] {
        let got = set_up(first, &rounds).unwrap_or_default();
        assert!(got.contains(says), "{rounds:?}: {got}");
    }
}

/// SEQ-01: a rolled-off battle rebuilt from its log (a resumed battle), or after undo, goes on
/// with the dice after the roll-off: it plays on exactly as the battle it was taken from.
#[test]
fn seq_01_a_rolled_off_battle_restored_from_its_log_plays_on_the_same() {
    use powderhorn::ai::{play, Limits, Until};
    let mut a = Battle::rolled_off(rolling_off(), lists(), DiceSource::Seed(31)).expect("set up");
    assert!(!a.log().roll_off.is_empty());
    let sides = [true, true];
    // Deployment, then player turns until one has rolled dice.
    for _ in 0..4 {
        play(&mut a, &Limits::default(), sides, Until::Turn, &mut |_| {
            true
        });
        if a.dice_position() > 2 * a.log().roll_off.len() {
            break;
        }
    }
    let used = a.dice_position();
    assert!(used > 2 * a.log().roll_off.len(), "a turn rolled dice");
    let mut b = Battle::restore(a.scenario().clone(), lists(), a.log().clone()).expect("restore");
    assert_eq!(b.state(), a.state());
    assert_eq!(b.dice_position(), used);
    // Undo and redo move the stream by the entries' dice, the roll-off's staying in front.
    assert!(b.undo() && b.redo());
    for x in [&mut a, &mut b] {
        play(x, &Limits::default(), sides, Until::Turn, &mut |_| true);
    }
    assert!(a.dice_position() > used, "the next turn rolled dice");
    assert_eq!(a.log().entries, b.log().entries);
}

/// SEQ-01: roll-offs with the battle's seeded dice over many seeds. Each is a roll-off
/// (ties before the deciding round, the winner moving first) and each side wins about half.
#[test]
fn seq_01_roll_offs_are_fair_over_many_seeds() {
    let mut wins = [0usize; 2];
    let mut ties = 0;
    let n = 2_000;
    for seed in 0..n {
        let b = Battle::rolled_off(rolling_off(), lists(), DiceSource::Seed(seed)).expect("set up");
        let rounds = &b.log().roll_off;
        let (last, before) = rounds.split_last().expect("a round");
        assert!(before.iter().all(|[x, y]| x == y) && last[0] != last[1]);
        assert_eq!(b.log().first_player, usize::from(last[1] > last[0]));
        wins[b.log().first_player] += 1;
        ties += before.len();
    }
    println!(
        "{n} roll-offs checked: side 1 first {}, side 2 first {}, {ties} ties",
        wins[0], wins[1]
    );
    // Half each: the standard deviation of a side's count is √(2000/4) ≈ 22; 4σ ≈ 90.
    assert!(wins[0].abs_diff(1_000) < 90, "{wins:?}");
    // A round ties one time in six, so a roll-off has 0.2 ties on average: about 400 in
    // 2,000 (σ ≈ 20).
    assert!((300..500).contains(&ties), "{ties}");
}
