//! Numbers formatted as Java's `Double.toString` prints them (the toolbox's outputs).
//!
//! Shortest round-trip digits, at least one digit after the point (`73.0`), scientific notation
//! `1.0E-4` / `1.0E7` outside [1e-3, 1e7).

/// Java's `Double.toString(x)`.
pub fn double_to_string(_x: f64) -> String {
    todo!("config helper")
}
