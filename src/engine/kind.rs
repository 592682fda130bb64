//! Which engine a run asks for (`-engine NAME`, `<engine name="NAME"/>`): a part of the job's
//! description, parsed with the flags and the config; [`super`] runs it.

/// Which engine reads the records and writes the release (`-engine`, `<engine name>`).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub enum EngineKind {
    #[default]
    Embedded,
    DataFusion,
    /// The scheduler's address, `ballista://HOST:PORT`.
    Ballista(String),
}

impl EngineKind {
    pub const NAMES: &'static [&'static str] = &["embedded", "datafusion"];

    /// The engine named `s` (any case).
    pub fn parse(s: &str) -> Option<EngineKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "embedded" => Some(EngineKind::Embedded),
            "datafusion" => Some(EngineKind::DataFusion),
            _ => None,
        }
    }

    /// The engine named `s`, or what is wrong with the name (for `-engine` and `<engine name>`):
    /// `embedded`, `datafusion` or a scheduler's address `ballista://HOST:PORT`.
    pub fn parse_named(s: &str) -> std::result::Result<EngineKind, String> {
        if let Some(k) = EngineKind::parse(s) {
            return Ok(k);
        }
        let t = s.trim();
        if let Some(addr) = t
            .get(..11)
            .filter(|p| p.eq_ignore_ascii_case("ballista://"))
            .map(|_| &t[11..])
        {
            let well_formed = addr
                .rsplit_once(':')
                .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
            if !well_formed {
                return Err(format!(
                    "'{t}' is not a Ballista address: write ballista://HOST:PORT"
                ));
            }
            return Ok(EngineKind::Ballista(format!("ballista://{addr}")));
        }
        Err(format!(
            "unknown engine '{t}'; accepted: {}, ballista://HOST:PORT",
            EngineKind::NAMES.join(", ")
        ))
    }

    /// The engine's name in reports: `embedded`, `datafusion` or the scheduler's address.
    pub fn name(&self) -> &str {
        match self {
            EngineKind::Embedded => "embedded",
            EngineKind::DataFusion => "datafusion",
            EngineKind::Ballista(address) => address,
        }
    }

    /// The cargo feature a build needs for this engine, if any.
    pub fn feature(&self) -> Option<&'static str> {
        match self {
            EngineKind::Embedded => None,
            EngineKind::DataFusion => Some("datafusion"),
            EngineKind::Ballista(_) => Some("ballista"),
        }
    }
}
