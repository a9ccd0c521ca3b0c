//! #21 item 2 in the scenario settings: every optional rule's switch shows what it changes in
//! our own words, and weather and night are each stated once — as switches beside the starting
//! weather — not as a setting and again as a switch.

#[path = "support/ui.rs"]
mod ui_support;

use egui_kittest::kittest::Queryable;
use powderhorn::model::{samples, OptionalRule, Weather};
use ui_support::{app_with, harness_sized, open_scenario_tab};

fn ebelsberg() -> powderhorn::model::Scenario {
    samples::scenarios()
        .expect("the samples parse")
        .into_iter()
        .next()
        .expect("a sample scenario")
}

#[test]
fn opt_weather_01_opt_night_01_every_switch_shows_its_gist_and_weather_and_night_appear_once() {
    let scenario = ebelsberg();
    let mut h = harness_sized(app_with(&scenario), egui::vec2(1280.0, 900.0));
    open_scenario_tab(&mut h, &scenario.name, "Scenario settings");
    let mut shown = 0;
    for rule in OptionalRule::ALL {
        // The gist is on the page: under the switch, or as the weather switches' hover.
        if matches!(rule, OptionalRule::Weather | OptionalRule::Night) {
            continue;
        }
        assert!(
            h.query_by_label(rule.gist()).is_some(),
            "{rule:?}: its gist is not shown"
        );
        // One switch per rule, named with its rule family.
        let switches = h.query_all_by_label_contains(rule.family()).count();
        assert_eq!(switches, 1, "{rule:?}: {switches} switches");
        shown += 1;
    }
    assert_eq!(shown, 10);
    assert_eq!(
        h.query_all_by_label_contains("OPT-WEATHER").count(),
        1,
        "the weather rule is one switch"
    );
    assert_eq!(
        h.query_all_by_label_contains("OPT-NIGHT").count(),
        1,
        "night is one switch"
    );
    // Off: no starting-weather choice, and the page says the weather is fair throughout.
    assert!(h.query_by_label("Starting weather").is_none());
    assert!(h
        .query_by_label("no weather rules: fair weather throughout")
        .is_some());

    // Switching the weather rule on offers the starting weather, and the choice is saved.
    h.get_by_label("Weather rules (OPT-WEATHER)").click();
    h.run();
    h.get_by_label("Starting weather").click();
    h.run();
    h.get_by_label("starts poor").click();
    h.run();
    let saved = h
        .state()
        .store()
        .and_then(|s| s.load_scenario(&scenario.id).ok())
        .expect("saved");
    assert!(saved.optional_rules.contains(&OptionalRule::Weather));
    assert_eq!(saved.weather, Weather::Poor);
    assert!(h
        .query_by_label_contains("starts poor unless rolled before the battle")
        .is_some());
}

#[test]
fn opt_night_01_an_older_files_night_weather_is_the_night_switch_and_clears_with_it() {
    let mut scenario = ebelsberg();
    scenario.optional_rules = vec![OptionalRule::Weather];
    scenario.weather = Weather::Night;
    let mut h = harness_sized(app_with(&scenario), egui::vec2(1280.0, 900.0));
    open_scenario_tab(&mut h, &scenario.name, "Scenario settings");
    assert!(h
        .query_by_label_contains("fought at night (OPT-NIGHT)")
        .is_some());
    h.get_by_label("Fought at night (OPT-NIGHT)").click();
    h.run();
    let saved = h
        .state()
        .store()
        .and_then(|s| s.load_scenario(&scenario.id).ok())
        .expect("saved");
    assert_eq!(
        saved.weather,
        Weather::Normal,
        "night off clears the old value"
    );
    assert!(!saved.optional_rules.contains(&OptionalRule::Night));
    assert!(saved.optional_rules.contains(&OptionalRule::Weather));
}
