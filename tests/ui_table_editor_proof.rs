//! Issue #18 item 9, the proof: a scenario authored from nothing in the window — two sides,
//! their commands and units, terrain drawn on the table, a field defence bought, deployment
//! zones, objectives and every unit placed — validates with no violations, starts in the battle
//! window and plays to its end in `battle autoplay`.
//!
//! Each step is what the window does: a click on the table where the editor is driven by the
//! pointer (the wood), and otherwise the very command a button or form of the window emits
//! (`AppCommand`), applied as a click applies it. The clicks of every tool are tested one by one
//! in tests/ui_table_editor*.rs.

#[path = "support/ui.rs"]
mod ui_support;

use egui::Key;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::{export_scenario_file, App};
use powderhorn::geom::Point;
use powderhorn::model::validate::validate_scenario;
use powderhorn::model::{
    DefenseId, DefenseKind, DefensePosture, FieldDefense, HqId, ListId, TerrainKind,
};
use powderhorn::ui::battle::StartRequest;
use powderhorn::ui::commands::{AppCommand, ReadyMade, ScenarioEdit, ScenarioSettings, SideArea};
use ui_support::{click_cm, harness_sized, messages, open_now as open, send};

fn edit(h: &mut Harness<'static, App>, e: ScenarioEdit) {
    send(h, AppCommand::Edit(e));
}

fn ring(x0: f64, y0: f64, x1: f64, y1: f64) -> Vec<Point> {
    vec![
        Point::new(x0, y0),
        Point::new(x1, y0),
        Point::new(x1, y1),
        Point::new(x0, y1),
    ]
}

#[test]
fn a_scenario_authored_from_nothing_validates_starts_and_autoplays() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("proof.sqlite");
    let mut h = harness_sized(ui_support::app_on(&db), egui::vec2(1500.0, 950.0));
    h.run();

    // A new scenario with two empty sides, then its settings: 1,200 points a side, 8 turns, the
    // Austrians defending in a hasty position (DEF-01, DEF-02: 120 points of defences at most).
    send(
        &mut h,
        AppCommand::NewScenario {
            name: "Proof: the crossroads at Hausen".into(),
            lists: [ListId::new("nap-french"), ListId::new("nap-austrian")],
        },
    );
    let s = open(&h);
    assert!(s.terrain.is_empty() && s.sides.iter().all(|d| d.units.is_empty()));
    let mut settings = ScenarioSettings::of(&s);
    settings.points = 1200;
    settings.turn_limit = 8;
    settings.defense = DefensePosture::Hasty;
    settings.defender = Some(1);
    edit(&mut h, ScenarioEdit::Settings(Box::new(settings)));

    // Each side: a commanding officer and four units of the list's usual line troops.
    for side in 0..2 {
        edit(&mut h, ScenarioEdit::AddHq { side, parent: None });
        let hq: HqId = open(&h).sides[side].hqs[0].id;
        for _ in 0..4 {
            edit(&mut h, ScenarioEdit::AddUnit { side, hq });
        }
    }
    let s = open(&h);
    assert_eq!(
        s.sides.iter().map(|d| d.units.len()).collect::<Vec<_>>(),
        [4, 4]
    );

    // The table (the default 180 × 120 cm or whatever the template has): a wood drawn corner
    // by corner on the Table view, and a ready-made village at the crossroads.
    ui_support::open_scenario_tab(&mut h, &s.name, "Table");
    let (w, d) = (s.table.width_cm, s.table.depth_cm);
    h.get_by_label("Draw area").click();
    h.run();
    h.get_by_label("High area").click();
    h.run();
    for p in [
        Point::new(w * 0.10, d * 0.42),
        Point::new(w * 0.25, d * 0.40),
        Point::new(w * 0.24, d * 0.58),
        Point::new(w * 0.11, d * 0.57),
    ] {
        click_cm(&mut h, p);
    }
    h.key_press(Key::Enter);
    h.run();
    h.run();
    edit(
        &mut h,
        ScenarioEdit::AddPiece {
            piece: ReadyMade::Village,
            at: Point::new(w * 0.6, d * 0.5),
        },
    );
    let s = open(&h);
    assert!(s.terrain.iter().any(|f| f.kind == TerrainKind::HighArea));
    assert!(s.terrain.len() >= 2, "{:?}", s.terrain);

    // Deployment zones at the two long edges, the village as each side's major objective and
    // the wood as the French minor one, with the terms in words.
    edit(
        &mut h,
        ScenarioEdit::SetArea {
            side: 0,
            area: SideArea::DeploymentZone,
            ring: ring(0.0, 0.0, w, d * 0.25),
        },
    );
    edit(
        &mut h,
        ScenarioEdit::SetArea {
            side: 1,
            area: SideArea::DeploymentZone,
            ring: ring(0.0, d * 0.75, w, d),
        },
    );
    for side in 0..2 {
        edit(
            &mut h,
            ScenarioEdit::SetArea {
                side,
                area: SideArea::MajorObjective,
                ring: ring(w * 0.55, d * 0.45, w * 0.65, d * 0.55),
            },
        );
        edit(
            &mut h,
            ScenarioEdit::SetObjectiveText {
                side,
                major: true,
                description: "Hold Hausen at the end of the game.".into(),
            },
        );
    }

    // Every unit and command placed in its zone, laid out in line.
    edit(&mut h, ScenarioEdit::DeploySide(0));
    edit(&mut h, ScenarioEdit::DeploySide(1));
    let s = open(&h);
    assert!(s
        .sides
        .iter()
        .all(|d| d.units.iter().all(|u| u.position.is_some())
            && d.hqs.iter().all(|q| q.position.is_some())));

    // The defender buys a trench for one of its battalions (DEF-03: 5 points), dug in where
    // the battalion stands.
    let holder = &s.sides[1].units[0];
    let at = holder.position.expect("placed").at;
    edit(
        &mut h,
        ScenarioEdit::AddDefense {
            side: 1,
            defense: Box::new(FieldDefense {
                id: DefenseId(1),
                kind: DefenseKind::Trench,
                sections: 1,
                at: ring(at.x - 6.0, at.y - 2.0, at.x + 6.0, at.y + 2.0),
                occupant: Some(holder.id),
            }),
        },
    );

    // What the store holds now is the whole scenario.
    let stored = h
        .state()
        .store()
        .unwrap()
        .load_scenario(&s.id)
        .expect("saved as it was made");
    assert_eq!(
        stored.sides[1].field_defenses.len(),
        1,
        "{:?}",
        messages(&h)
    );
    let lists = h.state().store().unwrap().army_lists().unwrap();
    let problems = validate_scenario(&stored, &lists);
    assert!(problems.is_empty(), "{problems:#?}");

    // It starts in the battle window: solo, the computer playing the Austrians.
    send(
        &mut h,
        AppCommand::StartBattle(StartRequest {
            scenario: stored.id.clone(),
            computer: Some(1),
            referee: false,
            physical: false,
            seed: Some(7),
            full_orders: true,
            first_player: Some(0),
            go_ahead: false,
            fog: false,
        }),
    );
    let run = h.state().battle_run().expect("the battle started");
    assert_eq!(run.session.record().scenario.id, stored.id);
    h.get_by_label("Battles").click();
    h.run();
    assert!(
        h.query_by_label("End phase").is_some(),
        "the battle window shows it"
    );

    // And it plays to its end in `battle autoplay` from its exported file.
    let file = dir.path().join("proof.json");
    export_scenario_file(h.state().store().unwrap(), &stored.id, &file).expect("exported");
    drop(h);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_powderhorn"))
        .arg("--db")
        .arg(dir.path().join("cli.sqlite"))
        .args(["battle", "autoplay"])
        .arg(&file)
        .args(["--seed", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("game turn") || text.contains("turns"),
        "{text}"
    );
}
