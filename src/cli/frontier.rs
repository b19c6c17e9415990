//! What a sweep ranks by and which of its rows no other row beats: the
//! objective of `--metric` (one metric, `f1`, or a floor on one metric and
//! then the most IoU) and the Pareto fronts the table marks.

use super::eval::METRICS;
use crate::error::{Error, Result};

/// Anything with the means of the eval metrics.
pub(super) trait Means {
    /// The mean of an eval metric (or `retrieved`, characters per question).
    fn mean(&self, name: &str) -> f64;
    /// Characters to embed: the cost of a set of chunks.
    fn embed_cost(&self) -> usize;
}

/// What `--metric` ranks by and `--best` picks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Objective {
    /// One metric's mean, highest first.
    Metric(&'static str),
    /// The harmonic mean of recall and precision (of their means).
    F1,
    /// The rows with `metric` at `floor` or more first, by IoU; then the
    /// others, by `metric` (`recall>=0.85`: the best IoU that keeps recall).
    Floor { metric: &'static str, floor: f64 },
}

impl Objective {
    pub fn parse(text: &str) -> Result<Objective> {
        let known = |name: &str| METRICS.iter().copied().find(|m| *m == name.trim());
        let t = text.trim();
        if t == "f1" {
            return Ok(Objective::F1);
        }
        if let Some((name, floor)) = t.split_once(">=") {
            let metric = known(name);
            let floor = floor.trim().parse::<f64>().ok().filter(|f| f.is_finite());
            return match (metric, floor) {
                (Some(metric), Some(floor)) => Ok(Objective::Floor { metric, floor }),
                _ => Err(Error::config(format!(
                    "--metric {text}: a floor is METRIC>=NUMBER, e.g. recall>=0.85 (metrics: {})",
                    METRICS.join(", ")
                ))),
            };
        }
        known(t).map(Objective::Metric).ok_or_else(|| {
            Error::config(format!(
                "--metric {text}: use one of {}, f1, or a floor then the most IoU such as recall>=0.85",
                METRICS.join(", ")
            ))
        })
    }

    /// The number this objective maximises for a row (for a floor: IoU).
    pub fn value(&self, row: &impl Means) -> f64 {
        match *self {
            Objective::Metric(m) => row.mean(m),
            Objective::F1 => {
                let (r, p) = (row.mean("recall"), row.mean("precision"));
                if r + p > 0.0 {
                    2.0 * r * p / (r + p)
                } else {
                    0.0
                }
            }
            Objective::Floor { metric, floor } => {
                if row.mean(metric) >= floor {
                    row.mean("iou")
                } else {
                    row.mean(metric)
                }
            }
        }
    }

    /// Whether a row meets the floor (always, without one).
    pub fn meets(&self, row: &impl Means) -> bool {
        match *self {
            Objective::Floor { metric, floor } => row.mean(metric) >= floor,
            _ => true,
        }
    }

    /// Best first: rows that meet the floor, then the higher value, then
    /// fewer characters to embed.
    pub fn rank<T: Means>(&self, rows: &mut [T]) {
        rows.sort_by(|a, b| {
            self.meets(b)
                .cmp(&self.meets(a))
                .then(self.value(b).total_cmp(&self.value(a)))
                .then(a.embed_cost().cmp(&b.embed_cost()))
        });
    }

    /// Its name in the table's header.
    pub fn label(&self) -> String {
        match *self {
            Objective::Metric(m) => m.to_string(),
            Objective::F1 => "f1 (of recall and precision)".into(),
            Objective::Floor { metric, floor } => format!("iou where {metric} >= {floor}"),
        }
    }
}

/// The Pareto fronts of a sweep, one flag per row.
pub(super) struct Fronts {
    /// The objective against characters to embed.
    pub cost: Vec<bool>,
    /// Recall against IoU.
    pub recall_iou: Vec<bool>,
    /// Recall against characters retrieved per question (the context).
    pub recall_context: Vec<bool>,
}

impl Fronts {
    pub fn of<T: Means>(rows: &[T], objective: &Objective) -> Fronts {
        let points = |f: &dyn Fn(&T) -> (f64, f64)| rows.iter().map(f).collect::<Vec<_>>();
        Fronts {
            cost: front(&points(&|r| (objective.value(r), -(r.embed_cost() as f64)))),
            recall_iou: front(&points(&|r| (r.mean("recall"), r.mean("iou")))),
            recall_context: front(&points(&|r| (r.mean("recall"), -r.mean("retrieved")))),
        }
    }

    /// The row's marks: `*` cost, `I` recall/IoU, `C` recall/context.
    pub fn marks(&self, i: usize) -> String {
        [(self.cost[i], '*'), (self.recall_iou[i], 'I'), (self.recall_context[i], 'C')]
            .iter()
            .map(|&(on, c)| if on { c } else { ' ' })
            .collect()
    }
}

/// Whether each point is on the Pareto front when both coordinates are to
/// be maximised: no other point is at least as good on both and better on
/// one. Sorted by the first, then a sweep: O(n log n).
pub(super) fn front(points: &[(f64, f64)]) -> Vec<bool> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&i, &j| points[j].0.total_cmp(&points[i].0).then(points[j].1.total_cmp(&points[i].1)));
    let mut on = vec![false; points.len()];
    // The best second coordinate among points with a strictly higher first.
    let mut best_above = f64::NEG_INFINITY;
    let mut g = 0;
    while g < order.len() {
        let x = points[order[g]].0;
        let end = g + order[g..].iter().take_while(|&&i| points[i].0.total_cmp(&x).is_eq()).count();
        // Within a group of equal first coordinates the first has the highest second.
        let top = points[order[g]].1;
        for &i in &order[g..end] {
            let y = points[i].1;
            on[i] = y.total_cmp(&top).is_eq() && y > best_above;
        }
        best_above = best_above.max(top);
        g = end;
    }
    on
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_front_is_what_nothing_beats() {
        let points = [(0.9, 0.1), (0.5, 0.5), (0.4, 0.4), (0.1, 0.9), (0.5, 0.5), (0.9, 0.05), (0.2, 0.9)];
        assert_eq!(front(&points), vec![true, true, false, false, true, false, true]);
        // Brute force on a grid of ties.
        let grid: Vec<(f64, f64)> = (0..49).map(|k| (f64::from(k % 7) / 7.0, f64::from((k * 3) % 5) / 5.0)).collect();
        let want: Vec<bool> =
            grid.iter().map(|a| !grid.iter().any(|b| b.0 >= a.0 && b.1 >= a.1 && (b.0 > a.0 || b.1 > a.1))).collect();
        assert_eq!(front(&grid), want);
    }

    struct Row(f64, f64, f64);
    impl Means for Row {
        fn mean(&self, name: &str) -> f64 {
            match name {
                "recall" => self.0,
                "precision" | "iou" => self.1,
                _ => self.2,
            }
        }
        fn embed_cost(&self) -> usize {
            0
        }
    }

    #[test]
    fn objectives_rank_and_refuse() {
        let mut rows = vec![Row(0.9, 0.05, 0.0), Row(0.8, 0.2, 0.0), Row(0.86, 0.1, 0.0), Row(0.5, 0.3, 0.0)];
        Objective::parse("recall>=0.85").unwrap().rank(&mut rows);
        assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), vec![0.86, 0.9, 0.8, 0.5]);
        Objective::parse("iou").unwrap().rank(&mut rows);
        assert_eq!(rows[0].0, 0.5);
        Objective::parse("f1").unwrap().rank(&mut rows);
        assert_eq!(rows[0].0, 0.5, "f1 of 0.5/0.3 is 0.375, of 0.8/0.2 is 0.32");
        for bad in ["recall>=", "recal>=0.5", "recall>=x", "speed", "recall>=inf"] {
            assert!(Objective::parse(bad).is_err(), "{bad}");
        }
    }
}
