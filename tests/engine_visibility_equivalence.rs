//! The fast line of sight (`SightIndex`) against the reference implementation it replaced
//! (`tests/support/los_reference.rs`, the code as it stood before the speed work): on the bench's
//! own table and on many seeded random tables, every answer — visible or not, rule, detail,
//! blocker, segment, distance and exceptions — must be identical (VIS-01..VIS-17).

#[path = "support/los_reference.rs"]
mod los_reference;
#[path = "support/los_table.rs"]
mod los_table;

use los_reference::RefIndex;
use los_table::{table, Gen, Knobs, Table};
use powderhorn::model::Weather;
use powderhorn::rules::geometry::CONTACT_TOLERANCE_CM;
use powderhorn::rules::visibility::{
    sight_index_with, visibility_limit_cm, SightCache, SightIndex, SightParams,
};
use powderhorn::rules::{Ctx, PieceId};
use std::collections::BTreeMap;

fn ctx(t: &Table) -> Ctx<'_> {
    Ctx {
        scenario: &t.scenario,
        lists: &t.lists,
        state: &t.state,
        sight: None,
    }
}

/// Compares every query; returns how many were made and how many were visible, and counts
/// the deciding rules and the exceptions relied on in `rules`.
fn compare(
    label: &str,
    fast: &SightIndex,
    slow: &RefIndex,
    queries: &[(PieceId, PieceId)],
    rules: &mut BTreeMap<&'static str, usize>,
) -> (usize, usize) {
    let mut seen = 0;
    for &(o, t) in queries {
        let a = fast.sight(o, t);
        let b = slow.sight(o, t);
        assert_eq!(a, b, "{label}: {o} looking at {t}");
        if a.visible {
            seen += 1;
            // The solo opponent leaves out enemies beyond its reach by this gap before asking
            // (`ai::policy::seen_within`): a visible answer's distance must be exactly it.
            assert_eq!(
                fast.edge_gap(o, t),
                Some(a.distance_cm),
                "{label}: {o} looking at {t}"
            );
        }
        *rules.entry(a.rule).or_default() += 1;
        for e in &a.exceptions {
            *rules.entry(e).or_default() += 1;
        }
    }
    (queries.len(), seen)
}

/// Query pairs: every pair of pieces within reach (both ways), a sample of the rest, the same
/// side's pairs and a piece looking at itself.
fn pairs(t: &Table, g: &mut Gen, reach: f64, near_max: usize) -> Vec<(PieceId, PieceId)> {
    let c = ctx(t);
    let index = SightIndex::new(&c);
    let ids: Vec<PieceId> = t.state.pieces.keys().copied().collect();
    let mut near = Vec::new();
    let mut far = Vec::new();
    for &o in &ids {
        for &p in &ids {
            let close = match (index.footprint(o), index.footprint(p)) {
                (Some(a), Some(b)) => powderhorn::geom::edge_distance(a, b) <= reach,
                _ => false,
            };
            if close {
                near.push((o, p));
            } else {
                far.push((o, p));
            }
        }
    }
    while near.len() > near_max {
        let i = g.pick(near.len());
        near.swap_remove(i);
    }
    for _ in 0..20.min(far.len()) {
        if let Some(&q) = far.get(g.pick(far.len())) {
            near.push(q);
        }
    }
    near
}

#[test]
fn vis_02_vis_17_fast_line_of_sight_matches_the_reference_on_the_bench_table() {
    let t = table(0x5eed_1809, &Knobs::bench());
    let c = ctx(&t);
    let stands: usize = t.state.pieces.values().map(|p| usize::from(p.stands)).sum();
    assert_eq!((stands, t.scenario.terrain.len()), (600, 150));
    let fast = SightIndex::new(&c);
    let slow = RefIndex::new(&c);
    let mut g = Gen(42);
    let qs = pairs(&t, &mut g, 100.0, 1500);
    let mut rules = BTreeMap::new();
    let (n, seen) = compare("bench table", &fast, &slow, &qs, &mut rules);
    eprintln!("bench table: {n} queries, {seen} visible, {rules:?}");
    assert!(
        n >= 1500 && seen > 100 && seen < n,
        "{n} queries, {seen} visible"
    );
    for &id in t.state.pieces.keys().take(40) {
        assert_eq!(fast.visible_enemies(id), slow.visible_enemies(id));
    }
}

/// How many random tables `vis_02_vis_17_fast_line_of_sight_matches_the_reference_on_random_tables` draws.
const RANDOM_TABLES: u64 = 150;

#[test]
fn vis_02_vis_17_fast_line_of_sight_matches_the_reference_on_random_tables() {
    let mut total = 0;
    let mut visible = 0;
    let mut rules = BTreeMap::new();
    for seed in 1..=RANDOM_TABLES {
        let k = Knobs::varied(seed);
        let t = table(seed, &k);
        let c = ctx(&t);
        let mut g = Gen(seed.wrapping_mul(7919));
        // The visibility limit of the moment (weather, OPT-WEATHER-04) and a measure scale.
        let weather = [Weather::Normal, Weather::Poor, Weather::Extreme][g.pick(3)];
        let scale = [1.0, 1.0, 0.5, 2.0][g.pick(4)];
        let mut scenario_rules = t.scenario.optional_rules.clone();
        scenario_rules.push(powderhorn::model::OptionalRule::Weather);
        let limit = if g.chance(60) {
            100.0
        } else {
            let mut s = t.scenario.clone();
            s.optional_rules = scenario_rules;
            visibility_limit_cm(&s, weather)
        };
        let params = SightParams {
            limit_cm: limit * scale,
            measure_scale: scale,
            contact_cm: CONTACT_TOLERANCE_CM * scale,
        };
        let fast = SightIndex::with_params(&c, params);
        let slow = RefIndex::with_params(&c, params);
        let qs = pairs(&t, &mut g, params.limit_cm, 250);
        let (n, seen) = compare(
            &format!("table {seed} {k:?} {params:?}"),
            &fast,
            &slow,
            &qs,
            &mut rules,
        );
        total += n;
        visible += seen;
        for &id in t.state.pieces.keys().take(6) {
            let all = slow.visible_enemies(id);
            assert_eq!(fast.visible_enemies(id), all, "table {seed}");
            // Found nearest first, the same as the first of the whole list.
            assert_eq!(
                fast.nearest_visible_enemy_where(id, |e| !e.is_command()),
                all.iter().copied().find(|(e, _)| !e.is_command()),
                "table {seed}"
            );
            assert_eq!(fast.nearest_visible_enemy(id), all.first().copied());
        }
        assert_eq!(fast.due_reveals(), slow.due_reveals(), "table {seed}");
    }
    eprintln!("{total} queries on {RANDOM_TABLES} random tables, {visible} visible: {rules:?}");
    // Every rule that can hide a unit, and every exception a clear line relies on, came up.
    for rule in [
        "VIS-01", "VIS-02", "VIS-03", "VIS-04", "VIS-06", "VIS-07", "VIS-08", "VIS-09", "VIS-11",
        "VIS-12", "VIS-13", "VIS-14", "VIS-15", "VIS-17",
    ] {
        assert!(
            rules.get(rule).is_some_and(|&n| n >= 5),
            "{rule}: {rules:?}"
        );
    }
    assert!(total > 20_000, "{total} queries");
    assert!(
        visible * 10 > total && visible * 10 < total * 9,
        "{visible} of {total}"
    );
}

/// The battle's sight memo ([`SightCache`]) answers exactly as a fresh index while the state
/// changes under it: pieces move, turn, lose stands, leave the table, come back, dig in, are
/// revealed or fire, and the weather changes the limit (VIS-01..VIS-17). An unchanged state
/// gets the very same index back.
#[test]
fn vis_01_vis_17_cached_sight_matches_a_fresh_index_as_the_state_changes() {
    let mut checked = 0;
    let mut reused = 0;
    for seed in 1..=30u64 {
        let k = Knobs::varied(seed);
        let mut t = table(seed, &k);
        let cache = SightCache::default();
        let mut g = Gen(seed.wrapping_mul(104_729));
        let ids: Vec<PieceId> = t.state.pieces.keys().copied().collect();
        let mut params = {
            let c = ctx(&t);
            SightParams::of(&c)
        };
        for step in 0..12 {
            // Change a few pieces (or nothing, or the weather).
            let changes = g.pick(4);
            for _ in 0..changes {
                let Some(&id) = ids.get(g.pick(ids.len())) else {
                    continue;
                };
                let Some(p) = t.state.pieces.get_mut(&id) else {
                    continue;
                };
                match g.pick(7) {
                    0 => {
                        if let Some(pose) = p.pose.as_mut() {
                            pose.at.x += g.range(-15.0, 15.0);
                            pose.at.y += g.range(-15.0, 15.0);
                        }
                    }
                    1 => {
                        if let Some(pose) = p.pose.as_mut() {
                            pose.facing_deg =
                                (pose.facing_deg + g.range(-90.0, 90.0)).rem_euclid(360.0);
                        }
                    }
                    2 => p.stands = p.stands.saturating_sub(1).max(1),
                    3 => {
                        // Off the table and back on at the same place.
                        p.pose = if g.chance(50) { None } else { p.pose };
                    }
                    4 => p.revealed = !p.revealed,
                    // Hits and orders change nothing the index reads: the part is kept.
                    5 => {
                        p.hits += 1;
                        p.orders.received = p.orders.received.saturating_add(1);
                    }
                    _ => p.has_fired = !p.has_fired,
                }
            }
            if step == 7 {
                params.limit_cm = params.limit_cm.min(40.0);
            }
            let c = Ctx {
                scenario: &t.scenario,
                lists: &t.lists,
                state: &t.state,
                sight: Some(&cache),
            };
            let before = sight_index_with(&c, params);
            let again = sight_index_with(&c, params);
            assert!(
                std::sync::Arc::ptr_eq(&before, &again),
                "table {seed} step {step}"
            );
            if changes == 0 && step != 7 {
                reused += 1;
            }
            let fresh = SightIndex::with_params(&ctx(&t), params);
            let qs = pairs(&t, &mut g, params.limit_cm, 120);
            for &(o, q) in &qs {
                assert_eq!(
                    before.sight(o, q),
                    fresh.sight(o, q),
                    "table {seed} step {step}: {o} looking at {q}"
                );
            }
            for &id in ids.iter().take(5) {
                assert_eq!(before.visible_enemies(id), fresh.visible_enemies(id));
            }
            assert_eq!(before.due_reveals(), fresh.due_reveals());
            checked += qs.len();
        }
    }
    assert!(
        checked > 10_000 && reused > 10,
        "{checked} queries, {reused} reuses"
    );
}
