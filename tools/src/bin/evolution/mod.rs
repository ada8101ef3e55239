//! The corpus runner's parts: families of versioned files, the oracles, the report.

pub mod families;
pub mod oracle;
pub mod report;
