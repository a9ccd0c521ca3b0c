//! The Powderhorn window driven headless with `egui_kittest` (no display, no GPU): the order of
//! battle editor with live points and undo, the army-list browser with a user troop type, and the
//! scenario file import/export code that sits behind the dialogs.

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use powderhorn::app::{export_scenario_file, import_scenario_file, App, ImportError};
use powderhorn::model::points::side_points;
use powderhorn::model::{
    find_list, CommandLevel, Commander, Hq, HqId, ListId, Quality, Scenario, ScenarioId,
    TroopTypeId,
};
use powderhorn::store::Store;
use powderhorn::ui::widgets::thousands;

const TEST_ID: &str = "test-of-arms";
const TEST_NAME: &str = "Test of Arms";

fn commander(id: u32, name: &str, level: CommandLevel, value: u8) -> Commander {
    Commander {
        id: powderhorn::model::CommanderId(id),
        name: name.into(),
        note: String::new(),
        level,
        quality: Quality::Average,
        command_value: value,
        replaced_once: false,
    }
}

/// A small scenario: a French CO with one brigade, an Austrian CO.
fn test_scenario() -> Scenario {
    let lists = [ListId::new("nap-french"), ListId::new("nap-austrian")];
    let all = powderhorn::model::army::shipped_lists().unwrap();
    let mut s = powderhorn::app::edit::template(ScenarioId::new(TEST_ID), TEST_NAME, &lists, &all);
    s.sides[0].hqs = vec![
        Hq {
            id: HqId(1),
            name: "II Corps".into(),
            parent: None,
            commander: commander(1, "Lannes", CommandLevel::Corps, 9),
            mounted: true,
            position: None,
            fao: false,
            nation: None,
            ally: false,
        },
        Hq {
            id: HqId(2),
            name: "1st Brigade".into(),
            parent: Some(HqId(1)),
            commander: commander(2, "Coëhorn", CommandLevel::Brigade, 7),
            mounted: true,
            position: None,
            fao: false,
            nation: None,
            ally: false,
        },
    ];
    s.sides[1].hqs = vec![Hq {
        id: HqId(3),
        name: "VI Korps".into(),
        parent: None,
        commander: commander(3, "Hiller", CommandLevel::Corps, 9),
        mounted: true,
        position: None,
        fao: false,
        nation: None,
        ally: false,
    }];
    s
}

fn store_with_test_scenario() -> Store {
    let mut store = Store::open_in_memory().unwrap();
    store.save_scenario(&test_scenario()).unwrap();
    store
}

fn harness(app: App) -> Harness<'static, App> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, app: &mut App| app.ui(ui), app)
}

/// The app on a fresh in-memory store (the embedded samples) in the smallest window we support.
fn harness_1024_by_640() -> Harness<'static, App> {
    Harness::builder()
        .with_size(egui::vec2(1024.0, 640.0))
        .build_ui_state(
            |ui, app: &mut App| app.ui(ui),
            App::new(Store::open_in_memory().unwrap()),
        )
}

/// The text the side card shows for side `i` of the open scenario.
fn points_text(app: &App, side: usize) -> String {
    let s = app.open_scenario().unwrap();
    let lists = app.store().unwrap().army_lists().unwrap();
    let list = find_list(&lists, &s.sides[side].army_list).unwrap();
    let total = side_points(&s.sides[side], list).total();
    format!(
        "{} / {} pts",
        thousands(total),
        thousands(i64::from(s.points))
    )
}

fn open_test_scenario(h: &mut Harness<'static, App>) {
    h.get_by_label("Orders of battle").click();
    h.run();
    h.get_by_label(TEST_NAME).click();
    h.run();
    assert_eq!(h.state().open_scenario().unwrap().id.as_str(), TEST_ID);
}

#[test]
fn adding_a_unit_changes_the_side_points_and_undo_restores_them() {
    let mut h = harness(App::new(store_with_test_scenario()));
    open_test_scenario(&mut h);

    let before = points_text(h.state(), 0);
    assert!(
        h.query_by_label(&before).is_some(),
        "side card shows {before}"
    );

    h.get_by_label("1st Brigade").click();
    h.run();
    h.get_by_label("Add unit").click();
    h.run();

    let s = h.state().open_scenario().unwrap();
    assert_eq!(s.sides[0].units.len(), 1, "one unit added");
    assert_eq!(
        s.sides[0].units[0].hq,
        HqId(2),
        "under the selected brigade"
    );
    let after = points_text(h.state(), 0);
    assert_ne!(before, after, "a unit costs points");
    assert!(
        h.query_by_label(&after).is_some(),
        "side card shows {after}"
    );
    assert!(h.query_by_label(&before).is_none());
    // Saved at once.
    let stored = h
        .state()
        .store()
        .unwrap()
        .load_scenario(&ScenarioId::new(TEST_ID))
        .unwrap();
    assert_eq!(stored.sides[0].units.len(), 1);

    // The Undo button.
    h.get_by_label("Undo").click();
    h.run();
    assert_eq!(h.state().open_scenario().unwrap().sides[0].units.len(), 0);
    assert!(
        h.query_by_label(&before).is_some(),
        "points back to {before}"
    );
    let stored = h
        .state()
        .store()
        .unwrap()
        .load_scenario(&ScenarioId::new(TEST_ID))
        .unwrap();
    assert_eq!(stored.sides[0].units.len(), 0, "undo is saved too");

    // Redo with Ctrl+Shift+Z, then undo with Ctrl+Z.
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run();
    assert!(
        h.query_by_label(&after).is_some(),
        "redo shows {after} again"
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert!(
        h.query_by_label(&before).is_some(),
        "Ctrl+Z restores {before}"
    );
    assert_eq!(h.state().open_scenario().unwrap().sides[0].units.len(), 0);

    // Ctrl+Y is redo too.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    h.run();
    assert_eq!(h.state().open_scenario().unwrap().sides[0].units.len(), 1);
}

#[test]
fn renaming_commits_on_enter_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pw.sqlite");
    {
        let mut store = Store::open(&db).unwrap();
        store.save_scenario(&test_scenario()).unwrap();
        let mut h = harness(App::new(store));
        open_test_scenario(&mut h);
        h.get_by_label("1st Brigade").click();
        h.run();
        let field = h.get_by_label("HQ name");
        field.focus();
        field.type_text(" (Coëhorn)");
        h.run();
        // Typing alone changes nothing yet.
        assert_eq!(
            h.state().open_scenario().unwrap().sides[0].hqs[1].name,
            "1st Brigade"
        );
        h.key_press(Key::Enter);
        h.run();
        assert_eq!(
            h.state().open_scenario().unwrap().sides[0].hqs[1].name,
            "1st Brigade (Coëhorn)"
        );
    }
    let store = Store::open(&db).unwrap();
    let s = store.load_scenario(&ScenarioId::new(TEST_ID)).unwrap();
    assert_eq!(s.sides[0].hqs[1].name, "1st Brigade (Coëhorn)");
}

#[test]
fn clicking_undo_while_typing_commits_the_edit_first() {
    let mut h = harness(App::new(store_with_test_scenario()));
    open_test_scenario(&mut h);
    h.get_by_label("1st Brigade").click();
    h.run();
    h.get_by_label("Add unit").click();
    h.run();
    h.get_by_label("1st Brigade").click();
    h.run();
    let field = h.get_by_label("HQ name");
    field.focus();
    field.type_text(" (Coëhorn)");
    h.run();
    h.get_by_label("Undo").click();
    h.run();
    let name = |h: &Harness<'static, App>| {
        h.state().open_scenario().unwrap().sides[0].hqs[1]
            .name
            .clone()
    };
    assert_eq!(
        name(&h),
        "1st Brigade",
        "the rename was committed, then undone"
    );
    assert_eq!(
        h.state().open_scenario().unwrap().sides[0].units.len(),
        1,
        "the unit added before stays"
    );
    h.get_by_label("Redo").click();
    h.run();
    assert_eq!(name(&h), "1st Brigade (Coëhorn)");
}

#[test]
fn a_number_field_commits_once_on_enter() {
    let mut h = harness(App::new(store_with_test_scenario()));
    open_test_scenario(&mut h);
    h.get_by_label("1st Brigade").click();
    h.run();
    h.get_by_label("Add unit").click();
    h.run();
    let before = h.state().open_scenario().unwrap().sides[0].units[0].stands;
    h.get_by_label("Stands").click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Stands").type_text("7");
    h.run();
    h.key_press(Key::Enter);
    h.run();
    assert_ne!(before, 7);
    assert_eq!(
        h.state().open_scenario().unwrap().sides[0].units[0].stands,
        7
    );
    // One edit, one undo step.
    h.get_by_label("Undo").click();
    h.run();
    assert_eq!(
        h.state().open_scenario().unwrap().sides[0].units[0].stands,
        before
    );
}

#[test]
fn army_list_browser_shows_rows_and_adds_a_user_troop_type() {
    let mut h = harness(App::new(Store::open_in_memory().unwrap()));
    h.get_by_label("Army lists").click();
    h.run();
    h.get_by_label("Napoleonic French Army").click();
    h.run();
    assert!(
        h.query_by_label("Old Guard").is_some(),
        "the French troop chart is shown"
    );
    assert!(h.query_by_label("Troop Stand").is_some());

    // The form sits below the charts: scroll to it as a user would.
    h.get_by_label("Add troop type").scroll_to_me();
    h.run();
    let name = h.get_by_label("Troop name");
    name.focus();
    name.type_text("Vistula Lancers");
    h.run();
    h.get_by_label("Add troop type").click();
    h.run();

    assert!(
        h.query_by_label("Vistula Lancers").is_some(),
        "the new row is in the chart"
    );
    assert!(
        h.query_by_label("Remove").is_some(),
        "a user row can be removed"
    );
    let list = ListId::new("nap-french");
    let row = TroopTypeId::new("user-vistula-lancers");
    let store = h.state().store().unwrap();
    assert!(
        store.is_user_troop_type(&list, &row).unwrap(),
        "stored as a user row"
    );
    assert!(store.army_list(&list).unwrap().troop_type(&row).is_some());

    h.get_by_label("Remove").scroll_to_me();
    h.run();
    h.get_by_label("Remove").click();
    h.run();
    assert!(h.query_by_label("Vistula Lancers").is_none());
    assert!(h
        .state()
        .store()
        .unwrap()
        .army_list(&list)
        .unwrap()
        .troop_type(&row)
        .is_none());
}

#[test]
fn scenarios_page_creates_copies_and_deletes_after_asking() {
    let mut h = harness(App::new(Store::open_in_memory().unwrap()));
    h.get_by_label("Scenarios").click();
    h.run();
    let name = h.get_by_label("New scenario name");
    name.focus();
    name.type_text("Aspern-Essling");
    h.run();
    h.get_by_label("New scenario").click();
    h.run();
    // Created, saved and opened in the editor with two empty sides.
    let s = h.state().open_scenario().unwrap().clone();
    assert_eq!(s.name, "Aspern-Essling");
    assert_eq!(s.sides.len(), 2);
    assert!(s
        .sides
        .iter()
        .all(|d| d.hqs.is_empty() && d.units.is_empty()));
    let store = h.state().store().unwrap();
    assert!(store
        .scenario_summaries()
        .unwrap()
        .iter()
        .any(|r| r.id == s.id));

    h.get_by_label("Scenarios").click();
    h.run();
    let count = |h: &Harness<'static, App>| {
        h.state()
            .store()
            .unwrap()
            .scenario_summaries()
            .unwrap()
            .len()
    };
    let before = count(&h);
    h.get_all_by_label("Duplicate").next().unwrap().click();
    h.run();
    assert_eq!(count(&h), before + 1);

    // Delete asks first; Cancel keeps it.
    h.get_all_by_label("Delete").next().unwrap().click();
    h.run();
    assert!(h.query_by_label("Delete this scenario?").is_some());
    h.get_by_label("Cancel").click();
    h.run();
    assert_eq!(count(&h), before + 1);
    h.get_all_by_label("Delete").next().unwrap().click();
    h.run();
    h.get_by_label("Delete scenario").click();
    h.run();
    assert_eq!(count(&h), before);
}

#[test]
fn import_rejects_a_malformed_file_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.json");
    std::fs::write(
        &path,
        "{\n  \"format\": 1,\n  \"id\": \"x\",\n  \"name\": oops\n}\n",
    )
    .unwrap();
    let mut store = Store::open_in_memory().unwrap();
    let before = store.scenario_summaries().unwrap().len();
    let err = import_scenario_file(&mut store, &path).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("broken.json"), "names the file: {msg}");
    assert!(msg.contains(":4:"), "names the line: {msg}");
    assert_eq!(
        store.scenario_summaries().unwrap().len(),
        before,
        "nothing saved"
    );
}

#[test]
fn export_then_import_round_trips_and_refuses_to_replace_silently() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test-of-arms.json");
    let mut store = store_with_test_scenario();
    let id = ScenarioId::new(TEST_ID);
    export_scenario_file(&store, &id, &path).unwrap();
    assert!(path.exists());

    // The same id is already there: refused unless asked.
    let err = import_scenario_file(&mut store, &path).unwrap_err();
    assert!(matches!(err, ImportError::Exists { .. }), "{err}");

    let original = store.load_scenario(&id).unwrap();
    store.delete_scenario(&id).unwrap();
    let back = import_scenario_file(&mut store, &path).unwrap();
    assert_eq!(back, id);
    assert_eq!(store.load_scenario(&id).unwrap(), original);
}

#[test]
fn a_database_that_will_not_open_is_explained_in_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("not-a-db.sqlite");
    std::fs::write(&db, "this is not SQLite, it is a shopping list\n").unwrap();
    let err = match Store::open(&db) {
        Ok(_) => panic!("a text file opened as a database"),
        Err(e) => e,
    };
    let mut h = harness(App::with_problem(&db, &err));
    h.run();
    assert!(h
        .query_by_label("The database could not be opened")
        .is_some());
    assert!(h
        .query_by_label("Nothing has been written to the file.")
        .is_some());
    assert_eq!(
        std::fs::read_to_string(&db).unwrap(),
        "this is not SQLite, it is a shopping list\n"
    );
}

#[test]
fn status_bar_counts_one_scenario_in_the_singular() {
    // A fresh store holds the shipped samples: three scenarios of one campaign. With the two
    // Aspern-Essling days deleted, one scenario is left.
    let mut store = Store::open_in_memory().unwrap();
    assert_eq!(store.scenario_summaries().unwrap().len(), 3);
    for id in ["1809-aspern-essling-1", "1809-aspern-essling-2"] {
        store.delete_scenario(&ScenarioId(id.into())).unwrap();
    }
    assert_eq!(store.scenario_summaries().unwrap().len(), 1);
    assert_eq!(store.campaign_summaries().unwrap().len(), 1);
    let lists = store.army_lists().unwrap().len();
    let mut h = harness(App::new(store));
    h.run();
    let expected = format!("{lists} army lists · 1 scenario · 1 campaign");
    assert!(
        h.query_by_label(&expected).is_some(),
        "the status bar reads {expected:?}"
    );
    assert!(h.query_by_label_contains("1 scenarios").is_none());
}

/// #22 item 6: a bad number is refused at the field, visibly, and nothing is saved: the turn
/// limit −5 used to become 1, and "abc" in the table size was dropped without a word.
#[test]
fn a_bad_number_is_refused_at_the_field_and_nothing_is_saved() {
    let mut h = harness(App::new(store_with_test_scenario()));
    open_test_scenario(&mut h);
    let before = h.state().open_scenario().unwrap().clone();
    for (field, typed, says) in [
        ("Turn limit", "-5", "Turn limit: -5 is out of range"),
        (
            "Table width (cm)",
            "abc",
            "Table width (cm): \"abc\" is not a number",
        ),
    ] {
        h.get_by_label(field).click();
        h.run();
        h.key_press_modifiers(Modifiers::COMMAND, Key::A);
        h.get_by_label(field).type_text(typed);
        h.run();
        h.key_press(Key::Enter);
        h.run();
        h.run();
        assert!(
            h.query_by_label_contains(says).is_some(),
            "no message at the field for {typed:?} in {field}"
        );
        let now = h.state().open_scenario().unwrap();
        assert_eq!(now.turn_limit, before.turn_limit, "{field}");
        assert_eq!(now.table, before.table, "{field}");
    }
    // Put right, it saves.
    h.get_by_label("Turn limit").click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Turn limit").type_text("9");
    h.run();
    h.key_press(Key::Enter);
    h.run();
    assert_eq!(h.state().open_scenario().unwrap().turn_limit, 9);
    assert!(h.query_by_label_contains("Turn limit: ").is_none());
}

/// #22 item 6: notes no longer pile up and push the page down: one line shows the newest, the
/// earlier ones fold behind "N earlier".
#[test]
fn notes_show_one_line_with_the_earlier_ones_folded_away() {
    let mut h = harness(App::new(store_with_test_scenario()));
    h.run();
    for _ in 0..3 {
        let ctx = h.ctx.clone();
        h.state_mut().apply(
            powderhorn::ui::AppCommand::DuplicateScenario(powderhorn::model::ScenarioId::new(
                TEST_ID,
            )),
            &ctx,
        );
        h.run();
    }
    let notes: Vec<String> = h
        .state()
        .messages()
        .iter()
        .map(|m| m.text.clone())
        .collect();
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert!(
        h.query_by_label_contains(&notes[2]).is_some(),
        "the newest is shown"
    );
    for earlier in &notes[..2] {
        assert!(
            h.query_by_label_contains(earlier).is_none(),
            "an earlier note is still taking room: {earlier}"
        );
    }
    assert!(h.query_by_label_contains("2 earlier").is_some());
}

/// #22 item 5: where the system's file dialog cannot open (no desktop portal, no zenity), the
/// built-in chooser asks for the path, completes it from the folder, refuses a path that cannot
/// be used and writes where it was told.
#[test]
fn the_built_in_file_chooser_exports_where_the_path_says() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = App::new(store_with_test_scenario());
    app.use_builtin_file_chooser();
    let mut h = harness(app);
    h.run();
    let ctx = h.ctx.clone();
    h.state_mut().apply(
        powderhorn::ui::AppCommand::ExportScenarioDialog(powderhorn::model::ScenarioId::new(
            TEST_ID,
        )),
        &ctx,
    );
    h.run();
    assert!(h
        .query_by_label_contains("The system's file dialog could not open here")
        .is_some());
    let bad = dir.path().join("no-such-folder").join("out.json");
    let good = dir.path().join("out.json");
    for (path, ok) in [(&bad, false), (&good, true)] {
        h.get_by_label("File path").click();
        h.run();
        h.key_press_modifiers(Modifiers::COMMAND, Key::A);
        h.get_by_label("File path")
            .type_text(&path.display().to_string());
        h.run();
        h.get_by_label("Save").click();
        h.run();
        assert_eq!(path.exists(), ok, "{}", path.display());
        if !ok {
            assert!(h.query_by_label_contains("there is no folder").is_some());
        }
    }
    let back = std::fs::read_to_string(&good).unwrap();
    assert!(back.contains(TEST_ID));
    assert!(
        h.query_by_label("File path").is_none(),
        "the chooser closed"
    );
}

/// #22 item 6: the window opens again on the scenario that was open when it closed.
#[test]
fn the_last_open_scenario_is_open_again_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("restart.sqlite");
    {
        let mut store = Store::open(&db).unwrap();
        store.save_scenario(&test_scenario()).unwrap();
        let mut app = App::with_store(store, db.display().to_string());
        app.apply(
            powderhorn::ui::AppCommand::OpenScenario(powderhorn::model::ScenarioId::new(TEST_ID)),
            &egui::Context::default(),
        );
        assert_eq!(app.open_scenario().unwrap().id.as_str(), TEST_ID);
    }
    let mut app = App::with_store(Store::open(&db).unwrap(), db.display().to_string());
    assert!(app.open_scenario().is_none());
    app.reopen_last_scenario();
    assert_eq!(app.open_scenario().unwrap().id.as_str(), TEST_ID);
    // A scenario deleted since is not looked for.
    let store = Store::open_in_memory().unwrap();
    store.set_setting("last_scenario", "gone").unwrap();
    let mut app = App::new(store);
    app.reopen_last_scenario();
    assert!(app.open_scenario().is_none());
}

/// #22 item 6: below ~1280 px the two side columns ran into each other and under the
/// inspector. At 1024×640 the sides stack, and nothing of them reaches the inspector's fields.
#[test]
fn at_1024_by_640_the_sides_and_the_inspector_do_not_overlap() {
    let mut h = harness_1024_by_640();
    h.run();
    h.get_by_label("Orders of battle").click();
    h.run();
    h.get_by_label("Ebelsberg, 3 May 1809").click();
    h.run();
    h.run();
    // A side's card heading: the leftmost node of that name (the inspector names them too).
    let heading = |name: &str| {
        h.query_all_by_label(name)
            .map(|n| n.rect())
            .min_by(|a, b| a.left().total_cmp(&b.left()))
            .unwrap_or_else(|| panic!("no '{name}' on the page"))
    };
    let french = heading("French: Masséna's advance guard");
    let austrian = heading("Austrian: Hiller's rearguard");
    let name = h.get_by_label("Name").rect();
    assert!(
        !french.intersects(austrian),
        "the side headings overlap: {french:?} {austrian:?}"
    );
    for (what, r) in [("French", french), ("Austrian", austrian)] {
        assert!(
            r.right() <= name.left(),
            "the {what} heading ({r:?}) runs under the inspector's Name field ({name:?})"
        );
    }
}

#[test]
fn at_1024_by_640_every_scenario_row_shows_all_its_buttons_left_of_the_new_scenario_form() {
    let mut h = harness_1024_by_640();
    h.run();
    h.get_by_label("Scenarios").click();
    h.run();
    h.run();
    let rows = h
        .state()
        .store()
        .unwrap()
        .scenario_summaries()
        .unwrap()
        .len();
    assert!(rows >= 3, "the embedded database ships three scenarios");
    // The form on the right begins where its name field's label does.
    let form_left = h.get_by_label("New scenario name").rect().left();
    for label in [
        "Open",
        "Print…",
        "Balance…",
        "Duplicate",
        "Export…",
        "Delete",
    ] {
        let rects: Vec<egui::Rect> = h.query_all_by_label(label).map(|n| n.rect()).collect();
        assert_eq!(rects.len(), rows, "one '{label}' per row");
        for r in rects {
            assert!(
                r.right() <= form_left && r.left() >= 0.0 && r.bottom() <= 640.0,
                "'{label}' at {r:?} is not wholly on the page left of the form (at {form_left})"
            );
        }
    }
}
