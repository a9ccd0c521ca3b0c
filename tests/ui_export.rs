//! Printing from the window, driven headless with `egui_kittest`: the print options popup, the
//! background job with its progress bar, and what the message area says afterwards. No file
//! dialog is opened: the tests send `AppCommand::PrintTo`, which is what the save dialog leads to.

use egui::{Key, Modifiers};
use egui_kittest::kittest::{NodeT as _, Queryable};
use egui_kittest::Harness;
use powderhorn::app::App;
use powderhorn::export::{LabelOptions, Paper, Per, RosterOptions};
use powderhorn::model::{
    CommandLevel, Commander, CommanderId, Hq, HqId, ListId, Quality, Scenario, ScenarioId,
};
use powderhorn::store::Store;
use powderhorn::ui::{AppCommand, JobStatus, Print, UiState, View};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

/// The shipped sample, seeded into every new database.
const EBELSBERG: &str = "1809-ebelsberg";
const EBELSBERG_NAME: &str = "Ebelsberg, 3 May 1809";
const FRENCH: &str = "French: Masséna's advance guard";

#[path = "support/ui.rs"]
mod ui_support;
use ui_support::apply_now as send;

fn harness(app: App) -> Harness<'static, App> {
    ui_support::harness_sized(app, egui::vec2(1280.0, 800.0))
}

fn open_ebelsberg(h: &mut Harness<'static, App>) {
    h.get_by_label("Orders of battle").click();
    h.run();
    h.get_by_label(EBELSBERG_NAME).click();
    h.run();
    assert_eq!(h.state().open_scenario().unwrap().id.as_str(), EBELSBERG);
}

/// Runs frames until the print job has ended (at most a minute).
fn finish_printing(h: &mut Harness<'static, App>) {
    let start = Instant::now();
    while h.state().is_printing() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the print job did not finish"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    h.run();
}

fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn printing_the_roster_writes_the_pdf_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("1809-ebelsberg-roster.pdf");
    let mut h = harness(App::new(Store::open_in_memory().unwrap()));
    open_ebelsberg(&mut h);

    send(
        &mut h,
        AppCommand::PrintTo {
            scenario: ScenarioId::new(EBELSBERG),
            print: Print::Roster(RosterOptions::default()),
            path: path.clone(),
        },
    );
    assert!(h.state().is_printing(), "the job runs in the background");
    // While it runs (if this machine is slow enough to see it), the bar says what is being
    // written and the print buttons wait.
    h.step();
    if h.state().is_printing() {
        assert!(h
            .query_by_label_contains("Writing the roster of 'Ebelsberg")
            .is_some());
        assert!(h
            .get_by_label("Print roster…")
            .accesskit_node()
            .is_disabled());
    }
    finish_printing(&mut h);

    let report = h.state().last_print().expect("the job reported").clone();
    assert_eq!(report.result, Ok(()));
    assert_eq!(report.path, path);
    assert_eq!(report.progress, 1.0, "the progress reached the end");
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes.starts_with(b"%PDF-"), "a PDF");
    let doc = lopdf::Document::load_mem(&bytes).expect("the PDF parses");
    assert!(doc.get_pages().len() >= 2, "a section per side");
    assert_eq!(
        files_in(dir.path()),
        vec!["1809-ebelsberg-roster.pdf"],
        "no temporary file left"
    );

    let shown = format!("Wrote {}", path.display());
    assert!(
        h.query_by_label_contains(&shown).is_some(),
        "the message area says {shown}"
    );
    assert!(h
        .query_by_label_contains("the roster of 'Ebelsberg")
        .is_some());
    // The bar is gone and printing is possible again.
    assert!(h.query_by_label_contains("Writing ").is_none());
    assert!(!h
        .get_by_label("Print roster…")
        .accesskit_node()
        .is_disabled());
}

#[test]
fn label_options_reach_the_pdf() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("french-labels.pdf");
    let mut h = harness(App::new(Store::open_in_memory().unwrap()));
    open_ebelsberg(&mut h);
    send(
        &mut h,
        AppCommand::PrintTo {
            scenario: ScenarioId::new(EBELSBERG),
            print: Print::Labels(LabelOptions {
                per: Per::Unit,
                paper: Paper::Letter,
                scale: None,
                side: Some(FRENCH.into()),
            }),
            path: path.clone(),
        },
    );
    finish_printing(&mut h);
    let report = h.state().last_print().unwrap();
    assert_eq!(report.result, Ok(()), "{:?}", report.result);
    assert_eq!(report.progress, 1.0);
    let doc = lopdf::Document::load_mem(&std::fs::read(&path).unwrap()).unwrap();
    for id in doc.get_pages().values() {
        let mb = doc
            .get_dictionary(*id)
            .unwrap()
            .get(b"MediaBox")
            .unwrap()
            .as_array()
            .unwrap()
            .clone();
        let w = mb[2]
            .as_float()
            .or_else(|_| mb[2].as_i64().map(|i| i as f32))
            .unwrap();
        assert!((w - 612.0).abs() < 0.5, "Letter paper, got {w} pt wide");
    }
    assert!(h
        .query_by_label_contains("the unit labels of 'Ebelsberg")
        .is_some());
    assert!(h.query_by_label_contains("only, Letter").is_some());
}

fn commander(id: u32, name: &str) -> Commander {
    Commander {
        id: CommanderId(id),
        name: name.into(),
        note: String::new(),
        level: CommandLevel::Corps,
        quality: Quality::Average,
        command_value: 9,
        replaced_once: false,
    }
}

/// Two sides with a CO each and no units at all.
fn empty_scenario() -> Scenario {
    let lists = [ListId::new("nap-french"), ListId::new("nap-austrian")];
    let all = powderhorn::model::army::shipped_lists().unwrap();
    let mut s =
        powderhorn::app::edit::template(ScenarioId::new("empty"), "Empty Field", &lists, &all);
    for (i, side) in s.sides.iter_mut().enumerate() {
        side.hqs = vec![Hq {
            id: HqId(i as u32 + 1),
            name: format!("Corps {}", i + 1),
            parent: None,
            commander: commander(i as u32 + 1, "Anon"),
            mounted: true,
            position: None,
            fao: false,
            nation: None,
            ally: false,
        }];
    }
    s
}

#[test]
fn a_side_without_units_is_explained_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty-roster.pdf");
    let mut store = Store::open_in_memory().unwrap();
    store.save_scenario(&empty_scenario()).unwrap();
    let mut h = harness(App::new(store));
    h.get_by_label("Orders of battle").click();
    h.run();
    h.get_by_label("Empty Field").click();
    h.run();
    let side = h.state().open_scenario().unwrap().sides[0].name.clone();

    // The popup warns before anything is tried.
    h.get_by_label("Print roster…").click();
    h.run();
    assert!(h
        .query_by_label_contains(&format!("{side} has no units yet"))
        .is_some());
    h.get_by_label("Cancel").click();
    h.run();

    send(
        &mut h,
        AppCommand::PrintTo {
            scenario: ScenarioId::new("empty"),
            print: Print::Roster(RosterOptions::default()),
            path: path.clone(),
        },
    );
    finish_printing(&mut h);
    let report = h.state().last_print().unwrap();
    let err = report.result.clone().unwrap_err();
    assert!(err.contains("has no units"), "{err}");
    assert!(err.contains("Nothing was written"), "{err}");
    assert!(!path.exists());
    assert!(
        files_in(dir.path()).is_empty(),
        "no file, no temporary file"
    );
    assert!(
        h.query_by_label_contains(&format!("side '{side}' has no units"))
            .is_some(),
        "the export's own explanation is shown"
    );
    assert!(h.query_by_label_contains("Wrote").is_none());
    // The app keeps going: the editor still works.
    assert!(h.query_by_label("Corps 1").is_some());
}

#[test]
fn the_options_popup_builds_what_is_printed() {
    let mut h = harness(App::new(Store::open_in_memory().unwrap()));
    open_ebelsberg(&mut h);
    h.get_by_label("Print labels…").click();
    h.run();
    assert!(h
        .query_by_label(&format!("Print — {EBELSBERG_NAME}"))
        .is_some());
    h.get_by_label("Letter").click();
    h.run();
    h.get_by_label("Each unit").click();
    h.run();
    h.get_by_label("Sides").click();
    h.run();
    h.get_by_label(&format!("{FRENCH} only")).click();
    h.run();
    h.get_by_label("Ranges at").click();
    h.run();
    h.get_by_label("Brigade scale").click();
    h.run();
    assert_eq!(
        h.state().ui_state.print.print(),
        Print::Labels(LabelOptions {
            per: Per::Unit,
            paper: Paper::Letter,
            scale: Some(powderhorn::model::Scale::Brigade),
            side: Some(FRENCH.into()),
        })
    );
    // Switching to the roster keeps side and paper; the label choices go.
    h.get_by_label("Roster").click();
    h.run();
    assert!(h.query_by_label("Each unit").is_none());
    assert_eq!(
        h.state().ui_state.print.print(),
        Print::Roster(RosterOptions {
            side: Some(FRENCH.into()),
            paper: Paper::Letter,
        })
    );
    assert!(h.query_by_label("Save PDF…").is_some());
    h.get_by_label("Cancel").click();
    h.run();
    assert!(h
        .query_by_label(&format!("Print — {EBELSBERG_NAME}"))
        .is_none());

    // Ctrl+P opens it again, on the roster.
    h.key_press_modifiers(Modifiers::COMMAND, Key::P);
    h.run();
    assert!(h
        .query_by_label(&format!("Print — {EBELSBERG_NAME}"))
        .is_some());
    assert!(h.state().ui_state.print.open);
    h.key_press(Key::Escape);
    h.run();
    assert!(!h.state().ui_state.print.open, "Escape closes it");
}

#[test]
fn print_on_the_scenarios_page_opens_the_scenario_and_the_options() {
    let mut h = harness(App::new(Store::open_in_memory().unwrap()));
    h.get_by_label("Scenarios").click();
    h.run();
    assert!(h.state().open_scenario().is_none());
    h.get_all_by_label("Print…").next().unwrap().click();
    h.run();
    assert!(h.state().open_scenario().is_some());
    assert!(h.state().ui_state.print.open);
    let name = h.state().open_scenario().unwrap().name.clone();
    assert!(h.query_by_label(&format!("Print — {name}")).is_some());
}

/// The job bar alone, as the window draws it for a job part-way through.
#[test]
fn the_progress_bar_shows_what_is_written_and_can_stop_it() {
    struct Fixture {
        state: UiState,
        sent: Vec<AppCommand>,
        stopping: bool,
        styled: bool,
    }
    let empty = BTreeSet::new();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1000.0, 600.0))
        .build_ui_state(
            move |ui, f: &mut Fixture| {
                if !f.styled {
                    // The app's fonts (with its bold face), from the next pass.
                    powderhorn::ui::widgets::install_style(ui.ctx());
                    f.styled = true;
                    ui.ctx().request_discard("fonts installed");
                    return;
                }
                let view = View {
                    store_problem: None,
                    db_path: "(test)",
                    lists: &[],
                    user_rows: &empty,
                    scenarios: &[],
                    open: None,
                    violations: &[],
                    advice: &[],
                    terrain_cover: 0.0,
                    campaigns: &[],
                    campaign: None,
                    campaign_runs: &[],
                    campaign_run: None,
                    campaign_job: None,
                    messages: &[],
                    can_undo: false,
                    can_redo: false,
                    dialog_open: false,
                    job: Some(JobStatus {
                        what: "Writing the roster of 'Ebelsberg' (all sides, A4) to /tmp/e.pdf",
                        note: "Laying out the pages",
                        progress: 0.42,
                        stopping: f.stopping,
                    }),
                    battles: &[],
                    battle: None,
                    opponent: None,
                    options: None,
                    engine: None,
                };
                let sent = powderhorn::ui::show(ui, &view, &mut f.state);
                f.sent.extend(sent);
            },
            Fixture {
                state: UiState::default(),
                sent: Vec::new(),
                stopping: false,
                styled: false,
            },
        );
    h.run();
    assert!(h
        .query_by_label_contains("Writing the roster of 'Ebelsberg'")
        .is_some());
    assert!(h
        .query_by_label_contains("Laying out the pages — 42 %")
        .is_some());
    h.get_by_label("Stop").click();
    h.run();
    assert_eq!(h.state().sent, vec![AppCommand::CancelJob]);
    h.state_mut().stopping = true;
    h.run();
    assert!(h.query_by_label("Stop").is_none());
    assert!(h.query_by_label("Stopping…").is_some());
}
