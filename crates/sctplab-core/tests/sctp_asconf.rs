//! ASCONF (RFC 5061) in a run: scenarios/example-asconf.toml's mobile node hands over
//! from network A to network B and keeps its association; bad `[[faults]]` entries
//! and `bind` lists give one line naming the key.

mod common;

fn example() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/example-asconf.toml"
    );
    std::fs::read_to_string(path).expect("scenario")
}

/// Three requests at 20 s: the Add goes at once; Set Primary and Delete wait for its
/// ASCONF-ACK (one ASCONF outstanding, RFC 5061 5.1.1 C1) and go together in a second
/// ASCONF. All three are performed; the server adds m:eth1, makes it primary and
/// deletes m:eth0; every chunk of the four goes behind an AUTH chunk (none dropped).
/// The association lives on: data keeps arriving after the move.
#[test]
fn handover_keeps_the_association() {
    let text = format!("{}\n[measure]\nstart = \"25s\"\n", example());
    let s = common::summary(&text, 1);
    let f = &s["flows"]["mobile"];
    assert_eq!(f["asconf_negotiated"], true, "{f}");
    assert_eq!(f["asconf_sent"], 2);
    assert_eq!(f["asconf_retransmissions"], 0);
    assert_eq!(f["asconf_requests_performed"], 3);
    assert_eq!(f["asconf_requests_refused"], 0);
    assert_eq!(f["peer_addresses_added"], 1);
    assert_eq!(f["peer_addresses_deleted"], 1);
    assert_eq!(f["peer_primaries_set"], 1);
    assert_eq!(f["auth_chunks_sent"], 4);
    assert_eq!(f["auth_drops"], 0);
    // From 25 s on data flows, and none of it by network A (gone since 20 s).
    assert!(f["delivered_bytes"].as_u64().unwrap() > 1_000_000, "{f}");
    assert_eq!(f["paths"]["s:eth0"]["bytes_acked"], 0);
}

/// Without the ASCONF entries the same flow has no ASCONF keys (and announces none).
#[test]
fn off_without_address_changes() {
    let text: String = example()
        .split("[[faults]]")
        .next()
        .unwrap()
        .replace("bind = [\"m:eth0\"]\n", "");
    let s = common::summary(&text, 1);
    let f = s["flows"]["mobile"].as_object().unwrap();
    assert!(!f.contains_key("asconf_sent"));
}

fn err(text: &str) -> String {
    sctplab_core::load_toml(text, "s.toml", "s", &[])
        .expect_err("must fail")
        .to_string()
}

#[test]
fn bad_entries_give_one_line() {
    let base = example();
    // ASCONF without AUTH.
    let e = err(&base.replace("auth = true\n", ""));
    assert!(
        e.contains("faults.add_b.flow") && e.contains("auth = true"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    // An address of another node, and an interface the node does not have.
    let e = err(&base.replace("address = \"m:eth1\"", "address = \"s:eth1\""));
    assert!(
        e.contains("faults.add_b.address") && e.contains("not an interface of the flow's sender"),
        "{e}"
    );
    let e = err(&base.replace("address = \"m:eth1\"", "address = \"m:eth7\""));
    assert!(
        e.contains("faults.add_b.address") && e.contains("no interface \"eth7\""),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    // No address.
    let e = err(&base.replace("address = \"m:eth0\"", ""));
    assert!(
        e.contains("faults.delete_a.address") && e.contains("required"),
        "{e}"
    );
    // bind: another node's interface, a repeat, an empty list.
    let e = err(&base.replace("bind = [\"m:eth0\"]", "bind = [\"s:eth0\"]"));
    assert!(e.contains("flows.mobile.bind[0]"), "{e}");
    let e = err(&base.replace("bind = [\"m:eth0\"]", "bind = [\"m:eth0\", \"m:eth0\"]"));
    assert!(
        e.contains("flows.mobile.bind[1]") && e.contains("twice"),
        "{e}"
    );
    let e = err(&base.replace("bind = [\"m:eth0\"]", "bind = []"));
    assert!(
        e.contains("flows.mobile.bind") && e.contains("empty"),
        "{e}"
    );
}
