//! Visibility (catalogue §2.3): every VIS entry, each on a small table built here, with the rule
//! ID in the test name and the exact outcome (visible or not, and which rule decides).
//!
//! Conventions of the tables: facing 0 looks towards +y; a unit's position is the centre of its
//! front edge, so a unit at (x, y) facing 0 has its stands just behind y (y − 1.5 … y for
//! infantry), and one facing 180 has them just beyond y.

use powderhorn::geom::Point;
use powderhorn::model::army::{shipped_lists, ArmyList};
use powderhorn::model::scenario::{OptionalRule, Scenario, Weather};
use powderhorn::model::{
    Arm, FeatureId, Geometry, Grade, TerrainFeature, TerrainKind, TroopTypeId, UnitId,
};
use powderhorn::rules::state::{BattleState, Phase, SideState, TurnState};
use powderhorn::rules::visibility::{
    check_dug_in, check_line_of_sight, due_reveals, line_of_sight, nearest_visible_enemy,
    sight_terrain, visibility_limit_cm, visible_enemies, Blocker, Sight, SightIndex, SightTerrain,
};
use powderhorn::rules::{Ctx, Formation, PieceId, PieceState, Pose};
use std::collections::BTreeMap;

const LINE: &str = "line-infantry-08-12";
const LIGHT: &str = "light-infantry-08-12";
const SKIRMISHERS: &str = "skirmishing-infantry";
const HORSE: &str = "light-cavalry-05-12";
const GUNS: &str = "field-artillery";

/// A tiny scenario builder: two French sides on an empty 240 × 180 table.
struct Table {
    scenario: Scenario,
    lists: Vec<ArmyList>,
    state: BattleState,
    next_unit: u32,
    next_feature: u32,
}

fn table() -> Table {
    let scenario: Scenario = match serde_json::from_value(serde_json::json!({
        "format": 1,
        "id": "vis-test",
        "name": "Visibility test table",
        "points": 1500,
        "turn_limit": 8,
        "sides": [
            { "name": "Blue", "army_list": "nap-french", "hqs": [], "units": [] },
            { "name": "Red", "army_list": "nap-french", "hqs": [], "units": [] }
        ]
    })) {
        Ok(s) => s,
        Err(e) => panic!("the test scenario parses: {e}"),
    };
    let lists = shipped_lists().expect("the shipped lists parse");
    let side = |name: &str| SideState {
        name: name.to_string(),
        list: powderhorn::model::ListId::new("nap-french"),
        breakpoint: 1,
        units_lost: 0,
        broken: false,
        conceded: false,
    };
    Table {
        scenario,
        lists,
        state: BattleState {
            turn: TurnState {
                game_turn: 1,
                player_turn: 1,
                active: 0,
                first_player: 0,
                phase: Phase::Command,
            },
            pieces: BTreeMap::new(),
            sides: vec![side("Blue"), side("Red")],
            ledger: Default::default(),
            charges: Default::default(),
            command: Default::default(),
            engineering: Default::default(),
            weather: Default::default(),
            scouts: Default::default(),
            comms: Default::default(),
            constructions: Default::default(),
            allegiance: Default::default(),
        },
        next_unit: 1,
        next_feature: 1,
    }
}

impl Table {
    fn ctx(&self) -> Ctx<'_> {
        Ctx {
            scenario: &self.scenario,
            lists: &self.lists,
            state: &self.state,
            sight: None,
        }
    }

    /// A unit of `troop` with `stands` stands in `formation` (None: artillery) at `at`.
    fn unit(
        &mut self,
        side: usize,
        troop: &str,
        stands: u8,
        formation: Option<Formation>,
        at: (f64, f64),
        facing_deg: f64,
    ) -> PieceId {
        let unit = UnitId(self.next_unit);
        self.next_unit += 1;
        let id = PieceId::Unit { side, unit };
        let arm = self
            .lists
            .iter()
            .find(|l| l.id.as_str() == "nap-french")
            .and_then(|l| l.troop_type(&TroopTypeId::new(troop)))
            .map(|r| r.arm);
        assert!(arm.is_some(), "{troop} is a nap-french row");
        self.state.pieces.insert(
            id,
            PieceState {
                id,
                name: format!("{troop} #{}", unit.0),
                troop_type: Some(TroopTypeId::new(troop)),
                arm,
                command: None,
                pose: Some(Pose {
                    at: Point::new(at.0, at.1),
                    facing_deg,
                }),
                formation,
                limbered: false,
                stands,
                hits: 0,
                suppressed_at: None,
                disordered_until: None,
                knocked_out: false,
                grade: Grade::Regular,
                dug_in: false,
                revealed: false,
                has_fired: false,
                orders: Default::default(),
                flank: Default::default(),
                prone: false,
            },
        );
        id
    }

    /// Four stands of line infantry in line.
    fn foot(&mut self, side: usize, at: (f64, f64), facing_deg: f64) -> PieceId {
        self.unit(side, LINE, 4, Some(Formation::Line), at, facing_deg)
    }

    fn gun(&mut self, side: usize, at: (f64, f64), facing_deg: f64) -> PieceId {
        self.unit(side, GUNS, 1, None, at, facing_deg)
    }

    fn hq(&mut self, side: usize, at: (f64, f64), facing_deg: f64) -> PieceId {
        let hq = powderhorn::model::HqId(self.next_unit);
        self.next_unit += 1;
        let id = PieceId::Hq { side, hq };
        self.state.pieces.insert(
            id,
            PieceState {
                id,
                name: format!("HQ #{}", hq.0),
                troop_type: None,
                arm: None,
                command: Some((
                    powderhorn::model::CommandLevel::Brigade,
                    powderhorn::model::Quality::Average,
                )),
                pose: Some(Pose {
                    at: Point::new(at.0, at.1),
                    facing_deg,
                }),
                formation: None,
                limbered: false,
                stands: 1,
                hits: 0,
                suppressed_at: None,
                disordered_until: None,
                knocked_out: false,
                grade: Grade::Regular,
                dug_in: false,
                revealed: false,
                has_fired: false,
                orders: Default::default(),
                flank: Default::default(),
                prone: false,
            },
        );
        id
    }

    fn edit(&mut self, id: PieceId, f: impl FnOnce(&mut PieceState)) {
        let p = self.state.pieces.get_mut(&id).expect("the piece exists");
        f(p);
    }

    fn feature(&mut self, kind: TerrainKind, geometry: Geometry) -> FeatureId {
        let id = FeatureId(self.next_feature);
        self.next_feature += 1;
        self.scenario.terrain.push(TerrainFeature {
            id,
            name: format!("{} #{}", kind.label(), id.0),
            kind,
            geometry,
            dense: false,
            frozen: false,
            construction: None,
        });
        id
    }

    /// An axis-aligned rectangle of terrain.
    fn area(&mut self, kind: TerrainKind, x0: f64, y0: f64, x1: f64, y1: f64) -> FeatureId {
        self.feature(
            kind,
            Geometry::Polygon(vec![
                Point::new(x0, y0),
                Point::new(x1, y0),
                Point::new(x1, y1),
                Point::new(x0, y1),
            ]),
        )
    }

    fn wall(&mut self, from: (f64, f64), to: (f64, f64)) -> FeatureId {
        self.feature(
            TerrainKind::Linear,
            Geometry::Polyline {
                points: vec![Point::new(from.0, from.1), Point::new(to.0, to.1)],
                width_cm: 0.0,
            },
        )
    }

    fn sight(&self, observer: PieceId, target: PieceId) -> Sight {
        line_of_sight(&self.ctx(), observer, target)
    }
}

fn assert_visible(s: &Sight) {
    assert!(s.visible, "expected visible, got {}: {}", s.rule, s.detail);
    assert_eq!(s.rule, "VIS-02");
}

fn assert_hidden(s: &Sight, rule: &str) {
    assert!(
        !s.visible,
        "expected hidden by {rule}, but visible ({:?})",
        s.exceptions
    );
    assert_eq!(s.rule, rule, "{}", s.detail);
}

fn blocked_by_feature(s: &Sight, id: FeatureId) {
    match &s.by {
        Some(Blocker::Feature { id: got, .. }) => assert_eq!(*got, id, "{}", s.detail),
        other => panic!("expected feature {id} in the way, got {other:?}"),
    }
}

// --- VIS-01, VIS-02, VIS-03, VIS-04 --------------------------------------------------------

#[test]
fn vis_01_fire_and_charge_need_line_of_sight() {
    let mut t = table();
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let b = t.foot(1, (100.0, 60.0), 180.0);
    let ok = check_line_of_sight(&t.ctx(), a, b).expect("a clear field");
    assert_eq!(ok.distance_cm, 40.0);
    let wood = t.area(TerrainKind::HighArea, 80.0, 30.0, 120.0, 45.0);
    let err = check_line_of_sight(&t.ctx(), a, b).expect_err("the wood hides b");
    assert_eq!(err.rule, "VIS-07");
    assert!(err.message.contains("High area"), "{}", err.message);
    blocked_by_feature(&t.sight(a, b), wood);
}

#[test]
fn vis_02_one_clear_segment_between_any_stand_points_is_enough() {
    let mut t = table();
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let b = t.foot(1, (100.0, 60.0), 180.0);
    // A friendly column blocks the middle of the view but not the outer stands.
    let c = t.unit(0, LINE, 4, Some(Formation::MarchColumn), (100.0, 42.0), 0.0);
    let s = t.sight(a, b);
    assert_visible(&s);
    let (p, q) = s.segment.expect("a clear segment is reported");
    let on_a = t.ctx().state.pieces[&a].pose.map(|p| p.at).expect("placed");
    assert!(
        (p.y - on_a.y).abs() <= 1.5 + 1e-9,
        "the segment starts on a's stands: {p:?}"
    );
    assert!(
        q.y >= 60.0 - 1e-9 && q.y <= 61.5 + 1e-9,
        "and ends on b's: {q:?}"
    );
    // A line as wide as the view blocks every segment.
    t.edit(c, |p| {
        p.formation = Some(Formation::Line);
        p.stands = 12;
    });
    let s = t.sight(a, b);
    assert_hidden(&s, "VIS-07");
    assert_eq!(
        s.by,
        Some(Blocker::Piece {
            id: c,
            name: t.ctx().state.pieces[&c].name.clone()
        })
    );
}

#[test]
fn vis_03_sight_arc_is_the_half_plane_ahead_command_and_square_all_round() {
    let mut t = table();
    let a = t.foot(0, (100.0, 50.0), 0.0);
    let behind = t.foot(1, (100.0, 20.0), 0.0);
    let beside = t.foot(1, (140.0, 52.0), 270.0);
    assert_hidden(&t.sight(a, behind), "VIS-03");
    // Level with the front edge: part of the target is ahead of the line.
    assert_visible(&t.sight(a, beside));
    let hq = t.hq(0, (160.0, 60.0), 0.0);
    assert_visible(&t.sight(hq, behind));
    t.edit(a, |p| p.formation = Some(Formation::Square));
    assert_visible(&t.sight(a, behind));
    // A disordered unit looks the way its command stand faces.
    t.edit(a, |p| p.formation = Some(Formation::Disordered));
    assert_hidden(&t.sight(a, behind), "VIS-03");
}

#[test]
fn vis_04_visibility_limit_100_cm_and_weather() {
    let mut t = table();
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let near = t.foot(1, (100.0, 118.0), 180.0);
    let far = t.foot(1, (140.0, 121.0), 180.0);
    assert_visible(&t.sight(a, near));
    let s = t.sight(a, far);
    assert_hidden(&s, "VIS-04");
    assert!(s.distance_cm > 100.0);

    let mid = t.foot(1, (100.0, 55.0), 180.0);
    let close = t.foot(1, (115.0, 28.0), 180.0);
    // The weather only counts with the optional rule on.
    t.scenario.weather = Weather::Poor;
    assert_eq!(visibility_limit_cm(&t.scenario, Weather::Poor), 100.0);
    assert_visible(&t.sight(a, mid));
    t.scenario.optional_rules.push(OptionalRule::Weather);
    assert_eq!(visibility_limit_cm(&t.scenario, Weather::Poor), 40.0);
    assert_visible(&t.sight(a, mid));
    let s = t.sight(a, near);
    assert_hidden(&s, "VIS-04");
    t.scenario.weather = Weather::Extreme;
    assert_eq!(visibility_limit_cm(&t.scenario, Weather::Extreme), 10.0);
    assert_hidden(&t.sight(a, mid), "VIS-04");
    assert_visible(&t.sight(a, close));
    // Night: 40 cm, and never better than poor even in fine weather.
    t.scenario.optional_rules = vec![OptionalRule::Night];
    t.scenario.weather = Weather::Normal;
    assert_eq!(visibility_limit_cm(&t.scenario, Weather::Normal), 40.0);
    t.scenario.optional_rules.push(OptionalRule::Weather);
    assert_eq!(visibility_limit_cm(&t.scenario, Weather::Extreme), 10.0);
    assert_eq!(visibility_limit_cm(&t.scenario, Weather::Normal), 40.0);
}

// --- VIS-05, VIS-06, VIS-07 ------------------------------------------------------------------

#[test]
fn vis_05_deployed_guns_in_a_wood_are_seen_only_within_5_cm() {
    let mut t = table();
    let wood = t.area(TerrainKind::HighArea, 60.0, 40.0, 140.0, 100.0);
    let a = t.foot(0, (100.0, 20.0), 0.0);
    // Fired already (so VIS-08 does not hide it): 7 cm inside the wood.
    let deep = t.gun(1, (100.0, 47.0), 180.0);
    t.edit(deep, |p| p.has_fired = true);
    let s = t.sight(a, deep);
    assert_hidden(&s, "VIS-12");
    blocked_by_feature(&s, wood);
    // Infantry at the same depth is seen (10 cm for high area terrain).
    let inf = t.foot(1, (120.0, 47.0), 180.0);
    assert_visible(&t.sight(a, inf));
    // 4 cm in: seen.
    t.edit(deep, |p| {
        p.pose = Some(Pose {
            at: Point::new(100.0, 44.0),
            facing_deg: 180.0,
        })
    });
    let s = t.sight(a, deep);
    assert_visible(&s);
    assert_eq!(s.exceptions, vec!["VIS-12"]);
}

#[test]
fn vis_06_same_contour_always_sees_across_the_hill() {
    let mut t = table();
    t.area(TerrainKind::Hill { level: 1 }, 60.0, 40.0, 140.0, 80.0);
    let a = t.foot(0, (100.0, 42.0), 0.0);
    let b = t.foot(1, (100.0, 78.0), 180.0);
    let s = t.sight(a, b);
    assert_visible(&s);
    assert_eq!(s.exceptions, vec!["VIS-06"]);
    // Other blockers still count on the hill.
    let wood = t.area(TerrainKind::HighArea, 80.0, 55.0, 120.0, 65.0);
    blocked_by_feature(&t.sight(a, b), wood);
}

#[test]
fn vis_07_woods_built_up_areas_and_units_block() {
    let mut t = table();
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let b = t.foot(1, (100.0, 70.0), 180.0);
    let town = t.area(TerrainKind::BuiltUp, 70.0, 40.0, 130.0, 50.0);
    let s = t.sight(a, b);
    assert_hidden(&s, "VIS-07");
    blocked_by_feature(&s, town);
    t.scenario.terrain.clear();

    // Units between block, friend or foe, whatever their arm.
    let between = t.unit(1, HORSE, 8, Some(Formation::Line), (100.0, 45.0), 180.0);
    let s = t.sight(a, b);
    assert_hidden(&s, "VIS-07");
    assert!(matches!(s.by, Some(Blocker::Piece { id, .. }) if id == between));
    // ... cavalry in extended line still blocks (only infantry skirmishers do not) ...
    t.edit(between, |p| p.formation = Some(Formation::ExtendedLine));
    assert_hidden(&t.sight(a, b), "VIS-07");
}

#[test]
fn vis_07_command_units_skirmishers_and_unlimbered_guns_do_not_block() {
    let mut t = table();
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let b = t.foot(1, (100.0, 70.0), 180.0);
    let wide = |t: &mut Table, troop: &str, formation: Option<Formation>| {
        t.unit(0, troop, 10, formation, (100.0, 45.0), 0.0)
    };
    // Infantry in extended line.
    let ext = wide(&mut t, LINE, Some(Formation::ExtendedLine));
    assert_visible(&t.sight(a, b));
    // The same unit closed up into line blocks.
    t.edit(ext, |p| p.formation = Some(Formation::Line));
    assert_hidden(&t.sight(a, b), "VIS-07");
    t.state.pieces.remove(&ext);
    // A Skirmishing Infantry row, whatever its formation.
    let sk = wide(&mut t, SKIRMISHERS, Some(Formation::Line));
    assert_visible(&t.sight(a, b));
    t.state.pieces.remove(&sk);
    // Unlimbered guns; limbered they block.
    let guns = wide(&mut t, GUNS, None);
    assert_visible(&t.sight(a, b));
    t.edit(guns, |p| p.limbered = true);
    assert_hidden(&t.sight(a, b), "VIS-07");
    t.state.pieces.remove(&guns);
    // Command units.
    let hq = t.hq(0, (100.0, 40.0), 0.0);
    assert_visible(&t.sight(a, b));
    let _ = hq;
}

// --- VIS-08, VIS-09, VIS-10 ------------------------------------------------------------------

#[test]
fn vis_08_unfired_gun_in_area_terrain_is_hidden_until_it_fires_or_an_enemy_is_within_20_cm() {
    let mut t = table();
    t.area(TerrainKind::HighArea, 60.0, 60.0, 140.0, 100.0);
    let a = t.foot(0, (100.0, 20.0), 0.0);
    // At the wood's edge (a hair inside): VIS-11 would show it, VIS-08 hides it.
    let gun = t.gun(1, (100.0, 60.05), 180.0);
    let s = t.sight(a, gun);
    assert_hidden(&s, "VIS-08");
    // Its own side sees it.
    let friend = t.foot(1, (120.0, 20.0), 0.0);
    assert_visible(&t.sight(friend, gun));
    t.edit(gun, |p| p.has_fired = true);
    let s = t.sight(a, gun);
    assert_visible(&s);
    assert_eq!(s.exceptions, vec!["VIS-11"]);
    t.edit(gun, |p| p.has_fired = false);
    // An enemy of the gun within 20 cm.
    let scout = t.foot(0, (90.0, 42.0), 0.0);
    assert_visible(&t.sight(a, gun));
    t.edit(scout, |p| {
        p.pose = Some(Pose {
            at: Point::new(90.0, 38.0),
            facing_deg: 0.0,
        })
    });
    assert_hidden(&t.sight(a, gun), "VIS-08");
}

#[test]
fn vis_08_unfired_gun_behind_a_wall_is_hidden() {
    let mut t = table();
    let wall = t.wall((60.0, 60.0), (140.0, 60.0));
    let a = t.foot(0, (100.0, 20.0), 0.0);
    // A hair's gap behind the wall is still base contact.
    let gun = t.gun(1, (100.0, 60.05), 180.0);
    let s = t.sight(a, gun);
    assert_hidden(&s, "VIS-08");
    blocked_by_feature(&s, wall);
    t.edit(gun, |p| p.has_fired = true);
    let s = t.sight(a, gun);
    assert_visible(&s);
    assert_eq!(s.exceptions, vec!["VIS-09"]);
    // Out in the open an unfired gun is seen.
    let open = t.gun(1, (40.0, 60.0), 180.0);
    assert_visible(&t.sight(a, open));
}

#[test]
fn vis_09_wall_blocks_unless_in_base_contact() {
    let mut t = table();
    let wall = t.wall((60.0, 40.0), (140.0, 40.0));
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let b = t.foot(1, (100.0, 60.0), 180.0);
    let s = t.sight(a, b);
    assert_hidden(&s, "VIS-09");
    blocked_by_feature(&s, wall);
    // The target lines the wall.
    let lining = t.foot(1, (120.0, 40.05), 180.0);
    let s = t.sight(a, lining);
    assert_visible(&s);
    assert_eq!(s.exceptions, vec!["VIS-09"]);
    // The observer lines the wall: it sees over it.
    let over = t.foot(0, (80.0, 40.0), 0.0);
    assert_visible(&t.sight(over, b));
    // A hair's gap is still contact; a centimetre is not.
    t.edit(over, |p| {
        p.pose = Some(Pose {
            at: Point::new(80.0, 39.95),
            facing_deg: 0.0,
        })
    });
    assert_visible(&t.sight(over, b));
    t.edit(over, |p| {
        p.pose = Some(Pose {
            at: Point::new(80.0, 39.0),
            facing_deg: 0.0,
        })
    });
    assert_hidden(&t.sight(over, b), "VIS-09");
}

#[test]
fn vis_09_breastworks_block_like_walls() {
    let mut t = table();
    t.scenario.sides[1]
        .field_defenses
        .push(powderhorn::model::FieldDefense {
            id: powderhorn::model::DefenseId(1),
            kind: powderhorn::model::DefenseKind::BreastWorks,
            sections: 4,
            at: vec![Point::new(60.0, 40.0), Point::new(140.0, 40.0)],
            occupant: None,
        });
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let b = t.foot(1, (100.0, 60.0), 180.0);
    let s = t.sight(a, b);
    assert_hidden(&s, "VIS-09");
    assert!(matches!(s.by, Some(Blocker::Defense { .. })));
}

#[test]
fn vis_10_low_and_high_area_terrain_kinds() {
    assert_eq!(sight_terrain(TerrainKind::LowArea), SightTerrain::LowArea);
    assert_eq!(sight_terrain(TerrainKind::HighArea), SightTerrain::HighArea);
    assert_eq!(sight_terrain(TerrainKind::BuiltUp), SightTerrain::HighArea);
    assert_eq!(
        sight_terrain(TerrainKind::PartiallyWet),
        SightTerrain::LowArea
    );
    assert_eq!(sight_terrain(TerrainKind::Linear), SightTerrain::Linear);
    assert_eq!(
        sight_terrain(TerrainKind::Hill { level: 2 }),
        SightTerrain::Hill { level: 2 }
    );
    assert_eq!(
        sight_terrain(TerrainKind::Mountain),
        SightTerrain::Hill { level: 1 }
    );
    for clear in [
        TerrainKind::Open,
        TerrainKind::Road,
        TerrainKind::ShallowWet,
        TerrainKind::DeepWet,
        TerrainKind::Impassable,
    ] {
        assert_eq!(
            sight_terrain(clear),
            SightTerrain::Clear,
            "{}",
            clear.label()
        );
    }
    // A river does not block sight.
    let mut t = table();
    t.area(TerrainKind::DeepWet, 60.0, 35.0, 140.0, 45.0);
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let b = t.foot(1, (100.0, 60.0), 180.0);
    assert_visible(&t.sight(a, b));
}

// --- VIS-11, VIS-12, VIS-13 ------------------------------------------------------------------

#[test]
fn vis_11_troops_at_the_edge_of_a_wood_see_out_and_are_seen() {
    let mut t = table();
    let wood = t.area(TerrainKind::HighArea, 60.0, 50.0, 140.0, 90.0);
    let a = t.foot(0, (100.0, 20.0), 0.0);
    // Lining the near edge (front on the boundary), stands inside.
    let edge = t.foot(1, (100.0, 50.05), 180.0);
    let s = t.sight(a, edge);
    assert_visible(&s);
    assert_eq!(s.exceptions, vec!["VIS-11"]);
    // The same troops 15 cm in are not seen.
    let deep = t.foot(1, (120.0, 65.0), 180.0);
    assert_hidden(&t.sight(a, deep), "VIS-12");
    // Lining the far edge: the edge does not let anyone see across the whole wood.
    let far = t.foot(1, (80.0, 88.45), 180.0);
    let s = t.sight(far, a);
    assert_hidden(&s, "VIS-12");
    blocked_by_feature(&s, wood);
    // Troops at the edge see out.
    let s = t.sight(edge, a);
    assert_visible(&s);
    assert_eq!(s.exceptions, vec!["VIS-11"]);
}

#[test]
fn vis_12_seen_within_10_cm_in_high_and_20_cm_in_low_terrain_three_cases() {
    let mut t = table();
    t.area(TerrainKind::HighArea, 60.0, 50.0, 100.0, 100.0);
    t.area(TerrainKind::LowArea, 140.0, 50.0, 180.0, 100.0);
    let a = t.foot(0, (80.0, 20.0), 0.0);
    let c = t.foot(0, (160.0, 20.0), 0.0);
    // (a) target inside, observer outside.
    let high8 = t.foot(1, (70.0, 58.0), 180.0);
    let high12 = t.foot(1, (90.0, 62.0), 180.0);
    assert_visible(&t.sight(a, high8));
    assert_hidden(&t.sight(a, high12), "VIS-12");
    let low15 = t.foot(1, (150.0, 65.0), 180.0);
    let low25 = t.foot(1, (170.0, 75.0), 180.0);
    assert_visible(&t.sight(c, low15));
    assert_hidden(&t.sight(c, low25), "VIS-12");
    // (c) observer inside, target outside: sees out through 10 / 20 cm.
    assert_visible(&t.sight(high8, a));
    assert_hidden(&t.sight(high12, a), "VIS-12");
    assert_visible(&t.sight(low15, c));
    assert_hidden(&t.sight(low25, c), "VIS-12");
    // (b) both inside the same piece: the distance between them.
    let mut u = table();
    u.area(TerrainKind::HighArea, 0.0, 0.0, 100.0, 100.0);
    let p = u.foot(0, (50.0, 40.0), 0.0);
    let q8 = u.foot(1, (50.0, 48.0), 180.0);
    let q12 = u.foot(1, (70.0, 52.0), 180.0);
    assert_visible(&u.sight(p, q8));
    assert_eq!(u.sight(p, q8).exceptions, vec!["VIS-12"]);
    assert_hidden(&u.sight(p, q12), "VIS-12");
}

#[test]
fn vis_13_one_low_area_crossing_of_at_most_10_cm() {
    let mut t = table();
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let b = t.foot(1, (100.0, 60.0), 180.0);
    let crops = t.area(TerrainKind::LowArea, 60.0, 35.0, 140.0, 43.0);
    let s = t.sight(a, b);
    assert_visible(&s);
    assert_eq!(s.exceptions, vec!["VIS-13"]);
    // A second piece blocks.
    let grass = t.area(TerrainKind::LowArea, 60.0, 46.0, 140.0, 50.0);
    let s = t.sight(a, b);
    assert_hidden(&s, "VIS-13");
    blocked_by_feature(&s, grass);
    // One piece deeper than 10 cm blocks.
    t.scenario.terrain.retain(|f| f.id == crops);
    t.scenario.terrain[0].geometry = Geometry::Polygon(vec![
        Point::new(60.0, 30.0),
        Point::new(140.0, 30.0),
        Point::new(140.0, 42.0),
        Point::new(60.0, 42.0),
    ]);
    let s = t.sight(a, b);
    assert_hidden(&s, "VIS-13");
    blocked_by_feature(&s, crops);
}

// --- VIS-14, VIS-15 --------------------------------------------------------------------------

#[test]
fn vis_14_crest_line_hides_units_behind_it() {
    let mut t = table();
    // Hill from y = 50 to 90: its crest (centroid line) runs at y = 70.
    let hill = t.area(TerrainKind::Hill { level: 1 }, 60.0, 50.0, 140.0, 90.0);
    let low = t.foot(0, (100.0, 30.0), 0.0);
    let forward = t.foot(1, (90.0, 62.0), 180.0);
    let behind = t.foot(1, (110.0, 80.0), 180.0);
    let s = t.sight(low, forward);
    assert_visible(&s);
    assert_eq!(s.exceptions, vec!["VIS-14"]);
    let s = t.sight(low, behind);
    assert_hidden(&s, "VIS-14");
    blocked_by_feature(&s, hill);
    // And the other way round.
    assert_visible(&t.sight(forward, low));
    assert_hidden(&t.sight(behind, low), "VIS-14");
}

#[test]
fn vis_14_a_hill_neither_unit_stands_on_blocks() {
    let mut t = table();
    let hill = t.area(TerrainKind::Hill { level: 1 }, 80.0, 35.0, 120.0, 45.0);
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let b = t.foot(1, (100.0, 60.0), 180.0);
    let s = t.sight(a, b);
    assert_hidden(&s, "VIS-14");
    blocked_by_feature(&s, hill);
}

#[test]
fn vis_14_top_contour_and_levels_on_the_same_hill() {
    let mut t = table();
    // Level 1 from y = 40 to 120; level 2 from y = 60 to 100 (crest at y = 80).
    t.area(TerrainKind::Hill { level: 1 }, 40.0, 40.0, 160.0, 120.0);
    t.area(TerrainKind::Hill { level: 2 }, 60.0, 60.0, 140.0, 100.0);
    let lower = t.foot(0, (100.0, 45.0), 0.0);
    let up_front = t.foot(1, (90.0, 75.0), 180.0);
    let up_back = t.foot(1, (110.0, 90.0), 180.0);
    assert_visible(&t.sight(lower, up_front));
    assert_hidden(&t.sight(lower, up_back), "VIS-14");
}

#[test]
fn vis_15_looking_down_from_high_ground_over_low_terrain() {
    let mut t = table();
    let hill = t.area(TerrainKind::Hill { level: 1 }, 60.0, 0.0, 140.0, 25.0);
    let _ = hill;
    // 15 cm of crops: more than VIS-13 allows from the flat.
    t.area(TerrainKind::LowArea, 60.0, 32.0, 140.0, 47.0);
    let up = t.foot(0, (100.0, 20.0), 0.0);
    let flat = t.foot(0, (30.0, 20.0), 0.0);
    let b = t.foot(1, (100.0, 60.0), 180.0);
    let c = t.foot(1, (30.0, 60.0), 180.0);
    t.area(TerrainKind::LowArea, 0.0, 32.0, 50.0, 47.0);
    let s = t.sight(up, b);
    assert_visible(&s);
    // The observer is forward of its own hill's crest (VIS-14) and looks down (VIS-15).
    assert_eq!(s.exceptions, vec!["VIS-14", "VIS-15"]);
    assert_hidden(&t.sight(flat, c), "VIS-13");
    // It also sees into low terrain deeper than 20 cm.
    let deep = t.foot(1, (120.0, 70.0), 180.0);
    t.area(TerrainKind::LowArea, 110.0, 48.0, 140.0, 100.0);
    assert_visible(&t.sight(up, deep));
    // High area terrain still blocks.
    t.area(TerrainKind::HighArea, 60.0, 50.0, 140.0, 55.0);
    assert_hidden(&t.sight(up, b), "VIS-07");
}

// --- VIS-16, VIS-17 --------------------------------------------------------------------------

#[test]
fn vis_16_only_the_defender_starts_dug_in() {
    let mut t = table();
    t.scenario.defender = Some(1);
    t.wall((60.0, 60.0), (140.0, 60.0));
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let defender = t.foot(1, (90.0, 60.0), 180.0);
    t.edit(defender, |p| p.dug_in = true);
    let attacker = t.foot(0, (120.0, 60.0), 180.0);
    t.edit(attacker, |p| p.dug_in = true);
    let ctx = t.ctx();
    assert!(check_dug_in(&ctx, &ctx.state.pieces[&defender]).is_ok());
    let err =
        check_dug_in(&ctx, &ctx.state.pieces[&attacker]).expect_err("attackers do not dig in");
    assert_eq!(err.rule, "VIS-16");
    // The unlawful flag gives no concealment (side 1 looks at side 0's "dug-in" unit).
    let red = t.foot(1, (120.0, 100.0), 180.0);
    assert_visible(&t.sight(red, attacker));
    assert_hidden(&t.sight(a, defender), "VIS-17");
    // A Dug-Out shelters artillery, not infantry.
    t.scenario.sides[1]
        .field_defenses
        .push(powderhorn::model::FieldDefense {
            id: powderhorn::model::DefenseId(1),
            kind: powderhorn::model::DefenseKind::DugOut,
            sections: 1,
            at: vec![],
            occupant: match defender {
                PieceId::Unit { unit, .. } => Some(unit),
                PieceId::Hq { .. } => None,
            },
        });
    let ctx = t.ctx();
    let err = check_dug_in(&ctx, &ctx.state.pieces[&defender]).expect_err("a dug-out is for guns");
    assert_eq!(err.rule, "VIS-16");
}

#[test]
fn vis_17_dug_in_behind_a_wall_stays_hidden_until_revealed() {
    let mut t = table();
    t.scenario.defender = Some(1);
    let wall = t.wall((60.0, 60.0), (140.0, 60.0));
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let dug = t.foot(1, (100.0, 60.0), 180.0);
    t.edit(dug, |p| p.dug_in = true);
    let s = t.sight(a, dug);
    assert_hidden(&s, "VIS-17");
    blocked_by_feature(&s, wall);
    // Even an observer touching the wall does not see it.
    let close = t.foot(0, (80.0, 58.5), 0.0);
    assert_hidden(&t.sight(close, dug), "VIS-17");
    assert!(due_reveals(&t.ctx()).is_empty());
    // Firing reveals it, for good.
    t.edit(dug, |p| p.has_fired = true);
    assert_visible(&t.sight(a, dug));
    t.edit(dug, |p| {
        p.has_fired = false;
        p.revealed = true;
    });
    assert_visible(&t.sight(a, dug));
    t.edit(dug, |p| p.revealed = false);
    // An enemy within 5 cm reveals it.
    t.edit(close, |p| {
        p.pose = Some(Pose {
            at: Point::new(90.0, 56.0),
            facing_deg: 0.0,
        })
    });
    assert_eq!(due_reveals(&t.ctx()), vec![dug]);
    assert_visible(&t.sight(a, dug));
}

#[test]
fn vis_17_dug_in_at_the_inside_edge_of_a_wood_is_hidden() {
    let mut t = table();
    t.scenario.defender = Some(1);
    t.area(TerrainKind::HighArea, 60.0, 60.0, 140.0, 100.0);
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let dug = t.foot(1, (100.0, 60.0), 180.0);
    let open = t.foot(1, (120.0, 60.0), 180.0);
    t.edit(dug, |p| p.dug_in = true);
    assert_hidden(&t.sight(a, dug), "VIS-17");
    assert_visible(&t.sight(a, open));
    // Dug in deeper in the wood (not at its edge): the 5 cm concealed limit (VIS-12).
    t.edit(dug, |p| {
        p.pose = Some(Pose {
            at: Point::new(100.0, 68.0),
            facing_deg: 180.0,
        })
    });
    assert_hidden(&t.sight(a, dug), "VIS-12");
    // Its own side, 2 cm away inside the wood, sees it.
    let friend = t.foot(1, (110.0, 66.0), 0.0);
    let index = SightIndex::new(&t.ctx());
    assert_visible(&index.sight(friend, dug));
    assert_hidden(&index.sight(a, dug), "VIS-12");
}

// --- batch helpers -----------------------------------------------------------------------------

#[test]
fn visible_enemies_nearest_first() {
    let mut t = table();
    let a = t.foot(0, (100.0, 20.0), 0.0);
    let far = t.foot(1, (100.0, 80.0), 180.0);
    let near = t.foot(1, (130.0, 50.0), 180.0);
    let hidden = t.foot(1, (60.0, 50.0), 180.0);
    t.area(TerrainKind::HighArea, 55.0, 35.0, 75.0, 45.0);
    let _behind = t.foot(1, (100.0, 0.0), 0.0);
    let _friend = t.foot(0, (160.0, 40.0), 0.0);
    let seen = visible_enemies(&t.ctx(), a);
    let ids: Vec<PieceId> = seen.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, vec![near, far]);
    let gap = (20f64 * 20.0 + 30.0 * 30.0).sqrt();
    assert!((seen[0].1 - gap).abs() < 1e-9);
    assert_eq!(nearest_visible_enemy(&t.ctx(), a).map(|n| n.0), Some(near));
    assert!(!ids.contains(&hidden));
    // An artillery unit's arm is read from its row.
    assert_eq!(t.ctx().state.pieces[&a].arm, Some(Arm::Infantry));
}

#[test]
fn light_troops_stand_2_cm_apart_in_extended_line() {
    use powderhorn::rules::geometry::footprint_of;
    let mut t = table();
    let light = t.unit(
        0,
        LIGHT,
        4,
        Some(Formation::ExtendedLine),
        (50.0, 20.0),
        0.0,
    );
    let line = t.unit(
        0,
        LINE,
        4,
        Some(Formation::ExtendedLine),
        (150.0, 20.0),
        0.0,
    );
    let skirm = t.unit(
        0,
        SKIRMISHERS,
        4,
        Some(Formation::ExtendedLine),
        (100.0, 120.0),
        0.0,
    );
    let ctx = t.ctx();
    let fp = |id: PieceId| footprint_of(&ctx, &ctx.state.pieces[&id]).expect("on the table");
    assert_eq!(fp(light).frontage(), 4.0 * 2.5 + 3.0 * 2.0);
    assert_eq!(fp(skirm).frontage(), 4.0 * 2.5 + 3.0 * 2.0);
    assert_eq!(fp(line).frontage(), 4.0 * 2.5 + 3.0 * 1.0);
}
