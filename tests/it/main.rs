//! The one integration-test binary. Each area has its own module; shared helpers in `common`.

mod audit;
mod cli;
mod common;
mod config;
mod datafly;
mod kcheck;
mod pipeline;
