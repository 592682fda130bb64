//! The two property stores answer alike; the antichains keep only extreme elements.

use proptest::prelude::{prop_assert_eq, proptest, Just, ProptestConfig, Strategy};

use super::*;

/// The example lattice of the Flash paper: heights 3, 2, 6.
fn example() -> Space {
    Space::new(
        &[2, 1, 5],
        &[vec![4, 2, 1], vec![2, 1], vec![4, 4, 2, 1, 1, 1]],
    )
    .unwrap()
}

fn stores_cover_closed_sets<S: PropertyStore>() {
    let space = example();
    let mut s = S::for_space(&space).unwrap();
    let x = space.id(&[1, 0, 2]);
    s.tag_up(x, prop::ANONYMOUS);
    for id in 0..space.size() {
        assert_eq!(s.has(id, prop::ANONYMOUS), space.generalizes(id, x), "{id}");
        assert!(!s.has(id, prop::PRUNED | prop::NOT_ANONYMOUS));
    }
    let y = space.id(&[1, 1, 1]);
    s.tag_down(y, prop::NOT_ANONYMOUS);
    for id in 0..space.size() {
        assert_eq!(s.has(id, prop::NOT_ANONYMOUS), space.generalizes(y, id));
    }
}

#[test]
fn dense_tagging_covers_closed_sets() {
    stores_cover_closed_sets::<Dense>();
}

#[test]
fn antichain_tagging_covers_closed_sets() {
    stores_cover_closed_sets::<Antichain>();
}

#[test]
fn spaces_beyond_u32_have_ids() {
    // 20 dimensions of 4 levels: 4^20 = 1.1e12 transformations; only the antichain store fits.
    let space = Space::new(&[3; 20], &vec![vec![8, 4, 2, 1]; 20]).unwrap();
    assert_eq!(space.size(), 1 << 40);
    assert!(Dense::for_space(&space).is_none());
    let mut s = Antichain::for_space(&space).unwrap();
    let top = space.top();
    assert_eq!(space.levels(top), vec![3; 20]);
    let mid = space.id(&[1; 20]);
    s.tag_up(mid, prop::ANONYMOUS);
    assert!(s.has(top, prop::ANONYMOUS));
    assert!(!s.has(space.bottom(), prop::ANONYMOUS));
    assert!(s.has(
        mid + space.id(&{
            let mut v = [0; 20];
            v[19] = 2;
            v
        }),
        prop::ANONYMOUS
    ));
}

/// A random space of 1-4 dimensions with heights 1-4, and a sequence of tag operations.
fn space_and_ops() -> impl Strategy<Value = (Vec<usize>, Vec<(u8, u64)>)> {
    proptest::collection::vec(0usize..4, 1..5).prop_flat_map(|max| {
        let size: u64 = max.iter().map(|&m| m as u64 + 1).product();
        let ops = proptest::collection::vec((0u8..3, 0..size), 0..40);
        (Just(max), ops)
    })
}

fn space_of(max: &[usize]) -> Space {
    let distinct: Vec<Vec<usize>> = max
        .iter()
        .map(|&m| (0..=m).rev().map(|l| l + 1).collect())
        .collect();
    Space::new(max, &distinct).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// After any sequence of tags, both stores answer every query identically, and both equal
    /// the closure of the tags computed by brute force.
    #[test]
    fn dense_and_antichain_agree((max, ops) in space_and_ops()) {
        let space = space_of(&max);
        let mut dense = Dense::for_space(&space).unwrap();
        let mut anti = Antichain::for_space(&space).unwrap();
        let mut tags: Vec<(u8, u64)> = Vec::new();
        for &(kind, id) in &ops {
            match kind {
                0 => { dense.tag_up(id, prop::ANONYMOUS); anti.tag_up(id, prop::ANONYMOUS); }
                1 => { dense.tag_up(id, prop::PRUNED); anti.tag_up(id, prop::PRUNED); }
                _ => { dense.tag_down(id, prop::NOT_ANONYMOUS); anti.tag_down(id, prop::NOT_ANONYMOUS); }
            }
            tags.push((kind, id));
            for q in 0..space.size() {
                for bits in [prop::ANONYMOUS, prop::PRUNED, prop::NOT_ANONYMOUS, prop::RESOLVED, prop::UP] {
                    let expect = tags.iter().any(|&(k, t)| {
                        let bit = [prop::ANONYMOUS, prop::PRUNED, prop::NOT_ANONYMOUS][k as usize];
                        bits & bit != 0
                            && if k < 2 { space.generalizes(q, t) } else { space.generalizes(t, q) }
                    });
                    prop_assert_eq!(dense.has(q, bits), expect, "dense {:?} bits {}", space.levels(q), bits);
                    prop_assert_eq!(anti.has(q, bits), expect, "antichain {:?} bits {}", space.levels(q), bits);
                }
            }
        }
    }

    /// A minimal set holds exactly the minimal elements of what was inserted.
    #[test]
    fn minimal_set_keeps_an_antichain(
        points in proptest::collection::vec(proptest::collection::vec(0u8..4, 3), 0..40)
    ) {
        let mut set = MinimalSet::new(3);
        for p in &points {
            let covered_before = points.iter().take_while(|q| !std::ptr::eq(*q, p)).any(|q| le(q, p));
            prop_assert_eq!(set.insert(p), !covered_before);
        }
        let le_any = |p: &Vec<u8>| points.iter().any(|q| le(q, p) && q != p);
        let mut minimal: Vec<Vec<u8>> = points.iter().filter(|p| !le_any(p)).cloned().collect();
        minimal.sort();
        minimal.dedup();
        prop_assert_eq!(set.elements(), minimal.clone());
        prop_assert_eq!(set.len() as usize, minimal.len());
    }
}

fn le(a: &[u8], b: &[u8]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y)
}
