//! The campaign tally: VPs and victories per campaign side and who leads under the campaign's
//! victory condition.

use super::forces::Forces;
use crate::model::{Campaign, VictoryCondition};
use serde::{Deserialize, Serialize};

/// The standing of the campaign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// VPs per campaign side, summed over the battles played (zero when the campaign does not
    /// carry VPs).
    pub vps: Vec<i64>,
    /// Battles won per campaign side.
    pub wins: Vec<u32>,
    /// Of those, decisive victories (OBJ-02).
    pub decisive: Vec<u32>,
    /// Who leads (wins, once every battle is played): `None` when level.
    pub leader: Option<usize>,
    /// Why, in words.
    pub why: String,
}

fn best(scores: &[i64]) -> Option<usize> {
    let top = scores.iter().copied().max()?;
    let mut at = scores.iter().enumerate().filter(|(_, s)| **s == top);
    let first = at.next().map(|(i, _)| i);
    if at.next().is_some() {
        None
    } else {
        first
    }
}

/// The tally of the battles played so far, under the campaign's victory condition.
pub fn tally(campaign: &Campaign, forces: &Forces) -> Tally {
    let n = forces.sides.len();
    let vps: Vec<i64> = forces.sides.iter().map(|s| s.vps).collect();
    let mut wins = vec![0u32; n];
    let mut decisive = vec![0u32; n];
    for b in &forces.battles {
        if let Some(w) = b.winner {
            if let Some(x) = wins.get_mut(w) {
                *x += 1;
            }
            if b.decisive {
                if let Some(x) = decisive.get_mut(w) {
                    *x += 1;
                }
            }
        }
    }
    let name = |i: Option<usize>| {
        i.and_then(|i| forces.sides.get(i))
            .map_or_else(|| "nobody".to_string(), |s| s.name.clone())
    };
    let (leader, why) = match &campaign.victory {
        VictoryCondition::MostVps => {
            let l = best(&vps);
            (
                l,
                match l {
                    Some(_) => format!("{} has the most victory points", name(l)),
                    None => "the sides are level on victory points".to_string(),
                },
            )
        }
        VictoryCondition::DecisiveDouble => {
            let score: Vec<i64> = (0..n)
                .map(|i| {
                    i64::from(wins.get(i).copied().unwrap_or(0))
                        + i64::from(decisive.get(i).copied().unwrap_or(0))
                })
                .collect();
            match best(&score) {
                Some(l) => (
                    Some(l),
                    format!(
                        "{} has the most victories, a decisive one counting twice",
                        name(Some(l))
                    ),
                ),
                None => {
                    let l = best(&vps);
                    (
                        l,
                        match l {
                            Some(_) => format!(
                                "level on victories (a decisive one counting twice); {} has more victory points",
                                name(l)
                            ),
                            None => "level on victories and on victory points".to_string(),
                        },
                    )
                }
            }
        }
        VictoryCondition::ObjectiveHeldAtEnd { objective, holder } => {
            let mut held = *holder;
            for b in &forces.battles {
                if let Some(w) = b.winner {
                    held = w;
                }
            }
            let l = Some(held).filter(|h| *h < n);
            (
                l,
                format!(
                    "{} holds {objective} (the winner of the last battle decided takes it)",
                    name(l)
                ),
            )
        }
    };
    Tally {
        vps,
        wins,
        decisive,
        leader,
        why,
    }
}
