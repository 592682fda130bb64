//! The two-dimensional Newton-Raphson solver the population models use, with ARX 3.9's
//! procedure (its `ARXSolverConfiguration` defaults, deterministic): from the model's start
//! value, then from each of 16 prepared start values ({0, 0.33, 0.66, 0.99}², in order), at most
//! 1,000 steps each, until both functions are within 1e-6 of 0. A try ends when the step leaves
//! the constraint, gives NaN or runs out of steps; the last prepared start value gets a single
//! step (ARX stops once it has taken it). ARX also stops on wall-clock limits (100 ms a try, 1 s
//! in all); anonbox does not, so its estimate never depends on the machine's load.
//!
//! Unlike ARX, a converged point the model cannot have (`valid`) is no root: the try ends there
//! and the next start value is tried. Pitman's equations, for one, also vanish as θ grows
//! without bound at an α above 1, where the model has no probabilities; ARX takes that point and
//! estimates almost no population uniques.

/// A point (x, y).
pub type Point = (f64, f64);

/// The functions at a point and their Jacobian `[[dfx/dx, dfx/dy], [dfy/dx, dfy/dy]]`.
pub type Evaluation = (Point, [[f64; 2]; 2]);

const ACCURACY: f64 = 1e-6;
const STEPS_PER_TRY: usize = 1000;

/// ARX's prepared start values.
fn starts() -> Vec<Point> {
    let mut out = Vec::with_capacity(16);
    let mut d1 = 0.0;
    while d1 < 1.0 {
        let mut d2 = 0.0;
        while d2 < 1.0 {
            out.push((d1, d2));
            d2 += 0.33;
        }
        d1 += 0.33;
    }
    out
}

/// The accuracy the solver stops at.
pub fn accuracy() -> f64 {
    ACCURACY
}

/// Solves f(x, y) = (0, 0) from `start`; `allowed` is the constraint a step must stay in,
/// `valid` the one a root must meet. NaN when no try converges to a valid root.
pub fn solve(
    mut f: impl FnMut(Point) -> Evaluation,
    start: Point,
    allowed: impl Fn(Point) -> bool,
    valid: impl Fn(Point) -> bool,
) -> Point {
    let starts = starts();
    let total = (starts.len() + 1) * STEPS_PER_TRY;
    let mut used = 0;
    let mut total_steps = 0;
    let mut first = true;
    'tries: while total_steps <= total {
        let mut steps = 0;
        let mut s = if first {
            first = false;
            start
        } else {
            used += 1;
            starts[used - 1]
        };
        loop {
            total_steps += 1;
            let ((ox, oy), [[x1, x2], [y1, y2]]) = f(s);
            if ox.abs() <= ACCURACY && oy.abs() <= ACCURACY {
                if valid(s) {
                    return s;
                }
                if used == starts.len() {
                    break 'tries;
                }
                continue 'tries;
            }
            let inv = 1.0 / (x1 * y2 - x2 * y1);
            let (ix1, ix2, iy1, iy2) = (y2 * inv, -x2 * inv, -y1 * inv, x1 * inv);
            s = (s.0 - (ix1 * ox + ix2 * oy), s.1 - (iy1 * ox + iy2 * oy));
            if used == starts.len() {
                break 'tries;
            }
            if !allowed(s) {
                break;
            }
            let exhausted = steps >= STEPS_PER_TRY;
            steps += 1;
            if s.0.is_nan() || s.1.is_nan() || exhausted {
                break;
            }
        }
    }
    (f64::NAN, f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_system_and_reports_failure() {
        // x^2 + y^2 = 4, x = y: (sqrt 2, sqrt 2) from (1, 1).
        let f = |(x, y): Point| {
            (
                (x * x + y * y - 4.0, x - y),
                [[2.0 * x, 2.0 * y], [1.0, -1.0]],
            )
        };
        let (x, y) = solve(f, (1.0, 1.0), |_| true, |_| true);
        assert!((x - 2f64.sqrt()).abs() < 1e-6 && (y - x).abs() < 1e-6);
        // No valid root at all.
        assert!(solve(f, (1.0, 1.0), |_| true, |_| false).0.is_nan());
        // (x - 0.5)(x - 0.9) = 0, y = x: from (1, 1) the solver meets x = 0.9; when that root
        // is not valid, it goes on from the prepared start values, and (0, 0) leads to 0.5.
        let h = |(x, y): Point| {
            (
                ((x - 0.5) * (x - 0.9), y - x),
                [[2.0 * x - 1.4, 0.0], [-1.0, 1.0]],
            )
        };
        let (x, _) = solve(h, (1.0, 1.0), |_| true, |_| true);
        assert!((x - 0.9).abs() < 1e-5, "{x}");
        let (x, y) = solve(h, (1.0, 1.0), |_| true, |(x, _)| x < 0.7);
        assert!((x - 0.5).abs() < 1e-5 && (y - x).abs() < 1e-5, "{x} {y}");
        // No root: x^2 + 1 = 0.
        let g = |(x, y): Point| ((x * x + 1.0, y), [[2.0 * x, 0.0], [0.0, 1.0]]);
        assert!(solve(g, (1.0, 1.0), |_| true, |_| true).0.is_nan());
        assert_eq!(starts().len(), 16);
    }
}
