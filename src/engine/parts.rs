//! A release written where its rows are: each partition of the release's plan writes its own
//! part file, in this process's threads or on a cluster's executors, and hands back only the
//! part's name and row count.
//!
//! [`WriteParts`] is a logical plan node over the release's projection; the query planner of
//! every session that runs it ([`Planner`]: the driver's in-process sessions, and the
//! scheduler's, see `anonbox-cluster`) turns it into [`WritePartsExec`], one task a partition.
//! On a cluster both travel through anonbox's codecs ([`encode`], [`decode`]), so the
//! executors run it as any other plan: no stage boundary, no shuffle of the records. Each task
//! writes `pNNNNN.parquet` into the run's staging folder (a temporary name, renamed when the
//! part is complete, so a retried task replaces a killed one's part whole) and returns one row;
//! the driver then adopts the parts into the destination folder in partition order
//! ([`crate::io::parts`]). The staging folder must be private (0700, the writer's own): a task
//! refuses to write release rows anywhere else.

use std::fmt;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{RecordBatch, StringArray, UInt64Array};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DFSchema, DFSchemaRef};
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::execution::context::QueryPlanner;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{
    Expr, LogicalPlan, UserDefinedLogicalNode, UserDefinedLogicalNodeCore,
};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning,
    PlanProperties,
};
use datafusion::physical_planner::{DefaultPhysicalPlanner, ExtensionPlanner, PhysicalPlanner};
use futures::StreamExt;

use crate::io::columnar::writer::BatchWriter;
use crate::io::columnar::Kind;
use crate::io::parts::extension;

/// The node's name in plans.
const NAME: &str = "AnonboxWriteParts";
/// What starts the node's bytes in a codec.
const MAGIC: &[u8] = b"anonbox-write-parts\0";

/// The schema of what a part's task returns: its partition, its file's name, its rows.
pub fn result_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("partition", DataType::UInt64, false),
        Field::new("file", DataType::Utf8, false),
        Field::new("rows", DataType::UInt64, false),
    ]))
}

/// The logical node: write `input`'s partitions as parts of `kind` into the folder `dir`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WriteParts {
    input: LogicalPlan,
    dir: String,
    kind: KindTag,
    schema: DFSchemaRef,
}

/// [`Kind`] in plans (hashable, one byte in a codec).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd)]
struct KindTag(u8);

impl KindTag {
    fn of(kind: Kind) -> KindTag {
        KindTag(match kind {
            Kind::Parquet => 0,
            Kind::Ipc => 1,
        })
    }

    fn kind(self) -> Kind {
        if self.0 == 1 {
            Kind::Ipc
        } else {
            Kind::Parquet
        }
    }
}

impl WriteParts {
    /// The node over `input`, writing into `dir` (absolute: the executors resolve it).
    pub fn new(input: LogicalPlan, dir: &Path, kind: Kind) -> DfResult<WriteParts> {
        Ok(WriteParts {
            input,
            dir: dir.to_string_lossy().into_owned(),
            kind: KindTag::of(kind),
            schema: Arc::new(DFSchema::try_from(result_schema())?),
        })
    }

    /// The node as a logical plan.
    pub fn plan(self) -> LogicalPlan {
        LogicalPlan::Extension(datafusion::logical_expr::Extension {
            node: Arc::new(self),
        })
    }
}

impl PartialOrd for WriteParts {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        (&self.dir, self.kind).partial_cmp(&(&other.dir, other.kind))
    }
}

impl UserDefinedLogicalNodeCore for WriteParts {
    fn name(&self) -> &str {
        NAME
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        &self.schema
    }

    fn expressions(&self) -> Vec<Expr> {
        Vec::new()
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{NAME}: {}", self.dir)
    }

    fn with_exprs_and_inputs(
        &self,
        _exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> DfResult<Self> {
        if inputs.len() != 1 {
            return Err(DataFusionError::Internal(format!("{NAME} takes one input")));
        }
        Ok(WriteParts {
            input: inputs.swap_remove(0),
            ..self.clone()
        })
    }
}

/// The physical node: each partition of `input` written as one part (see the module docs).
#[derive(Debug)]
pub struct WritePartsExec {
    input: Arc<dyn ExecutionPlan>,
    dir: PathBuf,
    kind: Kind,
    properties: Arc<PlanProperties>,
}

impl WritePartsExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, dir: PathBuf, kind: Kind) -> WritePartsExec {
        let n = input.output_partitioning().partition_count();
        let properties = PlanProperties::new(
            EquivalenceProperties::new(result_schema()),
            Partitioning::UnknownPartitioning(n),
            EmissionType::Final,
            Boundedness::Bounded,
        );
        WritePartsExec {
            input,
            dir,
            kind,
            properties: Arc::new(properties),
        }
    }
}

impl DisplayAs for WritePartsExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{NAME}Exec: {}", self.dir.display())
    }
}

impl ExecutionPlan for WritePartsExec {
    fn name(&self) -> &str {
        "AnonboxWritePartsExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DfResult<TreeNodeRecursion>,
    ) -> DfResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        if children.len() != 1 {
            return Err(DataFusionError::Internal(format!("{NAME} takes one input")));
        }
        Ok(Arc::new(WritePartsExec::new(
            children.swap_remove(0),
            self.dir.clone(),
            self.kind,
        )))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        let input = self.input.execute(partition, context)?;
        let (dir, kind) = (self.dir.clone(), self.kind);
        let part = async move {
            let (file, rows) = write_part(input, &dir, kind, partition).await?;
            RecordBatch::try_new(
                result_schema(),
                vec![
                    Arc::new(UInt64Array::from(vec![partition as u64])),
                    Arc::new(StringArray::from(vec![file])),
                    Arc::new(UInt64Array::from(vec![rows])),
                ],
            )
            .map_err(DataFusionError::from)
        };
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            result_schema(),
            futures::stream::once(part),
        )))
    }
}

/// A task's error from anonbox's.
fn external(e: crate::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// A temporary part, removed unless it was renamed into place.
struct Pending(Option<PathBuf>);

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Writes partition `partition`'s batches as `pNNNNN.EXT` in `dir`; returns the name and the
/// rows.
async fn write_part(
    mut input: SendableRecordBatchStream,
    dir: &Path,
    kind: Kind,
    partition: usize,
) -> DfResult<(String, u64)> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let io = |e: std::io::Error| external(crate::Error::io(dir, e));
    // Release rows go only into a private folder of the writer's own.
    let m = std::fs::symlink_metadata(dir).map_err(io)?;
    if !m.is_dir() || m.mode() & 0o077 != 0 || m.uid() != crate::io::dest::euid() {
        return Err(external(crate::Error::in_file(
            dir,
            "is not a private folder of this user's (mode 0700): no part was written there",
        )));
    }
    let name = format!("p{partition:05}.{}", extension(kind));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = dir.join(format!(".{name}.{}.{nanos}", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io)?;
    let mut pending = Pending(Some(tmp.clone()));
    test_pause().await;
    let mut w =
        BatchWriter::new(kind, BufWriter::new(file), input.schema(), &tmp).map_err(external)?;
    let mut rows = 0u64;
    while let Some(batch) = input.next().await {
        let batch = batch?;
        rows += batch.num_rows() as u64;
        w.write(&batch).map_err(external)?;
    }
    let file = w
        .finish()
        .map_err(external)?
        .into_inner()
        .map_err(|e| io(e.into_error()))?;
    file.sync_all().map_err(io)?;
    std::fs::rename(&tmp, dir.join(&name)).map_err(io)?;
    pending.0 = None;
    Ok((name, rows))
}

/// Debug builds only: a pause of `ANONBOX_TEST_PART_DELAY_MS` milliseconds once a part's file
/// is created, announced on stderr (an executor's log), for the test of a signal cancelling a
/// cluster's job; a task aborted during the pause says so.
async fn test_pause() {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("ANONBOX_TEST_PART_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        struct Aborted(bool);
        impl Drop for Aborted {
            fn drop(&mut self) {
                if self.0 {
                    eprintln!("anonbox: test: part task aborted");
                }
            }
        }
        let mut aborted = Aborted(true);
        eprintln!("anonbox: test: writing a part");
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        aborted.0 = false;
    }
}

/// Plans [`WriteParts`] as [`WritePartsExec`].
#[derive(Debug)]
struct PartsPlanner;

#[async_trait]
impl ExtensionPlanner for PartsPlanner {
    async fn plan_extension(
        &self,
        _planner: &dyn PhysicalPlanner,
        node: &dyn UserDefinedLogicalNode,
        _logical_inputs: &[&LogicalPlan],
        physical_inputs: &[Arc<dyn ExecutionPlan>],
        _session: &dyn datafusion::catalog::Session,
        _planning_ctx: &datafusion::logical_expr::physical_planning_context::PhysicalPlanningContext,
    ) -> DfResult<Option<Arc<dyn ExecutionPlan>>> {
        let Some(w) = node.as_any().downcast_ref::<WriteParts>() else {
            return Ok(None);
        };
        let [input] = physical_inputs else {
            return Err(DataFusionError::Internal(format!("{NAME} takes one input")));
        };
        Ok(Some(Arc::new(WritePartsExec::new(
            Arc::clone(input),
            PathBuf::from(&w.dir),
            w.kind.kind(),
        ))))
    }
}

/// The query planner of every session that runs anonbox's release: DataFusion's, plus
/// [`WriteParts`].
#[derive(Debug, Default)]
pub struct Planner;

#[async_trait]
impl QueryPlanner for Planner {
    async fn create_physical_plan(
        &self,
        plan: &LogicalPlan,
        session: &dyn datafusion::catalog::Session,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        DefaultPhysicalPlanner::with_extension_planners(vec![Arc::new(PartsPlanner)])
            .create_physical_plan(plan, session)
            .await
    }
}

/// The node's bytes (after [`MAGIC`]): its kind, then its folder.
fn bytes_of(dir: &str, kind: KindTag) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.push(kind.0);
    b.extend_from_slice(dir.as_bytes());
    b
}

/// The folder and kind in a node's bytes, if they are one's.
fn parse(buf: &[u8]) -> Option<DfResult<(String, KindTag)>> {
    let rest = buf.strip_prefix(MAGIC)?;
    let (&kind, dir) = rest.split_first()?;
    Some(
        String::from_utf8(dir.to_vec())
            .map(|d| (d, KindTag(kind)))
            .map_err(|e| DataFusionError::Internal(format!("{NAME}: {e}"))),
    )
}

/// The logical node's bytes, if `node` is one.
pub fn encode(node: &dyn UserDefinedLogicalNode) -> Option<Vec<u8>> {
    node.as_any()
        .downcast_ref::<WriteParts>()
        .map(|w| bytes_of(&w.dir, w.kind))
}

/// The logical node of `buf` over `inputs`, if `buf` holds one.
pub fn decode(buf: &[u8], inputs: &[LogicalPlan]) -> Option<DfResult<WriteParts>> {
    let parsed = parse(buf)?;
    Some(parsed.and_then(|(dir, kind)| {
        let [input] = inputs else {
            return Err(DataFusionError::Internal(format!("{NAME} takes one input")));
        };
        WriteParts::new(input.clone(), Path::new(&dir), kind.kind())
    }))
}

/// The physical node's bytes, if `plan` is one.
pub fn encode_exec(plan: &dyn ExecutionPlan) -> Option<Vec<u8>> {
    let any: &dyn std::any::Any = plan;
    any.downcast_ref::<WritePartsExec>()
        .map(|w| bytes_of(&w.dir.to_string_lossy(), KindTag::of(w.kind)))
}

/// The physical node of `buf` over `inputs`, if `buf` holds one.
pub fn decode_exec(
    buf: &[u8],
    inputs: &[Arc<dyn ExecutionPlan>],
) -> Option<DfResult<Arc<dyn ExecutionPlan>>> {
    let parsed = parse(buf)?;
    Some(parsed.and_then(|(dir, kind)| {
        let [input] = inputs else {
            return Err(DataFusionError::Internal(format!("{NAME} takes one input")));
        };
        Ok(Arc::new(WritePartsExec::new(
            Arc::clone(input),
            PathBuf::from(dir),
            kind.kind(),
        )) as Arc<dyn ExecutionPlan>)
    }))
}
