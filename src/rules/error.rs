//! Why an action was refused. Every refusal names the catalogue rule that forbids it, so a
//! player can look it up, and leaves the battle unchanged.

use super::dice::DiceError;

/// An action the rules forbid, with the catalogue entry (e.g. "MOVE-10").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{rule}: {message}")]
pub struct RuleError {
    pub rule: &'static str,
    pub message: String,
}

impl RuleError {
    pub fn new(rule: &'static str, message: impl Into<String>) -> Self {
        RuleError {
            rule,
            message: message.into(),
        }
    }
}

/// Why `Battle::perform` did nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// Illegal under the rules.
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// Legal, but the dice could not be drawn (a scripted source ran out).
    #[error(transparent)]
    Dice(#[from] DiceError),
    /// A rule this build cannot apply yet: reported by name, never silently skipped.
    #[error("{rule}: not supported yet by this build: {what}")]
    Unsupported { rule: &'static str, what: String },
}
