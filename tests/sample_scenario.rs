//! The shipped sample scenario (Ebelsberg, 3 May 1809), its campaign (the Danube, 1809) and the
//! worked example of `docs/scenario-format.md`: each parses, is legal under the army-building
//! rules, and keeps the promises the format documentation makes, so neither the sample nor the
//! documentation can fall out of step with the model.

#[path = "support/builder.rs"]
mod builder;
use builder::ebelsberg;

use powderhorn::campaign::ordered_scenarios;
use powderhorn::geom::{ring_contains, Point};
use powderhorn::model::army::{shipped_lists, ArmyList, CommandLevel, Quality, RowGrade};
use powderhorn::model::defense::DefenseKind;
use powderhorn::model::oob::{Grade, Side};
use powderhorn::model::samples;
use powderhorn::model::scenario::{
    find_list, parse_scenario, DefensePosture, OptionalRule, Scale, Scenario, Weather,
    SCENARIO_FORMAT,
};
use powderhorn::model::terrain::{Geometry, TerrainKind};
use powderhorn::model::validate::{validate_scenario, Violation};
use std::collections::BTreeSet;

const DOC: &str = include_str!("../docs/scenario-format.md");
const DOC_FILE: &str = "docs/scenario-format.md";

fn lists() -> Vec<ArmyList> {
    shipped_lists().expect("the shipped army lists parse")
}

fn show(v: &[Violation]) -> String {
    v.iter().map(|v| format!("  {v}\n")).collect()
}

fn list_of<'a>(s: &Scenario, side: &Side, lists: &'a [ArmyList]) -> &'a ArmyList {
    s.list_for(side, lists).unwrap_or_else(|| {
        panic!(
            "side '{}': list '{}' is not shipped",
            side.name, side.army_list
        )
    })
}

/// The fenced ```json block that follows the "## Worked example" heading.
fn worked_example() -> &'static str {
    let at = DOC
        .find("\n## Worked example")
        .expect("the format doc has a '## Worked example' section");
    let rest = &DOC[at..];
    let open = rest
        .find("```json\n")
        .expect("the worked example is a ```json fenced block");
    let body = &rest[open + "```json\n".len()..];
    let close = body
        .find("\n```")
        .expect("the worked example block is closed");
    &body[..close]
}

// --- the sample -------------------------------------------------------------------------------

#[test]
fn the_sample_is_ebelsberg_1809_at_battalion_scale_with_two_sides() {
    let s = ebelsberg();
    assert_eq!(s.format, SCENARIO_FORMAT);
    assert_eq!(s.date, "3 May 1809");
    assert_eq!(s.year, Some(1809));
    assert_eq!(s.scale, Scale::Battalion);
    assert_eq!(s.weather, Weather::Normal);
    assert!(s.turn_limit > 0);
    assert_eq!((s.table.width_cm, s.table.depth_cm), (240.0, 180.0));
    assert!(
        s.points >= 1500,
        "a real battle, with list minimums in force"
    );
    assert_eq!(s.sides.len(), 2);
    assert_eq!(s.sides[0].army_list.as_str(), "nap-french");
    assert_eq!(s.sides[1].army_list.as_str(), "nap-austrian");
    assert!(
        s.description.contains("simplified"),
        "the description says the order of battle is simplified for the table"
    );
}

#[test]
fn every_hq_has_a_named_historical_commander_with_a_note_and_the_chart_command_value() {
    let s = ebelsberg();
    let lists = lists();
    let mut commander_ids = BTreeSet::new();
    for side in &s.sides {
        let list = list_of(&s, side, &lists);
        assert!(!side.hqs.is_empty(), "{} has HQs", side.name);
        let co = side
            .co()
            .unwrap_or_else(|| panic!("{} has exactly one CO", side.name));
        assert!(
            matches!(co.commander.level, CommandLevel::Corps | CommandLevel::Army),
            "{}: the CO commands the whole force",
            side.name
        );
        for h in &side.hqs {
            let c = &h.commander;
            assert!(
                !h.name.trim().is_empty(),
                "{}: an HQ without a name",
                side.name
            );
            assert!(
                !c.name.trim().is_empty(),
                "{}: HQ '{}' has no commander name",
                side.name,
                h.name
            );
            assert!(
                !c.note.trim().is_empty(),
                "{}: {} has no historical note",
                side.name,
                c.name
            );
            assert!(
                commander_ids.insert(c.id),
                "commander id {} is used twice",
                c.id
            );
            let row = list.command_type(c.level, c.quality).unwrap_or_else(|| {
                panic!("{}: no chart row for {:?} {:?}", c.name, c.level, c.quality)
            });
            assert_eq!(
                c.command_value, row.command,
                "{}: the chart's command value",
                c.name
            );
            assert!(
                h.position.is_some(),
                "{}: HQ '{}' is placed",
                side.name,
                h.name
            );
        }
    }
    let names = |i: usize| -> String {
        s.sides[i]
            .hqs
            .iter()
            .map(|h| h.commander.name.as_str())
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let french = names(0);
    for who in ["Masséna", "Claparède", "Coëhorn", "Legrand"] {
        assert!(
            french.contains(who),
            "{who} is in the French chain: {french}"
        );
    }
    let austrian = names(1);
    for who in ["Hiller", "Vincent", "Hohenfeld", "Bianchi"] {
        assert!(
            austrian.contains(who),
            "{who} is in the Austrian chain: {austrian}"
        );
    }
    assert!(s.sides[0].co().unwrap().commander.name.contains("Masséna"));
    assert!(s.sides[1].co().unwrap().commander.name.contains("Hiller"));
    // The catalogue's leadership guidance for 1809 Austrians: no Exceptional commanders.
    assert!(s.sides[1]
        .hqs
        .iter()
        .all(|h| h.commander.quality != Quality::Exceptional));
}

#[test]
fn every_unit_and_hq_is_placed_inside_its_deployment_zone() {
    let s = ebelsberg();
    for side in &s.sides {
        let zone = &side.deployment_zone;
        assert!(zone.len() >= 3, "{} has a deployment zone", side.name);
        let on_table = |p: Point| {
            (0.0..=s.table.width_cm).contains(&p.x) && (0.0..=s.table.depth_cm).contains(&p.y)
        };
        for u in &side.units {
            let p = u
                .position
                .unwrap_or_else(|| panic!("{}: unit '{}' is not placed", side.name, u.name));
            assert!(
                ring_contains(zone, p.at),
                "{}: unit '{}' at ({}, {}) is outside its deployment zone",
                side.name,
                u.name,
                p.at.x,
                p.at.y
            );
            assert!(on_table(p.at));
            assert!((0.0..360.0).contains(&p.facing_deg), "{}: facing", u.name);
        }
        for h in &side.hqs {
            let p = h.position.expect("every HQ is placed");
            assert!(
                ring_contains(zone, p.at),
                "{}: HQ '{}' at ({}, {}) is outside its deployment zone",
                side.name,
                h.name,
                p.at.x,
                p.at.y
            );
            assert!((0.0..360.0).contains(&p.facing_deg), "{}: facing", h.name);
        }
        for d in &side.field_defenses {
            assert!(!d.at.is_empty(), "field defence {} is placed", d.id);
            for &p in &d.at {
                assert!(
                    ring_contains(zone, p),
                    "{}: field defence {} point ({}, {}) is outside the deployment zone (DEF-05)",
                    side.name,
                    d.id,
                    p.x,
                    p.y
                );
            }
        }
    }
}

#[test]
fn a_hasty_defence_with_the_austrians_defending_and_a_dug_in_unit() {
    let s = ebelsberg();
    assert_eq!(s.defense, DefensePosture::Hasty);
    assert_eq!(s.defender, Some(1));
    let (french, austrian) = (&s.sides[0], &s.sides[1]);
    assert_eq!(austrian.army_list.as_str(), "nap-austrian");
    assert!(
        french.field_defenses.is_empty(),
        "the attacker buys no field defences"
    );
    assert!(!austrian.field_defenses.is_empty());
    for d in &austrian.field_defenses {
        assert!(
            d.kind.spec().hasty,
            "{:?} is available to a hasty defence",
            d.kind
        );
    }
    let trench = austrian
        .field_defenses
        .iter()
        .find(|d| d.kind == DefenseKind::Trench)
        .expect("a trench");
    let occupant = trench.occupant.expect("the trench shelters a unit");
    assert!(
        austrian.unit(occupant).is_some(),
        "the trench's occupant is an Austrian unit"
    );
}

#[test]
fn the_terrain_has_the_traun_its_bridge_the_town_the_castle_hill_woods_fields_and_walls() {
    let s = ebelsberg();
    let kinds: BTreeSet<&str> = s.terrain.iter().map(|f| f.kind.label()).collect();
    for k in [
        TerrainKind::DeepWet,
        TerrainKind::BuiltUp,
        TerrainKind::Hill { level: 1 },
        TerrainKind::Road,
        TerrainKind::HighArea,
        TerrainKind::LowArea,
        TerrainKind::Linear,
    ] {
        assert!(kinds.contains(k.label()), "terrain includes {}", k.label());
    }
    let levels: BTreeSet<u8> = s
        .terrain
        .iter()
        .filter_map(|f| match f.kind {
            TerrainKind::Hill { level } => Some(level),
            _ => None,
        })
        .collect();
    assert!(
        levels.contains(&1) && levels.contains(&2),
        "castle hill at levels 1 and 2: {levels:?}"
    );

    let mut ids = BTreeSet::new();
    for f in &s.terrain {
        assert!(ids.insert(f.id), "feature id {} is used twice", f.id);
        match (&f.geometry, f.kind.is_line()) {
            (Geometry::Polyline { points, width_cm }, true) => {
                assert!(points.len() >= 2 && *width_cm > 0.0, "{}", f.name)
            }
            (Geometry::Polygon(ring), false) => assert!(ring.len() >= 3, "{}", f.name),
            _ => panic!(
                "{}: a {} drawn with the wrong geometry",
                f.name,
                f.kind.label()
            ),
        }
    }

    // The bridge: a road segment whose middle is in the river and whose ends are on the banks.
    let rivers: Vec<&[Point]> = s
        .terrain
        .iter()
        .filter(|f| f.kind == TerrainKind::DeepWet)
        .map(|f| f.geometry.points())
        .collect();
    let in_river = |p: Point| rivers.iter().any(|r| ring_contains(r, p));
    let bridged = s
        .terrain
        .iter()
        .filter(|f| f.kind == TerrainKind::Road)
        .flat_map(|f| f.geometry.points().windows(2))
        .any(|w| {
            let mid = Point::new((w[0].x + w[1].x) / 2.0, (w[0].y + w[1].y) / 2.0);
            in_river(mid) && !in_river(w[0]) && !in_river(w[1])
        });
    assert!(bridged, "a road crosses the Traun: the bridge");
}

#[test]
fn both_sides_have_major_and_minor_objectives_with_areas_and_their_colours() {
    let s = ebelsberg();
    for side in &s.sides {
        for (what, o) in [
            ("major", &side.objectives.major),
            ("minor", &side.objectives.minor),
        ] {
            assert!(
                !o.description.trim().is_empty(),
                "{}: {what} objective",
                side.name
            );
            assert!(
                o.area.len() >= 3,
                "{}: {what} objective has an area",
                side.name
            );
        }
    }
    let [r, g, b] = s.sides[0].colour;
    assert!(b > r && b > g, "French blue: {:?}", s.sides[0].colour);
    assert!(
        s.sides[1].colour.iter().all(|&c| c >= 150),
        "Austrian light grey: {:?}",
        s.sides[1].colour
    );
}

#[test]
fn the_sample_validates_with_no_violations() {
    let s = ebelsberg();
    let v = validate_scenario(&s, &lists());
    assert!(v.is_empty(), "the sample breaks rules:\n{}", show(&v));
}

#[test]
fn every_unit_uses_a_purchasable_row_of_its_list_available_in_1809() {
    let s = ebelsberg();
    let lists = lists();
    let year = s.year.expect("the sample has a year");
    let mut unit_ids = BTreeSet::new();
    for side in &s.sides {
        let list = find_list(&lists, &side.army_list).expect("the side's list is shipped");
        for u in &side.units {
            assert!(unit_ids.insert(u.id), "unit id {} is used twice", u.id);
            let row = list.troop_type(&u.troop_type).unwrap_or_else(|| {
                panic!("{}: '{}' is not in {}", u.name, u.troop_type, list.name)
            });
            assert!(
                row.purchasable(),
                "{}: '{}' is not bought as a unit",
                u.name,
                row.name
            );
            if let Some(years) = row.years {
                assert!(
                    years.contains(year),
                    "{}: '{}' is not available in {year}",
                    u.name,
                    row.name
                );
            }
            let row_grade = match row.grade {
                RowGrade::Regular => Grade::Regular,
                RowGrade::Elite => Grade::Elite,
                RowGrade::Poor => Grade::Poor,
            };
            assert_eq!(
                u.grade, row_grade,
                "{}: the grade follows the row (ARMY-09)",
                u.name
            );
            assert!(
                side.hq(u.hq).is_some(),
                "{}: parent HQ {} exists",
                u.name,
                u.hq
            );
        }
    }
}

// --- the campaign ------------------------------------------------------------------------------

#[test]
fn the_danube_campaign_parses_and_names_only_shipped_scenarios() {
    let scenarios = samples::scenarios().expect("the sample scenarios parse");
    let campaigns = samples::campaigns().expect("the sample campaigns parse");
    let c = campaigns
        .iter()
        .find(|c| c.id.as_str() == "danube-1809")
        .expect("the Danube 1809 campaign is shipped");
    assert!(!c.name.trim().is_empty());
    assert!(!c.description.trim().is_empty());
    assert!(!c.battles.is_empty());
    for b in &c.battles {
        assert!(
            !b.note.trim().is_empty(),
            "battle '{}' has a note",
            b.scenario
        );
    }
    let ordered = ordered_scenarios(c, &scenarios)
        .unwrap_or_else(|missing| panic!("the campaign names unknown scenarios: {missing:?}"));
    assert_eq!(ordered.len(), c.battles.len());
    assert_eq!(ordered[0].id.as_str(), "1809-ebelsberg");
    for campaign in &campaigns {
        assert!(
            ordered_scenarios(campaign, &scenarios).is_ok(),
            "campaign '{}' names only shipped scenarios",
            campaign.id
        );
    }
}

// --- the format documentation ------------------------------------------------------------------

#[test]
fn the_worked_example_of_the_format_doc_parses_and_validates_clean() {
    let text = worked_example();
    let s = parse_scenario(DOC_FILE, text).unwrap_or_else(|e| panic!("worked example: {e}"));
    assert_eq!(s.format, SCENARIO_FORMAT);
    assert_eq!(s.sides.len(), 2);
    let v = validate_scenario(&s, &lists());
    assert!(
        v.is_empty(),
        "the worked example breaks rules:\n{}",
        show(&v)
    );
    for side in &s.sides {
        for p in side
            .units
            .iter()
            .filter_map(|u| u.position)
            .chain(side.hqs.iter().filter_map(|h| h.position))
        {
            assert!(
                ring_contains(&side.deployment_zone, p.at),
                "{}: placement outside zone",
                side.name
            );
        }
    }
}

/// The wire name of an enum value, as serde writes it.
fn wire<T: serde::Serialize>(v: T) -> String {
    match serde_json::to_value(v).expect("serialises") {
        serde_json::Value::String(s) => s,
        serde_json::Value::Object(m) => m["kind"].as_str().expect("a tagged kind").to_string(),
        other => panic!("unexpected enum encoding {other}"),
    }
}

#[test]
fn the_format_doc_lists_every_enum_value() {
    let mut values: Vec<String> = Vec::new();
    values.extend(Scale::ALL.map(wire));
    values.extend(Weather::ALL.map(wire));
    values.extend(DefensePosture::ALL.map(wire));
    values.extend(OptionalRule::ALL.map(wire));
    values.extend(CommandLevel::ALL.map(wire));
    values.extend(Quality::ALL.map(wire));
    values.extend(Grade::ALL.map(wire));
    values.extend(TerrainKind::ALL.map(wire));
    values.extend(DefenseKind::ALL.map(wire));
    for v in values {
        assert!(
            DOC.contains(&format!("`\"{v}\"`")),
            "{DOC_FILE} does not document \"{v}\""
        );
    }
}

#[test]
fn the_format_doc_field_defence_table_matches_def_03() {
    for kind in DefenseKind::ALL {
        let spec = kind.spec();
        let name = wire(kind);
        let row = DOC
            .lines()
            .find(|l| l.starts_with(&format!("| `\"{name}\"` |")))
            .unwrap_or_else(|| panic!("{DOC_FILE}: no table row for {name}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // | kind | what | cost | hasty | fixed | effect |
        assert_eq!(cells[3], spec.cost.to_string(), "{name}: cost");
        assert_eq!(cells[4] == "yes", spec.hasty, "{name}: hasty");
        assert_eq!(cells[5] == "yes", spec.fixed, "{name}: fixed");
    }
}

#[test]
fn the_format_doc_parse_error_examples_are_what_parse_scenario_reports() {
    let bad =
        "{\n  \"format\": 1,\n  \"id\": \"x\",\n  \"name\": \"X\",\n  \"points\": \"lots\"\n}\n";
    let shown = "{\n    \"format\": 1,\n    \"id\": \"x\",\n    \"name\": \"X\",\n    \"points\": \"lots\"\n  }\n";
    assert!(DOC.contains(shown), "{DOC_FILE} shows the bad.json example");
    let e = parse_scenario("bad.json", bad).unwrap_err().to_string();
    assert!(
        DOC.contains(&format!("  powderhorn: {e}\n")),
        "{DOC_FILE} should show: {e}"
    );

    let misspelt = r#"{"format": 1, "id": "x", "name": "X", "points": 600, "turn_limit": 8, "scale": "battalionn", "sides": []}"#;
    let e = parse_scenario("bad.json", misspelt)
        .unwrap_err()
        .to_string();
    let msg = "unknown variant `battalionn`, expected one of `company`, `battalion`, `brigade`";
    assert!(e.starts_with("bad.json:1:") && e.ends_with(msg), "{e}");
    assert!(DOC.contains(msg));

    let missing = r#"{"format": 1, "id": "x", "name": "X", "turn_limit": 8, "sides": []}"#;
    let e = parse_scenario("bad.json", missing).unwrap_err().to_string();
    assert!(
        e.starts_with("bad.json:1:") && e.ends_with("missing field `points`"),
        "{e}"
    );

    let newer = parse_scenario("bad.json", r#"{"format": 2}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        newer,
        "bad.json: scenario format 2 is newer than this Powderhorn reads (1); update Powderhorn"
    );
    assert!(DOC.contains("is newer than this Powderhorn reads (1); update Powderhorn"));
}

#[test]
fn the_format_doc_validate_output_example_is_what_validation_reports() {
    // The breakages of the doc's example: a one-stand unit, a misspelt troop type, a second
    // CO, and an Austrian battalion too few for the infantry minimum.
    let mut s = ebelsberg();
    s.sides[0].units[0].stands = 1;
    s.sides[0].units[1].troop_type =
        powderhorn::model::ids::TroopTypeId::new("grenz-infantry-typo");
    let mut rival = s.sides[0].hqs[1].clone();
    rival.id = powderhorn::model::ids::HqId(999);
    rival.parent = None;
    s.sides[0].hqs.push(rival);
    let occupied: BTreeSet<_> = s.sides[1]
        .field_defenses
        .iter()
        .filter_map(|d| d.occupant)
        .collect();
    let drop = s.sides[1]
        .units
        .iter()
        .position(|u| u.troop_type.as_str() == "line-infantry-07-15" && !occupied.contains(&u.id))
        .expect("an Austrian line battalion outside a trench");
    s.sides[1].units.remove(drop);

    let v = validate_scenario(&s, &lists());
    for rule in ["ARMY-03", "DATA-02", "CMD-27", "ARMY-04"] {
        let found = v
            .iter()
            .find(|x| x.rule == rule)
            .unwrap_or_else(|| panic!("{rule} is reported:\n{}", show(&v)));
        let suffix = format!(": {}", found.message);
        assert!(
            DOC.lines()
                .any(|l| l.trim_start().starts_with(&format!("{rule} ")) && l.ends_with(&suffix)),
            "{DOC_FILE} should show the {rule} line ending in{suffix}"
        );
    }
}
