//! The battle's dice: a seeded stream or a scripted list, and nothing else.
//!
//! Every die of a battle is drawn here and recorded in an event by the code that drew it
//! (`Event::DiceRolled`). The seeded source is ChaCha8 with our own d6 by rejection sampling on
//! `next_u32`, so an upgrade of `rand` can never change a battle's dice. The scripted source is a
//! fixed list: tests use it, and so do players who roll physical dice and type them in.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// Where a battle's dice come from; stored in the battle log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiceSource {
    /// A seeded ChaCha8 stream.
    Seed(u64),
    /// Dice in the order they are to be used (a test's script, or a battle file exported from
    /// a battle played with physical dice).
    Script(Vec<u8>),
    /// Dice rolled on a real table and typed in action by action (the referee's mode): the
    /// source itself holds none; each action brings its own ([`crate::rules::Battle::perform_with_dice`]).
    Physical,
}

/// The dice ran out or a scripted value is not a die.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiceError {
    #[error("the scripted dice ran out after {used} dice: {purpose} needs more (add dice to the script or roll them)")]
    Exhausted { used: usize, purpose: String },
    #[error("scripted die #{index} is {value}, which is not a d6 result (1–6)")]
    NotADie { index: usize, value: u8 },
    /// A battle played with physical dice asked for a die nobody entered.
    #[error("{}", needed_message(*given, needs))]
    Needed {
        /// Dice entered for the action.
        given: usize,
        /// What the action draws, in order, as (purpose, count), for the dice entered and as
        /// many more as it asks for (later rolls may depend on earlier ones: an estimate past
        /// the dice given).
        needs: Vec<(String, usize)>,
    },
    /// More dice were entered than the action used.
    #[error(
        "{given} dice were entered but the action uses only {used}: {}; enter exactly those",
        needs_list(needs)
    )]
    TooMany {
        given: usize,
        used: usize,
        needs: Vec<(String, usize)>,
    },
}

/// "5 dice for to hit, then 3 dice for save": what an action draws, in words.
pub fn needs_list(needs: &[(String, usize)]) -> String {
    let parts: Vec<String> = needs
        .iter()
        .map(|(p, n)| {
            if *n == 1 {
                format!("1 die for {p}")
            } else {
                format!("{n} dice for {p}")
            }
        })
        .collect();
    if parts.is_empty() {
        "no dice".to_string()
    } else {
        parts.join(", then ")
    }
}

fn needed_message(given: usize, needs: &[(String, usize)]) -> String {
    let total: usize = needs.iter().map(|(_, n)| n).sum();
    format!(
        "this action needs {total} dice ({}); {given} {} entered — roll the rest and enter all {total}",
        needs_list(needs),
        if given == 1 { "was" } else { "were" }
    )
}

/// Groups the purposes of dice drawn one by one into (purpose, count) runs, in order.
pub fn group_purposes(purposes: &[String]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for p in purposes {
        match out.last_mut() {
            Some((q, n)) if q == p => *n += 1,
            _ => out.push((p.clone(), 1)),
        }
    }
    out
}

/// A source of d6 results. `Send`, so a battle can be played on a worker thread (the solo
/// opponent in the window).
pub trait Dice: Send {
    /// One d6, for the purpose named (used in error messages; the caller records the roll).
    fn d6(&mut self, purpose: &str) -> Result<u8, DiceError>;

    /// `n` d6 in the order drawn.
    fn roll(&mut self, n: usize, purpose: &str) -> Result<Vec<u8>, DiceError> {
        (0..n).map(|_| self.d6(purpose)).collect()
    }

    /// How many dice have been drawn so far.
    fn used(&self) -> usize;

    /// The stream as it stands, to go back to: a refused action puts the dice back this way
    /// (cheaply: no die is drawn again).
    fn boxed_clone(&self) -> Box<dyn Dice>;
}

/// The seeded stream.
#[derive(Debug, Clone)]
pub struct SeededDice {
    rng: ChaCha8Rng,
    used: usize,
}

impl SeededDice {
    pub fn new(seed: u64) -> Self {
        SeededDice {
            rng: ChaCha8Rng::seed_from_u64(seed),
            used: 0,
        }
    }
}

/// The largest multiple of 6 that fits in a u32's range: words at or above it are redrawn so
/// every face is exactly equally likely.
const ZONE: u32 = u32::MAX - (u32::MAX % 6) - 1;

impl Dice for SeededDice {
    fn d6(&mut self, _purpose: &str) -> Result<u8, DiceError> {
        loop {
            let w = self.rng.next_u32();
            if w <= ZONE {
                self.used += 1;
                // w % 6 < 6, so the cast cannot truncate.
                return Ok((w % 6) as u8 + 1);
            }
        }
    }

    fn used(&self) -> usize {
        self.used
    }

    fn boxed_clone(&self) -> Box<dyn Dice> {
        Box::new(self.clone())
    }
}

/// A fixed list of dice; running out is an error, never a panic.
#[derive(Debug, Clone)]
pub struct ScriptedDice {
    /// Shared, so keeping a copy of the stream position costs no copy of the script.
    values: std::sync::Arc<[u8]>,
    next: usize,
}

impl ScriptedDice {
    /// Refuses a script with a value outside 1–6.
    pub fn new(values: Vec<u8>) -> Result<Self, DiceError> {
        check_entered(&values)?;
        Ok(ScriptedDice {
            values: values.into(),
            next: 0,
        })
    }

    /// Dice still unused.
    pub fn remaining(&self) -> &[u8] {
        self.values.get(self.next..).unwrap_or(&[])
    }
}

impl Dice for ScriptedDice {
    fn d6(&mut self, purpose: &str) -> Result<u8, DiceError> {
        match self.values.get(self.next) {
            Some(&v) => {
                self.next += 1;
                Ok(v)
            }
            None => Err(DiceError::Exhausted {
                used: self.next,
                purpose: purpose.to_string(),
            }),
        }
    }

    fn used(&self) -> usize {
        self.next
    }

    fn boxed_clone(&self) -> Box<dyn Dice> {
        Box::new(self.clone())
    }
}

/// The dice of a battle played on a real table: it holds none. Asking it for a die is an
/// error that names what the die is for; the battle brings each action's dice itself.
#[derive(Debug, Clone, Default)]
pub struct PhysicalDice {
    used: usize,
}

impl Dice for PhysicalDice {
    fn d6(&mut self, purpose: &str) -> Result<u8, DiceError> {
        Err(DiceError::Needed {
            given: 0,
            needs: vec![(purpose.to_string(), 1)],
        })
    }

    fn used(&self) -> usize {
        self.used
    }

    fn boxed_clone(&self) -> Box<dyn Dice> {
        Box::new(self.clone())
    }
}

/// A probe for dry runs: the dice given first, then as many stand-in dice as asked for (1s,
/// which miss, so the count is the fewest dice the action can need after those given),
/// recording what each die was drawn for. It never runs out, so a dry run answers "legal under
/// the rules" and tells how many dice and for what.
#[derive(Debug, Clone)]
pub struct ProbeDice {
    given: std::sync::Arc<[u8]>,
    /// What each die drawn so far was for.
    pub purposes: Vec<String>,
}

impl ProbeDice {
    /// The stand-in value of a die beyond those given.
    pub const STAND_IN: u8 = 1;

    pub fn new(given: &[u8]) -> ProbeDice {
        ProbeDice {
            given: given.into(),
            purposes: Vec::new(),
        }
    }
}

impl Dice for ProbeDice {
    fn d6(&mut self, purpose: &str) -> Result<u8, DiceError> {
        let v = self
            .given
            .get(self.purposes.len())
            .copied()
            .unwrap_or(Self::STAND_IN);
        self.purposes.push(purpose.to_string());
        Ok(v)
    }

    fn used(&self) -> usize {
        self.purposes.len()
    }

    fn boxed_clone(&self) -> Box<dyn Dice> {
        Box::new(self.clone())
    }
}

/// Checks typed-in dice: each must be a d6 result.
pub fn check_entered(values: &[u8]) -> Result<(), DiceError> {
    match values
        .iter()
        .enumerate()
        .find(|(_, v)| !(1..=6).contains(*v))
    {
        Some((index, &value)) => Err(DiceError::NotADie { index, value }),
        None => Ok(()),
    }
}

/// A live dice source built from a [`DiceSource`], positioned after `skip` dice (used when a
/// battle is rebuilt after undo: the stream continues where the kept actions left it).
pub fn open(source: &DiceSource, skip: usize) -> Result<Box<dyn Dice>, DiceError> {
    let mut dice: Box<dyn Dice> = match source {
        DiceSource::Seed(seed) => Box::new(SeededDice::new(*seed)),
        DiceSource::Script(values) => Box::new(ScriptedDice::new(values.clone())?),
        // Nothing to skip: the dice of kept actions were entered with them.
        DiceSource::Physical => return Ok(Box::new(PhysicalDice { used: skip })),
    };
    for _ in 0..skip {
        dice.d6("replay")?;
    }
    Ok(dice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_dice_are_reproducible_and_fair_enough() {
        let mut a = SeededDice::new(42);
        let mut b = SeededDice::new(42);
        let ra = a.roll(6000, "test").unwrap();
        let rb = b.roll(6000, "test").unwrap();
        assert_eq!(ra, rb);
        let mut counts = [0usize; 6];
        for v in &ra {
            assert!((1..=6).contains(v));
            counts[usize::from(*v - 1)] += 1;
        }
        // Each face within 15% of 1000 over 6000 rolls (a loose sanity bound).
        for c in counts {
            assert!((850..=1150).contains(&c), "{counts:?}");
        }
        assert_ne!(
            SeededDice::new(43).roll(20, "t").unwrap(),
            ra[..20].to_vec()
        );
    }

    #[test]
    fn seeded_stream_is_pinned() {
        // If this changes, every stored battle replays differently: never change it. The list
        // was taken once from this build (ChaCha8 seeded with 1, the d6 by rejection sampling
        // on next_u32); a change of the generator, the seeding or the d6 fails here.
        let first: Vec<u8> = SeededDice::new(1).roll(12, "pin").unwrap();
        assert_eq!(first, vec![6, 3, 6, 1, 4, 2, 1, 1, 4, 2, 1, 5]);
        // And the stream goes on from where it stopped: dice 13.. are not dice 1.. again.
        let mut d = SeededDice::new(1);
        let _ = d.roll(12, "pin").unwrap();
        assert_ne!(d.roll(12, "pin").unwrap(), first);
    }

    #[test]
    fn scripted_dice_run_out_with_a_clear_error() {
        let mut d = ScriptedDice::new(vec![3, 4]).unwrap();
        assert_eq!(d.roll(2, "fire").unwrap(), vec![3, 4]);
        let e = d.d6("save").unwrap_err();
        assert_eq!(
            e,
            DiceError::Exhausted {
                used: 2,
                purpose: "save".into()
            }
        );
        assert!(e.to_string().contains("ran out after 2 dice"));
        assert!(ScriptedDice::new(vec![1, 7]).is_err());
    }

    #[test]
    fn open_skips_dice_already_used() {
        let mut full = open(&DiceSource::Seed(9), 0).unwrap();
        let all = full.roll(10, "t").unwrap();
        let mut skipped = open(&DiceSource::Seed(9), 4).unwrap();
        assert_eq!(skipped.roll(6, "t").unwrap(), all[4..].to_vec());
        assert_eq!(skipped.used(), 10);
    }
}
