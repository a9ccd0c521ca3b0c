//! A fixed line-of-sight workload for instruction counting (issue 3): the bench's table and its
//! 1,000 queries within 100 cm (`benches/engine.rs`, `los/1000_queries`), run `N` times (first
//! argument, default 1) through the index, or through the reference implementation it replaced
//! (`tests/support/los_reference.rs`) when the second argument is `ref`. It is a bench target (no criterion) so
//! that `cargo bench --no-run` builds it; count with
//! `valgrind --tool=callgrind --toggle-collect='los_workload::run*' target/release/deps/los_workload-*`
//! (`run_index` alone: the index build).
//!
//! Two more modes, for a machine too noisy for criterion's medians to compare (environment
//! variables): `LOS_TIMES=1` times the 1,000 queries 600 times and prints the least, the 10th
//! percentile and the median; `LOS_KINDS=1` times each query 200 times and prints the time by
//! kind of answer (visible, and the rule and kind of blocker when hidden). `LOS_KIND="false
//! VIS-07 unit"` keeps only the queries of that kind (for a count of just those).

#[path = "../tests/support/los_reference.rs"]
mod los_reference;
#[path = "../tests/support/los_table.rs"]
mod los_table;
#[path = "../tests/support/passes.rs"]
mod passes;

use los_reference::RefIndex;
use powderhorn::rules::visibility::{Blocker, Sight, SightIndex};
use powderhorn::rules::{Ctx, PieceId};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

#[inline(never)]
fn run(index: &SightIndex, qs: &[(PieceId, PieceId)]) -> usize {
    qs.iter()
        .filter(|(o, t)| index.sight(*o, *t).visible)
        .count()
}

/// The same queries as `run`, once, to fill the index's lazily built per-piece data, so that a
/// count toggled on `run` alone sees the steady state the criterion bench measures.
#[inline(never)]
fn warm(index: &SightIndex, qs: &[(PieceId, PieceId)]) -> usize {
    // Counts the hidden pairs, so that the compiler cannot fold it into `run`.
    qs.iter()
        .filter(|(o, t)| !index.sight(*o, *t).visible)
        .count()
}

#[inline(never)]
fn run_reference(index: &RefIndex, qs: &[(PieceId, PieceId)]) -> usize {
    qs.iter()
        .filter(|(o, t)| index.sight(*o, *t).visible)
        .count()
}

#[inline(never)]
fn run_index(ctx: &Ctx, reference: bool) -> Option<RefIndex> {
    if reference {
        Some(RefIndex::new(ctx))
    } else {
        black_box(SightIndex::new(ctx));
        None
    }
}

/// The kind of an answer, for `LOS_KINDS` and `LOS_KIND`: visible or not, the rule, and what
/// is in the way.
fn kind(s: &Sight) -> String {
    let by = match &s.by {
        Some(Blocker::Piece { .. }) => "unit",
        Some(Blocker::Feature { .. }) => "feature",
        Some(Blocker::Defense { .. }) => "defence",
        None => "-",
    };
    format!("{} {} {by}", s.visible, s.rule)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let reference = args.next().as_deref() == Some("ref");
    let t = los_table::table(0x5eed_1809, &los_table::Knobs::bench());
    let ctx = Ctx {
        scenario: &t.scenario,
        lists: &t.lists,
        state: &t.state,
        sight: None,
    };
    let index = SightIndex::new(&ctx);
    let mut qs = los_table::bench_queries(&t, &index, 42, true);
    if let Ok(only) = std::env::var("LOS_KIND") {
        qs.retain(|(o, t)| kind(&index.sight(*o, *t)) == only);
    }
    let built = run_index(&ctx, reference);
    if built.is_none() {
        black_box(warm(black_box(&index), black_box(&qs)));
    }
    let mut seen = 0;
    for _ in 0..n {
        seen = match &built {
            Some(r) => run_reference(black_box(r), black_box(&qs)),
            None => run(black_box(&index), black_box(&qs)),
        };
    }
    println!("{} queries, {seen} visible", qs.len());
    if std::env::var("LOS_TIMES").is_ok() {
        println!(
            "{}",
            passes::percentiles(600, || {
                black_box(run(black_box(&index), black_box(&qs)));
            })
        );
    }
    if std::env::var("LOS_KINDS").is_ok() {
        const ROUNDS: usize = 200;
        let mut kinds: BTreeMap<String, (usize, f64)> = BTreeMap::new();
        for _ in 0..ROUNDS {
            for (o, t) in &qs {
                let t0 = Instant::now();
                let s = index.sight(*o, *t);
                let dt = t0.elapsed().as_secs_f64();
                let e = kinds.entry(kind(&s)).or_default();
                e.0 += 1;
                e.1 += dt;
            }
        }
        for (k, (n, t)) in kinds {
            println!(
                "{k:28} {:5} queries, {:.3} ms a round, {:.2} µs each",
                n / ROUNDS,
                t * 1e3 / ROUNDS as f64,
                t * 1e6 / n as f64
            );
        }
    }
}
