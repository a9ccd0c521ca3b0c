//! Engine speed.
//!
//! `bench_los`: 1,000 line-of-sight queries among 600 stands (120 units of 5) with 150 terrain
//! features on a 240 × 180 cm table, every query between enemies within the 100 cm visibility
//! limit (the pairs that need segments traced). Target: median ≤ 5 ms for the 1,000 queries on
//! one core (`cargo bench --bench engine -- los`). The table is made by a seeded generator here,
//! so every run measures the same battle.

use criterion::{criterion_group, criterion_main, Criterion};
use powderhorn::geom::{footprint, Arrangement, Point, Rect, StandKind};
use powderhorn::model::army::{shipped_lists, ArmyList};
use powderhorn::model::{
    FeatureId, Geometry, Grade, ListId, Scenario, TerrainFeature, TerrainKind, TroopTypeId, UnitId,
};
use powderhorn::rules::state::{BattleState, Phase, SideState, TurnState};
use powderhorn::rules::visibility::SightIndex;
use powderhorn::rules::{Ctx, Formation, PieceId, PieceState, Pose};
use std::collections::BTreeMap;
use std::hint::black_box;

/// A small deterministic generator (xorshift64*), so the bench needs no RNG crate.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [lo, hi).
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    fn pick(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const WIDTH: f64 = 240.0;
const DEPTH: f64 = 180.0;

/// An irregular blob of `n` points around a centre.
fn blob(g: &mut Gen, c: Point, r: f64, n: usize) -> Vec<Point> {
    (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            let rr = r * g.range(0.7, 1.0);
            Point::new(c.x + rr * a.cos(), c.y + rr * a.sin())
        })
        .collect()
}

/// 150 features: 35 woods, 35 crop fields, 10 towns, 15 hills (5 with a second contour), 50
/// walls and hedges, and 5 streams (which do not affect sight).
fn terrain(g: &mut Gen) -> Vec<TerrainFeature> {
    let mut out = Vec::new();
    let mut push = |kind: TerrainKind, geometry: Geometry| {
        let id = FeatureId(out.len() as u32 + 1);
        out.push(TerrainFeature {
            id,
            name: format!("{} {}", kind.label(), id.0),
            kind,
            geometry,
            dense: false,
            frozen: false,
        });
    };
    let centre = |g: &mut Gen| Point::new(g.range(10.0, WIDTH - 10.0), g.range(10.0, DEPTH - 10.0));
    for _ in 0..35 {
        let c = centre(g);
        let r = g.range(5.0, 12.0);
        push(TerrainKind::HighArea, Geometry::Polygon(blob(g, c, r, 10)));
    }
    for _ in 0..35 {
        let c = centre(g);
        let r = g.range(4.0, 10.0);
        push(TerrainKind::LowArea, Geometry::Polygon(blob(g, c, r, 8)));
    }
    for _ in 0..10 {
        let c = centre(g);
        let r = g.range(4.0, 8.0);
        push(TerrainKind::BuiltUp, Geometry::Polygon(blob(g, c, r, 6)));
    }
    for i in 0..10 {
        let c = centre(g);
        let r = g.range(10.0, 20.0);
        push(
            TerrainKind::Hill { level: 1 },
            Geometry::Polygon(blob(g, c, r, 12)),
        );
        if i < 5 {
            push(
                TerrainKind::Hill { level: 2 },
                Geometry::Polygon(blob(g, c, r * 0.5, 10)),
            );
        }
    }
    for _ in 0..50 {
        let a = centre(g);
        let len = g.range(8.0, 25.0);
        let dir = g.range(0.0, std::f64::consts::TAU);
        let mid = Point::new(
            a.x + len / 2.0 * dir.cos() + g.range(-2.0, 2.0),
            a.y + len / 2.0 * dir.sin(),
        );
        let b = Point::new(a.x + len * dir.cos(), a.y + len * dir.sin());
        push(
            TerrainKind::Linear,
            Geometry::Polyline {
                points: vec![a, mid, b],
                width_cm: 0.5,
            },
        );
    }
    for _ in 0..5 {
        let a = Point::new(0.0, g.range(20.0, DEPTH - 20.0));
        let b = Point::new(WIDTH, g.range(20.0, DEPTH - 20.0));
        push(
            TerrainKind::ShallowWet,
            Geometry::Polyline {
                points: vec![a, b],
                width_cm: 2.0,
            },
        );
    }
    out
}

/// The bounding rectangle of a bench unit's five stands (the rules' layout, MOVE-11..MOVE-23).
fn layout(
    troop: &str,
    formation: Option<Formation>,
    limbered: bool,
    at: Point,
    facing: f64,
) -> Rect {
    let (kind, arrangement) = match (troop, formation) {
        ("light-cavalry-05-12", _) => (StandKind::Cavalry, Arrangement::Line { gap_cm: 0.0 }),
        (_, None) if limbered => (StandKind::Artillery, Arrangement::LimberedGun),
        (_, None) => (StandKind::Artillery, Arrangement::Line { gap_cm: 0.0 }),
        (_, Some(Formation::ExtendedLine)) => {
            (StandKind::Infantry, Arrangement::Line { gap_cm: 2.0 })
        }
        (_, Some(Formation::AttackColumn)) => (StandKind::Infantry, Arrangement::TwoAbreast),
        (_, Some(Formation::MarchColumn)) => (StandKind::Infantry, Arrangement::Column),
        (_, Some(_)) => (StandKind::Infantry, Arrangement::Line { gap_cm: 0.0 }),
    };
    footprint(kind, 5, arrangement, at, facing, 1.0).bounding_rect()
}

fn overlaps(a: &Rect, b: &Rect, margin: f64) -> bool {
    a.min.x - margin <= b.max.x
        && b.min.x - margin <= a.max.x
        && a.min.y - margin <= b.max.y
        && b.min.y - margin <= a.max.y
}

struct Battle {
    scenario: Scenario,
    lists: Vec<ArmyList>,
    state: BattleState,
}

/// 120 units of 5 stands (600 stands), 60 a side, in mixed formations and arms, the two sides
/// facing each other across the table.
fn battle(seed: u64) -> Battle {
    let mut g = Gen(seed);
    let mut scenario: Scenario = match serde_json::from_value(serde_json::json!({
        "format": 1, "id": "bench-los", "name": "LOS bench", "points": 6000, "turn_limit": 12,
        "sides": [
            { "name": "Blue", "army_list": "nap-french", "hqs": [], "units": [] },
            { "name": "Red", "army_list": "nap-french", "hqs": [], "units": [] }
        ]
    })) {
        Ok(s) => s,
        Err(e) => panic!("bench scenario: {e}"),
    };
    scenario.terrain = terrain(&mut g);
    let lists = match shipped_lists() {
        Ok(l) => l,
        Err(e) => panic!("shipped lists: {e}"),
    };
    let rows = [
        ("line-infantry-08-12", Some(Formation::Line)),
        ("line-infantry-08-12", Some(Formation::AttackColumn)),
        ("line-infantry-08-12", Some(Formation::MarchColumn)),
        ("light-infantry-08-12", Some(Formation::ExtendedLine)),
        ("light-cavalry-05-12", Some(Formation::Line)),
        ("field-artillery", None),
    ];
    let mut pieces = BTreeMap::new();
    let mut placed: Vec<Rect> = Vec::new();
    let mut n = 0u32;
    for side in 0..2usize {
        for _ in 0..60 {
            n += 1;
            let (troop, formation) = rows[g.pick(rows.len())];
            let id = PieceId::Unit {
                side,
                unit: UnitId(n),
            };
            let limbered = formation.is_none() && g.pick(3) == 0;
            // Units do not overlap one another (terrain they may stand in).
            let (mut at, mut facing) = (Point::default(), 0.0);
            for _ in 0..500 {
                let y = if side == 0 {
                    g.range(5.0, 110.0)
                } else {
                    g.range(70.0, DEPTH - 5.0)
                };
                at = Point::new(g.range(10.0, WIDTH - 10.0), y);
                facing = if side == 0 { 0.0 } else { 180.0 } + g.range(-30.0, 30.0);
                let r = layout(troop, formation, limbered, at, facing);
                if !placed.iter().any(|p| overlaps(p, &r, 1.0)) {
                    placed.push(r);
                    break;
                }
            }
            let arm = lists
                .iter()
                .find(|l| l.id.as_str() == "nap-french")
                .and_then(|l| l.troop_type(&TroopTypeId::new(troop)))
                .map(|r| r.arm);
            pieces.insert(
                id,
                PieceState {
                    id,
                    name: format!("{troop} {n}"),
                    troop_type: Some(TroopTypeId::new(troop)),
                    arm,
                    command: None,
                    pose: Some(Pose {
                        at,
                        facing_deg: facing,
                    }),
                    formation,
                    limbered,
                    stands: 5,
                    hits: 0,
                    suppressed_at: None,
                    disordered_until: None,
                    knocked_out: false,
                    grade: Grade::Regular,
                    dug_in: false,
                    revealed: false,
                    has_fired: g.pick(2) == 0,
                    orders: Default::default(),
                    flank: Default::default(),
                },
            );
        }
    }
    let side = |name: &str| SideState {
        name: name.to_string(),
        list: ListId::new("nap-french"),
        breakpoint: 30,
        units_lost: 0,
        broken: false,
        conceded: false,
    };
    Battle {
        scenario,
        lists,
        state: BattleState {
            turn: TurnState {
                game_turn: 1,
                player_turn: 1,
                active: 0,
                first_player: 0,
                phase: Phase::Command,
            },
            pieces,
            sides: vec![side("Blue"), side("Red")],
            ledger: Default::default(),
            charges: Default::default(),
            command: Default::default(),
            engineering: Default::default(),
            weather: Default::default(),
        },
    }
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
