//! The one integration-test binary. Each area has its own module; shared helpers in `common`.

mod anatomy;
mod api;
mod attribute_risk;
mod audit;
mod cells;
mod checker_paths;
mod cli;
#[cfg(feature = "ballista")]
mod cluster;
mod columnar;
mod common;
mod config;
mod datafly;
mod delta;
mod dp;
mod encoding;
#[cfg(feature = "datafusion")]
mod engines;
mod flash;
mod hierarchy_build;
mod hostile;
mod init;
mod kcheck;
mod kept_db;
mod local_recoding;
mod mdav;
mod mondrian_hierarchies;
mod observe;
mod pipeline;
mod plan;
mod privacy;
mod protection;
mod quiet;
mod readme;
mod regression;
mod report;
mod risk_models;
mod risk_props;
mod risk_report;
mod summary;
mod utd_methods;
mod voice;
