//! A fixed line-of-sight workload for instruction counting (issue 3): the bench's table and its
//! 1,000 queries within 100 cm (`benches/engine.rs`, `los/1000_queries`), run `N` times (first
//! argument, default 1). Count with
//! `valgrind --tool=callgrind --toggle-collect=los_workload::run target/release/examples/los_workload`.

#[path = "../tests/support/los_table.rs"]
mod los_table;

use powderhorn::rules::visibility::SightIndex;
use powderhorn::rules::{Ctx, PieceId};
use std::hint::black_box;

#[inline(never)]
fn run(index: &SightIndex, qs: &[(PieceId, PieceId)]) -> usize {
    qs.iter()
        .filter(|(o, t)| index.sight(*o, *t).visible)
        .count()
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let t = los_table::table(0x5eed_1809, &los_table::Knobs::bench());
    let ctx = Ctx {
        scenario: &t.scenario,
        lists: &t.lists,
        state: &t.state,
    };
    let index = SightIndex::new(&ctx);
    let qs = los_table::bench_queries(&t, &index, 42, true);
    let mut seen = 0;
    for _ in 0..n {
        seen = run(black_box(&index), black_box(&qs));
    }
    println!("{} queries, {seen} visible", qs.len());
}
