//! BAS-01: the measure scale multiplies every distance of the rules. The same move, fire and
//! charge checks at ×0.5, ×1 and ×2: what is legal at the printed distance × the scale is legal,
//! just beyond it is refused, naming the rule.
//!
//! Geometry: a pose is the centre of the formation's front edge; facing 0 looks towards +y.
//! French side 0 faces +y from y = 50; the Austrians face them, `gap` cm further on, so the
//! front edges are `gap` apart edge to edge.

use powderhorn::model::MeasureScale;
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::{Action, ActionError, Battle, Event, Formation, Manoeuvre, PieceId};
use serde_json::json;

#[path = "support/builder.rs"]
mod builder;
use builder::{pose, u, Sc, AUS_LINE, FR_LINE};

/// A French line at (120, 50) facing the Austrian line `gap` cm away, at measure scale `m`,
/// after the French `deploys`. Free orders; the French Command phase of player turn 1.
fn battle(m: MeasureScale, gap: f64, dice: Vec<u8>) -> Battle {
    battle_with(m, gap, dice, &[])
}

fn battle_with(m: MeasureScale, gap: f64, dice: Vec<u8>, deploys: &[Formation]) -> Battle {
    let hq = |id: u32| {
        json!({
            "id": id, "name": format!("Brigade {id}"),
            "commander": {"id": id, "name": format!("General {id}"), "level": "brigade",
                          "quality": "average", "command_value": 7},
            "mounted": true, "position": null
        })
    };
    let sc = Sc::bare("nap-french", "nap-austrian")
        .named("scale-test", "Scale test")
        .year(1809)
        .side_names("French", "Austrians")
        .hq_json(0, hq(1))
        .hq_json(1, hq(2))
        .unit(0, 1, FR_LINE, 4, 120.0, 50.0, 0.0)
        .unit(1, 1, AUS_LINE, 4, 120.0, 50.0 + gap, 180.0)
        .set(
            "measure_scale",
            serde_json::to_value(m).expect("the scale serialises"),
        );
    assert_eq!(sc.scenario().measure_scale, m);
    let deploys: Vec<(PieceId, Formation)> = deploys.iter().map(|f| (u(0, 1), *f)).collect();
    sc.at_command(dice, OrdersMode::Free, &deploys)
}

/// The rule that refused the action (an `ActionError::Rule`), or the whole message of any other
/// error: a rule this build does not support yet never passes for a refusal by that rule.
fn rule_of(r: Result<Vec<Event>, ActionError>) -> Result<Vec<Event>, String> {
    match r {
        Ok(ev) => Ok(ev),
        Err(ActionError::Rule(e)) => Err(e.rule.to_string()),
        Err(e) => Err(format!("{e}")),
    }
}

fn advance(b: &mut Battle, to_y: f64) -> Result<Vec<Event>, String> {
    rule_of(
        b.perform(Action::Move {
            piece: u(0, 1),
            via: vec![],
            to: pose(120.0, to_y, 0.0),
            manoeuvre: Manoeuvre::Advance,
        })
        .map(|e| e.to_vec()),
    )
}

fn fire(b: &mut Battle) -> Result<Vec<Event>, String> {
    rule_of(
        b.perform(Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: None,
        })
        .map(|e| e.to_vec()),
    )
}

fn charge(b: &mut Battle) -> Result<Vec<Event>, String> {
    rule_of(
        b.perform(Action::Charge {
            chargers: vec![u(0, 1)],
            target: u(1, 1),
            saber: false,
        })
        .map(|e| e.to_vec()),
    )
}

#[test]
fn bas_01_move_allowance_scales_with_the_measure_scale() {
    // Line infantry move 10 cm (COL-03); nobody in the way (the Austrians 100 cm off).
    for m in MeasureScale::ALL {
        let k = m.factor();
        let mut b = battle(m, 100.0, vec![]);
        let far = advance(&mut b, 50.0 + 10.5 * k);
        assert_eq!(
            far.map(|_| ()),
            Err("MOVE-02".into()),
            "×{k}: 10.5 cm × {k}"
        );
        let ev = advance(&mut b, 50.0 + 10.0 * k).unwrap_or_else(|e| panic!("×{k}: {e}"));
        assert!(
            matches!(ev.first(), Some(Event::Moved { .. })),
            "×{k}: {ev:?}"
        );
        assert_eq!(
            b.state().piece(u(0, 1)).and_then(|p| p.pose),
            Some(pose(120.0, 50.0 + 10.0 * k, 0.0))
        );
    }
}

#[test]
fn bas_01_weapon_range_scales_with_the_measure_scale() {
    // Musket range 10 cm at battalion scale (FIRE-02); every die a 1, no hits.
    for m in MeasureScale::ALL {
        let k = m.factor();
        let mut b = battle(m, 10.5 * k, vec![1; 40]);
        assert_eq!(fire(&mut b).map(|_| ()), Err("FIRE-02".into()), "×{k}");
        let mut b = battle(m, 10.0 * k, vec![1; 40]);
        let ev = fire(&mut b).unwrap_or_else(|e| panic!("×{k}: {e}"));
        assert!(
            ev.iter().any(|e| matches!(e, Event::Fired { .. })),
            "×{k}: {ev:?}"
        );
    }
}

#[test]
fn bas_01_charge_distance_scales_with_the_measure_scale() {
    // The charge reaches 20 cm (CHG-03); French line infantry charge in attack column (note 21).
    let column = [Formation::MarchColumn, Formation::AttackColumn];
    for m in MeasureScale::ALL {
        let k = m.factor();
        let mut b = battle_with(m, 20.5 * k, vec![], &column);
        assert_eq!(charge(&mut b).map(|_| ()), Err("CHG-03".into()), "×{k}");
        let mut b = battle_with(m, 19.5 * k, vec![], &column);
        let ev = charge(&mut b).unwrap_or_else(|e| panic!("×{k}: {e}"));
        assert!(!ev.is_empty(), "×{k}");
    }
}

#[test]
fn bas_01_bases_scale_with_the_measure_scale() {
    // BAS-03: a 4-stand line is 4 × 2.5 cm wide at ×1.
    for m in MeasureScale::ALL {
        let k = m.factor();
        let b = battle(m, 100.0, vec![]);
        let ctx = b.ctx();
        let p = b.state().piece(u(0, 1)).expect("the French line");
        let fp = powderhorn::rules::geometry::footprint_of(&ctx, p).expect("on the table");
        assert!(
            (fp.frontage() - 10.0 * k).abs() < 1e-9,
            "×{k}: {}",
            fp.frontage()
        );
    }
}

#[test]
fn bas_01_scenario_files_give_the_scale_as_a_factor_or_a_figure_size() {
    use powderhorn::model::{parse_scenario, scenario_to_json};
    let text = |extra: &str| {
        format!(
            r#"{{"format": 1, "id": "s", "name": "S", "points": 1500, "turn_limit": 6,
                {extra} "sides": []}}"#
        )
    };
    // Older files have no field: the printed measurements, and none is written back.
    let old = parse_scenario("old.json", &text("")).expect("an old file reads");
    assert_eq!(old.measure_scale, MeasureScale::Printed);
    let back = scenario_to_json(&old).expect("writes");
    assert!(!back.contains("measure_scale"), "{back}");
    for (given, m) in [
        (r#""measure_scale": 0.5,"#, MeasureScale::Half),
        (r#""measure_scale": 2,"#, MeasureScale::Double),
        (r#""measure_scale": "2mm","#, MeasureScale::Half),
        (r#""measure_scale": "15 mm","#, MeasureScale::Printed),
        (r#""measure_scale": "28mm","#, MeasureScale::Double),
        (
            r#""measure_scale": {"figure_mm": 20},"#,
            MeasureScale::Double,
        ),
    ] {
        let s = parse_scenario("s.json", &text(given)).unwrap_or_else(|e| panic!("{given}: {e}"));
        assert_eq!(s.measure_scale, m, "{given}");
        let again = parse_scenario("s.json", &scenario_to_json(&s).expect("writes"));
        assert_eq!(again.map(|a| a.measure_scale), Ok(m), "{given}");
    }
    let e = parse_scenario("s.json", &text(r#""measure_scale": 1.5,"#))
        .expect_err("1.5 is no BAS-01 scale");
    assert!(e.to_string().contains("s.json:"), "{e}");
    assert!(e.to_string().contains("not a BAS-01 scale"), "{e}");
}
