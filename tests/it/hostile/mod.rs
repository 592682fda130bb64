//! One test per case of the hardening issue (issue 28): a hostile neighbour, a shared folder, a
//! busy destination, a pathological input or config. Each test fails on the code before its fix.
//!
//! The cases that need another user (a file planted by someone else in a shared folder) run the
//! neighbour's steps as `nobody` when the tests run as root, and are skipped with a message
//! otherwise.

mod init;
mod inputs;
mod limits;
mod publish;
