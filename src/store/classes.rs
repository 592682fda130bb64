//! The classes of a full-domain transformation, written into the store.
//!
//! A full-domain result is one level per quasi-identifier plus the set of generalized classes
//! that are suppressed whole (the classes a method found failing its privacy models). Both
//! backends end here when they keep a database: Incognito on the store, and the in-memory
//! lattice searches (Flash, OLA, BFS, Optimal) with `-db`, which name their suppressed classes
//! by the generalized ids of one of their rows. [`Store::assign_full_domain`] groups `QidTuple`
//! through `HierarchyMap` at the chosen levels, numbers the classes by their first record (the
//! order a reader meets them in the output), writes the kept ones to `EquivalenceTable` with
//! their labels, and puts the suppressed ones into one suppression class (the next number).

use super::{SqlContext, Store};
use crate::data::load::Encoding;
use crate::Result;

/// `JOIN HierarchyMap h<q> ON ...` for every quasi-identifier column `cols[q]` of table alias
/// `t` at `levels[q]`: `h<q>.Id` is then the generalized id of the row's value.
pub(super) fn hierarchy_joins(cols: &[String], levels: &[usize], t: &str) -> String {
    cols.iter()
        .zip(levels)
        .enumerate()
        .map(|(q, (c, l))| {
            format!(
                "JOIN HierarchyMap h{q} ON h{q}.AttributeID = {q} AND h{q}.Level = {l} \
                 AND h{q}.Code = {t}.{c} "
            )
        })
        .collect()
}

impl Store {
    /// Writes the classes of the transformation `levels` (see the module docs): `bad` lists
    /// the suppressed classes by their generalized ids (one id per quasi-identifier, as in
    /// `HierarchyMap.Id`). Fills `EquivalenceTable` and `QidTuple.EquivalenceID`.
    pub fn assign_full_domain(
        &self,
        encoding: &Encoding,
        levels: &[usize],
        bad: &[Vec<u32>],
    ) -> Result<()> {
        let cols = self.layout().qids.clone();
        let nq = cols.len();
        let gs = (0..nq)
            .map(|q| format!("G{q}"))
            .collect::<Vec<_>>()
            .join(", ");
        let ids: Vec<String> = (0..nq).map(|q| format!("h{q}.Id AS G{q}")).collect();
        self.exec(&format!(
            "DROP TABLE IF EXISTS temp.FullDomainClass;\n\
             CREATE TEMP TABLE FullDomainClass AS SELECT {}, SUM(t.Count) AS Size, \
             ROW_NUMBER() OVER (ORDER BY MIN(t.FirstRecord)) AS EquivalenceID, 1 AS Ok \
             FROM QidTuple t {} GROUP BY {};\n\
             CREATE UNIQUE INDEX temp.FullDomainClassKey ON FullDomainClass ({gs});",
            ids.join(", "),
            hierarchy_joins(&cols, levels, "t"),
            (0..nq)
                .map(|q| format!("h{q}.Id"))
                .collect::<Vec<_>>()
                .join(", "),
        ))?;
        let db = self.path();
        let tx = self.begin()?;
        {
            let mut stmt = tx
                .conn()
                .prepare(&format!(
                    "UPDATE temp.FullDomainClass SET Ok = 0 WHERE {}",
                    (0..nq)
                        .map(|q| format!("G{q} = ?{}", q + 1))
                        .collect::<Vec<_>>()
                        .join(" AND ")
                ))
                .ctx(db)?;
            for key in bad {
                stmt.execute(rusqlite::params_from_iter(key.iter().map(|&k| k as i64)))
                    .ctx(db)?;
            }
            let classes: i64 = tx.value("SELECT COUNT(*) FROM temp.FullDomainClass", [])?;
            let suppression_id = classes + 1;
            let labels = super::level_labels_sql(levels, "c");
            let on = cols
                .iter()
                .enumerate()
                .map(|(q, c)| {
                    format!(
                        "c.G{q} = (SELECT Id FROM HierarchyMap WHERE AttributeID = {q} \
                         AND Level = {} AND Code = QidTuple.{c})",
                        levels[q]
                    )
                })
                .collect::<Vec<_>>()
                .join(" AND ");
            tx.exec(&format!(
                "INSERT INTO EquivalenceTable (EquivalenceID, {atts}, Size, Suppressed) \
                 SELECT c.EquivalenceID, {labels}, c.Size, 0 FROM temp.FullDomainClass c \
                 WHERE c.Ok ORDER BY c.EquivalenceID;\n\
                 UPDATE QidTuple SET EquivalenceID = (SELECT CASE WHEN c.Ok THEN c.EquivalenceID \
                 ELSE {suppression_id} END FROM temp.FullDomainClass c WHERE {on});",
                atts = cols.join(", "),
            ))?;
            let suppressed: i64 = tx.value(
                "SELECT COALESCE(SUM(Size), 0) FROM temp.FullDomainClass WHERE NOT Ok",
                [],
            )?;
            tx.insert_suppression_class(suppression_id, encoding, suppressed as u64)?;
        }
        tx.commit()?;
        self.exec("DROP TABLE temp.FullDomainClass")
    }
}
