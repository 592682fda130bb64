//! The one integration-test binary. Each area has its own module; shared helpers in `common`.

mod anatomy;
mod audit;
mod checker_paths;
mod cli;
mod common;
mod config;
mod datafly;
mod delta;
mod encoding;
mod flash;
mod hierarchy_build;
mod hostile;
mod init;
mod kcheck;
mod kept_db;
mod observe;
mod pipeline;
mod plan;
mod privacy;
mod protection;
mod quiet;
mod readme;
mod regression;
mod report;
mod summary;
mod utd_methods;
