//! One frame of the table view (issue #17 item 11): the line-of-sight bench's table (600
//! stands in 120 units, 150 terrain features on 240 × 180 cm, `tests/support/los_table.rs`)
//! drawn by `ui::table::TableView` at 1600 × 1000 points and tessellated by egui, no GPU: layout,
//! painting and `Context::tessellate`, which is everything a frame costs before the renderer.
//! Target: median ≤ 4 ms (`cargo bench --bench table_frame`).
//!
//! The terrain meshes are warm after the first frame (they are triangulated once, see
//! `ui::table::terrain`); `table_frame/zooming` changes the camera every frame to show that
//! panning and zooming cost no more than a still frame.

use criterion::{criterion_group, criterion_main, Criterion};
use powderhorn::ui::table::{TableScene, TableView};
use std::hint::black_box;

#[path = "../tests/support/los_table.rs"]
mod los_table;

const SIZE: egui::Vec2 = egui::vec2(1600.0, 1000.0);

fn input(events: Vec<egui::Event>) -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, SIZE)),
        events,
        ..Default::default()
    }
}

/// One frame: run the UI, then tessellate what it painted. Returns the triangle count.
fn frame(
    ctx: &egui::Context,
    view: &mut TableView,
    scene: &TableScene,
    events: Vec<egui::Event>,
) -> usize {
    let out = ctx.run_ui(input(events), |ui| {
        view.show(ui, scene);
    });
    let prims = ctx.tessellate(out.shapes, out.pixels_per_point);
    prims
        .iter()
        .map(|p| match &p.primitive {
            egui::epaint::Primitive::Mesh(m) => m.indices.len() / 3,
            egui::epaint::Primitive::Callback(_) => 0,
        })
        .sum()
}

fn scene() -> TableScene {
    let t = los_table::table(0x5eed_1809, &los_table::Knobs::bench());
    let scene = TableScene::of_battle(&t.scenario, &t.lists, &t.state);
    // 600 combat stands (120 units of 5); the engine's footprints add a limber behind some
    // guns, so more rectangles are drawn than stands counted.
    let stands: u32 = t.state.pieces.values().map(|p| u32::from(p.stands)).sum();
    let drawn: usize = scene.pieces.iter().map(|p| p.stands.len()).sum();
    assert_eq!(stands, 600, "the bench table has 600 stands");
    assert_eq!(scene.terrain.len(), 150, "and 150 features");
    eprintln!("table_frame: {stands} stands ({drawn} rectangles), 150 features");
    scene
}

fn bench_table_frame(c: &mut Criterion) {
    let scene = scene();
    let ctx = egui::Context::default();
    powderhorn::ui::widgets::install_style(&ctx);
    let mut view = TableView::new();
    // The pointer over the middle of the table: hover test and coordinates run too.
    let hover = || vec![egui::Event::PointerMoved(egui::pos2(800.0, 500.0))];
    let tris = frame(&ctx, &mut view, &scene, hover());
    let tris = frame(&ctx, &mut view, &scene, hover()).max(tris);
    eprintln!(
        "table_frame: {} triangles, {} labels, {} meshes triangulated",
        tris,
        view.labels_drawn(),
        view.mesh_cache().triangulations()
    );
    let mut g = c.benchmark_group("table_frame");
    g.bench_function("600_stands_150_features_1600x1000", |b| {
        b.iter(|| black_box(frame(&ctx, &mut view, &scene, hover())))
    });
    let mut k = 0u32;
    g.bench_function("zooming", |b| {
        b.iter(|| {
            k += 1;
            let dy = if k % 20 < 10 { 40.0 } else { -40.0 };
            let ev = vec![
                egui::Event::PointerMoved(egui::pos2(700.0, 450.0)),
                egui::Event::MouseWheel {
                    unit: egui::MouseWheelUnit::Point,
                    delta: egui::vec2(0.0, dy),
                    phase: egui::TouchPhase::Move,
                    source: egui::MouseWheelSource::Unknown,
                    modifiers: egui::Modifiers::NONE,
                },
            ];
            black_box(frame(&ctx, &mut view, &scene, ev))
        })
    });
    g.finish();
    eprintln!(
        "after the bench: {} meshes triangulated in all",
        view.mesh_cache().triangulations()
    );
}

criterion_group!(benches, bench_table_frame);
criterion_main!(benches);
