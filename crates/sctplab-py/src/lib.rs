//! sctplab._core: thin bindings. All modelling lives in sctplab-core; this crate only
//! converts arguments and results and maps errors to Python exceptions.

mod flat_metrics;
mod indent_json;

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use sctplab_core::trace::TraceConfig;
use sctplab_core::{
    Error, RunOptions, Scenario, export_movement, load_json, load_toml, run_scenario_interruptible,
};
use std::path::PathBuf;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario file, dict or override is invalid."
);
create_exception!(
    _core,
    UsageError,
    PyValueError,
    "An option outside the scenario is invalid."
);
create_exception!(
    _core,
    RunError,
    PyRuntimeError,
    "A run was stopped before its end: a livelock, simulated time at its maximum, a limit, its wall-clock timeout, or an internal error (a broken rule of the simulator)."
);

fn to_py(e: Error) -> PyErr {
    match e {
        Error::Scenario(s) => ScenarioError::new_err(s.to_string()),
        Error::Usage(m) => UsageError::new_err(m),
        Error::Stopped(m) => RunError::new_err(m),
        Error::Internal(_) => RunError::new_err(e.to_string()),
        // The scenario asks for more than a run holds: bad input (exit status 2).
        Error::Limit(m) => ScenarioError::new_err(m),
        Error::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        Error::Io { .. } => PyOSError::new_err(e.to_string()),
    }
}

fn load(
    text: &str,
    is_json: bool,
    source: &str,
    default_name: &str,
    sets: Vec<(String, String)>,
) -> PyResult<Scenario> {
    let r = if is_json {
        load_json(text, source, default_name, &sets)
    } else {
        load_toml(text, source, default_name, &sets)
    };
    r.map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Validates a scenario and returns (name, resolved TOML).
#[pyfunction]
#[pyo3(signature = (text, *, is_json=false, source="<string>", default_name="scenario", sets=Vec::new()))]
fn resolve(
    text: &str,
    is_json: bool,
    source: &str,
    default_name: &str,
    sets: Vec<(String, String)>,
) -> PyResult<(String, String)> {
    let s = load(text, is_json, source, default_name, sets)?;
    Ok((s.name, s.resolved_toml))
}

/// Runs one scenario. Returns a dict: summary_json, resolved_toml, name, events,
/// sim_time_s, wall_s, and series columns (little-endian f64/u32 bytes plus names).
/// With `series_spill`, sampled rows beyond the last whole chunk are returned; the
/// chunks before are in that file (see `sctplab_core::trace::series`). With
/// `catalog_metrics`, also metrics_json: what `catalog_metrics` gives for the summary.
#[pyfunction]
#[pyo3(signature = (text, *, is_json=false, source="<string>", default_name="scenario", sets=Vec::new(), seed=1, out_dir=None, pcap=false, traces=Vec::new(), series=Vec::new(), progress=false, timeout_s=None, series_spill=None, series_disk_limit=None, catalog_metrics=false, max_output=None, output_notes=false, shortcuts="all"))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    is_json: bool,
    source: &str,
    default_name: &str,
    sets: Vec<(String, String)>,
    seed: u64,
    out_dir: Option<PathBuf>,
    pcap: bool,
    traces: Vec<String>,
    series: Vec<String>,
    progress: bool,
    timeout_s: Option<f64>,
    series_spill: Option<PathBuf>,
    series_disk_limit: Option<u64>,
    catalog_metrics: bool,
    max_output: Option<&str>,
    output_notes: bool,
    shortcuts: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let scenario = load(text, is_json, source, default_name, sets)?;
    let max_output = max_output
        .map(|v| {
            sctplab_core::scenario::units::parse_size(v).map_err(|e| {
                UsageError::new_err(format!(
                    "--max-output {v:?}: {e}; expected a size such as 500MB or 2GiB"
                ))
            })
        })
        .transpose()?;
    let mut trace = TraceConfig {
        out_dir,
        pcap,
        series_spill,
        series_disk_limit,
        max_output,
        output_notes,
        ..TraceConfig::default()
    };
    trace
        .set_traces(&traces)
        .map_err(|m| UsageError::new_err(format!("--trace: {m}")))?;
    trace
        .set_series(&series)
        .map_err(|m| UsageError::new_err(format!("--series: {m}")))?;
    let wall_limit = match timeout_s {
        Some(t) if t.is_finite() && t > 0.0 => Some(std::time::Duration::from_secs_f64(t.min(1e9))),
        Some(t) => {
            return Err(UsageError::new_err(format!(
                "--run-timeout {t}: expected a positive number of seconds"
            )));
        }
        None => None,
    };
    let shortcuts = parse_shortcuts(shortcuts)?;
    let opts = RunOptions {
        seed,
        trace,
        progress,
        wall_limit,
        packet_limit: None,
        shortcuts,
    };
    // The run holds no GIL, so Python never sees a signal on its own: ask it now and
    // then (PyErr_CheckSignals runs the handlers; SIGINT's raises KeyboardInterrupt),
    // and keep what the handler raised to re-raise it here.
    let mut raised: Option<PyErr> = None;
    let result = py.detach(|| {
        run_scenario_interruptible(&scenario, &opts, &mut || {
            Python::attach(|py| match py.check_signals() {
                Ok(()) => false,
                Err(e) => {
                    raised = Some(e);
                    true
                }
            })
        })
    });
    let result = match (result, raised) {
        (Err(Error::Interrupted), Some(e)) => return Err(e),
        (r, _) => r.map_err(to_py)?,
    };

    let out = PyDict::new(py);
    out.set_item("name", &scenario.name)?;
    out.set_item("resolved_toml", &scenario.resolved_toml)?;
    out.set_item("summary_json", &result.summary_json)?;
    if catalog_metrics {
        let metrics = flat_metrics::catalog_metrics_json(&result.summary_json);
        out.set_item("metrics_json", metrics)?;
    }
    out.set_item("events", result.events)?;
    out.set_item("sim_time_s", result.sim_time_s)?;
    out.set_item("wall_s", result.wall_s)?;
    let s = &result.series;
    let f64s = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let u32s = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let cols = PyDict::new(py);
    cols.set_item("time_s", PyBytes::new(py, &f64s(&s.time_s)))?;
    cols.set_item("entity", PyBytes::new(py, &u32s(&s.entity)))?;
    cols.set_item("variable", PyBytes::new(py, &u32s(&s.variable)))?;
    cols.set_item("value", PyBytes::new(py, &f64s(&s.value)))?;
    cols.set_item("entity_names", s.entity_names.clone())?;
    cols.set_item("variable_names", s.variable_names.clone())?;
    // Rows before these went to `series_spill` in chunks of `spill_chunk_rows`.
    cols.set_item("spilled_rows", s.spilled_rows)?;
    cols.set_item("spill_chunk_rows", sctplab_core::trace::series::SPILL_ROWS)?;
    out.set_item("series", cols)?;
    Ok(out)
}

fn parse_shortcuts(text: &str) -> PyResult<sctplab_core::Shortcuts> {
    sctplab_core::Shortcuts::parse(text)
        .map_err(|m| UsageError::new_err(format!("--shortcuts {m}")))
}

/// Checks a `shortcuts` value (`all`, `none` or a comma list of names) before a run
/// folder is touched; raises UsageError naming what was expected.
#[pyfunction]
fn check_shortcuts(text: &str) -> PyResult<()> {
    parse_shortcuts(text).map(|_| ())
}

/// The catalog's `metrics` column for a summary.json text (its one implementation, which
/// `sctplab.store_rows.metrics_json` calls too), or None for a text the core never
/// writes. Workers call it, so the sweep's one driver does not walk every run's nested
/// summary.
#[pyfunction]
fn catalog_metrics(summary_json: &str) -> Option<String> {
    flat_metrics::catalog_metrics_json(summary_json)
}

/// `json.dumps(value, indent=2)`, or None for a value left to `json.dumps` itself
/// (see `indent_json`). The sweep driver writes every run's run.json and manifest.json
/// with it.
#[pyfunction]
#[pyo3(name = "indent_json")]
fn indent_json_text(value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    indent_json::indent_json(value)
}

/// The movement of a wireless scenario's nodes with `seed`, as an ns-2 setdest file.
#[pyfunction]
#[pyo3(signature = (text, *, is_json=false, source="<string>", default_name="scenario", sets=Vec::new(), seed=1))]
fn movement(
    text: &str,
    is_json: bool,
    source: &str,
    default_name: &str,
    sets: Vec<(String, String)>,
    seed: u64,
) -> PyResult<String> {
    let s = load(text, is_json, source, default_name, sets)?;
    export_movement(&s, seed).map_err(|e| match e {
        // The core does not know where the scenario came from: name it here.
        Error::Scenario(mut e) if e.source == "<scenario>" => {
            e.source = source.to_string();
            to_py(Error::Scenario(e))
        }
        e => to_py(e),
    })
}

/// `[mobility] file` as written in a TOML scenario, if the text parses and it is a
/// string. Python's tomllib takes minutes on hostile nesting; this parser has a depth
/// limit, and a text that does not parse is reported by `resolve` with its position.
#[pyfunction]
fn mobility_file(text: &str) -> Option<String> {
    let table: toml::Table = text.parse().ok()?;
    let file = table.get("mobility")?.get("file")?.as_str()?;
    Some(file.to_string())
}

/// Runs one live association end (`role` "server" or "client") until it ends, the
/// timeout passes or Ctrl-C. Returns a dict: outcome ("graceful", "aborted",
/// "timeout", "interrupted"), line (the contract's JSON line), summary_json.
#[pyfunction]
#[pyo3(signature = (role, *, bind, udp_port, sctp_port, remote=None, remote_udp_port=0, local_sctp_port=None, sets=Vec::new(), scenario_text=None, scenario_source="<string>", flow_name=None, timeout=None, linger=0.0, pcap=None, seed=None, reconfig=false, reset_after=None, pr=None))]
#[allow(clippy::too_many_arguments)]
fn live<'py>(
    py: Python<'py>,
    role: &str,
    bind: &str,
    udp_port: u16,
    sctp_port: u16,
    remote: Option<&str>,
    remote_udp_port: u16,
    local_sctp_port: Option<u16>,
    sets: Vec<(String, String)>,
    scenario_text: Option<&str>,
    scenario_source: &str,
    flow_name: Option<&str>,
    timeout: Option<f64>,
    linger: f64,
    pcap: Option<PathBuf>,
    seed: Option<u64>,
    reconfig: bool,
    reset_after: Option<u64>,
    pr: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    use sctplab_core::live::{FlowSource, LiveOptions, Outcome, Session, assoc_config};
    use sctplab_core::sctp::Role;
    use std::net::{Ipv4Addr, SocketAddrV4};
    use std::time::Duration;
    let role = match role {
        "server" => Role::Server,
        "client" => Role::Client,
        other => return Err(UsageError::new_err(format!("role {other:?}"))),
    };
    let ip = |s: &str, what: &str| -> PyResult<Ipv4Addr> {
        s.parse()
            .map_err(|_| UsageError::new_err(format!("{what} {s}: expected an IPv4 address")))
    };
    let secs = |v: f64, what: &str| -> PyResult<Duration> {
        Duration::try_from_secs_f64(v)
            .map_err(|_| UsageError::new_err(format!("{what} {v}: expected seconds >= 0")))
    };
    let source = match (scenario_text, flow_name) {
        (Some(text), Some(flow)) => Some(FlowSource {
            source: scenario_source,
            text,
            flow,
        }),
        (None, None) => None,
        _ => return Err(UsageError::new_err("--scenario and --flow go together")),
    };
    let mut assoc =
        assoc_config(source.as_ref(), &sets).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    // `--reconfig` / `--reset-after`: announce RE-CONFIG (RFC 6525).
    assoc.knobs.reconfig |= reconfig || reset_after.is_some();
    // `--pr ttl:TIME|rtx:N`: PR-SCTP (RFC 3758, RFC 7496).
    if let Some(p) = pr {
        let policy = sctplab_core::live::config::parse_pr(p).map_err(UsageError::new_err)?;
        sctplab_core::live::config::apply_pr(&mut assoc, role, policy);
    }
    let remote = match remote {
        Some(r) => Some(SocketAddrV4::new(ip(r, "HOST")?, remote_udp_port)),
        None => None,
    };
    let opts = LiveOptions {
        role,
        bind: SocketAddrV4::new(ip(bind, "--bind")?, udp_port),
        remote,
        sctp_port,
        local_sctp_port,
        assoc,
        timeout: timeout.map(|t| secs(t, "--timeout")).transpose()?,
        linger: secs(linger, "--linger")?,
        pcap,
        seed,
    };
    let mut session = Session::new(opts).map_err(|e| PyOSError::new_err(e.to_string()))?;
    if let Some(n) = reset_after {
        session.reset_streams_after(n);
    }
    let outcome = loop {
        let o = py
            .detach(|| session.run_for(Duration::from_millis(100)))
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        if o != Outcome::Running {
            break match o {
                Outcome::Graceful => "graceful",
                Outcome::Aborted => "aborted",
                _ => "timeout",
            };
        }
        // Ctrl-C: Python's handler raised KeyboardInterrupt; end with what we have.
        if py.check_signals().is_err() {
            break "interrupted";
        }
    };
    let out = PyDict::new(py);
    out.set_item("outcome", outcome)?;
    out.set_item("line", session.result_line())?;
    out.set_item("summary_json", session.summary().to_string())?;
    Ok(out)
}

/// Runs the seeded UDP impairment relay (`sctplab live relay`) until `timeout` or
/// Ctrl-C; returns its counters as a JSON text.
#[pyfunction]
#[pyo3(signature = (*, listen, listen_port, server, server_port, loss=0.0, delay=0.0, jitter=0.0, reorder=0.0, reorder_delay=0.0, duplicate=0.0, drop_chunks=Vec::new(), seed=1, timeout=None))]
#[allow(clippy::too_many_arguments)]
fn live_relay(
    py: Python<'_>,
    listen: &str,
    listen_port: u16,
    server: &str,
    server_port: u16,
    loss: f64,
    delay: f64,
    jitter: f64,
    reorder: f64,
    reorder_delay: f64,
    duplicate: f64,
    drop_chunks: Vec<(u32, u32)>,
    seed: u64,
    timeout: Option<f64>,
) -> PyResult<String> {
    use sctplab_core::live::{Impairment, Relay, RelayOptions};
    use std::net::{Ipv4Addr, SocketAddrV4};
    use std::time::{Duration, Instant};
    let ip = |s: &str| -> PyResult<Ipv4Addr> {
        s.parse()
            .map_err(|_| UsageError::new_err(format!("{s}: expected an IPv4 address")))
    };
    let secs = |v: f64| -> PyResult<Duration> {
        Duration::try_from_secs_f64(v)
            .map_err(|_| UsageError::new_err(format!("{v}: expected seconds >= 0")))
    };
    for (name, p) in [
        ("--loss", loss),
        ("--reorder", reorder),
        ("--duplicate", duplicate),
    ] {
        if !(0.0..=1.0).contains(&p) {
            return Err(UsageError::new_err(format!(
                "{name} {p}: expected a probability in [0, 1]"
            )));
        }
    }
    let imp = Impairment {
        loss,
        delay: secs(delay)?,
        jitter: secs(jitter)?,
        reorder,
        reorder_delay: secs(reorder_delay)?,
        duplicate,
    };
    let mut relay = Relay::new(RelayOptions {
        listen: SocketAddrV4::new(ip(listen)?, listen_port),
        server: SocketAddrV4::new(ip(server)?, server_port),
        to_server: imp.clone(),
        to_client: imp,
        drop_chunks,
        seed,
    })
    .map_err(|e| PyOSError::new_err(e.to_string()))?;
    let end = timeout.map(secs).transpose()?.map(|t| Instant::now() + t);
    loop {
        py.detach(|| relay.run_for(Duration::from_millis(100)))
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        if py.check_signals().is_err() || end.is_some_and(|t| Instant::now() >= t) {
            break;
        }
    }
    let (a, b) = relay.stats();
    let dir = |d: &sctplab_core::live::relay::DirStats| {
        format!(
            "{{\"received\": {}, \"forwarded\": {}, \"lost\": {}, \"listed_drops\": {}, \"reordered\": {}, \"duplicated\": {}}}",
            d.received, d.forwarded, d.lost, d.listed_drops, d.reordered, d.duplicated
        )
    };
    Ok(format!(
        "{{\"to_server\": {}, \"to_client\": {}}}",
        dir(a),
        dir(b)
    ))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", sctplab_core::VERSION)?;
    m.add("__git_commit__", env!("SCTPLAB_GIT_COMMIT"))?;
    m.add("__git_dirty__", env!("SCTPLAB_GIT_DIRTY") == "true")?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("UsageError", m.py().get_type::<UsageError>())?;
    m.add("RunError", m.py().get_type::<RunError>())?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(check_shortcuts, m)?)?;
    m.add_function(wrap_pyfunction!(catalog_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(indent_json_text, m)?)?;
    m.add_function(wrap_pyfunction!(movement, m)?)?;
    m.add_function(wrap_pyfunction!(mobility_file, m)?)?;
    m.add_function(wrap_pyfunction!(live, m)?)?;
    m.add_function(wrap_pyfunction!(live_relay, m)?)?;
    Ok(())
}
