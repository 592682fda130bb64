//! The two-dimensional Newton-Raphson solver the population models use, with ARX 3.9's
//! procedure (its `ARXSolverConfiguration` defaults, deterministic): from the model's start
//! value, then from each of 16 prepared start values ({0, 0.33, 0.66, 0.99}², in order), at most
//! 1,000 steps each, until both functions are within 1e-6 of 0. A try ends when the step leaves
//! the constraint, gives NaN or runs out of steps; the last prepared start value gets a single
//! step (ARX stops once it has taken it). ARX also stops on wall-clock limits (100 ms a try, 1 s
//! in all); anonbox does not, so its estimate never depends on the machine's load.

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

/// Solves f(x, y) = (0, 0) from `start`; `allowed` is the constraint a step must stay in. NaN
/// when no try converges.
pub fn solve(
    mut f: impl FnMut(Point) -> Evaluation,
    start: Point,
    allowed: impl Fn(Point) -> bool,
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
                return s;
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
        let (x, y) = solve(f, (1.0, 1.0), |_| true);
        assert!((x - 2f64.sqrt()).abs() < 1e-6 && (y - x).abs() < 1e-6);
        // No root: x^2 + 1 = 0.
        let g = |(x, y): Point| ((x * x + 1.0, y), [[2.0 * x, 0.0], [0.0, 1.0]]);
        assert!(solve(g, (1.0, 1.0), |_| true).0.is_nan());
        assert_eq!(starts().len(), 16);
    }
}
