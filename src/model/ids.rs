//! Newtype identifiers. Army-list ids are stable slugs (they appear in scenario files and the
//! database); order-of-battle ids are small numbers unique within one scenario.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! slug_id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            pub fn new(s: impl Into<String>) -> Self {
                Self(s.into())
            }
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

macro_rules! num_id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

slug_id!(
    /// An army list, e.g. `nap-austrian`. User lists are prefixed `user-`.
    ListId
);
slug_id!(
    /// A troop-chart row within its list, e.g. `line-infantry-08-12`.
    TroopTypeId
);
slug_id!(
    /// A scenario, e.g. `1809-ebelsberg`.
    ScenarioId
);
slug_id!(
    /// A campaign, e.g. `danube-1809`.
    CampaignId
);
num_id!(
    /// A unit within one scenario.
    UnitId
);
num_id!(
    /// A command unit (CO or HQ) within one scenario.
    HqId
);
num_id!(
    /// A commander (the person) within one scenario; stable across a campaign's battles.
    CommanderId
);
num_id!(
    /// A terrain feature within one scenario.
    FeatureId
);
num_id!(
    /// A field defence within one scenario.
    DefenseId
);
