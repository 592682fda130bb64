//! The roll-up transition: the previous check's classes merged into those of a target that
//! generalizes them. Each class's key moves to the target levels (with projection: only the
//! changed columns, using its representative row; see `steps`) and is inserted with its count;
//! the classes' distributions and cached verdicts merge with them.

use super::engine::Engine;
use super::groupify::{merge_slots, Groups};
use super::steps::step_key;

impl<const W: usize> Engine<'_, W> {
    /// Merges the current classes into those of `levels`, which generalizes them; false if it
    /// stopped at the class limit.
    pub(super) fn rollup(&mut self, levels: &[usize]) -> bool {
        let from = self.groups.levels.clone().expect("roll-up needs classes");
        let (enc, projection) = (&self.s.enc, self.s.config.projection);
        self.steps.plan(enc, projection, Some(&from), levels);
        let use_deltas = self.steps.plan_deltas(enc, self.groups.len());
        let track = !self.s.criteria.slots.is_empty();
        let scratch_start = self.s.config.projection;
        let n = self.groups.len();
        self.stats.cells += (n * self.steps.list.len()) as u64;
        if let Some(team) = self.team.clone().filter(|_| n >= self.s.config.team_items) {
            // The spare table's buffers take the result.
            let spare = std::mem::replace(&mut self.spare, Groups::new(0));
            let src = std::mem::replace(&mut self.groups, spare);
            let keys = &src.keys;
            let start_key = |e: usize| if scratch_start { keys[e] } else { [0; W] };
            let from = track.then(|| (&src.dist[..], &src.verdict[..]));
            let done = self.regroup_split(
                levels,
                &src.counts,
                &src.reps,
                &start_key,
                from,
                use_deltas,
                &team,
            );
            self.spare = src;
            return done;
        }
        self.stats.items += n as u64;
        // Field by field: the tables are written while the columns are read.
        let (enc, steps) = (&self.s.enc, &self.steps.list);
        let cols = self.steps.resolve(enc, use_deltas);
        if !track {
            // No distributions to merge: in place (see `Groups::regroup`).
            return self.groups.regroup(self.s.class_limit, |key, rep| {
                if !scratch_start {
                    *key = [0; W];
                }
                step_key(enc, steps, &cols, use_deltas, key, rep as usize);
            });
        }
        let src = &self.groups;
        let dst = &mut self.spare;
        dst.reset(n);
        self.targets.clear();
        for e in 0..n {
            let rep = src.reps[e];
            let mut key = if scratch_start { src.keys[e] } else { [0; W] };
            step_key(enc, steps, &cols, use_deltas, &mut key, rep as usize);
            let t = dst.insert(key, src.counts[e], rep);
            if t as usize >= self.s.class_limit {
                return false;
            }
            self.targets.push(t);
        }
        merge_slots(
            dst,
            &src.dist,
            &src.verdict,
            &self.targets,
            &self.s.domains,
            &mut self.merge_buffers,
            !self.s.criteria.evaluated.is_empty(),
        );
        std::mem::swap(&mut self.groups, &mut self.spare);
        true
    }
}
