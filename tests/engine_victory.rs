//! The end of turns and the end of the battle (catalogue §2.16 END-01/02, §4.2 END-03, §4.3
//! BRK-01..03, §4.4 OBJ-01/02, §4.5 VP-01..04, DEF-06, SEQ-05, GEN-11/12; worked examples WE-13
//! and WE-14). Each test builds a small scenario, drives it through `Battle::perform` with
//! scripted dice, or resolves `end_phase` on a prepared state (hits, suppression and disorder
//! come from firing and charges, which these tests do not need), and checks the exact events.
//! Every entry has at least one test carrying its ID in the name.

use powderhorn::model::DefenseId;
use powderhorn::rules::action::Action;
use powderhorn::rules::apply::apply_all;
use powderhorn::rules::battle::resolve;
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::dice::ScriptedDice;
use powderhorn::rules::endphase::allocate_hits;
use powderhorn::rules::event::{EndReason, KnockOutCause, Modifier};
use powderhorn::rules::victory::{
    battle_result, decide, loss_points, objective_results, BattleResult, DefenseLossCause, Loss,
    ObjectiveLevel, Outcome, SideInput, SideResult, VictoryParams,
};
use powderhorn::rules::{ActionError, Battle, BattleState, Ctx, DiceSource, Event, Phase, PieceId};
use serde_json::{json, Value};

// --- scenario builder (tests/support/builder.rs) ------------------------------------------------

#[path = "support/builder.rs"]
mod builder;
use builder::{h as hq, lists, u, Sc};

fn hq_json(id: u32, name: &str, level: &str, quality: &str, cv: u8, parent: Option<u32>) -> Value {
    json!({
        "id": id, "name": name, "parent": parent,
        "commander": {"id": id, "name": name, "level": level, "quality": quality,
                      "command_value": cv},
        "position": {"at": {"x": 100.0 + 10.0 * f64::from(id), "y": 5.0}, "facing_deg": 0.0}
    })
}

/// French (side 0, `nap-french`) against Austrians (side 1, `nap-austrian`), each with one
/// average brigade HQ (id 1, command value 7) and no units until added; 8 turns.
fn new_sc() -> Sc {
    Sc::bare("nap-french", "nap-austrian")
        .named("victory-test", "Victory test")
        .turn_limit(8)
        .side_names("French", "Austrians")
        .hq_json(
            0,
            hq_json(1, "Brigade Coëhorn", "brigade", "average", 7, None),
        )
        .hq_json(
            1,
            hq_json(1, "Brigade Hohenfeld", "brigade", "average", 7, None),
        )
}

/// A one-section field defence `id` of `kind` along y = 30 from x 0 to 10, held by `occupant`.
fn works(id: u32, kind: &str, occupant: Option<u32>) -> Value {
    json!({"id": id, "kind": kind, "sections": 1, "occupant": occupant,
           "at": [{"x": 0.0, "y": 30.0}, {"x": 10.0, "y": 30.0}]})
}

impl Sc {
    /// The battle at deployment, side `first` to play first, with these dice.
    fn deploying(&self, dice: Vec<u8>, first: usize) -> Battle {
        self.battle_on(lists(), DiceSource::Script(dice), first, OrdersMode::Free)
    }

    /// The battle in the first player's first Initiative phase.
    fn battle(&self, dice: Vec<u8>, first: usize) -> Battle {
        let mut b = self.deploying(dice, first);
        b.perform(Action::EndPhase).expect("deployment ends");
        b
    }
}

/// Ends the three phases before End, then the End phase; the events of the last `end_phase`
/// (the End phase's work and the next player turn beginning, or the end of the battle).
fn finish_player_turn(b: &mut Battle) -> Vec<Event> {
    for _ in 0..3 {
        b.perform(Action::EndPhase).expect("the phase ends");
    }
    b.perform(Action::EndPhase)
        .expect("the End phase ends")
        .to_vec()
}

/// Ends phases until the End phase of the current player turn.
fn to_end_phase(b: &mut Battle) {
    while b.state().turn.phase != Phase::End {
        b.perform(Action::EndPhase).expect("the phase ends");
    }
}

fn remove(b: &mut Battle, piece: PieceId) {
    b.perform(Action::RemoveUnit {
        piece,
        cause: KnockOutCause::Referee,
    })
    .expect("the referee removes it");
}

/// Resolves and applies `end_phase` on a copy of the battle's state after `edit` (hits,
/// suppression, disorder as firing and charges would leave them), with these dice.
fn end_phase_on(
    b: &Battle,
    edit: impl FnOnce(&mut BattleState),
    dice: Vec<u8>,
) -> (Vec<Event>, BattleState) {
    let mut st = b.state().clone();
    edit(&mut st);
    let ctx = Ctx {
        scenario: b.scenario(),
        lists: b.lists(),
        state: &st,
        sight: None,
    };
    let mut d = ScriptedDice::new(dice).expect("dice");
    let ev = resolve(&ctx, &Action::EndPhase, &mut d).expect("end_phase resolves");
    let mut after = st.clone();
    apply_all(&mut after, &ev);
    (ev, after)
}

fn set(st: &mut BattleState, piece: PieceId, f: impl FnOnce(&mut powderhorn::rules::PieceState)) {
    f(st.pieces.get_mut(&piece).expect("the piece exists"));
}

fn turn_began(game_turn: u32, player_turn: u32, active: usize) -> Event {
    Event::TurnBegan {
        game_turn,
        player_turn,
        active,
    }
}

fn initiative() -> Event {
    Event::PhaseBegan {
        phase: Phase::Initiative,
    }
}

fn end_ended() -> Event {
    Event::PhaseEnded { phase: Phase::End }
}

fn break_dice(
    piece: Option<PieceId>,
    side_name: &str,
    dice: Vec<u8>,
    beyond: i32,
    bp: u32,
) -> Event {
    let modifiers = if beyond > 0 {
        vec![Modifier {
            rule: "BRK-02".to_string(),
            label: format!("{beyond} unit(s) lost beyond the breakpoint of {bp}"),
            value: -beyond,
        }]
    } else {
        vec![]
    };
    Event::DiceRolled {
        piece,
        purpose: format!("breakpoint test of {side_name}"),
        rule: "BRK-02".to_string(),
        dice,
        modifiers,
    }
}

fn break_test(
    side: usize,
    commander: Option<PieceId>,
    cv: u8,
    target: i32,
    total: u8,
    passed: bool,
) -> Event {
    Event::BreakTest {
        side,
        commander,
        command_value: cv,
        target,
        total,
        passed,
    }
}

fn result_of(events: &[Event]) -> BattleResult {
    events
        .iter()
        .find_map(|e| match e {
            Event::BattleResult(r) => Some(r.clone()),
            _ => None,
        })
        .expect("a battle result")
}

/// One side's line of a verdict worked out by hand, with no VP-04 modifier (1.0: the VPs
/// modified are the VPs earned). `vp` is the final figure after the VP-02 cap.
#[allow(clippy::too_many_arguments)]
fn line(
    declared: ObjectiveLevel,
    counted: ObjectiveLevel,
    withdrew: bool,
    vp_earned: i64,
    vp: i64,
    capped: bool,
    objective_result: Outcome,
    upgraded: bool,
    result: Outcome,
) -> SideResult {
    SideResult {
        declared,
        objective: counted,
        withdrew,
        vp_earned,
        points_modifier: 1.0,
        vp_modified: vp_earned,
        vp,
        capped,
        objective_result,
        upgraded,
        result,
    }
}

/// The WE-13 Command: 13 line battalions (breakpoint 7) under an average Army HQ (CO, command
/// value 10) and three brigade HQs valued 6, 7 and 8. (The FAO of the example is a command
/// unit, so it changes nothing here; the lists have no FAO row.) The Austrians have three
/// battalions (breakpoint 2).
fn we_13_command() -> Sc {
    new_sc()
        .hqs(
            0,
            vec![
                hq_json(1, "Army HQ", "army", "average", 10, None),
                hq_json(2, "1st Brigade", "brigade", "uninspiring", 6, Some(1)),
                hq_json(3, "2nd Brigade", "brigade", "average", 7, Some(1)),
                hq_json(4, "3rd Brigade", "brigade", "exceptional", 8, Some(1)),
            ],
        )
        .units(0, 1, 5, "line-infantry-08-12", 5, 2)
        .units(0, 6, 4, "line-infantry-08-12", 5, 3)
        .units(0, 10, 4, "line-infantry-08-12", 5, 4)
        .units(1, 1, 3, "line-infantry-07-15", 5, 1)
}

// --- WE-13 -------------------------------------------------------------------------------------

#[test]
fn we_13_seven_lost_tests_at_ten_from_the_next_own_turn_and_eleven_breaks() {
    let mut b = we_13_command().battle(vec![5, 6], 0);
    assert_eq!(
        b.state().sides[0].breakpoint,
        7,
        "ceil(13 / 2), command units excluded"
    );
    for id in 1..=6 {
        remove(&mut b, u(0, id));
    }
    assert_eq!(b.state().sides[0].units_lost, 6);
    // Side 1's turn, then side 0's game turn 2 opens without a test: 6 < 7.
    assert_eq!(
        finish_player_turn(&mut b),
        vec![end_ended(), turn_began(1, 2, 1), initiative()]
    );
    assert_eq!(
        finish_player_turn(&mut b),
        vec![
            end_ended(),
            Event::GameTurnEnded { game_turn: 1 },
            turn_began(2, 3, 0),
            initiative()
        ],
        "6 units lost: no test"
    );
    remove(&mut b, u(0, 7));
    assert_eq!(b.state().sides[0].units_lost, 7);
    assert_eq!(
        finish_player_turn(&mut b),
        vec![end_ended(), turn_began(2, 4, 1), initiative()],
        "the opponent's turn opens without a test of side 0"
    );
    assert_eq!(
        b.log().entries.iter().map(|e| e.dice_used).sum::<usize>(),
        0
    );
    assert_eq!(
        finish_player_turn(&mut b),
        vec![
            end_ended(),
            Event::GameTurnEnded { game_turn: 2 },
            turn_began(3, 5, 0),
            break_dice(Some(hq(0, 1)), "French", vec![5, 6], 0, 7),
            break_test(0, Some(hq(0, 1)), 10, 10, 11, false),
            Event::Broke { side: 0 },
            // BRK-03: side 0 moved first, so the Austrians still play game turn 3.
            turn_began(3, 6, 1),
            initiative(),
        ]
    );
    assert!(b.state().sides[0].broken);
    let last = finish_player_turn(&mut b);
    assert_eq!(
        last[..3],
        [
            end_ended(),
            Event::GameTurnEnded { game_turn: 3 },
            Event::BattleEnded {
                reason: EndReason::Break,
                winner: Some(1)
            }
        ]
    );
    assert_eq!(last.len(), 4, "{last:?}");
    let r = result_of(&last);
    assert!(r.sides[0].withdrew);
    assert_eq!(
        r.sides[1].vp_earned,
        7 * 275,
        "seven French battalions of 5 × 55"
    );
    assert_eq!(b.state().turn.phase, Phase::Over);
}

#[test]
fn we_13_nine_lost_holds_on_eight_then_ten_lost_double_one_holds_and_double_six_breaks() {
    let mut b = we_13_command().battle(vec![5, 3, 1, 1, 6, 6], 0);
    for id in 1..=9 {
        remove(&mut b, u(0, id));
    }
    finish_player_turn(&mut b);
    assert_eq!(
        finish_player_turn(&mut b),
        vec![
            end_ended(),
            Event::GameTurnEnded { game_turn: 1 },
            turn_began(2, 3, 0),
            break_dice(Some(hq(0, 1)), "French", vec![5, 3], 2, 7),
            break_test(0, Some(hq(0, 1)), 10, 8, 8, true),
            initiative(),
        ],
        "10 − (9 − 7) = 8; [5, 3] = 8 holds"
    );
    remove(&mut b, u(0, 10));
    finish_player_turn(&mut b);
    assert_eq!(
        finish_player_turn(&mut b)[2..],
        [
            turn_began(3, 5, 0),
            break_dice(Some(hq(0, 1)), "French", vec![1, 1], 3, 7),
            break_test(0, Some(hq(0, 1)), 10, 7, 2, true),
            initiative(),
        ],
        "10 lost: 10 − 3 = 7; a double one holds"
    );
    finish_player_turn(&mut b);
    assert_eq!(
        finish_player_turn(&mut b)[2..],
        [
            turn_began(4, 7, 0),
            break_dice(Some(hq(0, 1)), "French", vec![6, 6], 3, 7),
            break_test(0, Some(hq(0, 1)), 10, 7, 12, false),
            Event::Broke { side: 0 },
            turn_began(4, 8, 1),
            initiative(),
        ],
        "a double six breaks, with no blunder table"
    );
}

#[test]
fn we_13_co_knocked_out_the_best_surviving_brigade_hq_tests_at_eight_minus_two() {
    let mut b = we_13_command().battle(vec![3, 3], 0);
    remove(&mut b, hq(0, 1));
    for id in 1..=9 {
        remove(&mut b, u(0, id));
    }
    assert_eq!(
        b.state().sides[0].units_lost,
        9,
        "the CO is not a unit lost"
    );
    finish_player_turn(&mut b);
    assert_eq!(
        finish_player_turn(&mut b)[2..],
        [
            turn_began(2, 3, 0),
            break_dice(Some(hq(0, 4)), "French", vec![3, 3], 2, 7),
            break_test(0, Some(hq(0, 4)), 8, 6, 6, true),
            initiative(),
        ]
    );
}

#[test]
fn we_13_first_player_breaks_in_game_turn_6_and_the_second_still_plays_it() {
    let mut b = we_13_command().turn_limit(10).battle(vec![6, 5], 0);
    for _ in 0..9 {
        finish_player_turn(&mut b);
    }
    assert_eq!(b.state().turn.player_turn, 10, "side 1's game-turn-5 turn");
    for id in 1..=7 {
        remove(&mut b, u(0, id));
    }
    assert_eq!(
        finish_player_turn(&mut b),
        vec![
            end_ended(),
            Event::GameTurnEnded { game_turn: 5 },
            turn_began(6, 11, 0),
            break_dice(Some(hq(0, 1)), "French", vec![6, 5], 0, 7),
            break_test(0, Some(hq(0, 1)), 10, 10, 11, false),
            Event::Broke { side: 0 },
            turn_began(6, 12, 1),
            initiative(),
        ]
    );
    let last = finish_player_turn(&mut b);
    assert_eq!(
        last[..3],
        [
            end_ended(),
            Event::GameTurnEnded { game_turn: 6 },
            Event::BattleEnded {
                reason: EndReason::Break,
                winner: Some(1)
            }
        ]
    );
}

#[test]
fn we_13_second_player_breaks_in_game_turn_6_and_the_game_ends_at_once() {
    let mut b = we_13_command().turn_limit(10).battle(vec![4, 4], 0);
    for _ in 0..10 {
        finish_player_turn(&mut b);
    }
    assert_eq!(b.state().turn.player_turn, 11, "side 0's game-turn-6 turn");
    remove(&mut b, u(1, 1));
    remove(&mut b, u(1, 2));
    let ev = finish_player_turn(&mut b);
    assert_eq!(
        ev[..7],
        [
            end_ended(),
            turn_began(6, 12, 1),
            break_dice(Some(hq(1, 1)), "Austrians", vec![4, 4], 0, 2),
            break_test(1, Some(hq(1, 1)), 7, 7, 8, false),
            Event::Broke { side: 1 },
            Event::GameTurnEnded { game_turn: 6 },
            Event::BattleEnded {
                reason: EndReason::Break,
                winner: Some(0)
            },
        ]
    );
    assert_eq!(ev.len(), 8);
    assert!(matches!(ev[7], Event::BattleResult(_)));
    assert_eq!(
        b.perform(Action::EndPhase).map(|_| ()),
        Err(ActionError::Rule(powderhorn::rules::RuleError::new(
            "END-03",
            "the battle is over"
        )))
    );
}

// --- BRK ---------------------------------------------------------------------------------------

#[test]
fn brk_01_breakpoint_is_half_the_non_command_units_rounded_up_counted_at_setup() {
    let b = we_13_command().deploying(vec![], 0);
    assert_eq!(b.state().sides[0].breakpoint, 7);
    assert_eq!(b.state().sides[1].breakpoint, 2, "ceil(3 / 2)");
}

#[test]
fn brk_01_command_units_knocked_out_are_not_units_lost() {
    let mut b = we_13_command().battle(vec![], 0);
    remove(&mut b, hq(0, 2));
    remove(&mut b, hq(0, 3));
    assert_eq!(b.state().sides[0].units_lost, 0);
    remove(&mut b, u(0, 1));
    assert_eq!(b.state().sides[0].units_lost, 1);
}

#[test]
fn brk_02_replaced_co_tests_at_its_reduced_value() {
    let mut sc = we_13_command();
    sc.v["sides"][0]["hqs"][0]["commander"]["replaced_once"] = json!(true);
    let mut b = sc.battle(vec![5, 5], 1);
    // Side 1 moves first; side 0 loses seven in side 1's turn and tests as its turn opens.
    for id in 1..=7 {
        remove(&mut b, u(0, id));
    }
    let ev = finish_player_turn(&mut b);
    assert_eq!(
        ev,
        vec![
            end_ended(),
            turn_began(1, 2, 0),
            break_dice(Some(hq(0, 1)), "French", vec![5, 5], 0, 7),
            break_test(0, Some(hq(0, 1)), 9, 9, 10, false),
            Event::Broke { side: 0 },
            Event::GameTurnEnded { game_turn: 1 },
            Event::BattleEnded {
                reason: EndReason::Break,
                winner: Some(1)
            },
            // OBJ-01: the French withdrew (none counts), the Austrians declared none: a draw.
            // VP-01: the Austrians earn 7 × 275 = 1,925, the French nothing; VP-02 leaves the
            // French 0 (not above 1,925); VP-03: 1,925 ≥ 2 × 0 lifts the Austrians to a Minor
            // Victory, the French mirror it.
            Event::BattleResult(BattleResult {
                sides: [
                    line(
                        ObjectiveLevel::None,
                        ObjectiveLevel::None,
                        true,
                        0,
                        0,
                        false,
                        Outcome::Draw,
                        false,
                        Outcome::MinorDefeat
                    ),
                    line(
                        ObjectiveLevel::None,
                        ObjectiveLevel::None,
                        false,
                        1925,
                        1925,
                        false,
                        Outcome::Draw,
                        true,
                        Outcome::MinorVictory
                    ),
                ],
                winner: Some(1),
                category: Outcome::MinorVictory,
            }),
        ]
    );
}

#[test]
fn brk_02_vp_02_a_withdrawal_capped_to_a_draw_names_no_winner_in_either_event() {
    // The French (2 battalions, breakpoint 1) play second; the Austrians (6, breakpoint 3) lose
    // two battalions and the French one in the Austrian turn. The French test as their turn
    // opens: command value 7, none beyond the breakpoint, [6, 5] = 11 > 7 fails, they break;
    // as the second player the game turn is complete and the battle ends at once (BRK-03).
    let mut b = new_sc()
        .units(0, 1, 2, "line-infantry-08-12", 5, 1)
        .units(1, 1, 6, "line-infantry-07-15", 5, 1)
        .battle(vec![6, 5], 1);
    assert_eq!(
        (b.state().sides[0].breakpoint, b.state().sides[1].breakpoint),
        (1, 3)
    );
    remove(&mut b, u(0, 1));
    remove(&mut b, u(1, 1));
    remove(&mut b, u(1, 2));
    let ev = finish_player_turn(&mut b);
    // OBJ-01: the French withdrew and count no objective, the Austrians declared none: a draw.
    // VP-01: the French earn 2 × 275 = 550, the Austrians 275. VP-02: the French withdrew, so
    // 550 is capped to 275. VP-03 after the cap: 275 is not ≥ 2 × 275 either way: no upgrade.
    // The Austrians are the only side left standing, yet nobody won: the draw decides both
    // events.
    assert_eq!(
        ev,
        vec![
            end_ended(),
            turn_began(1, 2, 0),
            break_dice(Some(hq(0, 1)), "French", vec![6, 5], 0, 1),
            break_test(0, Some(hq(0, 1)), 7, 7, 11, false),
            Event::Broke { side: 0 },
            Event::GameTurnEnded { game_turn: 1 },
            Event::BattleEnded {
                reason: EndReason::Break,
                winner: None
            },
            Event::BattleResult(BattleResult {
                sides: [
                    line(
                        ObjectiveLevel::None,
                        ObjectiveLevel::None,
                        true,
                        550,
                        275,
                        true,
                        Outcome::Draw,
                        false,
                        Outcome::Draw
                    ),
                    line(
                        ObjectiveLevel::None,
                        ObjectiveLevel::None,
                        false,
                        275,
                        275,
                        false,
                        Outcome::Draw,
                        false,
                        Outcome::Draw
                    ),
                ],
                winner: None,
                category: Outcome::Draw,
            }),
        ]
    );
}

#[test]
fn brk_02_double_one_holds_below_two_and_double_six_breaks_at_twelve() {
    let sc = new_sc()
        .hqs(
            0,
            vec![hq_json(1, "Brigade", "brigade", "average", 2, None)],
        )
        .units(0, 1, 3, "line-infantry-08-12", 5, 1)
        .hqs(
            1,
            vec![hq_json(1, "Brigade", "brigade", "average", 12, None)],
        )
        .units(1, 1, 2, "line-infantry-07-15", 5, 1);
    let mut b = sc.battle(vec![1, 1, 6, 6, 3, 3], 0);
    for id in 1..=3 {
        remove(&mut b, u(0, id));
    }
    remove(&mut b, u(1, 1));
    let ev = finish_player_turn(&mut b);
    assert_eq!(
        ev[1..],
        [
            turn_began(1, 2, 1),
            break_dice(Some(hq(1, 1)), "Austrians", vec![1, 1], 0, 1),
            break_test(1, Some(hq(1, 1)), 12, 12, 2, true),
            initiative(),
        ]
    );
    let ev = finish_player_turn(&mut b);
    assert_eq!(
        ev[2..5],
        [
            turn_began(2, 3, 0),
            break_dice(Some(hq(0, 1)), "French", vec![6, 6], 1, 2),
            break_test(0, Some(hq(0, 1)), 2, 1, 12, false),
        ]
    );
    // And the other way round: a double one holds against a target of 1.
    let mut b = sc.battle(vec![1, 1], 1);
    for id in 1..=3 {
        remove(&mut b, u(0, id));
    }
    let ev = finish_player_turn(&mut b);
    assert_eq!(
        ev[2..4],
        [
            break_dice(Some(hq(0, 1)), "French", vec![1, 1], 1, 2),
            break_test(0, Some(hq(0, 1)), 2, 1, 2, true),
        ]
    );
    let mut b = sc.battle(vec![6, 6], 0);
    remove(&mut b, u(1, 1));
    let ev = finish_player_turn(&mut b);
    assert_eq!(
        ev[3],
        break_test(1, Some(hq(1, 1)), 12, 12, 12, false),
        "a double six breaks even at twelve"
    );
}

#[test]
fn brk_02_no_command_unit_left_tests_at_zero() {
    let mut b = new_sc()
        .units(0, 1, 2, "line-infantry-08-12", 5, 1)
        .battle(vec![2, 1], 1);
    remove(&mut b, hq(0, 1));
    remove(&mut b, u(0, 1));
    let ev = finish_player_turn(&mut b);
    assert_eq!(
        ev[2..5],
        [
            break_dice(None, "French", vec![2, 1], 0, 1),
            break_test(0, None, 0, 0, 3, false),
            Event::Broke { side: 0 },
        ]
    );
}

#[test]
fn brk_03_the_breaking_first_players_turn_is_skipped_and_the_opponents_own_test_still_runs() {
    // Both sides at their breakpoints: side 0 (first) breaks; side 1 tests as its turn opens
    // and breaks too: the game turn is complete, nobody is left standing.
    let mut b = we_13_command().battle(vec![6, 6, 6, 6], 0);
    finish_player_turn(&mut b);
    for id in 1..=7 {
        remove(&mut b, u(0, id));
    }
    remove(&mut b, u(1, 1));
    remove(&mut b, u(1, 2));
    let ev = finish_player_turn(&mut b);
    assert_eq!(
        ev[..10],
        [
            end_ended(),
            Event::GameTurnEnded { game_turn: 1 },
            turn_began(2, 3, 0),
            break_dice(Some(hq(0, 1)), "French", vec![6, 6], 0, 7),
            break_test(0, Some(hq(0, 1)), 10, 10, 12, false),
            Event::Broke { side: 0 },
            turn_began(2, 4, 1),
            break_dice(Some(hq(1, 1)), "Austrians", vec![6, 6], 0, 2),
            break_test(1, Some(hq(1, 1)), 7, 7, 12, false),
            Event::Broke { side: 1 },
        ]
    );
    assert_eq!(
        ev[10..12],
        [
            Event::GameTurnEnded { game_turn: 2 },
            Event::BattleEnded {
                reason: EndReason::Break,
                winner: None
            },
        ]
    );
    let r = result_of(&ev);
    assert_eq!((r.winner, r.category), (None, Outcome::Draw));
}

#[test]
fn brk_03_objective_and_turn_limit_give_way_to_the_break_as_the_reason() {
    let mut b = we_13_command().turn_limit(2).battle(vec![6, 6], 0);
    for id in 1..=7 {
        remove(&mut b, u(0, id));
    }
    finish_player_turn(&mut b);
    finish_player_turn(&mut b);
    assert!(b.state().sides[0].broken);
    b.perform(Action::DeclareObjective {
        side: 1,
        level: ObjectiveLevel::Major,
    })
    .expect("declared");
    let ev = finish_player_turn(&mut b);
    assert_eq!(
        ev[2],
        Event::BattleEnded {
            reason: EndReason::Break,
            winner: Some(1)
        }
    );
    let r = result_of(&ev);
    assert_eq!(r.sides[1].objective, ObjectiveLevel::Major);
    assert_eq!(r.sides[0].objective, ObjectiveLevel::None);
    assert_eq!(r.category, Outcome::DecisiveVictoryWithPromotion);
}

// --- END-01 / GEN-11 / END-02 / SEQ-05 -------------------------------------------------------------

/// Side 0: u1 line (Hits 3, 5 stands), u2 grenadiers (elite: 3 + 1 Hits, 5 stands), u3 line with
/// an attached engineer stand (Hits 2), u4 line of 2 stands; side 1: u1 line (Hits 3).
fn end_phase_scenario() -> Sc {
    new_sc()
        .units(0, 1, 1, "line-infantry-08-12", 5, 1)
        .units(0, 2, 1, "grenadier", 5, 1)
        .unit_in_row(
            0,
            json!({"id": 3, "name": "Sappers' battalion", "troop_type": "line-infantry-08-12",
                   "stands": 4, "hq": 1, "engineer_attached": true}),
        )
        .units(0, 4, 1, "line-infantry-08-12", 2, 1)
        .units(1, 1, 1, "line-infantry-07-15", 5, 1)
}

#[test]
fn end_01_hits_become_stand_losses_on_both_sides_remainder_discarded_and_cleared() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    to_end_phase(&mut b);
    let (ev, after) = end_phase_on(
        &b,
        |st| {
            set(st, u(0, 1), |p| p.hits = 7);
            set(st, u(1, 1), |p| p.hits = 2);
        },
        vec![],
    );
    assert_eq!(
        ev,
        vec![
            Event::StandsLost {
                piece: u(0, 1),
                hits: 7,
                stands_lost: 2,
                stands_left: 3,
                engineer_lost: false
            },
            Event::HitsCleared {
                piece: u(0, 1),
                hits: 7
            },
            Event::HitsCleared {
                piece: u(1, 1),
                hits: 2
            },
            end_ended(),
            turn_began(1, 2, 1),
            initiative(),
        ]
    );
    assert_eq!(after.pieces[&u(0, 1)].stands, 3);
    assert_eq!(after.pieces[&u(0, 1)].hits, 0);
    assert_eq!(after.pieces[&u(1, 1)].stands, 5);
    assert_eq!(after.pieces[&u(1, 1)].hits, 0);
}

#[test]
fn end_01_elite_stands_take_one_more_hit_each() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    to_end_phase(&mut b);
    let (ev, _) = end_phase_on(&b, |st| set(st, u(0, 2), |p| p.hits = 11), vec![]);
    assert_eq!(
        ev[0],
        Event::StandsLost {
            piece: u(0, 2),
            hits: 11,
            stands_lost: 2,
            stands_left: 3,
            engineer_lost: false
        },
        "11 hits ÷ 4 per elite stand = 2, 3 discarded"
    );
}

#[test]
fn end_01_disorder_does_not_change_the_per_stand_divisor() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    to_end_phase(&mut b);
    let (ev, _) = end_phase_on(
        &b,
        |st| {
            set(st, u(0, 1), |p| {
                p.hits = 6;
                p.disordered_until = Some(2);
            })
        },
        vec![],
    );
    assert!(matches!(
        ev[0],
        Event::StandsLost {
            stands_lost: 2,
            stands_left: 3,
            ..
        }
    ));
}

#[test]
fn end_01_an_attached_engineer_stand_takes_hits_at_its_own_value_before_the_command_stand() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    to_end_phase(&mut b);
    // 11 hits: three ordinary stands (9), then the engineer stand (2); the command stand stays.
    let (ev, after) = end_phase_on(&b, |st| set(st, u(0, 3), |p| p.hits = 11), vec![]);
    assert_eq!(
        ev[..2],
        [
            Event::StandsLost {
                piece: u(0, 3),
                hits: 11,
                stands_lost: 3,
                stands_left: 1,
                engineer_lost: true
            },
            Event::HitsCleared {
                piece: u(0, 3),
                hits: 11
            },
        ]
    );
    assert!(after.ledger.engineers_lost.contains(&u(0, 3)));
    // 10 hits: the engineer stand's 1 remaining hit is discarded; it survives.
    let (ev, _) = end_phase_on(&b, |st| set(st, u(0, 3), |p| p.hits = 10), vec![]);
    assert!(matches!(
        ev[0],
        Event::StandsLost {
            stands_lost: 3,
            stands_left: 1,
            engineer_lost: false,
            ..
        }
    ));
}

#[test]
fn gen_11_mixed_unit_hits_go_stand_by_stand_and_the_remainder_is_discarded() {
    assert_eq!(allocate_hits(7, 5, 3, None), (2, false));
    assert_eq!(allocate_hits(15, 5, 3, None), (5, false));
    assert_eq!(allocate_hits(99, 5, 3, None), (5, false));
    assert_eq!(allocate_hits(2, 5, 3, None), (0, false));
    assert_eq!(allocate_hits(11, 4, 3, Some(2)), (3, true));
    assert_eq!(allocate_hits(14, 4, 3, Some(2)), (4, true));
    assert_eq!(allocate_hits(8, 4, 3, Some(2)), (2, false));
    assert_eq!(
        allocate_hits(6, 1, 6, None),
        (1, false),
        "a command unit's own Hits"
    );
}

#[test]
fn end_01_a_unit_left_without_stands_is_knocked_out_and_counts_as_lost() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    to_end_phase(&mut b);
    let (ev, after) = end_phase_on(&b, |st| set(st, u(0, 4), |p| p.hits = 6), vec![]);
    assert_eq!(
        ev[..3],
        [
            Event::StandsLost {
                piece: u(0, 4),
                hits: 6,
                stands_lost: 2,
                stands_left: 0,
                engineer_lost: false
            },
            Event::HitsCleared {
                piece: u(0, 4),
                hits: 6
            },
            Event::UnitKnockedOut {
                piece: u(0, 4),
                cause: KnockOutCause::StandsLost
            },
        ]
    );
    assert!(after.pieces[&u(0, 4)].knocked_out);
    assert_eq!(after.sides[0].units_lost, 1);
    assert_eq!(
        after.ledger.sides[0].losses,
        vec![Loss::Piece {
            piece: u(0, 4),
            cause: KnockOutCause::StandsLost
        }]
    );
}

#[test]
fn end_01_a_command_unit_whose_hits_reach_its_own_hits_is_knocked_out_but_not_lost_for_brk() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    to_end_phase(&mut b);
    let (ev, after) = end_phase_on(&b, |st| set(st, hq(1, 1), |p| p.hits = 6), vec![]);
    assert_eq!(
        ev[..3],
        [
            Event::StandsLost {
                piece: hq(1, 1),
                hits: 6,
                stands_lost: 1,
                stands_left: 0,
                engineer_lost: false
            },
            Event::HitsCleared {
                piece: hq(1, 1),
                hits: 6
            },
            Event::UnitKnockedOut {
                piece: hq(1, 1),
                cause: KnockOutCause::StandsLost
            },
        ]
    );
    assert_eq!(after.sides[1].units_lost, 0);
}

#[test]
fn end_02_only_the_active_sides_markers_from_earlier_player_turns_are_removed() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    finish_player_turn(&mut b);
    finish_player_turn(&mut b);
    to_end_phase(&mut b);
    assert_eq!(b.state().turn.player_turn, 3);
    let (ev, after) = end_phase_on(
        &b,
        |st| {
            set(st, u(0, 1), |p| p.suppressed_at = Some(1));
            set(st, u(0, 2), |p| p.suppressed_at = Some(2));
            set(st, u(0, 3), |p| p.suppressed_at = Some(3));
            set(st, u(1, 1), |p| p.suppressed_at = Some(2));
        },
        vec![],
    );
    assert_eq!(
        ev,
        vec![
            Event::SuppressionRemoved { piece: u(0, 1) },
            Event::SuppressionRemoved { piece: u(0, 2) },
            end_ended(),
            turn_began(2, 4, 1),
            initiative(),
        ]
    );
    assert_eq!(
        after.pieces[&u(0, 3)].suppressed_at,
        Some(3),
        "placed this turn"
    );
    assert_eq!(
        after.pieces[&u(1, 1)].suppressed_at,
        Some(2),
        "not the active side"
    );
}

#[test]
fn seq_05_disorder_and_exhaustion_expire_at_the_end_of_the_initiative_phase() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    finish_player_turn(&mut b);
    assert_eq!(b.state().turn.phase, Phase::Initiative);
    let (ev, after) = end_phase_on(
        &b,
        |st| {
            set(st, u(0, 1), |p| {
                p.disordered_until = Some(2);
                p.formation = Some(powderhorn::rules::Formation::Disordered);
            });
            set(st, u(0, 2), |p| p.disordered_until = Some(4));
        },
        vec![],
    );
    assert_eq!(
        ev,
        vec![
            Event::DisorderEnded { piece: u(0, 1) },
            Event::PhaseEnded {
                phase: Phase::Initiative
            },
            Event::PhaseBegan {
                phase: Phase::Command
            },
        ]
    );
    assert_eq!(after.pieces[&u(0, 1)].disordered_until, None);
    assert_eq!(
        after.pieces[&u(0, 1)].formation,
        Some(powderhorn::rules::Formation::Disordered),
        "MOVE-19: the formation stays until it deploys"
    );
    assert_eq!(after.pieces[&u(0, 2)].disordered_until, Some(4));
}

#[test]
fn end_01_stands_lost_at_the_end_phase_count_for_the_opponents_break_test_at_once() {
    // Side 1 at its breakpoint only through the End phase of side 0's turn: it tests as its
    // own turn opens in the same action.
    let sc = end_phase_scenario().units(1, 2, 1, "line-infantry-07-15", 1, 1);
    let mut b = sc.battle(vec![], 0);
    to_end_phase(&mut b);
    let (ev, after) = end_phase_on(&b, |st| set(st, u(1, 2), |p| p.hits = 3), vec![2, 2]);
    assert_eq!(
        ev[2..],
        [
            Event::UnitKnockedOut {
                piece: u(1, 2),
                cause: KnockOutCause::StandsLost
            },
            end_ended(),
            turn_began(1, 2, 1),
            break_dice(Some(hq(1, 1)), "Austrians", vec![2, 2], 0, 1),
            break_test(1, Some(hq(1, 1)), 7, 7, 4, true),
            initiative(),
        ]
    );
    assert_eq!(after.sides[1].units_lost, 1);
}

// --- END-03 ------------------------------------------------------------------------------------

#[test]
fn end_03_a_declared_major_objective_ends_the_battle_at_the_end_of_the_game_turn() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    let ev = b
        .perform(Action::DeclareObjective {
            side: 0,
            level: ObjectiveLevel::Major,
        })
        .expect("declared")
        .to_vec();
    assert_eq!(
        ev,
        vec![Event::ObjectiveDeclared {
            side: 0,
            level: ObjectiveLevel::Major
        }]
    );
    assert_eq!(
        finish_player_turn(&mut b),
        vec![end_ended(), turn_began(1, 2, 1), initiative()],
        "the game turn is not over yet"
    );
    let ev = finish_player_turn(&mut b);
    // OBJ-01: major against none is a Decisive Victory; no losses, no VPs, no upgrade. The
    // ended event names the result's winner.
    assert_eq!(
        ev,
        vec![
            end_ended(),
            Event::GameTurnEnded { game_turn: 1 },
            Event::BattleEnded {
                reason: EndReason::Objective,
                winner: Some(0)
            },
            Event::BattleResult(BattleResult {
                sides: [
                    line(
                        ObjectiveLevel::Major,
                        ObjectiveLevel::Major,
                        false,
                        0,
                        0,
                        false,
                        Outcome::DecisiveVictory,
                        false,
                        Outcome::DecisiveVictory
                    ),
                    line(
                        ObjectiveLevel::None,
                        ObjectiveLevel::None,
                        false,
                        0,
                        0,
                        false,
                        Outcome::DecisiveDefeat,
                        false,
                        Outcome::DecisiveDefeat
                    ),
                ],
                winner: Some(0),
                category: Outcome::DecisiveVictory,
            }),
        ]
    );
}

#[test]
fn end_03_a_minor_objective_does_not_end_the_battle_and_the_latest_declaration_stands() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    for level in [ObjectiveLevel::Major, ObjectiveLevel::Minor] {
        b.perform(Action::DeclareObjective { side: 1, level })
            .expect("declared");
    }
    finish_player_turn(&mut b);
    assert_eq!(
        finish_player_turn(&mut b),
        vec![
            end_ended(),
            Event::GameTurnEnded { game_turn: 1 },
            turn_began(2, 3, 0),
            initiative()
        ]
    );
    assert_eq!(b.state().ledger.sides[1].objective, ObjectiveLevel::Minor);
}

#[test]
fn end_03_the_turn_limit_ends_the_battle_with_its_result() {
    // The Austrians (breakpoint 1) test as their turn opens and hold on a double one.
    let mut b = end_phase_scenario().turn_limit(1).battle(vec![1, 1], 0);
    remove(&mut b, u(1, 1));
    finish_player_turn(&mut b);
    let ev = finish_player_turn(&mut b);
    assert_eq!(
        ev[..3],
        [
            end_ended(),
            Event::GameTurnEnded { game_turn: 1 },
            Event::BattleEnded {
                reason: EndReason::TurnLimit,
                winner: Some(0)
            },
        ]
    );
    let r = result_of(&ev);
    assert_eq!(r.sides[0].vp_earned, 275);
    assert_eq!(r.sides[0].objective_result, Outcome::Draw);
    assert!(r.sides[0].upgraded, "275 ≥ 2 × 0");
    assert_eq!((r.winner, r.category), (Some(0), Outcome::MinorVictory));
}

#[test]
fn end_03_concession_ends_the_battle_at_once_with_its_result() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    remove(&mut b, u(1, 1));
    let ev = b
        .perform(Action::Concede { side: 0 })
        .expect("conceded")
        .to_vec();
    // OBJ-01: the French conceded (none counts), the Austrians declared none: a draw. VP-01:
    // the French earn 275, the Austrians 0; VP-02 caps the French to 0; VP-03: 0 against 0
    // upgrades nobody. A draw, so the ended event names no winner either.
    assert_eq!(
        ev,
        vec![
            Event::Conceded { side: 0 },
            Event::BattleEnded {
                reason: EndReason::Concession,
                winner: None
            },
            Event::BattleResult(BattleResult {
                sides: [
                    line(
                        ObjectiveLevel::None,
                        ObjectiveLevel::None,
                        true,
                        275,
                        0,
                        true,
                        Outcome::Draw,
                        false,
                        Outcome::Draw
                    ),
                    line(
                        ObjectiveLevel::None,
                        ObjectiveLevel::None,
                        false,
                        0,
                        0,
                        false,
                        Outcome::Draw,
                        false,
                        Outcome::Draw
                    ),
                ],
                winner: None,
                category: Outcome::Draw,
            }),
        ]
    );
}

#[test]
fn end_03_referee_actions_are_refused_before_play_twice_or_after_the_battle() {
    let mut b = end_phase_scenario().deploying(vec![], 0);
    let before = b.state().clone();
    let refused = |r: Result<&[Event], ActionError>| match r {
        Err(ActionError::Rule(e)) => e.rule,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(
        refused(b.perform(Action::RemoveUnit {
            piece: u(0, 1),
            cause: KnockOutCause::Referee
        })),
        "SEQ-01"
    );
    assert_eq!(
        refused(b.perform(Action::DeclareObjective {
            side: 0,
            level: ObjectiveLevel::Minor
        })),
        "SEQ-01"
    );
    assert_eq!(b.state(), &before);
    b.perform(Action::EndPhase).expect("deployment ends");
    remove(&mut b, u(0, 1));
    assert_eq!(
        refused(b.perform(Action::RemoveUnit {
            piece: u(0, 1),
            cause: KnockOutCause::Referee
        })),
        "GEN-12"
    );
    assert_eq!(
        refused(b.perform(Action::DeclareObjective {
            side: 2,
            level: ObjectiveLevel::Minor
        })),
        "END-03"
    );
    assert_eq!(
        refused(b.perform(Action::DeclareObjective {
            side: 0,
            level: ObjectiveLevel::None
        })),
        "END-03",
        "already at none"
    );
    b.perform(Action::Concede { side: 1 }).expect("conceded");
    assert_eq!(
        refused(b.perform(Action::DeclareObjective {
            side: 0,
            level: ObjectiveLevel::Major
        })),
        "END-03"
    );
}

#[test]
fn end_03_referee_actions_read_from_battle_file_json() {
    let actions: Vec<Action> = serde_json::from_value(json!([
        {"action": "remove_unit", "piece": {"side": 1, "unit": 3}},
        {"action": "remove_unit", "piece": {"side": 0, "hq": 2}, "cause": "hits"},
        {"action": "remove_defense", "side": 0, "defense": 4, "cause": "demolished"},
        {"action": "declare_objective", "side": 1, "level": "major"}
    ]))
    .expect("the actions parse");
    assert_eq!(
        actions,
        vec![
            Action::RemoveUnit {
                piece: u(1, 3),
                cause: KnockOutCause::Referee
            },
            Action::RemoveUnit {
                piece: hq(0, 2),
                cause: KnockOutCause::Hits
            },
            Action::RemoveDefense {
                side: 0,
                defense: DefenseId(4),
                cause: DefenseLossCause::Demolished
            },
            Action::DeclareObjective {
                side: 1,
                level: ObjectiveLevel::Major
            },
        ]
    );
    // The result event survives a JSON round trip (battle logs and `battle replay --json`).
    let r = decide([
        SideInput {
            objective: ObjectiveLevel::Minor,
            withdrew: false,
            vp_earned: 300,
            points_modifier: 1.0,
        },
        SideInput {
            objective: ObjectiveLevel::None,
            withdrew: true,
            vp_earned: 500,
            points_modifier: 1.0,
        },
    ]);
    let e = Event::BattleResult(r);
    let text = serde_json::to_string(&e).expect("serializes");
    assert!(
        text.starts_with(r#"{"event":"battle_result","sides":["#),
        "{text}"
    );
    assert_eq!(serde_json::from_str::<Event>(&text).expect("parses"), e);
}

// --- OBJ ---------------------------------------------------------------------------------------

#[test]
fn obj_01_every_pairing_of_objectives_has_a_result() {
    use ObjectiveLevel as L;
    use Outcome::*;
    let table = [
        (L::None, L::None, Draw),
        (L::Minor, L::Minor, Draw),
        (L::Major, L::Major, Draw),
        (L::Minor, L::None, MinorVictory),
        (L::Major, L::Minor, MinorVictory),
        (L::Major, L::None, DecisiveVictory),
        (L::None, L::Minor, MinorDefeat),
        (L::Minor, L::Major, MinorDefeat),
        (L::None, L::Major, DecisiveDefeat),
    ];
    for (a, b, first) in table {
        assert_eq!(
            objective_results(a, b),
            [first, first.mirror()],
            "{a:?} v {b:?}"
        );
    }
}

#[test]
fn obj_01_a_side_that_broke_or_conceded_counts_as_reaching_no_objective() {
    let side = |objective, withdrew| SideInput {
        objective,
        withdrew,
        vp_earned: 0,
        points_modifier: 1.0,
    };
    let r = decide([
        side(ObjectiveLevel::Major, true),
        side(ObjectiveLevel::Minor, false),
    ]);
    assert_eq!(r.sides[0].declared, ObjectiveLevel::Major);
    assert_eq!(r.sides[0].objective, ObjectiveLevel::None);
    assert_eq!(r.sides[1].result, Outcome::MinorVictory);
}

#[test]
fn obj_02_the_ladder_is_ordered_and_results_mirror() {
    use Outcome::*;
    let ladder = [
        DecisiveDefeat,
        MinorDefeat,
        Draw,
        MinorVictory,
        DecisiveVictory,
        DecisiveVictoryWithPromotion,
    ];
    assert!(ladder.windows(2).all(|w| w[0] < w[1]));
    for w in ladder.windows(2) {
        assert_eq!(w[0].improved(), w[1]);
    }
    assert_eq!(
        DecisiveVictoryWithPromotion.improved(),
        DecisiveVictoryWithPromotion
    );
    assert_eq!(
        ladder.map(Outcome::mirror),
        [
            DecisiveVictory,
            MinorVictory,
            Draw,
            MinorDefeat,
            DecisiveDefeat,
            DecisiveDefeat
        ]
    );
}

// --- VP / DEF-06 -------------------------------------------------------------------------------

fn input(objective: ObjectiveLevel, withdrew: bool, vp_earned: i64) -> SideInput {
    SideInput {
        objective,
        withdrew,
        vp_earned,
        points_modifier: 1.0,
    }
}

#[test]
fn vp_01_a_knocked_out_unit_is_worth_its_full_cost_command_units_included() {
    let mut b = end_phase_scenario().battle(vec![], 0);
    to_end_phase(&mut b);
    // u1 loses 3 of its 5 stands at the End phase; its later knock-out still gives 5 × 55.
    let (_, mut st) = end_phase_on(&b, |st| set(st, u(0, 1), |p| p.hits = 9), vec![]);
    assert_eq!(st.pieces[&u(0, 1)].stands, 2);
    for piece in [u(0, 1), u(0, 3), hq(0, 1)] {
        let ctx = Ctx {
            scenario: b.scenario(),
            lists: b.lists(),
            state: &st,
            sight: None,
        };
        let mut d = ScriptedDice::new(vec![]).expect("dice");
        let ev = resolve(
            &ctx,
            &Action::RemoveUnit {
                piece,
                cause: KnockOutCause::Referee,
            },
            &mut d,
        )
        .expect("removed");
        apply_all(&mut st, &ev);
    }
    let ctx = Ctx {
        scenario: b.scenario(),
        lists: b.lists(),
        state: &st,
        sight: None,
    };
    let worth: Vec<i64> = st.ledger.sides[0]
        .losses
        .iter()
        .map(|l| loss_points(&ctx, 0, l))
        .collect();
    assert_eq!(
        worth,
        vec![275, 4 * 55 + 125, 55],
        "engineer stand at its row's 125"
    );
    let r = battle_result(&ctx, &VictoryParams::default());
    assert_eq!(
        (r.sides[1].vp_earned, r.sides[0].vp_earned),
        (275 + 345 + 55, 0)
    );
    assert_eq!(st.sides[0].units_lost, 2, "the HQ is not a unit lost");
}

#[test]
fn vp_02_a_side_that_withdrew_is_capped_at_the_opponents_vps() {
    let r = decide([
        input(ObjectiveLevel::None, true, 1000),
        input(ObjectiveLevel::None, false, 800),
    ]);
    assert_eq!((r.sides[0].vp, r.sides[0].capped), (800, true));
    assert_eq!((r.sides[1].vp, r.sides[1].capped), (800, false));
    let r = decide([
        input(ObjectiveLevel::None, true, 300),
        input(ObjectiveLevel::None, false, 800),
    ]);
    assert_eq!(
        (r.sides[0].vp, r.sides[0].capped),
        (300, false),
        "below the cap"
    );
}

#[test]
fn vp_03_twice_the_vps_improves_the_result_by_one_step_after_the_cap() {
    use ObjectiveLevel as L;
    // Draw → Minor Victory at exactly 2×.
    let r = decide([input(L::None, false, 400), input(L::None, false, 200)]);
    assert_eq!(
        (r.sides[0].result, r.sides[1].result),
        (Outcome::MinorVictory, Outcome::MinorDefeat)
    );
    assert!(r.sides[0].upgraded && !r.sides[1].upgraded);
    // Just under 2×: nothing.
    let r = decide([input(L::None, false, 399), input(L::None, false, 200)]);
    assert_eq!(r.category, Outcome::Draw);
    // Decisive → with promotion.
    let r = decide([input(L::Major, false, 500), input(L::None, false, 100)]);
    assert_eq!(
        (r.winner, r.category),
        (Some(0), Outcome::DecisiveVictoryWithPromotion)
    );
    assert_eq!(r.sides[1].result, Outcome::DecisiveDefeat);
    // It lifts a defeat: Decisive Defeat → Minor Defeat, the winner mirrors to Minor Victory.
    let r = decide([input(L::None, false, 600), input(L::Major, false, 300)]);
    assert_eq!(
        (r.sides[0].result, r.sides[1].result),
        (Outcome::MinorDefeat, Outcome::MinorVictory)
    );
    // Minor Defeat → Draw.
    let r = decide([input(L::None, false, 600), input(L::Minor, false, 300)]);
    assert_eq!((r.winner, r.category), (None, Outcome::Draw));
    // 0 against 0 upgrades nobody; anything against 0 does.
    let r = decide([input(L::None, false, 0), input(L::None, false, 0)]);
    assert!(!r.sides[0].upgraded && !r.sides[1].upgraded);
    let r = decide([input(L::None, false, 0), input(L::None, false, 5)]);
    assert!(r.sides[1].upgraded);
    // After the cap: the withdrawn side earned 2× but is capped to equal.
    let r = decide([input(L::None, true, 900), input(L::None, false, 400)]);
    assert_eq!(r.sides[0].vp, 400);
    assert!(!r.sides[0].upgraded);
}

#[test]
fn vp_04_the_random_points_modifier_scales_earned_vps_before_the_cap_and_upgrade() {
    use ObjectiveLevel as L;
    let mut a = input(L::None, false, 400);
    a.points_modifier = 1.5;
    let r = decide([a, input(L::None, false, 300)]);
    assert_eq!((r.sides[0].vp_modified, r.sides[0].vp), (600, 600));
    assert!(r.sides[0].upgraded, "600 ≥ 2 × 300 only after the modifier");
    let mut b = input(L::None, true, 300);
    b.points_modifier = 3.0;
    let r = decide([input(L::None, false, 400), b]);
    assert_eq!(
        (r.sides[1].vp_modified, r.sides[1].vp, r.sides[1].capped),
        (900, 400, true)
    );
    // The default is 1 (no effect); nonsense is ignored.
    assert_eq!(VictoryParams::default().points_modifier, [1.0, 1.0]);
    let mut c = input(L::None, false, 400);
    c.points_modifier = f64::NAN;
    assert_eq!(decide([c, input(L::None, false, 0)]).sides[0].vp, 400);
    // Through the state: the parameter reaches `battle_result`.
    let mut bt = end_phase_scenario().battle(vec![], 0);
    remove(&mut bt, u(1, 1));
    let params = VictoryParams {
        points_modifier: [0.5, 1.0],
    };
    let r = battle_result(&bt.ctx(), &params);
    assert_eq!((r.sides[0].vp_earned, r.sides[0].vp_modified), (275, 138));
}

fn trench_scenario() -> Sc {
    new_sc()
        .defender(0)
        .posture("fixed")
        .units(0, 1, 2, "line-infantry-08-12", 5, 1)
        .defense_json(0, works(7, "trench", Some(1)))
        .defense_json(0, works(8, "breast_works", None))
        .units(1, 1, 1, "line-infantry-07-15", 5, 1)
}

#[test]
fn def_06_a_trench_falls_with_the_occupant_knocked_out_in_it() {
    let mut b = trench_scenario().battle(vec![], 0);
    let ev = b
        .perform(Action::RemoveUnit {
            piece: u(0, 1),
            cause: KnockOutCause::Rout { distance_cm: 12 },
        })
        .expect("removed")
        .to_vec();
    assert_eq!(
        ev,
        vec![
            Event::UnitKnockedOut {
                piece: u(0, 1),
                cause: KnockOutCause::Rout { distance_cm: 12 }
            },
            Event::DefenseKnockedOut {
                side: 0,
                defense: DefenseId(7),
                cause: DefenseLossCause::OccupantKnockedOut
            },
        ]
    );
    let r = battle_result(&b.ctx(), &VictoryParams::default());
    assert_eq!(r.sides[1].vp_earned, 275 + 5);
}

#[test]
fn def_06_an_occupant_that_left_its_trench_takes_nothing_with_it() {
    let b = trench_scenario().battle(vec![], 0);
    let mut st = b.state().clone();
    set(&mut st, u(0, 1), |p| {
        if let Some(pose) = p.pose.as_mut() {
            pose.at.y += 5.0;
        }
    });
    let ctx = Ctx {
        scenario: b.scenario(),
        lists: b.lists(),
        state: &st,
        sight: None,
    };
    let ev = powderhorn::rules::victory::knock_out(&ctx, u(0, 1), KnockOutCause::Hits)
        .expect("knocked out");
    assert_eq!(
        ev,
        vec![Event::UnitKnockedOut {
            piece: u(0, 1),
            cause: KnockOutCause::Hits
        }]
    );
}

#[test]
fn def_06_a_demolished_work_gives_its_cost_once() {
    let mut b = trench_scenario().battle(vec![], 0);
    let remove_works = Action::RemoveDefense {
        side: 0,
        defense: DefenseId(8),
        cause: DefenseLossCause::Demolished,
    };
    assert_eq!(
        b.perform(remove_works.clone()).expect("removed"),
        [Event::DefenseKnockedOut {
            side: 0,
            defense: DefenseId(8),
            cause: DefenseLossCause::Demolished
        }]
    );
    assert!(matches!(
        b.perform(remove_works),
        Err(ActionError::Rule(e)) if e.rule == "DEF-06"
    ));
    assert!(matches!(
        b.perform(Action::RemoveDefense {
            side: 1,
            defense: DefenseId(8),
            cause: DefenseLossCause::Referee
        }),
        Err(ActionError::Rule(e)) if e.rule == "DEF-06"
    ));
    let r = battle_result(&b.ctx(), &VictoryParams::default());
    assert_eq!((r.sides[1].vp_earned, r.sides[0].vp_earned), (25, 0));
}

// --- WE-14 -------------------------------------------------------------------------------------

#[test]
fn we_14_vps_objectives_and_the_double_vp_upgrade() {
    let sc = new_sc()
        .defender(0)
        .posture("hasty")
        .units(0, 1, 2, "line-infantry-08-12", 5, 1)
        .units(0, 3, 1, "heavy-cavalry-05-06-13-15", 4, 1)
        .units(0, 4, 1, "field-artillery", 1, 1)
        .units(0, 5, 2, "line-infantry-08-12", 5, 1)
        .defense_json(0, works(1, "breast_works", None))
        .defense_json(0, works(2, "breast_works", None))
        .units(1, 1, 1, "line-infantry-07-15", 5, 1)
        .units(1, 2, 1, "freikorps-landwehr-cav", 4, 1)
        .units(1, 3, 2, "line-infantry-07-15", 5, 1);
    let mut b = sc.battle(vec![], 0);
    for piece in [
        u(0, 1),
        u(0, 2),
        u(0, 3),
        u(0, 4),
        hq(0, 1),
        u(1, 1),
        u(1, 2),
    ] {
        remove(&mut b, piece);
    }
    for defense in [1, 2] {
        b.perform(Action::RemoveDefense {
            side: 0,
            defense: DefenseId(defense),
            cause: DefenseLossCause::Demolished,
        })
        .expect("demolished");
    }
    b.perform(Action::DeclareObjective {
        side: 1,
        level: ObjectiveLevel::Major,
    })
    .expect("declared");
    b.perform(Action::DeclareObjective {
        side: 0,
        level: ObjectiveLevel::Minor,
    })
    .expect("declared");
    let ctx = b.ctx();
    let french: Vec<i64> = b.state().ledger.sides[0]
        .losses
        .iter()
        .map(|l| loss_points(&ctx, 0, l))
        .collect();
    assert_eq!(french, vec![275, 275, 240, 75, 55, 25, 25]);
    let austrian: Vec<i64> = b.state().ledger.sides[1]
        .losses
        .iter()
        .map(|l| loss_points(&ctx, 1, l))
        .collect();
    assert_eq!(austrian, vec![275, 120]);
    let r = battle_result(&ctx, &VictoryParams::default());
    assert_eq!((r.sides[1].vp, r.sides[0].vp), (970, 395));
    assert_eq!(r.sides[1].objective_result, Outcome::MinorVictory);
    assert!(r.sides[1].upgraded, "970 ≥ 2 × 395 = 790");
    assert_eq!((r.winner, r.category), (Some(1), Outcome::DecisiveVictory));
    assert_eq!(r.sides[0].result, Outcome::DecisiveDefeat);

    // Cap variant: the French broke having earned 1,000 against 800.
    let r = decide([
        input(ObjectiveLevel::Minor, true, 1000),
        input(ObjectiveLevel::Major, false, 800),
    ]);
    assert_eq!((r.sides[0].vp, r.sides[0].capped), (800, true));
    assert_eq!(r.sides[0].objective, ObjectiveLevel::None);
    assert!(
        !r.sides[0].upgraded && !r.sides[1].upgraded,
        "800 is not ≥ 1,600"
    );
    assert_eq!((r.winner, r.category), (Some(1), Outcome::DecisiveVictory));

    // Zero variant.
    let r = decide([
        input(ObjectiveLevel::None, false, 0),
        input(ObjectiveLevel::None, false, 0),
    ]);
    assert_eq!((r.winner, r.category), (None, Outcome::Draw));
    assert!(!r.sides[0].upgraded && !r.sides[1].upgraded);
}
