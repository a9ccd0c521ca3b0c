//! Timing many passes of a bench's work and reporting low percentiles (`LOS_TIMES`,
//! `AUTOPLAY_TIMES`): on a machine others share, the least and the 10th percentile of many
//! passes move less than a mean, so two builds run one after the other can be compared.

use std::time::Instant;

/// Runs `pass` `n` times and says how long the least, the 10th percentile and the median pass
/// took, in milliseconds.
pub fn percentiles(n: usize, mut pass: impl FnMut()) -> String {
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let t0 = Instant::now();
            pass();
            t0.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let at = |q: usize| times.get(q).copied().unwrap_or(f64::NAN);
    format!(
        "least {:.3} ms, 10th percentile {:.3} ms, median {:.3} ms",
        at(0),
        at(n / 10),
        at(n / 2)
    )
}
