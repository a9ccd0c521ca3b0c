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
    /// Dice in the order they are to be used (physical dice typed in, or a test's script).
    Script(Vec<u8>),
}

/// The dice ran out or a scripted value is not a die.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiceError {
    #[error("the scripted dice ran out after {used} dice: {purpose} needs more (add dice to the script or roll them)")]
    Exhausted { used: usize, purpose: String },
    #[error("scripted die #{index} is {value}, which is not a d6 result (1–6)")]
    NotADie { index: usize, value: u8 },
}

/// A source of d6 results.
pub trait Dice {
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
        if let Some((index, &value)) = values
            .iter()
            .enumerate()
            .find(|(_, v)| !(1..=6).contains(*v))
        {
            return Err(DiceError::NotADie { index, value });
        }
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

/// A live dice source built from a [`DiceSource`], positioned after `skip` dice (used when a
/// battle is rebuilt after undo: the stream continues where the kept actions left it).
pub fn open(source: &DiceSource, skip: usize) -> Result<Box<dyn Dice>, DiceError> {
    let mut dice: Box<dyn Dice> = match source {
        DiceSource::Seed(seed) => Box::new(SeededDice::new(*seed)),
        DiceSource::Script(values) => Box::new(ScriptedDice::new(values.clone())?),
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
