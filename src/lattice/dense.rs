//! The dense property store: one byte of property bits per transformation, indexed by id.
//!
//! Queries are one load. Tagging walks the up-set (down-set) with an explicit stack and stops
//! at nodes that already have the bits: a tagged set is closed, so everything beyond such a node
//! has them too, and every node is written at most once per property over the whole search.

use super::{prop, NodeId, PropertyStore, Space, StoreSizes};

/// One property byte per transformation (see the module docs).
#[derive(Debug, Clone)]
pub struct Dense {
    space: Space,
    props: Vec<u8>,
    stack: Vec<NodeId>,
}

impl Dense {
    /// Largest space a dense store accepts: 2^31 transformations (2 GiB of property bytes).
    pub const MAX_SIZE: u64 = 1 << 31;
}

impl Dense {
    /// Sets `bits` on `id` and its up-set (`up`) or down-set, stopping where they are set.
    fn tag(&mut self, id: NodeId, bits: u8, up: bool) {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(id);
        while let Some(x) = stack.pop() {
            if self.props[x as usize] & bits == bits {
                continue;
            }
            self.props[x as usize] |= bits;
            let props = &self.props;
            let fresh = |n: &NodeId| props[*n as usize] & bits != bits;
            if up {
                stack.extend(self.space.successors(x).filter(fresh));
            } else {
                stack.extend(self.space.predecessors(x).filter(fresh));
            }
        }
        self.stack = stack;
    }
}

impl PropertyStore for Dense {
    fn for_space(space: &Space) -> Option<Dense> {
        (space.size() <= Self::MAX_SIZE).then(|| Dense {
            space: space.clone(),
            props: vec![0; space.size() as usize],
            stack: Vec::new(),
        })
    }

    #[inline]
    fn has(&self, id: NodeId, bits: u8) -> bool {
        self.props[id as usize] & bits != 0
    }

    fn tag_up(&mut self, id: NodeId, bits: u8) {
        debug_assert_eq!(bits & !prop::UP, 0, "tag_up sets up-closed properties only");
        self.tag(id, bits, true);
    }

    fn tag_down(&mut self, id: NodeId, bits: u8) {
        debug_assert_eq!(
            bits & !prop::DOWN,
            0,
            "tag_down sets down-closed properties only"
        );
        self.tag(id, bits, false);
    }

    fn sizes(&self) -> StoreSizes {
        let count = |bit: u8| self.props.iter().filter(|&&p| p & bit != 0).count() as u64;
        StoreSizes {
            anonymous: count(prop::ANONYMOUS),
            not_anonymous: count(prop::NOT_ANONYMOUS),
            pruned: count(prop::PRUNED),
        }
    }

    fn name(&self) -> &'static str {
        "dense"
    }
}
