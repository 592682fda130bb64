//! The anonymization methods a run can name (`-method`).

/// Anonymization method (`-method`, case-insensitive on the command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Method {
    Datafly,
    Mondrian,
    IncognitoK,
    IncognitoL,
    IncognitoT,
    Anatomy,
    /// ARX's globally optimal Flash search, in memory.
    Flash,
    /// El Emam et al.'s Optimal Lattice Anonymization, on the same checker as Flash.
    Ola,
    /// Best-first branch and bound over an implicit lattice with antichains: globally optimal
    /// for any number of quasi-identifiers, anytime with a lower bound.
    Bfs,
    /// Flash when the lattice fits the dense property store comfortably, else BFS.
    Optimal,
    /// Microaggregation by MDAV ([`super::mdav`]): numeric quasi-identifiers replaced by their
    /// group's mean, groups of k to 2k - 1 records.
    Mdav,
}

impl Method {
    /// Every accepted name, as printed in errors and `--help`.
    pub const NAMES: &'static [&'static str] = &[
        "Datafly",
        "Mondrian",
        "Incognito_K",
        "Incognito_L",
        "Incognito_T",
        "Anatomy",
        "Flash",
        "OLA",
        "BFS",
        "Optimal",
        "MDAV",
    ];

    /// Parses a method name case-insensitively.
    pub fn parse(s: &str) -> Option<Method> {
        Some(match s.to_ascii_lowercase().as_str() {
            "datafly" => Method::Datafly,
            "mondrian" => Method::Mondrian,
            "incognito_k" => Method::IncognitoK,
            "incognito_l" => Method::IncognitoL,
            "incognito_t" => Method::IncognitoT,
            "anatomy" => Method::Anatomy,
            "flash" => Method::Flash,
            "ola" => Method::Ola,
            "bfs" => Method::Bfs,
            "optimal" => Method::Optimal,
            "mdav" => Method::Mdav,
            _ => return None,
        })
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Datafly => "Datafly",
            Method::Mondrian => "Mondrian",
            Method::IncognitoK => "Incognito_K",
            Method::IncognitoL => "Incognito_L",
            Method::IncognitoT => "Incognito_T",
            Method::Anatomy => "Anatomy",
            Method::Flash => "Flash",
            Method::Ola => "OLA",
            Method::Bfs => "BFS",
            Method::Optimal => "Optimal",
            Method::Mdav => "MDAV",
        }
    }

    /// The globally optimal lattice searches of the in-memory engine (Flash, OLA, BFS,
    /// Optimal): `-metric`, `<privacy>` models, `-timeLimit`.
    pub fn is_lattice(self) -> bool {
        matches!(
            self,
            Method::Flash | Method::Ola | Method::Bfs | Method::Optimal
        )
    }

    /// Full-domain methods need VGH leaves at equal depth.
    pub fn is_full_domain(self) -> bool {
        !matches!(self, Method::Mondrian | Method::Anatomy | Method::Mdav)
    }
}
