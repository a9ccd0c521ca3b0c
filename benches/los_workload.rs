//! A fixed line-of-sight workload for instruction counting (issue 3): the bench's table and its
//! 1,000 queries within 100 cm (`benches/engine.rs`, `los/1000_queries`), run `N` times (first
//! argument, default 1) through the index, or through the reference implementation it replaced
//! (`tests/support/los_reference.rs`) when the second argument is `ref`. It is a bench target (no criterion) so
//! that `cargo bench --no-run` builds it; count with
//! `valgrind --tool=callgrind --toggle-collect='los_workload::run*' target/release/deps/los_workload-*`
//! (`run_index` alone: the index build).

#[path = "../tests/support/los_reference.rs"]
mod los_reference;
#[path = "../tests/support/los_table.rs"]
mod los_table;

use los_reference::RefIndex;
use powderhorn::rules::visibility::SightIndex;
use powderhorn::rules::{Ctx, PieceId};
use std::hint::black_box;

#[inline(never)]
fn run(index: &SightIndex, qs: &[(PieceId, PieceId)]) -> usize {
    qs.iter()
        .filter(|(o, t)| index.sight(*o, *t).visible)
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
    let qs = los_table::bench_queries(&t, &index, 42, true);
    let built = run_index(&ctx, reference);
    let mut seen = 0;
    for _ in 0..n {
        seen = match &built {
            Some(r) => run_reference(black_box(r), black_box(&qs)),
            None => run(black_box(&index), black_box(&qs)),
        };
    }
    println!("{} queries, {seen} visible", qs.len());
}
