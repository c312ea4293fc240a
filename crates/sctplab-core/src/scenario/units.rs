//! Quantities with units, as scenario files write them: rates `10Mb`/`10Mbps`
//! (10^6 bit/s), sizes `B`, `KB` (1000 B), `KiB` (1024 B), `MB`, `MiB`, times `ns`, `us`,
//! `ms`, `s`. Numbers are parsed as exact decimals, so `0.1ms` is exactly 100 000 ns.

use crate::sim::SimDuration;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Splits `"12.5ms"` into an exact decimal (digits, fraction length) and the unit.
fn split_quantity(s: &str) -> Result<(u128, u32, &str), String> {
    let s = s.trim();
    if s.starts_with('-') {
        return Err("must not be negative".into());
    }
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let unit = unit.trim();
    if num.is_empty() {
        return Err("has no number".into());
    }
    let (int_part, frac_part) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    if frac_part.contains('.') || (int_part.is_empty() && frac_part.is_empty()) {
        return Err("is not a number".into());
    }
    if frac_part.len() > 18 {
        return Err("has too many decimals".into());
    }
    let digits = format!("{int_part}{frac_part}");
    let mantissa: u128 = digits.parse().map_err(|_| "is too large".to_string())?;
    Ok((mantissa, frac_part.len() as u32, unit))
}

/// mantissa / 10^frac * scale, rounded to the nearest integer.
fn scale(mantissa: u128, frac: u32, scale: u128) -> Result<u64, String> {
    let num = mantissa.checked_mul(scale).ok_or("is too large")?;
    let den = 10u128.pow(frac);
    let v = (num + den / 2) / den;
    u64::try_from(v).map_err(|_| "is too large".to_string())
}

pub fn parse_duration(s: &str) -> Result<SimDuration, String> {
    let (m, f, unit) = split_quantity(s)?;
    let ns_per = match unit {
        "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "" => return Err("needs a unit (ns, us, ms, s)".into()),
        _ => {
            return Err(format!(
                "has unknown unit {unit:?} (expected ns, us, ms or s)"
            ));
        }
    };
    scale(m, f, ns_per).map(SimDuration::from_nanos)
}

pub fn parse_rate(s: &str) -> Result<u64, String> {
    let (m, f, unit) = split_quantity(s)?;
    let base = unit.strip_suffix("ps").unwrap_or(unit);
    let per = match base {
        "b" => 1,
        "Kb" | "kb" => 1_000,
        "Mb" => 1_000_000,
        "Gb" => 1_000_000_000,
        "" => return Err("needs a unit (b, Kb, Mb, Gb, optionally with \"ps\")".into()),
        _ => {
            return Err(format!(
                "has unknown unit {unit:?} (expected b, Kb, Mb or Gb, optionally with \"ps\")"
            ));
        }
    };
    scale(m, f, per)
}

pub fn parse_size(s: &str) -> Result<u64, String> {
    let (m, f, unit) = split_quantity(s)?;
    let per: u128 = match unit {
        "B" => 1,
        "KB" | "kB" => 1_000,
        "KiB" => 1_024,
        "MB" => 1_000_000,
        "MiB" => 1_048_576,
        "GB" => 1_000_000_000,
        "GiB" => 1_073_741_824,
        "" => return Err("needs a unit (B, KB, KiB, MB, MiB, GB, GiB)".into()),
        _ => {
            return Err(format!(
                "has unknown unit {unit:?} (expected B, KB, KiB, MB, MiB, GB or GiB)"
            ));
        }
    };
    scale(m, f, per)
}

/// Lengths in micrometres (exact): `m`, `km`, `cm`.
pub fn parse_length(s: &str) -> Result<u64, String> {
    let (m, f, unit) = split_quantity(s)?;
    let per: u128 = match unit {
        "m" => 1_000_000,
        "km" => 1_000_000_000,
        "cm" => 10_000,
        "" => return Err("needs a unit (m, km, cm)".into()),
        _ => return Err(format!("has unknown unit {unit:?} (expected m, km or cm)")),
    };
    scale(m, f, per)
}

/// Speeds in micrometres per second (exact): `m/s`, `km/h`.
pub fn parse_speed(s: &str) -> Result<u64, String> {
    let (m, f, unit) = split_quantity(s)?;
    match unit {
        "m/s" => scale(m, f, 1_000_000),
        // 1 km/h = 1e9 um / 3600 s: scale by 1e9 then divide, rounding to the nearest.
        "km/h" => scale(m, f, 1_000_000_000).map(|v| (v + 1800) / 3600),
        "" => Err("needs a unit (m/s, km/h)".into()),
        _ => Err(format!("has unknown unit {unit:?} (expected m/s or km/h)")),
    }
}

fn micros_text(v: u64, unit: &str) -> String {
    let (int, frac) = (v / 1_000_000, v % 1_000_000);
    if frac == 0 {
        format!("{int}{unit}")
    } else {
        let f = format!("{frac:06}");
        format!("{int}.{}{unit}", f.trim_end_matches('0'))
    }
}

macro_rules! unit_type {
    ($name:ident, $inner:ty, $parse:ident, $example:literal, $fmt:expr) => {
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, "a string like {}", $example)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        $parse(s).map($name).map_err(|why| {
                            E::custom(format!("{s:?} {why}; expected a value like {}", $example))
                        })
                    }
                }
                d.deserialize_str(V)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let f: fn(&$inner) -> String = $fmt;
                s.serialize_str(&f(&self.0))
            }
        }
    };
}

unit_type!(
    Duration,
    SimDuration,
    parse_duration,
    "\"250ms\"",
    |d| format!("{}ns", d.as_nanos())
);
unit_type!(Rate, u64, parse_rate, "\"10Mb\"", |r| format!("{r}b"));
unit_type!(Size, u64, parse_size, "\"1448B\"", |b| format!("{b}B"));
unit_type!(Length, u64, parse_length, "\"250m\"", |v| micros_text(
    *v, "m"
));
unit_type!(Speed, u64, parse_speed, "\"10m/s\"", |v| micros_text(
    *v, "m/s"
));

impl Length {
    pub fn meters(self) -> f64 {
        self.0 as f64 / 1e6
    }
}

impl Speed {
    pub fn meters_per_sec(self) -> f64 {
        self.0 as f64 / 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250ms").unwrap().as_nanos(), 250_000_000);
        assert_eq!(parse_duration("0.1ms").unwrap().as_nanos(), 100_000);
        assert_eq!(
            parse_duration("1000s").unwrap().as_nanos(),
            1_000_000_000_000
        );
        assert_eq!(parse_duration("3 us").unwrap().as_nanos(), 3_000);
        assert!(parse_duration("-5ms").unwrap_err().contains("negative"));
        assert!(parse_duration("5").unwrap_err().contains("unit"));
        assert!(parse_duration("5Mb").unwrap_err().contains("unknown unit"));
        assert!(parse_duration("1.2.3s").is_err());
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Mb").unwrap(), 10_000_000);
        assert_eq!(parse_rate("10Mbps").unwrap(), 10_000_000);
        assert_eq!(parse_rate("0.8Mb").unwrap(), 800_000);
        assert_eq!(parse_rate("16Kb").unwrap(), 16_000);
        assert!(parse_rate("10MB").is_err());
    }

    #[test]
    fn lengths_and_speeds() {
        assert_eq!(parse_length("250m").unwrap(), 250_000_000);
        assert_eq!(parse_length("1.5m").unwrap(), 1_500_000);
        assert_eq!(parse_length("1km").unwrap(), 1_000_000_000);
        assert!(parse_length("250").unwrap_err().contains("unit"));
        assert!(parse_length("-1m").unwrap_err().contains("negative"));
        assert_eq!(parse_speed("10m/s").unwrap(), 10_000_000);
        // 36 km/h = 10 m/s.
        assert_eq!(parse_speed("36km/h").unwrap(), 10_000_000);
        assert!(parse_speed("10m").unwrap_err().contains("unknown unit"));
        assert_eq!(micros_text(1_500_000, "m"), "1.5m");
        assert_eq!(micros_text(10_000_000, "m/s"), "10m/s");
        assert_eq!(micros_text(1, "m"), "0.000001m");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("64KiB").unwrap(), 65_536);
        assert_eq!(parse_size("64KB").unwrap(), 64_000);
        assert_eq!(parse_size("1MB").unwrap(), 1_000_000);
        assert_eq!(parse_size("1448B").unwrap(), 1448);
        assert!(parse_size("1448").is_err());
    }
}
