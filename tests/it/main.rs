//! The one integration-test binary. Each area has its own module; shared helpers in `common`.

mod anatomy;
mod audit;
mod cli;
mod common;
mod config;
mod datafly;
mod kcheck;
mod pipeline;
mod utd_methods;
