//! Engine speed.
//!
//! `bench_los`: 1,000 line-of-sight queries among 600 stands (120 units of 5) with 150 terrain
//! features on a 240 × 180 cm table, every query between enemies within the 100 cm visibility
//! limit (the pairs that need segments traced). Target: median ≤ 5 ms for the 1,000 queries on
//! one core (`cargo bench --bench engine -- los`). The table is made by the seeded generator of
//! tests/support/los_table.rs, so every run measures the same battle.

use criterion::{criterion_group, criterion_main, Criterion};
use powderhorn::model::army::shipped_lists;
use powderhorn::rules::visibility::SightIndex;
use powderhorn::rules::{Ctx, Formation, PieceId, PieceState};
use std::hint::black_box;

#[path = "../tests/support/los_table.rs"]
mod los_table;
use los_table::{table, Gen, Knobs, Table as Battle};

/// 120 units of 5 stands (600 stands), 60 a side, in mixed formations and arms, the two sides
/// facing each other across the table: the seeded table of tests/support/los_table.rs
/// (`Knobs::bench`), which the visibility equivalence tests also draw.
fn battle(seed: u64) -> Battle {
    table(seed, &Knobs::bench())
}

/// 1,000 (observer, target) enemy pairs, drawn with the seed: all within the visibility limit
/// (`near`), or any enemy pair.
fn queries(b: &Battle, index: &SightIndex, seed: u64, near: bool) -> Vec<(PieceId, PieceId)> {
    let mut g = Gen(seed);
    let ids: Vec<PieceId> = b.state.pieces.keys().copied().collect();
    let mut out = Vec::with_capacity(1000);
    let mut guard = 0;
    while out.len() < 1000 && guard < 1_000_000 {
        guard += 1;
        let (Some(&o), Some(&t)) = (ids.get(g.pick(ids.len())), ids.get(g.pick(ids.len()))) else {
            continue;
        };
        if o.side() == t.side() {
            continue;
        }
        let (Some(fo), Some(ft)) = (index.footprint(o), index.footprint(t)) else {
            continue;
        };
        if !near || powderhorn::geom::edge_distance(fo, ft) <= 100.0 {
            out.push((o, t));
        }
    }
    out
}

fn bench_los(c: &mut Criterion) {
    let b = battle(0x5eed_1809);
    let ctx = Ctx {
        scenario: &b.scenario,
        lists: &b.lists,
        state: &b.state,
        sight: None,
    };
    let stands: usize = b.state.pieces.values().map(|p| usize::from(p.stands)).sum();
    assert_eq!(stands, 600);
    assert_eq!(b.scenario.terrain.len(), 150);
    let index = SightIndex::new(&ctx);
    let qs = queries(&b, &index, 42, true);
    let any = queries(&b, &index, 43, false);
    let seen = qs
        .iter()
        .filter(|(o, t)| index.sight(*o, *t).visible)
        .count();
    eprintln!(
        "los bench: {} queries within 100 cm, {seen} visible",
        qs.len()
    );
    let seen_any = any
        .iter()
        .filter(|(o, t)| index.sight(*o, *t).visible)
        .count();
    eprintln!(
        "los bench: {} random enemy pairs, {seen_any} visible",
        any.len()
    );

    let mut group = c.benchmark_group("los");
    group.bench_function("index_600_stands_150_features", |bench| {
        bench.iter(|| black_box(SightIndex::new(black_box(&ctx))))
    });
    group.bench_function("1000_queries", |bench| {
        bench.iter(|| {
            let mut visible = 0usize;
            for (o, t) in &qs {
                if index.sight(*o, *t).visible {
                    visible += 1;
                }
            }
            black_box(visible)
        })
    });
    group.bench_function("1000_random_enemy_pairs", |bench| {
        bench.iter(|| {
            let mut visible = 0usize;
            for (o, t) in &any {
                if index.sight(*o, *t).visible {
                    visible += 1;
                }
            }
            black_box(visible)
        })
    });
    group.bench_function("index_and_1000_queries", |bench| {
        bench.iter(|| {
            let index = SightIndex::new(black_box(&ctx));
            let mut visible = 0usize;
            for (o, t) in &qs {
                if index.sight(*o, *t).visible {
                    visible += 1;
                }
            }
            black_box(visible)
        })
    });
    group.finish();
}

/// `bench_destinations`: every legal end pose of one Move action for one unit
/// (`rules::movement::legal_destinations`, sampled at 1 cm unless named otherwise). The typical
/// scenario is the shipped Ebelsberg sample (17 features, 42 units, 7 field defences) in the
/// French first Initiative phase: a 4-stand light-infantry line and a line of cavalry (30 cm,
/// sampled at 2 cm). The stress case is the LOS bench's table (150 features,
/// 120 units). Target: median ≤ 200 µs for one unit in the typical scenario
/// (`cargo bench --bench engine -- destinations`).
fn bench_destinations(c: &mut Criterion) {
    use powderhorn::model::samples;
    use powderhorn::rules::movement::legal_destinations;
    use powderhorn::rules::{Action, DiceSource, Manoeuvre};
    let mut group = c.benchmark_group("destinations");

    // Typical: Ebelsberg, 3 May 1809.
    let Some(scenario) = samples::scenarios()
        .ok()
        .and_then(|v| v.into_iter().find(|s| s.id.as_str() == "1809-ebelsberg"))
    else {
        panic!("the Ebelsberg sample scenario is shipped");
    };
    let lists = match shipped_lists() {
        Ok(l) => l,
        Err(e) => panic!("shipped lists: {e}"),
    };
    let dice = DiceSource::Script(vec![]);
    let mut ebelsberg = match powderhorn::rules::Battle::new(scenario, lists, dice, 0) {
        Ok(b) => b,
        Err(e) => panic!("Ebelsberg sets up: {e}"),
    };
    if let Err(e) = ebelsberg.perform(Action::EndPhase) {
        panic!("deployment ends: {e}");
    }
    let ctx = ebelsberg.ctx();
    let active = ctx.state.turn.active;
    let pick = |ctx: &Ctx, pred: &dyn Fn(&PieceState) -> bool, res: f64| -> Option<PieceId> {
        ctx.state
            .pieces
            .values()
            .filter(|p| p.id.side() == active && pred(p))
            .find(|p| legal_destinations(ctx, p.id, Manoeuvre::Advance, res).len() > 20)
            .map(|p| p.id)
    };
    fn light_4(p: &PieceState) -> bool {
        troop_is(p, "light-infantry-08-12") && p.stands == 4
    }
    fn cavalry(p: &PieceState) -> bool {
        p.arm == Some(powderhorn::model::Arm::Cavalry)
    }
    type Case = (&'static str, fn(&PieceState) -> bool, f64);
    let typical: [Case; 2] = [
        ("ebelsberg_light_infantry_4_stands", light_4, 1.0),
        ("ebelsberg_cavalry_2cm", cavalry, 2.0),
    ];
    for (label, pred, res) in &typical {
        let Some(id) = pick(&ctx, pred, *res) else {
            eprintln!("destinations bench: {label}: no such unit in Ebelsberg, skipped");
            continue;
        };
        let n = legal_destinations(&ctx, id, Manoeuvre::Advance, *res).len();
        eprintln!("destinations bench: {label}: {id} has {n} destinations");
        group.bench_function(*label, |bench| {
            bench.iter(|| {
                black_box(legal_destinations(
                    black_box(&ctx),
                    id,
                    Manoeuvre::Advance,
                    *res,
                ))
            })
        });
    }

    // Stress: the LOS bench's crowded table.
    let b = battle(0x5eed_1809);
    let ctx = Ctx {
        scenario: &b.scenario,
        lists: &b.lists,
        state: &b.state,
        sight: None,
    };
    let stress = [
        (
            "crowded_line_infantry_5_stands",
            "line-infantry-08-12",
            Formation::Line,
            1.0,
        ),
        (
            "crowded_march_column",
            "line-infantry-08-12",
            Formation::MarchColumn,
            1.0,
        ),
        (
            "crowded_cavalry_2cm",
            "light-cavalry-05-12",
            Formation::Line,
            2.0,
        ),
    ];
    for (label, name, formation, res) in stress {
        let pred = move |p: &PieceState| troop_is(p, name) && p.formation == Some(formation);
        let Some(id) = b
            .state
            .pieces
            .values()
            .filter(|p| p.id.side() == b.state.turn.active && pred(p))
            .find(|p| legal_destinations(&ctx, p.id, Manoeuvre::Advance, res).len() > 20)
            .map(|p| p.id)
        else {
            panic!("the crowded table has no movable {name} in {formation:?}");
        };
        let n = legal_destinations(&ctx, id, Manoeuvre::Advance, res).len();
        eprintln!("destinations bench: {label}: {id} has {n} destinations");
        group.bench_function(label, |bench| {
            bench.iter(|| {
                black_box(legal_destinations(
                    black_box(&ctx),
                    id,
                    Manoeuvre::Advance,
                    res,
                ))
            })
        });
    }
    group.finish();
}

fn troop_is(p: &PieceState, name: &str) -> bool {
    p.troop_type.as_ref().is_some_and(|t| t.as_str() == name)
}

criterion_group!(benches, bench_los, bench_destinations);
criterion_main!(benches);
