//! Mondrian on the store: cut by streaming passes while a class is too large for memory, then
//! finish each class in memory.
//!
//! A class is always a box in rank space (every cut is `rank <= median` on one dimension), so a
//! class on the store is a leaf of the tree of cuts made so far, and a tuple finds its class by
//! walking down that tree: no row is ever rewritten to say where it belongs. Each *pass* reads
//! every distinct tuple once (its ranks and record count, from a working copy, see below) and:
//! - for every class still on the store, adds the tuple to a histogram per dimension (records
//!   and tuples per rank); after the pass each such class is cut exactly as the in-memory code
//!   would cut it (median, allowable cut, widths: [`choose_cut`]) from its histograms. A half
//!   with at most `memory_tuples` tuples goes to memory, a larger one stays on the store for the
//!   next pass;
//! - collects the tuples of the next batch of classes bound for memory (together at most
//!   `memory_tuples` tuples); after the pass each of them is finished by the in-memory code
//!   ([`MemoryPartitioner`], [`split_from`]) starting from its bounds.
//!
//! The toolbox numbers final classes in first-in, first-out order, i.e. by depth, then by the
//! sides taken ([`Path`]); classes found partition by partition are sorted by their path at the
//! end, so every backend gives the same ids, labels and tuple classes as the in-memory run.
//!
//! The working copy: the first pass reads `QidTuple` (in key order); when more than one pass is
//! needed it also writes each tuple's ranks and count to an anonymous temporary file (unlinked
//! as soon as it is created, like the store's), which the later passes read sequentially. At
//! the end `QidTuple.EquivalenceID` is written in one rebuild of the table
//! ([`Store::write_tuple_classes`]), never one row at a time.
//!
//! Cost, for T distinct tuples, n records, D dimensions and a memory budget of M tuples
//! ([`MEMORY_TUPLES`]): when T <= M, one pass and the in-memory algorithm (`O(T)` per level of
//! cuts, `O(T log(n/k))` in all). Otherwise about `log2(T/M)` passes cut on the store, then
//! about `2T/M` passes finish the classes in memory batches: `O(T · (log(T/M) + T/M))` reading
//! (sequential, `4D + 8` bytes a tuple) plus the in-memory work. Memory: one class id per tuple
//! (4T bytes), the batch in memory (about `4D + 24` bytes a tuple, at most M tuples), one
//! histogram per class on the store (16 bytes per distinct value and dimension), and the final
//! classes (about `24D + 40` bytes each, n/k at the most).

use std::io::{BufReader, BufWriter, Read, Seek, Write};

use super::{
    check_final_size, choose_cut, median_count, split_from, Bound, Dimension, MemoryPartitioner,
    Partitioner, Path, Start,
};
use crate::algorithms::tuples::{Backend, MEMORY_TUPLES};
use crate::algorithms::StepObserver;
use crate::store::Store;
use crate::{Error, Result};

/// The largest class (in distinct tuples) finished in memory for a backend.
pub fn memory_tuples(backend: Backend) -> u64 {
    match backend {
        Backend::Auto => MEMORY_TUPLES,
        Backend::Memory => u64::MAX,
        Backend::Sql => 0,
        Backend::Hybrid(m) => m,
    }
}

/// The final classes, numbered by path: ids from 1, sizes, bounds, and the class of each tuple
/// (in `QidTuple` key order).
#[derive(Debug, Default)]
pub struct Classes {
    /// `bounds[(eid - 1) * dims..][..dims]`.
    pub bounds: Vec<Bound>,
    pub sizes: Vec<u64>,
    /// `tuple_class[t]`: the id of tuple `t`'s class.
    pub tuple_class: Vec<u32>,
    /// Passes over the tuples, and how many of them cut classes on the store.
    pub passes: u64,
    pub store_passes: u64,
}

/// A leaf or a cut of the tree of cuts made on the store.
#[derive(Debug, Clone, Copy)]
enum Node {
    Split {
        dim: usize,
        median: u32,
        left: u32,
        right: u32,
    },
    /// A class still on the store (index into the pending classes of this pass).
    Store(u32),
    /// A class bound for memory (index into the memory queue).
    Memory(u32),
    /// A final class cut on the store (provisional id); its tuples get it on the next pass.
    Final(u32),
    /// A class finished in memory: its tuples have their classes.
    Done,
}

/// A class and the number of its distinct tuples.
struct Part {
    start: Start,
    tuples: u64,
    node: u32,
}

/// Final classes in the order they were found (provisional ids).
#[derive(Default)]
struct Finals {
    dims: usize,
    bounds: Vec<Bound>,
    sizes: Vec<u64>,
    paths: Vec<Path>,
}

impl Finals {
    fn push(&mut self, s: Start) -> u32 {
        debug_assert_eq!(s.bounds.len(), self.dims);
        self.bounds.extend_from_slice(&s.bounds);
        self.sizes.push(s.size);
        self.paths.push(s.path);
        self.sizes.len() as u32 - 1
    }
}

/// Histograms of one class on the store: per dimension and rank, (records, tuples).
type Histograms = Vec<Vec<(u64, u64)>>;

/// Runs Mondrian over `QidTuple` (`rank_of_code[d][code]`: the rank of each code), finishing
/// classes of at most `memory` tuples in memory (see the module docs).
pub fn partition(
    store: &Store,
    dims: &[Dimension],
    rank_of_code: &[Vec<u32>],
    k: u64,
    memory: u64,
    observer: &mut dyn StepObserver,
) -> Result<Classes> {
    let d = dims.len();
    let records = store.tuple_records()?;
    let tuples = store.tuple_count()?;
    let mut source = Source::new(store, rank_of_code, tuples > memory)?;
    let mut tree: Vec<Node> = Vec::new();
    let mut store_parts: Vec<Part> = Vec::new();
    let mut memory_parts: Vec<Part> = Vec::new();
    let root = Part {
        start: Start::root(dims, records),
        tuples,
        node: 0,
    };
    if tuples > memory {
        tree.push(Node::Store(0));
        store_parts.push(root);
    } else {
        tree.push(Node::Memory(0));
        memory_parts.push(root);
    }
    let mut finals = Finals {
        dims: d,
        ..Finals::default()
    };
    let mut tuple_class = vec![u32::MAX; tuples as usize];
    let mut next_memory = 0usize;
    let mut unswept = false;
    let (mut passes, mut store_passes) = (0u64, 0u64);
    loop {
        // The next memory batch: at most `memory` tuples, at least one class.
        let mut batch_end = next_memory;
        let mut batch_tuples = 0u64;
        while batch_end < memory_parts.len()
            && (batch_end == next_memory || batch_tuples + memory_parts[batch_end].tuples <= memory)
        {
            batch_tuples += memory_parts[batch_end].tuples;
            batch_end += 1;
        }
        if store_parts.is_empty() && batch_end == next_memory && !unswept {
            break;
        }
        passes += 1;
        if !store_parts.is_empty() {
            store_passes += 1;
        }
        observer.step(&format!(
            "Mondrian: pass {passes}, {} classes on the store, {} in memory",
            store_parts.len(),
            batch_end - next_memory
        ));
        let mut hists: Vec<Histograms> = store_parts
            .iter()
            .map(|_| dims.iter().map(|x| vec![(0, 0); x.points.len()]).collect())
            .collect();
        let mut batch: Vec<Batch> = (next_memory..batch_end)
            .map(|m| Batch::new(d, memory_parts[m].tuples))
            .collect();
        source.pass(&mut |t, ranks, count| {
            let mut n = 0usize;
            loop {
                match tree[n] {
                    Node::Split {
                        dim,
                        median,
                        left,
                        right,
                    } => n = if ranks[dim] <= median { left } else { right } as usize,
                    Node::Store(p) => {
                        for (h, &r) in hists[p as usize].iter_mut().zip(ranks) {
                            let e = &mut h[r as usize];
                            e.0 += count;
                            e.1 += 1;
                        }
                        break;
                    }
                    Node::Memory(m) => {
                        let m = m as usize;
                        if (next_memory..batch_end).contains(&m) {
                            batch[m - next_memory].push(t, ranks, count);
                        }
                        break;
                    }
                    Node::Final(f) => {
                        tuple_class[t] = f;
                        break;
                    }
                    Node::Done => break,
                }
            }
        })?;
        unswept = false;

        // Finish the batch in memory.
        for (b, m) in batch.into_iter().zip(next_memory..batch_end) {
            let part = &memory_parts[m];
            let (mut mp, global) = b.into_partitioner();
            let all = (0, global.len());
            split_from(
                dims,
                part.start.clone(),
                all,
                k,
                &mut mp,
                None,
                &mut |s, class, mp| {
                    let f = finals.push(s);
                    mp.finalize(class, f)
                },
            )?;
            for (&g, &f) in global.iter().zip(&mp.into_eids()) {
                tuple_class[g as usize] = f;
            }
            tree[part.node as usize] = Node::Done;
        }
        next_memory = batch_end;

        // Cut the classes on the store.
        let mut next_store = Vec::new();
        for (part, hist) in store_parts.drain(..).zip(hists) {
            let s = &part.start;
            let cut = choose_cut(dims, &s.bounds, s.size, k, |dim| {
                Ok(median_of(&hist[dim], s.size))
            })?;
            let Some((dim, median, left)) = cut else {
                check_final_size(s.size, k)?;
                tree[part.node as usize] = Node::Final(finals.push(part.start));
                unswept = true;
                continue;
            };
            let left_tuples: u64 = hist[dim][..=median as usize].iter().map(|e| e.1).sum();
            let (l, r) = s.halves(dims, dim, median, left);
            let mut child = |start: Start, n: u64| -> u32 {
                let node = tree.len() as u32;
                let p = Part {
                    start,
                    tuples: n,
                    node,
                };
                if n > memory {
                    tree.push(Node::Store(next_store.len() as u32));
                    next_store.push(p);
                } else {
                    tree.push(Node::Memory(memory_parts.len() as u32));
                    memory_parts.push(p);
                }
                node
            };
            let left_node = child(l, left_tuples);
            let right_node = child(r, part.tuples - left_tuples);
            tree[part.node as usize] = Node::Split {
                dim,
                median,
                left: left_node,
                right: right_node,
            };
        }
        store_parts = next_store;
    }
    if tuple_class.contains(&u32::MAX) {
        return Err(Error::Invalid(
            "internal error: Mondrian left a tuple without a class".into(),
        ));
    }

    // Number the classes in the toolbox's order (by path).
    let mut order: Vec<u32> = (0..finals.sizes.len() as u32).collect();
    order.sort_by(|&a, &b| finals.paths[a as usize].cmp(&finals.paths[b as usize]));
    let mut eid_of = vec![0u32; order.len()];
    for (i, &f) in order.iter().enumerate() {
        eid_of[f as usize] = i as u32 + 1;
    }
    for c in &mut tuple_class {
        *c = eid_of[*c as usize];
    }
    let mut out = Classes {
        bounds: Vec::with_capacity(finals.bounds.len()),
        sizes: Vec::with_capacity(order.len()),
        tuple_class,
        passes,
        store_passes,
    };
    for &f in &order {
        let f = f as usize;
        out.bounds
            .extend_from_slice(&finals.bounds[f * d..(f + 1) * d]);
        out.sizes.push(finals.sizes[f]);
    }
    Ok(out)
}

/// The smallest rank with at least half the class's records at or below it, and those records.
fn median_of(hist: &[(u64, u64)], size: u64) -> (u32, u64) {
    let target = median_count(size);
    let mut cum = 0u64;
    for (r, &(n, _)) in hist.iter().enumerate() {
        cum += n;
        if cum >= target {
            return (r as u32, cum);
        }
    }
    unreachable!("a class's histogram holds its records")
}

/// The tuples of one class bound for memory, collected during a pass.
struct Batch {
    ranks: Vec<Vec<u32>>,
    counts: Vec<u64>,
    global: Vec<u32>,
}

impl Batch {
    fn new(dims: usize, tuples: u64) -> Batch {
        let n = tuples as usize;
        Batch {
            ranks: (0..dims).map(|_| Vec::with_capacity(n)).collect(),
            counts: Vec::with_capacity(n),
            global: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, t: usize, ranks: &[u32], count: u64) {
        for (col, &r) in self.ranks.iter_mut().zip(ranks) {
            col.push(r);
        }
        self.counts.push(count);
        self.global.push(t as u32);
    }

    fn into_partitioner(self) -> (MemoryPartitioner, Vec<u32>) {
        (MemoryPartitioner::new(self.ranks, self.counts), self.global)
    }
}

/// Where passes read the tuples: `QidTuple` for the first, then the working copy.
struct Source<'a> {
    store: &'a Store,
    rank_of_code: &'a [Vec<u32>],
    /// Write a working copy on the first pass (more passes will follow).
    copy: bool,
    file: Option<std::fs::File>,
}

impl<'a> Source<'a> {
    fn new(store: &'a Store, rank_of_code: &'a [Vec<u32>], copy: bool) -> Result<Source<'a>> {
        Ok(Source {
            store,
            rank_of_code,
            copy,
            file: None,
        })
    }

    /// Calls `f(tuple, ranks, count)` for every tuple in key order.
    fn pass(&mut self, f: &mut dyn FnMut(usize, &[u32], u64)) -> Result<()> {
        let d = self.rank_of_code.len();
        let temp = std::env::temp_dir();
        let io_err = |e| Error::io(&temp, e);
        if let Some(file) = &mut self.file {
            file.rewind().map_err(io_err)?;
            let mut r = BufReader::with_capacity(1 << 20, &*file);
            let mut buf = vec![0u8; 4 * d + 8];
            let mut ranks = vec![0u32; d];
            let mut t = 0usize;
            loop {
                match r.read_exact(&mut buf) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                    Err(e) => return Err(io_err(e)),
                }
                for (q, rank) in ranks.iter_mut().enumerate() {
                    *rank = u32::from_le_bytes(buf[4 * q..4 * q + 4].try_into().unwrap());
                }
                let count = u64::from_le_bytes(buf[4 * d..].try_into().unwrap());
                f(t, &ranks, count);
                t += 1;
            }
            return Ok(());
        }
        let mut out = if self.copy {
            Some(BufWriter::with_capacity(
                1 << 20,
                tempfile::tempfile().map_err(io_err)?,
            ))
        } else {
            None
        };
        let mut ranks = vec![0u32; d];
        let mut t = 0usize;
        self.store
            .for_each_tuple_count_in_key_order(|codes, count| {
                for ((rank, &code), of_code) in ranks.iter_mut().zip(codes).zip(self.rank_of_code) {
                    *rank = of_code[code as usize];
                }
                if let Some(w) = &mut out {
                    for r in &ranks {
                        w.write_all(&r.to_le_bytes()).map_err(io_err)?;
                    }
                    w.write_all(&count.to_le_bytes()).map_err(io_err)?;
                }
                f(t, &ranks, count);
                t += 1;
                Ok(())
            })?;
        if let Some(w) = out {
            self.file = Some(w.into_inner().map_err(|e| io_err(e.into_error()))?);
        }
        Ok(())
    }
}
