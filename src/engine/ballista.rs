//! The Ballista engine: the DataFusion engine's plans ([`super::datafusion`]) run by an Apache
//! Ballista scheduler and its executors, `-engine ballista://HOST:PORT`.
//!
//! The driver (this process) plans the frequency set and the release as on DataFusion and sends
//! the logical plans to the scheduler; the scheduler splits them into stages and the executors
//! scan the input, group and shuffle. What comes back to the driver is what the DataFusion
//! engine's driver also holds: the frequency set's groups, and for a release into a single file
//! the release's batches, which the driver writes through the run's staged publication (so a
//! failed run publishes nothing, and the release is the same file as on the other engines). A
//! release into a data set folder is written by the executors, a part a task, into the
//! folder's private staging folder; the driver gets each part's name and rows and publishes
//! them ([`super::parts`]).
//!
//! Plans name one function of anonbox's, the release's [`ReleaseFn`], and one plan node, the part
//! writer ([`super::parts::WriteParts`]): they travel inside the plans, through the codecs here
//! ([`LogicalCodec`], [`PhysicalCodec`]), which the driver, the scheduler and the executors all
//! use; the scheduler plans the node with anonbox's planner ([`session_builder`]). The executors are therefore anonbox's own
//! (`anonbox-cluster executor`, built from the same crates), not a stock Ballista executor.
//!
//! A signal (or a library caller's cancel) cancels the run's jobs on the cluster ([`Jobs`])
//! before the driver removes its folders: the executors' tasks are aborted, and a part's task
//! removes its unfinished file, rather than writing on into a staging folder whose run is over.
//!
//! The executors read the input by its path: the driver and every executor must see the same
//! files (one machine, or a shared file system). Their shuffle files hold records' text: the
//! cluster's work folder must be private (`scripts/cluster.sh` makes it 0700 and removes it).

use std::net::{TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ballista::prelude::SessionContextExt;
use ballista_core::execution_plans::DistributedQueryExec;
use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_core::serde::protobuf::CancelJobParams;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::error::Result as DfResult;
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Extension, LogicalPlan, ScalarUDF};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use datafusion_proto::protobuf::LogicalPlanNode;

use super::parts;
use super::release_fn::{ReleaseFn, NAME};
use crate::{Error, Result};

/// How long the driver waits for the scheduler to answer before giving up.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The function's bytes, if `udf` is anonbox's release function.
fn encode(udf: &ScalarUDF, buf: &mut Vec<u8>) -> DfResult<bool> {
    let inner: &dyn std::any::Any = udf.inner().as_ref();
    match inner.downcast_ref::<ReleaseFn>() {
        Some(f) => {
            buf.extend(f.to_bytes()?);
            Ok(true)
        }
        None => Ok(false),
    }
}

fn decode(name: &str, buf: &[u8]) -> Option<DfResult<Arc<ScalarUDF>>> {
    (name == NAME && !buf.is_empty()).then(|| ReleaseFn::from_bytes(buf).map(|f| Arc::new(f.udf())))
}

/// Ballista's logical codec, plus anonbox's release function.
#[derive(Debug, Default)]
pub struct LogicalCodec {
    inner: BallistaLogicalExtensionCodec,
}

impl LogicalExtensionCodec for LogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> DfResult<Extension> {
        match parts::decode(buf, inputs) {
            Some(node) => Ok(Extension {
                node: Arc::new(node?),
            }),
            None => self.inner.try_decode(buf, inputs, ctx),
        }
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> DfResult<()> {
        match parts::encode(node.node.as_ref()) {
            Some(bytes) => {
                buf.extend(bytes);
                Ok(())
            }
            None => self.inner.try_encode(node, buf),
        }
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: arrow::datatypes::SchemaRef,
        ctx: &TaskContext,
    ) -> DfResult<Arc<dyn TableProvider>> {
        self.inner
            .try_decode_table_provider(buf, table_ref, schema, ctx)
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> DfResult<()> {
        self.inner.try_encode_table_provider(table_ref, node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> DfResult<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> DfResult<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> DfResult<Arc<ScalarUDF>> {
        decode(name, buf).unwrap_or_else(|| self.inner.try_decode_udf(name, buf))
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> DfResult<()> {
        if encode(node, buf)? {
            return Ok(());
        }
        self.inner.try_encode_udf(node, buf)
    }
}

/// Ballista's physical codec, plus anonbox's release function.
#[derive(Debug, Default)]
pub struct PhysicalCodec {
    inner: BallistaPhysicalExtensionCodec,
}

impl PhysicalExtensionCodec for PhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        match parts::decode_exec(buf, inputs) {
            Some(plan) => plan,
            None => self.inner.try_decode(buf, inputs, ctx, proto_converter),
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> DfResult<()> {
        match parts::encode_exec(node.as_ref()) {
            Some(bytes) => {
                buf.extend(bytes);
                Ok(())
            }
            None => self.inner.try_encode(node, buf, proto_converter),
        }
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> DfResult<Arc<ScalarUDF>> {
        decode(name, buf).unwrap_or_else(|| self.inner.try_decode_udf(name, buf))
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> DfResult<()> {
        if encode(node, buf)? {
            return Ok(());
        }
        self.inner.try_encode_udf(node, buf)
    }
}

/// The codecs the driver, the scheduler and the executors use.
pub fn codecs() -> (
    Arc<dyn LogicalExtensionCodec>,
    Arc<dyn PhysicalExtensionCodec>,
) {
    (
        Arc::new(LogicalCodec::default()),
        Arc::new(PhysicalCodec::default()),
    )
}

/// `HOST:PORT` of a `ballista://HOST:PORT` address.
pub fn host_port(address: &str) -> &str {
    address.trim().get(11..).unwrap_or("").trim_end_matches('/')
}

/// Fails (a data and I/O error, exit 1) unless the scheduler at `address` accepts a connection
/// within [`CONNECT_TIMEOUT`].
pub fn reachable(address: &str) -> Result<()> {
    let target = host_port(address);
    let unreachable = |why: String| {
        Error::Invalid(format!(
            "cannot reach the Ballista scheduler at {address}: {why}; start one with \
             scripts/cluster.sh up, or check the address"
        ))
    };
    let addrs: Vec<_> = target
        .to_socket_addrs()
        .map_err(|e| unreachable(e.to_string()))?
        .collect();
    let mut last = String::from("no address");
    for a in addrs {
        match TcpStream::connect_timeout(&a, CONNECT_TIMEOUT) {
            Ok(_) => return Ok(()),
            Err(e) => last = e.to_string(),
        }
    }
    Err(unreachable(last))
}

/// How long a signal's cleanup waits for the scheduler to take the cancellations.
pub const CANCEL_TIMEOUT: Duration = Duration::from_secs(3);

/// The plans one run sends to the cluster at `address`: each becomes a job once it starts
/// (its root, Ballista's query node, learns the job's id), and [`Jobs::cancel`] asks the
/// scheduler to cancel those jobs.
pub struct Jobs {
    address: String,
    plans: Mutex<Vec<Arc<dyn ExecutionPlan>>>,
}

impl Jobs {
    pub fn new(address: &str) -> Jobs {
        Jobs {
            address: address.to_string(),
            plans: Mutex::new(Vec::new()),
        }
    }

    fn plans(&self) -> std::sync::MutexGuard<'_, Vec<Arc<dyn ExecutionPlan>>> {
        self.plans
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Tracks `plan`, if it runs on the cluster.
    pub fn track(&self, plan: &Arc<dyn ExecutionPlan>) {
        if query(plan).is_some() {
            self.plans().push(Arc::clone(plan));
        }
    }

    /// The ids of the jobs the tracked plans started.
    fn ids(&self) -> Vec<String> {
        self.plans()
            .iter()
            .filter_map(|p| query(p)?.job_id())
            .map(String::from)
            .collect()
    }

    /// Asks the scheduler to cancel every job started; gives up after [`CANCEL_TIMEOUT`]. A job
    /// that has already finished is sent the request too: the scheduler then only marks it
    /// failed (its results were read). For a signal's cleanup: it runs on its own thread,
    /// outside the run's runtime.
    pub fn cancel(&self) {
        if self.plans().is_empty() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        let url = format!("http://{}", host_port(&self.address));
        let cancel = async {
            let Ok(mut scheduler) = SchedulerGrpcClient::connect(url).await else {
                return;
            };
            // A plan just sent may not know its job's id yet: wait for it a little.
            let mut ids = self.ids();
            for _ in 0..20 {
                if ids.len() == self.plans().len() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                ids = self.ids();
            }
            for job_id in ids {
                let _ = scheduler.cancel_job(CancelJobParams { job_id }).await;
            }
        };
        // The timer is made inside the runtime.
        runtime.block_on(async move {
            let _ = tokio::time::timeout(CANCEL_TIMEOUT, cancel).await;
        });
    }
}

/// Ballista's query node at the root of `plan`, if it runs on a cluster.
fn query(plan: &Arc<dyn ExecutionPlan>) -> Option<&DistributedQueryExec<LogicalPlanNode>> {
    let any: &dyn std::any::Any = plan.as_ref();
    any.downcast_ref()
}

/// The largest plan a driver, scheduler or executor sends or takes (gRPC's limit, 16 MiB by
/// default): the release's function carries a map as large as the frequency set's distinct
/// values, and Mondrian's a class per tuple.
pub const MAX_MESSAGE: usize = 1 << 30;

/// A context whose plans run on the cluster at `address`, configured by `config`.
pub async fn context(address: &str, config: SessionConfig) -> DfResult<SessionContext> {
    let (logical, physical) = codecs();
    // Named, and tracked by polling: the driver learns a job's id as soon as the scheduler
    // takes it (pushed status gives it only with the first update), so a signal can cancel it.
    let config = config
        .with_ballista_job_name("anonbox")
        .set_bool(ballista_core::config::BALLISTA_CLIENT_PULL, true)
        .with_ballista_logical_extension_codec(logical)
        .with_ballista_physical_extension_codec(physical)
        .with_ballista_grpc_client_max_message_size(MAX_MESSAGE);
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    let url = format!("df://{}", host_port(address));
    SessionContext::remote_with_state(&url, state).await
}

/// The scheduler's sessions: Ballista's, planning anonbox's part writer too
/// ([`parts::Planner`]).
pub fn session_builder(config: SessionConfig) -> DfResult<datafusion::execution::SessionState> {
    let state = ballista_core::utils::default_session_builder(config)?;
    Ok(SessionStateBuilder::new_from_existing(state)
        .with_query_planner(Arc::new(parts::Planner))
        .build())
}
