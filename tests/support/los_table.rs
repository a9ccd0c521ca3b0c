//! Seeded random battle tables for line-of-sight work: the table of `benches/engine.rs`
//! (`Knobs::bench`, drawn exactly as the bench draws it) and variations on it that bring in
//! what the bench lacks — skirmishers, squares, command units, limbered and unlimbered guns,
//! dug-in defenders behind works and in trenches, low wet ground, mountains, closed walls, clear
//! terrain, units standing on hills and in woods, and (on the grid) coordinates snapped to
//! half-centimetres so that edges touch and run collinear, where a careless fast test would
//! differ from the exact one.

#![allow(dead_code)]

use powderhorn::geom::{footprint, Arrangement, Point, Rect, StandKind};
use powderhorn::model::army::{shipped_lists, ArmyList};
use powderhorn::model::{
    CommandLevel, DefenseId, DefenseKind, FeatureId, FieldDefense, Geometry, Grade, HqId, ListId,
    Quality, Scenario, TerrainFeature, TerrainKind, TroopTypeId, UnitId,
};
use powderhorn::rules::state::{BattleState, Phase, SideState, TurnState};
use powderhorn::rules::{Formation, PieceId, PieceState, Pose};
use std::collections::BTreeMap;

/// A small deterministic generator (xorshift64*), the bench's own.
pub struct Gen(pub u64);

impl Gen {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    pub fn pick(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// What a table holds.
#[derive(Debug, Clone, Copy)]
pub struct Knobs {
    pub width: f64,
    pub depth: f64,
    pub woods: usize,
    pub crops: usize,
    pub towns: usize,
    /// Hills; the first half get a second contour.
    pub hills: usize,
    pub linears: usize,
    pub streams: usize,
    pub units_per_side: usize,
    /// Everything beyond the bench's mix (see the module docs).
    pub extras: bool,
    /// Snap coordinates to 0.5 cm and facings to 45° (extras only).
    pub grid: bool,
    /// Let units overlap one another (extras only).
    pub overlap: bool,
}

impl Knobs {
    /// The bench's table: 150 features, 120 units of 5 stands on 240 × 180 cm.
    pub fn bench() -> Knobs {
        Knobs {
            width: 240.0,
            depth: 180.0,
            woods: 35,
            crops: 35,
            towns: 10,
            hills: 10,
            linears: 50,
            streams: 5,
            units_per_side: 60,
            extras: false,
            grid: false,
            overlap: false,
        }
    }

    /// A varied table drawn from `seed`: sizes, densities and the extras.
    pub fn varied(seed: u64) -> Knobs {
        let mut g = Gen(seed ^ 0x9e37_79b9_7f4a_7c15);
        let scale = g.range(0.15, 0.6);
        let n = |g: &mut Gen, full: usize| ((full as f64) * scale * g.range(0.5, 1.5)) as usize;
        Knobs {
            width: g.range(80.0, 160.0),
            depth: g.range(60.0, 120.0),
            woods: n(&mut g, 35),
            crops: n(&mut g, 35),
            towns: n(&mut g, 10),
            hills: n(&mut g, 10),
            linears: n(&mut g, 50),
            streams: g.pick(3),
            units_per_side: 6 + g.pick(20),
            extras: true,
            grid: g.chance(40),
            overlap: g.chance(25),
        }
    }
}

pub struct Table {
    pub scenario: Scenario,
    pub lists: Vec<ArmyList>,
    pub state: BattleState,
}

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

fn snap(p: Point) -> Point {
    Point::new((p.x * 2.0).round() / 2.0, (p.y * 2.0).round() / 2.0)
}

fn rect_ring(c: Point, w: f64, h: f64) -> Vec<Point> {
    vec![
        Point::new(c.x - w, c.y - h),
        Point::new(c.x + w, c.y - h),
        Point::new(c.x + w, c.y + h),
        Point::new(c.x - w, c.y + h),
    ]
}

/// The bench's 150 features (for `Knobs::bench`), then the extras.
fn terrain(g: &mut Gen, k: &Knobs) -> Vec<TerrainFeature> {
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
            construction: None,
        });
    };
    let (w, d) = (k.width, k.depth);
    let centre = |g: &mut Gen| Point::new(g.range(10.0, w - 10.0), g.range(10.0, d - 10.0));
    // On the grid, areas are axis-aligned rectangles on half-centimetres.
    let area = |g: &mut Gen, c: Point, r: f64, n: usize| -> Vec<Point> {
        if k.grid {
            let c = snap(c);
            let (hw, hh) = (
                (r * g.range(0.6, 1.0) * 2.0).round() / 2.0,
                (r * g.range(0.6, 1.0) * 2.0).round() / 2.0,
            );
            rect_ring(c, hw.max(1.0), hh.max(1.0))
        } else {
            blob(g, c, r, n)
        }
    };
    for _ in 0..k.woods {
        let c = centre(g);
        let r = g.range(5.0, 12.0);
        push(TerrainKind::HighArea, Geometry::Polygon(area(g, c, r, 10)));
    }
    for _ in 0..k.crops {
        let c = centre(g);
        let r = g.range(4.0, 10.0);
        push(TerrainKind::LowArea, Geometry::Polygon(area(g, c, r, 8)));
    }
    for _ in 0..k.towns {
        let c = centre(g);
        let r = g.range(4.0, 8.0);
        push(TerrainKind::BuiltUp, Geometry::Polygon(area(g, c, r, 6)));
    }
    for i in 0..k.hills {
        let c = centre(g);
        let r = g.range(10.0, 20.0);
        push(
            TerrainKind::Hill { level: 1 },
            Geometry::Polygon(area(g, c, r, 12)),
        );
        if i < 5 && i < k.hills.div_ceil(2) {
            push(
                TerrainKind::Hill { level: 2 },
                Geometry::Polygon(area(g, c, r * 0.5, 10)),
            );
        }
    }
    for _ in 0..k.linears {
        let a = centre(g);
        let len = g.range(8.0, 25.0);
        let dir = g.range(0.0, std::f64::consts::TAU);
        let mid = Point::new(
            a.x + len / 2.0 * dir.cos() + g.range(-2.0, 2.0),
            a.y + len / 2.0 * dir.sin(),
        );
        let b = Point::new(a.x + len * dir.cos(), a.y + len * dir.sin());
        let (points, width_cm) = if k.grid {
            // Straight, axis-aligned walls of no width.
            let a = snap(a);
            let b = if dir.cos().abs() > 0.7 {
                Point::new(snap(b).x, a.y)
            } else {
                Point::new(a.x, snap(b).y)
            };
            (vec![a, b], 0.0)
        } else {
            (vec![a, mid, b], 0.5)
        };
        push(TerrainKind::Linear, Geometry::Polyline { points, width_cm });
    }
    for _ in 0..k.streams {
        let a = Point::new(0.0, g.range(20.0, d - 20.0));
        let b = Point::new(w, g.range(20.0, d - 20.0));
        push(
            TerrainKind::ShallowWet,
            Geometry::Polyline {
                points: vec![a, b],
                width_cm: 2.0,
            },
        );
    }
    if k.extras {
        let extra = [
            TerrainKind::PartiallyWet,
            TerrainKind::Mountain,
            TerrainKind::Hill { level: 3 },
            TerrainKind::Linear,
            TerrainKind::Open,
            TerrainKind::Road,
            TerrainKind::Impassable,
        ];
        for _ in 0..2 + g.pick(5) {
            let kind = extra[g.pick(extra.len())];
            let c = centre(g);
            let r = g.range(3.0, 12.0);
            let ring = area(g, c, r, 7);
            push(kind, Geometry::Polygon(ring));
        }
        // A wall ring round a hill's top (a closed polygon wall) and a degenerate area.
        let c = centre(g);
        push(TerrainKind::Linear, Geometry::Polygon(area(g, c, 6.0, 5)));
        push(
            TerrainKind::HighArea,
            Geometry::Polygon(vec![c, Point::new(c.x + 3.0, c.y)]),
        );
    }
    out
}

/// The bounding rectangle of a unit's stands (the rules' layout, MOVE-11..MOVE-23).
fn layout(
    troop: &str,
    formation: Option<Formation>,
    limbered: bool,
    stands: usize,
    at: Point,
    facing: f64,
) -> Rect {
    let (kind, arrangement) = match (troop, formation) {
        ("hq", _) => (StandKind::Command, Arrangement::Line { gap_cm: 0.0 }),
        ("light-cavalry-05-12", _) => (StandKind::Cavalry, Arrangement::Line { gap_cm: 0.0 }),
        (_, None) if limbered => (StandKind::Artillery, Arrangement::LimberedGun),
        (_, None) => (StandKind::Artillery, Arrangement::Line { gap_cm: 0.0 }),
        (_, Some(Formation::ExtendedLine)) => {
            (StandKind::Infantry, Arrangement::Line { gap_cm: 2.0 })
        }
        (_, Some(Formation::AttackColumn)) => (StandKind::Infantry, Arrangement::TwoAbreast),
        (_, Some(Formation::MarchColumn)) => (StandKind::Infantry, Arrangement::Column),
        (_, Some(Formation::Square)) => (StandKind::Infantry, Arrangement::Square),
        (_, Some(_)) => (StandKind::Infantry, Arrangement::Line { gap_cm: 0.0 }),
    };
    footprint(kind, stands, arrangement, at, facing, 1.0).bounding_rect()
}

fn overlaps(a: &Rect, b: &Rect, margin: f64) -> bool {
    a.min.x - margin <= b.max.x
        && b.min.x - margin <= a.max.x
        && a.min.y - margin <= b.max.y
        && b.min.y - margin <= a.max.y
}

/// A table drawn from `seed` (the bench: `table(0x5eed_1809, &Knobs::bench())`).
pub fn table(seed: u64, k: &Knobs) -> Table {
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
    scenario.terrain = terrain(&mut g, k);
    let lists = match shipped_lists() {
        Ok(l) => l,
        Err(e) => panic!("shipped lists: {e}"),
    };
    let bench_rows = [
        ("line-infantry-08-12", Some(Formation::Line)),
        ("line-infantry-08-12", Some(Formation::AttackColumn)),
        ("line-infantry-08-12", Some(Formation::MarchColumn)),
        ("light-infantry-08-12", Some(Formation::ExtendedLine)),
        ("light-cavalry-05-12", Some(Formation::Line)),
        ("field-artillery", None),
    ];
    let extra_rows = [
        ("skirmishing-infantry", Some(Formation::ExtendedLine)),
        ("line-infantry-08-12", Some(Formation::Square)),
        ("line-infantry-08-12", Some(Formation::Disordered)),
        ("hq", None),
    ];
    if k.extras {
        scenario.defender = Some(1);
    }
    let (w, d) = (k.width, k.depth);
    let mut pieces = BTreeMap::new();
    let mut placed: Vec<Rect> = Vec::new();
    let mut n = 0u32;
    for side in 0..2usize {
        for _ in 0..k.units_per_side {
            n += 1;
            let (troop, formation) = if k.extras && g.chance(30) {
                extra_rows[g.pick(extra_rows.len())]
            } else {
                bench_rows[g.pick(bench_rows.len())]
            };
            let hq = troop == "hq";
            let id = if hq {
                PieceId::Hq { side, hq: HqId(n) }
            } else {
                PieceId::Unit {
                    side,
                    unit: UnitId(n),
                }
            };
            let limbered = formation.is_none() && !hq && g.pick(3) == 0;
            let stands: u8 = if k.extras && !hq {
                1 + g.pick(6) as u8
            } else {
                5
            };
            let (mut at, mut facing) = (Point::default(), 0.0);
            for _ in 0..500 {
                let y = if side == 0 {
                    g.range(5.0, d * 110.0 / 180.0)
                } else {
                    g.range(d * 70.0 / 180.0, d - 5.0)
                };
                at = Point::new(g.range(10.0, w - 10.0), y);
                facing = if side == 0 { 0.0 } else { 180.0 } + g.range(-30.0, 30.0);
                if k.extras && g.chance(10) {
                    facing = g.range(0.0, 360.0);
                }
                if k.grid {
                    at = snap(at);
                    facing = (facing / 45.0).round() * 45.0;
                }
                let r = layout(troop, formation, limbered, usize::from(stands), at, facing);
                if k.overlap || !placed.iter().any(|p| overlaps(p, &r, 1.0)) {
                    placed.push(r);
                    break;
                }
            }
            let arm = lists
                .iter()
                .find(|l| l.id.as_str() == "nap-french")
                .and_then(|l| l.troop_type(&TroopTypeId::new(troop)))
                .map(|r| r.arm);
            let mut piece = PieceState {
                id,
                name: format!("{troop} {n}"),
                troop_type: (!hq).then(|| TroopTypeId::new(troop)),
                arm,
                command: hq.then_some((CommandLevel::Brigade, Quality::Average)),
                pose: Some(Pose {
                    at,
                    facing_deg: facing,
                }),
                formation,
                limbered,
                stands,
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
                prone: false,
            };
            if k.extras {
                // Either side may claim to be dug in; only the defender's claim is lawful.
                piece.dug_in = g.chance(if side == 1 { 35 } else { 5 });
                piece.revealed = g.chance(25);
                piece.knocked_out = g.chance(2);
                if g.chance(2) {
                    piece.pose = None;
                }
            }
            pieces.insert(id, piece);
        }
    }
    if k.extras {
        // Works along lines (some block sight, VIS-09 ruling) and trenches for dug-in units.
        let kinds = [
            DefenseKind::BreastWorks,
            DefenseKind::LogWorks,
            DefenseKind::FortifiedWorks,
            DefenseKind::Fortification,
            DefenseKind::Wire,
            DefenseKind::Stakes,
        ];
        let mut next = 1u32;
        for side in 0..2usize {
            let Some(s) = scenario.sides.get_mut(side) else {
                continue;
            };
            for _ in 0..g.pick(5) {
                let a = Point::new(g.range(10.0, w - 10.0), g.range(10.0, d - 10.0));
                let len = g.range(5.0, 20.0);
                let dir = g.range(0.0, std::f64::consts::TAU);
                let b = Point::new(a.x + len * dir.cos(), a.y + len * dir.sin());
                let (a, b) = if k.grid {
                    (snap(a), Point::new(snap(b).x, a.y))
                } else {
                    (a, b)
                };
                s.field_defenses.push(FieldDefense {
                    id: DefenseId(next),
                    kind: kinds[g.pick(kinds.len())],
                    sections: 1,
                    at: vec![a, b],
                    occupant: None,
                });
                next += 1;
            }
            // Works right in front of some dug-in units: the VIS-17 "behind" case.
            for p in pieces.values() {
                let (PieceId::Unit { unit, side: ps }, Some(pose)) = (p.id, p.pose) else {
                    continue;
                };
                if ps != side || !p.dug_in || !g.chance(60) {
                    continue;
                }
                let f = powderhorn::geom::footprint::heading(pose.facing_deg);
                let r = powderhorn::geom::footprint::right_of(pose.facing_deg);
                let ahead = g.range(0.0, 0.15);
                let c = Point::new(pose.at.x + f.x * ahead, pose.at.y + f.y * ahead);
                let half = g.range(3.0, 12.0);
                s.field_defenses.push(FieldDefense {
                    id: DefenseId(next),
                    kind: if g.chance(50) {
                        DefenseKind::BreastWorks
                    } else {
                        DefenseKind::Trench
                    },
                    sections: 1,
                    at: vec![
                        Point::new(c.x - r.x * half, c.y - r.y * half),
                        Point::new(c.x + r.x * half, c.y + r.y * half),
                    ],
                    occupant: Some(unit),
                });
                next += 1;
            }
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
    Table {
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
            scouts: Default::default(),
            comms: Default::default(),
            constructions: Default::default(),
            allegiance: Default::default(),
        },
    }
}

/// The bench's 1,000 (observer, target) enemy pairs, drawn with the seed: all within the
/// visibility limit (`near`), or any enemy pair.
pub fn bench_queries(
    t: &Table,
    index: &powderhorn::rules::visibility::SightIndex,
    seed: u64,
    near: bool,
) -> Vec<(PieceId, PieceId)> {
    let mut g = Gen(seed);
    let ids: Vec<PieceId> = t.state.pieces.keys().copied().collect();
    let mut out = Vec::with_capacity(1000);
    let mut guard = 0;
    while out.len() < 1000 && guard < 1_000_000 {
        guard += 1;
        let (Some(&o), Some(&p)) = (ids.get(g.pick(ids.len())), ids.get(g.pick(ids.len()))) else {
            continue;
        };
        if o.side() == p.side() {
            continue;
        }
        let (Some(fo), Some(fp)) = (index.footprint(o), index.footprint(p)) else {
            continue;
        };
        if !near || powderhorn::geom::edge_distance(fo, fp) <= 100.0 {
            out.push((o, p));
        }
    }
    out
}
