//! The sample scenarios and campaign shipped in `campaigns/`, embedded at compile time so a
//! first run can seed its database without any files beside the binary.

use super::campaign::Campaign;
use super::scenario::Scenario;

/// (file name, text) of each shipped scenario.
pub const SAMPLE_SCENARIOS: [(&str, &str); 3] = [
    (
        "campaigns/danube-1809/ebelsberg.json",
        include_str!("../../campaigns/danube-1809/ebelsberg.json"),
    ),
    (
        "campaigns/danube-1809/aspern-essling-1.json",
        include_str!("../../campaigns/danube-1809/aspern-essling-1.json"),
    ),
    (
        "campaigns/danube-1809/aspern-essling-2.json",
        include_str!("../../campaigns/danube-1809/aspern-essling-2.json"),
    ),
];

/// (file name, text) of each shipped campaign.
pub const SAMPLE_CAMPAIGNS: [(&str, &str); 1] = [(
    "campaigns/danube-1809/campaign.json",
    include_str!("../../campaigns/danube-1809/campaign.json"),
)];

#[derive(Debug, thiserror::Error)]
#[error("{file}: {source}")]
pub struct SampleError {
    pub file: &'static str,
    #[source]
    pub source: serde_json::Error,
}

pub fn scenarios() -> Result<Vec<Scenario>, SampleError> {
    SAMPLE_SCENARIOS
        .iter()
        .map(|(file, text)| {
            serde_json::from_str(text).map_err(|source| SampleError { file, source })
        })
        .collect()
}

pub fn campaigns() -> Result<Vec<Campaign>, SampleError> {
    SAMPLE_CAMPAIGNS
        .iter()
        .map(|(file, text)| {
            serde_json::from_str(text).map_err(|source| SampleError { file, source })
        })
        .collect()
}

/// The shipped sample scenario with this id (for tests and examples).
pub fn scenario(id: &str) -> Option<Scenario> {
    scenarios().ok()?.into_iter().find(|s| s.id.as_str() == id)
}
