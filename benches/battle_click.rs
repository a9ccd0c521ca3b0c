//! One click to act on the battle page (issue #17 item 11): the sample's solo battle open in
//! the app, a French battalion selected, and a click on one of its offered actions (a change of
//! formation the engine's `options` offers). Timed: the command the click emits applied by the
//! app — `Battle::perform` (the whole `check`, resolve and apply), the entry committed to the
//! SQLite store on disk, the Battles list and the panel rebuilt (units, dice log, table scene)
//! — then one frame of the whole window with the battle page (`App::ui` in `Context::run_ui`,
//! the selected unit's options asked of the engine again) and egui's tessellation: everything
//! before the GPU. Between iterations, not timed, the action is undone (another stored entry),
//! so every click acts on the same position.
//!
//! Target: median ≤ 16 ms, one frame at 60 Hz (`cargo bench --bench battle_click`).

use criterion::{criterion_group, criterion_main, Criterion};
use powderhorn::app::App;
use powderhorn::rules::{Action, PieceId};
use powderhorn::store::Store;
use powderhorn::ui::AppCommand;
use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZE: egui::Vec2 = egui::vec2(1600.0, 1000.0);

fn input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, SIZE)),
        events: vec![egui::Event::PointerMoved(egui::pos2(800.0, 500.0))],
        ..Default::default()
    }
}

/// One frame of the window: the UI run, its commands applied, and its shapes tessellated.
fn frame(ctx: &egui::Context, app: &mut App) -> usize {
    let mut out = ctx.run_ui(input(), |ui| app.ui(ui));
    // No renderer takes the font atlas: say so (debug builds check it was handled).
    out.textures_delta.clear();
    ctx.tessellate(out.shapes, out.pixels_per_point).len()
}

/// A French unit and a formation change the engine offers it now.
fn offered_click(app: &App) -> (PieceId, Action) {
    let run = app.battle_run().expect("the battle is open");
    let battle = run.session.battle();
    for p in battle.state().pieces.values().filter(|p| p.id.side() == 0) {
        let Ok(o) = battle.options(p.id) else {
            continue;
        };
        if let Some(f) = o.formations.first() {
            let action = Action::Deploy {
                piece: p.id,
                formation: *f,
            };
            assert!(battle.check(&action).is_ok(), "offered, so allowed");
            return (p.id, action);
        }
    }
    panic!("no French unit is offered a formation change at the start of the sample");
}
/// The app on a new database with the sample's battle open: solo (the computer plays the
/// Austrians), or hot-seat with fog of war and the French player at the screen.
fn open(db: &std::path::Path, fog: bool, ctx: &egui::Context) -> App {
    let mut app = App::with_store(Store::open(db).expect("store"), db.display().to_string());
    if fog {
        app.apply(
            AppCommand::StartBattle(powderhorn::ui::battle::StartRequest {
                scenario: powderhorn::model::ScenarioId("1809-ebelsberg".into()),
                computer: None,
                referee: false,
                physical: false,
                seed: Some(1),
                full_orders: true,
                first_player: Some(0),
                go_ahead: true,
                fog: true,
            }),
            ctx,
        );
        let id = app.battle_run().expect("the battle is open").session.id();
        app.ui_state.fog_viewer = Some((id, 0));
    } else {
        app.start_battle_of("1809-ebelsberg", 1)
            .expect("the sample's battle starts");
    }
    app
}

fn bench_battle_click(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut g = c.benchmark_group("battle_click");
    for (name, fog) in [
        ("ebelsberg_solo_deploy_commit_repaint", false),
        ("ebelsberg_hotseat_fog_deploy_commit_repaint", true),
    ] {
        let db = dir.path().join(format!("{name}.sqlite"));
        let ctx = egui::Context::default();
        powderhorn::ui::widgets::install_style(&ctx);
        let mut app = open(&db, fog, &ctx);
        assert_eq!(app.battle_run().map(|r| r.panel.fog.is_some()), Some(fog));
        let (piece, action) = offered_click(&app);
        app.ui_state.battle_selected = Some(piece);
        // Warm: a few frames and one click, undone.
        for _ in 0..3 {
            frame(&ctx, &mut app);
        }
        let entries = |app: &App| {
            app.battle_run()
                .map_or(0, |r| r.session.battle().entries().len())
        };
        app.apply(AppCommand::BattleAction(action.clone()), &ctx);
        assert_eq!(entries(&app), 1, "the click acted");
        app.apply(AppCommand::BattleUndo, &ctx);
        assert_eq!(entries(&app), 0, "and was undone");
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t = Instant::now();
                    app.apply(AppCommand::BattleAction(action.clone()), &ctx);
                    black_box(frame(&ctx, &mut app));
                    total += t.elapsed();
                    app.apply(AppCommand::BattleUndo, &ctx);
                }
                total
            })
        });
        eprintln!(
            "battle_click {name}: {} entries in the stored log after the bench",
            app.battle_run().map_or(0, |r| r.session.record().entries)
        );
    }
    g.finish();
}

/// What resuming a fogged battle costs: the whole memory folded from a long log (the sample
/// played to its end by the solo opponent on both sides), one sight look per entry.
fn bench_fog_fold(c: &mut Criterion) {
    use powderhorn::session::{NewBattle, Session};
    let mut store = Store::open_in_memory().expect("store");
    let scenario = store
        .load_scenario(&powderhorn::model::ScenarioId("1809-ebelsberg".into()))
        .expect("the sample is stored");
    let lists = powderhorn::model::army::shipped_lists().expect("lists");
    let new = NewBattle {
        dice: powderhorn::rules::DiceSource::Seed(1809),
        orders: powderhorn::rules::command::OrdersMode::Full,
        first_player: Some(0),
        mode: powderhorn::store::PlayMode::Computer,
        go_ahead: true,
        fog: false,
    };
    let mut s = Session::start(&mut store, scenario, &lists, &new).expect("starts");
    s.play_ai(
        &mut store,
        [true, true],
        powderhorn::ai::Until::End,
        &mut |_| true,
    )
    .expect("plays");
    let battle = s.battle();
    eprintln!("fog_fold: {} entries", battle.entries().len());
    c.bench_function("fog_fold/ebelsberg_played_to_the_end", |b| {
        b.iter(|| black_box(powderhorn::rules::fog::FogMemory::of_battle(battle, 0)))
    });
}

criterion_group!(benches, bench_battle_click, bench_fog_fold);
criterion_main!(benches);
