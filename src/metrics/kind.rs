//! The utility metrics a run can name (`-metric`).

/// Utility metric for lattice searches (`-metric`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum MetricKind {
    DmStar,
    Dm,
    Height,
    Precision,
    Loss,
    Entropy,
    Aecs,
}

impl MetricKind {
    /// Every metric, in the order of [`MetricKind::NAMES`].
    pub const ALL: [MetricKind; 7] = [
        MetricKind::DmStar,
        MetricKind::Dm,
        MetricKind::Height,
        MetricKind::Precision,
        MetricKind::Loss,
        MetricKind::Entropy,
        MetricKind::Aecs,
    ];

    pub const NAMES: &'static [&'static str] = &[
        "DMStar",
        "DM",
        "Height",
        "Precision",
        "Loss",
        "Entropy",
        "AECS",
    ];

    /// Parses a metric name case-insensitively.
    pub fn parse(s: &str) -> Option<MetricKind> {
        Some(match s.to_ascii_lowercase().as_str() {
            "dmstar" | "dm*" => MetricKind::DmStar,
            "dm" => MetricKind::Dm,
            "height" => MetricKind::Height,
            "precision" => MetricKind::Precision,
            "loss" => MetricKind::Loss,
            "entropy" => MetricKind::Entropy,
            "aecs" => MetricKind::Aecs,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            MetricKind::DmStar => "DMStar",
            MetricKind::Dm => "DM",
            MetricKind::Height => "Height",
            MetricKind::Precision => "Precision",
            MetricKind::Loss => "Loss",
            MetricKind::Entropy => "Entropy",
            MetricKind::Aecs => "AECS",
        }
    }
}
