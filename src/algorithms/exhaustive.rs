//! Exhaustive search: checks every transformation. The test oracle (with the plain checker it
//! shares no optimization with Flash or OLA).

use super::search::Search;
use crate::lattice::PropertyStore;

/// Checks every transformation, in id order (consecutive ids are often roll-ups).
pub fn classify<S: PropertyStore>(search: &mut Search<'_, S>) {
    for id in 0..search.space().size() {
        if search.out_of_time() {
            return;
        }
        search.check(id);
    }
}
