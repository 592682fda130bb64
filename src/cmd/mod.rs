pub mod audit;
pub mod hierarchy;
pub mod init;
pub mod plan;
pub mod run;
