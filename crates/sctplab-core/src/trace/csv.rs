//! sends.csv and acks.csv (CONTRACTS.md "Trace files").

use crate::sim::SimTime;
use std::io::{self, Write};

pub struct SendsCsv<W: Write> {
    w: W,
}

impl<W: Write> SendsCsv<W> {
    pub fn new(mut w: W) -> io::Result<Self> {
        writeln!(w, "time_s,flow,seq,kind,dest")?;
        Ok(SendsCsv { w })
    }
    pub fn row(
        &mut self,
        t: SimTime,
        flow: &str,
        seq: u32,
        kind: &str,
        dest: &str,
    ) -> io::Result<()> {
        writeln!(self.w, "{t},{flow},{seq},{kind},{dest}")
    }
    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

pub struct AcksCsv<W: Write> {
    w: W,
}

impl<W: Write> AcksCsv<W> {
    pub fn new(mut w: W) -> io::Result<Self> {
        writeln!(w, "time_s,flow,cum_ack,gaps,dups,rwnd_bytes")?;
        Ok(AcksCsv { w })
    }
    pub fn row(
        &mut self,
        t: SimTime,
        flow: &str,
        cum_ack: u32,
        gaps: &[(u32, u32)],
        dups: u32,
        rwnd_bytes: u64,
    ) -> io::Result<()> {
        write!(self.w, "{t},{flow},{cum_ack},")?;
        for (i, (a, b)) in gaps.iter().enumerate() {
            if i > 0 {
                write!(self.w, ";")?;
            }
            write!(self.w, "{a}-{b}")?;
        }
        writeln!(self.w, ",{dups},{rwnd_bytes}")
    }
    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_contract() {
        let mut s = SendsCsv::new(Vec::new()).unwrap();
        s.row(
            SimTime::from_nanos(1_500_000_000),
            "tcp1",
            7,
            "fast_rtx",
            "b:eth0",
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(s.w).unwrap(),
            "time_s,flow,seq,kind,dest\n1.500000000,tcp1,7,fast_rtx,b:eth0\n"
        );
        let mut a = AcksCsv::new(Vec::new()).unwrap();
        a.row(SimTime::ZERO, "s", 19, &[(20, 32), (40, 41)], 1, 65536)
            .unwrap();
        a.row(SimTime::ZERO, "s", 19, &[], 0, 0).unwrap();
        let text = String::from_utf8(a.w).unwrap();
        assert!(text.ends_with("0.000000000,s,19,20-32;40-41,1,65536\n0.000000000,s,19,,0,0\n"));
    }
}
