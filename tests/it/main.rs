//! The one integration-test binary. Each area has its own module; shared helpers in `common`.

mod audit;
mod checker_paths;
mod cli;
mod common;
mod config;
mod datafly;
mod flash;
mod kcheck;
mod pipeline;
mod privacy;
