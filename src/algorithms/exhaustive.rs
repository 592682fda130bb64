//! Exhaustive search: checks every transformation. The test oracle (with the plain checker it
//! shares no optimization with Flash or OLA).

use super::search::Search;
use crate::lattice::NodeId;

/// Checks every transformation, in id order (consecutive ids are often roll-ups).
pub fn classify(search: &mut Search<'_>) {
    for id in 0..search.lattice.size() as NodeId {
        search.check(id);
    }
}
