//! Converts a delimited file with a header into Parquet: columns whose every value is a whole
//! number become Int64, the others strings; `--copies N` writes the rows N times (ADULT
//! replicated for `scripts/bench_engines.sh`). Streams: two passes over the input, one batch in
//! memory.
//!
//! `cargo run --release --example to_parquet -- IN.csv ';' OUT.parquet [--copies N]`

use std::io::BufRead;
use std::sync::Arc;

use anyhow::Context;
use arrow::array::{ArrayRef, Int64Builder, RecordBatch, StringBuilder};
use arrow::datatypes::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

const BATCH: usize = 65_536;

fn lines(path: &str) -> anyhow::Result<impl Iterator<Item = std::io::Result<String>>> {
    let f = std::fs::File::open(path).with_context(|| path.to_string())?;
    Ok(std::io::BufReader::with_capacity(1 << 20, f).lines())
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (input, sep, output) = match &args[..] {
        [i, s, o, ..] => (i.as_str(), s.as_str(), o.as_str()),
        _ => anyhow::bail!("usage: to_parquet IN SEPARATOR OUT.parquet [--copies N]"),
    };
    let copies: usize = match args.iter().position(|a| a == "--copies") {
        Some(i) => args.get(i + 1).context("--copies N")?.parse()?,
        None => 1,
    };
    let mut it = lines(input)?;
    let header: Vec<String> = it
        .next()
        .context("empty input")??
        .split(sep)
        .map(str::to_string)
        .collect();
    let mut integer = vec![true; header.len()];
    for line in it {
        for (j, f) in line?.split(sep).enumerate() {
            if integer[j] && f.parse::<i64>().is_err() {
                integer[j] = false;
            }
        }
    }
    let schema = Arc::new(Schema::new(
        header
            .iter()
            .zip(&integer)
            .map(|(n, &i)| Field::new(n, if i { DataType::Int64 } else { DataType::Utf8 }, false))
            .collect::<Vec<_>>(),
    ));
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(1 << 20))
        .build();
    let mut w = ArrowWriter::try_new(std::fs::File::create(output)?, schema.clone(), Some(props))?;
    for _ in 0..copies {
        let mut ints: Vec<Int64Builder> = Vec::new();
        let mut strs: Vec<StringBuilder> = Vec::new();
        let reset = |ints: &mut Vec<Int64Builder>, strs: &mut Vec<StringBuilder>| {
            *ints = integer.iter().map(|_| Int64Builder::new()).collect();
            *strs = integer.iter().map(|_| StringBuilder::new()).collect();
        };
        reset(&mut ints, &mut strs);
        let mut n = 0;
        let mut flush =
            |ints: &mut Vec<Int64Builder>, strs: &mut Vec<StringBuilder>| -> anyhow::Result<()> {
                let cols: Vec<ArrayRef> = integer
                    .iter()
                    .enumerate()
                    .map(|(j, &i)| -> ArrayRef {
                        if i {
                            Arc::new(ints[j].finish())
                        } else {
                            Arc::new(strs[j].finish())
                        }
                    })
                    .collect();
                w.write(&RecordBatch::try_new(schema.clone(), cols)?)?;
                Ok(())
            };
        for line in lines(input)?.skip(1) {
            for (j, f) in line?.split(sep).enumerate() {
                if integer[j] {
                    ints[j].append_value(f.parse()?);
                } else {
                    strs[j].append_value(f);
                }
            }
            n += 1;
            if n == BATCH {
                flush(&mut ints, &mut strs)?;
                n = 0;
            }
        }
        if n > 0 {
            flush(&mut ints, &mut strs)?;
        }
    }
    w.close()?;
    Ok(())
}
