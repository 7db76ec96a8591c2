//! Errors of loading a script and of starting a server.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;

/// A script that could not be read, parsed or used.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// The script file could not be read.
    #[error("reading script {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The script is not valid script JSON.
    #[error("parsing script: {0}")]
    Parse(#[from] serde_json::Error),
    /// A rule asks for something the server cannot send.
    #[error("invalid script: rule {rule}: {message}")]
    Invalid {
        /// Index of the rule in the script (from 0).
        rule: usize,
        /// What is wrong.
        message: String,
    },
}

/// A server that could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The script was rejected.
    #[error(transparent)]
    Script(#[from] ScriptError),
    /// The listening socket could not be opened.
    #[error("binding {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        source: io::Error,
    },
    /// The accept thread could not be started.
    #[error("starting the accept thread: {0}")]
    Spawn(#[source] io::Error),
}
