//! What happened. Events carry results (positions after a move, dice rolled, stands removed),
//! so replaying events never re-rolls or recomputes anything; `apply` is a pure fold over them.

use super::artillery::Ammunition;
use super::state::{Formation, Phase, PieceId, Pose};
use super::victory::{BattleResult, DefenseLossCause, ObjectiveLevel};
use crate::geom::Point;
use crate::model::DefenseId;
use serde::{Deserialize, Serialize};

/// One modifier applied to a roll or a value, for the auditable dice log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Modifier {
    pub rule: String,
    pub label: String,
    pub value: i32,
}

/// Why the battle ended (END-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    TurnLimit,
    Objective,
    Break,
    Concession,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    /// A player turn begins (SEQ-02).
    TurnBegan {
        game_turn: u32,
        player_turn: u32,
        active: usize,
    },
    PhaseBegan {
        phase: Phase,
    },
    PhaseEnded {
        phase: Phase,
    },
    /// Both player turns of a game turn are done (SEQ-05).
    GameTurnEnded {
        game_turn: u32,
    },
    /// Every die drawn, with what it was for and what modified it.
    DiceRolled {
        piece: Option<PieceId>,
        purpose: String,
        rule: String,
        dice: Vec<u8>,
        #[serde(default)]
        modifiers: Vec<Modifier>,
    },
    Moved {
        piece: PieceId,
        from: Pose,
        to: Pose,
        #[serde(default)]
        path: Vec<Point>,
        /// Allowance spent, in cm (after terrain and manoeuvre costs).
        cost_cm: f64,
    },
    FormationChanged {
        piece: PieceId,
        from: Option<Formation>,
        to: Option<Formation>,
    },
    Limbered {
        piece: PieceId,
    },
    Unlimbered {
        piece: PieceId,
        facing_deg: f64,
    },
    Conceded {
        side: usize,
    },
    BattleEnded {
        reason: EndReason,
        /// The winner of the verdict in the `BattleResult` that follows (OBJ-01, VP-02, VP-03);
        /// `None` for a draw. A side left standing after a break or a concession wins only if
        /// the verdict says so.
        winner: Option<usize>,
    },
    /// END-01 (GEN-11): a piece's hits of the player turn destroyed whole stands. `stands_lost`
    /// counts the unit's own stands; an attached engineer stand lost is flagged (ENG-01).
    StandsLost {
        piece: PieceId,
        hits: u32,
        stands_lost: u8,
        stands_left: u8,
        #[serde(default)]
        engineer_lost: bool,
    },
    /// END-01 (GEN-11): the hit marker is cleared; any remainder is discarded.
    HitsCleared {
        piece: PieceId,
        hits: u32,
    },
    /// END-02: an old suppression marker of the active side is removed.
    SuppressionRemoved {
        piece: PieceId,
    },
    /// SEQ-05, FIRE-28, FIRE-29: disorder (and exhaustion) ran out at the end of an Initiative
    /// phase; the unit stays in disordered formation until it deploys (MOVE-19).
    DisorderEnded {
        piece: PieceId,
    },
    /// DEF-06: a field defence is knocked out; its cost is VPs to the opponent (VP-01).
    DefenseKnockedOut {
        side: usize,
        defense: DefenseId,
        cause: DefenseLossCause,
    },
    /// END-03 (1), OBJ-01: how far a side has got towards its objectives, as declared.
    ObjectiveDeclared {
        side: usize,
        level: ObjectiveLevel,
    },
    /// BRK-02: the breakpoint test (its dice are in the `DiceRolled` before it).
    BreakTest {
        side: usize,
        /// Whose command value was used (`None`: no command unit left).
        commander: Option<PieceId>,
        command_value: u8,
        /// The command value with the modifiers: the highest total that holds.
        target: i32,
        total: u8,
        passed: bool,
    },
    /// BRK-02: the Command breaks and withdraws from the battle (BRK-03 says when it ends).
    Broke {
        side: usize,
    },
    /// OPT-NATION-03: one allied army of a side broke (`head`: the HQ heading it, `None` the
    /// side's main army); its pieces are suppressed and leave at this player turn's End phase.
    AllyBroke {
        side: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        head: Option<crate::model::HqId>,
        player_turn: u32,
    },
    /// OPT-FIXED-03: a unit joined another fixed formation and was placed by its new HQ (the
    /// command roll is the `OrderRolled` before it).
    UnitTransferred {
        piece: PieceId,
        from_hq: crate::model::HqId,
        to_hq: crate::model::HqId,
        from: Pose,
        to: Pose,
    },
    /// OBJ-01, OBJ-02, VP-01..VP-04: the verdict, right after `BattleEnded`.
    BattleResult(BattleResult),
    /// A Fire action was declared (FIRE-01, FIRE-09): the firers have now fired this game
    /// (FIRE-13 memory, VIS-08 reveal).
    Fired {
        firers: Vec<PieceId>,
        target: PieceId,
        #[serde(default)]
        ammunition: Option<Ammunition>,
    },
    /// Raw hits of one attack, and the lowest score a die needed (GEN-16 step 4, FIRE-14).
    HitsScored {
        target: PieceId,
        hits: u32,
        needed: u8,
    },
    /// Hits cancelled by the save roll (FIRE-17).
    Saved {
        target: PieceId,
        saved: u32,
    },
    /// Hits taken after saves; `total` is the unit's hits this player turn afterwards (GEN-11).
    HitsTaken {
        piece: PieceId,
        hits: u32,
        total: u32,
    },
    /// A suppression marker placed in this player turn (FIRE-22, FIRE-26).
    Suppressed {
        piece: PieceId,
        player_turn: u32,
    },
    /// The fall-back roll (FIRE-24): `in_place` for dug-in troops and unlimbered guns, which do
    /// not move (FIRE-26).
    FallBackRequired {
        piece: PieceId,
        distance_cm: u32,
        #[serde(default)]
        away_from: Option<PieceId>,
        #[serde(default)]
        in_place: bool,
    },
    /// The fall-back move carried out (FIRE-24, FIRE-26): straight back, ending facing the firer.
    FellBack {
        piece: PieceId,
        from: Pose,
        to: Pose,
        distance_cm: f64,
    },
    /// A unit is out of the game, at once (GEN-12 ruling).
    UnitKnockedOut {
        piece: PieceId,
        cause: KnockOutCause,
    },
    /// Where a shell burst (ART-03, ART-08): `lost` when it fell in wet terrain or off the table.
    ShellLanded {
        firer: PieceId,
        aim: Point,
        at: Point,
        deviated: bool,
        lost: bool,
    },
    /// A rule made an attack or a test do nothing (ART-05 howitzer at cover, FIRE-25, FIRE-27).
    NoEffect {
        piece: PieceId,
        rule: String,
        reason: String,
    },
    /// CMD-03..CMD-06, CMD-17, CMD-18: the result of a command roll (its dice and modifiers are
    /// in the `DiceRolled` before it).
    OrderRolled(super::command::OrderRoll),
    /// INIT-01, CMD-04, CMD-15: a unit used its initiative action or one action of its order.
    UnitActed(super::command::UnitAct),
    /// CMD-18, CMD-19: the blunder table's result (the die is in the `DiceRolled` before it).
    Blunder {
        order: u32,
        command: PieceId,
        result: u8,
        name: String,
    },
    /// FIRE-30, FIRE-32: opportunity fire declared (the firers' next-turn penalties start).
    OpportunityFireDeclared {
        firers: Vec<PieceId>,
        target: PieceId,
        player_turn: u32,
        #[serde(default)]
        at: Option<Pose>,
    },
    /// FIRE-31: a mover stopped at a point of its move to be fired at.
    MoveInterrupted {
        piece: PieceId,
        from: Pose,
        at: Pose,
    },
    /// FIRE-31: the mover, not suppressed, finishes its move.
    MoveResumed {
        piece: PieceId,
        from: Pose,
        to: Pose,
    },
    /// CMD-07: an isolated unit's self-order (its 2D6 against 7 is in the `DiceRolled` before).
    SelfOrdered {
        piece: PieceId,
        player_turn: u32,
        success: bool,
    },
    /// CMD-20: a command unit moved in the Command phase's command movement (the `Moved` event
    /// follows); no more orders are issued this phase.
    CommandMoved {
        piece: PieceId,
    },
    /// CMD-25, CMD-26: an overrun command unit joined a friendly unit, placed in base contact.
    CommandJoined {
        piece: PieceId,
        unit: PieceId,
        from: Pose,
        to: Pose,
    },
    /// CMD-20 ruling, CMD-22, CMD-26: a command unit carried along by the unit it touches or
    /// joined (its move, fall-back or retreat).
    CommandCarried {
        piece: PieceId,
        unit: PieceId,
        from: Pose,
        to: Pose,
    },
    /// CMD-28: a knocked-out command unit placed back on the table, its value −1 for good.
    CommandReplaced {
        piece: PieceId,
        at: Pose,
        player_turn: u32,
    },
    /// A charge is declared (CHG-02, INIT-09 step 1): who charges which edge, from where, and
    /// where each is placed 2 cm short (the `Moved` events that follow carry the moves).
    ChargeDeclared {
        target: PieceId,
        phase: Phase,
        chargers: Vec<super::charge::ChargerPlan>,
    },
    /// A unit of the inactive side responded to the charge on `target` (INIT-12, INIT-15,
    /// INIT-10); the response's own events follow.
    ChargeResponded {
        piece: PieceId,
        target: PieceId,
        response: super::charge::Response,
    },
    /// The response window of the charge on `target` is closed (INIT-09 step 3 → 4).
    ResponseClosed {
        target: PieceId,
    },
    /// A charger is placed in base contact with `edge` of the target (INIT-09 step 4, CHG-10).
    ChargeContact {
        piece: PieceId,
        target: PieceId,
        edge: super::charge::Edge,
        to: Pose,
    },
    /// A charger did not get within 1 cm of its target; its charge ends (INIT-09 step 5).
    ChargeFailed {
        piece: PieceId,
        target: PieceId,
        reason: String,
    },
    /// A unit moved into support of `friend` in the combat of the charge on `target` (CHG-07/08).
    Supported {
        piece: PieceId,
        friend: PieceId,
        target: PieceId,
    },
    /// FIRE-28 (and FIRE-29 when `exhausted`): disordered until the end of the initiative phase
    /// of player turn `until`.
    Disordered {
        piece: PieceId,
        until: u32,
        exhausted: bool,
    },
    /// One round of a combat fought (CHG-13..CHG-19): each side's total hits so far, by side.
    CombatRound {
        target: PieceId,
        round: u32,
        attacker_total: u32,
        defender_total: u32,
    },
    /// How a combat ended (CHG-20..CHG-23); `winner` is a side, `None` when both sides were
    /// wiped out.
    CombatDecided {
        target: PieceId,
        outcome: super::charge::Outcome,
        winner: Option<usize>,
    },
    /// A retreat after a lost combat (CHG-25): half a move straight away, facing kept.
    Retreated {
        piece: PieceId,
        from: Pose,
        to: Pose,
        distance_cm: f64,
    },
    /// The charge on `target` is over; `consolidate` lists the units that may consolidate
    /// (CHG-24), in the order they move.
    ChargeEnded {
        target: PieceId,
        consolidate: Vec<PieceId>,
    },
    /// A consolidation move (CHG-24).
    Consolidated {
        piece: PieceId,
        from: Pose,
        to: Pose,
    },
    /// An evade (INIT-05, INIT-12, INIT-14) directly away from `away_from`; the `Moved` follows.
    Evaded {
        piece: PieceId,
        away_from: PieceId,
    },
    /// ENG-02: an engineer unit used its initiative action on a task.
    EngineerTaskTaken {
        piece: PieceId,
        task: super::engineering::EngineerTaskKind,
        player_turn: u32,
    },
    /// ENG-03..ENG-06: engineers changed the table (provisional until the end of the
    /// initiative phase, ENG-02).
    WorkDone {
        work: super::engineering::Work,
    },
    /// ENG-02: the work stands (its engineers were not suppressed by the end of the phase).
    WorkConfirmed {
        work: u32,
    },
    /// ENG-02: the engineers were suppressed before the end of the phase: no effect.
    WorkCancelled {
        work: u32,
        piece: PieceId,
    },
    /// ENG-04: hits on a pontoon section (permanent); `total` afterwards.
    BridgeHit {
        work: u32,
        hits: u32,
        total: u32,
    },
    /// ENG-04: a pontoon section with 4 hits is destroyed.
    BridgeDestroyed {
        work: u32,
    },
    /// OPT-CONSTR-03: hits on one 5 cm segment of a construction, after its saves
    /// (permanent); `total` on that segment afterwards. The dice are in the `DiceRolled`
    /// events before it.
    ConstructionHit {
        construction: super::construction::ConstructionId,
        segment: u32,
        hits: u32,
        total: u32,
    },
    /// OPT-CONSTR-03: a segment reached the construction's Hits: it collapses (the knock-outs,
    /// suppressions and any DEF-06 loss follow as their own events).
    ConstructionCollapsed {
        construction: super::construction::ConstructionId,
    },
    /// SKIR-03 (b), (d): a brigade's skirmisher screen absorbed hits before its formed unit;
    /// `total` absorbed so far, `stands_left` afterwards.
    ScreenHit {
        side: usize,
        hq: crate::model::HqId,
        hits: u32,
        total: u32,
        stands_left: u32,
    },
    /// SKIR-02, SKIR-03 (d): the screen is gone (contact, march column or square, or every
    /// stand used up).
    ScreenRemoved {
        side: usize,
        hq: crate::model::HqId,
        rule: String,
    },
    /// COL-02: cavalry dismounted (the horse holder leaves: one stand fewer) or mounted again;
    /// the unit now uses `troop_type`'s row.
    ModeChanged {
        piece: PieceId,
        troop_type: crate::model::TroopTypeId,
        arm: crate::model::Arm,
        stands: u8,
        mounted: bool,
    },
    /// FIRE-25: the suppression just placed came from this order (its next hits under the same
    /// order make no fall-back test).
    SuppressedByOrder {
        piece: PieceId,
        order: u32,
    },
    /// OPT-WEATHER-02 (starting roll) / OPT-WEATHER-04 (end-of-game-turn roll): the weather
    /// category is now `to`.
    WeatherChanged {
        from: crate::model::Weather,
        to: crate::model::Weather,
        cause: super::weather::WeatherCause,
    },
    /// MOVE-30: the unit's flank stands now stand swung back by these angles (0 = straight),
    /// at its present pose.
    FlankRefused {
        piece: PieceId,
        left_deg: f64,
        right_deg: f64,
    },
    /// OPT-PRONE-01: the unit now lies prone (`prone: true`) or stands (`false`); `rule` says
    /// why (OPT-PRONE-01 for its own Deploy action or for standing up when a charge contacts
    /// it).
    ProneChanged {
        piece: PieceId,
        prone: bool,
        rule: String,
    },
    /// OPT-PRONE-02: after saves, the attack's hits on a prone unit were cut by `by` (one per
    /// firing unit, never below 0).
    HitsReduced {
        piece: PieceId,
        by: u32,
        rule: String,
    },
    /// VIS-17: a dug-in unit gave its position away (moved, fired, or an enemy came within
    /// 5 cm); permanent for the rest of the game (ruling). Its dug-in effects stay (FIRE-26,
    /// CMD-19 result 4) until `DugInEnded`.
    Revealed {
        piece: PieceId,
        rule: String,
        cause: super::reveal::RevealCause,
    },
    /// VIS-17 ruling: the dug-in unit left its position; it is no longer dug in.
    DugInEnded {
        piece: PieceId,
        rule: String,
    },
    /// OPT-SCOUT-01: a single stand of `parent` (its row's stats) is placed at `at` as the
    /// scout `scout`, a piece of its own; the parent has one stand fewer for good
    /// (OPT-SCOUT-03 ruling).
    ScoutDeployed {
        scout: PieceId,
        parent: PieceId,
        name: String,
        at: Pose,
    },
    /// OPT-SCOUT-02 (a): the outcome of a scout's initial command roll (the roll itself is the
    /// `order_rolled` before it); launched, it moves freely from now on.
    ScoutLaunch {
        scout: PieceId,
        command: PieceId,
        launched: bool,
    },
    /// OPT-SCOUT-03: the scout was fired at or contacted and leaves the table at once; it is not
    /// lost (no breakpoint, no VPs). `by`: the enemy units that fired or charged.
    ScoutWithdrawn {
        scout: PieceId,
        by: Vec<PieceId>,
        cause: super::scouting::ThreatKind,
    },
    /// OPT-MULTI-02: one communication roll — the initiator's, or (`partner_roll`) the
    /// two-way partner's. The dice are in the `dice_rolled` before it.
    CommunicationRolled {
        command: PieceId,
        #[serde(default)]
        partner_roll: bool,
        /// The command unit is the CO (a failure ends the side's orders, ruling (a)).
        co: bool,
        player_turn: u32,
        value: u8,
        target: i32,
        total: u8,
        outcome: super::command::OrderOutcome,
    },
    /// OPT-MULTI-02: the players may speak: `command`'s player to `partner`'s (one-way when
    /// `partner` is none, or when `two_way` is false), for `seconds` (the duration dice's sum ×
    /// 5 one-way, × 10 two-way).
    Communicated {
        command: PieceId,
        #[serde(default)]
        partner: Option<PieceId>,
        two_way: bool,
        dice: Vec<u8>,
        seconds: u32,
    },
    /// A referee's adjustment (`Action::Adjust`, GEN-12): every adjustable value of the piece
    /// before and after, so the log shows what changed and `apply` copies `to` in.
    Adjusted {
        piece: PieceId,
        from: super::referee::Condition,
        to: super::referee::Condition,
    },
}

/// Why a unit was knocked out (GEN-12); each names its catalogue rule through [`KnockOutCause::rule`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KnockOutCause {
    /// Hits this turn reached the KO threshold (GEN-12, FIRE-20).
    Hits,
    /// A fall-back of more than 20 cm (FIRE-26; the morale grade's distance, OPT-MORALE-01).
    Rout { distance_cm: u32 },
    /// Dug in or an unlimbered gun rolling more than 10 cm (FIRE-26).
    RoutInPlace { distance_cm: u32 },
    /// Its allied army broke and left the battle at the end of that turn (OPT-NATION-03).
    AllyWithdrew,
    /// Fell back into enemies, impassable ground or off the table (FIRE-26, MOVE-07).
    FallBackBlocked { rule: String, reason: String },
    /// A Gatling rolled a double (ACW rule 12).
    GatlingJam,
    /// The End phase left the unit without stands (END-01).
    StandsLost,
    /// The referee removed it: a rule resolved on the table that the engine does not cover yet.
    Referee,
    /// An enemy moved through or into the command unit and no friend was near (CMD-25).
    Overrun,
    /// A charge rule knocked it out (CHG-22 double defeat, CHG-23, CHG-25 retreat blocked,
    /// INIT-14 caught evading).
    Charge { rule: String, reason: String },
}

impl KnockOutCause {
    pub fn rule(&self) -> &str {
        match self {
            KnockOutCause::Hits => "GEN-12",
            KnockOutCause::Rout { .. } | KnockOutCause::RoutInPlace { .. } => "FIRE-26",
            KnockOutCause::FallBackBlocked { rule, .. } => rule,
            KnockOutCause::GatlingJam => "ART-01",
            KnockOutCause::StandsLost => "END-01",
            KnockOutCause::Referee => "GEN-12",
            KnockOutCause::Overrun => "CMD-25",
            KnockOutCause::AllyWithdrew => "OPT-NATION-03",
            KnockOutCause::Charge { rule, .. } => rule,
        }
    }
}
