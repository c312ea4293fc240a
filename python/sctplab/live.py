"""`sctplab live server|client|relay`: the simulator's SCTP association over real UDP
(RFC 6951 encapsulation), CONTRACTS.md "Live mode". The association and its driver are
Rust (`sctplab_core::live`); this module is the command line around them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from sctplab import _core
from sctplab.scenario_input import parse_set

# Exit statuses (CONTRACTS.md): 0 success, 1 failure, 2 bad input, 3 timeout.
EXIT_OK, EXIT_FAIL, EXIT_TIMEOUT, EXIT_INTERRUPTED = 0, 1, 3, 130


def _ipv4(host: str) -> str:
    # Imported here: the CLI loads this module at start-up, and socket's import costs
    # about as much as the rest of sctplab's own modules.
    import socket

    try:
        return socket.gethostbyname(host)
    except OSError as e:
        raise click.UsageError(f"{host}: cannot resolve to an IPv4 address ({e})") from None


def _flow_source(scenario: Path | None, flow: str | None) -> tuple[str | None, str]:
    if (scenario is None) != (flow is None):
        raise click.UsageError("--scenario and --flow go together")
    if scenario is None:
        return None, "<string>"
    try:
        return scenario.read_text(encoding="utf-8"), str(scenario)
    except OSError as e:
        raise click.UsageError(f"{scenario}: cannot read scenario file: {e}") from None


def _with_auth(
    sets: list[tuple[str, str]], auth: bool, interleave: bool = False
) -> list[tuple[str, str]]:
    # `--auth` is the flow key `auth = true` and `--interleave` the flow key
    # `interleaving = true` (CONTRACTS.md "Messages: ..."), ahead of the `--set`s so that
    # an explicit `--set auth=...` or `--set interleaving=...` still decides.
    ahead = [("auth", "true")] if auth else []
    if interleave:
        ahead.append(("interleaving", "true"))
    return [*ahead, *sets]


def _say_fallback(result: _core.LiveResult) -> None:
    # RFC 8260 sec. 2.2.1: I-DATA only when both ends list it; a peer that did not gets
    # DATA, and the user is told (the summary's `interleaving_negotiated` is false).
    flow = json.loads(result["summary_json"]).get("flows", {}).get("live", {})
    if flow.get("interleaving_negotiated") is False and flow.get("established_at_s") is not None:
        click.echo(
            "sctplab live: the peer did not announce I-DATA (RFC 8260 sec. 2.2.1): "
            "--interleave fell back to DATA",
            err=True,
        )


def _finish(result: _core.LiveResult, summary: Path | None, status: int) -> None:
    _say_fallback(result)
    click.echo(result["line"])
    if summary is not None:
        data = json.loads(result["summary_json"])
        summary.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    sys.exit(status)


def _common(f: click.decorators.FC) -> click.decorators.FC:
    options = [
        click.option("--port", "port", type=click.IntRange(1, 65535), required=True,
                     help="The server's SCTP port."),
        click.option("--udp-port", type=click.IntRange(0, 65535), required=True,
                     help="Local UDP port of the encapsulation (RFC 6951)."),
        click.option("--timeout", type=click.FloatRange(min=0), default=None,
                     help="Give up after SECONDS (exit status 3)."),
        click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                     help="Override one key of the SCTP flow (variant=newreno, "
                          "rto_min=200ms). Repeatable."),
        click.option("--scenario", type=click.Path(dir_okay=False, exists=True, path_type=Path),
                     help="Take the SCTP flow entry --flow of this scenario file."),
        click.option("--flow", default=None, help="Name of the scenario's SCTP flow."),
        click.option("--pcap", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write what was sent and received (IPv4/UDP/SCTP) to this pcap."),
        click.option("--summary", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write the flow's summary.json metrics and live counters here."),
        click.option("--seed", type=click.IntRange(min=0), default=None,
                     help="Seed of tags, TSNs and cookie secret [default: random]."),
        click.option("--auth", is_flag=True, default=False,
                     help="AUTH (RFC 4895, HMAC-SHA-256 or SHA-1): the flow key auth = true."),
        click.option("--reconfig", is_flag=True, default=False,
                     help="Announce RE-CONFIG (RFC 6525): accept the peer's stream resets."),
        click.option("--pr", "pr", default=None, metavar="ttl:TIME|rtx:N",
                     help="PR-SCTP (RFC 3758, RFC 7496): the client gives up a message after "
                          "TIME (ttl:100ms) or N retransmissions (rtx:2); the server accepts "
                          "the peer's abandoned messages."),
        click.option("--interleave", is_flag=True, default=False,
                     help="I-DATA (RFC 8260), the flow key interleaving = true; DATA with a "
                          "peer that does not announce it (said on stderr)."),
    ]  # fmt: skip
    for opt in reversed(options):
        f = opt(f)
    return f


@click.group("live")
def live_group() -> None:
    """The simulator's SCTP association over real UDP (RFC 6951)."""


@live_group.command("server")
@_common
@click.option("--bind", default="127.0.0.1", show_default=True, help="Local IPv4 address.")
def server_cmd(
    port: int,
    udp_port: int,
    timeout: float | None,
    sets: tuple[str, ...],
    scenario: Path | None,
    flow: str | None,
    pcap: Path | None,
    summary: Path | None,
    seed: int | None,
    auth: bool,
    reconfig: bool,
    pr: str | None,
    interleave: bool,
    bind: str,
) -> None:
    """Accept one association on SCTP port --port over UDP port --udp-port, check the
    test messages it carries, print one JSON line. Exit 0 after a graceful shutdown
    with no errors, 1 otherwise, 3 on timeout."""
    text, source = _flow_source(scenario, flow)
    result = _core.live(
        "server",
        bind=_ipv4(bind),
        udp_port=udp_port,
        sctp_port=port,
        sets=_with_auth([parse_set(s) for s in sets], auth, interleave),
        scenario_text=text,
        scenario_source=source,
        flow_name=flow,
        timeout=timeout,
        pcap=str(pcap) if pcap else None,
        seed=seed,
        reconfig=reconfig,
        pr=pr,
    )
    errors = int(json.loads(result["line"]).get("errors", 1))
    status = {
        "graceful": EXIT_OK if errors == 0 else EXIT_FAIL,
        "timeout": EXIT_TIMEOUT,
        "interrupted": EXIT_INTERRUPTED,
    }.get(result["outcome"], EXIT_FAIL)
    _finish(result, summary, status)


@live_group.command("client")
@click.argument("host")
@_common
@click.option("--remote-udp-port", type=click.IntRange(1, 65535), required=True,
              help="The server's UDP port.")  # fmt: skip
@click.option("--streams", type=click.IntRange(1, 65535), default=1, show_default=True)
@click.option("--messages", type=click.IntRange(min=1), default=1000, show_default=True)
@click.option("--size", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Bytes per message.")  # fmt: skip
@click.option("--bind", default="127.0.0.1", show_default=True, help="Local IPv4 address.")
@click.option("--local-port", type=click.IntRange(1, 65535), default=None,
              help="Own SCTP port [default: --port].")  # fmt: skip
@click.option("--linger", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="Seconds to stay after the shutdown, answering a retransmitted "
                   "SHUTDOWN-ACK (RFC 9260 8.4).")  # fmt: skip
@click.option("--reset-after", type=click.IntRange(min=1), default=None, metavar="N",
              help="Once N messages are acknowledged, reset every outgoing stream "
                   "(RFC 6525 Outgoing SSN Reset; implies --reconfig).")  # fmt: skip
def client_cmd(
    host: str,
    port: int,
    udp_port: int,
    timeout: float | None,
    sets: tuple[str, ...],
    scenario: Path | None,
    flow: str | None,
    pcap: Path | None,
    summary: Path | None,
    seed: int | None,
    auth: bool,
    reconfig: bool,
    pr: str | None,
    interleave: bool,
    remote_udp_port: int,
    streams: int,
    messages: int,
    size: int,
    bind: str,
    local_port: int | None,
    linger: float,
    reset_after: int | None,
) -> None:
    """Open an association to HOST, send --messages test messages of --size bytes
    round-robin over --streams streams, shut down gracefully. Exit 0 once the shutdown
    completed, 1 if the association failed, 3 on timeout."""
    text, source = _flow_source(scenario, flow)
    parsed = [parse_set(s) for s in sets]
    # The contract's options win over the flow entry and --set.
    parsed += [
        ("streams", str(streams)),
        ("bytes", f'"{messages * size}B"'),
        ("message_size", f'"{size}B"'),
    ]
    result = _core.live(
        "client",
        bind=_ipv4(bind),
        udp_port=udp_port,
        sctp_port=port,
        remote=_ipv4(host),
        remote_udp_port=remote_udp_port,
        local_sctp_port=local_port,
        sets=_with_auth(parsed, auth, interleave),
        scenario_text=text,
        scenario_source=source,
        flow_name=flow,
        timeout=timeout,
        linger=linger,
        pcap=str(pcap) if pcap else None,
        seed=seed,
        reconfig=reconfig,
        reset_after=reset_after,
        pr=pr,
    )
    status = {
        "graceful": EXIT_OK,
        "timeout": EXIT_TIMEOUT,
        "interrupted": EXIT_INTERRUPTED,
    }.get(result["outcome"], EXIT_FAIL)
    _finish(result, summary, status)


def _drop_list(items: tuple[str, ...]) -> list[tuple[int, int]]:
    out = []
    for item in items:
        num, _, times = item.partition("x")
        try:
            out.append((int(num), int(times) if times else 1))
        except ValueError:
            raise click.UsageError(
                f"--drop {item}: expected N or NxTIMES, e.g. 120x2 (chunk 120, twice)"
            ) from None
    return out


@live_group.command("relay")
@click.option("--listen-port", type=click.IntRange(0, 65535), required=True,
              help="UDP port the client sends to.")  # fmt: skip
@click.option("--server-port", type=click.IntRange(1, 65535), required=True,
              help="The server's UDP port.")  # fmt: skip
@click.option("--bind", default="127.0.0.1", show_default=True)
@click.option("--server", "server_host", default="127.0.0.1", show_default=True)
@click.option("--loss", type=float, default=0.0, help="Loss probability per datagram.")
@click.option("--delay", type=click.FloatRange(min=0), default=0.0, help="Seconds one way.")
@click.option("--jitter", type=click.FloatRange(min=0), default=0.0,
              help="Extra uniform delay, up to SECONDS.")  # fmt: skip
@click.option("--reorder", type=float, default=0.0,
              help="Probability a datagram is held back --reorder-delay longer.")  # fmt: skip
@click.option("--reorder-delay", type=click.FloatRange(min=0), default=0.005,
              show_default=True)  # fmt: skip
@click.option("--duplicate", type=float, default=0.0, help="Duplication probability.")
@click.option("--drop", "drops", multiple=True, metavar="N[xTIMES]",
              help="Drop DATA chunk N (1-based from the client's initial TSN) the first "
                   "TIMES times it goes to the server. Repeatable.")  # fmt: skip
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0), default=None)
def relay_cmd(
    listen_port: int,
    server_port: int,
    bind: str,
    server_host: str,
    loss: float,
    delay: float,
    jitter: float,
    reorder: float,
    reorder_delay: float,
    duplicate: float,
    drops: tuple[str, ...],
    seed: int,
    timeout: float | None,
) -> None:
    """A seeded UDP impairment relay between a live client and server (loopback
    tests): loss, delay, jitter, reordering, duplication in both directions and a drop
    list of DATA chunks. Runs until --timeout or Ctrl-C, then prints its counters."""
    stats = _core.live_relay(
        listen=_ipv4(bind),
        listen_port=listen_port,
        server=_ipv4(server_host),
        server_port=server_port,
        loss=loss,
        delay=delay,
        jitter=jitter,
        reorder=reorder,
        reorder_delay=reorder_delay,
        duplicate=duplicate,
        drop_chunks=_drop_list(drops),
        seed=seed,
        timeout=timeout,
    )
    click.echo(stats)
