//! The result report (`rules::report`, issue #17 item 9): small battles from the shared builder
//! played to their end with referee removals (no dice), and every number of the report worked
//! out by hand from the catalogue: VP-01 (full purchase cost of each unit and command unit
//! knocked out), VP-02 (the cap of a side that conceded), VP-03 (the ×2 upgrade), OBJ-01,
//! END-03 (turn limit, concession), and the strength of each side at the end of each game turn.
//!
//! Prices (napoleonic.json): French Line Infantry (08-12) and Austrian Line Infantry (07-15)
//! are 55 a stand, so a unit of 5 stands is 275; an average brigade HQ is 55.

#[path = "support/builder.rs"]
mod builder;

use builder::{four_against_five, lists, u};
use powderhorn::model::HqId;
use powderhorn::rules::action::Action;
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::event::{EndReason, KnockOutCause};
use powderhorn::rules::referee::Adjustment;
use powderhorn::rules::report::{ItemKind, ResultReport, StrengthPoint};
use powderhorn::rules::victory::{ObjectiveLevel, Outcome};
use powderhorn::rules::{Battle, DiceSource, Phase, PieceId};

/// French (side 0): units 1–4, 5 stands each; Austrians (side 1): units 1–5, 5 stands each;
/// both brigade HQs (average, 55) on the table. Turn limit 2; free orders, so no command dice.
fn battle() -> Battle {
    let sc = four_against_five().set("turn_limit", serde_json::json!(2));
    let mut b = Battle::new(sc.scenario(), lists(), DiceSource::Script(vec![]), 0)
        .map(|b| b.with_orders(OrdersMode::Free))
        .expect("the test battle sets up");
    b.perform(Action::EndPhase).expect("deployment ends");
    b
}

fn remove(b: &mut Battle, piece: PieceId) {
    b.perform(Action::RemoveUnit {
        piece,
        cause: KnockOutCause::Referee,
    })
    .expect("the referee removes it");
}

/// Ends phases until the next player turn begins (or the battle is over).
fn next_player_turn(b: &mut Battle) {
    let start = b.state().turn.player_turn;
    while b.state().turn.player_turn == start && b.state().turn.phase != Phase::Over {
        b.perform(Action::EndPhase).expect("the phase ends");
    }
}

#[test]
fn vp_01_vp_03_report_of_a_battle_ended_by_the_turn_limit() {
    let mut b = battle();
    // Game turn 1, French: the Austrian unit 1 is knocked out (275 VPs to the French).
    remove(&mut b, u(1, 1));
    next_player_turn(&mut b);
    // Game turn 1, Austrians: the French unit 1 is knocked out (275 to the Austrians), and the
    // French unit 2 is down to 3 stands (no VPs: VP-01 (b)).
    remove(&mut b, u(0, 1));
    b.perform(Action::Adjust {
        piece: u(0, 2),
        set: Adjustment {
            stands: Some(3),
            ..Adjustment::default()
        },
    })
    .expect("the referee sets the stands");
    next_player_turn(&mut b);
    // Game turn 2, French: the Austrian brigade HQ (55, VP-01 (c)) and unit 2 (275).
    remove(
        &mut b,
        PieceId::Hq {
            side: 1,
            hq: HqId(2),
        },
    );
    remove(&mut b, u(1, 2));
    next_player_turn(&mut b);
    // Game turn 2, Austrians: nothing; the turn limit (END-03 (2)) ends the battle.
    next_player_turn(&mut b);
    assert_eq!(b.state().turn.phase, Phase::Over);

    let r = ResultReport::of(&b);
    // VP-01: French 275 + 55 + 275 = 605; Austrians 275. OBJ-01: none against none, a draw.
    // VP-03: 605 ≥ 2 × 275 = 550, so the French draw becomes a Minor Victory.
    assert_eq!(r.reason, Some(EndReason::TurnLimit));
    assert_eq!(r.winner(), Some(0));
    assert_eq!(r.headline, "Side A wins: Minor Victory");
    assert_eq!(
        r.why,
        "turn limit; objectives: Side A no objective, Side B no objective (OBJ-01); raised a \
         step: Side A earned at least twice the VPs (VP-03)"
    );
    let fr = &r.sides[0];
    let items: Vec<(ItemKind, u32, i64)> = fr
        .items
        .iter()
        .map(|i| (i.kind, i.game_turn, i.points))
        .collect();
    assert_eq!(
        items,
        vec![
            (ItemKind::Unit, 1, 275),
            (ItemKind::Command, 2, 55),
            (ItemKind::Unit, 2, 275)
        ]
    );
    assert_eq!(fr.items[0].name, "line-infantry-07-15 1");
    assert_eq!(fr.items[1].name, "Brigade B");
    assert_eq!(fr.items[0].cause_rule, "GEN-12");
    assert_eq!((fr.earned, fr.vp, fr.capped), (605, 605, false));
    assert!(fr.upgraded);
    assert_eq!(
        (fr.objective_result, fr.result),
        (Outcome::Draw, Outcome::MinorVictory)
    );
    let au = &r.sides[1];
    assert_eq!(au.items.len(), 1);
    assert_eq!(au.items[0].name, "line-infantry-08-12 1");
    assert_eq!((au.earned, au.vp, au.upgraded), (275, 275, false));
    assert_eq!(au.result, Outcome::MinorDefeat);
    assert_eq!(
        r.adjustments(0),
        vec![
            "×2: 605 VPs is at least twice the opponent's 275, so the result rises one step, \
             from Draw to Minor Victory (VP-03)"
                .to_string()
        ]
    );
    assert!(r.adjustments(1).is_empty());

    // Strength: at the start French 4 × 5 = 20 stands, 4 × 275 + 55 = 1155 points; Austrians
    // 25 stands, 5 × 275 + 55 = 1430. After game turn 1: French 0 + 3 + 5 + 5 = 13 stands, 880
    // points; Austrians 20, 1155. After game turn 2: French unchanged; Austrians 15 stands,
    // 3 × 275 = 825 (the HQ is gone too).
    let s = |t, stands: [u32; 2], points: [i64; 2]| StrengthPoint {
        game_turn: t,
        complete: true,
        stands,
        points,
    };
    assert_eq!(
        r.strength,
        vec![
            s(0, [20, 25], [1155, 1430]),
            s(1, [13, 20], [880, 1155]),
            s(2, [13, 15], [880, 825]),
        ]
    );
    // Losses by unit, in piece order (units, then command units).
    let losses: Vec<(PieceId, u8, u8, bool, Option<u32>)> = r
        .losses
        .iter()
        .map(|l| {
            (
                l.piece,
                l.stands_at_start,
                l.stands_lost,
                l.knocked_out,
                l.knocked_out_turn,
            )
        })
        .collect();
    let hq_stands = b
        .initial_state()
        .pieces
        .get(&PieceId::Hq {
            side: 1,
            hq: HqId(2),
        })
        .map(|p| p.stands)
        .expect("the Austrian HQ");
    assert_eq!(
        losses,
        vec![
            (u(0, 1), 5, 5, true, Some(1)),
            (u(0, 2), 5, 2, false, None),
            (u(1, 1), 5, 5, true, Some(1)),
            (u(1, 2), 5, 5, true, Some(2)),
            (
                PieceId::Hq {
                    side: 1,
                    hq: HqId(2)
                },
                hq_stands,
                hq_stands,
                true,
                Some(2)
            ),
        ]
    );
    assert_eq!(r.game_turns, 2);
}

#[test]
fn vp_02_end_03_report_of_a_concession_shows_the_cap() {
    let mut b = battle();
    // Game turn 1, French: the Austrians knock out French units 1 and 2 (550 VPs to them);
    // the French knock out Austrian unit 1 (275). Then the Austrians concede.
    remove(&mut b, u(0, 1));
    remove(&mut b, u(0, 2));
    remove(&mut b, u(1, 1));
    b.perform(Action::Concede { side: 1 }).expect("conceded");
    assert_eq!(b.state().turn.phase, Phase::Over);

    let r = ResultReport::of(&b);
    // OBJ-01: the Austrians conceded and count as reaching none; the French none: a draw.
    // VP-02: the Austrians' 550 is capped at the French 275. VP-03: 275 against 275 raises
    // nobody. A draw.
    assert_eq!(r.reason, Some(EndReason::Concession));
    assert_eq!(r.winner(), None);
    assert_eq!(r.headline, "A draw");
    assert_eq!(r.why, "Side B conceded (END-03)");
    let au = &r.sides[1];
    assert_eq!(
        (au.earned, au.vp, au.capped, au.withdrew),
        (550, 275, true, true)
    );
    assert_eq!(au.objective, ObjectiveLevel::None);
    assert_eq!(
        r.adjustments(1),
        vec![
            "Capped at the opponent's 275 VPs: a side that withdrew or conceded cannot finish \
             ahead on points (VP-02)"
                .to_string()
        ]
    );
    assert_eq!((r.sides[0].earned, r.sides[0].vp), (275, 275));
    // The battle ended inside game turn 1: the start, then the state at the concession.
    assert_eq!(
        r.strength,
        vec![
            StrengthPoint {
                game_turn: 0,
                complete: true,
                stands: [20, 25],
                points: [1155, 1430]
            },
            StrengthPoint {
                game_turn: 1,
                complete: false,
                stands: [10, 20],
                points: [605, 1155]
            },
        ]
    );
}

#[test]
fn a_report_of_a_battle_not_over_says_so() {
    let b = battle();
    let r = ResultReport::of(&b);
    assert!(!r.ended());
    assert_eq!(r.headline, "The battle is not over");
    assert_eq!(r.strength.len(), 1);
    assert!(r.losses.is_empty());
}
