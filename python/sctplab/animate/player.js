// The player of `sctplab animate` (docs/animate.md): draws one run from the data inlined
// in the page on a canvas, driven by requestAnimationFrame. Hand-written, no library.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("anim-data").textContent);
  const V = D.view;
  const NODE = "#1f6feb", SELECT = "#fab005", DROP = "#e03131";
  const LINK = "#adb5bd", RANGE = "rgba(31,111,235,0.08)";
  const KIND_COLOR = ["#e8590c", "#2f9e44", "#868e96", "#ae3ec9", "#f59f00"];
  const KIND_NAME = ["data", "ack", "control", "routing", "ARP"];
  const FLOW_COLOR = ["#e8590c", "#1971c2", "#2f9e44", "#ae3ec9", "#f08c00", "#0c8599",
    "#c2255c", "#5c940d", "#6741d9", "#495057"];
  const SPEEDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100];
  // How long a drop stays marked, in simulated microseconds (at least this much wall
  // time at the current speed).
  const DROP_SHOW_WALL_S = 0.6;
  // Routes of the selected node's table listed in the panel.
  const TABLE_ROWS = 8;

  const map = document.getElementById("map");
  const ctx = map.getContext("2d");
  map.width = V.width;
  map.height = V.height;
  const slider = document.getElementById("slider");
  const playBtn = document.getElementById("play");
  const speedSel = document.getElementById("speed");
  const timeLbl = document.getElementById("time");
  const info = document.getElementById("info");
  document.getElementById("title").textContent =
    D.scenario + " (seed " + D.seed + ")" + (D.wireless ? ", wireless" : "");

  const S = {
    t: 0, playing: false, speed: D.speed, frames: 0, drawMs: 0,
    node: -1, flow: -1, lastWall: null,
  };
  const end = Math.max(D.end_us, 1);
  slider.max = String(end / 1000);
  for (const s of SPEEDS) {
    const o = document.createElement("option");
    o.value = String(s);
    o.textContent = s + "x";
    if (s === S.speed) o.selected = true;
    speedSel.appendChild(o);
  }
  const legend = document.getElementById("legend");
  legend.innerHTML = "";
  KIND_NAME.forEach(function (n, i) {
    const s = document.createElement("span");
    s.innerHTML = '<i class="sw" style="background:' + KIND_COLOR[i] + '"></i>';
    s.appendChild(document.createTextNode(n));
    legend.appendChild(s);
  });
  const dropLegend = document.createElement("span");
  dropLegend.innerHTML = '<i class="sw" style="background:' + DROP + '"></i>';
  dropLegend.appendChild(document.createTextNode("drop"));
  legend.appendChild(dropLegend);

  // World to canvas: the world box fitted into the canvas less its margin, centred.
  const W = D.world;
  const scale = Math.min((V.width - 2 * V.margin) / W.w, (V.height - 2 * V.margin) / W.h);
  const ox = V.margin + (V.width - 2 * V.margin - W.w * scale) / 2;
  const oy = V.margin + (V.height - 2 * V.margin - W.h * scale) / 2;
  function toScreen(x, y) { return [ox + x * scale, oy + y * scale]; }

  // Positions: a node's legs (sorted by start) as the core's Leg::at computes them, or
  // its fixed place.
  const legIdx = D.legs.map(function () { return 0; });
  function posOf(n, t) {
    const legs = D.legs[n];
    if (!legs || legs.length === 0) return D.layout[n];
    let i = legIdx[n];
    if (i >= legs.length || legs[i][0] > t) i = 0;
    while (i + 1 < legs.length && legs[i + 1][0] <= t) i++;
    legIdx[n] = i;
    const L = legs[i];
    const dx = L[3] - L[1], dy = L[4] - L[2];
    const total = Math.hypot(dx, dy);
    const gone = L[5] * Math.max(0, t - L[0]) / 1e6;
    if (L[5] <= 0 || total === 0 || gone >= total) return [L[3], L[4]];
    return [L[1] + dx * gone / total, L[2] + dy * gone / total];
  }

  // First index in a sorted array with a[i] > v (or >= with `strict` false).
  function bound(a, v, strict) {
    let lo = 0, hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (strict ? a[mid] <= v : a[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  const H = D.hop;
  const hopsCountedT = D.hops_counted.map(function (r) { return r[0]; });
  const dropsT = D.drops.map(function (r) { return r[0]; });
  const dropsCountedT = D.drops_counted.map(function (r) { return r[0]; });
  const routesT = D.routes.map(function (r) { return r[0]; });
  // Routing-table changes per node (each node's in time order), for the selected node's
  // table at any instant.
  const tablesOf = D.nodes.map(function () { return []; });
  for (const r of D.tables) if (tablesOf[r[1]]) tablesOf[r[1]].push(r);
  const tablesCountedT = D.tables_counted.map(function (r) { return r[0]; });
  // Node n's route table at t from its changes: destination -> [next hop, hops], and
  // how many changes it made in (t - recent, t].
  function tableAt(n, t, recent) {
    const routes = new Map();
    let changed = 0;
    for (const r of tablesOf[n]) {
      if (r[0] > t) break;
      if (r[3] < 0) routes.delete(r[2]); else routes.set(r[2], [r[3], r[4]]);
      if (r[0] > t - recent) changed++;
    }
    for (let i = bound(tablesCountedT, t - recent, false), e = bound(tablesCountedT, t, true);
      i < e; i++) {
      if (D.tables_counted[i][1] === n) changed += D.tables_counted[i][2];
    }
    return { routes: routes, changed: changed };
  }

  // Which links a fault holds down at t (the events are in time order).
  function linksDown(t) {
    const down = D.links.map(function () { return false; });
    for (const e of D.link_events) {
      if (e[0] > t) break;
      down[e[1]] = e[2] === 0;
    }
    return down;
  }

  // Satellite runs: the satellite a ground station is attached to at t (-1: none),
  // from the `attach` records (in time order).
  function attachedAt(station, t) {
    let sat = -1;
    for (const a of D.sat.attach) {
      if (a[0] > t) break;
      if (a[1] === station) sat = a[2];
    }
    return sat;
  }
  // On the world map a line longer than half its width would cross the antimeridian
  // the wrong way round: not drawn.
  function wraps(a, b) {
    return D.sat !== null && Math.abs(b[0] - a[0]) > W.w * scale / 2;
  }

  function hopOn(i) {
    if (S.flow >= 0) return H.flow[i] === S.flow;
    if (S.node >= 0) return H.from[i] === S.node || H.to[i] === S.node;
    return true;
  }

  function drawMap(t) {
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, V.width, V.height);
    const n = D.nodes.length;
    const pos = new Array(n);
    const scr = new Array(n);
    for (let i = 0; i < n; i++) {
      pos[i] = posOf(i, t);
      scr[i] = pos[i] ? toScreen(pos[i][0], pos[i][1]) : null;
    }
    if (D.sat) {
      // The world map's frame and its equator.
      const a = toScreen(0, 0), e = toScreen(0, W.h / 2);
      ctx.strokeStyle = "#dee2e6";
      ctx.lineWidth = 1;
      ctx.strokeRect(a[0], a[1], W.w * scale, W.h * scale);
      ctx.beginPath();
      ctx.moveTo(e[0], e[1]);
      ctx.lineTo(e[0] + W.w * scale, e[1]);
      ctx.stroke();
    }
    if (D.wireless) {
      const a = toScreen(0, 0);
      ctx.strokeStyle = "#dee2e6";
      ctx.lineWidth = 1;
      ctx.strokeRect(a[0], a[1], W.w * scale, W.h * scale);
    }
    // Links: wired ones (dashed red while a fault holds them down), and wireless nodes
    // within range of each other.
    const down = linksDown(t);
    ctx.lineWidth = 1.5;
    D.links.forEach(function (l, k) {
      let a = scr[l[0]], b = scr[l[1]];
      if (D.sat && D.sat.gsl[k] !== undefined) {
        // A ground link: from its station to the satellite it is attached to now.
        const far = attachedAt(D.sat.gsl[k], t);
        a = scr[D.sat.gsl[k]];
        b = far >= 0 ? scr[far] : null;
      }
      if (!a || !b || wraps(a, b)) return;
      ctx.strokeStyle = down[k] ? DROP : LINK;
      ctx.setLineDash(down[k] ? [6, 4] : []);
      ctx.beginPath();
      ctx.moveTo(a[0], a[1]);
      ctx.lineTo(b[0], b[1]);
      ctx.stroke();
    });
    ctx.setLineDash([]);
    if (D.wireless) {
      const r2 = D.wireless.range_m * D.wireless.range_m;
      ctx.strokeStyle = "rgba(173,181,189,0.45)";
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (let i = 0; i < n; i++) {
        if (!D.nodes[i].wireless || !pos[i]) continue;
        for (let j = i + 1; j < n; j++) {
          if (!D.nodes[j].wireless || !pos[j]) continue;
          const dx = pos[i][0] - pos[j][0], dy = pos[i][1] - pos[j][1];
          if (dx * dx + dy * dy <= r2) {
            ctx.moveTo(scr[i][0], scr[i][1]);
            ctx.lineTo(scr[j][0], scr[j][1]);
          }
        }
      }
      ctx.stroke();
      if (S.node >= 0 && scr[S.node] && D.nodes[S.node].wireless) {
        ctx.fillStyle = RANGE;
        ctx.beginPath();
        ctx.arc(scr[S.node][0], scr[S.node][1], D.wireless.range_m * scale, 0, 2 * Math.PI);
        ctx.fill();
      }
    }
    // The selected flow's route: the hops its packets took in the last second.
    if (S.flow >= 0) {
      ctx.strokeStyle = "rgba(250,176,5,0.55)";
      ctx.lineWidth = 7;
      ctx.beginPath();
      for (let i = bound(H.t, t - 1e6, false), e = bound(H.t, t, true); i < e; i++) {
        if (H.flow[i] !== S.flow || H.to[i] < 0) continue;
        const a = scr[H.from[i]], b = scr[H.to[i]];
        if (!a || !b) continue;
        ctx.moveTo(a[0], a[1]);
        ctx.lineTo(b[0], b[1]);
      }
      ctx.stroke();
    }
    // Hops past the budget in the bin holding t: a band whose width grows with the count.
    const bin = Math.floor(t / D.bin_us) * D.bin_us;
    ctx.strokeStyle = "rgba(232,89,12,0.25)";
    for (let i = bound(hopsCountedT, bin, false); i < D.hops_counted.length; i++) {
      const r = D.hops_counted[i];
      if (r[0] !== bin) break;
      const a = scr[r[1]];
      if (!a) continue;
      ctx.lineWidth = 2 + 2 * Math.log2(1 + r[3]);
      ctx.beginPath();
      if (r[2] >= 0 && scr[r[2]]) {
        ctx.moveTo(a[0], a[1]);
        ctx.lineTo(scr[r[2]][0], scr[r[2]][1]);
      } else {
        ctx.arc(a[0], a[1], 14, 0, 2 * Math.PI);
      }
      ctx.stroke();
    }
    // Packets in flight: every hop that started at most max_dur ago and is not over.
    let inFlight = 0;
    for (let i = bound(H.t, t - D.max_dur_us, false), e = bound(H.t, t, true); i < e; i++) {
      const t0 = H.t[i], dur = H.dur[i];
      if (t >= t0 + dur) continue;
      const a = scr[H.from[i]];
      if (!a) continue;
      inFlight++;
      const frac = (t - t0) / dur;
      const on = hopOn(i);
      ctx.globalAlpha = on ? 1 : 0.15;
      ctx.fillStyle = KIND_COLOR[H.kind[i]];
      ctx.strokeStyle = KIND_COLOR[H.kind[i]];
      if (H.to[i] < 0) {
        // A broadcast: a ring spreading to the radio's range.
        const r = (D.wireless ? D.wireless.range_m * scale : 30) * frac;
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.arc(a[0], a[1], Math.max(r, 1), 0, 2 * Math.PI);
        ctx.stroke();
      } else {
        const b = scr[H.to[i]];
        if (!b || wraps(a, b)) continue;
        // PACKET_OFFSET px to the right of the direction of travel: the two directions
        // of a link do not cover each other.
        const len = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1;
        const x = a[0] + (b[0] - a[0]) * frac - (b[1] - a[1]) / len * V.packet_offset;
        const y = a[1] + (b[1] - a[1]) * frac + (b[0] - a[0]) / len * V.packet_offset;
        ctx.beginPath();
        ctx.arc(x, y, on && (S.flow >= 0 || S.node >= 0) ? 5 : 4, 0, 2 * Math.PI);
        ctx.fill();
      }
    }
    ctx.globalAlpha = 1;
    // Drops: a cross at the node, shown for a while after.
    const show = Math.max(DROP_SHOW_WALL_S * S.speed * 1e6, 2e5);
    ctx.strokeStyle = DROP;
    ctx.lineWidth = 2.5;
    let drops = 0;
    for (let i = bound(dropsT, t - show, false), e = bound(dropsT, t, true); i < e; i++) {
      const r = D.drops[i];
      if (S.flow >= 0 && r[2] !== S.flow) continue;
      const a = scr[r[1]];
      if (!a) continue;
      drops++;
      cross(a[0] + 10, a[1] - 10, 5);
    }
    for (let i = bound(dropsCountedT, t - show, false), e = bound(dropsCountedT, t, true);
      i < e; i++) {
      const a = scr[D.drops_counted[i][1]];
      if (!a) continue;
      drops += D.drops_counted[i][3];
      cross(a[0] + 10, a[1] - 10, 7);
    }
    // Route changes: a ring around the node that picked a new next hop (for the selected
    // flow: only towards its destination), and the new hop as a dashed line.
    ctx.strokeStyle = SELECT;
    ctx.lineWidth = 2;
    let routes = 0;
    for (let i = bound(routesT, t - show, false), e = bound(routesT, t, true); i < e; i++) {
      const r = D.routes[i];
      if (S.flow >= 0 && r[2] !== D.flows[S.flow].dst) continue;
      if (S.node >= 0 && r[1] !== S.node) continue;
      const a = scr[r[1]], b = scr[r[3]];
      if (!a) continue;
      routes++;
      ctx.setLineDash([]);
      ctx.beginPath();
      ctx.arc(a[0], a[1], V.node_radius + 7, 0, 2 * Math.PI);
      ctx.stroke();
      if (b) {
        ctx.setLineDash([3, 3]);
        ctx.beginPath();
        ctx.moveTo(a[0], a[1]);
        ctx.lineTo(b[0], b[1]);
        ctx.stroke();
      }
    }
    ctx.setLineDash([]);
    // The selected node's route table: a dashed line to each next hop it uses now, and
    // a ring while its table changed within the time drops are shown.
    let table = null;
    if (S.node >= 0 && tablesOf[S.node].length + D.tables_counted.length > 0) {
      table = tableAt(S.node, t, show);
      const a = scr[S.node];
      const nexts = new Set();
      for (const v of table.routes.values()) nexts.add(v[0]);
      ctx.strokeStyle = KIND_COLOR[3];
      ctx.lineWidth = 2;
      ctx.setLineDash([2, 3]);
      for (const nh of nexts) {
        const b = scr[nh];
        if (!a || !b || wraps(a, b)) continue;
        ctx.beginPath();
        ctx.moveTo(a[0], a[1]);
        ctx.lineTo(b[0], b[1]);
        ctx.stroke();
      }
      ctx.setLineDash([]);
      if (a && table.changed > 0) {
        ctx.beginPath();
        ctx.arc(a[0], a[1], V.node_radius + 11, 0, 2 * Math.PI);
        ctx.stroke();
      }
      ctx.strokeStyle = SELECT;
    }
    // Handovers: a ring around the ground station that changed satellite.
    if (D.sat) {
      for (const h of D.sat.attach) {
        if (h[0] > t) break;
        if (h[0] === 0 || h[0] < t - show) continue;
        const a = scr[h[1]];
        if (!a) continue;
        ctx.beginPath();
        ctx.arc(a[0], a[1], V.node_radius + 7, 0, 2 * Math.PI);
        ctx.stroke();
      }
    }
    // Nodes on top.
    for (let i = 0; i < n; i++) {
      const a = scr[i];
      if (!a) continue;
      ctx.fillStyle = NODE;
      ctx.beginPath();
      ctx.arc(a[0], a[1], D.sat && D.sat.is_sat[i] ? 2 : V.node_radius, 0, 2 * Math.PI);
      ctx.fill();
      if (i === S.node || (S.flow >= 0 && (D.flows[S.flow].src === i || D.flows[S.flow].dst === i))) {
        ctx.strokeStyle = SELECT;
        ctx.lineWidth = 3;
        ctx.beginPath();
        ctx.arc(a[0], a[1], V.node_radius + 3, 0, 2 * Math.PI);
        ctx.stroke();
      }
      if (n <= 60) {
        ctx.fillStyle = "#495057";
        ctx.font = "11px system-ui, sans-serif";
        ctx.fillText(D.nodes[i].name, a[0] + V.node_radius + 3, a[1] + V.node_radius + 9);
      }
    }
    return { inFlight: inFlight, drops: drops, routes: routes, pos: pos, table: table };
  }

  function cross(x, y, r) {
    ctx.beginPath();
    ctx.moveTo(x - r, y - r);
    ctx.lineTo(x + r, y + r);
    ctx.moveTo(x + r, y - r);
    ctx.lineTo(x - r, y + r);
    ctx.stroke();
  }

  // Charts: drawn once per selection into an image, the cursor on top each frame.
  function chart(id, values, unit) {
    const c = document.getElementById(id);
    const g = c.getContext("2d");
    let vmax = 0;
    for (let f = 0; f < D.flows.length; f++) {
      for (const v of values(f)) if (v !== null && v > vmax) vmax = v;
    }
    vmax = vmax > 0 ? vmax * 1.05 : 1;
    const pad = 34;
    const xs = function (t) { return pad + (c.width - pad - 4) * t / end; };
    const ys = function (v) { return c.height - 14 - (c.height - 20) * v / vmax; };
    let image = null;
    function render() {
      g.fillStyle = "#fff";
      g.fillRect(0, 0, c.width, c.height);
      g.fillStyle = "#868e96";
      g.font = "10px system-ui, sans-serif";
      g.fillText((vmax / unit).toPrecision(3), 2, 12);
      g.fillText("0", 2, c.height - 14);
      g.fillText((end / 1e6).toFixed(1) + " s", c.width - 40, c.height - 2);
      const order = [];
      for (let f = 0; f < D.flows.length; f++) if (f !== S.flow) order.push(f);
      if (S.flow >= 0) order.push(S.flow);
      for (const f of order) {
        const ts = D.samples[f].t, vs = values(f);
        g.strokeStyle = S.flow < 0 || f === S.flow ? FLOW_COLOR[f % FLOW_COLOR.length] : "#dee2e6";
        g.lineWidth = f === S.flow ? 2 : 1;
        g.beginPath();
        let pen = false;
        for (let i = 0; i < ts.length; i++) {
          if (vs[i] === null) { pen = false; continue; }
          const x = xs(ts[i]), y = ys(vs[i]);
          if (pen) g.lineTo(x, y); else g.moveTo(x, y);
          pen = true;
        }
        g.stroke();
      }
      image = g.getImageData(0, 0, c.width, c.height);
    }
    c.addEventListener("click", function (ev) {
      const r = c.getBoundingClientRect();
      seek(Math.min(end, Math.max(0, (ev.clientX - r.left - pad) / (c.width - pad - 4) * end)));
    });
    return {
      render: render,
      cursor: function (t) {
        if (!image) render();
        g.putImageData(image, 0, 0);
        g.strokeStyle = "#212529";
        g.lineWidth = 1;
        g.beginPath();
        g.moveTo(xs(t), 0);
        g.lineTo(xs(t), c.height - 12);
        g.stroke();
      },
    };
  }
  const charts = [
    chart("rate", function (f) { return D.samples[f].rate; }, 1e6),
    chart("cwnd", function (f) { return D.samples[f].cwnd; }, 1),
  ];

  // Flow buttons.
  const flowsDiv = document.getElementById("flows");
  D.flows.forEach(function (f, i) {
    const b = document.createElement("button");
    b.innerHTML = '<i class="sw" style="background:' + FLOW_COLOR[i % FLOW_COLOR.length] + '"></i>';
    b.appendChild(document.createTextNode(f.name + " (" + f.kind + ")"));
    b.addEventListener("click", function () { selectFlow(S.flow === i ? -1 : i); });
    flowsDiv.appendChild(b);
  });
  function selectFlow(f) {
    S.flow = f;
    if (f >= 0) S.node = -1;
    Array.prototype.forEach.call(flowsDiv.children, function (b, i) {
      b.className = i === f ? "on" : "";
    });
    for (const c of charts) c.render();
    S.dirty = true;
  }
  map.addEventListener("click", function (ev) {
    const r = map.getBoundingClientRect();
    const x = ev.clientX - r.left, y = ev.clientY - r.top;
    let best = -1, bestD = 15 * 15;
    for (let i = 0; i < D.nodes.length; i++) {
      const p = posOf(i, S.t);
      if (!p) continue;
      const s = toScreen(p[0], p[1]);
      const d = (s[0] - x) * (s[0] - x) + (s[1] - y) * (s[1] - y);
      if (d < bestD) { bestD = d; best = i; }
    }
    S.node = best === S.node ? -1 : best;
    if (S.node >= 0) selectFlow(-1);
    S.dirty = true;
  });

  function sampleAt(f, t) {
    const ts = D.samples[f].t;
    const i = bound(ts, t, true) - 1;
    return i < 0 ? null : i;
  }

  function describe(t, drawn) {
    let s = "";
    if (S.node >= 0) {
      const p = drawn.pos[S.node];
      s += "node " + D.nodes[S.node].name +
        (p ? "  at (" + p[0].toFixed(1) + ", " + p[1].toFixed(1) + ")" +
          (D.wireless ? " m" : "") : "") + "\n";
      const tb = drawn.table;
      if (tb) {
        const rows = Array.from(tb.routes.entries()).sort(function (x, y) { return x[0] - y[0]; });
        s += "route table: " + rows.length + " route" + (rows.length === 1 ? "" : "s") +
          ", " + tb.changed + " change" + (tb.changed === 1 ? "" : "s") + " just now\n";
        for (const r of rows.slice(0, TABLE_ROWS)) {
          s += "  to " + D.nodes[r[0]].name + " via " + D.nodes[r[1][0]].name + ", " +
            r[1][1] + " hop" + (r[1][1] === 1 ? "" : "s") + "\n";
        }
        if (rows.length > TABLE_ROWS) s += "  ... " + (rows.length - TABLE_ROWS) + " more\n";
      }
    }
    if (S.flow >= 0) {
      const f = D.flows[S.flow];
      s += "flow " + f.name + " (" + f.kind + ") " + D.nodes[f.src].name + " -> " +
        D.nodes[f.dst].name + "\n";
      const i = sampleAt(S.flow, t);
      if (i !== null) {
        const c = D.samples[S.flow].cwnd[i];
        s += "throughput " + (D.samples[S.flow].rate[i] / 1e6).toFixed(3) + " Mb/s" +
          (c === null ? "" : "  cwnd " + c) + "\n";
      }
    }
    s += "packets in flight (drawn) " + drawn.inFlight + ", drops shown " + drawn.drops +
      ", route changes shown " + drawn.routes;
    if (S.node < 0 && S.flow < 0) s += "\nclick a node or a flow to highlight it";
    info.textContent = s;
  }

  function seek(t) {
    S.t = Math.min(end, Math.max(0, t));
    S.dirty = true;
  }
  function play() {
    if (S.t >= end) S.t = 0;
    S.playing = true;
    S.lastWall = null;
    playBtn.textContent = "Pause";
  }
  function pause() {
    S.playing = false;
    playBtn.textContent = "Play";
  }
  playBtn.addEventListener("click", function () { if (S.playing) pause(); else play(); });
  speedSel.addEventListener("change", function () { S.speed = Number(speedSel.value); });
  slider.addEventListener("input", function () { seek(Number(slider.value) * 1000); });

  function frame(now) {
    if (S.playing) {
      if (S.lastWall !== null) S.t += (now - S.lastWall) / 1000 * S.speed * 1e6;
      S.lastWall = now;
      if (S.t >= end) { S.t = end; pause(); }
      S.dirty = true;
    }
    if (S.dirty) {
      const t0 = performance.now();
      const drawn = drawMap(S.t);
      for (const c of charts) c.cursor(S.t);
      slider.value = String(S.t / 1000);
      timeLbl.textContent = (S.t / 1e6).toFixed(3) + " s / " + (end / 1e6).toFixed(1) + " s";
      describe(S.t, drawn);
      S.drawMs += performance.now() - t0;
      S.frames++;
      S.dirty = false;
    }
    requestAnimationFrame(frame);
  }
  S.dirty = true;
  requestAnimationFrame(frame);

  // For tests and benchmarks (docs/animate.md): read the state, steer the player.
  window.sctplabAnim = {
    data: D,
    state: function () {
      return { t: S.t, playing: S.playing, frames: S.frames, drawMs: S.drawMs, speed: S.speed };
    },
    seek: seek, play: play, pause: pause,
    setSpeed: function (s) { S.speed = s; },
    selectFlow: selectFlow,
    selectNode: function (n) { S.node = n; if (n >= 0) selectFlow(-1); S.dirty = true; },
    tableAt: function (n, t) {
      const tb = tableAt(n, t, 0);
      return Array.from(tb.routes.entries()).sort(function (x, y) { return x[0] - y[0]; });
    },
    toScreen: toScreen, posOf: posOf,
  };
})();
