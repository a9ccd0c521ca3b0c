//! Fords (catalogue TERR-07 with its ruling, TERR-08, MOVE-03, MOVE-04; issue #18 item 2): a
//! shallow-water feature drawn across deep water is a ford there. The deep water stays
//! impassable elsewhere; on the ford a unit stops at the water's edge and crosses at the start
//! of its next move (the linear stop-and-cross procedure), limbers included; a ford is dense
//! going for towed guns (CMD-12 reads it); a road bridge still crosses the river; and the ford
//! hides nothing (VIS-10).
//!
//! Every figure is worked out by hand from the geometry below. Reminders: a pose is the centre
//! of the formation's front edge, facing 0 looks towards +y; a line of four infantry stands is
//! 10 cm wide and 1.5 cm deep; a limbered gun is 6 cm long; foot and limbered guns advance
//! 10 cm. The river runs along y 55..61 (6 cm of deep water).

use powderhorn::geom::Point;
use powderhorn::rules::command::{meets_dense, OrdersMode};
use powderhorn::rules::visibility::line_of_sight;
use powderhorn::rules::{Action, ActionError, Battle, Event, Formation, Manoeuvre, Phase, PieceId};
use serde_json::json;

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{polyline as line, pose, rect, u, Sc, FIELD_ART};

const LINE_INF: &str = "line-infantry-08-12";

/// French against Austrians, the river along y 55..61 from x 20 to 220.
fn river() -> Sc {
    Sc::new("nap-french", "nap-austrian")
        .named("ford-test", "Ford test")
        .side_names("French", "Austrians")
        .feature_label("feature")
        .feature_of(
            json!({"kind": "deep_wet"}),
            rect(20.0, 55.0, 220.0, 61.0),
            false,
            false,
        )
}

/// Side 0's first Initiative phase, free orders (the movement rules alone).
fn battle(sc: &Sc) -> Battle {
    let mut b = sc.at_deployment(vec![], OrdersMode::Free);
    b.perform(Action::EndPhase).expect("deployment ends");
    assert_eq!(b.state().turn.phase, Phase::Initiative);
    b
}

fn mv(b: &mut Battle, piece: PieceId, y: f64, x: f64) -> Result<Vec<Event>, ActionError> {
    b.perform(Action::Move {
        piece,
        via: vec![],
        to: pose(x, y, 0.0),
        manoeuvre: Manoeuvre::Advance,
    })
    .map(<[Event]>::to_vec)
}

fn cost(r: Result<Vec<Event>, ActionError>) -> f64 {
    match r {
        Ok(ev) => match ev.as_slice() {
            [Event::Moved { cost_cm, .. }] => *cost_cm,
            other => panic!("expected one Moved event, got {other:?}"),
        },
        Err(e) => panic!("expected a legal move, got {e}"),
    }
}

fn refused(b: &mut Battle, piece: PieceId, x: f64, y: f64, rule: &str) {
    refuse::refused(
        b,
        Action::Move {
            piece,
            via: vec![],
            to: pose(x, y, 0.0),
            manoeuvre: Manoeuvre::Advance,
        },
        rule,
    );
}

#[test]
fn terr_07_deep_water_stops_a_line_but_a_ford_is_crossed_by_stop_and_cross() {
    // A ford 12 cm wide (x 94..106) over the river's whole width, drawn as an area.
    let sc = river()
        .feature_of(
            json!({"kind": "shallow_wet"}),
            rect(94.0, 55.0, 106.0, 61.0),
            false,
            false,
        )
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .unit(0, 2, LINE_INF, 4, 150.0, 50.0, 0.0);
    let mut b = battle(&sc);
    // Away from the ford the river is impassable.
    refused(&mut b, u(0, 2), 150.0, 58.0, "TERR-07");
    // At the ford: the line (x 95..105) reaches the water at y 55 and must stop there.
    refused(&mut b, u(0, 1), 100.0, 57.0, "TERR-07");
    assert_eq!(cost(mv(&mut b, u(0, 1), 55.0, 100.0)), 5.0);
    // Next move: the crossing until the rear edge (1.5 cm behind the front) is on the far bank
    // (y 61, so the front at 62.5) is free, then the full 10 cm: the front at 72.5.
    refused(&mut b, u(0, 1), 100.0, 72.6, "MOVE-02");
    assert_eq!(cost(mv(&mut b, u(0, 1), 72.5, 100.0)), 10.0);
}

#[test]
fn terr_07_move_04_a_ford_narrower_than_the_line_is_crossed_in_column() {
    // A ford 6 cm wide (x 97..103): the 10 cm line would have deep water on both flanks.
    let sc = river()
        .feature_of(
            json!({"kind": "shallow_wet"}),
            rect(97.0, 55.0, 103.0, 61.0),
            false,
            false,
        )
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0);
    let mut b = battle(&sc);
    refused(&mut b, u(0, 1), 100.0, 55.0 + 0.5, "MOVE-04");
    b.perform(Action::Deploy {
        piece: u(0, 1),
        formation: Formation::MarchColumn,
    })
    .expect("forms march column");
    // The column (2.5 cm wide) reaches the ford's edge at y 55: 5 cm.
    assert_eq!(cost(mv(&mut b, u(0, 1), 55.0, 100.0)), 5.0);
}

#[test]
fn terr_07_terr_08_a_limbered_gun_fords_and_the_ford_is_dense_for_it() {
    // A ford drawn as a stream 8 cm wide across the river: x 56..64, y 52..64 (it reaches 3 cm
    // up either bank).
    let sc = river()
        .feature_of(
            json!({"kind": "shallow_wet"}),
            line(&[(60.0, 52.0), (60.0, 64.0)], 8.0),
            false,
            false,
        )
        .unit(0, 3, FIELD_ART, 1, 60.0, 50.0, 0.0)
        .unit(0, 4, FIELD_ART, 1, 150.0, 50.0, 0.0)
        .unit(0, 1, LINE_INF, 4, 100.0, 40.0, 0.0);
    let mut b = battle(&sc);
    for gun in [u(0, 3), u(0, 4)] {
        b.perform(Action::Limber { piece: gun }).expect("limbers");
    }
    // Limbers may not cross deep water…
    refused(&mut b, u(0, 4), 150.0, 58.0, "TERR-07");
    // …but ford it (TERR-07 ruling): stop at the ford's edge, y 52, 2 cm…
    refused(&mut b, u(0, 3), 60.0, 53.0, "TERR-07");
    assert_eq!(cost(mv(&mut b, u(0, 3), 52.0, 60.0)), 2.0);
    // …then the free crossing until its rear (6 cm behind the front) leaves the ford at y 64
    // (the front at 70), and 10 cm on: 80.
    refused(&mut b, u(0, 3), 60.0, 80.1, "MOVE-02");
    assert_eq!(cost(mv(&mut b, u(0, 3), 80.0, 60.0)), 10.0);
    // TERR-07/TERR-08: a path across the ford is dense going for a towed gun (the order must
    // declare it, CMD-12) and not for foot.
    let across = [Point::new(60.0, 50.0), Point::new(60.0, 70.0)];
    let ctx = b.ctx();
    let gun = ctx.state.piece(u(0, 3)).expect("the gun");
    let foot = ctx.state.piece(u(0, 1)).expect("the battalion");
    assert!(meets_dense(&ctx, gun, &across));
    assert!(!meets_dense(&ctx, foot, &across));
}

#[test]
fn terr_07_a_bridge_still_crosses_the_river_beside_a_ford() {
    // A 4 cm road along x 100 bridges the river; a ford lies at x 140..152.
    let sc = river()
        .feature_of(
            json!({"kind": "road"}),
            line(&[(100.0, 0.0), (100.0, 180.0)], 4.0),
            false,
            false,
        )
        .feature_of(
            json!({"kind": "shallow_wet"}),
            rect(140.0, 55.0, 152.0, 61.0),
            false,
            false,
        )
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .unit(0, 2, LINE_INF, 4, 180.0, 50.0, 0.0);
    let mut b = battle(&sc);
    refused(&mut b, u(0, 2), 180.0, 58.0, "TERR-07");
    b.perform(Action::Deploy {
        piece: u(0, 1),
        formation: Formation::MarchColumn,
    })
    .expect("forms march column");
    // Over the bridge without a stop: 15 cm (the road bonus, MOVE-25, lets a column on a road
    // go 15 cm; no linear stop, the water is cut where the road crosses it).
    assert_eq!(cost(mv(&mut b, u(0, 1), 65.0, 100.0)), 15.0);
}

#[test]
fn terr_07_vis_10_a_ford_does_not_block_sight_across_the_river() {
    // A French line on the near bank at the ford, an Austrian line facing it on the far bank:
    // neither the river nor the shallow water of the ford hides one from the other (VIS-10).
    let sc = river()
        .feature_of(
            json!({"kind": "shallow_wet"}),
            line(&[(100.0, 52.0), (100.0, 64.0)], 12.0),
            false,
            false,
        )
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .unit(1, 1, "line-infantry-07-15", 4, 100.0, 66.0, 180.0);
    let b = battle(&sc);
    let ctx = b.ctx();
    let s = line_of_sight(&ctx, u(0, 1), u(1, 1));
    assert!(s.visible, "{}", s.detail);
    assert_eq!(s.rule, "VIS-02");
}
