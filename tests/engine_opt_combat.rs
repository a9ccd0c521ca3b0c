//! The OPTIONAL combat rules of catalogue §3.1, §3.2 and §3.7 (issue #21): air-burst shell
//! (OPT-AIRBURST-01), the saber charge (OPT-SABER-01..03, with CHG-13's "with sabre" line) and
//! lying prone (OPT-PRONE-01..02, with FIRE-12's note that hit reductions come after the roll).
//!
//! Golden tests: scripted dice through `Battle::perform`, every expected number worked out by
//! hand from the catalogue in the comment above it. "Everyone has fired before" is arranged by
//! the lists without the first-fire bonus (FIRE-13).
//!
//! Geometry reminders (geom::footprint): a pose is the centre of the formation's front edge;
//! facing 0 looks towards +y, 180 towards −y. An infantry stand is 2.5 × 1.5 cm, cavalry
//! 3.5 × 2.0, a gun 2.5 × 2.5.

use powderhorn::geom::Point;
use powderhorn::rules::artillery::Ammunition;
use powderhorn::rules::charge::{Edge, Outcome};
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::event::KnockOutCause;
use powderhorn::rules::referee::Adjustment;
use powderhorn::rules::{Action, Battle, DiceSource, Event, Formation, Phase, PieceId};

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{pose, u, Sc, AUS_LINE, FIELD_ART, FR_LINE};
use refuse::refused;

const FR_HEAVY: &str = "heavy-cavalry-05-06-13-15";
const HOWITZER: &str = "howitzer-field-artillery";
const ACW_RIFLE: &str = "regular-infantry-rifled-bl";
const ACW_SMOOTH: &str = "regular-infantry-sb";
const US_CAV: &str = "us-cavalry-1862";

/// This file's tables, in `year`, with `rules` switched on.
fn sc(list0: &str, list1: &str, year: u16, rules: &[&str]) -> Sc {
    Sc::new(list0, list1)
        .named("opt-combat-test", "Optional combat test")
        .year(year)
        .rules(rules)
}

/// The battle at deployment, side 0 first, free orders, lists without the first-fire bonus.
fn deployment(s: &Sc, dice: Vec<u8>) -> Battle {
    s.battle_on(
        builder::lists_without_first_fire(),
        DiceSource::Script(dice),
        0,
        OrdersMode::Free,
    )
}

fn initiative(s: &Sc, dice: Vec<u8>) -> Battle {
    Sc::to_initiative(deployment(s, dice), &[])
}

fn command(s: &Sc, dice: Vec<u8>) -> Battle {
    Sc::to_command(initiative(s, dice))
}

fn ok(b: &mut Battle, a: Action) -> Vec<Event> {
    match b.perform(a.clone()) {
        Ok(ev) => ev.to_vec(),
        Err(e) => panic!("expected {a:?} to be legal, got {e}"),
    }
}

fn rolls(ev: &[Event]) -> Vec<(String, Vec<u8>)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::DiceRolled { purpose, dice, .. } => Some((purpose.clone(), dice.clone())),
            _ => None,
        })
        .collect()
}

fn roll(purpose: &str, dice: &[u8]) -> (String, Vec<u8>) {
    (purpose.to_string(), dice.to_vec())
}

fn results(ev: &[Event]) -> Vec<Event> {
    ev.iter()
        .filter(|e| !matches!(e, Event::DiceRolled { .. }))
        .cloned()
        .collect()
}

/// The (rule, value) modifiers of every roll for `purpose`, in order.
fn modifiers_all(ev: &[Event], purpose: &str) -> Vec<Vec<(String, i32)>> {
    ev.iter()
        .filter_map(|e| match e {
            Event::DiceRolled {
                purpose: p,
                modifiers,
                ..
            } if p == purpose => Some(
                modifiers
                    .iter()
                    .map(|m| (m.rule.clone(), m.value))
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

fn modifiers(ev: &[Event], purpose: &str) -> Vec<(String, i32)> {
    modifiers_all(ev, purpose)
        .into_iter()
        .next()
        .unwrap_or_default()
}

fn mods(list: &[(&str, i32)]) -> Vec<(String, i32)> {
    list.iter().map(|(r, v)| (r.to_string(), *v)).collect()
}

fn charge(charger: PieceId, target: PieceId, saber: bool) -> Action {
    Action::Charge {
        chargers: vec![charger],
        target,
        saber,
    }
}

fn fire(firers: &[PieceId], target: PieceId, ammunition: Option<Ammunition>) -> Action {
    Action::Fire {
        firers: firers.to_vec(),
        target,
        ammunition,
    }
}

fn prone(piece: PieceId, prone: bool) -> Action {
    Action::Prone { piece, prone }
}

fn went_prone(piece: PieceId, prone: bool) -> Event {
    Event::ProneChanged {
        piece,
        prone,
        rule: "OPT-PRONE-01".into(),
    }
}

fn shell_landed(firer: PieceId, at: Point) -> Event {
    Event::ShellLanded {
        firer,
        aim: at,
        at,
        deviated: false,
        lost: false,
    }
}

// --- OPT-AIRBURST-01 ---------------------------------------------------------------------------

/// T: two Austrian stands in line inside a built-up area (hard cover), front edge y 100 facing
/// −y (x 97.5..102.5); N: two more beside it (x 102.5..107.5), in the same town; a French
/// `gun` 20 cm in front of T, facing it.
fn town(gun: &str, rules: &[&str]) -> Sc {
    sc("nap-french", "nap-austrian", 1809, rules)
        .area("built_up", (80.0, 100.0, 120.0, 120.0))
        .unit(1, 1, AUS_LINE, 2, 100.0, 100.0, 180.0)
        .unit(1, 2, AUS_LINE, 2, 105.0, 100.0, 180.0)
        .unit(0, 1, gun, 1, 100.0, 80.0, 0.0)
}

#[test]
fn opt_airburst_01_gun_air_burst_two_cm_zone_one_die_fewer_all_open() {
    let (g, t, n) = (u(0, 1), u(1, 1), u(1, 2));
    // Worked by hand (OPT-AIRBURST-01, ART-03, FIRE-11/12/14/17/19/22):
    // * The gun's front edge is at y 80, 20 cm from T: within half its 45 cm range. Shell aims at T's nearest base point, (100, 100); a gun fires direct, no deviation.
    // * Zone 2 cm, not 3: N's nearest point (102.5, 100) is 2.5 cm away, so only T is attacked
    //   (ordinary shell would take N as well, ART-03).
    // * Dice: 1 stand × 1 + 1 (half range) − 1 (air burst) = 1 die.
    // * T is in a town (hard cover) but air burst treats it as in the open: hit on 4+.
    // * Roll [5]: 1 hit. Save 6+, line: 1 + 1 bonus die = 2 dice [6, 1]: 1 saved, 0 taken.
    let mut b = command(&town(FIELD_ART, &["air_burst"]), vec![5, 6, 1]);
    let ev = ok(&mut b, fire(&[g], t, Some(Ammunition::AirBurst)));
    assert_eq!(
        rolls(&ev),
        vec![roll("shell: to hit", &[5]), roll("save", &[6, 1])]
    );
    let m = modifiers(&ev, "shell: to hit");
    assert!(m.contains(&("OPT-AIRBURST-01".to_string(), -1)), "{m:?}");
    assert_eq!(m.last(), Some(&("FIRE-14".to_string(), 4)), "{m:?}");
    assert_eq!(
        results(&ev),
        vec![
            Event::Fired {
                firers: vec![g],
                target: t,
                ammunition: Some(Ammunition::AirBurst),
            },
            shell_landed(g, Point::new(100.0, 100.0)),
            Event::HitsScored {
                target: t,
                hits: 1,
                needed: 4
            },
            Event::Saved {
                target: t,
                saved: 1
            },
        ]
    );
    assert!(!ev.iter().any(|e| matches!(
        e,
        Event::HitsScored { target, .. } if *target == n
    )));
    // Air burst is shell: small arms have no ammunition to choose (ART-01), and the option off
    // refuses it.
    let mut b = command(
        &town(FIELD_ART, &["air_burst"]).unit(0, 2, FR_LINE, 2, 100.0, 95.0, 0.0),
        vec![],
    );
    refused(
        &mut b,
        fire(&[u(0, 2)], t, Some(Ammunition::AirBurst)),
        "ART-01",
    );
    let mut b = command(&town(FIELD_ART, &[]), vec![]);
    refused(
        &mut b,
        fire(&[g], t, Some(Ammunition::AirBurst)),
        "OPT-AIRBURST-01",
    );
}

#[test]
fn opt_airburst_01_lifts_the_howitzer_open_only_limit() {
    let (h, t) = (u(0, 1), u(1, 1));
    // Worked by hand: the same town, a French howitzer 20 cm away (range 20 cm).
    // * Ordinary shell (ART-05): deviation die [2] is on target (1-2, ART-08); T and N (in the
    //   3 cm zone) are in cover, so the howitzer's shell has no effect on either: one die drawn,
    //   a NoEffect under ART-05 for each.
    // * Air burst: deviation [1] on target; the 2 cm zone holds T only; the open-only limit is
    //   lifted and T counts as in the open (4+). Dice: 1 stand × 1, no half-range die for a howitzer (ART-05), −1 air
    //   burst = 0, raised to the floor of 1 (FIRE-12). Roll [6]: 1 hit. Save 2 dice [1, 1]:
    //   none saved; T takes 1 (total 1). Suppression: 1 die at 4+ [3]: not suppressed.
    let s = town(HOWITZER, &["air_burst"]);
    let mut b = command(&s, vec![2]);
    let ev = ok(&mut b, fire(&[h], t, None));
    assert_eq!(rolls(&ev), vec![roll("deviation", &[2])]);
    let no_effect: Vec<(PieceId, String)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::NoEffect { piece, rule, .. } => Some((*piece, rule.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        no_effect,
        vec![(t, "ART-05".to_string()), (u(1, 2), "ART-05".to_string())],
        "the 3 cm zone takes N too, and neither is touched"
    );
    let mut b = command(&s, vec![1, 6, 1, 1, 3]);
    let ev = ok(&mut b, fire(&[h], t, Some(Ammunition::AirBurst)));
    assert_eq!(
        rolls(&ev),
        vec![
            roll("deviation", &[1]),
            roll("shell: to hit", &[6]),
            roll("save", &[1, 1]),
            roll("suppression", &[3]),
        ]
    );
    let m = modifiers(&ev, "shell: to hit");
    assert!(m.contains(&("OPT-AIRBURST-01".to_string(), -1)), "{m:?}");
    assert!(m.contains(&("FIRE-12".to_string(), 1)), "{m:?}");
    assert_eq!(
        results(&ev),
        vec![
            Event::Fired {
                firers: vec![h],
                target: t,
                ammunition: Some(Ammunition::AirBurst),
            },
            shell_landed(h, Point::new(100.0, 100.0)),
            Event::HitsScored {
                target: t,
                hits: 1,
                needed: 4
            },
            Event::Saved {
                target: t,
                saved: 0
            },
            Event::HitsTaken {
                piece: t,
                hits: 1,
                total: 1
            },
        ]
    );
}

#[test]
fn opt_airburst_01_offered_among_the_fire_options_only_with_the_option() {
    let (g, t) = (u(0, 1), u(1, 1));
    let b = command(&town(FIELD_ART, &["air_burst"]), vec![]);
    let o = b.options(g).expect("options");
    let at_t = o.fire.iter().find(|f| f.target == t).expect("T is offered");
    assert!(at_t.air_burst);
    let b = command(&town(FIELD_ART, &[]), vec![]);
    let o = b.options(g).expect("options");
    assert!(o.fire.iter().all(|f| !f.air_burst));
}

// --- OPT-SABER-01..03 ---------------------------------------------------------------------------

/// WE-08's table (French side 0, Austrians side 1): C, 4 stands of heavy cavalry in line at
/// y 98..100 facing +y; T, 5 stands 15 cm ahead facing C, in `formation`.
fn we_08(t_row: &str, rules: &[&str]) -> Sc {
    sc("nap-french", "nap-austrian", 1806, rules)
        .unit(0, 1, FR_HEAVY, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, t_row, 5, 100.0, 115.0, 180.0)
}

#[test]
fn opt_saber_01_only_cavalry_declare_it_and_only_with_the_option() {
    let (c, t) = (u(0, 1), u(1, 1));
    // Option off: the saber declaration is refused; the ordinary charge is not.
    let mut b = initiative(&we_08("line-infantry-05-06", &[]), vec![]);
    let msg = refused(&mut b, charge(c, t, true), "OPT-SABER-01");
    assert!(msg.contains("optional rule"), "{msg}");
    assert!(b.check(&charge(c, t, false)).is_ok());
    // Option on: infantry may not declare it (an Austrian line charging French infantry).
    let s = sc("nap-austrian", "nap-french", 1809, &["saber_charge"])
        .unit(0, 1, AUS_LINE, 4, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 4, 100.0, 110.0, 180.0);
    let mut b = initiative(&s, vec![]);
    let msg = refused(&mut b, charge(u(0, 1), u(1, 1), true), "OPT-SABER-01");
    assert!(msg.contains("only cavalry"), "{msg}");
    assert!(b.check(&charge(u(0, 1), u(1, 1), false)).is_ok());
    // The engine offers what it accepts: the saber charge for the cavalry, not the infantry.
    let b = initiative(&we_08("line-infantry-05-06", &["saber_charge"]), vec![]);
    let o = b.options(c).expect("options");
    assert!(o.charges.iter().any(|x| x.target == t && x.saber));
    let b = initiative(&s, vec![]);
    let o = b.options(u(0, 1)).expect("options");
    assert!(o.charges.iter().all(|x| !x.saber));
}

/// The offer previews each declaration's own first round: WE-08's heavy cavalry (4 stands) on T
/// in the open, if nobody responds.
#[test]
fn opt_saber_02_the_saber_offer_previews_one_more_die_per_stand() {
    let (c, t) = (u(0, 1), u(1, 1));
    let b = initiative(&we_08("line-infantry-05-06", &["saber_charge"]), vec![]);
    let o = b.options(c).expect("options");
    let offer = o
        .charges
        .iter()
        .find(|x| x.target == t)
        .expect("T is offered");
    assert!(offer.saber);
    let attackers = |p: &powderhorn::rules::api::DicePreview| {
        p.rolls
            .iter()
            .find(|r| r.purpose == "charge: attackers to hit")
            .map(|r| (r.dice, r.score))
            .expect("the attackers' roll")
    };
    // Ordinary charge: 4 stands × 3 (CHG-13) + 1 charging (CHG-14) + 1 heavy (CHG-15) = 14
    // dice, hitting T in the open on 4s (CHG-16).
    let ordinary = offer.preview.as_ref().expect("the ordinary preview");
    assert_eq!(attackers(ordinary), (14, Some(4)));
    // Saber charge: one more die per mounted stand in the first round (OPT-SABER-02): 18.
    let saber = offer.saber_preview.as_ref().expect("the saber preview");
    assert_eq!(attackers(saber), (18, Some(4)));
    // The defenders' dice do not change with the attackers' declaration.
    let defenders = |p: &powderhorn::rules::api::DicePreview| {
        p.rolls
            .iter()
            .find(|r| r.purpose == "charge: defenders to hit")
            .map(|r| r.dice)
    };
    assert_eq!(defenders(ordinary), defenders(saber));
    assert!(defenders(saber).is_some());
    // Without the option there is no saber offer and no saber preview.
    let b = initiative(&we_08("line-infantry-05-06", &[]), vec![]);
    let o = b.options(c).expect("options");
    assert!(o
        .charges
        .iter()
        .all(|x| !x.saber && x.saber_preview.is_none()));
}

#[test]
fn opt_saber_01_a_saber_charger_fires_no_ranged_weapon_until_the_charge_is_fought() {
    let (c, t) = (u(0, 1), u(1, 1));
    // Command phase, free orders: C declares a saber charge and is placed 2 cm from T (its
    // carbines reach 2 cm). Asked to fire while the charge is pending it is refused under
    // OPT-SABER-01 (an ordinary charger is refused under the general INIT-03).
    let s = we_08("line-infantry-05-06", &["saber_charge"]);
    let mut b = command(&s, vec![]);
    let ev = ok(&mut b, charge(c, t, true));
    assert!(matches!(
        ev.first(),
        Some(Event::ChargeDeclared { chargers, .. }) if chargers.iter().all(|k| k.saber)
    ));
    refused(&mut b, fire(&[c], t, None), "OPT-SABER-01");
    let mut b = command(&s, vec![]);
    ok(&mut b, charge(c, t, false));
    refused(&mut b, fire(&[c], t, None), "INIT-03");
}

#[test]
fn opt_saber_02_one_more_die_per_stand_in_the_first_round_only() {
    let (c, t) = (u(0, 1), u(1, 1));
    // WE-08 as a saber charge, with dice making round 1 equal (CHG-20).
    // Round 1: French 4 stands × 3 + 4 (saber, +1 per stand) + 1 (charging) + 1 (heavy,
    //   note 13) = 18 dice at 4+ (T in the open): [6, 6, then 1s] → 2 hits; T in attack
    //   column has no save → takes 2. Austrians 5 × 2 = 10 dice at 4+: [6, 6, then 1s] → 2;
    //   C saves 6+ in line with a bonus die: 3 dice [1, 1, 1] → takes 2. Totals 2 : 2, equal.
    // Round 2 (everyone in the open, no charging, heavy or saber die): French 4 × 3 = 12 dice
    //   [6, 6, 6, 6, then 1s] → 4 more on T (total 6); Austrians 10 dice, all 1s → 0.
    //   6 ≥ 2 × 2: a double win (CHG-22): T is knocked out; C, the winning mounted charger, is
    //   disordered and exhausted until player turn 2 (FIRE-28, FIRE-29).
    let mut french1 = vec![6, 6];
    french1.extend([1; 16]);
    let mut austrian1 = vec![6, 6];
    austrian1.extend([1; 8]);
    let mut french2 = vec![6, 6, 6, 6];
    french2.extend([1; 8]);
    let austrian2 = vec![1; 10];
    let mut dice = french1.clone();
    dice.extend(&austrian1);
    dice.extend([1, 1, 1]);
    dice.extend(&french2);
    dice.extend(&austrian2);
    let s = we_08("line-infantry-05-06", &["saber_charge"]);
    let mut b = Sc::to_initiative(
        deployment(&s, dice),
        &[(t, Formation::MarchColumn), (t, Formation::AttackColumn)],
    );
    ok(&mut b, charge(c, t, true));
    ok(&mut b, Action::CloseResponse { target: t });
    let ev = ok(&mut b, Action::ResolveCharge { target: t });
    assert_eq!(
        rolls(&ev),
        vec![
            roll("charge: attackers to hit", &french1),
            roll("charge: defenders to hit", &austrian1),
            roll("save", &[1, 1, 1]),
            roll("charge: attackers to hit", &french2),
            roll("charge: defenders to hit", &austrian2),
        ]
    );
    assert_eq!(
        modifiers_all(&ev, "charge: attackers to hit"),
        vec![
            mods(&[
                ("CHG-13", 12),
                ("CHG-14", 1),
                ("OPT-SABER-02", 4),
                ("CHG-15", 1),
                ("CHG-16", 4)
            ]),
            mods(&[("CHG-13", 12), ("CHG-16", 4)]),
        ]
    );
    assert_eq!(
        results(&ev),
        vec![
            Event::HitsScored {
                target: t,
                hits: 2,
                needed: 4
            },
            Event::HitsTaken {
                piece: t,
                hits: 2,
                total: 2
            },
            Event::HitsScored {
                target: c,
                hits: 2,
                needed: 4
            },
            Event::Saved {
                target: c,
                saved: 0
            },
            Event::HitsTaken {
                piece: c,
                hits: 2,
                total: 2
            },
            Event::CombatRound {
                target: t,
                round: 1,
                attacker_total: 2,
                defender_total: 2,
            },
            Event::HitsScored {
                target: t,
                hits: 4,
                needed: 4
            },
            Event::HitsTaken {
                piece: t,
                hits: 4,
                total: 6
            },
            Event::HitsScored {
                target: c,
                hits: 0,
                needed: 4
            },
            Event::CombatRound {
                target: t,
                round: 2,
                attacker_total: 2,
                defender_total: 6,
            },
            Event::CombatDecided {
                target: t,
                outcome: Outcome::Double,
                winner: Some(0),
            },
            Event::UnitKnockedOut {
                piece: t,
                cause: KnockOutCause::Charge {
                    rule: "CHG-22".into(),
                    reason: "lost a charge by double or more".into(),
                },
            },
            Event::Disordered {
                piece: c,
                until: 2,
                exhausted: true
            },
            Event::FormationChanged {
                piece: c,
                from: Some(Formation::Line),
                to: Some(Formation::Disordered),
            },
            Event::ChargeEnded {
                target: t,
                consolidate: vec![c],
            },
        ]
    );
}

/// The attackers' first-round modifiers of C's saber charge on T standing in square (put there by
/// the referee), when the
/// attackers roll `n` dice: all of them hit (6s), T's 5 stands roll 5 × 2 = 10 dice that all
/// miss, any saves fail, and T is beaten in the first round.
fn saber_on_square(t_row: &str, n: usize) -> Vec<(String, i32)> {
    let (c, t) = (u(0, 1), u(1, 1));
    let s = we_08(t_row, &["saber_charge"]);
    let mut dice = vec![6; n];
    dice.extend([1; 10]);
    dice.extend(vec![1; n]);
    let mut d = deployment(&s, dice);
    // The referee stands T in square (a poor unit could not form one itself, MOVE-16).
    ok(
        &mut d,
        Action::Adjust {
            piece: t,
            set: Adjustment {
                formation: Some(Formation::Square),
                ..Adjustment::default()
            },
        },
    );
    let mut b = Sc::to_initiative(d, &[]);
    ok(&mut b, charge(c, t, true));
    ok(&mut b, Action::CloseResponse { target: t });
    let ev = ok(&mut b, Action::ResolveCharge { target: t });
    assert_eq!(
        rolls(&ev).first(),
        Some(&roll("charge: attackers to hit", &vec![6; n]))
    );
    modifiers(&ev, "charge: attackers to hit")
}

#[test]
fn opt_saber_03_a_no_saber_bonus_against_a_square() {
    // (a) Austrian line infantry in square: 4 × 3 + 1 (charging) + 1 (heavy) = 14 dice, no
    //     saber die; the square against cavalry is one cover level better (MOVE-18): 5+.
    assert_eq!(
        saber_on_square("line-infantry-05-06", 14),
        mods(&[
            ("CHG-13", 12),
            ("CHG-14", 1),
            ("CHG-15", 1),
            ("MOVE-18", 1),
            ("CHG-16", 5)
        ])
    );
    // (c) Poor infantry in square would get no protection, but poor foot never stands in
    // square (MOVE-16, even by the referee's hand): the (c) case the table can show is the
    // rifled die (`opt_saber_03_c_…`).
    let s = we_08("landwehr-infantry", &["saber_charge"]);
    let mut d = deployment(&s, vec![]);
    refused(
        &mut d,
        Action::Adjust {
            piece: u(1, 1),
            set: Adjustment {
                formation: Some(Formation::Square),
                ..Adjustment::default()
            },
        },
        "MOVE-16",
    );
}

/// ACW 1862: U, 3 stands of US cavalry (mounted) in line at y 98..100 facing +y; R, 4 stands of
/// Confederate `row` in line 10 cm ahead facing U.
fn acw(row: &str) -> Sc {
    sc("acw-union", "acw-confederate", 1862, &["saber_charge"])
        .unit(0, 1, US_CAV, 3, 100.0, 100.0, 0.0)
        .unit(1, 1, row, 4, 100.0, 110.0, 180.0)
}

#[test]
fn opt_saber_03_b_rifled_muskets_roll_one_more_die_against_charging_mounted_cavalry() {
    let (c, r) = (u(0, 1), u(1, 1));
    // Worked by hand (OPT-SABER-02/03, CHG-13/14/16/19/22, FIRE-28/29):
    // * Union: 3 stands × 3 + 3 (saber) + 1 (charging) = 13 dice at 4+ (R in the open):
    //   [6, 6, 6, then 1s] → 3 hits; R has no save → takes 3.
    // * Confederate rifled infantry: 4 stands × 2 + 1 (rifled muskets against charging mounted
    //   cavalry) = 9 dice at 4+ (chargers in the open): [6, then 1s] → 1; the cavalry has no
    //   save → takes 1.
    // * 3 ≥ 2 × 1: double. R knocked out (CHG-22); U disordered and exhausted; U consolidates.
    let mut union = vec![6, 6, 6];
    union.extend([1; 10]);
    let mut confederate = vec![6];
    confederate.extend([1; 8]);
    let mut dice = union.clone();
    dice.extend(&confederate);
    let mut b = initiative(&acw(ACW_RIFLE), dice);
    let ev = ok(&mut b, charge(c, r, true));
    assert!(matches!(
        ev.first(),
        Some(Event::ChargeDeclared {
            phase: Phase::Initiative,
            ..
        })
    ));
    let ev = ok(&mut b, Action::CloseResponse { target: r });
    assert_eq!(
        results(&ev),
        vec![
            Event::ResponseClosed { target: r },
            Event::ChargeContact {
                piece: c,
                target: r,
                edge: Edge::Front,
                to: pose(100.0, 110.0, 0.0),
            }
        ]
    );
    let ev = ok(&mut b, Action::ResolveCharge { target: r });
    assert_eq!(
        rolls(&ev),
        vec![
            roll("charge: attackers to hit", &union),
            roll("charge: defenders to hit", &confederate),
        ]
    );
    assert_eq!(
        modifiers(&ev, "charge: attackers to hit"),
        mods(&[
            ("CHG-13", 9),
            ("CHG-14", 1),
            ("OPT-SABER-02", 3),
            ("CHG-16", 4)
        ])
    );
    assert_eq!(
        modifiers(&ev, "charge: defenders to hit"),
        mods(&[("CHG-13", 8), ("OPT-SABER-03", 1), ("CHG-16", 4)])
    );
    assert_eq!(
        results(&ev),
        vec![
            Event::HitsScored {
                target: r,
                hits: 3,
                needed: 4
            },
            Event::HitsTaken {
                piece: r,
                hits: 3,
                total: 3
            },
            Event::HitsScored {
                target: c,
                hits: 1,
                needed: 4
            },
            Event::HitsTaken {
                piece: c,
                hits: 1,
                total: 1
            },
            Event::CombatRound {
                target: r,
                round: 1,
                attacker_total: 1,
                defender_total: 3,
            },
            Event::CombatDecided {
                target: r,
                outcome: Outcome::Double,
                winner: Some(0),
            },
            Event::UnitKnockedOut {
                piece: r,
                cause: KnockOutCause::Charge {
                    rule: "CHG-22".into(),
                    reason: "lost a charge by double or more".into(),
                },
            },
            Event::Disordered {
                piece: c,
                until: 2,
                exhausted: true
            },
            Event::FormationChanged {
                piece: c,
                from: Some(Formation::Line),
                to: Some(Formation::Disordered),
            },
            Event::ChargeEnded {
                target: r,
                consolidate: vec![c],
            },
        ]
    );
}

#[test]
fn opt_saber_03_b_rifle_armed_rows_read_from_the_lists() {
    use powderhorn::rules::charge::rifle_armed;
    // OPT-SABER-03 (b): ACW rifled rows and rifled carbines, every FPW foot row (note 13), the
    // 18C American Riflemen, Colonial rifle and breech-loader rows; not smooth bores, not
    // Napoleonic line, not mounted cavalry.
    let all = builder::lists();
    let armed = |list: &str, row: &str| {
        let l = all
            .iter()
            .find(|l| l.id.to_string() == list)
            .unwrap_or_else(|| panic!("list {list}"));
        let r = l
            .troop_types
            .iter()
            .find(|t| t.id.to_string() == row)
            .unwrap_or_else(|| panic!("row {row} in {list}"));
        rifle_armed(l, r)
    };
    let mut checked = 0;
    for (list, row, expected) in [
        ("acw-confederate", ACW_RIFLE, true),
        ("acw-confederate", ACW_SMOOTH, false),
        (
            "acw-confederate",
            "cs-cavalry-dismounted-rifled-carbine",
            true,
        ),
        ("acw-union", US_CAV, false),
        ("nap-austrian", AUS_LINE, false),
        ("colonial", "european-breech-loader", true),
        ("colonial", "boer-rifle", true),
    ] {
        assert_eq!(armed(list, row), expected, "{list} {row}");
        checked += 1;
    }
    let fpw = all
        .iter()
        .filter(|l| l.period == powderhorn::model::Period::FrancoPrussian)
        .flat_map(|l| {
            l.troop_types
                .iter()
                .filter(|r| r.arm == powderhorn::model::Arm::Infantry)
                .map(move |r| (l, r))
        });
    for (l, r) in fpw {
        assert!(rifle_armed(l, r), "{} {}", l.id, r.id);
        checked += 1;
    }
    let riflemen = all
        .iter()
        .filter(|l| l.period == powderhorn::model::Period::EighteenthCentury)
        .flat_map(|l| l.troop_types.iter().map(move |r| (l, r)))
        .filter(|(_, r)| r.id.to_string() == "american-riflemen");
    for (l, r) in riflemen {
        assert!(rifle_armed(l, r));
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} rows checked");
}

#[test]
fn opt_saber_03_c_smooth_bores_and_poor_infantry_get_no_rifled_die() {
    let (c, r) = (u(0, 1), u(1, 1));
    // The same charge: smooth-bore muskets roll 4 × 2 = 8; rifled infantry bought Poor (ACW
    // rule 1) also 8. (The Union's 13 dice all hit and the Confederates' 8 all miss, so the
    // combat ends in its first round.)
    let defenders = |s: &Sc| {
        let mut dice = vec![6; 13];
        dice.extend([1; 8]);
        let mut b = initiative(s, dice);
        ok(&mut b, charge(c, r, true));
        ok(&mut b, Action::CloseResponse { target: r });
        let ev = ok(&mut b, Action::ResolveCharge { target: r });
        modifiers(&ev, "charge: defenders to hit")
    };
    let plain = mods(&[("CHG-13", 8), ("CHG-16", 4)]);
    assert_eq!(defenders(&acw(ACW_SMOOTH)), plain);
    assert_eq!(defenders(&acw(ACW_RIFLE).grade(1, 1, "poor")), plain);
}

// --- OPT-PRONE-01..02 ---------------------------------------------------------------------------

/// T: an Austrian 5-stand line at y 100..101.5 facing −y (x 93.75..106.25); F1 and F2, French
/// 4-stand lines 5 cm in front of it (x 98..108 and 88..98), facing it; K, French heavy cavalry
/// far off to the left.
fn duel(rules: &[&str]) -> Sc {
    sc("nap-french", "nap-austrian", 1809, rules)
        .unit(1, 1, AUS_LINE, 5, 100.0, 100.0, 180.0)
        .unit(0, 1, FR_LINE, 4, 103.0, 95.0, 0.0)
        .unit(0, 2, FR_LINE, 4, 93.0, 95.0, 0.0)
        .unit(0, 3, FR_HEAVY, 2, 30.0, 60.0, 0.0)
}

/// [`duel`] with T lying prone from deployment, at the French Command phase.
fn prone_duel(dice: Vec<u8>) -> Battle {
    let mut d = deployment(&duel(&["prone"]), dice);
    ok(&mut d, prone(u(1, 1), true));
    Sc::to_command(Sc::to_initiative(d, &[]))
}

#[test]
fn opt_prone_01_lying_down_and_standing_up_are_deploy_actions() {
    let (t, f1, k) = (u(1, 1), u(0, 1), u(0, 3));
    // Without the option nobody lies down.
    let mut d = deployment(&duel(&[]), vec![]);
    let msg = refused(&mut d, prone(t, true), "OPT-PRONE-01");
    assert!(msg.contains("optional rule"), "{msg}");
    // With it: foot only; the event records the marker; twice is refused.
    let mut d = deployment(&duel(&["prone"]), vec![]);
    refused(&mut d, prone(k, true), "OPT-PRONE-01");
    refused(&mut d, prone(f1, false), "OPT-PRONE-01");
    assert_eq!(ok(&mut d, prone(f1, true)), vec![went_prone(f1, true)]);
    assert!(d.state().piece(f1).is_some_and(|p| p.prone));
    refused(&mut d, prone(f1, true), "OPT-PRONE-01");
    let mut b = Sc::to_command(Sc::to_initiative(d, &[]));
    // The engine offers standing up, not lying down again, and no move (OPT-PRONE-02).
    let o = b.options(f1).expect("options");
    assert!(o.stand_up && !o.prone);
    assert!(!o
        .kinds
        .contains(&powderhorn::rules::command::UnitActionKind::Move));
    let o = b.options(u(0, 2)).expect("options");
    assert!(o.prone && !o.stand_up);
    // A prone unit neither moves nor charges (OPT-PRONE-02).
    refused(
        &mut b,
        Action::Move {
            piece: f1,
            via: vec![],
            to: pose(103.0, 96.0, 0.0),
            manoeuvre: Default::default(),
        },
        "OPT-PRONE-02",
    );
    refused(&mut b, charge(f1, t, false), "OPT-PRONE-02");
    // Standing up is the other Deploy action; then it moves again.
    assert_eq!(ok(&mut b, prone(f1, false)), vec![went_prone(f1, false)]);
    assert!(b.state().piece(f1).is_some_and(|p| !p.prone));
    let r = b.check(&Action::Move {
        piece: f1,
        via: vec![],
        to: pose(103.0, 96.0, 0.0),
        manoeuvre: Default::default(),
    });
    assert!(r.is_ok(), "{r:?}");
}

#[test]
fn opt_prone_01_a_prone_unit_stands_up_when_a_charge_contacts_it() {
    let (c, t) = (u(0, 1), u(1, 1));
    // WE-08's table, T in line and prone. Prone in close order it may not fire at the charger
    // (OPT-PRONE-02). When C makes contact T stands up, in the same action.
    let mut d = deployment(&we_08("line-infantry-05-06", &["prone"]), vec![]);
    ok(&mut d, prone(t, true));
    let mut b = Sc::to_initiative(d, &[]);
    ok(&mut b, charge(c, t, false));
    refused(
        &mut b,
        Action::Respond {
            piece: t,
            target: t,
            response: powderhorn::rules::charge::Response::Fire { at: c },
        },
        "OPT-PRONE-02",
    );
    let ev = ok(&mut b, Action::CloseResponse { target: t });
    assert_eq!(
        results(&ev),
        vec![
            Event::ResponseClosed { target: t },
            Event::ChargeContact {
                piece: c,
                target: t,
                edge: Edge::Front,
                to: pose(100.0, 115.0, 0.0),
            },
            went_prone(t, false),
        ]
    );
    assert!(b.state().piece(t).is_some_and(|p| !p.prone));
}

#[test]
fn opt_prone_02_each_firing_unit_scores_one_hit_fewer_after_saves() {
    let (f1, f2, t) = (u(0, 1), u(0, 2), u(1, 1));
    // Worked by hand (FIRE-08/09/11/14/17/19/22, OPT-PRONE-02):
    // * F1 and F2 fire together at prone T, 5 cm away: within half their 10 cm range. Dice:
    //   (4 + 1) + (4 + 1) = 10, one attack at 4+ (prone changes no dice, FIRE-12 note).
    // * Roll [6, 6, 6, 6, 5, 1, 1, 1, 1, 1]: 5 hits. Save 6+, line: 5 + 1 = 6 dice
    //   [6, 1, 1, 1, 1, 1]: 1 saved, 4 left. Two firing units: 4 − 2 = 2 taken (total 2).
    // * Suppression: 2 dice at 4+ [1, 1]: not suppressed.
    let hits = [6, 6, 6, 6, 5, 1, 1, 1, 1, 1];
    let saves = [6, 1, 1, 1, 1, 1];
    let mut dice = hits.to_vec();
    dice.extend(saves);
    dice.extend([1, 1]);
    let mut b = prone_duel(dice);
    let ev = ok(&mut b, fire(&[f1, f2], t, None));
    assert_eq!(
        rolls(&ev),
        vec![
            roll("to hit", &hits),
            roll("save", &saves),
            roll("suppression", &[1, 1]),
        ]
    );
    assert_eq!(
        results(&ev),
        vec![
            Event::Fired {
                firers: vec![f1, f2],
                target: t,
                ammunition: None,
            },
            Event::HitsScored {
                target: t,
                hits: 5,
                needed: 4
            },
            Event::Saved {
                target: t,
                saved: 1
            },
            Event::HitsReduced {
                piece: t,
                by: 2,
                rule: "OPT-PRONE-02".into(),
            },
            Event::HitsTaken {
                piece: t,
                hits: 2,
                total: 2
            },
        ]
    );
    // One firer, one hit left after saves: 1 − 1 = 0, never below. Nothing is taken and no
    // suppression test is made. F1: 4 + 1 = 5 dice [6, 1, 1, 1, 1] → 1 hit; save 2 dice
    // [1, 1] → none saved.
    let mut b = prone_duel(vec![6, 1, 1, 1, 1, 1, 1]);
    let ev = ok(&mut b, fire(&[f1], t, None));
    assert_eq!(
        rolls(&ev),
        vec![roll("to hit", &[6, 1, 1, 1, 1]), roll("save", &[1, 1])]
    );
    assert_eq!(
        results(&ev),
        vec![
            Event::Fired {
                firers: vec![f1],
                target: t,
                ammunition: None,
            },
            Event::HitsScored {
                target: t,
                hits: 1,
                needed: 4
            },
            Event::Saved {
                target: t,
                saved: 0
            },
            Event::HitsReduced {
                piece: t,
                by: 1,
                rule: "OPT-PRONE-02".into(),
            },
        ]
    );
    assert_eq!(b.state().piece(t).map(|p| p.hits), Some(0));
}

#[test]
fn opt_prone_02_a_prone_extended_line_fires_a_prone_close_order_does_not() {
    let (f1, t) = (u(0, 1), u(1, 1));
    // F1 lies prone in line (close order): its fire is refused. In extended line (skirmish
    // order) it fires: 4 stands + 1 (half range) − 1 (extended line firer, MOVE-12) = 4 dice.
    let s = duel(&["prone"]);
    let mut d = deployment(&s, vec![1, 1, 1, 1]);
    ok(&mut d, prone(f1, true));
    let mut b = Sc::to_command(Sc::to_initiative(d, &[]));
    let msg = refused(&mut b, fire(&[f1], t, None), "OPT-PRONE-02");
    assert!(msg.contains("Stand it up"), "{msg}");
    let mut d = deployment(&s, vec![1, 1, 1, 1]);
    ok(
        &mut d,
        Action::Deploy {
            piece: f1,
            formation: Formation::ExtendedLine,
        },
    );
    ok(&mut d, prone(f1, true));
    let mut b = Sc::to_command(Sc::to_initiative(d, &[]));
    let ev = ok(&mut b, fire(&[f1], t, None));
    assert_eq!(rolls(&ev), vec![roll("to hit", &[1, 1, 1, 1])]);
}

#[test]
fn opt_airburst_01_opt_saber_01_opt_prone_01_documented_actions_parse() {
    // docs/battle-file.md shows one line of each new action: each is a battle-file action.
    let md = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/battle-file.md"),
    )
    .expect("docs/battle-file.md");
    let mut seen = Vec::new();
    for line in md.lines().filter(|l| l.starts_with("{\"action\": ")) {
        // A line of a JSON list in the docs ends with a comma.
        let line = line.trim_end().trim_end_matches(',');
        if !line.ends_with('}') {
            // The first line of an action written over several lines.
            continue;
        }
        let a: Action = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        match a {
            Action::Fire {
                ammunition: Some(Ammunition::AirBurst),
                ..
            } => seen.push("air burst"),
            Action::Charge { saber: true, .. } => seen.push("saber"),
            Action::Prone { prone: true, .. } => seen.push("prone"),
            _ => {}
        }
    }
    assert_eq!(seen, ["air burst", "saber", "prone"]);
    // Written back, an ordinary charge has no `saber` field (old files stay as they were).
    let plain = serde_json::to_value(charge(u(0, 1), u(1, 1), false)).expect("json");
    assert!(plain.get("saber").is_none(), "{plain}");
}

#[test]
fn opt_airburst_01_opt_saber_01_opt_prone_01_autoplay_with_the_options_on_keeps_the_log_whole() {
    // With the three options on, autoplayed Ebelsberg games end and their events fold to the
    // battle's state (the solo opponent does not use the options yet: this holds that switching
    // them on changes nothing it relies on).
    use powderhorn::ai::{autoplay, Limits};
    use powderhorn::model::scenario::OptionalRule;
    let mut scenario = powderhorn::model::samples::scenarios()
        .expect("samples")
        .into_iter()
        .find(|s| s.id.as_str() == "1809-ebelsberg")
        .expect("Ebelsberg");
    scenario.optional_rules = vec![
        OptionalRule::AirBurst,
        OptionalRule::SaberCharge,
        OptionalRule::Prone,
    ];
    let lists = builder::lists();
    let mut games = 0;
    for seed in 0..12 {
        let mut b = Battle::new(scenario.clone(), lists.clone(), DiceSource::Seed(seed), 0)
            .expect("sets up");
        let run = autoplay(&mut b, &Limits::default());
        assert!(run.finished, "seed {seed}: {:?}", run.stopped);
        assert_eq!(b.state().turn.phase, Phase::Over, "seed {seed}");
        assert_eq!(&b.replay_events(), b.state(), "seed {seed}");
        games += 1;
    }
    assert_eq!(games, 12);
}
