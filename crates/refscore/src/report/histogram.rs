//! Score histograms drawn as inline SVG for the HTML report.

use std::fmt::Write as _;

/// Bars per histogram.
const BINS: usize = 20;
const WIDTH: f64 = 280.0;
const HEIGHT: f64 = 72.0;

/// Counts of scores in equal-width bins between `lo` and `hi`.
#[derive(Debug, Clone)]
pub(crate) struct Histogram {
    lo: f64,
    hi: f64,
    bins: [u64; BINS],
    threshold: Option<f64>,
}

impl Histogram {
    /// A histogram for scores between `min` and `max` (`[0, 1]` when both
    /// lie in it, so similarities always share one scale).
    pub(crate) fn new(min: Option<f64>, max: Option<f64>, threshold: Option<f64>) -> Self {
        let finite = |x: Option<f64>, or: f64| x.filter(|x| x.is_finite()).unwrap_or(or);
        let (mut lo, mut hi) = (finite(min, 0.0), finite(max, 1.0));
        if lo >= 0.0 && hi <= 1.0 {
            (lo, hi) = (0.0, 1.0);
        }
        if hi <= lo {
            hi = lo + 1.0;
        }
        Histogram { lo, hi, bins: [0; BINS], threshold }
    }

    /// Counts one score.
    pub(crate) fn add(&mut self, x: f64) {
        if !x.is_finite() {
            return;
        }
        let t = ((x - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let i = ((t * BINS as f64) as usize).min(BINS - 1);
        if let Some(b) = self.bins.get_mut(i) {
            *b += 1;
        }
    }

    /// The histogram as an SVG element, bars scaled to the fullest bin, the
    /// threshold as a dashed line.
    pub(crate) fn svg(&self, title: &str) -> String {
        let top = self.bins.iter().copied().max().unwrap_or(0).max(1) as f64;
        let bar = WIDTH / BINS as f64;
        let mut s = format!(
            r#"<svg class="hist" viewBox="0 0 {WIDTH} {h}" width="{WIDTH}" height="{h}" role="img" aria-label="{}">"#,
            escape(title),
            h = HEIGHT + 14.0
        );
        for (i, &n) in self.bins.iter().enumerate() {
            let h = if n == 0 { 0.0 } else { (n as f64 / top * HEIGHT).max(1.5) };
            let from = self.lo + (self.hi - self.lo) * i as f64 / BINS as f64;
            let to = self.lo + (self.hi - self.lo) * (i + 1) as f64 / BINS as f64;
            let _ = write!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{h:.1}"><title>{} – {}: {n} rows</title></rect>"#,
                i as f64 * bar + 0.5,
                HEIGHT - h,
                bar - 1.0,
                short(from),
                short(to)
            );
        }
        if let Some(t) = self.threshold.filter(|t| *t >= self.lo && *t <= self.hi) {
            let x = (t - self.lo) / (self.hi - self.lo) * WIDTH;
            let _ = write!(
                s,
                r#"<line class="threshold" x1="{x:.1}" x2="{x:.1}" y1="0" y2="{HEIGHT}"><title>threshold {}</title></line>"#,
                short(t)
            );
        }
        let _ = write!(
            s,
            r#"<text x="0" y="{y}">{}</text><text x="{WIDTH}" y="{y}" text-anchor="end">{}</text></svg>"#,
            short(self.lo),
            short(self.hi),
            y = HEIGHT + 12.0
        );
        s
    }
}

fn short(x: f64) -> String {
    super::text::num(x)
}

/// `text` for SVG: hidden characters shown ([`super::text::visible`]), then
/// HTML-escaped.
fn escape(text: &str) -> String {
    super::text::visible(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_scores_and_draws_the_threshold() {
        let mut h = Histogram::new(Some(0.2), Some(1.0), Some(0.9));
        for x in [0.0, 0.5, 1.0, 1.0, f64::NAN] {
            h.add(x);
        }
        assert_eq!(h.bins[0], 1);
        assert_eq!(h.bins[10], 1);
        assert_eq!(h.bins[BINS - 1], 2);
        let svg = h.svg("fields <x>");
        assert!(svg.contains(r#"class="threshold""#), "{svg}");
        assert!(svg.contains("fields &lt;x&gt;"));
        assert_eq!(svg.matches("<rect").count(), BINS);
        let flat = Histogram::new(Some(3.0), Some(3.0), None);
        assert!((flat.hi - flat.lo - 1.0).abs() < 1e-12);
    }
}
