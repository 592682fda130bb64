//! The release's function, `anonbox_release`: a record's quasi-identifiers' texts -> a struct of
//! their labels (`l0`, `l1`, ...) at the chosen levels, or the suppression labels where the
//! record's class is suppressed; or, for a partition (Mondrian's), the texts -> their leaf
//! codes -> the tuple's class -> the class's labels.
//!
//! It is a named DataFusion function whose state (each text's generalized id, each id's label,
//! the suppressed classes) can be written to bytes and read back ([`ReleaseFn::to_bytes`],
//! [`ReleaseFn::from_bytes`]): in the process it is called directly; on a Ballista cluster the
//! plans' codec ([`super::ballista`]) carries it to the scheduler and the executors, which know
//! nothing else of anonbox. Each label is a key into the level's labels (a dictionary array), so
//! no text is copied per record. The function takes each column as it is read where it can
//! ([`super::text_ids`]: texts, integers, dictionaries) and maps a whole column at a time; a
//! suppressed class or a partition's tuple is found by one integer key where the tuple's ids
//! fit in one word. A text the frequency set did not see is an error: the input changed during
//! the run.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, DictionaryArray, Int32Array, StringArray};
use arrow::array::{StringBuilder, StructArray};
use arrow::datatypes::{DataType, Field, Fields, Int32Type};
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use super::text_ids::{argument_type, Miss, TextIds};

/// The function's name in plans.
pub const NAME: &str = "anonbox_release";

/// What the function maps, in the form it travels in.
#[derive(Serialize, Deserialize)]
struct Wire {
    /// The input, named in the error of a text the frequency set did not see.
    input: String,
    /// Per quasi-identifier: (text, generalized id).
    ids: Vec<Vec<(String, u32)>>,
    /// Per quasi-identifier: each id's label, then the suppression label.
    labels: Vec<Vec<String>>,
    /// The suppressed classes (one generalized id per quasi-identifier).
    suppressed: Vec<Vec<u32>>,
    /// A partition: each tuple of ids (leaf codes) and its class, the key of every label.
    #[serde(default)]
    classes: Option<Vec<(Vec<u32>, u32)>>,
}

/// The function: its maps, ready to call.
pub struct ReleaseFn {
    input: String,
    ids: Vec<TextIds>,
    labels: Vec<ArrayRef>,
    /// The suppressed classes (each one's value unused); empty when none is.
    suppressed: ClassMap,
    classes: Option<ClassMap>,
    signature: Signature,
    fields: Fields,
}

impl std::fmt::Debug for ReleaseFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReleaseFn")
            .field("quasi_identifiers", &self.ids.len())
            .field("suppressed", &self.suppressed.len())
            .finish()
    }
}

// Two functions are the same only if they are one object: their maps are what they mean.
impl PartialEq for ReleaseFn {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for ReleaseFn {}
impl Hash for ReleaseFn {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::ptr::hash(self, state)
    }
}

impl ReleaseFn {
    /// The function of per-quasi-identifier maps `ids` (text -> generalized id) and `labels`
    /// (each id's label, then the suppression label), suppressing `suppressed`.
    pub fn new(
        input: String,
        ids: Vec<FxHashMap<String, u32>>,
        labels: Vec<Vec<String>>,
        suppressed: FxHashSet<Vec<u32>>,
    ) -> ReleaseFn {
        ReleaseFn::with_classes(input, ids, labels, suppressed, None)
    }

    /// The function of a partition: `ids` maps each text to its leaf code, `classes` pairs each
    /// tuple of leaf codes (once) with its class, and `labels` holds, per quasi-identifier, each
    /// class's label.
    pub fn of_partition(
        input: String,
        ids: Vec<FxHashMap<String, u32>>,
        labels: Vec<Vec<String>>,
        classes: Vec<(Vec<u32>, u32)>,
    ) -> ReleaseFn {
        ReleaseFn::with_classes(input, ids, labels, FxHashSet::default(), Some(classes))
    }

    fn with_classes(
        input: String,
        ids: Vec<FxHashMap<String, u32>>,
        labels: Vec<Vec<String>>,
        suppressed: FxHashSet<Vec<u32>>,
        classes: Option<Vec<(Vec<u32>, u32)>>,
    ) -> ReleaseFn {
        let labels: Vec<ArrayRef> = labels
            .iter()
            .map(|l| {
                let mut b = StringBuilder::new();
                for v in l {
                    b.append_value(v);
                }
                Arc::new(b.finish()) as ArrayRef
            })
            .collect();
        let label_type = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        let fields: Fields = (0..ids.len())
            .map(|j| Field::new(format!("l{j}"), label_type.clone(), false))
            .collect();
        let ids: Vec<TextIds> = ids
            .iter()
            .map(|m| TextIds::new(m.iter().map(|(t, &id)| (t.as_str(), id))))
            .collect();
        let radix: Vec<u64> = ids.iter().map(TextIds::radix).collect();
        let classes = classes.map(|c| ClassMap::new(c, radix.clone()));
        let suppressed = ClassMap::new(suppressed.into_iter().map(|t| (t, 0)).collect(), radix);
        ReleaseFn {
            input,
            signature: Signature::user_defined(Volatility::Immutable),
            ids,
            labels,
            suppressed,
            classes,
            fields,
        }
    }

    /// The function as a DataFusion scalar function.
    pub fn udf(self) -> ScalarUDF {
        ScalarUDF::new_from_impl(self)
    }

    /// The function's state as bytes (for a cluster's codec).
    pub fn to_bytes(&self) -> DfResult<Vec<u8>> {
        let mut ids: Vec<Vec<(String, u32)>> = self.ids.iter().map(TextIds::entries).collect();
        for m in &mut ids {
            m.sort_unstable();
        }
        let labels = self
            .labels
            .iter()
            .map(|a| {
                let s: &StringArray = a.as_string::<i32>();
                s.iter().map(|v| v.unwrap_or("").to_string()).collect()
            })
            .collect();
        let mut suppressed: Vec<Vec<u32>> = self
            .suppressed
            .entries()
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        suppressed.sort_unstable();
        let classes = self.classes.as_ref().map(|m| {
            let mut c = m.entries();
            c.sort_unstable();
            c
        });
        let wire = Wire {
            input: self.input.clone(),
            ids,
            labels,
            suppressed,
            classes,
        };
        serde_json::to_vec(&wire).map_err(|e| DataFusionError::Internal(e.to_string()))
    }

    /// The function of `bytes` written by [`ReleaseFn::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> DfResult<ReleaseFn> {
        let wire: Wire = serde_json::from_slice(bytes)
            .map_err(|e| DataFusionError::Internal(format!("{NAME}: {e}")))?;
        let ids = wire
            .ids
            .into_iter()
            .map(|m| m.into_iter().collect())
            .collect();
        let suppressed = wire.suppressed.into_iter().collect();
        Ok(ReleaseFn::with_classes(
            wire.input,
            ids,
            wire.labels,
            suppressed,
            wire.classes,
        ))
    }
}

/// A partition's tuple -> class map. Its key is the tuple's codes packed into one integer
/// where they fit: mixed radix, each code below its attribute's count of codes. Otherwise the
/// key is the codes themselves. One hash of a word a record, instead of a hash of a vector.
enum ClassMap {
    Packed {
        strides: Vec<u64>,
        radix: Vec<u64>,
        map: FxHashMap<u64, u32>,
    },
    Codes(FxHashMap<Vec<u32>, u32>),
}

impl ClassMap {
    /// The map of `classes` (each tuple once), whose codes are below `radix` (each
    /// attribute's count of codes; raised where a tuple holds a greater one).
    fn new(classes: Vec<(Vec<u32>, u32)>, mut radix: Vec<u64>) -> ClassMap {
        for r in radix.iter_mut() {
            *r = (*r).max(1);
        }
        for (t, _) in &classes {
            for (r, &c) in radix.iter_mut().zip(t) {
                *r = (*r).max(u64::from(c) + 1);
            }
        }
        let mut strides = Vec::with_capacity(radix.len());
        let mut stride = Some(1u64);
        for &r in &radix {
            strides.push(stride.unwrap_or(0));
            stride = stride.and_then(|s| s.checked_mul(r));
        }
        if stride.is_none() {
            return ClassMap::Codes(classes.into_iter().collect());
        }
        let map = classes
            .into_iter()
            .map(|(t, c)| (pack(&t, &strides), c))
            .collect();
        ClassMap::Packed {
            strides,
            radix,
            map,
        }
    }

    fn get(&self, codes: &[u32]) -> Option<u32> {
        match self {
            ClassMap::Packed { strides, map, .. } => map.get(&pack(codes, strides)).copied(),
            ClassMap::Codes(map) => map.get(codes).copied(),
        }
    }

    fn len(&self) -> usize {
        match self {
            ClassMap::Packed { map, .. } => map.len(),
            ClassMap::Codes(map) => map.len(),
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every (tuple, class), for the wire.
    fn entries(&self) -> Vec<(Vec<u32>, u32)> {
        match self {
            ClassMap::Packed {
                strides,
                radix,
                map,
            } => map
                .iter()
                .map(|(&k, &c)| {
                    let t = strides
                        .iter()
                        .zip(radix)
                        .map(|(&s, &r)| ((k / s) % r) as u32)
                        .collect();
                    (t, c)
                })
                .collect(),
            ClassMap::Codes(map) => map.iter().map(|(t, &c)| (t.clone(), c)).collect(),
        }
    }
}

/// `codes` packed with `strides`.
fn pack(codes: &[u32], strides: &[u64]) -> u64 {
    codes
        .iter()
        .zip(strides)
        .map(|(&c, &s)| u64::from(c) * s)
        .sum()
}

impl ScalarUDFImpl for ReleaseFn {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::Struct(self.fields.clone()))
    }

    fn coerce_types(&self, args: &[DataType]) -> DfResult<Vec<DataType>> {
        if args.len() != self.ids.len() {
            return Err(DataFusionError::Plan(format!(
                "{NAME} takes {} columns, not {}",
                self.ids.len(),
                args.len()
            )));
        }
        Ok(args.iter().map(argument_type).collect())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        let rows = args.number_rows;
        let changed = |what: String| {
            DataFusionError::Execution(format!(
                "the input changed during the run: {what} not there when {} was loaded",
                self.input
            ))
        };
        // Each column's ids, a column at a time.
        let mut ids: Vec<Vec<u32>> = Vec::with_capacity(self.ids.len());
        for (a, m) in args.args.iter().zip(&self.ids) {
            let column = a.to_array(rows)?;
            let mut out = Vec::new();
            m.column(&column, &mut out).map_err(|e| match e {
                Miss::Text(v) => changed(format!("'{v}' was")),
                Miss::Type(t) => DataFusionError::Internal(format!("{NAME}: a column of type {t}")),
            })?;
            ids.push(out);
        }
        // Row `row`'s tuple of ids into `g`.
        let tuple_at = |row: usize, g: &mut [u32]| {
            for (x, col) in g.iter_mut().zip(&ids) {
                *x = col[row];
            }
        };
        let mut g = vec![0u32; ids.len()];
        let keys: Vec<Int32Array> = match &self.classes {
            // A partition: every label is its class's, one array of keys for all of them.
            Some(classes) => {
                let mut class = Vec::with_capacity(rows);
                for row in 0..rows {
                    tuple_at(row, &mut g);
                    let c = classes
                        .get(&g)
                        .ok_or_else(|| changed("a record's quasi-identifiers were".into()))?;
                    class.push(c as i32);
                }
                vec![Int32Array::from(class); ids.len()]
            }
            // Levels: each id its label, the suppressed classes' records the top label.
            None => {
                let mut keys: Vec<Vec<i32>> = ids
                    .iter()
                    .map(|col| col.iter().map(|&id| id as i32).collect())
                    .collect();
                if !self.suppressed.is_empty() {
                    let top: Vec<i32> = self.labels.iter().map(|l| l.len() as i32 - 1).collect();
                    for row in 0..rows {
                        tuple_at(row, &mut g);
                        if self.suppressed.get(&g).is_some() {
                            for (k, &t) in keys.iter_mut().zip(&top) {
                                k[row] = t;
                            }
                        }
                    }
                }
                keys.into_iter().map(Int32Array::from).collect()
            }
        };
        let cols: Vec<ArrayRef> = keys
            .into_iter()
            .zip(&self.labels)
            .map(|(k, values)| {
                DictionaryArray::<Int32Type>::try_new(k, values.clone())
                    .map(|d| Arc::new(d) as ArrayRef)
            })
            .collect::<std::result::Result<_, _>>()?;
        let s = StructArray::try_new(self.fields.clone(), cols, None)?;
        Ok(ColumnarValue::Array(Arc::new(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ReleaseFn {
        let ids = vec![
            [
                ("a".to_string(), 0),
                ("b".to_string(), 0),
                ("c".to_string(), 1),
            ]
            .into_iter()
            .collect(),
            [("x".to_string(), 0), ("y".to_string(), 1)]
                .into_iter()
                .collect(),
        ];
        let labels = vec![
            vec!["ab".into(), "c".into(), "*".into()],
            vec!["x".into(), "y".into(), "?".into()],
        ];
        let suppressed = [vec![1, 1]].into_iter().collect();
        ReleaseFn::new("in.csv".into(), ids, labels, suppressed)
    }

    fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    fn call(f: &ReleaseFn, a: &[&str], b: &[&str]) -> DfResult<Vec<(String, String)>> {
        let args = vec![
            ColumnarValue::Array(Arc::new(StringArray::from(a.to_vec()))),
            ColumnarValue::Array(Arc::new(StringArray::from(b.to_vec()))),
        ];
        let out = f.invoke_with_args(ScalarFunctionArgs {
            args,
            arg_fields: vec![
                Arc::new(Field::new("a", DataType::Utf8, false)),
                Arc::new(Field::new("b", DataType::Utf8, false)),
            ],
            number_rows: a.len(),
            return_field: Arc::new(Field::new("r", f.return_type(&[])?, false)),
            config_options: Arc::new(Default::default()),
        })?;
        let ColumnarValue::Array(out) = out else {
            panic!("a scalar")
        };
        let s = out.as_struct();
        let text = |c: usize, r: usize| {
            let d = s.column(c).as_dictionary::<Int32Type>();
            let v = d.values().as_string::<i32>();
            v.value(d.keys().value(r) as usize).to_string()
        };
        Ok((0..a.len()).map(|r| (text(0, r), text(1, r))).collect())
    }

    #[test]
    fn maps_suppresses_and_survives_the_wire() {
        let f = sample();
        let back = ReleaseFn::from_bytes(&f.to_bytes().unwrap()).unwrap();
        for f in [&f, &back] {
            let got = call(f, &["a", "b", "c", "c"], &["y", "x", "x", "y"]).unwrap();
            assert_eq!(
                got,
                owned(&[("ab", "y"), ("ab", "x"), ("c", "x"), ("*", "?")])
            );
            let err = call(f, &["d"], &["x"]).unwrap_err().to_string();
            assert!(err.contains("'d' was not there when in.csv"), "{err}");
        }
        assert_ne!(f, back);
        assert_eq!(f, f);
    }

    /// A partition: each tuple of leaf codes to its class's labels, on both sides of the wire;
    /// a tuple the partition does not hold (values each seen, never together) is an error.
    #[test]
    fn maps_a_partition_and_survives_the_wire() {
        let ids = vec![
            [("a".to_string(), 0), ("b".to_string(), 1)]
                .into_iter()
                .collect(),
            [("x".to_string(), 0), ("y".to_string(), 1)]
                .into_iter()
                .collect(),
        ];
        // Class 0: {(a,x), (b,x)}; class 1: {(b,y)}.
        let labels = vec![
            vec!["{a,b}".into(), "b".into()],
            vec!["x".into(), "y".into()],
        ];
        let classes = vec![(vec![0, 0], 0), (vec![1, 0], 0), (vec![1, 1], 1)];
        let f = ReleaseFn::of_partition("in.csv".into(), ids, labels, classes);
        let back = ReleaseFn::from_bytes(&f.to_bytes().unwrap()).unwrap();
        for f in [&f, &back] {
            let got = call(f, &["b", "a", "b"], &["y", "x", "x"]).unwrap();
            assert_eq!(got, owned(&[("b", "y"), ("{a,b}", "x"), ("{a,b}", "x")]));
            let err = call(f, &["a"], &["y"]).unwrap_err().to_string();
            assert!(err.contains("input changed"), "{err}");
        }
    }

    /// Codes too wide to pack into one word (three attributes of 2^31 codes) keep the vector
    /// key: the same mapping, and the same on the wire.
    #[test]
    fn wide_codes_map_by_their_vector() {
        let big = 1u32 << 31;
        let ids: Vec<FxHashMap<String, u32>> = (0..3)
            .map(|_| {
                [("a".to_string(), 0), ("z".to_string(), big)]
                    .into_iter()
                    .collect()
            })
            .collect();
        let labels = vec![vec!["A".into(), "Z".into()]; 3];
        let classes = vec![(vec![0, 0, 0], 0), (vec![big, big, big], 1)];
        let f = ReleaseFn::of_partition("in.csv".into(), ids, labels, classes);
        assert!(matches!(f.classes, Some(ClassMap::Codes(_))));
        let back = ReleaseFn::from_bytes(&f.to_bytes().unwrap()).unwrap();
        assert!(matches!(back.classes, Some(ClassMap::Codes(_))));
        for m in [f.classes.as_ref().unwrap(), back.classes.as_ref().unwrap()] {
            assert_eq!(m.get(&[big, big, big]), Some(1));
            assert_eq!(m.get(&[0, 0, 0]), Some(0));
            assert_eq!(m.get(&[0, big, 0]), None);
            let mut e = m.entries();
            e.sort_unstable();
            assert_eq!(e, vec![(vec![0, 0, 0], 0), (vec![big, big, big], 1)]);
        }
        // Narrow codes pack, and unpack for the wire.
        let narrow = vec![(vec![1, 2], 0), (vec![3, 0], 1)];
        let m = ClassMap::new(narrow, vec![0, 0]);
        assert!(matches!(m, ClassMap::Packed { .. }));
        assert_eq!(
            (m.get(&[3, 0]), m.get(&[1, 2]), m.get(&[2, 1])),
            (Some(1), Some(0), None)
        );
        let mut e = m.entries();
        e.sort_unstable();
        assert_eq!(e, vec![(vec![1, 2], 0), (vec![3, 0], 1)]);
    }
}
