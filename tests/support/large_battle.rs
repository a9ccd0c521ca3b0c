//! The large generated battle of `benches/autoplay.rs` (issue 4 item 10): two sides of about
//! 300 stands, the Ebelsberg French and Austrian orders of battle repeated and drawn up in four
//! ranks 60 cm apart, with woods, fields, hills and a town between them. Shared by the bench and
//! by `tests/large_battle_golden.rs`, which pins the battle the bench plays, so that a speed
//! change that alters a result fails a test rather than going unnoticed.
#![allow(dead_code)]

use powderhorn::geom::Point;
use powderhorn::model::{
    samples, FeatureId, Geometry, Placement, Scenario, TerrainFeature, TerrainKind, UnitId,
};

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
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

const WIDTH: f64 = 420.0;
const DEPTH: f64 = 200.0;
/// Stands per side the generator aims at.
const STANDS: u32 = 300;
/// The generator's seed, and the battle's dice seed.
pub const SEED: u64 = 1809;

fn blob(g: &mut Gen, c: Point, r: f64, n: usize) -> Vec<Point> {
    (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            let rr = r * g.range(0.7, 1.0);
            Point::new(c.x + rr * a.cos(), c.y + rr * a.sin())
        })
        .collect()
}

/// Terrain between the armies: woods, fields, a town and hills.
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
            construction: None,
        });
    };
    for k in 0..6 {
        let c = Point::new(40.0 + 65.0 * k as f64, g.range(85.0, 115.0));
        let kind = match k % 3 {
            0 => TerrainKind::HighArea,
            1 => TerrainKind::LowArea,
            _ => TerrainKind::Hill { level: 1 },
        };
        let r = g.range(6.0, 12.0);
        push(kind, Geometry::Polygon(blob(g, c, r, 10)));
    }
    push(
        TerrainKind::BuiltUp,
        Geometry::Polygon(blob(g, Point::new(WIDTH / 2.0, DEPTH / 2.0), 8.0, 6)),
    );
    out
}

/// The Ebelsberg armies (French and Austrian lists, their HQs) grown to about [`STANDS`]
/// stands a side by repeating their order of battle's units, drawn up in four ranks facing each
/// other 60 cm apart, with the river and the objectives taken away.
pub fn large_scenario() -> Scenario {
    let mut s = samples::scenarios()
        .expect("samples")
        .into_iter()
        .find(|s| s.id.as_str() == "1809-ebelsberg")
        .expect("Ebelsberg");
    let mut g = Gen(SEED);
    s.table.width_cm = WIDTH;
    s.table.depth_cm = DEPTH;
    s.terrain = terrain(&mut g);
    s.defender = None;
    s.turn_limit = 10;
    for (si, side) in s.sides.iter_mut().enumerate() {
        side.field_defenses.clear();
        side.objectives = Default::default();
        side.deployment_zone.clear();
        let template = side.units.clone();
        let brigades: Vec<_> = side
            .hqs
            .iter()
            .filter(|h| h.parent.is_some())
            .map(|h| h.id)
            .collect();
        let mut units = Vec::new();
        let mut stands = 0u32;
        let mut k = 0usize;
        while stands < STANDS {
            let Some(t) = template.get(k % template.len()) else {
                break;
            };
            let mut u = t.clone();
            u.id = UnitId(1000 * (si as u32 + 1) + k as u32);
            u.name = format!("{} ({})", t.name, k / template.len() + 1);
            if let Some(b) = brigades.get(k % brigades.len().max(1)) {
                u.hq = *b;
            }
            let (rank, file) = (k / 28, k % 28);
            let x = 25.0 + 13.5 * file as f64;
            let depth = 14.0 * rank as f64;
            let (y, facing) = if si == 0 {
                (70.0 - depth, 0.0)
            } else {
                (130.0 + depth, 180.0)
            };
            u.position = Some(Placement {
                at: Point::new(x, y),
                facing_deg: facing,
            });
            stands += u32::from(u.stands);
            units.push(u);
            k += 1;
        }
        side.units = units;
        let n = side.hqs.len().max(1);
        for (j, h) in side.hqs.iter_mut().enumerate() {
            let x = 30.0 + (WIDTH - 60.0) * j as f64 / n as f64;
            let y = if si == 0 { 6.0 } else { DEPTH - 6.0 };
            h.position = Some(Placement {
                at: Point::new(x, y),
                facing_deg: if si == 0 { 0.0 } else { 180.0 },
            });
        }
    }
    s
}

/// FNV-1a, 64 bits: a hash that no Rust or crate upgrade can change, for pinning a log.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
