//! UT Dallas value generalization hierarchies: interval trees and category maps.
//!
//! A VGH is a tree of intervals written in the XML (`[0:100)` -> `[0:50)` -> `[0:25)`). Raw values
//! are points: numbers as written, or the mapped integer of a category. A raw value's first
//! generalization is the first leaf, in breadth-first order, whose interval contains the point;
//! after that it climbs the tree. Labels are printed verbatim as written in the XML; a raw point is
//! printed `[` + Java `Double.toString(x)` + `]` (`[73.0]`). See `../shared/UTD-TOOLBOX.md` §4.
//!
//! Singleton leaves (`<node value='[0]'/>`, which hang the toolbox) are supported: such a leaf
//! coincides with the raw point, so it adds no level of its own ([`Vgh::path`] skips it and
//! [`Vgh::levels`] does not count it). "Leaves at equal depth" is measured the same way, so it
//! means exactly "every raw value has a path of [`Vgh::levels`] labels".
//!
//! The parser lives in `config::utd_xml`; this module holds the types and the interval logic.

/// An interval of the toolbox's notation: `[a:b]`, `[a:b)`, `(a:b]`, `(a:b)`, `[v]`, or `v`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
    pub low_closed: bool,
    pub high_closed: bool,
}

/// A VGH node: its label as written, its interval, its children.
#[derive(Debug, Clone, PartialEq)]
pub struct VghNode {
    pub label: String,
    pub interval: Interval,
    pub children: Vec<VghNode>,
}

/// A category map (`<map><entry cat='Female' int='0'/>...`): category -> integer.
/// Duplicate categories: the last one wins, as in the toolbox. Entries are kept in document
/// order and found through a hash index (a linear search made a map of 200,000 entries take
/// 76 s to read).
#[derive(Debug, Clone, Default)]
pub struct CategoryMap {
    /// Entries in document order (after duplicates were resolved).
    entries: Vec<(String, i64)>,
    /// Each category's position in `entries`.
    index: rustc_hash::FxHashMap<String, usize>,
}

impl PartialEq for CategoryMap {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

/// The VGH of one quasi-identifier.
///
/// A raw value's leaf is found through an index of the leaves built on first use
/// ([`LeafIndex`]): a search of the tree per distinct value made a flat VGH of a million leaves
/// with 20,000 distinct values run for minutes.
#[derive(Debug, Clone)]
pub struct Vgh {
    pub root: VghNode,
    /// Present for categorical attributes.
    pub map: Option<CategoryMap>,
    /// Built from `root` on first use.
    leaves: std::sync::OnceLock<LeafIndex>,
}

impl PartialEq for Vgh {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root && self.map == other.map
    }
}

/// Which leaf holds each point, for [`Vgh::leaf_chain`]: the first leaf in breadth-first order
/// whose interval contains it.
///
/// The leaves' distinct bounds `e_0 < ... < e_m-1` cut the line into pieces that no bound
/// splits: the gaps `(e_i-1, e_i)` (piece `2i`) and the bounds themselves (piece `2i + 1`);
/// every interval holds a piece whole or not at all. Each piece gets the first leaf, in
/// breadth-first order, that holds it (leaves paint their pieces in that order, skipping
/// painted ones with a union-find "next unpainted piece", so each piece is painted once). A
/// point is then a binary search among the bounds, and its chain of ancestors a walk up the
/// breadth-first parents: `O(log leaves + depth)` however many leaves the VGH has.
#[derive(Debug, Clone)]
pub(crate) struct LeafIndex {
    /// Per node in breadth-first order: its parent's position (`u32::MAX` for the root) and
    /// its position among the parent's children.
    up: Vec<(u32, u32)>,
    /// The leaves' distinct bounds, ascending (`-0.0` counted as `0.0`, NaN left out).
    bounds: Vec<f64>,
    /// Per piece: the breadth-first position of its leaf, `u32::MAX` if none holds it.
    piece: Vec<u32>,
}

impl LeafIndex {
    pub(crate) fn new(root: &VghNode) -> LeafIndex {
        // Breadth-first: (node, parent position, child position).
        let mut order: Vec<(&VghNode, u32, u32)> = vec![(root, u32::MAX, 0)];
        let mut head = 0;
        while head < order.len() {
            let node = order[head].0;
            for (i, c) in node.children.iter().enumerate() {
                order.push((c, head as u32, i as u32));
            }
            head += 1;
        }
        let leaves: Vec<(u32, &Interval)> = order
            .iter()
            .enumerate()
            .filter(|(_, (n, _, _))| n.is_leaf())
            .map(|(i, (n, _, _))| (i as u32, &n.interval))
            .filter(|(_, iv)| !iv.low.is_nan() && !iv.high.is_nan())
            .collect();
        let mut bounds: Vec<f64> = leaves
            .iter()
            .flat_map(|(_, iv)| [iv.low + 0.0, iv.high + 0.0])
            .collect();
        bounds.sort_by(f64::total_cmp);
        bounds.dedup();
        let mut piece = vec![u32::MAX; 2 * bounds.len() + 1];
        // next[p]: the first unpainted piece at or after p (union-find with path halving).
        let mut next: Vec<u32> = (0..=piece.len() as u32).collect();
        fn find(next: &mut [u32], mut p: u32) -> u32 {
            while next[p as usize] != p {
                next[p as usize] = next[next[p as usize] as usize];
                p = next[p as usize];
            }
            p
        }
        let at = |x: f64| bounds.partition_point(|&e| e < x + 0.0);
        for &(leaf, iv) in &leaves {
            let (i, j) = (at(iv.low), at(iv.high));
            let first = if iv.low_closed { 2 * i + 1 } else { 2 * i + 2 };
            let last = if iv.high_closed { 2 * j + 1 } else { 2 * j };
            if first > last {
                continue;
            }
            let mut p = find(&mut next, first as u32);
            while (p as usize) <= last {
                piece[p as usize] = leaf;
                next[p as usize] = p + 1;
                p = find(&mut next, p + 1);
            }
        }
        LeafIndex {
            up: order.iter().map(|&(_, p, c)| (p, c)).collect(),
            bounds,
            piece,
        }
    }

    /// The breadth-first position of the leaf of `x`, if any leaf holds it.
    pub(crate) fn leaf(&self, x: f64) -> Option<u32> {
        if x.is_nan() {
            return None;
        }
        let x = x + 0.0;
        let i = self.bounds.partition_point(|&e| e < x);
        let p = if self.bounds.get(i) == Some(&x) {
            2 * i + 1
        } else {
            2 * i
        };
        Some(self.piece[p]).filter(|&l| l != u32::MAX)
    }
}

impl Interval {
    /// Parses the toolbox's notation (see module docs). Errors: `Empty interval (...)!`-style text.
    ///
    /// `[a:b]`, `[a:b)`, `(a:b]`, `(a:b)` (bracket = inclusive), the singleton `[v]` (also `(v]`,
    /// `[v)`), and a bare number `v`; surrounding spaces are ignored; numbers follow Java's
    /// `Double.parseDouble`. `low > high`, `(a:a)`, `[a:a)`, `(a:a]` and `(v)` are empty.
    pub fn parse(s: &str) -> Result<Interval, String> {
        let t = s.trim();
        let open = t.as_bytes().first().copied();
        let close = t.as_bytes().last().copied();
        let bracketed = matches!(open, Some(b'[' | b'(')) && matches!(close, Some(b']' | b')'));
        if !bracketed {
            let v = number(t, s)?;
            return Ok(Interval::point(v));
        }
        let low_closed = open == Some(b'[');
        let high_closed = close == Some(b']');
        let inner = &t[1..t.len() - 1];
        let iv = match inner.split_once(':') {
            Some((a, b)) => Interval {
                low: number(a, s)?,
                high: number(b, s)?,
                low_closed,
                high_closed,
            },
            None => {
                if !low_closed && !high_closed {
                    return Err(format!("Empty interval ({t})!"));
                }
                Interval::point(number(inner, s)?)
            }
        };
        if iv.is_empty() {
            return Err(format!("Empty interval ({t})!"));
        }
        Ok(iv)
    }

    /// The closed singleton `[x]`.
    pub fn point(x: f64) -> Interval {
        Interval {
            low: x,
            high: x,
            low_closed: true,
            high_closed: true,
        }
    }

    /// True if the interval is a single point (`[v]`, `[v:v]`).
    pub fn is_singleton(&self) -> bool {
        self.low == self.high
    }

    /// True if no number lies in the interval (NaN bounds count as empty).
    pub fn is_empty(&self) -> bool {
        !(self.low < self.high || (self.low == self.high && self.low_closed && self.high_closed))
    }

    /// True if the point `x` lies in the interval.
    pub fn contains_point(&self, x: f64) -> bool {
        let above = self.low < x || (self.low_closed && self.low == x);
        let below = x < self.high || (self.high_closed && self.high == x);
        above && below
    }

    /// True if `other` lies within `self` (the toolbox's `Interval.contains`).
    pub fn contains(&self, other: &Interval) -> bool {
        let low_ok = self.low < other.low
            || (self.low == other.low && (self.low_closed || !other.low_closed));
        let high_ok = other.high < self.high
            || (self.high == other.high && (self.high_closed || !other.high_closed));
        low_ok && high_ok
    }
}

/// One bound of an interval, or a bare number, parsed like Java's `Double.parseDouble`.
fn number(text: &str, whole: &str) -> Result<f64, String> {
    crate::javafmt::parse_double(text).ok_or_else(|| {
        if text.trim() == whole.trim() {
            format!("'{}' is not a number or an interval", whole.trim())
        } else {
            format!(
                "'{}' in interval '{}' is not a number",
                text.trim(),
                whole.trim()
            )
        }
    })
}

impl CategoryMap {
    /// Adds `category -> int`; a duplicate category keeps its position and takes the new int
    /// (the last one wins, as in the toolbox).
    pub fn insert(&mut self, category: impl Into<String>, int: i64) {
        let category = category.into();
        match self.index.get(&category) {
            Some(&at) => self.entries[at].1 = int,
            None => {
                self.index.insert(category.clone(), self.entries.len());
                self.entries.push((category, int));
            }
        }
    }

    /// The integer of a (trimmed) category.
    pub fn get(&self, category: &str) -> Option<i64> {
        self.index
            .get(category.trim())
            .map(|&at| self.entries[at].1)
    }

    /// The entries in document order (a repeated category where it first appeared).
    pub fn entries(&self) -> &[(String, i64)] {
        &self.entries
    }

    /// Number of distinct categories.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if there are no categories.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl VghNode {
    /// True if the node has no children.
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }
}

impl Vgh {
    /// The VGH of the tree `root`, with a category map for a categorical attribute.
    pub fn new(root: VghNode, map: Option<CategoryMap>) -> Vgh {
        Vgh {
            root,
            map,
            leaves: std::sync::OnceLock::new(),
        }
    }

    /// The point of a raw field: trimmed; a category's mapped integer, or the parsed number.
    /// Errors name the problem (`unmapped category 'X'`, `'X' is not a number`).
    pub fn point(&self, raw: &str) -> Result<f64, String> {
        let value = raw.trim();
        match &self.map {
            Some(map) => map
                .get(value)
                .map(|i| i as f64)
                .ok_or_else(|| format!("unmapped category '{value}'")),
            None => crate::javafmt::parse_double(value)
                .ok_or_else(|| format!("'{value}' is not a number")),
        }
    }

    /// The first leaf, in breadth-first order, whose interval contains `x`, with the chain of
    /// its ancestors: `chain[0]` is the root, `chain.last()` the leaf.
    pub fn leaf_chain(&self, x: f64) -> Option<Vec<&VghNode>> {
        let index = self.leaves.get_or_init(|| LeafIndex::new(&self.root));
        let mut at = index.leaf(x)?;
        // The child positions from the leaf up, then down from the root.
        let mut steps = Vec::new();
        while index.up[at as usize].0 != u32::MAX {
            let (parent, child) = index.up[at as usize];
            steps.push(child as usize);
            at = parent;
        }
        let mut chain = vec![&self.root];
        for &child in steps.iter().rev() {
            let node = chain.last().expect("the root at least");
            chain.push(&node.children[child]);
        }
        Some(chain)
    }

    /// The labels of a point from level 0 to the root: level 0 is the raw point label
    /// ([`point_label`]), level 1 the first breadth-first leaf containing it (skipped when that
    /// leaf is a singleton, which then coincides with level 0), then its ancestors up to the
    /// root. `None` if no leaf contains the point. With leaves at equal depth every path has
    /// [`Vgh::levels`] labels.
    pub fn path(&self, x: f64) -> Option<Vec<String>> {
        let chain = self.leaf_chain(x)?;
        let leaf = chain.last().expect("a chain has its leaf");
        let mut labels = Vec::with_capacity(chain.len() + 1);
        labels.push(point_label(x));
        let skip_leaf = leaf.interval.is_singleton();
        let upto = if skip_leaf {
            chain.len() - 1
        } else {
            chain.len()
        };
        labels.extend(chain[..upto].iter().rev().map(|n| n.label.clone()));
        if labels.len() == 1 {
            // A singleton root: the whole VGH is one point, which is also its own root.
            labels.push(leaf.label.clone());
        }
        Some(labels)
    }

    /// Number of levels of the full-domain lattice including level 0 (the toolbox's
    /// "levels" + 1): the repo's age VGH (leaves at depth 2) has 4, `<vgh value='[0:1]'/>` has 2.
    ///
    /// Computed from the first leaf down the first-child chain: its depth + 2, or + 1 if it is a
    /// singleton (it coincides with the raw value). Meaningful when
    /// [`Vgh::leaves_at_equal_depth`] holds.
    pub fn levels(&self) -> usize {
        let mut node = &self.root;
        let mut depth = 0;
        while let Some(first) = node.children.first() {
            node = first;
            depth += 1;
        }
        effective_levels(node, depth)
    }

    /// True if all leaves are at the same depth (required by full-domain methods).
    ///
    /// A singleton leaf counts one level less deep, since it coincides with the raw value
    /// (see [`Vgh::path`]); so "equal depth" means exactly "every raw value has a path of
    /// [`Vgh::levels`] labels".
    pub fn leaves_at_equal_depth(&self) -> bool {
        self.first_unequal_leaf().is_none()
    }

    /// The first leaf (depth-first order) whose path length differs from the first leaf's, if
    /// any: `(its label, its levels, the first leaf's levels)`, for error messages.
    pub fn first_unequal_leaf(&self) -> Option<(&str, usize, usize)> {
        let want = self.levels();
        let mut stack = vec![(&self.root, 0usize)];
        while let Some((node, depth)) = stack.pop() {
            if node.is_leaf() {
                let got = effective_levels(node, depth);
                if got != want {
                    return Some((&node.label, got, want));
                }
            }
            for child in node.children.iter().rev() {
                stack.push((child, depth + 1));
            }
        }
        None
    }

    /// All nodes in breadth-first order with their depth (root first).
    pub fn nodes_breadth_first(&self) -> Vec<(&VghNode, usize)> {
        let mut out = vec![(&self.root, 0)];
        let mut head = 0;
        while head < out.len() {
            let (node, depth) = out[head];
            out.extend(node.children.iter().map(|c| (c, depth + 1)));
            head += 1;
        }
        out
    }

    /// The root's label: the suppression value.
    pub fn root_label(&self) -> &str {
        &self.root.label
    }
}

/// Levels of a path ending at `leaf` (at `depth`): raw value, leaf unless a singleton, ancestors.
fn effective_levels(leaf: &VghNode, depth: usize) -> usize {
    let own = if leaf.interval.is_singleton() { 0 } else { 1 };
    (1 + depth + own).max(2)
}

/// The printed form of a raw point: `[` + Java `Double.toString(x)` + `]`, e.g. `[73.0]`.
pub fn point_label(x: f64) -> String {
    format!("[{}]", crate::javafmt::double_to_string(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(label: &str, children: Vec<VghNode>) -> VghNode {
        VghNode {
            label: label.to_string(),
            interval: Interval::parse(label).unwrap(),
            children,
        }
    }

    fn leaf(label: &str) -> VghNode {
        node(label, vec![])
    }

    /// The census config's age VGH.
    fn age() -> Vgh {
        Vgh::new(
            node(
                "[0:100)",
                vec![
                    node("[0:50)", vec![leaf("[0:25)"), leaf("[25:50)")]),
                    node("[50:100)", vec![leaf("[50:75)"), leaf("[75:100)")]),
                ],
            ),
            None,
        )
    }

    fn sex() -> Vgh {
        let mut map = CategoryMap::default();
        map.insert("Female", 0);
        map.insert("Male", 1);
        Vgh::new(leaf("[0:1]"), Some(map))
    }

    fn iv(low: f64, high: f64, low_closed: bool, high_closed: bool) -> Interval {
        Interval {
            low,
            high,
            low_closed,
            high_closed,
        }
    }

    #[test]
    fn parses_interval_notation() {
        assert_eq!(Interval::parse("[0:100)"), Ok(iv(0.0, 100.0, true, false)));
        assert_eq!(Interval::parse("(0:1]"), Ok(iv(0.0, 1.0, false, true)));
        assert_eq!(
            Interval::parse("(-5.5:1e2)"),
            Ok(iv(-5.5, 100.0, false, false))
        );
        assert_eq!(Interval::parse(" [ 1 : 2 ] "), Ok(iv(1.0, 2.0, true, true)));
        assert_eq!(Interval::parse("[3:3]"), Ok(Interval::point(3.0)));
        assert_eq!(Interval::parse("[3]"), Ok(Interval::point(3.0)));
        assert_eq!(Interval::parse("(3]"), Ok(Interval::point(3.0)));
        assert_eq!(Interval::parse("[3)"), Ok(Interval::point(3.0)));
        assert_eq!(Interval::parse("7"), Ok(Interval::point(7.0)));
        assert_eq!(Interval::parse(" -7.25 "), Ok(Interval::point(-7.25)));
    }

    #[test]
    fn rejects_empty_and_malformed_intervals() {
        assert_eq!(
            Interval::parse("[5:1]"),
            Err("Empty interval ([5:1])!".into())
        );
        assert_eq!(
            Interval::parse("(2:2)"),
            Err("Empty interval ((2:2))!".into())
        );
        assert_eq!(
            Interval::parse("[2:2)"),
            Err("Empty interval ([2:2))!".into())
        );
        assert_eq!(Interval::parse("(2)"), Err("Empty interval ((2))!".into()));
        for bad in [
            "", "[]", "[:]", "[a:1]", "[1:b)", "abc", "[1:2:3]", "[1;2]", "{1:2}",
        ] {
            let e = Interval::parse(bad).unwrap_err();
            assert!(e.contains("not a number"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn point_membership_respects_brackets() {
        let i = Interval::parse("[0:25)").unwrap();
        assert!(i.contains_point(0.0));
        assert!(i.contains_point(24.999));
        assert!(!i.contains_point(25.0));
        assert!(!i.contains_point(-0.5));
        let j = Interval::parse("(0:1]").unwrap();
        assert!(!j.contains_point(0.0));
        assert!(j.contains_point(1.0));
        assert!(Interval::parse("[3]").unwrap().contains_point(3.0));
        assert!(!Interval::parse("[3]").unwrap().contains_point(3.5));
    }

    #[test]
    fn containment_is_the_toolbox_rule() {
        let p = |s: &str| Interval::parse(s).unwrap();
        assert!(p("[0:100)").contains(&p("[0:50)")));
        assert!(p("[0:100)").contains(&p("[50:100)")));
        assert!(p("[0:100)").contains(&p("(50:100)")));
        assert!(!p("[0:100)").contains(&p("[50:100]")));
        assert!(!p("(0:100)").contains(&p("[0:50)")));
        assert!(p("(0:100)").contains(&p("(0:50)")));
        assert!(p("[0:1]").contains(&p("[0]")));
        assert!(p("[0:1]").contains(&p("[1]")));
        assert!(!p("[0:1)").contains(&p("[1]")));
        assert!(!p("[0:10]").contains(&p("[5:11]")));
        assert!(p("[0:10]").contains(&p("[0:10]")));
    }

    #[test]
    fn category_map_trims_and_last_duplicate_wins() {
        let mut m = CategoryMap::default();
        m.insert("Male", 1);
        m.insert("Female", 0);
        m.insert("Male", 5);
        assert_eq!(m.get("  Male "), Some(5));
        assert_eq!(m.get("Female"), Some(0));
        assert_eq!(m.get("female"), None);
        assert_eq!(m.len(), 2);
        assert_eq!(m.entries()[0], ("Male".to_string(), 5));
    }

    #[test]
    fn census_age_path_climbs_the_tree() {
        let v = age();
        assert_eq!(v.levels(), 4);
        assert!(v.leaves_at_equal_depth());
        assert_eq!(v.point(" 73 "), Ok(73.0));
        assert_eq!(
            v.path(73.0).unwrap(),
            ["[73.0]", "[50:75)", "[50:100)", "[0:100)"]
        );
        assert_eq!(
            v.path(25.0).unwrap(),
            ["[25.0]", "[25:50)", "[0:50)", "[0:100)"]
        );
        assert_eq!(v.path(0.0).unwrap()[1], "[0:25)");
        assert_eq!(v.path(100.0), None);
        assert_eq!(v.path(-1.0), None);
        assert_eq!(v.point("x7"), Err("'x7' is not a number".into()));
        assert_eq!(v.root_label(), "[0:100)");
    }

    #[test]
    fn census_sex_has_two_levels() {
        let v = sex();
        assert_eq!(v.levels(), 2);
        assert!(v.leaves_at_equal_depth());
        assert_eq!(v.point("Male"), Ok(1.0));
        assert_eq!(v.point("Other"), Err("unmapped category 'Other'".into()));
        assert_eq!(v.path(1.0).unwrap(), ["[1.0]", "[0:1]"]);
        assert_eq!(v.path(0.0).unwrap(), ["[0.0]", "[0:1]"]);
    }

    #[test]
    fn first_breadth_first_leaf_wins() {
        // [0:10] has a deep leaf [0:5] (depth 2) and a shallow overlapping leaf [0:10) (depth 1):
        // breadth-first visits the shallow one first.
        let v = Vgh::new(
            node(
                "[0:20]",
                vec![
                    node("[0:10]", vec![leaf("[0:5]")]),
                    leaf("[0:10)"),
                    leaf("[10:20]"),
                ],
            ),
            None,
        );
        assert_eq!(v.path(3.0).unwrap(), ["[3.0]", "[0:10)", "[0:20]"]);
        assert_eq!(v.path(10.0).unwrap(), ["[10.0]", "[10:20]", "[0:20]"]);
        assert!(!v.leaves_at_equal_depth());
        assert_eq!(v.first_unequal_leaf(), Some(("[0:10)", 3, 4)));
    }

    #[test]
    fn singleton_leaves_coincide_with_raw_values() {
        let v = Vgh::new(node("[0:1]", vec![leaf("[0]"), leaf("[1]")]), None);
        assert_eq!(v.levels(), 2);
        assert!(v.leaves_at_equal_depth());
        assert_eq!(v.path(0.0).unwrap(), ["[0.0]", "[0:1]"]);
        assert_eq!(v.path(1.0).unwrap(), ["[1.0]", "[0:1]"]);

        // A singleton next to an interval leaf gives paths of different lengths.
        let mixed = Vgh::new(node("[0:2]", vec![leaf("[0]"), leaf("(0:2]")]), None);
        assert_eq!(mixed.path(0.0).unwrap().len(), 2);
        assert_eq!(mixed.path(1.5).unwrap().len(), 3);
        assert!(!mixed.leaves_at_equal_depth());

        let single = Vgh::new(leaf("[5]"), None);
        assert_eq!(single.levels(), 2);
        assert_eq!(single.path(5.0).unwrap(), ["[5.0]", "[5]"]);
    }

    #[test]
    fn equal_depth_paths_have_levels_labels() {
        let v = age();
        for x in 0..100 {
            assert_eq!(v.path(x as f64).unwrap().len(), v.levels());
        }
    }

    #[test]
    fn breadth_first_listing() {
        let v = age();
        let labels: Vec<_> = v
            .nodes_breadth_first()
            .iter()
            .map(|(n, d)| format!("{}@{d}", n.label))
            .collect();
        assert_eq!(
            labels,
            [
                "[0:100)@0",
                "[0:50)@1",
                "[50:100)@1",
                "[0:25)@2",
                "[25:50)@2",
                "[50:75)@2",
                "[75:100)@2"
            ]
        );
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn interval() -> impl Strategy<Value = Interval> {
        (-4i32..5, 0i32..5, any::<bool>(), any::<bool>())
            .prop_map(|(low, len, lc, hc)| Interval {
                low: low as f64,
                high: (low + len) as f64,
                low_closed: lc,
                high_closed: hc,
            })
            .prop_filter("non-empty", |i| !i.is_empty())
    }

    /// A tree of up to three levels of overlapping intervals with integer bounds.
    fn tree() -> impl Strategy<Value = VghNode> {
        let leaf = interval().prop_map(|iv| VghNode {
            label: String::new(),
            interval: iv,
            children: vec![],
        });
        leaf.prop_recursive(3, 40, 5, |inner| {
            (interval(), prop::collection::vec(inner, 1..5)).prop_map(|(iv, children)| VghNode {
                label: String::new(),
                interval: iv,
                children,
            })
        })
    }

    /// The first leaf in breadth-first order containing `x`, by a search of the whole tree
    /// (what [`Vgh::leaf_chain`] did before its index), as the chain of child positions.
    fn searched(root: &VghNode, x: f64) -> Option<Vec<usize>> {
        let mut seen: Vec<(&VghNode, Vec<usize>)> = vec![(root, vec![])];
        let mut head = 0;
        while head < seen.len() {
            let (node, path) = seen[head].clone();
            if node.is_leaf() && node.interval.contains_point(x) {
                return Some(path);
            }
            for (i, c) in node.children.iter().enumerate() {
                let mut p = path.clone();
                p.push(i);
                seen.push((c, p));
            }
            head += 1;
        }
        None
    }

    proptest! {
        /// The leaf index finds the leaf a search of the tree finds, for every half-integer
        /// point (bounds, gaps, outside every leaf) and for -0.0.
        #[test]
        fn leaf_index_finds_the_first_breadth_first_leaf(root in tree()) {
            let vgh = Vgh::new(root.clone(), None);
            let points = (-12..=20).map(|i| i as f64 / 2.0).chain([-0.0, f64::NAN]);
            for x in points {
                let got = vgh.leaf_chain(x).map(|chain| {
                    chain
                        .windows(2)
                        .map(|w| w[0].children.iter().position(|c| std::ptr::eq(c, w[1])).unwrap())
                        .collect::<Vec<usize>>()
                });
                prop_assert_eq!(got, searched(&root, x), "x = {}", x);
            }
        }

        /// `contains` is exactly set inclusion: checked on every half-integer point, which
        /// distinguishes all intervals with integer bounds.
        #[test]
        fn contains_is_set_inclusion(a in interval(), b in interval()) {
            let points: Vec<f64> = (-20..=20).map(|i| i as f64 / 2.0).collect();
            let inclusion = points
                .iter()
                .all(|&p| !b.contains_point(p) || a.contains_point(p));
            prop_assert_eq!(a.contains(&b), inclusion);
        }

        /// Writing an interval in the toolbox notation and parsing it gives it back.
        #[test]
        fn notation_round_trips(i in interval()) {
            let text = format!(
                "{}{}:{}{}",
                if i.low_closed { '[' } else { '(' },
                crate::javafmt::double_to_string(i.low),
                crate::javafmt::double_to_string(i.high),
                if i.high_closed { ']' } else { ')' },
            );
            let parsed = Interval::parse(&text).unwrap();
            if i.is_singleton() {
                prop_assert_eq!(parsed, Interval::point(i.low));
            } else {
                prop_assert_eq!(parsed, i);
            }
        }
    }
}
