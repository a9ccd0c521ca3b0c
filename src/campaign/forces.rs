//! The campaign's forces: per campaign side, every unit and commander the campaign's scenarios
//! field, with what they have left; built once from the scenarios ([`forces_from`]) and then
//! changed only by the carry ([`super::scenario_for_battle`], [`super::after_battle`]).

use crate::model::{
    Campaign, CampaignBattle, CampaignSide, DefenseId, HqId, Scenario, TroopTypeId, UnitId, Weather,
};
use serde::{Deserialize, Serialize};

/// Where a unit stands in the campaign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitStatus {
    /// Fit to fight with its stands.
    Ready,
    /// Knocked out in the last battle; the carry into the next decides whether it comes back.
    KnockedOut,
    /// Gone for the rest of the campaign.
    Gone,
}

/// One unit of the campaign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitForce {
    pub id: UnitId,
    pub name: String,
    pub troop_type: TroopTypeId,
    /// Stands it has now (0 when knocked out or gone).
    pub stands: u8,
    /// Stands at its first appearance in the campaign.
    pub full_stands: u8,
    pub status: UnitStatus,
    /// Stands lost in the last battle it fought that may still come back (recovery); cleared
    /// by the carry into the next battle.
    #[serde(default)]
    pub recoverable: u8,
}

/// How a fallen commander fared, by the campaign's die.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    Killed,
    Captured,
    Wounded,
}

impl Fate {
    pub fn label(self) -> &'static str {
        match self {
            Fate::Killed => "killed",
            Fate::Captured => "captured",
            Fate::Wounded => "wounded",
        }
    }
}

/// A commander who fell in the last battle, waiting for the carry to replace him.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fallen {
    pub fate: Fate,
    /// The die that decided it (none when commander casualties are switched off).
    pub die: Option<u8>,
}

/// A wounded commander away from his command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Absent {
    pub name: String,
    pub command_value: u8,
    /// Battles he will still miss before the carry brings him back.
    pub battles_left: u32,
}

/// The officer at the head of one command unit (HQ) of the campaign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommanderForce {
    /// The command unit he leads; a commander's identity in the campaign.
    pub hq: HqId,
    pub hq_name: String,
    /// Who leads it now.
    pub name: String,
    pub command_value: u8,
    /// He fell in the last battle; the carry into the next names his replacement.
    #[serde(default)]
    pub fallen: Option<Fallen>,
    /// The wounded commander this one stands in for, who returns in time.
    #[serde(default)]
    pub absent: Option<Absent>,
}

/// One campaign side's forces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideForces {
    pub id: String,
    pub name: String,
    pub units: Vec<UnitForce>,
    pub commanders: Vec<CommanderForce>,
    /// The side's result in the last battle it fought: `Some(true)` won, `Some(false)` lost,
    /// `None` a draw or none yet.
    #[serde(default)]
    pub last_won: Option<bool>,
    /// Victory points so far (VP-01, VP-02), when the campaign carries them.
    #[serde(default)]
    pub vps: i64,
}

impl SideForces {
    pub fn unit(&self, id: UnitId) -> Option<&UnitForce> {
        self.units.iter().find(|u| u.id == id)
    }
    pub fn commander(&self, hq: HqId) -> Option<&CommanderForce> {
        self.commanders.iter().find(|c| c.hq == hq)
    }
    /// Stands of the units fit to fight.
    pub fn stands(&self) -> u32 {
        self.units.iter().map(|u| u32::from(u.stands)).sum()
    }
}

/// One battle played, as the tally needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BattleRecord {
    /// The scenario's id.
    pub scenario: String,
    /// The scenario's name, for reports.
    #[serde(default)]
    pub name: String,
    /// The winning campaign side (`None`: a draw or no verdict).
    pub winner: Option<usize>,
    /// The winner's result on the OBJ-02 ladder ("Decisive Victory"), or "Draw".
    pub category: String,
    /// The winner's result was a decisive victory (with or without the VP-03 promotion).
    pub decisive: bool,
    /// VPs per campaign side (VP-01..VP-03).
    pub vps: Vec<i64>,
}

/// Everything the campaign carries between battles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forces {
    /// In the campaign's order.
    pub sides: Vec<SideForces>,
    /// The weather the last battle ended with (`None` before the first).
    #[serde(default)]
    pub weather: Option<Weather>,
    /// Field defences knocked out in the last battle, by campaign side.
    #[serde(default)]
    pub defences_lost: Vec<(usize, DefenseId)>,
    /// The battles played so far, in order.
    #[serde(default)]
    pub battles: Vec<BattleRecord>,
}

impl Forces {
    pub fn side_names(&self) -> Vec<String> {
        self.sides.iter().map(|s| s.name.clone()).collect()
    }
}

/// Something that stops a campaign from being played as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CampaignProblem {
    /// The battle (0-based) it is about, if one.
    pub battle: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for CampaignProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.battle {
            Some(b) => write!(f, "battle {}: {}", b + 1, self.message),
            None => f.write_str(&self.message),
        }
    }
}

fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    s.trim_matches('-').to_string()
}

/// The campaign's sides: its own, or else the first scenario's.
pub(super) fn campaign_sides(campaign: &Campaign, first: Option<&Scenario>) -> Vec<CampaignSide> {
    if !campaign.sides.is_empty() {
        return campaign.sides.clone();
    }
    first.map_or_else(Vec::new, |s| {
        s.sides
            .iter()
            .map(|x| CampaignSide {
                id: slug(&x.name),
                name: x.name.clone(),
            })
            .collect()
    })
}

fn find<'a>(scenarios: &'a [Scenario], b: &CampaignBattle) -> Option<&'a Scenario> {
    scenarios.iter().find(|s| s.id == b.scenario)
}

/// Everything wrong with the campaign as written: scenarios not given, side mappings that do
/// not fit, and a unit id fielded on one campaign side with different troop types in two
/// battles (the same id must be the same unit). Empty: it can be played.
pub fn validate(campaign: &Campaign, scenarios: &[Scenario]) -> Vec<CampaignProblem> {
    let mut out = Vec::new();
    let p = |battle: Option<usize>, message: String| CampaignProblem { battle, message };
    if campaign.battles.is_empty() {
        out.push(p(
            None,
            "the campaign has no battles; add at least one scenario to it".into(),
        ));
    }
    let first = campaign.battles.first().and_then(|b| find(scenarios, b));
    let sides = campaign_sides(campaign, first);
    // (campaign side, unit id) → (troop type, battle, scenario name)
    let mut seen: Vec<(usize, UnitId, TroopTypeId, usize, String)> = Vec::new();
    for (i, b) in campaign.battles.iter().enumerate() {
        let Some(s) = find(scenarios, b) else {
            out.push(p(
                Some(i),
                format!(
                    "scenario '{}' is not among the campaign's scenario files; add its file beside the campaign or fix the id",
                    b.scenario
                ),
            ));
            continue;
        };
        if !b.sides.is_empty() && b.sides.len() != s.sides.len() {
            out.push(p(
                Some(i),
                format!(
                    "its side mapping names {} sides but scenario '{}' has {}; give one campaign side per scenario side",
                    b.sides.len(),
                    s.id,
                    s.sides.len()
                ),
            ));
        }
        let mut used = Vec::new();
        for k in 0..s.sides.len() {
            let c = b.campaign_side(k);
            if c >= sides.len() {
                out.push(p(
                    Some(i),
                    format!(
                        "scenario side {} is mapped to campaign side {}, but the campaign has {} sides",
                        k + 1,
                        c + 1,
                        sides.len()
                    ),
                ));
            } else if used.contains(&c) {
                out.push(p(
                    Some(i),
                    format!(
                        "two of the scenario's sides are mapped to campaign side '{}'; map each to a different side",
                        sides.get(c).map_or("?", |x| x.name.as_str())
                    ),
                ));
            }
            used.push(c);
        }
        for (k, side) in s.sides.iter().enumerate() {
            let c = b.campaign_side(k);
            for u in &side.units {
                match seen.iter().find(|(sc, id, ..)| *sc == c && *id == u.id) {
                    Some((_, _, troop, j, name)) if *troop != u.troop_type => out.push(p(
                        Some(i),
                        format!(
                            "unit {} '{}' is a '{}' here but a '{}' in battle {} ({}); the same unit id on one side must be the same unit, so give one of them another id",
                            u.id, u.name, u.troop_type, troop, j + 1, name
                        ),
                    )),
                    Some(_) => {}
                    None => seen.push((c, u.id, u.troop_type.clone(), i, s.name.clone())),
                }
            }
        }
    }
    out
}

/// The campaign's forces before its first battle: per campaign side the union of the units
/// and command units of all its scenarios, in battle order, each at its first appearance's
/// strength and with its first appearance's commander. Refused with every problem
/// [`validate`] finds.
pub fn forces_from(
    campaign: &Campaign,
    scenarios: &[Scenario],
) -> Result<Forces, Vec<CampaignProblem>> {
    let problems = validate(campaign, scenarios);
    if !problems.is_empty() {
        return Err(problems);
    }
    let first = campaign.battles.first().and_then(|b| find(scenarios, b));
    let mut sides: Vec<SideForces> = campaign_sides(campaign, first)
        .into_iter()
        .map(|s| SideForces {
            id: s.id,
            name: s.name,
            units: Vec::new(),
            commanders: Vec::new(),
            last_won: None,
            vps: 0,
        })
        .collect();
    for b in &campaign.battles {
        let Some(s) = find(scenarios, b) else {
            continue;
        };
        for (k, side) in s.sides.iter().enumerate() {
            let Some(f) = sides.get_mut(b.campaign_side(k)) else {
                continue;
            };
            for h in &side.hqs {
                if f.commander(h.id).is_none() {
                    f.commanders.push(CommanderForce {
                        hq: h.id,
                        hq_name: h.name.clone(),
                        name: h.commander.name.clone(),
                        command_value: h.commander.command_value,
                        fallen: None,
                        absent: None,
                    });
                }
            }
            for u in &side.units {
                if f.unit(u.id).is_none() {
                    f.units.push(UnitForce {
                        id: u.id,
                        name: u.name.clone(),
                        troop_type: u.troop_type.clone(),
                        stands: u.stands,
                        full_stands: u.stands,
                        status: UnitStatus::Ready,
                        recoverable: 0,
                    });
                }
            }
        }
    }
    Ok(Forces {
        sides,
        weather: None,
        defences_lost: Vec::new(),
        battles: Vec::new(),
    })
}
