//! Autoplay speed (issue 4 item 10): a large battle — two sides of about 300 stands each, a
//! Napoleonic French and Austrian list, woods, hills, fields and a town — played to its end by
//! the solo opponent (`src/ai`). Target: median ≤ 20 ms per battle on one core
//! (`cargo bench --bench autoplay`).
//!
//! `side_turn_large` (issue #20 item 2, target ≤ 50 ms): one side's whole player turn of the
//! same battle, from the start of game turn 3 (the armies in contact), decided and performed by
//! the standard opponent — plans, orders, moves, fire, charges and the other side's answers.
//!
//! `autoplay_large`: set up the battle and play it to `BattleEnded`. `dice_alone`: draw the
//! same number of dice from the seeded stream, with nothing else, so the ratio of the two says
//! how much of a battle is rules and policy rather than dice. The bench prints the dice rolled
//! per battle once before measuring. The generator is seeded, so every run measures the same
//! battle.

#[path = "../tests/support/large_battle.rs"]
mod large_battle;
#[path = "../tests/support/passes.rs"]
mod passes;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use large_battle::{large_scenario, SEED};
use powderhorn::ai::{autoplay, play as play_ai, Limits, Until};
use powderhorn::model::army::{shipped_lists, ArmyList};
use powderhorn::model::Scenario;
use powderhorn::rules::dice::{Dice, SeededDice};
use powderhorn::rules::{Battle, DiceSource};
use std::hint::black_box;
use std::time::Duration;

fn play(scenario: &Scenario, lists: &[ArmyList]) -> (usize, u32) {
    let mut battle = Battle::new(scenario.clone(), lists.to_vec(), DiceSource::Seed(SEED), 0)
        .expect("the large battle sets up");
    let run = autoplay(&mut battle, &Limits::default());
    assert!(
        run.finished,
        "the large battle did not end: {:?}",
        run.stopped
    );
    (run.dice, run.game_turns)
}

fn bench_autoplay(c: &mut Criterion) {
    let scenario = large_scenario();
    let lists = shipped_lists().expect("lists");
    let stands: Vec<u32> = scenario
        .sides
        .iter()
        .map(|s| s.units.iter().map(|u| u32::from(u.stands)).sum())
        .collect();
    let units: Vec<usize> = scenario.sides.iter().map(|s| s.units.len()).collect();
    let mut battle = Battle::new(scenario.clone(), lists.to_vec(), DiceSource::Seed(SEED), 0)
        .expect("the large battle sets up");
    let run = autoplay(&mut battle, &Limits::default());
    let (dice, turns) = (run.dice, run.game_turns);
    let log = serde_json::to_string(battle.log()).expect("the log serializes");
    let summary = serde_json::to_string(&run).expect("the run serializes");
    // The figure tests/large_battle_golden.rs pins: the same battle in a release build.
    let hash = large_battle::fnv1a(format!("{log}\n{summary}").as_bytes());
    eprintln!(
        "large battle: {units:?} units, {stands:?} stands per side; {turns} game turns, {dice} dice rolled; log hash {hash:016x}"
    );
    // `AUTOPLAY_TIMES=1`: time 200 battles and print the least, the 10th percentile and the
    // median, for a machine too noisy for criterion's ten samples to compare two builds.
    if std::env::var("AUTOPLAY_TIMES").is_ok() {
        let times = passes::percentiles(200, || {
            black_box(play(black_box(&scenario), &lists));
        });
        eprintln!("autoplay_large: {times}");
        return;
    }
    let mut group = c.benchmark_group("autoplay");
    // The large battle at the start of game turn 3: the turn benched starts here.
    let mut base = Battle::new(scenario.clone(), lists.to_vec(), DiceSource::Seed(SEED), 0)
        .expect("the large battle sets up");
    while base.state().turn.game_turn < 3 {
        let run = play_ai(
            &mut base,
            &Limits::default(),
            [true, true],
            Until::Turn,
            &mut |_| true,
        );
        assert!(run.stopped.is_none() && !run.finished, "{:?}", run.stopped);
    }
    group.bench_function("side_turn_large", |b| {
        b.iter_batched(
            || base.fork().expect("forks"),
            |mut battle| {
                black_box(play_ai(
                    &mut battle,
                    &Limits::default(),
                    [true, true],
                    Until::Turn,
                    &mut |_| true,
                ))
            },
            BatchSize::LargeInput,
        )
    });
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("autoplay_large", |b| {
        b.iter(|| black_box(play(black_box(&scenario), &lists)))
    });
    group.bench_function("dice_alone", |b| {
        b.iter(|| {
            let mut d = SeededDice::new(SEED);
            let mut sum = 0u32;
            for _ in 0..dice {
                sum += u32::from(d.d6("bench").unwrap_or(0));
            }
            black_box(sum)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_autoplay);
criterion_main!(benches);
