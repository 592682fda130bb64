//! `anonbox-cluster`: a Ballista scheduler or executor that runs anonbox's plans.
//!
//! A stock Ballista executor cannot run the release: its plans carry anonbox's function
//! (`engine::release_fn`), which only anonbox's codecs (`engine::ballista`) decode. This binary
//! is Ballista's scheduler and executor, built from the `ballista-scheduler` and
//! `ballista-executor` crates in anonbox's own build (DataFusion compiles once), with those
//! codecs. `scripts/cluster.sh` starts a local cluster of them.
//!
//! Records' text passes through an executor's work folder (the shuffle files, and what its
//! plans spill past `--memory-limit`): give it a private folder (`--work-dir`, made 0700 by the
//! script). The scheduler asks the executors to remove a job's files five minutes after it has
//! finished (Ballista's default; the driver reads the last stage's files meanwhile).

use std::net::SocketAddr;
use std::sync::Arc;

use anonbox::engine::ballista::{codecs, session_builder, MAX_MESSAGE};
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "anonbox-cluster",
    about = "A Ballista scheduler or executor for anonbox"
)]
struct Args {
    #[command(subcommand)]
    role: Role,
}

#[derive(Subcommand)]
enum Role {
    /// The scheduler: plans stages and hands tasks to the executors.
    Scheduler {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        /// Port of the scheduler's gRPC service (the `ballista://HOST:PORT` clients use).
        #[arg(long, default_value_t = 50050)]
        port: u16,
    },
    /// An executor: runs tasks, keeps their shuffle files in `--work-dir`.
    Executor {
        /// The scheduler, HOST:PORT.
        #[arg(long, default_value = "127.0.0.1:50050")]
        scheduler: String,
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        /// Port of the executor's Arrow Flight service (shuffle reads).
        #[arg(long)]
        port: u16,
        /// Port of the executor's gRPC service.
        #[arg(long)]
        grpc_port: u16,
        /// Folder of the shuffle files (records' text): a private one.
        #[arg(long)]
        work_dir: String,
        /// Tasks run at once (default: the machine's cores).
        #[arg(long)]
        vcores: Option<usize>,
        /// Memory of the executor's plans (512M, 4G), shared by its tasks; past it they spill
        /// into `--work-dir` (default: Ballista's, 70% of the machine's memory).
        #[arg(long, value_name = "SIZE")]
        memory_limit: Option<String>,
    },
}

fn main() {
    let args = Args::parse();
    // Ballista's warnings and errors (a lost executor, a failed task) with their time, on
    // stderr: `scripts/cluster.sh` keeps them in the cluster's log files. RUST_LOG overrides.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("anonbox-cluster")
        .build()
        .unwrap_or_else(|e| fail(format!("cannot start threads: {e}")));
    let result = runtime.block_on(async move {
        let (logical, physical) = codecs();
        match args.role {
            Role::Scheduler { bind, port } => {
                let config = SchedulerConfig {
                    bind_host: bind.clone(),
                    bind_port: port,
                    external_host: bind.clone(),
                    // A finished job's last files (records' text, in the private work folder)
                    // go five minutes after it is done (Ballista's default): the driver is still
                    // reading its result from them when the scheduler marks it finished (a
                    // frequency set of 20 M groups was cut off with 1 s: "Failed to open
                    // partition file").
                    finished_job_data_clean_up_interval_seconds: 300,
                    // An executor that stops answering (killed, its machine gone) is noticed
                    // within half a minute, and its tasks run again on the others.
                    executor_timeout_seconds: 20,
                    expire_dead_executor_interval_seconds: 5,
                    override_logical_codec: Some(logical),
                    override_physical_codec: Some(physical),
                    // Plans name anonbox's part writer (the release into a folder).
                    override_session_builder: Some(Arc::new(session_builder)),
                    // Plans carry the release's maps (see MAX_MESSAGE).
                    grpc_server_max_decoding_message_size: MAX_MESSAGE as u32,
                    grpc_server_max_encoding_message_size: MAX_MESSAGE as u32,
                    grpc_client_max_message_size: MAX_MESSAGE as u32,
                    ..SchedulerConfig::default()
                };
                let addr: SocketAddr = format!("{bind}:{port}")
                    .parse()
                    .unwrap_or_else(|e| fail(format!("--bind {bind} --port {port}: {e}")));
                let cluster = BallistaCluster::new_from_config(&config)
                    .await
                    .map_err(|e| e.to_string())?;
                start_server(cluster, addr, Arc::new(config))
                    .await
                    .map_err(|e| e.to_string())
            }
            Role::Executor {
                scheduler,
                bind,
                port,
                grpc_port,
                work_dir,
                vcores,
                memory_limit,
            } => {
                let (host, sport) = scheduler
                    .rsplit_once(':')
                    .and_then(|(h, p)| Some((h.to_string(), p.parse::<u16>().ok()?)))
                    .unwrap_or_else(|| fail(format!("--scheduler {scheduler}: write HOST:PORT")));
                let mut config = ExecutorProcessConfig {
                    bind_host: bind.clone(),
                    external_host: Some(bind),
                    port,
                    grpc_port,
                    scheduler_host: host,
                    scheduler_port: sport,
                    scheduler_connect_timeout_seconds: 10,
                    work_dir: Some(work_dir),
                    // Files of a job the scheduler forgot: gone within minutes, not days.
                    job_data_ttl_seconds: 300,
                    job_data_clean_up_interval_seconds: 60,
                    executor_heartbeat_interval_seconds: 5,
                    special_mod_log_level: "WARN".into(),
                    override_logical_codec: Some(logical),
                    override_physical_codec: Some(physical),
                    grpc_max_decoding_message_size: MAX_MESSAGE as u32,
                    grpc_max_encoding_message_size: MAX_MESSAGE as u32,
                    ..ExecutorProcessConfig::default()
                };
                if let Some(v) = vcores {
                    config.vcores = v.max(1);
                }
                if let Some(size) = memory_limit {
                    let bytes = anonbox::io::source::parse_size(&size)
                        .unwrap_or_else(|m| fail(format!("--memory-limit: {m}")));
                    config.memory_pool_size = Some(bytes as u64);
                }
                start_executor_process(Arc::new(config))
                    .await
                    .map_err(|e| e.to_string())
            }
        }
    });
    if let Err(e) = result {
        fail(e);
    }
}

fn fail(message: String) -> ! {
    eprintln!("anonbox-cluster: {}", message.replace('\n', " "));
    std::process::exit(1)
}
