//! The labels the writers read from the store ([`StoreLabels`], a [`LabelSource`]).

use super::{SqlContext, Store};
use crate::data::{LabelRow, LabelSource};
use crate::hierarchy::Hierarchy;
use crate::{Error, Result};

impl Store {
    /// The generalized labels of every record, in record (input) order.
    pub fn labels(&self) -> StoreLabels<'_> {
        StoreLabels {
            store: self,
            full_domain: None,
        }
    }

    /// [`Self::labels`] of a full-domain result: `levels` of `hierarchies` (one per
    /// quasi-identifier, over the store's codes). When the load kept no record's tuple (the
    /// tuple counter spilled), a record's class is found from its generalized codes rather than
    /// by joining it to `QidTuple` in SQL.
    pub fn full_domain_labels<'a>(
        &'a self,
        hierarchies: Vec<&'a Hierarchy>,
        levels: &'a [usize],
    ) -> StoreLabels<'a> {
        StoreLabels {
            store: self,
            full_domain: Some((hierarchies, levels)),
        }
    }
}

/// [`LabelSource`] over the store: each record (in `RecordID` order) through its tuple in
/// `QidTuple` to its class in `EquivalenceTable`.
///
/// When the load counted the tuples in memory (the usual case) it kept each record's tuple as
/// a position in `QidTuple`'s key order (4 bytes a record): the classes' labels and each tuple's
/// class (4 bytes a tuple) are read into memory, and a record's labels are two array lookups,
/// with no pass over `AnonRecordTable`. Otherwise SQL joins each record to its tuple and class
/// (bounded memory, several times slower).
pub struct StoreLabels<'a> {
    store: &'a Store,
    /// A full-domain result's hierarchies and levels (see [`Store::full_domain_labels`]).
    full_domain: Option<(Vec<&'a Hierarchy>, &'a [usize])>,
}

impl StoreLabels<'_> {
    /// True if records find their classes in memory.
    pub fn in_memory(&self) -> Result<bool> {
        let s = self.store;
        Ok(s.record_tuple.is_some() && s.tuple_memory > 0)
    }

    /// The classes' labels (`EquivalenceTable`), and each class's position among them.
    fn class_labels(&self) -> Result<ClassLabels> {
        let s = self.store;
        let l = s.layout();
        let n = l.qids.len();
        let db = &s.path;
        let mut labels: Vec<LabelRow> = Vec::new();
        let mut class_at: rustc_hash::FxHashMap<i64, u32> = Default::default();
        let sql = format!(
            "SELECT EquivalenceID, {} FROM EquivalenceTable",
            l.qids.join(", ")
        );
        let mut stmt = s.conn.prepare(&sql).ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        while let Some(r) = rows.next().ctx(db)? {
            let mut row = LabelRow::new();
            for i in 0..n {
                let v = r.get_ref(i + 1).ctx(db)?;
                row.push(v.as_bytes().map_err(|e| Error::sqlite(db, e.into()))?);
            }
            class_at.insert(r.get(0).ctx(db)?, labels.len() as u32);
            labels.push(row);
        }
        Ok(ClassLabels { labels, class_at })
    }

    /// Without each record's tuple (the load's tuple counter spilled): a hash join in passes.
    /// The tuples are split by the hash of their codes into parts of at most
    /// [`Store::set_label_pass_tuples`] tuples; per part, one pass over `QidTuple` puts the part's
    /// tuples and classes in a table in memory (about `4 * width + 10` bytes a tuple) and one pass
    /// over `AnonRecordTable` (record order) gives its records their class, in an array of
    /// 4 bytes a record. Then the records' labels in order. Every pass is sequential: a join by
    /// index lookups cost a random read per record (20 M records: ten minutes).
    fn by_passes(&self, f: &mut dyn FnMut(&LabelRow) -> Result<()>) -> Result<()> {
        let s = self.store;
        let l = s.layout();
        let w = l.qids.len();
        let db = &s.path;
        let cols = l.qids.join(", ");
        let classes_of = self.class_labels()?;
        let count = |table: &str| -> Result<u64> {
            s.conn
                .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| {
                    r.get::<_, i64>(0)
                })
                .ctx(db)
                .map(|n| n as u64)
        };
        let (tuples, records) = (count("QidTuple")?, count("AnonRecordTable")?);
        let parts = tuples.div_ceil(s.label_pass_tuples.max(1) as u64).max(1);
        let hasher = rustc_hash::FxBuildHasher;
        let mut record_class = vec![u32::MAX; records as usize];
        let mut codes: Vec<u32> = Vec::new();
        let mut classes: Vec<u32> = Vec::new();
        let mut table: hashbrown::HashTable<u32> = hashbrown::HashTable::new();
        let mut key = vec![0u32; w];
        let read = |r: &rusqlite::Row<'_>, start: usize, key: &mut [u32]| -> Result<u64> {
            for (q, k) in key.iter_mut().enumerate() {
                *k = r.get::<_, i64>(start + q).ctx(db)? as u32;
            }
            Ok(std::hash::BuildHasher::hash_one(&hasher, &*key))
        };
        for part in 0..parts {
            let mine = |h: u64| (h >> 32) % parts == part;
            codes.clear();
            classes.clear();
            table.clear();
            let mut stmt = s
                .conn
                .prepare(&format!("SELECT EquivalenceID, {cols} FROM QidTuple"))
                .ctx(db)?;
            let mut rows = stmt.query([]).ctx(db)?;
            while let Some(r) = rows.next().ctx(db)? {
                let h = read(r, 1, &mut key)?;
                if !mine(h) {
                    continue;
                }
                let class = classes_of.of_tuple(r.get(0).ctx(db)?)?;
                let t = classes.len() as u32;
                codes.extend_from_slice(&key);
                classes.push(class);
                let arena = &codes;
                table.insert_unique(h, t, |&t| {
                    let t = t as usize;
                    std::hash::BuildHasher::hash_one(&hasher, &arena[t * w..(t + 1) * w])
                });
            }
            let mut stmt = s
                .conn
                .prepare(&format!(
                    "SELECT {cols} FROM AnonRecordTable ORDER BY RecordID"
                ))
                .ctx(db)?;
            let mut rows = stmt.query([]).ctx(db)?;
            let mut i = 0usize;
            while let Some(r) = rows.next().ctx(db)? {
                let h = read(r, 0, &mut key)?;
                if mine(h) {
                    let found = table.find(h, |&t| {
                        let t = t as usize;
                        codes[t * w..(t + 1) * w] == key[..]
                    });
                    if let (Some(&t), Some(slot)) = (found, record_class.get_mut(i)) {
                        *slot = classes[t as usize];
                    }
                }
                i += 1;
            }
        }
        for &class in &record_class {
            f(classes_of.label(Some(class))?)?;
        }
        Ok(())
    }

    fn by_array(
        &self,
        record_tuple: &[u32],
        f: &mut dyn FnMut(&LabelRow) -> Result<()>,
    ) -> Result<()> {
        let s = self.store;
        let l = s.layout();
        let db = &s.path;
        let classes = self.class_labels()?;
        // Tuples in key order: the position of their class among the classes.
        let mut tuple_class: Vec<u32> = Vec::new();
        {
            let cols = l.qids.join(", ");
            let sql = format!("SELECT EquivalenceID FROM QidTuple ORDER BY {cols}");
            let mut stmt = s.conn.prepare(&sql).ctx(db)?;
            let mut rows = stmt.query([]).ctx(db)?;
            while let Some(r) = rows.next().ctx(db)? {
                tuple_class.push(classes.of_tuple(r.get(0).ctx(db)?)?);
            }
        }
        for &t in record_tuple {
            f(classes.label(tuple_class.get(t as usize).copied())?)?;
        }
        Ok(())
    }

    /// A full-domain result's labels from each record's codes: the classes of `QidTuple` by
    /// generalized codes (one pass over the tuples; a map as large as the classes, plus the
    /// suppressed classes' generalized tuples), then one pass over `AnonRecordTable` in record
    /// order, no join. Two tuples with the same generalized codes in different classes (not a
    /// full-domain result) are an internal error.
    fn by_levels(
        &self,
        hierarchies: &[&Hierarchy],
        levels: &[usize],
        f: &mut dyn FnMut(&LabelRow) -> Result<()>,
    ) -> Result<()> {
        let s = self.store;
        let l = s.layout();
        let n = l.qids.len();
        let db = &s.path;
        let cols = l.qids.join(", ");
        let classes = self.class_labels()?;
        let generalize = |r: &rusqlite::Row<'_>, start: usize, key: &mut Vec<u32>| -> Result<()> {
            key.clear();
            for (q, (h, &level)) in hierarchies.iter().zip(levels).enumerate() {
                let code = r.get::<_, i64>(start + q).ctx(db)?;
                key.push(h.get(code as u32, level));
            }
            Ok(())
        };
        let mut class_of: rustc_hash::FxHashMap<Vec<u32>, u32> = Default::default();
        let mut key = Vec::with_capacity(n);
        {
            let sql = format!("SELECT EquivalenceID, {cols} FROM QidTuple");
            let mut stmt = s.conn.prepare(&sql).ctx(db)?;
            let mut rows = stmt.query([]).ctx(db)?;
            while let Some(r) = rows.next().ctx(db)? {
                let class = classes.of_tuple(r.get(0).ctx(db)?)?;
                generalize(r, 1, &mut key)?;
                match class_of.get(key.as_slice()) {
                    Some(&c) if c != class => {
                        return Err(Error::Invalid(
                            "internal error: equal generalized tuples in different classes".into(),
                        ))
                    }
                    Some(_) => {}
                    None => {
                        class_of.insert(key.clone(), class);
                    }
                }
            }
        }
        let sql = format!("SELECT {cols} FROM AnonRecordTable ORDER BY RecordID");
        let mut stmt = s.conn.prepare(&sql).ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        while let Some(r) = rows.next().ctx(db)? {
            generalize(r, 0, &mut key)?;
            f(classes.label(class_of.get(key.as_slice()).copied())?)?;
        }
        Ok(())
    }
}

/// The classes of `EquivalenceTable` as the label writers see them: their labels, and the
/// position of each class (by `EquivalenceID`) among them.
struct ClassLabels {
    labels: Vec<LabelRow>,
    class_at: rustc_hash::FxHashMap<i64, u32>,
}

impl ClassLabels {
    /// The position of a tuple's class (its `EquivalenceID`); a tuple without one is an
    /// internal error.
    fn of_tuple(&self, eid: Option<i64>) -> Result<u32> {
        eid.and_then(|e| self.class_at.get(&e))
            .copied()
            .ok_or_else(|| Error::Invalid("internal error: a tuple has no class".to_string()))
    }

    /// The labels of the class at `position`, the class a record's tuple was found in; `None`
    /// (the record's tuple was not found) is an internal error.
    fn label(&self, position: Option<u32>) -> Result<&LabelRow> {
        position
            .and_then(|p| self.labels.get(p as usize))
            .ok_or_else(|| {
                Error::Invalid("internal error: a record's tuple is missing from QidTuple".into())
            })
    }
}

impl LabelSource for StoreLabels<'_> {
    fn for_each_record(&mut self, f: &mut dyn FnMut(&LabelRow) -> Result<()>) -> Result<()> {
        if let (Some(records), true) = (&self.store.record_tuple, self.in_memory()?) {
            return self.by_array(records, f);
        }
        match &self.full_domain {
            Some((hierarchies, levels)) => self.by_levels(hierarchies, levels, f),
            None => self.by_passes(f),
        }
    }
}
