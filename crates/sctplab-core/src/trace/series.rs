//! Sampled variables in long form (`time_s, entity, variable, value`), kept as columns so
//! Python receives them without per-row conversion and pyarrow writes the Parquet file.

/// Variables `--series` accepts. Protocol endpoints report the ones they have; the
/// network reports `queue` (packets waiting in each link direction's queue, the packet
/// in transmission not counted, as ns-2's queue monitor counts). `rto`, `srtt`, `state`
/// and `errors` exist per SCTP destination only (entity `<flow>@<node>:<iface>`).
pub const VARIABLES: &[&str] = &[
    "cwnd", "ssthresh", "flight", "rwnd", "a_rwnd", "pba", "pipe", "queue", "rto", "srtt", "state",
    "errors",
];

#[derive(Default, Debug, Clone)]
pub struct Series {
    pub time_s: Vec<f64>,
    pub entity: Vec<u32>,
    pub variable: Vec<u32>,
    pub value: Vec<f64>,
    pub entity_names: Vec<String>,
    pub variable_names: Vec<String>,
}

impl Series {
    pub fn entity_id(&mut self, name: &str) -> u32 {
        intern(&mut self.entity_names, name)
    }
    pub fn variable_id(&mut self, name: &str) -> u32 {
        intern(&mut self.variable_names, name)
    }
    pub fn push(&mut self, time_s: f64, entity: u32, variable: u32, value: f64) {
        self.time_s.push(time_s);
        self.entity.push(entity);
        self.variable.push(variable);
        self.value.push(value);
    }
    pub fn len(&self) -> usize {
        self.time_s.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}

fn intern(names: &mut Vec<String>, name: &str) -> u32 {
    match names.iter().position(|n| n == name) {
        Some(i) => i as u32,
        None => {
            names.push(name.to_string());
            (names.len() - 1) as u32
        }
    }
}
