//! The shared refusal helpers for tests (issue #22 item 8): [`refused`] holds only for an action
//! the rules forbid (`ActionError::Rule`) under exactly the rule ID given; [`unsupported`] only
//! for a rule this build cannot apply yet (`ActionError::Unsupported`). Either also checks that
//! the refusal left the battle's state and log as they were, and returns the message.
//! Include it with `#[path = "support/refuse.rs"] mod refuse;`.
#![allow(dead_code)]

use powderhorn::rules::{Action, ActionError, Battle};
use std::fmt::Debug;

/// Performs `action`, which must be refused; checks that nothing changed.
fn refusal(b: &mut Battle, action: Action) -> ActionError {
    let before = b.state().clone();
    let entries = b.entries().len();
    let err = match b.perform(action.clone()) {
        Ok(ev) => panic!("expected {action:?} to be refused, got {ev:?}"),
        Err(e) => e,
    };
    assert_eq!(b.state(), &before, "a refused action changes nothing");
    assert_eq!(b.entries().len(), entries, "a refused action is not logged");
    err
}

/// Asserts that the rules forbid `action` under `rule` (an illegal action, not one this build
/// does not support) and that the refusal leaves the battle as it was. Returns the message.
pub fn refused(b: &mut Battle, action: Action, rule: &str) -> String {
    match refusal(b, action) {
        ActionError::Rule(e) => {
            assert_eq!(e.rule, rule, "refusal rule ({})", e.message);
            e.message
        }
        e => panic!("expected the rules to forbid it under {rule}, got {e}"),
    }
}

/// Asserts that `action` is refused as a rule this build does not support yet, `rule`, and that
/// the refusal leaves the battle as it was. Returns the message.
pub fn unsupported(b: &mut Battle, action: Action, rule: &str) -> String {
    match refusal(b, action) {
        ActionError::Unsupported { rule: got, what } => {
            assert_eq!(got, rule, "unsupported rule ({what})");
            what
        }
        e => panic!("expected {rule} to be reported as not supported yet, got {e}"),
    }
}

/// The rule ID of a refusal by the rules (`ActionError::Rule`); any other outcome fails.
pub fn rule_of<T: Debug>(r: Result<T, ActionError>) -> &'static str {
    match r {
        Ok(ev) => panic!("expected a refusal, got {ev:?}"),
        Err(ActionError::Rule(e)) => e.rule,
        Err(e) => panic!("expected a refusal by the rules, got {e}"),
    }
}
