//! Campaigns: an ordered chain of battles and what carries from one into the next. The linking
//! logic (applying a result to the next scenario) lives in `crate::campaign`; this is the data,
//! as the campaign file holds it (`campaigns/*/campaign.json`, format in `docs/campaign.md`).
//!
//! Every field added since the first format has a serde default, so a campaign file written
//! before linked campaigns still reads: its sides are taken from its first scenario, each battle
//! maps its sides one to one, and the carry rules are [`CarryRules::default`].
//!
//! BPTC has no campaign rules. The carry rules here ([`CarryRules`]) and their defaults are
//! Powderhorn's own, not the rulebook's; [`CarryRules::describe`] says so in every summary.

use super::ids::{CampaignId, HqId, ScenarioId};
use super::scenario::Weather;
use serde::{Deserialize, Serialize};

/// Which mechanisms a campaign applies at all (each switch off turns its part of the carry off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarryOver {
    /// Stands lost stay lost; knocked-out units are gone or come back weak; recovery applies.
    pub losses: bool,
    /// Commanders killed, captured or wounded are replaced (CMD-28's −1 by default).
    pub commander_casualties: bool,
    /// Victory points accumulate across the campaign.
    pub victory_points: bool,
    /// Each battle's link decides its weather ([`WeatherLink`]); off: every scenario keeps its own.
    pub weather: bool,
}

impl Default for CarryOver {
    fn default() -> Self {
        CarryOver {
            losses: true,
            commander_casualties: true,
            victory_points: true,
            weather: true,
        }
    }
}

/// One side of a campaign, in the campaign's own order (not each scenario's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CampaignSide {
    /// A short stable slug, e.g. `french`.
    pub id: String,
    pub name: String,
}

/// Where a battle's weather comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WeatherLink {
    /// The weather the last battle ended with, then one change roll (OPT-WEATHER-04).
    Continue,
    /// A fresh starting roll (OPT-WEATHER-02).
    Afresh,
    /// The scenario's own (historical) weather.
    #[default]
    Historical,
}

impl WeatherLink {
    pub fn label(self) -> &'static str {
        match self {
            WeatherLink::Continue => "continues from the last battle",
            WeatherLink::Afresh => "rolled afresh",
            WeatherLink::Historical => "as the scenario has it",
        }
    }
}

/// How a battle follows the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BattleLink {
    /// Days between the end of the last battle and this one: 0 = the next day (one night, e.g.
    /// the second day of Aspern-Essling), 1 = a day later (two nights), and so on.
    #[serde(default)]
    pub days_after: u32,
    #[serde(default)]
    pub weather: WeatherLink,
    /// Fought on the same ground as the last battle: only then do field defences carry.
    #[serde(default)]
    pub same_ground: bool,
}

impl Default for BattleLink {
    fn default() -> Self {
        BattleLink {
            days_after: 0,
            weather: WeatherLink::Historical,
            same_ground: false,
        }
    }
}

impl BattleLink {
    /// Nights between the two battles (at least one).
    pub fn nights(&self) -> u32 {
        self.days_after.saturating_add(1)
    }
}

/// One battle of a campaign, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CampaignBattle {
    pub scenario: ScenarioId,
    /// Free text: where it sits in the campaign ("Day 1: Landshut").
    #[serde(default)]
    pub note: String,
    /// Weather override for this battle when carry-over of weather is off.
    #[serde(default)]
    pub weather: Option<Weather>,
    /// For each of the scenario's sides, the campaign side it is (`[1, 0]`: the scenario's first
    /// side is the campaign's second). Empty: one to one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sides: Vec<usize>,
    /// How it follows the battle before it (ignored for the first battle).
    #[serde(default)]
    pub link: BattleLink,
}

impl CampaignBattle {
    /// The campaign side of scenario side `scenario_side`.
    pub fn campaign_side(&self, scenario_side: usize) -> usize {
        self.sides
            .get(scenario_side)
            .copied()
            .unwrap_or(scenario_side)
    }

    /// The scenario side that is campaign side `campaign_side`, if the battle has one.
    pub fn scenario_side(&self, campaign_side: usize, scenario_sides: usize) -> Option<usize> {
        (0..scenario_sides).find(|s| self.campaign_side(*s) == campaign_side)
    }
}

/// A share as a whole percentage (33 = a third).
pub type Percent = u32;

/// Stragglers and lightly wounded coming back between battles: a share of the stands a unit
/// lost in the last battle, by its side's result there and the nights between the battles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveryRule {
    /// Share back after one night for the side that won the last battle.
    pub winner: Percent,
    /// … for the side that lost it.
    pub loser: Percent,
    /// … for both sides after a draw.
    pub draw: Percent,
    /// Added for each further day between the battles.
    pub per_extra_day: Percent,
    /// The most that ever comes back, however long the pause.
    pub cap: Percent,
}

impl Default for RecoveryRule {
    fn default() -> Self {
        RecoveryRule {
            winner: 33,
            loser: 25,
            draw: 25,
            per_extra_day: 5,
            cap: 50,
        }
    }
}

impl RecoveryRule {
    /// The share back for a side with this result, after `nights` nights (0 nights: none).
    pub fn share(&self, won: Option<bool>, nights: u32) -> Percent {
        if nights == 0 {
            return 0;
        }
        let first = match won {
            Some(true) => self.winner,
            Some(false) => self.loser,
            None => self.draw,
        };
        first
            .saturating_add(self.per_extra_day.saturating_mul(nights - 1))
            .min(self.cap)
    }
}

/// What becomes of a unit knocked out in battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnockedOutRule {
    /// A knocked-out unit of a side that kept the field (won or drew) comes back; a loser's is
    /// gone for the rest of the campaign.
    pub back_if_field_kept: bool,
    /// It comes back with this share of its full stands (at least one stand).
    pub back_at: Percent,
}

impl Default for KnockedOutRule {
    fn default() -> Self {
        KnockedOutRule {
            back_if_field_kept: true,
            back_at: 33,
        }
    }
}

/// A named officer to take over a command unit when its commander falls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedReplacement {
    /// The campaign side.
    pub side: usize,
    pub hq: HqId,
    pub name: String,
    /// His command value; `None`: the fallen commander's, less the penalty.
    #[serde(default)]
    pub command_value: Option<u8>,
}

/// What becomes of commanders whose command unit was knocked out in battle (CMD-28 in the
/// battle; the campaign decides the person's fate with one die).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommanderRule {
    /// A d6 at or below this: killed.
    pub killed_up_to: u8,
    /// Above `killed_up_to`, at or below this: captured. Above: wounded.
    pub captured_up_to: u8,
    /// A wounded commander returns after this many battles missed.
    pub wounded_out_for: u32,
    /// The replacement's command value is the fallen commander's less this (CMD-28: 1).
    pub replacement_penalty: u8,
    /// Officers named to take over; a command unit without one is taken over by the senior
    /// officer of its own staff.
    #[serde(default)]
    pub replacements: Vec<NamedReplacement>,
}

impl Default for CommanderRule {
    fn default() -> Self {
        CommanderRule {
            killed_up_to: 2,
            captured_up_to: 3,
            wounded_out_for: 1,
            replacement_penalty: 1,
            replacements: Vec::new(),
        }
    }
}

/// The campaign's carry rules: editable data. The defaults are Powderhorn's own (BPTC has no
/// campaign rules).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CarryRules {
    #[serde(default)]
    pub recovery: RecoveryRule,
    #[serde(default)]
    pub knocked_out: KnockedOutRule,
    #[serde(default)]
    pub commanders: CommanderRule,
}

impl CarryRules {
    /// The rules in plain words, one sentence a line, for the campaign page and `campaign show`.
    pub fn describe(&self) -> Vec<String> {
        let r = &self.recovery;
        let k = &self.knocked_out;
        let c = &self.commanders;
        let mut out = vec![
            "These carry rules are Powderhorn's own: Black Powder Tactical Commander has no campaign rules, so a club may change any of them.".to_string(),
            "Stands lost in a battle stay lost; suppression, disorder and hits never carry into the next battle.".to_string(),
            format!(
                "After one night a unit gets back {}% of the stands it lost in the last battle if its side won, {}% if it lost, {}% after a draw (rounded to the nearest stand); each further day adds {}%, up to {}%.",
                r.winner, r.loser, r.draw, r.per_extra_day, r.cap
            ),
        ];
        out.push(if k.back_if_field_kept {
            format!(
                "A knocked-out unit of a side that kept the field (won or drew) comes back with {}% of its full stands (at least one); a beaten side's knocked-out units are gone.",
                k.back_at
            )
        } else {
            "Knocked-out units are gone for the rest of the campaign.".to_string()
        });
        let span = |a: u8, b: u8| {
            if a >= b {
                format!("{b}")
            } else {
                format!("{a}–{b}")
            }
        };
        let mut fates = Vec::new();
        if c.killed_up_to >= 1 {
            fates.push(format!("{} killed", span(1, c.killed_up_to.min(6))));
        }
        if c.captured_up_to > c.killed_up_to && c.killed_up_to < 6 {
            fates.push(format!(
                "{} captured",
                span(c.killed_up_to + 1, c.captured_up_to.min(6))
            ));
        }
        let wounded_from = c.killed_up_to.max(c.captured_up_to).saturating_add(1);
        if wounded_from <= 6 {
            fates.push(format!(
                "{} wounded (out for {} battle{})",
                span(wounded_from, 6),
                c.wounded_out_for,
                if c.wounded_out_for == 1 { "" } else { "s" }
            ));
        }
        out.push(format!(
            "A commander whose command unit was knocked out rolls a die for his fate: {}.",
            fates.join(", ")
        ));
        out.push(format!(
            "His place is taken by a named replacement, or else by the senior officer of his staff, with a command value {} lower (CMD-28).",
            c.replacement_penalty
        ));
        out.push("Field defences carry only into a battle on the same ground; there, those knocked out stay knocked out.".to_string());
        out
    }
}

/// Who wins the campaign, as data.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum VictoryCondition {
    /// The most victory points over all battles (VP-01, VP-02).
    #[default]
    MostVps,
    /// Battles won count one point each, decisive victories two (OBJ-02); ties go to VPs.
    DecisiveDouble,
    /// Whoever holds the objective at the end: the winner of the last battle, or after a draw
    /// the side that held it before.
    ObjectiveHeldAtEnd {
        /// What is held, in words ("Vienna").
        objective: String,
        /// The campaign side holding it when the campaign opens.
        holder: usize,
    },
}

impl VictoryCondition {
    /// The condition in words.
    pub fn describe(&self) -> String {
        match self {
            VictoryCondition::MostVps => {
                "the side with the most victory points over all battles wins".to_string()
            }
            VictoryCondition::DecisiveDouble => "the side with the most battles won wins, a decisive victory counting twice; a tie goes to victory points".to_string(),
            VictoryCondition::ObjectiveHeldAtEnd { objective, .. } => format!(
                "the side holding {objective} at the end wins: the winner of the last decided battle takes it"
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Campaign {
    pub id: CampaignId,
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The campaign's sides in its own order. Empty (an old file): the first scenario's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sides: Vec<CampaignSide>,
    pub battles: Vec<CampaignBattle>,
    #[serde(default)]
    pub carry_over: CarryOver,
    #[serde(default)]
    pub rules: CarryRules,
    #[serde(default)]
    pub victory: VictoryCondition,
}

impl CampaignBattle {
    /// A battle of this scenario with no note, sides one to one and the default link.
    pub fn new(scenario: ScenarioId) -> CampaignBattle {
        CampaignBattle {
            scenario,
            note: String::new(),
            weather: None,
            sides: Vec::new(),
            link: BattleLink::default(),
        }
    }
}
