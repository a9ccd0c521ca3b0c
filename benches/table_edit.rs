//! One corner edit in the table editor (issue #18 item 10): a 40-corner wood on the 150-feature
//! bench table (`tests/support/los_table.rs`, `Knobs::bench`: 600 stands in 120 units on
//! 240 × 180 cm; its first wood replaced by a 40-corner one, so still 150 features), the wood
//! selected in the editor's Select tool, and one of its corners dragged 2 cm and let go.
//!
//! What the editor does for that, and what is timed:
//!
//! * `table_edit/corner_edit_commit` — the drop's `ScenarioEdit::SetFeature` applied by the app
//!   (`App::apply`): the edit checked (DATA-05..09 on that one feature), the scenario saved to
//!   the SQLite store on disk, one undo step kept, and the scenario checked again (the
//!   validator's violations and the book's advice, whose BAS-06 cover is worked out once by the
//!   app's `CoverCache`: the union of the other 149 features was kept when the wood was first
//!   edited, before timing, so each timed edit adds the wood to it by its overlap with the
//!   shapes near it).
//! * `table_edit/corner_edit_commit_repaint` — the same, then the next frame of the whole window
//!   (`App::ui` in `Context::run_ui` at 1600 × 1000, and egui's tessellation): the editor's
//!   cache rebuilt (the scene, the placement problems; the cover is the app's), the edited wood
//!   re-triangulated alone (the other 149 meshes stay cached) and everything drawn.
//! * the parts: `retriangulate_one` (earcut of the 40-corner wood into a mesh, the only mesh
//!   made again), `terrain_cover` (BAS-06, the union worked out afresh), `cover_cache_edit`
//!   (the same cover kept by `CoverCache` with the wood's corner moved back and forth),
//!   `still_frame` (a frame with nothing edited, for comparison).
//!
//! Between iterations, not timed, the edit is undone (another save), so every edit starts from
//! the same table. Target (issue #18): ≤ 2 ms for the edit with its re-triangulation.
//! `cargo bench --bench table_edit`.

use criterion::{criterion_group, criterion_main, Criterion};
use powderhorn::app::App;
use powderhorn::geom::Point;
use powderhorn::model::{FeatureId, Geometry, Scenario, TerrainFeature, TerrainKind};
use powderhorn::store::Store;
use powderhorn::ui::table_editor::Tool;
use powderhorn::ui::{AppCommand, Page, ScenarioEdit};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "../tests/support/los_table.rs"]
mod los_table;

const SIZE: egui::Vec2 = egui::vec2(1600.0, 1000.0);
/// The corner dragged.
const CORNER: usize = 7;

fn input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, SIZE)),
        events: vec![egui::Event::PointerMoved(egui::pos2(900.0, 500.0))],
        ..Default::default()
    }
}

/// One frame of the window: the UI run, its commands applied, and its shapes tessellated.
fn frame(ctx: &egui::Context, app: &mut App) -> usize {
    let mut out = ctx.run_ui(input(), |ui| app.ui(ui));
    out.textures_delta.clear();
    ctx.tessellate(out.shapes, out.pixels_per_point).len()
}

/// The bench table with its first wood replaced by a 40-corner wood of about the same size.
fn table() -> (Scenario, FeatureId) {
    let t = los_table::table(0x5eed_1809, &los_table::Knobs::bench());
    let mut s = t.scenario;
    assert_eq!(s.terrain.len(), 150, "the bench table has 150 features");
    let slot = s
        .terrain
        .iter_mut()
        .find(|f| f.kind == TerrainKind::HighArea)
        .expect("the bench table has woods");
    let pts = slot.geometry.points();
    let n = pts.len() as f64;
    let c = Point::new(
        pts.iter().map(|p| p.x).sum::<f64>() / n,
        pts.iter().map(|p| p.y).sum::<f64>() / n,
    );
    let ring: Vec<Point> = (0..40)
        .map(|i| {
            let a = std::f64::consts::TAU * f64::from(i) / 40.0;
            let r = if i % 2 == 1 { 9.0 } else { 10.0 };
            Point::new(
                (c.x + r * a.cos()).clamp(0.5, s.table.width_cm - 0.5),
                (c.y + 0.7 * r * a.sin()).clamp(0.5, s.table.depth_cm - 0.5),
            )
        })
        .collect();
    slot.geometry = Geometry::Polygon(ring);
    slot.name = "Forty-corner wood".into();
    let id = slot.id;
    (s, id)
}

/// The wood with corner `CORNER` moved by 2 cm.
fn edited(s: &Scenario, id: FeatureId) -> TerrainFeature {
    let mut f = s
        .terrain
        .iter()
        .find(|f| f.id == id)
        .expect("the wood")
        .clone();
    if let Geometry::Polygon(ring) = &mut f.geometry {
        let p = &mut ring[CORNER];
        p.x += 2.0
            * if p.x > s.table.width_cm / 2.0 {
                -1.0
            } else {
                1.0
            };
    }
    f
}

fn bench_table_edit(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("table_edit.sqlite");
    let (scenario, wood) = table();
    let mut store = Store::open(&db).expect("store");
    store.save_scenario(&scenario).expect("saved");
    let ctx = egui::Context::default();
    powderhorn::ui::widgets::install_style(&ctx);
    let mut app = App::with_store(store, db.display().to_string());
    app.ui_state.page = Page::OrdersOfBattle;
    app.apply(AppCommand::OpenScenario(scenario.id.clone()), &ctx);
    assert!(app.open_scenario().is_some(), "the scenario is open");
    app.ui_state.show_table = true;
    app.ui_state.table_editor.tool = Tool::Select;
    app.ui_state.table_editor.selected_feature = Some(wood);
    for _ in 0..3 {
        frame(&ctx, &mut app);
    }
    let before = app.ui_state.table.mesh_cache().triangulations();
    let cmd = AppCommand::Edit(ScenarioEdit::SetFeature(Box::new(edited(&scenario, wood))));
    app.apply(cmd.clone(), &ctx);
    frame(&ctx, &mut app);
    let after = app.ui_state.table.mesh_cache().triangulations();
    assert_eq!(after - before, 1, "one edit, one feature re-triangulated");
    assert_ne!(app.open_scenario(), Some(&scenario), "the edit was applied");
    app.apply(AppCommand::Undo, &ctx);
    assert_eq!(app.open_scenario(), Some(&scenario), "and undone");
    frame(&ctx, &mut app);
    eprintln!(
        "table_edit: {} features, the wood has {} corners, {} meshes cached",
        scenario.terrain.len(),
        edited(&scenario, wood).geometry.points().len(),
        app.ui_state.table.mesh_cache().len()
    );

    let mut g = c.benchmark_group("table_edit");
    for (name, repaint) in [
        ("corner_edit_commit", false),
        ("corner_edit_commit_repaint", true),
    ] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t = Instant::now();
                    app.apply(cmd.clone(), &ctx);
                    if repaint {
                        black_box(frame(&ctx, &mut app));
                    }
                    total += t.elapsed();
                    app.apply(AppCommand::Undo, &ctx);
                    if repaint {
                        frame(&ctx, &mut app);
                    }
                }
                total
            })
        });
    }
    g.bench_function("still_frame", |b| {
        b.iter(|| black_box(frame(&ctx, &mut app)))
    });
    let moved = edited(&scenario, wood);
    let mut k = 0u32;
    let mut cache = powderhorn::ui::table::terrain::MeshCache::default();
    let mut other = moved.clone();
    let original = scenario
        .terrain
        .iter()
        .find(|f| f.id == wood)
        .expect("the wood")
        .clone();
    g.bench_function("retriangulate_one", |b| {
        b.iter(|| {
            // Alternate the two shapes, so every call re-triangulates.
            k += 1;
            other.geometry = if k.is_multiple_of(2) {
                moved.geometry.clone()
            } else {
                original.geometry.clone()
            };
            black_box(cache.mesh(&other).is_some())
        })
    });
    g.bench_function("terrain_cover", |b| {
        b.iter(|| black_box(powderhorn::model::advice::terrain_cover(&scenario)))
    });
    let mut cache = powderhorn::model::advice::CoverCache::default();
    let mut shifted = scenario.clone();
    cache.cover(&shifted);
    let slot = shifted
        .terrain
        .iter()
        .position(|f| f.id == wood)
        .expect("the wood");
    g.bench_function("cover_cache_edit", |b| {
        b.iter(|| {
            k += 1;
            if let Some(f) = shifted.terrain.get_mut(slot) {
                f.geometry = if k.is_multiple_of(2) {
                    moved.geometry.clone()
                } else {
                    original.geometry.clone()
                };
            }
            black_box(cache.cover(&shifted))
        })
    });
    g.finish();
}

criterion_group!(benches, bench_table_edit);
criterion_main!(benches);
