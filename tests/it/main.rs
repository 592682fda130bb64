//! The one integration-test binary. Each area has its own module; shared helpers in `common`.

mod checker_paths;
mod common;
mod flash;
