//! The shared scenario builder for tests: a two-sided scenario as JSON, each side with one HQ
//! (off the table unless placed), units added by troop row and pose. Include it with
//! `#[path = "support/builder.rs"] mod builder;` (a bench: `#[path = "../tests/support/builder.rs"]`).
//! New rules tests use this one builder instead of a copy of their own (issue #22 item 9).
//!
//! Everything a test table needs is a method here: other lists, names and years, HQs placed or
//! not (or a whole command tree with [`Sc::bare`] and [`Sc::hq`]), units under any HQ with any
//! field set, terrain (areas, lines, hedges, features with every field), field defences,
//! optional rules, objectives, the defender; then [`Sc::scenario`] parses it and
//! [`Sc::at_deployment`], [`Sc::at_initiative`] and [`Sc::at_command`] start the battle.
//! Pieces are named with [`u`], [`hq`], [`h`] and poses with [`pose`].
#![allow(dead_code)]

use powderhorn::geom::Point;
use powderhorn::model::{ArmyList, HqId, Scenario, UnitId};
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::{Action, Battle, DiceSource, Formation, Phase, PieceId, Pose};
use serde_json::{json, Value};

/// The shipped army lists.
pub fn lists() -> Vec<ArmyList> {
    powderhorn::model::army::shipped_lists().expect("the shipped lists parse")
}

/// The shipped lists with the first-fire bonus off: every unit "has fired before".
pub fn lists_without_first_fire() -> Vec<ArmyList> {
    let mut l = lists();
    for x in &mut l {
        x.first_fire_bonus = false;
    }
    l
}

pub fn pt(x: f64, y: f64) -> Value {
    json!({"x": x, "y": y})
}

pub fn ring(points: &[(f64, f64)]) -> Value {
    Value::Array(points.iter().map(|(x, y)| pt(*x, *y)).collect())
}

/// A rectangle's polygon geometry, corners (x0, y0) and (x1, y1).
pub fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Value {
    json!({"polygon": ring(&[(x0, y0), (x1, y0), (x1, y1), (x0, y1)])})
}

/// A polyline geometry `width` cm wide.
pub fn polyline(points: &[(f64, f64)], width: f64) -> Value {
    json!({"polyline": {"points": ring(points), "width_cm": width}})
}

/// Unit `id` of `side`.
pub fn u(side: usize, id: u32) -> PieceId {
    PieceId::Unit {
        side,
        unit: UnitId(id),
    }
}

/// The HQ of [`Sc::new`]'s side `side` (id 1 for side 0, 2 for side 1).
pub fn hq(side: usize) -> PieceId {
    h(side, if side == 0 { 1 } else { 2 })
}

/// HQ `id` of `side`.
pub fn h(side: usize, id: u32) -> PieceId {
    PieceId::Hq { side, hq: HqId(id) }
}

pub fn pose(x: f64, y: f64, f: f64) -> Pose {
    Pose {
        at: Point::new(x, y),
        facing_deg: f,
    }
}

/// An HQ's JSON: `name` for the HQ and its commander, positioned by `position` (null: off the
/// table), mounted.
pub fn hq_value(id: u32, name: &str, command_value: u8, position: Value) -> Value {
    json!({
        "id": id, "name": name,
        "commander": {"id": id, "name": name, "level": "brigade", "quality": "average",
                      "command_value": command_value},
        "mounted": true, "position": position
    })
}

/// French line infantry (Napoleonic French list, 8/12 row).
pub const FR_LINE: &str = "line-infantry-08-12";
/// Austrian line infantry (Napoleonic Austrian list, 7/15 row).
pub const AUS_LINE: &str = "line-infantry-07-15";
/// Field artillery (a gun of either Napoleonic list).
pub const FIELD_ART: &str = "field-artillery";

/// A two-sided scenario being built.
pub struct Sc {
    pub v: Value,
    next_feature: u32,
    /// What [`Sc::feature`] names a feature before its id: its kind (`None`) or this word.
    feature_label: Option<&'static str>,
}

impl Clone for Sc {
    fn clone(&self) -> Sc {
        Sc {
            v: self.v.clone(),
            next_feature: self.next_feature,
            feature_label: self.feature_label,
        }
    }
}

impl Sc {
    /// Side A on `list0` and side B on `list1`, each with one average brigade HQ of command
    /// value 7 (ids 1 and 2, "Brigade A" and "Brigade B") off the table; no year, no units.
    pub fn new(list0: &str, list1: &str) -> Sc {
        let hq = |id: u32, name: &str| hq_value(id, name, 7, Value::Null);
        Sc::bare(list0, list1)
            .side(0, "hqs", json!([hq(1, "Brigade A")]))
            .side(1, "hqs", json!([hq(2, "Brigade B")]))
    }

    /// As [`Sc::new`] without HQs: add them with [`Sc::hq`] or [`Sc::hq_json`]. Side A moves first (SEQ-01), as every test table was written for; `.set("first_player",
    /// Value::Null)` leaves the first move to a roll-off.
    pub fn bare(list0: &str, list1: &str) -> Sc {
        Sc {
            v: json!({
                "format": 1, "id": "test", "name": "Test",
                "points": 1500, "turn_limit": 6, "terrain": [], "first_player": 0,
                "sides": [
                    {"name": "Side A", "army_list": list0, "hqs": [], "units": []},
                    {"name": "Side B", "army_list": list1, "hqs": [], "units": []}
                ]
            }),
            next_feature: 1,
            feature_label: None,
        }
    }

    /// French against Austrians, 1809.
    pub fn nap() -> Sc {
        Sc::new("nap-french", "nap-austrian").year(1809)
    }

    /// A copy of this table changed by `f`.
    pub fn clone_with(&self, f: impl FnOnce(Sc) -> Sc) -> Sc {
        f(self.clone())
    }

    /// Sets a top-level field of the scenario.
    pub fn set(mut self, key: &str, v: Value) -> Sc {
        self.v[key] = v;
        self
    }

    /// The scenario's id and name.
    pub fn named(self, id: &str, name: &str) -> Sc {
        self.set("id", json!(id)).set("name", json!(name))
    }

    pub fn year(self, y: u16) -> Sc {
        self.set("year", json!(y))
    }

    pub fn turn_limit(self, n: u32) -> Sc {
        self.set("turn_limit", json!(n))
    }

    /// The optional rules in play.
    pub fn rules(self, rules: &[&str]) -> Sc {
        self.set("optional_rules", json!(rules))
    }

    /// The defending side.
    pub fn defender(self, side: usize) -> Sc {
        self.set("defender", json!(side))
    }

    /// The defender's posture ("fixed", "hasty", …).
    pub fn posture(self, posture: &str) -> Sc {
        self.set("defense", json!(posture))
    }

    /// Sets a field of side `side` (its "name", "army_list", "hqs", "field_defenses", …).
    pub fn side(mut self, side: usize, key: &str, v: Value) -> Sc {
        self.v["sides"][side][key] = v;
        self
    }

    /// The two sides' names.
    pub fn side_names(self, a: &str, b: &str) -> Sc {
        self.side(0, "name", json!(a)).side(1, "name", json!(b))
    }

    /// Side `side` fights with army list `list`.
    pub fn list(self, side: usize, list: &str) -> Sc {
        self.side(side, "army_list", json!(list))
    }

    /// `side`'s major objective ground.
    pub fn objective(self, side: usize, area: &[(f64, f64)]) -> Sc {
        self.side(
            side,
            "objectives",
            json!({"major": {"description": "the ground", "area": ring(area)}}),
        )
    }

    // --- HQs ---------------------------------------------------------------------------------------

    /// Adds an HQ given as JSON to `side`.
    pub fn hq_json(mut self, side: usize, h: Value) -> Sc {
        if let Some(v) = self.v["sides"][side]["hqs"].as_array_mut() {
            v.push(h);
        }
        self
    }

    /// Replaces `side`'s HQs.
    pub fn hqs(self, side: usize, hqs: Vec<Value>) -> Sc {
        self.side(side, "hqs", Value::Array(hqs))
    }

    /// Adds HQ `id` ("HQ side.id", commanded by "General side.id") of `level`, `quality` and
    /// command `value` under `parent`, mounted, at `at` facing 0°.
    #[allow(clippy::too_many_arguments)]
    pub fn hq(
        self,
        side: usize,
        id: u32,
        level: &str,
        quality: &str,
        value: u8,
        parent: Option<u32>,
        at: (f64, f64),
    ) -> Sc {
        self.hq_json(
            side,
            json!({
                "id": id, "name": format!("HQ {side}.{id}"), "parent": parent,
                "commander": {"id": id, "name": format!("General {side}.{id}"), "level": level,
                              "quality": quality, "command_value": value},
                "mounted": true,
                "position": {"at": pt(at.0, at.1), "facing_deg": 0.0}
            }),
        )
    }

    /// Sets a field of `side`'s HQ `id`.
    pub fn hq_field(mut self, side: usize, id: u32, key: &str, v: Value) -> Sc {
        if let Some(hqs) = self.v["sides"][side]["hqs"].as_array_mut() {
            for h in hqs.iter_mut().filter(|h| h["id"] == json!(id)) {
                h[key] = v.clone();
            }
        }
        self
    }

    /// `side`'s HQ `id` is a forward artillery observer (ART-10).
    pub fn fao(self, side: usize, id: u32) -> Sc {
        self.hq_field(side, id, "fao", json!(true))
    }

    /// Places `side`'s first HQ at (x, y) facing 0°.
    pub fn hq_at(self, side: usize, x: f64, y: f64) -> Sc {
        self.hq_pose(side, x, y, 0.0)
    }

    /// Places `side`'s first HQ at (x, y) facing `f`°.
    pub fn hq_pose(mut self, side: usize, x: f64, y: f64, f: f64) -> Sc {
        self.v["sides"][side]["hqs"][0]["position"] = json!({"at": pt(x, y), "facing_deg": f});
        self
    }

    /// Places `side`'s first HQ at (x, y) facing 0°, mounted or on foot.
    pub fn hq_mounted(self, side: usize, x: f64, y: f64, mounted: bool) -> Sc {
        self.hq_at(side, x, y)
            .first_hq(side, "mounted", json!(mounted))
    }

    /// Sets a field of `side`'s first HQ (e.g. "mounted").
    pub fn first_hq(mut self, side: usize, key: &str, v: Value) -> Sc {
        self.v["sides"][side]["hqs"][0][key] = v;
        self
    }

    // --- units -------------------------------------------------------------------------------------

    /// Adds a unit given as JSON to `side`.
    pub fn unit_json(mut self, side: usize, u: Value) -> Sc {
        if let Some(units) = self.v["sides"][side]["units"].as_array_mut() {
            units.push(u);
        }
        self
    }

    /// A unit named `name` under HQ `hq`, placed at `position` (a placement's JSON; null: off
    /// the table).
    #[allow(clippy::too_many_arguments)]
    pub fn named_unit(
        self,
        side: usize,
        id: u32,
        name: &str,
        troop: &str,
        stands: u8,
        hq: u32,
        position: Value,
    ) -> Sc {
        self.unit_json(
            side,
            json!({"id": id, "name": name, "troop_type": troop, "stands": stands, "hq": hq,
                   "position": position}),
        )
    }

    /// A unit of `stands` stands of `troop` under [`Sc::new`]'s HQ of its side (1 or 2), its
    /// front edge's centre at (x, y), facing `f`°.
    #[allow(clippy::too_many_arguments)]
    pub fn unit(self, side: usize, id: u32, troop: &str, stands: u8, x: f64, y: f64, f: f64) -> Sc {
        let hq = if side == 0 { 1 } else { 2 };
        self.unit_under(side, id, hq, troop, stands, (x, y), f)
    }

    /// A unit under HQ `hq`, its front edge's centre at `at`, facing `f`°.
    #[allow(clippy::too_many_arguments)]
    pub fn unit_under(
        self,
        side: usize,
        id: u32,
        hq: u32,
        troop: &str,
        stands: u8,
        at: (f64, f64),
        f: f64,
    ) -> Sc {
        self.unit_json(
            side,
            json!({"id": id, "name": format!("{troop} {id}"), "troop_type": troop,
                   "stands": stands, "hq": hq,
                   "position": {"at": pt(at.0, at.1), "facing_deg": f}}),
        )
    }

    /// Adds a unit given as JSON to `side`; one without a position is placed in a row along
    /// the side's base line, 12 cm apart from x = 10 (side 0 at y 20 facing 0°, side 1 at y 160
    /// facing 180°).
    pub fn unit_in_row(self, side: usize, mut u: Value) -> Sc {
        let n = self.v["sides"][side]["units"]
            .as_array()
            .map_or(0, Vec::len) as f64;
        if u.get("position").is_none() {
            let y = if side == 0 { 20.0 } else { 160.0 };
            u["position"] = json!({"at": {"x": 10.0 + 12.0 * n, "y": y},
                                   "facing_deg": if side == 0 { 0.0 } else { 180.0 }});
        }
        self.unit_json(side, u)
    }

    /// Units `first..first+count` of `stands` stands of `troop` under HQ `hq`, in a row as
    /// [`Sc::unit_in_row`] places them.
    pub fn units(
        mut self,
        side: usize,
        first: u32,
        count: u32,
        troop: &str,
        stands: u8,
        hq: u32,
    ) -> Sc {
        for id in first..first + count {
            self = self.unit_in_row(
                side,
                json!({"id": id, "name": format!("{troop} {id}"), "troop_type": troop,
                       "stands": stands, "hq": hq}),
            );
        }
        self
    }

    /// Sets a field of `side`'s unit `id`.
    pub fn unit_field(mut self, side: usize, id: u32, key: &str, v: Value) -> Sc {
        if let Some(units) = self.v["sides"][side]["units"].as_array_mut() {
            for u in units.iter_mut().filter(|u| u["id"] == json!(id)) {
                u[key] = v.clone();
            }
        }
        self
    }

    /// Unit `id`'s morale grade.
    pub fn grade(self, side: usize, id: u32, grade: &str) -> Sc {
        self.unit_field(side, id, "grade", json!(grade))
    }

    /// Sets a flag of unit `id` (e.g. "engineer_attached").
    pub fn flag(self, side: usize, id: u32, key: &str) -> Sc {
        self.unit_field(side, id, key, json!(true))
    }

    // --- terrain and defences ----------------------------------------------------------------------

    /// Adds a terrain feature given as JSON (its id and name are the caller's).
    pub fn terrain_json(mut self, f: Value) -> Sc {
        if let Some(t) = self.v["terrain"].as_array_mut() {
            t.push(f);
        }
        self
    }

    /// Features are named "`label` N" from now on instead of "kind N".
    pub fn feature_label(mut self, label: &'static str) -> Sc {
        self.feature_label = Some(label);
        self
    }

    /// A feature of `kind` named "kind N" (or as [`Sc::feature_label`] says) with the next id.
    pub fn feature(mut self, kind: &str, geometry: Value) -> Sc {
        let n = self.next_feature;
        self.next_feature += 1;
        let label = self.feature_label.unwrap_or(kind);
        self.terrain_json(
            json!({"id": n, "name": format!("{label} {n}"), "kind": kind,
                                 "geometry": geometry}),
        )
    }

    /// A feature named "feature N" with the next id, its kind given by the fields of `kind`
    /// (e.g. `{"kind": "river", "crossing": …}`), dense or frozen as told.
    pub fn feature_of(mut self, kind: Value, geometry: Value, dense: bool, frozen: bool) -> Sc {
        let n = self.next_feature;
        self.next_feature += 1;
        let mut f = json!({"id": n, "name": format!("feature {n}"), "geometry": geometry,
                           "dense": dense, "frozen": frozen});
        if let (Some(obj), Some(k)) = (f.as_object_mut(), kind.as_object()) {
            for (key, val) in k {
                obj.insert(key.clone(), val.clone());
            }
        }
        self.terrain_json(f)
    }

    /// A feature `id` named `name` of `kind` over `geometry` (its id and name the caller's).
    pub fn named_feature(self, id: u32, name: &str, kind: &str, geometry: Value) -> Sc {
        self.terrain_json(json!({"id": id, "name": name, "kind": kind, "geometry": geometry}))
    }

    /// A line feature `id` named `name` of `kind` through `points`, `width` cm wide.
    pub fn named_line(
        self,
        id: u32,
        name: &str,
        kind: &str,
        points: &[(f64, f64)],
        width: f64,
    ) -> Sc {
        self.named_feature(id, name, kind, polyline(points, width))
    }

    /// An area feature `id` named `name` of `kind` over the ring `points`.
    pub fn named_area(self, id: u32, name: &str, kind: &str, points: &[(f64, f64)]) -> Sc {
        self.named_feature(id, name, kind, json!({"polygon": ring(points)}))
    }

    /// The table's size, cm.
    pub fn table(self, width: f64, depth: f64) -> Sc {
        self.set("table", json!({"width_cm": width, "depth_cm": depth}))
    }

    /// A feature of `kind` along a line of zero width.
    pub fn line(self, kind: &str, points: &[(f64, f64)]) -> Sc {
        self.feature(kind, polyline(points, 0.0))
    }

    /// A wall, fence or hedge along a line (zero width).
    pub fn hedge(self, points: &[(f64, f64)]) -> Sc {
        self.line("linear", points)
    }

    /// An area feature of `kind` over the rectangle (x0, y0, x1, y1).
    pub fn area(self, kind: &str, r: (f64, f64, f64, f64)) -> Sc {
        self.feature(kind, rect(r.0, r.1, r.2, r.3))
    }

    /// A polygon feature `id` of `kind` named "kind id" over `ring`.
    pub fn polygon(self, id: u32, kind: &str, points: &[(f64, f64)]) -> Sc {
        self.terrain_json(
            json!({"id": id, "name": format!("{kind} {id}"), "kind": kind,
                                 "geometry": {"polygon": ring(points)}}),
        )
    }

    /// Adds a field defence given as JSON to `side`.
    pub fn defense_json(mut self, side: usize, d: Value) -> Sc {
        match self.v["sides"][side]["field_defenses"].as_array_mut() {
            Some(v) => v.push(d),
            None => self.v["sides"][side]["field_defenses"] = json!([d]),
        }
        self
    }

    /// A one-section field defence of `kind` along `at` with the next feature id, held by unit
    /// `occupant` if any.
    pub fn defense(
        mut self,
        side: usize,
        kind: &str,
        at: &[(f64, f64)],
        occupant: Option<u32>,
    ) -> Sc {
        let n = self.next_feature;
        self.next_feature += 1;
        self.defense_json(
            side,
            json!({"id": n, "kind": kind, "sections": 1, "at": ring(at), "occupant": occupant}),
        )
    }

    /// A one-section field defence `id` of `kind` along `at`, held by unit `occupant` if any.
    pub fn defense_id(
        self,
        side: usize,
        id: u32,
        kind: &str,
        at: &[(f64, f64)],
        occupant: Option<u32>,
    ) -> Sc {
        self.defense_json(
            side,
            json!({"id": id, "kind": kind, "sections": 1, "at": ring(at), "occupant": occupant}),
        )
    }

    // --- the battle --------------------------------------------------------------------------------

    pub fn scenario(&self) -> Scenario {
        serde_json::from_value(self.v.clone()).expect("the test scenario parses")
    }

    /// The battle at deployment on `lists`, side `first` to play first, under `orders`.
    pub fn battle_on(
        &self,
        lists: Vec<ArmyList>,
        dice: DiceSource,
        first: usize,
        orders: OrdersMode,
    ) -> Battle {
        Battle::new(self.scenario(), lists, dice, first)
            .expect("the test battle sets up")
            .with_orders(orders)
    }

    /// The battle at deployment with `dice` scripted, side 0 first, under `orders`.
    pub fn at_deployment(&self, dice: Vec<u8>, orders: OrdersMode) -> Battle {
        self.battle_on(lists(), DiceSource::Script(dice), 0, orders)
    }

    /// `b` after the deploys, at the first player's Initiative phase.
    pub fn to_initiative(mut b: Battle, deploys: &[(PieceId, Formation)]) -> Battle {
        for (piece, formation) in deploys {
            b.perform(Action::Deploy {
                piece: *piece,
                formation: *formation,
            })
            .expect("the deploy is legal");
        }
        b.perform(Action::EndPhase).expect("deployment ends");
        assert_eq!(b.state().turn.phase, Phase::Initiative);
        b
    }

    /// `b` at its Initiative phase, on to the Command phase.
    pub fn to_command(mut b: Battle) -> Battle {
        b.perform(Action::EndPhase).expect("to the Command phase");
        assert_eq!(b.state().turn.phase, Phase::Command);
        b
    }

    /// Side 0's Initiative phase of player turn 1 under `orders`, after the deploys.
    pub fn at_initiative(
        &self,
        dice: Vec<u8>,
        orders: OrdersMode,
        deploys: &[(PieceId, Formation)],
    ) -> Battle {
        Sc::to_initiative(self.at_deployment(dice, orders), deploys)
    }

    /// Side 0's Command phase of player turn 1 under `orders`, after the deploys.
    pub fn at_command(
        &self,
        dice: Vec<u8>,
        orders: OrdersMode,
        deploys: &[(PieceId, Formation)],
    ) -> Battle {
        Sc::to_command(self.at_initiative(dice, orders, deploys))
    }
}

/// Four French line battalions against five Austrian, 5 stands each, 25 cm apart facing each
/// other 140 cm away, both brigade HQs on the table: the small battle of the result tests
/// (tests/battle_report.rs, tests/ui_battle_result.rs).
pub fn four_against_five() -> Sc {
    let mut sc = Sc::nap().hq_at(0, 100.0, 10.0).hq_at(1, 100.0, 170.0);
    for id in 1..=4 {
        sc = sc.unit(0, id, FR_LINE, 5, 20.0 + 25.0 * f64::from(id), 20.0, 0.0);
    }
    for id in 1..=5 {
        sc = sc.unit(
            1,
            id,
            AUS_LINE,
            5,
            20.0 + 25.0 * f64::from(id),
            160.0,
            180.0,
        );
    }
    sc
}

/// A shipped sample scenario by id (`powderhorn::model::samples`).
pub fn sample(id: &str) -> Scenario {
    powderhorn::model::samples::scenarios()
        .expect("the sample scenarios parse")
        .into_iter()
        .find(|s| s.id.as_str() == id)
        .unwrap_or_else(|| panic!("{id} is among the shipped samples"))
}

/// The shipped Ebelsberg sample, as the store seeds it.
pub fn ebelsberg() -> Scenario {
    sample("1809-ebelsberg")
}
