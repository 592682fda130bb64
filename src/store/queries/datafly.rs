//! Datafly's SQL backend (for tables whose tuples do not fit its memory budget): a working copy
//! of the tuples, `temp.DataflyTuple`, carries each tuple's current generalized id per
//! quasi-identifier (`G<q>`); a generalization step rewrites one column from `HierarchyMap`;
//! classes are a `GROUP BY` over those columns, numbered by first record (see
//! `algorithms::datafly`).

use crate::data::load::Encoding;
use crate::store::{level_labels_sql, SqlContext, Store};
use crate::Result;

/// `temp.DataflyTuple`, from [`DataflyTuples::create`] until [`DataflyTuples::write_classes`].
pub struct DataflyTuples<'a> {
    store: &'a Store,
    small_sql: String,
    distinct_sql: String,
}

impl<'a> DataflyTuples<'a> {
    /// Copies `QidTuple` into `temp.DataflyTuple`, every tuple at level 0 (its own codes).
    pub fn create(store: &'a Store) -> Result<DataflyTuples<'a>> {
        let cols = &store.layout().qids;
        let nq = cols.len();
        let g: Vec<String> = (0..nq).map(|i| format!("G{i}")).collect();
        let gs = g.join(", ");
        let atts = cols.join(", ");
        store.exec(&format!(
            "DROP TABLE IF EXISTS temp.DataflyTuple; DROP TABLE IF EXISTS temp.DataflyClass;\n\
             CREATE TEMP TABLE DataflyTuple ({}, {}, Count INTEGER NOT NULL, \
             FirstRecord INTEGER NOT NULL, PRIMARY KEY ({atts})) WITHOUT ROWID;\n\
             INSERT INTO temp.DataflyTuple SELECT {atts}, {atts}, Count, FirstRecord FROM QidTuple;",
            cols.iter()
                .map(|c| format!("{c} INTEGER NOT NULL"))
                .collect::<Vec<_>>()
                .join(", "),
            g.iter()
                .map(|c| format!("{c} INTEGER NOT NULL"))
                .collect::<Vec<_>>()
                .join(", "),
        ))?;
        Ok(DataflyTuples {
            store,
            small_sql: format!(
                "SELECT COALESCE(SUM(n), 0) FROM \
                 (SELECT SUM(Count) AS n FROM temp.DataflyTuple GROUP BY {gs}) WHERE n < ?1"
            ),
            distinct_sql: format!(
                "SELECT {} FROM temp.DataflyTuple",
                g.iter()
                    .map(|c| format!("COUNT(DISTINCT {c})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
    }

    /// Records in classes smaller than `k`.
    pub fn small_records(&self, k: u64) -> Result<u64> {
        let small: i64 = self.store.value(&self.small_sql, [k as i64])?;
        Ok(small as u64)
    }

    /// The distinct generalized values of each quasi-identifier, in `<qid>` order.
    pub fn distinct_values(&self) -> Result<Vec<u64>> {
        let nq = self.store.layout().qids.len();
        let distinct: Vec<i64> = self
            .store
            .conn()
            .query_row(&self.distinct_sql, [], |r| {
                (0..nq).map(|i| r.get::<_, i64>(i)).collect()
            })
            .ctx(self.store.path())?;
        Ok(distinct.into_iter().map(|d| d as u64).collect())
    }

    /// Generalizes quasi-identifier `q` of every tuple to `level`.
    pub fn generalize(&self, q: usize, level: usize) -> Result<()> {
        let col = &self.store.layout().qids[q];
        let tx = self.store.begin()?;
        tx.exec(&format!(
            "UPDATE temp.DataflyTuple SET G{q} = (SELECT Id FROM HierarchyMap \
             WHERE AttributeID = {q} AND Level = {level} AND Code = {col});"
        ))?;
        tx.commit()
    }

    /// Writes the final classes at `levels` and drops the working tables: the classes numbered
    /// by first record, those of at least `k` records to `EquivalenceTable` with their labels,
    /// the tuples of the others to the suppression class (the next number). Fills
    /// `QidTuple.EquivalenceID`.
    pub fn write_classes(self, levels: &[usize], k: u64, encoding: &Encoding) -> Result<()> {
        let store = self.store;
        let cols = &store.layout().qids;
        let nq = cols.len();
        let gs = (0..nq)
            .map(|i| format!("G{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let atts = cols.join(", ");
        store.exec(&format!(
            "CREATE TEMP TABLE DataflyClass AS \
             SELECT {gs}, SUM(Count) AS Size, \
             ROW_NUMBER() OVER (ORDER BY MIN(FirstRecord)) AS EquivalenceID \
             FROM temp.DataflyTuple GROUP BY {gs};\n\
             CREATE UNIQUE INDEX temp.DataflyClassKey ON DataflyClass ({gs});"
        ))?;
        let classes: i64 = store.value("SELECT COUNT(*) FROM temp.DataflyClass", [])?;
        let suppression_id = classes + 1;
        let labels = level_labels_sql(levels, "c");
        let on = (0..nq)
            .map(|q| format!("c.G{q} = d.G{q}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let key = cols
            .iter()
            .map(|c| format!("d.{c} = QidTuple.{c}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let tx = store.begin()?;
        tx.exec(&format!(
            "INSERT INTO EquivalenceTable (EquivalenceID, {atts}, Size, Suppressed) \
             SELECT c.EquivalenceID, {labels}, c.Size, 0 FROM temp.DataflyClass c \
             WHERE c.Size >= {k} ORDER BY c.EquivalenceID;\n\
             UPDATE QidTuple SET EquivalenceID = \
             (SELECT CASE WHEN c.Size < {k} THEN {suppression_id} ELSE c.EquivalenceID END \
             FROM temp.DataflyTuple d JOIN temp.DataflyClass c ON {on} WHERE {key});"
        ))?;
        tx.commit()?;
        let suppressed: i64 = store.value(
            "SELECT COALESCE(SUM(Size), 0) FROM temp.DataflyClass WHERE Size < ?1",
            [k as i64],
        )?;
        store.insert_suppression_class(suppression_id, encoding, suppressed as u64)?;
        store.exec("DROP TABLE temp.DataflyClass; DROP TABLE temp.DataflyTuple;")
    }
}
