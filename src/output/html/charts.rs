//! The HTML report's charts, drawn as SVG text by plotters' SVG backend.
//!
//! plotters is built without its font features (no font-kit, no system fonts): text is written as
//! SVG `<text>` elements (escaped by plotters) that the browser draws with its own sans-serif
//! font, and plotters only estimates text extents for the layout. Axis labels are numbers and
//! fixed words; no user data reaches a chart.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::algorithms::CheckedSample;
use crate::risk::SizeCounts;
use crate::{Error, Result};

const WIDTH: u32 = 760;
const HEIGHT: u32 = 340;
const FONT: &str = "sans-serif";
const BLUE: RGBColor = RGBColor(0x2b, 0x6c, 0xb0);
const GREY: RGBColor = RGBColor(0x9a, 0xa0, 0xa6);
const ORANGE: RGBColor = RGBColor(0xdd, 0x6b, 0x20);
const RED: RGBColor = RGBColor(0xc5, 0x30, 0x30);

/// Risk bands of the risk chart: `(label, lowest risk excluded, highest risk included)`.
pub const RISK_BANDS: [(&str, f64, f64); 6] = [
    ("≤ 1%", -1.0, 0.01),
    ("1–5%", 0.01, 0.05),
    ("5–10%", 0.05, 0.1),
    ("10–20%", 0.1, 0.2),
    ("20–50%", 0.2, 0.5),
    ("50–100%", 0.5, 1.0),
];

fn chart_error(e: impl std::fmt::Display) -> Error {
    Error::Invalid(format!(
        "internal error: drawing a chart of the HTML report: {e}"
    ))
}

/// Draws on a fresh SVG canvas and returns the SVG text.
fn svg(draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<()>) -> Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        draw(&root)?;
        root.present().map_err(chart_error)?;
    }
    Ok(out)
}

/// Histogram of class sizes: classes per size bin on a logarithmic axis, the bins' edges the
/// powers of two and `k` (so no bin straddles k), with a line at `k`.
pub fn class_sizes(sizes: &[u64], k: Option<u64>) -> Result<String> {
    let largest = sizes.iter().copied().max().unwrap_or(1).max(1);
    let mut edges: Vec<u64> = (0..64)
        .map(|i| 1u64 << i)
        .take_while(|&e| e <= largest)
        .collect();
    edges.push(edges.last().map_or(2, |e| e * 2));
    if let Some(k) = k.filter(|&k| k > 1 && k <= largest) {
        edges.push(k);
    }
    edges.sort_unstable();
    edges.dedup();
    let mut counts = vec![0u64; edges.len() - 1];
    let last = counts.len() - 1;
    for &n in sizes.iter().filter(|&&n| n > 0) {
        counts[(edges.partition_point(|&e| e <= n) - 1).min(last)] += 1;
    }
    let x_max = (*edges.last().expect("edges") as f64).max(k.map_or(2.0, |k| 2.0 * k as f64));
    let top = counts.iter().copied().max().unwrap_or(1).max(1);
    let y_max = top as f64 * 1.1;
    svg(|root| {
        let mut chart = ChartBuilder::on(root)
            .margin(14)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d((1f64..x_max).log_scale(), 0f64..y_max)
            .map_err(chart_error)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("class size (records); bins from each power of two and from k")
            .y_desc("classes")
            // Level sums are whole and never negative: no label at a half-way tick.
            .x_label_formatter(&|x| {
                if *x < 0.0 {
                    String::new()
                } else {
                    integral(*x)
                }
            })
            .y_labels((top as usize + 1).min(11))
            .y_label_formatter(&|y| integral(*y))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()
            .map_err(chart_error)?;
        chart
            .draw_series(
                counts
                    .iter()
                    .zip(edges.windows(2))
                    .filter(|(&n, _)| n > 0)
                    .map(|(&n, e)| {
                        // A small gap between bars, the same on the log axis for every bin.
                        let (lo, hi) = (e[0] as f64, e[1] as f64);
                        let gap = (hi / lo).powf(0.03);
                        Rectangle::new([(lo * gap, 0.0), (hi / gap, n as f64)], BLUE.filled())
                    }),
            )
            .map_err(chart_error)?;
        if let Some(k) = k {
            let x = k as f64;
            chart
                .draw_series([PathElement::new(
                    vec![(x, 0.0), (x, y_max)],
                    RED.stroke_width(2),
                )])
                .map_err(chart_error)?;
            chart
                .draw_series([Text::new(
                    format!("k = {k}"),
                    (x * 1.05, y_max * 0.95),
                    (FONT, 14).into_font().color(&RED),
                )])
                .map_err(chart_error)?;
        }
        Ok(())
    })
}

/// Draws the legend of a chart's labelled series at `position`.
fn legend<'a, 'b: 'a>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    position: SeriesLabelPosition,
) -> Result<()> {
    chart
        .configure_series_labels()
        .position(position)
        .border_style(GREY)
        .background_style(WHITE)
        .label_font((FONT, 13))
        .draw()
        .map_err(chart_error)
}

/// A tick label for whole numbers only (empty between them).
fn integral(y: f64) -> String {
    if (y - y.round()).abs() < 1e-9 {
        format!("{}", y.round())
    } else {
        String::new()
    }
}

/// Share of records per band of risk `[RISK_BANDS]` of classes of `sizes` records.
pub fn risk_shares(sizes: impl IntoIterator<Item = u64>) -> [f64; 6] {
    let mut records = [0u64; 6];
    for n in sizes.into_iter().filter(|&n| n > 0) {
        let risk = 1.0 / n as f64;
        let band = RISK_BANDS
            .iter()
            .position(|&(_, lo, hi)| risk > lo && risk <= hi)
            .unwrap_or(RISK_BANDS.len() - 1);
        records[band] += n;
    }
    let total: u64 = records.iter().sum();
    records.map(|r| {
        if total == 0 {
            0.0
        } else {
            r as f64 / total as f64
        }
    })
}

/// Share of records per risk band before (grey) and after (blue) anonymization; without
/// `after` (Anatomy, whose quasi-identifiers are published as they are), the input only.
pub fn risk_bands(before: &SizeCounts, after: Option<&[u64]>, threshold: f64) -> Result<String> {
    let (b, a) = (
        risk_shares(before.iter()),
        after.map(|a| risk_shares(a.iter().copied())),
    );
    let n = RISK_BANDS.len() as f64;
    svg(|root| {
        let mut chart = ChartBuilder::on(root)
            .margin(14)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.5f64..n - 0.5, 0f64..105.0)
            .map_err(chart_error)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(RISK_BANDS.len() + 1)
            .x_label_formatter(&|x| {
                let i = x.round();
                match RISK_BANDS.get(i as usize) {
                    Some(band) if (x - i).abs() < 1e-6 && i >= 0.0 => band.0.to_string(),
                    _ => String::new(),
                }
            })
            .x_desc(format!(
                "prosecutor risk of the record (1 / its class size); at risk above {}%",
                threshold * 100.0
            ))
            .y_desc("% of records")
            .y_label_formatter(&|y| integral(*y))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()
            .map_err(chart_error)?;
        let bar = |i: usize, v: f64, left: bool, color: RGBColor| {
            let x = i as f64;
            let (x0, x1) = if left { (x - 0.38, x) } else { (x, x + 0.38) };
            Rectangle::new([(x0, 0.0), (x1, v * 100.0)], color.filled())
        };
        chart
            .draw_series((0..b.len()).map(|i| bar(i, b[i], true, GREY)))
            .map_err(chart_error)?
            .label("input")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], GREY.filled()));
        if let Some(a) = a {
            chart
                .draw_series((0..a.len()).map(|i| bar(i, a[i], false, BLUE)))
                .map_err(chart_error)?
                .label("release")
                .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], BLUE.filled()));
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        Ok(())
    })
}

/// The transformations a lattice search checked: information loss against the sum of their
/// levels; valid ones blue, invalid ones grey crosses at their loss's lower bound, the optimum
/// orange. A small spread around each level sum keeps overlapping points apart.
pub fn candidates(
    sample: &CheckedSample,
    optimum: Option<&[usize]>,
    metric: &str,
) -> Result<String> {
    let height = |l: &[usize]| l.iter().sum::<usize>() as f64;
    let x_max = sample
        .items
        .iter()
        .map(|c| height(&c.levels))
        .fold(1.0, f64::max);
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    let y_max = sample
        .items
        .iter()
        .map(|c| finite(c.loss))
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.08;
    // A deterministic spread in [-0.3, 0.3] from the levels.
    let spread = |l: &[usize]| {
        let h = l.iter().fold(0x9e37_79b9_u64, |h, &x| {
            (h ^ x as u64).wrapping_mul(0x0100_0000_01b3)
        });
        ((h >> 11) % 601) as f64 / 1000.0 - 0.3
    };
    svg(|root| {
        let mut chart = ChartBuilder::on(root)
            .margin(14)
            .x_label_area_size(42)
            .y_label_area_size(72)
            .build_cartesian_2d(-0.5f64..x_max + 0.5, 0f64..y_max)
            .map_err(chart_error)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("sum of the levels (generalization height)")
            .y_desc(format!("information loss ({metric})"))
            .x_label_formatter(&|x| format!("{}", x.round()))
            .y_label_formatter(&|y| short(*y))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()
            .map_err(chart_error)?;
        let point = |c: &crate::algorithms::CheckedTransformation| {
            (height(&c.levels) + spread(&c.levels), finite(c.loss))
        };
        chart
            .draw_series(
                sample
                    .items
                    .iter()
                    .filter(|c| !c.valid)
                    .map(|c| Cross::new(point(c), 3, GREY.stroke_width(1))),
            )
            .map_err(chart_error)?
            .label("invalid (at its loss's lower bound)")
            .legend(|(x, y)| Cross::new((x + 6, y), 4, GREY.stroke_width(1)));
        chart
            .draw_series(
                sample
                    .items
                    .iter()
                    .filter(|c| c.valid)
                    .map(|c| Circle::new(point(c), 3, BLUE.mix(0.7).filled())),
            )
            .map_err(chart_error)?
            .label("valid")
            .legend(|(x, y)| Circle::new((x + 6, y), 4, BLUE.filled()));
        if let Some(best) = optimum.and_then(|o| sample.items.iter().find(|c| c.levels == o)) {
            let p = (height(&best.levels), finite(best.loss));
            chart
                .draw_series([Circle::new(p, 7, ORANGE.filled())])
                .map_err(chart_error)?
                .label("optimum")
                .legend(|(x, y)| Circle::new((x + 6, y), 5, ORANGE.filled()));
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        Ok(())
    })
}

/// A number in at most 4 significant digits.
pub fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    if v.abs() >= 1e6 || v.abs() < 1e-3 {
        return format!("{v:.3e}");
    }
    let digits = (3 - v.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}
