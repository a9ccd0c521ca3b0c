//! The table view widget (`powderhorn::ui::table`) driven headless with `egui_kittest`: the
//! projector's round trip, zoom about the pointer, Home, hovering a stand at its table position,
//! the terrain mesh cache and the area a concave wood's mesh covers. Canvas items have no
//! accessibility nodes, so the tests point at table centimetres through the projector the view
//! itself used for its last frame.

use egui::{Event, Key, Modifiers, MouseWheelSource, MouseWheelUnit, TouchPhase};
use egui_kittest::Harness;
use powderhorn::geom::{ring_area, Point};
use powderhorn::model::{
    army::shipped_lists, samples, FeatureId, Geometry, TerrainFeature, TerrainKind,
};
use powderhorn::rules::{BattleState, PieceId};
use powderhorn::ui::table::{terrain, Camera, Projector, TableResponse, TableScene, TableView};

struct Tab {
    view: TableView,
    scene: TableScene,
    last: Option<TableResponse>,
    /// Every drag reported finished, in order (a page acts on the frame it is reported).
    drops: Vec<powderhorn::ui::table::TableDrag>,
}

fn harness(scene: TableScene) -> Harness<'static, Tab> {
    Harness::builder()
        .with_size(egui::vec2(900.0, 640.0))
        .build_ui_state(
            |ui, t: &mut Tab| {
                let r = t.view.show(ui, &t.scene);
                if let Some(d) = r.drag.filter(|d| d.finished) {
                    t.drops.push(d);
                }
                t.last = Some(r);
            },
            Tab {
                view: TableView::new(),
                scene,
                last: None,
                drops: Vec::new(),
            },
        )
}

fn feature(id: u32, kind: TerrainKind, ring: Vec<Point>) -> TerrainFeature {
    TerrainFeature {
        id: FeatureId(id),
        name: format!("feature {id}"),
        kind,
        geometry: Geometry::Polygon(ring),
        dense: false,
        frozen: false,
        construction: None,
    }
}

/// An L-shaped wood: concave, 30 × 20 with a 15 × 10 corner cut away (area 450 cm²).
fn l_wood() -> Vec<Point> {
    vec![
        Point::new(20.0, 20.0),
        Point::new(50.0, 20.0),
        Point::new(50.0, 30.0),
        Point::new(35.0, 30.0),
        Point::new(35.0, 40.0),
        Point::new(20.0, 40.0),
    ]
}

fn plain_scene() -> TableScene {
    TableScene {
        width_cm: 240.0,
        depth_cm: 180.0,
        terrain: vec![
            feature(1, TerrainKind::HighArea, l_wood()),
            feature(
                2,
                TerrainKind::Hill { level: 1 },
                vec![
                    Point::new(100.0, 100.0),
                    Point::new(140.0, 100.0),
                    Point::new(140.0, 130.0),
                    Point::new(100.0, 130.0),
                ],
            ),
        ],
        ..TableScene::default()
    }
}

fn sample_scene() -> (TableScene, BattleState) {
    let scenario = samples::scenarios()
        .unwrap()
        .into_iter()
        .find(|s| s.id.as_str() == "1809-ebelsberg")
        .unwrap();
    let lists = shipped_lists().unwrap();
    let state = BattleState::setup(&scenario, &lists, 0).unwrap();
    (TableScene::of_battle(&scenario, &lists, &state), state)
}

fn projector(h: &Harness<'static, Tab>) -> Projector {
    h.state().view.projector().expect("a frame was drawn")
}

fn wheel(h: &Harness<'static, Tab>, dy: f32) {
    h.event(Event::MouseWheel {
        unit: MouseWheelUnit::Point,
        delta: egui::vec2(0.0, dy),
        phase: TouchPhase::Move,
        source: MouseWheelSource::Unknown,
        modifiers: Modifiers::NONE,
    });
}

fn close(a: Point, b: Point, tol: f64) -> bool {
    (a.x - b.x).abs() <= tol && (a.y - b.y).abs() <= tol
}

#[test]
fn the_projector_round_trips_table_cm_and_screen_points() {
    let view = egui::Rect::from_min_size(egui::pos2(30.0, 50.0), egui::vec2(900.0, 640.0));
    let mut checked = 0;
    for (zoom, cx, cy) in [(3.7, 120.0, 90.0), (41.0, 12.5, 170.0), (0.9, -10.0, 300.0)] {
        let p = Projector::new(
            view,
            Camera {
                centre: Point::new(cx, cy),
                zoom,
            },
        );
        for i in 0..20 {
            let t = Point::new(i as f64 * 12.3 - 5.0, 180.0 - i as f64 * 9.1);
            let back = p.to_table(p.to_screen(t));
            // f32 screen points: a thousandth of a point, divided by the zoom.
            assert!(
                close(back, t, 2e-3 * 240.0 / zoom + 1e-4),
                "{t:?} -> {back:?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 60);
    // And the other way: a screen point comes back to itself.
    let p = Projector::new(view, Camera::fit(240.0, 180.0, view));
    let s = egui::pos2(412.5, 333.25);
    let back = p.to_screen(p.to_table(s));
    assert!((back - s).length() < 1e-3);
}

#[test]
fn the_first_frame_fits_the_whole_table_in_view() {
    let mut h = harness(plain_scene());
    h.run();
    let p = projector(&h);
    let table = p.rect_to_screen(powderhorn::geom::Rect {
        min: Point::new(0.0, 0.0),
        max: Point::new(240.0, 180.0),
    });
    assert!(p.view.contains_rect(table), "{table:?} in {:?}", p.view);
    // Fitted: the table fills the view along one axis, up to the margin.
    let fill = (table.width() / p.view.width()).max(table.height() / p.view.height());
    assert!(fill > 0.9, "table fills {fill} of the view");
}

#[test]
fn zooming_with_the_wheel_keeps_the_table_point_under_the_pointer() {
    let mut h = harness(plain_scene());
    h.run();
    let before = projector(&h);
    let cursor = egui::pos2(250.0, 420.0);
    let under = before.to_table(cursor);
    h.hover_at(cursor);
    h.run();
    wheel(&h, 120.0);
    h.run();
    let after = projector(&h);
    assert!(after.zoom() > before.zoom() * 1.2, "zoomed in");
    let still = after.to_table(cursor);
    assert!(close(still, under, 1e-3), "{under:?} moved to {still:?}");
    // And out again with `-`, still about the pointer.
    h.key_press(Key::Minus);
    h.run();
    let out = projector(&h);
    assert!(out.zoom() < after.zoom());
    assert!(close(out.to_table(cursor), under, 1e-3));
}

#[test]
fn home_fits_the_table_again_after_panning_and_zooming() {
    let mut h = harness(plain_scene());
    h.run();
    let fitted = projector(&h).camera;
    h.hover_at(egui::pos2(200.0, 200.0));
    h.run();
    h.key_press(Key::Plus);
    h.run();
    h.key_press(Key::ArrowRight);
    h.run();
    let moved = projector(&h).camera;
    assert!(moved.zoom > fitted.zoom && moved.centre != fitted.centre);
    h.key_press(Key::Home);
    h.run();
    let home = projector(&h).camera;
    assert!((home.zoom - fitted.zoom).abs() < 1e-9);
    assert!(close(home.centre, Point::new(120.0, 90.0), 1e-9));
}

#[test]
fn hovering_a_stand_at_its_table_position_reports_its_piece() {
    let (scene, state) = sample_scene();
    let mut h = harness(scene);
    h.run();
    let mut checked = 0;
    // Every unit's first stand centre, as the engine places it.
    let ids: Vec<PieceId> = state
        .pieces
        .values()
        .filter(|p| p.pose.is_some() && !p.id.is_command())
        .map(|p| p.id)
        .take(8)
        .collect();
    for id in ids {
        let centre = h.state().scene.piece(id).unwrap().stands[0].centre;
        // A piece drawn later on top of this one may cover the point: skip those.
        let top = h
            .state()
            .scene
            .pieces
            .iter()
            .rev()
            .find(|p| p.covers(centre))
            .map(|p| p.id);
        if top != Some(id) {
            continue;
        }
        let at = projector(&h).to_screen(centre);
        h.hover_at(at);
        h.run();
        let r = h.state().last.as_ref().unwrap();
        assert_eq!(r.hovered_piece, Some(id), "at {centre:?}");
        assert!(close(r.pointer.unwrap(), centre, 0.05));
        checked += 1;
    }
    assert!(checked >= 5, "checked {checked} units");
    // Open cloth: nothing hovered.
    let empty = Point::new(1.0, 1.0);
    h.hover_at(projector(&h).to_screen(empty));
    h.run();
    assert_eq!(h.state().last.as_ref().unwrap().hovered_piece, None);
}

#[test]
fn clicking_a_stand_reports_the_piece_and_the_point() {
    let (scene, _) = sample_scene();
    let mut h = harness(scene);
    h.run();
    let pc = h.state().scene.pieces.last().unwrap().clone();
    let at = projector(&h).to_screen(pc.stands[0].centre);
    h.hover_at(at);
    h.run();
    h.event(Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    h.event(Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    h.step();
    let r = h.state().last.as_ref().unwrap();
    assert_eq!(r.clicked_piece, Some(pc.id));
    assert!(close(r.clicked_point.unwrap(), pc.stands[0].centre, 0.05));
}

#[test]
fn dragging_a_stand_reports_the_piece_and_both_table_points() {
    let (scene, _) = sample_scene();
    let mut h = harness(scene);
    h.run();
    let pc = h.state().scene.pieces.last().unwrap().clone();
    let from = pc.stands[0].centre;
    let to = Point::new(from.x + 10.0, from.y - 6.0);
    let p = projector(&h);
    h.hover_at(p.to_screen(from));
    h.run();
    h.drag_at(p.to_screen(from));
    h.step();
    h.hover_at(p.to_screen(Point::new(from.x + 5.0, from.y - 3.0)));
    h.step();
    h.hover_at(p.to_screen(to));
    h.step();
    let during = h.state().last.as_ref().unwrap().drag.expect("dragging");
    assert!(!during.finished);
    assert_eq!(during.piece, Some(pc.id));
    assert!(close(during.from, from, 0.05) && close(during.to, to, 0.05));
    assert!(h.state().drops.is_empty());
    h.drop_at(p.to_screen(to));
    h.run();
    assert_eq!(h.state().drops.len(), 1, "one drop");
    let done = h.state().drops[0];
    assert!(close(done.to, to, 0.05), "{:?}", done.to);
    // A primary drag never pans: the camera is where it was.
    assert_eq!(projector(&h).camera, p.camera);
}

#[test]
fn the_mesh_cache_triangulates_a_feature_once_and_again_only_when_it_changes() {
    let mut h = harness(plain_scene());
    h.run();
    assert_eq!(h.state().view.mesh_cache().triangulations(), 2, "two areas");
    // Pan and zoom over several frames: nothing is triangulated again.
    h.hover_at(egui::pos2(300.0, 300.0));
    for _ in 0..3 {
        wheel(&h, 80.0);
        h.run();
        h.key_press(Key::ArrowLeft);
        h.run();
    }
    assert_eq!(h.state().view.mesh_cache().triangulations(), 2);
    // Move one corner of the hill: that feature alone is triangulated again.
    if let Geometry::Polygon(ring) = &mut h.state_mut().scene.terrain[1].geometry {
        ring[2] = Point::new(150.0, 135.0);
    }
    h.run();
    assert_eq!(h.state().view.mesh_cache().triangulations(), 3);
    h.run();
    assert_eq!(h.state().view.mesh_cache().triangulations(), 3);
}

#[test]
fn a_concave_woods_mesh_covers_its_area_not_its_hull() {
    let ring = l_wood();
    let area = ring_area(&ring);
    assert_eq!(area, 30.0 * 20.0 - 15.0 * 10.0, "worked by hand: 450 cm²");
    let mut cache = terrain::MeshCache::default();
    let wood = feature(7, TerrainKind::HighArea, ring);
    let mesh = cache.mesh(&wood).expect("an area").mesh.clone();
    let covered = terrain::mesh_area(&mesh);
    assert!((covered - 450.0).abs() < 1e-3, "mesh covers {covered} cm²");
    assert_eq!(
        mesh.indices.len() / 3,
        4,
        "an L of six corners is four triangles"
    );
    // A line feature has no mesh.
    let road = TerrainFeature {
        geometry: Geometry::Polyline {
            points: vec![Point::new(0.0, 0.0), Point::new(10.0, 0.0)],
            width_cm: 2.0,
        },
        kind: TerrainKind::Road,
        ..wood
    };
    assert!(cache.mesh(&road).is_none());
}
